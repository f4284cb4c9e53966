/*
 * dfsssp: SSSP routing (sssp.c) made free of credit loops with virtual
 * layers, after Domke, Hoefler and Nagel (IPDPS 2011) and OpenSM's dfsssp.
 *
 * Paths. Every (source end port, destination LID) pair is a path; the
 * hosts behind one switch follow the same switch-to-switch channels (the
 * first hop, host to switch, and the last, switch to host, can never be
 * part of a cycle), so the unit of layering is the pair (source switch X,
 * destination LID d), weighted by the LIDs of X's end ports: the number of
 * (source LID, destination LID) pairs OpenSM would count for it. Moving a
 * unit moves exactly the paths OpenSM would move together.
 *
 * Layers. Every unit starts in layer 0. The channel dependency graph (CDG)
 * of a layer has one vertex per directed switch-to-switch channel and an
 * edge c1 -> c2 when some path of the layer leaves a switch on c2 after
 * entering it on c1; each edge carries the number of pairs inducing it.
 * For layer v = 0, 1, ...: a depth-first search finds a cycle; the edge of
 * the cycle with the fewest pairs (the first one, walking the cycle from
 * the DFS ancestor, on ties) is broken by moving every unit of layer v
 * that induces it to layer v + 1, with its whole path (its other edges in
 * layer v lose its pairs, layer v + 1 gains them); the search resumes.
 * Once layer v is acyclic the next one is processed. Units never move
 * down, so each layer's CDG only loses edges while it is searched.
 *
 * The layers' CDGs are one src/cdg switch graph (a dense array per layer
 * indexed by (channel, next channel), Σ over switches of in-degree x
 * out-degree slots), its edge weights the pairs inducing them, and the
 * search is its resumable cycle search: a vertex turns black only when all
 * its live edges lead to black vertices, an invariant that deletions
 * preserve, so each layer costs one DFS plus the re-exploration below
 * broken tree edges (after a cut the stack is unwound to the lowest tree
 * edge that lost all its pairs).
 * The units inducing an edge are not stored (OpenSM keeps a list of pairs
 * on every edge, its dominant memory cost): an edge (a -> b, b -> c) is
 * induced for destination d exactly when the routes of a and b send d over
 * those two channels (sssp.c keeps the routes destination-major, so this
 * test reads one row per destination), and then by the sources whose path
 * to d passes a.
 *
 * Fewer layers (ibroute's own step, refine_layers). The greedy cutting
 * often leaves a handful of paths in its last layer. After it, the top
 * layer is emptied if possible: first each of its units moves to the
 * lowest layer where its path closes no cycle (checked insertion into the
 * layers' CDGs, which src/cdg keeps acyclic with a dynamic topological
 * order);
 * then each destination that still has paths in it is routed again on a
 * minimal tree built inside one lower layer (switches by distance, each
 * taking the least loaded next hop whose dependency keeps that layer
 * acyclic), kept only if no link then carries more pairs than the busiest
 * one did. This repeats for the new top layer until one cannot be emptied.
 * On the fabrics of the OpenSM comparison this needs as many layers as
 * OpenSM's dfsssp or fewer (a degraded fat tree: 1 instead of 2; tori: a
 * layer or two fewer), so it also routes fabrics where OpenSM runs out.
 *
 * Beyond the VLs (ibroute's step, relayer). When the cycle breaking and
 * the refinement need more layers than the VLs available, the paths are
 * laid out again unit by unit: destination by destination, each switch
 * (nearest first) picks a minimal next hop, cheapest first, and its unit
 * goes with it into a layer its path keeps acyclic (checked insertion);
 * the lower half of the VLs is tried first, for balance, then the lowest
 * layer above; while that pass does not fit, a quarter, an eighth, ...,
 * and last every unit is packed into the lowest layer that takes it.
 * Routes change only here, so fabrics where OpenSM's way fits keep their
 * tables.
 *
 * Dimension order (ibroute's step, dim_layout). When LASH's mesh analysis
 * recognises a mesh, torus or hypercube, the paths are also laid out unit
 * by unit as above with the candidates in dimension order (the analysis's
 * link order, the load only between parallel cables). One layer that
 * loads no link more than sssp's routes is taken at once, before any
 * cycle breaking (hypercubes, meshes, 4-ary tori). Otherwise it replaces
 * OpenSM's way (cycle breaking and refinement) when it needs fewer layers
 * at a busiest link within 10 % of that way's, or when that way does not
 * fit the VLs (then without relayering, unless the shape is damaged: a
 * missing switch or link concentrates dimension order's detours). On a
 * damaged shape the analysis's order and its reverse are both laid out
 * and balanced within their layers (balance_layers), and both are also
 * packed into fewer layers than the better of those (the spreading for
 * balance can use more layers than the detours need); the fewest layers,
 * then the lowest busiest link, is kept, and it replaces OpenSM's way
 * whenever it needs fewer layers (the detours cost lash as much).
 * Dimension order leaves each pair one path, which balances the packed
 * layout poorly around the hole: on a damaged shape the paths are also
 * laid out by load (candidates cheapest first) under a turn rule, a hop
 * that turns from a later sense to a first one last (turn_forbidden;
 * the checked insertion still decides), packed into the fewest layers
 * found; up to twelve rules (negative-first, one sense first, one sense
 * last, mirrored and turned) one after the other, until the best layout
 * is within 10 % of sssp's busiest link; their balance weighs a link by
 * its load squared. Every
 * balance ends by draining the busiest link: a destination's new tree
 * is kept only when it stays below it, sweep after sweep while that
 * lowers the busiest load or the number of links carrying it.
 *
 * Fewer layers with the same routes (fewer_same_routes, by default).
 * Where OpenSM's way fits in more than one layer, its routes are laid
 * out again unit by unit into one layer fewer, each unit into the lowest
 * layer its path keeps acyclic (as lash places its paths); kept when it
 * fits. The cycle breaking cuts where a cycle closes, not where a path
 * could go instead: a dragonfly, whose minimal paths leave only the
 * layers free, needs 2 layers this way where the cycle breaking needs 3
 * or 4. The tables and loads stay the same.
 *
 * Fewer layers unit by unit (fewer_by_units, the setting
 * dfsssp.fewest_layers). Where OpenSM's way still needs more than one
 * layer, the layering unit by unit from its routes, with the choice of
 * hop free, replaces it when it needs fewer layers at a busiest link
 * within 10 % (a 48-switch random graph: 3 or 4 layers instead of 5).
 *
 * VLs. The fabric has as many data VLs as the smallest OperVLs of a
 * switch port with a peer (as OpenSM counts them), capped by
 * ibr_options::max_vls. If more layers are needed even unit by unit, the
 * engine fails with IBR_ENOVL, naming the count, so the chain falls back.
 * If fewer are needed the spare VLs are handed out
 * one by one to the layer with the most pairs per VL (ties: lowest layer),
 * and a layer spread over k VLs gives pair (source port i of its switch,
 * destination number j) the VL first + (i + j) mod k: each VL then holds a
 * subset of one acyclic layer, so it stays acyclic. (OpenSM draws a random
 * VL of the range at every path query; ibroute's table is fixed.) SL n
 * travels on VL n: the SL2VL table of every switch port pair is the
 * identity. The result holds one SL per destination when every
 * destination's paths share one layer (fat trees without faults: a single
 * layer), else one SL per (source, destination) pair.
 *
 * Switches as sources (the management traffic of port 0, which OpenSM
 * leaves out of the CDG): a switch with end ports takes the SLs of its
 * first end port (its paths are the same channels); another switch takes,
 * for destination d, the SL of a host path to d its own path is a suffix
 * of, when one exists (so it adds no dependency); otherwise the first VL,
 * on which such a path is not covered by the layering.
 *
 * Threads: the layer-0 CDG is built in parallel over destinations (integer
 * sums merged in a fixed order) and the SL tables in parallel over rows;
 * the cycle breaking is sequential. Output does not depend on the count.
 *
 * Time: SSSP's, plus O(L·S) to build the CDG, plus per broken cycle
 * O(L + m·(S + N)) for the m destinations inducing the edge (N source
 * switches), plus O(C + D) per layer for the search (C channels, D CDG
 * entries); the refinement costs O(C + D) per layer to order it plus an
 * O(S·deg) search with checked insertions per destination rerouted.
 * Memory: L x N bytes of unit layers, D x 8 bytes per layer in use,
 * 4 x (S + 4096) + 12 KB for the units being moved, and the SL table
 * (L bytes, or (end ports + S) x L per pair).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cdg/cdg.h"
#include "core/buffer.h"
#include "core/messages.h"
#include "engines/engine_int.h"
#include "engines/lash/mesh.h"
#include "engines/sssp.h"
#include "mcast/loaded.h"

#define MAX_LAYERS 15 /* data VLs */
#define PATH_CAP(n) ((size_t)(n) + 4096) /* channels of units being moved */
#define UNIT_CAP 1024                        /* units being moved */
#define BALANCE_SWEEPS 8 /* at most, each over all destinations */

typedef struct df_worker {
    ibr__cdg *acc;    /* layer-0 CDG weights, in its layer 0 (worker 0: the
                         layers' graph itself) */
    uint64_t *lw0;    /* acc's layer 0, filled directly (ibr__cdg_fill_begin) */
    uint64_t *sub;    /* per switch */
    uint32_t *order;  /* per switch */
    uint32_t *oe;     /* per switch: its channel toward the destination */
    uint32_t cnt[257];
    uint32_t last, nord; /* order holds the levels around switch last */
    uint64_t pairs;
    int16_t *cover;   /* per switch: SL covering it, -1 none */
    uint32_t *kid_off, *kids, *pre; /* per switch: children, pre-order */
    uint32_t *size;   /* per switch: subtree size */
    uint32_t *par;    /* per switch: next switch toward the destination */
    uint16_t slmask;  /* SLs written */
} df_worker;

typedef struct df {
    ibr_run *run;
    const ibr_topo *t;
    ibr_context *ctx;
    ibr__sssp *s;
    const uint8_t *hops;
    uint8_t *tp;         /* the routes, destination-major: port of switch y
                            toward destination di at tp[di * n_sw + y] */
    uint32_t *swoff;     /* per switch: global index of its port 0 */
    uint32_t nsrc;       /* switches with end ports */
    uint32_t *srcidx;    /* per switch: source index or IBR_NONE */
    uint32_t *srcsw;     /* per source: switch */
    ibr__cdg *g;         /* the layers' CDGs: edge weights = pairs */
    size_t ndep;         /* CDG entries (slots) per layer */
    uint32_t *sbase;     /* per channel e: slot of e -> e2 minus e2 (mod 2^32) */
    uint64_t ppl[MAX_LAYERS]; /* pairs per layer */
    const uint32_t *rank; /* while laying out in dimension order: per channel,
                             its place in its switch's dimension order */
    uint32_t *mrank;     /* that order, when mesh analysis recognises one */
    uint8_t *maxis;      /* then per channel: 2d + 1 for "+d", 2d + 2 for
                            "-d", 0 none */
    uint64_t sbusy;      /* sssp's busiest link */
    unsigned dimlayers;  /* the fewest layers of dimension order alone */
    int dl_done;         /* dim_layout has chosen: its pass (c->rev, packed,
                            layers it was given) or that none fits */
    int dl_rev, dl_pack, dl_fit;
    unsigned dl_cap;
    int sq;              /* the tree search weighs a link by its load squared */
    int turn;            /* laying out by load under a turn rule (0: none):
                            its set of first senses, as turn_rules */
    int rev;             /* the dimensions taken in the reverse order */
    int fixed;           /* laying out again with the routes kept: each
                            unit's only candidate is its current hop */
    uint32_t *prevd;     /* then per switch: the last destination behind it
                            laid out, IBR_NONE before the first */
    char shape[128];     /* what mesh analysis recognised */
    int whole;           /* every switch and link of the shape in place
                            (as many switches as its sizes multiply to) */
    uint8_t *layer;      /* n_dest x nsrc */
    /* units on their way to the next layer: their channels one after the
       other (path, PATH_CAP(n_sw)), each one's count and pairs (UNIT_CAP) */
    uint32_t *path, *plen;
    uint64_t *pw;
    /* the index of inducing paths (index_paths), built on the first cycle */
    int indexed;
    uint32_t *dep_first; /* per CDG entry: first of its destinations, ndep + 1 */
    uint32_t *dep_dest;  /* destinations whose routes hold the entry, ascending */
    uint16_t *tin, *tout;/* per destination and switch: the sources of the
                            switch's subtree in the destination's tree, as the
                            range srcs[tin] .. srcs[tout - 1] */
    uint16_t *srcs;      /* per destination: its sources in pre-order */
    size_t nsrcs_stride;
    uint32_t *bcnt;      /* while indexing: per block and entry, counts then
                            write positions */
    uint64_t cuts;
    uint8_t *tp0;        /* while laying out again: the routes before, */
    uint64_t *load0, *cl0; /* and the loads */
    uint8_t *stp;        /* sssp's routes and loads, kept for dimension */
    uint64_t *sload, *scl; /* order while OpenSM's way runs */
    /* SL assignment */
    unsigned split[MAX_LAYERS], start[MAX_LAYERS];
    uint32_t *pidx;      /* per end port: index among its switch's end ports */
    uint8_t **swrow;     /* per switch: its per-pair SL row, NULL without a LID */
    unsigned nw;
    df_worker *w;
} df;

/* Channel by which switch y forwards destination di, or IBR_NONE
   (delivered, or no route). */
static inline uint32_t out_edge(const df *c, uint32_t y, uint32_t di)
{
    unsigned p = c->tp[(size_t)di * c->t->n_sw + y];
    if (p == 0 || p == IBR_NO_ROUTE)
        return IBR_NONE;
    return c->s->port_adj[c->swoff[y] + p];
}

/* CDG entry of the dependency e1 -> e2 (e2 leaves the switch e1 enters). */
static inline size_t dep_of(const df *c, uint32_t e1, uint32_t e2)
{
    return (uint32_t)(c->sbase[e1] + e2);
}

/* ---- layer 0 ---------------------------------------------------------- */

static int build_dest(void *arg, unsigned wi, size_t di)
{
    df *c = arg;
    df_worker *w = &c->w[wi];
    const ibr_topo *t = c->t;
    unsigned lid = c->s->dlid[di];
    uint32_t d = t->lid_sw[lid];
    if (d != w->last) {
        w->nord = ibr__hops_level_order(t, c->hops, d, w->order, w->cnt);
        w->last = d;
    }
    uint32_t nord = w->nord;
    const uint32_t *order = w->order;
    const uint32_t *src = c->s->src_lids;
    uint32_t *oe = w->oe;
    uint64_t *sub = w->sub, *lw0 = w->lw0, pairs = 0;
    sub[d] = 0;
    for (uint32_t k = 1; k < nord; k++) {
        uint32_t y = order[k];
        if ((oe[y] = out_edge(c, y, (uint32_t)di)) == IBR_NONE)
            return IBR_EINTERNAL;
        sub[y] = src[y];
        pairs += src[y];
    }
    w->pairs += pairs;
    /* a switch's subtree weight is what its parent channel carries, and
       the dependency from it onto the parent's channel is induced by
       exactly those pairs (the parent z is nearer to d, so in the order:
       oe[z] is its channel) */
    for (uint32_t k = nord; k-- > 1;) {
        uint32_t y = order[k], e = oe[y];
        uint32_t z = t->adj[e].sw;
        uint64_t sy = sub[y];
        if (sy && z != d) {
            lw0[dep_of(c, e, oe[z])] += sy;
        }
        sub[z] += sy;
    }
    return 0;
}

/* The layers' CDGs with every path in layer 0 (the routes in c->tp, every
   unit in layer 0). Each worker fills layer 0 of its own graph (worker 0:
   of the layers' graph) directly; the sums are merged in worker order. */
static int build_layer0(df *c)
{
    const ibr_topo *t = c->t;
    ibr__cdg_destroy(c->g);
    c->g = NULL;
    int rc = ibr__cdg_create_topo(&c->g, t, MAX_LAYERS);
    if (rc < 0)
        return rc;
    c->ndep = ibr__cdg_slot_count(c->g);
    /* a channel's slots are consecutive in its successors' order (cdg.h):
       one look-up per channel gives every dependency's slot */
    if (!c->sbase) {
        c->sbase = ibr__mallocarray(c->ctx, t->n_adj ? t->n_adj : 1, sizeof *c->sbase);
        if (!c->sbase)
            return IBR_ENOMEM;
        for (uint32_t e = 0; e < t->n_adj; e++) {
            uint32_t b0 = t->adj_off[t->adj[e].sw];
            uint32_t s0 = ibr__cdg_slot(c->g, e, b0);
            if (s0 == IBR_NONE)
                return IBR_EINTERNAL;
            c->sbase[e] = s0 - b0;
        }
    }
    memset(c->ppl, 0, sizeof c->ppl);
    for (unsigned i = 0; i < c->nw; i++) {
        df_worker *w = &c->w[i];
        w->last = IBR_NONE;
        w->pairs = 0;
        w->acc = c->g;
        if (i > 0 && (rc = ibr__cdg_create_topo(&w->acc, t, 1)) < 0)
            return rc;
        if (!(w->lw0 = ibr__cdg_fill_begin(w->acc, 0)))
            return IBR_ENOMEM;
    }
    if ((rc = ibr_run_parallel_for(c->run, c->s->n_dest, build_dest, c)) < 0)
        return rc;
    for (unsigned i = 0; i < c->nw; i++) {
        c->ppl[0] += c->w[i].pairs;
        ibr__cdg_fill_end(c->w[i].acc, 0);
        c->w[i].lw0 = NULL;
        if (i > 0) {
            rc = ibr__cdg_merge(c->g, 0, c->w[i].acc, 0);
            ibr__cdg_destroy(c->w[i].acc);
            c->w[i].acc = NULL;
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* ---- the index of inducing paths --------------------------------------- */

/* Pre-order numbering of destination di's tree (children in switch
   order), and its sources in that order: the sources whose path passes a
   switch are then one range. */
static int index_dest(void *arg, unsigned wi, size_t di)
{
    df *c = arg;
    df_worker *w = &c->w[wi];
    const ibr_topo *t = c->t;
    uint32_t n = t->n_sw;
    uint32_t d = t->lid_sw[c->s->dlid[di]];
    uint16_t *tin = c->tin + di * n, *tout = c->tout + di * n;
    uint16_t *so = c->srcs + di * c->nsrcs_stride;
    memset(w->kid_off, 0, (n + 2) * sizeof *w->kid_off);
    for (uint32_t y = 0; y < n; y++) {
        tin[y] = tout[y] = 0;
        uint32_t e = y == d ? IBR_NONE : out_edge(c, y, (uint32_t)di);
        w->par[y] = e == IBR_NONE ? IBR_NONE : t->adj[e].sw;
        if (e != IBR_NONE)
            w->kid_off[t->adj[e].sw + 2]++;
    }
    for (uint32_t y = 0; y < n; y++)
        w->kid_off[y + 2] += w->kid_off[y + 1];
    for (uint32_t y = 0; y < n; y++)
        if (w->par[y] != IBR_NONE)
            w->kids[w->kid_off[w->par[y] + 1]++] = y;
    /* iterative pre-order from d: kid_off[z] .. kid_off[z + 1] are z's
       children now */
    uint32_t m = 0, sp = 0, ns = 0;
    w->order[sp++] = d;
    while (sp) {
        uint32_t y = w->order[--sp];
        tin[y] = (uint16_t)ns; /* the sources before y */
        w->pre[m++] = y;
        w->size[y] = 0;
        if (y != d && c->srcidx[y] != IBR_NONE) {
            so[ns++] = (uint16_t)c->srcidx[y];
            w->size[y] = 1;
        }
        for (uint32_t k = w->kid_off[y + 1]; k-- > w->kid_off[y];)
            w->order[sp++] = w->kids[k];
    }
    /* size: the sources in the subtree */
    for (uint32_t k = m; k-- > 1;) {
        uint32_t y = w->pre[k];
        w->size[w->par[y]] += w->size[y];
    }
    for (uint32_t k = 0; k < m; k++) {
        uint32_t y = w->pre[k];
        tout[y] = (uint16_t)(tin[y] + w->size[y]);
    }
    w->last = IBR_NONE; /* order was used as a stack */
    return 0;
}

/* The CDG entries of destination di's tree: one per switch whose next
   switch is not the destination's. Counts them (cnt_or_pos[entry]++)
   when fill is NULL, else appends di to fill at cnt_or_pos[entry]++. */
static void dest_deps(df *c, uint32_t di, uint32_t *cnt_or_pos, uint32_t *fill)
{
    const ibr_topo *t = c->t;
    uint32_t d = t->lid_sw[c->s->dlid[di]];
    for (uint32_t y = 0; y < t->n_sw; y++) {
        uint32_t e = y == d ? IBR_NONE : out_edge(c, y, di);
        if (e == IBR_NONE || t->adj[e].sw == d)
            continue;
        uint32_t e2 = out_edge(c, t->adj[e].sw, di);
        if (e2 == IBR_NONE)
            continue;
        size_t dp = dep_of(c, e, e2);
        if (fill)
            fill[cnt_or_pos[dp]++] = di;
        else
            cnt_or_pos[dp]++;
    }
}

/* Destinations of block b (one per worker) for the lists. */
static void index_block(const df *c, size_t b, uint32_t *lo, uint32_t *hi)
{
    size_t nd = c->s->n_dest;
    *lo = (uint32_t)(nd * b / c->nw);
    *hi = (uint32_t)(nd * (b + 1) / c->nw);
}

static int index_count(void *arg, unsigned wi, size_t b)
{
    (void)wi;
    df *c = arg;
    uint32_t lo, hi;
    index_block(c, b, &lo, &hi);
    uint32_t *cnt = c->bcnt + b * (c->ndep + 1);
    for (uint32_t di = lo; di < hi; di++)
        dest_deps(c, di, cnt, NULL);
    return 0;
}

static int index_fill(void *arg, unsigned wi, size_t b)
{
    (void)wi;
    df *c = arg;
    uint32_t lo, hi;
    index_block(c, b, &lo, &hi);
    uint32_t *pos = c->bcnt + b * (c->ndep + 1);
    for (uint32_t di = lo; di < hi; di++)
        dest_deps(c, di, pos, c->dep_dest);
    return 0;
}

/* Build the index: per-destination pre-orders (in parallel), then for
   every CDG entry the destinations whose routes hold it. Memory: 4 bytes
   per (destination, switch) for the pre-orders and as much for the lists,
   2 per (destination, source switch). Built only once a cycle shows that
   entries must be cut. */
static int index_paths(df *c)
{
    const ibr_topo *t = c->t;
    ibr_context *ctx = c->ctx;
    size_t nd = c->s->n_dest, n = t->n_sw;
    c->nsrcs_stride = c->nsrc ? c->nsrc : 1;
    c->tin = ibr__mallocarray(ctx, nd * n + 1, sizeof *c->tin);
    c->tout = ibr__mallocarray(ctx, nd * n + 1, sizeof *c->tout);
    c->srcs = ibr__mallocarray(ctx, nd * c->nsrcs_stride + 1, sizeof *c->srcs);
    c->dep_first = ibr__calloc(ctx, c->ndep + 2, sizeof *c->dep_first);
    if (!c->tin || !c->tout || !c->srcs || !c->dep_first)
        return IBR_ENOMEM;
    for (unsigned i = 0; i < c->nw; i++) {
        df_worker *w = &c->w[i];
        w->kid_off = ibr__mallocarray(ctx, n + 2, sizeof *w->kid_off);
        w->kids = ibr__mallocarray(ctx, n, sizeof *w->kids);
        w->pre = ibr__mallocarray(ctx, n, sizeof *w->pre);
        w->size = ibr__mallocarray(ctx, n, sizeof *w->size);
        w->par = ibr__mallocarray(ctx, n, sizeof *w->par);
        if (!w->kid_off || !w->kids || !w->pre || !w->size || !w->par)
            return IBR_ENOMEM;
    }
    int rc = ibr_run_parallel_for(c->run, nd, index_dest, c);
    if (rc < 0)
        return rc;
    /* the lists: counted and filled per block of destinations (one block
       per worker), so that each list comes out in destination order */
    c->bcnt = ibr__calloc(ctx, (size_t)c->nw * (c->ndep + 1), sizeof *c->bcnt);
    if (!c->bcnt)
        return IBR_ENOMEM;
    if ((rc = ibr_run_parallel_for(c->run, c->nw, index_count, c)) < 0)
        return rc;
    uint32_t total = 0;
    for (size_t k = 0; k < c->ndep; k++) {
        c->dep_first[k] = total;
        for (unsigned b = 0; b < c->nw; b++) {
            uint32_t *cnt = c->bcnt + (size_t)b * (c->ndep + 1) + k;
            uint32_t v = *cnt;
            *cnt = total; /* becomes the block's write position */
            total += v;
        }
    }
    c->dep_first[c->ndep] = total;
    c->dep_dest = ibr__mallocarray(ctx, (size_t)total + 1, sizeof *c->dep_dest);
    if (!c->dep_dest)
        return IBR_ENOMEM;
    if ((rc = ibr_run_parallel_for(c->run, c->nw, index_fill, c)) < 0)
        return rc;
    ibr__free(ctx, c->bcnt);
    c->bcnt = NULL;
    c->indexed = 1;
    return 0;
}

/* ---- moving units ----------------------------------------------------- */

/* Move the nu paths gathered in c->path from layer v to layer v + 1 of
   the CDGs. (Walking many paths first, then moving them in one call, lets
   the memory accesses of each phase overlap.) */
static int flush_moves(df *c, unsigned v, size_t nu)
{
    int rc = ibr__cdg_move_paths(c->g, v, v + 1, c->path, c->plen, c->pw, nu);
    return rc == IBR_ENOMEM || rc == 0 ? rc : IBR_EINTERNAL;
}

/* Room in the move buffer for one more path (of n_sw channels at most). */
static int move_room(df *c, unsigned v, size_t *np, size_t *nu)
{
    if (*np + c->t->n_sw <= PATH_CAP(c->t->n_sw) && *nu < UNIT_CAP)
        return 0;
    int rc = flush_moves(c, v, *nu);
    *np = *nu = 0;
    return rc;
}

/* Move every unit of layer v that induces e1 -> e2 to layer v + 1: for
   each destination whose routes hold the dependency, the sources of layer
   v in the subtree of e1's switch a. Their paths all end with a's path to
   the destination, moved once with their summed pairs. Returns 0, 1 when
   v + 1 is beyond the last layer, or a negative error. */
static int move_units(df *c, unsigned v, uint32_t e1, uint32_t e2)
{
    const ibr_topo *t = c->t;
    if (v + 1 >= MAX_LAYERS)
        return 1;
    uint32_t a = c->s->tail[e1];
    size_t dep = dep_of(c, e1, e2), n = t->n_sw, np = 0, nu = 0;
    int rc;
    for (uint32_t j = c->dep_first[dep]; j < c->dep_first[dep + 1]; j++) {
        uint32_t di = c->dep_dest[j];
        uint32_t d = t->lid_sw[c->s->dlid[di]];
        uint8_t *lay = c->layer + (size_t)di * c->nsrc;
        const uint16_t *so = c->srcs + (size_t)di * c->nsrcs_stride;
        uint64_t below = 0; /* pairs of the units moved */
        for (uint32_t q = c->tin[di * n + a], qe = c->tout[di * n + a]; q < qe; q++) {
            uint32_t k = so[q], x = c->srcsw[k];
            if (lay[k] != v)
                continue;
            uint64_t wt = c->s->src_lids[x];
            /* its path up to a, then e1 (a routes di over e1); the rest,
               from a on, is shared by the units below a and moves once */
            if (x != a) {
                if ((rc = move_room(c, v, &np, &nu)) < 0)
                    return rc;
                uint32_t *path = c->path + np, len = 0;
                for (uint32_t y = x; y != a;) {
                    uint32_t e = out_edge(c, y, di);
                    if (e == IBR_NONE || len + 1 == n)
                        return IBR_EINTERNAL;
                    path[len++] = e;
                    y = t->adj[e].sw;
                }
                path[len++] = e1;
                c->plen[nu] = len;
                c->pw[nu++] = wt;
                np += len;
            }
            below += wt;
            lay[k] = (uint8_t)(v + 1);
            c->ppl[v] -= wt;
            c->ppl[v + 1] += wt;
        }
        if (!below)
            continue;
        if ((rc = move_room(c, v, &np, &nu)) < 0)
            return rc;
        uint32_t *path = c->path + np, len = 0;
        for (uint32_t y = a; y != d;) {
            uint32_t e = out_edge(c, y, di);
            if (e == IBR_NONE || len == n)
                return IBR_EINTERNAL;
            path[len++] = e;
            y = t->adj[e].sw;
        }
        c->plen[nu] = len;
        c->pw[nu++] = below;
        np += len;
    }
    return flush_moves(c, v, nu);
}

/* ---- cycle breaking --------------------------------------------------- */

/* Make layer v acyclic. Returns 0, 1 when a cycle needs a layer beyond the
   last, or a negative error. */
static int break_layer(ibr_run *run, df *c, unsigned v)
{
    int rc = ibr__cdg_search_begin(c->g, v);
    while (rc == 0) {
        ibr__cdg_cycle cy;
        if ((rc = ibr__cdg_search_next(c->g, &cy)) < 0 || !cy.len)
            break;
        /* break its lightest edge, the first one from the DFS ancestor on
           ties */
        size_t b = 0;
        for (size_t i = 1; i < cy.len; i++)
            if (cy.w[i] < cy.w[b])
                b = i;
        uint32_t b1 = cy.ch[b], b2 = cy.ch[(b + 1) % cy.len];
        rc = c->indexed ? 0 : index_paths(c);
        if (rc == 0)
            rc = move_units(c, v, b1, b2);
        if (rc == 0 && ibr__cdg_edge_weight(c->g, v, b1, b2) != 0)
            rc = IBR_EINTERNAL;
        if (rc == 0 && (++c->cuts & 255) == 0)
            rc = ibr_run_progress(run, "dfsssp: breaking cycles", v, MAX_LAYERS);
    }
    return rc;
}

/* ---- refinement: fewer layers ------------------------------------------ */

/* Scratch of the refinement. It works on the layers' CDGs of the cycle
   breaking (c->g, the pairs of every unit path), taking units out and
   putting them in; insertions into a layer below the top are checked
   (dynamic topological order), so the layers stay acyclic. */
typedef struct df_refine {
    uint32_t *ch;       /* a unit's channels, n_sw */
    uint32_t *npar;     /* per switch: channel of a candidate tree */
    uint64_t *dist;     /* per switch */
    uint64_t *sub, *subc;
    uint32_t *order;
    uint32_t cnt[257];
    uint32_t nord;
    uint32_t *tent;     /* tentative dependencies, 2 channels each */
    uint8_t *olay;      /* per source: layer before a reroute */
    uint64_t limit;     /* the busiest channel's (end port, LID) pairs */
} df_refine;

/* The channels of unit (x, destination di) into ch; returns their count
   (0: x delivers it or cannot reach it). */
static uint32_t unit_path(const df *c, uint32_t x, uint32_t di, uint32_t *ch)
{
    unsigned lid = c->s->dlid[di];
    uint32_t d = c->t->lid_sw[lid], n = 0;
    for (uint32_t y = x; y != d && n < c->t->n_sw;) {
        uint32_t e = out_edge(c, y, (uint32_t)di);
        if (e == IBR_NONE)
            break;
        ch[n++] = e;
        y = c->t->adj[e].sw;
    }
    return n;
}

/* Add (sign 1) or remove (-1) the routes toward destination di along the
   tree par (indexed by switch; NULL: the LFTs) to the link loads. */
static void tree_account(df *c, df_refine *r, uint32_t di, const uint32_t *par, int sign)
{
    const ibr_topo *t = c->t;
    unsigned lid = c->s->dlid[di];
    uint32_t d = t->lid_sw[lid];
    int ca = t->nodes[t->port_node[t->lid_port[lid]]].type != IBR_NODE_SWITCH;
    for (uint32_t k = 1; k < r->nord; k++) {
        uint32_t y = r->order[k];
        r->sub[y] = c->s->hca[y];
        r->subc[y] = ca ? c->s->eps[y] : 0;
    }
    r->sub[d] = r->subc[d] = 0;
    for (uint32_t k = r->nord; k-- > 1;) {
        uint32_t y = r->order[k];
        uint32_t e = par ? par[y] : out_edge(c, y, (uint32_t)di);
        if (sign > 0) {
            c->s->load[e] += r->sub[y];
            c->s->cl[e] += r->subc[y];
        } else {
            c->s->load[e] -= r->sub[y];
            c->s->cl[e] -= r->subc[y];
        }
        r->sub[t->adj[e].sw] += r->sub[y];
        r->subc[t->adj[e].sw] += r->subc[y];
    }
}

/* Build, in r->npar, a minimal tree toward destination di whose
   dependencies all fit into layer l: switches by increasing distance, each
   taking the least loaded next hop whose dependency on the next hop's own
   channel keeps the layer acyclic. The dependencies stay in the layer as
   r->tent (*ntent pairs). Returns 1 built, 0 impossible, < 0 error. */
static int tree_in_layer(df *c, df_refine *r, uint32_t di, unsigned l, uint32_t *ntent)
{
    const ibr_topo *t = c->t;
    unsigned lid = c->s->dlid[di];
    uint32_t d = t->lid_sw[lid];
    const uint8_t *hr = c->hops + (size_t)d * t->n_sw;
    const uint64_t *load = c->s->load;
    uint32_t cand[256];
    uint64_t cost[256];
    r->dist[d] = 0;
    for (uint32_t k = 1; k < r->nord; k++) {
        uint32_t y = r->order[k], nc = 0;
        unsigned h = hr[y];
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++) {
            if (hr[t->adj[e].sw] + 1u != h)
                continue;
            uint64_t cv = r->dist[t->adj[e].sw] + (c->sq ? load[e] * load[e] >> 6 : load[e]);
            uint32_t i = nc++;
            while (i > 0 && cost[i - 1] > cv) { /* stable: port order on ties */
                cost[i] = cost[i - 1];
                cand[i] = cand[i - 1];
                i--;
            }
            cost[i] = cv;
            cand[i] = e;
        }
        uint32_t pick = IBR_NONE;
        for (uint32_t i = 0; i < nc && pick == IBR_NONE; i++) {
            uint32_t e = cand[i], z = t->adj[e].sw;
            if (z == d) {
                pick = i;
                break;
            }
            uint32_t dep[2] = {e, r->npar[z]};
            int rc = ibr__cdg_add_path(c->g, l, dep, 2, 1, 1);
            if (rc < 0)
                return rc;
            if (rc == 0) {
                r->tent[2 * *ntent] = dep[0];
                r->tent[2 * *ntent + 1] = dep[1];
                (*ntent)++;
                pick = i;
            }
        }
        if (pick == IBR_NONE)
            return 0;
        r->npar[y] = cand[pick];
        r->dist[y] = cost[pick];
    }
    return 1;
}

/* Would the tree r->npar toward a destination delivered at d push a
   channel's (end port, LID) pairs above the limit? */
static int tree_overloads(const df *c, df_refine *r, uint32_t d)
{
    const ibr_topo *t = c->t;
    for (uint32_t k = 1; k < r->nord; k++)
        r->subc[r->order[k]] = c->s->eps[r->order[k]];
    r->subc[d] = 0;
    for (uint32_t k = r->nord; k-- > 1;) {
        uint32_t y = r->order[k], e = r->npar[y];
        if (c->s->cl[e] + r->subc[y] > r->limit)
            return 1;
        r->subc[t->adj[e].sw] += r->subc[y];
    }
    return 0;
}

/* Put unit (source k, destination di) into layer l's graph (unchecked). */
static int unit_in(df *c, df_refine *r, uint32_t k, uint32_t di, unsigned l)
{
    uint32_t len = unit_path(c, c->srcsw[k], di, r->ch);
    if (!len)
        return 0;
    c->ppl[l] += c->s->src_lids[c->srcsw[k]];
    c->layer[(size_t)di * c->nsrc + k] = (uint8_t)l;
    return ibr__cdg_add_path(c->g, l, r->ch, len, c->s->src_lids[c->srcsw[k]], 0);
}

static int unit_out(df *c, df_refine *r, uint32_t k, uint32_t di)
{
    uint32_t len = unit_path(c, c->srcsw[k], di, r->ch);
    if (!len)
        return 0;
    unsigned l = c->layer[(size_t)di * c->nsrc + k];
    c->ppl[l] -= c->s->src_lids[c->srcsw[k]];
    return ibr__cdg_remove_path(c->g, l, r->ch, len, c->s->src_lids[c->srcsw[k]]) < 0
               ? IBR_EINTERNAL
               : 0;
}

/* Route destination di again so that all its paths fit into one layer
   below top (the lowest that works), without raising the busiest link's
   load. Returns 1 when rerouted, 0 when left as it was, < 0 error. */
static int reroute_dest(df *c, df_refine *r, uint32_t di, unsigned top)
{
    const ibr_topo *t = c->t;
    unsigned lid = c->s->dlid[di];
    uint32_t d = t->lid_sw[lid];
    int ca = t->nodes[t->port_node[t->lid_port[lid]]].type != IBR_NODE_SWITCH;
    const uint8_t *lay = c->layer + (size_t)di * c->nsrc;
    r->nord = ibr__hops_level_order(t, c->hops, d, r->order, r->cnt);
    int rc = 0, done = 0;
    for (uint32_t k = 0; k < c->nsrc; k++) {
        r->olay[k] = lay[k];
        if ((rc = unit_out(c, r, k, di)) < 0)
            return rc;
    }
    tree_account(c, r, di, NULL, -1);
    for (unsigned l = 0; l < top && !done && rc == 0; l++) {
        uint32_t ntent = 0;
        rc = tree_in_layer(c, r, di, l, &ntent);
        if (rc == 1 && ca && tree_overloads(c, r, d))
            rc = 0;
        for (uint32_t i = 0; i < ntent; i++)
            if (ibr__cdg_remove_path(c->g, l, r->tent + 2 * i, 2, 1) < 0)
                rc = IBR_EINTERNAL;
        if (rc == 1) {
            uint8_t *row = c->tp + (size_t)di * t->n_sw;
            for (uint32_t k = 1; k < r->nord; k++) {
                uint32_t y = r->order[k];
                row[y] = t->adj[r->npar[y]].port;
            }
            tree_account(c, r, di, r->npar, 1);
            for (uint32_t k = 0; k < c->nsrc && rc >= 0; k++)
                rc = unit_in(c, r, k, di, l);
            done = rc >= 0;
        }
    }
    if (rc < 0)
        return rc;
    if (done)
        return 1;
    tree_account(c, r, di, NULL, 1);
    for (uint32_t k = 0; k < c->nsrc; k++)
        if ((rc = unit_in(c, r, k, di, r->olay[k])) < 0)
            return rc;
    return 0;
}

/* Move the units of layer top into the lowest layer below where their
   paths close no cycle. */
static int compact_top(df *c, df_refine *r, unsigned top)
{
    for (uint32_t di = 0; di < c->s->n_dest; di++) {
        uint8_t *lay = c->layer + (size_t)di * c->nsrc;
        for (uint32_t k = 0; k < c->nsrc; k++) {
            if (lay[k] != top)
                continue;
            uint32_t len = unit_path(c, c->srcsw[k], di, r->ch);
            uint64_t wt = c->s->src_lids[c->srcsw[k]];
            for (unsigned l = 0; l < top; l++) {
                int rc = ibr__cdg_move_path(c->g, top, l, r->ch, len, wt, 1);
                if (rc < 0)
                    return rc == IBR_ENOMEM ? rc : IBR_EINTERNAL;
                if (rc == 0) {
                    c->ppl[top] -= wt;
                    c->ppl[l] += wt;
                    lay[k] = (uint8_t)l;
                    break;
                }
            }
        }
    }
    return 0;
}

static void refine_free(df *c, df_refine *r)
{
    ibr_context *ctx = c->ctx;
    ibr__free(ctx, r->ch);
    ibr__free(ctx, r->npar);
    ibr__free(ctx, r->dist);
    ibr__free(ctx, r->sub);
    ibr__free(ctx, r->subc);
    ibr__free(ctx, r->order);
    ibr__free(ctx, r->tent);
    ibr__free(ctx, r->olay);
    memset(r, 0, sizeof *r);
}

/* Scratch of the refinement; 0 or IBR_ENOMEM (r is then freed). */
static int refine_alloc(df *c, df_refine *r)
{
    ibr_context *ctx = c->ctx;
    size_t ns = c->t->n_sw ? c->t->n_sw : 1;
    memset(r, 0, sizeof *r);
    r->ch = ibr__mallocarray(ctx, ns, sizeof *r->ch);
    r->npar = ibr__mallocarray(ctx, ns, sizeof *r->npar);
    r->dist = ibr__mallocarray(ctx, ns, sizeof *r->dist);
    r->sub = ibr__mallocarray(ctx, ns, sizeof *r->sub);
    r->subc = ibr__mallocarray(ctx, ns, sizeof *r->subc);
    r->order = ibr__mallocarray(ctx, ns, sizeof *r->order);
    r->tent = ibr__mallocarray(ctx, 2 * ns, sizeof *r->tent);
    r->olay = ibr__mallocarray(ctx, c->nsrc ? c->nsrc : 1, 1);
    if (!r->ch || !r->npar || !r->dist || !r->sub || !r->subc || !r->order || !r->tent ||
        !r->olay) {
        refine_free(c, r);
        return IBR_ENOMEM;
    }
    return 0;
}

/* After the cycle breaking: empty the top layer, then the next, first by
   moving its units into lower layers where they fit, then by routing the
   destinations that still have paths in it again, each on a minimal tree
   built inside one lower layer (tree_in_layer); stop at the first layer
   that cannot be emptied. Empty layers are then closed up. The greedy
   cycle breaking often leaves a handful of paths in a last layer; this
   takes those VLs back, and helps where OpenSM's dfsssp runs out of VLs.
   *needed is updated. */
static int refine_layers(ibr_run *run, df *c, unsigned *needed)
{
    const ibr_topo *t = c->t;
    unsigned n = *needed;
    if (n < 2)
        return 0;
    df_refine r;
    int rc = refine_alloc(c, &r);
    if (rc < 0)
        goto out;
    /* checked insertions need a topological order of each layer, and
       every layer must be acyclic here */
    for (unsigned l = 0; l < n; l++)
        if ((rc = ibr__cdg_order(c->g, l)) != 0) {
            if (rc > 0)
                rc = IBR_EINTERNAL;
            goto out;
        }
    for (uint32_t e = 0; e < t->n_adj; e++)
        if (c->s->cl[e] > r.limit)
            r.limit = c->s->cl[e];
    while (n > 1) {
        unsigned top = n - 1;
        if ((rc = compact_top(c, &r, top)) < 0)
            goto out;
        for (uint32_t di = 0; di < c->s->n_dest && c->ppl[top]; di++) {
            const uint8_t *lay = c->layer + (size_t)di * c->nsrc;
            uint32_t k = 0;
            while (k < c->nsrc && lay[k] != top)
                k++;
            if (k == c->nsrc)
                continue;
            if ((rc = ibr_run_progress(run, "dfsssp: fewer layers", top, MAX_LAYERS)) < 0 ||
                (rc = reroute_dest(c, &r, di, top)) < 0)
                goto out;
        }
        if (c->ppl[top])
            break;
        n--;
    }
    /* close up layers left empty */
    unsigned map[MAX_LAYERS], m = 0;
    for (unsigned l = 0; l < n; l++) {
        map[l] = m;
        if (c->ppl[l] || l == 0)
            c->ppl[m++] = c->ppl[l];
    }
    if (m < n) {
        size_t nu = (size_t)c->s->n_dest * c->nsrc;
        for (size_t i = 0; i < nu; i++)
            c->layer[i] = (uint8_t)map[c->layer[i]];
        for (unsigned l = m; l < n; l++)
            c->ppl[l] = 0;
        n = m;
    }
    rc = 0;
out:
    refine_free(c, &r);
    *needed = n;
    return rc;
}

/* ---- layering unit by unit -------------------------------------------- */

/* Place switch y's unit toward the destination at switch d: the first
   of the candidate first hops cand[0 .. nc - 1] (cheapest first) whose
   path, with the rest of the way r->npar, keeps one of the layers lo ..
   hi - 1 acyclic (the lowest such), added there. Returns 0 with *pick
   and *layer, 1 when none fits, < 0 error. */
static int unit_place(df *c, df_refine *r, uint32_t y, uint32_t d, const uint32_t *cand,
                      uint32_t nc, unsigned lo, unsigned hi, uint32_t *pick, unsigned *layer)
{
    const ibr_topo *t = c->t;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t len = 0;
        r->ch[len++] = cand[i];
        for (uint32_t z = t->adj[cand[i]].sw; z != d; z = t->adj[r->npar[z]].sw)
            r->ch[len++] = r->npar[z];
        for (unsigned l = lo; l < hi; l++) {
            int rc = ibr__cdg_add_path(c->g, l, r->ch, len, c->s->src_lids[y], 1);
            if (rc != 1) {
                *pick = i;
                *layer = l;
                return rc;
            }
        }
    }
    return 1;
}

/* Does candidate hop e at cost cv go before e2 at cv2? In dimension
   order (c->rank) the earlier dimension first (c->rev: the later one;
   links without a place last either way), the cost on ties (parallel
   cables); else the cost alone (stable: port order on ties). */
static inline int cand_before(const df *c, uint64_t cv, uint32_t e, uint64_t cv2, uint32_t e2)
{
    if (c->rank && c->rank[e] != c->rank[e2]) {
        uint32_t a = c->rank[e], b = c->rank[e2];
        if (c->rev && a != UINT32_MAX && b != UINT32_MAX)
            return a > b;
        return a < b;
    }
    return cv < cv2;
}

#define TURN_LAST (UINT64_C(1) << 62) /* cost mark of a hop the turn rule puts last */

/* Does hop e, followed by the rest of the way r->npar toward the switch
   d, turn from a hop of the later senses to one of the first (c->turn,
   the set of first senses, as turn_rules)? A rule whose first senses and
   whose later ones each leave out a sense of some dimension leaves a mesh
   no cycle of dependencies among minimal paths, and a choice of hops
   wherever the way goes in several senses of one set. */
static int turn_forbidden(const df *c, const df_refine *r, uint32_t e, uint32_t d)
{
    uint32_t z = c->t->adj[e].sw;
    if (z == d)
        return 0;
    unsigned a = c->maxis[e], b = c->maxis[r->npar[z]];
    if (!a || !b)
        return 0;
    /* maxis a - 1 is the sense's bit in c->turn (odd a: "+") */
    unsigned m = (unsigned)c->turn, da = (a - 1) / 2, db = (b - 1) / 2;
    int afirst = da < 2 ? (m >> (a - 1)) & 1 : !(a & 1);
    int bfirst = db < 2 ? (m >> (b - 1)) & 1 : !(b & 1);
    return !afirst && bfirst;
}

/* Do destinations di and dj (behind the same switch d) take the same
   channels from switch y? */
static int same_path(const df *c, uint32_t y, uint32_t d, uint32_t di, uint32_t dj)
{
    const uint8_t *a = c->tp + (size_t)di * c->t->n_sw, *b = c->tp + (size_t)dj * c->t->n_sw;
    for (uint32_t z = y, k = 0; z != d && k < c->t->n_sw; k++) {
        uint32_t e = out_edge(c, z, di);
        if (a[z] != b[z] || e == IBR_NONE)
            return 0;
        z = c->t->adj[e].sw;
    }
    return 1;
}

/* Lay out destination di's units again (r->order: its switches by
   distance). Each switch, nearest first, takes a minimal next hop, its
   candidates ordered by cost (the loads along the way, as tree_in_layer),
   and its unit goes with it into a layer the path keeps acyclic (the
   rest of the way is already fixed): the cheapest hop that fits one of
   the layers below spread (the lowest such), else the lowest layer above
   that takes a hop, the cheapest there. A switch without end ports takes
   the cheapest hop. Nothing that passes the switch has been placed yet,
   so its hop is free to change (c->fixed: it keeps its hop, only its
   layer is chosen). Returns 0, 1 when a unit fits in no
   layer, < 0 error. */
static int units_of_dest(df *c, df_refine *r, uint32_t di, unsigned avail,
                         unsigned spread, unsigned *n)
{
    const ibr_topo *t = c->t;
    uint32_t d = t->lid_sw[c->s->dlid[di]];
    const uint8_t *hr = c->hops + (size_t)d * t->n_sw;
    uint8_t *row = c->tp + (size_t)di * t->n_sw, *lay = c->layer + (size_t)di * c->nsrc;
    uint32_t cand[256];
    uint64_t cost[256];
    tree_account(c, r, di, NULL, -1);
    r->dist[d] = 0;
    for (uint32_t k = 1; k < r->nord; k++) {
        uint32_t y = r->order[k], nc = 0, fe = c->fixed ? out_edge(c, y, di) : IBR_NONE;
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++) {
            if (hr[t->adj[e].sw] + 1u != hr[y] || (c->fixed && e != fe))
                continue;
            uint64_t cv = r->dist[t->adj[e].sw] + c->s->load[e];
            if (c->turn) /* the busier links weigh more */
                cv = r->dist[t->adj[e].sw] + (c->s->load[e] * c->s->load[e] >> 6) +
                     (turn_forbidden(c, r, e, d) ? TURN_LAST : 0);
            uint32_t i = nc++;
            while (i > 0 && cand_before(c, cv, e, cost[i - 1], cand[i - 1])) {
                cost[i] = cost[i - 1];
                cand[i] = cand[i - 1];
                i--;
            }
            cost[i] = cv;
            cand[i] = e;
        }
        if (!nc)
            return IBR_EINTERNAL;
        uint32_t pick = 0, ks = c->srcidx[y];
        if (ks != IBR_NONE) {
            unsigned l = 0, from = spread;
            int rc = 1;
            /* routes kept: a path laid out before (another LID behind d)
               fits no layer below the one it took, which only gained
               dependencies since, and fits that one */
            uint32_t dj = c->fixed ? c->prevd[d] : IBR_NONE;
            if (dj != IBR_NONE && same_path(c, y, d, di, dj))
                from = c->layer[(size_t)dj * c->nsrc + ks];
            if (spread) /* the cheapest hop that fits one of them */
                rc = unit_place(c, r, y, d, cand, nc, 0, spread, &pick, &l);
            /* else the lowest layer above that takes a hop, the cheapest
               there */
            for (unsigned v = from; v < avail && rc == 1; v++)
                rc = unit_place(c, r, y, d, cand, nc, v, v + 1, &pick, &l);
            if (rc != 0)
                return rc;
            lay[ks] = (uint8_t)l;
            c->ppl[l] += c->s->src_lids[y];
            if (l + 1 > *n)
                *n = l + 1;
        }
        r->npar[y] = cand[pick];
        r->dist[y] = cost[pick] & ~TURN_LAST;
        row[y] = t->adj[cand[pick]].port;
    }
    tree_account(c, r, di, NULL, 1);
    if (c->fixed)
        c->prevd[d] = di;
    return 0;
}

/* One pass of the layering unit by unit (units_of_dest) into avail
   layers, destination by destination, from the routes and loads the cycle
   breaking left. Returns 0 with *needed set, 1 when some unit fits in no
   layer, < 0 error. */
static int layer_by_units(ibr_run *run, df *c, unsigned avail, unsigned spread,
                          unsigned *needed)
{
    const ibr_topo *t = c->t;
    ibr__cdg_destroy(c->g);
    c->g = c->w[0].acc = NULL;
    int rc = ibr__cdg_create_topo(&c->g, t, avail);
    if (rc < 0)
        return rc;
    memset(c->layer, 0, (size_t)c->s->n_dest * c->nsrc);
    memset(c->ppl, 0, sizeof c->ppl);
    /* every pass starts from the routes and loads of the cycle breaking */
    size_t ntp = (size_t)c->s->n_dest * t->n_sw, nch = t->n_adj ? t->n_adj : 1;
    if (!c->tp0) {
        c->tp0 = ibr__mallocarray(c->ctx, ntp + 1, 1);
        c->load0 = ibr__mallocarray(c->ctx, nch, sizeof *c->load0);
        c->cl0 = ibr__mallocarray(c->ctx, nch, sizeof *c->cl0);
        if (!c->tp0 || !c->load0 || !c->cl0)
            return IBR_ENOMEM;
        memcpy(c->tp0, c->tp, ntp);
        memcpy(c->load0, c->s->load, nch * sizeof *c->load0);
        memcpy(c->cl0, c->s->cl, nch * sizeof *c->cl0);
    } else {
        memcpy(c->tp, c->tp0, ntp);
        memcpy(c->s->load, c->load0, nch * sizeof *c->load0);
        memcpy(c->s->cl, c->cl0, nch * sizeof *c->cl0);
    }
    df_refine r;
    if ((rc = refine_alloc(c, &r)) < 0)
        return rc;
    unsigned n = 1;
    for (uint32_t di = 0; di < c->s->n_dest && rc == 0; di++) {
        uint32_t d = t->lid_sw[c->s->dlid[di]];
        r.nord = ibr__hops_level_order(t, c->hops, d, r.order, r.cnt);
        if ((rc = units_of_dest(c, &r, di, avail, spread, &n)) == 0 && (di & 63) == 0)
            rc = ibr_run_progress(run, "dfsssp: layers unit by unit", di, c->s->n_dest);
    }
    refine_free(c, &r);
    *needed = n;
    return rc;
}

/* When the cycle breaking needs more layers than the VLs available: lay
   the paths out again unit by unit, first spread over the lower half of
   the VLs (a unit that fits none of them takes the lowest layer above
   that admits it), for balance; while that does not fit, over a quarter,
   an eighth, ..., and last packed into the lowest layers, which needs the
   fewest. Returns 0 with *needed (the layers used), 1 when some unit fits
   in no layer, < 0 error. */
static int relayer(ibr_run *run, df *c, unsigned avail, unsigned *needed)
{
    int rc;
    for (unsigned spread = (avail + 1) / 2;; spread /= 2)
        if ((rc = layer_by_units(run, c, avail, spread, needed)) != 1 || spread == 0)
            return rc;
}

/* ---- dimension order ---------------------------------------------------- */

/* A hypercube beyond mesh analysis's dimensions: 2^k switches, each with
   k neighbour switches, labelled from switch 0 (its neighbours, in port
   order, are the k unit vectors; a switch at distance h is the union of
   its neighbours at distance h - 1, which must have h bits); it is one
   when the labels are distinct and every cable joins labels one bit
   apart. Then a channel's rank is that bit: dimension order (e-cube) is
   lowest bit first. Leaves c->mrank NULL otherwise. 0 or IBR_ENOMEM. */
static int cube_ranks(df *c)
{
    const ibr_topo *t = c->t;
    uint32_t n = t->n_sw, k = 0;
    while (k < 31 && (1u << k) < n)
        k++;
    if (n < 4 || (1u << k) != n)
        return 0;
    uint32_t *label = ibr__mallocarray(c->ctx, n, sizeof *label);
    uint32_t *order = ibr__mallocarray(c->ctx, n, sizeof *order);
    uint8_t *seen = ibr__calloc(c->ctx, n, 1);
    uint32_t cnt[257];
    int rc = IBR_ENOMEM;
    if (!label || !order || !seen)
        goto out;
    rc = 0;
    const uint8_t *hr = c->hops; /* distances to switch 0 */
    uint32_t nord = ibr__hops_level_order(t, c->hops, 0, order, cnt), nb = 0;
    if (nord != n)
        goto out;
    label[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t y = order[i], l = 0;
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++) {
            uint32_t z = t->adj[e].sw;
            if (hr[z] + 1u == hr[y])
                l |= z == 0 ? 0 : label[z];
        }
        if (hr[y] == 1)
            l = nb < k ? 1u << nb++ : 0;
        if ((unsigned)__builtin_popcount(l) != hr[y] || seen[l])
            goto out;
        seen[l] = 1;
        label[y] = l;
    }
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++)
            if (__builtin_popcount(label[x] ^ label[t->adj[e].sw]) != 1)
                goto out;
    if (!(c->mrank = ibr__mallocarray(c->ctx, t->n_adj + 1, sizeof *c->mrank))) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++)
            c->mrank[e] = (uint32_t)__builtin_ctz(label[x] ^ label[t->adj[e].sw]);
    snprintf(c->shape, sizeof c->shape, "%u-cube", k);
    c->whole = 1;
out:
    ibr__free(c->ctx, label);
    ibr__free(c->ctx, order);
    ibr__free(c->ctx, seen);
    return rc;
}

/* When LASH's mesh analysis (lash/mesh.h) recognises a mesh, torus or
   hypercube in the switch graph, c->mrank gets every channel's place in
   its switch's dimension order (parallel cables share it), the order in
   which a "first link one hop closer" route is dimension-order routing;
   else, on a hypercube it does not cover, e-cube order (cube_ranks).
   Otherwise c->mrank stays NULL. 0 or IBR_ENOMEM. */
static int mesh_ranks(df *c)
{
    const ibr_topo *t = c->t;
    ibr_context *ctx = c->ctx;
    uint32_t n = t->n_sw;
    uint32_t *off = ibr__calloc(ctx, (size_t)n + 1, sizeof *off);
    uint32_t *nbr = ibr__mallocarray(ctx, t->n_adj + 1, sizeof *nbr);
    uint32_t *lidx = ibr__mallocarray(ctx, t->n_adj + 1, sizeof *lidx);
    uint32_t *perm = ibr__mallocarray(ctx, t->n_adj + 1, sizeof *perm);
    uint32_t *num = ibr__mallocarray(ctx, (size_t)n + 1, sizeof *num);
    uint32_t *pos = ibr__mallocarray(ctx, (size_t)n + 1, sizeof *pos);
    uint8_t *axis = ibr__calloc(ctx, t->n_adj + 1, 1);
    int rc = IBR_ENOMEM;
    if (!off || !nbr || !lidx || !perm || !num || !pos || !axis)
        goto out;
    /* logical links: one per neighbour switch, in the order of the first
       cable reaching it (as LASH builds them) */
    for (uint32_t x = 0; x < n; x++)
        pos[x] = IBR_NONE;
    for (uint32_t x = 0; x < n; x++) {
        uint32_t k = off[x];
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            uint32_t y = t->adj[e].sw;
            lidx[e] = IBR_NONE;
            if (y == x)
                continue;
            if (pos[y] == IBR_NONE) {
                pos[y] = k;
                nbr[k++] = y;
            }
            lidx[e] = pos[y] - off[x];
        }
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++)
            pos[t->adj[e].sw] = IBR_NONE;
        off[x + 1] = k;
    }
    ibr__mesh_info info;
    memset(&info, 0, sizeof info);
    if ((rc = ibr__mesh_analyze_geometry(ctx, n, off, nbr, IBR__MESH_GUARD_AXES, perm, num,
                                         &info, axis, NULL)) < 0)
        goto out;
    rc = 0;
    if (!info.recognised) {
        rc = cube_ranks(c);
        goto out;
    }
    snprintf(c->shape, sizeof c->shape, "%s", info.shape);
    uint64_t cells = 1;
    for (unsigned d = 0; d < info.dims && d < 8; d++)
        cells *= info.size[d];
    c->whole = info.placed == n && info.axis_links == off[n] && cells == n;
    /* perm[k] (k in x's row): the original link that comes (k - off[x])-th;
       its inverse goes into nbr, not needed any more */
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t k = off[x]; k < off[x + 1]; k++)
            nbr[off[x] + perm[k]] = k - off[x];
    c->mrank = ibr__mallocarray(ctx, t->n_adj + 1, sizeof *c->mrank);
    c->maxis = ibr__calloc(ctx, t->n_adj + 1, 1);
    if (!c->mrank || !c->maxis) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            c->mrank[e] = lidx[e] == IBR_NONE ? UINT32_MAX : nbr[off[x] + lidx[e]];
            if (lidx[e] != IBR_NONE)
                c->maxis[e] = axis[off[x] + lidx[e]];
        }
out:
    ibr__free(ctx, axis);
    ibr__free(ctx, off);
    ibr__free(ctx, nbr);
    ibr__free(ctx, lidx);
    ibr__free(ctx, perm);
    ibr__free(ctx, num);
    ibr__free(ctx, pos);
    return rc;
}

/* ---- SLs -------------------------------------------------------------- */

static inline unsigned unit_sl(const df *c, unsigned layer, uint32_t di, uint32_t pidx)
{
    return c->start[layer] + (unsigned)((di + pidx) % c->split[layer]);
}

/* Row of end port i: SLs toward every destination. */
static int fill_end_row(void *arg, unsigned wi, size_t i)
{
    df *c = arg;
    const ibr_topo *t = c->t;
    if (c->pidx[i] == IBR_NONE)
        return 0;
    const ibr__port *pt = &t->ports[t->end_port[i]];
    uint32_t x = t->nodes[pt->remote_node].sw;
    uint32_t k = c->srcidx[x];
    uint8_t *row = ibr_run_sl_row(c->run, t->ports[t->end_port[i]].lid);
    uint16_t mask = 0;
    for (uint32_t di = 0; di < c->s->n_dest; di++) {
        unsigned sl = unit_sl(c, c->layer[(size_t)di * c->nsrc + k], di, c->pidx[i]);
        row[c->s->dlid[di]] = (uint8_t)sl;
        mask |= (uint16_t)(1u << sl);
    }
    c->w[wi].slmask |= mask;
    return 0;
}

/* Column of destination di in the switch rows. */
static int fill_switch_col(void *arg, unsigned wi, size_t di)
{
    df *c = arg;
    df_worker *w = &c->w[wi];
    const ibr_topo *t = c->t;
    unsigned lid = c->s->dlid[di];
    uint32_t d = t->lid_sw[lid];
    const uint8_t *lay = c->layer + di * c->nsrc;
    for (uint32_t y = 0; y < t->n_sw; y++)
        w->cover[y] = -1;
    for (uint32_t k = 0; k < c->nsrc; k++) {
        uint32_t x = c->srcsw[k];
        unsigned sl = unit_sl(c, lay[k], (uint32_t)di, 0);
        if (c->swrow[x])
            c->swrow[x][lid] = (uint8_t)sl;
        if (x == d || c->tp[di * t->n_sw + x] == IBR_NO_ROUTE)
            continue;
        for (uint32_t e = out_edge(c, x, (uint32_t)di); e != IBR_NONE;) {
            uint32_t y = t->adj[e].sw;
            if (y == d || w->cover[y] >= 0)
                break;
            w->cover[y] = (int16_t)sl;
            e = out_edge(c, y, (uint32_t)di);
        }
    }
    for (uint32_t y = 0; y < t->n_sw; y++)
        if (c->srcidx[y] == IBR_NONE && c->swrow[y])
            c->swrow[y][lid] = (uint8_t)(w->cover[y] >= 0 ? (unsigned)w->cover[y] : c->start[0]);
    return 0;
}

/* The layer shared by every path to destination di, or -1 if they differ. */
static int common_layer(const df *c, uint32_t di)
{
    const ibr_topo *t = c->t;
    unsigned lid = c->s->dlid[di];
    uint32_t d = t->lid_sw[lid];
    const uint8_t *lay = c->layer + (size_t)di * c->nsrc;
    int l = -1;
    for (uint32_t k = 0; k < c->nsrc; k++) {
        uint32_t x = c->srcsw[k];
        if (x == d || c->tp[(size_t)di * t->n_sw + x] == IBR_NO_ROUTE)
            continue;
        if (l < 0)
            l = lay[k];
        else if (l != lay[k])
            return -1;
    }
    return l < 0 ? 0 : l;
}

static int assign_sls(ibr_run *run, df *c)
{
    const ibr_topo *t = c->t;
    const ibr__sssp *s = c->s;
    int rc = 0;
    int per_dest = 1;
    /* each destination's common layer, kept for the SLs below */
    uint8_t *dl = ibr__mallocarray(c->ctx, s->n_dest, 1);
    if (!dl)
        return IBR_ENOMEM;
    for (uint32_t di = 0; di < s->n_dest && per_dest; di++) {
        int l = common_layer(c, di);
        per_dest = l >= 0;
        dl[di] = (uint8_t)l;
    }
    if (per_dest) {
        uint16_t mask = 0;
        for (uint32_t di = 0; di < s->n_dest && rc == 0; di++) {
            unsigned sl = unit_sl(c, dl[di], di, 0);
            mask |= (uint16_t)(1u << sl);
            rc = ibr_run_set_dest_sl(run, s->dlid[di], sl);
        }
        ibr__free(c->ctx, dl);
        c->w[0].slmask |= mask;
        return rc;
    }
    ibr__free(c->ctx, dl);
    /* per pair: rows of every source port, filled in parallel */
    if ((rc = ibr_run_set_sl_mode(run, IBR_SL_PER_PAIR)) < 0)
        return rc;
    c->swrow = ibr__mallocarray(c->ctx, t->n_sw ? t->n_sw : 1, sizeof *c->swrow);
    if (!c->swrow)
        return IBR_ENOMEM;
    for (uint32_t x = 0; x < t->n_sw; x++) {
        uint16_t lid = t->ports[t->nodes[t->sw_node[x]].port_off].lid;
        c->swrow[x] = lid ? ibr_run_sl_row(run, lid) : NULL;
    }
    c->pidx = ibr__mallocarray(c->ctx, t->n_end ? t->n_end : 1, sizeof *c->pidx);
    uint32_t *endidx = ibr__mallocarray(c->ctx, t->n_ports ? t->n_ports : 1, sizeof *endidx);
    if (!c->pidx || !endidx) {
        ibr__free(c->ctx, endidx);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < t->n_ports; i++)
        endidx[i] = IBR_NONE;
    for (uint32_t i = 0; i < t->n_end; i++) {
        endidx[t->end_port[i]] = i;
        c->pidx[i] = IBR_NONE;
    }
    for (uint32_t x = 0; x < t->n_sw; x++) {
        const ibr__node *sn = &t->nodes[t->sw_node[x]];
        uint32_t k = 0;
        for (unsigned p = 1; p <= sn->nports; p++) {
            const ibr__port *pt = &t->ports[sn->port_off + p];
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
                continue;
            uint32_t i = endidx[t->nodes[pt->remote_node].port_off + pt->remote_port];
            if (i != IBR_NONE && c->srcidx[x] != IBR_NONE)
                c->pidx[i] = k++;
        }
    }
    ibr__free(c->ctx, endidx);
    if ((rc = ibr_run_parallel_for(run, t->n_end, fill_end_row, c)) < 0)
        return rc;
    return ibr_run_parallel_for(run, s->n_dest, fill_switch_col, c);
}

/* Spread the layers over the available VLs: each spare VL to the layer
   with the most pairs per VL (ties: the lowest). */
static void spread_vls(df *c, unsigned needed, unsigned avail)
{
    for (unsigned l = 0; l < needed; l++)
        c->split[l] = 1;
    for (unsigned spare = avail - needed; spare > 0; spare--) {
        unsigned best = 0;
        for (unsigned l = 1; l < needed; l++)
            if (c->ppl[l] * c->split[best] > c->ppl[best] * c->split[l])
                best = l;
        c->split[best]++;
    }
    for (unsigned l = 1; l < needed; l++)
        c->start[l] = c->start[l - 1] + c->split[l - 1];
}

/* The busiest channel's (end port, LID) pairs, the verifier's link load. */
static uint64_t busiest(const df *c)
{
    uint64_t b = 0;
    for (uint32_t e = 0; e < c->t->n_adj; e++)
        if (c->s->cl[e] > b)
            b = c->s->cl[e];
    return b;
}

/* Lower the busiest link within the n layers laid out: sweep after
   sweep over the destinations, each is routed again on a minimal tree
   inside one layer (reroute_dest: the lowest that takes it, the least
   loaded hops whose dependencies keep that layer acyclic), kept when no
   link then carries more pairs than the busiest did; stop when a sweep
   does not lower it. Every layer must be acyclic with its topological
   order kept (checked insertions). 0 or an error. */
static int balance_layers(ibr_run *run, df *c, unsigned n)
{
    df_refine r;
    int rc = refine_alloc(c, &r);
    if (rc < 0)
        return rc;
    for (unsigned l = 0; l < n && rc == 0; l++)
        if ((rc = ibr__cdg_order(c->g, l)) > 0)
            rc = IBR_EINTERNAL;
    uint64_t before = UINT64_MAX;
    for (unsigned sweep = 0; sweep < BALANCE_SWEEPS && rc >= 0; sweep++) {
        if ((r.limit = busiest(c)) >= before)
            break;
        before = r.limit;
        rc = ibr_run_progress(run, "dfsssp: balance", sweep, BALANCE_SWEEPS);
        for (uint32_t di = 0; di < c->s->n_dest && rc >= 0; di++)
            rc = reroute_dest(c, &r, di, n);
    }
    /* drain: only trees that stay below the busiest load are kept */
    uint64_t bc = UINT64_MAX;
    for (unsigned sweep = 0; sweep < BALANCE_SWEEPS && rc >= 0; sweep++) {
        uint64_t b = busiest(c), cnt = 0;
        for (uint32_t e = 0; e < c->t->n_adj; e++)
            cnt += c->s->cl[e] == b;
        if (b == 0 || (b == before && cnt >= bc))
            break;
        before = b;
        bc = cnt;
        r.limit = b - 1;
        for (uint32_t di = 0; di < c->s->n_dest && rc >= 0; di++)
            rc = reroute_dest(c, &r, di, n);
    }
    refine_free(c, &r);
    return rc < 0 ? rc : 0;
}

/* The turn rules tried (c->turn), as the set of first senses of the two
   lowest dimensions (bit 2d: "+d", bit 2d + 1: "-d"; higher dimensions:
   "-" first): negative-first with the first axis mirrored, and with both;
   one sense first ("+x", as west-first with the axis mirrored); one sense
   last ("-x", as north-last turned); then the other mirrors and turns of
   the three. Which spreads the detours around a hole best depends on
   where the hole is. Each
   splits the four senses into first and later ones, none holding both
   senses of both dimensions, so a mesh's minimal paths that never turn
   from a later sense into a first one close no cycle. */
static const uint8_t turn_rules[] = {9, 5, 1, 13, 10, 6, 2, 4, 8, 14, 11, 7};
#define NTURN (sizeof turn_rules / sizeof *turn_rules)

/* One layout in dimension order (c->rev 1: reversed), or by load under
   the turn rule turn_rules[c->rev - 2] (c->rev >= 2), spread over the lower half of
   the VLs (packed when that does not fit), or packed into avail layers
   (packed); on a damaged shape balanced (balance_layers; by load: with
   the load squared as a link's weight). As dim_layout. */
static int dim_pass(ibr_run *run, df *c, unsigned avail, int packed, unsigned *needed)
{
    c->rank = c->rev >= 2 ? NULL : c->mrank;
    c->turn = c->rev >= 2 ? turn_rules[c->rev - 2] : 0;
    int rc = layer_by_units(run, c, avail, packed ? 0 : (avail + 1) / 2, needed);
    c->turn = 0;
    if (rc == 1 && !packed)
        rc = layer_by_units(run, c, avail, 0, needed);
    c->rank = NULL;
    c->sq = c->rev >= 2;
    if (rc == 0 && !c->whole)
        rc = balance_layers(run, c, *needed);
    c->sq = 0;
    return rc;
}

/* Lay the paths out unit by unit in dimension order (c->mrank): each
   unit takes its first hop in dimension order that fits one of the lower
   half of the VLs (the lowest such), else the lowest layer above that
   takes one; when that does not fit, every unit is packed into the
   lowest layer that takes it. On a damaged shape the detours around the
   hole crowd onto a few links, and which order spreads them better
   depends on where the hole is: both the analysis's order and its
   reverse are laid out and balanced; the spreading for balance may use
   more layers than the detours need (lash, with its one route per
   switch pair, then needs fewer), so both orders are also packed into
   fewer layers than the better spread one needs, and unless the best
   so far is within 10 % of sssp's busiest link, laid out by load under
   the turn rules (c->rev 2 + i: turn_rules[i]) one after the other until
   the best is, packed into the fewest layers found (kept with fewer
   layers only within 10 % of the best's busiest link). The
   layout with the fewest layers, then the lowest busiest link, is kept
   (the first of equals). Returns 0 with *needed, 1 when some
   unit fits in no layer, < 0 error. */
static int dim_layout(ibr_run *run, df *c, unsigned avail, unsigned *needed)
{
    int rc;
    if (c->dl_done) { /* laid out again: the pass chosen before */
        if (!c->dl_fit)
            return 1;
        c->rev = c->dl_rev;
        rc = dim_pass(run, c, c->dl_cap, c->dl_pack, needed);
        return rc == 1 ? IBR_EINTERNAL : rc;
    }
    c->rev = 0;
    rc = dim_pass(run, c, avail, 0, needed);
    if (rc >= 0) {
        c->dl_done = 1;
        c->dl_fit = rc == 0;
        c->dl_rev = c->dl_pack = 0;
        c->dl_cap = avail;
    }
    if (rc < 0 || c->whole)
        return rc;
    /* the best so far: its layers, busiest link, order, packed; and the
       last pass run (what the state holds) */
    unsigned bn = rc == 0 ? *needed : avail + 1, bcap = avail, n = 0;
    uint64_t bb = busiest(c);
    int brev = 0, bpack = 0, lrev = 0, lpack = 0;
    for (int k = 1; k < 4 + (int)NTURN; k++) {
        int rev = k < 4 ? k & 1 : k - 2, pack = k < 4 ? k >> 1 : 1;
        if (k == 4)
            c->dimlayers = bn;
        if (k >= 4 && bb * 10 <= c->sbusy * 11)
            break; /* within 10 % of sssp's routes already */
        unsigned cap = pack ? (bn > avail ? avail : bn - (k < 4)) : avail;
        if (cap == 0)
            continue;
        c->rev = rev;
        if ((rc = dim_pass(run, c, cap, pack, &n)) < 0)
            return rc;
        lrev = rev;
        lpack = pack;
        uint64_t b = busiest(c);
        /* by load: fewer layers only within 10 % of the busiest link */
        if (rc == 0 && (n < bn || (n == bn && b < bb)) && (k < 4 || n == bn || b * 10 <= bb * 11)) {
            bn = n;
            bb = b;
            bcap = cap;
            brev = rev;
            bpack = pack;
        }
    }
    c->dl_fit = bn <= avail;
    c->dl_rev = brev;
    c->dl_pack = bpack;
    c->dl_cap = bcap;
    if (bn > avail)
        return 1;
    *needed = bn;
    if (brev == lrev && bpack == lpack)
        return 0;
    c->rev = brev;
    rc = dim_pass(run, c, bcap, bpack, needed);
    return rc == 1 ? IBR_EINTERNAL : rc;
}

/* Back to sssp's routes and loads (kept by the first layer_by_units),
   every unit in layer 0 of fresh CDGs. The copy moves aside (c->stp), so
   that a layering unit by unit of OpenSM's way starts from its own
   routes, as it does without dimension order. */
static int restore_sssp(df *c)
{
    size_t nch = c->t->n_adj ? c->t->n_adj : 1;
    memcpy(c->tp, c->tp0, (size_t)c->s->n_dest * c->t->n_sw);
    memcpy(c->s->load, c->load0, nch * sizeof *c->load0);
    memcpy(c->s->cl, c->cl0, nch * sizeof *c->cl0);
    c->stp = c->tp0;
    c->sload = c->load0;
    c->scl = c->cl0;
    c->tp0 = NULL;
    c->load0 = c->cl0 = NULL;
    memset(c->layer, 0, (size_t)c->s->n_dest * c->nsrc);
    return build_layer0(c);
}

/* The copy of sssp's routes back as the start of layer_by_units. */
static void sssp_start(df *c)
{
    ibr__free(c->ctx, c->tp0);
    ibr__free(c->ctx, c->load0);
    ibr__free(c->ctx, c->cl0);
    c->tp0 = c->stp;
    c->load0 = c->sload;
    c->cl0 = c->scl;
    c->stp = NULL;
    c->sload = c->scl = NULL;
}

/* OpenSM's cycle breaking and ibroute's compaction, and when they need
   more than the avail VLs, the layering unit by unit (not when a
   dimension order fits, dim: that is taken instead). Returns 0 with
   *needed, 1 when nothing fits (*needed: the layers the cycle breaking
   needed, MAX_LAYERS + 1 beyond the last), or an error. */
static int opensm_layers(ibr_run *run, df *c, unsigned avail, int dim, unsigned *needed)
{
    int rc;
    /* break the cycles layer by layer */
    int beyond = 0; /* the cycle breaking ran out of layers */
    for (unsigned v = 0; v < MAX_LAYERS && (v == 0 || ibr__cdg_edge_count(c->g, v)); v++) {
        if ((rc = break_layer(run, c, v)) == 1) {
            beyond = 1;
            break;
        }
        if (rc < 0)
            return rc;
    }
    /* the index is not needed any more, the CDGs after the refinement */
    ibr__free(c->ctx, c->tin);
    ibr__free(c->ctx, c->tout);
    ibr__free(c->ctx, c->srcs);
    ibr__free(c->ctx, c->dep_dest);
    c->tin = c->tout = c->srcs = NULL;
    c->dep_dest = NULL;
    unsigned greedy = MAX_LAYERS + 1;
    *needed = greedy;
    if (!beyond) {
        *needed = 1;
        for (unsigned l = 0; l < MAX_LAYERS; l++)
            if (c->ppl[l])
                *needed = l + 1;
        greedy = *needed;
        if ((rc = refine_layers(run, c, needed)) < 0)
            return rc;
        ibr__log(c->ctx, IBR_LOG_INFO,
                 "dfsssp: %u virtual layers needed (%u before compaction), %u VLs available, "
                 "%" PRIu64 " cycles broken", *needed, greedy, avail, c->cuts);
    } else {
        ibr__log(c->ctx, IBR_LOG_INFO,
                 "dfsssp: more than %d virtual layers needed by the cycle breaking, %u VLs "
                 "available, %" PRIu64 " cycles broken", MAX_LAYERS, avail, c->cuts);
    }
    if (*needed > avail && dim)
        return 1; /* the dimension order that fits is taken instead */
    if (*needed > avail) {
        /* OpenSM's way does not fit: lay the paths out again unit by
           unit (the tables change only here) */
        unsigned cut = *needed;
        if ((rc = relayer(run, c, avail, needed)) < 0)
            return rc;
        if (rc == 1) {
            *needed = cut;
            return 1;
        }
        ibr__log(c->ctx, IBR_LOG_INFO,
                 "dfsssp: %u virtual layers needed unit by unit, %u VLs available",
                 *needed, avail);
    }
    return 0;
}

/* When OpenSM's way fits in more than one layer: its routes kept, each
   unit (destination by destination, switches nearest first, as lash
   takes its paths) goes into the lowest layer its path keeps acyclic,
   within one layer fewer than the cycle breaking needed. The cycle
   breaking cuts where a cycle closes, not where a path could go instead,
   and on a dragonfly (minimal paths fixed, only their layers free) needs
   a layer more than this. The tables and link loads stay the same; only
   the layers change, and only when the pass needs fewer. One pass, that
   stops at the first unit that fits none of those layers. 0 with
   *needed, or an error. */
static int fewer_same_routes(ibr_run *run, df *c, unsigned *needed)
{
    size_t nu = (size_t)c->s->n_dest * c->nsrc;
    uint64_t ppl[MAX_LAYERS];
    uint8_t *keep = ibr__mallocarray(c->ctx, nu + 1, 1);
    if (!keep)
        return IBR_ENOMEM;
    memcpy(keep, c->layer, nu);
    memcpy(ppl, c->ppl, sizeof ppl);
    unsigned n = 0;
    c->prevd = ibr__mallocarray(c->ctx, c->t->n_sw + 1, sizeof *c->prevd);
    if (!c->prevd) {
        ibr__free(c->ctx, keep);
        return IBR_ENOMEM;
    }
    for (uint32_t x = 0; x < c->t->n_sw; x++)
        c->prevd[x] = IBR_NONE;
    c->fixed = 1;
    int rc = layer_by_units(run, c, *needed - 1, 0, &n);
    c->fixed = 0;
    ibr__free(c->ctx, c->prevd);
    c->prevd = NULL;
    if (rc == 0 && n < *needed) {
        ibr__log(c->ctx, IBR_LOG_INFO,
                 "dfsssp: %u virtual layers needed with the same routes unit by unit", n);
        *needed = n;
    } else if (rc >= 0) {
        memcpy(c->layer, keep, nu);
        memcpy(c->ppl, ppl, sizeof ppl);
        rc = 0;
    }
    /* the routes and loads did not change: no copy to go back to */
    ibr__free(c->ctx, keep);
    ibr__free(c->ctx, c->tp0);
    ibr__free(c->ctx, c->load0);
    ibr__free(c->ctx, c->cl0);
    c->tp0 = NULL;
    c->load0 = c->cl0 = NULL;
    return rc;
}

/* When OpenSM's way fits in more than one layer: the layering unit by
   unit from its routes, spread over the lower half of the VLs, a
   quarter, ..., and packed (as relayer), may need fewer (a dragonfly,
   whose minimal paths leave no choice of route, only of layer: 2 where
   the cycle breaking needs 3). The pass with the fewest layers, then the
   lowest busiest link, replaces OpenSM's way when it needs fewer layers
   at a busiest link within 10 % of that way's; otherwise OpenSM's way is
   put back. The packed pass goes first: when even it needs no fewer
   layers, the others are not tried (the time of one pass where nothing
   is gained). 0 with *needed, or an error. */
static int fewer_by_units(ibr_run *run, df *c, unsigned avail, unsigned *needed)
{
    size_t nu = (size_t)c->s->n_dest * c->nsrc, ntp = (size_t)c->s->n_dest * c->t->n_sw;
    size_t nch = c->t->n_adj ? c->t->n_adj : 1;
    uint64_t ppl[MAX_LAYERS], bppl[MAX_LAYERS], bound = busiest(c) * 11 / 10;
    /* OpenSM's way's layers, then the best pass's layers, routes, loads */
    uint8_t *keep = ibr__mallocarray(c->ctx, nu + 1, 1);
    uint8_t *blay = ibr__mallocarray(c->ctx, nu + 1, 1);
    uint8_t *btp = ibr__mallocarray(c->ctx, ntp + 1, 1);
    uint64_t *bld = ibr__mallocarray(c->ctx, nch, sizeof *bld);
    uint64_t *bcl = ibr__mallocarray(c->ctx, nch, sizeof *bcl);
    int rc = IBR_ENOMEM;
    if (!keep || !blay || !btp || !bld || !bcl)
        goto out;
    memcpy(keep, c->layer, nu);
    memcpy(ppl, c->ppl, sizeof ppl);
    unsigned best = *needed, n = 0;
    uint64_t bload = UINT64_MAX;
    int bpacked = 0;
    /* packed first: it needs the fewest layers, and when even it needs
       no fewer than OpenSM's way, the spread passes are not tried; then
       spread over half the VLs, a quarter, ..., the first of equals kept,
       before the packed pass */
    for (unsigned i = 0, spread = 0;; i++, spread = i == 1 ? (avail + 1) / 2 : spread / 2) {
        if (i > 0 && spread == 0)
            break;
        if ((rc = layer_by_units(run, c, avail, spread, &n)) < 0)
            goto out;
        if (i == 0 && (rc != 0 || n >= *needed))
            break;
        uint64_t b = busiest(c);
        if (rc == 0 && n < *needed && b <= bound &&
            (n < best || (n == best && (b < bload || (bpacked && b == bload))))) {
            best = n;
            bload = b;
            bpacked = i == 0;
            memcpy(blay, c->layer, nu);
            memcpy(bppl, c->ppl, sizeof bppl);
            memcpy(btp, c->tp, ntp);
            memcpy(bld, c->s->load, nch * sizeof *bld);
            memcpy(bcl, c->s->cl, nch * sizeof *bcl);
        }
    }
    rc = 0;
    if (bload != UINT64_MAX) {
        *needed = best;
        memcpy(c->layer, blay, nu);
        memcpy(c->ppl, bppl, sizeof bppl);
        memcpy(c->tp, btp, ntp);
        memcpy(c->s->load, bld, nch * sizeof *bld);
        memcpy(c->s->cl, bcl, nch * sizeof *bcl);
        ibr__log(c->ctx, IBR_LOG_INFO,
                 "dfsssp: %u virtual layers needed unit by unit, busiest link %" PRIu64, best,
                 bload);
        goto out;
    }
    /* OpenSM's way back: its routes and loads were the passes' start */
    memcpy(c->tp, c->tp0, ntp);
    memcpy(c->s->load, c->load0, nch * sizeof *c->load0);
    memcpy(c->s->cl, c->cl0, nch * sizeof *c->cl0);
    memcpy(c->layer, keep, nu);
    memcpy(c->ppl, ppl, sizeof ppl);
out:
    ibr__free(c->ctx, keep);
    ibr__free(c->ctx, blay);
    ibr__free(c->ctx, btp);
    ibr__free(c->ctx, bld);
    ibr__free(c->ctx, bcl);
    return rc;
}

/* The layers. On a mesh, torus or hypercube, dimension order first
   (dim_layout); kept when it needs one layer and loads no link more than
   sssp's routes. Otherwise OpenSM's way (opensm_layers, then
   fewer_same_routes), replaced by the dimension order when that needs
   fewer layers at a busiest link within 10 % of OpenSM's way's (on a
   damaged shape: at any busiest link), or when OpenSM's way does not fit
   (on a damaged shape: even unit by unit). Returns 0
   with *needed, or an error; *failed is set when the error has been
   reported already (IBR_ENOVL: the chain falls back). */
static int plan_layers(ibr_run *run, df *c, unsigned avail, unsigned *needed, int *failed)
{
    const ibr_topo *t = c->t;
    int rc;
    /* dimension order first, on a mesh, torus or hypercube: one layer is
       the fewest, taken when no link is busier than under sssp's routes */
    unsigned dneed = 0;
    uint64_t dload = 0, sload = c->sbusy = busiest(c);
    int dim = 0;
    if (c->mrank) {
        if ((rc = dim_layout(run, c, avail, &dneed)) < 0)
            return rc;
        dim = rc == 0;
        dload = busiest(c);
        ibr__log(c->ctx, IBR_LOG_INFO,
                 "dfsssp: %s%s: dimension order needs %u layers, busiest link %" PRIu64
                 " (sssp's %" PRIu64 ")", c->shape, c->whole ? "" : " (damaged)",
                 dim ? dneed : avail + 1, dload, sload);
        if (dim && dneed == 1 && dload <= sload) {
            *needed = dneed;
            return 0;
        }
        if ((rc = restore_sssp(c)) < 0)
            return rc;
    }
    /* on a damaged shape dimension order concentrates the detours: there
       OpenSM's way lays the paths out unit by unit too, for comparison */
    if ((rc = opensm_layers(run, c, avail, dim && c->whole, needed)) < 0)
        return rc;
    if (rc == 0 && *needed > 1 && !c->tp0 && (rc = fewer_same_routes(run, c, needed)) < 0)
        return rc;
    /* on a damaged shape the fewer layers win even at a busier link where
       dimension order alone needs fewer than OpenSM's way: the detours
       that it crowds there are what lash pays too */
    if (dim && (rc == 1 || (dneed < *needed && ((!c->whole && *needed > c->dimlayers) ||
                                                dload * 10 <= busiest(c) * 11)))) {
        sssp_start(c);
        if ((rc = dim_layout(run, c, avail, needed)) != 0)
            return rc < 0 ? rc : IBR_EINTERNAL;
        ibr__log(c->ctx, IBR_LOG_INFO, "dfsssp: %u virtual layers needed in dimension order",
                 *needed);
        return 0;
    }
    int64_t fewest = 0;
    if (rc == 0 && *needed > 1 && !c->tp0 &&
        ibr_run_setting_int(&fewest, run, "fewest_layers") == 0 && fewest)
        return fewer_by_units(run, c, avail, needed);
    if (rc == 1) {
        unsigned cut = *needed;
        const ibr_options *o = ibr_run_options(run);
        rc = cut > MAX_LAYERS
                 ? ibr__fail(
                       run, IBR_ENOVL,
                       IBR__MSG("EN001",
                                "more than %d virtual lanes needed to break every credit loop, "
                                "%u available (max_vls %u, ports' OperVLs %u; layering unit by "
                                "unit did not fit either)"),
                       MAX_LAYERS, avail, o->max_vls, ibr__topo_min_oper_vls(t))
                 : ibr__fail(run, IBR_ENOVL,
                             IBR__MSG("EN002",
                                      "%u virtual lanes needed to break every credit loop, %u "
                                      "available (max_vls %u, ports' OperVLs %u; layering unit by "
                                      "unit did not fit either)"),
                             cut, avail, o->max_vls, ibr__topo_min_oper_vls(t));
        *failed = 1;
        return rc;
    }
    return 0;
}

/* ---- the engine ------------------------------------------------------- */

static int layers_artifact(ibr_run *run, const df *c, unsigned needed, unsigned avail)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr__buf_printf(&b, c->ctx,
                             "# dfsssp: %u layers needed, %u VLs available, %" PRIu64
                             " cycles broken\n# layer first_vl vls pairs\n",
                             needed, avail, c->cuts);
    for (unsigned l = 0; l < needed && rc == 0; l++)
        rc = ibr__buf_printf(&b, c->ctx, "%u %u %u %" PRIu64 "\n", l, c->start[l], c->split[l],
                             c->ppl[l]);
    if (rc == 0)
        rc = ibr_run_add_artifact(run, "dfsssp-layers.txt", b.data, b.size);
    ibr_buffer_dispose(&b);
    return rc;
}

static void df_free(df *c)
{
    ibr_context *ctx = c->ctx;
    ibr__free(ctx, c->swoff);
    ibr__free(ctx, c->srcidx);
    ibr__free(ctx, c->srcsw);
    ibr__cdg_destroy(c->g);
    ibr__free(ctx, c->sbase);
    ibr__free(ctx, c->layer);
    ibr__free(ctx, c->path);
    ibr__free(ctx, c->plen);
    ibr__free(ctx, c->pw);
    ibr__free(ctx, c->dep_first);
    ibr__free(ctx, c->dep_dest);
    ibr__free(ctx, c->bcnt);
    ibr__free(ctx, c->tin);
    ibr__free(ctx, c->tout);
    ibr__free(ctx, c->srcs);
    ibr__free(ctx, c->pidx);
    ibr__free(ctx, c->swrow);
    ibr__free(ctx, c->tp0);
    ibr__free(ctx, c->load0);
    ibr__free(ctx, c->cl0);
    ibr__free(ctx, c->mrank);
    ibr__free(ctx, c->maxis);
    ibr__free(ctx, c->stp);
    ibr__free(ctx, c->sload);
    ibr__free(ctx, c->scl);
    if (c->w)
        for (unsigned i = 0; i < c->nw; i++) {
            if (i > 0)
                ibr__cdg_destroy(c->w[i].acc);
            ibr__free(ctx, c->w[i].sub);
            ibr__free(ctx, c->w[i].order);
            ibr__free(ctx, c->w[i].oe);
            ibr__free(ctx, c->w[i].cover);
            ibr__free(ctx, c->w[i].kid_off);
            ibr__free(ctx, c->w[i].kids);
            ibr__free(ctx, c->w[i].pre);
            ibr__free(ctx, c->w[i].size);
            ibr__free(ctx, c->w[i].par);
        }
    ibr__free(ctx, c->w);
}

static int dfsssp_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    ibr_context *ctx = t->ctx;
    ibr__sssp s;
    if (t->n_sw > 65535)
        return ibr__decline(run, IBR__MSG("EN003", "%u switches: dfsssp numbers them in 16 bits"),
                            t->n_sw);
    ibr_topo *view;
    int rc = ibr__engine_topo(&t, &view, run, "dfsssp");
    if (rc < 0)
        return rc;
    if ((rc = ibr__sssp_compute(run, t, &s, "dfsssp")) < 0) {
        ibr__topo_view_destroy(view);
        return rc;
    }
    df c;
    memset(&c, 0, sizeof c);
    c.run = run;
    c.t = t;
    c.ctx = ctx;
    c.s = &s;
    c.hops = ibr_run_hops(run); /* the distances sssp wrote */
    c.tp = s.tp;
    size_t n = t->n_sw;
    c.nw = ibr_run_threads(run);
    c.swoff = ibr__mallocarray(ctx, n, sizeof *c.swoff);
    c.srcidx = ibr__mallocarray(ctx, n, sizeof *c.srcidx);
    c.srcsw = ibr__mallocarray(ctx, n, sizeof *c.srcsw);
    c.path = ibr__mallocarray(ctx, PATH_CAP(n), sizeof *c.path);
    c.plen = ibr__mallocarray(ctx, UNIT_CAP, sizeof *c.plen);
    c.pw = ibr__mallocarray(ctx, UNIT_CAP, sizeof *c.pw);
    c.w = ibr__calloc(ctx, c.nw, sizeof *c.w);
    if (!c.swoff || !c.srcidx || !c.srcsw || !c.path || !c.plen || !c.pw || !c.w)
        goto nomem;
    for (uint32_t x = 0; x < n; x++) {
        c.swoff[x] = t->nodes[t->sw_node[x]].port_off;
        c.srcidx[x] = IBR_NONE;
        if (s.src_lids[x]) {
            c.srcidx[x] = c.nsrc;
            c.srcsw[c.nsrc++] = x;
        }
    }
    c.layer = ibr__calloc(ctx, (size_t)s.n_dest * c.nsrc + 1, 1);
    if (!c.layer)
        goto nomem;
    for (unsigned i = 0; i < c.nw; i++) {
        c.w[i].sub = ibr__mallocarray(ctx, n, sizeof *c.w[i].sub);
        c.w[i].order = ibr__mallocarray(ctx, n, sizeof *c.w[i].order);
        c.w[i].oe = ibr__mallocarray(ctx, n, sizeof *c.w[i].oe);
        c.w[i].cover = ibr__mallocarray(ctx, n, sizeof *c.w[i].cover);
        if (!c.w[i].sub || !c.w[i].order || !c.w[i].oe || !c.w[i].cover)
            goto nomem;
    }
    if ((rc = ibr_run_progress(run, "dfsssp: dependencies", 0, 1)) < 0)
        goto out;
    if ((rc = build_layer0(&c)) < 0)
        goto fail;
    if ((rc = mesh_ranks(&c)) < 0)
        goto fail;

    unsigned avail = ibr__run_vls(run), needed = 0;
    int failed = 0;
    if ((rc = plan_layers(run, &c, avail, &needed, &failed)) < 0) {
        if (failed)
            goto out;
        goto fail;
    }
    ibr__cdg_destroy(c.g);
    c.g = NULL;
    c.w[0].acc = NULL;

    spread_vls(&c, needed, avail);
    if ((rc = ibr_run_progress(run, "dfsssp: path SLs", 0, 1)) < 0)
        goto out;
    if (s.n_dest && (rc = assign_sls(run, &c)) < 0)
        goto fail;

    uint16_t mask = 1;
    for (unsigned i = 0; i < c.nw; i++)
        mask |= c.w[i].slmask;
    unsigned used = 16 - (unsigned)__builtin_clz((unsigned)mask << 16);
    uint8_t ident[16];
    for (unsigned i = 0; i < 16; i++)
        ident[i] = (uint8_t)i;
    for (uint32_t x = 0; x < n; x++) {
        unsigned np = t->nodes[t->sw_node[x]].nports;
        for (unsigned ip = 0; ip <= np; ip++)
            for (unsigned op = 0; op <= np; op++)
                if ((rc = ibr_run_set_sl2vl(run, x, ip, op, ident)) < 0)
                    goto fail;
    }
    if ((rc = ibr_run_set_vls_used(run, used)) < 0 || (rc = ibr_run_set_layers(run, needed)) < 0)
        goto fail;
    if ((rc = layers_artifact(run, &c, needed, avail)) < 0)
        goto fail;
    ibr__sssp_write_lfts(run, &s);
    if ((rc = ibr__mcast_loaded_on(run, t, ibr_run_hops(run), s.load)) < 0)
        goto fail;
    goto out;
nomem:
    rc = IBR_ENOMEM;
fail:
    rc = ibr__engine_fail(run, rc, "layering paths");
out:
    df_free(&c);
    ibr__sssp_free(ctx, &s);
    ibr__topo_view_destroy(view);
    return rc;
}

const ibr_engine ibr__engine_dfsssp = {
    .version = IBR_ENGINE_VERSION,
    .name = "dfsssp",
    .description = "sssp with virtual layers that break every credit loop; path SLs, SL2VL",
    .caps = IBR_CAP_LMC | IBR_CAP_SL | IBR_CAP_SL2VL | IBR_CAP_DEADLOCK_FREE | IBR_CAP_MINIMAL,
    .route = dfsssp_route,
    .settings = ibr__sssp_settings,
    .n_settings = 3,
};
