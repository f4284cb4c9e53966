/* Workloads of ibr_result_analyze() over a rank order: every pattern
   against a brute-force count written here (flows built from the
   definitions, walked hop by hop through ibr_result_lft_port(), per-link
   counts), the analytic values on intact fat trees routed by ftree in
   ftree's own rank order, the rank-order parser, and argument errors. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ------------------------------------------------------------------ */
/* the oracle                                                           */

typedef struct ep {
    uint64_t guid;
    uint32_t node, sw_node;
    unsigned port, sw_port;
    uint16_t lid;
    long rail; /* -1: the description ends in no number */
} ep;

/* The end ports as the analysis numbers them: CA and router ports with a
   LID, actively cabled to a switch, in node then port order. */
static size_t end_ports(ep **out, const ibr_topo *t)
{
    size_t n = 0;
    ep *v = calloc(ibr_topo_endport_count(t) + 1, sizeof *v);
    for (uint32_t nd = 0; nd < ibr_topo_node_count(t); nd++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, nd);
        if (ni.type == IBR_NODE_SWITCH)
            continue;
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_topo_port_info(&pi, t, nd, p) < 0 || !pi.lid || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE || ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                continue;
            ep *e = &v[n++];
            e->guid = pi.guid;
            e->node = nd;
            e->port = p;
            e->lid = pi.lid;
            e->sw_node = pi.remote_node;
            e->sw_port = pi.remote_port;
            /* the rail: the number ending the description's last word */
            size_t len = strlen(ni.desc), b;
            while (len && ni.desc[len - 1] == ' ')
                len--;
            for (b = len; b > 0 && ni.desc[b - 1] >= '0' && ni.desc[b - 1] <= '9'; b--)
                ;
            e->rail = b < len && len - b <= 6 ? strtol(ni.desc + b, NULL, 10) : -1;
        }
    }
    *out = v;
    return n;
}

typedef struct flow {
    uint32_t src, dst; /* end ports */
} flow;

/* Numbers of one workload, as the analysis reports them. */
typedef struct tally {
    unsigned patterns;
    uint64_t flows, unrouted, max, cong, routed;
    double ebb_sum, worst;
} tally;

#define MAXHOP 64

/* Walk every flow of one pattern, count flows per directed switch link
   (switch node x 256 + port), and add the pattern to *y. */
static void count_pattern(tally *y, const ibr_topo *t, const ibr_result *r, const ep *e,
                          const flow *f, size_t nf)
{
    size_t nl = (size_t)ibr_topo_node_count(t) * 256;
    uint32_t *cnt = calloc(nl, sizeof *cnt);
    uint32_t (*path)[MAXHOP] = calloc(nf ? nf : 1, sizeof *path);
    int *len = calloc(nf ? nf : 1, sizeof *len);
    for (size_t i = 0; i < nf; i++) {
        const ep *s = &e[f[i].src], *d = &e[f[i].dst];
        uint32_t cur = s->sw_node;
        len[i] = -1;
        for (int h = 0; h < MAXHOP; h++) {
            unsigned p = ibr_result_lft_port(r, ibr_topo_node_switch(t, cur), d->lid);
            if (cur == d->sw_node && p == d->sw_port) {
                len[i] = h;
                break;
            }
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (p == 0 || p == IBR_NO_ROUTE || ibr_topo_port_info(&pi, t, cur, p) < 0 ||
                pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE ||
                ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                break;
            path[i][h] = cur * 256 + p;
            cur = pi.remote_node;
        }
        for (int h = 0; h < len[i]; h++)
            cnt[path[i][h]]++;
    }
    double share = 0.0;
    uint64_t max = 0;
    for (size_t l = 0; l < nl; l++)
        if (cnt[l] > max)
            max = cnt[l];
    for (size_t i = 0; i < nf; i++) {
        if (len[i] < 0) {
            y->unrouted++;
            continue;
        }
        uint32_t c = 0;
        for (int h = 0; h < len[i]; h++)
            if (cnt[path[i][h]] > c)
                c = cnt[path[i][h]];
        share += c ? 1.0 / c : 1.0;
        y->cong += c;
        y->routed++;
    }
    double ebb = nf ? share / (double)nf : 1.0;
    y->patterns++;
    y->flows += nf;
    y->ebb_sum += ebb;
    if (y->patterns == 1 || ebb < y->worst)
        y->worst = ebb;
    if (max > y->max)
        y->max = max;
    free(cnt);
    free(path);
    free(len);
}

/* Recursive doubling step k among the ranks g[0..m-1] (end ports via re). */
static size_t rd_flows(flow *f, const uint32_t *re, const uint32_t *g, size_t m, unsigned k)
{
    size_t nf = 0;
    for (size_t i = 0; i < m; i++)
        if ((i ^ ((size_t)1 << k)) < m)
            f[nf++] = (flow){re[g[i]], re[g[i ^ ((size_t)1 << k)]]};
    return nf;
}

static unsigned log2_ceil(size_t m)
{
    unsigned k = 0;
    while (((size_t)1 << k) < m)
        k++;
    return k;
}

/* The ranks of each rail, ranks in order: rails[r] lists them, *nr rails.
   0 when some rank has no rail. */
static int group_rails(uint32_t **rails, size_t *rsz, size_t *nr, const ep *e, const uint32_t *re,
                       size_t n)
{
    long seen[64];
    *nr = 0;
    for (size_t i = 0; i < n; i++) {
        long rl = e[re[i]].rail;
        if (rl < 0)
            return 0;
        size_t k = 0;
        while (k < *nr && seen[k] != rl)
            k++;
        if (k == *nr) {
            CU_ASSERT_FATAL(*nr < 64);
            seen[(*nr)++] = rl;
        }
    }
    /* rails in ascending number */
    for (size_t a = 0; a < *nr; a++)
        for (size_t b = a + 1; b < *nr; b++)
            if (seen[b] < seen[a]) {
                long x = seen[a];
                seen[a] = seen[b];
                seen[b] = x;
            }
    for (size_t k = 0; k < *nr; k++) {
        rsz[k] = 0;
        for (size_t i = 0; i < n; i++)
            if (e[re[i]].rail == seen[k])
                rails[k][rsz[k]++] = (uint32_t)i;
    }
    return 1;
}

/* The oracle's numbers of one workload bit over the ranks re[0..n-1]. */
static int oracle(tally *y, unsigned bit, const ibr_topo *t, const ibr_result *r, const ep *e,
                  const uint32_t *re, size_t n, const unsigned grid[3], unsigned moe_g)
{
    memset(y, 0, sizeof *y);
    flow *f = calloc(8 * n + 1, sizeof *f);
    uint32_t *id = calloc(n + 1, sizeof *id);
    for (size_t i = 0; i < n; i++)
        id[i] = (uint32_t)i;
    size_t nf = 0;
    int applies = n >= 2;
    if (bit == IBR_WORKLOAD_RING && applies) {
        for (size_t i = 0; i < n; i++)
            f[nf++] = (flow){re[i], re[(i + 1) % n]};
        count_pattern(y, t, r, e, f, nf);
    } else if (bit == IBR_WORKLOAD_RD && applies) {
        for (unsigned k = 0; k < log2_ceil(n); k++)
            count_pattern(y, t, r, e, f, rd_flows(f, re, id, n, k));
    } else if (bit == IBR_WORKLOAD_RAIL_RING || bit == IBR_WORKLOAD_RAIL_RD) {
        uint32_t *rails[64];
        size_t rsz[64], nr, most = 0;
        for (int k = 0; k < 64; k++)
            rails[k] = calloc(n + 1, sizeof *rails[k]);
        applies = applies && group_rails(rails, rsz, &nr, e, re, n);
        for (size_t k = 0; applies && k < nr; k++)
            most = rsz[k] > most ? rsz[k] : most;
        if (applies && bit == IBR_WORKLOAD_RAIL_RING) {
            for (size_t k = 0; k < nr; k++)
                for (size_t i = 0; i < rsz[k] && rsz[k] > 1; i++)
                    f[nf++] = (flow){re[rails[k][i]], re[rails[k][(i + 1) % rsz[k]]]};
            count_pattern(y, t, r, e, f, nf);
        } else if (applies) {
            applies = most >= 2;
            for (unsigned s = 0; s < log2_ceil(most); s++) {
                nf = 0;
                for (size_t k = 0; k < nr; k++)
                    nf += rd_flows(f + nf, re, rails[k], rsz[k], s);
                count_pattern(y, t, r, e, f, nf);
            }
        }
        for (int k = 0; k < 64; k++)
            free(rails[k]);
    } else if (bit == IBR_WORKLOAD_MOE && applies) {
        /* fanout moe_g - 1: every rank to every other rank of its group */
        for (size_t b = 0; b < n; b += moe_g)
            for (size_t i = b; i < n && i < b + moe_g; i++)
                for (size_t j = b; j < n && j < b + moe_g; j++)
                    if (i != j)
                        f[nf++] = (flow){re[i], re[j]};
        count_pattern(y, t, r, e, f, nf);
    } else if (bit == IBR_WORKLOAD_GRID && applies) {
        unsigned d[3] = {grid[0], grid[1], grid[2] ? grid[2] : 1};
        if (!grid[0]) {
            d[0] = 1;
            for (unsigned a = 1; (size_t)a * a <= n; a++)
                if (n % a == 0)
                    d[0] = a;
            d[1] = (unsigned)(n / d[0]);
            d[2] = 1;
        }
        for (unsigned x = 0; x < d[0]; x++)
            for (unsigned yy = 0; yy < d[1]; yy++)
                for (unsigned z = 0; z < d[2]; z++) {
                    unsigned c[3] = {x, yy, z};
                    size_t me = ((size_t)x * d[1] + yy) * d[2] + z;
                    for (unsigned a = 0; a < 3; a++) {
                        unsigned nb[2] = {(c[a] + 1) % d[a], (c[a] + d[a] - 1) % d[a]};
                        for (unsigned s = 0; s < 2; s++) {
                            if (nb[s] == c[a] || (s == 1 && nb[1] == nb[0]))
                                continue;
                            unsigned o[3] = {x, yy, z};
                            o[a] = nb[s];
                            f[nf++] = (flow){re[me], re[((size_t)o[0] * d[1] + o[1]) * d[2] + o[2]]};
                        }
                    }
                }
        count_pattern(y, t, r, e, f, nf);
    } else if (bit == IBR_WORKLOAD_SHIFT && applies) {
        for (size_t k = 1; k < n; k++) {
            for (size_t i = 0; i < n; i++)
                f[i] = (flow){re[i], re[(i + k) % n]};
            count_pattern(y, t, r, e, f, n);
        }
    } else {
        applies = 0;
    }
    free(f);
    free(id);
    return applies && y->patterns;
}

/* A seeded shuffle of the end ports, the first n of them as the ranks. */
static void shuffled(uint32_t *re, size_t nep, uint64_t seed)
{
    for (size_t i = 0; i < nep; i++)
        re[i] = (uint32_t)i;
    for (size_t i = nep; i > 1; i--) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t k = (size_t)((seed >> 33) % i);
        uint32_t x = re[i - 1];
        re[i - 1] = re[k];
        re[k] = x;
    }
}

static const unsigned oracle_bits[] = {IBR_WORKLOAD_RING, IBR_WORKLOAD_RD, IBR_WORKLOAD_RAIL_RING,
                                       IBR_WORKLOAD_RAIL_RD, IBR_WORKLOAD_MOE, IBR_WORKLOAD_GRID,
                                       IBR_WORKLOAD_SHIFT};

/* The analysis of r over ranks re[0..n-1] against the oracle, workload by
   workload; also the same numbers on 1 and 3 threads. */
static void check_fabric(const char *spec, unsigned faults, const char *engine, size_t drop,
                         unsigned g0, unsigned g1, unsigned g2)
{
    ibr_topo *t = faults ? ibr_test_topo_faults(spec, faults, 0, 3, 0) : ibr_test_topo(NULL, spec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, engine, NULL), 0);
    ep *e;
    size_t nep = end_ports(&e, t);
    uint32_t *re = calloc(nep + 1, sizeof *re);
    uint64_t *guids = calloc(nep + 1, sizeof *guids);
    shuffled(re, nep, 11 + nep);
    size_t n = nep - drop; /* a subset of the end ports as the ranks */
    for (size_t i = 0; i < n; i++)
        guids[i] = e[re[i]].guid;
    unsigned grid[3] = {g0, g1, g2};
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
        o.patterns = IBR_PATTERN_ALL_TO_ALL;
        o.workloads = IBR_WORKLOAD_ALL & ~(unsigned)IBR_WORKLOAD_PERMUTATION;
        o.rank_guids = guids;
        o.n_ranks = n;
        memcpy(o.grid, grid, sizeof grid);
        o.moe_group = 4;
        o.moe_fanout = 3; /* = the group less one: every other member */
        o.threads = threads;
        o.n_random = 1; /* the MoE pattern, deterministic here, once */
        ibr_analysis *a = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
        size_t w = 0;
        for (size_t b = 0; b < sizeof oracle_bits / sizeof oracle_bits[0]; b++) {
            tally y;
            if (!oracle(&y, oracle_bits[b], t, r, e, re, n, grid, 4)) {
                if (oracle_bits[b] == IBR_WORKLOAD_RAIL_RING || oracle_bits[b] == IBR_WORKLOAD_RAIL_RD)
                    continue; /* no rails: the analysis leaves it out too */
                CU_FAIL("oracle: workload does not apply");
                continue;
            }
            if (oracle_bits[b] == IBR_WORKLOAD_MOE) {
                /* all-to-all comes before MoE in bit order */
                const char *nm;
                ibr_pattern_stats st;
                ibr_analysis_summary s = IBR_ANALYSIS_SUMMARY_INIT;
                ibr_analysis_summary_get(&s, a);
                CU_ASSERT_EQUAL(ibr_analysis_workload(&nm, &st, NULL, a, w), 0);
                CU_ASSERT_STRING_EQUAL(nm, "all_to_all");
                CU_ASSERT_EQUAL(st.max_congestion, s.all_to_all.max_congestion);
                CU_ASSERT_DOUBLE_EQUAL(st.ebb, s.all_to_all.ebb, 1e-12);
                w++;
            }
            const char *name = NULL;
            ibr_pattern_stats st;
            double bound = -1.0;
            CU_ASSERT_EQUAL_FATAL(ibr_analysis_workload(&name, &st, &bound, a, w), 0);
            w++;
            CU_ASSERT_EQUAL(st.patterns, y.patterns);
            CU_ASSERT_EQUAL(st.flows, y.flows);
            CU_ASSERT_EQUAL(st.unrouted, y.unrouted);
            CU_ASSERT_EQUAL(st.max_congestion, y.max);
            CU_ASSERT_DOUBLE_EQUAL(st.ebb, y.ebb_sum / y.patterns, 1e-12);
            CU_ASSERT(st.ebb <= bound + 1e-12);
            CU_ASSERT(bound <= 1.0 + 1e-12);
            if (st.max_congestion != y.max || fabs(st.ebb - y.ebb_sum / y.patterns) > 1e-12)
                fprintf(stderr, "%s %s: analysis max %llu eBB %.6f, oracle max %llu eBB %.6f\n",
                        spec, name, (unsigned long long)st.max_congestion, st.ebb,
                        (unsigned long long)y.max, y.ebb_sum / y.patterns);
        }
        CU_ASSERT_EQUAL(ibr_analysis_workload_count(a), w);
        CU_ASSERT_EQUAL(ibr_analysis_workload(NULL, NULL, NULL, a, w), IBR_ERANGE);
        ibr_analysis_destroy(a);
    }
    free(e);
    free(re);
    free(guids);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_oracle(void)
{
    check_fabric("fattree:levels=2,radix=4", 0, "ftree", 0, 2, 4, 0);
    check_fabric("fattree:levels=3,radix=4", 2, "updn", 3, 0, 0, 0);
    check_fabric("torus:dims=3x3,hosts=2", 0, "minhop", 0, 3, 3, 2);
    check_fabric("random:switches=10,degree=3,hosts=2,seed=7", 0, "minhop", 1, 0, 0, 0);
    check_fabric("rail:nodes=8,rails=2,su=4,radix=8,levels=2", 0, "ftree", 0, 2, 2, 4);
    check_fabric("rail:nodes=12,rails=3,su=4,radix=12,levels=2", 0, "minhop", 5, 0, 0, 0);
}

/* The limiting links and steps in the JSON against the oracle: the first
   link carries the workload's most congested pattern's maximum, and the
   steps of recursive doubling are its patterns. */
static void test_json(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "rail:nodes=8,rails=2,su=4,radix=8,levels=2");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.patterns = IBR_PATTERN_SHIFT;
    o.workloads = IBR_WORKLOAD_RD | IBR_WORKLOAD_MOE;
    o.n_random = 4;
    o.top_links = 3;
    ibr_analysis *a = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_analysis_write_json(&b, a), 0);
    const char *js = b.data;
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"ranks\": 16,\n  \"workload_options\": {\"workloads\": 34, "
                                      "\"rails\": 0, \"grid\": [0, 0, 0], \"moe_group\": 8, "
                                      "\"moe_fanout\": 2, \"n_random\": 4, \"seed\": 1},\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "\"workloads\": [\n    {\"name\": "
                                      "\"recursive_doubling\", \"patterns\": 4,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "{\"step\": 3, \"flows\": 16,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(js, "{\"name\": \"moe\", \"patterns\": 4,"));
    /* three links per workload, most flows first */
    size_t links = 0;
    for (const char *p = js; (p = strstr(p, "\"peer_guid\"")); p++)
        links++;
    CU_ASSERT_EQUAL(links, 6);
    ibr_pattern_stats st;
    CU_ASSERT_EQUAL(ibr_analysis_workload(NULL, &st, NULL, a, 0), 0);
    char want[64];
    snprintf(want, sizeof want, "\"flows\": %llu}", (unsigned long long)st.max_congestion);
    const char *ll = strstr(js, "\"limiting_links\": [");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ll);
    const char *first = strstr(ll, "\"flows\": ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_EQUAL(strncmp(first, want, strlen(want)), 0);
    ibr_buffer_dispose(&b);
    CU_ASSERT_EQUAL(ibr_analysis_write_text(&b, a), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "workloads over 16 ranks:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "recursive_doubling steps (eBB, max congestion): 0:"));
    ibr_buffer_dispose(&b);
    ibr_analysis_destroy(a);
    /* without workloads, no new members: the report is as before */
    o.workloads = 0;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
    CU_ASSERT_EQUAL(ibr_analysis_write_json(&b, a), 0);
    CU_ASSERT_PTR_NULL(strstr(b.data, "workloads"));
    CU_ASSERT_EQUAL(ibr_analysis_workload_count(a), 0);
    ibr_buffer_dispose(&b);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* ------------------------------------------------------------------ */
/* analytic values                                                      */

/* An intact k-ary fat tree of N hosts routed by ftree, in ftree's rank
   order (its rank-order.txt read back): every shift, hence the ring, is
   congestion-free (eBB 1). All-to-all: a host has k/2 - 1 leaf mates,
   reached over no switch link (share 1); its N - k/2 other flows leave
   the leaf, whose k/2 hosts send (k/2)(N - k/2) such flows over k/2 up
   cables: N - k/2 per cable when ftree spreads them evenly. Higher up, a
   subtree of h > k/2 hosts has h up cables for its h(N - h) leaving
   flows: N - h per cable, fewer; down cables mirror up cables, so every leaving flow's busiest link
   carries N - k/2 flows and its share is 1 / (N - k/2). Per source the
   shares sum to (k/2 - 1) + 1 = k/2 over N - 1 flows:
       eBB(all-to-all) = (k/2) / (N - 1). */
static void test_analytic(void)
{
    static const struct {
        const char *spec;
        unsigned k, n;
    } trees[] = {
        {"fattree:levels=2,radix=4", 4, 8},
        {"fattree:levels=3,radix=4", 4, 16},
        {"fattree:levels=2,radix=8", 8, 32},
        {"fattree:levels=3,radix=6", 6, 54},
    };
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        ibr_topo *t = ibr_test_topo(NULL, trees[i].spec);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "ftree", NULL), 0);
        const void *data;
        size_t size;
        CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&data, &size, r, "rank-order.txt"), 0);
        ibr_rank_order *ro = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_rank_order_parse(&ro, t, data, size), 0);
        CU_ASSERT_EQUAL(ibr_rank_order_count(ro), trees[i].n);
        ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
        o.patterns = IBR_PATTERN_SHIFT;
        o.workloads = IBR_WORKLOAD_RING | IBR_WORKLOAD_ALL_TO_ALL | IBR_WORKLOAD_SHIFT;
        o.rank_guids = ibr_rank_order_guids(ro);
        o.n_ranks = ibr_rank_order_count(ro);
        ibr_analysis *a = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_analysis_workload_count(a), 3);
        ibr_pattern_stats ring, a2a, shift;
        double bound;
        ibr_analysis_workload(NULL, &ring, &bound, a, 0);
        CU_ASSERT_EQUAL(ring.max_congestion, 1);
        CU_ASSERT_DOUBLE_EQUAL(ring.ebb, 1.0, 1e-15);
        CU_ASSERT_DOUBLE_EQUAL(bound, 1.0, 1e-15);
        ibr_analysis_workload(NULL, &a2a, &bound, a, 1);
        double want = (trees[i].k / 2.0) / (trees[i].n - 1.0);
        CU_ASSERT_DOUBLE_EQUAL(a2a.ebb, want, 1e-12);
        CU_ASSERT_EQUAL(a2a.max_congestion, trees[i].n - trees[i].k / 2);
        ibr_analysis_workload(NULL, &shift, NULL, a, 2);
        CU_ASSERT_EQUAL(shift.patterns, trees[i].n - 1);
        CU_ASSERT_EQUAL(shift.congestion_free, trees[i].n - 1);
        CU_ASSERT_DOUBLE_EQUAL(shift.ebb, 1.0, 1e-15);
        /* the shift family runs in the rank order too */
        ibr_analysis_summary s = IBR_ANALYSIS_SUMMARY_INIT;
        ibr_analysis_summary_get(&s, a);
        CU_ASSERT_DOUBLE_EQUAL(s.shift.ebb, 1.0, 1e-15);
        ibr_analysis_destroy(a);
        ibr_rank_order_destroy(ro);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* ------------------------------------------------------------------ */
/* the rank order                                                       */

static uint64_t port_guid(const ibr_topo *t, const char *desc, unsigned port)
{
    for (uint32_t nd = 0; nd < ibr_topo_node_count(t); nd++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_node_info(&ni, t, nd);
        if (!strcmp(ni.desc, desc) && ibr_topo_port_info(&pi, t, nd, port) == 0)
            return pi.guid;
    }
    return 0;
}

static void expect_error(const ibr_topo *t, const char *text, const char *a, const char *b)
{
    ibr_rank_order *ro = NULL;
    CU_ASSERT_EQUAL(ibr_rank_order_parse(&ro, t, text, strlen(text)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
    CU_ASSERT_EQUAL(ibr_rank_order_count(ro), 0);
    CU_ASSERT_PTR_NULL(ibr_rank_order_guids(ro));
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_rank_order_last_error(ro), a));
    if (b)
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_rank_order_last_error(ro), b));
    if (!strstr(ibr_rank_order_last_error(ro), a))
        fprintf(stderr, "message: %s\n", ibr_rank_order_last_error(ro));
    ibr_rank_order_destroy(ro);
}

static void test_rank_order(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "rail:nodes=8,rails=2,su=4,radix=8,levels=2");
    char text[512];
    uint64_t g5 = port_guid(t, "node0005 mlx5_1", 1);
    CU_ASSERT_NOT_EQUAL_FATAL(g5, 0);
    snprintf(text, sizeof text,
             "# ranks\n\n  node0003 mlx5_1  \n0x%016llx\nnode0001\nnode0002 slots=8\n"
             "node0004 mlx5_1 1\nnode0006 1\n",
             (unsigned long long)g5);
    ibr_rank_order *ro = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_rank_order_parse(&ro, t, text, strlen(text)), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_rank_order_count(ro), 6);
    const uint64_t *g = ibr_rank_order_guids(ro);
    CU_ASSERT_EQUAL(g[0], port_guid(t, "node0003 mlx5_1", 1));
    CU_ASSERT_EQUAL(g[1], g5);
    CU_ASSERT_EQUAL(g[2], port_guid(t, "node0001 mlx5_0", 1)); /* a host: its first HCA */
    CU_ASSERT_EQUAL(g[3], port_guid(t, "node0002 mlx5_0", 1));
    CU_ASSERT_EQUAL(g[4], port_guid(t, "node0004 mlx5_1", 1));
    CU_ASSERT_EQUAL(g[5], port_guid(t, "node0006 mlx5_0", 1));
    ibr_rank_order_destroy(ro);

    expect_error(t, "node0001\n# x\nnobody\n", "line 3", "nobody");
    expect_error(t, "node0001 mlx5_0\n\nnode0001\n", "line 3", "(line 1)");
    expect_error(t, "0x1234\n", "line 1", "GUID");
    expect_error(t, "node0001 mlx5_0 2\n", "line 1", "port 2");
    /* a switch is no end port */
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, 0));
    snprintf(text, sizeof text, "0x%016llx\n", (unsigned long long)ni.node_guid);
    expect_error(t, text, "line 1", "GUID");
    snprintf(text, sizeof text, "%s\n", ni.desc);
    expect_error(t, text, "line 1", ni.desc);

    /* the order `ibr order` writes reads back, GUID for GUID */
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "ftree", NULL), 0);
    const void *data;
    size_t size;
    CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&data, &size, r, "rank-order.txt"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_rank_order_parse(&ro, t, data, size), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_rank_order_count(ro), 16);
    const char *p = data;
    for (size_t i = 0; i < 16; i++) {
        p = strchr(p, '\n') + 1; /* the header line first */
        unsigned long long rank, idx, guid;
        CU_ASSERT_EQUAL(sscanf(p, "%llu %llu %llx", &rank, &idx, &guid), 3);
        CU_ASSERT_EQUAL(rank, i);
        CU_ASSERT_EQUAL(ibr_rank_order_guids(ro)[i], guid);
    }
    ibr_rank_order_destroy(ro);

    /* analysis argument errors */
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    ibr_analysis *a = NULL;
    uint64_t bad[2] = {ni.node_guid, 0};
    o.rank_guids = bad;
    o.n_ranks = 1;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_ENOTFOUND);
    CU_ASSERT_PTR_NULL(a);
    bad[0] = bad[1] = g5;
    o.n_ranks = 2;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    o.rank_guids = NULL;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    o = (ibr_analyze_options)IBR_ANALYZE_OPTIONS_INIT;
    o.workloads = IBR_WORKLOAD_GRID;
    o.grid[0] = 3;
    o.grid[1] = 3;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    o.grid[1] = 0;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    o.grid[0] = 0;
    o.top_links = IBR_WORKLOAD_MAX_TOP + 1;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    o.top_links = 5;
    o.moe_group = 0;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    o.moe_group = 8;
    o.workloads = 1u << 9;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, &o), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(a);
    /* a version-1 caller: no workloads, the end-port order */
    unsigned char *v1 = malloc(offsetof(ibr_analyze_options, workloads));
    unsigned one = 1;
    memcpy(v1, &o, offsetof(ibr_analyze_options, workloads));
    memcpy(v1, &one, sizeof one);
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, (const ibr_analyze_options *)(void *)v1), 0);
    CU_ASSERT_EQUAL(ibr_analysis_workload_count(a), 0);
    free(v1);
    ibr_analysis_destroy(a);
    CU_ASSERT_EQUAL(ibr_rank_order_parse(NULL, t, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_rank_order_parse(&ro, NULL, "", 0), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(ro);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* The shift and permutation workloads are the same whether or not their
   pattern families were asked for too (then they are taken from those). */
static void test_reuse(void)
{
    ibr_topo *t = ibr_test_topo_faults("fattree:levels=3,radix=4", 3, 0, 5, 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "updn", NULL), 0);
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.workloads = IBR_WORKLOAD_SHIFT | IBR_WORKLOAD_PERMUTATION;
    o.n_random = 6;
    ibr_analysis *a = NULL, *b = NULL;
    o.patterns = 0;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
    o.patterns = IBR_PATTERN_ALL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&b, r, &o), 0);
    ibr_buffer ja = IBR_BUFFER_INIT, jb = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_analysis_write_json(&ja, a), 0);
    CU_ASSERT_EQUAL(ibr_analysis_write_json(&jb, b), 0);
    const char *wa = strstr(ja.data, "\"workloads\": ["), *wb = strstr(jb.data, "\"workloads\": [");
    CU_ASSERT_PTR_NOT_NULL_FATAL(wa);
    CU_ASSERT_PTR_NOT_NULL_FATAL(wb);
    CU_ASSERT_STRING_EQUAL(wa, wb);
    ibr_pattern_stats sh;
    ibr_analysis_summary s = IBR_ANALYSIS_SUMMARY_INIT;
    ibr_analysis_summary_get(&s, b);
    ibr_analysis_workload(NULL, &sh, NULL, a, 0);
    CU_ASSERT_EQUAL(memcmp(&sh, &s.shift, sizeof sh), 0);
    ibr_buffer_dispose(&ja);
    ibr_buffer_dispose(&jb);
    ibr_analysis_destroy(a);
    ibr_analysis_destroy(b);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* The MoE patterns: seeded, within their groups, k distinct others. */
static void test_moe(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=3,radix=4");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "ftree", NULL), 0);
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.patterns = 0;
    o.workloads = IBR_WORKLOAD_MOE;
    o.moe_group = 5; /* 16 ranks: groups of 5, 5, 5 and 1 */
    o.moe_fanout = 2;
    o.n_random = 7;
    ibr_analysis *a = NULL, *b = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &o), 0);
    o.threads = 2;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&b, r, &o), 0);
    ibr_pattern_stats x, y;
    ibr_analysis_workload(NULL, &x, NULL, a, 0);
    ibr_analysis_workload(NULL, &y, NULL, b, 0);
    CU_ASSERT_EQUAL(x.patterns, 7);
    CU_ASSERT_EQUAL(x.flows, 7 * 15 * 2); /* the lone rank sends nothing */
    CU_ASSERT_EQUAL(memcmp(&x, &y, sizeof x), 0);
    ibr_analysis_destroy(b);
    o.seed = 2;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&b, r, &o), 0);
    ibr_analysis_workload(NULL, &y, NULL, b, 0);
    CU_ASSERT_EQUAL(y.flows, x.flows);
    ibr_analysis_destroy(b);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Allocation failure anywhere in the rank-order parse, the analysis with
   every workload and its writers: an error, nothing leaked, the caller's
   buffer as it was. */
static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *c = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    long live0 = st.live;
    ibr_topo *t = ibr_test_topo(c, "rail:nodes=8,rails=2,su=4,radix=8,levels=2");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    const char *text = "node0001\nnode0002 mlx5_1\nnode0003\nnode0004\n";
    ibr_rank_order *ro = NULL;
    long live = st.live, n;
    int rc = IBR_ENOMEM;
    for (n = 0; n < 100 && rc == IBR_ENOMEM; n++) {
        st.fail_at = n;
        st.calls = 0;
        rc = ibr_rank_order_parse(&ro, t, text, strlen(text));
        if (rc == IBR_ENOMEM) {
            CU_ASSERT_PTR_NULL(ro);
            CU_ASSERT_EQUAL(st.live, live);
        }
    }
    st.fail_at = -1;
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    ibr_analyze_options o = IBR_ANALYZE_OPTIONS_INIT;
    o.workloads = IBR_WORKLOAD_ALL;
    o.rank_guids = ibr_rank_order_guids(ro);
    o.n_ranks = ibr_rank_order_count(ro);
    o.n_random = 2;
    o.threads = 2;
    ibr_analysis *a = NULL;
    rc = IBR_ENOMEM;
    live = st.live;
    for (n = 0; n < 2000 && rc == IBR_ENOMEM; n++) {
        st.fail_at = n;
        st.calls = 0;
        rc = ibr_result_analyze(&a, r, &o);
        if (rc == IBR_ENOMEM) {
            CU_ASSERT_PTR_NULL(a);
            CU_ASSERT_EQUAL(st.live, live);
        }
    }
    st.fail_at = -1;
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT(n > 20);
    for (int w = 0; w < 2; w++) {
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_analysis_write_text(&b, a), 0);
        size_t size = b.size;
        rc = IBR_ENOMEM;
        for (n = 0; n < 1000 && rc == IBR_ENOMEM; n++) {
            st.fail_at = n;
            st.calls = 0;
            rc = w ? ibr_analysis_write_json(&b, a) : ibr_analysis_write_text(&b, a);
            if (rc == IBR_ENOMEM)
                CU_ASSERT_EQUAL(b.size, size);
        }
        st.fail_at = -1;
        CU_ASSERT_EQUAL(rc, 0);
        ibr_buffer_dispose(&b);
    }
    ibr_analysis_destroy(a);
    ibr_rank_order_destroy(ro);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    CU_ASSERT_EQUAL(st.live, live0);
    ibr_context_destroy(c);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"every workload against a brute-force count", test_oracle},
        {"JSON: limiting links and steps", test_json},
        {"analytic values on intact fat trees", test_analytic},
        {"rank order parser", test_rank_order},
        {"mixture of experts", test_moe},
        {"shift and permutation taken from their families", test_reuse},
        {"allocation failure", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("workload", tests);
}
