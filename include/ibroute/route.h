/**
 * @file route.h
 * @brief Engine registry and the routing call.
 */
#ifndef IBROUTE_ROUTE_H
#define IBROUTE_ROUTE_H

#include "common.h"
#include "context.h"
#include "options.h"
#include "topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A routing result. Opaque; see result.h. */
typedef struct ibr_result ibr_result;

/** What an engine can do or needs. */
typedef enum ibr_engine_caps {
    IBR_CAP_LMC = 1 << 0,            /**< routes LMC > 0 (several LIDs per port) */
    IBR_CAP_NEEDS_VLS = 1 << 1,      /**< needs more than one virtual lane */
    IBR_CAP_SL = 1 << 2,             /**< produces path SLs */
    IBR_CAP_SL2VL = 1 << 3,          /**< produces SL2VL tables */
    IBR_CAP_MCAST = 1 << 4,          /**< builds its own multicast trees */
    IBR_CAP_DEADLOCK_FREE = 1 << 5,  /**< promises credit-loop freedom */
    IBR_CAP_MINIMAL = 1 << 6,        /**< promises shortest paths */
    IBR_CAP_EXPERIMENTAL = 1 << 7    /**< interface or output may change */
} ibr_engine_caps;

/** Public description of a registered engine. Strings are borrowed from the
 *  registry (static for built-ins). */
typedef struct ibr_engine_info {
    const char *name;
    const char *description;
    unsigned int caps; /**< ::ibr_engine_caps bits */
    int builtin;       /**< non-zero for engines of the library */
} ibr_engine_info;

/**
 * Number of engines known to @p ctx (built-ins plus those registered on it;
 * @p ctx may be NULL for built-ins only). O(1).
 */
IBR_API size_t ibr_engine_count(const ibr_context *ctx);

/**
 * Describe engine @p i (0 .. ibr_engine_count() - 1); built-ins come first.
 * @return 0, ::IBR_ENOTFOUND. O(1).
 */
IBR_API int ibr_engine_get(ibr_engine_info *out, const ibr_context *ctx, size_t i);

/**
 * Describe the engine called @p name (case-sensitive).
 * @return 0, ::IBR_ENOTFOUND. O(engines).
 */
IBR_API int ibr_engine_find(ibr_engine_info *out, const ibr_context *ctx, const char *name);

/**
 * Route a topology.
 *
 * @p chain lists engine names separated by commas or white space, tried in
 * order, e.g. "ftree,updn". The first engine that succeeds produces the
 * result. Unless the word "no_fallback" appears in the chain, "minhop" runs
 * last if every listed engine declined or failed (even when it was already
 * listed, as OpenSM does). NULL or "" means "minhop".
 *
 * @param[out] out receives the result (owned by the caller, freed with
 *             ibr_result_destroy()). On every outcome except ::IBR_ENOMEM and
 *             ::IBR_EINVAL for a NULL argument, *out receives a result: on
 *             failure it carries no tables but its ibr_result_last_error()
 *             and attempts say why (as sqlite3_open does).
 * @param t    the topology; it must outlive the result.
 * @param opts options, or NULL for the defaults.
 * @return 0; ::IBR_EINVAL (unknown engine name or bad option; the message
 *         names it); ::IBR_EVERSION; ::IBR_EUNROUTABLE (every engine declined
 *         or failed); ::IBR_ECANCELED; ::IBR_ENOMEM (allocation failure or
 *         cancellation stops the chain: no fallback runs).
 *
 * Time complexity: that of the engines tried (minhop: O(S·(S+E) + S·L·P)
 * for S switches, E links, L LIDs, P ports per switch).
 * Thread rules: any number of ibr_route() calls may run at once on the
 * same topology; the allocator must be thread-safe unless
 * ibr_options::threads is 1.
 */
IBR_API int ibr_route(ibr_result **out, const ibr_topo *t, const char *chain,
                      const ibr_options *opts);

#ifdef __cplusplus
}
#endif

#endif
