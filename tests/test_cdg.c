/* The channel dependency graph module, credit-loop detection on real
   routings, and route tracing. */
#include <stdlib.h>
#include <string.h>

#include "cdg/cdg.h"
#include "harness.h"
#include "ibroute/sys/engine.h"

/* Is b reachable from a in layer l of g? (independent check, plain BFS) */
static int reaches(ibr__cdg *g, unsigned l, uint32_t n, uint32_t a, uint32_t b)
{
    uint8_t *seen = calloc(n, 1);
    uint32_t *q = malloc(sizeof *q * n);
    uint32_t h = 0, tl = 0;
    int found = 0;
    q[tl++] = a;
    seen[a] = 1;
    while (h < tl && !found) {
        uint32_t v = q[h++];
        for (uint32_t w = 0; w < n; w++)
            if (!seen[w] && ibr__cdg_edge_weight(g, l, v, w)) {
                if (w == b)
                    found = 1;
                seen[w] = 1;
                q[tl++] = w;
            }
    }
    free(seen);
    free(q);
    return found;
}

/* Is layer l of g acyclic? (independent check: Kahn over all pairs) */
static int acyclic(ibr__cdg *g, unsigned l, uint32_t n)
{
    uint32_t *indeg = calloc(n, sizeof *indeg), *q = malloc(sizeof *q * n);
    uint32_t h = 0, tl = 0;
    size_t edges = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            if (ibr__cdg_edge_weight(g, l, a, b)) {
                indeg[b]++;
                edges++;
            }
    CU_ASSERT_EQUAL(edges, ibr__cdg_edge_count(g, l));
    for (uint32_t v = 0; v < n; v++)
        if (!indeg[v])
            q[tl++] = v;
    while (h < tl) {
        uint32_t v = q[h++];
        for (uint32_t w = 0; w < n; w++)
            if (ibr__cdg_edge_weight(g, l, v, w) && --indeg[w] == 0)
                q[tl++] = w;
    }
    free(indeg);
    free(q);
    return tl == n;
}

/* Every edge weight of a layer, n x n (to compare before and after). */
static uint64_t *snapshot(const ibr__cdg *g, unsigned l, uint32_t n)
{
    uint64_t *m = calloc((size_t)n * n + 1, sizeof *m);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            m[(size_t)a * n + b] = ibr__cdg_edge_weight(g, l, a, b);
    return m;
}

static int same_as(const ibr__cdg *g, unsigned l, uint32_t n, const uint64_t *m)
{
    uint64_t *now = snapshot(g, l, n);
    int same = !memcmp(now, m, sizeof *m * n * n);
    free(now);
    return same;
}

/* The live out-edges the graph enumerates (ibr__cdg_out_edges, the
   searches' walk) are exactly the edges of positive weight, each once;
   in a switch graph in successor order. Every edge of g must be a
   possible one of t's (a -> a channel leaving the switch a enters).
   Returns 1 when they agree. */
static int live_agrees(const ibr__cdg *g, const ibr_topo *t, unsigned l)
{
    uint32_t n = t->n_adj, *to = malloc(sizeof *to * (n + 1));
    uint8_t *seen = calloc(n + 1, 1);
    int ok = 1;
    for (uint32_t a = 0; a < n && ok; a++) {
        uint32_t h = t->adj[a].sw;
        size_t m = ibr__cdg_out_edges(g, l, a, to, n), want = 0;
        for (uint32_t b = t->adj_off[h]; b < t->adj_off[h + 1]; b++)
            want += ibr__cdg_edge_weight(g, l, a, b) > 0;
        ok = m == want;
        for (size_t i = 0; ok && i < m; i++) {
            ok = to[i] < n && !seen[to[i]] && ibr__cdg_edge_weight(g, l, a, to[i]) > 0 &&
                 (!ibr__cdg_slot_count(g) || !i || to[i] > to[i - 1]);
            if (ok)
                seen[to[i]] = 1;
        }
        for (size_t i = 0; i < m && i < n; i++)
            seen[to[i]] = 0;
    }
    free(to);
    free(seen);
    return ok;
}

/* The witness is a cycle of the layer, with the layer's weights. */
static void check_cycle(const ibr__cdg *g, unsigned l, const ibr__cdg_cycle *c)
{
    CU_ASSERT(c->len >= 1);
    for (size_t i = 0; i < c->len; i++) {
        uint64_t w = ibr__cdg_edge_weight(g, l, c->ch[i], c->ch[(i + 1) % c->len]);
        CU_ASSERT(w > 0);
        CU_ASSERT_EQUAL(c->w[i], w);
    }
}

static void test_graph_basics(void)
{
    ibr__cdg *g = NULL;
    CU_ASSERT_EQUAL(ibr__cdg_create(&g, NULL, 6, 0), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(g);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create(&g, NULL, 6, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_slot_count(g), 0);
    CU_ASSERT_EQUAL(ibr__cdg_slot(g, 0, 1), IBR_NONE);
    uint32_t p1[] = {0, 1, 2, 3};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p1, 4, 1, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 3);
    /* a path closing 3 -> 0 is rejected and leaves nothing behind */
    uint32_t p2[] = {4, 3, 0};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p2, 3, 1, 1), 1);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 3);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 4, 3), 0);
    CU_ASSERT_EQUAL(ibr__cdg_would_cycle(g, 0, p2, 3), 1);
    uint32_t p3[] = {4, 5, 0};
    CU_ASSERT_EQUAL(ibr__cdg_would_cycle(g, 0, p3, 3), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 3); /* would_cycle changes nothing */
    /* weights */
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p1, 2, 1, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 0, 1), 2);
    CU_ASSERT_EQUAL(ibr__cdg_remove_path(g, 0, p1, 4, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 0, 1), 1);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 1, 2), 0);
    /* removing what is not there fails and removes nothing */
    CU_ASSERT_EQUAL(ibr__cdg_remove_path(g, 0, p1, 4, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 0, 1), 1);
    /* now 3 -> 0 is fine: nothing leads from 0 to 3 any more */
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p2, 3, 1, 1), 0);
    uint32_t *cyc = NULL;
    size_t len = 9;
    CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, 0, &cyc, &len), 0);
    CU_ASSERT_EQUAL(len, 0);
    /* unchecked insertion may close a cycle; the witness is a real cycle */
    uint32_t p4[] = {1, 4};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p4, 2, 1, 0), 0); /* 4->3->0->1->4 */
    CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, 0, &cyc, &len), 0);
    CU_ASSERT_EQUAL(len, 4);
    for (size_t i = 0; i < len; i++)
        CU_ASSERT(ibr__cdg_edge_weight(g, 0, cyc[i], cyc[(i + 1) % len]) > 0);
    free(cyc);
    CU_ASSERT_EQUAL(ibr__cdg_order(g, 0), 1);
    /* checked insertion refuses to work on a cyclic graph */
    uint32_t p5[] = {2, 5};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p5, 2, 1, 1), IBR_ESTATE);
    /* ... until the cycle is broken */
    CU_ASSERT_EQUAL(ibr__cdg_remove_path(g, 0, p4, 2, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_order(g, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p5, 2, 1, 1), 0);
    /* out of range: channel, layer, weight 0 */
    uint32_t bad[] = {1, 6};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, bad, 2, 1, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 1, p5, 2, 1, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p5, 2, 0, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_add_edge(g, 0, 6, 1, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 1, 2, 5), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_order(g, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_search_begin(g, 1), IBR_ERANGE);
    uint32_t self[] = {2, 2};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, self, 2, 1, 1), 1);
    /* general graphs count in 32 bits */
    CU_ASSERT_EQUAL(ibr__cdg_add_edge(g, 0, 2, 5, UINT32_MAX), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 2, 5), 1);
    CU_ASSERT_EQUAL(ibr__cdg_add_edge(g, 0, 2, 5, UINT32_MAX - 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 2, 5), UINT32_MAX);
    CU_ASSERT_EQUAL(ibr__cdg_add_edge(g, 0, 3, 4, (uint64_t)UINT32_MAX + 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, 3, 4), 0);
    ibr__cdg_destroy(g);
    ibr__cdg_destroy(NULL);
}

/* Switch graphs on a ring: slots, impossible edges, a hand-built cycle,
   the resumed search after the cycle is broken, weights, moves. */
static void test_switch_graph(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=4,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(t->n_adj, 8);
    uint32_t n = t->n_adj;
    /* the forward ring: fwd[i + 1] leaves the switch fwd[i] enters, away
       from the switch fwd[i] leaves */
    uint32_t fwd[4], tail[8];
    for (uint32_t s = 0; s < t->n_sw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            tail[e] = s;
    fwd[0] = 0;
    for (unsigned i = 1; i < 4; i++) {
        uint32_t s = t->adj[fwd[i - 1]].sw;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            if (t->adj[e].sw != tail[fwd[i - 1]])
                fwd[i] = e;
    }
    CU_ASSERT_EQUAL_FATAL(t->adj[fwd[3]].sw, tail[fwd[0]]);

    ibr__cdg *g = NULL;
    CU_ASSERT_EQUAL(ibr__cdg_create_topo(&g, t, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&g, t, 3), 0);
    /* Σ in-degree x out-degree: 4 switches, 2 x 2 */
    CU_ASSERT_EQUAL(ibr__cdg_slot_count(g), 16);
    uint8_t used[16] = {0};
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            uint32_t k = ibr__cdg_slot(g, a, b);
            CU_ASSERT_EQUAL(k != IBR_NONE, tail[b] == t->adj[a].sw);
            if (k != IBR_NONE) {
                CU_ASSERT(k < 16);
                CU_ASSERT_EQUAL(used[k], 0);
                used[k] = 1;
            }
        }
    /* an impossible edge: fwd[0] -> fwd[2] (not adjacent) */
    uint32_t imp[] = {fwd[0], fwd[2]};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, imp, 2, 1, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_add_edge(g, 0, fwd[0], fwd[2], 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 0);

    /* the ring in two paths: 0->1->2 (weight 5) and 2->3->0->1 (weight 2) */
    uint32_t pa[] = {fwd[0], fwd[1], fwd[2]};
    uint32_t pb[] = {fwd[2], fwd[3], fwd[0], fwd[1]};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, pa, 3, 5, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, pb, 4, 2, 1), 1); /* closes the ring */
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 2);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, pb, 4, 2, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 4);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, fwd[0], fwd[1]), 7);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, fwd[1], fwd[2]), 5);
    CU_ASSERT_EQUAL(ibr__cdg_order(g, 0), 1);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, pa, 2, 1, 1), IBR_ESTATE);
    CU_ASSERT_FALSE(acyclic(g, 0, n));

    /* the search finds the ring, starting at the channel it re-entered */
    ibr__cdg_cycle c;
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), IBR_ESTATE); /* not begun */
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_search_begin(g, 0), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_search_next(g, &c), 0);
    CU_ASSERT_EQUAL_FATAL(c.len, 4);
    check_cycle(g, 0, &c);
    CU_ASSERT_EQUAL(c.ch[0], fwd[0]); /* the lowest channel is the first root */
    uint64_t ws[4] = {7, 5, 2, 2};
    for (unsigned i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(c.w[i], ws[i]);
    /* left intact, it comes back */
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), 0);
    CU_ASSERT_EQUAL(c.len, 4);
    /* break it by moving path b to layer 1; the search resumes: acyclic */
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, pb, 4, 2, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 2);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), 3);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, fwd[0], fwd[1]), 5);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 1, fwd[0], fwd[1]), 2);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), 0);
    CU_ASSERT_EQUAL(c.len, 0);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), 0); /* and stays so */
    CU_ASSERT_EQUAL(c.len, 0);
    CU_ASSERT(acyclic(g, 0, n));
    CU_ASSERT_EQUAL(ibr__cdg_order(g, 0), 0);

    /* moves that cannot happen change nothing */
    uint64_t *m0 = snapshot(g, 0, n), *m1 = snapshot(g, 1, n);
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, pb, 4, 1, 0), IBR_ERANGE); /* not in 0 */
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, pb, 4, 1, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, pa, 3, 6, 0), IBR_ERANGE); /* too heavy */
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 0, pa, 3, 1, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 3, pa, 3, 1, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, imp, 2, 1, 0), IBR_ERANGE);
    /* checked: path a into layer 1 would close the ring there */
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, pa, 3, 1, 1), 1);
    CU_ASSERT(same_as(g, 0, n, m0));
    CU_ASSERT(same_as(g, 1, n, m1));
    /* ... but fits into layer 2 */
    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 2, pa, 3, 5, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 2, fwd[1], fwd[2]), 5);
    /* an empty layer is acyclic at once */
    CU_ASSERT_EQUAL(ibr__cdg_search_begin(g, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), 0);
    CU_ASSERT_EQUAL(c.len, 0);
    /* adding an edge to the layer under search ends the search */
    CU_ASSERT_EQUAL(ibr__cdg_search_begin(g, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 1, pa, 3, 1, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &c), IBR_ESTATE);
    uint32_t *cyc = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, 1, &cyc, &len), 0);
    CU_ASSERT_EQUAL(len, 4);
    free(cyc);
    /* a checked insertion that reorders: layer 2 holds 1 -> 2; 3 -> 0 -> 1
       is fine, 2 -> 3 then is not */
    uint32_t pc[] = {fwd[3], fwd[0], fwd[1]}, pd[] = {fwd[2], fwd[3]};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 2, pc, 3, 1, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_would_cycle(g, 2, pd, 2), 1);
    CU_ASSERT_EQUAL(ibr__cdg_remove_path(g, 2, pc, 2, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_would_cycle(g, 2, pd, 2), 0);
    CU_ASSERT(acyclic(g, 2, n));
    free(m0);
    free(m1);
    ibr__cdg_destroy(g);
    ibr_topo_destroy(t);
}

/* Merging: switch graphs of one topology add up, as do general graphs;
   anything else is refused. */
static void test_merge(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=3x3,hosts=1");
    ibr_topo *t2 = ibr_test_topo(NULL, "torus:dims=4x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
    uint32_t n = t->n_adj;
    ibr__cdg *a = NULL, *b = NULL, *c = NULL, *o = NULL, *s1 = NULL, *s2 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&a, t, 2), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&b, t, 1), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&c, t, 1), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&o, t2, 1), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create(&s1, NULL, n, 1), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create(&s2, NULL, n, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, b, 0), 0); /* empty */
    srand(7);
    for (int i = 0; i < 200; i++) {
        uint32_t e = (uint32_t)rand() % n, z = t->adj[e].sw;
        uint32_t f = t->adj_off[z] + (uint32_t)rand() % (t->adj_off[z + 1] - t->adj_off[z]);
        uint64_t w = 1 + (uint64_t)(rand() % 5);
        ibr__cdg *x = i % 2 ? b : c;
        CU_ASSERT_EQUAL(ibr__cdg_add_edge(x, 0, e, f, w), 0);
        CU_ASSERT_EQUAL(ibr__cdg_add_edge(i % 2 ? s1 : s2, 0, e, f, w), 0);
        CU_ASSERT_EQUAL(ibr__cdg_add_edge(a, 1, e, f, w), 0); /* the expected sum */
    }
    CU_ASSERT_EQUAL(ibr__cdg_reserve(a, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_reserve(a, 2), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, b, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, c, 0), 0);
    CU_ASSERT_EQUAL(ibr__cdg_merge(s1, 0, s2, 0), 0);
    uint64_t *sum = snapshot(a, 1, n);
    CU_ASSERT(same_as(a, 0, n, sum));
    CU_ASSERT(same_as(s1, 0, n, sum));
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(a, 0), ibr__cdg_edge_count(a, 1));
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(s1, 0), ibr__cdg_edge_count(a, 1));
    /* refused: other topology, other storage, itself, bad layers */
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, o, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, s1, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, a, 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 2, b, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, b, 1), IBR_ERANGE);
    CU_ASSERT(same_as(a, 0, n, sum));
    /* merging a layer into another of the same graph */
    CU_ASSERT_EQUAL(ibr__cdg_merge(a, 0, a, 1), 0);
    unsigned wrong = 0;
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t y = 0; y < n; y++)
            wrong += ibr__cdg_edge_weight(a, 0, x, y) != 2 * sum[(size_t)x * n + y];
    CU_ASSERT_EQUAL(wrong, 0);
    free(sum);
    ibr__cdg_destroy(a);
    ibr__cdg_destroy(b);
    ibr__cdg_destroy(c);
    ibr__cdg_destroy(o);
    ibr__cdg_destroy(s1);
    ibr__cdg_destroy(s2);
    ibr_topo_destroy(t);
    ibr_topo_destroy(t2);
}

/* A random successor of channel e in t (switch graphs' possible edges). */
static uint32_t random_next(const ibr_topo *t, uint32_t e)
{
    uint32_t z = t->adj[e].sw;
    return t->adj_off[z] + (uint32_t)rand() % (t->adj_off[z + 1] - t->adj_off[z]);
}

/* Random checked insertions into layer 1 (layer 0 holding a cyclic graph
   meanwhile): the layer stays acyclic, and an edge is rejected exactly
   when its head already reaches its tail. Both storages: general graphs
   over random pairs, switch graphs over a random fabric's channels. */
static void test_graph_random(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "random:switches=12,degree=4,hosts=1,seed=2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int dense = 0; dense <= 1; dense++) {
        uint32_t n = dense ? t->n_adj : 60;
        ibr__cdg *g = NULL;
        int rc_ = dense ? ibr__cdg_create_topo(&g, t, 2) : ibr__cdg_create(&g, NULL, n, 2);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        srand(12345);
        unsigned rejected = 0, added = 0, wrong = 0;
        for (int i = 0; i < 900; i++) {
            uint32_t a = (uint32_t)rand() % n;
            uint32_t b = dense ? random_next(t, a) : (uint32_t)rand() % n;
            uint32_t p[] = {a, b};
            CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p, 2, 1, 0), 0);
            int expect_cycle = a == b || reaches(g, 1, n, b, a);
            uint64_t w = 1 + (uint64_t)(i % 3);
            int rc = ibr__cdg_add_path(g, 1, p, 2, w, 1);
            if (rc == 1)
                rejected++;
            else
                added++;
            if ((rc == 1) != expect_cycle)
                wrong++;
            if (i % 7 == 0 && rc == 0) /* removals keep the order valid */
                CU_ASSERT_EQUAL(ibr__cdg_remove_path(g, 1, p, 2, w), 0);
        }
        CU_ASSERT_EQUAL(wrong, 0);
        CU_ASSERT(rejected > 50);
        CU_ASSERT(added > 50);
        CU_ASSERT(acyclic(g, 1, n));
        CU_ASSERT_FALSE(acyclic(g, 0, n));
        uint32_t *cyc = NULL;
        size_t len = 0;
        CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, 1, &cyc, &len), 0);
        CU_ASSERT_EQUAL(len, 0);
        CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, 0, &cyc, &len), 0);
        CU_ASSERT(len > 0);
        for (size_t i = 0; i < len; i++)
            CU_ASSERT(ibr__cdg_edge_weight(g, 0, cyc[i], cyc[(i + 1) % len]) > 0);
        free(cyc);
        ibr__cdg_destroy(g);
    }
    ibr_topo_destroy(t);
}

/* A start order changes no answer of the checked insertion: the same
   random stream of dependencies is accepted and refused alike from the
   identity and from a DFS order of all of it; the DFS order of an acyclic
   layer is topological; only empty graphs take a start order. */
static void test_start_order(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "random:switches=12,degree=4,hosts=1,seed=2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int dense = 0; dense <= 1; dense++) {
        uint32_t n = dense ? t->n_adj : 60;
        ibr__cdg *g[2] = {NULL, NULL}, *all = NULL;
        for (int k = 0; k < 2; k++)
            CU_ASSERT_EQUAL_FATAL(dense ? ibr__cdg_create_topo(&g[k], t, 2)
                                        : ibr__cdg_create(&g[k], NULL, n, 2),
                                  0);
        CU_ASSERT_EQUAL_FATAL(dense ? ibr__cdg_create_topo(&all, t, 1)
                                    : ibr__cdg_create(&all, NULL, n, 1),
                              0);
        CU_ASSERT_EQUAL(ibr__cdg_channel_count(all), n);
        uint32_t (*deps)[2] = malloc(900 * sizeof *deps);
        uint32_t *pos = malloc(n * sizeof *pos);
        CU_ASSERT_FATAL(deps && pos);
        srand(777 + (unsigned)dense);
        for (int i = 0; i < 900; i++) {
            deps[i][0] = (uint32_t)rand() % n;
            deps[i][1] = dense ? random_next(t, deps[i][0]) : (uint32_t)rand() % n;
            CU_ASSERT_EQUAL(ibr__cdg_add_path(all, 0, deps[i], 2, 1, 0), 0);
        }
        CU_ASSERT_EQUAL_FATAL(ibr__cdg_dfs_order(all, 0, pos), 0);
        /* a permutation */
        char *seen = calloc(n, 1);
        for (uint32_t v = 0; v < n; v++) {
            CU_ASSERT_FATAL(pos[v] < n);
            CU_ASSERT(!seen[pos[v]]);
            seen[pos[v]] = 1;
        }
        free(seen);
        CU_ASSERT_EQUAL(ibr__cdg_start_order(all, pos), IBR_ESTATE);
        CU_ASSERT_EQUAL(ibr__cdg_start_order(g[1], pos), 0);
        unsigned differ = 0, refused = 0;
        for (int i = 0; i < 900; i++) {
            int r0 = ibr__cdg_add_path(g[0], 0, deps[i], 2, 1, 1);
            int r1 = ibr__cdg_add_path(g[1], 0, deps[i], 2, 1, 1);
            differ += r0 != r1;
            refused += r0 == 1;
        }
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT(refused > 50);
        CU_ASSERT(acyclic(g[1], 0, n));
        /* the DFS order of the acyclic layer puts every dependency forward */
        CU_ASSERT_EQUAL_FATAL(ibr__cdg_dfs_order(g[1], 0, pos), 0);
        unsigned backward = 0;
        for (int i = 0; i < 900; i++)
            if (ibr__cdg_edge_weight(g[1], 0, deps[i][0], deps[i][1]) &&
                pos[deps[i][0]] >= pos[deps[i][1]])
                backward++;
        CU_ASSERT_EQUAL(backward, 0);
        CU_ASSERT_EQUAL(ibr__cdg_dfs_order(g[1], 5, pos), IBR_ERANGE);
        free(deps);
        free(pos);
        ibr__cdg_destroy(all);
        ibr__cdg_destroy(g[0]);
        ibr__cdg_destroy(g[1]);
    }
    ibr_topo_destroy(t);
}

/* Batches of moves, both storages: all or nothing. */
static void test_move_batch(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    enum { NP = 40, PL = 5 };
    uint32_t n = t->n_adj;
    for (int dense = 0; dense <= 1; dense++) {
        ibr__cdg *g = NULL;
        int rc_ = dense ? ibr__cdg_create_topo(&g, t, 3) : ibr__cdg_create(&g, NULL, n, 3);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        uint32_t ch[NP * PL], len[NP];
        uint64_t w[NP];
        srand(3);
        for (int i = 0; i < NP; i++) {
            uint32_t *p = ch + i * PL;
            p[0] = (uint32_t)rand() % n;
            for (int k = 1; k < PL; k++)
                p[k] = random_next(t, p[k - 1]);
            len[i] = i % 7 == 3 ? 1 : PL; /* some single channels, no edge */
            w[i] = 1 + (uint64_t)(i % 4);
            CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, p, PL, w[i], 0), 0);
        }
        /* the channels of the batch: path i's len[i] first ones */
        uint32_t flat[NP * PL], m = 0;
        for (int i = 0; i < NP; i++)
            for (uint32_t k = 0; k < len[i]; k++)
                flat[m++] = ch[i * PL + k];
        uint64_t *m0 = snapshot(g, 0, n), *m1 = snapshot(g, 1, n);
        size_t e0 = ibr__cdg_edge_count(g, 0), e1 = ibr__cdg_edge_count(g, 1);
        /* the last path asks for more weight than there is: nothing moves */
        w[NP - 1] += 1000;
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 0, 1, flat, len, w, NP), IBR_ERANGE);
        w[NP - 1] -= 1000;
        /* nor when a weight is 0, a channel is out of range, an edge is
           not possible (switch graphs), or the layers are wrong */
        w[5] = 0;
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 0, 1, flat, len, w, NP), IBR_ERANGE);
        w[5] = 1 + 5 % 4;
        uint32_t keep = flat[m - 1];
        flat[m - 1] = n;
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 0, 1, flat, len, w, NP), IBR_ERANGE);
        flat[m - 1] = keep;
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 0, 0, flat, len, w, NP), IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 0, 3, flat, len, w, NP), IBR_ERANGE);
        CU_ASSERT(same_as(g, 0, n, m0));
        CU_ASSERT(same_as(g, 1, n, m1));
        CU_ASSERT(live_agrees(g, t, 0) && live_agrees(g, t, 1));
        CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), e0);
        CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), e1);
        /* the whole batch: layer 1 gets the edges of the paths moved,
           layer 0 keeps the tails of the paths cut short */
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 0, 1, flat, len, w, NP), 0);
        ibr__cdg *r = NULL;
        rc_ = dense ? ibr__cdg_create_topo(&r, t, 2) : ibr__cdg_create(&r, NULL, n, 2);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        for (int i = 0; i < NP; i++)
            CU_ASSERT_EQUAL(ibr__cdg_add_path(r, len[i] == PL, ch + i * PL, PL, w[i], 0), 0);
        for (unsigned l = 0; l < 2; l++) {
            uint64_t *ref = snapshot(r, l, n);
            CU_ASSERT(same_as(g, l, n, ref));
            CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, l), ibr__cdg_edge_count(r, l));
            free(ref);
        }
        CU_ASSERT_EQUAL(acyclic(g, 1, n), ibr__cdg_order(g, 1) == 0);
        CU_ASSERT_EQUAL(ibr__cdg_move_paths(g, 1, 2, flat, len, w, 0), 0); /* empty batch */
        free(m0);
        free(m1);
        ibr__cdg_destroy(r);
        ibr__cdg_destroy(g);
    }
    ibr_topo_destroy(t);
}

/* Batches of edges, both storages: the sum of single additions, all or
   nothing. */
static void test_add_edges(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    enum { NE = 200 };
    uint32_t n = t->n_adj;
    for (int dense = 0; dense <= 1; dense++) {
        ibr__cdg *g = NULL, *r = NULL;
        int rc_ = dense ? ibr__cdg_create_topo(&g, t, 2) : ibr__cdg_create(&g, NULL, n, 2);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        rc_ = dense ? ibr__cdg_create_topo(&r, t, 2) : ibr__cdg_create(&r, NULL, n, 2);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        uint32_t pairs[2 * NE];
        uint64_t w[NE];
        srand(11);
        for (int i = 0; i < NE; i++) {
            pairs[2 * i] = (uint32_t)rand() % n;
            pairs[2 * i + 1] = random_next(t, pairs[2 * i]);
            w[i] = 1 + (uint64_t)(rand() % 6);
            CU_ASSERT_EQUAL(ibr__cdg_add_edge(r, 1, pairs[2 * i], pairs[2 * i + 1], w[i]), 0);
        }
        CU_ASSERT_EQUAL(ibr__cdg_add_edges(g, 1, pairs, w, 0), 0);
        CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), 0);
        /* failures: a weight 0, a channel out of range, a bad layer */
        uint64_t last = w[NE - 1];
        w[NE - 1] = 0;
        CU_ASSERT_EQUAL(ibr__cdg_add_edges(g, 1, pairs, w, NE), IBR_ERANGE);
        w[NE - 1] = last;
        uint32_t keep = pairs[2 * NE - 1];
        pairs[2 * NE - 1] = n;
        CU_ASSERT_EQUAL(ibr__cdg_add_edges(g, 1, pairs, w, NE), IBR_ERANGE);
        pairs[2 * NE - 1] = keep;
        CU_ASSERT_EQUAL(ibr__cdg_add_edges(g, 2, pairs, w, NE), IBR_ERANGE);
        CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), 0);
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 1, a, b), 0);
        /* the batch in two halves equals the single additions */
        CU_ASSERT_EQUAL(ibr__cdg_add_edges(g, 1, pairs, w, NE / 2), 0);
        CU_ASSERT_EQUAL(ibr__cdg_add_edges(g, 1, pairs + NE, w + NE / 2, NE - NE / 2), 0);
        uint64_t *ref = snapshot(r, 1, n);
        CU_ASSERT(same_as(g, 1, n, ref));
        CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), ibr__cdg_edge_count(r, 1));
        /* the order flag followed: a cycle is seen, checked insertion refuses */
        CU_ASSERT_EQUAL(acyclic(g, 1, n), ibr__cdg_order(g, 1) == 0);
        free(ref);
        ibr__cdg_destroy(g);
        ibr__cdg_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* dfsssp's use: random weighted paths in layer 0, then search, break the
   lightest edge of each cycle by moving the paths through it to layer 1,
   resume; at the end layer 0 is acyclic (independent check), every
   witness was a real cycle with the right weights, and no path was lost.
   Both storages. */
static void test_search_resumed(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=4x4,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    enum { NP = 120, PL = 6 };
    uint32_t n = t->n_adj;
    for (int dense = 0; dense <= 1; dense++) {
        ibr__cdg *g = NULL;
        int rc_ = dense ? ibr__cdg_create_topo(&g, t, 2) : ibr__cdg_create(&g, NULL, n, 2);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        static uint32_t path[NP][PL];
        uint64_t pw[NP];
        int layer[NP];
        srand(99);
        for (int i = 0; i < NP; i++) {
            path[i][0] = (uint32_t)rand() % n;
            for (int k = 1; k < PL; k++)
                path[i][k] = random_next(t, path[i][k - 1]);
            pw[i] = 1 + (uint64_t)(rand() % 9);
            layer[i] = 0;
            CU_ASSERT_EQUAL(ibr__cdg_add_path(g, 0, path[i], PL, pw[i], 0), 0);
        }
        CU_ASSERT_FALSE(acyclic(g, 0, n));
        CU_ASSERT_EQUAL_FATAL(ibr__cdg_search_begin(g, 0), 0);
        unsigned cycles = 0;
        for (;;) {
            ibr__cdg_cycle c;
            CU_ASSERT_EQUAL_FATAL(ibr__cdg_search_next(g, &c), 0);
            if (!c.len)
                break;
            check_cycle(g, 0, &c);
            cycles++;
            size_t b = 0;
            for (size_t i = 1; i < c.len; i++)
                if (c.w[i] < c.w[b])
                    b = i;
            uint32_t b1 = c.ch[b], b2 = c.ch[(b + 1) % c.len];
            for (int i = 0; i < NP; i++) {
                int uses = 0;
                for (int k = 1; k < PL; k++)
                    uses |= path[i][k - 1] == b1 && path[i][k] == b2;
                if (layer[i] == 0 && uses) {
                    CU_ASSERT_EQUAL(ibr__cdg_move_path(g, 0, 1, path[i], PL, pw[i], 0), 0);
                    layer[i] = 1;
                }
            }
            CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, b1, b2), 0);
            CU_ASSERT_FATAL(cycles < 10000);
        }
        CU_ASSERT(cycles > 1);
        CU_ASSERT(acyclic(g, 0, n));
        /* the weights are those of the paths in each layer */
        ibr__cdg *r = NULL;
        rc_ = dense ? ibr__cdg_create_topo(&r, t, 2) : ibr__cdg_create(&r, NULL, n, 2);
        CU_ASSERT_EQUAL_FATAL(rc_, 0);
        for (int i = 0; i < NP; i++)
            CU_ASSERT_EQUAL(ibr__cdg_add_path(r, (unsigned)layer[i], path[i], PL, pw[i], 0), 0);
        for (unsigned l = 0; l < 2; l++) {
            uint64_t *m = snapshot(r, l, n);
            CU_ASSERT(same_as(g, l, n, m));
            free(m);
        }
        ibr__cdg_destroy(r);
        ibr__cdg_destroy(g);
    }
    ibr_topo_destroy(t);
}

/* Allocation failure: every call gives IBR_ENOMEM, leaves the graph as it
   was, and nothing leaks. */
static void test_graph_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t n = t->n_adj;
    long base = st.live;
    for (int dense = 0; dense <= 1; dense++) {
        long fails = 0, merge_fails = 0;
        for (long k = 0;; k++) {
            st.fail_at = k;
            st.calls = 0;
            ibr__cdg *g = NULL;
            int rc = dense ? ibr__cdg_create_topo(&g, t, 2) : ibr__cdg_create(&g, ctx, n, 2);
            if (rc < 0) {
                CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
                CU_ASSERT_PTR_NULL(g);
                CU_ASSERT_EQUAL(st.live, base);
                fails++;
                continue;
            }
            /* a sequence of operations; each failure must change nothing */
            srand(5);
            int done = 1;
            for (int i = 0; i < 60 && done; i++) {
                uint32_t p[4];
                p[0] = (uint32_t)rand() % n;
                for (int j = 1; j < 4; j++)
                    p[j] = random_next(t, p[j - 1]);
                unsigned l = (unsigned)(i % 2);
                uint64_t *m = snapshot(g, l, n);
                size_t ne = ibr__cdg_edge_count(g, l);
                rc = ibr__cdg_add_path(g, l, p, 4, 1, l);
                if (rc == IBR_ENOMEM) {
                    CU_ASSERT(same_as(g, l, n, m));
                    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, l), ne);
                    done = 0;
                } else {
                    CU_ASSERT(rc == 0 || rc == 1);
                }
                free(m);
            }
            if (done) {
                ibr__cdg_cycle c;
                rc = ibr__cdg_search_begin(g, 0);
                if (rc == 0)
                    rc = ibr__cdg_search_next(g, &c);
                uint32_t *cyc = NULL;
                size_t len = 0;
                if (rc == 0)
                    rc = ibr__cdg_find_cycle(g, 0, &cyc, &len);
                if (rc == 0) {
                    CU_ASSERT(len > 0);
                    ibr__free(ctx, cyc);
                } else {
                    CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
                    done = 0;
                }
            }
            if (done) {
                /* merge layer 0 into a graph holding one edge already */
                ibr__cdg *h = NULL;
                rc = dense ? ibr__cdg_create_topo(&h, t, 1) : ibr__cdg_create(&h, ctx, n, 1);
                if (rc == 0)
                    rc = ibr__cdg_add_edge(h, 0, 0, t->adj_off[t->adj[0].sw], 3);
                if (rc == 0) {
                    uint64_t *m = snapshot(h, 0, n);
                    rc = ibr__cdg_merge(h, 0, g, 0);
                    if (rc < 0) {
                        CU_ASSERT(same_as(h, 0, n, m));
                        merge_fails++;
                    } else {
                        CU_ASSERT_EQUAL(ibr__cdg_edge_count(h, 0), ibr__cdg_edge_count(g, 0) +
                                        !ibr__cdg_edge_weight(g, 0, 0, t->adj_off[t->adj[0].sw]));
                    }
                    free(m);
                }
                if (rc < 0) {
                    CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
                    done = 0;
                }
                ibr__cdg_destroy(h);
            }
            ibr__cdg_destroy(g);
            CU_ASSERT_EQUAL(st.live, base);
            if (done)
                break;
            fails++;
        }
        CU_ASSERT(fails > 5);
        CU_ASSERT(dense || merge_fails > 0); /* a switch graph merges in place */
    }
    st.fail_at = -1;
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}

/* Every consecutive pair of channels in a witness is physically chained:
   the link of one ends at the switch the next leaves from. */
static void check_witness(const ibr_topo *t, const ibr_channel *c, size_t n)
{
    CU_ASSERT(n >= 2);
    for (size_t i = 0; i < n; i++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, c[i].sw),
                                                 c[i].port), 0);
        CU_ASSERT_EQUAL(ibr_topo_node_switch(t, pi.remote_node), c[(i + 1) % n].sw);
    }
}

static void test_minhop_loops(void)
{
    /* rings and tori: minhop has credit loops */
    static const char *cyclic[] = {"torus:dims=4x4,hosts=1", "torus:dims=5,hosts=1",
                                   "torus:dims=3x3x3,hosts=2", "hypercube:dim=4,hosts=1"};
    for (size_t i = 0; i < sizeof cyclic / sizeof *cyclic; i++) {
        ibr_topo *t = ibr_test_topo(NULL, cyclic[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0); /* valid, yet ... */
        CU_ASSERT_EQUAL(rep.deadlock_free, 0);
        CU_ASSERT(rep.credit_loop_length >= 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(rep.credit_loop, "VL 0"));
        ibr_channel c[256];
        size_t n = 0;
        CU_ASSERT_EQUAL(ibr_result_find_credit_loop(c, 256, &n, r), IBR_EDEADLOCK);
        CU_ASSERT_EQUAL(n, rep.credit_loop_length);
        check_witness(t, c, n);
        CU_ASSERT_EQUAL(ibr_result_find_credit_loop(NULL, 0, &n, r), IBR_EDEADLOCK);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* trees: none */
    static const char *trees[] = {"fattree:levels=2,radix=8", "fattree:levels=3,radix=8",
                                  "fattree:levels=3,radix=12,hosts=2", "mesh:dims=6,hosts=2"};
    for (size_t i = 0; i < sizeof trees / sizeof *trees; i++) {
        ibr_topo *t = ibr_test_topo(NULL, trees[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        CU_ASSERT_STRING_EQUAL(rep.credit_loop, "");
        size_t n = 7;
        CU_ASSERT_EQUAL(ibr_result_find_credit_loop(NULL, 0, &n, r), 0);
        CU_ASSERT_EQUAL(n, 0);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

static void test_layered(void)
{
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    ibr_test_layered cfg = {0, 2};
    ibr_engine e = {IBR_ENGINE_VERSION, "layered", NULL, IBR_CAP_SL, ibr_test_layered_route,
                    &cfg};
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    /* 5 switches: no ties, every path at most 2 hops */
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=5,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int mode = 0; mode <= 3; mode++) {
        cfg.mode = mode;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "layered,no_fallback", NULL), 0);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, mode != 0);
        if (mode >= 2)
            CU_ASSERT_PTR_NULL(strstr(rep.credit_loop, "VL 0")); /* nothing on VL 0/1 */
        /* trace from a host to the host three switches away */
        uint16_t src = 0, dst = 0;
        for (unsigned l = 1; l <= ibr_topo_max_lid(t); l++) {
            uint32_t node;
            if (ibr_topo_lid_owner(&node, NULL, t, (uint16_t)l) < 0 ||
                ibr_topo_node_switch(t, node) != IBR_NONE)
                continue;
            if (!src)
                src = (uint16_t)l;
            else
                dst = (uint16_t)l; /* the last host */
        }
        ibr_trace_hop hops[16];
        size_t n = 0;
        unsigned sl = 99;
        CU_ASSERT_EQUAL(ibr_result_trace(hops, 16, &n, &sl, r, src, dst), 0);
        CU_ASSERT(n >= 2);
        CU_ASSERT(hops[0].in_port != 0);
        if (mode >= 2)
            CU_ASSERT_EQUAL(hops[0].vl, sl + 2);
        if (mode == 0)
            CU_ASSERT_EQUAL(sl, 0);
        for (size_t i = 0; i + 1 < n; i++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, hops[i].sw), hops[i].out_port);
            CU_ASSERT_EQUAL(ibr_topo_node_switch(t, pi.remote_node), hops[i + 1].sw);
            CU_ASSERT_EQUAL(pi.remote_port, hops[i + 1].in_port);
        }
        CU_ASSERT_EQUAL(ibr_result_trace(hops, 1, &n, NULL, r, src, dst), IBR_ERANGE);
        CU_ASSERT_EQUAL(ibr_result_trace(hops, 16, &n, NULL, r, src, 999), IBR_ENOTFOUND);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* Direct filling of a switch graph's layer equals single additions: the
   weights and the edge count, the order dropped when a new edge disagrees
   with it (the layers are cyclic here, so ibr__cdg_order must say so), a
   search of the layer ended when edges are born and not otherwise. */
static void test_fill(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    enum { NE = 200 };
    uint32_t n = t->n_adj;
    ibr__cdg *gen = NULL, *g = NULL, *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create(&gen, NULL, n, 1), 0);
    CU_ASSERT_PTR_NULL(ibr__cdg_fill_begin(gen, 0)); /* general graphs: no */
    ibr__cdg_destroy(gen);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&g, t, 2), 0);
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&r, t, 2), 0);
    CU_ASSERT_PTR_NULL(ibr__cdg_fill_begin(g, 2));
    srand(5);
    uint32_t pairs[2 * NE];
    uint64_t w[NE];
    for (int i = 0; i < NE; i++) {
        pairs[2 * i] = (uint32_t)rand() % n;
        pairs[2 * i + 1] = random_next(t, pairs[2 * i]);
        w[i] = 1 + (uint64_t)(rand() % 6);
        for (unsigned l = 0; l < 2; l++)
            CU_ASSERT_EQUAL(ibr__cdg_add_edge(r, l, pairs[2 * i], pairs[2 * i + 1], w[i]), 0);
    }
    /* layer 1: filled from empty */
    uint64_t *lw = ibr__cdg_fill_begin(g, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lw);
    for (int i = 0; i < NE; i++)
        lw[ibr__cdg_slot(g, pairs[2 * i], pairs[2 * i + 1])] += w[i];
    ibr__cdg_fill_end(g, 1);
    uint64_t *ref = snapshot(r, 1, n);
    CU_ASSERT(same_as(g, 1, n, ref));
    free(ref);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 1), ibr__cdg_edge_count(r, 1));
    CU_ASSERT_FATAL(!acyclic(g, 1, n));
    CU_ASSERT_EQUAL(ibr__cdg_order(g, 1), 1);
    /* layer 0: half added first, the other half filled under a search */
    for (int i = 0; i < NE / 2; i++)
        CU_ASSERT_EQUAL(ibr__cdg_add_edge(g, 0, pairs[2 * i], pairs[2 * i + 1], w[i]), 0);
    size_t half = ibr__cdg_edge_count(g, 0);
    ibr__cdg_cycle cy;
    CU_ASSERT_EQUAL(ibr__cdg_search_begin(g, 0), 0);
    lw = ibr__cdg_fill_begin(g, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lw);
    for (int i = NE / 2; i < NE; i++)
        lw[ibr__cdg_slot(g, pairs[2 * i], pairs[2 * i + 1])] += w[i];
    ibr__cdg_fill_end(g, 0);
    ref = snapshot(r, 0, n);
    CU_ASSERT(same_as(g, 0, n, ref));
    free(ref);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), ibr__cdg_edge_count(r, 0));
    CU_ASSERT(ibr__cdg_edge_count(g, 0) > half);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &cy), IBR_ESTATE);
    /* more weight on edges that exist: no edge born, the search goes on */
    CU_ASSERT_EQUAL(ibr__cdg_search_begin(g, 0), 0);
    lw = ibr__cdg_fill_begin(g, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lw);
    lw[ibr__cdg_slot(g, pairs[0], pairs[1])] += 3;
    ibr__cdg_fill_end(g, 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g, 0), ibr__cdg_edge_count(r, 0));
    CU_ASSERT_EQUAL(ibr__cdg_edge_weight(g, 0, pairs[0], pairs[1]),
                    ibr__cdg_edge_weight(r, 0, pairs[0], pairs[1]) + 3);
    CU_ASSERT_EQUAL(ibr__cdg_search_next(g, &cy), 0);
    CU_ASSERT(cy.len > 0);
    ibr__cdg_destroy(g);
    ibr__cdg_destroy(r);
    ibr_topo_destroy(t);
}

/* A channel's possible edges have consecutive slots in its successors'
   order (cdg.h; dfsssp looks up one slot per channel and adds), and the
   slots of all channels cover 0 .. count - 1 once each. */
static void test_slots_consecutive(void)
{
    static const char *specs[] = {"fattree:levels=3,radix=8", "torus:dims=3x3x3,hosts=1,parallel=2",
                                  "random:switches=30,degree=5,hosts=1,seed=4",
                                  "dragonfly:a=4,p=2,h=2,g=5"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr__cdg *g = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr__cdg_create_topo(&g, t, 1), 0);
        size_t ns = ibr__cdg_slot_count(g), seen = 0;
        CU_ASSERT_FATAL(ns > 0);
        uint8_t *used = calloc(ns, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(used);
        for (uint32_t a = 0; a < t->n_adj; a++) {
            uint32_t h = t->adj[a].sw, b0 = t->adj_off[h], b1 = t->adj_off[h + 1];
            uint32_t s0 = ibr__cdg_slot(g, a, b0);
            CU_ASSERT_NOT_EQUAL_FATAL(s0, IBR_NONE);
            for (uint32_t b = b0; b < b1; b++) {
                uint32_t k = ibr__cdg_slot(g, a, b);
                CU_ASSERT_EQUAL(k, s0 + (b - b0));
                if (k < ns && !used[k]) {
                    used[k] = 1;
                    seen++;
                }
            }
            if (b0 > 0)
                CU_ASSERT_EQUAL(ibr__cdg_slot(g, a, b0 - 1), IBR_NONE);
            if (b1 < t->n_adj)
                CU_ASSERT_EQUAL(ibr__cdg_slot(g, a, b1), IBR_NONE);
        }
        CU_ASSERT_EQUAL(seen, ns);
        free(used);
        ibr__cdg_destroy(g);
        ibr_topo_destroy(t);
    }
}

/* Random sequences of every kind of change, both storages, on fabrics
   whose channels have more possible edges than a word of the switch
   graph's live-slot bitmask holds: after each step the live edges
   enumerated (the searches' walk) are those of positive weight, also
   after calls that fail and take their changes back. */
static void test_live_edges(void)
{
    static const char *specs[] = {"torus:dims=3x3,hosts=1,parallel=20",
                                  "random:switches=20,degree=5,hosts=1,seed=7"};
    enum { PL = 4, NB = 6 };
    for (size_t f = 0; f < sizeof specs / sizeof *specs; f++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[f]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        uint32_t n = t->n_adj;
        for (int dense = 0; dense <= 1; dense++) {
            ibr__cdg *g = NULL, *h = NULL;
            int rc_ = dense ? ibr__cdg_create_topo(&g, t, 3) : ibr__cdg_create(&g, NULL, n, 3);
            CU_ASSERT_EQUAL_FATAL(rc_, 0);
            rc_ = dense ? ibr__cdg_create_topo(&h, t, 1) : ibr__cdg_create(&h, NULL, n, 1);
            CU_ASSERT_EQUAL_FATAL(rc_, 0);
            srand(77 + (unsigned)f);
            int bad = 0;
            for (int i = 0; i < 400 && !bad; i++) {
                uint32_t p[NB * PL], len[NB];
                uint64_t w[NB];
                for (int q = 0; q < NB; q++) {
                    p[q * PL] = (uint32_t)rand() % n;
                    for (int k = 1; k < PL; k++)
                        p[q * PL + k] = random_next(t, p[q * PL + k - 1]);
                    len[q] = PL;
                    w[q] = 1 + (uint64_t)(rand() % 3);
                }
                unsigned l = (unsigned)rand() % 3, o = (l + 1) % 3;
                uint64_t big = (uint64_t)1 << 62;
                switch (rand() % 7) {
                case 0:
                    ibr__cdg_add_path(g, l, p, PL, w[0], rand() % 2);
                    break;
                case 1:
                    ibr__cdg_remove_path(g, l, p, PL, w[0]); /* often fails */
                    ibr__cdg_remove_path(g, l, p, 2, 1);
                    break;
                case 2:
                    ibr__cdg_move_path(g, l, o, p, PL, w[0], rand() % 2);
                    break;
                case 3: /* a batch that may fail half-way and take it back */
                    ibr__cdg_move_paths(g, l, o, p, len, w, NB);
                    break;
                case 4: { /* edges, the last one overflowing half of the time */
                    uint32_t pr[2 * (PL - 1)];
                    uint64_t ew[PL - 1];
                    for (int k = 0; k + 1 < PL; k++) {
                        pr[2 * k] = p[k];
                        pr[2 * k + 1] = p[k + 1];
                        ew[k] = rand() % 2 && k == PL - 2 ? UINT64_MAX : w[k];
                    }
                    ibr__cdg_add_edges(g, l, pr, ew, PL - 1);
                    break;
                }
                case 5: /* merge another graph in, or fail on overflow */
                    ibr__cdg_add_path(h, 0, p, PL, rand() % 4 ? w[0] : big, 0);
                    ibr__cdg_merge(g, l, h, 0);
                    ibr__cdg_merge(g, l, h, 0);
                    break;
                default:
                    ibr__cdg_search_begin(g, l);
                    if (dense) {
                        uint64_t *lw = ibr__cdg_fill_begin(g, l);
                        CU_ASSERT_PTR_NOT_NULL_FATAL(lw);
                        lw[ibr__cdg_slot(g, p[0], p[1])] += w[0];
                        ibr__cdg_fill_end(g, l);
                    }
                    break;
                }
                for (unsigned k = 0; k < 3; k++)
                    if (!live_agrees(g, t, k))
                        bad = 1;
            }
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT(ibr__cdg_edge_count(g, 0) + ibr__cdg_edge_count(g, 1) > 20);
            CU_ASSERT_EQUAL(ibr__cdg_out_edges(g, 3, 0, NULL, 0), 0);
            CU_ASSERT_EQUAL(ibr__cdg_out_edges(g, 0, n, NULL, 0), 0);
            ibr__cdg_destroy(h);
            ibr__cdg_destroy(g);
        }
        ibr_topo_destroy(t);
    }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"graph basics", test_graph_basics},
        {"switch graphs: slots, search resumed, moves", test_switch_graph},
        {"switch graphs: a channel's slots are consecutive", test_slots_consecutive},
        {"merge", test_merge},
        {"random checked insertions, both storages", test_graph_random},
        {"a start order changes no answer", test_start_order},
        {"batches of edges", test_add_edges},
        {"direct filling of a layer", test_fill},
        {"batches of moves", test_move_batch},
        {"live edges follow the weights, every kind of change", test_live_edges},
        {"random cycle breaking, resumed search", test_search_resumed},
        {"allocation failure", test_graph_oom},
        {"minhop: loops on rings and tori, none on trees", test_minhop_loops},
        {"VL layering, SL2VL and trace", test_layered},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("cdg", tests);
}
