/*
 * What a built-in engine sees: the engine-author API (sys/engine.h), the
 * toolkit (sys/toolkit.h), the read-only layout of the topology
 * (core/topo_int.h) and the library's helpers (core/base.h). Not the
 * layouts of the result, the run or the context: engines write their
 * tables through the API, as any engine does.
 *
 * Each built-in defines one `const ibr_engine ibr__engine_<name>` and is
 * listed once, in src/engines/meson.build, which generates the table of
 * built-ins.
 */
#ifndef IBROUTE_ENGINE_INT_H
#define IBROUTE_ENGINE_INT_H

#include <stdarg.h>
#include <stdio.h>

#include "core/base.h"
#include "core/topo_int.h"
#include "ibroute/sys/engine.h"
#include "ibroute/sys/toolkit.h"

/* ibr_run_decline() / ibr_run_fail() with a printf-style message. */
static inline int ibr__decline(ibr_run *run, const char *fmt, ...) IBR_PRINTF(2, 3);
static inline int ibr__decline(ibr_run *run, const char *fmt, ...)
{
    char msg[IBR_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ibr_run_decline(run, msg);
}

static inline int ibr__fail(ibr_run *run, int code, const char *fmt, ...) IBR_PRINTF(3, 4);
static inline int ibr__fail(ibr_run *run, int code, const char *fmt, ...)
{
    char msg[IBR_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ibr_run_fail(run, code, msg);
}

/* The topology's context: the allocator engines allocate with. */
static inline ibr_context *ibr__run_ctx(const ibr_run *run)
{
    return ibr_run_topo(run)->ctx;
}

#endif
