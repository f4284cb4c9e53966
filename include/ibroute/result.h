/**
 * @file result.h
 * @brief Routing results: LFTs, hops, path SLs, SL2VL, multicast, artefacts.
 *
 * A result is immutable once ibr_route() (or a reader such as
 * ibr_result_parse_lfts()) returns it, and can be read from many threads.
 * It refers to the topology it was computed on, which must outlive it.
 * Switches are addressed by switch index (see topo.h).
 *
 * Every accessor here is read-only and thread-safe, accepts a NULL result
 * (returning 0, "", NULL, 255, ::IBR_NO_ROUTE or an error code as its type
 * allows) and allocates nothing. Pointers it hands out are borrowed from
 * the result: valid until ibr_result_destroy(), never to be freed by the
 * caller.
 */
#ifndef IBROUTE_RESULT_H
#define IBROUTE_RESULT_H

#include "common.h"
#include "mcast.h"
#include "route.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Destroy a result and every table, message and artefact it owns (pointers
 * borrowed from it dangle afterwards). NULL is ignored. The topology is not
 * touched. Not thread-safe: no other call may be reading @p r.
 * Time complexity: O(attempts + multicast groups + artefacts).
 */
IBR_API void ibr_result_destroy(ibr_result *r);

/** The topology the result belongs to (borrowed; NULL for a NULL
 *  result). Cannot fail. Thread-safe. Time complexity: O(1). */
IBR_API const ibr_topo *ibr_result_topo(const ibr_result *r);

/** Outcome: 0 for a routed result, else the error ibr_route() (or
 *  ibr_result_parse_lfts()) returned; ::IBR_EINVAL for a NULL result.
 *  Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API int ibr_result_status(const ibr_result *r);

/** Name of the engine that produced the tables ("file" for
 *  ibr_result_parse_lfts()); "" on failure. Borrowed from the result.
 *  Cannot fail. Thread-safe. Time complexity: O(1). */
IBR_API const char *ibr_result_engine(const ibr_result *r);

/** Why the result failed (for ::IBR_EUNROUTABLE, every attempt's reason
 *  in turn), or "" when it did not. Borrowed from the result. Cannot fail.
 *  Thread-safe. Time complexity: O(1). */
IBR_API const char *ibr_result_last_error(const ibr_result *r);

/** Seed the routing used (ibr_options::seed; 0 when the options were
 *  rejected or the result was read from a file). Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint64_t ibr_result_seed(const ibr_result *r);

/** Worker threads the engine ran with: ibr_options::threads resolved (0,
 *  automatic, becomes one per online CPU, or 1 for fabrics small enough
 *  that workers cost more than they save); 0 when the options were
 *  rejected or the result was read from a file. The tables do not depend
 *  on it. Cannot fail. Thread-safe. Time complexity: O(1). */
IBR_API unsigned int ibr_result_threads(const ibr_result *r);

/**
 * Number of engine settings recorded: every setting the engine that
 * produced the result declares, with the value it ran with (the caller's
 * from ibr_options::params, or the default). 0 for a failed result or an
 * engine without settings. Cannot fail. Time complexity: O(1).
 */
IBR_API size_t ibr_result_setting_count(const ibr_result *r);

/**
 * Setting @p i of the result.
 * @param[out] name receives "engine.setting" (may be NULL).
 * @param[out] value receives its value as text (BOOL as "0"/"1", INT in
 *             decimal, STRING as given; may be NULL). Both strings are
 *             borrowed from the result.
 * @param r the result. @param i index, 0 .. ibr_result_setting_count() - 1.
 * @return 0, ::IBR_EINVAL (NULL @p r), ::IBR_ENOTFOUND (index out of
 *         range). Thread-safe. Time complexity: O(1).
 */
IBR_API int ibr_result_setting(const char **name, const char **value, const ibr_result *r,
                               size_t i);

/** Number of engines tried, the successful one included (0 when the
 *  chain or the options were rejected before any engine ran). Cannot fail.
 *  Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API size_t ibr_result_attempt_count(const ibr_result *r);

/**
 * Engine attempt @p i, in the order tried.
 * @param[out] engine name (borrowed from the result);
 * @param[out] status 0 or the error the engine returned (::IBR_EDECLINED
 *             when it did not apply);
 * @param[out] message why it declined or failed ("" on success; borrowed).
 *             Any output may be NULL.
 * @param r the result. @param i attempt index, 0 .. ibr_result_attempt_count() - 1.
 * @return 0, ::IBR_ENOTFOUND (bad index or NULL @p r). Thread-safe.
 * Time complexity: O(1).
 */
IBR_API int ibr_result_attempt(const char **engine, int *status, const char **message,
                               const ibr_result *r, size_t i);

/** Number of entries of every LFT: the topology's max LID + 1 (also set on
 *  a failed result). Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API size_t ibr_result_lft_size(const ibr_result *r);

/**
 * The whole LFT of switch @p sw (ibr_result_lft_size() entries, indexed by
 * LID, ::IBR_NO_ROUTE where there is no route), borrowed for the lifetime of
 * the result (do not free or modify it); NULL for a bad switch index or a
 * failed result. The LFTs of all switches are one array, in switch index
 * order: the LFT of switch @p sw is ibr_result_lft(r, 0) + @p sw x
 * ibr_result_lft_size(r), so the whole table is
 * ibr_topo_switch_count() x ibr_result_lft_size() bytes from
 * ibr_result_lft(r, 0). Thread-safe. Time complexity: O(1).
 */
IBR_API const uint8_t *ibr_result_lft(const ibr_result *r, uint32_t sw);

/** Output port of switch @p sw toward @p lid (0 = the switch itself), or
 *  ::IBR_NO_ROUTE, also for a bad switch, a LID beyond the table or a
 *  failed result. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API unsigned int ibr_result_lft_port(const ibr_result *r, uint32_t sw, uint16_t lid);

/**
 * Copy the LFT of switch @p sw into @p dst (capacity @p cap entries).
 * Call with @p dst NULL and @p cap 0 to learn the size.
 * @param[out] dst caller-owned buffer of @p cap bytes (may be NULL when
 *            @p cap is 0). @param cap its capacity.
 * @param[out] needed number of entries (may be NULL); set whenever the
 *             switch exists, also on ::IBR_ERANGE.
 * @param r the result. @param sw switch index.
 * @return 0; ::IBR_ERANGE when @p cap is too small or @p dst is NULL
 *         (nothing copied); ::IBR_ENOTFOUND (bad switch, failed result).
 * Thread-safe. Time complexity: O(LIDs).
 */
IBR_API int ibr_result_copy_lft(uint8_t *dst, size_t cap, size_t *needed, const ibr_result *r,
                                uint32_t sw);

/** Non-zero when the result holds a switch-to-switch min-hop matrix (the
 *  engine recorded one with ibr_run_set_hops()). Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API int ibr_result_has_hops(const ibr_result *r);

/**
 * Minimum hops the engine computed from switch @p sw to switch @p dst_sw
 * (within its own routing rules, e.g. up/down), or 255 when unreachable,
 * for a bad switch index or when the result has no hop matrix. Cannot
 * fail. Thread-safe.
 * A plain value: nothing to free.
 * Time complexity: O(1).
 */
IBR_API unsigned int ibr_result_hops(const ibr_result *r, uint32_t sw, uint32_t dst_sw);

/** How path SLs are stored. */
typedef enum ibr_sl_mode {
    IBR_SL_NONE = 0,     /**< no path SLs: every path uses SL 0 */
    IBR_SL_PER_DEST = 1, /**< one SL per destination LID */
    IBR_SL_PER_PAIR = 2  /**< one SL per (source LID, destination LID) */
} ibr_sl_mode;

/** How the result stores path SLs (::IBR_SL_NONE for a NULL result).
 *  Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API ibr_sl_mode ibr_result_sl_mode(const ibr_result *r);

/**
 * SL of the path from the port owning @p src_lid to @p dst_lid (0 when the
 * result has no SLs or a LID is out of range). With ::IBR_SL_PER_DEST the
 * source is ignored. Cannot fail. Thread-safe. Time complexity: O(1) per
 * destination, O(log end ports) per pair (the source port is looked up).
 */
IBR_API unsigned int ibr_result_path_sl(const ibr_result *r, uint16_t src_lid,
                                        uint16_t dst_lid);

/** Non-zero when the result carries SL2VL tables (the engine set at least
 *  one map with ibr_run_set_sl2vl(), or QoS was on: see qos.h). Cannot
 *  fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API int ibr_result_has_sl2vl(const ibr_result *r);

/**
 * The SL-to-VL map of switch @p sw from @p in_port to @p out_port:
 * @p out[sl] = VL for sl = 0..15. Without tables the map is the identity
 * for SL 0..14 and VL 15 for SL 15; the same default applies to port pairs
 * an engine with tables did not set. With QoS on (ibr_options::qos) these
 * are the maps the QoS manager programs (ibr_result_has_qos()).
 * @param[out] out caller-owned array of 16 entries, written on success.
 * @param r the result. @param sw switch index.
 * @param in_port input port, 0..nports. @param out_port output port.
 * @return 0, ::IBR_EINVAL (NULL @p out), ::IBR_ENOTFOUND (bad switch or
 *         NULL @p r), ::IBR_ERANGE (bad port). Thread-safe. Time
 *         complexity: O(1).
 */
IBR_API int ibr_result_sl2vl(uint8_t out[16], const ibr_result *r, uint32_t sw,
                             unsigned int in_port, unsigned int out_port);

/** Number of data virtual lanes the routing uses (1 unless the engine
 *  recorded another count with ibr_run_set_vls_used(); 0 for a NULL
 *  result). Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API unsigned int ibr_result_vls_used(const ibr_result *r);

/** Number of layers the engine's deadlock-free layering needs, as the
 *  engine recorded it with ibr_run_set_layers() (dfsssp, lash, nue); 0
 *  when the engine layers nothing or the result was read from a dump.
 *  ibr_result_vls_used() may be larger: an engine can spread its layers
 *  over spare VLs. Cannot fail. Thread-safe. Time complexity: O(1). */
IBR_API unsigned int ibr_result_layers(const ibr_result *r);

/** Number of multicast groups (MLIDs) with a forwarding table. Cannot
 *  fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API size_t ibr_result_mcast_count(const ibr_result *r);

/** Who built a result's multicast trees (ibr_result_mcast_trees()). */
typedef enum ibr_mcast_trees {
    IBR_MCAST_TREES_NONE = 0,     /**< no multicast groups were routed (also results
                                       read from dumps, and failed results) */
    IBR_MCAST_TREES_OPENSM = 1,   /**< OpenSM's default trees: root from the hop
                                       matrix, branches on the lowest min-hop port */
    IBR_MCAST_TREES_BALANCED = 2, /**< the default trees balanced over links
                                       (::IBR_MCAST_BALANCE, kept only when they close
                                       no credit loop with a deadlock-free engine) */
    IBR_MCAST_TREES_ENGINE = 3,   /**< the engine's own trees (torus-2QoS's master
                                       spanning tree, sssp/dfsssp/Nue's trees over
                                       their link loads, an engine of your own that
                                       called ibr_run_set_mcast_built()) */
    IBR_MCAST_TREES_SPANNING = 4  /**< one spanning tree on SL/VL 0 for every MLID,
                                       built after the engine's trees closed a credit
                                       loop with its unicast routes (doc/guide.md,
                                       Multicast) */
} ibr_mcast_trees;

/** Who built the multicast trees of @p r: an ::ibr_mcast_trees value
 *  (::IBR_MCAST_TREES_NONE for NULL). The trees actually programmed, so a
 *  balanced request that fell back to OpenSM's trees, or trees replaced by
 *  the spanning tree, say so. Cannot fail. Thread-safe. Time complexity:
 *  O(1). */
IBR_API int ibr_result_mcast_trees(const ibr_result *r);

/** MLID of multicast group @p i (groups are in ascending MLID order), or 0
 *  for a bad index. Cannot fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API uint16_t ibr_result_mcast_mlid(const ibr_result *r, size_t i);

/**
 * Ports of switch @p sw on which packets to @p mlid are forwarded.
 * @param[out] ports caller-owned array that receives up to @p cap port
 *              numbers, ascending (may be NULL when @p cap is 0).
 * @param cap capacity of @p ports.
 * @param[out] needed how many ports there are (may be NULL); set also on
 *             ::IBR_ERANGE.
 * @param r the result. @param mlid the multicast LID. @param sw switch index.
 * @return 0, ::IBR_ENOTFOUND (no such MLID or switch), ::IBR_ERANGE (cap too
 *         small; nothing copied). Thread-safe.
 * Time complexity: O(groups + 256).
 */
IBR_API int ibr_result_mcast_ports(uint8_t *ports, size_t cap, size_t *needed,
                                   const ibr_result *r, uint16_t mlid, uint32_t sw);

/** Number of engine-specific artefacts (e.g. "ftree-ca-order"). Cannot
 *  fail. Thread-safe.
 *  A plain value: nothing to free.
 *  Time complexity: O(1). */
IBR_API size_t ibr_result_artifact_count(const ibr_result *r);

/**
 * Artefact @p i: its name and its bytes (text unless the engine's
 * documentation says otherwise; not NUL-terminated), borrowed for the
 * lifetime of the result.
 * @param[out] name artefact name (may be NULL).
 * @param[out] data its bytes (may be NULL). @param[out] size their number
 *             (may be NULL).
 * @param r the result. @param i index, 0 .. ibr_result_artifact_count() - 1.
 * @return 0, ::IBR_ENOTFOUND (bad index or NULL @p r). Thread-safe.
 * Time complexity: O(1).
 */
IBR_API int ibr_result_artifact(const char **name, const void **data, size_t *size,
                                const ibr_result *r, size_t i);

/**
 * Find an artefact by name (exact match).
 * @param[out] data its bytes, borrowed (may be NULL).
 * @param[out] size their number (may be NULL).
 * @param r the result. @param name the name, borrowed for the call.
 * @return 0, ::IBR_EINVAL (NULL @p r or @p name), ::IBR_ENOTFOUND.
 * Thread-safe. Time complexity: O(artefacts).
 */
IBR_API int ibr_result_find_artifact(const void **data, size_t *size, const ibr_result *r,
                                     const char *name);

/**
 * The member ports the tree of @p mlid was built for (copied from
 * ibr_options::mcast_groups at routing time), in (node index, port) order.
 * @param[out] dst array of @p cap entries (NULL when @p cap is 0).
 * @param cap its capacity. @param[out] needed the number of members (may
 *        be NULL). @param r the result. @param mlid the MLID.
 * @return 0, ::IBR_EINVAL (NULL @p r, NULL @p dst with a capacity),
 *         ::IBR_ENOTFOUND (the result has no members for @p mlid: no such
 *         MLID, or tables read from a dump), ::IBR_ERANGE (@p cap too
 *         small; @p needed set, nothing copied).
 * Cannot allocate. Thread-safe on a shared result. Time complexity:
 * O(members).
 */
IBR_API int ibr_result_mcast_members(ibr_mcast_member *dst, size_t cap, size_t *needed,
                                     const ibr_result *r, uint16_t mlid);

/**
 * Multicast load of the ports of switch @p sw: for each port 0..ports of
 * the switch, the number of MLIDs whose MFT forwards out of it (on a
 * switch-to-switch port, the trees crossing that directed link).
 * @param[out] dst array of @p cap counters (NULL when @p cap is 0).
 * @param cap its capacity. @param[out] needed ports + 1 (may be NULL).
 * @param r the result. @param sw the switch index.
 * @return 0, ::IBR_EINVAL (NULL @p r, NULL @p dst with a capacity),
 *         ::IBR_ENOTFOUND (bad switch), ::IBR_ERANGE (@p cap too small).
 * Cannot allocate. Thread-safe on a shared result. Time complexity:
 * O(MLIDs + ports).
 */
IBR_API int ibr_result_mcast_port_load(uint32_t *dst, size_t cap, size_t *needed,
                                       const ibr_result *r, uint32_t sw);

#ifdef __cplusplus
}
#endif

#endif
