/* libFuzzer target: the LFT dump reader (opensm-lfts.dump, ibroute and
   dump_lfts output, fdbs dumps of OpenSM and ibdiagnet) against a fixed
   small fat tree.
   Properties: no crash or sanitizer report; a dump that reads writes back
   (opensm-lfts.dump) to a text that reads to the same tables; the verifier
   runs on whatever was read. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ibr_topo *t = fuzz_topo();
    ibr_result *r = NULL, *s = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    int rc = ibr_result_parse_lfts(&r, t, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(rc != IBR_EPARSE || (r && ibr_result_last_error(r)[0]));
        goto out;
    }
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    rep.threads = 1;
    rc = ibr_result_verify(&rep, r);
    FUZZ_CHECK(rc == 0 || rc == IBR_EROUTES);
    FUZZ_CHECK(ibr_result_write_lfts_dump(&a, r) == 0);
    rc = ibr_result_parse_lfts(&s, t, a.data, a.size);
    if (rc != 0) {
        fprintf(stderr, "written dump does not read back: %s\n", ibr_result_last_error(s));
        abort();
    }
    for (uint32_t sw = 0; sw < ibr_topo_switch_count(t); sw++)
        FUZZ_CHECK(memcmp(ibr_result_lft(r, sw), ibr_result_lft(s, sw),
                          ibr_result_lft_size(r)) == 0);
    FUZZ_CHECK(ibr_result_write_lfts_dump(&b, s) == 0);
    FUZZ_CHECK(fuzz_same(&a, &b));
out:
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_result_destroy(s);
    ibr_result_destroy(r);
    return 0;
}
