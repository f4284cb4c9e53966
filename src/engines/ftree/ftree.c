/*
 * ftree: OpenSM 3.3's fat-tree routing. This file builds the engine's model
 * of the fabric and decides whether the engine applies; ftree_route.c
 * assigns the routes.
 *
 * 1. Ranking. With root GUIDs the roots are those switches (a CA GUID or a
 *    CA port GUID means the switch it is cabled to, as the opensm(8) page
 *    says) and a switch's rank is its distance from the nearest root.
 *    Without them, distances are measured from the switches that carry
 *    CAs; the switches farthest away become the roots and every switch is
 *    ranked again by its distance from them. Switches cut off from every
 *    root (a leaf that lost all its cables up) are ranked from the CAs
 *    below them, like the leaves of the rest (rank_orphans); switches
 *    still unranked (no CA within the tree's rank) are dropped with the
 *    CAs cabled to them.
 * 2. Compute nodes. A CA port is a compute node (CN) unless a CN list is
 *    given and does not name it, or it is listed as an I/O node. CNs must
 *    all hang off switches of the leaf rank: the largest rank, or with
 *    root GUIDs the rank of the switch of the first CN.
 * 3. Port groups: ports toward the same neighbour switch, or toward one CA
 *    port, form a group that is UP, SIBLING or DOWN by rank.
 * 4. Without root GUIDs OpenSM wants the tree pure: per rank, every switch
 *    has as many UP groups, as many DOWN groups (leaves excepted) and as
 *    many ports in each group as the first switch of that rank. With
 *    ftree.strict the first rule broken declines the engine, naming both
 *    switches. By default an impure tree is a degraded fat tree: it is
 *    routed as long as it is a tree of ranks
 *    (no cable within a rank): with OpenSM's counters (ftree_route.c,
 *    ibr__ftree_assign) and balanced on the surviving cables
 *    (ibr__ftree_assign_degraded), keeping OpenSM's routing, whose shift
 *    patterns spread better, while its busiest link is within
 *    ftree.degraded_tolerance percent of the balanced one's. The artefact
 *    "ftree-degraded.txt" says what is missing per rank and which routing
 *    was kept. When the ranking from the farthest switches
 *    puts compute nodes on two ranks (an upper switch that lost its cables
 *    down looks farthest), the switches are ranked again by their distance
 *    from the compute nodes' switches.
 * 5. Indexing: starting at the first leaf, a breadth-first walk gives every
 *    switch a tuple (rank, digits) that orders leaves and groups, as
 *    OpenSM's indexing does; the leaves in tuple order, trimmed to the
 *    first and last leaf that carry CNs, are the order in which CNs are
 *    routed and listed in the "opensm-ftree-ca-order.dump" artefact.
 *
 * The tree rank (leaf rank + 1) must be 2..8 and at least two leaves must
 * carry CNs. Ports with LMC > 0 get their base LID routed as above and
 * their other LIDs spread over different upper switches (ftree_lmc.c;
 * OpenSM declines LMC > 0). After routing, every
 * end-port pair the fabric connects must have a route (check_connected: a
 * split tree, or end ports off the leaf rank beyond max_reverse_hops,
 * leaves some without an up/down path, and the engine declines); a fabric
 * with links within a rank, or I/O nodes given reverse hops, is checked
 * for credit loops; a loop declines the engine. Without either (and
 * without connect_roots) every route is up then down over the ranks, and
 * the ranks are kept as the routing's orientation for repairs
 * (keep_orientation).
 *
 * Where ibroute differs from OpenSM 3.3.23 (everything else, tables and CN
 * order included, is meant to be identical):
 * - root GUIDs of CAs or CA ports name their switch (OpenSM ignores them);
 * - every DOWN group is checked for the port-count rule (OpenSM checks the
 *   first one only, as if comparing group 0 each time);
 * - router ports are routed like non-compute CA ports (OpenSM leaves them
 *   without routes);
 * - the CNs of a leaf are routed in the order its groups have at the
 *   leaf's turn (OpenSM reads the live list, which routing may re-sort when
 *   switches hang below a leaf, and then skips CNs);
 * - credit loops decline instead of being routed;
 * - LMC > 0 is routed (OpenSM's ftree declines it);
 * - end-port pairs the fabric connects without an up/down route decline
 *   (OpenSM leaves them empty), and switches cut off from the roots are
 *   ranked and routed (OpenSM drops them).
 * Time: O(S + P + S*T) for S switches, P ports and T tuple probes (at most
 * 255 per switch), plus the routing (ftree_route.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/messages.h"
#include "engines/ftree/ftree_int.h"

static uint64_t sw_guid(const ftree *ft, uint32_t s)
{
    return ft->t->nodes[ft->t->sw_node[s]].guid;
}

static const ibr__node *sw_nodep(const ftree *ft, uint32_t s)
{
    return &ft->t->nodes[ft->t->sw_node[s]];
}

/* ------------------------------------------------------------------ */
/* group sorting                                                       */

/* OpenSM orders groups by load, ties by the remote switch's tuple; its
   bubble sorts are stable, so an insertion sort gives the same order. */
static int less_load(const ftree *ft, uint32_t a, uint32_t b, int down)
{
    const ft_group *ga = &ft->grp[a], *gb = &ft->grp[b];
    uint32_t la = down ? ga->cd : ga->cu, lb = down ? gb->cd : gb->cu;
    if (la != lb)
        return la < lb;
    return ga->rkey < gb->rkey;
}

/* The groups g[0..n) by their routes up (down: by their routes down). */
static void sort_load(ftree *ft, uint32_t *g, uint32_t n, int down)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = g[i], j = i;
        while (j > 0 && less_load(ft, v, g[j - 1], down)) {
            g[j] = g[j - 1];
            j--;
        }
        g[j] = v;
    }
}

void ibr__ftree_sort_up_load(ftree *ft, uint32_t *g, uint32_t n)
{
    sort_load(ft, g, n, 0);
}

void ibr__ftree_sort_down_load(ftree *ft, uint32_t *g, uint32_t n)
{
    sort_load(ft, g, n, 1);
}

/* By remote tuple only (indexing). */
static void sort_by_rkey(ftree *ft, uint32_t *g, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = g[i], j = i;
        while (j > 0 && ft->grp[v].rkey < ft->grp[g[j - 1]].rkey) {
            g[j] = g[j - 1];
            j--;
        }
        g[j] = v;
    }
}

/* ------------------------------------------------------------------ */
/* ranking                                                             */

static void bfs_rank(const ibr_topo *t, uint32_t *rank, uint32_t *queue)
{
    size_t k = 0;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (rank[s] == 0)
            queue[k++] = s;
    ibr_topo_bfs(rank, t, queue, k, queue); /* valid sources: cannot fail */
}

/* Switch an active cable of port (node, p) leads to, or IBR_NONE. */
static uint32_t cabled_switch(const ibr_topo *t, uint32_t node, unsigned p)
{
    const ibr__port *pt = ibr__tport(t, node, p);
    if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE)
        return IBR_NONE;
    return t->nodes[pt->remote_node].sw;
}

/* Roots from the options. Returns how many switches became roots. */
static uint32_t given_roots(ftree *ft, uint32_t *rank)
{
    const ibr_topo *t = ft->t;
    uint32_t roots = 0;
    size_t missing = 0, notsw = 0; /* past the first few, only counted */
    for (size_t i = 0; i < ft->o->n_root_guids; i++) {
        uint64_t g = ft->o->root_guids[i];
        uint32_t node;
        unsigned port;
        if (ibr_topo_find_guid(&node, &port, t, g) < 0) {
            if (missing++ < IBR__WARN_FIRST)
                ibr__log(ft->ctx, IBR_LOG_WARN,
                         IBR__MSG("EN016", "ftree: root GUID 0x%016" PRIx64 " not found"), g);
            continue;
        }
        uint32_t s = t->nodes[node].sw;
        if (s == IBR_NONE && port >= 1 && port <= t->nodes[node].nports)
            s = cabled_switch(t, node, port);
        if (s == IBR_NONE) {
            if (notsw++ < IBR__WARN_FIRST)
                ibr__log(ft->ctx, IBR_LOG_WARN,
                         IBR__MSG("EN017", "ftree: root GUID 0x%016" PRIx64
                                           " is not a switch nor cabled to one"),
                         g);
            continue;
        }
        if (rank[s] != 0) {
            rank[s] = 0;
            roots++;
        }
    }
    if (missing > IBR__WARN_FIRST)
        ibr__log(ft->ctx, IBR_LOG_WARN,
                 IBR__MSG("EN018", "ftree: %zu more root GUIDs not found (%zu in all)"),
                 missing - IBR__WARN_FIRST, missing);
    if (notsw > IBR__WARN_FIRST)
        ibr__log(
            ft->ctx, IBR_LOG_WARN,
            IBR__MSG("EN019",
                     "ftree: %zu more root GUIDs are not a switch nor cabled to one (%zu in all)"),
            notsw - IBR__WARN_FIRST, notsw);
    return roots;
}

/* Ranks from the CAs: distance from the switches carrying CAs, reversed,
   then measured again from the switches found farthest away. */
static int rank_from_cas(ftree *ft, uint32_t *rank, uint32_t *queue)
{
    const ibr_topo *t = ft->t;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        const ibr__node *nd = &t->nodes[n];
        if (nd->type != IBR_NODE_CA)
            continue;
        for (unsigned p = 1; p <= nd->nports; p++) {
            uint32_t s = cabled_switch(t, n, p);
            if (s != IBR_NONE)
                rank[s] = 0;
        }
    }
    bfs_rank(t, rank, queue);
    uint32_t m = 0;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (rank[s] != FT_NORANK && rank[s] > m)
            m = rank[s];
    for (uint32_t s = 0; s < t->n_sw; s++)
        rank[s] = rank[s] == m ? 0 : FT_NORANK;
    bfs_rank(t, rank, queue);
    return 0;
}

/* Whether every compute node hangs off a switch of the largest rank. */
static int cns_on_top_rank(const ftree *ft, const uint32_t *rank)
{
    for (uint32_t i = 0; i < ft->nca; i++)
        if (ft->ca[i].role == FT_CN && rank[ft->ca[i].sw] != ft->max_rank)
            return 0;
    return 1;
}

/* Ranks from the leaves (degraded trees): a switch's rank is the largest
   distance from a switch carrying compute nodes less its own, so that
   every compute node is on the largest rank; the model built so far is
   dropped. */
static void set_ranks(ftree *ft, const uint32_t *rank);
static void drop_model(ftree *ft);

static void rank_from_leaves(ftree *ft, uint32_t *rank, uint32_t *queue)
{
    const ibr_topo *t = ft->t;
    for (uint32_t s = 0; s < ft->nsw; s++)
        rank[s] = FT_NORANK;
    for (uint32_t i = 0; i < ft->nca; i++)
        if (ft->ca[i].role == FT_CN)
            rank[ft->ca[i].sw] = 0;
    bfs_rank(t, rank, queue);
    uint32_t m = 0;
    for (uint32_t s = 0; s < ft->nsw; s++)
        if (rank[s] != FT_NORANK && rank[s] > m)
            m = rank[s];
    for (uint32_t s = 0; s < ft->nsw; s++)
        if (rank[s] != FT_NORANK)
            rank[s] = m - rank[s];
    set_ranks(ft, rank);
    ibr__log(ft->ctx, IBR_LOG_INFO,
             "ftree: compute nodes on different ranks from the farthest switches; ranked "
             "again from the compute nodes' switches (%u ranks)", m + 1);
    drop_model(ft);
}

/* Switches cut off from every root (a leaf that lost all its cables up, a
   pod that lost its spines) are ranked like the leaves of the rest: from
   their switches that carry CAs, at max_rank less the distance (those
   farther than max_rank stay unranked). The tree still connects their end
   ports to each other, so they are routed; left unranked, they would get
   no route at all. Returns how many were ranked, or IBR_ENOMEM. */
static int rank_orphans(ftree *ft, uint32_t *rank, uint32_t *queue)
{
    const ibr_topo *t = ft->t;
    uint32_t nsrc = 0, nsw = ft->nsw;
    uint32_t *dist = ibr__calloc(ft->ctx, nsw, sizeof *dist);
    if (!dist)
        return IBR_ENOMEM;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        const ibr__node *nd = &t->nodes[n];
        if (nd->type != IBR_NODE_CA)
            continue;
        for (unsigned p = 1; p <= nd->nports; p++) {
            uint32_t s = cabled_switch(t, n, p);
            if (s != IBR_NONE && rank[s] == FT_NORANK && !dist[s]) {
                dist[s] = 1; /* marked */
                queue[nsrc++] = s;
            }
        }
    }
    int n = 0;
    if (nsrc > 0) {
        ibr_topo_bfs(dist, t, queue, nsrc, queue); /* valid sources: cannot fail */
        for (uint32_t s = 0; s < nsw; s++)
            if (rank[s] == FT_NORANK && dist[s] != UINT32_MAX && dist[s] <= ft->max_rank) {
                rank[s] = ft->max_rank - dist[s];
                ft->sw[s].rank = rank[s];
                n++;
            }
    }
    ibr__free(ft->ctx, dist);
    return n;
}

static void set_ranks(ftree *ft, const uint32_t *rank)
{
    ft->max_rank = 0;
    for (uint32_t s = 0; s < ft->nsw; s++) {
        ft->sw[s].rank = rank[s];
        if (rank[s] != FT_NORANK && rank[s] > ft->max_rank)
            ft->max_rank = rank[s];
    }
}

static int has_siblings(const ftree *ft)
{
    for (uint32_t s = 0; s < ft->nsw; s++)
        if (ft->sw[s].rank != FT_NORANK && ft->sw[s].nsib)
            return 1;
    return 0;
}

/* Drop the model built so far (CA ports, groups) for build_cas and
   build_groups to make again. */
static void drop_model(ftree *ft)
{
    ibr__free(ft->ctx, ft->ca);
    ibr__free(ft->ctx, ft->routers);
    ibr__free(ft->ctx, ft->grp);
    ibr__free(ft->ctx, ft->ports);
    ibr__free(ft->ctx, ft->order);
    ft->ca = NULL;
    ft->routers = NULL;
    ft->grp = NULL;
    ft->ports = NULL;
    ft->order = NULL;

}

/* A CA cabled straight to another CA is not a fat tree. */
static int check_ca_links(ftree *ft)
{
    const ibr_topo *t = ft->t;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        const ibr__node *nd = &t->nodes[n];
        if (nd->type != IBR_NODE_CA)
            continue;
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = ibr__tport(t, n, p);
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                pt->remote_node == n || t->nodes[pt->remote_node].type != IBR_NODE_CA)
                continue;
            return ibr__decline(ft->run,
                                IBR__MSG("EN020",
                                         "CA 0x%016" PRIx64 " port %u is cabled straight to CA "
                                         "0x%016" PRIx64 ": not a fat tree"),
                                nd->guid, p, t->nodes[pt->remote_node].guid);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* model: CA ports and port groups                                     */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int in_sorted(const uint64_t *v, size_t n, uint64_t key)
{
    return n && bsearch(&key, v, n, sizeof *v, cmp_u64) != NULL;
}

typedef struct ca_key {
    uint64_t key;
    uint32_t node;
} ca_key;

static int cmp_ca_key(const void *a, const void *b)
{
    const ca_key *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The CA ports cabled to ranked switches, in CA-table order (ascending
   byte-reversed node GUID), then port order. */
static int build_cas(ftree *ft, const uint32_t *rank)
{
    const ibr_topo *t = ft->t;
    const ibr_options *o = ft->o;
    ibr_context *ctx = ft->ctx;
    uint32_t ncas = 0, nports = 0, nrouters = 0;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        if (t->nodes[n].type == IBR_NODE_CA) {
            ncas++;
            nports += t->nodes[n].nports;
        }
    }
    for (uint32_t i = 0; i < t->n_end; i++)
        if (t->nodes[t->port_node[t->end_port[i]]].type == IBR_NODE_ROUTER)
            nrouters++;
    ca_key *keys = ibr__mallocarray(ctx, ncas ? ncas : 1, sizeof *keys);
    uint64_t *cn = ibr__mallocarray(ctx, o->n_cn_guids ? o->n_cn_guids : 1, sizeof *cn);
    uint64_t *io = ibr__mallocarray(ctx, o->n_io_guids ? o->n_io_guids : 1, sizeof *io);
    ft->ca = ibr__mallocarray(ctx, nports ? nports : 1, sizeof *ft->ca);
    ft->routers = ibr__mallocarray(ctx, nrouters ? nrouters : 1, sizeof *ft->routers);
    if (!keys || !cn || !io || !ft->ca || !ft->routers) {
        ibr__free(ctx, keys);
        ibr__free(ctx, cn);
        ibr__free(ctx, io);
        return IBR_ENOMEM;
    }
    if (o->n_cn_guids)
        memcpy(cn, o->cn_guids, o->n_cn_guids * sizeof *cn);
    if (o->n_io_guids)
        memcpy(io, o->io_guids, o->n_io_guids * sizeof *io);
    qsort(cn, o->n_cn_guids, sizeof *cn, cmp_u64);
    qsort(io, o->n_io_guids, sizeof *io, cmp_u64);
    uint32_t k = 0;
    for (uint32_t n = 0; n < t->n_nodes; n++)
        if (t->nodes[n].type == IBR_NODE_CA) {
            keys[k].key = ibr__guid_key(t->nodes[n].guid);
            keys[k++].node = n;
        }
    qsort(keys, ncas, sizeof *keys, cmp_ca_key);
    ft->nca = 0;
    ft->ncn = 0;
    for (uint32_t i = 0; i < ncas; i++) {
        uint32_t n = keys[i].node;
        const ibr__node *nd = &t->nodes[n];
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = ibr__tport(t, n, p);
            uint32_t s = cabled_switch(t, n, p);
            if (s == IBR_NONE || rank[s] == FT_NORANK)
                continue;
            ft_ca *c = &ft->ca[ft->nca++];
            c->gp = nd->port_off + p;
            c->sw = s;
            c->group = IBR_NONE;
            c->lid = pt->lid;
            c->swport = pt->remote_port;
            if (o->n_cn_guids && !in_sorted(cn, o->n_cn_guids, pt->guid))
                c->role = in_sorted(io, o->n_io_guids, pt->guid) ? FT_IO : FT_NONCN;
            else if (!o->n_cn_guids && in_sorted(io, o->n_io_guids, pt->guid))
                c->role = FT_IO;
            else
                c->role = FT_CN;
            ft->ncn += c->role == FT_CN;
        }
    }
    ft->nrouters = 0;
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint32_t gp = t->end_port[i];
        const ibr__port *pt = &t->ports[gp];
        if (t->nodes[t->port_node[gp]].type != IBR_NODE_ROUTER || pt->state != IBR_LINK_ACTIVE ||
            pt->remote_node == IBR_NONE)
            continue;
        uint32_t s = t->nodes[pt->remote_node].sw;
        if (s != IBR_NONE && rank[s] != FT_NORANK)
            ft->routers[ft->nrouters++] = gp;
    }
    ibr__free(ctx, keys);
    ibr__free(ctx, cn);
    ibr__free(ctx, io);
    return 0;
}

/* Port groups of every ranked switch, in the order of their first port. */
static int build_groups(ftree *ft, const uint32_t *rank)
{
    const ibr_topo *t = ft->t;
    ibr_context *ctx = ft->ctx;
    uint32_t nsw = ft->nsw, maxp = 0;
    for (uint32_t s = 0; s < nsw; s++)
        maxp += sw_nodep(ft, s)->nports;
    ft->grp = ibr__mallocarray(ctx, maxp ? maxp : 1, sizeof *ft->grp);
    ft->ports = ibr__mallocarray(ctx, maxp ? maxp : 1, sizeof *ft->ports);
    ft->order = ibr__mallocarray(ctx, maxp ? maxp : 1, sizeof *ft->order);
    /* scratch: per switch port the group it joins; per remote switch the
       group of the switch being built */
    uint32_t *pgrp = ibr__mallocarray(ctx, IBR_MAX_PORTS + 1, sizeof *pgrp);
    uint32_t *seen = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *seen);
    uint32_t *ca_of = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *ca_of);
    if (!ft->grp || !ft->ports || !ft->order || !pgrp || !seen || !ca_of) {
        ibr__free(ctx, pgrp);
        ibr__free(ctx, seen);
        ibr__free(ctx, ca_of);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < t->n_ports; i++)
        ca_of[i] = IBR_NONE;
    for (uint32_t i = 0; i < ft->nca; i++)
        ca_of[ft->ca[i].gp] = i;
    for (uint32_t s = 0; s < nsw; s++)
        seen[s] = IBR_NONE;
    uint32_t ng = 0, np = 0, no = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        ft_sw *w = &ft->sw[s];
        const ibr__node *nd = sw_nodep(ft, s);
        w->lid = t->ports[nd->port_off].lid;
        w->down = w->ndown = w->sib = w->nsib = w->up = w->nup = 0;
        if (rank[s] == FT_NORANK)
            continue;
        uint32_t g0 = ng;
        /* pass 1: groups in order of their first port, ports counted */
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = &t->ports[nd->port_off + p];
            pgrp[p] = IBR_NONE;
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                pt->remote_node == t->sw_node[s])
                continue;
            const ibr__node *rn = &t->nodes[pt->remote_node];
            uint32_t g;
            if (rn->type == IBR_NODE_SWITCH) {
                uint32_t r = rn->sw;
                if (rank[r] == FT_NORANK)
                    continue; /* cannot happen: ranks spread over active links */
                if (seen[r] != IBR_NONE && seen[r] >= g0) {
                    g = seen[r];
                } else {
                    g = seen[r] = ng++;
                    ft->grp[g].remote = r;
                    ft->grp[g].ca = IBR_NONE;
                    ft->grp[g].nports = 0;
                }
            } else if (rn->type == IBR_NODE_CA) {
                uint32_t c = ca_of[rn->port_off + pt->remote_port];
                if (c == IBR_NONE)
                    continue;
                g = ng++;
                ft->grp[g].remote = FT_CA;
                ft->grp[g].ca = c;
                ft->grp[g].nports = 0;
                ft->ca[c].group = g;
            } else {
                continue; /* routers are left out of the tree */
            }
            ft->grp[g].nports++;
            ft->grp[g].cu = ft->grp[g].cd = 0;
            ft->grp[g].rkey = UINT64_MAX;
            pgrp[p] = g;
        }
        /* pass 2: ports of each group contiguous, in port order */
        uint32_t off = np;
        for (uint32_t g = g0; g < ng; g++) {
            ft->grp[g].port0 = off;
            off += ft->grp[g].nports;
            ft->grp[g].nports = 0;
        }
        for (unsigned p = 1; p <= nd->nports; p++) {
            uint32_t g = pgrp[p];
            if (g == IBR_NONE)
                continue;
            ft_port *fp = &ft->ports[ft->grp[g].port0 + ft->grp[g].nports++];
            fp->port = (uint8_t)p;
            fp->rport = t->ports[nd->port_off + p].remote_port;
            fp->cu = fp->cd = 0;
            if (ft->grp[g].nports == 1)
                ft->grp[g].rport1 = fp->rport;
        }
        np = off;
        /* lists: down, sibling, up */
        w->down = no;
        for (uint32_t g = g0; g < ng; g++) {
            uint32_t r = ft->grp[g].remote;
            if (r == FT_CA || rank[r] > rank[s])
                ft->order[no++] = g;
        }
        w->ndown = no - w->down;
        w->sib = no;
        for (uint32_t g = g0; g < ng; g++) {
            uint32_t r = ft->grp[g].remote;
            if (r != FT_CA && rank[r] == rank[s])
                ft->order[no++] = g;
        }
        w->nsib = no - w->sib;
        w->up = no;
        for (uint32_t g = g0; g < ng; g++) {
            uint32_t r = ft->grp[g].remote;
            if (r != FT_CA && rank[r] < rank[s])
                ft->order[no++] = g;
        }
        w->nup = no - w->up;
    }
    ft->ngrp = ng;
    ft->nports = np;
    ibr__free(ctx, pgrp);
    ibr__free(ctx, seen);
    ibr__free(ctx, ca_of);
    return 0;
}

/* ------------------------------------------------------------------ */
/* indexing                                                            */

static uint64_t tuple_key(const uint8_t *tu)
{
    uint64_t k = 0;
    for (int i = 0; i < FT_TUPLE_LEN; i++)
        k = k << 8 | tu[i];
    return k;
}

/* The used-tuple set keys: never 0 (an all-0xFF tuple is not stored). */
static int tuple_used(const ibr__guidmap *m, const uint8_t *tu)
{
    return ibr__guidmap_get(m, ~tuple_key(tu)) != IBR_NONE;
}

static int assign_tuple(ftree *ft, ibr__guidmap *m, uint32_t s, const uint8_t *tu)
{
    memcpy(ft->sw[s].tuple, tu, FT_TUPLE_LEN);
    ft->sw[s].key = tuple_key(tu);
    if (ft->sw[s].key == UINT64_MAX)
        return 0;
    return ibr__guidmap_put(ft->ctx, m, ~ft->sw[s].key, s);
}

/* The tuple of a switch found from "from" going down (or up): the rank
   moves by one and the digit of the level crossed takes the smallest value
   no switch uses yet. All 0xFF (unassigned) when every value is taken. */
static void new_tuple(const ibr__guidmap *m, uint8_t *out, const uint8_t *from, int down)
{
    uint8_t tmp[FT_TUPLE_LEN];
    memcpy(tmp, from, FT_TUPLE_LEN);
    unsigned var;
    if (down) {
        tmp[0]++;
        var = from[0] + 1u;
    } else {
        tmp[0]--;
        var = from[0];
    }
    memset(out, 0xFF, FT_TUPLE_LEN);
    if (var >= FT_TUPLE_LEN)
        return;
    for (unsigned i = 0; i < 0xFF; i++) {
        tmp[var] = (uint8_t)i;
        if (!tuple_used(m, tmp)) {
            memcpy(out, tmp, FT_TUPLE_LEN);
            return;
        }
    }
}

/* One side of switch w in the indexing walk: the n groups at
   ft->order[first..] (down: toward the leaves) give each switch behind
   them without a tuple yet a new one and queue it; then the groups sort
   by their remotes' keys. (Up groups never lead to a CA.) */
static int index_side(ftree *ft, ibr__guidmap *used, uint8_t *tu, const ft_sw *w, uint32_t first,
                      uint32_t n, int down, uint32_t *queue, uint32_t *tail)
{
    int rc;
    for (uint32_t i = 0; i < n; i++) {
        ft_group *g = &ft->grp[ft->order[first + i]];
        if (g->remote == FT_CA || ft->sw[g->remote].tuple[0] != 0xFF)
            continue;
        new_tuple(used, tu, w->tuple, down);
        if ((rc = assign_tuple(ft, used, g->remote, tu)) < 0)
            return rc;
        queue[(*tail)++] = g->remote;
    }
    for (uint32_t i = 0; i < n; i++) {
        ft_group *g = &ft->grp[ft->order[first + i]];
        if (g->remote != FT_CA)
            g->rkey = ft->sw[g->remote].key;
    }
    sort_by_rkey(ft, ft->order + first, n);
    return 0;
}

static int make_indexing(ftree *ft, uint32_t *queue)
{
    uint32_t nsw = ft->nsw, first = IBR_NONE;
    ibr__guidmap used;
    memset(&used, 0, sizeof used);
    /* the first leaf that has cables up (a leaf cut off from the roots
       would index nothing else), else the first leaf */
    uint32_t first_any = IBR_NONE;
    for (uint32_t s = 0; s < nsw; s++) {
        memset(ft->sw[s].tuple, 0xFF, FT_TUPLE_LEN);
        ft->sw[s].key = UINT64_MAX;
        if (first_any == IBR_NONE && ft->sw[s].is_leaf)
            first_any = s;
        if (first == IBR_NONE && ft->sw[s].is_leaf && ft->sw[s].nup)
            first = s;
    }
    if (first == IBR_NONE)
        first = first_any;
    int rc = 0;
    if (first == IBR_NONE)
        goto out;
    uint8_t tu[FT_TUPLE_LEN];
    memset(tu, 0xFF, FT_TUPLE_LEN);
    tu[0] = (uint8_t)ft->sw[first].rank;
    for (uint32_t i = 1; i <= ft->leaf_rank && i < FT_TUPLE_LEN; i++)
        tu[i] = 0;
    if ((rc = assign_tuple(ft, &used, first, tu)) < 0)
        goto out;
    uint32_t head = 0, tail = 0;
    queue[tail++] = first;
    while (head < tail) {
        uint32_t s = queue[head++];
        ft_sw *w = &ft->sw[s];
        if (w->rank < ft->leaf_rank &&
            (rc = index_side(ft, &used, tu, w, w->down, w->ndown, 1, queue, &tail)) < 0)
            goto out;
        if (w->rank != 0 &&
            (rc = index_side(ft, &used, tu, w, w->up, w->nup, 0, queue, &tail)) < 0)
            goto out;
    }
    /* tuples are final: every switch group sorts by its remote's tuple */
    for (uint32_t g = 0; g < ft->ngrp; g++)
        if (ft->grp[g].remote != FT_CA)
            ft->grp[g].rkey = ft->sw[ft->grp[g].remote].key;
out:
    ibr__guidmap_free(ft->ctx, &used);
    return rc;
}

/* The leaves in tuple order, from the first to the last one with CNs. */
static int make_leaf_array(ftree *ft, const uint32_t *rank)
{
    uint32_t n = 0;
    ft->leaves = ibr__mallocarray(ft->ctx, ft->nsw ? ft->nsw : 1, sizeof *ft->leaves);
    if (!ft->leaves)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < ft->nsw; s++)
        if (rank[s] == ft->leaf_rank)
            ft->leaves[n++] = s;
    /* stable insertion sort by tuple (unassigned tuples keep table order) */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = ft->leaves[i], j = i;
        while (j > 0 && ft->sw[v].key < ft->sw[ft->leaves[j - 1]].key) {
            ft->leaves[j] = ft->leaves[j - 1];
            j--;
        }
        ft->leaves[j] = v;
    }
    uint32_t first = n, last = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ft->sw[ft->leaves[i]].is_leaf) {
            if (i < first)
                first = i;
            last = i;
        }
    if (first >= last) {
        ft->nleaves = 0;
        return 0;
    }
    memmove(ft->leaves, ft->leaves + first, (last - first + 1) * sizeof *ft->leaves);
    ft->nleaves = last - first + 1;
    /* most CNs on one leaf */
    ft->max_cn = 0;
    for (uint32_t i = 0; i < ft->nleaves; i++) {
        const ft_sw *w = &ft->sw[ft->leaves[i]];
        uint32_t c = 0;
        for (uint32_t k = 0; k < w->ndown; k++) {
            const ft_group *g = &ft->grp[ft->order[w->down + k]];
            c += g->remote == FT_CA && ft->ca[g->ca].role == FT_CN;
        }
        if (c > ft->max_cn)
            ft->max_cn = c;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* validation of a pure fat tree (no root GUIDs)                       */

/* The first purity rule the tree breaks, written into msg (len bytes);
   returns 1 when one is broken, 0 for a pure tree. */
static int impure(ftree *ft, const uint32_t *rank, char *msg, size_t len)
{
    uint32_t ref[FT_MAX_RANK + 1];
    for (unsigned i = 0; i <= FT_MAX_RANK; i++)
        ref[i] = IBR_NONE;
    for (uint32_t s = 0; s < ft->nsw; s++) {
        uint32_t r = rank[s];
        if (r == FT_NORANK || r > FT_MAX_RANK)
            continue;
        if (ref[r] == IBR_NONE) {
            ref[r] = s;
            continue;
        }
        const ft_sw *a = &ft->sw[ref[r]], *b = &ft->sw[s];
        uint64_t ga = sw_guid(ft, ref[r]), gb = sw_guid(ft, s);
        if (a->nup != b->nup) {
            snprintf(msg, len,
                     "switch 0x%016" PRIx64 " (rank %u) has %u up-going "
                     "port groups where switch 0x%016" PRIx64 " of the same rank has %u (rule: "
                     "switches of a rank have the same number of up-going port groups)",
                     gb, r, b->nup, ga, a->nup);
            return 1;
        }
        if (r != ft->leaf_rank && a->ndown != b->ndown) {
            snprintf(msg, len,
                     "switch 0x%016" PRIx64 " (rank %u) has %u down-going "
                     "port groups where switch 0x%016" PRIx64 " of the same rank has %u (rule: "
                     "switches of a rank above the leaves have the same number of down-going "
                     "port groups)",
                     gb, r, b->ndown, ga, a->ndown);
            return 1;
        }
        if (a->nup) {
            uint32_t want = ft->grp[ft->order[a->up]].nports;
            for (uint32_t i = 0; i < b->nup; i++) {
                const ft_group *g = &ft->grp[ft->order[b->up + i]];
                if (g->nports != want) {
                    snprintf(msg, len,
                             "switch 0x%016" PRIx64 " (rank %u) has %u "
                             "link(s) up to switch 0x%016" PRIx64 " where switch 0x%016" PRIx64
                             " of the same rank has %u per up-going port group (rule: the same "
                             "number of ports in each up-going port group)",
                             gb, r, g->nports, sw_guid(ft, g->remote), ga, want);
                    return 1;
                }
            }
        }
        if (a->ndown && r != ft->leaf_rank) {
            uint32_t want = ft->grp[ft->order[a->down]].nports;
            for (uint32_t i = 0; i < b->ndown; i++) {
                const ft_group *g = &ft->grp[ft->order[b->down + i]];
                if (g->nports != want) {
                    snprintf(msg, len,
                             "switch 0x%016" PRIx64 " (rank %u) has %u "
                             "link(s) down to %s 0x%016" PRIx64 " where switch 0x%016" PRIx64
                             " of the same rank has %u per down-going port group (rule: the "
                             "same number of ports in each down-going port group)",
                             gb, r, g->nports, g->remote == FT_CA ? "CA port" : "switch",
                             g->remote == FT_CA ? ft->t->ports[ft->ca[g->ca].gp].guid
                                                : sw_guid(ft, g->remote),
                             ga, want);
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* Without root GUIDs a tree of ranks has no link within a rank: such a
   link makes the fabric something else than a (degraded) fat tree. */
static int check_tree_of_ranks(ftree *ft)
{
    for (uint32_t s = 0; s < ft->nsw; s++)
        if (ft->sw[s].rank != FT_NORANK && ft->sw[s].nsib) {
            uint32_t o = ft->grp[ft->order[ft->sw[s].sib]].remote;
            return ibr__decline(ft->run,
                                IBR__MSG("EN021",
                                         "not a tree of ranks: switch 0x%016" PRIx64
                                         " and switch 0x%016" PRIx64
                                         " are both at rank %u (ranked from the compute nodes) and "
                                         "cabled together: not a fat tree"),
                                sw_guid(ft, s), sw_guid(ft, o), ft->sw[s].rank);
        }
    return 0;
}

/* Compute nodes on switch s. */
static uint64_t leaf_cns(const ftree *ft, uint32_t s)
{
    const ft_sw *w = &ft->sw[s];
    uint64_t c = 0;
    for (uint32_t k = 0; k < w->ndown; k++) {
        const ft_group *g = &ft->grp[ft->order[w->down + k]];
        c += g->remote == FT_CA && ft->ca[g->ca].role == FT_CN;
    }
    return c;
}

/* Compute-node pairs without an up/down path: their leaves have no route
   to each other in the hop matrix. check_connected() has declined the tree
   if the fabric connects any of them, so these are the pairs on different
   pieces of the fabric. */
static uint64_t pairs_split(const ftree *ft)
{
    uint64_t split = 0;
    size_t nsw = ft->nsw;
    for (uint32_t i = 0; ft->hm && i < ft->nleaves; i++) {
        uint32_t a = ft->leaves[i];
        uint64_t ca = leaf_cns(ft, a);
        for (uint32_t j = 0; ca && j < ft->nleaves; j++) {
            uint32_t c = ft->leaves[j];
            if (c != a && ft->hm[(size_t)a * nsw + c] == 255)
                split += ca * leaf_cns(ft, c);
        }
    }
    return split;
}

/* What is left of the tree, per rank: switches, the cables up from that
   rank, and estimates of the switches and cables missing. The switch count
   a full tree would have at rank r is estimated from the fullest switches
   (most cables) of the ranks next to it: E(r-1) = E(r) * up(r) / down(r-1)
   going up from the leaves, then the same downward, keeping the larger
   estimate; cables missing are those a full tree would have between the
   two ranks, less those of the missing switches. Leaves that lost hosts
   are counted against the fullest leaf. */
static int degraded_report(ftree *ft, const uint32_t *rank, const char *rule, unsigned tol)
{
    uint32_t L = ft->leaf_rank;
    uint64_t n[FT_MAX_RANK + 1], upp[FT_MAX_RANK + 1], maxup[FT_MAX_RANK + 1],
        maxdn[FT_MAX_RANK + 1], est[FT_MAX_RANK + 1];
    memset(n, 0, sizeof n);
    memset(upp, 0, sizeof upp);
    memset(maxup, 0, sizeof maxup);
    memset(maxdn, 0, sizeof maxdn);
    uint64_t lost[FT_MAX_RANK + 1];
    memset(lost, 0, sizeof lost);
    uint64_t hosts_missing = 0, thin_leaves = 0;
    for (uint32_t s = 0; s < ft->nsw; s++) {
        uint32_t r = rank[s];
        if (r == FT_NORANK || r > L)
            continue;
        const ft_sw *w = &ft->sw[s];
        uint64_t u = 0, d = 0, c = 0;
        for (uint32_t i = 0; i < w->nup; i++)
            u += ft->grp[ft->order[w->up + i]].nports;
        /* cables the topology still lists but that are not up (a link
           down): surely missing, and part of what the switch had */
        uint64_t ul = 0, dl = 0;
        const ibr__node *nd = sw_nodep(ft, s);
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = &ft->t->ports[nd->port_off + p];
            if (pt->remote_node == IBR_NONE || pt->state == IBR_LINK_ACTIVE ||
                ft->t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
                continue;
            uint32_t o = ft->t->nodes[pt->remote_node].sw;
            if (rank[o] != FT_NORANK && rank[o] + 1 == r)
                ul++;
            else if (rank[o] != FT_NORANK && rank[o] == r + 1)
                dl++;
        }
        lost[r] += ul;
        for (uint32_t i = 0; i < w->ndown; i++) {
            const ft_group *g = &ft->grp[ft->order[w->down + i]];
            if (g->remote != FT_CA)
                d += g->nports;
            else
                c += ft->ca[g->ca].role == FT_CN;
        }
        n[r]++;
        upp[r] += u;
        if (u + ul > maxup[r])
            maxup[r] = u + ul;
        if (d + dl > maxdn[r])
            maxdn[r] = d + dl;
        if (r == L && c < ft->max_cn) {
            thin_leaves++;
            hosts_missing += ft->max_cn - c;
        }
    }
    for (uint32_t r = 0; r <= L; r++)
        est[r] = n[r];
    for (uint32_t r = L; r > 0; r--) /* upward */
        if (maxdn[r - 1]) {
            uint64_t e = (est[r] * maxup[r] + maxdn[r - 1] / 2) / maxdn[r - 1];
            if (e > est[r - 1])
                est[r - 1] = e;
        }
    for (uint32_t r = 0; r < L; r++) /* downward */
        if (maxup[r + 1]) {
            uint64_t e = (est[r] * maxdn[r] + maxup[r + 1] / 2) / maxup[r + 1];
            if (e > est[r + 1])
                est[r + 1] = e;
        }
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr__buf_printf(&b, ft->ctx,
                             "# ftree: degraded fat tree, routed (ftree.strict=1 declines it)\n"
                             "# first purity rule broken: %s\n"
                             "# rank 0 = roots; missing = estimated against the fullest "
                             "switches of the ranks\n"
                             "# rank\tswitches\tmissing_switches\tcables_up\tmissing_cables_up\n",
                             rule);
    char line[512];
    size_t off = 0;
    uint64_t tot_sw = 0, tot_cab = 0;
    line[0] = 0;
    for (uint32_t r = 0; r <= L && rc == 0; r++) {
        uint64_t msw = est[r] - n[r], mcab = 0;
        if (r > 0) {
            uint64_t full = est[r] * maxup[r], gone = full > upp[r] ? full - upp[r] : 0;
            uint64_t bysw = (est[r] - n[r]) * maxup[r] + (est[r - 1] - n[r - 1]) * maxdn[r - 1];
            mcab = gone > bysw ? gone - bysw : 0;
            if (mcab < lost[r])
                mcab = lost[r];
        }
        tot_sw += msw;
        tot_cab += mcab;
        rc = ibr__buf_printf(&b, ft->ctx, "%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
                             r, n[r], msw, r ? upp[r] : 0, mcab);
        if (off < sizeof line && (msw || mcab)) {
            int k = snprintf(line + off, sizeof line - off,
                             "%srank %u: %" PRIu64 " switch(es), %" PRIu64 " cable(s) up missing",
                             off ? "; " : "", r, msw, mcab);
            off += k > 0 ? (size_t)k : 0;
        }
    }
    if (rc == 0)
        rc = ibr__buf_printf(&b, ft->ctx,
                             "# leaves with fewer compute nodes than the fullest (%u): %" PRIu64
                             ", compute nodes missing: %" PRIu64 "\n",
                             ft->max_cn, thin_leaves, hosts_missing);
    char how[200];
    if (ft->dg_classic && ft->dg_balanced)
        snprintf(how, sizeof how,
                 "%s (busiest link %" PRIu32 " with OpenSM's counters, %" PRIu32
                 " balanced; tolerance %u %%)",
                 ft->dg_kept_classic ? "OpenSM's counters kept" : "balanced on the link loads",
                 ft->dg_classic, ft->dg_balanced, tol);
    else
        snprintf(how, sizeof how, "%s (tolerance %u %%)",
                 ft->dg_kept_classic ? "OpenSM's counters" : "balanced on the link loads", tol);
    uint64_t split = pairs_split(ft);
    if (rc == 0)
        rc = ibr__buf_printf(&b, ft->ctx,
                             "# compute-node pairs without an up/down path (the fabric "
                             "does not connect them: no route): %" PRIu64 "\n",
                             split);
    if (rc == 0)
        rc = ibr__buf_printf(&b, ft->ctx, "# routing: %s\n", how);
    if (rc == 0)
        rc = ibr__buf_printf(&b, ft->ctx,
                             "degraded: %" PRIu64 " switch(es) and %" PRIu64
                             " cable(s) missing%s%s%s, %" PRIu64
                             " leaf(s) with fewer compute nodes, %" PRIu64
                             " compute-node pair(s) without an up/down path\n",
                             tot_sw, tot_cab, off ? " (" : "", line, off ? ")" : "",
                             thin_leaves, split);
    if (rc == 0)
        rc = ibr_run_add_artifact(ft->run, "ftree-degraded.txt", b.data, b.size);
    ibr_buffer_dispose(&b);
    if (rc == 0)
        ibr__log(ft->ctx, IBR_LOG_WARN,
                 IBR__MSG("EN022",
                          "ftree: degraded fat tree routed: %" PRIu64 " switch(es) and %" PRIu64
                          " cable(s) missing, %" PRIu64
                          " leaf(s) with fewer compute nodes, %" PRIu64
                          " compute-node pair(s) without an up/down path%s%s; routing: %s (%s)"),
                 tot_sw, tot_cab, thin_leaves, split, off ? "; " : "", line, how, rule);
    return rc;
}

/* ------------------------------------------------------------------ */
/* the compute-node order artefact                                     */

static int ca_order_artifact(ftree *ft)
{
    const ibr_topo *t = ft->t;
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = 0;
    size_t n = (size_t)ft->nleaves * ft->max_cn;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (ft->cn_seq[i] == IBR_NONE) {
            rc = ibr__buf_puts(&b, ft->ctx, "0xFFFF\tDUMMY\n");
        } else {
            const ft_ca *c = &ft->ca[ft->cn_seq[i]];
            rc = ibr__buf_printf(&b, ft->ctx, "0x%04x\t%s\n", c->lid,
                                 t->nodes[t->port_node[c->gp]].desc);
        }
    }
    if (rc == 0)
        rc = ibr_run_add_artifact(ft->run, "opensm-ftree-ca-order.dump", b.data ? b.data : "",
                                  b.size);
    ibr_buffer_dispose(&b);
    return rc;
}

/* The rank-order artefact: the compute nodes in the order routed (index:
   position in that sequence, dummies counted), then the other CA ports
   and the routers, in the order routed after them. */
static int rank_order_artifact(ftree *ft)
{
    size_t nseq = (size_t)ft->nleaves * ft->max_cn, cap = nseq + ft->nca + ft->nrouters, n = 0;
    uint32_t *gp = ibr__mallocarray(ft->ctx, cap ? cap : 1, sizeof *gp);
    uint64_t *index = ibr__mallocarray(ft->ctx, cap ? cap : 1, sizeof *index);
    uint64_t next = nseq;
    int rc = IBR_ENOMEM;
    if (gp && index) {
        for (size_t i = 0; i < nseq; i++)
            if (ft->cn_seq[i] != IBR_NONE && ft->ca[ft->cn_seq[i]].lid) {
                gp[n] = ft->ca[ft->cn_seq[i]].gp;
                index[n++] = i;
            }
        for (uint32_t i = 0; i < ft->nca; i++)
            if (ft->ca[i].role != FT_CN && ft->ca[i].lid) {
                gp[n] = ft->ca[i].gp;
                index[n++] = next++;
            }
        for (uint32_t i = 0; i < ft->nrouters; i++)
            if (ft->t->ports[ft->routers[i]].lid) {
                gp[n] = ft->routers[i];
                index[n++] = next++;
            }
        rc = ibr__rank_order_artifact(ft->run, "ftree", gp, index, n);
    }
    ibr__free(ft->ctx, gp);
    ibr__free(ft->ctx, index);
    return rc;
}

/* ------------------------------------------------------------------ */
/* credit loops                                                        */

/* Routes that only go up, then down, between ranks have no credit loop.
   Links between switches of one rank (SIBLING groups, possible with root
   GUIDs) and the reverse hops of I/O nodes can close one: then the routes
   are checked, and a loop declines the engine (it promises freedom from
   credit loops; OpenSM would route anyway). */
static int check_loops(ftree *ft)
{
    uint32_t sa = IBR_NONE, sb = IBR_NONE;
    for (uint32_t s = 0; s < ft->nsw && sa == IBR_NONE; s++)
        if (ft->sw[s].rank != FT_NORANK && ft->sw[s].nsib) {
            sa = s;
            sb = ft->grp[ft->order[ft->sw[s].sib]].remote;
        }
    int rev = 0;
    for (uint32_t i = 0; i < ft->nca && ft->max_reverse_hops; i++)
        rev |= ft->ca[i].role == FT_IO;
    if (sa == IBR_NONE && !rev)
        return 0;
    ibr_channel ch;
    size_t len = 0;
    int rc = ibr_run_find_credit_loop(&ch, 1, &len, ft->run);
    if (rc != IBR_EDEADLOCK)
        return rc;
    if (sa != IBR_NONE)
        return ibr__decline(
            ft->run,
            IBR__MSG("EN023",
                     "the routes have a credit loop of %zu links (through switch 0x%016" PRIx64
                     " port %u): links between switches of the same rank (e.g. 0x%016" PRIx64
                     " - 0x%016" PRIx64 ", rank %u) carry routes both ways; give root GUIDs that "
                     "put every link between two ranks"),
            len, sw_guid(ft, ch.sw), ch.port, sw_guid(ft, sa), sw_guid(ft, sb), ft->sw[sa].rank);
    return ibr__decline(
        ft->run,
        IBR__MSG("EN024", "the routes have a credit loop of %zu links (through switch 0x%016" PRIx64
                          " port %u), closed by the reverse hops of I/O nodes "
                          "(max_reverse_hops %u); lower it"),
        len, sw_guid(ft, ch.sw), ch.port, ft->max_reverse_hops);
}

/* ------------------------------------------------------------------ */
/* the orientation kept for repairs                                    */

/* Where every route goes only up (toward rank 0), then only down, the
   routes are legal under the orientation that places the switches by rank,
   then by index: an up step always goes to a smaller place. It is kept
   with the routing (ibr__run_set_upos()) so that a reroute repairs it in
   place under that orientation (persist/reroute_updown.c). Not kept where
   a route may take another shape: links within a rank (SIBLING groups),
   reverse hops of I/O nodes, connect_roots, or an unranked switch.
   0, or IBR_ENOMEM (the run's message not set). */
static int keep_orientation(ftree *ft, const uint32_t *rank)
{
    if (ft->connect_roots)
        return 0;
    for (uint32_t s = 0; s < ft->nsw; s++)
        if (rank[s] == FT_NORANK || ft->sw[s].nsib)
            return 0;
    for (uint32_t i = 0; i < ft->nca && ft->max_reverse_hops; i++)
        if (ft->ca[i].role == FT_IO)
            return 0;
    uint32_t *pos = ibr__mallocarray(ft->ctx, ft->nsw ? ft->nsw : 1, sizeof *pos);
    if (!pos)
        return IBR_ENOMEM;
    uint32_t next = 0;
    for (uint32_t r = 0; r <= ft->max_rank; r++)
        for (uint32_t s = 0; s < ft->nsw; s++)
            if (rank[s] == r)
                pos[s] = next++;
    int rc = 0;
    if (next == ft->nsw && ibr__run_set_upos(ft->run, pos) < 0)
        rc = IBR_ENOMEM;
    ibr__free(ft->ctx, pos);
    return rc;
}

/* ------------------------------------------------------------------ */
/* pairs the fabric connects                                           */

static const uint8_t *lft_row(void *arg, uint32_t sw)
{
    return ibr_run_lft(arg, sw);
}

/* Every end-port pair the fabric connects must be routed: where the cables
   left join two end ports only by paths that turn down then up (a split
   tree; end ports off the leaf rank beyond max_reverse_hops), up/down
   routing leaves the pair without a route, and the engine declines so
   that the chain falls back (and OpenSM, running the plugin, to its next
   engine) instead of handing out tables that do not connect what the
   fabric does. The pairs are those ibr_result_verify() counts. */
static int check_connected(ftree *ft)
{
    const ibr_topo *t = ft->t;
    uint64_t n = 0;
    uint32_t sw;
    uint16_t lid;
    unsigned lmc_cap = ft->o->lmc == IBR_LMC_TOPO ? 7 : ft->o->lmc; /* LIDs routed */
    if (ibr__unrouted_pairs(&n, &sw, &lid, t, lft_row, ft->run, lmc_cap) < 0)
        return ibr__fail(ft->run, IBR_ENOMEM, "out of memory");
    if (n == 0)
        return 0;
    return ibr__decline(
        ft->run,
        IBR__MSG("EN025", "%" PRIu64 " end-port pair(s) the fabric connects have no up/down "
                          "route (e.g. from the end ports of switch 0x%016" PRIx64
                          " to LID %u, port 0x%016" PRIx64 "): the cables left join them only "
                          "by paths that turn down then up (a split tree, or end ports off the "
                          "leaf rank beyond max_reverse_hops %u)"),
        n, sw_guid(ft, sw), lid, t->ports[t->lid_port[lid]].guid, ft->max_reverse_hops);
}

/* ------------------------------------------------------------------ */
/* the engine                                                          */

static void ft_free(ftree *ft)
{
    ibr_context *ctx = ft->ctx;
    ibr__free(ctx, ft->sw);
    ibr__free(ctx, ft->grp);
    ibr__free(ctx, ft->ports);
    ibr__free(ctx, ft->order);
    ibr__free(ctx, ft->ca);
    ibr__free(ctx, ft->routers);
    ibr__free(ctx, ft->leaves);
    ibr__free(ctx, ft->hops);
    ibr__free(ctx, ft->batch);
    ibr__free(ctx, ft->hbatch);
    ibr__free(ctx, ft->batch_lid);
    ibr__free(ctx, ft->hbatch_sw);
    ibr__free(ctx, ft->cn_seq);
    ibr__free(ctx, ft->cls_gen);
    ibr__free(ctx, ft->cls_h);
}

/* Preconditions that need no model. */
static int check_basics(ftree *ft)
{
    const ibr_topo *t = ft->t;
    if (t->n_sw < 2)
        return ibr__decline(
            ft->run, IBR__MSG("EN026", "the fabric has %u switch(es): not a fat tree"), t->n_sw);
    uint32_t cas = 0, others = 0;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        cas += t->nodes[n].type == IBR_NODE_CA;
        others += t->nodes[n].type != IBR_NODE_SWITCH;
    }
    if (others < 2 || cas < 2)
        return ibr__decline(ft->run, IBR__MSG("EN027", "the fabric has %u CA(s): not a fat tree"),
                            cas);
    return 0;
}

/* Step 1: every switch's rank, from the root GUIDs given or from the CAs;
   switches cut off from the roots ranked from the CAs below them. 0, or a
   decline or failure reported on the run. */
static int rank_all(ftree *ft, uint32_t *rank, uint32_t *queue)
{
    const ibr_topo *t = ft->t;
    uint32_t nsw = ft->nsw;
    int rc;
    for (uint32_t s = 0; s < nsw; s++)
        rank[s] = FT_NORANK;
    ft->roots_given = ft->o->n_root_guids > 0;
    if (ft->roots_given && given_roots(ft, rank) > 0) {
        bfs_rank(t, rank, queue);
    } else {
        if (ft->roots_given)
            ibr__log(ft->ctx, IBR_LOG_WARN,
                     IBR__MSG("EN028",
                              "ftree: none of the %zu root GUIDs is a switch; ranking from the CAs "
                              "(the tree is not checked for purity)"),
                     ft->o->n_root_guids);
        rank_from_cas(ft, rank, queue);
    }
    uint32_t ranked = 0;
    ft->max_rank = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        ft->sw[s].rank = rank[s];
        if (rank[s] == FT_NORANK)
            continue;
        ranked++;
        if (rank[s] > ft->max_rank)
            ft->max_rank = rank[s];
    }
    if (ft->max_rank == 0 && ranked > 1) {
        /* name two cabled switches, both at rank 0 */
        uint32_t a = 0;
        while (a < nsw && (rank[a] == FT_NORANK || t->adj_off[a] == t->adj_off[a + 1]))
            a++;
        if (a == nsw) /* no switch is cabled to another: nothing to name */
            rc = ibr__decline(ft->run,
                              IBR__MSG("EN029",
                                       "ranking from the CAs puts all %u switches at rank 0 and no "
                                       "switch is cabled to another: not a fat tree"),
                              ranked);
        else
            rc = ibr__decline(
                ft->run,
                IBR__MSG("EN030", "ranking from the CAs puts all %u switches at rank 0 (each "
                                  "carries CAs, as in a torus or mesh; e.g. switch 0x%016" PRIx64
                                  " and its neighbour 0x%016" PRIx64 "): not a fat tree"),
                ranked, sw_guid(ft, a), sw_guid(ft, t->adj[t->adj_off[a]].sw));
        return rc;
    }
    if (ranked < nsw) {
        int k = rank_orphans(ft, rank, queue);
        if (k < 0)
            return ibr__fail(ft->run, IBR_ENOMEM, "out of memory");
        if (k > 0)
            ibr__log(ft->ctx, IBR_LOG_INFO,
                     "ftree: %d switch(es) cut off from the roots ranked from the CAs below "
                     "them",
                     k);
        ranked += (uint32_t)k;
    }
    if (ranked < nsw)
        ibr__log(ft->ctx, IBR_LOG_INFO, "ftree: %u switch(es) left unranked and dropped",
                 nsw - ranked);
    return 0;
}

/* The rank of the leaves (the compute nodes' switches), checked to be one
   rank within the limits; marks the leaf switches. */
static int find_leaf_rank(ftree *ft, const uint32_t *rank)
{
    const ibr_topo *t = ft->t;
    if (ft->ncn == 0)
        return ibr__decline(ft->run, IBR__MSG("EN031", "the fabric has no valid compute nodes"));
    if (!ft->roots_given) {
        ft->leaf_rank = ft->max_rank;
    } else {
        for (uint32_t i = 0; i < ft->nca; i++)
            if (ft->ca[i].role == FT_CN) {
                ft->leaf_rank = rank[ft->ca[i].sw];
                break;
            }
    }
    if (ft->leaf_rank + 1 < FT_MIN_RANK || ft->leaf_rank + 1 > FT_MAX_RANK)
        return ibr__decline(ft->run,
                            IBR__MSG("EN032",
                                     "the tree rank (levels of switches) is %u; fat-tree routing "
                                     "needs %u to %u"),
                            ft->leaf_rank + 1, FT_MIN_RANK, FT_MAX_RANK);
    for (uint32_t i = 0; i < ft->nca; i++) {
        const ft_ca *c = &ft->ca[i];
        if (c->role != FT_CN || ft->sw[c->sw].is_leaf)
            continue;
        if (rank[c->sw] != ft->leaf_rank)
            return ibr__decline(
                ft->run,
                IBR__MSG("EN033",
                         "compute node port 0x%016" PRIx64 " is cabled to switch 0x%016" PRIx64
                         " of rank %u, but the leaf rank is %u (rule: all compute nodes hang off "
                         "switches of one rank)"),
                t->ports[c->gp].guid, sw_guid(ft, c->sw), rank[c->sw], ft->leaf_rank);
        ft->sw[c->sw].is_leaf = 1;
    }
    return 0;
}

/* Step 4 without root GUIDs: an impure tree (rule says which rule it
   breaks) is marked degraded, or declined with ftree.strict as OpenSM does,
   or when it is no tree of ranks or I/O nodes ask for reverse hops. */
static int check_purity(ftree *ft, const uint32_t *rank, char *rule, size_t cap, int strict)
{
    int rc;
    if (impure(ft, rank, rule, cap)) {
        if (strict)
            return ibr__decline(ft->run, IBR__MSG("EN034", "not a pure fat tree: %s"), rule);
        if ((rc = check_tree_of_ranks(ft)) < 0)
            return rc;
        if (ft->max_reverse_hops) {
            for (uint32_t i = 0; i < ft->nca; i++)
                if (ft->ca[i].role == FT_IO)
                    return ibr__decline(ft->run,
                                        IBR__MSG("EN035",
                                                 "max_reverse_hops %u is not supported on a "
                                                 "degraded fat tree (%s)"),
                                        ft->max_reverse_hops, rule);
        }
        ft->degraded = 1;
    }
    return 0;
}

/* The routes: OpenSM's assignment, on a degraded tree then (unless the
   tolerance is 0 or 1000) the balanced one, and the LMC pass. A negative
   code on failure (IBR_ENOMEM reported by the caller). */
static int assign_routes(ftree *ft, unsigned tol)
{
    int rc = 0;
    ft->hops = ibr__mallocarray(ft->ctx, ft->nsw, 1);
    ft->cn_seq =
        ibr__mallocarray(ft->ctx, (size_t)ft->nleaves * ft->max_cn + 1, sizeof *ft->cn_seq);
    if (!ft->hops || !ft->cn_seq)
        return IBR_ENOMEM;
    /* a degraded tree: OpenSM's routing, then unless the tolerance is 0
       or 1000 the balanced one, keeping OpenSM's if close enough */
    uint32_t *order0 = NULL; /* the group lists as indexed: OpenSM's
                                routing re-sorts them, the balanced one must
                                not depend on that */
    if (ft->degraded && tol > 0 && tol < 1000) {
        if (!(order0 = ibr__mallocarray(ft->ctx, ft->ngrp ? ft->ngrp : 1, sizeof *order0)))
            return IBR_ENOMEM;
        memcpy(order0, ft->order, ft->ngrp * sizeof *order0);
    }
    if (!ft->degraded || tol > 0)
        rc = ibr__ftree_assign(ft);
    if (rc >= 0 && order0)
        memcpy(ft->order, order0, ft->ngrp * sizeof *order0);
    ibr__free(ft->ctx, order0);
    if (rc >= 0 && ft->degraded && tol < 1000)
        rc = ibr__ftree_assign_degraded(ft, tol);
    if (rc >= 0 && ft->degraded && tol >= 1000)
        ft->dg_kept_classic = 1;
    if (rc >= 0)
        rc = ibr__ftree_lmc(ft);
    return rc;
}

static int ftree_route(ibr_run *run, void *user)
{
    (void)user;
    ftree ft;
    memset(&ft, 0, sizeof ft);
    ft.run = run;
    ft.t = ibr_run_topo(run);
    ft.ctx = ft.t->ctx;
    ft.o = ibr_run_options(run);
    ft.nsw = ft.t->n_sw;
    int64_t v = 0;
    ibr_run_setting_int(&v, run, "max_reverse_hops");
    ft.max_reverse_hops = (unsigned)v;
    ibr_run_setting_int(&v, run, "connect_roots");
    ft.connect_roots = (int)v;
    ibr_run_setting_int(&v, run, "strict");
    int strict = (int)v;
    ibr_run_setting_int(&v, run, "degraded_tolerance");
    unsigned tol = (unsigned)v;
    char rule[640];
    int rc;
    if ((rc = check_basics(&ft)) < 0)
        return rc;
    if ((rc = check_ca_links(&ft)) < 0)
        return rc;
    uint32_t nsw = ft.nsw;
    uint32_t *rank = ibr__mallocarray(ft.ctx, nsw, sizeof *rank);
    uint32_t *queue = ibr__mallocarray(ft.ctx, nsw, sizeof *queue);
    ft.sw = ibr__calloc(ft.ctx, nsw, sizeof *ft.sw);
    if (!rank || !queue || !ft.sw)
        goto nomem;

    /* 1. ranks */
    if ((rc = rank_all(&ft, rank, queue)) < 0)
        goto out;

    /* 2, 3. CA ports and port groups */
    int reranked = 0;
model:
    if ((rc = build_cas(&ft, rank)) < 0 || (rc = build_groups(&ft, rank)) < 0)
        goto nomem;
    if (!ft.roots_given && !strict && !reranked && !cns_on_top_rank(&ft, rank)) {
        /* a degraded tree can fool the ranking from the farthest switches
           (an upper switch that lost its cables down is farthest): rank
           again by the distance from the compute nodes' switches */
        rank_from_leaves(&ft, rank, queue);
        if (rank_orphans(&ft, rank, queue) < 0)
            goto nomem;
        reranked = 1;
        goto model;
    }
    if (reranked == 1 && has_siblings(&ft)) {
        /* not a tree of ranks that way either: back to the first ranking,
           whose decline names the compute node off the leaf rank */
        drop_model(&ft);
        for (uint32_t s = 0; s < nsw; s++)
            rank[s] = FT_NORANK;
        rank_from_cas(&ft, rank, queue);
        set_ranks(&ft, rank);
        if (rank_orphans(&ft, rank, queue) < 0)
            goto nomem;
        reranked = 2;
        goto model;
    }
    if ((rc = find_leaf_rank(&ft, rank)) < 0)
        goto out;

    /* 5. indexing and the leaf array */
    if ((rc = make_indexing(&ft, queue)) < 0 || (rc = make_leaf_array(&ft, rank)) < 0)
        goto nomem;
    if (ft.nleaves < 2) {
        rc = ibr__decline(run, IBR__MSG("EN036",
                                        "fewer than two leaf switches carry compute nodes: not a "
                                        "fat tree"));
        goto out;
    }

    /* 4. purity: without root GUIDs an impure tree is routed as a degraded
       fat tree (or declined with ftree.strict, as OpenSM does) */
    if (!ft.roots_given && (rc = check_purity(&ft, rank, rule, sizeof rule, strict)) < 0)
        goto out;

    /* routes */
    rc = assign_routes(&ft, tol);
    if (rc < 0 || (rc = check_connected(&ft)) < 0 || (rc = check_loops(&ft)) < 0) {
        if (rc == IBR_ENOMEM)
            goto nomem;
        goto out;
    }
    if (ft.degraded && (rc = degraded_report(&ft, rank, rule, tol)) < 0)
        goto nomem;
    if ((rc = ca_order_artifact(&ft)) < 0 || (rc = rank_order_artifact(&ft)) < 0 ||
        (rc = keep_orientation(&ft, rank)) < 0)
        goto nomem;
    rc = 0;
    goto out;
nomem:
    rc = ibr__fail(run, IBR_ENOMEM, "out of memory");
out:
    ibr__free(ft.ctx, rank);
    ibr__free(ft.ctx, queue);
    ft_free(&ft);
    return rc;
}

static const ibr_setting ftree_settings[] = {
    {"max_reverse_hops", IBR_SETTING_INT, 0, 255, 0, NULL,
     "down-then-up hops allowed on routes to and from I/O nodes (OpenSM's "
     "max_reverse_hops)"},
    {"connect_roots", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "switches above the leaves also get routes to switch LIDs they cannot reach "
     "by up/down (OpenSM's connect_roots)"},
    {"strict", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "without root GUIDs, decline a tree that is not pure (OpenSM's rules: a "
     "degraded tree then falls back) instead of routing it as a degraded fat tree"},
    {"degraded_tolerance", IBR_SETTING_INT, 0, 1000, 25, NULL,
     "on a degraded tree, keep OpenSM's routing (index-ordered counters: shift patterns "
     "spread as on a full tree) while its busiest link is at most this many percent "
     "above that of the routing balanced on the surviving cables; 0 always balances, "
     "1000 always keeps OpenSM's"},
};

const ibr_engine ibr__engine_ftree = {
    .version = IBR_ENGINE_VERSION,
    .name = "ftree",
    .description = "fat-tree: up/down routes balanced for shift patterns on (almost) pure fat trees",
    .caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE,
    .route = ftree_route,
    .settings = ftree_settings,
    .n_settings = 4,
};
