/*
 * The QoS configuration (qos.h): OpenSM's qos_* keys, read from opensm.conf
 * text in memory or set one by one, and the effective table of a port type
 * (its family's values, else the global ones, else OpenSM's defaults).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/messages.h"
#include "core/internal.h"
#include "formats/lex.h"
#include "qos/qos.h"
#include "qos/qos_int.h"

const char *const ibr__qos_prefix[IBR__QOS_TARGETS] = {"qos", "qos_ca", "qos_rtr", "qos_sw0",
                                                       "qos_swe"};

static const char *const param_name[5] = {"max_vls", "high_limit", "vlarb_high", "vlarb_low",
                                          "sl2vl"};

/* OpenSM's defaults (osm_base.h's values, as tables). */
static const uint8_t default_sl2vl[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7};
#define DEFAULT_MAX_VLS 15u
#define DEFAULT_HIGH_LIMIT 0u

static void default_vlarb(ibr_vlarb_entry *e, int high)
{
    memset(e, 0, IBR_VLARB_ENTRIES * sizeof *e);
    /* high: VL 0 weight 4, the others 0; low: VL 0 weight 0, the others 4 */
    for (unsigned vl = 0; vl < 15; vl++) {
        e[vl].vl = (uint8_t)vl;
        e[vl].weight = (uint8_t)((vl == 0) == !!high ? 4 : 0);
    }
}

int ibr_qos_config_create(ibr_qos_config **out, ibr_context *ctx)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    ibr_qos_config *q = ibr__calloc(ctx, 1, sizeof *q);
    if (!q)
        return IBR_ENOMEM;
    q->ctx = ctx;
    *out = q;
    return 0;
}

void ibr_qos_config_destroy(ibr_qos_config *q)
{
    if (q)
        ibr__free(q->ctx, q);
}

const char *ibr_qos_config_last_error(const ibr_qos_config *q)
{
    return q ? q->last_error : "";
}

/* The family and parameter (index into param_name) of a key; -1 when the
   key is no qos_* parameter. */
static int resolve_key(unsigned *fam, unsigned *param, const char *key, size_t len)
{
    if (len < 4 || memcmp(key, "qos_", 4))
        return -1;
    const char *p = key + 4;
    size_t n = len - 4;
    *fam = IBR_QOS_GLOBAL;
    for (unsigned f = 1; f < IBR__QOS_TARGETS; f++) {
        size_t pl = strlen(ibr__qos_prefix[f]) - 4; /* "ca", "rtr", ... */
        if (n > pl + 1 && !memcmp(p, ibr__qos_prefix[f] + 4, pl) && p[pl] == '_') {
            *fam = f;
            p += pl + 1;
            n -= pl + 1;
            break;
        }
    }
    for (unsigned i = 0; i < 5; i++)
        if (strlen(param_name[i]) == n && !memcmp(p, param_name[i], n)) {
            *param = i;
            return 0;
        }
    return -1;
}

/* A number with C base detection (strtol base 0) in s[0..n), blanks around
   it allowed. */
static int parse_num(long *out, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    char tmp[32];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    errno = 0;
    long v = strtol(tmp, &end, 0);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

/* Next comma-separated item of s[*pos..n): its start and length; empty
   items (",,", a trailing comma) are skipped, as OpenSM's tokenizer does.
   0 when none is left. */
static int next_item(const char **item, size_t *ilen, const char *s, size_t n, size_t *pos)
{
    for (;;) {
        size_t i = *pos;
        if (i >= n)
            return 0;
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        *pos = j < n ? j + 1 : j;
        size_t a = i, b = j;
        while (a < b && isspace((unsigned char)s[a]))
            a++;
        if (a < b) {
            *item = s + a;
            *ilen = b - a;
            return 1;
        }
    }
}

/* Apply "param = value" to the family set; a message in err (without the
   key, which the caller prefixes) on failure. */
static int apply(ibr__qos_set *set, unsigned param, const char *v, size_t n, char *err)
{
    unsigned bit = 1u << param;
    if (n == 0)
        return ibr__err(err, IBR_EINVAL, IBR__MSG("QC001", "empty value"));
    if (param <= 1) {
        long x;
        if (parse_num(&x, v, n) < 0)
            return ibr__err(err, IBR_EINVAL,
                            IBR__MSG("QC002", "'%.*s' is not a number"), (int)(n > 40 ? 40 : n),
                            v);
        if (param == 0) {
            if (x < 0 || x > 15)
                return ibr__err(err, IBR_EINVAL,
                                IBR__MSG("QC003", "%ld out of range (1..15; 0 unsets)"), x);
            set->max_vls = (unsigned)x;
        } else {
            if (x > 255)
                return ibr__err(err, IBR_EINVAL,
                                IBR__MSG("QC004", "%ld out of range (0..255; -1 unsets)"), x);
            set->high_limit = x < 0 ? 0 : (unsigned)x;
        }
        if ((param == 0 && x == 0) || (param == 1 && x < 0))
            set->set &= ~bit;
        else
            set->set |= bit;
        return 0;
    }
    if (n == 6 && !memcmp(v, "(null)", 6)) {
        set->set &= ~bit;
        return 0;
    }
    const char *item;
    size_t ilen, pos = 0, count = 0;
    if (param == 4) {
        uint8_t map[16] = {0};
        while (next_item(&item, &ilen, v, n, &pos)) {
            long x;
            if (count == 16)
                return ibr__err(err, IBR_EINVAL, IBR__MSG("QC005", "more than 16 VLs"));
            if (parse_num(&x, item, ilen) < 0 || x < 0 || x > 15)
                return ibr__err(err, IBR_EINVAL,
                                IBR__MSG("QC006", "SL %zu: '%.*s' is not a VL 0..15"), count,
                                (int)(ilen > 20 ? 20 : ilen), item);
            map[count++] = (uint8_t)x;
        }
        if (!count)
            return ibr__err(err, IBR_EINVAL, IBR__MSG("QC007", "no VL listed"));
        memcpy(set->sl2vl, map, 16);
    } else {
        ibr_vlarb_entry tab[IBR_VLARB_ENTRIES];
        memset(tab, 0, sizeof tab);
        while (next_item(&item, &ilen, v, n, &pos)) {
            if (count == IBR_VLARB_ENTRIES)
                return ibr__err(err, IBR_EINVAL, IBR__MSG("QC008", "more than %d VL:weight pairs"),
                                IBR_VLARB_ENTRIES);
            const char *colon = memchr(item, ':', ilen);
            long vl, w;
            if (!colon || parse_num(&vl, item, (size_t)(colon - item)) < 0 ||
                parse_num(&w, colon + 1, ilen - (size_t)(colon - item) - 1) < 0)
                return ibr__err(err, IBR_EINVAL,
                                IBR__MSG("QC009", "entry %zu: '%.*s' is not VL:weight"), count,
                                (int)(ilen > 20 ? 20 : ilen), item);
            if (vl < 0 || vl > 14)
                return ibr__err(err, IBR_EINVAL,
                                IBR__MSG("QC010", "entry %zu: VL %ld out of range (0..14)"), count,
                                vl);
            if (w < 0 || w > 255)
                return ibr__err(err, IBR_EINVAL,
                                IBR__MSG("QC011", "entry %zu: weight %ld out of range (0..255)"),
                                count, w);
            tab[count].vl = (uint8_t)vl;
            tab[count].weight = (uint8_t)w;
            count++;
        }
        if (!count)
            return ibr__err(err, IBR_EINVAL, IBR__MSG("QC012", "no VL:weight pair listed"));
        memcpy(param == 2 ? set->vlarb_high : set->vlarb_low, tab, sizeof tab);
    }
    set->set |= bit;
    return 0;
}

/* ibroute's level keys: 1 ibr_qos_levels, 2 ibr_qos_level_weights, 0 none. */
static int level_key(const char *key, size_t len)
{
    if (len == 14 && !memcmp(key, "ibr_qos_levels", 14))
        return 1;
    if (len == 21 && !memcmp(key, "ibr_qos_level_weights", 21))
        return 2;
    return 0;
}

/* Apply a level key's value to lv; a message in err on failure. */
static int apply_level(ibr__qos_lv *lv, int which, const char *v, size_t n, char *err)
{
    if (n == 0)
        return ibr__err(err, IBR_EINVAL, IBR__MSG("QC001", "empty value"));
    if (which == 1) {
        long x;
        if (parse_num(&x, v, n) < 0)
            return ibr__err(err, IBR_EINVAL,
                            IBR__MSG("QC002", "'%.*s' is not a number"), (int)(n > 40 ? 40 : n),
                            v);
        if (x < 1 || x > IBR__QOS_MAX_LEVELS)
            return ibr__err(err, IBR_EINVAL,
                            IBR__MSG("QC013", "%ld out of range (1..%d)"), x, IBR__QOS_MAX_LEVELS);
        lv->levels = (unsigned)x;
        return 0;
    }
    uint8_t w[IBR__QOS_MAX_LEVELS];
    const char *item;
    size_t ilen, pos = 0, count = 0;
    while (next_item(&item, &ilen, v, n, &pos)) {
        long x;
        if (count == IBR__QOS_MAX_LEVELS)
            return ibr__err(err, IBR_EINVAL,
                            IBR__MSG("QC014", "more than %d weights"), IBR__QOS_MAX_LEVELS);
        if (parse_num(&x, item, ilen) < 0 || x < 1 || x > 255)
            return ibr__err(err, IBR_EINVAL,
                            IBR__MSG("QC015", "level %zu: '%.*s' is not a weight 1..255"), count,
                            (int)(ilen > 20 ? 20 : ilen), item);
        w[count++] = (uint8_t)x;
    }
    if (!count)
        return ibr__err(err, IBR_EINVAL, IBR__MSG("QC016", "no weight listed"));
    memcpy(lv->weight, w, count);
    lv->n_weights = (unsigned)count;
    return 0;
}

unsigned ibr__qos_levels(const ibr_qos_config *q)
{
    return q && q->lv.levels ? q->lv.levels : 1;
}

unsigned ibr__qos_level_weight(const ibr_qos_config *q, unsigned l)
{
    return q && l < q->lv.n_weights ? q->lv.weight[l] : 64;
}

int ibr_qos_config_set(ibr_qos_config *q, const char *key, const char *value)
{
    if (!q)
        return IBR_EINVAL;
    if (!key || !value)
        return ibr__err(q->last_error, IBR_EINVAL, IBR__MSG("QC017", "NULL key or value"));
    unsigned fam = 0, param = 0;
    int lk = level_key(key, strlen(key));
    if (!lk && resolve_key(&fam, &param, key, strlen(key)) < 0)
        return ibr__err(q->last_error, IBR_EINVAL,
                        IBR__MSG("QC018",
                                 "'%.64s' is no QoS parameter (qos_[ca_|rtr_|sw0_|swe_]max_vls, "
                                 "high_limit, vlarb_high, vlarb_low or sl2vl; ibr_qos_levels, "
                                 "ibr_qos_level_weights)"),
                        key);
    char why[IBR_ERRMSG_SIZE];
    size_t n = strlen(value);
    while (n && isspace((unsigned char)*value))
        value++, n--;
    while (n && isspace((unsigned char)value[n - 1]))
        n--;
    if (lk) {
        ibr__qos_lv tmp = q->lv;
        if (apply_level(&tmp, lk, value, n, why) < 0)
            return ibr__err(q->last_error, IBR_EINVAL, "%s: %s", key, why);
        q->lv = tmp;
    } else {
        ibr__qos_set tmp = q->fam[fam];
        if (apply(&tmp, param, value, n, why) < 0)
            return ibr__err(q->last_error, IBR_EINVAL, "%s: %s", key, why);
        q->fam[fam] = tmp;
    }
    q->last_error[0] = 0;
    return 0;
}

/* The edit distance between a[0..an) and b (both under 64 bytes long). */
static size_t edit_distance(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b), row[64];
    if (an >= 64 || bn >= 64)
        return (size_t)-1;
    for (size_t j = 0; j <= bn; j++)
        row[j] = j;
    for (size_t i = 1; i <= an; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= bn; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[bn];
}

/* A warning for an opensm.conf key that looks like a QoS key (qos_...,
   ibr_qos...) but is none this library or OpenSM knows, naming the
   closest known one. */
static void warn_unknown_key(ibr_context *ctx, unsigned line, const char *key, size_t k)
{
    if (!((k > 4 && !memcmp(key, "qos_", 4)) || (k > 7 && !memcmp(key, "ibr_qos", 7))))
        return;
    if (k == 15 && !memcmp(key, "qos_policy_file", 15))
        return; /* OpenSM's policy file: not read here */
    char best[40] = "", name[40];
    size_t best_d = (size_t)-1;
    for (unsigned f = 0; f < IBR__QOS_TARGETS; f++)
        for (unsigned i = 0; i < 5; i++) {
            snprintf(name, sizeof name, "%s_%s", ibr__qos_prefix[f], param_name[i]);
            size_t d = edit_distance(key, k, name);
            if (d < best_d) {
                best_d = d;
                memcpy(best, name, sizeof name);
            }
        }
    static const char *const others[] = {"ibr_qos_levels", "ibr_qos_level_weights",
                                         "qos_policy_file"};
    for (unsigned i = 0; i < 3; i++) {
        size_t d = edit_distance(key, k, others[i]);
        if (d < best_d) {
            best_d = d;
            snprintf(best, sizeof best, "%s", others[i]);
        }
    }
    if (best_d <= 4)
        ibr__log(ctx, IBR_LOG_WARN,
                 IBR__MSG("QC019", "QoS configuration line %u: unknown key '%.*s' ignored "
                                   "(did you mean '%s'?)"),
                 line, (int)(k > 64 ? 64 : k), key, best);
    else
        ibr__log(ctx, IBR_LOG_WARN,
                 IBR__MSG("QC020", "QoS configuration line %u: unknown key '%.*s' ignored"), line,
                 (int)(k > 64 ? 64 : k), key);
}

int ibr_qos_config_parse(ibr_qos_config *q, const char *buf, size_t len)
{
    if (!q)
        return IBR_EINVAL;
    if (!buf && len)
        return ibr__err(q->last_error, IBR_EINVAL, "NULL buffer");
    ibr__qos_set *tmp = ibr__mallocarray(q->ctx, IBR__QOS_TARGETS, sizeof *tmp);
    if (!tmp)
        return ibr__err(q->last_error, IBR_ENOMEM, "out of memory");
    memcpy(tmp, q->fam, sizeof q->fam);
    ibr__qos_lv lv = q->lv;
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    int rc = 0;
    while (rc == 0 && ibr__lex_line(&lx)) {
        unsigned line = lx.line;
        /* the line up to a '#' comment, blanks cut off */
        ibr__cur c = lx.c;
        const char *hash = ibr__cur_find(&c, "#");
        if (hash)
            c.e = hash;
        while (c.e > c.p && ibr__is_blank(c.e[-1]))
            c.e--;
        const char *s = c.p;
        size_t n = (size_t)(c.e - c.p);
        size_t k = 0;
        while (k < n && !ibr__is_blank(s[k]) && s[k] != '=')
            k++;
        unsigned fam = 0, param = 0;
        int lk = k ? level_key(s, k) : 0;
        if (k == 0 || (!lk && resolve_key(&fam, &param, s, k) < 0)) {
            /* a blank line, or another opensm.conf key; a qos_* key we
               do not know is a misspelling more often than not */
            if (k)
                warn_unknown_key(q->ctx, line, s, k);
            continue;
        }
        const char *v = s + k;
        size_t vn = n - k;
        while (vn && ibr__is_blank(*v))
            v++, vn--;
        if (vn && *v == '=') {
            v++, vn--;
            while (vn && ibr__is_blank(*v))
                v++, vn--;
        }
        if (vn >= 2 && (*v == '"' || *v == '\'') && v[vn - 1] == *v)
            v++, vn -= 2;
        char why[IBR_ERRMSG_SIZE];
        if (lk ? apply_level(&lv, lk, v, vn, why) < 0 : apply(&tmp[fam], param, v, vn, why) < 0)
            rc = ibr__err(q->last_error, IBR_EPARSE, "line %u: %.*s: %s", line, (int)k, s, why);
    }
    if (rc == 0) {
        memcpy(q->fam, tmp, sizeof q->fam);
        q->lv = lv;
        q->last_error[0] = 0;
    }
    ibr__free(q->ctx, tmp);
    return rc;
}

int ibr_qos_config_is_set(const ibr_qos_config *q, const char *key)
{
    unsigned fam, param;
    int lk = q && key ? level_key(key, strlen(key)) : 0;
    if (lk)
        return lk == 1 ? q->lv.levels != 0 : q->lv.n_weights != 0;
    if (!q || !key || resolve_key(&fam, &param, key, strlen(key)) < 0)
        return 0;
    return (q->fam[fam].set >> param) & 1;
}

int ibr_qos_config_table(ibr_qos_table *out, const ibr_qos_config *q, ibr_qos_target target)
{
    if (!out || (unsigned)target >= IBR__QOS_TARGETS)
        return IBR_EINVAL;
    static const ibr__qos_set none;
    const ibr__qos_set *f = q ? &q->fam[target] : &none, *g = q ? &q->fam[0] : &none;
#define PICK(bit) ((f->set & (bit)) ? f : (g->set & (bit)) ? g : NULL)
    const ibr__qos_set *s;
    out->max_vls = (s = PICK(IBR__QOS_MAX_VLS)) ? s->max_vls : DEFAULT_MAX_VLS;
    out->high_limit = (s = PICK(IBR__QOS_HIGH_LIMIT)) ? s->high_limit : DEFAULT_HIGH_LIMIT;
    if ((s = PICK(IBR__QOS_VLARB_HIGH)))
        memcpy(out->vlarb_high, s->vlarb_high, sizeof out->vlarb_high);
    else
        default_vlarb(out->vlarb_high, 1);
    if ((s = PICK(IBR__QOS_VLARB_LOW)))
        memcpy(out->vlarb_low, s->vlarb_low, sizeof out->vlarb_low);
    else
        default_vlarb(out->vlarb_low, 0);
    memcpy(out->sl2vl, (s = PICK(IBR__QOS_SL2VL)) ? s->sl2vl : default_sl2vl, 16);
#undef PICK
    return 0;
}

static int write_vlarb(ibr_buffer *out, ibr_context *ctx, const ibr_vlarb_entry *e)
{
    unsigned last = 0; /* entries past the last non-zero one are 0:0 */
    for (unsigned i = 0; i < IBR_VLARB_ENTRIES; i++)
        if (e[i].vl || e[i].weight)
            last = i;
    int rc = 0;
    for (unsigned i = 0; i <= last && rc == 0; i++)
        rc = ibr__buf_printf(out, ctx, "%s%u:%u", i ? "," : "", e[i].vl, e[i].weight);
    return rc;
}

int ibr_qos_config_write(ibr_buffer *out, const ibr_qos_config *q)
{
    size_t mark;
    if (!q)
        return IBR_EINVAL;
    int rc = ibr__buf_begin(out, q->ctx, &mark);
    if (rc < 0)
        return rc;
    for (unsigned f = 0; f < IBR__QOS_TARGETS && rc == 0; f++) {
        const ibr__qos_set *s = &q->fam[f];
        const char *p = ibr__qos_prefix[f];
        if (s->set & IBR__QOS_MAX_VLS)
            rc = ibr__buf_printf(out, q->ctx, "%s_max_vls %u\n", p, s->max_vls);
        if (rc == 0 && (s->set & IBR__QOS_HIGH_LIMIT))
            rc = ibr__buf_printf(out, q->ctx, "%s_high_limit %u\n", p, s->high_limit);
        for (unsigned h = 0; h < 2 && rc == 0; h++)
            if (s->set & (h ? IBR__QOS_VLARB_LOW : IBR__QOS_VLARB_HIGH)) {
                rc = ibr__buf_printf(out, q->ctx, "%s_vlarb_%s ", p, h ? "low" : "high");
                if (rc == 0)
                    rc = write_vlarb(out, q->ctx, h ? s->vlarb_low : s->vlarb_high);
                if (rc == 0)
                    rc = ibr__buf_putc(out, q->ctx, '\n');
            }
        if (rc == 0 && (s->set & IBR__QOS_SL2VL)) {
            rc = ibr__buf_printf(out, q->ctx, "%s_sl2vl ", p);
            for (unsigned i = 0; i < 16 && rc == 0; i++)
                rc = ibr__buf_printf(out, q->ctx, "%s%u", i ? "," : "", s->sl2vl[i]);
            if (rc == 0)
                rc = ibr__buf_putc(out, q->ctx, '\n');
        }
    }
    if (rc == 0 && q->lv.levels)
        rc = ibr__buf_printf(out, q->ctx, "ibr_qos_levels %u\n", q->lv.levels);
    if (rc == 0 && q->lv.n_weights) {
        rc = ibr__buf_printf(out, q->ctx, "ibr_qos_level_weights ");
        for (unsigned i = 0; i < q->lv.n_weights && rc == 0; i++)
            rc = ibr__buf_printf(out, q->ctx, "%s%u", i ? "," : "", q->lv.weight[i]);
        if (rc == 0)
            rc = ibr__buf_putc(out, q->ctx, '\n');
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}
