/* The verifier on hand-built broken and valid tables, with hand-computed
   statistics. */
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

/* A custom engine that copies the LFTs of a reference result and then
   overwrites one entry. */
typedef struct mutation {
    const ibr_result *ref;
    uint32_t sw;
    uint16_t lid;
    unsigned port;
    int active;
} mutation;

static int copy_fn(ibr_run *run, void *user)
{
    mutation *m = user;
    const ibr_topo *t = ibr_run_topo(run);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        memcpy(ibr_run_lft(run, s), ibr_result_lft(m->ref, s), ibr_result_lft_size(m->ref));
    if (m->active)
        ibr_run_lft(run, m->sw)[m->lid] = (uint8_t)m->port;
    return 0;
}

static mutation mut;
static ibr_context *ctx;

/* A ring of n switches (GUIDs ascending so switch index = ring position,
   port 1 to the next, port 2 to the previous), one host on port 3. */
static ibr_fabric *ring(unsigned n, int close)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, ctx);
    for (unsigned i = 0; i < n; i++)
        ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, (uint64_t)(i + 1) << 56, 4, "ring");
    for (unsigned i = 0; i + 1 < n || (close && i < n); i++)
        ibr_fabric_add_link(f, i, 1, (i + 1) % n, 2, NULL);
    for (unsigned i = 0; i < n; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, n + i, 1, i, 3, NULL);
        /* host i gets LID 10 + i, switch i LID 1 + i */
        ibr_fabric_set_lid(f, i, 0, (uint16_t)(1 + i), 0);
        ibr_fabric_set_lid(f, n + i, 1, (uint16_t)(10 + i), 0);
    }
    return f;
}

static int run_mut(ibr_verify_report *rep, const ibr_topo *t, ibr_result *ref, uint32_t sw,
                   uint16_t lid, unsigned port)
{
    mut = (mutation){ref, sw, lid, port, 1};
    ibr_result *r = NULL;
    int rc = ibr_route(&r, t, "copy,no_fallback", NULL);
    CU_ASSERT_EQUAL(rc, 0);
    rep->version = IBR_VERIFY_REPORT_VERSION;
    rc = ibr_verify(rep, t, r);
    ibr_result_destroy(r);
    return rc;
}

static void test_line_statistics(void)
{
    ibr_fabric *f = ring(3, 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_verify(&rep, t, r), 0);
    CU_ASSERT_EQUAL(rep.routes_checked, 3 * 6);
    CU_ASSERT_EQUAL(rep.routes_ok, 18);
    CU_ASSERT_EQUAL(rep.pairs, 6);
    CU_ASSERT_EQUAL(rep.pairs_ok, 6);
    CU_ASSERT_DOUBLE_EQUAL(rep.avg_hops, 20.0 / 6.0, 1e-9);
    CU_ASSERT_EQUAL(rep.max_hops, 4);
    CU_ASSERT_DOUBLE_EQUAL(rep.avg_stretch, 1.0, 1e-9);
    CU_ASSERT_EQUAL(rep.links, 4);
    CU_ASSERT_EQUAL(rep.max_link_load, 2);
    CU_ASSERT_DOUBLE_EQUAL(rep.mean_link_load, 2.0, 1e-9);
    CU_ASSERT_EQUAL(rep.deadlock_free, 1); /* a line has no cycle */
    CU_ASSERT_EQUAL(rep.credit_loop_length, 0);
    CU_ASSERT_STRING_EQUAL(rep.first_error, "");
    /* version and argument checks */
    rep.version = 0;
    CU_ASSERT_EQUAL(ibr_verify(&rep, t, r), IBR_EVERSION);
    rep.version = IBR_VERIFY_REPORT_VERSION;
    CU_ASSERT_EQUAL(ibr_verify(&rep, NULL, r), IBR_EINVAL);
    ibr_topo *t2 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t2, f), 0);
    CU_ASSERT_EQUAL(ibr_verify(&rep, t2, r), IBR_EINVAL); /* other topology */
    ibr_topo_destroy(t2);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_broken_tables(void)
{
    ibr_fabric *f = ring(4, 1);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    ibr_verify_report rep;
    /* host 2 (LID 12) is two hops from switch 0 either way */
    unsigned p0 = ibr_result_lft_port(ref, 0, 12);
    CU_ASSERT(p0 == 1 || p0 == 2);
    uint32_t mid = p0 == 1 ? 1 : 3; /* the switch after 0 on that way */
    /* missing entry */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, IBR_NO_ROUTE), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.missing, 1);
    CU_ASSERT_EQUAL(rep.routes_ok, rep.routes_checked - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "LID 12"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "no route"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "0x0100000000000000"));
    CU_ASSERT(rep.pairs_ok < rep.pairs);
    /* loop: the middle switch sends it back to switch 0 */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, mid, 12, mid == 1 ? 2 : 1), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.loops, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "forwarding loop"));
    /* port not cabled, port beyond the switch, port 0 */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 4), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 9), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 0), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    /* out through a host that is not the destination */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 3), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.dead_end, 1);
    /* the destination switch delivers to the wrong port: a loop back */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 2, 12, 1), IBR_EROUTES);
    CU_ASSERT(rep.loops >= 1);
    /* non-minimal but valid: switch 0 reaches host 1 the long way */
    CU_ASSERT_EQUAL(ibr_result_lft_port(ref, 0, 11), 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 11, 2), 0);
    CU_ASSERT_EQUAL(rep.nonminimal, 1);
    CU_ASSERT_EQUAL(rep.max_hops, 5);
    CU_ASSERT(rep.max_stretch > 1.6 && rep.max_stretch < 1.7); /* 5 / 3 */
    /* a route toward a LID nobody owns is harmless */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 5, 1), 0);
    CU_ASSERT_EQUAL(rep.spurious, 1);

    /* a down link: switch 0's way to host 1 is the failed cable */
    ibr_fabric_set_link_state(f, 0, 1, IBR_LINK_DOWN);
    ibr_topo *td = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&td, f), 0);
    mut = (mutation){ref, 0, 0, 0, 0};
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, td, "copy,no_fallback", NULL), 0);
    rep.version = IBR_VERIFY_REPORT_VERSION;
    CU_ASSERT_EQUAL(ibr_verify(&rep, td, r), IBR_EROUTES);
    CU_ASSERT(rep.down_link > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "down link"));
    ibr_result_destroy(r);
    /* minhop on the faulty ring is valid again, the long way round */
    CU_ASSERT_EQUAL(ibr_route(&r, td, "minhop", NULL), 0);
    CU_ASSERT_EQUAL(ibr_verify(&rep, td, r), 0);
    CU_ASSERT_EQUAL(rep.links, 6);
    CU_ASSERT_EQUAL(rep.max_hops, 5);
    ibr_result_destroy(r);
    ibr_topo_destroy(td);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

int main(void)
{
    if (ibr_context_create(&ctx, NULL) < 0)
        return 2;
    ibr_engine e = {IBR_ENGINE_VERSION, "copy", "copies and mutates", 0, copy_fn, &mut};
    if (ibr_context_register_engine(ctx, &e) < 0)
        return 2;
    CU_TestInfo tests[] = {
        {"statistics on a line", test_line_statistics},
        {"broken tables", test_broken_tables},
        CU_TEST_INFO_NULL,
    };
    int rc = ibr_test_main("verify", tests);
    ibr_context_destroy(ctx);
    return rc;
}
