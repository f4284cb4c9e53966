/* lash: valid, shortest, credit-loop-free routes over its path SLs on every
   family (meshes with and without holes, tori with parallel and failed
   links, hypercubes, fat trees, dragonflies, random graphs); the
   first-link-one-hop-closer rule checked against an independent BFS;
   symmetric per-switch-pair SLs from start_vl; the layers OpenSM needs on
   a 4x4x4 torus; the shortfall message and the fall-through of a chain;
   determinism; random small fabrics routed or declined, never crashing;
   LMC; allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The fabrics here have ports with all 15 data VLs (generator key vls=15),
   so that ibr_options::max_vls alone bounds lash's layers: a default port
   has VL0-7, as ibsim's. */
static ibr_topo *topo15(const char *spec, unsigned links, unsigned switches, uint64_t seed,
                        unsigned lmc)
{
    char s15[160];
    snprintf(s15, sizeof s15, "%s,vls=15", spec);
    return ibr_test_topo_faults(s15, links, switches, seed, lmc);
}

static unsigned nports(const ibr_topo *t, uint32_t node)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    ibr_topo_node_info(&ni, t, node);
    return ni.nports;
}

/* Switch-to-switch hop counts by BFS over active links (255: none). */
static unsigned *bfs_hops(const ibr_topo *t)
{
    uint32_t n = ibr_topo_switch_count(t);
    unsigned *h = malloc(sizeof *h * n * n + 1);
    uint32_t *q = malloc(sizeof *q * n + 1);
    for (uint32_t s = 0; s < n; s++) {
        unsigned *row = h + (size_t)s * n;
        for (uint32_t x = 0; x < n; x++)
            row[x] = 255;
        uint32_t head = 0, tail = 0;
        row[s] = 0;
        q[tail++] = s;
        while (head < tail) {
            uint32_t u = q[head++];
            uint32_t node = ibr_topo_switch_node(t, u);
            for (unsigned p = 1; p <= nports(t, node); p++) {
                uint32_t b = ibr_test_sw_behind(t, node, p);
                if (b != IBR_NONE && row[b] == 255) {
                    row[b] = row[u] + 1;
                    q[tail++] = b;
                }
            }
        }
    }
    free(q);
    return h;
}

/* Has switch s an active port? (A switch without one is invisible to a
   subnet manager, and lash leaves it out.) */
static int live(const ibr_topo *t, uint32_t s)
{
    uint32_t node = ibr_topo_switch_node(t, s);
    for (unsigned p = 1; p <= nports(t, node); p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&pi, t, node, p);
        if (pi.remote_node != IBR_NONE && pi.state == IBR_LINK_ACTIVE)
            return 1;
    }
    return 0;
}

/* Are the switches with an active port connected? */
static int connected(const ibr_topo *t, const unsigned *h)
{
    uint32_t n = ibr_topo_switch_count(t), first = IBR_NONE;
    for (uint32_t x = 0; x < n; x++) {
        if (!live(t, x))
            continue;
        if (first == IBR_NONE)
            first = x;
        else if (h[(size_t)first * n + x] == 255)
            return 0;
    }
    return 1;
}

static uint16_t switch_lid(const ibr_topo *t, uint32_t s)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, s), 0);
    return pi.lid;
}

#define LAYERS_TXT "lash-layers.txt"

/* Layers needed and available, from the lash-layers.txt artefact. */
static unsigned layers_of(const ibr_result *r, unsigned *avail)
{
    const void *data;
    size_t size;
    if (ibr_result_find_artifact(&data, &size, r, "lash-layers.txt") < 0)
        return 0;
    char buf[128];
    size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
    memcpy(buf, data, n);
    buf[n] = 0;
    unsigned needed = 0, av = 0;
    if (sscanf(buf, "# lash: %u layers needed, %u available", &needed, &av) != 2)
        return 0;
    if (avail)
        *avail = av;
    return needed;
}

/* Everything lash promises about a result beyond the verifier's checks:
   BFS hops; each switch's port toward another switch's LID is the lowest
   port whose neighbour is one hop closer (the first logical link); SLs per
   switch pair, symmetric, within start .. start + layers - 1, start within
   a switch; identity SL2VL; vls_used = start + layers <= max_vls. Returns
   the layers. */
static unsigned check_lash_m(const ibr_topo *t, const ibr_result *r, unsigned start,
                             unsigned max_vls, int mesh)
{
    uint32_t ns = ibr_topo_switch_count(t);
    unsigned *h = bfs_hops(t);
    size_t bad_hops = 0, bad_first = 0, bad_sl = 0;
    for (uint32_t a = 0; a < ns; a++)
        for (uint32_t b = 0; b < ns; b++)
            bad_hops += ibr_result_hops(r, a, b) != h[(size_t)a * ns + b];
    CU_ASSERT_EQUAL(bad_hops, 0);
    for (uint32_t x = 0; x < ns; x++) {
        uint32_t node = ibr_topo_switch_node(t, x);
        for (uint32_t y = 0; y < ns; y++) {
            uint16_t lid = switch_lid(t, y);
            if (y == x || !lid || h[(size_t)x * ns + y] == 255)
                continue;
            unsigned want = h[(size_t)x * ns + y] - 1, first = 0;
            for (unsigned p = 1; p <= nports(t, node) && !first; p++) {
                uint32_t z = ibr_test_sw_behind(t, node, p);
                if (z != IBR_NONE && h[(size_t)z * ns + y] == want)
                    first = p;
            }
            unsigned p = ibr_result_lft_port(r, x, lid);
            if (mesh) { /* links reordered: any port one hop closer */
                uint32_t z = p == IBR_NO_ROUTE ? IBR_NONE : ibr_test_sw_behind(t, node, p);
                bad_first += z == IBR_NONE || h[(size_t)z * ns + y] != want;
            } else {
                bad_first += p != first;
            }
        }
    }
    CU_ASSERT_EQUAL(bad_first, 0);
    unsigned avail = 0, layers = layers_of(r, &avail);
    CU_ASSERT(layers >= 1 && layers <= avail);
    CU_ASSERT_EQUAL(avail, max_vls - start);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), start + layers);
    CU_ASSERT(start + layers <= max_vls);
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_PER_PAIR);
    CU_ASSERT(ibr_result_has_sl2vl(r));
    for (uint32_t s = 0; s < ns; s += 3) {
        uint32_t node = ibr_topo_switch_node(t, s);
        for (unsigned ip = 0; ip <= nports(t, node); ip += 2)
            for (unsigned op = 0; op <= nports(t, node); op++) {
                uint8_t map[16];
                CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, s, ip, op), 0);
                for (unsigned sl = 0; sl < 15; sl++)
                    bad_sl += map[sl] != sl;
            }
    }
    /* one SL per switch pair: from the switches' own rows */
    unsigned *pair = malloc(sizeof *pair * ns * ns + 1);
    for (uint32_t a = 0; a < ns; a++)
        for (uint32_t b = 0; b < ns; b++) {
            uint16_t la = switch_lid(t, a), lb = switch_lid(t, b);
            unsigned sl = la && lb ? ibr_result_path_sl(r, la, lb) : 255;
            pair[(size_t)a * ns + b] = sl;
            if (sl == 255)
                continue;
            if (a == b)
                bad_sl += sl != start;
            else
                bad_sl += sl < start || sl >= start + layers;
        }
    for (uint32_t a = 0; a < ns; a++)
        for (uint32_t b = 0; b < ns; b++)
            bad_sl += pair[(size_t)a * ns + b] != pair[(size_t)b * ns + a];
    ibr_test_endp *e;
    size_t n = ibr_test_end_ports(t, &e);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++)
            for (unsigned l = 0; l < e[k].nlids; l++) {
                unsigned sl = ibr_result_path_sl(r, e[i].lid, (uint16_t)(e[k].lid + l));
                unsigned want = pair[(size_t)e[i].sw * ns + e[k].sw];
                if (want == 255)
                    want = e[i].sw == e[k].sw ? start : sl;
                bad_sl += sl != want;
            }
    CU_ASSERT_EQUAL(bad_sl, 0);
    free(e);
    free(pair);
    free(h);
    return layers;
}

static unsigned check_lash(const ibr_topo *t, const ibr_result *r, unsigned start,
                           unsigned max_vls)
{
    return check_lash_m(t, r, start, max_vls, 0);
}

static unsigned route_check(const ibr_topo *t, const ibr_options *o, unsigned start)
{
    ibr_verify_report rep;
    ibr_result *r =
        ibr_test_route(&rep, t, "lash,no_fallback", o,
                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL | IBR_TEST_UNRESTRICTED);
    if (!r)
        return 0;
    unsigned layers = check_lash(t, r, start, o ? o->max_vls : 8);
    ibr_result_destroy(r);
    return layers;
}

static const char *families[] = {
    "mesh:dims=6x6,hosts=1",         "mesh:dims=4x4x4,hosts=1",
    "mesh:dims=5x3,hosts=2,parallel=2",
    "torus:dims=4x4,hosts=1",        "torus:dims=5x6,hosts=1",
    "torus:dims=4x4x4,hosts=1",      "torus:dims=3x3x3,hosts=2,parallel=2",
    "hypercube:dim=5,hosts=1",       "fattree:levels=2,radix=8",
    "fattree:levels=3,radix=8",      "xgft:h=3,m=4.4.6,w=1.2.3",
    "dragonfly:a=4,p=2,h=2,g=9",     "random:switches=40,degree=4,hosts=2,seed=3",
    "random:switches=30,degree=6,hosts=1,seed=11",
};
#define N_FAMILIES (sizeof families / sizeof *families)

static void test_families(void)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    for (size_t i = 0; i < N_FAMILIES; i++) {
        ibr_topo *t = topo15(families[i], 0, 0, 0, 0);
        unsigned layers = route_check(t, &o, 0);
        CU_ASSERT(layers >= 1);
        /* dimension-ordered ports: meshes, hypercubes and 2-level trees
           need one layer; tori with rings longer than 3 need more */
        if (!strncmp(families[i], "mesh", 4) || !strncmp(families[i], "hypercube", 9) ||
            !strncmp(families[i], "fattree:levels=2", 16))
            CU_ASSERT_EQUAL(layers, 1);
        if (!strncmp(families[i], "torus:dims=4", 12) || !strncmp(families[i], "torus:dims=5", 12))
            CU_ASSERT(layers >= 2);
        ibr_topo_destroy(t);
    }
}

/* Holes and failed links: connected fabrics are routed, disconnected ones
   declined with the reason. */
static void test_faults(void)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    size_t routed = 0, declined = 0;
    for (size_t i = 0; i < N_FAMILIES; i++)
        for (unsigned k = 0; k < 3; k++) {
            unsigned links = 2 + 2 * k, switches = k;
            ibr_topo *t = topo15(families[i], links, switches, 100 + k, 0);
            unsigned *h = bfs_hops(t);
            if (connected(t, h)) {
                CU_ASSERT(route_check(t, &o, 0) >= 1);
                routed++;
            } else {
                ibr_result *r = NULL;
                CU_ASSERT_EQUAL(ibr_route(&r, t, "lash,no_fallback", &o), IBR_EUNROUTABLE);
                int st = 0;
                const char *msg = NULL;
                CU_ASSERT_EQUAL(ibr_result_attempt(NULL, &st, &msg, r, 0), 0);
                CU_ASSERT_EQUAL(st, IBR_EDECLINED);
                CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "disconnected"));
                ibr_result_destroy(r);
                declined++;
            }
            free(h);
            ibr_topo_destroy(t);
        }
    /* a line of switches cut anywhere falls apart */
    for (unsigned seed = 1; seed <= 4; seed++) {
        ibr_topo *t = topo15("mesh:dims=6,hosts=1", 1, 0, seed, 0);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "lash,no_fallback", &o), IBR_EUNROUTABLE);
        int st = 0;
        const char *msg = NULL;
        CU_ASSERT_EQUAL(ibr_result_attempt(NULL, &st, &msg, r, 0), 0);
        CU_ASSERT_EQUAL(st, IBR_EDECLINED);
        CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "switch graph is disconnected"));
        ibr_result_destroy(r);
        /* the chain goes on to minhop */
        r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "lash", &o), 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
        declined++;
    }
    CU_ASSERT(routed > 25);
    if (routed <= 25)
        fprintf(stderr, "faults: %zu routed, %zu declined\n", routed, declined);
}

/* OpenSM 3.3.23 measured 5 layers on a 4x4x4 torus without mesh analysis;
   lash with exactly as many VLs routes it, one fewer fails with the
   shortfall, and a chain falls through to the next engine. */
static void test_vls(void)
{
    ibr_topo *t = topo15("torus:dims=4x4x4,hosts=1", 0, 0, 0, 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    CU_ASSERT_EQUAL(route_check(t, &o, 0), 5);
    o.max_vls = 5;
    CU_ASSERT_EQUAL(route_check(t, &o, 0), 5);
    for (unsigned vls = 1; vls <= 4; vls++) {
        o.max_vls = vls;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "lash,no_fallback", &o), IBR_EUNROUTABLE);
        int st = 0;
        const char *msg = NULL;
        CU_ASSERT_EQUAL(ibr_result_attempt(NULL, &st, &msg, r, 0), 0);
        CU_ASSERT_EQUAL(st, IBR_ENOVL);
        char want[64];
        snprintf(want, sizeof want, "needs more than %u layers but only %u are available",
                 vls, vls);
        CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, want));
        if (!(msg && strstr(msg, want)))
            fprintf(stderr, "message: %s\n", msg ? msg : "(none)");
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
    /* a 3-level fat tree needs 3 layers (switch pairs go down then up):
       with 2 VLs, lash,updn falls through to updn, with no trace of lash's
       tables */
    t = topo15("fattree:levels=3,radix=8", 0, 0, 0, 0);
    o.max_vls = 15;
    CU_ASSERT_EQUAL(route_check(t, &o, 0), 3);
    o.max_vls = 2;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "lash,updn", &o), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "updn");
    const char *eng = NULL, *msg = NULL;
    int st = 0;
    CU_ASSERT_EQUAL(ibr_result_attempt(&eng, &st, &msg, r, 0), 0);
    CU_ASSERT_STRING_EQUAL(eng, "lash");
    CU_ASSERT_EQUAL(st, IBR_ENOVL);
    CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "needs more than 2 layers but only 2 are available"));
    CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_NONE);
    CU_ASSERT(!ibr_result_has_sl2vl(r));
    CU_ASSERT(ibr_result_find_artifact(NULL, NULL, r, "lash-layers.txt") < 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
    CU_ASSERT_EQUAL(rep.missing, 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Layers with mesh analysis (the mesh_analysis setting). */
static unsigned route_mesh(const ibr_topo *t, unsigned max_vls, ibr_result **out)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = max_vls;
    ibr_param p = {"lash.mesh_analysis", "1"};
    o.params = &p;
    o.n_params = 1;
    ibr_verify_report rep;
    ibr_result *r =
        ibr_test_route(&rep, t, "lash,no_fallback", &o,
                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL | IBR_TEST_UNRESTRICTED);
    if (!r)
        return 0;
    unsigned layers = check_lash_m(t, r, 0, max_vls, 1);
    if (out)
        *out = r;
    else
        ibr_result_destroy(r);
    return layers;
}

/* Mesh analysis: OpenSM needs 1 layer on a 4x4x4 torus with it (5
   without); meshes, tori (with holes and parallel cables) and hypercubes
   never need more layers than without it; LIDs spread over parallel
   cables. */
static void test_mesh_analysis(void)
{
    ibr_topo *t = topo15("torus:dims=4x4x4,hosts=1", 0, 0, 0, 0);
    CU_ASSERT_EQUAL(route_mesh(t, 15, NULL), 1);
    CU_ASSERT_EQUAL(route_mesh(t, 1, NULL), 1);
    ibr_topo_destroy(t);
    const char *specs[] = {"torus:dims=4x4,hosts=1",   "torus:dims=5x6,hosts=1",
                           "torus:dims=6x6x6,hosts=1", "torus:dims=4x4x3,hosts=2",
                           "mesh:dims=6x6,hosts=1",    "mesh:dims=4x4x4,hosts=1",
                           "hypercube:dim=5,hosts=1",  "torus:dims=6x4,hosts=1,parallel=2"};
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        for (unsigned k = 0; k < 3; k++) {
            ibr_topo *tf = topo15(specs[i], k ? 2 * k : 0, 0, 40 + k, 0);
            unsigned *h = bfs_hops(tf);
            if (connected(tf, h)) {
                unsigned without = route_check(tf, &o, 0), with = route_mesh(tf, 15, NULL);
                CU_ASSERT(with >= 1 && with <= without);
                if (!(with >= 1 && with <= without))
                    fprintf(stderr, "%s faults %u: %u layers with mesh analysis, %u without\n",
                            specs[i], 2 * k, with, without);
            }
            free(h);
            ibr_topo_destroy(tf);
        }
    /* parallel cables: without the analysis only the first carries routes,
       with it every cable carries LIDs */
    t = topo15("torus:dims=4x4,hosts=2,parallel=2", 0, 0, 0, 0);
    ibr_verify_report rep;
    ibr_result *r = ibr_test_route(&rep, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    uint64_t single = rep.max_link_load;
    ibr_result_destroy(r);
    r = NULL;
    CU_ASSERT_EQUAL(route_mesh(t, 8, &r), 1);
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT(rep.max_link_load * 2 <= single + 2);
    CU_ASSERT(rep.max_link_load > 0);
    /* the setting is recorded */
    size_t ns = ibr_result_setting_count(r), found = 0;
    for (size_t i = 0; i < ns; i++) {
        const char *name, *value;
        CU_ASSERT_EQUAL(ibr_result_setting(&name, &value, r, i), 0);
        if (!strcmp(name, "lash.mesh_analysis"))
            found += !strcmp(value, "1") || !strcmp(value, "true");
    }
    CU_ASSERT_EQUAL(found, 1);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    /* not a mesh: same layers as without */
    t = topo15("fattree:levels=3,radix=8", 0, 0, 0, 0);
    CU_ASSERT_EQUAL(route_mesh(t, 15, NULL), route_check(t, &o, 0));
    ibr_topo_destroy(t);
}

/* On faulty meshes and tori lash lays out both ibroute's and OpenSM's link
   orders (OpenSM's reproduces OpenSM's tables) and keeps ibroute's only
   when it needs no more layers and loads no cable more: the artefact says
   which, and the verifier's busiest link is the one reported. */
static void test_mesh_choice(void)
{
    const char *specs[] = {"mesh:dims=6x6,hosts=1", "torus:dims=6x6,hosts=1"};
    size_t kept[2] = {0, 0};
    for (size_t i = 0; i < 2; i++)
        for (unsigned seed = 1; seed <= 12; seed++) {
            ibr_topo *t = topo15(specs[i], 2, 0, seed, 0);
            unsigned *h = bfs_hops(t);
            if (!connected(t, h)) {
                free(h);
                ibr_topo_destroy(t);
                continue;
            }
            ibr_result *r = NULL;
            unsigned layers = route_mesh(t, 15, &r);
            ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
            CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
            const void *data;
            size_t size;
            CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&data, &size, r, LAYERS_TXT), 0);
            char buf[512];
            size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
            memcpy(buf, data, n);
            buf[n] = 0;
            const char *k = strstr(buf, " link order kept: ");
            if (k) {
                char who[16] = "";
                unsigned a = 0, c = 0;
                unsigned long long b = 0, d = 0;
                sscanf(k - 9, "%9s", who);
                CU_ASSERT_EQUAL(sscanf(k, " link order kept: %u layers and busiest cable %llu, "
                                          "OpenSM's %u and %llu",
                                       &a, &b, &c, &d),
                                4);
                int ours = strstr(who, "ibroute") != NULL;
                kept[ours]++;
                CU_ASSERT_EQUAL(ours, a <= c && b <= d);
                CU_ASSERT_EQUAL(layers, ours ? a : c);
                CU_ASSERT_EQUAL(rep.max_link_load, ours ? b : d);
                CU_ASSERT(layers <= c && rep.max_link_load <= d);
            }
            ibr_result_destroy(r);
            free(h);
            ibr_topo_destroy(t);
        }
    /* both outcomes happen on these fabrics */
    CU_ASSERT(kept[0] >= 1 && kept[1] >= 1);
    if (!(kept[0] >= 1 && kept[1] >= 1))
        fprintf(stderr, "OpenSM's order kept %zu times, ibroute's %zu\n", kept[0], kept[1]);
}

/* start_vl shifts every SL; the layers must fit above it. */
static void test_start_vl(void)
{
    ibr_topo *t = topo15("torus:dims=4x4,hosts=2", 0, 0, 0, 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 8;
    ibr_result *r0 = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    unsigned layers = check_lash(t, r0, 0, 8);
    CU_ASSERT(layers >= 2 && layers <= 5);
    for (unsigned start = 1; start + layers <= 8; start += 2) {
        char val[8];
        snprintf(val, sizeof val, "%u", start);
        ibr_param p = {"lash.start_vl", val};
        o.params = &p;
        o.n_params = 1;
        ibr_result *r = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
        CU_ASSERT_EQUAL(check_lash(t, r, start, 8), layers);
        const char *name = NULL, *value = NULL;
        CU_ASSERT_EQUAL(ibr_result_setting(&name, &value, r, 0), 0);
        CU_ASSERT_STRING_EQUAL(name, "lash.start_vl");
        CU_ASSERT_STRING_EQUAL(value, val);
        /* same seed: the same layers, shifted */
        ibr_test_endp *e;
        size_t n = ibr_test_end_ports(t, &e);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++)
                bad += ibr_result_path_sl(r, e[i].lid, e[k].lid) !=
                       ibr_result_path_sl(r0, e[i].lid, e[k].lid) + start;
        CU_ASSERT_EQUAL(bad, 0);
        free(e);
        ibr_result_destroy(r);
    }
    /* too high for the layers needed, or for any layer */
    unsigned starts[] = {8 - layers + 1, 7, 8, 15};
    for (size_t i = 0; i < sizeof starts / sizeof *starts; i++) {
        char val[8];
        snprintf(val, sizeof val, "%u", starts[i]);
        ibr_param p = {"lash.start_vl", val};
        o.params = &p;
        o.n_params = 1;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "lash,no_fallback", &o), IBR_EUNROUTABLE);
        int st = 0;
        const char *msg = NULL;
        CU_ASSERT_EQUAL(ibr_result_attempt(NULL, &st, &msg, r, 0), 0);
        CU_ASSERT_EQUAL(st, IBR_ENOVL);
        CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, "start_vl"));
        ibr_result_destroy(r);
    }
    /* outside the setting's range */
    ibr_param p = {"lash.start_vl", "16"};
    o.params = &p;
    o.n_params = 1;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "lash", &o), IBR_EINVAL);
    ibr_result_destroy(r);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t);
}

static size_t diff_results(const ibr_topo *t, const ibr_result *a, const ibr_result *b,
                           int sls)
{
    size_t d = 0;
    uint16_t max = ibr_topo_max_lid(t);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        for (unsigned lid = 1; lid <= max; lid++)
            d += ibr_result_lft_port(a, s, (uint16_t)lid) != ibr_result_lft_port(b, s, (uint16_t)lid);
    if (sls) {
        ibr_test_endp *e;
        size_t n = ibr_test_end_ports(t, &e);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++)
                d += ibr_result_path_sl(a, e[i].lid, e[k].lid) !=
                     ibr_result_path_sl(b, e[i].lid, e[k].lid);
        free(e);
    }
    return d;
}

/* Credit loops of every route between two ports with a LID, the switches'
   own ports included (the pairs of upper switches are the ones the layers
   by class must keep apart): each route walked through the LFTs, channel =
   (switch, out port, VL of the pair's SL through SL2VL), then Kahn's
   algorithm. Independent of the engine and of the verifier. 1: a loop,
   0: none, -1: a route that does not arrive. */
static int all_port_loops(const ibr_topo *t, const ibr_result *r)
{
    uint32_t ns = ibr_topo_switch_count(t);
    ibr_test_endp *e;
    size_t ne = ibr_test_end_ports(t, &e), n = ne + ns;
    ibr_test_endp *src = malloc(sizeof *src * n);
    memcpy(src, e, sizeof *e * ne);
    for (uint32_t s = 0; s < ns; s++)
        src[ne + s] = (ibr_test_endp){ibr_topo_switch_node(t, s), 0, switch_lid(t, s), 1, s};
    size_t nch = (size_t)ns * 256 * 16, cnt = 0, cap = 1 << 16;
    uint32_t *ed = malloc(sizeof *ed * 2 * cap);
    int bad = 0;
    for (size_t a = 0; a < n && !bad; a++)
        for (size_t b = 0; b < n && !bad; b++) {
            if (src[a].sw == src[b].sw || !src[a].lid || !src[b].lid)
                continue;
            unsigned sl = ibr_result_path_sl(r, src[a].lid, src[b].lid);
            uint32_t cur = src[a].sw, prev = UINT32_MAX, steps = 0;
            unsigned ip = 0;
            if (src[a].port) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&pi, t, src[a].node, src[a].port);
                ip = pi.remote_port;
            }
            while (cur != src[b].sw && !bad) {
                uint32_t node = ibr_topo_switch_node(t, cur);
                unsigned op = ibr_result_lft_port(r, cur, src[b].lid);
                uint8_t map[16];
                memset(map, 0, sizeof map); /* no SL2VL tables: all on VL0 */
                if (op == IBR_NO_ROUTE || ++steps > ns ||
                    (ibr_result_has_sl2vl(r) && ibr_result_sl2vl(map, r, cur, ip, op) < 0)) {
                    bad = -1;
                    break;
                }
                uint32_t ch = ((uint32_t)cur * 256 + op) * 16 + map[sl & 15];
                if (prev != UINT32_MAX) {
                    if (cnt == cap)
                        ed = realloc(ed, sizeof *ed * 2 * (cap *= 2));
                    ed[2 * cnt] = prev;
                    ed[2 * cnt++ + 1] = ch;
                }
                prev = ch;
                ibr_port_info po = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&po, t, node, op);
                ip = po.remote_port;
                if ((cur = ibr_test_sw_behind(t, node, op)) == IBR_NONE)
                    bad = -1;
            }
        }
    /* Kahn over the dependencies */
    uint32_t *deg = calloc(nch, sizeof *deg), *off = calloc(nch + 1, sizeof *off);
    uint32_t *adj = malloc(sizeof *adj * (cnt + 1)), *q = malloc(sizeof *q * nch);
    for (size_t i = 0; i < cnt; i++) {
        off[ed[2 * i] + 1]++;
        deg[ed[2 * i + 1]]++;
    }
    for (size_t c = 0; c < nch; c++)
        off[c + 1] += off[c];
    uint32_t *pos = malloc(sizeof *pos * (nch + 1));
    memcpy(pos, off, sizeof *pos * nch);
    for (size_t i = 0; i < cnt; i++)
        adj[pos[ed[2 * i]]++] = ed[2 * i + 1];
    size_t head = 0, tail = 0, removed = 0;
    for (size_t c = 0; c < nch; c++)
        if (!deg[c])
            q[tail++] = (uint32_t)c;
    while (head < tail) {
        uint32_t c = q[head++];
        removed++;
        for (uint32_t k = off[c]; k < off[c + 1]; k++)
            if (--deg[adj[k]] == 0)
                q[tail++] = adj[k];
    }
    if (!bad && removed != nch)
        bad = 1;
    free(deg);
    free(off);
    free(adj);
    free(q);
    free(pos);
    free(ed);
    free(src);
    free(e);
    return bad;
}

static int artifact_has(const ibr_result *r, const char *needle)
{
    const void *data;
    size_t size;
    if (ibr_result_find_artifact(&data, &size, r, LAYERS_TXT) < 0)
        return 0;
    char *txt = malloc(size + 1);
    memcpy(txt, data, size);
    txt[size] = 0;
    int found = strstr(txt, needle) != NULL;
    free(txt);
    return found;
}

/* Layers by path class (lash.class_above, here 0 to force them on small
   fabrics): on fat trees, valid, shortest, the same LFTs as the pair-by-pair
   layers (only the SLs differ), no more layers, and free of credit loops
   by an independent walk of every route, switches' own included; on other
   fabrics deadlock-free as well (groups cyclic alone placed pair by pair);
   where the classes need more layers than the VLs allow (a random graph
   with 5 VLs), the pair-by-pair result, byte for byte. */
static void test_by_class(void)
{
    static const char *specs[] = {
        "xgft:h=3,m=4.4.6,w=1.2.3", "fattree:levels=3,radix=8", "xgft:h=3,m=6.6.8,w=1.6.6",
        "dragonfly:a=4,p=2,h=2,g=9", "random:switches=40,degree=4,hosts=2,seed=3",
        "torus:dims=4x4x4,hosts=1",
    };
    ibr_param p = {"lash.class_above", "0"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        int tree = i < 3;
        ibr_topo *t = topo15(specs[i], 0, 0, 0, 0);
        ibr_options o = IBR_OPTIONS_INIT;
        o.max_vls = 15;
        ibr_result *r0 = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
        o.params = &p;
        o.n_params = 1;
        ibr_result *r1 = ibr_test_route(NULL, t, "lash,no_fallback", &o,
                                        IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL |
                                            IBR_TEST_UNRESTRICTED);
        CU_ASSERT_FATAL(r0 && r1);
        unsigned l1 = check_lash(t, r1, 0, 15), l0 = layers_of(r0, NULL);
        CU_ASSERT(artifact_has(r1, "layers by path class"));
        CU_ASSERT(!artifact_has(r0, "layers by path class"));
        CU_ASSERT_EQUAL(all_port_loops(t, r1), 0);
        CU_ASSERT_EQUAL(ibr_test_credit_loops(r1), 0);
        CU_ASSERT_EQUAL(diff_results(t, r0, r1, 0), 0);
        if (tree) {
            CU_ASSERT(l1 <= l0);
            CU_ASSERT(l1 >= 2); /* upper switches' pairs dip: one layer is not enough */
        }
        ibr_result_destroy(r0);
        ibr_result_destroy(r1);
        ibr_topo_destroy(t);
    }
    /* too many layers by class: the pair-by-pair layers instead */
    ibr_topo *t = topo15("random:switches=40,degree=4,hosts=2,seed=3", 0, 0, 0, 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 5; /* what the pairs need one by one; by class 7 */
    ibr_result *r0 = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    o.params = &p;
    o.n_params = 1;
    ibr_result *r1 = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_FATAL(r0 && r1);
    CU_ASSERT(!artifact_has(r1, "layers by path class"));
    CU_ASSERT_EQUAL(diff_results(t, r0, r1, 1), 0);
    CU_ASSERT_EQUAL(layers_of(r0, NULL), layers_of(r1, NULL));
    ibr_result_destroy(r0);
    ibr_result_destroy(r1);
    /* the walk finds loops where there are: minhop on a torus */
    o.params = NULL;
    o.n_params = 0;
    ibr_topo_destroy(t);
    t = topo15("torus:dims=4x4,hosts=1", 0, 0, 0, 0);
    CU_ASSERT_EQUAL(ibr_route(&r0, t, "minhop,no_fallback", &o), 0);
    CU_ASSERT_EQUAL(all_port_loops(t, r0), 1);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t);
}

/* One seed, one output, whatever the thread count; another seed may move
   pairs between layers but changes neither paths nor the layer count. */
static void test_determinism(void)
{
    ibr_topo *t = topo15("torus:dims=6x6x3,hosts=1", 0, 0, 0, 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    o.seed = 42;
    o.threads = 1;
    ibr_result *a = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    o.threads = 2;
    ibr_result *b = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_EQUAL(diff_results(t, a, b, 1), 0);
    o.seed = 43;
    ibr_result *c = ibr_test_route(NULL, t, "lash,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_EQUAL(diff_results(t, a, c, 0), 0);
    CU_ASSERT_EQUAL(layers_of(a, NULL), layers_of(c, NULL));
    CU_ASSERT(layers_of(a, NULL) >= 2);
    /* balancing happened and depends on the seed */
    CU_ASSERT(diff_results(t, a, c, 1) > 0);
    ibr_result_destroy(a);
    ibr_result_destroy(b);
    ibr_result_destroy(c);
    ibr_topo_destroy(t);
}

/* Random small fabrics with faults (OpenSM's lash has a crash on a
   13-switch fabric): every one is routed deadlock-free or declined with a
   reason that holds. */
static void test_random_small(void)
{
    ibr_options o = IBR_OPTIONS_INIT;
    o.max_vls = 15;
    size_t routed = 0, disconnected = 0;
    for (unsigned sw = 2; sw <= 16; sw++)
        for (unsigned deg = 2; deg <= 5; deg++)
            for (unsigned seed = 1; seed <= 6; seed++) {
                char spec[96];
                snprintf(spec, sizeof spec, "random:switches=%u,degree=%u,hosts=1,seed=%u,vls=15", sw,
                         deg, seed);
                ibr_fabric *f = NULL;
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
                if (ibr_fabric_generate(f, spec) < 0) {
                    ibr_fabric_destroy(f);
                    continue;
                }
                if (seed % 2)
                    ibr_fabric_inject_faults(f, seed / 2 + 1, 0, seed * 7 + sw);
                ibr_topo *t = NULL;
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
                ibr_fabric_destroy(f);
                unsigned *h = bfs_hops(t);
                ibr_result *r = NULL;
                /* mesh analysis on every other fabric */
                ibr_param mp = {"lash.mesh_analysis", "1"};
                o.params = &mp;
                o.n_params = (sw + seed) % 2;
                int rc = ibr_route(&r, t, "lash,no_fallback", &o);
                if (connected(t, h)) {
                    CU_ASSERT_EQUAL(rc, 0);
                    if (rc == 0) {
                        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
                        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
                        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
                        CU_ASSERT_EQUAL(rep.missing, 0);
                        CU_ASSERT_EQUAL(rep.nonminimal, 0);
                        routed++;
                    }
                } else {
                    CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
                    disconnected++;
                }
                free(h);
                ibr_result_destroy(r);
                ibr_topo_destroy(t);
            }
    CU_ASSERT(routed > 200);
    CU_ASSERT(disconnected >= 1);
}

/* LMC: every LID of a port follows the same switch path with the same SL. */
static void test_lmc(void)
{
    ibr_topo *t = topo15("torus:dims=4x3,hosts=2", 0, 0, 0, 2);
    ibr_options o = IBR_OPTIONS_INIT;
    ibr_result *r = ibr_test_route(NULL, t, "lash,no_fallback", &o,
                                   IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
    check_lash(t, r, 0, 8);
    ibr_test_endp *e;
    size_t n = ibr_test_end_ports(t, &e);
    size_t bad = 0, lids = 0;
    for (size_t k = 0; k < n; k++) {
        CU_ASSERT_EQUAL(e[k].nlids, 4);
        for (unsigned l = 1; l < e[k].nlids; l++) {
            uint16_t lid = (uint16_t)(e[k].lid + l);
            lids++;
            for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
                bad += ibr_result_lft_port(r, s, lid) != ibr_result_lft_port(r, s, e[k].lid);
            for (size_t i = 0; i < n; i++)
                bad += ibr_result_path_sl(r, e[i].lid, lid) !=
                       ibr_result_path_sl(r, e[i].lid, e[k].lid);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(lids == 3 * n);
    ibr_result_destroy(r);
    /* options.lmc = 0 routes only the base LIDs */
    o.lmc = 0;
    r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "lash,no_fallback", &o), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, e[0].sw, (uint16_t)(e[0].lid + 1)), IBR_NO_ROUTE);
    CU_ASSERT_NOT_EQUAL(ibr_result_lft_port(r, e[0].sw, e[0].lid), IBR_NO_ROUTE);
    ibr_result_destroy(r);
    free(e);
    ibr_topo_destroy(t);
}

/* A single switch, two switches, a ring. */
static void test_edge_fabrics(void)
{
    const char *specs[] = {"mesh:dims=1,hosts=3", "mesh:dims=2,hosts=2", "torus:dims=7,hosts=1",
                           "torus:dims=2x2,hosts=1"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_topo *t = topo15(specs[i], 0, 0, 0, 0);
        unsigned layers = route_check(t, NULL, 0);
        CU_ASSERT(layers >= 1);
        ibr_topo_destroy(t);
    }
}

static int cancel_after(void *user, const char *phase, uint64_t done, uint64_t total)
{
    (void)phase;
    (void)done;
    (void)total;
    return ++*(int *)user > 3;
}

static void test_cancel(void)
{
    ibr_topo *t = topo15("torus:dims=5x5,hosts=1", 0, 0, 0, 0);
    int calls = 0;
    ibr_options o = IBR_OPTIONS_INIT;
    o.progress = cancel_after;
    o.progress_user = &calls;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "lash", &o), IBR_ECANCELED);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Every allocation failure gives IBR_ENOMEM and leaks nothing; a torus
   exercises the layers, the balancing and per-pair SLs. */
static void test_allocation_failure(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=4x4,hosts=1,parallel=2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    long base = st.live;
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 2;
    ibr_param mp = {"lash.mesh_analysis", "1"};
    for (int mesh = 0; mesh <= 1; mesh++) {
        o.params = &mp;
        o.n_params = (size_t)mesh;
        long n;
        ibr_result *r = ibr_test_route_oom(&n, &st, t, "lash,no_fallback", &o);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        CU_ASSERT(layers_of(r, NULL) == (mesh ? 1u : 2u));
        ibr_result_destroy(r);
        CU_ASSERT_EQUAL(st.live, base);
        CU_ASSERT(n > 10);
    }
    ibr_topo_destroy(t);
    /* a faulty torus where the two link orders of the mesh analysis differ
       and OpenSM's is kept (fewer layers) */
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=6x6,hosts=1"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 3, 0, 3), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    base = st.live;
    o.params = &mp;
    o.n_params = 1;
    long n;
    ibr_result *r = ibr_test_route_oom(&n, &st, t, "lash,no_fallback", &o);
    const void *data;
    size_t size;
    CU_ASSERT_EQUAL(ibr_result_find_artifact(&data, &size, r, LAYERS_TXT), 0);
    char txt[512];
    size_t m = size < sizeof txt - 1 ? size : sizeof txt - 1;
    memcpy(txt, data, m);
    txt[m] = 0;
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "OpenSM's link order kept"));
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(st.live, base);
    CU_ASSERT(n > 20);
    st.fail_at = -1;
    ibr_topo_destroy(t);
    /* the layers by path class (on a fat tree) */
    t = ibr_test_topo(ctx, "xgft:h=3,m=4.4.6,w=1.2.3");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    base = st.live;
    ibr_param cp = {"lash.class_above", "0"};
    o.params = &cp;
    o.n_params = 1;
    r = ibr_test_route_oom(&n, &st, t, "lash,no_fallback", &o);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
    CU_ASSERT(artifact_has(r, "layers by path class"));
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(st.live, base);
    CU_ASSERT(n > 20);
    st.fail_at = -1;
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"families: valid, shortest, first closer link, SLs, deadlock-free", test_families},
        {"holes and failed links; disconnected fabrics declined", test_faults},
        {"VLs: OpenSM's 5 layers on a 4x4x4 torus, shortfall, chain", test_vls},
        {"start_vl", test_start_vl},
        {"mesh analysis", test_mesh_analysis},
        {"mesh analysis: ibroute's or OpenSM's link order", test_mesh_choice},
        {"determinism: seed and threads", test_determinism},
        {"layers by path class: trees, other fabrics, fallback", test_by_class},
        {"random small fabrics: routed or declined", test_random_small},
        {"LMC", test_lmc},
        {"edge fabrics", test_edge_fabrics},
        {"cancellation", test_cancel},
        {"allocation failure", test_allocation_failure},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("lash", tests);
}
