/**
 * @file route.h
 * @brief Engine registry and the routing call.
 *
 * Built-in engines are listed first, in a fixed order, then the engines
 * registered on the context (sys/engine.h) in registration order. The
 * registry of a context may be read from many threads once registration
 * is over.
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
    IBR_CAP_MINIMAL = 1 << 6,        /**< promises shortest paths (sssp and dfsssp with
                                          avoid_throttled_links: shortest on the
                                          fabric without its throttled cables) */
    IBR_CAP_EXPERIMENTAL = 1 << 7,   /**< interface or output may change */
    IBR_CAP_OWN_SL2VL = 1 << 8       /**< with QoS on, its SL2VL maps replace the
                                          configured qos_*sl2vl (torus-2QoS) */
} ibr_engine_caps;

/** Types of engine settings. */
typedef enum ibr_setting_type {
    /** Yes or no: "1", "true", "yes", "on" or "0", "false", "no", "off"
     *  (any case); read as 1 or 0 with ibr_run_setting_int(). */
    IBR_SETTING_BOOL = 1,
    /** A signed integer in [min, max]: decimal, 0x hexadecimal or leading-0
     *  octal, optionally signed. */
    IBR_SETTING_INT = 2,
    /** Text of any length (for example a configuration file's contents);
     *  read with ibr_run_setting_str(). */
    IBR_SETTING_STRING = 3
} ibr_setting_type;

/**
 * One named setting an engine declares. Callers set it as
 * "engine.name" (ibr_options::params); `ibr engines` lists it with its help.
 */
typedef struct ibr_setting {
    /** Letters, digits and '_', under 64 bytes, unique within the engine. */
    const char *name;
    ibr_setting_type type; /**< ::ibr_setting_type */
    int64_t min;           /**< ::IBR_SETTING_INT: smallest value accepted */
    int64_t max;           /**< ::IBR_SETTING_INT: largest value accepted */
    /** Default of a BOOL (0 or 1) or INT (within [min, max]) setting. */
    int64_t def;
    /** Default of a STRING setting; NULL means "". */
    const char *def_str;
    /** One line for `ibr engines` and ibr_engine_info; may be NULL. */
    const char *help;
} ibr_setting;

/** Public description of a registered engine. Strings are borrowed from the
 *  registry (static for built-ins). */
typedef struct ibr_engine_info {
    const char *name;        /**< the name used in chains, e.g. "minhop" */
    const char *description; /**< one line ("" when the engine gave none) */
    unsigned int caps; /**< ::ibr_engine_caps bits */
    int builtin;       /**< non-zero for engines of the library */
    /** The settings the engine takes (borrowed like the strings), set with
     *  ibr_options::params as "name.setting"; NULL when none. */
    const ibr_setting *settings;
    size_t n_settings; /**< entries of @c settings */
} ibr_engine_info;

/**
 * Number of engines known to @p ctx (built-ins plus those registered on it;
 * @p ctx may be NULL for built-ins only). Cannot fail. Thread-safe once the
 * context's engines are registered. Time complexity: O(1).
 */
IBR_API size_t ibr_context_engine_count(const ibr_context *ctx);

/**
 * Describe engine @p i of the context's registry (0 ..
 * ibr_context_engine_count() - 1); built-ins come first.
 * @param[out] out filled on success; its strings are borrowed (static for
 *             built-ins, owned by @p ctx for registered engines: valid
 *             until the context is destroyed).
 * @param ctx the context, or NULL for built-ins only. @param i the index.
 * @return 0, ::IBR_EINVAL (NULL @p out), ::IBR_ENOTFOUND (index out of
 *         range). Thread-safe once the context's engines are registered.
 * Time complexity: O(1).
 */
IBR_API int ibr_context_engine(ibr_engine_info *out, const ibr_context *ctx, size_t i);

/**
 * Describe the engine called @p name (case-sensitive).
 * @param[out] out filled on success; strings borrowed as for
 *             ibr_context_engine().
 * @param ctx the context, or NULL for built-ins only.
 * @param name the engine name, borrowed for the call.
 * @return 0, ::IBR_EINVAL (NULL @p out or @p name), ::IBR_ENOTFOUND.
 * Thread-safe once the context's engines are registered.
 * Time complexity: O(engines).
 */
IBR_API int ibr_context_find_engine(ibr_engine_info *out, const ibr_context *ctx,
                                    const char *name);

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
 *             ibr_result_destroy()). On every outcome except ::IBR_EINVAL
 *             for a NULL argument and ::IBR_ENOMEM before the result could
 *             be allocated, *out receives a result: on failure it carries
 *             no tables but its ibr_result_last_error() and attempts say
 *             why (as sqlite3_open does). *out is NULL otherwise, so always
 *             pass it to ibr_result_destroy().
 * @param t    the topology; borrowed: it must outlive the result. The
 *             engines run with the topology's context (its allocator, log
 *             callback and registered engines).
 * @param chain engine names, borrowed for the call: at most 32 engines,
 *             each name under 64 bytes; "no_fallback" alone is rejected
 *             (it names no engine).
 * @param opts options, or NULL for the defaults; borrowed for the call
 *             (the result keeps none of its pointers).
 * @return 0; ::IBR_EINVAL (unknown engine name or bad option; the message
 *         names it); ::IBR_EVERSION; ::IBR_EUNROUTABLE (every engine declined
 *         or failed); ::IBR_ECANCELED; ::IBR_ENOMEM (allocation failure or
 *         cancellation stops the chain: no fallback runs). Other codes
 *         an engine fails with (::IBR_ENOVL, ::IBR_EINTERNAL, ...) are
 *         only recorded in the attempts (ibr_result_attempt()); the call
 *         then goes on with the next engine.
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
