/* libFuzzer target: OpenSM's guid2lid file against a fixed fabric.
   Properties: no crash or sanitizer report; a failed parse changes no LID;
   a file that parses writes back (from the frozen fabric) to a text that
   parses to the same LIDs. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibr_fabric *f = NULL, *g = NULL;
    ibr_topo *t = NULL, *u = NULL;
    ibr_buffer before = IBR_BUFFER_INIT, a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    FUZZ_CHECK(ibr_fabric_clone(&f, fuzz_fabric()) == 0);
    FUZZ_CHECK(ibr_fabric_freeze(&t, f) == 0);
    FUZZ_CHECK(ibr_topo_write_guid2lid(&before, t) == 0);
    ibr_topo_destroy(t);
    t = NULL;
    int rc = ibr_fabric_parse_guid2lid(f, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_EEXIST || rc == IBR_ENOMEM);
        FUZZ_CHECK(ibr_fabric_freeze(&t, f) == 0);
        FUZZ_CHECK(ibr_topo_write_guid2lid(&a, t) == 0);
        FUZZ_CHECK(fuzz_same(&a, &before)); /* nothing applied */
        goto out;
    }
    if (ibr_fabric_freeze(&t, f) < 0)
        goto out;
    FUZZ_CHECK(ibr_topo_write_guid2lid(&a, t) == 0);
    FUZZ_CHECK(ibr_fabric_clone(&g, fuzz_fabric()) == 0);
    FUZZ_CHECK(ibr_fabric_parse_guid2lid(g, a.data, a.size) == 0);
    FUZZ_CHECK(ibr_fabric_freeze(&u, g) == 0);
    FUZZ_CHECK(ibr_topo_write_guid2lid(&b, u) == 0);
    FUZZ_CHECK(fuzz_same(&a, &b));
out:
    ibr_buffer_dispose(&before);
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_topo_destroy(u);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);
    return 0;
}
