/*
 * Engine settings: the values callers give as "engine.setting" = "value"
 * (ibr_options::params), checked against what each engine declares.
 */
#include <bsd/inttypes.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/messages.h"
#include "sys/run_int.h"

static int parse_bool(int64_t *out, const char *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(v, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

/* A whole signed integer in C's notations (decimal, 0x hex, leading-0
   octal) within [min, max]; no blanks, no trailing text. libbsd's strtoi()
   reports a missing number, trailing text and the range in one status. */
static int parse_int(int64_t *out, const char *v, int64_t min, int64_t max)
{
    if (!*v || isspace((unsigned char)*v))
        return -1;
    int status;
    intmax_t x = strtoi(v, NULL, 0, min, max, &status);
    if (status != 0)
        return -1;
    *out = (int64_t)x;
    return 0;
}

int ibr__setting_parse(ibr__setting_val *out, const ibr_setting *s, const char *value,
                       char *msg)
{
    ibr__setting_val v = {0, NULL, 0};
    switch (s->type) {
    case IBR_SETTING_BOOL:
        if (parse_bool(&v.i, value) < 0)
            return ibr__err(
                msg, IBR_EINVAL,
                IBR__MSG("RO016", "must be a boolean (1, true, yes, on, 0, false, no or off)"));
        break;
    case IBR_SETTING_INT:
        if (parse_int(&v.i, value, s->min, s->max) < 0)
            return ibr__err(msg, IBR_EINVAL,
                            IBR__MSG("RO017", "must be an integer in %" PRId64 "..%" PRId64),
                            s->min, s->max);
        break;
    case IBR_SETTING_STRING:
        v.s = value;
        v.len = strlen(value);
        break;
    default:
        return ibr__err(msg, IBR_EINVAL, IBR__MSG("RO018", "the setting has an unknown type %d"),
                        (int)s->type);
    }
    *out = v;
    return 0;
}

void ibr__setting_defaults(ibr__setting_val *vals, const ibr_engine *e)
{
    for (size_t i = 0; i < e->n_settings; i++) {
        const ibr_setting *s = &e->settings[i];
        const char *d = s->def_str ? s->def_str : "";
        vals[i] = s->type == IBR_SETTING_STRING ? (ibr__setting_val){0, d, strlen(d)}
                                                 : (ibr__setting_val){s->def, NULL, 0};
    }
}

const char *ibr__setting_text(const ibr_setting *s, const ibr__setting_val *v, char *buf,
                              size_t cap)
{
    if (s->type == IBR_SETTING_STRING)
        return v->s;
    snprintf(buf, cap, "%" PRId64, v->i);
    return buf;
}
