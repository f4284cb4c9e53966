/* Topology generators, spec strings, fault injection and the PRNG. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "harness.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static ibr_fabric *gen(const char *spec)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
    int rc = ibr_fabric_generate(f, spec);
    if (rc != 0)
        fprintf(stderr, "generate(%s): %s: %s\n", spec, ibr_status_name(rc),
                ibr_fabric_last_error(f));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(ibr_fabric_last_error(f), "");
    return f;
}

static ibr_node_info node(const ibr_fabric *f, uint32_t n)
{
    ibr_node_info ni;
    ibr_node_info_init(&ni, IBR_NODE_INFO_VERSION);
    CU_ASSERT_FATAL(ibr_fabric_node_info(&ni, f, n) == 0);
    return ni;
}

static ibr_port_info port(const ibr_fabric *f, uint32_t n, unsigned p)
{
    ibr_port_info pi;
    ibr_port_info_init(&pi, IBR_PORT_INFO_VERSION);
    CU_ASSERT_FATAL(ibr_fabric_port_info(&pi, f, n, p) == 0);
    return pi;
}

static int is_sw(const ibr_fabric *f, uint32_t n)
{
    return node(f, n).type == IBR_NODE_SWITCH;
}

/* Port p of node a is cabled to port q of node b (checked from both ends). */
static int cabled(const ibr_fabric *f, uint32_t a, unsigned p, uint32_t b, unsigned q)
{
    ibr_port_info x = port(f, a, p), y = port(f, b, q);
    return x.remote_node == b && x.remote_port == q && y.remote_node == a && y.remote_port == p;
}

static int empty_port(const ibr_fabric *f, uint32_t a, unsigned p)
{
    return port(f, a, p).remote_node == IBR_NONE;
}

typedef struct counts {
    uint32_t sw, ca;
    uint32_t links;    /* cables, each once */
    uint32_t sw_links; /* switch-to-switch cables */
    uint32_t sw_down;  /* switch-to-switch cables that are down */
    uint32_t down;     /* all cables that are down */
    uint32_t first_ca; /* node index of the first CA */
} counts;

static counts count(const ibr_fabric *f)
{
    counts c;
    memset(&c, 0, sizeof c);
    c.first_ca = IBR_NONE;
    uint32_t n = ibr_fabric_node_count(f);
    for (uint32_t a = 0; a < n; a++) {
        ibr_node_info ni = node(f, a);
        if (ni.type == IBR_NODE_SWITCH) {
            c.sw++;
            /* switches come before every CA */
            CU_ASSERT(c.first_ca == IBR_NONE);
        } else {
            c.ca++;
            if (c.first_ca == IBR_NONE)
                c.first_ca = a;
        }
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = port(f, a, p);
            if (pi.remote_node == IBR_NONE)
                continue;
            /* the far end points back */
            ibr_port_info r = port(f, pi.remote_node, pi.remote_port);
            CU_ASSERT(r.remote_node == a && r.remote_port == p && r.state == pi.state);
            CU_ASSERT(pi.width == IBR_WIDTH_4X && pi.speed == IBR_SPEED_QDR);
            if (pi.remote_node < a || (pi.remote_node == a && pi.remote_port < p))
                continue;
            c.links++;
            if (pi.state == IBR_LINK_DOWN)
                c.down++;
            if (ni.type == IBR_NODE_SWITCH && is_sw(f, pi.remote_node)) {
                c.sw_links++;
                if (pi.state == IBR_LINK_DOWN)
                    c.sw_down++;
            }
        }
    }
    return c;
}

/* Number of cabled ports 1..nports of a node. */
static unsigned degree(const ibr_fabric *f, uint32_t a)
{
    unsigned d = 0, np = node(f, a).nports;
    for (unsigned p = 1; p <= np; p++)
        d += !empty_port(f, a, p);
    return d;
}

/* CSR of active switch-to-switch cables, over node indices. */
typedef struct sgraph {
    uint32_t n;
    uint32_t *off, *adj;
    uint32_t *dist, *queue;
} sgraph;

static void sgraph_build(sgraph *g, const ibr_fabric *f)
{
    uint32_t n = ibr_fabric_node_count(f);
    memset(g, 0, sizeof *g);
    g->n = n;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    g->dist = malloc(((size_t)n + 1) * sizeof *g->dist);
    g->queue = malloc(((size_t)n + 1) * sizeof *g->queue);
    CU_ASSERT_FATAL(g->off && g->dist && g->queue);
    for (int pass = 0; pass < 2; pass++) {
        uint32_t k = 0;
        for (uint32_t a = 0; a < n; a++) {
            if (pass)
                g->off[a] = k;
            ibr_node_info ni = node(f, a);
            if (ni.type != IBR_NODE_SWITCH)
                continue;
            for (unsigned p = 1; p <= ni.nports; p++) {
                ibr_port_info pi = port(f, a, p);
                if (pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE ||
                    pi.remote_node == a || !is_sw(f, pi.remote_node))
                    continue;
                if (pass)
                    g->adj[k] = pi.remote_node;
                k++;
            }
        }
        if (pass)
            g->off[n] = k;
        else {
            g->adj = malloc(((size_t)k + 1) * sizeof *g->adj);
            CU_ASSERT_FATAL(g->adj != NULL);
        }
    }
}

static void sgraph_free(sgraph *g)
{
    free(g->off);
    free(g->adj);
    free(g->dist);
    free(g->queue);
}

/* BFS from src; returns the largest distance to a switch, or UINT32_MAX
   when some switch is unreachable. */
static uint32_t ecc(sgraph *g, const ibr_fabric *f, uint32_t src)
{
    uint32_t head = 0, tail = 0, far = 0;
    for (uint32_t i = 0; i < g->n; i++)
        g->dist[i] = UINT32_MAX;
    g->dist[src] = 0;
    g->queue[tail++] = src;
    while (head < tail) {
        uint32_t u = g->queue[head++];
        for (uint32_t k = g->off[u]; k < g->off[u + 1]; k++) {
            uint32_t v = g->adj[k];
            if (g->dist[v] == UINT32_MAX) {
                g->dist[v] = g->dist[u] + 1;
                if (g->dist[v] > far)
                    far = g->dist[v];
                g->queue[tail++] = v;
            }
        }
    }
    for (uint32_t i = 0; i < g->n; i++)
        if (g->dist[i] == UINT32_MAX && is_sw(f, i))
            return UINT32_MAX;
    return far;
}

/* Diameter of the switch graph (UINT32_MAX when disconnected), from every
   switch when all, else from the first few. */
static uint32_t diameter(const ibr_fabric *f, int all)
{
    sgraph g;
    uint32_t best = 0, n = ibr_fabric_node_count(f), tried = 0;
    sgraph_build(&g, f);
    for (uint32_t s = 0; s < n && (all || tried < 4); s++) {
        if (!is_sw(f, s))
            continue;
        tried++;
        uint32_t e = ecc(&g, f, s);
        if (e > best)
            best = e;
    }
    sgraph_free(&g);
    return best;
}

/* Every switch has a LID on port 0, every cabled CA port one; all distinct,
   LMC 0, switch LIDs below CA LIDs. */
static void check_lids(const ibr_fabric *f)
{
    uint32_t n = ibr_fabric_node_count(f);
    uint8_t *seen = calloc(IBR_MAX_UNICAST_LID + 1, 1);
    unsigned max_sw = 0, min_ca = UINT16_MAX, bad = 0;
    CU_ASSERT_FATAL(seen != NULL);
    for (uint32_t a = 0; a < n; a++) {
        ibr_node_info ni = node(f, a);
        unsigned first = ni.type == IBR_NODE_SWITCH ? 0 : 1;
        unsigned last = ni.type == IBR_NODE_SWITCH ? 0 : ni.nports;
        for (unsigned p = first; p <= last; p++) {
            ibr_port_info pi = port(f, a, p);
            if (ni.type != IBR_NODE_SWITCH && pi.remote_node == IBR_NONE)
                continue;
            if (pi.lid == 0 || pi.lmc != 0 || seen[pi.lid])
                bad++;
            seen[pi.lid] = 1;
            if (ni.type == IBR_NODE_SWITCH && pi.lid > max_sw)
                max_sw = pi.lid;
            if (ni.type != IBR_NODE_SWITCH && pi.lid < min_ca)
                min_ca = pi.lid;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(max_sw < min_ca);
    free(seen);
}

/* Same nodes, GUIDs, descriptions, cables, states and LIDs. */
static int same_fabric(const ibr_fabric *a, const ibr_fabric *b)
{
    uint32_t n = ibr_fabric_node_count(a);
    if (n != ibr_fabric_node_count(b))
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        ibr_node_info x = node(a, i), y = node(b, i);
        if (x.type != y.type || x.nports != y.nports || x.node_guid != y.node_guid ||
            x.sysimg_guid != y.sysimg_guid || x.port0_guid != y.port0_guid ||
            strcmp(x.desc, y.desc))
            return 0;
        for (unsigned p = 0; p <= x.nports; p++) {
            if (p == 0 && x.type != IBR_NODE_SWITCH)
                continue;
            ibr_port_info u = port(a, i, p), v = port(b, i, p);
            if (u.guid != v.guid || u.lid != v.lid || u.remote_node != v.remote_node ||
                u.remote_port != v.remote_port || (u.remote_node != IBR_NONE && u.state != v.state))
                return 0;
        }
    }
    return 1;
}

/* The documented GUID layout. */
static void check_guids(const ibr_fabric *f, unsigned family)
{
    counts c = count(f);
    for (uint32_t i = 0; i < c.sw; i++)
        CU_ASSERT_EQUAL(node(f, i).node_guid,
                        0x0002c90200000000ULL | ((uint64_t)family << 24) | i);
    for (uint32_t i = 0; i < c.ca; i++) {
        ibr_node_info ni = node(f, c.sw + i);
        uint64_t g = 0x0002c90300000000ULL | ((uint64_t)family << 24) | ((uint64_t)i << 8);
        CU_ASSERT_EQUAL(ni.node_guid, g);
        CU_ASSERT_EQUAL(port(f, c.sw + i, 1).guid, g + 1);
    }
}

/* ------------------------------------------------------------------ */
/* PRNG                                                                */

static void test_rng(void)
{
    ibr__rng a, b;
    ibr__rng_seed(&a, 42);
    ibr__rng_seed(&b, 42);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= ibr__rng_next(&a) == ibr__rng_next(&b);
    CU_ASSERT(same);
    ibr__rng_seed(&b, 43);
    int diff = 0;
    for (int i = 0; i < 100; i++)
        diff += ibr__rng_next(&a) != ibr__rng_next(&b);
    CU_ASSERT(diff > 95);
    /* seed 0 gives a working (non-zero, non-stuck) state */
    ibr__rng_seed(&a, 0);
    uint64_t x = ibr__rng_next(&a), y = ibr__rng_next(&a);
    CU_ASSERT(x != y && (x | y) != 0);
    /* bounded draws: in range and roughly uniform */
    unsigned hist[10] = {0};
    ibr__rng_seed(&a, 7);
    for (int i = 0; i < 100000; i++) {
        uint64_t v = ibr__rng_below(&a, 10);
        CU_ASSERT_FATAL(v < 10);
        hist[v]++;
    }
    for (int i = 0; i < 10; i++)
        CU_ASSERT(hist[i] > 9500 && hist[i] < 10500);
    CU_ASSERT_EQUAL(ibr__rng_below(&a, 1), 0);
    CU_ASSERT_EQUAL(ibr__rng_below(&a, 0), 0);
    /* a bound just above 2^63 rejects about half the draws but stays in range */
    uint64_t big = (UINT64_C(1) << 63) + 12345;
    for (int i = 0; i < 1000; i++)
        CU_ASSERT_FATAL(ibr__rng_below(&a, big) < big);
    /* known answer for splitmix64-seeded xoshiro256** with seed 0: the first
       splitmix64 output is the published 0xe220a8397b1dcdaf */
    ibr__rng_seed(&a, 0);
    CU_ASSERT_EQUAL(a.s[0], UINT64_C(0xe220a8397b1dcdaf));
}

/* ------------------------------------------------------------------ */
/* fat trees                                                           */

static void test_fat_tree_2level(void)
{
    ibr_fabric *f = gen("fattree:levels=2,radix=36");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 36 + 18);
    CU_ASSERT_EQUAL(c.ca, 648);
    CU_ASSERT_EQUAL(c.links, 648 + 36 * 18);
    CU_ASSERT_EQUAL(c.sw_links, 36 * 18);
    /* leaves 0..35, spines 36..53, hosts 54.. */
    for (uint32_t l = 0; l < 36; l++) {
        char want[16];
        snprintf(want, sizeof want, "L1-S%u", (unsigned)l);
        CU_ASSERT_STRING_EQUAL(node(f, l).desc, want);
        CU_ASSERT_EQUAL(node(f, l).nports, 36);
        for (unsigned c2 = 0; c2 < 18; c2++)
            CU_ASSERT(cabled(f, l, c2 + 1, 54 + l * 18 + c2, 1));
        for (unsigned y = 0; y < 18; y++)
            CU_ASSERT(cabled(f, l, 18 + y + 1, 36 + y, l + 1));
    }
    CU_ASSERT_STRING_EQUAL(node(f, 0).desc, "L1-S0");
    CU_ASSERT_STRING_EQUAL(node(f, 37).desc, "L2-S1");
    CU_ASSERT_STRING_EQUAL(node(f, 54 + 12).desc, "H12 HCA-1");
    for (uint32_t s = 36; s < 54; s++)
        CU_ASSERT_EQUAL(degree(f, s), 36);
    CU_ASSERT_EQUAL(diameter(f, 1), 2);
    check_lids(f);
    check_guids(f, 1);
    ibr_fabric_destroy(f);
}

static void test_fat_tree_partial(void)
{
    ibr_fabric *f = gen("fattree:levels=2,radix=8,hosts=3");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 8 + 4);
    CU_ASSERT_EQUAL(c.ca, 8 * 3);
    for (uint32_t l = 0; l < 8; l++) {
        for (unsigned p = 1; p <= 3; p++)
            CU_ASSERT(cabled(f, l, p, 12 + l * 3 + p - 1, 1));
        CU_ASSERT(empty_port(f, l, 4));
        for (unsigned y = 0; y < 4; y++)
            CU_ASSERT(cabled(f, l, 5 + y, 8 + y, l + 1));
    }
    check_lids(f);
    ibr_fabric_destroy(f);

    /* one level: a single switch with radix hosts */
    f = gen("fattree:levels=1,radix=8");
    c = count(f);
    CU_ASSERT(c.sw == 1 && c.ca == 8 && c.links == 8);
    ibr_fabric_destroy(f);
}

static void test_fat_tree_3level(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_gen_fat_tree(f, 3, 36, 0), 0);
    counts c = count(f);
    CU_ASSERT_EQUAL(c.ca, 11664);
    CU_ASSERT_EQUAL(c.sw, 648 + 648 + 324);
    CU_ASSERT_EQUAL(c.sw_links, 648 * 18 + 648 * 18);
    CU_ASSERT_EQUAL(c.links, 11664 + 2 * 648 * 18);
    for (uint32_t s = 0; s < c.sw; s++)
        CU_ASSERT_EQUAL(degree(f, s), 36);
    CU_ASSERT_STRING_EQUAL(node(f, 648).desc, "L2-S0");
    CU_ASSERT_STRING_EQUAL(node(f, 1296 + 323).desc, "L3-S323");
    /* from the first leaves: every leaf within 4 hops, some at 4 */
    CU_ASSERT_EQUAL(diameter(f, 0), 4);
    check_lids(f);

    /* the same tree written as an XGFT */
    ibr_fabric *g = gen("xgft:h=3,m=18.18.36,w=1.18.18");
    CU_ASSERT(same_fabric(f, g));
    ibr_fabric_destroy(g);

    /* and it freezes into a topology with every switch and end port */
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    CU_ASSERT_EQUAL(ibr_topo_switch_count(t), 1620);
    CU_ASSERT_EQUAL(ibr_topo_endport_count(t), 11664);
    CU_ASSERT_EQUAL(ibr_topo_max_lid(t), 1620 + 11664);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_fat_tree_big(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
    /* speed is the bench's business (ratios, never seconds in a test) */
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=3,radix=48"), 0);
    counts c = count(f);
    CU_ASSERT_EQUAL(c.ca, 27648);
    CU_ASSERT_EQUAL(c.sw, 1152 + 1152 + 576);
    CU_ASSERT_EQUAL(c.links, 27648 + 2 * 1152 * 24);
    check_lids(f);
    ibr_fabric_destroy(f);
}

/* Decode a node index into (level, label digits) under the documented
   XGFT convention and check every cable against the XGFT definition. */
static void check_xgft(const ibr_fabric *f, unsigned h, const unsigned *m1, const unsigned *w1,
                       unsigned hosts)
{
    unsigned m[8] = {0}, w[8] = {0};
    uint64_t cnt[8], first[8], total = 0;
    for (unsigned i = 1; i <= h; i++) {
        m[i] = m1[i - 1];
        w[i] = w1[i - 1];
    }
    for (unsigned l = 0; l <= h; l++) {
        cnt[l] = 1;
        for (unsigned j = 1; j <= h; j++)
            cnt[l] *= j <= l ? w[j] : m[j];
    }
    for (unsigned l = 1; l <= h; l++) {
        first[l] = total;
        total += cnt[l];
    }
    first[0] = total;
    uint64_t n_hosts = cnt[0] / m[1] * hosts;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_count(f), total + n_hosts);
    uint64_t links = 0;
    for (uint32_t a = 0; a < total + n_hosts; a++) {
        unsigned la = 0;
        uint64_t ia;
        if (a < total) {
            for (la = h; first[la] > a; la--)
                ;
            ia = a - first[la];
        } else {
            uint64_t k = a - first[0];
            ia = k / hosts * m[1] + k % hosts; /* label of a host */
        }
        /* digits, d_1 least significant */
        unsigned da[8] = {0};
        uint64_t x = ia;
        for (unsigned j = 1; j <= h; j++) {
            unsigned r = j <= la ? w[j] : m[j];
            da[j] = (unsigned)(x % r);
            x /= r;
        }
        ibr_node_info ni = node(f, a);
        unsigned expect_ports = la ? m[la] + (la < h ? w[la + 1] : 0) : w[1];
        CU_ASSERT_EQUAL(ni.nports, expect_ports);
        CU_ASSERT_EQUAL(ni.type, la ? IBR_NODE_SWITCH : IBR_NODE_CA);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = port(f, a, p);
            int down = la && p <= m[la];
            if (pi.remote_node == IBR_NONE) {
                /* only leaf down ports beyond the host count stay empty */
                CU_ASSERT(la == 1 && p > hosts && p <= m[1]);
                continue;
            }
            uint32_t b = pi.remote_node;
            unsigned lb = 0;
            uint64_t ib;
            if (b < total) {
                for (lb = h; first[lb] > b; lb--)
                    ;
                ib = b - first[lb];
            } else {
                uint64_t k = b - first[0];
                ib = k / hosts * m[1] + k % hosts;
            }
            unsigned db[8] = {0};
            x = ib;
            for (unsigned j = 1; j <= h; j++) {
                unsigned r = j <= lb ? w[j] : m[j];
                db[j] = (unsigned)(x % r);
                x /= r;
            }
            CU_ASSERT_FATAL(lb == (down ? la - 1 : la + 1));
            unsigned l = down ? la : lb; /* the upper level */
            int ok = 1;
            for (unsigned j = 1; j <= h; j++)
                if (j != l && da[j] != db[j])
                    ok = 0;
            CU_ASSERT(ok);
            if (down) {
                CU_ASSERT_EQUAL(p, db[l] + 1);
                CU_ASSERT_EQUAL(pi.remote_port, (lb ? m[lb] : 0) + da[l] + 1);
                links++;
            } else {
                CU_ASSERT_EQUAL(p, (la ? m[la] : 0) + db[l] + 1);
                CU_ASSERT_EQUAL(pi.remote_port, da[l] + 1);
            }
        }
    }
    uint64_t expect = n_hosts * w[1];
    for (unsigned l = 2; l <= h; l++)
        expect += cnt[l] * m[l];
    CU_ASSERT_EQUAL(links, expect);
}

static void test_xgft(void)
{
    /* hosts with two leaves each, uneven fan-out */
    static const unsigned m[] = {4, 3}, w[] = {2, 2};
    ibr_fabric *f = gen("xgft:h=2,m=4.3,w=2.2");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.ca, 12);
    CU_ASSERT_EQUAL(c.sw, 6 + 4);
    CU_ASSERT_EQUAL(c.links, 24 + 12);
    check_xgft(f, 2, m, w, 4);
    check_lids(f);
    /* w_1 = 2 makes two disjoint switch planes (dual-rail hosts) */
    CU_ASSERT_EQUAL(diameter(f, 1), UINT32_MAX);
    ibr_fabric_destroy(f);

    /* partial population, four levels, the C entry point */
    ibr_gen_xgft p;
    memset(&p, 0, sizeof p);
    p.version = IBR_GEN_XGFT_VERSION;
    p.h = 4;
    unsigned m4[] = {3, 2, 3, 2}, w4[] = {1, 2, 2, 3};
    memcpy(p.m, m4, sizeof m4);
    memcpy(p.w, w4, sizeof w4);
    p.hosts = 2;
    CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_gen_xgft(f, &p), 0);
    check_xgft(f, 4, m4, w4, 2);
    CU_ASSERT(diameter(f, 1) != UINT32_MAX);
    check_lids(f);
    check_guids(f, 1);

    /* bad version and bad parameters leave the fabric alone */
    ibr_fabric *e = NULL;
    CU_ASSERT_FATAL(ibr_fabric_create(&e, NULL) == 0);
    p.version = 99;
    CU_ASSERT_EQUAL(ibr_fabric_gen_xgft(e, &p), IBR_EVERSION);
    p.version = IBR_GEN_XGFT_VERSION;
    p.hosts = 4;
    CU_ASSERT_EQUAL(ibr_fabric_gen_xgft(e, &p), IBR_EINVAL);
    CU_ASSERT(strstr(ibr_fabric_last_error(e), "hosts") != NULL);
    CU_ASSERT_EQUAL(ibr_fabric_gen_xgft(e, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(e), 0);
    /* a non-empty fabric */
    p.hosts = 0;
    CU_ASSERT_EQUAL(ibr_fabric_gen_xgft(f, &p), IBR_ESTATE);
    CU_ASSERT(strstr(ibr_fabric_last_error(f), "empty") != NULL);
    check_xgft(f, 4, m4, w4, 2);
    ibr_fabric_destroy(e);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* grids                                                               */

static void test_torus(void)
{
    ibr_fabric *f = gen("torus:dims=4x4x4,hosts=2");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 64);
    CU_ASSERT_EQUAL(c.ca, 128);
    CU_ASSERT_EQUAL(c.sw_links, 64 * 3);
    CU_ASSERT_EQUAL(c.links, 64 * 3 + 128);
    for (uint32_t s = 0; s < 64; s++) {
        unsigned x[3] = {s % 4, s / 4 % 4, s / 16};
        CU_ASSERT_EQUAL(node(f, s).nports, 8);
        CU_ASSERT_EQUAL(degree(f, s), 8);
        for (unsigned d = 0, stride = 1; d < 3; d++, stride *= 4) {
            uint32_t plus = s + (x[d] == 3 ? -3u : 1u) * stride;
            CU_ASSERT(cabled(f, s, 2 * d + 2, plus, 2 * d + 1));
        }
        CU_ASSERT(cabled(f, s, 7, 64 + 2 * s, 1));
        CU_ASSERT(cabled(f, s, 8, 64 + 2 * s + 1, 1));
    }
    CU_ASSERT_STRING_EQUAL(node(f, 1 + 2 * 4 + 3 * 16).desc, "T(1,2,3)");
    CU_ASSERT_EQUAL(diameter(f, 1), 6);
    check_lids(f);
    check_guids(f, 2);

    /* the frozen topology agrees on a few distances */
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    uint32_t a = ibr_topo_node_switch(t, 0), b = ibr_topo_node_switch(t, 2 + 2 * 4 + 2 * 16);
    uint32_t e = ibr_topo_node_switch(t, 3);
    CU_ASSERT_EQUAL(ibr_topo_switch_distance(t, a, b), 6);
    CU_ASSERT_EQUAL(ibr_topo_switch_distance(t, a, e), 1);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    /* the C entry point builds the same fabric */
    unsigned dims[] = {4, 4, 4};
    CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_gen_torus(f, 3, dims, 1, 2, 1), 0);
    ibr_fabric *g = gen("torus:dims=4x4x4,hosts=2,parallel=1");
    CU_ASSERT(same_fabric(f, g));
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);
}

static void test_torus_parallel_and_small(void)
{
    /* 3x2 torus, two cables per neighbour pair: the size-2 dimension has one
       cable set, the size-3 one wraps */
    ibr_fabric *f = gen("torus:dims=3x2,hosts=1,parallel=2");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 6);
    CU_ASSERT_EQUAL(c.sw_links, 2 * (2 * 3) + 2 * 3);
    for (uint32_t s = 0; s < 6; s++) {
        unsigned x0 = s % 3, x1 = s / 3;
        CU_ASSERT_EQUAL(node(f, s).nports, 9);
        uint32_t p0 = x1 * 3 + (x0 + 1) % 3;
        CU_ASSERT(cabled(f, s, 3, p0, 1));
        CU_ASSERT(cabled(f, s, 4, p0, 2));
        if (x1 == 0) {
            CU_ASSERT(cabled(f, s, 7, s + 3, 5));
            CU_ASSERT(cabled(f, s, 8, s + 3, 6));
            CU_ASSERT(empty_port(f, s, 5) && empty_port(f, s, 6));
        } else {
            CU_ASSERT(empty_port(f, s, 7) && empty_port(f, s, 8));
        }
        CU_ASSERT(cabled(f, s, 9, 6 + s, 1));
    }
    CU_ASSERT_EQUAL(diameter(f, 1), 2);
    ibr_fabric_destroy(f);

    /* 8x8 mesh: edges stay empty, diameter 14 */
    f = gen("mesh:dims=8x8,hosts=1");
    c = count(f);
    CU_ASSERT_EQUAL(c.sw, 64);
    CU_ASSERT_EQUAL(c.sw_links, 2 * 8 * 7);
    CU_ASSERT(empty_port(f, 0, 1) && empty_port(f, 0, 3));
    CU_ASSERT(cabled(f, 0, 2, 1, 1) && cabled(f, 0, 4, 8, 3));
    CU_ASSERT(empty_port(f, 63, 2) && empty_port(f, 63, 4));
    CU_ASSERT_STRING_EQUAL(node(f, 9).desc, "M(1,1)");
    CU_ASSERT_EQUAL(diameter(f, 1), 14);
    check_guids(f, 2);
    ibr_fabric_destroy(f);

    /* a 1-D ring and a dimension of size 1 */
    f = gen("torus:dims=5x1,hosts=0");
    c = count(f);
    CU_ASSERT(c.sw == 5 && c.ca == 0 && c.sw_links == 5);
    CU_ASSERT_EQUAL(diameter(f, 1), 2);
    ibr_fabric_destroy(f);
}

static void test_hypercube(void)
{
    for (unsigned dim = 1; dim <= 6; dim++) {
        char spec[64];
        snprintf(spec, sizeof spec, "hypercube:dim=%u,hosts=2", dim);
        ibr_fabric *f = gen(spec);
        counts c = count(f);
        uint32_t n = 1u << dim;
        CU_ASSERT_EQUAL(c.sw, n);
        CU_ASSERT_EQUAL(c.ca, 2 * n);
        CU_ASSERT_EQUAL(c.sw_links, dim * n / 2);
        for (uint32_t s = 0; s < n; s++) {
            CU_ASSERT_EQUAL(node(f, s).nports, dim + 2);
            for (unsigned d = 0; d < dim; d++)
                CU_ASSERT(cabled(f, s, d + 1, s ^ (1u << d), d + 1));
            CU_ASSERT(cabled(f, s, dim + 1, n + 2 * s, 1));
        }
        CU_ASSERT_EQUAL(diameter(f, 1), dim);
        check_lids(f);
        check_guids(f, 3);
        ibr_fabric_destroy(f);
    }
}

/* ------------------------------------------------------------------ */
/* dragonfly                                                           */

/* cables between groups (a routers each), g x g matrix */
static void group_links(const ibr_fabric *f, unsigned a, unsigned g, unsigned *mat)
{
    memset(mat, 0, sizeof *mat * g * g);
    for (uint32_t s = 0; s < a * g; s++) {
        ibr_node_info ni = node(f, s);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = port(f, s, p);
            if (pi.remote_node != IBR_NONE && pi.remote_node < a * g &&
                pi.remote_node / a != s / a)
                mat[s / a * g + pi.remote_node / a]++;
        }
    }
}

static void test_dragonfly(void)
{
    unsigned mat[16 * 16];
    ibr_fabric *f = gen("dragonfly:a=4,p=2,h=2,g=9");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 36);
    CU_ASSERT_EQUAL(c.ca, 72);
    CU_ASSERT_EQUAL(c.sw_links, 9 * 6 + 36);
    for (uint32_t s = 0; s < 36; s++) {
        unsigned r = s % 4, base = s - r;
        CU_ASSERT_EQUAL(node(f, s).nports, 3 + 2 + 2);
        CU_ASSERT_EQUAL(degree(f, s), 7);
        for (unsigned j = 0; j < 4; j++)
            if (j != r)
                CU_ASSERT(cabled(f, s, j < r ? j + 1 : j, base + j, r < j ? r + 1 : r));
        for (unsigned k = 0; k < 2; k++)
            CU_ASSERT(port(f, s, 4 + k).remote_node / 4 != s / 4);
        CU_ASSERT(cabled(f, s, 6, 36 + 2 * s, 1));
    }
    group_links(f, 4, 9, mat);
    for (unsigned i = 0; i < 9; i++)
        for (unsigned j = 0; j < 9; j++)
            CU_ASSERT_EQUAL(mat[i * 9 + j], i == j ? 0 : 1);
    /* the consecutive arrangement: router 0 of group 0 reaches groups 1, 2 */
    CU_ASSERT_EQUAL(port(f, 0, 4).remote_node / 4, 1);
    CU_ASSERT_EQUAL(port(f, 0, 5).remote_node / 4, 2);
    CU_ASSERT_STRING_EQUAL(node(f, 4 * 3 + 1).desc, "DF-G3-R1");
    CU_ASSERT_EQUAL(diameter(f, 1), 3);
    check_lids(f);
    check_guids(f, 4);
    ibr_fabric_destroy(f);

    /* a*h = 8 global ports, g-1 = 4: two rounds, every pair twice */
    f = gen("dragonfly:a=4,p=1,h=2,g=5");
    group_links(f, 4, 5, mat);
    for (unsigned i = 0; i < 5; i++)
        for (unsigned j = 0; j < 5; j++)
            CU_ASSERT_EQUAL(mat[i * 5 + j], i == j ? 0 : 2);
    for (uint32_t s = 0; s < 20; s++)
        CU_ASSERT_EQUAL(degree(f, s), 3 + 2 + 1);
    ibr_fabric_destroy(f);

    /* g-1 = 3 does not divide 8: two rounds, the last two global ports of
       each group (router 3) stay empty */
    f = gen("dragonfly:a=4,p=1,h=2,g=4");
    group_links(f, 4, 4, mat);
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 4; j++)
            CU_ASSERT_EQUAL(mat[i * 4 + j], i == j ? 0 : 2);
    for (uint32_t s = 0; s < 16; s++) {
        int last = s % 4 == 3;
        CU_ASSERT_EQUAL(empty_port(f, s, 4), last);
        CU_ASSERT_EQUAL(empty_port(f, s, 5), last);
    }
    CU_ASSERT(diameter(f, 1) <= 3);
    ibr_fabric_destroy(f);

    /* defaults p = h, g = a*h + 1; a single group */
    f = gen("dragonfly:a=2,h=1");
    c = count(f);
    CU_ASSERT(c.sw == 6 && c.ca == 6 && c.sw_links == 3 + 3);
    ibr_fabric_destroy(f);
    f = gen("dragonfly:a=5,p=1,h=0,g=1");
    c = count(f);
    CU_ASSERT(c.sw == 5 && c.sw_links == 10);
    CU_ASSERT_EQUAL(diameter(f, 1), 1);
    ibr_fabric_destroy(f);

    /* too few global links */
    CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
    CU_ASSERT_EQUAL(ibr_fabric_gen_dragonfly(f, 2, 1, 1, 4), IBR_EINVAL);
    CU_ASSERT(strstr(ibr_fabric_last_error(f), "a*h >= g-1") != NULL);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* Dragonfly+, HyperX, Slim Fly                                        */

/* Largest switch-to-switch distance between two switches of which
   is_end() holds (UINT32_MAX when one is unreachable). */
static uint32_t end_diameter(const ibr_fabric *f, int (*is_end)(const ibr_fabric *, uint32_t))
{
    sgraph g;
    uint32_t best = 0, n = ibr_fabric_node_count(f);
    sgraph_build(&g, f);
    for (uint32_t s = 0; s < n; s++) {
        if (!is_sw(f, s) || !is_end(f, s))
            continue;
        ecc(&g, f, s);
        for (uint32_t t = 0; t < n; t++)
            if (is_sw(f, t) && is_end(f, t) && g.dist[t] > best)
                best = g.dist[t];
    }
    sgraph_free(&g);
    return best;
}

static int is_dfp_leaf(const ibr_fabric *f, uint32_t s)
{
    return strstr(node(f, s).desc, "-L") != NULL;
}

static void test_dfplus(void)
{
    unsigned mat[8 * 8];
    /* 6 groups of 4 leaves and 3 spines, default global = ceil(5/3) = 2:
       6 endpoints per group, one round of 5, the 6th (spine 2's second
       port) empty */
    ibr_fabric *f = gen("dfplus:groups=6,leaves=4,spines=3,hosts=2");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 6 * 7);
    CU_ASSERT_EQUAL(c.ca, 6 * 4 * 2);
    CU_ASSERT_EQUAL(c.sw_links, 6 * 12 + 6 * 5 / 2);
    memset(mat, 0, sizeof mat);
    for (uint32_t s = 0; s < 42; s++) {
        unsigned g = s / 7, i = s % 7;
        if (i < 4) {
            CU_ASSERT(is_dfp_leaf(f, s));
            CU_ASSERT_EQUAL(node(f, s).nports, 3 + 2);
            CU_ASSERT_EQUAL(degree(f, s), 5);
            for (unsigned k = 0; k < 3; k++)
                CU_ASSERT(cabled(f, s, k + 1, g * 7 + 4 + k, i + 1));
        } else {
            CU_ASSERT(!is_dfp_leaf(f, s));
            CU_ASSERT_EQUAL(node(f, s).nports, 4 + 2);
            CU_ASSERT_EQUAL(degree(f, s), i == 6 ? 5 : 6);
            for (unsigned p = 5; p <= 6; p++) {
                ibr_port_info pi = port(f, s, p);
                if (pi.remote_node == IBR_NONE)
                    continue;
                CU_ASSERT(pi.remote_node / 7 != g && pi.remote_node % 7 >= 4);
                mat[g * 6 + pi.remote_node / 7]++;
            }
        }
    }
    for (unsigned i = 0; i < 6; i++)
        for (unsigned j = 0; j < 6; j++)
            CU_ASSERT_EQUAL(mat[i * 6 + j], i == j ? 0 : 1);
    CU_ASSERT(empty_port(f, 6, 6));
    CU_ASSERT_STRING_EQUAL(node(f, 7 * 2 + 1).desc, "DFP-G2-L1");
    CU_ASSERT_STRING_EQUAL(node(f, 7 * 2 + 5).desc, "DFP-G2-S1");
    CU_ASSERT(cabled(f, 0, 4, 42, 1));
    CU_ASSERT_EQUAL(end_diameter(f, is_dfp_leaf), 3);
    /* spine to spine: down, up, across, down, up */
    CU_ASSERT_EQUAL(diameter(f, 1), 5);
    check_lids(f);
    check_guids(f, 7);
    ibr_fabric_destroy(f);

    /* global=4 on 2 spines, 5 groups: two rounds, every pair twice */
    f = gen("dfplus:groups=5,leaves=2,spines=2,hosts=1,global=4");
    c = count(f);
    CU_ASSERT_EQUAL(c.sw_links, 5 * 4 + 5 * 4 * 2 / 2);
    for (uint32_t s = 0; s < 20; s++)
        CU_ASSERT_EQUAL(degree(f, s), s % 4 < 2 ? 3 : 6);
    CU_ASSERT_EQUAL(end_diameter(f, is_dfp_leaf), 3);
    ibr_fabric_destroy(f);

    /* a single group is a complete bipartite graph */
    f = gen("dfplus:groups=1,leaves=3,spines=2");
    c = count(f);
    CU_ASSERT(c.sw == 5 && c.ca == 3 && c.sw_links == 6);
    CU_ASSERT_EQUAL(diameter(f, 1), 2);
    ibr_fabric_destroy(f);
}

static int any_switch(const ibr_fabric *f, uint32_t s)
{
    (void)f;
    (void)s;
    return 1;
}

static void test_hyperx(void)
{
    ibr_fabric *f = gen("hyperx:dims=3x4x2,hosts=2");
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, 24);
    CU_ASSERT_EQUAL(c.ca, 48);
    /* per switch 2 + 3 + 1 neighbours */
    CU_ASSERT_EQUAL(c.sw_links, 24 * 6 / 2);
    for (uint32_t s = 0; s < 24; s++) {
        unsigned x = s % 3, y = s / 3 % 4, z = s / 12;
        CU_ASSERT_EQUAL(node(f, s).nports, 6 + 2);
        CU_ASSERT_EQUAL(degree(f, s), 8);
        for (unsigned j = 0; j < 3; j++)
            if (j != x)
                CU_ASSERT(cabled(f, s, 1 + (j < x ? j : j - 1), s - x + j,
                                 1 + (x < j ? x : x - 1)));
        for (unsigned j = 0; j < 4; j++)
            if (j != y)
                CU_ASSERT(cabled(f, s, 3 + (j < y ? j : j - 1), s + (j - y) * 3,
                                 3 + (y < j ? y : y - 1)));
        CU_ASSERT(cabled(f, s, 6, s + (z ? -12 : 12), 6));
        CU_ASSERT(cabled(f, s, 7, 24 + 2 * s, 1));
    }
    CU_ASSERT_STRING_EQUAL(node(f, 1 + 3 * 2 + 12).desc, "HX(1,2,1)");
    CU_ASSERT_EQUAL(diameter(f, 1), 3);
    check_lids(f);
    check_guids(f, 8);
    ibr_fabric_destroy(f);

    f = gen("hyperx:dims=8x8,hosts=1");
    c = count(f);
    CU_ASSERT(c.sw == 64 && c.sw_links == 64 * 14 / 2);
    CU_ASSERT_EQUAL(end_diameter(f, any_switch), 2);
    ibr_fabric_destroy(f);
}

static void test_slimfly(void)
{
    static const struct {
        unsigned q, deg;
    } cases[] = {{3, 5}, {5, 7}, {7, 11}, {11, 17}, {13, 19}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned q = cases[k].q, d = cases[k].deg;
        char spec[64];
        snprintf(spec, sizeof spec, "slimfly:q=%u,hosts=2", q);
        ibr_fabric *f = gen(spec);
        counts c = count(f);
        CU_ASSERT_EQUAL(c.sw, 2 * q * q);
        CU_ASSERT_EQUAL(c.ca, 4 * q * q);
        CU_ASSERT_EQUAL(c.sw_links, q * q * d);
        for (uint32_t s = 0; s < c.sw; s++) {
            CU_ASSERT_EQUAL(node(f, s).nports, d + 2);
            CU_ASSERT_EQUAL(degree(f, s), d + 2);
            /* no parallel cables */
            for (unsigned p = 1; p <= d; p++)
                for (unsigned r = p + 1; r <= d; r++)
                    CU_ASSERT(port(f, s, p).remote_node != port(f, s, r).remote_node);
        }
        CU_ASSERT_EQUAL(end_diameter(f, any_switch), 2);
        if (q == 5) {
            /* (0,x,y) ~ (1,m,c) exactly when y = m*x + c */
            CU_ASSERT(cabled(f, 2 * 5 + 3, 2 + 1 + 4, 25 + 4 * 5 + (3 + 25 - 8) % 5, 2 + 1 + 2));
            CU_ASSERT_STRING_EQUAL(node(f, 25 + 7).desc, "SF1-1-2");
            check_lids(f);
            check_guids(f, 9);
        }
        ibr_fabric_destroy(f);
    }
}

/* ------------------------------------------------------------------ */
/* random                                                              */

static void check_random(const ibr_fabric *f, unsigned n, unsigned d, unsigned hosts)
{
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, n);
    CU_ASSERT_EQUAL(c.ca, n * hosts);
    unsigned deficient = 0, bad = 0;
    uint8_t *seen = calloc(n, 1);
    CU_ASSERT_FATAL(seen != NULL);
    for (uint32_t s = 0; s < n; s++) {
        unsigned deg = 0;
        CU_ASSERT_EQUAL(node(f, s).nports, d + hosts);
        memset(seen, 0, n);
        for (unsigned p = 1; p <= d; p++) {
            ibr_port_info pi = port(f, s, p);
            if (pi.remote_node == IBR_NONE)
                continue;
            deg++;
            /* a switch, not itself, not twice, on a link port */
            if (pi.remote_node >= n || pi.remote_node == s || seen[pi.remote_node] ||
                pi.remote_port < 1 || pi.remote_port > d)
                bad++;
            else
                seen[pi.remote_node] = 1;
        }
        /* link ports are filled in order */
        for (unsigned p = deg + 1; p <= d; p++)
            CU_ASSERT(empty_port(f, s, p));
        for (unsigned k = 0; k < hosts; k++)
            CU_ASSERT(cabled(f, s, d + 1 + k, n + s * hosts + k, 1));
        if (deg < d)
            deficient++;
    }
    free(seen);
    CU_ASSERT_EQUAL(bad, 0);
    /* the leftovers form a clique of switches with free ports */
    CU_ASSERT(deficient <= d);
    CU_ASSERT(c.sw_links * 2 + deficient * d >= n * d);
    CU_ASSERT(diameter(f, 1) != UINT32_MAX);
    check_lids(f);
}

static void test_random(void)
{
    static const unsigned cases[][2] = {{2, 1}, {3, 2}, {10, 3}, {10, 9}, {64, 4},
                                        {101, 5}, {40, 39}, {7, 6}};
    char spec[96];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (unsigned seed = 0; seed < 12; seed++) {
            snprintf(spec, sizeof spec, "random:switches=%u,degree=%u,hosts=1,seed=%u",
                     cases[i][0], cases[i][1], seed);
            ibr_fabric *f = gen(spec);
            check_random(f, cases[i][0], cases[i][1], 1);
            if (cases[i][1] == cases[i][0] - 1) /* complete graph */
                CU_ASSERT_EQUAL(count(f).sw_links, cases[i][0] * (cases[i][0] - 1) / 2);
            ibr_fabric_destroy(f);
        }

    /* determinism: same seed, same fabric; other seeds, other graphs */
    ibr_fabric *a = gen("random:switches=64,degree=4,hosts=2,seed=1");
    ibr_fabric *b = NULL;
    CU_ASSERT_FATAL(ibr_fabric_create(&b, NULL) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_gen_random(b, 64, 4, 2, 1), 0);
    CU_ASSERT(same_fabric(a, b));
    check_random(a, 64, 4, 2);
    check_guids(a, 5);
    CU_ASSERT_STRING_EQUAL(node(a, 5).desc, "R5");
    ibr_fabric_destroy(b);
    int differ = 0;
    for (unsigned seed = 2; seed < 6; seed++) {
        CU_ASSERT_FATAL(ibr_fabric_create(&b, NULL) == 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_gen_random(b, 64, 4, 2, seed), 0);
        differ += !same_fabric(a, b);
        ibr_fabric_destroy(b);
    }
    CU_ASSERT_EQUAL(differ, 4);
    ibr_fabric_destroy(a);

    /* larger: still connected */
    a = gen("random:switches=4000,degree=8,hosts=4,seed=99");
    check_random(a, 4000, 8, 4);
    ibr_fabric_destroy(a);
}

/* ------------------------------------------------------------------ */
/* rail-optimized fat trees                                            */

/* What a rail spec must give, worked out by hand from the definition. */
typedef struct rail_case {
    const char *spec;
    unsigned nodes, rails, su, radix, levels, by_leaf;
    unsigned pod_sus, c, c2;           /* SUs per pod, leaf-spine and spine-core cables */
    uint32_t sw, ca, links;
} rail_case;

/* Checks every cable of a rail tree against the descriptions the
   generator gives (independent of its index arithmetic): HCA r of node n
   on leaf r of SU n / su at port n % su + 1, leaves to the spines of their
   pod with c cables each, spines to the cores of their plane with c2. */
static void check_rail(const ibr_fabric *f, const rail_case *k)
{
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw, k->sw);
    CU_ASSERT_EQUAL(c.ca, k->ca);
    CU_ASSERT_EQUAL(c.links, k->links);
    check_lids(f);
    check_guids(f, 6);
    uint32_t n_nodes = ibr_fabric_node_count(f), prev_leaf = IBR_NONE;
    unsigned prev_port = 0;
    uint32_t *pair = calloc((size_t)c.sw * c.sw, sizeof *pair);
    CU_ASSERT_FATAL(pair != NULL);
    for (uint32_t i = c.first_ca; i < n_nodes; i++) {
        ibr_node_info ni = node(f, i);
        unsigned n, r, s, rr;
        CU_ASSERT_EQUAL_FATAL(sscanf(ni.desc, "node%u mlx5_%u", &n, &r), 2);
        CU_ASSERT_EQUAL(ni.nports, 1);
        ibr_port_info pi = port(f, i, 1);
        ibr_node_info leaf = node(f, pi.remote_node);
        CU_ASSERT_EQUAL_FATAL(sscanf(leaf.desc, "L1-SU%u-R%u", &s, &rr), 2);
        CU_ASSERT_EQUAL(s, n / k->su);
        CU_ASSERT_EQUAL(rr, r);
        CU_ASSERT_EQUAL(pi.remote_port, n % k->su + 1);
        if (!k->by_leaf) {
            CU_ASSERT_EQUAL(i - c.first_ca, n * k->rails + r); /* node by node */
        } else {
            /* leaf by leaf: a leaf's HCAs consecutive, in port order */
            CU_ASSERT(prev_leaf == IBR_NONE || pi.remote_node > prev_leaf ||
                      (pi.remote_node == prev_leaf && pi.remote_port == prev_port + 1));
            prev_leaf = pi.remote_node;
            prev_port = pi.remote_port;
        }
    }
    for (uint32_t i = 0; i < c.sw; i++) {
        ibr_node_info ni = node(f, i);
        CU_ASSERT_EQUAL(ni.nports, k->radix);
        unsigned a, b, level = (unsigned)(ni.desc[1] - '0');
        unsigned first_up = level == 1 ? k->su + 1 : level == 2 && k->levels == 3
                                                        ? k->radix / 2 + 1 : k->radix + 1;
        for (unsigned p = first_up; p <= k->radix; p++) {
            ibr_port_info pi = port(f, i, p);
            CU_ASSERT_FATAL(pi.remote_node < c.sw);
            ibr_node_info up = node(f, pi.remote_node);
            CU_ASSERT_EQUAL(up.desc[1] - '0', (int)level + 1);
            pair[(size_t)i * c.sw + pi.remote_node]++;
            if (level == 1 && k->levels == 3) {
                unsigned pod, j;
                CU_ASSERT_FATAL(sscanf(ni.desc, "L1-SU%u-R%u", &a, &b) == 2);
                CU_ASSERT_FATAL(sscanf(up.desc, "L2-P%u-S%u", &pod, &j) == 2);
                CU_ASSERT_EQUAL(pod, a / k->pod_sus);
            }
            if (level == 2) {
                unsigned g, core;
                CU_ASSERT_FATAL(sscanf(ni.desc, "L2-P%u-S%u", &a, &b) == 2);
                CU_ASSERT_FATAL(sscanf(up.desc, "L3-G%u-C%u", &g, &core) == 2);
                CU_ASSERT_EQUAL(g, b); /* spine j goes to core plane j */
            }
        }
    }
    /* every pair cabled at all is cabled c (c2) times; a leaf reaches
       (radix - su) / c spines, a spine (radix / 2) / c2 cores */
    for (uint32_t i = 0; i < c.sw; i++) {
        unsigned level = (unsigned)(node(f, i).desc[1] - '0'), peers = 0;
        for (uint32_t j = 0; j < c.sw; j++) {
            uint32_t m = pair[(size_t)i * c.sw + j];
            if (!m)
                continue;
            peers++;
            CU_ASSERT_EQUAL(m, level == 1 ? k->c : k->c2);
        }
        if (level == 1)
            CU_ASSERT_EQUAL(peers, (k->radix - k->su) / k->c);
        if (level == 2 && k->levels == 3)
            CU_ASSERT_EQUAL(peers, (k->radix - k->radix / 2) / k->c2);
    }
    free(pair);
}

static void test_rail(void)
{
    static const rail_case cases[] = {
        /* 2 levels, 4 SUs (the last with 4 nodes), 32 leaves, 16 spines, 2 cables each */
        {"rail:nodes=100,rails=8,su=32,radix=64", 100, 8, 32, 64, 2, 0, 4, 2, 0, 48, 800,
         800 + 32 * 32},
        {"rail:nodes=100,rails=8,su=32,radix=64,byleaf=1", 100, 8, 32, 64, 2, 1, 4, 2, 0, 48,
         800, 800 + 32 * 32},
        /* 3 levels: pods of 2 SUs (8 leaves), 8 spines per pod, 4 pods; core
           planes of 2 cores, 4 cables per spine */
        {"rail:nodes=64,rails=4,su=8,radix=16,levels=3", 64, 4, 8, 16, 3, 0, 2, 1, 4,
         32 + 32 + 16, 256, 256 + 32 * 8 + 32 * 8},
        {"rail:nodes=60,rails=4,su=8,radix=16,levels=3,byleaf=1", 60, 4, 8, 16, 3, 1, 2, 1, 4,
         32 + 32 + 16, 240, 240 + 32 * 8 + 32 * 8},
        /* 144-port switches: 2 SUs of 72 nodes, 16 leaves, 8 spines, 9 cables each */
        {"rail:nodes=144,radix=144", 144, 8, 72, 144, 2, 0, 2, 9, 0, 24, 1152, 1152 + 16 * 72},
        /* a SuperPOD-sized tree: 64 SUs of 32 nodes (8 rails), 16 pods of 4 SUs
           with 32 spines each, 32 planes of 8 cores (4 cables per spine) */
        {"rail:nodes=2048", 2048, 8, 32, 64, 3, 0, 4, 1, 4, 512 + 512 + 256, 16384,
         16384 * 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_fabric *f = gen(cases[i].spec);
        check_rail(f, &cases[i]);
        ibr_fabric_destroy(f);
    }
}

/* ------------------------------------------------------------------ */
/* spec strings and argument errors                                    */

static void test_spec_errors(void)
{
    static const struct {
        const char *spec;
        int code;
        const char *msg;
    } cases[] = {
        {"", IBR_EINVAL, "unknown family ''"},
        {"foo:x=1", IBR_EINVAL, "unknown family 'foo'"},
        {"fattree", IBR_EINVAL, "missing key 'levels'"},
        {"fattree:levels=2", IBR_EINVAL, "missing key 'radix'"},
        {"torus:dims=4x4,bogus=1", IBR_EINVAL, "unknown key 'bogus'"},
        {"torus:dims=4x4,seed=1", IBR_EINVAL, "unknown key 'seed'"},
        {"torus:dims=4xq", IBR_EINVAL, "bad value '4xq' for key 'dims'"},
        {"torus:dims=4x4,hosts=1,hosts=2", IBR_EINVAL, "duplicate key 'hosts'"},
        {"torus:hosts=1", IBR_EINVAL, "missing key 'dims'"},
        {"torus:dims=4x4,", IBR_EINVAL, "empty key=value"},
        {"torus:dims", IBR_EINVAL, "key 'dims' needs a value"},
        {"torus:dims=", IBR_EINVAL, "key 'dims' needs a value"},
        {"torus:dims=4x4,hosts=-1", IBR_EINVAL, "bad value '-1' for key 'hosts'"},
        {"torus:dims=4x4,hosts=4294967296", IBR_EINVAL, "bad value '4294967296'"},
        {"torus:dims=4x0", IBR_EINVAL, "dimension 1 has size 0"},
        {"torus:dims=4x4,parallel=0", IBR_EINVAL, "parallel"},
        {"torus:dims=100x100x100", IBR_ENOSPC, "switches"},
        {"torus:dims=100x100,hosts=8", IBR_ENOSPC, "LIDs"},
        {"mesh:dims=4x4,hosts=251", IBR_EINVAL, "ports"},
        {"mesh:dims=4x4,hosts=250,parallel=2", IBR_EINVAL, "ports"},
        {"fattree:levels=3,radix=35", IBR_EINVAL, "radix=35"},
        {"fattree:levels=7,radix=4", IBR_EINVAL, "levels=7"},
        {"fattree:levels=2,radix=36,hosts=19", IBR_EINVAL, "19 hosts"},
        {"fattree:levels=4,radix=64", IBR_ENOSPC, "LIDs"},
        {"xgft:h=2,m=4.4,w=1", IBR_EINVAL, "m and w need h=2 values"},
        {"xgft:h=0,m=4,w=1", IBR_EINVAL, "h=0"},
        {"xgft:h=2,m=200.200,w=1.100", IBR_EINVAL, "300 ports"},
        {"xgft:h=2,m=4.0,w=1.1", IBR_EINVAL, "level 2"},
        {"xgft:h=2,m=4..4,w=1.1", IBR_EINVAL, "bad value '4..4' for key 'm'"},
        {"rail", IBR_EINVAL, "missing key 'nodes'"},
        {"rail:nodes=4,su=64", IBR_EINVAL, "no up port"},
        {"rail:nodes=4,levels=4", IBR_EINVAL, "levels=4"},
        {"rail:nodes=512,levels=2", IBR_EINVAL, "try levels=3"},
        {"rail:nodes=4,byleaf=2", IBR_EINVAL, "byleaf=2"},
        {"rail:nodes=4,rails=40,levels=3", IBR_EINVAL, "40 rails"},
        {"rail:nodes=8192,rails=8,su=8,radix=16,levels=3", IBR_EINVAL, "pods"},
        {"rail:nodes=4,radix=300", IBR_EINVAL, "radix=300"},
        {"rail:nodes=0", IBR_EINVAL, "nodes=0"},
        {"rail:nodes=6144,rails=8,su=32", IBR_ENOSPC, "LIDs"},
        {"hypercube:dim=16", IBR_EINVAL, "dim=16"},
        {"hypercube:dim=15,hosts=1", IBR_ENOSPC, "LIDs"},
        {"dragonfly:a=2,h=1,g=5", IBR_EINVAL, "a*h >= g-1"},
        {"dragonfly:a=4", IBR_EINVAL, "missing key 'h'"},
        {"dragonfly:a=0,h=1", IBR_EINVAL, "a=0"},
        {"dfplus:groups=4,leaves=2", IBR_EINVAL, "missing key 'spines'"},
        {"dfplus:groups=0,leaves=2,spines=2", IBR_EINVAL, "groups=0"},
        {"dfplus:groups=9,leaves=2,spines=2,global=1", IBR_EINVAL, "cannot reach the other 8"},
        {"dfplus:groups=4,leaves=2,spines=250,hosts=8", IBR_EINVAL, "more than 254"},
        {"dfplus:groups=4,leaves=2,spines=2,q=3", IBR_EINVAL, "unknown key 'q'"},
        {"dfplus:groups=400,leaves=20,spines=10,hosts=6", IBR_ENOSPC, "LIDs"},
        {"dfplus:groups=70,leaves=200,spines=2,hosts=5", IBR_ENOSPC, "70000 hosts"},
        {"hyperx:hosts=2", IBR_EINVAL, "missing key 'dims'"},
        {"hyperx:dims=4x0", IBR_EINVAL, "dimension 1 has size 0"},
        {"hyperx:dims=100x100x100", IBR_EINVAL, "297 switch ports"},
        {"hyperx:dims=50x50x50", IBR_ENOSPC, "LIDs"},
        {"hyperx:dims=4xx4", IBR_EINVAL, "bad value '4xx4' for key 'dims'"},
        {"slimfly:q=9", IBR_EINVAL, "q=9, must be an odd prime"},
        {"slimfly:q=2", IBR_EINVAL, "q=2"},
        {"slimfly:q=67", IBR_EINVAL, "q=67"},
        {"slimfly:q=59,hosts=200", IBR_EINVAL, "89 + 200 ports"},
        {"slimfly:q=61,hosts=6", IBR_ENOSPC, "LIDs"},
        {"slimfly:hosts=2", IBR_EINVAL, "missing key 'q'"},
        {"random:switches=10,degree=1", IBR_EINVAL, "degree=1"},
        {"random:switches=10,degree=10", IBR_EINVAL, "degree=10"},
        {"random:switches=1,degree=1", IBR_EINVAL, "switches=1"},
        {"random:switches=10,degree=3,seed=-1", IBR_EINVAL, "bad value '-1' for key 'seed'"},
        {"torus:dims=4x4,vls=3", IBR_EINVAL, "vls=3 (data VLs are 1, 2, 4, 8 or 15)"},
        {"fattree:levels=2,radix=4,vls=0", IBR_EINVAL, "vls=0"},
        {"mesh:dims=4x4,vls=2,vls=2", IBR_EINVAL, "duplicate key 'vls'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_FATAL(ibr_fabric_create(&f, NULL) == 0);
        int rc = ibr_fabric_generate(f, cases[i].spec);
        const char *msg = ibr_fabric_last_error(f);
        if (rc != cases[i].code || !strstr(msg, cases[i].msg))
            fprintf(stderr, "\n    spec '%s': got %s '%s'\n", cases[i].spec,
                    ibr_status_name(rc), msg);
        CU_ASSERT_EQUAL(rc, cases[i].code);
        CU_ASSERT(strstr(msg, cases[i].msg) != NULL);
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
        ibr_fabric_destroy(f);
    }

    /* vls=N: every port of every family gets VLCap N, so OperVLs N */
    static const char *vls_specs[] = {"fattree:levels=2,radix=4,vls=2", "torus:dims=3x3,vls=4",
                                      "random:switches=6,degree=3,vls=1"};
    for (size_t k = 0; k < sizeof vls_specs / sizeof vls_specs[0]; k++) {
        ibr_fabric *v = gen(vls_specs[k]);
        unsigned want = (unsigned[]){2, 4, 1}[k], ports = 0;
        for (uint32_t i = 0; i < ibr_fabric_node_count(v); i++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_fabric_node_info(&ni, v, i);
            for (unsigned p = 1; p <= ni.nports; p++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_fabric_port_info(&pi, v, i, p);
                CU_ASSERT_EQUAL(pi.vl_cap, want);
                CU_ASSERT_EQUAL(pi.oper_vls, want);
                ports++;
            }
        }
        CU_ASSERT(ports > 0);
        ibr_fabric_destroy(v);
    }

    /* hexadecimal values and the full 64-bit seed range */
    ibr_fabric *a = gen("random:switches=0x10,degree=3,seed=0xffffffffffffffff");
    ibr_fabric *b = NULL;
    CU_ASSERT_FATAL(ibr_fabric_create(&b, NULL) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_gen_random(b, 16, 3, 1, UINT64_MAX), 0);
    CU_ASSERT(same_fabric(a, b));
    ibr_fabric_destroy(b);

    /* a non-empty fabric is refused and left as it was */
    CU_ASSERT_EQUAL(ibr_fabric_generate(a, "torus:dims=2x2"), IBR_ESTATE);
    CU_ASSERT(strstr(ibr_fabric_last_error(a), "empty") != NULL);
    unsigned dims[] = {3, 3};
    CU_ASSERT_EQUAL(ibr_fabric_gen_torus(a, 2, dims, 1, 1, 1), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_gen_hypercube(a, 3, 1), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_gen_dragonfly(a, 2, 1, 1, 3), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_gen_random(a, 8, 3, 1, 1), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_gen_fat_tree(a, 2, 8, 0), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_generate(a, "dfplus:groups=2,leaves=2,spines=2"), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_generate(a, "hyperx:dims=2x2"), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_generate(a, "slimfly:q=5"), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(a), 32);
    check_random(a, 16, 3, 1);
    ibr_fabric_destroy(a);

    /* NULL arguments */
    CU_ASSERT_EQUAL(ibr_fabric_generate(NULL, "torus:dims=2"), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_gen_fat_tree(NULL, 2, 8, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_gen_torus(NULL, 2, dims, 1, 1, 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(NULL, 1, 0, 0), IBR_EINVAL);
    CU_ASSERT_FATAL(ibr_fabric_create(&a, NULL) == 0);
    CU_ASSERT_EQUAL(ibr_fabric_generate(a, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_gen_torus(a, 2, NULL, 1, 1, 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_gen_torus(a, 0, dims, 1, 1, 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_gen_hypercube(a, 0, 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(a), 0);
    /* a generator works on a fabric after failed attempts */
    CU_ASSERT_EQUAL(ibr_fabric_gen_hypercube(a, 2, 0), 0);
    CU_ASSERT_STRING_EQUAL(ibr_fabric_last_error(a), "");
    CU_ASSERT_EQUAL(ibr_fabric_node_count(a), 4);
    ibr_fabric_destroy(a);
}

/* ------------------------------------------------------------------ */
/* faults                                                              */

/* bitmap of down cables over (node, port) of switch ports */
static void down_set(const ibr_fabric *f, uint8_t *out, size_t size)
{
    memset(out, 0, size);
    uint32_t n = ibr_fabric_node_count(f);
    for (uint32_t a = 0; a < n; a++) {
        ibr_node_info ni = node(f, a);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = port(f, a, p);
            if (pi.remote_node != IBR_NONE && pi.state == IBR_LINK_DOWN &&
                (size_t)a * 256 + p < size)
                out[(size_t)a * 256 + p] = 1;
        }
    }
}

static void test_faults(void)
{
    static uint8_t s1[256 * 256], s2[256 * 256];
    ibr_fabric *f = gen("torus:dims=4x4x4,hosts=1");
    ibr_fabric *g = gen("torus:dims=4x4x4,hosts=1");
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 10, 0, 7), 0);
    counts c = count(f);
    CU_ASSERT_EQUAL(c.sw_down, 10);
    CU_ASSERT_EQUAL(c.down, 10);
    /* reproducible */
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(g, 10, 0, 7), 0);
    CU_ASSERT(same_fabric(f, g));
    /* again: only active links are candidates, so ten more go down */
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 10, 0, 7), 0);
    CU_ASSERT_EQUAL(count(f).sw_down, 20);
    ibr_fabric_destroy(g);

    /* another seed picks other links */
    g = gen("torus:dims=4x4x4,hosts=1");
    ibr_fabric *h = gen("torus:dims=4x4x4,hosts=1");
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(g, 10, 0, 1), 0);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(h, 10, 0, 2), 0);
    down_set(g, s1, sizeof s1);
    down_set(h, s2, sizeof s2);
    CU_ASSERT(memcmp(s1, s2, sizeof s1) != 0);
    ibr_fabric_destroy(h);
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);

    /* switch faults: every link of a drawn switch goes down, plus exactly
       the requested links elsewhere */
    f = gen("hypercube:dim=5,hosts=1");
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 4, 3, 11), 0);
    c = count(f);
    unsigned dead = 0;
    for (uint32_t s = 0; s < 32; s++) {
        unsigned down = 0;
        for (unsigned p = 1; p <= 6; p++)
            down += port(f, s, p).state == IBR_LINK_DOWN;
        if (down == 6)
            dead++;
    }
    CU_ASSERT_EQUAL(dead, 3);
    /* 3 dead switches: 3 host links, 15 minus shared cube links, + 4 */
    unsigned shared = 0;
    for (uint32_t s = 0; s < 32; s++)
        for (unsigned d = 0; d < 5; d++) {
            uint32_t t = s ^ (1u << d);
            if (s < t && degree(f, s) && port(f, s, 6).state == IBR_LINK_DOWN &&
                port(f, t, 6).state == IBR_LINK_DOWN)
                shared++;
        }
    CU_ASSERT_EQUAL(c.sw_down, 3 * 5 - shared + 4);
    CU_ASSERT_EQUAL(c.down, c.sw_down + 3);
    ibr_fabric_destroy(f);

    /* too many faults: ERANGE, nothing changed */
    f = gen("mesh:dims=3x3,hosts=1");
    g = gen("mesh:dims=3x3,hosts=1");
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 13, 0, 1), IBR_ERANGE);
    CU_ASSERT(strstr(ibr_fabric_last_error(f), "12") != NULL);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 0, 10, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 12, 1, 1), IBR_ERANGE);
    CU_ASSERT(same_fabric(f, g));
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 12, 0, 1), 0);
    CU_ASSERT_EQUAL(count(f).sw_down, 12);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 1, 0, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 0, 0, 1), 0);
    /* the down links vanish from the frozen topology's switch graph */
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    CU_ASSERT_EQUAL(ibr_topo_switch_distance(t, ibr_topo_node_switch(t, 0),
                                             ibr_topo_node_switch(t, 1)), 255);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* allocation failures                                                 */

static void oom_generate(const char *spec)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_FATAL(ctx != NULL);
    long start = st.live, n;
    for (n = 0; n < 100000; n++) {
        ibr_fabric *f = NULL;
        st.fail_at = -1;
        CU_ASSERT_FATAL(ibr_fabric_create(&f, ctx) == 0);
        long before = st.live;
        st.calls = 0;
        st.fail_at = n;
        int rc = ibr_fabric_generate(f, spec);
        st.fail_at = -1;
        if (rc == 0) {
            CU_ASSERT(ibr_fabric_node_count(f) > 0);
            ibr_fabric_destroy(f);
            CU_ASSERT_EQUAL(st.live, start);
            break;
        }
        CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
        CU_ASSERT(ibr_fabric_last_error(f)[0] != 0);
        CU_ASSERT_EQUAL(st.live, before);
        ibr_fabric_destroy(f);
        CU_ASSERT_EQUAL(st.live, start);
        if (rc != IBR_ENOMEM)
            break;
    }
    CU_ASSERT(n > 0 && n < 100000);
    ibr_context_destroy(ctx);
}

static void test_oom(void)
{
    oom_generate("torus:dims=3x3,hosts=1");
    oom_generate("random:switches=12,degree=3,hosts=1,seed=5");
    oom_generate("xgft:h=2,m=2.3,w=2.2");
    oom_generate("rail:nodes=5,rails=2,su=2,radix=4,levels=3");

    /* fault injection fails cleanly too */
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_fabric *f = NULL, *ref = gen("mesh:dims=4x4,hosts=1");
    CU_ASSERT_FATAL(ctx != NULL && ibr_fabric_create(&f, ctx) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "mesh:dims=4x4,hosts=1"), 0);
    long n;
    for (n = 0; n < 1000; n++) {
        long before = st.live;
        st.calls = 0;
        st.fail_at = n;
        int rc = ibr_fabric_inject_faults(f, 3, 1, 9);
        st.fail_at = -1;
        CU_ASSERT_EQUAL(st.live, before);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
        CU_ASSERT(same_fabric(f, ref));
    }
    CU_ASSERT(n > 0 && n < 1000);
    CU_ASSERT_FALSE(same_fabric(f, ref));
    ibr_fabric_destroy(ref);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

static CU_TestInfo tests[] = {
    {"rng", test_rng},
    {"fat_tree_2level", test_fat_tree_2level},
    {"fat_tree_partial", test_fat_tree_partial},
    {"fat_tree_3level", test_fat_tree_3level},
    {"fat_tree_big", test_fat_tree_big},
    {"xgft", test_xgft},
    {"torus", test_torus},
    {"torus_parallel_and_small", test_torus_parallel_and_small},
    {"hypercube", test_hypercube},
    {"dragonfly", test_dragonfly},
    {"dfplus", test_dfplus},
    {"hyperx", test_hyperx},
    {"slimfly", test_slimfly},
    {"random", test_random},
    {"rail", test_rail},
    {"spec_errors", test_spec_errors},
    {"faults", test_faults},
    {"oom", test_oom},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return ibr_test_main("generate", tests);
}
