/* libFuzzer target: the multicast groups file of `ibr route --groups`
   against a fixed small fat tree.
   Properties: no crash or sanitizer report; a failed parse gives an empty
   set with a message naming the line; a file that parses writes back to a
   text that parses to the same set (written again byte for byte), and the
   set routes with minhop into trees the verifier finds exact. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ibr_topo *t = fuzz_topo();
    ibr_mcast_groups *g = NULL, *h = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    ibr_result *r = NULL;
    int rc = ibr_mcast_groups_parse(&g, t, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(rc != IBR_EPARSE ||
                   (g && !strncmp(ibr_mcast_groups_last_error(g), "line ", 5) &&
                    ibr_mcast_groups_group_count(g) == 0));
        goto out;
    }
    FUZZ_CHECK(ibr_mcast_groups_write(&a, g) == 0);
    rc = ibr_mcast_groups_parse(&h, t, a.data, a.size);
    if (rc != 0) {
        fprintf(stderr, "written groups do not read back: %s\n", ibr_mcast_groups_last_error(h));
        abort();
    }
    FUZZ_CHECK(ibr_mcast_groups_group_count(h) == ibr_mcast_groups_group_count(g));
    FUZZ_CHECK(ibr_mcast_groups_write(&b, h) == 0);
    FUZZ_CHECK(fuzz_same(&a, &b));
    ibr_options o = IBR_OPTIONS_INIT;
    o.mcast_groups = g;
    o.threads = 1;
    o.mcast_flags = size & 1 ? IBR_MCAST_BALANCE : 0;
    FUZZ_CHECK(ibr_route(&r, t, "minhop", &o) == 0);
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    rep.threads = 1;
    FUZZ_CHECK(ibr_result_verify(&rep, r) == 0);
    FUZZ_CHECK(rep.mcast_pairs_ok == rep.mcast_pairs);
out:
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_result_destroy(r);
    ibr_mcast_groups_destroy(h);
    ibr_mcast_groups_destroy(g);
    return 0;
}
