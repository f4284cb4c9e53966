/* GUID-list files (guidlist.h): one number per line, optionally a second. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

struct ibr_guid_list {
    ibr_context *ctx;
    ibr_guid_list_kind kind;
    size_t n, cap;
    uint64_t *guids;
    ibr_guid_id *ids;
    ibr_guid_port *ports;
    char last_error[IBR_ERRMSG_SIZE];
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse an unsigned number with C base detection from [p, lim); *end past
   it. Returns 0, or -1 when there is no valid number or it overflows. */
static int number(const char *p, const char *lim, uint64_t *v, const char **end)
{
    unsigned base = 10;
    const char *q = p;
    if (q >= lim || !isdigit((unsigned char)*q))
        return -1;
    if (*q == '0' && q + 1 < lim && (q[1] == 'x' || q[1] == 'X')) {
        base = 16;
        q += 2;
        if (q >= lim || !isxdigit((unsigned char)*q))
            return -1;
    } else if (*q == '0') {
        base = 8;
    }
    uint64_t x = 0;
    for (; q < lim; q++) {
        unsigned d;
        if (*q >= '0' && *q <= '9')
            d = (unsigned)(*q - '0');
        else if (base == 16 && isxdigit((unsigned char)*q))
            d = (unsigned)(tolower((unsigned char)*q) - 'a' + 10);
        else
            break;
        if (d >= base)
            return -1; /* 8 or 9 in an octal number */
        if (x > (UINT64_MAX - d) / base)
            return -1;
        x = x * base + d;
    }
    *v = x;
    *end = q;
    return 0;
}

static int ends_token(const char *p, const char *lim)
{
    return p >= lim || is_blank(*p) || *p == '#';
}

static int push(ibr_guid_list *l, uint64_t guid, uint64_t val)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        uint64_t *g = ibr__reallocarray(l->ctx, l->guids, cap, sizeof *g);
        if (!g)
            return IBR_ENOMEM;
        l->guids = g;
        if (l->kind == IBR_GUID_LIST_ID) {
            ibr_guid_id *ids = ibr__reallocarray(l->ctx, l->ids, cap, sizeof *ids);
            if (!ids)
                return IBR_ENOMEM;
            l->ids = ids;
        } else if (l->kind == IBR_GUID_LIST_PORT) {
            ibr_guid_port *ports = ibr__reallocarray(l->ctx, l->ports, cap, sizeof *ports);
            if (!ports)
                return IBR_ENOMEM;
            l->ports = ports;
        }
        l->cap = cap;
    }
    l->guids[l->n] = guid;
    if (l->kind == IBR_GUID_LIST_ID)
        l->ids[l->n] = (ibr_guid_id){guid, val};
    else if (l->kind == IBR_GUID_LIST_PORT)
        l->ports[l->n] = (ibr_guid_port){guid, (unsigned)val};
    l->n++;
    return 0;
}

static void clear(ibr_guid_list *l)
{
    ibr__free(l->ctx, l->guids);
    ibr__free(l->ctx, l->ids);
    ibr__free(l->ctx, l->ports);
    l->guids = NULL;
    l->ids = NULL;
    l->ports = NULL;
    l->n = l->cap = 0;
}

/* The token at p for messages: up to 40 bytes, to the next blank. */
static int token_len(const char *p, const char *lim)
{
    int n = 0;
    while (p + n < lim && !is_blank(p[n]) && n < 40)
        n++;
    return n;
}

int ibr_guid_list_parse(ibr_guid_list **out, ibr_context *ctx, ibr_guid_list_kind kind,
                        const char *buf, size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if ((!buf && len) || (kind != IBR_GUID_LIST_PLAIN && kind != IBR_GUID_LIST_ID &&
                          kind != IBR_GUID_LIST_PORT))
        return IBR_EINVAL;
    ctx = ibr__ctx(ctx);
    ibr_guid_list *l = ibr__calloc(ctx, 1, sizeof *l);
    if (!l)
        return IBR_ENOMEM;
    l->ctx = ctx;
    l->kind = kind;
    const char *p = buf, *end = buf ? buf + len : NULL;
    unsigned line = 0;
    int rc = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        line++;
        const char *q = p;
        p = eol + 1;
        while (q < eol && is_blank(*q))
            q++;
        if (q >= eol || *q == '#')
            continue;
        uint64_t guid, val = 0;
        const char *after;
        if (number(q, eol, &guid, &after) < 0 || !ends_token(after, eol)) {
            rc = ibr__err(l->last_error, IBR_EPARSE,
                          "line %u: bad GUID '%.*s' (write GUIDs as 0x<hex>)", line,
                          token_len(q, eol), q);
            break;
        }
        if (kind != IBR_GUID_LIST_PLAIN) {
            const char *v = after;
            while (v < eol && is_blank(*v))
                v++;
            if (v >= eol || *v == '#') {
                if (kind == IBR_GUID_LIST_PORT) {
                    rc = ibr__err(l->last_error, IBR_EPARSE,
                                  "line %u: port number missing after GUID 0x%016" PRIx64, line,
                                  guid);
                    break;
                }
            } else {
                const char *vend;
                if (number(v, eol, &val, &vend) < 0 || !ends_token(vend, eol)) {
                    rc = ibr__err(l->last_error, IBR_EPARSE, "line %u: bad %s '%.*s'", line,
                                  kind == IBR_GUID_LIST_PORT ? "port number" : "id",
                                  token_len(v, eol), v);
                    break;
                }
                if (kind == IBR_GUID_LIST_PORT && (val < 1 || val > 254)) {
                    rc = ibr__err(l->last_error, IBR_EPARSE,
                                  "line %u: port %" PRIu64 " out of range 1..254", line, val);
                    break;
                }
            }
        }
        if ((rc = push(l, guid, val)) < 0)
            break;
    }
    if (rc == IBR_ENOMEM) {
        clear(l);
        ibr__free(ctx, l);
        return IBR_ENOMEM;
    }
    if (rc < 0)
        clear(l);
    *out = l;
    return rc;
}

void ibr_guid_list_destroy(ibr_guid_list *l)
{
    if (!l)
        return;
    clear(l);
    ibr__free(l->ctx, l);
}

const char *ibr_guid_list_last_error(const ibr_guid_list *l)
{
    return l ? l->last_error : "";
}

size_t ibr_guid_list_count(const ibr_guid_list *l)
{
    return l ? l->n : 0;
}

const uint64_t *ibr_guid_list_guids(const ibr_guid_list *l)
{
    return l && l->n ? l->guids : NULL;
}

const ibr_guid_id *ibr_guid_list_ids(const ibr_guid_list *l)
{
    return l && l->n ? l->ids : NULL;
}

const ibr_guid_port *ibr_guid_list_ports(const ibr_guid_list *l)
{
    return l && l->n ? l->ports : NULL;
}
