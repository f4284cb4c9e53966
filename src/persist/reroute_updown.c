/*
 * Repair in place of an up/down routing (updn, dnup; reroute_updown.h).
 *
 * The routes of an up/down engine are legal under one acyclic orientation
 * of the switch links: each switch has a place, and a route is a run of
 * first-phase steps (toward smaller places) then a run of second-phase
 * steps (toward larger places). Every route legal under one orientation
 * keeps the channel dependencies acyclic. Losing cables or switches only
 * removes links, so the saved orientation restricted to what remains is
 * still acyclic, and a route moved to another legal path under it is
 * deadlock-free together with every route that did not move: no credit-loop
 * walk over all paths is needed, only the moved columns are checked
 * (ibr__updown_check).
 *
 * A destination switch d is searched again as the engine does (updn.c):
 * P, the length of the shortest second-phase-only route to d, and L, that
 * of the shortest legal route (P where finite, else one first-phase step
 * to a switch with the smallest L). An entry of switch b toward d's LIDs
 * is legal for every packet that reaches b when a second-phase step leads
 * to a switch with finite P, or, when P(b) is infinite, a first-phase step
 * leads to a switch with finite L. Only broken entries move: to the
 * least-loaded port on a shortest legal route (a second-phase step
 * lowering P when P(b) is finite, else a first-phase step lowering L).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "persist/reroute_updown.h"

#define INF UINT32_MAX

typedef struct ud_scratch {
    uint32_t *p, *l, *queue, *ord, *comp;
    uint8_t *mark, *eps;
} ud_scratch;

/* The switch over port p of switch s (an active cable to a switch), or
   IBR_NONE. */
static uint32_t next_sw(const ibr_topo *t, uint32_t s, unsigned p)
{
    const ibr__node *n = &t->nodes[t->sw_node[s]];
    if (p == 0 || p > n->nports)
        return IBR_NONE;
    const ibr__port *pt = &t->ports[n->port_off + p];
    if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
        pt->remote_node == t->sw_node[s])
        return IBR_NONE;
    return t->nodes[pt->remote_node].sw;
}

/* Connected components of the switch graph (comp: the lowest switch of
   each) and the switches carrying end ports. */
static void components(const ibr_topo *t, ud_scratch *w)
{
    uint32_t S = t->n_sw;
    for (uint32_t s = 0; s < S; s++) {
        w->comp[s] = INF;
        w->eps[s] = 0;
    }
    for (uint32_t e = 0; e < t->n_end; e++) {
        uint32_t rn = t->ports[t->end_port[e]].remote_node;
        if (rn != IBR_NONE && t->nodes[rn].sw != IBR_NONE)
            w->eps[t->nodes[rn].sw] = 1;
    }
    for (uint32_t s0 = 0; s0 < S; s0++) {
        if (w->comp[s0] != INF)
            continue;
        uint32_t head = 0, tail = 0;
        w->comp[s0] = s0;
        w->queue[tail++] = s0;
        while (head < tail) {
            uint32_t a = w->queue[head++];
            for (uint32_t k = t->adj_off[a]; k < t->adj_off[a + 1]; k++)
                if (w->comp[t->adj[k].sw] == INF) {
                    w->comp[t->adj[k].sw] = s0;
                    w->queue[tail++] = t->adj[k].sw;
                }
        }
    }
}

/* P and L toward d (see the file's comment), and d's column of the hop
   matrix. */
static void search(ibr__updown_repair *a, ud_scratch *w, uint32_t d)
{
    const ibr_topo *t = a->t;
    const uint32_t *pos = a->pos;
    uint32_t S = t->n_sw;
    for (uint32_t s = 0; s < S; s++)
        w->p[s] = w->l[s] = INF;
    /* P: backwards over second-phase steps b -> x (pos[b] < pos[x]) */
    uint32_t head = 0, tail = 0;
    w->p[d] = 0;
    w->queue[tail++] = d;
    while (head < tail) {
        uint32_t x = w->queue[head++];
        for (uint32_t k = t->adj_off[x]; k < t->adj_off[x + 1]; k++) {
            uint32_t b = t->adj[k].sw;
            if (pos[b] != IBR_NONE && pos[b] < pos[x] && w->p[b] == INF) {
                w->p[b] = w->p[x] + 1;
                w->queue[tail++] = b;
            }
        }
    }
    /* L: by ascending place, so that first-phase neighbours come first */
    for (uint32_t i = 0; i < a->n_pos; i++) {
        uint32_t b = w->ord[i];
        if (b == IBR_NONE)
            continue;
        uint32_t lb = w->p[b];
        if (lb == INF)
            for (uint32_t k = t->adj_off[b]; k < t->adj_off[b + 1]; k++) {
                uint32_t x = t->adj[k].sw;
                if (pos[x] < pos[b] && w->l[x] != INF && w->l[x] + 1 < lb)
                    lb = w->l[x] + 1;
            }
        w->l[b] = lb;
    }
    if (a->hops)
        for (uint32_t s = 0; s < S; s++)
            a->hops[(size_t)s * S + d] = (uint8_t)(w->l[s] > 254 ? 255 : w->l[s]);
}

/* Is port p of switch b toward d legal for every packet reaching b? */
static int entry_ok(const ibr__updown_repair *a, const ud_scratch *w, uint32_t b, unsigned p)
{
    if (p == IBR_NO_ROUTE)
        return w->l[b] == INF;
    uint32_t x = next_sw(a->t, b, p);
    if (x == IBR_NONE || a->pos[x] == IBR_NONE)
        return 0;
    if (a->pos[x] > a->pos[b])
        return w->p[x] != INF;
    return w->p[b] == INF && w->l[x] != INF;
}

/* The least-loaded port of b on a shortest legal route toward d (L(b)
   finite). */
static unsigned best_port(ibr__updown_repair *a, const ud_scratch *w, uint32_t b)
{
    const ibr_topo *t = a->t;
    const uint32_t *ld = a->load(a->arg, b);
    int second = w->p[b] != INF;
    uint32_t want = second ? w->p[b] - 1 : w->l[b] - 1;
    unsigned best = IBR_NO_ROUTE;
    uint32_t bl = UINT32_MAX;
    for (uint32_t k = t->adj_off[b]; k < t->adj_off[b + 1]; k++) {
        const ibr__adj *e = &t->adj[k];
        uint32_t x = e->sw;
        if (a->pos[x] == IBR_NONE || (a->pos[x] > a->pos[b]) != second)
            continue;
        if ((second ? w->p[x] : w->l[x]) == want && ld[e->port] < bl) {
            bl = ld[e->port];
            best = e->port;
        }
    }
    return best;
}

/* d's LIDs searched again; 1 when a switch carrying end ports and
   connected to d has no legal route (why set). */
static int repair_dest(ibr__updown_repair *a, ud_scratch *w, uint32_t d)
{
    const ibr_topo *t = a->t;
    const uint32_t *lids = a->bucket + a->bucket_off[d];
    uint32_t nl = a->bucket_off[d + 1] - a->bucket_off[d];
    search(a, w, d);
    for (uint32_t b = 0; b < t->n_sw; b++) {
        if (b == d || a->pos[b] == IBR_NONE)
            continue;
        if (w->l[b] == INF && w->eps[b] && w->comp[b] == w->comp[d] && w->eps[d]) {
            snprintf(a->why, sizeof a->why,
                     "switch 0x%016" PRIx64 " has no legal up/down route to switch 0x%016" PRIx64
                     " under the saved orientation: full reroute",
                     t->nodes[t->sw_node[b]].guid, t->nodes[t->sw_node[d]].guid);
            return 1;
        }
        const uint8_t *row = a->lft + (size_t)b * a->lft_size;
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t l = lids[i];
            if (a->lidmap[l] == IBR_NONE || entry_ok(a, w, b, row[l]))
                continue;
            if (w->l[b] == INF) {
                a->set(a->arg, b, l, IBR_NO_ROUTE);
                continue;
            }
            /* per LID: each choice counts in the loads of the next */
            a->set(a->arg, b, l, best_port(a, w, b));
        }
    }
    a->dests++;
    return 0;
}

static void scratch_free(ibr_context *ctx, ud_scratch *w)
{
    ibr__free(ctx, w->p);
    ibr__free(ctx, w->l);
    ibr__free(ctx, w->queue);
    ibr__free(ctx, w->ord);
    ibr__free(ctx, w->comp);
    ibr__free(ctx, w->mark);
    ibr__free(ctx, w->eps);
}

/* The destination switches with a saved entry over a lost cable (rows of
   the switches that lost one); a switch cut off from every other loses
   its routes. */
static void mark_broken(ibr__updown_repair *a, uint8_t *mark)
{
    const ibr_topo *t = a->t;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        if (!a->lost[s])
            continue;
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        const uint8_t *row = a->lft + (size_t)s * a->lft_size;
        int alone = t->adj_off[s] == t->adj_off[s + 1];
        for (size_t l = 1; l < a->lft_size; l++) {
            unsigned p = row[l];
            uint32_t d = t->lid_sw[l];
            if (p == IBR_NO_ROUTE || p == 0 || d == IBR_NONE || d == s ||
                a->lidmap[l] == IBR_NONE)
                continue;
            if (p <= n->nports && a->okport[n->port_off + p])
                continue;
            if (alone)
                a->set(a->arg, s, l, IBR_NO_ROUTE);
            else
                mark[d] = 1;
        }
    }
}

int ibr__reroute_updown(ibr__updown_repair *a, ibr_context *ctx)
{
    const ibr_topo *t = a->t;
    uint32_t S1 = t->n_sw ? t->n_sw : 1;
    ud_scratch w;
    w.p = ibr__mallocarray(ctx, S1, sizeof *w.p);
    w.l = ibr__mallocarray(ctx, S1, sizeof *w.l);
    w.queue = ibr__mallocarray(ctx, S1, sizeof *w.queue);
    w.ord = ibr__mallocarray(ctx, a->n_pos ? a->n_pos : 1, sizeof *w.ord);
    w.comp = ibr__mallocarray(ctx, S1, sizeof *w.comp);
    w.mark = ibr__calloc(ctx, S1, 1);
    w.eps = ibr__calloc(ctx, S1, 1);
    if (!w.p || !w.l || !w.queue || !w.ord || !w.comp || !w.mark || !w.eps) {
        scratch_free(ctx, &w);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < a->n_pos; i++)
        w.ord[i] = IBR_NONE;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (a->pos[s] != IBR_NONE)
            w.ord[a->pos[s]] = s;
    mark_broken(a, w.mark);
    int rc = 0, any = 0;
    for (uint32_t d = 0; d < t->n_sw && !any; d++)
        any = w.mark[d];
    if (any)
        components(t, &w);
    for (uint32_t d = 0; any && d < t->n_sw && rc == 0; d++)
        if (w.mark[d])
            rc = repair_dest(a, &w, d);
    scratch_free(ctx, &w);
    return rc;
}

int ibr__updown_check(ibr__updown_repair *a, const uint8_t *lid_touched)
{
    const ibr_topo *t = a->t;
    const uint32_t *pos = a->pos;
    for (size_t l = 1; l < a->lft_size; l++) {
        uint32_t d = t->lid_sw[l];
        if (!lid_touched[l] || d == IBR_NONE)
            continue;
        for (uint32_t b = 0; b < t->n_sw; b++) {
            unsigned p = a->lft[(size_t)b * a->lft_size + l];
            if (b == d || p == IBR_NO_ROUTE)
                continue;
            uint32_t x = next_sw(t, b, p);
            const char *bad = NULL;
            if (x == IBR_NONE || pos[b] == IBR_NONE || pos[x] == IBR_NONE) {
                bad = "leaves over no switch link of the saved orientation";
            } else if (pos[x] > pos[b] && x != d) {
                unsigned q = a->lft[(size_t)x * a->lft_size + l];
                uint32_t y = q == IBR_NO_ROUTE ? IBR_NONE : next_sw(t, x, q);
                if (y == IBR_NONE || pos[y] == IBR_NONE || pos[y] < pos[x])
                    bad = "takes a second-phase step followed by a first-phase one";
            }
            if (bad) {
                snprintf(a->why, sizeof a->why,
                         "the repaired route of switch 0x%016" PRIx64 " toward LID %zu %s: "
                         "full reroute",
                         t->nodes[t->sw_node[b]].guid, l, bad);
                return 1;
            }
        }
    }
    return 0;
}
