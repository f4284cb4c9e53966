/* libFuzzer target: ibdiagnet's .sl2vl and ibdmchk's path-SL file, read
   into minhop's tables of a small fat tree (the first byte chooses which).
   Properties: no crash, leak or sanitizer report; a failed parse leaves
   the result's maps and SLs as they were, with a message; a text that
   parses gives tables that written back and read into fresh tables give
   the same text. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int write_vl(ibr_buffer *out, const ibr_result *r, int sl2vl)
{
    return sl2vl ? ibr_result_write_sl2vl(out, r) : ibr_result_write_path_sl(out, r);
}

static int read_vl(ibr_result *r, const char *buf, size_t len, int sl2vl)
{
    return sl2vl ? ibr_result_parse_sl2vl(r, buf, len) : ibr_result_parse_path_sl(r, buf, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int sl2vl = data[0] & 1;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    ibr_result *r = NULL, *s = NULL;
    ibr_buffer before = IBR_BUFFER_INIT, a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    FUZZ_CHECK(ibr_route(&r, fuzz_topo(), "minhop", NULL) == 0);
    FUZZ_CHECK(write_vl(&before, r, sl2vl) == 0);
    int rc = read_vl(r, text, len, sl2vl);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(ibr_result_last_error(r)[0] != 0);
        FUZZ_CHECK(write_vl(&a, r, sl2vl) == 0);
        FUZZ_CHECK(fuzz_same(&a, &before)); /* nothing applied */
        goto out;
    }
    FUZZ_CHECK(write_vl(&a, r, sl2vl) == 0);
    FUZZ_CHECK(ibr_route(&s, fuzz_topo(), "minhop", NULL) == 0);
    if (a.size) {
        FUZZ_CHECK(read_vl(s, a.data, a.size, sl2vl) == 0);
        FUZZ_CHECK(write_vl(&b, s, sl2vl) == 0);
        FUZZ_CHECK(fuzz_same(&a, &b));
    }
out:
    ibr_buffer_dispose(&before);
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_result_destroy(s);
    ibr_result_destroy(r);
    return 0;
}
