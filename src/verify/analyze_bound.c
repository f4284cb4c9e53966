/*
 * The eBB bound of ibr_result_analyze(): per traffic pattern, the largest
 * eBB any routing over the fabric's cables could reach, in the congestion
 * model of the eBB itself (analyze.h).
 *
 * A cut is a set S of switches. A flow from an end port on a switch of S to
 * one on a switch outside S crosses at least one directed switch-to-switch
 * link leaving S, whatever the routing. Give each such flow one of those
 * links it uses; a link given to n flows carries at least n of them, so each
 * of the n has congestion >= n and share <= 1/n: the shares of the flows
 * leaving S sum to at most the number of links leaving S, cap_out(S).
 * Likewise for the flows entering S and cap_in(S). Every share is at most
 * 1, and 0 for a flow whose destination the source cannot reach. So for
 * any family K of cuts (directions included),
 *
 *     sum of shares <= sum_{C in K} cap(C) + (reachable flows in no C of K)
 *
 * (weak LP duality with 0/1 dual values), and that over the pattern's
 * flow count bounds its eBB. Note that the per-flow form "mean over flows
 * of min over the cuts a flow crosses of cap/flows" is not a bound: a flow
 * held to 1/2 by one cut can share a link of a second cut with another
 * flow so that a third flow of that cut gets its link alone, beating the
 * even split the per-flow form assumes there.
 *
 * The cuts: every switch with end ports alone (defined on any fabric), and
 * for trees the subtrees: switches are ranked by their distance to the
 * nearest switch with end ports (the leaves), each switch's leaf set is
 * the union of those of its neighbours one rank lower, and every distinct
 * leaf set L of two leaves or more (not all of them) gives the cut of
 * every switch whose leaf set lies within L (L's leaves included). On a
 * fat tree these are the pods and sub-pods, and their links leaving are
 * the remaining up cables. K is chosen per pattern, greedily: only the
 * cuts the pattern overloads (more flows than links) can lower the bound;
 * taken by decreasing excess, each is kept when the flows it holds that no
 * kept cut holds yet outnumber its links.
 *
 * The cost is the pattern's flows times the cuts each crosses (its depth
 * in the tree, both ends), plus the overloaded cuts' flows: no routes are
 * walked.
 */
#include <stdlib.h>
#include <string.h>

#include "verify/analyze_int.h"

/* Leaf-set words (one bit per leaf, per switch) beyond which subtree cuts
   are not looked for. */
#define DOWN_WORDS_MAX ((size_t)1 << 22)
/* Word operations spent finding the switches of subtree cuts. */
#define CUT_BUDGET ((size_t)1 << 28)

typedef struct cand {
    uint32_t pop; /* leaves in the set */
    uint32_t sw;  /* first switch with it */
} cand;

static int cand_cmp(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->pop != b->pop)
        return a->pop < b->pop ? -1 : 1;
    return a->sw < b->sw ? -1 : a->sw > b->sw;
}

static int u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static uint32_t popcount_words(const uint64_t *v, size_t nw)
{
    uint32_t n = 0;
    for (size_t i = 0; i < nw; i++)
        n += (uint32_t)__builtin_popcountll(v[i]);
    return n;
}

static int subset_words(const uint64_t *a, const uint64_t *b, size_t nw)
{
    for (size_t i = 0; i < nw; i++)
        if (a[i] & ~b[i])
            return 0;
    return 1;
}

static uint64_t hash_words(const uint64_t *v, size_t nw)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < nw; i++) {
        h ^= v[i];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
    }
    return h;
}

/* Scratch of the cut search, freed together. */
typedef struct cutscratch {
    uint32_t *rank;   /* per switch: distance to the nearest leaf, IBR_NONE */
    uint32_t *queue;  /* BFS order */
    uint32_t *radj_off, *radj; /* per switch: the switches with a link into it */
    uint64_t *down;   /* per switch: its leaf set */
    cand *cands;
    uint32_t *table;  /* open addressing: candidate switches by leaf set */
    uint8_t *in_s;    /* per switch: in the cut being built */
    uint32_t *memcnt; /* per leaf: cuts holding it so far */
    uint32_t *cut_leaves; /* leaves of the subtree cuts, cut after cut */
    uint32_t *cut_off;
} cutscratch;

static void free_scratch(ibr_context *ctx, cutscratch *c)
{
    ibr__free(ctx, c->rank);
    ibr__free(ctx, c->queue);
    ibr__free(ctx, c->radj_off);
    ibr__free(ctx, c->radj);
    ibr__free(ctx, c->down);
    ibr__free(ctx, c->cands);
    ibr__free(ctx, c->table);
    ibr__free(ctx, c->in_s);
    ibr__free(ctx, c->memcnt);
    ibr__free(ctx, c->cut_leaves);
    ibr__free(ctx, c->cut_off);
}

/* Rank the switches by BFS from the leaves and give each its leaf set.
*/
static void rank_switches(const ibr__ajob *j, cutscratch *sc, size_t nw)
{
    const ibr_topo *t = j->t;
    uint32_t nsw = j->nsw, nl = j->n_ep_sws, head = 0, tail = 0;
    for (uint32_t s = 0; s < nsw; s++)
        sc->rank[s] = IBR_NONE;
    for (uint32_t k = 0; k < nl; k++) {
        uint32_t s = j->ep_sws[k];
        sc->rank[s] = 0;
        sc->queue[tail++] = s;
        sc->down[(size_t)s * nw + k / 64] |= 1ULL << (k % 64);
    }
    while (head < tail) {
        uint32_t s = sc->queue[head++];
        uint64_t *ds = sc->down + (size_t)s * nw;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t y = t->adj[e].sw;
            if (sc->rank[y] == IBR_NONE) {
                sc->rank[y] = sc->rank[s] + 1;
                sc->queue[tail++] = y;
            } else if (sc->rank[s] > 0 && sc->rank[y] + 1 == sc->rank[s]) {
                const uint64_t *dy = sc->down + (size_t)y * nw;
                for (size_t i = 0; i < nw; i++)
                    ds[i] |= dy[i];
            }
        }
    }
}

/* The distinct leaf sets of ranked non-leaf switches, 2 leaves or more and
   not all, sorted by size then first switch. Returns how many. */
static uint32_t distinct_sets(const ibr__ajob *j, cutscratch *sc, size_t nw, uint32_t tsize)
{
    uint32_t nl = j->n_ep_sws, nc = 0;
    for (uint32_t i = 0; i < tsize; i++)
        sc->table[i] = IBR_NONE;
    for (uint32_t s = 0; s < j->nsw; s++) {
        if (sc->rank[s] == IBR_NONE || sc->rank[s] == 0)
            continue;
        const uint64_t *d = sc->down + (size_t)s * nw;
        uint32_t pop = popcount_words(d, nw);
        if (pop < 2 || pop >= nl)
            continue;
        uint32_t h = (uint32_t)hash_words(d, nw) & (tsize - 1);
        for (;;) {
            uint32_t o = sc->table[h];
            if (o == IBR_NONE) {
                sc->table[h] = s;
                sc->cands[nc++] = (cand){pop, s};
                break;
            }
            if (!memcmp(sc->down + (size_t)o * nw, d, nw * sizeof *d))
                break;
            h = (h + 1) & (tsize - 1);
        }
    }
    if (nc > 1)
        qsort(sc->cands, nc, sizeof *sc->cands, cand_cmp);
    return nc;
}

/* Links leaving and entering the switch set marked in sc->in_s, over the
   members listed in mem[0..n). */
static void cut_caps(const ibr__ajob *j, const cutscratch *sc, const uint32_t *mem, uint32_t n,
                     uint32_t *out, uint32_t *in)
{
    const ibr_topo *t = j->t;
    uint32_t o = 0, i = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t s = mem[k];
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            o += !sc->in_s[t->adj[e].sw];
        for (uint32_t e = sc->radj_off[s]; e < sc->radj_off[s + 1]; e++)
            i += !sc->in_s[sc->radj[e]];
    }
    *out = o;
    *in = i;
}

static int build_reverse(ibr_context *ctx, const ibr__ajob *j, cutscratch *sc)
{
    const ibr_topo *t = j->t;
    uint32_t nsw = j->nsw;
    sc->radj_off = ibr__calloc(ctx, (size_t)nsw + 1, sizeof *sc->radj_off);
    sc->radj = ibr__mallocarray(ctx, t->n_adj ? t->n_adj : 1, sizeof *sc->radj);
    if (!sc->radj_off || !sc->radj)
        return IBR_ENOMEM;
    for (uint32_t e = 0; e < t->n_adj; e++)
        sc->radj_off[t->adj[e].sw + 1]++;
    for (uint32_t s = 0; s < nsw; s++)
        sc->radj_off[s + 1] += sc->radj_off[s];
    uint32_t *cur = sc->queue; /* free until the ranking */
    memcpy(cur, sc->radj_off, (size_t)nsw * sizeof *cur);
    for (uint32_t s = 0; s < nsw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            sc->radj[cur[t->adj[e].sw]++] = s;
    return 0;
}

/* Subtree cuts: fill sc->cut_leaves / cut_off and the caps of cuts n_leaf..
   in j->cuts.cap (room for nc of them). Returns how many were kept. */
static uint32_t subtree_cuts(const ibr__ajob *j, cutscratch *sc, size_t nw, uint32_t nc,
                             uint32_t *members)
{
    ibr__acuts *c = (ibr__acuts *)&j->cuts;
    uint32_t nsw = j->nsw, nl = j->n_ep_sws, kept = 0, nleaves = 0;
    size_t work = 0;
    sc->cut_off[0] = 0;
    for (uint32_t k = 0; k < nc; k++) {
        if ((work += (size_t)nsw * nw) > CUT_BUDGET)
            break;
        const uint64_t *l = sc->down + (size_t)sc->cands[k].sw * nw;
        uint32_t nm = 0, nlf = 0, full = 0;
        for (uint32_t s = 0; s < nsw; s++) {
            uint32_t r = sc->rank[s];
            int in = r != IBR_NONE && subset_words(sc->down + (size_t)s * nw, l, nw);
            sc->in_s[s] = (uint8_t)in;
            if (in)
                members[nm++] = s;
        }
        for (uint32_t m = 0; m < nm; m++) {
            uint32_t lf = c->leaf_of[members[m]];
            if (lf == IBR_NONE)
                continue;
            full |= sc->memcnt[lf] + 1 >= IBR__AN_MAXMEM;
            sc->cut_leaves[nleaves + nlf++] = lf;
        }
        uint32_t out, in;
        cut_caps(j, sc, members, nm, &out, &in);
        for (uint32_t m = 0; m < nm; m++)
            sc->in_s[members[m]] = 0;
        if (full || nlf < 2 || nlf >= nl)
            continue;
        for (uint32_t m = 0; m < nlf; m++)
            sc->memcnt[sc->cut_leaves[nleaves + m]]++;
        c->cap[2 * (nl + kept)] = out;
        c->cap[2 * (nl + kept) + 1] = in;
        nleaves += nlf;
        sc->cut_off[++kept] = nleaves;
    }
    return kept;
}

void ibr__analyze_free_cuts(ibr_context *ctx, ibr__acuts *c)
{
    ibr__free(ctx, c->leaf_of);
    ibr__free(ctx, c->cap);
    ibr__free(ctx, c->mem_off);
    ibr__free(ctx, c->mem);
    ibr__free(ctx, c->comp);
    memset(c, 0, sizeof *c);
}

/* Component labels of the leaves, when reachability between them is
   symmetric and transitive (as on any fabric whose cables work both ways);
   otherwise c->comp stays NULL. O(leaves^2). */
static int label_components(ibr_context *ctx, const ibr__ajob *j, ibr__acuts *c)
{
    uint32_t nl = c->n_leaf, nsw = j->nsw;
    uint32_t *comp = ibr__mallocarray(ctx, nl ? nl : 1, sizeof *comp);
    if (!comp)
        return IBR_ENOMEM;
    for (uint32_t b = 0; b < nl; b++)
        comp[b] = IBR_NONE;
    for (uint32_t a = 0; a < nl; a++) {
        if (comp[a] != IBR_NONE)
            continue;
        const uint8_t *row = j->dist + (size_t)j->ep_sws[a] * nsw;
        for (uint32_t b = a; b < nl; b++)
            if (row[j->ep_sws[b]] != 255 && comp[b] == IBR_NONE)
                comp[b] = a;
    }
    for (uint32_t a = 0; a < nl; a++) {
        const uint8_t *row = j->dist + (size_t)j->ep_sws[a] * nsw;
        for (uint32_t b = 0; b < nl; b++)
            if ((row[j->ep_sws[b]] != 255) != (comp[a] == comp[b])) {
                ibr__free(ctx, comp);
                return 0;
            }
    }
    c->comp = comp;
    return 0;
}

int ibr__analyze_cuts(ibr__ajob *j)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    const ibr_topo *t = j->t;
    ibr__acuts *c = &j->cuts;
    uint32_t nsw = j->nsw, nl = j->n_ep_sws;
    size_t n1 = nsw ? nsw : 1;
    size_t nw = ((size_t)nl + 63) / 64;
    int higher = nl >= 3 && n1 * nw <= DOWN_WORDS_MAX;
    cutscratch sc;
    memset(&sc, 0, sizeof sc);
    int rc = IBR_ENOMEM;

    c->n_leaf = nl;
    c->leaf_of = ibr__mallocarray(ctx, n1, sizeof *c->leaf_of);
    sc.queue = ibr__mallocarray(ctx, n1, sizeof *sc.queue);
    sc.rank = ibr__mallocarray(ctx, n1, sizeof *sc.rank);
    sc.memcnt = ibr__calloc(ctx, nl ? nl : 1, sizeof *sc.memcnt);
    if (!c->leaf_of || !sc.queue || !sc.rank || !sc.memcnt)
        goto out;
    for (uint32_t s = 0; s < nsw; s++)
        c->leaf_of[s] = IBR_NONE;
    for (uint32_t k = 0; k < nl; k++)
        c->leaf_of[j->ep_sws[k]] = k;
    if ((rc = label_components(ctx, j, c)) < 0 || (rc = build_reverse(ctx, j, &sc)) < 0)
        goto out;
    rc = IBR_ENOMEM;

    uint32_t nc = 0, kept = 0;
    uint32_t *members = NULL;
    if (higher) {
        sc.down = ibr__calloc(ctx, n1 * nw, sizeof *sc.down);
        sc.cands = ibr__mallocarray(ctx, n1, sizeof *sc.cands);
        uint32_t tsize = 2;
        while (tsize < 2 * n1)
            tsize *= 2;
        sc.table = ibr__mallocarray(ctx, tsize, sizeof *sc.table);
        sc.in_s = ibr__calloc(ctx, n1, 1);
        if (!sc.down || !sc.cands || !sc.table || !sc.in_s)
            goto out;
        rank_switches(j, &sc, nw);
        nc = distinct_sets(j, &sc, nw, tsize);
    }
    c->cap = ibr__mallocarray(ctx, 2 * ((size_t)nl + nc) + 1, sizeof *c->cap);
    if (!c->cap)
        goto out;
    for (uint32_t k = 0; k < nl; k++) {
        uint32_t s = j->ep_sws[k];
        c->cap[2 * k] = t->adj_off[s + 1] - t->adj_off[s];
        c->cap[2 * k + 1] = sc.radj_off[s + 1] - sc.radj_off[s];
    }
    if (nc) {
        /* members of a cut, reused; the leaves of every kept cut */
        sc.cut_off = ibr__mallocarray(ctx, (size_t)nc + 1, sizeof *sc.cut_off);
        sc.cut_leaves = ibr__mallocarray(ctx, (size_t)nl * (IBR__AN_MAXMEM - 1),
                                         sizeof *sc.cut_leaves);
        members = sc.table; /* done with the hash table; tsize >= nsw */
        if (!sc.cut_off || !sc.cut_leaves)
            goto out;
        kept = subtree_cuts(j, &sc, nw, nc, members);
    }
    c->n_cut = nl + kept;
    /* per leaf: its own cut, then the subtree cuts holding it, ascending */
    c->mem_off = ibr__calloc(ctx, (size_t)nl + 1, sizeof *c->mem_off);
    size_t nmem = (size_t)nl + (kept ? sc.cut_off[kept] : 0);
    c->mem = ibr__mallocarray(ctx, nmem ? nmem : 1, sizeof *c->mem);
    if (!c->mem_off || !c->mem)
        goto out;
    c->max_mem = nl ? 1 : 0;
    for (uint32_t k = 0; k < nl; k++) {
        c->mem_off[k + 1] = c->mem_off[k] + 1 + sc.memcnt[k];
        if (1 + sc.memcnt[k] > c->max_mem)
            c->max_mem = 1 + sc.memcnt[k];
    }
    uint32_t *cur = sc.memcnt; /* reused as fill cursors */
    for (uint32_t k = 0; k < nl; k++) {
        c->mem[c->mem_off[k]] = k;
        cur[k] = c->mem_off[k] + 1;
    }
    for (uint32_t h = 0; h < kept; h++)
        for (uint32_t i = sc.cut_off[h]; i < sc.cut_off[h + 1]; i++)
            c->mem[cur[sc.cut_leaves[i]]++] = nl + h;
    rc = 0;
out:
    free_scratch(ctx, &sc);
    return rc;
}

/* ------------------------------------------------------------------ */
/* per pattern                                                          */

/* Cut entries a flow from leaf a to leaf b crosses: 2c for cut c holding
   a and not b (leaving it), 2c + 1 for c holding b and not a. */
static unsigned crossed(const ibr__acuts *c, uint32_t a, uint32_t b, uint32_t *e)
{
    const uint32_t *p = c->mem + c->mem_off[a], *pe = c->mem + c->mem_off[a + 1];
    const uint32_t *q = c->mem + c->mem_off[b], *qe = c->mem + c->mem_off[b + 1];
    unsigned n = 0;
    while (p < pe || q < qe) {
        if (q == qe || (p < pe && *p < *q))
            e[n++] = 2 * *p++;
        else if (p == pe || *q < *p)
            e[n++] = 2 * *q++ + 1;
        else
            p++, q++;
    }
    return n;
}

int ibr__analyze_bound_scratch(const ibr__ajob *j, ibr__aworker *w)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    size_t n = j->n_ep ? j->n_ep : 1;
    size_t ne = 2 * (size_t)j->cuts.n_cut + 1;
    w->bcnt = ibr__calloc(ctx, ne, sizeof *w->bcnt);
    w->bdix = ibr__mallocarray(ctx, ne, sizeof *w->bdix);
    w->btouch = ibr__mallocarray(ctx, ne, sizeof *w->btouch);
    w->bkey = ibr__mallocarray(ctx, ne, sizeof *w->bkey);
    w->boff = ibr__mallocarray(ctx, ne + 1, sizeof *w->boff);
    w->ga = ibr__mallocarray(ctx, n, sizeof *w->ga);
    w->gb = ibr__mallocarray(ctx, n, sizeof *w->gb);
    w->gm = ibr__mallocarray(ctx, n, sizeof *w->gm);
    w->gcov = ibr__mallocarray(ctx, n, 1);
    w->gne = ibr__mallocarray(ctx, n, 1);
    size_t per = 2 * (size_t)(j->cuts.max_mem ? j->cuts.max_mem : 1);
    w->gent = ibr__mallocarray(ctx, n * per, sizeof *w->gent);
    w->glist = ibr__mallocarray(ctx, n * per, sizeof *w->glist);
    if (!w->bcnt || !w->bdix || !w->btouch || !w->bkey || !w->boff || !w->ga || !w->gb ||
        !w->gm || !w->gcov || !w->gne || !w->gent || !w->glist)
        return IBR_ENOMEM;
    for (size_t i = 0; i < ne; i++)
        w->bdix[i] = IBR_NONE;
    return 0;
}

/* The greedy choice of K among the nd overloaded entries (listed in
   w->bkey, with their flow groups in w->glist by w->bdix): the shares the
   covered groups can reach at most. Marks the covered groups. */
static uint64_t choose_cuts(const ibr__ajob *j, ibr__aworker *w, uint32_t ng, uint32_t nd)
{
    const uint32_t *cap = j->cuts.cap;
    uint64_t kcap = 0;
    memset(w->gcov, 0, ng);
    qsort(w->bkey, nd, sizeof *w->bkey, u64_cmp);
    for (uint32_t k = 0; k < nd; k++) {
        uint32_t e = (uint32_t)w->bkey[k], d = w->bdix[e];
        uint32_t lo = d ? w->boff[d - 1] : 0, hi = w->boff[d];
        uint64_t unc = 0;
        for (uint32_t i = lo; i < hi; i++)
            if (!w->gcov[w->glist[i]])
                unc += w->gm[w->glist[i]];
        if (unc <= cap[e])
            continue;
        kcap += cap[e];
        for (uint32_t i = lo; i < hi; i++)
            w->gcov[w->glist[i]] = 1;
    }
    return kcap;
}

double ibr__analyze_bound(const ibr__ajob *j, ibr__aworker *w, uint32_t nf)
{
    const ibr__acuts *c = &j->cuts;
    const uint32_t *lid_sw = j->t->lid_sw;
    uint32_t nsw = j->nsw, ng = 0;
    uint64_t same = 0, reach = 0;
    /* consecutive flows between the same two leaves form one group */
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t s = w->fsw[f], d = lid_sw[w->fdlid[f]];
        uint32_t a = c->leaf_of[s], b = c->leaf_of[d];
        if (c->comp ? c->comp[a] != c->comp[b] : j->dist[(size_t)s * nsw + d] == 255)
            continue;
        reach++;
        if (s == d) {
            same++;
            continue;
        }
        if (ng && w->ga[ng - 1] == a && w->gb[ng - 1] == b) {
            w->gm[ng - 1]++;
        } else {
            w->ga[ng] = a;
            w->gb[ng] = b;
            w->gm[ng++] = 1;
        }
    }
    size_t per = 2 * (size_t)c->max_mem;
    uint32_t nt = 0, nd = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t *e = w->gent + g * per;
        unsigned n = crossed(c, w->ga[g], w->gb[g], e);
        w->gne[g] = (uint8_t)n;
        for (unsigned i = 0; i < n; i++) {
            w->btouch[nt] = e[i];
            nt += w->bcnt[e[i]] == 0;
            w->bcnt[e[i]] += w->gm[g];
        }
    }
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t x = w->btouch[i];
        if (w->bcnt[x] > c->cap[x]) {
            w->bdix[x] = nd;
            w->boff[nd] = 0;
            /* by decreasing excess, then entry */
            w->bkey[nd++] = ((uint64_t)(UINT32_MAX - (w->bcnt[x] - c->cap[x])) << 32) | x;
        }
    }
    double bound = (double)reach;
    if (nd) {
        /* the groups of every overloaded entry (CSR; boff[d] ends up at the
           end of d's list) */
        for (uint32_t g = 0; g < ng; g++) {
            const uint32_t *e = w->gent + g * per;
            for (unsigned i = 0; i < w->gne[g]; i++)
                if (w->bdix[e[i]] != IBR_NONE)
                    w->boff[w->bdix[e[i]]]++;
        }
        for (uint32_t d = 0, sum = 0; d < nd; d++) {
            uint32_t x = w->boff[d];
            w->boff[d] = sum;
            sum += x;
        }
        for (uint32_t g = 0; g < ng; g++) {
            const uint32_t *e = w->gent + g * per;
            for (unsigned i = 0; i < w->gne[g]; i++)
                if (w->bdix[e[i]] != IBR_NONE)
                    w->glist[w->boff[w->bdix[e[i]]]++] = g;
        }
        uint64_t sum = same + choose_cuts(j, w, ng, nd);
        for (uint32_t g = 0; g < ng; g++)
            if (!w->gcov[g])
                sum += w->gm[g];
        bound = (double)sum;
    }
    for (uint32_t i = 0; i < nt; i++) {
        w->bcnt[w->btouch[i]] = 0;
        w->bdix[w->btouch[i]] = IBR_NONE;
    }
    return bound;
}

/* ------------------------------------------------------------------ */
/* all-to-all                                                           */

/* All-to-all: the reachable flows less the excess of the most constraining
   of: every leaf's links out (the leaves' outgoing flows are disjoint),
   every leaf's links in, each subtree cut alone. Counts of flows crossing
   a cut are exact for leaves and never above the truth for subtrees
   (a leaf of the cut out of a source's reach is still subtracted). */
int ibr__analyze_bound_a2a(double *out, const ibr__ajob *j)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    const ibr__acuts *c = &j->cuts;
    uint32_t nl = c->n_leaf, nsw = j->nsw, nh = c->n_cut - nl;
    uint64_t *v = ibr__calloc(ctx, 4 * ((size_t)nl + nh) + 1, sizeof *v);
    if (!v)
        return IBR_ENOMEM;
    uint64_t *n = v, *lids = v + nl, *rlids = v + 2 * (size_t)nl, *rsrc = v + 3 * (size_t)nl;
    uint64_t *hn = v + 4 * (size_t)nl, *hl = hn + nh, *ho = hl + nh, *hi = ho + nh;
    for (uint32_t k = 0; k < nl; k++) {
        uint32_t s = j->ep_sws[k];
        for (uint32_t i = j->sw_ep_off[s]; i < j->sw_ep_off[s + 1]; i++) {
            n[k]++;
            lids[k] += 1u << j->ep_lmc[j->sw_ep[i]];
        }
    }
    for (uint32_t a = 0; a < nl; a++) {
        const uint8_t *row = j->dist + (size_t)j->ep_sws[a] * nsw;
        for (uint32_t b = 0; b < nl; b++)
            if (row[j->ep_sws[b]] != 255) {
                rlids[a] += lids[b];
                rsrc[b] += n[a];
            }
    }
    uint64_t reach = 0, ex_out = 0, ex_in = 0, ex_one = 0;
    for (uint32_t k = 0; k < nl; k++) {
        reach += lids[k] * (rsrc[k] - 1);
        uint64_t o = n[k] * (rlids[k] - lids[k]), i = lids[k] * (rsrc[k] - n[k]);
        ex_out += o > c->cap[2 * k] ? o - c->cap[2 * k] : 0;
        ex_in += i > c->cap[2 * k + 1] ? i - c->cap[2 * k + 1] : 0;
        for (uint32_t m = c->mem_off[k] + 1; m < c->mem_off[k + 1]; m++) {
            hn[c->mem[m] - nl] += n[k];
            hl[c->mem[m] - nl] += lids[k];
        }
    }
    for (uint32_t k = 0; k < nl; k++)
        for (uint32_t m = c->mem_off[k] + 1; m < c->mem_off[k + 1]; m++) {
            uint32_t h = c->mem[m] - nl;
            ho[h] += n[k] * (rlids[k] > hl[h] ? rlids[k] - hl[h] : 0);
            hi[h] += lids[k] * (rsrc[k] > hn[h] ? rsrc[k] - hn[h] : 0);
        }
    for (uint32_t h = 0; h < nh; h++) {
        uint32_t co = c->cap[2 * (nl + h)], ci = c->cap[2 * (nl + h) + 1];
        if (ho[h] > co && ho[h] - co > ex_one)
            ex_one = ho[h] - co;
        if (hi[h] > ci && hi[h] - ci > ex_one)
            ex_one = hi[h] - ci;
    }
    uint64_t ex = ex_out > ex_in ? ex_out : ex_in;
    if (ex_one > ex)
        ex = ex_one;
    *out = (double)(reach - (ex < reach ? ex : reach));
    ibr__free(ctx, v);
    return 0;
}
