/*
 * nue: deadlock-free routing on the channel dependency graph, after Domke,
 * Hoefler and Matsuoka, "Routing on the Dependency Graph: A New Approach
 * to Deadlock-Free High-Performance Routing" (HPDC 2016), and OpenSM's nue
 * engine. It never needs more virtual lanes than it is given (one is
 * enough) and routes every connected fabric.
 *
 * Layers. The destinations are split into k sets, k = the VLs allowed
 * (setting max_vls, capped by the VLs available: the smallest OperVLs of a
 * switch port with a peer and ibr_options::max_vls): a graph partition of
 * the switches (METIS when built with it, else, or when asked, the built-in
 * partitioner below), weighted by the destination LIDs each switch
 * delivers, and every destination takes its switch's part. Part i is
 * routed in virtual layer i: SL i, travelling on VL i (every SL2VL table
 * is the identity), and layer i has its own channel dependency graph
 * (CDG), one layer of a src/cdg switch graph.
 *
 * Escape paths. Before a layer's destinations are routed, its CDG
 * receives the dependencies of an up*-down* routing on a spanning tree:
 * the tree is a breadth-first tree from the layer's central switch (the
 * switch of highest betweenness centrality, Brandes' algorithm, within the
 * convex hull of the layer's destination switches: every switch on a
 * shortest path between two of them), each switch hanging from the least
 * loaded channel toward the previous level; the dependencies are the turns
 * traffic from a switch with end ports can take on the tree: down->down
 * everywhere, up->up and up->down (between different children) along the
 * root paths of switches with end ports (OpenSM's set). They contain no
 * down->up turn, so they are acyclic, and the tree re-rooted at any
 * destination carries all end-port traffic to it with them alone.
 *
 * Routing a destination LID inside its layer (its switch d): a Dijkstra
 * search from d over the switches; a switch w joins the tree of d through
 * a channel w -> z toward a switch z already in it, its key being z's key
 * plus the channel's weight (P^2 + load, P the number of LIDs, as in
 * OpenSM: hop count first, then the load). An indexed heap holds every
 * switch with its best candidate not yet tried. A switch that carries
 * traffic (it has end ports, or a switch with traffic routes through it)
 * adds the dependencies of its path up to the first switch already
 * carrying traffic, by checked insertion (src/cdg's dynamic topological
 * order); a candidate whose dependencies would close a cycle is rejected
 * and the switch waits with its next candidate. The layer's CDG thus
 * holds every dependency of its routes and stays acyclic: no credit loop.
 * If some switches cannot join at all, the repair puts them, and every
 * switch their escape paths cross, on the escape tree (the set E, closed
 * under "next hop"); every switch outside E with traffic whose next hop is
 * in E adds its whole path's dependencies, or joins E if they would close
 * a cycle (at worst everything ends on the escape tree, whose
 * dependencies are reserved). Then every switch x adds the LIDs of its end
 * ports to the load of each channel on its path to d (loads are shared by
 * all layers).
 *
 * Balance: up to four variants are routed (nue_variants: two destination
 * orders, switch by switch and the switches interleaved, with weights in
 * which a hop outweighs any load; with the explore setting, load-dominated
 * weights and a single layer), each followed by up to `improve` passes
 * that route every destination again against the loads of all the others
 * (taking its dependencies out first; a new route is kept unless one of
 * its links then carries more than the busiest link before the pass; the
 * passes stop when one lowers nothing); of all the routings the one whose
 * busiest channel carries the fewest end-port pairs is kept, then the one
 * with fewer layers (settings order, improve, explore). A pass is given
 * up as soon as the destinations it has settled load a link to the
 * busiest before it (it could not be kept), or in the last pass beyond
 * the busiest link of a routing another variant already offered (it could
 * not win): the tables are those of the full passes, with less work. The
 * escape trees' roots depend on the layers only and are found once for
 * all variants.
 *
 * How this differs from OpenSM's nue (doc/engines.md has the list and the
 * reasons): the repair instead of routing the whole destination on the
 * escape tree; lazy candidate tests instead of colours and backtracking;
 * dependencies only for switches that carry traffic; switch LIDs always
 * routed deadlock-free (OpenSM's nue_include_switches = TRUE: a switch
 * with end ports reuses the tree of its first end-port LID, the others
 * are destinations of their layer); a breadth-first escape tree; Brandes'
 * centrality from at most NUE_PIVOTS sources on large hulls; the
 * variants and the improvement passes; a built-in partitioner growing k
 * balanced connected regions instead of dealing LIDs round-robin.
 *
 * Time: per layer O(H·E) for the hull and centrality (H hull switches,
 * capped), and per destination LID and pass an O(E + S log S) search plus
 * the checked insertions (O(1) each when they agree with the order, a
 * Pearce-Kelly reordering otherwise); four passes in all. Memory: O(S + C)
 * plus the CDG's slots (Σ over switches of in x out degree, 8 bytes each
 * per layer in use) and one copy of the LFTs (S x LIDs bytes).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#ifdef IBR_HAVE_METIS
#include <metis.h>
#endif

#include "cdg/cdg.h"
#include "core/buffer.h"
#include "core/messages.h"
#include "engines/engine_int.h"
#include "mcast/loaded.h"

#define NUE_MAX_LAYERS 15
/* hull switches used as Brandes sources at most */
#define NUE_PIVOTS 256

enum { PART_AUTO, PART_METIS, PART_BUILTIN };


typedef struct hent {
    uint64_t key;
    uint32_t c; /* channel w -> z */
    uint32_t w;
} hent;

typedef struct nue_stats {
    uint32_t fallbacks[NUE_MAX_LAYERS]; /* destinations repaired, per layer */
    uint32_t dests[NUE_MAX_LAYERS];
    uint32_t roots[NUE_MAX_LAYERS];
    uint64_t rejected;   /* candidates that would have closed a cycle */
    uint64_t escaped_sw; /* switches forced onto escape channels */
    uint64_t max_load;   /* busiest channel */
    unsigned used;       /* layers used */
    int interleaved;
} nue_stats;

typedef struct nue {
    ibr_run *run;
    const ibr_topo *t;
    ibr_context *ctx;
    uint32_t S, C;
    unsigned k;          /* layers allowed */
    uint32_t *tail;      /* channel -> switch it leaves */
    uint32_t *rev;       /* channel -> the other direction of its cable */
    uint64_t *load;      /* channel -> routes weighted by source LIDs */
    uint64_t *vload;     /* the same for end-port destinations only: the
                            verifier's link load (end-port pairs) */
    uint64_t big;        /* weight of one hop */
    uint32_t *srcw;      /* per switch: LIDs of its end ports */
    uint32_t *dw;        /* per switch: destination LIDs it delivers */
    uint32_t *part;      /* per switch: layer */
    uint32_t *part1;     /* per switch: 0 (the one-layer variant's part) */
    uint8_t *alive;      /* per switch: in the component routed */
    uint32_t n_alive;
    ibr__cdg *g;
    /* destinations: LIDs in routing order; copy[i] != 0: a switch LID
       routed as the end-port LID copy[i] */
    uint32_t nd;
    uint16_t *dlid;
    uint16_t *copy;
    /* the search */
    uint64_t *key;
    uint32_t *ch;        /* per switch: channel toward the destination */
    uint8_t *done;
    uint32_t *order;     /* switches in the order they joined */
    uint32_t nord;
    hent *hp;            /* the heap: switches with their best untried candidate */
    size_t hn;
    uint32_t *hpos;      /* per switch: place in the heap, IBR_NONE */
    uint32_t *tried;     /* per channel: stamp of the search that rejected it */
    uint32_t stamp;
    int improve;         /* improvement passes at most */
    nue_stats best;      /* of the best routing so far */
    _Atomic uint64_t *gbest; /* shared by the variants: the least busiest
                                link offered by any of them so far */
    uint64_t *fin;       /* per channel: end-port pairs of the destinations
                            already settled in this pass */
    unsigned nsnap;      /* routings offered */
    uint8_t *oldcol;     /* per switch: a destination's port before the pass */
    uint8_t *oldfb;      /* per destination: escape paths used in the first pass */
    uint32_t *tent;      /* dependencies added for the destination, pairs */
    size_t tcap;         /* pairs tent holds */
    uint8_t *active;     /* per switch: carries traffic toward the destination */
    uint32_t *path;
    uint32_t *esc;       /* per switch: its escape channel toward the destination */
    uint8_t *ine;        /* per switch: forced onto its escape channel */
    uint32_t *q2;
    size_t ntent;
    uint64_t *sub;
    /* escape tree */
    uint32_t root;
    uint32_t *croot;     /* per layer: its central switch (the same for every
                            variant with these layers: computed once) */
    uint32_t *up;        /* per switch: channel to its parent, IBR_NONE at root */
    uint32_t *ups;       /* up of every layer, k x S */
    uint32_t *port_adj;  /* global port index -> channel leaving it, IBR_NONE */
    uint32_t *kid_off, *kids;
    uint32_t *queue;
    uint32_t *dist;
    /* centrality scratch */
    uint8_t *inhull;
    double *sigma, *delta, *cent;
    /* results */
    nue_stats st;        /* of the routing being built */
    uint16_t *order_il;  /* dlid/copy in the interleaved order */
    uint32_t *il_at;     /* interleave_order's counting sort, L + 1 */
    uint16_t *copy_il;
    uint8_t *lft;        /* the variant's LFTs, LID-major: (max LID + 1) x S,
                            entry lid * S + x, so that a destination's
                            column (read and written once per search) is
                            contiguous rather than S cache lines apart */
    uint8_t *blocked;    /* per layer and CDG slot, a bit: dependency blocked */
    size_t nslots;
    uint8_t *saved;      /* the LFTs of its best routing, LID-major too */
    const char *part_used;
    char part_note[96];
} nue;

/* ---- heap of candidates ------------------------------------------------ */

/* An indexed 4-ary heap of switches, each keyed by its best candidate
   not yet tried: (key, channel), smaller key first, then smaller channel.
   The entries hold the keys, so comparisons read the heap array only.
   No two entries tie (a channel leaves one switch), so the order of the
   pops is the same whatever the heap's shape; four children per node
   halve the levels a pop walks down, and the four share a cache line. */
#define HARITY 4
static inline int hless(const hent *a, const hent *b)
{
    return a->key < b->key || (a->key == b->key && a->c < b->c);
}

/* Entry e at heap slot i, its position recorded. */
static inline void hput(nue *c, size_t i, hent e)
{
    c->hp[i] = e;
    c->hpos[e.w] = (uint32_t)i;
}

static void hup(nue *c, size_t i)
{
    hent e = c->hp[i];
    while (i > 0) {
        size_t p = (i - 1) / HARITY;
        if (!hless(&e, &c->hp[p]))
            break;
        hput(c, i, c->hp[p]);
        i = p;
    }
    hput(c, i, e);
}

/* Insert switch w or lower its key to (key, ch) if that is better. */
static void hoffer(nue *c, uint32_t w, uint64_t key, uint32_t ch)
{
    uint32_t i = c->hpos[w];
    if (i == IBR_NONE) {
        c->hp[c->hn] = (hent){key, ch, w};
        hup(c, c->hn++);
    } else if (key < c->hp[i].key || (key == c->hp[i].key && ch < c->hp[i].c)) {
        c->hp[i].key = key;
        c->hp[i].c = ch;
        hup(c, i);
    }
}

static hent hpop(nue *c)
{
    hent top = c->hp[0], e = c->hp[--c->hn];
    c->hpos[top.w] = IBR_NONE;
    size_t i = 0, n = c->hn;
    if (!n)
        return top;
    for (;;) {
        size_t l = HARITY * i + 1, m = i, end = l + HARITY < n ? l + HARITY : n;
        const hent *best = &e;
        for (size_t j = l; j < end; j++)
            if (hless(&c->hp[j], best)) {
                m = j;
                best = &c->hp[j];
            }
        if (m == i)
            break;
        hput(c, i, c->hp[m]);
        i = m;
    }
    hput(c, i, e);
    return top;
}

/* ---- fabric tables ----------------------------------------------------- */

/* LIDs of global port gp that are routed: 2^min(port LMC, cap). */
static unsigned port_lids(const ibr_topo *t, uint32_t gp, unsigned cap)
{
    const ibr__port *p = &t->ports[gp];
    if (!p->lid)
        return 0;
    return 1u << (p->lmc < cap ? p->lmc : cap);
}

/* The end port behind switch port pt, as a global port index, or
   IBR_NONE. */
static uint32_t end_behind(const ibr_topo *t, const ibr__port *pt)
{
    if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
        t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
        return IBR_NONE;
    return t->nodes[pt->remote_node].port_off + pt->remote_port;
}

static int routed_lid(const ibr_topo *t, uint32_t gp, unsigned lid)
{
    return lid <= t->max_lid && t->lid_port[lid] == gp && t->lid_sw[lid] != IBR_NONE;
}

/* Channels' tails and reverses; destinations and their order: the switches
   in index order, each one's end ports in port order, every routed LID of
   each; then the LIDs of switches without end ports (the LIDs of a switch
   with end ports copy the routes of its first end-port LID). */
static int build_tables(nue *c, unsigned cap)
{
    const ibr_topo *t = c->t;
    uint32_t S = c->S;
    for (uint32_t i = 0; i < t->n_ports; i++)
        c->port_adj[i] = IBR_NONE;
    for (uint32_t x = 0; x < S; x++)
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            c->tail[e] = x;
            c->port_adj[t->nodes[t->sw_node[x]].port_off + t->adj[e].port] = e;
        }
    for (uint32_t e = 0; e < c->C; e++) {
        uint32_t y = t->adj[e].sw;
        c->rev[e] = IBR_NONE;
        for (uint32_t f = t->adj_off[y]; f < t->adj_off[y + 1]; f++)
            if (t->adj[f].port == t->adj[e].rport && t->adj[f].sw == c->tail[e]) {
                c->rev[e] = f;
                break;
            }
        if (c->rev[e] == IBR_NONE)
            return IBR_EINTERNAL;
    }
    uint32_t nd = 0;
    for (uint32_t x = 0; x < S; x++) {
        const ibr__node *sn = &t->nodes[t->sw_node[x]];
        uint16_t first = 0;
        for (unsigned p = 1; p <= sn->nports; p++) {
            uint32_t gp = end_behind(t, &t->ports[sn->port_off + p]);
            if (gp == IBR_NONE)
                continue;
            unsigned n = port_lids(t, gp, cap);
            for (unsigned i = 0; i < n; i++) {
                unsigned lid = t->ports[gp].lid + i;
                if (!routed_lid(t, gp, lid) || t->lid_sw[lid] != x)
                    continue;
                c->srcw[x]++;
                c->dw[x]++;
                c->dlid[nd] = (uint16_t)lid;
                c->copy[nd++] = 0;
                if (!first)
                    first = (uint16_t)lid;
            }
        }
        if (first) {
            uint32_t gp = sn->port_off;
            unsigned n = port_lids(t, gp, cap);
            for (unsigned i = 0; i < n; i++) {
                unsigned lid = t->ports[gp].lid + i;
                if (!routed_lid(t, gp, lid))
                    continue;
                c->dlid[nd] = (uint16_t)lid;
                c->copy[nd++] = first;
            }
        }
    }
    for (uint32_t x = 0; x < S; x++) {
        if (c->dw[x])
            continue;
        uint32_t gp = t->nodes[t->sw_node[x]].port_off;
        unsigned n = port_lids(t, gp, cap);
        for (unsigned i = 0; i < n; i++) {
            unsigned lid = t->ports[gp].lid + i;
            if (!routed_lid(t, gp, lid))
                continue;
            c->dw[x]++;
            c->dlid[nd] = (uint16_t)lid;
            c->copy[nd++] = 0;
        }
    }
    c->nd = nd;
    uint64_t p = (uint64_t)t->max_lid + 1;
    c->big = p * p;
    return 0;
}

/* ---- partitioning ------------------------------------------------------ */

/* The built-in partitioner: k regions grown at once from seeds spread over
   the fabric (each seed the switch farthest from the previous ones, ties
   to the lowest index), the lightest region (in destination LIDs) taking
   the next switch of its breadth-first frontier each time. Switches are
   weighted by max(1, destination LIDs). Every switch ends in a region
   (the fabric is connected). O(k·(S + E)). */
static int partition_builtin(nue *c, unsigned k)
{
    const ibr_topo *t = c->t;
    uint32_t S = c->S;
    uint32_t *seed = c->queue; /* k entries used first */
    uint32_t *dist = c->dist;
    uint32_t *fifo = ibr__mallocarray(c->ctx, (size_t)S * k + 1, sizeof *fifo);
    size_t *head = ibr__calloc(c->ctx, k, sizeof *head);
    size_t *tailq = ibr__calloc(c->ctx, k, sizeof *tailq);
    uint64_t *wgt = ibr__calloc(c->ctx, k, sizeof *wgt);
    uint32_t *q = ibr__mallocarray(c->ctx, S, sizeof *q);
    int rc = 0;
    if (!fifo || !head || !tailq || !wgt || !q) {
        rc = IBR_ENOMEM;
        goto out;
    }
    /* seeds: farthest-point sampling, starting from the switch farthest
       from switch 0 */
    uint32_t s0 = 0;
    while (!c->alive[s0])
        s0++;
    ibr__bfs(dist, t, &s0, 1, q);
    uint32_t far = s0;
    for (uint32_t x = 0; x < S; x++)
        if (dist[x] != UINT32_MAX && dist[x] > dist[far])
            far = x;
    seed[0] = far;
    for (unsigned i = 1; i < k; i++) {
        ibr__bfs(dist, t, seed, i, q);
        uint32_t best = IBR_NONE;
        for (uint32_t x = 0; x < S; x++)
            if (dist[x] != 0 && dist[x] != UINT32_MAX && (best == IBR_NONE || dist[x] > dist[best]))
                best = x;
        if (best == IBR_NONE)
            best = seed[i - 1]; /* fewer switches than layers */
        seed[i] = best;
    }
    for (uint32_t x = 0; x < S; x++)
        c->part[x] = IBR_NONE;
    uint32_t left = c->n_alive;
    for (unsigned i = 0; i < k; i++) {
        if (c->part[seed[i]] != IBR_NONE)
            continue;
        c->part[seed[i]] = i;
        wgt[i] += c->dw[seed[i]] ? c->dw[seed[i]] : 1;
        fifo[(size_t)i * S + tailq[i]++] = seed[i];
        left--;
    }
    while (left > 0) {
        /* the lightest region that can still grow */
        unsigned best = k;
        for (unsigned i = 0; i < k; i++) {
            while (head[i] < tailq[i]) {
                uint32_t x = fifo[(size_t)i * S + head[i]];
                int open = 0;
                for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++)
                    if (c->part[t->adj[e].sw] == IBR_NONE) {
                        open = 1;
                        break;
                    }
                if (open)
                    break;
                head[i]++;
            }
            if (head[i] < tailq[i] && (best == k || wgt[i] < wgt[best]))
                best = i;
        }
        if (best == k)
            break; /* cannot happen on a connected fabric */
        uint32_t x = fifo[(size_t)best * S + head[best]];
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            uint32_t y = t->adj[e].sw;
            if (c->part[y] != IBR_NONE)
                continue;
            c->part[y] = best;
            wgt[best] += c->dw[y] ? c->dw[y] : 1;
            fifo[(size_t)best * S + tailq[best]++] = y;
            left--;
            break;
        }
    }
    for (uint32_t x = 0; x < S; x++)
        if (c->part[x] == IBR_NONE)
            c->part[x] = 0;
out:
    ibr__free(c->ctx, fifo);
    ibr__free(c->ctx, head);
    ibr__free(c->ctx, tailq);
    ibr__free(c->ctx, wgt);
    ibr__free(c->ctx, q);
    return rc;
}

#ifdef IBR_HAVE_METIS
/* METIS k-way partition of the switch graph (one edge per pair of
   neighbours, however many cables), vertices weighted by max(1,
   destination LIDs), fixed seed. Returns 0, 1 (METIS refused: the caller
   uses the built-in partitioner), IBR_ENOMEM. */
static int partition_metis(nue *c, unsigned k)
{
    const ibr_topo *t = c->t;
    uint32_t S = c->S;
    idx_t *xadj = ibr__mallocarray(c->ctx, (size_t)S + 1, sizeof *xadj);
    idx_t *adjncy = ibr__mallocarray(c->ctx, (size_t)c->C + 1, sizeof *adjncy);
    idx_t *vwgt = ibr__mallocarray(c->ctx, S, sizeof *vwgt);
    idx_t *part = ibr__mallocarray(c->ctx, S, sizeof *part);
    uint32_t *mark = c->queue;
    int rc = 0;
    if (!xadj || !adjncy || !vwgt || !part) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t x = 0; x < S; x++)
        mark[x] = IBR_NONE;
    idx_t m = 0;
    for (uint32_t x = 0; x < S; x++) {
        xadj[x] = m;
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            uint32_t y = t->adj[e].sw;
            if (y == x || mark[y] == x)
                continue;
            mark[y] = x;
            adjncy[m++] = (idx_t)y;
        }
        vwgt[x] = c->dw[x] ? (idx_t)c->dw[x] : 1;
    }
    xadj[S] = m;
    idx_t nv = (idx_t)S, ncon = 1, np = (idx_t)k, obj = 0;
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 1;
    opt[METIS_OPTION_NUMBERING] = 0;
    int mrc = METIS_PartGraphKway(&nv, &ncon, xadj, adjncy, vwgt, NULL, NULL, &np, NULL, NULL,
                                  opt, &obj, part);
    if (mrc != METIS_OK) {
        snprintf(c->part_note, sizeof c->part_note, "METIS returned %d", mrc);
        rc = mrc == METIS_ERROR_MEMORY ? IBR_ENOMEM : 1;
        goto out;
    }
    for (uint32_t x = 0; x < S; x++) {
        if (part[x] < 0 || part[x] >= np) {
            snprintf(c->part_note, sizeof c->part_note, "METIS gave part %ld",
                     (long)part[x]);
            rc = 1;
            goto out;
        }
        c->part[x] = (uint32_t)part[x];
    }
out:
    ibr__free(c->ctx, xadj);
    ibr__free(c->ctx, adjncy);
    ibr__free(c->ctx, vwgt);
    ibr__free(c->ctx, part);
    return rc;
}
#endif

static int partition(nue *c, int which)
{
    unsigned k = c->k;
    if (k == 1) {
        for (uint32_t x = 0; x < c->S; x++)
            c->part[x] = 0;
        c->part_used = "none";
        snprintf(c->part_note, sizeof c->part_note, "one layer");
        return 0;
    }
#ifdef IBR_HAVE_METIS
    /* METIS prints (to stdout) and fails on graphs with too few vertices
       for the parts asked */
    if (which != PART_BUILTIN && c->n_alive < 2 * k)
        snprintf(c->part_note, sizeof c->part_note, "%u switches: too few for METIS",
                 c->n_alive);
    else if (which != PART_BUILTIN) {
        int rc = partition_metis(c, k);
        if (rc <= 0) {
            if (rc == 0)
                c->part_used = "metis";
            return rc;
        }
    }
#else
    if (which == PART_METIS)
        snprintf(c->part_note, sizeof c->part_note, "METIS not built in");
#endif
    c->part_used = "builtin";
    return partition_builtin(c, k);
}

/* ---- the central switch of a layer -------------------------------------- */

/* The switch of highest betweenness (Brandes) inside the convex hull of
   the layer's destination switches; ties go to the lowest index. Sources:
   every hull switch, or NUE_PIVOTS of them evenly spaced in index order
   on larger hulls. O(H·E). */
static uint32_t central_switch(nue *c, unsigned layer)
{
    const ibr_topo *t = c->t;
    uint32_t S = c->S, *dist = c->dist, *q = c->queue;
    uint8_t *in = c->inhull;
    uint32_t nh = 0, nsrc = 0, first = IBR_NONE;
    for (uint32_t x = 0; x < S; x++) {
        in[x] = c->part[x] == layer && c->dw[x] ? 2 : 0;
        if (in[x]) {
            nsrc++;
            nh++;
            if (first == IBR_NONE)
                first = x;
        }
    }
    if (first == IBR_NONE)
        return 0;
    /* hull: every switch on a shortest path between two destination
       switches (bit 1: a destination switch, bit 0: in the hull) */
    for (uint32_t a = 0; a < S && nh < S; a++) {
        if (!(in[a] & 2))
            continue;
        ibr__bfs(dist, t, &a, 1, q);
        /* walk back from every destination switch along decreasing
           distance; c->ch marks the switches visited from a */
        uint32_t qh = 0, qt = 0;
        for (uint32_t b = 0; b < S; b++) {
            c->ch[b] = 0;
            if ((in[b] & 2) && b != a) {
                c->ch[b] = 1;
                q[qt++] = b;
            }
        }
        while (qh < qt) {
            uint32_t v = q[qh++];
            if (!in[v]) {
                in[v] = 1;
                nh++;
            }
            for (uint32_t e = t->adj_off[v]; e < t->adj_off[v + 1]; e++) {
                uint32_t u = t->adj[e].sw;
                if (!c->ch[u] && dist[u] + 1 == dist[v]) {
                    c->ch[u] = 1;
                    q[qt++] = u;
                }
            }
        }
    }
    for (uint32_t x = 0; x < S; x++)
        c->cent[x] = 0;
    uint32_t step = nh > NUE_PIVOTS ? (nh + NUE_PIVOTS - 1) / NUE_PIVOTS : 1, seen = 0;
    for (uint32_t s = 0; s < S; s++) {
        if (!in[s])
            continue;
        if (seen++ % step)
            continue;
        /* BFS over hull switches and hull links, counting shortest paths */
        for (uint32_t x = 0; x < S; x++) {
            dist[x] = UINT32_MAX;
            c->sigma[x] = 0;
            c->delta[x] = 0;
        }
        uint32_t qh = 0, qt = 0;
        dist[s] = 0;
        c->sigma[s] = 1;
        q[qt++] = s;
        while (qh < qt) {
            uint32_t v = q[qh++];
            for (uint32_t e = t->adj_off[v]; e < t->adj_off[v + 1]; e++) {
                uint32_t w = t->adj[e].sw;
                if (!in[w])
                    continue;
                if (dist[w] == UINT32_MAX) {
                    dist[w] = dist[v] + 1;
                    q[qt++] = w;
                }
                if (dist[w] == dist[v] + 1)
                    c->sigma[w] += c->sigma[v];
            }
        }
        /* back-propagation in reverse BFS order */
        for (uint32_t i = qt; i-- > 0;) {
            uint32_t w = q[i];
            for (uint32_t e = t->adj_off[w]; e < t->adj_off[w + 1]; e++) {
                uint32_t v = t->adj[e].sw;
                if (in[v] && dist[v] != UINT32_MAX && dist[v] + 1 == dist[w])
                    c->delta[v] += c->sigma[v] / c->sigma[w] * (1.0 + c->delta[w]);
            }
            if (w != s)
                c->cent[w] += c->delta[w];
        }
    }
    uint32_t best = IBR_NONE;
    for (uint32_t x = 0; x < S; x++)
        if (in[x] && (best == IBR_NONE || c->cent[x] > c->cent[best]))
            best = x;
    return best;
}

/* ---- escape paths -------------------------------------------------------- */

/* Children lists of the escape tree in c->up. O(S). */
static void build_kids(nue *c)
{
    const ibr_topo *t = c->t;
    uint32_t S = c->S, *q = c->queue;
    for (uint32_t x = 0; x <= S; x++)
        c->kid_off[x] = 0;
    for (uint32_t x = 0; x < S; x++)
        if (c->up[x] != IBR_NONE)
            c->kid_off[t->adj[c->up[x]].sw + 1]++;
    for (uint32_t x = 0; x < S; x++)
        c->kid_off[x + 1] += c->kid_off[x];
    for (uint32_t x = 0; x < S; x++)
        q[x] = c->kid_off[x];
    for (uint32_t x = 0; x < S; x++)
        if (c->up[x] != IBR_NONE)
            c->kids[q[t->adj[c->up[x]].sw]++] = x;
}

/* The layer's escape tree (breadth-first from the central switch, each
   switch on its least loaded channel toward the previous level) and its
   up*-down* dependencies added to the layer's CDG. */
static int escape_tree(nue *c, unsigned layer)
{
    const ibr_topo *t = c->t;
    uint32_t S = c->S, *dist = c->dist, *q = c->queue;
    uint32_t r = c->root = c->croot[layer];
    ibr__bfs(dist, t, &r, 1, q);
    for (uint32_t x = 0; x < S; x++) {
        c->up[x] = IBR_NONE;
        if (x == r)
            continue;
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++)
            if (dist[t->adj[e].sw] + 1 == dist[x] &&
                (c->up[x] == IBR_NONE || c->load[e] < c->load[c->up[x]]))
                c->up[x] = e;
    }
    build_kids(c);
    memcpy(c->ups + (size_t)layer * S, c->up, S * sizeof *c->up);
    /* the turns traffic from a switch with end ports can take: up the
       tree along its path to the root (onpath), one turn down at any
       switch of that path, then down. So: at every switch v, from an
       onpath child's up channel to v's up channel and to every other
       child's down channel, and from v's down channel (parent -> v) to
       every child's down channel */
    uint8_t *onpath = c->ine;
    for (uint32_t x = 0; x < S; x++)
        onpath[x] = 0;
    for (uint32_t x = 0; x < S; x++)
        for (uint32_t v = x; c->srcw[x] && !onpath[v];) {
            onpath[v] = 1;
            if (c->up[v] == IBR_NONE)
                break;
            v = t->adj[c->up[v]].sw;
        }
    for (uint32_t v = 0; v < S; v++) {
        uint32_t upv = c->up[v], downv = upv == IBR_NONE ? IBR_NONE : c->rev[upv];
        for (uint32_t i = c->kid_off[v]; i < c->kid_off[v + 1]; i++) {
            uint32_t a = c->up[c->kids[i]]; /* child -> v */
            int rc;
            if (downv != IBR_NONE &&
                (rc = ibr__cdg_add_edge(c->g, layer, downv, c->rev[a], 1)) < 0)
                return rc;
            if (!onpath[c->kids[i]])
                continue;
            if (upv != IBR_NONE && (rc = ibr__cdg_add_edge(c->g, layer, a, upv, 1)) < 0)
                return rc;
            for (uint32_t j = c->kid_off[v]; j < c->kid_off[v + 1]; j++)
                if (j != i &&
                    (rc = ibr__cdg_add_edge(c->g, layer, a, c->rev[c->up[c->kids[j]]], 1)) < 0)
                    return rc;
        }
    }
    int rc = ibr__cdg_order(c->g, layer);
    return rc == 1 ? IBR_EINTERNAL : rc;
}

/* ---- one destination ----------------------------------------------------- */

/* Record the dependencies of path ch[0 .. n - 1], just added. */
static int note_path(nue *c, const uint32_t *ch, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (c->ntent == c->tcap) {
            size_t cap = c->tcap * 2;
            uint32_t *p = ibr__reallocarray(c->ctx, c->tent, cap, 2 * sizeof *p);
            if (!p)
                return IBR_ENOMEM;
            c->tent = p;
            c->tcap = cap;
        }
        c->tent[2 * c->ntent] = ch[i];
        c->tent[2 * c->ntent + 1] = ch[i + 1];
        c->ntent++;
    }
    return 0;
}

/* Switch w (joining through channel `in`, its next hop already in the
   tree) starts carrying traffic toward d: add the dependencies of its path,
   from `in` to the first switch that already carries traffic (whose own
   dependencies are in the layer), if the layer stays acyclic, and mark
   the switches on the way as carrying traffic. Returns 0, 1 (a cycle:
   nothing added) or an error. */
static int activate(nue *c, unsigned layer, uint32_t in, uint32_t d)
{
    const ibr_topo *t = c->t;
    size_t n = 0;
    c->path[n++] = in;
    for (uint32_t v = t->adj[in].sw; v != d;) {
        c->path[n++] = c->ch[v];
        if (c->active[v])
            break;
        v = t->adj[c->ch[v]].sw;
    }
    /* a single dependency that closed a cycle once stays blocked in the
       layer (as OpenSM's BLOCKED edges): conservative, since the layer
       only loses dependencies when routes are taken out, and it spares
       the search that would most likely fail again */
    size_t slot = 0;
    uint8_t bit = 0;
    if (n == 2 && c->blocked) {
        uint32_t sl = ibr__cdg_slot(c->g, c->path[0], c->path[1]);
        if (sl != IBR_NONE) {
            slot = ((size_t)layer * c->nslots + sl) >> 3;
            bit = (uint8_t)(1u << (sl & 7));
            if (c->blocked[slot] & bit)
                return 1;
        }
    }
    if (n >= 2) {
        int rc = ibr__cdg_add_path(c->g, layer, c->path, n, 1, 1);
        if (rc == 1 && bit)
            c->blocked[slot] |= bit;
        if (rc != 0)
            return rc;
        if ((rc = note_path(c, c->path, n)) < 0)
            return rc;
    }
    for (uint32_t v = t->adj[in].sw; v != d && !c->active[v]; v = t->adj[c->ch[v]].sw)
        c->active[v] = 1;
    return 0;
}

/* Force switch u, and every switch on its escape path toward the
   destination, onto escape channels. Returns how many changed. */
static uint32_t force_escape(nue *c, uint32_t u)
{
    uint32_t v = u, n = 0;
    while (!c->ine[v]) {
        c->ine[v] = 1;
        c->st.escaped_sw++;
        if (!c->done[v] || c->ch[v] != c->esc[v]) {
            c->ch[v] = c->esc[v];
            c->done[v] = 1;
            n++;
        }
        v = c->t->adj[c->esc[v]].sw;
    }
    return n;
}

/* The switches of destination d's tree (next hops c->ch[]) into c->order
   from d outward, each after its next hop (clear_sub: c->sub of each set
   to 0 on the way). -1 when the tree misses an alive switch. */
static int tree_order(nue *c, uint32_t d, int clear_sub)
{
    const ibr_topo *t = c->t;
    c->order[0] = d;
    c->nord = 1;
    for (uint32_t i = 0; i < c->nord; i++) {
        uint32_t z = c->order[i];
        if (clear_sub)
            c->sub[z] = 0;
        for (uint32_t e = t->adj_off[z]; e < t->adj_off[z + 1]; e++) {
            uint32_t x = t->adj[e].sw;
            if (x != d && c->ch[x] == c->rev[e])
                c->order[c->nord++] = x;
        }
    }
    return c->nord == c->n_alive ? 0 : -1;
}

/* The search got stuck: some switches cannot join. Put them on their
   escape paths (the tree re-rooted at d), with every switch on those
   paths (the set E, closed under "next hop"; channels in E never change
   again). Then every switch outside E that carries traffic and whose next
   hop is in E adds the dependencies of its whole path to d (they are
   final: the rest of the path is in E); if that would close a cycle it
   joins E too, and the check repeats. This ends at worst with every
   switch on the escape tree, whose dependencies for traffic from switches
   with end ports are reserved: the layer stays acyclic. Dependencies
   added for the destination and no longer used are taken out. */
static int repair(nue *c, unsigned layer, uint32_t d)
{
    const ibr_topo *t = c->t;
    /* escape channels toward d: the tree searched from d */
    for (uint32_t x = 0; x < c->S; x++)
        c->ine[x] = 0;
    uint32_t *q = c->queue, qh = 0, qt = 0;
    c->ine[d] = 1;
    c->esc[d] = IBR_NONE;
    q[qt++] = d;
    while (qh < qt) {
        uint32_t x = q[qh++];
        uint32_t u = c->up[x];
        if (u != IBR_NONE && !c->ine[t->adj[u].sw]) {
            uint32_t p = t->adj[u].sw;
            c->ine[p] = 1;
            c->esc[p] = c->rev[u];
            q[qt++] = p;
        }
        for (uint32_t j = c->kid_off[x]; j < c->kid_off[x + 1]; j++) {
            uint32_t y = c->kids[j];
            if (!c->ine[y]) {
                c->ine[y] = 1;
                c->esc[y] = c->up[y];
                q[qt++] = y;
            }
        }
    }
    for (uint32_t x = 0; x < c->S; x++) {
        c->ine[x] = 0;
        c->q2[x] = 0; /* checked against its final path */
    }
    c->ine[d] = 1;
    for (uint32_t x = 0; x < c->S; x++)
        if (c->alive[x] && !c->done[x])
            force_escape(c, x);
    for (int again = 1; again;) {
        again = 0;
        for (uint32_t x = 0; x < c->S; x++) {
            if (c->ine[x] || !c->done[x] || !c->active[x] || c->q2[x] ||
                !c->ine[t->adj[c->ch[x]].sw])
                continue;
            size_t n = 0;
            c->path[n++] = c->ch[x];
            for (uint32_t v = t->adj[c->ch[x]].sw; v != d; v = t->adj[c->ch[v]].sw)
                c->path[n++] = c->ch[v];
            int rc = n >= 2 ? ibr__cdg_add_path(c->g, layer, c->path, n, 1, 1) : 0;
            if (rc < 0)
                return rc;
            if (rc == 0) {
                if ((rc = note_path(c, c->path, n)) < 0)
                    return rc;
                c->q2[x] = 1;
                continue;
            }
            c->st.rejected++;
            force_escape(c, x);
            again = 1;
        }
    }
    /* the switches in an order where each follows its next hop */
    if (tree_order(c, d, 0) < 0)
        return IBR_EINTERNAL;
    /* which switches carry traffic now, and the dependencies not used */
    for (uint32_t i = 0; i < c->nord; i++)
        c->active[c->order[i]] = c->srcw[c->order[i]] > 0;
    for (uint32_t i = c->nord; i-- > 1;) {
        uint32_t x = c->order[i];
        if (c->active[x])
            c->active[t->adj[c->ch[x]].sw] = 1;
    }
    /* every final dependency gets weight 1 from this destination (it is in
       the layer already, reserved or added above), the others none */
    for (uint32_t i = 1; i < c->nord; i++) {
        uint32_t x = c->order[i], z = t->adj[c->ch[x]].sw;
        uint32_t pair[2] = {c->ch[x], c->ch[z]};
        int rc;
        if (c->active[x] && z != d && (rc = ibr__cdg_add_path(c->g, layer, pair, 2, 1, 0)) < 0)
            return rc;
    }
    for (size_t i = 0; i < c->ntent; i++) {
        int rc = ibr__cdg_remove_path(c->g, layer, c->tent + 2 * i, 2, 1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void push_around(nue *c, uint32_t z)
{
    const ibr_topo *t = c->t;
    for (uint32_t e = t->adj_off[z]; e < t->adj_off[z + 1]; e++) {
        uint32_t w = t->adj[e].sw;
        if (c->done[w])
            continue;
        uint32_t in = c->rev[e]; /* w -> z */
        hoffer(c, w, c->key[z] + c->big + c->load[in], in);
    }
}

/* Switch w's best candidate not yet rejected in this search, offered to
   the heap, if any. O(degree). */
static void next_candidate(nue *c, uint32_t w)
{
    const ibr_topo *t = c->t;
    uint64_t bk = UINT64_MAX;
    uint32_t bc = IBR_NONE;
    for (uint32_t e = t->adj_off[w]; e < t->adj_off[w + 1]; e++) {
        uint32_t z = t->adj[e].sw;
        if (!c->done[z] || c->tried[e] == c->stamp)
            continue;
        uint64_t k = c->key[z] + c->big + c->load[e];
        if (k < bk || (k == bk && e < bc)) {
            bk = k;
            bc = e;
        }
    }
    if (bc != IBR_NONE)
        hoffer(c, w, bk, bc);
}

/* Route one destination LID delivered at switch d in layer `layer`: the
   search of the file comment, in which only switches that carry traffic
   (end ports, or a switch routing through them) add dependencies, and the
   repair when it gets stuck. Leaves the tree in ch/order. Returns 0, 1
   (escape paths used) or an error. */
static int route_dest(nue *c, unsigned layer, uint32_t d)
{
    for (uint32_t x = 0; x < c->S; x++) {
        c->done[x] = 0;
        c->active[x] = 0;
        c->hpos[x] = IBR_NONE;
    }
    if (++c->stamp == 0) {
        for (uint32_t e = 0; e < c->C; e++)
            c->tried[e] = 0;
        c->stamp = 1;
    }
    c->hn = 0;
    c->ntent = 0;
    c->done[d] = 1;
    c->active[d] = 1;
    c->ch[d] = IBR_NONE;
    c->key[d] = 0;
    c->order[0] = d;
    c->nord = 1;
    push_around(c, d);
    while (c->hn && c->nord < c->n_alive) {
        hent h = hpop(c);
        uint32_t w = h.w, in = h.c;
        if (c->srcw[w]) {
            int rc = activate(c, layer, in, d);
            if (rc < 0)
                return rc;
            if (rc == 1) {
                c->st.rejected++;
                c->tried[in] = c->stamp;
                next_candidate(c, w);
                continue;
            }
            c->active[w] = 1;
        }
        c->done[w] = 1;
        c->ch[w] = in;
        c->key[w] = h.key;
        c->order[c->nord++] = w;
        push_around(c, w);
    }
    if (c->nord == c->n_alive)
        return 0;
    int rc = repair(c, layer, d);
    return rc < 0 ? rc : 1;
}

/* LFT column of lid from the tree in ch, and the weight update. */
static void commit_dest(nue *c, unsigned lid, uint32_t d)
{
    const ibr_topo *t = c->t;
    int end = t->lid_port[lid] != t->nodes[t->sw_node[d]].port_off;
    uint8_t *col = c->lft + (size_t)lid * c->S;
    for (uint32_t i = 0; i < c->nord; i++) {
        uint32_t x = c->order[i];
        col[x] = x == d ? t->lid_swport[lid] : t->adj[c->ch[x]].port;
        c->sub[x] = 0;
    }
    for (uint32_t i = c->nord; i-- > 1;) {
        uint32_t x = c->order[i];
        uint32_t e = c->ch[x];
        c->sub[x] += c->srcw[x];
        c->load[e] += c->sub[x];
        if (end)
            c->vload[e] += c->sub[x];
        c->sub[t->adj[e].sw] += c->sub[x];
    }
}

/* ---- the engine ---------------------------------------------------------- */

/* The destinations with the switches interleaved: the first end-port LID
   of every switch, then the second, ...; the LIDs that copy another's
   tree last. Each destination then sees the loads of other switches'
   destinations, not only of its own switch's. A stable counting sort on
   the rank of each LID among its switch's: O(nd). (Taking the ranks one
   by one, a pass over all destinations each, cost O(nd x LIDs per
   switch): seconds for one switch with 254 hosts at LMC 7.) */
static void interleave_order(nue *c, uint16_t *ol, uint16_t *oc)
{
    const ibr_topo *t = c->t;
    uint32_t nd = c->nd, *at = c->il_at, prev = IBR_NONE, r = 0, maxr = 0, m = 0;
    for (uint32_t i = 0; i <= nd; i++)
        at[i] = 0;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t x = t->lid_sw[c->dlid[i]];
        r = x == prev ? r + 1 : 0;
        prev = x;
        if (!c->copy[i]) {
            at[r + 1]++;
            if (r > maxr)
                maxr = r;
        }
    }
    for (uint32_t k = 1; k <= maxr; k++)
        at[k] += at[k - 1];
    prev = IBR_NONE;
    r = 0;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t x = t->lid_sw[c->dlid[i]];
        r = x == prev ? r + 1 : 0;
        prev = x;
        if (!c->copy[i]) {
            ol[at[r]] = c->dlid[i];
            oc[at[r]++] = 0;
            m++;
        }
    }
    for (uint32_t i = 0; i < nd; i++)
        if (c->copy[i]) {
            ol[m] = c->dlid[i];
            oc[m++] = c->copy[i];
        }
}

/* Take destination lid (switch d, layer `layer`) out (add = 0) or put
   it back (add = 1, after it was taken out): its dependencies (weight 1
   each) and its loads, from its LFT column. */
static int apply_column(nue *c, unsigned layer, unsigned lid, uint32_t d, int add)
{
    const ibr_topo *t = c->t;
    const uint8_t *col = c->lft + (size_t)lid * c->S;
    for (uint32_t x = 0; x < c->S; x++) {
        c->ch[x] = IBR_NONE;
        if (x == d || !c->alive[x])
            continue;
        unsigned p = col[x];
        if (p != IBR_NO_ROUTE)
            c->ch[x] = c->port_adj[t->nodes[t->sw_node[x]].port_off + p];
    }
    if (tree_order(c, d, 1) < 0)
        return IBR_EINTERNAL;
    int end = t->lid_port[lid] != t->nodes[t->sw_node[d]].port_off;
    for (uint32_t i = c->nord; i-- > 1;) {
        uint32_t x = c->order[i], e = c->ch[x], z = t->adj[e].sw;
        c->sub[x] += c->srcw[x];
        if (add) {
            c->load[e] += c->sub[x];
            if (end)
                c->vload[e] += c->sub[x];
        } else {
            c->load[e] -= c->sub[x];
            if (end)
                c->vload[e] -= c->sub[x];
        }
        c->sub[z] += c->sub[x];
        if (c->sub[x] && z != d) {
            /* x carries traffic: its dependency is the destination's */
            uint32_t pair[2] = {e, c->ch[z]};
            /* put back checked: the dependencies were there before, so no
               cycle, and the layer's order is kept up to date instead of
               being recomputed at the next check */
            int rc = add ? ibr__cdg_add_path(c->g, layer, pair, 2, 1, 1)
                         : ibr__cdg_remove_path(c->g, layer, pair, 2, 1);
            if (rc != 0)
                return rc < 0 ? rc : IBR_EINTERNAL;
        }
    }
    return 0;
}

/* Destination lid (switch d) is settled for this pass (kept or put back),
   its tree in c->order, c->ch, c->sub: its end-port pairs join c->fin,
   the loads no later destination of the pass can take off. Returns 1 when
   the pass's routing can no longer be kept, so that routing the rest of
   it is wasted: a link already carries m0 (the busiest before the pass;
   the pass is offered only if it ends below), or, in the last pass, more
   than cap (the busiest link of some variant's routing already offered,
   which that variant's final routing does not exceed: a routing above it
   never wins, and after the last pass nothing lowers it). */
static int settle(nue *c, unsigned lid, uint32_t d, uint64_t m0, uint64_t cap)
{
    const ibr_topo *t = c->t;
    if (t->lid_port[lid] == t->nodes[t->sw_node[d]].port_off)
        return 0; /* a switch LID: no end-port pairs */
    int over = 0;
    for (uint32_t j = 1; j < c->nord; j++) {
        uint32_t x = c->order[j], e = c->ch[x];
        uint64_t f = c->fin[e] += c->sub[x];
        over |= f >= m0 || f > cap;
    }
    return over;
}

/* The routing in the run's LFTs is a candidate: keep a copy if its
   busiest channel is less loaded than the best one's so far (ties: the
   earlier). */
static void offer(nue *c)
{
    c->st.max_load = 0;
    for (uint32_t e = 0; e < c->C; e++)
        if (c->vload[e] > c->st.max_load)
            c->st.max_load = c->vload[e];
    if (c->nsnap++ && c->st.max_load >= c->best.max_load)
        return;
    c->best = c->st;
    uint64_t g = atomic_load(c->gbest);
    while (c->st.max_load < g && !atomic_compare_exchange_weak(c->gbest, &g, c->st.max_load))
        ;
    memcpy(c->saved, c->lft, (size_t)c->S * ((size_t)c->t->max_lid + 1));
}

/* Route every destination (in the switch order, or interleaved), from
   fresh loads and layers; c->st gets the statistics. Returns 0, an error,
   or IBR_ECANCELED. */
static int route_all(nue *c, int interleave)
{
    const ibr_topo *t = c->t;
    const uint16_t *dl = c->dlid, *cp = c->copy;
    if (interleave) {
        interleave_order(c, c->order_il, c->copy_il);
        dl = c->order_il;
        cp = c->copy_il;
    }
    memset(&c->st, 0, sizeof c->st);
    c->st.interleaved = interleave;
    c->nsnap = 0;
    size_t lsz0 = (size_t)t->max_lid + 1;
    memset(c->lft, IBR_NO_ROUTE, (size_t)c->S * lsz0);
    for (uint32_t x = 0; x < c->S; x++) {
        const ibr__port *p0 = &t->ports[t->nodes[t->sw_node[x]].port_off];
        for (unsigned i = 0; p0->lid && i < (1u << p0->lmc); i++)
            if (p0->lid + i <= t->max_lid)
                c->lft[(p0->lid + i) * (size_t)c->S + x] = 0; /* every switch delivers its own LIDs */
    }
    c->st.used = 1;
    for (uint32_t e = 0; e < c->C; e++)
        c->load[e] = c->vload[e] = 0;
    ibr__cdg_destroy(c->g);
    c->g = NULL;
    int rc = ibr__cdg_create_topo(&c->g, t, c->k);
    if (rc < 0)
        return rc;
    c->nslots = ibr__cdg_slot_count(c->g);
    size_t nb = ((size_t)c->k * c->nslots + 7) >> 3;
    ibr__free(c->ctx, c->blocked);
    c->blocked = ibr__calloc(c->ctx, nb ? nb : 1, 1);
    if (!c->blocked)
        return IBR_ENOMEM;
    for (unsigned l = 0; l < c->k; l++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < c->nd; i++)
            if (!cp[i] && c->part[t->lid_sw[dl[i]]] == l)
                n++;
        c->st.dests[l] = n;
        if (!n)
            continue;
        c->st.used = l + 1;
        if ((rc = escape_tree(c, l)) < 0)
            return rc;
        c->st.roots[l] = c->root;
        for (uint32_t i = 0; i < c->nd; i++) {
            if (cp[i])
                continue;
            unsigned lid = dl[i];
            uint32_t d = t->lid_sw[lid];
            if (c->part[d] != l)
                continue;
            rc = route_dest(c, l, d);
            if (rc < 0)
                return rc;
            c->st.fallbacks[l] += (uint32_t)rc;
            c->oldfb[i] = (uint8_t)rc;
            commit_dest(c, lid, d);
        }
    }
    /* the improvement passes: every destination in turn routed again
       against the loads of all the others (sssp's), kept unless it makes a
       link busier than the busiest one before the pass */
    offer(c);
    for (int pass = 0; pass < c->improve; pass++) {
        uint64_t m0 = c->st.max_load;
        /* the last pass is kept only if its busiest link is below every
           variant's so far: compare with the best offered by any */
        int last = pass + 1 == c->improve;
        for (uint32_t e = 0; e < c->C; e++)
            c->fin[e] = 0;
        /* dependencies blocked during the first pass may be free again once
           the destinations' routes are taken out one by one */
        memset(c->blocked, 0, ((size_t)c->k * c->nslots + 7) >> 3);
        c->st.escaped_sw = 0; /* counted again for the routes of this pass */
        for (unsigned l = 0; l < c->k; l++) {
            if (!c->st.dests[l])
                continue;
            memcpy(c->up, c->ups + (size_t)l * c->S, c->S * sizeof *c->up);
            build_kids(c);
            c->st.fallbacks[l] = 0;
            for (uint32_t i = 0; i < c->nd; i++) {
                if (cp[i])
                    continue;
                unsigned lid = dl[i];
                uint32_t d = t->lid_sw[lid];
                if (c->part[d] != l)
                    continue;
                uint8_t *col = c->lft + (size_t)lid * c->S;
                memcpy(c->oldcol, col, c->S);
                if ((rc = apply_column(c, l, lid, d, 0)) < 0)
                    return rc;
                int fb = route_dest(c, l, d);
                if (fb < 0)
                    return fb;
                commit_dest(c, lid, d);
                /* keep it unless a link it uses is now busier than the busiest
                   one was before the pass */
                int worse = 0;
                for (uint32_t j = 1; j < c->nord && !worse; j++)
                    worse = c->vload[c->ch[c->order[j]]] > m0;
                if (worse) {
                    if ((rc = apply_column(c, l, lid, d, 0)) < 0)
                        return rc;
                    memcpy(col, c->oldcol, c->S);
                    if ((rc = apply_column(c, l, lid, d, 1)) < 0)
                        return rc;
                    fb = c->oldfb[i];
                }
                c->st.fallbacks[l] += (uint32_t)fb;
                if (settle(c, lid, d, m0, last ? atomic_load(c->gbest) : UINT64_MAX))
                    return 0; /* this pass cannot be kept: nor can the next run */
            }
        }
        offer(c);
        if (c->st.max_load >= m0)
            break; /* this pass lowered nothing: nor would the next */
    }
    return 0;
}

/* A routing variant: destination order, weights, layers. */
typedef struct nue_variant {
    int interleave; /* switches interleaved rather than switch by switch */
    int light;      /* a hop weighs 1 rather than more than any load */
    int one;        /* one layer, whatever the VLs allowed */
} nue_variant;

static int layers_artifact(nue *c, unsigned used, int which, const nue_variant *v)
{
    static const char *asked[] = {"auto", "metis", "builtin"};
    ibr_buffer b = IBR_BUFFER_INIT;
    uint64_t fb = 0;
    for (unsigned l = 0; l < c->k; l++)
        fb += c->st.fallbacks[l];
    int rc = ibr__buf_printf(&b, c->ctx,
                             "# nue: %u layers allowed, %u VLs used\n"
                             "# partitioner: %s (asked: %s)%s%s\n"
                             "# destination order: %s, hop weight: %s%s, busiest channel: %" PRIu64
                             " pairs\n"
                             "# destinations on escape paths: %" PRIu64
                             ", switches moved onto them: %" PRIu64
                             ", candidates rejected: %" PRIu64 "\n"
                             "# layer destinations escape_root escape_routed\n",
                             c->k, used, c->part_used, asked[which], c->part_note[0] ? "; " : "",
                             c->part_note, c->st.interleaved ? "interleaved" : "switch",
                             v->light ? "1" : "above any load", v->one ? ", one layer" : "",
                             c->st.max_load, fb, c->st.escaped_sw, c->st.rejected);
    for (unsigned l = 0; l < c->k && rc == 0; l++)
        rc = ibr__buf_printf(&b, c->ctx, "%u %u %" PRIu64 " %u\n", l, c->st.dests[l],
                             c->st.dests[l] ? c->t->nodes[c->t->sw_node[c->st.roots[l]]].guid
                                         : 0,
                             c->st.fallbacks[l]);
    if (rc == 0)
        rc = ibr_run_add_artifact(c->run, "nue-layers.txt", b.data, b.size);
    ibr_buffer_dispose(&b);
    return rc;
}

/* The arrays a routing variant writes (c->S, c->C, c->k, c->t set). */
static int alloc_variant(nue *c)
{
    ibr_context *ctx = c->ctx;
    size_t S = c->S, C = c->C ? c->C : 1, L = (size_t)c->t->max_lid + 1;
    c->load = ibr__calloc(ctx, C, sizeof *c->load);
    c->vload = ibr__calloc(ctx, C, sizeof *c->vload);
    c->fin = ibr__mallocarray(ctx, C, sizeof *c->fin);
    c->key = ibr__mallocarray(ctx, S, sizeof *c->key);
    c->ch = ibr__mallocarray(ctx, S, sizeof *c->ch);
    c->done = ibr__mallocarray(ctx, S, 1);
    c->order = ibr__mallocarray(ctx, S, sizeof *c->order);
    c->hp = ibr__mallocarray(ctx, S, sizeof *c->hp);
    c->hpos = ibr__mallocarray(ctx, S, sizeof *c->hpos);
    c->tried = ibr__calloc(ctx, C, sizeof *c->tried);
    c->stamp = 0;
    c->tent = ibr__mallocarray(ctx, 4 * S, sizeof *c->tent);
    c->tcap = 2 * S;
    c->active = ibr__mallocarray(ctx, S, 1);
    c->path = ibr__mallocarray(ctx, S + 1, sizeof *c->path);
    c->esc = ibr__mallocarray(ctx, S, sizeof *c->esc);
    c->ine = ibr__mallocarray(ctx, S, 1);
    c->q2 = ibr__mallocarray(ctx, S, sizeof *c->q2);
    c->sub = ibr__mallocarray(ctx, S, sizeof *c->sub);
    c->up = ibr__mallocarray(ctx, S, sizeof *c->up);
    c->ups = ibr__mallocarray(ctx, S * c->k, sizeof *c->ups);
    c->oldcol = ibr__mallocarray(ctx, S, 1);
    c->oldfb = ibr__mallocarray(ctx, L, 1);
    c->kid_off = ibr__mallocarray(ctx, S + 1, sizeof *c->kid_off);
    c->kids = ibr__mallocarray(ctx, S, sizeof *c->kids);
    c->queue = ibr__mallocarray(ctx, S + NUE_MAX_LAYERS, sizeof *c->queue);
    c->dist = ibr__mallocarray(ctx, S, sizeof *c->dist);
    c->inhull = ibr__mallocarray(ctx, S, 1);
    c->sigma = ibr__mallocarray(ctx, S, sizeof *c->sigma);
    c->delta = ibr__mallocarray(ctx, S, sizeof *c->delta);
    c->cent = ibr__mallocarray(ctx, S, sizeof *c->cent);
    c->order_il = ibr__mallocarray(ctx, L, sizeof *c->order_il);
    c->copy_il = ibr__mallocarray(ctx, L, sizeof *c->copy_il);
    c->il_at = ibr__mallocarray(ctx, L + 1, sizeof *c->il_at);
    c->lft = ibr__mallocarray(ctx, S, L);
    c->saved = ibr__mallocarray(ctx, S, L);
    c->g = NULL;
    c->blocked = NULL;
    if (!c->load || !c->vload || !c->fin || !c->key || !c->ch || !c->done || !c->order || !c->hp ||
        !c->hpos || !c->tried || !c->tent || !c->active || !c->path || !c->esc || !c->ine ||
        !c->q2 || !c->sub || !c->up || !c->ups || !c->oldcol || !c->oldfb || !c->kid_off ||
        !c->kids || !c->queue || !c->dist || !c->inhull || !c->sigma || !c->delta || !c->cent ||
        !c->order_il || !c->copy_il || !c->il_at || !c->lft || !c->saved)
        return IBR_ENOMEM;
    return 0;
}

/* Takes a variant whose allocation failed half-way (NULLs are fine). */
static void free_variant(nue *c)
{
    ibr_context *ctx = c->ctx;
    ibr__cdg_destroy(c->g);
    c->g = NULL;
    void *p[] = {c->fin,    c->load,   c->vload, c->key,      c->ch,      c->done,     c->order,
                 c->hp,     c->hpos,  c->tried,    c->tent,    c->active,   c->path,
                 c->esc,    c->ine,   c->q2,       c->sub,     c->up,       c->ups,
                 c->oldcol, c->oldfb, c->kid_off,  c->kids,    c->queue,    c->dist,
                 c->inhull, c->sigma, c->delta,    c->cent,    c->order_il, c->copy_il,
                 c->lft,    c->saved,  c->blocked, c->il_at};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        ibr__free(ctx, p[i]);
}

static void nue_free(nue *c)
{
    ibr_context *ctx = c->ctx;
    free_variant(c);
    void *p[] = {c->tail,  c->rev,  c->srcw, c->dw,       c->part,
                 c->part1, c->alive, c->dlid, c->copy, c->port_adj};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        ibr__free(ctx, p[i]);
}

/* Every variant, in the order of preference on ties: the two orders with
   hop-dominated weights (nue.order), then nue.explore's two. */
static const nue_variant nue_variants[] = {
    {0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 1},
};
#define NUE_VARIANTS (sizeof nue_variants / sizeof *nue_variants)

typedef struct nue_job {
    nue **v;                  /* the variants' states */
    const nue_variant **var;  /* what each routes */
} nue_job;

static int variant_fn(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    nue_job *job = arg;
    return route_all(job->v[i], job->var[i]->interleave);
}

/* c for routing t in run: the layers (max_vls want, 0: all the run's
   VLs), the improve setting and c's tables allocated. */
static int nue_setup(nue *c, ibr_run *run, const ibr_topo *t, int64_t want)
{
    const ibr_options *o = ibr_run_options(run);
    ibr_context *ctx = t->ctx;
    memset(c, 0, sizeof *c);
    c->run = run;
    c->t = t;
    c->ctx = ctx;
    c->S = t->n_sw;
    c->C = t->n_adj;
    unsigned avail = ibr__run_vls(run);
    c->k = avail;
    if (want > 0 && (unsigned)want < c->k)
        c->k = (unsigned)want;
    if (want > 0 && (unsigned)want > avail)
        ibr__log(ctx, IBR_LOG_WARN,
                 IBR__MSG("EN043",
                          "nue: max_vls %u capped at the %u VLs available (max_vls %u, ports' "
                          "OperVLs %u)"),
                 (unsigned)want, avail, o->max_vls, ibr__topo_min_oper_vls(t));
    if (c->k > NUE_MAX_LAYERS)
        c->k = NUE_MAX_LAYERS;
    c->part_used = "none";
    int64_t imp = 1;
    ibr_run_setting_int(&imp, run, "improve");
    c->improve = (int)imp;

    size_t S = c->S, C = c->C ? c->C : 1, L = (size_t)t->max_lid + 1;
    c->tail = ibr__mallocarray(ctx, C, sizeof *c->tail);
    c->rev = ibr__mallocarray(ctx, C, sizeof *c->rev);
    c->srcw = ibr__calloc(ctx, S, sizeof *c->srcw);
    c->dw = ibr__calloc(ctx, S, sizeof *c->dw);
    c->part = ibr__mallocarray(ctx, S, sizeof *c->part);
    c->part1 = ibr__calloc(ctx, S, sizeof *c->part1);
    c->alive = ibr__mallocarray(ctx, S, 1);
    c->dlid = ibr__mallocarray(ctx, L, sizeof *c->dlid);
    c->copy = ibr__mallocarray(ctx, L, sizeof *c->copy);
    c->port_adj = ibr__mallocarray(ctx, t->n_ports, sizeof *c->port_adj);
    if (!c->tail || !c->rev || !c->srcw || !c->dw || !c->part || !c->part1 || !c->alive ||
        !c->dlid || !c->copy || !c->port_adj || alloc_variant(c) < 0)
        return IBR_ENOMEM;
    return 0;
}

/* One component of switches holds every end port: it is routed (a
   switch elsewhere has no end port: a failed switch, say; its LIDs stay
   unrouted), or nothing is (the engine declines: *declined set). Every
   switch delivers its own LIDs, connected or not; the destinations are
   cut down to the component's. */
static int nue_connect(nue *c, int *declined)
{
    const ibr_topo *t = c->t;
    ibr_run *run = c->run;
    size_t S = c->S;
    int rc;
    uint32_t s0 = 0;
    for (uint32_t x = 0; x < S; x++)
        if (c->srcw[x]) {
            s0 = x;
            break;
        }
    if ((rc = ibr_topo_bfs(c->dist, t, &s0, 1, c->queue)) < 0)
        return rc;
    for (uint32_t x = 0; x < S; x++) {
        c->alive[x] = c->dist[x] != UINT32_MAX;
        c->n_alive += c->alive[x];
        if (!c->alive[x] && c->srcw[x]) {
            *declined = 1;
            return ibr__decline(run,
                                IBR__MSG("EN044", "the fabric is disconnected: switch 0x%016" PRIx64
                                                  " cannot reach switch 0x%016" PRIx64
                                                  " (both with end ports)"),
                                t->nodes[t->sw_node[s0]].guid, t->nodes[t->sw_node[x]].guid);
        }
        if (!c->alive[x])
            c->dw[x] = 0;
    }
    for (uint32_t x = 0; x < S; x++) {
        const ibr__port *p0 = &t->ports[t->nodes[t->sw_node[x]].port_off];
        uint8_t *row = ibr_run_lft(run, x);
        for (unsigned i = 0; p0->lid && i < (1u << p0->lmc); i++)
            if (p0->lid + i <= t->max_lid)
                row[p0->lid + i] = 0;
    }
    uint32_t nd = 0;
    for (uint32_t i = 0; i < c->nd; i++)
        if (c->alive[t->lid_sw[c->dlid[i]]]) {
            c->dlid[nd] = c->dlid[i];
            c->copy[nd++] = c->copy[i];
        }
    c->nd = nd;
    return 0;
}

/* The winning variant's LFTs are in place: the switch LIDs that follow
   an end port's tree, the SLs and SL2VL maps of the layers, the VLs used,
   the layers artifact, the log line and the multicast trees. */
static int nue_program(nue *c, const nue_variant *won, int which)
{
    const ibr_topo *t = c->t;
    ibr_run *run = c->run;
    size_t S = c->S;
    unsigned used = c->st.used;
    int rc;
    /* switch by switch, each row written once (a LID copies an end-port
       LID, never another copy, so the order does not matter) */
    for (uint32_t x = 0; x < S; x++) {
        uint8_t *row = ibr_run_lft(run, x);
        for (uint32_t i = 0; i < c->nd; i++) {
            if (!c->copy[i])
                continue;
            unsigned lid = c->dlid[i];
            row[lid] = x == t->lid_sw[lid] ? 0 : row[c->copy[i]];
        }
    }
    if (c->k > 1 && !won->one) {
        if ((rc = ibr_run_set_sl_mode(run, IBR_SL_PER_DEST)) < 0)
            return rc;
        for (uint32_t i = 0; i < c->nd; i++)
            if ((rc = ibr_run_set_dest_sl(run, c->dlid[i], c->part[t->lid_sw[c->dlid[i]]])) < 0)
                return rc;
        uint8_t ident[16];
        for (unsigned i = 0; i < 16; i++)
            ident[i] = (uint8_t)i;
        for (uint32_t x = 0; x < S; x++) {
            unsigned np = t->nodes[t->sw_node[x]].nports;
            for (unsigned ip = 0; ip <= np; ip++)
                for (unsigned op = 0; op <= np; op++)
                    if ((rc = ibr_run_set_sl2vl(run, x, ip, op, ident)) < 0)
                        return rc;
        }
    }
    if ((rc = ibr_run_set_vls_used(run, used)) < 0)
        return rc;
    if ((rc = layers_artifact(c, used, which, won)) < 0)
        return rc;
    uint64_t fb = 0;
    for (unsigned l = 0; l < c->k; l++)
        fb += c->st.fallbacks[l];
    ibr__log(c->ctx, IBR_LOG_INFO,
             "nue: %u layers (%u used), partitioner %s, %s order, %" PRIu64
             " destinations on escape paths, %" PRIu64 " candidates rejected",
             c->k, used, c->part_used, c->st.interleaved ? "interleaved" : "switch", fb,
             c->st.rejected);
    return ibr__mcast_loaded_on(run, t, NULL, NULL);
}

/* The run's LFTs from a variant's saved LID-major tables (L LIDs by S
   switches): a transposition in blocks of switches, so that the rows
   written and the columns read stay in cache. */
static void copy_saved(ibr_run *run, const uint8_t *saved, size_t S, size_t L)
{
    enum { BLK = 64 };
    uint8_t *rows[BLK];
    for (size_t x0 = 0; x0 < S; x0 += BLK) {
        size_t nb = S - x0 < BLK ? S - x0 : BLK;
        for (size_t j = 0; j < nb; j++)
            rows[j] = ibr_run_lft(run, (uint32_t)(x0 + j));
        for (size_t lid = 0; lid < L; lid++) {
            const uint8_t *src = saved + lid * S + x0;
            for (size_t j = 0; j < nb; j++)
                rows[j][lid] = src[j];
        }
    }
}

static int nue_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    const ibr_options *o = ibr_run_options(run);
    if (t->n_sw == 0)
        return ibr_run_decline(run, IBR__MSG("EN039", "no switches"));
    int64_t want = 0;
    const char *ps = "auto";
    ibr_run_setting_int(&want, run, "max_vls");
    ibr_run_setting_str(&ps, NULL, run, "partitioner");
    int which;
    if (!strcmp(ps, "auto"))
        which = PART_AUTO;
    else if (!strcmp(ps, "metis"))
        which = PART_METIS;
    else if (!strcmp(ps, "builtin"))
        which = PART_BUILTIN;
    else
        return ibr__fail(run, IBR_EINVAL,
                         IBR__MSG("EN045", "nue.partitioner: '%s' is none of auto, metis, builtin"),
                         ps);

    ibr_topo *view;
    int vrc = ibr__engine_topo(&t, &view, run, "nue");
    if (vrc < 0)
        return vrc;
    nue c, cx[NUE_VARIANTS - 1];
    /* set before the first jump to the cleanup labels, which read it */
    size_t nx = 0; /* cx[] allocated */
    _Atomic uint64_t gbest;
    atomic_init(&gbest, UINT64_MAX);
    int rc = nue_setup(&c, run, t, want);
    c.gbest = &gbest;
    if (rc < 0)
        goto fail;

    unsigned cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    if ((rc = build_tables(&c, cap)) < 0)
        goto fail;
    int declined = 0;
    if ((rc = nue_connect(&c, &declined)) < 0) {
        if (declined)
            goto out;
        goto fail;
    }
    if ((rc = partition(&c, which)) < 0)
        goto fail;
    /* route the variants (ibr_options-independent) and keep the one with
       the less loaded busiest channel, then the fewer layers (ties: the
       first) */
    int64_t ord = 0, explore = 1;
    ibr_run_setting_int(&ord, run, "order");
    ibr_run_setting_int(&explore, run, "explore");
    const nue_variant *var[NUE_VARIANTS];
    size_t nv = 0;
    for (size_t i = 0; i < NUE_VARIANTS; i++) {
        const nue_variant *v = &nue_variants[i];
        if (v->light || v->one ? !explore || (v->one && c.k < 2)
                               : (ord == 1 && v->interleave) || (ord == 2 && !v->interleave))
            continue;
        var[nv++] = v;
    }
    /* the escape trees' roots depend on the layers alone, not on the
       loads: once for the k layers, once for the one-layer variants' */
    uint32_t croot[NUE_MAX_LAYERS], croot1[1];
    for (unsigned l = 0; l < c.k; l++)
        croot[l] = central_switch(&c, l);
    c.croot = croot;
    for (size_t i = 0; i < nv; i++)
        if (var[i]->one) {
            uint32_t *part = c.part;
            c.part = c.part1;
            croot1[0] = central_switch(&c, 0);
            c.part = part;
            break;
        }
    size_t S = c.S, lsz = (size_t)t->max_lid + 1;
    /* the variants run in parallel (each its own loads, graphs and LFTs);
       the first is c itself, never a one-layer one */
    nue *vs[NUE_VARIANTS];
    vs[0] = &c;
    for (size_t i = 1; i < nv; i++) {
        nue *v = &cx[nx];
        *v = c;
        nx++;
        if (var[i]->one) {
            v->k = 1;
            v->part = c.part1;
            v->croot = croot1;
        }
        if ((rc = alloc_variant(v)) < 0)
            goto nomem_x;
        vs[i] = v;
    }
    for (size_t i = 0; i < nv; i++)
        if (var[i]->light)
            vs[i]->big = 1;
    if ((rc = ibr_run_progress(run, "nue: routing", 0, 1)) < 0)
        goto out_x;
    nue_job job = {vs, var};
    rc = ibr_run_parallel_for(run, nv, variant_fn, &job);
    if (rc < 0)
        goto fail_x;
    if ((rc = ibr_run_progress(run, "nue: routing", 1, 1)) < 0)
        goto out_x;
    size_t b = 0;
    for (size_t i = 1; i < nv; i++)
        if (vs[i]->best.max_load < vs[b]->best.max_load ||
            (vs[i]->best.max_load == vs[b]->best.max_load &&
             vs[i]->best.used < vs[b]->best.used))
            b = i;
    nue_stats best = vs[b]->best;
    const nue_variant *won = var[b];
    copy_saved(run, vs[b]->saved, S, lsz);
    while (nx)
        free_variant(&cx[--nx]);
    c.st = best;
    if ((rc = nue_program(&c, won, which)) < 0)
        goto fail;
    rc = 0;
    goto out;
nomem_x:
    rc = IBR_ENOMEM;
fail_x:
    while (nx)
        free_variant(&cx[--nx]);
    goto fail;
out_x:
    while (nx)
        free_variant(&cx[--nx]);
    goto out;
fail:
    rc = ibr__engine_fail(run, rc, "routing on the dependency graph");
out:
    nue_free(&c);
    ibr__topo_view_destroy(view);
    return rc;
}

static const ibr_setting nue_settings[] = {
    {"max_vls", IBR_SETTING_INT, 0, 15, 0, NULL,
     "virtual lanes (layers) nue may use, 0 = ibr_options::max_vls, never more than it "
     "(OpenSM's nue_max_num_vls)"},
    {"partitioner", IBR_SETTING_STRING, 0, 0, 0, "auto",
     "how destinations are split into layers: auto (METIS when built in), metis, builtin"},
    {"order", IBR_SETTING_INT, 0, 2, 0, NULL,
     "destination order: 0 = route with both and keep the less loaded, 1 = switch by "
     "switch, 2 = switches interleaved"},
    {"improve", IBR_SETTING_INT, 0, 16, 2, NULL,
     "improvement passes (0 = none): every destination routed again against all the "
     "others' loads, kept unless a link gets busier than the busiest before; passes stop "
     "when one lowers nothing"},
    {"explore", IBR_SETTING_BOOL, 0, 1, 1, NULL,
     "also route with load-dominated weights and with a single layer, keeping whichever "
     "routing has the least loaded busiest link (then the fewest VLs)"},
    {"avoid_throttled_links", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "route around switch-to-switch cables running below the width or speed both ends "
     "enable, keeping those needed to keep the switches connected (OpenSM's "
     "avoid_throttled_links)"},
};

const ibr_engine ibr__engine_nue = {
    .version = IBR_ENGINE_VERSION,
    .name = "nue",
    .description = "Nue: routes on the channel dependency graph, credit-loop free within the "
                   "VLs given (1 or more); path SLs, SL2VL",
    .caps = IBR_CAP_LMC | IBR_CAP_SL | IBR_CAP_SL2VL | IBR_CAP_DEADLOCK_FREE,
    .route = nue_route,
    .settings = nue_settings,
    .n_settings = sizeof nue_settings / sizeof nue_settings[0],
};
