/* Every numeric setting of every built-in engine, at its extreme values,
   finishes in time proportional to the fabric. The settings come from the
   engine registry (ibr_context_engine()), so a setting added later is
   covered without a change here.

   For each engine, each integer or boolean setting and each of its two
   extreme values (min and max; 0 and 1), and each pair of fabrics (a
   smaller and a larger one), the route runs in a child process
   (ibr_test_in_child()) that is killed after LIMIT_S seconds of wall time:
   a hang or an exponential search fails here, and does not wait for the
   test's timeout. Where both finish, the larger fabric may take at most
   GROWTH times the processor time of the smaller. The pairs are chosen so
   that the work an engine needs grows about 16 times: fat trees and a
   torus 4 times larger (the engines are about quadratic in the fabric),
   and one switch with 16 times the hosts at LMC 7 (nothing to route but
   the LIDs: linear). Times under FLOOR_S count as FLOOR_S, and a larger
   fabric routed in under FAST_S passes whatever the ratio: the routes take
   milliseconds, and on those a busy machine or a sanitizer decides the
   ratio, not the engine.

   The fabrics carry compute and I/O node lists (every fourth CA port an
   I/O node; ftree, sssp and dfsssp read them), so that ftree's
   max_reverse_hops has I/O nodes to search for. Issue 34 item 5: ftree
   with max_reverse_hops 255 never finished (its search was exponential in
   the setting), and nue took seconds on one switch with 254 hosts at
   LMC 7 (a destination order quadratic in the LIDs of a switch).

   An engine may decline an extreme value on a fabric (lash with
   start_vl 15 and 8 VLs, ftree on a torus, torus-2QoS without its
   configuration): that is an answer too. What is checked is that it
   answers, in time, and neither fails otherwise nor crashes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* wall seconds after which a route counts as hung (they take
   milliseconds) */
#define LIMIT_S 60.0
/* growth allowed from the smaller fabric of a pair to the larger */
#define GROWTH 32.0
/* processor seconds below which a time is not measured but taken as this */
#define FLOOR_S 0.005
/* a larger fabric routed in fewer processor seconds passes whatever its
   growth (the smaller ones take milliseconds, where a noisy machine or a
   sanitizer decides the ratio) */
#define FAST_S 0.25

typedef struct fabric_pair {
    const char *name;
    const char *spec[2]; /* generator specs, or NULL for a star */
    unsigned star[2];    /* hosts of the star (one switch) */
    unsigned lmc;
} fabric_pair;

static const fabric_pair pairs[] = {
    {"2-level fat tree", {"fattree:levels=2,radix=8", "fattree:levels=2,radix=16"}, {0, 0}, 0},
    {"3-level fat tree", {"fattree:levels=3,radix=4", "fattree:levels=3,radix=6"}, {0, 0}, 0},
    {"torus", {"torus:dims=4x4,hosts=2", "torus:dims=8x8,hosts=2"}, {0, 0}, 0},
    {"one switch, LMC 7", {NULL, NULL}, {16, 254}, 7},
};
#define NPAIRS (sizeof pairs / sizeof *pairs)

/* A fabric with its compute and I/O node lists. */
typedef struct fabric {
    ibr_topo *t;
    uint64_t *cn, *io;
    size_t ncn, nio;
} fabric;

static void fabric_make(fabric *fb, const fabric_pair *p, int large)
{
    memset(fb, 0, sizeof *fb);
    fb->t = p->spec[large] ? ibr_test_topo_faults(p->spec[large], 0, 0, 0, p->lmc)
                           : ibr_test_star(p->star[large], p->lmc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fb->t);
    uint32_t n = ibr_topo_node_count(fb->t);
    fb->cn = calloc(n + 1, sizeof *fb->cn);
    fb->io = calloc(n + 1, sizeof *fb->io);
    CU_ASSERT_FATAL(fb->cn && fb->io);
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_node_info(&ni, fb->t, i) < 0 || ni.type != IBR_NODE_CA ||
            ibr_topo_port_info(&pi, fb->t, i, 1) < 0)
            continue;
        if (k++ % 4 == 3)
            fb->io[fb->nio++] = pi.guid;
        else
            fb->cn[fb->ncn++] = pi.guid;
    }
}

static void fabric_free(fabric *fb)
{
    ibr_topo_destroy(fb->t);
    free(fb->cn);
    free(fb->io);
}

/* One route, in the child. */
typedef struct job {
    const fabric *fb;
    char chain[64];
    ibr_param param;
} job;

static int run_job(void *arg)
{
    const job *j = arg;
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 1;
    o.cn_guids = j->fb->cn;
    o.n_cn_guids = j->fb->ncn;
    o.io_guids = j->fb->io;
    o.n_io_guids = j->fb->nio;
    o.params = &j->param;
    o.n_params = 1;
    ibr_result *r = NULL;
    int rc = ibr_route(&r, j->fb->t, j->chain, &o);
    ibr_result_destroy(r);
    return rc;
}

/* Route fb with engine.setting=value; returns the processor seconds, or a
   negative number when it failed (asserted). */
static double route_timed(const fabric *fb, const char *engine, const char *setting,
                          int64_t value, const char *what)
{
    char name[96], val[32];
    job j;
    j.fb = fb;
    snprintf(j.chain, sizeof j.chain, "%s,no_fallback", engine);
    snprintf(name, sizeof name, "%s.%s", engine, setting);
    snprintf(val, sizeof val, "%" PRId64, value);
    j.param.name = name;
    j.param.value = val;
    int res = 0;
    double cpu = 0;
    int rc = ibr_test_in_child(&res, &cpu, LIMIT_S, run_job, &j);
    if (rc != 0 || (res != 0 && res != IBR_EUNROUTABLE)) {
        fprintf(stderr, "\n  %s=%s on %s: %s\n", name, val, what,
                rc == 1    ? "still running after the time limit"
                : rc != 0  ? "the child died"
                           : ibr_status_name(res));
        CU_FAIL("an extreme setting did not finish, or failed");
        return -1;
    }
    return cpu;
}

static void check_setting(const fabric fb[][2], const char *engine, const ibr_setting *s)
{
    int64_t ext[2];
    if (s->type == IBR_SETTING_INT) {
        ext[0] = s->min;
        ext[1] = s->max;
    } else if (s->type == IBR_SETTING_BOOL) {
        ext[0] = 0;
        ext[1] = 1;
    } else {
        return; /* text: no extreme */
    }
    for (unsigned v = 0; v < 2; v++)
        for (unsigned p = 0; p < NPAIRS; p++) {
            char what[96];
            double t[2];
            for (unsigned l = 0; l < 2; l++) {
                snprintf(what, sizeof what, "the %s %s", l ? "larger" : "smaller",
                         pairs[p].name);
                t[l] = route_timed(&fb[p][l], engine, s->name, ext[v], what);
            }
            if (t[0] < 0 || t[1] < 0)
                continue;
            double base = t[0] > FLOOR_S ? t[0] : FLOOR_S;
            if (t[1] > FAST_S && t[1] > GROWTH * base) {
                fprintf(stderr, "\n  %s.%s=%" PRId64 " on the %s: %.3f s, %.3f s on the smaller\n",
                        engine, s->name, ext[v], pairs[p].name, t[1], t[0]);
                CU_FAIL("an extreme setting grows faster than the fabric");
            }
        }
}

static void test_every_setting(void)
{
    fabric fb[NPAIRS][2];
    for (unsigned p = 0; p < NPAIRS; p++)
        for (unsigned l = 0; l < 2; l++)
            fabric_make(&fb[p][l], &pairs[p], (int)l);
    size_t n = ibr_context_engine_count(NULL), checked = 0;
    CU_ASSERT(n >= 10);
    for (size_t i = 0; i < n; i++) {
        ibr_engine_info e;
        CU_ASSERT_EQUAL_FATAL(ibr_context_engine(&e, NULL, i), 0);
        for (size_t k = 0; k < e.n_settings; k++) {
            check_setting((const fabric(*)[2])fb, e.name, &e.settings[k]);
            checked += e.settings[k].type != IBR_SETTING_STRING;
        }
    }
    /* ftree's max_reverse_hops, nue's improve, ... */
    CU_ASSERT(checked >= 15);
    for (unsigned p = 0; p < NPAIRS; p++)
        for (unsigned l = 0; l < 2; l++)
            fabric_free(&fb[p][l]);
}

/* The watchdog itself: a child that never ends is reported as such. */
static int spin(void *arg)
{
    volatile unsigned long *x = arg;
    for (;;)
        (*x)++;
    return 0;
}

static int answer(void *arg)
{
    return *(int *)arg;
}

static void test_watchdog(void)
{
    unsigned long x = 0;
    int res = -1, v = 42;
    double cpu = -1;
    CU_ASSERT_EQUAL(ibr_test_in_child(&res, &cpu, 0.2, spin, &x), 1);
    CU_ASSERT_EQUAL(ibr_test_in_child(&res, &cpu, LIMIT_S, answer, &v), 0);
    CU_ASSERT_EQUAL(res, 42);
    CU_ASSERT(cpu >= 0 && cpu < 1);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"the watchdog", test_watchdog},
        {"every engine setting at its extremes, small and 4x fabrics", test_every_setting},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("extremes", tests);
}
