/*
 * Repair in place of layered routings (lash, dfsssp, nue) from the routing
 * database: after seeded single-cable and single-switch faults on a torus,
 * a mesh, a random graph and a dragonfly (and a fat tree for dfsssp and
 * nue), and when the cable or switch
 * comes back, every answer is valid (ibr_result_verify()), free of credit
 * loops by an independent walk over LFTs, path SLs and SL2VL tables, a
 * path whose route did not change keeps its SL, a path that crossed no
 * lost element keeps its route, and the report's LFT entries and path SLs
 * changed are those a recount finds.
 *
 * With IBR_REPAIR_TIMING set in the environment, the repair and the full
 * reroute are also timed side by side (interleaved, medians) on an
 * 8x8x8 torus and a random 128-switch degree-6 graph, and the ratios
 * printed (no assertion on time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repair_check.h"

typedef struct family {
    const char *spec, *chain;
    const ibr_options *o;
} family;

static void faults_on(const family *fam, ibr_test_tally *ty)
{
    ibr_fabric *f = ibr_test_fabric(fam->spec);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, fam->chain, fam->o), 0);
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (unsigned kind = 0; kind < 2; kind++) {
            ibr_fabric *g = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(g, kind == 0, kind == 1, seed), 0);
            ibr_topo *t1 = ibr_test_freeze(g);
            char what[200];
            snprintf(what, sizeof what, "%s %s seed %llu %s", fam->spec, fam->chain,
                     (unsigned long long)seed, kind ? "switch" : "cable");
            ibr_result *y = ibr_test_reroute(r0, t1, ty, what);
            /* the element comes back: from the repaired routing's database */
            strncat(what, " back", sizeof what - strlen(what) - 1);
            ibr_result *z = ibr_test_reroute(y, t0, ty, what);
            ibr_result_destroy(z);
            ibr_result_destroy(y);
            ibr_topo_destroy(t1);
            ibr_fabric_destroy(g);
        }
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

static const ibr_param mesh_param = {"lash.mesh_analysis", "1"};

static void run_families(const char *engine)
{
    static ibr_options om = IBR_OPTIONS_INIT;
    om.params = &mesh_param;
    om.n_params = 1;
    char chain[64];
    snprintf(chain, sizeof chain, "%s,no_fallback", engine);
    int lash = !strcmp(engine, "lash");
    const family fams[] = {
        {"torus:dims=4x4x3,hosts=2", chain, lash ? &om : NULL},
        {"mesh:dims=5x4,hosts=1", chain, lash ? &om : NULL},
        {"random:switches=24,degree=4,hosts=2,seed=3", chain, NULL},
        {"dragonfly:a=4,p=2,h=2,g=5", chain, NULL},
    };
    ibr_test_tally ty = {0, 0, 0};
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
        faults_on(&fams[i], &ty);
    /* repairs in place are the rule, full reroutes (with their reason) the
       exception */
    fprintf(stderr, "\n%s: %u repaired in place, %u full reroutes\n", engine, ty.repaired,
            ty.full);
    CU_ASSERT(ty.repaired >= 4 * ty.full);
}

static void test_lash(void)
{
    run_families("lash");
}

static void test_dfsssp(void)
{
    run_families("dfsssp");
}

/* dfsssp on a fat tree routes every pair in one layer; the switches' own
   paths (spine to spine through a leaf) turn down and up and would close
   loops with the end ports' traffic, but the promise covers end ports only.
   A repair that counted them fell back to a full reroute on every fault
   here ("the saved routing had one"): each fault is repaired in place. */
static void test_dfsssp_fat_tree(void)
{
    const family fam = {"fattree:levels=2,radix=24", "dfsssp,no_fallback", NULL};
    ibr_test_tally ty = {0, 0, 0};
    faults_on(&fam, &ty);
    fprintf(stderr, "\nfat tree: %u repaired in place, %u full reroutes\n", ty.repaired, ty.full);
    CU_ASSERT_EQUAL(ty.full, 0);
    CU_ASSERT(ty.repaired > 0);
}

/* nue is not minimal and its layers are per destination (one layer
   without path SLs on a fat tree): the switches whose saved paths broke
   join what is intact of each destination's tree, the moved paths are
   placed into layers, and the unmoved ones keep routes and SLs. Every
   fault here is repaired in place. */
static void test_nue(void)
{
    ibr_test_tally ty = {0, 0, 0};
    const family fams[] = {
        {"torus:dims=4x4x3,hosts=2", "nue,no_fallback", NULL},
        {"fattree:levels=2,radix=16", "nue,no_fallback", NULL},
        {"random:switches=24,degree=4,hosts=2,seed=3", "nue,no_fallback", NULL},
        {"dragonfly:a=4,p=2,h=2,g=5", "nue,no_fallback", NULL},
    };
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
        faults_on(&fams[i], &ty);
    fprintf(stderr, "\nnue: %u repaired in place, %u full reroutes\n", ty.repaired, ty.full);
    CU_ASSERT_EQUAL(ty.full, 0);
    CU_ASSERT(ty.repaired > 0);
}

/* Allocation failures anywhere in a layered repair: IBR_ENOMEM and
   nothing leaked, until the repair succeeds in place. */
static void oom_one(const char *spec, const char *chain)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t0, chain, NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 1, 0, 2), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    long live = st.live, fails = 0;
    for (long n = 0;; n++) {
        st.fail_at = st.calls + n;
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        int rc = ibr_routing_db_route(&y, &rep, db, t1, NULL, 0);
        st.fail_at = -1;
        ibr_result_destroy(y);
        CU_ASSERT_EQUAL_FATAL(st.live, live);
        if (rc == 0) {
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        fails++;
    }
    CU_ASSERT(fails > 20);
    ibr_routing_db_destroy(db);
    ibr_topo_destroy(t1);
    ibr_result_destroy(r);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

static void test_oom(void)
{
    oom_one("torus:dims=4x3x2,hosts=1", "lash,no_fallback");
    oom_one("mesh:dims=5x4,hosts=1", "dfsssp,no_fallback");
    oom_one("torus:dims=4x3x2,hosts=1", "nue,no_fallback");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Repair against full reroute of one lost cable, interleaved, medians. */
static void time_one(const char *spec, const ibr_options *o)
{
    ibr_fabric *f = ibr_test_fabric(spec);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "lash,no_fallback", o), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 1, 0, 1), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    enum { N = 7 };
    double rep_t[N], full_t[N];
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT, kept = rep;
    for (int i = 0; i < N; i++)
        for (unsigned fl = 0; fl < 2; fl++) {
            ibr_result *y = NULL;
            rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
            double t = now_s();
            CU_ASSERT_EQUAL_FATAL(
                ibr_routing_db_route(&y, &rep, db, t1, o, fl ? IBR_REROUTE_FORCE_FULL : 0), 0);
            (fl ? full_t : rep_t)[i] = now_s() - t;
            if (!fl) {
                CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
                kept = rep;
            }
            ibr_result_destroy(y);
        }
    qsort(rep_t, N, sizeof *rep_t, cmp_d);
    qsort(full_t, N, sizeof *full_t, cmp_d);
    printf("\n%s lash, one lost cable: repair / full reroute = %.3f (medians of %d, "
           "interleaved: %.1f / %.1f ms; %llu path SLs changed)\n",
           spec, rep_t[N / 2] / full_t[N / 2], N, rep_t[N / 2] * 1e3, full_t[N / 2] * 1e3,
           (unsigned long long)kept.sls_changed);
    ibr_routing_db_destroy(db);
    ibr_topo_destroy(t1);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

static void test_timing(void)
{
    if (!getenv("IBR_REPAIR_TIMING"))
        return;
    static ibr_options om = IBR_OPTIONS_INIT;
    om.params = &mesh_param;
    om.n_params = 1;
    time_one("torus:dims=8x8x8,hosts=2", &om);
    time_one("random:switches=128,degree=6,hosts=2,seed=1", NULL);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"lash: faults repaired in place, SLs stable, loop-free, counts exact", test_lash},
        {"dfsssp: faults repaired in place, SLs stable, loop-free, counts exact", test_dfsssp},
        {"dfsssp on a fat tree: repaired in place, end ports' paths loop-free",
         test_dfsssp_fat_tree},
        {"nue: faults repaired in place, SLs stable, loop-free, counts exact", test_nue},
        {"allocation failures in a layered repair", test_oom},
        {"repair against full reroute time (IBR_REPAIR_TIMING)", test_timing},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("repair_layered", tests);
}
