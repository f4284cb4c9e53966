/*
 * Multicast groups (mcast.h): the member ports a caller gives a routing,
 * resolved against one topology, and the members a result keeps per MLID;
 * and the result's multicast section (its MFTs, members and who built
 * them): allocated, cleared and read here only.
 */
#include <inttypes.h>
#include <string.h>

#include "core/mcast_groups_int.h"
#include "core/messages.h"
#include "core/topo_int.h"

int ibr_mcast_groups_create(ibr_mcast_groups **out, const ibr_topo *t)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t)
        return IBR_EINVAL;
    ibr_mcast_groups *g = ibr__calloc(t->ctx, 1, sizeof *g);
    if (!g)
        return IBR_ENOMEM;
    g->ctx = t->ctx;
    g->topo = t;
    *out = g;
    return 0;
}

void ibr__mcast_groups_clear(ibr_mcast_groups *g)
{
    for (size_t i = 0; i < g->n_groups; i++) {
        ibr__free(g->ctx, g->groups[i].ports);
        ibr__free(g->ctx, g->groups[i].join);
        ibr__guidmap_free(g->ctx, &g->groups[i].index);
    }
    ibr__free(g->ctx, g->groups);
    ibr__free(g->ctx, g->mlids);
    g->groups = NULL;
    g->mlids = NULL;
    g->n_groups = g->cap_groups = g->n_mlids = g->cap_mlids = 0;
}

void ibr_mcast_groups_destroy(ibr_mcast_groups *g)
{
    if (!g)
        return;
    ibr__mcast_groups_clear(g);
    ibr__free(g->ctx, g);
}

const char *ibr_mcast_groups_last_error(const ibr_mcast_groups *g)
{
    return g ? g->last_error : "";
}

const ibr_topo *ibr_mcast_groups_topo(const ibr_mcast_groups *g)
{
    return g ? g->topo : NULL;
}

int ibr__mcast_resolve(uint32_t *gport, char *err, const ibr_topo *t, uint64_t guid,
                       unsigned int port)
{
    uint32_t node;
    unsigned int p0;
    if (ibr_topo_find_guid(&node, &p0, t, guid) < 0 || t->nodes[node].guid != guid)
        return ibr__err(err, IBR_ENOTFOUND, IBR__MSG("MG011", "unknown node GUID 0x%016" PRIx64),
                        guid);
    const ibr__node *n = &t->nodes[node];
    if (n->sw != IBR_NONE) {
        if (port != 0)
            return ibr__err(
                err, IBR_ENOTFOUND,
                IBR__MSG("MG012", "switch 0x%016" PRIx64 " joins by port 0, not port %u"), guid,
                port);
    } else {
        if (port < 1 || port > n->nports)
            return ibr__err(err, IBR_ENOTFOUND,
                            IBR__MSG("MG013", "node 0x%016" PRIx64 " has no port %u"), guid, port);
        const ibr__port *pp = ibr__tport(t, node, port);
        if (pp->remote_node == IBR_NONE || pp->state == IBR_LINK_DOWN)
            return ibr__err(err, IBR_ENOTFOUND,
                            IBR__MSG("MG014", "port %u of node 0x%016" PRIx64 " is not cabled"),
                            port, guid);
    }
    *gport = n->port_off + port;
    return 0;
}

int ibr__mcast_add(ibr_mcast_groups *g, uint16_t mlid, const uint8_t mgid[16], uint32_t gport,
                   unsigned int join_state)
{
    static const uint8_t zero[16];
    if (mlid < IBR_MLID_MIN || mlid > IBR_MLID_MAX)
        return ibr__err(
            g->last_error, IBR_ERANGE,
            IBR__MSG("MG015", "MLID 0x%04X is outside the multicast range 0xC000-0xFFFE"), mlid);
    if (join_state == 0 || join_state > 15)
        return ibr__err(g->last_error, IBR_ERANGE, IBR__MSG("MG016", "join state %u is not 1..15"),
                        join_state);
    ibr__mcgroup *grp = NULL;
    for (size_t i = 0; i < g->n_groups; i++) {
        ibr__mcgroup *c = &g->groups[i];
        if (mgid && c->has_mgid && !memcmp(c->mgid, mgid, 16)) {
            if (c->mlid != mlid)
                return ibr__err(
                    g->last_error, IBR_ERANGE,
                    IBR__MSG("MG017", "MGID already belongs to MLID 0x%04X, not 0x%04X"), c->mlid,
                    mlid);
            grp = c;
            break;
        }
        if (!mgid && !c->has_mgid && c->mlid == mlid) {
            grp = c;
            break;
        }
    }
    if (grp) {
        if (ibr__guidmap_get(&grp->index, (uint64_t)gport + 1) != IBR_NONE) {
            const ibr_topo *t = g->topo;
            uint32_t node = t->port_node[gport];
            return ibr__err(g->last_error, IBR_EEXIST,
                            IBR__MSG("MG018", "port %u of node 0x%016" PRIx64
                                              " is already a member of that group of MLID 0x%04X"),
                            gport - t->nodes[node].port_off, t->nodes[node].guid, mlid);
        }
    }
    /* reserve everything first so that a failure changes nothing */
    size_t need_g = g->n_groups + (grp ? 0 : 1);
    if (ibr__grow(g->ctx, (void **)&g->groups, &g->cap_groups, need_g, sizeof *g->groups) < 0)
        return ibr__err(g->last_error, IBR_ENOMEM, "out of memory");
    int new_mlid = 1;
    size_t pos = 0;
    while (pos < g->n_mlids && g->mlids[pos] < mlid)
        pos++;
    if (pos < g->n_mlids && g->mlids[pos] == mlid)
        new_mlid = 0;
    if (new_mlid && ibr__grow(g->ctx, (void **)&g->mlids, &g->cap_mlids, g->n_mlids + 1,
                              sizeof *g->mlids) < 0)
        return ibr__err(g->last_error, IBR_ENOMEM, "out of memory");
    if (!grp) {
        grp = &g->groups[g->n_groups];
        memset(grp, 0, sizeof *grp);
        grp->mlid = mlid;
        grp->has_mgid = mgid != NULL;
        memcpy(grp->mgid, mgid ? mgid : zero, 16);
        g->n_groups++;
    }
    if (ibr__grow(g->ctx, (void **)&grp->ports, &grp->cap_ports, grp->n + 1,
                  sizeof *grp->ports) < 0 ||
        ibr__grow(g->ctx, (void **)&grp->join, &grp->cap_join, grp->n + 1, 1) < 0 ||
        ibr__guidmap_put(g->ctx, &grp->index, (uint64_t)gport + 1, (uint32_t)grp->n) < 0) {
        if (!grp->n) { /* the group was new: drop it again */
            ibr__free(g->ctx, grp->ports);
            ibr__free(g->ctx, grp->join);
            ibr__guidmap_free(g->ctx, &grp->index);
            g->n_groups--;
        }
        return ibr__err(g->last_error, IBR_ENOMEM, "out of memory");
    }
    grp->ports[grp->n] = gport;
    grp->join[grp->n] = (uint8_t)join_state;
    grp->n++;
    if (new_mlid) {
        memmove(g->mlids + pos + 1, g->mlids + pos, (g->n_mlids - pos) * sizeof *g->mlids);
        g->mlids[pos] = mlid;
        g->n_mlids++;
    }
    g->last_error[0] = 0;
    return 0;
}

int ibr_mcast_groups_add_member(ibr_mcast_groups *g, uint16_t mlid, const uint8_t mgid[16],
                                uint64_t guid, unsigned int port, unsigned int join_state)
{
    if (!g)
        return IBR_EINVAL;
    uint32_t gport = IBR_NONE; /* set on success (GCC -O3 cannot tell) */
    int rc = ibr__mcast_resolve(&gport, g->last_error, g->topo, guid, port);
    if (rc < 0)
        return rc;
    return ibr__mcast_add(g, mlid, mgid, gport, join_state);
}

size_t ibr_mcast_groups_group_count(const ibr_mcast_groups *g)
{
    return g ? g->n_groups : 0;
}

int ibr_mcast_groups_group(uint16_t *mlid, uint8_t *mgid, int *has_mgid, size_t *members,
                           const ibr_mcast_groups *g, size_t i)
{
    if (!g)
        return IBR_EINVAL;
    if (i >= g->n_groups)
        return IBR_ENOTFOUND;
    const ibr__mcgroup *c = &g->groups[i];
    if (mlid)
        *mlid = c->mlid;
    if (mgid)
        memcpy(mgid, c->mgid, 16);
    if (has_mgid)
        *has_mgid = c->has_mgid;
    if (members)
        *members = c->n;
    return 0;
}

size_t ibr_mcast_groups_mlid_count(const ibr_mcast_groups *g)
{
    return g ? g->n_mlids : 0;
}

uint16_t ibr_mcast_groups_mlid(const ibr_mcast_groups *g, size_t i)
{
    return g && i < g->n_mlids ? g->mlids[i] : 0;
}

static int cmp_member(const void *a, const void *b, void *arg)
{
    (void)arg;
    const ibr__mcmember *x = a, *y = b;
    return x->gport < y->gport ? -1 : x->gport > y->gport;
}

int ibr__mcast_members(ibr__mcmember **out, size_t *n, const ibr_mcast_groups *g, uint16_t mlid)
{
    size_t total = 0;
    int found = 0;
    for (size_t i = 0; i < g->n_groups; i++)
        if (g->groups[i].mlid == mlid) {
            total += g->groups[i].n;
            found = 1;
        }
    if (!found)
        return IBR_ENOTFOUND;
    ibr__mcmember *m = ibr__mallocarray(g->ctx, total ? total : 1, sizeof *m);
    if (!m)
        return IBR_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < g->n_groups; i++)
        if (g->groups[i].mlid == mlid)
            for (size_t j = 0; j < g->groups[i].n; j++)
                m[k++] = (ibr__mcmember){g->groups[i].ports[j], g->groups[i].join[j]};
    ibr__sort(m, k, sizeof *m, cmp_member, NULL);
    size_t u = 0;
    for (size_t i = 0; i < k; i++) {
        if (u && m[u - 1].gport == m[i].gport)
            m[u - 1].join |= m[i].join;
        else
            m[u++] = m[i];
    }
    *out = m;
    *n = u;
    return 0;
}

static void fill_member(ibr_mcast_member *d, const ibr_topo *t, const ibr__mcmember *m)
{
    uint32_t node = t->port_node[m->gport];
    d->guid = t->nodes[node].guid;
    d->port = m->gport - t->nodes[node].port_off;
    d->node = node;
    d->join_state = m->join;
}

int ibr_mcast_groups_members(ibr_mcast_member *dst, size_t cap, size_t *needed,
                             const ibr_mcast_groups *g, uint16_t mlid)
{
    if (!g || (cap && !dst))
        return IBR_EINVAL;
    ibr__mcmember *m;
    size_t n;
    int rc = ibr__mcast_members(&m, &n, g, mlid);
    if (rc < 0)
        return rc;
    if (needed)
        *needed = n;
    if (cap < n) {
        ibr__free(g->ctx, m);
        return IBR_ERANGE;
    }
    for (size_t i = 0; i < n; i++)
        fill_member(&dst[i], g->topo, &m[i]);
    ibr__free(g->ctx, m);
    return 0;
}

/* ---- what a result keeps ---- */

ibr__mcast *ibr__result_mcast_get(ibr_result *r, uint16_t mlid, int create)
{
    for (size_t i = 0; i < r->n_mcast; i++)
        if (r->mcast[i].mlid == mlid)
            return &r->mcast[i];
    if (!create)
        return NULL;
    const ibr_topo *t = r->topo;
    uint8_t *bits = ibr__calloc(r->ctx, (size_t)t->n_sw * 32 + 1, 1);
    if (!bits)
        return NULL;
    ibr__mcast *m = ibr__reallocarray(r->ctx, r->mcast, r->n_mcast + 1, sizeof *m);
    if (!m) {
        ibr__free(r->ctx, bits);
        return NULL;
    }
    r->mcast = m;
    /* keep groups sorted by MLID */
    size_t pos = r->n_mcast;
    while (pos > 0 && m[pos - 1].mlid > mlid) {
        m[pos] = m[pos - 1];
        pos--;
    }
    memset(&m[pos], 0, sizeof m[pos]);
    m[pos].mlid = mlid;
    m[pos].bits = bits;
    r->n_mcast++;
    return &m[pos];
}

int ibr__result_set_mcast_members(ibr_result *r, const ibr_mcast_groups *g)
{
    for (size_t i = 0; i < g->n_mlids; i++) {
        ibr__mcast *mc = ibr__result_mcast_get(r, g->mlids[i], 1);
        if (!mc)
            return IBR_ENOMEM;
        ibr__mcmember *m;
        size_t n;
        int rc = ibr__mcast_members(&m, &n, g, g->mlids[i]);
        if (rc < 0)
            return rc;
        ibr__free(r->ctx, mc->members);
        mc->members = m;
        mc->n_members = n;
        mc->has_members = 1;
    }
    return 0;
}

int ibr_result_mcast_members(ibr_mcast_member *dst, size_t cap, size_t *needed,
                             const ibr_result *r, uint16_t mlid)
{
    if (!r || (cap && !dst))
        return IBR_EINVAL;
    const ibr__mcast *mc = NULL;
    for (size_t i = 0; i < r->n_mcast; i++)
        if (r->mcast[i].mlid == mlid)
            mc = &r->mcast[i];
    if (!mc || !mc->has_members)
        return IBR_ENOTFOUND;
    if (needed)
        *needed = mc->n_members;
    if (cap < mc->n_members)
        return IBR_ERANGE;
    for (size_t i = 0; i < mc->n_members; i++)
        fill_member(&dst[i], r->topo, &mc->members[i]);
    return 0;
}

int ibr_result_mcast_port_load(uint32_t *dst, size_t cap, size_t *needed, const ibr_result *r,
                               uint32_t sw)
{
    if (!r || (cap && !dst))
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    if (sw >= t->n_sw)
        return IBR_ENOTFOUND;
    unsigned np = t->nodes[t->sw_node[sw]].nports;
    if (needed)
        *needed = (size_t)np + 1;
    if (cap < (size_t)np + 1)
        return IBR_ERANGE;
    memset(dst, 0, ((size_t)np + 1) * sizeof *dst);
    for (size_t i = 0; i < r->n_mcast; i++) {
        const uint8_t *bits = r->mcast[i].bits + (size_t)sw * 32;
        for (unsigned p = 0; p <= np; p++)
            if (bits[p >> 3] & (1u << (p & 7)))
                dst[p]++;
    }
    return 0;
}

/* ---- the result's multicast section (mcast, n_mcast, mcast_trees) ---- */

void ibr__result_mcast_clear(ibr_result *r)
{
    ibr_context *ctx = r->ctx;
    for (size_t i = 0; i < r->n_mcast; i++) {
        ibr__free(ctx, r->mcast[i].bits);
        ibr__free(ctx, r->mcast[i].members);
    }
    ibr__free(ctx, r->mcast);
    r->mcast = NULL;
    r->n_mcast = 0;
    r->mcast_trees = IBR_MCAST_TREES_NONE;
}

size_t ibr_result_mcast_count(const ibr_result *r)
{
    return r ? r->n_mcast : 0;
}

int ibr_result_mcast_trees(const ibr_result *r)
{
    return r && r->status == 0 ? r->mcast_trees : IBR_MCAST_TREES_NONE;
}

uint16_t ibr_result_mcast_mlid(const ibr_result *r, size_t i)
{
    return r && i < r->n_mcast ? r->mcast[i].mlid : 0;
}

int ibr_result_mcast_ports(uint8_t *ports, size_t cap, size_t *needed, const ibr_result *r,
                           uint16_t mlid, uint32_t sw)
{
    if (!r || sw >= r->topo->n_sw)
        return IBR_ENOTFOUND;
    const ibr__mcast *g = NULL;
    for (size_t i = 0; i < r->n_mcast; i++)
        if (r->mcast[i].mlid == mlid)
            g = &r->mcast[i];
    if (!g)
        return IBR_ENOTFOUND;
    const uint8_t *bits = g->bits + (size_t)sw * 32;
    size_t n = 0;
    for (unsigned p = 0; p < 256; p++)
        if (bits[p >> 3] & (1u << (p & 7)))
            n++;
    if (needed)
        *needed = n;
    if (cap < n || (n && !ports))
        return IBR_ERANGE;
    n = 0;
    for (unsigned p = 0; p < 256; p++)
        if (bits[p >> 3] & (1u << (p & 7)))
            ports[n++] = (uint8_t)p;
    return 0;
}
