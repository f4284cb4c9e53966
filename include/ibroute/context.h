/**
 * @file context.h
 * @brief The embedding context: allocator, logging and user engines.
 */
#ifndef IBROUTE_CONTEXT_H
#define IBROUTE_CONTEXT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An embedding context. Opaque. */
typedef struct ibr_context ibr_context;

/**
 * Caller-supplied allocator. All three functions receive @c user first.
 * @c realloc and @c free follow the C semantics (NULL pointer allowed).
 * The library never asks for 0 bytes (it rounds up to 1) and treats NULL as
 * ::IBR_ENOMEM. The functions must be thread-safe when routing runs with
 * worker threads (ibr_options::threads other than 1) or when objects of the
 * context are used from several threads.
 */
typedef struct ibr_allocator {
    /** Like malloc(): return @p size bytes or NULL. */
    void *(*malloc_fn)(void *user, size_t size);
    /** Like realloc(): resize @p ptr (NULL: allocate) or return NULL,
     *  leaving @p ptr untouched. */
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    /** Like free(): release @p ptr (never called with NULL). */
    void (*free_fn)(void *user, void *ptr);
    /** Passed unchanged as the first argument of the three functions. */
    void *user;
} ibr_allocator;

/**
 * Log callback: @p level is an ::ibr_log_level, @p msg is preformatted (no
 * trailing newline, at most 1023 bytes) and borrowed: valid only during the
 * call. Called synchronously on the thread that made the library call; it
 * must not call back into the object being logged about.
 */
typedef void (*ibr_log_fn)(void *user, int level, const char *msg);

/** Version of ::ibr_context_config understood by this header. */
#define IBR_CONTEXT_CONFIG_VERSION 1

/** Settings of a context, versioned (doc/api-conventions.md): initialise
 *  it with ::IBR_CONTEXT_CONFIG_INIT or ibr_context_config_init(); the
 *  library reads only the fields the caller's version has. */
typedef struct ibr_context_config {
    unsigned int version;      /**< ::IBR_CONTEXT_CONFIG_VERSION */
    const ibr_allocator *alloc; /**< NULL: the C library's malloc family;
                                     copied at creation */
    ibr_log_fn log;            /**< NULL: no logging */
    void *log_user;            /**< passed to @c log */
    int log_level;             /**< most verbose ::ibr_log_level passed on */
} ibr_context_config;

/** Default context configuration: libc allocator, no logging. Equal to
 *  what ibr_context_config_init() produces. */
#define IBR_CONTEXT_CONFIG_INIT \
    { IBR_CONTEXT_CONFIG_VERSION, NULL, NULL, NULL, IBR_LOG_WARN }

/**
 * Initialise @p cfg to the defaults of configuration version @p version
 * (pass ::IBR_CONTEXT_CONFIG_VERSION), as ::IBR_CONTEXT_CONFIG_INIT does.
 * Only the bytes version @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p cfg), ::IBR_EVERSION (unknown version;
 *         @p cfg is left untouched).
 * The caller owns @p cfg; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_context_config_init(ibr_context_config *cfg, unsigned int version);

/**
 * Create a context.
 *
 * @param[out] out receives the context (NULL on failure); the caller owns
 *             it and frees it with ibr_context_destroy().
 * @param cfg  configuration, or NULL for the defaults. Borrowed for the
 *             call: the allocator is copied, @c log_user is kept as given.
 *             Read as far as its @c version declares (fields a version
 *             lacks take their defaults).
 * @return 0, ::IBR_EINVAL (NULL @p out, incomplete allocator),
 *         ::IBR_EVERSION (unknown @c cfg->version), ::IBR_ENOMEM (the
 *         context itself is allocated with @c cfg->alloc). These failures
 *         happen before a context exists, so no message is recorded.
 *
 * Every other call that takes a context also accepts NULL, meaning a
 * default context (libc allocator, no logging, built-in engines only); the
 * default context cannot take engines.
 * Time complexity: O(1). Thread-safe.
 */
IBR_API int ibr_context_create(ibr_context **out, const ibr_context_config *cfg);

/**
 * Destroy a context and the engine registrations it holds (the engines'
 * @c user pointers are not touched: they stay the caller's). NULL is
 * ignored. Fabrics, topologies, results and buffers created with the
 * context must be destroyed first, since they use its allocator.
 * Not thread-safe: no other call may be using the context.
 * Time complexity: O(number of registered engines).
 */
IBR_API void ibr_context_destroy(ibr_context *ctx);

/**
 * The last error message recorded on the context by
 * ibr_context_register_engine(); "" when the last registration succeeded,
 * when none failed yet, and for a NULL context. Borrowed from the context:
 * valid until the next registration on it or its destruction; do not free.
 * Cannot fail. Read it from the thread that registered. Time complexity:
 * O(1).
 */
IBR_API const char *ibr_context_last_error(const ibr_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
