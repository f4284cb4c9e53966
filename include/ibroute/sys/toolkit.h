/**
 * @file sys/toolkit.h
 * @brief The engine toolkit: what the built-in engines are written with.
 *
 * Every built-in engine is written against sys/engine.h and this header
 * only, so an engine of your own can reuse the same pieces:
 *
 * - the switch graph as compressed rows (ibr_topo_switch_links()), read
 *   without a call per link;
 * - breadth-first searches: distances from a set of switches
 *   (ibr_topo_bfs()) and the all-pairs hop matrix (ibr_topo_switch_hops(),
 *   in parallel);
 * - a parallel loop over the run's worker threads (ibr_run_parallel_for()),
 *   and the same loop outside a run (ibr_parallel_for());
 * - OpenSM's LFT builder (ibr_run_ucast()): given a hop matrix and, per
 *   switch, the candidate output ports toward every switch, it fills every
 *   LFT with OpenSM's destination order, port balancing, LMC spreading and
 *   the options scatter_ports, port_shifting, guid_routing_order,
 *   ignore_ports and port_profile_switch_nodes. minhop is this builder on
 *   the plain hop matrix; updn and dnup pass their own candidates; dor
 *   passes its own in its port search order (ibr_run_ucast_ex());
 * - a credit-loop check of the tables written so far
 *   (ibr_run_find_credit_loop()), for engines that decline rather than
 *   return a routing with a loop.
 *
 * The hop matrix, the LFTs and the SL rows themselves are written through
 * ibr_run_hops(), ibr_run_lft() and ibr_run_sl_row() (sys/engine.h).
 *
 * Thread rules: the ibr_topo_* functions here only read the topology and
 * may run on any thread; the ibr_run_* functions follow sys/engine.h (one
 * thread at a time, during the route function).
 */
#ifndef IBROUTE_SYS_TOOLKIT_H
#define IBROUTE_SYS_TOOLKIT_H

#include "../common.h"
#include "../topo.h"
#include "../verify.h"
#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One active switch-to-switch link seen from one of its ends. */
typedef struct ibr_switch_link {
    uint32_t sw;       /**< the switch at the other end (switch index) */
    uint8_t port;      /**< the local port */
    uint8_t rport;     /**< the port on the other switch */
} ibr_switch_link;

/**
 * The switch graph as compressed rows: the active links of switch @p s are
 * (*links)[(*off)[s]] .. (*links)[(*off)[s + 1] - 1], in ascending local
 * port order; parallel cables appear once per cable; loopback cables, down
 * links and links to CAs or routers are left out. @p off has
 * ibr_topo_switch_count() + 1 entries.
 * @param[out] off receives the row offsets.
 * @param[out] links receives the links. Both are borrowed from @p t: valid
 *        while it lives.
 * @param t the topology.
 * @return the number of links (directed: each cable counts twice), or 0
 *         with both outputs NULL for a NULL argument.
 * Thread-safe. Time complexity: O(1).
 */
IBR_API uint32_t ibr_topo_switch_links(const uint32_t **off, const ibr_switch_link **links,
                                       const ibr_topo *t);

/**
 * Breadth-first search over the switch graph from several sources at once:
 * @p dist[s] becomes the number of links from switch @p s to the nearest
 * source (0 for a source), or UINT32_MAX when no source is reachable.
 * @param[out] dist caller's array of ibr_topo_switch_count() entries.
 * @param t the topology.
 * @param src source switch indices (duplicates allowed).
 * @param n_src the number of sources.
 * @param queue scratch of ibr_topo_switch_count() entries, or NULL to let
 *        the call allocate it through the topology's context; it may be
 *        the @p src array itself.
 * @return 0, ::IBR_EINVAL (NULL @p dist or @p t, NULL @p src with
 *         @p n_src > 0), ::IBR_ENOTFOUND (a source index out of range;
 *         @p dist is then left untouched), ::IBR_ENOMEM.
 * Thread-safe. Time complexity: O(S + E).
 */
IBR_API int ibr_topo_bfs(uint32_t *dist, const ibr_topo *t, const uint32_t *src, size_t n_src,
                         uint32_t *queue);

/**
 * All-pairs hop counts over active switch links: @p out[a * S + b] is the
 * number of links from switch @p a to switch @p b (S =
 * ibr_topo_switch_count(); 255 when unreachable or 255 links or more).
 * One breadth-first search per switch, on @p threads workers (0: one per
 * CPU). @p out may be the run's ibr_run_hops().
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM.
 * Thread-safe. Time complexity: O(S·(S + E)); memory S^2 bytes (the
 * caller's) plus O(S) per worker.
 */
IBR_API int ibr_topo_switch_hops(uint8_t *out, const ibr_topo *t, unsigned int threads);

/** Worker count of the run: ibr_options::threads resolved (1 for small
 *  fabrics when automatic). At least 1. Time complexity: O(1). */
IBR_API unsigned int ibr_run_threads(const ibr_run *run);

/**
 * Body of a parallel loop: item @p i on worker @p worker (0 ..
 * ibr_run_threads() - 1). It must write only what item @p i or the worker
 * owns, and return 0 or a negative error code.
 */
typedef int (*ibr_parallel_fn)(void *arg, unsigned int worker, size_t i);

/**
 * Run @p fn(arg, worker, i) for every i in [0, @p n) on the run's workers
 * (the calling thread is worker 0; items are handed out in blocks). The
 * output of a loop whose items write disjoint data does not depend on the
 * worker count. The ibr_run_* calls must not be made from @p fn, except
 * ibr_run_lft(), ibr_run_sl_row() and writing rows of ibr_run_hops()
 * obtained before the loop.
 * @return 0, the first negative value @p fn returned (in item order; the
 *         remaining items may not run), ::IBR_EINVAL (NULL @p run or
 *         @p fn).
 * Time complexity: O(n) calls of @p fn.
 */
IBR_API int ibr_run_parallel_for(ibr_run *run, size_t n, ibr_parallel_fn fn, void *arg);

/**
 * The loop of ibr_run_parallel_for() outside a routing run, for callers
 * that evaluate independent items (faults, fabrics) with the library's
 * workers: @p fn(arg, worker, i) for every i in [0, @p n) on
 * min(@p threads, @p n) workers, worker 0 being the calling thread.
 * @p threads 0 means one per online CPU (as ibr_options::threads); the
 * count is capped at 64. Items are handed out in blocks; @p fn must write
 * only what item @p i or its worker owns, so the loop's output does not
 * depend on the worker count.
 * @return 0, the first negative value @p fn returned (in item order; the
 *         remaining items may not run), ::IBR_EINVAL (NULL @p fn).
 * Thread-safe. Time complexity: O(n) calls of @p fn.
 */
IBR_API int ibr_parallel_for(unsigned int threads, size_t n, ibr_parallel_fn fn, void *arg);

/**
 * Candidate output ports of switch @p sw toward every switch, for
 * ibr_run_ucast(): write the ports toward switch d, ascending (in the
 * engine's search order with ::IBR_UCAST_SEARCH_ORDER), into
 * cand[cand_off[d] .. cand_off[d + 1] - 1] (cand_off has S + 1 entries,
 * cand room for S times the largest number of switch links of a switch).
 * Called from worker threads, one switch at a time per worker: it must only
 * read shared state.
 */
typedef void (*ibr_cand_fn)(void *arg, uint32_t sw, uint32_t *cand_off, uint8_t *cand);

/**
 * Fill every LFT of the run as OpenSM's unicast manager does: destinations
 * in OpenSM's order (guid_routing_order, then the end ports of switches by
 * decreasing number of end ports, then switches), each switch choosing,
 * among its candidate ports toward the destination's switch, the one that
 * carries the fewest routes so far (ties: lowest port), with LMC LIDs
 * spread over different remote systems and nodes, and the options
 * scatter_ports, port_shifting, guid_routing_order(_no_scatter),
 * ignore_ports and port_profile_switch_nodes. Switches run in parallel on
 * the run's workers; the tables do not depend on the worker count.
 * @param run the run. @param hops the engine's hop matrix (S x S, 255 =
 *        no route), for example ibr_run_hops(): a switch with 255 toward a
 *        destination's switch gets no route to it.
 * @param cands candidate ports per switch, or NULL for the minimum-hop
 *        ports of @p hops (the neighbours one hop closer; what minhop
 *        uses). @param cands_arg passed to @p cands.
 * @param phase name of the progress phase (NULL: "forwarding tables").
 * @return 0, ::IBR_EINVAL (NULL @p run or @p hops), ::IBR_ENOMEM,
 *         ::IBR_ECANCELED (the progress callback asked to stop); on
 *         failure the run's message is set and the engine should return
 *         the code.
 * Time complexity: O(S·S·P) for the candidate lists and O(S·L·C) for the
 * selection (L LIDs, P switch links per switch, C candidates); memory
 * O(S·P) per worker.
 */
IBR_API int ibr_run_ucast(ibr_run *run, const uint8_t *hops, ibr_cand_fn cands, void *cands_arg,
                          const char *phase);

/** Flags of ibr_run_ucast_ex(). */
typedef enum ibr_ucast_flags {
    /** The candidate lists are in the engine's own search order (any
     *  order, not necessarily ascending), and every LID of a port scans
     *  them from the first: no rotation of the first port tried across the
     *  LIDs of a port, which ibr_run_ucast() does with LMC > 0. Ties on the
     *  route count go to the earliest candidate of the list; the LMC
     *  remote-system and remote-node tie-breaks, scatter_ports and
     *  port_shifting work on the list as given. OpenSM's dor builds its
     *  tables this way (the dor engine passes, toward each switch, only the
     *  parallel links to the neighbour of the lowest dimension). */
    IBR_UCAST_SEARCH_ORDER = 1 << 0,
    /** With LMC > 0, spread the LIDs of one port by remote port instead of
     *  by remote system and node: a candidate's tie-break value is the
     *  number of this port's LIDs already sent to the same (remote node,
     *  remote port); among the candidates with the least route count the
     *  first with the smallest value is taken (as in OpenSM, the smallest
     *  value is not reset when a lower route count appears). OpenSM's dor
     *  spreads over parallel links this way. */
    IBR_UCAST_LMC_REMOTE_PORT = 1 << 1
} ibr_ucast_flags;

/**
 * ibr_run_ucast() with ::ibr_ucast_flags: @p flags 0 is exactly
 * ibr_run_ucast(). With ::IBR_UCAST_SEARCH_ORDER the candidate function
 * may list the ports toward a switch in any order (the order it wants
 * searched) and every LID of a port searches them from the first; with
 * ::IBR_UCAST_LMC_REMOTE_PORT the LIDs of a port are spread over remote
 * ports. OpenSM's dor is both flags.
 * @return as ibr_run_ucast(), and ::IBR_EINVAL for an unknown flag (the
 *         run's message says so).
 * Time complexity and memory: as ibr_run_ucast().
 */
IBR_API int ibr_run_ucast_ex(ibr_run *run, const uint8_t *hops, ibr_cand_fn cands,
                             void *cands_arg, const char *phase, unsigned int flags);

/**
 * Look for a credit loop in the tables the run holds so far (LFTs, path
 * SLs and SL2VL tables), as ibr_result_find_credit_loop() does for a result.
 * @param cycle receives up to @p cap channels of the loop (may be NULL
 *        when @p cap is 0).
 * @param cap capacity of @p cycle.
 * @param[out] len the loop's length (0: none).
 * @param run the run.
 * @return 0 (no loop), ::IBR_EDEADLOCK (a loop, copied up to @p cap),
 *         ::IBR_EINVAL (NULL @p run or @p len, NULL @p cycle with a
 *         non-zero @p cap), ::IBR_ENOMEM.
 * Time complexity: as ibr_result_find_credit_loop().
 */
IBR_API int ibr_run_find_credit_loop(ibr_channel *cycle, size_t cap, size_t *len, ibr_run *run);

/**
 * OpenSM's root switch for the tree of @p mlid: among the switches, in
 * OpenSM's switch-table order (ascending byte-reversed node GUID), the
 * first whose largest hop count to a member's switch is the smallest; the
 * switch of a CA member is the switch it is cabled to, and counts one hop
 * more unless that switch is a member itself. Sssp, dfsssp and Nue take
 * their roots this way.
 * @param[out] sw receives the root's switch index.
 * @param run the run. @param hops a hop matrix (S x S, 255 = no path),
 *        for example ibr_run_hops(). @param mlid an MLID of
 *        ibr_run_mcast_groups().
 * @return 0; ::IBR_EINVAL (NULL argument, no groups in the run);
 *         ::IBR_ENOTFOUND (no group has @p mlid, or it has fewer than two
 *         member ports: OpenSM builds no tree then); ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(S · member switches).
 */
IBR_API int ibr_run_mcast_root(uint32_t *sw, ibr_run *run, const uint8_t *hops, uint16_t mlid);

/**
 * Build the default multicast tree of every MLID of ibr_run_mcast_groups()
 * into the run's MFTs, as OpenSM's multicast manager does for engines
 * without trees of their own, then mark the trees built
 * (ibr_run_set_mcast_built()). Per MLID with at least two member ports:
 * the root of ibr_run_mcast_root(); from the root, each switch sends every
 * member it must reach through its candidate port toward the member's
 * switch (port 0 for itself, the cabled port for a CA on it), the
 * lowest-numbered candidate (or, with ::IBR_MCAST_BALANCE in
 * ibr_options::mcast_flags, the one carrying the fewest trees, each switch
 * joining the tree once); the ports used and the upstream port are set,
 * and the branch recurses into the neighbouring switch. An MLID with fewer
 * than two members gets an empty table. Members out of reach are left out
 * of the tree (as OpenSM logs and drops them).
 * @param run the run. @param hops the hop matrix the engine routed with
 *        (S x S, 255 = no path). @param cands candidate ports per switch
 *        as for ibr_run_ucast(), or NULL for the minimum-hop ports of
 *        @p hops (the neighbours one hop closer), which is what OpenSM's
 *        per-port hop tables give every engine but updn and dnup.
 *        @param cands_arg passed to @p cands.
 * @return 0 (also without groups: nothing to do), ::IBR_EINVAL (NULL
 *         @p run or @p hops), ::IBR_ENOMEM (the run's message set).
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(MLIDs · (S · member switches + members · depth · P))
 * plus one call of @p cands per switch in a tree.
 */
IBR_API int ibr_run_mcast_default(ibr_run *run, const uint8_t *hops, ibr_cand_fn cands,
                                  void *cands_arg);

#ifdef __cplusplus
}
#endif

#endif
