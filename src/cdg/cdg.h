/*
 * The channel dependency graph (CDG). A channel is a directed link on a
 * virtual lane; a route that enters a switch on channel a and leaves on
 * channel b makes b's buffer a dependency of a's: the edge a -> b. Routes
 * are free of credit loops (deadlock) exactly when this graph is acyclic.
 *
 * ibr__cdg: the graph engines route with (DFSSSP, LASH, Nue). One object
 *   holds n_layers graphs (layers, or VLs) over the same channels. Every
 *   edge carries a weight, the sum of the weights of the paths that put it
 *   there (a count of paths, or of the pairs a path stands for), so paths
 *   can be added, removed and moved between layers; an edge exists while
 *   its weight is positive. On top of that:
 *   - checked insertion keeps a layer acyclic with the dynamic topological
 *     order of Pearce and Kelly ("A dynamic topological sort algorithm for
 *     directed acyclic graphs", JEA 2006): an edge that agrees with the
 *     current order costs O(1); otherwise only the region between the two
 *     endpoints in the order is searched and reordered, O(d log d) for the
 *     d channels and edges affected (a path that would close a cycle is
 *     rejected and leaves nothing behind);
 *   - a cycle search that returns a witness with its edges' weights and
 *     can be resumed after edges lost weight (break a cycle, ask for the
 *     next): a depth-first search in which a channel turns black only when
 *     all its live edges lead to black channels, an invariant that
 *     deletions preserve, so a layer costs one search plus the
 *     re-exploration below the tree edges that died.
 *
 *   Two storages sit behind the same calls:
 *   - switch graphs (ibr__cdg_create_topo): the channels are the
 *     topology's directed switch-to-switch links (topo->adj), and a
 *     channel entering switch s can only depend on the channels leaving s,
 *     so each layer is a dense array of weights over those possible edges,
 *     the slots: Σ over switches of in-degree x out-degree of them, 8 bytes
 *     each plus a bit (set while the weight is not 0, so that the searches
 *     skip dead slots 64 at a time), allocated when the layer gets its
 *     first edge. Edge lookups are O(1), and slot numbers let an engine
 *     keep its own per-edge data.
 *   - general graphs (ibr__cdg_create): any n channels and any edges, as
 *     adjacency lists (8 bytes per out-edge plus 4 per in-edge, doubled
 *     when full); for graphs whose possible edges are many more than the
 *     real ones, such as the per-VL deadlock check's. Weights count in 32
 *     bits; lookups are O(out-degree).
 *
 *   Complexities below write C for the channels, D for the slots of a
 *   switch graph or the edges of a general graph, deg for a channel's
 *   (possible) out- or in-degree. Every search is iterative: no recursion,
 *   whatever the fabric size. A graph is used by one thread at a time;
 *   workers that fill layers in parallel each fill their own graph and
 *   ibr__cdg_merge adds them up.
 *
 * The credit-loop check of a finished result (src/verify/deadlock.c) is
 * built on it.
 */
#ifndef IBROUTE_CDG_H
#define IBROUTE_CDG_H

#include "core/base.h"
#include "core/topo_int.h"

typedef struct ibr__cdg ibr__cdg;

/* Channel id of directed switch link `adj` (an index into topo->adj) on VL
   `vl`, when nvl VLs are in use (vl < nvl). */
static inline uint32_t ibr__channel(uint32_t adj, unsigned vl, unsigned nvl)
{
    return adj * nvl + vl;
}

/* ---- creation ---------------------------------------------------------- */

/* A general graph: n_layers (>= 1) empty layers over channels
   0 .. n_channels - 1. Returns 0, IBR_EINVAL (no layer) or IBR_ENOMEM.
   O(n_layers); a layer in use takes 24 bytes per channel plus its lists.
   Either kind of graph also takes, on first use, 24 bytes per channel for
   checked insertions (and 4 per layer ordered) and 21 for the search. */
int ibr__cdg_create(ibr__cdg **out, ibr_context *ctx, uint32_t n_channels, unsigned n_layers);

/* A switch graph over t's switch links: channel e is t->adj[e], and its
   possible edges lead to the channels leaving switch t->adj[e].sw. The
   topology is read here only. Returns 0, IBR_EINVAL (no layer), IBR_ERANGE
   (2^32 slots or more) or IBR_ENOMEM. O(C + switches); memory 16 bytes per
   channel, plus 8 bytes and a bit per slot and O(C) per layer in use. */
int ibr__cdg_create_topo(ibr__cdg **out, const ibr_topo *t, unsigned n_layers);

/* Takes NULL. */
void ibr__cdg_destroy(ibr__cdg *g);

/* Allocate layer `layer`'s storage now (a switch graph's weight array), so
   that unchecked additions to a switch graph's layer allocate nothing, e.g.
   before it is filled in a worker thread. 0, IBR_ERANGE, IBR_ENOMEM. */
int ibr__cdg_reserve(ibr__cdg *g, unsigned layer);

/* ---- edges and paths ---------------------------------------------------
   A path is n channels (n - 1 edges: ch[i] -> ch[i + 1]) and a weight w
   (>= 1) that each of its edges gains or loses. These calls return
   IBR_ERANGE and change nothing when the layer or a channel is out of
   range, an edge is not a possible one (switch graphs), w is 0, or a
   weight would overflow or go below zero; a path or edge that fails in
   any way leaves the graph's edges as they were. Time O(n) unless said
   otherwise (general graphs: times the out-degree, to find each edge). */

/* Distinct edges (positive weight) in a layer; 0 for a bad layer. O(1). */
size_t ibr__cdg_edge_count(const ibr__cdg *g, unsigned layer);
/* The channels (vertices) of the graph. */
uint32_t ibr__cdg_channel_count(const ibr__cdg *g);

/* Weight of a -> b in a layer; 0 if absent or out of range. O(1), general
   graphs O(deg). */
uint64_t ibr__cdg_edge_weight(const ibr__cdg *g, unsigned layer, uint32_t a, uint32_t b);

/* Add w to the edge a -> b, without a cycle check. 0, IBR_ERANGE,
   IBR_ENOMEM. O(1) amortised, general graphs O(deg). */
int ibr__cdg_add_edge(ibr__cdg *g, unsigned layer, uint32_t a, uint32_t b, uint64_t w);

/* Add w[i] to the edge pairs[2i] -> pairs[2i + 1] for i < n, without a
   cycle check, all or nothing. 0, IBR_ERANGE, IBR_ENOMEM; a failure adds
   none. O(n), general graphs times the degree. One call per batch keeps a
   switch graph as fast to fill as a plain array (dfsssp's first layer). */
int ibr__cdg_add_edges(ibr__cdg *g, unsigned layer, const uint32_t *pairs, const uint64_t *w,
                       size_t n);

/* Switch graphs: fill a layer through its weights directly, for an
   engine that adds tens of millions of weights at once (dfsssp's first
   layer, at the speed of a plain array). ibr__cdg_fill_begin returns the
   layer's weight per slot (ibr__cdg_slot numbers; allocated, all 0, if the
   layer was empty), or NULL for a general graph, a bad layer or no memory.
   Until ibr__cdg_fill_end(g, layer) the caller may only add to entries of
   that array (each sum must fit in 64 bits) and must make no other call on
   the layer; several graphs may be filled by as many threads. fill_end
   counts the edges born (as additions would) and drops the layer's
   topological order if a new edge disagrees with it. Unchecked: a layer
   may become cyclic. fill_begin O(1) (O(D) to allocate), fill_end O(C + D). */
uint64_t *ibr__cdg_fill_begin(ibr__cdg *g, unsigned layer);
void ibr__cdg_fill_end(ibr__cdg *g, unsigned layer);

/* Add a path to a layer.
   check = 0: unconditionally (the layer may become cyclic); O(n).
   check = 1: only if the layer stays acyclic; returns 1 and adds nothing
   when the path would close a cycle. Costs O(n) for edges that exist or
   agree with the layer's topological order, otherwise the Pearce-Kelly
   search of the region affected; the first checked insertion after an
   unchecked one that disagreed with the order computes a new order first,
   O(C + D), and fails with IBR_ESTATE if the layer has a cycle.
   Returns 0 (added), 1 (rejected), IBR_ERANGE, IBR_ESTATE, IBR_ENOMEM. */
int ibr__cdg_add_path(ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n, uint64_t w,
                      int check);

/* Would adding this path to the layer close a cycle? 1 yes, 0 no, or an
   error of ibr__cdg_add_path. The graph is left as it was (the layer's
   topological order may change). Cost: ibr__cdg_add_path's, checked. */
int ibr__cdg_would_cycle(ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n);

/* Take w off each edge of the path; edges reaching 0 disappear. 0 or
   IBR_ERANGE (some edge has less than w: nothing is removed). Removals
   keep a topological order valid. */
int ibr__cdg_remove_path(ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n, uint64_t w);

/* Move a path of weight w from layer `from` to layer `to` (another one):
   add it to `to` (checked or not, as ibr__cdg_add_path), then remove it
   from `from`. Returns 0 (moved), 1 (check and it would close a cycle in
   `to`: nothing moved), IBR_EINVAL (from == to), IBR_ERANGE, IBR_ESTATE,
   IBR_ENOMEM. */
int ibr__cdg_move_path(ibr__cdg *g, unsigned from, unsigned to, const uint32_t *ch, size_t n,
                       uint64_t w, int check);

/* Move np paths unchecked from layer `from` to layer `to`, as np calls of
   ibr__cdg_move_path(..., 0) would, but all or nothing: path q has len[q]
   channels, following path q - 1's in ch, and weight w[q]. Returns 0,
   IBR_EINVAL (from == to), IBR_ERANGE or IBR_ENOMEM; a failure moves none.
   O(total channels), general graphs times the degree: one call per batch
   keeps engines that move millions of paths (dfsssp) at the speed of an
   inlined loop. */
int ibr__cdg_move_paths(ibr__cdg *g, unsigned from, unsigned to, const uint32_t *ch,
                        const uint32_t *len, const uint64_t *w, size_t np);

/* Add every edge weight of src's layer src_layer to dst's layer. The two
   graphs must have the same storage and channels (two switch graphs of
   one topology, or general graphs of as many channels) and the layers
   must differ: IBR_EINVAL otherwise. 0, IBR_EINVAL, IBR_ERANGE,
   IBR_ENOMEM; a failure changes nothing. O(C + D) for switch graphs,
   general graphs O(D x deg). */
int ibr__cdg_merge(ibr__cdg *dst, unsigned layer, const ibr__cdg *src, unsigned src_layer);

/* Switch graphs: the slot of the possible edge a -> b, in 0 ..
   ibr__cdg_slot_count() - 1, for engines' own per-edge data; IBR_NONE when
   a -> b is not a possible edge (or the graph is a general one). O(1).
   A channel's possible edges have consecutive slots in the order of their
   successors (the channels leaving one switch, consecutive in topo->adj):
   slot(a, b) = slot(a, b0) + (b - b0) for b0 = topo->adj_off[topo->adj[a].sw],
   so an engine may look up slot(a, b0) once per channel. */
uint32_t ibr__cdg_slot(const ibr__cdg *g, uint32_t a, uint32_t b);
/* Switch graphs: slots per layer; general graphs: 0. */
size_t ibr__cdg_slot_count(const ibr__cdg *g);

/* The live out-edges (positive weight) of channel a in a layer, in the
   order the searches follow them (see ibr__cdg_search_begin): returns
   their number and writes the first cap successors to to[]. 0 for a bad
   layer or channel. O(deg); switch graphs skip dead slots 64 at a time. */
size_t ibr__cdg_out_edges(const ibr__cdg *g, unsigned layer, uint32_t a, uint32_t *to,
                          size_t cap);

/* ---- order and cycles -------------------------------------------------- */

/* Give a layer a topological order, so that checked insertions can
   follow: 0 (acyclic), 1 (the layer has a cycle), IBR_ERANGE, IBR_ENOMEM.
   O(1) when its order is still valid, else O(C + D) (Kahn). */
int ibr__cdg_order(ibr__cdg *g, unsigned layer);
/* pos[c] for every channel c: a DFS order of the layer (reverse
   finishing order): a topological order when the layer is acyclic, and
   one that few of its dependencies contradict when not. IBR_ERANGE,
   IBR_ENOMEM or 0. */
int ibr__cdg_dfs_order(ibr__cdg *g, unsigned layer, uint32_t *pos);
/* Start every layer, all still empty, with the order pos (a permutation of
   the channels): checked insertions then reorder less where the
   dependencies to come mostly agree with it. The outcome of every check
   is the same under any order. 0, IBR_ESTATE (a layer has edges),
   IBR_ENOMEM. */
int ibr__cdg_start_order(ibr__cdg *g, const uint32_t *pos);

/* A cycle found by the search: channels ch[0 .. len - 1] with the edges
   ch[i] -> ch[i + 1] and ch[len - 1] -> ch[0], w[i] the weight of the
   edge leaving ch[i]. ch[0] is the channel where the depth-first search
   closed the cycle (the ancestor on its stack). Both arrays belong to the
   graph and last until its next search call. len = 0: no cycle. */
typedef struct ibr__cdg_cycle {
    const uint32_t *ch;
    const uint64_t *w;
    size_t len;
} ibr__cdg_cycle;

/* Start a cycle search of a layer (one search per graph at a time: this
   abandons any other). Channels are roots in index order, and each
   channel's edges are followed in the order of their successors (switch
   graphs: the successors' port order; general graphs: the order the edges
   were first added). 0, IBR_ERANGE, IBR_ENOMEM. O(C). */
int ibr__cdg_search_begin(ibr__cdg *g, unsigned layer);

/* The next cycle of the layer under search, in *out (out->len = 0 once
   the layer is acyclic; later calls say so again). Between two calls the
   caller may take weight off the layer's edges (remove or move paths,
   to break the cycle returned) and change other layers at will; the
   search resumes where it stopped, after unwinding its stack above the
   lowest tree edge that died. A cycle left intact is returned again. Adding
   an edge to the layer ends the search: IBR_ESTATE, as without
   ibr__cdg_search_begin. All calls of one search together cost
   O(C + D) plus, per resumption, the stack's depth and the
   re-exploration below the dead tree edges. (A call that adds an edge to
   the layer and then fails may also end the search.) */
int ibr__cdg_search_next(ibr__cdg *g, ibr__cdg_cycle *out);

/* Find a cycle of a layer (the first of a new search; abandons any search
   in progress). Returns 0 with *len = 0 when acyclic, 0 with the cycle's
   channels in order in (*cycle)[0 .. *len - 1] (as ibr__cdg_cycle.ch;
   caller frees with ibr__free(ctx, *cycle)), IBR_ERANGE or IBR_ENOMEM.
   O(1) when the layer's topological order is valid, else O(C + D). */
int ibr__cdg_find_cycle(ibr__cdg *g, unsigned layer, uint32_t **cycle, size_t *len);

/* ---- credit loops of a finished routing (deadlock.c) ------------------- */

#endif
