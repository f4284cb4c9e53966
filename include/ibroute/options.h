/**
 * @file options.h
 * @brief Routing options shared by all engines.
 *
 * The struct is transparent and versioned: initialise it with
 * ::IBR_OPTIONS_INIT or ibr_options_init(), then set the fields you need.
 * New fields are only ever appended, with a version bump; the library reads
 * only the fields the caller's version has. Pointers are borrowed for the
 * duration of the call that receives the options; the library copies what
 * it keeps.
 */
#ifndef IBROUTE_OPTIONS_H
#define IBROUTE_OPTIONS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** lmc value meaning "route every LID that each port owns". */
#define IBR_LMC_TOPO 0xFFu

/** A (node GUID, port number) pair, as in OpenSM's ignore-guids file. */
typedef struct ibr_guid_port {
    uint64_t guid;     /**< switch node GUID */
    unsigned int port; /**< external port number */
} ibr_guid_port;

/** A (switch GUID, id) pair: updn's ids file. */
typedef struct ibr_guid_id {
    uint64_t guid; /**< switch node GUID */
    uint64_t id;   /**< the id that replaces the GUID in tie-breaking */
} ibr_guid_id;

/**
 * One engine setting for a routing call: @c name is "engine.setting" (for
 * example "ftree.max_reverse_hops"), @c value its text ("2", "true", or a
 * whole configuration for a STRING setting). The settings each engine
 * takes are listed by ibr_context_engine() and `ibr engines`. Both strings are
 * borrowed for the call.
 */
typedef struct ibr_param {
    const char *name;  /**< "engine.setting" */
    const char *value; /**< the value as text */
} ibr_param;

/**
 * Progress callback for long routing calls: @p done of @p total units of
 * the current phase @p phase. Return non-zero to cancel (the call then
 * fails with ::IBR_ECANCELED). Runs on the calling thread.
 */
typedef int (*ibr_progress_fn)(void *user, const char *phase, uint64_t done,
                               uint64_t total);

/** Version of ::ibr_options this header describes. Version 1 ends with
 *  @c n_params; version 2 adds @c mcast_groups and @c mcast_flags; version
 *  3 adds @c qos. */
#define IBR_OPTIONS_VERSION 3

/**
 * Routing options. ibr_route() validates them before any engine runs and
 * fails with ::IBR_EINVAL (the message names the field) when @c lmc is
 * neither 0..7 nor ::IBR_LMC_TOPO, @c max_vls is outside 1..15, a list has
 * a count but a NULL pointer, @c threads exceeds 1024, or an entry of
 * @c params names no known engine or setting or has a value the setting
 * does not accept (when a name appears twice, the last value counts).
 * Options an engine does not use are ignored by it. Lists are borrowed for
 * the call.
 */
typedef struct ibr_options {
    unsigned int version;  /**< ::IBR_OPTIONS_VERSION */
    /** Route the first 2^lmc LIDs of each port's range; ::IBR_LMC_TOPO
     *  (default) routes all the LIDs the topology gives each port. */
    unsigned int lmc;
    /** Data virtual lanes available to engines that layer routes (1..15,
     *  default 8). */
    unsigned int max_vls;
    /** Seed of every random choice; 0 disables scatter_ports. Recorded in
     *  the result. Default 0. */
    uint64_t seed;
    /** Non-zero: among equally good output ports pick one at random
     *  (seeded by @c seed), as OpenSM's scatter_ports. Default 0. */
    int scatter_ports;
    /** Non-zero: OpenSM's port_shifting, which de-aligns LIDs across
     *  switches. Default 0. */
    int port_shifting;
    /** Non-zero: routes to switch LIDs also count in port balancing
     *  (OpenSM's port_profile_switch_nodes). Default 0. */
    int port_profile_switch_nodes;
    /** Root switch GUIDs (updn, ftree); NULL/0 = detect. */
    const uint64_t *root_guids;
    size_t n_root_guids;      /**< entries of @c root_guids */
    /** Compute-node port GUIDs (ftree, sssp, dfsssp). */
    const uint64_t *cn_guids;
    size_t n_cn_guids;        /**< entries of @c cn_guids */
    /** I/O-node port GUIDs (ftree, sssp, dfsssp). */
    const uint64_t *io_guids;
    size_t n_io_guids;        /**< entries of @c io_guids */
    /** Destination port GUIDs in the order routes are assigned (the
     *  guid_routing_order file); listed ports are routed first. */
    const uint64_t *guid_routing_order;
    size_t n_guid_routing_order; /**< entries of @c guid_routing_order */
    /** Non-zero: ports in guid_routing_order are not scattered. */
    int guid_routing_order_no_scatter;
    /** Switch ports whose routes do not count in load equalisation (OpenSM's
     *  ignore-guids / port_prof_ignore_file). */
    const ibr_guid_port *ignore_ports;
    size_t n_ignore_ports;    /**< entries of @c ignore_ports */
    /** updn ids: replace switch GUIDs in tie-breaking. */
    const ibr_guid_id *ids;
    size_t n_ids;             /**< entries of @c ids */
    /** Worker threads: 0 = automatic (default: one per online CPU, at most
     *  64, or one thread for fabrics small enough that starting workers
     *  costs more than it saves: switches x LIDs below 2^18), 1 = single
     *  threaded, at most 1024. Results are identical whatever the count. */
    unsigned int threads;
    /** Progress/cancel callback, or NULL. */
    ibr_progress_fn progress;
    void *progress_user;      /**< passed to @c progress as @c user */
    /** Engine settings, "engine.setting" = "value" (see ::ibr_param);
     *  NULL/0 = every engine's defaults. */
    const ibr_param *params;
    size_t n_params;          /**< entries of @c params */
    /** Version 2: the multicast groups to build trees for (mcast.h), or
     *  NULL (default) for none. Borrowed for the call; the result keeps a
     *  copy of each MLID's members. It must be bound to the topology being
     *  routed (ibr_route() fails with ::IBR_EINVAL otherwise). */
    const struct ibr_mcast_groups *mcast_groups;
    /** Version 2: ::ibr_mcast_flags bits for the library's default trees
     *  (0, default: OpenSM's trees). */
    unsigned int mcast_flags;
    /** Version 3: QoS on (OpenSM's `-Q`) with this configuration (qos.h),
     *  or NULL (default) for QoS off. With QoS on the result holds the
     *  SL2VL and VL arbitration tables OpenSM's QoS manager would program
     *  (an engine that owns SL2VL, torus-2QoS, keeps its maps), and the
     *  deadlock check uses them. Borrowed for the call. */
    const struct ibr_qos_config *qos;
} ibr_options;

/** Default options. Equal to what ibr_options_init() produces. */
#define IBR_OPTIONS_INIT                                                       \
    { IBR_OPTIONS_VERSION, IBR_LMC_TOPO, 8, 0, 0, 0, 0, NULL, 0, NULL, 0,      \
      NULL, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0,   \
      NULL }

/**
 * Initialise @p opts to the defaults of options version @p version (pass
 * ::IBR_OPTIONS_VERSION). The caller owns @p opts; the defaults hold no
 * pointers, so nothing needs freeing.
 * @return 0, ::IBR_EINVAL (NULL), ::IBR_EVERSION (unknown version; @p opts
 *         is left untouched).
 * Time complexity: O(1). Thread-safe.
 */
IBR_API int ibr_options_init(ibr_options *opts, unsigned int version);

#ifdef __cplusplus
}
#endif

#endif
