/*
 * custom_engine.c: write routing engines of your own with the engine
 * toolkit, register them on a context and use them in engine chains like
 * built-in ones.
 *
 *     cc custom_engine.c $(pkg-config --cflags --libs ibroute) -o custom_engine
 *
 * Two engines, written the way the built-ins are (sys/engine.h and
 * sys/toolkit.h only):
 *
 * - "bfs-tree" sends every LID along one breadth-first spanning tree of
 *   the switches, rooted at the switch its setting "root" names (default
 *   0). Tree routes are valid and free of credit loops, but every packet
 *   between two branches crosses the root, so the load is badly
 *   unbalanced: the program compares it with the built-in minhop engine.
 *   It fills its rows in parallel with ibr_run_parallel_for().
 * - "hops-again" is minhop rebuilt from two toolkit calls: the hop matrix
 *   (ibr_topo_switch_hops() into the run's ibr_run_hops()) and OpenSM's
 *   LFT builder (ibr_run_ucast()); its tables equal minhop's.
 *
 * Then it routes a fabric without switches, which "bfs-tree" declines, to
 * show the chain falling back to minhop, and a bad setting, which the
 * library refuses before any engine runs.
 */
#include <ibroute/ibroute.h>
#include <ibroute/sys/engine.h>
#include <ibroute/sys/toolkit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bfs-tree ------------------------------------------------------ */

/* What every switch's row needs: the spanning tree. */
typedef struct {
    const ibr_topo *t;
    ibr_run *run;
    uint32_t nsw;
    uint32_t *depth;    /* per switch: links from the root (UINT32_MAX: cut off) */
    uint32_t *parent;   /* per switch: parent in the tree (IBR_NONE for the root) */
    unsigned char *up;  /* per switch: its port toward its parent */
    unsigned char *down;/* per switch: its parent's port toward it */
} bfs_tree;

/* Where the traffic of `lid` leaves the switch fabric: its switch (*dsw)
   and that switch's port toward the owner (*dport, 0 for a switch's own
   LID). Returns 0 when no port owns the LID or its cable is down. */
static int lid_home(const ibr_topo *t, uint16_t lid, uint32_t *dsw, unsigned *dport)
{
    uint32_t node;
    unsigned port;
    ibr_port_info pi = IBR_PORT_INFO_INIT;

    if (ibr_topo_lid_owner(&node, &port, t, lid) < 0)
        return 0;
    *dsw = ibr_topo_node_switch(t, node);
    if (*dsw != IBR_NONE) {
        *dport = 0;
        return 1;
    }
    if (ibr_topo_port_info(&pi, t, node, port) < 0 || pi.remote_node == IBR_NONE ||
        pi.state != IBR_LINK_ACTIVE)
        return 0;
    *dsw = ibr_topo_node_switch(t, pi.remote_node);
    *dport = pi.remote_port;
    return *dsw != IBR_NONE;
}

/* The LFT of switch s (one item of the parallel loop: it writes only its
   own row). Toward a LID whose switch lies below s in the tree, go down
   toward it; otherwise go up. */
static int fill_row(void *arg, unsigned int worker, size_t i)
{
    const bfs_tree *tr = arg;
    uint32_t s = (uint32_t)i;
    uint8_t *lft = ibr_run_lft(tr->run, s);

    (void)worker;
    if (tr->depth[s] == UINT32_MAX)
        return 0; /* not in the tree: no routes */
    for (unsigned lid = 1; lid <= ibr_topo_max_lid(tr->t); lid++) {
        uint32_t dsw, c;
        unsigned dport;
        if (!lid_home(tr->t, (uint16_t)lid, &dsw, &dport) || tr->depth[dsw] == UINT32_MAX)
            continue;
        if (dsw == s) {
            lft[lid] = (uint8_t)dport;
            continue;
        }
        /* climb from the destination's switch to the depth of s */
        for (c = dsw; tr->depth[c] > tr->depth[s] + 1; c = tr->parent[c])
            ;
        lft[lid] = tr->parent[c] == s && tr->depth[c] == tr->depth[s] + 1 ? tr->down[c]
                                                                          : tr->up[s];
    }
    return 0;
}

static int bfs_tree_route(ibr_run *run, void *user)
{
    const ibr_topo *t = ibr_run_topo(run);
    bfs_tree tr = {t, run, ibr_topo_switch_count(t), NULL, NULL, NULL, NULL};
    const uint32_t *off;
    const ibr_switch_link *links;
    int64_t root = 0;
    int rc;

    (void)user;
    /* Declining lets the next engine of the chain try. */
    if (tr.nsw == 0)
        return ibr_run_decline(run, "the fabric has no switches");
    /* The setting was checked against its declared range already. */
    ibr_run_setting_int(&root, run, "root");
    if ((uint64_t)root >= tr.nsw)
        return ibr_run_decline(run, "the root switch index is beyond the switches");

    /* An engine may use any allocator for its scratch memory; what it
       hands to the library (LFT entries, artefacts) the library copies or
       owns. */
    tr.depth = malloc(tr.nsw * sizeof *tr.depth);
    tr.parent = malloc(tr.nsw * sizeof *tr.parent);
    tr.up = calloc(tr.nsw, 1);
    tr.down = calloc(tr.nsw, 1);
    if (!tr.depth || !tr.parent || !tr.up || !tr.down) {
        rc = ibr_run_fail(run, IBR_ENOMEM, "bfs-tree: out of memory");
        goto done;
    }

    /* Distances from the root (the toolkit's breadth-first search), then
       each switch's parent: its first neighbour, in port order, one link
       closer to the root. The switch graph is read as compressed rows. */
    uint32_t r = (uint32_t)root;
    if ((rc = ibr_topo_bfs(tr.depth, t, &r, 1, NULL)) < 0) {
        rc = ibr_run_fail(run, rc, "bfs-tree: search failed");
        goto done;
    }
    ibr_topo_switch_links(&off, &links, t);
    for (uint32_t s = 0; s < tr.nsw; s++) {
        tr.parent[s] = IBR_NONE;
        if (tr.depth[s] == 0 || tr.depth[s] == UINT32_MAX)
            continue;
        for (uint32_t e = off[s]; e < off[s + 1]; e++)
            if (tr.depth[links[e].sw] + 1 == tr.depth[s]) {
                tr.parent[s] = links[e].sw;
                tr.up[s] = links[e].port;
                tr.down[s] = links[e].rport;
                break;
            }
    }

    /* The rows, on the run's worker threads. */
    if ((rc = ibr_run_parallel_for(run, tr.nsw, fill_row, &tr)) < 0)
        goto done;
    if (root != 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "bfs-tree: rooted at switch %" PRId64, root);
        ibr_run_log(run, IBR_LOG_INFO, msg);
    }
done:
    free(tr.depth);
    free(tr.parent);
    free(tr.up);
    free(tr.down);
    return rc;
}

/* The settings bfs-tree takes: `ibr engines`-style declarations, set by
   callers as "bfs-tree.root" in ibr_options::params. */
static const ibr_setting bfs_tree_settings[] = {
    {"root", IBR_SETTING_INT, 0, 65535, 0, NULL, "index of the root switch of the tree"},
};

/* ---- hops-again ---------------------------------------------------- */

static int hops_again_route(ibr_run *run, void *user)
{
    uint8_t *hops = ibr_run_hops(run); /* the result keeps it */
    int rc;

    (void)user;
    if (!hops)
        return ibr_run_fail(run, IBR_ENOMEM, "hops-again: out of memory");
    if ((rc = ibr_topo_switch_hops(hops, ibr_run_topo(run), ibr_run_threads(run))) < 0)
        return ibr_run_fail(run, rc, "hops-again: hop matrix");
    /* NULL candidates: the minimum-hop ports of the matrix */
    return ibr_run_ucast(run, hops, NULL, NULL, "hops-again: forwarding tables");
}

/* ---- using it ------------------------------------------------------ */

/* Route `t` with `chain` and `opts` (NULL: defaults), verify, print one
   line; 0 when valid. */
static int route_and_report(ibr_result **r, const ibr_topo *t, const char *chain,
                            const ibr_options *opts)
{
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    int rc;

    memset(&rep, 0, sizeof rep);
    rep.version = IBR_VERIFY_REPORT_VERSION;
    if ((rc = ibr_route(r, t, chain, opts)) < 0) {
        fprintf(stderr, "%s: %s\n", chain, *r ? ibr_result_last_error(*r) : ibr_strerror(rc));
        return rc;
    }
    rc = ibr_result_verify(&rep, *r);
    printf("%-10s %-10s %-8s %8.2f %14" PRIu64 " %15.2f\n", chain, ibr_result_engine(*r),
           rc == 0 ? "yes" : "NO", rep.avg_hops, rep.max_link_load, rep.mean_link_load);
    return rc;
}

int main(void)
{
    ibr_context *ctx = NULL;
    ibr_fabric *f = NULL, *pair = NULL;
    ibr_topo *t = NULL, *tp = NULL;
    ibr_result *tree = NULL, *mh = NULL, *again = NULL, *fb = NULL, *bad = NULL;
    uint32_t a, b;
    int rc, ok = 1;

    /* Engines live on a context; the definitions are copied. */
    ibr_engine def = IBR_ENGINE_INIT, def2 = IBR_ENGINE_INIT;
    def.name = "bfs-tree";
    def.description = "every LID along one BFS spanning tree (valid, deadlock-free, unbalanced)";
    def.caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE;
    def.route = bfs_tree_route;
    def.settings = bfs_tree_settings;
    def.n_settings = sizeof bfs_tree_settings / sizeof bfs_tree_settings[0];
    def2.name = "hops-again";
    def2.description = "minhop from the toolkit: hop matrix plus OpenSM's LFT builder";
    def2.caps = IBR_CAP_LMC | IBR_CAP_MINIMAL;
    def2.route = hops_again_route;
    if ((rc = ibr_context_create(&ctx, NULL)) < 0)
        goto out;
    if ((rc = ibr_context_register_engine(ctx, &def)) < 0 ||
        (rc = ibr_context_register_engine(ctx, &def2)) < 0) {
        fprintf(stderr, "register: %s\n", ibr_context_last_error(ctx));
        goto out;
    }
    printf("engines on this context:");
    for (size_t i = 0; i < ibr_context_engine_count(ctx); i++) {
        ibr_engine_info info;
        if (ibr_context_engine(&info, ctx, i) == 0)
            printf(" %s%s", info.name, info.builtin ? "" : " (user)");
    }
    printf("\n\n");

    /* A two-level fat tree of 8-port switches: 8 leaves, 4 spines. */
    if ((rc = ibr_fabric_create(&f, ctx)) < 0 ||
        (rc = ibr_fabric_generate(f, "fattree:levels=2,radix=8")) < 0 ||
        (rc = ibr_fabric_freeze(&t, f)) < 0)
        goto out;
    printf("%-10s %-10s %-8s %8s %14s %15s\n", "chain", "engine", "valid", "avg hops",
           "max link load", "mean link load");
    if (route_and_report(&tree, t, "bfs-tree", NULL) < 0 ||
        route_and_report(&mh, t, "minhop", NULL) < 0 ||
        route_and_report(&again, t, "hops-again", NULL) < 0)
        ok = 0;
    if (strcmp(ibr_result_engine(tree), "bfs-tree") != 0 ||
        strcmp(ibr_result_engine(again), "hops-again") != 0)
        ok = 0;
    /* the toolkit's builder gives minhop's tables */
    for (uint32_t s = 0; ok && s < ibr_topo_switch_count(t); s++)
        if (memcmp(ibr_result_lft(again, s), ibr_result_lft(mh, s), ibr_result_lft_size(mh)))
            ok = 0;
    printf("hops-again %s minhop's tables\n", ok ? "reproduces" : "DIFFERS FROM");

    /* A setting: the tree rooted at switch 8 instead of 0; the settings
       the engine ran with are recorded in the result. */
    {
        const ibr_param root8 = {"bfs-tree.root", "8"};
        ibr_options o = IBR_OPTIONS_INIT;
        ibr_result *spine = NULL;
        o.params = &root8;
        o.n_params = 1;
        if (route_and_report(&spine, t, "bfs-tree", &o) < 0)
            ok = 0;
        for (size_t i = 0; spine && i < ibr_result_setting_count(spine); i++) {
            const char *name, *value;
            ibr_result_setting(&name, &value, spine, i);
            printf("  routed with %s = %s\n", name, value);
        }
        ibr_result_destroy(spine);
        /* a value outside the declared range is refused before routing */
        const ibr_param bad_root = {"bfs-tree.root", "-1"};
        o.params = &bad_root;
        if (ibr_route(&bad, t, "bfs-tree", &o) != IBR_EINVAL)
            ok = 0;
        printf("  bfs-tree.root = -1: %s\n", ibr_result_last_error(bad));
    }

    /* Two hosts cabled back to back: no switch, so bfs-tree declines and
       the chain falls back to minhop, which has nothing to fill. */
    if ((rc = ibr_fabric_create(&pair, ctx)) < 0 ||
        (rc = ibr_fabric_add_node(&a, pair, IBR_NODE_CA, 0x0002c90300000100ULL, 1, "a")) < 0 ||
        (rc = ibr_fabric_add_node(&b, pair, IBR_NODE_CA, 0x0002c90300000200ULL, 1, "b")) < 0 ||
        (rc = ibr_fabric_add_link(pair, a, 1, b, 1, NULL)) < 0 ||
        (rc = ibr_fabric_assign_lids(pair, 0, IBR_LIDS_KEEP)) < 0 ||
        (rc = ibr_fabric_freeze(&tp, pair)) < 0)
        goto out;
    if ((rc = ibr_route(&fb, tp, "bfs-tree", NULL)) < 0)
        goto out;
    printf("\nback-to-back hosts, chain \"bfs-tree\": routed by %s\n", ibr_result_engine(fb));
    for (size_t i = 0; i < ibr_result_attempt_count(fb); i++) {
        const char *name, *msg;
        int status;
        ibr_result_attempt(&name, &status, &msg, fb, i);
        printf("  attempt %zu: %-9s %-13s %s\n", i + 1, name, ibr_status_name(status), msg);
    }
    if (strcmp(ibr_result_engine(fb), "minhop") != 0 || ibr_result_attempt_count(fb) != 2)
        ok = 0;
out:
    if (rc < 0)
        fprintf(stderr, "custom_engine: %s%s%s\n", ibr_strerror(rc), f ? ": " : "",
                f ? ibr_fabric_last_error(f) : "");
    ibr_result_destroy(bad);
    ibr_result_destroy(fb);
    ibr_result_destroy(again);
    ibr_result_destroy(mh);
    ibr_result_destroy(tree);
    ibr_topo_destroy(tp);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(pair);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx); /* last: the objects above use its allocator */
    return rc < 0 || !ok ? 1 : 0;
}
