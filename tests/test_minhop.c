/* minhop on edge fabrics and generated families: validity, minimality
   against an independent BFS, balance, LMC, options, determinism. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Independent BFS over the public API: hops between switches. */
static unsigned *bfs_matrix(const ibr_topo *t)
{
    uint32_t n = ibr_topo_switch_count(t);
    unsigned *d = malloc(sizeof *d * (size_t)n * n + 1);
    uint32_t *q = malloc(sizeof *q * (size_t)n + 1);
    for (uint32_t a = 0; a < n; a++) {
        unsigned *row = d + (size_t)a * n;
        for (uint32_t b = 0; b < n; b++)
            row[b] = 255;
        row[a] = 0;
        uint32_t h = 0, tl = 0;
        q[tl++] = a;
        while (h < tl) {
            uint32_t s = q[h++];
            uint32_t node = ibr_topo_switch_node(t, s);
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, node);
            for (unsigned p = 1; p <= ni.nports; p++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&pi, t, node, p);
                if (pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE)
                    continue;
                uint32_t r = ibr_topo_node_switch(t, pi.remote_node);
                if (r == IBR_NONE || row[r] != 255)
                    continue;
                row[r] = row[s] + 1;
                q[tl++] = r;
            }
        }
    }
    free(q);
    return d;
}

/* Walk every (switch, LID) along the LFTs with the public API and check it
   arrives in exactly the BFS distance (or has no route when unreachable). */
static void check_minimal(const ibr_topo *t, const ibr_result *r)
{
    uint32_t n = ibr_topo_switch_count(t);
    unsigned *d = bfs_matrix(t);
    uint16_t maxlid = ibr_topo_max_lid(t);
    long bad = 0;
    for (unsigned lid = 1; lid <= maxlid; lid++) {
        uint32_t onode;
        unsigned oport;
        if (ibr_topo_lid_owner(&onode, &oport, t, (uint16_t)lid) < 0)
            continue;
        uint32_t dsw = ibr_topo_node_switch(t, onode);
        unsigned dport = 0;
        if (dsw == IBR_NONE) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, onode, oport);
            if (pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE)
                dsw = IBR_NONE;
            else
                dsw = ibr_topo_node_switch(t, pi.remote_node);
            dport = pi.remote_port;
        }
        for (uint32_t s = 0; s < n; s++) {
            if (dsw == IBR_NONE || d[(size_t)s * n + dsw] == 255) {
                if (ibr_result_lft_port(r, s, (uint16_t)lid) != IBR_NO_ROUTE)
                    bad++; /* a route toward an unreachable LID */
                continue;
            }
            uint32_t cur = s;
            unsigned hops = 0;
            for (;;) {
                unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
                if (cur == dsw) {
                    if (p != dport)
                        bad++;
                    break;
                }
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                if (p == IBR_NO_ROUTE ||
                    ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, cur), p) < 0 ||
                    pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE ||
                    ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE || hops > n) {
                    bad++;
                    break;
                }
                cur = ibr_topo_node_switch(t, pi.remote_node);
                hops++;
            }
            if (cur == dsw && hops != d[(size_t)s * n + dsw])
                bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(d);
}

static ibr_result *route_ok(const ibr_topo *t, const char *chain, const ibr_options *o,
                            ibr_verify_report *rep)
{
    ibr_result *r = ibr_test_route(rep, t, chain, o, IBR_TEST_MINIMAL);
    if (r)
        check_minimal(t, r);
    return r;
}

static void test_single_switch(void)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x10, 8, "lonely");
    for (unsigned i = 0; i < 4; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, 1 + i, 1, 0, 2 + i, NULL);
    }
    /* a loopback plug between ports 7 and 8 carries nothing */
    CU_ASSERT_EQUAL(ibr_fabric_add_link(f, 0, 7, 0, 8, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_verify_report rep;
    ibr_result *r = route_ok(t, "minhop", NULL, &rep);
    CU_ASSERT_EQUAL(rep.links, 0);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 1), 0); /* the switch itself */
    for (unsigned i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, (uint16_t)(2 + i)), 2 + i);
    CU_ASSERT_EQUAL(rep.pairs, 12);
    CU_ASSERT_DOUBLE_EQUAL(rep.avg_hops, 2.0, 1e-9);
    CU_ASSERT_EQUAL(rep.max_link_load, 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_empty_and_ca_only(void)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, NULL, NULL), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_size(r), 1);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.routes_checked, 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    /* two CAs cabled back to back: nothing to route, nothing wrong */
    ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x100, 1, "a");
    ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x200, 1, "b");
    ibr_fabric_add_link(f, 0, 1, 1, 1, NULL);
    ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", NULL), 0);
    CU_ASSERT_EQUAL(ibr_topo_switch_count(t), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* Two switches joined by parallel links, two hosts each: hand-computed. */
static void test_parallel_links(void)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x10, 4, "s1");
    ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x20, 4, "s2");
    ibr_fabric_add_link(f, 0, 1, 1, 1, NULL);
    ibr_fabric_add_link(f, 0, 2, 1, 2, NULL);
    for (unsigned i = 0; i < 4; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, 2 + i, 1, i < 2 ? 0 : 1, 3 + (i & 1), NULL);
    }
    ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_verify_report rep;
    ibr_result *r = route_ok(t, "minhop", NULL, &rep);
    /* each remote host on its own link: loads 2 per directed link */
    CU_ASSERT_EQUAL(rep.pairs, 12);
    CU_ASSERT_DOUBLE_EQUAL(rep.avg_hops, (4 * 2 + 8 * 3) / 12.0, 1e-9);
    CU_ASSERT_EQUAL(rep.links, 4);
    CU_ASSERT_EQUAL(rep.max_link_load, 2);
    CU_ASSERT_DOUBLE_EQUAL(rep.mean_link_load, 2.0, 1e-9);
    CU_ASSERT_EQUAL(rep.max_hops, 3);
    CU_ASSERT_DOUBLE_EQUAL(rep.max_stretch, 1.0, 1e-9);
    /* one of the links fails: everything moves to the other */
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_set_link_state(f, 0, 2, IBR_LINK_DOWN);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    r = route_ok(t, "minhop", NULL, &rep);
    CU_ASSERT_EQUAL(rep.links, 2);
    CU_ASSERT_EQUAL(rep.max_link_load, 4);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_families(void)
{
    static const char *specs[] = {
        "fattree:levels=2,radix=8",
        "fattree:levels=3,radix=8",
        "fattree:levels=3,radix=8,hosts=3",
        "xgft:h=2,m=4.8,w=1.4",
        "torus:dims=4x4x4,hosts=2",
        "torus:dims=5x3,hosts=1,parallel=2",
        "mesh:dims=6x6,hosts=2",
        "hypercube:dim=5,hosts=2",
        "dragonfly:a=4,p=2,h=2,g=9",
        "random:switches=40,degree=4,hosts=2,seed=7",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_verify_report rep;
        ibr_result *r = route_ok(t, "minhop", NULL, &rep);
        CU_ASSERT(rep.pairs > 0);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

static void test_faults(void)
{
    static const char *specs[] = {
        "fattree:levels=3,radix=8",
        "torus:dims=4x4x4,hosts=1",
        "random:switches=60,degree=5,hosts=1,seed=3",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            ibr_fabric *f = NULL;
            ibr_fabric_create(&f, NULL);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 6, 1, seed), 0);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_verify_report rep;
            ibr_result *r = route_ok(t, "minhop", NULL, &rep);
            /* the dead switch's hosts are unreachable, not misrouted */
            CU_ASSERT(rep.unreachable > 0);
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

/* On a full two-level fat tree of k-port switches (k/2 hosts and k/2 up
   links per leaf, L = k leaves), minhop reaches the optimum link load
   (k/2) * (L - 1) = every up and down link carries the same number. */
static void test_balance(void)
{
    for (unsigned k = 4; k <= 16; k += 4) {
        char spec[64];
        snprintf(spec, sizeof spec, "fattree:levels=2,radix=%u", k);
        ibr_topo *t = ibr_test_topo(NULL, spec);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        ibr_verify_report rep;
        ibr_result *r = route_ok(t, "minhop", NULL, &rep);
        uint64_t leaves = k, hosts = k / 2;
        CU_ASSERT_EQUAL(rep.max_link_load, hosts * (leaves - 1));
        CU_ASSERT_DOUBLE_EQUAL(rep.mean_link_load, (double)hosts * (leaves - 1), 1e-9);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

static int same_lfts(const ibr_result *a, const ibr_result *b, uint32_t nsw)
{
    if (ibr_result_lft_size(a) != ibr_result_lft_size(b))
        return 0;
    for (uint32_t s = 0; s < nsw; s++)
        if (memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), ibr_result_lft_size(a)))
            return 0;
    return 1;
}

static void test_determinism(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "random:switches=80,degree=5,hosts=3,seed=11");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_options o1 = IBR_OPTIONS_INIT, o2 = IBR_OPTIONS_INIT;
    o1.threads = 1;
    o2.threads = 2;
    ibr_verify_report rep;
    ibr_result *a = route_ok(t, "minhop", &o1, &rep);
    ibr_result *b = route_ok(t, "minhop", &o2, &rep);
    ibr_result *c = route_ok(t, "minhop", &o2, &rep);
    CU_ASSERT(same_lfts(a, b, ibr_topo_switch_count(t)));
    CU_ASSERT(same_lfts(b, c, ibr_topo_switch_count(t)));
    /* scatter: valid, reproducible for one seed, different from plain */
    o1.scatter_ports = o2.scatter_ports = 1;
    o1.seed = o2.seed = 1234;
    ibr_result *s1 = route_ok(t, "minhop", &o1, &rep);
    ibr_result *s2 = route_ok(t, "minhop", &o2, &rep);
    CU_ASSERT(same_lfts(s1, s2, ibr_topo_switch_count(t)));
    CU_ASSERT(!same_lfts(s1, a, ibr_topo_switch_count(t)));
    CU_ASSERT_EQUAL(ibr_result_seed(s1), 1234);
    /* port shifting: valid and minimal */
    ibr_options o3 = IBR_OPTIONS_INIT;
    o3.port_shifting = 1;
    ibr_result *ps = route_ok(t, "minhop", &o3, &rep);
    ibr_result_destroy(ps);
    ibr_result_destroy(s1);
    ibr_result_destroy(s2);
    ibr_result_destroy(a);
    ibr_result_destroy(b);
    ibr_result_destroy(c);
    ibr_topo_destroy(t);
}

/* LMC: every LID of a port is routed, and the LIDs of one host leave a leaf
   through different up links (path diversity). */
static void test_lmc(void)
{
    for (unsigned lmc = 1; lmc <= 2; lmc++) {
        ibr_fabric *f = NULL;
        ibr_fabric_create(&f, NULL);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8"), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_REASSIGN), 0);
        ibr_topo *t = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        ibr_verify_report rep;
        ibr_result *r = route_ok(t, "minhop", NULL, &rep);
        unsigned per = 1u << lmc;
        /* pairs count every LID of every destination */
        uint64_t hosts = ibr_topo_endport_count(t);
        CU_ASSERT_EQUAL(rep.pairs, hosts * (hosts - 1) * per);
        /* distinct up ports for the LIDs of each remote host */
        long same = 0, leaves = 0;
        for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
            /* only leaves have a choice: spines have one port per leaf */
            ibr_port_info p1 = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&p1, t, ibr_topo_switch_node(t, s), 1);
            if (ibr_topo_node_switch(t, p1.remote_node) != IBR_NONE)
                continue;
            leaves++;
            for (unsigned lid = 1; lid <= ibr_topo_max_lid(t); lid++) {
                uint32_t on;
                unsigned op;
                if (ibr_topo_lid_owner(&on, &op, t, (uint16_t)lid) < 0)
                    continue;
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&pi, t, on, op);
                if (ibr_topo_node_switch(t, on) != IBR_NONE || pi.lid != lid)
                    continue;
                if (ibr_topo_node_switch(t, pi.remote_node) == s)
                    continue;
                for (unsigned a = 0; a < per; a++)
                    for (unsigned b = a + 1; b < per; b++)
                        if (ibr_result_lft_port(r, s, (uint16_t)(lid + a)) ==
                            ibr_result_lft_port(r, s, (uint16_t)(lid + b)))
                            same++;
            }
        }
        /* leaves have 4 up links: 2 or 4 LIDs always find distinct ones */
        CU_ASSERT_EQUAL(leaves, 8);
        CU_ASSERT_EQUAL(same, 0);
        /* lmc option 0 routes only base LIDs: the others get no route and
           the verifier counts them as asked-for gaps, not errors */
        ibr_options o = IBR_OPTIONS_INIT;
        o.lmc = 0;
        ibr_result *r0 = NULL;
        CU_ASSERT_EQUAL(ibr_route(&r0, t, "minhop", &o), 0);
        ibr_verify_report rep0 = {.version = IBR_VERIFY_REPORT_VERSION};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep0, r0), 0);
        CU_ASSERT_EQUAL(rep0.missing, 0);
        /* every switch, for each host's non-base LIDs */
        CU_ASSERT_EQUAL(rep0.restricted,
                        (uint64_t)ibr_topo_switch_count(t) * hosts * (per - 1));
        uint32_t hnode;
        unsigned hport;
        CU_ASSERT_EQUAL(ibr_topo_lid_owner(&hnode, &hport, t, ibr_topo_max_lid(t)), 0);
        CU_ASSERT_EQUAL(ibr_result_lft_port(r0, 0, ibr_topo_max_lid(t)), IBR_NO_ROUTE);
        ibr_result_destroy(r0);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

static void test_routing_order_and_ignore(void)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8"), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    /* find a leaf (has CAs) and its lowest up port */
    uint32_t leaf = IBR_NONE, host = IBR_NONE;
    unsigned up = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t) && leaf == IBR_NONE; s++) {
        uint32_t node = ibr_topo_switch_node(t, s);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        unsigned first_up = 0, has_ca = 0;
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, node, p);
            if (pi.remote_node == IBR_NONE)
                continue;
            if (ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                has_ca = 1;
            else if (!first_up)
                first_up = p;
        }
        if (has_ca && first_up) {
            leaf = s;
            up = first_up;
        }
    }
    CU_ASSERT_FATAL(leaf != IBR_NONE);
    /* a host on another leaf, listed first, gets the first up port */
    for (uint32_t n = 0; n < ibr_topo_node_count(t) && host == IBR_NONE; n++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_node_switch(t, n) != IBR_NONE)
            continue;
        ibr_topo_port_info(&pi, t, n, 1);
        if (ibr_topo_node_switch(t, pi.remote_node) != leaf)
            host = n;
    }
    ibr_port_info hp = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&hp, t, host, 1);
    ibr_options o = IBR_OPTIONS_INIT;
    uint64_t order[1] = {hp.guid};
    o.guid_routing_order = order;
    o.n_guid_routing_order = 1;
    ibr_verify_report rep;
    ibr_result *r = route_ok(t, "minhop", &o, &rep);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, leaf, hp.lid), up);
    ibr_result_destroy(r);
    /* an ignored up port never gains load, so it takes every remote host */
    ibr_node_info li = IBR_NODE_INFO_INIT;
    ibr_topo_node_info(&li, t, ibr_topo_switch_node(t, leaf));
    ibr_guid_port ig = {li.node_guid, up};
    ibr_options oi = IBR_OPTIONS_INIT;
    oi.ignore_ports = &ig;
    oi.n_ignore_ports = 1;
    r = route_ok(t, "minhop", &oi, &rep);
    unsigned via_up = 0, remote = 0;
    for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_node_switch(t, n) != IBR_NONE)
            continue;
        ibr_topo_port_info(&pi, t, n, 1);
        if (ibr_topo_node_switch(t, pi.remote_node) == leaf)
            continue;
        remote++;
        via_up += ibr_result_lft_port(r, leaf, pi.lid) == up;
    }
    CU_ASSERT(remote > 0);
    CU_ASSERT_EQUAL(via_up, remote);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_hop_matrix(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=4x4,hosts=1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    CU_ASSERT(ibr_result_has_hops(r));
    unsigned *d = bfs_matrix(t);
    uint32_t n = ibr_topo_switch_count(t);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            CU_ASSERT_EQUAL(ibr_result_hops(r, a, b), d[(size_t)a * n + b]);
            CU_ASSERT_EQUAL(ibr_topo_switch_distance(t, a, b), d[(size_t)a * n + b]);
        }
    free(d);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"single switch", test_single_switch},
        {"empty fabric and CA pair", test_empty_and_ca_only},
        {"parallel links, hand-computed", test_parallel_links},
        {"families: valid and minimal", test_families},
        {"faults: valid and minimal", test_faults},
        {"balance on full fat trees", test_balance},
        {"determinism, threads, scatter, shifting", test_determinism},
        {"LMC path diversity", test_lmc},
        {"guid routing order and ignored ports", test_routing_order_and_ignore},
        {"hop matrix", test_hop_matrix},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("minhop", tests);
}
