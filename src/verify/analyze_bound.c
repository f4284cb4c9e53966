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
 * 1, and 0 for a flow whose destination the source cannot reach. So the
 * sum of the shares is at most the optimum of the linear program
 *
 *     max sum_f x_f,  0 <= x_f <= 1,  sum_{f crossing C} x_f <= cap(C)
 *
 * over the reachable flows f and a family of cuts C (both directions).
 * Note that the per-flow form "mean over flows of min over the cuts a flow
 * crosses of cap/flows" is not a bound: a flow held to 1/2 by one cut can
 * share a link of a second cut with another flow so that a third flow of
 * that cut gets its link alone, beating the even split the per-flow form
 * assumes there.
 *
 * The cuts form a laminar family (two cuts are disjoint or nested): every
 * switch with end ports (a leaf) alone, so the bound exists on any fabric,
 * and the tree levels: switches are ranked by BFS distance from the
 * leaves, and for r = 1, 2, ... each connected component of the switches
 * of rank <= r is a cut (on a fat tree: the pods at r = 1, the groups of
 * pods at r = 2 on 4 levels; their leaving links are the remaining up
 * cables). Cuts with the same end ports are one constraint (the smaller
 * capacity per direction), and a component holding every leaf it can reach
 * is none (no flow leaves it).
 *
 * The LP is bounded from above by a maximum flow: a flow from leaf a to
 * leaf b leaves the chain of cuts holding a but not b, from a's own up to
 * the largest, then enters the chain holding b but not a, from the largest
 * down to b's own. The network has a node per (cut, direction) with the
 * cut's capacity, arcs from each cut to the next of the chain, and one arc
 * from the largest cut left to the largest entered; every arc carries at
 * most the flows whose chains use it. Any LP solution is a flow of this
 * network (x_f along its chain), so its maximum flow bounds the LP. It
 * only loosens the LP where flows that share a stretch of chain could
 * swap destinations. The network is built only for the cuts the pattern
 * crosses, and only when one of them has more flows than capacity (else
 * every reachable flow can have its share of 1, as far as cuts tell).
 * With the same cuts, removing a cable cannot raise the bound (capacities
 * only drop, and a maximum flow with them); a loss that splits a component
 * or re-ranks a switch changes the cuts, which the tests check as cables
 * go one by one.
 *
 * The cost per pattern is its flows times the cuts each crosses (twice the
 * tree's depth) and, when a cut is overloaded, a maximum flow (Dinic) on
 * a network of the pattern's crossed cuts: no route is walked.
 */
#include <stdlib.h>
#include <string.h>

#include "verify/analyze_int.h"

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

/* Scratch of the cut search, freed together. */
typedef struct cutscratch {
    uint32_t *rank;     /* per switch: BFS distance from the leaves, IBR_NONE */
    uint32_t *queue;    /* switches by rank */
    uint32_t *radj_off; /* per switch: the switches with a link into it */
    uint32_t *radj;
    uint32_t *uf;       /* union-find over switches */
    uint32_t *lc;       /* per component root: leaves; then its new cut */
    uint32_t *capo, *capi; /* per component root: links leaving, entering */
    uint32_t *newid;
    uint32_t *top, *topcnt; /* per leaf: its largest cut so far, its leaves */
    uint32_t *chain, *len;  /* per leaf: its cuts (IBR__AN_MAXMEM slots) */
    uint32_t *compleaves;   /* per leaf component label: its leaves */
} cutscratch;

static void free_scratch(ibr_context *ctx, cutscratch *c)
{
    ibr__free(ctx, c->rank);
    ibr__free(ctx, c->queue);
    ibr__free(ctx, c->radj_off);
    ibr__free(ctx, c->radj);
    ibr__free(ctx, c->uf);
    ibr__free(ctx, c->lc);
    ibr__free(ctx, c->capo);
    ibr__free(ctx, c->capi);
    ibr__free(ctx, c->newid);
    ibr__free(ctx, c->top);
    ibr__free(ctx, c->topcnt);
    ibr__free(ctx, c->chain);
    ibr__free(ctx, c->len);
    ibr__free(ctx, c->compleaves);
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

/* BFS from the leaves: sc->rank, sc->queue in rank order. Returns the
   number of ranked switches. */
static uint32_t rank_switches(const ibr__ajob *j, cutscratch *sc)
{
    const ibr_topo *t = j->t;
    uint32_t head = 0, tail = 0;
    for (uint32_t s = 0; s < j->nsw; s++)
        sc->rank[s] = IBR_NONE;
    for (uint32_t k = 0; k < j->n_ep_sws; k++) {
        sc->rank[j->ep_sws[k]] = 0;
        sc->queue[tail++] = j->ep_sws[k];
    }
    while (head < tail) {
        uint32_t s = sc->queue[head++];
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            if (sc->rank[t->adj[e].sw] == IBR_NONE) {
                sc->rank[t->adj[e].sw] = sc->rank[s] + 1;
                sc->queue[tail++] = t->adj[e].sw;
            }
    }
    return tail;
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

static void uf_union(uint32_t *uf, uint32_t a, uint32_t b)
{
    a = uf_find(uf, a);
    b = uf_find(uf, b);
    if (a < b)
        uf[b] = a;
    else if (b < a)
        uf[a] = b;
}

/* Links leaving and entering every component of the switches of rank <=
   r (the first nq of sc->queue), into capo / capi by root. */
static void level_caps(const ibr__ajob *j, cutscratch *sc, uint32_t nq, uint32_t r)
{
    const ibr_topo *t = j->t;
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t x = sc->queue[i];
        sc->capo[x] = sc->capi[x] = 0;
    }
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t x = sc->queue[i], rx = uf_find(sc->uf, x);
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            uint32_t y = t->adj[e].sw;
            sc->capo[rx] += sc->rank[y] == IBR_NONE || sc->rank[y] > r || uf_find(sc->uf, y) != rx;
        }
        for (uint32_t e = sc->radj_off[x]; e < sc->radj_off[x + 1]; e++) {
            uint32_t y = sc->radj[e];
            sc->capi[rx] += sc->rank[y] == IBR_NONE || sc->rank[y] > r || uf_find(sc->uf, y) != rx;
        }
    }
}

static uint32_t min32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* The cuts of the tree levels r = 1, 2, ...: appended to the leaves'
   chains in sc, capacities into c->cap (room for max_cut cuts). */
static void level_cuts(const ibr__ajob *j, ibr__acuts *c, cutscratch *sc, uint32_t nq,
                       uint32_t max_cut)
{
    uint32_t nl = c->n_leaf;
    for (uint32_t s = 0; s < j->nsw; s++)
        sc->uf[s] = s;
    uint32_t maxr = nq ? sc->rank[sc->queue[nq - 1]] : 0, i = 0;
    while (i < nq && sc->rank[sc->queue[i]] == 0)
        i++;
    for (uint32_t r = 1; r <= maxr; r++) {
        /* room for one more cut per leaf, or stop here */
        int full = 0;
        for (uint32_t a = 0; a < nl; a++)
            full |= sc->len[a] >= IBR__AN_MAXMEM;
        if (full || c->n_cut + nl / 2 > max_cut)
            break;
        uint32_t lo = i;
        while (i < nq && sc->rank[sc->queue[i]] == r)
            i++;
        for (uint32_t k = lo; k < i; k++) {
            uint32_t x = sc->queue[k];
            for (uint32_t e = j->t->adj_off[x]; e < j->t->adj_off[x + 1]; e++) {
                uint32_t y = j->t->adj[e].sw;
                if (sc->rank[y] != IBR_NONE && sc->rank[y] <= r)
                    uf_union(sc->uf, x, y);
            }
        }
        level_caps(j, sc, i, r);
        for (uint32_t a = 0; a < nl; a++) {
            uint32_t rt = uf_find(sc->uf, j->ep_sws[a]);
            sc->lc[rt] = 0;
            sc->newid[rt] = IBR_NONE;
        }
        for (uint32_t a = 0; a < nl; a++)
            sc->lc[uf_find(sc->uf, j->ep_sws[a])]++;
        for (uint32_t a = 0; a < nl; a++) {
            uint32_t rt = uf_find(sc->uf, j->ep_sws[a]), n = sc->lc[rt];
            if (n >= sc->compleaves[c->comp[a]])
                continue; /* all it reaches: nothing crosses */
            if (n == sc->topcnt[a]) {
                /* the same end ports as a's largest cut: one constraint */
                uint32_t tp = sc->top[a];
                c->cap[2 * tp] = min32(c->cap[2 * tp], sc->capo[rt]);
                c->cap[2 * tp + 1] = min32(c->cap[2 * tp + 1], sc->capi[rt]);
                continue;
            }
            if (sc->newid[rt] == IBR_NONE) {
                sc->newid[rt] = c->n_cut++;
                c->cap[2 * sc->newid[rt]] = sc->capo[rt];
                c->cap[2 * sc->newid[rt] + 1] = sc->capi[rt];
            }
            sc->chain[(size_t)a * IBR__AN_MAXMEM + sc->len[a]++] = sc->newid[rt];
            sc->top[a] = sc->newid[rt];
            sc->topcnt[a] = n;
        }
    }
}

int ibr__analyze_cuts(ibr__ajob *j)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    const ibr_topo *t = j->t;
    ibr__acuts *c = &j->cuts;
    uint32_t nsw = j->nsw, nl = j->n_ep_sws;
    size_t n1 = nsw ? nsw : 1, l1 = nl ? nl : 1;
    /* each cut above the leaves holds 2 leaves or more, each leaf at most
       IBR__AN_MAXMEM - 1 of them */
    size_t max_cut = (size_t)nl + (size_t)nl * (IBR__AN_MAXMEM - 1) / 2 + 1;
    cutscratch sc;
    memset(&sc, 0, sizeof sc);
    int rc = IBR_ENOMEM;

    c->n_leaf = nl;
    c->leaf_of = ibr__mallocarray(ctx, n1, sizeof *c->leaf_of);
    c->cap = ibr__mallocarray(ctx, 2 * max_cut, sizeof *c->cap);
    sc.queue = ibr__mallocarray(ctx, n1, sizeof *sc.queue);
    sc.rank = ibr__mallocarray(ctx, n1, sizeof *sc.rank);
    sc.uf = ibr__mallocarray(ctx, n1, sizeof *sc.uf);
    sc.lc = ibr__mallocarray(ctx, n1, sizeof *sc.lc);
    sc.capo = ibr__mallocarray(ctx, n1, sizeof *sc.capo);
    sc.capi = ibr__mallocarray(ctx, n1, sizeof *sc.capi);
    sc.newid = ibr__mallocarray(ctx, n1, sizeof *sc.newid);
    sc.top = ibr__mallocarray(ctx, l1, sizeof *sc.top);
    sc.topcnt = ibr__mallocarray(ctx, l1, sizeof *sc.topcnt);
    sc.len = ibr__mallocarray(ctx, l1, sizeof *sc.len);
    sc.chain = ibr__mallocarray(ctx, l1 * IBR__AN_MAXMEM, sizeof *sc.chain);
    sc.compleaves = ibr__calloc(ctx, l1, sizeof *sc.compleaves);
    if (!c->leaf_of || !c->cap || !sc.queue || !sc.rank || !sc.uf || !sc.lc || !sc.capo ||
        !sc.capi || !sc.newid || !sc.top || !sc.topcnt || !sc.len || !sc.chain ||
        !sc.compleaves)
        goto out;
    for (uint32_t s = 0; s < nsw; s++)
        c->leaf_of[s] = IBR_NONE;
    for (uint32_t k = 0; k < nl; k++)
        c->leaf_of[j->ep_sws[k]] = k;
    if ((rc = label_components(ctx, j, c)) < 0 || (rc = build_reverse(ctx, j, &sc)) < 0)
        goto out;
    rc = IBR_ENOMEM;
    for (uint32_t k = 0; k < nl; k++) {
        uint32_t s = j->ep_sws[k];
        c->cap[2 * k] = t->adj_off[s + 1] - t->adj_off[s];
        c->cap[2 * k + 1] = sc.radj_off[s + 1] - sc.radj_off[s];
        sc.top[k] = k;
        sc.topcnt[k] = 1;
        sc.len[k] = 1;
        sc.chain[(size_t)k * IBR__AN_MAXMEM] = k;
    }
    c->n_cut = nl;
    if (c->comp) {
        for (uint32_t k = 0; k < nl; k++)
            sc.compleaves[c->comp[k]]++;
        level_cuts(j, c, &sc, rank_switches(j, &sc), (uint32_t)max_cut);
    }
    /* per leaf: its chain, ascending (cut ids grow with the level) */
    c->mem_off = ibr__calloc(ctx, (size_t)nl + 1, sizeof *c->mem_off);
    c->max_mem = 1;
    for (uint32_t k = 0; k < nl; k++) {
        if (c->mem_off)
            c->mem_off[k + 1] = c->mem_off[k] + sc.len[k];
        if (sc.len[k] > c->max_mem)
            c->max_mem = sc.len[k];
    }
    c->mem = ibr__mallocarray(ctx, c->mem_off ? c->mem_off[nl] + 1 : 1, sizeof *c->mem);
    if (!c->mem_off || !c->mem)
        goto out;
    for (uint32_t k = 0; k < nl; k++)
        memcpy(c->mem + c->mem_off[k], sc.chain + (size_t)k * IBR__AN_MAXMEM,
               sc.len[k] * sizeof *c->mem);
    rc = 0;
out:
    free_scratch(ctx, &sc);
    return rc;
}

/* ------------------------------------------------------------------ */
/* per pattern                                                          */

int ibr__analyze_bound_scratch(const ibr__ajob *j, ibr__aworker *w)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    size_t n = j->max_flows > j->n_ep ? j->max_flows : j->n_ep; /* flows of a pattern */
    size_t ne = 2 * (size_t)j->cuts.n_cut + 1;
    size_t per = 2 * (size_t)(j->cuts.max_mem ? j->cuts.max_mem : 1);
    size_t nodes = 2 * ne + 2, arcs = 2 * (3 * ne + n);
    w->bcnt = ibr__calloc(ctx, ne, sizeof *w->bcnt);
    w->bdix = ibr__mallocarray(ctx, ne, sizeof *w->bdix);
    w->btouch = ibr__mallocarray(ctx, ne, sizeof *w->btouch);
    w->bup = ibr__calloc(ctx, ne, sizeof *w->bup);
    w->bterm = ibr__calloc(ctx, ne, sizeof *w->bterm);
    w->bpar = ibr__mallocarray(ctx, ne, sizeof *w->bpar);
    w->ga = ibr__mallocarray(ctx, n, sizeof *w->ga);
    w->gb = ibr__mallocarray(ctx, n, sizeof *w->gb);
    w->gm = ibr__mallocarray(ctx, n, sizeof *w->gm);
    w->gno = ibr__mallocarray(ctx, n, 1);
    w->gne = ibr__mallocarray(ctx, n, 1);
    w->gent = ibr__mallocarray(ctx, n * per, sizeof *w->gent);
    w->barc = ibr__mallocarray(ctx, 3 * ne, sizeof *w->barc);
    w->gpath = ibr__mallocarray(ctx, 2 * per + 4, sizeof *w->gpath);
    w->nfirst = ibr__mallocarray(ctx, nodes, sizeof *w->nfirst);
    w->nlevel = ibr__mallocarray(ctx, nodes, sizeof *w->nlevel);
    w->nit = ibr__mallocarray(ctx, nodes, sizeof *w->nit);
    w->nqueue = ibr__mallocarray(ctx, nodes, sizeof *w->nqueue);
    w->ato = ibr__mallocarray(ctx, arcs, sizeof *w->ato);
    w->anext = ibr__mallocarray(ctx, arcs, sizeof *w->anext);
    w->acap = ibr__mallocarray(ctx, arcs, sizeof *w->acap);
    if (!w->bcnt || !w->bdix || !w->btouch || !w->bup || !w->bterm || !w->bpar || !w->ga ||
        !w->gb || !w->gm || !w->gno || !w->gne || !w->gent || !w->barc || !w->gpath || !w->nfirst ||
        !w->nlevel || !w->nit || !w->nqueue || !w->ato || !w->anext || !w->acap)
        return IBR_ENOMEM;
    for (size_t i = 0; i < ne; i++)
        w->bdix[i] = IBR_NONE;
    return 0;
}

/* The cut entries a flow from leaf a to leaf b crosses, into e: first the
   cuts holding a and not b (entry 2c, leaving c), from a's own up, then
   those holding b and not a (2c + 1), from b's own up. *nout gets the
   number of the first kind. The cuts holding both are the end of both
   chains. */
static unsigned chains(const ibr__acuts *c, uint32_t a, uint32_t b, uint32_t *e, unsigned *nout)
{
    const uint32_t *p = c->mem + c->mem_off[a], *q = c->mem + c->mem_off[b];
    uint32_t np = c->mem_off[a + 1] - c->mem_off[a], nq = c->mem_off[b + 1] - c->mem_off[b];
    /* the common suffix */
    while (np && nq && p[np - 1] == q[nq - 1])
        np--, nq--;
    unsigned n = 0;
    for (uint32_t i = 0; i < np; i++)
        e[n++] = 2 * p[i];
    *nout = n;
    for (uint32_t i = 0; i < nq; i++)
        e[n++] = 2 * q[i] + 1;
    return n;
}

static void add_arc(ibr__aworker *w, uint32_t *na, uint32_t u, uint32_t v, uint32_t cap)
{
    uint32_t a = *na;
    w->ato[a] = v;
    w->acap[a] = cap;
    w->anext[a] = w->nfirst[u];
    w->nfirst[u] = a;
    w->ato[a + 1] = u;
    w->acap[a + 1] = 0;
    w->anext[a + 1] = w->nfirst[v];
    w->nfirst[v] = a + 1;
    *na = a + 2;
}

enum { NODE_S = 0, NODE_T = 1 };

static uint32_t push(ibr__aworker *w, uint32_t v, uint32_t lim)
{
    if (v == NODE_T)
        return lim;
    for (; w->nit[v] != IBR_NONE; w->nit[v] = w->anext[w->nit[v]]) {
        uint32_t a = w->nit[v], u = w->ato[a];
        if (!w->acap[a] || w->nlevel[u] != w->nlevel[v] + 1)
            continue;
        uint32_t d = push(w, u, lim < w->acap[a] ? lim : w->acap[a]);
        if (d) {
            w->acap[a] -= d;
            w->acap[a ^ 1u] += d;
            return d;
        }
    }
    return 0;
}

/* Dinic's maximum flow from NODE_S to NODE_T over nn nodes. */
static uint64_t max_flow(ibr__aworker *w, uint32_t nn)
{
    uint64_t flow = 0;
    for (;;) {
        for (uint32_t v = 0; v < nn; v++)
            w->nlevel[v] = IBR_NONE;
        uint32_t head = 0, tail = 0;
        w->nlevel[NODE_S] = 0;
        w->nqueue[tail++] = NODE_S;
        while (head < tail) {
            uint32_t v = w->nqueue[head++];
            for (uint32_t a = w->nfirst[v]; a != IBR_NONE; a = w->anext[a])
                if (w->acap[a] && w->nlevel[w->ato[a]] == IBR_NONE) {
                    w->nlevel[w->ato[a]] = w->nlevel[v] + 1;
                    w->nqueue[tail++] = w->ato[a];
                }
        }
        if (w->nlevel[NODE_T] == IBR_NONE)
            return flow;
        for (uint32_t v = 0; v < nn; v++)
            w->nit[v] = w->nfirst[v];
        uint32_t d;
        while ((d = push(w, NODE_S, UINT32_MAX)) > 0)
            flow += d;
    }
}

/* The network of the ng flow groups over the nt crossed cut entries (see
   the top of the file); returns its maximum flow. Each group first sends
   what its own chain lets through, then Dinic's algorithm reroutes. */
static uint64_t network_flow(const ibr__ajob *j, ibr__aworker *w, uint32_t ng, uint32_t nt)
{
    const uint32_t *cap = j->cuts.cap;
    size_t per = 2 * (size_t)j->cuts.max_mem;
    uint32_t nn = 2 + 2 * nt, na = 0;
    for (uint32_t i = 0; i < nt; i++)
        w->bdix[w->btouch[i]] = i;
    for (uint32_t v = 0; v < nn; v++)
        w->nfirst[v] = IBR_NONE;
    for (uint32_t g = 0; g < ng; g++) {
        const uint32_t *e = w->gent + g * per;
        unsigned no = w->gno[g], n = w->gne[g];
        uint32_t m = w->gm[g];
        w->bterm[e[0]] += m;
        for (unsigned i = 0; i + 1 < no; i++) {
            w->bup[e[i]] += m;
            w->bpar[e[i]] = e[i + 1];
        }
        for (unsigned i = no; i + 1 < n; i++) {
            w->bup[e[i]] += m; /* from e[i + 1], the next larger cut entered */
            w->bpar[e[i]] = e[i + 1];
        }
        w->bterm[e[no]] += m;
    }
    /* arcs of entry i: barc[3i] its capacity, barc[3i + 1] to or from the
       next cut, barc[3i + 2] from the source or to the sink */
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t x = w->btouch[i], in = 2 + 2 * i, out = in + 1;
        w->barc[3 * i] = na;
        add_arc(w, &na, in, out, cap[x]);
        w->barc[3 * i + 1] = na;
        if (w->bup[x])
            add_arc(w, &na, x & 1 ? 3 + 2 * w->bdix[w->bpar[x]] : out,
                    x & 1 ? in : 2 + 2 * w->bdix[w->bpar[x]], w->bup[x]);
        w->barc[3 * i + 2] = na;
        if (w->bterm[x])
            add_arc(w, &na, x & 1 ? out : NODE_S, x & 1 ? NODE_T : in, w->bterm[x]);
    }
    /* one bridge per group (parallel arcs are as good as one), and the
       group's own chain first */
    uint64_t flow = 0;
    for (uint32_t g = 0; g < ng; g++) {
        const uint32_t *e = w->gent + g * per;
        unsigned no = w->gno[g], n = w->gne[g];
        uint32_t bridge = na, m = w->gm[g];
        add_arc(w, &na, 3 + 2 * w->bdix[e[no - 1]], 2 + 2 * w->bdix[e[n - 1]], m);
        uint32_t *arcs = w->gpath, k = 0;
        arcs[k++] = w->barc[3 * w->bdix[e[0]] + 2];
        for (unsigned i = 0; i < n; i++) {
            uint32_t d = w->bdix[e[i]];
            arcs[k++] = w->barc[3 * d];
            if (i + 1 < n && i + 1 != no)
                arcs[k++] = w->barc[3 * d + 1];
            if (i + 1 == no)
                arcs[k++] = bridge;
        }
        arcs[k++] = w->barc[3 * w->bdix[e[no]] + 2];
        for (uint32_t i = 0; i < k && m; i++)
            if (w->acap[arcs[i]] < m)
                m = w->acap[arcs[i]];
        for (uint32_t i = 0; i < k && m; i++) {
            w->acap[arcs[i]] -= m;
            w->acap[arcs[i] ^ 1u] += m;
        }
        flow += m;
    }
    return flow + max_flow(w, nn);
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
    uint32_t nt = 0;
    int over = 0;
    for (uint32_t g = 0; g < ng; g++) {
        uint32_t *e = w->gent + g * per;
        unsigned no, n = chains(c, w->ga[g], w->gb[g], e, &no);
        w->gno[g] = (uint8_t)no;
        w->gne[g] = (uint8_t)n;
        for (unsigned i = 0; i < n; i++) {
            w->btouch[nt] = e[i];
            nt += w->bcnt[e[i]] == 0;
            w->bcnt[e[i]] += w->gm[g];
        }
    }
    for (uint32_t i = 0; i < nt && !over; i++)
        over = w->bcnt[w->btouch[i]] > c->cap[w->btouch[i]];
    double bound = (double)reach;
    if (over)
        bound = (double)(same + network_flow(j, w, ng, nt));
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t x = w->btouch[i];
        w->bcnt[x] = w->bup[x] = w->bterm[x] = 0;
        w->bdix[x] = IBR_NONE;
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
