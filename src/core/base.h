/*
 * Helpers every layer of the library uses, engines included: allocation
 * through the context's allocator, messages, the parallel loop, the PRNG,
 * the GUID map. No object layouts live here (they are in internal.h and,
 * read-only for engines, topo_int.h).
 */
#ifndef IBROUTE_BASE_H
#define IBROUTE_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibroute/common.h"
#include "ibroute/context.h"

#define IBR_ERRMSG_SIZE 512
#define IBR_DESC_SIZE 65 /* NodeDescription is 64 bytes, plus NUL */
#define IBR_MAX_PORTS 254

#if defined(__GNUC__)
#define IBR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define IBR_UNUSED __attribute__((unused))
#else
#define IBR_PRINTF(a, b)
#define IBR_UNUSED
#endif

/* The immutable default context used when callers pass NULL. */
ibr_context *ibr__default_context(void);
static inline ibr_context *ibr__ctx(ibr_context *ctx)
{
    return ctx ? ctx : ibr__default_context();
}

void *ibr__malloc(ibr_context *ctx, size_t size);
/* calloc semantics with overflow check: n * size bytes, zeroed */
void *ibr__calloc(ibr_context *ctx, size_t n, size_t size);
/* array allocation without zeroing, overflow-checked */
void *ibr__mallocarray(ibr_context *ctx, size_t n, size_t size);
void *ibr__realloc(ibr_context *ctx, void *p, size_t size);
void *ibr__reallocarray(ibr_context *ctx, void *p, size_t n, size_t size);
void ibr__free(ibr_context *ctx, void *p);
char *ibr__strdup(ibr_context *ctx, const char *s);
/* Grow *p (of *cap elements of size sz) so that it holds at least need. */
int ibr__grow(ibr_context *ctx, void **p, size_t *cap, size_t need, size_t sz);

/* Sort n elements of size bytes at base into ascending order by cmp, which
   receives arg (qsort_r's job, portably; sort.c). In place, never fails,
   O(n log n). Not stable: cmp must be a total order (break ties by index
   or GUID) for the order to be the same on every platform. */
typedef int (*ibr__cmp_fn)(const void *a, const void *b, void *arg);
void ibr__sort(void *base, size_t n, size_t size, ibr__cmp_fn cmp, void *arg);

void ibr__log(ibr_context *ctx, int level, const char *fmt, ...) IBR_PRINTF(3, 4);
/* Format into an error buffer of IBR_ERRMSG_SIZE bytes; returns code. */
int ibr__err(char *buf, int code, const char *fmt, ...) IBR_PRINTF(3, 4);

/* Warnings repeated per input item (a GUID list entry...): the first
   IBR__WARN_FIRST are logged one by one, the rest counted and logged as
   one summary, so a long bad list cannot flood the log. */
#define IBR__WARN_FIRST 5
int ibr__verr(char *buf, int code, const char *fmt, va_list ap) IBR_PRINTF(3, 0);

/* Versioned public structs (doc/api-conventions.md). Each has a size
   table, indexed by version: SIZES[v] is how many bytes version v's header
   declared (SIZES[0] = 0: there is no version 0), offsetof() of the first
   field a later version added, sizeof() for the current one. The library
   reads an input and writes an output no further than its caller's
   version. Every versioned struct begins with `unsigned int version`. */
#define IBR__VERSION_SIZE(sizes, version)                                     \
    ((size_t)(version) < sizeof(sizes) / sizeof((sizes)[0]) ? (sizes)[version] : 0)

/* The body of an ibr_<struct>_init(s, version): copy the defaults def (the
   current version's INIT, with the version field at offset 0) into s, as
   far as version's size (0: an unknown version; s is left untouched). */
int ibr__versioned_init(void *s, const void *def, size_t size, unsigned int version);

/* Ascending byte-reversed GUID: OpenSM's table order on x86. */
static inline uint64_t ibr__guid_key(uint64_t guid)
{
    return __builtin_bswap64(guid);
}

/* Open-addressing map from a 64-bit GUID to a 32-bit value. */
typedef struct ibr__guidmap {
    uint64_t *keys; /* 0 = empty slot (GUID 0 is never stored) */
    uint32_t *vals;
    size_t cap;     /* power of two */
    size_t n;
} ibr__guidmap;

int ibr__guidmap_put(ibr_context *ctx, ibr__guidmap *m, uint64_t key, uint32_t val);
/* returns IBR_NONE when absent */
uint32_t ibr__guidmap_get(const ibr__guidmap *m, uint64_t key);
void ibr__guidmap_del(ibr__guidmap *m, uint64_t key);
void ibr__guidmap_free(ibr_context *ctx, ibr__guidmap *m);
int ibr__guidmap_reserve(ibr_context *ctx, ibr__guidmap *m, size_t n);


/* Parallel loop: calls fn(arg, worker, i) for i in [0, n) on nthreads
   workers (worker in [0, nthreads)). Items are handed out in blocks; fn
   must only write state owned by item i or by worker. Returns the first
   negative value fn returned (in item order), else 0. */
typedef int (*ibr__par_fn)(void *arg, unsigned int worker, size_t i);
int ibr__parallel_for(unsigned int nthreads, size_t n, ibr__par_fn fn, void *arg);
unsigned int ibr__resolve_threads(unsigned int requested);

/* splitmix64-seeded xoshiro256** PRNG */
typedef struct ibr__rng {
    uint64_t s[4];
} ibr__rng;
void ibr__rng_seed(ibr__rng *r, uint64_t seed);
uint64_t ibr__rng_next(ibr__rng *r);
/* uniform in [0, n) */
uint64_t ibr__rng_below(ibr__rng *r, uint64_t n);

#endif
