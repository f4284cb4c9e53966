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
 * leads to a switch with finite L. Only entries whose route crossed a
 * lost element move: to a port on a shortest legal route (a second-phase
 * step lowering P when P(b) is finite, else a first-phase step lowering
 * L), among those the one whose route is least busy with the traffic
 * moved so far: each moved entry carries the all-to-all traffic of the
 * end ports routed through it (its switch's and those of every switch
 * routed into it), lifted off its old route and laid on the new one, so
 * that the moved routes spread over the links left instead of gathering
 * on the few that tie by LID count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "persist/reroute_updown.h"

#define INF UINT32_MAX

typedef struct ud_scratch {
    uint32_t *p, *l, *queue, *ord, *comp;
    uint8_t *mark, *eps;
    /* the local pass */
    uint32_t *psw;      /* per topology port: the switch over its link */
    uint32_t *stamp;    /* per switch x 2: visit marks of one search */
    uint8_t **rset;     /* reachable(): per switch, NULL or the switches a
                           route from it reaches (S bytes) */
    uint32_t n_rset;
    uint32_t gen;
    uint32_t *work;     /* switches to fix toward one LID */
    uint32_t *inwork;   /* per switch: stamp of its LID's work list */
    uint32_t *dead;     /* switches left without a route toward it */
    uint32_t *unreach;  /* per switch: the last destination switch found
                           to have no legal route from it (IBR_NONE) */
    /* the walks of the local pass toward one LID, kept while no entry on
       their way changes: a switch whose walk is kept has its next
       switch's kept too, so an entry that changes drops the walks of the
       switches routed through it, found backwards (drop_walks) */
    uint32_t epoch;     /* a gen value: the LID's walks */
    uint32_t *kept;     /* per switch: epoch of its kept walk */
    struct ud_walk *res; /* per switch: its kept walk */
    uint32_t *path;     /* the switches of one walk; drop_walks' stack */
    uint64_t *bad;      /* (LID << 32 | switch): entries over lost cables */
    size_t n_bad, cap_bad;
    /* the all-to-all load the moved routes laid, per topology port (a
       link's traffic: pairs of end ports), so that routes moving later
       avoid the links earlier ones took (move_entry) */
    int64_t *wl;
    uint32_t *hosts;    /* per switch: its end ports' LIDs */
    uint32_t *sstamp;   /* per switch: visit mark of subtree_hosts() */
    uint32_t *sstack;
    /* column_hosts(): per switch its traffic, next switch, and the count
       of switches routed into it */
    uint64_t *csub;
    uint32_t *cnx, *cin;
} ud_scratch;

/* Write entry (b, l), noting it for the check. */
static void put(ibr__updown_repair *a, uint32_t b, size_t l, unsigned port)
{
    a->set(a->arg, b, l, port);
    a->moved_lid[l] = 1;
    if (a->n_moved < a->cap_moved)
        a->moved[a->n_moved++] = (uint64_t)l << 32 | b;
    else
        a->all_moved = 1;
}

void ibr__updown_free(ibr__updown_repair *a, ibr_context *ctx)
{
    ibr__free(ctx, a->moved);
    ibr__free(ctx, a->moved_lid);
    a->moved = NULL;
    a->moved_lid = NULL;
}

/* Connected components of the switch graph (comp: the lowest switch of
   each) and the switches carrying end ports. */
static void components(const ibr_topo *t, ud_scratch *w)
{
    uint32_t S = t->n_sw;
    for (uint32_t s = 0; s < S; s++)
        w->eps[s] = 0;
    for (uint32_t e = 0; e < t->n_end; e++) {
        uint32_t rn = t->ports[t->end_port[e]].remote_node;
        if (rn != IBR_NONE && t->nodes[rn].sw != IBR_NONE)
            w->eps[t->nodes[rn].sw] = 1;
    }
    ibr__switch_components(t, w->comp, w->queue);
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
    uint32_t x = ibr__reroute_next_sw(a->t, b, p);
    if (x == IBR_NONE || a->pos[x] == IBR_NONE)
        return 0;
    if (a->pos[x] > a->pos[b])
        return w->p[x] != INF;
    return w->p[b] == INF && w->l[x] != INF;
}

/* The i-th of b's links in the order that starts at a place set by the
   LID l: ties between equally loaded ports go to a different port for
   each LID and each switch, so the routes that move off a lost cable are
   spread over the remaining ones, not all laid on the first. */
static inline uint32_t spread_link(const ibr_topo *t, uint32_t b, size_t l, uint32_t i)
{
    uint32_t n = t->adj_off[b + 1] - t->adj_off[b];
    return t->adj_off[b] + (uint32_t)((i + b + l) % n);
}

/* The end ports whose traffic toward LID l crosses switch b on the
   current entries: b's own and those of every switch routed into it
   (backwards over the entries that lead to b). */
static uint64_t subtree_hosts(const ibr__updown_repair *a, ud_scratch *w, uint32_t b, size_t l)
{
    const ibr_topo *t = a->t;
    uint32_t g = ++w->gen, n = 0;
    uint64_t sum = 0;
    w->sstamp[b] = g;
    w->sstack[n++] = b;
    while (n) {
        uint32_t v = w->sstack[--n];
        sum += w->hosts[v];
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            const ibr__adj *e = &t->adj[k];
            uint32_t c = e->sw;
            if (w->sstamp[c] == g || a->pos[c] == IBR_NONE ||
                a->lft[(size_t)c * a->lft_size + l] != e->rport)
                continue;
            w->sstamp[c] = g; /* each switch once: n <= S */
            w->sstack[n++] = c;
        }
    }
    return sum;
}

/* The busiest of the moved routes' loads (w->wl) on the route leaving b
   by port p toward LID l (delivered at d), *sum their total; the route
   is followed on the current entries (at most S steps: one that breaks
   or loops ends there). */
static int64_t path_wl(const ibr__updown_repair *a, const ud_scratch *w, uint32_t b, unsigned p,
                       uint32_t d, size_t l, int64_t *sum)
{
    const ibr_topo *t = a->t;
    int64_t mx = INT64_MIN;
    *sum = 0;
    for (uint32_t k = 0; k < t->n_sw; k++) {
        const ibr__node *nd = &t->nodes[t->sw_node[b]];
        if (p == IBR_NO_ROUTE || p == 0 || p > nd->nports)
            break;
        int64_t v = w->wl[nd->port_off + p];
        *sum += v;
        mx = v > mx ? v : mx;
        b = w->psw[nd->port_off + p];
        if (b == IBR_NONE || b == d)
            break;
        p = a->lft[(size_t)b * a->lft_size + l];
    }
    return mx;
}

static void local_put(ibr__updown_repair *a, ud_scratch *w, uint32_t b, size_t l, unsigned port);

/* Add h to the moved routes' loads along b's route toward LID l
   (delivered at d) on the current entries. */
static void add_wl(const ibr__updown_repair *a, ud_scratch *w, uint32_t b, uint32_t d, size_t l,
                   int64_t h)
{
    const ibr_topo *t = a->t;
    unsigned p = a->lft[(size_t)b * a->lft_size + l];
    for (uint32_t k = 0; h && b != d && k < t->n_sw; k++) {
        const ibr__node *nd = &t->nodes[t->sw_node[b]];
        if (p == IBR_NO_ROUTE || p == 0 || p > nd->nports)
            break;
        w->wl[nd->port_off + p] += h;
        b = w->psw[nd->port_off + p];
        if (b == IBR_NONE)
            break;
        p = a->lft[(size_t)b * a->lft_size + l];
    }
}

/* Entry (b, l) moved to port (through put(), or local_put() in the local
   pass): h, the traffic toward l that crosses b (subtree_hosts(), or
   column_hosts() for a whole column; 0 for a switch LID: switch LIDs
   carry none of the all-to-all pairs), is lifted off b's old route and
   laid on its new one. */
static void move_entry(ibr__updown_repair *a, ud_scratch *w, uint32_t b, size_t l, unsigned port,
                       int64_t h, int local)
{
    uint32_t d = a->t->lid_sw[l];
    add_wl(a, w, b, d, l, -h);
    if (local)
        local_put(a, w, b, l, port);
    else
        put(a, b, l, port);
    add_wl(a, w, b, d, l, h);
}

/* The traffic toward LID l that crosses b in the local pass. */
static int64_t local_hosts(const ibr__updown_repair *a, ud_scratch *w, uint32_t b, size_t l)
{
    const ibr_topo *t = a->t;
    return t->lid_swport[l] != 0 && b != t->lid_sw[l] ? (int64_t)subtree_hosts(a, w, b, l) : 0;
}

/* w->csub: per switch, the end ports whose traffic toward LID l crosses it
   on the current entries, for every switch at once (each adds its own
   and what reached it to its next switch, from the switches nothing is
   routed into on; a loop adds nothing further). */
static void column_hosts(const ibr__updown_repair *a, ud_scratch *w, size_t l)
{
    const ibr_topo *t = a->t;
    uint32_t S = t->n_sw, n = 0;
    for (uint32_t s = 0; s < S; s++) {
        w->csub[s] = w->hosts[s];
        w->cin[s] = 0;
        w->cnx[s] = IBR_NONE;
        unsigned p = a->lft[(size_t)s * a->lft_size + l];
        const ibr__node *nd = &t->nodes[t->sw_node[s]];
        if (a->pos[s] != IBR_NONE && s != t->lid_sw[l] && p != IBR_NO_ROUTE && p != 0 &&
            p <= nd->nports)
            w->cnx[s] = w->psw[nd->port_off + p];
    }
    for (uint32_t s = 0; s < S; s++)
        if (w->cnx[s] != IBR_NONE)
            w->cin[w->cnx[s]]++;
    for (uint32_t s = 0; s < S; s++)
        if (!w->cin[s])
            w->sstack[n++] = s;
    while (n) {
        uint32_t v = w->sstack[--n], x = w->cnx[v];
        if (x == IBR_NONE)
            continue;
        w->csub[x] += w->csub[v];
        if (--w->cin[x] == 0)
            w->sstack[n++] = x;
    }
}

/* Is port p (moved load mx, sum, entries ld) a better choice than the best
   so far (bm, bs, bld)? The least busy route the moved routes laid, then
   the least they laid in all, then the fewest LIDs on the port. */
static int less_busy(int64_t mx, int64_t sum, uint32_t ld, int64_t bm, int64_t bs, uint32_t bld)
{
    return mx < bm || (mx == bm && (sum < bs || (sum == bs && ld < bld)));
}

/* The least-loaded port of b on a shortest legal route toward d (L(b)
   finite): the one whose route is least busy with moved routes
   (less_busy), ties spread by LID (spread_link). */
static unsigned best_port(ibr__updown_repair *a, const ud_scratch *w, uint32_t b, size_t l)
{
    const ibr_topo *t = a->t;
    const uint32_t *ld = a->load(a->arg, b);
    int second = w->p[b] != INF;
    uint32_t want = second ? w->p[b] - 1 : w->l[b] - 1;
    unsigned best = IBR_NO_ROUTE;
    uint32_t bl = UINT32_MAX;
    int64_t bm = INT64_MAX, bs = INT64_MAX;
    uint32_t d = a->t->lid_sw[l];
    for (uint32_t i = 0; i < t->adj_off[b + 1] - t->adj_off[b]; i++) {
        const ibr__adj *e = &t->adj[spread_link(t, b, l, i)];
        uint32_t x = e->sw;
        if (a->pos[x] == IBR_NONE || (a->pos[x] > a->pos[b]) != second)
            continue;
        if ((second ? w->p[x] : w->l[x]) != want)
            continue;
        int64_t sum, mx = path_wl(a, w, b, e->port, d, l, &sum);
        if (less_busy(mx, sum, ld[e->port], bm, bs, bl)) {
            bm = mx;
            bs = sum;
            bl = ld[e->port];
            best = e->port;
        }
    }
    return best;
}

/* Is entry p of b toward d on a shortest legal route (updn.c's choice:
   a second-phase step lowering P where P(b) is finite, else a
   first-phase step lowering L)? */
static int entry_shortest(const ibr__updown_repair *a, const ud_scratch *w, uint32_t b, unsigned p)
{
    uint32_t x = p == IBR_NO_ROUTE ? IBR_NONE : ibr__reroute_next_sw(a->t, b, p);
    if (x == IBR_NONE || a->pos[x] == IBR_NONE)
        return 0;
    if (w->p[b] != INF)
        return a->pos[x] > a->pos[b] && w->p[x] + 1 == w->p[b];
    return a->pos[x] < a->pos[b] && w->l[x] != INF && w->l[x] + 1 == w->l[b];
}

/* The switches with a place in rising L toward the destination just
   searched (those without a legal route, or one of S steps or more,
   last), into w->queue; their count. */
static uint32_t by_distance(const ibr__updown_repair *a, ud_scratch *w)
{
    uint32_t S = a->t->n_sw, n = 0, *cnt = w->dead, acc = 0;
    memset(cnt, 0, S * sizeof *cnt);
    for (uint32_t b = 0; b < S; b++)
        if (a->pos[b] != IBR_NONE && w->l[b] < S)
            cnt[w->l[b]]++;
    for (uint32_t k = 0; k < S; k++) {
        uint32_t c = cnt[k];
        cnt[k] = acc;
        acc += c;
    }
    n = acc;
    for (uint32_t b = 0; b < S; b++)
        if (a->pos[b] != IBR_NONE) {
            if (w->l[b] < S)
                w->queue[cnt[w->l[b]]++] = b;
            else
                w->queue[n++] = b;
        }
    return n;
}

/* d's LIDs searched again; 1 when a switch carrying end ports and
   connected to d has no legal route (why set). An entry no longer on a
   shortest legal route (its route crossed the lost element: distances
   only grow when elements are lost) moves, nearest switches first, so
   that the route a moved entry joins is already final and the load of
   the moved routes (move_entry) is counted where it lies. */
static int repair_dest(ibr__updown_repair *a, ud_scratch *w, uint32_t d)
{
    const ibr_topo *t = a->t;
    const uint32_t *lids = a->bucket + a->bucket_off[d];
    uint32_t nl = a->bucket_off[d + 1] - a->bucket_off[d];
    search(a, w, d);
    uint32_t n = by_distance(a, w);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t b = w->queue[j];
        if (b != d && w->l[b] == INF && w->eps[b] && w->comp[b] == w->comp[d] && w->eps[d]) {
            snprintf(a->why, sizeof a->why,
                     "switch 0x%016" PRIx64 " has no legal up/down route to switch 0x%016" PRIx64
                     " under the saved orientation: full reroute",
                     t->nodes[t->sw_node[b]].guid, t->nodes[t->sw_node[d]].guid);
            return 1;
        }
    }
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t l = lids[i];
        if (a->lidmap[l] == IBR_NONE)
            continue;
        int ca = t->lid_swport[l] != 0;
        if (ca)
            column_hosts(a, w, l);
        for (uint32_t j = 0; j < n; j++) {
            uint32_t b = w->queue[j];
            unsigned cur = a->lft[(size_t)b * a->lft_size + l];
            if (b == d)
                continue;
            if (w->l[b] == INF) {
                if (!entry_ok(a, w, b, cur))
                    put(a, b, l, IBR_NO_ROUTE);
                continue;
            }
            if (entry_shortest(a, w, b, cur))
                continue;
            /* each choice counts in the loads of the next */
            move_entry(a, w, b, l, best_port(a, w, b, l), ca ? (int64_t)w->csub[b] : 0, 0);
        }
    }
    a->dests++;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The local pass: a repair toward one LID that visits only the switches
   whose route changes. An entry over a lost cable moves to a neighbour
   whose current route is whole and legal after the step (a second-phase
   step needs a route of second-phase steps only), on a second-phase step
   where one exists, then the shortest, then the least-loaded port; a
   switch whose new route is not second-phase only makes its neighbours
   that step into it on a second-phase step move too, and one left
   without a route makes every neighbour that routes through it move. A
   switch left without a route must have no legal route at all (checked by
   a search from it), or its destination switch is searched again whole
   (repair_dest). */

typedef struct ud_walk {
    int ok, second_only;
    uint32_t len;
} ud_walk;

/* The current route of x toward l (delivered at d). Every switch walked
   through keeps its own walk too: a route is its first step
   followed by the next switch's route, so a later walk stops at the first
   switch whose walk is kept (a second-phase step needs a rest of
   second-phase steps, a first-phase step makes the route not
   second-phase only). */
static ud_walk walk(const ibr__updown_repair *a, ud_scratch *w, uint32_t x, uint32_t d,
                    size_t l)
{
    const ibr_topo *t = a->t;
    ud_walk r = {0, 1, 0};
    uint32_t n = 0, y = x;
    for (;;) {
        if (y == d) {
            r.ok = 1;
            break;
        }
        if (w->kept[y] == w->epoch) {
            r = w->res[y];
            break;
        }
        if (n >= t->n_sw)
            break; /* a loop */
        w->path[n++] = y;
        unsigned p = a->lft[(size_t)y * a->lft_size + l];
        const ibr__node *nd = &t->nodes[t->sw_node[y]];
        if (p == IBR_NO_ROUTE || p == 0 || p > nd->nports)
            break;
        uint32_t z = w->psw[nd->port_off + p];
        if (z == IBR_NONE)
            break;
        y = z;
    }
    /* back along the way: y is where it ended (its walk in r) */
    while (n) {
        uint32_t v = w->path[--n];
        if (r.ok) {
            if (a->pos[y] > a->pos[v])
                r.ok = r.second_only;
            else
                r.second_only = 0;
            r.len++;
        }
        if (!r.ok)
            r = (ud_walk){0, 1, 0};
        w->res[v] = r;
        w->kept[v] = w->epoch;
        y = v;
    }
    return r;
}

/* Does b have a legal route to d on the fabric (whatever the tables)? A
   search over (switch, phase) states from b. The states reached do not
   depend on d: the first search from b reaches all of them and keeps the
   switches reached (w->rset[b]) for the next destinations; without
   memory for that, the search stops at d. */
static int reachable(const ibr__updown_repair *a, ud_scratch *w, uint32_t b, uint32_t d)
{
    const ibr_topo *t = a->t;
    if (w->rset[b])
        return w->rset[b][d];
    uint8_t *set = ibr__calloc(t->ctx, t->n_sw, 1);
    w->rset[b] = set;
    uint32_t g = ++w->gen, n = 0;
    w->queue[n++] = b * 2; /* state: switch * 2 + phase */
    w->stamp[b * 2] = g;
    while (n) {
        uint32_t st = w->queue[--n], x = st / 2, ph = st % 2;
        if (!set && x == d)
            return 1;
        if (set)
            set[x] = 1;
        for (uint32_t k = t->adj_off[x]; k < t->adj_off[x + 1]; k++) {
            uint32_t y = t->adj[k].sw;
            if (a->pos[y] == IBR_NONE || (a->pos[y] < a->pos[x] && ph))
                continue;
            uint32_t ns = y * 2 + (a->pos[y] > a->pos[x]);
            if (w->stamp[ns] != g) {
                w->stamp[ns] = g;
                w->queue[n++] = ns; /* each state once: n <= 2 S */
            }
        }
    }
    return set ? set[d] : 0;
}

/* The best port of b toward l by the local rule, 0 if none; *so whether
   the route it gives is second-phase only, *len its length. */
static unsigned local_port(ibr__updown_repair *a, ud_scratch *w, uint32_t b, uint32_t d,
                           size_t l, int *so, uint32_t *len)
{
    const ibr_topo *t = a->t;
    unsigned best = 0;
    int best_sec = 0;
    uint32_t best_len = UINT32_MAX, best_ld = UINT32_MAX, best_rank = UINT32_MAX;
    int best_wl = 0; /* best_mx, best_sum and best_ld are the best port's */
    int64_t best_mx = 0, best_sum = 0;
    const uint32_t *ld = NULL;
    uint32_t n = t->adj_off[b + 1] - t->adj_off[b], shift = n ? (uint32_t)((b + l) % n) : 0;
    unsigned cur = a->lft[(size_t)b * a->lft_size + l];
    if (w->comp[b] != w->comp[d])
        n = 0; /* no walk from here reaches d (a lost switch's own LID) */
    for (uint32_t k = t->adj_off[b]; k < t->adj_off[b] + n; k++) {
        const ibr__adj *e = &t->adj[k];
        uint32_t x = e->sw;
        if (a->pos[x] == IBR_NONE)
            continue;
        int sec = a->pos[x] > a->pos[b];
        if (best && best_sec && !sec)
            continue;
        /* equally loaded ties go to a different port for each LID and
           switch (as spread_link orders them) */
        uint32_t rank = (k - t->adj_off[b] + n - shift) % n;
        ud_walk r = walk(a, w, x, d, l);
        if (!r.ok || (sec && !r.second_only))
            continue;
        int tie = best && sec == best_sec && r.len == best_len;
        if (tie && !ld) /* the loads only where two ports tie (a row's count) */
            ld = a->load(a->arg, b);
        if (tie && !best_wl) {
            best_ld = ld[best];
            best_mx = path_wl(a, w, b, best, d, l, &best_sum);
            best_wl = 1;
        }
        int64_t mx = 0, sum = 0;
        if (tie)
            mx = path_wl(a, w, b, e->port, d, l, &sum);
        /* a tie keeps the current entry where it is whole (a switch
           listed because its next one moved need not move itself: the
           tables change only where the routes must) */
        int better = !best || (sec && !best_sec) || (sec == best_sec && r.len < best_len) ||
                     (tie && best != cur &&
                      (e->port == cur ||
                       less_busy(mx, sum, ld[e->port], best_mx, best_sum, best_ld) ||
                       (mx == best_mx && sum == best_sum && ld[e->port] == best_ld &&
                        rank < best_rank)));
        if (better) {
            best = e->port;
            best_sec = sec;
            best_len = r.len;
            best_rank = rank;
            best_wl = tie;
            best_ld = tie ? ld[e->port] : UINT32_MAX;
            best_mx = mx;
            best_sum = sum;
            *so = sec;
        }
    }
    *len = best_len + 1;
    return best;
}

/* Add to the LID's work list the neighbours of b whose entry toward l
   leads to b, all of them or (second) only those stepping into b on a
   second-phase step. */
static void push_preds(const ibr__updown_repair *a, ud_scratch *w, uint32_t *nw, uint32_t b,
                       size_t l, int second, uint32_t tag)
{
    const ibr_topo *t = a->t;
    for (uint32_t k = t->adj_off[b]; k < t->adj_off[b + 1]; k++) {
        const ibr__adj *e = &t->adj[k];
        uint32_t c = e->sw;
        if (w->inwork[c] == tag || a->pos[c] == IBR_NONE ||
            a->lft[(size_t)c * a->lft_size + l] != e->rport)
            continue;
        if (second && a->pos[c] > a->pos[b])
            continue;
        w->inwork[c] = tag;
        w->work[(*nw)++] = c;
    }
}

/* The kept walks toward l that pass through b dropped: b's and those of
   the switches routed into it, backwards; one without a kept walk has
   none routed into it kept either. */
static void drop_walks(const ibr__updown_repair *a, ud_scratch *w, uint32_t b, size_t l)
{
    const ibr_topo *t = a->t;
    uint32_t n = 0;
    if (w->kept[b] != w->epoch)
        return;
    w->kept[b] = 0;
    w->path[n++] = b;
    while (n) {
        uint32_t v = w->path[--n];
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            const ibr__adj *e = &t->adj[k];
            uint32_t c = e->sw;
            if (w->kept[c] != w->epoch || a->lft[(size_t)c * a->lft_size + l] != e->rport)
                continue;
            w->kept[c] = 0; /* each switch once: n <= S */
            w->path[n++] = c;
        }
    }
}

/* put() in the local pass, dropping the kept walks through the entry. */
static void local_put(ibr__updown_repair *a, ud_scratch *w, uint32_t b, size_t l, unsigned port)
{
    drop_walks(a, w, b, l);
    put(a, b, l, port);
}

/* The local pass toward LID l: 0 done, 1 when its destination switch must
   be searched whole (marked), or -1 (a->why) when a switch carrying end
   ports has no legal route to it. The work list starts with n switches. */
static int local_lid(ibr__updown_repair *a, ud_scratch *w, size_t l, uint32_t n)
{
    const ibr_topo *t = a->t;
    uint32_t d = t->lid_sw[l], ndead = 0, tag = ++w->gen, budget = 4 * t->n_sw + 64;
    w->epoch = ++w->gen;
    for (uint32_t i = 0; i < n; i++)
        w->inwork[w->work[i]] = tag;
    while (n) {
        int progress = 0;
        for (uint32_t i = 0; i < n && budget; budget--) {
            uint32_t b = w->work[i], len;
            int so = 0;
            unsigned p = local_port(a, w, b, d, l, &so, &len);
            if (!p) {
                i++;
                continue;
            }
            move_entry(a, w, b, l, p, local_hosts(a, w, b, l), 1);
            if (a->hops)
                a->hops[(size_t)b * t->n_sw + d] = (uint8_t)(len > 254 ? 255 : len);
            w->work[i] = w->work[--n];
            w->inwork[b] = 0;
            progress = 1;
            push_preds(a, w, &n, b, l, so, tag);
        }
        if (!budget)
            return 1;
        if (progress)
            continue;
        /* the rest have no route now: none, and their neighbours move */
        uint32_t m = n;
        n = 0;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t b = w->work[i];
            local_put(a, w, b, l, IBR_NO_ROUTE);
            w->dead[ndead++] = b;
        }
        /* a dead switch keeps its mark: it does not come back to the list */
        for (uint32_t i = 0; i < m; i++)
            push_preds(a, w, &n, w->dead[ndead - m + i], l, 0, tag);
    }
    for (uint32_t i = 0; i < ndead; i++) {
        uint32_t b = w->dead[i];
        /* the search depends on the switches only: once per pair (the
           LIDs of one switch come one after the other, as a rule) */
        if (w->unreach[b] != d && w->comp[b] == w->comp[d] && reachable(a, w, b, d))
            return 1;
        w->unreach[b] = d;
        if (w->eps[b] && w->eps[d] && w->comp[b] == w->comp[d]) {
            snprintf(a->why, sizeof a->why,
                     "switch 0x%016" PRIx64 " has no legal up/down route to switch 0x%016" PRIx64
                     " under the saved orientation: full reroute",
                     t->nodes[t->sw_node[b]].guid, t->nodes[t->sw_node[d]].guid);
            return -1;
        }
        if (a->hops)
            a->hops[(size_t)b * t->n_sw + d] = 255;
    }
    return 0;
}

/* w->bad in rising (LID, switch) order: a counting sort by LID, stable,
   of entries made switch by switch in rising order. 0 or IBR_ENOMEM. */
static int bad_by_lid(const ibr__updown_repair *a, ud_scratch *w)
{
    ibr_context *ctx = a->t->ctx;
    size_t L = a->lft_size;
    uint32_t *off = ibr__calloc(ctx, L + 1, sizeof *off);
    uint64_t *v = ibr__mallocarray(ctx, w->n_bad ? w->n_bad : 1, sizeof *v);
    if (!off || !v) {
        ibr__free(ctx, off);
        ibr__free(ctx, v);
        return IBR_ENOMEM;
    }
    for (size_t i = 0; i < w->n_bad; i++)
        off[(w->bad[i] >> 32) + 1]++;
    for (size_t l = 0; l < L; l++)
        off[l + 1] += off[l];
    for (size_t i = 0; i < w->n_bad; i++)
        v[off[w->bad[i] >> 32]++] = w->bad[i];
    ibr__free(ctx, off);
    ibr__free(ctx, w->bad);
    w->bad = v;
    return 0;
}

/* Every LID with entries over lost cables, by the local pass; the
   destination switches it cannot finish are marked for repair_dest.
   0, 1 with a->why, or IBR_ENOMEM. */
static int local_pass(ibr__updown_repair *a, ud_scratch *w)
{
    const ibr_topo *t = a->t;
    if (bad_by_lid(a, w) < 0)
        return IBR_ENOMEM;
    for (size_t i = 0; i < w->n_bad;) {
        size_t l = (size_t)(w->bad[i] >> 32), j = i;
        uint32_t d = t->lid_sw[l], n = 0;
        for (; j < w->n_bad && (size_t)(w->bad[j] >> 32) == l; j++)
            w->work[n++] = (uint32_t)w->bad[j];
        i = j;
        if (w->mark[d])
            continue; /* searched whole anyway */
        int rc = local_lid(a, w, l, n);
        if (rc < 0)
            return 1;
        if (rc > 0)
            w->mark[d] = 1;
    }
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
    ibr__free(ctx, w->psw);
    ibr__free(ctx, w->stamp);
    for (uint32_t s = 0; w->rset && s < w->n_rset; s++)
        ibr__free(ctx, w->rset[s]);
    ibr__free(ctx, w->rset);
    ibr__free(ctx, w->work);
    ibr__free(ctx, w->inwork);
    ibr__free(ctx, w->dead);
    ibr__free(ctx, w->unreach);
    ibr__free(ctx, w->bad);
    ibr__free(ctx, w->kept);
    ibr__free(ctx, w->res);
    ibr__free(ctx, w->path);
    ibr__free(ctx, w->wl);
    ibr__free(ctx, w->hosts);
    ibr__free(ctx, w->sstamp);
    ibr__free(ctx, w->sstack);
    ibr__free(ctx, w->csub);
    ibr__free(ctx, w->cnx);
    ibr__free(ctx, w->cin);
}

/* The entries over a lost cable (rows of the switches that lost one),
   into w->bad (their destination switch marked for a search when there
   are too many); a switch cut off from every other loses its routes. */
static void mark_broken(ibr__updown_repair *a, ud_scratch *w)
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
                put(a, s, l, IBR_NO_ROUTE);
            else if (w->n_bad < w->cap_bad)
                w->bad[w->n_bad++] = (uint64_t)l << 32 | s;
            else
                w->mark[d] = 1; /* more than the local pass takes on */
        }
    }
}

int ibr__reroute_updown(ibr__updown_repair *a, ibr_context *ctx)
{
    const ibr_topo *t = a->t;
    uint32_t S = t->n_sw, S1 = S ? S : 1;
    ud_scratch w;
    memset(&w, 0, sizeof w);
    w.cap_bad = 64 * (size_t)S1;
    w.p = ibr__mallocarray(ctx, S1, sizeof *w.p);
    w.l = ibr__mallocarray(ctx, S1, sizeof *w.l);
    w.queue = ibr__mallocarray(ctx, 2 * (size_t)S1, sizeof *w.queue);
    w.ord = ibr__mallocarray(ctx, a->n_pos ? a->n_pos : 1, sizeof *w.ord);
    w.comp = ibr__mallocarray(ctx, S1, sizeof *w.comp);
    w.mark = ibr__calloc(ctx, S1, 1);
    w.eps = ibr__calloc(ctx, S1, 1);
    w.psw = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *w.psw);
    w.stamp = ibr__calloc(ctx, 2 * (size_t)S1, sizeof *w.stamp);
    w.rset = ibr__calloc(ctx, S1, sizeof *w.rset);
    w.n_rset = S1;
    /* a switch is in a work list at most once (inwork) */
    w.work = ibr__mallocarray(ctx, S1, sizeof *w.work);
    w.inwork = ibr__calloc(ctx, S1, sizeof *w.inwork);
    w.dead = ibr__mallocarray(ctx, S1, sizeof *w.dead);
    w.unreach = ibr__mallocarray(ctx, S1, sizeof *w.unreach);
    w.bad = ibr__mallocarray(ctx, w.cap_bad, sizeof *w.bad);
    w.kept = ibr__calloc(ctx, S1, sizeof *w.kept);
    w.res = ibr__mallocarray(ctx, S1, sizeof *w.res);
    w.path = ibr__mallocarray(ctx, S1, sizeof *w.path);
    w.wl = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *w.wl);
    w.hosts = ibr__calloc(ctx, S1, sizeof *w.hosts);
    w.sstamp = ibr__calloc(ctx, S1, sizeof *w.sstamp);
    w.sstack = ibr__mallocarray(ctx, S1, sizeof *w.sstack);
    w.csub = ibr__mallocarray(ctx, S1, sizeof *w.csub);
    w.cnx = ibr__mallocarray(ctx, S1, sizeof *w.cnx);
    w.cin = ibr__mallocarray(ctx, S1, sizeof *w.cin);
    a->cap_moved = 64 * (size_t)S1;
    a->moved = ibr__mallocarray(ctx, a->cap_moved, sizeof *a->moved);
    a->moved_lid = ibr__calloc(ctx, a->lft_size, 1);
    if (!a->moved || !a->moved_lid || !w.p || !w.l || !w.queue || !w.ord || !w.comp || !w.mark || !w.eps || !w.psw ||
        !w.stamp || !w.work || !w.inwork || !w.dead || !w.unreach || !w.bad || !w.kept ||
        !w.res || !w.path || !w.rset || !w.wl || !w.hosts || !w.sstamp || !w.sstack || !w.csub || !w.cnx ||
        !w.cin) {
        scratch_free(ctx, &w);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < a->n_pos; i++)
        w.ord[i] = IBR_NONE;
    for (uint32_t s = 0; s < S; s++)
        if (a->pos[s] != IBR_NONE)
            w.ord[a->pos[s]] = s;
    for (uint32_t i = 0; i < t->n_ports; i++)
        w.psw[i] = IBR_NONE;
    for (uint32_t s = 0; s < S; s++)
        w.unreach[s] = IBR_NONE;
    for (size_t l = 1; l < a->lft_size; l++)
        if (t->lid_sw[l] != IBR_NONE && t->lid_swport[l] != 0)
            w.hosts[t->lid_sw[l]]++;
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++)
            if (a->pos[t->adj[k].sw] != IBR_NONE)
                w.psw[t->nodes[t->sw_node[s]].port_off + t->adj[k].port] = t->adj[k].sw;
    mark_broken(a, &w);
    int rc = 0;
    if (w.n_bad || memchr(w.mark, 1, S1)) {
        components(t, &w);
        rc = local_pass(a, &w);
    }
    for (uint32_t d = 0; d < S && rc == 0; d++)
        if (w.mark[d])
            rc = repair_dest(a, &w, d);
    scratch_free(ctx, &w);
    return rc;
}

/* Is the step of x toward l (delivered at d) second-phase (or x == d)?
   -1 when x has no step over a switch link of the orientation. */
static int second_step(const ibr__updown_repair *a, uint32_t x, uint32_t d, size_t l)
{
    if (x == d)
        return 1;
    unsigned q = a->lft[(size_t)x * a->lft_size + l];
    uint32_t y = q == IBR_NO_ROUTE ? IBR_NONE : ibr__reroute_next_sw(a->t, x, q);
    if (y == IBR_NONE || a->pos[x] == IBR_NONE || a->pos[y] == IBR_NONE)
        return -1;
    return a->pos[y] > a->pos[x];
}

/* Entry (b, l): over a switch link, and a second-phase step is followed
   by one; with preds, also every second-phase step into b. NULL, or what
   is wrong. */
static const char *check_entry(const ibr__updown_repair *a, uint32_t b, size_t l, int preds)
{
    const ibr_topo *t = a->t;
    uint32_t d = t->lid_sw[l];
    unsigned p = a->lft[(size_t)b * a->lft_size + l];
    if (b == d || p == IBR_NO_ROUTE)
        return NULL;
    int sec = second_step(a, b, d, l);
    if (sec < 0)
        return "leaves over no switch link of the saved orientation";
    if (sec && second_step(a, ibr__reroute_next_sw(t, b, p), d, l) != 1)
        return "takes a second-phase step followed by a first-phase one";
    for (uint32_t k = t->adj_off[b]; preds && !sec && k < t->adj_off[b + 1]; k++) {
        const ibr__adj *e = &t->adj[k];
        uint32_t c = e->sw;
        if (a->pos[c] != IBR_NONE && a->pos[c] < a->pos[b] &&
            a->lft[(size_t)c * a->lft_size + l] == e->rport)
            return "is entered by a second-phase step and leaves by a first-phase one";
    }
    return NULL;
}

int ibr__updown_check(ibr__updown_repair *a, const uint8_t *lid_touched)
{
    const ibr_topo *t = a->t;
    uint32_t bad_sw = 0;
    size_t bad_l = 0;
    const char *bad = NULL;
    /* the entries the repair wrote, with the steps into them */
    for (size_t i = 0; i < a->n_moved && !bad && !a->all_moved; i++) {
        bad_l = (size_t)(a->moved[i] >> 32);
        bad_sw = (uint32_t)a->moved[i];
        bad = check_entry(a, bad_sw, bad_l, 1);
    }
    /* whole columns: written otherwise, or more than the list held */
    for (size_t l = 1; l < a->lft_size && !bad; l++) {
        if (!lid_touched[l] || t->lid_sw[l] == IBR_NONE || (a->moved_lid[l] && !a->all_moved))
            continue;
        for (uint32_t b = 0; b < t->n_sw && !bad; b++) {
            bad_sw = b;
            bad_l = l;
            bad = check_entry(a, b, l, 0);
        }
    }
    if (!bad)
        return 0;
    snprintf(a->why, sizeof a->why,
             "the repaired route of switch 0x%016" PRIx64 " toward LID %zu %s: full reroute",
             t->nodes[t->sw_node[bad_sw]].guid, bad_l, bad);
    return 1;
}
