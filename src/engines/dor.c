/*
 * dor: OpenSM's dimension-order routing. The min-hop engine with one
 * filter: each switch scans its ports in its *search order* (port number
 * order, or the order given by the port_search_ordering setting), and the
 * first port on a shortest path toward the destination's switch fixes the
 * neighbour R; only the parallel links to R stay candidates. The position
 * of a port in the search order is its dimension, so a route always
 * corrects the lowest dimension that still shortens it. The toolkit's LFT
 * builder then balances each destination over those parallel links only
 * (route counts, then the LMC remote-port tie-breaks), with every LID of a
 * port starting its search at the first candidate (IBR_UCAST_SEARCH_ORDER:
 * no rotation across the LIDs of a port, unlike minhop).
 *
 * Credit-loop freedom follows only on hypercubes and open meshes cabled in
 * dimension order (the same port, or pair of ports, per dimension
 * everywhere); nothing is checked, and a torus routed this way has credit
 * loops, as OpenSM's has. The tables equal OpenSM 3.3's `-R dor`.
 *
 * The search order (OpenSM's port_search_ordering_file, given as text):
 * one line per switch, "<node GUID> <port> <port> ...", '#' starts a
 * comment. The listed ports come first, the others follow in increasing
 * port number. As in OpenSM, a line naming a port that is 0, out of range
 * or repeated, a GUID that is no switch of the fabric, or a switch already
 * ordered by an earlier line is ignored (and logged as a warning); a line
 * with no port leaves the default order. A line that does not start with a
 * GUID makes the engine fail, the message naming the line.
 *
 * Time: O(S·(S+E)) for the hop matrix, O(S·S·P) for the candidate lists
 * (P switch links per switch), plus the builder's selection. Memory: the
 * S^2-byte hop matrix (kept in the result) and O(E) for the ordered links.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/messages.h"
#include "engines/engine_int.h"
#include "formats/lex.h"

#define DOR_SETTING "port_search_ordering"

typedef struct dor_cands {
    const ibr_topo *t;
    const uint8_t *hops;
    const ibr__adj *adj; /* t->adj's rows, each in search order */
} dor_cands;

/* Candidates of switch s toward every switch d: scan s's links in search
   order; the first one leading one hop closer to d fixes the neighbour,
   and every link to that same neighbour (parallel cables) is kept, in
   search order. The hop matrix is symmetric, so row d holds the distances
   from every neighbour to d. */
static void dor_candidates(void *arg, uint32_t s, uint32_t *cand_off, uint8_t *cand)
{
    const dor_cands *c = arg;
    const ibr_topo *t = c->t;
    size_t n = t->n_sw;
    const uint8_t *hs = c->hops + (size_t)s * n;
    const ibr__adj *row = c->adj + t->adj_off[s];
    uint32_t deg = t->adj_off[s + 1] - t->adj_off[s];
    uint32_t k = 0;
    for (uint32_t d = 0; d < n; d++) {
        cand_off[d] = k;
        unsigned hd = hs[d];
        if (d == s || hd == 255)
            continue;
        const uint8_t *rd = c->hops + (size_t)d * n;
        uint32_t e = 0;
        while (e < deg && rd[row[e].sw] + 1u != hd)
            e++;
        if (e == deg)
            continue;
        uint32_t r = row[e].sw;
        for (; e < deg; e++)
            if (row[e].sw == r) /* same neighbour: one hop closer too */
                cand[k++] = row[e].port;
    }
    cand_off[n] = k;
}

static void warn_line(ibr_run *run, size_t line, const char *what, uint64_t guid)
{
    char msg[256];
    snprintf(msg, sizeof msg,
             IBR__MSG("EN009",
                      "dor: " DOR_SETTING " line %zu: %s (switch 0x%016" PRIx64 "); line ignored"),
             line, what, guid);
    ibr_run_log(run, IBR_LOG_WARN, msg);
}

/* Apply one line's port list (text from p to end, comment already cut) to
   switch node `node`: rank[port] = position. Returns 1 when applied, 0 when
   the line is ignored (warned). */
static int apply_line(ibr_run *run, size_t line, uint64_t guid, const ibr__node *sn,
                      const char *p, const char *end, uint8_t *rank)
{
    uint8_t seen[256];
    uint8_t list[256];
    unsigned nl = 0;
    memset(seen, 0, sizeof seen);
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p == end)
            break;
        /* a number in C notation (decimal, 0x hex, leading-0 octal), as
           OpenSM's strtoul(.., 0) reads it */
        char buf[32];
        size_t len = 0;
        while (p + len < end && !isspace((unsigned char)p[len]))
            len++;
        if (len >= sizeof buf) {
            warn_line(run, line, "bad port", guid);
            return 0;
        }
        memcpy(buf, p, len);
        buf[len] = 0;
        char *e;
        errno = 0;
        unsigned long v = strtoul(buf, &e, 0);
        if (e == buf || buf[0] == '-' || errno) {
            warn_line(run, line, "bad port", guid);
            return 0;
        }
        if (v == 0 || v > sn->nports) {
            warn_line(run, line, "port 0 or beyond the switch's ports", guid);
            return 0;
        }
        if (seen[v]) {
            warn_line(run, line, "port listed twice", guid);
            return 0;
        }
        seen[v] = 1;
        list[nl++] = (uint8_t)v;
        /* OpenSM stops reading a port at the first non-digit: "1,2" gives
           port 1, then fails on ",2" */
        if (*e) {
            warn_line(run, line, "bad port", guid);
            return 0;
        }
        p += len;
    }
    if (!nl)
        return 0; /* no port: the default order stays */
    unsigned pos = 1;
    for (unsigned i = 0; i < nl; i++)
        rank[list[i]] = (uint8_t)pos++;
    for (unsigned q = 1; q <= sn->nports; q++)
        if (!seen[q])
            rank[q] = (uint8_t)pos++;
    return 1;
}

/* Parse the search-order text and reorder the rows of `adj` (a copy of
   t->adj) of the switches it names. 0, or a failure returned by
   ibr__fail. */
static int apply_search_order(ibr_run *run, const char *text, size_t len, ibr__adj *adj)
{
    const ibr_topo *t = ibr_run_topo(run);
    ibr_context *ctx = t->ctx;
    uint8_t *listed = NULL;
    int rc = 0;
    ibr__lex lx;
    ibr__lex_init(&lx, text, len);
    while (ibr__lex_line(&lx)) {
        size_t line = lx.line;
        const char *q = lx.c.p;
        const char *cut = memchr(q, '#', (size_t)(lx.c.e - q));
        const char *lend = cut ? cut : lx.c.e;
        if (q == lend)
            continue; /* blank or comment */
        char gbuf[40];
        size_t gl = 0;
        while (q + gl < lend && !isspace((unsigned char)q[gl]))
            gl++;
        char *e = NULL;
        uint64_t guid = 0;
        if (gl < sizeof gbuf && q[0] != '-') {
            memcpy(gbuf, q, gl);
            gbuf[gl] = 0;
            errno = 0;
            guid = strtoull(gbuf, &e, 0);
            if (errno || e == gbuf || *e)
                e = NULL;
        }
        if (!e) {
            rc = ibr__fail(run, IBR_EINVAL,
                           IBR__MSG("EN010", "dor: " DOR_SETTING
                                             " line %zu: expected a switch GUID, found '%.*s'"),
                           line, (int)(gl > 40 ? 40 : gl), q);
            goto out;
        }
        q += gl;
        uint32_t node;
        if (ibr_topo_find_guid(&node, NULL, t, guid) < 0 || t->nodes[node].guid != guid ||
            t->nodes[node].sw == IBR_NONE) {
            warn_line(run, line, "no switch has this node GUID", guid);
            continue;
        }
        const ibr__node *sn = &t->nodes[node];
        uint32_t s = sn->sw;
        if (!listed && !(listed = ibr__calloc(ctx, t->n_sw, 1))) {
            rc = ibr__fail(run, IBR_ENOMEM, "out of memory");
            goto out;
        }
        if (listed[s]) {
            warn_line(run, line, "switch already ordered by an earlier line", guid);
            continue;
        }
        uint8_t rank[256];
        if (!apply_line(run, line, guid, sn, q, lend, rank))
            continue;
        listed[s] = 1;
        /* sort the switch's links by rank (insertion sort: a row holds at
           most 255 links, already in port order) */
        ibr__adj *row = adj + t->adj_off[s];
        uint32_t deg = t->adj_off[s + 1] - t->adj_off[s];
        for (uint32_t i = 1; i < deg; i++) {
            ibr__adj x = row[i];
            uint32_t j = i;
            while (j > 0 && rank[row[j - 1].port] > rank[x.port]) {
                row[j] = row[j - 1];
                j--;
            }
            row[j] = x;
        }
    }
out:
    ibr__free(ctx, listed);
    return rc;
}

static int dor_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    ibr_context *ctx = t->ctx;
    int rc = ibr_run_progress(run, "dor: hop matrix", 0, 1);
    if (rc < 0)
        return rc;
    uint8_t *hops;
    if ((rc = ibr__engine_hops(&hops, run, t)) < 0)
        return ibr_run_fail(run, rc, "out of memory");

    const char *order = "";
    size_t order_len = 0;
    if ((rc = ibr_run_setting_str(&order, &order_len, run, DOR_SETTING)) < 0)
        return ibr_run_fail(run, rc, "dor: cannot read the " DOR_SETTING " setting");
    dor_cands c = {t, hops, t->adj};
    ibr__adj *adj = NULL;
    if (order_len) {
        adj = ibr__mallocarray(ctx, t->n_adj ? t->n_adj : 1, sizeof *adj);
        if (!adj)
            return ibr_run_fail(run, IBR_ENOMEM, "out of memory");
        if (t->n_adj)
            memcpy(adj, t->adj, (size_t)t->n_adj * sizeof *adj);
        if ((rc = apply_search_order(run, order, order_len, adj)) < 0) {
            ibr__free(ctx, adj);
            return rc;
        }
        c.adj = adj;
    }
    rc = ibr_run_ucast_ex(run, hops, dor_candidates, &c, "dor: forwarding tables",
                          IBR_UCAST_SEARCH_ORDER | IBR_UCAST_LMC_REMOTE_PORT);
    ibr__free(ctx, adj);
    return rc;
}

static const ibr_setting dor_settings[] = {
    {DOR_SETTING, IBR_SETTING_STRING, 0, 0, 0, NULL,
     "port search order per switch, the text of OpenSM's port_search_ordering_file: lines "
     "\"<switch GUID> <port> <port> ...\"; a port's position is its dimension (default: port "
     "number order)"},
};

const ibr_engine ibr__engine_dor = {
    .version = IBR_ENGINE_VERSION,
    .name = "dor",
    .description = "dimension-order routing: shortest paths through the lowest dimension (port "
                   "search order), balanced only over parallel links (OpenSM's dor)",
    .caps = IBR_CAP_LMC | IBR_CAP_MINIMAL,
    .route = dor_route,
    .settings = dor_settings,
    .n_settings = 1,
};
