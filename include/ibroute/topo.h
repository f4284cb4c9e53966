/**
 * @file topo.h
 * @brief The frozen topology: an immutable, index-based view for routing.
 *
 * A topology numbers its switches densely (switch index 0..S-1, in
 * ascending order of the byte-reversed node GUID, which is OpenSM's switch
 * table order on x86) and keeps the node indices of the fabric it was frozen
 * from. It is read-only and can be shared between threads.
 */
#ifndef IBROUTE_TOPO_H
#define IBROUTE_TOPO_H

#include "common.h"
#include "fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Destroy a topology. NULL is ignored. Results computed on it must not be
 *  used with another topology afterwards. */
IBR_API void ibr_topo_destroy(ibr_topo *t);

/** The context the topology was frozen with (never NULL). */
IBR_API ibr_context *ibr_topo_context(const ibr_topo *t);

/** Number of nodes (same indices as the fabric). O(1). */
IBR_API uint32_t ibr_topo_node_count(const ibr_topo *t);
/** Number of switches. O(1). */
IBR_API uint32_t ibr_topo_switch_count(const ibr_topo *t);
/** Number of end ports (CA and router ports that have a LID and a cable). O(1). */
IBR_API uint32_t ibr_topo_endport_count(const ibr_topo *t);
/** Highest LID in use (0 when none). LFTs have max_lid + 1 entries. O(1). */
IBR_API uint16_t ibr_topo_max_lid(const ibr_topo *t);

/** Node index of switch @p sw, or ::IBR_NONE. O(1). */
IBR_API uint32_t ibr_topo_switch_node(const ibr_topo *t, uint32_t sw);
/** Switch index of node @p node, or ::IBR_NONE if it is not a switch. O(1). */
IBR_API uint32_t ibr_topo_node_switch(const ibr_topo *t, uint32_t node);

/** Describe a node. @return 0, ::IBR_ENOTFOUND. O(1). */
IBR_API int ibr_topo_node_info(ibr_node_info *out, const ibr_topo *t, uint32_t node);
/** Describe a port. @return 0, ::IBR_ENOTFOUND, ::IBR_ERANGE. O(1). */
IBR_API int ibr_topo_port_info(ibr_port_info *out, const ibr_topo *t, uint32_t node,
                               unsigned int port);

/**
 * The port owning a LID.
 * @param[out] node node index; @param[out] port port number (0 for a switch).
 * @return 0, ::IBR_ENOTFOUND (no port owns @p lid). O(1).
 */
IBR_API int ibr_topo_lid_owner(uint32_t *node, unsigned int *port, const ibr_topo *t,
                               uint16_t lid);

/**
 * Find a node by node GUID, or by port GUID.
 * @return 0, ::IBR_ENOTFOUND. O(log nodes).
 */
IBR_API int ibr_topo_find_guid(uint32_t *node, unsigned int *port, const ibr_topo *t,
                               uint64_t guid);

/**
 * Shortest switch-to-switch distance in hops over active links, or 255 when
 * unreachable (or farther than 254). Runs one breadth-first search: time
 * complexity O(S + E) per call, so engines keep their own tables.
 * Thread-safe (uses only its own stack and the allocator).
 */
IBR_API unsigned int ibr_topo_switch_distance(const ibr_topo *t, uint32_t sw_a,
                                              uint32_t sw_b);

#ifdef __cplusplus
}
#endif

#endif
