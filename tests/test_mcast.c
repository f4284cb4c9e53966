/* Multicast: groups (API and file), OpenSM's default trees, the balanced
   trees, the multicast checks of the verifier, the trace and the loads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"
#include "ibroute/sys/toolkit.h"

/* The i-th end port (node index, port) of t: CAs in node order. */
static int nth_ca(uint32_t *node, unsigned *port, const ibr_topo *t, uint32_t i)
{
    uint32_t k = 0;
    for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, n);
        if (ni.type == IBR_NODE_SWITCH)
            continue;
        for (unsigned p = 1; p <= ni.nports; p++) {
            if (ibr_test_sw_behind(t, n, p) == IBR_NONE)
                continue;
            if (k++ == i) {
                *node = n;
                *port = p;
                return 0;
            }
        }
    }
    return -1;
}

static uint32_t n_cas(const ibr_topo *t)
{
    uint32_t n = 0, node;
    unsigned port;
    while (nth_ca(&node, &port, t, n) == 0)
        n++;
    return n;
}

static uint64_t node_guid(const ibr_topo *t, uint32_t n)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    ibr_topo_node_info(&ni, t, n);
    return ni.node_guid;
}

/* Add CA number i (see nth_ca) to mlid. */
static int add_ca(ibr_mcast_groups *g, const ibr_topo *t, uint16_t mlid, uint32_t i)
{
    uint32_t node;
    unsigned port;
    if (nth_ca(&node, &port, t, i) < 0)
        return -1;
    return ibr_mcast_groups_add_member(g, mlid, NULL, node_guid(t, node), port,
                                       IBR_MCAST_JOIN_FULL);
}

static void test_groups_api(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL(ibr_mcast_groups_create(NULL, t), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_mcast_groups_create(&g, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&g, t), 0);
    CU_ASSERT_PTR_EQUAL(ibr_mcast_groups_topo(g), t);
    uint32_t node;
    unsigned port;
    CU_ASSERT_FATAL(nth_ca(&node, &port, t, 0) == 0);
    uint64_t guid = node_guid(t, node);
    /* bad input: each leaves the set as it was, with a message */
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xBFFF, NULL, guid, port, 1), IBR_ERANGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), "0xBFFF"));
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xFFFF, NULL, guid, port, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, guid, port, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, guid, port, 16), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, 0x1234, 1, 1), IBR_ENOTFOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), "unknown node GUID"));
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, guid, 9, 1), IBR_ENOTFOUND);
    uint64_t swguid = node_guid(t, ibr_topo_switch_node(t, 0));
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, swguid, 1, 1), IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid_count(g), 0);
    /* two groups share an MLID: the members are their union */
    static const uint8_t mgid_a[16] = {0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint8_t mgid_b[16] = {0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC001, mgid_a, guid, port, 1), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC001, mgid_a, guid, port, 2), IBR_EEXIST);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC001, mgid_b, guid, port, 2), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC002, mgid_b, guid, port, 2), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC001, mgid_b, swguid, 0, 4), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, swguid, 0, 1), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 3);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid_count(g), 2);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid(g, 0), 0xC000);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid(g, 1), 0xC001);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid(g, 2), 0);
    uint16_t mlid;
    uint8_t mgid[16];
    int has;
    size_t nmem;
    CU_ASSERT_EQUAL(ibr_mcast_groups_group(&mlid, mgid, &has, &nmem, g, 1), 0);
    CU_ASSERT_EQUAL(mlid, 0xC001);
    CU_ASSERT_EQUAL(has, 1);
    CU_ASSERT_EQUAL(memcmp(mgid, mgid_b, 16), 0);
    CU_ASSERT_EQUAL(nmem, 2);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group(NULL, NULL, NULL, NULL, g, 3), IBR_ENOTFOUND);
    ibr_mcast_member m[4];
    size_t need = 0;
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 1, &need, g, 0xC001), IBR_ERANGE);
    CU_ASSERT_EQUAL(need, 2);
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 4, &need, g, 0xC001), 0);
    /* node order: switches come after the CAs or before; find the CA */
    int ca = m[0].guid == guid ? 0 : 1;
    CU_ASSERT_EQUAL(m[ca].guid, guid);
    CU_ASSERT_EQUAL(m[ca].port, port);
    CU_ASSERT_EQUAL(m[ca].node, node);
    CU_ASSERT_EQUAL(m[ca].join_state, 3); /* full | non, OR-ed over the groups */
    CU_ASSERT_EQUAL(m[1 - ca].port, 0);
    CU_ASSERT_EQUAL(m[1 - ca].join_state, 4);
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 4, &need, g, 0xC005), IBR_ENOTFOUND);
    /* routing with a set bound to another topology is refused */
    ibr_topo *t2 = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t2, "minhop", &o), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "mcast_groups"));
    ibr_result_destroy(r);
    o.mcast_flags = 0x80;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), IBR_EINVAL);
    ibr_result_destroy(r);
    ibr_topo_destroy(t2);
    ibr_mcast_groups_destroy(g);
    ibr_mcast_groups_destroy(NULL);
    ibr_topo_destroy(t);
}

static void test_groups_file(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    uint32_t n0 = 0, n1 = 0;
    unsigned p0 = 0, p1 = 0;
    CU_ASSERT_FATAL(nth_ca(&n0, &p0, t, 0) == 0 && nth_ca(&n1, &p1, t, 5) == 0);
    uint64_t g0 = node_guid(t, n0), g1 = node_guid(t, n1);
    uint64_t sw = node_guid(t, ibr_topo_switch_node(t, 2));
    char text[1024];
    snprintf(text, sizeof text,
             "# IPoIB broadcast\n"
             "group 0xC000 mgid ff12:401b:ffff::ffff:ffff\n"
             "  member 0x%016llx %u          # default: full\n"
             "member 0x%016llx %u non sendonly\n"
             "\n"
             "group 0xc001\n"
             "member 0x%016llx 0 5\n"
             "member 0x%016llx %u full\n",
             (unsigned long long)g0, p0, (unsigned long long)g1, p1, (unsigned long long)sw,
             (unsigned long long)g0, p0);
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_parse(&g, t, text, strlen(text)), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 2);
    uint8_t mgid[16];
    int has;
    CU_ASSERT_EQUAL(ibr_mcast_groups_group(NULL, mgid, &has, NULL, g, 0), 0);
    static const uint8_t want[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
                                     0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};
    CU_ASSERT_EQUAL(has, 1);
    CU_ASSERT_EQUAL(memcmp(mgid, want, 16), 0);
    ibr_mcast_member m[2];
    size_t need;
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 2, &need, g, 0xC000), 0);
    CU_ASSERT_EQUAL(m[0].join_state, 1);
    CU_ASSERT_EQUAL(m[1].join_state, 6);
    /* written and read back: the same text */
    ibr_buffer b1 = IBR_BUFFER_INIT, b2 = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_mcast_groups_write(&b1, g), 0);
    ibr_mcast_groups *g2 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_parse(&g2, t, b1.data, b1.size), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_write(&b2, g2), 0);
    CU_ASSERT_STRING_EQUAL(b1.data, b2.data);
    CU_ASSERT_PTR_NOT_NULL(strstr(b1.data, "mgid ff12:401b:ffff:0:0:0:ffff:ffff"));
    ibr_buffer_dispose(&b1);
    ibr_buffer_dispose(&b2);
    ibr_mcast_groups_destroy(g2);
    ibr_mcast_groups_destroy(g);

    /* errors name the line */
    struct {
        const char *text;
        const char *msg;
    } bad[] = {
        {"group 0xC000\nmember 0x1234 1\n", "line 2: unknown node GUID 0x0000000000001234"},
        {"\ngroup 0xBFFF\n", "line 2: MLID 0xBFFF is outside the multicast range"},
        {"group 0xFFFF\n", "line 1: MLID 0xFFFF is outside"},
        {"group 0xC0x0\n", "line 1: bad MLID"},
        {"member 0x1 1\n", "line 1: 'member' before any 'group' line"},
        {"group 0xC000 mgid ff12::1::2\n", "line 1: bad MGID"},
        {"group 0xC000 mgid 1:2:3\n", "line 1: bad MGID"},
        {"group 0xC000 pkey 5\n", "line 1: expected 'mgid'"},
        {"groups 0xC000\n", "line 1: expected 'group' or 'member'"},
        {"group 0xC000\nmember zz 1\n", "line 2: bad GUID"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(ibr_mcast_groups_parse(&g, t, bad[i].text, strlen(bad[i].text)),
                        IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(g);
        if (!strstr(ibr_mcast_groups_last_error(g), bad[i].msg))
            fprintf(stderr, "\n%s -> %s\n", bad[i].text, ibr_mcast_groups_last_error(g));
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), bad[i].msg));
        CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 0);
        ibr_mcast_groups_destroy(g);
    }
    snprintf(text, sizeof text, "group 0xC000\nmember 0x%016llx %u\nmember 0x%016llx %u full\n",
             (unsigned long long)g0, p0, (unsigned long long)g0, p0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse(&g, t, text, strlen(text)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), "line 3: port"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), "already a member"));
    ibr_mcast_groups_destroy(g);
    snprintf(text, sizeof text, "group 0xC000\nmember 0x%016llx %u bogus\n",
             (unsigned long long)g0, p0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse(&g, t, text, strlen(text)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), "line 2: bad join state"));
    ibr_mcast_groups_destroy(g);
    snprintf(text, sizeof text, "group 0xC000\nmember 0x%016llx 0\n", (unsigned long long)g0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse(&g, t, text, strlen(text)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), "has no port 0"));
    ibr_mcast_groups_destroy(g);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse(NULL, t, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse(&g, NULL, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse(&g, t, "", 0), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 0);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

/* OpenSM's tree on a 2-level fat tree, by hand: two hosts on different
   leaves meet at the spine with the smallest table key, through each
   leaf's lowest up port; a third host on the first leaf adds a down port
   there only. */
static void test_default_tree_by_hand(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    /* 2-level, radix 4: 4 leaves with 2 hosts, 2 spines */
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    uint32_t na, nb, nc;
    unsigned pa, pb, pc;
    nth_ca(&na, &pa, t, 0);
    nth_ca(&nc, &pc, t, 1);
    uint32_t la = ibr_test_sw_behind(t, na, pa);
    CU_ASSERT_EQUAL_FATAL(ibr_test_sw_behind(t, nc, pc), la);
    uint32_t i = 2;
    do {
        nth_ca(&nb, &pb, t, i++);
    } while (ibr_test_sw_behind(t, nb, pb) == la);
    uint32_t lb = ibr_test_sw_behind(t, nb, pb);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, node_guid(t, na), pa, 1), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, node_guid(t, nb), pb, 1), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    ibr_result *r = ibr_test_route(&rep, t, "minhop", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(rep.mcast_groups, 1);
    CU_ASSERT_EQUAL(rep.mcast_pairs, 2);
    CU_ASSERT_EQUAL(rep.mcast_pairs_ok, 2);
    /* the root: the spine first in OpenSM's switch-table order */
    uint32_t root = IBR_NONE;
    uint64_t best = UINT64_MAX;
    const uint32_t *off;
    const ibr_switch_link *links;
    ibr_topo_switch_links(&off, &links, t);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        int spine = 1;
        for (uint32_t n = 0; n < ibr_topo_node_count(t); n++)
            if (ibr_test_sw_behind(t, n, 1) == s) {
                ibr_node_info ni = IBR_NODE_INFO_INIT;
                ibr_topo_node_info(&ni, t, n);
                if (ni.type != IBR_NODE_SWITCH)
                    spine = 0;
            }
        uint64_t key = __builtin_bswap64(node_guid(t, ibr_topo_switch_node(t, s)));
        if (spine && key < best) {
            best = key;
            root = s;
        }
    }
    CU_ASSERT_FATAL(root != IBR_NONE);
    uint8_t ports[8];
    size_t n;
    CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 8, &n, r, 0xC000, root), 0);
    CU_ASSERT_EQUAL(n, 2); /* down to each leaf */
    /* each leaf: its host port and its lowest port toward the root */
    for (int k = 0; k < 2; k++) {
        uint32_t leaf = k ? lb : la;
        unsigned hport = 0;
        uint32_t hn = k ? nb : na;
        unsigned hp = k ? pb : pa;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&pi, t, hn, hp);
        hport = pi.remote_port;
        unsigned up = 0;
        for (uint32_t a = off[leaf]; a < off[leaf + 1]; a++)
            if (links[a].sw == root && (!up || links[a].port < up))
                up = links[a].port;
        CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 8, &n, r, 0xC000, leaf), 0);
        CU_ASSERT_EQUAL(n, 2);
        CU_ASSERT((ports[0] == hport && ports[1] == up) || (ports[1] == hport && ports[0] == up));
    }
    /* the other spine is not in the tree */
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        if (s != root && s != la && s != lb) {
            CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 8, &n, r, 0xC000, s), 0);
            CU_ASSERT_EQUAL(n, 0);
        }
    /* members kept by the result */
    ibr_mcast_member mm[4];
    CU_ASSERT_EQUAL(ibr_result_mcast_members(mm, 4, &n, r, 0xC000), 0);
    CU_ASSERT_EQUAL(n, 2);
    /* the trace from a: one copy up, one down, delivered once */
    ibr_mcast_hop hops[16];
    CU_ASSERT_EQUAL(ibr_result_trace_mcast(hops, 16, &n, r, 0xC000, na, pa), 0);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(hops[0].sw, la);
    CU_ASSERT_EQUAL(hops[2].to_node, nb);
    CU_ASSERT_EQUAL(hops[2].depth, 4);
    CU_ASSERT_EQUAL(ibr_result_trace_mcast(hops, 1, &n, r, 0xC000, na, pa), IBR_ERANGE);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(ibr_result_trace_mcast(hops, 16, &n, r, 0xC123, na, pa), IBR_ENOTFOUND);
    /* port loads: the root forwards one tree on each of its two ports */
    uint32_t load[64];
    CU_ASSERT_EQUAL(ibr_result_mcast_port_load(load, 64, &n, r, root), 0);
    uint32_t sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += load[k];
    CU_ASSERT_EQUAL(sum, 2);
    CU_ASSERT_EQUAL(ibr_result_mcast_port_load(load, 1, &n, r, root), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_result_mcast_port_load(load, 64, &n, r, 999), IBR_ENOTFOUND);
    /* the mcfdbs lists the three switches */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_result_write_mcfdbs(&b, r), 0);
    size_t blocks = 0;
    for (const char *s = b.data; (s = strstr(s, "Switch 0x")); s++)
        blocks++;
    CU_ASSERT_EQUAL(blocks, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "0xC000 : 0x"));
    ibr_buffer_dispose(&b);
    ibr_result_destroy(r);

    /* a broken tree fails the verifier: drop the root's bits by routing
       with an engine that builds "its own" empty trees */
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

static int empty_trees(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    uint8_t *hops = ibr_run_hops(run);
    if (!hops || ibr_topo_switch_hops(hops, t, 1) < 0)
        return ibr_run_fail(run, IBR_ENOMEM, "oom");
    int rc = ibr_run_ucast(run, hops, NULL, NULL, NULL);
    if (rc < 0)
        return rc;
    /* one tree with a single port set on switch 0: nobody gets anything */
    const ibr_mcast_groups *g = ibr_run_mcast_groups(run);
    if (g && ibr_mcast_groups_mlid_count(g))
        ibr_run_add_mcast_port(run, ibr_mcast_groups_mlid(g, 0), 0, 0);
    return ibr_run_set_mcast_built(run);
}

/* Engines with trees of their own: the library builds no default tree,
   and the verifier catches what their trees miss. */
static void test_engine_own_trees(void)
{
    ibr_context *ctx = ibr_test_engine_context("own", empty_trees, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    add_ca(g, t, 0xC000, 0);
    add_ca(g, t, 0xC000, 7);
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "own", &o), 0);
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.mcast_pairs, 2);
    CU_ASSERT_EQUAL(rep.mcast_missed, 2);
    CU_ASSERT_EQUAL(rep.mcast_pairs_ok, 0);
    CU_ASSERT_NOT_EQUAL(rep.mcast_dead_ends, 0); /* port 0 of a non-member switch */
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_mcast_error, "MLID 0xC000"));
    /* a version 3 report does not see multicast */
    ibr_verify_report r3;
    ibr_verify_report_init(&r3, 3);
    CU_ASSERT_EQUAL(ibr_result_verify(&r3, r), 0);
    ibr_result_destroy(r);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}


/* An engine that writes the MFT bits it is given (user: a list of
   (switch, port) pairs ending with IBR_NONE), as its own trees. */
static int given_bits(ibr_run *run, void *user)
{
    const uint32_t *bits = user;
    const ibr_topo *t = ibr_run_topo(run);
    uint8_t *hops = ibr_run_hops(run);
    if (!hops || ibr_topo_switch_hops(hops, t, 1) < 0)
        return ibr_run_fail(run, IBR_ENOMEM, "oom");
    int rc = ibr_run_ucast(run, hops, NULL, NULL, NULL);
    for (size_t i = 0; rc == 0 && bits[i] != IBR_NONE; i += 2)
        rc = ibr_run_add_mcast_port(run, 0xC000, bits[i], bits[i + 1]);
    return rc < 0 ? rc : ibr_run_set_mcast_built(run);
}

/* A tree whose leaf lacks its upstream port: the first member's packet
   reaches everyone, the others' do not come back up; and a tree with an
   extra branch toward a non-member: a dead end. The verifier must see
   both whatever member it starts from. */
static void test_verify_broken_trees(void)
{
    uint32_t bits[256];
    ibr_context *ctx = ibr_test_engine_context("given", given_bits, bits);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    add_ca(g, t, 0xC000, 0);
    add_ca(g, t, 0xC000, 1);
    add_ca(g, t, 0xC000, 7);
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", &o), 0);
    /* the reference tree's bits */
    size_t nb = 0;
    uint32_t n7;
    unsigned p7;
    nth_ca(&n7, &p7, t, 7);
    uint32_t leaf7 = ibr_test_sw_behind(t, n7, p7);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&pi, t, n7, p7);
    unsigned up7 = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        uint8_t ports[8];
        size_t n;
        ibr_result_mcast_ports(ports, 8, &n, ref, 0xC000, s);
        for (size_t k = 0; k < n; k++) {
            if (s == leaf7 && ports[k] != pi.remote_port) {
                up7 = ports[k];
                continue; /* drop leaf 7's upstream port */
            }
            bits[nb++] = s;
            bits[nb++] = ports[k];
        }
    }
    CU_ASSERT_FATAL(up7 != 0);
    bits[nb] = IBR_NONE;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "given", &o), 0);
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.mcast_pairs, 6);
    CU_ASSERT_EQUAL(rep.mcast_pairs_ok, 4); /* host 7 reaches nobody */
    CU_ASSERT_EQUAL(rep.mcast_missed, 2);
    ibr_result_destroy(r);
    /* leaf 7's upstream port back, plus a branch to host 6 (not a member) */
    bits[nb++] = leaf7;
    bits[nb++] = up7;
    uint32_t n6;
    unsigned p6;
    nth_ca(&n6, &p6, t, 6);
    ibr_port_info p6i = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&p6i, t, n6, p6);
    bits[nb++] = ibr_test_sw_behind(t, n6, p6);
    bits[nb++] = p6i.remote_port;
    bits[nb] = IBR_NONE;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "given", &o), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.mcast_pairs_ok, 6);
    CU_ASSERT_EQUAL(rep.mcast_dead_ends, 3); /* one per source */
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_mcast_error, "leads to no member"));
    ibr_result_destroy(r);
    ibr_result_destroy(ref);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* Random groups of 2..all members: every member's packet reaches every
   other member exactly once. */
static void random_groups(ibr_mcast_groups *g, const ibr_topo *t, unsigned ngroups,
                          unsigned seed, int with_switches)
{
    uint32_t nca = n_cas(t);
    srand(seed);
    for (unsigned k = 0; k < ngroups; k++) {
        uint16_t mlid = (uint16_t)(0xC000 + k);
        uint32_t want = 2 + (uint32_t)rand() % (nca - 1);
        if (k == 0)
            want = nca; /* one group with every host */
        for (uint32_t i = 0; i < nca; i++)
            if ((uint32_t)rand() % nca < want || (k == 0))
                add_ca(g, t, mlid, i);
        if (with_switches && k % 3 == 1) {
            uint32_t s = (uint32_t)rand() % ibr_topo_switch_count(t);
            ibr_mcast_groups_add_member(g, mlid, NULL,
                                        node_guid(t, ibr_topo_switch_node(t, s)), 0, 1);
        }
        /* at least two members */
        ibr_mcast_groups_members(NULL, 0, NULL, g, mlid);
        size_t n = 0;
        if (ibr_mcast_groups_members(NULL, 0, &n, g, mlid) == IBR_ENOTFOUND || n < 2) {
            add_ca(g, t, mlid, 0);
            add_ca(g, t, mlid, nca - 1);
        }
    }
}

static void check_exact(const char *spec, unsigned lf, unsigned sf, const char *chain,
                        unsigned mflags, unsigned checks)
{
    ibr_topo *t = ibr_test_topo_faults(spec, lf, sf, 7, 0);
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    random_groups(g, t, 12, 11, 1);
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    o.mcast_flags = mflags;
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    ibr_result *r = ibr_test_route(&rep, t, chain, &o, checks);
    CU_ASSERT_PTR_NOT_NULL(r);
    if (r) {
        CU_ASSERT_EQUAL(rep.mcast_groups, 12);
        CU_ASSERT(rep.mcast_pairs > 0);
        if (rep.mcast_pairs_ok != rep.mcast_pairs || rep.mcast_loops || rep.mcast_dead_ends)
            fprintf(stderr, "\n%s %s flags %u: %s\n", spec, chain, mflags,
                    rep.first_mcast_error);
        CU_ASSERT_EQUAL(rep.mcast_pairs_ok, rep.mcast_pairs);
        CU_ASSERT_EQUAL(rep.mcast_duplicates, 0);
        CU_ASSERT_EQUAL(rep.mcast_loops, 0);
        CU_ASSERT_EQUAL(rep.mcast_dead_ends, 0);
        CU_ASSERT_EQUAL(ibr_result_mcast_count(r), 12);
    }
    ibr_result_destroy(r);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

static void test_property_fat_trees(void)
{
    const char *chains[] = {"minhop", "updn", "dnup", "ftree", "lash", "dfsssp"};
    for (unsigned m = 0; m < 2; m++) {
        for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++)
            check_exact("fattree:levels=3,radix=4", 0, 0, chains[c], m,
                        !strcmp(chains[c], "minhop") || !strcmp(chains[c], "dfsssp") ||
                                !strcmp(chains[c], "lash")
                            ? 0
                            : IBR_TEST_DEADLOCK_FREE);
        check_exact("fattree:levels=3,radix=6", 3, 0, "minhop", m, 0);
        /* faulted trees: the up/down engines keep their promise with the
           multicast dependencies added */
        check_exact("fattree:levels=3,radix=6", 4, 0, "updn,no_fallback", m,
                    IBR_TEST_DEADLOCK_FREE);
        check_exact("fattree:levels=3,radix=6", 4, 0, "ftree,no_fallback", m,
                    IBR_TEST_DEADLOCK_FREE);
        check_exact("fattree:levels=3,radix=6", 3, 0, "dnup,no_fallback", m,
                    IBR_TEST_DEADLOCK_FREE);
        check_exact("fattree:levels=3,radix=6", 2, 1, "updn", m, 0);
    }
}

static void test_property_tori_random(void)
{
    for (unsigned m = 0; m < 2; m++) {
        check_exact("torus:dims=4x4,hosts=2", 0, 0, "minhop", m, 0);
        check_exact("torus:dims=3x3x3,hosts=1", 2, 0, "minhop", m, 0);
        check_exact("torus:dims=4x4,hosts=2", 0, 0, "dor", m, 0);
        check_exact("mesh:dims=4x3,hosts=2", 1, 0, "updn", m, 0);
        check_exact("random:switches=20,degree=4,hosts=2,seed=3", 0, 0, "minhop", m, 0);
        check_exact("random:switches=24,degree=5,hosts=2,seed=5", 3, 1, "minhop", m, 0);
        check_exact("random:switches=20,degree=4,hosts=2,seed=9", 2, 0, "updn", m, 0);
    }
}

/* Engines that promise credit-loop freedom keep it with multicast. On
   faulty meshes, tori, dragonflies and random graphs with 21 groups,
   OpenSM's trees and SLs (IBR_MCAST_OPENSM) close credit loops with the
   unicast routes; by default unicast moves one SL/VL up (dfsssp and nue,
   which spread over every VL, route again with one fewer) and the trees
   share one spanning tree: loop-free, exact delivery, VLs within max_vls
   and the ports' VLs (a mesh whose ports have 4),
   and dnup's and lash's LFTs unchanged. */
static void test_promise_kept(void)
{
    const char *chains[] = {"dnup,no_fallback", "lash,no_fallback", "dfsssp,no_fallback",
                            "nue,no_fallback"};
    const char *specs[] = {"mesh:dims=5x5,hosts=2", "torus:dims=4x4x3,hosts=1",
                           "dragonfly:a=4,p=2,h=2", "random:switches=32,degree=5,hosts=2,seed=2",
                           "mesh:dims=5x5,hosts=2,vls=4"};
    unsigned osm_loops = 0, routed = 0;
    for (size_t f = 0; f < sizeof specs / sizeof specs[0]; f++) {
        ibr_topo *t = ibr_test_topo_faults(specs[f], 3, 1, 1, 0);
        ibr_mcast_groups *g = NULL;
        ibr_mcast_groups_create(&g, t);
        random_groups(g, t, 21, 7, 0);
        for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
            ibr_result *r[2] = {NULL, NULL};
            ibr_verify_report rep[2];
            for (unsigned m = 0; m < 2; m++) {
                ibr_options o = IBR_OPTIONS_INIT;
                o.mcast_groups = g;
                o.mcast_flags = m ? IBR_MCAST_OPENSM : 0;
                rep[m] = (ibr_verify_report)IBR_VERIFY_REPORT_INIT;
                CU_ASSERT_EQUAL_FATAL(ibr_route(&r[m], t, chains[c], &o), 0);
                CU_ASSERT_EQUAL(ibr_result_verify(&rep[m], r[m]), 0);
                CU_ASSERT_EQUAL(rep[m].pairs_ok, rep[m].pairs);
                CU_ASSERT_EQUAL(rep[m].mcast_pairs_ok, rep[m].mcast_pairs);
                CU_ASSERT(ibr_result_vls_used(r[m]) <= o.max_vls);
                CU_ASSERT(ibr_result_vls_used(r[m]) <= ibr_topo_data_vls(t));
            }
            if (!rep[0].deadlock_free)
                fprintf(stderr, "\n%s %s: %s\n", specs[f], chains[c], rep[0].first_error);
            CU_ASSERT_EQUAL(rep[0].deadlock_free, 1);
            osm_loops += !rep[1].deadlock_free;
            /* who built the trees: OpenSM's default for dnup and lash, the
               engine's own for dfsssp and nue, and the spanning tree where
               those closed a loop */
            int own = c < 2 ? IBR_MCAST_TREES_OPENSM : IBR_MCAST_TREES_ENGINE;
            CU_ASSERT_EQUAL(ibr_result_mcast_trees(r[1]), own);
            CU_ASSERT_EQUAL(ibr_result_mcast_trees(r[0]),
                            rep[1].deadlock_free ? own : IBR_MCAST_TREES_SPANNING);
            if (!rep[1].deadlock_free && c < 2) {
                /* dnup and lash: the same LFTs, one VL more */
                CU_ASSERT_EQUAL(ibr_result_vls_used(r[0]), ibr_result_vls_used(r[1]) + 1);
                for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
                    CU_ASSERT_EQUAL(memcmp(ibr_result_lft(r[0], s), ibr_result_lft(r[1], s),
                                           ibr_topo_max_lid(t) + 1u), 0);
            }
            routed++;
            ibr_result_destroy(r[0]);
            ibr_result_destroy(r[1]);
        }
        ibr_mcast_groups_destroy(g);
        ibr_topo_destroy(t);
    }
    CU_ASSERT_EQUAL(routed, 20);
    CU_ASSERT(osm_loops >= 8);
}

/* sssp, dfsssp and nue build their own trees over the unicast loads (OpenSM
   3.3's multicast for these engines): exact delivery on tori, meshes and
   random graphs, with faults; and their trees are their own (the run
   marks them built: an engine that routes by loads on a faulted random
   graph gives at least one tree that differs from the lowest-port default
   trees minhop gets, while both deliver exactly). */
static void test_property_loaded_engines(void)
{
    const char *chains[] = {"sssp", "dfsssp", "nue"};
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        check_exact("torus:dims=4x4,hosts=2", 0, 0, chains[c], 0, 0);
        check_exact("torus:dims=3x3x3,hosts=1", 2, 0, chains[c], 0, 0);
        check_exact("mesh:dims=4x3,hosts=2", 1, 0, chains[c], 0, 0);
        check_exact("random:switches=24,degree=5,hosts=2,seed=5", 3, 1, chains[c], 0, 0);
        check_exact("fattree:levels=3,radix=6", 4, 0, chains[c], 0, 0);
    }
    ibr_topo *t = ibr_test_topo_faults("random:switches=24,degree=5,hosts=2,seed=5", 3, 1, 7, 0);
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    random_groups(g, t, 12, 11, 1);
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    ibr_result *def = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&def, t, "minhop", &o), 0);
    CU_ASSERT_EQUAL(ibr_result_mcast_trees(def), IBR_MCAST_TREES_OPENSM);
    CU_ASSERT_EQUAL(ibr_result_mcast_trees(NULL), IBR_MCAST_TREES_NONE);
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, chains[c], &o), 0);
        int kind = ibr_result_mcast_trees(r);
        CU_ASSERT(kind == IBR_MCAST_TREES_ENGINE || kind == IBR_MCAST_TREES_SPANNING);
        unsigned differ = 0;
        for (unsigned k = 0; k < 12; k++)
            for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
                uint8_t a[64], b[64];
                size_t na = 0, nb = 0;
                ibr_result_mcast_ports(a, 64, &na, r, (uint16_t)(0xC000 + k), s);
                ibr_result_mcast_ports(b, 64, &nb, def, (uint16_t)(0xC000 + k), s);
                if (na != nb || memcmp(a, b, na))
                    differ++;
            }
        CU_ASSERT(differ > 0);
        ibr_result_destroy(r);
    }
    ibr_result_destroy(def);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

/* The file engine with a lid matrix builds its trees over the loaded hop
   rows: fed minhop's opensm-lid-matrix.dump it reproduces minhop's trees
   (as OpenSM -R file -M would). Not updn's: its trees follow the up/down
   candidates, which the hop rows do not carry (this case used to run
   minhop as updn's fallback on this graph; updn now routes it). */
static void test_file_engine_trees(void)
{
    const char *engines[] = {"minhop", "minhop,no_fallback"};
    ibr_topo *t = ibr_test_topo(NULL, "random:switches=16,degree=4,hosts=2,seed=4");
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    random_groups(g, t, 10, 21, 1);
    for (size_t e = 0; e < 2; e++) {
        ibr_options o = IBR_OPTIONS_INIT;
        o.mcast_groups = g;
        ibr_result *a = NULL, *b = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&a, t, engines[e], &o), 0);
        ibr_buffer mx = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_lid_matrix(&mx, a), 0);
        ibr_param p = {"file.lid_matrix", mx.data};
        o.params = &p;
        o.n_params = 1;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&b, t, "file,no_fallback", &o), 0);
        ibr_buffer fa = IBR_BUFFER_INIT, fb = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_result_write_mcfdbs(&fa, a), 0);
        CU_ASSERT_EQUAL(ibr_result_write_mcfdbs(&fb, b), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fa.data);
        CU_ASSERT_STRING_EQUAL(fa.data, fb.data);
        ibr_buffer_dispose(&fa);
        ibr_buffer_dispose(&fb);
        ibr_buffer_dispose(&mx);
        ibr_result_destroy(a);
        ibr_result_destroy(b);
    }
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

/* The balanced trees spread 40 groups better than OpenSM's lowest port. */
static void test_balance(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=3,radix=8");
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    random_groups(g, t, 40, 3, 0);
    uint32_t busiest[2] = {0, 0};
    for (unsigned m = 0; m < 2; m++) {
        ibr_options o = IBR_OPTIONS_INIT;
        o.mcast_groups = g;
        o.mcast_flags = m ? IBR_MCAST_BALANCE : 0;
        ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
        ibr_result *r = ibr_test_route(&rep, t, "minhop", &o, IBR_TEST_DEADLOCK_FREE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(rep.mcast_pairs_ok, rep.mcast_pairs);
        CU_ASSERT_EQUAL(ibr_result_mcast_trees(r),
                        m ? IBR_MCAST_TREES_BALANCED : IBR_MCAST_TREES_OPENSM);
        const uint32_t *off;
        const ibr_switch_link *links;
        ibr_topo_switch_links(&off, &links, t);
        for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
            uint32_t load[256];
            size_t n;
            CU_ASSERT_EQUAL(ibr_result_mcast_port_load(load, 256, &n, r, s), 0);
            for (uint32_t a = off[s]; a < off[s + 1]; a++)
                if (load[links[a].port] > busiest[m])
                    busiest[m] = load[links[a].port];
        }
        ibr_result_destroy(r);
    }
    if (!(busiest[1] < busiest[0]))
        fprintf(stderr, "\nbusiest link: %u trees balanced, %u OpenSM\n", busiest[1], busiest[0]);
    CU_ASSERT(busiest[1] < busiest[0]);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

/* OpenSM's root choice through the toolkit, and groups with fewer than two
   members get an empty table. */
static int root_probe(ibr_run *run, void *user)
{
    uint32_t *out = user;
    const ibr_topo *t = ibr_run_topo(run);
    uint8_t *hops = ibr_run_hops(run);
    if (!hops || ibr_topo_switch_hops(hops, t, 1) < 0)
        return ibr_run_fail(run, IBR_ENOMEM, "oom");
    int rc = ibr_run_ucast(run, hops, NULL, NULL, NULL);
    if (rc < 0)
        return rc;
    out[0] = IBR_NONE;
    out[1] = (uint32_t)ibr_run_mcast_root(&out[0], run, hops, 0xC000);
    out[2] = (uint32_t)ibr_run_mcast_root(&out[3], run, hops, 0xC001);
    return ibr_run_mcast_default(run, hops, NULL, NULL);
}

static void test_root_and_small_groups(void)
{
    uint32_t probe[4];
    ibr_context *ctx = ibr_test_engine_context("probe", root_probe, probe);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    ibr_mcast_groups *g = NULL;
    ibr_mcast_groups_create(&g, t);
    /* two hosts of one leaf: the root is their leaf */
    add_ca(g, t, 0xC000, 0);
    add_ca(g, t, 0xC000, 1);
    add_ca(g, t, 0xC001, 3); /* one member only */
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "probe", &o), 0);
    uint32_t node;
    unsigned port;
    nth_ca(&node, &port, t, 0);
    CU_ASSERT_EQUAL(probe[1], 0);
    CU_ASSERT_EQUAL(probe[0], ibr_test_sw_behind(t, node, port));
    CU_ASSERT_EQUAL((int)probe[2], IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(ibr_result_mcast_count(r), 2);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        size_t n;
        uint8_t ports[8];
        CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 8, &n, r, 0xC001, s), 0);
        CU_ASSERT_EQUAL(n, 0);
        CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 8, &n, r, 0xC000, s), 0);
        CU_ASSERT_EQUAL(n, s == probe[0] ? 2 : 0);
    }
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.mcast_groups, 1);
    CU_ASSERT_EQUAL(rep.mcast_pairs_ok, 2);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &rep), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "\"mcast_pairs_ok\": 2"));
    ibr_buffer_dispose(&b);
    ibr_result_destroy(r);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* Allocation failures while building groups and trees leave nothing
   behind. */
static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&g, t), 0);
    random_groups(g, t, 4, 5, 1);
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    long fails = 0;
    ibr_result *r = ibr_test_route_oom(&fails, &st, t, "updn", &o);
    CU_ASSERT_PTR_NOT_NULL(r);
    CU_ASSERT(fails > 0);
    ibr_result_destroy(r);
    {
        /* lash on a faulty mesh, where the trees are rebuilt in one
           spanning tree (test_promise_kept): every allocation of that path
           may fail */
        ibr_fabric *f = NULL;
        ibr_topo *tm = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "mesh:dims=5x5,hosts=2"), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 3, 1, 1), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&tm, f), 0);
        ibr_mcast_groups *gm = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&gm, tm), 0);
        random_groups(gm, tm, 21, 7, 0);
        ibr_options om = IBR_OPTIONS_INIT;
        om.mcast_groups = gm;
        fails = 0;
        r = ibr_test_route_oom(&fails, &st, tm, "lash,no_fallback", &om);
        CU_ASSERT_PTR_NOT_NULL(r);
        CU_ASSERT(fails > 0);
        ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
        if (r) {
            CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
            CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        }
        ibr_result_destroy(r);
        ibr_mcast_groups_destroy(gm);
        ibr_topo_destroy(tm);
        ibr_fabric_destroy(f);
    }
    /* the parser too */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_mcast_groups_write(&b, g), 0);
    long live0 = st.live;
    for (long n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        ibr_mcast_groups *p = NULL;
        int rc = ibr_mcast_groups_parse(&p, t, b.data, b.size);
        st.fail_at = -1;
        if (rc == 0) {
            CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(p), ibr_mcast_groups_group_count(g));
            ibr_mcast_groups_destroy(p);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_PTR_NULL(p);
        CU_ASSERT_EQUAL_FATAL(st.live, live0);
    }
    ibr_buffer_dispose(&b);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"groups_api", test_groups_api},
        {"groups_file", test_groups_file},
        {"default_tree_by_hand", test_default_tree_by_hand},
        {"engine_own_trees", test_engine_own_trees},
        {"verify_broken_trees", test_verify_broken_trees},
        {"root_and_small_groups", test_root_and_small_groups},
        {"property_fat_trees", test_property_fat_trees},
        {"property_tori_random", test_property_tori_random},
        {"property_loaded_engines", test_property_loaded_engines},
        {"deadlock-free engines keep their promise with multicast", test_promise_kept},
        {"balance", test_balance},
        {"file_engine_trees", test_file_engine_trees},
        {"oom", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("mcast", tests);
}
