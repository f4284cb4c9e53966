/*
 * custom_engine.c: write a routing engine of your own, register it on a
 * context and use it in engine chains like a built-in one.
 *
 *     cc custom_engine.c $(pkg-config --cflags --libs ibroute) -o custom_engine
 *
 * The engine, "bfs-tree", builds one breadth-first spanning tree of the
 * switches rooted at switch index 0 and sends every LID along that tree.
 * Tree routes are valid and free of credit loops, but every packet between
 * two branches crosses the root, so the load is badly unbalanced: the
 * program compares it with the built-in minhop engine. Then it routes a
 * fabric without switches, which "bfs-tree" declines, to show the chain
 * falling back to minhop.
 */
#include <ibroute/ibroute.h>
#include <ibroute/sys/engine.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the engine ---------------------------------------------------- */

/* Port of switch node `node` toward `lid`'s owner when the owner hangs off
   that switch: fills *dsw (switch index) and *dport (0 for the switch's own
   LID). Returns 0 when the LID has no port or its cable is down. */
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

static int bfs_tree_route(ibr_run *run, void *user)
{
    const ibr_topo *t = ibr_run_topo(run);
    uint32_t nsw = ibr_topo_switch_count(t), head = 0, tail = 0;
    uint32_t *parent, *queue;
    unsigned char *seen, *up, *down, *on_path, *out;
    int rc = 0;

    (void)user;
    /* Declining lets the next engine of the chain try. */
    if (nsw == 0)
        return ibr_run_decline(run, "the fabric has no switches");

    /* An engine may use any allocator for its scratch memory; what it
       hands to the library (LFT entries, artefacts) the library copies or
       owns. */
    parent = malloc(nsw * sizeof *parent);
    queue = malloc(nsw * sizeof *queue);
    seen = calloc(nsw, 1);
    up = calloc(nsw, 1);      /* port of a switch toward its parent */
    down = calloc(nsw, 1);    /* port of the parent toward this switch */
    on_path = calloc(nsw, 1); /* per LID: switch is on the tree path to it */
    out = calloc(nsw, 1);     /* per LID: output port of an on-path switch */
    if (!parent || !queue || !seen || !up || !down || !on_path || !out) {
        rc = ibr_run_fail(run, IBR_ENOMEM, "bfs-tree: out of memory");
        goto done;
    }

    /* Breadth-first search over active switch-to-switch links. */
    seen[0] = 1;
    parent[0] = IBR_NONE;
    queue[tail++] = 0;
    while (head < tail) {
        uint32_t s = queue[head++], node = ibr_topo_switch_node(t, s);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            uint32_t n;
            if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE)
                continue;
            n = ibr_topo_node_switch(t, pi.remote_node);
            if (n == IBR_NONE || seen[n])
                continue;
            seen[n] = 1;
            parent[n] = s;
            up[n] = (unsigned char)pi.remote_port;
            down[n] = (unsigned char)p;
            queue[tail++] = n;
        }
    }

    /* Every LID: switches on the tree path from the root down to the
       LID's switch go down the path, every other switch goes up. */
    for (unsigned lid = 1; lid <= ibr_topo_max_lid(t); lid++) {
        uint32_t dsw;
        unsigned dport;
        if (!lid_home(t, (uint16_t)lid, &dsw, &dport) || !seen[dsw])
            continue;
        memset(on_path, 0, nsw);
        on_path[dsw] = 1;
        out[dsw] = (unsigned char)dport;
        for (uint32_t c = dsw; parent[c] != IBR_NONE; c = parent[c]) {
            on_path[parent[c]] = 1;
            out[parent[c]] = down[c];
        }
        for (uint32_t s = 0; s < nsw; s++)
            if (seen[s])
                ibr_run_lft(run, s)[lid] = on_path[s] ? out[s] : up[s];
    }
    if (tail < nsw)
        ibr_run_log(run, IBR_LOG_WARN, "bfs-tree: some switches are unreachable from the root");
done:
    free(parent);
    free(queue);
    free(seen);
    free(up);
    free(down);
    free(on_path);
    free(out);
    return rc;
}

/* ---- using it ------------------------------------------------------ */

/* Route `t` with `chain`, verify, print one line; 0 when valid. */
static int route_and_report(ibr_result **r, const ibr_topo *t, const char *chain)
{
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    int rc;

    if ((rc = ibr_route(r, t, chain, NULL)) < 0) {
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
    ibr_result *tree = NULL, *mh = NULL, *fb = NULL;
    uint32_t a, b;
    int rc, ok = 1;

    /* Engines live on a context; the definition is copied. */
    ibr_engine def = IBR_ENGINE_INIT;
    def.name = "bfs-tree";
    def.description = "every LID along one BFS spanning tree (valid, deadlock-free, unbalanced)";
    def.caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE;
    def.route = bfs_tree_route;
    if ((rc = ibr_context_create(&ctx, NULL)) < 0)
        goto out;
    if ((rc = ibr_context_register_engine(ctx, &def)) < 0) {
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
    if (route_and_report(&tree, t, "bfs-tree") < 0 || route_and_report(&mh, t, "minhop") < 0)
        ok = 0;
    if (strcmp(ibr_result_engine(tree), "bfs-tree") != 0)
        ok = 0;

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
    ibr_result_destroy(fb);
    ibr_result_destroy(mh);
    ibr_result_destroy(tree);
    ibr_topo_destroy(tp);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(pair);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx); /* last: the objects above use its allocator */
    return rc < 0 || !ok ? 1 : 0;
}
