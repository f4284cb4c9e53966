/* The channel dependency graph: layers of weighted edges over one channel
   set, stored densely (switch graphs) or as adjacency lists (general
   graphs); checked insertion with a dynamic topological order
   (Pearce-Kelly); a resumable cycle search. See cdg.h for the contract and
   the complexity.

   The algorithms are written once, over the accessors below, which hide
   the storage: a channel's out-edges are positions 0 .. out_deg - 1, each
   with a successor and a weight (0: no edge). In a switch graph position j
   of channel v is slot slot_off[v] + j, leading to channel succ0[v] + j (the
   channels leaving the switch v enters are consecutive in topo->adj). In a
   general graph it is entry j of v's out-list, where removed edges stay as
   entries of weight 0 (so positions do not move under a suspended search)
   until the list needs room for a new edge. A switch graph's layer also
   keeps one bit per slot, set exactly while the slot's weight is not 0,
   so that scans for live edges skip dead slots 64 at a time: every write
   of a weight that may take it to or from 0 updates the bit with it. */
#include <stdlib.h>
#include <string.h>

#include "cdg/cdg.h"

typedef struct cdg_out {
    uint32_t to;
    uint32_t w; /* 0: removed */
} cdg_out;

typedef struct cdg_node {
    cdg_out *out;
    uint32_t *in; /* live in-edges only */
    uint32_t out_n, out_cap;
    uint32_t in_n, in_cap;
} cdg_node;

typedef struct cdg_layer {
    uint64_t *w;       /* switch graph: weight per slot, NULL while empty */
    uint64_t *live;    /* switch graph: bit k set iff w[k] != 0; allocated
                          with w */
    cdg_node *nodes;   /* general graph: per channel, NULL while empty */
    uint32_t *ord;     /* position of each channel in a topological order,
                          NULL: the identity */
    int ordered;       /* ord (or the identity) is a topological order */
    size_t n_edges;
    uint64_t n_new;    /* edges created so far (checked by a search) */
} cdg_layer;

struct ibr__cdg {
    ibr_context *ctx;
    uint32_t n;        /* channels */
    unsigned n_layers;
    int dense;
    cdg_layer *layers;
    /* switch graphs */
    size_t n_slots;
    uint32_t n_sw;
    uint32_t *slot_off; /* n + 1: first slot of each channel */
    uint32_t *succ0;    /* n: first possible successor */
    uint32_t *tail;     /* n: switch the channel leaves */
    uint32_t *tail_off; /* n_sw + 1: first channel leaving each switch */
    uint32_t *in_off;   /* n_sw + 1 */
    uint32_t *in_ch;    /* n: the channels entering each switch */
    /* checked insertion, allocated on first use */
    uint32_t *mark;     /* visit epochs */
    uint32_t epoch;
    uint32_t *stack;    /* n entries */
    uint32_t *rf, *rb;  /* forward / backward regions */
    uint32_t *pool;     /* their positions, 2n */
    uint64_t *keys;     /* sort scratch: (position << 32 | channel), 2n */
    /* the cycle search, allocated on first use */
    int s_active;
    unsigned s_layer;
    uint64_t s_new;     /* the layer's n_new when the search last ran */
    uint32_t s_root, s_sp;
    uint8_t *colour;    /* 0 white, 1 on the stack, 2 done */
    uint32_t *stk, *nxt, *pos;
    uint64_t *cw;       /* the witness's weights */
};

/* ---- storage accessors -------------------------------------------------- */

static inline uint32_t out_deg(const ibr__cdg *g, const cdg_layer *L, uint32_t v)
{
    if (g->dense)
        return g->slot_off[v + 1] - g->slot_off[v];
    return L->nodes ? L->nodes[v].out_n : 0;
}

static inline uint32_t out_to(const ibr__cdg *g, const cdg_layer *L, uint32_t v, uint32_t j)
{
    return g->dense ? g->succ0[v] + j : L->nodes[v].out[j].to;
}

static inline void live_set(uint64_t *m, size_t k)
{
    m[k >> 6] |= (uint64_t)1 << (k & 63);
}

static inline void live_clear(uint64_t *m, size_t k)
{
    m[k >> 6] &= ~((uint64_t)1 << (k & 63));
}

static inline int live_has(const uint64_t *m, size_t k)
{
    return (int)(m[k >> 6] >> (k & 63) & 1);
}

/* Switch graphs: the first set bit of m in slots s0 + j .. end - 1, as a
   position (minus s0), or end - s0 when there is none. */
static inline uint32_t live_next(const uint64_t *m, uint32_t s0, uint32_t end, uint32_t j)
{
    if (j >= end - s0)
        return end - s0;
    size_t k = (size_t)s0 + j, wi = k >> 6;
    uint64_t x = m[wi] & (~(uint64_t)0 << (k & 63));
    while (!x) {
        if (++wi << 6 >= end)
            return end - s0;
        x = m[wi];
    }
    k = (wi << 6) + (size_t)__builtin_ctzll(x);
    return k < end ? (uint32_t)(k - s0) : end - s0;
}

/* The first position >= j of a live out-edge of v, or out_deg. */
static inline uint32_t next_live(const ibr__cdg *g, const cdg_layer *L, uint32_t v, uint32_t j)
{
    if (g->dense) {
        if (!L->live)
            return g->slot_off[v + 1] - g->slot_off[v];
        return live_next(L->live, g->slot_off[v], g->slot_off[v + 1], j);
    }
    if (!L->nodes)
        return 0;
    const cdg_node *nv = &L->nodes[v];
    while (j < nv->out_n && !nv->out[j].w)
        j++;
    return j;
}

/* Switch graphs: slot of a -> b (a a channel), or IBR_NONE. */
static inline uint32_t dense_slot(const ibr__cdg *g, uint32_t a, uint32_t b)
{
    uint32_t j = b - g->succ0[a]; /* wraps when b is below */
    if (j >= g->slot_off[a + 1] - g->slot_off[a])
        return IBR_NONE;
    return g->slot_off[a] + j;
}

/* General graphs: a's entry for b (live or removed), or NULL. */
static cdg_out *find_out(const cdg_node *na, uint32_t b)
{
    for (uint32_t i = 0; i < na->out_n; i++)
        if (na->out[i].to == b)
            return &na->out[i];
    return NULL;
}

static inline uint32_t ord_of(const cdg_layer *L, uint32_t v)
{
    return L->ord ? L->ord[v] : v;
}

/* ---- creation ------------------------------------------------------------ */

static int alloc_layers(ibr__cdg *g, unsigned n_layers)
{
    g->n_layers = n_layers;
    g->layers = ibr__calloc(g->ctx, n_layers, sizeof *g->layers);
    if (!g->layers)
        return IBR_ENOMEM;
    for (unsigned l = 0; l < n_layers; l++)
        g->layers[l].ordered = 1;
    return 0;
}

int ibr__cdg_create(ibr__cdg **out, ibr_context *ctx, uint32_t n, unsigned n_layers)
{
    *out = NULL;
    if (!n_layers)
        return IBR_EINVAL;
    ibr__cdg *g = ibr__calloc(ctx, 1, sizeof *g);
    if (!g)
        return IBR_ENOMEM;
    g->ctx = ctx;
    g->n = n;
    if (alloc_layers(g, n_layers) < 0) {
        ibr__cdg_destroy(g);
        return IBR_ENOMEM;
    }
    *out = g;
    return 0;
}

int ibr__cdg_create_topo(ibr__cdg **out, const ibr_topo *t, unsigned n_layers)
{
    *out = NULL;
    if (!n_layers)
        return IBR_EINVAL;
    size_t slots = 0;
    for (uint32_t e = 0; e < t->n_adj; e++) {
        uint32_t h = t->adj[e].sw;
        slots += t->adj_off[h + 1] - t->adj_off[h];
    }
    if (slots >= UINT32_MAX)
        return IBR_ERANGE;
    ibr_context *ctx = t->ctx;
    ibr__cdg *g = ibr__calloc(ctx, 1, sizeof *g);
    if (!g)
        return IBR_ENOMEM;
    g->ctx = ctx;
    g->n = t->n_adj;
    g->dense = 1;
    g->n_slots = slots;
    g->n_sw = t->n_sw;
    size_t n = g->n ? g->n : 1;
    g->slot_off = ibr__mallocarray(ctx, n + 1, sizeof *g->slot_off);
    g->succ0 = ibr__mallocarray(ctx, n, sizeof *g->succ0);
    g->tail = ibr__mallocarray(ctx, n, sizeof *g->tail);
    g->in_ch = ibr__mallocarray(ctx, n, sizeof *g->in_ch);
    g->tail_off = ibr__mallocarray(ctx, (size_t)t->n_sw + 1, sizeof *g->tail_off);
    g->in_off = ibr__calloc(ctx, (size_t)t->n_sw + 2, sizeof *g->in_off);
    if (!g->slot_off || !g->succ0 || !g->tail || !g->in_ch || !g->tail_off || !g->in_off ||
        alloc_layers(g, n_layers) < 0) {
        ibr__cdg_destroy(g);
        return IBR_ENOMEM;
    }
    memcpy(g->tail_off, t->adj_off, ((size_t)t->n_sw + 1) * sizeof *g->tail_off);
    uint32_t s_off = 0;
    for (uint32_t s = 0; s < t->n_sw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            uint32_t h = t->adj[e].sw;
            g->tail[e] = s;
            g->succ0[e] = t->adj_off[h];
            g->slot_off[e] = s_off;
            s_off += t->adj_off[h + 1] - t->adj_off[h];
            g->in_off[h + 2]++;
        }
    g->slot_off[g->n] = s_off;
    /* channels by the switch they enter, in channel order */
    for (uint32_t s = 0; s < t->n_sw; s++)
        g->in_off[s + 2] += g->in_off[s + 1];
    for (uint32_t e = 0; e < t->n_adj; e++)
        g->in_ch[g->in_off[t->adj[e].sw + 1]++] = e;
    *out = g;
    return 0;
}

void ibr__cdg_destroy(ibr__cdg *g)
{
    if (!g)
        return;
    ibr_context *ctx = g->ctx;
    for (unsigned l = 0; g->layers && l < g->n_layers; l++) {
        cdg_layer *L = &g->layers[l];
        if (L->nodes)
            for (uint32_t i = 0; i < g->n; i++) {
                ibr__free(ctx, L->nodes[i].out);
                ibr__free(ctx, L->nodes[i].in);
            }
        ibr__free(ctx, L->nodes);
        ibr__free(ctx, L->w);
        ibr__free(ctx, L->live);
        ibr__free(ctx, L->ord);
    }
    ibr__free(ctx, g->layers);
    ibr__free(ctx, g->slot_off);
    ibr__free(ctx, g->succ0);
    ibr__free(ctx, g->tail);
    ibr__free(ctx, g->tail_off);
    ibr__free(ctx, g->in_off);
    ibr__free(ctx, g->in_ch);
    ibr__free(ctx, g->mark);
    ibr__free(ctx, g->stack);
    ibr__free(ctx, g->rf);
    ibr__free(ctx, g->rb);
    ibr__free(ctx, g->keys);
    ibr__free(ctx, g->pool);
    ibr__free(ctx, g->colour);
    ibr__free(ctx, g->stk);
    ibr__free(ctx, g->nxt);
    ibr__free(ctx, g->pos);
    ibr__free(ctx, g->cw);
    ibr__free(ctx, g);
}

/* Words of a switch graph's live-slot bitmask (at least one). */
static size_t live_words(const ibr__cdg *g)
{
    return g->n_slots ? (g->n_slots + 63) / 64 : 1;
}

static int layer_alloc(ibr__cdg *g, cdg_layer *L)
{
    if (g->dense) {
        if (L->w)
            return 0;
        L->w = ibr__calloc(g->ctx, g->n_slots ? g->n_slots : 1, sizeof *L->w);
        L->live = ibr__calloc(g->ctx, live_words(g), sizeof *L->live);
        if (!L->w || !L->live) { /* both or neither */
            ibr__free(g->ctx, L->w);
            ibr__free(g->ctx, L->live);
            L->w = L->live = NULL;
            return IBR_ENOMEM;
        }
    } else if (!L->nodes && !(L->nodes = ibr__calloc(g->ctx, g->n ? g->n : 1, sizeof *L->nodes))) {
        return IBR_ENOMEM;
    }
    return 0;
}

int ibr__cdg_reserve(ibr__cdg *g, unsigned layer)
{
    if (layer >= g->n_layers)
        return IBR_ERANGE;
    return layer_alloc(g, &g->layers[layer]);
}

/* ---- single edges -------------------------------------------------------- */

uint32_t ibr__cdg_channel_count(const ibr__cdg *g)
{
    return g->n;
}

size_t ibr__cdg_edge_count(const ibr__cdg *g, unsigned layer)
{
    return layer < g->n_layers ? g->layers[layer].n_edges : 0;
}

uint64_t ibr__cdg_edge_weight(const ibr__cdg *g, unsigned layer, uint32_t a, uint32_t b)
{
    if (layer >= g->n_layers || a >= g->n || b >= g->n)
        return 0;
    const cdg_layer *L = &g->layers[layer];
    if (g->dense) {
        uint32_t s = dense_slot(g, a, b);
        return s == IBR_NONE || !L->w ? 0 : L->w[s];
    }
    if (!L->nodes)
        return 0;
    const cdg_out *e = find_out(&L->nodes[a], b);
    return e ? e->w : 0;
}

uint32_t ibr__cdg_slot(const ibr__cdg *g, uint32_t a, uint32_t b)
{
    if (!g->dense || a >= g->n || b >= g->n)
        return IBR_NONE;
    return dense_slot(g, a, b);
}

size_t ibr__cdg_slot_count(const ibr__cdg *g)
{
    return g->dense ? g->n_slots : 0;
}

size_t ibr__cdg_out_edges(const ibr__cdg *g, unsigned layer, uint32_t a, uint32_t *to, size_t cap)
{
    if (layer >= g->n_layers || a >= g->n)
        return 0;
    const cdg_layer *L = &g->layers[layer];
    uint32_t nd = out_deg(g, L, a);
    size_t n = 0;
    for (uint32_t j = next_live(g, L, a, 0); j < nd; j = next_live(g, L, a, j + 1), n++)
        if (n < cap)
            to[n] = out_to(g, L, a, j);
    return n;
}

/* A new edge a -> b in L: counted, and the order may no longer hold. */
static inline void edge_born(cdg_layer *L, uint32_t a, uint32_t b)
{
    L->n_edges++;
    L->n_new++;
    if (L->ordered && (a == b || ord_of(L, a) >= ord_of(L, b)))
        L->ordered = 0;
}

/* Drop the removed entries of a general graph's out-list. */
static void compact_out(cdg_node *na)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < na->out_n; i++)
        if (na->out[i].w)
            na->out[k++] = na->out[i];
    na->out_n = k;
}

static int grow(ibr_context *ctx, void **p, uint32_t *cap, size_t size)
{
    uint32_t c = *cap ? *cap * 2 : 4;
    void *q = ibr__reallocarray(ctx, *p, c, size);
    if (!q)
        return IBR_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* Add w to a -> b (a possible edge of valid channels), unchecked.
   restore: putting back what edge_sub just took, which allocates nothing,
   cannot fail, and does not count as a new edge (a search goes on). */
static int edge_put(ibr__cdg *g, cdg_layer *L, uint32_t a, uint32_t b, uint64_t w, int restore)
{
    int rc = layer_alloc(g, L);
    if (rc < 0)
        return rc;
    if (g->dense) {
        uint32_t k = dense_slot(g, a, b);
        uint64_t *p = &L->w[k];
        if (*p > UINT64_MAX - w)
            return IBR_ERANGE;
        if (!*p && restore)
            L->n_edges++;
        else if (!*p)
            edge_born(L, a, b);
        *p += w;
        live_set(L->live, k);
        return 0;
    }
    cdg_node *na = &L->nodes[a], *nb = &L->nodes[b];
    cdg_out *e = find_out(na, b);
    if (e && e->w) {
        if (w > UINT32_MAX - e->w)
            return IBR_ERANGE;
        e->w += (uint32_t)w;
        return 0;
    }
    if (w > UINT32_MAX)
        return IBR_ERANGE;
    if (nb->in_n == nb->in_cap && grow(g->ctx, (void **)&nb->in, &nb->in_cap, sizeof *nb->in) < 0)
        return IBR_ENOMEM;
    if (!e) {
        if (na->out_n == na->out_cap) {
            compact_out(na);
            if (na->out_n == na->out_cap &&
                grow(g->ctx, (void **)&na->out, &na->out_cap, sizeof *na->out) < 0)
                return IBR_ENOMEM;
        }
        e = &na->out[na->out_n++];
        e->to = b;
    }
    e->w = (uint32_t)w;
    nb->in[nb->in_n++] = a;
    if (restore)
        L->n_edges++;
    else
        edge_born(L, a, b);
    return 0;
}

static inline int edge_add(ibr__cdg *g, cdg_layer *L, uint32_t a, uint32_t b, uint64_t w)
{
    return edge_put(g, L, a, b, w, 0);
}

/* Take w off a -> b; IBR_ERANGE (nothing changed) when it has less. */
static int edge_sub(ibr__cdg *g, cdg_layer *L, uint32_t a, uint32_t b, uint64_t w)
{
    if (g->dense) {
        if (!L->w)
            return IBR_ERANGE;
        uint32_t k = dense_slot(g, a, b);
        uint64_t *p = &L->w[k];
        if (*p < w)
            return IBR_ERANGE;
        *p -= w;
        if (!*p) {
            L->n_edges--;
            live_clear(L->live, k);
        }
        return 0;
    }
    if (!L->nodes)
        return IBR_ERANGE;
    cdg_out *e = find_out(&L->nodes[a], b);
    if (!e || e->w < w)
        return IBR_ERANGE;
    e->w -= (uint32_t)w;
    if (!e->w) {
        cdg_node *nb = &L->nodes[b];
        for (uint32_t i = 0; i < nb->in_n; i++)
            if (nb->in[i] == a) {
                nb->in[i] = nb->in[--nb->in_n];
                break;
            }
        L->n_edges--;
    }
    return 0;
}

int ibr__cdg_add_edge(ibr__cdg *g, unsigned layer, uint32_t a, uint32_t b, uint64_t w)
{
    if (layer >= g->n_layers || a >= g->n || b >= g->n || !w ||
        (g->dense && dense_slot(g, a, b) == IBR_NONE))
        return IBR_ERANGE;
    return edge_add(g, &g->layers[layer], a, b, w);
}

int ibr__cdg_add_edges(ibr__cdg *g, unsigned layer, const uint32_t *pairs, const uint64_t *w,
                       size_t n)
{
    if (layer >= g->n_layers)
        return IBR_ERANGE;
    cdg_layer *L = &g->layers[layer];
    int rc = 0;
    size_t i;
    if (!g->dense) {
        for (i = 0; i < n; i++) {
            uint32_t a = pairs[2 * i], b = pairs[2 * i + 1];
            if (a >= g->n || b >= g->n || !w[i])
                rc = IBR_ERANGE;
            if (rc < 0 || (rc = edge_add(g, L, a, b, w[i])) < 0)
                break;
        }
        if (i < n)
            while (i-- > 0)
                edge_sub(g, L, pairs[2 * i], pairs[2 * i + 1], w[i]);
        return rc;
    }
    /* switch graphs: one pass (dfsssp fills its first layer with tens of
       millions of edges); the counts and the order flag are updated at the
       end, so a failure only has weights to take back */
    if (n && (rc = layer_alloc(g, L)) < 0)
        return rc;
    const uint32_t *soff = g->slot_off, *succ0 = g->succ0, nch = g->n;
    uint64_t *lw = L->w, *lm = L->live;
    size_t born = 0;
    for (i = 0; i < n; i++) {
        uint32_t a = pairs[2 * i];
        uint64_t x = w[i];
        if (a >= nch || !x)
            break;
        uint32_t s0 = soff[a], j = pairs[2 * i + 1] - succ0[a];
        if (j >= soff[a + 1] - s0)
            break;
        uint64_t *p = lw + s0 + j, y = *p;
        if (y + x < y) /* overflow */
            break;
        *p = y + x;
        live_set(lm, s0 + j);
        born += !y;
    }
    if (i < n) {
        while (i-- > 0) {
            uint32_t a = pairs[2 * i], k = soff[a] + (pairs[2 * i + 1] - succ0[a]);
            if (!(lw[k] -= w[i]))
                live_clear(lm, k);
        }
        return IBR_ERANGE;
    }
    L->n_edges += born;
    L->n_new += born;
    /* the edges that were there agree with a valid order: check them all */
    for (i = 0; born && L->ordered && i < n; i++)
        if (ord_of(L, pairs[2 * i]) >= ord_of(L, pairs[2 * i + 1]))
            L->ordered = 0;
    return 0;
}

uint64_t *ibr__cdg_fill_begin(ibr__cdg *g, unsigned layer)
{
    if (!g->dense || layer >= g->n_layers || layer_alloc(g, &g->layers[layer]) < 0)
        return NULL;
    return g->layers[layer].w;
}

void ibr__cdg_fill_end(ibr__cdg *g, unsigned layer)
{
    if (!g->dense || layer >= g->n_layers || !g->layers[layer].w)
        return;
    cdg_layer *L = &g->layers[layer];
    const uint64_t *lw = L->w;
    size_t live = 0;
    /* the caller wrote the weights only: the bitmask follows them here */
    for (size_t i = 0, nw = live_words(g); i < nw; i++) {
        uint64_t m = 0;
        for (size_t k = i << 6, end = k + 64 < g->n_slots ? k + 64 : g->n_slots; k < end; k++)
            m |= (uint64_t)(lw[k] != 0) << (k & 63);
        L->live[i] = m;
        live += (size_t)__builtin_popcountll(m);
    }
    /* weights only grew: every edge there before is still there */
    size_t born = live - L->n_edges;
    L->n_edges = live;
    L->n_new += born;
    for (uint32_t a = 0; born && L->ordered && a < g->n; a++)
        for (uint32_t k = g->slot_off[a]; k < g->slot_off[a + 1]; k++)
            if (lw[k] && ord_of(L, a) >= ord_of(L, g->succ0[a] + (k - g->slot_off[a]))) {
                L->ordered = 0;
                break;
            }
}

/* ---- topological order ----------------------------------------------------- */

static int pk_scratch(ibr__cdg *g)
{
    if (g->mark)
        return 0;
    ibr_context *ctx = g->ctx;
    size_t m = g->n ? g->n : 1;
    /* after a failure, what was allocated is kept for the next attempt */
    if (!g->stack)
        g->stack = ibr__mallocarray(ctx, m, sizeof *g->stack);
    if (!g->rf)
        g->rf = ibr__mallocarray(ctx, m, sizeof *g->rf);
    if (!g->rb)
        g->rb = ibr__mallocarray(ctx, m, sizeof *g->rb);
    if (!g->pool)
        g->pool = ibr__mallocarray(ctx, 2 * m, sizeof *g->pool);
    if (!g->keys)
        g->keys = ibr__mallocarray(ctx, 2 * m, sizeof *g->keys);
    if (!g->stack || !g->rf || !g->rb || !g->pool || !g->keys ||
        !(g->mark = ibr__calloc(ctx, m, sizeof *g->mark)))
        return IBR_ENOMEM;
    g->epoch = 0;
    return 0;
}

static uint32_t next_epoch(ibr__cdg *g)
{
    if (++g->epoch == 0) {
        memset(g->mark, 0, (size_t)g->n * sizeof *g->mark);
        g->epoch = 1;
    }
    return g->epoch;
}

/* Recompute a topological order of L (Kahn). Returns 0, or 1 when cyclic
   (the order is then the identity, not valid). */
static int reorder_all(ibr__cdg *g, cdg_layer *L)
{
    uint32_t *indeg = g->rf, *queue = g->stack;
    uint32_t head = 0, tail = 0, pos = 0;
    memset(indeg, 0, (size_t)g->n * sizeof *indeg);
    for (uint32_t v = 0; v < g->n; v++) {
        uint32_t nd = out_deg(g, L, v);
        for (uint32_t j = next_live(g, L, v, 0); j < nd; j = next_live(g, L, v, j + 1))
            indeg[out_to(g, L, v, j)]++;
    }
    for (uint32_t v = 0; v < g->n; v++)
        if (!indeg[v])
            queue[tail++] = v;
    while (head < tail) {
        uint32_t v = queue[head++];
        L->ord[v] = pos++;
        uint32_t nd = out_deg(g, L, v);
        for (uint32_t j = next_live(g, L, v, 0); j < nd; j = next_live(g, L, v, j + 1)) {
            uint32_t w = out_to(g, L, v, j);
            if (--indeg[w] == 0)
                queue[tail++] = w;
        }
    }
    if (pos != g->n) {
        for (uint32_t v = 0; v < g->n; v++)
            L->ord[v] = v;
        return 1;
    }
    L->ordered = 1;
    return 0;
}

/* Make L's order explicit and valid: 0, 1 (cyclic), IBR_ENOMEM. */
static int layer_order(ibr__cdg *g, cdg_layer *L)
{
    int rc = pk_scratch(g);
    if (rc < 0)
        return rc;
    if (!L->ord) {
        L->ord = ibr__mallocarray(g->ctx, g->n ? g->n : 1, sizeof *L->ord);
        if (!L->ord)
            return IBR_ENOMEM;
        for (uint32_t v = 0; v < g->n; v++)
            L->ord[v] = v;
    }
    return L->ordered ? 0 : reorder_all(g, L);
}

/* A DFS from every channel in index order; the reverse of the finishing
   order lists every dependency of an acyclic layer forward, and of a
   cyclic one all but the back edges of the search. */
int ibr__cdg_dfs_order(ibr__cdg *g, unsigned layer, uint32_t *pos)
{
    if (layer >= g->n_layers)
        return IBR_ERANGE;
    int rc = pk_scratch(g);
    if (rc < 0)
        return rc;
    const cdg_layer *L = &g->layers[layer];
    uint32_t *stk = g->stack, *at = g->rf, ep = next_epoch(g), left = g->n;
    for (uint32_t r = 0; r < g->n; r++) {
        if (g->mark[r] == ep)
            continue;
        uint32_t sp = 0;
        g->mark[r] = ep;
        stk[sp] = r;
        at[sp++] = next_live(g, L, r, 0);
        while (sp) {
            uint32_t v = stk[sp - 1], j = at[sp - 1];
            if (j < out_deg(g, L, v)) {
                at[sp - 1] = next_live(g, L, v, j + 1);
                uint32_t u = out_to(g, L, v, j);
                if (g->mark[u] != ep) {
                    g->mark[u] = ep;
                    stk[sp] = u;
                    at[sp++] = next_live(g, L, u, 0);
                }
            } else {
                pos[v] = --left;
                sp--;
            }
        }
    }
    return 0;
}

int ibr__cdg_start_order(ibr__cdg *g, const uint32_t *pos)
{
    for (unsigned l = 0; l < g->n_layers; l++) {
        cdg_layer *L = &g->layers[l];
        if (L->n_edges)
            return IBR_ESTATE;
    }
    for (unsigned l = 0; l < g->n_layers; l++) {
        cdg_layer *L = &g->layers[l];
        if (!L->ord && !(L->ord = ibr__mallocarray(g->ctx, g->n ? g->n : 1, sizeof *L->ord)))
            return IBR_ENOMEM;
        memcpy(L->ord, pos, (size_t)g->n * sizeof *pos);
        L->ordered = 1;
    }
    return 0;
}

int ibr__cdg_order(ibr__cdg *g, unsigned layer)
{
    if (layer >= g->n_layers)
        return IBR_ERANGE;
    return layer_order(g, &g->layers[layer]);
}

/* Sort the channels r[0 .. n - 1] by their positions in ord (distinct, so
   the result is the one any sort gives): keys (position << 32 | channel),
   by insertion when few, else by a least-significant-digit radix sort on
   the position's bytes that exist below g->n. O(n) for large regions
   instead of a comparison sort's O(n log n) calls through a pointer. */
static void sort_by_ord(ibr__cdg *g, uint32_t *r, uint32_t n, const uint32_t *ord)
{
    uint64_t *k = g->keys, *o = g->keys + g->n;
    for (uint32_t i = 0; i < n; i++)
        k[i] = (uint64_t)ord[r[i]] << 32 | r[i];
    if (n <= 48) {
        for (uint32_t i = 1; i < n; i++) {
            uint64_t x = k[i];
            uint32_t j = i;
            for (; j > 0 && k[j - 1] > x; j--)
                k[j] = k[j - 1];
            k[j] = x;
        }
    } else {
        unsigned bits = 0;
        while (bits < 32 && (g->n - 1) >> bits)
            bits++;
        for (unsigned sh = 32; sh < 32 + bits; sh += 8) {
            uint32_t cnt[257] = {0};
            for (uint32_t i = 0; i < n; i++)
                cnt[((k[i] >> sh) & 0xff) + 1]++;
            for (unsigned b = 0; b < 256; b++)
                cnt[b + 1] += cnt[b];
            for (uint32_t i = 0; i < n; i++)
                o[cnt[(k[i] >> sh) & 0xff]++] = k[i];
            uint64_t *t = k;
            k = o;
            o = t;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        r[i] = (uint32_t)k[i];
}

/* Pearce-Kelly's forward search: the channels reachable from b among
   those ordered before a, into g->rf[0 .. *nf - 1] in the order visited
   (depth first, each channel's edges in position order). Returns 1, with
   the region incomplete, as soon as an edge leads to a (a cycle). Switch
   graphs walk the live-slot bits a word at a time. */
static int forward_region(ibr__cdg *g, const cdg_layer *L, uint32_t a, uint32_t b, uint32_t *nf)
{
    const uint32_t *ord = L->ord, ub = ord[a], ep = next_epoch(g);
    uint32_t *mark = g->mark, *stack = g->stack, *rf = g->rf, sp = 0, n = 0;
    mark[b] = ep;
    stack[sp++] = b;
    while (sp) {
        uint32_t v = stack[--sp];
        rf[n++] = v;
        if (!g->dense) {
            uint32_t nd = out_deg(g, L, v);
            for (uint32_t j = next_live(g, L, v, 0); j < nd; j = next_live(g, L, v, j + 1)) {
                uint32_t u = out_to(g, L, v, j);
                if (u == a)
                    return 1;
                if (mark[u] != ep && ord[u] < ub) {
                    mark[u] = ep;
                    stack[sp++] = u;
                }
            }
            continue;
        }
        /* slots s0 .. end - 1 lead to channels succ0[v] + (slot - s0) */
        uint32_t s0 = g->slot_off[v], end = g->slot_off[v + 1], to0 = g->succ0[v] - s0;
        for (size_t wi = s0 >> 6; wi << 6 < end; wi++) {
            uint64_t x = L->live[wi];
            if (wi << 6 < s0)
                x &= ~(uint64_t)0 << (s0 & 63);
            if ((wi + 1) << 6 > end)
                x &= ~(uint64_t)0 >> (64 - (end & 63));
            for (; x; x &= x - 1) {
                uint32_t u = to0 + (uint32_t)(wi << 6) + (uint32_t)__builtin_ctzll(x);
                if (u == a)
                    return 1;
                if (mark[u] != ep && ord[u] < ub) {
                    mark[u] = ep;
                    stack[sp++] = u;
                }
            }
        }
    }
    *nf = n;
    return 0;
}

/* Checked insertion of w on a -> b into a layer with a valid order.
   Returns 0 (inserted or weight added), 1 (would close a cycle),
   IBR_ERANGE, IBR_ENOMEM. */
static int add_checked(ibr__cdg *g, cdg_layer *L, uint32_t a, uint32_t b, uint64_t w)
{
    int rc = layer_alloc(g, L);
    if (rc < 0)
        return rc;
    if (g->dense) {
        /* an edge that exists only gains weight (its live bit is set);
           one slot lookup, for the paths that mostly follow edges already
           there */
        uint64_t *p = &L->w[dense_slot(g, a, b)];
        if (*p) {
            if (*p > UINT64_MAX - w)
                return IBR_ERANGE;
            *p += w;
            return 0;
        }
    } else if (ibr__cdg_edge_weight(g, (unsigned)(L - g->layers), a, b)) {
        return edge_add(g, L, a, b, w);
    }
    if (a == b)
        return 1;
    uint32_t *ord = L->ord;
    uint32_t lb = ord[b], ub = ord[a];
    if (lb < ub) {
        uint32_t nf = 0, nbk = 0, sp = 0;
        if (forward_region(g, L, a, b, &nf))
            return 1;
        /* backward from a among channels ordered after b */
        uint32_t ep = next_epoch(g);
        g->mark[a] = ep;
        g->stack[sp++] = a;
        while (sp) {
            uint32_t v = g->stack[--sp];
            g->rb[nbk++] = v;
            if (g->dense) {
                uint32_t s = g->tail[v], base = v - g->tail_off[s];
                for (uint32_t k = g->in_off[s]; k < g->in_off[s + 1]; k++) {
                    uint32_t u = g->in_ch[k];
                    if (live_has(L->live, g->slot_off[u] + base) && g->mark[u] != ep &&
                        ord[u] > lb) {
                        g->mark[u] = ep;
                        g->stack[sp++] = u;
                    }
                }
            } else {
                const cdg_node *nv = &L->nodes[v];
                for (uint32_t i = 0; i < nv->in_n; i++) {
                    uint32_t u = nv->in[i];
                    if (g->mark[u] != ep && ord[u] > lb) {
                        g->mark[u] = ep;
                        g->stack[sp++] = u;
                    }
                }
            }
        }
        /* the backward region moves before the forward region, reusing
           their positions */
        sort_by_ord(g, g->rb, nbk, ord);
        sort_by_ord(g, g->rf, nf, ord);
        /* their positions in ascending order: the two regions are
           disjoint, so this is the merge of two sorted lists */
        uint32_t np = 0;
        for (uint32_t i = 0, k = 0; i < nbk || k < nf;) {
            uint32_t x = i < nbk ? ord[g->rb[i]] : UINT32_MAX;
            uint32_t y = k < nf ? ord[g->rf[k]] : UINT32_MAX;
            if (x < y) {
                g->pool[np++] = x;
                i++;
            } else {
                g->pool[np++] = y;
                k++;
            }
        }
        np = 0;
        for (uint32_t i = 0; i < nbk; i++)
            ord[g->rb[i]] = g->pool[np++];
        for (uint32_t i = 0; i < nf; i++)
            ord[g->rf[i]] = g->pool[np++];
    }
    return edge_add(g, L, a, b, w);
}

/* ---- paths ----------------------------------------------------------------- */

static int check_path(const ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n,
                      uint64_t w)
{
    if (layer >= g->n_layers || !w)
        return IBR_ERANGE;
    for (size_t i = 0; i < n; i++)
        if (ch[i] >= g->n || (i && g->dense && dense_slot(g, ch[i - 1], ch[i]) == IBR_NONE))
            return IBR_ERANGE;
    return 0;
}

/* Take the first k edges of a path off L again (they were just added). */
static void undo_add(ibr__cdg *g, cdg_layer *L, const uint32_t *ch, size_t k, uint64_t w)
{
    for (size_t i = k; i > 0; i--)
        edge_sub(g, L, ch[i - 1], ch[i], w);
}

static int path_add(ibr__cdg *g, cdg_layer *L, const uint32_t *ch, size_t n, uint64_t w,
                    int check)
{
    int rc;
    if (check && (rc = layer_order(g, L)) != 0)
        return rc == 1 ? IBR_ESTATE : rc;
    for (size_t i = 1; i < n; i++) {
        rc = check ? add_checked(g, L, ch[i - 1], ch[i], w) : edge_add(g, L, ch[i - 1], ch[i], w);
        if (rc != 0) {
            undo_add(g, L, ch, i - 1, w);
            return rc;
        }
    }
    return 0;
}

/* Put back into L what path_sub just took (no allocation, cannot fail). */
static void path_restore(ibr__cdg *g, cdg_layer *L, const uint32_t *ch, size_t n, uint64_t w)
{
    for (size_t i = 1; i < n; i++)
        edge_put(g, L, ch[i - 1], ch[i], w, 1);
}

static int path_sub(ibr__cdg *g, cdg_layer *L, const uint32_t *ch, size_t n, uint64_t w)
{
    for (size_t i = 1; i < n; i++)
        if (edge_sub(g, L, ch[i - 1], ch[i], w) < 0) {
            path_restore(g, L, ch, i, w); /* what was taken */
            return IBR_ERANGE;
        }
    return 0;
}

int ibr__cdg_add_path(ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n, uint64_t w,
                      int check)
{
    int rc = check_path(g, layer, ch, n, w);
    if (rc < 0)
        return rc;
    return path_add(g, &g->layers[layer], ch, n, w, check);
}

int ibr__cdg_would_cycle(ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n)
{
    int rc = ibr__cdg_add_path(g, layer, ch, n, 1, 1);
    if (rc == 0)
        path_sub(g, &g->layers[layer], ch, n, 1);
    return rc;
}

int ibr__cdg_remove_path(ibr__cdg *g, unsigned layer, const uint32_t *ch, size_t n, uint64_t w)
{
    int rc = check_path(g, layer, ch, n, w);
    if (rc < 0)
        return rc;
    return path_sub(g, &g->layers[layer], ch, n, w);
}

/* Switch graphs, unchecked: one pass over the paths that validates as it
   goes (dfsssp moves millions of paths); the layers' counts and order flag
   are updated at the end, so a failure only has weights to put back. */
static int move_dense(ibr__cdg *g, cdg_layer *F, cdg_layer *T, const uint32_t *ch,
                      const uint32_t *len, const uint64_t *wt, size_t np)
{
    const uint32_t *soff = g->slot_off, *succ0 = g->succ0, *p = ch;
    uint64_t *fw = F->w, *tw = T->w, *fm = F->live, *tm = T->live;
    size_t died = 0, born = 0, q;
    int rc = IBR_ERANGE;
    for (q = 0; q < np; p += len[q++]) {
        uint32_t n = len[q];
        uint64_t w = wt[q];
        if (!w || (n && p[0] >= g->n))
            break;
        if (n < 2)
            continue;
        if (!fw)
            break;
        if (!tw) {
            if ((rc = layer_alloc(g, T)) < 0)
                break;
            tw = T->w;
            tm = T->live;
            rc = IBR_ERANGE;
        }
        const uint32_t *e = p + 1, *end = p + n;
        for (uint32_t a = p[0]; e < end; e++) {
            /* a is a channel: checked above, or as the successor before */
            uint32_t b = *e, j = b - succ0[a], k = soff[a] + j;
            if (j >= soff[a + 1] - soff[a])
                break;
            uint64_t x = fw[k], y = tw[k];
            if (x < w || y > UINT64_MAX - w)
                break;
            fw[k] = x - w;
            tw[k] = y + w;
            fm[k >> 6] &= ~((uint64_t)(x == w) << (k & 63));
            live_set(tm, k);
            died += x == w;
            born += !y;
            a = b;
        }
        if (e < end) {
            while (--e > p) { /* this path's first edges */
                uint32_t k = soff[e[-1]] + (e[0] - succ0[e[-1]]);
                if (!(tw[k] -= w))
                    live_clear(tm, k);
                fw[k] += w;
                live_set(fm, k);
            }
            break;
        }
    }
    if (q < np) {
        while (q-- > 0) { /* the paths before, whole */
            p -= len[q];
            for (uint32_t i = 1; i < len[q]; i++) {
                uint32_t k = soff[p[i - 1]] + (p[i] - succ0[p[i - 1]]);
                if (!(tw[k] -= wt[q]))
                    live_clear(tm, k);
                fw[k] += wt[q];
                live_set(fm, k);
            }
        }
        return rc;
    }
    F->n_edges -= died;
    T->n_edges += born;
    T->n_new += born;
    /* the edges that were there agree with a valid order: check them all */
    if (born && T->ordered)
        for (q = 0, p = ch; q < np && T->ordered; p += len[q++])
            for (uint32_t i = 1; i < len[q]; i++)
                if (ord_of(T, p[i - 1]) >= ord_of(T, p[i]))
                    T->ordered = 0;
    return 0;
}

int ibr__cdg_move_paths(ibr__cdg *g, unsigned from, unsigned to, const uint32_t *ch,
                        const uint32_t *len, const uint64_t *w, size_t np)
{
    if (from >= g->n_layers || to >= g->n_layers)
        return IBR_ERANGE;
    if (to == from)
        return IBR_EINVAL;
    cdg_layer *F = &g->layers[from], *T = &g->layers[to];
    if (g->dense)
        return move_dense(g, F, T, ch, len, w, np);
    const uint32_t *p = ch;
    int rc = 0;
    size_t q;
    for (q = 0; q < np; p += len[q++]) {
        if ((rc = check_path(g, from, p, len[q], w[q])) < 0 ||
            (rc = path_add(g, T, p, len[q], w[q], 0)) < 0)
            break;
        if ((rc = path_sub(g, F, p, len[q], w[q])) < 0) {
            undo_add(g, T, p, len[q] ? len[q] - 1 : 0, w[q]);
            break;
        }
    }
    if (q < np)
        while (q-- > 0) {
            p -= len[q];
            undo_add(g, T, p, len[q] ? len[q] - 1 : 0, w[q]);
            path_restore(g, F, p, len[q], w[q]);
        }
    return rc;
}

int ibr__cdg_move_path(ibr__cdg *g, unsigned from, unsigned to, const uint32_t *ch, size_t n,
                       uint64_t w, int check)
{
    if (from >= g->n_layers || to >= g->n_layers || !w || n > UINT32_MAX)
        return IBR_ERANGE;
    if (to == from)
        return IBR_EINVAL;
    cdg_layer *F = &g->layers[from], *T = &g->layers[to];
    uint32_t n32 = (uint32_t)n;
    if (!check)
        return ibr__cdg_move_paths(g, from, to, ch, &n32, &w, 1);
    int rc = check_path(g, from, ch, n, w);
    if (rc < 0)
        return rc;
    if ((rc = path_add(g, T, ch, n, w, check)) != 0)
        return rc;
    if ((rc = path_sub(g, F, ch, n, w)) < 0)
        undo_add(g, T, ch, n ? n - 1 : 0, w);
    return rc;
}

int ibr__cdg_merge(ibr__cdg *dst, unsigned layer, const ibr__cdg *src, unsigned src_layer)
{
    if (layer >= dst->n_layers || src_layer >= src->n_layers)
        return IBR_ERANGE;
    if (dst->dense != src->dense || dst->n != src->n || dst->n_slots != src->n_slots ||
        (dst == src && layer == src_layer))
        return IBR_EINVAL;
    const cdg_layer *S = &src->layers[src_layer];
    cdg_layer *L = &dst->layers[layer];
    uint32_t n = dst->n;
    int rc;
    if (dst->dense) {
        if (memcmp(dst->slot_off, src->slot_off, ((size_t)n + 1) * sizeof *dst->slot_off) ||
            memcmp(dst->succ0, src->succ0, (size_t)n * sizeof *dst->succ0))
            return IBR_EINVAL;
        if (!S->w || !S->n_edges)
            return 0;
        if ((rc = layer_alloc(dst, L)) < 0)
            return rc;
        for (size_t k = 0; k < dst->n_slots; k++)
            if (L->w[k] > UINT64_MAX - S->w[k])
                return IBR_ERANGE;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t k = dst->slot_off[a]; k < dst->slot_off[a + 1]; k++)
                if (S->w[k]) {
                    if (!L->w[k])
                        edge_born(L, a, dst->succ0[a] + (k - dst->slot_off[a]));
                    L->w[k] += S->w[k];
                    live_set(L->live, k);
                }
        return 0;
    }
    if (!S->nodes)
        return 0;
    for (uint32_t a = 0; a < n; a++) {
        const cdg_node *na = &S->nodes[a];
        for (uint32_t j = 0; j < na->out_n; j++) {
            if (!na->out[j].w || (rc = edge_add(dst, L, a, na->out[j].to, na->out[j].w)) == 0)
                continue;
            /* take back what was added, in the same order */
            for (uint32_t b = 0; b <= a; b++) {
                const cdg_node *nb = &S->nodes[b];
                for (uint32_t i = 0; i < (b == a ? j : nb->out_n); i++)
                    if (nb->out[i].w)
                        edge_sub(dst, L, b, nb->out[i].to, nb->out[i].w);
            }
            return rc;
        }
    }
    return 0;
}

/* ---- cycles ---------------------------------------------------------------- */

int ibr__cdg_search_begin(ibr__cdg *g, unsigned layer)
{
    if (layer >= g->n_layers)
        return IBR_ERANGE;
    if (!g->colour) {
        ibr_context *ctx = g->ctx;
        size_t m = g->n ? g->n : 1;
        /* after a failure, what was allocated is kept for the next attempt */
        if (!g->stk)
            g->stk = ibr__mallocarray(ctx, m, sizeof *g->stk);
        if (!g->nxt)
            g->nxt = ibr__mallocarray(ctx, m, sizeof *g->nxt);
        if (!g->pos)
            g->pos = ibr__mallocarray(ctx, m, sizeof *g->pos);
        if (!g->cw)
            g->cw = ibr__mallocarray(ctx, m, sizeof *g->cw);
        if (!g->stk || !g->nxt || !g->pos || !g->cw || !(g->colour = ibr__mallocarray(ctx, m, 1))) {
            g->s_active = 0;
            return IBR_ENOMEM;
        }
    }
    const cdg_layer *L = &g->layers[layer];
    memset(g->colour, 0, g->n);
    g->s_active = 1;
    g->s_layer = layer;
    g->s_new = L->n_new;
    g->s_sp = 0;
    /* no edge, or a valid topological order: acyclic (the search below
       may then take the layer's storage for granted) */
    g->s_root = !L->n_edges || L->ordered ? g->n : 0;
    return 0;
}

/* The search's view of a layer, loaded once per call. */
typedef struct cdg_view {
    int dense;
    const uint32_t *soff, *succ0;
    const uint64_t *lw, *lm;
    const cdg_node *nodes;
} cdg_view;

static inline uint64_t view_w(const cdg_view *V, uint32_t v, uint32_t j)
{
    return V->dense ? V->lw[V->soff[v] + j] : V->nodes[v].out[j].w;
}

/* The first position >= j of a live out-edge of v, or its degree (*nd). */
static inline uint32_t view_next(const cdg_view *V, uint32_t v, uint32_t j, uint32_t *nd)
{
    if (V->dense) {
        *nd = V->soff[v + 1] - V->soff[v];
        return live_next(V->lm, V->soff[v], V->soff[v + 1], j);
    }
    const cdg_node *nv = &V->nodes[v];
    while (j < nv->out_n && !nv->out[j].w)
        j++;
    *nd = nv->out_n;
    return j;
}

static inline uint32_t view_to(const cdg_view *V, uint32_t v, uint32_t j)
{
    return V->dense ? V->succ0[v] + j : V->nodes[v].out[j].to;
}

int ibr__cdg_search_next(ibr__cdg *g, ibr__cdg_cycle *out)
{
    out->ch = NULL;
    out->w = NULL;
    out->len = 0;
    if (!g->s_active)
        return IBR_ESTATE;
    const cdg_layer *L = &g->layers[g->s_layer];
    if (L->n_new != g->s_new) {
        g->s_active = 0;
        return IBR_ESTATE;
    }
    const uint32_t n = g->n;
    uint32_t sp = g->s_sp, root = g->s_root;
    if (root == n)
        return 0;
    const cdg_view V = {g->dense, g->slot_off, g->succ0, L->w, L->live, L->nodes};
    uint8_t *colour = g->colour;
    uint32_t *stk = g->stk, *nxt = g->nxt, *pos = g->pos;
    /* unwind above the lowest tree edge that died since the last call
       (stk[i] reached stk[i + 1] through its position nxt[i] - 1) */
    for (uint32_t i = 0; i + 1 < sp; i++)
        if (!view_w(&V, stk[i], nxt[i] - 1)) {
            for (uint32_t q = i + 1; q < sp; q++)
                colour[stk[q]] = 0;
            sp = i + 1;
            break;
        }
    for (;;) {
        if (!sp) {
            while (root < n && colour[root])
                root++;
            if (root == n)
                break;
            colour[root] = 1;
            pos[root] = 0;
            stk[0] = root;
            nxt[0] = 0;
            sp = 1;
        }
        uint32_t x = stk[sp - 1], nd;
        uint32_t j = view_next(&V, x, nxt[sp - 1], &nd);
        if (j == nd) {
            colour[x] = 2;
            sp--;
            continue;
        }
        uint32_t u = view_to(&V, x, j);
        if (colour[u] == 0) {
            nxt[sp - 1] = j + 1;
            colour[u] = 1;
            pos[u] = sp;
            stk[sp] = u;
            nxt[sp] = 0;
            sp++;
            continue;
        }
        if (colour[u] == 2) {
            nxt[sp - 1] = j + 1;
            continue;
        }
        /* a cycle: stk[pos[u]] .. x, then back to u. x stays at position
           j, so that the closing edge is looked at again on resumption */
        nxt[sp - 1] = j;
        size_t len = sp - pos[u];
        for (uint32_t i = pos[u]; i + 1 < sp; i++)
            g->cw[i - pos[u]] = view_w(&V, stk[i], nxt[i] - 1);
        g->cw[len - 1] = view_w(&V, x, j);
        out->ch = stk + pos[u];
        out->w = g->cw;
        out->len = len;
        break;
    }
    g->s_sp = sp;
    g->s_root = root;
    return 0;
}

int ibr__cdg_find_cycle(ibr__cdg *g, unsigned layer, uint32_t **cycle, size_t *len)
{
    *cycle = NULL;
    *len = 0;
    ibr__cdg_cycle c;
    int rc = ibr__cdg_search_begin(g, layer);
    if (rc == 0)
        rc = ibr__cdg_search_next(g, &c);
    if (rc < 0 || !c.len)
        return rc;
    uint32_t *copy = ibr__mallocarray(g->ctx, c.len, sizeof *copy);
    if (!copy)
        return IBR_ENOMEM;
    memcpy(copy, c.ch, c.len * sizeof *copy);
    *cycle = copy;
    *len = c.len;
    return 0;
}
