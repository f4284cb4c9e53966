/*
 * Repair in place of up/down routings (updn, dnup; ftree on fat trees)
 * from the routing database, under the saved orientation of the links:
 * after seeded single-cable and single-switch faults on 2- and 3-level fat
 * trees, a torus and a random graph (updn, dnup), and when the element
 * comes back, every answer is valid (ibr_result_verify()), free of credit
 * loops by the independent walk, an entry whose saved route crosses no
 * lost element is unchanged, and the report's changed LFT entries and
 * blocks are those a recount finds. The database goes through its text form each time (the
 * orientation is saved with it); one without the orientation (an older
 * database) takes a full reroute that says why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibroute/sys/toolkit.h"
#include "repair_check.h"

/* r's database through its text; with strip, without its upos lines (as
   an ibroute that did not keep the orientation wrote it). */
static ibr_routing_db *db_of(const ibr_result *r, int strip)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, r), 0);
    char *text = malloc(b.size + 64);
    size_t k = 0, seen = 0;
    for (const char *p = b.data; p < b.data + b.size;) {
        const char *nl = memchr(p, '\n', (size_t)(b.data + b.size - p));
        size_t n = (size_t)(nl - p) + 1;
        int up = !strncmp(p, "upos ", 5);
        seen += up;
        if ((!strip || !up) && strncmp(p, "end ", 4) != 0) {
            memcpy(text + k, p, n);
            k += n;
        }
        p += n;
    }
    /* an up/down routing keeps its orientation */
    CU_ASSERT(seen == ibr_topo_switch_count(ibr_result_topo(r)));
    k += (size_t)sprintf(text + k, "end %016llx\n", (unsigned long long)ibr_test_fnv(text, k));
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, text, k), 0);
    free(text);
    ibr_buffer_dispose(&b);
    return db;
}

/* Is the saved route of old from switch s toward lid over cables all up
   in t (same switch indices)? */
static int intact(const ibr_result *old, const ibr_topo *t, uint32_t s, uint16_t lid)
{
    const ibr_topo *t0 = ibr_result_topo(old);
    uint32_t S = ibr_topo_switch_count(t0);
    for (uint32_t n = 0; n <= S; n++) {
        unsigned op = ibr_result_lft_port(old, s, lid);
        if (op == IBR_NO_ROUTE)
            return 0;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, s), op);
        if (pi.state != IBR_LINK_ACTIVE || pi.remote_node == IBR_NONE)
            return 0;
        if (op == 0 || ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
            return 1; /* delivered */
        s = ibr_topo_node_switch(t, pi.remote_node);
    }
    return 0;
}

/* A full reroute saying that a switch has no legal up/down route to
   another, checked by a search of its own: over (switch, phase) states
   under the saved places (old's upos records, switch by switch) on t's
   links, a first-phase step toward a smaller place, a second-phase step
   toward a larger one and never a first-phase step after it, the first
   switch does not reach the second. */
static unsigned no_route_checked;

static void check_no_route(const ibr_result *old, const ibr_topo *t, const char *reason,
                           const char *what)
{
    unsigned long long ga = 0, gb = 0;
    if (sscanf(reason, "switch 0x%llx has no legal up/down route to switch 0x%llx", &ga, &gb) != 2)
        return;
    no_route_checked++;
    uint32_t S = ibr_topo_switch_count(t);
    CU_ASSERT_EQUAL_FATAL(S, ibr_topo_switch_count(ibr_result_topo(old)));
    uint32_t *pos = calloc(S, sizeof *pos), *stack = malloc(2 * S * sizeof *stack), n = 0;
    uint8_t *seen = calloc(2 * (size_t)S, 1);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, old), 0);
    for (const char *p = b.data; p && p < b.data + b.size;) {
        if (!strncmp(p, "upos ", 5) && n < S)
            pos[n++] = (uint32_t)strtoul(p + 5, NULL, 10);
        p = memchr(p, '\n', (size_t)(b.data + b.size - p));
        p = p ? p + 1 : NULL;
    }
    ibr_buffer_dispose(&b);
    CU_ASSERT_EQUAL_FATAL(n, S);
    uint32_t from = IBR_NONE, to = IBR_NONE;
    for (uint32_t s = 0; s < S; s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        from = ni.node_guid == ga ? s : from;
        to = ni.node_guid == gb ? s : to;
    }
    CU_ASSERT_FATAL(from != IBR_NONE && to != IBR_NONE);
    const uint32_t *off;
    const ibr_switch_link *lk;
    ibr_topo_switch_links(&off, &lk, t);
    uint32_t top = 0, reached = 0;
    stack[top++] = from * 2;
    seen[from * 2] = 1;
    while (top) {
        uint32_t st = stack[--top], x = st / 2, second = st % 2;
        reached |= x == to;
        for (uint32_t k = off[x]; k < off[x + 1]; k++) {
            uint32_t y = lk[k].sw, ns = y * 2 + (pos[y] > pos[x]);
            if ((pos[y] < pos[x] && second) || seen[ns])
                continue;
            seen[ns] = 1;
            stack[top++] = ns;
        }
    }
    if (reached)
        fprintf(stderr, "\n%s: %s, yet a legal route exists\n", what, reason);
    CU_ASSERT_EQUAL(reached, 0);
    /* both ends are still cabled to the fabric: a route was owed */
    CU_ASSERT(off[from] < off[from + 1] && off[to] < off[to + 1]);
    free(pos);
    free(stack);
    free(seen);
}

typedef struct tally {
    unsigned repaired, full;
} tally;

/* y, the answer of rerouting old onto t (report rep): valid, loop-free by
   the walk, and for a repair the unmoved entries and the counts. */
static void check_answer(const ibr_result *old, const ibr_result *y, const ibr_reroute_report *rep,
                         const char *what, int back)
{
    const ibr_topo *t = ibr_result_topo(y);
    const ibr_topo *t0 = ibr_result_topo(old);
    ibr_test_check_answer(y, what);
    if (rep->mode != IBR_REROUTE_INCREMENTAL)
        return;
    uint32_t S = ibr_topo_switch_count(t);
    CU_ASSERT_EQUAL_FATAL(S, ibr_topo_switch_count(t0));
    uint16_t maxl = ibr_topo_max_lid(t);
    CU_ASSERT_EQUAL_FATAL(maxl, ibr_topo_max_lid(t0));
    uint64_t ents = 0, blocks = 0, moved_bad = 0;
    for (uint32_t s = 0; s < S; s++) {
        ibr_node_info n1 = IBR_NODE_INFO_INIT, n0 = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&n1, t, ibr_topo_switch_node(t, s));
        ibr_topo_node_info(&n0, t0, ibr_topo_switch_node(t0, s));
        CU_ASSERT_EQUAL_FATAL(n1.node_guid, n0.node_guid);
        uint64_t last_block = UINT64_MAX;
        for (unsigned l = 0; l <= maxl; l++) {
            unsigned a = ibr_result_lft_port(old, s, (uint16_t)l);
            unsigned b = ibr_result_lft_port(y, s, (uint16_t)l);
            if (a == b)
                continue;
            ents += l > 0;
            if (l / 64 != last_block) {
                blocks++;
                last_block = l / 64;
            }
            /* a route over cables all still up stays (faults only: a cable
               that comes back may give a switch a second-phase route) */
            moved_bad += !back && l > 0 && intact(old, t, s, (uint16_t)l);
        }
    }
    if (ents != rep->lft_entries_changed || blocks != rep->lft_blocks_changed || moved_bad)
        fprintf(stderr, "\n%s: recount %llu entries %llu blocks, report %llu %llu; %llu intact "
                        "entries moved\n",
                what, (unsigned long long)ents, (unsigned long long)blocks,
                (unsigned long long)rep->lft_entries_changed,
                (unsigned long long)rep->lft_blocks_changed, (unsigned long long)moved_bad);
    CU_ASSERT_EQUAL(ents, rep->lft_entries_changed);
    CU_ASSERT_EQUAL(blocks, rep->lft_blocks_changed);
    CU_ASSERT_EQUAL(moved_bad, 0);
    CU_ASSERT_EQUAL(rep->sls_changed, 0);
}

/* old rerouted from its database (through text) onto t; checked, then
   returned. */
static ibr_result *reroute(const ibr_result *old, const ibr_topo *t, tally *ty, const char *what,
                           int back)
{
    ibr_routing_db *db = db_of(old, 0);
    ibr_result *y = NULL;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    int rc = ibr_routing_db_route(&y, &rep, db, t, NULL, 0);
    ibr_routing_db_destroy(db);
    if (rc != 0)
        fprintf(stderr, "\n%s: %s (%s)\n", what, ibr_status_name(rc), rep.reason);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(rep.engine, ibr_result_engine(old));
    if (rep.mode == IBR_REROUTE_INCREMENTAL) {
        ty->repaired++;
    } else {
        ty->full++;
        CU_ASSERT(rep.reason[0] != 0);
        fprintf(stderr, "\n%s: full reroute: %s\n", what, rep.reason);
        check_no_route(old, t, rep.reason, what);
    }
    check_answer(old, y, &rep, what, back);
    return y;
}

/* Seeded faults on spec routed by chain: faults repaired (tally f), their
   return (tally b: a cable back is repaired, a switch back is new and
   takes a full reroute). */
static void faults_on(const char *spec, const char *chain, uint64_t seeds, tally *f, tally *b)
{
    ibr_fabric *fab = ibr_test_fabric(spec);
    ibr_topo *t0 = ibr_test_freeze(fab);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, chain, NULL), 0);
    for (uint64_t seed = 1; seed <= seeds; seed++)
        for (unsigned kind = 0; kind < 2; kind++) {
            ibr_fabric *g = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, fab), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(g, kind == 0, kind == 1, seed), 0);
            ibr_topo *t1 = ibr_test_freeze(g);
            char what[200];
            snprintf(what, sizeof what, "%s %s seed %llu %s", spec, chain,
                     (unsigned long long)seed, kind ? "switch" : "cable");
            ibr_result *y = reroute(r0, t1, f, what, 0);
            strncat(what, " back", sizeof what - strlen(what) - 1);
            ibr_result *z = reroute(y, t0, b, what, 1);
            ibr_result_destroy(z);
            ibr_result_destroy(y);
            ibr_topo_destroy(t1);
            ibr_fabric_destroy(g);
        }
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(fab);
}

/* engine on the fat trees, and with others on a torus and a random graph
   too (ftree routes fat trees only). */
static void run_families(const char *engine, int others_too)
{
    char chain[64];
    snprintf(chain, sizeof chain, "%s,no_fallback", engine);
    static const char *const trees[] = {"fattree:levels=2,radix=12",
                                        "xgft:h=3,m=4.4.4,w=1.4.4"};
    static const char *const others[] = {"torus:dims=4x4x3,hosts=2",
                                         "random:switches=24,degree=4,hosts=2,seed=3"};
    tally f = {0, 0}, b = {0, 0};
    /* fat trees: every fault repaired in place */
    for (size_t i = 0; i < 2; i++)
        faults_on(trees[i], chain, 4, &f, &b);
    CU_ASSERT_EQUAL(f.full, 0);
    CU_ASSERT_EQUAL(f.repaired, 16);
    /* a cable back is repaired, a switch back (new) is a full reroute */
    CU_ASSERT_EQUAL(b.repaired, 8);
    CU_ASSERT_EQUAL(b.full, 8);
    if (!others_too)
        return;
    /* a torus and a random graph: repairs are the rule, a full reroute
       (no legal route under the saved orientation) the exception */
    tally g = {0, 0}, c = {0, 0};
    for (size_t i = 0; i < 2; i++)
        faults_on(others[i], chain, 4, &g, &c);
    fprintf(stderr, "\n%s: torus and random graph: %u repaired in place, %u full reroutes\n",
            engine, g.repaired, g.full);
    CU_ASSERT(g.repaired >= 3 * g.full);
    CU_ASSERT(g.repaired > 0);
}

static void test_updn(void)
{
    run_families("updn", 1);
}

static void test_dnup(void)
{
    run_families("dnup", 1);
}

/* ftree keeps its ranks as the orientation where its routes are all up
   then down */
static void test_ftree(void)
{
    run_families("ftree", 0);
}

/* Faults after which some switch has no legal route under the saved
   orientation (a dragonfly and a random graph, updn and dnup): the full
   reroute is decided before any repair work, and each such verdict is
   confirmed by the search of check_no_route(); every answer is valid and
   loop-free, and the other faults are repaired in place. */
static void test_cut_off(void)
{
    static const char *const specs[] = {"dragonfly:a=4,p=2,h=2,g=9",
                                        "random:switches=40,degree=4,hosts=2,seed=5"};
    static const char *const chains[] = {"updn,no_fallback", "dnup,no_fallback"};
    tally f = {0, 0}, b = {0, 0};
    no_route_checked = 0;
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 2; j++)
            faults_on(specs[i], chains[j], 8, &f, &b);
    fprintf(stderr, "\ncut off: %u repaired, %u full (%u without a legal route, confirmed)\n",
            f.repaired, f.full, no_route_checked);
    CU_ASSERT(no_route_checked >= 4);
    CU_ASSERT(f.repaired >= 3 * f.full);
}

/* A database without the orientation (written before it was kept) loads
   and takes a full reroute saying why; with it, the same fault is
   repaired in place. */
static void test_old_database(void)
{
    ibr_fabric *fab = ibr_test_fabric("fattree:levels=2,radix=12");
    ibr_topo *t0 = ibr_test_freeze(fab);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "updn,no_fallback", NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(fab, 1, 0, 1), 0);
    ibr_topo *t1 = ibr_test_freeze(fab);
    for (int strip = 0; strip < 2; strip++) {
        ibr_routing_db *db = db_of(r0, strip);
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
        CU_ASSERT_EQUAL(rep.mode, strip ? IBR_REROUTE_FULL : IBR_REROUTE_INCREMENTAL);
        if (strip)
            CU_ASSERT_PTR_NOT_NULL(strstr(rep.reason, "orientation"));
        ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
        CU_ASSERT_EQUAL(ibr_result_verify(&v, y), 0);
        CU_ASSERT_EQUAL(v.pairs_ok, v.pairs);
        CU_ASSERT_EQUAL(ibr_test_credit_loops(y), 0);
        ibr_result_destroy(y);
        ibr_routing_db_destroy(db);
    }
    ibr_topo_destroy(t1);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(fab);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"updn: faults repaired in place, loop-free, unmoved entries kept, counts exact",
         test_updn},
        {"dnup: faults repaired in place, loop-free, unmoved entries kept, counts exact",
         test_dnup},
        {"ftree: faults on fat trees repaired in place, loop-free, unmoved entries kept, "
         "counts exact",
         test_ftree},
        {"a database without the orientation: full reroute, saying why", test_old_database},
        {"no legal route under the saved orientation: full reroute, the verdict confirmed",
         test_cut_off},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("repair_updn", tests);
}
