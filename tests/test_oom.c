/* Allocation failure: every call fails cleanly with IBR_ENOMEM at every
   allocation until it succeeds, and nothing leaks (libuv's test-loop-oom). */
#include <string.h>

#include "harness.h"

static void test_freeze_route_verify(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=4"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
    long base = st.live;

    /* freeze */
    ibr_topo *t = NULL;
    long n;
    for (n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        int rc = ibr_fabric_freeze(&t, f);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_PTR_NULL(t);
        CU_ASSERT_EQUAL(st.live, base);
    }
    CU_ASSERT(n > 3);

    /* route */
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 2;
    {
        ibr_result *r = ibr_test_route_oom(&n, &st, t, "minhop", &o);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        ibr_result_destroy(r);
    }
    CU_ASSERT(n > 3);

    /* verify */
    st.fail_at = -1;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    long base_r = st.live;
    for (n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION, .routes_checked = 7};
        int rc = ibr_result_verify(&rep, r);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_EQUAL(rep.routes_checked, 7); /* left as it was */
        CU_ASSERT_EQUAL(st.live, base_r);
    }
    st.fail_at = -1;
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    CU_ASSERT_EQUAL(st.live, base);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL(st.live, 1); /* the context itself */
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}

static void test_builder(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    for (long n = 0;; n++) {
        st.fail_at = -1;
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        st.fail_at = n;
        st.calls = 0;
        int rc = 0;
        for (unsigned i = 0; i < 40 && rc == 0; i++)
            rc = ibr_fabric_add_node(NULL, f, i < 10 ? IBR_NODE_SWITCH : IBR_NODE_CA,
                                     0x100 + 0x10 * (uint64_t)i, 8, "n");
        for (unsigned i = 0; i < 30 && rc == 0; i++)
            rc = ibr_fabric_add_link(f, 10 + i, 1, i % 10, 1 + i / 10, NULL);
        if (rc == 0)
            rc = ibr_fabric_assign_lids(f, 2, 0);
        uint32_t nodes = ibr_fabric_node_count(f);
        ibr_fabric_destroy(f);
        CU_ASSERT_EQUAL(st.live, 1); /* the context itself */
        if (rc == 0) {
            CU_ASSERT_EQUAL(nodes, 40);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
    }
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"freeze, route, verify", test_freeze_route_verify},
        {"builder", test_builder},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("oom", tests);
}
