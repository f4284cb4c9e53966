/* dor: dimension-order routing on generated meshes, tori and hypercubes
   (ibr gen cables dimension d on ports 2*d*P+1 .. 2*d*P+2P of a mesh or
   torus with P parallel cables, on port d+1 of a hypercube): routes valid
   and minimal, the dimensions of every route non-decreasing, meshes and
   hypercubes credit-loop free, tori with a credit loop, balancing only
   over parallel links, LMC, the port search order and its parser, and the
   toolkit flags dor is built on. Each property is also shown to fail on
   minhop's tables, so the checks can fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/toolkit.h"

/* How the generator numbers ports: the dimension of switch port p, or -1
   for a host port. */
typedef struct grid {
    unsigned ndims;
    unsigned parallel; /* 0: hypercube (port d+1 is dimension d) */
} grid;

static int port_dim(const grid *g, unsigned p)
{
    if (g->parallel == 0)
        return p >= 1 && p <= g->ndims ? (int)p - 1 : -1;
    unsigned per = 2 * g->parallel;
    return p >= 1 && p <= g->ndims * per ? (int)((p - 1) / per) : -1;
}

/* The switch and port owning a LID's delivery, or IBR_NONE. */
static uint32_t lid_switch(const ibr_topo *t, uint16_t lid)
{
    uint32_t node;
    unsigned port;
    if (ibr_topo_lid_owner(&node, &port, t, lid) < 0)
        return IBR_NONE;
    uint32_t s = ibr_topo_node_switch(t, node);
    if (s != IBR_NONE)
        return s;
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if (ibr_topo_port_info(&pi, t, node, port) < 0 || pi.remote_node == IBR_NONE)
        return IBR_NONE;
    return ibr_topo_node_switch(t, pi.remote_node);
}

static uint32_t next_switch(const ibr_topo *t, uint32_t s, unsigned port, unsigned *rport)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if (port == IBR_NO_ROUTE || ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, s), port) < 0 ||
        pi.remote_node == IBR_NONE)
        return IBR_NONE;
    if (rport)
        *rport = pi.remote_port;
    return ibr_topo_node_switch(t, pi.remote_node);
}

/* Routes (switch, LID) whose switch-to-switch hops do not take the
   dimensions in non-decreasing order (sign +1) or non-increasing order
   (sign -1). */
static long dimension_violations(const ibr_topo *t, const ibr_result *r, const grid *g, int sign)
{
    uint32_t n = ibr_topo_switch_count(t);
    uint16_t maxlid = ibr_topo_max_lid(t);
    long bad = 0;
    for (unsigned lid = 1; lid <= maxlid; lid++) {
        uint32_t dsw = lid_switch(t, (uint16_t)lid);
        if (dsw == IBR_NONE)
            continue;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t cur = s;
            int last = -1;
            for (unsigned hops = 0; cur != dsw && hops <= n; hops++) {
                unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
                int d = port_dim(g, p);
                uint32_t nx = next_switch(t, cur, p, NULL);
                if (d < 0 || nx == IBR_NONE) {
                    bad++; /* the verifier reports broken routes; count them too */
                    break;
                }
                if (last >= 0 && (sign > 0 ? d < last : d > last)) {
                    bad++;
                    break;
                }
                last = d;
                cur = nx;
            }
        }
    }
    return bad;
}

/* (switch, destination switch) pairs whose end-port LIDs leave the switch
   toward more than one neighbour switch: dor sends every destination
   behind one switch through the same neighbour. */
static long neighbour_splits(const ibr_topo *t, const ibr_result *r)
{
    uint32_t n = ibr_topo_switch_count(t);
    uint16_t maxlid = ibr_topo_max_lid(t);
    uint32_t *seen = malloc(sizeof *seen * (size_t)n * n + 1);
    for (size_t i = 0; i < (size_t)n * n; i++)
        seen[i] = IBR_NONE;
    long bad = 0;
    for (unsigned lid = 1; lid <= maxlid; lid++) {
        uint32_t node;
        if (ibr_topo_lid_owner(&node, NULL, t, (uint16_t)lid) < 0 ||
            ibr_topo_node_switch(t, node) != IBR_NONE)
            continue; /* end ports only */
        uint32_t dsw = lid_switch(t, (uint16_t)lid);
        if (dsw == IBR_NONE)
            continue;
        for (uint32_t s = 0; s < n; s++) {
            if (s == dsw)
                continue;
            uint32_t nb = next_switch(t, s, ibr_result_lft_port(r, s, (uint16_t)lid), NULL);
            uint32_t *e = &seen[(size_t)s * n + dsw];
            if (*e == IBR_NONE)
                *e = nb;
            else if (*e != nb)
                bad++;
        }
    }
    free(seen);
    return bad;
}

/* Largest difference, over the groups of parallel links (same switch,
   same neighbour), between the end-port LIDs routed on two links of the
   group. Also counts in *unused the groups of >= 2 links that carry end
   port traffic on one link only. */
static unsigned parallel_imbalance(const ibr_topo *t, const ibr_result *r, unsigned *unused)
{
    uint32_t n = ibr_topo_switch_count(t);
    uint16_t maxlid = ibr_topo_max_lid(t);
    unsigned worst = 0;
    *unused = 0;
    for (uint32_t s = 0; s < n; s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        unsigned cnt[256] = {0};
        for (unsigned lid = 1; lid <= maxlid; lid++) {
            uint32_t node;
            if (ibr_topo_lid_owner(&node, NULL, t, (uint16_t)lid) < 0 ||
                ibr_topo_node_switch(t, node) != IBR_NONE)
                continue;
            unsigned p = ibr_result_lft_port(r, s, (uint16_t)lid);
            if (p != IBR_NO_ROUTE)
                cnt[p]++;
        }
        for (unsigned a = 1; a <= ni.nports; a++) {
            uint32_t ra = next_switch(t, s, a, NULL);
            if (ra == IBR_NONE)
                continue;
            unsigned lo = cnt[a], hi = cnt[a], members = 0, carrying = 0;
            int first = 1;
            for (unsigned b = 1; b <= ni.nports; b++) {
                if (next_switch(t, s, b, NULL) != ra)
                    continue;
                if (b < a)
                    first = 0;
                members++;
                carrying += cnt[b] > 0;
                if (cnt[b] < lo)
                    lo = cnt[b];
                if (cnt[b] > hi)
                    hi = cnt[b];
            }
            if (!first)
                continue;
            if (hi - lo > worst)
                worst = hi - lo;
            if (members >= 2 && carrying == 1)
                (*unused)++;
        }
    }
    return worst;
}

static ibr_result *route_dor(const ibr_topo *t, const ibr_options *o, int loop_free,
                             ibr_verify_report *rep)
{
    ibr_verify_report local = {.version = IBR_VERIFY_REPORT_VERSION};
    if (!rep)
        rep = &local;
    ibr_result *r = ibr_test_route(rep, t, "dor,no_fallback", o,
                                   IBR_TEST_MINIMAL | (loop_free ? IBR_TEST_DEADLOCK_FREE : 0));
    CU_ASSERT_PTR_NOT_NULL(r);
    if (r)
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "dor");
    return r;
}

static void test_meshes_hypercubes(void)
{
    static const struct {
        const char *spec;
        grid g;
    } cases[] = {
        {"mesh:dims=5x4,hosts=2", {2, 1}},
        {"mesh:dims=3x4x3,hosts=1", {3, 1}},
        {"mesh:dims=4x3,hosts=2,parallel=2", {2, 2}},
        {"mesh:dims=3x3x2,hosts=3,parallel=3", {3, 3}},
        {"mesh:dims=7,hosts=1", {1, 1}},
        {"hypercube:dim=3,hosts=2", {3, 0}},
        {"hypercube:dim=5,hosts=1", {5, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_topo *t = ibr_test_topo(NULL, cases[i].spec);
        ibr_result *r = route_dor(t, NULL, 1, NULL);
        if (r) {
            long v = dimension_violations(t, r, &cases[i].g, 1);
            long sp = neighbour_splits(t, r);
            if (v || sp)
                fprintf(stderr, "%s: %ld dimension-order violations, %ld split destinations\n",
                        cases[i].spec, v, sp);
            CU_ASSERT_EQUAL(v, 0);
            CU_ASSERT_EQUAL(sp, 0);
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* On a torus dor still takes the dimensions in order and shortest paths,
   but the wraparound links close credit loops, which the verifier finds. */
static void test_tori_have_credit_loops(void)
{
    static const struct {
        const char *spec;
        grid g;
    } cases[] = {
        {"torus:dims=4x4,hosts=1", {2, 1}},
        {"torus:dims=5x3x4,hosts=1", {3, 1}},
        {"torus:dims=4x4,hosts=2,parallel=2", {2, 2}},
        {"torus:dims=6,hosts=1", {1, 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_topo *t = ibr_test_topo(NULL, cases[i].spec);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        ibr_result *r = route_dor(t, NULL, 0, &rep);
        CU_ASSERT_EQUAL(rep.deadlock_free, 0);
        CU_ASSERT(rep.credit_loop_length > 0);
        size_t len = 0;
        CU_ASSERT_EQUAL(ibr_result_find_credit_loop(NULL, 0, &len, r), IBR_EDEADLOCK);
        CU_ASSERT(len > 0);
        if (r)
            CU_ASSERT_EQUAL(dimension_violations(t, r, &cases[i].g, 1), 0);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* minhop breaks each property dor keeps, on the same fabrics: the checks
   above are not vacuous. */
static void test_checks_catch_minhop(void)
{
    grid g = {2, 1};
    ibr_topo *t = ibr_test_topo(NULL, "mesh:dims=4x4,hosts=2");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    CU_ASSERT(dimension_violations(t, r, &g, 1) > 0);
    CU_ASSERT(neighbour_splits(t, r) > 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.deadlock_free, 0); /* minhop on a mesh: a credit loop */
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Parallel cables: each destination uses the links to one neighbour only,
   and the end-port routes are spread evenly over those links (they differ
   by at most one route), every link of a group carrying some. */
static void test_parallel_links_balanced(void)
{
    static const struct {
        const char *spec;
        grid g;
    } cases[] = {
        {"mesh:dims=4x4,hosts=2,parallel=2", {2, 2}},
        {"mesh:dims=3x3x3,hosts=3,parallel=3", {3, 3}},
        {"torus:dims=4x5,hosts=2,parallel=2", {2, 2}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_topo *t = ibr_test_topo(NULL, cases[i].spec);
        int torus = strncmp(cases[i].spec, "torus", 5) == 0;
        ibr_result *r = route_dor(t, NULL, !torus, NULL);
        if (r) {
            unsigned unused = 0;
            CU_ASSERT(parallel_imbalance(t, r, &unused) <= 1);
            CU_ASSERT_EQUAL(unused, 0);
            CU_ASSERT_EQUAL(neighbour_splits(t, r), 0);
            CU_ASSERT_EQUAL(dimension_violations(t, r, &cases[i].g, 1), 0);
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* LMC: every LID of a port takes the same dimensions (the same neighbour
   at every switch); on parallel links they may take different cables. */
static void test_lmc(void)
{
    static const struct {
        const char *spec;
        grid g;
        unsigned lmc;
    } cases[] = {
        {"mesh:dims=4x4,hosts=1,parallel=2", {2, 2}, 1},
        {"mesh:dims=3x3x2,hosts=2", {3, 1}, 2},
        {"hypercube:dim=4,hosts=1", {4, 0}, 1},
        {"torus:dims=4x4,hosts=1,parallel=2", {2, 2}, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_context *ctx = NULL;
        ibr_fabric *f = NULL;
        ibr_topo *t = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, cases[i].spec), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, cases[i].lmc, IBR_LIDS_REASSIGN), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        ibr_fabric_destroy(f);
        int torus = strncmp(cases[i].spec, "torus", 5) == 0;
        ibr_result *r = route_dor(t, NULL, !torus, NULL);
        if (r) {
            CU_ASSERT_EQUAL(dimension_violations(t, r, &cases[i].g, 1), 0);
            CU_ASSERT_EQUAL(neighbour_splits(t, r), 0);
            /* parallel links: the LIDs of one port are spread over cables */
            if (cases[i].g.parallel == 2) {
                long spread = 0;
                uint32_t n = ibr_topo_switch_count(t);
                uint16_t maxlid = ibr_topo_max_lid(t);
                for (unsigned lid = 1; lid + 1 <= maxlid; lid++) {
                    uint32_t node, node2;
                    if (ibr_topo_lid_owner(&node, NULL, t, (uint16_t)lid) < 0 ||
                        ibr_topo_lid_owner(&node2, NULL, t, (uint16_t)(lid + 1)) < 0 ||
                        node != node2 || ibr_topo_node_switch(t, node) != IBR_NONE)
                        continue;
                    for (uint32_t s = 0; s < n; s++) {
                        unsigned a = ibr_result_lft_port(r, s, (uint16_t)lid);
                        unsigned b = ibr_result_lft_port(r, s, (uint16_t)(lid + 1));
                        if (a != b && next_switch(t, s, a, NULL) == next_switch(t, s, b, NULL))
                            spread++;
                    }
                }
                CU_ASSERT(spread > 0);
            }
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* The node GUID of switch s. */
static uint64_t sw_guid(const ibr_topo *t, uint32_t s)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
    return ni.node_guid;
}

/* Route with dor.port_search_ordering = text; return the result (NULL and
   *rc set when routing failed). */
static ibr_result *route_order(const ibr_topo *t, const char *text, int *rc)
{
    ibr_param p = {"dor.port_search_ordering", text};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    ibr_result *r = NULL;
    *rc = ibr_route(&r, t, "dor,no_fallback", &o);
    if (*rc < 0) {
        ibr_result_destroy(r);
        return NULL;
    }
    return r;
}

/* Every switch lists the ports of its higher dimension first: the routes
   then take the dimensions in decreasing order, still minimal and (on a
   mesh) credit-loop free. */
static void test_search_order_reverses_dimensions(void)
{
    grid g = {3, 1};
    ibr_topo *t = ibr_test_topo(NULL, "mesh:dims=3x3x3,hosts=1");
    uint32_t n = ibr_topo_switch_count(t);
    size_t cap = (size_t)n * 64 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "# z, then y, then x\n");
    for (uint32_t s = 0; s < n; s++)
        len += (size_t)snprintf(text + len, cap - len, "0x%016llx 5 6 3 4 1 2\n",
                                (unsigned long long)sw_guid(t, s));
    ibr_param p = {"dor.port_search_ordering", text};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    ibr_result *r = route_dor(t, &o, 1, NULL);
    if (r) {
        CU_ASSERT_EQUAL(dimension_violations(t, r, &g, -1), 0);
        CU_ASSERT(dimension_violations(t, r, &g, 1) > 0);
        /* the result records the setting it ran with */
        int found = 0;
        for (size_t i = 0; i < ibr_result_setting_count(r); i++) {
            const char *name, *value;
            ibr_result_setting(&name, &value, r, i);
            if (!strcmp(name, "dor.port_search_ordering"))
                found = !strcmp(value, text);
        }
        CU_ASSERT(found);
    }
    ibr_result_destroy(r);
    free(text);
    ibr_topo_destroy(t);
}

/* Copy fmt into out with "@0", "@C" and "@1" replaced by a, c and b. */
static void expand(char *out, size_t cap, const char *fmt, const char *a, const char *c,
                   const char *b)
{
    size_t n = 0;
    for (const char *p = fmt; *p && n + 1 < cap; p++) {
        const char *sub = NULL;
        if (p[0] == '@' && (p[1] == '0' || p[1] == 'C' || p[1] == '1'))
            sub = p[1] == '0' ? a : p[1] == 'C' ? c : b;
        if (sub) {
            size_t l = strlen(sub);
            if (n + l + 1 > cap)
                break;
            memcpy(out + n, sub, l);
            n += l;
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

/* The parser's rules, seen through the first hop of switch 0 of a 3x3 mesh
   (ports 1, 3 uncabled, 2 toward x + 1, 4 toward y + 1, 5 the host) toward
   the host of switch 4 at (1, 1): port 2 by default, 4 when the order puts
   dimension 1 first. */
static void test_search_order_parser(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "mesh:dims=3x3,hosts=1");
    uint64_t g0 = sw_guid(t, 0), g1 = sw_guid(t, 1);
    /* the host LID behind switch 4 */
    uint16_t lid = 0;
    for (unsigned l = 1; l <= ibr_topo_max_lid(t); l++) {
        uint32_t node;
        if (ibr_topo_lid_owner(&node, NULL, t, (uint16_t)l) == 0 &&
            ibr_topo_node_switch(t, node) == IBR_NONE && lid_switch(t, (uint16_t)l) == 4)
            lid = (uint16_t)l;
    }
    CU_ASSERT_FATAL(lid != 0);
    char ca_guid[40];
    {
        uint32_t node;
        ibr_topo_lid_owner(&node, NULL, t, lid);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        snprintf(ca_guid, sizeof ca_guid, "0x%llx", (unsigned long long)ni.node_guid);
    }
    char G0[40], G1[40];
    snprintf(G0, sizeof G0, "0x%llx", (unsigned long long)g0);
    snprintf(G1, sizeof G1, "%llu", (unsigned long long)g1); /* decimal GUID */
    static const struct {
        const char *fmt; /* @0: switch 0's GUID; @C: a CA's; @1: switch 1's */
        unsigned port;
    } cases[] = {
        {"", 2},
        {"@0 4\n", 4},
        {"@0 4 2\n", 4},
        {"@0 0x4 3\n", 4},                     /* C notation */
        {"  # comment\n\n@0\t4  # dims\n", 4}, /* comments, blanks, tabs */
        {"@0 4#2\n", 4},
        {"@0 4 0\n", 2},                       /* port 0: line ignored */
        {"@0 4 6\n", 2},                       /* beyond the switch */
        {"@0 4 4\n", 2},                       /* repeated port */
        {"@0 4,2\n", 2},                       /* not a port list */
        {"@0 4 -1\n", 2},
        {"@0 2\n@0 4\n", 2},                 /* first line for a switch wins */
        {"@0 0\n@0 4\n", 4},                 /* ... when it was applied */
        {"@0\n@0 4\n", 4},                   /* no port: default order stays */
        {"0xdeadbeef 4\n@0 4\n", 4},           /* unknown GUID */
        {"@C 4\n", 2},                         /* a CA: ignored */
        {"@1 3 4\n@0 4\r\n", 4},             /* other switch; CRLF */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        expand(text, sizeof text, cases[i].fmt, G0, ca_guid, G1);
        int rc;
        ibr_result *r = route_order(t, text, &rc);
        CU_ASSERT_EQUAL(rc, 0);
        if (r) {
            unsigned got = ibr_result_lft_port(r, 0, lid);
            if (got != cases[i].port)
                fprintf(stderr, "case %zu %s: port %u, expected %u\n", i, text, got,
                        cases[i].port);
            CU_ASSERT_EQUAL(got, cases[i].port);
            ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
            CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
            CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
            CU_ASSERT_EQUAL(rep.nonminimal, 0);
        }
        ibr_result_destroy(r);
    }

    /* a line that does not start with a GUID: dor fails naming the line;
       in a chain the fallback routes */
    static const struct {
        const char *fmt;
        const char *want;
    } bad[] = {
        {"garbage 4\n", "line 1"},
        {"@0 4\n\n# ok\nzz 1\n", "line 4"},
        {"@0 4\n0x12g 1\n", "line 2"},
        {"-5 1\n", "line 1"},
        {"0x1ffffffffffffffff 1\n", "line 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        expand(text, sizeof text, bad[i].fmt, G0, ca_guid, G1);
        ibr_param p = {"dor.port_search_ordering", text};
        ibr_options o = IBR_OPTIONS_INIT;
        o.params = &p;
        o.n_params = 1;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "dor,no_fallback", &o), IBR_EUNROUTABLE);
        const char *eng = NULL, *msg = NULL;
        int status = 0;
        CU_ASSERT_EQUAL(ibr_result_attempt(&eng, &status, &msg, r, 0), 0);
        CU_ASSERT_EQUAL(status, IBR_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, bad[i].want) ? msg : NULL);
        if (!msg || !strstr(msg, bad[i].want))
            fprintf(stderr, "bad case %zu: message '%s'\n", i, msg ? msg : "(null)");
        ibr_result_destroy(r);
        r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "dor", &o), 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* Ignored lines are logged as warnings naming the line and the reason. */
typedef struct logbuf {
    int warns;
    char last[512];
} logbuf;

static void collect(void *user, int level, const char *msg)
{
    logbuf *lb = user;
    if (level == IBR_LOG_WARN && strstr(msg, "port_search_ordering")) {
        lb->warns++;
        snprintf(lb->last, sizeof lb->last, "%s", msg);
    }
}

static void test_search_order_warnings(void)
{
    logbuf lb = {0, ""};
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    cfg.log = collect;
    cfg.log_user = &lb;
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, &cfg), 0);
    ibr_topo *t = ibr_test_topo(ctx, "mesh:dims=3x3,hosts=1");
    char text[256];
    snprintf(text, sizeof text, "# fine\n0x%llx 4 2\n0x%llx 4 4\n0xdead 1\n",
             (unsigned long long)sw_guid(t, 0), (unsigned long long)sw_guid(t, 1));
    int rc;
    ibr_result *r = route_order(t, text, &rc);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(lb.warns, 2); /* lines 3 (port twice) and 4 (no such switch) */
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.last, "line 4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(lb.last, "ignored"));
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* Fabrics dor does not assume: random graphs, faults, a lone switch. The
   routes stay valid and minimal (no promise about loops). */
static void test_other_fabrics(void)
{
    static const char *specs[] = {
        "random:switches=20,degree=4,hosts=2,seed=3",
        "fattree:levels=2,radix=8",
        "dragonfly:a=4,p=2,h=2,g=5",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[i]);
        ibr_result *r = ibr_test_route(NULL, t, "dor,no_fallback", NULL, IBR_TEST_MINIMAL);
        CU_ASSERT_PTR_NOT_NULL(r);
        CU_ASSERT_EQUAL(neighbour_splits(t, r), 0);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* faults: unreachable destinations get no route, the rest are minimal */
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=4x4x3,hosts=1,parallel=2"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 10, 1, 7), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "dor,no_fallback", NULL), 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.nonminimal, 0);
    CU_ASSERT_EQUAL(rep.loops, 0);
    CU_ASSERT_EQUAL(rep.bad_port, 0);
    CU_ASSERT_EQUAL(neighbour_splits(t, r), 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* A fabric of more than 1,024 switches (the hop matrix beyond the cache,
   where minhop's candidate search changes strategy): the same properties,
   with the default and with a reversed search order. */
static void test_large_fabric(void)
{
    grid g = {2, 1};
    ibr_topo *t = ibr_test_topo(NULL, "mesh:dims=33x32,hosts=1");
    uint32_t n = ibr_topo_switch_count(t);
    CU_ASSERT_FATAL(n > 1024);
    ibr_result *r = route_dor(t, NULL, 1, NULL);
    if (r) {
        CU_ASSERT_EQUAL(dimension_violations(t, r, &g, 1), 0);
        CU_ASSERT_EQUAL(neighbour_splits(t, r), 0);
    }
    ibr_result_destroy(r);
    size_t cap = (size_t)n * 48 + 1, len = 0;
    char *text = malloc(cap);
    text[0] = 0;
    for (uint32_t s = 0; s < n; s++)
        len += (size_t)snprintf(text + len, cap - len, "0x%llx 3 4\n",
                                (unsigned long long)sw_guid(t, s));
    ibr_param p = {"dor.port_search_ordering", text};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    r = route_dor(t, &o, 1, NULL);
    if (r) {
        CU_ASSERT_EQUAL(dimension_violations(t, r, &g, -1), 0);
        CU_ASSERT_EQUAL(neighbour_splits(t, r), 0);
    }
    ibr_result_destroy(r);
    free(text);
    ibr_topo_destroy(t);
}

/* Same tables whatever the thread count, and the same on a second run. */
static void test_deterministic(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=6x5x4,hosts=2,parallel=2");
    ibr_options o1 = IBR_OPTIONS_INIT, o4 = IBR_OPTIONS_INIT;
    o1.threads = 1;
    o4.threads = 4;
    ibr_result *a = NULL, *b = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&a, t, "dor,no_fallback", &o1), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&b, t, "dor,no_fallback", &o4), 0);
    size_t sz = ibr_result_lft_size(a);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        CU_ASSERT_EQUAL(memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), sz), 0);
    ibr_result_destroy(a);
    ibr_result_destroy(b);
    ibr_topo_destroy(t);
}

/* Allocation failures anywhere in dor (its search order included) leave
   nothing behind and end in IBR_ENOMEM. */
static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_topo *t = ibr_test_topo(ctx, "mesh:dims=3x3,hosts=1,parallel=2");
    char text[128];
    snprintf(text, sizeof text, "0x%llx 3 4\n", (unsigned long long)sw_guid(t, 4));
    ibr_param p = {"dor.port_search_ordering", text};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    o.lmc = 1;
    long fails = 0;
    ibr_result *r = ibr_test_route_oom(&fails, &st, t, "dor,no_fallback", &o);
    CU_ASSERT(fails > 3);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "dor");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* The toolkit flags, through engines of our own: unknown flags are
   refused; IBR_UCAST_SEARCH_ORDER with the default (minimum-hop)
   candidates stops the rotation of the first port across a port's LIDs. */
static int kit_route(ibr_run *run, void *user)
{
    unsigned flags = *(const unsigned *)user;
    uint8_t *h = ibr_run_hops(run);
    int rc = ibr_topo_switch_hops(h, ibr_run_topo(run), 1);
    if (rc < 0)
        return rc;
    return ibr_run_ucast_ex(run, h, NULL, NULL, "kit", flags);
}

static void test_toolkit_flags(void)
{
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    static unsigned f_none = 0, f_order = IBR_UCAST_SEARCH_ORDER, f_bad = 1u << 7;
    static const struct {
        const char *name;
        unsigned *flags;
    } kits[] = {{"kit0", &f_none}, {"kit_order", &f_order}, {"kit_bad", &f_bad}};
    for (size_t i = 0; i < 3; i++) {
        ibr_engine e = IBR_ENGINE_INIT;
        e.name = kits[i].name;
        e.route = kit_route;
        e.user = kits[i].flags;
        CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    }
    CU_ASSERT_EQUAL(ibr_run_ucast_ex(NULL, NULL, NULL, NULL, NULL, 0), IBR_EINVAL);
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 2, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);

    ibr_result *m = NULL, *k0 = NULL, *ko = NULL, *kb = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&m, t, "minhop", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&k0, t, "kit0,no_fallback", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ko, t, "kit_order,no_fallback", NULL), 0);
    CU_ASSERT_EQUAL(ibr_route(&kb, t, "kit_bad,no_fallback", NULL), IBR_EUNROUTABLE);
    const char *msg = NULL;
    int status = 0;
    ibr_result_attempt(NULL, &status, &msg, kb, 0);
    CU_ASSERT_EQUAL(status, IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "flags") ? msg : NULL);
    size_t sz = ibr_result_lft_size(m);
    long differ0 = 0, differo = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        differ0 += memcmp(ibr_result_lft(m, s), ibr_result_lft(k0, s), sz) != 0;
        differo += memcmp(ibr_result_lft(m, s), ibr_result_lft(ko, s), sz) != 0;
    }
    CU_ASSERT_EQUAL(differ0, 0); /* flags 0 is ibr_run_ucast(): minhop */
    CU_ASSERT(differo > 0);      /* no rotation: other tables with LMC 2 */
    ibr_result_destroy(m);
    ibr_result_destroy(k0);
    ibr_result_destroy(ko);
    ibr_result_destroy(kb);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"meshes and hypercubes: minimal, dimension order, loop-free", test_meshes_hypercubes},
        {"tori: dimension order with credit loops", test_tori_have_credit_loops},
        {"the checks catch minhop", test_checks_catch_minhop},
        {"parallel links balanced, nothing else", test_parallel_links_balanced},
        {"LMC", test_lmc},
        {"search order reverses the dimensions", test_search_order_reverses_dimensions},
        {"search order parser", test_search_order_parser},
        {"search order warnings", test_search_order_warnings},
        {"other fabrics and faults", test_other_fabrics},
        {"more than 1,024 switches", test_large_fabric},
        {"deterministic", test_deterministic},
        {"out of memory", test_oom},
        {"toolkit flags", test_toolkit_flags},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("dor", tests);
}
