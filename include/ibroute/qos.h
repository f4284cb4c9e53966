/**
 * @file qos.h
 * @brief QoS configuration (OpenSM's `qos_*` options) and the SL2VL and VL
 *        arbitration tables a subnet manager programs with QoS on.
 *
 * A ::ibr_qos_config holds the five QoS parameters of OpenSM's opensm.conf,
 * once for all ports (`qos_max_vls`, `qos_high_limit`, `qos_vlarb_high`,
 * `qos_vlarb_low`, `qos_sl2vl`) and once per port type (the same names
 * with `qos_ca_`, `qos_rtr_`, `qos_sw0_` or `qos_swe_` in place of `qos_`).
 * A port type's value, when set, wins over the global one; an unset global
 * value takes OpenSM's default (see doc/qos.md):
 *
 * | key | default |
 * |-----|---------|
 * | max_vls | 15 |
 * | high_limit | 0 |
 * | vlarb_high | `0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0` |
 * | vlarb_low | `0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4` |
 * | sl2vl | `0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7` |
 *
 * Value syntax, as OpenSM reads it: `max_vls` 1..15 (0 means unset);
 * `high_limit` 0..255 (a negative number means unset); `vlarb_*` a comma
 * list of at most 64 `VL:weight` pairs, VL 0..14 and weight 0..255, the
 * entries not listed being `0:0`; `sl2vl` a comma list of at most 16 VLs
 * 0..15 for SLs 0, 1, ..., the SLs not listed mapping to VL 0 (15 drops the
 * SL); `(null)` unsets a list. Numbers take C base prefixes (`0x`).
 *
 * Passing a configuration in ::ibr_options::qos turns QoS on for
 * ibr_route(): the result then holds, for every port, what OpenSM's QoS
 * manager (`-Q`) would program, read back with ibr_result_sl2vl(),
 * ibr_result_endport_sl2vl() and ibr_result_vlarb(); settings an engine
 * overrides are listed by ibr_result_qos_note(), and SL merges that break
 * an engine's deadlock freedom by ibr_result_sl_hazard().
 *
 * A configuration is used by one thread at a time while it is changed; a
 * configuration nobody changes can be read (and routed with) from several
 * threads.
 */
#ifndef IBROUTE_QOS_H
#define IBROUTE_QOS_H

#include "common.h"
#include "context.h"
#include "formats.h"
#include "route.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A QoS configuration: OpenSM's `qos_*` options. Opaque. */
typedef struct ibr_qos_config ibr_qos_config;

/** Which family of `qos_*` keys: the global one or a port type's. */
typedef enum ibr_qos_target {
    IBR_QOS_GLOBAL = 0, /**< `qos_*`: every port without a value of its type */
    IBR_QOS_CA = 1,     /**< `qos_ca_*`: channel adapter ports */
    IBR_QOS_RTR = 2,    /**< `qos_rtr_*`: router ports */
    IBR_QOS_SW0 = 3,    /**< `qos_sw0_*`: switch port 0 (an enhanced port 0) */
    IBR_QOS_SWE = 4     /**< `qos_swe_*`: switch external ports */
} ibr_qos_target;

/** Entries of a VL arbitration table (high or low), IBA 7.6.9: two blocks
 *  of 32. */
#define IBR_VLARB_ENTRIES 64

/** One VL arbitration entry: a VL and its weight in units of 64 bytes. */
typedef struct ibr_vlarb_entry {
    uint8_t vl;     /**< VL 0..14 */
    uint8_t weight; /**< 0..255; 0 skips the entry */
} ibr_vlarb_entry;

/** The effective QoS parameters of one port type (fixed layout). */
typedef struct ibr_qos_table {
    unsigned int max_vls;    /**< qos_*max_vls, 1..15 */
    unsigned int high_limit; /**< qos_*high_limit, 0..255 */
    ibr_vlarb_entry vlarb_high[IBR_VLARB_ENTRIES]; /**< high-priority table */
    ibr_vlarb_entry vlarb_low[IBR_VLARB_ENTRIES];  /**< low-priority table */
    uint8_t sl2vl[16];       /**< VL of SL 0..15 (15: dropped) */
} ibr_qos_table;

/**
 * Create a configuration with nothing set (every port type gets OpenSM's
 * defaults).
 * @param[out] out receives it (free with ibr_qos_config_destroy()); NULL
 *             on failure.
 * @param ctx context for allocation, or NULL for the default allocator.
 * @return 0, ::IBR_EINVAL (NULL @p out), ::IBR_ENOMEM.
 * Time complexity: O(1).
 */
IBR_API int ibr_qos_config_create(ibr_qos_config **out, ibr_context *ctx);

/** Free a configuration (NULL is fine). Results routed with it do not
 *  refer to it. */
IBR_API void ibr_qos_config_destroy(ibr_qos_config *q);

/** Message of the last failed call on @p q ("" after a success; "" for
 *  NULL). Borrowed until the next call on @p q. */
IBR_API const char *ibr_qos_config_last_error(const ibr_qos_config *q);

/**
 * Read the `qos_*` keys of an opensm.conf held in memory into @p q (keys
 * already set and not in the text keep their values). One `key value` per
 * line (`key=value` is read too); `#` starts a comment; other keys (the
 * rest of opensm.conf) are ignored; a value may be quoted.
 * @param q the configuration. @param buf the text (need not be
 *        NUL-terminated). @param len its size.
 * @return 0; ::IBR_EPARSE (a bad value: the message names the line and the
 *         key; @p q is left as it was); ::IBR_EINVAL (NULL argument).
 * Time complexity: O(len).
 */
IBR_API int ibr_qos_config_parse(ibr_qos_config *q, const char *buf, size_t len);

/**
 * Set one key, e.g. ("qos_ca_sl2vl", "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"),
 * with the value syntax of the file (`(null)`, 0 and -1 unset, as above).
 * @return 0; ::IBR_EINVAL (NULL argument, a key that is no `qos_*`
 *         parameter, or a bad value; the message says which; @p q is left
 *         as it was).
 * Time complexity: O(length of @p value).
 */
IBR_API int ibr_qos_config_set(ibr_qos_config *q, const char *key, const char *value);

/**
 * Non-zero when @p key (a `qos_*` name such as "qos_swe_vlarb_low") is set
 * in @p q; 0 when it is not, for an unknown key or a NULL argument.
 * Time complexity: O(1).
 */
IBR_API int ibr_qos_config_is_set(const ibr_qos_config *q, const char *key);

/**
 * The parameters a port of type @p target gets: its family's values where
 * set, else the global ones, else OpenSM's defaults (what OpenSM's QoS
 * manager builds before masking VLs to a port's operational VLs).
 * @param[out] out written on success. @param q the configuration (NULL:
 *        every default). @param target the port type.
 * @return 0, ::IBR_EINVAL (NULL @p out or an unknown @p target).
 * Time complexity: O(1).
 */
IBR_API int ibr_qos_config_table(ibr_qos_table *out, const ibr_qos_config *q,
                                 ibr_qos_target target);

/**
 * Write @p q in opensm.conf syntax: the set keys, one per line, global
 * family first (what ibr_qos_config_parse() reads back to the same
 * configuration).
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM (@p out unchanged).
 * Time complexity: O(keys).
 */
IBR_API int ibr_qos_config_write(ibr_buffer *out, const ibr_qos_config *q);

/* ---- the tables of a result routed with QoS on ---- */

/** The VL arbitration a port is programmed with (fixed layout): the
 *  entries the port's capabilities take (VLArbitrationLowCap and
 *  HighCap), each VL masked to the port's operational VLs. */
typedef struct ibr_vlarb {
    unsigned int high_limit; /**< PortInfo:VLHighLimit */
    unsigned int n_high;     /**< entries of @c high programmed */
    unsigned int n_low;      /**< entries of @c low programmed */
    ibr_vlarb_entry high[IBR_VLARB_ENTRIES]; /**< high-priority table */
    ibr_vlarb_entry low[IBR_VLARB_ENTRIES];  /**< low-priority table */
} ibr_vlarb;

/**
 * One credit-loop hazard of the programmed SL2VL tables (fixed layout):
 * two SLs the routing uses and keeps on distinct VLs (by the engine's own
 * SL2VL, or SL i on VL i when it has none) share one VL, or one such SL is
 * dropped (VL 15). Hazards are grouped by (@c sl_a, @c sl_b, @c vl): @c
 * count port pairs show the same merge; the first in switch and port order
 * is named.
 */
typedef struct ibr_sl_hazard {
    uint32_t node;          /**< node index of the switch of the first pair */
    unsigned int in_port;   /**< its input port */
    unsigned int out_port;  /**< its output port */
    unsigned int sl_a;      /**< the lower SL */
    unsigned int sl_b;      /**< the higher SL (equal to @c sl_a when dropped) */
    unsigned int vl;        /**< the VL they share (15: dropped) */
    int masked;             /**< non-zero: the configured map keeps them apart,
                                 the output port's operational VLs do not */
    uint64_t count;         /**< port pairs with this merge */
} ibr_sl_hazard;

/** The QoS levels @p r was routed for: the configuration's
 *  `ibr_qos_levels` (1 without QoS, without the key, or for NULL). Each
 *  level's traffic between two ports takes its own SL,
 *  ibr_result_path_sl_level(), on VLs of its own. Cannot fail. Thread-safe.
 *  Time complexity: O(1). */
IBR_API unsigned int ibr_result_qos_levels(const ibr_result *r);

/**
 * SL of QoS level @p level's traffic from the port owning @p src_lid to
 * @p dst_lid: ibr_result_path_sl() plus @p level times the level stride
 * (the layers the engine used; 8 for torus-2QoS, whose SL bit 3 is its
 * QoS level). Level 0 is ibr_result_path_sl().
 * @return the SL, or 0xFF when @p level is not below
 *         ibr_result_qos_levels() (or @p r is NULL). Thread-safe. Time
 *         complexity: as ibr_result_path_sl().
 */
IBR_API unsigned int ibr_result_path_sl_level(const ibr_result *r, unsigned int level,
                                              uint16_t src_lid, uint16_t dst_lid);

/** Non-zero when @p r was routed with QoS on (::ibr_options::qos set):
 *  it then holds the programmed SL2VL and VL arbitration tables. Cannot
 *  fail. Thread-safe. Time complexity: O(1). */
IBR_API int ibr_result_has_qos(const ibr_result *r);

/**
 * The SL2VL map of end port @p port of channel adapter or router @p node
 * (node index): what QoS programs, else what the engine set, else the
 * default (identity, SL 15 to VL 15). Switches: ibr_result_sl2vl().
 * @param[out] out 16 VLs, written on success.
 * @param r the result. @param node node index. @param port port 1..N.
 * @return 0, ::IBR_EINVAL (NULL @p out or a switch @p node), ::IBR_ENOTFOUND
 *         (bad node, NULL @p r), ::IBR_ERANGE (bad port). Thread-safe.
 *         Time complexity: O(1).
 */
IBR_API int ibr_result_endport_sl2vl(uint8_t out[16], const ibr_result *r, uint32_t node,
                                     unsigned int port);

/**
 * The VL arbitration tables and high limit port (@p node, @p port) is
 * programmed with: switch port 0 (an enhanced port 0), switch external
 * ports with a link and end ports with a link, when QoS is on.
 * @param[out] out written on success.
 * @param r the result. @param node node index. @param port port number.
 * @return 0, ::IBR_EINVAL (NULL @p out), ::IBR_ENOTFOUND (bad node, NULL
 *         @p r, QoS off, or a port without a link, which QoS leaves
 *         alone), ::IBR_ERANGE (bad port). Thread-safe.
 *         Time complexity: O(1).
 */
IBR_API int ibr_result_vlarb(ibr_vlarb *out, const ibr_result *r, uint32_t node,
                             unsigned int port);

/** Number of QoS notes: settings the engine overrode ("torus-2QoS
 *  overrides the configured qos_swe_sl2vl") and the engine's warnings on
 *  the configuration (torus-2QoS's unfair VL arbitration across VLs 0-3 or
 *  4-7). 0 without QoS. Cannot fail. Thread-safe. Time complexity: O(1). */
IBR_API size_t ibr_result_qos_note_count(const ibr_result *r);

/** QoS note @p i (borrowed, lives as long as @p r), or NULL for a bad
 *  index. Thread-safe. Time complexity: O(1). */
IBR_API const char *ibr_result_qos_note(const ibr_result *r, size_t i);

/** Number of SL2VL credit-loop hazards (::ibr_sl_hazard) of the programmed
 *  tables; 0 without QoS or when none. Cannot fail. Thread-safe. Time
 *  complexity: O(1). */
IBR_API size_t ibr_result_sl_hazard_count(const ibr_result *r);

/** Hazard @p i, in ascending (sl_a, sl_b) order.
 *  @return 0, ::IBR_EINVAL (NULL @p out), ::IBR_ENOTFOUND (bad index or
 *          NULL @p r). Thread-safe. Time complexity: O(1). */
IBR_API int ibr_result_sl_hazard(ibr_sl_hazard *out, const ibr_result *r, size_t i);

/**
 * Write the VL arbitration tables of every programmed port, modelled on
 * `smpquery vlarb`: per port, in node then port order,
 * @code
 * # VLArbitration tables: Switch 0x0008f10400000001 "sw1" lid 3 port 1 LowCap 8 HighCap 8 HighLimit 0
 * # Low priority VL Arbitration Table:
 * VL    : |0x0 |0x1 |...
 * WEIGHT: |0x0 |0x4 |...
 * # High priority VL Arbitration Table:
 * VL    : |0x0 |0x1 |...
 * WEIGHT: |0x4 |0x0 |...
 * @endcode
 * then an empty line (the node type word is `Switch`, `CA` or `Router`, the
 * LID the port's base LID, a switch's port 0 LID for its ports;
 * the VL and WEIGHT rows are the ones smpquery prints).
 * @return 0, ::IBR_EINVAL (NULL argument, or a result without QoS),
 *         ::IBR_ENOMEM (@p out unchanged). Time complexity: O(ports).
 */
IBR_API int ibr_result_write_vlarb(ibr_buffer *out, const ibr_result *r);

#ifdef __cplusplus
}
#endif

#endif
