/*
 * Multicast that keeps a deadlock-free engine's promise.
 *
 * OpenSM builds a tree per MLID (its own root each) on SL 0 and says, for
 * dfsssp, lash and Nue, that the multicast traffic may close credit loops
 * with the unicast routes: a multicast packet climbs toward the root and
 * comes down every other branch, making turns the unicast layering never
 * planned for, on VL 0, which unicast layer 0 also uses. On meshes, tori,
 * dragonflies and random graphs this happens with a few dozen random
 * groups.
 *
 * When an engine that promises deadlock freedom returns and the credit-loop
 * check with the multicast dependencies finds a loop, the library moves the
 * multicast traffic out of the unicast routes' way, if a VL is left:
 *
 *  - every unicast path SL goes up by one (an engine without SLs gets SL 1
 *    everywhere), so with the identity SL2VL the unicast layers sit on
 *    VLs 1 .. k and VL 0 carries only SL 0, the multicast SL;
 *  - every MLID's tree becomes the part of one spanning tree of the
 *    switches that joins its members (root: OpenSM's choice for the union
 *    of all members; the breadth-first tree from it, each switch's ports in
 *    order, avoiding throttled cables where the engine's
 *    avoid_throttled_links asks it). The union of the trees is a tree, and a
 *    packet in a tree never comes back to a link it used, so the multicast
 *    dependencies on VL 0 cannot close a loop either.
 *
 * The unicast routes are unchanged (same ports, same layering one VL
 * higher). Nothing happens when the engine's SL2VL tables are not the
 * identity (torus-2QoS owns its maps and mends its own trees) or when the
 * caller asked for OpenSM's trees (IBR_MCAST_OPENSM). An engine that
 * spread its routes over every VL allowed although its layering needs
 * fewer (dfsssp and Nue balance over all of them) is run again with one
 * VL fewer; when no VL can be freed (ibr_options::max_vls) a warning says
 * the loop remains.
 */
#include <stdio.h>
#include <string.h>

#include "core/mcast_groups_int.h"
#include "core/messages.h"
#include "core/result_notes.h"
#include "core/topo_int.h"
#include "mcast/mcast.h"

/* Does every SL2VL table the result holds map SL i to VL i? */
static int identity_maps(const ibr_result *r, const ibr_topo *t)
{
    if (!r->sl2vl)
        return 1;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        unsigned np = t->nodes[t->sw_node[s]].nports + 1u;
        const uint8_t *m = r->sl2vl + r->sl2vl_off[s];
        for (size_t k = 0; k < (size_t)np * np; k++)
            for (unsigned sl = 0; sl < 15; sl++)
                if (m[k * 16 + sl] != sl)
                    return 0;
    }
    return 1;
}

/* The switch a member port hangs from and the port leading to it there
   (0 for a switch member); IBR_NONE when it hangs from none. */
static uint32_t member_switch(const ibr_topo *t, uint32_t gport, unsigned *port)
{
    const ibr__node *nd = &t->nodes[t->port_node[gport]];
    *port = 0;
    if (nd->sw != IBR_NONE)
        return nd->sw;
    const ibr__port *pp = &t->ports[gport];
    if (pp->remote_node == IBR_NONE || pp->state == IBR_LINK_DOWN ||
        t->nodes[pp->remote_node].sw == IBR_NONE)
        return IBR_NONE;
    *port = pp->remote_port;
    return t->nodes[pp->remote_node].sw;
}

static int cmp_guidkey(const void *a, const void *b, void *arg)
{
    const ibr_topo *t = arg;
    uint64_t x = ibr__guid_key(t->nodes[t->sw_node[*(const uint32_t *)a]].guid);
    uint64_t y = ibr__guid_key(t->nodes[t->sw_node[*(const uint32_t *)b]].guid);
    return x < y ? -1 : x > y;
}

typedef struct iso_tree {
    uint32_t root;
    uint32_t *up;      /* per switch: port toward the root (0 at the root, IBR_NONE unreached) */
    uint32_t *stamp;   /* per switch: last MLID index that walked it, + 1 */
} iso_tree;

/* One spanning tree of the switches for every MLID: the root OpenSM would
   choose for the union of the members (plain minimum hops); the tree is
   the breadth-first search from it, each switch's ports in order. */
static int build_tree(iso_tree *tr, ibr_run *run, const uint8_t *hops)
{
    const ibr_topo *t = run->topo;
    ibr_context *ctx = t->ctx;
    const ibr_mcast_groups *g = run->opts.mcast_groups;
    uint32_t n = t->n_sw;
    uint8_t *mem = ibr__calloc(ctx, n ? n : 1, 1);  /* 1: CA members behind, 2: switch member */
    uint32_t *order = ibr__mallocarray(ctx, n ? n : 1, sizeof *order);
    int rc = 0;
    if (!mem || !order) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < g->n_mlids && rc == 0; i++) {
        ibr__mcmember *m;
        size_t nm;
        if ((rc = ibr__mcast_members(&m, &nm, g, g->mlids[i])) < 0)
            break;
        for (size_t x = 0; nm >= 2 && x < nm; x++) {
            unsigned p;
            uint32_t s = member_switch(t, m[x].gport, &p);
            if (s != IBR_NONE)
                mem[s] |= (uint8_t)(p == 0 ? 2 : 1);
        }
        ibr__free(ctx, m);
    }
    if (rc < 0)
        goto out;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    ibr__sort(order, n, sizeof *order, cmp_guidkey, (void *)t);
    unsigned best_h = 10000;
    tr->root = IBR_NONE;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *row = hops + (size_t)order[i] * n;
        unsigned h = 0;
        for (uint32_t s = 0; s < n; s++)
            if (mem[s]) {
                unsigned v = (unsigned)row[s] + (mem[s] & 2 ? 0u : 1u);
                h = v > h ? v : h;
            }
        if (h < best_h) {
            best_h = h;
            tr->root = order[i];
        }
    }
    if (tr->root == IBR_NONE)
        goto out;
    /* breadth-first from the root; with the engine's avoid_throttled_links
       on, over the other cables first, the throttled ones only for the
       switches the others cannot reach */
    int64_t avoid = 0;
    if (ibr_run_setting_int(&avoid, run, "avoid_throttled_links") < 0)
        avoid = 0;
    uint32_t *dist = order; /* reused: the order is no longer needed */
    uint32_t *queue = ibr__mallocarray(ctx, n, sizeof *queue);
    if (!queue) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < n; s++) {
        dist[s] = IBR_NONE;
        tr->up[s] = IBR_NONE;
    }
    dist[tr->root] = 0;
    tr->up[tr->root] = 0;
    uint32_t qn = 0;
    queue[qn++] = tr->root;
    for (int pass = avoid ? 0 : 1; pass < 2; pass++) {
        if (pass == 1 && avoid) { /* again from every switch reached */
            qn = 0;
            for (uint32_t s = 0; s < n; s++)
                if (dist[s] != IBR_NONE)
                    queue[qn++] = s;
        }
        for (uint32_t qh = 0; qh < qn; qh++) {
            uint32_t s = queue[qh];
            const ibr__node *nd = &t->nodes[t->sw_node[s]];
            for (unsigned p = 1; p <= nd->nports; p++) {
                const ibr__port *pt = &t->ports[nd->port_off + p];
                if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE)
                    continue;
                uint32_t z = t->nodes[pt->remote_node].sw;
                if (z == IBR_NONE || dist[z] != IBR_NONE ||
                    (pass == 0 && ibr_topo_link_throttled(t, t->sw_node[s], p)))
                    continue;
                dist[z] = dist[s] + 1;
                tr->up[z] = pt->remote_port;
                queue[qn++] = z;
            }
        }
    }
    ibr__free(ctx, queue);
out:
    ibr__free(ctx, mem);
    ibr__free(ctx, order);
    return rc;
}

/* Every MLID with two members or more: its member ports, and the tree
   links from each member switch up to the root. */
static int write_trees(iso_tree *tr, ibr_run *run)
{
    const ibr_topo *t = run->topo;
    const ibr_mcast_groups *g = run->opts.mcast_groups;
    int rc = ibr_run_clear_mcast(run);
    for (size_t i = 0; i < g->n_mlids && rc == 0; i++) {
        ibr__mcmember *m;
        size_t nm;
        if ((rc = ibr__mcast_members(&m, &nm, g, g->mlids[i])) < 0)
            break;
        for (size_t x = 0; nm >= 2 && x < nm && rc == 0; x++) {
            unsigned p;
            uint32_t s = member_switch(t, m[x].gport, &p);
            if (s == IBR_NONE || tr->up[s] == IBR_NONE)
                continue; /* out of the tree's reach: dropped, as OpenSM does */
            rc = ibr_run_add_mcast_port(run, g->mlids[i], s, p);
            while (rc == 0 && s != tr->root && tr->stamp[s] != i + 1) {
                tr->stamp[s] = (uint32_t)i + 1;
                unsigned up = tr->up[s];
                const ibr__port *pt = ibr__tport(t, t->sw_node[s], up);
                uint32_t z = t->nodes[pt->remote_node].sw;
                rc = ibr_run_add_mcast_port(run, g->mlids[i], s, up);
                if (rc == 0)
                    rc = ibr_run_add_mcast_port(run, g->mlids[i], z, pt->remote_port);
                s = z;
            }
        }
        ibr__free(t->ctx, m);
    }
    return rc;
}

int ibr__mcast_isolate(ibr__mcast_next *next, ibr_run *run, unsigned max_vls, int retried)
{
    *next = IBR__MCAST_DONE;
    const ibr_topo *t = run->topo;
    ibr_context *ctx = t->ctx;
    ibr_result *r = run->res;
    if (!run->opts.mcast_groups || !r->n_mcast || !(run->engine->caps & IBR_CAP_DEADLOCK_FREE) ||
        (run->opts.mcast_flags & IBR_MCAST_OPENSM))
        return 0;
    size_t len = 0;
    int rc = ibr_run_find_credit_loop(NULL, 0, &len, run);
    if (rc != IBR_EDEADLOCK)
        return rc;
    if (!identity_maps(r, t))
        return 0; /* the engine owns its SL2VL (and its trees) */
    unsigned used = r->vls_used ? r->vls_used : 1;
    /* the VLs the ports operate bound what can be used, as max_vls does */
    unsigned pv = ibr_topo_data_vls(t);
    if (pv && pv < max_vls)
        max_vls = pv;
    size_t nsl = r->sl_mode == IBR_SL_PER_DEST   ? r->lft_size
                 : r->sl_mode == IBR_SL_PER_PAIR ? (size_t)ibr__n_src_slots(t) * r->lft_size
                                                 : 0;
    unsigned maxsl = 0;
    for (size_t i = 0; i < nsl; i++)
        maxsl = r->sl[i] > maxsl ? r->sl[i] : maxsl;
    char msg[384];
    /* an engine spread over more VLs than its layering needs (an engine
       that records no layer count, Nue, works with any): again, one fewer */
    if ((used + 1 > max_vls || maxsl >= 15) && used > 1 && (!r->layers || r->layers < used) &&
        !retried) {
        *next = IBR__MCAST_ROUTE_FEWER_VLS;
        return 0;
    }
    if (used + 1 > max_vls || maxsl >= 15) {
        snprintf(
            msg, sizeof msg,
            IBR__MSG("RT004",
                     "%s: the multicast trees close a credit loop with the unicast routes, and no "
                     "VL is left to move the multicast traffic to (%u used, max_vls %u)"),
            run->engine->name, used, max_vls);
        ibr__log(ctx, IBR_LOG_WARN, "%s", msg);
        return 0;
    }
    iso_tree tr = {IBR_NONE, NULL, NULL};
    uint8_t *hops = NULL;
    tr.up = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *tr.up);
    tr.stamp = ibr__calloc(ctx, t->n_sw ? t->n_sw : 1, sizeof *tr.stamp);
    if (!tr.up || !tr.stamp || ibr__switch_hops(&hops, t, run->nthreads) < 0) {
        rc = IBR_ENOMEM;
        goto out;
    }
    if ((rc = build_tree(&tr, run, hops)) < 0 || tr.root == IBR_NONE)
        goto out;
    /* unicast one SL (and, through the identity maps, one VL) up */
    if (r->sl_mode == IBR_SL_NONE) {
        if ((rc = ibr_run_set_sl_mode(run, IBR_SL_PER_DEST)) < 0)
            goto out;
        memset(r->sl, 1, r->lft_size);
    } else {
        for (size_t i = 0; i < nsl; i++)
            r->sl[i]++;
    }
    ibr__result_set_layering(r, used + 1, r->layers);
    if ((rc = write_trees(&tr, run)) < 0)
        goto out;
    r->mcast_trees = IBR_MCAST_TREES_SPANNING;
    rc = ibr_run_find_credit_loop(NULL, 0, &len, run);
    if (rc != 0 && rc != IBR_EDEADLOCK)
        goto out;
    snprintf(
        msg, sizeof msg,
        IBR__MSG("RT005",
                 "%s: the multicast trees closed a credit loop with the unicast routes: unicast "
                 "path SLs moved up by one (VLs used %u -> %u), multicast alone on SL/VL 0 on one "
                 "spanning tree rooted at switch 0x%016llx%s"),
        run->engine->name, used, used + 1, (unsigned long long)t->nodes[t->sw_node[tr.root]].guid,
        rc == 0 ? "" : " (a credit loop remains)");
    ibr__log(ctx, rc == 0 ? IBR_LOG_INFO : IBR_LOG_WARN, "%s", msg);
    rc = 0;
out:
    ibr__free(ctx, hops);
    ibr__free(ctx, tr.up);
    ibr__free(ctx, tr.stamp);
    return rc == IBR_ENOMEM ? ibr__run_fail(run, IBR_ENOMEM, "out of memory") : rc;
}
