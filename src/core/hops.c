/*
 * Breadth-first searches over the switch graph (active switch-to-switch
 * links): distances from a set of sources, and the all-pairs hop matrix.
 * Every layer of the library that needs switch distances uses these.
 */
#include <string.h>

#include "core/internal.h"

void ibr__bfs(uint32_t *dist, const ibr_topo *t, const uint32_t *src, size_t n_src,
              uint32_t *queue)
{
    for (uint32_t s = 0; s < t->n_sw; s++)
        dist[s] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    for (size_t i = 0; i < n_src; i++)
        if (dist[src[i]] != 0) {
            dist[src[i]] = 0;
            queue[tail++] = src[i];
        }
    while (head < tail) {
        uint32_t s = queue[head++];
        uint32_t nd = dist[s] + 1;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t n = t->adj[e].sw;
            if (dist[n] == UINT32_MAX) {
                dist[n] = nd;
                queue[tail++] = n;
            }
        }
    }
}

typedef struct {
    const ibr_topo *t;
    uint8_t *d;
    uint32_t **queue; /* per worker */
} hops_job;

/* One row of the hop matrix: 8-bit distances, capped at 255. */
static int bfs_row(void *arg, unsigned worker, size_t src)
{
    hops_job *j = arg;
    const ibr_topo *t = j->t;
    uint32_t *q = j->queue[worker];
    uint8_t *d = j->d + src * t->n_sw;
    memset(d, 255, t->n_sw);
    uint32_t head = 0, tail = 0;
    d[src] = 0;
    q[tail++] = (uint32_t)src;
    while (head < tail) {
        uint32_t s = q[head++];
        unsigned nd = d[s] + 1u;
        if (nd >= 255)
            break;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t n = t->adj[e].sw;
            if (d[n] == 255) {
                d[n] = (uint8_t)nd;
                q[tail++] = n;
            }
        }
    }
    return 0;
}

int ibr__switch_hops_into(uint8_t *d, const ibr_topo *t, unsigned int nthreads)
{
    size_t n = t->n_sw;
    if (nthreads < 1)
        nthreads = 1;
    uint32_t *qs[64];
    int rc = 0;
    unsigned nq = nthreads > 64 ? 64 : nthreads;
    for (unsigned i = 0; i < nq; i++) {
        qs[i] = ibr__mallocarray(t->ctx, n ? n : 1, sizeof **qs);
        if (!qs[i]) {
            nq = i;
            rc = IBR_ENOMEM;
            break;
        }
    }
    if (rc == 0) {
        hops_job j = {t, d, qs};
        rc = ibr__parallel_for(nq, n, bfs_row, &j);
    }
    for (unsigned i = 0; i < nq; i++)
        ibr__free(t->ctx, qs[i]);
    return rc;
}

int ibr__switch_hops(uint8_t **out, const ibr_topo *t, unsigned int nthreads)
{
    size_t n = t->n_sw;
    *out = NULL;
    uint8_t *d = ibr__mallocarray(t->ctx, n ? n * n : 1, 1);
    if (!d)
        return IBR_ENOMEM;
    int rc = ibr__switch_hops_into(d, t, nthreads);
    if (rc < 0) {
        ibr__free(t->ctx, d);
        return rc;
    }
    *out = d;
    return 0;
}
