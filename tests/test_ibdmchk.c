/* Cross-check the credit-loop verdict with an independent tool: ibdmchk
   (Debian's ibutils) reads our opensm-subnet.lst, opensm.fdbs and, for
   VL-aware checks, the path-SL and SL2VL files. Both must agree: minhop on
   a ring or torus has a credit loop, on a tree none, and a VL-layered
   routing is loop-free only when its SLs are taken into account. Skipped
   (exit 77) when ibdmchk is not installed. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp(): POSIX, not ISO C */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

#define IBDMCHK "/usr/bin/ibdmchk"

static char dir[256];

static void put(const char *name, int (*wr)(ibr_buffer *, const ibr_result *),
                const ibr_result *r)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(wr(&b, r), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    if (b.size)
        fwrite(b.data, 1, b.size, f);
    fclose(f);
    ibr_buffer_dispose(&b);
}

static int subnet_lst(ibr_buffer *b, const ibr_result *r)
{
    return ibr_topo_write_subnet_lst(b, ibr_result_topo(r));
}

/* Run ibdmchk on the files in dir; returns 1 when it reports a credit loop,
   0 when it reports none, -1 when its output says neither. */
static int ibdmchk(int with_vl)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && " IBDMCHK " -s subnet.lst -f fdbs -m mcfdbs %s > out.txt 2>&1; cat out.txt",
             dir, with_vl ? "-c psl -d sl2vl" : "");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[1024];
    int loop = -1;
    while (fgets(line, sizeof line, p)) {
        /* "-I- no credit loops found" or "Found credit loop on: ..." and
           "-E- credit loops in routing" */
        if (strstr(line, "no credit loops found"))
            loop = 0;
        else if (strstr(line, "Found credit loop") || strstr(line, "credit loops in routing"))
            loop = 1;
    }
    pclose(p);
    return loop;
}

static void write_all(const ibr_result *r)
{
    put("subnet.lst", subnet_lst, r);
    put("fdbs", ibr_result_write_fdbs, r);
    put("mcfdbs", ibr_result_write_mcfdbs, r);
    put("psl", ibr_result_write_path_sl, r);
    put("sl2vl", ibr_result_write_sl2vl, r);
}

static int ours(const ibr_result *r)
{
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    return rep.deadlock_free ? 0 : 1;
}

static void test_minhop(void)
{
    static const struct {
        const char *spec;
        int loop;
    } cases[] = {
        {"torus:dims=5,hosts=1", 1},
        {"torus:dims=4x4,hosts=1", 1},
        {"hypercube:dim=3,hosts=1", 1},
        {"fattree:levels=2,radix=8", 0},
        {"fattree:levels=3,radix=8,hosts=2", 0},
        {"mesh:dims=5,hosts=2", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ibr_topo *t = ibr_test_topo(NULL, cases[i].spec);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
        write_all(r);
        int theirs = ibdmchk(0);
        CU_ASSERT_EQUAL(ours(r), cases[i].loop);
        CU_ASSERT_EQUAL(theirs, cases[i].loop);
        if (theirs != cases[i].loop)
            fprintf(stderr, "%s: ibdmchk says %d\n", cases[i].spec, theirs);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

static void test_layered(void)
{
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    ibr_test_layered cfg = {2, 1}; /* per-pair SLs, SL s on VL s + 1 */
    ibr_engine e = {IBR_ENGINE_VERSION, "layered", NULL, IBR_CAP_SL, ibr_test_layered_route,
                    &cfg};
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=5,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "layered,no_fallback", NULL), 0);
    write_all(r);
    CU_ASSERT_EQUAL(ours(r), 0);
    CU_ASSERT_EQUAL(ibdmchk(1), 0); /* with SLs: no loop */
    CU_ASSERT_EQUAL(ibdmchk(0), 1); /* ignoring them: a loop */
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    if (access(IBDMCHK, X_OK) != 0) {
        fprintf(stderr, "ibdmchk not installed: skipped\n");
        return 77;
    }
    snprintf(dir, sizeof dir, "/tmp/ibr-ibdmchk-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    CU_TestInfo tests[] = {
        {"minhop: loops agree with ibdmchk", test_minhop},
        {"VL layering agrees with ibdmchk", test_layered},
        CU_TEST_INFO_NULL,
    };
    int rc = ibr_test_main("ibdmchk", tests);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 2;
    return rc;
}
