/* Options, the engine registry and the routing chain. */
#include <bsd/string.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

int ibr_options_init(ibr_options *opts, unsigned int version)
{
    if (!opts)
        return IBR_EINVAL;
    if (version != IBR_OPTIONS_VERSION)
        return IBR_EVERSION;
    static const ibr_options def = IBR_OPTIONS_INIT;
    *opts = def;
    return 0;
}

/* ---- registry ---- */

size_t ibr_engine_count(const ibr_context *ctx)
{
    return ibr__n_builtins + (ctx ? ctx->n_engines : 0);
}

int ibr_engine_get(ibr_engine_info *out, const ibr_context *ctx, size_t i)
{
    if (!out)
        return IBR_EINVAL;
    if (i < ibr__n_builtins) {
        const ibr__builtin *b = &ibr__builtins[i];
        *out = (ibr_engine_info){b->name, b->description, b->caps, 1};
        return 0;
    }
    i -= ibr__n_builtins;
    if (!ctx || i >= ctx->n_engines)
        return IBR_ENOTFOUND;
    const ibr__user_engine *e = &ctx->engines[i];
    *out = (ibr_engine_info){e->name, e->description, e->caps, 0};
    return 0;
}

int ibr_engine_find(ibr_engine_info *out, const ibr_context *ctx, const char *name)
{
    if (!out || !name)
        return IBR_EINVAL;
    size_t n = ibr_engine_count(ctx);
    for (size_t i = 0; i < n; i++) {
        ibr_engine_info info;
        ibr_engine_get(&info, ctx, i);
        if (!strcmp(info.name, name)) {
            *out = info;
            return 0;
        }
    }
    return IBR_ENOTFOUND;
}

static int valid_name(const char *s)
{
    if (!s || !*s || strlen(s) >= 64)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return 0;
    return 1;
}

int ibr_context_register_engine(ibr_context *ctx, const ibr_engine *e)
{
    if (!ctx || ctx == ibr__default_context())
        return IBR_EINVAL;
    if (!e)
        return ibr__err(ctx->last_error, IBR_EINVAL, "engine definition is NULL");
    if (e->version != IBR_ENGINE_VERSION)
        return ibr__err(ctx->last_error, IBR_EVERSION, "engine definition version %u (expected %u)",
                        e->version, IBR_ENGINE_VERSION);
    if (!e->route)
        return ibr__err(ctx->last_error, IBR_EINVAL, "engine '%s' has no route function",
                        e->name ? e->name : "(null)");
    if (!valid_name(e->name) || !strcmp(e->name, "no_fallback"))
        return ibr__err(ctx->last_error, IBR_EINVAL,
                        "bad engine name '%s' (letters, digits, '-', '_', '.'; under 64 bytes)",
                        e->name ? e->name : "(null)");
    ibr_engine_info info;
    if (ibr_engine_find(&info, ctx, e->name) == 0)
        return ibr__err(ctx->last_error, IBR_EEXIST, "an engine named '%s' already exists",
                        e->name);
    char *name = ibr__strdup(ctx, e->name);
    char *desc = ibr__strdup(ctx, e->description ? e->description : "");
    ibr__user_engine *arr =
        name && desc ? ibr__reallocarray(ctx, ctx->engines, ctx->n_engines + 1, sizeof *arr) : NULL;
    if (!arr) {
        ibr__free(ctx, name);
        ibr__free(ctx, desc);
        return ibr__err(ctx->last_error, IBR_ENOMEM, "out of memory registering '%s'", e->name);
    }
    ctx->engines = arr;
    arr[ctx->n_engines++] = (ibr__user_engine){name, desc, e->caps, e->route, e->user};
    ctx->last_error[0] = 0;
    return 0;
}

/* ---- routing ---- */

typedef struct {
    const char *name;
    unsigned caps;
    ibr_engine_route_fn route;
    void *user;
} engine_ref;

static int lookup(engine_ref *out, const ibr_context *ctx, const char *name)
{
    for (size_t i = 0; i < ibr__n_builtins; i++)
        if (!strcmp(ibr__builtins[i].name, name)) {
            *out = (engine_ref){ibr__builtins[i].name, ibr__builtins[i].caps,
                                ibr__builtins[i].route, NULL};
            return 0;
        }
    for (size_t i = 0; ctx && i < ctx->n_engines; i++)
        if (!strcmp(ctx->engines[i].name, name)) {
            *out = (engine_ref){ctx->engines[i].name, ctx->engines[i].caps,
                                ctx->engines[i].route, ctx->engines[i].user};
            return 0;
        }
    return IBR_ENOTFOUND;
}

#define MAX_CHAIN 32

static int check_options(ibr_result *r, const ibr_options *o)
{
    if (o->lmc > 7 && o->lmc != IBR_LMC_TOPO)
        return ibr__err(r->last_error, IBR_EINVAL, "option lmc = %u (must be 0..7)", o->lmc);
    if (o->max_vls < 1 || o->max_vls > 15)
        return ibr__err(r->last_error, IBR_EINVAL, "option max_vls = %u (must be 1..15)",
                        o->max_vls);
    if ((o->n_root_guids && !o->root_guids) || (o->n_cn_guids && !o->cn_guids) ||
        (o->n_io_guids && !o->io_guids) || (o->n_guid_routing_order && !o->guid_routing_order) ||
        (o->n_ignore_ports && !o->ignore_ports) || (o->n_ids && !o->ids))
        return ibr__err(r->last_error, IBR_EINVAL, "option list with a count but a NULL pointer");
    if (o->threads > 1024)
        return ibr__err(r->last_error, IBR_EINVAL, "option threads = %u (max 1024)", o->threads);
    return 0;
}

static int fail_result(ibr_result *r, int code)
{
    r->status = code;
    ibr__free(r->ctx, r->lft);
    r->lft = NULL;
    return code;
}

int ibr_route(ibr_result **out, const ibr_topo *t, const char *chain, const ibr_options *opts)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t)
        return IBR_EINVAL;
    ibr_result *r;
    if (ibr__result_new(&r, t) < 0)
        return IBR_ENOMEM;
    *out = r;

    static const ibr_options defaults = IBR_OPTIONS_INIT;
    ibr_run run;
    memset(&run, 0, sizeof run);
    run.ctx = t->ctx;
    run.topo = t;
    run.res = r;
    if (!opts)
        opts = &defaults;
    if (opts->version != IBR_OPTIONS_VERSION)
        return fail_result(r, ibr__err(r->last_error, IBR_EVERSION,
                                       "options version %u (this library knows %u)",
                                       opts->version, IBR_OPTIONS_VERSION));
    run.opts = *opts;
    int rc = check_options(r, &run.opts);
    if (rc < 0)
        return fail_result(r, rc);
    r->seed = run.opts.seed;
    r->lmc_cap = run.opts.lmc == IBR_LMC_TOPO ? 7 : run.opts.lmc;
    run.nthreads = ibr__resolve_threads(run.opts.threads);
    /* automatic thread count: starting workers costs more than it saves
       on small fabrics (the tables are the same either way) */
    if (run.opts.threads == 0 && (uint64_t)t->n_sw * ((uint64_t)t->max_lid + 1) < (1u << 18))
        run.nthreads = 1;

    /* parse the chain */
    engine_ref eng[MAX_CHAIN];
    size_t n = 0;
    int no_fallback = 0;
    const char *s = chain ? chain : "";
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
            return fail_result(r, ibr__err(r->last_error, IBR_EINVAL,
                                           "engine name too long in chain '%s'", chain));
        memcpy(name, s, len);
        name[len] = 0;
        s = e;
        if (!strcmp(name, "no_fallback")) {
            no_fallback = 1;
            continue;
        }
        if (n == MAX_CHAIN)
            return fail_result(r, ibr__err(r->last_error, IBR_EINVAL,
                                           "chain lists more than %d engines", MAX_CHAIN));
        if (lookup(&eng[n], t->ctx, name) < 0)
            return fail_result(r, ibr__err(r->last_error, IBR_EINVAL, "unknown engine '%s'",
                                           name));
        n++;
    }
    if (n == 0 && no_fallback)
        return fail_result(r, ibr__err(r->last_error, IBR_EINVAL,
                                       "chain '%s' names no engine and forbids the fallback",
                                       chain));
    if (!no_fallback) {
        lookup(&eng[n], t->ctx, "minhop");
        n++;
    }

    if (ibr__result_alloc_lft(r) < 0)
        return fail_result(r, IBR_ENOMEM);
    for (size_t i = 0; i < n; i++) {
        ibr__result_clear_tables(r);
        run.message[0] = 0;
        ibr__log(t->ctx, IBR_LOG_INFO, "routing with engine '%s'", eng[i].name);
        rc = eng[i].route(&run, eng[i].user);
        if (rc > 0)
            rc = IBR_EINTERNAL;
        if (rc == IBR_ENOMEM && !run.message[0])
            strlcpy(run.message, "out of memory", sizeof run.message);
        if (ibr__result_add_attempt(r, eng[i].name, rc, run.message) < 0) {
            ibr__result_clear_tables(r);
            return fail_result(r, ibr__err(r->last_error, IBR_ENOMEM, "out of memory"));
        }
        if (rc == 0) {
            strlcpy(r->engine, eng[i].name, sizeof r->engine);
            r->last_error[0] = 0;
            r->status = 0;
            return 0;
        }
        ibr__log(t->ctx, IBR_LOG_INFO, "engine '%s' %s: %s", eng[i].name,
                 rc == IBR_EDECLINED ? "declined" : "failed", run.message);
        if (rc == IBR_ECANCELED || rc == IBR_ENOMEM) {
            /* the caller's problem, not the engine's: no fallback */
            ibr__result_clear_tables(r);
            ibr__err(r->last_error, rc, "%s during engine '%s'",
                     rc == IBR_ECANCELED ? "canceled" : "out of memory", eng[i].name);
            return fail_result(r, rc);
        }
    }
    ibr__result_clear_tables(r);
    /* summarise why every engine gave up */
    size_t off = (size_t)snprintf(r->last_error, sizeof r->last_error,
                                  "no engine could route the fabric");
    for (size_t i = 0; i < r->n_attempts && off < sizeof r->last_error; i++)
        off += (size_t)snprintf(r->last_error + off, sizeof r->last_error - off, "; %s: %s",
                                r->attempts[i].name, r->attempts[i].message);
    return fail_result(r, IBR_EUNROUTABLE);
}
