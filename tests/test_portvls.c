/* What engines do with the ports' PortInfo facts, as OpenSM 3.3 does.
   VLs: dfsssp, Nue and LASH take the minimum OperVLs over switch ports
   with a peer, capped by ibr_options::max_vls (torus-2QoS: test_torus2qos.c);
   on fabrics whose ports have fewer operational VLs the engines use no more,
   stay deadlock-free, or fail naming the VLs the ports give. Throttled
   cables: sssp, dfsssp and Nue route around them with the setting
   avoid_throttled_links. */
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
    /* one VL: too few for any minimal routing of a ring of 5 (a 4x4x4
       torus, a 6-cube, fits one unit by unit); dfsssp says where the one
       comes from */
    ibr_fabric *f = gen("torus:dims=5x5,hosts=1,vls=1");
    ibr_topo *t = freeze(f);
    CU_ASSERT_EQUAL(ibr_topo_data_vls(t), 1);
    CU_ASSERT_EQUAL(ibr_topo_data_vls(NULL), 0);
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
    CU_ASSERT_EQUAL(ibr_topo_data_vls(t), 2);
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
    /* an OperVLs set below the VLCap (the SM's max_op_vls) counts too */
    ibr_fabric *f = gen("torus:dims=4x4x3,hosts=1");
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.oper_vls = 2;
    for (uint32_t n = 0; n < 48; n++)
        for (unsigned p = 1; p <= 6; p++)
            CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, n, p, &a), 0);
    ibr_topo *t = freeze(f);
    CU_ASSERT_EQUAL(ibr_topo_data_vls(t), 2);
    ibr_result *r = ibr_test_route(NULL, t, "nue,no_fallback", NULL,
                                   IBR_TEST_DEADLOCK_FREE | IBR_TEST_UNRESTRICTED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_within(t, r, 2);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
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

/* Make the cable on (node, port) throttled: both ends enable 12x, it runs
   at 4x (one_end: only this end does, so it is not throttled). */
static void throttle(ibr_fabric *f, uint32_t node, unsigned port, int one_end)
{
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.width_enabled = IBR_WIDTH_4X | IBR_WIDTH_12X;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, node, port, &a), 0);
    if (one_end)
        return;
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_port_info(&pi, f, node, port), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, pi.remote_node, pi.remote_port, &a), 0);
}

/* Routes (LFT entries) leaving through a port of the list. */
static size_t routes_over(const ibr_topo *t, const ibr_result *r, const uint32_t (*ports)[2],
                          size_t n)
{
    size_t hits = 0;
    unsigned max = ibr_topo_max_lid(t);
    for (size_t i = 0; i < n; i++) {
        uint32_t sw = ibr_topo_node_switch(t, ports[i][0]);
        const uint8_t *lft = ibr_result_lft(r, sw);
        for (unsigned lid = 1; lid <= max; lid++)
            hits += lft[lid] == ports[i][1];
    }
    return hits;
}

static ibr_result *route_avoiding(const ibr_topo *t, const char *engine, int on)
{
    char chain[64], name[64];
    snprintf(chain, sizeof chain, "%s,no_fallback", engine);
    snprintf(name, sizeof name, "%s.avoid_throttled_links", engine);
    ibr_param p = {name, on ? "1" : "0"};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    unsigned checks = strcmp(engine, "sssp") ? IBR_TEST_DEADLOCK_FREE : 0;
    ibr_result *r = ibr_test_route(NULL, t, chain, &o, checks);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    return r;
}

/* Multicast trees of sssp, dfsssp and nue with avoid_throttled_links
   leave the throttled cables out too: a group of every CA of the torus
   (whose tree then spans every switch) uses none of the ports in ports,
   while without the setting some tree does. */
static void check_mcast_avoids(const ibr_topo *t, const uint32_t (*ports)[2], size_t n)
{
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "group 0xC000\n");
    for (uint32_t i = 0; i < ibr_topo_node_count(t); i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_node_info(&ni, t, i), 0);
        if (ni.type == IBR_NODE_CA)
            len += (size_t)snprintf(text + len, sizeof text - len, "member 0x%016llx 1\n",
                                    (unsigned long long)ni.node_guid);
    }
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_parse(&g, t, text, len), 0);
    static const char *engines[] = {"sssp", "dfsssp", "nue"};
    size_t used_off = 0;
    for (size_t e = 0; e < 6; e++) {
        char chain[64], name[64];
        int on = e < 3;
        snprintf(chain, sizeof chain, "%s,no_fallback", engines[e % 3]);
        snprintf(name, sizeof name, "%s.avoid_throttled_links", engines[e % 3]);
        ibr_param p = {name, on ? "1" : "0"};
        ibr_options o = IBR_OPTIONS_INIT;
        o.params = &p;
        o.n_params = 1;
        o.mcast_groups = g;
        ibr_result *r = ibr_test_route(NULL, t, chain, &o, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(ibr_result_mcast_count(r), 1);
        size_t used = 0, spanned = 0;
        for (uint32_t sw = 0; sw < ibr_topo_switch_count(t); sw++) {
            uint8_t mp[256];
            size_t k = 0;
            CU_ASSERT_EQUAL_FATAL(ibr_result_mcast_ports(mp, sizeof mp, &k, r, 0xC000, sw), 0);
            spanned += k > 0;
            uint32_t node = ibr_topo_switch_node(t, sw);
            for (size_t j = 0; j < k; j++)
                for (size_t i = 0; i < n; i++)
                    used += ports[i][0] == node && ports[i][1] == mp[j];
        }
        CU_ASSERT_EQUAL(spanned, ibr_topo_switch_count(t));
        if (on) {
            CU_ASSERT_EQUAL(used, 0);
        } else {
            used_off += used;
        }
        ibr_result_destroy(r);
    }
    CU_ASSERT(used_off > 0); /* without the setting the trees do use them */
    ibr_mcast_groups_destroy(g);
}

static int same_lfts(const ibr_topo *t, const ibr_result *a, const ibr_result *b)
{
    for (uint32_t sw = 0; sw < ibr_topo_switch_count(t); sw++)
        if (memcmp(ibr_result_lft(a, sw), ibr_result_lft(b, sw), ibr_topo_max_lid(t) + 1u))
            return 0;
    return 1;
}

/* avoid_throttled_links (sssp, dfsssp, Nue): on a 4x4 torus whose x rings
   each have one throttled cable, no route uses one (every pair is still
   delivered, dfsssp and Nue stay deadlock-free), while without the
   setting routes do; a cable enabled wider at one end only is not
   throttled; a throttled cable that is the only way between switches is
   kept. */
static void test_avoid_throttled(void)
{
    static const char *engines[] = {"sssp", "dfsssp", "nue"};
    ibr_fabric *f = gen("torus:dims=4x4,hosts=2");
    /* switches x = 0 (index 4y): port 2 leads +x to x = 1, whose port 1
       comes back */
    uint32_t slow[8][2];
    size_t ns = 0;
    for (uint32_t y = 0; y < 4; y++) {
        throttle(f, 4 * y, 2, 0);
        slow[ns][0] = 4 * y;
        slow[ns++][1] = 2;
        slow[ns][0] = 4 * y + 1;
        slow[ns++][1] = 1;
    }
    ibr_topo *t = freeze(f);
    for (size_t k = 0; k < ns; k++)
        CU_ASSERT_EQUAL(ibr_topo_link_throttled(t, slow[k][0], slow[k][1]), 1);
    CU_ASSERT_EQUAL(ibr_topo_link_throttled(t, 0, 1), 0);     /* the -x cable */
    CU_ASSERT_EQUAL(ibr_topo_link_throttled(t, 0, 5), 0);     /* a CA */
    CU_ASSERT_EQUAL(ibr_topo_link_throttled(t, 0, 99), 0);    /* no such port */
    CU_ASSERT_EQUAL(ibr_topo_link_throttled(NULL, 0, 1), 0);
    for (size_t i = 0; i < 3; i++) {
        ibr_result *off = route_avoiding(t, engines[i], 0);
        ibr_result *on = route_avoiding(t, engines[i], 1);
        CU_ASSERT(routes_over(t, off, slow, ns) > 0);
        CU_ASSERT_EQUAL(routes_over(t, on, slow, ns), 0);
        ibr_result_destroy(off);
        ibr_result_destroy(on);
    }
    check_mcast_avoids(t, slow, ns);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    /* enabled wider at one end only: the link runs at the best width both
       ends enable, so it is not throttled and nothing changes */
    f = gen("torus:dims=4x4,hosts=2");
    for (uint32_t y = 0; y < 4; y++)
        throttle(f, 4 * y, 2, 1);
    t = freeze(f);
    for (size_t i = 0; i < 3; i++) {
        ibr_result *off = route_avoiding(t, engines[i], 0);
        ibr_result *on = route_avoiding(t, engines[i], 1);
        CU_ASSERT(same_lfts(t, off, on));
        ibr_result_destroy(off);
        ibr_result_destroy(on);
    }
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    /* a line of 4 switches whose middle cable is throttled: it is the only
       way, so it is kept and every pair is still routed over it */
    f = gen("mesh:dims=4,hosts=1");
    throttle(f, 1, 2, 0);
    t = freeze(f);
    const uint32_t mid[2][2] = {{1, 2}, {2, 1}};
    for (size_t i = 0; i < 3; i++) {
        ibr_result *on = route_avoiding(t, engines[i], 1);
        CU_ASSERT(routes_over(t, on, mid, 2) > 0);
        ibr_result_destroy(on);
    }
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    /* a speed below what both ends enable throttles too: a ring of 5 with
       one QDR cable both ends of which enable EDR */
    f = gen("torus:dims=5,hosts=1");
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.speed_enabled = IBR_SPEED_BIT(IBR_SPEED_QDR) | IBR_SPEED_BIT(IBR_SPEED_EDR);
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 2, &a), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 1, 1, &a), 0);
    t = freeze(f);
    const uint32_t ring[2][2] = {{0, 2}, {1, 1}};
    for (size_t i = 0; i < 3; i++) {
        ibr_result *off = route_avoiding(t, engines[i], 0);
        ibr_result *on = route_avoiding(t, engines[i], 1);
        CU_ASSERT(routes_over(t, off, ring, 2) > 0);
        CU_ASSERT_EQUAL(routes_over(t, on, ring, 2), 0);
        ibr_result_destroy(off);
        ibr_result_destroy(on);
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
        {"avoid_throttled_links", test_avoid_throttled},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("portvls", tests);
}
