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
#include "core/internal.h"
#include "formats/lex.h"
#include "formats/lfts_reader.h"
#include "core/result_unicast.h"

/* Kinds of block. */
enum { BLOCK_NONE, BLOCK_LFTS, BLOCK_FDBS };

/* The reading so far, kept between pieces of the text. */
typedef struct ibr__lfts_state {
    ibr__lfts_reader *rd;
    uint32_t *first_line; /* per switch: line of its block, 0 = none */
    uint8_t *lft;         /* the table of the current block's switch */
    uint32_t cur;         /* the current block's switch, IBR_NONE if skipped */
    int block;            /* the kind of the current block */
    int in_mcast;         /* inside a "Multicast mlids" block */
    uint32_t blocks;      /* block headers seen */
    uint64_t plft;        /* fdbs: the private LFT of the entries that follow */
    int plft_just_set;    /* the line before was "PLFT_NUM:" */
    int plft_seen;        /* the text has private LFTs */
    uint32_t lines;       /* lines read */
    uint64_t bytes;       /* bytes read */
    /* for the message of a text without a block: its first entry line,
       and whether it looks like a topology */
    uint32_t first_no;
    char first_text[96];
    int topo_hint;
} lreader;

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
static int no_block(lreader *lr)
{
    static const char expected_lfts[] = "expected forwarding tables (opensm-lfts.dump, ibroute or "
                                   "dump_lfts output) with blocks starting \"Unicast lids ... "
                                   "guid 0x<switch GUID> ...\"";
    static const char expected_fdbs[] =
        "expected forwarding tables (opensm-lfts.dump, ibroute or dump_lfts output, or an fdbs "
        "dump: opensm.fdbs, ibdiagnet2.fdbs) with blocks starting \"Unicast lids ... guid "
        "0x<switch GUID> ...\" or \"dump_ucast_routes: Switch 0x<switch GUID>\"";
    const char *expected = lr->rd->fdbs ? expected_fdbs : expected_lfts;
    uint32_t lines = lr->lines;
    if (!lr->first_no)
        return lr->bytes ? lerr(lr, 0,
                                IBR__MSG("LF018", "the text holds only blank and comment lines: %s"),
                                expected)
                         : lerr(lr, 0, IBR__MSG("LF019", "the text is empty: %s"), expected);
    if (lr->topo_hint)
        return lerr(lr, 0,
                    IBR__MSG("LF016",
                             "no \"Unicast lids\" block in %" PRIu32 " line%s: this looks like a "
                             "topology (ibnetdiscover output), not forwarding tables; %s"),
                    lines, lines == 1 ? "" : "s", expected);
    return lerr(lr, 0,
                IBR__MSG("LF017", "no \"Unicast lids\" block in %" PRIu32 " line%s (line %" PRIu32
                                  " reads \"%s\"): %s"),
                lines, lines == 1 ? "" : "s", lr->first_no, lr->first_text, expected);
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

/* One piece of whole lines. */
static int read_lines(lreader *lr, const char *buf, size_t len)
{
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    lx.line = lr->lines;
    lr->bytes += len;
    int rc = 0;
    while (rc == 0 && ibr__lex_entry(&lx)) {
        int kind = header_kind(lr, &lx.c), plft_line = 0;
        if (!lr->first_no) {
            lr->first_no = lx.line;
            ibr__esc(lr->first_text, sizeof lr->first_text, lx.c.p, (size_t)(lx.c.e - lx.c.p));
        }
        if (kind != BLOCK_NONE) {
            lr->in_mcast = 0;
            lr->block = kind;
            lr->blocks++;
            /* a PLFT_NUM line just before the switch line names its table */
            if (!lr->plft_just_set)
                lr->plft = 0;
            int skip = kind != BLOCK_FDBS ? 0 : lr->plft != 0 ? 1 : lr->plft_seen ? -1 : 0;
            rc = parse_header(lr, lx.c, lx.line, kind, skip, &lr->cur);
        } else if (lr->rd->fdbs && ibr__cur_starts(&lx.c, "PLFT_NUM:")) {
            rc = parse_plft(lr, lx.c, lx.line, &lr->plft);
            plft_line = lr->plft_seen = 1;
        } else if (ibr__cur_starts(&lx.c, "Multicast mlids")) {
            lr->in_mcast = 1;
            lr->block = BLOCK_NONE;
            lr->cur = IBR_NONE;
        } else if (ibr__cur_starts(&lx.c, "0x") || ibr__cur_starts(&lx.c, "0X")) {
            if (lr->in_mcast)
                continue;
            if (lr->block == BLOCK_NONE)
                return lerr(lr, lx.line,
                            IBR__MSG("LF015", "LFT entry outside a \"Unicast lids\" block"));
            rc = parse_entry(lr, lx.c, lx.line, lr->block,
                             lr->block == BLOCK_FDBS && lr->plft != 0 ? IBR_NONE : lr->cur);
        }
        lr->plft_just_set = plft_line;
    }
    lr->lines = lx.line;
    if (rc == 0 && !lr->blocks && !lr->topo_hint)
        lr->topo_hint = ibr__text_holds(buf, len, "switchguid=") ||
                        ibr__text_holds(buf, len, "\"S-") || ibr__text_holds(buf, len, "caguid=");
    return rc;
}

int ibr__lfts_begin(ibr__lfts_reader *rd)
{
    const ibr_topo *t = rd->t;
    rd->msg[0] = 0;
    lreader *lr = ibr__calloc(t->ctx, 1, sizeof *lr);
    uint32_t *first = ibr__calloc(t->ctx, t->n_sw ? t->n_sw : 1, sizeof *first);
    if (!lr || !first) {
        ibr__free(t->ctx, lr);
        ibr__free(t->ctx, first);
        strlcpy(rd->msg, "out of memory reading forwarding tables", sizeof rd->msg);
        return IBR_ENOMEM;
    }
    lr->rd = rd;
    lr->first_line = first;
    lr->cur = IBR_NONE;
    lr->block = BLOCK_NONE;
    rd->st = lr;
    return 0;
}

int ibr__lfts_lines(ibr__lfts_reader *rd, const char *buf, size_t len)
{
    return read_lines(rd->st, buf, len);
}

int ibr__lfts_end(ibr__lfts_reader *rd, int finish)
{
    lreader *lr = rd->st;
    int rc = 0;
    if (!lr)
        return 0;
    if (finish && !lr->blocks && rd->t->n_sw)
        rc = no_block(lr);
    ibr__free(rd->t->ctx, lr->first_line);
    ibr__free(rd->t->ctx, lr);
    rd->st = NULL;
    return rc;
}

int ibr__lfts_read(ibr__lfts_reader *rd, const char *buf, size_t len)
{
    int rc = ibr__lfts_begin(rd);
    if (rc < 0)
        return rc;
    rc = ibr__lfts_lines(rd, buf, len);
    int end = ibr__lfts_end(rd, rc == 0);
    return rc < 0 ? rc : end;
}

static uint8_t *result_table(void *arg, uint32_t sw)
{
    ibr_result *r = arg;
    return ibr__lft_row(r, sw);
}

/* A dump read piece by piece: the result filled as the blocks come, the
   line a piece left unfinished, and the first failure. */
struct ibr_lfts_stream {
    ibr_result *r;
    ibr__lfts_reader rd;
    char *tail; /* the start of a line the last piece did not end */
    size_t ntail, cap;
    int rc; /* the first failure, returned again by every later call */
    int spent; /* finished: only destroy may follow */
};

int ibr_lfts_stream_new(ibr_lfts_stream **out, const ibr_topo *t)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t)
        return IBR_EINVAL;
    ibr_lfts_stream *s = ibr__calloc(t->ctx, 1, sizeof *s);
    if (!s)
        return IBR_ENOMEM;
    if (ibr__result_new(&s->r, t) < 0 || ibr__result_alloc_lft(s->r) < 0) {
        ibr_result_destroy(s->r);
        ibr__free(t->ctx, s);
        return IBR_ENOMEM;
    }
    s->rd.t = t;
    s->rd.fdbs = 1;
    s->rd.table = result_table;
    s->rd.arg = s->r;
    if (ibr__lfts_begin(&s->rd) < 0) {
        ibr_result_destroy(s->r);
        ibr__free(t->ctx, s);
        return IBR_ENOMEM;
    }
    *out = s;
    return 0;
}

/* Keep buf[0..len) as the start of the next line. */
static int keep_tail(ibr_lfts_stream *s, const char *buf, size_t len)
{
    if (s->ntail + len > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->ntail + len)
            cap *= 2;
        char *p = ibr__realloc(s->rd.t->ctx, s->tail, cap);
        if (!p)
            return IBR_ENOMEM;
        s->tail = p;
        s->cap = cap;
    }
    if (len)
        memcpy(s->tail + s->ntail, buf, len);
    s->ntail += len;
    return 0;
}

/* Read a piece: the line the last piece left open, ended by this one,
   then this piece's whole lines; the rest waits for the next piece (or
   for the end: last). */
static int stream_feed(ibr_lfts_stream *s, const char *buf, size_t len, int last)
{
    if (s->rc)
        return s->rc;
    if (!buf)
        buf = ""; /* len is 0: no arithmetic on a null pointer below */
    const char *nl = len ? memchr(buf, '\n', len) : NULL;
    int rc = 0;
    if (s->ntail || (!nl && !last)) {
        /* the open line, and what of this piece belongs to it */
        size_t head = nl ? (size_t)(nl - buf) + 1 : len;
        if ((rc = keep_tail(s, buf, head)) == 0 && (nl || last)) {
            rc = ibr__lfts_lines(&s->rd, s->tail, s->ntail);
            s->ntail = 0;
        }
        buf += head;
        len -= head;
    }
    if (rc == 0 && len) {
        const char *end = buf + len;
        if (!last)
            while (end > buf && end[-1] != '\n')
                end--;
        rc = ibr__lfts_lines(&s->rd, buf, (size_t)(end - buf));
        if (rc == 0 && end < buf + len)
            rc = keep_tail(s, end, (size_t)(buf + len - end));
    }
    if (rc == IBR_ENOMEM && !s->rd.msg[0])
        strlcpy(s->rd.msg, "out of memory reading forwarding tables", sizeof s->rd.msg);
    return s->rc = rc;
}

int ibr_lfts_stream_feed(ibr_lfts_stream *s, const char *buf, size_t len)
{
    if (!s || (!buf && len) || s->spent)
        return IBR_EINVAL;
    return stream_feed(s, buf, len, 0);
}

const char *ibr_lfts_stream_last_error(const ibr_lfts_stream *s)
{
    return s ? s->rd.msg : "";
}

/* The result of a finished reading, failed (rc < 0) or not; the stream
   gives it away. */
static int take_result(ibr_lfts_stream *s, int rc, ibr_result **out)
{
    ibr_result *r = s->r;
    if (rc == IBR_ENOMEM)
        return IBR_ENOMEM;
    if (rc < 0) {
        /* a failed result: no tables, the message names the line */
        ibr__result_clear_tables(r);
        ibr__result_unicast_drop(r);
        r->status = rc;
        ibr__result_set_engine(r, NULL);
        strlcpy(r->last_error, s->rd.msg, sizeof r->last_error);
    } else {
        ibr__result_set_engine(r, "file");
    }
    if (ibr__result_add_attempt(r, "file", rc, rc < 0 ? s->rd.msg : "") < 0)
        return IBR_ENOMEM;
    s->r = NULL;
    *out = r;
    return rc;
}

int ibr_lfts_stream_finish(ibr_lfts_stream *s, ibr_result **out)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!s || s->spent)
        return IBR_EINVAL;
    s->spent = 1;
    int rc = stream_feed(s, NULL, 0, 1);
    int end = ibr__lfts_end(&s->rd, rc == 0);
    if (rc == 0)
        rc = end;
    return take_result(s, rc, out);
}

void ibr_lfts_stream_destroy(ibr_lfts_stream *s)
{
    if (!s)
        return;
    ibr_context *ctx = s->rd.t->ctx;
    ibr__lfts_end(&s->rd, 0);
    ibr_result_destroy(s->r);
    ibr__free(ctx, s->tail);
    ibr__free(ctx, s);
}

int ibr_result_parse_lfts(ibr_result **out, const ibr_topo *t, const char *buf, size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t || (!buf && len))
        return IBR_EINVAL;
    ibr_lfts_stream *s;
    int rc = ibr_lfts_stream_new(&s, t);
    if (rc < 0)
        return rc;
    stream_feed(s, buf, len, 1);
    rc = ibr_lfts_stream_finish(s, out);
    ibr_lfts_stream_destroy(s);
    return rc;
}
