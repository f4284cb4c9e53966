#include "harness.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ibr_test_main(const char *suite, CU_TestInfo *tests)
{
    CU_SuiteInfo suites[] = {
        {suite, NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0)
        return 1;
    return failed ? 1 : 0;
}

/* Each block carries a header with its size so realloc can be counted. */
static void *t_malloc(void *user, size_t size)
{
    ibr_test_alloc *a = user;
    long n = a->calls++;
    if (a->fail_at >= 0 && n >= a->fail_at)
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p)
        a->live++;
    return p;
}

static void *t_realloc(void *user, void *ptr, size_t size)
{
    ibr_test_alloc *a = user;
    long n = a->calls++;
    if (a->fail_at >= 0 && n >= a->fail_at)
        return NULL;
    void *p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        a->live++;
    return p;
}

static void t_free(void *user, void *ptr)
{
    ibr_test_alloc *a = user;
    if (ptr)
        a->live--;
    free(ptr);
}

ibr_context *ibr_test_context(ibr_test_alloc *state)
{
    ibr_allocator al = {t_malloc, t_realloc, t_free, state};
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    ibr_context *ctx = NULL;
    long saved = state->fail_at;
    cfg.alloc = &al;
    state->fail_at = -1;
    if (ibr_context_create(&ctx, &cfg) < 0)
        ctx = NULL;
    state->fail_at = saved;
    state->calls = 0;
    return ctx;
}

ibr_topo *ibr_test_topo(ibr_context *ctx, const char *spec)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    int rc = ibr_fabric_create(&f, ctx);
    if (rc == 0)
        rc = ibr_fabric_generate(f, spec);
    if (rc == 0)
        rc = ibr_fabric_freeze(&t, f);
    if (rc < 0)
        fprintf(stderr, "ibr_test_topo(%s): %s: %s\n", spec, ibr_strerror(rc),
                f ? ibr_fabric_last_error(f) : "");
    ibr_fabric_destroy(f);
    return t;
}

char *ibr_test_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(fp);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}
