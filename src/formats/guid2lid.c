/*
 * OpenSM's guid2lid cache: one entry per port that has LIDs,
 * "0x<port GUID> 0x<min LID> 0x<max LID>", each followed by an empty line
 * (OpenSM's database files separate entries with blank lines; a value may
 * otherwise continue on the next line).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"
#include "core/messages.h"
#include "core/internal.h"
#include "formats/lex.h"

/* ------------------------------------------------------------------ */
/* writer                                                              */

static int put_entry(ibr_buffer *out, ibr_context *ctx, const ibr__port *p)
{
    unsigned max = (unsigned)p->lid + (1u << p->lmc) - 1;
    return ibr__buf_printf(out, ctx, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", p->guid,
                           (unsigned)p->lid, max);
}

/* Entries in node index order, a switch's port 0 or a CA's/router's ports
   in port order. (OpenSM writes them in its hash table's order, which no
   reader depends on.) */
int ibr_topo_write_guid2lid(ibr_buffer *out, const ibr_topo *t)
{
    size_t mark;
    if (!t)
        return IBR_EINVAL;
    int rc = ibr__buf_begin(out, t->ctx, &mark);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < t->n_nodes && rc == 0; i++) {
        const ibr__node *n = &t->nodes[i];
        unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
        unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
        for (unsigned p = p0; p <= p1 && rc == 0; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            if (pt->lid)
                rc = put_entry(out, t->ctx, pt);
        }
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

/* ------------------------------------------------------------------ */
/* parser                                                              */

typedef struct entry {
    uint32_t node;
    uint32_t gport; /* global port index */
    uint32_t line;
    uint16_t base;
    uint8_t lmc;
    uint8_t port;
    uint16_t old_lid;
    uint8_t old_lmc;
} entry;

typedef struct g2l {
    ibr_fabric *f;
    ibr_context *ctx;
    entry *e;
    size_t n, cap;
    uint32_t *port_node; /* fabric global port index -> node */
    uint32_t *owner;     /* LID -> entry index + 1 (listed) or port + 1 | high bit */
    char msg[IBR_ERRMSG_SIZE];
} g2l;

static int gerr(g2l *g, int code, uint32_t line, const char *fmt, ...) IBR_PRINTF(4, 5);

static int gerr(g2l *g, int code, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(g->msg, code, line, fmt, ap);
    va_end(ap);
    return code;
}

/* A number as OpenSM reads these files (strtoull(s, NULL, 0)), ending at
   a blank, '#' or the end of the line; blanks after it skipped. */
static int scan_num(ibr__cur *c, uint64_t *out)
{
    if (ibr__cur_num(c, IBR__NUM_C, UINT64_MAX, out) < 0 || !ibr__cur_token_end(c))
        return -1;
    ibr__cur_skip_blanks(c);
    return 0;
}

static int read_lines(g2l *g, const char *buf, size_t len)
{
    ibr__lex lx;
    ibr_fabric *f = g->f;
    ibr__lex_init(&lx, buf, len);
    while (ibr__lex_entry(&lx)) {
        ibr__cur c = lx.c;
        uint32_t line = lx.line;
        uint64_t guid, lo, hi;
        if (scan_num(&c, &guid) < 0)
            return gerr(g, IBR_EPARSE, line, IBR__MSG("GL001", "bad port GUID"));
        if (scan_num(&c, &lo) < 0)
            return gerr(g, IBR_EPARSE, line, IBR__MSG("GL002", "bad min LID"));
        if (scan_num(&c, &hi) < 0)
            return gerr(g, IBR_EPARSE, line, IBR__MSG("GL003", "bad max LID"));
        if (!ibr__cur_end(&c) && *c.p != '#')
            return gerr(g, IBR_EPARSE, line,
                        IBR__MSG("GL004", "unexpected text after the max LID"));
        if (lo < 1 || hi > IBR_MAX_UNICAST_LID || lo > hi)
            return gerr(g, IBR_EPARSE, line,
                        IBR__MSG("GL005", "bad LID range 0x%04" PRIx64 "-0x%04" PRIx64
                                          " (must be within 1..0x%X)"),
                        lo, hi, IBR_MAX_UNICAST_LID);
        uint64_t cnt = hi - lo + 1;
        unsigned lmc = 0;
        while ((1u << lmc) < cnt && lmc < 8)
            lmc++;
        if ((1u << lmc) != cnt || lmc > 7 || (lo & (cnt - 1)))
            return gerr(g, IBR_EPARSE, line,
                        IBR__MSG("GL006",
                                 "misaligned LID range 0x%04" PRIx64 "-0x%04" PRIx64
                                 " (must be 2^LMC LIDs starting at a multiple of 2^LMC, LMC <= 7)"),
                        lo, hi);
        uint32_t gp = guid ? ibr__guidmap_get(&f->port_guids, guid) : IBR_NONE;
        if (gp == IBR_NONE)
            return gerr(g, IBR_EPARSE, line, IBR__MSG("GL007", "unknown port GUID 0x%016" PRIx64),
                        guid);
        if (ibr__grow(g->ctx, (void **)&g->e, &g->cap, g->n + 1, sizeof *g->e) < 0)
            return gerr(g, IBR_ENOMEM, 0, "out of memory reading the guid2lid file");
        entry *e = &g->e[g->n++];
        e->gport = gp;
        e->node = g->port_node[gp];
        e->port = (uint8_t)(gp - f->nodes[e->node].port_off);
        e->line = line;
        e->base = (uint16_t)lo;
        e->lmc = (uint8_t)lmc;
        e->old_lid = f->ports[gp].lid;
        e->old_lmc = f->ports[gp].lmc;
    }
    return 0;
}

/* Check duplicates and LID conflicts. owner[lid]: 0 free, entry index + 1
   for a listed port, or 0x80000000 | (global port + 1) for a port that
   keeps its LIDs. */
static int check_conflicts(g2l *g)
{
    ibr_fabric *f = g->f;
    uint32_t *gp_entry = ibr__mallocarray(g->ctx, f->n_ports ? f->n_ports : 1, sizeof *gp_entry);
    g->owner = ibr__calloc(g->ctx, IBR_MAX_UNICAST_LID + 1, sizeof *g->owner);
    if (!gp_entry || !g->owner) {
        ibr__free(g->ctx, gp_entry);
        return gerr(g, IBR_ENOMEM, 0, "out of memory reading the guid2lid file");
    }
    for (size_t i = 0; i < f->n_ports; i++)
        gp_entry[i] = IBR_NONE;
    int rc = 0;
    for (size_t i = 0; i < g->n && rc == 0; i++) {
        uint32_t o = gp_entry[g->e[i].gport];
        if (o != IBR_NONE)
            rc = gerr(g, IBR_EPARSE, g->e[i].line,
                      IBR__MSG("GL008", "port GUID 0x%016" PRIx64
                                        " listed twice (first on line %" PRIu32 ")"),
                      f->ports[g->e[i].gport].guid, g->e[o].line);
        gp_entry[g->e[i].gport] = (uint32_t)i;
    }
    /* ports that are not listed keep their LIDs */
    for (size_t gp = 0; gp < f->n_ports && rc == 0; gp++) {
        const ibr__port *pt = &f->ports[gp];
        if (!pt->lid || gp_entry[gp] != IBR_NONE)
            continue;
        for (unsigned l = pt->lid; l < pt->lid + (1u << pt->lmc) && l <= IBR_MAX_UNICAST_LID; l++)
            g->owner[l] = 0x80000000u | (uint32_t)(gp + 1);
    }
    for (size_t i = 0; i < g->n && rc == 0; i++) {
        const entry *e = &g->e[i];
        for (unsigned l = e->base; l < e->base + (1u << e->lmc); l++) {
            uint32_t o = g->owner[l];
            if (!o) {
                g->owner[l] = (uint32_t)i + 1;
                continue;
            }
            uint32_t ogp = (o & 0x80000000u) ? (o & 0x7fffffffu) - 1 : g->e[o - 1].gport;
            uint32_t on = g->port_node[ogp];
            rc = gerr(g, IBR_EEXIST, e->line,
                      IBR__MSG("GL009", "LID %u of port GUID 0x%016" PRIx64
                                        " already belongs to %s 0x%016" PRIx64 " port %u%s"),
                      l, f->ports[e->gport].guid, ibr__type_name(f->nodes[on].type),
                      f->nodes[on].guid, (unsigned)(ogp - f->nodes[on].port_off),
                      (o & 0x80000000u) ? "" : " (listed earlier)");
            break;
        }
    }
    ibr__free(g->ctx, gp_entry);
    return rc;
}

/* Apply the entries: clear every listed port, then set the new LIDs; on a
   failure put the old LIDs back. */
static int apply(g2l *g)
{
    ibr_fabric *f = g->f;
    int rc = 0;
    size_t i = 0;
    for (size_t k = 0; k < g->n && rc == 0; k++)
        rc = ibr_fabric_set_lid(f, g->e[k].node, g->e[k].port, 0, 0);
    for (; i < g->n && rc == 0; i++)
        rc = ibr_fabric_set_lid(f, g->e[i].node, g->e[i].port, g->e[i].base, g->e[i].lmc);
    if (rc == 0)
        return 0;
    int code = rc == IBR_ENOMEM ? IBR_ENOMEM : IBR_EINTERNAL;
    gerr(g, code, i ? g->e[i - 1].line : 0, "%s", ibr_fabric_last_error(f));
    for (size_t k = 0; k < g->n; k++)
        ibr_fabric_set_lid(f, g->e[k].node, g->e[k].port, 0, 0);
    for (size_t k = 0; k < g->n; k++)
        if (g->e[k].old_lid)
            ibr_fabric_set_lid(f, g->e[k].node, g->e[k].port, g->e[k].old_lid, g->e[k].old_lmc);
    return code;
}

int ibr_fabric_parse_guid2lid(ibr_fabric *f, const char *buf, size_t len)
{
    if (!f)
        return IBR_EINVAL;
    if (!buf && len)
        return ibr__fabric_err(f, IBR_EINVAL, "NULL buffer of %zu bytes", len);
    g2l g;
    memset(&g, 0, sizeof g);
    g.f = f;
    g.ctx = ibr__ctx(f->ctx);
    int rc = 0;
    g.port_node = ibr__mallocarray(g.ctx, f->n_ports ? f->n_ports : 1, sizeof *g.port_node);
    if (!g.port_node) {
        rc = gerr(&g, IBR_ENOMEM, 0, "out of memory reading the guid2lid file");
    } else {
        for (size_t i = 0; i < f->n_nodes; i++)
            for (unsigned p = 0; p <= f->nodes[i].nports; p++)
                g.port_node[f->nodes[i].port_off + p] = (uint32_t)i;
        rc = read_lines(&g, buf, len);
    }
    if (rc == 0)
        rc = check_conflicts(&g);
    if (rc == 0)
        rc = apply(&g);
    ibr__free(g.ctx, g.e);
    ibr__free(g.ctx, g.port_node);
    ibr__free(g.ctx, g.owner);
    if (rc < 0)
        return ibr__fabric_err(f, rc, "%s", g.msg);
    f->last_error[0] = 0;
    return 0;
}
