/* Allocation through the context's allocator, and logging. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

void *ibr__malloc(ibr_context *ctx, size_t size)
{
    ctx = ibr__ctx(ctx);
    return ctx->alloc.malloc_fn(ctx->alloc.user, size ? size : 1);
}

void *ibr__mallocarray(ibr_context *ctx, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return ibr__malloc(ctx, n * size);
}

void *ibr__calloc(ibr_context *ctx, size_t n, size_t size)
{
    void *p = ibr__mallocarray(ctx, n, size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *ibr__realloc(ibr_context *ctx, void *p, size_t size)
{
    ctx = ibr__ctx(ctx);
    return ctx->alloc.realloc_fn(ctx->alloc.user, p, size ? size : 1);
}

void *ibr__reallocarray(ibr_context *ctx, void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return ibr__realloc(ctx, p, n * size);
}

void ibr__free(ibr_context *ctx, void *p)
{
    if (!p)
        return;
    ctx = ibr__ctx(ctx);
    ctx->alloc.free_fn(ctx->alloc.user, p);
}

char *ibr__strdup(ibr_context *ctx, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ibr__malloc(ctx, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int ibr__grow(ibr_context *ctx, void **p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return IBR_ENOMEM;
        ncap *= 2;
    }
    void *np = ibr__reallocarray(ctx, *p, ncap, sz);
    if (!np)
        return IBR_ENOMEM;
    *p = np;
    *cap = ncap;
    return 0;
}

void ibr__log(ibr_context *ctx, int level, const char *fmt, ...)
{
    ctx = ibr__ctx(ctx);
    if (!ctx->log || level > ctx->log_level)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, msg);
}
