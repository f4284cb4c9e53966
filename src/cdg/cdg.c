/* The channel dependency graph: reference-counted edges, checked insertion
   with a dynamic topological order (Pearce-Kelly), cycle witnesses. See
   cdg.h for the contract and the complexity. */
#include <stdlib.h>
#include <string.h>

#include "cdg/cdg.h"

typedef struct cdg_out {
    uint32_t to;
    uint32_t refs;
} cdg_out;

typedef struct cdg_node {
    cdg_out *out;
    uint32_t *in;
    uint32_t out_n, out_cap;
    uint32_t in_n, in_cap;
} cdg_node;

struct ibr__cdg {
    ibr_context *ctx;
    uint32_t n;
    cdg_node *nodes;
    uint32_t *ord;      /* position of each node in a topological order */
    int ordered;        /* ord is a valid topological order */
    size_t n_edges;
    uint32_t *mark;     /* visit epochs */
    uint32_t epoch;
    uint32_t *stack;    /* n entries */
    uint32_t *rf, *rb;  /* forward / backward regions */
    uint32_t *pool;     /* their positions */
};

int ibr__cdg_create(ibr__cdg **out, ibr_context *ctx, uint32_t n)
{
    ibr__cdg *g = ibr__calloc(ctx, 1, sizeof *g);
    if (!g)
        return IBR_ENOMEM;
    g->ctx = ctx;
    g->n = n;
    size_t m = n ? n : 1;
    g->nodes = ibr__calloc(ctx, m, sizeof *g->nodes);
    g->ord = ibr__mallocarray(ctx, m, sizeof *g->ord);
    g->mark = ibr__calloc(ctx, m, sizeof *g->mark);
    g->stack = ibr__mallocarray(ctx, m, sizeof *g->stack);
    g->rf = ibr__mallocarray(ctx, m, sizeof *g->rf);
    g->rb = ibr__mallocarray(ctx, m, sizeof *g->rb);
    g->pool = ibr__mallocarray(ctx, 2 * m, sizeof *g->pool);
    if (!g->nodes || !g->ord || !g->mark || !g->stack || !g->rf || !g->rb || !g->pool) {
        ibr__cdg_destroy(g);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        g->ord[i] = i;
    g->ordered = 1;
    *out = g;
    return 0;
}

void ibr__cdg_destroy(ibr__cdg *g)
{
    if (!g)
        return;
    ibr_context *ctx = g->ctx;
    if (g->nodes)
        for (uint32_t i = 0; i < g->n; i++) {
            ibr__free(ctx, g->nodes[i].out);
            ibr__free(ctx, g->nodes[i].in);
        }
    ibr__free(ctx, g->nodes);
    ibr__free(ctx, g->ord);
    ibr__free(ctx, g->mark);
    ibr__free(ctx, g->stack);
    ibr__free(ctx, g->rf);
    ibr__free(ctx, g->rb);
    ibr__free(ctx, g->pool);
    ibr__free(ctx, g);
}

uint32_t ibr__cdg_channel_count(const ibr__cdg *g)
{
    return g->n;
}

size_t ibr__cdg_edge_count(const ibr__cdg *g)
{
    return g->n_edges;
}

static cdg_out *find_out(const ibr__cdg *g, uint32_t a, uint32_t b)
{
    const cdg_node *na = &g->nodes[a];
    for (uint32_t i = 0; i < na->out_n; i++)
        if (na->out[i].to == b)
            return &na->out[i];
    return NULL;
}

uint32_t ibr__cdg_edge_refs(const ibr__cdg *g, uint32_t a, uint32_t b)
{
    if (a >= g->n || b >= g->n)
        return 0;
    const cdg_out *e = find_out(g, a, b);
    return e ? e->refs : 0;
}

static uint32_t next_epoch(ibr__cdg *g)
{
    if (++g->epoch == 0) {
        memset(g->mark, 0, (size_t)g->n * sizeof *g->mark);
        g->epoch = 1;
    }
    return g->epoch;
}

/* Insert a new edge a -> b (not present yet) into the adjacency lists. */
static int link_edge(ibr__cdg *g, uint32_t a, uint32_t b)
{
    cdg_node *na = &g->nodes[a], *nb = &g->nodes[b];
    if (na->out_n == na->out_cap) {
        uint32_t cap = na->out_cap ? na->out_cap * 2 : 4;
        cdg_out *o = ibr__reallocarray(g->ctx, na->out, cap, sizeof *o);
        if (!o)
            return IBR_ENOMEM;
        na->out = o;
        na->out_cap = cap;
    }
    if (nb->in_n == nb->in_cap) {
        uint32_t cap = nb->in_cap ? nb->in_cap * 2 : 4;
        uint32_t *in = ibr__reallocarray(g->ctx, nb->in, cap, sizeof *in);
        if (!in)
            return IBR_ENOMEM;
        nb->in = in;
        nb->in_cap = cap;
    }
    na->out[na->out_n++] = (cdg_out){b, 1};
    nb->in[nb->in_n++] = a;
    g->n_edges++;
    return 0;
}

static void unlink_edge(ibr__cdg *g, uint32_t a, uint32_t b)
{
    cdg_node *na = &g->nodes[a], *nb = &g->nodes[b];
    for (uint32_t i = 0; i < na->out_n; i++)
        if (na->out[i].to == b) {
            na->out[i] = na->out[--na->out_n];
            break;
        }
    for (uint32_t i = 0; i < nb->in_n; i++)
        if (nb->in[i] == a) {
            nb->in[i] = nb->in[--nb->in_n];
            break;
        }
    g->n_edges--;
}

static int cmp_by_ord_ctx(const void *x, const void *y, void *ctx)
{
    const uint32_t *ord = ctx;
    uint32_t a = ord[*(const uint32_t *)x], b = ord[*(const uint32_t *)y];
    return a < b ? -1 : a > b;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Recompute a topological order (Kahn). Returns 0, or 1 when cyclic. */
static int reorder_all(ibr__cdg *g)
{
    uint32_t *indeg = g->rf, *queue = g->stack;
    uint32_t head = 0, tail = 0, pos = 0;
    for (uint32_t i = 0; i < g->n; i++)
        indeg[i] = g->nodes[i].in_n;
    for (uint32_t i = 0; i < g->n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail) {
        uint32_t v = queue[head++];
        g->ord[v] = pos++;
        const cdg_node *nv = &g->nodes[v];
        for (uint32_t i = 0; i < nv->out_n; i++)
            if (--indeg[nv->out[i].to] == 0)
                queue[tail++] = nv->out[i].to;
    }
    if (pos != g->n) {
        for (uint32_t i = 0; i < g->n; i++)
            g->ord[i] = i;
        return 1;
    }
    g->ordered = 1;
    return 0;
}

/* Checked insertion of a -> b into an ordered graph. Returns 0 (inserted
   or reference added), 1 (would close a cycle), IBR_ENOMEM. */
static int add_checked(ibr__cdg *g, uint32_t a, uint32_t b)
{
    cdg_out *e = find_out(g, a, b);
    if (e) {
        e->refs++;
        return 0;
    }
    if (a == b)
        return 1;
    uint32_t lb = g->ord[b], ub = g->ord[a];
    if (lb < ub) {
        /* forward from b among nodes ordered before a */
        uint32_t ep = next_epoch(g), sp = 0, nf = 0, nbk = 0;
        g->mark[b] = ep;
        g->stack[sp++] = b;
        while (sp) {
            uint32_t v = g->stack[--sp];
            g->rf[nf++] = v;
            const cdg_node *nv = &g->nodes[v];
            for (uint32_t i = 0; i < nv->out_n; i++) {
                uint32_t w = nv->out[i].to;
                if (w == a)
                    return 1;
                if (g->mark[w] != ep && g->ord[w] < ub) {
                    g->mark[w] = ep;
                    g->stack[sp++] = w;
                }
            }
        }
        /* backward from a among nodes ordered after b */
        ep = next_epoch(g);
        g->mark[a] = ep;
        g->stack[sp++] = a;
        while (sp) {
            uint32_t v = g->stack[--sp];
            g->rb[nbk++] = v;
            const cdg_node *nv = &g->nodes[v];
            for (uint32_t i = 0; i < nv->in_n; i++) {
                uint32_t w = nv->in[i];
                if (g->mark[w] != ep && g->ord[w] > lb) {
                    g->mark[w] = ep;
                    g->stack[sp++] = w;
                }
            }
        }
        /* the backward region moves before the forward region, reusing
           their positions */
        qsort_r(g->rb, nbk, sizeof *g->rb, cmp_by_ord_ctx, g->ord);
        qsort_r(g->rf, nf, sizeof *g->rf, cmp_by_ord_ctx, g->ord);
        uint32_t np = 0;
        for (uint32_t i = 0; i < nbk; i++)
            g->pool[np++] = g->ord[g->rb[i]];
        for (uint32_t i = 0; i < nf; i++)
            g->pool[np++] = g->ord[g->rf[i]];
        qsort(g->pool, np, sizeof *g->pool, cmp_u32);
        np = 0;
        for (uint32_t i = 0; i < nbk; i++)
            g->ord[g->rb[i]] = g->pool[np++];
        for (uint32_t i = 0; i < nf; i++)
            g->ord[g->rf[i]] = g->pool[np++];
    }
    return link_edge(g, a, b);
}

static int add_unchecked(ibr__cdg *g, uint32_t a, uint32_t b)
{
    cdg_out *e = find_out(g, a, b);
    if (e) {
        e->refs++;
        return 0;
    }
    int rc = link_edge(g, a, b);
    if (rc == 0 && g->ordered && (a == b || g->ord[a] >= g->ord[b]))
        g->ordered = 0;
    return rc;
}

static void remove_edge(ibr__cdg *g, uint32_t a, uint32_t b)
{
    cdg_out *e = find_out(g, a, b);
    if (!e)
        return;
    if (--e->refs == 0)
        unlink_edge(g, a, b);
}

void ibr__cdg_remove_path(ibr__cdg *g, const uint32_t *ch, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (ch[i - 1] < g->n && ch[i] < g->n)
            remove_edge(g, ch[i - 1], ch[i]);
}

int ibr__cdg_add_path(ibr__cdg *g, const uint32_t *ch, size_t n, int check)
{
    for (size_t i = 0; i < n; i++)
        if (ch[i] >= g->n)
            return IBR_ERANGE;
    if (check && !g->ordered && reorder_all(g))
        return IBR_ESTATE;
    for (size_t i = 1; i < n; i++) {
        int rc = check ? add_checked(g, ch[i - 1], ch[i]) : add_unchecked(g, ch[i - 1], ch[i]);
        if (rc != 0) {
            /* undo this path's earlier edges */
            ibr__cdg_remove_path(g, ch, i);
            return rc;
        }
    }
    return 0;
}

int ibr__cdg_would_cycle(ibr__cdg *g, const uint32_t *ch, size_t n)
{
    int rc = ibr__cdg_add_path(g, ch, n, 1);
    if (rc == 0)
        ibr__cdg_remove_path(g, ch, n);
    return rc;
}

int ibr__cdg_find_cycle(const ibr__cdg *g, uint32_t **cycle, size_t *len)
{
    *cycle = NULL;
    *len = 0;
    if (g->ordered)
        return 0; /* a valid topological order proves acyclicity */
    ibr_context *ctx = g->ctx;
    /* colour: 0 white, 1 on the DFS stack, 2 done */
    uint8_t *colour = ibr__calloc(ctx, g->n ? g->n : 1, 1);
    uint32_t *node = ibr__mallocarray(ctx, g->n ? g->n : 1, sizeof *node);
    uint32_t *next = ibr__mallocarray(ctx, g->n ? g->n : 1, sizeof *next);
    int rc = 0;
    if (!colour || !node || !next) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t root = 0; root < g->n && !*len; root++) {
        if (colour[root] || !g->nodes[root].out_n)
            continue;
        size_t sp = 0;
        node[sp] = root;
        next[sp] = 0;
        sp++;
        colour[root] = 1;
        while (sp) {
            uint32_t v = node[sp - 1];
            const cdg_node *nv = &g->nodes[v];
            if (next[sp - 1] == nv->out_n) {
                colour[v] = 2;
                sp--;
                continue;
            }
            uint32_t w = nv->out[next[sp - 1]++].to;
            if (colour[w] == 0) {
                colour[w] = 1;
                node[sp] = w;
                next[sp] = 0;
                sp++;
            } else if (colour[w] == 1) {
                size_t start = sp;
                while (node[start - 1] != w)
                    start--;
                start--;
                size_t n = sp - start;
                uint32_t *c = ibr__mallocarray(ctx, n, sizeof *c);
                if (!c) {
                    rc = IBR_ENOMEM;
                    goto out;
                }
                memcpy(c, node + start, n * sizeof *c);
                *cycle = c;
                *len = n;
                break;
            }
        }
    }
out:
    ibr__free(ctx, colour);
    ibr__free(ctx, node);
    ibr__free(ctx, next);
    return rc;
}
