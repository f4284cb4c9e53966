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
 */
typedef struct ibr_allocator {
    void *(*malloc_fn)(void *user, size_t size);
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    void (*free_fn)(void *user, void *ptr);
    void *user;
} ibr_allocator;

/** Log callback: @p msg is preformatted and valid only during the call. */
typedef void (*ibr_log_fn)(void *user, int level, const char *msg);

/** Version of ::ibr_context_config understood by this header. */
#define IBR_CONTEXT_CONFIG_VERSION 1

/** Settings of a context. Initialise with ::IBR_CONTEXT_CONFIG_INIT. */
typedef struct ibr_context_config {
    unsigned int version;      /**< ::IBR_CONTEXT_CONFIG_VERSION */
    const ibr_allocator *alloc; /**< NULL: the C library's malloc family;
                                     copied at creation */
    ibr_log_fn log;            /**< NULL: no logging */
    void *log_user;            /**< passed to @c log */
    int log_level;             /**< most verbose ::ibr_log_level passed on */
} ibr_context_config;

/** Default context configuration: libc allocator, no logging. */
#define IBR_CONTEXT_CONFIG_INIT \
    { IBR_CONTEXT_CONFIG_VERSION, NULL, NULL, NULL, IBR_LOG_WARN }

/**
 * Create a context.
 *
 * @param[out] out receives the context; the caller owns it and frees it
 *             with ibr_context_destroy().
 * @param cfg  configuration, or NULL for the defaults.
 * @return 0, ::IBR_EINVAL (NULL @p out, incomplete allocator),
 *         ::IBR_EVERSION (unknown @c cfg->version), ::IBR_ENOMEM.
 *
 * Every other call that takes a context also accepts NULL, meaning a
 * default context (libc allocator, no logging, built-in engines only).
 * Time complexity: O(1). Thread-safe.
 */
IBR_API int ibr_context_create(ibr_context **out, const ibr_context_config *cfg);

/**
 * Destroy a context. NULL is ignored. Objects created with the context must
 * be destroyed first. Time complexity: O(number of registered engines).
 */
IBR_API void ibr_context_destroy(ibr_context *ctx);

/**
 * The last error message recorded on the context (by ibr_context_create()
 * or ibr_context_register_engine()); "" when none. Borrowed, valid until the
 * next call on the context.
 */
IBR_API const char *ibr_context_last_error(const ibr_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
