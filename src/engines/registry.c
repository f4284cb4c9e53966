/*
 * The engine registry and the routing chain: the table of built-in engines
 * (generated from src/engines/meson.build), engines registered on a
 * context, engine settings given by callers, options read by version, and
 * ibr_route(), which tries the engines of a chain in order.
 */
#include <bsd/string.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/mcast_int.h"
#include "core/qos_int.h"
#include "engines/registry.h"
#include "sys/qos_int.h"
#include "sys/run_int.h"

#define MAX_SETTINGS 64

/* ---- options ---- */

/* Size of ibr_options as each version's header declared it: the library
   reads no more of a caller's struct than its version has, and takes the
   defaults for the fields a version lacks. Index: the version. */
static const size_t options_size[] = {0, offsetof(ibr_options, mcast_groups),
                                      offsetof(ibr_options, qos), sizeof(ibr_options)};

int ibr_options_init(ibr_options *opts, unsigned int version)
{
    static const ibr_options def = IBR_OPTIONS_INIT;
    return ibr__versioned_init(opts, &def, IBR__VERSION_SIZE(options_size, version), version);
}

/* ---- engine definitions ---- */

/* Size of ibr_engine per version, as options_size. */
static const size_t engine_size[] = {0, sizeof(ibr_engine)};

int ibr_engine_init(ibr_engine *engine, unsigned int version)
{
    static const ibr_engine def = IBR_ENGINE_INIT;
    return ibr__versioned_init(engine, &def, IBR__VERSION_SIZE(engine_size, version), version);
}

/* ---- registry ---- */

size_t ibr_context_engine_count(const ibr_context *ctx)
{
    return ibr__n_builtins + (ctx ? ctx->n_engines : 0);
}

/* Engine i of the registry (built-ins first), or NULL. */
static const ibr_engine *engine_at(const ibr_context *ctx, size_t i)
{
    if (i < ibr__n_builtins)
        return ibr__builtins[i];
    i -= ibr__n_builtins;
    return ctx && i < ctx->n_engines ? &ctx->engines[i] : NULL;
}

/* The engine whose name is the len bytes at name, or NULL. */
static const ibr_engine *engine_named(const ibr_context *ctx, const char *name, size_t len)
{
    size_t n = ibr_context_engine_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const ibr_engine *e = engine_at(ctx, i);
        if (strlen(e->name) == len && !memcmp(e->name, name, len))
            return e;
    }
    return NULL;
}

/* "minhop, updn, ..." : the names of every engine ctx knows, truncated
   with "..." to fit cap bytes. */
static void engine_names(char *buf, size_t cap, const ibr_context *ctx)
{
    size_t n = ibr_context_engine_count(ctx), off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = engine_at(ctx, i)->name;
        size_t need = strlen(name) + (i ? 2 : 0);
        if (off + need + 4 >= cap) {
            snprintf(buf + off, cap - off, "%s...", i ? ", " : "");
            return;
        }
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? ", " : "", name);
    }
}

static void engine_info(ibr_engine_info *out, const ibr_engine *e, int builtin)
{
    *out = (ibr_engine_info){e->name, e->description ? e->description : "", e->caps, builtin,
                             e->n_settings ? e->settings : NULL, e->n_settings};
}

int ibr_context_engine(ibr_engine_info *out, const ibr_context *ctx, size_t i)
{
    if (!out)
        return IBR_EINVAL;
    const ibr_engine *e = engine_at(ctx, i);
    if (!e)
        return IBR_ENOTFOUND;
    engine_info(out, e, i < ibr__n_builtins);
    return 0;
}

int ibr_context_find_engine(ibr_engine_info *out, const ibr_context *ctx, const char *name)
{
    if (!out || !name)
        return IBR_EINVAL;
    size_t n = ibr_context_engine_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const ibr_engine *e = engine_at(ctx, i);
        if (!strcmp(e->name, name)) {
            engine_info(out, e, i < ibr__n_builtins);
            return 0;
        }
    }
    return IBR_ENOTFOUND;
}

/* Letters, digits and the characters of extra, under 64 bytes. */
static int valid_name(const char *s, const char *extra)
{
    if (!s || !*s || strlen(s) >= 64)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
            return 0;
    return 1;
}

/* Check the settings an engine declares; the message names the problem. */
static int check_settings(char *msg, const ibr_engine *e)
{
    if (e->n_settings && !e->settings)
        return ibr__err(msg, IBR_EINVAL, "engine '%s' has %zu settings but a NULL array",
                        e->name, e->n_settings);
    if (e->n_settings > MAX_SETTINGS)
        return ibr__err(msg, IBR_EINVAL, "engine '%s' declares %zu settings (at most %d)",
                        e->name, e->n_settings, MAX_SETTINGS);
    for (size_t i = 0; i < e->n_settings; i++) {
        const ibr_setting *st = &e->settings[i];
        if (!valid_name(st->name, "_"))
            return ibr__err(msg, IBR_EINVAL,
                            "engine '%s': bad setting name '%s' (letters, digits, '_'; under "
                            "64 bytes)",
                            e->name, st->name ? st->name : "(null)");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(e->settings[k].name, st->name))
                return ibr__err(msg, IBR_EINVAL, "engine '%s': setting '%s' declared twice",
                                e->name, st->name);
        int ok = st->type == IBR_SETTING_STRING ||
                 (st->type == IBR_SETTING_BOOL && (st->def == 0 || st->def == 1)) ||
                 (st->type == IBR_SETTING_INT && st->min <= st->def && st->def <= st->max);
        if (!ok)
            return ibr__err(msg, IBR_EINVAL,
                            "engine '%s': setting '%s' has an unknown type or a default "
                            "outside its range",
                            e->name, st->name);
    }
    return 0;
}

/* Copy e into out, strings and settings included (out is freed with
   ibr__engine_free_copy() on success and on failure). */
static int copy_engine(ibr_engine *out, ibr_context *ctx, const ibr_engine *e)
{
    memset(out, 0, sizeof *out);
    out->version = IBR_ENGINE_VERSION;
    out->caps = e->caps;
    out->route = e->route;
    out->user = e->user;
    out->name = ibr__strdup(ctx, e->name);
    out->description = ibr__strdup(ctx, e->description ? e->description : "");
    ibr_setting *st = e->n_settings ? ibr__calloc(ctx, e->n_settings, sizeof *st) : NULL;
    out->settings = st;
    if (!out->name || !out->description || (e->n_settings && !st))
        return IBR_ENOMEM;
    out->n_settings = e->n_settings;
    for (size_t i = 0; i < e->n_settings; i++) {
        st[i] = e->settings[i];
        st[i].name = ibr__strdup(ctx, e->settings[i].name);
        st[i].help = ibr__strdup(ctx, e->settings[i].help ? e->settings[i].help : "");
        st[i].def_str = ibr__strdup(ctx, e->settings[i].def_str ? e->settings[i].def_str : "");
        if (!st[i].name || !st[i].help || !st[i].def_str)
            return IBR_ENOMEM;
    }
    return 0;
}

int ibr_context_register_engine(ibr_context *ctx, const ibr_engine *engine)
{
    if (!ctx || ctx == ibr__default_context())
        return IBR_EINVAL;
    if (!engine)
        return ibr__err(ctx->last_error, IBR_EINVAL, "engine definition is NULL");
    size_t size = IBR__VERSION_SIZE(engine_size, engine->version);
    if (!size)
        return ibr__err(ctx->last_error, IBR_EVERSION,
                        "engine definition version %u (this library knows 1..%u)",
                        engine->version, IBR_ENGINE_VERSION);
    /* only the fields the caller's version has; defaults for the rest */
    ibr_engine def = IBR_ENGINE_INIT;
    memcpy(&def, engine, size);
    const ibr_engine *e = &def;
    /* a route in progress holds pointers into ctx->engines, which growing
       the array would move (an engine registering from its own route
       function, or another thread breaking the rule in the header) */
    if (atomic_load(&ctx->routing))
        return ibr__err(ctx->last_error, IBR_ESTATE,
                        "cannot register engine '%s' while a route runs on the context "
                        "(register before routing, not from an engine or callback)",
                        e->name ? e->name : "(null)");
    if (!e->route)
        return ibr__err(ctx->last_error, IBR_EINVAL, "engine '%s' has no route function",
                        e->name ? e->name : "(null)");
    if (!valid_name(e->name, "-_") || !strcmp(e->name, "no_fallback"))
        return ibr__err(ctx->last_error, IBR_EINVAL,
                        "bad engine name '%s' (letters, digits, '-', '_'; under 64 bytes)",
                        e->name ? e->name : "(null)");
    if (engine_named(ctx, e->name, strlen(e->name)))
        return ibr__err(ctx->last_error, IBR_EEXIST, "an engine named '%s' already exists",
                        e->name);
    int rc = check_settings(ctx->last_error, e);
    if (rc < 0)
        return rc;
    ibr_engine copy;
    ibr_engine *arr = NULL;
    if (copy_engine(&copy, ctx, e) < 0 ||
        !(arr = ibr__reallocarray(ctx, ctx->engines, ctx->n_engines + 1, sizeof *arr))) {
        ibr__engine_free_copy(ctx, &copy);
        return ibr__err(ctx->last_error, IBR_ENOMEM, "out of memory registering '%s'", e->name);
    }
    ctx->engines = arr;
    arr[ctx->n_engines++] = copy;
    ctx->last_error[0] = 0;
    return 0;
}

/* ---- settings given by the caller ---- */

/* The engine and setting index of "engine.setting"; a message on failure. */
static int resolve_param(const ibr_engine **eng, size_t *idx, const ibr_context *ctx,
                         const char *name, char *msg)
{
    const char *dot = strchr(name, '.');
    if (!dot || dot == name || !dot[1])
        return ibr__err(msg, IBR_EINVAL, "parameter '%s': expected ENGINE.SETTING", name);
    const ibr_engine *e = engine_named(ctx, name, (size_t)(dot - name));
    if (!e)
        return ibr__err(msg, IBR_EINVAL, "parameter '%s': no engine named '%.*s'", name,
                        (int)(dot - name), name);
    for (size_t i = 0; i < e->n_settings; i++)
        if (!strcmp(e->settings[i].name, dot + 1)) {
            *eng = e;
            *idx = i;
            return 0;
        }
    char list[256] = "";
    size_t off = 0;
    for (size_t i = 0; i < e->n_settings && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "",
                                e->settings[i].name);
    return ibr__err(msg, IBR_EINVAL, "parameter '%s': engine '%s' has no setting '%s' (%s%s)",
                    name, e->name, dot + 1, e->n_settings ? "its settings: " : "it has none",
                    list);
}

/* Validate every parameter of the call before any engine runs. */
static int check_params(char *msg, const ibr_context *ctx, const ibr_options *o)
{
    for (size_t i = 0; i < o->n_params; i++) {
        const ibr_param *p = &o->params[i];
        if (!p->name || !p->value)
            return ibr__err(msg, IBR_EINVAL, "parameter %zu has a NULL %s", i,
                            p->name ? "value" : "name");
        const ibr_engine *e;
        size_t k;
        int rc = resolve_param(&e, &k, ctx, p->name, msg);
        if (rc < 0)
            return rc;
        ibr__setting_val v;
        char why[IBR_ERRMSG_SIZE];
        if (ibr__setting_parse(&v, &e->settings[k], p->value, why) < 0)
            return ibr__err(msg, IBR_EINVAL, "parameter '%s' = '%.64s': %s", p->name,
                            p->value, why);
    }
    return 0;
}

/* The values engine e runs with: its defaults, then the caller's (checked
   already; a later duplicate wins). */
static void engine_values(ibr__setting_val *vals, const ibr_context *ctx, const ibr_engine *e,
                          const ibr_options *o)
{
    ibr__setting_defaults(vals, e);
    size_t nl = strlen(e->name);
    for (size_t i = 0; i < o->n_params; i++) {
        const char *name = o->params[i].name;
        if (strncmp(name, e->name, nl) || name[nl] != '.')
            continue;
        const ibr_engine *pe;
        size_t k;
        char msg[IBR_ERRMSG_SIZE];
        if (resolve_param(&pe, &k, ctx, name, msg) == 0 && pe == e)
            ibr__setting_parse(&vals[k], &e->settings[k], o->params[i].value, msg);
    }
}

static int record_settings(ibr_result *r, const ibr_engine *e, const ibr__setting_val *vals)
{
    for (size_t i = 0; i < e->n_settings; i++) {
        char name[160], num[32];
        snprintf(name, sizeof name, "%s.%s", e->name, e->settings[i].name);
        const char *v = ibr__setting_text(&e->settings[i], &vals[i], num, sizeof num);
        if (ibr__result_add_setting(r, name, v) < 0)
            return IBR_ENOMEM;
    }
    return 0;
}

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
    if (o->n_params && !o->params)
        return ibr__err(r->last_error, IBR_EINVAL, "option list with a count but a NULL pointer");
    return 0;
}

static int fail_result(ibr_result *r, int code)
{
    r->status = code;
    ibr__free(r->ctx, r->lft);
    r->lft = NULL;
    return code;
}

/* After an engine's success: the default trees when it built none of its
   own (on plain minimum hops: OpenSM's per-port hop tables for every
   engine without a hop matrix of its own), then the members the result
   keeps. */
static int mcast_trees(ibr_run *run, unsigned max_vls, int retried)
{
    int rc = 0;
    if (!run->mcast_built) {
        uint8_t *plain = NULL;
        rc = ibr__switch_hops(&plain, run->topo, run->nthreads);
        if (rc == 0)
            rc = ibr_run_mcast_default(run, plain, NULL, NULL);
        else
            rc = ibr__run_fail(run, rc, "out of memory");
        ibr__free(run->ctx, plain);
    }
    if (rc == 0)
        rc = ibr__mcast_isolate(run, max_vls, retried);
    if (rc == 0 && ibr__result_set_mcast_members(run->res, run->opts.mcast_groups) < 0)
        rc = ibr__run_fail(run, IBR_ENOMEM, "out of memory");
    return rc;
}

static int route_chain(ibr_result **out, const ibr_topo *t, const char *chain,
                       const ibr_options *opts)
{
    ibr_result *r;
    if (ibr__result_new(&r, t) < 0)
        return IBR_ENOMEM;
    *out = r;

    ibr_run run;
    memset(&run, 0, sizeof run);
    run.ctx = t->ctx;
    run.topo = t;
    run.res = r;
    ibr_options_init(&run.opts, IBR_OPTIONS_VERSION);
    if (opts) {
        size_t size = IBR__VERSION_SIZE(options_size, opts->version);
        if (!size)
            return fail_result(r, ibr__err(r->last_error, IBR_EVERSION,
                                           "options version %u (this library knows 1..%u)",
                                           opts->version, IBR_OPTIONS_VERSION));
        /* only the fields the caller's version has; defaults for the rest */
        memcpy(&run.opts, opts, size);
        run.opts.version = IBR_OPTIONS_VERSION;
    }
    int rc = check_options(r, &run.opts);
    if (rc == 0 && run.opts.mcast_groups && run.opts.mcast_groups->topo != t)
        rc = ibr__err(r->last_error, IBR_EINVAL,
                      "option mcast_groups is bound to another topology");
    if (rc == 0 && (run.opts.mcast_flags & ~(unsigned)(IBR_MCAST_BALANCE | IBR_MCAST_OPENSM)))
        rc = ibr__err(r->last_error, IBR_EINVAL, "option mcast_flags = 0x%x (unknown bits)",
                      run.opts.mcast_flags);
    if (rc == 0)
        rc = check_params(r->last_error, t->ctx, &run.opts);
    if (rc < 0)
        return fail_result(r, rc);
    ibr__setting_val vals[MAX_SETTINGS];
    run.vals = vals;
    r->seed = run.opts.seed;
    r->lmc_cap = run.opts.lmc == IBR_LMC_TOPO ? 7 : run.opts.lmc;
    run.nthreads = ibr__resolve_threads(run.opts.threads);
    /* automatic thread count: starting workers costs more than it saves
       on small fabrics (the tables are the same either way) */
    if (run.opts.threads == 0 && (uint64_t)t->n_sw * ((uint64_t)t->max_lid + 1) < (1u << 18))
        run.nthreads = 1;
    r->threads = run.nthreads;

    /* parse the chain */
    const ibr_engine *eng[MAX_CHAIN];
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
        if (!(eng[n] = engine_named(t->ctx, name, len))) {
            char known[256];
            engine_names(known, sizeof known, t->ctx);
            return fail_result(r, ibr__err(r->last_error, IBR_EINVAL,
                                           "unknown engine '%s' (known engines: %s)", name,
                                           known));
        }
        n++;
    }
    if (n == 0 && no_fallback)
        return fail_result(r, ibr__err(r->last_error, IBR_EINVAL,
                                       "chain '%s' names no engine and forbids the fallback",
                                       chain));
    if (!no_fallback)
        eng[n++] = engine_named(t->ctx, "minhop", 6);

    if (ibr__result_alloc_lft(r) < 0)
        return fail_result(r, IBR_ENOMEM);
    /* QoS levels (ibr_qos_levels): each level gets VLs of its own, so the
       engine routes within the VLs of one level */
    unsigned levels = run.opts.qos ? ibr__qos_levels(run.opts.qos) : 1;
    unsigned user_max_vls = run.opts.max_vls;
    for (size_t i = 0; i < n; i++) {
        ibr__result_clear_tables(r);
        run.message[0] = 0;
        run.engine = eng[i];
        run.opts.max_vls = user_max_vls;
        r->qos_levels = r->qos_stride = 0;
        engine_values(vals, t->ctx, eng[i], &run.opts);
        ibr__log(t->ctx, IBR_LOG_INFO, "routing with engine '%s'", eng[i]->name);
        run.mcast_built = 0;
        unsigned per_level = 0;
        if (levels > 1 && (eng[i]->caps & IBR_CAP_OWN_SL2VL)) {
            rc = levels > 2 ? ibr__run_decline(&run, "%u QoS levels asked; the engine's SL2VL "
                                               "has 2 (SL bit 3)", levels)
                            : eng[i]->route(&run, eng[i]->user);
        } else if (levels > 1) {
            unsigned pv = ibr_topo_data_vls(t);
            unsigned avail = pv && pv < user_max_vls ? pv : user_max_vls;
            per_level = avail / levels;
            if (!per_level) {
                rc = ibr__run_decline(&run, "%u QoS levels need a VL each; %u available "
                                      "(max_vls %u, ports' OperVLs %u)", levels, avail,
                                      user_max_vls, pv);
            } else {
                run.opts.max_vls = per_level;
                rc = eng[i]->route(&run, eng[i]->user);
                if (rc < 0 && run.message[0]) {
                    char why[IBR_ERRMSG_SIZE], head[80];
                    strlcpy(why, run.message, sizeof why);
                    int hn = snprintf(head, sizeof head,
                                      "with %u QoS levels, %u VLs per level (of %u): ", levels,
                                      per_level, avail);
                    strlcpy(run.message, head, sizeof run.message);
                    if (hn > 0 && (size_t)hn < sizeof run.message)
                        strlcpy(run.message + hn, why, sizeof run.message - (size_t)hn);
                }
            }
        } else {
            rc = eng[i]->route(&run, eng[i]->user);
        }
        if (rc > 0)
            rc = IBR_EINTERNAL;
        if (rc == 0 && run.opts.mcast_groups)
            rc = mcast_trees(&run, run.opts.max_vls, 0);
        if (rc == 1) {
            /* multicast needs a VL of its own and the engine spread over
               more VLs than its layers need: route again with one fewer */
            unsigned max_vls = run.opts.max_vls, fewer = r->vls_used - 1;
            ibr__log(t->ctx, IBR_LOG_INFO,
                     "engine '%s' again with max_vls %u, to leave VL 0 to multicast",
                     eng[i]->name, fewer);
            ibr__result_clear_tables(r);
            run.message[0] = 0;
            run.mcast_built = 0;
            run.opts.max_vls = fewer;
            rc = eng[i]->route(&run, eng[i]->user);
            run.opts.max_vls = max_vls;
            if (rc != 0 && rc != IBR_ENOMEM && rc != IBR_ECANCELED) {
                /* it cannot do with fewer: its first routing, loop and all */
                ibr__result_clear_tables(r);
                run.message[0] = 0;
                run.mcast_built = 0;
                rc = eng[i]->route(&run, eng[i]->user);
            }
            if (rc > 0)
                rc = IBR_EINTERNAL;
            if (rc == 0)
                rc = mcast_trees(&run, max_vls, 1);
        }
        if (rc == 0 && check_sls(r) < 0)
            rc = ibr__run_fail(&run, IBR_EINTERNAL, "the engine wrote a path SL above 15");
        if (rc == 0 && levels > 1) {
            /* level l's copy of a path SL is l strides up: the engine's
               layers (torus-2QoS: SL bit 3) */
            unsigned k = (eng[i]->caps & IBR_CAP_OWN_SL2VL) ? 8
                         : r->vls_used ? r->vls_used : 1;
            r->qos_levels = levels;
            r->qos_stride = k;
            if (!(eng[i]->caps & IBR_CAP_OWN_SL2VL))
                r->vls_used = levels * k;
        }
        run.opts.max_vls = user_max_vls;
        if (rc == 0 && run.opts.qos)
            rc = ibr__qos_program(r, run.opts.qos, eng[i]->name, eng[i]->caps);
        if (rc == 0 && record_settings(r, eng[i], vals) < 0)
            rc = IBR_ENOMEM;
        if (rc == IBR_ENOMEM && !run.message[0])
            strlcpy(run.message, "out of memory", sizeof run.message);
        if (ibr__result_add_attempt(r, eng[i]->name, rc, run.message) < 0) {
            ibr__result_clear_tables(r);
            return fail_result(r, ibr__err(r->last_error, IBR_ENOMEM, "out of memory"));
        }
        if (rc == 0) {
            strlcpy(r->engine, eng[i]->name, sizeof r->engine);
            r->last_error[0] = 0;
            r->status = 0;
            return 0;
        }
        ibr__log(t->ctx, IBR_LOG_INFO, "engine '%s' %s: %s", eng[i]->name,
                 rc == IBR_EDECLINED ? "declined" : "failed", run.message);
        if (rc == IBR_ECANCELED || rc == IBR_ENOMEM) {
            /* the caller's problem, not the engine's: no fallback */
            ibr__result_clear_tables(r);
            ibr__err(r->last_error, rc, "%s during engine '%s'",
                     rc == IBR_ECANCELED ? "canceled" : "out of memory", eng[i]->name);
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
