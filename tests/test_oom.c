/* Allocation failure: every call fails cleanly with IBR_ENOMEM at every
   allocation until it succeeds, and nothing leaks (libuv's test-loop-oom). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

static void test_freeze_route_verify(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=4"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
    long base = st.live;

    /* freeze */
    ibr_topo *t = NULL;
    long n;
    for (n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        int rc = ibr_fabric_freeze(&t, f);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_PTR_NULL(t);
        CU_ASSERT_EQUAL(st.live, base);
    }
    CU_ASSERT(n > 3);

    /* route */
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 2;
    {
        ibr_result *r = ibr_test_route_oom(&n, &st, t, "minhop", &o);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        ibr_result_destroy(r);
    }
    CU_ASSERT(n > 3);

    /* verify */
    st.fail_at = -1;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    long base_r = st.live;
    for (n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION, .routes_checked = 7};
        int rc = ibr_result_verify(&rep, r);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_EQUAL(rep.routes_checked, 7); /* left as it was */
        CU_ASSERT_EQUAL(st.live, base_r);
    }
    st.fail_at = -1;
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    CU_ASSERT_EQUAL(st.live, base);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL(st.live, 1); /* the context itself */
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}

static void test_builder(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    for (long n = 0;; n++) {
        st.fail_at = -1;
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        st.fail_at = n;
        st.calls = 0;
        int rc = 0;
        for (unsigned i = 0; i < 40 && rc == 0; i++)
            rc = ibr_fabric_add_node(NULL, f, i < 10 ? IBR_NODE_SWITCH : IBR_NODE_CA,
                                     0x100 + 0x10 * (uint64_t)i, 8, "n");
        for (unsigned i = 0; i < 30 && rc == 0; i++)
            rc = ibr_fabric_add_link(f, 10 + i, 1, i % 10, 1 + i / 10, NULL);
        if (rc == 0)
            rc = ibr_fabric_assign_lids(f, 2, 0);
        uint32_t nodes = ibr_fabric_node_count(f);
        ibr_fabric_destroy(f);
        CU_ASSERT_EQUAL(st.live, 1); /* the context itself */
        if (rc == 0) {
            CU_ASSERT_EQUAL(nodes, 40);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
    }
    ibr_context_destroy(ctx);
}

/* A result with everything the writers write: minhop's tables, per-pair
   SLs and SL2VL tables (the harness's layered engine) and two multicast
   groups. */
static int full_route(ibr_run *run, void *user)
{
    ibr_test_layered lay = {2, 0};
    (void)user;
    int rc = ibr_test_layered_route(run, &lay);
    const ibr_topo *t = ibr_run_topo(run);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t) && rc == 0; s++) {
        rc = ibr_run_add_mcast_port(run, 0xC000, s, 1 + s % 2);
        if (rc == 0 && s % 2)
            rc = ibr_run_add_mcast_port(run, 0xC001, s, 0);
    }
    return rc;
}

typedef int (*writer_fn)(ibr_buffer *, const ibr_result *);
typedef int (*topo_writer_fn)(ibr_buffer *, const ibr_topo *);

/* Fail each allocation of a writer alone, the later ones succeeding: the
   call either fails with IBR_ENOMEM, leaving the buffer as it was, or
   succeeds with exactly the text of an undisturbed call; never 0 with
   text missing. */
static void check_writer_once(ibr_test_alloc *st, ibr_context *ctx, const char *name,
                              writer_fn w, topo_writer_fn tw, const ibr_result *r,
                              const ibr_topo *t)
{
    st->fail_at = -1;
    st->once = 0;
    ibr_buffer ref = IBR_BUFFER_INIT;
    ref.ctx = ctx;
    CU_ASSERT_EQUAL_FATAL(w ? w(&ref, r) : tw(&ref, t), 0);
    long fails = 0;
    for (long n = 0;; n++) {
        ibr_buffer b = IBR_BUFFER_INIT;
        b.ctx = ctx;
        /* text already in the buffer stays */
        st->fail_at = -1;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_write_guid2lid(&b, t), 0);
        size_t head = b.size;
        st->fail_at = n;
        st->once = 1;
        st->calls = 0;
        int rc = w ? w(&b, r) : tw(&b, t);
        long calls = st->calls;
        st->fail_at = -1;
        st->once = 0;
        if (rc == 0) {
            if (b.size != ref.size + head || memcmp(b.data + head, ref.data, ref.size) != 0) {
                fprintf(stderr, "%s: allocation %ld failed alone, the call returned 0 with "
                                "%zu bytes instead of %zu\n",
                        name, n, b.size - head, ref.size);
                CU_FAIL("writer lost text after a failed allocation");
            }
        } else {
            CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
            CU_ASSERT_EQUAL(b.size, head);
            fails++;
        }
        ibr_buffer_dispose(&b);
        if (calls <= n)
            break; /* allocation n never happened: every one was tried */
    }
    CU_ASSERT(fails > 0); /* the writer did allocate */
    /* the buffer's growth happens at a few places only: start from a
       buffer with room for `slack` more bytes, so that the first growth,
       which fails, falls at every position of the text in turn */
    for (size_t slack = 0; slack <= ref.size; slack++) {
        ibr_buffer b = IBR_BUFFER_INIT;
        b.ctx = ctx;
        b.capacity = 4 + slack + 1;
        b.data = malloc(b.capacity);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
        st->live++; /* freed through the context */
        memcpy(b.data, "head", 5);
        b.size = 4;
        st->fail_at = 0;
        st->once = 1;
        st->calls = 0;
        int rc = w ? w(&b, r) : tw(&b, t);
        st->fail_at = -1;
        st->once = 0;
        if (rc == 0 && (b.size != ref.size + 4 || memcmp(b.data + 4, ref.data, ref.size))) {
            fprintf(stderr, "%s: the buffer's growth failed at byte %zu of %zu and the call "
                            "returned 0 with %zu bytes\n",
                    name, slack, ref.size, b.size - 4);
            CU_FAIL("writer lost text after a failed growth");
            ibr_buffer_dispose(&b);
            break;
        }
        if (rc != 0) {
            CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
            CU_ASSERT(b.size == 4 && memcmp(b.data, "head", 5) == 0);
        }
        ibr_buffer_dispose(&b);
    }
    ibr_buffer_dispose(&ref);
}

static void test_single_failures(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_engine e = IBR_ENGINE_INIT;
    e.name = "full";
    e.route = full_route;
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    ibr_topo *t = ibr_test_topo(ctx, "mesh:dims=2x2,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "full,no_fallback", NULL), 0);
    static const struct {
        const char *name;
        writer_fn w;
        topo_writer_fn tw;
    } writers[] = {
        {"lfts_dump", ibr_result_write_lfts_dump, NULL},
        {"dump_lfts", ibr_result_write_dump_lfts, NULL},
        {"fdbs", ibr_result_write_fdbs, NULL},
        {"path_sl", ibr_result_write_path_sl, NULL},
        {"sl2vl", ibr_result_write_sl2vl, NULL},
        {"sl2vl_dump", ibr_result_write_sl2vl_dump, NULL},
        {"mcfdbs", ibr_result_write_mcfdbs, NULL},
        {"ibnetdiscover", NULL, ibr_topo_write_ibnetdiscover},
        {"guid2lid", NULL, ibr_topo_write_guid2lid},
        {"subnet_lst", NULL, ibr_topo_write_subnet_lst},
    };
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
        check_writer_once(&st, ctx, writers[i].name, writers[i].w, writers[i].tw, r, t);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* every engine: a lone failed allocation fails the call cleanly or
       leaves tables equal to an undisturbed run's */
    static const struct {
        const char *chain, *spec, *avoid; /* avoid: the setting, with one
                                             throttled cable in the fabric */
    } runs[] = {
        {"minhop,no_fallback", "torus:dims=3x3,hosts=2", NULL},
        {"updn,no_fallback", "fattree:levels=2,radix=4", NULL},
        {"dnup,no_fallback", "fattree:levels=2,radix=4", NULL},
        {"ftree,no_fallback", "fattree:levels=2,radix=4", NULL},
        {"sssp,no_fallback", "torus:dims=3x3,hosts=1", NULL},
        {"dfsssp,no_fallback", "torus:dims=3x3,hosts=1", NULL},
        {"sssp,no_fallback", "torus:dims=3x3,hosts=1", "sssp.avoid_throttled_links"},
        {"dfsssp,no_fallback", "torus:dims=3x3,hosts=1", "dfsssp.avoid_throttled_links"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        st.fail_at = -1;
        ibr_options o = IBR_OPTIONS_INIT;
        o.threads = 1;
        ibr_param avoid = {runs[i].avoid, "1"};
        if (runs[i].avoid) {
            /* switch 0's +x cable runs at 4x where both ends enable 12x */
            ibr_fabric *f = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, runs[i].spec), 0);
            ibr_port_attr a = IBR_PORT_ATTR_INIT;
            a.width_enabled = IBR_WIDTH_4X | IBR_WIDTH_12X;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, 0, 2, &a), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, 1, 1, &a), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_fabric_destroy(f);
            o.params = &avoid;
            o.n_params = 1;
        } else {
            t = ibr_test_topo(ctx, runs[i].spec);
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_result *ref = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, runs[i].chain, &o), 0);
        ibr_buffer want = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&want, ref), 0);
        long base = st.live;
        for (long n = 0;; n++) {
            st.fail_at = n;
            st.once = 1;
            st.calls = 0;
            r = NULL;
            int rc = ibr_route(&r, t, runs[i].chain, &o);
            long calls = st.calls;
            st.fail_at = -1;
            st.once = 0;
            if (rc == 0) {
                ibr_buffer got = IBR_BUFFER_INIT;
                CU_ASSERT_EQUAL(ibr_result_write_lfts_dump(&got, r), 0);
                if (got.size != want.size || memcmp(got.data, want.data, want.size) != 0) {
                    fprintf(stderr, "%s: allocation %ld failed alone and the tables differ\n",
                            runs[i].chain, n);
                    CU_FAIL("tables changed after a lone failed allocation");
                }
                ibr_buffer_dispose(&got);
            } else {
                CU_ASSERT_EQUAL(rc, IBR_ENOMEM);
            }
            ibr_result_destroy(r);
            CU_ASSERT_EQUAL(st.live, base);
            if (calls <= n) {
                CU_ASSERT(n > 5); /* the engine allocated, and each failure was tried */
                break;
            }
        }
        ibr_buffer_dispose(&want);
        ibr_result_destroy(ref);
        ibr_topo_destroy(t);
    }
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"freeze, route, verify", test_freeze_route_verify},
        {"builder", test_builder},
        {"single allocation failures: writers and engines", test_single_failures},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("oom", tests);
}
