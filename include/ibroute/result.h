/**
 * @file result.h
 * @brief Routing results: LFTs, hops, path SLs, SL2VL, multicast, artefacts.
 *
 * A result is immutable once ibr_route() (or a reader such as
 * ibr_result_parse_lfts()) returns it, and can be read from many threads.
 * It refers to the topology it was computed on, which must outlive it.
 * Switches are addressed by switch index (see topo.h).
 */
#ifndef IBROUTE_RESULT_H
#define IBROUTE_RESULT_H

#include "common.h"
#include "route.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Destroy a result. NULL is ignored. */
IBR_API void ibr_result_destroy(ibr_result *r);

/** The topology the result belongs to. O(1). */
IBR_API const ibr_topo *ibr_result_topo(const ibr_result *r);

/** Outcome: 0 for a routed result, else the error ibr_route() returned. */
IBR_API int ibr_result_status(const ibr_result *r);

/** Name of the engine that produced the tables; "" on failure. Borrowed. */
IBR_API const char *ibr_result_engine(const ibr_result *r);

/** Why the result failed, or "" when it did not. Borrowed. */
IBR_API const char *ibr_result_last_error(const ibr_result *r);

/** Seed the routing used (ibr_options::seed). */
IBR_API uint64_t ibr_result_seed(const ibr_result *r);

/** Number of engines tried, the successful one included. O(1). */
IBR_API size_t ibr_result_attempt_count(const ibr_result *r);

/**
 * Engine attempt @p i, in the order tried.
 * @param[out] engine name (borrowed); @param[out] status 0 or the error the
 *             engine returned (::IBR_EDECLINED when it did not apply);
 * @param[out] message why it declined or failed ("" on success). Any output
 *             may be NULL.
 * @return 0, ::IBR_ENOTFOUND. O(1).
 */
IBR_API int ibr_result_attempt(const ibr_result *r, size_t i, const char **engine,
                               int *status, const char **message);

/** Number of entries of every LFT: the topology's max LID + 1. O(1). */
IBR_API size_t ibr_result_lft_size(const ibr_result *r);

/**
 * The whole LFT of switch @p sw (ibr_result_lft_size() entries, indexed by
 * LID, ::IBR_NO_ROUTE where there is no route), borrowed for the lifetime of
 * the result; NULL for a bad switch index or a failed result. O(1).
 */
IBR_API const uint8_t *ibr_result_lft(const ibr_result *r, uint32_t sw);

/** Output port of switch @p sw toward @p lid, or ::IBR_NO_ROUTE. O(1). */
IBR_API unsigned int ibr_result_lft_port(const ibr_result *r, uint32_t sw, uint16_t lid);

/**
 * Copy the LFT of switch @p sw into @p dst (capacity @p cap entries).
 * @param[out] needed number of entries (may be NULL).
 * @return 0; ::IBR_ERANGE when @p cap is too small (nothing copied);
 *         ::IBR_ENOTFOUND (bad switch, failed result). O(LIDs).
 */
IBR_API int ibr_result_copy_lft(const ibr_result *r, uint32_t sw, uint8_t *dst,
                                size_t cap, size_t *needed);

/** Non-zero when the result holds a switch-to-switch min-hop matrix. */
IBR_API int ibr_result_has_hops(const ibr_result *r);

/**
 * Minimum hops the engine computed from switch @p sw to switch @p dst_sw
 * (within its own routing rules, e.g. up/down), or 255 when unreachable or
 * when the result has no hop matrix. O(1).
 */
IBR_API unsigned int ibr_result_hops(const ibr_result *r, uint32_t sw, uint32_t dst_sw);

/** How path SLs are stored. */
typedef enum ibr_sl_mode {
    IBR_SL_NONE = 0,     /**< no path SLs: every path uses SL 0 */
    IBR_SL_PER_DEST = 1, /**< one SL per destination LID */
    IBR_SL_PER_PAIR = 2  /**< one SL per (source LID, destination LID) */
} ibr_sl_mode;

/** How the result stores path SLs. O(1). */
IBR_API ibr_sl_mode ibr_result_sl_mode(const ibr_result *r);

/**
 * SL of the path from the port owning @p src_lid to @p dst_lid (0 when the
 * result has no SLs or a LID is out of range). O(1).
 */
IBR_API unsigned int ibr_result_path_sl(const ibr_result *r, uint16_t src_lid,
                                        uint16_t dst_lid);

/** Non-zero when the result carries SL2VL tables. */
IBR_API int ibr_result_has_sl2vl(const ibr_result *r);

/**
 * The SL-to-VL map of switch @p sw from @p in_port to @p out_port:
 * @p out[sl] = VL for sl = 0..15. Without tables the map is the identity
 * for SL 0..14 and VL 15 for SL 15.
 * @return 0, ::IBR_ENOTFOUND (bad switch), ::IBR_ERANGE (bad port). O(1).
 */
IBR_API int ibr_result_sl2vl(const ibr_result *r, uint32_t sw, unsigned int in_port,
                             unsigned int out_port, uint8_t out[16]);

/** Number of data virtual lanes the routing uses (1 when it sets no SLs). */
IBR_API unsigned int ibr_result_vls_used(const ibr_result *r);

/** Number of multicast groups (MLIDs) with a forwarding table. O(1). */
IBR_API size_t ibr_result_mcast_count(const ibr_result *r);

/** MLID of multicast group @p i, or 0 for a bad index. O(1). */
IBR_API uint16_t ibr_result_mcast_mlid(const ibr_result *r, size_t i);

/**
 * Ports of switch @p sw on which packets to @p mlid are forwarded.
 * @param ports receives up to @p cap port numbers, ascending.
 * @param[out] needed how many ports there are.
 * @return 0, ::IBR_ENOTFOUND (no such MLID or switch), ::IBR_ERANGE (cap too
 *         small; nothing copied). O(ports).
 */
IBR_API int ibr_result_mcast_ports(const ibr_result *r, uint16_t mlid, uint32_t sw,
                                   uint8_t *ports, size_t cap, size_t *needed);

/** Number of engine-specific artefacts (e.g. "ftree-ca-order"). O(1). */
IBR_API size_t ibr_result_artifact_count(const ibr_result *r);

/**
 * Artefact @p i: its name and its bytes (text unless the engine's
 * documentation says otherwise), borrowed for the lifetime of the result.
 * @return 0, ::IBR_ENOTFOUND. O(1).
 */
IBR_API int ibr_result_artifact(const ibr_result *r, size_t i, const char **name,
                                const void **data, size_t *size);

/**
 * Find an artefact by name. @return 0, ::IBR_ENOTFOUND. O(artefacts).
 */
IBR_API int ibr_result_find_artifact(const ibr_result *r, const char *name,
                                     const void **data, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
