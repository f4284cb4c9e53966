/**
 * @file common.h
 * @brief Export macro, error codes, log levels and version queries.
 *
 * @section threads Thread-safety contract
 * ibroute has no mutable global state. Every object belongs to the thread
 * that uses it: different objects may be used from different threads at the
 * same time, but one mutable object (an ::ibr_fabric being built, an
 * ::ibr_context while engines are registered) must be used by one thread at
 * a time. Frozen topologies (::ibr_topo) and finished results
 * (::ibr_result) are immutable and may be read from any number of threads
 * at once. A context may be shared once its engines are registered.
 * Callbacks (allocator, log, progress) run synchronously on the thread that
 * made the call, except that the allocator may also be called from worker
 * threads that a routing call starts and joins before it returns (see
 * ibr_options::threads); it must therefore be thread-safe when
 * ibr_options::threads is not 1.
 */
#ifndef IBROUTE_COMMON_H
#define IBROUTE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a public, exported function. */
#if defined(_WIN32) && defined(IBR_BUILDING_DLL)
#define IBR_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define IBR_API __attribute__((visibility("default")))
#else
#define IBR_API
#endif

/**
 * The error list: code name, value, message. Generates ::ibr_error,
 * ibr_strerror() and ibr_status_name().
 */
#define IBR_ERRNO_MAP(XX)                                                     \
    XX(EINVAL, -1, "invalid argument")                                        \
    XX(ENOMEM, -2, "out of memory")                                           \
    XX(ENOTFOUND, -3, "not found")                                            \
    XX(EEXIST, -4, "already exists")                                          \
    XX(ERANGE, -5, "value out of range")                                      \
    XX(EBUSY, -6, "port already connected")                                   \
    XX(EPARSE, -7, "malformed input")                                         \
    XX(ENOSPC, -8, "address space exhausted")                                 \
    XX(EDECLINED, -9, "engine does not apply to this fabric")                 \
    XX(EUNROUTABLE, -10, "no engine could route the fabric")                  \
    XX(ENOVL, -11, "not enough virtual lanes")                                \
    XX(EVERSION, -12, "unsupported structure version")                        \
    XX(ECANCELED, -13, "canceled by the caller")                              \
    XX(ESTATE, -14, "object is in the wrong state for this call")             \
    XX(EUNSUPPORTED, -15, "unsupported feature")                              \
    XX(EINTERNAL, -16, "internal error")                                      \
    XX(EROUTES, -17, "routing tables are invalid")                            \
    XX(EDEADLOCK, -18, "routing has a credit loop")

/** Error codes. Every fallible call returns 0 or one of these. */
typedef enum ibr_error {
    IBR_OK = 0, /**< success */
#define IBR__XX(name, val, msg) IBR_##name = (val),
    IBR_ERRNO_MAP(IBR__XX)
#undef IBR__XX
} ibr_error;

/**
 * @def IBR__XX(name, val, msg)
 * Private helper that turns each ::IBR_ERRNO_MAP entry into an enumerator
 * of ::ibr_error; defined and undefined inside the enum. Not for callers.
 */
/** @var IBR_EINVAL
 *  Invalid argument: a NULL pointer where an object is required, a value
 *  outside its domain (node type, link state, flags), an unknown engine name
 *  or a bad option. ibr_strerror(): "invalid argument". */
/** @var IBR_ENOMEM
 *  The allocator returned NULL. The call changed nothing the caller owns
 *  (a routing call still returns a failed result when it could allocate
 *  one). */
/** @var IBR_ENOTFOUND
 *  No such node, switch, port, LID, GUID, engine, multicast group or
 *  artefact. */
/** @var IBR_EEXIST
 *  A GUID, LID or engine name is already taken. */
/** @var IBR_ERANGE
 *  A number is out of range: port number, LID, LMC, SL, VL, or a caller's
 *  buffer capacity that is too small (the needed size is reported). */
/** @var IBR_EBUSY
 *  ibr_fabric_add_link(): a port is already cabled. */
/** @var IBR_EPARSE
 *  Malformed input text; the message names the line. */
/** @var IBR_ENOSPC
 *  The unicast LID space (1..0xBFFF) cannot hold the fabric's LIDs. */
/** @var IBR_EDECLINED
 *  An engine does not apply to the fabric (engines return it through
 *  ibr_run_decline()). ibr_route() records it in the result's attempts and
 *  tries the next engine; it never returns it itself. */
/** @var IBR_EUNROUTABLE
 *  ibr_route(): every engine of the chain declined or failed. */
/** @var IBR_ENOVL
 *  An engine needs more virtual lanes than ibr_options::max_vls allows. */
/** @var IBR_EVERSION
 *  The @c version field of a caller's structure is not one this library
 *  knows. */
/** @var IBR_ECANCELED
 *  The caller's progress callback asked to stop (ibr_options::progress). */
/** @var IBR_ESTATE
 *  The object is in the wrong state for the call, e.g. a parser or a
 *  generator given a fabric that is not empty. */
/** @var IBR_EUNSUPPORTED
 *  The feature is not supported by this build or this engine. */
/** @var IBR_EINTERNAL
 *  A bug in the library or an engine (for instance an engine that returned
 *  a positive value). Please report it. */
/** @var IBR_EROUTES
 *  ibr_result_verify(): the forwarding tables are invalid (missing routes,
 *  loops, bad ports or down links). */
/** @var IBR_EDEADLOCK
 *  ibr_result_find_credit_loop(): the routing has a credit loop (a cycle in
 *  the channel dependency graph on some VL). ibr_result_verify() reports
 *  loops in ibr_verify_report::deadlock_free instead of failing. */

/**
 * Message for an error code ("out of memory"); "unknown error" for an
 * unknown code. The string is static. Thread-safe. Time complexity: O(1).
 */
IBR_API const char *ibr_strerror(int code);

/**
 * Symbolic name of an error code ("IBR_ENOMEM"); "IBR_UNKNOWN" for an
 * unknown code. The string is static. Thread-safe. Time complexity: O(1).
 */
IBR_API const char *ibr_status_name(int code);

/** Log levels, most severe first. */
typedef enum ibr_log_level {
    IBR_LOG_ERROR = 0, /**< a call failed */
    IBR_LOG_WARN = 1,  /**< something the caller should know about */
    IBR_LOG_INFO = 2,  /**< one line per significant step */
    IBR_LOG_DEBUG = 3  /**< detail for developers */
} ibr_log_level;

/**
 * Run-time version of the library, as ::IBR_VERSION_NUMBER (compare it with
 * the compile-time value to detect a mismatched shared library). Cannot
 * fail. Thread-safe.
 * A plain value: nothing to free.
 * Time complexity: O(1).
 */
IBR_API int ibr_version(void);

/**
 * Run-time version string, as ::IBR_VERSION_STRING ("0.1.0"). The string is
 * static: never free it. Thread-safe. Time complexity: O(1).
 */
IBR_API const char *ibr_version_string(void);

/** Node types, with the values of the InfiniBand NodeInfo NodeType field. */
typedef enum ibr_node_type {
    IBR_NODE_CA = 1,     /**< channel adapter (host or I/O unit) */
    IBR_NODE_SWITCH = 2, /**< switch; port 0 is its management port */
    IBR_NODE_ROUTER = 3  /**< router */
} ibr_node_type;

/** Value of an LFT entry that has no route. */
#define IBR_NO_ROUTE 255
/** Largest unicast LID. */
#define IBR_MAX_UNICAST_LID 0xBFFF
/** Node index meaning "none". */
#define IBR_NONE UINT32_MAX

#ifdef __cplusplus
}
#endif

#endif
