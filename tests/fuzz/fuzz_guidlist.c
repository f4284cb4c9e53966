/* libFuzzer target: the GUID-list files (root/cn/io/routing-order lists,
   ids_guid_file, ignore-guids). The first byte picks the kind.
   Properties: no crash or sanitizer report; a list that parses, written
   back one entry per line, parses to the same entries. */
#include <inttypes.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    ibr_guid_list_kind kind = (ibr_guid_list_kind)(data[0] % 3);
    ibr_guid_list *l = NULL, *m = NULL;
    int rc = ibr_guid_list_parse(&l, NULL, kind, (const char *)data + 1, size - 1);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(rc != IBR_EPARSE || (l && ibr_guid_list_last_error(l)[0]));
        ibr_guid_list_destroy(l);
        return 0;
    }
    size_t n = ibr_guid_list_count(l);
    char *text = malloc(n * 64 + 1);
    FUZZ_CHECK(text != NULL);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind == IBR_GUID_LIST_PLAIN)
            off += (size_t)sprintf(text + off, "0x%016" PRIx64 "\n", ibr_guid_list_guids(l)[i]);
        else if (kind == IBR_GUID_LIST_ID)
            off += (size_t)sprintf(text + off, "0x%016" PRIx64 " 0x%" PRIx64 "\n",
                                   ibr_guid_list_ids(l)[i].guid, ibr_guid_list_ids(l)[i].id);
        else
            off += (size_t)sprintf(text + off, "0x%016" PRIx64 " %u\n",
                                   ibr_guid_list_ports(l)[i].guid, ibr_guid_list_ports(l)[i].port);
    }
    rc = ibr_guid_list_parse(&m, NULL, kind, text, off);
    if (rc != 0) {
        fprintf(stderr, "written list does not parse back: %s\n%s", ibr_guid_list_last_error(m),
                text);
        abort();
    }
    FUZZ_CHECK(ibr_guid_list_count(m) == n);
    for (size_t i = 0; i < n; i++) {
        if (kind == IBR_GUID_LIST_PLAIN)
            FUZZ_CHECK(ibr_guid_list_guids(m)[i] == ibr_guid_list_guids(l)[i]);
        else if (kind == IBR_GUID_LIST_ID)
            FUZZ_CHECK(ibr_guid_list_ids(m)[i].guid == ibr_guid_list_ids(l)[i].guid &&
                       ibr_guid_list_ids(m)[i].id == ibr_guid_list_ids(l)[i].id);
        else
            FUZZ_CHECK(ibr_guid_list_ports(m)[i].guid == ibr_guid_list_ports(l)[i].guid &&
                       ibr_guid_list_ports(m)[i].port == ibr_guid_list_ports(l)[i].port);
    }
    free(text);
    ibr_guid_list_destroy(m);
    ibr_guid_list_destroy(l);
    return 0;
}
