/* OpenSM's SA database dump as multicast groups
   (ibr_mcast_groups_parse_sa_dump): records in OpenSM 3.3's syntax, the
   groups OpenSM's restore keeps or drops, line-numbered errors, and the
   trees a routing builds for them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Port GUID of the i-th cabled CA port of t (node order); 0 if none. */
static uint64_t ca_port_guid(const ibr_topo *t, uint32_t i, uint64_t *node_guid,
                             unsigned *port)
{
    uint32_t k = 0;
    for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, n);
        if (ni.type == IBR_NODE_SWITCH)
            continue;
        for (unsigned p = 1; p <= ni.nports; p++) {
            if (ibr_test_sw_behind(t, n, p) == IBR_NONE || k++ != i)
                continue;
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, n, p);
            if (node_guid)
                *node_guid = ni.node_guid;
            if (port)
                *port = p;
            return pi.guid;
        }
    }
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static size_t append(char *buf, size_t off, size_t cap, const char *fmt, ...);

static size_t append(char *buf, size_t off, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + off, cap - off, fmt, ap);
    va_end(ap);
    return off + (size_t)n;
}

/* A group record as OpenSM 3.3 writes it. */
static size_t group_rec(char *buf, size_t off, size_t cap, unsigned mlid, unsigned idx,
                        int well_known)
{
    return append(buf, off, cap,
                  "MC Group 0x%04x%s: mgid=0xff12601bffff0000:0x%016x "
                  "port_gid=0xfe80000000000000:0x0002c90301000001 qkey=0x00000000 "
                  "mlid=0x%04x mtu=0x84 tclass=0x00 pkey=0xffff rate=0x83 pkt_life=0x00 "
                  "sl_flow_hop=0x00000000 scope_state=0x21 proxy_join=0x0\n\n",
                  mlid, well_known ? " (well known)" : "", idx, mlid);
}

static size_t member_rec(char *buf, size_t off, size_t cap, uint64_t guid, unsigned state)
{
    return append(buf, off, cap,
                  "mcm_port: port_gid=0xfe80000000000000:0x%016llx scope_state=0x%02x "
                  "proxy_join=0x0\n\n",
                  (unsigned long long)guid, state);
}

static void test_records(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    uint64_t n0, n3;
    unsigned p0, p3;
    uint64_t g0 = ca_port_guid(t, 0, &n0, &p0), g1 = ca_port_guid(t, 1, NULL, NULL);
    uint64_t g3 = ca_port_guid(t, 3, &n3, &p3), g5 = ca_port_guid(t, 5, NULL, NULL);
    CU_ASSERT_FATAL(g0 && g1 && g3 && g5);
    static char text[8192];
    size_t o = 0, cap = sizeof text;
    o = append(text, o, cap, "# SA database\nGUIDInfo Record: base_guid=0x%016llx lid=0x0001 "
               "block_num=0x0 guid0=0x0 guid1=0x0 guid2=0x0 guid3=0x0 guid4=0x0 guid5=0x0 "
               "guid6=0x0 guid7=0x0\n\n", (unsigned long long)g0);
    /* 0xC001: two full members, a send-only one, a port listed twice and
       a port the fabric does not have (both as OpenSM: counted once,
       skipped) */
    o = group_rec(text, o, cap, 0xC001, 1, 0);
    o = member_rec(text, o, cap, g0, 0x21);
    o = member_rec(text, o, cap, g3, 0x21);
    o = member_rec(text, o, cap, g5, 0x24);
    o = member_rec(text, o, cap, g3, 0x21);
    o = member_rec(text, o, cap, 0x1234, 0x21);
    /* 0xC002: no full member, not well known: dropped */
    o = group_rec(text, o, cap, 0xC002, 2, 0);
    o = member_rec(text, o, cap, g1, 0x22);
    /* 0xC000: well known, kept with a non-member only */
    o = group_rec(text, o, cap, 0xC000, 0xffff, 1);
    o = member_rec(text, o, cap, g1, 0x22);
    /* a second MGID on 0xC001: OpenSM cannot restore it */
    o = group_rec(text, o, cap, 0xC001, 9, 0);
    o = member_rec(text, o, cap, g1, 0x21);
    /* a service record ends the group: a member after it is no member */
    o = group_rec(text, o, cap, 0xC003, 3, 0);
    o = member_rec(text, o, cap, g0, 0x21);
    o = append(text, o, cap, "Service Record: id=0x1 gid=0x0:0x0 pkey=0xffff lease=0x0\n\n");
    o = member_rec(text, o, cap, g1, 0x21);
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_parse_sa_dump(&g, t, text, o), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 3);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid_count(g), 3);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid(g, 0), 0xC000);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid(g, 1), 0xC001);
    CU_ASSERT_EQUAL(ibr_mcast_groups_mlid(g, 2), 0xC003);
    ibr_mcast_member m[8];
    size_t need = 0;
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 8, &need, g, 0xC001), 0);
    CU_ASSERT_EQUAL(need, 3);
    int seen0 = 0, seen3 = 0, sendonly = 0;
    for (size_t i = 0; i < need && i < 8; i++) {
        seen0 |= m[i].guid == n0 && m[i].port == p0 && m[i].join_state == 1;
        seen3 |= m[i].guid == n3 && m[i].port == p3 && m[i].join_state == 1;
        sendonly |= m[i].join_state == IBR_MCAST_JOIN_SENDONLY;
    }
    CU_ASSERT(seen0 && seen3 && sendonly);
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 8, &need, g, 0xC000), 0);
    CU_ASSERT_EQUAL(need, 1);
    CU_ASSERT_EQUAL(m[0].join_state, IBR_MCAST_JOIN_NON);
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 8, &need, g, 0xC003), 0);
    CU_ASSERT_EQUAL(need, 1);
    CU_ASSERT_EQUAL(ibr_mcast_groups_members(m, 8, &need, g, 0xC002), IBR_ENOTFOUND);
    uint16_t mlid = 0;
    uint8_t mgid[16];
    int has = 0;
    size_t members = 0;
    CU_ASSERT_EQUAL(ibr_mcast_groups_group(&mlid, mgid, &has, &members, g, 0), 0);
    static const uint8_t want[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0, 0,
                                     0,    0,    0,    0,    0,    0,    0, 1};
    CU_ASSERT_EQUAL(mlid, 0xC001);
    CU_ASSERT_EQUAL(has, 1);
    CU_ASSERT_EQUAL(memcmp(mgid, want, 16), 0);
    CU_ASSERT_EQUAL(members, 3);

    /* the groups route: 0xC001's three members reach each other */
    ibr_options opts = IBR_OPTIONS_INIT;
    opts.mcast_groups = g;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", &opts), 0);
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.mcast_groups, 1); /* 0xC001; the others have one member */
    CU_ASSERT_EQUAL(rep.mcast_pairs, 6);
    CU_ASSERT_EQUAL(rep.mcast_pairs_ok, rep.mcast_pairs);
    ibr_result_destroy(r);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

static void test_errors(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    uint64_t g0 = ca_port_guid(t, 0, NULL, NULL);
    char ok_member[256];
    snprintf(ok_member, sizeof ok_member,
             "mcm_port: port_gid=0xfe80000000000000:0x%016llx scope_state=0x21 proxy_join=0x0\n",
             (unsigned long long)g0);
    static const char grp[] =
        "MC Group 0xc001 : mgid=0xff12601bffff0000:0x0000000000000001 "
        "port_gid=0xfe80000000000000:0x0 qkey=0x0 mlid=0xc001 mtu=0x84 tclass=0x0 "
        "pkey=0xffff rate=0x83 pkt_life=0x0 sl_flow_hop=0x0 scope_state=0x21 proxy_join=0x0\n";
    char text[2048];
    struct {
        const char *head, *tail, *msg;
    } bad[] = {
        {"\n\nMC Group 0xbfff : mgid=0xff12601bffff0000:0x1 scope_state=0x21\n", "",
         "line 3: MLID 0xBFFF is outside the multicast range"},
        {"MC Group 0xc001 : mgid=0xff12601bffff0000 scope_state=0x21\n", "",
         "line 1: no ':0x' field"},
        {"MC Group 0xc001 : mgid=0xzz:0x1 scope_state=0x21\n", "",
         "line 1: bad value 'zz:0x1' after ' mgid=0x'"},
        {"MC Group 0xc001 : mgid=0xff12601bffff0000:0x1\n", "", "line 1: no ' scope_state=0x'"},
        {"MC Group 0xc0010 : mgid=0x1:0x1 scope_state=0x21\n", "", "line 1: bad value '"},
        {grp, "mcm_port: port_gid=0xfe80000000000000:0x1 scope_state=0x20\n",
         "line 3: member 0x0000000000000001 with join state 0"},
        {grp, "mcm_port: scope_state=0x21\n", "line 3: no ' port_gid=0x' field"},
        {grp, "mcm_port: port_gid=0xfe80000000000000:0x1 scope_state=0x121\n",
         "line 3: bad value '121' after ' scope_state=0x'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s%s", bad[i].head, ok_member, bad[i].tail);
        ibr_mcast_groups *g = NULL;
        CU_ASSERT_EQUAL(ibr_mcast_groups_parse_sa_dump(&g, t, text, strlen(text)), IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        if (!strstr(ibr_mcast_groups_last_error(g), bad[i].msg))
            fprintf(stderr, "\ncase %zu -> %s\n", i, ibr_mcast_groups_last_error(g));
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_mcast_groups_last_error(g), bad[i].msg));
        CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 0);
        ibr_mcast_groups_destroy(g);
    }
    /* not NUL-terminated: the parser stops at len */
    snprintf(text, sizeof text, "%s%s", grp, ok_member);
    size_t len = strlen(text);
    text[len] = 'X';
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse_sa_dump(&g, t, text, len), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 1);
    ibr_mcast_groups_destroy(g);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse_sa_dump(NULL, t, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse_sa_dump(&g, NULL, "", 0), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(g);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse_sa_dump(&g, t, NULL, 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_mcast_groups_parse_sa_dump(&g, t, NULL, 0), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(g), 0);
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    static char text[16384];
    size_t o = 0;
    for (unsigned k = 0; k < 4; k++) {
        o = group_rec(text, o, sizeof text, 0xC001 + k, k + 1, 0);
        for (uint32_t i = 0; i < 8; i++)
            o = member_rec(text, o, sizeof text, ca_port_guid(t, (i * 3 + k) % 8, NULL, NULL),
                           0x21);
    }
    long live0 = st.live;
    for (long n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        ibr_mcast_groups *p = NULL;
        int rc = ibr_mcast_groups_parse_sa_dump(&p, t, text, o);
        st.fail_at = -1;
        if (rc == 0) {
            CU_ASSERT(n > 0);
            CU_ASSERT_EQUAL(ibr_mcast_groups_group_count(p), 4);
            ibr_mcast_groups_destroy(p);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_PTR_NULL(p);
        CU_ASSERT_EQUAL_FATAL(st.live, live0);
    }
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"records", test_records},
        {"errors", test_errors},
        {"oom", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("sa_dump", tests);
}
