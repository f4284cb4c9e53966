/*
 * dmodc: closed-form routing for fat trees, intact or degraded (XGFT and
 * PGFT, parallel cables, lost cables and switches, leaves that lost end
 * ports), after Zahavi's D-mod-K and Gliksberg, Quintin and García's
 * Dmodc (IEEE Micro 40(1), 2020). No search and no load counters: every
 * forwarding entry follows from the switch's level, the destination's index
 * and the ports that survive, so a fault changes the entries that crossed
 * it and those its detour moves, not the whole table.
 *
 * 1. Levels. The switches that carry end ports are the leaves (level 1);
 *    every other switch's level is one more than its distance to the
 *    nearest leaf. A cable between two switches of one level (a torus, a
 *    mesh, hosts on a spine) declines the engine: a fat tree's cables join
 *    adjacent levels only. Switches no leaf reaches get no routes.
 * 2. Destination index. Leaves are ordered pod by pod: the switches of
 *    levels <= l that are connected through each other form the pods of
 *    level l, and a leaf sorts by the pods that hold it, from the top, then
 *    by its first end port (topology order); a pod sorts by its first leaf.
 *    End port j of the i-th leaf has index i * M + j (M: most end ports on
 *    one leaf), j its leaf port less the lowest leaf port of any end port
 *    when every leaf's end ports lie within M port numbers (a leaf that
 *    lost end ports then keeps the others' indices), else its rank on the
 *    leaf in topology order. A switch's LID follows the last leaf. LID k
 *    of a port with n = 2^LMC LIDs takes the upper neighbour k W / n places
 *    on (W upper neighbours per leaf) while n <= W, else k places on and,
 *    past W, the next parallel cable: the LIDs of one port leave through
 *    different upper switches, evenly spaced. Above the leaves their slots
 *    follow the digits of k (lmc_slots), so that on an intact tree the
 *    LIDs of a port turn at min(n, offered) different switches.
 * 3. Costs. Per switch s and destination switch d, the length of the
 *    shortest up*down* path (up: toward a higher level): a bottom-up pass
 *    over the levels gives the down distances, a top-down pass the up*down*
 *    distances. They are the run's hop matrix. 64 destinations at a time,
 *    one byte each, on the run's threads: O(S/64 * E) vector steps.
 * 4. Tables. Switch s routes destination d down when d lies below it
 *    (its cost equals the level difference), among the down ports whose
 *    neighbour is one closer, else up among the up ports whose neighbour is
 *    one closer. Up: with K the usual number of up ports at s's level and
 *    P the product of those numbers at the levels below (the D-mod-K
 *    divider), the nominal port is slot (x / P) mod K of the level's up
 *    port numbers (x: destination index); when it is lost or does not lead
 *    closer, the candidates are taken (x / P + r) mod k, r the switch's
 *    rank in its level, so that a detoured destination leaves the
 *    switches of a level on different detours. Down: (x / P') mod k
 *    with P' the divider of the level below, which keeps a cable of a
 *    parallel group for the destinations that came up through it. On an
 *    intact XGFT/PGFT this is D-mod-K: every shift permutation (in the
 *    destination order) is congestion-free. O(S * L) plus O(S * P) per
 *    destination switch routed down or detoured (P links per switch).
 *
 * Every route is up*down* over strictly increasing then decreasing levels,
 * so the routing is deadlock-free on one VL, and every pair of end ports
 * that has an up*down* path gets one of minimal length.
 */
#include <inttypes.h>
#include <string.h>

#include "engines/engine_int.h"

#define DM_MAX_LEVELS 16
#define DM_INF 255u
#define DM_BLOCK 64          /* destinations per cost item */
#define DM_PI_CAP ((uint64_t)1 << 31)

typedef struct dmodc {
    ibr_run *run;
    const ibr_topo *t;
    ibr_context *ctx;
    uint32_t nsw;
    unsigned nlev;           /* highest level */
    unsigned lmc_cap;
    uint8_t *lev;            /* per switch, 0 = unranked */
    uint32_t *bylev;         /* ranked switches by level, then index */
    uint32_t *rank;          /* per switch: its position in bylev within its level */
    uint32_t lev_off[DM_MAX_LEVELS + 2];
    /* per switch: links down (to level - 1) and up (to level + 1), in
       local port order */
    uint32_t *dn_off, *up_off;
    ibr__adj *dn, *up;
    uint8_t *hops;           /* the run's hop matrix: up*down* costs */
    uint8_t *cost;           /* the same (read by the table pass) */
    uint32_t nswp;           /* its row length: nsw */
    /* per level: usual number of up ports, divider, slot port numbers */
    unsigned K[DM_MAX_LEVELS + 2];
    uint64_t Pi[DM_MAX_LEVELS + 2];
    uint8_t slot[DM_MAX_LEVELS + 2][256];
    uint8_t slotted[DM_MAX_LEVELS + 2];
    uint32_t stride;         /* LMC offset step */
    uint32_t *lidx;          /* per LID: destination index, IBR_NONE = none */
    uint32_t *dl_off, *dl;   /* LIDs by destination switch */
    uint8_t *cur;            /* cost scratch: nw * nsw * DM_BLOCK */
    unsigned nw;
    uint32_t nleaves;
    uint32_t maxep;
    /* per level: x / Pi and (x / Pi) mod K of every LID */
    uint32_t *q[DM_MAX_LEVELS + 2];
    uint8_t *r[DM_MAX_LEVELS + 2];
} dmodc;

static uint64_t sw_guid(const dmodc *m, uint32_t s)
{
    return m->t->nodes[m->t->sw_node[s]].guid;
}

/* ------------------------------------------------------------------ */
/* levels                                                              */

/* The leaf of each routed end-port LID's switch: lid_sw of its base LID. */
static uint32_t ep_switch(const ibr_topo *t, uint32_t i)
{
    const ibr__port *pt = &t->ports[t->end_port[i]];
    return pt->lid ? t->lid_sw[pt->lid] : IBR_NONE;
}

static int make_levels(dmodc *m)
{
    const ibr_topo *t = m->t;
    uint32_t nsw = m->nsw;
    uint32_t *src = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *src);
    uint32_t *dist = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *dist);
    uint32_t *queue = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *queue);
    int rc = 0;
    if (!src || !dist || !queue) {
        rc = ibr__fail(m->run, IBR_ENOMEM, "out of memory");
        goto out;
    }
    size_t nsrc = 0;
    for (uint32_t s = 0; s < nsw; s++)
        dist[s] = 0;
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint32_t s = ep_switch(t, i);
        if (s != IBR_NONE && !dist[s]) {
            dist[s] = 1;
            src[nsrc++] = s;
        }
    }
    if (nsrc == 0) {
        rc = ibr__decline(m->run, "no end port is cabled to a switch: nothing to route");
        goto out;
    }
    ibr__bfs(dist, t, src, nsrc, queue);
    m->nlev = 0;
    uint32_t unranked = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        if (dist[s] == UINT32_MAX) {
            m->lev[s] = 0;
            unranked++;
            continue;
        }
        if (dist[s] + 1 > DM_MAX_LEVELS) {
            rc = ibr__decline(m->run,
                              "switch 0x%016" PRIx64 " is %u links from the nearest switch "
                              "with end ports; dmodc ranks at most %u levels",
                              sw_guid(m, s), dist[s], DM_MAX_LEVELS);
            goto out;
        }
        m->lev[s] = (uint8_t)(dist[s] + 1);
        if (m->lev[s] > m->nlev)
            m->nlev = m->lev[s];
    }
    for (uint32_t s = 0; s < nsw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t r = t->adj[e].sw;
            if (m->lev[s] && m->lev[s] == m->lev[r]) {
                rc = ibr__decline(
                    m->run,
                    "switches 0x%016" PRIx64 " and 0x%016" PRIx64 " are cabled together "
                    "(port %u) but both at level %u (1 + links to the nearest switch with end "
                    "ports): not a fat tree, whose cables join adjacent levels",
                    sw_guid(m, s), sw_guid(m, r), t->adj[e].port, m->lev[s]);
                goto out;
            }
        }
    if (unranked)
        ibr__log(m->ctx, IBR_LOG_INFO,
                 "dmodc: %u switch(es) reach no switch with end ports and get no routes",
                 unranked);
    /* switches by level (counting sort), links split down and up */
    memset(m->lev_off, 0, sizeof m->lev_off);
    for (uint32_t s = 0; s < nsw; s++)
        if (m->lev[s])
            m->lev_off[m->lev[s] + 1]++;
    for (unsigned l = 1; l <= DM_MAX_LEVELS; l++)
        m->lev_off[l + 1] += m->lev_off[l];
    uint32_t fill[DM_MAX_LEVELS + 2];
    memcpy(fill, m->lev_off, sizeof fill);
    for (uint32_t s = 0; s < nsw; s++)
        if (m->lev[s]) {
            m->rank[s] = fill[m->lev[s]] - m->lev_off[m->lev[s]];
            m->bylev[fill[m->lev[s]]++] = s;
        }
    uint32_t nd = 0, nu = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        m->dn_off[s] = nd;
        m->up_off[s] = nu;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t r = t->adj[e].sw;
            if (!m->lev[s])
                continue;
            if (m->lev[r] < m->lev[s])
                m->dn[nd++] = t->adj[e];
            else
                m->up[nu++] = t->adj[e];
        }
    }
    m->dn_off[nsw] = nd;
    m->up_off[nsw] = nu;
out:
    ibr__free(m->ctx, src);
    ibr__free(m->ctx, dist);
    ibr__free(m->ctx, queue);
    return rc;
}

/* Is port p free (no active cable) on every switch of level l? */
static int free_on_level(const dmodc *m, unsigned l, unsigned p)
{
    const ibr_topo *t = m->t;
    for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
        const ibr__node *nd = &t->nodes[t->sw_node[m->bylev[i]]];
        if (p == 0 || p > nd->nports)
            return 0;
        const ibr__port *pt = &t->ports[nd->port_off + p];
        if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE)
            return 0;
    }
    return 1;
}

/* The ports of an upper switch that is gone are free on every switch
   below it. While level l has fewer slots than its switches have links
   down (end ports at the leaves: a tree with full bisection), such ports
   inside the range of the slot ports, then next to it, stay slots, so
   that the lost switch's destinations are detoured and spread over the
   others, instead of the formula running modulo one port less, which
   would send two destinations of a leaf down one cable from everywhere. */
static void lost_slots(const dmodc *m, unsigned l, unsigned target, uint8_t *seen, unsigned *n)
{
    unsigned lo = 256, hi = 0;
    for (unsigned p = 0; p < 256; p++)
        if (seen[p]) {
            lo = p < lo ? p : lo;
            hi = p;
        }
    if (lo > hi || *n >= target)
        return;
    unsigned add = 0;
    for (unsigned p = lo; p <= hi; p++) {
        if (seen[p])
            continue;
        if (!free_on_level(m, l, p))
            return; /* a port in use within the range: no lost switch's */
        add++;
    }
    if (*n + add > target)
        return;
    for (unsigned p = lo; p <= hi; p++)
        seen[p] = 1;
    *n += add;
    while (*n < target && lo > 1 && free_on_level(m, l, lo - 1)) {
        seen[--lo] = 1;
        ++*n;
    }
    while (*n < target && hi < 254 && free_on_level(m, l, hi + 1)) {
        seen[++hi] = 1;
        ++*n;
    }
}

/* The most common value of v over the switches of level l (ties: larger). */
static unsigned level_mode(const dmodc *m, unsigned l, int down)
{
    uint32_t cnt[256];
    memset(cnt, 0, sizeof cnt);
    const ibr_topo *t = m->t;
    for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
        uint32_t s = m->bylev[i];
        uint32_t v = 0;
        if (!down) {
            v = m->up_off[s + 1] - m->up_off[s];
        } else if (l > 1) {
            v = m->dn_off[s + 1] - m->dn_off[s];
        } else {
            const ibr__node *nd = &t->nodes[t->sw_node[s]];
            for (unsigned p = 1; p <= nd->nports; p++) {
                const ibr__port *pt = &t->ports[nd->port_off + p];
                v += pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE &&
                     t->nodes[pt->remote_node].type != IBR_NODE_SWITCH;
            }
        }
        cnt[v > 255 ? 255 : v]++;
    }
    unsigned best = 0;
    for (unsigned k = 1; k < 256; k++)
        if (cnt[k] && cnt[k] >= cnt[best])
            best = k;
    return best;
}

/* Per level: K (the most common number of up ports, ties to the larger),
   the slot port numbers (the up ports of the switches that have K of
   them, usable as slots when they are K port numbers in all) and the
   divider Pi (product of K below). */
static void make_dividers(dmodc *m)
{
    for (unsigned l = 1; l <= m->nlev; l++) {
        unsigned best = level_mode(m, l, 0);
        uint8_t seen[256];
        memset(seen, 0, sizeof seen);
        unsigned n = 0;
        for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
            uint32_t s = m->bylev[i];
            if (m->up_off[s + 1] - m->up_off[s] != best)
                continue;
            for (uint32_t e = m->up_off[s]; e < m->up_off[s + 1]; e++)
                if (!seen[m->up[e].port]) {
                    seen[m->up[e].port] = 1;
                    n++;
                }
        }
        m->slotted[l] = best > 0 && n == best;
        if (m->slotted[l])
            lost_slots(m, l, level_mode(m, l, 1), seen, &n);
        m->K[l] = m->slotted[l] ? n : (best ? best : 1);
        n = 0;
        for (unsigned p = 0; p < 256 && m->slotted[l]; p++)
            if (seen[p])
                m->slot[l][n++] = (uint8_t)p;
    }
    m->Pi[0] = m->Pi[1] = 1;
    for (unsigned l = 2; l <= m->nlev + 1; l++) {
        uint64_t p = m->Pi[l - 1] * m->K[l - 1];
        m->Pi[l] = p > DM_PI_CAP ? DM_PI_CAP : p;
    }
    /* LMC step: the parallel cables per upper neighbour of a usual leaf */
    m->stride = 1;
    unsigned up1 = level_mode(m, 1, 0);
    for (uint32_t i = m->lev_off[1]; i < m->lev_off[2]; i++) {
        uint32_t s = m->bylev[i];
        uint32_t b = m->up_off[s], e = m->up_off[s + 1];
        if (e - b != up1 || e == b)
            continue;
        uint32_t distinct = 0;
        for (uint32_t a = b; a < e; a++) {
            uint32_t c = b;
            while (c < a && m->up[c].sw != m->up[a].sw)
                c++;
            distinct += c == a;
        }
        m->stride = (e - b) / distinct;
        break;
    }
}

/* ------------------------------------------------------------------ */
/* destination index                                                   */

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

typedef struct leaf_key {
    uint32_t sw;
    uint32_t key[DM_MAX_LEVELS]; /* pod keys from the top, then the leaf's */
} leaf_key;

static int cmp_leaf(const void *a, const void *b, void *arg)
{
    const leaf_key *x = a, *y = b;
    unsigned n = *(const unsigned *)arg;
    for (unsigned i = 0; i < n; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

static int make_index(dmodc *m)
{
    const ibr_topo *t = m->t;
    uint32_t nsw = m->nsw;
    ibr_context *ctx = m->ctx;
    uint32_t nl = m->lev_off[2] - m->lev_off[1];
    uint32_t *first = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *first);
    uint32_t *uf = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *uf);
    uint32_t *podkey = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *podkey);
    uint32_t *ord = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *ord);
    uint32_t *nep = ibr__calloc(ctx, nsw ? nsw : 1, sizeof *nep);
    leaf_key *lk = ibr__mallocarray(ctx, nl ? nl : 1, sizeof *lk);
    int rc = 0;
    if (!first || !uf || !podkey || !ord || !nep || !lk) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < nsw; s++)
        first[s] = IBR_NONE;
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint32_t s = ep_switch(t, i);
        if (s != IBR_NONE && first[s] == IBR_NONE)
            first[s] = i;
    }
    /* keys: pods of levels top-1 .. 2, then the leaf's first end port */
    unsigned nk = m->nlev >= 2 ? m->nlev - 1 : 1;
    for (uint32_t i = 0; i < nl; i++) {
        lk[i].sw = m->bylev[m->lev_off[1] + i];
        lk[i].key[nk - 1] = first[lk[i].sw];
    }
    for (uint32_t s = 0; s < nsw; s++)
        uf[s] = s;
    for (unsigned l = 2; l < m->nlev; l++) {
        /* join the level-l switches to their neighbours below */
        for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
            uint32_t s = m->bylev[i];
            for (uint32_t e = m->dn_off[s]; e < m->dn_off[s + 1]; e++) {
                uint32_t a = uf_find(uf, s), b = uf_find(uf, m->dn[e].sw);
                if (a != b)
                    uf[a > b ? a : b] = a < b ? a : b;
            }
        }
        for (uint32_t s = 0; s < nsw; s++)
            podkey[s] = UINT32_MAX;
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t r = uf_find(uf, lk[i].sw);
            if (lk[i].key[nk - 1] < podkey[r])
                podkey[r] = lk[i].key[nk - 1];
        }
        for (uint32_t i = 0; i < nl; i++)
            lk[i].key[m->nlev - 1 - l] = podkey[uf_find(uf, lk[i].sw)];
    }
    ibr__sort(lk, nl, sizeof *lk, cmp_leaf, &nk);
    for (uint32_t s = 0; s < nsw; s++)
        ord[s] = IBR_NONE;
    for (uint32_t i = 0; i < nl; i++)
        ord[lk[i].sw] = i;
    m->nleaves = nl;
    m->maxep = 0;
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint32_t s = ep_switch(t, i);
        if (s != IBR_NONE && ++nep[s] > m->maxep)
            m->maxep = nep[s];
    }
    /* slots by leaf port when the end ports of every leaf lie within one
       range of maxep port numbers (a leaf that lost end ports keeps the
       slots of the others), else by rank in topology order */
    unsigned pmin = 255, pmax = 0;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        if (ep_switch(t, i) == IBR_NONE)
            continue;
        unsigned p = t->lid_swport[pt->lid];
        pmin = p < pmin ? p : pmin;
        pmax = p > pmax ? p : pmax;
    }
    int by_port = pmax >= pmin && pmax - pmin + 1 == m->maxep;
    memset(nep, 0, nsw * sizeof *nep);
    for (size_t l = 0; l <= t->max_lid; l++)
        m->lidx[l] = IBR_NONE;
    uint32_t nlids = 1u << m->lmc_cap;
    /* LID o of a port: over the kw upper neighbours of a leaf first, evenly
       spaced (o kw / n of them, n LIDs) while n <= kw, else one after the
       other, then over the parallel cables to each (st of them) */
    uint32_t st = m->stride, kw = st > 1 && m->K[1] >= st ? m->K[1] / st : m->K[1];
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint32_t s = ep_switch(t, i);
        if (s == IBR_NONE)
            continue;
        const ibr__port *pt = &t->ports[t->end_port[i]];
        uint32_t slot = by_port ? t->lid_swport[pt->lid] - pmin : nep[s]++;
        uint32_t x = ord[s] * m->maxep + slot;
        uint32_t n = 1u << (pt->lmc < m->lmc_cap ? pt->lmc : m->lmc_cap);
        for (uint32_t o = 0; o < n; o++)
            if (pt->lid + o <= t->max_lid)
                m->lidx[pt->lid + o] =
                    !kw       ? x + o * st
                    : n <= kw ? x + o * kw / n * st
                              : x + o % kw * st + o / kw % st + o / (kw * st) * kw * st;
    }
    uint32_t base = nl * m->maxep;
    for (uint32_t s = 0; s < nsw; s++) {
        const ibr__port *pt = &t->ports[t->nodes[t->sw_node[s]].port_off];
        if (!pt->lid)
            continue;
        for (uint32_t o = 0; o < (1u << pt->lmc) && o < nlids; o++)
            if (pt->lid + o <= t->max_lid)
                m->lidx[pt->lid + o] = base + s + o;
    }
    /* LIDs by destination switch */
    memset(m->dl_off, 0, (nsw + 1) * sizeof *m->dl_off);
    for (size_t l = 0; l <= t->max_lid; l++)
        if (m->lidx[l] != IBR_NONE && t->lid_sw[l] != IBR_NONE)
            m->dl_off[t->lid_sw[l] + 1]++;
    for (uint32_t s = 0; s < nsw; s++)
        m->dl_off[s + 1] += m->dl_off[s];
    memcpy(uf, m->dl_off, nsw * sizeof *uf);
    for (size_t l = 0; l <= t->max_lid; l++)
        if (m->lidx[l] != IBR_NONE && t->lid_sw[l] != IBR_NONE)
            m->dl[uf[t->lid_sw[l]]++] = (uint32_t)l;
out:
    ibr__free(ctx, first);
    ibr__free(ctx, uf);
    ibr__free(ctx, podkey);
    ibr__free(ctx, ord);
    ibr__free(ctx, nep);
    ibr__free(ctx, lk);
    return rc;
}

/* The rank-order artefact: the routed end ports by destination index. */
typedef struct dm_rank {
    uint64_t index;
    uint32_t gp;
} dm_rank;

static int cmp_rank(const void *a, const void *b, void *arg)
{
    (void)arg;
    const dm_rank *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int rank_order_artifact(dmodc *m)
{
    const ibr_topo *t = m->t;
    size_t n = 0, cap = t->n_end ? t->n_end : 1;
    dm_rank *r = ibr__mallocarray(m->ctx, cap, sizeof *r);
    uint32_t *gp = ibr__mallocarray(m->ctx, cap, sizeof *gp);
    uint64_t *index = ibr__mallocarray(m->ctx, cap, sizeof *index);
    int rc = IBR_ENOMEM;
    if (r && gp && index) {
        for (uint32_t i = 0; i < t->n_end; i++) {
            uint16_t lid = t->ports[t->end_port[i]].lid;
            if (ep_switch(t, i) != IBR_NONE && m->lidx[lid] != IBR_NONE) {
                r[n].index = m->lidx[lid];
                r[n++].gp = t->end_port[i];
            }
        }
        ibr__sort(r, n, sizeof *r, cmp_rank, NULL);
        for (size_t i = 0; i < n; i++) {
            gp[i] = r[i].gp;
            index[i] = r[i].index;
        }
        rc = ibr__rank_order_artifact(m->run, "dmodc", gp, index, n);
    }
    ibr__free(m->ctx, r);
    ibr__free(m->ctx, gp);
    ibr__free(m->ctx, index);
    return rc;
}

/* ------------------------------------------------------------------ */
/* costs                                                               */

/* r[j] = min(r[j], c[j] + 1), 255 staying 255 */
static inline void min_inc(uint8_t *restrict r, const uint8_t *restrict c)
{
    for (unsigned j = 0; j < DM_BLOCK; j++) {
        uint8_t v = (uint8_t)(c[j] + (c[j] < DM_INF));
        r[j] = v < r[j] ? v : r[j];
    }
}

static int cost_block(void *arg, unsigned worker, size_t b)
{
    dmodc *m = arg;
    uint32_t nsw = m->nsw;
    uint8_t *cur = m->cur + (size_t)worker * nsw * DM_BLOCK;
    uint32_t d0 = (uint32_t)b * DM_BLOCK;
    uint32_t nb = nsw - d0 < DM_BLOCK ? nsw - d0 : DM_BLOCK;
    memset(cur, DM_INF, (size_t)nsw * DM_BLOCK);
    for (uint32_t j = 0; j < nb; j++)
        cur[(size_t)(d0 + j) * DM_BLOCK + j] = 0;
    uint32_t n = m->lev_off[m->nlev + 1];
    /* down distances, bottom-up */
    for (uint32_t i = m->lev_off[2]; i < n; i++) {
        uint32_t s = m->bylev[i];
        for (uint32_t e = m->dn_off[s]; e < m->dn_off[s + 1]; e++)
            min_inc(cur + (size_t)s * DM_BLOCK, cur + (size_t)m->dn[e].sw * DM_BLOCK);
    }
    /* up*down*, top-down */
    for (uint32_t i = n; i-- > 0;) {
        uint32_t s = m->bylev[i];
        for (uint32_t e = m->up_off[s]; e < m->up_off[s + 1]; e++)
            min_inc(cur + (size_t)s * DM_BLOCK, cur + (size_t)m->up[e].sw * DM_BLOCK);
    }
    for (uint32_t s = 0; s < nsw; s++)
        memcpy(m->hops + (size_t)s * nsw + d0, cur + (size_t)s * DM_BLOCK, nb);
    return 0;
}

/* ------------------------------------------------------------------ */
/* tables                                                              */

/* The ports of switch s on its links l[0 .. n - 1] whose neighbour is one
   closer to destination switch d (cost c at s), in local port order. */
static unsigned candidates(uint8_t *cand, const dmodc *m, const ibr__adj *l, uint32_t n,
                           uint32_t d, unsigned c)
{
    unsigned k = 0;
    for (uint32_t a = 0; a < n; a++)
        if (m->cost[(size_t)l[a].sw * m->nswp + d] + 1u == c)
            cand[k++] = l[a].port;
    return k;
}

/* A LID of a port with LMC > 0 detoured at switch s (level ls, cost c to
   its destination switch d): of the k candidates, the first from j on
   that no other LID of the port takes here (its nominal up link, or the
   entry it already got), so that a lost slot does not put two LIDs of a
   port on one upper switch; else the first that no LID sharing its
   switches below takes; j when every candidate is taken. */
static unsigned lmc_detour(const dmodc *m, const uint8_t *lft, const uint8_t *slot_link,
                           const ibr__adj *up, unsigned ls, uint32_t d, unsigned c,
                           uint32_t lid, const uint8_t *cand, unsigned k, unsigned j)
{
    const ibr_topo *t = m->t;
    const ibr__port *pt = &t->ports[t->lid_port[lid]];
    unsigned n = 1u << (pt->lmc < m->lmc_cap ? pt->lmc : m->lmc_cap);
    if (n == 1 || k < 2)
        return j;
    /* LIDs that share switches below on an intact tree share o mod P (as
       in lmc_slots): bit 1 marks their ports, bit 0 those of any LID */
    uint64_t P = 1;
    for (unsigned l = 1; l < ls && P < n; l++)
        P *= l > 1 ? m->K[l] : m->stride > 1 && m->K[1] >= m->stride ? m->K[1] / m->stride
                                                                    : m->K[1];
    uint8_t used[256];
    memset(used, 0, sizeof used);
    for (uint32_t o = pt->lid; o < pt->lid + n && o <= t->max_lid; o++) {
        if (o == lid || m->lidx[o] == IBR_NONE)
            continue;
        unsigned a = slot_link[m->r[ls][o]], p = 0;
        if (o < lid)
            p = lft[o];
        else if (a != 255 && m->cost[(size_t)up[a].sw * m->nswp + d] + 1u == c)
            p = up[a].port;
        used[p] |= (uint8_t)(1 | ((o - pt->lid) % P == (lid - pt->lid) % P) << 1);
    }
    for (unsigned bit = 1; bit <= 2; bit <<= 1)
        for (unsigned i = 0; i < k; i++)
            if (!(used[cand[(j + i) % k]] & bit))
                return (j + i) % k;
    return j;
}

/* The forwarding entries of switch s: per destination switch, down when it
   lies below s, else up; per LID the nominal up slot when its link leads
   closer, else the candidates modulo their number. Time O(L + S * P) with
   P links per switch (the candidates are listed only for destinations
   routed down, on levels without slots, or whose nominal link fails). */
static int table_switch(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    dmodc *m = arg;
    const ibr_topo *t = m->t;
    uint32_t nsw = m->nsw;
    uint32_t s = (uint32_t)i;
    uint8_t *lft = ibr_run_lft(m->run, s);
    if (!lft)
        return IBR_EINTERNAL;
    /* its own LIDs and its end ports */
    for (uint32_t k = m->dl_off[s]; k < m->dl_off[s + 1]; k++)
        lft[m->dl[k]] = t->lid_swport[m->dl[k]];
    unsigned ls = m->lev[s];
    if (!ls)
        return 0;
    const uint8_t *hs = m->cost + (size_t)s * m->nswp;
    const ibr__adj *up = m->up + m->up_off[s], *dn = m->dn + m->dn_off[s];
    uint32_t nup = m->up_off[s + 1] - m->up_off[s], ndn = m->dn_off[s + 1] - m->dn_off[s];
    /* the up link on each slot's port (255: none) */
    uint8_t slot_link[256];
    memset(slot_link, 255, sizeof slot_link);
    if (m->slotted[ls]) {
        uint8_t by_port[256];
        memset(by_port, 255, sizeof by_port);
        for (uint32_t a = 0; a < nup && a < 255; a++)
            by_port[up[a].port] = (uint8_t)a;
        for (unsigned k = 0; k < m->K[ls]; k++)
            slot_link[k] = by_port[m->slot[ls][k]];
    }
    const uint32_t *qdn = m->q[ls - 1], *qup = m->q[ls];
    const uint8_t *rup = m->r[ls];
    uint8_t cand[256];
    /* a destination whose nominal link fails leaves each switch of the
       level on a different candidate: its traffic from many sources then
       spreads over the detours instead of doubling one link */
    uint32_t spread = m->slotted[ls] ? m->rank[s] : 0;
    for (uint32_t d = 0; d < nsw; d++) {
        unsigned c = hs[d];
        uint32_t q0 = m->dl_off[d], q1 = m->dl_off[d + 1];
        if (d == s || q0 == q1 || c == DM_INF)
            continue;
        if (ls > m->lev[d] && c == ls - m->lev[d]) {
            unsigned k = candidates(cand, m, dn, ndn, d, c);
            for (uint32_t q = q0; q < q1 && k; q++)
                lft[m->dl[q]] = cand[k == 1 ? 0 : qdn[m->dl[q]] % k];
            continue;
        }
        unsigned k = 0; /* candidates listed yet */
        for (uint32_t q = q0; q < q1; q++) {
            uint32_t lid = m->dl[q];
            unsigned a = slot_link[rup[lid]];
            if (a != 255 && m->cost[(size_t)up[a].sw * m->nswp + d] + 1u == c) {
                lft[lid] = up[a].port;
                continue;
            }
            if (!k && !(k = candidates(cand, m, up, nup, d, c)))
                break;
            lft[lid] = cand[lmc_detour(m, lft, slot_link, up, ls, d, c, lid, cand, k,
                                       (qup[lid] + spread) % k)];
        }
    }
    return 0;
}

/* The up slots of LIDs o = 1 .. 2^LMC - 1 after a port's base LID, at
   levels 2 and up: the base LID's slot plus the digit of o at the level
   (o / P, P the product of the radices below: the leaves' upper
   neighbours, then K), plus o mod P spread over the slots. LIDs that share
   a switch on an intact tree have the same o mod P and differ in the
   digit; LIDs that share one because a lost link below made them detour
   differ in o mod P: either way they leave on different slots. */
static void lmc_slots(dmodc *m)
{
    const ibr_topo *t = m->t;
    uint32_t w = m->stride > 1 && m->K[1] >= m->stride ? m->K[1] / m->stride : m->K[1];
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        uint32_t n = 1u << (pt->lmc < m->lmc_cap ? pt->lmc : m->lmc_cap);
        if (!pt->lid || n == 1 || pt->lid + n - 1 > t->max_lid || m->lidx[pt->lid] == IBR_NONE)
            continue;
        uint64_t P = w ? w : 1;
        for (unsigned l = 2; l <= m->nlev; l++) {
            uint32_t K = m->K[l] ? m->K[l] : 1;
            for (uint32_t o = 1; o < n; o++) {
                uint64_t off = o / P + o % P * ((n + P - 1) / P);
                m->r[l][pt->lid + o] = (uint8_t)((m->r[l][pt->lid] + off) % K);
            }
            P = P * K > DM_PI_CAP ? DM_PI_CAP : P * K;
        }
    }
}

/* Per level l and LID: q = x / Pi[l] and r = q mod K[l]. */
static int make_quotients(dmodc *m)
{
    size_t nl = (size_t)m->t->max_lid + 1;
    for (unsigned l = 0; l <= m->nlev; l++) {
        m->q[l] = ibr__mallocarray(m->ctx, nl, sizeof *m->q[l]);
        m->r[l] = ibr__mallocarray(m->ctx, nl, 1);
        if (!m->q[l] || !m->r[l])
            return IBR_ENOMEM;
        uint32_t pi = (uint32_t)m->Pi[l], K = m->K[l] ? m->K[l] : 1;
        for (size_t lid = 0; lid < nl; lid++) {
            uint32_t x = m->lidx[lid];
            uint32_t q = x == IBR_NONE ? 0 : x / pi;
            m->q[l][lid] = q;
            m->r[l][lid] = (uint8_t)(q % K);
        }
    }
    lmc_slots(m);
    return 0;
}

/* ------------------------------------------------------------------ */

static void dm_free(dmodc *m)
{
    ibr_context *ctx = m->ctx;
    ibr__free(ctx, m->lev);
    ibr__free(ctx, m->bylev);
    ibr__free(ctx, m->rank);
    ibr__free(ctx, m->dn_off);
    ibr__free(ctx, m->up_off);
    ibr__free(ctx, m->dn);
    ibr__free(ctx, m->up);
    ibr__free(ctx, m->lidx);
    ibr__free(ctx, m->dl_off);
    ibr__free(ctx, m->dl);
    ibr__free(ctx, m->cur);
    for (unsigned l = 0; l < DM_MAX_LEVELS + 2; l++) {
        ibr__free(ctx, m->q[l]);
        ibr__free(ctx, m->r[l]);
    }
}

static const uint8_t *lft_row(void *arg, uint32_t sw)
{
    return ibr_run_lft(arg, sw);
}

/* Up/down tables leave a pair unrouted where the cables left join its end
   ports only by paths that turn down then up (a split tree, a leaf cut off
   from every upper switch): the fabric connects the pair and the tables
   do not deliver it, so the engine declines and the chain falls back. */
static int check_connected(dmodc *m)
{
    uint64_t n = 0;
    uint32_t sw;
    uint16_t lid;
    if (ibr__unrouted_pairs(&n, &sw, &lid, m->t, lft_row, m->run, m->lmc_cap) < 0)
        return ibr__fail(m->run, IBR_ENOMEM, "out of memory");
    if (n == 0)
        return 0;
    return ibr__decline(m->run,
                        "%" PRIu64 " end-port pair(s) the fabric connects have no up/down "
                        "route (e.g. from the end ports of switch 0x%016" PRIx64
                        " to LID %u): the cables left join them only by paths that turn "
                        "down then up",
                        n, sw_guid(m, sw), lid);
}

static int dmodc_route(ibr_run *run, void *user)
{
    (void)user;
    dmodc m;
    memset(&m, 0, sizeof m);
    m.run = run;
    m.t = ibr_run_topo(run);
    m.ctx = m.t->ctx;
    m.nsw = m.t->n_sw;
    const ibr_options *o = ibr_run_options(run);
    m.lmc_cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    const ibr_topo *t = m.t;
    uint32_t nsw = m.nsw;
    int rc;
    if (nsw == 0)
        return ibr_run_decline(run, "the fabric has no switch");
    if ((rc = ibr_run_progress(run, "dmodc: levels", 0, 3)) < 0)
        return rc;
    size_t nl = (size_t)t->max_lid + 1;
    m.lev = ibr__calloc(m.ctx, nsw, 1);
    m.bylev = ibr__mallocarray(m.ctx, nsw, sizeof *m.bylev);
    m.rank = ibr__calloc(m.ctx, nsw, sizeof *m.rank);
    m.dn_off = ibr__mallocarray(m.ctx, nsw + 1, sizeof *m.dn_off);
    m.up_off = ibr__mallocarray(m.ctx, nsw + 1, sizeof *m.up_off);
    m.dn = ibr__mallocarray(m.ctx, t->n_adj ? t->n_adj : 1, sizeof *m.dn);
    m.up = ibr__mallocarray(m.ctx, t->n_adj ? t->n_adj : 1, sizeof *m.up);
    m.lidx = ibr__mallocarray(m.ctx, nl, sizeof *m.lidx);
    m.dl_off = ibr__mallocarray(m.ctx, nsw + 1, sizeof *m.dl_off);
    m.dl = ibr__mallocarray(m.ctx, nl, sizeof *m.dl);
    if (!m.lev || !m.bylev || !m.rank || !m.dn_off || !m.up_off || !m.dn || !m.up || !m.lidx ||
        !m.dl_off || !m.dl)
        goto nomem;
    if ((rc = make_levels(&m)) < 0)
        goto out;
    make_dividers(&m);
    if (make_index(&m) < 0 || make_quotients(&m) < 0)
        goto nomem;

    if ((rc = ibr_run_progress(run, "dmodc: costs", 1, 3)) < 0)
        goto out;
    m.hops = ibr_run_hops(run);
    m.nw = ibr_run_threads(run);
    m.cur = ibr__mallocarray(m.ctx, (size_t)m.nw * nsw, DM_BLOCK);
    m.nswp = nsw;
    m.cost = m.hops;
    if (!m.hops || !m.cur)
        goto nomem;
    if ((rc = ibr_run_parallel_for(run, (nsw + DM_BLOCK - 1) / DM_BLOCK, cost_block, &m)) < 0)
        goto fail;
    ibr__free(m.ctx, m.cur);
    m.cur = NULL;

    if ((rc = ibr_run_progress(run, "dmodc: forwarding tables", 2, 3)) < 0)
        goto out;
    if ((rc = ibr_run_parallel_for(run, nsw, table_switch, &m)) < 0)
        goto fail;
    if ((rc = check_connected(&m)) < 0)
        goto out;
    if (rank_order_artifact(&m) < 0)
        goto nomem;
    rc = ibr_run_progress(run, "dmodc: forwarding tables", 3, 3);
    goto out;
fail:
    rc = ibr__fail(run, rc, "internal error while routing");
    goto out;
nomem:
    rc = ibr__fail(run, IBR_ENOMEM, "out of memory");
out:
    dm_free(&m);
    return rc;
}

const ibr_engine ibr__engine_dmodc = {
    .version = IBR_ENGINE_VERSION,
    .name = "dmodc",
    .description = "closed-form (D-mod-K) up/down routing for fat trees, intact or degraded",
    .caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE | IBR_CAP_EXPERIMENTAL,
    .route = dmodc_route,
};
