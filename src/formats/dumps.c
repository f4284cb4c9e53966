/*
 * Writers of OpenSM's dump files (opensm-lfts.dump, opensm-subnet.lst,
 * opensm.fdbs) and of infiniband-diags' ibroute / dump_lfts text.
 *
 * Switches are written in switch index order, which is OpenSM's switch
 * table order; opensm-subnet.lst lists nodes in OpenSM's node table order
 * (ascending byte-reversed node GUID).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats_int.h"

#define NO_PATH 255u

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static int check_args(ibr_buffer *out, const ibr_topo *t, const ibr_result *r, size_t *mark)
{
    if (!t || !out)
        return IBR_EINVAL;
    if (r && (r->status != 0 || !r->lft || r->lft_size != (size_t)t->max_lid + 1))
        return IBR_EINVAL;
    return ibr__buf_begin(out, t->ctx, mark);
}

const char *ibr__type_word(unsigned type)
{
    switch (type) {
    case IBR_NODE_CA:
        return "Channel Adapter";
    case IBR_NODE_SWITCH:
        return "Switch";
    case IBR_NODE_ROUTER:
        return "Router";
    default:
        return "UNKNOWN";
    }
}

void ibr__desc_line(char *dst, const char *src)
{
    size_t i = 0;
    for (; src[i] && i < IBR_DESC_SIZE - 1; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
    }
    dst[i] = 0;
}

static char *put_hex(char *d, uint64_t v, unsigned width, int upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[20];
    unsigned n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    while (n < width)
        tmp[n++] = '0';
    while (n)
        *d++ = tmp[--n];
    return d;
}

static char *put_dec(char *d, unsigned v, unsigned width)
{
    char tmp[12];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width)
        tmp[n++] = '0';
    while (n)
        *d++ = tmp[--n];
    return d;
}

static char *put_str(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
    return d + n;
}

/* Finish a raw write started after ibr__buf_reserve(). */
static void commit(ibr_buffer *out, char *end)
{
    out->size = (size_t)(end - out->data);
    out->data[out->size] = 0;
}

/* Per-LID lines built once and reused for every switch: for LID l, the
   whole entry line "0x<l, 4 hex digits> 000<sep><the LID's text>\n" with
   the port digits (PORT_AT..PORT_AT+2) patched per switch. Offsets into
   one string table. */
typedef struct lid_text {
    char *s;
    uint32_t *off; /* max_lid + 2 */
} lid_text;

#define PORT_AT 7 /* "0x0001 " */

static void lid_text_free(ibr_context *ctx, lid_text *lt)
{
    ibr__free(ctx, lt->s);
    ibr__free(ctx, lt->off);
    lt->s = NULL;
    lt->off = NULL;
}

/* fmt: 0 = opensm-lfts.dump ("0x0001 000 # <Type> portguid 0x...:
   '<desc>'" or "... # unknown node and type"), 1 = ibroute ("0x0001 000 :
   (<Type> portguid 0x...: '<desc>')" or "... : (unknown node and
   type)"). */
static int lid_text_build(lid_text *lt, const ibr_topo *t, int fmt)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    ibr_context *ctx = t->ctx;
    lt->s = NULL;
    lt->off = ibr__mallocarray(ctx, (size_t)t->max_lid + 2, sizeof *lt->off);
    if (!lt->off)
        return IBR_ENOMEM;
    char desc[IBR_DESC_SIZE];
    int rc = ibr__buf_reserve(&b, ctx, 64);
    for (uint32_t lid = 0; lid <= t->max_lid && rc == 0; lid++) {
        if (b.size > UINT32_MAX - 512) {
            rc = IBR_ENOMEM;
            break;
        }
        lt->off[lid] = (uint32_t)b.size;
        if ((rc = ibr__buf_reserve(&b, ctx, 16)) < 0)
            break;
        char *d = b.data + b.size;
        d = put_str(d, "0x", 2);
        d = put_hex(d, lid, 4, 0);
        d = put_str(d, fmt ? " 000 : " : " 000 # ", 7);
        commit(&b, d);
        uint32_t gp = t->lid_port[lid];
        if (gp == IBR_NONE) {
            rc = ibr__buf_puts(&b, ctx,
                               fmt ? "(unknown node and type)\n" : "unknown node and type\n");
            continue;
        }
        const ibr__node *n = &t->nodes[t->port_node[gp]];
        ibr__desc_line(desc, n->desc);
        rc = ibr__buf_printf(&b, ctx, fmt ? "(%s portguid 0x%016" PRIx64 ": '%s')\n"
                                          : "%s portguid 0x%016" PRIx64 ": '%s'\n",
                             ibr__type_word(n->type), t->ports[gp].guid, desc);
    }
    if (rc < 0) {
        ibr_buffer_dispose(&b);
        lid_text_free(ctx, lt);
        return IBR_ENOMEM;
    }
    lt->off[(size_t)t->max_lid + 1] = (uint32_t)b.size;
    lt->s = b.data;
    return 0;
}

static uint16_t switch_lid(const ibr_topo *t, uint32_t sw)
{
    return t->ports[t->nodes[t->sw_node[sw]].port_off].lid;
}

/* One entry of either LFT format: LID lid's line with port written in. */
static int lft_line(ibr_buffer *out, ibr_context *ctx, const lid_text *lt, uint32_t lid,
                    unsigned port)
{
    size_t tl = lt->off[lid + 1] - lt->off[lid];
    int rc = ibr__buf_reserve(out, ctx, tl);
    if (rc < 0)
        return rc;
    char *d = out->data + out->size;
    memcpy(d, lt->s + lt->off[lid], tl);
    d[PORT_AT] = (char)('0' + port / 100);
    d[PORT_AT + 1] = (char)('0' + port / 10 % 10);
    d[PORT_AT + 2] = (char)('0' + port % 10);
    commit(out, d + tl);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Per-switch dumps: one block per switch, formatted in parallel        */

/* What every switch block of one dump shares: the LIDs' lines (LFT
   formats) or the hop matrix (fdbs, lid matrix). */
typedef struct sw_job {
    const ibr_topo *t;
    const ibr_result *r;
    ibr_switch_dump format;
    lid_text lt;
    const uint8_t *hops; /* n_sw x n_sw least hops */
    uint32_t first, count;
    size_t *off;       /* where each switch's block starts */
    char *base;        /* ... in the caller's buffer */
    /* opensm.fdbs: per LID, "0xLLLL : " and where its hops are counted to */
    char (*lid_pfx)[9];
    uint32_t *lid_dst; /* destination switch (IBR_NONE: none) */
    uint8_t *lid_kind; /* FDB_* */
    ibr_buffer *scratch; /* one per worker (two-pass writers) */
} sw_job;

static int dump_lfts_block(ibr_buffer *out, const sw_job *j, uint32_t sw);
static int fdbs_block(ibr_buffer *out, const sw_job *j, uint32_t sw);
static int fdb_lids_build(sw_job *j);
static void fdb_lids_free(sw_job *j);
static int lid_matrix_block(ibr_buffer *out, const sw_job *j, uint32_t sw);
static int ibdiag_fdbs_block(ibr_buffer *out, const sw_job *j, uint32_t sw);

static int format_block(ibr_buffer *out, const sw_job *j, uint32_t sw)
{
    /* opensm-lfts.dump has a writer of its own (write_lfts_direct()) */
    switch (j->format) {
    case IBR_SWITCH_DUMP_LFTS: break;
    case IBR_SWITCH_DUMP_IBROUTE: return dump_lfts_block(out, j, sw);
    case IBR_SWITCH_DUMP_FDBS: return fdbs_block(out, j, sw);
    case IBR_SWITCH_DUMP_LID_MATRIX: return lid_matrix_block(out, j, sw);
    case IBR_SWITCH_DUMP_IBDIAGNET_FDBS: return ibdiag_fdbs_block(out, j, sw);
    }
    return IBR_EINVAL;
}

/* The other per-switch dumps on several workers, in two passes over the
   switches: each block formatted into its worker's scratch buffer to learn
   its size, then, the offsets known, formatted again and copied into its
   place in the caller's buffer. Formatting twice costs less than the fresh
   memory of one buffer per block (a 64 MB slice would take 64 MB more). */
static int two_pass(void *arg, unsigned worker, size_t i)
{
    sw_job *j = arg;
    ibr_buffer *b = &j->scratch[worker];
    b->size = 0;
    int rc = format_block(b, j, j->first + (uint32_t)i);
    if (rc < 0)
        return rc;
    if (!j->base)
        j->off[i] = b->size;
    else if (b->size)
        memcpy(j->base + j->off[i], b->data, b->size);
    return 0;
}

/* The second pass of a two-pass writer: the block sizes the first pass
   left in j->off[0..count) become offsets, out grows by their total and
   fill formats every switch's block into its place. */
static int fill_measured(ibr_buffer *out, sw_job *j, unsigned nw, ibr__par_fn fill)
{
    size_t total = 0;
    for (uint32_t i = 0; i < j->count; i++) {
        size_t n = j->off[i];
        j->off[i] = total;
        total += n;
    }
    int rc = ibr__buf_reserve(out, j->t->ctx, total);
    if (rc == 0) {
        j->base = out->data + out->size;
        rc = ibr__parallel_for(nw, j->count, fill, j);
    }
    if (rc == 0) {
        out->size += total;
        out->data[out->size] = 0;
    }
    return rc;
}

static int write_two_pass(ibr_buffer *out, sw_job *j, unsigned nw)
{
    ibr_context *ctx = j->t->ctx;
    int rc = 0;
    j->off = ibr__mallocarray(ctx, (size_t)j->count + 1, sizeof *j->off);
    j->scratch = ibr__calloc(ctx, nw, sizeof *j->scratch);
    if (!j->off || !j->scratch)
        rc = IBR_ENOMEM;
    for (unsigned w = 0; w < nw && rc == 0; w++)
        j->scratch[w].ctx = out->ctx;
    if (rc == 0)
        rc = ibr__parallel_for(nw, j->count, two_pass, j);
    if (rc == 0)
        rc = fill_measured(out, j, nw, two_pass);
    for (unsigned w = 0; j->scratch && w < nw; w++)
        ibr_buffer_dispose(&j->scratch[w]);
    ibr__free(ctx, j->scratch);
    ibr__free(ctx, j->off);
    j->scratch = NULL;
    j->off = NULL;
    j->base = NULL;
    return rc;
}

/* opensm-lfts.dump without intermediate buffers: every switch's block
   measured first (its header, the lines of the LIDs it routes, its
   trailer), then formatted by the workers straight into its place in the
   caller's buffer. */
static size_t lfts_header(char *dst, size_t cap, const sw_job *j, uint32_t sw)
{
    const ibr_topo *t = j->t;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    char desc[IBR_DESC_SIZE];
    ibr__desc_line(desc, n->desc);
    int len = snprintf(dst, cap, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('%s'):\n",
                       (unsigned)t->max_lid, (unsigned)switch_lid(t, sw), n->guid, desc);
    return len < 0 ? 0 : (size_t)len;
}

/* "Unicast lids [0-65535] of switch Lid 65535 guid 0x<16>" "('<desc>'):\n" */
#define LFTS_HEADER_MAX (96 + IBR_DESC_SIZE)

static int lfts_measure(void *arg, unsigned worker, size_t i)
{
    sw_job *j = arg;
    (void)worker;
    uint32_t sw = j->first + (uint32_t)i;
    const ibr_topo *t = j->t;
    const uint8_t *lft = ibr__lft_row(j->r, sw);
    unsigned np = t->nodes[t->sw_node[sw]].nports;
    char head[LFTS_HEADER_MAX];
    size_t size = lfts_header(head, sizeof head, j, sw);
    for (uint32_t lid = 0; lid <= t->max_lid; lid++)
        if (lft[lid] <= np)
            size += j->lt.off[lid + 1] - j->lt.off[lid];
    char tail[32];
    int tl = snprintf(tail, sizeof tail, "%u lids dumped\n", (unsigned)t->max_lid);
    j->off[i] = size + (size_t)(tl < 0 ? 0 : tl);
    return 0;
}

static int lfts_fill(void *arg, unsigned worker, size_t i)
{
    sw_job *j = arg;
    (void)worker;
    uint32_t sw = j->first + (uint32_t)i;
    const ibr_topo *t = j->t;
    const uint8_t *lft = ibr__lft_row(j->r, sw);
    unsigned np = t->nodes[t->sw_node[sw]].nports;
    const lid_text *lt = &j->lt;
    char *d = j->base + j->off[i];
    char buf[LFTS_HEADER_MAX];
    size_t hl = lfts_header(buf, sizeof buf, j, sw);
    d = put_str(d, buf, hl);
    for (uint32_t lid = 0; lid <= t->max_lid; lid++) {
        unsigned port = lft[lid];
        if (port > np)
            continue;
        size_t tl = lt->off[lid + 1] - lt->off[lid];
        memcpy(d, lt->s + lt->off[lid], tl);
        d[PORT_AT] = (char)('0' + port / 100);
        d[PORT_AT + 1] = (char)('0' + port / 10 % 10);
        d[PORT_AT + 2] = (char)('0' + port % 10);
        d += tl;
    }
    int tl = snprintf(buf, sizeof buf, "%u lids dumped\n", (unsigned)t->max_lid);
    put_str(d, buf, (size_t)(tl < 0 ? 0 : tl));
    return 0;
}

static int write_lfts_direct(ibr_buffer *out, sw_job *j, unsigned nw)
{
    ibr_context *ctx = j->t->ctx;
    j->off = ibr__mallocarray(ctx, (size_t)j->count + 1, sizeof *j->off);
    if (!j->off)
        return IBR_ENOMEM;
    int rc = ibr__parallel_for(nw, j->count, lfts_measure, j);
    if (rc == 0)
        rc = fill_measured(out, j, nw, lfts_fill);
    ibr__free(ctx, j->off);
    j->off = NULL;
    return rc;
}

/* Switches first..first+count-1 of dump format into out, formatted by the
   result's workers into their places (write_lfts_direct(),
   write_two_pass()); all or nothing. */
static int write_switches(ibr_buffer *out, const ibr_result *r, ibr_switch_dump format,
                          uint32_t first, uint32_t count)
{
    size_t mark;
    if (!r || !r->topo || (unsigned)format > IBR_SWITCH_DUMP_IBDIAGNET_FDBS)
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    if (first > t->n_sw || count > t->n_sw - first)
        return IBR_EINVAL;
    int rc = check_args(out, t, r, &mark);
    if (rc < 0)
        return rc;
    ibr_context *ctx = t->ctx;
    sw_job j;
    memset(&j, 0, sizeof j);
    j.t = t;
    j.r = r;
    j.format = format;
    j.first = first;
    j.count = count;
    uint8_t *own = NULL;
    if (format == IBR_SWITCH_DUMP_LFTS || format == IBR_SWITCH_DUMP_IBROUTE) {
        if (count && lid_text_build(&j.lt, t, format == IBR_SWITCH_DUMP_IBROUTE) < 0)
            return IBR_ENOMEM;
    } else if (format != IBR_SWITCH_DUMP_IBDIAGNET_FDBS) {
        if (format == IBR_SWITCH_DUMP_FDBS && count && fdb_lids_build(&j) < 0) {
            fdb_lids_free(&j);
            return IBR_ENOMEM;
        }
        j.hops = r->hops;
        if (!j.hops && t->n_sw && count) {
            if ((rc = ibr__switch_hops(&own, t, r->threads ? r->threads : 1)) < 0) {
                fdb_lids_free(&j);
                return rc;
            }
            j.hops = own;
        }
    }
    /* workers: as many as routing used (a result read from text has 0: one,
       since the allocator need not be thread-safe then) */
    unsigned nw = r->threads ? r->threads : 1;
    if (count == 0)
        rc = 0;
    else if (format == IBR_SWITCH_DUMP_LFTS)
        rc = write_lfts_direct(out, &j, nw);
    else if (nw > 1 && count > 1)
        rc = write_two_pass(out, &j, nw);
    else
        for (uint32_t sw = first; sw < first + count && rc == 0; sw++)
            rc = format_block(out, &j, sw); /* one worker: straight in */
    if (j.lt.off)
        lid_text_free(ctx, &j.lt);
    fdb_lids_free(&j);
    ibr__free(ctx, own);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

int ibr_result_write_switches(ibr_buffer *out, const ibr_result *r, ibr_switch_dump format,
                              uint32_t first, uint32_t count)
{
    return write_switches(out, r, format, first, count);
}

static int write_all_switches(ibr_buffer *out, const ibr_result *r, ibr_switch_dump format)
{
    if (!r || !r->topo)
        return IBR_EINVAL;
    return write_switches(out, r, format, 0, r->topo->n_sw);
}

int ibr_result_write_lfts_dump(ibr_buffer *out, const ibr_result *r)
{
    return write_all_switches(out, r, IBR_SWITCH_DUMP_LFTS);
}

/*
 * ibroute / dump_lfts: one block per switch as `ibroute <switch LID>`
 * prints it (dump_fts prints the same blocks one after the other, naming
 * switches by directed route instead of LID). A LID of an LMC range after
 * its base is shown as "path #k out of n", as the tools do. All LIDs
 * 0..max LID are covered (the tools skip the last LID when it is a
 * multiple of 64).
 */
static int dump_lfts_block(ibr_buffer *out, const sw_job *j, uint32_t sw)
{
    const ibr_topo *t = j->t;
    ibr_context *ctx = t->ctx;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    const uint8_t *lft = ibr__lft_row(j->r, sw);
    char desc[IBR_DESC_SIZE];
    ibr__desc_line(desc, n->desc);
    int rc = ibr__buf_printf(out, ctx,
                             "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016" PRIx64
                             " (%s):\n"
                             "  Lid  Out   Destination\n"
                             "       Port     Info \n",
                             (unsigned)t->max_lid, (unsigned)switch_lid(t, sw), n->guid, desc);
    unsigned base = 0, last = 0, count = 0;
    uint64_t pguid = 0;
    for (uint32_t lid = 0; lid <= t->max_lid && rc == 0; lid++) {
        unsigned port = lft[lid];
        if (port > n->nports)
            continue;
        count++;
        if (lid <= last && pguid) {
            rc = ibr__buf_printf(out, ctx,
                                 "0x%04x %03u : (path #%u out of %u: portguid 0x%016" PRIx64 ")\n",
                                 (unsigned)lid, port, lid - base + 1, last - base + 1, pguid);
            continue;
        }
        uint32_t gp = t->lid_port[lid];
        pguid = 0;
        if (gp != IBR_NONE) {
            const ibr__port *pt = &t->ports[gp];
            pguid = pt->guid;
            if (pt->lmc) {
                base = pt->lid;
                last = pt->lid + (1u << pt->lmc) - 1;
            }
        }
        rc = lft_line(out, ctx, &j->lt, lid, port);
    }
    if (rc == 0)
        rc = ibr__buf_printf(out, ctx, "%u valid lids dumped \n", count);
    return rc;
}

int ibr_result_write_dump_lfts(ibr_buffer *out, const ibr_result *r)
{
    return write_all_switches(out, r, IBR_SWITCH_DUMP_IBROUTE);
}

/* ------------------------------------------------------------------ */
/* opensm-subnet.lst                                                   */

typedef struct keyed {
    uint64_t key;
    uint32_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Node indices in OpenSM's node table order. */
static uint32_t *node_order(const ibr_topo *t)
{
    keyed *k = ibr__mallocarray(t->ctx, t->n_nodes ? t->n_nodes : 1, sizeof *k);
    uint32_t *o = ibr__mallocarray(t->ctx, t->n_nodes ? t->n_nodes : 1, sizeof *o);
    if (!k || !o) {
        ibr__free(t->ctx, k);
        ibr__free(t->ctx, o);
        return NULL;
    }
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        k[i].key = ibr__guid_key(t->nodes[i].guid);
        k[i].idx = i;
    }
    qsort(k, t->n_nodes, sizeof *k, cmp_keyed);
    for (uint32_t i = 0; i < t->n_nodes; i++)
        o[i] = k[i].idx;
    ibr__free(t->ctx, k);
    return o;
}

static const char *short_type(unsigned type)
{
    return type == IBR_NODE_SWITCH ? "SW" : type == IBR_NODE_CA ? "CA" : type == IBR_NODE_ROUTER ? "Rt" : "**";
}

const char *ibr__width_str(unsigned w)
{
    switch (w) {
    case IBR_WIDTH_1X:
        return "1x";
    case IBR_WIDTH_4X:
        return "4x";
    case IBR_WIDTH_8X:
        return "8x";
    case IBR_WIDTH_12X:
        return "12x";
    case IBR_WIDTH_2X:
        return "2x";
    default:
        return "??";
    }
}

/* OpenSM prints the classic rate in Gb/s per lane, "FDR10", or the
   extended rate (14, 25, 50); faster extended speeds print as "??". */
static const char *spd_str(unsigned s)
{
    switch (s) {
    case IBR_SPEED_SDR:
        return "2.5";
    case IBR_SPEED_DDR:
        return "5";
    case IBR_SPEED_QDR:
        return "10";
    case IBR_SPEED_FDR10:
        return "FDR10";
    case IBR_SPEED_FDR:
        return "14";
    case IBR_SPEED_EDR:
        return "25";
    case IBR_SPEED_HDR:
        return "50";
    default:
        return "??";
    }
}

/* One half of a line. VenID, DevID and Rev are not modelled and print as
   0; the far end prints VenID with 8 digits, as OpenSM does. */
static int lst_half(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t, uint32_t node,
                    unsigned port, int far)
{
    const ibr__node *n = &t->nodes[node];
    const ibr__port *pt = &t->ports[n->port_off + port];
    const ibr__port *lp = n->type == IBR_NODE_SWITCH ? &t->ports[n->port_off] : pt;
    char desc[IBR_DESC_SIZE];
    ibr__desc_line(desc, n->desc);
    /* "{ %s Ports:%02X SystemGUID:%016llx NodeGUID:%016llx PortGUID:%016llx
       VenID:%s DevID:0000 Rev:00000000 {%s} LID:%04X PN:%02X } " */
    if (ibr__buf_reserve(out, ctx, 200 + IBR_DESC_SIZE) < 0)
        return IBR_ENOMEM;
    char *d = out->data + out->size;
    d = put_str(d, "{ ", 2);
    d = put_str(d, short_type(n->type), 2);
    d = put_str(d, " Ports:", 7);
    d = put_hex(d, n->nports, 2, 1);
    d = put_str(d, " SystemGUID:", 12);
    d = put_hex(d, n->sysimg ? n->sysimg : n->guid, 16, 0);
    d = put_str(d, " NodeGUID:", 10);
    d = put_hex(d, n->guid, 16, 0);
    d = put_str(d, " PortGUID:", 10);
    d = put_hex(d, pt->guid, 16, 0);
    d = far ? put_str(d, " VenID:00000000", 15) : put_str(d, " VenID:000000", 13);
    d = put_str(d, " DevID:0000 Rev:00000000 {", 26);
    d = put_str(d, desc, strlen(desc));
    d = put_str(d, "} LID:", 6);
    d = put_hex(d, lp->lid, 4, 1);
    d = put_str(d, " PN:", 4);
    d = put_hex(d, port, 2, 1);
    d = put_str(d, " } ", 3);
    commit(out, d);
    return 0;
}

/*
 * One line per cabled port of every node, so each link appears twice.
 * Links in the down state are left out: OpenSM does not discover a link
 * whose physical state is down. No node is marked "-SM": the topology does
 * not say where the subnet manager runs.
 */
int ibr_topo_write_subnet_lst(ibr_buffer *out, const ibr_topo *t)
{
    size_t mark;
    int rc = check_args(out, t, NULL, &mark);
    if (rc < 0)
        return rc;
    ibr_context *ctx = t->ctx;
    uint32_t *order = node_order(t);
    if (!order)
        return IBR_ENOMEM;
    for (uint32_t k = 0; k < t->n_nodes && rc == 0; k++) {
        uint32_t i = order[k];
        const ibr__node *n = &t->nodes[i];
        for (unsigned p = 1; p <= n->nports && rc == 0; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE)
                continue;
            if ((rc = lst_half(out, ctx, t, i, p, 0)) < 0 ||
                (rc = lst_half(out, ctx, t, pt->remote_node, pt->remote_port, 1)) < 0)
                break;
            rc = ibr__buf_printf(out, ctx, "PHY=%s LOG=ACT SPD=%s\n", ibr__width_str(pt->width),
                                 spd_str(pt->speed));
        }
    }
    ibr__free(ctx, order);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

/* ------------------------------------------------------------------ */
/* opensm.fdbs                                                         */

/* Switch sw's view of the hop matrix: its row, and per port the switch
   an active link leads to (IBR_NONE: none, an end node, or itself). */
typedef struct hopctx {
    const ibr_topo *t;
    const uint8_t *m; /* n_sw * n_sw least hops */
    uint32_t sw;
    unsigned nports;
    uint32_t nbr[256];
} hopctx;

static void hopctx_init(hopctx *h, const sw_job *j, uint32_t sw)
{
    const ibr_topo *t = j->t;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    h->t = t;
    h->m = j->hops;
    h->sw = sw;
    h->nports = n->nports;
    h->nbr[0] = IBR_NONE;
    for (unsigned p = 1; p <= n->nports; p++) {
        const ibr__port *pt = &t->ports[n->port_off + p];
        h->nbr[p] = IBR_NONE;
        if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
            pt->remote_node == t->sw_node[sw])
            continue;
        const ibr__node *rn = &t->nodes[pt->remote_node];
        if (rn->type == IBR_NODE_SWITCH)
            h->nbr[p] = rn->sw;
    }
}

static unsigned least(const hopctx *h, uint32_t a, uint32_t b)
{
    return h->m[(size_t)a * h->t->n_sw + b];
}

/* Hops from the switch to switch dst when leaving through port: what
   OpenSM's per-port hop table holds (port 0 holds the minimum). */
static unsigned hops_via(const hopctx *h, unsigned port, uint32_t dst)
{
    if (port == 0)
        return least(h, h->sw, dst);
    if (port > h->nports || h->nbr[port] == IBR_NONE)
        return NO_PATH;
    unsigned d = least(h, h->nbr[port], dst);
    return d >= NO_PATH - 1 ? NO_PATH : d + 1;
}

static unsigned best_port(const hopctx *h, uint32_t dst, unsigned best)
{
    if (h->sw == dst)
        return 0;
    for (unsigned p = 1; p <= h->nports; p++)
        if (hops_via(h, p, dst) == best)
            return p;
    return 0;
}

/* What a LID of opensm.fdbs leads to. */
enum { FDB_NONE, FDB_SWITCH, FDB_END, FDB_END_LOOSE };

/* The per-LID part of opensm.fdbs, built once per call: the line's
   "0xLLLL : " and the destination's kind and switch. */
static int fdb_lids_build(sw_job *j)
{
    const ibr_topo *t = j->t;
    size_t n = (size_t)t->max_lid + 1;
    j->lid_pfx = ibr__mallocarray(t->ctx, n, sizeof *j->lid_pfx);
    j->lid_dst = ibr__mallocarray(t->ctx, n, sizeof *j->lid_dst);
    j->lid_kind = ibr__mallocarray(t->ctx, n, sizeof *j->lid_kind);
    if (!j->lid_pfx || !j->lid_dst || !j->lid_kind)
        return IBR_ENOMEM;
    for (uint32_t lid = 0; lid <= t->max_lid; lid++) {
        char *d = j->lid_pfx[lid];
        d = put_str(d, "0x", 2);
        d = put_hex(d, lid, 4, 1);
        put_str(d, " : ", 3);
        uint32_t gp = t->lid_port[lid];
        j->lid_dst[lid] = IBR_NONE;
        j->lid_kind[lid] = FDB_NONE;
        if (gp == IBR_NONE)
            continue;
        const ibr__node *dn = &t->nodes[t->port_node[gp]];
        if (dn->type == IBR_NODE_SWITCH) {
            j->lid_kind[lid] = FDB_SWITCH;
            j->lid_dst[lid] = dn->sw;
        } else {
            /* an end port: hops to the switch it is cabled to, plus one */
            j->lid_dst[lid] = t->lid_sw[lid];
            j->lid_kind[lid] = t->lid_sw[lid] == IBR_NONE ? FDB_END_LOOSE : FDB_END;
        }
    }
    return 0;
}

static void fdb_lids_free(sw_job *j)
{
    ibr_context *ctx = j->t->ctx;
    ibr__free(ctx, j->lid_pfx);
    ibr__free(ctx, j->lid_dst);
    ibr__free(ctx, j->lid_kind);
    j->lid_pfx = NULL;
    j->lid_dst = NULL;
    j->lid_kind = NULL;
}

static int fdb_line(ibr_buffer *out, ibr_context *ctx, const sw_job *j, const hopctx *h,
                    const uint8_t *lft, uint32_t lid)
{
    if (ibr__buf_reserve(out, ctx, 80) < 0)
        return IBR_ENOMEM;
    char *d = out->data + out->size;
    memcpy(d, j->lid_pfx[lid], 9);
    d += 9;
    unsigned kind = j->lid_kind[lid];
    unsigned port = lft[lid];
    if (kind == FDB_NONE || port == NO_PATH) {
        d = put_str(d, "UNREACHABLE\n", 12);
        commit(out, d);
        return 0;
    }
    unsigned num, best;
    uint32_t dst = j->lid_dst[lid];
    if (kind == FDB_SWITCH) {
        num = hops_via(h, port, dst);
        best = least(h, h->sw, dst);
    } else if (kind == FDB_END_LOOSE) {
        num = NO_PATH;
        best = NO_PATH;
    } else {
        num = dst == h->sw ? 0 : hops_via(h, port, dst);
        best = least(h, h->sw, dst);
        if (num != NO_PATH) {
            num++;
            best = (best + 1) & 0xff;
        }
    }
    d[0] = (char)('0' + port / 100);
    d[1] = (char)('0' + port / 10 % 10);
    d[2] = (char)('0' + port % 10);
    d += 3;
    if (num == NO_PATH) {
        d = put_str(d, "  : HOPS UNKNOWN\n", 17);
        commit(out, d);
        return 0;
    }
    d = put_str(d, "  : ", 4);
    d = put_dec(d, num, 2);
    d = put_str(d, "   : ", 5);
    if (num == best) {
        d = put_str(d, "yes\n", 4);
        commit(out, d);
        return 0;
    }
    commit(out, d);
    unsigned bp = best_port(h, dst, kind == FDB_SWITCH ? best : best - 1);
    return ibr__buf_printf(out, ctx, "No %u hop path possible via port %u!\n", best, bp);
}

static int fdbs_block(ibr_buffer *out, const sw_job *j, uint32_t sw)
{
    const ibr_topo *t = j->t;
    ibr_context *ctx = t->ctx;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    const uint8_t *lft = ibr__lft_row(j->r, sw);
    hopctx h;
    hopctx_init(&h, j, sw);
    int rc = ibr__buf_printf(out, ctx,
                             "dump_ucast_routes: Switch 0x%016" PRIx64
                             "\nLID    : Port : Hops : Optimal\n",
                             n->guid);
    /* most lines are "0xLLLL : PPP  : HH   : yes" (27 bytes) */
    if (rc == 0)
        rc = ibr__buf_reserve(out, ctx, (size_t)t->max_lid * 28);
    for (uint32_t lid = 1; lid <= t->max_lid && rc == 0; lid++)
        rc = fdb_line(out, ctx, j, &h, lft, lid);
    return rc;
}

/*
 * Hop counts: the result's hop matrix when it has one, else shortest
 * switch-to-switch distances over active links. The port named in a
 * "No N hop path possible" line is the lowest-numbered port on a shortest
 * path (OpenSM names the port its min-hop balancing would pick).
 */
int ibr_result_write_fdbs(ibr_buffer *out, const ibr_result *r)
{
    return write_all_switches(out, r, IBR_SWITCH_DUMP_FDBS);
}

/* ------------------------------------------------------------------ */
/* ibdiagnet2.fdbs                                                     */

/*
 * ibdiagnet's fdbs: the block of opensm.fdbs with ibdiagnet's header
 * prefix, every LID from 1 to the topology's max LID, and a blank line
 * after the block. ibdiagnet reads the switches' LFTs and no hop tables:
 * its Hops and Optimal columns are always "00" and "yes", and so are ours.
 */
static int ibdiag_fdbs_block(ibr_buffer *out, const sw_job *j, uint32_t sw)
{
    const ibr_topo *t = j->t;
    ibr_context *ctx = t->ctx;
    const uint8_t *lft = ibr__lft_row(j->r, sw);
    int rc = ibr__buf_printf(out, ctx,
                             "osm_ucast_mgr_dump_ucast_routes: Switch 0x%016" PRIx64
                             "\nLID    : Port : Hops : Optimal\n",
                             t->nodes[t->sw_node[sw]].guid);
    if (rc < 0 || (rc = ibr__buf_reserve(out, ctx, (size_t)t->max_lid * 28 + 2)) < 0)
        return rc;
    char *d = out->data + out->size;
    for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
        unsigned port = lft[lid];
        d = put_str(d, "0x", 2);
        d = put_hex(d, lid, 4, 0);
        if (port == IBR_NO_ROUTE) {
            d = put_str(d, " : UNREACHABLE\n", 15);
            continue;
        }
        d = put_str(d, " : ", 3);
        d = put_dec(d, port, 3);
        d = put_str(d, "  : 00   : yes\n", 15);
    }
    *d++ = '\n';
    commit(out, d);
    return 0;
}

/* ------------------------------------------------------------------ */
/* opensm-lid-matrix.dump                                              */

static int lid_matrix_block(ibr_buffer *out, const sw_job *j, uint32_t sw)
{
    const ibr_topo *t = j->t;
    ibr_context *ctx = t->ctx;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    hopctx h;
    hopctx_init(&h, j, sw);
    int rc = ibr__buf_printf(out, ctx, "Switch: guid 0x%016" PRIx64 "\n", n->guid);
    for (uint32_t lid = 1; lid <= t->max_lid && rc == 0; lid++) {
        uint32_t gp = t->lid_port[lid];
        if (gp == IBR_NONE || t->ports[gp].lid != lid)
            continue;
        const ibr__node *dn = &t->nodes[t->port_node[gp]];
        if (dn->type != IBR_NODE_SWITCH)
            continue;
        uint32_t dst = dn->sw;
        unsigned best = dst == sw ? 0 : NO_PATH;
        uint8_t via[256];
        for (unsigned p = 1; p <= n->nports; p++) {
            unsigned v = hops_via(&h, p, dst);
            via[p] = (uint8_t)v;
            if (v < best && dst != sw)
                best = v;
        }
        if (best == NO_PATH)
            continue;
        via[0] = (uint8_t)best;
        if ((rc = ibr__buf_reserve(out, ctx, 48 + 3 * (size_t)n->nports)) < 0)
            break;
        char *d = out->data + out->size;
        d = put_str(d, "0x", 2);
        d = put_hex(d, lid, 4, 0);
        *d++ = ':';
        for (unsigned p = 0; p <= n->nports; p++) {
            unsigned v = via[p];
            d[0] = ' ';
            d[1] = "0123456789abcdef"[v >> 4 & 15];
            d[2] = "0123456789abcdef"[v & 15];
            d += 3;
        }
        d = put_str(d, " # portguid 0x", 14);
        d = put_hex(d, t->ports[gp].guid, 16, 0);
        *d++ = '\n';
        commit(out, d);
    }
    return rc;
}

/*
 * Per switch, one row per switch LID it can reach: the hops toward that
 * switch when leaving through each port 0..N (hex, "ff" for ports that do
 * not lead to a switch or lead nowhere), port 0 holding the least of them
 * (0 for the switch's own LID), as OpenSM writes its hop rows. The values
 * come from the result's hop matrix when it has one (1 + the neighbour's
 * hops), else from shortest paths.
 */
int ibr_result_write_lid_matrix(ibr_buffer *out, const ibr_result *r)
{
    return write_all_switches(out, r, IBR_SWITCH_DUMP_LID_MATRIX);
}
