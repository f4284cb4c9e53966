/*
 * The unicast LFT builder of the engine toolkit, ibr_run_ucast() and
 * ibr_run_ucast_ex(), used by minhop, updn, dnup and dor (OpenSM's "ucast
 * manager"): every switch forwards each destination LID through one
 * of its candidate ports (the minimum-hop ports under the engine's rules),
 * choosing the port that carries the fewest routes so far; with LMC > 0 the
 * LIDs of one port are spread over different remote systems, then nodes
 * (over remote ports with IBR_UCAST_LMC_REMOTE_PORT, OpenSM's dor). With
 * IBR_UCAST_SEARCH_ORDER the candidates come in the engine's order and the
 * first port tried does not rotate across the LIDs of a port.
 * The destination order and the tie-breaking reproduce OpenSM 3.3 so that
 * the same fabric with the same LIDs gives the same tables.
 *
 * Switches are independent of each other (the counters are per switch), so
 * they are processed in parallel; the output does not depend on the number
 * of threads.
 *
 * Time: O(S·S·P) for the candidate lists and O(S·L·C) for the selection
 * (L LIDs, C candidates; runs of destinations behind one switch cost O(1)
 * each in the common case). Memory: O(S·P) per worker.
 */
#include <stdlib.h>
#include <string.h>

#include "core/messages.h"
#include "sys/run_int.h"

typedef struct uc_dest {
    uint32_t node;     /* owner node */
    uint32_t dsw;      /* switch the traffic is delivered by, or IBR_NONE */
    uint16_t base;     /* base LID */
    uint16_t nlids;    /* LIDs of this port to route */
    uint8_t dport;     /* port of dsw leading to the owner (0: a switch) */
    uint8_t is_switch;
    uint8_t scatter;
} uc_dest;

typedef struct uc_worker {
    uint32_t cnt[256];   /* routes counted per output port */
    /* fast path state: consecutive destinations behind the same switch
       share a candidate list; the first least-loaded candidate is found by
       a pointer that only moves forward while the minimum count stays */
    uint32_t blk_dsw;    /* IBR_NONE: no block cached */
    uint32_t blk_min;
    uint32_t blk_pos;
    uint32_t *cand_off;  /* n_sw + 1 */
    uint8_t *cand;       /* min-hop ports toward each switch, ascending (or the
                            engine's search order, IBR_UCAST_SEARCH_ORDER) */
    uint8_t *cand4;      /* n_sw x 4: lists of 2..4 candidates padded with their
                            last one (route_switch_plain's branch-free pick) */
    uint32_t *used_node; /* LMC: remote nodes used per destination */
    uint32_t *used_cnt;
    uint8_t *used_port;  /* IBR_UCAST_LMC_REMOTE_PORT: remote port of each entry */
    uint8_t *used_n;
} uc_worker;

typedef struct uc_job {
    const ibr_topo *t;
    const ibr_options *o;
    const uint8_t *hops;  /* least hops, n_sw x n_sw, 255 = unreachable */
    ibr_cand_fn cands;
    void *cands_arg;
    const uc_dest *order;
    size_t n_order;
    unsigned lmc;         /* subnet LMC: the largest routed LMC */
    unsigned used_cap;    /* 1 << lmc */
    unsigned flags;       /* ibr_ucast_flags */
    const uint8_t *ignored; /* per global port, or NULL */
    uint8_t *lft;
    size_t lft_size;
    uc_worker *w;
} uc_job;

typedef struct uc_path {
    uint8_t port;
    uint8_t found_sys;
    uint8_t found_node;
    uint32_t count;
    uint32_t fwd;
} uc_path;

static uint64_t sysimg_of(const ibr_topo *t, uint32_t node)
{
    const ibr__node *n = &t->nodes[node];
    return n->sysimg ? n->sysimg : n->guid;
}

/* Remote node used entry of destination xi matching node (by node) or, when
   by_sys, any entry whose system-image GUID matches; NULL when none. */
static uint32_t *find_used(const uc_job *j, const uc_worker *w, size_t xi, uint32_t node,
                           int by_sys)
{
    const uint32_t *nodes = w->used_node + xi * j->used_cap;
    uint64_t sys = by_sys ? sysimg_of(j->t, node) : 0;
    for (unsigned k = 0; k < w->used_n[xi]; k++) {
        if (by_sys ? sysimg_of(j->t, nodes[k]) == sys : nodes[k] == node)
            return &w->used_cnt[xi * j->used_cap + k];
    }
    return NULL;
}

/* IBR_UCAST_LMC_REMOTE_PORT: the LIDs of destination xi already sent to
   remote port (node, rport), 0 when none. */
static uint32_t used_by_port(const uc_job *j, const uc_worker *w, size_t xi, uint32_t node,
                             unsigned rport)
{
    size_t b = xi * j->used_cap;
    for (unsigned k = 0; k < w->used_n[xi]; k++)
        if (w->used_node[b + k] == node && w->used_port[b + k] == rport)
            return w->used_cnt[b + k];
    return 0;
}

/* Count one more LID of destination xi sent to remote node `node` (by
   node; by (node, remote port) with IBR_UCAST_LMC_REMOTE_PORT). */
static void add_used(const uc_job *j, uc_worker *w, size_t xi, uint32_t node, unsigned rport)
{
    uint32_t *nodes = w->used_node + xi * j->used_cap;
    uint32_t *cnts = w->used_cnt + xi * j->used_cap;
    uint8_t *ports = w->used_port ? w->used_port + xi * j->used_cap : NULL;
    unsigned k;
    for (k = 0; k < w->used_n[xi]; k++)
        if (nodes[k] == node && (!ports || ports[k] == rport)) {
            cnts[k]++;
            return;
        }
    if (k < j->used_cap) {
        nodes[k] = node;
        cnts[k] = 1;
        if (ports)
            ports[k] = (uint8_t)rport;
        w->used_n[xi]++;
    }
}

/* Plain selection: the first candidate (in port order) with the least
   count. Counts only grow by one, and only for the port just chosen, so
   within a block of one destination switch the answer is found by
   scanning forward for the current minimum; past the end the minimum has
   grown by exactly one. Equivalent to a full scan every time. */
static inline unsigned plain_select(uc_worker *w, const uint8_t *cand, unsigned nc, uint32_t dsw)
{
    if (w->blk_dsw != dsw) {
        uint32_t m = UINT32_MAX;
        for (unsigned k = 0; k < nc; k++)
            if (w->cnt[cand[k]] < m)
                m = w->cnt[cand[k]];
        w->blk_dsw = dsw;
        w->blk_min = m;
        w->blk_pos = 0;
    }
    for (;;) {
        while (w->blk_pos < nc && w->cnt[cand[w->blk_pos]] != w->blk_min)
            w->blk_pos++;
        if (w->blk_pos < nc)
            return cand[w->blk_pos];
        w->blk_min++;
        w->blk_pos = 0;
    }
}

/* Port shifting: the choice again over the candidate paths, started at
   a rotation by the mean count; *best, and with LMC the best ports to a
   system and to a node not yet used (*best_sys, *best_node). */
static void shifted_pick(const uc_path *paths, unsigned npaths, uint64_t total, int lmc,
                         unsigned *best_out, unsigned *best_sys_out, unsigned *best_node_out)
{
    uint32_t least = UINT32_MAX, least_sys = UINT32_MAX, least_node = UINT32_MAX;
    uint32_t least_fwd = UINT32_MAX;
    unsigned best = 0, best_sys = 0, best_node = 0;
    for (unsigned i = 0; i < npaths; i++) {
        const uc_path *pp = &paths[(total / npaths + i) % npaths];
        if (lmc) {
            if (!pp->found_sys && pp->count < least_sys) {
                least_sys = pp->count;
                best_sys = pp->port;
                least_fwd = 0;
            } else if (!pp->found_node && pp->count < least_node) {
                least_node = pp->count;
                best_node = pp->port;
                least_fwd = 0;
            }
        }
        int used = lmc && (pp->found_sys || pp->found_node);
        if (pp->count < least) {
            best = pp->port;
            least = pp->count;
            if (used && pp->fwd < least_fwd)
                least_fwd = pp->fwd;
        } else if (used && pp->count == least && pp->fwd < least_fwd) {
            least_fwd = pp->fwd;
            best = pp->port;
        }
    }
    *best_out = best;
    *best_sys_out = best_sys;
    *best_node_out = best_node;
}

/* Choose the output port of switch s for destination xi (one LID of it). */
static unsigned select_port(const uc_job *j, uc_worker *w, uint32_t s, size_t xi, unsigned start,
                            int scatter, ibr__rng *rng)
{
    const ibr_topo *t = j->t;
    const uc_dest *x = &j->order[xi];
    if (x->dsw == IBR_NONE)
        return IBR_NO_ROUTE;
    if (x->dsw == s) {
        w->blk_dsw = IBR_NONE;
        return x->dport; /* 0 for the switch itself */
    }
    if (j->hops[(size_t)s * t->n_sw + x->dsw] == 255)
        return IBR_NO_ROUTE;
    const uint8_t *cand = w->cand + w->cand_off[x->dsw];
    unsigned nc = w->cand_off[x->dsw + 1] - w->cand_off[x->dsw];
    if (!nc)
        return IBR_NO_ROUTE;
    const ibr__node *sn = &t->nodes[t->sw_node[s]];
    unsigned nports = sn->nports + 1u;
    unsigned st = start % nports;
    unsigned k0 = 0;
    while (k0 < nc && cand[k0] < st)
        k0++;
    if (k0 == nc)
        k0 = 0;

    if (k0 == 0 && j->lmc == 0 && !scatter && !j->o->port_shifting)
        return plain_select(w, cand, nc, x->dsw);
    w->blk_dsw = IBR_NONE;

    int lmc = j->lmc > 0;
    int by_port = lmc && (j->flags & IBR_UCAST_LMC_REMOTE_PORT);
    uint32_t least = UINT32_MAX, least_sys = UINT32_MAX, least_node = UINT32_MAX;
    uint32_t least_fwd = UINT32_MAX;
    unsigned best = 0, best_sys = 0, best_node = 0;
    uint8_t ties[256];
    unsigned nties = 0;
    uc_path paths[256];
    unsigned npaths = 0;
    uint64_t total = 0;

    for (unsigned k = 0; k < nc; k++) {
        unsigned p = cand[(k0 + k) % nc];
        uint32_t c = w->cnt[p];
        uint32_t *remote = NULL;
        uint8_t fsys = 0, fnode = 0;
        uint32_t fwd = 0;
        int has_fwd = 0;
        if (by_port) {
            /* OpenSM's dor: every candidate has a forwarded-to count, that
               of its (remote node, remote port) for this destination (0
               when unused); no system or node preference */
            const ibr__port *pp = &t->ports[sn->port_off + p];
            fwd = used_by_port(j, w, xi, pp->remote_node, pp->remote_port);
            has_fwd = 1;
        } else if (lmc) {
            uint32_t rn = t->ports[sn->port_off + p].remote_node;
            if (!find_used(j, w, xi, rn, 1)) {
                if (c < least_sys) {
                    least_sys = c;
                    best_sys = p;
                    least_fwd = 0;
                }
            } else {
                fsys = 1;
                remote = find_used(j, w, xi, rn, 0);
                if (!remote && c < least_node) {
                    least_node = c;
                    best_node = p;
                    least_fwd = 0;
                }
                fnode = remote != NULL;
            }
        }
        if (remote) {
            fwd = *remote;
            has_fwd = 1;
        }
        paths[npaths++] = (uc_path){(uint8_t)p, fsys, fnode, c, fwd};
        total += c;
        if (c < least) {
            best = p;
            least = c;
            nties = 0;
            ties[nties++] = (uint8_t)p;
            if (has_fwd && fwd < least_fwd)
                least_fwd = fwd;
        } else if (scatter && c == least) {
            ties[nties++] = (uint8_t)p;
        } else if (has_fwd && c == least && fwd < least_fwd) {
            least_fwd = fwd;
            best = p;
        }
    }

    if (j->o->port_shifting && npaths)
        shifted_pick(paths, npaths, total, lmc, &best, &best_sys, &best_node);

    if (lmc && best && !scatter) {
        if (best_sys)
            best = best_sys;
        else if (best_node)
            best = best_node;
    } else if (scatter && nties) {
        best = ties[ibr__rng_below(rng, nties)];
    }
    return best ? best : IBR_NO_ROUTE;
}

/* The common case (one LID per port, no scatter, no shifting), with
   select_port()'s fast path inlined: for each destination the first
   candidate port, in port order, with the least count. Same tables as the
   general loop; several times cheaper per entry on small fabrics. */
static void route_switch_plain(const uc_job *j, uc_worker *w, uint32_t s, uint8_t *lft,
                               const ibr__node *sn)
{
    const ibr_topo *t = j->t;
    const uint8_t *hrow = j->hops + (size_t)s * t->n_sw;
    const uint32_t *coff = w->cand_off;
    const uint8_t *call = w->cand;
    uint32_t *cnt = w->cnt;
    uint32_t blk_dsw = IBR_NONE, blk_min = 0, blk_pos = 0;
    int count_switches = j->o->port_profile_switch_nodes;
    /* lists of 2 to 4 candidates, padded with their last one: the first
       least-counted candidate is then 3 comparisons without a branch (a
       repeated last candidate never wins a tie) */
    uint8_t *c4 = w->cand4;
    for (uint32_t d = 0; d < t->n_sw; d++) {
        uint32_t nc = coff[d + 1] - coff[d];
        if (nc >= 2 && nc <= 4)
            for (uint32_t k = 0; k < 4; k++)
                c4[(size_t)d * 4 + k] = call[coff[d] + (k < nc ? k : nc - 1)];
    }
    for (size_t xi = 0; xi < j->n_order; xi++) {
        const uc_dest *x = &j->order[xi];
        uint32_t dsw = x->dsw;
        unsigned port;
        if (dsw == IBR_NONE) {
            lft[x->base] = IBR_NO_ROUTE;
            continue;
        }
        if (dsw == s) {
            port = x->dport;
            blk_dsw = IBR_NONE;
        } else {
            uint32_t nc = coff[dsw + 1] - coff[dsw];
            if (hrow[dsw] == 255 || !nc) {
                lft[x->base] = IBR_NO_ROUTE;
                continue;
            }
            if (nc == 1) {
                port = call[coff[dsw]];
            } else if (nc <= 4) {
                const uint8_t *q = c4 + (size_t)dsw * 4;
                unsigned b = q[0];
                uint32_t bc = cnt[b];
                for (unsigned k = 1; k < 4; k++) {
                    unsigned p = q[k];
                    uint32_t c = cnt[p];
                    int lt = c < bc;
                    b = lt ? p : b;
                    bc = lt ? c : bc;
                }
                port = b;
            } else {
                const uint8_t *cand = call + coff[dsw];
                if (blk_dsw != dsw) {
                    uint32_t m = UINT32_MAX;
                    for (uint32_t k = 0; k < nc; k++)
                        if (cnt[cand[k]] < m)
                            m = cnt[cand[k]];
                    blk_dsw = dsw;
                    blk_min = m;
                    blk_pos = 0;
                }
                for (;;) {
                    while (blk_pos < nc && cnt[cand[blk_pos]] != blk_min)
                        blk_pos++;
                    if (blk_pos < nc)
                        break;
                    blk_min++;
                    blk_pos = 0;
                }
                port = cand[blk_pos];
            }
        }
        lft[x->base] = (uint8_t)port;
        if (j->ignored && j->ignored[sn->port_off + port])
            continue;
        if (x->is_switch && !count_switches)
            continue;
        cnt[port]++;
    }
}

static int route_switch(void *arg, unsigned worker, size_t si)
{
    const uc_job *j = arg;
    const ibr_topo *t = j->t;
    uc_worker *w = &j->w[worker];
    uint32_t s = (uint32_t)si;
    uint8_t *lft = j->lft + si * j->lft_size;
    uint32_t swnode = t->sw_node[s];
    const ibr__node *sn = &t->nodes[swnode];
    ibr__rng rng;
    ibr__rng_seed(&rng, j->o->seed ^ (sn->guid * 0x9e3779b97f4a7c15ULL));

    j->cands(j->cands_arg, s, w->cand_off, w->cand);
    memset(w->cnt, 0, sizeof w->cnt);
    w->blk_dsw = IBR_NONE;
    if (j->lmc == 0 && !j->o->scatter_ports && !j->o->port_shifting) {
        route_switch_plain(j, w, s, lft, sn);
        return 0;
    }
    if (j->lmc)
        memset(w->used_n, 0, j->n_order);
    unsigned per_port = 1u << j->lmc;
    for (unsigned off = 0; off < per_port; off++) {
        for (size_t xi = 0; xi < j->n_order; xi++) {
            const uc_dest *x = &j->order[xi];
            if (off >= x->nlids)
                continue;
            unsigned lid = x->base + off;
            /* minhop rotates the first port tried across the LIDs of a
               port; with IBR_UCAST_SEARCH_ORDER every LID scans the
               engine's list from its start (OpenSM's dor) */
            unsigned start =
                off && !(j->flags & IBR_UCAST_SEARCH_ORDER) ? lft[lid - 1] + 1u : 1u;
            int scatter = j->o->scatter_ports && off == 0 && x->scatter;
            unsigned port = select_port(j, w, s, xi, start, scatter, &rng);
            lft[lid] = (uint8_t)port;
            if (port == IBR_NO_ROUTE)
                continue;
            if (j->ignored && j->ignored[sn->port_off + port])
                continue;
            if (x->is_switch && !j->o->port_profile_switch_nodes)
                continue;
            w->cnt[port]++;
            if (port > 0 && j->lmc)
                add_used(j, w, xi, t->ports[sn->port_off + port].remote_node,
                         t->ports[sn->port_off + port].remote_port);
        }
    }
    return 0;
}

typedef struct {
    const ibr_topo *t;
    const uint8_t *hops;
} hop_cands;

/* The default candidates: ports of s toward d leading to neighbours one
   hop closer to d. The hop matrix is
   symmetric, so row T holds the distances from neighbour T to every d.
   Neighbour by neighbour, two passes over contiguous rows (count, then
   place; a counting sort in cand_off), which the compiler vectorises:
   O(S x degree) per switch with no strided reads. */
static void hop_candidates(void *arg, uint32_t s, uint32_t *cand_off, uint8_t *cand)
{
    const hop_cands *c = arg;
    const ibr_topo *t = c->t;
    size_t n = t->n_sw;
    const uint8_t *hs = c->hops + (size_t)s * n;
    uint32_t a0 = t->adj_off[s], a1 = t->adj_off[s + 1];
    if (n * n <= (1u << 20)) {
        /* the whole matrix fits in cache: one pass, destination by
           destination, is cheaper than two */
        uint32_t k = 0;
        for (uint32_t d = 0; d < n; d++) {
            cand_off[d] = k;
            unsigned hd = hs[d];
            if (d == s || hd == 255)
                continue;
            const uint8_t *rd = c->hops + (size_t)d * n;
            for (uint32_t e = a0; e < a1; e++)
                if (rd[t->adj[e].sw] + 1u == hd)
                    cand[k++] = t->adj[e].port;
        }
        cand_off[n] = k;
        return;
    }
    if (a1 - a0 <= 32) {
        /* one bit per neighbour: cand_off[d] first holds the mask of the
           neighbours one hop closer to d (a vectorised pass per neighbour
           row), then, read and replaced in one pass, the offsets, the
           ports following in neighbour order */
        memset(cand_off, 0, (n + 1) * sizeof *cand_off);
        for (uint32_t e = a0; e < a1; e++) {
            const uint8_t *rt = c->hops + (size_t)t->adj[e].sw * n;
            uint32_t bit = e - a0;
            for (size_t d = 0; d < n; d++)
                cand_off[d] |= (uint32_t)(rt[d] + 1u == hs[d]) << bit;
        }
        uint32_t k = 0;
        for (size_t d = 0; d < n; d++) {
            uint32_t m = hs[d] == 255 ? 0 : cand_off[d];
            cand_off[d] = k;
            while (m) {
                cand[k++] = t->adj[a0 + (uint32_t)__builtin_ctz(m)].port;
                m &= m - 1;
            }
        }
        cand_off[n] = k;
        return;
    }
    memset(cand_off, 0, (n + 1) * sizeof *cand_off);
    /* count into cand_off[d + 1] (an unreachable d, hs[d] == 255, could
       match a neighbour at 254: excluded below) */
    for (uint32_t e = a0; e < a1; e++) {
        const uint8_t *rt = c->hops + (size_t)t->adj[e].sw * n;
        uint32_t *cnt = cand_off + 1;
        for (size_t d = 0; d < n; d++)
            cnt[d] += (uint32_t)(rt[d] + 1u == hs[d]);
    }
    for (size_t d = 0; d < n; d++)
        if (hs[d] == 255)
            cand_off[d + 1] = 0;
    for (size_t d = 0; d < n; d++)
        cand_off[d + 1] += cand_off[d];
    /* place: cand_off[d] walks from start(d) to end(d) = start(d + 1) */
    for (uint32_t e = a0; e < a1; e++) {
        const uint8_t *rt = c->hops + (size_t)t->adj[e].sw * n;
        uint8_t port = t->adj[e].port;
        for (size_t d = 0; d < n; d++)
            if (rt[d] + 1u == hs[d] && hs[d] != 255)
                cand[cand_off[d]++] = port;
    }
    for (size_t d = n; d > 0; d--)
        cand_off[d] = cand_off[d - 1];
    cand_off[0] = 0;
}

typedef struct {
    uint32_t sw;
    uint32_t load;
} sw_load;

static int cmp_load(const void *a, const void *b)
{
    const sw_load *x = a, *y = b;
    if (x->load != y->load)
        return x->load > y->load ? -1 : 1;
    return x->sw < y->sw ? -1 : x->sw > y->sw; /* stable: table order */
}

typedef struct {
    uint64_t key;
    uint32_t gp;
} port_key;

static int cmp_port_key(const void *a, const void *b)
{
    const port_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->gp < y->gp ? -1 : x->gp > y->gp;
}

static void set_dest(const ibr_topo *t, uc_dest *d, uint32_t gp, unsigned lmc_cap, int scatter)
{
    const ibr__port *p = &t->ports[gp];
    uint32_t node = t->port_node[gp];
    unsigned lmc = p->lmc < lmc_cap ? p->lmc : lmc_cap;
    d->node = node;
    d->base = p->lid;
    d->nlids = (uint16_t)(1u << lmc);
    d->is_switch = t->nodes[node].type == IBR_NODE_SWITCH;
    d->dsw = t->lid_sw[p->lid];
    d->dport = t->lid_swport[p->lid];
    d->scatter = (uint8_t)scatter;
}

/* The order in which destinations are routed (OpenSM's port order list):
   guid_routing_order, then the end ports of switches by decreasing number
   of end ports, then the remaining ports (switches) in port-table order. */
static int build_order(uc_dest **out, size_t *n_out, const ibr_topo *t, const ibr_options *o,
                       unsigned lmc_cap)
{
    ibr_context *ctx = t->ctx;
    size_t cap = (size_t)t->n_ports + 1;
    uc_dest *order = ibr__mallocarray(ctx, cap, sizeof *order);
    uint8_t *flag = ibr__calloc(ctx, cap, 1);
    sw_load *loads = ibr__mallocarray(ctx, t->n_sw + 1, sizeof *loads);
    port_key *rest = ibr__mallocarray(ctx, t->n_sw + 1, sizeof *rest);
    size_t n = 0;
    if (!order || !flag || !loads || !rest) {
        ibr__free(ctx, order);
        ibr__free(ctx, flag);
        ibr__free(ctx, loads);
        ibr__free(ctx, rest);
        return IBR_ENOMEM;
    }
    for (size_t i = 0; i < o->n_guid_routing_order; i++) {
        uint32_t gp = ibr__topo_find_port_guid(t, o->guid_routing_order[i]);
        if (gp == IBR_NONE || flag[gp])
            continue;
        flag[gp] = 1;
        if (t->ports[gp].lid)
            set_dest(t, &order[n++], gp, lmc_cap, !o->guid_routing_order_no_scatter);
    }
    for (uint32_t s = 0; s < t->n_sw; s++) {
        const ibr__node *sn = &t->nodes[t->sw_node[s]];
        uint32_t load = 0;
        for (unsigned p = 1; p <= sn->nports; p++) {
            const ibr__port *pt = &t->ports[sn->port_off + p];
            if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE &&
                t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
                load++;
        }
        loads[s] = (sw_load){s, load};
    }
    qsort(loads, t->n_sw, sizeof *loads, cmp_load);
    for (uint32_t i = 0; i < t->n_sw; i++) {
        const ibr__node *sn = &t->nodes[t->sw_node[loads[i].sw]];
        for (unsigned p = 1; p <= sn->nports; p++) {
            const ibr__port *pt = &t->ports[sn->port_off + p];
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
                continue;
            uint32_t gp = t->nodes[pt->remote_node].port_off + pt->remote_port;
            if (flag[gp])
                continue;
            flag[gp] = 1;
            if (t->ports[gp].lid)
                set_dest(t, &order[n++], gp, lmc_cap, 1);
        }
    }
    /* switches, by port GUID table order; unattached end ports get no
       route and need no entry */
    size_t nr = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t gp = t->nodes[t->sw_node[s]].port_off;
        if (!flag[gp] && t->ports[gp].lid)
            rest[nr++] = (port_key){ibr__guid_key(t->ports[gp].guid), gp};
    }
    qsort(rest, nr, sizeof *rest, cmp_port_key);
    for (size_t i = 0; i < nr; i++)
        set_dest(t, &order[n++], rest[i].gp, lmc_cap, 1);
    ibr__free(ctx, flag);
    ibr__free(ctx, loads);
    ibr__free(ctx, rest);
    *out = order;
    *n_out = n;
    return 0;
}

static int build_ignored(uint8_t **out, const ibr_topo *t, const ibr_options *o)
{
    *out = NULL;
    if (!o->n_ignore_ports)
        return 0;
    uint8_t *ig = ibr__calloc(t->ctx, t->n_ports ? t->n_ports : 1, 1);
    if (!ig)
        return IBR_ENOMEM;
    for (size_t i = 0; i < o->n_ignore_ports; i++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_find_guid(&node, &port, t, o->ignore_ports[i].guid) < 0)
            continue;
        const ibr__node *n = &t->nodes[node];
        unsigned p = o->ignore_ports[i].port;
        if (n->type != IBR_NODE_SWITCH || p < 1 || p > n->nports)
            continue;
        ig[n->port_off + p] = 1;
    }
    *out = ig;
    return 0;
}

int ibr_run_ucast(ibr_run *run, const uint8_t *least, ibr_cand_fn cands, void *cands_arg,
                  const char *name)
{
    return ibr_run_ucast_ex(run, least, cands, cands_arg, name, 0);
}

int ibr_run_ucast_ex(ibr_run *run, const uint8_t *least, ibr_cand_fn cands, void *cands_arg,
                     const char *name, unsigned int flags)
{
    if (!run || !least)
        return IBR_EINVAL;
    if (flags & ~(unsigned)(IBR_UCAST_SEARCH_ORDER | IBR_UCAST_LMC_REMOTE_PORT))
        return ibr__run_fail(run, IBR_EINVAL, IBR__MSG("RN001", "ucast: unknown flags"));
    if (!name)
        name = "forwarding tables";
    const ibr_topo *t = run->topo;
    const ibr_options *o = &run->opts;
    ibr_context *ctx = t->ctx;
    ibr_result *r = run->res;
    uc_job j;
    memset(&j, 0, sizeof j);
    j.t = t;
    j.o = o;
    j.flags = flags;
    unsigned lmc_cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    int rc;
    uc_dest *order = NULL;
    uint8_t *ignored = NULL;
    unsigned nw = run->nthreads;
    uc_worker *w = NULL;

    if ((rc = build_order(&order, &j.n_order, t, o, lmc_cap)) < 0)
        goto out;
    if ((rc = build_ignored(&ignored, t, o)) < 0)
        goto out;
    for (size_t i = 0; i < j.n_order; i++) {
        unsigned l = 0;
        while ((1u << l) < order[i].nlids)
            l++;
        if (l > j.lmc)
            j.lmc = l;
    }
    j.used_cap = 1u << j.lmc;
    j.hops = least;
    hop_cands hc = {t, least};
    j.cands = cands ? cands : hop_candidates;
    j.cands_arg = cands ? cands_arg : &hc;
    j.order = order;
    j.ignored = ignored;
    j.lft = r->lft;
    j.lft_size = r->lft_size;
    if (nw > t->n_sw)
        nw = t->n_sw ? t->n_sw : 1;
    w = ibr__calloc(ctx, nw, sizeof *w);
    if (!w) {
        rc = IBR_ENOMEM;
        goto out;
    }
    size_t ncand;
    {
        /* the candidate lists of one switch hold at most n_sw * degree ports */
        uint32_t maxdeg = 0;
        for (uint32_t s = 0; s < t->n_sw; s++)
            if (t->adj_off[s + 1] - t->adj_off[s] > maxdeg)
                maxdeg = t->adj_off[s + 1] - t->adj_off[s];
        ncand = (size_t)t->n_sw * (maxdeg ? maxdeg : 1);
    }
    for (unsigned i = 0; i < nw; i++) {
        w[i].cand_off = ibr__mallocarray(ctx, (size_t)t->n_sw + 1, sizeof *w[i].cand_off);
        w[i].cand = ibr__mallocarray(ctx, ncand, 1);
        w[i].cand4 = ibr__mallocarray(ctx, (size_t)(t->n_sw ? t->n_sw : 1) * 4, 1);
        if (!w[i].cand_off || !w[i].cand || !w[i].cand4) {
            rc = IBR_ENOMEM;
            goto out;
        }
        if (j.lmc) {
            size_t nu = j.n_order * j.used_cap;
            w[i].used_node = ibr__mallocarray(ctx, nu, sizeof *w[i].used_node);
            w[i].used_cnt = ibr__mallocarray(ctx, nu, sizeof *w[i].used_cnt);
            w[i].used_n = ibr__mallocarray(ctx, j.n_order + 1, 1);
            if (flags & IBR_UCAST_LMC_REMOTE_PORT)
                w[i].used_port = ibr__mallocarray(ctx, nu ? nu : 1, 1);
            if (!w[i].used_node || !w[i].used_cnt || !w[i].used_n ||
                ((flags & IBR_UCAST_LMC_REMOTE_PORT) && !w[i].used_port)) {
                rc = IBR_ENOMEM;
                goto out;
            }
        }
    }
    j.w = w;
    if ((rc = ibr_run_progress(run, name, 0, 1)) < 0)
        goto out;
    rc = ibr__run_parallel_for(run, nw, t->n_sw, route_switch, &j);
    if (rc == 0)
        rc = ibr_run_progress(run, name, 1, 1);
out:
    if (w)
        for (unsigned i = 0; i < nw; i++) {
            ibr__free(ctx, w[i].cand_off);
            ibr__free(ctx, w[i].cand);
            ibr__free(ctx, w[i].cand4);
            ibr__free(ctx, w[i].used_node);
            ibr__free(ctx, w[i].used_cnt);
            ibr__free(ctx, w[i].used_port);
            ibr__free(ctx, w[i].used_n);
        }
    ibr__free(ctx, w);
    ibr__free(ctx, order);
    ibr__free(ctx, ignored);
    if (rc == IBR_ENOMEM)
        return ibr__run_fail(run, rc, "out of memory");
    return rc;
}
