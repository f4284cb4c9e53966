/* libFuzzer target: routing databases (include/ibroute/persist.h).
   Properties: no crash or sanitizer report; a database that parses writes
   back to text that parses and writes again byte for byte; comparing it
   against a fixed fabric and applying it never crashes (a result, when
   one comes back, verifies without error codes other than EROUTES). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibr_routing_db *db = NULL, *db2 = NULL;
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    int rc = ibr_routing_db_parse(&db, NULL, (const char *)data, size);
    if (rc < 0) {
        FUZZ_CHECK(rc == IBR_EPARSE || rc == IBR_ENOMEM);
        FUZZ_CHECK(rc != IBR_EPARSE || (db && ibr_routing_db_last_error(db)[0]));
        goto out;
    }
    FUZZ_CHECK(ibr_routing_db_write(&a, db) == 0);
    rc = ibr_routing_db_parse(&db2, NULL, a.data, a.size);
    if (rc != 0) {
        fprintf(stderr, "written database does not parse back: %s\n",
                ibr_routing_db_last_error(db2));
        abort();
    }
    FUZZ_CHECK(ibr_routing_db_write(&b, db2) == 0);
    FUZZ_CHECK(fuzz_same(&a, &b));
    size_t needed = 0;
    rc = ibr_routing_db_compare(NULL, 0, &needed, db, fuzz_topo());
    FUZZ_CHECK(rc == 0 || rc == IBR_ERANGE);
    ibr_result *r = NULL;
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 1;
    rc = ibr_routing_db_route(&r, NULL, db, fuzz_topo(), &o, 0);
    if (rc == 0) {
        ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
        rep.threads = 1;
        rc = ibr_result_verify(&rep, r);
        FUZZ_CHECK(rc == 0 || rc == IBR_EROUTES);
    }
    ibr_result_destroy(r);
out:
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_routing_db_destroy(db2);
    ibr_routing_db_destroy(db);
    return 0;
}
