/*
 * The churn of a reroute (churn.h): what differs between the saved routing
 * and the new one, counted the way a subnet manager sends it, and the
 * saved blocks whose routes crossed what was lost.
 */
#include <string.h>

#include "persist/churn.h"

int ibr__churn_init(ibr__churn *c, ibr_context *ctx, uint32_t n_sw, size_t lft_size)
{
    memset(c, 0, sizeof *c);
    c->n_sw = n_sw;
    c->n_blocks = (lft_size + IBR__LFT_BLOCK - 1) / IBR__LFT_BLOCK;
    size_t ns = n_sw ? n_sw : 1, nb = c->n_blocks ? c->n_blocks : 1;
    c->ent = ibr__calloc(ctx, ns, sizeof *c->ent);
    c->sw_blocks = ibr__calloc(ctx, ns, sizeof *c->sw_blocks);
    c->blk = ibr__calloc(ctx, ns * nb, 1);
    if (!c->ent || !c->sw_blocks || !c->blk) {
        ibr__churn_free(c, ctx);
        return IBR_ENOMEM;
    }
    return 0;
}

void ibr__churn_free(ibr__churn *c, ibr_context *ctx)
{
    ibr__free(ctx, c->ent);
    ibr__free(ctx, c->sw_blocks);
    ibr__free(ctx, c->blk);
    memset(c, 0, sizeof *c);
}

void ibr__churn_recount(ibr__churn *c, uint32_t s, const uint8_t *now, const uint8_t *old,
                        size_t n)
{
    c->entries -= c->ent[s];
    c->blocks -= c->sw_blocks[s];
    c->ent[s] = 0;
    c->sw_blocks[s] = 0;
    uint8_t *b = c->blk + (size_t)s * c->n_blocks;
    for (size_t k = 0; k < c->n_blocks; k++) {
        size_t lo = k * IBR__LFT_BLOCK, hi = lo + IBR__LFT_BLOCK < n ? lo + IBR__LFT_BLOCK : n;
        b[k] = 0;
        if (lo >= hi || !memcmp(now + lo, old + lo, hi - lo))
            continue;
        for (size_t l = lo ? lo : 1; l < hi; l++)
            b[k] = (uint8_t)(b[k] + (now[l] != old[l]));
        c->ent[s] += b[k];
        c->sw_blocks[s] += b[k] != 0;
    }
    c->entries += c->ent[s];
    c->blocks += c->sw_blocks[s];
}

/* Entries and blocks of one switch's row (now, n LIDs) that differ from its
   saved row (old, o LIDs); NULL is a switch without that row. A LID past
   a row's end is unrouted. */
static void row_churn(uint64_t *ent, uint32_t *blocks, const uint8_t *now, size_t n,
                      const uint8_t *old, size_t o)
{
    size_t L = n > o ? n : o;
    if (!now)
        n = 0;
    if (!old)
        o = 0;
    for (size_t lo = 0; lo < L; lo += IBR__LFT_BLOCK) {
        size_t hi = lo + IBR__LFT_BLOCK < L ? lo + IBR__LFT_BLOCK : L;
        size_t first = lo ? lo : 1; /* LID 0 is not an entry */
        if (hi <= n && hi <= o && !memcmp(now + first, old + first, hi - first))
            continue;
        uint32_t c = 0;
        for (size_t l = first; l < hi; l++) {
            unsigned a = l < n ? now[l] : IBR_NO_ROUTE, b = l < o ? old[l] : IBR_NO_ROUTE;
            c += a != b;
        }
        *ent += c;
        *blocks += c > 0;
    }
}

/* Bucket of ibr_reroute_report::lft_blocks_hist for nb > 0 blocks. */
static unsigned block_bucket(uint32_t nb)
{
    unsigned k = 0;
    while (nb > 1 && k + 1 < IBR_REROUTE_BLOCK_BUCKETS) {
        nb >>= 1;
        k++;
    }
    return k;
}

static void lft_churn(ibr_reroute_report *rep, const ibr_routing_db *db, const ibr_result *r,
                      const uint32_t *swmap, const ibr__churn *tracked)
{
    const ibr_topo *t = r->topo;
    rep->lft_entries_changed = 0;
    rep->switches_changed = 0;
    rep->lft_blocks_changed = 0;
    rep->lft_blocks_max = 0;
    memset(rep->lft_blocks_hist, 0, sizeof rep->lft_blocks_hist);
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint64_t ent = 0;
        uint32_t nb = 0;
        if (tracked) {
            ent = tracked->ent[s];
            nb = tracked->sw_blocks[s];
        } else {
            uint32_t ds = swmap[s];
            row_churn(&ent, &nb, r->lft + (size_t)s * r->lft_size, r->lft_size,
                      ds != IBR_NONE ? db->lft + (size_t)ds * db->lft_size : NULL, db->lft_size);
        }
        if (!ent)
            continue;
        rep->lft_entries_changed += ent;
        rep->switches_changed++;
        rep->lft_blocks_changed += nb;
        if (nb > rep->lft_blocks_max)
            rep->lft_blocks_max = nb;
        rep->lft_blocks_hist[block_bucket(nb)]++;
    }
}

/* The mapping of a side without SL2VL tables. */
static const uint8_t default_sl2vl[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* What the SL2VL tables are compared by. The database keeps the engine's
   maps, from before the QoS manager when the saved routing had QoS. */
enum {
    SL2VL_PROGRAMMED, /* the saved routing had no QoS: its maps are what it
                         programmed; r's programmed maps against them */
    SL2VL_ENGINE,     /* QoS on both sides with the same configuration: the
                         engine's maps, from which it programs the tables */
    SL2VL_UNKNOWN     /* QoS saved, and now another configuration or none:
                         what was programmed is not kept, every table counts */
};

static int sl2vl_basis(const ibr_routing_db *db, const ibr_result *r)
{
    if (!db->qos)
        return SL2VL_PROGRAMMED;
    if (r->qos && !strcmp(r->qos_conf ? r->qos_conf : "", db->qos_conf ? db->qos_conf : ""))
        return SL2VL_ENGINE;
    return SL2VL_UNKNOWN;
}

/* Switch SL2VL tables (one per input and output port) that differ. */
static uint64_t switch_sl2vl_churn(const ibr_routing_db *db, const ibr_result *r,
                                   const uint32_t *swmap, int basis)
{
    const ibr_topo *t = r->topo;
    const uint8_t *maps = basis == SL2VL_ENGINE ? r->pre_sl2vl : r->sl2vl;
    if (!maps && !db->sl2vl && basis != SL2VL_UNKNOWN)
        return 0;
    uint64_t n = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
        uint32_t ds = swmap[s];
        if (ds == IBR_NONE || db->nodes[ds].nports + 1u != w || basis == SL2VL_UNKNOWN) {
            n += w * w; /* a new switch, or another one under its GUID */
            continue;
        }
        const uint8_t *a = maps ? maps + r->sl2vl_off[s] : NULL;
        const uint8_t *b = db->sl2vl ? db->sl2vl + db->sl2vl_off[ds] : NULL;
        if (a && b && !memcmp(a, b, w * w * 16))
            continue;
        for (size_t i = 0; i < w * w; i++)
            n += memcmp(a ? a + i * 16 : default_sl2vl, b ? b + i * 16 : default_sl2vl, 16) != 0;
    }
    return n;
}

uint32_t ibr__churn_ep_port(const ibr_routing_db *db, const ibr_topo *t, const ibr__dbep *e)
{
    uint32_t node;
    if (ibr_topo_find_guid(&node, NULL, t, db->nodes[e->node].guid) < 0 ||
        t->nodes[node].type == IBR_NODE_SWITCH || e->port == 0 ||
        e->port > t->nodes[node].nports)
        return IBR_NONE;
    return t->nodes[node].port_off + e->port;
}

/* End ports' SL2VL tables that differ (by node GUID and port). Without a
   lookup table: the saved maps are compared with the new ones, then the
   new maps that no saved map matched are counted as the new maps that
   differ from the default less those that a saved map was compared with. */
static uint64_t endport_sl2vl_churn(const ibr_routing_db *db, const ibr_result *r, int basis)
{
    const ibr_topo *t = r->topo;
    if (basis == SL2VL_UNKNOWN)
        return t->n_end; /* every end port's table */
    const uint8_t *maps = basis == SL2VL_ENGINE ? r->pre_ep : r->ep_sl2vl;
    const uint8_t *set = basis == SL2VL_ENGINE ? r->pre_ep_set : r->ep_sl2vl_set;
    if (!set)
        maps = NULL;
    uint64_t n = 0, new_nondefault = 0, seen_nondefault = 0;
    for (uint32_t gp = 0; maps && gp < t->n_ports; gp++)
        new_nondefault += set[gp] && memcmp(maps + (size_t)gp * 16, default_sl2vl, 16) != 0;
    for (size_t i = 0; i < db->n_ep; i++) {
        const ibr__dbep *e = &db->ep[i];
        uint32_t gp = ibr__churn_ep_port(db, t, e);
        if (gp == IBR_NONE)
            continue; /* the port is gone: nothing to send */
        const uint8_t *now = maps && set[gp] ? maps + (size_t)gp * 16 : default_sl2vl;
        seen_nondefault += now != default_sl2vl && memcmp(now, default_sl2vl, 16) != 0;
        n += memcmp(now, e->map, 16) != 0;
    }
    return n + new_nondefault - seen_nondefault;
}

/* Path SL entries that differ, by source and destination LID. */
static uint64_t sl_churn(const ibr_routing_db *db, const ibr_result *r, int sl_pairs)
{
    const ibr_topo *t = r->topo;
    size_t L = r->lft_size;
    uint64_t slc = 0;
    if (r->sl_mode == IBR_SL_PER_PAIR && db->sl_mode == IBR_SL_PER_DEST) {
        /* per-destination SLs repaired into per-pair ones: every source
           against its destination's saved SL */
        uint32_t ns = ibr__n_src_slots(t);
        for (uint32_t k = 0; k < ns; k++)
            for (size_t l = 1; l < L; l++)
                slc += r->sl[(size_t)k * L + l] != (l < db->lft_size ? db->sl[l] : 0);
    } else if (r->sl_mode == IBR_SL_PER_DEST || db->sl_mode == IBR_SL_PER_DEST) {
        for (size_t l = 1; l < L; l++) {
            unsigned a = r->sl_mode == IBR_SL_PER_DEST ? r->sl[l] : 0;
            unsigned b = db->sl_mode == IBR_SL_PER_DEST && l < db->lft_size ? db->sl[l] : 0;
            slc += a != b;
        }
    } else if ((r->sl_mode == IBR_SL_PER_PAIR || db->sl_mode == IBR_SL_PER_PAIR) && sl_pairs) {
        uint32_t ns = ibr__n_src_slots(t);
        /* the saved row of each source LID (the first one, as a search
           in row order finds), looked up once */
        uint32_t *row_of = db->sl_mode == IBR_SL_PER_PAIR
                               ? ibr__mallocarray(r->ctx, 65536, sizeof *row_of)
                               : NULL;
        if (row_of) {
            for (size_t i = 0; i < 65536; i++)
                row_of[i] = IBR_NONE;
            for (size_t i = db->n_sl_rows; i-- > 0;)
                row_of[db->sl_src[i]] = (uint32_t)i;
        }
        for (uint32_t sl = 0; sl < ns; sl++) {
            uint16_t base = sl < t->n_end ? t->ports[t->end_port[sl]].lid
                                          : t->ports[t->nodes[t->sw_node[sl - t->n_end]].port_off].lid;
            const uint8_t *old = NULL;
            if (row_of) {
                if (row_of[base] != IBR_NONE)
                    old = db->sl + (size_t)row_of[base] * db->lft_size;
            } else {
                for (size_t i = 0; i < db->n_sl_rows && db->sl_mode == IBR_SL_PER_PAIR; i++)
                    if (db->sl_src[i] == base) {
                        old = db->sl + i * db->lft_size;
                        break;
                    }
            }
            const uint8_t *now = r->sl_mode == IBR_SL_PER_PAIR ? r->sl + (size_t)sl * L : NULL;
            if (now && old && L <= db->lft_size && memcmp(now + 1, old + 1, L - 1) == 0)
                continue; /* the row unchanged (most of a repair's) */
            for (size_t l = 1; l < L; l++) {
                unsigned a = now ? now[l] : 0, b = old && l < db->lft_size ? old[l] : 0;
                slc += a != b;
            }
        }
        ibr__free(r->ctx, row_of);
    }
    return slc;
}

void ibr__churn_report(ibr_reroute_report *rep, const ibr_routing_db *db, const ibr_result *r,
                       const uint32_t *swmap, const ibr__churn *tracked, int sl_pairs)
{
    lft_churn(rep, db, r, swmap, tracked);
    int basis = sl2vl_basis(db, r);
    rep->sl2vl_tables_changed =
        switch_sl2vl_churn(db, r, swmap, basis) + endport_sl2vl_churn(db, r, basis);
    rep->sls_changed = sl_churn(db, r, sl_pairs);
}

/* Does topology switch u still have the saved cable of its saved port p
   (saved switch ds)? */
static int saved_cable_kept(const ibr_routing_db *db, const ibr_topo *t, uint32_t u,
                            uint32_t ds, unsigned p)
{
    const ibr__dbport *dp = &db->ports[db->nodes[ds].port_off + p];
    const ibr__node *n = &t->nodes[t->sw_node[u]];
    if (p > n->nports)
        return 0;
    const ibr__port *pt = &t->ports[n->port_off + p];
    return pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE &&
           t->nodes[pt->remote_node].guid == dp->rguid && pt->remote_port == dp->rport;
}

/* The saved switch cables that topology switch u (saved switch ds) lost,
   as flags per port into lostp (256 bytes). 1 when there is one. */
static int lost_ports(uint8_t *lostp, const ibr_routing_db *db, const ibr_topo *t, uint32_t u,
                      uint32_t ds)
{
    int any = 0;
    memset(lostp, 0, 256);
    for (unsigned p = 1; p <= db->nodes[ds].nports; p++) {
        const ibr__dbport *dp = &db->ports[db->nodes[ds].port_off + p];
        if (dp->rguid && dp->rtype == IBR_NODE_SWITCH && !saved_cable_kept(db, t, u, ds, p)) {
            lostp[p] = 1;
            any = 1;
        }
    }
    return any;
}

/* The switch cables a walk may step back over: for topology switch v
   (saved switch swmap[v]), the neighbours u (saved du) at the other end
   of a saved cable v still has, u's port rp toward v. Kept in one list
   (off per switch) so that the walk for each LID tests only the saved
   entry. */
typedef struct {
    uint32_t u, du;
    uint8_t rp;
} back_edge;

/* The back edges of t, as above; NULL (IBR_ENOMEM) on failure. */
static back_edge *back_edges(const ibr_routing_db *db, const ibr_topo *t, const uint32_t *swmap,
                             uint32_t *off)
{
    back_edge *e = ibr__mallocarray(t->ctx, t->adj_off[t->n_sw] ? t->adj_off[t->n_sw] : 1,
                                    sizeof *e);
    uint32_t n = 0;
    if (!e)
        return NULL;
    for (uint32_t v = 0; v < t->n_sw; v++) {
        off[v] = n;
        if (swmap[v] == IBR_NONE)
            continue;
        const ibr__dbnode *dn = &db->nodes[swmap[v]];
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            const ibr__adj *a = &t->adj[k];
            uint32_t w = a->sw, dw = swmap[w];
            if (dw == IBR_NONE || a->port > dn->nports)
                continue;
            const ibr__dbport *dp = &db->ports[dn->port_off + a->port];
            if (dp->rguid != t->nodes[t->sw_node[w]].guid || dp->rport != a->rport)
                continue; /* not the saved cable */
            e[n++] = (back_edge){.u = w, .du = dw, .rp = a->rport};
        }
    }
    off[t->n_sw] = n;
    return e;
}

/* Walk backwards from the seeds in queue[0..n) toward saved LID l: every
   switch whose saved entry toward l leads onto one already found, over a
   cable both sides have (a back edge), is found too; each found switch
   marks its block of l. The number of blocks newly marked. */
static uint64_t walk_back(const ibr_routing_db *db, const back_edge *e, const uint32_t *off,
                          const uint32_t *swmap, size_t l, uint32_t *queue, uint32_t n,
                          uint32_t *stamp, uint8_t *marks, size_t nb)
{
    uint64_t found = 0;
    const uint8_t *col = db->lft + l;
    size_t L = db->lft_size;
    for (uint32_t h = 0; h < n; h++) {
        uint32_t v = queue[h];
        uint8_t *m = &marks[(size_t)swmap[v] * nb + l / IBR__LFT_BLOCK];
        found += !*m;
        *m = 1;
        for (uint32_t k = off[v]; k < off[v + 1]; k++) {
            uint32_t w = e[k].u;
            if (stamp[w] == l || col[(size_t)e[k].du * L] != e[k].rp)
                continue;
            stamp[w] = (uint32_t)l;
            queue[n++] = w;
        }
    }
    return found;
}

/* hit[j] = row[j] leads over a lost port (lostp, IBR_NO_ROUTE clear; or
   p1 when it is the only one), any[j] |= hit[j], for the w <=
   IBR__LFT_BLOCK entries of row. */
static void seed_hits(uint8_t *restrict hit, uint8_t *restrict any, const uint8_t *restrict row,
                      size_t w, const uint8_t *restrict lostp, uint8_t p1)
{
    if (p1 && w == IBR__LFT_BLOCK) {
        for (unsigned j = 0; j < IBR__LFT_BLOCK; j++) { /* vectorises */
            hit[j] = row[j] == p1 ? 1 : 0;
            any[j] |= hit[j];
        }
        return;
    }
    for (size_t j = 0; j < w; j++) {
        hit[j] = lostp[row[j]];
        any[j] |= hit[j];
    }
}

int ibr__churn_over_lost(uint64_t *out, const ibr_routing_db *db, const ibr_topo *t,
                         const uint32_t *swmap)
{
    ibr_context *ctx = t->ctx;
    uint32_t S = t->n_sw, nu = 0;
    size_t nb = (db->lft_size + IBR__LFT_BLOCK - 1) / IBR__LFT_BLOCK;
    uint8_t lostp[256];
    uint32_t *us = ibr__mallocarray(ctx, S ? S : 1, sizeof *us);
    if (!us)
        return IBR_ENOMEM;
    for (uint32_t u = 0; u < S; u++)
        if (swmap[u] != IBR_NONE && lost_ports(lostp, db, t, u, swmap[u]))
            us[nu++] = u;
    if (nu == 0) {
        ibr__free(ctx, us);
        *out = 0;
        return 0;
    }
    size_t L = db->lft_size;
    uint8_t *lost = ibr__malloc(ctx, (size_t)nu * 256);
    uint32_t *stamp = ibr__calloc(ctx, S, sizeof *stamp);
    uint32_t *queue = ibr__mallocarray(ctx, S, sizeof *queue);
    uint8_t *marks = ibr__calloc(ctx, (size_t)(db->n_sw ? db->n_sw : 1) * (nb ? nb : 1), 1);
    uint32_t *off = ibr__mallocarray(ctx, (size_t)S + 1, sizeof *off);
    back_edge *e = off ? back_edges(db, t, swmap, off) : NULL;
    const uint8_t **rows = ibr__mallocarray(ctx, nu, sizeof *rows);
    uint8_t *hit = ibr__mallocarray(ctx, nu, IBR__LFT_BLOCK);
    uint8_t *one = ibr__malloc(ctx, nu);
    int rc = IBR_ENOMEM;
    if (!lost || !stamp || !queue || !marks || !e || !rows || !hit || !one)
        goto out;
    for (uint32_t i = 0; i < nu; i++) {
        const uint8_t *lp = lost + (size_t)i * 256;
        lost_ports(lost + (size_t)i * 256, db, t, us[i], swmap[us[i]]);
        lost[(size_t)i * 256 + IBR_NO_ROUTE] = 0;
        rows[i] = db->lft + (size_t)swmap[us[i]] * L;
        /* the one port it lost, or 0 when it lost several */
        unsigned k = 0, p1 = 0;
        for (unsigned p = 1; p < IBR_NO_ROUTE; p++) /* 255: no route, never a seed */
            if (lp[p]) {
                k++;
                p1 = p;
            }
        one[i] = (uint8_t)(k == 1 ? p1 : 0);
    }
    uint64_t found = 0;
    /* stamps start at 0; LID 0 is not an entry. The seeds of LID l: the
       switches that lost a cable whose entry toward l leads onto it. The
       rows of those few switches are read 64 LIDs at a time into hit
       flags per row (a compare per byte where a row lost one port), then
       the LIDs some row hits are walked in order */
    for (size_t b = 0; b < L; b += IBR__LFT_BLOCK) {
        size_t w = L - b < IBR__LFT_BLOCK ? L - b : IBR__LFT_BLOCK;
        uint8_t any[IBR__LFT_BLOCK];
        memset(any, 0, sizeof any);
        for (uint32_t i = 0; i < nu; i++)
            seed_hits(hit + (size_t)i * IBR__LFT_BLOCK, any, rows[i] + b, w,
                      lost + (size_t)i * 256, one[i]);
        any[0] &= b > 0;
        for (size_t j = 0; j < w; j++) {
            if (!any[j])
                continue;
            size_t l = b + j;
            uint32_t n = 0;
            for (uint32_t i = 0; i < nu; i++)
                if (hit[(size_t)i * IBR__LFT_BLOCK + j]) {
                    stamp[us[i]] = (uint32_t)l;
                    queue[n++] = us[i];
                }
            found += walk_back(db, e, off, swmap, l, queue, n, stamp, marks, nb);
        }
    }
    *out = found;
    rc = 0;
out:
    ibr__free(ctx, us);
    ibr__free(ctx, rows);
    ibr__free(ctx, hit);
    ibr__free(ctx, one);
    ibr__free(ctx, off);
    ibr__free(ctx, e);
    ibr__free(ctx, lost);
    ibr__free(ctx, stamp);
    ibr__free(ctx, queue);
    ibr__free(ctx, marks);
    return rc;
}
