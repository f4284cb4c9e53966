/*
 * Appending text to an ibr_buffer (formats.h) from the library's writers.
 *
 * Every append helper takes the context of the object being written; the
 * buffer adopts it when it has no context yet (ibr_buffer::ctx is "set by
 * the first writer"), and from then on the buffer's own context is used for
 * its memory. Helpers return 0 or IBR_ENOMEM and keep data NUL-terminated;
 * on IBR_ENOMEM the buffer holds what it held before the call.
 *
 * A writer normally starts with ibr__buf_begin(), which validates the
 * buffer and remembers its size, and calls ibr__buf_abort() when it fails
 * half way, so that a failed writer leaves the caller's buffer as it was.
 */
#ifndef IBROUTE_CORE_BUFFER_H
#define IBROUTE_CORE_BUFFER_H

#include <stdarg.h>
#include <stddef.h>

#include "core/base.h"
#include "ibroute/formats.h"

/* Validate b (IBR_EINVAL when NULL or inconsistent), adopt ctx when b has no
   context yet, and store b's current size in *mark. */
int ibr__buf_begin(ibr_buffer *b, ibr_context *ctx, size_t *mark);
/* Cut b back to mark bytes (after a failed writer). */
void ibr__buf_abort(ibr_buffer *b, size_t mark);

/* Make room for extra more bytes (plus the NUL). */
int ibr__buf_reserve(ibr_buffer *b, ibr_context *ctx, size_t extra);
int ibr__buf_append(ibr_buffer *b, ibr_context *ctx, const char *s, size_t n);
int ibr__buf_puts(ibr_buffer *b, ibr_context *ctx, const char *s);
int ibr__buf_putc(ibr_buffer *b, ibr_context *ctx, char c);
int ibr__buf_printf(ibr_buffer *b, ibr_context *ctx, const char *fmt, ...) IBR_PRINTF(3, 4);
int ibr__buf_vprintf(ibr_buffer *b, ibr_context *ctx, const char *fmt, va_list ap)
    IBR_PRINTF(3, 0);

#endif
