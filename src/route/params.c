/*
 * Engine settings given by the caller (ibr_options::params, "ENGINE.SETTING"
 * = value): checked before any engine runs, resolved for each engine of
 * the chain, and recorded in the result.
 */
#include <stdio.h>
#include <string.h>

#include "core/result_notes.h"
#include "core/messages.h"
#include "route/route_int.h"

/* The engine and setting index of "engine.setting"; a message on failure. */
static int resolve_param(const ibr_engine **eng, size_t *idx, const ibr_context *ctx,
                         const char *name, char *msg)
{
    const char *dot = strchr(name, '.');
    if (!dot || dot == name || !dot[1])
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO012", "parameter '%s': expected ENGINE.SETTING"), name);
    const ibr_engine *e = ibr__engine_named(ctx, name, (size_t)(dot - name));
    if (!e)
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO013", "parameter '%s': no engine named '%.*s'"), name,
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
    return ibr__err(msg, IBR_EINVAL,
                    IBR__MSG("RO014", "parameter '%s': engine '%s' has no setting '%s' (%s%s)"),
                    name, e->name, dot + 1, e->n_settings ? "its settings: " : "it has none", list);
}

int ibr__params_check(char *msg, const ibr_context *ctx, const ibr_options *o)
{
    for (size_t i = 0; i < o->n_params; i++) {
        const ibr_param *p = &o->params[i];
        if (!p->name || !p->value)
            return ibr__err(msg, IBR_EINVAL, IBR__MSG("RO015", "parameter %zu has a NULL %s"), i,
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

void ibr__params_values(ibr__setting_val *vals, const ibr_context *ctx, const ibr_engine *e,
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

int ibr__params_record(ibr_result *r, const ibr_engine *e, const ibr__setting_val *vals)
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
