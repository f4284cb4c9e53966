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
 *    leaf in topology order. A switch's LID l has index B + l (B: the
 *    leaves times M), which no other switch's loss moves. LID k
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
 *
 * 5. Repair in place (ibr__dmodc_repair_run(), for the reroute). Entry
 *    (s, d) reads s's links, rank and level, the costs of s and of its
 *    neighbours toward d, the index of d's LIDs and the dividers. Both
 *    models (saved fabric, built once with its routing database; changed
 *    fabric) are compared: levels,
 *    dividers and slots must agree (else the caller routes in full); LIDs
 *    whose index, switch or leaf port moved (LIDs changed, end ports back
 *    or new) have their column computed again, LIDs no longer owned are
 *    cleared; costs are
 *    computed again only toward the destinations a changed link can move
 *    (a removed link tight for d without an equally close alternative at
 *    its lower end going up, or at its upper end going down to a switch
 *    whose links did not change; an added link that shortens a path):
 *    elsewhere every switch keeps a tight link at every level, so no cost
 *    changes. Then (s, d) is computed again where the cost of s or of a
 *    neighbour changed, where a changed link of s led closer to d (before
 *    or after), or where s's rank changed and d is routed up over a link
 *    that is not one closer; but not where s routes every LID of d up on
 *    its nominal link, there before and after, and neither s's cost nor
 *    that neighbour's changed (the entry reads nothing else). The result
 *    equals a fresh route.
 */
#include <inttypes.h>
#include <string.h>

#include "core/messages.h"
#include "engines/dmodc_int.h"
#include "engines/engine_int.h"

#define DM_MAX_LEVELS 16
#define DM_INF 255u
#define DM_BLOCK 64          /* destinations per cost item */
#define DM_PI_CAP ((uint64_t)1 << 31)

typedef struct dmodc {
    ibr_run *run;            /* NULL in a repair: declines go to why */
    const ibr_topo *t;       /* NULL for a saved fabric (no tables) */
    const ibr__dmodc_fabric *f;
    ibr_context *ctx;
    char *why;               /* a repair's decline message (IBR_ERRMSG_SIZE) */
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
    uint32_t nleaves;        /* leaf positions of the index: holes included */
    uint32_t maxep;
    /* per level: x / Pi and (x / Pi) mod K of every LID */
    uint32_t *q[DM_MAX_LEVELS + 2];
    uint8_t *r[DM_MAX_LEVELS + 2];
} dmodc;

static uint64_t sw_guid(const dmodc *m, uint32_t s)
{
    return m->f->guid[s];
}

/* A decline: the run's, or in a repair the message kept in why and 1. */
static int dm_decline(dmodc *m, const char *fmt, ...) IBR_PRINTF(2, 3);
static int dm_decline(dmodc *m, const char *fmt, ...)
{
    char msg[IBR_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (m->run)
        return ibr_run_decline(m->run, msg);
    snprintf(m->why, IBR_ERRMSG_SIZE, "%s", msg);
    return 1;
}

static int dm_nomem(dmodc *m)
{
    return m->run ? ibr__fail(m->run, IBR_ENOMEM, "out of memory") : IBR_ENOMEM;
}

/* ------------------------------------------------------------------ */
/* levels                                                              */

/* Distances (links) from the switches with end ports over the fabric's
   switch links: dist[nsw] (UINT32_MAX: unreachable), queue scratch. The
   number of source switches. */
static uint32_t leaf_bfs(const ibr__dmodc_fabric *f, uint32_t *dist, uint32_t *queue)
{
    uint32_t head = 0, tail = 0;
    for (uint32_t s = 0; s < f->nsw; s++)
        dist[s] = UINT32_MAX;
    for (uint32_t i = 0; i < f->n_ep; i++)
        if (dist[f->ep_sw[i]]) {
            dist[f->ep_sw[i]] = 0;
            queue[tail++] = f->ep_sw[i];
        }
    uint32_t nsrc = tail;
    while (head < tail) {
        uint32_t s = queue[head++];
        for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
            uint32_t r = f->adj[e].sw;
            if (dist[r] == UINT32_MAX) {
                dist[r] = dist[s] + 1;
                queue[tail++] = r;
            }
        }
    }
    return nsrc;
}

static int make_levels(dmodc *m)
{
    const ibr__dmodc_fabric *f = m->f;
    uint32_t nsw = m->nsw;
    uint32_t *dist = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *dist);
    uint32_t *queue = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *queue);
    int rc = 0;
    if (!dist || !queue) {
        rc = dm_nomem(m);
        goto out;
    }
    if (leaf_bfs(f, dist, queue) == 0) {
        rc =
            dm_decline(m, IBR__MSG("EN004", "no end port is cabled to a switch: nothing to route"));
        goto out;
    }
    m->nlev = 0;
    uint32_t unranked = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        if (dist[s] == UINT32_MAX) {
            m->lev[s] = 0;
            unranked++;
            continue;
        }
        if (dist[s] + 1 > DM_MAX_LEVELS) {
            rc = dm_decline(m,
                            IBR__MSG("EN005",
                                     "switch 0x%016" PRIx64 " is %u links from the nearest switch "
                                     "with end ports; dmodc ranks at most %u levels"),
                            sw_guid(m, s), dist[s], DM_MAX_LEVELS);
            goto out;
        }
        m->lev[s] = (uint8_t)(dist[s] + 1);
        if (m->lev[s] > m->nlev)
            m->nlev = m->lev[s];
    }
    for (uint32_t s = 0; s < nsw; s++)
        for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
            uint32_t r = f->adj[e].sw;
            if (m->lev[s] && m->lev[s] == m->lev[r]) {
                rc = dm_decline(
                    m,
                    IBR__MSG(
                        "EN006",
                        "switches 0x%016" PRIx64 " and 0x%016" PRIx64 " are cabled together "
                        "(port %u) but both at level %u (1 + links to the nearest switch with end "
                        "ports): not a fat tree, whose cables join adjacent levels"),
                    sw_guid(m, s), sw_guid(m, r), f->adj[e].port, m->lev[s]);
                goto out;
            }
        }
    if (unranked && m->run)
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
        for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
            uint32_t r = f->adj[e].sw;
            if (!m->lev[s])
                continue;
            if (m->lev[r] < m->lev[s])
                m->dn[nd++] = f->adj[e];
            else
                m->up[nu++] = f->adj[e];
        }
    }
    m->dn_off[nsw] = nd;
    m->up_off[nsw] = nu;
out:
    ibr__free(m->ctx, dist);
    ibr__free(m->ctx, queue);
    return rc;
}

/* Is port p free (no active cable) on every switch of level l? */
static int free_on_level(const dmodc *m, unsigned l, unsigned p)
{
    const ibr__dmodc_fabric *f = m->f;
    for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
        uint32_t s = m->bylev[i];
        if (p == 0 || p > f->nports[s])
            return 0;
        if (f->busy[(size_t)s * 4 + p / 64] >> (p % 64) & 1)
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
    for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
        uint32_t s = m->bylev[i];
        uint32_t v = 0;
        if (!down)
            v = m->up_off[s + 1] - m->up_off[s];
        else if (l > 1)
            v = m->dn_off[s + 1] - m->dn_off[s];
        else
            v = m->f->hosts[s];
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

static int cmp_u32(const void *a, const void *b, void *arg)
{
    (void)arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Leaf positions from the cabling, as in a PGFT's addressing: a switch of
   level l - 1 takes as its digit at level l its place among the down ports
   of a parent (the port number less the lowest down port of the level,
   over the most parallel cables from one parent to one child), which all
   its parents must agree on; a pod of level l - 1 (the switches of levels
   below l joined through each other) takes the digit its switches of that
   level share. A leaf's position is the digits of its pods as a
   mixed-radix number, the top one's first. A lost leaf, or a pod that lost
   its leaves, leaves a hole: the others keep their position (but for the
   last child of every parent of a level: the range shrinks). 0 with pos[]
   (per switch) and *cap (positions) set when every leaf gets a distinct
   position; 1 when the port numbers do not spell one (the caller then
   ranks the leaves in pod order); IBR_ENOMEM. */
static int leaf_positions(const dmodc *m, uint32_t *pos, uint64_t *cap)
{
    uint32_t nsw = m->nsw, nl = m->lev_off[2] - m->lev_off[1];
    const uint32_t *leaf = m->bylev + m->lev_off[1];
    uint32_t *dig = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *dig);
    uint32_t *by = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *by);
    uint32_t *uf = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *uf);
    uint32_t *podd = ibr__mallocarray(m->ctx, nsw ? nsw : 1, sizeof *podd);
    int rc = m->nlev < 2 ? 1 : 0;
    if (!dig || !by || !uf || !podd) {
        rc = IBR_ENOMEM;
        goto out;
    }
    uint64_t mult = 1;
    for (uint32_t s = 0; s < nsw; s++) {
        dig[s] = by[s] = IBR_NONE;
        uf[s] = s;
    }
    for (uint32_t i = 0; i < nl; i++)
        pos[leaf[i]] = 0;
    for (unsigned l = 2; l <= m->nlev && rc == 0; l++) {
        /* the level's lowest down port and widest parallel group */
        unsigned base = 255, hi = 0, par = 1;
        for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
            uint32_t u = m->bylev[i];
            for (uint32_t e = m->dn_off[u], run = 0; e < m->dn_off[u + 1]; e++) {
                unsigned p = m->dn[e].port;
                base = p < base ? p : base;
                hi = p > hi ? p : hi;
                run = e > m->dn_off[u] && m->dn[e - 1].sw == m->dn[e].sw ? run + 1 : 1;
                par = run > par ? run : par;
            }
        }
        if (hi < base) {
            rc = 1;
            break;
        }
        /* a port below free on every switch of the level is a lost
           child's (the first one lost everywhere): the range keeps it */
        while (base > 1 && free_on_level(m, l, base - 1))
            base--;
        /* each child's digit: the first port to it at every parent */
        for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1] && rc == 0; i++) {
            uint32_t u = m->bylev[i];
            for (uint32_t e = m->dn_off[u]; e < m->dn_off[u + 1]; e++) {
                uint32_t v = m->dn[e].sw, d = (m->dn[e].port - base) / par;
                if (by[v] == u)
                    continue;
                by[v] = u;
                if (dig[v] != IBR_NONE && dig[v] != d) {
                    rc = 1;
                    break;
                }
                dig[v] = d;
            }
        }
        /* each pod of level l - 1: the digit its switches share */
        for (uint32_t s = 0; s < nsw; s++)
            podd[s] = IBR_NONE;
        for (uint32_t i = m->lev_off[l - 1]; i < m->lev_off[l] && rc == 0; i++) {
            uint32_t v = m->bylev[i], r = uf_find(uf, v);
            if (dig[v] == IBR_NONE)
                continue;
            if (podd[r] != IBR_NONE && podd[r] != dig[v])
                rc = 1;
            podd[r] = dig[v];
        }
        for (uint32_t i = 0; i < nl && rc == 0; i++) {
            uint32_t d = podd[uf_find(uf, leaf[i])];
            if (d == IBR_NONE)
                rc = 1;
            else
                pos[leaf[i]] += (uint32_t)(d * mult);
        }
        mult *= (hi - base) / par + 1;
        if (mult > ((uint64_t)1 << 22))
            rc = 1;
        /* join the level's switches to their children: the pods of level l */
        for (uint32_t i = m->lev_off[l]; i < m->lev_off[l + 1]; i++) {
            uint32_t u = m->bylev[i];
            for (uint32_t e = m->dn_off[u]; e < m->dn_off[u + 1]; e++) {
                uint32_t a = uf_find(uf, u), b = uf_find(uf, m->dn[e].sw);
                if (a != b)
                    uf[a > b ? a : b] = a < b ? a : b;
            }
        }
    }
    if (rc == 0) {
        /* distinct: count the positions (uf and by are free again) */
        for (uint32_t i = 0; i < nl; i++)
            by[i] = pos[leaf[i]];
        ibr__sort(by, nl, sizeof *by, cmp_u32, NULL);
        for (uint32_t i = 1; i < nl && rc == 0; i++)
            rc = by[i] == by[i - 1];
        *cap = mult;
    }
out:
    ibr__free(m->ctx, dig);
    ibr__free(m->ctx, by);
    ibr__free(m->ctx, uf);
    ibr__free(m->ctx, podd);
    return rc;
}

static int make_index(dmodc *m)
{
    const ibr__dmodc_fabric *f = m->f;
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
    for (uint32_t i = 0; i < f->n_ep; i++)
        if (first[f->ep_sw[i]] == IBR_NONE)
            first[f->ep_sw[i]] = i;
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
    /* by position in the tree where the cabling spells one, else by rank */
    uint64_t cap = nl;
    rc = leaf_positions(m, podkey, &cap);
    if (rc < 0)
        goto out;
    if (rc == 0)
        for (uint32_t i = 0; i < nl; i++)
            ord[lk[i].sw] = podkey[lk[i].sw];
    else
        cap = nl;
    rc = 0;
    m->nleaves = (uint32_t)cap;
    m->maxep = 0;
    for (uint32_t i = 0; i < f->n_ep; i++)
        if (++nep[f->ep_sw[i]] > m->maxep)
            m->maxep = nep[f->ep_sw[i]];
    /* slots by leaf port when the end ports of every leaf lie within one
       range of maxep port numbers (a leaf that lost end ports keeps the
       slots of the others), else by rank in topology order */
    unsigned pmin = 255, pmax = 0;
    for (uint32_t i = 0; i < f->n_ep; i++) {
        unsigned p = f->ep_port[i];
        pmin = p < pmin ? p : pmin;
        pmax = p > pmax ? p : pmax;
    }
    int by_port = pmax >= pmin && pmax - pmin + 1 == m->maxep;
    memset(nep, 0, nsw * sizeof *nep);
    for (size_t l = 0; l <= f->max_lid; l++)
        m->lidx[l] = IBR_NONE;
    uint32_t nlids = 1u << m->lmc_cap;
    /* LID o of a port: over the kw upper neighbours of a leaf first, evenly
       spaced (o kw / n of them, n LIDs) while n <= kw, else one after the
       other, then over the parallel cables to each (st of them) */
    uint32_t st = m->stride, kw = st > 1 && m->K[1] >= st ? m->K[1] / st : m->K[1];
    for (uint32_t i = 0; i < f->n_ep; i++) {
        uint32_t s = f->ep_sw[i];
        uint32_t lid = f->ep_lid[i];
        uint32_t slot = by_port ? f->ep_port[i] - pmin : nep[s]++;
        uint32_t x = ord[s] * m->maxep + slot;
        uint32_t n = 1u << (f->ep_lmc[i] < m->lmc_cap ? f->ep_lmc[i] : m->lmc_cap);
        for (uint32_t o = 0; o < n && o < nlids; o++)
            if (lid + o <= f->max_lid)
                m->lidx[lid + o] =
                    !kw       ? x + o * st
                    : n <= kw ? x + o * kw / n * st
                              : x + o % kw * st + o / kw % st + o / (kw * st) * kw * st;
    }
    /* a switch LID's index is its LID past the end ports': it does not
       move when another switch is lost or comes back */
    uint32_t base = m->nleaves * m->maxep;
    for (uint32_t s = 0; s < nsw; s++) {
        uint32_t lid = f->sw_lid[s];
        if (!lid)
            continue;
        for (uint32_t o = 0; o < (1u << f->sw_lmc[s]) && o < nlids; o++)
            if (lid + o <= f->max_lid)
                m->lidx[lid + o] = base + lid + o;
    }
    if (!m->t) {
        /* a saved fabric: its index, and the switch of each LID in dl */
        for (size_t l = 0; l <= f->max_lid; l++)
            m->dl[l] = IBR_NONE;
        for (uint32_t i = 0; i < f->n_ep; i++)
            for (uint32_t o = 0; o < (1u << f->ep_lmc[i]) && o < nlids; o++)
                if (f->ep_lid[i] + o <= f->max_lid)
                    m->dl[f->ep_lid[i] + o] = f->ep_sw[i];
        for (uint32_t s = 0; s < nsw; s++)
            for (uint32_t o = 0; f->sw_lid[s] && o < (1u << f->sw_lmc[s]) && o < nlids; o++)
                if (f->sw_lid[s] + o <= f->max_lid)
                    m->dl[f->sw_lid[s] + o] = s;
        goto out;
    }
    const ibr_topo *t = m->t;
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
            if (lid && lid <= t->max_lid && m->lidx[lid] != IBR_NONE) {
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

/* The costs toward the nb destination switches d0 .. d0 + nb - 1 (or
   cols[0 .. nb - 1]) from every switch: cur[s * DM_BLOCK + j]. */
static void cost_fill(const dmodc *m, uint8_t *cur, uint32_t d0, uint32_t nb, const uint32_t *cols)
{
    uint32_t nsw = m->nsw;
    memset(cur, DM_INF, (size_t)nsw * DM_BLOCK);
    for (uint32_t j = 0; j < nb; j++)
        cur[(size_t)(cols ? cols[j] : d0 + j) * DM_BLOCK + j] = 0;
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
}

static int cost_block(void *arg, unsigned worker, size_t b)
{
    dmodc *m = arg;
    uint32_t nsw = m->nsw;
    uint8_t *cur = m->cur + (size_t)worker * nsw * DM_BLOCK;
    uint32_t d0 = (uint32_t)b * DM_BLOCK;
    uint32_t nb = nsw - d0 < DM_BLOCK ? nsw - d0 : DM_BLOCK;
    cost_fill(m, cur, d0, nb, NULL);
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

/* What the entries of one switch share. */
typedef struct row_ctx {
    uint32_t s;
    unsigned ls;
    const uint8_t *hs;
    const ibr__adj *up, *dn;
    uint32_t nup, ndn;
    uint8_t slot_link[256]; /* the up link on each slot's port (255: none) */
    const uint32_t *qdn, *qup;
    const uint8_t *rup;
    uint32_t spread;
} row_ctx;

static void row_init(row_ctx *c, const dmodc *m, uint32_t s)
{
    unsigned ls = m->lev[s];
    c->s = s;
    c->ls = ls;
    c->hs = m->cost + (size_t)s * m->nswp;
    c->up = m->up + m->up_off[s];
    c->dn = m->dn + m->dn_off[s];
    c->nup = m->up_off[s + 1] - m->up_off[s];
    c->ndn = m->dn_off[s + 1] - m->dn_off[s];
    memset(c->slot_link, 255, sizeof c->slot_link);
    if (!ls)
        return;
    if (m->slotted[ls]) {
        uint8_t by_port[256];
        memset(by_port, 255, sizeof by_port);
        for (uint32_t a = 0; a < c->nup && a < 255; a++)
            by_port[c->up[a].port] = (uint8_t)a;
        for (unsigned k = 0; k < m->K[ls]; k++)
            c->slot_link[k] = by_port[m->slot[ls][k]];
    }
    c->qdn = m->q[ls - 1];
    c->qup = m->q[ls];
    c->rup = m->r[ls];
    /* a destination whose nominal link fails leaves each switch of the
       level on a different candidate: its traffic from many sources then
       spreads over the detours instead of doubling one link */
    c->spread = m->slotted[ls] ? m->rank[s] : 0;
}

/* A repair's count of the entries of one row it changes, per 64-LID block
   of the row, and of the blocks where the first one changes. */
typedef struct row_chg {
    uint32_t n, nblk;
    uint8_t *blk;
} row_chg;

/* Entry lid of a row: counted in *chg when it changes (a repair). */
static inline void put(uint8_t *lft, uint32_t lid, unsigned port, row_chg *chg)
{
    if (lft[lid] != port) {
        if (chg) {
            chg->n++;
            chg->nblk += chg->blk[lid / IBR__DMODC_BLOCK]++ == 0;
        }
        lft[lid] = (uint8_t)port;
    }
}

/* The entries of switch c->s toward the LIDs of destination switch d
   (ranked switch, d != s): down when d lies below s, else up; per LID the
   nominal up slot when its link leads closer, else the candidates modulo
   their number; no route (255) where none leads closer. */
static void route_dest(const dmodc *m, const row_ctx *c, uint32_t d, uint8_t *lft, row_chg *chg)
{
    unsigned c0 = c->hs[d], ls = c->ls;
    uint32_t q0 = m->dl_off[d], q1 = m->dl_off[d + 1];
    uint8_t cand[256];
    if (c0 == DM_INF) {
        for (uint32_t q = q0; q < q1; q++)
            put(lft, m->dl[q], IBR_NO_ROUTE, chg);
        return;
    }
    if (ls > m->lev[d] && c0 == ls - m->lev[d]) {
        unsigned k = candidates(cand, m, c->dn, c->ndn, d, c0);
        for (uint32_t q = q0; q < q1; q++)
            put(lft, m->dl[q], k ? cand[k == 1 ? 0 : c->qdn[m->dl[q]] % k] : IBR_NO_ROUTE, chg);
        return;
    }
    unsigned k = 0; /* candidates listed yet */
    int none = 0;
    for (uint32_t q = q0; q < q1; q++) {
        uint32_t lid = m->dl[q];
        unsigned a = c->slot_link[c->rup[lid]];
        if (a != 255 && m->cost[(size_t)c->up[a].sw * m->nswp + d] + 1u == c0) {
            put(lft, lid, c->up[a].port, chg);
            continue;
        }
        if (!none && !k && !(k = candidates(cand, m, c->up, c->nup, d, c0)))
            none = 1;
        put(lft, lid,
            none ? IBR_NO_ROUTE
                 : cand[lmc_detour(m, lft, c->slot_link, c->up, ls, d, c0, lid, cand, k,
                                   (c->qup[lid] + c->spread) % k)],
            chg);
    }
}

/* The forwarding entries of switch s (a row that holds no route yet, or a
   repair's scratch row filled with 255): its own LIDs and end ports, then
   per destination switch route_dest(). Time O(L + S * P) with P links per
   switch (the candidates are listed only for destinations routed down, on
   levels without slots, or whose nominal link fails). */
static void table_row(const dmodc *m, uint32_t s, uint8_t *lft)
{
    for (uint32_t k = m->dl_off[s]; k < m->dl_off[s + 1]; k++)
        lft[m->dl[k]] = m->t->lid_swport[m->dl[k]];
    if (!m->lev[s])
        return;
    row_ctx c;
    row_init(&c, m, s);
    for (uint32_t d = 0; d < m->nsw; d++)
        if (d != s && m->dl_off[d] != m->dl_off[d + 1] && c.hs[d] != DM_INF)
            route_dest(m, &c, d, lft, NULL);
}

static int table_switch(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    dmodc *m = arg;
    uint8_t *lft = ibr_run_lft(m->run, (uint32_t)i);
    if (!lft)
        return IBR_EINTERNAL;
    table_row(m, (uint32_t)i, lft);
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
    size_t nl = (size_t)m->f->max_lid + 1;
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
                        IBR__MSG("EN007",
                                 "%" PRIu64 " end-port pair(s) the fabric connects have no up/down "
                                 "route (e.g. from the end ports of switch 0x%016" PRIx64
                                 " to LID %u): the cables left join them only by paths that turn "
                                 "down then up"),
                        n, sw_guid(m, sw), lid);
}

/* The model of fabric m->f (m->nsw, m->ctx, m->lmc_cap set): levels,
   dividers, destination index, and with a topology (m->t) the LIDs by
   destination switch and the quotients the tables read. 0, a decline
   (dm_decline()) or IBR_ENOMEM. */
static int dm_model(dmodc *m)
{
    const ibr__dmodc_fabric *f = m->f;
    uint32_t nsw = m->nsw;
    size_t nl = (size_t)f->max_lid + 1;
    uint32_t nadj = f->adj_off[nsw];
    m->lev = ibr__calloc(m->ctx, nsw, 1);
    m->bylev = ibr__mallocarray(m->ctx, nsw, sizeof *m->bylev);
    m->rank = ibr__calloc(m->ctx, nsw, sizeof *m->rank);
    m->dn_off = ibr__mallocarray(m->ctx, nsw + 1, sizeof *m->dn_off);
    m->up_off = ibr__mallocarray(m->ctx, nsw + 1, sizeof *m->up_off);
    m->dn = ibr__mallocarray(m->ctx, nadj ? nadj : 1, sizeof *m->dn);
    m->up = ibr__mallocarray(m->ctx, nadj ? nadj : 1, sizeof *m->up);
    m->lidx = ibr__mallocarray(m->ctx, nl, sizeof *m->lidx);
    m->dl_off = ibr__mallocarray(m->ctx, nsw + 1, sizeof *m->dl_off);
    m->dl = ibr__mallocarray(m->ctx, nl, sizeof *m->dl);
    if (!m->lev || !m->bylev || !m->rank || !m->dn_off || !m->up_off || !m->dn || !m->up ||
        !m->lidx || !m->dl_off || !m->dl)
        return dm_nomem(m);
    int rc = make_levels(m);
    if (rc != 0)
        return rc;
    make_dividers(m);
    if (make_index(m) < 0 || (m->t && make_quotients(m) < 0))
        return dm_nomem(m);
    return 0;
}

static int dmodc_route(ibr_run *run, void *user)
{
    (void)user;
    dmodc m;
    memset(&m, 0, sizeof m);
    ibr__dmodc_fabric fab;
    memset(&fab, 0, sizeof fab);
    m.run = run;
    m.t = ibr_run_topo(run);
    m.f = &fab;
    m.ctx = m.t->ctx;
    m.nsw = m.t->n_sw;
    const ibr_options *o = ibr_run_options(run);
    m.lmc_cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    uint32_t nsw = m.nsw;
    int rc;
    if (nsw == 0)
        return ibr_run_decline(run, IBR__MSG("EN008", "the fabric has no switch"));
    if ((rc = ibr_run_progress(run, "dmodc: levels", 0, 3)) < 0)
        return rc;
    if (ibr__dmodc_fabric_of(&fab, m.t) < 0)
        goto nomem;
    if ((rc = dm_model(&m)) != 0)
        goto out;

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
    ibr__dmodc_fabric_free(&fab, m.ctx);
    return rc;
}

/* ------------------------------------------------------------------ */
/* fabrics                                                             */

int ibr__dmodc_fabric_alloc(ibr__dmodc_fabric *f, ibr_context *ctx, uint32_t nsw,
                            uint32_t n_adj, uint32_t n_ep)
{
    memset(f, 0, sizeof *f);
    f->nsw = nsw;
    f->adj_off = ibr__calloc(ctx, (size_t)nsw + 1, sizeof *f->adj_off);
    f->adj = ibr__mallocarray(ctx, n_adj ? n_adj : 1, sizeof *f->adj);
    f->nports = ibr__calloc(ctx, nsw ? nsw : 1, 1);
    f->busy = ibr__calloc(ctx, (size_t)(nsw ? nsw : 1) * 4, sizeof *f->busy);
    f->hosts = ibr__calloc(ctx, nsw ? nsw : 1, sizeof *f->hosts);
    f->guid = ibr__calloc(ctx, nsw ? nsw : 1, sizeof *f->guid);
    f->sw_lid = ibr__calloc(ctx, nsw ? nsw : 1, sizeof *f->sw_lid);
    f->sw_lmc = ibr__calloc(ctx, nsw ? nsw : 1, 1);
    f->ep_sw = ibr__mallocarray(ctx, n_ep ? n_ep : 1, sizeof *f->ep_sw);
    f->ep_port = ibr__mallocarray(ctx, n_ep ? n_ep : 1, 1);
    f->ep_lid = ibr__mallocarray(ctx, n_ep ? n_ep : 1, sizeof *f->ep_lid);
    f->ep_lmc = ibr__mallocarray(ctx, n_ep ? n_ep : 1, 1);
    if (!f->adj_off || !f->adj || !f->nports || !f->busy || !f->hosts || !f->guid ||
        !f->sw_lid || !f->sw_lmc || !f->ep_sw || !f->ep_port || !f->ep_lid || !f->ep_lmc) {
        ibr__dmodc_fabric_free(f, ctx);
        return IBR_ENOMEM;
    }
    return 0;
}

void ibr__dmodc_fabric_free(ibr__dmodc_fabric *f, ibr_context *ctx)
{
    ibr__free(ctx, f->adj_off);
    ibr__free(ctx, f->adj);
    ibr__free(ctx, f->nports);
    ibr__free(ctx, f->busy);
    ibr__free(ctx, f->hosts);
    ibr__free(ctx, f->guid);
    ibr__free(ctx, f->sw_lid);
    ibr__free(ctx, f->sw_lmc);
    ibr__free(ctx, f->ep_sw);
    ibr__free(ctx, f->ep_port);
    ibr__free(ctx, f->ep_lid);
    ibr__free(ctx, f->ep_lmc);
    memset(f, 0, sizeof *f);
}

int ibr__dmodc_fabric_of(ibr__dmodc_fabric *f, const ibr_topo *t)
{
    if (ibr__dmodc_fabric_alloc(f, t->ctx, t->n_sw, t->n_adj, t->n_end) < 0)
        return IBR_ENOMEM;
    memcpy(f->adj_off, t->adj_off, ((size_t)t->n_sw + 1) * sizeof *f->adj_off);
    memcpy(f->adj, t->adj, (size_t)t->n_adj * sizeof *f->adj);
    for (uint32_t s = 0; s < t->n_sw; s++) {
        const ibr__node *nd = &t->nodes[t->sw_node[s]];
        f->nports[s] = nd->nports;
        f->guid[s] = nd->guid;
        f->sw_lid[s] = t->ports[nd->port_off].lid;
        f->sw_lmc[s] = t->ports[nd->port_off].lmc;
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = &t->ports[nd->port_off + p];
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE)
                continue;
            f->busy[(size_t)s * 4 + p / 64] |= (uint64_t)1 << (p % 64);
            f->hosts[s] += t->nodes[pt->remote_node].type != IBR_NODE_SWITCH;
        }
    }
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        uint32_t s = pt->lid ? t->lid_sw[pt->lid] : IBR_NONE;
        if (s == IBR_NONE)
            continue;
        f->ep_sw[f->n_ep] = s;
        f->ep_port[f->n_ep] = t->lid_swport[pt->lid];
        f->ep_lid[f->n_ep] = pt->lid;
        f->ep_lmc[f->n_ep] = pt->lmc;
        f->n_ep++;
    }
    f->max_lid = t->max_lid;
    return 0;
}

/* ------------------------------------------------------------------ */
/* repair in place                                                     */

/* A repair: the model now (n) and the saved one (o), and which entries
   must be computed again: whole rows, whole destination switches, and
   single (switch, destination switch) pairs (a bit matrix, W words a row). */
/* A switch-to-switch link of row s that the change removed or added. */
typedef struct link_chg {
    uint32_t s, nb;   /* nb: IBR_NONE when the neighbour left the topology */
    uint32_t onb;     /* the neighbour's saved index */
    uint8_t removed;
} link_chg;

typedef struct repair {
    ibr__dmodc_repair *a;
    dmodc *n;
    const dmodc *o;
    uint32_t S, W;
    uint64_t *dirty;
    uint8_t *fullrow, *fullcol, *rankchg;
    uint8_t *linkchg;    /* ranked before and after, links changed */
    uint8_t *cut;        /* ranked before, unranked now */
    uint8_t *cand;       /* destination switches whose costs may change */
    int all_cols;        /* every one may (a switch new or back) */
    link_chg *chg;
    size_t nchg, capchg;
    uint32_t *o2n;       /* saved switch -> switch now, IBR_NONE */
    uint32_t *gslot;     /* saved switch gone from the topology -> its row in
                            grows (its saved costs), IBR_NONE */
    uint8_t *grows;
    uint32_t ngsw;
    uint32_t *gone;      /* LIDs no longer routed */
    uint32_t ngone;
    uint8_t *uslot[DM_MAX_LEVELS + 2]; /* nominal_tables() */
    uint8_t *slink;
    unsigned nk;
} repair;

static inline void mark(repair *r, uint32_t s, uint32_t d)
{
    r->dirty[(size_t)s * r->W + d / 64] |= (uint64_t)1 << (d % 64);
}

/* Byte loops over the destination switches, DM_BLOCK at a time so that
   they vectorise: o[j] |= a[j] + 1 == b[j] (tight), or a[j] + 1 != b[j]
   (loose), or d lies below a switch of level l whose costs are h (h[d]
   plus the level of d is l; costs stay far below 240). */
static inline void tight64(uint8_t *restrict o, const uint8_t *restrict a,
                           const uint8_t *restrict b, uint8_t loose)
{
    for (unsigned j = 0; j < DM_BLOCK; j++) {
        uint8_t t = (uint8_t)((uint8_t)(a[j] + 1) ^ b[j]);
        o[j] |= (uint8_t)((t == 0 ? 1 : 0) ^ loose);
    }
}

static inline void below64(uint8_t *restrict o, const uint8_t *restrict h,
                           const uint8_t *restrict lev, uint8_t l)
{
    for (unsigned j = 0; j < DM_BLOCK; j++)
        o[j] |= (uint8_t)(h[j] + lev[j]) == l && h[j] != DM_INF ? 1 : 0;
}

/* o[j] &= s (level l, costs h) routes destination j up */
static inline void up64(uint8_t *restrict o, const uint8_t *restrict h, const uint8_t *restrict lev,
                        uint8_t l)
{
    for (unsigned j = 0; j < DM_BLOCK; j++)
        o[j] &= h[j] != DM_INF && (uint8_t)(h[j] + lev[j]) != l ? 1 : 0;
}

static void tight_or(uint8_t *restrict out, const uint8_t *restrict a, const uint8_t *restrict b,
                     uint32_t n, int loose)
{
    uint32_t d = 0;
    for (; d + DM_BLOCK <= n; d += DM_BLOCK)
        tight64(out + d, a + d, b + d, (uint8_t)loose);
    for (; d < n; d++)
        out[d] |= (uint8_t)((uint8_t)(a[d] + 1) == b[d]) ^ (uint8_t)loose;
}

static void below_or(uint8_t *restrict out, const uint8_t *restrict h, const uint8_t *restrict lev,
                     unsigned l, uint32_t n)
{
    uint32_t d = 0;
    for (; d + DM_BLOCK <= n; d += DM_BLOCK)
        below64(out + d, h + d, lev + d, (uint8_t)l);
    for (; d < n; d++)
        out[d] |= (unsigned)h[d] + lev[d] == l;
}

/* Mark (s, d) where flag[d]. */
static void mark_flags(repair *r, uint32_t s, const uint8_t *flag)
{
    uint32_t d = 0;
    for (; d + 8 <= r->S; d += 8) {
        uint64_t w;
        memcpy(&w, flag + d, 8);
        if (!w)
            continue;
        for (uint32_t j = 0; j < 8; j++)
            if (flag[d + j])
                mark(r, s, d + j);
    }
    for (; d < r->S; d++)
        if (flag[d])
            mark(r, s, d);
}

/* Do the levels, dividers and slots of the two models agree? The number
   of leaf positions may differ (the last child of every parent of a level
   lost or back: the range shrinks or grows): it moves only the switch
   LIDs' indices, whose columns diff_models() then computes again. */
static int same_dividers(const dmodc *n, const dmodc *o)
{
    if (n->nlev != o->nlev || n->stride != o->stride || n->maxep != o->maxep)
        return 0;
    for (unsigned l = 0; l <= n->nlev + 1; l++)
        if (n->K[l] != o->K[l] || n->Pi[l] != o->Pi[l] || n->slotted[l] != o->slotted[l] ||
            (n->slotted[l] && memcmp(n->slot[l], o->slot[l], n->K[l]) != 0))
            return 0;
    return 1;
}

/* Switches whose links or rank changed; LIDs whose index or switch
   changed. 1 (a->why set) when the formula moves too much to repair. */
static int diff_models(repair *r)
{
    ibr__dmodc_repair *a = r->a;
    const dmodc *n = r->n, *o = r->o;
    const ibr__dmodc_fabric *nf = n->f, *of = o->f;
    for (uint32_t s = 0; s < r->S; s++) {
        uint32_t os = a->swmap[s];
        if (os == IBR_NONE) {
            r->fullrow[s] = 1;
            r->all_cols = 1; /* a new switch: no saved costs of its own */
            continue;
        }
        if (n->lev[s] != o->lev[os] && n->lev[s] && o->lev[os]) {
            snprintf(a->why, sizeof a->why,
                     "switch 0x%016" PRIx64 " changes level (%u to %u): the formula moves",
                     nf->guid[s], o->lev[os], n->lev[s]);
            return 1;
        }
        r->rankchg[s] = n->rank[s] != o->rank[os];
        if (n->lev[s] != o->lev[os]) {
            /* cut off from every leaf, or back */
            r->fullrow[s] = 1;
            r->cut[s] = !n->lev[s];
            r->all_cols |= !o->lev[os];
            continue;
        }
        /* links: both lists in ascending port order */
        uint32_t b = nf->adj_off[s], e = nf->adj_off[s + 1];
        uint32_t ob = of->adj_off[os], oe = of->adj_off[os + 1];
        while (b < e || ob < oe) {
            const ibr__adj *x = b < e ? &nf->adj[b] : NULL, *y = ob < oe ? &of->adj[ob] : NULL;
            if (x && y && x->port == y->port && x->rport == y->rport &&
                a->swmap[x->sw] == y->sw) {
                b++;
                ob++;
                continue;
            }
            link_chg c = {s, IBR_NONE, IBR_NONE, 0};
            if (y && (!x || y->port <= x->port)) {
                c.nb = r->o2n[y->sw];
                c.onb = y->sw;
                c.removed = 1;
                ob++;
            } else {
                c.nb = x->sw;
                b++;
            }
            if (ibr__grow(n->ctx, (void **)&r->chg, &r->capchg, r->nchg + 1, sizeof *r->chg) < 0)
                return IBR_ENOMEM;
            r->chg[r->nchg++] = c;
            r->linkchg[s] = 1;
        }
    }
    /* the saved switch of each saved LID */
    size_t L = a->lft_size, moved = 0;
    for (size_t l = 1; l < L; l++) {
        uint32_t x = l <= n->f->max_lid ? n->lidx[l] : IBR_NONE;
        uint32_t d = x != IBR_NONE ? a->t->lid_sw[l] : IBR_NONE;
        if (d == IBR_NONE)
            x = IBR_NONE;
        uint32_t ox = l <= of->max_lid ? o->lidx[l] : IBR_NONE;
        uint32_t od = ox != IBR_NONE ? o->dl[l] : IBR_NONE;
        if (x == ox && (x == IBR_NONE || a->swmap[d] == od))
            continue;
        moved++;
        if (x == IBR_NONE)
            r->gone[r->ngone++] = (uint32_t)l;
        else
            r->fullcol[d] = 1;
    }
    /* an end port moved to another port of its leaf, its index kept (its
       slot by rank): the leaf delivers it by another port */
    for (uint32_t i = 0; i < of->n_ep; i++)
        for (uint32_t k = 0; k < (1u << of->ep_lmc[i]) && k < (1u << a->lmc_cap); k++) {
            size_t l = (size_t)of->ep_lid[i] + k;
            uint32_t d = l < L ? a->t->lid_sw[l] : IBR_NONE;
            if (d != IBR_NONE && a->swmap[d] == of->ep_sw[i] &&
                a->t->lid_swport[l] != of->ep_port[i])
                r->fullcol[d] = 1;
        }
    if (moved > L / 4) {
        snprintf(a->why, sizeof a->why,
                 "the destination index moves %zu of %zu LIDs: the formula moves most columns",
                 moved, L - 1);
        return 1;
    }
    return 0;
}

/* Mark (s, d) for the destination switches d for which the neighbour of
   s whose costs are hn is one closer than s: its link is one of the
   candidates. */
static void mark_link(repair *r, uint32_t s, const uint8_t *hn, uint8_t *scratch)
{
    const uint8_t *hs = r->n->cost + (size_t)s * r->S;
    memset(scratch, 0, r->S);
    tight_or(scratch, hn, hs, r->S, 0);
    mark_flags(r, s, scratch);
}

/* What nominal_kept() reads: per level l and destination switch d, the
   up slot that every LID of d takes at level l (r[l] of each), or 255
   when they differ or d has none; per switch, the up link on each slot's
   port (255: none; r->nk a row, as row_init() has it). 0 or IBR_ENOMEM. */
static int nominal_tables(repair *r)
{
    const dmodc *n = r->n;
    r->nk = 1;
    for (unsigned l = 1; l <= n->nlev; l++) {
        uint8_t *u = r->uslot[l] = ibr__mallocarray(n->ctx, r->S, 1);
        if (!u)
            return IBR_ENOMEM;
        for (uint32_t d = 0; d < r->S; d++) {
            uint32_t q0 = n->dl_off[d], q1 = n->dl_off[d + 1];
            unsigned v = q0 < q1 ? n->r[l][n->dl[q0]] : 255;
            for (uint32_t q = q0 + 1; q < q1 && v != 255; q++)
                if (n->r[l][n->dl[q]] != v)
                    v = 255;
            u[d] = (uint8_t)v;
        }
        if (n->slotted[l] && n->K[l] > r->nk)
            r->nk = n->K[l];
    }
    r->slink = ibr__mallocarray(n->ctx, r->S, r->nk);
    if (!r->slink)
        return IBR_ENOMEM;
    memset(r->slink, 255, (size_t)r->S * r->nk);
    for (uint32_t s = 0; s < r->S; s++) {
        unsigned ls = n->lev[s];
        if (!ls || !n->slotted[ls])
            continue;
        /* both in ascending port order */
        uint8_t *sl = r->slink + (size_t)s * r->nk;
        uint32_t b = n->up_off[s], e = n->up_off[s + 1];
        for (unsigned k = 0, a = 0; k < n->K[ls] && b + a < e; k++) {
            while (b + a < e && n->up[b + a].port < n->slot[ls][k])
                a++;
            if (b + a < e && n->up[b + a].port == n->slot[ls][k] && a < 255)
                sl[k] = (uint8_t)a;
        }
    }
    return 0;
}

/* Does switch s keep its entries toward destination switch d, routed up
   on their nominal links: every LID of d leaves on its slot's link, which
   is there and one closer (such an entry reads no other link, nor the
   switch's rank)? With cur (new costs of the column in cur[x * DM_BLOCK
   + j]), also the costs of s and of those neighbours unchanged; without,
   the saved costs are read, and a change of them marks the entries later
   (diff_costs). Destinations routed down, or without a route, read the
   list of candidates: 0. */
static int nominal_kept(const repair *r, uint32_t s, uint32_t d, const uint8_t *cur, uint32_t j)
{
    const dmodc *n = r->n;
    unsigned ls = n->lev[s], c0 = n->cost[(size_t)s * n->nswp + d];
    if (!ls || (cur && cur[(size_t)s * DM_BLOCK + j] != c0) || c0 == DM_INF ||
        c0 + n->lev[d] == ls)
        return 0;
    uint32_t q0 = n->dl_off[d], q1 = n->dl_off[d + 1];
    if (r->uslot[ls][d] != 255)
        q1 = q0 + 1; /* one slot for all: its first LID stands for them */
    const uint8_t *sl = r->slink + (size_t)s * r->nk;
    const ibr__adj *up = n->up + n->up_off[s];
    for (uint32_t q = q0; q < q1; q++) {
        unsigned a = sl[n->r[ls][n->dl[q]]];
        if (a == 255)
            return 0;
        uint32_t x = up[a].sw;
        unsigned cx = n->cost[(size_t)x * n->nswp + d];
        if (cx + 1u != c0 || (cur && cur[(size_t)x * DM_BLOCK + j] != cx))
            return 0;
    }
    return 1;
}

/* A removed link of s to the neighbour whose saved costs are hn: mark
   (s, d) where that neighbour was one closer than s, but for the
   destinations s routes up on their nominal links, which are kept. */
static void mark_removed(repair *r, uint32_t s, const uint8_t *hn, uint8_t *scratch)
{
    const uint8_t *hs = r->n->cost + (size_t)s * r->S;
    memset(scratch, 0, r->S);
    tight_or(scratch, hn, hs, r->S, 0);
    for (uint32_t d = 0; d < r->S; d++)
        if (scratch[d] && !nominal_kept(r, s, d, NULL, 0))
            mark(r, s, d);
}

/* alt[d] |= some up (down: 0) neighbour w of u, its links unchanged for a
   down one, is one closer to d than u (costs h): for an up one, its cost
   plus one is u's; for a down one, d lies below it. */
static void alternatives(const repair *r, uint32_t u, int up, uint8_t *alt)
{
    const dmodc *n = r->n;
    uint32_t S = r->S;
    const uint8_t *h = n->cost, *hu = h + (size_t)u * S;
    memset(alt, 0, S);
    const ibr__adj *l = up ? n->up + n->up_off[u] : n->dn + n->dn_off[u];
    uint32_t nl = up ? n->up_off[u + 1] - n->up_off[u] : n->dn_off[u + 1] - n->dn_off[u];
    for (uint32_t e = 0; e < nl; e++) {
        uint32_t w = l[e].sw;
        const uint8_t *hw = h + (size_t)w * S;
        if (up)
            tight_or(alt, hw, hu, S, 0);
        else if (!r->linkchg[w] && !r->cut[w])
            below_or(alt, hw, n->lev, n->lev[w], S);
    }
}

/* The saved costs of a neighbour in a change: its row of the hop matrix,
   or for one gone from the topology the row gone_rows() rebuilt. */
static const uint8_t *nb_costs(const repair *r, const link_chg *c)
{
    if (c->nb != IBR_NONE)
        return r->n->cost + (size_t)c->nb * r->S;
    return r->grows + (size_t)r->gslot[c->onb] * r->S;
}

/* The saved costs of saved switch og, which left the topology, from the
   saved costs of its neighbours (still there, levels unchanged): its
   up*down* cost to d is the level difference when d lies below a
   neighbour below it, else one more than its nearest neighbour above. 0,
   or 1 when a neighbour left too or changed. */
static int gone_row(const repair *r, uint32_t og, uint8_t *row)
{
    const dmodc *n = r->n, *o = r->o;
    const ibr__dmodc_fabric *of = o->f;
    uint32_t S = r->S;
    unsigned lg = o->lev[og];
    if (!lg)
        return 1;
    memset(row, DM_INF, S);
    for (uint32_t e = of->adj_off[og]; e < of->adj_off[og + 1]; e++) {
        uint32_t w = r->o2n[of->adj[e].sw];
        unsigned lw = o->lev[of->adj[e].sw];
        if (w == IBR_NONE || n->lev[w] != lw || r->cut[w])
            return 1;
        const uint8_t *hw = n->cost + (size_t)w * S;
        for (uint32_t d = 0; d < S; d++) {
            unsigned v = hw[d] == DM_INF ? DM_INF : hw[d] + 1u;
            if (lw < lg && (hw[d] == DM_INF || (unsigned)hw[d] + n->lev[d] != lw))
                continue; /* below og, only the switches below w */
            row[d] = (uint8_t)(v < row[d] ? v : row[d]);
        }
    }
    return 0;
}

/* The saved costs of the switches that left the topology (r->grows). A
   link to one whose costs cannot be rebuilt makes its other end's row and
   every column be computed again. 0 or IBR_ENOMEM. */
static int gone_rows(repair *r)
{
    ibr_context *ctx = r->n->ctx;
    for (size_t i = 0; i < r->nchg; i++) {
        link_chg *c = &r->chg[i];
        if (c->nb != IBR_NONE || r->gslot[c->onb] != IBR_NONE)
            continue;
        uint8_t *g = ibr__realloc(ctx, r->grows, ((size_t)r->ngsw + 1) * r->S);
        if (!g)
            return IBR_ENOMEM;
        r->grows = g;
        r->gslot[c->onb] = r->ngsw++;
        if (gone_row(r, c->onb, g + (size_t)r->gslot[c->onb] * r->S))
            r->all_cols = 1;
    }
    for (size_t i = 0; r->all_cols && i < r->nchg; i++)
        if (r->chg[i].nb == IBR_NONE)
            r->fullrow[r->chg[i].s] = 1;
    return 0;
}

/* The destination switches whose costs may change (r->cand), from the
   saved costs: a removed link (u below v) that was on every shortest
   up*down* path of u through its up links toward d, or of v through its
   down links (to a switch whose links did not change) toward d below u;
   an added link that gives a shorter one; a switch cut off. Elsewhere no
   cost changes (the shortest paths keep a link at every level). */
static void cand_cols(repair *r, uint8_t *alt)
{
    const dmodc *n = r->n, *o = r->o;
    uint32_t S = r->S;
    const uint8_t *h = n->cost;
    if (r->all_cols) {
        memset(r->cand, 1, S);
        return;
    }
    for (uint32_t s = 0; s < S; s++)
        r->cand[s] |= r->cut[s];
    for (size_t i = 0; i < r->nchg; i++) {
        const link_chg *c = &r->chg[i];
        unsigned ls = n->lev[c->s], lnb = c->removed ? o->lev[c->onb] : n->lev[c->nb];
        if (!ls || !lnb)
            continue;
        /* a neighbour gone from the topology: its saved costs, and no
           cost of its own to change */
        const uint8_t *hs = h + (size_t)c->s * S, *hnb = nb_costs(r, c);
        int gone = c->nb == IBR_NONE;
        uint32_t u = ls < lnb ? c->s : c->nb, v = ls < lnb ? c->nb : c->s;
        unsigned lu = ls < lnb ? ls : lnb;
        const uint8_t *hu = ls < lnb ? hs : hnb, *hv = ls < lnb ? hnb : hs;
        int u_on = !(gone && ls > lnb) && !r->cut[u], v_on = !(gone && ls < lnb) && !r->cut[v];
        if (!c->removed) {
            for (uint32_t d = 0; d < S; d++)
                r->cand[d] |= (unsigned)hv[d] + 1 < hu[d] ||
                              ((unsigned)hu[d] + n->lev[d] == lu && hv[d] > hu[d] + 1);
            continue;
        }
        if (u_on) {
            alternatives(r, u, 1, alt);
            for (uint32_t d = 0; d < S; d++)
                r->cand[d] |= hu[d] != DM_INF && (uint8_t)(hv[d] + 1) == hu[d] && !alt[d];
        }
        if (v_on) {
            alternatives(r, v, 0, alt);
            for (uint32_t d = 0; d < S; d++)
                r->cand[d] |= (unsigned)hu[d] + n->lev[d] == lu && n->lev[d] && !alt[d];
        }
    }
}

/* The new costs (into a->hops, over the saved ones) toward the candidate
   destination switches, 64 at a time; every (switch, destination) whose
   cost changed marks it and the neighbours it leads closer to d (their
   candidates). A switch cut off keeps only its cost to itself. */
static int diff_costs(repair *r)
{
    dmodc *n = r->n;
    uint32_t S = r->S;
    uint8_t *cur = ibr__mallocarray(n->ctx, S, DM_BLOCK);
    if (!cur)
        return IBR_ENOMEM;
    const ibr__dmodc_fabric *f = n->f;
    uint32_t cols[DM_BLOCK];
    for (uint32_t d = 0; d < S;) {
        uint32_t nb = 0;
        for (; d < S && nb < DM_BLOCK; d++)
            if (r->cand[d])
                cols[nb++] = d;
        if (!nb)
            break;
        cost_fill(n, cur, 0, nb, cols);
        /* a changed cost marks the switch, and each neighbour for which
           it is one closer before or after */
        for (uint32_t s = 0; s < S; s++) {
            const uint8_t *h = n->hops + (size_t)s * S;
            const uint8_t *c = cur + (size_t)s * DM_BLOCK;
            for (uint32_t j = 0; j < nb; j++) {
                uint32_t col = cols[j];
                if (h[col] == c[j])
                    continue;
                mark(r, s, col);
                for (uint32_t e = f->adj_off[s]; e < f->adj_off[s + 1]; e++) {
                    uint32_t w = f->adj[e].sw;
                    if (((uint8_t)(h[col] + 1) == n->hops[(size_t)w * S + col] ||
                         (uint8_t)(c[j] + 1) == cur[(size_t)w * DM_BLOCK + j]) &&
                        !nominal_kept(r, w, col, cur, j))
                        mark(r, w, col);
                }
            }
        }
        for (uint32_t s = 0; s < S; s++)
            for (uint32_t j = 0; j < nb; j++)
                n->hops[(size_t)s * S + cols[j]] = cur[(size_t)s * DM_BLOCK + j];
    }
    for (uint32_t s = 0; s < S; s++)
        if (r->cut[s]) {
            memset(n->hops + (size_t)s * S, DM_INF, S);
            n->hops[(size_t)s * S + s] = 0;
        }
    ibr__free(n->ctx, cur);
    return 0;
}

/* o[j] |= a[j] != b[j], DM_BLOCK at a time so that it vectorises */
static inline void differ64(uint8_t *restrict o, const uint8_t *restrict a,
                            const uint8_t *restrict b)
{
    for (unsigned j = 0; j < DM_BLOCK; j++)
        o[j] |= a[j] != b[j] ? 1 : 0;
}

static void differ_or(uint8_t *restrict o, const uint8_t *restrict a, const uint8_t *restrict b,
                      uint32_t n)
{
    uint32_t j = 0;
    for (; j + DM_BLOCK <= n; j += DM_BLOCK)
        differ64(o + j, a + j, b + j);
    for (; j < n; j++)
        o[j] |= a[j] != b[j];
}

/* A switch and a hash of its list of up neighbours: sorted by them,
   the switches that share a list come one after another. */
typedef struct ups_key {
    uint64_t h;
    uint32_t s;
} ups_key;

static int cmp_ups(const void *x, const void *y, void *arg)
{
    (void)arg;
    const ups_key *a = x, *b = y;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return a->s < b->s ? -1 : a->s > b->s;
}

static uint64_t ups_hash(const dmodc *n, uint32_t s)
{
    uint64_t h = 1469598103934665603ULL ^ (n->up_off[s + 1] - n->up_off[s]);
    for (uint32_t e = n->up_off[s]; e < n->up_off[s + 1]; e++)
        h = (h ^ n->up[e].sw) * 1099511628211ULL;
    return h;
}

/* A switch whose rank changed spreads its detours differently: where it
   routes up and some up neighbour is not one closer (their costs
   differ: uneq), or every destination it routes up when a slot's link is
   missing, its entries are marked. uneq depends only on the list of up
   neighbours, which many switches share: it is computed once per list.
   bad, uneq: S bytes of scratch. 0 or IBR_ENOMEM. */
static int mark_ranks(repair *r, uint8_t *bad, uint8_t *uneq)
{
    const dmodc *n = r->n;
    uint32_t S = r->S, ns = 0, nd = 0, nup = 0;
    ups_key *sw = ibr__mallocarray(n->ctx, S, sizeof *sw);
    uint32_t *dl = ibr__mallocarray(n->ctx, S, sizeof *dl);
    uint8_t *uc = NULL; /* per destination of dl, the costs of the list's
                           up neighbours (nup a row) */
    size_t cap_uc = 0;
    int rc = IBR_ENOMEM;
    if (!sw || !dl)
        goto out;
    for (uint32_t s = 0; s < S; s++)
        if (r->rankchg[s] && !r->fullrow[s] && n->lev[s] && n->slotted[n->lev[s]] &&
            n->up_off[s + 1] > n->up_off[s])
            sw[ns++] = (ups_key){ups_hash(n, s), s};
    ibr__sort(sw, ns, sizeof *sw, cmp_ups, NULL);
    for (uint32_t i = 0; i < ns; i++) {
        uint32_t s = sw[i].s, p = i > 0 ? sw[i - 1].s : 0;
        unsigned ls = n->lev[s];
        const ibr__adj *up = n->up + n->up_off[s];
        const uint8_t *hs = n->cost + (size_t)s * n->nswp;
        /* the previous switch's list (a hash collision only costs a
           recomputation) */
        int same = i > 0 && n->up_off[p + 1] - n->up_off[p] == n->up_off[s + 1] - n->up_off[s];
        for (uint32_t u = 0; same && u < n->up_off[s + 1] - n->up_off[s]; u++)
            same = n->up[n->up_off[p] + u].sw == up[u].sw;
        if (!same) {
            nup = n->up_off[s + 1] - n->up_off[s];
            memset(uneq, 0, S);
            for (uint32_t u = 1; u < nup; u++)
                differ_or(uneq, n->cost + (size_t)up[u].sw * n->nswp,
                          n->cost + (size_t)up[0].sw * n->nswp, S);
            nd = 0; /* few: the costs of up neighbours differ rarely */
            for (uint32_t d = 0; d < S; d++)
                if (uneq[d])
                    dl[nd++] = d;
            if (ibr__grow(n->ctx, (void **)&uc, &cap_uc, (size_t)nd * nup + 1, 1) < 0)
                goto out;
            for (uint32_t i2 = 0; i2 < nd; i2++)
                for (uint32_t u = 0; u < nup; u++)
                    uc[(size_t)i2 * nup + u] = n->cost[(size_t)up[u].sw * n->nswp + dl[i2]];
        }
        int all = 0;
        for (unsigned k = 0; k < n->K[ls]; k++)
            all |= r->slink[(size_t)s * r->nk + k] == 255;
        if (!all) {
            /* not where s has no route, nor where it routes down, nor
               where fewer than two up links lead closer (the rank picks
               among two or more) */
            for (uint32_t i2 = 0; i2 < nd; i2++) {
                uint32_t d = dl[i2];
                if (hs[d] == DM_INF || (unsigned)hs[d] + n->lev[d] == ls)
                    continue;
                unsigned k = 0;
                for (uint32_t u = 0; u < nup && k < 2; u++)
                    k += uc[(size_t)i2 * nup + u] + 1u == hs[d];
                if (k >= 2)
                    mark(r, s, d);
            }
            continue;
        }
        memset(bad, 1, S);
        uint32_t d = 0;
        for (; d + DM_BLOCK <= S; d += DM_BLOCK)
            up64(bad + d, hs + d, n->lev + d, (uint8_t)ls);
        for (; d < S; d++)
            bad[d] &= hs[d] != DM_INF && (unsigned)hs[d] + n->lev[d] != ls;
        mark_flags(r, s, bad);
    }
    rc = 0;
out:
    ibr__free(n->ctx, sw);
    ibr__free(n->ctx, dl);
    ibr__free(n->ctx, uc);
    return rc;
}

/* Compute the marked entries again into a->lft, counting the changes. */
static int recompute(repair *r)
{
    ibr__dmodc_repair *a = r->a;
    const dmodc *n = r->n;
    const ibr_topo *t = a->t;
    size_t L = a->lft_size;
    uint8_t *scratch = ibr__malloc(n->ctx, L);
    if (!scratch)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < r->S; s++) {
        uint8_t *row = a->lft + (size_t)s * L;
        row_chg rc = {0, 0, a->blk + (size_t)s * a->n_blocks}, *chg = &rc;
        if (r->fullrow[s]) {
            memset(scratch, IBR_NO_ROUTE, L);
            table_row(n, s, scratch);
            row[0] = scratch[0]; /* LID 0 is not an entry */
            for (size_t l = 1; l < L; l++)
                if (row[l] != scratch[l])
                    put(row, (uint32_t)l, scratch[l], chg);
        } else {
            const uint64_t *bits = r->dirty + (size_t)s * r->W;
            row_ctx c;
            int init = 0;
            for (uint32_t w = 0; w < r->W; w++)
                for (uint64_t b = bits[w]; b; b &= b - 1) {
                    uint32_t d = w * 64 + (uint32_t)__builtin_ctzll(b);
                    if (d == s) {
                        for (uint32_t q = n->dl_off[s]; q < n->dl_off[s + 1]; q++)
                            put(row, n->dl[q], t->lid_swport[n->dl[q]], chg);
                    } else if (!n->lev[s]) {
                        for (uint32_t q = n->dl_off[d]; q < n->dl_off[d + 1]; q++)
                            put(row, n->dl[q], IBR_NO_ROUTE, chg);
                    } else {
                        if (!init) {
                            row_init(&c, n, s);
                            init = 1;
                        }
                        route_dest(n, &c, d, row, chg);
                    }
                }
        }
        for (uint32_t i = 0; i < r->ngone; i++)
            put(row, r->gone[i], IBR_NO_ROUTE, chg);
        a->changed[s] += rc.n;
        a->changed_total += rc.n;
        a->sw_blocks[s] += rc.nblk;
        a->blocks_total += rc.nblk;
    }
    ibr__free(n->ctx, scratch);
    return 0;
}

static const uint8_t *repair_row(void *arg, uint32_t sw)
{
    const ibr__dmodc_repair *a = arg;
    return a->lft + (size_t)sw * a->lft_size;
}

/* Is h[j] infinite for some j with e[j] (e: 0 or 1)? */
static inline uint8_t inf64(const uint8_t *restrict h, const uint8_t *restrict e)
{
    uint8_t any = 0;
    for (unsigned j = 0; j < DM_BLOCK; j++)
        any |= (h[j] == DM_INF ? 1 : 0) & e[j];
    return any;
}

/* Does a switch with end ports (isep) have no finite cost to another
   one (in the same component when comp is not NULL)? */
static int infinite_pair(const dmodc *n, const uint8_t *isep, const uint32_t *comp)
{
    uint32_t S = n->nsw;
    for (uint32_t s = 0; s < S; s++) {
        if (!isep[s])
            continue;
        const uint8_t *hs = n->cost + (size_t)s * n->nswp;
        uint8_t any = 0;
        uint32_t d = 0;
        for (; d + DM_BLOCK <= S; d += DM_BLOCK)
            any |= inf64(hs + d, isep + d);
        for (; d < S; d++)
            any |= (uint8_t)(hs[d] == DM_INF) & isep[d];
        if (!any)
            continue;
        if (!comp)
            return 1;
        for (d = 0; d < S; d++)
            if (isep[d] && hs[d] == DM_INF && comp[d] == comp[s])
                return 1;
    }
    return 0;
}

/* The engine declines when a pair the fabric connects has no up/down
   route, which the tables give exactly where a switch with end ports has
   no finite cost to a destination switch of its component: only then are
   the repaired tables walked (as a fresh route checks them). 1 when it
   would decline. */
static int check_unrouted(repair *r)
{
    ibr__dmodc_repair *a = r->a;
    const dmodc *n = r->n;
    const ibr__dmodc_fabric *f = n->f;
    uint8_t *isep = ibr__calloc(n->ctx, r->S, 1);
    if (!isep)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < f->n_ep; i++)
        isep[f->ep_sw[i]] = 1;
    if (!infinite_pair(n, isep, NULL)) {
        ibr__free(n->ctx, isep);
        return 0;
    }
    /* components of the switch graph */
    uint32_t *comp = ibr__mallocarray(n->ctx, r->S, sizeof *comp);
    uint32_t *queue = ibr__mallocarray(n->ctx, r->S, sizeof *queue);
    if (!comp || !queue) {
        ibr__free(n->ctx, comp);
        ibr__free(n->ctx, queue);
        ibr__free(n->ctx, isep);
        return IBR_ENOMEM;
    }
    ibr__graph_components(r->S, f->adj_off, f->adj, comp, queue);
    int suspect = infinite_pair(n, isep, comp);
    ibr__free(n->ctx, comp);
    ibr__free(n->ctx, queue);
    ibr__free(n->ctx, isep);
    if (!suspect)
        return 0;
    uint64_t np = 0;
    uint32_t sw;
    uint16_t lid;
    if (ibr__unrouted_pairs(&np, &sw, &lid, a->t, repair_row, a, a->lmc_cap) < 0)
        return IBR_ENOMEM;
    if (np == 0)
        return 0;
    snprintf(a->why, sizeof a->why,
             "dmodc declines the changed fabric: %" PRIu64 " end-port pair(s) it connects "
             "have no up/down route (e.g. from switch 0x%016" PRIx64 " to LID %u)",
             np, f->guid[sw], lid);
    return 1;
}

/* The marks of a repair, once the models and costs are compared. */
static int mark_all(repair *r)
{
    uint8_t *bad = ibr__malloc(r->n->ctx, (size_t)r->S * 2);
    if (!bad || mark_ranks(r, bad, bad + r->S) < 0) {
        ibr__free(r->n->ctx, bad);
        return IBR_ENOMEM;
    }
    for (uint32_t d = 0; d < r->S; d++)
        if (r->fullcol[d])
            for (uint32_t s = 0; s < r->S; s++)
                mark(r, s, d);
    /* destination switches with an entry to compute */
    memset(bad, 0, r->S);
    for (uint32_t s = 0; s < r->S; s++) {
        const uint64_t *bits = r->dirty + (size_t)s * r->W;
        for (uint32_t w = 0; w < r->W; w++)
            for (uint64_t b = bits[w]; b; b &= b - 1)
                bad[w * 64 + (uint32_t)__builtin_ctzll(b)] = 1;
    }
    for (uint32_t d = 0; d < r->S; d++)
        r->a->dests += bad[d];
    ibr__free(r->n->ctx, bad);
    return 0;
}

/* The saved fabric's model, built once with its database. */
struct ibr__dmodc_saved {
    ibr__dmodc_fabric f;
    dmodc m;
    char why[IBR_ERRMSG_SIZE];
};

void ibr__dmodc_saved_free(ibr__dmodc_saved *sv, ibr_context *ctx)
{
    if (!sv)
        return;
    dm_free(&sv->m);
    ibr__dmodc_fabric_free(&sv->f, ctx);
    ibr__free(ctx, sv);
}

int ibr__dmodc_saved_new(ibr__dmodc_saved **out, ibr_context *ctx, ibr__dmodc_fabric *f,
                         unsigned lmc_cap)
{
    *out = NULL;
    ibr__dmodc_saved *sv = ibr__calloc(ctx, 1, sizeof *sv);
    if (!sv) {
        ibr__dmodc_fabric_free(f, ctx);
        return IBR_ENOMEM;
    }
    sv->f = *f;
    memset(f, 0, sizeof *f);
    sv->m.f = &sv->f;
    sv->m.ctx = ctx;
    sv->m.nsw = sv->f.nsw;
    sv->m.lmc_cap = lmc_cap;
    sv->m.why = sv->why;
    int rc = sv->f.nsw ? dm_model(&sv->m) : 1;
    if (rc != 0) {
        ibr__dmodc_saved_free(sv, ctx);
        return rc;
    }
    *out = sv;
    return 0;
}

const ibr__dmodc_fabric *ibr__dmodc_saved_fabric(const ibr__dmodc_saved *sv, unsigned lmc_cap)
{
    return sv && sv->m.lmc_cap == lmc_cap ? &sv->f : NULL;
}

int ibr__dmodc_repair_run(ibr__dmodc_repair *a)
{
    const ibr_topo *t = a->t;
    ibr_context *ctx = t->ctx;
    dmodc n, own;
    const dmodc *o = &own;
    ibr__dmodc_fabric fab;
    repair r;
    uint8_t *scratch = NULL;
    char wn[IBR_ERRMSG_SIZE], wo[IBR_ERRMSG_SIZE];
    memset(&n, 0, sizeof n);
    memset(&own, 0, sizeof own);
    memset(&fab, 0, sizeof fab);
    memset(&r, 0, sizeof r);
    a->changed_total = 0;
    a->dests = 0;
    a->why[0] = 0;
    if (t->n_sw == 0 || a->old->nsw == 0) {
        snprintf(a->why, sizeof a->why, "no switch to repair");
        return 1;
    }
    n.t = t;
    n.f = &fab;
    n.ctx = own.ctx = ctx;
    n.nsw = t->n_sw;
    n.lmc_cap = own.lmc_cap = a->lmc_cap;
    n.why = wn;
    own.f = a->old;
    own.nsw = a->old->nsw;
    own.why = wo;
    /* the saved model built with the database, when it is of this fabric */
    if (a->saved && &a->saved->f == a->old && a->saved->m.lmc_cap == a->lmc_cap)
        o = &a->saved->m;
    int rc = IBR_ENOMEM;
    if (ibr__dmodc_fabric_of(&fab, t) < 0)
        goto out;
    if ((rc = dm_model(&n)) != 0) {
        if (rc == 1)
            snprintf(a->why, sizeof a->why, "dmodc declines the changed fabric: %s", wn);
        goto out;
    }
    if (o == &own && (rc = dm_model(&own)) != 0) {
        if (rc == 1)
            snprintf(a->why, sizeof a->why, "the saved fabric is not one dmodc routes: %s", wo);
        goto out;
    }
    rc = 1;
    if (!same_dividers(&n, o)) {
        snprintf(a->why, sizeof a->why,
                 "the levels or dividers change (up ports per level, their slots, end ports "
                 "per leaf): the formula moves every column");
        goto out;
    }
    n.hops = n.cost = a->hops;
    n.nswp = n.nsw;
    r.a = a;
    r.n = &n;
    r.o = o;
    r.S = t->n_sw;
    r.W = (r.S + 63) / 64;
    r.dirty = ibr__calloc(ctx, (size_t)r.S * r.W, sizeof *r.dirty);
    r.fullrow = ibr__calloc(ctx, r.S, 1);
    r.fullcol = ibr__calloc(ctx, r.S, 1);
    r.rankchg = ibr__calloc(ctx, r.S, 1);
    r.linkchg = ibr__calloc(ctx, r.S, 1);
    r.cut = ibr__calloc(ctx, r.S, 1);
    r.cand = ibr__calloc(ctx, r.S, 1);
    r.o2n = ibr__mallocarray(ctx, o->nsw, sizeof *r.o2n);
    r.gone = ibr__mallocarray(ctx, a->lft_size, sizeof *r.gone);
    r.gslot = ibr__mallocarray(ctx, o->nsw, sizeof *r.gslot);
    scratch = ibr__malloc(ctx, r.S);
    rc = IBR_ENOMEM;
    if (!r.dirty || !r.fullrow || !r.fullcol || !r.rankchg || !r.linkchg || !r.cut || !r.cand ||
        !r.o2n || !r.gone || !r.gslot || !scratch)
        goto out;
    for (uint32_t os = 0; os < o->nsw; os++)
        r.o2n[os] = r.gslot[os] = IBR_NONE;
    for (uint32_t s = 0; s < r.S; s++)
        if (a->swmap[s] != IBR_NONE && a->swmap[s] < o->nsw)
            r.o2n[a->swmap[s]] = s;
    if ((rc = diff_models(&r)) != 0 || (rc = gone_rows(&r)) != 0)
        goto out;
    cand_cols(&r, scratch);
    if ((rc = nominal_tables(&r)) != 0)
        goto out;
    for (size_t i = 0; i < r.nchg; i++)
        if (r.chg[i].removed && !r.fullrow[r.chg[i].s])
            mark_removed(&r, r.chg[i].s, nb_costs(&r, &r.chg[i]), scratch);
    if ((rc = diff_costs(&r)) != 0)
        goto out;
    for (size_t i = 0; i < r.nchg; i++)
        if (!r.chg[i].removed && !r.fullrow[r.chg[i].s])
            mark_link(&r, r.chg[i].s, nb_costs(&r, &r.chg[i]), scratch);
    if ((rc = mark_all(&r)) != 0)
        goto out;
    if ((rc = recompute(&r)) != 0)
        goto out;
    rc = check_unrouted(&r);
out:
    ibr__free(ctx, r.dirty);
    ibr__free(ctx, r.fullrow);
    ibr__free(ctx, r.fullcol);
    ibr__free(ctx, r.rankchg);
    ibr__free(ctx, r.linkchg);
    ibr__free(ctx, r.cut);
    ibr__free(ctx, r.cand);
    ibr__free(ctx, r.o2n);
    ibr__free(ctx, r.chg);
    ibr__free(ctx, r.gone);
    ibr__free(ctx, r.gslot);
    ibr__free(ctx, r.grows);
    for (unsigned l = 0; l < DM_MAX_LEVELS + 2; l++)
        ibr__free(ctx, r.uslot[l]);
    ibr__free(ctx, r.slink);
    ibr__free(ctx, scratch);
    dm_free(&n);
    dm_free(&own);
    ibr__dmodc_fabric_free(&fab, ctx);
    return rc;
}

const ibr_engine ibr__engine_dmodc = {
    .version = IBR_ENGINE_VERSION,
    .name = "dmodc",
    .description = "closed-form (D-mod-K) up/down routing for fat trees, intact or degraded",
    .caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE | IBR_CAP_EXPERIMENTAL,
    .route = dmodc_route,
};
