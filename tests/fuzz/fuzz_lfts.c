/* libFuzzer target: the LFT dump reader (opensm-lfts.dump, ibroute and
   dump_lfts output, fdbs dumps of OpenSM and ibdiagnet) against a fixed
   small fat tree.
   Properties: no crash or sanitizer report; a dump that reads writes back
   (opensm-lfts.dump) to a text that reads to the same tables; the verifier
   runs on whatever was read; the same text fed in pieces (ibr_lfts_stream,
   piece sizes taken from the text) gives the same result or the same
   error message. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The text read again in pieces of 1..16 bytes (sizes from its bytes):
   same return, same tables or same message as the whole text's r. */
static void same_in_pieces(const ibr_topo *t, const uint8_t *data, size_t size, int rc,
                           const ibr_result *r)
{
    ibr_lfts_stream *st = NULL;
    ibr_result *p = NULL;
    if (ibr_lfts_stream_new(&st, t) < 0)
        return;
    int frc = 0;
    for (size_t at = 0; at < size && frc == 0;) {
        size_t n = 1 + (data[at] & 15);
        if (n > size - at)
            n = size - at;
        frc = ibr_lfts_stream_feed(st, (const char *)data + at, n);
        at += n;
    }
    int prc = ibr_lfts_stream_finish(st, &p);
    ibr_lfts_stream_destroy(st);
    if (prc == IBR_ENOMEM || rc == IBR_ENOMEM) {
        ibr_result_destroy(p);
        return;
    }
    FUZZ_CHECK(prc == rc);
    if (rc == IBR_EPARSE)
        FUZZ_CHECK(strcmp(ibr_result_last_error(p), ibr_result_last_error(r)) == 0);
    else
        for (uint32_t sw = 0; sw < ibr_topo_switch_count(t); sw++)
            FUZZ_CHECK(memcmp(ibr_result_lft(r, sw), ibr_result_lft(p, sw),
                              ibr_result_lft_size(r)) == 0);
    ibr_result_destroy(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ibr_topo *t = fuzz_topo();
    ibr_result *r = NULL, *s = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    int rc = ibr_result_parse_lfts(&r, t, (const char *)data, size);
    if (r)
        same_in_pieces(t, data, size, rc, r);
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
