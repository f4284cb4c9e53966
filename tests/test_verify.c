/* The verifier on hand-built broken and valid tables, with hand-computed
   statistics. */
#define _POSIX_C_SOURCE 200809L /* strdup(): POSIX, not ISO C */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"

/* A custom engine that copies the LFTs of a reference result and then
   overwrites one entry. */
typedef struct mutation {
    const ibr_result *ref;
    uint32_t sw;
    uint16_t lid;
    unsigned port;
    int active;
    /* with rule_out: the hop matrix of ref is copied too, and says that sw
       cannot reach switch rule_dst under the engine's rules */
    int rule_out;
    uint32_t rule_dst;
} mutation;

static int copy_fn(ibr_run *run, void *user)
{
    mutation *m = user;
    const ibr_topo *t = ibr_run_topo(run);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        memcpy(ibr_run_lft(run, s), ibr_result_lft(m->ref, s), ibr_result_lft_size(m->ref));
    if (m->active)
        ibr_run_lft(run, m->sw)[m->lid] = (uint8_t)m->port;
    if (m->rule_out) {
        uint32_t n = ibr_topo_switch_count(t);
        uint8_t *h = ibr_run_hops(run);
        if (!h)
            return IBR_ENOMEM;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                h[(size_t)a * n + b] = (uint8_t)ibr_result_hops(m->ref, a, b);
        h[(size_t)m->sw * n + m->rule_dst] = 255;
    }
    return 0;
}

static mutation mut;
static ibr_context *ctx;

/* A ring of n switches (GUIDs ascending so switch index = ring position,
   port 1 to the next, port 2 to the previous), one host on port 3. */
static ibr_fabric *ring(unsigned n, int close)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, ctx);
    for (unsigned i = 0; i < n; i++)
        ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, (uint64_t)(i + 1) << 56, 4, "ring");
    for (unsigned i = 0; i + 1 < n || (close && i < n); i++)
        ibr_fabric_add_link(f, i, 1, (i + 1) % n, 2, NULL);
    for (unsigned i = 0; i < n; i++) {
        ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x1000 + 0x10 * i, 1, "h");
        ibr_fabric_add_link(f, n + i, 1, i, 3, NULL);
        /* host i gets LID 10 + i, switch i LID 1 + i */
        ibr_fabric_set_lid(f, i, 0, (uint16_t)(1 + i), 0);
        ibr_fabric_set_lid(f, n + i, 1, (uint16_t)(10 + i), 0);
    }
    return f;
}

static int run_mut(ibr_verify_report *rep, const ibr_topo *t, ibr_result *ref, uint32_t sw,
                   uint16_t lid, unsigned port)
{
    mut = (mutation){ref, sw, lid, port, 1};
    ibr_result *r = NULL;
    int rc = ibr_route(&r, t, "copy,no_fallback", NULL);
    CU_ASSERT_EQUAL(rc, 0);
    rep->version = IBR_VERIFY_REPORT_VERSION;
    rc = ibr_result_verify(rep, r);
    ibr_result_destroy(r);
    return rc;
}

static void test_line_statistics(void)
{
    ibr_fabric *f = ring(3, 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.routes_checked, 3 * 6);
    CU_ASSERT_EQUAL(rep.routes_ok, 18);
    CU_ASSERT_EQUAL(rep.pairs, 6);
    CU_ASSERT_EQUAL(rep.pairs_ok, 6);
    CU_ASSERT_DOUBLE_EQUAL(rep.avg_hops, 20.0 / 6.0, 1e-9);
    CU_ASSERT_EQUAL(rep.max_hops, 4);
    CU_ASSERT_DOUBLE_EQUAL(rep.avg_stretch, 1.0, 1e-9);
    CU_ASSERT_EQUAL(rep.links, 4);
    CU_ASSERT_EQUAL(rep.max_link_load, 2);
    CU_ASSERT_DOUBLE_EQUAL(rep.mean_link_load, 2.0, 1e-9);
    CU_ASSERT_EQUAL(rep.deadlock_free, 1); /* a line has no cycle */
    CU_ASSERT_EQUAL(rep.credit_loop_length, 0);
    CU_ASSERT_STRING_EQUAL(rep.first_error, "");
    /* version and argument checks */
    rep.version = 0;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EVERSION);
    rep.version = IBR_VERIFY_REPORT_VERSION;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, NULL), IBR_EINVAL);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_broken_tables(void)
{
    ibr_fabric *f = ring(4, 1);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    ibr_verify_report rep;
    /* host 2 (LID 12) is two hops from switch 0 either way */
    unsigned p0 = ibr_result_lft_port(ref, 0, 12);
    CU_ASSERT(p0 == 1 || p0 == 2);
    uint32_t mid = p0 == 1 ? 1 : 3; /* the switch after 0 on that way */
    /* missing entry */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, IBR_NO_ROUTE), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.missing, 1);
    CU_ASSERT_EQUAL(rep.routes_ok, rep.routes_checked - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "LID 12"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "no route"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "0x0100000000000000"));
    CU_ASSERT(rep.pairs_ok < rep.pairs);
    /* loop: the middle switch sends it back to switch 0 */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, mid, 12, mid == 1 ? 2 : 1), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.loops, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "forwarding loop"));
    /* port not cabled, port beyond the switch, port 0 */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 4), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 9), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 0), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    /* out through a host that is not the destination */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 3), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.dead_end, 1);
    /* the destination switch delivers to the wrong port: a loop back */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 2, 12, 1), IBR_EROUTES);
    CU_ASSERT(rep.loops >= 1);
    /* non-minimal but valid: switch 0 reaches host 1 the long way */
    CU_ASSERT_EQUAL(ibr_result_lft_port(ref, 0, 11), 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 11, 2), 0);
    CU_ASSERT_EQUAL(rep.nonminimal, 1);
    CU_ASSERT_EQUAL(rep.max_hops, 5);
    CU_ASSERT(rep.max_stretch > 1.6 && rep.max_stretch < 1.7); /* 5 / 3 */
    /* a route toward a LID nobody owns is harmless */
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 5, 1), 0);
    CU_ASSERT_EQUAL(rep.spurious, 1);

    /* a down link: switch 0's way to host 1 is the failed cable */
    ibr_fabric_set_link_state(f, 0, 1, IBR_LINK_DOWN);
    ibr_topo *td = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&td, f), 0);
    mut = (mutation){ref, 0, 0, 0, 0};
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, td, "copy,no_fallback", NULL), 0);
    rep.version = IBR_VERIFY_REPORT_VERSION;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EROUTES);
    CU_ASSERT(rep.down_link > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "down link"));
    ibr_result_destroy(r);
    /* minhop on the faulty ring is valid again, the long way round */
    CU_ASSERT_EQUAL(ibr_route(&r, td, "minhop", NULL), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT_EQUAL(rep.links, 6);
    CU_ASSERT_EQUAL(rep.max_hops, 5);
    ibr_result_destroy(r);
    ibr_topo_destroy(td);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* Route LID src -> dst with ibr_result_trace() on the reference tables with one
   entry changed (sw, lid, port); the hops land in hops (16 at most). */
static int trace_mut(ibr_trace_hop *hops, size_t *n, const ibr_topo *t, ibr_result *ref,
                     uint32_t sw, uint16_t lid, unsigned port, uint16_t src, uint16_t dst)
{
    mut = (mutation){ref, sw, lid, port, 1};
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "copy,no_fallback", NULL), 0);
    memset(hops, 0xA5, 16 * sizeof *hops);
    int rc = ibr_result_trace(hops, 16, n, NULL, r, src, dst);
    ibr_result_destroy(r);
    return rc;
}

/* ibr_result_trace() names every way a route can break, and
   ibr_result_verify() counts the same route under the matching counter. */
static void test_trace_reasons(void)
{
    ibr_fabric *f = ring(4, 1);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    ibr_trace_hop h[16];
    size_t n = 0;
    unsigned p0 = ibr_result_lft_port(ref, 0, 12);
    uint32_t mid = p0 == 1 ? 1 : 3;

    /* host 0 (LID 10) to host 2 (LID 12): switch 0, mid, switch 2 */
    CU_ASSERT_EQUAL(ibr_result_trace(h, 16, &n, NULL, ref, 10, 12), 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(h[0].sw, 0);
    CU_ASSERT_EQUAL(h[0].in_port, 3);
    CU_ASSERT_EQUAL(h[0].status, IBR_HOP_FORWARDED);
    CU_ASSERT_EQUAL(h[1].sw, mid);
    CU_ASSERT_EQUAL(h[1].status, IBR_HOP_FORWARDED);
    CU_ASSERT_EQUAL(h[2].sw, 2);
    CU_ASSERT_EQUAL(h[2].out_port, 3);
    CU_ASSERT_EQUAL(h[2].status, IBR_HOP_DELIVERED);
    /* to a switch LID: delivered by its port 0 */
    CU_ASSERT_EQUAL(ibr_result_trace(h, 16, &n, NULL, ref, 10, 3), 0);
    CU_ASSERT_EQUAL(h[n - 1].sw, 2);
    CU_ASSERT_EQUAL(h[n - 1].out_port, 0);
    CU_ASSERT_EQUAL(h[n - 1].status, IBR_HOP_DELIVERED);
    /* too small an array: the length, and the first hops */
    CU_ASSERT_EQUAL(ibr_result_trace(h, 1, &n, NULL, ref, 10, 12), IBR_ERANGE);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(ibr_result_trace(NULL, 0, &n, NULL, ref, 10, 12), IBR_ERANGE);
    CU_ASSERT_EQUAL(n, 3);

    /* one broken entry on the first switch: one hop, and why */
    static const struct {
        unsigned port;
        ibr_hop_status status;
    } first[] = {
        {IBR_NO_ROUTE, IBR_HOP_NO_ROUTE}, /* no entry */
        {0, IBR_HOP_NOT_OWNER},           /* kept by a switch that does not own it */
        {9, IBR_HOP_NO_PORT},             /* the switch has 4 ports */
        {4, IBR_HOP_UNCABLED},            /* port 4 has no cable */
        {3, IBR_HOP_DEAD_END},            /* back out to host 0 */
    };
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        CU_ASSERT_EQUAL(trace_mut(h, &n, t, ref, 0, 12, first[i].port, 10, 12), IBR_EROUTES);
        CU_ASSERT_EQUAL(n, 1);
        CU_ASSERT_EQUAL(h[0].sw, 0);
        CU_ASSERT_EQUAL(h[0].out_port, first[i].port);
        CU_ASSERT_EQUAL(h[0].status, first[i].status);
        if (first[i].status == IBR_HOP_NO_PORT)
            CU_ASSERT_EQUAL(h[0].vl, 0);
    }
    /* the verifier counts the same entries (NOT_OWNER, NO_PORT and
       UNCABLED are its bad ports) */
    ibr_verify_report rep;
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 9), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.bad_port, 1);
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 12, 3), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.dead_end, 1);

    /* a loop: mid sends LID 12 back to switch 0. The trace stops at hop 4,
       which enters mid by the port hop 2 did. */
    CU_ASSERT_EQUAL(trace_mut(h, &n, t, ref, mid, 12, mid == 1 ? 2 : 1, 10, 12), IBR_EROUTES);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(h[0].sw, 0);
    CU_ASSERT_EQUAL(h[1].sw, mid);
    CU_ASSERT_EQUAL(h[2].sw, 0);
    CU_ASSERT_EQUAL(h[3].sw, mid);
    CU_ASSERT_EQUAL(h[3].in_port, h[1].in_port);
    CU_ASSERT_EQUAL(h[2].status, IBR_HOP_FORWARDED);
    CU_ASSERT_EQUAL(h[3].status, IBR_HOP_LOOP);
    CU_ASSERT_EQUAL(h[3].out_port, h[1].out_port);

    /* a down link: switch 0's way to host 1 is the failed cable */
    ibr_fabric_set_link_state(f, 0, 1, IBR_LINK_DOWN);
    ibr_topo *td = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&td, f), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_port(ref, 0, 11), 1);
    CU_ASSERT_EQUAL(trace_mut(h, &n, td, ref, 0, 0, 0, 10, 11), IBR_EROUTES);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(h[0].out_port, 1);
    CU_ASSERT_EQUAL(h[0].status, IBR_HOP_DOWN_LINK);
    ibr_topo_destroy(td);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* A loop that starts after the first hop: on a ring of 6 the second switch
   on the way from host 0 to host 3 sends the packet back. Hops: switch 0,
   a, b, a, b; the fifth enters b by the port the third did. */
static void test_trace_loop_tail(void)
{
    ibr_fabric *f = ring(6, 1);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    unsigned p0 = ibr_result_lft_port(ref, 0, 13);
    uint32_t a = p0 == 1 ? 1 : 5, b = p0 == 1 ? 2 : 4;
    CU_ASSERT_EQUAL(ibr_result_lft_port(ref, a, 13), p0);
    ibr_trace_hop h[16];
    size_t n = 0;
    CU_ASSERT_EQUAL(trace_mut(h, &n, t, ref, b, 13, p0 == 1 ? 2 : 1, 10, 13), IBR_EROUTES);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    uint32_t want[5] = {0, a, b, a, b};
    for (size_t i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(h[i].sw, want[i]);
        CU_ASSERT_EQUAL(h[i].status, i == 4 ? IBR_HOP_LOOP : IBR_HOP_FORWARDED);
    }
    CU_ASSERT_EQUAL(h[4].in_port, h[2].in_port);
    CU_ASSERT(h[3].in_port != h[1].in_port); /* a is entered from both sides */
    /* from a switch on the loop itself: the switch LID of a */
    CU_ASSERT_EQUAL(trace_mut(h, &n, t, ref, b, 13, p0 == 1 ? 2 : 1, (uint16_t)(1 + a), 13),
                    IBR_EROUTES);
    CU_ASSERT_EQUAL_FATAL(n, 4); /* a, b, a, b: hop 4 repeats hop 2 */
    CU_ASSERT_EQUAL(h[0].in_port, 0);
    CU_ASSERT_EQUAL(h[3].sw, b);
    CU_ASSERT_EQUAL(h[3].status, IBR_HOP_LOOP);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* A cable between two ports of one switch is a loop to both the tracer and
   the verifier: the packet comes back to the switch that sent it. */
static void test_self_cable(void)
{
    ibr_fabric *f = ring(2, 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, 0, 2, 0, 4, NULL), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    ibr_trace_hop h[16];
    size_t n = 0;
    /* switch 0 sends host 1's LID to port 2, which comes back in by port 4 */
    CU_ASSERT_EQUAL(trace_mut(h, &n, t, ref, 0, 11, 2, 10, 11), IBR_EROUTES);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(h[0].sw, 0);
    CU_ASSERT_EQUAL(h[0].status, IBR_HOP_FORWARDED);
    CU_ASSERT_EQUAL(h[1].sw, 0);
    CU_ASSERT_EQUAL(h[1].in_port, 4);
    CU_ASSERT_EQUAL(h[2].in_port, 4);
    CU_ASSERT_EQUAL(h[2].status, IBR_HOP_LOOP);
    ibr_verify_report rep;
    CU_ASSERT_EQUAL(run_mut(&rep, t, ref, 0, 11, 2), IBR_EROUTES);
    CU_ASSERT_EQUAL(rep.loops, 1);
    CU_ASSERT_EQUAL(rep.dead_end, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_error, "forwarding loop"));
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* The report as JSON, as `ibr verify --json` prints it. */
static char *report_json(const ibr_verify_report *rep)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, rep), 0);
    return b.data; /* malloc'ed by the default context */
}

/* The report does not depend on the number of threads; a version-1 report
   gets the same numbers and nothing past its end is written. */
static void test_threads_and_versions(void)
{
    /* 216 switches, 648 LIDs: 11 blocks of 64 LIDs for the workers */
    ibr_topo *t = ibr_test_topo(ctx, "torus:dims=6x6x6,hosts=2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&ref, t, "minhop", NULL), 0);
    /* break one entry so that first_error and the failure counters matter */
    mut = (mutation){ref, 100, 600, IBR_NO_ROUTE, 1};
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "copy,no_fallback", NULL), 0);
    ibr_verify_report one = {.version = IBR_VERIFY_REPORT_VERSION, .threads = 1};
    CU_ASSERT_EQUAL(ibr_result_verify(&one, r), IBR_EROUTES);
    CU_ASSERT_EQUAL(one.threads, 1);
    CU_ASSERT(one.missing > 0);
    CU_ASSERT(one.first_error[0] != 0);
    char *want = report_json(&one);
    static const unsigned counts[] = {0, 2, 3, 7, 64, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION, .threads = counts[i]};
        CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), IBR_EROUTES);
        CU_ASSERT_EQUAL(rep.threads, counts[i]); /* an input: kept */
        char *got = report_json(&rep);
        CU_ASSERT_STRING_EQUAL(got, want);
        CU_ASSERT_EQUAL(rep.avg_hops, one.avg_hops);
        CU_ASSERT_EQUAL(rep.avg_stretch, one.avg_stretch);
        CU_ASSERT_EQUAL(rep.mean_link_load, one.mean_link_load);
        free(got);
    }
    /* version 1: the fields up to credit_loop, nothing after them */
    union {
        ibr_verify_report rep;
        unsigned char bytes[sizeof(ibr_verify_report)];
    } v1;
    memset(&v1, 0xA5, sizeof v1);
    v1.rep.version = 1;
    CU_ASSERT_EQUAL(ibr_result_verify(&v1.rep, r), IBR_EROUTES);
    CU_ASSERT_EQUAL(v1.rep.version, 1);
    for (size_t i = offsetof(ibr_verify_report, threads); i < sizeof v1; i++)
        CU_ASSERT_EQUAL(v1.bytes[i], 0xA5);
    /* its JSON is version 3's without the keys version 3 added */
    char *got = report_json(&v1.rep);
    size_t glen = strlen(got);
    CU_ASSERT(glen > 1 && strncmp(got, want, glen - 1) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(want + glen - 1, ", \"strict\": false, \"first_missing\": "));
    free(got);
    /* failures leave the report as it was */
    ibr_verify_report bad = {.version = IBR_VERIFY_REPORT_VERSION + 1, .routes_checked = 42};
    CU_ASSERT_EQUAL(ibr_result_verify(&bad, r), IBR_EVERSION);
    CU_ASSERT_EQUAL(bad.routes_checked, 42);
    bad.version = IBR_VERIFY_REPORT_VERSION;
    CU_ASSERT_EQUAL(ibr_result_verify(&bad, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(bad.routes_checked, 42);
    free(want);
    ibr_result_destroy(r);
    ibr_result_destroy(ref);
    ibr_topo_destroy(t);
}

/* Tables read back from a dump carry no hop matrix: the entries up/down
   leaves empty on purpose (spine to spine) are empty switch-LID entries,
   not errors, unless the caller asks for strictness (and version 1 and 2
   reports, which keep the old verdict). An empty entry that breaks an
   end-port pair is an error either way, named by first_error. */
static void test_empty_entries(void)
{
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=8");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *routed = NULL, *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&routed, t, "updn,no_fallback", NULL), 0);
    ibr_buffer dump = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&dump, routed), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&r, t, dump.data, dump.size), 0);
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    /* the routed result knows its rules: nothing empty */
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, routed), 0);
    CU_ASSERT_EQUAL(rep.missing, 0);
    CU_ASSERT(rep.restricted > 0);
    /* the dump: valid, the empty entries counted and named */
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, r), 0);
    CU_ASSERT(rep.missing > 0);
    CU_ASSERT_EQUAL(rep.pairs_ok, rep.pairs);
    CU_ASSERT_STRING_EQUAL(rep.first_error, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.first_missing, "no route at switch"));
    char *json = report_json(&rep);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "{\"valid\": true, "));
    free(json);
    /* strict: the same entries fail, first_error names the first one */
    ibr_verify_report strict = IBR_VERIFY_REPORT_INIT;
    strict.strict = 1;
    CU_ASSERT_EQUAL(ibr_result_verify(&strict, r), IBR_EROUTES);
    CU_ASSERT_EQUAL(strict.missing, rep.missing);
    CU_ASSERT_STRING_EQUAL(strict.first_error, rep.first_missing);
    json = report_json(&strict);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "{\"valid\": false, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"strict\": true, "));
    free(json);
    /* version 2 keeps the strict verdict it always had */
    ibr_verify_report v2 = IBR_VERIFY_REPORT_INIT;
    v2.version = 2;
    CU_ASSERT_EQUAL(ibr_result_verify(&v2, r), IBR_EROUTES);
    /* an empty entry on an end-port path: invalid without strictness, and
       first_error says where */
    uint32_t leaf = IBR_NONE, dsw = IBR_NONE;
    uint16_t lid = 0;
    for (unsigned l = 1; l <= ibr_topo_max_lid(t) && leaf == IBR_NONE; l++) {
        uint32_t node;
        unsigned port;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_lid_owner(&node, &port, t, (uint16_t)l) < 0 ||
            ibr_topo_node_switch(t, node) != IBR_NONE ||
            ibr_topo_port_info(&pi, t, node, port) < 0 || pi.remote_node == IBR_NONE)
            continue;
        uint32_t sw = ibr_topo_node_switch(t, pi.remote_node);
        if (dsw == IBR_NONE) {
            dsw = sw; /* the switch of the destination host */
            lid = (uint16_t)l;
        } else if (sw != dsw) {
            leaf = sw; /* a source host's switch elsewhere */
        }
    }
    CU_ASSERT_FATAL(leaf != IBR_NONE);
    mut = (mutation){routed, leaf, lid, IBR_NO_ROUTE, 1};
    ibr_result *broken = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&broken, t, "copy,no_fallback", NULL), 0);
    ibr_verify_report b = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&b, broken), IBR_EROUTES);
    CU_ASSERT(b.pairs_ok < b.pairs);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.first_error, "no route at switch"));
    ibr_result_destroy(broken);
    /* the same empty entry with a hop matrix that rules the destination's
       switch out for that switch (as ftree's did for leaves cut off from
       the roots, issue 34): the pair the fabric connects still counts and
       still fails, as in the dump of the same tables, which has no hop
       matrix; only entries that break no end-port pair are restricted */
    mut = (mutation){routed, leaf, lid, IBR_NO_ROUTE, 1, 1, dsw};
    broken = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&broken, t, "copy,no_fallback", NULL), 0);
    CU_ASSERT_EQUAL(ibr_result_hops(broken, leaf, dsw), 255);
    ibr_verify_report ro = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&ro, broken), IBR_EROUTES);
    CU_ASSERT_EQUAL(ro.pairs, b.pairs);
    CU_ASSERT_EQUAL(ro.pairs_ok, b.pairs_ok);
    CU_ASSERT_PTR_NOT_NULL(strstr(ro.first_error, "no route at switch"));
    ibr_buffer bd = IBR_BUFFER_INIT;
    ibr_result *back = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&bd, broken), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&back, t, bd.data, bd.size), 0);
    ibr_verify_report fromdump = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&fromdump, back), IBR_EROUTES);
    CU_ASSERT_EQUAL(fromdump.pairs, ro.pairs);
    CU_ASSERT_EQUAL(fromdump.pairs_ok, ro.pairs_ok);
    ibr_result_destroy(back);
    ibr_buffer_dispose(&bd);
    ibr_result_destroy(broken);
    mut.rule_out = 0;
    ibr_buffer_dispose(&dump);
    ibr_result_destroy(r);
    ibr_result_destroy(routed);
    ibr_topo_destroy(t);
}

static void test_report_json(void)
{
    ibr_fabric *f = ring(3, 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_verify_report rep = {.version = IBR_VERIFY_REPORT_VERSION};
    CU_ASSERT_EQUAL_FATAL(ibr_result_verify(&rep, r), 0);
    /* appended to what the buffer holds */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &rep), 0);
    CU_ASSERT_STRING_EQUAL(
        b.data,
        "{\"valid\": true, \"status\": \"IBR_OK\", \"routes_checked\": 18, \"routes_ok\": 18, "
        "\"missing\": 0, \"loops\": 0, \"bad_port\": 0, \"down_link\": 0, \"dead_end\": 0, "
        "\"unreachable\": 0, \"spurious\": 0, \"restricted\": 0, \"nonminimal\": 0, "
        "\"pairs\": 6, \"pairs_ok\": 6, \"avg_hops\": 3.33333333, \"max_hops\": 4, "
        "\"avg_stretch\": 1, \"max_stretch\": 1, \"links\": 4, \"max_link_load\": 2, "
        "\"mean_link_load\": 2, \"deadlock_free\": true, \"first_error\": \"\", "
        "\"credit_loop_length\": 0, \"credit_loop\": \"\", \"strict\": false, "
        "\"first_missing\": \"\", \"mcast_groups\": 0, \"mcast_pairs\": 0, "
        "\"mcast_pairs_ok\": 0, \"mcast_missed\": 0, \"mcast_duplicates\": 0, "
        "\"mcast_loops\": 0, \"mcast_dead_ends\": 0, \"first_mcast_error\": \"\"}");
    size_t len = b.size;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &rep), 0);
    CU_ASSERT_EQUAL(b.size, 2 * len);
    CU_ASSERT_EQUAL(memcmp(b.data, b.data + len, len), 0);
    ibr_buffer_dispose(&b);

    /* a hand-made report: broken, unchecked deadlock, text to escape, a
       string filling its whole array, a value that is not a number */
    ibr_verify_report h;
    memset(&h, 0, sizeof h);
    h.version = 1;
    h.loops = 3;
    h.avg_hops = NAN;
    h.deadlock_free = -1;
    snprintf(h.first_error, sizeof h.first_error, "a\"b\\c\nd\te\rf\001g");
    memset(h.credit_loop, 'x', sizeof h.credit_loop);
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &h), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "{\"valid\": false, \"status\": \"IBR_EROUTES\", "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "\"loops\": 3, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "\"avg_hops\": null, "));
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "\"deadlock_free\": null, "));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(b.data, "\"first_error\": \"a\\\"b\\\\c\\nd\\te\\rf\\u0001g\", "));
    const char *loop = strstr(b.data, "\"credit_loop\": \"");
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    loop += strlen("\"credit_loop\": \"");
    CU_ASSERT_EQUAL(strspn(loop, "x"), sizeof h.credit_loop);
    CU_ASSERT_STRING_EQUAL(loop + sizeof h.credit_loop, "\"}");
    ibr_buffer_dispose(&b);

    /* errors leave the buffer as it was */
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &rep), 0);
    char *before = strdup(b.data);
    size_t size = b.size;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(NULL, &rep), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, NULL), IBR_EINVAL);
    h.version = 0;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &h), IBR_EVERSION);
    h.version = IBR_VERIFY_REPORT_VERSION + 1;
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&b, &h), IBR_EVERSION);
    CU_ASSERT_EQUAL(b.size, size);
    CU_ASSERT_STRING_EQUAL(b.data, before);
    ibr_buffer odd = {NULL, 5, 0, NULL}; /* a size without data */
    CU_ASSERT_EQUAL(ibr_verify_report_write_json(&odd, &rep), IBR_EINVAL);
    free(before);
    ibr_buffer_dispose(&b);

    /* allocation failure at every allocation: IBR_ENOMEM, the buffer as it
       was, nothing leaked */
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *c = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    ibr_buffer ob = {NULL, 0, 0, c};
    CU_ASSERT_EQUAL_FATAL(ibr_verify_report_write_json(&ob, &rep), 0);
    size = ob.size;
    long live = st.live, n;
    for (n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        int rc = ibr_verify_report_write_json(&ob, &rep);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_EQUAL(ob.size, size);
        CU_ASSERT_EQUAL(st.live, live);
    }
    CU_ASSERT(n >= 1);
    st.fail_at = -1;
    CU_ASSERT_EQUAL(ob.size, 2 * size);
    ibr_buffer_dispose(&ob);
    ibr_context_destroy(c);
    CU_ASSERT_EQUAL(st.live, 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

int main(void)
{
    if (ibr_context_create(&ctx, NULL) < 0)
        return 2;
    ibr_engine e = {IBR_ENGINE_VERSION, "copy", "copies and mutates", 0, copy_fn, &mut};
    if (ibr_context_register_engine(ctx, &e) < 0)
        return 2;
    CU_TestInfo tests[] = {
        {"statistics on a line", test_line_statistics},
        {"broken tables", test_broken_tables},
        {"trace: why a route breaks", test_trace_reasons},
        {"trace: a loop after a tail", test_trace_loop_tail},
        {"a cable from a switch to itself", test_self_cable},
        {"threads and report versions", test_threads_and_versions},
        {"report as JSON", test_report_json},
        {"empty switch-LID entries", test_empty_entries},
        CU_TEST_INFO_NULL,
    };
    int rc = ibr_test_main("verify", tests);
    ibr_context_destroy(ctx);
    return rc;
}
