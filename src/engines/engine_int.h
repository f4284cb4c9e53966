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
#include "core/messages.h"
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

/* The end of an engine run that failed with @p rc (engine_fail.c): the
   run's message is "out of memory" for IBR_ENOMEM and "internal error RC
   while WHAT" for any other code but IBR_ECANCELED (a cancel by the
   progress callback keeps its own). Returns the code to return. */
int ibr__engine_fail(ibr_run *run, int rc, const char *what);

/* The run's switch hop matrix over t (the run's topology or an engine's
   view of it), filled: *out gets the run's buffer (NULL when the run
   cannot hold one: IBR_ENOMEM), then ibr_topo_switch_hops()'s code. */
static inline int ibr__engine_hops(uint8_t **out, ibr_run *run, const ibr_topo *t)
{
    *out = ibr_run_hops(run);
    if (!*out)
        return IBR_ENOMEM;
    return ibr_topo_switch_hops(*out, t, ibr_run_threads(run));
}

/* An up/down engine's orientation of the switch links, kept with its
   routing (and in a routing database) for repairs: pos[s] is switch s's
   place, every place distinct, a step toward a smaller place first-phase.
   Returns 0 or IBR_ENOMEM. */
int ibr__run_set_upos(ibr_run *run, const uint32_t *pos);

/* The topology's context: the allocator engines allocate with. */
static inline ibr_context *ibr__run_ctx(const ibr_run *run)
{
    return ibr_run_topo(run)->ctx;
}

/* The topology an engine with the setting avoid_throttled_links routes
   on: the run's, or, when the setting is on and the fabric has throttled
   switch-to-switch cables, a view without them (ibr__topo_avoid_throttled();
   *view then holds it, to be freed with ibr__topo_view_destroy() after the
   last use of *t). Returns 0 or IBR_ENOMEM (the run's message set). */
static inline int ibr__engine_topo(const ibr_topo **t, ibr_topo **view, ibr_run *run,
                                   const char *name)
{
    int64_t on = 0;
    size_t avoided = 0, kept = 0;
    *view = NULL;
    *t = ibr_run_topo(run);
    if (ibr_run_setting_int(&on, run, "avoid_throttled_links") < 0 || !on)
        return 0;
    if (ibr__topo_avoid_throttled(view, &avoided, &kept, *t) < 0)
        return ibr__fail(run, IBR_ENOMEM, "out of memory");
    if (*view) {
        char msg[160];
        snprintf(
            msg, sizeof msg,
            IBR__MSG("EN011",
                     "%s: avoiding %zu throttled switch-to-switch cables (%zu more kept to keep "
                     "the switches connected)"),
            name, avoided, kept);
        ibr_run_log(run, kept ? IBR_LOG_WARN : IBR_LOG_INFO, msg);
        *t = *view;
    }
    return 0;
}

/* Data VLs an engine that layers its routes may use, as OpenSM 3.3 counts
   them for dfsssp, Nue and LASH: the minimum OperVLs over switch ports with
   a peer (ibr__topo_min_oper_vls()), capped by ibr_options::max_vls. */
static inline unsigned ibr__run_vls(const ibr_run *run)
{
    unsigned vls = ibr__topo_min_oper_vls(ibr_run_topo(run));
    unsigned max = ibr_run_options(run)->max_vls;
    return vls < max ? vls : max;
}

/* The artefact "rank-order.txt" (rank_order.c): the @p n end ports
   @p gp (global port indices) in the engine's destination order, with
   their destination indices @p index. Returns 0 or IBR_ENOMEM. */
#define IBR__RANK_ORDER_ARTIFACT "rank-order.txt"
int ibr__rank_order_artifact(ibr_run *run, const char *engine, const uint32_t *gp,
                             const uint64_t *index, size_t n);

#endif
