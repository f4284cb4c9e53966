/*
 * Reading LFTs back: opensm-lfts.dump, ibroute and dump_lfts / dump_fts
 * output, as OpenSM's file engine reads them, plus the bounds checks that
 * OpenSM leaves out. One reader (ibr__lfts_read(), formats_int.h) serves
 * ibr_result_parse_lfts() and the file engine (engines/file.c), so the
 * two accept and refuse the same texts.
 *
 * A block starts with a "Unicast lids ... guid 0x<switch GUID> ..." line;
 * entry lines are "0x<LID> <port> ..." with an optional "portguid 0x<GUID>"
 * naming the destination. As in OpenSM, when that port exists in the
 * topology with other LIDs than the file says, the entry is moved to the
 * port's current LID range (base + (LID & (2^LMC - 1))). "Multicast mlids"
 * blocks are skipped; other lines (column titles, "N lids dumped"
 * trailers, dump_lfts warnings) are ignored. A text without a single
 * "Unicast lids" block (an empty file, junk, a topology given where the
 * dump belongs) is an error for a topology that has switches.
 *
 * With rd->fdbs, fdbs dumps read too, told apart by their block headers:
 * OpenSM's opensm.fdbs and ibdiagnet's ibdiagnet2.fdbs start a block with
 * "dump_ucast_routes: Switch 0x<GUID>" (ibdiagnet: with the prefix
 * "osm_ucast_mgr_"), then a "LID : Port : Hops : Optimal" title, then one
 * line per LID: "0x<LID> : <port> : <hops> : <remark>", or "0x<LID> :
 * UNREACHABLE" for no route. Hops and remarks are not part of the table
 * and are not read. ibdiagnet on switches with private LFTs (adaptive
 * routing) marks tables with "PLFT_NUM: <n>" lines, before or after the
 * switch line: only table 0 is the switch's LFT; the entries of the others
 * are checked for syntax and dropped.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <string.h>

#include "core/result_notes.h"
#include "core/messages.h"
#include "formats/lex.h"
#include "formats/lfts_reader.h"
#include "core/result_unicast.h"

typedef struct lreader {
    ibr__lfts_reader *rd;
    uint32_t *first_line; /* per switch: line of its block, 0 = none */
    uint8_t *lft;         /* the table of the current block's switch */
} lreader;

/* Kinds of block. */
enum { BLOCK_NONE, BLOCK_LFTS, BLOCK_FDBS };

static int lerr(lreader *lr, uint32_t line, const char *fmt, ...) IBR_PRINTF(3, 4);

static int lerr(lreader *lr, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(lr->rd->msg, IBR_EPARSE, line, fmt, ap);
    va_end(ap);
    return IBR_EPARSE;
}

/* Hex digits at the cursor (no prefix), at most 16 as the dumps write a
   64-bit field, value at most max; -1 otherwise. */
static int scan_hex(ibr__cur *c, uint64_t max, uint64_t *out)
{
    int n = ibr__cur_num(c, IBR__NUM_HEX, max, out);
    return n > 0 && n <= 16 ? 0 : -1;
}

/* Blank or end of line after a field? */
static bool field_end(const ibr__cur *c)
{
    return ibr__cur_end(c) || ibr__is_blank(*c->p);
}

/* A block header: *cur gets the switch index, or IBR_NONE for a block
   skipped (skip_unknown and a GUID that is not a switch of the topology;
   skip > 0: an fdbs block of a private LFT other than 0; skip < 0: a file
   with private LFTs, where a switch listed before is skipped, not an
   error). */
static int parse_header(lreader *lr, ibr__cur c, uint32_t line, int kind, int skip,
                        uint32_t *cur)
{
    const ibr_topo *t = lr->rd->t;
    const char *mark = kind == BLOCK_FDBS ? " Switch 0x" : " guid 0x";
    const char *g = ibr__cur_find(&c, mark);
    uint64_t guid;
    if (!g)
        return lerr(lr, line, IBR__MSG("LF001", "switch header without \"%s\""), mark);
    c.p = g + strlen(mark);
    if (scan_hex(&c, UINT64_MAX, &guid) < 0 || !(field_end(&c) || *c.p == '(' || *c.p == ':'))
        return lerr(lr, line, IBR__MSG("LF002", "bad switch GUID"));
    uint32_t node;
    *cur = IBR_NONE;
    if (skip > 0)
        return 0;
    if (ibr_topo_find_guid(&node, NULL, t, guid) < 0) {
        if (lr->rd->skip_unknown)
            return 0;
        return lerr(lr, line, IBR__MSG("LF003", "unknown switch GUID 0x%016" PRIx64), guid);
    }
    const ibr__node *n = &t->nodes[node];
    if (n->type != IBR_NODE_SWITCH) {
        if (lr->rd->skip_unknown)
            return 0;
        return lerr(lr, line, IBR__MSG("LF004", "GUID 0x%016" PRIx64 " is a %s, not a switch"),
                    guid, ibr__type_name(n->type));
    }
    if (lr->first_line[n->sw] && skip < 0) {
        /* ibdiagnet with private LFTs may repeat a switch line per table */
        return 0;
    }
    if (lr->first_line[n->sw])
        return lerr(
            lr, line,
            IBR__MSG("LF005", "switch 0x%016" PRIx64 " listed twice (first on line %" PRIu32 ")"),
            n->guid, lr->first_line[n->sw]);
    lr->first_line[n->sw] = line;
    lr->lft = lr->rd->table(lr->rd->arg, n->sw);
    memset(lr->lft, IBR_NO_ROUTE, (size_t)t->max_lid + 1);
    *cur = n->sw;
    return 0;
}

/* The LID and port of an fdbs entry, "0x<LID> : <port> ..." or "0x<LID> :
   UNREACHABLE" (port IBR_NO_ROUTE), the cursor past "0x". */
static int fdbs_entry(lreader *lr, ibr__cur *c, uint32_t line, uint64_t *lid, uint64_t *port)
{
    if (scan_hex(c, 0xFFFF, lid) < 0 || !field_end(c))
        return lerr(lr, line,
                    IBR__MSG("LF006",
                             "bad fdbs entry (expected \"0x<LID> : <port>\" or \"0x<LID> : "
                             "UNREACHABLE\")"));
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_at(c, ':'))
        return lerr(lr, line, IBR__MSG("LF007", "bad fdbs entry: expected \":\" after the LID"));
    c->p++;
    ibr__cur_skip_blanks(c);
    if (ibr__cur_starts(c, "UNREACHABLE")) {
        c->p += 11;
        *port = IBR_NO_ROUTE;
    } else if (ibr__cur_num(c, IBR__NUM_DEC, 255, port) < 0) {
        return lerr(lr, line,
                    IBR__MSG("LF008", "bad port in fdbs entry (expected a number or UNREACHABLE)"));
    }
    if (!field_end(c) && !ibr__cur_at(c, ':'))
        return lerr(lr, line,
                    IBR__MSG("LF008", "bad port in fdbs entry (expected a number or UNREACHABLE)"));
    return 0;
}

/* An entry of the block of switch sw (IBR_NONE: a skipped block, whose
   entries are only checked for syntax), of the kind of block it is in. */
static int parse_entry(lreader *lr, ibr__cur c, uint32_t line, int kind, uint32_t sw)
{
    const ibr_topo *t = lr->rd->t;
    uint64_t lid, port;
    c.p += 2; /* "0x" */
    if (kind == BLOCK_FDBS) {
        int rc = fdbs_entry(lr, &c, line, &lid, &port);
        if (rc < 0)
            return rc;
        c.p = c.e; /* no destination GUID on fdbs lines */
    } else {
        if (scan_hex(&c, 0xFFFF, &lid) < 0 || ibr__cur_end(&c) || !ibr__is_blank(*c.p))
            return lerr(lr, line, IBR__MSG("LF009", "bad LFT entry (expected \"0x<LID> <port>\")"));
        ibr__cur_skip_blanks(&c);
        if (ibr__cur_num(&c, IBR__NUM_DEC, 255, &port) < 0 || !field_end(&c))
            return lerr(lr, line, IBR__MSG("LF010", "bad port in LFT entry"));
    }
    /* destination named by port GUID: follow its current LIDs */
    const char *pg = ibr__cur_find(&c, "portguid 0x");
    uint64_t guid = 0;
    if (pg) {
        ibr__cur q = {pg + 11, c.e};
        /* the GUID ends at a blank, ':' (opensm-lfts.dump) or ')' (dump_lfts) */
        if (scan_hex(&q, UINT64_MAX, &guid) < 0 ||
            !(field_end(&q) || *q.p == ':' || *q.p == ')'))
            return lerr(lr, line, IBR__MSG("LF011", "bad port GUID after \"portguid 0x\""));
    }
    if (sw == IBR_NONE)
        return 0;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    if (port != IBR_NO_ROUTE && port > n->nports)
        return lerr(lr, line,
                    IBR__MSG("LF012", "port %u beyond switch 0x%016" PRIx64 " (it has %u ports)"),
                    (unsigned)port, n->guid, (unsigned)n->nports);
    if (pg) {
        uint32_t gp = ibr__topo_find_port_guid(t, guid);
        if (gp != IBR_NONE && t->ports[gp].lid) {
            const ibr__port *dp = &t->ports[gp];
            uint32_t cnt = 1u << dp->lmc;
            if (lid < dp->lid || lid >= (uint64_t)dp->lid + cnt)
                lid = dp->lid + (lid & (cnt - 1));
        }
    }
    /* fdbs dumps list every LID up to the switch's LinearFDBTop: no route
       to a LID the topology does not have is no entry */
    if (lid > t->max_lid && kind == BLOCK_FDBS && port == IBR_NO_ROUTE)
        return 0;
    if (lid > t->max_lid)
        return lerr(lr, line,
                    IBR__MSG("LF013",
                             "LID %" PRIu64 " beyond the topology (max LID %u): the tables were "
                             "computed for other LIDs; give the topology those LIDs (OpenSM's "
                             "guid2lid file, or the LMC the tables were computed with)"),
                    lid, (unsigned)t->max_lid);
    lr->lft[lid] = (uint8_t)port;
    return 0;
}

/* A text without a single block: say what it holds instead. */
static int no_block(lreader *lr, const char *buf, size_t len, uint32_t lines,
                    const ibr__lex *first)
{
    static const char expected_lfts[] = "expected forwarding tables (opensm-lfts.dump, ibroute or "
                                   "dump_lfts output) with blocks starting \"Unicast lids ... "
                                   "guid 0x<switch GUID> ...\"";
    static const char expected_fdbs[] =
        "expected forwarding tables (opensm-lfts.dump, ibroute or dump_lfts output, or an fdbs "
        "dump: opensm.fdbs, ibdiagnet2.fdbs) with blocks starting \"Unicast lids ... guid "
        "0x<switch GUID> ...\" or \"dump_ucast_routes: Switch 0x<switch GUID>\"";
    const char *expected = lr->rd->fdbs ? expected_fdbs : expected_lfts;
    if (!first)
        return len ? lerr(lr, 0,
                          IBR__MSG("LF018", "the text holds only blank and comment lines: %s"),
                          expected)
                   : lerr(lr, 0, IBR__MSG("LF019", "the text is empty: %s"), expected);
    if (ibr__text_holds(buf, len, "switchguid=") || ibr__text_holds(buf, len, "\"S-") || ibr__text_holds(buf, len, "caguid="))
        return lerr(lr, 0,
                    IBR__MSG("LF016",
                             "no \"Unicast lids\" block in %" PRIu32 " line%s: this looks like a "
                             "topology (ibnetdiscover output), not forwarding tables; %s"),
                    lines, lines == 1 ? "" : "s", expected);
    ibr__span s = {first->c.p, (size_t)(first->c.e - first->c.p)};
    return lerr(lr, 0,
                IBR__MSG("LF017", "no \"Unicast lids\" block in %" PRIu32 " line%s (line %" PRIu32
                                  " reads \"%s\"): %s"),
                lines, lines == 1 ? "" : "s", first->line, IBR__ESC(s), expected);
}

/* "PLFT_NUM: <n>" (ibdiagnet): the private LFT the next entries belong to. */
static int parse_plft(lreader *lr, ibr__cur c, uint32_t line, uint64_t *plft)
{
    c.p += 9;
    ibr__cur_skip_blanks(&c);
    if (ibr__cur_num_field(&c, IBR__NUM_DEC, 255, NULL, plft) < 0)
        return lerr(lr, line,
                    IBR__MSG("LF014", "bad \"PLFT_NUM:\" line (expected a number 0..255)"));
    return 0;
}

/* Which block header, if any, the line is: BLOCK_LFTS, BLOCK_FDBS (only
   when the reader takes fdbs dumps) or BLOCK_NONE. */
static int header_kind(const lreader *lr, const ibr__cur *c)
{
    if (ibr__cur_starts(c, "Unicast lids"))
        return BLOCK_LFTS;
    if (lr->rd->fdbs &&
        (ibr__cur_starts(c, "dump_ucast_routes:") ||
         ibr__cur_starts(c, "osm_ucast_mgr_dump_ucast_routes:")))
        return BLOCK_FDBS;
    return BLOCK_NONE;
}

static int read_lines(lreader *lr, const char *buf, size_t len)
{
    ibr__lex lx, first;
    uint32_t cur = IBR_NONE;
    int in_mcast = 0, block = BLOCK_NONE, blocks = 0, got_first = 0;
    int plft_just_set = 0, plft_seen = 0;
    uint64_t plft = 0; /* fdbs: the private LFT of the entries that follow */
    ibr__lex_init(&lx, buf, len);
    first = lx;
    while (ibr__lex_entry(&lx)) {
        int rc = 0, kind = header_kind(lr, &lx.c), plft_line = 0;
        if (!got_first) {
            first = lx;
            got_first = 1;
        }
        if (kind != BLOCK_NONE) {
            in_mcast = 0;
            block = kind;
            blocks++;
            /* a PLFT_NUM line just before the switch line names its table */
            if (!plft_just_set)
                plft = 0;
            int skip = kind != BLOCK_FDBS ? 0 : plft != 0 ? 1 : plft_seen ? -1 : 0;
            rc = parse_header(lr, lx.c, lx.line, kind, skip, &cur);
        } else if (lr->rd->fdbs && ibr__cur_starts(&lx.c, "PLFT_NUM:")) {
            rc = parse_plft(lr, lx.c, lx.line, &plft);
            plft_line = plft_seen = 1;
        } else if (ibr__cur_starts(&lx.c, "Multicast mlids")) {
            in_mcast = 1;
            block = BLOCK_NONE;
            cur = IBR_NONE;
        } else if (ibr__cur_starts(&lx.c, "0x") || ibr__cur_starts(&lx.c, "0X")) {
            if (in_mcast)
                continue;
            if (block == BLOCK_NONE)
                return lerr(lr, lx.line,
                            IBR__MSG("LF015", "LFT entry outside a \"Unicast lids\" block"));
            rc = parse_entry(lr, lx.c, lx.line, block,
                             block == BLOCK_FDBS && plft != 0 ? IBR_NONE : cur);
        }
        plft_just_set = plft_line;
        if (rc < 0)
            return rc;
    }
    if (!blocks && lr->rd->t->n_sw)
        return no_block(lr, buf, len, lx.line, got_first ? &first : NULL);
    return 0;
}

int ibr__lfts_read(ibr__lfts_reader *rd, const char *buf, size_t len)
{
    const ibr_topo *t = rd->t;
    lreader lr = {rd, NULL, NULL};
    rd->msg[0] = 0;
    lr.first_line = ibr__calloc(t->ctx, t->n_sw ? t->n_sw : 1, sizeof *lr.first_line);
    if (!lr.first_line) {
        strlcpy(rd->msg, "out of memory reading forwarding tables", sizeof rd->msg);
        return IBR_ENOMEM;
    }
    int rc = read_lines(&lr, buf, len);
    ibr__free(t->ctx, lr.first_line);
    return rc;
}

static uint8_t *result_table(void *arg, uint32_t sw)
{
    ibr_result *r = arg;
    return ibr__lft_row(r, sw);
}

int ibr_result_parse_lfts(ibr_result **out, const ibr_topo *t, const char *buf, size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t || (!buf && len))
        return IBR_EINVAL;
    ibr_result *r;
    if (ibr__result_new(&r, t) < 0)
        return IBR_ENOMEM;
    if (ibr__result_alloc_lft(r) < 0) {
        ibr_result_destroy(r);
        return IBR_ENOMEM;
    }
    ibr__lfts_reader rd;
    memset(&rd, 0, sizeof rd);
    rd.t = t;
    rd.fdbs = 1;
    rd.table = result_table;
    rd.arg = r;
    int rc = ibr__lfts_read(&rd, buf, len);
    if (rc == IBR_ENOMEM) {
        ibr_result_destroy(r);
        return IBR_ENOMEM;
    }
    if (rc < 0) {
        /* a failed result: no tables, the message names the line */
        ibr__result_clear_tables(r);
        ibr__result_unicast_drop(r);
        r->status = rc;
        ibr__result_set_engine(r, NULL);
        strlcpy(r->last_error, rd.msg, sizeof r->last_error);
    } else {
        ibr__result_set_engine(r, "file");
    }
    if (ibr__result_add_attempt(r, "file", rc, rc < 0 ? rd.msg : "") < 0) {
        ibr_result_destroy(r);
        return IBR_ENOMEM;
    }
    *out = r;
    return rc;
}
