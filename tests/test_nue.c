/* nue: valid and credit-loop free through its SLs on tori, meshes,
   hypercubes, dragonflies, random graphs and faulty fat trees with 1, 2, 4
   and 8 VLs, never more VLs than given, never declining a connected
   fabric; both partitioners; its settings; LMC; determinism; a
   disconnected fabric declined; allocation failure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The nue-layers.txt artefact as a string (static buffer; "" if absent). */
static const char *layers_text(const ibr_result *r)
{
    static char buf[4096];
    const void *data;
    size_t size;
    buf[0] = 0;
    if (ibr_result_find_artifact(&data, &size, r, "nue-layers.txt") < 0)
        return buf;
    size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
    memcpy(buf, data, n);
    buf[n] = 0;
    return buf;
}

/* Destinations routed on escape paths, from the artefact (-1 if absent). */
static long escape_count(const ibr_result *r)
{
    const char *s = strstr(layers_text(r), "# destinations on escape paths: ");
    return s ? strtol(s + strlen("# destinations on escape paths: "), NULL, 10) : -1;
}

/* nue's promises beyond the verifier: at most vls VLs used, every path's SL
   below that, one SL per destination, and for more than one layer the
   identity SL2VL on every port pair (a one-layer routing, which
   nue.explore may keep with more VLs allowed, has no SLs). */
static void check_sls(const ibr_topo *t, const ibr_result *r, unsigned vls)
{
    unsigned used = ibr_result_vls_used(r);
    CU_ASSERT(used >= 1 && used <= vls);
    if (vls > 1 && ibr_result_sl_mode(r) != IBR_SL_NONE) {
        CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_PER_DEST);
        CU_ASSERT(ibr_result_has_sl2vl(r));
        uint32_t ns = ibr_topo_switch_count(t);
        for (uint32_t s = 0; s < ns; s += 3) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
            for (unsigned ip = 0; ip <= ni.nports; ip += 2)
                for (unsigned op = 0; op <= ni.nports; op++) {
                    uint8_t map[16];
                    CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, s, ip, op), 0);
                    for (unsigned sl = 0; sl < vls; sl++)
                        CU_ASSERT_EQUAL(map[sl], sl);
                }
        }
    } else {
        CU_ASSERT_EQUAL(used, 1);
    }
    unsigned max = ibr_topo_max_lid(t), maxsl = 0;
    for (unsigned d = 1; d <= max; d++) {
        unsigned sl = ibr_result_path_sl(r, 1, (uint16_t)d);
        if (sl > maxsl)
            maxsl = sl;
    }
    CU_ASSERT(maxsl < used);
}

static ibr_result *route_nue(const ibr_topo *t, unsigned vls, const char *part,
                             ibr_verify_report *rep)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = vls;
    ibr_param p = {"nue.partitioner", part};
    if (part) {
        o.params = &p;
        o.n_params = 1;
    }
    ibr_result *r =
        ibr_test_route(rep, t, "nue,no_fallback", &o, IBR_TEST_DEADLOCK_FREE | IBR_TEST_UNRESTRICTED);
    if (!r)
        fprintf(stderr, "nue declined or failed with %u VLs\n", vls);
    else if (rep->deadlock_free != 1)
        fprintf(stderr, "nue with %u VLs: %s\n", vls, rep->credit_loop);
    return r;
}

static const unsigned vl_counts[] = {1, 2, 4, 8};

static void check_family(const char *spec, unsigned links, unsigned switches, uint64_t seed)
{
    ibr_topo *t = ibr_test_topo_faults(spec, links, switches, seed, 0);
    for (size_t i = 0; i < sizeof vl_counts / sizeof *vl_counts; i++) {
        ibr_verify_report rep;
        ibr_result *r = route_nue(t, vl_counts[i], NULL, &rep);
        CU_ASSERT_PTR_NOT_NULL(r);
        if (!r) {
            fprintf(stderr, "  on %s\n", spec);
            continue;
        }
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        check_sls(t, r, vl_counts[i]);
        CU_ASSERT(escape_count(r) >= 0);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

static void test_regular(void)
{
    static const char *specs[] = {
        "torus:dims=4x4,hosts=1",     "torus:dims=3x3x3,hosts=2", "torus:dims=4x4x4,hosts=1",
        "mesh:dims=4x5,hosts=1",      "mesh:dims=3x3x3,hosts=2",  "hypercube:dim=4,hosts=2",
        "hypercube:dim=5,hosts=1",    "dragonfly:a=4,p=2,h=2,g=9",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        check_family(specs[i], 0, 0, 0);
}

static void test_random_and_faulty(void)
{
    check_family("random:switches=40,degree=4,hosts=2,seed=3", 0, 0, 0);
    check_family("random:switches=60,degree=6,hosts=1,seed=8", 0, 0, 0);
    check_family("random:switches=30,degree=3,hosts=2,seed=5", 2, 0, 4);
    check_family("fattree:levels=3,radix=8", 8, 1, 5);
    check_family("fattree:levels=2,radix=16", 6, 1, 1);
    check_family("xgft:h=3,m=4.4.6,w=1.2.3", 10, 1, 4);
    check_family("torus:dims=5x5,hosts=2", 3, 1, 3);
    check_family("dragonfly:a=6,p=3,h=3,g=10", 8, 1, 3);
}

/* A fabric where the search gets stuck (a 6x6x6 torus with a failed
   switch, one VL): the repair onto the escape paths is exercised, and the
   routing stays valid and loop-free, with and without the improvement
   pass. */
static void test_escape_repair(void)
{
    ibr_topo *t = ibr_test_topo_faults("torus:dims=6x6x6,hosts=1", 0, 1, 1, 0);
    for (int imp = 0; imp <= 1; imp++) {
        ibr_options o = IBR_OPTIONS_INIT;
        o.max_vls = 1;
        ibr_param p[3] = {
            {"nue.improve", imp ? "1" : "0"}, {"nue.order", "1"}, {"nue.explore", "0"}};
        o.params = p;
        o.n_params = 3;
        ibr_verify_report rep;
        ibr_result *r = ibr_test_route(&rep, t, "nue,no_fallback", &o,
                                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_UNRESTRICTED);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        CU_ASSERT(escape_count(r) > 0);
        check_sls(t, r, 1);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* Both partitioners in the same build; the artefact names the one used. */
static void test_partitioners(void)
{
    ibr_topo *t = ibr_test_topo_faults("torus:dims=4x4x4,hosts=2", 0, 0, 0, 0);
    ibr_verify_report rep;
    ibr_result *r = route_nue(t, 4, "builtin", &rep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NOT_NULL(strstr(layers_text(r), "# partitioner: builtin (asked: builtin)"));
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 4); /* four regions, each used */
    ibr_result_destroy(r);

    r = route_nue(t, 4, "metis", &rep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const char *txt = layers_text(r);
    if (strstr(txt, "METIS not built in")) {
        fputs("\n  SKIP METIS: this library was built without METIS; the engine fell back "
              "to its built-in partitioner\n", stderr);
        CU_ASSERT_PTR_NOT_NULL(strstr(txt, "# partitioner: builtin (asked: metis)"));
    } else {
        CU_ASSERT_PTR_NOT_NULL(strstr(txt, "# partitioner: metis (asked: metis)"));
        CU_ASSERT(ibr_result_vls_used(r) >= 2 && ibr_result_vls_used(r) <= 4);
    }
    ibr_result_destroy(r);

    /* auto: METIS when built in */
    r = route_nue(t, 2, NULL, &rep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    txt = layers_text(r);
    CU_ASSERT(strstr(txt, "# partitioner: metis (asked: auto)") != NULL ||
              strstr(txt, "# partitioner: builtin (asked: auto)") != NULL);
    ibr_result_destroy(r);

    /* one layer: no partition at all */
    r = route_nue(t, 1, "metis", &rep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_PTR_NOT_NULL(strstr(layers_text(r), "# partitioner: none (asked: metis)"));
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_NONE);
    ibr_result_destroy(r);

    /* a value that is no partitioner fails the engine with a message */
    ibr_options o = IBR_OPTIONS_INIT;
    ibr_param p = {"nue.partitioner", "kahip"};
    o.params = &p;
    o.n_params = 1;
    r = NULL;
    CU_ASSERT_NOT_EQUAL(ibr_route(&r, t, "nue,no_fallback", &o), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "kahip"));
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* nue.max_vls limits the layers below ibr_options::max_vls, never above
   (on ports with all 15 data VLs: a default port has VL0-7). */
static void test_max_vls_setting(void)
{
    ibr_topo *t = ibr_test_topo_faults("hypercube:dim=5,hosts=2,vls=15", 0, 0, 0, 0);
    static const struct {
        unsigned opt;
        const char *set;
        unsigned limit;
    } cases[] = {{8, "2", 2}, {2, "8", 2}, {8, "0", 8}, {3, "1", 1}, {15, "15", 15}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ibr_options o = IBR_OPTIONS_INIT;
        o.max_vls = cases[i].opt;
        ibr_param p = {"nue.max_vls", cases[i].set};
        o.params = &p;
        o.n_params = 1;
        ibr_verify_report rep;
        ibr_result *r = ibr_test_route(&rep, t, "nue,no_fallback", &o,
                                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_UNRESTRICTED);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check_sls(t, r, cases[i].limit);
        /* 32 switches, every part gets some */
        CU_ASSERT_EQUAL(ibr_result_vls_used(r), cases[i].limit);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* LMC: every LID routed, loop-free. */
static void test_lmc(void)
{
    ibr_topo *t = ibr_test_topo_faults("torus:dims=3x3x3,hosts=1", 0, 0, 0, 2);
    ibr_verify_report mh;
    ibr_result *m = ibr_test_route(&mh, t, "minhop", NULL, 0);
    ibr_result_destroy(m);
    CU_ASSERT(mh.pairs >= 27 * 26);
    for (unsigned v = 1; v <= 4; v *= 4) {
        ibr_verify_report rep;
        ibr_result *r = route_nue(t, v, NULL, &rep);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        CU_ASSERT_EQUAL(rep.pairs, mh.pairs);
        /* the LIDs of one port take different first hops somewhere */
        uint32_t ns = ibr_topo_switch_count(t);
        unsigned differ = 0;
        for (uint32_t s = 0; s < ns; s++) {
            const uint8_t *lft = ibr_result_lft(r, s);
            for (unsigned lid = 1; lid + 3 < ibr_result_lft_size(r); lid += 4)
                differ += lft[lid] != lft[lid + 1];
        }
        CU_ASSERT(differ > 0);
        check_sls(t, r, v);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

static int same_result(const ibr_topo *t, const ibr_result *a, const ibr_result *b)
{
    int same = ibr_result_vls_used(a) == ibr_result_vls_used(b) &&
               ibr_result_sl_mode(a) == ibr_result_sl_mode(b);
    uint32_t ns = ibr_topo_switch_count(t);
    for (uint32_t s = 0; s < ns && same; s++)
        same = !memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), ibr_result_lft_size(a));
    unsigned max = ibr_topo_max_lid(t);
    for (unsigned d = 1; d <= max && same; d++)
        same = ibr_result_path_sl(a, 1, (uint16_t)d) == ibr_result_path_sl(b, 1, (uint16_t)d);
    return same;
}

/* Same tables from run to run and for any thread count. */
static void test_determinism(void)
{
    static const char *specs[] = {"torus:dims=4x4x4,hosts=2", "random:switches=50,degree=5,hosts=2,seed=9"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t = ibr_test_topo_faults(specs[i], 0, 0, 0, 0);
        for (unsigned v = 1; v <= 4; v *= 4) {
            ibr_options o = IBR_OPTIONS_INIT;
            o.max_vls = v;
            o.threads = 1;
            ibr_result *a = NULL, *b = NULL, *c = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&a, t, "nue,no_fallback", &o), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_route(&b, t, "nue,no_fallback", &o), 0);
            o.threads = 4;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&c, t, "nue,no_fallback", &o), 0);
            CU_ASSERT(same_result(t, a, b));
            CU_ASSERT(same_result(t, a, c));
            ibr_result_destroy(a);
            ibr_result_destroy(b);
            ibr_result_destroy(c);
        }
        ibr_topo_destroy(t);
    }
}

/* FNV-1a of a result's tables: every switch's LFT, the path SL of every
   destination, the VLs used. */
static uint64_t tables_hash(const ibr_topo *t, const ibr_result *r)
{
    uint64_t h = 14695981039346656037u;
    uint32_t ns = ibr_topo_switch_count(t);
    for (uint32_t s = 0; s < ns; s++) {
        const uint8_t *lft = ibr_result_lft(r, s);
        for (size_t i = 0; i < ibr_result_lft_size(r); i++)
            h = (h ^ lft[i]) * 1099511628211u;
    }
    for (unsigned d = 1; d <= ibr_topo_max_lid(t); d++)
        h = (h ^ ibr_result_path_sl(r, 1, (uint16_t)d)) * 1099511628211u;
    return (h ^ ibr_result_vls_used(r)) * 1099511628211u;
}

static uint64_t nue_hash(const ibr_topo *t, const char *improve)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 8;
    o.threads = 2;
    ibr_param p[2] = {{"nue.partitioner", "builtin"}, {"nue.improve", improve}};
    o.params = p;
    o.n_params = 2;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "nue,no_fallback", &o), 0);
    uint64_t h = tables_hash(t, r);
    ibr_result_destroy(r);
    return h;
}

/* The default's tables (8 VLs, the built-in partitioner: METIS may be
   absent or another version), pinned: the shortcuts that spare work (a
   pass abandoned once it cannot be kept, the escape roots shared by the
   variants) must not change them. One pass fewer does change them on
   these fabrics, so the pin is not blind to the passes. */
static void test_pinned_tables(void)
{
    static const struct {
        const char *spec;
        uint64_t hash;
    } pins[] = {
        {"torus:dims=4x4x4,hosts=2", 0x30ff905a83bf8139u},
        {"dragonfly:a=4,p=2,h=2", 0xb06aa50ea2c012c4u},
        {"random:switches=64,degree=6,hosts=4,seed=1", 0x002d57a78a4c57b7u},
        {"mesh:dims=8x8,hosts=2", 0x44b3aaadafa666aau},
    };
    for (size_t i = 0; i < sizeof pins / sizeof *pins; i++) {
        ibr_topo *t = ibr_test_topo_faults(pins[i].spec, 0, 0, 0, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        uint64_t h = nue_hash(t, "2");
        if (getenv("IBR_TEST_PRINT_PINS"))
            printf("\n  %s: 0x%016" PRIx64 " (improve=1: 0x%016" PRIx64 ")", pins[i].spec, h,
                   nue_hash(t, "1"));
        CU_ASSERT_EQUAL(h, pins[i].hash);
        CU_ASSERT_NOT_EQUAL(nue_hash(t, "1"), pins[i].hash);
        ibr_topo_destroy(t);
    }
}

/* A disconnected fabric is declined with the reason; no switches too. A
   single switch and a ring with a down link are routed. */
static void test_edge_fabrics(void)
{
    /* two rings of three switches, one host each */
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    for (unsigned i = 0; i < 6; i++)
        ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x100 * (i + 1), 4, "r");
    for (unsigned i = 0; i < 6; i++)
        ibr_fabric_add_link(f, i, 1, (i / 3) * 3 + (i + 1) % 3, 2, NULL);
    for (unsigned i = 0; i < 6; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, 6 + i, 1, i, 3, NULL);
    }
    ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "nue,no_fallback", NULL), IBR_EUNROUTABLE);
    int st = 0;
    const char *msg = NULL;
    ibr_result_attempt(NULL, &st, &msg, r, 0);
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "disconnected"));
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* faults that cut a leaf switch with hosts off */
    t = ibr_test_topo_faults("xgft:h=3,m=4.4.6,w=1.2.3", 10, 1, 3, 0);
    r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "nue,no_fallback", NULL), IBR_EUNROUTABLE);
    msg = NULL;
    ibr_result_attempt(NULL, &st, &msg, r, 0);
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "disconnected"));
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* no switches */
    f = NULL;
    ibr_fabric_create(&f, NULL);
    ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x10, 1, "a");
    ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x20, 1, "b");
    ibr_fabric_add_link(f, 0, 1, 1, 1, NULL);
    ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "nue,no_fallback", NULL), IBR_EUNROUTABLE);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* one switch with three hosts, 8 VLs: one part only */
    f = NULL;
    ibr_fabric_create(&f, NULL);
    ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x100, 4, "s");
    for (unsigned i = 0; i < 3; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, 1 + i, 1, 0, 1 + i, NULL);
    }
    ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    ibr_verify_report rep;
    r = route_nue(t, 8, NULL, &rep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(rep.pairs, 6);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 1);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 1), 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* a ring of five switches (a credit loop for any minimal routing with
       one VL), one link down: the long way round */
    for (int down = 0; down <= 1; down++) {
        f = NULL;
        ibr_fabric_create(&f, NULL);
        for (unsigned i = 0; i < 5; i++)
            ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x100 * (i + 1), 4, "r");
        for (unsigned i = 0; i < 5; i++)
            ibr_fabric_add_link(f, i, 1, (i + 1) % 5, 2, NULL);
        for (unsigned i = 0; i < 5; i++) {
            ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
            ibr_fabric_add_link(f, 5 + i, 1, i, 3, NULL);
        }
        if (down)
            CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 0, 1, IBR_LINK_DOWN), 0);
        ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        ibr_fabric_destroy(f);
        for (unsigned v = 1; v <= 2; v++) {
            r = route_nue(t, v, NULL, &rep);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_EQUAL(rep.deadlock_free, 1);
            CU_ASSERT_EQUAL(rep.down_link, 0);
            if (down)
                CU_ASSERT_EQUAL(rep.max_hops, 6); /* host, 4 links around, host */
            ibr_result_destroy(r);
        }
        ibr_topo_destroy(t);
    }
}

/* Every allocation failure gives IBR_ENOMEM and leaks nothing. */
static void test_allocation_failure(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=3x3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    long base = st.live;
    static const char *parts[] = {"builtin", "metis"};
    for (unsigned v = 1; v <= 4; v += 3)
        for (int pi = 0; pi < (v > 1 ? 2 : 1); pi++) {
            ibr_options o = IBR_OPTIONS_INIT;
            o.max_vls = v;
            ibr_param p = {"nue.partitioner", parts[pi]};
            o.params = &p;
            o.n_params = 1;
            long n;
            ibr_result *r = ibr_test_route_oom(&n, &st, t, "nue,no_fallback", &o);
            ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
            CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
            CU_ASSERT_EQUAL(rep.deadlock_free, 1);
            ibr_result_destroy(r);
            CU_ASSERT_EQUAL(st.live, base);
            CU_ASSERT(n > 10);
        }
    st.fail_at = -1;
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}

/* Busiest link of nue on t with vls VLs and the given improve/explore
   settings (the routing checked valid and loop-free); *used gets the VLs
   used. */
static uint64_t busiest(const ibr_topo *t, unsigned vls, const char *improve,
                        const char *explore, unsigned *used)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = vls;
    ibr_param p[2] = {{"nue.improve", improve}, {"nue.explore", explore}};
    o.params = p;
    o.n_params = 2;
    ibr_verify_report rep;
    ibr_result *r = ibr_test_route(&rep, t, "nue,no_fallback", &o,
                                   IBR_TEST_DEADLOCK_FREE | IBR_TEST_UNRESTRICTED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
    check_sls(t, r, vls);
    *used = ibr_result_vls_used(r);
    uint64_t m = rep.max_link_load;
    ibr_result_destroy(r);
    return m;
}

/* More improvement passes never load the busiest link more (each pass
   starts from the routing the previous one kept), and neither does
   nue.explore (its variants are routed besides the others). On the
   3-level fat tree the single layer it tries beats four layers (124
   against 208 end-port pairs measured) and is kept, with one VL; on the
   random graph with 1 VL the load-dominated weights win. */
static void test_passes_and_explore(void)
{
    static const struct {
        const char *spec;
        unsigned links, vls;
    } cases[] = {
        {"fattree:levels=3,radix=8", 0, 4},
        {"random:switches=60,degree=6,hosts=3,seed=1", 0, 1},
        {"torus:dims=6x6x6,hosts=1", 0, 2},
        {"fattree:levels=3,radix=8", 12, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ibr_topo *t = ibr_test_topo_faults(cases[i].spec, cases[i].links, cases[i].links ? 2 : 0,
                                           3, 0);
        unsigned u0, u1, u2, ux;
        uint64_t m0 = busiest(t, cases[i].vls, "0", "0", &u0);
        uint64_t m1 = busiest(t, cases[i].vls, "1", "0", &u1);
        uint64_t m2 = busiest(t, cases[i].vls, "2", "0", &u2);
        uint64_t mx = busiest(t, cases[i].vls, "2", "1", &ux);
        CU_ASSERT(m1 <= m0);
        CU_ASSERT(m2 <= m1);
        CU_ASSERT(mx <= m2);
        if (i == 0) {
            CU_ASSERT(mx < m2);
            CU_ASSERT_EQUAL(ux, 1);
        }
        if (i == 1)
            CU_ASSERT(mx < m2);
        ibr_topo_destroy(t);
    }
}

/* One switch with 254 hosts at LMC 7: 32,512 LIDs and nothing to route
   but the switch's own ports. The interleaved destination order (order 2)
   took seconds there, quadratic in the LIDs of a switch (issue 34), where
   the switch order (order 1) takes milliseconds: now it costs about the
   same (at most 8 times, or 0.08 s), and both give the same tables. */
typedef struct star_job {
    const ibr_topo *t;
    const char *order;
} star_job;

static int star_route(void *arg)
{
    const star_job *j = arg;
    const ibr_param p[] = {{"nue.order", j->order}, {"nue.explore", "0"}};
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 1;
    o.params = p;
    o.n_params = 2;
    ibr_result *r = NULL;
    int rc = ibr_route(&r, j->t, "nue,no_fallback", &o);
    uint64_t h = 1469598103934665603ULL;
    static uint8_t lft[49152];
    size_t n = 0;
    if (rc == 0 && ibr_result_copy_lft(lft, sizeof lft, &n, r, 0) == 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ lft[i]) * 1099511628211ULL;
    ibr_result_destroy(r);
    return rc == 0 ? (int)(h & 0x7fffffff) : -1;
}

static void test_lids_of_one_switch(void)
{
    ibr_topo *t = ibr_test_star(254, 7);
    CU_ASSERT_EQUAL(ibr_topo_max_lid(t), 254 * 128 + 128 - 1);
    star_job sw = {t, "1"}, il = {t, "2"};
    int h1 = -1, h2 = -2;
    double t1 = 0, t2 = 0;
    CU_ASSERT_EQUAL_FATAL(ibr_test_in_child(&h1, &t1, 60.0, star_route, &sw), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_test_in_child(&h2, &t2, 60.0, star_route, &il), 0);
    CU_ASSERT(h1 >= 0);
    CU_ASSERT_EQUAL(h1, h2);
    if (t2 > 8 * (t1 > 0.01 ? t1 : 0.01)) {
        fprintf(stderr, "\n  interleaved order %.3f s, switch order %.3f s\n", t2, t1);
        CU_FAIL("the interleaved order costs more than the LIDs it orders");
    }
    ibr_topo_destroy(t);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"tori, meshes, hypercubes, dragonflies: 1, 2, 4, 8 VLs", test_regular},
        {"random graphs and faulty fabrics: 1, 2, 4, 8 VLs", test_random_and_faulty},
        {"escape-path repair", test_escape_repair},
        {"partitioners: builtin, metis, auto", test_partitioners},
        {"nue.max_vls", test_max_vls_setting},
        {"LMC", test_lmc},
        {"improvement passes and explored variants", test_passes_and_explore},
        {"determinism", test_determinism},
        {"default tables pinned", test_pinned_tables},
        {"edge fabrics, disconnected fabric declined", test_edge_fabrics},
        {"allocation failure", test_allocation_failure},
        {"one switch at LMC 7: time in proportion to the LIDs", test_lids_of_one_switch},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("nue", tests);
}
