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
 * message readable with ibr_fabric_last_error() (except for a NULL fabric
 * and for the const queries, which only return a code).
 *
 * Thread rules: a fabric is a mutable object; calls on one fabric must not
 * overlap (the const queries may run concurrently with each other but not
 * with a modifying call). Different fabrics may be used from different
 * threads at once.
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
    IBR_WIDTH_UNKNOWN = 0, /**< not known (written without a width) */
    IBR_WIDTH_1X = 1,      /**< 1 lane */
    IBR_WIDTH_4X = 2,      /**< 4 lanes (the default) */
    IBR_WIDTH_8X = 4,      /**< 8 lanes */
    IBR_WIDTH_12X = 8,     /**< 12 lanes */
    IBR_WIDTH_2X = 16      /**< 2 lanes */
} ibr_link_width;

/** Link speeds (per lane). */
typedef enum ibr_link_speed {
    IBR_SPEED_UNKNOWN = 0, /**< not known (written without a speed) */
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
 *             ibr_fabric_destroy(); NULL on failure).
 * @param ctx  context, or NULL for the default one; borrowed: it must
 *             outlive the fabric and every topology frozen from it.
 * @return 0, ::IBR_EINVAL (NULL @p out), ::IBR_ENOMEM.
 * Time complexity: O(1). Thread-safe (it creates a new object).
 */
IBR_API int ibr_fabric_create(ibr_fabric **out, ibr_context *ctx);

/**
 * Destroy a fabric and free everything it owns (node descriptions included:
 * ::ibr_node_info::desc pointers obtained from it dangle afterwards). NULL
 * is ignored. Topologies frozen from it stay valid: they own copies.
 * Not thread-safe on one fabric. Time complexity: O(nodes + ports).
 */
IBR_API void ibr_fabric_destroy(ibr_fabric *f);

/**
 * Message describing the last failure of a call on @p f, naming the node,
 * port or input line; "" when the last modifying call succeeded and for a
 * NULL fabric. Borrowed from the fabric: valid until the next call on @p f;
 * do not free. The const queries (ibr_fabric_node_info(), ...) do not
 * change it. Cannot fail. Not thread-safe against calls modifying @p f.
 * Time complexity: O(1).
 */
IBR_API const char *ibr_fabric_last_error(const ibr_fabric *f);

/**
 * Add a node.
 *
 * @param[out] out   receives the node index (may be NULL); untouched on
 *                   failure.
 * @param f          the fabric (::IBR_EINVAL when NULL).
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
 * Ownership: @p desc is copied; nothing is returned that needs freeing.
 * Time complexity: amortised O(nports). Not thread-safe on one fabric.
 */
IBR_API int ibr_fabric_add_node(uint32_t *out, ibr_fabric *f, ibr_node_type type,
                                uint64_t node_guid, unsigned int nports,
                                const char *desc);

/**
 * Set a node's system-image GUID (0 restores the default, the node GUID).
 * System-image GUIDs need not be unique (a chassis shares one).
 * @param f the fabric. @param node node index. @param guid the GUID.
 * @return 0, ::IBR_EINVAL (NULL @p f), ::IBR_ENOTFOUND (bad node).
 * Nothing is allocated. Not thread-safe on one fabric.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_set_sysimg_guid(ibr_fabric *f, uint32_t node, uint64_t guid);

/**
 * Set a port GUID. For a switch only port 0 may be given and it applies to
 * the whole switch; for a CA or router ports 1..nports.
 * @param f the fabric. @param node node index. @param port port number.
 * @param guid the new port GUID, non-zero and unique among port GUIDs.
 * @return 0, ::IBR_ENOTFOUND (bad node), ::IBR_ERANGE (bad port: beyond
 *         the node, a switch port other than 0, port 0 of a CA or router),
 *         ::IBR_EINVAL (NULL @p f, zero GUID), ::IBR_EEXIST (GUID used by
 *         another port), ::IBR_ENOMEM.
 * Nothing is returned that needs freeing. Not thread-safe on one fabric.
 * Time complexity: O(1) expected.
 */
IBR_API int ibr_fabric_set_port_guid(ibr_fabric *f, uint32_t node, unsigned int port,
                                     uint64_t guid);

/** Version of ::ibr_link_attr this header describes. */
#define IBR_LINK_ATTR_VERSION 1

/**
 * Attributes of a link, an input of ibr_fabric_add_link(). Versioned
 * (doc/api-conventions.md): initialise it with ::IBR_LINK_ATTR_INIT or
 * ibr_link_attr_init(), then set the fields; the library reads only the
 * fields the caller's version has, so later versions can add attributes.
 */
typedef struct ibr_link_attr {
    unsigned int version; /**< ::IBR_LINK_ATTR_VERSION */
    ibr_link_width width; /**< default ::IBR_WIDTH_4X */
    ibr_link_speed speed; /**< default ::IBR_SPEED_QDR */
    ibr_link_state state; /**< default ::IBR_LINK_ACTIVE */
} ibr_link_attr;

/** Default link attributes: 4x QDR, active. Equal to what
 *  ibr_link_attr_init() produces. */
#define IBR_LINK_ATTR_INIT { IBR_LINK_ATTR_VERSION, IBR_WIDTH_4X, IBR_SPEED_QDR, IBR_LINK_ACTIVE }

/**
 * Initialise @p attr to the defaults of version @p version (pass
 * ::IBR_LINK_ATTR_VERSION), as ::IBR_LINK_ATTR_INIT does. Only the bytes
 * version @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p attr), ::IBR_EVERSION (unknown version;
 *         @p attr is left untouched).
 * The caller owns @p attr; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_link_attr_init(ibr_link_attr *attr, unsigned int version);

/**
 * Cable port @p pa of node @p a to port @p pb of node @p b.
 *
 * @param f    the fabric (::IBR_EINVAL when NULL).
 * @param a    node index of one end. @param pa its port, 1..nports.
 * @param b    node index of the other end. @param pb its port, 1..nports.
 * @param attr link attributes, or NULL for ::IBR_LINK_ATTR_INIT; borrowed
 *             for the call (copied into both ports) and read as far as
 *             its @c version declares.
 * @return 0; ::IBR_ENOTFOUND (bad node index); ::IBR_ERANGE (port 0 or
 *         beyond the node's port count); ::IBR_EBUSY (a port is already
 *         cabled); ::IBR_EINVAL (a port linked to itself, bad attribute);
 *         ::IBR_EVERSION (unknown @c attr->version).
 * A cable between two different ports of the same node (a loopback plug,
 * which real ibnetdiscover dumps can show) is accepted; it never carries
 * routes. A port cabled to itself is rejected.
 * Nothing is allocated. Not thread-safe on one fabric.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_add_link(ibr_fabric *f, uint32_t a, unsigned int pa,
                                uint32_t b, unsigned int pb,
                                const ibr_link_attr *attr);

/**
 * Remove the cable on port @p port of node @p node (both ends). The ports
 * keep their GUIDs and LIDs.
 * @param f the fabric. @param node node index. @param port its port.
 * @return 0, ::IBR_EINVAL (NULL @p f), ::IBR_ENOTFOUND (bad node or the
 *         port is not cabled), ::IBR_ERANGE (port 0 or beyond nports).
 * Nothing is allocated. Not thread-safe on one fabric.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_remove_link(ibr_fabric *f, uint32_t node, unsigned int port);

/**
 * Set the state of the link on a port (both ends): the way to inject a fault
 * without forgetting the cable.
 * @param f the fabric. @param node node index. @param port its port.
 * @param state ::IBR_LINK_ACTIVE or ::IBR_LINK_DOWN.
 * @return 0, ::IBR_ENOTFOUND (bad node, port not cabled), ::IBR_ERANGE
 *         (port 0 or beyond nports), ::IBR_EINVAL (NULL @p f, bad state).
 * Nothing is allocated. Not thread-safe on one fabric.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_set_link_state(ibr_fabric *f, uint32_t node, unsigned int port,
                                      ibr_link_state state);

/**
 * Mark every link of a node down (a switch failure) or active again.
 * Uncabled ports are skipped; a node without cables succeeds unchanged.
 * @param f the fabric. @param node node index.
 * @param state ::IBR_LINK_ACTIVE or ::IBR_LINK_DOWN.
 * @return 0, ::IBR_ENOTFOUND (bad node), ::IBR_EINVAL (NULL @p f, bad
 *         state). Nothing is allocated. Not thread-safe on one fabric.
 * Time complexity: O(ports of the node).
 */
IBR_API int ibr_fabric_set_node_state(ibr_fabric *f, uint32_t node, ibr_link_state state);

/**
 * Give a port its base LID and LMC: the port owns LIDs
 * base .. base + 2^lmc - 1. Switches take their LID on port 0 (the only port
 * of a switch with a LID). @p base must be a multiple of 2^lmc.
 * A base of 0 removes the port's LIDs. The port's previous LIDs are
 * released.
 * @param f the fabric. @param node node index. @param port the port.
 * @param base base LID, 0 or 1..0xBFFF. @param lmc 0..7.
 * @return 0; ::IBR_ENOTFOUND (bad node); ::IBR_ERANGE (port beyond nports,
 *         port 0 of a CA or router, LID range beyond 0xBFFF, lmc > 7);
 *         ::IBR_EINVAL (NULL @p f, switch port other than 0, base not
 *         aligned); ::IBR_EEXIST (a LID of the range belongs to another
 *         port); ::IBR_ENOMEM (the first LID of a fabric allocates its
 *         LID table).
 * Nothing is returned that needs freeing. Not thread-safe on one fabric.
 * Time complexity: O(2^lmc) (O(nodes) to name the owner in the message
 * when the LID is taken).
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
 * Uncabled CA and router ports get no LID. LIDs are handed out in
 * ascending order from 1, skipping LIDs kept by other ports.
 * @param f the fabric. @param lmc LMC of CA and router ports, 0..7.
 * @param flags ::IBR_LIDS_KEEP or ::IBR_LIDS_REASSIGN.
 * @return 0; ::IBR_EINVAL (NULL @p f, unknown flag bits); ::IBR_ERANGE
 *         (lmc > 7); ::IBR_ENOSPC (the fabric does not fit in 1..0xBFFF;
 *         the message says how many LIDs were needed); ::IBR_ENOMEM. On
 *         failure no LID changes.
 * Nothing is returned that needs freeing. Not thread-safe on one fabric.
 * Time complexity: O(nodes + ports + 0xBFFF) (the LID table is rebuilt).
 */
IBR_API int ibr_fabric_assign_lids(ibr_fabric *f, unsigned int lmc, unsigned int flags);

/**
 * Number of nodes (node indices are 0 .. count - 1); 0 for a NULL fabric.
 * Cannot fail. May run concurrently with other const queries on @p f.
 * A plain value: nothing to free.
 * Time complexity: O(1).
 */
IBR_API uint32_t ibr_fabric_node_count(const ibr_fabric *f);

/**
 * Find a node by node GUID, or by port GUID when no node has that node GUID.
 * @param[out] out  node index. @param[out] port port number (may be NULL):
 *                  for a node GUID match, 0 for a switch and 1 otherwise.
 * @param f the fabric. @param guid the GUID to look up.
 * @return 0, ::IBR_EINVAL (NULL @p f or @p out), ::IBR_ENOTFOUND. No
 *         message is recorded (the fabric is const).
 * Nothing is allocated. May run concurrently with other const queries on
 * @p f. Time complexity: O(1) expected (O(log nodes) for a port GUID).
 */
IBR_API int ibr_fabric_find_guid(uint32_t *out, unsigned int *port, const ibr_fabric *f,
                                 uint64_t guid);

/** Version of ::ibr_node_info this header describes. */
#define IBR_NODE_INFO_VERSION 1

/**
 * Public description of a node, filled by ibr_fabric_node_info() and
 * ibr_topo_node_info(). Versioned (doc/api-conventions.md): the caller
 * sets @c version (initialise it with ::IBR_NODE_INFO_INIT or
 * ibr_node_info_init()) and the library writes only the fields that
 * version has, so later versions can describe more without breaking
 * callers built against this one.
 */
typedef struct ibr_node_info {
    unsigned int version;  /**< set by the caller: ::IBR_NODE_INFO_VERSION */
    ibr_node_type type;    /**< switch, CA or router */
    unsigned int nports;   /**< external ports */
    uint64_t node_guid;    /**< node GUID */
    uint64_t sysimg_guid;  /**< system-image GUID (the node GUID by default) */
    uint64_t port0_guid;   /**< switch port GUID; CA port 1's for CAs */
    const char *desc;      /**< borrowed from the fabric or topology */
} ibr_node_info;

/** An empty node description of the current version, ready to be filled.
 *  Equal to what ibr_node_info_init() produces. */
#define IBR_NODE_INFO_INIT { IBR_NODE_INFO_VERSION, (ibr_node_type)0, 0, 0, 0, 0, NULL }

/**
 * Initialise @p info as ::IBR_NODE_INFO_INIT does, for version @p version
 * (pass ::IBR_NODE_INFO_VERSION). Only the bytes version @p version has
 * are written.
 * @return 0, ::IBR_EINVAL (NULL @p info), ::IBR_EVERSION (unknown version;
 *         @p info is left untouched).
 * The caller owns @p info; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_node_info_init(ibr_node_info *info, unsigned int version);

/** Version of ::ibr_port_info this header describes. Version 2 added
 *  the data-VL and enabled width/speed fields (from @c vl_cap on). */
#define IBR_PORT_INFO_VERSION 2

/**
 * Public description of one port, filled by ibr_fabric_port_info() and
 * ibr_topo_port_info(). Versioned like ::ibr_node_info: the caller sets
 * @c version (::IBR_PORT_INFO_INIT or ibr_port_info_init()) and the
 * library writes only the fields that version has.
 */
typedef struct ibr_port_info {
    unsigned int version;  /**< set by the caller: ::IBR_PORT_INFO_VERSION */
    uint64_t guid;         /**< port GUID (a switch's ports share one; 0 for
                                port 0 of a CA or router) */
    uint16_t lid;          /**< base LID, 0 = none */
    uint8_t lmc;           /**< LMC: the port owns 2^lmc LIDs from @c lid */
    uint8_t state;         /**< ::ibr_link_state of the link (when cabled) */
    uint32_t remote_node;  /**< ::IBR_NONE when not cabled */
    unsigned int remote_port; /**< port at the other end (0 when not cabled) */
    ibr_link_width width;  /**< active link width (when cabled) */
    ibr_link_speed speed;  /**< active link speed (when cabled) */
    /* version 2 */
    unsigned int vl_cap;   /**< data VLs the port supports (PortInfo:VLCap as
                                a count: 1, 2, 4, 8 or 15); 8 unless set
                                with ibr_fabric_set_port_attr(), as ibsim's
                                simulated ports report (VL0-7) */
    unsigned int oper_vls; /**< operational data VLs (PortInfo:OperVLs as a
                                count): as set, else what OpenSM programs:
                                the smaller @c vl_cap of the two ends of the
                                cable (@c vl_cap when not cabled) */
    unsigned int width_enabled; /**< enabled widths, a mask of
                                ::ibr_link_width bits (LinkWidthEnabled);
                                always holds the active @c width */
    unsigned int speed_enabled; /**< enabled speeds, a mask of
                                IBR_SPEED_BIT() bits (LinkSpeedEnabled and
                                its extended form); always holds the active
                                @c speed */
} ibr_port_info;

/** An empty port description of the current version, ready to be filled.
 *  Equal to what ibr_port_info_init() produces. */
#define IBR_PORT_INFO_INIT \
    { IBR_PORT_INFO_VERSION, 0, 0, 0, 0, 0, 0, IBR_WIDTH_UNKNOWN, IBR_SPEED_UNKNOWN, 0, 0, 0, 0 }

/**
 * Initialise @p info as ::IBR_PORT_INFO_INIT does, for version @p version
 * (pass ::IBR_PORT_INFO_VERSION). Only the bytes version @p version has
 * are written.
 * @return 0, ::IBR_EINVAL (NULL @p info), ::IBR_EVERSION (unknown version;
 *         @p info is left untouched).
 * The caller owns @p info; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_port_info_init(ibr_port_info *info, unsigned int version);

/** The bit of speed @p s (an ::ibr_link_speed) in an enabled-speed mask
 *  (::ibr_port_attr::speed_enabled, ::ibr_port_info::speed_enabled). */
#define IBR_SPEED_BIT(s) (1u << (unsigned)(s))

/** Version of ::ibr_port_attr this header describes. */
#define IBR_PORT_ATTR_VERSION 1

/**
 * Per-port facts an SM reads from PortInfo, an input of
 * ibr_fabric_set_port_attr(). Versioned (doc/api-conventions.md):
 * initialise it with ::IBR_PORT_ATTR_INIT or ibr_port_attr_init(), whose
 * zeros mean "the default", then set the fields. The defaults are what
 * OpenSM sees on ibsim's simulated ports: VLCap VL0-7, OperVLs the smaller
 * VLCap of the two ends, and a link running at the best width and speed
 * both ends enable (so never throttled).
 *
 * The routing engines read them: dfsssp, Nue and LASH count the VLs they
 * may use from @c oper_vls (the minimum over switch ports with a peer),
 * torus-2QoS checks its data-VL needs against @c vl_cap, and
 * `avoid_throttled_links` (sssp, dfsssp, Nue) compares the active width
 * and speed of a cable with what both ends enable (doc/engines.md).
 */
typedef struct ibr_port_attr {
    unsigned int version;  /**< ::IBR_PORT_ATTR_VERSION */
    unsigned int vl_cap;   /**< data VLs the port supports: 1, 2, 4, 8 or
                                15 (PortInfo:VLCap 1..5 as a count); 0 =
                                the default, 8 */
    unsigned int oper_vls; /**< operational data VLs: 1, 2, 4, 8 or 15, at
                                most @c vl_cap; 0 = derived as OpenSM
                                programs them: the smaller @c vl_cap of the
                                two ends of the cable */
    unsigned int width_enabled; /**< enabled widths, a mask of
                                ::ibr_link_width bits (1..31); 0 = the
                                active width of the link only. The active
                                width is always taken as enabled. */
    unsigned int speed_enabled; /**< enabled speeds, a mask of
                                IBR_SPEED_BIT(::IBR_SPEED_SDR) ..
                                IBR_SPEED_BIT(::IBR_SPEED_XDR); 0 = the
                                active speed only. The active speed is
                                always taken as enabled. */
} ibr_port_attr;

/** Default port attributes (every field "the default"). Equal to what
 *  ibr_port_attr_init() produces. */
#define IBR_PORT_ATTR_INIT { IBR_PORT_ATTR_VERSION, 0, 0, 0, 0 }

/**
 * Initialise @p attr to the defaults of version @p version (pass
 * ::IBR_PORT_ATTR_VERSION), as ::IBR_PORT_ATTR_INIT does. Only the bytes
 * version @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p attr), ::IBR_EVERSION (unknown version;
 *         @p attr is left untouched).
 * The caller owns @p attr; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_port_attr_init(ibr_port_attr *attr, unsigned int version);

/**
 * Set the PortInfo facts of port @p port (1..nports) of node @p node: its
 * VL capability, operational VLs and enabled widths and speeds. They stay
 * with the port when its cable is removed or replaced. Every field is
 * replaced (a zero restores that field's default).
 * @param f the fabric (::IBR_EINVAL when NULL). @param node node index.
 * @param port port number, 1..nports.
 * @param attr the facts, or NULL for ::IBR_PORT_ATTR_INIT (all defaults);
 *             borrowed for the call and read as far as its @c version
 *             declares.
 * @return 0; ::IBR_ENOTFOUND (bad node); ::IBR_ERANGE (port 0 or beyond
 *         nports); ::IBR_EINVAL (a VL count other than 0, 1, 2, 4, 8 or
 *         15, @c oper_vls above @c vl_cap (8 when 0), a width mask beyond
 *         31, a speed mask with bits outside SDR..XDR); ::IBR_EVERSION
 *         (unknown @c attr->version). On failure the port is unchanged.
 * Nothing is allocated. Not thread-safe on one fabric.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_set_port_attr(ibr_fabric *f, uint32_t node, unsigned int port,
                                     const ibr_port_attr *attr);

/**
 * Describe node @p node.
 * @param[out] out the caller's description, @c version set (see
 *             ::ibr_node_info); filled on success as far as its version
 *             declares, untouched on failure. Its @c desc is borrowed from
 *             @p f (valid until the fabric is destroyed; do not free).
 * @param f the fabric. @param node node index.
 * @return 0, ::IBR_EINVAL (NULL @p out or @p f), ::IBR_EVERSION (unknown
 *         @c out->version), ::IBR_ENOTFOUND (bad node). No message is
 *         recorded (the fabric is const). May run concurrently with other
 *         const queries on @p f.
 * Time complexity: O(1).
 */
IBR_API int ibr_fabric_node_info(ibr_node_info *out, const ibr_fabric *f, uint32_t node);

/**
 * Describe port @p port (0..nports) of node @p node.
 * @param[out] out the caller's description, @c version set (see
 *             ::ibr_port_info); filled on success as far as its version
 *             declares (plain values, nothing to free), untouched on
 *             failure.
 * @param f the fabric. @param node node index. @param port port number.
 * @return 0, ::IBR_EINVAL (NULL @p out or @p f), ::IBR_EVERSION (unknown
 *         @c out->version), ::IBR_ENOTFOUND (bad node), ::IBR_ERANGE (port
 *         beyond nports). No message is recorded. May run concurrently
 *         with other const queries on @p f. Time complexity: O(1).
 */
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
 *                 ibr_topo_destroy(); NULL on failure); it copies what it
 *                 needs from @p f and keeps a borrowed pointer to the
 *                 fabric's context, which must outlive it.
 * @param f the fabric (not const only because its last error is updated).
 * @return 0, ::IBR_EINVAL (NULL @p out or @p f), ::IBR_ENOMEM.
 * Not thread-safe on one fabric.
 * Time complexity: O(nodes + ports + max LID) plus sorting
 * (O(S log S + G log G) for S switches and G GUIDs). A 40,000-endpoint
 * fabric freezes in milliseconds.
 */
IBR_API int ibr_fabric_freeze(ibr_topo **out, ibr_fabric *f);

/**
 * Copy a fabric (nodes, ports, links, states, GUIDs and LIDs; not the last
 * error message). The copy uses the same context.
 * @param[out] out receives the copy (owned by the caller, freed with
 *             ibr_fabric_destroy(); NULL on failure).
 * @param f the fabric to copy, unchanged.
 * @return 0, ::IBR_EINVAL (NULL @p out or @p f), ::IBR_ENOMEM.
 * May run concurrently with other const queries on @p f.
 * Time complexity: O(nodes + ports + 0xBFFF) (the LID table is copied).
 */
IBR_API int ibr_fabric_clone(ibr_fabric **out, const ibr_fabric *f);

#ifdef __cplusplus
}
#endif

#endif
