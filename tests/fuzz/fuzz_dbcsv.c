/* libFuzzer target: the ibdiagnet database reader (ibdiagnet2.db_csv).
   Properties: no crash, leak or sanitizer report; a failed parse leaves
   the fabric empty with a message; a text that parses reads the same
   again (both fabrics, frozen, write the same ibnetdiscover text). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse, give missing LIDs, freeze and write: 0, -1 when the text does not
   parse or the fabric cannot be frozen (e.g. more LIDs than fit). */
static int parse_write(ibr_buffer *out, ibr_fabric *f, const uint8_t *data, size_t size)
{
    ibr_topo *t = NULL;
    int rc = ibr_fabric_parse_db_csv(f, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(ibr_fabric_node_count(f) == 0); /* left empty */
        FUZZ_CHECK(ibr_fabric_last_error(f)[0] != 0);
        return -1;
    }
    if (ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP) < 0 || ibr_fabric_freeze(&t, f) < 0)
        return -1;
    FUZZ_CHECK(ibr_topo_write_ibnetdiscover(out, t) == 0);
    ibr_topo_destroy(t);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibr_fabric *f = NULL, *g = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
    FUZZ_CHECK(ibr_fabric_create(&g, NULL) == 0);
    if (parse_write(&a, f, data, size) == 0) {
        FUZZ_CHECK(parse_write(&b, g, data, size) == 0);
        FUZZ_CHECK(fuzz_same(&a, &b));
    }
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);
    return 0;
}
