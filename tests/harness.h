/* Shared helpers for the CUnit test programs. */
#ifndef IBR_TEST_HARNESS_H
#define IBR_TEST_HARNESS_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#include "ibroute/ibroute.h"

/* Run one suite of tests given as a NULL-terminated CU_TestInfo array;
   returns the process exit status (0 when every test passed). */
int ibr_test_main(const char *suite, CU_TestInfo *tests);

/* A context whose allocator fails the fail_at-th allocation (0-based)
   and every one after it when fail_at >= 0 (or that one alone when once is
   set: later allocations succeed again, which shows a caller that goes on
   after a failure and loses it); counts live blocks. */
typedef struct ibr_test_alloc {
    long fail_at;   /* -1: never fail */
    long calls;     /* allocations attempted */
    long live;      /* blocks currently allocated */
    int once;       /* fail the fail_at-th allocation only */
} ibr_test_alloc;

ibr_context *ibr_test_context(ibr_test_alloc *state);

/* Generate a fabric from a spec and freeze it; aborts the test on error. */
ibr_topo *ibr_test_topo(ibr_context *ctx, const char *spec);
/* A fabric generated from spec (fatal on failure). */
ibr_fabric *ibr_test_fabric(const char *spec);

/* Generate spec, mark `links` cables and `switches` switches down (seeded
   faults, none when both are 0), reassign LIDs with LMC lmc when lmc > 0,
   and freeze; aborts the test on error. Default context. */
ibr_topo *ibr_test_topo_faults(const char *spec, unsigned links, unsigned switches,
                               uint64_t seed, unsigned lmc);

/* The switch behind port (node, port) over an active cable, or IBR_NONE. */
uint32_t ibr_test_sw_behind(const ibr_topo *t, uint32_t node, unsigned port);

/* A frozen topology of a copy of f (f stays editable); aborts the test on
   error. */
ibr_topo *ibr_test_freeze(const ibr_fabric *f);

/* An end port with a LID behind an active cable to switch sw; it owns the
   nlids (2^LMC) LIDs from lid. */
typedef struct ibr_test_endp {
    uint32_t node;
    unsigned port;
    uint16_t lid;
    unsigned nlids;
    uint32_t sw;
} ibr_test_endp;

/* The end ports of t with a LID behind an active cable to a switch, in
   node and port order, in *out (malloc'ed, free it); their count. Aborts
   the test when out of memory. */
size_t ibr_test_end_ports(const ibr_topo *t, ibr_test_endp **out);

/* The first checks of a routing computed again (a reroute's answer y):
   ibr_result_verify() delivers every route and end-port pair and finds no
   credit loop, and the independent walk (ibr_test_credit_loops()) agrees;
   what names y in the message of a failure. */
void ibr_test_check_answer(const ibr_result *y, const char *what);

/* What ibr_test_route() asserts besides its fixed checks. */
enum {
    IBR_TEST_DEADLOCK_FREE = 1 << 0, /* deadlock_free == 1 */
    IBR_TEST_MINIMAL = 1 << 1,       /* nonminimal == 0, max_stretch 1 (or no pairs) */
    IBR_TEST_UNRESTRICTED = 1 << 2,  /* restricted == 0 */
};

/* Route t with chain and o, then verify the result into *rep (a report of
   the caller's, or one of its own when rep is NULL; rep->version is set).
   Asserts that ibr_route() and ibr_result_verify() return 0, that every end-port
   pair and every route is delivered (pairs_ok == pairs, routes_ok ==
   routes_checked, missing == 0), and what checks asks for; prints the
   library's messages on failure. Returns the result, or NULL when routing
   failed. */
ibr_result *ibr_test_route(ibr_verify_report *rep, const ibr_topo *t, const char *chain,
                           const ibr_options *o, unsigned checks);

/* The allocation-failure loop for ibr_route() (libuv's test-loop-oom):
   route t with chain and o while the n-th allocation fails, for n = 0, 1,
   2, ... until the call succeeds, asserting (fatally) IBR_ENOMEM and that
   nothing leaked (st->live back to its value on entry) after each failure.
   Returns the successful result with st->fail_at back at -1; *fails gets
   the number of failed calls. */
ibr_result *ibr_test_route_oom(long *fails, ibr_test_alloc *st, const ibr_topo *t,
                               const char *chain, const ibr_options *o);

/* A VL-layered test engine: minhop's tables, destinations split into two
   SLs by the parity of their switch index. mode 0: no SLs; 1: per
   destination SLs; 2: per-pair SLs plus SL2VL tables sending SL s to VL
   s + vl_offset; 3: per-destination SLs plus those SL2VL tables. On a ring of 5 switches each layer alone is acyclic, so
   the routing is loop-free only when its SLs are taken into account. */
typedef struct ibr_test_layered {
    int mode;
    unsigned vl_offset;
} ibr_test_layered;

struct ibr_run;
/* ibr_engine_route_fn with user = ibr_test_layered * */
int ibr_test_layered_route(struct ibr_run *run, void *user);

/* A new context (default configuration) with one user engine registered:
   name, route and user, its other fields as IBR_ENGINE_INIT. NULL (with a
   message) on error. */
ibr_context *ibr_test_engine_context(const char *name,
                                     int (*route)(struct ibr_run *run, void *user), void *user);

/* One switch of max(hosts, 1) ports with a host on each of ports
   1..hosts, LIDs assigned with LMC lmc, frozen; aborts the test on error.
   Default context. */
ibr_topo *ibr_test_star(unsigned hosts, unsigned lmc);

/* Run fn(arg) in a child process (fork) for at most limit_s seconds of wall
   time. Returns 0 when it finished: *res gets what fn returned and *cpu_s
   the child's processor seconds spent in fn; 1 when it was still running
   after limit_s (it is killed: a hang or an exponential blow-up); -1 when
   the child died or could not start. fn's CUnit assertions are lost:
   return what the parent should check. */
int ibr_test_in_child(int *res, double *cpu_s, double limit_s, int (*fn)(void *arg),
                      void *arg);

/* An independent model of a fat tree, read through the public topology API
   alone, to walk routes through the LFTs (test_dmodc, test_lmc). Levels are
   measured here: 1 for a switch with an end port that has a LID, then one
   more per link away from the nearest such switch, 0 where none is
   reachable. Cables that are not up, and a switch's cables to itself, are
   no neighbours. */
typedef struct ibr_test_tree {
    const ibr_topo *t;
    uint32_t nsw;
    unsigned maxlid;
    int *level;        /* per switch: 1 + links to the nearest leaf, 0 = none */
    uint32_t *nbr;     /* per switch, per port 0..254: neighbour switch or
                          IBR_TEST_NOSW */
    uint32_t *ep_sw;   /* per LID: the switch an end port's LID is delivered
                          at, IBR_TEST_NOSW for other LIDs */
    unsigned *ep_port; /* per LID: that switch's port toward it */
    unsigned *ep_n;    /* per base LID of an end port: its LIDs (2^LMC), 0
                          elsewhere */
} ibr_test_tree;

#define IBR_TEST_NOSW 0xFFFFFFFFu

void ibr_test_tree_init(ibr_test_tree *tr, const ibr_topo *t);
void ibr_test_tree_free(ibr_test_tree *tr);

/* up*down* distance from switch s to every switch into dist (255 = no such
   path), by a search over (switch, phase) states: up is toward a higher
   level[], a move between equal levels is never taken. nbr is nsw x 255
   (neighbour switch per port, IBR_TEST_NOSW for none). */
void ibr_test_updown_dist(uint8_t *dist, const uint32_t *nbr, const int *level, uint32_t nsw,
                          uint32_t s);

/* Shift patterns of r by ibr_result_analyze(), asserting that none is
   unrouted: returns the most flows on one link; *free_ (patterns free of
   congestion), *n (patterns) and *ebb (effective bisection bandwidth) where
   not NULL. */
uint64_t ibr_test_shift(const ibr_result *r, unsigned *free_, unsigned *n, double *ebb);

/* Read a whole file into a malloc'ed buffer; NULL on error. */
char *ibr_test_read_file(const char *path, size_t *len);

/* An independent credit-loop check of r: every (source end port,
   destination end port on another switch) path is walked through the
   LFTs, each hop's VL read from the path's SL and the switch's SL2VL
   table for its input and output ports (all on VL0 when r has no
   tables); the channels (switch, output port, VL) with the dependencies
   between consecutive ones must empty under Kahn's algorithm. 0 acyclic,
   1 a loop, -1 a broken route. */
int ibr_test_credit_loops(const ibr_result *r);

/* FNV-1a of n bytes: the checksum a routing database's end line carries,
   for tests that edit a database's text and seal it again. */
uint64_t ibr_test_fnv(const char *s, size_t n);

#endif
