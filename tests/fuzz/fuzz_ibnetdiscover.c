/* libFuzzer target: the ibnetdiscover / ibsim topology parser.
   Properties: no crash, leak or sanitizer report on any input; a text that
   parses writes back to a text that parses to the same fabric (written
   again, byte for byte); small fabrics route and verify. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibr_fabric *f = NULL, *g = NULL;
    ibr_topo *t = NULL, *u = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
    int rc = ibr_fabric_parse_ibnetdiscover(f, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(ibr_fabric_node_count(f) == 0); /* left empty */
        FUZZ_CHECK(ibr_fabric_last_error(f)[0] != 0);
        goto out;
    }
    /* ports without a LID get one, as the command does */
    if (ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP) < 0 || ibr_fabric_freeze(&t, f) < 0)
        goto out; /* e.g. more LIDs than the unicast space */
    FUZZ_CHECK(ibr_topo_write_ibnetdiscover(&a, t) == 0);
    FUZZ_CHECK(ibr_fabric_create(&g, NULL) == 0);
    rc = ibr_fabric_parse_ibnetdiscover(g, a.data, a.size);
    if (rc != 0) {
        fprintf(stderr, "written text does not parse back: %s\n%s\n", ibr_fabric_last_error(g),
                a.data);
        abort();
    }
    FUZZ_CHECK(ibr_fabric_node_count(g) == ibr_fabric_node_count(f));
    FUZZ_CHECK(ibr_fabric_freeze(&u, g) == 0);
    FUZZ_CHECK(ibr_topo_write_ibnetdiscover(&b, u) == 0);
    FUZZ_CHECK(fuzz_same(&a, &b));
    if (ibr_topo_node_count(t) <= 48) {
        ibr_result *r = NULL;
        rc = ibr_route(&r, t, "minhop", NULL);
        FUZZ_CHECK(rc == 0 || rc == IBR_EUNROUTABLE);
        if (rc == 0) {
            ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
            rep.threads = 1;
            rc = ibr_result_verify(&rep, r);
            FUZZ_CHECK(rc == 0 || rc == IBR_EROUTES);
        }
        ibr_result_destroy(r);
    }
out:
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_topo_destroy(u);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);
    return 0;
}
