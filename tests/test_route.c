/* The engine registry, chains, fallback, options and the engine-author API. */
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"
#include "route/registry.h"

static int decline_fn(ibr_run *run, void *user)
{
    (void)user;
    return ibr_run_decline(run, "not my kind of fabric");
}

static int fail_fn(ibr_run *run, void *user)
{
    (void)user;
    /* writes that must not leak into the next attempt */
    uint8_t *lft = ibr_run_lft(run, 0);
    if (lft)
        lft[1] = 7;
    ibr_run_add_artifact(run, "junk", "x", 1);
    return ibr_run_fail(run, IBR_ENOVL, "ran out of lanes");
}

/* A custom engine: every switch sends everything out of port 1, except the
   LIDs it delivers itself; also exercises every writer. */
static int custom_fn(ibr_run *run, void *user)
{
    int *calls = user;
    (*calls)++;
    const ibr_topo *t = ibr_run_topo(run);
    CU_ASSERT_PTR_NOT_NULL(ibr_run_options(run));
    CU_ASSERT_EQUAL(ibr_run_options(run)->version, IBR_OPTIONS_VERSION);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        uint8_t *lft = ibr_run_lft(run, s);
        CU_ASSERT_EQUAL(lft[1], IBR_NO_ROUTE); /* prefilled */
        for (unsigned l = 1; l <= ibr_topo_max_lid(t); l++)
            lft[l] = 1;
        CU_ASSERT_EQUAL(ibr_run_set_hops(run, s, s, 0), 0);
    }
    CU_ASSERT_PTR_NULL(ibr_run_lft(run, ibr_topo_switch_count(t)));
    CU_ASSERT_EQUAL(ibr_run_set_dest_sl(run, 1, 3), 0);
    CU_ASSERT_EQUAL(ibr_run_set_dest_sl(run, 1, 16), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_run_set_path_sl(run, 2, 1, 5), 0);
    CU_ASSERT_EQUAL(ibr_run_set_dest_sl(run, 1, 3), IBR_ESTATE);
    uint8_t map[16];
    for (unsigned i = 0; i < 16; i++)
        map[i] = (uint8_t)(15 - i);
    CU_ASSERT_EQUAL(ibr_run_set_sl2vl(run, 0, 1, 2, map), 0);
    /* any entry above 15 is refused, whatever its bits; the map stays */
    static const uint8_t bad[] = {16, 0x80, 0x1f, 255};
    for (unsigned i = 0; i < sizeof bad; i++) {
        uint8_t m2[16];
        memcpy(m2, map, sizeof m2);
        m2[(5 * i) % 16] = bad[i];
        CU_ASSERT_EQUAL(ibr_run_set_sl2vl(run, 0, 1, 2, m2), IBR_ERANGE);
    }
    CU_ASSERT_EQUAL(ibr_run_set_vls_used(run, 2), 0);
    CU_ASSERT_EQUAL(ibr_run_add_mcast_port(run, 0xC001, 0, 3), 0);
    CU_ASSERT_EQUAL(ibr_run_add_mcast_port(run, 0xC000, 0, 1), 0);
    CU_ASSERT_EQUAL(ibr_run_add_mcast_port(run, 0xC001, 0, 1), 0);
    CU_ASSERT_EQUAL(ibr_run_add_mcast_port(run, 0x10, 0, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_run_add_artifact(run, "note", "hello", 5), 0);
    CU_ASSERT_EQUAL(ibr_run_add_artifact(run, "note", "hello!", 6), 0);
    CU_ASSERT_EQUAL(ibr_run_progress(run, "x", 1, 1), 0);
    ibr_run_log(run, IBR_LOG_INFO, "custom engine ran");
    return 0;
}

static void test_chains(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    /* default chain */
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, NULL), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    CU_ASSERT_EQUAL(ibr_result_attempt_count(r), 1);
    ibr_result_destroy(r);
    /* unknown engine: a failed result explains */
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop,ftre", NULL), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "unknown engine 'ftre'"));
    CU_ASSERT_EQUAL(ibr_result_status(r), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(ibr_result_lft(r, 0));
    ibr_result_destroy(r);
    /* no_fallback alone */
    CU_ASSERT_EQUAL(ibr_route(&r, t, "no_fallback", NULL), IBR_EINVAL);
    ibr_result_destroy(r);
    /* white space and commas, minhop explicitly with no_fallback */
    CU_ASSERT_EQUAL(ibr_route(&r, t, " minhop\tno_fallback ,", NULL), 0);
    CU_ASSERT_EQUAL(ibr_result_attempt_count(r), 1);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(ibr_route(NULL, t, NULL, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_route(&r, NULL, NULL, NULL), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(r);
    ibr_topo_destroy(t);
}

static void test_registry(void)
{
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    size_t nb = ibr_context_engine_count(NULL);
    CU_ASSERT(nb >= 1);
    ibr_engine_info info;
    CU_ASSERT_EQUAL(ibr_context_find_engine(&info, NULL, "minhop"), 0);
    CU_ASSERT(info.builtin);
    CU_ASSERT(info.caps & IBR_CAP_LMC);
    CU_ASSERT_EQUAL(ibr_context_find_engine(&info, NULL, "nope"), IBR_ENOTFOUND);
    int calls = 0;
    ibr_engine e = {IBR_ENGINE_VERSION, "custom", "test engine", IBR_CAP_SL, custom_fn, &calls};
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), 0);
    CU_ASSERT_EQUAL(ibr_context_engine_count(ctx), nb + 1);
    CU_ASSERT_EQUAL(ibr_context_engine(&info, ctx, nb), 0);
    CU_ASSERT_STRING_EQUAL(info.name, "custom");
    CU_ASSERT(!info.builtin);
    CU_ASSERT_EQUAL(ibr_context_engine(&info, ctx, nb + 1), IBR_ENOTFOUND);
    /* registration errors */
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EEXIST);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_context_last_error(ctx), "already exists"));
    ibr_engine m = e;
    m.name = "minhop";
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &m), IBR_EEXIST);
    m.name = "bad name";
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &m), IBR_EINVAL);
    m.name = "no_fallback";
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &m), IBR_EINVAL);
    m.name = "other";
    m.route = NULL;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &m), IBR_EINVAL);
    m.route = custom_fn;
    m.version = 42;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &m), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_context_register_engine(NULL, &e), IBR_EINVAL);
    ibr_engine d = {IBR_ENGINE_VERSION, "decliner", NULL, 0, decline_fn, NULL};
    ibr_engine fl = {IBR_ENGINE_VERSION, "failer", NULL, 0, fail_fn, NULL};
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &d), 0);
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &fl), 0);
    CU_ASSERT_EQUAL(ibr_context_engine_count(ctx), nb + 3);

    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    /* fallback: decliner, failer, then minhop */
    CU_ASSERT_EQUAL(ibr_route(&r, t, "decliner,failer", NULL), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    CU_ASSERT_EQUAL(ibr_result_attempt_count(r), 3);
    const char *name, *msg;
    int st;
    CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, r, 0), 0);
    CU_ASSERT_STRING_EQUAL(name, "decliner");
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    CU_ASSERT_STRING_EQUAL(msg, "not my kind of fabric");
    CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, r, 1), 0);
    CU_ASSERT_EQUAL(st, IBR_ENOVL);
    CU_ASSERT_STRING_EQUAL(msg, "ran out of lanes");
    CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, r, 2), 0);
    CU_ASSERT_STRING_EQUAL(name, "minhop");
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, r, 3), IBR_ENOTFOUND);
    /* the failed engine's writes are gone */
    CU_ASSERT_EQUAL(ibr_result_artifact_count(r), 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    ibr_result_destroy(r);
    /* no_fallback: every engine gives up */
    CU_ASSERT_EQUAL(ibr_route(&r, t, "decliner,failer,no_fallback", NULL), IBR_EUNROUTABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "decliner: not my kind"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "failer: ran out of lanes"));
    CU_ASSERT_EQUAL(ibr_result_attempt_count(r), 2);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "");
    ibr_result_destroy(r);
    /* the custom engine and every result accessor */
    CU_ASSERT_EQUAL(ibr_route(&r, t, "custom", NULL), 0);
    CU_ASSERT_EQUAL(calls, 1);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "custom");
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 2), 1);
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_PER_PAIR);
    CU_ASSERT_EQUAL(ibr_result_path_sl(r, 2, 1), 5);
    CU_ASSERT_EQUAL(ibr_result_path_sl(r, 3, 1), 3); /* kept from per-dest */
    CU_ASSERT_EQUAL(ibr_result_path_sl(r, 3, 2), 0);
    CU_ASSERT(ibr_result_has_sl2vl(r));
    uint8_t map[16];
    CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 1, 2), 0);
    CU_ASSERT_EQUAL(map[0], 15);
    for (unsigned i = 0; i < 16; i++)
        CU_ASSERT_EQUAL(map[i], 15 - i); /* the refused maps left it alone */
    /* pairs never set: the identity */
    CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 2, 1), 0);
    for (unsigned i = 0; i < 16; i++)
        CU_ASSERT_EQUAL(map[i], i);
    CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 0, 0), 0);
    CU_ASSERT_EQUAL(map[15], 15);
    CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 99, 1), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 2);
    CU_ASSERT_EQUAL(ibr_result_mcast_count(r), 2);
    CU_ASSERT_EQUAL(ibr_result_mcast_mlid(r, 0), 0xC000);
    CU_ASSERT_EQUAL(ibr_result_mcast_mlid(r, 1), 0xC001);
    uint8_t ports[4];
    size_t np = 0;
    CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 4, &np, r, 0xC001, 0), 0);
    CU_ASSERT_EQUAL(np, 2);
    CU_ASSERT_EQUAL(ports[0], 1);
    CU_ASSERT_EQUAL(ports[1], 3);
    CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 1, &np, r, 0xC001, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, 4, &np, r, 0xC002, 0), IBR_ENOTFOUND);
    const void *data;
    size_t size;
    CU_ASSERT_EQUAL(ibr_result_find_artifact(&data, &size, r, "note"), 0);
    CU_ASSERT_EQUAL(size, 6);
    CU_ASSERT_EQUAL(memcmp(data, "hello!", 6), 0);
    CU_ASSERT_EQUAL(ibr_result_artifact_count(r), 1);
    CU_ASSERT_EQUAL(ibr_result_has_hops(r), 1);
    CU_ASSERT_EQUAL(ibr_result_hops(r, 0, 0), 0);
    CU_ASSERT_EQUAL(ibr_result_hops(r, 0, 1), 255);
    /* bulk LFT copy */
    uint8_t buf[512];
    size_t need = 0;
    CU_ASSERT_EQUAL(ibr_result_copy_lft(buf, 1, &need, r, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(need, ibr_result_lft_size(r));
    CU_ASSERT_EQUAL(ibr_result_copy_lft(buf, sizeof buf, &need, r, 0), 0);
    CU_ASSERT_EQUAL(memcmp(buf, ibr_result_lft(r, 0), need), 0);
    CU_ASSERT_EQUAL(ibr_result_copy_lft(buf, sizeof buf, &need, r, 9999), IBR_ENOTFOUND);
    /* an engine that sends everything to port 1 is not a valid routing */
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EROUTES);
    CU_ASSERT(rep.first_error[0] != 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

static void test_options(void)
{
    ibr_options a, b = IBR_OPTIONS_INIT;
    CU_ASSERT_EQUAL(ibr_options_init(&a, IBR_OPTIONS_VERSION), 0);
    CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof a), 0);
    CU_ASSERT_EQUAL(ibr_options_init(&a, 99), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_options_init(NULL, IBR_OPTIONS_VERSION), IBR_EINVAL);
    ibr_topo *t = ibr_test_topo(NULL, "mesh:dims=2x2,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    ibr_options o = IBR_OPTIONS_INIT;
    o.version = 77;
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, &o), IBR_EVERSION);
    ibr_result_destroy(r);
    o = b;
    o.max_vls = 0;
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, &o), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "max_vls"));
    ibr_result_destroy(r);
    o = b;
    o.lmc = 9;
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, &o), IBR_EINVAL);
    ibr_result_destroy(r);
    o = b;
    o.n_root_guids = 3;
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, &o), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_threads(r), 0); /* rejected: never ran */
    ibr_result_destroy(r);
    /* the worker count the engine ran with: as asked, or resolved (a
       fabric this small runs on one thread when the count is automatic) */
    o = b;
    o.threads = 3;
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, &o), 0);
    CU_ASSERT_EQUAL(ibr_result_threads(r), 3);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, NULL), 0);
    CU_ASSERT_EQUAL(ibr_result_threads(r), 1);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(ibr_result_threads(NULL), 0);
    ibr_topo_destroy(t);
}

static int cancel_cb(void *user, const char *phase, uint64_t done, uint64_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    int *n = user;
    return ++*n >= 2;
}

static void test_cancel(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "mesh:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    int n = 0;
    ibr_options o = IBR_OPTIONS_INIT;
    o.progress = cancel_cb;
    o.progress_user = &n;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), IBR_ECANCELED);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "canceled"));
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Progress inside the parallel loops: the loop reports done/total under
   the phase the engine announced, and a cancel from it stops the engine. */
typedef struct seen {
    int inside;      /* calls with 0 < done < total in the LFT phase */
    int cancel_at;   /* cancel at this call (0: never) */
    int calls;
} seen;

static int seen_cb(void *user, const char *phase, uint64_t done, uint64_t total)
{
    seen *s = user;
    if (strstr(phase, "forwarding tables") && done > 0 && done < total)
        s->inside++;
    return s->cancel_at && ++s->calls >= s->cancel_at;
}

static void test_loop_progress(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=6x6x6,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (unsigned threads = 1; threads <= 2; threads++) {
        seen s = {0, 0, 0};
        ibr_options o = IBR_OPTIONS_INIT;
        o.threads = threads;
        o.progress = seen_cb;
        o.progress_user = &s;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), 0);
        CU_ASSERT(s.inside > 0);
        ibr_result_destroy(r);
        /* the third call falls inside the loop (the first two announce the
           hop matrix and the tables) */
        s = (seen){0, 3, 0};
        CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), IBR_ECANCELED);
        CU_ASSERT_EQUAL(s.inside, 1);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* The repair the routing database gives a saved routing is the registry's
   answer for the engine's entry: each built-in's declared kind, and the
   generic repair for an engine registered on a context, whatever its name
   looks like (the built-in's own symbol name "torus2qos", another case,
   a suffix) and whatever caps it copies from the built-in. */
static void test_repair_kinds(void)
{
    static const struct {
        const char *name;
        ibr__repair_kind kind;
    } want[] = {
        {"minhop", IBR__REPAIR_GENERIC}, {"updn", IBR__REPAIR_UPDOWN},
        {"dnup", IBR__REPAIR_UPDOWN},    {"dor", IBR__REPAIR_GENERIC},
        {"file", IBR__REPAIR_GENERIC},   {"ftree", IBR__REPAIR_TREE},
        {"dmodc", IBR__REPAIR_DMODC},    {"sssp", IBR__REPAIR_BALANCED},
        {"dfsssp", IBR__REPAIR_BALANCED}, {"lash", IBR__REPAIR_GENERIC},
        {"torus-2QoS", IBR__REPAIR_TORUS}, {"nue", IBR__REPAIR_NUE},
    };
    const size_t nw = sizeof want / sizeof want[0];
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    size_t nb = ibr_context_engine_count(NULL);
    CU_ASSERT_EQUAL(nb, nw); /* a new built-in gets a line here */
    ibr_engine_info info;
    for (size_t i = 0; i < nb; i++) {
        CU_ASSERT_EQUAL_FATAL(ibr_context_engine(&info, NULL, i), 0);
        size_t k = 0;
        while (k < nw && strcmp(want[k].name, info.name))
            k++;
        CU_ASSERT_FATAL(k < nw);
        CU_ASSERT_EQUAL(ibr__engine_repair(NULL, info.name), want[k].kind);
        CU_ASSERT_EQUAL(ibr__engine_repair(ctx, info.name), want[k].kind);
    }
    /* engines registered on the context, named like built-ins and with
       their caps: the generic repair, never a built-in's */
    static const char *const lookalike[][2] = {
        {"torus2qos", "torus-2QoS"}, {"Torus-2QoS", "torus-2QoS"}, {"NUE", "nue"},
        {"nue_", "nue"},             {"dmodc2", "dmodc"},          {"sssp-copy", "sssp"},
        {"DFSSSP", "dfsssp"},        {"updn_", "updn"},            {"dnup2", "dnup"},
        {"ftree-", "ftree"},
    };
    int calls = 0;
    for (size_t i = 0; i < sizeof lookalike / sizeof lookalike[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ibr_context_find_engine(&info, NULL, lookalike[i][1]), 0);
        ibr_engine e = {IBR_ENGINE_VERSION, lookalike[i][0], "look-alike", info.caps, custom_fn,
                        &calls};
        CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
        CU_ASSERT_EQUAL(ibr__engine_repair(ctx, lookalike[i][0]), IBR__REPAIR_GENERIC);
        CU_ASSERT_NOT_EQUAL(ibr__engine_repair(ctx, lookalike[i][1]), IBR__REPAIR_GENERIC);
        /* on a context without it, the name is not registered */
        CU_ASSERT_EQUAL(ibr__engine_repair(NULL, lookalike[i][0]), IBR__REPAIR_GENERIC);
    }
    CU_ASSERT_EQUAL(ibr__engine_repair(ctx, ""), IBR__REPAIR_GENERIC);
    CU_ASSERT_EQUAL(ibr__engine_repair(ctx, NULL), IBR__REPAIR_GENERIC);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"chains", test_chains},
        {"registry, fallback and the engine API", test_registry},
        {"repair kinds come from the registry", test_repair_kinds},
        {"options", test_options},
        {"cancel", test_cancel},
        {"progress inside parallel loops", test_loop_progress},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("route", tests);
}
