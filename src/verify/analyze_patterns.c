/*
 * Traffic patterns of ibr_result_analyze(): shift, random permutations and
 * random bisections over the ranks (the end ports cabled to a switch, in
 * the rank order), and the workloads' patterns (rings, recursive
 * doubling, per rail, mixture of experts, process grids).
 *
 * Each pattern is one parallel item. Whether a flow's route works was
 * recorded per (switch, LID) by the path pass in the tiled copy of the
 * LFTs, so broken routes are never walked. The working flows advance one hop per round, all of them in
 * turn: the hops of different flows do not depend on each other, so the
 * processor overlaps their memory loads (a flow walked alone is a chain of
 * dependent loads). The walk reads dense tables: the LFTs in tiles of 64
 * LIDs (analyze_int.h), and port -> (link, next switch). The links of every flow are kept
 * round by round while per-link counters fill up; then each flow's share is
 * 1 / the count of its busiest link. Counters are reset through the list of
 * links the pattern touched. Random patterns are seeded from the options'
 * seed and their index alone, so the numbers do not depend on the thread
 * count.
 */
#include <string.h>

#include "verify/analyze_int.h"

/* Largest link buffer per worker when the flows' paths are long: the
   flows whose links do not fit are walked a second time instead. */
#define BUF_SOFT_CAP ((size_t)1 << 22)
/* How many flows ahead the LFT entry of a flow is prefetched. */
#define PREFETCH 16

int ibr__analyze_pattern_scratch(ibr__ajob *j)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    const ibr_topo *t = j->t;
    j->hop = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *j->hop);
    if (j->max_flows < j->n_ep)
        j->max_flows = j->n_ep;
    j->recip = ibr__mallocarray(ctx, (size_t)j->max_flows + 1, sizeof *j->recip);
    if (!j->hop || !j->recip)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_ports; i++)
        j->hop[i] = (ibr__ahop){IBR_NONE, IBR_NONE};
    for (uint32_t s = 0; s < j->nsw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            j->hop[j->sw_port_off[s] + t->adj[e].port] = (ibr__ahop){e, t->adj[e].sw};
    j->recip[0] = 1.0;
    for (uint32_t c = 1; c <= j->max_flows; c++)
        j->recip[c] = 1.0 / (double)c;

    size_t n = j->max_flows ? j->max_flows : 1;
    size_t links = t->n_adj ? t->n_adj : 1;
    size_t ml = j->max_len ? j->max_len : 1;
    size_t cap = n > SIZE_MAX / ml ? SIZE_MAX : n * ml;
    size_t soft = n * 8 > BUF_SOFT_CAP ? n * 8 : BUF_SOFT_CAP;
    if (cap > soft)
        cap = soft;
    for (unsigned i = 0; i < j->nw; i++) {
        ibr__aworker *w = &j->w[i];
        w->cnt = ibr__calloc(ctx, links, sizeof *w->cnt);
        w->touched = ibr__mallocarray(ctx, links + 1, sizeof *w->touched);
        w->perm = ibr__mallocarray(ctx, n, sizeof *w->perm);
        w->fsw = ibr__mallocarray(ctx, n, sizeof *w->fsw);
        w->fdlid = ibr__mallocarray(ctx, n, sizeof *w->fdlid);
        w->fcur = ibr__mallocarray(ctx, n, sizeof *w->fcur);
        w->flen = ibr__mallocarray(ctx, n, sizeof *w->flen);
        w->active = ibr__mallocarray(ctx, n, sizeof *w->active);
        w->fdsw = ibr__mallocarray(ctx, n, sizeof *w->fdsw);
        w->frow = ibr__mallocarray(ctx, n, sizeof *w->frow);
        w->buf = ibr__mallocarray(ctx, cap, sizeof *w->buf);
        w->buf_cap = cap;
        if (!w->cnt || !w->touched || !w->perm || !w->fsw || !w->fdlid || !w->fcur ||
            !w->flen || !w->active || !w->fdsw || !w->frow || !w->buf)
            return IBR_ENOMEM;
        int rc = ibr__analyze_bound_scratch(j, w);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static inline void add_flow(const ibr__ajob *j, ibr__aworker *w, uint32_t *nf, uint32_t src,
                            uint32_t dst)
{
    unsigned lid = j->ep_lid[dst];
    if (!j->opts.base_lid_only && j->ep_lmc[dst])
        lid += src & ((1u << j->ep_lmc[dst]) - 1u);
    w->fsw[*nf] = j->ep_sw[src];
    w->fdlid[*nf] = lid;
    (*nf)++;
}

static void shuffle(ibr__aworker *w, uint32_t n, uint64_t seed)
{
    ibr__rng g;
    ibr__rng_seed(&g, seed);
    for (uint32_t i = 0; i < n; i++)
        w->perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t k = (uint32_t)ibr__rng_below(&g, i);
        uint32_t x = w->perm[i - 1];
        w->perm[i - 1] = w->perm[k];
        w->perm[k] = x;
    }
}

/* The seed of random pattern k of a family: a distinct stream for every
   (family, k), the same whatever the thread count. */
static uint64_t pattern_seed(uint64_t seed, unsigned family, size_t k)
{
    uint64_t idx = 2 * (uint64_t)k + (family == IBR_PATTERN_BISECTION ? 1u : 0u);
    return seed ^ ((idx + 1) * 0xd1b54a32d192ed03ULL);
}

/* Recursive doubling step k among the m ranks g[0..m-1]: g[i] <-> g[i ^ 2^k]. */
static void rd_step(const ibr__ajob *j, ibr__aworker *w, uint32_t *nf, const uint32_t *g,
                    uint32_t m, size_t k)
{
    uint32_t b = k < 31 ? 1u << k : 0;
    for (uint32_t i = 0; i < m && b; i++)
        if ((i ^ b) < m)
            add_flow(j, w, nf, j->rank_ep[g[i]], j->rank_ep[g[i ^ b]]);
}

/* Mixture of experts, pattern k: in groups of moe_group consecutive ranks,
   every rank sends to moe_fanout distinct others of its group drawn at
   random (all of them when the group is smaller). */
static void moe_flows(const ibr__ajob *j, ibr__aworker *w, uint32_t *nf, size_t k)
{
    uint32_t n = j->n_rank, gsz = j->opts.moe_group;
    ibr__rng g;
    ibr__rng_seed(&g, j->opts.seed ^ ((2 * (uint64_t)k + 1) * 0x9e3779b97f4a7c15ULL));
    uint32_t *pool = w->perm, *pos = w->active;
    for (uint32_t base = 0; base < n; base += gsz) {
        uint32_t m = n - base < gsz ? n - base : gsz;
        uint32_t f = j->opts.moe_fanout < m - 1 ? j->opts.moe_fanout : m - 1;
        for (uint32_t i = 0; i < m; i++)
            pool[i] = pos[i] = i;
        for (uint32_t i = 0; i < m; i++) {
            /* move i to the end, then draw f from the m - 1 before it */
            uint32_t pi = pos[i], last = pool[m - 1];
            pool[pi] = last;
            pos[last] = pi;
            pool[m - 1] = i;
            pos[i] = m - 1;
            for (uint32_t d = 0; d < f; d++) {
                uint32_t x = d + (uint32_t)ibr__rng_below(&g, m - 1 - d);
                uint32_t a = pool[d], b = pool[x];
                pool[d] = b;
                pool[x] = a;
                pos[b] = d;
                pos[a] = x;
                add_flow(j, w, nf, j->rank_ep[base + i], j->rank_ep[base + b]);
            }
        }
    }
}

/* Nearest neighbour on the periodic grid gdim (row-major, the last
   dimension fastest): every rank sends to its +1 and -1 neighbour in each
   dimension (one neighbour when the dimension is 2, none when 1). */
static void grid_flows(const ibr__ajob *j, ibr__aworker *w, uint32_t *nf)
{
    const unsigned *d = j->gdim;
    uint32_t n = j->n_rank;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t c[3] = {r / (d[1] * d[2]), (r / d[2]) % d[1], r % d[2]};
        for (unsigned a = 0; a < 3; a++) {
            for (unsigned dir = 0; dir < 2 && d[a] > 1 && (dir == 0 || d[a] > 2); dir++) {
                uint32_t e[3] = {c[0], c[1], c[2]};
                e[a] = dir == 0 ? (c[a] + 1) % d[a] : (c[a] + d[a] - 1) % d[a];
                add_flow(j, w, nf, j->rank_ep[r], j->rank_ep[(e[0] * d[1] + e[1]) * d[2] + e[2]]);
            }
        }
    }
}

static uint32_t make_flows(const ibr__ajob *j, ibr__aworker *w, size_t k)
{
    uint32_t n = j->n_rank, nf = 0;
    const uint32_t *re = j->rank_ep;
    switch (j->family) {
    case IBR_PATTERN_SHIFT: {
        uint32_t sh = (uint32_t)(k + 1);
        for (uint32_t i = 0; i < n; i++)
            add_flow(j, w, &nf, re[i], re[n - i > sh ? i + sh : i + sh - n]);
        break;
    }
    case IBR_PATTERN_PERMUTATION:
        shuffle(w, n, pattern_seed(j->opts.seed, j->family, k));
        for (uint32_t i = 0; i < n; i++)
            if (w->perm[i] != i)
                add_flow(j, w, &nf, re[i], re[w->perm[i]]);
        break;
    case IBR_PATTERN_BISECTION:
        shuffle(w, n, pattern_seed(j->opts.seed, j->family, k));
        for (uint32_t i = 0; i + 1 < n; i += 2) {
            add_flow(j, w, &nf, re[w->perm[i]], re[w->perm[i + 1]]);
            add_flow(j, w, &nf, re[w->perm[i + 1]], re[w->perm[i]]);
        }
        break;
    case IBR__FAM_RING:
        for (uint32_t i = 0; i < n; i++)
            add_flow(j, w, &nf, re[i], re[i + 1 < n ? i + 1 : 0]);
        break;
    case IBR__FAM_RD:
        for (uint32_t i = 0; i < n; i++)
            w->perm[i] = i;
        rd_step(j, w, &nf, w->perm, n, k);
        break;
    case IBR__FAM_RAIL_RING:
        for (uint32_t r = 0; r < j->n_rails; r++) {
            const uint32_t *g = j->rail_rank + j->rail_off[r];
            uint32_t m = j->rail_off[r + 1] - j->rail_off[r];
            for (uint32_t i = 0; i < m && m > 1; i++)
                add_flow(j, w, &nf, re[g[i]], re[g[i + 1 < m ? i + 1 : 0]]);
        }
        break;
    case IBR__FAM_RAIL_RD:
        for (uint32_t r = 0; r < j->n_rails; r++)
            rd_step(j, w, &nf, j->rail_rank + j->rail_off[r], j->rail_off[r + 1] - j->rail_off[r],
                    k);
        break;
    case IBR__FAM_MOE:
        moe_flows(j, w, &nf, k);
        break;
    default: /* IBR__FAM_GRID */
        grid_flows(j, w, &nf);
        break;
    }
    return nf;
}

/* The busiest link of a flow whose links were not all stored: walk it
   again. */
static uint32_t rewalk_max(const ibr__ajob *j, const ibr__aworker *w, uint32_t s, unsigned lid)
{
    uint32_t dsw = j->t->lid_sw[lid], m = 0;
    const uint8_t *row = ibr__atile_row(j, lid);
    while (s != dsw) {
        ibr__ahop h = j->hop[j->sw_port_off[s] + row[(size_t)s * 64]];
        if (w->cnt[h.link] > m)
            m = w->cnt[h.link];
        s = h.next;
    }
    return m;
}

/* Keep the busiest links of the pattern in j->cap_*: most flows first,
   then the lower link index. */
static void capture_top(ibr__ajob *j, const uint32_t *cnt, const uint32_t *touched, size_t nt)
{
    unsigned want = j->opts.top_links, n = 0;
    for (size_t i = 0; i < nt; i++) {
        uint32_t l = touched[i];
        uint64_t c = cnt[l];
        unsigned p = n;
        while (p > 0 && (j->cap_cnt[p - 1] < c || (j->cap_cnt[p - 1] == c && j->cap_link[p - 1] > l)))
            p--;
        if (p >= want)
            continue;
        unsigned last = n < want ? n : want - 1;
        for (unsigned q = last; q > p; q--) {
            j->cap_cnt[q] = j->cap_cnt[q - 1];
            j->cap_link[q] = j->cap_link[q - 1];
        }
        j->cap_cnt[p] = c;
        j->cap_link[p] = l;
        if (n < want)
            n++;
    }
    j->n_cap = n;
}

static int eval_pattern(void *arg, unsigned worker, size_t k)
{
    ibr__ajob *j = arg;
    ibr__aworker *w = &j->w[worker];
    const ibr__ahop *hop = j->hop;
    const uint32_t *swoff = j->sw_port_off;
    const uint32_t *lid_sw = j->t->lid_sw;
    uint32_t *cnt = w->cnt, *touched = w->touched;
    uint32_t *fcur = w->fcur, *flen = w->flen, *fdlid = w->fdlid, *active = w->active;
    uint32_t *fdsw = w->fdsw;
    size_t *frow = w->frow;
    uint32_t nf = make_flows(j, w, k);
    uint32_t na = 0;
    uint64_t unrouted = 0;
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t s = w->fsw[f];
        unsigned lid = fdlid[f];
        const uint8_t *row = ibr__atile_row(j, lid);
        if (!row[(size_t)s * 64]) {
            flen[f] = IBR_NONE;
            unrouted++;
            continue;
        }
        flen[f] = 0;
        fcur[f] = s;
        fdsw[f] = lid_sw[lid];
        frow[f] = (size_t)(row - j->lft_t);
        if (s != fdsw[f])
            active[na++] = f;
    }
    /* one hop of every flow still on its way per round */
    size_t rounds_kept = nf ? w->buf_cap / nf : 0;
    size_t nt = 0;
    const uint8_t *tiles = j->lft_t;
    for (size_t r = 0; na; r++) {
        uint32_t *col = r < rounds_kept ? w->buf + r * nf : NULL;
        uint32_t nn = 0;
        for (uint32_t i = 0; i < na; i++) {
            if (i + PREFETCH < na) {
                uint32_t g = active[i + PREFETCH];
                __builtin_prefetch(tiles + frow[g] + (size_t)fcur[g] * 64);
            }
            uint32_t f = active[i];
            uint32_t s = fcur[f];
            ibr__ahop h = hop[swoff[s] + tiles[frow[f] + (size_t)s * 64]];
            uint32_t c = cnt[h.link]++;
            touched[nt] = h.link;
            nt += c == 0;
            if (col)
                col[f] = h.link;
            fcur[f] = h.next;
            flen[f] = (uint32_t)r + 1;
            active[nn] = f;
            nn += h.next != fdsw[f];
        }
        na = nn;
    }
    uint64_t max = 0;
    for (size_t i = 0; i < nt; i++)
        if (cnt[touched[i]] > max)
            max = cnt[touched[i]];
    if (j->capture)
        capture_top(j, cnt, touched, nt);
    /* without congestion every routed flow gets its full share */
    double share = max <= 1 ? (double)(nf - unrouted) : 0.0;
    uint64_t cong = 0;
    for (uint32_t f = 0; f < nf && max <= 1; f++)
        cong += flen[f] != IBR_NONE && flen[f] > 0;
    for (uint32_t f = 0; f < nf && max > 1; f++) {
        uint32_t len = flen[f];
        if (len == IBR_NONE)
            continue;
        uint32_t m = 0;
        if (len <= rounds_kept) {
            const uint32_t *p = w->buf + f;
            for (uint32_t i = 0; i < len; i++, p += nf)
                if (cnt[*p] > m)
                    m = cnt[*p];
        } else {
            m = rewalk_max(j, w, w->fsw[f], fdlid[f]);
        }
        share += j->recip[m]; /* recip[0] = 1: a flow without switch links */
        cong += m;
    }
    for (size_t i = 0; i < nt; i++)
        cnt[touched[i]] = 0;
    ibr__apattern *p = &j->pat[k];
    p->flows = nf;
    p->unrouted = unrouted;
    p->max = max;
    p->cong = cong;
    p->share = share;
    p->bound = ibr__analyze_bound(j, w, nf);
    return 0;
}

/* The workload record of the n patterns just evaluated: its statistics,
   its steps, and the limiting links of its most congested pattern (the
   first of the lowest eBB among them), evaluated again to find them. */
static int fill_record(ibr__awl *rec, const ibr_pattern_stats *st, double bound, ibr__ajob *j,
                       size_t n)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    rec->st = *st;
    rec->bound = bound;
    rec->worst_ebb = 1.0;
    uint64_t cong = 0, routed = 0;
    size_t worst = 0;
    double worst_ebb = 2.0;
    for (size_t k = 0; k < n; k++) {
        const ibr__apattern *p = &j->pat[k];
        double e = p->flows ? p->share / (double)p->flows : 1.0;
        cong += p->cong;
        routed += p->flows - p->unrouted;
        if (e < rec->worst_ebb)
            rec->worst_ebb = e;
        if (p->max > j->pat[worst].max || (p->max == j->pat[worst].max && e < worst_ebb)) {
            worst = k;
            worst_ebb = e;
        }
        if (k == 0)
            worst_ebb = e;
    }
    rec->flow_cong = routed ? (double)cong / (double)routed : 0.0;
    rec->worst = (unsigned)worst;
    if (j->family == IBR__FAM_RD || j->family == IBR__FAM_RAIL_RD) {
        rec->steps = ibr__calloc(ctx, n, sizeof *rec->steps);
        if (!rec->steps)
            return IBR_ENOMEM;
        rec->n_steps = n;
        for (size_t k = 0; k < n; k++) {
            const ibr__apattern *p = &j->pat[k];
            rec->steps[k] = (ibr__astep){p->flows, p->unrouted, p->max,
                                         p->flows ? p->share / (double)p->flows : 1.0,
                                         p->flows ? p->bound / (double)p->flows : 1.0};
        }
    }
    j->capture = 1;
    int rc = eval_pattern(j, 0, worst);
    j->capture = 0;
    if (rc < 0)
        return rc;
    rec->n_top = j->n_cap;
    for (unsigned i = 0; i < j->n_cap; i++)
        ibr__analyze_link_info(&rec->top[i], j, j->cap_link[i], j->cap_cnt[i]);
    return 0;
}

int ibr__analyze_patterns(ibr_pattern_stats *out, double *bound, ibr__ajob *j, unsigned family,
                          size_t n, ibr__awl *rec)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    memset(out, 0, sizeof *out);
    *bound = 1.0;
    if (!n)
        return 0;
    ibr__free(ctx, j->pat);
    j->pat = ibr__mallocarray(ctx, n, sizeof *j->pat);
    if (!j->pat)
        return IBR_ENOMEM;
    j->family = family;
    int rc = ibr__parallel_for(j->nw, n, eval_pattern, j);
    if (rc < 0)
        return rc;
    double sum_max = 0.0, ebb = 0.0, bsum = 0.0;
    for (size_t k = 0; k < n; k++) {
        const ibr__apattern *p = &j->pat[k];
        out->flows += p->flows;
        out->unrouted += p->unrouted;
        if (p->max > out->max_congestion)
            out->max_congestion = p->max;
        sum_max += (double)p->max;
        if (p->max <= 1)
            out->congestion_free++;
        ebb += p->flows ? p->share / (double)p->flows : 1.0;
        bsum += p->flows ? p->bound / (double)p->flows : 1.0;
    }
    out->patterns = (unsigned)n;
    out->mean_max_congestion = sum_max / (double)n;
    out->ebb = ebb / (double)n;
    *bound = bsum / (double)n;
    return rec ? fill_record(rec, out, *bound, j, n) : 0;
}
