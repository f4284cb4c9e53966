/* The growable text buffer the writers fill. */
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"

void ibr_buffer_dispose(ibr_buffer *buf)
{
    if (!buf)
        return;
    if (buf->data)
        ibr__free(ibr__ctx(buf->ctx), buf->data);
    buf->data = NULL;
    buf->size = 0;
    buf->capacity = 0;
    buf->ctx = NULL;
}

static void adopt(ibr_buffer *b, ibr_context *ctx)
{
    if (!b->ctx)
        b->ctx = ibr__ctx(ctx);
}

int ibr__buf_begin(ibr_buffer *b, ibr_context *ctx, size_t *mark)
{
    if (!b)
        return IBR_EINVAL;
    /* a buffer with data must have room for its size and the NUL */
    if (b->data ? b->size >= b->capacity : (b->size || b->capacity))
        return IBR_EINVAL;
    adopt(b, ctx);
    *mark = b->size;
    return 0;
}

void ibr__buf_abort(ibr_buffer *b, size_t mark)
{
    if (b && b->data && mark <= b->size) {
        b->size = mark;
        b->data[mark] = 0;
    }
}

int ibr__buf_reserve(ibr_buffer *b, ibr_context *ctx, size_t extra)
{
    adopt(b, ctx);
    if (extra >= SIZE_MAX - b->size)
        return IBR_ENOMEM;
    size_t need = b->size + extra + 1;
    if (b->data && need <= b->capacity)
        return 0;
    size_t cap = b->capacity ? b->capacity : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *d = ibr__realloc(b->ctx, b->data, cap);
    if (!d)
        return IBR_ENOMEM;
    if (!b->data)
        d[0] = 0;
    b->data = d;
    b->capacity = cap;
    return 0;
}

int ibr__buf_append(ibr_buffer *b, ibr_context *ctx, const char *s, size_t n)
{
    if (ibr__buf_reserve(b, ctx, n) < 0)
        return IBR_ENOMEM;
    memcpy(b->data + b->size, s, n);
    b->size += n;
    b->data[b->size] = 0;
    return 0;
}

int ibr__buf_puts(ibr_buffer *b, ibr_context *ctx, const char *s)
{
    return ibr__buf_append(b, ctx, s, strlen(s));
}

int ibr__buf_putc(ibr_buffer *b, ibr_context *ctx, char c)
{
    return ibr__buf_append(b, ctx, &c, 1);
}

int ibr__buf_vprintf(ibr_buffer *b, ibr_context *ctx, const char *fmt, va_list ap)
{
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return IBR_EINVAL;
    if ((size_t)n < sizeof small)
        return ibr__buf_append(b, ctx, small, (size_t)n);
    if (ibr__buf_reserve(b, ctx, (size_t)n) < 0)
        return IBR_ENOMEM;
    vsnprintf(b->data + b->size, (size_t)n + 1, fmt, ap);
    b->size += (size_t)n;
    return 0;
}

int ibr__buf_printf(ibr_buffer *b, ibr_context *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ibr__buf_vprintf(b, ctx, fmt, ap);
    va_end(ap);
    return rc;
}
