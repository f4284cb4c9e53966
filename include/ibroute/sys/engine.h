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
 * Thread rules: the route function runs on the thread that called
 * ibr_route(), and may run concurrently with itself on other threads (one
 * run per ibr_route() call), so it must keep its state in the run or on its
 * stack, or synchronise access to @c user. The ibr_run_* calls are not
 * synchronised: make them from one thread at a time, except that rows
 * returned by ibr_run_lft() for different switches may be filled from
 * several threads at once. The ::ibr_run and every pointer obtained from
 * it are valid only until the route function returns.
 *
 * The ibr_run_* functions accept a NULL run and return ::IBR_EINVAL, NULL
 * or 0 (ibr_run_decline() and ibr_run_fail() still return their codes).
 *
 * Engines declare named settings (::ibr_setting); callers set them with
 * ibr_options::params as "engine.setting" = "value" pairs, ibr_route()
 * validates them before any engine runs, and the engine reads them with
 * ibr_run_setting_int() and ibr_run_setting_str(). The toolkit in
 * sys/toolkit.h offers what the built-in engines are written with: the
 * switch graph, breadth-first searches, hop matrices, a parallel loop and
 * the shared LFT builder.
 *
 * This header is stable within a minor version, like libgit2's sys/.
 */
#ifndef IBROUTE_SYS_ENGINE_H
#define IBROUTE_SYS_ENGINE_H

#include "../common.h"
#include "../context.h"
#include "../mcast.h"
#include "../options.h"
#include "../result.h"
#include "../route.h"
#include "../topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One engine attempt in progress. Opaque; valid only during the call. */
typedef struct ibr_run ibr_run;

/**
 * The routing function of an engine: fill the run's tables and return 0, or
 * return a negative error (ibr_run_decline(), ibr_run_fail(), or a code
 * such as ::IBR_ENOMEM or ::IBR_ECANCELED, which stop the chain). A
 * positive return value is treated as ::IBR_EINTERNAL. @p user is the
 * engine's ibr_engine::user.
 */
typedef int (*ibr_engine_route_fn)(ibr_run *run, void *user);

/** Version of ::ibr_engine this header describes. */
#define IBR_ENGINE_VERSION 1

/** An engine definition. Versioned (doc/api-conventions.md): initialise it
 *  with ::IBR_ENGINE_INIT or ibr_engine_init(); the library reads only the
 *  fields the caller's version has. */
typedef struct ibr_engine {
    unsigned int version;     /**< ::IBR_ENGINE_VERSION */
    const char *name;         /**< unique, no commas or spaces; copied */
    const char *description;  /**< one line; copied; may be NULL */
    unsigned int caps;        /**< ::ibr_engine_caps bits */
    ibr_engine_route_fn route;/**< required */
    void *user;               /**< passed to @c route */
    /** The settings the engine takes, or NULL; the array and its strings
     *  are copied at registration. */
    const ibr_setting *settings;
    size_t n_settings;        /**< entries of @c settings (at most 64) */
} ibr_engine;

/** An empty engine definition of the current version. Equal to what
 *  ibr_engine_init() produces. */
#define IBR_ENGINE_INIT { IBR_ENGINE_VERSION, NULL, NULL, 0, NULL, NULL, NULL, 0 }

/**
 * Initialise @p engine as ::IBR_ENGINE_INIT does, for definition version
 * @p version (pass ::IBR_ENGINE_VERSION). Only the bytes version
 * @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p engine), ::IBR_EVERSION (unknown
 *         version; @p engine is left untouched).
 * Cannot allocate. Thread-safe. Time complexity: O(1).
 */
IBR_API int ibr_engine_init(ibr_engine *engine, unsigned int version);

/**
 * Register an engine on a context. The definition is copied (name and
 * description included); @c engine->user stays the caller's and must stay
 * valid until the context is destroyed, which does not free it.
 * Names may use letters, digits, '-' and '_', under 64 bytes (a '.'
 * separates an engine from a setting in ibr_options::params);
 * "no_fallback" is reserved. Settings are checked: valid names, no
 * duplicate, a known type, min <= def <= max for INT, def 0 or 1 for BOOL.
 * @param ctx a context from ibr_context_create() (the NULL default context
 *            cannot take engines).
 * @param engine the definition, borrowed for the call and read as far as
 *        its @c version declares.
 * @return 0; ::IBR_EINVAL (NULL context, definition or function, bad name,
 *         bad setting declaration; the message says which); ::IBR_EVERSION
 *         (unknown @c engine->version); ::IBR_EEXIST (a built-in
 *         or registered engine has that name); ::IBR_ESTATE (an
 *         ibr_route() on a topology of @p ctx is running: see below);
 *         ::IBR_ENOMEM. The message is readable with
 *         ibr_context_last_error() (except for a NULL context).
 * Not thread-safe on one context: register before sharing the context,
 * and before routing. A route in progress holds on to the registry, so
 * registration is refused with ::IBR_ESTATE while any ibr_route() on a
 * topology of @p ctx runs, for example from an engine's route function or
 * a progress or log callback; the route itself is not disturbed.
 * Time complexity: O(engines + settings).
 */
IBR_API int ibr_context_register_engine(ibr_context *ctx, const ibr_engine *engine);

/** The topology being routed (borrowed; the engine only reads it).
 *  Cannot fail.
 *  Call it from one thread at a time, during the route function.
 *  Time complexity: O(1). */
IBR_API const ibr_topo *ibr_run_topo(const ibr_run *run);

/** The options of the call, at the current ::IBR_OPTIONS_VERSION with
 *  defaults for the fields the caller's version lacked, already validated
 *  (see ::ibr_options). Borrowed: the struct is the run's copy, but the
 *  lists it points to are the caller's, valid only during the call.
 *  Cannot fail.
 *  Call it from one thread at a time, during the route function.
 *  Time complexity: O(1). */
IBR_API const ibr_options *ibr_run_options(const ibr_run *run);

/**
 * Writable LFT of switch @p sw: ibr_topo_max_lid() + 1 entries indexed by
 * LID, prefilled with ::IBR_NO_ROUTE. Entries are output port numbers
 * (0 = the switch itself). Borrowed from the run: valid until the route
 * function returns; do not free. NULL for a bad index. Rows of different
 * switches may be written from different threads at once.
 * Time complexity: O(1).
 */
IBR_API uint8_t *ibr_run_lft(ibr_run *run, uint32_t sw);

/**
 * The run's hop matrix, writable: ibr_topo_switch_count()^2 bytes, row
 * @p a holding the hop counts from switch @p a to every switch (255:
 * unreachable under the engine's rules). Allocated on first use with every
 * entry 255; the result keeps it (ibr_result_hops()). Rows may be written
 * from several threads at once (see ibr_run_parallel_for()). Borrowed from
 * the run: valid until the route function returns; do not free.
 * @return the matrix, or NULL (NULL @p run, out of memory).
 * Call it from one thread at a time; time complexity: O(1) (O(S^2) on
 * first use).
 */
IBR_API uint8_t *ibr_run_hops(ibr_run *run);

/**
 * Record the hop count from switch @p sw to switch @p dst_sw (the matrix is
 * allocated on first use, S^2 bytes, with every entry 255). Values above
 * 255 are stored as 255 (unreachable). The result owns the matrix
 * (ibr_result_hops()).
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ENOTFOUND (bad switch
 *         index), ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(1) (O(S^2) on first use).
 */
IBR_API int ibr_run_set_hops(ibr_run *run, uint32_t sw, uint32_t dst_sw, unsigned int hops);

/**
 * Set the SL of every path toward @p dst_lid (the result's SL mode becomes
 * ::IBR_SL_PER_DEST; storage of max LID + 1 bytes is allocated on first
 * use and owned by the result).
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ERANGE (sl > 15 or LID
 *         beyond max LID), ::IBR_ESTATE (per-pair SLs already set),
 *         ::IBR_ENOMEM.
 *         Call it from one thread at a time, during the route function.
 *         Time complexity: O(1) (O(LIDs) on first use).
 */
IBR_API int ibr_run_set_dest_sl(ibr_run *run, uint16_t dst_lid, unsigned int sl);

/**
 * Set the SL of the path from the port owning @p src_lid to @p dst_lid.
 * Switches to per-pair storage ((end ports + switches) x LIDs bytes, owned
 * by the result); SLs already set per destination are copied into it.
 * All LIDs of a source port share one row.
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ERANGE (sl > 15 or a LID
 *         beyond max LID), ::IBR_ENOTFOUND (no end port or switch owns
 *         @p src_lid), ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(log end ports) (O((end ports + S) x LIDs) on first
 * use).
 */
IBR_API int ibr_run_set_path_sl(ibr_run *run, uint16_t src_lid, uint16_t dst_lid,
                                unsigned int sl);

/**
 * Choose how the result stores path SLs and allocate the storage:
 * ::IBR_SL_PER_DEST (one row of max LID + 1 bytes, indexed by destination
 * LID) or ::IBR_SL_PER_PAIR (one such row per source port: every end port
 * and every switch). Going from per-destination to per-pair copies the SLs
 * set so far into every row; asking for the mode already in use keeps the
 * SLs; ::IBR_SL_NONE drops them. New entries are SL 0.
 * @return 0, ::IBR_EINVAL (NULL @p run, unknown mode), ::IBR_ESTATE
 *         (per-pair to per-destination), ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(LIDs) or O((end ports + S) x LIDs) for per-pair.
 */
IBR_API int ibr_run_set_sl_mode(ibr_run *run, ibr_sl_mode mode);

/**
 * Writable SL row of the source port that owns @p src_lid (per-pair mode),
 * or the single row (per-destination mode, where @p src_lid is ignored):
 * max LID + 1 bytes indexed by destination LID. SLs must stay within
 * 0..15: ibr_route() fails the engine with ::IBR_EINTERNAL otherwise.
 * Rows of different ports may be written from different threads at once.
 * Borrowed from the run: valid until the route function returns or the SL
 * mode changes.
 * @return the row, or NULL (NULL @p run, no SL storage yet
 *         (ibr_run_set_sl_mode()), or no port owns @p src_lid).
 * Thread-safe once the mode is set. Time complexity: O(log end ports).
 */
IBR_API uint8_t *ibr_run_sl_row(ibr_run *run, uint16_t src_lid);

/**
 * Set the SL2VL map of switch @p sw for (@p in_port, @p out_port):
 * @p map[sl] = VL. The first call allocates tables for every switch and
 * port pair, initialised to the default map (identity, SL 15 to VL 15);
 * the result owns them. @p map is copied.
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ENOTFOUND (bad switch),
 *         ::IBR_ERANGE (port beyond the switch or VL > 15), ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(1) (O(sum over switches of ports^2) on first use).
 */
IBR_API int ibr_run_set_sl2vl(ibr_run *run, uint32_t sw, unsigned int in_port,
                              unsigned int out_port, const uint8_t map[16]);

/**
 * Set the SL2VL map of end port @p port of channel adapter or router
 * @p node (node index): @p map[sl] = VL, copied. Ports without a map keep
 * the default (identity, SL 15 to VL 15). With QoS on, a map set here
 * replaces the configured one only for an engine with ::IBR_CAP_OWN_SL2VL.
 * @return 0, ::IBR_EINVAL (NULL @p run or a switch @p node),
 *         ::IBR_ENOTFOUND (bad node), ::IBR_ERANGE (bad port or VL > 15),
 *         ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(1) (O(ports) on first use).
 */
IBR_API int ibr_run_set_endport_sl2vl(ibr_run *run, uint32_t node, unsigned int port,
                                      const uint8_t map[16]);

/**
 * Record how many data VLs the routing uses (ibr_result_vls_used(); 1
 * unless set).
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ERANGE (not 1..15).
 * Nothing is allocated.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(1).
 */
IBR_API int ibr_run_set_vls_used(ibr_run *run, unsigned int vls);

/**
 * Record how many routing layers (virtual layers) the engine's
 * deadlock-free layering needs (ibr_result_layers(); 0 unless set). It may
 * be fewer than the VLs used when the engine spreads its layers over the
 * spare VLs to balance them (dfsssp).
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ERANGE (not 1..15).
 * Nothing is allocated.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(1).
 */
IBR_API int ibr_run_set_layers(ibr_run *run, unsigned int layers);

/**
 * Add port @p port (0..nports) of switch @p sw to the forwarding set of
 * @p mlid (0xC000..0xFFFE); the group is created on first use (S x 32
 * bytes, owned by the result).
 * @return 0, ::IBR_EINVAL (NULL @p run), ::IBR_ERANGE (MLID outside the
 *         multicast range, port beyond the switch), ::IBR_ENOTFOUND (bad
 *         switch), ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(groups) (O(groups + S) when the group is created).
 */
IBR_API int ibr_run_add_mcast_port(ibr_run *run, uint16_t mlid, uint32_t sw,
                                   unsigned int port);

/**
 * Clear every multicast forwarding entry the run holds (every MLID, every
 * switch), so that an engine can build its trees again, for example after
 * ibr_run_find_credit_loop() found a loop through the first ones. The
 * groups stay (ibr_run_mcast_groups()); the built mark
 * (ibr_run_set_mcast_built()) is not changed.
 * @return 0, ::IBR_EINVAL (NULL @p run). Nothing is allocated.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(MLIDs · S).
 */
IBR_API int ibr_run_clear_mcast(ibr_run *run);

/**
 * The multicast groups of the call (ibr_options::mcast_groups; bound to
 * the run's topology), or NULL when the caller gave none (or for a NULL
 * run). An engine with its own multicast trees builds one per MLID of the
 * set with ibr_run_add_mcast_port() and then calls
 * ibr_run_set_mcast_built(); otherwise, once the engine returns 0, the
 * library builds the default trees (ibr_run_mcast_default()) on the
 * engine's hop matrix (ibr_run_hops(), or plain minimum hops when the
 * engine set none). Borrowed: valid during the route function.
 * Cannot fail. Time complexity: O(1).
 */
IBR_API const ibr_mcast_groups *ibr_run_mcast_groups(const ibr_run *run);

/**
 * Say that the engine built the run's multicast trees itself (the MFTs it
 * wrote with ibr_run_add_mcast_port(), possibly none): the library then
 * builds no default tree after it. ibr_run_mcast_default() calls it.
 * Declining or failing discards the mark with the rest of the attempt.
 * @return 0, ::IBR_EINVAL (NULL @p run). Nothing is allocated.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(1).
 */
IBR_API int ibr_run_set_mcast_built(ibr_run *run);

/**
 * Attach an artefact: @p name and @p size bytes of @p data are copied and
 * owned by the result. A second one with the same name replaces the first.
 * @return 0, ::IBR_EINVAL (NULL @p run, NULL or empty @p name, NULL
 *         @p data with a non-zero @p size), ::IBR_ENOMEM.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(size + artefacts).
 */
IBR_API int ibr_run_add_artifact(ibr_run *run, const char *name, const void *data,
                                 size_t size);

/**
 * The value of the running engine's setting @p name (the name it declared,
 * without the engine prefix): the caller's value from ibr_options::params,
 * already validated, or the declared default. BOOL settings read as 0 or 1.
 * @param[out] out receives the value; untouched on failure.
 * @param run the run. @param name the setting's name, borrowed for the
 *        call.
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ENOTFOUND (the engine
 *         declares no such setting), ::IBR_ESTATE (the setting is a
 *         STRING). Nothing is allocated.
 * Thread-safe during the route function. Time complexity: O(settings).
 */
IBR_API int ibr_run_setting_int(int64_t *out, const ibr_run *run, const char *name);

/**
 * The text of the running engine's STRING setting @p name (caller's value
 * or default; "" when neither).
 * @param[out] out receives the text, NUL-terminated; borrowed: valid until
 *        the route function returns. Untouched on failure.
 * @param[out] len receives its length (may be NULL); untouched on failure.
 * @param run the run. @param name the setting's name, borrowed for the
 *        call.
 * @return 0, ::IBR_EINVAL (NULL @p out, @p run or @p name),
 *         ::IBR_ENOTFOUND (the engine declares no such setting),
 *         ::IBR_ESTATE (the setting is not a STRING). Nothing is allocated.
 * Thread-safe during the route function. Time complexity: O(settings).
 */
IBR_API int ibr_run_setting_str(const char **out, size_t *len, const ibr_run *run,
                                const char *name);

/**
 * Say why the engine does not apply; returns ::IBR_EDECLINED for the
 * engine to return (`return ibr_run_decline(run, "no switches");`).
 * @p message (NULL means "declined") is copied, truncated to 511 bytes,
 * and recorded in the result's attempts. Cannot fail.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(length of @p message).
 */
IBR_API int ibr_run_decline(ibr_run *run, const char *message);

/**
 * Say why the engine failed; returns @p code (::IBR_EINTERNAL when
 * @p code is not negative) for the engine to return. @p message (NULL
 * means "failed") is copied, truncated to 511 bytes, and recorded in the
 * result's attempts. Cannot fail.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(length of @p message).
 */
IBR_API int ibr_run_fail(ibr_run *run, int code, const char *message);

/**
 * Log @p message (borrowed for the call) at @p level (an ::ibr_log_level)
 * through the topology context's callback, when the level passes the
 * context's @c log_level; a no-op without a callback or with a NULL
 * message. Messages longer than 1023 bytes are truncated. Cannot fail.
 * Call it from one thread at a time, during the route function.
 * Time complexity: O(length of @p message).
 */
IBR_API void ibr_run_log(ibr_run *run, int level, const char *message);

/**
 * Report progress: @p done of @p total units of phase @p phase (borrowed
 * for the call; NULL means ""). Calls ibr_options::progress on the current
 * thread when the caller set one.
 * @return 0, or ::IBR_ECANCELED when the caller cancels, which the engine
 *         must return promptly (the chain then stops).
 * Time complexity: O(1) plus the callback.
 */
IBR_API int ibr_run_progress(ibr_run *run, const char *phase, uint64_t done,
                             uint64_t total);

#ifdef __cplusplus
}
#endif

#endif
