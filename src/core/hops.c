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

/* 64 rows at once: bit k of a switch's words stands for source 64 i + k.
   A level costs one pass over every link whatever the number of sources,
   so this wins when the graph's diameter is small against 64. */
typedef struct {
    const ibr_topo *t;
    uint8_t *d;
    uint64_t **scratch; /* per worker: visited, frontier, next (3 x n_sw) */
} hops64_job;

static int bfs_rows64(void *arg, unsigned worker, size_t i)
{
    hops64_job *j = arg;
    const ibr_topo *t = j->t;
    size_t n = t->n_sw;
    uint64_t *vis = j->scratch[worker], *fr = vis + n, *nx = fr + n;
    size_t base = i * 64, cnt = n - base < 64 ? n - base : 64;
    memset(j->d + base * n, 255, cnt * n);
    memset(vis, 0, 2 * n * sizeof *vis);
    for (size_t k = 0; k < cnt; k++) {
        vis[base + k] = fr[base + k] = 1ULL << k;
        j->d[(base + k) * n + base + k] = 0;
    }
    for (unsigned level = 1; level < 255; level++) {
        uint64_t any = 0;
        for (size_t v = 0; v < n; v++) {
            uint64_t acc = 0;
            for (uint32_t e = t->adj_off[v]; e < t->adj_off[v + 1]; e++)
                acc |= fr[t->adj[e].sw];
            acc &= ~vis[v];
            nx[v] = acc;
            any |= acc;
        }
        if (!any)
            break;
        for (size_t v = 0; v < n; v++) {
            uint64_t b = nx[v];
            vis[v] |= b;
            while (b) {
                unsigned k = (unsigned)__builtin_ctzll(b);
                j->d[(base + k) * n + v] = (uint8_t)level;
                b &= b - 1;
            }
        }
        uint64_t *tmp = fr;
        fr = nx;
        nx = tmp;
    }
    return 0;
}

int ibr__switch_hops_into(uint8_t *d, const ibr_topo *t, unsigned int nthreads)
{
    size_t n = t->n_sw;
    if (nthreads < 1)
        nthreads = 1;
    int rc = 0;
    unsigned nq = nthreads > 64 ? 64 : nthreads;
    /* bit-parallel rows when the graph is shallow: the eccentricity of
       switch 0 bounds the diameter (<= 2 x ecc); deep graphs (long meshes,
       rings) keep one search per row */
    if (n >= 256) {
        uint32_t *dist = ibr__mallocarray(t->ctx, n, sizeof *dist);
        uint32_t *queue = ibr__mallocarray(t->ctx, n, sizeof *queue);
        uint32_t ecc = UINT32_MAX;
        if (dist && queue) {
            uint32_t src = 0;
            ibr__bfs(dist, t, &src, 1, queue);
            ecc = 0;
            for (size_t v = 0; v < n; v++)
                if (dist[v] != UINT32_MAX && dist[v] > ecc)
                    ecc = dist[v];
        }
        ibr__free(t->ctx, dist);
        ibr__free(t->ctx, queue);
        if (ecc <= 12) {
            uint64_t *sc[64];
            for (unsigned i = 0; i < nq; i++) {
                sc[i] = ibr__mallocarray(t->ctx, 3 * n, sizeof **sc);
                if (!sc[i]) {
                    nq = i;
                    rc = IBR_ENOMEM;
                    break;
                }
            }
            if (rc == 0) {
                hops64_job j = {t, d, sc};
                rc = ibr__parallel_for(nq, (n + 63) / 64, bfs_rows64, &j);
            }
            for (unsigned i = 0; i < nq; i++)
                ibr__free(t->ctx, sc[i]);
            return rc;
        }
    }
    uint32_t *qs[64];
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
