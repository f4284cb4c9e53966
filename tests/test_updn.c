/* updn and dnup: legality of every route against independently computed
   ranks, completeness, credit-loop freedom, root detection and options. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define INF 0xFFFFFFFFu

typedef struct ranks {
    uint32_t n;
    uint32_t *rank;
    uint64_t *id;
} ranks;

static uint32_t sw_of_port(const ibr_topo *t, uint32_t node, unsigned port)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if (ibr_topo_port_info(&pi, t, node, port) < 0 || pi.remote_node == IBR_NONE ||
        pi.state != IBR_LINK_ACTIVE)
        return IBR_NONE;
    return ibr_topo_node_switch(t, pi.remote_node);
}

/* BFS ranks from the switches flagged in src. */
static void bfs_rank(const ibr_topo *t, ranks *rk)
{
    uint32_t n = rk->n, *q = malloc(sizeof *q * n + 4), h = 0, tl = 0;
    for (uint32_t s = 0; s < n; s++)
        if (rk->rank[s] == 0)
            q[tl++] = s;
    while (h < tl) {
        uint32_t u = q[h++];
        uint32_t node = ibr_topo_switch_node(t, u);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; p <= ni.nports; p++) {
            uint32_t b = sw_of_port(t, node, p);
            if (b != IBR_NONE && b != u && rk->rank[b] > rk->rank[u] + 1) {
                rk->rank[b] = rk->rank[u] + 1;
                q[tl++] = b;
            }
        }
    }
    free(q);
}

/* updn ranks from the roots the result reports. */
static void updn_ranks(const ibr_topo *t, const ibr_result *r, ranks *rk)
{
    rk->n = ibr_topo_switch_count(t);
    rk->rank = malloc(sizeof *rk->rank * rk->n + 4);
    rk->id = malloc(sizeof *rk->id * rk->n + 8);
    for (uint32_t s = 0; s < rk->n; s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        rk->rank[s] = INF;
        rk->id[s] = ni.node_guid;
    }
    const void *data;
    size_t size;
    CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&data, &size, r, "opensm-updn-roots.dump"), 0);
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        uint32_t node;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_find_guid(&node, NULL, t, strtoull(line, NULL, 16)), 0);
        rk->rank[ibr_topo_node_switch(t, node)] = 0;
    }
    free(text);
    bfs_rank(t, rk);
}

/* Is the step a -> b up (toward smaller rank)? */
static int is_up(const ranks *rk, uint32_t a, uint32_t b)
{
    if (rk->rank[a] != rk->rank[b])
        return rk->rank[b] < rk->rank[a];
    return rk->id[b] < rk->id[a];
}

/* Every route from every switch to every end-port LID: up* down* (updn).
   Returns the number of illegal routes. */
static long illegal_routes(const ibr_topo *t, const ibr_result *r, const ranks *rk)
{
    long bad = 0;
    for (unsigned lid = 1; lid <= ibr_topo_max_lid(t); lid++) {
        uint32_t on;
        unsigned op;
        if (ibr_topo_lid_owner(&on, &op, t, (uint16_t)lid) < 0 ||
            ibr_topo_node_switch(t, on) != IBR_NONE)
            continue;
        for (uint32_t s = 0; s < rk->n; s++) {
            uint32_t cur = s;
            int went_down = 0;
            for (unsigned steps = 0; steps <= rk->n; steps++) {
                unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
                if (p == IBR_NO_ROUTE)
                    break;
                uint32_t nx = sw_of_port(t, ibr_topo_switch_node(t, cur), p);
                if (nx == IBR_NONE)
                    break; /* delivered (or broken: the verifier's job) */
                int up = is_up(rk, cur, nx);
                if (up && went_down) {
                    bad++;
                    break;
                }
                went_down |= !up;
                cur = nx;
            }
        }
    }
    return bad;
}

static ibr_result *route_checked(const ibr_topo *t, const char *chain, const ibr_options *o)
{
    return ibr_test_route(NULL, t, chain, o, IBR_TEST_DEADLOCK_FREE);
}

static void test_updn_trees(void)
{
    static const char *specs[] = {"fattree:levels=2,radix=8", "fattree:levels=3,radix=8",
                                  "fattree:levels=3,radix=12,hosts=3", "xgft:h=3,m=4.4.6,w=1.2.3",
                                  "fattree:levels=3,radix=16",
                                  /* leaves pass the heuristic too: only the top stays */
                                  "fattree:levels=2,radix=24"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        for (int faults = 0; faults <= 1; faults++) {
            ibr_fabric *f = NULL;
            ibr_fabric_create(&f, NULL);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
            if (faults)
                CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 4, 0, 7), 0);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_result *r = route_checked(t, "updn,no_fallback", NULL);
            if (r) {
                ranks rk;
                updn_ranks(t, r, &rk);
                CU_ASSERT_EQUAL(illegal_routes(t, r, &rk), 0);
                /* the roots found are exactly the top-level switches */
                for (uint32_t s = 0; s < rk.n; s++) {
                    ibr_node_info ni = IBR_NODE_INFO_INIT;
                    ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
                    int top = 1;
                    for (unsigned p = 1; p <= ni.nports; p++) {
                        uint32_t b = sw_of_port(t, ibr_topo_switch_node(t, s), p);
                        ibr_node_info bi = IBR_NODE_INFO_INIT;
                        if (b != IBR_NONE) {
                            ibr_topo_node_info(&bi, t, ibr_topo_switch_node(t, b));
                            /* generators name levels L1 (leaves) .. Lh */
                            if (strcmp(bi.desc, ni.desc) > 0 && bi.desc[1] > ni.desc[1])
                                top = 0;
                        }
                    }
                    if (!faults)
                        CU_ASSERT_EQUAL(rk.rank[s] == 0, top);
                }
                free(rk.rank);
                free(rk.id);
                ibr_result_destroy(r);
            }
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

/* Irregular fabrics: roots must be given (the heuristic finds none), and
   then every route is legal and loop-free. */
static void test_updn_given_roots(void)
{
    static const char *specs[] = {"torus:dims=4x4,hosts=1", "torus:dims=3x3x3,hosts=2",
                                  "mesh:dims=5x5,hosts=1", "hypercube:dim=4,hosts=2",
                                  "dragonfly:a=4,p=2,h=2,g=9",
                                  "random:switches=50,degree=4,hosts=2,seed=5"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        for (int faults = 0; faults <= 1; faults++) {
            ibr_fabric *f = NULL;
            ibr_fabric_create(&f, NULL);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
            if (faults)
                CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 3, 0, 11), 0);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            /* no roots: updn declines, the chain falls back to minhop */
            ibr_result *r = NULL;
            CU_ASSERT_EQUAL(ibr_route(&r, t, "updn", NULL), 0);
            CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
            const char *msg;
            int st;
            ibr_result_attempt(NULL, &st, &msg, r, 0);
            CU_ASSERT_EQUAL(st, IBR_EDECLINED);
            CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no root switch"));
            ibr_result_destroy(r);
            /* a root given as the GUID of a host means its switch */
            uint32_t host = IBR_NONE;
            for (uint32_t n = 0; n < ibr_topo_node_count(t) && host == IBR_NONE; n++)
                if (ibr_topo_node_switch(t, n) == IBR_NONE &&
                    sw_of_port(t, n, 1) != IBR_NONE)
                    host = n;
            ibr_port_info hp = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&hp, t, host, 1);
            ibr_options o = IBR_OPTIONS_INIT;
            o.root_guids = &hp.guid;
            o.n_root_guids = 1;
            r = route_checked(t, "updn,no_fallback", &o);
            if (r) {
                ranks rk;
                updn_ranks(t, r, &rk);
                CU_ASSERT_EQUAL(rk.rank[sw_of_port(t, host, 1)], 0);
                CU_ASSERT_EQUAL(illegal_routes(t, r, &rk), 0);
                free(rk.rank);
                free(rk.id);
                ibr_result_destroy(r);
            }
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

/* dnup: deadlock-free and complete everywhere, including fabrics where
   every switch carries hosts (OpenSM's dnup routes those with EQUAL steps
   and credit loops). */
static void test_dnup(void)
{
    static const char *specs[] = {"fattree:levels=2,radix=8", "fattree:levels=3,radix=12,hosts=3",
                                  "torus:dims=4x4,hosts=1", "torus:dims=4x4x4,hosts=2",
                                  "mesh:dims=6x6,hosts=1", "hypercube:dim=5,hosts=1",
                                  "dragonfly:a=4,p=2,h=2,g=9",
                                  "random:switches=60,degree=4,hosts=2,seed=3"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        for (int faults = 0; faults <= 1; faults++) {
            ibr_fabric *f = NULL;
            ibr_fabric_create(&f, NULL);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
            if (faults)
                CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 4, 0, 3), 0);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_result *r = route_checked(t, "dnup,no_fallback", NULL);
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

static void test_connect_roots_and_lmc(void)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = route_checked(t, "updn,no_fallback", NULL);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    /* spine to spine is impossible under up/down: 4 spines x 3 others */
    CU_ASSERT_EQUAL(rep.restricted, 12);
    ibr_result_destroy(r);
    ibr_options o = IBR_OPTIONS_INIT;
    const ibr_param cr = {"updn.connect_roots", "1"};
    o.params = &cr;
    o.n_params = 1;
    r = route_checked(t, "updn,no_fallback", &o);
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.restricted, 0);
    CU_ASSERT_EQUAL(rep.routes_ok, rep.routes_checked);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_ids_and_balance(void)
{
    /* on a full two-level tree updn equals minhop: same optimum loads */
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=12");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *u = route_checked(t, "updn,no_fallback", NULL);
    ibr_result *m = NULL;
    CU_ASSERT_EQUAL(ibr_route(&m, t, "minhop", NULL), 0);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        for (unsigned l = 1; l <= ibr_topo_max_lid(t); l++) {
            uint32_t on;
            if (ibr_topo_lid_owner(&on, NULL, t, (uint16_t)l) == 0 &&
                ibr_topo_node_switch(t, on) == IBR_NONE)
                CU_ASSERT_EQUAL(ibr_result_lft_port(u, s, (uint16_t)l),
                                ibr_result_lft_port(m, s, (uint16_t)l));
        }
    ibr_result_destroy(u);
    ibr_result_destroy(m);
    ibr_topo_destroy(t);
    /* ids replace GUIDs in tie-breaks between equal ranks: still legal */
    t = ibr_test_topo(NULL, "torus:dims=3x3,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_guid_id ids[9];
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    for (uint32_t s = 0; s < 9; s++) {
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        ids[s].guid = ni.node_guid;
        ids[s].id = 100 - s; /* reverse the GUID order */
    }
    ibr_options o = IBR_OPTIONS_INIT;
    o.ids = ids;
    o.n_ids = 9;
    o.root_guids = &ids[4].guid;
    o.n_root_guids = 1;
    ibr_result *a = route_checked(t, "updn,no_fallback", &o);
    o.n_ids = 0;
    ibr_result *b = route_checked(t, "updn,no_fallback", &o);
    int differ = 0;
    for (uint32_t s = 0; s < 9 && a && b; s++)
        differ |= memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), ibr_result_lft_size(a));
    CU_ASSERT(differ);
    ibr_result_destroy(a);
    ibr_result_destroy(b);
    ibr_topo_destroy(t);
}

/* Irregular graphs with links between equal ranks, where a search that
   keeps one direction state per switch (OpenSM's) produces illegal routes
   and credit loops: every route must stay legal and loop-free. */
static void test_irregular_sweep(void)
{
    for (uint64_t seed = 1; seed <= 24; seed++) {
        char spec[96];
        snprintf(spec, sizeof spec, "random:switches=%u,degree=%u,hosts=2,seed=%" PRIu64,
                 (unsigned)(16 + seed * 3), (unsigned)(3 + seed % 4), seed);
        for (int faults = 0; faults <= 1; faults++) {
            ibr_fabric *f = NULL;
            ibr_fabric_create(&f, NULL);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
            if (faults)
                ibr_fabric_inject_faults(f, 3, 0, seed);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, (uint32_t)(seed % 7)));
            ibr_options o = IBR_OPTIONS_INIT;
            o.root_guids = &ni.node_guid;
            o.n_root_guids = 1;
            static const char *chains[] = {"updn,no_fallback", "dnup,no_fallback"};
            for (int k = 0; k < 2; k++) {
                ibr_result *r = NULL;
                int rc = ibr_route(&r, t, chains[k], &o);
                if (rc == 0) {
                    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
                    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
                    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
                    CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
                    if (!rep.deadlock_free)
                        fprintf(stderr, "%s %s: %s\n", spec, chains[k], rep.credit_loop);
                    if (k == 0) {
                        ranks rk;
                        updn_ranks(t, r, &rk);
                        CU_ASSERT_EQUAL(illegal_routes(t, r, &rk), 0);
                        free(rk.rank);
                        free(rk.id);
                    }
                } else {
                    /* only a fault that disconnects end nodes under the
                       rule may make the engine decline */
                    CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
                    const char *msg = "";
                    ibr_result_attempt(NULL, NULL, &msg, r, 0);
                    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no legal"));
                }
                ibr_result_destroy(r);
            }
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"updn on fat trees, with and without faults", test_updn_trees},
        {"updn with given roots on irregular fabrics", test_updn_given_roots},
        {"dnup everywhere", test_dnup},
        {"connect_roots and LMC", test_connect_roots_and_lmc},
        {"ids and balance", test_ids_and_balance},
        {"irregular graphs: legal and loop-free", test_irregular_sweep},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("updn", tests);
}
