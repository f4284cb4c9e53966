/* Engines count the data VLs they may use from the ports, as OpenSM 3.3
   does: dfsssp, Nue and LASH take the minimum OperVLs over switch ports
   with a peer, capped by ibr_options::max_vls (torus-2QoS: test_torus2qos.c).
   On fabrics whose ports have fewer operational VLs the engines use no more,
   stay deadlock-free, or fail naming the VLs the ports give. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static ibr_fabric *gen(const char *spec)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    return f;
}

static ibr_topo *freeze(ibr_fabric *f)
{
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    return t;
}

/* Every path SL, and every VL an identity SL2VL sends it to, is below
   vls; so is vls_used. */
static void check_within(const ibr_topo *t, const ibr_result *r, unsigned vls)
{
    CU_ASSERT(ibr_result_vls_used(r) <= vls);
    unsigned max = ibr_topo_max_lid(t), worst = 0;
    for (unsigned s = 1; s <= max; s++)
        for (unsigned d = 1; d <= max; d++) {
            unsigned sl = ibr_result_path_sl(r, (uint16_t)s, (uint16_t)d);
            if (sl > worst)
                worst = sl;
        }
    CU_ASSERT(worst < vls);
    if (worst >= vls)
        fprintf(stderr, "\n    %s: SL %u with %u VLs\n", ibr_result_engine(r), worst, vls);
}

/* The first attempt failed with code and a message holding each of want. */
static void expect_fail(const ibr_topo *t, const char *chain, const ibr_options *o, int code,
                        const char *want1, const char *want2)
{
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, chain, o), IBR_EUNROUTABLE);
    int st = 0;
    const char *msg = NULL;
    CU_ASSERT_EQUAL(ibr_result_attempt(NULL, &st, &msg, r, 0), 0);
    CU_ASSERT_EQUAL(st, code);
    int ok = msg && strstr(msg, want1) && (!want2 || strstr(msg, want2));
    CU_ASSERT(ok);
    if (!ok)
        fprintf(stderr, "\n    %s: message '%s'\n", chain, msg ? msg : "(none)");
    ibr_result_destroy(r);
}

static void set_vl_cap(ibr_fabric *f, uint32_t node, unsigned port, unsigned cap)
{
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.vl_cap = cap;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, node, port, &a), 0);
}

/* dfsssp on a 4x4x4 torus (2 layers needed): the ports' VLs bound the
   spread, one VL is too few, and one port is enough to lower the count
   (a switch-to-switch cable or one facing a CA; a down cable does not
   count). */
static void test_dfsssp(void)
{
    static const unsigned caps[] = {2, 4, 8, 15};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "torus:dims=4x4x4,hosts=1,vls=%u", caps[i]);
        ibr_fabric *f = gen(spec);
        ibr_topo *t = freeze(f);
        ibr_options o = IBR_OPTIONS_INIT;
        o.max_vls = 15;
        ibr_result *r = ibr_test_route(NULL, t, "dfsssp,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check_within(t, r, caps[i]);
        /* the spare VLs are all used: the spread follows the ports */
        CU_ASSERT_EQUAL(ibr_result_vls_used(r), caps[i]);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
    /* one VL: dfsssp needs two and says where the one comes from */
    ibr_fabric *f = gen("torus:dims=4x4x4,hosts=1,vls=1");
    ibr_topo *t = freeze(f);
    ibr_options o = IBR_OPTIONS_INIT;
    expect_fail(t, "dfsssp,no_fallback", &o, IBR_ENOVL, "1 available", "ports' OperVLs 1");
    /* and the chain falls back to an engine that needs no VLs */
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "dfsssp,minhop", &o), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    /* one end of one switch-to-switch cable with VLCap 2 */
    f = gen("torus:dims=4x4x4,hosts=1");
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_port_info(&pi, f, 5, 1), 0);
    CU_ASSERT_FATAL(pi.remote_node < 64); /* a switch */
    set_vl_cap(f, 5, 1, 2);
    t = freeze(f);
    r = ibr_test_route(NULL, t, "dfsssp,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 2);
    check_within(t, r, 2);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    /* the same cable down: it no longer counts */
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 5, 1, IBR_LINK_DOWN), 0);
    t = freeze(f);
    r = ibr_test_route(NULL, t, "dfsssp,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 8);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 5, 1, IBR_LINK_ACTIVE), 0);
    set_vl_cap(f, 5, 1, 0);
    /* a CA with VLCap 4: the switch port facing it runs 4 VLs */
    uint32_t ca = ibr_fabric_node_count(f) - 1;
    set_vl_cap(f, ca, 1, 4);
    t = freeze(f);
    r = ibr_test_route(NULL, t, "dfsssp,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 4);
    check_within(t, r, 4);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* Nue never needs more VLs than it has: with the ports' 1, 2 or 4 it
   routes deadlock-free within them (nue.max_vls 0 = what the fabric
   supports). */
static void test_nue(void)
{
    static const unsigned caps[] = {1, 2, 4};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "torus:dims=4x4x3,hosts=1,vls=%u", caps[i]);
        ibr_fabric *f = gen(spec);
        ibr_topo *t = freeze(f);
        ibr_options o = IBR_OPTIONS_INIT;
        o.max_vls = 15;
        ibr_result *r = ibr_test_route(NULL, t, "nue,no_fallback", &o,
                                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_UNRESTRICTED);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check_within(t, r, caps[i]);
        CU_ASSERT_EQUAL(ibr_result_vls_used(r), caps[i]);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

/* LASH needs 5 layers on a 4x4x4 torus (OpenSM 3.3.23 measured): ports with
   8 VLs route it, ports with 4 make it fail naming them, and start_vl
   counts against the ports' VLs. */
static void test_lash(void)
{
    ibr_fabric *f = gen("torus:dims=4x4x4,hosts=1");
    ibr_topo *t = freeze(f);
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    ibr_result *r = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_within(t, r, 8);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    f = gen("torus:dims=4x4x4,hosts=1,vls=4");
    t = freeze(f);
    expect_fail(t, "lash,no_fallback", &o, IBR_ENOVL, "only 4 are available",
                "ports' OperVLs 4");
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    f = gen("mesh:dims=4x4,hosts=1,vls=2");
    t = freeze(f);
    ibr_param p = {"lash.start_vl", "1"};
    o.params = &p;
    o.n_params = 1;
    r = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_within(t, r, 2);
    ibr_result_destroy(r);
    p.value = "2";
    expect_fail(t, "lash,no_fallback", &o, IBR_ENOVL,
                "start_vl 2 leaves no layer below the 2 VLs available", "ports' OperVLs 2");
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* ibr_options::max_vls still caps: ports with 15 VLs, max_vls 2. */
static void test_max_vls_caps(void)
{
    ibr_fabric *f = gen("torus:dims=4x4x4,hosts=1,vls=15");
    ibr_topo *t = freeze(f);
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 2;
    static const char *chains[] = {"dfsssp,no_fallback", "nue,no_fallback"};
    for (size_t i = 0; i < 2; i++) {
        ibr_result *r = ibr_test_route(NULL, t, chains[i], &o, IBR_TEST_DEADLOCK_FREE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check_within(t, r, 2);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"dfsssp: the ports' OperVLs", test_dfsssp},
        {"nue: the ports' OperVLs", test_nue},
        {"lash: the ports' OperVLs and start_vl", test_lash},
        {"max_vls still caps", test_max_vls_caps},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("portvls", tests);
}
