/* LMC > 0 on fat trees: the 2^LMC LIDs of an end port reach it over
   different upper switches, disjoint where the tree allows. Checked
   independently of the engines: levels are measured here (one more than
   the distance to the nearest switch with end ports), every route from
   every leaf to every LID is walked through the LFTs, and the switches a
   port's LIDs pass are compared with the upper switches the tree offers
   between the two leaves. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NOSW 0xFFFFFFFFu
#define MAXLEV 8
#define MAXN 128

/* The tree as measured by the harness (levels, neighbours, where each
   end-port LID is delivered and how many LIDs each port has), with the
   switches each switch reaches going up only. */
typedef struct model {
    ibr_test_tree tr;
    uint8_t *up;        /* nsw x nsw: up[a * nsw + b] = b is reached from a going up only */
} model;

static void model_init(model *m, const ibr_topo *t)
{
    ibr_test_tree_init(&m->tr, t);
    uint32_t nsw = m->tr.nsw;
    const int *level = m->tr.level;
    m->up = calloc((size_t)nsw * nsw + 1, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m->up);
    /* up closures, from the top level down */
    int top = 0;
    for (uint32_t s = 0; s < nsw; s++)
        top = level[s] > top ? level[s] : top;
    for (int l = top; l >= 1; l--)
        for (uint32_t s = 0; s < nsw; s++) {
            if (level[s] != l)
                continue;
            uint8_t *row = m->up + (size_t)s * nsw;
            row[s] = 1;
            for (unsigned p = 1; p < 255; p++) {
                uint32_t v = m->tr.nbr[(size_t)s * 255 + p];
                if (v == NOSW || level[v] != l + 1)
                    continue;
                const uint8_t *vr = m->up + (size_t)v * nsw;
                for (uint32_t x = 0; x < nsw; x++)
                    row[x] |= vr[x];
            }
        }
}

static void model_free(model *m)
{
    ibr_test_tree_free(&m->tr);
    free(m->up);
}

typedef struct spread_stats {
    long pairs;      /* (leaf, end port on another leaf) pairs, LMC > 0 */
    long lids;       /* routes walked */
    long bad;        /* routes not delivered, not up*down*, or not shortest */
    long top_ok;     /* pairs whose LIDs turn at min(2^LMC, offered) switches */
    long top_near;   /* ... at one switch fewer, or more */
    long levels_ok;  /* pairs that reach min(2^LMC, offered) switches at every
                        level up to the turn, and leave the leaf on
                        min(2^LMC, offered) cables */
    long collapsed;  /* pairs whose LIDs all turn at one switch though the
                        tree offers two or more */
} spread_stats;

/* Walk route s -> lid; fills at[level] with the switch at each level on
   the way up. Returns the route's length, or -1 when it is not delivered
   or turns up after going down. */
static int walk(const model *m, const ibr_result *r, uint32_t s, unsigned lid,
                uint32_t at[MAXLEV + 2], unsigned *first_port)
{
    uint32_t cur = s;
    int down = 0, len = 0;
    for (unsigned steps = 0; steps <= m->tr.nsw; steps++) {
        unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
        if (p == IBR_NO_ROUTE)
            return -1;
        if (cur == m->tr.ep_sw[lid] && p == m->tr.ep_port[lid])
            return len;
        uint32_t nx = p < 255 ? m->tr.nbr[(size_t)cur * 255 + p] : NOSW;
        if (nx == NOSW)
            return -1;
        int up = m->tr.level[nx] > m->tr.level[cur];
        if (m->tr.level[nx] == m->tr.level[cur] || (up && down))
            return -1;
        if (len == 0)
            *first_port = p;
        if (up && m->tr.level[nx] <= MAXLEV)
            at[m->tr.level[nx]] = nx;
        down |= !up;
        cur = nx;
        len++;
    }
    return -1;
}

static unsigned count_distinct(const uint32_t *v, unsigned n)
{
    unsigned d = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = 0;
        while (j < i && v[j] != v[i])
            j++;
        d += j == i;
    }
    return d;
}

static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

/* The pair (leaf s, end port with base LID b on leaf d). */
static void check_pair(spread_stats *st, const model *m, const ibr_result *r, uint32_t s,
                       unsigned b)
{
    uint32_t d = m->tr.ep_sw[b], nsw = m->tr.nsw;
    unsigned n = m->tr.ep_n[b];
    const uint8_t *us = m->up + (size_t)s * nsw, *ud = m->up + (size_t)d * nsw;
    /* the turn level: the lowest level with a common upper switch */
    int turn = 0;
    for (uint32_t x = 0; x < nsw; x++)
        if (us[x] && ud[x] && (!turn || m->tr.level[x] < turn))
            turn = m->tr.level[x];
    if (!turn || turn > MAXLEV || n > MAXN)
        return;
    st->pairs++;
    /* offered[l]: the level-l switches above s that lead up to a common one */
    unsigned offered[MAXLEV + 2] = {0};
    uint8_t *valid = calloc(nsw, 1);
    for (uint32_t x = 0; x < nsw; x++) {
        if (!us[x] || m->tr.level[x] > turn)
            continue;
        const uint8_t *ux = m->up + (size_t)x * nsw;
        for (uint32_t y = 0; y < nsw && !valid[x]; y++)
            valid[x] = ux[y] && ud[y] && m->tr.level[y] == turn;
        offered[m->tr.level[x]] += valid[x];
    }
    unsigned cables = 0;
    for (unsigned p = 1; p < 255; p++) {
        uint32_t v = m->tr.nbr[(size_t)s * 255 + p];
        cables += v != NOSW && m->tr.level[v] == 2 && valid[v];
    }
    uint32_t at[MAXN][MAXLEV + 2];
    uint32_t col[MAXN];
    unsigned first[MAXN];
    int bad = 0;
    for (unsigned k = 0; k < n; k++) {
        memset(at[k], 0xFF, sizeof at[k]);
        first[k] = 0;
        int len = walk(m, r, s, b + k, at[k], &first[k]);
        st->lids++;
        bad |= len != 2 * (turn - 1);
    }
    st->bad += bad;
    if (bad) {
        free(valid);
        return;
    }
    int ok = 1;
    for (int l = 2; l <= turn; l++) {
        for (unsigned k = 0; k < n; k++)
            col[k] = at[k][l];
        unsigned want = min_u(n, offered[l]), got = count_distinct(col, n);
        if (l == turn) {
            st->top_ok += got == want;
            st->top_near += got + 1 >= want;
            st->collapsed += got == 1 && want > 1;
        }
        ok &= got == want;
    }
    ok &= count_distinct(first, n) == min_u(n, cables);
    st->levels_ok += ok;
    free(valid);
}

static spread_stats check_spread(const ibr_topo *t, const ibr_result *r)
{
    model m;
    model_init(&m, t);
    spread_stats st;
    memset(&st, 0, sizeof st);
    for (uint32_t s = 0; s < m.tr.nsw; s++) {
        if (m.tr.level[s] != 1)
            continue;
        for (unsigned b = 1; b <= m.tr.maxlid; b++)
            if (m.tr.ep_n[b] > 1 && m.tr.ep_sw[b] != NOSW && m.tr.ep_sw[b] != s)
                check_pair(&st, &m, r, s, b);
    }
    model_free(&m);
    return st;
}

static ibr_result *route(const ibr_topo *t, const char *engine)
{
    char chain[64];
    snprintf(chain, sizeof chain, "%s,no_fallback", engine);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    ibr_result *r = ibr_test_route(&rep, t, chain, NULL, IBR_TEST_DEADLOCK_FREE);
    if (!r)
        return NULL;
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), engine);
    CU_ASSERT(rep.pairs > 0);
    size_t len = 1;
    CU_ASSERT_EQUAL(ibr_result_find_credit_loop(NULL, 0, &len, r), 0);
    CU_ASSERT_EQUAL(len, 0);
    return r;
}

static const char *const engines[] = {"dmodc", "ftree"};

static const char *const intact_specs[] = {
    "xgft:h=2,m=8.16,w=1.8",     /* 8 spines */
    "xgft:h=3,m=4.4.8,w=1.4.4",  /* 4 up per switch, 16 top switches */
    "xgft:h=3,m=4.4.4,w=1.2.4",  /* 2 up at the leaves, 4 above: 8 tops */
    "fattree:levels=3,radix=8",
    "xgft:h=4,m=2.2.2.4,w=1.2.2.2",
};

static void report(const char *what, const spread_stats *st)
{
    fprintf(stderr, "%s: pairs %ld lids %ld bad %ld top %ld near %ld levels %ld collapsed %ld\n",
            what, st->pairs, st->lids, st->bad, st->top_ok, st->top_near, st->levels_ok,
            st->collapsed);
}

/* Intact XGFTs, LMC 1 to 3: every LID of every port delivered over a
   shortest up*down* route, and from every leaf the LIDs of a port turn at
   min(2^LMC, offered) different switches, pass that many switches at
   every level below, and leave the leaf on that many cables. */
static void test_intact(void)
{
    for (size_t e = 0; e < 2; e++)
        for (size_t i = 0; i < sizeof intact_specs / sizeof *intact_specs; i++)
            for (unsigned lmc = 1; lmc <= 3; lmc++) {
                ibr_topo *t = ibr_test_topo_faults(intact_specs[i], 0, 0, 0, lmc);
                ibr_result *r = route(t, engines[e]);
                CU_ASSERT_PTR_NOT_NULL_FATAL(r);
                spread_stats st = check_spread(t, r);
                CU_ASSERT(st.pairs > 0);
                CU_ASSERT_EQUAL(st.bad, 0);
                CU_ASSERT_EQUAL(st.top_ok, st.pairs);
                CU_ASSERT_EQUAL(st.levels_ok, st.pairs);
                if (st.bad || st.top_ok != st.pairs || st.levels_ok != st.pairs) {
                    char what[128];
                    snprintf(what, sizeof what, "%s %s lmc %u", engines[e], intact_specs[i],
                             lmc);
                    report(what, &st);
                }
                ibr_result_destroy(r);
                ibr_topo_destroy(t);
            }
}

/* Parallel cables (two per leaf-spine pair, 4 spines): LMC 2 turns at the
   4 spines, LMC 3 leaves each leaf on all 8 cables. */
static void test_parallel(void)
{
    size_t len;
    char *text = ibr_test_read_file(IBR_TEST_DATA "/ftree-parallel.net", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (size_t e = 0; e < 2; e++)
        for (unsigned lmc = 1; lmc <= 3; lmc++) {
            ibr_fabric *f = NULL;
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, text, len), 0);
            CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_REASSIGN), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_fabric_destroy(f);
            ibr_result *r = route(t, engines[e]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            spread_stats st = check_spread(t, r);
            CU_ASSERT(st.pairs > 0);
            CU_ASSERT_EQUAL(st.bad, 0);
            CU_ASSERT_EQUAL(st.top_ok, st.pairs);
            CU_ASSERT_EQUAL(st.levels_ok, st.pairs);
            if (st.bad || st.levels_ok != st.pairs) {
                char what[96];
                snprintf(what, sizeof what, "%s ftree-parallel.net lmc %u", engines[e], lmc);
                report(what, &st);
            }
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
        }
    free(text);
}

/* Degraded trees (cables and switches lost), LMC 1 to 3: every LID
   delivered over a shortest up*down* route, no credit loop, the LIDs of a
   port never all on one turning switch where the tree offers two, and
   most pairs spread as far as the surviving tree allows: with LMC 1 all,
   LMC 2 95 %, LMC 3 (8 LIDs over at most 16 turning switches, where a
   detour around a lost link may land on a sibling's) 60 % fully and 85 %
   within one switch. */
static void test_degraded(void)
{
    static const struct {
        const char *spec;
        unsigned links, switches;
    } c[] = {
        {"xgft:h=2,m=8.16,w=1.8", 6, 1},
        {"xgft:h=3,m=4.4.8,w=1.4.4", 8, 1},
        {"xgft:h=3,m=4.4.4,w=1.2.4", 6, 1},
        {"fattree:levels=3,radix=8", 12, 2},
    };
    for (size_t e = 0; e < 2; e++)
        for (size_t i = 0; i < sizeof c / sizeof *c; i++)
            for (unsigned lmc = 1; lmc <= 3; lmc++) {
                spread_stats sum;
                memset(&sum, 0, sizeof sum);
                for (uint64_t seed = 1; seed <= 4; seed++) {
                    ibr_topo *t =
                        ibr_test_topo_faults(c[i].spec, c[i].links, c[i].switches, seed, lmc);
                    ibr_result *r = NULL;
                    char chain[64];
                    snprintf(chain, sizeof chain, "%s,no_fallback", engines[e]);
                    if (ibr_route(&r, t, chain, NULL) != 0) {
                        /* a split tree: both engines decline it */
                        ibr_result_destroy(r);
                        ibr_topo_destroy(t);
                        continue;
                    }
                    ibr_result_destroy(r);
                    r = route(t, engines[e]);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
                    spread_stats st = check_spread(t, r);
                    sum.pairs += st.pairs;
                    sum.lids += st.lids;
                    sum.bad += st.bad;
                    sum.top_ok += st.top_ok;
                    sum.top_near += st.top_near;
                    sum.levels_ok += st.levels_ok;
                    sum.collapsed += st.collapsed;
                    ibr_result_destroy(r);
                    ibr_topo_destroy(t);
                }
                char what[128];
                snprintf(what, sizeof what, "%s %s faults %u,%u lmc %u", engines[e], c[i].spec,
                         c[i].links, c[i].switches, lmc);
                report(what, &sum);
                CU_ASSERT(sum.pairs > 0);
                CU_ASSERT_EQUAL(sum.bad, 0);
                CU_ASSERT_EQUAL(sum.collapsed, 0);
                if (lmc == 1) {
                    CU_ASSERT_EQUAL(sum.top_ok, sum.pairs);
                } else if (lmc == 2) {
                    CU_ASSERT(sum.top_ok * 100 >= sum.pairs * 95);
                } else {
                    CU_ASSERT(sum.top_ok * 100 >= sum.pairs * 60);
                    CU_ASSERT(sum.top_near * 100 >= sum.pairs * 85);
                }
            }
}

/* The tables do not depend on the thread count, and an allocation
   failure anywhere fails the call without a leak. */
static void test_threads_oom(void)
{
    for (size_t e = 0; e < 2; e++) {
        char chain[64];
        snprintf(chain, sizeof chain, "%s,no_fallback", engines[e]);
        ibr_topo *t = ibr_test_topo_faults("xgft:h=3,m=4.4.8,w=1.4.4", 6, 1, 2, 2);
        ibr_options o = IBR_OPTIONS_INIT;
        o.threads = 1;
        ibr_result *a = NULL, *b = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&a, t, chain, &o), 0);
        o.threads = 4;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&b, t, chain, &o), 0);
        size_t n = (size_t)ibr_topo_switch_count(t) * ibr_result_lft_size(a);
        CU_ASSERT_EQUAL(memcmp(ibr_result_lft(a, 0), ibr_result_lft(b, 0), n), 0);
        ibr_result_destroy(a);
        ibr_result_destroy(b);
        ibr_topo_destroy(t);
    }
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "xgft:h=2,m=4.8,w=1.4"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    for (size_t e = 0; e < 2; e++) {
        char chain[64];
        snprintf(chain, sizeof chain, "%s,no_fallback", engines[e]);
        long fails;
        ibr_result *r = ibr_test_route_oom(&fails, &st, t, chain, NULL);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), engines[e]);
        CU_ASSERT(fails > 5);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"intact trees: the LIDs of a port turn at different switches", test_intact},
        {"parallel cables: the LIDs of a port spread over spines and cables", test_parallel},
        {"degraded trees: LIDs delivered, spread where the tree allows", test_degraded},
        {"thread counts, allocation failure", test_threads_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("lmc", tests);
}
