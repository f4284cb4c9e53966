/*
 * ibr_route(): the routing pipeline. One call runs these stages in order:
 *
 *   prepare_run   read the options by version, check them and the engine
 *                 parameters, set up the run (threads, seed)
 *   parse_chain   the engines to try, minhop last unless "no_fallback"
 *   attempt       for each engine until one routes:
 *     run_engine    the engine, within the VLs of one QoS level
 *     stage_mcast   the multicast trees and their VL isolation (which may
 *                   ask to route again with one VL fewer)
 *     stage_qos     the QoS levels' SLs and the QoS manager's tables
 *   finish        the attempt recorded; the result handed out or failed
 */
#include <bsd/string.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/mcast_groups_int.h"
#include "core/result_notes.h"
#include "core/messages.h"
#include "mcast/mcast.h"
#include "core/result_qos.h"
#include "core/result_unicast.h"
#include "qos/qos.h"
#include "route/route_int.h"

#define MAX_CHAIN 32

/* One ibr_route() call on its way through the stages. */
typedef struct route_call {
    const ibr_topo *t;
    ibr_result *r;
    const char *chain;
    ibr_run run;
    const ibr_engine *eng[MAX_CHAIN]; /* the chain, fallback included */
    size_t n;
    unsigned levels;       /* QoS levels (ibr_qos_levels; 1: none) */
    unsigned user_max_vls; /* the caller's max_vls */
    ibr__setting_val vals[IBR__MAX_SETTINGS];
} route_call;

static int fail_result(ibr_result *r, int code)
{
    r->status = code;
    ibr__result_unicast_drop(r);
    return code;
}

/* ---- prepare the run ---- */

static int prepare_run(route_call *c, const ibr_options *opts)
{
    const ibr_topo *t = c->t;
    ibr_result *r = c->r;
    ibr_run *run = &c->run;
    memset(run, 0, sizeof *run);
    run->ctx = t->ctx;
    run->topo = t;
    run->res = r;
    int rc = ibr__options_read(&run->opts, opts, r->last_error);
    if (rc < 0)
        return rc;
    rc = ibr__options_check(r->last_error, &run->opts);
    if (rc == 0 && run->opts.mcast_groups && run->opts.mcast_groups->topo != t)
        rc = ibr__err(r->last_error, IBR_EINVAL,
                      IBR__MSG("RO006", "option mcast_groups is bound to another topology"));
    if (rc == 0 && (run->opts.mcast_flags & ~(unsigned)(IBR_MCAST_BALANCE | IBR_MCAST_OPENSM)))
        rc = ibr__err(r->last_error, IBR_EINVAL,
                      IBR__MSG("RO007", "option mcast_flags = 0x%x (unknown bits)"),
                      run->opts.mcast_flags);
    if (rc == 0)
        rc = ibr__params_check(r->last_error, t->ctx, &run->opts);
    if (rc < 0)
        return rc;
    run->vals = c->vals;
    run->nthreads = ibr__resolve_threads(run->opts.threads);
    /* automatic thread count: starting workers costs more than it saves
       on small fabrics (the tables are the same either way) */
    if (run->opts.threads == 0 && (uint64_t)t->n_sw * ((uint64_t)t->max_lid + 1) < (1u << 18))
        run->nthreads = 1;
    ibr__result_set_run(r, run->opts.seed, run->nthreads,
                        run->opts.lmc == IBR_LMC_TOPO ? 7 : run->opts.lmc);
    c->levels = run->opts.qos ? ibr__qos_levels(run->opts.qos) : 1;
    c->user_max_vls = run->opts.max_vls;
    return 0;
}

/* ---- parse the chain ---- */

static int parse_chain(route_call *c)
{
    const ibr_context *ctx = c->t->ctx;
    const char *chain = c->chain;
    char *msg = c->r->last_error;
    int no_fallback = 0;
    const char *s = chain ? chain : "";
    c->n = 0;
    while (*s) {
        while (*s && (*s == ',' || isspace((unsigned char)*s)))
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ',' && !isspace((unsigned char)*e))
            e++;
        char name[64];
        size_t len = (size_t)(e - s);
        if (len >= sizeof name)
            return ibr__err(msg, IBR_EINVAL,
                            IBR__MSG("RO008", "engine name too long in chain '%s'"), chain);
        memcpy(name, s, len);
        name[len] = 0;
        s = e;
        if (!strcmp(name, "no_fallback")) {
            no_fallback = 1;
            continue;
        }
        if (c->n == MAX_CHAIN)
            return ibr__err(msg, IBR_EINVAL, IBR__MSG("RO009", "chain lists more than %d engines"),
                            MAX_CHAIN);
        if (!(c->eng[c->n] = ibr__engine_named(ctx, name, len))) {
            char known[256];
            ibr__engine_names(known, sizeof known, ctx);
            return ibr__err(msg, IBR_EINVAL,
                            IBR__MSG("RO010", "unknown engine '%s' (known engines: %s)"), name,
                            known);
        }
        c->n++;
    }
    if (c->n == 0 && no_fallback)
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO011", "chain '%s' names no engine and forbids the fallback"),
                        chain);
    if (!no_fallback)
        c->eng[c->n++] = ibr__engine_named(ctx, "minhop", 6);
    return 0;
}

/* ---- the engine ---- */

/* Start engine e's run on empty tables. */
static void reset_run(route_call *c)
{
    ibr__result_clear_tables(c->r);
    c->run.message[0] = 0;
    c->run.mcast_built = 0;
}

/* Run engine e: with QoS levels, within the VLs of one level (each level
   gets VLs of its own). */
static int run_engine(route_call *c, const ibr_engine *e)
{
    ibr_run *run = &c->run;
    unsigned levels = c->levels, user_max_vls = c->user_max_vls;
    if (levels > 1 && (e->caps & IBR_CAP_OWN_SL2VL))
        return levels > 2
                   ? ibr__run_decline(run,
                                      IBR__MSG("RT002", "%u QoS levels asked; the engine's SL2VL "
                                                        "has 2 (SL bit 3)"),
                                      levels)
                   : e->route(run, e->user);
    if (levels <= 1)
        return e->route(run, e->user);
    unsigned pv = ibr_topo_data_vls(c->t);
    unsigned avail = pv && pv < user_max_vls ? pv : user_max_vls;
    unsigned per_level = avail / levels;
    if (!per_level)
        return ibr__run_decline(run,
                                IBR__MSG("RT003", "%u QoS levels need a VL each; %u available "
                                                  "(max_vls %u, ports' OperVLs %u)"),
                                levels, avail, user_max_vls, pv);
    run->opts.max_vls = per_level;
    int rc = e->route(run, e->user);
    if (rc < 0 && run->message[0]) {
        char why[IBR_ERRMSG_SIZE], head[80];
        strlcpy(why, run->message, sizeof why);
        int hn = snprintf(head, sizeof head, "with %u QoS levels, %u VLs per level (of %u): ",
                          levels, per_level, avail);
        strlcpy(run->message, head, sizeof run->message);
        if (hn > 0 && (size_t)hn < sizeof run->message)
            strlcpy(run->message + hn, why, sizeof run->message - (size_t)hn);
    }
    return rc;
}

/* ---- the multicast stage ---- */

/* The trees of the caller's groups. When they need a VL of their own and
   the engine spread over more VLs than its layers need, engine e routes
   again with one VL fewer, or, when it cannot, as it did the first time. */
static int stage_mcast(route_call *c, const ibr_engine *e)
{
    ibr_run *run = &c->run;
    ibr__mcast_next next;
    int rc = ibr__mcast_trees(&next, run, run->opts.max_vls, 0);
    if (rc < 0 || next == IBR__MCAST_DONE)
        return rc;
    unsigned max_vls = run->opts.max_vls, fewer = c->r->vls_used - 1;
    ibr__log(c->t->ctx, IBR_LOG_INFO,
             "engine '%s' again with max_vls %u, to leave VL 0 to multicast", e->name, fewer);
    reset_run(c);
    run->opts.max_vls = fewer;
    rc = e->route(run, e->user);
    run->opts.max_vls = max_vls;
    if (rc != 0 && rc != IBR_ENOMEM && rc != IBR_ECANCELED) {
        /* it cannot do with fewer: its first routing, loop and all */
        reset_run(c);
        rc = e->route(run, e->user);
    }
    if (rc > 0)
        rc = IBR_EINTERNAL;
    if (rc == 0)
        rc = ibr__mcast_trees(&next, run, max_vls, 1);
    return rc;
}

/* ---- the QoS stage ---- */

/* Engines write SL rows directly: every SL must be one (0..15), or the
   SL2VL lookups of the verifier and the writers would index past 16. */
static int check_sls(const ibr_result *r)
{
    if (!r->sl)
        return 0;
    size_t n = (r->sl_mode == IBR_SL_PER_PAIR ? ibr__n_src_slots(r->topo) : 1) * r->lft_size;
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= r->sl[i];
    return acc > 15 ? IBR_EINTERNAL : 0;
}

/* The QoS levels' layout of the SLs, then the QoS manager's tables. */
static int stage_qos(route_call *c, const ibr_engine *e)
{
    ibr_result *r = c->r;
    int rc = 0;
    ibr__qos_set_levels(r, c->levels, e->caps);
    c->run.opts.max_vls = c->user_max_vls;
    if (c->run.opts.qos)
        rc = ibr__qos_program(r, c->run.opts.qos, e->name, e->caps);
    return rc;
}

/* ---- one attempt ---- */

/* Route with engine e through every stage: 0 or the attempt's error (the
   run's message says why). */
static int attempt(route_call *c, const ibr_engine *e)
{
    ibr_run *run = &c->run;
    ibr_result *r = c->r;
    reset_run(c);
    run->engine = e;
    run->opts.max_vls = c->user_max_vls;
    ibr__qos_set_levels(r, 1, 0);
    ibr__params_values(c->vals, c->t->ctx, e, &run->opts);
    ibr__log(c->t->ctx, IBR_LOG_INFO, "routing with engine '%s'", e->name);
    int rc = run_engine(c, e);
    if (rc > 0)
        rc = IBR_EINTERNAL;
    if (rc == 0 && run->opts.mcast_groups)
        rc = stage_mcast(c, e);
    if (rc == 0 && check_sls(r) < 0)
        rc = ibr__run_fail(run, IBR_EINTERNAL, "the engine wrote a path SL above 15");
    if (rc == 0)
        rc = stage_qos(c, e);
    else
        run->opts.max_vls = c->user_max_vls;
    if (rc == 0 && ibr__params_record(r, e, c->vals) < 0)
        rc = IBR_ENOMEM;
    if (rc == IBR_ENOMEM && !run->message[0])
        strlcpy(run->message, "out of memory", sizeof run->message);
    return rc;
}

/* ---- finish ---- */

/* Every engine gave up: the result fails with a summary of why, each
   engine's message (with its own code) after the head and the summary's
   code last; the list is cut short, never the code. */
static int finish_unroutable(ibr_result *r)
{
    ibr__result_clear_tables(r);
    char list[IBR_ERRMSG_SIZE];
    size_t off = 0;
    list[0] = 0;
    for (size_t i = 0; i < r->n_attempts && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "; %s: %s", r->attempts[i].name,
                                r->attempts[i].message);
    int fixed = snprintf(NULL, 0, IBR__MSG("RT001", "no engine could route the fabric%.*s"), 0, "");
    size_t room = sizeof r->last_error - 1 - (size_t)fixed, n = strlen(list);
    snprintf(r->last_error, sizeof r->last_error,
             IBR__MSG("RT001", "no engine could route the fabric%.*s"), (int)(n < room ? n : room),
             list);
    return fail_result(r, IBR_EUNROUTABLE);
}

static int route_chain(ibr_result **out, const ibr_topo *t, const char *chain,
                       const ibr_options *opts)
{
    ibr_result *r;
    if (ibr__result_new(&r, t) < 0)
        return IBR_ENOMEM;
    *out = r;
    route_call c;
    c.t = t;
    c.r = r;
    c.chain = chain;
    int rc = prepare_run(&c, opts);
    if (rc == 0)
        rc = parse_chain(&c);
    if (rc < 0)
        return fail_result(r, rc);
    if (ibr__result_alloc_lft(r) < 0)
        return fail_result(r, IBR_ENOMEM);
    for (size_t i = 0; i < c.n; i++) {
        const ibr_engine *e = c.eng[i];
        rc = attempt(&c, e);
        if (ibr__result_add_attempt(r, e->name, rc, c.run.message) < 0) {
            ibr__result_clear_tables(r);
            return fail_result(r, ibr__err(r->last_error, IBR_ENOMEM, "out of memory"));
        }
        if (rc == 0) {
            ibr__result_set_engine(r, e->name);
            r->last_error[0] = 0;
            r->status = 0;
            return 0;
        }
        ibr__log(t->ctx, IBR_LOG_INFO, "engine '%s' %s: %s", e->name,
                 rc == IBR_EDECLINED ? "declined" : "failed", c.run.message);
        if (rc == IBR_ECANCELED || rc == IBR_ENOMEM) {
            /* the caller's problem, not the engine's: no fallback */
            ibr__result_clear_tables(r);
            ibr__err(r->last_error, rc, "%s during engine '%s'",
                     rc == IBR_ECANCELED ? "canceled" : "out of memory", e->name);
            return fail_result(r, rc);
        }
    }
    return finish_unroutable(r);
}

int ibr_route(ibr_result **out, const ibr_topo *t, const char *chain, const ibr_options *opts)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t)
        return IBR_EINVAL;
    /* the registry must not change under the chain (see
       ibr_context_register_engine()); the default context takes no
       engines and stays untouched */
    ibr_context *ctx = t->ctx != ibr__default_context() ? t->ctx : NULL;
    if (ctx)
        atomic_fetch_add(&ctx->routing, 1);
    int rc = route_chain(out, t, chain, opts);
    if (ctx)
        atomic_fetch_sub(&ctx->routing, 1);
    return rc;
}
