/*
 * ftree: route assignment, as OpenSM 3.3's fat-tree routing does it (its
 * tables are reproduced byte for byte; tests/opensm/compare_ftree.py).
 *
 * Destinations are routed one at a time, in an order that is the balancing
 * algorithm: the compute nodes leaf by leaf in index order (each leaf
 * padded with "dummy" destinations up to the most CNs any leaf has, so
 * that partly populated leaves do not shift the pattern), then the other
 * CA ports, then the switches. Counters on every port and port group
 * remember how many routes already use it, and are never reset.
 *
 * For one destination hanging off switch X:
 *   descend(X): for each DOWN group of X (least up-loaded first, ties by
 *     the index of the switch below), the switch below gets its route up to
 *     X through the least up-loaded port of the group, unless it already
 *     has one at least as short; the walk goes on down from there, and
 *     the port's up counter grows when the walk reached a CA.
 *   ascend(X): descend(X); then, unless X is a root, the least down-loaded
 *     UP group (ties by index) and its least down-loaded port carry the
 *     "main" route: the switch above routes down to X and the walk goes on
 *     up from it, counting the route; every other UP group gets the same
 *     treatment without counting (only where the switch above has no
 *     shorter route yet), then the SIBLING groups.
 * Routes to a destination therefore go up, then down: an up*down* routing
 * on a ranked tree, so it has no credit loops. Links within a rank and the
 * max_reverse_hops steps of I/O nodes can break that; ftree.c then checks
 * the routes for a credit loop.
 *
 * The walks are OpenSM's, but most of OpenSM's work is looking at switches
 * that already have their route. Switches with the same set of switches
 * below them share a class (all the spines of a two-level tree, the
 * switches of a pod above the leaves): once one of them has walked down at
 * h hops, a walk down from any of them at h hops or more changes nothing
 * and is skipped. The skipped walks would only re-read state, so the
 * tables, counters and list orders come out as OpenSM's.
 *
 * Routes are gathered per destination (one byte per switch) and written
 * into the LFT rows a batch of destinations at a time: with two or more
 * threads, by a thread of its own while the walks fill a second batch
 * (the walks read neither the LFTs nor the hop matrix); otherwise in
 * place, on the run's workers. The
 * hop counts found for switch destinations become the result's hop
 * matrix; a switch pair without a route (two roots, without connect_roots)
 * stays 255 so that the verifier counts it as restricted (never an entry
 * that breaks an end-port pair: ftree.c declines tables with such a pair).
 *
 * Time: O(D·(S + G')) for D destinations over S switches, where G' counts
 * the port groups of the walks not skipped (about S per destination in a
 * full fat tree), plus the load sorts (insertion sorts on almost sorted
 * lists). An I/O node with reverse hops costs O(S·L) walks for the L levels of
 * reverse hops that reach a switch closer (reached()), not OpenSM's
 * exponential walk.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree_int.h"

/* The port of group g with the fewest routes up (or down) through it, the
   first one on ties; its remote port number goes to *rport. NULL for a
   group of one port, whose port counters are never consulted. */
static ft_port *least_loaded(ftree *ft, const ft_group *g, uint8_t *rport, int down)
{
    if (g->nports == 1) {
        *rport = g->rport1;
        return NULL;
    }
    ft_port *p = &ft->ports[g->port0], *best = p;
    for (uint32_t i = 1; i < g->nports; i++)
        if (down ? p[i].cd < best->cd : p[i].cu < best->cu)
            best = &p[i];
    *rport = best->rport;
    return best;
}

static ft_port *least_up(ftree *ft, const ft_group *g, uint8_t *rport)
{
    return least_loaded(ft, g, rport, 0);
}

static ft_port *least_down(ftree *ft, const ft_group *g, uint8_t *rport)
{
    return least_loaded(ft, g, rport, 1);
}

/* The compute nodes of leaf w in the order its down groups have now (at
   most max_cn), into seq; returns how many. */
static uint32_t leaf_cn_seq(const ftree *ft, const ft_sw *w, uint32_t *seq)
{
    uint32_t k = 0;
    for (uint32_t j = 0; j < w->ndown && k < ft->max_cn; j++) {
        const ft_group *g = &ft->grp[ft->order[w->down + j]];
        if (g->remote == FT_CA && ft->ca[g->ca].role == FT_CN)
            seq[k++] = g->ca;
    }
    return k;
}

static int descend_walk(ftree *ft, uint32_t x, uint32_t prev, unsigned h);

/* Nothing to route below x: only CA groups (a leaf), or a class mate
   already routed the same switches at most h + 1 hops away. The walk would
   only report the CAs. */
static inline int nothing_below(const ftree *ft, const ft_sw *w, unsigned h)
{
    uint32_t c = w->cls;
    return (!w->sw_down && (!w->nsib || !ft->lid)) ||
           (c != IBR_NONE && ft->cls_gen[c] == ft->gen && ft->cls_h[c] <= h);
}

/* Route the switches below x (and beside it, for a real LID) up toward x,
   which is h hops from the destination; prev is the switch the walk came
   up from (not routed back), or IBR_NONE. Returns whether a route that
   reaches a CA was made or exists below. The common case, nothing to do
   and no list to re-sort, is decided here without a call. */
static inline int descend(ftree *ft, uint32_t x, uint32_t prev, unsigned h)
{
    ft_sw *w = &ft->sw[x];
    if (w->ndown == 0)
        return 0;
    if (!w->changed && !w->nsib && nothing_below(ft, w, h)) {
        if (!w->has_ca)
            return 0;
        w->idx = w->idx + 1 < w->ndown ? w->idx + 1 : 0;
        return 1;
    }
    return descend_walk(ft, x, prev, h);
}

static int descend_walk(ftree *ft, uint32_t x, uint32_t prev, unsigned h)
{
    ft_sw *w = &ft->sw[x];
    if (w->changed) {
        ibr__ftree_sort_up_load(ft, ft->order + w->down, w->ndown);
        w->changed = 0;
    }
    if (w->nsib)
        ibr__ftree_sort_up_load(ft, ft->order + w->sib, w->nsib);
    uint32_t c = w->cls;
    if (nothing_below(ft, w, h)) {
        if (!w->has_ca)
            return 0;
        w->idx = w->idx + 1 < w->ndown ? w->idx + 1 : 0;
        return 1;
    }
    uint32_t n = w->ndown + (ft->lid ? w->nsib : 0);
    int created = 0;
    for (uint32_t k = 0; k < n; k++) {
        /* the lists may be re-sorted by a nested walk: index them live */
        ft_group *g = &ft->grp[ft->order[k < w->ndown ? w->down + k : w->sib + k - w->ndown]];
        if (g->remote == FT_CA) {
            created = 1;
            continue;
        }
        uint32_t y = g->remote;
        if (y == prev || g->nports == 0)
            continue;
        if (h + 1 >= FT_NOHOP || (ft->hops[y] != FT_NOHOP && h + 1 >= ft->hops[y]))
            continue;
        uint8_t rp;
        ft_port *p = least_up(ft, g, &rp);
        ft->port[y] = rp;
        ft->hops[y] = (uint8_t)(h + 1);
        if (descend(ft, y, IBR_NONE, h + 1)) {
            created = 1;
            if (p)
                p->cu++;
            g->cu++;
            w->changed = 1;
        }
    }
    if (c != IBR_NONE && h + 1 < FT_NOHOP &&
        (ft->cls_gen[c] != ft->gen || ft->cls_h[c] > h)) {
        ft->cls_gen[c] = ft->gen;
        ft->cls_h[c] = (uint8_t)h;
    }
    if (created)
        w->idx = w->idx + 1 < w->ndown ? w->idx + 1 : 0;
    return created;
}

/* Route the switch u above x to x through its port rport, if it has no
   route at least as short yet (always: and go on up from u anyway). */
static int route_up_to(ftree *ft, uint32_t u, uint8_t rport, unsigned h, int always)
{
    if (h + 1 >= FT_NOHOP)
        return 0;
    if (!always && ft->port[u] != 0xFF && h + 1 >= ft->hops[u])
        return 0;
    if (ft->port[u] == 0xFF || h + 1 < ft->hops[u]) {
        ft->port[u] = rport;
        ft->hops[u] = (uint8_t)(h + 1);
    }
    return 1;
}

/*
 * Reverse hops. OpenSM's walk takes every reverse hop it may, and a walk
 * that comes back to a switch walks on from it again, so each reverse hop
 * multiplies the walks by the switches below: exponential in
 * max_reverse_hops (6 switches and 14 reverse hops took 15 s, 255 never
 * ended). But a walk up from switch x with c reverse hops left, h hops
 * from the destination, finds nothing that an earlier walk of the same
 * destination (done, or still under way further up the recursion) has not
 * found or will not, if that one reached x with at least c reverse hops
 * left, at most h hops, and as a main walk where this one is one (a main
 * walk does all that a side walk does, and climbs on regardless): every
 * route the later walk could set would be no shorter than one the earlier
 * sets, and routes are only replaced by shorter ones. Such walks are
 * pruned; what they change is the counters (OpenSM counts each main walk
 * again) and so the balance, not which routes exist.
 *
 * Up to FT_RH_OPENSM reverse hops the walk stays OpenSM's: only walks
 * with FT_RH_OPENSM hops left are pruned (those below cost O(ranks x
 * switches below)), and the tables are OpenSM's unless a walk returns to
 * a switch with all its reverse hops left (none of the trees in
 * tests/opensm). Above it, pruning alone leaves a depth-first walk that
 * reaches switches first by long detours and again, shorter, later, up to
 * once per level: so every walk is pruned, and a reverse hop waits until
 * the walks with more hops left are done, then the moves of a level are
 * taken in order of hops (route_dest()). A walk then only meets walks
 * with at least as many reverse hops left, and reach[] keeps one count of
 * hops per switch and main flag. Each switch is walked from about once per
 * main flag and level that brings it closer: O(S·L) walks per I/O node
 * for S switches and L levels that reach something new, in practice a few.
 *
 * Returns whether x was so reached; if not, records this walk.
 */
static int reached(ftree *ft, uint32_t x, int main, unsigned h)
{
    uint8_t *m = ft->reach + 2 * (size_t)x;
    if (ft->reach_gen[x] != ft->gen) {
        ft->reach_gen[x] = ft->gen;
        m[0] = m[1] = FT_NOHOP;
    }
    if (m[1] <= h || (!main && m[0] <= h))
        return 1;
    m[main ? 1 : 0] = (uint8_t)h;
    return 0;
}

/* A reverse hop of the level search: down from prev to x, taken once the
   current level is done. */
static void defer(ftree *ft, uint32_t x, uint32_t prev, int main, unsigned h)
{
    if (ft->n_mv_next == ft->cap_mv) {
        uint32_t cap = ft->cap_mv ? 2 * ft->cap_mv : 64;
        ft_move *a = ibr__reallocarray(ft->ctx, ft->mv, cap, sizeof *a);
        if (a)
            ft->mv = a;
        ft_move *b = a ? ibr__reallocarray(ft->ctx, ft->mv_next, cap, sizeof *b) : NULL;
        if (b)
            ft->mv_next = b;
        ft_move *c = b ? ibr__reallocarray(ft->ctx, ft->mv_tmp, cap, sizeof *c) : NULL;
        if (!c) {
            ft->oom = 1;
            return;
        }
        ft->mv_tmp = c;
        ft->cap_mv = cap;
    }
    ft_move *m = &ft->mv_next[ft->n_mv_next++];
    m->x = x;
    m->prev = prev;
    m->h = (uint8_t)h;
    m->main = (uint8_t)(main != 0);
}

static int ascend(ftree *ft, uint32_t x, uint32_t prev, int main, unsigned credit, unsigned h);

/* The walk up from x, a reverse hop down from prev: now, or (level
   search) once the current level is done. */
static int reverse_hop(ftree *ft, uint32_t x, uint32_t prev, int main, unsigned credit,
                       unsigned h)
{
    if (ft->prune == 2) {
        defer(ft, x, prev, main, h);
        return 0;
    }
    return ascend(ft, x, prev, main, credit, h);
}

static int ascend(ftree *ft, uint32_t x, uint32_t prev, int main, unsigned credit, unsigned h)
{
    if ((ft->prune == 2 || (ft->prune && credit >= FT_RH_OPENSM)) && reached(ft, x, main, h))
        return ft->sw[x].has_ca;
    int created = descend(ft, x, prev, h);
    ft_sw *w = &ft->sw[x];
    if (w->rank == 0) {
        if (credit > 0 && w->ndown) {
            /* reverse hops: down again, then up, from a rotating start */
            w->idx = w->idx + 1 < w->ndown ? w->idx + 1 : 0;
            uint32_t i = w->idx;
            for (uint32_t j = 0; j < w->ndown; j++) {
                const ft_group *g = &ft->grp[ft->order[w->down + i]];
                i = (i + 1) % w->ndown;
                if (g->remote == FT_CA || h + 1 >= FT_NOHOP)
                    continue;
                created |= reverse_hop(ft, g->remote, x, main, credit - 1, h + 1);
            }
        }
        return created;
    }
    if (w->up_dirty) {
        ibr__ftree_sort_down_load(ft, ft->order + w->up, w->nup);
        w->up_dirty = 0;
    }
    ft_group *mg = w->nup ? &ft->grp[ft->order[w->up]] : NULL;
    if (main && mg && mg->nports) {
        uint8_t rp;
        ft_port *mp = least_down(ft, mg, &rp);
        mg->cd++;
        w->up_dirty = 1;
        if (mp)
            mp->cd++;
        /* the main route climbs on even where the switch above already has
           a shorter route (as OpenSM does) */
        if (route_up_to(ft, mg->remote, rp, h, 1))
            created |= ascend(ft, mg->remote, x, 1, credit, h + 1);
    }
    for (uint32_t i = main ? 1 : 0; i < w->nup; i++) {
        const ft_group *g = &ft->grp[ft->order[w->up + i]];
        if (g->nports == 0)
            continue;
        uint8_t rp;
        least_down(ft, g, &rp);
        if (route_up_to(ft, g->remote, rp, h, 0))
            created |= ascend(ft, g->remote, x, 0, credit, h + 1);
    }
    if (w->nsib)
        ibr__ftree_sort_down_load(ft, ft->order + w->sib, w->nsib);
    for (uint32_t i = 0; i < w->nsib; i++) {
        const ft_group *g = &ft->grp[ft->order[w->sib + i]];
        if (g->nports == 0)
            continue;
        uint8_t rp;
        ft_port *p = least_down(ft, g, &rp);
        if (route_up_to(ft, g->remote, rp, h, 0) && ascend(ft, g->remote, x, 0, credit, h + 1)) {
            created = 1;
            /* OpenSM counts such a route on the main group with the
               sibling's port */
            if (mg) {
                mg->cd++;
                w->up_dirty = 1;
            }
            if (p)
                p->cd++;
        }
    }
    if (credit == 0 || w->is_leaf)
        return created;
    for (uint32_t i = 0; i < w->ndown; i++) {
        const ft_group *g = &ft->grp[ft->order[w->down + i]];
        if (g->remote == FT_CA || h + 1 >= FT_NOHOP)
            continue;
        created |= reverse_hop(ft, g->remote, x, 1, credit - 1, h + 1);
    }
    return created;
}

/* ------------------------------------------------------------------ */
/* switch classes                                                      */

typedef struct cls_ent {
    uint64_t hash;
    uint32_t sw, off, len;
} cls_ent;

static int cmp_cls(const void *a, const void *b)
{
    const cls_ent *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int ibr__ftree_classes(ftree *ft)
{
    ibr_context *ctx = ft->ctx;
    uint32_t nsw = ft->nsw, ne = 0, nnb = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        ft_sw *w = &ft->sw[s];
        w->cls = IBR_NONE;
        w->has_ca = w->sw_down = 0;
        w->up_dirty = 1;
        for (uint32_t k = 0; k < w->ndown; k++) {
            if (ft->grp[ft->order[w->down + k]].remote == FT_CA)
                w->has_ca = 1;
            else
                w->sw_down = 1;
        }
    }
    cls_ent *e = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *e);
    uint32_t *nb = ibr__mallocarray(ctx, ft->ngrp ? ft->ngrp : 1, sizeof *nb);
    ft->cls_gen = ibr__calloc(ctx, nsw ? nsw : 1, sizeof *ft->cls_gen);
    ft->cls_h = ibr__mallocarray(ctx, nsw ? nsw : 1, 1);
    if (!e || !nb || !ft->cls_gen || !ft->cls_h) {
        ibr__free(ctx, e);
        ibr__free(ctx, nb);
        return IBR_ENOMEM;
    }
    for (uint32_t s = 0; s < nsw; s++) {
        const ft_sw *w = &ft->sw[s];
        if (w->rank == FT_NORANK || w->nsib || !w->sw_down)
            continue;
        cls_ent *x = &e[ne++];
        x->sw = s;
        x->off = nnb;
        for (uint32_t k = 0; k < w->ndown; k++) {
            uint32_t r = ft->grp[ft->order[w->down + k]].remote;
            if (r != FT_CA)
                nb[nnb++] = r;
        }
        x->len = nnb - x->off;
        qsort(nb + x->off, x->len, sizeof *nb, cmp_u32);
        uint64_t hsh = 1469598103934665603ULL;
        for (uint32_t i = 0; i < x->len; i++)
            hsh = (hsh ^ nb[x->off + i]) * 1099511628211ULL;
        x->hash = hsh;
    }
    qsort(e, ne, sizeof *e, cmp_cls);
    /* a run of equal hashes holds one class, barring collisions: the first
       earlier entry of the run with the same list gives the class (the
       run's first entry, unless hashes collide) */
    uint32_t ncls = 0;
    for (uint32_t i = 0, run = 0; i < ne; i++) {
        if (i == 0 || e[i].hash != e[i - 1].hash || e[i].len != e[i - 1].len)
            run = i;
        uint32_t found = IBR_NONE;
        for (uint32_t j = run; j < i; j++)
            if (!memcmp(nb + e[i].off, nb + e[j].off, e[i].len * sizeof *nb)) {
                found = ft->sw[e[j].sw].cls;
                break;
            }
        ft->sw[e[i].sw].cls = found != IBR_NONE ? found : ncls++;
    }
    ft->ncls = ncls;
    ibr__free(ctx, e);
    ibr__free(ctx, nb);
    return 0;
}

/* ------------------------------------------------------------------ */

/* One set of batched columns. */
typedef struct ft_set {
    uint8_t *batch, *hbatch;
    uint16_t *batch_lid;
    uint32_t *hbatch_sw;
    uint32_t batch_n, hbatch_n;
} ft_set;

/* Write the columns of set x into the LFT rows (and hop matrix rows) of
   switches s0 .. s1 - 1. */
static void write_set(ftree *ft, const ft_set *x, uint32_t s0, uint32_t s1)
{
    size_t n = ft->nsw;
    for (uint32_t s = s0; s < s1; s++) {
        uint8_t *row = ibr_run_lft(ft->run, s);
        for (uint32_t k = 0; k < x->batch_n; k++) {
            uint8_t v = x->batch[(size_t)k * n + s];
            if (v != 0xFF)
                row[x->batch_lid[k]] = v;
        }
        uint8_t *hrow = ft->hm + (size_t)s * n;
        for (uint32_t k = 0; k < x->hbatch_n; k++)
            hrow[x->hbatch_sw[k]] = x->hbatch[(size_t)k * n + s];
    }
}

/* A block of switches of the current set, on the run's workers. */
typedef struct flush_job {
    ftree *ft;
    ft_set set;
    uint32_t block;
} flush_job;

static int flush_block(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    const flush_job *j = arg;
    size_t n = j->ft->nsw;
    uint32_t s0 = (uint32_t)(i * j->block), s1 = s0 + j->block;
    write_set(j->ft, &j->set, s0, s1 > n ? (uint32_t)n : s1);
    return 0;
}

/* The background writer: a set handed over by flush(), written on a thread
   of its own while the walks fill the other set. The walks never read the
   LFT rows nor the hop matrix, and each LFT entry and hop is written by
   one set only. */
typedef struct ft_bg {
    ftree *ft;
    ft_set set;      /* the set being written (or the spare one) */
    pthread_t tid;
    int running;
} ft_bg;

static void *bg_main(void *arg)
{
    ft_bg *bg = arg;
    write_set(bg->ft, &bg->set, 0, (uint32_t)bg->ft->nsw);
    return NULL;
}

static void bg_join(ftree *ft)
{
    ft_bg *bg = ft->bg;
    if (bg && bg->running) {
        pthread_join(bg->tid, NULL);
        bg->running = 0;
    }
}

static int flush(ftree *ft)
{
    int rc = 0;
    ft_bg *bg = ft->bg;
    if (!ft->batch_n && !ft->hbatch_n)
        return 0;
    if (bg) {
        /* hand the full set over and go on with the spare one */
        bg_join(ft);
        ft_set full = {ft->batch, ft->hbatch, ft->batch_lid, ft->hbatch_sw, ft->batch_n,
                       ft->hbatch_n};
        ft->batch = bg->set.batch;
        ft->hbatch = bg->set.hbatch;
        ft->batch_lid = bg->set.batch_lid;
        ft->hbatch_sw = bg->set.hbatch_sw;
        ft->batch_n = ft->hbatch_n = 0;
        bg->set = full;
        if (pthread_create(&bg->tid, NULL, bg_main, bg) == 0)
            bg->running = 1;
        else
            write_set(ft, &bg->set, 0, (uint32_t)ft->nsw);
        return 0;
    }
    flush_job j = {ft, {ft->batch, ft->hbatch, ft->batch_lid, ft->hbatch_sw, ft->batch_n,
                        ft->hbatch_n}, 64};
    rc = ibr_run_parallel_for(ft->run, (ft->nsw + j.block - 1) / j.block, flush_block, &j);
    ft->batch_n = ft->hbatch_n = 0;
    return rc;
}

static int begin(ftree *ft, uint16_t lid)
{
    int rc = 0;
    if (ft->batch_n == ft->batch_cap || ft->hbatch_n == ft->batch_cap)
        rc = flush(ft);
    ft->lid = lid;
    ft->gen++;
    ft->port = ft->batch + (size_t)ft->batch_n * ft->nsw;
    memset(ft->hops, FT_NOHOP, ft->nsw);
    memset(ft->port, 0xFF, ft->nsw);
    return rc;
}

/* Keep the routes found for the current LID (a dummy's are dropped); for a
   switch destination d also its hop counts. */
static void commit(ftree *ft, uint32_t d)
{
    if (ft->lid)
        ft->batch_lid[ft->batch_n++] = ft->lid;
    if (d != IBR_NONE) {
        memcpy(ft->hbatch + (size_t)ft->hbatch_n * ft->nsw, ft->hops, ft->nsw);
        ft->hbatch_sw[ft->hbatch_n++] = d;
    }
}

/* Route one destination hanging off switch x through port xport (0 for the
   switch itself, 0xFF for a dummy). */
static int route_dest(ftree *ft, uint16_t lid, uint32_t x, uint8_t xport, unsigned hops0,
                      int main, unsigned credit)
{
    int rc = begin(ft, lid);
    ft->port[x] = xport;
    ft->hops[x] = (uint8_t)hops0;
    ft->prune = credit == 0 ? 0 : credit <= FT_RH_OPENSM ? 1 : 2;
    ascend(ft, x, IBR_NONE, main, credit, hops0);
    /* the level search: the reverse hops of each level, by hops (a stable
       counting sort), their own reverse hops kept for the next level */
    while (ft->n_mv_next && credit-- > 0) {
        ft_move *m = ft->mv_next;
        uint32_t n = ft->n_mv_next, cnt[FT_NOHOP + 1] = {0};
        ft->mv_next = ft->mv;
        ft->n_mv_next = 0;
        for (uint32_t i = 0; i < n; i++)
            cnt[m[i].h]++;
        for (uint32_t i = 0, sum = 0; i <= FT_NOHOP; i++) {
            uint32_t k = cnt[i];
            cnt[i] = sum;
            sum += k;
        }
        for (uint32_t i = 0; i < n; i++)
            ft->mv_tmp[cnt[m[i].h]++] = m[i];
        ft->mv = ft->mv_tmp;
        ft->mv_tmp = m;
        for (uint32_t i = 0; i < n; i++) {
            const ft_move *v = &ft->mv[i];
            ascend(ft, v->x, v->prev, v->main, credit, v->h);
        }
    }
    ft->n_mv_next = 0;
    ft->prune = 0;
    commit(ft, xport == 0 ? x : IBR_NONE);
    if (rc == 0 && ft->oom)
        rc = IBR_ENOMEM;
    return rc;
}

/* connect_roots: every switch above the leaves that has no route to a
   switch LID the last leaf can reach sends it the way it sends to that
   leaf. Only switch LIDs get such routes (as in OpenSM): toward a switch
   that carries end ports the hop matrix keeps 255, so that the end ports
   the switch above cannot reach still count as restricted. */
static void connect_roots(ftree *ft)
{
    const ibr_topo *t = ft->t;
    uint8_t *hm = ft->hm;
    size_t n = ft->nsw;
    uint32_t last = ft->leaves[ft->nleaves - 1];
    uint16_t llid = ft->sw[last].lid;
    if (!llid)
        return;
    for (uint32_t s = 0; s < n; s++) {
        if (ft->sw[s].rank == FT_NORANK || ft->sw[s].rank >= ft->leaf_rank)
            continue;
        uint8_t *lft = ibr_run_lft(ft->run, s);
        uint8_t p = lft[llid];
        unsigned hl = hm[s * n + last];
        if (p == 0xFF || hl == 255)
            continue;
        for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
            uint32_t gp = t->lid_port[lid];
            if (lft[lid] != 0xFF || gp == IBR_NONE)
                continue;
            uint32_t d = t->nodes[t->port_node[gp]].sw;
            if (d == IBR_NONE || ft->sw[d].rank == FT_NORANK || hm[last * n + d] == 255)
                continue;
            lft[lid] = p;
            if (!ft->sw[d].has_end) {
                unsigned sum = hl + hm[last * n + d];
                hm[s * n + d] = (uint8_t)(sum < 255 ? sum : 254);
            }
        }
    }
}

static int assign(ftree *ft);

/*
 * The most reverse hops a search can use (see reached()). Above
 * FT_RH_OPENSM, in the level search, the walks of one chain (each started
 * by the one before it, up or by a reverse hop) have ever fewer hops left
 * and ever more hops behind them, so one that came back to a switch where
 * an earlier one of its chain walked, as a main walk or as a side walk
 * where that one was one too, would be pruned: a chain walks from each
 * switch at most twice. Reverse hops are taken from switches with a
 * switch below them (a root, or a switch above the leaves), so a chain
 * takes at most 2·N of them for N such switches. With 2·N + 1 allowed no
 * walk runs out of reverse hops; with one more, the search makes the same
 * walks in the same order, each with one more left, and sets the same
 * routes: 2·N + 1 and every setting above it give the same tables.
 *
 * (Twice the tree's rank would not be enough: a chain of spines over
 * leaves, spine i - leaf i - spine i + 1, is a tree of rank 2 whose end
 * spines are n - 1 reverse hops apart; test_ftree.c, "reverse hops".)
 */
unsigned ibr__ftree_rh_bound(const ftree *ft, unsigned setting)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < ft->nsw; s++) {
        const ft_sw *w = &ft->sw[s];
        if (w->rank != FT_NORANK && w->sw_down && (w->rank == 0 || !w->is_leaf))
            n++;
    }
    uint64_t b = 2 * n + 1;
    if (b <= FT_RH_OPENSM)
        b = FT_RH_OPENSM + 1;
    return setting < b ? setting : (unsigned)b;
}

int ibr__ftree_assign(ftree *ft)
{
    int rc = assign(ft);
    ibr_context *ctx = ft->ctx;
    ibr__free(ctx, ft->reach);
    ibr__free(ctx, ft->reach_gen);
    ibr__free(ctx, ft->mv);
    ibr__free(ctx, ft->mv_next);
    ibr__free(ctx, ft->mv_tmp);
    ft->reach = NULL;
    ft->reach_gen = NULL;
    ft->mv = ft->mv_next = ft->mv_tmp = NULL;
    ft->n_mv_next = ft->cap_mv = 0;
    /* the background writer, if any: done, its spare set freed */
    bg_join(ft);
    if (ft->bg) {
        ft_bg *b = ft->bg;
        ibr__free(ft->ctx, b->set.batch);
        ibr__free(ft->ctx, b->set.hbatch);
        ibr__free(ft->ctx, b->set.batch_lid);
        ibr__free(ft->ctx, b->set.hbatch_sw);
        ibr__free(ft->ctx, b);
        ft->bg = NULL;
    }
    return rc;
}

static int assign(ftree *ft)
{
    ibr_run *run = ft->run;
    ibr_context *ctx = ft->ctx;
    size_t n = ft->nsw;
    int rc;
    if (!(ft->hm = ibr_run_hops(run)))
        return IBR_ENOMEM;
    if ((rc = ibr__ftree_classes(ft)) < 0)
        return rc;
    ft->rh = ibr__ftree_rh_bound(ft, ft->max_reverse_hops);
    if (ft->rh < ft->max_reverse_hops) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "ftree: max_reverse_hops %u: no walk can take more than %u reverse hops "
                 "on this tree; routed with %u (the same tables)",
                 ft->max_reverse_hops, ft->rh, ft->rh);
        ibr_run_log(run, IBR_LOG_INFO, msg);
    }
    if (ft->rh) {
        ft->reach = ibr__mallocarray(ctx, n ? n : 1, 2);
        ft->reach_gen = ibr__calloc(ctx, n ? n : 1, sizeof *ft->reach_gen);
        if (!ft->reach || !ft->reach_gen)
            return IBR_ENOMEM;
    }
    /* batches of about 4 MB, 64 to 2048 destinations: few enough that
       starting the workers of each flush costs little */
    size_t cap = ((size_t)4 << 20) / (n ? n : 1);
    ft->batch_cap = (uint32_t)(cap < 64 ? 64 : cap > 2048 ? 2048 : cap);
    ft->batch = ibr__mallocarray(ctx, (size_t)ft->batch_cap * n, 1);
    ft->hbatch = ibr__mallocarray(ctx, (size_t)ft->batch_cap * n, 1);
    ft->batch_lid = ibr__mallocarray(ctx, ft->batch_cap, sizeof *ft->batch_lid);
    ft->hbatch_sw = ibr__mallocarray(ctx, ft->batch_cap, sizeof *ft->hbatch_sw);
    if (!ft->batch || !ft->hbatch || !ft->batch_lid || !ft->hbatch_sw)
        return IBR_ENOMEM;
    ft->batch_n = ft->hbatch_n = 0;
    /* with another worker free: a second set, written in the background
       (without memory for it, the batches are written in place) */
    if (ibr_run_threads(run) > 1) {
        ft_bg *b = ibr__calloc(ctx, 1, sizeof *b);
        if (b) {
            b->ft = ft;
            b->set.batch = ibr__mallocarray(ctx, (size_t)ft->batch_cap * n, 1);
            b->set.hbatch = ibr__mallocarray(ctx, (size_t)ft->batch_cap * n, 1);
            b->set.batch_lid = ibr__mallocarray(ctx, ft->batch_cap, sizeof *b->set.batch_lid);
            b->set.hbatch_sw = ibr__mallocarray(ctx, ft->batch_cap, sizeof *b->set.hbatch_sw);
            ft->bg = b;
            if (!b->set.batch || !b->set.hbatch || !b->set.batch_lid || !b->set.hbatch_sw)
                return IBR_ENOMEM;
        } else {
            return IBR_ENOMEM;
        }
    }
    uint64_t total = (uint64_t)ft->nleaves * ft->max_cn + ft->nca + ft->nrouters + n, done = 0;
    const char *phase = "ftree: routes";
    if ((rc = ibr_run_progress(run, phase, 0, total)) < 0)
        return rc;

    /* compute nodes, leaf by leaf, each leaf padded with dummies. The CNs
       of a leaf are taken in the order its groups have when the leaf's turn
       comes. (OpenSM walks the live list, which routing re-sorts when the
       leaf has switches below it, and then skips CNs; in the trees it is
       meant for the order never changes.) */
    uint32_t *seq = ft->cn_seq;
    for (uint32_t i = 0; i < ft->nleaves; i++) {
        uint32_t x = ft->leaves[i];
        const ft_sw *w = &ft->sw[x];
        uint32_t routed = leaf_cn_seq(ft, w, seq);
        for (uint32_t k = 0; k < routed && rc == 0; k++) {
            const ft_ca *c = &ft->ca[seq[k]];
            rc = route_dest(ft, c->lid, x, ft->ports[ft->grp[c->group].port0].port, 1, 1, 0);
        }
        for (; routed < ft->max_cn && rc == 0; routed++) {
            seq[routed] = IBR_NONE;
            rc = route_dest(ft, 0, x, 0xFF, 1, 1, 0);
        }
        seq += ft->max_cn;
        done += ft->max_cn;
        if (rc == 0 && (i & 15) == 15)
            rc = ibr_run_progress(run, phase, done, total);
        if (rc < 0)
            return rc;
    }
    /* the other CA ports (I/O nodes may take reverse hops) */
    for (uint32_t i = 0; i < ft->nca && rc == 0; i++) {
        const ft_ca *c = &ft->ca[i];
        if (c->role != FT_CN)
            rc = route_dest(ft, c->lid, c->sw, c->swport, 1, 1, c->role == FT_IO ? ft->rh : 0);
    }
    /* routers (OpenSM leaves them unrouted): like non-compute CA ports */
    for (uint32_t i = 0; i < ft->nrouters && rc == 0; i++) {
        const ibr__port *pt = &ft->t->ports[ft->routers[i]];
        rc = route_dest(ft, pt->lid, ft->t->nodes[pt->remote_node].sw, pt->remote_port, 1, 1, 0);
    }
    done += ft->nca + ft->nrouters;
    if (rc < 0 || (rc = ibr_run_progress(run, phase, done, total)) < 0)
        return rc;
    /* switches: not counted in the balance; their hop counts are the
       engine's hop matrix */
    for (uint32_t d = 0; d < n && rc == 0; d++)
        if (ft->sw[d].rank != FT_NORANK)
            rc = route_dest(ft, ft->sw[d].lid, d, 0, 0, 0, 0);
    if (rc < 0)
        return rc;
    /* the last set in place, once the background writer is done */
    bg_join(ft);
    ft_bg *keep_bg = ft->bg;
    ft->bg = NULL;
    rc = flush(ft);
    ft->bg = keep_bg;
    if (rc < 0)
        return rc;
    if (ft->connect_roots) {
        for (uint32_t i = 0; i < ft->t->n_end; i++) {
            const ibr__port *pt = &ft->t->ports[ft->t->end_port[i]];
            if (pt->remote_node != IBR_NONE && ft->t->nodes[pt->remote_node].sw != IBR_NONE)
                ft->sw[ft->t->nodes[pt->remote_node].sw].has_end = 1;
        }
        connect_roots(ft);
    }
    return ibr_run_progress(run, phase, total, total);
}

/* ------------------------------------------------------------------ */
/* degraded trees                                                      */

/*
 * A degraded tree (ranked from the compute nodes, purity rules broken) is
 * routed with the same up/down rule but with counters that follow the tree
 * that is left: per switch port, the (source end port, destination) routes
 * that leave through it, so a cable that is gone takes nothing and a switch
 * that lost cables is seen through the load its survivors carry. For each
 * destination, in the order above (compute nodes leaf by leaf, other CA
 * ports, routers, switches):
 *   1. the switches above the destination's switch X (reachable from X by
 *      up-going cables only) route down toward X, each at its distance;
 *      every other switch, rank by rank from the roots, routes up to a
 *      switch with the fewest hops left (up, then down); a switch with no
 *      such route gets none: the pair has no up/down path (a split tree;
 *      ftree.c declines when the fabric connects such a pair of end
 *      ports);
 *   2. nearest switch first, each switch's cost: over its eligible ports
 *      (toward a switch one hop nearer; above X only toward switches above
 *      X), the busiest link of the path (then the summed loads);
 *   3. farthest switch first, so that the end ports sending through a
 *      switch (those cabled to it plus those already routed into it) are
 *      known, each switch takes the port minimising the larger of what its
 *      link would then carry and what the busiest link beyond its next
 *      switch would (that switch's cost plus what it collects already), and
 *      the routes are added to the counters;
 *   4. once all are routed, an improvement pass (after sssp's) takes each
 *      compute node's routes off the counters and settles them again
 *      against all the others, keeping them unless a link would then carry
 *      more than the busiest one did when the pass began.
 * Every route has minimal up/down length; all go up then down between
 * adjacent ranks (a degraded tree has no cable within a rank), so they
 * have no credit loop.
 * Time: O(D·(S + P)) for D destinations, S switches and P switch ports.
 */

/* Improvement passes (more gave no lower busiest link on the sweep's
   trees). */
#define IMPROVE_PASSES 1

typedef struct dg_state {
    uint32_t *load;      /* per switch * 256 + port: routes sent out there */
    uint32_t *w;         /* per switch: end ports routed through it */
    uint32_t *srcw;      /* per switch: end ports cabled to it */
    uint8_t *anc;        /* per switch: above the destination */
    uint32_t *byrank;    /* ranked switches by rank, then index */
    uint32_t nranked;
    uint32_t *queue;
    uint32_t *bucket;    /* switches by distance */
    uint32_t boff[FT_NOHOP + 2];
    uint64_t *cost;      /* per switch: loads summed along its route */
    uint32_t *next;      /* per switch: the switch its route goes to */
    uint32_t *nbr;       /* per switch * 256 + port: the switch cabled there */
    uint8_t *pscratch;   /* per switch: routes being improved */
    uint32_t x;          /* the destination's switch */
} dg_state;

/* The eligible port of s (groups first..first+n of ft->order, toward
   switches one hop nearer, above-X switches only when want_anc) whose load
   plus the path cost beyond it is the least; the first one on ties. */
static void dg_pick(ftree *ft, dg_state *d, uint32_t s, uint32_t first, uint32_t n,
                    int want_anc)
{
    uint64_t best = UINT64_MAX;
    uint8_t bp = 0xFF;
    uint32_t bn = IBR_NONE;
    const uint32_t *ld = d->load + (size_t)s * 256;
    for (uint32_t k = 0; k < n; k++) {
        const ft_group *g = &ft->grp[ft->order[first + k]];
        uint32_t r = g->remote;
        if (r == FT_CA || ft->hops[r] == FT_NOHOP || ft->hops[r] + 1u != ft->hops[s])
            continue;
        if (want_anc && !d->anc[r])
            continue;
        for (uint32_t i = 0; i < g->nports; i++) {
            uint8_t p = ft->ports[g->port0 + i].port;
            /* the busiest link of the path first, then the sum */
            uint64_t mx = ld[p] > (d->cost[r] >> 40) ? ld[p] : (d->cost[r] >> 40);
            uint64_t sm = (d->cost[r] & 0xFFFFFFFFFFull) + ld[p];
            uint64_t c = mx << 40 | (sm & 0xFFFFFFFFFFull);
            if (c < best) {
                best = c;
                bp = p;
                bn = r;
            }
        }
    }
    d->cost[s] = best;
    ft->port[s] = bp;
    d->next[s] = bn;
}

static void dg_dist(ftree *ft, dg_state *d, uint32_t x, uint8_t xport, unsigned hops0)
{
    uint32_t nsw = ft->nsw;
    memset(d->anc, 0, nsw);
    ft->port[x] = xport;
    ft->hops[x] = (uint8_t)hops0;
    d->anc[x] = 1;
    /* 1. above X */
    uint32_t head = 0, tail = 0;
    d->queue[tail++] = x;
    while (head < tail) {
        uint32_t s = d->queue[head++];
        const ft_sw *w = &ft->sw[s];
        if (ft->hops[s] + 1u >= FT_NOHOP)
            continue;
        for (uint32_t k = 0; k < w->nup; k++) {
            uint32_t p = ft->grp[ft->order[w->up + k]].remote;
            if (d->anc[p])
                continue;
            d->anc[p] = 1;
            ft->hops[p] = (uint8_t)(ft->hops[s] + 1);
            d->queue[tail++] = p;
        }
    }
    /* 2. the others, from the roots down */
    for (uint32_t i = 0; i < d->nranked; i++) {
        uint32_t s = d->byrank[i];
        if (d->anc[s])
            continue;
        const ft_sw *w = &ft->sw[s];
        unsigned best = FT_NOHOP;
        for (uint32_t k = 0; k < w->nup; k++) {
            uint32_t p = ft->grp[ft->order[w->up + k]].remote;
            if (ft->hops[p] != FT_NOHOP && ft->hops[p] + 1u < best)
                best = ft->hops[p] + 1u;
        }
        ft->hops[s] = (uint8_t)best;
    }
    /* 3. the switches by distance */
    memset(d->boff, 0, sizeof d->boff);
    for (uint32_t i = 0; i < d->nranked; i++) {
        uint32_t s = d->byrank[i];
        if (ft->hops[s] != FT_NOHOP)
            d->boff[ft->hops[s] + 1]++;
    }
    for (unsigned h = 1; h <= FT_NOHOP; h++)
        d->boff[h] += d->boff[h - 1];
    for (uint32_t i = 0; i < d->nranked; i++) {
        uint32_t s = d->byrank[i];
        if (ft->hops[s] != FT_NOHOP)
            d->bucket[d->boff[ft->hops[s]]++] = s;
    }
    /* boff[h] is now the end of bucket h */
}

/* Choices nearest first: the path costs beyond a switch are then known. */
static void dg_choose(ftree *ft, dg_state *d, uint32_t x)
{
    d->cost[x] = 0;
    for (uint32_t i = 0; i < d->boff[FT_NOHOP - 1]; i++) {
        uint32_t s = d->bucket[i];
        if (s == x)
            continue;
        const ft_sw *w = &ft->sw[s];
        if (d->anc[s])
            dg_pick(ft, d, s, w->down, w->ndown, 1);
        else
            dg_pick(ft, d, s, w->up, w->nup, 0);
    }
}

/* The final choice of s, farthest first, among the ports dg_pick looked
   at: w[s] end ports send through s, and each switch nearer already
   collects w[] of them; a port is judged by what its link would carry and
   by what the busiest link beyond its next switch would (the switch's
   cost plus what it already collects), then by the summed loads. The
   destination's routes are added to the counters. */
static void dg_settle(ftree *ft, dg_state *d, uint32_t s, uint32_t first, uint32_t n,
                      int want_anc)
{
    uint64_t best = UINT64_MAX, bsum = UINT64_MAX;
    uint8_t bp = 0xFF;
    uint32_t bn = IBR_NONE;
    uint32_t *ld = d->load + (size_t)s * 256;
    uint64_t ws = d->w[s];
    for (uint32_t k = 0; k < n; k++) {
        const ft_group *g = &ft->grp[ft->order[first + k]];
        uint32_t r = g->remote;
        if (r == FT_CA || ft->hops[r] == FT_NOHOP || ft->hops[r] + 1u != ft->hops[s])
            continue;
        if (want_anc && !d->anc[r])
            continue;
        uint64_t beyond = (d->cost[r] >> 40) + (r == d->x ? 0 : d->w[r]) + ws;
        uint64_t sumr = d->cost[r] & 0xFFFFFFFFFFull;
        for (uint32_t i = 0; i < g->nports; i++) {
            uint8_t p = ft->ports[g->port0 + i].port;
            uint64_t here = ld[p] + ws;
            uint64_t key = here > beyond ? here : beyond, sum = sumr + ld[p];
            if (key < best || (key == best && sum < bsum)) {
                best = key;
                bsum = sum;
                bp = p;
                bn = r;
            }
        }
    }
    if (bn == IBR_NONE) /* cannot happen: a distance came from one */
        return;
    ft->port[s] = bp;
    d->next[s] = bn;
    ld[bp] += (uint32_t)ws;
    d->w[bn] += (uint32_t)ws;
}

static void dg_settle_all(ftree *ft, dg_state *d, uint32_t x)
{
    d->x = x;
    for (uint32_t i = 0; i < d->nranked; i++)
        d->w[d->byrank[i]] = d->srcw[d->byrank[i]];
    for (uint32_t i = d->boff[FT_NOHOP - 1]; i-- > 0;) {
        uint32_t s = d->bucket[i];
        if (s == x)
            continue;
        const ft_sw *w = &ft->sw[s];
        if (d->anc[s])
            dg_settle(ft, d, s, w->down, w->ndown, 1);
        else
            dg_settle(ft, d, s, w->up, w->nup, 0);
    }
}

/* Loads farthest first: the end ports sending through a switch are then
   known. add: 1 adds the destination's routes to the counters, 0 takes
   them off. */
static void dg_load(ftree *ft, dg_state *d, uint32_t x, int add)
{
    for (uint32_t i = 0; i < d->nranked; i++)
        d->w[d->byrank[i]] = d->srcw[d->byrank[i]];
    for (uint32_t i = d->boff[FT_NOHOP - 1]; i-- > 0;) {
        uint32_t s = d->bucket[i];
        uint32_t nx = d->next[s];
        if (s == x || nx == IBR_NONE) /* none: cannot happen, a distance came from one */
            continue;
        uint32_t *l = &d->load[(size_t)s * 256 + ft->port[s]];
        *l = add ? *l + d->w[s] : *l - d->w[s];
        d->w[nx] += d->w[s];
    }
}

static void dg_route(ftree *ft, dg_state *d, uint32_t x, uint8_t xport, unsigned hops0)
{
    dg_dist(ft, d, x, xport, hops0);
    dg_choose(ft, d, x);
    dg_settle_all(ft, d, x);
}

/* The busiest link the current destination's routes (ft->port, d->next)
   load, after dg_load. */
static uint32_t dg_max(ftree *ft, dg_state *d, uint32_t x)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < d->boff[FT_NOHOP - 1]; i++) {
        uint32_t s = d->bucket[i];
        if (s == x || d->next[s] == IBR_NONE)
            continue;
        uint32_t l = d->load[(size_t)s * 256 + ft->port[s]];
        if (l > m)
            m = l;
    }
    return m;
}

/* The improvement pass (after sssp's): each compute node's routes are
   taken off the counters and chosen again against all the others; the new
   routes are kept unless a link they use would then carry more than the
   busiest link did when the pass began. The routes stay up/down and
   minimal. */
static int dg_improve(ftree *ft, dg_state *d)
{
    uint8_t *saved = ft->port;
    uint32_t top = 0;
    for (size_t i = 0; i < (size_t)ft->nsw * 256; i++)
        if (d->load[i] > top)
            top = d->load[i];
    ft->port = d->pscratch;
    for (uint32_t i = 0; i < ft->nca; i++) {
        const ft_ca *c = &ft->ca[i];
        if (c->role != FT_CN || !c->lid)
            continue;
        uint32_t x = c->sw;
        dg_dist(ft, d, x, c->swport, 1);
        uint32_t nb = d->boff[FT_NOHOP - 1];
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t s = d->bucket[k];
            ft->port[s] = ibr_run_lft(ft->run, s)[c->lid];
            d->next[s] = s == x ? IBR_NONE : d->nbr[(size_t)s * 256 + ft->port[s]];
        }
        dg_load(ft, d, x, 0);
        dg_choose(ft, d, x);
        dg_settle_all(ft, d, x);
        if (dg_max(ft, d, x) > top) { /* back to the old routes */
            dg_load(ft, d, x, 0);
            for (uint32_t k = 0; k < nb; k++) {
                uint32_t s = d->bucket[k];
                ft->port[s] = ibr_run_lft(ft->run, s)[c->lid];
                d->next[s] = s == x ? IBR_NONE : d->nbr[(size_t)s * 256 + ft->port[s]];
            }
            dg_load(ft, d, x, 1);
            continue;
        }
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t s = d->bucket[k];
            if (s != x)
                ibr_run_lft(ft->run, s)[c->lid] = ft->port[s];
        }
        if ((i & 255) == 255 && ibr_run_progress(ft->run, "ftree: improving (degraded tree)",
                                                  i, ft->nca) < 0) {
            ft->port = saved;
            return IBR_ECANCELED;
        }
    }
    ft->port = saved;
    return 0;
}

/* The busiest link of the routes in the LFTs toward every CA port, each
   route weighted by the end ports sending along it (the counters the
   balancing uses), taken in up/down distance order. Leaves d->load holding
   those loads. */
static uint32_t dg_measure(ftree *ft, dg_state *d)
{
    memset(d->load, 0, (size_t)ft->nsw * 256 * sizeof *d->load);
    for (uint32_t i = 0; i < ft->nca; i++) {
        const ft_ca *c = &ft->ca[i];
        if (!c->lid)
            continue;
        dg_dist(ft, d, c->sw, c->swport, 1);
        for (uint32_t k = 0; k < d->boff[FT_NOHOP - 1]; k++) {
            uint32_t s = d->bucket[k];
            uint8_t p = ibr_run_lft(ft->run, s)[c->lid];
            ft->port[s] = p;
            d->next[s] = s == c->sw || p == 0xFF ? IBR_NONE : d->nbr[(size_t)s * 256 + p];
        }
        dg_load(ft, d, c->sw, 1);
    }
    uint32_t m = 0;
    for (size_t i = 0; i < (size_t)ft->nsw * 256; i++)
        if (d->load[i] > m)
            m = d->load[i];
    return m;
}

/* The degraded routing's model: each switch port's neighbour switch
   (IBR_NONE where none), the ranked switches by rank, and the end ports
   below each switch. */
static void dg_setup(ftree *ft, dg_state *d)
{
    const ibr_topo *t = ft->t;
    size_t n = ft->nsw;
    for (size_t i = 0; i < n * 256; i++)
        d->nbr[i] = IBR_NONE;
    for (uint32_t s = 0; s < n; s++) {
        const ft_sw *w = &ft->sw[s];
        if (w->rank == FT_NORANK)
            continue;
        for (uint32_t k = 0; k < w->ndown + w->nsib + w->nup; k++) {
            const ft_group *g = &ft->grp[ft->order[w->down + k]];
            for (uint32_t j = 0; g->remote != FT_CA && j < g->nports; j++)
                d->nbr[(size_t)s * 256 + ft->ports[g->port0 + j].port] = g->remote;
        }
    }
    for (uint32_t r = 0; r <= ft->max_rank; r++)
        for (uint32_t s = 0; s < n; s++)
            if (ft->sw[s].rank == r)
                d->byrank[d->nranked++] = s;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE || !pt->lid)
            continue;
        uint32_t s = t->nodes[pt->remote_node].sw;
        if (s != IBR_NONE && ft->sw[s].rank != FT_NORANK)
            d->srcw[s]++;
    }
}

/* Routes to every LID of the tree, balanced on the link loads: compute
   nodes leaf by leaf, the other CAs, the routers, then the switches. */
static int dg_route_all(ftree *ft, dg_state *d, const char *phase, uint64_t total)
{
    const ibr_topo *t = ft->t;
    ibr_run *run = ft->run;
    size_t n = ft->nsw;
    uint64_t done = 0;
    int rc = 0;
    /* compute nodes leaf by leaf (the order artefact keeps the dummies) */
    uint32_t *seq = ft->cn_seq;
    for (uint32_t i = 0; i < ft->nleaves && rc == 0; i++) {
        uint32_t x = ft->leaves[i];
        const ft_sw *w = &ft->sw[x];
        uint32_t k = leaf_cn_seq(ft, w, seq);
        for (uint32_t j = 0; j < k && rc == 0; j++) {
            const ft_ca *c = &ft->ca[seq[j]];
            if ((rc = begin(ft, c->lid)) == 0) {
                dg_route(ft, d, x, c->swport, 1);
                commit(ft, IBR_NONE);
            }
        }
        done += k;
        for (; k < ft->max_cn; k++)
            seq[k] = IBR_NONE;
        seq += ft->max_cn;
        if (rc == 0 && (i & 15) == 15)
            rc = ibr_run_progress(run, phase, done, total);
    }
    for (uint32_t i = 0; i < ft->nca && rc == 0; i++) {
        const ft_ca *c = &ft->ca[i];
        if (c->role != FT_CN && (rc = begin(ft, c->lid)) == 0) {
            dg_route(ft, d, c->sw, c->swport, 1);
            commit(ft, IBR_NONE);
        }
    }
    for (uint32_t i = 0; i < ft->nrouters && rc == 0; i++) {
        const ibr__port *pt = &t->ports[ft->routers[i]];
        if ((rc = begin(ft, pt->lid)) == 0) {
            dg_route(ft, d, t->nodes[pt->remote_node].sw, pt->remote_port, 1);
            commit(ft, IBR_NONE);
        }
    }
    done += ft->nca - ft->ncn + ft->nrouters;
    if (rc == 0)
        rc = ibr_run_progress(run, phase, done, total);
    for (uint32_t s = 0; s < n && rc == 0; s++)
        if (ft->sw[s].rank != FT_NORANK && (rc = begin(ft, ft->sw[s].lid)) == 0) {
            dg_route(ft, d, s, 0, 0);
            commit(ft, s);
        }
    return rc;
}

static void dg_free(ibr_context *ctx, dg_state *d)
{
    ibr__free(ctx, d->load);
    ibr__free(ctx, d->w);
    ibr__free(ctx, d->srcw);
    ibr__free(ctx, d->anc);
    ibr__free(ctx, d->byrank);
    ibr__free(ctx, d->queue);
    ibr__free(ctx, d->bucket);
    ibr__free(ctx, d->cost);
    ibr__free(ctx, d->next);
    ibr__free(ctx, d->nbr);
    ibr__free(ctx, d->pscratch);
}

int ibr__ftree_assign_degraded(ftree *ft, unsigned tol)
{
    uint8_t *keep = NULL, *hkeep = NULL;
    uint32_t *seqkeep = NULL;
    ibr_run *run = ft->run;
    ibr_context *ctx = ft->ctx;
    const ibr_topo *t = ft->t;
    size_t n = ft->nsw;
    int rc;
    if (!(ft->hm = ibr_run_hops(run)))
        return IBR_ENOMEM;
    size_t cap = ((size_t)4 << 20) / (n ? n : 1);
    ft->batch_cap = (uint32_t)(cap < 64 ? 64 : cap > 2048 ? 2048 : cap);
    /* the OpenSM routing may have run first (tol > 0): its buffers go */
    ibr__free(ctx, ft->batch);
    ibr__free(ctx, ft->hbatch);
    ibr__free(ctx, ft->batch_lid);
    ibr__free(ctx, ft->hbatch_sw);
    ft->batch = ibr__mallocarray(ctx, (size_t)ft->batch_cap * n, 1);
    ft->hbatch = ibr__mallocarray(ctx, (size_t)ft->batch_cap * n, 1);
    ft->batch_lid = ibr__mallocarray(ctx, ft->batch_cap, sizeof *ft->batch_lid);
    ft->hbatch_sw = ibr__mallocarray(ctx, ft->batch_cap, sizeof *ft->hbatch_sw);
    size_t row = (size_t)t->max_lid + 1, nseq = (size_t)ft->nleaves * ft->max_cn + 1;
    dg_state d;
    memset(&d, 0, sizeof d);
    d.load = ibr__calloc(ctx, n * 256, sizeof *d.load);
    d.w = ibr__mallocarray(ctx, n, sizeof *d.w);
    d.srcw = ibr__calloc(ctx, n, sizeof *d.srcw);
    d.anc = ibr__mallocarray(ctx, n, 1);
    d.byrank = ibr__mallocarray(ctx, n, sizeof *d.byrank);
    d.queue = ibr__mallocarray(ctx, n, sizeof *d.queue);
    d.bucket = ibr__mallocarray(ctx, n, sizeof *d.bucket);
    d.cost = ibr__mallocarray(ctx, n, sizeof *d.cost);
    d.next = ibr__mallocarray(ctx, n, sizeof *d.next);
    d.nbr = ibr__mallocarray(ctx, n * 256, sizeof *d.nbr);
    d.pscratch = ibr__mallocarray(ctx, n, 1);
    rc = IBR_ENOMEM;
    if (!ft->batch || !ft->hbatch || !ft->batch_lid || !ft->hbatch_sw || !d.load || !d.w ||
        !d.srcw || !d.anc || !d.byrank || !d.queue || !d.bucket || !d.cost || !d.next || !d.nbr || !d.pscratch)
        goto out;
    ft->batch_n = ft->hbatch_n = 0;
    dg_setup(ft, &d);
    ft->dg_classic = ft->dg_balanced = 0;
    ft->dg_kept_classic = 0;
    if (tol) {
        /* OpenSM's routing is in the tables: measure it and keep a copy */
        keep = ibr__mallocarray(ctx, n * row, 1);
        hkeep = ibr__mallocarray(ctx, n ? n * n : 1, 1);
        seqkeep = ibr__mallocarray(ctx, nseq, sizeof *seqkeep);
        rc = IBR_ENOMEM;
        if (!keep || !hkeep || !seqkeep)
            goto out;
        uint8_t *saved = ft->port;
        ft->port = d.pscratch;
        ft->dg_classic = dg_measure(ft, &d);
        ft->port = saved;
        memset(d.load, 0, n * 256 * sizeof *d.load);
        for (uint32_t s = 0; s < n; s++) {
            uint8_t *lft = ibr_run_lft(run, s);
            memcpy(keep + s * row, lft, row);
            memset(lft, 0xFF, row);
        }
        memcpy(hkeep, ft->hm, n * n);
        memcpy(seqkeep, ft->cn_seq, nseq * sizeof *seqkeep);
    }
    uint64_t total = (uint64_t)ft->ncn + ft->nca + ft->nrouters + n;
    const char *phase = "ftree: routes (degraded tree)";
    if ((rc = ibr_run_progress(run, phase, 0, total)) < 0)
        goto out;
    rc = dg_route_all(ft, &d, phase, total);
    if (rc < 0 || (rc = flush(ft)) < 0)
        goto out;
    for (unsigned pass = 0; pass < IMPROVE_PASSES && rc == 0; pass++)
        rc = dg_improve(ft, &d);
    if (rc < 0)
        goto out;
    if (tol) {
        uint8_t *saved = ft->port;
        ft->port = d.pscratch;
        ft->dg_balanced = dg_measure(ft, &d);
        ft->port = saved;
        if ((uint64_t)ft->dg_classic * 100 <= (uint64_t)ft->dg_balanced * (100 + tol)) {
            /* OpenSM's routing is close enough: its shift order is kept */
            for (uint32_t s = 0; s < n; s++)
                memcpy(ibr_run_lft(run, s), keep + s * row, row);
            memcpy(ft->hm, hkeep, n * n);
            memcpy(ft->cn_seq, seqkeep, nseq * sizeof *seqkeep);
            ft->dg_kept_classic = 1;
            rc = ibr_run_progress(run, phase, total, total);
            goto out;
        }
    }
    if (ft->connect_roots) {
        for (uint32_t i = 0; i < t->n_end; i++) {
            const ibr__port *pt = &t->ports[t->end_port[i]];
            if (pt->remote_node != IBR_NONE && t->nodes[pt->remote_node].sw != IBR_NONE)
                ft->sw[t->nodes[pt->remote_node].sw].has_end = 1;
        }
        connect_roots(ft);
    }
    rc = ibr_run_progress(run, phase, total, total);
out:
    ibr__free(ctx, keep);
    ibr__free(ctx, hkeep);
    ibr__free(ctx, seqkeep);
    dg_free(ctx, &d);
    return rc;
}
