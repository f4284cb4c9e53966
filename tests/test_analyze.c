/* The routing-quality analysis: hand-computed values on small fabrics, an
   independent brute-force oracle on generated ones, agreement with
   ibr_result_verify(), determinism across thread counts, VLs from SLs and SL2VL
   tables, allocation failure and the JSON and text reports. */
#define _POSIX_C_SOURCE 200809L /* strdup(): POSIX, not ISO C */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

static ibr_context *ctx;

/* ------------------------------------------------------------------ */
/* custom engines                                                       */

/* "copy": the LFTs of a reference result, with optional changes, SLs and
   SL2VL maps, depending on the mode. */
enum {
    M_COPY = 0,     /* LFTs only */
    M_ONE_LINK,     /* two-switch fabric: every cross route on port 1 */
    M_BREAK,        /* one entry set to brk_port */
    M_SL_DEST,      /* line of 3: SL = host LID - 10, SL2VL on switch 1 */
    M_SL_PAIR,      /* line of 3: SL 3 from host 0, 0 otherwise, no SL2VL */
    M_SL_PAIR_VL,   /* both of the above */
    M_VL_ONLY,      /* SL2VL on switch 1 only */
};

typedef struct engine_cfg {
    const ibr_result *ref;
    int mode;
    uint32_t brk_sw;
    uint16_t brk_lid;
    unsigned brk_port;
} engine_cfg;

static engine_cfg cfg;

static int set_mid_sl2vl(ibr_run *run)
{
    uint8_t map[16];
    for (unsigned sl = 0; sl < 16; sl++)
        map[sl] = (uint8_t)((sl + 4) & 15);
    for (unsigned in = 1; in <= 2; in++)
        for (unsigned out = 0; out <= 4; out++) {
            int rc = ibr_run_set_sl2vl(run, 1, in, out, map);
            if (rc < 0)
                return rc;
        }
    return 0;
}

static int copy_fn(ibr_run *run, void *user)
{
    engine_cfg *c = user;
    const ibr_topo *t = ibr_run_topo(run);
    size_t lsz = ibr_result_lft_size(c->ref);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        memcpy(ibr_run_lft(run, s), ibr_result_lft(c->ref, s), lsz);
    int rc = 0;
    switch (c->mode) {
    case M_ONE_LINK:
        /* switch 0 reaches hosts 12, 13 and switch 1 hosts 10, 11 on port 1 */
        ibr_run_lft(run, 0)[12] = 1;
        ibr_run_lft(run, 0)[13] = 1;
        ibr_run_lft(run, 1)[10] = 1;
        ibr_run_lft(run, 1)[11] = 1;
        break;
    case M_BREAK:
        ibr_run_lft(run, c->brk_sw)[c->brk_lid] = (uint8_t)c->brk_port;
        break;
    case M_SL_DEST:
        for (unsigned l = 10; l <= 12 && !rc; l++)
            rc = ibr_run_set_dest_sl(run, (uint16_t)l, l - 10);
        if (!rc)
            rc = set_mid_sl2vl(run);
        break;
    case M_SL_PAIR:
    case M_SL_PAIR_VL:
        for (unsigned l = 11; l <= 12 && !rc; l++)
            rc = ibr_run_set_path_sl(run, 10, (uint16_t)l, 3);
        if (!rc && c->mode == M_SL_PAIR_VL)
            rc = set_mid_sl2vl(run);
        break;
    case M_VL_ONLY:
        rc = set_mid_sl2vl(run);
        break;
    }
    return rc;
}

static ibr_result *route_copy(const ibr_topo *t, const ibr_result *ref, int mode)
{
    cfg.ref = ref;
    cfg.mode = mode;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "copy,no_fallback", NULL), 0);
    return r;
}

/* ------------------------------------------------------------------ */
/* small fabrics                                                        */

/* A line of n switches (switch i: port 1 to the next, port 2 to the
   previous), host i on port 3; switch LIDs 1.., host LIDs 10... */
static ibr_topo *line(unsigned n)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    for (unsigned i = 0; i < n; i++)
        ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, (uint64_t)(i + 1) << 56, 4, "line");
    for (unsigned i = 0; i + 1 < n; i++)
        ibr_fabric_add_link(f, i, 1, i + 1, 2, NULL);
    for (unsigned i = 0; i < n; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, n + i, 1, i, 3, NULL);
        ibr_fabric_set_lid(f, i, 0, (uint16_t)(1 + i), 0);
        ibr_fabric_set_lid(f, n + i, 1, (uint16_t)(10 + i), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* Two switches joined by two cables (ports 1 and 2), two hosts on each
   (ports 3 and 4): hosts 0, 1 on switch 0 (LIDs 10, 11), hosts 2, 3 on
   switch 1 (LIDs 12, 13). */
static ibr_topo *two_switches(void)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 1ull << 56, 4, "a");
    ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 2ull << 56, 4, "b");
    ibr_fabric_add_link(f, 0, 1, 1, 1, NULL);
    ibr_fabric_add_link(f, 0, 2, 1, 2, NULL);
    for (unsigned i = 0; i < 4; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, 2 + i, 1, i / 2, 3 + i % 2, NULL);
        ibr_fabric_set_lid(f, 2 + i, 1, (uint16_t)(10 + i), 0);
    }
    ibr_fabric_set_lid(f, 0, 0, 1, 0);
    ibr_fabric_set_lid(f, 1, 0, 2, 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

static ibr_analysis *analyze(const ibr_topo *t, const ibr_result *r, unsigned threads,
                             unsigned n_random)
{
    (void)t; /* the result knows its topology */
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.threads = threads;
    o.n_random = n_random;
    ibr_analysis *a = NULL;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), 0);
    return a;
}

static ibr_analysis_summary summary(const ibr_analysis *a)
{
    ibr_analysis_summary s;
    memset(&s, 0, sizeof s);
    s.version = IBR_ANALYSIS_SUMMARY_VERSION;
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(&s, a), 0);
    return s;
}

#define EPS 1e-12

static void assert_stats(const ibr_pattern_stats *p, unsigned patterns, uint64_t flows,
                         uint64_t unrouted, uint64_t max, double mean_max, uint64_t cfree,
                         double ebb)
{
    CU_ASSERT_EQUAL(p->patterns, patterns);
    CU_ASSERT_EQUAL(p->flows, flows);
    CU_ASSERT_EQUAL(p->unrouted, unrouted);
    CU_ASSERT_EQUAL(p->max_congestion, max);
    CU_ASSERT_DOUBLE_EQUAL(p->mean_max_congestion, mean_max, EPS);
    CU_ASSERT_EQUAL(p->congestion_free, cfree);
    CU_ASSERT_DOUBLE_EQUAL(p->ebb, ebb, EPS);
}

/* ------------------------------------------------------------------ */
/* hand-computed values                                                 */

static void test_line(void)
{
    ibr_topo *t = line(3);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analysis *a = analyze(t, r, 1, 10);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    ibr_analysis_summary s = summary(a);
    /* 0<->1 and 1<->2 take 3 links, 0<->2 four */
    CU_ASSERT_EQUAL(s.endports, 3);
    CU_ASSERT_EQUAL(s.pairs, 6);
    CU_ASSERT_EQUAL(s.pairs_routed, 6);
    CU_ASSERT_DOUBLE_EQUAL(s.avg_hops, 20.0 / 6.0, EPS);
    CU_ASSERT_EQUAL(s.max_hops, 4);
    CU_ASSERT_DOUBLE_EQUAL(s.avg_stretch, 1.0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(s.max_stretch, 1.0, EPS);
    uint64_t hist[8];
    size_t need = 0;
    CU_ASSERT_EQUAL(ibr_analysis_hop_histogram(hist, 2, &need, a), IBR_ERANGE);
    CU_ASSERT_EQUAL(need, 5);
    CU_ASSERT_EQUAL(ibr_analysis_hop_histogram(hist, 8, &need, a), 0);
    uint64_t want_hist[5] = {0, 0, 0, 4, 2};
    CU_ASSERT_EQUAL(memcmp(hist, want_hist, sizeof want_hist), 0);
    /* links 0->1, 1->2, 1->0, 2->1, two flows each */
    CU_ASSERT_EQUAL(s.links, 4);
    uint64_t loads[4];
    CU_ASSERT_EQUAL(ibr_analysis_link_loads(loads, 3, &need, a), IBR_ERANGE);
    CU_ASSERT_EQUAL(need, 4);
    CU_ASSERT_EQUAL(ibr_analysis_link_loads(loads, 4, &need, a), 0);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(loads[i], 2);
    CU_ASSERT_EQUAL(s.max_link_load, 2);
    CU_ASSERT_DOUBLE_EQUAL(s.mean_link_load, 2.0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(s.load_ratio, 1.0, EPS);
    /* every flow crosses a link of load 2 */
    assert_stats(&s.all_to_all, 1, 6, 0, 2, 2.0, 0, 0.5);
    /* shifts 1 and 2 are both congestion-free */
    assert_stats(&s.shift, 2, 6, 0, 1, 1.0, 2, 1.0);
    /* on a line of 3 every permutation (3-cycle, a swap, the identity)
       and every bisection (one swap) is congestion-free */
    CU_ASSERT_EQUAL(s.permutation.patterns, 10);
    CU_ASSERT_EQUAL(s.permutation.congestion_free, 10);
    CU_ASSERT(s.permutation.max_congestion <= 1);
    CU_ASSERT(s.permutation.flows <= 30 && s.permutation.flows >= 10);
    CU_ASSERT_DOUBLE_EQUAL(s.permutation.ebb, 1.0, EPS);
    assert_stats(&s.bisection, 10, 20, 0, 1, 1.0, 10, 1.0);
    uint64_t vl[16];
    CU_ASSERT_EQUAL(ibr_analysis_vl_usage(vl, a), 0);
    CU_ASSERT_EQUAL(vl[0], 6);
    for (int i = 1; i < 16; i++)
        CU_ASSERT_EQUAL(vl[i], 0);
    CU_ASSERT_EQUAL(s.vls_used, 1);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_two_switches(void)
{
    ibr_topo *t = two_switches();
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    /* minhop spreads the two remote hosts over the two cables */
    CU_ASSERT_NOT_EQUAL(ibr_result_lft_port(r, 0, 12), ibr_result_lft_port(r, 0, 13));
    CU_ASSERT_NOT_EQUAL(ibr_result_lft_port(r, 1, 10), ibr_result_lft_port(r, 1, 11));
    ibr_analysis *a = analyze(t, r, 2, 20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    ibr_analysis_summary s = summary(a);
    CU_ASSERT_EQUAL(s.endports, 4);
    CU_ASSERT_EQUAL(s.pairs, 12);
    CU_ASSERT_DOUBLE_EQUAL(s.avg_hops, (4 * 2 + 8 * 3) / 12.0, EPS);
    CU_ASSERT_EQUAL(s.links, 4);
    /* each cable direction: 2 sources x 1 destination */
    CU_ASSERT_EQUAL(s.max_link_load, 2);
    CU_ASSERT_DOUBLE_EQUAL(s.mean_link_load, 2.0, EPS);
    /* 4 local flows get 1, 8 crossing ones 1/2 */
    assert_stats(&s.all_to_all, 1, 12, 0, 2, 2.0, 0, (4 + 8 * 0.5) / 12);
    assert_stats(&s.shift, 3, 12, 0, 1, 1.0, 3, 1.0);
    /* any permutation sends distinct destinations over distinct cables */
    CU_ASSERT_EQUAL(s.permutation.congestion_free, 20);
    CU_ASSERT_DOUBLE_EQUAL(s.permutation.ebb, 1.0, EPS);
    /* a bisection pairs hosts 0-1 and 2-3 (no link used: max 0) or crosses
       with one flow per cable direction (max 1) */
    CU_ASSERT_EQUAL(s.bisection.flows, 80);
    CU_ASSERT_EQUAL(s.bisection.max_congestion, 1);
    CU_ASSERT_EQUAL(s.bisection.congestion_free, 20);
    CU_ASSERT(s.bisection.mean_max_congestion > 0.0 && s.bisection.mean_max_congestion < 1.0);
    CU_ASSERT_DOUBLE_EQUAL(s.bisection.mean_max_congestion * 20,
                           (double)(long)(s.bisection.mean_max_congestion * 20 + 0.5), 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(s.bisection.ebb, 1.0, EPS);
    ibr_analysis_destroy(a);

    /* everything across on cable 1 */
    ibr_result *one = route_copy(t, r, M_ONE_LINK);
    a = analyze(t, one, 1, 20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    s = summary(a);
    uint64_t loads[4];
    CU_ASSERT_EQUAL(ibr_analysis_link_loads(loads, 4, NULL, a), 0);
    /* links: switch 0 port 1, port 2, switch 1 port 1, port 2 */
    CU_ASSERT_EQUAL(loads[0], 4);
    CU_ASSERT_EQUAL(loads[1], 0);
    CU_ASSERT_EQUAL(loads[2], 4);
    CU_ASSERT_EQUAL(loads[3], 0);
    CU_ASSERT_EQUAL(s.max_link_load, 4);
    CU_ASSERT_DOUBLE_EQUAL(s.mean_link_load, 2.0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(s.load_ratio, 2.0, EPS);
    assert_stats(&s.all_to_all, 1, 12, 0, 4, 4.0, 0, (4 + 8 * 0.25) / 12);
    /* shift 1: 0->1 and 2->3 stay local, 1->2 and 3->0 cross alone;
       shift 2: 0->2, 1->3 share cable 1 one way, 2->0, 3->1 the other;
       shift 3: 0->3 and 2->1 cross alone */
    assert_stats(&s.shift, 3, 12, 0, 2, 4.0 / 3, 2, (1 + 0.5 + 1) / 3);
    ibr_analysis_destroy(a);
    ibr_result_destroy(one);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* 2-level fat tree of 4-port switches: 4 leaves (switches 0..3? the
   generator puts leaves first) with 2 hosts and 2 uplinks, 2 spines. */
static void test_fat_tree(void)
{
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analysis *a = analyze(t, r, 0, 50);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    ibr_analysis_summary s = summary(a);
    CU_ASSERT_EQUAL(s.endports, 8);
    CU_ASSERT_EQUAL(s.pairs, 56);
    /* 8 pairs share a leaf (2 links), 48 cross a spine (4 links) */
    CU_ASSERT_DOUBLE_EQUAL(s.avg_hops, (8 * 2 + 48 * 4) / 56.0, EPS);
    CU_ASSERT_EQUAL(s.max_hops, 4);
    /* 16 directed links; a leaf's 2 hosts send to 6 remote hosts over 2
       uplinks, minhop puts 3 destinations on each: 6 flows per uplink, and
       as many per downlink */
    CU_ASSERT_EQUAL(s.links, 16);
    CU_ASSERT_EQUAL(s.max_link_load, 6);
    CU_ASSERT_DOUBLE_EQUAL(s.mean_link_load, 6.0, EPS);
    assert_stats(&s.all_to_all, 1, 56, 0, 6, 6.0, 0, (8 + 48.0 / 6) / 56);
    /* minhop's destination-based spreading makes every shift
       congestion-free (the way d-mod-k does) */
    assert_stats(&s.shift, 7, 56, 0, 1, 1.0, 7, 1.0);
    CU_ASSERT(s.permutation.max_congestion >= 1 && s.permutation.max_congestion <= 2);
    CU_ASSERT(s.permutation.ebb > 0.5 && s.permutation.ebb <= 1.0);
    CU_ASSERT_EQUAL(s.bisection.flows, 50 * 8);
    CU_ASSERT(s.bisection.ebb > 0.5 && s.bisection.ebb <= 1.0);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* ------------------------------------------------------------------ */
/* VLs                                                                  */

static void vl_case(const ibr_topo *t, const ibr_result *ref, int mode, const uint64_t want[16],
                    unsigned want_used)
{
    ibr_result *r = route_copy(t, ref, mode);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (unsigned th = 1; th <= 2; th++) {
        ibr_analysis *a = analyze(t, r, th, 4);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        uint64_t vl[16];
        CU_ASSERT_EQUAL(ibr_analysis_vl_usage(vl, a), 0);
        for (int i = 0; i < 16; i++) {
            if (vl[i] != want[i])
                fprintf(stderr, "mode %d VL %d: %llu, want %llu\n", mode, i,
                        (unsigned long long)vl[i], (unsigned long long)want[i]);
            CU_ASSERT_EQUAL(vl[i], want[i]);
        }
        ibr_analysis_summary s = summary(a);
        CU_ASSERT_EQUAL(s.vls_used, want_used);
        CU_ASSERT_EQUAL(s.pairs_routed, 6);
        ibr_analysis_destroy(a);
    }
    ibr_result_destroy(r);
}

static void test_vls(void)
{
    ibr_topo *t = line(3);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    /* SL = destination host: h0->h1 VL 1; h0->h2 VL 2 then 6 on the middle
       switch (entered from a switch port); h1->h0 VL 0; h1->h2 VL 2
       (entered from a host port: identity); h2->h0 VL 0 then 4;
       h2->h1 VL 1 */
    uint64_t dest[16] = {2, 2, 2, 0, 1, 0, 1};
    vl_case(t, ref, M_SL_DEST, dest, 5);
    /* per-pair SL 3 from h0, identity maps */
    uint64_t pair[16] = {4, 0, 0, 2};
    vl_case(t, ref, M_SL_PAIR, pair, 2);
    /* per-pair SLs and the middle switch's map: h0->h2 adds VL 7, h2->h0
       VL 4 */
    uint64_t pair_vl[16] = {4, 0, 0, 2, 1, 0, 0, 1};
    vl_case(t, ref, M_SL_PAIR_VL, pair_vl, 4);
    /* the map alone: SL 0 becomes VL 4 between the outer switches */
    uint64_t only[16] = {6, 0, 0, 0, 2};
    vl_case(t, ref, M_VL_ONLY, only, 2);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
}

/* ------------------------------------------------------------------ */
/* an independent oracle over the public API                           */

typedef struct oracle {
    uint32_t n_ep;
    uint32_t ep_sw[4096];
    unsigned ep_port[4096];
    uint16_t ep_lid[4096];
    unsigned ep_lmc[4096];
    uint32_t *link;  /* (switch, port) -> link index or IBR_NONE, 256 per switch */
    uint32_t n_links;
    uint64_t *load;
    uint64_t pairs, routed, hop_sum, hist[64];
    unsigned max_hops;
    double stretch, max_stretch, a2a_share;
    uint64_t a2a_flows;
} oracle;

/* Where a LID is delivered: switch and port, or IBR_NONE. */
static uint32_t lid_switch(const ibr_topo *t, uint16_t lid, unsigned *port)
{
    uint32_t node;
    unsigned p;
    if (ibr_topo_lid_owner(&node, &p, t, lid) < 0)
        return IBR_NONE;
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&pi, t, node, p);
    if (pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE)
        return IBR_NONE;
    *port = pi.remote_port;
    return ibr_topo_node_switch(t, pi.remote_node);
}

/* Walk from switch s toward lid; returns the number of switch-to-switch
   links (their indices in path[]) or -1 when the route fails. */
static int walk(const oracle *o, const ibr_topo *t, const ibr_result *r, uint32_t s,
                uint16_t lid, uint32_t *path)
{
    unsigned dport = 0;
    uint32_t dsw = lid_switch(t, lid, &dport);
    int n = 0;
    for (uint32_t steps = 0; steps <= ibr_topo_switch_count(t); steps++) {
        unsigned p = ibr_result_lft_port(r, s, lid);
        if (s == dsw && p == dport)
            return n;
        if (p == IBR_NO_ROUTE || p > 255)
            return -1;
        uint32_t l = o->link[(size_t)s * 256 + p];
        if (l == IBR_NONE)
            return -1;
        path[n++] = l;
        uint32_t node = ibr_topo_switch_node(t, s);
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&pi, t, node, p);
        s = ibr_topo_node_switch(t, pi.remote_node);
    }
    return -1;
}

static void oracle_build(oracle *o, const ibr_topo *t)
{
    memset(o, 0, sizeof *o);
    uint32_t nsw = ibr_topo_switch_count(t);
    o->link = malloc(sizeof *o->link * 256 * (nsw + 1));
    for (size_t i = 0; i < 256 * (size_t)(nsw + 1); i++)
        o->link[i] = IBR_NONE;
    for (uint32_t s = 0; s < nsw; s++) {
        uint32_t node = ibr_topo_switch_node(t, s);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, node, p);
            if (pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE ||
                pi.remote_node == node || ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                continue;
            o->link[(size_t)s * 256 + p] = o->n_links++;
        }
    }
    o->load = calloc(o->n_links + 1, sizeof *o->load);
    for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, n);
        if (ni.type == IBR_NODE_SWITCH)
            continue;
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, n, p);
            if (!pi.lid || pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE ||
                ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                continue;
            CU_ASSERT_FATAL(o->n_ep < 4096);
            o->ep_sw[o->n_ep] = ibr_topo_node_switch(t, pi.remote_node);
            o->ep_port[o->n_ep] = pi.remote_port;
            o->ep_lid[o->n_ep] = pi.lid;
            o->ep_lmc[o->n_ep] = pi.lmc;
            o->n_ep++;
        }
    }
}

static void oracle_all_to_all(oracle *o, const ibr_topo *t, const ibr_result *r)
{
    uint32_t path[256];
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t d = 0; d < o->n_ep; d++)
            for (unsigned k = 0; k < (1u << o->ep_lmc[d]); k++) {
                uint16_t lid = (uint16_t)(o->ep_lid[d] + k);
                unsigned dport;
                uint32_t dsw = lid_switch(t, lid, &dport);
                for (uint32_t e = 0; e < o->n_ep; e++) {
                    if (e == d)
                        continue;
                    unsigned dist = ibr_topo_switch_distance(t, o->ep_sw[e], dsw);
                    int n = walk(o, t, r, o->ep_sw[e], lid, path);
                    if (pass == 1) {
                        o->a2a_flows++;
                        if (n < 0 || dist == 255)
                            continue;
                        uint64_t m = 0;
                        for (int i = 0; i < n; i++)
                            if (o->load[path[i]] > m)
                                m = o->load[path[i]];
                        o->a2a_share += m ? 1.0 / (double)m : 1.0;
                        continue;
                    }
                    if (dist == 255)
                        continue;
                    o->pairs++;
                    if (n < 0)
                        continue;
                    o->routed++;
                    unsigned h = (unsigned)n + 2;
                    o->hist[h]++;
                    o->hop_sum += h;
                    if (h > o->max_hops)
                        o->max_hops = h;
                    double st = (double)h / (double)(dist + 2);
                    o->stretch += st;
                    if (st > o->max_stretch)
                        o->max_stretch = st;
                    for (int i = 0; i < n; i++)
                        o->load[path[i]]++;
                }
            }
}

/* Shift patterns, with base LIDs or with LIDs spread by source. */
static void oracle_shift(const oracle *o, const ibr_topo *t, const ibr_result *r, int base_only,
                         ibr_pattern_stats *out)
{
    uint32_t n = o->n_ep;
    uint32_t *cnt = calloc(o->n_links + 1, sizeof *cnt);
    uint32_t *paths = malloc(sizeof *paths * 256 * n);
    int *len = malloc(sizeof *len * n);
    memset(out, 0, sizeof *out);
    double sum_max = 0, ebb = 0;
    for (uint32_t k = 1; k < n; k++) {
        memset(cnt, 0, sizeof *cnt * (o->n_links + 1));
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = (i + k) % n;
            uint16_t lid = o->ep_lid[j];
            if (!base_only)
                lid = (uint16_t)(lid + (i & ((1u << o->ep_lmc[j]) - 1)));
            unsigned dport;
            uint32_t dsw = lid_switch(t, lid, &dport);
            len[i] = ibr_topo_switch_distance(t, o->ep_sw[i], dsw) == 255
                         ? -1
                         : walk(o, t, r, o->ep_sw[i], lid, paths + 256 * (size_t)i);
            for (int h = 0; h < len[i]; h++)
                cnt[paths[256 * (size_t)i + h]]++;
        }
        uint64_t max = 0;
        for (uint32_t l = 0; l < o->n_links; l++)
            if (cnt[l] > max)
                max = cnt[l];
        double share = 0;
        for (uint32_t i = 0; i < n; i++) {
            out->flows++;
            if (len[i] < 0) {
                out->unrouted++;
                continue;
            }
            uint32_t m = 0;
            for (int h = 0; h < len[i]; h++)
                if (cnt[paths[256 * (size_t)i + h]] > m)
                    m = cnt[paths[256 * (size_t)i + h]];
            share += m ? 1.0 / m : 1.0;
        }
        out->patterns++;
        if (max > out->max_congestion)
            out->max_congestion = max;
        sum_max += (double)max;
        out->congestion_free += max <= 1;
        ebb += share / n;
    }
    if (out->patterns) {
        out->mean_max_congestion = sum_max / out->patterns;
        out->ebb = ebb / out->patterns;
    }
    free(cnt);
    free(paths);
    free(len);
}

static void same_stats(const ibr_pattern_stats *a, const ibr_pattern_stats *b)
{
    CU_ASSERT_EQUAL(a->patterns, b->patterns);
    CU_ASSERT_EQUAL(a->flows, b->flows);
    CU_ASSERT_EQUAL(a->unrouted, b->unrouted);
    CU_ASSERT_EQUAL(a->max_congestion, b->max_congestion);
    CU_ASSERT_DOUBLE_EQUAL(a->mean_max_congestion, b->mean_max_congestion, 1e-9);
    CU_ASSERT_EQUAL(a->congestion_free, b->congestion_free);
    CU_ASSERT_DOUBLE_EQUAL(a->ebb, b->ebb, 1e-9);
}

/* Compare the analysis with the oracle and with ibr_result_verify(). */
static void cross_check(const char *what, const ibr_topo *t, const ibr_result *r)
{
    oracle *o = malloc(sizeof *o);
    oracle_build(o, t);
    oracle_all_to_all(o, t, r);
    for (int base_only = 1; base_only >= 0; base_only--) {
        ibr_analyze_options opt = IBR_ANALYZE_OPTIONS_INIT;
        opt.n_random = 5;
        opt.base_lid_only = base_only;
        ibr_analysis *a = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &opt), 0);
        ibr_analysis_summary s = summary(a);
        int bad = 0;
#define SAME(x, y)                                                                          \
    do {                                                                                     \
        if ((x) != (y)) {                                                                    \
            bad = 1;                                                                         \
            fprintf(stderr, "%s: %s = %g, oracle %g\n", what, #x, (double)(x), (double)(y)); \
        }                                                                                    \
    } while (0)
        SAME(s.endports, o->n_ep);
        SAME(s.pairs, o->pairs);
        SAME(s.pairs_routed, o->routed);
        SAME(s.max_hops, o->max_hops);
        SAME(s.links, o->n_links);
        CU_ASSERT_EQUAL(bad, 0);
        if (o->routed) {
            CU_ASSERT_DOUBLE_EQUAL(s.avg_hops, (double)o->hop_sum / o->routed, 1e-9);
            CU_ASSERT_DOUBLE_EQUAL(s.avg_stretch, o->stretch / o->routed, 1e-9);
        }
        CU_ASSERT_DOUBLE_EQUAL(s.max_stretch, o->max_stretch, 1e-12);
        uint64_t *loads = malloc(sizeof *loads * (o->n_links + 1));
        size_t need = 0;
        CU_ASSERT_EQUAL(ibr_analysis_link_loads(loads, o->n_links, &need, a), 0);
        CU_ASSERT_EQUAL(need, o->n_links);
        CU_ASSERT_EQUAL(memcmp(loads, o->load, sizeof *loads * o->n_links), 0);
        free(loads);
        uint64_t hist[64] = {0};
        CU_ASSERT_EQUAL(ibr_analysis_hop_histogram(hist, 64, &need, a), 0);
        CU_ASSERT_EQUAL(memcmp(hist, o->hist, sizeof hist), 0);
        CU_ASSERT_EQUAL(s.all_to_all.flows, o->a2a_flows);
        CU_ASSERT_EQUAL(s.all_to_all.unrouted, o->a2a_flows - o->routed);
        CU_ASSERT_DOUBLE_EQUAL(s.all_to_all.ebb, o->a2a_flows ? o->a2a_share / o->a2a_flows : 1,
                               1e-9);
        ibr_pattern_stats sh;
        oracle_shift(o, t, r, base_only, &sh);
        same_stats(&s.shift, &sh);
        /* random patterns: counts and bounds */
        if (o->n_ep >= 2) {
            CU_ASSERT_EQUAL(s.permutation.patterns, 5);
            CU_ASSERT(s.permutation.flows <= 5 * (uint64_t)o->n_ep);
            CU_ASSERT_EQUAL(s.bisection.flows, 5 * (uint64_t)(o->n_ep / 2 * 2));
            CU_ASSERT(s.bisection.ebb >= 0 && s.bisection.ebb <= 1);
            CU_ASSERT(s.permutation.ebb >= 0 && s.permutation.ebb <= 1);
            CU_ASSERT(s.bisection.unrouted <= s.bisection.flows);
            if (s.pairs_routed == s.pairs && s.pairs == o->a2a_flows) {
                CU_ASSERT_EQUAL(s.permutation.unrouted, 0);
                CU_ASSERT_EQUAL(s.bisection.unrouted, 0);
            }
        }

        /* ibr_result_verify measures the same things */
        ibr_verify_report rep;
        memset(&rep, 0, sizeof rep);
        rep.version = IBR_VERIFY_REPORT_VERSION;
        ibr_result_verify(&rep, r);
        CU_ASSERT_EQUAL(rep.pairs, s.pairs);
        CU_ASSERT_EQUAL(rep.pairs_ok, s.pairs_routed);
        CU_ASSERT_DOUBLE_EQUAL(rep.avg_hops, s.avg_hops, 1e-9);
        CU_ASSERT_EQUAL(rep.max_hops, s.max_hops);
        CU_ASSERT_DOUBLE_EQUAL(rep.avg_stretch, s.avg_stretch, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(rep.max_stretch, s.max_stretch, 1e-12);
        CU_ASSERT_EQUAL(rep.links, s.links);
        CU_ASSERT_EQUAL(rep.max_link_load, s.max_link_load);
        CU_ASSERT_DOUBLE_EQUAL(rep.mean_link_load, s.mean_link_load, 1e-9);
        ibr_analysis_destroy(a);
    }
    free(o->link);
    free(o->load);
    free(o);
}

static const char *const specs[] = {
    "fattree:levels=2,radix=4",
    "fattree:levels=2,radix=8,hosts=3",
    "fattree:levels=3,radix=4",
    "torus:dims=3x3,hosts=2",
    "torus:dims=4x2x2,hosts=1,parallel=2",
    "mesh:dims=3x4,hosts=1",
    "hypercube:dim=3,hosts=2",
    "dragonfly:a=4,p=2,h=2",
    "random:switches=12,degree=3,hosts=2,seed=5",
};

static void test_oracle_generated(void)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ibr_topo *t = ibr_test_topo(ctx, specs[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
        cross_check(specs[i], t, r);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* small hand-built ones */
    ibr_topo *t = line(4);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    cross_check("line", t, r);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* LMC 1: all-to-all counts both LIDs of every port; with base_lid_only
   off the patterns spread sources over the destination's LIDs. */
static void test_oracle_lmc(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8,hosts=3"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    cross_check("lmc", t, r);
    ibr_analysis *a = analyze(t, r, 1, 3);
    ibr_analysis_summary s = summary(a);
    CU_ASSERT_EQUAL(s.pairs, 2 * (uint64_t)s.endports * (s.endports - 1));
    CU_ASSERT_EQUAL(s.all_to_all.flows, s.pairs);
    CU_ASSERT_EQUAL(s.shift.flows, (uint64_t)s.endports * (s.endports - 1));
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* Faults (unreachable pairs) and broken tables (unrouted flows). */
static void test_oracle_broken(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=4x4,hosts=2"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 6, 1, 7), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    cross_check("faults", t, ref);

    /* break a route: a host LID sent back where it came from (a loop), and
       one with no entry */
    uint32_t node;
    unsigned port;
    uint16_t lid = 0;
    for (uint16_t l = 1; l <= ibr_topo_max_lid(t) && !lid; l++) {
        if (ibr_topo_lid_owner(&node, &port, t, l) == 0 &&
            ibr_topo_node_switch(t, node) == IBR_NONE)
            lid = l;
    }
    CU_ASSERT_FATAL(lid != 0);
    uint32_t far = 0;
    unsigned best = 0, dport;
    uint32_t dsw = lid_switch(t, lid, &dport);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        unsigned d = ibr_topo_switch_distance(t, s, dsw);
        if (d != 255 && d > best) {
            best = d;
            far = s;
        }
    }
    cfg.brk_sw = far;
    cfg.brk_lid = lid;
    cfg.brk_port = IBR_NO_ROUTE;
    ibr_result *r = route_copy(t, ref, M_BREAK);
    cross_check("missing", t, r);
    ibr_analysis *a = analyze(t, r, 2, 10);
    ibr_analysis_summary s = summary(a);
    CU_ASSERT(s.pairs_routed < s.pairs);
    CU_ASSERT(s.shift.unrouted > 0);
    CU_ASSERT(s.all_to_all.unrouted > 0);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    /* a loop: the next switch on the way sends it back */
    unsigned p = ibr_result_lft_port(ref, far, lid);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, far), p);
    cfg.brk_sw = ibr_topo_node_switch(t, pi.remote_node);
    cfg.brk_port = pi.remote_port;
    r = route_copy(t, ref, M_BREAK);
    cross_check("loop", t, r);
    ibr_result_destroy(r);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* determinism, errors, allocation failure, reports                     */

static char *json_of(const ibr_analysis *a)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_analysis_write_json(&b, a), 0);
    char *s = strdup(b.data ? b.data : "");
    ibr_buffer_dispose(&b);
    return s;
}

static void test_threads(void)
{
    const char *sp[] = {"torus:dims=4x4x2,hosts=2", "random:switches=20,degree=4,hosts=3,seed=2",
                        "fattree:levels=3,radix=6"};
    for (size_t i = 0; i < 3; i++) {
        ibr_topo *t = ibr_test_topo(ctx, sp[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
        ibr_analysis *a1 = analyze(t, r, 1, 30);
        char *j1 = json_of(a1);
        ibr_analysis_summary s1 = summary(a1);
        for (unsigned th = 2; th <= 5; th++) {
            ibr_analysis *a = analyze(t, r, th, 30);
            char *j = json_of(a);
            CU_ASSERT_STRING_EQUAL(j, j1);
            ibr_analysis_summary s = summary(a);
            CU_ASSERT_EQUAL(memcmp(&s, &s1, sizeof s), 0);
            free(j);
            ibr_analysis_destroy(a);
        }
        /* another seed gives other random patterns, the same shifts */
        ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
        o.seed = 99;
        o.n_random = 30;
        ibr_analysis *a = NULL;
        CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), 0);
        ibr_analysis_summary s = summary(a);
        CU_ASSERT_EQUAL(memcmp(&s.shift, &s1.shift, sizeof s.shift), 0);
        CU_ASSERT(s.bisection.ebb != s1.bisection.ebb ||
                  s.bisection.mean_max_congestion != s1.bisection.mean_max_congestion);
        ibr_analysis_destroy(a);
        /* only some patterns */
        o.patterns = IBR_PATTERN_SHIFT;
        CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), 0);
        s = summary(a);
        CU_ASSERT_EQUAL(memcmp(&s.shift, &s1.shift, sizeof s.shift), 0);
        CU_ASSERT_EQUAL(s.all_to_all.patterns, 0);
        CU_ASSERT_EQUAL(s.permutation.patterns, 0);
        CU_ASSERT_EQUAL(s.bisection.patterns, 0);
        CU_ASSERT_EQUAL(s.max_link_load, s1.max_link_load);
        ibr_analysis_destroy(a);
        free(j1);
        ibr_analysis_destroy(a1);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

static void test_errors(void)
{
    ibr_topo *t = line(2);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analysis *a = NULL;
    CU_ASSERT_EQUAL(ibr_result_analyze(NULL, r, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, NULL, NULL), IBR_EINVAL);
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.version = 7;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EVERSION);
    o.version = IBR_ANALYZE_OPTIONS_VERSION;
    o.patterns = 0x10;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(a);
    /* NULL options are the defaults */
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, NULL), 0);
    ibr_analysis_summary s;
    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(&s, a), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(NULL, a), IBR_EINVAL);
    s.version = IBR_ANALYSIS_SUMMARY_VERSION;
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(&s, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(&s, a), 0);
    CU_ASSERT_EQUAL(s.version, IBR_ANALYSIS_SUMMARY_VERSION);
    CU_ASSERT_EQUAL(s.permutation.patterns, 100);
    CU_ASSERT_EQUAL(s.shift.patterns, 1);
    size_t need = 99;
    CU_ASSERT_EQUAL(ibr_analysis_hop_histogram(NULL, 0, &need, a), IBR_ERANGE);
    CU_ASSERT_EQUAL(need, 4);
    CU_ASSERT_EQUAL(ibr_analysis_link_loads(NULL, 0, &need, a), IBR_ERANGE);
    CU_ASSERT_EQUAL(need, 2);
    CU_ASSERT_EQUAL(ibr_analysis_link_loads(NULL, 0, &need, NULL), IBR_EINVAL);
    uint64_t vl[16];
    CU_ASSERT_EQUAL(ibr_analysis_vl_usage(vl, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_vl_usage_level(vl, NULL, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_qos_levels(NULL), 0);
    CU_ASSERT_EQUAL(ibr_analysis_write_json(NULL, a), IBR_EINVAL);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_analysis_write_text(&b, NULL), IBR_EINVAL);
    ibr_analysis_destroy(a);
    ibr_analysis_destroy(NULL);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* a fabric with a single end port: nothing to pair */
    t = line(1);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    a = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, NULL), 0);
    s = summary(a);
    CU_ASSERT_EQUAL(s.endports, 1);
    CU_ASSERT_EQUAL(s.pairs, 0);
    CU_ASSERT_EQUAL(s.links, 0);
    CU_ASSERT_EQUAL(s.shift.patterns, 0);
    CU_ASSERT_EQUAL(s.permutation.patterns, 0);
    CU_ASSERT_EQUAL(s.all_to_all.flows, 0);
    CU_ASSERT_DOUBLE_EQUAL(s.all_to_all.ebb, 1.0, EPS);
    char *js = json_of(a);
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"hop_histogram\": [0]"));
    free(js);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *c = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    ibr_engine e = {IBR_ENGINE_VERSION, "copy", NULL, 0, copy_fn, &cfg};
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(c, &e), 0);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, c), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=4"), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL, *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    /* with SL2VL tables, so that the VL scratch is allocated too */
    cfg.ref = ref;
    cfg.mode = M_VL_ONLY;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "copy,no_fallback", NULL), 0);
    for (int which = 0; which < 2; which++) {
        const ibr_result *res = which ? r : ref;
        long live = st.live;
        ibr_analysis *a = NULL;
        int rc = IBR_ENOMEM;
        long n;
        ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
        o.threads = 2;
        o.n_random = 3;
        for (n = 0; n < 1000 && rc == IBR_ENOMEM; n++) {
            st.fail_at = n;
            st.calls = 0;
            rc = ibr_result_analyze(&a, res, &o);
            if (rc == IBR_ENOMEM) {
                CU_ASSERT_PTR_NULL(a);
                CU_ASSERT_EQUAL(st.live, live);
            }
        }
        st.fail_at = -1;
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT(n > 10);
        /* the writers leave the buffer as it was when they fail */
        for (int w = 0; w < 2; w++) {
            ibr_buffer b = IBR_BUFFER_INIT;
            CU_ASSERT_EQUAL(ibr_analysis_write_text(&b, a), 0);
            char *before = strdup(b.data);
            size_t size = b.size;
            rc = IBR_ENOMEM;
            for (n = 0; n < 1000 && rc == IBR_ENOMEM; n++) {
                st.fail_at = n;
                st.calls = 0;
                rc = w ? ibr_analysis_write_json(&b, a) : ibr_analysis_write_text(&b, a);
                if (rc == IBR_ENOMEM) {
                    CU_ASSERT_EQUAL(b.size, size);
                    CU_ASSERT_STRING_EQUAL(b.data, before);
                }
            }
            st.fail_at = -1;
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT(b.size > size);
            free(before);
            ibr_buffer_dispose(&b);
        }
        ibr_analysis_destroy(a);
        CU_ASSERT_EQUAL(st.live, live);
    }
    ibr_result_destroy(r);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(c);
}

/* A tiny JSON validator: returns the position after one value, or NULL. */
static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_str(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
        p++;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *json_num(const char *p)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p > s ? p : NULL;
}

static const char *json_value(const char *p, int depth)
{
    if (depth > 32)
        return NULL;
    p = ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = json_str(ws(p));
                if (!p)
                    return NULL;
                p = ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = json_value(p, depth + 1);
            if (!p)
                return NULL;
            p = ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return json_str(p);
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    if (!strncmp(p, "null", 4))
        return p + 4;
    return json_num(p);
}

static int json_valid(const char *s)
{
    const char *p = json_value(s, 0);
    return p && *ws(p) == 0;
}

static void test_reports(void)
{
    /* the validator itself */
    CU_ASSERT(json_valid("{\"a\": [1, 2.5, -3e-05, true, null], \"b\": {}}"));
    CU_ASSERT(!json_valid("{\"a\": [1, 2,]}"));
    CU_ASSERT(!json_valid("{\"a\": 01}"));
    CU_ASSERT(!json_valid("{\"a\": nan}"));
    CU_ASSERT(!json_valid("{\"a\": 1} x"));

    ibr_topo *t = line(3);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analysis *a = analyze(t, r, 1, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    char *js = json_of(a);
    CU_ASSERT(json_valid(js));
    ibr_analysis_summary s = summary(a);
    char perm[256];
    snprintf(perm, sizeof perm,
             "  \"permutation\": {\"patterns\": 2, \"flows\": %llu, \"unrouted\": 0, "
             "\"max_congestion\": %llu, \"mean_max_congestion\": %.9g, "
             "\"congestion_free\": 2, \"ebb\": 1, \"ebb_bound\": 1, \"ebb_vs_bound\": 1},\n",
             (unsigned long long)s.permutation.flows,
             (unsigned long long)s.permutation.max_congestion,
             s.permutation.mean_max_congestion);
    char want[2048];
    snprintf(want, sizeof want,
             "{\n"
             "  \"engine\": \"minhop\",\n"
             "  \"options\": {\"patterns\": 15, \"n_random\": 2, \"seed\": 1, "
             "\"base_lid_only\": true},\n"
             "  \"endports\": 3,\n"
             "  \"pairs\": 6,\n"
             "  \"pairs_routed\": 6,\n"
             "  \"avg_hops\": 3.33333333,\n"
             "  \"max_hops\": 4,\n"
             "  \"avg_stretch\": 1,\n"
             "  \"max_stretch\": 1,\n"
             "  \"links\": 4,\n"
             "  \"max_link_load\": 2,\n"
             "  \"mean_link_load\": 2,\n"
             "  \"load_ratio\": 1,\n"
             "  \"vls_used\": 1,\n"
             "  \"all_to_all\": {\"patterns\": 1, \"flows\": 6, \"unrouted\": 0, "
             "\"max_congestion\": 2, \"mean_max_congestion\": 2, \"congestion_free\": 0, "
             "\"ebb\": 0.5, \"ebb_bound\": 0.666666667, \"ebb_vs_bound\": 0.75},\n"
             "  \"shift\": {\"patterns\": 2, \"flows\": 6, \"unrouted\": 0, "
             "\"max_congestion\": 1, \"mean_max_congestion\": 1, \"congestion_free\": 2, "
             "\"ebb\": 1, \"ebb_bound\": 1, \"ebb_vs_bound\": 1},\n"
             "%s"
             "  \"bisection\": {\"patterns\": 2, \"flows\": 4, \"unrouted\": 0, "
             "\"max_congestion\": 1, \"mean_max_congestion\": 1, \"congestion_free\": 2, "
             "\"ebb\": 1, \"ebb_bound\": 1, \"ebb_vs_bound\": 1},\n"
             "  \"hop_histogram\": [0, 0, 0, 4, 2],\n"
             "  \"vl_usage\": [6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],\n"
             "  \"qos_levels\": 1,\n"
             "  \"vl_usage_levels\": [[6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]\n"
             "}\n",
             perm);
    CU_ASSERT_STRING_EQUAL(js, want);
    if (strcmp(js, want))
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", js, want);
    free(js);

    /* appends to what the buffer holds */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_analysis_write_text(&b, a), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "routing minhop: 3 end ports, 4 directed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "paths: 6 of 6 routed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "hops: 3:4 4:2\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "VLs used: 1 (paths per VL: VL0 6)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "\nshift "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "      eBB    bound eBB/bound\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "   0.5000   0.6667    0.7500\n"));
    size_t n = b.size;
    CU_ASSERT_EQUAL(ibr_analysis_write_json(&b, a), 0);
    CU_ASSERT(b.size > n);
    CU_ASSERT(json_valid(b.data + n));
    ibr_buffer_dispose(&b);
    ibr_analysis_destroy(a);

    /* every generated family gives valid JSON */
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ibr_topo *tt = ibr_test_topo(ctx, specs[i]);
        ibr_result *rr = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&rr, tt, "minhop", NULL), 0);
        ibr_analysis *aa = analyze(tt, rr, 0, 3);
        char *j = json_of(aa);
        CU_ASSERT(json_valid(j));
        free(j);
        ibr_analysis_destroy(aa);
        ibr_result_destroy(rr);
        ibr_topo_destroy(tt);
    }
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}


/* ------------------------------------------------------------------ */
/* the eBB bound                                                        */

static double bound_of(const ibr_analysis *a, unsigned pattern)
{
    double b = -1.0;
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(&b, a, pattern), 0);
    return b;
}

/* A 2-level tree: leaves L0, L1 (nodes 0, 1), spines S0, S1 (nodes 2, 3),
   every leaf cabled to every spine (leaf port 1 + spine, spine port 1 +
   leaf) except L0-S0 when cut; hosts 0..3 (nodes 4..7), host i on leaf
   i / 2. */
static const unsigned tree2_links[4][2] = {{0, 2}, {0, 3}, {1, 2}, {1, 3}};

static ibr_topo *tree2(int cut)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    for (unsigned i = 0; i < 4; i++)
        ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, (uint64_t)(i + 1) << 56, 4, "sw");
    for (unsigned l = cut ? 1 : 0; l < 4; l++)
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, tree2_links[l][0], 1 + tree2_links[l][1] - 2,
                                                  tree2_links[l][1], 1 + tree2_links[l][0], NULL),
                              0);
    for (unsigned i = 0; i < 4; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, 4 + i, 1, i / 2, 3 + i % 2, NULL), 0);
        ibr_fabric_set_lid(f, 4 + i, 1, (uint16_t)(10 + i), 0);
        ibr_fabric_set_lid(f, i, 0, (uint16_t)(1 + i), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* Brute force: the best sum of shares over every choice of a simple
   switch path per flow (a superset of what forwarding tables can do), in
   the model of analyze.h. Switches 0..ns-1, undirected cables in links. */
enum { BF_MAXP = 16, BF_MAXF = 8, BF_MAXS = 8 };
typedef struct bf {
    unsigned ns, nl, nf;
    const unsigned (*links)[2];
    unsigned np[BF_MAXF];
    unsigned plen[BF_MAXF][BF_MAXP];
    unsigned path[BF_MAXF][BF_MAXP][BF_MAXS]; /* directed link ids: 2 * cable + dir */
    unsigned choice[BF_MAXF];
    unsigned cnt[2 * 16];
    double best;
} bf;

static void bf_paths(bf *b, unsigned f, unsigned at, unsigned dst, unsigned *seen, unsigned *cur,
                     unsigned len)
{
    if (at == dst) {
        CU_ASSERT_FATAL(b->np[f] < BF_MAXP);
        b->plen[f][b->np[f]] = len;
        memcpy(b->path[f][b->np[f]++], cur, len * sizeof *cur);
        return;
    }
    for (unsigned l = 0; l < b->nl; l++)
        for (unsigned d = 0; d < 2; d++)
            if (b->links[l][d] == at && !(*seen & (1u << b->links[l][!d]))) {
                *seen |= 1u << b->links[l][!d];
                cur[len] = 2 * l + d;
                bf_paths(b, f, b->links[l][!d], dst, seen, cur, len + 1);
                *seen &= ~(1u << b->links[l][!d]);
            }
}

static void bf_search(bf *b, unsigned f)
{
    if (f == b->nf) {
        double sum = 0.0;
        for (unsigned g = 0; g < b->nf; g++) {
            unsigned m = 0;
            for (unsigned i = 0; i < b->plen[g][b->choice[g]]; i++)
                if (b->cnt[b->path[g][b->choice[g]][i]] > m)
                    m = b->cnt[b->path[g][b->choice[g]][i]];
            sum += m ? 1.0 / m : 1.0;
        }
        if (sum > b->best)
            b->best = sum;
        return;
    }
    for (unsigned p = 0; p < b->np[f]; p++) {
        b->choice[f] = p;
        for (unsigned i = 0; i < b->plen[f][p]; i++)
            b->cnt[b->path[f][p][i]]++;
        bf_search(b, f + 1);
        for (unsigned i = 0; i < b->plen[f][p]; i++)
            b->cnt[b->path[f][p][i]]--;
    }
}

/* Best eBB over all routings of the shift patterns of n hosts, host i on
   switch host_sw[i]. */
static double bf_shift_ebb(unsigned ns, const unsigned (*links)[2], unsigned nl,
                           const unsigned *host_sw, unsigned n)
{
    double total = 0.0;
    for (unsigned k = 1; k < n; k++) {
        bf b;
        memset(&b, 0, sizeof b);
        b.ns = ns;
        b.nl = nl;
        b.links = links;
        b.nf = n;
        for (unsigned i = 0; i < n; i++) {
            unsigned cur[BF_MAXS], seen = 1u << host_sw[i];
            bf_paths(&b, i, host_sw[i], host_sw[(i + k) % n], &seen, cur, 0);
        }
        bf_search(&b, 0);
        total += b.best / n;
    }
    return total / (n - 1);
}

static const char *const bound_engines[] = {"minhop", "updn", "dnup", "ftree", "sssp",
                                            "dfsssp", "lash", "nue", "dor", "torus-2QoS"};

/* Route t with every engine that takes it; check eBB <= bound for every
   family; return the best shift eBB (or -1 when no engine routed). */
static double ebb_within_bound(const char *what, const ibr_topo *t, unsigned n_random)
{
    static const unsigned fam[4] = {IBR_PATTERN_ALL_TO_ALL, IBR_PATTERN_SHIFT,
                                    IBR_PATTERN_PERMUTATION, IBR_PATTERN_BISECTION};
    double best = -1.0, ref[4] = {-1, -1, -1, -1};
    for (size_t e = 0; e < sizeof bound_engines / sizeof bound_engines[0]; e++) {
        ibr_result *r = NULL;
        char chain[64];
        snprintf(chain, sizeof chain, "%s,no_fallback", bound_engines[e]);
        if (ibr_route(&r, t, chain, NULL) < 0) {
            ibr_result_destroy(r);
            continue;
        }
        ibr_analysis *a = analyze(t, r, 0, n_random);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        ibr_analysis_summary s = summary(a);
        const ibr_pattern_stats *ps[4] = {&s.all_to_all, &s.shift, &s.permutation,
                                          &s.bisection};
        for (unsigned i = 0; i < 4; i++) {
            double b = bound_of(a, fam[i]);
            CU_ASSERT(b >= 0.0 && b <= 1.0);
            CU_ASSERT(ps[i]->ebb <= b + 1e-9);
            if (ps[i]->ebb > b + 1e-9)
                fprintf(stderr, "%s, %s, family %u: eBB %.9g above its bound %.9g\n", what,
                        bound_engines[e], i, ps[i]->ebb, b);
            /* the bound does not depend on the routing */
            if (ref[i] < 0)
                ref[i] = b;
            CU_ASSERT_DOUBLE_EQUAL(b, ref[i], EPS);
        }
        if (s.shift.ebb > best)
            best = s.shift.ebb;
        ibr_analysis_destroy(a);
        ibr_result_destroy(r);
    }
    return best;
}

/* The 2-level tree with one up cable lost: shift 2 sends both hosts of
   L0 to L1 over L0's one remaining cable and back, every flow gets 1/2;
   shifts 1 and 3 cross once each way. The bound is 5/6, what brute force
   over every path choice finds and what every engine reaches. Intact, it
   is 1. */
static void test_bound_hand(void)
{
    static const unsigned host_sw[4] = {0, 0, 1, 1};
    for (int cut = 0; cut < 2; cut++) {
        ibr_topo *t = tree2(cut);
        double opt = bf_shift_ebb(4, tree2_links + cut, 4 - (unsigned)cut, host_sw, 4);
        CU_ASSERT_DOUBLE_EQUAL(opt, cut ? 5.0 / 6 : 1.0, EPS);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
        ibr_analysis *a = analyze(t, r, 1, 20);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_DOUBLE_EQUAL(bound_of(a, IBR_PATTERN_SHIFT), opt, EPS);
        ibr_analysis_summary s = summary(a);
        CU_ASSERT_DOUBLE_EQUAL(s.shift.ebb, opt, EPS);
        /* all-to-all: 12 flows, 4 inside a leaf; a leaf sends 4 flows out
           over its 2 cables (cut: L0 over 1), so 2 + 2 (cut: 3 + 2) of them
           lose their share; minhop reaches it intact */
        CU_ASSERT_DOUBLE_EQUAL(bound_of(a, IBR_PATTERN_ALL_TO_ALL), cut ? 7 / 12.0 : 8 / 12.0,
                               EPS);
        if (!cut)
            CU_ASSERT_DOUBLE_EQUAL(s.all_to_all.ebb, 8 / 12.0, EPS);
        ibr_analysis_destroy(a);
        ibr_result_destroy(r);
        CU_ASSERT(ebb_within_bound(cut ? "tree2 cut" : "tree2", t, 20) >= opt - EPS);
        ibr_topo_destroy(t);
    }

    /* accessor errors */
    ibr_topo *t = line(3);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.patterns = IBR_PATTERN_SHIFT;
    ibr_analysis *a = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
    double b = 7.0;
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(NULL, a, IBR_PATTERN_SHIFT), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(&b, NULL, IBR_PATTERN_SHIFT), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(&b, a, IBR_PATTERN_SHIFT | IBR_PATTERN_BISECTION),
                    IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(&b, a, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(&b, a, IBR_PATTERN_PERMUTATION), IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(b, 7.0);
    CU_ASSERT_EQUAL(ibr_analysis_ebb_bound(&b, a, IBR_PATTERN_SHIFT), 0);
    CU_ASSERT_DOUBLE_EQUAL(b, 1.0, EPS);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* eBB <= bound for every engine that routes, on intact and degraded fat
   trees, tori, meshes, a dragonfly and random graphs; on intact fat trees
   ftree's shift reaches the bound, 1. */
static void test_bound_engines(void)
{
    static const struct {
        const char *spec;
        unsigned links, switches;
        uint64_t seed;
    } fabrics[] = {
        {"fattree:levels=2,radix=8", 0, 0, 1},
        {"fattree:levels=3,radix=4", 0, 0, 1},
        {"xgft:h=2,m=4.6,w=1.4", 0, 0, 1},
        {"xgft:h=3,m=3.3.4,w=1.3.3", 0, 0, 1},
        {"fattree:levels=2,radix=8", 3, 0, 1},
        {"fattree:levels=2,radix=8", 2, 1, 2},
        {"fattree:levels=3,radix=4", 2, 0, 3},
        {"fattree:levels=3,radix=4", 3, 1, 4},
        {"xgft:h=2,m=4.6,w=1.4", 4, 0, 5},
        {"xgft:h=3,m=3.3.4,w=1.3.3", 5, 1, 6},
        {"xgft:h=3,m=3.3.4,w=1.3.3", 8, 0, 7},
        {"xgft:h=2,m=3.4,w=1.3", 2, 0, 8},
        {"torus:dims=3x3,hosts=2", 0, 0, 1},
        {"torus:dims=4x3,hosts=2", 2, 0, 9},
        {"torus:dims=4x2x2,hosts=1,parallel=2", 3, 0, 10},
        {"mesh:dims=3x4,hosts=2", 1, 0, 11},
        {"dragonfly:a=4,p=2,h=2", 0, 0, 1},
        {"random:switches=12,degree=3,hosts=2,seed=5", 0, 0, 1},
        {"random:switches=14,degree=4,hosts=3,seed=6", 3, 0, 12},
        {"random:switches=10,degree=3,hosts=2,seed=7", 2, 1, 13},
    };
    for (size_t i = 0; i < sizeof fabrics / sizeof fabrics[0]; i++) {
        ibr_topo *t = ibr_test_topo_faults(fabrics[i].spec, fabrics[i].links, fabrics[i].switches,
                                           fabrics[i].seed, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        char what[128];
        snprintf(what, sizeof what, "%s faults %u,%u seed %llu", fabrics[i].spec, fabrics[i].links,
                 fabrics[i].switches, (unsigned long long)fabrics[i].seed);
        CU_ASSERT(ebb_within_bound(what, t, 10) >= 0.0);
        if (!fabrics[i].links && !fabrics[i].switches && !strncmp(fabrics[i].spec, "fattree", 7)) {
            ibr_result *r = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "ftree,no_fallback", NULL), 0);
            ibr_analysis *a = analyze(t, r, 0, 10);
            ibr_analysis_summary s = summary(a);
            CU_ASSERT_DOUBLE_EQUAL(bound_of(a, IBR_PATTERN_SHIFT), 1.0, EPS);
            CU_ASSERT_DOUBLE_EQUAL(s.shift.ebb, 1.0, EPS);
            CU_ASSERT_DOUBLE_EQUAL(bound_of(a, IBR_PATTERN_PERMUTATION), 1.0, EPS);
            ibr_analysis_destroy(a);
            ibr_result_destroy(r);
        }
        ibr_topo_destroy(t);
    }
}

/* Cables removed one after another: the bound of every family never
   rises (the patterns stay the same: no end port is lost). */
static void test_bound_monotone(void)
{
    static const char *const sp[] = {"xgft:h=3,m=3.3.4,w=1.3.3", "fattree:levels=2,radix=8",
                                     "torus:dims=3x3,hosts=2"};
    static const unsigned fam[4] = {IBR_PATTERN_ALL_TO_ALL, IBR_PATTERN_SHIFT,
                                    IBR_PATTERN_PERMUTATION, IBR_PATTERN_BISECTION};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, sp[i]), 0);
        /* the switch-to-switch cables, each once */
        uint32_t cn[256];
        unsigned cp[256], nc = 0;
        for (uint32_t n = 0; n < ibr_fabric_node_count(f); n++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, n), 0);
            if (ni.type != IBR_NODE_SWITCH)
                continue;
            for (unsigned p = 1; p <= ni.nports; p++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_node_info ri = IBR_NODE_INFO_INIT;
                if (ibr_fabric_port_info(&pi, f, n, p) < 0 || pi.remote_node == IBR_NONE ||
                    pi.remote_node < n ||
                    ibr_fabric_node_info(&ri, f, pi.remote_node) < 0 ||
                    ri.type != IBR_NODE_SWITCH || nc == 256)
                    continue;
                cn[nc] = n;
                cp[nc++] = p;
            }
        }
        double prev[4] = {2, 2, 2, 2};
        uint64_t g = 0x9e3779b97f4a7c15ULL * (i + 1);
        for (unsigned step = 0; step < 10 && nc; step++) {
            ibr_topo *t = NULL;
            ibr_fabric *c = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&c, f), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, c), 0);
            ibr_fabric_destroy(c);
            ibr_result *r = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
            ibr_analysis *a = analyze(t, r, 0, 10);
            CU_ASSERT_PTR_NOT_NULL_FATAL(a);
            for (unsigned k = 0; k < 4; k++) {
                double b = bound_of(a, fam[k]);
                CU_ASSERT(b <= prev[k] + 1e-12);
                if (b > prev[k] + 1e-12)
                    fprintf(stderr, "%s step %u family %u: bound rose from %.9g to %.9g\n",
                            sp[i], step, k, prev[k], b);
                prev[k] = b;
            }
            ibr_analysis_destroy(a);
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            /* lose one more cable */
            g = g * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned x = (unsigned)((g >> 33) % nc);
            CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, cn[x], cp[x], IBR_LINK_DOWN), 0);
            cn[x] = cn[--nc];
            cp[x] = cp[nc];
        }
        ibr_fabric_destroy(f);
    }
}

int main(void)
{
    if (ibr_context_create(&ctx, NULL) < 0)
        return 2;
    ibr_engine e = {IBR_ENGINE_VERSION, "copy", "copies a reference routing", 0, copy_fn, &cfg};
    if (ibr_context_register_engine(ctx, &e) < 0)
        return 2;
    CU_TestInfo tests[] = {
        {"line of three switches", test_line},
        {"two switches, parallel cables", test_two_switches},
        {"2-level fat tree", test_fat_tree},
        {"VL usage from SLs and SL2VL", test_vls},
        {"oracle and verify on generated fabrics", test_oracle_generated},
        {"oracle with LMC", test_oracle_lmc},
        {"oracle on faults and broken tables", test_oracle_broken},
        {"same numbers on any thread count", test_threads},
        {"argument errors and edge fabrics", test_errors},
        {"allocation failure", test_oom},
        {"JSON and text reports", test_reports},
        {"eBB bound by hand and brute force", test_bound_hand},
        {"eBB within the bound, every engine", test_bound_engines},
        {"eBB bound never rises as cables go", test_bound_monotone},
        CU_TEST_INFO_NULL,
    };
    int rc = ibr_test_main("analyze", tests);
    ibr_context_destroy(ctx);
    return rc;
}
