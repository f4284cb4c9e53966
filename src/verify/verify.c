/*
 * ibr_result_verify(): follow the LFTs from every switch toward every LID,
 * classify each route, and measure hop counts, stretch and link load.
 *
 * Per destination LID the LFT entries of all switches form a functional
 * graph (each switch points to at most one next switch). One pass with an
 * explicit stack resolves every switch to "delivered after k hops" or to the
 * first failure on its way, in O(S) per LID, without recursion. Link loads
 * are then accumulated from the farthest switches inward, so the whole
 * check costs O(L·S) after the O(S·(S+E)) shortest-path matrix.
 *
 * LIDs are processed in blocks of VBLOCK: each block's LFT columns are first
 * copied into a transposed buffer (one contiguous read per switch row), so
 * that the walks read columns from cache rather than striding through the
 * whole LFT. Blocks run in parallel; their counters are merged in block
 * order, so the report does not depend on the number of threads.
 *
 * Each step through an LFT entry is ibr__lft_step() (verify_int.h), the
 * step ibr_result_trace() takes too, so that both classify a route alike.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"
#include "verify/verify_int.h"

enum {
    ST_UNKNOWN = 0,
    ST_ACTIVE, /* on the current walk */
    ST_OK,
    ST_MISSING,
    ST_LOOP,
    ST_BADPORT,
    ST_DOWN,
    ST_DEADEND,
    ST_RESTRICTED,
};

#define VBLOCK 64

typedef struct vstate {
    const ibr_topo *t;
    const ibr_result *r;
    const uint8_t *dist;
    const uint8_t *col;  /* LFT column of the current LID, per switch */
    uint8_t *trans;      /* VBLOCK columns */
    const uint32_t *port_adj; /* global port -> adj index or IBR_NONE */
    uint8_t *st;         /* per switch */
    uint16_t *len;       /* per switch: switch hops to the delivering switch */
    uint32_t *next;      /* per switch: next switch (IBR_NONE at the end) */
    uint32_t *fail_sw;   /* per switch: where its route failed */
    uint32_t *stack;
    const uint32_t *srcw; /* per switch: end ports attached (sources) */
    int beyond_lmc;       /* current LID is past the LMC the routing asked for */
    int strict;           /* empty entries are errors (ibr_verify_report::strict) */
    uint64_t *acc;
    uint32_t *bucket_off;
    uint32_t *bucket;
    uint64_t *load;      /* per adj */
    ibr_verify_report *rep;
} vstate;

/* Is the empty entry of switch s toward the current LID (delivered by
   switch dsw) one the engine's rules leave on purpose: a LID beyond the LMC
   the routing asked for, or a destination the engine's hop matrix says s
   cannot reach under its rules (spine to spine under up/down)? Never when
   it breaks an end-port pair (end_dest: the LID is an end port's; s has
   end ports other than the destination): a pair the fabric connects and
   the tables do not deliver is an error whatever the engine's rules, so
   that the verdict is the one `ibr verify` gives the same tables read from
   a dump, which carries no hop matrix. */
static int restricted(const vstate *v, uint32_t s, uint32_t dsw, int end_dest)
{
    if (v->beyond_lmc)
        return 1;
    if (end_dest && v->srcw[s] > (s == dsw ? 1u : 0u))
        return 0;
    return v->r->hops && v->r->hops[(size_t)s * v->t->n_sw + dsw] == 255;
}

static const char *node_label(const ibr_topo *t, uint32_t sw, char *buf, size_t n)
{
    const ibr__node *nd = &t->nodes[t->sw_node[sw]];
    if (nd->desc[0])
        snprintf(buf, n, "0x%016" PRIx64 " (%s)", nd->guid, nd->desc);
    else
        snprintf(buf, n, "0x%016" PRIx64, nd->guid);
    return buf;
}

static void note_error(vstate *v, uint32_t from, uint32_t at, unsigned lid, int kind)
{
    /* an empty entry goes to first_missing; to first_error only when it
       fails the verdict (strict) or breaks an end-port pair (note_pair) */
    char *dst = kind == ST_MISSING && !v->strict ? v->rep->first_missing : v->rep->first_error;
    if (dst[0])
        return;
    char a[128], b[128];
    const ibr_topo *t = v->t;
    unsigned port = v->col[at];
    const char *what = "";
    switch (kind) {
    case ST_MISSING:
        what = "no route";
        break;
    case ST_LOOP:
        what = "forwarding loop";
        break;
    case ST_BADPORT:
        what = "route to a port that does not exist or is not cabled";
        break;
    case ST_DOWN:
        what = "route over a down link";
        break;
    case ST_DEADEND:
        what = "route leaves the fabric through an end node";
        break;
    }
    /* formatted whole, then cut to the report's field (long switch
       descriptions) */
    char msg[2 * sizeof a + 128];
    snprintf(msg, sizeof msg, "LID %u from switch %s: %s at switch %s port %u", lid,
             node_label(t, from, a, sizeof a), what, node_label(t, at, b, sizeof b), port);
    size_t len = strlen(msg);
    if (len >= sizeof v->rep->first_error)
        len = sizeof v->rep->first_error - 1;
    memcpy(dst, msg, len);
    dst[len] = '\0';
    if (kind == ST_MISSING && !v->rep->first_missing[0])
        memcpy(v->rep->first_missing, dst, sizeof v->rep->first_missing);
}

/* Next hop of switch s toward the LID that switch dsw delivers by port
   dport: returns a state (ST_OK with *next set to the next switch or
   IBR_NONE when delivered here, or a failure). */
static int step(const vstate *v, uint32_t s, uint32_t dsw, unsigned dport, uint32_t *next)
{
    unsigned in;
    *next = IBR_NONE;
    switch (ibr__lft_step(next, &in, v->t, s, v->col[s], dsw, dport)) {
    case IBR_HOP_FORWARDED:
    case IBR_HOP_DELIVERED:
        return ST_OK;
    case IBR_HOP_NO_ROUTE:
        return ST_MISSING;
    case IBR_HOP_DOWN_LINK:
        return ST_DOWN;
    case IBR_HOP_DEAD_END:
        return ST_DEADEND;
    default: /* IBR_HOP_NOT_OWNER, IBR_HOP_NO_PORT, IBR_HOP_UNCABLED */
        return ST_BADPORT;
    }
}

/* Resolve the route from switch s0 toward dsw (port dport): walk until a
   resolved switch, a failure or a revisit, then mark every switch on the
   walk with the outcome and, when it arrives, its length. */
static void walk_from(vstate *v, uint32_t s0, uint32_t dsw, unsigned dport)
{
    size_t sp = 0;
    uint32_t s = s0;
    int res;
    uint32_t fail_at;
    uint16_t base_len = 0;
    for (;;) {
        v->st[s] = ST_ACTIVE;
        v->stack[sp++] = s;
        uint32_t nx;
        int k = step(v, s, dsw, dport, &nx);
        v->next[s] = nx;
        if (k != ST_OK) {
            res = k;
            fail_at = s;
            break;
        }
        if (nx == IBR_NONE) {
            res = ST_OK;
            base_len = 0;
            fail_at = IBR_NONE;
            v->len[s] = 0;
            sp--; /* s resolved below with len 0 */
            v->st[s] = ST_OK;
            break;
        }
        if (v->st[nx] == ST_ACTIVE) {
            res = ST_LOOP;
            fail_at = nx;
            break;
        }
        if (v->st[nx] != ST_UNKNOWN) {
            res = v->st[nx];
            fail_at = res == ST_OK ? IBR_NONE : v->fail_sw[nx];
            base_len = res == ST_OK ? v->len[nx] : 0;
            break;
        }
        s = nx;
    }
    /* resolve the stack from its top (closest to the destination) */
    while (sp > 0) {
        uint32_t u = v->stack[--sp];
        v->st[u] = (uint8_t)res;
        if (res == ST_OK) {
            base_len++;
            v->len[u] = base_len;
        } else {
            v->fail_sw[u] = fail_at;
        }
    }
}

/* Count each switch's outcome toward lid in the report (an empty entry
   the engine's own rules explain is restricted, not missing). */
static void count_routes(vstate *v, unsigned lid, uint32_t dsw, int end_dest)
{
    const ibr_topo *t = v->t;
    ibr_verify_report *rep = v->rep;
    size_t nsw = t->n_sw;
    for (uint32_t s = 0; s < nsw; s++) {
        int k = v->st[s];
        if (k == ST_UNKNOWN)
            continue; /* unreachable, counted above */
        rep->routes_checked++;
        switch (k) {
        case ST_OK:
            rep->routes_ok++;
            if (v->len[s] > v->dist[(size_t)s * nsw + dsw])
                rep->nonminimal++;
            break;
        case ST_MISSING:
            if (v->fail_sw[s] == s && restricted(v, s, dsw, end_dest)) {
                /* the engine's own rules leave dsw unreachable from s */
                rep->restricted++;
                rep->routes_checked--;
                v->st[s] = ST_RESTRICTED;
                continue;
            }
            rep->missing++;
            break;
        case ST_LOOP:
            rep->loops++;
            break;
        case ST_BADPORT:
            rep->bad_port++;
            break;
        case ST_DOWN:
            rep->down_link++;
            break;
        case ST_DEADEND:
            rep->dead_end++;
            break;
        }
        if (k != ST_OK)
            note_error(v, s, v->fail_sw[s], lid, k);
    }
}

/* End-to-end statistics toward an end port's lid. Every source switch
   the fabric connects to dsw counts (a restricted one is past the LMC:
   those LIDs are not the routing's). */
static void pair_stats(vstate *v, unsigned lid, uint32_t dsw)
{
    ibr_verify_report *rep = v->rep;
    size_t nsw = v->t->n_sw;
    for (uint32_t s = 0; s < nsw; s++) {
        if (!v->srcw[s] || v->dist[(size_t)s * nsw + dsw] == 255 ||
            v->st[s] == ST_RESTRICTED)
            continue;
        uint64_t w = v->srcw[s] - (s == dsw ? 1u : 0u);
        if (!w)
            continue;
        rep->pairs += w;
        if (v->st[s] != ST_OK) {
            if (v->st[s] == ST_MISSING && !v->strict && !rep->first_error[0]) {
                /* an empty entry that breaks end-port pairs is an error
                   whatever the strictness */
                v->strict = 1;
                note_error(v, s, v->fail_sw[s], lid, ST_MISSING);
                v->strict = 0;
            }
            continue;
        }
        rep->pairs_ok += w;
        unsigned h = v->len[s] + 2u;
        unsigned sh = v->dist[(size_t)s * nsw + dsw] + 2u;
        rep->avg_hops += (double)h * (double)w;
        if (h > rep->max_hops)
            rep->max_hops = h;
        double str = (double)h / (double)sh;
        rep->avg_stretch += str * (double)w;
        if (str > rep->max_stretch)
            rep->max_stretch = str;
    }
}

/* Link loads toward the destination: bucket the arriving switches by
   length and push the source weights inward, farthest first. */
static void link_loads(vstate *v)
{
    const ibr_topo *t = v->t;
    size_t nsw = t->n_sw;
    uint32_t maxlen = 0;
    for (uint32_t s = 0; s < nsw; s++)
        if (v->st[s] == ST_OK && v->len[s] > maxlen)
            maxlen = v->len[s];
    if (maxlen == 0)
        return;
    memset(v->bucket_off, 0, (maxlen + 2) * sizeof *v->bucket_off);
    for (uint32_t s = 0; s < nsw; s++) {
        v->acc[s] = v->srcw[s];
        if (v->st[s] == ST_OK)
            v->bucket_off[v->len[s] + 1]++;
    }
    for (uint32_t l = 1; l <= maxlen + 1; l++)
        v->bucket_off[l] += v->bucket_off[l - 1];
    for (uint32_t s = 0; s < nsw; s++)
        if (v->st[s] == ST_OK)
            v->bucket[v->bucket_off[v->len[s]]++] = s;
    /* bucket_off[l] now marks the end of bucket l; bucket l starts at
       bucket_off[l - 1] (0 for l = 0) */
    for (uint32_t l = maxlen; l >= 1; l--) {
        uint32_t b0 = v->bucket_off[l - 1], b1 = v->bucket_off[l];
        for (uint32_t i = b0; i < b1; i++) {
            uint32_t s = v->bucket[i];
            if (!v->acc[s])
                continue;
            unsigned p = v->col[s];
            uint32_t a = v->port_adj[t->nodes[t->sw_node[s]].port_off + p];
            v->load[a] += v->acc[s];
            v->acc[v->next[s]] += v->acc[s];
        }
    }
}

static void check_lid(vstate *v, unsigned lid)
{
    const ibr_topo *t = v->t;
    ibr_verify_report *rep = v->rep;
    size_t nsw = t->n_sw;
    uint32_t owner = t->lid_port[lid];
    const uint8_t *lftcol = v->col;
    if (owner == IBR_NONE) {
        for (size_t s = 0; s < nsw; s++)
            if (lftcol[s] != IBR_NO_ROUTE)
                rep->spurious++;
        return;
    }
    uint32_t dsw = t->lid_sw[lid];
    unsigned dport = t->lid_swport[lid];
    v->beyond_lmc = ((lid - t->ports[owner].lid) >> v->r->lmc_cap) != 0;
    if (dsw == IBR_NONE) {
        rep->unreachable += nsw;
        return;
    }
    memset(v->st, ST_UNKNOWN, nsw);
    for (uint32_t s0 = 0; s0 < nsw; s0++) {
        if (v->st[s0] != ST_UNKNOWN)
            continue;
        if (v->dist[(size_t)s0 * nsw + dsw] == 255) {
            rep->unreachable++;
            continue;
        }
        walk_from(v, s0, dsw, dport);
    }
    const ibr__node *on = &t->nodes[t->port_node[owner]];
    int end_dest = on->type != IBR_NODE_SWITCH;
    count_routes(v, lid, dsw, end_dest);
    /* end-to-end statistics and link loads only toward end ports */
    if (!end_dest)
        return;
    pair_stats(v, lid, dsw);
    link_loads(v);
}

/* "VL 0: 0x... port 2 -> 0x... port 5 -> (back)" */
static void describe_loop(char *buf, size_t cap, const ibr_topo *t, const uint32_t *cyc,
                          size_t n)
{
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && off + 1 < cap; i++) {
        ibr_channel c;
        ibr__decode_channel(&c, t, cyc[i]);
        const ibr__node *nd = &t->nodes[t->sw_node[c.sw]];
        int w = snprintf(buf + off, cap - off, "%s0x%016" PRIx64 " port %u VL %u",
                         i ? " -> " : "", nd->guid, c.port, c.vl);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    if (n && off + 1 < cap)
        snprintf(buf + off, cap - off, " -> (back to the first)");
}

typedef struct vjob {
    vstate *w;                /* per worker */
    ibr_verify_report *parts; /* per block */
    unsigned max_lid;
} vjob;

static int verify_block(void *arg, unsigned worker, size_t bi)
{
    vjob *j = arg;
    vstate *v = &j->w[worker];
    const ibr_topo *t = v->t;
    size_t nsw = t->n_sw;
    unsigned l0 = 1 + (unsigned)bi * VBLOCK;
    unsigned nb = j->max_lid - l0 + 1 < VBLOCK ? j->max_lid - l0 + 1 : VBLOCK;
    for (uint32_t s = 0; s < nsw; s++) {
        const uint8_t *row = ibr__lft_row(v->r, s) + l0;
        for (unsigned b = 0; b < nb; b++)
            v->trans[(size_t)b * nsw + s] = row[b];
    }
    v->rep = &j->parts[bi];
    for (unsigned b = 0; b < nb; b++) {
        v->col = v->trans + (size_t)b * nsw;
        check_lid(v, l0 + b);
    }
    return 0;
}

/* Does the report show every route working (what ibr_result_verify()
   returns 0 for)? */
static int report_valid(const ibr_verify_report *rep)
{
    int strict = rep->version < 3 || rep->strict;
    int mc_bad = rep->version >= 4 && (rep->mcast_pairs_ok < rep->mcast_pairs ||
                                       rep->mcast_loops || rep->mcast_dead_ends);
    return !((strict && rep->missing) || rep->pairs_ok < rep->pairs || rep->loops ||
             rep->bad_port || rep->down_link || rep->dead_end || mc_bad);
}

static void merge(ibr_verify_report *out, const ibr_verify_report *p)
{
    out->routes_checked += p->routes_checked;
    out->routes_ok += p->routes_ok;
    out->missing += p->missing;
    out->loops += p->loops;
    out->bad_port += p->bad_port;
    out->down_link += p->down_link;
    out->dead_end += p->dead_end;
    out->unreachable += p->unreachable;
    out->spurious += p->spurious;
    out->restricted += p->restricted;
    out->nonminimal += p->nonminimal;
    out->pairs += p->pairs;
    out->pairs_ok += p->pairs_ok;
    out->avg_hops += p->avg_hops;
    out->avg_stretch += p->avg_stretch;
    if (p->max_hops > out->max_hops)
        out->max_hops = p->max_hops;
    if (p->max_stretch > out->max_stretch)
        out->max_stretch = p->max_stretch;
    if (!out->first_error[0] && p->first_error[0])
        memcpy(out->first_error, p->first_error, sizeof out->first_error);
    if (!out->first_missing[0] && p->first_missing[0])
        memcpy(out->first_missing, p->first_missing, sizeof out->first_missing);
}

/* Size of ibr_verify_report per version (see IBR__VERSION_SIZE): version 1
   ended with credit_loop, version 2 added threads, version 3 strict and
   first_missing, version 4 the multicast fields. */
static const size_t report_sizes[] = {0, offsetof(ibr_verify_report, threads),
                                      offsetof(ibr_verify_report, strict),
                                      offsetof(ibr_verify_report, mcast_groups),
                                      sizeof(ibr_verify_report)};

static size_t report_size(unsigned version)
{
    return IBR__VERSION_SIZE(report_sizes, version);
}

int ibr_verify_report_init(ibr_verify_report *rep, unsigned int version)
{
    static const ibr_verify_report def = IBR_VERIFY_REPORT_INIT;
    return ibr__versioned_init(rep, &def, report_size(version), version);
}

/* The work of ibr_result_verify() into a zeroed report of the current
   version. */
static int verify_into(ibr_verify_report *out, const ibr_topo *t, const ibr_result *r,
                       unsigned threads)
{
    ibr_context *ctx = t->ctx;
    size_t nsw = t->n_sw;
    size_t n1 = nsw ? nsw : 1;
    size_t nblocks = (t->max_lid + VBLOCK - 1) / VBLOCK;
    unsigned nw = ibr__resolve_threads(threads);
    if (nw > nblocks)
        nw = nblocks ? (unsigned)nblocks : 1;
    uint8_t *dist = NULL;
    uint32_t *port_adj = NULL, *srcw = NULL;
    vstate *w = NULL;
    ibr_verify_report *parts = NULL;
    int rc = ibr__switch_hops(&dist, t, nw);
    if (rc < 0)
        return rc;
    port_adj = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *port_adj);
    srcw = ibr__calloc(ctx, n1, sizeof *srcw);
    w = ibr__calloc(ctx, nw, sizeof *w);
    parts = ibr__calloc(ctx, nblocks ? nblocks : 1, sizeof *parts);
    if (!port_adj || !srcw || !w || !parts) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (unsigned i = 0; i < nw; i++) {
        vstate *v = &w[i];
        v->t = t;
        v->r = r;
        v->strict = out->strict;
        v->dist = dist;
        v->port_adj = port_adj;
        v->srcw = srcw;
        v->trans = ibr__mallocarray(ctx, n1 * VBLOCK, 1);
        v->st = ibr__mallocarray(ctx, n1, 1);
        v->len = ibr__mallocarray(ctx, n1, sizeof *v->len);
        v->next = ibr__mallocarray(ctx, n1, sizeof *v->next);
        v->fail_sw = ibr__mallocarray(ctx, n1, sizeof *v->fail_sw);
        v->stack = ibr__mallocarray(ctx, n1, sizeof *v->stack);
        v->acc = ibr__mallocarray(ctx, n1, sizeof *v->acc);
        v->bucket_off = ibr__mallocarray(ctx, n1 + 2, sizeof *v->bucket_off);
        v->bucket = ibr__mallocarray(ctx, n1, sizeof *v->bucket);
        v->load = ibr__calloc(ctx, t->n_adj ? t->n_adj : 1, sizeof *v->load);
        if (!v->trans || !v->st || !v->len || !v->next || !v->fail_sw || !v->stack ||
            !v->acc || !v->bucket_off || !v->bucket || !v->load) {
            rc = IBR_ENOMEM;
            goto out;
        }
    }
    for (uint32_t i = 0; i < t->n_ports; i++)
        port_adj[i] = IBR_NONE;
    for (uint32_t s = 0; s < nsw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            port_adj[t->nodes[t->sw_node[s]].port_off + t->adj[e].port] = e;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        if (pt->remote_node != IBR_NONE && t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
            srcw[t->nodes[pt->remote_node].sw]++;
    }
    vjob job = {w, parts, t->max_lid};
    if ((rc = ibr__parallel_for(nw, nblocks, verify_block, &job)) < 0)
        goto out;
    for (size_t b = 0; b < nblocks; b++)
        merge(out, &parts[b]);
    if (out->pairs_ok) {
        out->avg_hops /= (double)out->pairs_ok;
        out->avg_stretch /= (double)out->pairs_ok;
    }
    out->links = t->n_adj;
    uint64_t sum = 0;
    for (uint32_t a = 0; a < t->n_adj; a++) {
        uint64_t load = 0;
        for (unsigned i = 0; i < nw; i++)
            load += w[i].load[a];
        sum += load;
        if (load > out->max_link_load)
            out->max_link_load = load;
    }
    out->mean_link_load = t->n_adj ? (double)sum / (double)t->n_adj : 0.0;
    {
        uint32_t *cyc = NULL;
        size_t clen = 0;
        int free_ = 1;
        if ((rc = ibr__deadlock_check(&free_, &cyc, &clen, t, r)) < 0)
            goto out;
        out->deadlock_free = free_;
        out->credit_loop_length = (unsigned)clen;
        describe_loop(out->credit_loop, sizeof out->credit_loop, t, cyc, clen);
        ibr__free(ctx, cyc);
    }
    if ((rc = ibr__mcast_verify(out, r)) < 0)
        goto out;
    rc = report_valid(out) ? 0 : IBR_EROUTES;
out:
    if (w)
        for (unsigned i = 0; i < nw; i++) {
            vstate *v = &w[i];
            ibr__free(ctx, v->trans);
            ibr__free(ctx, v->st);
            ibr__free(ctx, v->len);
            ibr__free(ctx, v->next);
            ibr__free(ctx, v->fail_sw);
            ibr__free(ctx, v->stack);
            ibr__free(ctx, v->acc);
            ibr__free(ctx, v->bucket_off);
            ibr__free(ctx, v->bucket);
            ibr__free(ctx, v->load);
        }
    ibr__free(ctx, w);
    ibr__free(ctx, parts);
    ibr__free(ctx, dist);
    ibr__free(ctx, port_adj);
    ibr__free(ctx, srcw);
    return rc;
}

int ibr_result_verify(ibr_verify_report *out, const ibr_result *r)
{
    if (!out)
        return IBR_EINVAL;
    size_t size = report_size(out->version);
    if (!size)
        return IBR_EVERSION;
    if (!r || !r->lft || r->status != 0)
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    ibr_verify_report rep;
    memset(&rep, 0, sizeof rep);
    rep.version = out->version;
    rep.threads = out->version >= 2 ? out->threads : 0;
    rep.strict = out->version >= 3 ? out->strict : 1;
    int rc = verify_into(&rep, t, r, rep.threads);
    if (rc == 0 || rc == IBR_EROUTES)
        memcpy(out, &rep, size);
    return rc;
}

/* A JSON number: 9 significant digits, null when not finite. */
static int json_double(ibr_buffer *b, ibr_context *ctx, double v)
{
    return isfinite(v) ? ibr__buf_printf(b, ctx, "%.9g", v) : ibr__buf_puts(b, ctx, "null");
}

/* The length of the text in a report's char array, which a caller may have
   filled to the end without a NUL (strnlen() is POSIX, not ISO C). */
static size_t field_len(const char *s, size_t cap)
{
    const char *nul = memchr(s, 0, cap);
    return nul ? (size_t)(nul - s) : cap;
}

int ibr_verify_report_write_json(ibr_buffer *out, const ibr_verify_report *rep)
{
    if (!out || !rep)
        return IBR_EINVAL;
    if (!report_size(rep->version))
        return IBR_EVERSION;
    size_t mark;
    int rc = ibr__buf_begin(out, NULL, &mark);
    if (rc < 0)
        return rc;
    ibr_context *ctx = out->ctx;
    int valid = report_valid(rep);
    rc = ibr__buf_printf(out, ctx, "{\"valid\": %s, \"status\": \"%s\"",
                         valid ? "true" : "false", ibr_status_name(valid ? 0 : IBR_EROUTES));
#define U(field)                                                                            \
    if (!rc)                                                                                \
        rc = ibr__buf_printf(out, ctx, ", \"" #field "\": %" PRIu64, rep->field);
    U(routes_checked)
    U(routes_ok)
    U(missing)
    U(loops)
    U(bad_port)
    U(down_link)
    U(dead_end)
    U(unreachable)
    U(spurious)
    U(restricted)
    U(nonminimal)
    U(pairs)
    U(pairs_ok)
#undef U
    if (!rc)
        rc = ibr__buf_puts(out, ctx, ", \"avg_hops\": ");
    if (!rc)
        rc = json_double(out, ctx, rep->avg_hops);
    if (!rc)
        rc = ibr__buf_printf(out, ctx, ", \"max_hops\": %u, \"avg_stretch\": ", rep->max_hops);
    if (!rc)
        rc = json_double(out, ctx, rep->avg_stretch);
    if (!rc)
        rc = ibr__buf_puts(out, ctx, ", \"max_stretch\": ");
    if (!rc)
        rc = json_double(out, ctx, rep->max_stretch);
    if (!rc)
        rc = ibr__buf_printf(out, ctx,
                             ", \"links\": %" PRIu64 ", \"max_link_load\": %" PRIu64
                             ", \"mean_link_load\": ",
                             rep->links, rep->max_link_load);
    if (!rc)
        rc = json_double(out, ctx, rep->mean_link_load);
    if (!rc)
        rc = ibr__buf_printf(out, ctx, ", \"deadlock_free\": %s, \"first_error\": ",
                             rep->deadlock_free > 0    ? "true"
                             : rep->deadlock_free == 0 ? "false"
                                                       : "null");
    if (!rc)
        rc = ibr__json_string(out, ctx, rep->first_error,
                              field_len(rep->first_error, sizeof rep->first_error));
    if (!rc)
        rc = ibr__buf_printf(out, ctx, ", \"credit_loop_length\": %u, \"credit_loop\": ",
                             rep->credit_loop_length);
    if (!rc)
        rc = ibr__json_string(out, ctx, rep->credit_loop,
                              field_len(rep->credit_loop, sizeof rep->credit_loop));
    if (!rc && rep->version >= 3) {
        rc = ibr__buf_printf(out, ctx, ", \"strict\": %s, \"first_missing\": ",
                             rep->strict ? "true" : "false");
        if (!rc)
            rc = ibr__json_string(out, ctx, rep->first_missing,
                                  field_len(rep->first_missing, sizeof rep->first_missing));
    }
    if (!rc && rep->version >= 4) {
        rc = ibr__buf_printf(out, ctx,
                             ", \"mcast_groups\": %" PRIu64 ", \"mcast_pairs\": %" PRIu64
                             ", \"mcast_pairs_ok\": %" PRIu64 ", \"mcast_missed\": %" PRIu64
                             ", \"mcast_duplicates\": %" PRIu64 ", \"mcast_loops\": %" PRIu64
                             ", \"mcast_dead_ends\": %" PRIu64 ", \"first_mcast_error\": ",
                             rep->mcast_groups, rep->mcast_pairs, rep->mcast_pairs_ok,
                             rep->mcast_missed, rep->mcast_duplicates, rep->mcast_loops,
                             rep->mcast_dead_ends);
        if (!rc)
            rc = ibr__json_string(out, ctx, rep->first_mcast_error,
                                  field_len(rep->first_mcast_error,
                                            sizeof rep->first_mcast_error));
    }
    if (!rc)
        rc = ibr__buf_putc(out, ctx, '}');
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}
