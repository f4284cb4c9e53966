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

int ibr__unrouted_pairs(uint64_t *n, uint32_t *first_sw, uint16_t *first_lid,
                        const ibr_topo *t, ibr__lft_row_fn row, void *arg, unsigned lmc_cap)
{
    return ibr__unrouted_pairs_of(n, first_sw, first_lid, t, row, arg, lmc_cap, NULL);
}

int ibr__unrouted_pairs_of(uint64_t *n, uint32_t *first_sw, uint16_t *first_lid,
                           const ibr_topo *t, ibr__lft_row_fn row, void *arg, unsigned lmc_cap,
                           const uint8_t *only)
{
    enum { UNKNOWN = 0, ACTIVE, OK, BAD };
    ibr_context *ctx = t->ctx;
    uint32_t S = t->n_sw;
    *n = 0;
    *first_sw = IBR_NONE;
    *first_lid = 0;
    if (!S)
        return 0;
    uint32_t *comp = ibr__mallocarray(ctx, S, sizeof *comp);
    uint32_t *srcw = ibr__calloc(ctx, S, sizeof *srcw);
    uint32_t *srcs = ibr__mallocarray(ctx, S, sizeof *srcs);
    uint32_t *stack = ibr__mallocarray(ctx, S, sizeof *stack);
    uint8_t *st = ibr__mallocarray(ctx, S, 1);
    /* the entries of PBLOCK LIDs per switch, copied together: one read of
       each row per block instead of one cache miss per switch and LID */
    enum { PBLOCK = 64 };
    uint8_t *col = ibr__mallocarray(ctx, (size_t)S * PBLOCK, 1);
    /* per switch: its first port in nxt and its port count; per switch
       port: the switch an active cable leads to, IBR_NONE otherwise */
    uint32_t *off = ibr__mallocarray(ctx, (size_t)S + 1, sizeof *off);
    uint32_t *nxt = NULL;
    int rc = IBR_ENOMEM;
    if (!comp || !srcw || !srcs || !stack || !st || !col || !off)
        goto out;
    off[0] = 0;
    for (uint32_t s = 0; s < S; s++)
        off[s + 1] = off[s] + t->nodes[t->sw_node[s]].nports + 1u;
    if (!(nxt = ibr__mallocarray(ctx, off[S], sizeof *nxt)))
        goto out;
    for (uint32_t s = 0; s < S; s++) {
        const ibr__node *nd = &t->nodes[t->sw_node[s]];
        nxt[off[s]] = IBR_NONE;
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = &t->ports[nd->port_off + p];
            nxt[off[s] + p] = pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE
                                  ? t->nodes[pt->remote_node].sw /* IBR_NONE: not a switch */
                                  : IBR_NONE;
        }
    }
    ibr__switch_components(t, comp, stack);
    /* sources: end ports cabled to a switch, per switch (as verify.c) */
    uint32_t nsrc = 0;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        if (pt->remote_node != IBR_NONE && t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
            srcw[t->nodes[pt->remote_node].sw]++;
    }
    for (uint32_t s = 0; s < S; s++)
        if (srcw[s])
            srcs[nsrc++] = s;
    for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
        uint32_t b = (lid - 1) % PBLOCK;
        if (b == 0 && nsrc) {
            uint32_t nb = t->max_lid - lid + 1 < PBLOCK ? t->max_lid - lid + 1 : PBLOCK;
            /* a block without a LID to check is skipped whole */
            if (only && !memchr(only + lid, 1, nb)) {
                lid += nb - 1;
                continue;
            }
            for (uint32_t s = 0; s < S; s++)
                memcpy(col + (size_t)s * PBLOCK, row(arg, s) + lid, nb);
        }
        uint32_t gp = t->lid_port[lid], dsw = t->lid_sw[lid];
        if ((only && !only[lid]) || gp == IBR_NONE || dsw == IBR_NONE ||
            t->nodes[t->port_node[gp]].type == IBR_NODE_SWITCH ||
            ((lid - t->ports[gp].lid) >> lmc_cap) != 0)
            continue;
        unsigned dport = t->lid_swport[lid];
        memset(st, UNKNOWN, S);
        for (uint32_t i = 0; i < nsrc; i++) {
            uint32_t s = srcs[i];
            uint64_t w = srcw[s] - (s == dsw ? 1u : 0u);
            if (!w || comp[s] != comp[dsw])
                continue;
            /* walk until a resolved switch, a failure or a revisit */
            uint32_t sp = 0, cur = s;
            int res;
            for (;;) {
                if (st[cur] == OK || st[cur] == BAD) {
                    res = st[cur];
                    break;
                }
                if (st[cur] == ACTIVE) {
                    res = BAD; /* a loop */
                    break;
                }
                st[cur] = ACTIVE;
                stack[sp++] = cur;
                /* one step, as ibr__lft_step() (verify_int.h) takes it */
                unsigned p = col[(size_t)cur * PBLOCK + b];
                if (cur == dsw && p == dport) {
                    res = OK;
                    break;
                }
                uint32_t nx = off[cur] + p < off[cur + 1] ? nxt[off[cur] + p] : IBR_NONE;
                if (nx == IBR_NONE) { /* no entry, port 0, a bad or down port, an end node */
                    res = BAD;
                    break;
                }
                cur = nx;
            }
            while (sp > 0)
                st[stack[--sp]] = (uint8_t)res;
            if (res == BAD) {
                if (!*n) {
                    *first_sw = s;
                    *first_lid = (uint16_t)lid;
                }
                *n += w;
            }
        }
    }
    rc = 0;
out:
    ibr__free(ctx, comp);
    ibr__free(ctx, srcw);
    ibr__free(ctx, srcs);
    ibr__free(ctx, stack);
    ibr__free(ctx, st);
    ibr__free(ctx, col);
    ibr__free(ctx, off);
    ibr__free(ctx, nxt);
    return rc;
}

uint32_t ibr__hops_level_order(const ibr_topo *t, const uint8_t *hops, uint32_t d,
                               uint32_t *order, uint32_t *cnt)
{
    uint32_t n = t->n_sw;
    const uint8_t *hr = hops + (size_t)d * n;
    memset(cnt, 0, 257 * sizeof *cnt);
    for (uint32_t y = 0; y < n; y++)
        if (hr[y] != 255)
            cnt[hr[y] + 1]++;
    for (unsigned h = 1; h <= 256; h++)
        cnt[h] += cnt[h - 1];
    uint32_t total = cnt[255];
    for (uint32_t y = 0; y < n; y++)
        if (hr[y] != 255)
            order[cnt[hr[y]]++] = y;
    return total;
}

void ibr__graph_components(uint32_t n, const uint32_t *adj_off, const ibr__adj *adj,
                           uint32_t *comp, uint32_t *queue)
{
    for (uint32_t s = 0; s < n; s++)
        comp[s] = IBR_NONE;
    for (uint32_t s0 = 0; s0 < n; s0++) {
        if (comp[s0] != IBR_NONE)
            continue;
        uint32_t head = 0, tail = 0;
        comp[s0] = s0;
        queue[tail++] = s0;
        while (head < tail) {
            uint32_t s = queue[head++];
            for (uint32_t e = adj_off[s]; e < adj_off[s + 1]; e++)
                if (comp[adj[e].sw] == IBR_NONE) {
                    comp[adj[e].sw] = s0;
                    queue[tail++] = adj[e].sw;
                }
        }
    }
}

void ibr__switch_components(const ibr_topo *t, uint32_t *comp, uint32_t *queue)
{
    ibr__graph_components(t->n_sw, t->adj_off, t->adj, comp, queue);
}
