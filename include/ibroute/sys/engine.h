/**
 * @file sys/engine.h
 * @brief The engine-author API: write and register your own routing engine.
 *
 * An engine is a function that receives an ::ibr_run: the frozen topology,
 * the options and a writer for the result. It fills the LFTs (prefilled
 * with ::IBR_NO_ROUTE) and optionally hops, SLs, SL2VL tables, multicast
 * tables and artefacts, then returns 0. To let the chain fall back it
 * returns ibr_run_decline() (the engine does not apply) or ibr_run_fail().
 * Whatever an engine wrote before declining or failing is discarded: the
 * next engine starts from a clean result.
 *
 * This header is stable within a minor version, like libgit2's sys/.
 */
#ifndef IBROUTE_SYS_ENGINE_H
#define IBROUTE_SYS_ENGINE_H

#include "../common.h"
#include "../context.h"
#include "../options.h"
#include "../topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One engine attempt in progress. Opaque; valid only during the call. */
typedef struct ibr_run ibr_run;

/** The routing function of an engine. Returns 0 or a negative error. */
typedef int (*ibr_engine_route_fn)(ibr_run *run, void *user);

/** Version of ::ibr_engine this header describes. */
#define IBR_ENGINE_VERSION 1

/** An engine definition. */
typedef struct ibr_engine {
    unsigned int version;     /**< ::IBR_ENGINE_VERSION */
    const char *name;         /**< unique, no commas or spaces; copied */
    const char *description;  /**< one line; copied; may be NULL */
    unsigned int caps;        /**< ::ibr_engine_caps bits */
    ibr_engine_route_fn route;/**< required */
    void *user;               /**< passed to @c route */
} ibr_engine;

/**
 * Register an engine on a context. The definition is copied.
 * @return 0; ::IBR_EINVAL (NULL context or function, bad name, the message
 *         says which); ::IBR_EVERSION; ::IBR_EEXIST (a built-in or registered
 *         engine has that name); ::IBR_ENOMEM.
 * Not thread-safe on one context: register before sharing the context.
 * Time complexity: O(engines).
 */
IBR_API int ibr_context_register_engine(ibr_context *ctx, const ibr_engine *engine);

/** The topology being routed. */
IBR_API const ibr_topo *ibr_run_topo(const ibr_run *run);

/** The options of the call, at the current ::IBR_OPTIONS_VERSION with
 *  defaults for the fields the caller's version lacked. */
IBR_API const ibr_options *ibr_run_options(const ibr_run *run);

/**
 * Writable LFT of switch @p sw: ibr_topo_max_lid() + 1 entries indexed by
 * LID, prefilled with ::IBR_NO_ROUTE. NULL for a bad index. O(1).
 */
IBR_API uint8_t *ibr_run_lft(ibr_run *run, uint32_t sw);

/**
 * Record the hop count from switch @p sw to switch @p dst_sw (the matrix is
 * allocated on first use, S^2 bytes).
 * @return 0, ::IBR_ENOTFOUND, ::IBR_ENOMEM.
 */
IBR_API int ibr_run_set_hops(ibr_run *run, uint32_t sw, uint32_t dst_sw, unsigned int hops);

/** Set the SL of every path toward @p dst_lid. @return 0, ::IBR_ERANGE,
 *  ::IBR_ESTATE (per-pair SLs already set), ::IBR_ENOMEM. */
IBR_API int ibr_run_set_dest_sl(ibr_run *run, uint16_t dst_lid, unsigned int sl);

/** Set the SL of the path from the port owning @p src_lid to @p dst_lid.
 *  Switches to per-pair storage ((end ports + switches) x LIDs bytes).
 *  @return 0, ::IBR_ERANGE, ::IBR_ENOTFOUND (no port owns @p src_lid),
 *  ::IBR_ENOMEM. */
IBR_API int ibr_run_set_path_sl(ibr_run *run, uint16_t src_lid, uint16_t dst_lid,
                                unsigned int sl);

/** Set the SL2VL map of switch @p sw for (@p in_port, @p out_port).
 *  @return 0, ::IBR_ENOTFOUND, ::IBR_ERANGE (port or VL > 15), ::IBR_ENOMEM. */
IBR_API int ibr_run_set_sl2vl(ibr_run *run, uint32_t sw, unsigned int in_port,
                              unsigned int out_port, const uint8_t map[16]);

/** Record how many data VLs the routing uses. @return 0, ::IBR_ERANGE. */
IBR_API int ibr_run_set_vls_used(ibr_run *run, unsigned int vls);

/**
 * Add port @p port of switch @p sw to the forwarding set of @p mlid
 * (0xC000..0xFFFE); the group is created on first use.
 * @return 0, ::IBR_ERANGE, ::IBR_ENOTFOUND, ::IBR_ENOMEM.
 */
IBR_API int ibr_run_add_mcast_port(ibr_run *run, uint16_t mlid, uint32_t sw,
                                   unsigned int port);

/** Attach an artefact (copied). A second one with the same name replaces
 *  the first. @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. */
IBR_API int ibr_run_add_artifact(ibr_run *run, const char *name, const void *data,
                                 size_t size);

/** Say why the engine does not apply; returns ::IBR_EDECLINED for the
 *  engine to return. */
IBR_API int ibr_run_decline(ibr_run *run, const char *message);

/** Say why the engine failed; returns @p code (::IBR_EINTERNAL when
 *  @p code is not negative) for the engine to return. */
IBR_API int ibr_run_fail(ibr_run *run, int code, const char *message);

/** Log through the context's callback (no-op without one). */
IBR_API void ibr_run_log(ibr_run *run, int level, const char *message);

/** Report progress; returns ::IBR_ECANCELED when the caller cancels, which
 *  the engine must return promptly. */
IBR_API int ibr_run_progress(ibr_run *run, const char *phase, uint64_t done,
                             uint64_t total);

#ifdef __cplusplus
}
#endif

#endif
