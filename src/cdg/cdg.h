/*
 * The channel dependency graph (CDG). A channel is a directed link on a
 * virtual lane; a route that enters a switch on channel a and leaves on
 * channel b makes b's buffer a dependency of a's: the edge a -> b. Routes
 * are free of credit loops (deadlock) exactly when this graph is acyclic.
 *
 * ibr__cdg is a mutable graph for engines that route while watching for
 *   cycles (LASH, DFSSSP, Nue). Edges are reference counted (one count per
 *   path using them), so paths can be added and removed. Checked insertion
 *   keeps the graph acyclic with the dynamic topological order of Pearce
 *   and Kelly ("A dynamic topological sort algorithm for directed acyclic
 *   graphs", JEA 2006): an edge that agrees with the current order costs
 *   O(1); otherwise only the region between the two endpoints in the order
 *   is searched and reordered, O(d log d) for d nodes and edges affected.
 *   Unchecked insertion (add everything, break cycles afterwards, as DFSSSP
 *   does) is O(1) amortised; ibr__cdg_find_cycle then returns a witness.
 *   Memory is O(channels + distinct dependencies). Every search is
 *   iterative: no recursion, whatever the fabric size.
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

int ibr__cdg_create(ibr__cdg **out, ibr_context *ctx, uint32_t n_channels);
void ibr__cdg_destroy(ibr__cdg *g);
uint32_t ibr__cdg_channel_count(const ibr__cdg *g);
/* Distinct dependencies present. */
size_t ibr__cdg_edge_count(const ibr__cdg *g);
/* Paths (reference count) using the dependency a -> b; 0 if absent. */
uint32_t ibr__cdg_edge_refs(const ibr__cdg *g, uint32_t a, uint32_t b);

/* Add the dependencies of a path of n channels (n - 1 edges).
   check = 0: add unconditionally (the graph may become cyclic).
   check = 1: add only if no cycle results; returns 1 and adds nothing
   when the path would close a cycle.
   Returns 0 (added), 1 (rejected), IBR_ENOMEM, or IBR_ESTATE when check is
   asked on a graph that already has a cycle. */
int ibr__cdg_add_path(ibr__cdg *g, const uint32_t *ch, size_t n, int check);

/* Would adding this path close a cycle? 1 yes, 0 no, <0 error. The graph
   is left as it was. */
int ibr__cdg_would_cycle(ibr__cdg *g, const uint32_t *ch, size_t n);

/* Remove one reference from each dependency of the path (dependencies that
   reach zero disappear). Removing what was not added is a no-op. */
void ibr__cdg_remove_path(ibr__cdg *g, const uint32_t *ch, size_t n);

/* Find a cycle. Returns 0 with *len = 0 when acyclic, 0 with the cycle's
   channels in order in (*cycle)[0 .. *len - 1] (edge (*cycle)[i] ->
   (*cycle)[i + 1], and the last back to the first; caller frees with
   ibr__free(ctx, *cycle)), or IBR_ENOMEM. O(channels + edges). */
int ibr__cdg_find_cycle(const ibr__cdg *g, uint32_t **cycle, size_t *len);

#endif
