/* updn and dnup: legality of every route against independently computed
   ranks, completeness, credit-loop freedom, root detection and options. */
#include <inttypes.h>
#include <stdio.h>
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

/* Irregular fabrics with roots given (the heuristic finds none): every
   route is legal and loop-free. */
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
            /* no roots given, none found by OpenSM's heuristic: updn
               chooses its own and says so (test_updn_chosen_roots) */
            ibr_result *r = NULL;
            CU_ASSERT_EQUAL(ibr_route(&r, t, "updn", NULL), 0);
            CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "updn");
            const void *note;
            size_t note_size;
            CU_ASSERT_EQUAL(ibr_result_find_artifact(&note, &note_size, r, "updn-roots.txt"), 0);
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

/* A switch of nports ports with hosts CAs on its last ports; returns its
   index. GUIDs from *g, which advances. */
static uint32_t add_switch_hosts(ibr_fabric *f, uint64_t *g, unsigned nports, unsigned hosts,
                                 const char *desc)
{
    uint32_t s;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&s, f, IBR_NODE_SWITCH, *g, nports, desc), 0);
    *g += 0x100;
    for (unsigned h = 0; h < hosts; h++) {
        uint32_t ca;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&ca, f, IBR_NODE_CA, *g, 1, "host"), 0);
        *g += 0x100;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, s, nports - h, ca, 1, NULL), 0);
    }
    return s;
}

/* Dragonfly+: groups of `leaves` leaf switches (hosts each) fully cabled
   to `spines` spine switches; every spine has `glob` global cables and
   every two groups are joined by one (spines x glob + 1 groups). ctx:
   the fabric's context (NULL: the default). */
static ibr_fabric *make_dfplus(ibr_context *ctx, unsigned leaves, unsigned spines, unsigned glob,
                               unsigned hosts)
{
    unsigned groups = spines * glob + 1;
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    uint64_t g = 0x0002c90200000000ULL;
    uint32_t *sp = malloc(sizeof *sp * groups * spines);
    unsigned *next = calloc(groups * spines, sizeof *next);
    for (unsigned k = 0; k < groups; k++) {
        for (unsigned s = 0; s < spines; s++)
            sp[k * spines + s] = add_switch_hosts(f, &g, leaves + glob, 0, "spine");
        for (unsigned l = 0; l < leaves; l++) {
            uint32_t lf = add_switch_hosts(f, &g, spines + hosts, hosts, "leaf");
            for (unsigned s = 0; s < spines; s++)
                CU_ASSERT_EQUAL_FATAL(
                    ibr_fabric_add_link(f, lf, s + 1, sp[k * spines + s], l + 1, NULL), 0);
        }
    }
    /* group a's i-th other group b uses a's spine i / glob */
    for (unsigned a = 0; a < groups; a++)
        for (unsigned b = a + 1; b < groups; b++) {
            unsigned ia = b - 1, ib = a; /* indices among the other groups */
            unsigned sa = a * spines + ia / glob, sb = b * spines + ib / glob;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, sp[sa], leaves + 1 + next[sa]++, sp[sb],
                                                      leaves + 1 + next[sb]++, NULL),
                                  0);
        }
    free(sp);
    free(next);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 0, IBR_LIDS_REASSIGN), 0);
    return f;
}

/* HyperX: an x by y grid of switches (hosts each) where every row and
   every column is fully cabled. */
static ibr_fabric *make_hyperx(unsigned x, unsigned y, unsigned hosts)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    uint64_t g = 0x0002c90200000000ULL;
    unsigned nports = (x - 1) + (y - 1) + hosts;
    uint32_t *sw = malloc(sizeof *sw * x * y);
    for (unsigned i = 0; i < x * y; i++)
        sw[i] = add_switch_hosts(f, &g, nports, hosts, "hyperx");
    for (unsigned i = 0; i < x * y; i++)
        for (unsigned j = i + 1; j < x * y; j++) {
            unsigned xi = i % x, yi = i / x, xj = j % x, yj = j / x;
            int rc = 0;
            if (yi == yj) /* row link: port by the other's column */
                rc = ibr_fabric_add_link(f, sw[i], xj > xi ? xj : xj + 1, sw[j],
                                         xi > xj ? xi : xi + 1, NULL);
            else if (xi == xj) /* column link: ports after the row's */
                rc = ibr_fabric_add_link(f, sw[i], x - 1 + (yj > yi ? yj : yj + 1), sw[j],
                                         x - 1 + (yi > yj ? yi : yi + 1), NULL);
            CU_ASSERT_EQUAL_FATAL(rc, 0);
        }
    free(sw);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 0, IBR_LIDS_REASSIGN), 0);
    return f;
}

/* The test's own credit-loop check: channels are directed switch-to-switch
   links (switch, port); every (switch, LID) forwarding entry whose next
   switch forwards on to another switch makes the first channel depend on
   the second, for packets from any switch (a superset of the end ports'
   dependencies). Returns 1 when that graph has a cycle (depth-first
   search with colours), 0 when it is acyclic. */
static int cdg_has_cycle(const ibr_topo *t, const ibr_result *r)
{
    uint32_t n = ibr_topo_switch_count(t);
    size_t nch = (size_t)n * 256;
    uint32_t *cnt = calloc(nch + 1, sizeof *cnt), *off = calloc(nch + 2, sizeof *off);
    /* pass 0 counts the edges of each channel, pass 1 stores them */
    uint32_t *to = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned lid = 1; lid <= ibr_topo_max_lid(t); lid++)
            for (uint32_t s = 0; s < n; s++) {
                unsigned p = ibr_result_lft_port(r, s, (uint16_t)lid);
                if (p == IBR_NO_ROUTE || p == 0)
                    continue;
                uint32_t b = sw_of_port(t, ibr_topo_switch_node(t, s), p);
                if (b == IBR_NONE)
                    continue;
                unsigned q = ibr_result_lft_port(r, b, (uint16_t)lid);
                if (q == IBR_NO_ROUTE || q == 0 ||
                    sw_of_port(t, ibr_topo_switch_node(t, b), q) == IBR_NONE)
                    continue;
                size_t c = (size_t)s * 256 + p;
                if (pass == 0)
                    cnt[c]++;
                else
                    to[off[c] + --cnt[c]] = b * 256 + q;
            }
        if (pass == 0) {
            for (size_t c = 0; c < nch; c++)
                off[c + 1] = off[c] + cnt[c];
            to = malloc(sizeof *to * (off[nch] + 1));
        }
    }
    uint8_t *colour = calloc(nch, 1); /* 0 new, 1 on the stack, 2 done */
    uint32_t *stack = malloc(sizeof *stack * (nch + 1)), *it = calloc(nch, sizeof *it);
    int cycle = 0;
    for (size_t c0 = 0; c0 < nch && !cycle; c0++) {
        if (colour[c0])
            continue;
        size_t sp = 0;
        stack[sp++] = (uint32_t)c0;
        colour[c0] = 1;
        while (sp && !cycle) {
            uint32_t c = stack[sp - 1];
            if (off[c] + it[c] < off[c + 1]) {
                uint32_t d = to[off[c] + it[c]++];
                if (colour[d] == 1)
                    cycle = 1;
                else if (colour[d] == 0) {
                    colour[d] = 1;
                    stack[sp++] = d;
                }
            } else {
                colour[c] = 2;
                sp--;
            }
        }
    }
    free(cnt);
    free(off);
    free(to);
    free(colour);
    free(stack);
    free(it);
    return cycle;
}

/* Per switch: hops to the farthest switch carrying end ports (the test's
   own breadth-first searches). */
static void end_port_eccentricity(const ibr_topo *t, uint32_t *ecc)
{
    uint32_t n = ibr_topo_switch_count(t);
    ranks rk = {n, malloc(sizeof(uint32_t) * n + 4), NULL};
    int *has_ep = calloc(n, sizeof *has_ep);
    for (uint32_t node = 0; node < ibr_topo_node_count(t); node++)
        if (ibr_topo_node_switch(t, node) == IBR_NONE) {
            uint32_t s = sw_of_port(t, node, 1);
            if (s != IBR_NONE)
                has_ep[s] = 1;
        }
    for (uint32_t x = 0; x < n; x++) {
        for (uint32_t s = 0; s < n; s++)
            rk.rank[s] = s == x ? 0 : INF;
        bfs_rank(t, &rk);
        ecc[x] = 0;
        for (uint32_t s = 0; s < n; s++)
            if (has_ep[s] && rk.rank[s] != INF && rk.rank[s] > ecc[x])
                ecc[x] = rk.rank[s];
    }
    free(rk.rank);
    free(has_ep);
}

/* Where OpenSM's heuristic finds no root and none is given, updn chooses
   roots: on every family, with and without faults, it routes (no
   fallback), the verifier says valid and credit-loop free, the test's own
   CDG walk finds no loop on one VL, every route is legal under ranks
   rebuilt from the roots reported, and the roots are named: the top
   (spines) of a Dragonfly+, the centre elsewhere. dnup routes them too. */
static void test_updn_chosen_roots(void)
{
    enum { SPEC, DFPLUS, HYPERX };
    static const struct {
        int kind;
        const char *spec;
    } cases[] = {
        {SPEC, "torus:dims=4x4x4,hosts=2"},
        {SPEC, "mesh:dims=5x4,hosts=1"},
        {SPEC, "hypercube:dim=6,hosts=2"},
        {SPEC, "dragonfly:a=4,p=2,h=2,g=9"},
        {SPEC, "random:switches=40,degree=4,hosts=2,seed=9"},
        {DFPLUS, "dragonfly+ 4 leaves, 4 spines, 2 global links"},
        {HYPERX, "hyperx 4x3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int faults = 0; faults <= 1; faults++) {
            ibr_fabric *f = NULL;
            if (cases[i].kind == DFPLUS)
                f = make_dfplus(NULL, 4, 4, 2, 3);
            else if (cases[i].kind == HYPERX)
                f = make_hyperx(4, 3, 2);
            else {
                ibr_fabric_create(&f, NULL);
                CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, cases[i].spec), 0);
            }
            if (faults)
                CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 3, 0, 5 + i), 0);
            ibr_topo *t = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
            ibr_result *r = route_checked(t, "updn,no_fallback", NULL);
            CU_ASSERT_PTR_NOT_NULL(r);
            if (!r)
                fprintf(stderr, "updn: %s, faults %d\n", cases[i].spec, faults);
            if (r) {
                CU_ASSERT_EQUAL(cdg_has_cycle(t, r), 0);
                ranks rk;
                updn_ranks(t, r, &rk);
                CU_ASSERT_EQUAL(illegal_routes(t, r, &rk), 0);
                /* the note names the roots */
                const void *data;
                size_t size;
                CU_ASSERT_EQUAL_FATAL(ibr_result_find_artifact(&data, &size, r, "updn-roots.txt"),
                                      0);
                char *note = malloc(size + 1);
                memcpy(note, data, size);
                note[size] = 0;
                CU_ASSERT_EQUAL(strncmp(note, "roots: ", 7), 0);
                /* the top of an intact Dragonfly+; a dead cable may leave
                   spines of two groups without a legal path between them,
                   and then the centre (one root) routes instead */
                int top = strstr(note, "the top") != NULL;
                CU_ASSERT(top || strstr(note, "the centre"));
                if (cases[i].kind == DFPLUS && !faults)
                    CU_ASSERT(top);
                if (cases[i].kind != DFPLUS)
                    CU_ASSERT(!top);
                uint32_t *ecc = malloc(sizeof *ecc * rk.n + 4), min_ecc = INF, nroots = 0;
                end_port_eccentricity(t, ecc);
                for (uint32_t s = 0; s < rk.n; s++)
                    min_ecc = ecc[s] < min_ecc ? ecc[s] : min_ecc;
                for (uint32_t s = 0; s < rk.n; s++) {
                    ibr_node_info ni = IBR_NODE_INFO_INIT;
                    ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
                    int spine = !strcmp(ni.desc, "spine");
                    if (rk.rank[s] != 0) {
                        /* every spine of a Dragonfly+ is a root */
                        CU_ASSERT(!(top && spine));
                        continue;
                    }
                    char guid[40];
                    snprintf(guid, sizeof guid, "0x%016" PRIx64, ni.node_guid);
                    if (nroots++ < 8)
                        CU_ASSERT_PTR_NOT_NULL(strstr(note, guid));
                    if (top) {
                        CU_ASSERT(spine);
                    } else { /* the one root is a centre */
                        CU_ASSERT_EQUAL(ecc[s], min_ecc);
                    }
                }
                CU_ASSERT(top ? nroots == 9 * 4 : nroots == 1);
                free(ecc);
                free(note);
                free(rk.rank);
                free(rk.id);
                ibr_result_destroy(r);
            }
            r = route_checked(t, "dnup,no_fallback", NULL);
            CU_ASSERT_PTR_NOT_NULL(r);
            if (!r)
                fprintf(stderr, "dnup: %s, faults %d\n", cases[i].spec, faults);
            if (r) {
                CU_ASSERT_EQUAL(cdg_has_cycle(t, r), 0);
                /* a dnup that had to route up/down from a centre says so */
                const void *data;
                size_t size;
                if (ibr_result_find_artifact(&data, &size, r, "updn-roots.txt") == 0) {
                    char *note = malloc(size + 1);
                    memcpy(note, data, size);
                    note[size] = 0;
                    CU_ASSERT_PTR_NOT_NULL(strstr(note, "dnup's ranks"));
                    free(note);
                }
            }
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

/* The generated low-diameter families (ibr gen dfplus, hyperx, slimfly):
   updn, dnup and dfsssp route them on their own (no fallback), every
   route delivered, no credit loop by the verifier and by the harness's
   independent walk, updn's routes legal under the ranks of the roots it
   names; on the intact Dragonfly+ updn takes the spines as roots. */
static void test_generated_direct(void)
{
    static const char *specs[] = {"dfplus:groups=5,leaves=3,spines=3,hosts=1",
                                  "hyperx:dims=4x3,hosts=1", "slimfly:q=5,hosts=1"};
    static const char *chains[] = {"updn,no_fallback", "dnup,no_fallback", "dfsssp,no_fallback"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        ibr_fabric *f = NULL;
        ibr_fabric_create(&f, NULL);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[i]), 0);
        ibr_topo *t = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
            ibr_result *r = route_checked(t, chains[k], NULL);
            CU_ASSERT_PTR_NOT_NULL(r);
            if (!r) {
                fprintf(stderr, "%s: %s\n", specs[i], chains[k]);
                continue;
            }
            CU_ASSERT_EQUAL(ibr_test_credit_loops(r), 0);
            if (k < 2) /* one VL: the plain channel dependency graph */
                CU_ASSERT_EQUAL(cdg_has_cycle(t, r), 0);
            if (k == 0) {
                ranks rk;
                updn_ranks(t, r, &rk);
                CU_ASSERT_EQUAL(illegal_routes(t, r, &rk), 0);
                uint32_t nroots = 0;
                for (uint32_t s = 0; s < rk.n; s++) {
                    ibr_node_info ni = IBR_NODE_INFO_INIT;
                    ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
                    if (rk.rank[s] == 0) {
                        nroots++;
                        if (i == 0)
                            CU_ASSERT_PTR_NOT_NULL(strstr(ni.desc, "-S"));
                    }
                }
                CU_ASSERT(i == 0 ? nroots == 5 * 3 : nroots >= 1);
                free(rk.rank);
                free(rk.id);
            }
            ibr_result_destroy(r);
        }
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

/* Where OpenSM's heuristic finds roots, they are kept and nothing is
   added: no note, the roots of the tree (the tables stay OpenSM's; the
   OpenSM comparison suite checks them byte for byte). */
static void test_updn_opensm_roots_kept(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=3,radix=8");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = route_checked(t, "updn,no_fallback", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const void *data;
    size_t size;
    CU_ASSERT_NOT_EQUAL(ibr_result_find_artifact(&data, &size, r, "updn-roots.txt"), 0);
    CU_ASSERT_EQUAL(ibr_result_find_artifact(&data, &size, r, "opensm-updn-roots.dump"), 0);
    CU_ASSERT_EQUAL(ibr_result_artifact_count(r), 1);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Allocation failures while updn and dnup choose their roots (the centre;
   the top of a Dragonfly+ with dead cables, where updn retries from the
   centre and dnup falls back to up/down from it): IBR_ENOMEM and
   nothing leaked, then the same tables as without failures. */
static void test_chosen_roots_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_topo *tor = ibr_test_topo(ctx, "torus:dims=3x3x3,hosts=1");
    ibr_fabric *f = make_dfplus(ctx, 4, 4, 2, 3);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 3, 0, 10), 0);
    ibr_topo *dfp = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&dfp, f), 0);
    const ibr_topo *topos[] = {tor, dfp};
    static const char *chains[] = {"updn,no_fallback", "dnup,no_fallback"};
    long base = st.live;
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 2; c++) {
            ibr_result *ref = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, topos[k], chains[c], NULL), 0);
            const void *data;
            size_t size;
            int found = ibr_result_find_artifact(&data, &size, ref, "updn-roots.txt");
            if ((found == 0) != (c == 0 || k == 1))
                fprintf(stderr, "k %d c %d: find %d\n", k, c, found);
            CU_ASSERT_EQUAL_FATAL(found == 0, c == 0 || k == 1);
            if (k == 1) { /* the retry paths ran: the top failed, then the centre */
                char *note = malloc(size + 1);
                memcpy(note, data, size);
                note[size] = 0;
                CU_ASSERT_PTR_NOT_NULL(strstr(note, "the centre"));
                CU_ASSERT_PTR_NOT_NULL(strstr(note, c ? "dnup's ranks" : "OpenSM's"));
                free(note);
            }
            long n;
            ibr_result *r = ibr_test_route_oom(&n, &st, topos[k], chains[c], NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT(n > 10);
            for (uint32_t s = 0; s < ibr_topo_switch_count(topos[k]); s++)
                CU_ASSERT_EQUAL(memcmp(ibr_result_lft(r, s), ibr_result_lft(ref, s),
                                       ibr_result_lft_size(r)),
                                0);
            ibr_result_destroy(r);
            ibr_result_destroy(ref);
            CU_ASSERT_EQUAL(st.live, base);
        }
    ibr_topo_destroy(tor);
    ibr_topo_destroy(dfp);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
    CU_ASSERT_EQUAL(st.live, 0);
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
        {"updn chooses roots where OpenSM finds none", test_updn_chosen_roots},
        {"updn keeps OpenSM's roots", test_updn_opensm_roots_kept},
        {"updn, dnup, dfsssp on generated Dragonfly+, HyperX, Slim Fly", test_generated_direct},
        {"chosen roots: allocation failures", test_chosen_roots_oom},
        {"connect_roots and LMC", test_connect_roots_and_lmc},
        {"ids and balance", test_ids_and_balance},
        {"irregular graphs: legal and loop-free", test_irregular_sweep},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("updn", tests);
}
