/*
 * Repair in place of torus-2QoS routings from the routing database: after
 * seeded single-cable and single-switch faults on 2-D and 3-D tori and a
 * mesh, and when the cable or switch comes back, every answer is a repair
 * in place, valid (ibr_result_verify()), free of credit loops by an
 * independent walk over LFTs, path SLs and SL2VL tables; a path that
 * crossed no lost element keeps its route, every path SL of a pair present
 * before and after is unchanged (torus-2QoS's SLs follow the coordinates),
 * and the report's LFT entries and path SLs changed are those a recount
 * finds. A database without the torus records (written before them) takes
 * a full reroute that says why; one written and read back repairs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repair_check.h"

/* Every path SL of a pair routed in both old and y (the source's switch
   has an entry toward the destination LID in both): the same. */
static void same_sls(const ibr_result *old, const ibr_result *y, const char *what)
{
    const ibr_topo *t = ibr_result_topo(y);
    uint16_t maxl = ibr_topo_max_lid(t);
    /* the switch of each source LID: end ports, then switches' port 0 */
    uint32_t *sw_of = malloc(((size_t)maxl + 1) * sizeof *sw_of);
    for (unsigned l = 0; l <= maxl; l++)
        sw_of[l] = IBR_NONE;
    ibr_test_endp *e;
    size_t ne = ibr_test_end_ports(t, &e);
    for (size_t i = 0; i < ne; i++)
        sw_of[e[i].lid] = e[i].sw;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, s), 0);
        if (pi.lid && pi.lid <= maxl)
            sw_of[pi.lid] = s;
    }
    uint16_t *srcs;
    size_t ns = ibr_test_src_lids(t, &srcs);
    uint64_t bad = 0, n = 0;
    for (size_t i = 0; i < ns; i++) {
        uint32_t ss = sw_of[srcs[i]];
        for (unsigned l = 1; ss != IBR_NONE && l <= maxl; l++) {
            if (ibr_result_lft_port(old, ss, (uint16_t)l) == IBR_NO_ROUTE ||
                ibr_result_lft_port(y, ss, (uint16_t)l) == IBR_NO_ROUTE)
                continue;
            n++;
            unsigned sa = ibr_result_path_sl(old, srcs[i], (uint16_t)l),
                     sb = ibr_result_path_sl(y, srcs[i], (uint16_t)l);
            if (sa != sb && bad < 3)
                fprintf(stderr, "\n%s: LID %u -> %u: SL %u -> %u\n", what, srcs[i], l, sa, sb);
            bad += sa != sb;
        }
    }
    if (bad)
        fprintf(stderr, "\n%s: %llu of %llu path SLs changed\n", what, (unsigned long long)bad,
                (unsigned long long)n);
    CU_ASSERT(n > 0);
    CU_ASSERT_EQUAL(bad, 0);
    free(srcs);
    free(e);
    free(sw_of);
}

/* The engine's own full run on t with the configuration r0 was built on
   (its torus-2QoS.conf artefact): when it routes (the seed is whole), the
   repair y has its LFTs byte for byte and its path SLs. Returns 1 when compared. */
static int same_as_engine(const ibr_result *r0, const ibr_result *y, const ibr_topo *t,
                          const char *what)
{
    const void *conf = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&conf, &n, r0, "torus-2QoS.conf"), 0);
    char *text = malloc(n + 1);
    memcpy(text, conf, n);
    text[n] = 0;
    ibr_param p = {"torus-2QoS.config", text};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    ibr_result *e = NULL;
    int rc = ibr_route(&e, t, "torus-2QoS,no_fallback", &o);
    uint64_t diff = 0;
    for (uint32_t s = 0; rc == 0 && s < ibr_topo_switch_count(t); s++)
        for (unsigned l = 1; l <= ibr_topo_max_lid(t); l++)
            diff += ibr_result_lft_port(e, s, (uint16_t)l) != ibr_result_lft_port(y, s, (uint16_t)l);
    if (diff)
        fprintf(stderr, "\n%s: %llu LFT entries differ from the engine's run\n", what,
                (unsigned long long)diff);
    CU_ASSERT_EQUAL(diff, 0);
    /* and the path SLs: the repair writes only those of new LIDs, the
       others kept must be the engine's */
    if (rc == 0)
        same_sls(e, y, what);
    ibr_result_destroy(e);
    free(text);
    return rc == 0;
}

static void faults_on(const char *spec, ibr_test_tally *ty, unsigned *compared)
{
    ibr_fabric *f = ibr_test_fabric(spec);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "torus-2QoS,no_fallback", NULL), 0);
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (unsigned kind = 0; kind < 2; kind++) {
            ibr_fabric *g = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(g, kind == 0, kind == 1, seed), 0);
            ibr_topo *t1 = ibr_test_freeze(g);
            char what[200];
            snprintf(what, sizeof what, "%s seed %llu %s", spec, (unsigned long long)seed,
                     kind ? "switch" : "cable");
            unsigned before = ty->full;
            ibr_result *y = ibr_test_reroute(r0, t1, ty, what);
            if (ty->full == before) {
                same_sls(r0, y, what);
                *compared += same_as_engine(r0, y, t1, what);
            }
            /* the element comes back: from the repaired routing's database */
            strncat(what, " back", sizeof what - strlen(what) - 1);
            before = ty->full;
            ibr_result *z = ibr_test_reroute(y, t0, ty, what);
            if (ty->full == before)
                same_sls(y, z, what);
            ibr_result_destroy(z);
            ibr_result_destroy(y);
            ibr_topo_destroy(t1);
            ibr_fabric_destroy(g);
        }
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

static void test_tori(void)
{
    const char *specs[] = {"torus:dims=6x6,hosts=2", "torus:dims=4x4x4,hosts=2",
                           "torus:dims=5x4x3,hosts=1"};
    ibr_test_tally ty = {0, 0, 0};
    unsigned compared = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        faults_on(specs[i], &ty, &compared);
    CU_ASSERT(compared >= 12);
    fprintf(stderr, "\ntorus-2QoS: %u repaired in place, %u full reroutes, %u equal to the "
            "engine's run\n", ty.repaired, ty.full, compared);
    CU_ASSERT_EQUAL(ty.full, 0);
    CU_ASSERT(ty.repaired >= 30);
}

/* A database without torusconf / toruspos records (as written before
   them) takes a full reroute with its reason; the same database written
   and read back keeps them and repairs in place. */
static void test_old_db(void)
{
    ibr_fabric *f = ibr_test_fabric("torus:dims=4x4x4,hosts=1");
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "torus-2QoS,no_fallback", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 1, 0, 2), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, r0), 0);
    /* the same text without the torus records, its end line's hash (FNV-1a
       64 of every byte before it) computed again */
    char *old = malloc(b.size + 64);
    size_t n = 0, dropped = 0;
    for (size_t i = 0; i < b.size;) {
        const char *nl = memchr(b.data + i, '\n', b.size - i);
        size_t len = nl ? (size_t)(nl - (b.data + i)) + 1 : b.size - i;
        if (!strncmp(b.data + i, "torusconf ", 10) || !strncmp(b.data + i, "toruspos ", 9))
            dropped++;
        else if (strncmp(b.data + i, "end ", 4) != 0) {
            memcpy(old + n, b.data + i, len);
            n += len;
        }
        i += len;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)old[i];
        h *= 0x100000001b3ULL;
    }
    n += (size_t)snprintf(old + n, 64, "end %016llx\n", (unsigned long long)h);
    CU_ASSERT(dropped > 64);
    for (int pass = 0; pass < 2; pass++) {
        ibr_routing_db *db = NULL;
        int rc = pass ? ibr_routing_db_parse(&db, NULL, b.data, b.size)
                      : ibr_routing_db_parse(&db, NULL, old, n);
        if (rc != 0)
            fprintf(stderr, "\n%s\n", ibr_routing_db_last_error(db));
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
        if (pass) {
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
        } else {
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
            CU_ASSERT(strstr(rep.reason, "keeps no torus") != NULL);
        }
        ibr_test_check_repair(r0, y, &rep, pass ? "read back" : "old database");
        ibr_result_destroy(y);
        ibr_routing_db_destroy(db);
    }
    free(old);
    ibr_buffer_dispose(&b);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t1);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

/* Allocation failures anywhere in a torus-2QoS repair (a lost cable, a
   lost switch): IBR_ENOMEM and nothing leaked, until it succeeds in
   place. */
static void oom_one(unsigned cable, uint64_t seed)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=4x3x3,hosts=1"), 0);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t0, "torus-2QoS,no_fallback", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, cable, !cable, seed), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    long live = st.live, fails = 0;
    for (long n = 0;; n++) {
        st.fail_at = st.calls + n;
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        int rc = ibr_routing_db_route(&y, &rep, db, t1, NULL, 0);
        st.fail_at = -1;
        ibr_result_destroy(y);
        CU_ASSERT_EQUAL_FATAL(st.live, live);
        if (rc == 0) {
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        fails++;
    }
    CU_ASSERT(fails > 20);
    ibr_routing_db_destroy(db);
    ibr_topo_destroy(t1);
    ibr_result_destroy(r);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

/* The x, y, z of torus switch sw from its generated description
   "T(x,y,z)"; 0 when it has none. */
static int sw_coords(const ibr_topo *t, uint32_t sw, unsigned c[3])
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    if (ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, sw)) < 0 || !ni.desc)
        return 0;
    return sscanf(ni.desc, "T(%u,%u,%u)", &c[0], &c[1], &c[2]) == 3;
}

/* Does switch sw have a port whose cable differs between t0 and t1? */
static int lost_cable(const ibr_topo *t0, const ibr_topo *t1, uint32_t sw)
{
    uint32_t n0 = ibr_topo_switch_node(t0, sw), n1 = ibr_topo_switch_node(t1, sw);
    for (unsigned p = 1;; p++) {
        ibr_port_info a = IBR_PORT_INFO_INIT, b = IBR_PORT_INFO_INIT;
        int ra = ibr_topo_port_info(&a, t0, n0, p), rb = ibr_topo_port_info(&b, t1, n1, p);
        if (ra < 0 || rb < 0)
            return 0;
        if (a.remote_node != b.remote_node || a.remote_port != b.remote_port || a.state != b.state)
            return 1;
    }
}

/* With parallel cables (two per neighbour, taken in turn per destination),
   a lost cable changes the entries of the switches on the lines (two
   coordinates shared) of its two ends only: the others choose their
   direction and cable as before, and keep their entries. */
static void test_parallel_lines(void)
{
    const char *spec = "torus:dims=4x4x4,hosts=2,parallel=2";
    ibr_fabric *f = ibr_test_fabric(spec);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    ibr_test_tally ty = {0, 0, 0};
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "torus-2QoS,no_fallback", NULL), 0);
    uint32_t S = ibr_topo_switch_count(t0);
    unsigned changed_total = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        ibr_fabric *g = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(g, 1, 0, seed), 0);
        ibr_topo *t1 = ibr_test_freeze(g);
        CU_ASSERT_EQUAL_FATAL(ibr_topo_switch_count(t1), S);
        char what[200];
        snprintf(what, sizeof what, "%s seed %llu cable", spec, (unsigned long long)seed);
        ibr_result *y = ibr_test_reroute(r0, t1, &ty, what);
        unsigned ends[2][3], n_ends = 0, off_line = 0;
        for (uint32_t s = 0; s < S; s++)
            if (lost_cable(t0, t1, s) && n_ends < 2 && sw_coords(t1, s, ends[n_ends]))
                n_ends++;
        CU_ASSERT_EQUAL(n_ends, 2);
        for (uint32_t s = 0; s < S && n_ends == 2; s++) {
            unsigned c[3], diff = 0, on_line = 0;
            for (unsigned l = 1; l <= ibr_topo_max_lid(t1); l++)
                diff += ibr_result_lft_port(r0, s, (uint16_t)l) !=
                        ibr_result_lft_port(y, s, (uint16_t)l);
            if (!diff)
                continue;
            changed_total++;
            CU_ASSERT_FATAL(sw_coords(t1, s, c));
            for (unsigned e = 0; e < 2; e++)
                on_line |= (c[0] == ends[e][0]) + (c[1] == ends[e][1]) + (c[2] == ends[e][2]) >= 2;
            off_line += !on_line;
        }
        if (off_line)
            fprintf(stderr, "\n%s: %u switches off the lost cable's lines changed\n", what,
                    off_line);
        CU_ASSERT_EQUAL(off_line, 0);
        ibr_result_destroy(y);
        ibr_topo_destroy(t1);
        ibr_fabric_destroy(g);
    }
    CU_ASSERT(changed_total > 0);
    CU_ASSERT_EQUAL(ty.full, 0);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

static void test_oom(void)
{
    oom_one(1, 2);
    oom_one(0, 1);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"torus-2QoS: faults repaired in place, SLs kept, loop-free, counts exact", test_tori},
        {"torus-2QoS: a database without the torus takes a full reroute", test_old_db},
        {"torus-2QoS: with parallel cables a lost cable changes only its lines' switches",
         test_parallel_lines},
        {"allocation failures in a torus-2QoS repair", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("repair_t2q", tests);
}
