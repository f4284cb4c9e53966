/* libFuzzer target: the qos_* keys of opensm.conf (ibr_qos_config_parse).
   Properties: no crash or sanitizer report; a failed parse names a line
   and leaves the configuration as it was; a text that parses writes back
   to one that parses to the same tables (written again byte for byte);
   the configuration routes a small fat tree with QoS on, every programmed
   VL within the ports' 8 operational VLs (or 15, dropped). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void tables(ibr_qos_table *t, const ibr_qos_config *q)
{
    for (int i = 0; i <= IBR_QOS_SWE; i++)
        FUZZ_CHECK(ibr_qos_config_table(&t[i], q, (ibr_qos_target)i) == 0);
}

static ibr_topo *small_topo(void)
{
    static ibr_topo *t;
    if (!t) {
        ibr_fabric *f = NULL;
        FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
        FUZZ_CHECK(ibr_fabric_generate(f, "fattree:levels=2,radix=4") == 0);
        FUZZ_CHECK(ibr_fabric_freeze(&t, f) == 0);
        ibr_fabric_destroy(f);
    }
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibr_qos_config *q = NULL, *q2 = NULL;
    ibr_qos_table before[5], after[5];
    FUZZ_CHECK(ibr_qos_config_create(&q, NULL) == 0);
    FUZZ_CHECK(ibr_qos_config_set(q, "qos_swe_sl2vl", "1,2,3") == 0);
    tables(before, q);
    int rc = ibr_qos_config_parse(q, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(rc != IBR_EPARSE || !strncmp(ibr_qos_config_last_error(q), "line ", 5));
        tables(after, q);
        FUZZ_CHECK(memcmp(before, after, sizeof before) == 0);
        ibr_qos_config_destroy(q);
        return 0;
    }
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    FUZZ_CHECK(ibr_qos_config_write(&a, q) == 0);
    FUZZ_CHECK(ibr_qos_config_create(&q2, NULL) == 0);
    if (ibr_qos_config_parse(q2, a.data ? a.data : "", a.size) != 0) {
        fprintf(stderr, "written text does not parse back: %s\n%s",
                ibr_qos_config_last_error(q2), a.data ? a.data : "");
        abort();
    }
    tables(before, q);
    tables(after, q2);
    FUZZ_CHECK(memcmp(before, after, sizeof before) == 0);
    FUZZ_CHECK(ibr_qos_config_write(&b, q2) == 0);
    FUZZ_CHECK(fuzz_same(&a, &b));
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);

    ibr_topo *t = small_topo();
    ibr_options o = IBR_OPTIONS_INIT;
    o.qos = q;
    ibr_result *r = NULL;
    FUZZ_CHECK(ibr_route(&r, t, "minhop", &o) == 0);
    FUZZ_CHECK(ibr_result_has_qos(r));
    for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        FUZZ_CHECK(ibr_topo_node_info(&ni, t, n) == 0);
        for (unsigned p = 0; p <= ni.nports; p++) {
            ibr_vlarb v;
            if (ibr_result_vlarb(&v, r, n, p) != 0)
                continue;
            FUZZ_CHECK(v.n_high == 8 && v.n_low == 8);
            for (unsigned k = 0; k < 8; k++)
                FUZZ_CHECK(v.high[k].vl < 8 && v.low[k].vl < 8);
            uint8_t m[16];
            if (ni.type != IBR_NODE_SWITCH) {
                FUZZ_CHECK(ibr_result_endport_sl2vl(m, r, n, p) == 0);
                for (unsigned k = 0; k < 16; k++)
                    FUZZ_CHECK(m[k] < 8 || m[k] == 15);
            }
        }
    }
    ibr_result_destroy(r);
    ibr_qos_config_destroy(q2);
    ibr_qos_config_destroy(q);
    return 0;
}
