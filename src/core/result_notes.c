/* The result's notes section: what the routing records about itself
   beside its tables (the engine and run that made it, the attempts of
   the chain, the engine's settings and artefacts, its layering and the
   up/down orientation a repair keeps). This file alone allocates,
   clears and frees those fields; writers go through the calls declared
   in core/result_notes.h. */
#include <bsd/string.h>
#include <string.h>

#include "core/internal.h"
#include "core/result_notes.h"

void ibr__result_notes_init(ibr_result *r)
{
    r->vls_used = 1;
    r->lmc_cap = 7;
}

void ibr__result_notes_clear(ibr_result *r)
{
    ibr_context *ctx = r->ctx;
    for (size_t i = 0; i < r->n_artifacts; i++) {
        ibr__free(ctx, r->artifacts[i].name);
        ibr__free(ctx, r->artifacts[i].data);
    }
    ibr__free(ctx, r->artifacts);
    r->artifacts = NULL;
    r->n_artifacts = 0;
    for (size_t i = 0; i < r->n_settings; i++) {
        ibr__free(ctx, r->settings[i].name);
        ibr__free(ctx, r->settings[i].value);
    }
    ibr__free(ctx, r->settings);
    r->settings = NULL;
    r->n_settings = 0;
    ibr__free(ctx, r->upos);
    r->upos = NULL;
    r->vls_used = 1;
    r->layers = 0;
}

void ibr__result_notes_drop(ibr_result *r)
{
    ibr__result_notes_clear(r);
    for (size_t i = 0; i < r->n_attempts; i++)
        ibr__free(r->ctx, r->attempts[i].message);
    ibr__free(r->ctx, r->attempts);
    r->attempts = NULL;
    r->n_attempts = 0;
}

void ibr__result_set_run(ibr_result *r, uint64_t seed, unsigned threads, unsigned lmc_cap)
{
    r->seed = seed;
    r->threads = threads;
    r->lmc_cap = lmc_cap;
}

void ibr__result_set_engine(ibr_result *r, const char *name)
{
    strlcpy(r->engine, name ? name : "", sizeof r->engine);
}

void ibr__result_set_layering(ibr_result *r, unsigned vls_used, unsigned layers)
{
    r->vls_used = vls_used ? vls_used : 1;
    r->layers = layers;
}

void ibr__result_take_upos(ibr_result *r, uint32_t *pos)
{
    ibr__free(r->ctx, r->upos);
    r->upos = pos;
}

int ibr__result_add_setting(ibr_result *r, const char *name, const char *value)
{
    char *n = ibr__strdup(r->ctx, name);
    char *v = ibr__strdup(r->ctx, value);
    ibr__setting_rec *a =
        n && v ? ibr__reallocarray(r->ctx, r->settings, r->n_settings + 1, sizeof *a) : NULL;
    if (!a) {
        ibr__free(r->ctx, n);
        ibr__free(r->ctx, v);
        return IBR_ENOMEM;
    }
    r->settings = a;
    a[r->n_settings++] = (ibr__setting_rec){n, v};
    return 0;
}

size_t ibr_result_setting_count(const ibr_result *r)
{
    return r ? r->n_settings : 0;
}

int ibr_result_setting(const char **name, const char **value, const ibr_result *r, size_t i)
{
    if (!r)
        return IBR_EINVAL;
    if (i >= r->n_settings)
        return IBR_ENOTFOUND;
    if (name)
        *name = r->settings[i].name;
    if (value)
        *value = r->settings[i].value;
    return 0;
}

int ibr__result_add_attempt(ibr_result *r, const char *name, int status, const char *msg)
{
    ibr__attempt *a = ibr__reallocarray(r->ctx, r->attempts, r->n_attempts + 1, sizeof *a);
    if (!a)
        return IBR_ENOMEM;
    r->attempts = a;
    char *m = ibr__strdup(r->ctx, msg ? msg : "");
    if (!m)
        return IBR_ENOMEM;
    a = &r->attempts[r->n_attempts++];
    strlcpy(a->name, name, sizeof a->name);
    a->status = status;
    a->message = m;
    return 0;
}

int ibr__result_set_artifact(ibr_result *r, const char *name, const void *data, size_t size)
{
    ibr_context *ctx = r->ctx;
    void *copy = ibr__malloc(ctx, size);
    if (!copy)
        return IBR_ENOMEM;
    if (size)
        memcpy(copy, data, size);
    for (size_t i = 0; i < r->n_artifacts; i++)
        if (!strcmp(r->artifacts[i].name, name)) {
            ibr__free(ctx, r->artifacts[i].data);
            r->artifacts[i].data = copy;
            r->artifacts[i].size = size;
            return 0;
        }
    char *nm = ibr__strdup(ctx, name);
    ibr__artifact *a = nm ? ibr__reallocarray(ctx, r->artifacts, r->n_artifacts + 1, sizeof *a)
                          : NULL;
    if (!a) {
        ibr__free(ctx, nm);
        ibr__free(ctx, copy);
        return IBR_ENOMEM;
    }
    r->artifacts = a;
    r->artifacts[r->n_artifacts++] = (ibr__artifact){nm, copy, size};
    return 0;
}

uint64_t ibr_result_seed(const ibr_result *r)
{
    return r ? r->seed : 0;
}

unsigned int ibr_result_threads(const ibr_result *r)
{
    return r ? r->threads : 0;
}

size_t ibr_result_attempt_count(const ibr_result *r)
{
    return r ? r->n_attempts : 0;
}

int ibr_result_attempt(const char **engine, int *status, const char **message, const ibr_result *r,
                       size_t i)
{
    if (!r || i >= r->n_attempts)
        return IBR_ENOTFOUND;
    if (engine)
        *engine = r->attempts[i].name;
    if (status)
        *status = r->attempts[i].status;
    if (message)
        *message = r->attempts[i].message;
    return 0;
}

unsigned int ibr_result_layers(const ibr_result *r)
{
    return r ? r->layers : 0;
}

unsigned int ibr_result_vls_used(const ibr_result *r)
{
    return r ? r->vls_used : 0;
}

size_t ibr_result_artifact_count(const ibr_result *r)
{
    return r ? r->n_artifacts : 0;
}

int ibr_result_artifact(const char **name, const void **data, size_t *size, const ibr_result *r,
                        size_t i)
{
    if (!r || i >= r->n_artifacts)
        return IBR_ENOTFOUND;
    if (name)
        *name = r->artifacts[i].name;
    if (data)
        *data = r->artifacts[i].data;
    if (size)
        *size = r->artifacts[i].size;
    return 0;
}

int ibr_result_find_artifact(const void **data, size_t *size, const ibr_result *r,
                             const char *name)
{
    if (!r || !name)
        return IBR_EINVAL;
    for (size_t i = 0; i < r->n_artifacts; i++)
        if (!strcmp(r->artifacts[i].name, name))
            return ibr_result_artifact(NULL, data, size, r, i);
    return IBR_ENOTFOUND;
}


const char *ibr_result_engine(const ibr_result *r)
{
    return r ? r->engine : "";
}
