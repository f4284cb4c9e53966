/*
 * Traffic patterns of ibr_result_analyze(): shift, random permutations and
 * random bisections over the end ports cabled to a switch.
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
    j->recip = ibr__mallocarray(ctx, (size_t)j->n_ep + 1, sizeof *j->recip);
    if (!j->hop || !j->recip)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_ports; i++)
        j->hop[i] = (ibr__ahop){IBR_NONE, IBR_NONE};
    for (uint32_t s = 0; s < j->nsw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            j->hop[j->sw_port_off[s] + t->adj[e].port] = (ibr__ahop){e, t->adj[e].sw};
    j->recip[0] = 1.0;
    for (uint32_t c = 1; c <= j->n_ep; c++)
        j->recip[c] = 1.0 / (double)c;

    size_t n = j->n_ep ? j->n_ep : 1;
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

static uint32_t make_flows(const ibr__ajob *j, ibr__aworker *w, size_t k)
{
    uint32_t n = j->n_ep, nf = 0;
    switch (j->family) {
    case IBR_PATTERN_SHIFT: {
        uint32_t sh = (uint32_t)(k + 1);
        for (uint32_t i = 0; i < n; i++)
            add_flow(j, w, &nf, i, n - i > sh ? i + sh : i + sh - n);
        break;
    }
    case IBR_PATTERN_PERMUTATION:
        shuffle(w, n, pattern_seed(j->opts.seed, j->family, k));
        for (uint32_t i = 0; i < n; i++)
            if (w->perm[i] != i)
                add_flow(j, w, &nf, i, w->perm[i]);
        break;
    default: /* bisection */
        shuffle(w, n, pattern_seed(j->opts.seed, j->family, k));
        for (uint32_t i = 0; i + 1 < n; i += 2) {
            add_flow(j, w, &nf, w->perm[i], w->perm[i + 1]);
            add_flow(j, w, &nf, w->perm[i + 1], w->perm[i]);
        }
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
    /* without congestion every routed flow gets its full share */
    double share = max <= 1 ? (double)(nf - unrouted) : 0.0;
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
    }
    for (size_t i = 0; i < nt; i++)
        cnt[touched[i]] = 0;
    ibr__apattern *p = &j->pat[k];
    p->flows = nf;
    p->unrouted = unrouted;
    p->max = max;
    p->share = share;
    p->bound = ibr__analyze_bound(j, w, nf);
    return 0;
}

int ibr__analyze_patterns(ibr_pattern_stats *out, double *bound, ibr__ajob *j, unsigned family,
                          size_t n)
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
    return 0;
}
