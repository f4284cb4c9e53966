/* Contexts: allocator, logging, user engine registry. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static void *libc_malloc(void *user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void *libc_realloc(void *user, void *p, size_t size)
{
    (void)user;
    return realloc(p, size);
}

static void libc_free(void *user, void *p)
{
    (void)user;
    free(p);
}

/* Never modified: register_engine rejects the default context, and
   ibr_route() counts no route on it. */
static ibr_context default_ctx = {
    {libc_malloc, libc_realloc, libc_free, NULL}, NULL, NULL, IBR_LOG_WARN, NULL, 0, {0}, 0,
};

ibr_context *ibr__default_context(void)
{
    return &default_ctx;
}

/* Size of ibr_context_config per version (see IBR__VERSION_SIZE). */
static const size_t config_size[] = {0, sizeof(ibr_context_config)};

int ibr_context_config_init(ibr_context_config *cfg, unsigned int version)
{
    static const ibr_context_config def = IBR_CONTEXT_CONFIG_INIT;
    return ibr__versioned_init(cfg, &def, IBR__VERSION_SIZE(config_size, version), version);
}

int ibr_context_create(ibr_context **out, const ibr_context_config *config)
{
    ibr_context_config def = IBR_CONTEXT_CONFIG_INIT;
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (config) {
        /* only the fields the caller's version has; defaults for the rest */
        size_t size = IBR__VERSION_SIZE(config_size, config->version);
        if (!size)
            return IBR_EVERSION;
        memcpy(&def, config, size);
    }
    const ibr_context_config *cfg = &def;
    ibr_allocator al = default_ctx.alloc;
    if (cfg->alloc) {
        if (!cfg->alloc->malloc_fn || !cfg->alloc->realloc_fn || !cfg->alloc->free_fn)
            return IBR_EINVAL;
        al = *cfg->alloc;
    }
    ibr_context *ctx = al.malloc_fn(al.user, sizeof *ctx);
    if (!ctx)
        return IBR_ENOMEM;
    memset(ctx, 0, sizeof *ctx);
    atomic_init(&ctx->routing, 0);
    ctx->alloc = al;
    ctx->log = cfg->log;
    ctx->log_user = cfg->log_user;
    ctx->log_level = cfg->log_level;
    *out = ctx;
    return 0;
}

void ibr_context_destroy(ibr_context *ctx)
{
    if (!ctx || ctx == &default_ctx)
        return;
    for (size_t i = 0; i < ctx->n_engines; i++)
        ibr__engine_free_copy(ctx, &ctx->engines[i]);
    ibr__free(ctx, ctx->engines);
    ctx->alloc.free_fn(ctx->alloc.user, ctx);
}

void ibr__engine_free_copy(ibr_context *ctx, ibr_engine *e)
{
    ibr__free(ctx, (char *)e->name);
    ibr__free(ctx, (char *)e->description);
    ibr_setting *st = (ibr_setting *)e->settings;
    for (size_t i = 0; st && i < e->n_settings; i++) {
        ibr__free(ctx, (char *)st[i].name);
        ibr__free(ctx, (char *)st[i].def_str);
        ibr__free(ctx, (char *)st[i].help);
    }
    ibr__free(ctx, st);
}

const char *ibr_context_last_error(const ibr_context *ctx)
{
    return ctx ? ctx->last_error : "";
}
