/* torus-2QoS: tori and meshes (2-D/3-D, radix 4, parallel cables, LMC)
   routed valid and credit-loop free through their path SLs and SL2VL
   tables; path SLs checked against the generator's coordinates; failed
   links and one failed switch routed around with every remaining pair's SL
   unchanged (6x6x6, each link of one ring, one switch, a seed switch with
   a backup seed); the refusals; configuration errors naming the line; the
   allocation-failure loop.

   The generator (src/gen/grid.c) numbers switch (x, y, z) as
   x + X * (y + Y * z), with node GUID 0x0002c90202000000 + index, so a
   torus-2QoS.conf can be written from the layout (make_conf()). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define GUID0 0x0002c90202000000ULL

typedef struct grid {
    unsigned r[3];
    int mesh;
} grid;

static uint64_t gguid(const grid *g, unsigned x, unsigned y, unsigned z)
{
    return GUID0 + x + g->r[0] * (y + (uint64_t)g->r[1] * z);
}

/* A torus-2QoS.conf for the generator's layout: seed at origin (ox, oy,
   oz) with datelines dl[], + links (and - links where needed or when
   both is set). */
static void make_conf(char *buf, size_t size, const grid *g, const unsigned o[3], const int dl[3],
                      int both)
{
    size_t n = (size_t)snprintf(buf, size, "# generated\n%s %u %u %u\n", g->mesh ? "mesh" : "torus",
                                g->r[0], g->r[1], g->r[2]);
    for (unsigned d = 0; d < 3; d++) {
        if (g->r[d] < 2)
            continue;
        unsigned p[3] = {o[0], o[1], o[2]}, m[3] = {o[0], o[1], o[2]};
        p[d] = (o[d] + 1) % g->r[d];
        m[d] = (o[d] + g->r[d] - 1) % g->r[d];
        if (!g->mesh || o[d] + 1 < g->r[d])
            n += (size_t)snprintf(buf + n, size - n, "%cp_link 0x%016" PRIx64 " 0x%016" PRIx64
                                  "   trailing words are ignored\n", "xyz"[d],
                                  gguid(g, o[0], o[1], o[2]), gguid(g, p[0], p[1], p[2]));
        if ((both || (g->r[d] == 4 && !g->mesh) || (g->mesh && o[d] + 1 == g->r[d])) &&
            (!g->mesh || o[d] > 0))
            n += (size_t)snprintf(buf + n, size - n, "%cm_link 0x%016" PRIx64 " 0x%016" PRIx64
                                  "\n", "xyz"[d], gguid(g, o[0], o[1], o[2]),
                                  gguid(g, m[0], m[1], m[2]));
        if (dl && dl[d])
            n += (size_t)snprintf(buf + n, size - n, "%c_dateline %d\n", "xyz"[d], dl[d]);
    }
}

static void conf_opts(ibr_options *o, ibr_param *p, const char *conf)
{
    ibr_options_init(o, IBR_OPTIONS_VERSION);
    p->name = "torus-2QoS.config";
    p->value = conf;
    o->params = p;
    o->n_params = 1;
}

static ibr_topo *gen(const char *spec, ibr_fabric **keep)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    if (keep)
        *keep = f;
    else
        ibr_fabric_destroy(f);
    return t;
}

/* The switch (its index) a LID is delivered by, or IBR_NONE when its port
   is not actively cabled. */
static uint32_t lid_switch(const ibr_topo *t, uint16_t lid)
{
    uint32_t node;
    unsigned port;
    if (ibr_topo_lid_owner(&node, &port, t, lid) < 0)
        return IBR_NONE;
    uint32_t s = ibr_topo_node_switch(t, node);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if (s != IBR_NONE) { /* a failed switch (every link down) is gone */
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_node_info(&ni, t, node), 0);
        for (unsigned p = 1; p <= ni.nports; p++)
            if (ibr_topo_port_info(&pi, t, node, p) == 0 && pi.remote_node != IBR_NONE &&
                pi.state == IBR_LINK_ACTIVE)
                return s;
        return IBR_NONE;
    }
    if (ibr_topo_port_info(&pi, t, node, port) < 0 || pi.remote_node == IBR_NONE ||
        pi.state != IBR_LINK_ACTIVE)
        return IBR_NONE;
    return ibr_topo_node_switch(t, pi.remote_node);
}

/* The SL the coordinates give: bit d when the shorter ring path wraps
   (coordinates shifted by the datelines' origin placement). */
static unsigned expected_sl(const grid *g, uint32_t a, uint32_t b, const unsigned shift[3])
{
    unsigned sl = 0;
    for (unsigned d = 0; d < 3; d++) {
        unsigned r = g->r[d];
        unsigned ca = (a % r + shift[d]) % r, cb = (b % r + shift[d]) % r;
        a /= r;
        b /= r;
        unsigned direct = ca > cb ? ca - cb : cb - ca;
        if (r > 1 && r - direct < direct)
            sl |= 1u << d;
    }
    return sl;
}

/* Every pair of LIDs: the SL is the coordinates'. Returns how many pairs
   had a non-zero SL. */
static unsigned check_sls(const ibr_result *r, const grid *g, const unsigned shift[3])
{
    const ibr_topo *t = ibr_result_topo(r);
    uint16_t max = ibr_topo_max_lid(t);
    unsigned nonzero = 0, bad = 0;
    for (uint16_t a = 1; a <= max; a++) {
        uint32_t sa = lid_switch(t, a);
        if (sa == IBR_NONE)
            continue;
        for (uint16_t b = 1; b <= max; b++) {
            uint32_t sb = lid_switch(t, b);
            if (sb == IBR_NONE)
                continue;
            unsigned want = expected_sl(g, sa, sb, shift), got = ibr_result_path_sl(r, a, b);
            bad += want != got;
            nonzero += got != 0;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    return nonzero;
}

static const struct {
    const char *spec;
    grid g;
} fabrics[] = {
    {"torus:dims=6x6x6,hosts=2", {{6, 6, 6}, 0}},
    {"torus:dims=4x4x4,hosts=1", {{4, 4, 4}, 0}},
    {"torus:dims=5x3x4,hosts=1", {{5, 3, 4}, 0}},
    {"torus:dims=8x7,hosts=2", {{8, 7, 1}, 0}},
    {"torus:dims=4x6,hosts=1", {{4, 6, 1}, 0}},
    {"torus:dims=2x5x6,hosts=1", {{2, 5, 6}, 0}},
    {"torus:dims=3x3x3,hosts=1", {{3, 3, 3}, 0}},
    {"torus:dims=5x5x5,hosts=1,parallel=2", {{5, 5, 5}, 0}},
    {"mesh:dims=6x5x4,hosts=1", {{6, 5, 4}, 1}},
    {"mesh:dims=8x8,hosts=2", {{8, 8, 1}, 1}},
    {"mesh:dims=4x4x4,hosts=1", {{4, 4, 4}, 1}},
};

static void test_families(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    char conf[2048];
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        ibr_topo *t = gen(fabrics[i].spec, NULL);
        make_conf(conf, sizeof conf, &fabrics[i].g, zero, NULL, 0);
        ibr_options o;
        ibr_param p;
        conf_opts(&o, &p, conf);
        ibr_verify_report rep;
        ibr_result *r = ibr_test_route(&rep, t, "torus-2QoS,no_fallback", &o,
                                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "torus-2QoS");
        CU_ASSERT(ibr_result_has_sl2vl(r));
        CU_ASSERT_EQUAL(ibr_result_vls_used(r), 8);
        unsigned nz = check_sls(r, &fabrics[i].g, zero);
        /* tori with a ring of 3 or more wrap some paths; meshes too, by
           coordinates (harmless there) */
        CU_ASSERT(nz > 0);
        const void *data;
        size_t size;
        CU_ASSERT_EQUAL(ibr_result_find_artifact(&data, &size, r, "opensm-torus.dump"), 0);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* Multicast: each group's tree is the master spanning tree pruned to its
   members. A group of every host on a fabric whose switches all carry
   hosts spans every switch once (S - 1 switch links, a bit at each end);
   every group delivers exactly once, and the credit-loop check with the
   multicast dependencies passes through the engine's SLs. */
static void test_mcast_trees(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    char conf[2048];
    unsigned own = 0; /* fabrics where the trees are not minhop's default ones */
    for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
        ibr_topo *t = gen(fabrics[i].spec, NULL);
        make_conf(conf, sizeof conf, &fabrics[i].g, zero, NULL, 0);
        ibr_mcast_groups *g = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&g, t), 0);
        uint32_t seed = 12345u + (uint32_t)i, hosts = 0;
        for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, n);
            if (ni.type == IBR_NODE_SWITCH)
                continue;
            hosts++;
            CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC000, NULL, ni.node_guid, 1,
                                                        IBR_MCAST_JOIN_FULL), 0);
            for (uint16_t k = 1; k <= 4; k++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) % (k + 1) == 0)
                    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, (uint16_t)(0xC000 + k), NULL,
                                                                ni.node_guid, 1,
                                                                IBR_MCAST_JOIN_FULL), 0);
            }
        }
        ibr_options o;
        ibr_param p;
        conf_opts(&o, &p, conf);
        o.mcast_groups = g;
        ibr_verify_report rep;
        ibr_result *r = ibr_test_route(&rep, t, "torus-2QoS,no_fallback", &o,
                                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT(rep.mcast_groups >= 2);
        CU_ASSERT_EQUAL(rep.mcast_pairs_ok, rep.mcast_pairs);
        CU_ASSERT_EQUAL(rep.mcast_loops, 0);
        CU_ASSERT(rep.mcast_pairs >= (uint64_t)hosts * (hosts - 1));
        CU_ASSERT_EQUAL(ibr_result_mcast_trees(r), IBR_MCAST_TREES_ENGINE);
        uint32_t links = 0;
        for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
            uint8_t ports[256];
            size_t np = 0;
            CU_ASSERT_EQUAL(ibr_result_mcast_ports(ports, sizeof ports, &np, r, 0xC000, s), 0);
            uint32_t node = ibr_topo_switch_node(t, s);
            for (size_t k = 0; k < np; k++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                if (ports[k] && ibr_topo_port_info(&pi, t, node, ports[k]) == 0 &&
                    pi.remote_node != IBR_NONE) {
                    ibr_node_info ri = IBR_NODE_INFO_INIT;
                    ibr_topo_node_info(&ri, t, pi.remote_node);
                    links += ri.type == IBR_NODE_SWITCH;
                }
            }
        }
        CU_ASSERT_EQUAL(links, 2 * (ibr_topo_switch_count(t) - 1));
        ibr_options mo = IBR_OPTIONS_INIT;
        mo.mcast_groups = g;
        ibr_result *m = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&m, t, "minhop", &mo), 0);
        int differ = 0;
        for (uint32_t s = 0; s < ibr_topo_switch_count(t) && !differ; s++) {
            uint8_t a[256], b[256];
            size_t na = 0, nb = 0;
            ibr_result_mcast_ports(a, sizeof a, &na, r, 0xC000, s);
            ibr_result_mcast_ports(b, sizeof b, &nb, m, 0xC000, s);
            differ = na != nb || memcmp(a, b, na) != 0;
        }
        own += differ;
        ibr_result_destroy(m);
        ibr_result_destroy(r);
        ibr_mcast_groups_destroy(g);
        ibr_topo_destroy(t);
    }
    CU_ASSERT(own > 0);
}

/* Degraded tori where OpenSM's master tree closes a credit loop with the
   unicast routes (a broken ring's branch crosses the dateline on VL 0 and
   the detours around the failure lead back into it): with
   opensm_mcast_tree=1 (OpenSM's tree) the check finds the loop; by default
   the tree is grown loop-free, every group still delivers exactly once. */
static void test_mcast_faults(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    static const struct {
        const char *spec;
        grid g;
        unsigned links, switches;
    } tori[] = {
        {"torus:dims=8x8,hosts=2", {{8, 8, 1}, 0}, 0, 1},
        {"torus:dims=8x6,hosts=1", {{8, 6, 1}, 0}, 1, 1},
        {"torus:dims=5x4x3,hosts=1", {{5, 4, 3}, 0}, 0, 1},
    };
    char conf[2048];
    unsigned osm_loops = 0, routed = 0;
    for (size_t i = 0; i < sizeof tori / sizeof *tori; i++) {
        make_conf(conf, sizeof conf, &tori[i].g, zero, NULL, 1);
        for (uint64_t seed = 1; seed <= 6; seed++) {
            ibr_fabric *f = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, tori[i].spec), 0);
            CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, tori[i].links, tori[i].switches, seed), 0);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_mcast_groups *g = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&g, t), 0);
            uint32_t rnd = 777u + (uint32_t)seed;
            for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
                ibr_node_info ni = IBR_NODE_INFO_INIT;
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_topo_node_info(&ni, t, n);
                if (ni.type == IBR_NODE_SWITCH || ibr_topo_port_info(&pi, t, n, 1) < 0 ||
                    pi.remote_node == IBR_NONE)
                    continue;
                ibr_mcast_groups_add_member(g, 0xC000, NULL, ni.node_guid, 1, IBR_MCAST_JOIN_FULL);
                for (uint16_t k = 1; k <= 6; k++) {
                    rnd = rnd * 1103515245u + 12345u;
                    if ((rnd >> 16) % 3 == 0)
                        ibr_mcast_groups_add_member(g, (uint16_t)(0xC000 + k), NULL, ni.node_guid,
                                                    1, IBR_MCAST_JOIN_FULL);
                }
            }
            ibr_param p[2] = {{"torus-2QoS.config", conf},
                              {"torus-2QoS.opensm_mcast_tree", "1"}};
            ibr_options o = IBR_OPTIONS_INIT;
            o.params = p;
            o.mcast_groups = g;
            for (size_t np = 1; np <= 2; np++) {
                o.n_params = np;
                ibr_result *r = NULL;
                if (ibr_route(&r, t, "torus-2QoS,no_fallback", &o) != 0) {
                    ibr_result_destroy(r); /* a failure at the conf's seed: declined */
                    break;
                }
                ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
                CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
                CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
                CU_ASSERT(rep.mcast_groups >= 2);
                CU_ASSERT_EQUAL(rep.mcast_pairs_ok, rep.mcast_pairs);
                if (np == 1) {
                    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
                    routed++;
                } else {
                    osm_loops += !rep.deadlock_free;
                }
                ibr_result_destroy(r);
            }
            ibr_mcast_groups_destroy(g);
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
    CU_ASSERT(routed >= 12);
    CU_ASSERT(osm_loops >= 2);
}

/* SL2VL: output in dimension d takes SL bit d, a turn from a higher
   dimension sets VL bit 1, QoS level (SL bit 3) VL bit 2; toward a host
   VL = SL bit 3. Fewer VLs drop the upper bits. */
static void test_sl2vl(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    grid g = {{6, 6, 6}, 0};
    char conf[2048];
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    ibr_topo *t = gen("torus:dims=6x6x6,hosts=1", NULL);
    for (unsigned vls = 1; vls <= 8; vls++) {
        ibr_options o;
        ibr_param p;
        conf_opts(&o, &p, conf);
        o.max_vls = vls;
        ibr_result *r = NULL;
        int rc = ibr_route(&r, t, "torus-2QoS,no_fallback", &o);
        if (vls < 2) {
            CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
            const char *e, *m;
            int st;
            CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(m, "at least 2 data VLs"));
            ibr_result_destroy(r);
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        uint8_t map[16];
        /* switch 0: ports 1/2 -x/+x, 3/4 -y/+y, 5/6 -z/+z, 7 host */
        CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 7, 2), 0);
        for (unsigned sl = 0; sl < 16; sl++)
            CU_ASSERT_EQUAL(map[sl], (sl & 1) | (vls >= 8 && (sl & 8) ? 4 : 0));
        CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 5, 4), 0); /* z -> y: a turn */
        for (unsigned sl = 0; sl < 16; sl++)
            CU_ASSERT_EQUAL(map[sl], ((sl >> 1) & 1) | (vls >= 4 ? 2 : 0) |
                                         (vls >= 8 && (sl & 8) ? 4 : 0));
        CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 1, 6), 0); /* x -> z: legal */
        for (unsigned sl = 0; sl < 16; sl++)
            CU_ASSERT_EQUAL(map[sl], ((sl >> 2) & 1) | (vls >= 8 && (sl & 8) ? 4 : 0));
        CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 3, 7), 0); /* toward the host */
        for (unsigned sl = 0; sl < 16; sl++)
            CU_ASSERT_EQUAL(map[sl], (sl & 8) ? 1 : 0);
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* The data VLs come from the ports as well: the smallest VLCap of a
   switch-to-switch port (OpenSM's min_sw_data_vls), capped by max_vls.
   Fewer than 2 is refused, naming the VLCap; 2 and 4 drop the upper VL
   bits, and the routing stays deadlock-free. End ports with VLCap 1 only
   warn (CA links carry both QoS levels on VL 0). */
static void test_port_vls(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    grid g = {{6, 6, 6}, 0};
    char conf[2048];
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    static const unsigned caps[] = {1, 2, 4, 8, 15};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "torus:dims=6x6x6,hosts=1,vls=%u", caps[i]);
        ibr_topo *t = gen(spec, NULL);
        ibr_options o;
        ibr_param p;
        conf_opts(&o, &p, conf);
        ibr_result *r = NULL;
        int rc = ibr_route(&r, t, "torus-2QoS,no_fallback", &o);
        if (caps[i] < 2) {
            CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
            const char *e, *m;
            int st;
            CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
            CU_ASSERT_EQUAL(st, IBR_EDECLINED);
            CU_ASSERT_PTR_NOT_NULL(strstr(m, "at least 2 data VLs on switch ports, has 1"));
            CU_ASSERT_PTR_NOT_NULL(strstr(m, "VLCap of a switch-to-switch port 1"));
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        unsigned vls = caps[i] < 8 ? caps[i] : 8;
        CU_ASSERT_EQUAL(ibr_result_vls_used(r), vls);
        uint8_t map[16];
        CU_ASSERT_EQUAL(ibr_result_sl2vl(map, r, 0, 5, 4), 0); /* z -> y: a turn */
        for (unsigned sl = 0; sl < 16; sl++) {
            CU_ASSERT_EQUAL(map[sl], ((sl >> 1) & 1) | (vls >= 4 ? 2 : 0) |
                                         (vls >= 8 && (sl & 8) ? 4 : 0));
            CU_ASSERT(map[sl] < vls);
        }
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* only the end ports with VLCap 1: switch ports keep their 8 VLs */
    ibr_fabric *f = NULL;
    ibr_topo *t = gen("torus:dims=6x6x6,hosts=1", &f);
    ibr_topo_destroy(t);
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    a.vl_cap = 1;
    for (uint32_t n = 216; n < ibr_fabric_node_count(f); n++)
        CU_ASSERT_EQUAL(ibr_fabric_set_port_attr(f, n, 1, &a), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "torus-2QoS,no_fallback", &o), 0);
    CU_ASSERT_EQUAL(ibr_result_vls_used(r), 8);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* Datelines move the origin: the seed switch sits at -dateline. */
static void test_datelines(void)
{
    grid g = {{6, 5, 4}, 0};
    static const unsigned o0[3] = {0, 0, 0};
    const int dl[3] = {2, -1, 3};
    const unsigned shift[3] = {4, 1, 1}; /* -dl mod radix */
    char conf[2048];
    make_conf(conf, sizeof conf, &g, o0, dl, 1);
    ibr_topo *t = gen("torus:dims=6x5x4,hosts=1", NULL);
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    ibr_result *r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_sls(r, &g, shift);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Parallel cables: routes spread over both cables of a port group. */
static void test_parallel_and_lmc(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    grid g = {{6, 6, 1}, 0};
    char conf[2048];
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    ibr_topo *t = gen("torus:dims=6x6,hosts=2,parallel=2", NULL);
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    ibr_result *r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o,
                                   IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* switch 0: +x cables on ports 3 and 4 */
    unsigned used[256] = {0};
    for (uint16_t l = 1; l <= ibr_topo_max_lid(t); l++)
        used[ibr_result_lft_port(r, 0, l) & 0xFF]++;
    CU_ASSERT(used[3] > 0 && used[4] > 0);
    CU_ASSERT(used[3] >= used[4] ? used[3] - used[4] <= 2 : used[4] - used[3] <= 2);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    /* LMC 2: every LID of a port routed the same way, still loop-free */
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=6x6,hosts=2,parallel=2"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 2, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check_sls(r, &g, zero);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static ibr_result *route_fabric(ibr_topo **tout, ibr_fabric *f, const char *conf, int expect_ok)
{
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    ibr_result *r = NULL;
    if (expect_ok) {
        r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    } else {
        CU_ASSERT_NOT_EQUAL(ibr_route(&r, t, "torus-2QoS,no_fallback", &o), 0);
    }
    *tout = t; /* the result borrows it: destroy it after the result */
    return r;
}

/* Compare the SL of every pair routed in both results. */
static unsigned same_sls(const ibr_result *a, const ibr_result *b)
{
    const ibr_topo *ta = ibr_result_topo(a), *tb = ibr_result_topo(b);
    uint16_t max = ibr_topo_max_lid(ta);
    unsigned pairs = 0, diff = 0;
    for (uint16_t x = 1; x <= max; x++) {
        if (lid_switch(tb, x) == IBR_NONE || lid_switch(ta, x) == IBR_NONE)
            continue;
        for (uint16_t y = 1; y <= max; y++) {
            if (lid_switch(tb, y) == IBR_NONE || lid_switch(ta, y) == IBR_NONE)
                continue;
            pairs++;
            diff += ibr_result_path_sl(a, x, y) != ibr_result_path_sl(b, x, y);
        }
    }
    CU_ASSERT_EQUAL(diff, 0);
    return pairs;
}

/* The defining property: on a 6x6x6 torus, fail each link of one X ring
   (and of one Z ring), then one switch, then a seed switch (a backup seed
   with compensating datelines takes over): every remaining pair keeps its
   SL and the routing stays valid and credit-loop free. */
static void test_sl_stability(void)
{
    grid g = {{6, 6, 6}, 0};
    static const unsigned zero[3] = {0, 0, 0};
    char conf[4096];
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    /* a backup seed at (1,1,1) placing the dateline at the same place */
    {
        const unsigned o1[3] = {1, 1, 1};
        const int dl1[3] = {-1, -1, -1};
        size_t n = strlen(conf);
        n += (size_t)snprintf(conf + n, sizeof conf - n, "next_seed\n");
        char extra[2048];
        make_conf(extra, sizeof extra, &g, o1, dl1, 0);
        /* drop the comment and torus lines of the second text */
        const char *body = strchr(strchr(extra, '\n') + 1, '\n') + 1;
        snprintf(conf + n, sizeof conf - n, "%s", body);
    }
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=6x6x6,hosts=1"), 0);
    ibr_topo *tbase = NULL, *tt = NULL;
    ibr_result *base = route_fabric(&tbase, f, conf, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(base);
    check_sls(base, &g, zero);
    unsigned runs = 0;
    /* X ring at y = 2, z = 3: switch (x,2,3) port 2 is its +x cable;
       Z ring at x = 1, y = 4: port 6 is +z */
    for (unsigned ring = 0; ring < 2; ring++)
        for (unsigned c = 0; c < 6; c++) {
            uint32_t s = ring == 0 ? c + 6 * (2 + 6 * 3) : 1 + 6 * (4 + 6 * c);
            unsigned port = ring == 0 ? 2 : 6;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_link_state(f, s, port, IBR_LINK_DOWN), 0);
            ibr_result *r = route_fabric(&tt, f, conf, 1);
            CU_ASSERT_PTR_NOT_NULL(r);
            if (r) {
                CU_ASSERT_EQUAL(same_sls(base, r), 432u * 432u);
                runs++;
            }
            ibr_result_destroy(r);
            ibr_topo_destroy(tt);
            CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, s, port, IBR_LINK_ACTIVE), 0);
        }
    /* one failed switch, in several places, and the seed's own switch */
    const uint32_t failed[] = {3 + 6 * (3 + 6 * 3), 5 + 6 * (0 + 6 * 2), 1, 0};
    for (size_t i = 0; i < sizeof failed / sizeof *failed; i++) {
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_node_state(f, failed[i], IBR_LINK_DOWN), 0);
        ibr_result *r = route_fabric(&tt, f, conf, 1);
        CU_ASSERT_PTR_NOT_NULL(r);
        if (r) {
            CU_ASSERT_EQUAL(same_sls(base, r), 430u * 430u);
            runs++;
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(tt);
        CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, failed[i], IBR_LINK_ACTIVE), 0);
    }
    CU_ASSERT_EQUAL(runs, 16);
    ibr_result_destroy(base);
    ibr_topo_destroy(tbase);
    ibr_fabric_destroy(f);
}

/* Random faults: one link or one switch on tori of several shapes (routed,
   loop-free), two links cut in one ring and two switches in different
   columns (refused with the reason). */
static void test_faults(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    static const struct {
        const char *spec;
        grid g;
    } tori[] = {
        {"torus:dims=6x6x6,hosts=1", {{6, 6, 6}, 0}},
        {"torus:dims=5x4x6,hosts=1", {{5, 4, 6}, 0}},
        {"torus:dims=7x7,hosts=1", {{7, 7, 1}, 0}},
        {"torus:dims=5x5x5,hosts=1,parallel=2", {{5, 5, 5}, 0}},
    };
    char conf[2048];
    unsigned routed = 0;
    for (size_t i = 0; i < sizeof tori / sizeof *tori; i++) {
        make_conf(conf, sizeof conf, &tori[i].g, zero, NULL, 1);
        for (uint64_t seed = 1; seed <= 4; seed++)
            for (unsigned kind = 0; kind < 2; kind++) {
                ibr_fabric *f = NULL;
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, tori[i].spec), 0);
                CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, kind ? 0 : 1, kind, seed), 0);
                /* a fault at the seed origin or its seed neighbours makes
                   the only seed unusable: declined, checked below */
                ibr_topo *t = NULL;
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
                ibr_options o;
                ibr_param p;
                conf_opts(&o, &p, conf);
                ibr_result *r = NULL;
                int rc = ibr_route(&r, t, "torus-2QoS,no_fallback", &o);
                if (rc == 0) {
                    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
                    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
                    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
                    CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
                    check_sls(r, &tori[i].g, zero);
                    routed++;
                } else {
                    const char *e, *m;
                    int st;
                    CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
                    CU_ASSERT_PTR_NOT_NULL(strstr(m, "seed"));
                }
                ibr_result_destroy(r);
                ibr_topo_destroy(t);
                ibr_fabric_destroy(f);
            }
    }
    CU_ASSERT(routed >= 28);

    grid g = {{6, 6, 6}, 0};
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=6x6x6,hosts=1"), 0);
    ibr_topo *tt = NULL;
    /* two cuts in the X ring at y = 2, z = 3 */
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 0 + 6 * (2 + 6 * 3), 2, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 3 + 6 * (2 + 6 * 3), 2, IBR_LINK_DOWN), 0);
    ibr_result *r = route_fabric(&tt, f, conf, 0);
    const char *e, *m;
    int st;
    CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "disjoint failures in the x ring through (0,2,3)"));
    ibr_result_destroy(r);
    ibr_topo_destroy(tt);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 0 + 6 * (2 + 6 * 3), 2, IBR_LINK_ACTIVE), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 3 + 6 * (2 + 6 * 3), 2, IBR_LINK_ACTIVE), 0);
    /* two switches in different columns */
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 2 + 6 * (2 + 6 * 2), IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 4 + 6 * (4 + 6 * 4), IBR_LINK_DOWN), 0);
    r = route_fabric(&tt, f, conf, 0);
    CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "2 torus switches missing (first at 2,2,2)"));
    ibr_result_destroy(r);
    ibr_topo_destroy(tt);
    /* two Z-adjacent switches in one column: routable */
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 4 + 6 * (4 + 6 * 4), IBR_LINK_ACTIVE), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 2 + 6 * (2 + 6 * 3), IBR_LINK_DOWN), 0);
    r = route_fabric(&tt, f, conf, 1);
    CU_ASSERT_PTR_NOT_NULL(r);
    ibr_result_destroy(r);
    ibr_topo_destroy(tt);
    /* a mesh refuses any failure in a ring */
    ibr_fabric_destroy(f);
    grid gm = {{5, 5, 1}, 1};
    make_conf(conf, sizeof conf, &gm, zero, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "mesh:dims=5x5,hosts=1"), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 1 + 5 * 3, 2, IBR_LINK_DOWN), 0);
    r = route_fabric(&tt, f, conf, 0);
    CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "failures in the x ring through (0,3,0)"));
    ibr_result_destroy(r);
    ibr_topo_destroy(tt);
    ibr_fabric_destroy(f);
}


/* Discovery does not depend on port numbers, GUIDs or node order: a 5x4x6
   torus (radix-4 Y) whose switches are created in a shuffled order with
   arbitrary GUIDs and every cable (and host) on a shuffled port; the seed
   names switches by GUID only. The SLs must follow the real coordinates. */
static void test_shuffled_cabling(void)
{
    enum { X = 5, Y = 4, Z = 6, N = X * Y * Z };
    const unsigned r[3] = {X, Y, Z};
    uint32_t perm[N], node_of[N];
    unsigned ports[N][8];
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
#define NEXT() (rng = rng * 6364136223846793005ULL + 1442695040888963407ULL, (unsigned)(rng >> 33))
    for (unsigned i = 0; i < N; i++)
        perm[i] = i;
    for (unsigned i = N - 1; i > 0; i--) {
        unsigned j = NEXT() % (i + 1), x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    for (unsigned i = 0; i < N; i++) {
        for (unsigned k = 0; k < 7; k++)
            ports[i][k] = k + 1;
        for (unsigned k = 6; k > 0; k--) {
            unsigned j = NEXT() % (k + 1), x = ports[i][k];
            ports[i][k] = ports[i][j];
            ports[i][j] = x;
        }
    }
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    /* switch at position p is created perm[p]-th; role 2d = -d, 2d+1 = +d,
       6 = host */
    uint32_t pos_of_node[N];
    for (unsigned k = 0; k < N; k++) {
        unsigned p = 0;
        while (perm[p] != k)
            p++;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&node_of[p], f, IBR_NODE_SWITCH,
                                                  0x7000000000000000ULL + 977u * k + 13u, 7,
                                                  NULL), 0);
        pos_of_node[node_of[p]] = p;
    }
    for (unsigned p = 0; p < N; p++) {
        unsigned c[3] = {p % X, p / X % Y, p / (X * Y)}, stride = 1;
        for (unsigned d = 0; d < 3; stride *= r[d], d++) {
            unsigned np = p - c[d] * stride + (c[d] + 1) % r[d] * stride;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, node_of[p], ports[p][2 * d + 1],
                                                      node_of[np], ports[np][2 * d], NULL), 0);
        }
        uint32_t h;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&h, f, IBR_NODE_CA, 0x5000000000000000ULL +
                                                  ((uint64_t)p << 8), 1, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, node_of[p], ports[p][6], h, 1, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 0, IBR_LIDS_REASSIGN), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    char conf[1024];
#define G(p) ((uint64_t)(0x7000000000000000ULL + 977u * perm[p] + 13u))
    snprintf(conf, sizeof conf,
             "torus 5 4 6\nxp_link 0x%" PRIx64 " 0x%" PRIx64 "\nyp_link 0x%" PRIx64 " 0x%" PRIx64
             "\nym_link 0x%" PRIx64 " 0x%" PRIx64 "\nzm_link 0x%" PRIx64 " 0x%" PRIx64 "\n",
             G(0), G(1), G(0), G(X), G(0), G(3 * X), G(0), G(5 * X * Y));
#undef G
#undef NEXT
    ibr_options o;
    ibr_param prm;
    conf_opts(&o, &prm, conf);
    ibr_result *res = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o,
                                     IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    grid g = {{X, Y, Z}, 0};
    static const unsigned zero[3] = {0, 0, 0};
    unsigned bad = 0;
    for (uint16_t a = 1; a <= ibr_topo_max_lid(t); a++)
        for (uint16_t b = 1; b <= ibr_topo_max_lid(t); b++) {
            uint32_t sa = lid_switch(t, a), sb = lid_switch(t, b);
            uint32_t pa = pos_of_node[ibr_topo_switch_node(t, sa)],
                     pb = pos_of_node[ibr_topo_switch_node(t, sb)];
            bad += ibr_result_path_sl(res, a, b) != expected_sl(&g, pa, pb, zero);
        }
    CU_ASSERT_EQUAL(bad, 0);
    ibr_result_destroy(res);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void expect_decline(const ibr_topo *t, const char *conf, const char *n1, const char *n2)
{
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    if (!conf)
        o.n_params = 0;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "torus-2QoS,no_fallback", &o), IBR_EUNROUTABLE);
    const char *eng = NULL, *msg = NULL;
    int st = 0;
    CU_ASSERT_EQUAL_FATAL(ibr_result_attempt(&eng, &st, &msg, r, 0), 0);
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, n1));
    if (n2)
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, n2));
    if (!strstr(msg, n1) || (n2 && !strstr(msg, n2)))
        fprintf(stderr, "decline message: %s\n", msg);
    ibr_result_destroy(r);
}

/* Configuration errors name the line; mismatching configurations are
   declined with the reason; the chain falls back. */
static void test_config(void)
{
    ibr_topo *t = gen("fattree:levels=3,radix=8", NULL);
    expect_decline(t, NULL, "no torus-2QoS.conf given", "none can be derived from the cabling");
    ibr_topo_destroy(t);
    t = gen("torus:dims=6x6x6,hosts=1", NULL);
    expect_decline(t, "torus 6 6 6\n\nfoo 1 2\n", "line 3", "unknown keyword 'foo'");
    expect_decline(t, "x_dateline 1\ntorus 6 6 6\n", "line 1", "before the torus");
    expect_decline(t, "torus 6 6 6\nx_dateline 6\n", "line 2", "out of range");
    expect_decline(t, "torus 6 6 6\nxp_link 0x12 zz\n", "line 2", "two switch GUIDs");
    expect_decline(t, "# c\ntorus 6 q 6\n", "line 2", "bad radix 'q'");
    expect_decline(t, "torus 6 6\n", "line 1", "three radices");
    expect_decline(t, "torus 6 6 6\nport_order 1 2 300\n", "line 2", "'300'");
    expect_decline(t, "torus 6 6 6\nportgroup_max_ports 0\n", "line 2", "positive");
    expect_decline(t, "# only comments\n", "no 'torus X Y Z'", NULL);
    char conf[2048];
    static const unsigned zero[3] = {0, 0, 0};
    grid g = {{6, 6, 6}, 0};
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    /* no seed link for z */
    char *z = strstr(conf, "zp_link");
    z[0] = '#';
    expect_decline(t, conf, "no zp_link or zm_link", NULL);
    /* a GUID absent from the fabric */
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    char *x = strstr(conf, "0x0002c90202000001");
    x[2] = '9';
    expect_decline(t, conf, "no seed has all its switches present", NULL);
    /* radices that do not match the cabling */
    grid wrong = {{6, 6, 5}, 0};
    make_conf(conf, sizeof conf, &wrong, zero, NULL, 0);
    expect_decline(t, conf, "could not be placed", "do not match the cabling");
    grid wrong2 = {{6, 36, 1}, 0};
    make_conf(conf, sizeof conf, &wrong2, zero, NULL, 0);
    expect_decline(t, conf, "could not be placed", NULL);
    /* port groups too small, port_order beyond the switches */
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    strcat(conf, "portgroup_max_ports 1\n");
    expect_decline(t, conf, "local ports", "portgroup_max_ports");
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    strcat(conf, "port_order 7 200\n");
    expect_decline(t, conf, "port_order lists port 200", NULL);
    /* seed links from two origins */
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    strcat(conf, "ym_link 0x0002c90202000001 0x0002c90202000002\n");
    expect_decline(t, conf, "do not share one origin", NULL);
    ibr_topo_destroy(t);
    /* radix-4 torus dimension needs both seed directions */
    t = gen("torus:dims=4x6,hosts=1", NULL);
    snprintf(conf, sizeof conf, "torus 4 6 1\nxp_link 0x0002c90202000000 0x0002c90202000001\n"
                                "yp_link 0x0002c90202000000 0x0002c90202000004\n");
    expect_decline(t, conf, "radix-4 torus", "xm_link");
    /* port_order and a mesh-typed radix on a torus line: routed */
    grid g2 = {{4, 6, 1}, 0};
    make_conf(conf, sizeof conf, &g2, zero, NULL, 0);
    strcat(conf, "port_order 5 4 4 0\nmax_changes 10\n");
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    ibr_result *r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", &o, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL(r);
    ibr_result_destroy(r);
    /* fallback: the chain goes on to minhop */
    p.value = "torus 6 6 6\nfoo\n";
    CU_ASSERT_EQUAL(ibr_route(&r, t, "torus-2QoS,minhop", &o), 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_allocation_failure(void)
{
    ibr_test_alloc st = {.fail_at = -1};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=3x3x4,hosts=1,parallel=2");
    grid g = {{3, 3, 4}, 0};
    static const unsigned zero[3] = {0, 0, 0};
    char conf[2048];
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    long base = st.live, n = 0;
    ibr_result *r = ibr_test_route_oom(&n, &st, t, "torus-2QoS,no_fallback", &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(st.live, base);
    CU_ASSERT(n > 10);
    ibr_topo_destroy(t);
    /* no configuration: derived (a ring of 4 from two size-2 axes; a line) */
    static const char *const derived_specs[] = {"torus:dims=4x3x5,hosts=1",
                                                "torus:dims=6,hosts=1"};
    for (size_t i = 0; i < 2; i++) {
        t = ibr_test_topo(ctx, derived_specs[i]);
        base = st.live;
        n = 0;
        r = ibr_test_route_oom(&n, &st, t, "torus-2QoS,no_fallback", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        const void *data;
        size_t size;
        CU_ASSERT_EQUAL(ibr_result_find_artifact(&data, &size, r, "torus-2QoS.conf"), 0);
        ibr_result_destroy(r);
        CU_ASSERT_EQUAL(st.live, base);
        CU_ASSERT(n > 10);
        ibr_topo_destroy(t);
    }
    {
        /* the 8x8 torus with a failed switch and groups: OpenSM's master
           tree loops, the tree is grown again (test_mcast_faults) */
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=8x8,hosts=2"), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 0, 1, 4), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        grid g8 = {{8, 8, 1}, 0};
        make_conf(conf, sizeof conf, &g8, zero, NULL, 1);
        ibr_mcast_groups *mg = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&mg, t), 0);
        for (uint32_t i = 0; i < ibr_topo_node_count(t); i++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, i);
            if (ni.type != IBR_NODE_SWITCH)
                ibr_mcast_groups_add_member(mg, (uint16_t)(0xC000 + i % 3), NULL, ni.node_guid,
                                            1, IBR_MCAST_JOIN_FULL);
        }
        conf_opts(&o, &p, conf);
        o.mcast_groups = mg;
        base = st.live;
        n = 0;
        r = ibr_test_route_oom(&n, &st, t, "torus-2QoS,no_fallback", &o);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        rep = (ibr_verify_report){.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
        CU_ASSERT_EQUAL(rep.deadlock_free, 1);
        CU_ASSERT_EQUAL(rep.mcast_pairs_ok, rep.mcast_pairs);
        ibr_result_destroy(r);
        CU_ASSERT_EQUAL(st.live, base);
        ibr_mcast_groups_destroy(mg);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
}


/* ------------------------------------------------------------------ */
/* without torus-2QoS.conf: the configuration derived from the cabling */

/* Everything the result tells the fabric, byte for byte: LFTs, path SLs,
   SL2VL tables, multicast tables. */
static int same_tables(const ibr_result *a, const ibr_result *b)
{
    int (*const writers[])(ibr_buffer *, const ibr_result *) = {
        ibr_result_write_lfts_dump, ibr_result_write_path_sl, ibr_result_write_sl2vl_dump,
        ibr_result_write_mcfdbs};
    int same = 1;
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        ibr_buffer x = IBR_BUFFER_INIT, y = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(writers[i](&x, a), 0);
        CU_ASSERT_EQUAL(writers[i](&y, b), 0);
        if (x.size != y.size || (x.size && memcmp(x.data, y.data, x.size))) {
            fprintf(stderr, "tables differ (writer %zu)\n", i);
            same = 0;
        }
        ibr_buffer_dispose(&x);
        ibr_buffer_dispose(&y);
    }
    return same;
}

/* Route t with torus-2QoS and no configuration (rc: ibr_route's code);
   *conf: a copy of the derived torus-2QoS.conf artefact, or "" when none. */
static ibr_result *route_derived(int *rc, char *conf, size_t size, const ibr_topo *t)
{
    ibr_result *r = NULL;
    const void *data;
    size_t n;
    *rc = ibr_route(&r, t, "torus-2QoS,no_fallback", NULL);
    conf[0] = 0;
    if (*rc == 0 && ibr_result_find_artifact(&data, &n, r, "torus-2QoS.conf") == 0) {
        CU_ASSERT_FATAL(n < size);
        memcpy(conf, data, n);
        conf[n] = 0;
    }
    return r;
}

/* The decline message of a result's first attempt. */
static const char *decline_msg(const ibr_result *r)
{
    const char *e, *m = "";
    int st = 0;
    CU_ASSERT_EQUAL(ibr_result_attempt(&e, &st, &m, r, 0), 0);
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    return m ? m : "";
}

/* Route t with conf, compare with r; both may decline (same message). */
static void expect_same_as_conf(const ibr_result *r, int rc, const ibr_topo *t, const char *conf)
{
    ibr_options o;
    ibr_param p;
    conf_opts(&o, &p, conf);
    ibr_result *c = NULL;
    int crc = ibr_route(&c, t, "torus-2QoS,no_fallback", &o);
    CU_ASSERT_EQUAL(rc, crc);
    if (rc == 0 && crc == 0) {
        CU_ASSERT(same_tables(r, c));
    } else if (rc != 0 && crc != 0) {
        CU_ASSERT_STRING_EQUAL(decline_msg(r), decline_msg(c));
    }
    if (rc != crc)
        fprintf(stderr, "derived %d, with the configuration %d:\n%s\n", rc, crc, conf);
    ibr_result_destroy(c);
}

static const struct {
    const char *spec;
    grid g;
} derive_fabrics[] = {
    {"torus:dims=6x6x6,hosts=2", {{6, 6, 6}, 0}},
    {"torus:dims=4x4x4,hosts=1", {{4, 4, 4}, 0}},
    {"torus:dims=5x3x4,hosts=1", {{5, 3, 4}, 0}},
    {"torus:dims=8x7,hosts=2", {{8, 7, 1}, 0}},
    {"torus:dims=4x6,hosts=1", {{4, 6, 1}, 0}},
    {"torus:dims=2x5x6,hosts=1", {{2, 5, 6}, 0}},
    {"torus:dims=3x3x3,hosts=1", {{3, 3, 3}, 0}},
    {"torus:dims=5x5x5,hosts=1,parallel=2", {{5, 5, 5}, 0}},
    {"torus:dims=9,hosts=2", {{9, 1, 1}, 0}},
    {"torus:dims=4,hosts=1", {{4, 1, 1}, 0}},
    {"mesh:dims=6x5x4,hosts=1", {{6, 5, 4}, 1}},
    {"mesh:dims=8x8,hosts=2", {{8, 8, 1}, 1}},
    {"mesh:dims=4x4x4,hosts=1", {{4, 4, 4}, 1}},
    {"mesh:dims=3x7,hosts=1,parallel=2", {{3, 7, 1}, 1}},
    {"mesh:dims=7,hosts=1", {{7, 1, 1}, 1}},
};

/* Tori and meshes of 1 to 3 dimensions: the derived configuration routes
   exactly as the generator's own (make_conf()), valid, minimal and loop-free
   through the SLs, with the SLs the coordinates give; routed again with
   the derived text as its configuration, nothing changes. */
static void test_derived(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    char conf[2048], derived[2048];
    for (size_t i = 0; i < sizeof derive_fabrics / sizeof *derive_fabrics; i++) {
        const grid *g = &derive_fabrics[i].g;
        ibr_topo *t = gen(derive_fabrics[i].spec, NULL);
        ibr_result *r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", NULL,
                                       IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        const void *data;
        size_t n;
        CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&data, &n, r, "torus-2QoS.conf"), 0);
        CU_ASSERT_FATAL(n < sizeof derived);
        memcpy(derived, data, n);
        derived[n] = 0;
        /* the radices line */
        char want[64];
        snprintf(want, sizeof want, "\n%s %u %u %u\n", g->mesh ? "mesh" : "torus", g->r[0],
                 g->r[1], g->r[2]);
        CU_ASSERT_PTR_NOT_NULL(strstr(derived, want));
        if (!strstr(derived, want))
            check_sls(r, g, zero);
        make_conf(conf, sizeof conf, g, zero, NULL, 0);
        expect_same_as_conf(r, 0, t, conf);
        expect_same_as_conf(r, 0, t, derived);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* Failures. Chosen ones: away from the seed the derived configuration is
   the generator's; a failed seed switch moves the seed to the next switch
   with all its neighbours, as a hand-written configuration for that seed
   says; a ring of 9 with a failed switch is a chain of 8 (a mesh). Then
   seeded random failures of one switch or one cable: whatever the
   generator's configuration routes, the derived one routes too, exactly
   the same when the seed is the same, and every derived route is valid
   and loop-free. */
static void test_derived_faults(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    char conf[2048], derived[2048];
    grid g6 = {{6, 6, 6}, 0};
    ibr_fabric *f = NULL;
    ibr_topo *t = gen("torus:dims=6x6x6,hosts=1", &f);
    ibr_topo_destroy(t);
    /* a switch and a cable away from the seed */
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 3 + 6 * (3 + 6 * 3), IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 2 + 6 * (4 + 6 * 1), 4, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    int rc;
    ibr_result *r = route_derived(&rc, derived, sizeof derived, t);
    CU_ASSERT_EQUAL(rc, 0);
    make_conf(conf, sizeof conf, &g6, zero, NULL, 0);
    expect_same_as_conf(r, rc, t, conf);
    check_sls(r, &g6, zero);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    /* the seed switch fails: switch 2 (x = 2) seeds, + toward the lower
       GUID (x = 1, y = 1, z = 1) */
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 3 + 6 * (3 + 6 * 3), IBR_LINK_ACTIVE), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 2 + 6 * (4 + 6 * 1), 4, IBR_LINK_ACTIVE), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 0, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    r = route_derived(&rc, derived, sizeof derived, t);
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(conf, sizeof conf,
             "torus 6 6 6\nxp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\nyp_link 0x%016" PRIx64
             " 0x%016" PRIx64 "\nzp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\n",
             gguid(&g6, 2, 0, 0), gguid(&g6, 1, 0, 0), gguid(&g6, 2, 0, 0), gguid(&g6, 2, 1, 0),
             gguid(&g6, 2, 0, 0), gguid(&g6, 2, 0, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(derived, conf + strlen("torus 6 6 6\n")));
    expect_same_as_conf(r, rc, t, conf);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    /* a ring of 9 without switch 4: the chain 5 .. 8, 0 .. 3 */
    t = gen("torus:dims=9,hosts=1", &f);
    ibr_topo_destroy(t);
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 4, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    r = route_derived(&rc, derived, sizeof derived, t);
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(conf, sizeof conf, "mesh 8 1 1\nxp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\n",
             (uint64_t)GUID0 + 3, (uint64_t)GUID0 + 2);
    expect_same_as_conf(r, rc, t, conf);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    static const struct {
        const char *spec;
        grid g;
    } tori[] = {
        {"torus:dims=6x6x6,hosts=1", {{6, 6, 6}, 0}},
        {"torus:dims=5x4x6,hosts=1", {{5, 4, 6}, 0}},
        {"torus:dims=4x4x4,hosts=1", {{4, 4, 4}, 0}},
        {"torus:dims=7x7,hosts=1", {{7, 7, 1}, 0}},
        {"torus:dims=5x5x5,hosts=1,parallel=2", {{5, 5, 5}, 0}},
        {"mesh:dims=6x5x4,hosts=1", {{6, 5, 4}, 1}},
    };
    unsigned routed = 0, same_seed = 0, conf_routed = 0, runs = 0;
    char seed_line[128];
    for (size_t i = 0; i < sizeof tori / sizeof *tori; i++) {
        make_conf(conf, sizeof conf, &tori[i].g, zero, NULL, 0);
        snprintf(seed_line, sizeof seed_line, "xp_link 0x%016" PRIx64 " 0x%016" PRIx64 "\n",
                 (uint64_t)GUID0, (uint64_t)GUID0 + 1);
        for (uint64_t seed = 1; seed <= 4; seed++)
            for (unsigned kind = 0; kind < 2; kind++) {
                t = ibr_test_topo_faults(tori[i].spec, kind ? 0 : 1, kind, seed, 0);
                r = route_derived(&rc, derived, sizeof derived, t);
                runs++;
                ibr_options o;
                ibr_param p;
                conf_opts(&o, &p, conf);
                ibr_result *c = NULL;
                int crc = ibr_route(&c, t, "torus-2QoS,no_fallback", &o);
                conf_routed += crc == 0;
                if (crc == 0) {
                    CU_ASSERT_EQUAL(rc, 0);
                }
                if (rc == 0) {
                    routed++;
                    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
                    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
                    CU_ASSERT_EQUAL(rep.deadlock_free, 1);
                    CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
                    if (crc == 0 && strstr(derived, seed_line)) {
                        same_seed++;
                        CU_ASSERT(same_tables(r, c));
                    }
                    expect_same_as_conf(r, rc, t, derived);
                } else {
                    const char *m = decline_msg(r);
                    CU_ASSERT(strlen(m) > 20);
                }
                ibr_result_destroy(c);
                ibr_result_destroy(r);
                ibr_topo_destroy(t);
            }
    }
    fprintf(stderr, "derived under faults: %u of %u routed (%u with the generator's "
            "configuration, %u compared)\n", routed, runs, conf_routed, same_seed);
    CU_ASSERT(routed >= conf_routed);
    CU_ASSERT(same_seed >= conf_routed * 3 / 4);
}

/* A 2-D mesh that lost one switch, derived as it is cabled (issue 39's
   mesh rows). A corner switch leaves its row and column broken in one
   place only (the mesh's own edge): the derived configuration routes,
   valid, free of credit loops, with the tables of the generator's. Any
   other switch breaks a row or column a second time, which torus-2QoS's
   rules cannot route around: declined, as with the generator's
   configuration, saying why. */
static void test_derived_mesh_lost_switch(void)
{
    static const unsigned zero[3] = {0, 0, 0};
    static const struct {
        unsigned x, y;
        int routes;
    } lost[] = {{4, 4, 1}, {4, 0, 1}, {0, 4, 1}, {2, 4, 0}, {4, 1, 0}, {2, 2, 0}};
    grid g = {{5, 5, 1}, 1};
    char conf[2048], derived[2048];
    make_conf(conf, sizeof conf, &g, zero, NULL, 0);
    for (size_t i = 0; i < sizeof lost / sizeof *lost; i++) {
        ibr_fabric *f = NULL;
        ibr_topo *t = gen("mesh:dims=5x5,hosts=2", &f);
        ibr_topo_destroy(t);
        CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, lost[i].x + 5 * lost[i].y, IBR_LINK_DOWN),
                        0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        int rc;
        ibr_result *r = route_derived(&rc, derived, sizeof derived, t);
        CU_ASSERT_EQUAL(rc == 0, lost[i].routes);
        if (rc == 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(derived, "\nmesh 5 5 1\n"));
            ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
            CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
            CU_ASSERT_EQUAL(rep.deadlock_free, 1);
            CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
            CU_ASSERT_EQUAL(rep.pairs, 48u * 47u);
            check_sls(r, &g, zero);
            expect_same_as_conf(r, rc, t, conf);
        } else {
            CU_ASSERT(strlen(decline_msg(r)) > 20);
            ibr_options o;
            ibr_param p;
            conf_opts(&o, &p, conf);
            ibr_result *c = NULL;
            CU_ASSERT_NOT_EQUAL(ibr_route(&c, t, "torus-2QoS,no_fallback", &o), 0);
            ibr_result_destroy(c);
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

/* No torus or mesh: declined, saying why; a chain falls back. A
   hypercube of 6 dimensions is cabled as a 4 x 4 x 4 torus: routed. */
static void test_derived_declines(void)
{
    static const struct {
        const char *spec, *why;
    } cases[] = {
        {"fattree:levels=2,radix=8", "not a torus or mesh of at most 3 dimensions"},
        {"fattree:levels=3,radix=8", "not a torus or mesh"},
        {"random:switches=30,degree=6,hosts=1,seed=11", "not a torus or mesh"},
        {"dragonfly:a=4,p=2,h=2,g=9", "not a torus or mesh"},
        {"hypercube:dim=7,hosts=1", "not a torus or mesh of at most 3 dimensions"},
        {"hypercube:dim=6,hosts=1", NULL}, /* 2^6 is a 4 x 4 x 4 torus: routed */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ibr_topo *t = gen(cases[i].spec, NULL);
        char derived[2048];
        int rc;
        if (!cases[i].why) {
            ibr_result *r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", NULL,
                                           IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL);
            CU_ASSERT_PTR_NOT_NULL(r);
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            continue;
        }
        ibr_result *r = route_derived(&rc, derived, sizeof derived, t);
        CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
        const char *m = decline_msg(r);
        CU_ASSERT_PTR_NOT_NULL(strstr(m, "none can be derived from the cabling"));
        CU_ASSERT_PTR_NOT_NULL(strstr(m, cases[i].why));
        ibr_result_destroy(r);
        r = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "torus-2QoS", NULL), 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* a switch cut off from the others keeps its host: the fabric is in
       two parts (a failed switch, every cable down, would simply be gone) */
    ibr_fabric *f = NULL;
    ibr_topo *t = gen("torus:dims=5x5,hosts=1", &f);
    ibr_topo_destroy(t);
    for (unsigned port = 1; port <= 4; port++)
        CU_ASSERT_EQUAL(ibr_fabric_set_link_state(f, 7, port, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    char derived[2048];
    int rc;
    ibr_result *r = route_derived(&rc, derived, sizeof derived, t);
    CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(decline_msg(r), "has end ports but no cable to another switch"));
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    CU_ASSERT_EQUAL(ibr_fabric_set_node_state(f, 7, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    r = ibr_test_route(NULL, t, "torus-2QoS,no_fallback", NULL, IBR_TEST_DEADLOCK_FREE);
    CU_ASSERT_PTR_NOT_NULL(r);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"tori and meshes: valid, minimal, loop-free, SLs from coordinates", test_families},
        {"SL2VL tables and the VL count", test_sl2vl},
        {"the ports' data VLs", test_port_vls},
        {"datelines", test_datelines},
        {"parallel cables and LMC", test_parallel_and_lmc},
        {"SL stability under link and switch failures (6x6x6)", test_sl_stability},
        {"random faults and refused failure patterns", test_faults},
        {"discovery with shuffled ports, GUIDs and node order", test_shuffled_cabling},
        {"configuration errors and mismatches", test_config},
        {"multicast trees", test_mcast_trees},
        {"multicast trees on degraded tori stay loop-free", test_mcast_faults},
        {"allocation failure", test_allocation_failure},
        {"no configuration: derived from tori and meshes", test_derived},
        {"no configuration: derived under failures", test_derived_faults},
        {"no configuration: a 2-D mesh that lost a switch", test_derived_mesh_lost_switch},
        {"no configuration: no torus, no derivation", test_derived_declines},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("torus2qos", tests);
}
