/* dmodc: the closed-form fat-tree engine's promises, checked independently
   of it. Levels are measured here (one more than the distance to the
   nearest switch with end ports, as the engine documents), routes are
   walked through the LFTs here, up*down* distances come from a search of
   our own, and shift patterns are counted by ibr_result_analyze(). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NOSW 0xFFFFFFFFu

/* ------------------------------------------------------------------ */
/* an independent model of the tree                                    */

/* the tree as measured by the harness (ibr_test_tree: levels, neighbours,
   where each end-port LID is delivered), under this file's short names */
typedef ibr_test_tree tree;
#define tree_init ibr_test_tree_init
#define tree_free ibr_test_tree_free

typedef struct walk_stats {
    long pairs;      /* (leaf switch, end-port LID) pairs with an up*down* path */
    long delivered;  /* of those, delivered by the tables */
    long illegal;    /* routes that turn up after going down, or sideways */
    long longer;     /* delivered routes longer than the up*down* distance */
    long stray;      /* routes delivered where no up*down* path exists */
} walk_stats;

/* Walk every route from every switch that carries end ports to every
   end-port LID, hop by hop through the LFTs. */
static walk_stats walk_all(const tree *tr, const ibr_result *r)
{
    const ibr_topo *t = tr->t;
    walk_stats w = {0, 0, 0, 0, 0};
    uint8_t *dist = malloc(tr->nsw);
    for (uint32_t s = 0; s < tr->nsw; s++) {
        if (tr->level[s] != 1)
            continue;
        ibr_test_updown_dist(dist, tr->nbr, tr->level, tr->nsw, s);
        for (unsigned lid = 1; lid <= ibr_topo_max_lid(t); lid++) {
            uint32_t d = tr->ep_sw[lid];
            if (d == NOSW)
                continue;
            int has_path = dist[d] != 255;
            w.pairs += has_path;
            uint32_t cur = s;
            int down = 0, ok = 0, len = 0;
            for (unsigned steps = 0; steps <= tr->nsw; steps++) {
                unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
                if (p == IBR_NO_ROUTE)
                    break;
                if (cur == d && p == tr->ep_port[lid]) {
                    ok = 1;
                    break;
                }
                uint32_t nx = p < 255 ? tr->nbr[(size_t)cur * 255 + p] : NOSW;
                if (nx == NOSW)
                    break;
                int up = tr->level[nx] > tr->level[cur];
                if (tr->level[nx] == tr->level[cur] || (up && down)) {
                    w.illegal++;
                    break;
                }
                down |= !up;
                cur = nx;
                len++;
            }
            if (ok && has_path) {
                w.delivered++;
                w.longer += len > dist[d];
            }
            w.stray += ok && !has_path;
        }
    }
    free(dist);
    return w;
}

/* The engine's hop matrix is the up*down* distance (255: no such path). */
static long hop_matrix_errors(const tree *tr, const ibr_result *r)
{
    uint8_t *dist = malloc(tr->nsw);
    long wrong = 0;
    for (uint32_t s = 0; s < tr->nsw; s++) {
        if (!tr->level[s])
            continue;
        ibr_test_updown_dist(dist, tr->nbr, tr->level, tr->nsw, s);
        for (uint32_t d = 0; d < tr->nsw; d++)
            wrong += tr->level[d] && ibr_result_hops(r, s, d) != dist[d];
    }
    free(dist);
    return wrong;
}

static ibr_result *route_dmodc(const ibr_topo *t, const ibr_options *o)
{
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    ibr_result *r = ibr_test_route(&rep, t, "dmodc,no_fallback", o, IBR_TEST_DEADLOCK_FREE);
    if (!r)
        return NULL;
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "dmodc");
    CU_ASSERT(ibr_result_has_hops(r));
    CU_ASSERT(rep.pairs > 0);
    size_t len = 1;
    CU_ASSERT_EQUAL(ibr_result_find_credit_loop(NULL, 0, &len, r), 0);
    CU_ASSERT_EQUAL(len, 0);
    return r;
}

/* All the checks of a routed tree; *pairs gets the pairs with a path. */
static void check_tree(const ibr_topo *t, const ibr_result *r, const char *what)
{
    tree tr;
    tree_init(&tr, t);
    walk_stats w = walk_all(&tr, r);
    long hm = hop_matrix_errors(&tr, r);
    CU_ASSERT(w.pairs > 0);
    CU_ASSERT_EQUAL(w.delivered, w.pairs);
    CU_ASSERT_EQUAL(w.illegal, 0);
    CU_ASSERT_EQUAL(w.longer, 0);
    CU_ASSERT_EQUAL(w.stray, 0);
    CU_ASSERT_EQUAL(hm, 0);
    if (w.delivered != w.pairs || w.illegal || w.longer || w.stray || hm)
        fprintf(stderr,
                "%s: pairs %ld delivered %ld illegal %ld longer %ld stray %ld hop errors %ld\n",
                what, w.pairs, w.delivered, w.illegal, w.longer, w.stray, hm);
    tree_free(&tr);
}

static uint64_t shift_max(const ibr_result *r, unsigned *free_, unsigned *n)
{
    return ibr_test_shift(r, free_, n, NULL);
}

static ibr_topo *parse_file(const char *path, unsigned links, unsigned switches, uint64_t seed)
{
    size_t len;
    char *text = ibr_test_read_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, text, len), 0);
    free(text);
    if (links || switches)
        CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, links, switches, seed), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* FNV-1a over every LFT. */
static uint64_t lft_hash(const ibr_topo *t, const ibr_result *r)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n = (size_t)ibr_topo_switch_count(t) * ibr_result_lft_size(r);
    const uint8_t *p = ibr_result_lft(r, 0);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ------------------------------------------------------------------ */
/* tests                                                               */

static const char *const intact_specs[] = {
    "xgft:h=2,m=8.16,w=1.8",       "xgft:h=3,m=4.4.8,w=1.4.4", "fattree:levels=2,radix=16",
    "fattree:levels=3,radix=8",    "xgft:h=4,m=2.2.2.4,w=1.2.2.2",
    "xgft:h=4,m=3.3.3.6,w=1.3.3.3",
};

/* Intact trees: every pair routed over a shortest up*down* path, the hop
   matrix is the up*down* distance, no credit loop, and every shift
   permutation is congestion-free (one flow per link direction). */
static void test_intact(void)
{
    for (size_t i = 0; i < sizeof intact_specs / sizeof *intact_specs; i++) {
        ibr_topo *t = ibr_test_topo(NULL, intact_specs[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = route_dmodc(t, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check_tree(t, r, intact_specs[i]);
        unsigned nfree = 0, n = 0;
        uint64_t mx = shift_max(r, &nfree, &n);
        CU_ASSERT_EQUAL(mx, 1);
        CU_ASSERT_EQUAL(nfree, n);
        if (mx != 1)
            fprintf(stderr, "%s: shift max congestion %" PRIu64 "\n", intact_specs[i], mx);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* Parallel cables (two per leaf-spine pair): the same promises, and both
   cables of a pair carry routes. */
static void test_parallel(void)
{
    ibr_topo *t = parse_file(IBR_TEST_DATA "/ftree-parallel.net", 0, 0, 0);
    ibr_result *r = route_dmodc(t, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_tree(t, r, "ftree-parallel.net");
    CU_ASSERT_EQUAL(shift_max(r, NULL, NULL), 1);
    tree tr;
    tree_init(&tr, t);
    unsigned idle = 0, used = 0;
    for (uint32_t s = 0; s < tr.nsw; s++)
        for (unsigned p = 1; p < 255; p++) {
            uint32_t nx = tr.nbr[(size_t)s * 255 + p];
            if (nx == NOSW)
                continue;
            unsigned n = 0;
            for (unsigned lid = 1; lid <= ibr_topo_max_lid(t); lid++)
                n += tr.ep_sw[lid] != NOSW && ibr_result_lft_port(r, s, (uint16_t)lid) == p;
            idle += n == 0;
            used += n > 0;
        }
    CU_ASSERT_EQUAL(idle, 0);
    CU_ASSERT(used > 0);
    tree_free(&tr);
    ibr_result_destroy(r);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        ibr_topo *f = parse_file(IBR_TEST_DATA "/ftree-parallel.net", 1 + (unsigned)seed % 4,
                                 seed % 3 == 0, seed);
        ibr_result *rf = route_dmodc(f, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rf);
        check_tree(f, rf, "ftree-parallel.net degraded");
        ibr_result_destroy(rf);
        ibr_topo_destroy(f);
    }
    ibr_topo_destroy(t);
}

/* Leaf pairs the cables connect (any path between their switches) that
   have no up*down* path: there the tables cannot deliver, and the engine
   must decline rather than hand out tables that leave them unrouted. */
static long connected_without_updown(const ibr_topo *t)
{
    tree tr;
    tree_init(&tr, t);
    uint32_t n = tr.nsw;
    uint8_t *dist = malloc(n), *seen = malloc(n);
    uint32_t *q = malloc(sizeof *q * (n + 1));
    long bad = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (tr.level[s] != 1)
            continue;
        ibr_test_updown_dist(dist, tr.nbr, tr.level, tr.nsw, s);
        memset(seen, 0, n);
        uint32_t h = 0, tl = 0;
        q[tl++] = s;
        seen[s] = 1;
        while (h < tl) {
            uint32_t u = q[h++];
            for (unsigned p = 1; p < 255; p++) {
                uint32_t v = tr.nbr[(size_t)u * 255 + p];
                if (v != NOSW && !seen[v]) {
                    seen[v] = 1;
                    q[tl++] = v;
                }
            }
        }
        for (uint32_t d = 0; d < n; d++)
            bad += tr.level[d] == 1 && seen[d] && dist[d] == 255;
    }
    free(dist);
    free(seen);
    free(q);
    tree_free(&tr);
    return bad;
}

/* Degraded 2-, 3- and 4-level trees, cables and switches lost, many
   seeds: every pair with an up*down* path is delivered over a shortest
   one, nothing else, no credit loop; a tree whose cables connect a leaf
   pair only by paths that turn down then up is declined. */
static void test_degraded(void)
{
    static const struct {
        const char *spec;
        unsigned links, switches;
    } c[] = {
        {"xgft:h=2,m=8.16,w=1.8", 6, 0},        {"xgft:h=2,m=8.16,w=1.8", 3, 1},
        {"xgft:h=3,m=4.4.8,w=1.4.4", 10, 0},    {"xgft:h=3,m=4.4.8,w=1.4.4", 6, 2},
        {"fattree:levels=3,radix=8", 20, 3},    {"xgft:h=4,m=2.2.2.4,w=1.2.2.2", 8, 1},
        {"xgft:h=4,m=3.3.3.6,w=1.3.3.3", 30, 4}, {"xgft:h=3,m=4.4.6,w=1.2.3", 12, 2},
        {"fattree:levels=2,radix=16", 40, 2},
    };
    long routed = 0, declined = 0;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        for (uint64_t seed = 1; seed <= 8; seed++) {
            ibr_topo *t = ibr_test_topo_faults(c[i].spec, c[i].links, c[i].switches, seed, 0);
            if (connected_without_updown(t) > 0) {
                ibr_result *rd = NULL;
                CU_ASSERT_EQUAL(ibr_route(&rd, t, "dmodc,no_fallback", NULL), IBR_EUNROUTABLE);
                ibr_result_destroy(rd);
                declined++;
                ibr_topo_destroy(t);
                continue;
            }
            ibr_result *r = route_dmodc(t, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            char what[128];
            snprintf(what, sizeof what, "%s faults %u,%u seed %" PRIu64, c[i].spec,
                     c[i].links, c[i].switches, seed);
            check_tree(t, r, what);
            routed++;
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
        }
    CU_ASSERT_EQUAL(routed + declined, 72);
    /* at least half of these trees keep every connected pair up*down*
       (45 of 72 do) */
    fprintf(stderr, "%ld routed, %ld declined ", routed, declined);
    CU_ASSERT(routed >= 36);
}

/* A degraded tree stays near the congestion-free shift: on a 3-level tree
   with 12 of its 1,024 switch cables lost (1.2 %), and with 2 switches
   lost too, the shift eBB stays above 0.95 and no shift puts more than
   three flows on a cable (four with the switches lost). */
static void test_degraded_shift(void)
{
    for (unsigned sw = 0; sw <= 2; sw += 2)
        for (uint64_t seed = 5; seed <= 7; seed++) {
            ibr_topo *t = ibr_test_topo_faults("xgft:h=3,m=8.8.16,w=1.8.8", 12, sw, seed, 0);
            ibr_result *r = route_dmodc(t, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            unsigned n = 0;
            double ebb = 0;
            uint64_t mx = ibr_test_shift(r, NULL, &n, &ebb);
            CU_ASSERT(mx <= 3 + (sw > 0));
            CU_ASSERT(ebb >= 0.95);
            CU_ASSERT(n > 0);
            if (mx > 3 + (sw > 0) || ebb < 0.95)
                fprintf(stderr, "faults 12,%u seed %" PRIu64 ": shift max %" PRIu64 " eBB %.4f\n",
                        sw, seed, mx, ebb);
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
        }
}

/* Oversubscribed trees (more end ports per leaf than up cables): shifts
   cannot be congestion-free; the busiest link of a shift stays within one
   flow of the bound ftree reaches (ftree's own test lists the bounds). */
static void test_cbb(void)
{
    static const struct {
        const char *spec;
        uint64_t bound;
    } c[] = {{"xgft:h=2,m=4.6,w=1.3", 2}, {"xgft:h=2,m=6.8,w=1.4", 2},
             {"xgft:h=2,m=5.8,w=1.3", 2}, {"xgft:h=3,m=6.4.4,w=1.4.4", 2},
             {"xgft:h=3,m=4.4.6,w=1.2.3", 3}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        ibr_topo *t = ibr_test_topo(NULL, c[i].spec);
        ibr_result *r = route_dmodc(t, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check_tree(t, r, c[i].spec);
        uint64_t mx = shift_max(r, NULL, NULL);
        CU_ASSERT(mx >= c[i].bound && mx <= c[i].bound + 1);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

static uint64_t busiest_link(const ibr_result *r)
{
    ibr_analysis *a = NULL;
    ibr_analyze_options ao = IBR_ANALYZE_OPTIONS_INIT;
    ao.patterns = IBR_PATTERN_SHIFT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &ao), 0);
    ibr_analysis_summary s = {.version = IBR_ANALYSIS_SUMMARY_VERSION};
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(&s, a), 0);
    ibr_analysis_destroy(a);
    return s.max_link_load;
}

/* A lost spine or top switch leaves a free port on every switch below it:
   the formula keeps its slot (the lost switch's destinations are detoured
   and spread) instead of running modulo one port less, which would send
   two destinations of a leaf down one cable from every source. The
   busiest link of all-to-all stays within K / (K - 1) of the intact
   tree's (K up cables per switch below the lost one, one of them lost),
   plus a tenth, where the modulo one less gives twice. */
static void test_lost_spine(void)
{
    static const char *specs[] = {"xgft:h=2,m=8.16,w=1.8", "xgft:h=3,m=4.4.8,w=1.4.4"};
    static const uint64_t K[] = {8, 4};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t0 = ibr_test_topo(NULL, specs[i]);
        ibr_result *r0 = route_dmodc(t0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r0);
        uint64_t b0 = busiest_link(r0);
        tree tr;
        tree_init(&tr, t0);
        unsigned top = 0;
        for (uint32_t s = 0; s < tr.nsw; s++)
            top = (unsigned)tr.level[s] > top ? (unsigned)tr.level[s] : top;
        /* each switch of the top level in turn */
        unsigned tried = 0;
        for (uint32_t s = 0; s < tr.nsw; s++) {
            if ((unsigned)tr.level[s] != top)
                continue;
            ibr_fabric *f = NULL;
            ibr_topo *t1 = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
            CU_ASSERT_EQUAL_FATAL(
                ibr_fabric_set_node_state(f, ibr_topo_switch_node(t0, s), IBR_LINK_DOWN), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t1, f), 0);
            ibr_fabric_destroy(f);
            ibr_result *r1 = route_dmodc(t1, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
            check_tree(t1, r1, specs[i]);
            uint64_t b1 = busiest_link(r1);
            uint64_t k = K[i];
            CU_ASSERT(b1 * (k - 1) <= b0 * k + b0 * (k - 1) / 10);
            if (b1 * (k - 1) > b0 * k + b0 * (k - 1) / 10)
                fprintf(stderr, "%s without switch %u: busiest link %" PRIu64 " (intact %" PRIu64
                                ")\n", specs[i], s, b1, b0);
            ibr_result_destroy(r1);
            ibr_topo_destroy(t1);
            tried++;
        }
        CU_ASSERT(tried >= 8);
        tree_free(&tr);
        ibr_result_destroy(r0);
        ibr_topo_destroy(t0);
    }
}

/* One switch-to-switch cable lost: the closed formula moves only entries
   whose route on the intact tree crossed that cable. */
static void test_local_change(void)
{
    static const char *specs[] = {"xgft:h=3,m=4.4.8,w=1.4.4", "xgft:h=2,m=8.16,w=1.8",
                                  "xgft:h=4,m=2.2.2.4,w=1.2.2.2"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t0 = ibr_test_topo(NULL, specs[i]);
        ibr_result *r0 = route_dmodc(t0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r0);
        tree tr;
        tree_init(&tr, t0);
        for (uint64_t seed = 1; seed <= 6; seed++) {
            ibr_topo *t1 = ibr_test_topo_faults(specs[i], 1, 0, seed, 0);
            ibr_result *r1 = route_dmodc(t1, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
            /* the lost cable: a port active in t0 and not in t1 */
            tree t1r;
            tree_init(&t1r, t1);
            uint32_t ls = NOSW;
            unsigned lp = 0;
            for (uint32_t s = 0; s < tr.nsw && ls == NOSW; s++)
                for (unsigned p = 1; p < 255; p++)
                    if (tr.nbr[(size_t)s * 255 + p] != NOSW &&
                        t1r.nbr[(size_t)s * 255 + p] == NOSW) {
                        ls = s;
                        lp = p;
                        break;
                    }
            CU_ASSERT_FATAL(ls != NOSW);
            uint32_t rs = tr.nbr[(size_t)ls * 255 + lp];
            long changed = 0, foreign = 0;
            for (uint32_t s = 0; s < tr.nsw; s++)
                for (unsigned lid = 1; lid <= ibr_topo_max_lid(t0); lid++) {
                    if (tr.ep_sw[lid] == NOSW ||
                        ibr_result_lft_port(r0, s, (uint16_t)lid) ==
                            ibr_result_lft_port(r1, s, (uint16_t)lid))
                        continue;
                    changed++;
                    /* did the intact route from s cross the cable? */
                    int crossed = 0;
                    uint32_t cur = s;
                    for (unsigned steps = 0; steps <= tr.nsw && !crossed; steps++) {
                        unsigned p = ibr_result_lft_port(r0, cur, (uint16_t)lid);
                        if (p == IBR_NO_ROUTE || p == 0 || p >= 255)
                            break;
                        uint32_t nx = tr.nbr[(size_t)cur * 255 + p];
                        if (nx == NOSW)
                            break;
                        crossed = (cur == ls && p == lp) ||
                                  (cur == rs && nx == ls &&
                                   tr.nbr[(size_t)rs * 255 + p] == ls &&
                                   t1r.nbr[(size_t)rs * 255 + p] == NOSW);
                        cur = nx;
                    }
                    foreign += !crossed;
                }
            CU_ASSERT(changed > 0);
            CU_ASSERT_EQUAL(foreign, 0);
            if (foreign)
                fprintf(stderr, "%s seed %" PRIu64 ": %ld of %ld changed entries off the cable\n",
                        specs[i], seed, foreign, changed);
            tree_free(&t1r);
            ibr_result_destroy(r1);
            ibr_topo_destroy(t1);
        }
        tree_free(&tr);
        ibr_result_destroy(r0);
        ibr_topo_destroy(t0);
    }
}

/* A leaf that lost an end port: the others keep their index (slots by
   leaf port), so only the lost port's LIDs change in any table. */
static void test_lost_host(void)
{
    static const char *specs[] = {"xgft:h=3,m=4.4.8,w=1.4.4", "xgft:h=2,m=8.16,w=1.8"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t0 = ibr_test_topo(NULL, specs[i]);
        ibr_result *r0 = route_dmodc(t0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r0);
        unsigned cas = 0;
        for (uint32_t n = 0; n < ibr_topo_node_count(t0); n++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_topo_node_info(&ni, t0, n), 0);
            if (ni.type != IBR_NODE_CA || cas++ % 7 != 3)
                continue;
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_topo_port_info(&pi, t0, n, 1), 0);
            ibr_fabric *f = NULL;
            ibr_topo *t1 = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_link_state(f, n, 1, IBR_LINK_DOWN), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t1, f), 0);
            ibr_fabric_destroy(f);
            ibr_result *r1 = route_dmodc(t1, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
            check_tree(t1, r1, specs[i]);
            long other = 0;
            for (uint32_t s = 0; s < ibr_topo_switch_count(t0); s++)
                for (unsigned lid = 1; lid <= ibr_topo_max_lid(t0); lid++)
                    other += lid != pi.lid && ibr_result_lft_port(r0, s, (uint16_t)lid) !=
                                                  ibr_result_lft_port(r1, s, (uint16_t)lid);
            CU_ASSERT_EQUAL(other, 0);
            ibr_result_destroy(r1);
            ibr_topo_destroy(t1);
        }
        CU_ASSERT(cas > 8);
        ibr_result_destroy(r0);
        ibr_topo_destroy(t0);
    }
}

/* The tables of intact trees, pinned: a change to the formula, the
   destination order or the levels shows here (update the hashes only for
   a deliberate change, and say so in doc/engines.md). */
static void test_pinned(void)
{
    static const struct {
        const char *spec;
        uint64_t hash;
    } c[] = {
        {"xgft:h=3,m=4.4.8,w=1.4.4", 0x6715c6d1506004f5ull},
        {"xgft:h=4,m=2.2.2.4,w=1.2.2.2", 0x620bd791955d524dull},
        {"xgft:h=2,m=8.16,w=1.8", 0x61fd604e4d9f0abdull},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        ibr_topo *t = ibr_test_topo(NULL, c[i].spec);
        ibr_result *r = route_dmodc(t, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        uint64_t h = lft_hash(t, r);
        CU_ASSERT_EQUAL(h, c[i].hash);
        if (h != c[i].hash)
            fprintf(stderr, "%s: LFT hash 0x%016" PRIx64 "\n", c[i].spec, h);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* The same input routed with 1 and 4 threads: byte-identical tables. */
static void test_determinism(void)
{
    ibr_topo *t = ibr_test_topo_faults("xgft:h=3,m=4.4.8,w=1.4.4", 5, 1, 3, 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 1;
    ibr_result *a = route_dmodc(t, &o);
    o.threads = 4;
    ibr_result *b = route_dmodc(t, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    size_t n = (size_t)ibr_topo_switch_count(t) * ibr_result_lft_size(a);
    CU_ASSERT_EQUAL(memcmp(ibr_result_lft(a, 0), ibr_result_lft(b, 0), n), 0);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        for (uint32_t d = 0; d < ibr_topo_switch_count(t); d++)
            CU_ASSERT_EQUAL(ibr_result_hops(a, s, d), ibr_result_hops(b, s, d));
    ibr_result_destroy(a);
    ibr_result_destroy(b);
    ibr_topo_destroy(t);
}

/* Fabrics that are no fat tree decline, naming the cable within a level. */
static void test_declines(void)
{
    static const char *specs[] = {"torus:dims=4x4,hosts=1", "mesh:dims=3x3,hosts=2",
                                  "hypercube:dim=3,hosts=1", "dragonfly:a=4,p=2,h=2,g=5"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "dmodc,no_fallback", NULL), IBR_EUNROUTABLE);
        const char *eng = NULL, *msg = NULL;
        int st = 0;
        CU_ASSERT_EQUAL_FATAL(ibr_result_attempt(&eng, &st, &msg, r, 0), 0);
        CU_ASSERT_STRING_EQUAL(eng, "dmodc");
        CU_ASSERT_EQUAL(st, IBR_EDECLINED);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not a fat tree"));
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cabled together"));
        ibr_result_destroy(r);
        /* with a fallback the chain goes on */
        CU_ASSERT_EQUAL(ibr_route(&r, t, "dmodc", NULL), 0);
        CU_ASSERT_STRING_NOT_EQUAL(ibr_result_engine(r), "dmodc");
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* LMC 2: every LID routed, and the four LIDs of a port leave a leaf
   through four different up ports (different upper switches). */
static void test_lmc(void)
{
    ibr_topo *t = ibr_test_topo_faults("xgft:h=3,m=4.4.8,w=1.4.4", 0, 0, 0, 2);
    ibr_result *r = route_dmodc(t, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_tree(t, r, "lmc 2");
    tree tr;
    tree_init(&tr, t);
    long spread = 0, same = 0;
    for (uint32_t s = 0; s < tr.nsw; s++) {
        if (tr.level[s] != 1)
            continue;
        for (unsigned lid = 4; lid + 3 <= ibr_topo_max_lid(t); lid += 4) {
            if (tr.ep_sw[lid] == NOSW || tr.ep_sw[lid] == s)
                continue;
            unsigned ports[4], distinct = 0;
            for (unsigned k = 0; k < 4; k++) {
                ports[k] = ibr_result_lft_port(r, s, (uint16_t)(lid + k));
                int dup = 0;
                for (unsigned j = 0; j < k; j++)
                    dup |= ports[j] == ports[k];
                distinct += !dup;
            }
            spread += distinct == 4;
            same += distinct != 4;
        }
    }
    CU_ASSERT(spread > 0);
    CU_ASSERT_EQUAL(same, 0);
    tree_free(&tr);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* ------------------------------------------------------------------ */
/* repair in place                                                     */

/* spec (or the parallel-cable file when spec is NULL) with `links` seeded
   cable faults, then switch `down` (an index among the switches, -1:
   none) down, its cables removed or left marked down. */
static ibr_topo *faulty(const char *spec, unsigned links, uint64_t seed, long down, int remove)
{
    /* "LMC2:" before a spec: LIDs reassigned with LMC 2 */
    unsigned lmc = 0;
    if (spec && !strncmp(spec, "LMC2:", 5)) {
        lmc = 2;
        spec += 5;
    }
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    if (spec) {
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    } else {
        size_t len;
        char *text = ibr_test_read_file(IBR_TEST_DATA "/ftree-parallel.net", &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, text, len), 0);
        free(text);
    }
    if (links)
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, links, 0, seed), 0);
    uint32_t n = ibr_fabric_node_count(f);
    for (uint32_t i = 0, k = 0; i < n && down >= 0; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, i), 0);
        if (ni.type == IBR_NODE_SWITCH && k++ == (uint32_t)down)
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_node_state(f, i, IBR_LINK_DOWN), 0);
    }
    for (uint32_t i = 0; i < n && remove; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, i), 0);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_fabric_port_info(&pi, f, i, p) == 0 && pi.remote_node != IBR_NONE &&
                pi.state == IBR_LINK_DOWN)
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_remove_link(f, i, p), 0);
        }
    }
    if (lmc)
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* (switch, 64-LID block) pairs of r whose route toward some LID of the
   block leaves over a cable of `was` that `now` lacks (walked from the
   switch through r's tables on was's cables); *blocks their count. */
static uint8_t *blocks_over(long *blocks, const tree *was, const tree *now, const ibr_result *r)
{
    uint16_t maxlid = ibr_topo_max_lid(was->t);
    size_t nb = (size_t)maxlid / 64 + 1;
    uint8_t *held = calloc((size_t)was->nsw * nb, 1);
    *blocks = 0;
    for (uint32_t s = 0; s < was->nsw; s++)
        for (unsigned lid = 1; lid <= maxlid; lid++) {
            uint32_t cur = s;
            int crossed = 0;
            for (unsigned steps = 0; steps <= was->nsw && !crossed; steps++) {
                unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
                if (p == IBR_NO_ROUTE || p == 0 || p >= 255)
                    break;
                uint32_t nx = was->nbr[(size_t)cur * 255 + p];
                if (nx == NOSW)
                    break;
                crossed = now->nbr[(size_t)cur * 255 + p] != nx;
                cur = nx;
            }
            if (crossed && !held[(size_t)s * nb + lid / 64]) {
                held[(size_t)s * nb + lid / 64] = 1;
                ++*blocks;
            }
        }
    return held;
}

/* Entry l of a row of n LIDs: past its end a LID is unrouted. */
static unsigned entry_at(const uint8_t *row, size_t n, size_t l)
{
    return row && l < n ? row[l] : IBR_NO_ROUTE;
}

/* (switch, block) pairs where a and b differ (LID 0 aside; a LID past one
   table's end is unrouted there), switch s of b against switch map[s] of
   a (none: a row without routes). */
static long changed_blocks(const ibr_result *a, const ibr_result *b, const uint32_t *map,
                           uint32_t nsw)
{
    size_t La = ibr_result_lft_size(a), Lb = ibr_result_lft_size(b);
    size_t L = La > Lb ? La : Lb;
    long n = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        const uint8_t *x = map[s] != NOSW ? ibr_result_lft(a, map[s]) : NULL;
        const uint8_t *y = ibr_result_lft(b, s);
        for (size_t b0 = 0; b0 < L; b0 += 64) {
            int d = 0;
            for (size_t l = b0 ? b0 : 1; l < b0 + 64 && l < L && !d; l++)
                d = entry_at(x, La, l) != entry_at(y, Lb, l);
            n += d;
        }
    }
    return n;
}

static uint64_t switch_guid(const ibr_topo *t, uint32_t s);

/* Switch s of t1 -> the switch of t0 with its GUID (NOSW: none). */
static uint32_t *switch_map(const ibr_topo *t0, const ibr_topo *t1)
{
    uint32_t S0 = ibr_topo_switch_count(t0), S = ibr_topo_switch_count(t1);
    uint32_t *map = malloc((S ? S : 1) * sizeof *map);
    CU_ASSERT_PTR_NOT_NULL_FATAL(map);
    for (uint32_t s = 0; s < S; s++) {
        uint64_t g = switch_guid(t1, s);
        map[s] = NOSW;
        for (uint32_t k = 0; k < S0 && map[s] == NOSW; k++)
            if (switch_guid(t0, k) == g)
                map[s] = k;
    }
    return map;
}

/* Route t0 with dmodc, save it, reroute on t1: the repair must give a
   fresh dmodc route of t1 byte for byte (tables and hop matrix), valid
   and up/down; its churn is counted here. Returns the report's mode;
   *chg and *held get the changed blocks and those that held a route over
   a cable one fabric has and the other lacks (in the routing that had
   it). */
static int repair_case(const ibr_topo *t0, const ibr_topo *t1, const char *what, long *chg,
                       long *held, char *reason)
{
    ibr_result *r0 = NULL, *f1 = NULL, *y = NULL;
    *chg = *held = 0;
    if (ibr_route(&r0, t0, "dmodc,no_fallback", NULL) != 0) {
        ibr_result_destroy(r0);
        return -1; /* dmodc declines the saved fabric: nothing to repair */
    }
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, r0), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, (const char *)b.data, b.size), 0);
    ibr_buffer_dispose(&b);
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    if (ibr_route(&f1, t1, "dmodc,no_fallback", NULL) != 0) {
        /* dmodc declines the changed fabric: so does the reroute */
        CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), IBR_EUNROUTABLE);
        ibr_result_destroy(y);
        ibr_result_destroy(f1);
        ibr_routing_db_destroy(db);
        ibr_result_destroy(r0);
        return -1;
    }
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
    uint32_t S = ibr_topo_switch_count(t1);
    size_t L = ibr_result_lft_size(y);
    CU_ASSERT_EQUAL_FATAL(L, ibr_result_lft_size(f1));
    long diff = 0, hdiff = 0;
    for (uint32_t s = 0; s < S; s++) {
        for (size_t l = 0; l < L; l++)
            diff += ibr_result_lft(y, s)[l] != ibr_result_lft(f1, s)[l];
        for (uint32_t d = 0; d < S; d++)
            hdiff += ibr_result_hops(y, s, d) != ibr_result_hops(f1, s, d);
    }
    CU_ASSERT_EQUAL(diff, 0);
    CU_ASSERT_EQUAL(hdiff, 0);
    ibr_verify_report vr = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
    CU_ASSERT(vr.pairs > 0 && vr.pairs_ok == vr.pairs && vr.deadlock_free == 1);
    check_tree(t1, y, what);
    tree a, c;
    tree_init(&a, t0);
    tree_init(&c, t1);
    long h0 = 0, h1 = 0;
    if (a.nsw == c.nsw) { /* the walks read both trees by switch index */
        free(blocks_over(&h0, &a, &c, r0)); /* lost: routes over it before */
        free(blocks_over(&h1, &c, &a, f1)); /* back: routes over it after */
    }
    *held = h0 + h1;
    /* the saved rows of the same switches (by GUID); a LID past the new
       table's top (the highest LIDs lost) counts where it had a route */
    uint32_t *map = switch_map(t0, t1);
    *chg = changed_blocks(r0, y, map, S);
    uint64_t entries = 0;
    size_t L0 = ibr_result_lft_size(r0), LM = L0 > L ? L0 : L;
    for (uint32_t s = 0; s < S; s++) {
        const uint8_t *o = map[s] != NOSW ? ibr_result_lft(r0, map[s]) : NULL;
        for (size_t l = 1; l < LM; l++)
            entries += entry_at(ibr_result_lft(y, s), L, l) != entry_at(o, L0, l);
    }
    free(map);
    CU_ASSERT_EQUAL(rep.lft_entries_changed, entries);
    /* the blocks an SM sends, as the report counts them */
    CU_ASSERT_EQUAL(rep.lft_blocks_changed, (uint64_t)*chg);
    if (diff || hdiff || vr.pairs_ok != vr.pairs)
        fprintf(stderr, "%s: %ld LFT and %ld hop entries differ from a fresh route (%s%s)\n",
                what, diff, hdiff, rep.mode == IBR_REROUTE_FULL ? "full: " : "incremental",
                rep.reason);
    tree_free(&a);
    tree_free(&c);
    int mode = rep.mode;
    if (mode == IBR_REROUTE_FULL)
        snprintf(reason, 256, "%s", rep.reason);
    ibr_result_destroy(y);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(f1);
    ibr_result_destroy(r0);
    return mode;
}

static const char *const repair_specs[] = {
    "xgft:h=2,m=8.16,w=1.8",  "xgft:h=3,m=4.4.8,w=1.4.4",    "xgft:h=3,m=4.6.8,w=1.2.3",
    "fattree:levels=3,radix=8", "xgft:h=4,m=2.2.2.4,w=1.2.2.2", NULL /* parallel cables */,
    "LMC2:xgft:h=3,m=4.4.8,w=1.4.4",
};

/* One cable or one switch lost, or back, on intact and degraded trees:
   the repair in place equals a fresh route, and changes only the blocks
   that held a route over the element or that the formula moves (at most
   twice as many as the first). */
static void test_repair(void)
{
    long cases = 0, incremental = 0;
    for (size_t i = 0; i < sizeof repair_specs / sizeof *repair_specs; i++) {
        const char *spec = repair_specs[i];
        ibr_topo *intact = faulty(spec, 0, 0, -1, 0);
        uint32_t nsw = ibr_topo_switch_count(intact);
        const char *name = spec ? spec : "ftree-parallel.net";
        /* switches with end ports: a lost one moves the destination index */
        uint8_t *leaf = calloc(nsw, 1);
        tree ti;
        tree_init(&ti, intact);
        for (uint32_t s = 0; s < nsw; s++)
            leaf[s] = ti.level[s] == 1;
        tree_free(&ti);
        for (uint64_t seed = 1; seed <= 4; seed++) {
            unsigned base = seed > 2 ? 2 : 0; /* cables already lost */
            /* a switch above the leaves, but a leaf for seed 4 */
            long sw = -1;
            for (uint32_t k = 0, j = 0; k < nsw && sw < 0; k++)
                if (leaf[k] == (seed == 4) && j++ == (seed * 7919) % (nsw / 4 + 1))
                    sw = (long)k;
            if (sw < 0)
                sw = 0;
            int rm = (int)(seed % 2);
            struct {
                ibr_topo *t0, *t1;
                const char *kind;
                int single;
            } c[4] = {
                {faulty(spec, base, seed, -1, rm), faulty(spec, base + 1, seed, -1, rm),
                 "cable lost", 1},
                {faulty(spec, base + 1, seed, -1, rm), faulty(spec, base, seed, -1, rm),
                 "cable back", 1},
                {faulty(spec, base, seed, -1, rm), faulty(spec, base, seed, sw, rm),
                 "switch lost", spec && !leaf[sw]},
                {faulty(spec, base, seed, sw, rm), faulty(spec, base, seed, -1, rm),
                 "switch back", spec && !leaf[sw]},
            };
            for (int k = 0; k < 4; k++) {
                char what[160];
                snprintf(what, sizeof what, "%s seed %" PRIu64 " (%u lost before): %s", name,
                         seed, base, c[k].kind);
                long chg = 0, held = 0;
                char reason[256] = "";
                int mode = repair_case(c[k].t0, c[k].t1, what, &chg, &held, reason);
                if (mode < 0) {
                    c[k].single = 0; /* dmodc declines one of the fabrics */
                    continue;
                }
                cases++;
                if (mode != IBR_REROUTE_INCREMENTAL) {
                    if (c[k].single)
                        fprintf(stderr, "%s: full reroute: %s\n", what, reason);
                    continue; /* checked below */
                }
                incremental++;
                CU_ASSERT(chg <= 2 * held);
                if (chg > 2 * held)
                    fprintf(stderr, "%s: %ld blocks changed, %ld held a route over it\n", what,
                            chg, held);
                ibr_topo_destroy(c[k].t0);
                ibr_topo_destroy(c[k].t1);
                c[k].t0 = c[k].t1 = NULL;
            }
            for (int k = 0; k < 4; k++) {
                if (c[k].t0 && c[k].single) {
                    CU_FAIL("a single fault of a non-leaf element was not repaired in place");
                    fprintf(stderr, "%s seed %" PRIu64 ": %s not in place\n", name, seed,
                            c[k].kind);
                }
                ibr_topo_destroy(c[k].t0);
                ibr_topo_destroy(c[k].t1);
            }
        }
        /* several cables lost at once: still a fresh route */
        for (uint64_t seed = 1; seed <= 2; seed++) {
            ibr_topo *t1 = faulty(spec, 4, seed, -1, 1);
            long chg, held;
            char reason[256];
            if (repair_case(intact, t1, name, &chg, &held, reason) == IBR_REROUTE_INCREMENTAL)
                CU_ASSERT(chg <= 2 * held);
            ibr_topo_destroy(t1);
        }
        free(leaf);
        ibr_topo_destroy(intact);
    }
    CU_ASSERT(incremental > cases / 2);
}

/* The database keeps the saved fabric's model for the default options'
   LMC; a repair asked for another LMC builds its own. Both give a fresh
   route of the changed fabric under the same options, for a lost switch
   above the leaves and a lost cable, on a tree whose ports have LMC 2. */
static void test_repair_lmc_options(void)
{
    const char *spec = "LMC2:xgft:h=3,m=4.4.8,w=1.4.4";
    ibr_topo *t0 = faulty(spec, 0, 0, -1, 0);
    ibr_topo *t1[2] = {faulty(spec, 0, 0, 70, 1), faulty(spec, 1, 3, -1, 1)};
    for (unsigned lmc = 0; lmc <= 3; lmc++) {
        ibr_options o = IBR_OPTIONS_INIT;
        o.lmc = lmc == 3 ? IBR_LMC_TOPO : lmc;
        ibr_result *r0 = NULL;
        ibr_routing_db *db = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "dmodc,no_fallback", &o), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
        for (int k = 0; k < 2; k++) {
            ibr_result *y = NULL, *f1 = NULL;
            ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&f1, t1[k], "dmodc,no_fallback", &o), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1[k], &o, 0), 0);
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
            size_t L = ibr_result_lft_size(y);
            CU_ASSERT_EQUAL_FATAL(L, ibr_result_lft_size(f1));
            long diff = 0;
            for (uint32_t s = 0; s < ibr_topo_switch_count(t1[k]); s++)
                diff += memcmp(ibr_result_lft(y, s), ibr_result_lft(f1, s), L) != 0;
            CU_ASSERT_EQUAL(diff, 0);
            if (diff || rep.mode != IBR_REROUTE_INCREMENTAL)
                fprintf(stderr, "lmc %u, %s: %ld rows differ from a fresh route (%s)\n", lmc,
                        k ? "cable lost" : "switch lost", diff, rep.reason);
            ibr_result_destroy(y);
            ibr_result_destroy(f1);
        }
        ibr_routing_db_destroy(db);
        ibr_result_destroy(r0);
    }
    ibr_topo_destroy(t1[0]);
    ibr_topo_destroy(t1[1]);
    ibr_topo_destroy(t0);
}

/* The generated fabric of spec with links cables lost (seed), for the
   LID-space cases to edit further. */
static ibr_fabric *cabled(const char *spec, unsigned links, uint64_t seed)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    if (links)
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, links, 0, seed), 0);
    return f;
}

/* spec with `links` seeded cable faults (removed) and the k-th node that
   is no switch (an HCA) down, its cable removed (when remove) or left
   marked down. */
static ibr_topo *host_lost(const char *spec, unsigned links, uint64_t seed, uint32_t k,
                           int remove)
{
    ibr_fabric *f = cabled(spec, links, seed);
    ibr_topo *t = NULL;
    uint32_t n = ibr_fabric_node_count(f);
    for (uint32_t i = 0; i < n && links; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, i), 0);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_fabric_port_info(&pi, f, i, p) == 0 && pi.remote_node != IBR_NONE &&
                pi.state == IBR_LINK_DOWN)
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_remove_link(f, i, p), 0);
        }
    }
    for (uint32_t i = 0, j = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, i), 0);
        if (ni.type == IBR_NODE_SWITCH || j++ != k)
            continue;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_node_state(f, i, IBR_LINK_DOWN), 0);
        for (unsigned p = 1; p <= ni.nports && remove; p++)
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_remove_link(f, i, p), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* Entries (switch, LID) that route in both a and b to different ports:
   what the repair moved beyond the columns and rows that lost their
   routes (same switches on both sides). */
static long moved_routes(const ibr_result *a, const ibr_result *b, uint32_t nsw)
{
    size_t L = ibr_result_lft_size(a) < ibr_result_lft_size(b) ? ibr_result_lft_size(a)
                                                                : ibr_result_lft_size(b);
    long n = 0;
    for (uint32_t s = 0; s < nsw; s++)
        for (size_t l = 1; l < L; l++) {
            unsigned x = ibr_result_lft(a, s)[l], y = ibr_result_lft(b, s)[l];
            n += x != y && x != IBR_NO_ROUTE && y != IBR_NO_ROUTE;
        }
    return n;
}

/* A lost leaf switch (its end ports with it) or a lost end port on 2- and
   3-level XGFTs and rail-optimized trees, intact or with cables already
   lost: repaired in place (the destination index leaves a hole where the
   lost ones were), equal to a fresh route, valid and up/down. On an
   intact tree nothing else moves: every entry that routes before and
   after keeps its port. */
static void test_repair_lost_end(void)
{
    static const char *specs[] = {"xgft:h=2,m=8.16,w=1.8", "xgft:h=3,m=4.4.8,w=1.4.4",
                                  "xgft:h=3,m=4.6.8,w=1.2.3",
                                  "rail:nodes=64,rails=4,su=8,radix=16",
                                  "rail:nodes=64,rails=4,su=4,radix=16,levels=3"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *intact = faulty(specs[i], 0, 0, -1, 0);
        uint32_t nsw = ibr_topo_switch_count(intact);
        uint32_t nhost = ibr_topo_node_count(intact) - nsw;
        tree ti;
        tree_init(&ti, intact);
        uint32_t leaves[256], nl = 0;
        for (uint32_t s = 0; s < nsw && nl < 256; s++)
            if (ti.level[s] == 1)
                leaves[nl++] = s;
        tree_free(&ti);
        CU_ASSERT_FATAL(nl > 2 && nhost > 2);
        for (uint64_t seed = 1; seed <= 4; seed++) {
            unsigned base = seed > 2 ? 2 : 0; /* cables already lost */
            int rm = (int)(seed % 2);
            /* not the last leaf nor the last host: they hold the highest
               LID (test_repair_top_lid) */
            uint32_t leaf = leaves[(seed * 5) % (nl - 1)];
            uint32_t host = (uint32_t)((seed * 37) % (nhost - 1));
            struct {
                ibr_topo *t0, *t1;
                const char *kind;
            } c[2] = {
                {faulty(specs[i], base, seed, -1, rm), faulty(specs[i], base, seed, leaf, rm),
                 "leaf lost"},
                {faulty(specs[i], base, seed, -1, 1), host_lost(specs[i], base, seed, host, rm),
                 "end port lost"},
            };
            for (int k = 0; k < 2; k++) {
                char what[160], reason[256] = "";
                snprintf(what, sizeof what, "%s seed %" PRIu64 " (%u lost before): %s",
                         specs[i], seed, base, c[k].kind);
                long chg = 0, held = 0;
                int mode = repair_case(c[k].t0, c[k].t1, what, &chg, &held, reason);
                CU_ASSERT_EQUAL(mode, IBR_REROUTE_INCREMENTAL);
                if (mode != IBR_REROUTE_INCREMENTAL)
                    fprintf(stderr, "%s: not in place (%s)\n", what, reason);
                if (base == 0 || k == 1) {
                    ibr_result *a = route_dmodc(c[k].t0, NULL), *b = route_dmodc(c[k].t1, NULL);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
                    long mv = moved_routes(a, b, nsw);
                    CU_ASSERT_EQUAL(mv, 0);
                    if (mv)
                        fprintf(stderr, "%s: %ld entries moved\n", what, mv);
                    ibr_result_destroy(a);
                    ibr_result_destroy(b);
                }
                ibr_topo_destroy(c[k].t0);
                ibr_topo_destroy(c[k].t1);
            }
        }
        ibr_topo_destroy(intact);
    }
}

static ibr_topo *without_isolated(const ibr_topo *t, int hosts);

/* spec with `links` seeded cable faults (removed), then the end port that
   holds the highest LID lost (leaf 0) or the leaf it is cabled to (leaf
   1), with their cables: the LID space shrinks. */
static ibr_topo *top_lost(const char *spec, unsigned links, uint64_t seed, int leaf)
{
    ibr_fabric *f = cabled(spec, links, seed);
    ibr_topo *t = NULL;
    uint32_t n = ibr_fabric_node_count(f), top = IBR_NONE, top_sw = IBR_NONE;
    unsigned top_lid = 0;
    for (uint32_t i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, i), 0);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_fabric_port_info(&pi, f, i, p) != 0)
                continue;
            if (links && pi.remote_node != IBR_NONE && pi.state == IBR_LINK_DOWN) {
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_remove_link(f, i, p), 0);
            } else if (ni.type != IBR_NODE_SWITCH && pi.lid > top_lid &&
                       pi.remote_node != IBR_NONE) {
                top_lid = pi.lid;
                top = i;
                top_sw = pi.remote_node;
            }
        }
    }
    CU_ASSERT_FATAL(top != IBR_NONE);
    uint32_t gone = leaf ? top_sw : top;
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, gone), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_node_state(f, gone, IBR_LINK_DOWN), 0);
    for (unsigned p = 1; p <= ni.nports; p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_fabric_port_info(&pi, f, gone, p) == 0 && pi.remote_node != IBR_NONE)
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_remove_link(f, gone, p), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    ibr_topo *d = without_isolated(t, 1); /* as discovery sees it */
    ibr_topo_destroy(t);
    return d;
}

/* The trees the LID-space repairs are tried on: two- and three-level
   trees and a rail-optimized one. */
static const char *const lid_specs[] = {"xgft:h=2,m=8.16,w=1.8", "xgft:h=3,m=4.4.8,w=1.4.4",
                                        "rail:nodes=64,rails=4,su=8,radix=16"};

/* The leaf or the end port that holds the highest LID lost, on intact
   trees and trees that already lost cables: the LID space shrinks, and
   the repair in place gives the smaller table of a fresh route, counting
   the lost LIDs' routes as changed entries. */
static void test_repair_top_lid(void)
{
    const char *const *specs = lid_specs;
    for (size_t i = 0; i < sizeof lid_specs / sizeof *lid_specs; i++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            unsigned base = seed == 2 ? 2 : 0; /* cables already lost */
            for (int leaf = 0; leaf < 2; leaf++) {
                ibr_topo *t0 = faulty(specs[i], base, seed, -1, 1);
                ibr_topo *t1 = top_lost(specs[i], base, seed, leaf);
                CU_ASSERT(ibr_topo_max_lid(t1) < ibr_topo_max_lid(t0));
                char what[160], reason[256] = "";
                snprintf(what, sizeof what, "%s seed %" PRIu64 ": %s with the highest LID lost",
                         specs[i], seed, leaf ? "leaf" : "end port");
                long chg = 0, held = 0;
                int mode = repair_case(t0, t1, what, &chg, &held, reason);
                CU_ASSERT_EQUAL(mode, IBR_REROUTE_INCREMENTAL);
                if (mode != IBR_REROUTE_INCREMENTAL)
                    fprintf(stderr, "%s: not in place (%s)\n", what, reason);
                ibr_topo_destroy(t0);
                ibr_topo_destroy(t1);
            }
        }
}

/* spec with `links` seeded cable faults (removed), then LIDs changed:
   kind 0, the k-th end port takes a LID past the highest; 1, it swaps
   LIDs with the next end port (k + 1); 2, the k-th switch takes a LID
   past the highest. */
static ibr_topo *relid(const char *spec, unsigned links, uint64_t seed, int kind, uint32_t k)
{
    ibr_fabric *f = cabled(spec, links, seed);
    ibr_topo *t = NULL;
    uint32_t n = ibr_fabric_node_count(f), ends[2] = {IBR_NONE, IBR_NONE}, sw = IBR_NONE;
    uint16_t lids[2] = {0, 0}, top = 0;
    for (uint32_t i = 0, e = 0, w = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_node_info(&ni, f, i), 0);
        for (unsigned p = ni.type == IBR_NODE_SWITCH ? 0 : 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_fabric_port_info(&pi, f, i, p) != 0)
                continue;
            top = pi.lid > top ? pi.lid : top;
            if (links && p && pi.remote_node != IBR_NONE && pi.state == IBR_LINK_DOWN) {
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_remove_link(f, i, p), 0);
            } else if (ni.type == IBR_NODE_SWITCH && p == 0) {
                if (w++ == k)
                    sw = i;
            } else if (ni.type != IBR_NODE_SWITCH && pi.lid && e <= k + 1) {
                if (e >= k) {
                    ends[e - k] = i;
                    lids[e - k] = pi.lid;
                }
                e++;
            }
        }
    }
    if (kind == 2) {
        CU_ASSERT_FATAL(sw != IBR_NONE);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_lid(f, sw, 0, (uint16_t)(top + 1), 0), 0);
    } else if (kind == 0) {
        CU_ASSERT_FATAL(ends[0] != IBR_NONE);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_lid(f, ends[0], 1, (uint16_t)(top + 1), 0), 0);
    } else {
        CU_ASSERT_FATAL(ends[1] != IBR_NONE);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_lid(f, ends[0], 1, 0, 0), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_lid(f, ends[1], 1, lids[0], 0), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_lid(f, ends[0], 1, lids[1], 0), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* LIDs that change and end ports or leaves that come back (with their
   LIDs, the highest one too: the table grows), on intact trees and trees
   that already lost cables: repaired in place, equal to a fresh route of
   the changed fabric (repair_case), the churn counted against the saved
   entries of the same LID numbers. */
static void test_repair_lid_change(void)
{
    const char *const *specs = lid_specs;
    for (size_t i = 0; i < sizeof lid_specs / sizeof *lid_specs; i++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            unsigned base = seed == 2 ? 2 : 0; /* cables already lost */
            uint32_t k = (uint32_t)(seed * 11);
            struct {
                ibr_topo *t0, *t1;
                const char *kind;
            } c[] = {
                {faulty(specs[i], base, seed, -1, 1), relid(specs[i], base, seed, 0, k),
                 "end port with a new LID past the top"},
                {faulty(specs[i], base, seed, -1, 1), relid(specs[i], base, seed, 1, k),
                 "two end ports swap LIDs"},
                {faulty(specs[i], base, seed, -1, 1), relid(specs[i], base, seed, 2, k % 5),
                 "switch with a new LID"},
                {host_lost(specs[i], base, seed, k, 1), faulty(specs[i], base, seed, -1, 1),
                 "end port back"},
                {top_lost(specs[i], base, seed, 0), faulty(specs[i], base, seed, -1, 1),
                 "end port with the highest LID back"},
                {top_lost(specs[i], base, seed, 1), faulty(specs[i], base, seed, -1, 1),
                 "leaf with the highest LID back"},
            };
            for (size_t j = 0; j < sizeof c / sizeof *c; j++) {
                char what[200], reason[256] = "";
                snprintf(what, sizeof what, "%s seed %" PRIu64 ": %s", specs[i], seed,
                         c[j].kind);
                long chg = 0, held = 0;
                int mode = repair_case(c[j].t0, c[j].t1, what, &chg, &held, reason);
                CU_ASSERT_EQUAL(mode, IBR_REROUTE_INCREMENTAL);
                if (mode != IBR_REROUTE_INCREMENTAL)
                    fprintf(stderr, "%s: not in place (%s)\n", what, reason);
                ibr_topo_destroy(c[j].t0);
                ibr_topo_destroy(c[j].t1);
            }
        }
}

/* t written as ibnetdiscover text without its switches that have no
   cable (as discovery sees a fabric after a switch died), and with hosts
   its end nodes without one too, read back. */
static ibr_topo *without_isolated(const ibr_topo *t, int hosts)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_write_ibnetdiscover(&b, t), 0);
    char *out = malloc(b.size + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    size_t n = 0, dropped = 0;
    const char *p = (const char *)b.data, *end = p + b.size;
    while (p < end) {
        /* one paragraph: up to a blank line */
        const char *q = p;
        while (q < end && !(q[0] == '\n' && q + 1 < end && q[1] == '\n'))
            q++;
        q = q < end ? q + 2 : end;
        int sw = 0, cabled = 0;
        for (const char *l = p; l < q; l++)
            if (l == p || l[-1] == '\n') {
                sw |= !strncmp(l, "Switch", 6);
                cabled |= *l == '[';
            }
        if ((sw || hosts) && !cabled) {
            dropped++;
        } else {
            memcpy(out + n, p, (size_t)(q - p));
            n += (size_t)(q - p);
        }
        p = q;
    }
    ibr_buffer_dispose(&b);
    CU_ASSERT(dropped > 0);
    ibr_fabric *f = NULL;
    ibr_topo *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, out, n), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&r, f), 0);
    ibr_fabric_destroy(f);
    free(out);
    return r;
}

static uint64_t switch_guid(const ibr_topo *t, uint32_t s)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s)), 0);
    return ni.node_guid;
}

/* A switch above the leaves gone from the topology (every later switch
   renumbered): repaired in place, equal to a fresh route of the fabric
   without it (tables and hop matrix), valid and up/down; the entries and
   blocks the report counts are those that differ from the saved rows of
   the same switches (matched by GUID). Then back into the topology:
   repaired in place too, equal to a fresh route, valid. */
static void test_repair_gone(void)
{
    static const char *specs[] = {"xgft:h=3,m=4.4.8,w=1.4.4", "xgft:h=4,m=2.2.2.4,w=1.2.2.2",
                                  "xgft:h=3,m=4.6.8,w=1.2.3", "fattree:levels=3,radix=8"};
    long incremental = 0;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *intact = faulty(specs[i], 0, 0, -1, 0);
        tree ti;
        tree_init(&ti, intact);
        for (uint64_t seed = 1; seed <= 4; seed++) {
            /* a switch above the leaves, cables lost before for seeds 3-4 */
            long sw = -1;
            for (uint32_t k = 0, j = 0; k < ti.nsw && sw < 0; k++)
                if (ti.level[k] > 1 && j++ == (seed * 7919) % (ti.nsw / 4 + 1))
                    sw = (long)k;
            unsigned base = seed > 2 ? 2 : 0;
            ibr_topo *t0 = faulty(specs[i], base, seed, -1, 1);
            ibr_topo *down = faulty(specs[i], base, seed, sw, 1);
            ibr_topo *t1 = without_isolated(down, 0);
            ibr_topo_destroy(down);
            ibr_result *r0 = NULL, *f1 = NULL, *y = NULL;
            if (ibr_route(&r0, t0, "dmodc,no_fallback", NULL) != 0 ||
                ibr_route(&f1, t1, "dmodc,no_fallback", NULL) != 0) {
                ibr_result_destroy(r0);
                ibr_result_destroy(f1);
                ibr_topo_destroy(t0);
                ibr_topo_destroy(t1);
                continue; /* dmodc declines one of the fabrics */
            }
            ibr_buffer b = IBR_BUFFER_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, r0), 0);
            ibr_routing_db *db = NULL;
            CU_ASSERT_EQUAL_FATAL(
                ibr_routing_db_parse(&db, NULL, (const char *)b.data, b.size), 0);
            ibr_buffer_dispose(&b);
            ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
            incremental += rep.mode == IBR_REROUTE_INCREMENTAL;
            uint32_t S = ibr_topo_switch_count(t1), S0 = ibr_topo_switch_count(t0);
            CU_ASSERT_EQUAL(S + 1, S0);
            size_t L = ibr_result_lft_size(y);
            CU_ASSERT_EQUAL_FATAL(L, ibr_result_lft_size(f1));
            CU_ASSERT_EQUAL_FATAL(L, ibr_result_lft_size(r0));
            long diff = 0, hdiff = 0;
            uint64_t entries = 0, blocks = 0;
            for (uint32_t s = 0; s < S; s++) {
                const uint8_t *a = ibr_result_lft(y, s), *c = ibr_result_lft(f1, s);
                for (size_t l = 0; l < L; l++)
                    diff += a[l] != c[l];
                for (uint32_t d = 0; d < S; d++)
                    hdiff += ibr_result_hops(y, s, d) != ibr_result_hops(f1, s, d);
                uint32_t s0 = 0;
                while (s0 < S0 && switch_guid(t0, s0) != switch_guid(t1, s))
                    s0++;
                CU_ASSERT_FATAL(s0 < S0);
                const uint8_t *o = ibr_result_lft(r0, s0);
                for (size_t b0 = 0; b0 < L; b0 += 64) {
                    uint64_t e = 0;
                    for (size_t l = b0 ? b0 : 1; l < b0 + 64 && l < L; l++)
                        e += a[l] != o[l];
                    entries += e;
                    blocks += e != 0;
                }
            }
            CU_ASSERT_EQUAL(diff, 0);
            CU_ASSERT_EQUAL(hdiff, 0);
            CU_ASSERT_EQUAL(rep.lft_entries_changed, entries);
            CU_ASSERT_EQUAL(rep.lft_blocks_changed, blocks);
            if (diff || hdiff || rep.lft_entries_changed != entries)
                fprintf(stderr,
                        "%s seed %" PRIu64 ": %ld LFT, %ld hop entries differ from a fresh "
                        "route; %" PRIu64 " entries reported, %" PRIu64 " counted (%s)\n",
                        specs[i], seed, diff, hdiff, rep.lft_entries_changed, entries,
                        rep.reason);
            ibr_verify_report vr = {.version = IBR_VERIFY_REPORT_VERSION};
            CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
            CU_ASSERT(vr.pairs > 0 && vr.pairs_ok == vr.pairs && vr.deadlock_free == 1);
            check_tree(t1, y, specs[i]);
            ibr_result_destroy(y);
            ibr_routing_db_destroy(db);
            /* and back: saved without it, repaired onto t0 */
            CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, f1), 0);
            CU_ASSERT_EQUAL_FATAL(
                ibr_routing_db_parse(&db, NULL, (const char *)b.data, b.size), 0);
            ibr_buffer_dispose(&b);
            y = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t0, NULL, 0), 0);
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
            incremental += rep.mode == IBR_REROUTE_INCREMENTAL;
            diff = 0;
            for (uint32_t s = 0; s < S0; s++)
                diff += memcmp(ibr_result_lft(y, s), ibr_result_lft(r0, s), L) != 0;
            CU_ASSERT_EQUAL(diff, 0);
            CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
            CU_ASSERT(vr.pairs > 0 && vr.pairs_ok == vr.pairs && vr.deadlock_free == 1);
            ibr_result_destroy(y);
            ibr_routing_db_destroy(db);
            ibr_result_destroy(f1);
            ibr_result_destroy(r0);
            ibr_topo_destroy(t0);
            ibr_topo_destroy(t1);
        }
        tree_free(&ti);
        ibr_topo_destroy(intact);
    }
    CU_ASSERT(incremental >= 16);
}

static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *t = ibr_test_topo(ctx, "xgft:h=3,m=2.2.4,w=1.2.2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    long n;
    ibr_result *r = ibr_test_route_oom(&n, &st, t, "dmodc,no_fallback", NULL);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "dmodc");
    ibr_result_destroy(r);
    CU_ASSERT(n > 5);
    ibr_topo_destroy(t);
    /* the repair in place: every allocation failure is IBR_ENOMEM and
       leaks nothing */
    ibr_topo *t0 = NULL, *t1 = NULL;
    for (int k = 0; k < 2; k++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "xgft:h=3,m=4.4.8,w=1.4.4"), 0);
        if (k)
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 2, 0, 5), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(k ? &t1 : &t0, f), 0);
        ibr_fabric_destroy(f);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t0, "dmodc,no_fallback", NULL), 0);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, r), 0);
    ibr_result_destroy(r);
    long live = st.live, fails = 0;
    for (long k = 0;; k++) {
        st.fail_at = st.calls + k;
        ibr_routing_db *db = NULL;
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        int rc = ibr_routing_db_parse(&db, ctx, (const char *)b.data, b.size);
        if (rc == 0)
            rc = ibr_routing_db_route(&y, &rep, db, t1, NULL, 0);
        st.fail_at = -1;
        if (rc == 0)
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
        ibr_result_destroy(y);
        ibr_routing_db_destroy(db);
        CU_ASSERT_EQUAL_FATAL(st.live, live);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        fails++;
    }
    CU_ASSERT(fails > 20);
    ibr_buffer_dispose(&b);
    ibr_topo_destroy(t0);
    ibr_topo_destroy(t1);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"intact trees: up*down*, shortest, loop-free, shift congestion-free", test_intact},
        {"parallel cables, intact and degraded", test_parallel},
        {"degraded trees: every up*down* pair delivered, legal, loop-free", test_degraded},
        {"degraded tree: shifts near congestion-free", test_degraded_shift},
        {"oversubscribed trees: shifts near the bound", test_cbb},
        {"a lost spine or top switch: its slot kept, all-to-all spread", test_lost_spine},
        {"one cable lost: only routes over it change", test_local_change},
        {"a leaf that lost an end port: only its LIDs change", test_lost_host},
        {"tables of intact trees pinned", test_pinned},
        {"determinism across thread counts", test_determinism},
        {"tori, meshes, hypercubes, dragonflies decline", test_declines},
        {"LMC 2: the LIDs of a port spread over up ports", test_lmc},
        {"repair in place after a lost or returning cable or switch", test_repair},
        {"repair in place after a switch left the topology", test_repair_gone},
        {"repair in place under another LMC than the saved model's", test_repair_lmc_options},
        {"repair in place after a lost leaf or end port", test_repair_lost_end},
        {"repair in place after the highest LID's leaf or end port is lost",
         test_repair_top_lid},
        {"repair in place after LIDs change or end ports come back", test_repair_lid_change},
        {"allocation failure", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("dmodc", tests);
}
