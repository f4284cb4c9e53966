/*
 * Multicast trees of the engines that balance by link loads (sssp, dfsssp,
 * nue), after OpenSM 3.3: per MLID with at least two member ports, the
 * root is OpenSM's generic choice (ibr_run_mcast_root()); one search from
 * the root over the loads the unicast routing left gives every switch its
 * way toward the root; each switch with members then sets its member
 * ports and walks toward the root, setting the upstream port on each
 * switch and the downstream port on its parent. The loads are read, never
 * changed, so the trees add nothing to the unicast balance and follow the
 * least loaded links.
 *
 * OpenSM weighs a hop as P^2 + load (P the LIDs), so its search takes a
 * shortest path first and the least loaded among those; ibroute compares
 * (hops, load) lexicographically, which is that order without the
 * overflow, in level order from the root (as sssp's own search). Among
 * equally loaded ways the lowest-numbered port wins. Members out of the
 * root's reach stay out of the tree. Router members get their port (OpenSM
 * sets only the CA ports of a switch and the path of every member switch);
 * ibroute gives every member its packets.
 *
 * Time: O(S + E) per MLID for the search plus the members' paths (each
 * switch walked once per MLID); without loads from the engine, O(L·S) once
 * to read them from the LFTs (L LIDs).
 */
#include <string.h>

#include "mcast/loaded.h"
#include "sys/run_int.h"

typedef struct ml_state {
    const ibr_topo *t;
    ibr_run *run;
    const uint8_t *hops;
    const uint64_t *load;
    uint32_t *order, *par, *stamp, cnt[257];
    uint64_t *dist;
} ml_state;

/* Loads per channel (adjacency entry) of the routes in the run's LFTs:
   every LID's tree, each switch adding the LIDs delivered at it (its own
   and its end ports': OpenSM's num_hca) to the channels on its way. */
static int loads_from_lfts(ibr_run *run, const ibr_topo *t, uint64_t *load)
{
    ibr_context *ctx = run->topo->ctx;
    uint32_t S = t->n_sw;
    uint32_t *padj = ibr__mallocarray(ctx, t->n_ports, sizeof *padj);
    uint64_t *w = ibr__calloc(ctx, S, sizeof *w);
    uint64_t *sub = ibr__mallocarray(ctx, S, sizeof *sub);
    uint32_t *next = ibr__mallocarray(ctx, S, sizeof *next);
    uint32_t *indeg = ibr__mallocarray(ctx, S, sizeof *indeg);
    uint32_t *queue = ibr__mallocarray(ctx, S, sizeof *queue);
    uint8_t **lft = ibr__mallocarray(ctx, S, sizeof *lft);
    int rc = 0;
    if (!padj || !w || !sub || !next || !indeg || !queue || !lft) {
        rc = IBR_ENOMEM;
        goto out;
    }
    memset(padj, 0xFF, (size_t)t->n_ports * sizeof *padj);
    for (uint32_t y = 0; y < S; y++) {
        lft[y] = ibr_run_lft(run, y);
        uint32_t po = t->nodes[t->sw_node[y]].port_off;
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++)
            padj[po + t->adj[e].port] = e;
    }
    for (unsigned lid = 1; lid <= t->max_lid; lid++)
        if (t->lid_port[lid] != IBR_NONE && t->lid_sw[lid] != IBR_NONE)
            w[t->lid_sw[lid]]++;
    for (unsigned lid = 1; lid <= t->max_lid; lid++) {
        if (t->lid_port[lid] == IBR_NONE || t->lid_sw[lid] == IBR_NONE)
            continue;
        memset(indeg, 0, (size_t)S * sizeof *indeg);
        for (uint32_t y = 0; y < S; y++) {
            uint8_t p = lft[y][lid];
            uint32_t e = p == IBR_NO_ROUTE || p == 0
                             ? IBR_NONE
                             : padj[t->nodes[t->sw_node[y]].port_off + p];
            next[y] = e;
            sub[y] = w[y];
            if (e != IBR_NONE)
                indeg[t->adj[e].sw]++;
        }
        /* leaves first: every switch passes its sum on once its upstream
           neighbours are done (a looping LFT leaves its cycle unsummed) */
        uint32_t h = 0, n = 0;
        for (uint32_t y = 0; y < S; y++)
            if (!indeg[y])
                queue[n++] = y;
        while (h < n) {
            uint32_t y = queue[h++], e = next[y];
            if (e == IBR_NONE)
                continue;
            uint32_t z = t->adj[e].sw;
            load[e] += sub[y];
            sub[z] += sub[y];
            if (--indeg[z] == 0)
                queue[n++] = z;
        }
    }
out:
    ibr__free(ctx, padj);
    ibr__free(ctx, w);
    ibr__free(ctx, sub);
    ibr__free(ctx, next);
    ibr__free(ctx, indeg);
    ibr__free(ctx, queue);
    ibr__free(ctx, lft);
    return rc;
}

/* Every switch's least loaded shortest way toward root into m->par
   (IBR_NONE: the root itself or out of reach). */
static void search(ml_state *m, uint32_t root)
{
    const ibr_topo *t = m->t;
    const uint8_t *hr = m->hops + (size_t)root * t->n_sw;
    uint32_t no = ibr__hops_level_order(t, m->hops, root, m->order, m->cnt);
    memset(m->par, 0xFF, (size_t)t->n_sw * sizeof *m->par);
    m->dist[root] = 0;
    for (uint32_t k = 1; k < no; k++) {
        uint32_t y = m->order[k];
        uint64_t best = UINT64_MAX;
        uint32_t be = IBR_NONE;
        for (uint32_t e = t->adj_off[y]; e < t->adj_off[y + 1]; e++) {
            uint32_t z = t->adj[e].sw;
            if (hr[z] + 1u != hr[y])
                continue;
            uint64_t v = m->dist[z] + m->load[e];
            if (v < best) {
                best = v;
                be = e;
            }
        }
        m->dist[y] = best;
        m->par[y] = be;
    }
}

/* The tree of mlid over members m[0..n). */
static int tree(ml_state *s, uint16_t mlid, uint32_t gid, const ibr_mcast_member *m, size_t n)
{
    const ibr_topo *t = s->t;
    uint32_t root;
    int rc = ibr_run_mcast_root(&root, s->run, s->hops, mlid);
    if (rc == IBR_ENOTFOUND)
        return 0; /* fewer than two members: no tree, as OpenSM */
    if (rc < 0)
        return rc;
    search(s, root);
    const uint8_t *hr = s->hops + (size_t)root * t->n_sw;
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint32_t sw;
        unsigned port;
        const ibr__node *nd = &t->nodes[m[i].node];
        if (nd->sw != IBR_NONE) {
            sw = nd->sw;
            port = 0;
        } else {
            const ibr__port *pt = ibr__tport(t, m[i].node, m[i].port);
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                t->nodes[pt->remote_node].sw == IBR_NONE)
                continue;
            sw = t->nodes[pt->remote_node].sw;
            port = pt->remote_port;
        }
        if (hr[sw] == 255)
            continue; /* out of the root's reach */
        rc = ibr_run_add_mcast_port(s->run, mlid, sw, port);
        for (uint32_t y = sw; rc == 0 && y != root && s->stamp[y] != gid + 1;) {
            s->stamp[y] = gid + 1;
            const ibr__adj *a = &t->adj[s->par[y]];
            rc = ibr_run_add_mcast_port(s->run, mlid, y, a->port);
            if (rc == 0)
                rc = ibr_run_add_mcast_port(s->run, mlid, a->sw, a->rport);
            y = a->sw;
        }
    }
    return rc;
}

int ibr__mcast_loaded(ibr_run *run, const uint8_t *hops, const uint64_t *load)
{
    return ibr__mcast_loaded_on(run, ibr_run_topo(run), hops, load);
}

int ibr__mcast_loaded_on(ibr_run *run, const ibr_topo *t, const uint8_t *hops,
                         const uint64_t *load)
{
    const ibr_mcast_groups *g = ibr_run_mcast_groups(run);
    if (!g || !ibr_mcast_groups_mlid_count(g))
        return 0;
    ibr_context *ctx = run->topo->ctx;
    uint32_t S = t->n_sw;
    ml_state s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.run = run;
    uint8_t *own_hops = NULL;
    uint64_t *own_load = NULL;
    ibr_mcast_member *m = NULL;
    size_t cap = 0;
    int rc = 0;
    s.order = ibr__mallocarray(ctx, S, sizeof *s.order);
    s.par = ibr__mallocarray(ctx, S, sizeof *s.par);
    s.stamp = ibr__calloc(ctx, S, sizeof *s.stamp);
    s.dist = ibr__mallocarray(ctx, S, sizeof *s.dist);
    if (!s.order || !s.par || !s.stamp || !s.dist)
        goto nomem;
    if (!hops) {
        if (!(own_hops = ibr__mallocarray(ctx, S ? S : 1, S ? S : 1)))
            goto nomem;
        if ((rc = ibr_topo_switch_hops(own_hops, t, ibr_run_threads(run))) < 0)
            goto out;
        hops = own_hops;
    }
    if (!load) {
        if (!(own_load = ibr__calloc(ctx, t->n_adj ? t->n_adj : 1, sizeof *own_load)))
            goto nomem;
        if ((rc = loads_from_lfts(run, t, own_load)) < 0)
            goto out;
        load = own_load;
    }
    s.hops = hops;
    s.load = load;
    size_t nm = ibr_mcast_groups_mlid_count(g);
    for (size_t i = 0; i < nm && rc == 0; i++) {
        uint16_t mlid = ibr_mcast_groups_mlid(g, i);
        size_t need = 0;
        rc = ibr_mcast_groups_members(m, cap, &need, g, mlid);
        if (rc == IBR_ERANGE || (rc == 0 && need > cap)) {
            ibr__free(ctx, m);
            cap = need;
            if (!(m = ibr__mallocarray(ctx, cap, sizeof *m)))
                goto nomem;
            rc = ibr_mcast_groups_members(m, cap, &need, g, mlid);
        }
        if (rc == 0)
            rc = tree(&s, mlid, (uint32_t)i, m, need);
    }
    if (rc == 0)
        rc = ibr_run_set_mcast_built(run);
    goto out;
nomem:
    rc = IBR_ENOMEM;
out:
    ibr__free(ctx, m);
    ibr__free(ctx, own_hops);
    ibr__free(ctx, own_load);
    ibr__free(ctx, s.order);
    ibr__free(ctx, s.par);
    ibr__free(ctx, s.stamp);
    ibr__free(ctx, s.dist);
    if (rc == IBR_ENOMEM)
        return ibr__run_fail(run, IBR_ENOMEM, "out of memory");
    return rc;
}
