/* QoS: the qos_* configuration (OpenSM's defaults, value syntax, errors that
   name the line and key, objects untouched on error), and the tables the
   QoS manager programs into a result. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

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
    /* set(): unknown keys and bad values */
    CU_ASSERT_EQUAL(ibr_qos_config_set(q, "qos_policy_file", "x"), IBR_EINVAL);
    CU_ASSERT(strstr(ibr_qos_config_last_error(q), "no QoS parameter") != NULL);
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

int main(void)
{
    CU_TestInfo tests[] = {
        {"defaults", test_defaults},
        {"parse_families", test_parse_families},
        {"errors", test_errors},
        {"oom", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("qos", tests);
}
