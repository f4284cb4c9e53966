/*
 * file: tables loaded from text, as OpenSM's file engine loads them.
 *
 * Two STRING settings, either or both:
 *   file.lid_matrix  hop rows in the opensm-lid-matrix.dump format
 *                    ("Switch: guid 0x<GUID>" then "0x<LID>: <hops per port
 *                    0..N in hex> [# portguid ...]");
 *   file.lfts        forwarding tables: opensm-lfts.dump, ibroute or
 *                    dump_lfts / dump_fts output ("Unicast lids ... guid
 *                    0x<GUID> ..." then "0x<LID> <port> ...").
 *
 * The engine first builds the hop matrix: the shortest paths over active
 * links, with the rows the lid matrix gives for switch LIDs replacing the
 * computed ones on the switches it lists (the hop count toward a switch is
 * the least value over that switch's switch-link ports, the candidate ports
 * those reaching it). The toolkit's LFT builder then balances the routes
 * over the candidate ports, as minhop does (so a lid matrix alone means
 * "minimum-hop port selection over the loaded hop rows"). Finally every
 * switch the LFT text lists gets exactly the table the text gives (entries
 * not given: no route); switches it does not list keep the computed table.
 *
 * The LFT text is read by the reader ibr_result_parse_lfts() (and so
 * `ibr verify`) uses, formats/lfts_read.c, so the two accept the same
 * texts. As in OpenSM: unknown switch GUIDs are skipped with their rows,
 * an entry that names its destination port GUID follows that port's
 * current LIDs, "Multicast mlids" blocks are skipped, '#' lines and other
 * text (column titles, trailers) are ignored. Beyond OpenSM: a port past
 * the switch's last port, a LID beyond the topology, a malformed header,
 * entry or row, an entry outside a block, a switch listed twice, or an
 * LFT text without a single "Unicast lids" block (junk, an empty or
 * wrong file) fails the engine with a message naming the setting and the
 * line, so the chain falls back. Rows for LIDs that are not switch LIDs
 * are read and ignored (OpenSM writes only switch LIDs).
 *
 * Time: O(S·(S+E)) for the hop matrix, the builder's cost, and O(text) for
 * the parsing. Memory: S^2 bytes (hop matrix) plus, with a lid matrix, S^2
 * bytes (computed copy) and (N+1)·S bytes per listed switch of N ports.
 */
#include <inttypes.h>
#include <string.h>

#include "core/messages.h"
#include "engines/engine_int.h"
#include "formats/lfts_reader.h"

#define NO_HOP 0xFFu

/* ------------------------------------------------------------------ */
/* opensm-lid-matrix.dump                                             */

typedef struct fmatrix {
    const ibr_topo *t;
    uint32_t S;
    uint8_t *base;     /* S x S computed hop matrix (shortest paths) */
    uint8_t **rows;    /* per switch: S x (nports + 1) loaded values, or NULL */
    uint8_t **given;   /* per switch: S flags (row loaded), or NULL */
} fmatrix;

/* The reader's block(): room for switch sw's rows, once. */
static int matrix_block(void *arg, uint32_t sw)
{
    fmatrix *m = arg;
    ibr_context *ctx = m->t->ctx;
    if (m->rows[sw])
        return 0;
    size_t w = (size_t)m->t->nodes[m->t->sw_node[sw]].nports + 1;
    m->rows[sw] = ibr__malloc(ctx, (size_t)m->S * w);
    m->given[sw] = ibr__calloc(ctx, m->S, 1);
    if (!m->rows[sw] || !m->given[sw])
        return IBR_ENOMEM;
    memset(m->rows[sw], NO_HOP, (size_t)m->S * w);
    return 0;
}

/* The reader's row(): kept when lid is a switch LID (the ports beyond the
   switch's last are dropped). */
static void matrix_row(void *arg, uint32_t sw, uint64_t lid, const uint8_t *hops, unsigned n)
{
    fmatrix *m = arg;
    const ibr_topo *t = m->t;
    if (lid > t->max_lid || t->lid_port[lid] == IBR_NONE ||
        t->nodes[t->port_node[t->lid_port[lid]]].type != IBR_NODE_SWITCH ||
        t->ports[t->lid_port[lid]].lid != lid)
        return;
    uint32_t d = t->nodes[t->port_node[t->lid_port[lid]]].sw;
    size_t w = (size_t)t->nodes[t->sw_node[sw]].nports + 1;
    memcpy(m->rows[sw] + (size_t)d * w, hops, n < w ? n : w);
    m->given[sw][d] = 1;
}

/* opensm-lid-matrix.dump through the shared reader (formats/lfts_reader.h). */
static int matrix_parse(ibr_run *run, fmatrix *m, const char *text, size_t len)
{
    ibr__matrix_reader rd;
    memset(&rd, 0, sizeof rd);
    rd.t = m->t;
    rd.block = matrix_block;
    rd.row = matrix_row;
    rd.arg = m;
    int rc = ibr__lid_matrix_read(&rd, text, len);
    if (rc == IBR_ENOMEM)
        return ibr_run_fail(run, IBR_ENOMEM, "out of memory");
    if (rc < 0)
        return ibr__fail(run, rc, "file.lid_matrix %s", rd.msg);
    return 0;
}

/* Candidate ports of switch sw toward every switch: the loaded rows where
   given, else the neighbours one hop closer on the computed matrix. */
static void matrix_cands(void *arg, uint32_t sw, uint32_t *cand_off, uint8_t *cand)
{
    const fmatrix *m = arg;
    const ibr_topo *t = m->t;
    uint32_t S = m->S, k = 0;
    const ibr__adj *a = t->adj + t->adj_off[sw], *ae = t->adj + t->adj_off[sw + 1];
    size_t w = (size_t)t->nodes[t->sw_node[sw]].nports + 1;
    for (uint32_t d = 0; d < S; d++) {
        cand_off[d] = k;
        if (d == sw)
            continue;
        if (m->given[sw] && m->given[sw][d]) {
            const uint8_t *row = m->rows[sw] + (size_t)d * w;
            unsigned best = NO_HOP;
            for (const ibr__adj *x = a; x < ae; x++)
                if (row[x->port] < best)
                    best = row[x->port];
            if (best == NO_HOP)
                continue;
            for (const ibr__adj *x = a; x < ae; x++)
                if (row[x->port] == best)
                    cand[k++] = x->port;
        } else {
            unsigned h = m->base[(size_t)sw * S + d];
            if (h == NO_HOP || h == 0)
                continue;
            for (const ibr__adj *x = a; x < ae; x++)
                if (m->base[(size_t)x->sw * S + d] == h - 1)
                    cand[k++] = x->port;
        }
    }
    cand_off[S] = k;
}

/* The run's hop matrix with the loaded rows in place. */
static void matrix_apply(const fmatrix *m, uint8_t *hops)
{
    const ibr_topo *t = m->t;
    uint32_t S = m->S;
    for (uint32_t sw = 0; sw < S; sw++) {
        if (!m->given[sw])
            continue;
        const ibr__adj *a = t->adj + t->adj_off[sw], *ae = t->adj + t->adj_off[sw + 1];
        size_t w = (size_t)t->nodes[t->sw_node[sw]].nports + 1;
        for (uint32_t d = 0; d < S; d++) {
            if (d == sw || !m->given[sw][d])
                continue;
            const uint8_t *row = m->rows[sw] + (size_t)d * w;
            unsigned best = NO_HOP;
            for (const ibr__adj *x = a; x < ae; x++)
                if (row[x->port] < best)
                    best = row[x->port];
            hops[(size_t)sw * S + d] = (uint8_t)best;
        }
    }
}

static void matrix_free(ibr_context *ctx, fmatrix *m)
{
    if (m->rows)
        for (uint32_t s = 0; s < m->S; s++)
            ibr__free(ctx, m->rows[s]);
    if (m->given)
        for (uint32_t s = 0; s < m->S; s++)
            ibr__free(ctx, m->given[s]);
    ibr__free(ctx, m->rows);
    ibr__free(ctx, m->given);
    ibr__free(ctx, m->base);
}

/* ------------------------------------------------------------------ */
/* LFT text                                                           */

/* The shared LFT dump reader (formats/lfts_reader.h), as ibr verify reads
   the same text, with OpenSM's file engine's one difference: blocks of
   switches the topology lacks are skipped. */
static uint8_t *run_table(void *arg, uint32_t sw)
{
    return ibr_run_lft(arg, sw);
}

static int lfts_load(ibr_run *run, const char *text, size_t len)
{
    ibr__lfts_reader rd;
    memset(&rd, 0, sizeof rd);
    rd.t = ibr_run_topo(run);
    rd.skip_unknown = 1;
    rd.table = run_table;
    rd.arg = run;
    int rc = ibr__lfts_read(&rd, text, len);
    if (rc == IBR_ENOMEM)
        return ibr_run_fail(run, IBR_ENOMEM, "out of memory");
    if (rc < 0)
        return ibr__fail(run, rc, "file.lfts%s%s", strncmp(rd.msg, "line ", 5) == 0 ? " " : ": ",
                         rd.msg);
    return 0;
}

/* ------------------------------------------------------------------ */

static int file_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    ibr_context *ctx = ibr__run_ctx(run);
    const char *lfts, *mx;
    size_t lfts_len, mx_len;
    int rc;
    if ((rc = ibr_run_setting_str(&lfts, &lfts_len, run, "lfts")) < 0 ||
        (rc = ibr_run_setting_str(&mx, &mx_len, run, "lid_matrix")) < 0)
        return ibr_run_fail(run, rc, "cannot read the settings");
    if (!lfts_len && !mx_len)
        return ibr_run_decline(
            run, IBR__MSG("EN015", "no tables given (set file.lfts and/or file.lid_matrix, "
                                   "or --lfts-file/--lid-matrix-file)"));
    if ((rc = ibr_run_progress(run, "file: hop matrix", 0, 1)) < 0)
        return rc;
    uint8_t *hops;
    if ((rc = ibr__engine_hops(&hops, run, t)) < 0)
        return ibr_run_fail(run, rc, "out of memory");
    if (!mx_len) {
        rc = ibr_run_ucast(run, hops, NULL, NULL, "file: forwarding tables");
    } else {
        fmatrix m;
        uint32_t S = t->n_sw;
        memset(&m, 0, sizeof m);
        m.t = t;
        m.S = S;
        m.base = ibr__malloc(ctx, (size_t)S * S + 1);
        m.rows = ibr__calloc(ctx, S + 1, sizeof *m.rows);
        m.given = ibr__calloc(ctx, S + 1, sizeof *m.given);
        if (!m.base || !m.rows || !m.given) {
            matrix_free(ctx, &m);
            return ibr_run_fail(run, IBR_ENOMEM, "out of memory");
        }
        memcpy(m.base, hops, (size_t)S * S);
        rc = matrix_parse(run, &m, mx, mx_len);
        if (rc == 0) {
            matrix_apply(&m, hops);
            rc = ibr_run_ucast(run, hops, matrix_cands, &m, "file: forwarding tables");
            /* multicast: OpenSM's default trees over the loaded hop rows
               (without a lid matrix the library's plain minimum hops are
               OpenSM's too) */
            if (rc == 0 && ibr_run_mcast_groups(run))
                rc = ibr_run_mcast_default(run, hops, matrix_cands, &m);
        }
        matrix_free(ctx, &m);
    }
    if (rc < 0)
        return rc;
    if (lfts_len) {
        if ((rc = ibr_run_progress(run, "file: loading LFTs", 0, 1)) < 0)
            return rc;
        rc = lfts_load(run, lfts, lfts_len);
    }
    return rc;
}

static const ibr_setting file_settings[] = {
    {.name = "lfts",
     .type = IBR_SETTING_STRING,
     .help = "LFT text (opensm-lfts.dump, ibroute or dump_lfts output) replacing the tables "
             "of the switches it lists (OpenSM's -U)"},
    {.name = "lid_matrix",
     .type = IBR_SETTING_STRING,
     .help = "hop rows (opensm-lid-matrix.dump) replacing the computed ones of the switches "
             "it lists; ports are chosen among the least-hop ones (OpenSM's -M)"},
};

const ibr_engine ibr__engine_file = {
    .version = IBR_ENGINE_VERSION,
    .name = "file",
    .description = "tables loaded from text: LFT dumps and/or hop rows (OpenSM's file engine)",
    .caps = IBR_CAP_LMC,
    .route = file_route,
    .settings = file_settings,
    .n_settings = 2,
};
