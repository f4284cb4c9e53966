/* QoS: the qos_* configuration (OpenSM's defaults, value syntax, errors that
   name the line and key, objects untouched on error), and the tables the
   QoS manager programs into a result. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

static void test_defaults(void)
{
    ibr_qos_table tb;
    /* a NULL configuration and an empty one both give OpenSM's defaults */
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    for (int pass = 0; pass < 2; pass++)
        for (int t = IBR_QOS_GLOBAL; t <= IBR_QOS_SWE; t++) {
            CU_ASSERT_EQUAL_FATAL(ibr_qos_config_table(&tb, pass ? q : NULL, (ibr_qos_target)t),
                                  0);
            CU_ASSERT_EQUAL(tb.max_vls, 15);
            CU_ASSERT_EQUAL(tb.high_limit, 0);
            for (unsigned sl = 0; sl < 15; sl++)
                CU_ASSERT_EQUAL(tb.sl2vl[sl], sl);
            CU_ASSERT_EQUAL(tb.sl2vl[15], 7);
            for (unsigned i = 0; i < 15; i++) {
                CU_ASSERT_EQUAL(tb.vlarb_high[i].vl, i);
                CU_ASSERT_EQUAL(tb.vlarb_high[i].weight, i == 0 ? 4 : 0);
                CU_ASSERT_EQUAL(tb.vlarb_low[i].vl, i);
                CU_ASSERT_EQUAL(tb.vlarb_low[i].weight, i == 0 ? 0 : 4);
            }
            for (unsigned i = 15; i < IBR_VLARB_ENTRIES; i++)
                CU_ASSERT(tb.vlarb_low[i].vl == 0 && tb.vlarb_low[i].weight == 0);
        }
    CU_ASSERT_EQUAL(ibr_qos_config_table(NULL, q, IBR_QOS_CA), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_table(&tb, q, (ibr_qos_target)5), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_create(NULL, NULL), IBR_EINVAL);
    ibr_qos_config_destroy(q);
    ibr_qos_config_destroy(NULL);
}

static void test_parse_families(void)
{
    const char *conf = "# opensm.conf excerpt\n"
                       "routing_engine dfsssp\n"
                       "qos TRUE\n"
                       "qos_policy_file /etc/opensm/qos-policy.conf\n"
                       "qos_max_vls 8\n"
                       "qos_high_limit 0x10   # hex as OpenSM\n"
                       "qos_vlarb_low 0:32,1:32,2:16, 3:8\n"
                       "qos_sl2vl 0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7\n"
                       "qos_ca_sl2vl=0,1,2,3,5,5,5,12,12,0,\n" /* the man page's example */
                       "qos_swe_high_limit \"7\"\n"
                       "qos_rtr_vlarb_high (null)\n"
                       "qos_sw0_max_vls 0\n"
                       "qos_swe_vlarb_high 0:1,4:1\n";
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_parse(q, conf, strlen(conf)), 0);
    CU_ASSERT_STRING_EQUAL(ibr_qos_config_last_error(q), "");
    CU_ASSERT(ibr_qos_config_is_set(q, "qos_max_vls"));
    CU_ASSERT(ibr_qos_config_is_set(q, "qos_ca_sl2vl"));
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_rtr_vlarb_high"));
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_sw0_max_vls")); /* 0 unsets */
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_policy_file"));
    ibr_qos_table tb;
    /* global values reach every type without its own */
    CU_ASSERT_EQUAL(ibr_qos_config_table(&tb, q, IBR_QOS_RTR), 0);
    CU_ASSERT_EQUAL(tb.max_vls, 8);
    CU_ASSERT_EQUAL(tb.high_limit, 16);
    for (unsigned sl = 0; sl < 16; sl++)
        CU_ASSERT_EQUAL(tb.sl2vl[sl], sl / 2);
    CU_ASSERT(tb.vlarb_low[0].vl == 0 && tb.vlarb_low[0].weight == 32);
    CU_ASSERT(tb.vlarb_low[3].vl == 3 && tb.vlarb_low[3].weight == 8);
    CU_ASSERT(tb.vlarb_low[4].vl == 0 && tb.vlarb_low[4].weight == 0); /* unlisted: 0:0 */
    CU_ASSERT(tb.vlarb_high[0].vl == 0 && tb.vlarb_high[0].weight == 4); /* default */
    /* a type's own value wins; a short sl2vl list leaves VL 0 */
    CU_ASSERT_EQUAL(ibr_qos_config_table(&tb, q, IBR_QOS_CA), 0);
    static const uint8_t ca[16] = {0, 1, 2, 3, 5, 5, 5, 12, 12, 0, 0, 0, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(memcmp(tb.sl2vl, ca, 16), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_table(&tb, q, IBR_QOS_SWE), 0);
    CU_ASSERT_EQUAL(tb.high_limit, 7);
    CU_ASSERT(tb.vlarb_high[1].vl == 4 && tb.vlarb_high[1].weight == 1);
    CU_ASSERT(tb.vlarb_high[2].vl == 0 && tb.vlarb_high[2].weight == 0);
    /* the writer's text reads back to the same tables */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_write(&b, q), 0);
    ibr_qos_config *q2 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q2, NULL), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q2, b.data, b.size), 0);
    for (int t = IBR_QOS_GLOBAL; t <= IBR_QOS_SWE; t++) {
        ibr_qos_table a, c;
        ibr_qos_config_table(&a, q, (ibr_qos_target)t);
        ibr_qos_config_table(&c, q2, (ibr_qos_target)t);
        CU_ASSERT_EQUAL(memcmp(&a, &c, sizeof a), 0);
    }
    CU_ASSERT(strstr(b.data, "qos_ca_sl2vl 0,1,2,3,5,5,5,12,12,0,0,0,0,0,0,0\n") != NULL);
    ibr_buffer_dispose(&b);
    ibr_qos_config_destroy(q2);
    ibr_qos_config_destroy(q);
}

/* A bad value fails the whole parse, names the line and the key, and leaves
   the configuration as it was. */
static void test_errors(void)
{
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_swe_sl2vl", "1,0"), 0);
    ibr_qos_table before, after;
    ibr_qos_config_table(&before, q, IBR_QOS_SWE);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"qos_sl2vl 0,1\nqos_swe_sl2vl 0,1,16\n", "line 2: qos_swe_sl2vl: SL 2: '16'"},
        {"\n\nqos_max_vls 16\n", "line 3: qos_max_vls: 16 out of range"},
        {"qos_high_limit 256\n", "line 1: qos_high_limit: 256 out of range"},
        {"qos_vlarb_low 0:4,15:1\n", "line 1: qos_vlarb_low: entry 1: VL 15 out of range"},
        {"qos_ca_vlarb_high 0:256\n", "line 1: qos_ca_vlarb_high: entry 0: weight 256"},
        {"qos_rtr_vlarb_low 0-4\n", "line 1: qos_rtr_vlarb_low: entry 0: '0-4' is not VL:weight"},
        {"qos_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0\n", "more than 16 VLs"},
        {"qos_sw0_max_vls eight\n", "line 1: qos_sw0_max_vls: 'eight' is not a number"},
        {"qos_sl2vl\n", "line 1: qos_sl2vl: empty value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(ibr_qos_config_parse(q, bad[i].text, strlen(bad[i].text)), IBR_EPARSE);
        if (!strstr(ibr_qos_config_last_error(q), bad[i].msg))
            fprintf(stderr, "\n%s -> %s\n", bad[i].text, ibr_qos_config_last_error(q));
        CU_ASSERT(strstr(ibr_qos_config_last_error(q), bad[i].msg) != NULL);
        ibr_qos_config_table(&after, q, IBR_QOS_SWE);
        CU_ASSERT_EQUAL(memcmp(&before, &after, sizeof before), 0);
        CU_ASSERT(!ibr_qos_config_is_set(q, "qos_sl2vl")); /* line 1 of the first not kept */
    }
    /* 65 pairs */
    char big[1024] = "qos_vlarb_high ";
    for (int i = 0; i < 65; i++)
        strcat(big, "1:1,");
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q, big, strlen(big)), IBR_EPARSE);
    CU_ASSERT(strstr(ibr_qos_config_last_error(q), "more than 64") != NULL);
    CU_ASSERT(strstr(ibr_qos_config_last_error(q), "[QC008]") != NULL);
    /* stable codes (doc/messages.md), after the line and the key, read
       with the formats' lexer (CRLF, a comment, a blank line first) */
    static const char crlf[] = "# QoS\r\n\r\n  qos_max_vls = 16 # too many\r\n";
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q, crlf, strlen(crlf)), IBR_EPARSE);
    CU_ASSERT_STRING_EQUAL(ibr_qos_config_last_error(q),
                           "line 3: qos_max_vls: 16 out of range (1..15; 0 unsets) [QC003]");
    /* set(): unknown keys and bad values */
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_policy_file", "x"), IBR_EINVAL);
    CU_ASSERT(strstr(ibr_qos_config_last_error(q), "no QoS parameter") != NULL);
    CU_ASSERT(strstr(ibr_qos_config_last_error(q), "[QC018]") != NULL);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_xx_sl2vl", "0"), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_swe_sl2vl", "0,x"), IBR_EINVAL);
    CU_ASSERT(strstr(ibr_qos_config_last_error(q), "qos_swe_sl2vl: SL 1") != NULL);
    ibr_qos_config_table(&after, q, IBR_QOS_SWE);
    CU_ASSERT_EQUAL(memcmp(&before, &after, sizeof before), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_swe_sl2vl", "(null)"), 0);
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_swe_sl2vl"));
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_high_limit", "-1"), 0);
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_high_limit"));
    CU_ASSERT_EQUAL(ibr_qos_config_set(NULL, "qos_sl2vl", "0"), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, NULL, "0"), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_parse(NULL, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q, NULL, 3), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q, NULL, 0), 0);
    ibr_qos_config_destroy(q);
}

/* Allocation failure in parse: IBR_ENOMEM, the configuration unchanged. */
static void test_oom(void)
{
    ibr_test_alloc st = {.fail_at = -1};
    ibr_context *ctx = ibr_test_context(&st);
    long base = st.live;
    ibr_qos_config *q = NULL;
    st.fail_at = st.calls;
    CU_ASSERT_EQUAL(ibr_qos_config_create(&q, ctx), IBR_ENOMEM);
    CU_ASSERT_PTR_NULL(q);
    st.fail_at = -1;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, ctx), 0);
    st.fail_at = st.calls;
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q, "qos_sl2vl 1\n", 12), IBR_ENOMEM);
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_sl2vl"));
    st.fail_at = -1;
    ibr_qos_config_destroy(q);
    CU_ASSERT_EQUAL(st.live, base);
    ibr_context_destroy(ctx);
}

static uint32_t sw_index(const ibr_topo *t, uint32_t node)
{
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        if (ibr_topo_switch_node(t, s) == node)
            return s;
    return IBR_NONE;
}

/* Default QoS on a fat tree routed by minhop: every linked switch port,
   switch port 0 and end port gets OpenSM's defaults masked to 8 VLs;
   unlinked ports are left alone; a single SL raises no hazard. */
static void test_programmed_defaults(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=8");
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    ibr_result *r = ibr_test_route(NULL, t, "minhop", &o, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT(!ibr_result_has_qos(r));
    ibr_vlarb va;
    CU_ASSERT_EQUAL(ibr_result_vlarb(&va, r, 0, 1), IBR_ENOTFOUND);
    ibr_result_destroy(r);
    o.qos = q;
    r = ibr_test_route(NULL, t, "minhop", &o, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT(ibr_result_has_qos(r));
    CU_ASSERT(ibr_result_has_sl2vl(r));
    CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(r), 0);
    CU_ASSERT_EQUAL(ibr_result_qos_note_count(r), 0);
    static const uint8_t masked[16] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
    size_t sw_ports = 0, ep_ports = 0;
    for (uint32_t i = 0; i < ibr_topo_node_count(t); i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_node_info(&ni, t, i), 0);
        for (unsigned p = 0; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_topo_port_info(&pi, t, i, p), 0);
            /* switch port 0 (an enhanced port 0) is programmed as well */
            int link = (p > 0 && pi.remote_node != IBR_NONE) || (p == 0 && ni.type == IBR_NODE_SWITCH);
            int rc = ibr_result_vlarb(&va, r, i, p);
            if (ni.type != IBR_NODE_SWITCH && p == 0) {
                CU_ASSERT_EQUAL(rc, IBR_ERANGE);
                continue;
            }
            CU_ASSERT_EQUAL(rc, link ? 0 : IBR_ENOTFOUND);
            if (!link)
                continue;
            CU_ASSERT_EQUAL(va.n_low, 8);
            CU_ASSERT_EQUAL(va.n_high, 8);
            CU_ASSERT_EQUAL(va.high_limit, 0);
            for (unsigned k = 0; k < 8; k++) {
                CU_ASSERT(va.low[k].vl == k && va.low[k].weight == (k ? 4 : 0));
                CU_ASSERT(va.high[k].vl == k && va.high[k].weight == (k ? 0 : 4));
            }
            uint8_t m[16];
            if (ni.type == IBR_NODE_SWITCH) {
                sw_ports++;
                for (unsigned in = 0; in <= ni.nports; in++) {
                    CU_ASSERT_EQUAL_FATAL(ibr_result_sl2vl(m, r, sw_index(t, i), in, p), 0);
                    CU_ASSERT_EQUAL(memcmp(m, masked, 16), 0);
                }
            } else {
                ep_ports++;
                CU_ASSERT_EQUAL_FATAL(ibr_result_endport_sl2vl(m, r, i, p), 0);
                CU_ASSERT_EQUAL(memcmp(m, masked, 16), 0);
            }
        }
    }
    CU_ASSERT(sw_ports > 0 && ep_ports > 0);
    /* the writers: opensm-sl2vl.dump lines and the vlarb text */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_vlarb(&b, r), 0);
    CU_ASSERT(strstr(b.data, "# VLArbitration tables: Switch 0x") != NULL);
    CU_ASSERT(strstr(b.data, "# Low priority VL Arbitration Table:\nVL    : |0x0 |0x1 |0x2 |0x3 "
                             "|0x4 |0x5 |0x6 |0x7 |\nWEIGHT: |0x0 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 "
                             "|0x4 |\n") != NULL);
    CU_ASSERT(strstr(b.data, "\" lid 1 port 0 LowCap 8 HighCap 8 HighLimit 0\n") != NULL);
    ibr_buffer_dispose(&b);
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_sl2vl_dump(&b, r), 0);
    CU_ASSERT(strstr(b.data, "0   0   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7 \n") != NULL);
    ibr_buffer_dispose(&b);
    ibr_result_destroy(r);
    /* a configuration per port type reaches its ports */
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_ca_sl2vl", "1,1,1"), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_swe_vlarb_high", "3:9,12:1"), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_high_limit", "5"), 0);
    r = ibr_test_route(NULL, t, "minhop", &o, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (uint32_t i = 0; i < ibr_topo_node_count(t); i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, i);
        if (ibr_result_vlarb(&va, r, i, 1) < 0)
            continue;
        CU_ASSERT_EQUAL(va.high_limit, 5);
        if (ni.type == IBR_NODE_SWITCH) {
            /* VL 12 masked to the 8 operational VLs: 12 & 7 = 4 */
            CU_ASSERT(va.high[0].vl == 3 && va.high[0].weight == 9);
            CU_ASSERT(va.high[1].vl == 4 && va.high[1].weight == 1);
        } else {
            uint8_t m[16];
            ibr_result_endport_sl2vl(m, r, i, 1);
            CU_ASSERT(m[0] == 1 && m[2] == 1 && m[3] == 0 && m[15] == 0);
            CU_ASSERT(va.high[0].vl == 0 && va.high[0].weight == 4);
        }
    }
    ibr_result_destroy(r);
    ibr_qos_config_destroy(q);
    ibr_topo_destroy(t);
}

/* dfsssp needs its SLs on distinct VLs: a qos_sl2vl that merges them is a
   credit-loop hazard, reported with the port pair and the SLs, and the
   credit-loop check (which uses the programmed maps) finds a loop on the
   faulty torus OpenSM routes the same way. */
static void test_merged_sls(void)
{
    ibr_topo *t = ibr_test_topo_faults("torus:dims=5x4x3,hosts=1", 4, 0, 3, 0);
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.qos = q;
    /* the default map keeps SLs 0..7 apart: deadlock-free, no hazard */
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    ibr_result *r = ibr_test_route(&rep, t, "dfsssp,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    unsigned layers = ibr_result_layers(r);
    CU_ASSERT(layers >= 2);
    CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(r), 0);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_sl2vl", "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "dfsssp,no_fallback", &o), 0);
    CU_ASSERT(ibr_result_sl_hazard_count(r) >= 1);
    ibr_sl_hazard h;
    CU_ASSERT_EQUAL_FATAL(ibr_result_sl_hazard(&h, r, 0), 0);
    CU_ASSERT(h.sl_a == 0 && h.sl_b == 1 && h.vl == 0 && !h.masked && h.count > 0);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_topo_node_info(&ni, t, h.node), 0);
    CU_ASSERT_EQUAL(ni.type, IBR_NODE_SWITCH);
    uint8_t m[16];
    CU_ASSERT_EQUAL(ibr_result_sl2vl(m, r, sw_index(t, h.node), h.in_port, h.out_port), 0);
    CU_ASSERT(m[0] == 0 && m[1] == 0);
    CU_ASSERT_EQUAL(ibr_result_sl_hazard(&h, r, 99), IBR_ENOTFOUND);
    ibr_verify_report rep2 = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep2, r), 0);
    CU_ASSERT_EQUAL(rep2.deadlock_free, 0);
    ibr_result_destroy(r);
    /* an SL past the operational VLs: SL 8 on VL 8 is masked to VL 0 */
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_sl2vl", "(null)"), 0);
    ibr_qos_config_destroy(q);
    ibr_topo_destroy(t);
}

/* torus-2QoS owns SL2VL: its maps stay, the configured ones are reported
   as overridden, switch ports facing CAs get the VL 0 / VL 1 arbitration,
   and OpenSM's default arbitration is reported unfair. */
static void test_torus_owns(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=4x4x4,hosts=1");
    char conf[1024];
    const uint64_t g0 = 0x0002c90202000000ULL;
    snprintf(conf, sizeof conf,
             "torus 4 4 4\nxp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\nxm_link 0x%016" PRIx64
             " 0x%016" PRIx64 "\nyp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\nym_link 0x%016" PRIx64
             " 0x%016" PRIx64 "\nzp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\nzm_link 0x%016" PRIx64
             " 0x%016" PRIx64 "\n",
             g0, g0 + 1, g0, g0 + 3, g0, g0 + 4, g0, g0 + 12, g0, g0 + 16, g0, g0 + 48);
    ibr_param prm = {"torus-2QoS.config", conf};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &prm;
    o.n_params = 1;
    ibr_result *plain = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_sl2vl", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"), 0);
    o.qos = q;
    ibr_result *r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(r), 0);
    int unfair = 0, override = 0;
    for (size_t i = 0; i < ibr_result_qos_note_count(r); i++) {
        const char *n = ibr_result_qos_note(r, i);
        unfair += strstr(n, "unfair VL arbitration") != NULL;
        override += strstr(n, "overrides the configured qos_sl2vl") != NULL;
    }
    CU_ASSERT(unfair >= 1);
    CU_ASSERT_EQUAL(override, 1);
    CU_ASSERT_PTR_NULL(ibr_result_qos_note(r, 999));
    size_t ca_facing = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        uint32_t node = ibr_topo_switch_node(t, s);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned op = 1; op <= ni.nports; op++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, node, op);
            if (pi.remote_node == IBR_NONE)
                continue;
            uint8_t a[16], b[16];
            for (unsigned ip = 0; ip <= ni.nports; ip++) {
                ibr_result_sl2vl(a, r, s, ip, op);
                ibr_result_sl2vl(b, plain, s, ip, op);
                CU_ASSERT_EQUAL(memcmp(a, b, 16), 0);
            }
            ibr_node_info rn = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&rn, t, pi.remote_node);
            if (rn.type == IBR_NODE_SWITCH)
                continue;
            ca_facing++;
            ibr_vlarb va;
            CU_ASSERT_EQUAL_FATAL(ibr_result_vlarb(&va, r, node, op), 0);
            /* low default (0:0,1:4,...,7:4) keeps VL 0 and VL 4 (as VL 1) */
            CU_ASSERT(va.low[0].vl == 0 && va.low[0].weight == 0);
            CU_ASSERT(va.low[1].vl == 1 && va.low[1].weight == 4);
            for (unsigned k = 2; k < 8; k++)
                CU_ASSERT(va.low[k].vl == 0 && va.low[k].weight == 0);
            uint8_t m[16];
            ibr_result_endport_sl2vl(m, r, pi.remote_node, pi.remote_port);
            CU_ASSERT(m[0] == 0 && m[7] == 0 && m[8] == 1 && m[15] == 1);
        }
    }
    CU_ASSERT(ca_facing > 0);
    ibr_result_destroy(r);
    ibr_result_destroy(plain);
    ibr_qos_config_destroy(q);
    ibr_topo_destroy(t);
}

/* A user engine that programs another result's LFTs and path SLs (its
   VLs: as many as the SLs): an engine blind to the ports' VLs. */
static int copy_routes(ibr_run *run, void *user)
{
    const ibr_result *src = user;
    const ibr_topo *t = ibr_run_topo(run);
    unsigned top = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        memcpy(ibr_run_lft(run, s), ibr_result_lft(src, s), ibr_topo_max_lid(t) + 1u);
    int rc = ibr_run_set_sl_mode(run, IBR_SL_PER_PAIR);
    for (unsigned a = 1; rc == 0 && a <= ibr_topo_max_lid(t); a++) {
        uint8_t *row = ibr_run_sl_row(run, (uint16_t)a);
        for (unsigned b = 1; row && b <= ibr_topo_max_lid(t); b++) {
            row[b] = (uint8_t)ibr_result_path_sl(src, (uint16_t)a, (uint16_t)b);
            top = row[b] > top ? row[b] : top;
        }
    }
    return rc ? rc : ibr_run_set_vls_used(run, top + 1);
}

/* SLs past the ports' operational VLs. The built-in engines use no more
   VLs than the ports operate (doc/engines.md, VLs from the ports), so an
   engine blind to them plays dfsssp's routing of a faulty 5x4x3 torus
   whose ports have 15 VLs on the same torus whose ports operate 8: SL i
   and SL i + 8 are masked onto one VL, a hazard marked masked, and the
   programmed maps close a credit loop. */
static void test_masked_sls(void)
{
    ibr_topo *t15 = ibr_test_topo_faults("torus:dims=5x4x3,hosts=1,vls=15", 4, 0, 3, 0);
    ibr_options o15 = IBR_OPTIONS_INIT;
    o15.max_vls = 15;
    ibr_result *src = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&src, t15, "dfsssp,no_fallback", &o15), 0);
    CU_ASSERT_EQUAL(ibr_result_vls_used(src), 15);
    ibr_context *ctx = ibr_test_engine_context("blind", copy_routes, src);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=5x4x3,hosts=1"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 4, 0, 3), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_topo_max_lid(t), ibr_topo_max_lid(t15));
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.qos = q;
    o.max_vls = 15;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "blind,no_fallback", &o), 0);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 15);
    CU_ASSERT(ibr_result_sl_hazard_count(r) >= 1);
    for (size_t i = 0; i < ibr_result_sl_hazard_count(r); i++) {
        ibr_sl_hazard h;
        CU_ASSERT_EQUAL_FATAL(ibr_result_sl_hazard(&h, r, i), 0);
        CU_ASSERT(h.masked);
        CU_ASSERT_EQUAL(h.sl_b, h.sl_a + 8);
        CU_ASSERT_EQUAL(h.vl, h.sl_a);
    }
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.deadlock_free, 0);
    /* the same routing on ports that operate 15 VLs: no hazard, no loop */
    ibr_verify_report rep15 = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep15, src), 0);
    CU_ASSERT_EQUAL(rep15.deadlock_free, 1);
    ibr_result_destroy(r);
    ibr_result_destroy(src);
    ibr_qos_config_destroy(q);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_topo_destroy(t15);
    ibr_context_destroy(ctx);
}

/* The layered engines under OpenSM's default QoS on tori, meshes and a
   random graph: the default map keeps their SLs apart on 8 VLs, so no
   hazard and no credit loop; merging neighbouring SLs is reported whenever
   they use more than one. */
static void test_layered_engines(void)
{
    static const char *const specs[] = {"torus:dims=4x4x3,hosts=1", "mesh:dims=5x5,hosts=1",
                                        "random:switches=30,degree=4,hosts=1,seed=5"};
    static const char *const chains[] = {"dfsssp,no_fallback", "lash,no_fallback",
                                         "nue,no_fallback"};
    ibr_qos_config *dflt = NULL, *merged = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&dflt, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&merged, NULL), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_set(merged, "qos_sl2vl", "0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7"),
                    0);
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[i]);
        for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
            ibr_options o = IBR_OPTIONS_INIT;
            o.qos = dflt;
            ibr_result *r = ibr_test_route(NULL, t, chains[k], &o, IBR_TEST_DEADLOCK_FREE);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(r), 0);
            /* SLs in use: more than one means a merge of 0/1 can hurt */
            int several = 0;
            for (uint16_t d = 1; d <= ibr_topo_max_lid(t) && !several; d++)
                for (uint16_t s2 = 1; s2 <= ibr_topo_max_lid(t) && !several; s2++)
                    several = ibr_result_path_sl(r, s2, d) == 1;
            ibr_result_destroy(r);
            o.qos = merged;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, chains[k], &o), 0);
            if (several)
                CU_ASSERT(ibr_result_sl_hazard_count(r) > 0);
            ibr_result_destroy(r);
        }
        ibr_topo_destroy(t);
    }
    ibr_qos_config_destroy(dflt);
    ibr_qos_config_destroy(merged);
}

/* Allocation failure anywhere in a QoS routing: IBR_ENOMEM, nothing leaked. */
/* Paths per VL of QoS level lv counted by walking every all-to-all flow
   (every end port to every LID of every other end port) through the LFTs
   and the SL2VL tables: the oracle of ibr_analysis_vl_usage_level(). */
static void walk_level_vls(uint64_t vl[16], const ibr_topo *t, const ibr_result *r, unsigned lv)
{
    memset(vl, 0, 16 * sizeof *vl);
    uint32_t nn = ibr_topo_node_count(t);
    for (uint32_t a = 0; a < nn; a++) {
        ibr_node_info na = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&na, t, a);
        if (na.type == IBR_NODE_SWITCH)
            continue;
        for (unsigned pa = 1; pa <= na.nports; pa++) {
            ibr_port_info src = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&src, t, a, pa);
            if (!src.lid || src.remote_node == IBR_NONE || src.state != IBR_LINK_ACTIVE ||
                ibr_topo_node_switch(t, src.remote_node) == IBR_NONE)
                continue;
            for (uint16_t d = 1; d <= ibr_topo_max_lid(t); d++) {
                uint32_t dn;
                unsigned dp;
                if (ibr_topo_lid_owner(&dn, &dp, t, d) < 0 || (dn == a && dp == pa))
                    continue;
                ibr_node_info nd = IBR_NODE_INFO_INIT;
                ibr_topo_node_info(&nd, t, dn);
                ibr_port_info dst = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&dst, t, dn, dp);
                if (nd.type == IBR_NODE_SWITCH || dst.remote_node == IBR_NONE)
                    continue;
                uint32_t dsw = ibr_topo_node_switch(t, dst.remote_node);
                unsigned sl = ibr_result_path_sl_level(r, lv, src.lid, d);
                uint32_t s = ibr_topo_node_switch(t, src.remote_node);
                unsigned in = src.remote_port, mask = 0, steps = 0;
                for (;;) {
                    unsigned out = ibr_result_lft_port(r, s, d);
                    if (s == dsw && out == dst.remote_port)
                        break;
                    uint8_t map[16];
                    CU_ASSERT_FATAL(out != IBR_NO_ROUTE && steps++ < 64);
                    CU_ASSERT_EQUAL_FATAL(ibr_result_sl2vl(map, r, s, in, out), 0);
                    mask |= 1u << (map[sl] & 15);
                    ibr_port_info hop = IBR_PORT_INFO_INIT;
                    ibr_topo_port_info(&hop, t, ibr_topo_switch_node(t, s), out);
                    s = ibr_topo_node_switch(t, hop.remote_node);
                    in = hop.remote_port;
                }
                for (unsigned v = 0; v < 16; v++)
                    if (mask & (1u << v))
                        vl[v]++;
            }
        }
    }
}

/* QoS levels over the routing layers (ibr_qos_levels 1..4): lash, dfsssp
   and nue on faulty tori, meshes and random graphs route each level on VLs
   of its own (level l: the path SLs l strides up), within the ports' VLs,
   credit-loop free for every level under the programmed maps, with no
   hazard; the low VL arbitration tables give each level its weight; where
   the levels times the layers an engine needs do not fit, the engine
   declines with the numbers; and a qos_sl2vl that puts two levels on one
   VL is reported. */
static void test_levels(void)
{
    static const char *const specs[] = {"torus:dims=4x4x3,hosts=1", "mesh:dims=5x5,hosts=1",
                                        "random:switches=24,degree=4,hosts=1,seed=3"};
    static const char *const chains[] = {"lash,no_fallback", "dfsssp,no_fallback",
                                         "nue,no_fallback"};
    unsigned routed = 0, multi = 0, declined = 0;
    for (size_t f = 0; f < 3; f++) {
        ibr_topo *t = ibr_test_topo_faults(specs[f], 2, 0, 5, 0);
        for (size_t c = 0; c < 3; c++)
            for (unsigned q = 1; q <= 4; q++) {
                ibr_qos_config *cfg = NULL;
                CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&cfg, NULL), 0);
                char v[8];
                snprintf(v, sizeof v, "%u", q);
                CU_ASSERT_EQUAL_FATAL(ibr_qos_config_set(cfg, "ibr_qos_levels", v), 0);
                CU_ASSERT_EQUAL_FATAL(ibr_qos_config_set(cfg, "ibr_qos_level_weights",
                                                         "200,100,50,25"), 0);
                ibr_options o = IBR_OPTIONS_INIT;
                o.qos = cfg;
                ibr_result *r = NULL;
                int rc = ibr_route(&r, t, chains[c], &o);
                if (rc != 0) {
                    const char *e, *m;
                    int st;
                    CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
                    CU_ASSERT_PTR_NOT_NULL(strstr(m, "QoS levels"));
                    CU_ASSERT(q > 1);
                    declined++;
                    ibr_result_destroy(r);
                    ibr_qos_config_destroy(cfg);
                    continue;
                }
                CU_ASSERT_EQUAL(ibr_result_qos_levels(r), q);
                unsigned used = ibr_result_vls_used(r);
                CU_ASSERT(used <= ibr_topo_data_vls(t));
                CU_ASSERT(used % q == 0);
                unsigned k = used / q;
                for (unsigned l = 0; l < q; l++)
                    for (uint16_t a = 1; a <= 9; a += 4)
                        for (uint16_t b = 2; b <= ibr_topo_max_lid(t); b += 7)
                            CU_ASSERT_EQUAL(ibr_result_path_sl_level(r, l, a, b),
                                            ibr_result_path_sl(r, a, b) + l * k);
                CU_ASSERT_EQUAL(ibr_result_path_sl_level(r, q, 1, 2), 0xFF);
                CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(r), 0);
                ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
                CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
                CU_ASSERT_EQUAL(rep.deadlock_free, 1);
                CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
                if (q > 1) {
                    ibr_vlarb va;
                    unsigned port = 1; /* the first linked port of switch 0 */
                    while (port < 8 &&
                           ibr_result_vlarb(&va, r, ibr_topo_switch_node(t, 0), port) != 0)
                        port++;
                    CU_ASSERT_EQUAL_FATAL(ibr_result_vlarb(&va, r, ibr_topo_switch_node(t, 0),
                                                           port), 0);
                    static const unsigned w[4] = {200, 100, 50, 25};
                    for (unsigned i = 0; i < used && i < va.n_low; i++) {
                        CU_ASSERT_EQUAL(va.low[i].vl, i);
                        CU_ASSERT_EQUAL(va.low[i].weight, w[i / k]);
                    }
                    /* the analysis gives every level's VL usage: level l on
                       level 0's VLs shifted by l x k, as the flows walked
                       through the SL2VL tables use them */
                    ibr_analyze_options ao = IBR_ANALYZE_OPTIONS_INIT;
                    ao.patterns = IBR_PATTERN_ALL_TO_ALL;
                    ibr_analysis *an = NULL;
                    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&an, r, &ao), 0);
                    CU_ASSERT_EQUAL(ibr_analysis_qos_levels(an), q);
                    uint64_t v0[16], vl[16], walked[16];
                    CU_ASSERT_EQUAL(ibr_analysis_vl_usage(v0, an), 0);
                    for (unsigned l = 0; l < q; l++) {
                        CU_ASSERT_EQUAL(ibr_analysis_vl_usage_level(vl, an, l), 0);
                        for (unsigned x = 0; x < 16; x++) {
                            CU_ASSERT_EQUAL(vl[x], x >= l * k ? v0[x - l * k] : 0);
                            if (vl[x])
                                CU_ASSERT(x >= l * k && x < (l + 1) * k);
                        }
                        if (f == 0 || l == q - 1) {
                            walk_level_vls(walked, t, r, l);
                            CU_ASSERT_EQUAL(memcmp(walked, vl, sizeof vl), 0);
                        }
                    }
                    CU_ASSERT_EQUAL(ibr_analysis_vl_usage_level(vl, an, q), IBR_ERANGE);
                    ibr_analysis_summary as = IBR_ANALYSIS_SUMMARY_INIT;
                    ibr_analysis_summary_get(&as, an);
                    unsigned used_vls = 0;
                    for (unsigned x = 0; x < 16; x++)
                        used_vls += v0[x] != 0;
                    CU_ASSERT_EQUAL(as.vls_used, used_vls * q);
                    ibr_analysis_destroy(an);
                    multi++;
                }
                routed++;
                ibr_result_destroy(r);
                ibr_qos_config_destroy(cfg);
            }
        ibr_topo_destroy(t);
    }
    CU_ASSERT(routed >= 20);
    CU_ASSERT(multi >= 12);
    CU_ASSERT(declined >= 1);

    /* two levels of lash, and a map that folds level 1 onto level 0 */
    ibr_topo *t = ibr_test_topo_faults("torus:dims=4x4x3,hosts=1", 2, 0, 5, 0);
    ibr_qos_config *cfg = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&cfg, NULL), 0);
    CU_ASSERT_EQUAL(ibr_qos_config_parse(cfg, "ibr_qos_levels 2\n", 17), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.qos = cfg;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "lash,no_fallback", &o), 0);
    unsigned k = ibr_result_vls_used(r) / 2;
    ibr_result_destroy(r);
    char map[64];
    size_t n = 0;
    for (unsigned sl = 0; sl < 16; sl++)
        n += (size_t)snprintf(map + n, sizeof map - n, "%s%u", sl ? "," : "", sl % k);
    CU_ASSERT_EQUAL(ibr_qos_config_set(cfg, "qos_sl2vl", map), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "lash,no_fallback", &o), 0);
    CU_ASSERT(ibr_result_sl_hazard_count(r) >= 1);
    ibr_sl_hazard h;
    CU_ASSERT_EQUAL(ibr_result_sl_hazard(&h, r, 0), 0);
    CU_ASSERT_EQUAL(h.sl_b, h.sl_a + k);
    ibr_result_destroy(r);
    /* bad values name the key */
    CU_ASSERT_EQUAL(ibr_qos_config_set(cfg, "ibr_qos_levels", "9"), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_qos_config_last_error(cfg), "ibr_qos_levels"));
    CU_ASSERT_EQUAL(ibr_qos_config_parse(cfg, "ibr_qos_level_weights 0\n", 24), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_qos_config_last_error(cfg), "line 1"));
    CU_ASSERT_EQUAL(ibr_qos_config_is_set(cfg, "ibr_qos_levels"), 1);
    CU_ASSERT_EQUAL(ibr_qos_config_is_set(cfg, "ibr_qos_level_weights"), 0);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_qos_config_write(&b, cfg), 0);
    CU_ASSERT_PTR_NOT_NULL(b.data && strstr(b.data, "ibr_qos_levels 2\n"));
    ibr_buffer_dispose(&b);
    ibr_qos_config_destroy(cfg);
    ibr_topo_destroy(t);
}

static void test_route_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=3x3,hosts=1");
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.qos = q;
    long fails = 0;
    ibr_result *r = ibr_test_route_oom(&fails, &st, t, "dfsssp,no_fallback", &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT(ibr_result_has_qos(r));
    CU_ASSERT(fails > 5);
    ibr_result_destroy(r);
    ibr_qos_config_destroy(q);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* The warnings of a context, one after the other. */
static void collect_warnings(void *user, int level, const char *msg)
{
    char *buf = user;
    size_t n = strlen(buf);
    if (level == IBR_LOG_WARN && n + strlen(msg) + 2 < 1024)
        snprintf(buf + n, 1024 - n, "%s\n", msg);
}

/* A key that looks like a QoS key but is none (a misspelling) is ignored
   with a warning naming it and the closest known key (issue 34); other
   opensm.conf keys and OpenSM's qos_policy_file are ignored silently. */
static void test_unknown_keys(void)
{
    char warnings[1024] = "";
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    cfg.log = collect_warnings;
    cfg.log_user = warnings;
    cfg.log_level = IBR_LOG_WARN;
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, &cfg), 0);
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, ctx), 0);
    const char *conf = "qos_max_vls 4\n"
                       "qos_ca_sl2vl_ 0,1\n"
                       "log_flags 0x03\n"
                       "qos_policy_file /etc/opensm/qos-policy.conf\n"
                       "ibr_qos_level 2\n"
                       "qos_zzzzzzzzzzzzzz 1\n";
    CU_ASSERT_EQUAL(ibr_qos_config_parse(q, conf, strlen(conf)), 0);
    CU_ASSERT(ibr_qos_config_is_set(q, "qos_max_vls"));
    CU_ASSERT(!ibr_qos_config_is_set(q, "qos_ca_sl2vl"));
    CU_ASSERT_PTR_NOT_NULL(strstr(warnings, "line 2: unknown key 'qos_ca_sl2vl_' ignored (did "
                                            "you mean 'qos_ca_sl2vl'?) [QC019]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(warnings, "line 5: unknown key 'ibr_qos_level' ignored (did "
                                            "you mean 'ibr_qos_levels'?) [QC019]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(warnings, "line 6: unknown key 'qos_zzzzzzzzzzzzzz' ignored [QC020]\n"));
    CU_ASSERT_PTR_NULL(strstr(warnings, "log_flags"));
    CU_ASSERT_PTR_NULL(strstr(warnings, "qos_policy_file"));
    CU_ASSERT_PTR_NULL(strstr(warnings, "line 1"));
    ibr_qos_config_destroy(q);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"defaults", test_defaults},
        {"parse_families", test_parse_families},
        {"errors", test_errors},
        {"oom", test_oom},
        {"programmed_defaults", test_programmed_defaults},
        {"merged_sls", test_merged_sls},
        {"torus_owns", test_torus_owns},
        {"masked_sls", test_masked_sls},
        {"layered_engines", test_layered_engines},
        {"route_oom", test_route_oom},
        {"levels", test_levels},
        {"unknown_keys", test_unknown_keys},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("qos", tests);
}
