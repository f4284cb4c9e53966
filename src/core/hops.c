/* All-pairs switch hop counts by breadth-first search from every switch. */
#include <string.h>

#include "core/internal.h"

typedef struct {
    const ibr_topo *t;
    uint8_t *d;
    uint32_t **queue; /* per worker */
} hops_job;

static int bfs_one(void *arg, unsigned worker, size_t src)
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

int ibr__switch_hops(uint8_t **out, const ibr_topo *t, unsigned int nthreads)
{
    size_t n = t->n_sw;
    *out = NULL;
    uint8_t *d = ibr__mallocarray(t->ctx, n ? n * n : 1, 1);
    if (!d)
        return IBR_ENOMEM;
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
        rc = ibr__parallel_for(nq, n, bfs_one, &j);
    }
    for (unsigned i = 0; i < nq; i++)
        ibr__free(t->ctx, qs[i]);
    if (rc < 0) {
        ibr__free(t->ctx, d);
        return rc;
    }
    *out = d;
    return 0;
}
