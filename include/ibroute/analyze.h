/**
 * @file analyze.h
 * @brief Routing quality analysis: path lengths, link load, congestion
 *        under traffic patterns, effective bisection bandwidth, VL usage.
 *
 * The analysis walks the result's LFTs between end ports: CA and router
 * ports with a LID, cabled to a switch over an active link, numbered
 * 0..N-1 in node index then port order. A flow is (source end port,
 * destination LID of another end port); links are directed
 * switch-to-switch links (host links carry at most what their host sends
 * or receives and are left out). Hop counts, stretch and link loads follow
 * the definitions of ibr_result_verify() and give the same numbers.
 *
 * Traffic patterns:
 * - all-to-all: every end port to every LID of every other end port;
 * - shift k (k = 1..N-1): end port i sends to end port (i + k) mod N;
 * - random permutation: a seeded uniform permutation p, end port i sends to
 *   p(i) (fixed points send nothing);
 * - random bisection: a seeded uniform permutation p, end ports p(2j) and
 *   p(2j+1) send to each other (with N odd one end port stays idle).
 * The random patterns depend only on ibr_analyze_options::seed and their
 * index. Patterns other than all-to-all send to the destination's base LID,
 * or with ibr_analyze_options::base_lid_only = 0 to base LID +
 * (i mod 2^LMC) for source i, spreading sources over the LMC paths.
 *
 * For each pattern the congestion of a link is the number of the pattern's
 * flows crossing it; a flow's share is 1/c for the largest congestion c on
 * its way (1 when it crosses no switch-to-switch link, 0 when its route is
 * broken or its destination unreachable: such flows count in
 * ibr_pattern_stats::unrouted). A pattern's eBB is the mean share of its
 * flows (1 for a pattern without flows). The all-to-all pattern uses the
 * all-to-all link loads as congestion.
 *
 * The eBB bound (ibr_analysis_ebb_bound()) is an upper bound on the eBB
 * any routing over the same cables could reach for the same flows, under
 * this same congestion model: what the fabric's remaining capacity
 * allows, whatever the routing. It never exceeds 1 and reads no route. It
 * rests on cuts: a set S of switches that @e k directed switch-to-switch
 * links leave; the flows from end ports on S to end ports off S each cross
 * one of them, and their shares sum to at most @e k (a link taken by n of
 * them gives each a share of 1/n at most). Likewise for the links
 * entering S. Flows whose destination the source cannot reach count 0,
 * the others at most 1 each. The cuts are every switch with end ports
 * alone (so the bound is defined on any fabric) and, on trees, the
 * connected components of the switches up to each rank (switches ranked
 * by their distance to the nearest switch with end ports): on a fat tree
 * the pods and groups of pods, whose leaving links are their remaining up
 * cables. These cuts are nested; the bound is the maximum flow of a
 * network of the chains of cuts the pattern's flows leave and enter, which
 * is at least the optimum of the linear program "maximise the sum of the
 * shares under every cut's capacity", hence at least any routing's. On an
 * intact fat tree a shift or a permutation leaves the bound at 1; on a
 * degraded one it is what the lost cables force. With the same cuts,
 * removing a cable cannot raise it (capacities only drop); a loss that
 * splits a pod or re-ranks a switch changes the cuts. The family's bound is the mean over its patterns, as the eBB
 * is. For all-to-all the bound is the best of: every switch's links out,
 * every switch's links in, each level cut alone.
 *
 * Workloads (ibr_analyze_options::workloads, from options version 2) run
 * over a rank order: ibr_analyze_options::rank_guids lists the port GUID
 * of each rank (ibr_rank_order_parse() reads one from a file), by default
 * the end ports in their order. The shift, permutation and bisection
 * patterns above run over the ranks too (i and p(i) are ranks). Each
 * workload is a family of patterns evaluated like those: ring (rank i to
 * i + 1 mod n); recursive doubling (step k, i <-> i xor 2^k when that is
 * a rank; one pattern per step, ceil(log2 n) steps); the same two among
 * the ranks of each rail, all rails at once (rails: see
 * ibr_analyze_options::rails; left out when a rank has none); all-to-all
 * (the all-to-all pattern, over every end port); mixture of experts (per
 * pattern, groups of moe_group consecutive ranks, each rank sending to
 * moe_fanout distinct others of its group drawn from the seed); nearest
 * neighbour on the periodic process grid (each rank to its +1 and -1
 * neighbour in every dimension of size 3 or more, to its one neighbour
 * in a dimension of 2); every shift; n_random random permutations. For
 * each: the congestion of a flow (the most flows of its pattern on one
 * link of its path), the eBB and its bound as above (the cut bound on the
 * workload's own flows), the lowest eBB of one pattern, and the limiting
 * links: the top_links busiest links of its most congested pattern (the
 * lowest eBB among equals), written by ibr_analysis_write_json() as the
 * "workloads" list and by ibr_analysis_write_text().
 */
#ifndef IBROUTE_ANALYZE_H
#define IBROUTE_ANALYZE_H

#include "common.h"
#include "formats.h"
#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of ::ibr_analyze_options this header describes. Version 2
 *  added the rank order and the workloads (from @c workloads on). */
#define IBR_ANALYZE_OPTIONS_VERSION 2

/** Traffic patterns to evaluate (bits). */
typedef enum ibr_pattern {
    IBR_PATTERN_ALL_TO_ALL = 1 << 0,  /**< every end port to every other end port */
    IBR_PATTERN_SHIFT = 1 << 1,       /**< i -> (i + k) mod N, for every k in 1..N-1 */
    IBR_PATTERN_PERMUTATION = 1 << 2, /**< n_random seeded random permutations */
    IBR_PATTERN_BISECTION = 1 << 3,   /**< n_random seeded random bisections (pairs, both ways) */
    IBR_PATTERN_ALL = 0xF             /**< all of the above */
} ibr_pattern;

/** Workloads evaluated over the rank order (bits of
 *  ibr_analyze_options::workloads; see "Workloads" below). */
typedef enum ibr_workload {
    IBR_WORKLOAD_RING = 1 << 0,        /**< ring allreduce: rank i -> i + 1 mod n */
    IBR_WORKLOAD_RD = 1 << 1,          /**< recursive doubling: step k, i <-> i xor 2^k */
    IBR_WORKLOAD_RAIL_RING = 1 << 2,   /**< a ring within each rail, all rails at once */
    IBR_WORKLOAD_RAIL_RD = 1 << 3,     /**< recursive doubling within each rail */
    IBR_WORKLOAD_ALL_TO_ALL = 1 << 4,  /**< the all-to-all pattern (every end port) */
    IBR_WORKLOAD_MOE = 1 << 5,         /**< mixture of experts: n_random seeded patterns */
    IBR_WORKLOAD_GRID = 1 << 6,        /**< nearest neighbour on a periodic process grid */
    IBR_WORKLOAD_SHIFT = 1 << 7,       /**< every shift over the rank order */
    IBR_WORKLOAD_PERMUTATION = 1 << 8, /**< n_random seeded random permutations of the ranks */
    IBR_WORKLOAD_ALL = 0x1FF           /**< all of the above */
} ibr_workload;

/** Most limiting links ibr_analyze_options::top_links may ask for. */
#define IBR_WORKLOAD_MAX_TOP 16

/** What to analyse. Versioned (doc/api-conventions.md): initialise it with
 *  ::IBR_ANALYZE_OPTIONS_INIT or ibr_analyze_options_init(); the library
 *  reads only the fields the caller's version has. */
typedef struct ibr_analyze_options {
    unsigned int version;   /**< ::IBR_ANALYZE_OPTIONS_VERSION */
    unsigned int patterns;  /**< ::ibr_pattern bits; default ::IBR_PATTERN_ALL */
    unsigned int n_random;  /**< random permutations and bisections each; default 100 */
    uint64_t seed;          /**< seed of the random patterns; default 1 */
    int base_lid_only;      /**< non-zero: only each port's base LID is a destination
                                 of the patterns (all-to-all always counts every LID);
                                 default 1 */
    unsigned int threads;   /**< 0 = one per CPU, 1 = single-threaded; same numbers either way */
    /* version 2 */
    unsigned int workloads; /**< ::ibr_workload bits; default 0 (none) */
    const uint64_t *rank_guids; /**< port GUID of rank 0, 1, ... (ibr_rank_order_guids()):
                                     the order of every pattern but all-to-all; borrowed for
                                     the call. NULL: the end ports in their own order */
    size_t n_ranks;         /**< entries of @c rank_guids */
    unsigned int grid[3];   /**< process grid of ::IBR_WORKLOAD_GRID, ranks row-major (the
                                 last dimension fastest); {A, B, 0} is 2-D; its product
                                 must be the rank count. {0, 0, 0} (default): A x B with A
                                 the largest divisor of the rank count up to its square root */
    unsigned int moe_group; /**< ranks per group of ::IBR_WORKLOAD_MOE; default 8 */
    unsigned int moe_fanout; /**< destinations of each rank in its group; default 2 */
    unsigned int rails;     /**< rails of the per-rail workloads: 0 (default) reads each
                                 rank's rail from its node description (the number ending
                                 its last word: "node0003 mlx5_2" is rail 2); N > 0 puts
                                 rank i on rail i mod N */
    unsigned int top_links; /**< limiting links kept per workload, at most
                                 ::IBR_WORKLOAD_MAX_TOP; default 5 */
} ibr_analyze_options;

/** Default analysis options. Equal to what ibr_analyze_options_init()
 *  produces. */
#define IBR_ANALYZE_OPTIONS_INIT \
    { IBR_ANALYZE_OPTIONS_VERSION, IBR_PATTERN_ALL, 100, 1, 1, 0, 0, NULL, 0, {0, 0, 0}, 8, 2, 0, 5 }

/**
 * Initialise @p opts to the defaults of options version @p version (pass
 * ::IBR_ANALYZE_OPTIONS_VERSION), as ::IBR_ANALYZE_OPTIONS_INIT does. Only
 * the bytes version @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p opts), ::IBR_EVERSION (unknown version;
 *         @p opts is left untouched).
 * The caller owns @p opts; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_analyze_options_init(ibr_analyze_options *opts, unsigned int version);

/** Congestion of one family of traffic patterns. */
typedef struct ibr_pattern_stats {
    unsigned int patterns;       /**< patterns evaluated (e.g. N-1 shifts) */
    uint64_t flows;              /**< flows over all patterns */
    uint64_t unrouted;           /**< flows whose route is broken or missing */
    uint64_t max_congestion;     /**< most flows on one link, over all patterns */
    double mean_max_congestion;  /**< mean over patterns of the pattern's max */
    uint64_t congestion_free;    /**< patterns whose max congestion is <= 1 */
    double ebb;                  /**< effective bisection bandwidth: mean over patterns of
                                      the mean flow share, a flow getting 1/c of a link
                                      shared by c flows, limited by its worst link */
} ibr_pattern_stats;

/** Results of ibr_result_analyze(). Opaque. */
typedef struct ibr_analysis ibr_analysis;

/** The numbers, copied out by ibr_analysis_summary_get(). Versioned
 *  (doc/api-conventions.md): initialise it with ::IBR_ANALYSIS_SUMMARY_INIT
 *  or ibr_analysis_summary_init(); the library writes only the fields the
 *  caller's version has. */
typedef struct ibr_analysis_summary {
    unsigned int version;        /**< set by the caller: ::IBR_ANALYSIS_SUMMARY_VERSION */
    uint32_t endports;           /**< N */
    uint64_t pairs;              /**< all-to-all flows with a path in the topology */
    uint64_t pairs_routed;       /**< ... correctly routed */
    double avg_hops;             /**< links per routed flow, host links included */
    unsigned int max_hops;       /**< longest routed flow */
    double avg_stretch;          /**< routed hops / shortest hops, averaged */
    double max_stretch;          /**< worst stretch */
    uint64_t links;              /**< directed switch-to-switch links */
    uint64_t max_link_load;      /**< all-to-all flows on the busiest link (edge forwarding index) */
    double mean_link_load;       /**< mean over links */
    double load_ratio;           /**< max / mean (1 = perfectly even) */
    unsigned int vls_used;       /**< distinct VLs carrying flows, over every QoS level
                                      (ibr_analysis_vl_usage_level()) */
    ibr_pattern_stats all_to_all;  /**< the all-to-all pattern (one pattern) */
    ibr_pattern_stats shift;       /**< shift patterns */
    ibr_pattern_stats permutation; /**< random permutations */
    ibr_pattern_stats bisection;   /**< random bisections */
} ibr_analysis_summary;

/** Version of ::ibr_analysis_summary this header describes. */
#define IBR_ANALYSIS_SUMMARY_VERSION 1

/** An empty summary of the current version, ready for
 *  ibr_analysis_summary_get(). Equal to what ibr_analysis_summary_init()
 *  produces. */
#define IBR_ANALYSIS_SUMMARY_INIT                                              \
    { IBR_ANALYSIS_SUMMARY_VERSION, 0, 0, 0, 0.0, 0, 0.0, 0.0, 0, 0, 0.0, 0.0, 0, \
      { 0, 0, 0, 0, 0.0, 0, 0.0 }, { 0, 0, 0, 0, 0.0, 0, 0.0 },                   \
      { 0, 0, 0, 0, 0.0, 0, 0.0 }, { 0, 0, 0, 0, 0.0, 0, 0.0 } }

/**
 * Initialise @p sum as an empty summary of version @p version (pass
 * ::IBR_ANALYSIS_SUMMARY_VERSION), as ::IBR_ANALYSIS_SUMMARY_INIT does.
 * Only the bytes version @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p sum), ::IBR_EVERSION (unknown version;
 *         @p sum is left untouched).
 * The caller owns @p sum; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_analysis_summary_init(ibr_analysis_summary *sum, unsigned int version);

/**
 * Analyse a routing on the topology it was computed on
 * (ibr_result_topo()).
 * @param[out] out receives the analysis (owned by the caller, freed with
 *             ibr_analysis_destroy()). It copies what it reports and does
 *             not refer to @p r or its topology afterwards; it uses the
 *             topology's context, which must outlive it.
 * @param r    a routed result, only read (its topology too).
 * @param opts options or NULL for the defaults; borrowed for the call and
 *             read as far as its @c version declares.
 * @return 0; ::IBR_EINVAL (NULL, failed result, unknown pattern or
 *         workload bits, a rank GUID twice or more ranks than end ports,
 *         n_ranks without rank_guids, moe_group 0, top_links above
 *         ::IBR_WORKLOAD_MAX_TOP, a grid whose product is not the rank
 *         count); ::IBR_ENOTFOUND (a rank GUID that is no end port's);
 *         ::IBR_EVERSION (unknown @c opts->version; no message: the
 *         result is const); ::IBR_ENOMEM.
 * Time complexity: O(S·(S+E) + L·S) for path lengths, link loads and
 * all-to-all (S switches, E links, L LIDs; O(L·(S+N)·Q) when per-pair SLs
 * or SL2VL tables make the VL of a flow depend on its source, Q the QoS
 * levels), O(N^2·D)
 * for the shift patterns (N end ports, D the longest switch path),
 * O(n_random·N·D) for the random ones. Memory: O(S^2 + L·S) (a switch
 * distance matrix and, when shift or random patterns are asked for, a
 * copy of the LFTs laid out for the walks) plus O(S + E + N·D) per worker.
 * An 11,664-host three-level fat tree takes a few seconds, almost all in
 * its 11,663 shifts.
 * Thread-safe on shared read-only inputs. Work is spread over
 * ibr_analyze_options::threads workers; all allocation happens on the
 * calling thread, so the allocator need not be thread-safe.
 */
IBR_API int ibr_result_analyze(ibr_analysis **out, const ibr_result *r,
                               const ibr_analyze_options *opts);

/** Destroy an analysis and everything it owns. NULL is ignored. Not
 *  thread-safe: no other call may be reading @p a. Time complexity: O(1). */
IBR_API void ibr_analysis_destroy(ibr_analysis *a);

/**
 * Copy the numbers into the caller's @p out, as far as its version
 * declares (initialise it with ::IBR_ANALYSIS_SUMMARY_INIT or
 * ibr_analysis_summary_init() first; nothing in it needs freeing).
 * @param[out] out the caller's summary; @c out->version is kept.
 * @param a the analysis.
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_EVERSION (unknown
 *         @c out->version; @p out is left untouched).
 * Thread-safe (the analysis is read-only). Time complexity: O(1).
 */
IBR_API int ibr_analysis_summary_get(ibr_analysis_summary *out, const ibr_analysis *a);

/**
 * Hop histogram: @p counts[h] = routed all-to-all flows of h links, for
 * h = 0 .. max hops.
 * @param[out] counts caller-owned array of @p cap entries (may be NULL
 *        when @p cap is 0, to learn the size). @param cap its capacity.
 * @param[out] needed max hops + 1 (may be NULL); set also on ::IBR_ERANGE.
 * @param a the analysis.
 * @return 0, ::IBR_EINVAL (NULL @p a, NULL @p counts with a non-zero
 *         @p cap), ::IBR_ERANGE (cap too small; nothing copied).
 * Thread-safe. Time complexity: O(max hops).
 */
IBR_API int ibr_analysis_hop_histogram(uint64_t *counts, size_t cap, size_t *needed,
                                       const ibr_analysis *a);

/**
 * Paths per VL: @p counts[vl], for vl = 0..15, is the number of routed
 * all-to-all flows that travel on VL @c vl over at least one
 * switch-to-switch hop (a flow may use several VLs; flows between two
 * ports of one switch use none). The VL of the hop of switch @c s from
 * port @c in to port @c out is @c map[sl] for ibr_result_sl2vl(map, r, s,
 * in, out), with
 * @c sl = ibr_result_path_sl(r, source LID, destination LID) and @c in the
 * port the source is cabled to at the first switch; without SLs and SL2VL
 * tables every flow uses VL 0. With QoS levels (ibr_result_qos_levels()
 * above 1) these are level 0's flows; ibr_analysis_vl_usage_level() gives
 * every level's.
 * @param[out] counts the caller's array of 16 entries. @param a the
 *        analysis.
 * @return 0, ::IBR_EINVAL (NULL argument). Thread-safe.
 * Time complexity: O(1).
 */
IBR_API int ibr_analysis_vl_usage(uint64_t counts[16], const ibr_analysis *a);

/**
 * QoS levels the analysed routing was made for (ibr_result_qos_levels() of
 * the result: 1 without levels; 0 for NULL). Every all-to-all flow exists
 * once per level, on the level's SL (ibr_result_path_sl_level()).
 * Thread-safe. Time complexity: O(1).
 */
IBR_API unsigned int ibr_analysis_qos_levels(const ibr_analysis *a);

/**
 * Paths per VL of QoS level @p level: as ibr_analysis_vl_usage(), with
 * each flow on its level-@p level SL, ibr_result_path_sl_level(r, level,
 * source LID, destination LID), mapped through the result's SL2VL tables.
 * Level 0 gives what ibr_analysis_vl_usage() gives. Levels that share no
 * VL with each other have disjoint non-zero entries.
 * @param[out] counts the caller's array of 16 entries. @param a the
 *        analysis. @param level 0 .. ibr_analysis_qos_levels() - 1.
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ERANGE (no such level;
 *         @p counts untouched). Thread-safe. Time complexity: O(1).
 */
IBR_API int ibr_analysis_vl_usage_level(uint64_t counts[16], const ibr_analysis *a,
                                        unsigned int level);

/**
 * All-to-all load of every directed switch-to-switch link, in the order of
 * the topology's links (switch index, then ascending port): @p loads[i].
 * @param[out] loads caller-owned array of @p cap entries (may be NULL
 *        when @p cap is 0). @param cap its capacity.
 * @param[out] needed number of links (may be NULL); set also on
 *             ::IBR_ERANGE.
 * @param a the analysis.
 * @return 0, ::IBR_EINVAL (NULL @p a, NULL @p loads with a non-zero
 *         @p cap), ::IBR_ERANGE (cap too small; nothing copied).
 * Thread-safe. Time complexity: O(links).
 */
IBR_API int ibr_analysis_link_loads(uint64_t *loads, size_t cap, size_t *needed,
                                    const ibr_analysis *a);

/**
 * The eBB bound of a pattern family (see the top of this file): an upper
 * bound on the ::ibr_pattern_stats::ebb any routing over the analysed
 * fabric's cables could reach for the same patterns, routing-independent.
 * eBB / bound says how far the routing is from what the fabric allows.
 * @param[out] out receives the bound, in [0, 1]; untouched on failure.
 * @param a the analysis. @param pattern one ::ibr_pattern bit.
 * @return 0, ::IBR_EINVAL (NULL argument, @p pattern not one bit of
 *         ::IBR_PATTERN_ALL), ::IBR_ENOTFOUND (that family was not
 *         evaluated: not asked for, or fewer than 2 end ports).
 * Thread-safe. Time complexity: O(1); computing it in ibr_result_analyze()
 * costs O(F·d) per pattern of F flows, d the cuts a flow crosses (twice
 * the tree's depth), plus a maximum flow on a network of the crossed cuts
 * when one of them has more flows than links; for all-to-all O(N_L^2)
 * (N_L switches with end ports).
 */
IBR_API int ibr_analysis_ebb_bound(double *out, const ibr_analysis *a, unsigned int pattern);

/**
 * Write the analysis as JSON (one object), appended to the caller's buffer
 * (left as it was on failure; free it with ibr_buffer_dispose()). Keys:
 * "engine", "options" (patterns, n_random, seed, base_lid_only), the
 * fields of ::ibr_analysis_summary under their own names (each pattern
 * family an object with the fields of ::ibr_pattern_stats, "ebb_bound"
 * (ibr_analysis_ebb_bound()) and "ebb_vs_bound", eBB / bound),
 * "hop_histogram" (array indexed by hops), "vl_usage" (16 numbers, level
 * 0), "qos_levels" and "vl_usage_levels" (one array of 16 per QoS level);
 * with workloads also "ranks", "workload_options" ("workloads", the
 * "rails" found, the "grid" used, "moe_group", "moe_fanout", "n_random",
 * "seed") and "workloads", a list of one object per
 * workload (ibr_analysis_workload() order) with the keys "name",
 * "patterns", "flows", "unrouted", "max_congestion",
 * "mean_max_congestion", "mean_flow_congestion", "congestion_free",
 * "ebb", "worst_ebb", "ebb_bound", "ebb_vs_bound", "worst_pattern",
 * "steps" (per step of recursive doubling: "step", "flows", "unrouted",
 * "max_congestion", "ebb", "ebb_bound"; empty for the others) and
 * "limiting_links" (each "switch", "guid", "port", "peer", "peer_guid",
 * "peer_port", "flows").
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer),
 *         ::IBR_ENOMEM. Thread-safe on a shared analysis, one buffer per
 *         thread. Time complexity: O(max hops + output).
 */
IBR_API int ibr_analysis_write_json(ibr_buffer *out, const ibr_analysis *a);

/**
 * Write the analysis as a human-readable text report, appended to the
 * caller's buffer (left as it was on failure).
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer),
 *         ::IBR_ENOMEM. Thread-safe on a shared analysis, one buffer per
 *         thread. Time complexity: O(max hops + output).
 */
IBR_API int ibr_analysis_write_text(ibr_buffer *out, const ibr_analysis *a);

/** A rank order: the end port of each rank. Opaque, immutable once
 *  parsed. */
typedef struct ibr_rank_order ibr_rank_order;

/**
 * Parse a rank order held in memory against a topology: one rank per
 * line, rank 0 first. A line names an end port (a CA or router port with
 * a LID, cabled to a switch) by its port GUID ("0x0002c90300000101"), by
 * its node's GUID (the node's first end port), as a line of
 * `ibr order`'s rank-order.txt (tab-separated rank, index, port GUID,
 * LID, description: the GUID counts), by the node description whole
 * ("node0003 mlx5_2"), by a description or host name and a port number
 * ("H3 HCA-1 2"), or by a host name, the first word of descriptions, as
 * a hostfile lists it (words after it such as "slots=8" are ignored): the
 * first end port of the first node so named. Blank lines and lines
 * starting with '#' are skipped.
 * @param[out] out receives the order (owned by the caller, freed with
 *             ibr_rank_order_destroy()). On ::IBR_EPARSE it receives an
 *             empty order whose ibr_rank_order_last_error() names the line
 *             ("rank order line 4: unknown host or node description 'x'",
 *             "... already has a rank (line 2)"); on other errors NULL.
 * @param t the topology (its context allocates). @param buf the text (need
 *        not be NUL-terminated). @param len its size.
 * @return 0; ::IBR_EPARSE; ::IBR_EINVAL (NULL argument); ::IBR_ENOMEM.
 * Time complexity: O(len + N log N), N nodes. Thread-safe.
 */
IBR_API int ibr_rank_order_parse(ibr_rank_order **out, const ibr_topo *t, const char *buf,
                                 size_t len);

/** Destroy a rank order. NULL is ignored. */
IBR_API void ibr_rank_order_destroy(ibr_rank_order *o);

/** Why the parse failed, or "". Borrowed. O(1). */
IBR_API const char *ibr_rank_order_last_error(const ibr_rank_order *o);

/** Number of ranks. O(1). */
IBR_API size_t ibr_rank_order_count(const ibr_rank_order *o);

/** The port GUID of each rank, rank 0 first, ready for
 *  ibr_analyze_options::rank_guids; NULL when empty. Borrowed. O(1). */
IBR_API const uint64_t *ibr_rank_order_guids(const ibr_rank_order *o);

/**
 * Number of workloads the analysis evaluated (ibr_analyze_options::workloads,
 * in bit order, less those that do not apply: the per-rail ones without
 * rails); 0 for NULL. Thread-safe. O(1).
 */
IBR_API size_t ibr_analysis_workload_count(const ibr_analysis *a);

/**
 * Workload @p i: its name ("ring", "recursive_doubling", "rail_ring",
 * "rail_recursive_doubling", "all_to_all", "moe", "grid", "shift",
 * "permutation"), its statistics and its eBB bound.
 * @param[out] name borrowed string (may be NULL). @param[out] stats the
 *        statistics as the pattern families have them (may be NULL).
 * @param[out] bound the eBB bound (may be NULL). @param a the analysis.
 * @param i 0 .. ibr_analysis_workload_count() - 1.
 * @return 0, ::IBR_EINVAL (NULL @p a), ::IBR_ERANGE (no such workload;
 *         nothing written). Thread-safe. O(1).
 */
IBR_API int ibr_analysis_workload(const char **name, ibr_pattern_stats *stats, double *bound,
                                  const ibr_analysis *a, size_t i);

#ifdef __cplusplus
}
#endif

#endif
