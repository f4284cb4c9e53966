/*
 * Path SLs of a repaired layered routing (lash, dfsssp, nue): the paths that
 * did not move keep their SL, and each moved path is placed, by checked
 * insertion, into a layer whose channel dependency graph stays acyclic.
 *
 * A path is a (source, destination LID) pair; its channels are the
 * switch-to-switch cables the LFTs lead it over from the source's switch.
 * It moved when one of the entries on its way differs from the saved one
 * (the first such entry changes the rest of the walk; a LID without a
 * saved column moved everywhere). Only the columns the repair wrote can
 * hold one.
 *
 * Layers are VLs. The repair requires one SL-to-VL map shared by every
 * switch port pair (lash, dfsssp and nue program the identity); otherwise the
 * VL of a hop depends on the ports before it, which a layer per VL does
 * not describe, and the caller takes a full reroute.
 *
 * The CDG (src/cdg, one switch graph per VL) is built from the repaired
 * tables, the unmoved paths first, column by column: the paths toward one
 * LID form an in-tree, so the VLs carried by the cable leaving each switch
 * (its own sources' and those of every switch upstream) are propagated
 * leaves first, and each cable gives the dependency on the next one for
 * each VL it carries. That is every dependency of the unmoved paths in
 * O(switches) per LID, whatever the number of sources. The unmoved paths
 * belonged to the saved routing, whose layers were acyclic; a layer that
 * is not (a damaged database) refuses the repair. Then every moved path
 * goes into the layer of its saved SL if that layer stays acyclic with it,
 * else into the first other SL in use whose layer does, else into a new SL
 * whose VL no SL uses yet, while the VLs available allow; else the repair
 * is refused and says which path found no layer. Every path of the result
 * is thus in its SL's layer, and every layer acyclic: the routing is free
 * of credit loops over its LFTs, path SLs and SL2VL tables.
 *
 * nue's routing has no hop matrix and is not minimal: before a column's
 * moved paths are placed, its moved switches join the tree of its unmoved
 * ones again (join_column) by checked insertion in the layer of the
 * column's saved SL, so that the placement mostly keeps that SL: the
 * repair's own choice first, then the other neighbours already joined by
 * the load of their routes (the caller's route_load), so that a switch
 * whose choice closes a cycle does not fall back onto a busy link.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cdg/cdg.h"
#include "persist/reroute_layered.h"

#define NVL 16

typedef struct lay {
    ibr__layer_repair *a;
    const ibr_topo *t;
    ibr_result *r;
    size_t L;
    uint32_t S, ns;
    uint8_t vlmap[16];  /* SL -> VL */
    int ident;          /* vlmap is the identity */
    uint32_t *padj;     /* topo port -> topo->adj index of its switch cable, IBR_NONE */
    uint32_t *slot_off, *slots; /* source slots (SL rows) per switch */
    uint32_t *nx;       /* per switch: adj index of the cable toward the LID, IBR_NONE */
    uint32_t *indeg, *order;
    uint16_t *carry;    /* VLs carried by the cable leaving a switch */
    uint16_t *gown;     /* per switch: SLs of its sources in the columns at hand */
    uint32_t *port_off; /* per switch: its first topo port */
    uint32_t *head;     /* per cable: the switch it leads to */
    uint32_t *slot0;    /* per cable: CDG slot of its dependency on its head's first cable */
    uint32_t *rest, n_rest; /* LIDs whose column differs from their group's */
    uint8_t *moved;
    uint32_t *pending;  /* moved (switch, LID) pairs, two words each */
    size_t n_pending, cap_pending;
    uint32_t *ch;       /* one path's channels */
    uint16_t sl_used;   /* SLs of routed paths */
    uint16_t *col_sl;   /* per LID: the SL (one bit) every source slot has
                           toward it, or 0 (they differ) */
    uint8_t **cols;     /* per-destination SLs (a->sl_rows_same): per LID,
                           the column's SLs per source slot once a moved path
                           may change them, else NULL (all r->sl[l]) */
    uint32_t *opened, n_opened; /* LIDs with a column in cols */
    uint16_t dep_vls;   /* VLs on which some dependency was found */
    uint16_t *dep;      /* per CDG slot: VLs on which the dependency exists */
    uint32_t *log;      /* paths added for the column at hand: (switch, VL) */
    size_t n_log, cap_log;
    uint8_t *keep;      /* the column's saved SLs, per pending source slot */
    size_t cap_keep;
    uint8_t *rowed;     /* per switch: an entry changed here (a->rowed) */
    uint8_t *jst;       /* join_column: per switch, J_JOINED, J_WAIT or J_NONE */
    uint32_t *jlog, *jq; /* join_column: switches joined, switches to retry */
    uint32_t *cand;     /* join_candidates: cables (at most 256 per switch) */
    int64_t *cmx, *csum; /* and the loads of their routes */
    ibr__cdg *g;
} lay;

/* One SL-to-VL map for every switch port pair, or 1 (why set). */
static int uniform_map(lay *c)
{
    const ibr_result *r = c->r;
    for (unsigned i = 0; i < 16; i++)
        c->vlmap[i] = (uint8_t)(i < 15 ? i : 15);
    if (!r->sl2vl)
        return 0;
    int first = 1;
    for (uint32_t s = 0; s < c->S; s++) {
        unsigned np = c->t->nodes[c->t->sw_node[s]].nports;
        const uint8_t *tab = r->sl2vl + r->sl2vl_off[s];
        for (size_t k = 0; k < ((size_t)np + 1) * (np + 1); k++) {
            if (first) {
                memcpy(c->vlmap, tab, 16);
                first = 0;
            } else if (memcmp(c->vlmap, tab + k * 16, 16) != 0) {
                snprintf(c->a->why, sizeof c->a->why,
                         "the SL2VL tables differ between port pairs (switch 0x%016" PRIx64
                         "): a layer per VL does not describe the routing",
                         c->t->nodes[c->t->sw_node[s]].guid);
                return 1;
            }
        }
    }
    return 0;
}

/* Port-to-cable map and the source slots of every switch. */
static int index_topo(lay *c)
{
    const ibr_topo *t = c->t;
    ibr_context *ctx = t->ctx;
    c->padj = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *c->padj);
    c->slot_off = ibr__calloc(ctx, (size_t)c->S + 2, sizeof *c->slot_off);
    c->slots = ibr__mallocarray(ctx, c->ns ? c->ns : 1, sizeof *c->slots);
    if (!c->padj || !c->slot_off || !c->slots)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_ports; i++)
        c->padj[i] = IBR_NONE;
    for (uint32_t s = 0; s < c->S; s++) {
        uint32_t off = t->nodes[t->sw_node[s]].port_off;
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++)
            c->padj[off + t->adj[k].port] = k;
    }
    /* slot k's switch: an end port's peer. The switches' own source slots
       are left out: the promise (and the verifier's credit-loop check, as
       ibdmchk's) covers the traffic of end ports, and switch-to-switch
       paths that turn down and up again (spine to spine through a leaf)
       would close loops that no end port's traffic can take. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t k = 0; k < c->ns && k < t->n_end; k++) {
            const ibr__port *pt = &t->ports[t->end_port[k]];
            if (pt->remote_node == IBR_NONE ||
                t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
                continue;
            uint32_t s = t->nodes[pt->remote_node].sw;
            if (pass == 0)
                c->slot_off[s + 2]++;
            else
                c->slots[c->slot_off[s + 1]++] = k;
        }
        if (pass == 0)
            for (uint32_t s = 0; s < c->S; s++)
                c->slot_off[s + 2] += c->slot_off[s + 1];
    }
    return 0;
}

/* The cable switch s leads LID l onto, IBR_NONE (delivered, unrouted). */
static uint32_t cable_of(const lay *c, uint32_t s, size_t l)
{
    unsigned p = c->r->lft[(size_t)s * c->L + l];
    return p == IBR_NO_ROUTE || p == 0 ? IBR_NONE : c->padj[c->port_off[s] + p];
}

/* Column l's next cables, and the switches in leaves-first order (those
   on a forwarding loop are left out). Returns how many are ordered. */
static uint32_t column(lay *c, size_t l)
{
    uint32_t S = c->S, n = 0, head = 0;
    for (uint32_t s = 0; s < S; s++) {
        c->nx[s] = cable_of(c, s, l);
        c->indeg[s] = 0;
    }
    for (uint32_t s = 0; s < S; s++)
        if (c->nx[s] != IBR_NONE)
            c->indeg[c->head[c->nx[s]]]++;
    for (uint32_t s = 0; s < S; s++)
        if (c->indeg[s] == 0)
            c->order[n++] = s;
    while (head < n) {
        uint32_t s = c->order[head++];
        if (c->nx[s] != IBR_NONE) {
            uint32_t w = c->head[c->nx[s]];
            if (--c->indeg[w] == 0)
                c->order[n++] = w;
        }
    }
    return n;
}

/* Which switches' paths toward l moved: an entry that differs from the
   saved one, here or downstream (order: leaves first, walked backwards). */
static void mark_moved(lay *c, size_t l, uint32_t n)
{
    const ibr__layer_repair *a = c->a;
    const ibr_routing_db *db = a->db;
    uint32_t ol = a->lidmap[l];
    for (uint32_t i = n; i-- > 0;) {
        uint32_t s = c->order[i];
        int m = ol == IBR_NONE ||
                c->r->lft[(size_t)s * c->L + l] != db->lft[(size_t)a->swmap[s] * db->lft_size + ol];
        if (!m && c->nx[s] != IBR_NONE)
            m = c->moved[c->head[c->nx[s]]];
        c->moved[s] = (uint8_t)m;
    }
}

/* Append the pair (a, b) to *v, an array of *n pairs with room for *cap
   (doubled when full). 0 or IBR_ENOMEM. */
static int push_pair(ibr_context *ctx, uint32_t **v, size_t *n, size_t *cap, uint32_t a,
                     uint32_t b)
{
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 256;
        uint32_t *nv = ibr__reallocarray(ctx, *v, ncap, 2 * sizeof *nv);
        if (!nv)
            return IBR_ENOMEM;
        *v = nv;
        *cap = ncap;
    }
    (*v)[2 * *n] = a;
    (*v)[2 * *n + 1] = b;
    (*n)++;
    return 0;
}

static int push_pending(lay *c, uint32_t s, size_t l)
{
    return push_pair(c->t->ctx, &c->pending, &c->n_pending, &c->cap_pending, s, (uint32_t)l);
}

/* The SL of source slot k toward LID l: in the per-pair rows, or in the
   column opened for l (col_open) when the SLs are per destination. */
static inline uint8_t *slp(const lay *c, uint32_t k, size_t l)
{
    return c->cols ? &c->cols[l][k] : &c->r->sl[(size_t)k * c->L + l];
}

/* The SLs of the sources on switch s toward LID l, as a mask. (Columns
   are visited in rising LID order within each stream of LIDs, so the
   rows' cache lines serve 64 LIDs each.) */
static inline uint16_t own_sls(const lay *c, uint32_t s, size_t l)
{
    if (c->col_sl[l])
        return c->slot_off[s + 1] > c->slot_off[s] ? c->col_sl[l] : 0;
    uint16_t m = 0;
    for (uint32_t j = c->slot_off[s]; j < c->slot_off[s + 1]; j++)
        m |= (uint16_t)(1u << (*slp(c, c->slots[j], l) & 15));
    return m;
}

/* The dependencies of the paths whose sources' SLs are gown[s] (per
   switch), over the n switches of c->order and the cables c->nx: the VLs
   each cable carries, leaves first, and for each the dependency on the
   next cable. */
static void propagate(lay *c, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        c->carry[c->order[i]] = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = c->order[i];
        uint32_t e = c->nx[s];
        if (e == IBR_NONE)
            continue;
        uint16_t own = c->gown[s], vls = own;
        c->sl_used |= own;
        if (!c->ident) {
            vls = 0;
            for (unsigned sl = 0; own >> sl; sl++)
                if (own & (1u << sl))
                    vls |= (uint16_t)(1u << c->vlmap[sl]);
        }
        uint16_t cr = c->carry[s] | vls;
        uint32_t w = c->head[e];
        uint32_t f = c->nx[w];
        if (cr && f != IBR_NONE) {
            c->dep[c->slot0[e] + (f - c->t->adj_off[w])] |= cr;
            c->dep_vls |= cr;
        }
        c->carry[w] |= cr;
    }
}

/* A column the repair wrote: its unmoved paths' dependencies; the moved
   ones (with a source) kept for checked insertion. */
static int fill_touched(lay *c, size_t l)
{
    uint32_t n = column(c, l);
    mark_moved(c, l, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = c->order[i];
        uint16_t own = own_sls(c, s, l);
        c->gown[s] = own;
        if (c->nx[s] != IBR_NONE && c->moved[s]) {
            c->sl_used |= own;
            if (own && push_pending(c, s, l) < 0)
                return IBR_ENOMEM;
            c->gown[s] = 0;
        }
    }
    propagate(c, n);
    return 0;
}

/* The unwritten columns of destination switch d's LIDs lids[0 .. nl - 1]:
   those whose entries equal the first one's (usually all: only d's own
   entries toward its ports differ, and they lead onto no cable) share one
   propagation, with their sources' SLs merged; the others get their own. */
static void fill_unwritten(lay *c, uint32_t d, const uint32_t *lids, uint32_t nl)
{
    size_t L = c->L;
    const uint8_t *lft = c->r->lft;
    uint32_t n = column(c, lids[0]);
    for (uint32_t s = 0; s < c->S; s++)
        c->gown[s] = own_sls(c, s, lids[0]);
    for (uint32_t i = 1; i < nl; i++) {
        size_t l = lids[i], l0 = lids[0];
        uint32_t s = 0;
        while (s < c->S && (lft[(size_t)s * L + l] == lft[(size_t)s * L + l0] ||
                            (s == d && cable_of(c, s, l) == cable_of(c, s, l0))))
            s++;
        if (s < c->S) {
            c->rest[c->n_rest++] = (uint32_t)l;
            continue;
        }
        for (s = 0; s < c->S; s++)
            c->gown[s] |= own_sls(c, s, l);
    }
    propagate(c, n);
}

/* The channels of the path from switch s toward LID l. */
static size_t path_from(lay *c, uint32_t s, size_t l)
{
    const ibr_topo *t = c->t;
    size_t n = 0;
    while (n < c->S) {
        unsigned p = c->r->lft[(size_t)s * c->L + l];
        uint32_t e = p == IBR_NO_ROUTE || p == 0
                         ? IBR_NONE
                         : c->padj[t->nodes[t->sw_node[s]].port_off + p];
        if (e == IBR_NONE)
            break;
        c->ch[n++] = e;
        s = t->adj[e].sw;
    }
    return n;
}

/* Place one moved pair's sources. 0, 1 (no layer: why set), or < 0. */
static int place(lay *c, uint32_t s, size_t l)
{
    ibr__layer_repair *a = c->a;
    size_t n = path_from(c, s, l);
    int tried = -1, got = -1;
    for (uint32_t j = c->slot_off[s]; j < c->slot_off[s + 1]; j++) {
        uint8_t *sl = slp(c, c->slots[j], l);
        if (n < 2)
            continue; /* no dependency: any layer */
        if (*sl == tried && got >= 0) {
            /* same saved SL, same path: the same layer */
            a->sls_moved += (unsigned)got != *sl;
            *sl = (uint8_t)got;
            continue;
        }
        tried = *sl;
        got = -1;
        /* the saved SL, the others in use, then a new one */
        for (int k = -1; k < 16 && got < 0; k++) {
            unsigned cand = k < 0 ? *sl : (unsigned)k;
            unsigned v = c->vlmap[cand & 15];
            if (k >= 0 && (cand == *sl || v >= a->vls || cand == 15))
                continue;
            if (k >= 0 && !(c->sl_used & (1u << cand))) {
                /* a new SL only above those in use (the SLs below the
                   engine's first, start_vl, stay free) and on a VL no SL
                   uses: a layer of its own */
                int shared = (c->sl_used >> cand) != 0;
                for (unsigned o = 0; o < 16; o++)
                    shared |= (c->sl_used & (1u << o)) && c->vlmap[o] == v;
                if (shared)
                    continue;
            }
            int rc = ibr__cdg_add_path(c->g, v, c->ch, n, 1, 1);
            if (rc < 0)
                return rc;
            if (rc == 0) {
                got = (int)cand;
                if (push_pair(c->t->ctx, &c->log, &c->n_log, &c->cap_log, s, v) < 0)
                    return IBR_ENOMEM;
                if (!(c->sl_used & (1u << cand))) {
                    c->sl_used |= (uint16_t)(1u << cand);
                    a->layers_opened++;
                }
            }
        }
        if (got < 0) {
            snprintf(a->why, sizeof a->why,
                     "a moved path (switch 0x%016" PRIx64 " to LID %zu) fits no layer within "
                     "the %u VLs available",
                     c->t->nodes[c->t->sw_node[s]].guid, l, a->vls);
            return 1;
        }
        if ((unsigned)got != *sl)
            a->sls_moved++;
        *sl = (uint8_t)got;
    }
    a->paths_moved++;
    return 0;
}

/* The moved paths of one column, pending[i .. j - 1] (LID l), placed
   again after another choice of route: the paths added are taken out,
   the saved SLs and counts put back. */
static int unplace(lay *c, size_t i, size_t j, size_t l, const uint64_t *counts,
                   uint16_t sl_used)
{
    for (size_t k = 0; k < c->n_log; k++) {
        size_t n = path_from(c, c->log[2 * k], l);
        int rc = ibr__cdg_remove_path(c->g, c->log[2 * k + 1], c->ch, n, 1);
        if (rc < 0)
            return rc;
    }
    c->n_log = 0;
    size_t q = 0;
    for (size_t k = i; k < j; k++) {
        uint32_t s = c->pending[2 * k];
        for (uint32_t u = c->slot_off[s]; u < c->slot_off[s + 1]; u++)
            *slp(c, c->slots[u], l) = c->keep[q++];
    }
    c->a->paths_moved = counts[0];
    c->a->sls_moved = counts[1];
    c->a->layers_opened = (unsigned)counts[2];
    c->sl_used = sl_used;
    return 0;
}

/* Entry (w, l) set to port p, through the caller's move_entry when given
   (the traffic it carries moves with it). */
static void write_entry(lay *c, uint32_t w, size_t l, unsigned p)
{
    if (c->a->move_entry)
        c->a->move_entry(c->a->arg, w, l, p);
    else
        c->r->lft[(size_t)w * c->L + l] = (uint8_t)p;
}

/* Another route for the moved path from s toward LID l: a switch on it
   whose paths toward l all moved takes another port (not its current or
   saved one), the try-th such choice: one hop closer to l's switch when
   the routing is minimal (r->hops), else toward a neighbour whose path
   did not move (it avoids every moved switch, so no loop can form) or
   l's switch itself. 0 (changed), 1 (none left). */
static int reroute_path(lay *c, uint32_t s, size_t l, unsigned try)
{
    const ibr_topo *t = c->t;
    const ibr__layer_repair *a = c->a;
    const ibr_routing_db *db = a->db;
    const uint8_t *hops = c->r->hops;
    uint32_t d = t->lid_sw[l], S = c->S, ol = a->lidmap[l];
    uint32_t n = column(c, l);
    mark_moved(c, l, n);
    /* count the choices, then take one */
    uint32_t nc = 0, pick = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t k = 0, idx = 0;
        for (uint32_t w = s; w != d && c->nx[w] != IBR_NONE && k <= S; w = c->head[c->nx[w]], k++) {
            if (!c->moved[w])
                continue;
            unsigned cur = c->r->lft[(size_t)w * c->L + l];
            unsigned old = ol != IBR_NONE ? db->lft[(size_t)a->swmap[w] * db->lft_size + ol]
                                          : IBR_NO_ROUTE;
            unsigned h = hops ? hops[(size_t)w * S + d] : 0;
            for (uint32_t e = t->adj_off[w]; e < t->adj_off[w + 1]; e++) {
                unsigned p = t->adj[e].port;
                uint32_t z = t->adj[e].sw;
                int fit = hops ? h != 0 && hops[(size_t)z * S + d] == h - 1
                               : z == d || (!c->moved[z] && c->nx[z] != IBR_NONE);
                if (p == cur || p == old || !fit)
                    continue;
                if (pass == 1 && idx == pick) {
                    write_entry(c, w, l, p);
                    c->rowed[w] = 1;
                    c->a->entries_changed++;
                    return 0;
                }
                idx++;
            }
        }
        if (pass == 0) {
            nc = idx;
            if (nc == 0)
                return 1;
            pick = (uint32_t)(((uint64_t)try * 2654435761u + l) % nc);
        }
    }
    return 1;
}

enum { J_NONE, J_JOINED, J_WAIT };

static void set_port(lay *c, uint32_t w, size_t l, unsigned p)
{
    uint8_t *e = &c->r->lft[(size_t)w * c->L + l];
    if (*e == p)
        return;
    write_entry(c, w, l, p);
    c->rowed[w] = 1;
    c->a->entries_changed++;
}

/* The cables of switch w toward neighbours already in column l's tree,
   its current next hop first, then the others by the load of their
   routes (the caller's route_load: least busy link, then least load; in
   cable order without it, or among equals), into c->cand; their count. */
static uint32_t join_candidates(lay *c, uint32_t w, size_t l)
{
    const ibr_topo *t = c->t;
    const ibr__layer_repair *a = c->a;
    uint32_t cur = cable_of(c, w, l), n = 0;
    if (cur != IBR_NONE && c->jst[t->adj[cur].sw] == J_JOINED)
        c->cand[n++] = cur;
    uint32_t first = n;
    for (uint32_t e = t->adj_off[w]; e < t->adj_off[w + 1]; e++) {
        if (e == cur || c->jst[t->adj[e].sw] != J_JOINED)
            continue;
        int64_t mx = 0, sum = 0;
        if (a->route_load)
            a->route_load(a->arg, w, l, t->adj[e].port, &mx, &sum);
        /* insertion by (mx, sum): stable, so equals keep cable order */
        uint32_t k = n;
        while (k > first && (c->cmx[k - 1] > mx || (c->cmx[k - 1] == mx && c->csum[k - 1] > sum))) {
            c->cand[k] = c->cand[k - 1];
            c->cmx[k] = c->cmx[k - 1];
            c->csum[k] = c->csum[k - 1];
            k--;
        }
        c->cand[k] = e;
        c->cmx[k] = mx;
        c->csum[k] = sum;
        n++;
    }
    return n;
}

/* Switch w joins column l's tree in layer v through a neighbour already
   in it, its current next hop first, then by the load of the route
   (join_candidates): the first whose path (w's cable to it, then its own
   path) keeps the layer acyclic; the path is added and w logged. 0
   (joined), 1 (none fits), or < 0. */
static int try_join(lay *c, uint32_t w, size_t l, unsigned v, size_t *nlog)
{
    const ibr_topo *t = c->t;
    uint32_t nc = join_candidates(c, w, l);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t e = c->cand[i];
        size_t n = path_from(c, t->adj[e].sw, l);
        memmove(c->ch + 1, c->ch, n * sizeof *c->ch);
        c->ch[0] = e;
        int rc = n > 0 ? ibr__cdg_add_path(c->g, v, c->ch, n + 1, 1, 1) : 0;
        if (rc < 0)
            return rc;
        if (rc > 0)
            continue;
        set_port(c, w, l, t->adj[e].port);
        c->jst[w] = J_JOINED;
        c->jlog[(*nlog)++] = w;
        return 0;
    }
    return 1;
}

/* The switches of column l not joined: a shortest extension to those that
   are (a breadth-first search from all of them), keeping the current
   next hop when it is one. */
static void join_rest(lay *c, size_t l)
{
    const ibr_topo *t = c->t;
    uint32_t *dist = c->indeg, nq = 0;
    for (uint32_t s = 0; s < c->S; s++) {
        dist[s] = c->jst[s] == J_JOINED ? 0 : UINT32_MAX;
        if (c->jst[s] == J_JOINED)
            c->jq[nq++] = s;
    }
    for (uint32_t h = 0; h < nq; h++) {
        uint32_t u = c->jq[h];
        for (uint32_t e = t->adj_off[u]; e < t->adj_off[u + 1]; e++) {
            uint32_t w = t->adj[e].sw;
            if (dist[w] != UINT32_MAX || c->jst[w] != J_WAIT)
                continue;
            dist[w] = dist[u] + 1;
            c->jq[nq++] = w;
            uint32_t cur = cable_of(c, w, l);
            if (cur != IBR_NONE && dist[t->adj[cur].sw] == dist[u])
                continue;
            for (uint32_t f = t->adj_off[w]; f < t->adj_off[w + 1]; f++)
                if (t->adj[f].sw == u) {
                    set_port(c, w, l, t->adj[f].port);
                    break;
                }
        }
    }
}

/* nue (no hop matrix): the moved switches of column l (pending[i] the
   first with sources) join the tree of its unmoved ones again, each
   through a neighbour already in it whose route keeps the layer of
   pending[i]'s saved SL acyclic (checked insertion, the repair's own
   choice first); one that finds none waits for another neighbour to join.
   Those left join by shortest extension (the placement then looks for
   other layers). The paths added to check are taken out again. */
static int join_column(lay *c, size_t i, size_t l)
{
    const ibr_topo *t = c->t;
    uint32_t n = column(c, l), d = t->lid_sw[l], nq = 0;
    size_t nlog = 0;
    int rc = 0;
    mark_moved(c, l, n);
    uint32_t s0 = c->pending[2 * i];
    unsigned v = c->vlmap[*slp(c, c->slots[c->slot_off[s0]], l) & 15];
    for (uint32_t s = 0; s < c->S; s++)
        c->jst[s] = s == d || (!c->moved[s] && c->nx[s] != IBR_NONE) ? J_JOINED : J_NONE;
    for (uint32_t k = n; k-- > 0 && rc >= 0;) {
        uint32_t w = c->order[k];
        if (c->jst[w] != J_NONE || c->nx[w] == IBR_NONE)
            continue;
        c->jq[nq++] = w;
        while (nq > 0 && rc >= 0) {
            uint32_t u = c->jq[--nq];
            if (c->jst[u] == J_JOINED)
                continue;
            rc = try_join(c, u, l, v, &nlog);
            if (rc == 1) {
                c->jst[u] = J_WAIT;
                rc = 0;
                continue;
            }
            for (uint32_t e = t->adj_off[u]; rc == 0 && e < t->adj_off[u + 1]; e++)
                if (c->jst[t->adj[e].sw] == J_WAIT && nq < t->n_adj + c->S)
                    c->jq[nq++] = t->adj[e].sw;
        }
    }
    for (size_t k = 0; k < nlog && rc >= 0; k++) {
        size_t m = path_from(c, c->jlog[k], l);
        if (m > 1)
            rc = ibr__cdg_remove_path(c->g, v, c->ch, m, 1);
    }
    if (rc >= 0)
        join_rest(c, l);
    return rc < 0 ? rc : 0;
}

/* The moved paths of each column, pending[i .. j - 1] toward one LID:
   placed; when one fits no layer, the column's placements are undone and
   another shortest route is tried, a few times. 0, 1 (why set), < 0. */
static int place_column(lay *c, size_t i, size_t j)
{
    enum { TRIES = 24 };
    size_t l = c->pending[2 * i + 1], q = 0;
    if (c->cols && !c->cols[l]) { /* the column's SLs, per source slot */
        if (!(c->cols[l] = ibr__malloc(c->t->ctx, c->ns ? c->ns : 1)))
            return IBR_ENOMEM;
        memset(c->cols[l], c->r->sl[l], c->ns ? c->ns : 1);
        c->opened[c->n_opened++] = (uint32_t)l;
    }
    for (size_t k = i; k < j; k++) {
        uint32_t s = c->pending[2 * k];
        q += c->slot_off[s + 1] - c->slot_off[s];
    }
    if (q > c->cap_keep) {
        uint8_t *v = ibr__reallocarray(c->t->ctx, c->keep, q, 1);
        if (!v)
            return IBR_ENOMEM;
        c->keep = v;
        c->cap_keep = q;
    }
    q = 0;
    for (size_t k = i; k < j; k++) {
        uint32_t s = c->pending[2 * k];
        for (uint32_t u = c->slot_off[s]; u < c->slot_off[s + 1]; u++)
            c->keep[q++] = *slp(c, c->slots[u], l);
    }
    int jrc = c->r->hops ? 0 : join_column(c, i, l);
    if (jrc < 0)
        return jrc;
    uint64_t counts[3] = {c->a->paths_moved, c->a->sls_moved, c->a->layers_opened};
    uint16_t used = c->sl_used;
    for (unsigned try = 0;; try++) {
        c->n_log = 0;
        int rc = 0;
        size_t k = i;
        for (; k < j && rc == 0; k++)
            rc = place(c, c->pending[2 * k], l);
        if (rc <= 0)
            return rc;
        uint32_t s = c->pending[2 * (k - 1)];
        if (try + 1 == TRIES)
            return 1;
        if ((rc = unplace(c, i, j, l, counts, used)) < 0)
            return rc;
        if (reroute_path(c, s, l, try) != 0)
            return 1;
        c->a->why[0] = 0;
    }
}

static void lay_free(lay *c)
{
    ibr_context *ctx = c->t->ctx;
    for (uint32_t i = 0; c->cols && i < c->n_opened; i++)
        ibr__free(ctx, c->cols[c->opened[i]]);
    ibr__free(ctx, c->cols);
    ibr__free(ctx, c->opened);
    ibr__free(ctx, c->padj);
    ibr__free(ctx, c->slot_off);
    ibr__free(ctx, c->slots);
    ibr__free(ctx, c->nx);
    ibr__free(ctx, c->indeg);
    ibr__free(ctx, c->order);
    ibr__free(ctx, c->carry);
    ibr__free(ctx, c->moved);
    ibr__free(ctx, c->pending);
    ibr__free(ctx, c->ch);
    ibr__free(ctx, c->log);
    ibr__free(ctx, c->keep);
    ibr__free(ctx, c->gown);
    ibr__free(ctx, c->port_off);
    ibr__free(ctx, c->head);
    ibr__free(ctx, c->slot0);
    ibr__free(ctx, c->rest);
    ibr__free(ctx, c->col_sl);
    ibr__free(ctx, c->jst);
    ibr__free(ctx, c->jlog);
    ibr__free(ctx, c->jq);
    ibr__free(ctx, c->cand);
    ibr__free(ctx, c->cmx);
    ibr__free(ctx, c->csum);
    ibr__free(ctx, c->dep);
    ibr__cdg_destroy(c->g);
}

/* c->col_sl: per LID, the SL every source slot has toward it when they
   all share one (always so for per-destination SLs), read row by row, so
   that the columns need not read the sources' SLs again. 0 or
   IBR_ENOMEM. */
static int column_sls(lay *c)
{
    size_t L = c->L;
    uint32_t n = c->slot_off[c->S];
    uint8_t *same = ibr__malloc(c->t->ctx, L);
    c->col_sl = ibr__calloc(c->t->ctx, L, sizeof *c->col_sl);
    if (!same || !c->col_sl) {
        ibr__free(c->t->ctx, same);
        return IBR_ENOMEM;
    }
    if (n == 0) {
        ibr__free(c->t->ctx, same);
        return 0;
    }
    const uint8_t *row0 = c->cols ? c->r->sl : c->r->sl + (size_t)c->slots[0] * L;
    memset(same, 1, L);
    for (uint32_t k = 1; k < n && !c->a->sl_rows_same; k++) {
        const uint8_t *row = c->r->sl + (size_t)c->slots[k] * L;
        if (memcmp(row, row0, L) == 0)
            continue;
        for (size_t l = 0; l < L; l++)
            same[l] &= row[l] == row0[l];
    }
    for (size_t l = 0; l < L; l++)
        c->col_sl[l] = same[l] ? (uint16_t)(1u << (row0[l] & 15)) : 0;
    ibr__free(c->t->ctx, same);
    return 0;
}

/* The layers of the unmoved paths, filled and ordered. 0, 1 (why set),
   or < 0. */
static int build_layers(lay *c)
{
    ibr_context *ctx = c->t->ctx;
    size_t L = c->L, nslot = ibr__cdg_slot_count(c->g);
    c->dep = ibr__calloc(ctx, nslot ? nslot : 1, sizeof *c->dep);
    if (!c->dep)
        return IBR_ENOMEM;
    /* per cable: its head and the slot of its first possible dependency */
    const ibr_topo *t = c->t;
    for (uint32_t e = 0; e < t->n_adj; e++) {
        uint32_t w = t->adj[e].sw;
        c->head[e] = w;
        c->slot0[e] = t->adj_off[w + 1] > t->adj_off[w]
                          ? ibr__cdg_slot(c->g, e, t->adj_off[w])
                          : 0;
    }
    /* the LIDs by destination switch; written columns one by one */
    uint32_t *off = ibr__calloc(ctx, (size_t)c->S + 2, sizeof *off);
    uint32_t *lids = ibr__mallocarray(ctx, L, sizeof *lids);
    int rc = off && lids ? 0 : IBR_ENOMEM;
    for (size_t l = 1; l < L && rc == 0; l++) {
        if (t->lid_sw[l] == IBR_NONE)
            continue;
        if (c->a->lid_touched[l] || c->a->lidmap[l] == IBR_NONE)
            rc = fill_touched(c, l);
        else
            off[t->lid_sw[l] + 2]++;
    }
    for (uint32_t d = 0; rc == 0 && d < c->S; d++)
        off[d + 2] += off[d + 1];
    for (size_t l = 1; l < L && rc == 0; l++)
        if (t->lid_sw[l] != IBR_NONE && !c->a->lid_touched[l] && c->a->lidmap[l] != IBR_NONE)
            lids[off[t->lid_sw[l] + 1]++] = (uint32_t)l;
    for (uint32_t d = 0; d < c->S && rc == 0; d++) {
        if (off[d + 1] == off[d])
            continue;
        c->n_rest = 0;
        fill_unwritten(c, d, lids + off[d], off[d + 1] - off[d]);
        for (uint32_t i = 0; i < c->n_rest; i++)
            fill_unwritten(c, d, c->rest + i, 1);
    }
    ibr__free(ctx, off);
    ibr__free(ctx, lids);
    /* the layers that have a dependency, filled in one pass over the slots */
    uint64_t *w[NVL] = {NULL};
    for (unsigned v = 0; v < NVL && rc == 0; v++)
        if ((c->dep_vls & (1u << v)) && !(w[v] = ibr__cdg_fill_begin(c->g, v)))
            return IBR_ENOMEM;
    for (size_t k = 0; k < nslot && rc == 0; k++)
        for (unsigned m = c->dep[k]; m; m &= m - 1)
            w[__builtin_ctz(m)][k]++;
    for (unsigned v = 0; v < NVL && rc == 0; v++)
        if (w[v])
            ibr__cdg_fill_end(c->g, v);
    for (unsigned v = 0; v < NVL && rc == 0; v++) {
        int o = ibr__cdg_order(c->g, v);
        if (o < 0)
            return o;
        if (o > 0) {
            snprintf(c->a->why, sizeof c->a->why,
                     "the paths the repair keeps have a credit loop on VL %u (the saved "
                     "routing had one)", v);
            return 1;
        }
    }
    return rc;
}

/* Per-destination SLs (c->cols) back into r: per destination while every
   source of each opened column kept one SL, else as per-pair rows (each
   source its destination's SL but where a moved path took another). 0 or
   IBR_ENOMEM. */
static int sls_back(lay *c)
{
    ibr_result *r = c->r;
    size_t L = c->L;
    int same = 1;
    for (uint32_t i = 0; i < c->n_opened && same; i++) {
        const uint8_t *v = c->cols[c->opened[i]];
        for (uint32_t k = 1; k < c->ns && same; k++)
            same = v[k] == v[0];
    }
    if (same) {
        for (uint32_t i = 0; i < c->n_opened && c->ns; i++)
            r->sl[c->opened[i]] = c->cols[c->opened[i]][0];
        return 0;
    }
    uint8_t *m = ibr__mallocarray(c->t->ctx, c->ns, L);
    if (!m)
        return IBR_ENOMEM;
    for (uint32_t k = 0; k < c->ns; k++) {
        uint8_t *row = m + (size_t)k * L;
        memcpy(row, r->sl, L);
        for (uint32_t i = 0; i < c->n_opened; i++)
            row[c->opened[i]] = c->cols[c->opened[i]][k];
    }
    ibr__free(c->t->ctx, r->sl);
    r->sl = m;
    r->sl_mode = IBR_SL_PER_PAIR;
    return 0;
}

int ibr__reroute_layers(ibr__layer_repair *a)
{
    const ibr_topo *t = a->t;
    ibr_context *ctx = t->ctx;
    lay c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.t = t;
    c.r = a->r;
    c.L = a->r->lft_size;
    c.S = t->n_sw;
    c.ns = ibr__n_src_slots(t);
    a->why[0] = 0;
    int rc = uniform_map(&c);
    if (rc != 0)
        return rc;
    c.ident = 1;
    for (unsigned i = 0; i < 16; i++)
        c.ident &= c.vlmap[i] == i;
    uint32_t S1 = c.S ? c.S : 1;
    c.nx = ibr__mallocarray(ctx, S1, sizeof *c.nx);
    c.indeg = ibr__mallocarray(ctx, S1, sizeof *c.indeg);
    c.order = ibr__mallocarray(ctx, S1, sizeof *c.order);
    c.carry = ibr__mallocarray(ctx, S1, sizeof *c.carry);
    c.moved = ibr__calloc(ctx, S1, 1);
    c.ch = ibr__mallocarray(ctx, (size_t)S1 + 1, sizeof *c.ch);
    c.jst = ibr__mallocarray(ctx, S1, 1);
    c.jlog = ibr__mallocarray(ctx, S1, sizeof *c.jlog);
    c.jq = ibr__mallocarray(ctx, (size_t)t->n_adj + S1, sizeof *c.jq);
    c.cand = ibr__mallocarray(ctx, 256, sizeof *c.cand);
    c.cmx = ibr__mallocarray(ctx, 256, sizeof *c.cmx);
    c.csum = ibr__mallocarray(ctx, 256, sizeof *c.csum);
    c.gown = ibr__mallocarray(ctx, S1, sizeof *c.gown);
    c.port_off = ibr__mallocarray(ctx, S1, sizeof *c.port_off);
    c.head = ibr__mallocarray(ctx, t->n_adj ? t->n_adj : 1, sizeof *c.head);
    c.slot0 = ibr__mallocarray(ctx, t->n_adj ? t->n_adj : 1, sizeof *c.slot0);
    c.rest = ibr__mallocarray(ctx, c.L, sizeof *c.rest);
    if (a->sl_rows_same) {
        c.cols = ibr__calloc(ctx, c.L, sizeof *c.cols);
        c.opened = ibr__mallocarray(ctx, c.L, sizeof *c.opened);
    }
    for (uint32_t s = 0; c.port_off && s < c.S; s++)
        c.port_off[s] = t->nodes[t->sw_node[s]].port_off;
    rc = IBR_ENOMEM;
    if (!c.nx || !c.indeg || !c.order || !c.carry || !c.moved || !c.ch || !c.gown || !c.jst ||
        !c.jlog || !c.jq || !c.cand || !c.cmx || !c.csum ||
        !c.port_off || !c.head || !c.slot0 || !c.rest || (a->sl_rows_same && (!c.cols || !c.opened)) ||
        (rc = index_topo(&c)) < 0 || (rc = ibr__cdg_create_topo(&c.g, t, NVL)) < 0)
        goto out;
    if ((rc = column_sls(&c)) != 0 || (rc = build_layers(&c)) != 0)
        goto out;
    c.rowed = a->rowed;
    for (size_t i = 0, j; i < c.n_pending && rc == 0; i = j) {
        for (j = i + 1; j < c.n_pending && c.pending[2 * j + 1] == c.pending[2 * i + 1]; j++)
            ;
        rc = place_column(&c, i, j);
    }
    if (rc == 0 && c.cols)
        rc = sls_back(&c);
    if (rc == 0) {
        unsigned top = 0, n = 0;
        uint16_t vls = 0;
        for (unsigned sl = 0; sl < 16; sl++)
            if (c.sl_used & (1u << sl))
                vls |= (uint16_t)(1u << c.vlmap[sl]);
        for (unsigned v = 0; v < NVL; v++)
            if (vls & (1u << v)) {
                top = v + 1;
                n++;
            }
        a->vls_used = top;
        a->layers = n;
    }
out:
    lay_free(&c);
    return rc;
}
