/* libFuzzer target: the link-list reader (opensm-subnet.lst,
   ibdiagnet2.lst). Properties: no crash, leak or sanitizer report; a
   failed parse leaves the fabric empty with a message; a text that parses
   writes back to a text that parses to a fabric written again byte for
   byte. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse, give missing LIDs, freeze and write: 0, or -1 when the fabric
   cannot be frozen (e.g. more LIDs than the unicast space). */
static int lst_write(ibr_buffer *out, ibr_fabric *f, ibr_topo **t)
{
    if (ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP) < 0 || ibr_fabric_freeze(t, f) < 0)
        return -1;
    FUZZ_CHECK(ibr_topo_write_subnet_lst(out, *t) == 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibr_fabric *f = NULL, *g = NULL;
    ibr_topo *t = NULL, *u = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
    int rc = ibr_fabric_parse_subnet_lst(f, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(ibr_fabric_node_count(f) == 0); /* left empty */
        FUZZ_CHECK(ibr_fabric_last_error(f)[0] != 0);
        goto out;
    }
    if (lst_write(&a, f, &t) < 0)
        goto out;
    FUZZ_CHECK(ibr_fabric_create(&g, NULL) == 0);
    rc = ibr_fabric_parse_subnet_lst(g, a.data, a.size);
    if (rc != 0 && a.size) {
        fprintf(stderr, "written text does not parse back: %s\n%s\n", ibr_fabric_last_error(g),
                a.data);
        abort();
    }
    if (rc == 0) {
        FUZZ_CHECK(lst_write(&b, g, &u) == 0);
        FUZZ_CHECK(fuzz_same(&a, &b));
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
