/*
 * The engine-author API and toolkit (sys/engine.h, sys/toolkit.h): engine
 * settings from declaration to result, the switch graph and searches
 * against the public per-port getters, the shared LFT builder against
 * minhop, writable hop matrices and SL rows, the parallel loop and the
 * credit-loop check, as a user engine sees them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"
#include "ibroute/sys/toolkit.h"

/* ------------------------------------------------------------------ */
/* options and definitions: the init functions equal the INIT macros   */

static void test_init_functions(void)
{
    ibr_options a = IBR_OPTIONS_INIT, b;
    memset(&b, 0xA5, sizeof b);
    CU_ASSERT_EQUAL(ibr_options_init(&b, IBR_OPTIONS_VERSION), 0);
    CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
    ibr_options c;
    memset(&c, 0x5A, sizeof c);
    CU_ASSERT_EQUAL(ibr_options_init(&c, 0), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_options_init(&c, IBR_OPTIONS_VERSION + 1), IBR_EVERSION);
    CU_ASSERT_EQUAL(((unsigned char *)&c)[0], 0x5A); /* untouched */
    CU_ASSERT_EQUAL(ibr_options_init(NULL, IBR_OPTIONS_VERSION), IBR_EINVAL);

    ibr_engine e = IBR_ENGINE_INIT, f;
    memset(&f, 0xA5, sizeof f);
    CU_ASSERT_EQUAL(ibr_engine_init(&f, IBR_ENGINE_VERSION), 0);
    CU_ASSERT_EQUAL(memcmp(&e, &f, sizeof e), 0);
    CU_ASSERT_EQUAL(ibr_engine_init(&f, IBR_ENGINE_VERSION + 1), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_engine_init(NULL, IBR_ENGINE_VERSION), IBR_EINVAL);
}

/* The library reads only as much of a caller's options as its version
   declares: a struct in a heap block of exactly that size is read without
   going past it (AddressSanitizer checks), and unknown versions fail. */
static void test_options_by_version(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_options *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    ibr_options_init(o, IBR_OPTIONS_VERSION);
    o->lmc = 0;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", o), 0);
    ibr_result_destroy(r);
    o->version = 0;
    r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", o), IBR_EVERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "options version 0"));
    ibr_result_destroy(r);
    o->version = IBR_OPTIONS_VERSION + 1;
    r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", o), IBR_EVERSION);
    ibr_result_destroy(r);
    free(o);
    ibr_topo_destroy(t);
}

/* ------------------------------------------------------------------ */
/* settings                                                            */

/* Route with params; returns the code and keeps the result in *r. */
static int route_params(ibr_result **r, const ibr_topo *t, const char *chain,
                        const ibr_param *p, size_t n)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = p;
    o.n_params = n;
    *r = NULL;
    return ibr_route(r, t, chain, &o);
}

static const char *setting_of(const ibr_result *r, const char *name)
{
    for (size_t i = 0; i < ibr_result_setting_count(r); i++) {
        const char *n, *v;
        if (ibr_result_setting(&n, &v, r, i) == 0 && !strcmp(n, name))
            return v;
    }
    return NULL;
}

static void test_params_errors(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    static const struct {
        ibr_param p;
        const char *msg;
    } bad[] = {
        {{"connect_roots", "1"}, "expected ENGINE.SETTING"},
        {{".x", "1"}, "expected ENGINE.SETTING"},
        {{"updn.", "1"}, "expected ENGINE.SETTING"},
        {{"nosuch.x", "1"}, "no engine named 'nosuch'"},
        {{"updn.bogus", "1"}, "engine 'updn' has no setting 'bogus' (its settings: connect_roots)"},
        {{"minhop.x", "1"}, "engine 'minhop' has no setting 'x' (it has none)"},
        {{"updn.connect_roots", "maybe"}, "must be a boolean"},
        {{"ftree.max_reverse_hops", "256"}, "must be an integer in 0..255"},
        {{"ftree.max_reverse_hops", "-1"}, "must be an integer in 0..255"},
        {{"ftree.max_reverse_hops", "2x"}, "must be an integer in 0..255"},
        {{"ftree.max_reverse_hops", ""}, "must be an integer in 0..255"},
        {{"ftree.max_reverse_hops", " 2"}, "must be an integer in 0..255"},
        {{NULL, "1"}, "parameter 0 has a NULL name"},
        {{"updn.connect_roots", NULL}, "parameter 0 has a NULL value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ibr_result *r;
        CU_ASSERT_EQUAL(route_params(&r, t, "updn", &bad[i].p, 1), IBR_EINVAL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), bad[i].msg));
        CU_ASSERT_EQUAL(ibr_result_attempt_count(r), 0); /* no engine ran */
        CU_ASSERT_EQUAL(ibr_result_setting_count(r), 0);
        ibr_result_destroy(r);
    }
    /* a count without an array */
    ibr_options o = IBR_OPTIONS_INIT;
    o.n_params = 1;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "updn", &o), IBR_EINVAL);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_params_recorded(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=8");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r;
    /* defaults are recorded too; settings of other engines are not */
    CU_ASSERT_EQUAL_FATAL(route_params(&r, t, "ftree", NULL, 0), 0);
    CU_ASSERT_EQUAL(ibr_result_setting_count(r), 4);
    CU_ASSERT_STRING_EQUAL(setting_of(r, "ftree.max_reverse_hops"), "0");
    CU_ASSERT_STRING_EQUAL(setting_of(r, "ftree.connect_roots"), "0");
    CU_ASSERT_STRING_EQUAL(setting_of(r, "ftree.strict"), "0");
    CU_ASSERT_STRING_EQUAL(setting_of(r, "ftree.degraded_tolerance"), "25");
    CU_ASSERT_EQUAL(ibr_result_setting(NULL, NULL, r, 4), IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(ibr_result_setting(NULL, NULL, NULL, 0), IBR_EINVAL);
    ibr_result_destroy(r);

    /* the last value of a name counts; values are normalised; settings of
       engines the chain does not reach are checked but not recorded */
    const ibr_param p[] = {{"ftree.max_reverse_hops", "0x3"},
                           {"ftree.connect_roots", "On"},
                           {"ftree.max_reverse_hops", "2"},
                           {"updn.connect_roots", "true"}};
    CU_ASSERT_EQUAL_FATAL(route_params(&r, t, "ftree,updn", p, 4), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "ftree");
    CU_ASSERT_STRING_EQUAL(setting_of(r, "ftree.max_reverse_hops"), "2");
    CU_ASSERT_STRING_EQUAL(setting_of(r, "ftree.connect_roots"), "1");
    CU_ASSERT_PTR_NULL(setting_of(r, "updn.connect_roots"));
    ibr_result_destroy(r);

    /* the setting changes the routing: updn's connect_roots routes the
       spine-to-spine pairs up/down leaves restricted */
    ibr_verify_report a = {.version = IBR_VERIFY_REPORT_VERSION};
    ibr_verify_report b = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL_FATAL(route_params(&r, t, "updn,no_fallback", NULL, 0), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&a, r), 0);
    CU_ASSERT_STRING_EQUAL(setting_of(r, "updn.connect_roots"), "0");
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL_FATAL(route_params(&r, t, "updn,no_fallback", &p[3], 1), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&b, r), 0);
    CU_ASSERT_STRING_EQUAL(setting_of(r, "updn.connect_roots"), "1");
    CU_ASSERT(a.restricted > 0);
    CU_ASSERT_EQUAL(b.restricted, 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* A user engine that declares settings and reads them. */
typedef struct {
    int64_t level, flag;
    const char *text;
    size_t len;
    int missing, wrong_type;
} seen_settings;

static int settings_engine(ibr_run *run, void *user)
{
    seen_settings *s = user;
    ibr_run_setting_int(&s->level, run, "level");
    ibr_run_setting_int(&s->flag, run, "flag");
    ibr_run_setting_str(&s->text, &s->len, run, "text");
    int64_t x;
    s->missing = ibr_run_setting_int(&x, run, "nope");
    s->wrong_type = ibr_run_setting_int(&x, run, "text");
    return ibr_run_decline(run, "only looked at its settings");
}

static const ibr_setting demo_settings[] = {
    {"level", IBR_SETTING_INT, -5, 5, 2, NULL, "a level"},
    {"flag", IBR_SETTING_BOOL, 0, 1, 1, NULL, "a flag"},
    {"text", IBR_SETTING_STRING, 0, 0, 0, "default text", "a text"},
};

static void test_user_engine_settings(void)
{
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    seen_settings seen;
    ibr_engine e = IBR_ENGINE_INIT;
    e.name = "demo";
    e.route = settings_engine;
    e.user = &seen;
    e.settings = demo_settings;
    e.n_settings = 3;

    /* declarations are checked */
    ibr_setting bad[2] = {demo_settings[0], demo_settings[0]};
    e.settings = bad;
    e.n_settings = 2;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_context_last_error(ctx), "declared twice"));
    bad[1].name = "bad-name";
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_context_last_error(ctx), "bad setting name"));
    bad[1] = demo_settings[1];
    bad[1].def = 2;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    bad[1] = demo_settings[0];
    bad[1].name = "other";
    bad[1].def = 9;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    bad[1].type = (ibr_setting_type)42;
    bad[1].def = 0;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    e.settings = NULL;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    e.name = "a.b";
    e.settings = demo_settings;
    e.n_settings = 3;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    /* nothing registered */
    CU_ASSERT_EQUAL(ibr_context_engine_count(ctx), ibr_context_engine_count(NULL));

    /* the definition is copied: the caller's arrays may go away */
    ibr_setting copy[3];
    memcpy(copy, demo_settings, sizeof copy);
    e.name = "demo";
    e.settings = copy;
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    memset(copy, 0, sizeof copy);
    ibr_engine_info info;
    CU_ASSERT_EQUAL_FATAL(ibr_context_find_engine(&info, ctx, "demo"), 0);
    CU_ASSERT_EQUAL_FATAL(info.n_settings, 3);
    CU_ASSERT_STRING_EQUAL(info.settings[2].name, "text");
    CU_ASSERT_STRING_EQUAL(info.settings[2].def_str, "default text");
    CU_ASSERT_STRING_EQUAL(info.settings[0].help, "a level");
    CU_ASSERT_EQUAL(ibr_context_find_engine(&info, NULL, "minhop"), 0);
    CU_ASSERT_EQUAL(info.n_settings, 0);
    CU_ASSERT_PTR_NULL(info.settings);

    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=4"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);

    /* defaults */
    ibr_result *r;
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(route_params(&r, t, "demo", NULL, 0), 0);
    CU_ASSERT_EQUAL(seen.level, 2);
    CU_ASSERT_EQUAL(seen.flag, 1);
    CU_ASSERT_STRING_EQUAL(seen.text, "default text");
    CU_ASSERT_EQUAL(seen.len, 12);
    CU_ASSERT_EQUAL(seen.missing, IBR_ENOTFOUND);
    CU_ASSERT_EQUAL(seen.wrong_type, IBR_ESTATE);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop"); /* demo declined */
    ibr_result_destroy(r);

    /* given values, a multi-line text among them */
    const ibr_param p[] = {{"demo.level", "-5"}, {"demo.flag", "off"},
                           {"demo.text", "line 1\nline 2\n"}};
    memset(&seen, 0, sizeof seen);
    CU_ASSERT_EQUAL(route_params(&r, t, "demo", p, 3), 0);
    CU_ASSERT_EQUAL(seen.level, -5);
    CU_ASSERT_EQUAL(seen.flag, 0);
    CU_ASSERT_STRING_EQUAL(seen.text, "line 1\nline 2\n");
    ibr_result_destroy(r);
    const ibr_param out_of_range = {"demo.level", "6"};
    CU_ASSERT_EQUAL(route_params(&r, t, "demo", &out_of_range, 1), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "must be an integer in -5..5"));
    ibr_result_destroy(r);
    /* accessors outside an engine */
    int64_t x;
    CU_ASSERT_EQUAL(ibr_run_setting_int(&x, NULL, "level"), IBR_EINVAL);
    const char *text = NULL;
    CU_ASSERT_EQUAL(ibr_run_setting_str(&text, NULL, NULL, "text"), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(text);

    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

/* ------------------------------------------------------------------ */
/* the toolkit against the public getters                              */

static const char *const fabrics[] = {
    "fattree:levels=3,radix=8", "torus:dims=4x4,hosts=1,parallel=2",
    "random:switches=40,degree=4,hosts=1,seed=7", "dragonfly:a=4,p=2,h=2,g=5",
    "mesh:dims=3x3,hosts=1",
};

static void test_switch_links(void)
{
    for (size_t k = 0; k < sizeof fabrics / sizeof fabrics[0]; k++) {
        ibr_topo *t = ibr_test_topo(NULL, fabrics[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        const uint32_t *off;
        const ibr_switch_link *l;
        uint32_t n = ibr_topo_switch_links(&off, &l, t);
        uint32_t nsw = ibr_topo_switch_count(t);
        CU_ASSERT_EQUAL(off[nsw], n);
        /* the same links, in port order, as the per-port getters give */
        uint32_t e = 0;
        for (uint32_t s = 0; s < nsw; s++) {
            CU_ASSERT_EQUAL(off[s], e);
            uint32_t node = ibr_topo_switch_node(t, s);
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, node);
            for (unsigned p = 1; p <= ni.nports; p++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
                    pi.state != IBR_LINK_ACTIVE || pi.remote_node == node)
                    continue;
                uint32_t rs = ibr_topo_node_switch(t, pi.remote_node);
                if (rs == IBR_NONE)
                    continue;
                CU_ASSERT_EQUAL(l[e].sw, rs);
                CU_ASSERT_EQUAL(l[e].port, p);
                CU_ASSERT_EQUAL(l[e].rport, pi.remote_port);
                e++;
            }
        }
        CU_ASSERT_EQUAL(e, n);
        ibr_topo_destroy(t);
    }
    CU_ASSERT_EQUAL(ibr_topo_switch_links(NULL, NULL, NULL), 0);
}

/* The all-pairs matrix of larger fabrics, where shallow ones take 64 rows
   per pass (bit-parallel searches), against one search per source:
   trees, a hypercube, a torus, random graphs, one split by failed
   switches (unreachable pairs stay 255), any thread count. */
static void test_hops_large(void)
{
    static const char *const specs[] = {"fattree:levels=3,radix=16", "hypercube:dim=9,hosts=1",
                                        "torus:dims=8x8x8,hosts=1",
                                        "random:switches=300,degree=6,hosts=1,seed=2",
                                        "random:switches=400,degree=3,hosts=1,seed=5",
                                        "mesh:dims=20x20,hosts=1"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        ibr_topo *t = k == 4 ? ibr_test_topo_faults(specs[k], 30, 12, 3, 0)
                             : ibr_test_topo(NULL, specs[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        uint32_t n = ibr_topo_switch_count(t);
        CU_ASSERT(n >= 256);
        uint8_t *h = malloc((size_t)n * n);
        uint32_t *d = malloc(n * sizeof *d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h && d);
        long diff = 0, unreachable = 0;
        for (unsigned th = 1; th <= 2; th++) {
            CU_ASSERT_EQUAL(ibr_topo_switch_hops(h, t, th), 0);
            for (uint32_t a = 0; a < n; a++) {
                CU_ASSERT_EQUAL_FATAL(ibr_topo_bfs(d, t, &a, 1, NULL), 0);
                for (uint32_t b = 0; b < n; b++) {
                    unsigned want = d[b] < 255 ? d[b] : 255;
                    diff += h[(size_t)a * n + b] != want;
                    unreachable += want == 255;
                }
            }
        }
        CU_ASSERT_EQUAL(diff, 0);
        if (k == 4)
            CU_ASSERT(unreachable > 0);
        free(h);
        free(d);
        ibr_topo_destroy(t);
    }
}

static void test_bfs_and_hops(void)
{
    for (size_t k = 0; k < sizeof fabrics / sizeof fabrics[0]; k++) {
        ibr_topo *t = ibr_test_topo(NULL, fabrics[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        uint32_t n = ibr_topo_switch_count(t);
        uint8_t *h = malloc((size_t)n * n);
        uint32_t *d = malloc(n * sizeof *d), *q = malloc(n * sizeof *q);
        CU_ASSERT_PTR_NOT_NULL_FATAL(h && d && q);
        CU_ASSERT_EQUAL(ibr_topo_switch_hops(h, t, 2), 0);
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                CU_ASSERT_EQUAL(h[(size_t)a * n + b], ibr_topo_switch_distance(t, a, b));
        /* from two sources: the nearer one, with or without a scratch queue */
        uint32_t src[3] = {0, n - 1, 0};
        CU_ASSERT_EQUAL(ibr_topo_bfs(d, t, src, 3, k % 2 ? q : NULL), 0);
        for (uint32_t s = 0; s < n; s++) {
            unsigned a = h[s], b = h[(size_t)(n - 1) * n + s];
            CU_ASSERT_EQUAL(d[s], a < b ? a : b);
        }
        /* sources and queue may share an array */
        memcpy(q, src, 2 * sizeof *q);
        uint32_t *d2 = malloc(n * sizeof *d2);
        CU_ASSERT_EQUAL(ibr_topo_bfs(d2, t, q, 2, q), 0);
        CU_ASSERT_EQUAL(memcmp(d, d2, n * sizeof *d), 0);
        free(d2);
        /* bad arguments leave dist untouched */
        uint32_t badsrc = n;
        d[0] = 77;
        CU_ASSERT_EQUAL(ibr_topo_bfs(d, t, &badsrc, 1, NULL), IBR_ENOTFOUND);
        CU_ASSERT_EQUAL(d[0], 77);
        CU_ASSERT_EQUAL(ibr_topo_bfs(d, t, NULL, 1, NULL), IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_topo_bfs(NULL, t, src, 1, NULL), IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_topo_switch_hops(NULL, t, 1), IBR_EINVAL);
        /* no source: nothing reachable */
        CU_ASSERT_EQUAL(ibr_topo_bfs(d, t, NULL, 0, NULL), 0);
        CU_ASSERT_EQUAL(d[0], UINT32_MAX);
        free(h);
        free(d);
        free(q);
        ibr_topo_destroy(t);
    }
}

/* A user engine written with the toolkit: minhop again, from its parts. */
typedef struct {
    int use_cands;     /* pass explicit candidates instead of NULL */
    unsigned threads;  /* ibr_run_threads() seen */
    uint64_t sum;      /* of a parallel loop */
} kit_state;

typedef struct {
    const ibr_topo *t;
    const uint8_t *hops;
} kit_cands;

/* minimum-hop candidates, written with the public switch graph */
static void kit_candidates(void *arg, uint32_t s, uint32_t *cand_off, uint8_t *cand)
{
    const kit_cands *c = arg;
    const uint32_t *off;
    const ibr_switch_link *l;
    ibr_topo_switch_links(&off, &l, c->t);
    uint32_t n = ibr_topo_switch_count(c->t), k = 0;
    for (uint32_t d = 0; d < n; d++) {
        cand_off[d] = k;
        unsigned hd = c->hops[(size_t)s * n + d];
        if (d == s || hd == 255)
            continue;
        for (uint32_t e = off[s]; e < off[s + 1]; e++)
            if (c->hops[(size_t)l[e].sw * n + d] + 1u == hd)
                cand[k++] = l[e].port;
    }
    cand_off[n] = k;
}

static int square(void *arg, unsigned worker, size_t i)
{
    (void)worker;
    uint64_t *v = arg;
    v[i] = (uint64_t)i * i;
    return 0;
}

static int kit_route(ibr_run *run, void *user)
{
    kit_state *st = user;
    const ibr_topo *t = ibr_run_topo(run);
    st->threads = ibr_run_threads(run);
    uint64_t v[1000];
    if (ibr_run_parallel_for(run, 1000, square, v) < 0)
        return ibr_run_fail(run, IBR_EINTERNAL, "parallel loop failed");
    st->sum = 0;
    for (size_t i = 0; i < 1000; i++)
        st->sum += v[i];
    uint8_t *h = ibr_run_hops(run);
    if (!h)
        return ibr_run_fail(run, IBR_ENOMEM, "no hop matrix");
    int rc = ibr_topo_switch_hops(h, t, ibr_run_threads(run));
    if (rc < 0)
        return rc;
    kit_cands c = {t, h};
    return ibr_run_ucast(run, h, st->use_cands ? kit_candidates : NULL, &c, "kit");
}

static void same_tables(const ibr_topo *t, const ibr_result *a, const ibr_result *b)
{
    uint32_t n = ibr_topo_switch_count(t);
    size_t ls = ibr_result_lft_size(a);
    CU_ASSERT_EQUAL_FATAL(ls, ibr_result_lft_size(b));
    for (uint32_t s = 0; s < n; s++) {
        CU_ASSERT_EQUAL(memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), ls), 0);
        for (uint32_t d = 0; d < n; d++)
            CU_ASSERT_EQUAL(ibr_result_hops(a, s, d), ibr_result_hops(b, s, d));
    }
}

static void test_ucast_builder(void)
{
    kit_state st = {0, 0, 0};
    ibr_context *ctx = ibr_test_engine_context("kit", kit_route, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    static const char *const specs[] = {"fattree:levels=3,radix=8", "torus:dims=4x4,hosts=2",
                                        "random:switches=30,degree=4,hosts=2,seed=3"};
    for (size_t k = 0; k < 3; k++)
        for (int lmc = 0; lmc <= 1; lmc++)
            for (int cands = 0; cands <= 1; cands++)
                for (unsigned threads = 1; threads <= 2; threads++) {
                    ibr_fabric *f = NULL;
                    ibr_topo *t = NULL;
                    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
                    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[k]), 0);
                    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, (unsigned)lmc, 0), 0);
                    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
                    ibr_options o = IBR_OPTIONS_INIT;
                    o.threads = threads;
                    o.seed = 5;
                    o.scatter_ports = lmc; /* the option reaches the builder */
                    st.use_cands = cands;
                    ibr_result *a = NULL, *b = NULL;
                    CU_ASSERT_EQUAL_FATAL(ibr_route(&a, t, "kit,no_fallback", &o), 0);
                    CU_ASSERT_EQUAL(st.threads, threads);
                    CU_ASSERT_EQUAL(st.sum, 332833500u); /* sum of i^2, i < 1000 */
                    CU_ASSERT_EQUAL_FATAL(ibr_route(&b, t, "minhop", &o), 0);
                    same_tables(t, a, b);
                    ibr_result_destroy(a);
                    ibr_result_destroy(b);
                    ibr_topo_destroy(t);
                    ibr_fabric_destroy(f);
                }
    CU_ASSERT_EQUAL(ibr_run_ucast(NULL, NULL, NULL, NULL, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_run_parallel_for(NULL, 1, square, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_run_threads(NULL), 1);
    ibr_context_destroy(ctx);
}

/* ibr_parallel_for() outside a run: every item once, on workers below the
   count asked for (and the calling thread), the first failure in item
   order returned. */
typedef struct {
    _Atomic unsigned int seen[997];
    _Atomic unsigned int max_worker;
    size_t fail_from; /* the one item that fails */
} par_state;

static int par_item(void *arg, unsigned int worker, size_t i)
{
    par_state *ps = arg;
    atomic_fetch_add(&ps->seen[i], 1);
    unsigned int m = atomic_load(&ps->max_worker);
    while (worker > m && !atomic_compare_exchange_weak(&ps->max_worker, &m, worker))
        ;
    return i == ps->fail_from ? -(int)(1000 + i) : 0;
}

static void test_parallel_for(void)
{
    static par_state ps;
    const unsigned int counts[] = {1, 2, 3, 0};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        memset(&ps, 0, sizeof ps);
        ps.fail_from = (size_t)-1;
        CU_ASSERT_EQUAL(ibr_parallel_for(counts[c], 997, par_item, &ps), 0);
        for (size_t i = 0; i < 997; i++)
            CU_ASSERT_EQUAL(atomic_load(&ps.seen[i]), 1);
        if (counts[c])
            CU_ASSERT(atomic_load(&ps.max_worker) < counts[c]);
    }
    /* item 500 fails: its value comes back; on one worker the items
       before it all ran and none after */
    for (unsigned int w = 1; w <= 3; w++) {
        memset(&ps, 0, sizeof ps);
        ps.fail_from = 500;
        CU_ASSERT_EQUAL(ibr_parallel_for(w, 997, par_item, &ps), -1500);
        for (size_t i = 0; i < 997 && w == 1; i++)
            CU_ASSERT_EQUAL(atomic_load(&ps.seen[i]), i <= 500);
    }
    CU_ASSERT_EQUAL(ibr_parallel_for(2, 0, par_item, &ps), 0);
    CU_ASSERT_EQUAL(ibr_parallel_for(2, 5, NULL, &ps), IBR_EINVAL);
}

/* An engine that registers engines from its own route function: refused
   while the route runs (the chain holds pointers into the registry, which
   growing it would move), and the route completes with its tables. */
typedef struct {
    ibr_context *ctx;
    int rc[64];
    char msg[256];
} reg_state;

static int noop_route(ibr_run *run, void *user)
{
    (void)user;
    return ibr_run_decline(run, "never runs");
}

static const ibr_setting reg_settings[] = {
    {"level", IBR_SETTING_INT, 0, 9, 4, NULL, "a level"},
};

static int registering_route(ibr_run *run, void *user)
{
    reg_state *st = user;
    /* enough registrations to move the array several times, were they
       accepted */
    for (int i = 0; i < 64; i++) {
        char name[32];
        snprintf(name, sizeof name, "late%d", i);
        ibr_engine e = IBR_ENGINE_INIT;
        e.name = name;
        e.route = noop_route;
        e.settings = reg_settings;
        e.n_settings = 1;
        st->rc[i] = ibr_context_register_engine(st->ctx, &e);
    }
    snprintf(st->msg, sizeof st->msg, "%s", ibr_context_last_error(st->ctx));
    uint8_t *h = ibr_run_hops(run);
    int rc = h ? ibr_topo_switch_hops(h, ibr_run_topo(run), 1) : IBR_ENOMEM;
    return rc < 0 ? rc : ibr_run_ucast(run, h, NULL, NULL, NULL);
}

static void test_register_during_route(void)
{
    reg_state st;
    memset(&st, 0, sizeof st);
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    st.ctx = ctx;
    ibr_engine e = IBR_ENGINE_INIT;
    e.name = "reg";
    e.route = registering_route;
    e.user = &st;
    e.settings = reg_settings;
    e.n_settings = 1;
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    size_t count = ibr_context_engine_count(ctx);

    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "reg,no_fallback", NULL), 0);
    for (int i = 0; i < 64; i++)
        CU_ASSERT_EQUAL(st.rc[i], IBR_ESTATE);
    CU_ASSERT_PTR_NOT_NULL(strstr(st.msg, "late63"));
    CU_ASSERT_PTR_NOT_NULL(strstr(st.msg, "while a route runs"));
    CU_ASSERT_EQUAL(ibr_context_engine_count(ctx), count); /* nothing registered */
    /* the route completed: minhop's tables, the setting recorded */
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "reg");
    CU_ASSERT_STRING_EQUAL(setting_of(r, "reg.level"), "4");
    ibr_result *m = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&m, t, "minhop", NULL), 0);
    same_tables(t, r, m);
    ibr_result_destroy(m);
    ibr_result_destroy(r);

    /* after the route, registering works again */
    e.name = "after";
    e.route = noop_route;
    e.user = NULL;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), 0);
    CU_ASSERT_STRING_EQUAL(ibr_context_last_error(ctx), "");
    CU_ASSERT_EQUAL(ibr_context_engine_count(ctx), count + 1);

    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

/* SL rows written directly, and the check of what was written. */
typedef struct {
    int mode;       /* 0 per destination, 1 per pair, 2 per pair with SL 16 */
    int rc_dest;    /* per-pair -> per-destination refused */
    int null_row;   /* no row before a mode */
} sl_state;

static int sl_route(ibr_run *run, void *user)
{
    sl_state *st = user;
    const ibr_topo *t = ibr_run_topo(run);
    st->null_row = ibr_run_sl_row(run, 1) == NULL;
    uint8_t *h = ibr_run_hops(run);
    int rc;
    if (!h || (rc = ibr_topo_switch_hops(h, t, 1)) < 0)
        return ibr_run_fail(run, IBR_ENOMEM, "hops");
    if ((rc = ibr_run_ucast(run, h, NULL, NULL, NULL)) < 0)
        return rc;
    unsigned max = ibr_topo_max_lid(t);
    if (st->mode == 0) {
        if ((rc = ibr_run_set_sl_mode(run, IBR_SL_PER_DEST)) < 0)
            return rc;
        uint8_t *row = ibr_run_sl_row(run, 0);
        for (unsigned d = 1; d <= max; d++)
            row[d] = (uint8_t)(d % 4);
        return 0;
    }
    /* per destination first, then per pair: the rows start as copies */
    if ((rc = ibr_run_set_dest_sl(run, 1, 7)) < 0 ||
        (rc = ibr_run_set_sl_mode(run, IBR_SL_PER_PAIR)) < 0)
        return rc;
    st->rc_dest = ibr_run_set_sl_mode(run, IBR_SL_PER_DEST);
    for (unsigned s = 1; s <= max; s++) {
        uint8_t *row = ibr_run_sl_row(run, (uint16_t)s);
        if (!row)
            continue;
        for (unsigned d = 2; d <= max; d++)
            row[d] = (uint8_t)((s + d) % 3);
    }
    if (st->mode == 2)
        ibr_run_sl_row(run, 1)[2] = 16;
    return 0;
}

static void test_sl_rows(void)
{
    sl_state st;
    ibr_context *ctx = ibr_test_engine_context("sls", sl_route, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    unsigned max = ibr_topo_max_lid(t);
    ibr_result *r;

    memset(&st, 0, sizeof st);
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "sls,no_fallback", NULL), 0);
    CU_ASSERT(st.null_row);
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_PER_DEST);
    for (unsigned d = 1; d <= max; d++)
        CU_ASSERT_EQUAL(ibr_result_path_sl(r, 1, (uint16_t)d), d % 4);
    ibr_result_destroy(r);

    memset(&st, 0, sizeof st);
    st.mode = 1;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "sls,no_fallback", NULL), 0);
    CU_ASSERT_EQUAL(st.rc_dest, IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_PER_PAIR);
    for (unsigned s = 1; s <= max; s++)
        for (unsigned d = 1; d <= max; d++) {
            uint32_t node;
            unsigned port;
            if (ibr_topo_lid_owner(&node, &port, t, (uint16_t)s) < 0)
                continue;
            unsigned want = d == 1 ? 7 : (s + d) % 3;
            CU_ASSERT_EQUAL(ibr_result_path_sl(r, (uint16_t)s, (uint16_t)d), want);
        }
    ibr_result_destroy(r);

    /* an SL above 15 fails the engine and the chain falls back */
    memset(&st, 0, sizeof st);
    st.mode = 2;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "sls", NULL), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    const char *name, *msg;
    int status;
    CU_ASSERT_EQUAL(ibr_result_attempt(&name, &status, &msg, r, 0), 0);
    CU_ASSERT_EQUAL(status, IBR_EINTERNAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "SL above 15"));
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_NONE);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(ibr_run_set_sl_mode(NULL, IBR_SL_PER_DEST), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(ibr_run_hops(NULL));
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

/* The credit-loop check of the tables written so far: minhop on a ring
   has a loop, on a tree none. */
typedef struct {
    int rc;
    size_t len;
    ibr_channel ch[2];
} loop_state;

static int loop_route(ibr_run *run, void *user)
{
    loop_state *st = user;
    uint8_t *h = ibr_run_hops(run);
    int rc;
    if (!h || (rc = ibr_topo_switch_hops(h, ibr_run_topo(run), 1)) < 0 ||
        (rc = ibr_run_ucast(run, h, NULL, NULL, NULL)) < 0)
        return ibr_run_fail(run, IBR_EINTERNAL, "routing");
    st->rc = ibr_run_find_credit_loop(st->ch, 2, &st->len, run);
    return 0;
}

static void test_credit_loop_check(void)
{
    loop_state st;
    ibr_context *ctx = ibr_test_engine_context("loops", loop_route, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    static const struct {
        const char *spec;
        int rc;
    } c[] = {{"torus:dims=5,hosts=1", IBR_EDEADLOCK}, {"fattree:levels=2,radix=4", 0}};
    for (size_t k = 0; k < 2; k++) {
        ibr_topo *t = ibr_test_topo(ctx, c[k].spec);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *r = NULL;
        memset(&st, 0, sizeof st);
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "loops,no_fallback", NULL), 0);
        CU_ASSERT_EQUAL(st.rc, c[k].rc);
        /* the same verdict as for the finished result */
        ibr_channel ch[64];
        size_t len = 0;
        CU_ASSERT_EQUAL(ibr_result_find_credit_loop(ch, 64, &len, r), c[k].rc);
        CU_ASSERT_EQUAL(st.len, len);
        if (len) {
            CU_ASSERT_EQUAL(st.ch[0].sw, ch[0].sw);
            CU_ASSERT_EQUAL(st.ch[0].port, ch[0].port);
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    size_t len;
    CU_ASSERT_EQUAL(ibr_run_find_credit_loop(NULL, 0, &len, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_run_clear_mcast(NULL), IBR_EINVAL);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"init functions equal INIT macros", test_init_functions},
        {"options read by version", test_options_by_version},
        {"bad params name the problem", test_params_errors},
        {"params recorded in the result", test_params_recorded},
        {"a user engine's settings", test_user_engine_settings},
        {"registering during a route is refused", test_register_during_route},
        {"switch links match the port getters", test_switch_links},
        {"bfs and hop matrix match switch distances", test_bfs_and_hops},
        {"hop matrix of larger fabrics (64 rows per pass)", test_hops_large},
        {"the LFT builder reproduces minhop", test_ucast_builder},
        {"ibr_parallel_for outside a run", test_parallel_for},
        {"writable SL rows", test_sl_rows},
        {"credit-loop check during a run", test_credit_loop_check},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("engine", tests);
}
