#define _POSIX_C_SOURCE 200809L /* fork(), poll(), kill(), clock_gettime(): POSIX */
#include "harness.h"
#include "ibroute/sys/engine.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int ibr_test_main(const char *suite, CU_TestInfo *tests)
{
    CU_SuiteInfo suites[] = {
        {suite, NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0)
        return 1;
    return failed ? 1 : 0;
}

/* Each block carries a header with its size so realloc can be counted. */
static void *t_malloc(void *user, size_t size)
{
    ibr_test_alloc *a = user;
    long n = a->calls++;
    if (a->fail_at >= 0 && (a->once ? n == a->fail_at : n >= a->fail_at))
        return NULL;
    void *p = malloc(size ? size : 1);
    if (p)
        a->live++;
    return p;
}

static void *t_realloc(void *user, void *ptr, size_t size)
{
    ibr_test_alloc *a = user;
    long n = a->calls++;
    if (a->fail_at >= 0 && (a->once ? n == a->fail_at : n >= a->fail_at))
        return NULL;
    void *p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        a->live++;
    return p;
}

static void t_free(void *user, void *ptr)
{
    ibr_test_alloc *a = user;
    if (ptr)
        a->live--;
    free(ptr);
}

ibr_context *ibr_test_context(ibr_test_alloc *state)
{
    ibr_allocator al = {t_malloc, t_realloc, t_free, state};
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    ibr_context *ctx = NULL;
    long saved = state->fail_at;
    cfg.alloc = &al;
    state->fail_at = -1;
    if (ibr_context_create(&ctx, &cfg) < 0)
        ctx = NULL;
    state->fail_at = saved;
    state->calls = 0;
    return ctx;
}

ibr_topo *ibr_test_topo_faults(const char *spec, unsigned links, unsigned switches,
                               uint64_t seed, unsigned lmc)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    if (links || switches)
        CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, links, switches, seed), 0);
    if (lmc)
        CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

ibr_topo *ibr_test_star(unsigned hosts, unsigned lmc)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    uint32_t sw, ca;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(
        ibr_fabric_add_node(&sw, f, IBR_NODE_SWITCH, 0x100, hosts ? hosts : 1, "star"), 0);
    for (unsigned i = 0; i < hosts; i++) {
        CU_ASSERT_EQUAL_FATAL(
            ibr_fabric_add_node(&ca, f, IBR_NODE_CA, 0x10000 + 0x10 * (uint64_t)i, 1, "host"), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, sw, i + 1, ca, 1, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int ibr_test_in_child(int *res, double *cpu_s, double limit_s, int (*fn)(void *arg), void *arg)
{
    struct {
        int res;
        double cpu;
    } msg;
    int fd[2];
    fflush(NULL);
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        double c0 = cpu_now();
        msg.res = fn(arg);
        msg.cpu = cpu_now() - c0;
        ssize_t n = write(fd[1], &msg, sizeof msg);
        _exit(n == (ssize_t)sizeof msg ? 0 : 1);
    }
    close(fd[1]);
    double end = wall_now() + limit_s;
    ssize_t got = 0;
    int timed_out = 0;
    for (;;) {
        double left = end - wall_now();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = {fd[0], POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr > 0)
            got = read(fd[0], &msg, sizeof msg);
        if (pr != 0)
            break;
    }
    close(fd[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (timed_out)
        return 1;
    if (got != (ssize_t)sizeof msg || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *res = msg.res;
    *cpu_s = msg.cpu;
    return 0;
}

uint32_t ibr_test_sw_behind(const ibr_topo *t, uint32_t node, unsigned port)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if (ibr_topo_port_info(&pi, t, node, port) < 0 || pi.remote_node == IBR_NONE ||
        pi.state != IBR_LINK_ACTIVE)
        return IBR_NONE;
    return ibr_topo_node_switch(t, pi.remote_node);
}

ibr_fabric *ibr_test_fabric(const char *spec)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    return f;
}

ibr_topo *ibr_test_topo(ibr_context *ctx, const char *spec)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    int rc = ibr_fabric_create(&f, ctx);
    if (rc == 0)
        rc = ibr_fabric_generate(f, spec);
    if (rc == 0)
        rc = ibr_fabric_freeze(&t, f);
    if (rc < 0)
        fprintf(stderr, "ibr_test_topo(%s): %s: %s\n", spec, ibr_strerror(rc),
                f ? ibr_fabric_last_error(f) : "");
    ibr_fabric_destroy(f);
    return t;
}

ibr_context *ibr_test_engine_context(const char *name,
                                     int (*route)(struct ibr_run *run, void *user), void *user)
{
    ibr_context *ctx = NULL;
    ibr_engine e = IBR_ENGINE_INIT;
    e.name = name;
    e.route = route;
    e.user = user;
    int rc = ibr_context_create(&ctx, NULL);
    if (rc == 0 && (rc = ibr_context_register_engine(ctx, &e)) < 0) {
        fprintf(stderr, "ibr_test_engine_context(%s): %s: %s\n", name, ibr_strerror(rc),
                ibr_context_last_error(ctx));
        ibr_context_destroy(ctx);
        ctx = NULL;
    }
    return ctx;
}

ibr_result *ibr_test_route(ibr_verify_report *rep, const ibr_topo *t, const char *chain,
                           const ibr_options *o, unsigned checks)
{
    ibr_verify_report own = {.version = IBR_VERIFY_REPORT_VERSION};
    ibr_result *r = NULL;
    int rc = ibr_route(&r, t, chain, o);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) {
        fprintf(stderr, "%s: %s\n", chain, ibr_result_last_error(r));
        ibr_result_destroy(r);
        return NULL;
    }
    if (!rep)
        rep = &own;
    rep->version = IBR_VERIFY_REPORT_VERSION;
    CU_ASSERT_EQUAL(ibr_result_verify(rep, r), 0);
    CU_ASSERT_EQUAL(rep->pairs_ok, rep->pairs); /* every end-port pair routed */
    CU_ASSERT_EQUAL(rep->routes_ok, rep->routes_checked);
    CU_ASSERT_EQUAL(rep->missing, 0);
    if (checks & IBR_TEST_DEADLOCK_FREE)
        CU_ASSERT_EQUAL(rep->deadlock_free, 1);
    if (checks & IBR_TEST_MINIMAL) {
        CU_ASSERT_EQUAL(rep->nonminimal, 0);
        CU_ASSERT(rep->pairs == 0 || rep->max_stretch == 1.0);
    }
    if (checks & IBR_TEST_UNRESTRICTED)
        CU_ASSERT_EQUAL(rep->restricted, 0);
    if (rep->first_error[0])
        fprintf(stderr, "%s: %s\n", chain, rep->first_error);
    return r;
}

ibr_result *ibr_test_route_oom(long *fails, ibr_test_alloc *st, const ibr_topo *t,
                               const char *chain, const ibr_options *o)
{
    long base = st->live, n;
    ibr_result *r = NULL;
    for (n = 0;; n++) {
        st->fail_at = n;
        st->calls = 0;
        r = NULL;
        int rc = ibr_route(&r, t, chain, o);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        ibr_result_destroy(r);
        CU_ASSERT_EQUAL(st->live, base);
    }
    st->fail_at = -1;
    *fails = n;
    return r;
}

char *ibr_test_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(fp);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

int ibr_test_layered_route(ibr_run *run, void *user)
{
    const ibr_test_layered *cfg = user;
    const ibr_topo *t = ibr_run_topo(run);
    ibr_result *mh = NULL;
    int rc = ibr_route(&mh, t, "minhop", NULL);
    if (rc < 0) {
        ibr_result_destroy(mh);
        return rc;
    }
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        memcpy(ibr_run_lft(run, s), ibr_result_lft(mh, s), ibr_result_lft_size(mh));
    ibr_result_destroy(mh);
    for (unsigned d = 1; d <= ibr_topo_max_lid(t) && cfg->mode; d++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_lid_owner(&node, &port, t, (uint16_t)d) < 0)
            continue;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&pi, t, node, port);
        uint32_t sw = ibr_topo_node_switch(t, node);
        if (sw == IBR_NONE)
            sw = ibr_topo_node_switch(t, pi.remote_node);
        unsigned sl = sw & 1;
        if (cfg->mode == 1 || cfg->mode == 3) {
            ibr_run_set_dest_sl(run, (uint16_t)d, sl);
            continue;
        }
        for (unsigned s = 1; s <= ibr_topo_max_lid(t); s++)
            if (ibr_topo_lid_owner(NULL, NULL, t, (uint16_t)s) == 0)
                ibr_run_set_path_sl(run, (uint16_t)s, (uint16_t)d, sl);
    }
    if (cfg->mode >= 2) {
        uint8_t map[16];
        for (unsigned i = 0; i < 16; i++)
            map[i] = (uint8_t)(i < 2 ? i + cfg->vl_offset : 15);
        for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
            for (unsigned a = 0; a <= ni.nports; a++)
                for (unsigned b = 0; b <= ni.nports; b++)
                    ibr_run_set_sl2vl(run, s, a, b, map);
        }
        ibr_run_set_vls_used(run, 2);
    }
    return 0;
}

void ibr_test_tree_init(ibr_test_tree *tr, const ibr_topo *t)
{
    tr->t = t;
    tr->nsw = ibr_topo_switch_count(t);
    tr->maxlid = ibr_topo_max_lid(t);
    tr->level = calloc(tr->nsw + 1, sizeof *tr->level);
    tr->nbr = malloc((size_t)(tr->nsw + 1) * 255 * sizeof *tr->nbr);
    tr->ep_sw = malloc((tr->maxlid + 1) * sizeof *tr->ep_sw);
    tr->ep_port = calloc(tr->maxlid + 1, sizeof *tr->ep_port);
    tr->ep_n = calloc(tr->maxlid + 1, sizeof *tr->ep_n);
    uint32_t *queue = malloc((tr->nsw + 1) * sizeof *queue);
    CU_ASSERT_FATAL(tr->level && tr->nbr && tr->ep_sw && tr->ep_port && tr->ep_n && queue);
    size_t qh = 0, qt = 0;
    for (unsigned l = 0; l <= tr->maxlid; l++)
        tr->ep_sw[l] = IBR_TEST_NOSW;
    for (uint32_t s = 0; s < tr->nsw; s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        uint32_t node = ibr_topo_switch_node(t, s);
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 0; p < 255; p++) {
            tr->nbr[(size_t)s * 255 + p] = IBR_TEST_NOSW;
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (p == 0 || p > ni.nports || ibr_topo_port_info(&pi, t, node, p) < 0 ||
                pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE)
                continue;
            uint32_t rs = ibr_topo_node_switch(t, pi.remote_node);
            if (rs != IBR_NONE) {
                if (rs != s)
                    tr->nbr[(size_t)s * 255 + p] = rs;
                continue;
            }
            ibr_port_info ri = IBR_PORT_INFO_INIT;
            if (ibr_topo_port_info(&ri, t, pi.remote_node, pi.remote_port) < 0 || !ri.lid)
                continue;
            for (unsigned k = 0; k < (1u << ri.lmc) && ri.lid + k <= tr->maxlid; k++) {
                tr->ep_sw[ri.lid + k] = s;
                tr->ep_port[ri.lid + k] = p;
            }
            tr->ep_n[ri.lid] = 1u << ri.lmc;
            if (!tr->level[s]) {
                tr->level[s] = 1;
                queue[qt++] = s;
            }
        }
    }
    while (qh < qt) {
        uint32_t u = queue[qh++];
        for (unsigned p = 1; p < 255; p++) {
            uint32_t v = tr->nbr[(size_t)u * 255 + p];
            if (v != IBR_TEST_NOSW && !tr->level[v]) {
                tr->level[v] = tr->level[u] + 1;
                queue[qt++] = v;
            }
        }
    }
    free(queue);
}

void ibr_test_tree_free(ibr_test_tree *tr)
{
    free(tr->level);
    free(tr->nbr);
    free(tr->ep_sw);
    free(tr->ep_port);
    free(tr->ep_n);
}

void ibr_test_updown_dist(uint8_t *dist, const uint32_t *nbr, const int *level, uint32_t nsw,
                          uint32_t s)
{
    uint8_t *d2 = malloc(2 * (size_t)nsw);
    uint32_t *q = malloc(2 * (size_t)nsw * sizeof *q);
    CU_ASSERT_FATAL(d2 && q);
    memset(d2, 255, 2 * (size_t)nsw);
    uint32_t h = 0, tl = 0;
    d2[2 * s] = 0;
    q[tl++] = 2 * s;
    while (h < tl) {
        uint32_t st = q[h++], u = st / 2, phase = st % 2;
        for (unsigned p = 1; p < 255; p++) {
            uint32_t v = nbr[(size_t)u * 255 + p];
            if (v == IBR_TEST_NOSW || v == u || level[v] == level[u])
                continue;
            int up = level[v] > level[u];
            if (up && phase)
                continue;
            uint32_t ns = 2 * v + (up ? 0u : 1u);
            if (d2[ns] == 255) {
                d2[ns] = (uint8_t)(d2[st] + 1);
                q[tl++] = ns;
            }
        }
    }
    for (uint32_t v = 0; v < nsw; v++)
        dist[v] = d2[2 * v] < d2[2 * v + 1] ? d2[2 * v] : d2[2 * v + 1];
    free(d2);
    free(q);
}

uint64_t ibr_test_shift(const ibr_result *r, unsigned *free_, unsigned *n, double *ebb)
{
    ibr_analysis *a = NULL;
    ibr_analyze_options ao = IBR_ANALYZE_OPTIONS_INIT;
    ao.patterns = IBR_PATTERN_SHIFT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&a, r, &ao), 0);
    ibr_analysis_summary s = {.version = IBR_ANALYSIS_SUMMARY_VERSION};
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(&s, a), 0);
    CU_ASSERT_EQUAL(s.shift.unrouted, 0);
    if (free_)
        *free_ = (unsigned)s.shift.congestion_free;
    if (n)
        *n = s.shift.patterns;
    if (ebb)
        *ebb = s.shift.ebb;
    ibr_analysis_destroy(a);
    return s.shift.max_congestion;
}

ibr_topo *ibr_test_freeze(const ibr_fabric *f)
{
    ibr_fabric *c = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&c, f), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, c), 0);
    ibr_fabric_destroy(c);
    return t;
}

size_t ibr_test_end_ports(const ibr_topo *t, ibr_test_endp **out)
{
    size_t n = 0;
    ibr_test_endp *e = malloc(sizeof *e * (ibr_topo_endport_count(t) + 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    for (uint32_t node = 0; node < ibr_topo_node_count(t); node++) {
        if (ibr_topo_node_switch(t, node) != IBR_NONE)
            continue;
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pi, t, node, p);
            uint32_t sw = ibr_test_sw_behind(t, node, p);
            if (pi.lid && sw != IBR_NONE)
                e[n++] = (ibr_test_endp){node, p, pi.lid, 1u << pi.lmc, sw};
        }
    }
    *out = e;
    return n;
}

/* The channel dependencies (pairs of channel numbers) of one path from
   end a to end b appended to *ed; 0, or -1 when the route breaks. */
static int walk_path(uint32_t **ed, size_t *ne, size_t *cap, const ibr_result *r,
                     const ibr_test_endp *a, const ibr_test_endp *b)
{
    const ibr_topo *t = ibr_result_topo(r);
    size_t nsw = ibr_topo_switch_count(t);
    unsigned sl = ibr_result_path_sl(r, a->lid, b->lid);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_topo_port_info(&pi, t, a->node, a->port);
    uint32_t cur = a->sw, prev = UINT32_MAX, steps = 0;
    unsigned ip = pi.remote_port;
    while (cur != b->sw) {
        unsigned op = ibr_result_lft_port(r, cur, b->lid);
        uint32_t node = ibr_topo_switch_node(t, cur);
        uint8_t map[16];
        memset(map, 0, sizeof map); /* no SL2VL tables: all on VL0 */
        if (op == IBR_NO_ROUTE || ++steps > nsw ||
            (ibr_result_has_sl2vl(r) && ibr_result_sl2vl(map, r, cur, ip, op) < 0))
            return -1;
        uint32_t ch = ((uint32_t)cur * 256 + op) * 16 + map[sl & 15];
        if (prev != UINT32_MAX) {
            if (*ne == *cap) {
                uint32_t *n2 = realloc(*ed, (*cap *= 2) * 2 * sizeof **ed);
                if (!n2)
                    return -1;
                *ed = n2;
            }
            (*ed)[2 * *ne] = prev;
            (*ed)[2 * (*ne)++ + 1] = ch;
        }
        prev = ch;
        ibr_port_info po = IBR_PORT_INFO_INIT;
        ibr_topo_port_info(&po, t, node, op);
        ip = po.remote_port;
        cur = ibr_test_sw_behind(t, node, op);
        if (cur == IBR_NONE)
            return -1;
    }
    return 0;
}

/* Kahn's algorithm over nch channels and ne dependencies: 1 when a cycle
   remains, else 0. */
static int kahn_cycle(const uint32_t *ed, size_t ne, size_t nch)
{
    uint32_t *indeg = calloc(nch, sizeof *indeg), *off = calloc(nch + 1, sizeof *off);
    uint32_t *adj = malloc((ne + 1) * sizeof *adj), *queue = malloc((nch + 1) * sizeof *queue);
    uint32_t *pos = malloc((nch + 1) * sizeof *pos);
    CU_ASSERT_FATAL(indeg && off && adj && queue && pos);
    for (size_t i = 0; i < ne; i++) {
        off[ed[2 * i] + 1]++;
        indeg[ed[2 * i + 1]]++;
    }
    for (size_t c = 0; c < nch; c++)
        off[c + 1] += off[c];
    memcpy(pos, off, (nch + 1) * sizeof *pos);
    for (size_t i = 0; i < ne; i++)
        adj[pos[ed[2 * i]]++] = ed[2 * i + 1];
    size_t qh = 0, qt = 0, removed = 0;
    for (size_t c = 0; c < nch; c++)
        if (!indeg[c])
            queue[qt++] = (uint32_t)c;
    while (qh < qt) {
        uint32_t c = queue[qh++];
        removed++;
        for (uint32_t k = off[c]; k < off[c + 1]; k++)
            if (--indeg[adj[k]] == 0)
                queue[qt++] = adj[k];
    }
    free(indeg);
    free(off);
    free(adj);
    free(queue);
    free(pos);
    return removed == nch ? 0 : 1;
}

int ibr_test_credit_loops(const ibr_result *r)
{
    const ibr_topo *t = ibr_result_topo(r);
    size_t nch = (size_t)ibr_topo_switch_count(t) * 256 * 16;
    ibr_test_endp *e;
    size_t n = ibr_test_end_ports(t, &e), ne = 0, cap = 1024;
    uint32_t *ed = malloc(cap * 2 * sizeof *ed);
    CU_ASSERT_FATAL(ed != NULL);
    int bad = 0;
    for (size_t a = 0; a < n && !bad; a++)
        for (size_t b = 0; b < n && !bad; b++)
            if (e[a].sw != e[b].sw)
                bad = walk_path(&ed, &ne, &cap, r, &e[a], &e[b]);
    free(e);
    if (!bad)
        bad = kahn_cycle(ed, ne, nch);
    free(ed);
    return bad;
}

void ibr_test_check_answer(const ibr_result *y, const char *what)
{
    ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&v, y), 0);
    CU_ASSERT_EQUAL(v.routes_ok, v.routes_checked);
    CU_ASSERT_EQUAL(v.pairs_ok, v.pairs);
    CU_ASSERT_EQUAL(v.deadlock_free, 1);
    int loops = ibr_test_credit_loops(y);
    if (loops != 0)
        fprintf(stderr, "\n%s: independent walk: %d\n", what, loops);
    CU_ASSERT_EQUAL(loops, 0);
}

uint64_t ibr_test_fnv(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
