/**
 * @file fabric.h
 * @brief The mutable fabric builder: nodes, ports, links, LIDs.
 *
 * A fabric is built node by node (or by a parser or a generator), then
 * frozen into an immutable ::ibr_topo that engines route. Nodes are
 * addressed by the index ibr_fabric_add_node() returns (dense, from 0, in
 * creation order) and ports by number: port 0 is a switch's management
 * port, external ports are 1..nports.
 *
 * Every call that fails leaves the fabric exactly as it was and records a
 * message readable with ibr_fabric_last_error().
 */
#ifndef IBROUTE_FABRIC_H
#define IBROUTE_FABRIC_H

#include "common.h"
#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A fabric under construction. Opaque. */
typedef struct ibr_fabric ibr_fabric;
/** A frozen, immutable topology. Opaque; see topo.h. */
typedef struct ibr_topo ibr_topo;

/** Link widths, with the InfiniBand LinkWidthActive encoding. */
typedef enum ibr_link_width {
    IBR_WIDTH_UNKNOWN = 0,
    IBR_WIDTH_1X = 1,
    IBR_WIDTH_4X = 2,
    IBR_WIDTH_8X = 4,
    IBR_WIDTH_12X = 8,
    IBR_WIDTH_2X = 16
} ibr_link_width;

/** Link speeds (per lane). */
typedef enum ibr_link_speed {
    IBR_SPEED_UNKNOWN = 0,
    IBR_SPEED_SDR = 1,   /**< 2.5 Gb/s */
    IBR_SPEED_DDR = 2,   /**< 5 Gb/s */
    IBR_SPEED_QDR = 3,   /**< 10 Gb/s */
    IBR_SPEED_FDR10 = 4, /**< 10.3125 Gb/s */
    IBR_SPEED_FDR = 5,   /**< 14.0625 Gb/s */
    IBR_SPEED_EDR = 6,   /**< 25.78125 Gb/s */
    IBR_SPEED_HDR = 7,   /**< 53.125 Gb/s */
    IBR_SPEED_NDR = 8,   /**< 106.25 Gb/s */
    IBR_SPEED_XDR = 9    /**< 212.5 Gb/s */
} ibr_link_speed;

/** Link states. A down link stays in the fabric but carries no route. */
typedef enum ibr_link_state {
    IBR_LINK_ACTIVE = 0, /**< usable */
    IBR_LINK_DOWN = 1    /**< faulty or disabled: engines must avoid it */
} ibr_link_state;

/**
 * Create an empty fabric.
 * @param[out] out receives the fabric (owned by the caller, freed with
 *             ibr_fabric_destroy()).
 * @param ctx  context, or NULL for the default one; must outlive the fabric.
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Time complexity: O(1).
 */
IBR_API int ibr_fabric_create(ibr_fabric **out, ibr_context *ctx);

/** Destroy a fabric. NULL is ignored. Topologies frozen from it stay valid. */
IBR_API void ibr_fabric_destroy(ibr_fabric *f);

/**
 * Message describing the last failure of a call on @p f, naming the node,
 * port or input line; "" when the last call succeeded. Borrowed: valid until
 * the next call on @p f.
 */
IBR_API const char *ibr_fabric_last_error(const ibr_fabric *f);

/**
 * Add a node.
 *
 * @param[out] out   receives the node index (may be NULL).
 * @param f          the fabric.
 * @param type       ::IBR_NODE_SWITCH, ::IBR_NODE_CA or ::IBR_NODE_ROUTER.
 * @param node_guid  node GUID, non-zero and unique among node GUIDs.
 * @param nports     number of external ports, 1..254.
 * @param desc       node description (copied; NULL means ""). Longer than 64
 *                   bytes is truncated to 64 as in NodeDescription.
 *
 * The system-image GUID defaults to @p node_guid. Port GUIDs default to the
 * node GUID for a switch (all its ports share port 0's GUID) and to
 * node GUID + port number for CAs and routers.
 *
 * @return 0; ::IBR_EINVAL (bad type, zero GUID, nports out of 1..254);
 *         ::IBR_EEXIST (duplicate node or port GUID); ::IBR_ERANGE (more than
 *         2^31 nodes); ::IBR_ENOMEM.
 * Time complexity: amortised O(nports). Not thread-safe on one fabric.
 */
IBR_API int ibr_fabric_add_node(uint32_t *out, ibr_fabric *f, ibr_node_type type,
                                uint64_t node_guid, unsigned int nports,
                                const char *desc);

/**
 * Set a node's system-image GUID (0 restores the default, the node GUID).
 * @return 0, ::IBR_ENOTFOUND (bad node). Time complexity: O(1).
 */
IBR_API int ibr_fabric_set_sysimg_guid(ibr_fabric *f, uint32_t node, uint64_t guid);

/**
 * Set a port GUID. For a switch only port 0 may be given and it applies to
 * the whole switch.
 * @return 0, ::IBR_ENOTFOUND (bad node), ::IBR_ERANGE (bad port),
 *         ::IBR_EINVAL (zero GUID), ::IBR_EEXIST (GUID used by another
 *         port). Time complexity: O(1) expected.
 */
IBR_API int ibr_fabric_set_port_guid(ibr_fabric *f, uint32_t node, unsigned int port,
                                     uint64_t guid);

/** Attributes of a link. Initialise with ::IBR_LINK_ATTR_INIT. */
typedef struct ibr_link_attr {
    ibr_link_width width; /**< default ::IBR_WIDTH_4X */
    ibr_link_speed speed; /**< default ::IBR_SPEED_QDR */
    ibr_link_state state; /**< default ::IBR_LINK_ACTIVE */
} ibr_link_attr;

/** Default link attributes: 4x QDR, active. */
#define IBR_LINK_ATTR_INIT { IBR_WIDTH_4X, IBR_SPEED_QDR, IBR_LINK_ACTIVE }

/**
 * Cable port @p pa of node @p a to port @p pb of node @p b.
 *
 * @param attr link attributes, or NULL for ::IBR_LINK_ATTR_INIT.
 * @return 0; ::IBR_ENOTFOUND (bad node index); ::IBR_ERANGE (port 0 or
 *         beyond the node's port count); ::IBR_EBUSY (a port is already
 *         cabled); ::IBR_EINVAL (a port linked to itself, bad attribute).
 * Linking two different ports of the same switch (a loopback cable) is
 * allowed; routing ignores such links.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_add_link(ibr_fabric *f, uint32_t a, unsigned int pa,
                                uint32_t b, unsigned int pb,
                                const ibr_link_attr *attr);

/**
 * Remove the cable on port @p port of node @p node (both ends).
 * @return 0, ::IBR_ENOTFOUND (bad node or the port is not cabled),
 *         ::IBR_ERANGE. Time complexity: O(1).
 */
IBR_API int ibr_fabric_remove_link(ibr_fabric *f, uint32_t node, unsigned int port);

/**
 * Set the state of the link on a port (both ends): the way to inject a fault
 * without forgetting the cable.
 * @return 0, ::IBR_ENOTFOUND (bad node, port not cabled), ::IBR_ERANGE,
 *         ::IBR_EINVAL (bad state). Time complexity: O(1).
 */
IBR_API int ibr_fabric_set_link_state(ibr_fabric *f, uint32_t node, unsigned int port,
                                      ibr_link_state state);

/**
 * Mark every link of a node down (a switch failure) or active again.
 * @return 0, ::IBR_ENOTFOUND, ::IBR_EINVAL. Time complexity: O(ports).
 */
IBR_API int ibr_fabric_set_node_state(ibr_fabric *f, uint32_t node, ibr_link_state state);

/**
 * Give a port its base LID and LMC: the port owns LIDs
 * base .. base + 2^lmc - 1. Switches take their LID on port 0 (the only port
 * of a switch with a LID). @p base must be a multiple of 2^lmc.
 * A base of 0 removes the port's LIDs.
 * @return 0; ::IBR_ENOTFOUND; ::IBR_ERANGE (port, LID beyond 0xBFFF, lmc > 7);
 *         ::IBR_EINVAL (switch port other than 0, base not aligned);
 *         ::IBR_EEXIST (a LID of the range belongs to another port).
 * Time complexity: O(2^lmc) expected.
 */
IBR_API int ibr_fabric_set_lid(ibr_fabric *f, uint32_t node, unsigned int port,
                               uint16_t base, unsigned int lmc);

/** Flags for ibr_fabric_assign_lids(). */
typedef enum ibr_lid_flags {
    IBR_LIDS_KEEP = 0,        /**< keep existing LIDs, fill the others */
    IBR_LIDS_REASSIGN = 1     /**< forget all LIDs and assign afresh */
} ibr_lid_flags;

/**
 * Assign LIDs automatically: every switch gets one LID (port 0, LMC 0);
 * every CA and router port that is cabled gets 2^lmc aligned LIDs. Nodes are
 * numbered in index order, switches first. Existing LIDs are kept unless
 * ::IBR_LIDS_REASSIGN is given; with ::IBR_LIDS_KEEP a port that already has
 * a LID keeps it (and its LMC).
 * @return 0; ::IBR_ERANGE (lmc > 7); ::IBR_ENOSPC (the fabric does not fit in
 *         1..0xBFFF; the message says how many LIDs were needed);
 *         ::IBR_ENOMEM.
 * Time complexity: O(nodes + ports + LIDs).
 */
IBR_API int ibr_fabric_assign_lids(ibr_fabric *f, unsigned int lmc, unsigned int flags);

/** Number of nodes. O(1). */
IBR_API uint32_t ibr_fabric_node_count(const ibr_fabric *f);

/**
 * Find a node by node GUID, or by port GUID when no node has that node GUID.
 * @param[out] out  node index. @param[out] port port number (may be NULL).
 * @return 0, ::IBR_ENOTFOUND. Time complexity: O(1) expected.
 */
IBR_API int ibr_fabric_find_guid(uint32_t *out, unsigned int *port, const ibr_fabric *f,
                                 uint64_t guid);

/** Public description of a node, filled by ibr_fabric_node_info() and ibr_topo_node_info(). */
typedef struct ibr_node_info {
    ibr_node_type type;
    unsigned int nports;   /**< external ports */
    uint64_t node_guid;
    uint64_t sysimg_guid;
    uint64_t port0_guid;   /**< switch port GUID; CA port 1's for CAs */
    const char *desc;      /**< borrowed from the fabric or topology */
} ibr_node_info;

/** Public description of one port. */
typedef struct ibr_port_info {
    uint64_t guid;
    uint16_t lid;          /**< base LID, 0 = none */
    uint8_t lmc;
    uint8_t state;         /**< ::ibr_link_state of the link (when cabled) */
    uint32_t remote_node;  /**< ::IBR_NONE when not cabled */
    unsigned int remote_port;
    ibr_link_width width;
    ibr_link_speed speed;
} ibr_port_info;

/** Describe node @p node. @return 0, ::IBR_ENOTFOUND. O(1). */
IBR_API int ibr_fabric_node_info(ibr_node_info *out, const ibr_fabric *f, uint32_t node);

/** Describe a port. @return 0, ::IBR_ENOTFOUND, ::IBR_ERANGE. O(1). */
IBR_API int ibr_fabric_port_info(ibr_port_info *out, const ibr_fabric *f, uint32_t node,
                                 unsigned int port);

/**
 * Freeze the fabric into an immutable topology for routing. The fabric is
 * not modified and may be changed and frozen again.
 *
 * Ports without a LID get no routes (a warning is logged); call
 * ibr_fabric_assign_lids() first to give every port a LID.
 *
 * @param[out] out receives the topology (owned by the caller, freed with
 *                 ibr_topo_destroy()); it keeps a reference to the context.
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM.
 * Time complexity: O(nodes + ports + max LID). A 40,000-endpoint fabric
 * freezes in milliseconds.
 */
IBR_API int ibr_fabric_freeze(ibr_topo **out, ibr_fabric *f);

/**
 * Copy a fabric.
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Time complexity: O(size).
 */
IBR_API int ibr_fabric_clone(ibr_fabric **out, const ibr_fabric *f);

#ifdef __cplusplus
}
#endif

#endif
