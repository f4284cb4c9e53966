/**
 * @file topo.h
 * @brief The frozen topology: an immutable, index-based view for routing.
 *
 * A topology numbers its switches densely (switch index 0..S-1, in
 * ascending order of the byte-reversed node GUID, which is OpenSM's switch
 * table order on x86) and keeps the node indices of the fabric it was frozen
 * from. It is read-only and can be shared between threads: every function
 * here may be called concurrently on one topology.
 *
 * Queries with a NULL topology return 0, ::IBR_NONE or ::IBR_EINVAL, as
 * their type allows.
 */
#ifndef IBROUTE_TOPO_H
#define IBROUTE_TOPO_H

#include "common.h"
#include "fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Destroy a topology and everything it owns. NULL is ignored. Results
 * computed on it (and ::ibr_node_info::desc pointers read from it) refer to
 * it: destroy them first. The context it was frozen with is not destroyed.
 * Not thread-safe: no other call may be using @p t.
 * Time complexity: O(1) calls to the allocator.
 */
IBR_API void ibr_topo_destroy(ibr_topo *t);

/**
 * The context the topology was frozen with (never NULL: the built-in
 * default context when it was frozen without one or when @p t is NULL).
 * Borrowed: do not destroy it through this pointer. Cannot fail.
 * Thread-safe. Time complexity: O(1).
 */
IBR_API ibr_context *ibr_topo_context(const ibr_topo *t);

/** Number of nodes (same indices as the fabric). Cannot fail.
 *  Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint32_t ibr_topo_node_count(const ibr_topo *t);
/** Number of switches (switch indices are 0 .. count - 1). Cannot fail.
 *  Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint32_t ibr_topo_switch_count(const ibr_topo *t);
/** Number of end ports: CA and router ports that have a LID and an active
 *  cable. These are the sources ibr_result_verify() counts. Cannot fail.
 *  Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint32_t ibr_topo_endport_count(const ibr_topo *t);
/** Highest LID in use, counting every LID of an LMC range (0 when none).
 *  LFTs have max_lid + 1 entries. Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint16_t ibr_topo_max_lid(const ibr_topo *t);

/** Node index of switch @p sw, or ::IBR_NONE for a bad index. Cannot
 *  fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint32_t ibr_topo_switch_node(const ibr_topo *t, uint32_t sw);
/** Switch index of node @p node, or ::IBR_NONE if it is not a switch or
 *  does not exist. Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint32_t ibr_topo_node_switch(const ibr_topo *t, uint32_t node);

/**
 * Describe a node.
 * @param[out] out the caller's description, @c version set (see
 *             ::ibr_node_info); filled on success as far as its version
 *             declares, untouched on failure. Its @c desc is borrowed from
 *             @p t (valid until the topology is destroyed; do not free).
 * @param t the topology. @param node node index.
 * @return 0, ::IBR_EINVAL (NULL @p out or @p t), ::IBR_EVERSION (unknown
 *         @c out->version), ::IBR_ENOTFOUND (bad node). Thread-safe. Time
 *         complexity: O(1).
 */
IBR_API int ibr_topo_node_info(ibr_node_info *out, const ibr_topo *t, uint32_t node);
/**
 * Describe port @p port (0..nports) of node @p node as it was when the
 * fabric was frozen.
 * @param[out] out the caller's description, @c version set (see
 *             ::ibr_port_info); filled on success as far as its version
 *             declares (plain values, nothing to free), untouched on
 *             failure.
 * @param t the topology. @param node node index. @param port port number.
 * @return 0, ::IBR_EINVAL (NULL @p out or @p t), ::IBR_EVERSION (unknown
 *         @c out->version), ::IBR_ENOTFOUND (bad node), ::IBR_ERANGE (port
 *         beyond nports). Thread-safe.
 * Time complexity: O(1).
 */
IBR_API int ibr_topo_port_info(ibr_port_info *out, const ibr_topo *t, uint32_t node,
                               unsigned int port);

/**
 * Data VLs the fabric gives engines that layer routes, as OpenSM 3.3
 * counts them for dfsssp, Nue and LASH: the smallest
 * ::ibr_port_info::oper_vls of a switch port 1..N with an active cable (to
 * a switch or an end port). The engines use no more than this, capped by
 * ibr_options::max_vls.
 * @param t the topology.
 * @return 1, 2, 4, 8 or 15; 15 when no switch port is cabled; 0 for a NULL
 *         @p t. Cannot fail otherwise. Thread-safe. Nothing to free.
 * Time complexity: O(switch ports).
 */
IBR_API unsigned int ibr_topo_data_vls(const ibr_topo *t);

/**
 * Is the cable on port @p port of node @p node throttled: running below
 * the best width or speed both its ends enable (::ibr_port_info
 * width_enabled and speed_enabled; OpenSM's osm_link_is_throttled)? The
 * setting `avoid_throttled_links` of sssp, dfsssp and nue routes around
 * such switch-to-switch cables.
 * @param t the topology. @param node node index. @param port port number.
 * @return 1 when throttled; 0 when not, when the port is not cabled, or
 *         for a NULL @p t, a bad node or port. Thread-safe. Nothing to
 *         free. Time complexity: O(1).
 */
IBR_API int ibr_topo_link_throttled(const ibr_topo *t, uint32_t node, unsigned int port);

/**
 * The port owning a LID (any LID of its LMC range).
 * @param[out] node node index (may be NULL); @param[out] port port number
 *             (0 for a switch; may be NULL).
 * @param t the topology. @param lid the LID.
 * @return 0, ::IBR_EINVAL (NULL @p t), ::IBR_ENOTFOUND (no port owns
 *         @p lid). Nothing to free. Thread-safe. Time complexity: O(1).
 */
IBR_API int ibr_topo_lid_owner(uint32_t *node, unsigned int *port, const ibr_topo *t,
                               uint16_t lid);

/**
 * Find a node by node GUID, or by port GUID (a node GUID wins when a GUID
 * is both).
 * @param[out] node node index (may be NULL). @param[out] port port number
 *             (may be NULL): the matching port for a port GUID; for a node
 *             GUID 0 for a switch and 1 otherwise.
 * @param t the topology. @param guid the GUID.
 * @return 0, ::IBR_EINVAL (NULL @p t), ::IBR_ENOTFOUND. Nothing to free.
 * Thread-safe. Time complexity: O(log(nodes + ports)) (binary search).
 */
IBR_API int ibr_topo_find_guid(uint32_t *node, unsigned int *port, const ibr_topo *t,
                               uint64_t guid);

/**
 * Shortest switch-to-switch distance in hops over active links, or 255 when
 * unreachable (or farther than 254), for a bad switch index and when the
 * allocator fails (the call returns no error code). Runs one breadth-first
 * search: time complexity O(S + E) per call, so engines keep their own
 * tables. Allocates and frees O(S) scratch memory through the topology's
 * context. Thread-safe (uses only its own stack and the allocator).
 */
IBR_API unsigned int ibr_topo_switch_distance(const ibr_topo *t, uint32_t sw_a,
                                              uint32_t sw_b);

#ifdef __cplusplus
}
#endif

#endif
