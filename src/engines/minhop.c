/*
 * minhop: OpenSM's default routing. Shortest paths over active links (a
 * breadth-first search from every switch), then the shared LFT builder
 * (ucast.c) balances the destinations over the minimum-hop ports.
 *
 * Time: O(S·(S+E)) for the hop matrix plus the builder's cost. Memory: S^2
 * bytes for the hop matrix, which the result keeps.
 */
#include <string.h>

#include "engines/engines.h"
#include "engines/ucast.h"

typedef struct {
    const ibr_topo *t;
    const uint8_t *hops;
} mh_cands;

/* Ports of s toward d: neighbours one hop closer to d. The hop matrix is
   symmetric, so row T holds the distances from neighbour T to every d.
   Neighbour by neighbour, two passes over contiguous rows (count, then
   place; a counting sort in cand_off), which the compiler vectorises:
   O(S x degree) per switch with no strided reads. */
static void minhop_cands(void *arg, uint32_t s, uint32_t *cand_off, uint8_t *cand)
{
    const mh_cands *c = arg;
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

int ibr__minhop_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = run->topo;
    uint8_t *hops = NULL;
    int rc = ibr_run_progress(run, "minhop: hop matrix", 0, 1);
    if (rc < 0)
        return rc;
    if ((rc = ibr__switch_hops(&hops, t, run->nthreads)) < 0)
        return ibr__run_fail(run, rc, "out of memory");
    mh_cands c = {t, hops};
    rc = ibr__ucast_build(run, hops, minhop_cands, &c, "minhop: forwarding tables");
    if (rc < 0) {
        ibr__free(t->ctx, hops);
        return rc;
    }
    /* the result keeps the hop matrix */
    ibr__free(t->ctx, run->res->hops);
    run->res->hops = hops;
    return 0;
}
