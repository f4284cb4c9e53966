/*
 * Checks of a routing repaired from the routing database, shared by the
 * repair tests (test_repair_layered.c, test_repair_t2q.c): the answer is
 * valid, free of credit loops by the independent walk, a path whose route
 * did not change keeps its SL, a path that crossed no lost element keeps
 * its route, and the report's counts are those a recount finds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair_check.h"

/* The route from switch s toward lid as (switch, output port) steps into
   path (at most cap); returns its length, or -1 if it breaks or loops. */
static int route_of(const ibr_result *r, uint32_t s, uint32_t dsw, uint16_t lid, uint32_t *path,
                    int cap)
{
    const ibr_topo *t = ibr_result_topo(r);
    int n = 0;
    while (s != dsw) {
        unsigned op = ibr_result_lft_port(r, s, lid);
        if (op == IBR_NO_ROUTE || n == cap)
            return -1;
        path[n++] = s * 256 + op;
        s = ibr_test_sw_behind(t, ibr_topo_switch_node(t, s), op);
        if (s == IBR_NONE)
            return -1;
    }
    return n;
}

/* Base LIDs of every SL row (end ports cabled to a switch, and
   switches), as the report counts path SLs. */
size_t ibr_test_src_lids(const ibr_topo *t, uint16_t **out)
{
    size_t n = 0, cap = ibr_topo_endport_count(t) + ibr_topo_switch_count(t) + 1;
    uint16_t *v = malloc(cap * sizeof *v);
    for (uint32_t node = 0; node < ibr_topo_node_count(t); node++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        int sw = ibr_topo_node_switch(t, node) != IBR_NONE;
        for (unsigned p = sw ? 0 : 1; p <= (sw ? 0 : ni.nports); p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, node, p);
            /* an end port without an active cable has no SL row */
            if (pi.lid && n < cap && (sw || ibr_test_sw_behind(t, node, p) != IBR_NONE))
                v[n++] = pi.lid;
        }
    }
    *out = v;
    return n;
}


/* Check y (the answer of rerouting the saved routing `old` onto y's
   topology, report rep): valid, loop-free by the walk, a path whose route
   is unchanged keeps its SL, a path that crossed no element lost in y's
   topology keeps its route (repairs), and the counts of rep. */
void ibr_test_check_repair(const ibr_result *old, const ibr_result *y,
                           const ibr_reroute_report *rep, const char *what)
{
    const ibr_topo *t = ibr_result_topo(y);
    const ibr_topo *t0 = ibr_result_topo(old);
    ibr_test_check_answer(y, what);
    if (rep->mode != IBR_REROUTE_INCREMENTAL)
        return;
    ibr_test_endp *e;
    size_t n = ibr_test_end_ports(t, &e);
    uint32_t S = ibr_topo_switch_count(t);
    uint32_t *p0 = malloc(S * sizeof *p0), *p1 = malloc(S * sizeof *p1);
    uint64_t kept_bad = 0, moved_bad = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            if (e[a].sw == e[b].sw)
                continue;
            int n0 = route_of(old, e[a].sw, e[b].sw, e[b].lid, p0, (int)S);
            int n1 = route_of(y, e[a].sw, e[b].sw, e[b].lid, p1, (int)S);
            int same = n0 >= 0 && n0 == n1 && !memcmp(p0, p1, (size_t)n0 * sizeof *p0);
            unsigned s0 = ibr_result_path_sl(old, e[a].lid, e[b].lid);
            unsigned s1 = ibr_result_path_sl(y, e[a].lid, e[b].lid);
            kept_bad += same && s0 != s1;
            /* the old route over cables all still up in t: unchanged */
            int intact = n0 >= 0;
            for (int i = 0; i < n0 && intact; i++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, p0[i] / 256), p0[i] % 256);
                intact = pi.state == IBR_LINK_ACTIVE && pi.remote_node != IBR_NONE;
            }
            /* a cable that came back may shorten it: only faults here */
            moved_bad += intact && !same && ibr_topo_switch_count(t0) == S && rep->changes &&
                         strstr(what, "back") == NULL;
        }
    if (kept_bad || moved_bad)
        fprintf(stderr, "\n%s: %llu unchanged routes changed SL, %llu intact routes moved\n",
                what, (unsigned long long)kept_bad, (unsigned long long)moved_bad);
    CU_ASSERT_EQUAL(kept_bad, 0);
    CU_ASSERT_EQUAL(moved_bad, 0);
    /* the report's counts, recounted */
    uint64_t sls = 0, ents = 0;
    uint16_t *srcs;
    size_t ns = ibr_test_src_lids(t, &srcs);
    uint16_t maxl = ibr_topo_max_lid(t);
    /* both per destination: one entry per LID, as the report counts */
    int per_dest = ibr_result_sl_mode(y) == IBR_SL_PER_DEST &&
                   ibr_result_sl_mode(old) == IBR_SL_PER_DEST;
    for (size_t i = 0; i < (per_dest ? 1 : ns); i++)
        for (unsigned l = 1; l <= maxl; l++)
            sls += ibr_result_path_sl(old, srcs[i], (uint16_t)l) !=
                   ibr_result_path_sl(y, srcs[i], (uint16_t)l);
    for (uint32_t s = 0; s < S; s++)
        for (unsigned l = 1; l <= maxl; l++)
            ents += ibr_result_lft_port(old, s, (uint16_t)l) != ibr_result_lft_port(y, s, (uint16_t)l);
    if (sls != rep->sls_changed || ents != rep->lft_entries_changed)
        fprintf(stderr, "\n%s: recount %llu SLs %llu entries, report %llu %llu\n", what,
                (unsigned long long)sls, (unsigned long long)ents,
                (unsigned long long)rep->sls_changed,
                (unsigned long long)rep->lft_entries_changed);
    CU_ASSERT_EQUAL(sls, rep->sls_changed);
    CU_ASSERT_EQUAL(ents, rep->lft_entries_changed);
    free(srcs);
    free(e);
    free(p0);
    free(p1);
}

/* old routed on t0's fabric, rerouted from its database onto t; checked,
   then returned (NULL if the reroute failed). */
ibr_result *ibr_test_reroute(const ibr_result *old, const ibr_topo *t, ibr_test_tally *ty,
                             const char *what)
{
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, old), 0);
    ibr_result *y = NULL;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    int rc = ibr_routing_db_route(&y, &rep, db, t, NULL, 0);
    ibr_routing_db_destroy(db);
    if (rc != 0)
        fprintf(stderr, "\n%s: %s (%s)\n", what, ibr_status_name(rc), rep.reason);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (rep.mode == IBR_REROUTE_INCREMENTAL) {
        ty->repaired++;
    } else {
        ty->full++;
        CU_ASSERT(rep.reason[0] != 0);
        fprintf(stderr, "\n%s: full reroute: %s\n", what, rep.reason);
    }
    ibr_test_check_repair(old, y, &rep, what);
    return y;
}
