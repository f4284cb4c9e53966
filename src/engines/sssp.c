/*
 * sssp: single-source-shortest-path routing with global balancing, after
 * Hoefler, Schneider and Lumsdaine (HOTI 2009) and OpenSM's sssp engine.
 *
 * The fabric is a directed multigraph: one vertex per switch, one edge per
 * direction of every active switch-to-switch cable (parallel cables are
 * separate edges). Every edge carries a load. The destination LIDs (every
 * LID of every end port and switch, in OpenSM's order: see build_order)
 * are routed one after the other; for each one
 *
 *  1. a shortest-path search from the destination's switch finds, for every
 *     switch, the path of least total load among its paths of least hop
 *     count, and the switch forwards the LID along the first edge of it;
 *  2. every switch X then adds its weight (the LIDs of its port 0 and of
 *     its end ports: OpenSM's num_hca) to the load of every edge on its
 *     path, so the next destination avoids the edges this one loaded.
 *
 * That pass is OpenSM's algorithm. Two more steps then lower the link
 * loads further (ibroute's own; both keep every route minimal):
 *
 *  3. an improvement pass takes each destination's routes out in turn and
 *     routes it again as in 1, now against the loads of every destination
 *     of its group (the first pass saw only the ones before it), keeping
 *     the new routes unless some link would then carry more (end port,
 *     LID) pairs than the busiest link did at the start of the pass;
 *  4. a relief phase takes the busiest links one by one and moves, for the
 *     destinations routed over such a link, the traffic of one switch
 *     beyond it (its subtree) to another next hop one step closer, when
 *     the new path stays below the maximum; it repeats with the new
 *     maximum until some busiest link cannot be relieved, within a budget
 *     of 2 destinations examined per LID.
 *
 * On the fabrics of the OpenSM comparison (fat trees, tori, meshes,
 * hypercubes, dragonflies and random graphs, with and without faults)
 * these give a busiest link up to a third below OpenSM's sssp (typically
 * 20-30 % on irregular fabrics, never above it), at two to three times the
 * work of the first pass.
 *
 * OpenSM gives every edge the weight P^2 + load (P = number of LIDs) and
 * runs Dijkstra over a heap, so that the hop count dominates as long as the
 * loads on a path stay below P^2; on heavily loaded fabrics it can then
 * route around a busy link on a longer path. ibroute compares (hops, load)
 * lexicographically instead, which is the same order whenever OpenSM's
 * stays minimal, and always gives minimal routes. With such keys Dijkstra's
 * queue needs no heap: the switches leave it in order of hop count (a
 * bucket queue read from the all-pairs hop matrix), and a switch's distance
 * is final once the previous level is, so each destination costs O(S + E)
 * instead of O(E log S). Among equally loaded paths the first edge in
 * ascending port order wins (OpenSM's choice depends on its heap order).
 *
 * The compute-node and I/O-node lists (cn_guids, io_guids: port GUIDs)
 * split the end ports into groups routed in that order (compute nodes,
 * then I/O nodes, then the others, then the switches), so each group is
 * balanced before the next adds its load; the improvement pass keeps
 * groups apart by letting a destination see only the loads of its own and
 * earlier groups.
 *
 * Consecutive destinations mostly share their switch (the end ports of
 * one switch come one after the other): the levels, the candidate
 * channels and their loads are then laid out once, in level order, for
 * the whole run of them (the frame), and the switches' own LIDs, one per
 * switch, are routed by one sweep over the channels instead.
 *
 * The loads make destinations depend on each other, so the per-destination
 * work runs on one thread; the all-pairs hop matrix is computed, and the
 * LFTs written, in parallel. Routing destinations in batches against the
 * same loads would parallelise the rest but change the balance (each
 * destination of a batch ignores the others' loads, and consecutive leaves
 * then pick the same least-loaded links): ibroute keeps the sequential
 * semantics, so the tables are the same whatever the thread count. The
 * variants tried and their measurements are in doc/engines.md (sssp).
 *
 * Fabrics whose switches form several components are routed per
 * component (OpenSM refuses them); LIDs in another component keep no
 * route. Router ports are routed like CA ports (OpenSM leaves them out).
 *
 * Time: O(S·(S + E)) for the hop matrix and O(L·(S + E)) for L LIDs per
 * pass (the relief examines at most 2 L destinations, each at the cost of
 * the subtree beyond the relieved channel: its switches, their links and
 * the paths of the moves it tries).
 * Memory: S^2 bytes of hop matrix (kept by the result), O(S + G·E + L)
 * otherwise for G groups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/messages.h"
#include "engines/engine_int.h"
#include "engines/sssp.h"
#include "mcast/loaded.h"

enum { CLS_NONE = 0, CLS_CN = 1, CLS_IO = 2 };

/* The first pass and one improvement pass. */
#define SSSP_PASSES 2
/* destinations examined by the relief, per destination LID */
#define SSSP_RELIEF_BUDGET 2
/* compute nodes, I/O nodes, other end ports, switches */
#define SSSP_MAX_GROUPS 4

typedef struct sw_key {
    uint32_t sw;
    uint32_t hca;
} sw_key;

/* By decreasing weight, then switch index (OpenSM's sort is not stable, so
   its order among equal weights is arbitrary; ours is the table order). */
static int cmp_sw_key(const void *a, const void *b)
{
    const sw_key *x = a, *y = b;
    if (x->hca != y->hca)
        return x->hca > y->hca ? -1 : 1;
    return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* LIDs of port gp that are routed: 2^min(port LMC, option). */
static unsigned port_lids(const ibr_topo *t, uint32_t gp, unsigned lmc_cap)
{
    const ibr__port *p = &t->ports[gp];
    if (!p->lid)
        return 0;
    unsigned lmc = p->lmc < lmc_cap ? p->lmc : lmc_cap;
    return 1u << lmc;
}

/* The end port behind switch port pt (cabled, active, not a switch), as a
   global port index, or IBR_NONE. */
static uint32_t end_behind(const ibr_topo *t, const ibr__port *pt)
{
    if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
        t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
        return IBR_NONE;
    return t->nodes[pt->remote_node].port_off + pt->remote_port;
}

static void add_lids(ibr__sssp *s, const ibr_topo *t, uint32_t gp, unsigned lmc_cap, int group)
{
    unsigned n = port_lids(t, gp, lmc_cap);
    for (unsigned i = 0; i < n; i++) {
        unsigned lid = t->ports[gp].lid + i;
        if (lid > t->max_lid || t->lid_port[lid] != gp || t->lid_sw[lid] == IBR_NONE)
            continue;
        s->group[s->n_dest] = (uint8_t)group;
        s->dlid[s->n_dest++] = (uint16_t)lid;
    }
}

/* Weights and the destination order (the reference note, 1.3): switches by
   decreasing num_hca; the compute nodes' ports of each switch in that
   order, then the I/O nodes' ports, then the other end ports, then the
   switches' own ports; each port's LIDs in turn. */
static int build_order(ibr__sssp *s, const ibr_topo *t, const ibr_options *o)
{
    ibr_context *ctx = t->ctx;
    unsigned lmc_cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    size_t n = t->n_sw;
    sw_key *keys = ibr__mallocarray(ctx, n ? n : 1, sizeof *keys);
    uint8_t *cls = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, 1);
    uint8_t *done = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, 1);
    int rc = 0;
    if (!keys || !cls || !done) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < o->n_io_guids; i++) {
        uint32_t gp = ibr__topo_find_port_guid(t, o->io_guids[i]);
        if (gp != IBR_NONE)
            cls[gp] = CLS_IO;
    }
    /* a port in both lists counts as a compute node (its earlier class) */
    for (size_t i = 0; i < o->n_cn_guids; i++) {
        uint32_t gp = ibr__topo_find_port_guid(t, o->cn_guids[i]);
        if (gp != IBR_NONE)
            cls[gp] = CLS_CN;
    }
    for (uint32_t x = 0; x < n; x++) {
        const ibr__node *sn = &t->nodes[t->sw_node[x]];
        uint32_t own = port_lids(t, sn->port_off, lmc_cap), ends = 0;
        for (unsigned p = 1; p <= sn->nports; p++) {
            uint32_t gp = end_behind(t, &t->ports[sn->port_off + p]);
            if (gp != IBR_NONE)
                ends += port_lids(t, gp, lmc_cap);
        }
        s->hca[x] = own + ends;
        s->src_lids[x] = ends;
        keys[x] = (sw_key){x, own + ends};
    }
    qsort(keys, n, sizeof *keys, cmp_sw_key);
    int passes[3], np = 0;
    if (o->n_cn_guids)
        passes[np++] = CLS_CN;
    if (o->n_io_guids)
        passes[np++] = CLS_IO;
    passes[np++] = -1; /* everything left */
    for (int pi = 0; pi < np; pi++)
        for (uint32_t i = 0; i < n; i++) {
            const ibr__node *sn = &t->nodes[t->sw_node[keys[i].sw]];
            for (unsigned p = 1; p <= sn->nports; p++) {
                uint32_t gp = end_behind(t, &t->ports[sn->port_off + p]);
                if (gp == IBR_NONE || done[gp] || (passes[pi] >= 0 && cls[gp] != passes[pi]))
                    continue;
                done[gp] = 1;
                add_lids(s, t, gp, lmc_cap, pi);
            }
        }
    for (uint32_t i = 0; i < n; i++)
        add_lids(s, t, t->nodes[t->sw_node[keys[i].sw]].port_off, lmc_cap, np);
    s->n_groups = (unsigned)np + 1;
out:
    ibr__free(ctx, keys);
    ibr__free(ctx, cls);
    ibr__free(ctx, done);
    return rc;
}

void ibr__sssp_free(ibr_context *ctx, ibr__sssp *s)
{
    ibr__free(ctx, s->dlid);
    ibr__free(ctx, s->tp);
    ibr__free(ctx, s->group);
    ibr__free(ctx, s->port_adj);
    ibr__free(ctx, s->tail);
    ibr__free(ctx, s->hca);
    ibr__free(ctx, s->src_lids);
    ibr__free(ctx, s->eps);
    ibr__free(ctx, s->load);
    ibr__free(ctx, s->cl);
    memset(s, 0, sizeof *s);
}

/* Routing state shared by the passes.

   The searches and the accounting of a destination work in the frame of
   its switch d: the switches reachable from d in level order (position k,
   d at 0) and, for each position, its candidate channels one hop closer
   to d, so that the per-destination loops read position-indexed arrays
   in order. While consecutive destinations share d, the loads of the
   candidate channels live in the frame (lc, dcl) and reach the
   fabric-wide arrays when the frame is flushed (sp_flush). */
typedef struct sp_state {
    const ibr_topo *t;
    const ibr__sssp *s;
    const uint8_t *hops;
    uint8_t *tp;      /* the routes, destination-major (ibr__sssp.tp) */
    /* per group g and channel: OpenSM's weights (num_hca per route) of the
       routes toward destinations of groups 0 .. g */
    uint64_t *load[SSSP_MAX_GROUPS];
    unsigned ng;
    uint64_t *cl;     /* per channel: (end port, end-port LID) pairs routed */
    uint32_t *eps;    /* per switch: end ports */
    uint32_t *pport;  /* per switch: global index of its port 0 */
    /* relief (switch-indexed) */
    uint64_t *sub, *subc;
    uint32_t *par;
    uint8_t *beyond;  /* per switch, routes the channel relieved */
    uint8_t *tpt;     /* tp transposed (switch-major), or NULL: the
                         columns of the switches marked in tcol */
    uint8_t *tcol;
    /* the frame of switch last */
    uint32_t *order, *kpos; /* position -> switch, switch -> position */
    uint32_t cnt[257];
    uint32_t last, nord; /* order holds the levels of switch last */
    uint32_t last_c;     /* the candidates below are toward last_c */
    uint32_t ncand;      /* candidates */
    uint32_t *coff;      /* per position k: first candidate */
    uint32_t *ce, *czp;  /* per candidate (and a spare): channel, position
                            of its head */
    uint8_t *cport;      /* per candidate: its port at the tail */
    uint32_t *pos;       /* per channel: its candidate index, or IBR_NONE */
    uint64_t *hcap, *epsp; /* per position: hca, eps of its switch */
    uint64_t *dist, *subp, *subcp;
    uint32_t *parc, *oparc; /* per position: chosen candidate */
    /* frame loads, while open (open = 1): lc[c], load[lc_r][ce[c]] with
       the frame's changes, which every load[g], g >= lc_grp, is still to
       take (lc_r is one of them), and dcl[c] the change of cl[ce[c]] not
       yet written; touched lists the candidates whose loads may have
       changed (every one when ntouched exceeds ncand) */
    uint64_t *lc, *dcl;
    uint32_t *touched;
    uint32_t ntouched;
    int open;
    unsigned lc_r, lc_grp;
    uint64_t limit;      /* improvement pass: busiest channel's pairs */
} sp_state;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int is_ca_lid(const ibr_topo *t, unsigned lid)
{
    return t->nodes[t->port_node[t->lid_port[lid]]].type != IBR_NODE_SWITCH;
}

/* Write the frame's loads back to the fabric-wide arrays. */
static void sp_flush(sp_state *st)
{
    if (!st->open)
        return;
    if (st->ntouched > st->ncand) {
        /* every candidate: adding the zeros costs less than testing */
        const uint64_t *lr = st->load[st->lc_r];
        for (uint32_t c = 0; c < st->ncand; c++) {
            uint32_t e = st->ce[c];
            uint64_t dl = st->lc[c] - lr[e];
            st->cl[e] += st->dcl[c];
            for (unsigned g = st->lc_grp; g < st->ng; g++)
                st->load[g][e] += dl;
        }
        memset(st->dcl, 0, st->ncand * sizeof *st->dcl);
        st->open = 0;
        return;
    }
    /* a candidate listed twice finds its change written the second time */
    const uint64_t *lr = st->load[st->lc_r];
    for (uint32_t j = 0; j < st->ntouched; j++) {
        uint32_t c = st->touched[j], e = st->ce[c];
        uint64_t dl = st->lc[c] - lr[e];
        if (!(dl | st->dcl[c]))
            continue;
        st->cl[e] += st->dcl[c];
        for (unsigned g = st->lc_grp; g < st->ng; g++)
            st->load[g][e] += dl;
        st->dcl[c] = 0;
    }
    st->open = 0;
}

/* Levels of the switches around d in st->order (and st->kpos), and with
   cands the frame's candidates. */
static void sp_levels(sp_state *st, uint32_t d, int cands)
{
    const ibr_topo *t = st->t;
    if (d != st->last) {
        sp_flush(st);
        st->nord = ibr__hops_level_order(t, st->hops, d, st->order, st->cnt);
        for (uint32_t k = 0; k < st->nord; k++)
            st->kpos[st->order[k]] = k;
        st->last = d;
        st->last_c = IBR_NONE;
    }
    if (!cands || st->last_c == d)
        return;
    const uint8_t *hr = st->hops + (size_t)d * t->n_sw;
    const ibr__adj *adj = t->adj;
    for (uint32_t c = 0; c < st->ncand; c++)
        st->pos[st->ce[c]] = IBR_NONE;
    uint32_t m = 0;
    st->coff[0] = st->coff[1] = 0;
    for (uint32_t k = 1; k < st->nord; k++) {
        uint32_t y = st->order[k];
        unsigned hy = hr[y];
        st->hcap[k] = st->s->hca[y];
        st->epsp[k] = st->eps[y];
        /* every edge written, only those one hop closer kept (a branch
           on the hops mispredicts): the arrays have a spare entry */
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++) {
            uint32_t z = adj[e].sw;
            st->ce[m] = e;
            st->czp[m] = st->kpos[z];
            st->cport[m] = adj[e].port;
            m += hr[z] + 1u == hy;
        }
        st->coff[k + 1] = m;
    }
    st->hcap[0] = st->epsp[0] = 0;
    for (uint32_t c = 0; c < m; c++)
        st->pos[st->ce[c]] = c;
    st->ncand = m;
    st->last_c = d;
}

/* Open the frame's loads for destinations of group grp reading load[r]. */
static void sp_open(sp_state *st, unsigned grp, unsigned r)
{
    if (st->open && st->lc_grp == grp && st->lc_r == r)
        return;
    sp_flush(st);
    const uint64_t *load = st->load[r];
    for (uint32_t c = 0; c < st->ncand; c++)
        st->lc[c] = load[st->ce[c]];
    st->ntouched = 0;
    st->lc_grp = grp;
    st->lc_r = r;
    st->open = 1;
}

/* The channel switch y forwards along in the routes row. */
static inline uint32_t sp_row_channel(const sp_state *st, const uint8_t *row, uint32_t y)
{
    return st->s->port_adj[st->pport[y] + row[y]];
}

/* Before the routes toward a destination are written into row: the
   switches out of reach of its switch (another component, or farther
   than the hop matrix counts) keep no route. On a connected fabric the
   routes fill the row and it is never cleared. */
static inline void sp_row_begin(const sp_state *st, uint8_t *row)
{
    if (st->nord < st->t->n_sw)
        memset(row, IBR_NO_ROUTE, st->t->n_sw);
}

/* The current tree toward destination i, as candidates per position. */
static void sp_read_tree(sp_state *st, uint32_t i, uint32_t *pc)
{
    const uint8_t *row = st->tp + (size_t)i * st->t->n_sw;
    for (uint32_t k = 1; k < st->nord; k++) {
        uint32_t y = st->order[k];
        pc[k] = st->pos[sp_row_channel(st, row, y)];
    }
}

/* Add (sign 1) or remove (sign -1) the routes toward a destination (an
   end port when ca) along the tree pc, in the open frame. */
static void sp_account(sp_state *st, const uint32_t *pc, int ca, int sign)
{
    uint64_t *subp = st->subp, *subcp = st->subcp;
    uint64_t *lc = st->lc, *dcl = st->dcl;
    const uint32_t *czp = st->czp;
    uint32_t n = st->nord;
    /* the tree's candidates join the touched list while it has room */
    if (st->ntouched + n <= st->ncand) {
        memcpy(st->touched + st->ntouched, pc + 1, (n - 1) * sizeof *pc);
        st->ntouched += n - 1;
    } else {
        st->ntouched = st->ncand + 1;
    }
    memcpy(subp, st->hcap, n * sizeof *subp);
    if (ca)
        memcpy(subcp, st->epsp, n * sizeof *subcp);
    else
        memset(subcp, 0, n * sizeof *subcp);
    for (uint32_t k = n; k-- > 1;) {
        uint32_t c = pc[k];
        uint64_t w = subp[k], wc = subcp[k];
        if (sign > 0) {
            lc[c] += w;
            dcl[c] += wc;
        } else {
            lc[c] -= w;
            dcl[c] -= wc;
        }
        subp[czp[c]] += w;
        subcp[czp[c]] += wc;
    }
}

/* Would tree pc push some channel's pairs above the limit? */
static int sp_exceeds(sp_state *st, const uint32_t *pc)
{
    uint64_t *subcp = st->subcp;
    memcpy(subcp, st->epsp, st->nord * sizeof *subcp);
    for (uint32_t k = st->nord; k-- > 1;) {
        uint32_t c = pc[k];
        if (st->cl[st->ce[c]] + st->dcl[c] + subcp[k] > st->limit)
            return 1;
        subcp[st->czp[c]] += subcp[k];
    }
    return 0;
}

/* Add (sign 1) or remove (sign -1) the routes toward a destination of
   group grp (an end port when ca) delivered at d along the tree par
   (switch-indexed channels) in the fabric-wide loads. */
static void sp_account_direct(sp_state *st, const uint32_t *par, uint32_t d, unsigned grp,
                              int ca, int sign)
{
    const ibr__adj *adj = st->t->adj;
    uint64_t *sub = st->sub, *subc = st->subc;
    for (uint32_t k = 1; k < st->nord; k++) {
        uint32_t y = st->order[k];
        sub[y] = st->s->hca[y];
        subc[y] = ca ? st->eps[y] : 0;
    }
    sub[d] = subc[d] = 0;
    for (uint32_t k = st->nord; k-- > 1;) {
        uint32_t y = st->order[k], e = par[y], z = adj[e].sw;
        uint64_t w = sign > 0 ? sub[y] : -sub[y], wc = sign > 0 ? subc[y] : -subc[y];
        for (unsigned g = grp; g < st->ng; g++)
            st->load[g][e] += w;
        st->cl[e] += wc;
        sub[z] += sub[y];
        subc[z] += subc[y];
    }
}

/* sp_route_one for a destination whose switch delivers no other
   destination next to it (a switch's own LID, mostly): one sweep over the
   channels finds the candidates as it routes, and the loads change in
   place, where a frame would cost more to build than the route. */
static void sp_route_direct(sp_state *st, uint32_t i, int improve)
{
    const ibr_topo *t = st->t;
    const ibr__adj *adj = t->adj;
    unsigned lid = st->s->dlid[i];
    uint32_t d = t->lid_sw[lid];
    int ca = is_ca_lid(t, lid);
    unsigned grp = st->s->group[i];
    sp_levels(st, d, 0);
    uint8_t *row = st->tp + (size_t)i * t->n_sw;
    uint32_t *par = st->par, *opar = st->oparc;
    if (improve) {
        for (uint32_t k = 1; k < st->nord; k++) {
            uint32_t y = st->order[k];
            opar[y] = sp_row_channel(st, row, y);
        }
        sp_account_direct(st, opar, d, grp, ca, -1);
    }
    const uint64_t *load = st->load[improve ? grp : st->ng - 1];
    const uint8_t *hr = st->hops + (size_t)d * t->n_sw;
    uint64_t *dist = st->dist;
    dist[d] = 0;
    for (uint32_t k = 1; k < st->nord; k++) {
        uint32_t y = st->order[k];
        unsigned hz = hr[y] - 1u;
        uint64_t best = UINT64_MAX;
        uint32_t be = 0;
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++) {
            /* branch-free (whether an edge leads closer is as
               unpredictable as the winner): the first least loaded of
               the closer ones, the others' sums masked to the maximum,
               which no sum of loads reaches */
            uint32_t z = adj[e].sw;
            uint64_t v = (dist[z] + load[e]) | (0 - (uint64_t)(hr[z] != hz));
            int lt = v < best;
            best = lt ? v : best;
            be = lt ? e : be;
        }
        dist[y] = best;
        par[y] = be;
    }
    if (improve && ca) {
        /* would the new tree push some channel's pairs above the limit? */
        uint64_t *subc = st->subc;
        for (uint32_t k = 1; k < st->nord; k++)
            subc[st->order[k]] = st->eps[st->order[k]];
        subc[d] = 0;
        for (uint32_t k = st->nord; k-- > 1;) {
            uint32_t y = st->order[k], e = par[y];
            if (st->cl[e] + subc[y] > st->limit) {
                par = opar;
                break;
            }
            subc[adj[e].sw] += subc[y];
        }
    }
    sp_row_begin(st, row);
    row[d] = t->lid_swport[lid];
    for (uint32_t k = 1; k < st->nord; k++) {
        uint32_t y = st->order[k];
        row[y] = adj[par[y]].port;
    }
    sp_account_direct(st, par, d, grp, ca, 1);
}

/* Is destination i, delivered at d, in a run of at most two consecutive
   destinations delivered at d? (A frame costs about a route and a half to
   lay out: from three destinations on, it pays.) */
static int sp_short_run(const sp_state *st, uint32_t i, uint32_t d)
{
    const ibr_topo *t = st->t;
    const uint16_t *dl = st->s->dlid;
    uint32_t n = st->s->n_dest, r = 1;
    for (uint32_t j = i; j-- > 0 && r <= 2 && t->lid_sw[dl[j]] == d;)
        r++;
    for (uint32_t j = i + 1; j < n && r <= 2 && t->lid_sw[dl[j]] == d; j++)
        r++;
    return r <= 2;
}

/* Route destination number i. improve = 0: the first pass; 1: take the
   destination's routes out, route it again against all the others, and
   keep the new routes unless they overload a channel. */
static void sp_route_one(sp_state *st, uint32_t i, int improve)
{
    const ibr_topo *t = st->t;
    unsigned lid = st->s->dlid[i];
    uint32_t d = t->lid_sw[lid];
    int ca = is_ca_lid(t, lid);
    unsigned grp = st->s->group[i];
    if (st->last_c != d && sp_short_run(st, i, d)) {
        sp_route_direct(st, i, improve);
        return;
    }
    sp_levels(st, d, 1);
    /* the first pass sees the destinations routed before (OpenSM); the
       improvement pass every destination of the same or an earlier group,
       so the groups stay balanced separately */
    sp_open(st, grp, improve ? grp : st->ng - 1);
    if (improve) {
        sp_read_tree(st, i, st->oparc);
        sp_account(st, st->oparc, ca, -1);
    }
    /* level by level: the least loaded way one hop closer */
    const uint64_t *lc = st->lc;
    const uint32_t *czp = st->czp, *coff = st->coff;
    uint64_t *dist = st->dist;
    uint32_t *parc = st->parc;
    dist[0] = 0;
    for (uint32_t k = 1; k < st->nord; k++) {
        /* branch-free minimum (the winner is unpredictable), the first of
           equal ones: two interleaved running minima, so that each
           comparison waits for the one two candidates back only, merged
           by (load, index) */
        uint64_t b0 = UINT64_MAX, b1 = UINT64_MAX;
        uint32_t c0 = 0, c1 = UINT32_MAX, c = coff[k], ce = coff[k + 1];
        for (; c + 1 < ce; c += 2) {
            uint64_t v0 = dist[czp[c]] + lc[c], v1 = dist[czp[c + 1]] + lc[c + 1];
            int l0 = v0 < b0, l1 = v1 < b1;
            b0 = l0 ? v0 : b0;
            c0 = l0 ? c : c0;
            b1 = l1 ? v1 : b1;
            c1 = l1 ? c + 1 : c1;
        }
        if (c < ce) {
            uint64_t v0 = dist[czp[c]] + lc[c];
            int l0 = v0 < b0;
            b0 = l0 ? v0 : b0;
            c0 = l0 ? c : c0;
        }
        int one = b1 < b0 || (b1 == b0 && c1 < c0);
        dist[k] = one ? b1 : b0;
        parc[k] = one ? c1 : c0;
    }
    const uint32_t *pc = parc;
    if (improve && ca && sp_exceeds(st, pc))
        pc = st->oparc;
    uint8_t *row = st->tp + (size_t)i * t->n_sw;
    sp_row_begin(st, row);
    row[d] = t->lid_swport[lid];
    for (uint32_t k = 1; k < st->nord; k++)
        row[st->order[k]] = st->cport[pc[k]];
    sp_account(st, pc, ca, 1);
}

/* Switch u's column of the transposed routes, laid out the first time
   it is asked for: the relief reads the columns of the few switches at
   the tails of the busiest channels only, so most are never written
   (nor their pages touched). */
static const uint8_t *sp_column(sp_state *st, uint32_t u)
{
    uint32_t nd = st->s->n_dest, n = st->t->n_sw;
    uint8_t *col = st->tpt + (size_t)u * nd;
    if (!st->tcol[u]) {
        for (uint32_t i = 0; i < nd; i++)
            col[i] = st->tp[(size_t)i * n + u];
        st->tcol[u] = 1;
    }
    return col;
}

/* Relief of channel eh, which carries m (end port, LID) pairs, the most of
   any channel: for the destinations routed over it, in order, move the
   subtree of one switch beyond eh (the routes of the switches whose path
   crosses eh) to another minimal next hop whose path to the destination
   avoids eh and keeps every channel below m, one move per destination,
   until eh carries fewer than m pairs. *budget counts the destinations
   examined. Returns 1 when eh is below m. */
static int sp_relieve(sp_state *st, uint32_t eh, uint64_t m, uint64_t *budget)
{
    const ibr_topo *t = st->t;
    const ibr__adj *adj = t->adj;
    uint32_t u = st->s->tail[eh];
    uint32_t nd = st->s->n_dest;
    /* the destinations routed over eh: read down u's column of the
       transposed routes when there is one */
    const uint8_t *col = st->tpt ? sp_column(st, u) : NULL;
    for (uint32_t i = 0; i < nd && st->cl[eh] >= m && *budget; i++) {
        if (col) {
            const uint8_t *f = memchr(col + i, adj[eh].port, nd - i);
            if (!f)
                break;
            i = (uint32_t)(f - col);
        }
        unsigned lid = st->s->dlid[i];
        uint8_t *row = st->tp + (size_t)i * t->n_sw;
        if (row[u] != adj[eh].port || !is_ca_lid(t, lid))
            continue;
        (*budget)--;
        uint32_t d = t->lid_sw[lid];
        unsigned grp = st->s->group[i];
        const uint8_t *hr = st->hops + (size_t)d * t->n_sw;
        /* the switches beyond eh (whose path crosses it: u and the
           switches routed up to it), found from u down the tree, a
           switch's children being the neighbours that forward to it */
        uint32_t *q = st->par, nq = 1;
        q[0] = u;
        st->beyond[u] = 1;
        for (uint32_t j = 0; j < nq; j++) {
            uint32_t x = q[j];
            for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
                uint32_t y = adj[e].sw;
                if (row[y] == adj[e].rport && y != d && !st->beyond[y]) {
                    st->beyond[y] = 1;
                    q[nq++] = y;
                }
            }
        }
        /* in the order the moves are tried: by hops from d, then index */
        uint64_t *key = st->dist;
        for (uint32_t j = 0; j < nq; j++)
            key[j] = (uint64_t)hr[q[j]] << 32 | q[j];
        qsort(key, nq, sizeof *key, cmp_u64);
        for (uint32_t j = 0; j < nq; j++) {
            uint32_t y = q[j] = (uint32_t)key[j];
            st->sub[y] = st->s->hca[y];
            st->subc[y] = st->eps[y];
        }
        /* their subtrees' weights, the only ones a move reads */
        for (uint32_t j = nq; j-- > 0;) {
            uint32_t y = q[j], z = adj[sp_row_channel(st, row, y)].sw;
            if (st->beyond[z]) {
                st->sub[z] += st->sub[y];
                st->subc[z] += st->subc[y];
            }
        }
        int moved = 0;
        for (uint32_t j = 0; j < nq && !moved; j++) {
            uint32_t y = q[j], py = sp_row_channel(st, row, y);
            uint64_t w = st->subc[y];
            if (!w)
                continue;
            for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1] && !moved; e++) {
                uint32_t z = adj[e].sw;
                if (hr[z] + 1u != hr[y] || e == py || st->beyond[z])
                    continue;
                int ok = st->cl[e] + w < m;
                for (uint32_t x = z; ok && x != d;) {
                    uint32_t c = sp_row_channel(st, row, x);
                    ok = st->cl[c] + w < m;
                    x = adj[c].sw;
                }
                if (!ok)
                    continue;
                for (int pass = 0; pass < 2; pass++) {
                    /* take the subtree off its path, then put it on the new one */
                    for (uint32_t x = y; x != d;) {
                        uint32_t c = pass && x == y ? e : sp_row_channel(st, row, x);
                        st->cl[c] = pass ? st->cl[c] + w : st->cl[c] - w;
                        for (unsigned g = grp; g < st->ng; g++)
                            st->load[g][c] = pass ? st->load[g][c] + st->sub[y]
                                                  : st->load[g][c] - st->sub[y];
                        x = adj[c].sw;
                    }
                }
                row[y] = adj[e].port;
                if (st->tpt && st->tcol[y])
                    st->tpt[(size_t)y * nd + i] = adj[e].port;
                moved = 1;
            }
        }
        for (uint32_t j = 0; j < nq; j++)
            st->beyond[q[j]] = 0;
    }
    return st->cl[eh] < m;
}

/* Lower the busiest channels' loads by subtree moves while every channel
   at the maximum can be relieved, within a budget of destinations
   examined. */
static int sp_relief(ibr_run *run, sp_state *st, const char *phase)
{
    const ibr_topo *t = st->t;
    uint64_t total = (uint64_t)st->s->n_dest * SSSP_RELIEF_BUDGET, budget = total;
    sp_flush(st); /* the moves below work on the fabric-wide loads */
    memset(st->beyond, 0, t->n_sw);
    /* the routes switch-major, so that finding the destinations routed
       over a channel reads one column (without the memory, the search
       reads the destination-major rows: same moves, slower) */
    uint32_t nd = st->s->n_dest, n = t->n_sw;
    int rc = 0;
    st->tpt = ibr__mallocarray(t->ctx, (size_t)nd * n + 1, 1);
    st->tcol = ibr__calloc(t->ctx, n, 1);
    if (!st->tcol) {
        ibr__free(t->ctx, st->tpt);
        st->tpt = NULL;
    }
    while (budget) {
        uint64_t m = 0;
        for (uint32_t e = 0; e < t->n_adj; e++)
            if (st->cl[e] > m)
                m = st->cl[e];
        if (m == 0)
            break;
        if ((rc = ibr_run_progress(run, phase, total - budget, total)) < 0)
            goto out;
        for (uint32_t e = 0; e < t->n_adj && budget; e++)
            if (st->cl[e] == m && !sp_relieve(st, e, m, &budget))
                goto out;
    }
out:
    ibr__free(t->ctx, st->tpt);
    ibr__free(t->ctx, st->tcol);
    st->tpt = st->tcol = NULL;
    return rc;
}

/* Release the scratch of ibr__sssp_compute (what it did not hand over). */
static void sp_state_free(ibr_context *ctx, sp_state *st)
{
    for (unsigned g = 0; g < SSSP_MAX_GROUPS; g++)
        ibr__free(ctx, st->load[g]);
    ibr__free(ctx, st->cl);
    ibr__free(ctx, st->eps);
    ibr__free(ctx, st->pport);
    ibr__free(ctx, st->sub);
    ibr__free(ctx, st->subc);
    ibr__free(ctx, st->par);
    ibr__free(ctx, st->beyond);
    ibr__free(ctx, st->order);
    ibr__free(ctx, st->kpos);
    ibr__free(ctx, st->coff);
    ibr__free(ctx, st->ce);
    ibr__free(ctx, st->czp);
    ibr__free(ctx, st->cport);
    ibr__free(ctx, st->pos);
    ibr__free(ctx, st->hcap);
    ibr__free(ctx, st->epsp);
    ibr__free(ctx, st->dist);
    ibr__free(ctx, st->subp);
    ibr__free(ctx, st->subcp);
    ibr__free(ctx, st->parc);
    ibr__free(ctx, st->oparc);
    ibr__free(ctx, st->lc);
    ibr__free(ctx, st->dcl);
    ibr__free(ctx, st->touched);
}

/* OpenSM's routing pass over every destination, and with balance >= 1
   the improvement passes, each against the busiest link of the one before.
   0 or IBR_ECANCELED. */
static int sp_route_passes(ibr_run *run, sp_state *st, const char *phase, int64_t balance)
{
    int rc = 0;
    unsigned passes = balance >= 1 ? SSSP_PASSES : 1;
    uint64_t total = (uint64_t)st->s->n_dest * passes;
    for (unsigned pass = 0; pass < passes; pass++) {
        if (pass > 0) {
            sp_flush(st);
            st->limit = 0;
            for (uint32_t e = 0; e < st->t->n_adj; e++)
                if (st->cl[e] > st->limit)
                    st->limit = st->cl[e];
        }
        for (uint32_t i = 0; i < st->s->n_dest; i++) {
            if ((i & 1023) == 0 &&
                (rc = ibr_run_progress(run, phase, (uint64_t)pass * st->s->n_dest + i, total)) < 0)
                return rc;
            sp_route_one(st, i, pass > 0);
        }
    }
    return 0;
}

int ibr__sssp_compute(ibr_run *run, const ibr_topo *t, ibr__sssp *s, const char *name)
{
    ibr_context *ctx = t->ctx;
    size_t n = t->n_sw;
    memset(s, 0, sizeof *s);
    if (n == 0)
        return ibr__decline(run, IBR__MSG("EN046", "the fabric has no switches"));
    char phase[64];
    snprintf(phase, sizeof phase, "%s: routing", name);
    int rc = ibr_run_progress(run, phase, 0, 1);
    if (rc < 0)
        return rc;

    uint8_t *hops = NULL;
    sp_state st;
    memset(&st, 0, sizeof st);
    size_t nch = t->n_adj ? t->n_adj : 1;
    s->dlid = ibr__mallocarray(ctx, (size_t)t->max_lid + 1, sizeof *s->dlid);
    s->group = ibr__mallocarray(ctx, (size_t)t->max_lid + 1, 1);
    s->port_adj = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *s->port_adj);
    s->tail = ibr__mallocarray(ctx, nch, sizeof *s->tail);
    s->hca = ibr__mallocarray(ctx, n, sizeof *s->hca);
    s->src_lids = ibr__mallocarray(ctx, n, sizeof *s->src_lids);
    st.cl = ibr__calloc(ctx, nch, sizeof *st.cl);
    st.eps = ibr__calloc(ctx, n, sizeof *st.eps);
    st.pport = ibr__mallocarray(ctx, n, sizeof *st.pport);
    st.sub = ibr__mallocarray(ctx, n, sizeof *st.sub);
    st.subc = ibr__mallocarray(ctx, n, sizeof *st.subc);
    st.par = ibr__mallocarray(ctx, n, sizeof *st.par);
    st.beyond = ibr__mallocarray(ctx, n, 1);
    st.order = ibr__mallocarray(ctx, n, sizeof *st.order);
    st.kpos = ibr__calloc(ctx, n, sizeof *st.kpos);
    st.coff = ibr__mallocarray(ctx, n + 1, sizeof *st.coff);
    st.ce = ibr__mallocarray(ctx, nch + 1, sizeof *st.ce);
    st.czp = ibr__mallocarray(ctx, nch + 1, sizeof *st.czp);
    st.cport = ibr__mallocarray(ctx, nch + 1, 1);
    st.pos = ibr__mallocarray(ctx, nch, sizeof *st.pos);
    st.hcap = ibr__mallocarray(ctx, n, sizeof *st.hcap);
    st.epsp = ibr__mallocarray(ctx, n, sizeof *st.epsp);
    st.dist = ibr__calloc(ctx, n, sizeof *st.dist);
    st.subp = ibr__mallocarray(ctx, n, sizeof *st.subp);
    st.subcp = ibr__mallocarray(ctx, n, sizeof *st.subcp);
    st.parc = ibr__mallocarray(ctx, n, sizeof *st.parc);
    st.oparc = ibr__mallocarray(ctx, n, sizeof *st.oparc);
    st.lc = ibr__mallocarray(ctx, nch, sizeof *st.lc);
    st.dcl = ibr__calloc(ctx, nch, sizeof *st.dcl);
    st.touched = ibr__mallocarray(ctx, nch, sizeof *st.touched);
    if (!s->dlid || !s->group || !s->port_adj || !s->tail || !s->hca || !s->src_lids || !st.cl ||
        !st.eps || !st.pport || !st.sub || !st.subc || !st.par || !st.beyond || !st.order ||
        !st.kpos || !st.coff || !st.ce || !st.czp || !st.cport || !st.pos || !st.hcap ||
        !st.epsp || !st.dist || !st.subp || !st.subcp || !st.parc || !st.oparc || !st.lc ||
        !st.dcl || !st.touched)
        goto nomem;
    for (size_t e = 0; e < nch; e++)
        st.pos[e] = IBR_NONE;
    for (uint32_t i = 0; i < t->n_ports; i++)
        s->port_adj[i] = IBR_NONE;
    for (uint32_t x = 0; x < n; x++) {
        const ibr__node *sn = &t->nodes[t->sw_node[x]];
        st.pport[x] = sn->port_off;
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++) {
            s->port_adj[sn->port_off + t->adj[e].port] = e;
            s->tail[e] = x;
        }
        for (unsigned p = 1; p <= sn->nports; p++) {
            uint32_t gp = end_behind(t, &t->ports[sn->port_off + p]);
            if (gp != IBR_NONE && t->ports[gp].lid)
                st.eps[x]++;
        }
    }
    if ((rc = build_order(s, t, ibr_run_options(run))) < 0)
        goto nomem;
    if (!(s->tp = ibr__mallocarray(ctx, (size_t)s->n_dest * n + 1, 1)))
        goto nomem;
    if ((rc = ibr__engine_hops(&hops, run, t)) < 0)
        goto nomem;

    st.ng = s->n_groups;
    for (unsigned g = 0; g < st.ng; g++)
        if (!(st.load[g] = ibr__calloc(ctx, nch, sizeof *st.load[g])))
            goto nomem;
    st.t = t;
    st.s = s;
    st.hops = hops;
    st.tp = s->tp;
    st.last = st.last_c = IBR_NONE;
    /* the balance setting: 0 OpenSM's pass alone, 1 and the improvement
       pass, 2 (default) and the relief */
    int64_t balance = 2;
    if (ibr_run_setting_int(&balance, run, "balance") < 0)
        balance = 2;
    if ((rc = sp_route_passes(run, &st, phase, balance)) < 0)
        goto out;
    sp_flush(&st);
    snprintf(phase, sizeof phase, "%s: relieving the busiest links", name);
    if (balance >= 2 && (rc = sp_relief(run, &st, phase)) < 0)
        goto out;
    s->load = st.load[st.ng - 1];
    st.load[st.ng - 1] = NULL;
    s->cl = st.cl;
    st.cl = NULL;
    s->eps = st.eps;
    st.eps = NULL;
    goto out;
nomem:
    rc = ibr__fail(run, IBR_ENOMEM, "out of memory");
out:
    sp_state_free(ctx, &st);
    if (rc < 0)
        ibr__sssp_free(ctx, s);
    return rc;
}

typedef struct {
    ibr_run *run;
    const ibr__sssp *s;
    uint32_t n;
} wl_arg;

/* The LFT rows of the switches of block b (64 switches). */
static int write_lfts_block(void *arg, unsigned worker, size_t b)
{
    (void)worker;
    const wl_arg *a = arg;
    const ibr__sssp *s = a->s;
    uint32_t y0 = (uint32_t)b * 64, y1 = a->n - y0 < 64 ? a->n : y0 + 64;
    /* a blocked transpose: a block of destinations' rows stays in cache
       while the block's LFT rows take their entries */
    for (uint32_t i0 = 0; i0 < s->n_dest; i0 += 64) {
        uint32_t i1 = s->n_dest - i0 < 64 ? s->n_dest : i0 + 64;
        for (uint32_t y = y0; y < y1; y++) {
            uint8_t *row = ibr_run_lft(a->run, y);
            for (uint32_t i = i0; i < i1; i++)
                row[s->dlid[i]] = s->tp[(size_t)i * a->n + y];
        }
    }
    return 0;
}

void ibr__sssp_write_lfts(ibr_run *run, const ibr__sssp *s)
{
    wl_arg a = {run, s, ibr_run_topo(run)->n_sw};
    /* blocks of switches on the run's threads (rows apart: no sharing) */
    if (ibr_run_parallel_for(run, (a.n + 63) / 64, write_lfts_block, &a) < 0)
        for (size_t b = 0; b < (a.n + 63) / 64; b++)
            write_lfts_block(&a, 0, b);
}

static int sssp_route(ibr_run *run, void *user)
{
    (void)user;
    ibr__sssp s;
    const ibr_topo *t;
    ibr_topo *view;
    int rc = ibr__engine_topo(&t, &view, run, "sssp");
    if (rc < 0)
        return rc;
    if ((rc = ibr__sssp_compute(run, t, &s, "sssp")) < 0) {
        ibr__topo_view_destroy(view);
        return rc;
    }
    ibr__sssp_write_lfts(run, &s);
    rc = ibr__mcast_loaded_on(run, t, ibr_run_hops(run), s.load);
    ibr__sssp_free(ibr__run_ctx(run), &s);
    ibr__topo_view_destroy(view);
    return rc;
}

/* The settings sssp and dfsssp share. */
const ibr_setting ibr__sssp_settings[3] = {
    {"avoid_throttled_links", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "route around switch-to-switch cables running below the width or speed both ends "
     "enable, keeping those needed to keep the switches connected (OpenSM's "
     "avoid_throttled_links)"},
    {"balance", IBR_SETTING_INT, 0, 2, 2, NULL,
     "link balancing after OpenSM's pass, all routes minimal: 2 the improvement pass and "
     "the relief of the busiest links (default), 1 the improvement pass only, 0 none "
     "(OpenSM's single pass: about 2.5 times faster, busiest link up to a third higher)"},
    {"fewest_layers", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "dfsssp: where OpenSM's cycle breaking fits the VLs in more than one layer, also lay the "
     "paths out unit by unit (packed, then spread over fewer VLs) and keep the fewest layers "
     "at a busiest link within 10 % (several layering passes: up to 15 times slower on a "
     "dragonfly; default off: by default one pass keeps OpenSM's way's routes and only "
     "chooses their layers)"},
};

const ibr_engine ibr__engine_sssp = {
    .version = IBR_ENGINE_VERSION,
    .name = "sssp",
    .description = "globally balanced shortest paths: one search per destination LID over link loads",
    .caps = IBR_CAP_LMC | IBR_CAP_MINIMAL,
    .route = sssp_route,
    .settings = ibr__sssp_settings,
    .n_settings = 2,
};
