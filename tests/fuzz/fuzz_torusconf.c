/* libFuzzer target: the torus-2QoS.conf language, given to the torus-2QoS
   engine (setting torus-2QoS.config) on a fixed 3x3x3 torus.
   Properties: no crash or sanitizer report; the engine routes (and the
   routing verifies, credit-loop free through its SLs) or declines/fails
   with a message. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const ibr_topo *torus(void)
{
    static ibr_topo *t;
    if (!t) {
        ibr_fabric *f = NULL;
        FUZZ_CHECK(ibr_fabric_create(&f, NULL) == 0);
        FUZZ_CHECK(ibr_fabric_generate(f, "torus:dims=3x3x3,hosts=1") == 0);
        FUZZ_CHECK(ibr_fabric_freeze(&t, f) == 0);
        ibr_fabric_destroy(f);
    }
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the setting's value is a C string: stop at a NUL */
    char *text = malloc(size + 1);
    FUZZ_CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = 0;
    ibr_param p = {"torus-2QoS.config", text};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = &p;
    o.n_params = 1;
    o.threads = 1;
    ibr_result *r = NULL;
    int rc = ibr_route(&r, torus(), "torus-2QoS,no_fallback", &o);
    if (rc == 0) {
        ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
        rep.threads = 1;
        FUZZ_CHECK(ibr_result_verify(&rep, r) == 0);
        FUZZ_CHECK(rep.deadlock_free == 1);
    } else {
        FUZZ_CHECK(r != NULL && ibr_result_last_error(r)[0]);
        FUZZ_CHECK(rc != IBR_EINTERNAL);
    }
    ibr_result_destroy(r);
    free(text);
    return 0;
}
