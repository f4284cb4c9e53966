/* GUID-list files (guidlist.h): one number per line, optionally a second. */
#include <inttypes.h>

#include "core/messages.h"
#include "core/internal.h"
#include "formats/lex.h"

struct ibr_guid_list {
    ibr_context *ctx;
    ibr_guid_list_kind kind;
    size_t n, cap;
    uint64_t *guids;
    ibr_guid_id *ids;
    ibr_guid_port *ports;
    char last_error[IBR_ERRMSG_SIZE];
};

/* A number with C base detection that ends at a blank, '#' or the end of
   the line, as OpenSM reads these files. */
static int number(ibr__cur *c, uint64_t *v)
{
    return ibr__cur_num(c, IBR__NUM_C, UINT64_MAX, v) >= 0 && ibr__cur_token_end(c) ? 0 : -1;
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

/* The token at the cursor for messages: up to 40 bytes, to the next blank. */
static int token_len(const ibr__cur *c)
{
    int n = 0;
    while (c->p + n < c->e && !ibr__is_blank(c->p[n]) && n < 40)
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
    ibr__lex lx;
    int rc = 0;
    ibr__lex_init(&lx, buf, len);
    while (ibr__lex_entry(&lx)) {
        ibr__cur c = lx.c;
        uint64_t guid, val = 0;
        if (number(&c, &guid) < 0) {
            rc = ibr__line_err(l->last_error, IBR_EPARSE, lx.line,
                               IBR__MSG("GU001", "bad GUID '%.*s' (write GUIDs as 0x<hex>)"),
                               token_len(&lx.c), lx.c.p);
            break;
        }
        if (kind != IBR_GUID_LIST_PLAIN) {
            ibr__cur_skip_blanks(&c);
            if (ibr__cur_end(&c) || *c.p == '#') {
                if (kind == IBR_GUID_LIST_PORT) {
                    rc = ibr__line_err(
                        l->last_error, IBR_EPARSE, lx.line,
                        IBR__MSG("GU002", "port number missing after GUID 0x%016" PRIx64), guid);
                    break;
                }
            } else {
                ibr__cur v = c;
                if (number(&c, &val) < 0) {
                    rc =
                        kind == IBR_GUID_LIST_PORT
                            ? ibr__line_err(l->last_error, IBR_EPARSE, lx.line,
                                            IBR__MSG("GU004", "bad port number '%.*s'"),
                                            token_len(&v), v.p)
                            : ibr__line_err(l->last_error, IBR_EPARSE, lx.line,
                                            IBR__MSG("GU005", "bad id '%.*s'"), token_len(&v), v.p);
                    break;
                }
                if (kind == IBR_GUID_LIST_PORT && (val < 1 || val > 254)) {
                    rc = ibr__line_err(l->last_error, IBR_EPARSE, lx.line,
                                       IBR__MSG("GU003", "port %" PRIu64 " out of range 1..254"),
                                       val);
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
