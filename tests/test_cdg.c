/* The channel dependency graph module, credit-loop detection on real
   routings, and route tracing. */
#include <stdlib.h>
#include <string.h>

#include "cdg/cdg.h"
#include "harness.h"
#include "ibroute/sys/engine.h"

/* Is b reachable from a in g? (independent check, plain BFS) */
static int reaches(ibr__cdg *g, uint32_t n, uint32_t a, uint32_t b)
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
            if (!seen[w] && ibr__cdg_edge_refs(g, v, w)) {
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

static void test_graph_basics(void)
{
    ibr__cdg *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create(&g, NULL, 6), 0);
    uint32_t p1[] = {0, 1, 2, 3};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p1, 4, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g), 3);
    /* a path closing 3 -> 0 is rejected and leaves nothing behind */
    uint32_t p2[] = {4, 3, 0};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p2, 3, 1), 1);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g), 3);
    CU_ASSERT_EQUAL(ibr__cdg_edge_refs(g, 4, 3), 0);
    CU_ASSERT_EQUAL(ibr__cdg_would_cycle(g, p2, 3), 1);
    uint32_t p3[] = {4, 5, 0};
    CU_ASSERT_EQUAL(ibr__cdg_would_cycle(g, p3, 3), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_count(g), 3); /* would_cycle changes nothing */
    /* reference counts */
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p1, 2, 1), 0);
    CU_ASSERT_EQUAL(ibr__cdg_edge_refs(g, 0, 1), 2);
    ibr__cdg_remove_path(g, p1, 4);
    CU_ASSERT_EQUAL(ibr__cdg_edge_refs(g, 0, 1), 1);
    CU_ASSERT_EQUAL(ibr__cdg_edge_refs(g, 1, 2), 0);
    /* now 3 -> 0 is fine: nothing leads from 0 to 3 any more */
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p2, 3, 1), 0);
    uint32_t *cyc = NULL;
    size_t len = 9;
    CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, &cyc, &len), 0);
    CU_ASSERT_EQUAL(len, 0);
    /* unchecked insertion may close a cycle; the witness is a real cycle */
    uint32_t p4[] = {1, 4};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p4, 2, 0), 0); /* 4->3->0->1->4 */
    CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, &cyc, &len), 0);
    CU_ASSERT_EQUAL(len, 4);
    for (size_t i = 0; i < len; i++)
        CU_ASSERT(ibr__cdg_edge_refs(g, cyc[i], cyc[(i + 1) % len]) > 0);
    free(cyc);
    /* checked insertion refuses to work on a cyclic graph */
    uint32_t p5[] = {2, 5};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p5, 2, 1), IBR_ESTATE);
    /* ... until the cycle is broken */
    ibr__cdg_remove_path(g, p4, 2);
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, p5, 2, 1), 0);
    uint32_t bad[] = {1, 6};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, bad, 2, 1), IBR_ERANGE);
    uint32_t self[] = {2, 2};
    CU_ASSERT_EQUAL(ibr__cdg_add_path(g, self, 2, 1), 1);
    ibr__cdg_destroy(g);
}

/* Random checked insertions: the graph stays acyclic, and an edge is
   rejected exactly when its head already reaches its tail. */
static void test_graph_random(void)
{
    const uint32_t n = 60;
    ibr__cdg *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr__cdg_create(&g, NULL, n), 0);
    srand(12345);
    unsigned rejected = 0, added = 0, wrong = 0;
    for (int i = 0; i < 900; i++) {
        uint32_t a = (uint32_t)rand() % n, b = (uint32_t)rand() % n;
        int expect_cycle = a == b || reaches(g, n, b, a);
        uint32_t p[] = {a, b};
        int rc = ibr__cdg_add_path(g, p, 2, 1);
        if (rc == 1)
            rejected++;
        else
            added++;
        if ((rc == 1) != expect_cycle)
            wrong++;
        if (i % 7 == 0 && rc == 0)
            ibr__cdg_remove_path(g, p, 2); /* removals keep the order valid */
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT(rejected > 50);
    CU_ASSERT(added > 50);
    uint32_t *cyc = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(ibr__cdg_find_cycle(g, &cyc, &len), 0);
    CU_ASSERT_EQUAL(len, 0);
    ibr__cdg_destroy(g);
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
    for (int mode = 0; mode <= 2; mode++) {
        cfg.mode = mode;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "layered,no_fallback", NULL), 0);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, mode != 0);
        if (mode == 2)
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
        if (mode == 2)
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

int main(void)
{
    CU_TestInfo tests[] = {
        {"graph basics", test_graph_basics},
        {"random checked insertions", test_graph_random},
        {"minhop: loops on rings and tori, none on trees", test_minhop_loops},
        {"VL layering, SL2VL and trace", test_layered},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("cdg", tests);
}
