/*
 * lash: layered shortest-path routing, after Skeie, Lysne and Theiss
 * (LASH, 2002) and OpenSM's lash engine (doc/engines.md, "lash").
 *
 * Graph. The vertices are the switches with an active port (a switch whose
 * ports are all down is invisible to a subnet manager; it only gets a route
 * to itself); they must form one connected switch graph, else the engine
 * declines (OpenSM does not check and reads invalid memory). A switch's *logical links* are one
 * per neighbour switch, in the order of the first local port that reaches
 * it (ibroute's switch graph holds active links only and no loopbacks, so
 * down cables and self-links never appear). Every shortest path is walked
 * over logical links: the next hop from s toward d is the first logical
 * link of s whose neighbour is one hop closer to d. Without mesh analysis
 * the LFTs use the first (lowest-port) cable of a link, as OpenSM does, so
 * parallel cables beyond the first carry no traffic; with it (mesh.h) the
 * links are reordered into dimension order, the pairs are processed in the
 * analysis's switch numbering and the LIDs routed over a link take its
 * cables in turn.
 *
 * Mesh analysis orders the links in two ways: ibroute's (mesh.c, whose
 * guarded rules keep coordinates consistent next to failed links) and
 * OpenSM's (IBR__MESH_OPENSM, which reproduces OpenSM's order and numbering,
 * quirks included). On a pristine mesh or torus they agree and one layout
 * is made. Otherwise both are laid out, and ibroute's is kept only when it
 * needs no more layers and its busiest cable carries no more routes
 * (busiest(), the verifier's count); else OpenSM's is kept, so lash never
 * does worse than OpenSM's lash on either count.
 *
 * Layers. The unordered switch pairs {a, b} are taken in order (switches in
 * OpenSM's switch-map order: node GUIDs compared as byte-swapped 64-bit
 * numbers, or the mesh numbering); both directed paths a -> b and b -> a
 * go into the first layer whose channel dependency graph (CDG) stays
 * acyclic with them, checked incrementally by src/cdg (Pearce-Kelly
 * insertion: no rebuild or full search per path); a pair no layer accepts
 * opens a new layer. Both directions share the layer, so the path SL of a
 * (source switch, destination switch) pair is symmetric.
 *
 * Channels. The CDG is src/cdg's switch graph, whose channels are the
 * topology's directed switch-to-switch cables. A logical link a -> b stands
 * for one of them, its first cable. That is conservative for parallel
 * cables: the real dependencies (any cable a -> b, then any cable b -> c)
 * are mapped onto the representatives by a graph homomorphism, so a cycle
 * among the real channels maps to a closed walk among the representatives,
 * which contains a cycle (a walk never stays on one representative: two
 * consecutive channels enter and leave the same switch, and the graph has
 * no self-links). An acyclic layer of representatives is therefore acyclic
 * over the cables, however the LIDs are spread over them.
 *
 * The two paths of a new layer cannot form a cycle between themselves
 * (every channel of a -> b moves one hop closer to b, every channel of
 * b -> a one hop away from it, so they share none, and a simple path alone
 * has no cycle); they are still inserted with the check, which would
 * report an internal error if that ever failed.
 *
 * Running out. The layers available are the VLs available - start_vl,
 * the VLs available being the smallest OperVLs of a switch port with a peer
 * (as OpenSM counts them), capped by ibr_options::max_vls. When a pair
 * needs one more, the assignment stops (as OpenSM's) and the engine fails
 * with IBR_ENOVL, naming the layers available and the shortfall, so the
 * chain falls back.
 *
 * Balancing. The first layers fill up most. Pairs are moved from the
 * layer with the most paths to the one with the fewest (ties: lowest
 * index), a random pair of the fullest layer at a time (ibr__rng seeded by
 * ibr_options::seed: deterministic), with a checked move into the
 * emptiest layer; a pair that would close a cycle there is not tried again
 * until the fullest or emptiest layer changes. It stops when the two differ
 * by fewer than 6 paths or every pair of the fullest layer was tried.
 * OpenSM starts from layers 0 and last rather than from the counts and
 * draws with rand(); both only change which SL a pair gets, never the
 * number of layers or the paths.
 *
 * Large fabrics. Above lash.class_above switch pairs (and never with mesh
 * analysis) the layers are built by path class instead, one whole-layer
 * check per group of pairs rather than one checked insertion per pair, and
 * balanced by parts of groups (see "layers by path class" below). Only the
 * SLs differ from the pair-by-pair layers, never the paths.
 *
 * Tables. LFTs: a switch's own LID goes to port 0, a CA cabled to it to
 * that port, any other LID to the logical link toward the LID's switch.
 * Every LID of a port (LMC) follows the same switch path and gets the same
 * SL. Path SLs are per (source port, destination LID), set from the
 * (source switch, destination switch) layer: layer + start_vl, start_vl
 * within one switch. SL2VL is the identity on every port pair, as LASH
 * expects (OpenSM programs it only with -Q).
 *
 * Time: O(S·(S + E)) for the hop matrix, O(S²·deg) for the next hops,
 * per pair and layer tried a checked insertion (O(path) when the paths
 * agree with the layer's order, else the Pearce-Kelly search of the region
 * affected), O(S·L) for the tables. Memory: 2·S² bytes (next hops, pair
 * layers) plus the run's S² hop matrix, 8 bytes per CDG slot per layer in
 * use, 4 bytes per pair per layer while balancing.
 */
#include <inttypes.h>
#include <string.h>

#include "cdg/cdg.h"
#include "core/buffer.h"
#include "core/messages.h"
#include "engines/engine_int.h"
#include "engines/lash/mesh.h"

#define MAX_LAYERS 15   /* data VLs */
#define BALANCE_GAP 6   /* OpenSM's fixed balance threshold, in paths */
#define MAX_PATH 256    /* channels of a path (hop counts stay below 255) */

typedef struct lash {
    ibr_run *run;
    const ibr_topo *t;
    ibr_context *ctx;
    uint32_t n;          /* switches */
    /* logical links: switch s has loff[s] .. loff[s + 1] - 1; link l leads
       to switch lnbr[l] over the cables (topo->adj indices, port order)
       lcab[lcab_off[l] .. lcab_off[l + 1] - 1] */
    uint32_t *loff, *lnbr, *lcab_off, *lcab;
    uint32_t nl;
    uint32_t *rr;        /* per link: round-robin position */
    int spread;          /* LIDs take a link's cables in turn */
    const uint8_t *hops; /* the run's hop matrix */
    uint8_t *nh;         /* n x n: position of the next hop in the row */
    uint8_t *lay;        /* n x n: layer of the pair (both entries) */
    uint8_t *live;       /* per switch: has an active port */
    uint32_t nlive;
    uint32_t *order;     /* pair processing order: the live switches */
    ibr__cdg *g;
    unsigned avail;      /* layers available */
    unsigned start;      /* start_vl */
    unsigned layers;     /* layers in use */
    uint64_t cnt[MAX_LAYERS];    /* paths per layer */
    uint64_t before[MAX_LAYERS]; /* ... before balancing */
    uint64_t moved;      /* pairs moved by balancing */
    unsigned lmc_cap;
    uint32_t *p1, *p2;   /* paths being placed */
    int by_class;        /* try the layers by path class (see there) */
    int classed;         /* ... and they were built that way */
    unsigned groups;     /* groups of pairs (class layering) */
    uint32_t *pl;        /* class layering: the pairs (a * n + b), by group, */
    size_t goff[257];    /* group k's at pl[goff[k] .. goff[k + 1] - 1] */
} lash;

/* ---- graph ------------------------------------------------------------ */

/* Logical links of every switch from the topology's cables. */
static int build_links(lash *c)
{
    const ibr_topo *t = c->t;
    uint32_t n = c->n;
    uint32_t *pos = ibr__mallocarray(c->ctx, n, sizeof *pos);
    c->loff = ibr__calloc(c->ctx, (size_t)n + 1, sizeof *c->loff);
    if (!pos || !c->loff) {
        ibr__free(c->ctx, pos);
        return IBR_ENOMEM;
    }
    for (uint32_t x = 0; x < n; x++)
        pos[x] = IBR_NONE;
    /* count distinct neighbours per switch */
    for (uint32_t s = 0; s < n; s++) {
        uint32_t k = 0;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            if (pos[t->adj[e].sw] == IBR_NONE)
                pos[t->adj[e].sw] = k++;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            pos[t->adj[e].sw] = IBR_NONE;
        c->loff[s + 1] = c->loff[s] + k;
    }
    c->nl = c->loff[n];
    c->lnbr = ibr__mallocarray(c->ctx, c->nl + 1, sizeof *c->lnbr);
    c->lcab_off = ibr__calloc(c->ctx, (size_t)c->nl + 1, sizeof *c->lcab_off);
    c->lcab = ibr__mallocarray(c->ctx, t->n_adj + 1, sizeof *c->lcab);
    c->rr = ibr__calloc(c->ctx, c->nl + 1, sizeof *c->rr);
    if (!c->lnbr || !c->lcab_off || !c->lcab || !c->rr) {
        ibr__free(c->ctx, pos);
        return IBR_ENOMEM;
    }
    for (uint32_t s = 0; s < n; s++) {
        uint32_t k = c->loff[s];
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t y = t->adj[e].sw;
            if (pos[y] == IBR_NONE) {
                pos[y] = k;
                c->lnbr[k++] = y;
            }
            c->lcab_off[pos[y] + 1]++; /* cables per link, shifted by one */
        }
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            pos[t->adj[e].sw] = IBR_NONE;
    }
    for (uint32_t l = 0; l < c->nl; l++)
        c->lcab_off[l + 1] += c->lcab_off[l];
    /* cables in port order within each link: fill with a moving cursor */
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t l = c->loff[s]; l < c->loff[s + 1]; l++)
            pos[c->lnbr[l]] = c->lcab_off[l];
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            c->lcab[pos[t->adj[e].sw]++] = e;
        for (uint32_t l = c->loff[s]; l < c->loff[s + 1]; l++)
            pos[c->lnbr[l]] = IBR_NONE;
    }
    ibr__free(c->ctx, pos);
    return 0;
}

/* One ordering of the links and pairs, with the layers it needs: with mesh
   analysis lash lays out two (see the header comment) and keeps one. */
typedef struct lash_variant {
    uint32_t *lnbr, *lcab_off, *lcab, *order;
    uint8_t *nh, *lay;
    ibr__cdg *g;
    uint64_t cnt[MAX_LAYERS];
    uint32_t nlive;
    unsigned needed;
    int recognised;
    char shape[128];
} lash_variant;

static void variant_free(ibr_context *ctx, lash_variant *v)
{
    ibr__free(ctx, v->lnbr);
    ibr__free(ctx, v->lcab_off);
    ibr__free(ctx, v->lcab);
    ibr__free(ctx, v->order);
    ibr__free(ctx, v->nh);
    ibr__free(ctx, v->lay);
    ibr__cdg_destroy(v->g);
    memset(v, 0, sizeof *v);
}

/* Move the engine's current ordering into v (the engine's fields become
   empty), or back with `back`. */
static void variant_move(lash *c, lash_variant *v, int back)
{
#define MV(f)                                                                                   \
    do {                                                                                        \
        if (back) {                                                                             \
            c->f = v->f;                                                                        \
            v->f = 0;                                                                           \
        } else {                                                                                \
            v->f = c->f;                                                                        \
            c->f = 0;                                                                           \
        }                                                                                       \
    } while (0)
    MV(lnbr);
    MV(lcab_off);
    MV(lcab);
    MV(order);
    MV(nh);
    MV(lay);
    MV(g);
    MV(nlive);
#undef MV
    if (back)
        memcpy(c->cnt, v->cnt, sizeof c->cnt);
    else
        memcpy(v->cnt, c->cnt, sizeof v->cnt);
    memset(back ? v->cnt : c->cnt, 0, sizeof c->cnt);
}

/* Mesh analysis (mesh.h) of the links in `base`: v gets every switch's
   links reordered as the analysis says and its switch numbering as the
   pair order (live switches only). */
static int mesh_variant(lash *c, const lash_variant *base, unsigned flags, lash_variant *v)
{
    uint32_t n = c->n, nl = c->nl;
    uint32_t *perm = ibr__mallocarray(c->ctx, nl + 1, sizeof *perm);
    uint32_t *num = ibr__mallocarray(c->ctx, n, sizeof *num);
    v->lnbr = ibr__mallocarray(c->ctx, nl + 1, sizeof *v->lnbr);
    v->lcab_off = ibr__calloc(c->ctx, (size_t)nl + 1, sizeof *v->lcab_off);
    v->lcab = ibr__mallocarray(c->ctx, c->t->n_adj + 1, sizeof *v->lcab);
    v->order = ibr__mallocarray(c->ctx, n, sizeof *v->order);
    v->nh = ibr__mallocarray(c->ctx, (size_t)n * n, 1);
    v->lay = ibr__calloc(c->ctx, (size_t)n * n, 1);
    ibr__mesh_info info;
    memset(&info, 0, sizeof info);
    int rc = IBR_ENOMEM;
    if (!perm || !num || !v->lnbr || !v->lcab_off || !v->lcab || !v->order || !v->nh ||
        !v->lay)
        goto out;
    if ((rc = ibr__mesh_analyze_geometry(c->ctx, n, c->loff, base->lnbr, flags, perm, num,
                                         &info, NULL, NULL)) < 0)
        goto out;
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t k = c->loff[s]; k < c->loff[s + 1]; k++) {
            uint32_t old = c->loff[s] + perm[k];
            v->lnbr[k] = base->lnbr[old];
            uint32_t m = base->lcab_off[old + 1] - base->lcab_off[old];
            v->lcab_off[k + 1] = v->lcab_off[k] + m;
            memcpy(v->lcab + v->lcab_off[k], base->lcab + base->lcab_off[old], m * sizeof *perm);
        }
    v->nlive = 0;
    for (uint32_t i = 0; i < n; i++)
        if (c->live[num[i]])
            v->order[v->nlive++] = num[i];
    v->recognised = info.recognised;
    snprintf(v->shape, sizeof v->shape, "%s",
             info.recognised && info.shape[0] ? info.shape : "no mesh recognised");
    rc = 0;
out:
    ibr__free(c->ctx, perm);
    ibr__free(c->ctx, num);
    return rc;
}

/* OpenSM's switch-map order: node GUIDs as stored in network byte order,
   compared as host integers on a little-endian machine. */
static int cmp_switch_map(const void *a, const void *b, void *arg)
{
    const lash *c = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t gx = __builtin_bswap64(c->t->nodes[c->t->sw_node[x]].guid);
    uint64_t gy = __builtin_bswap64(c->t->nodes[c->t->sw_node[y]].guid);
    if (gx != gy)
        return gx < gy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Next hops of switch s toward every switch: the first logical link whose
   neighbour is one hop closer. */
static int next_hops_row(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    lash *c = arg;
    uint32_t s = (uint32_t)i, n = c->n;
    const uint8_t *hs = c->hops + (size_t)s * n;
    uint8_t *row = c->nh + (size_t)s * n;
    for (uint32_t d = 0; d < n; d++) {
        row[d] = 0;
        if (d == s || hs[d] == 255)
            continue;
        unsigned want = hs[d] - 1u;
        for (uint32_t l = c->loff[s]; l < c->loff[s + 1]; l++)
            if (c->hops[(size_t)c->lnbr[l] * n + d] == want) {
                row[d] = (uint8_t)(l - c->loff[s]);
                break;
            }
    }
    return 0;
}

/* The channels (representative cables) of the path s -> d; returns their
   number (the hop count). */
static size_t path_of(const lash *c, uint32_t s, uint32_t d, uint32_t *ch)
{
    size_t k = 0;
    while (s != d && k < MAX_PATH) {
        uint32_t l = c->loff[s] + c->nh[(size_t)s * c->n + d];
        ch[k++] = c->lcab[c->lcab_off[l]];
        s = c->lnbr[l];
    }
    return k;
}

/* ---- layers ----------------------------------------------------------- */

/* Put both paths of a pair into layer v if it stays acyclic: 0 (added),
   1 (would close a cycle: nothing added) or an error. */
static int try_pair(lash *c, unsigned v, size_t n1, size_t n2)
{
    int rc = ibr__cdg_add_path(c->g, v, c->p1, n1, 1, 1);
    if (rc != 0)
        return rc;
    rc = ibr__cdg_add_path(c->g, v, c->p2, n2, 1, 1);
    if (rc == 0)
        return 0;
    int r2 = ibr__cdg_remove_path(c->g, v, c->p1, n1, 1);
    return r2 < 0 ? r2 : rc;
}

/* Every pair in layer 0 at once, when that leaves layer 0 acyclic (as it
   does when all the shortest paths together are free of credit loops: fat
   trees, whose minimal paths go up, then down). The pair-by-pair loop
   below would then put every pair into layer 0 as well, since each state
   it passes through is part of that acyclic union: the outcome is the
   same, found with one topological sort instead of a checked insertion of
   every dependency (whose reorderings dominate on large trees). When the
   union has a cycle, layer 0 is emptied again (*fits = 0). */
static int one_layer(lash *c, int *fits)
{
    uint32_t n = c->n;
    int rc;
    *fits = 0;
    for (uint32_t i = 0; i < c->nlive; i++) {
        uint32_t a = c->order[i];
        for (uint32_t j = i + 1; j < c->nlive; j++) {
            uint32_t b = c->order[j];
            size_t n1 = path_of(c, a, b, c->p1), n2 = path_of(c, b, a, c->p2);
            if ((rc = ibr__cdg_add_path(c->g, 0, c->p1, n1, 1, 0)) < 0 ||
                (rc = ibr__cdg_add_path(c->g, 0, c->p2, n2, 1, 0)) < 0)
                return rc;
        }
    }
    if ((rc = ibr__cdg_order(c->g, 0)) < 0)
        return rc;
    if (rc == 1) {
        /* the pair-by-pair loop starts every layer from an order that
           most of these dependencies agree with */
        uint32_t nch = ibr__cdg_channel_count(c->g);
        uint32_t *pos = ibr__mallocarray(c->ctx, nch ? nch : 1, sizeof *pos);
        if (!pos)
            return IBR_ENOMEM;
        if ((rc = ibr__cdg_dfs_order(c->g, 0, pos)) == 0) {
            ibr__cdg_destroy(c->g);
            c->g = NULL;
            if ((rc = ibr__cdg_create_topo(&c->g, c->t, MAX_LAYERS)) == 0)
                rc = ibr__cdg_start_order(c->g, pos);
        }
        ibr__free(c->ctx, pos);
        return rc;
    }
    for (uint32_t i = 0; i < c->nlive; i++)
        for (uint32_t j = i + 1; j < c->nlive; j++) {
            uint32_t a = c->order[i], b = c->order[j];
            c->lay[(size_t)a * n + b] = c->lay[(size_t)b * n + a] = 0;
        }
    c->cnt[0] = (uint64_t)c->nlive * (c->nlive - 1);
    *fits = 1;
    return 0;
}

/* ---- layers by path class ----------------------------------------------
   On a large fabric the pair-by-pair loop costs one checked insertion per
   pair and layer tried, most of them on the refusals. Layering by class
   replaces them with one whole-layer check per group and layer tried.

   Orientation: switches ranked by their hops to the nearest switch with an
   end port, ties by index; a hop to a higher key goes up. A path's class is
   its run pattern: the direction of its first hop and the number of runs
   of hops in one direction (a path in one direction is a class of its own:
   it fits with either pattern below). On a fat tree the pairs between leaves go up, then down; the pairs
   between upper switches dip through a lower level first. The paths of one
   up*-then-down* class never make a down -> up dependency, so the class is
   free of cycles in any layer of its own (every dependency goes from a
   channel to one later in the order: up channels by rising key, then down
   channels by falling key); the same holds, mirrored, for down*-then-up*.
   A pair's group is the pair of its two paths' classes (both go into one
   layer).

   Placement: groups, largest first, go whole into the first layer that
   stays acyclic with them, added unchecked and tested with one
   topological sort (ibr__cdg_order), else taken out again; a group no
   layer takes opens a new one, and a group that is cyclic even alone is
   placed pair by pair with checked insertions. Every layer is thus
   acyclic by a check of its own, whatever the topology; the classes only
   decide how few checks that takes. If this needs more layers than the
   VLs allow, the pair-by-pair loop runs instead. */

#define CLASS_RUNS 7 /* run patterns told apart; longer ones share a class */

/* key[x] of every switch: rank << 16 | x (x < 65536). */
static int class_keys(lash *c, uint32_t *key)
{
    const ibr_topo *t = c->t;
    uint32_t n = c->n, nleaf = 0;
    uint8_t *isleaf = ibr__calloc(c->ctx, n, 1);
    uint32_t *leaf = ibr__mallocarray(c->ctx, n, sizeof *leaf);
    if (!isleaf || !leaf) {
        ibr__free(c->ctx, isleaf);
        ibr__free(c->ctx, leaf);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint16_t lid = t->ports[t->end_port[i]].lid;
        uint32_t x = lid ? t->lid_sw[lid] : IBR_NONE;
        if (x != IBR_NONE && !isleaf[x]) {
            isleaf[x] = 1;
            leaf[nleaf++] = x;
        }
    }
    for (uint32_t x = 0; x < n; x++) {
        unsigned r = nleaf ? 255 : 0;
        const uint8_t *hx = c->hops + (size_t)x * n;
        for (uint32_t k = 0; k < nleaf && r; k++)
            if (hx[leaf[k]] < r)
                r = hx[leaf[k]];
        key[x] = (uint32_t)r << 16 | x;
    }
    ibr__free(c->ctx, isleaf);
    ibr__free(c->ctx, leaf);
    return 0;
}

/* Class of the path s -> d, 0 .. 15: 0 for a path in one direction (it
   fits with up-then-down paths and with down-then-up ones), else
   (runs - 1) * 2 + (first hop down), CLASS_RUNS runs or more sharing 14
   and 15. */
static unsigned path_class(const lash *c, const uint32_t *key, uint32_t s, uint32_t d)
{
    unsigned runs = 0, first = 0, last = 2, k = 0;
    while (s != d && k++ < MAX_PATH) {
        uint32_t y = c->lnbr[c->loff[s] + c->nh[(size_t)s * c->n + d]];
        unsigned down = key[y] < key[s];
        if (down != last) {
            if (!runs)
                first = down;
            runs++;
            last = down;
        }
        s = y;
    }
    if (runs <= 1)
        return 0;
    if (runs >= CLASS_RUNS)
        return 14 + first;
    return (runs - 1) * 2 + first;
}

/* Add (rm = 0) or remove (rm = 1) both paths of every pair of pl[0 .. m-1]
   (a * n + b) in layer v, unchecked. */
static int group_paths(lash *c, unsigned v, const uint32_t *pl, size_t m, int rm)
{
    for (size_t i = 0; i < m; i++) {
        uint32_t a = pl[i] / c->n, b = pl[i] % c->n;
        size_t n1 = path_of(c, a, b, c->p1), n2 = path_of(c, b, a, c->p2);
        int rc;
        if (rm)
            rc = ibr__cdg_remove_path(c->g, v, c->p1, n1, 1) < 0 ||
                         ibr__cdg_remove_path(c->g, v, c->p2, n2, 1) < 0
                     ? IBR_EINTERNAL
                     : 0;
        else if ((rc = ibr__cdg_add_path(c->g, v, c->p1, n1, 1, 0)) == 0)
            rc = ibr__cdg_add_path(c->g, v, c->p2, n2, 1, 0);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Place one group: whole into the first layer that stays acyclic (a new
   one if none), else pair by pair. *L: layers in use; returns 1 when a pair
   needs more layers than available, 0 when placed, or an error. */
static int place_group(lash *c, const uint32_t *pl, size_t m, unsigned *L)
{
    int rc;
    for (unsigned v = 0; v <= *L && v < c->avail; v++) {
        if ((rc = group_paths(c, v, pl, m, 0)) < 0 || (rc = ibr__cdg_order(c->g, v)) < 0)
            return rc;
        if (rc == 0) {
            for (size_t i = 0; i < m; i++) {
                uint32_t a = pl[i] / c->n, b = pl[i] % c->n;
                c->lay[(size_t)a * c->n + b] = c->lay[(size_t)b * c->n + a] = (uint8_t)v;
            }
            c->cnt[v] += 2 * (uint64_t)m;
            if (v == *L)
                ++*L;
            return 0;
        }
        if ((rc = group_paths(c, v, pl, m, 1)) < 0)
            return rc;
    }
    for (size_t i = 0; i < m; i++) { /* cyclic alone: pair by pair */
        uint32_t a = pl[i] / c->n, b = pl[i] % c->n;
        size_t n1 = path_of(c, a, b, c->p1), n2 = path_of(c, b, a, c->p2);
        unsigned v;
        rc = 1;
        for (v = 0; v < *L; v++)
            if ((rc = try_pair(c, v, n1, n2)) <= 0)
                break;
        if (rc < 0)
            return rc;
        if (rc == 1) {
            if (*L == c->avail)
                return 1;
            v = (*L)++;
            if ((rc = try_pair(c, v, n1, n2)) != 0)
                return rc < 0 ? rc : IBR_EINTERNAL;
        }
        c->lay[(size_t)a * c->n + b] = c->lay[(size_t)b * c->n + a] = (uint8_t)v;
        c->cnt[v] += 2;
    }
    return 0;
}

/* Layers by class: 0 with *needed set, 1 when they need more layers than
   available (c->g and the counts are then to be reset), or an error. */
static int assign_by_class(lash *c, unsigned *needed)
{
    uint32_t n = c->n;
    size_t npairs = (size_t)c->nlive * (c->nlive - 1) / 2, size[256] = {0}, off[257] = {0};
    uint32_t *key = ibr__mallocarray(c->ctx, n, sizeof *key);
    uint32_t *pl = c->pl = ibr__mallocarray(c->ctx, npairs ? npairs : 1, sizeof *pl);
    int rc = IBR_ENOMEM;
    if (!key || !pl || (rc = class_keys(c, key)) < 0)
        goto out;
    /* the group of every pair, kept in lay[] until it is placed */
    for (uint32_t i = 0; i < c->nlive; i++) {
        uint32_t a = c->order[i];
        for (uint32_t j = i + 1; j < c->nlive; j++) {
            uint32_t b = c->order[j];
            unsigned x = path_class(c, key, a, b), y = path_class(c, key, b, a);
            unsigned grp = x < y ? x << 4 | y : y << 4 | x;
            c->lay[(size_t)a * n + b] = (uint8_t)grp;
            size[grp]++;
        }
    }
    for (unsigned k = 0; k < 256; k++)
        c->goff[k + 1] = off[k + 1] = off[k] + size[k];
    for (uint32_t i = 0; i < c->nlive; i++)
        for (uint32_t j = i + 1; j < c->nlive; j++) {
            uint32_t a = c->order[i], b = c->order[j];
            pl[off[c->lay[(size_t)a * n + b]]++] = a * n + b;
        }
    /* off[k] is now the end of group k: largest groups first */
    unsigned L = 0;
    c->groups = 0;
    for (;;) {
        unsigned best = 256;
        for (unsigned k = 0; k < 256; k++)
            if (size[k] && (best == 256 || size[k] > size[best]))
                best = k;
        if (best == 256)
            break;
        if ((rc = ibr_run_progress(c->run, "lash: layers by class", c->groups, 256)) < 0)
            goto out;
        rc = place_group(c, pl + off[best] - size[best], size[best], &L);
        if (rc != 0)
            goto out;
        size[best] = 0;
        c->groups++;
    }
    *needed = L ? L : 1;
    c->classed = 1;
    rc = 0;
out:
    ibr__free(c->ctx, key);
    return rc;
}

/* The main loop: every unordered pair into the first layer that takes it.
   Returns 0, or a negative error; *needed gets the layers in use, or
   c->avail + 1 when a pair needs one more layer than the VLs allow (the
   loop stops there: counting further could take minutes on a large
   fabric that fails anyway). */
static int assign_layers(lash *c, unsigned *needed)
{
    uint32_t n = c->n;
    unsigned L = 1;
    int rc, fits;
    if ((rc = one_layer(c, &fits)) < 0)
        return rc;
    if (fits) {
        *needed = 1;
        return 0;
    }
    if (c->by_class) {
        if ((rc = assign_by_class(c, needed)) <= 0)
            return rc;
        /* more layers than available: start over pair by pair */
        ibr__free(c->ctx, c->pl);
        c->pl = NULL;
        memset(c->cnt, 0, sizeof c->cnt);
        ibr__cdg_destroy(c->g);
        c->g = NULL;
        if ((rc = ibr__cdg_create_topo(&c->g, c->t, MAX_LAYERS)) < 0 ||
            (rc = one_layer(c, &fits)) < 0)
            return rc;
    }
    for (uint32_t i = 0; i < c->nlive; i++) {
        if ((rc = ibr_run_progress(c->run, "lash: layers", i, c->nlive)) < 0)
            return rc;
        uint32_t a = c->order[i];
        for (uint32_t j = i + 1; j < c->nlive; j++) {
            uint32_t b = c->order[j];
            size_t n1 = path_of(c, a, b, c->p1), n2 = path_of(c, b, a, c->p2);
            unsigned v;
            rc = 1;
            for (v = 0; v < L; v++)
                if ((rc = try_pair(c, v, n1, n2)) <= 0)
                    break;
            if (rc < 0)
                return rc;
            if (rc == 1) {
                if (L == c->avail) { /* out of VLs: stop here, as OpenSM */
                    *needed = L + 1;
                    return 0;
                }
                v = L++;
                if ((rc = try_pair(c, v, n1, n2)) != 0)
                    return rc < 0 ? rc : IBR_EINTERNAL;
            }
            c->lay[(size_t)a * n + b] = c->lay[(size_t)b * n + a] = (uint8_t)v;
            c->cnt[v] += 2;
        }
    }
    *needed = L;
    return 0;
}

/* Move a pair's two paths from layer `from` to layer `to` if `to` stays
   acyclic: 0 (moved), 1 (not moved) or an error. */
static int move_pair(lash *c, unsigned from, unsigned to, size_t n1, size_t n2)
{
    int rc = ibr__cdg_move_path(c->g, from, to, c->p1, n1, 1, 1);
    if (rc != 0)
        return rc;
    rc = ibr__cdg_move_path(c->g, from, to, c->p2, n2, 1, 1);
    if (rc == 0)
        return 0;
    /* put the first path back where it was: its edges existed there */
    int r2 = ibr__cdg_move_path(c->g, to, from, c->p1, n1, 1, 0);
    return r2 < 0 ? r2 : rc;
}

static void fullest_emptiest(const lash *c, unsigned *max, unsigned *min)
{
    unsigned hi = 0, lo = 0;
    for (unsigned v = 1; v < c->layers; v++) {
        if (c->cnt[v] > c->cnt[hi])
            hi = v;
        if (c->cnt[v] < c->cnt[lo])
            lo = v;
    }
    *max = hi;
    *min = lo;
}

/* Per layer: its pairs (a * n + b, a < b); the first `untried` of them may
   still be tried by the balancing. */
typedef struct layer_list {
    uint32_t *p;
    size_t size, untried;
} layer_list;

static int balance(lash *c)
{
    uint32_t n = c->n;
    unsigned L = c->layers;
    layer_list ll[MAX_LAYERS];
    memset(ll, 0, sizeof ll);
    int rc = 0;
    if (L < 2)
        return 0;
    size_t npairs = (size_t)c->nlive * (c->nlive - 1) / 2;
    for (unsigned v = 0; v < L; v++)
        if (!(ll[v].p = ibr__mallocarray(c->ctx, npairs, sizeof *ll[v].p))) {
            rc = IBR_ENOMEM;
            goto out;
        }
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n && c->live[a]; b++) {
            if (!c->live[b])
                continue;
            layer_list *x = &ll[c->lay[(size_t)a * n + b]];
            x->p[x->size++] = a * n + b;
        }
    for (unsigned v = 0; v < L; v++)
        ll[v].untried = ll[v].size;
    ibr__rng rng;
    ibr__rng_seed(&rng, ibr_run_options(c->run)->seed);
    unsigned max, min;
    fullest_emptiest(c, &max, &min);
    uint64_t trials = c->cnt[max];
    while (trials > 0 && c->cnt[max] >= c->cnt[min] + BALANCE_GAP && ll[max].untried > 0) {
        layer_list *hi = &ll[max], *lo = &ll[min];
        size_t r = (size_t)ibr__rng_below(&rng, hi->untried);
        uint32_t pid = hi->p[r];
        uint32_t a = pid / n, b = pid % n;
        size_t n1 = path_of(c, a, b, c->p1), n2 = path_of(c, b, a, c->p2);
        rc = move_pair(c, max, min, n1, n2);
        if (rc < 0)
            goto out;
        if (rc == 1) {
            /* not again until the layers change */
            hi->p[r] = hi->p[hi->untried - 1];
            hi->p[hi->untried - 1] = pid;
            hi->untried--;
            trials = trials > 2 ? trials - 2 : 0;
        } else {
            /* out of the untried part, then off the end */
            hi->p[r] = hi->p[hi->untried - 1];
            hi->p[hi->untried - 1] = hi->p[hi->size - 1];
            hi->untried--;
            hi->size--;
            /* into lo's untried part */
            lo->p[lo->size++] = lo->p[lo->untried];
            lo->p[lo->untried++] = pid;
            c->lay[(size_t)a * n + b] = c->lay[(size_t)b * n + a] = (uint8_t)min;
            c->cnt[max] -= 2;
            c->cnt[min] += 2;
            c->moved++;
        }
        unsigned nmax, nmin;
        fullest_emptiest(c, &nmax, &nmin);
        if (nmax != max || nmin != min) {
            max = nmax;
            min = nmin;
            trials = c->cnt[max];
            for (unsigned v = 0; v < L; v++)
                ll[v].untried = ll[v].size;
        }
    }
    rc = 0;
out:
    for (unsigned v = 0; v < L; v++)
        ibr__free(c->ctx, ll[v].p);
    return rc;
}

#define BATCH_TRIES 256 /* batches tried by balance_groups() at most */
#define BATCH_FIRST 1024 /* pairs in the first batch of a group to a layer */

/* Move the pairs pl[0 .. m-1] unchecked from layer `from` to `to`. */
static int move_batch(lash *c, unsigned from, unsigned to, const uint32_t *pl, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        uint32_t a = pl[i] / c->n, b = pl[i] % c->n;
        size_t n1 = path_of(c, a, b, c->p1), n2 = path_of(c, b, a, c->p2);
        int rc = ibr__cdg_move_path(c->g, from, to, c->p1, n1, 1, 0);
        if (rc == 0)
            rc = ibr__cdg_move_path(c->g, from, to, c->p2, n2, 1, 0);
        if (rc != 0)
            return rc < 0 ? rc : IBR_EINTERNAL;
    }
    return 0;
}

/* Try to move k pairs of group g from layer `from` to `to` (the first k of
   the group in `from`, gathered into buf): 0 moved, 1 refused (`to` would
   have a cycle; nothing moved), or an error. */
static int move_group_part(lash *c, unsigned g, unsigned from, unsigned to, size_t k,
                           uint32_t *buf)
{
    uint32_t n = c->n;
    size_t m = 0;
    for (size_t i = c->goff[g]; i < c->goff[g + 1] && m < k; i++) {
        uint32_t a = c->pl[i] / n, b = c->pl[i] % n;
        if (c->lay[(size_t)a * n + b] == from)
            buf[m++] = c->pl[i];
    }
    int rc;
    if ((rc = move_batch(c, from, to, buf, m)) < 0 || (rc = ibr__cdg_order(c->g, to)) < 0)
        return rc;
    if (rc == 1)
        return (rc = move_batch(c, to, from, buf, m)) < 0 ? rc : 1;
    for (size_t i = 0; i < m; i++) {
        uint32_t a = buf[i] / n, b = buf[i] % n;
        c->lay[(size_t)a * n + b] = c->lay[(size_t)b * n + a] = (uint8_t)to;
    }
    c->cnt[from] -= 2 * (uint64_t)m;
    c->cnt[to] += 2 * (uint64_t)m;
    c->moved += m;
    return 0;
}

/* Balancing after the layers by class, by parts of groups instead of one
   checked move per pair: from the fullest layer, the group with the most
   pairs there not yet refused by the emptiest layer sends as many pairs as
   would even the two out (at most all it has there); they move unchecked
   and stay only if the emptiest layer is still acyclic (one topological
   sort), else they move back and half as many are tried, down to one pair,
   after which the group is not offered to that layer again. The first
   batch of a group to a layer is at most BATCH_FIRST pairs, and each
   one taken lets the next be twice as large: a group that a layer refuses
   costs little, one it takes grows to the gap in a few batches. It stops when
   the two layers differ by fewer than BALANCE_GAP paths, no group is left
   to offer, or after BATCH_TRIES batches. */
static int balance_groups(lash *c)
{
    uint32_t n = c->n;
    unsigned L = c->layers;
    size_t (*in)[MAX_LAYERS] = ibr__calloc(c->ctx, 256, sizeof *in); /* pairs per group, layer */
    uint16_t refused[256] = {0}; /* per group: layers that refused a pair of it */
    size_t next[256][MAX_LAYERS];  /* per group and layer: largest batch to try */
    for (unsigned g = 0; g < 256; g++)
        for (unsigned v = 0; v < MAX_LAYERS; v++)
            next[g][v] = BATCH_FIRST;
    size_t maxg = 0;
    for (unsigned g = 0; g < 256; g++)
        if (c->goff[g + 1] - c->goff[g] > maxg)
            maxg = c->goff[g + 1] - c->goff[g];
    uint32_t *buf = ibr__mallocarray(c->ctx, maxg ? maxg : 1, sizeof *buf);
    int rc = IBR_ENOMEM;
    if (!in || !buf)
        goto out;
    for (unsigned g = 0; g < 256; g++)
        for (size_t i = c->goff[g]; i < c->goff[g + 1]; i++)
            in[g][c->lay[(size_t)(c->pl[i] / n) * n + c->pl[i] % n]]++;
    unsigned tries = 0;
    while (L > 1 && tries < BATCH_TRIES) {
        unsigned max, min, g = 256, to = L;
        fullest_emptiest(c, &max, &min);
        /* the lightest layer that some group of the fullest may still go to */
        for (unsigned v = 0; v < L; v++) {
            if (v == max || c->cnt[v] + BALANCE_GAP > c->cnt[max] ||
                (to < L && c->cnt[v] >= c->cnt[to]))
                continue;
            unsigned best = 256;
            for (unsigned k = 0; k < 256; k++)
                if (in[k][max] && !(refused[k] >> v & 1) &&
                    (best == 256 || in[k][max] > in[best][max]))
                    best = k;
            if (best < 256) {
                to = v;
                g = best;
            }
        }
        if (g == 256)
            break;
        size_t want = (size_t)((c->cnt[max] - c->cnt[to]) / 4);
        size_t k = want < 1 ? 1 : want < in[g][max] ? want : in[g][max];
        if (k > next[g][to])
            k = next[g][to];
        for (;; k /= 2, tries++) {
            if (k == 0 || tries >= BATCH_TRIES) {
                refused[g] |= (uint16_t)(1u << to);
                break;
            }
            if ((rc = move_group_part(c, g, max, to, k, buf)) < 0)
                goto out;
            if (rc == 0) {
                in[g][max] -= k;
                in[g][to] += k;
                next[g][to] = 2 * k;
                tries++;
                break;
            }
        }
    }
    rc = 0;
out:
    ibr__free(c->ctx, in);
    ibr__free(c->ctx, buf);
    return rc;
}

/* ---- tables ----------------------------------------------------------- */

/* Is LID `lid` one the options route (within 2^min(port LMC, cap))? */
static int lid_routed(const lash *c, unsigned lid)
{
    const ibr_topo *t = c->t;
    uint32_t gp = t->lid_port[lid];
    if (gp == IBR_NONE || t->lid_sw[lid] == IBR_NONE)
        return 0;
    const ibr__port *p = &t->ports[gp];
    unsigned lmc = p->lmc < c->lmc_cap ? p->lmc : c->lmc_cap;
    return lid - p->lid < (1u << lmc);
}

static int lft_row(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    lash *c = arg;
    const ibr_topo *t = c->t;
    uint32_t x = (uint32_t)i, n = c->n;
    uint8_t *lft = ibr_run_lft(c->run, x);
    if (!lft)
        return IBR_EINTERNAL;
    for (unsigned lid = 1; lid <= t->max_lid; lid++) {
        if (!lid_routed(c, lid))
            continue;
        uint32_t y = t->lid_sw[lid];
        if (y == x) {
            lft[lid] = t->lid_swport[lid];
            continue;
        }
        if (c->hops[(size_t)x * n + y] == 255)
            continue; /* a switch without active ports */
        uint32_t l = c->loff[x] + c->nh[(size_t)x * n + y];
        uint32_t k = c->lcab_off[l + 1] - c->lcab_off[l], idx = 0;
        if (c->spread && k > 1) {
            idx = c->rr[l];
            c->rr[l] = idx + 1 == k ? 0 : idx + 1;
        }
        lft[lid] = t->adj[c->lcab[c->lcab_off[l] + idx]].port;
    }
    return 0;
}

static void fill_sl_row(const lash *c, uint8_t *row, uint32_t x)
{
    const ibr_topo *t = c->t;
    const uint8_t *lay = c->lay + (size_t)x * c->n;
    for (unsigned lid = 1; lid <= t->max_lid; lid++) {
        uint32_t y = t->lid_sw[lid];
        if (y == IBR_NONE)
            continue;
        row[lid] = (uint8_t)(c->start + (y == x ? 0 : lay[y]));
    }
}

/* SL row of end port i (rows 0 .. n_end - 1) or of switch i - n_end. */
static int sl_row(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    lash *c = arg;
    const ibr_topo *t = c->t;
    uint16_t lid;
    uint32_t x;
    if (i < t->n_end) {
        lid = t->ports[t->end_port[i]].lid;
        x = lid ? t->lid_sw[lid] : IBR_NONE;
    } else {
        x = (uint32_t)(i - t->n_end);
        lid = t->ports[t->nodes[t->sw_node[x]].port_off].lid;
    }
    if (!lid || x == IBR_NONE)
        return 0;
    uint8_t *row = ibr_run_sl_row(c->run, lid);
    if (row)
        fill_sl_row(c, row, x);
    return 0;
}

static int write_tables(lash *c)
{
    ibr_run *run = c->run;
    const ibr_topo *t = c->t;
    int rc;
    memset(c->rr, 0, (size_t)c->nl * sizeof *c->rr);
    if ((rc = ibr_run_parallel_for(run, c->n, lft_row, c)) < 0)
        return rc;
    if ((rc = ibr_run_set_sl_mode(run, IBR_SL_PER_PAIR)) < 0)
        return rc;
    if ((rc = ibr_run_parallel_for(run, (size_t)t->n_end + c->n, sl_row, c)) < 0)
        return rc;
    uint8_t ident[16];
    for (unsigned i = 0; i < 16; i++)
        ident[i] = (uint8_t)i;
    for (uint32_t x = 0; x < c->n; x++) {
        unsigned np = t->nodes[t->sw_node[x]].nports;
        for (unsigned ip = 0; ip <= np; ip++)
            for (unsigned op = 0; op <= np; op++)
                if ((rc = ibr_run_set_sl2vl(run, x, ip, op, ident)) < 0)
                    return rc;
    }
    if ((rc = ibr_run_set_layers(run, c->layers)) < 0)
        return rc;
    return ibr_run_set_vls_used(run, c->start + c->layers);
}

static int layers_artifact(lash *c, const char *mesh)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr__buf_printf(&b, c->ctx,
                             "# lash: %u layers needed, %u available, start_vl %u, "
                             "mesh analysis %s, %" PRIu64 " pairs moved by balancing\n"
                             "# layer sl paths_before_balancing paths\n",
                             c->layers, c->avail, c->start, mesh, c->moved);
    if (rc == 0 && c->classed)
        rc = ibr__buf_printf(&b, c->ctx,
                             "# layers by path class: %u groups of pairs, balanced by parts of groups\n",
                             c->groups);
    for (unsigned l = 0; l < c->layers && rc == 0; l++)
        rc = ibr__buf_printf(&b, c->ctx, "%u %u %" PRIu64 " %" PRIu64 "\n", l, c->start + l,
                             c->before[l], c->cnt[l]);
    if (rc == 0)
        rc = ibr_run_add_artifact(c->run, "lash-layers.txt", b.data, b.size);
    ibr_buffer_dispose(&b);
    return rc;
}

/* The routes (source end port, destination LID of an end port) on the
   busiest switch-to-switch cable of the LFTs the current ordering writes
   (written into the run's LFTs, which write_tables() rewrites). Per
   destination LID the routes form a tree toward its switch: one pass from
   the farthest switches inward adds each switch's sources to its cable.
   O(S x LIDs). */
static int busiest(lash *c, uint64_t *out)
{
    const ibr_topo *t = c->t;
    uint32_t n = c->n;
    ibr_context *ctx = c->ctx;
    memset(c->rr, 0, (size_t)c->nl * sizeof *c->rr);
    int rc = ibr_run_parallel_for(c->run, n, lft_row, c);
    if (rc < 0)
        return rc;
    uint64_t *hostw = ibr__calloc(ctx, n, sizeof *hostw);
    uint64_t *sub = ibr__mallocarray(ctx, n, sizeof *sub);
    uint64_t *load = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *load);
    uint32_t *byd = ibr__mallocarray(ctx, n, sizeof *byd);
    uint32_t *doff = ibr__calloc(ctx, (size_t)n + 2, sizeof *doff);
    uint32_t *dlid = ibr__mallocarray(ctx, (size_t)t->max_lid + 1, sizeof *dlid);
    uint8_t **rows = ibr__mallocarray(ctx, n, sizeof *rows);
    rc = IBR_ENOMEM;
    if (!hostw || !sub || !load || !byd || !doff || !dlid || !rows)
        goto out;
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint16_t lid = t->ports[t->end_port[i]].lid;
        if (lid && t->lid_sw[lid] != IBR_NONE)
            hostw[t->lid_sw[lid]]++;
    }
    /* end-port LIDs grouped by their switch */
    for (unsigned lid = 1; lid <= t->max_lid; lid++)
        if (lid_routed(c, lid) && t->nodes[t->port_node[t->lid_port[lid]]].type != IBR_NODE_SWITCH)
            doff[t->lid_sw[lid] + 2]++;
    for (uint32_t x = 0; x < n; x++)
        doff[x + 2] += doff[x + 1];
    for (unsigned lid = 1; lid <= t->max_lid; lid++)
        if (lid_routed(c, lid) && t->nodes[t->port_node[t->lid_port[lid]]].type != IBR_NODE_SWITCH)
            dlid[doff[t->lid_sw[lid] + 1]++] = lid;
    for (uint32_t x = 0; x < n; x++)
        rows[x] = ibr_run_lft(c->run, x);
    uint64_t max = 0;
    for (uint32_t d = 0; d < n; d++) {
        if (doff[d] == doff[d + 1])
            continue;
        /* switches that reach d, farthest first (counting sort on hops) */
        uint32_t cnt[256] = {0}, m = 0;
        for (uint32_t x = 0; x < n; x++) {
            unsigned h = c->hops[(size_t)x * n + d];
            if (x != d && h != 255)
                cnt[h]++;
        }
        for (int h = 254; h >= 1; h--) {
            uint32_t k = cnt[h];
            cnt[h] = m;
            m += k;
        }
        for (uint32_t x = 0; x < n; x++) {
            unsigned h = c->hops[(size_t)x * n + d];
            if (x != d && h != 255)
                byd[cnt[h]++] = x;
        }
        for (uint32_t i = doff[d]; i < doff[d + 1]; i++) {
            unsigned lid = dlid[i];
            for (uint32_t k = 0; k < m; k++)
                sub[byd[k]] = hostw[byd[k]];
            for (uint32_t k = 0; k < m; k++) {
                uint32_t x = byd[k];
                unsigned p = rows[x] ? rows[x][lid] : IBR_NO_ROUTE;
                const ibr__node *nx = &t->nodes[t->sw_node[x]];
                if (p == IBR_NO_ROUTE || p == 0 || p > nx->nports)
                    continue;
                const ibr__port *pt = &t->ports[nx->port_off + p];
                uint64_t v = load[nx->port_off + p] += sub[x];
                if (v > max)
                    max = v;
                if (pt->remote_node != IBR_NONE && t->nodes[pt->remote_node].sw != IBR_NONE)
                    sub[t->nodes[pt->remote_node].sw] += sub[x];
            }
        }
    }
    *out = max;
    rc = 0;
out:
    ibr__free(ctx, hostw);
    ibr__free(ctx, sub);
    ibr__free(ctx, load);
    ibr__free(ctx, byd);
    ibr__free(ctx, doff);
    ibr__free(ctx, dlid);
    ibr__free(ctx, rows);
    return rc;
}

/* Next hops and layers of the current ordering (c->g must be NULL). */
static int lay_out(lash *c, unsigned *needed)
{
    int rc = ibr_run_parallel_for(c->run, c->n, next_hops_row, c);
    if (rc < 0)
        return rc;
    memset(c->cnt, 0, sizeof c->cnt);
    if ((rc = ibr__cdg_create_topo(&c->g, c->t, MAX_LAYERS)) < 0)
        return rc;
    return assign_layers(c, needed);
}

/* Mesh analysis: lay out the links as ibroute's analysis orders them and
   as OpenSM's does (IBR__MESH_OPENSM: OpenSM's order and numbering, quirks
   included), and keep ibroute's unless OpenSM's needs fewer layers or
   gives a less busy cable; so lash never does worse than OpenSM's on either
   count. */
static int mesh_layout(lash *c, lash_variant *var, unsigned *needed, char *desc, size_t dsz)
{
    lash_variant *base = &var[2];
    int rc = 0, same = 0;
    unsigned pick = 0;
    uint64_t l0 = 0, l1 = 0;
    variant_move(c, base, 0);
    for (unsigned k = 0; k < 2; k++) {
        if ((rc = mesh_variant(c, base, k ? IBR__MESH_OPENSM : 0, &var[k])) < 0)
            return rc;
        if (k == 1 && !memcmp(var[0].lnbr, var[1].lnbr, (size_t)c->nl * sizeof *var[0].lnbr) &&
            var[0].nlive == var[1].nlive &&
            !memcmp(var[0].order, var[1].order, (size_t)var[0].nlive * sizeof *var[0].order)) {
            same = 1; /* one ordering: lay it out once */
            var[1].needed = var[0].needed;
            break;
        }
        variant_move(c, &var[k], 1);
        rc = lay_out(c, &var[k].needed);
        variant_move(c, &var[k], 0);
        if (rc < 0)
            return rc;
    }
    if (!same) {
        int f0 = var[0].needed <= c->avail, f1 = var[1].needed <= c->avail;
        if (f0 && f1) {
            for (unsigned k = 0; k < 2; k++) {
                variant_move(c, &var[k], 1);
                rc = busiest(c, k ? &l1 : &l0);
                variant_move(c, &var[k], 0);
                if (rc < 0)
                    return rc;
            }
            pick = var[0].needed <= var[1].needed && l0 <= l1 ? 0 : 1;
        } else {
            pick = f1 && !f0 ? 1 : (!f0 && var[1].needed < var[0].needed);
        }
    }
    variant_move(c, &var[pick], 1);
    *needed = var[pick].needed;
    if (same)
        snprintf(desc, dsz, "on (%s)", var[0].shape);
    else
        snprintf(desc, dsz,
                 "on (%s; %s link order kept: %u layers and busiest cable %" PRIu64
                 ", OpenSM's %u and %" PRIu64 ")",
                 var[pick].shape, pick ? "OpenSM's" : "ibroute's", var[0].needed, l0,
                 var[1].needed, l1);
    return 0;
}

/* ---- the engine ------------------------------------------------------- */

static void lash_free(lash *c)
{
    ibr_context *ctx = c->ctx;
    ibr__free(ctx, c->loff);
    ibr__free(ctx, c->lnbr);
    ibr__free(ctx, c->lcab_off);
    ibr__free(ctx, c->lcab);
    ibr__free(ctx, c->rr);
    ibr__free(ctx, c->nh);
    ibr__free(ctx, c->lay);
    ibr__free(ctx, c->order);
    ibr__free(ctx, c->live);
    ibr__free(ctx, c->p1);
    ibr__free(ctx, c->p2);
    ibr__free(ctx, c->pl);
    ibr__cdg_destroy(c->g);
}

/* Decline unless the switch graph is connected and its diameter fits the
   hop matrix. */
static int check_graph(lash *c)
{
    const ibr_topo *t = c->t;
    uint32_t n = c->n;
    c->live = ibr__calloc(c->ctx, n, 1);
    uint32_t *dist = ibr__mallocarray(c->ctx, n, sizeof *dist);
    if (!dist || !c->live) {
        ibr__free(c->ctx, dist);
        return IBR_ENOMEM;
    }
    uint32_t src = IBR_NONE, unreached = 0, far = 0;
    for (uint32_t x = 0; x < n; x++) {
        const ibr__node *nd = &t->nodes[t->sw_node[x]];
        for (unsigned p = 1; p <= nd->nports && !c->live[x]; p++) {
            const ibr__port *pt = &t->ports[nd->port_off + p];
            c->live[x] = pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE;
        }
        if (c->live[x] && src == IBR_NONE)
            src = x;
        c->nlive += c->live[x];
    }
    int rc = 0;
    if (src != IBR_NONE)
        rc = ibr_topo_bfs(dist, c->t, &src, 1, NULL);
    for (uint32_t x = 0; src != IBR_NONE && rc == 0 && x < n; x++)
        unreached += c->live[x] && dist[x] == UINT32_MAX;
    ibr__free(c->ctx, dist);
    if (rc < 0)
        return rc;
    if (unreached)
        return ibr__decline(
            c->run,
            IBR__MSG("EN037", "the switch graph is disconnected: %u of the %u switches with "
                              "active ports cannot be reached from switch %u over active links"),
            unreached, c->nlive, src);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n && c->live[a]; b++)
            far += c->live[b] && c->hops[(size_t)a * n + b] == 255;
    if (far)
        return ibr__decline(
            c->run, IBR__MSG("EN038", "switches 255 hops or more apart: lash's hop counts stop "
                                      "at 254"));
    return 0;
}

static int lash_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    const ibr_options *o = ibr_run_options(run);
    lash c;
    memset(&c, 0, sizeof c);
    lash_variant var[3]; /* mesh analysis: ibroute's, OpenSM's, the links before */
    memset(var, 0, sizeof var);
    c.run = run;
    c.t = t;
    c.ctx = t->ctx;
    c.n = t->n_sw;
    uint32_t n = c.n;
    int64_t v;
    if (n == 0)
        return ibr__decline(run, IBR__MSG("EN039", "no switches"));
    if (n > 65535)
        return ibr__decline(
            run, IBR__MSG("EN040", "%u switches: lash numbers switch pairs in 32 bits"), n);
    if (ibr_run_setting_int(&v, run, "start_vl") < 0)
        return ibr__fail(run, IBR_EINTERNAL, "setting start_vl unreadable");
    c.start = (unsigned)v;
    unsigned vls = ibr__run_vls(run);
    if (c.start >= vls)
        return ibr__fail(
            run, IBR_ENOVL,
            IBR__MSG("EN041", "start_vl %u leaves no layer below the %u VLs available (max_vls %u, "
                              "ports' OperVLs %u): lash needs at least %u VLs"),
            c.start, vls, o->max_vls, ibr__topo_min_oper_vls(t), c.start + 1);
    c.avail = vls - c.start;
    c.lmc_cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    int rc;
    uint8_t *hops;
    if ((rc = ibr__engine_hops(&hops, run, t)) < 0)
        goto fail;
    c.hops = hops;
    if ((rc = check_graph(&c)) < 0) {
        if (rc == IBR_ENOMEM)
            goto fail;
        goto out;
    }
    if ((rc = build_links(&c)) < 0)
        goto fail;
    c.nh = ibr__mallocarray(c.ctx, (size_t)n * n, 1);
    c.lay = ibr__calloc(c.ctx, (size_t)n * n, 1);
    c.order = ibr__mallocarray(c.ctx, n, sizeof *c.order);
    c.p1 = ibr__mallocarray(c.ctx, MAX_PATH, sizeof *c.p1);
    c.p2 = ibr__mallocarray(c.ctx, MAX_PATH, sizeof *c.p2);
    if (!c.nh || !c.lay || !c.order || !c.p1 || !c.p2)
        goto nomem;
    c.nlive = 0;
    for (uint32_t x = 0; x < n; x++)
        if (c.live[x])
            c.order[c.nlive++] = x;
    ibr__sort(c.order, c.nlive, sizeof *c.order, cmp_switch_map, &c);
    char mesh[320] = "off";
    unsigned needed = 0;
    int64_t above;
    if (ibr_run_setting_int(&v, run, "mesh_analysis") < 0 ||
        ibr_run_setting_int(&above, run, "class_above") < 0) {
        rc = IBR_EINTERNAL;
        goto fail;
    }
    c.by_class = !v && (uint64_t)c.nlive * (c.nlive - 1) / 2 > (uint64_t)above;
    if (v) {
        if ((rc = ibr_run_progress(run, "lash: mesh analysis", 0, 1)) < 0)
            goto out;
        c.spread = 1;
        if ((rc = mesh_layout(&c, var, &needed, mesh, sizeof mesh)) < 0)
            goto fail;
        ibr__log(c.ctx, IBR_LOG_INFO, "lash: mesh analysis %s", mesh);
    } else if ((rc = lay_out(&c, &needed)) < 0) {
        goto fail;
    }
    if (needed > c.avail) {
        rc = ibr__fail(run, IBR_ENOVL,
                       IBR__MSG("EN042",
                                "lash needs more than %u layers but only %u are available (%u VLs "
                                "- start_vl %u; max_vls %u, ports' OperVLs %u): at least 1 short"),
                       c.avail, c.avail, vls, c.start, o->max_vls, ibr__topo_min_oper_vls(t));
        goto out;
    }
    c.layers = needed;
    memcpy(c.before, c.cnt, sizeof c.before);
    if ((rc = ibr_run_progress(run, "lash: balancing", 0, 1)) < 0)
        goto out;
    if ((rc = c.classed ? balance_groups(&c) : balance(&c)) < 0)
        goto fail;
    ibr__cdg_destroy(c.g);
    c.g = NULL;
    ibr__log(c.ctx, IBR_LOG_INFO,
             "lash: %u layers needed, %u available, start_vl %u, %" PRIu64 " pairs moved%s",
             c.layers, c.avail, c.start, c.moved, c.classed ? " (layers by path class)" : "");
    if ((rc = ibr_run_progress(run, "lash: tables", 0, 1)) < 0)
        goto out;
    if ((rc = write_tables(&c)) < 0)
        goto fail;
    if ((rc = layers_artifact(&c, mesh)) < 0)
        goto fail;
    goto out;
nomem:
    rc = IBR_ENOMEM;
fail:
    rc = ibr__engine_fail(run, rc, "layering paths");
out:
    for (unsigned k = 0; k < 3; k++)
        variant_free(c.ctx, &var[k]);
    lash_free(&c);
    return rc;
}

static const ibr_setting lash_settings[] = {
    {"start_vl", IBR_SETTING_INT, 0, 15, 0, NULL,
     "first SL/VL of the layers; lower VLs stay free (OpenSM's lash_start_vl)"},
    {"mesh_analysis", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "recognise a mesh or torus, route in dimension order and spread LIDs over parallel "
     "cables (OpenSM's do_mesh_analysis)"},
    {"class_above", IBR_SETTING_INT, 0, INT64_C(1) << 40, 4000000, NULL,
     "switch pairs above which the layers are built per class of paths (up/down turn "
     "pattern), one cycle check per class, balanced by parts of groups; 0: always (not with "
     "mesh_analysis)"},
};

const ibr_engine ibr__engine_lash = {
    .version = IBR_ENGINE_VERSION,
    .name = "lash",
    .description = "layered shortest paths: switch pairs on virtual layers (SLs) whose "
                   "dependencies stay acyclic",
    .caps = IBR_CAP_LMC | IBR_CAP_SL | IBR_CAP_SL2VL | IBR_CAP_DEADLOCK_FREE |
            IBR_CAP_MINIMAL | IBR_CAP_NEEDS_VLS,
    .route = lash_route,
    .settings = lash_settings,
    .n_settings = sizeof lash_settings / sizeof *lash_settings,
};
