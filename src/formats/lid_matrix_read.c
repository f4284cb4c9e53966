/*
 * Reading opensm-lid-matrix.dump (what ibr_result_write_lid_matrix() and
 * OpenSM write) for the file engine, over the shared lexer: a block starts
 * at a "Switch ... guid 0x<switch GUID>" line; its rows are "0x<LID>:
 * <hop values per port 0..N, hex bytes> [# comment]". Blocks of GUIDs that
 * are not switches of the topology are skipped with their rows, as
 * OpenSM's file engine skips them; '#' lines and other text are ignored.
 */
#include <string.h>

#include "core/messages.h"
#include "core/internal.h"
#include "formats/lex.h"
#include "formats/lfts_reader.h"

/* Hex digits at the cursor (no prefix), 1..16 of them, value <= max. */
static int hex_field(ibr__cur *c, uint64_t max, uint64_t *out)
{
    int n = ibr__cur_num(c, IBR__NUM_HEX, max, out);
    return n > 0 && n <= 16 ? 0 : -1;
}

/* A block header: *sw the switch, IBR_NONE for a GUID the topology lacks
   or that is not a switch; -1 for a malformed header. */
static int header(const ibr_topo *t, ibr__cur c, uint32_t *sw)
{
    const char *g = ibr__cur_find(&c, " guid 0x");
    uint64_t guid;
    uint32_t node;
    if (!g)
        return -1;
    c.p = g + 8;
    if (hex_field(&c, UINT64_MAX, &guid) < 0 || !(ibr__cur_end(&c) || ibr__is_blank(*c.p)))
        return -1;
    *sw = IBR_NONE;
    if (ibr_topo_find_guid(&node, NULL, t, guid) == 0 && t->nodes[node].type == IBR_NODE_SWITCH)
        *sw = t->nodes[node].sw;
    return 0;
}

/* A row: the LID and up to 256 hop values. */
static int row(ibr__cur c, uint64_t *lid, uint8_t *hops, unsigned *n)
{
    uint64_t v;
    c.p += 2; /* "0x" */
    if (hex_field(&c, 0xFFFF, lid) < 0 || !(ibr__cur_end(&c) || *c.p == ':' || ibr__is_blank(*c.p)))
        return 1;
    if (ibr__cur_at(&c, ':'))
        c.p++;
    for (*n = 0;;) {
        ibr__cur_skip_blanks(&c);
        if (ibr__cur_end(&c) || *c.p == '#')
            return 0;
        if (*n >= 256 || hex_field(&c, 0xFF, &v) < 0 || !(ibr__cur_end(&c) || ibr__is_blank(*c.p)))
            return 2;
        hops[(*n)++] = (uint8_t)v;
    }
}

int ibr__lid_matrix_read(ibr__matrix_reader *rd, const char *buf, size_t len)
{
    const ibr_topo *t = rd->t;
    uint8_t hops[256];
    uint32_t cur = IBR_NONE;
    ibr__lex lx;
    int rc;
    rd->msg[0] = 0;
    ibr__lex_init(&lx, buf, len);
    while (ibr__lex_entry(&lx)) {
        if (ibr__cur_starts(&lx.c, "Switch")) {
            if (header(t, lx.c, &cur) < 0)
                return ibr__line_err(rd->msg, IBR_EPARSE, lx.line,
                                     IBR__MSG("EN012", "switch line without \" guid 0x<hex>\""));
            if (cur != IBR_NONE && (rc = rd->block(rd->arg, cur)) < 0)
                return rc;
            continue;
        }
        if (!(ibr__cur_starts(&lx.c, "0x") || ibr__cur_starts(&lx.c, "0X")) || cur == IBR_NONE)
            continue;
        uint64_t lid;
        unsigned n;
        rc = row(lx.c, &lid, hops, &n);
        if (rc == 1)
            return ibr__line_err(rd->msg, IBR_EPARSE, lx.line,
                                 IBR__MSG("EN013", "bad row (expected \"0x<LID>: <hops> ...\")"));
        if (rc == 2)
            return ibr__line_err(
                rd->msg, IBR_EPARSE, lx.line,
                IBR__MSG("EN014", "bad hop value (expected at most 256 hex bytes)"));
        rd->row(rd->arg, cur, lid, hops, n);
    }
    return 0;
}
