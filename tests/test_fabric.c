/* The fabric builder: construction, error cases, unchanged-on-failure. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define SW(i) (0x0002c90000001000ULL + (i))
#define CA(i) (0x0002c90000100000ULL + ((uint64_t)(i) << 4))

static ibr_fabric *small_fabric(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    uint32_t s0, s1, h0;
    CU_ASSERT_EQUAL(ibr_fabric_add_node(&s0, f, IBR_NODE_SWITCH, SW(0), 8, "sw0"), 0);
    CU_ASSERT_EQUAL(ibr_fabric_add_node(&s1, f, IBR_NODE_SWITCH, SW(1), 8, "sw1"), 0);
    CU_ASSERT_EQUAL(ibr_fabric_add_node(&h0, f, IBR_NODE_CA, CA(0), 2, "h0"), 0);
    CU_ASSERT_EQUAL(s0, 0);
    CU_ASSERT_EQUAL(s1, 1);
    CU_ASSERT_EQUAL(h0, 2);
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, s0, 1, s1, 1, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, h0, 1, s0, 2, NULL), 0);
    return f;
}

/* A snapshot of everything observable, to prove failures change nothing. */
typedef struct snap {
    uint32_t n;
    ibr_node_info ni[8];
    ibr_port_info pi[8][10];
} snap;

static void take(snap *s, const ibr_fabric *f)
{
    memset(s, 0, sizeof *s);
    s->n = ibr_fabric_node_count(f);
    for (uint32_t i = 0; i < s->n && i < 8; i++) {
        s->ni[i].version = IBR_NODE_INFO_VERSION;
        ibr_fabric_node_info(&s->ni[i], f, i);
        s->ni[i].desc = NULL;
        for (unsigned p = 0; p <= s->ni[i].nports && p < 10; p++) {
            s->pi[i][p].version = IBR_PORT_INFO_VERSION;
            ibr_fabric_port_info(&s->pi[i][p], f, i, p);
        }
    }
}

static void assert_same(const ibr_fabric *f, const snap *before)
{
    snap now;
    take(&now, f);
    CU_ASSERT_EQUAL(memcmp(&now, before, sizeof now), 0);
}

static void test_build(void)
{
    ibr_fabric *f = small_fabric();
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 3);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_node_info(&ni, f, 2), 0);
    CU_ASSERT_EQUAL(ni.type, IBR_NODE_CA);
    CU_ASSERT_EQUAL(ni.nports, 2);
    CU_ASSERT_EQUAL(ni.node_guid, CA(0));
    CU_ASSERT_EQUAL(ni.sysimg_guid, CA(0));
    CU_ASSERT_EQUAL(ni.port0_guid, CA(0) + 1);
    CU_ASSERT_STRING_EQUAL(ni.desc, "h0");
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 2, 1), 0);
    CU_ASSERT_EQUAL(pi.remote_node, 0);
    CU_ASSERT_EQUAL(pi.remote_port, 2);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_QDR);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_ACTIVE);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 0, 0), 0);
    CU_ASSERT_EQUAL(pi.guid, SW(0));
    CU_ASSERT_EQUAL(pi.remote_node, IBR_NONE);
    uint32_t node;
    unsigned port;
    CU_ASSERT_EQUAL(ibr_fabric_find_guid(&node, &port, f, SW(1)), 0);
    CU_ASSERT_EQUAL(node, 1);
    CU_ASSERT_EQUAL(port, 0);
    CU_ASSERT_EQUAL(ibr_fabric_find_guid(&node, &port, f, CA(0) + 2), 0);
    CU_ASSERT_EQUAL(node, 2);
    CU_ASSERT_EQUAL(port, 2);
    CU_ASSERT_EQUAL(ibr_fabric_find_guid(&node, &port, f, 0x1234), IBR_ENOTFOUND);
    /* custom GUIDs */
    CU_ASSERT_EQUAL(ibr_fabric_set_port_guid(f, 2, 2, 0xabcdef), 0);
    CU_ASSERT_EQUAL(ibr_fabric_find_guid(&node, &port, f, 0xabcdef), 0);
    CU_ASSERT_EQUAL(port, 2);
    CU_ASSERT_EQUAL(ibr_fabric_find_guid(&node, &port, f, CA(0) + 2), IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(ibr_fabric_set_sysimg_guid(f, 0, 0x777), 0);
    CU_ASSERT_EQUAL(ibr_fabric_node_info(&ni, f, 0), 0);
    CU_ASSERT_EQUAL(ni.sysimg_guid, 0x777);
    /* long descriptions are truncated to 64 bytes */
    char longd[200];
    memset(longd, 'x', sizeof longd - 1);
    longd[sizeof longd - 1] = 0;
    CU_ASSERT_EQUAL(ibr_fabric_add_node(NULL, f, IBR_NODE_ROUTER, 0x99, 1, longd), 0);
    CU_ASSERT_EQUAL(ibr_fabric_node_info(&ni, f, 3), 0);
    CU_ASSERT_EQUAL(strlen(ni.desc), 64);
    ibr_fabric_destroy(f);
    ibr_fabric_destroy(NULL);
}

#define EXPECT_ERR(call, code, text)                                          \
    do {                                                                      \
        snap before__;                                                        \
        take(&before__, f);                                                   \
        CU_ASSERT_EQUAL((call), (code));                                      \
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), (text)));     \
        assert_same(f, &before__);                                            \
    } while (0)

static void test_errors(void)
{
    ibr_fabric *f = small_fabric();
    /* nodes */
    EXPECT_ERR(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, SW(0), 8, "dup"), IBR_EEXIST,
               "duplicate node GUID");
    EXPECT_ERR(ibr_fabric_add_node(NULL, f, IBR_NODE_CA, CA(0) - 1, 2, "dup port"), IBR_EEXIST,
               "duplicate port GUID");
    EXPECT_ERR(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0, 8, "zero"), IBR_EINVAL,
               "GUID 0");
    EXPECT_ERR(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 5, 0, "noports"), IBR_EINVAL,
               "0 ports");
    EXPECT_ERR(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 5, 255, "toomany"), IBR_EINVAL,
               "255 ports");
    EXPECT_ERR(ibr_fabric_add_node(NULL, f, (ibr_node_type)7, 5, 2, "type"), IBR_EINVAL,
               "bad node type");
    /* links */
    EXPECT_ERR(ibr_fabric_add_link(f, 0, 9, 1, 2, NULL), IBR_ERANGE,
               "port 9: port out of range (switch has 8)");
    EXPECT_ERR(ibr_fabric_add_link(f, 0, 0, 1, 2, NULL), IBR_ERANGE, "port 0");
    EXPECT_ERR(ibr_fabric_add_link(f, 0, 3, 1, 1, NULL), IBR_EBUSY, "already connected");
    EXPECT_ERR(ibr_fabric_add_link(f, 0, 3, 0, 3, NULL), IBR_EINVAL, "self-link");
    EXPECT_ERR(ibr_fabric_add_link(f, 0, 3, 42, 1, NULL), IBR_ENOTFOUND, "node 42");
    ibr_link_attr bad = IBR_LINK_ATTR_INIT;
    bad.width = (ibr_link_width)3;
    EXPECT_ERR(ibr_fabric_add_link(f, 0, 3, 1, 3, &bad), IBR_EINVAL, "width");
    EXPECT_ERR(ibr_fabric_set_link_state(f, 0, 5, IBR_LINK_DOWN), IBR_ENOTFOUND, "not cabled");
    EXPECT_ERR(ibr_fabric_remove_link(f, 1, 7), IBR_ENOTFOUND, "not cabled");
    /* GUIDs */
    EXPECT_ERR(ibr_fabric_set_port_guid(f, 2, 1, CA(0) + 2), IBR_EEXIST, "duplicate port GUID");
    EXPECT_ERR(ibr_fabric_set_port_guid(f, 0, 3, 0x55), IBR_ERANGE, "one port GUID");
    EXPECT_ERR(ibr_fabric_set_port_guid(f, 2, 1, 0), IBR_EINVAL, "GUID 0");
    /* LIDs */
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 0, 0, 1, 0), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 2, 1, 4, 2), 0);
    EXPECT_ERR(ibr_fabric_set_lid(f, 1, 0, 5, 0), IBR_EEXIST, "LID 5 already belongs to CA");
    EXPECT_ERR(ibr_fabric_set_lid(f, 1, 0, 1, 0), IBR_EEXIST, "LID 1 already belongs to switch");
    EXPECT_ERR(ibr_fabric_set_lid(f, 2, 2, 6, 1), IBR_EEXIST, "already belongs");
    EXPECT_ERR(ibr_fabric_set_lid(f, 2, 2, 9, 1), IBR_EINVAL, "not a multiple");
    EXPECT_ERR(ibr_fabric_set_lid(f, 2, 2, 0xC000, 0), IBR_ERANGE, "unicast range");
    EXPECT_ERR(ibr_fabric_set_lid(f, 2, 2, 0xBFFF, 1), IBR_ERANGE, "unicast range");
    EXPECT_ERR(ibr_fabric_set_lid(f, 2, 2, 0x11, 2), IBR_EINVAL, "multiple");
    EXPECT_ERR(ibr_fabric_set_lid(f, 2, 2, 8, 8), IBR_ERANGE, "LMC 8");
    EXPECT_ERR(ibr_fabric_set_lid(f, 0, 3, 8, 0), IBR_EINVAL, "only port 0");
    /* a port may move its own LIDs */
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 2, 1, 6, 1), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 1, 0, 4, 0), 0);
    ibr_fabric_destroy(f);
}

static void test_link_state(void)
{
    ibr_fabric *f = small_fabric();
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 1, 1, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 0, 1), 0);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_DOWN);
    CU_ASSERT_EQUAL(pi.remote_node, 1); /* the cable is remembered */
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 0, IBR_LINK_ACTIVE), 0);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 1, 1), 0);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_ACTIVE);
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 0, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 2, 1), 0);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_DOWN);
    CU_ASSERT_EQUAL(ibr_fabric_remove_link(f, 0, 2), 0);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 2, 1), 0);
    CU_ASSERT_EQUAL(pi.remote_node, IBR_NONE);
    /* the freed port can be cabled again */
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, 2, 1, 1, 5, NULL), 0);
    ibr_fabric_destroy(f);
}

static void test_clone(void)
{
    ibr_fabric *f = small_fabric(), *c = NULL;
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 2, 1, 8, 2), 0);
    CU_ASSERT_EQUAL(ibr_fabric_clone(&c, f), 0);
    snap a;
    take(&a, f);
    assert_same(c, &a);
    /* independent: changing the clone leaves the original */
    CU_ASSERT_EQUAL(ibr_fabric_add_link(c, 0, 3, 1, 3, NULL), 0);
    assert_same(f, &a);
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(c, 0, 0, 9, 0), IBR_EEXIST); /* LID map cloned */
    ibr_fabric_destroy(c);
    ibr_fabric_destroy(f);
}

static void test_errors_api(void)
{
    CU_ASSERT_STRING_EQUAL(ibr_strerror(IBR_ENOMEM), "out of memory");
    CU_ASSERT_STRING_EQUAL(ibr_status_name(IBR_EBUSY), "IBR_EBUSY");
    CU_ASSERT_STRING_EQUAL(ibr_strerror(0), "success");
    CU_ASSERT_STRING_EQUAL(ibr_strerror(-999), "unknown error");
    CU_ASSERT_STRING_EQUAL(ibr_status_name(-999), "IBR_UNKNOWN");
    CU_ASSERT_EQUAL(ibr_version(), IBR_VERSION_NUMBER);
    CU_ASSERT_STRING_EQUAL(ibr_version_string(), IBR_VERSION_STRING);
    CU_ASSERT_EQUAL(ibr_fabric_create(NULL, NULL), IBR_EINVAL);
    ibr_context *ctx = NULL;
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    cfg.version = 99;
    CU_ASSERT_EQUAL(ibr_context_create(&ctx, &cfg), IBR_EVERSION);
    CU_ASSERT_PTR_NULL(ctx);
    cfg.version = IBR_CONTEXT_CONFIG_VERSION;
    ibr_allocator bad = {NULL, NULL, NULL, NULL};
    cfg.alloc = &bad;
    CU_ASSERT_EQUAL(ibr_context_create(&ctx, &cfg), IBR_EINVAL);
    ibr_context_destroy(NULL);
}

static void logger(void *user, int level, const char *msg)
{
    int *n = user;
    (void)level;
    (void)msg;
    (*n)++;
}

static void test_context_logging(void)
{
    int count = 0;
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    cfg.log = logger;
    cfg.log_user = &count;
    cfg.log_level = IBR_LOG_DEBUG;
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, &cfg), 0);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL(ibr_fabric_create(&f, ctx), 0);
    /* a cabled CA port without a LID triggers a warning at freeze */
    CU_ASSERT_EQUAL(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 1, 4, "s"), 0);
    CU_ASSERT_EQUAL(ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x100, 1, "h"), 0);
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, 0, 1, 1, 1, NULL), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL(ibr_fabric_freeze(&t, f), 0);
    CU_ASSERT(count > 0);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

static unsigned pinfo(ibr_port_info *pi, const ibr_fabric *f, uint32_t node, unsigned port)
{
    ibr_port_info def = IBR_PORT_INFO_INIT;
    *pi = def;
    CU_ASSERT_EQUAL(ibr_fabric_port_info(pi, f, node, port), 0);
    return pi->oper_vls;
}

/* VLCap, OperVLs and the enabled widths and speeds of a port: defaults,
   derivation from the peer, errors, and what a frozen topology reports. */
static void test_port_attr(void)
{
    ibr_fabric *f = small_fabric();
    ibr_port_info pi;
    /* defaults: what OpenSM sees on ibsim's ports */
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 1), 8);
    CU_ASSERT_EQUAL(pi.vl_cap, 8);
    CU_ASSERT_EQUAL(pi.width_enabled, IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(pi.speed_enabled, IBR_SPEED_BIT(IBR_SPEED_QDR));
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 5), 8); /* uncabled: its own VLCap */
    CU_ASSERT_EQUAL(pi.width_enabled, 0);

    /* OperVLs follow the smaller VLCap of the two ends */
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.vl_cap = 2;
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 1, 1, &a), 0);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 1), 2);
    CU_ASSERT_EQUAL(pi.vl_cap, 8);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 1, 1), 2);
    CU_ASSERT_EQUAL(pi.vl_cap, 2);
    /* an explicit OperVLs wins */
    a.vl_cap = 15;
    a.oper_vls = 4;
    a.width_enabled = IBR_WIDTH_4X | IBR_WIDTH_12X;
    a.speed_enabled = IBR_SPEED_BIT(IBR_SPEED_QDR) | IBR_SPEED_BIT(IBR_SPEED_EDR);
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 2, &a), 0);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 2), 4);
    CU_ASSERT_EQUAL(pi.vl_cap, 15);
    CU_ASSERT_EQUAL(pi.width_enabled, IBR_WIDTH_4X | IBR_WIDTH_12X);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 2, 1), 8); /* the CA's end keeps its own */

    /* the topology holds the same, resolved */
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_port_info tp = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_topo_port_info(&tp, t, 0, 2), 0);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 2), 4);
    CU_ASSERT_EQUAL(memcmp(&tp, &pi, sizeof pi), 0);
    CU_ASSERT_EQUAL(ibr_topo_port_info(&tp, t, 1, 1), 0);
    CU_ASSERT_EQUAL(tp.oper_vls, 2);
    ibr_topo_destroy(t);

    /* errors name the port and leave everything unchanged */
    snap before;
    take(&before, f);
    static const struct {
        unsigned vl_cap, oper_vls, width, speed;
        const char *msg;
    } bad[] = {
        {3, 0, 0, 0, "vl_cap 3"},
        {16, 0, 0, 0, "vl_cap 16"},
        {8, 5, 0, 0, "oper_vls 5"},
        {4, 8, 0, 0, "oper_vls 8 above vl_cap 4"},
        {0, 15, 0, 0, "oper_vls 15 above vl_cap 8"},
        {0, 0, 32, 0, "width mask 0x20"},
        {0, 0, 0, 1, "speed mask 0x1"},
        {0, 0, 0, 1u << 10, "speed mask 0x400"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ibr_port_attr b = IBR_PORT_ATTR_INIT;
        b.vl_cap = bad[i].vl_cap;
        b.oper_vls = bad[i].oper_vls;
        b.width_enabled = bad[i].width;
        b.speed_enabled = bad[i].speed;
        CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 2, &b), IBR_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), bad[i].msg));
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "port 2"));
        assert_same(f, &before);
    }
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 0, NULL), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 9, NULL), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 7, 1, NULL), IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(NULL, 0, 1, NULL), IBR_EINVAL);
    assert_same(f, &before);
    /* NULL restores the defaults; the facts outlive the cable */
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 2, NULL), 0);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 2), 8);
    CU_ASSERT_EQUAL(pi.width_enabled, IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(ibr_fabric_remove_link(f, 1, 1), 0);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 1, 1), 2);
    CU_ASSERT_EQUAL(pinfo(&pi, f, 0, 1), 8);
    ibr_fabric_destroy(f);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"build", test_build},
        {"errors leave the fabric unchanged", test_errors},
        {"link state and faults", test_link_state},
        {"clone", test_clone},
        {"error codes and versions", test_errors_api},
        {"context logging", test_context_logging},
        {"port VLs and enabled widths and speeds", test_port_attr},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("fabric", tests);
}
