/* The versioned structs of the ABI (doc/api-conventions.md): for each, its
   INIT macro equals its _init() function, unknown versions are refused
   without touching anything, and the library reads or writes no more of a
   caller's struct than its version declares (every call here gets its
   struct in a heap block of exactly that size, so AddressSanitizer catches
   an over-read or over-write). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

/* The version field of a struct held in a block shorter than the struct
   (read as bytes: the compiler rightly objects to old->version). */
static unsigned version_of(const void *s)
{
    unsigned v;
    memcpy(&v, s, sizeof v);
    return v;
}

/* A heap copy of n bytes of src, exactly n bytes long. */
static void *dup_block(const void *src, size_t n)
{
    void *p = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    memcpy(p, src, n);
    return p;
}

/*
 * INIT == _init(): two blocks of exactly sizeof(T), filled with different
 * garbage, are initialised by the function and must both equal the macro,
 * byte for byte. The macro's value is held in static storage, where C
 * zeroes the padding (an automatic object assigned from the macro may keep
 * garbage in its padding, C11 6.2.6.1p6), and the function writes every
 * byte (padding included) of the versions it knows. Then: unknown
 * versions are refused with IBR_EVERSION and leave the struct as it was;
 * NULL is IBR_EINVAL.
 */
#define CHECK_INIT(T, init_fn, ver, ...)                                       \
    do {                                                                       \
        static const T ref_ = __VA_ARGS__;                                     \
        T *a_ = malloc(sizeof(T)), *b_ = malloc(sizeof(T));                    \
        CU_ASSERT_FATAL(a_ && b_);                                             \
        memset(a_, 0xA5, sizeof(T));                                           \
        memset(b_, 0x5A, sizeof(T));                                           \
        CU_ASSERT_EQUAL(init_fn(a_, ver), 0);                              \
        CU_ASSERT_EQUAL(init_fn(b_, ver), 0);                              \
        CU_ASSERT_EQUAL(memcmp(a_, &ref_, sizeof(T)), 0);                      \
        CU_ASSERT_EQUAL(memcmp(b_, &ref_, sizeof(T)), 0);                      \
        CU_ASSERT_EQUAL(a_->version, (unsigned)(ver));                     \
        memset(a_, 0xA5, sizeof(T));                                           \
        memcpy(b_, a_, sizeof(T));                                             \
        CU_ASSERT_EQUAL(init_fn(a_, 0), IBR_EVERSION);                         \
        CU_ASSERT_EQUAL(init_fn(a_, (ver) + 1), IBR_EVERSION);             \
        CU_ASSERT_EQUAL(init_fn(a_, 0xFFFFFFFFu), IBR_EVERSION);               \
        CU_ASSERT_EQUAL(memcmp(a_, b_, sizeof(T)), 0);                         \
        CU_ASSERT_EQUAL(init_fn(NULL, ver), IBR_EINVAL);                   \
        free(a_);                                                              \
        free(b_);                                                              \
    } while (0)

static ibr_fabric *gen_fabric(const char *spec)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    return f;
}

/* ------------------------------------------------------------------ */

static void test_context_config(void)
{
    CHECK_INIT(ibr_context_config, ibr_context_config_init, IBR_CONTEXT_CONFIG_VERSION,
               IBR_CONTEXT_CONFIG_INIT);

    ibr_context_config def = IBR_CONTEXT_CONFIG_INIT;
    ibr_context_config *cfg = dup_block(&def, sizeof def);
    cfg->log_level = IBR_LOG_DEBUG;
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL(ibr_context_create(&ctx, cfg), 0);
    CU_ASSERT_PTR_NOT_NULL(ctx);
    ibr_context_destroy(ctx);
    cfg->version = IBR_CONTEXT_CONFIG_VERSION + 1;
    ctx = NULL;
    CU_ASSERT_EQUAL(ibr_context_create(&ctx, cfg), IBR_EVERSION);
    CU_ASSERT_PTR_NULL(ctx);
    cfg->version = 0;
    CU_ASSERT_EQUAL(ibr_context_create(&ctx, cfg), IBR_EVERSION);
    free(cfg);
}

static void test_options(void)
{
    CHECK_INIT(ibr_options, ibr_options_init, IBR_OPTIONS_VERSION, IBR_OPTIONS_INIT);
    /* ibr_route() reading options by version: test_engine.c */
}

static int decline(ibr_run *run, void *user)
{
    (void)user;
    return ibr_run_decline(run, "declines");
}

static void test_engine(void)
{
    CHECK_INIT(ibr_engine, ibr_engine_init, IBR_ENGINE_VERSION, IBR_ENGINE_INIT);

    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    ibr_engine def = IBR_ENGINE_INIT;
    ibr_engine *e = dup_block(&def, sizeof def);
    e->name = "abi-test";
    e->route = decline;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, e), 0);
    size_t n = ibr_context_engine_count(ctx);
    e->name = "abi-test-2";
    e->version = IBR_ENGINE_VERSION + 1;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, e), IBR_EVERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_context_last_error(ctx), "engine definition version 2"));
    CU_ASSERT_EQUAL(ibr_context_engine_count(ctx), n);
    free(e);
    ibr_context_destroy(ctx);
}

static void test_link_attr(void)
{
    CHECK_INIT(ibr_link_attr, ibr_link_attr_init, IBR_LINK_ATTR_VERSION, IBR_LINK_ATTR_INIT);

    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    uint32_t a, b;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&a, f, IBR_NODE_SWITCH, 0x100, 4, "a"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&b, f, IBR_NODE_SWITCH, 0x200, 4, "b"), 0);
    ibr_link_attr def = IBR_LINK_ATTR_INIT;
    ibr_link_attr *attr = dup_block(&def, sizeof def);
    attr->width = IBR_WIDTH_12X;
    attr->speed = IBR_SPEED_EDR;
    attr->state = IBR_LINK_DOWN;
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, a, 1, b, 1, attr), 0);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, b, 1), 0);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_12X);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_EDR);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_DOWN);
    /* an unknown version: refused with a message, the ports stay free */
    attr->version = IBR_LINK_ATTR_VERSION + 1;
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, a, 2, b, 2, attr), IBR_EVERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "link attributes version 2"));
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, a, 2), 0);
    CU_ASSERT_EQUAL(pi.remote_node, IBR_NONE);
    free(attr);
    ibr_fabric_destroy(f);
}

static void test_node_info(void)
{
    CHECK_INIT(ibr_node_info, ibr_node_info_init, IBR_NODE_INFO_VERSION, IBR_NODE_INFO_INIT);

    ibr_fabric *f = gen_fabric("fattree:levels=2,radix=4");
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_node_info def = IBR_NODE_INFO_INIT;
    ibr_node_info *ni = dup_block(&def, sizeof def);
    CU_ASSERT_EQUAL(ibr_fabric_node_info(ni, f, 0), 0);
    CU_ASSERT_EQUAL(ni->version, IBR_NODE_INFO_VERSION);
    CU_ASSERT_EQUAL(ni->type, IBR_NODE_SWITCH);
    CU_ASSERT_EQUAL(ni->nports, 4);
    memcpy(ni, &def, sizeof def);
    CU_ASSERT_EQUAL(ibr_topo_node_info(ni, t, ibr_topo_node_count(t) - 1), 0);
    CU_ASSERT_EQUAL(ni->type, IBR_NODE_CA);
    CU_ASSERT_STRING_EQUAL(ni->desc, "H7 HCA-1");
    /* unknown versions: refused, untouched */
    for (unsigned v = 0; v <= IBR_NODE_INFO_VERSION + 1; v += IBR_NODE_INFO_VERSION + 1) {
        memset(ni, 0x77, sizeof *ni);
        ni->version = v;
        ibr_node_info *before = dup_block(ni, sizeof *ni);
        CU_ASSERT_EQUAL(ibr_fabric_node_info(ni, f, 0), IBR_EVERSION);
        CU_ASSERT_EQUAL(ibr_topo_node_info(ni, t, 0), IBR_EVERSION);
        CU_ASSERT_EQUAL(memcmp(ni, before, sizeof *ni), 0);
        free(before);
    }
    free(ni);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_port_info(void)
{
    CHECK_INIT(ibr_port_info, ibr_port_info_init, IBR_PORT_INFO_VERSION, IBR_PORT_INFO_INIT);

    ibr_fabric *f = gen_fabric("fattree:levels=2,radix=4");
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    uint32_t host = ibr_fabric_node_count(f) - 1;
    ibr_port_info def = IBR_PORT_INFO_INIT;
    ibr_port_info *pi = dup_block(&def, sizeof def);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(pi, f, host, 1), 0);
    CU_ASSERT_EQUAL(pi->version, IBR_PORT_INFO_VERSION);
    CU_ASSERT_NOT_EQUAL(pi->lid, 0);
    CU_ASSERT_NOT_EQUAL(pi->remote_node, IBR_NONE);
    CU_ASSERT_EQUAL(pi->width, IBR_WIDTH_4X);
    ibr_port_info *pt = dup_block(&def, sizeof def);
    CU_ASSERT_EQUAL(ibr_topo_port_info(pt, t, host, 1), 0);
    CU_ASSERT_EQUAL(memcmp(pi, pt, sizeof *pi), 0); /* padding zeroed by both */
    for (unsigned v = 0; v <= IBR_PORT_INFO_VERSION + 1; v += IBR_PORT_INFO_VERSION + 1) {
        memset(pi, 0x77, sizeof *pi);
        pi->version = v;
        memcpy(pt, pi, sizeof *pi);
        CU_ASSERT_EQUAL(ibr_fabric_port_info(pi, f, host, 1), IBR_EVERSION);
        CU_ASSERT_EQUAL(ibr_topo_port_info(pi, t, host, 1), IBR_EVERSION);
        CU_ASSERT_EQUAL(memcmp(pi, pt, sizeof *pi), 0);
    }
    /* a version 1 caller: a block of version 1's size, of which nothing
       past the v1 fields is written (ASan sees an over-write) */
    memcpy(pt, &def, sizeof def);
    CU_ASSERT_EQUAL(ibr_topo_port_info(pt, t, host, 1), 0);
    size_t v1 = offsetof(ibr_port_info, vl_cap);
    ibr_port_info *old = dup_block(&def, v1);
    unsigned one = 1;
    memcpy(old, &one, sizeof one);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(old, f, host, 1), 0);
    CU_ASSERT_EQUAL(version_of(old), 1);
    CU_ASSERT_EQUAL(ibr_topo_port_info(old, t, host, 1), 0);
    CU_ASSERT_EQUAL(memcmp(old, pt, v1) == 0, 0); /* version differs */
    CU_ASSERT_EQUAL(memcmp((char *)old + sizeof one, (char *)pt + sizeof one, v1 - sizeof one), 0);
    free(old);
    /* version 2 carries the defaults: VL0-7, never throttled */
    CU_ASSERT_EQUAL(pt->vl_cap, 8);
    CU_ASSERT_EQUAL(pt->oper_vls, 8);
    CU_ASSERT_EQUAL(pt->width_enabled, IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(pt->speed_enabled, IBR_SPEED_BIT(pt->speed));
    free(pi);
    free(pt);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_port_attr(void)
{
    CHECK_INIT(ibr_port_attr, ibr_port_attr_init, IBR_PORT_ATTR_VERSION, IBR_PORT_ATTR_INIT);

    ibr_fabric *f = gen_fabric("fattree:levels=2,radix=4");
    ibr_port_attr def = IBR_PORT_ATTR_INIT;
    ibr_port_attr *a = dup_block(&def, sizeof def);
    a->vl_cap = 4;
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 1, a), 0);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 0, 1), 0);
    CU_ASSERT_EQUAL(pi.vl_cap, 4);
    a->version = IBR_PORT_ATTR_VERSION + 1;
    a->vl_cap = 2;
    CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, 0, 1, a), IBR_EVERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "port attributes version 2"));
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, 0, 1), 0);
    CU_ASSERT_EQUAL(pi.vl_cap, 4);
    free(a);
    ibr_fabric_destroy(f);
}

static void test_gen_xgft(void)
{
    CHECK_INIT(ibr_gen_xgft, ibr_gen_xgft_init, IBR_GEN_XGFT_VERSION, IBR_GEN_XGFT_INIT);

    ibr_gen_xgft def = IBR_GEN_XGFT_INIT;
    ibr_gen_xgft *p = dup_block(&def, sizeof def);
    p->h = 2;
    p->m[0] = 4;
    p->m[1] = 4;
    p->w[0] = 1;
    p->w[1] = 2;
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_gen_xgft(f, p), 0);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 4 + 2 + 16);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    p->version = IBR_GEN_XGFT_VERSION + 1;
    CU_ASSERT_EQUAL(ibr_fabric_gen_xgft(f, p), IBR_EVERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "parameters version 2"));
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
    free(p);
    ibr_fabric_destroy(f);
}

static void test_analyze_options(void)
{
    CHECK_INIT(ibr_analyze_options, ibr_analyze_options_init, IBR_ANALYZE_OPTIONS_VERSION,
               IBR_ANALYZE_OPTIONS_INIT);

    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_analyze_options def = IBR_ANALYZE_OPTIONS_INIT;
    ibr_analyze_options *o = dup_block(&def, sizeof def);
    o->patterns = IBR_PATTERN_SHIFT;
    ibr_analysis *a = NULL;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, o), 0);
    CU_ASSERT_PTR_NOT_NULL(a);
    ibr_analysis_destroy(a);
    a = NULL;
    o->version = IBR_ANALYZE_OPTIONS_VERSION + 1;
    CU_ASSERT_EQUAL(ibr_result_analyze(&a, r, o), IBR_EVERSION);
    CU_ASSERT_PTR_NULL(a);
    free(o);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_analysis_summary(void)
{
    CHECK_INIT(ibr_analysis_summary, ibr_analysis_summary_init, IBR_ANALYSIS_SUMMARY_VERSION,
               IBR_ANALYSIS_SUMMARY_INIT);

    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = NULL;
    ibr_analysis *a = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, NULL), 0);
    ibr_analysis_summary def = IBR_ANALYSIS_SUMMARY_INIT;
    ibr_analysis_summary *s = dup_block(&def, sizeof def);
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(s, a), 0);
    CU_ASSERT_EQUAL(s->version, IBR_ANALYSIS_SUMMARY_VERSION);
    CU_ASSERT_EQUAL(s->endports, 8);
    CU_ASSERT_EQUAL(s->pairs, 8 * 7);
    CU_ASSERT_EQUAL(s->shift.patterns, 7);
    memset(s, 0x77, sizeof *s);
    s->version = IBR_ANALYSIS_SUMMARY_VERSION + 1;
    ibr_analysis_summary *before = dup_block(s, sizeof *s);
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(s, a), IBR_EVERSION);
    CU_ASSERT_EQUAL(memcmp(s, before, sizeof *s), 0);
    free(before);
    free(s);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_verify_report(void)
{
    CHECK_INIT(ibr_verify_report, ibr_verify_report_init, IBR_VERIFY_REPORT_VERSION,
               IBR_VERIFY_REPORT_INIT);

    /* version 1 ends before threads: its init writes no further */
    const size_t v1 = offsetof(ibr_verify_report, threads);
    const size_t vsize = sizeof(unsigned int);
    ibr_verify_report *old = malloc(v1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(old);
    memset(old, 0xA5, v1);
    CU_ASSERT_EQUAL(ibr_verify_report_init(old, 1), 0);
    static const ibr_verify_report ref = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(version_of(old), 1);
    CU_ASSERT_EQUAL(memcmp((char *)old + vsize, (const char *)&ref + vsize, v1 - vsize), 0);

    /* both versions verify in blocks of their own size, with one answer */
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=4x4,hosts=1");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_verify_report *cur = dup_block(&ref, sizeof ref);
    cur->threads = 1;
    CU_ASSERT_EQUAL(ibr_result_verify(cur, r), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(old, r), 0);
    CU_ASSERT_EQUAL(cur->version, IBR_VERIFY_REPORT_VERSION);
    CU_ASSERT_EQUAL(cur->threads, 1);
    CU_ASSERT_EQUAL(version_of(old), 1);
    CU_ASSERT_EQUAL(cur->deadlock_free, 0); /* minhop on a torus */
    CU_ASSERT_EQUAL(memcmp((char *)old + vsize, (char *)cur + vsize, v1 - vsize), 0);
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&a, old), 0);
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, cur), 0);
    /* the same keys, version 3's two more and version 4's multicast ones
       at the end */
    CU_ASSERT(a.size > 1 && a.size < b.size && memcmp(a.data, b.data, a.size - 1) == 0);
    CU_ASSERT_STRING_EQUAL(b.data + a.size - 1,
                           ", \"strict\": false, \"first_missing\": \"\", \"mcast_groups\": 0, "
                           "\"mcast_pairs\": 0, \"mcast_pairs_ok\": 0, \"mcast_missed\": 0, "
                           "\"mcast_duplicates\": 0, \"mcast_loops\": 0, \"mcast_dead_ends\": 0, "
                           "\"first_mcast_error\": \"\"}");
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);

    /* unknown versions: refused, untouched */
    memset(cur, 0x77, sizeof *cur);
    cur->version = IBR_VERIFY_REPORT_VERSION + 1;
    ibr_verify_report *before = dup_block(cur, sizeof *cur);
    CU_ASSERT_EQUAL(ibr_result_verify(cur, r), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&a, cur), IBR_EVERSION);
    CU_ASSERT_PTR_NULL(a.data);
    CU_ASSERT_EQUAL(memcmp(cur, before, sizeof *cur), 0);
    free(before);
    free(cur);
    free(old);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"ibr_context_config", test_context_config},
        {"ibr_options", test_options},
        {"ibr_engine", test_engine},
        {"ibr_link_attr", test_link_attr},
        {"ibr_node_info", test_node_info},
        {"ibr_port_info", test_port_info},
        {"ibr_port_attr", test_port_attr},
        {"ibr_gen_xgft", test_gen_xgft},
        {"ibr_analyze_options", test_analyze_options},
        {"ibr_analysis_summary", test_analysis_summary},
        {"ibr_verify_report", test_verify_report},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("abi", tests);
}
