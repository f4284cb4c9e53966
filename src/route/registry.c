/*
 * The engine registry: engine definitions read by their version, the
 * built-in engines (the table generated from src/engines/meson.build, with
 * the repair each declares) and the engines registered on a context.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "route/registry.h"
#include "route/route_int.h"

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

const ibr_engine *ibr__engine_named(const ibr_context *ctx, const char *name, size_t len)
{
    size_t n = ibr_context_engine_count(ctx);
    for (size_t i = 0; i < n; i++) {
        const ibr_engine *e = engine_at(ctx, i);
        if (strlen(e->name) == len && !memcmp(e->name, name, len))
            return e;
    }
    return NULL;
}

ibr__repair_kind ibr__engine_repair(const ibr_context *ctx, const char *name)
{
    size_t n = ibr_context_engine_count(ctx);
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(engine_at(ctx, i)->name, name))
            return i < ibr__n_builtins ? ibr__builtin_repairs[i] : IBR__REPAIR_GENERIC;
    return IBR__REPAIR_GENERIC;
}

void ibr__engine_names(char *buf, size_t cap, const ibr_context *ctx)
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
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO019", "engine '%s' has %zu settings but a NULL array"), e->name,
                        e->n_settings);
    if (e->n_settings > IBR__MAX_SETTINGS)
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO020", "engine '%s' declares %zu settings (at most %d)"),
                        e->name, e->n_settings, IBR__MAX_SETTINGS);
    for (size_t i = 0; i < e->n_settings; i++) {
        const ibr_setting *st = &e->settings[i];
        if (!valid_name(st->name, "_"))
            return ibr__err(
                msg, IBR_EINVAL,
                IBR__MSG("RO021", "engine '%s': bad setting name '%s' (letters, digits, '_'; under "
                                  "64 bytes)"),
                e->name, st->name ? st->name : "(null)");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(e->settings[k].name, st->name))
                return ibr__err(msg, IBR_EINVAL,
                                IBR__MSG("RO022", "engine '%s': setting '%s' declared twice"),
                                e->name, st->name);
        int ok = st->type == IBR_SETTING_STRING ||
                 (st->type == IBR_SETTING_BOOL && (st->def == 0 || st->def == 1)) ||
                 (st->type == IBR_SETTING_INT && st->min <= st->def && st->def <= st->max);
        if (!ok)
            return ibr__err(msg, IBR_EINVAL,
                            IBR__MSG("RO023",
                                     "engine '%s': setting '%s' has an unknown type or a default "
                                     "outside its range"),
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
        return ibr__err(
            ctx->last_error, IBR_EVERSION,
            IBR__MSG("RO024", "engine definition version %u (this library knows 1..%u)"),
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
                        IBR__MSG("RO025",
                                 "cannot register engine '%s' while a route runs on the context "
                                 "(register before routing, not from an engine or callback)"),
                        e->name ? e->name : "(null)");
    if (!e->route)
        return ibr__err(ctx->last_error, IBR_EINVAL,
                        IBR__MSG("RO026", "engine '%s' has no route function"),
                        e->name ? e->name : "(null)");
    if (!valid_name(e->name, "-_") || !strcmp(e->name, "no_fallback"))
        return ibr__err(
            ctx->last_error, IBR_EINVAL,
            IBR__MSG("RO027", "bad engine name '%s' (letters, digits, '-', '_'; under 64 bytes)"),
            e->name ? e->name : "(null)");
    if (ibr__engine_named(ctx, e->name, strlen(e->name)))
        return ibr__err(ctx->last_error, IBR_EEXIST,
                        IBR__MSG("RO028", "an engine named '%s' already exists"), e->name);
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
