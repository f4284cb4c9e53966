/*
 * Reading SL2VL tables into a result: ibdiagnet's .sl2vl file (and
 * ibr_result_write_sl2vl()'s output, the same text, which ibdmchk reads
 * with -d), one line per (node, in port, out port):
 *
 *   0x<node GUID> <in port> <out port> 0x<vl0><vl1> 0x<vl2><vl3> ... 0x<vl14><vl15>
 *
 * ports in decimal, eight bytes of two hex nibbles, the VL of SL 2k and
 * 2k + 1. Lines of switches set the result's switch maps; lines of CA and
 * router ports (ibdiagnet lists their maps too) are checked and passed
 * over, since a path's VLs are chosen at the switches it crosses. Maps not
 * listed keep what the result had (the identity when it had none).
 *
 * The new tables are built aside and swapped in when the whole text has
 * been read, so a failure leaves the result as it was.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"
#include "formats/lex.h"
#include "ibroute/formats.h"

typedef struct sl2vl_parser {
    const ibr_topo *t;
    uint8_t *tab;        /* the maps being built, in the sl2vl_off layout */
    const uint32_t *off; /* that layout */
    uint32_t line;
    char msg[IBR_ERRMSG_SIZE];
} sl2vl_parser;

static int serr(sl2vl_parser *ps, const char *fmt, ...) IBR_PRINTF(2, 3);

static int serr(sl2vl_parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(ps->msg, IBR_EPARSE, ps->line, fmt, ap);
    va_end(ap);
    return IBR_EPARSE;
}

/* "0x<v><v>": two VLs. */
static int vl_pair(ibr__cur *c, uint8_t *a, uint8_t *b)
{
    ibr__cur_skip_blanks(c);
    if (c->e - c->p < 4 || c->p[0] != '0' || (c->p[1] != 'x' && c->p[1] != 'X'))
        return -1;
    ibr__cur k = {c->p + 2, c->p + 4};
    uint64_t v;
    if (ibr__cur_num(&k, IBR__NUM_HEX, 0xff, &v) != 2)
        return -1;
    c->p += 4;
    if (!ibr__cur_token_end(c))
        return -1;
    *a = (uint8_t)(v >> 4);
    *b = (uint8_t)(v & 15);
    return 0;
}

static int parse_line(sl2vl_parser *ps, ibr__cur c)
{
    const ibr_topo *t = ps->t;
    uint64_t guid, in, out;
    uint8_t map[16];
    if (!ibr__cur_starts(&c, "0x") && !ibr__cur_starts(&c, "0X"))
        return serr(ps, IBR__MSG("SV001", "expected \"0x<node GUID> <in port> <out port> "
                                          "0x<VL><VL> x8\""));
    c.p += 2;
    if (ibr__cur_num_field(&c, IBR__NUM_HEX, UINT64_MAX, NULL, &guid) < 0)
        return serr(ps, IBR__MSG("SV002", "bad node GUID"));
    ibr__cur_skip_blanks(&c);
    if (ibr__cur_num_field(&c, IBR__NUM_DEC, 255, NULL, &in) < 0)
        return serr(ps, IBR__MSG("SV003", "bad in port"));
    ibr__cur_skip_blanks(&c);
    if (ibr__cur_num_field(&c, IBR__NUM_DEC, 255, NULL, &out) < 0)
        return serr(ps, IBR__MSG("SV004", "bad out port"));
    for (unsigned k = 0; k < 16; k += 2)
        if (vl_pair(&c, &map[k], &map[k + 1]) < 0)
            return serr(ps, IBR__MSG("SV005", "bad VLs of SL %u and %u (expected 0x and two hex digits)"),
                        k, k + 1);
    ibr__cur_skip_blanks(&c);
    if (!ibr__cur_end(&c) && !ibr__cur_at(&c, '#'))
        return serr(ps, IBR__MSG("SV006", "text after the eight VL bytes"));
    uint32_t node;
    unsigned port;
    if (ibr_topo_find_guid(&node, &port, t, guid) < 0 || t->nodes[node].guid != guid)
        return serr(ps, IBR__MSG("SV007", "unknown node GUID 0x%016" PRIx64), guid);
    const ibr__node *n = &t->nodes[node];
    if (in > n->nports || out > n->nports)
        return serr(ps, IBR__MSG("SV008", "port %" PRIu64 " beyond the %u ports of 0x%016" PRIx64),
                    in > n->nports ? in : out, n->nports, guid);
    if (n->type != IBR_NODE_SWITCH)
        return 0;
    size_t w = (size_t)n->nports + 1;
    memcpy(ps->tab + ps->off[n->sw] + (in * w + out) * 16, map, 16);
    return 0;
}

/* Run fn on every entry of the buffer (the lexer skips blank lines and
   comments), *line set to the entry's line, until one fails; *lines counts
   the entries read. 0 or fn's error. */
static int each_line(const char *buf, size_t len, int (*fn)(void *, ibr__cur), void *ps,
                     uint32_t *line, uint32_t *lines)
{
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    int rc = 0;
    while (rc == 0 && ibr__lex_entry(&lx)) {
        *line = lx.line;
        rc = fn(ps, lx.c);
        ++*lines;
    }
    return rc;
}

static int sl2vl_entry(void *ps, ibr__cur c)
{
    return parse_line(ps, c);
}

/* The arguments of both readers: a routed result and a buffer (NULL only
   when empty). 0, or IBR_EINVAL with r's message set (when r is given). */
static int check_args(ibr_result *r, const char *buf, size_t len, const char *no_tables)
{
    if (!r)
        return IBR_EINVAL;
    if (!r->lft || r->status != 0) {
        strlcpy(r->last_error, no_tables, sizeof r->last_error);
        return IBR_EINVAL;
    }
    if (!buf && len) {
        snprintf(r->last_error, sizeof r->last_error, "NULL buffer of %zu bytes", len);
        return IBR_EINVAL;
    }
    return 0;
}

int ibr_result_parse_sl2vl(ibr_result *r, const char *buf, size_t len)
{
    int rc = check_args(r, buf, len, "a failed result has no tables to add SL2VL maps to");
    if (rc < 0)
        return rc;
    const ibr_topo *t = r->topo;
    ibr_context *ctx = r->ctx;
    sl2vl_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.t = t;
    size_t total = 0;
    uint32_t *off = ibr__sl2vl_layout(ctx, t, &total);
    uint8_t *tab = off ? ibr__malloc(ctx, total ? total : 1) : NULL;
    if (!tab) {
        ibr__free(ctx, off);
        return IBR_ENOMEM;
    }
    if (r->sl2vl) {
        memcpy(tab, r->sl2vl, total); /* the same layout: ibr__sl2vl_layout() */
    } else {
        for (size_t i = 0; i < total; i++)
            tab[i] = (uint8_t)(i & 15);
    }
    ps.tab = tab;
    ps.off = off;
    uint32_t lines = 0;
    rc = each_line(buf, len, sl2vl_entry, &ps, &ps.line, &lines);
    if (rc == 0 && lines == 0) {
        ps.line = 0;
        rc = serr(&ps, IBR__MSG("SV009", "no SL2VL line (\"0x<node GUID> <in> <out> 0x<VL><VL> "
                                         "x8\"): not an ibdiagnet .sl2vl file"));
    }
    if (rc < 0) {
        ibr__free(ctx, tab);
        ibr__free(ctx, off);
        strlcpy(r->last_error, ps.msg, sizeof r->last_error);
        return rc;
    }
    ibr__result_replace_sl2vl(r, tab, off);
    return 0;
}

/* ------------------------------------------------------------------ */
/* path SLs                                                            */

/*
 * The path-SL file ibdmchk reads with -c (ibr_result_write_path_sl()
 * writes it): "0x<source node GUID> <destination LID> <SL>", LID and SL
 * decimal. As ibdmchk reads it, a line is keyed by node: it sets the SL
 * from every port of that node (a CA's ports share their SLs).
 */
typedef struct psl_parser {
    const ibr_topo *t;
    uint8_t *sl; /* per source slot, lft_size SLs */
    size_t lft_size;
    uint32_t line;
    char msg[IBR_ERRMSG_SIZE];
} psl_parser;

static int perr(psl_parser *ps, const char *fmt, ...) IBR_PRINTF(2, 3);

static int perr(psl_parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(ps->msg, IBR_EPARSE, ps->line, fmt, ap);
    va_end(ap);
    return IBR_EPARSE;
}

static int psl_line(psl_parser *ps, ibr__cur c)
{
    const ibr_topo *t = ps->t;
    uint64_t guid, dlid, sl;
    if (!ibr__cur_starts(&c, "0x") && !ibr__cur_starts(&c, "0X"))
        return perr(ps, IBR__MSG("PS001", "expected \"0x<source node GUID> <LID> <SL>\""));
    c.p += 2;
    if (ibr__cur_num_field(&c, IBR__NUM_HEX, UINT64_MAX, NULL, &guid) < 0)
        return perr(ps, IBR__MSG("PS002", "bad source node GUID"));
    ibr__cur_skip_blanks(&c);
    if (ibr__cur_num_field(&c, IBR__NUM_DEC, 0xffff, NULL, &dlid) < 0)
        return perr(ps, IBR__MSG("PS003", "bad destination LID"));
    ibr__cur_skip_blanks(&c);
    if (ibr__cur_num_field(&c, IBR__NUM_DEC, 15, NULL, &sl) < 0)
        return perr(ps, IBR__MSG("PS004", "bad SL (0..15)"));
    ibr__cur_skip_blanks(&c);
    if (!ibr__cur_end(&c) && !ibr__cur_at(&c, '#'))
        return perr(ps, IBR__MSG("PS005", "text after the SL"));
    uint32_t node;
    if (ibr_topo_find_guid(&node, NULL, t, guid) < 0 || t->nodes[node].guid != guid)
        return perr(ps, IBR__MSG("PS006", "unknown node GUID 0x%016" PRIx64), guid);
    if (dlid == 0 || dlid > t->max_lid)
        return perr(ps, IBR__MSG("PS007", "LID %" PRIu64 " outside the topology's 1..%u"), dlid,
                    (unsigned)t->max_lid);
    const ibr__node *n = &t->nodes[node];
    unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1, p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
    for (unsigned p = p0; p <= p1; p++) {
        uint32_t slot = ibr__src_slot(t, t->ports[n->port_off + p].lid);
        if (slot != IBR_NONE)
            ps->sl[(size_t)slot * ps->lft_size + dlid] = (uint8_t)sl;
    }
    return 0;
}

static int psl_entry(void *ps, ibr__cur c)
{
    return psl_line(ps, c);
}

int ibr_result_parse_path_sl(ibr_result *r, const char *buf, size_t len)
{
    int rc = check_args(r, buf, len, "a failed result has no paths to give SLs to");
    if (rc < 0)
        return rc;
    const ibr_topo *t = r->topo;
    psl_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.t = t;
    ps.lft_size = r->lft_size;
    size_t slots = ibr__n_src_slots(t);
    ps.sl = ibr__mallocarray(r->ctx, slots ? slots : 1, r->lft_size);
    if (!ps.sl)
        return IBR_ENOMEM;
    /* start from the SLs the result has */
    for (size_t s = 0; s < slots; s++)
        for (size_t d = 0; d < r->lft_size; d++)
            ps.sl[s * r->lft_size + d] =
                !r->sl                          ? 0
                : r->sl_mode == IBR_SL_PER_DEST ? r->sl[d]
                                                : r->sl[s * r->lft_size + d];
    uint32_t lines = 0;
    rc = each_line(buf, len, psl_entry, &ps, &ps.line, &lines);
    if (rc == 0 && lines == 0) {
        ps.line = 0;
        rc = perr(&ps, IBR__MSG("PS008", "no path-SL line (\"0x<source node GUID> <LID> <SL>\"): "
                                         "not a path-SL file"));
    }
    if (rc < 0) {
        ibr__free(r->ctx, ps.sl);
        strlcpy(r->last_error, ps.msg, sizeof r->last_error);
        return rc;
    }
    ibr__free(r->ctx, r->sl);
    r->sl = ps.sl;
    r->sl_mode = IBR_SL_PER_PAIR;
    return 0;
}
