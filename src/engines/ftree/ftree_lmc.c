/*
 * ftree: the extra LIDs of ports with LMC > 0 (OpenSM's fat-tree routing
 * declines LMC > 0; ibroute's routes it). The base LID of every port is
 * routed by ibr__ftree_assign (or the degraded assignment) exactly as
 * without LMC; this pass then derives the routes of LIDs base + 1 ..
 * base + 2^LMC - 1 from the base LID's tables, so that the LIDs of a port
 * reach it over different upper switches.
 *
 * Per destination port, h(s) is the length of the base LID's route from
 * switch s. A switch whose base route leaves through an UP group routes
 * LID k through the UP group g' = C[(i + off) mod c], where C lists, in
 * port order, the UP groups of s whose upper switch u has h(u) = h(s) - 1
 * (c of them), i is the base LID's group in C, and off spreads the LIDs:
 * with n = 2^LMC and K_l the usual number of UP groups at level l (leaves
 * are level 1), b_1 = k and b_{l+1} = b_l K_l mod n, off = b_l c / n
 * (rounded down). On an intact tree b_l c / n are the digits of k / n in
 * the mixed radix of the K_l, so the LIDs of a port leave a leaf on
 * different upper switches while there are enough, and LIDs that share a
 * switch leave it on different groups above: they turn at
 * min(n, offered) different switches. Within a group (parallel cables) LID
 * k takes port (q + k) mod the group's ports, q the base LID's port in its
 * group. Every other entry (down, toward a CA, within a rank, no route)
 * is the base LID's.
 *
 * Each route of LID k is as long as the base LID's from the same switch
 * (every step lowers h by one) and moves up only where the base route
 * does, to a switch of lower rank, then follows base routes down: on a
 * tree routed up/down the extra LIDs are up/down too, hence free of credit
 * loops on one VL (ftree.c checks routes for loops where within-rank links
 * or reverse hops could close one, as for the base LIDs).
 *
 * Time O(P * (S * c + 2^LMC * S)) for P end ports with LMC > 0, S
 * switches and c UP groups per switch; nothing when no port has LMC > 0.
 */
#include <string.h>

#include "engines/ftree/ftree_int.h"

#define LMC_NOHOP 0xFFFFu

typedef struct lmc_state {
    ftree *ft;
    uint32_t *nbr;      /* nsw x 256: switch behind each port, IBR_NONE */
    uint32_t *pgrp;     /* nsw x 256: group of each port, IBR_NONE */
    uint32_t *ups;      /* per switch, its UP groups in port order */
    uint32_t *ups_off;  /* nsw + 1 */
    uint16_t *h;        /* per worker, per switch: base route length, LMC_NOHOP */
    uint32_t *stack;    /* per worker, per switch */
    unsigned nw;        /* workers */
    const uint32_t *eps; /* end ports to spread (global port indices) */
    unsigned K[FT_MAX_RANK + 2]; /* per level: usual number of UP groups */
    unsigned nlev;
} lmc_state;

/* Level of switch s: 1 at the leaf rank, one more per rank above; 0 for
   switches below the leaf rank or unranked (never spread). */
static unsigned sw_level(const ftree *ft, uint32_t s)
{
    uint32_t r = ft->sw[s].rank;
    if (r == FT_NORANK || r > ft->leaf_rank)
        return 0;
    return ft->leaf_rank - r + 1;
}

static int lmc_init(lmc_state *L, ftree *ft)
{
    const ibr_topo *t = ft->t;
    uint32_t nsw = ft->nsw;
    L->ft = ft;
    L->nbr = ibr__mallocarray(ft->ctx, (size_t)nsw * 256, sizeof *L->nbr);
    L->pgrp = ibr__mallocarray(ft->ctx, (size_t)nsw * 256, sizeof *L->pgrp);
    L->ups = ibr__mallocarray(ft->ctx, ft->ngrp ? ft->ngrp : 1, sizeof *L->ups);
    L->ups_off = ibr__mallocarray(ft->ctx, nsw + 1, sizeof *L->ups_off);
    L->nw = ibr_run_threads(ft->run);
    L->h = ibr__mallocarray(ft->ctx, (size_t)L->nw * nsw, sizeof *L->h);
    L->stack = ibr__mallocarray(ft->ctx, (size_t)L->nw * (nsw + 1), sizeof *L->stack);
    if (!L->nbr || !L->pgrp || !L->ups || !L->ups_off || !L->h || !L->stack)
        return IBR_ENOMEM;
    for (size_t i = 0; i < (size_t)nsw * 256; i++)
        L->nbr[i] = L->pgrp[i] = IBR_NONE;
    for (uint32_t s = 0; s < nsw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            L->nbr[(size_t)s * 256 + t->adj[e].port] = t->adj[e].sw;
    /* UP groups in group order (the order of their first port) */
    uint32_t n = 0;
    uint32_t cnt[FT_MAX_RANK + 2][256];
    memset(cnt, 0, sizeof cnt);
    L->nlev = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        const ft_sw *w = &ft->sw[s];
        L->ups_off[s] = n;
        if (w->rank == FT_NORANK)
            continue;
        for (uint32_t i = 0; i < w->nup; i++) {
            uint32_t g = ft->order[w->up + i], j = n + i;
            while (j > n && L->ups[j - 1] > g) {
                L->ups[j] = L->ups[j - 1];
                j--;
            }
            L->ups[j] = g;
        }
        n += w->nup;
        unsigned l = sw_level(ft, s);
        if (l && l <= FT_MAX_RANK + 1) {
            cnt[l][w->nup > 255 ? 255 : w->nup]++;
            L->nlev = l > L->nlev ? l : L->nlev;
        }
        /* every group's ports */
        for (uint32_t i = 0; i < w->ndown + w->nsib + w->nup; i++) {
            uint32_t g = ft->order[w->down + i];
            for (uint32_t p = 0; p < ft->grp[g].nports; p++)
                L->pgrp[(size_t)s * 256 + ft->ports[ft->grp[g].port0 + p].port] = g;
        }
    }
    L->ups_off[nsw] = n;
    for (unsigned l = 1; l <= L->nlev; l++) {
        unsigned best = 1;
        for (unsigned k = 1; k < 256; k++)
            if (cnt[l][k] && cnt[l][k] >= cnt[l][best])
                best = k;
        L->K[l] = best;
    }
    return 0;
}

static void lmc_free(lmc_state *L)
{
    ibr_context *ctx = L->ft->ctx;
    ibr__free(ctx, L->nbr);
    ibr__free(ctx, L->pgrp);
    ibr__free(ctx, L->ups);
    ibr__free(ctx, L->ups_off);
    ibr__free(ctx, L->h);
    ibr__free(ctx, L->stack);
}

/* h(s) for every switch: the length of the base LID's route from s to the
   port on switch d, port dport (LMC_NOHOP: none). */
static void base_lengths(const lmc_state *L, uint16_t *h, uint32_t *stack, uint16_t lid,
                         uint32_t d, uint8_t dport)
{
    ftree *ft = L->ft;
    uint32_t nsw = ft->nsw;
    for (uint32_t s = 0; s < nsw; s++)
        h[s] = LMC_NOHOP - 1; /* unknown */
    h[d] = ibr_run_lft(ft->run, d)[lid] == dport ? 0 : LMC_NOHOP;
    for (uint32_t s0 = 0; s0 < nsw; s0++) {
        uint32_t sp = 0, s = s0;
        uint16_t v = LMC_NOHOP;
        while (h[s] == LMC_NOHOP - 1) {
            h[s] = LMC_NOHOP - 2; /* on the stack: a loop ends here */
            stack[sp++] = s;
            uint8_t p = ibr_run_lft(ft->run, s)[lid];
            uint32_t nx = p == 255 ? IBR_NONE : L->nbr[(size_t)s * 256 + p];
            if (nx == IBR_NONE)
                break;
            s = nx;
        }
        if (h[s] < LMC_NOHOP - 2)
            v = h[s];
        while (sp > 0) {
            s = stack[--sp];
            v = v < LMC_NOHOP - 3 ? (uint16_t)(v + 1) : LMC_NOHOP;
            h[s] = v;
        }
    }
}

/* The extra LIDs of end port i of L->eps (a parallel loop's item). */
static int spread_port(void *arg, unsigned worker, size_t item)
{
    const lmc_state *L = arg;
    ftree *ft = L->ft;
    const ibr_topo *t = ft->t;
    const ibr__port *pt = &t->ports[L->eps[item]];
    unsigned cap = ft->o->lmc == IBR_LMC_TOPO ? 7 : ft->o->lmc;
    unsigned n = 1u << (pt->lmc < cap ? pt->lmc : cap);
    uint16_t lid = pt->lid;
    uint16_t *h = L->h + (size_t)worker * ft->nsw;
    base_lengths(L, h, L->stack + (size_t)worker * (ft->nsw + 1), lid, t->lid_sw[lid],
                 (uint8_t)t->lid_swport[lid]);
    /* b[k][l] and v[k][l] (see the file comment) */
    unsigned b[128][FT_MAX_RANK + 3];
    uint64_t v[128][FT_MAX_RANK + 3];
    unsigned offk[128][FT_MAX_RANK + 3];
    for (unsigned k = 0; k < n; k++) {
        b[k][1] = k;
        v[k][0] = v[k][1] = 0;
        for (unsigned l = 1; l <= L->nlev; l++) {
            b[k][l + 1] = (b[k][l] * L->K[l]) % n;
            v[k][l + 1] = v[k][l] * L->K[l] + b[k][l] * L->K[l] / n;
            offk[k][l] = (unsigned)(((uint64_t)b[k][l] * L->K[l] / n + v[k][l]) % L->K[l]);
        }
    }
    uint32_t cand[256];
    for (uint32_t s = 0; s < ft->nsw; s++) {
        uint8_t *lft = ibr_run_lft(ft->run, s);
        uint8_t p = lft[lid];
        uint32_t g = p == 255 ? IBR_NONE : L->pgrp[(size_t)s * 256 + p];
        unsigned l = sw_level(ft, s);
        unsigned c = 0, i = 0;
        if (g != IBR_NONE && l && h[s] < LMC_NOHOP && ft->grp[g].remote != FT_CA &&
            ft->sw[ft->grp[g].remote].rank < ft->sw[s].rank) {
            for (uint32_t e = L->ups_off[s]; e < L->ups_off[s + 1] && c < 256; e++) {
                uint32_t u = ft->grp[L->ups[e]].remote;
                if (h[u] + 1u == h[s]) {
                    if (L->ups[e] == g)
                        i = c;
                    cand[c++] = L->ups[e];
                }
            }
        }
        if (c == 0) { /* not up: the base LID's entry */
            for (unsigned k = 1; k < n; k++)
                lft[lid + k] = p;
            continue;
        }
        const ft_group *bg = &ft->grp[g];
        unsigned q = 0;
        while (q + 1 < bg->nports && ft->ports[bg->port0 + q].port != p)
            q++;
        for (unsigned k = 1; k < n; k++) {
            /* the usual case (c = K) without a division */
            unsigned off = c == L->K[l] ? offk[k][l]
                                        : (unsigned)(((uint64_t)b[k][l] * c / n + v[k][l]) % c);
            unsigned j = i + off >= c ? i + off - c : i + off;
            const ft_group *cg = &ft->grp[cand[j]];
            unsigned pi = cg->nports == 1 ? 0 : (q + k) % cg->nports;
            lft[lid + k] = ft->ports[cg->port0 + pi].port;
        }
    }
    return 0;
}

int ibr__ftree_lmc(ftree *ft)
{
    const ibr_topo *t = ft->t;
    unsigned cap = ft->o->lmc == IBR_LMC_TOPO ? 7 : ft->o->lmc;
    int any = 0;
    for (uint32_t i = 0; i < t->n_ports && !any; i++)
        any = t->ports[i].lid && t->ports[i].lmc > 0 && cap > 0;
    if (!any)
        return 0;
    lmc_state L;
    memset(&L, 0, sizeof L);
    int rc = lmc_init(&L, ft);
    /* a switch's LIDs: the base LID's entries */
    for (uint32_t w = 0; w < t->n_sw && rc == 0; w++) {
        const ibr__port *pt = &t->ports[t->nodes[t->sw_node[w]].port_off];
        unsigned lmc = pt->lmc < cap ? pt->lmc : cap;
        if (!pt->lid || lmc == 0 || pt->lid + (1u << lmc) - 1 > t->max_lid)
            continue;
        for (uint32_t s = 0; s < ft->nsw; s++) {
            uint8_t *lft = ibr_run_lft(ft->run, s);
            for (unsigned k = 1; k < (1u << lmc); k++)
                lft[pt->lid + k] = lft[pt->lid];
        }
    }
    /* end ports, spread in parallel: each writes its own LIDs' entries */
    uint32_t *eps = rc == 0 ? ibr__mallocarray(ft->ctx, t->n_end ? t->n_end : 1, sizeof *eps)
                            : NULL;
    size_t ne = 0;
    if (rc == 0 && !eps)
        rc = IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_end && rc == 0; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        unsigned lmc = pt->lmc < cap ? pt->lmc : cap;
        if (pt->lid && lmc > 0 && pt->lid + (1u << lmc) - 1 <= t->max_lid &&
            t->lid_sw[pt->lid] != IBR_NONE)
            eps[ne++] = t->end_port[i];
    }
    L.eps = eps;
    if (rc == 0 && (rc = ibr_run_progress(ft->run, "ftree: LMC LIDs", 0, 1)) >= 0)
        rc = ibr_run_parallel_for(ft->run, ne, spread_port, &L);
    ibr__free(ft->ctx, eps);
    lmc_free(&L);
    return rc;
}
