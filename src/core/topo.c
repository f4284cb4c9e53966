/* Freezing a fabric into the compact, immutable topology engines route. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"

typedef struct {
    uint64_t key;
    uint32_t node;
} swkey;

static int cmp_swkey(const void *a, const void *b)
{
    const swkey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

typedef struct {
    uint64_t guid;
    uint32_t val;
} guident;

static int cmp_guident(const void *a, const void *b)
{
    const guident *x = a, *y = b;
    if (x->guid != y->guid)
        return x->guid < y->guid ? -1 : 1;
    /* node entries (high bit) first */
    uint32_t xn = x->val & 0x80000000u, yn = y->val & 0x80000000u;
    if (xn != yn)
        return xn ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val;
}

void ibr_topo_destroy(ibr_topo *t)
{
    if (!t)
        return;
    ibr_context *ctx = t->ctx;
    ibr__free(ctx, t->nodes);
    ibr__free(ctx, t->ports);
    ibr__free(ctx, t->port_node);
    ibr__free(ctx, t->sw_node);
    ibr__free(ctx, t->adj_off);
    ibr__free(ctx, t->adj);
    ibr__free(ctx, t->end_port);
    ibr__free(ctx, t->lid_port);
    ibr__free(ctx, t->lid_sw);
    ibr__free(ctx, t->lid_swport);
    ibr__free(ctx, t->guid_keys);
    ibr__free(ctx, t->guid_vals);
    ibr__free(ctx, t);
}

/* Port owners, and the switches in ascending byte-reversed GUID order. */
static int freeze_switches(ibr_topo *t)
{
    ibr_context *ctx = t->ctx;
    uint32_t nsw = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        t->nodes[i].sw = IBR_NONE;
        for (unsigned p = 0; p <= t->nodes[i].nports; p++)
            t->port_node[t->nodes[i].port_off + p] = i;
        if (t->nodes[i].type == IBR_NODE_SWITCH)
            nsw++;
    }
    t->n_sw = nsw;
    swkey *keys = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *keys);
    t->sw_node = ibr__mallocarray(ctx, nsw ? nsw : 1, sizeof *t->sw_node);
    t->adj_off = ibr__mallocarray(ctx, (size_t)nsw + 1, sizeof *t->adj_off);
    if (!keys || !t->sw_node || !t->adj_off) {
        ibr__free(ctx, keys);
        return IBR_ENOMEM;
    }
    nsw = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].type == IBR_NODE_SWITCH)
            keys[nsw++] = (swkey){ibr__guid_key(t->nodes[i].guid), i};
    qsort(keys, nsw, sizeof *keys, cmp_swkey);
    for (uint32_t s = 0; s < nsw; s++) {
        t->sw_node[s] = keys[s].node;
        t->nodes[keys[s].node].sw = s;
    }
    ibr__free(ctx, keys);
    return 0;
}

/* Does port p of switch s have an active link to another switch? */
static int switch_link(const ibr_topo *t, uint32_t s, unsigned p)
{
    const ibr__port *pt = &t->ports[t->nodes[t->sw_node[s]].port_off + p];
    return pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE &&
           pt->remote_node != t->sw_node[s] && t->nodes[pt->remote_node].type == IBR_NODE_SWITCH;
}

/* The CSR of active switch-to-switch links. */
static int freeze_adjacency(ibr_topo *t)
{
    uint32_t nsw = t->n_sw, nadj = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        for (unsigned p = 1; p <= n->nports; p++)
            if (switch_link(t, s, p))
                nadj++;
    }
    t->adj = ibr__mallocarray(t->ctx, nadj ? nadj : 1, sizeof *t->adj);
    if (!t->adj)
        return IBR_ENOMEM;
    nadj = 0;
    for (uint32_t s = 0; s < nsw; s++) {
        t->adj_off[s] = nadj;
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        for (unsigned p = 1; p <= n->nports; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            if (switch_link(t, s, p))
                t->adj[nadj++] = (ibr__adj){t->nodes[pt->remote_node].sw, (uint8_t)p,
                                            pt->remote_port};
        }
    }
    t->adj_off[nsw] = nadj;
    t->n_adj = nadj;
    return 0;
}

/* The LID tables (owner port, destination switch and its port toward an
   end port) and the end ports; a warning for ports without a LID. */
static int freeze_lids(ibr_topo *t)
{
    ibr_context *ctx = t->ctx;
    uint16_t max_lid = 0;
    uint32_t nend = 0;
    for (uint32_t gp = 0; gp < t->n_ports; gp++) {
        const ibr__port *pt = &t->ports[gp];
        if (!pt->lid)
            continue;
        uint32_t top = pt->lid + (1u << pt->lmc) - 1;
        if (top > max_lid)
            max_lid = (uint16_t)top;
        const ibr__node *n = &t->nodes[t->port_node[gp]];
        if (n->type != IBR_NODE_SWITCH && pt->remote_node != IBR_NONE &&
            pt->state == IBR_LINK_ACTIVE)
            nend++;
    }
    t->max_lid = max_lid;
    t->n_end = nend;
    size_t nl = (size_t)max_lid + 1;
    t->end_port = ibr__mallocarray(ctx, nend ? nend : 1, sizeof *t->end_port);
    t->lid_port = ibr__mallocarray(ctx, nl, sizeof *t->lid_port);
    t->lid_sw = ibr__mallocarray(ctx, nl, sizeof *t->lid_sw);
    t->lid_swport = ibr__calloc(ctx, nl, sizeof *t->lid_swport);
    if (!t->end_port || !t->lid_port || !t->lid_sw || !t->lid_swport)
        return IBR_ENOMEM;
    for (size_t l = 0; l < nl; l++)
        t->lid_port[l] = t->lid_sw[l] = IBR_NONE;
    nend = 0;
    size_t nolid = 0;
    for (uint32_t gp = 0; gp < t->n_ports; gp++) {
        const ibr__port *pt = &t->ports[gp];
        const ibr__node *n = &t->nodes[t->port_node[gp]];
        unsigned port = gp - n->port_off;
        int is_sw = n->type == IBR_NODE_SWITCH;
        if (!pt->lid) {
            if ((is_sw && port == 0) ||
                (!is_sw && port > 0 && pt->remote_node != IBR_NONE))
                nolid++;
            continue;
        }
        uint32_t dsw = IBR_NONE;
        uint8_t dport = 0;
        if (is_sw) {
            dsw = n->sw;
        } else if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE) {
            t->end_port[nend++] = gp;
            const ibr__node *rn = &t->nodes[pt->remote_node];
            if (rn->type == IBR_NODE_SWITCH) {
                dsw = rn->sw;
                dport = pt->remote_port;
            }
        }
        for (uint32_t l = pt->lid; l < pt->lid + (1u << pt->lmc); l++) {
            t->lid_port[l] = gp;
            t->lid_sw[l] = dsw;
            t->lid_swport[l] = dport;
        }
    }
    if (nolid)
        ibr__log(ctx, IBR_LOG_WARN,
                 IBR__MSG("FB033", "%zu ports have no LID and will get no routes"), nolid);
    return 0;
}

/* The sorted GUID index: node GUIDs and port GUIDs. */
static int freeze_guid_index(ibr_topo *t)
{
    ibr_context *ctx = t->ctx;
    size_t ng = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        ng += 1 + (t->nodes[i].type == IBR_NODE_SWITCH ? 1 : t->nodes[i].nports);
    guident *ge = ibr__mallocarray(ctx, ng ? ng : 1, sizeof *ge);
    t->guid_keys = ibr__mallocarray(ctx, ng ? ng : 1, sizeof *t->guid_keys);
    t->guid_vals = ibr__mallocarray(ctx, ng ? ng : 1, sizeof *t->guid_vals);
    if (!ge || !t->guid_keys || !t->guid_vals) {
        ibr__free(ctx, ge);
        return IBR_ENOMEM;
    }
    ng = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        const ibr__node *n = &t->nodes[i];
        ge[ng++] = (guident){n->guid, i | 0x80000000u};
        unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
        unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
        for (unsigned p = p0; p <= p1; p++)
            ge[ng++] = (guident){t->ports[n->port_off + p].guid, n->port_off + p};
    }
    qsort(ge, ng, sizeof *ge, cmp_guident);
    for (size_t i = 0; i < ng; i++) {
        t->guid_keys[i] = ge[i].guid;
        t->guid_vals[i] = ge[i].val;
    }
    t->n_guid = (uint32_t)ng;
    ibr__free(ctx, ge);
    return 0;
}

int ibr_fabric_freeze(ibr_topo **out, ibr_fabric *f)
{
    if (!out || !f)
        return IBR_EINVAL;
    *out = NULL;
    ibr_context *ctx = f->ctx;
    ibr_topo *t = ibr__calloc(ctx, 1, sizeof *t);
    if (!t)
        goto nomem;
    t->ctx = ctx;
    t->n_nodes = (uint32_t)f->n_nodes;
    t->n_ports = (uint32_t)f->n_ports;
    size_t nn = f->n_nodes ? f->n_nodes : 1, np = f->n_ports ? f->n_ports : 1;
    t->nodes = ibr__mallocarray(ctx, nn, sizeof *t->nodes);
    t->ports = ibr__mallocarray(ctx, np, sizeof *t->ports);
    t->port_node = ibr__mallocarray(ctx, np, sizeof *t->port_node);
    if (!t->nodes || !t->ports || !t->port_node)
        goto nomem;
    if (f->n_nodes)
        memcpy(t->nodes, f->nodes, f->n_nodes * sizeof *t->nodes);
    for (uint32_t gp = 0; gp < t->n_ports; gp++)
        ibr__port_resolve(&t->ports[gp], f->nodes, f->ports, gp);
    if (freeze_switches(t) < 0 || freeze_adjacency(t) < 0 || freeze_lids(t) < 0 ||
        freeze_guid_index(t) < 0)
        goto nomem;
    f->last_error[0] = 0;
    *out = t;
    return 0;
nomem:
    ibr_topo_destroy(t);
    return ibr__fabric_err(f, IBR_ENOMEM, "out of memory freezing the fabric");
}

ibr_context *ibr_topo_context(const ibr_topo *t)
{
    return t ? t->ctx : ibr__default_context();
}

uint32_t ibr_topo_node_count(const ibr_topo *t)
{
    return t ? t->n_nodes : 0;
}

uint32_t ibr_topo_switch_count(const ibr_topo *t)
{
    return t ? t->n_sw : 0;
}

uint32_t ibr_topo_endport_count(const ibr_topo *t)
{
    return t ? t->n_end : 0;
}

uint16_t ibr_topo_max_lid(const ibr_topo *t)
{
    return t ? t->max_lid : 0;
}

uint32_t ibr_topo_switch_node(const ibr_topo *t, uint32_t sw)
{
    return t && sw < t->n_sw ? t->sw_node[sw] : IBR_NONE;
}

uint32_t ibr_topo_node_switch(const ibr_topo *t, uint32_t node)
{
    return t && node < t->n_nodes ? t->nodes[node].sw : IBR_NONE;
}

int ibr_topo_node_info(ibr_node_info *out, const ibr_topo *t, uint32_t node)
{
    if (!t || !out)
        return IBR_EINVAL;
    if (!ibr__node_info_size(out->version))
        return IBR_EVERSION;
    if (node >= t->n_nodes)
        return IBR_ENOTFOUND;
    ibr__node_info(out, &t->nodes[node], t->ports);
    return 0;
}

int ibr_topo_port_info(ibr_port_info *out, const ibr_topo *t, uint32_t node, unsigned int port)
{
    if (!t || !out)
        return IBR_EINVAL;
    if (!ibr__port_info_size(out->version))
        return IBR_EVERSION;
    if (node >= t->n_nodes)
        return IBR_ENOTFOUND;
    if (port > t->nodes[node].nports)
        return IBR_ERANGE;
    ibr__port_info(out, ibr__tport(t, node, port));
    return 0;
}

int ibr_topo_lid_owner(uint32_t *node, unsigned int *port, const ibr_topo *t, uint16_t lid)
{
    if (!t)
        return IBR_EINVAL;
    if (lid == 0 || lid > t->max_lid || t->lid_port[lid] == IBR_NONE)
        return IBR_ENOTFOUND;
    uint32_t gp = t->lid_port[lid];
    uint32_t n = t->port_node[gp];
    if (node)
        *node = n;
    if (port)
        *port = gp - t->nodes[n].port_off;
    return 0;
}

int ibr_topo_find_guid(uint32_t *node, unsigned int *port, const ibr_topo *t, uint64_t guid)
{
    if (!t)
        return IBR_EINVAL;
    size_t lo = 0, hi = t->n_guid;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->guid_keys[mid] < guid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= t->n_guid || t->guid_keys[lo] != guid)
        return IBR_ENOTFOUND;
    uint32_t v = t->guid_vals[lo];
    uint32_t n;
    unsigned p;
    if (v & 0x80000000u) {
        n = v & 0x7fffffffu;
        p = t->nodes[n].type == IBR_NODE_SWITCH ? 0 : 1;
    } else {
        n = t->port_node[v];
        p = v - t->nodes[n].port_off;
    }
    if (node)
        *node = n;
    if (port)
        *port = p;
    return 0;
}

uint32_t ibr__topo_find_port_guid(const ibr_topo *t, uint64_t guid)
{
    size_t lo = 0, hi = t->n_guid;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->guid_keys[mid] < guid)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < t->n_guid && t->guid_keys[lo] == guid; lo++)
        if (!(t->guid_vals[lo] & 0x80000000u))
            return t->guid_vals[lo];
    return IBR_NONE;
}

unsigned int ibr_topo_switch_distance(const ibr_topo *t, uint32_t a, uint32_t b)
{
    if (!t || a >= t->n_sw || b >= t->n_sw)
        return 255;
    if (a == b)
        return 0;
    uint32_t *q = ibr__mallocarray(t->ctx, t->n_sw, sizeof *q);
    uint32_t *d = ibr__mallocarray(t->ctx, t->n_sw, sizeof *d);
    unsigned res = 255;
    if (q && d) {
        ibr__bfs(d, t, &a, 1, q);
        res = d[b] < 255 ? d[b] : 255;
    }
    ibr__free(t->ctx, q);
    ibr__free(t->ctx, d);
    return res;
}

unsigned ibr__topo_min_oper_vls(const ibr_topo *t)
{
    unsigned vls = 15;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        for (unsigned p = 1; p <= n->nports; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE && pt->oper_vls < vls)
                vls = pt->oper_vls;
        }
    }
    return vls ? vls : 1;
}

/* Widths from narrowest to widest (the ibr_link_width bits are not in
   that order). */
static unsigned width_rank(unsigned w)
{
    switch (w) {
    case IBR_WIDTH_1X: return 1;
    case IBR_WIDTH_2X: return 2;
    case IBR_WIDTH_4X: return 3;
    case IBR_WIDTH_8X: return 4;
    case IBR_WIDTH_12X: return 5;
    default: return 0;
    }
}

static unsigned widest(unsigned mask)
{
    unsigned best = 0;
    for (unsigned b = 1; b <= IBR_WIDTH_2X; b <<= 1)
        if ((mask & b) && width_rank(b) > width_rank(best))
            best = b;
    return best;
}

static unsigned fastest(unsigned mask)
{
    for (unsigned s = IBR_SPEED_XDR; s >= IBR_SPEED_SDR; s--)
        if (mask & IBR_SPEED_BIT(s))
            return s;
    return IBR_SPEED_UNKNOWN;
}

int ibr__topo_link_throttled(const ibr_topo *t, uint32_t gp)
{
    const ibr__port *a = &t->ports[gp];
    if (a->remote_node == IBR_NONE)
        return 0;
    const ibr__port *b = ibr__tport(t, a->remote_node, a->remote_port);
    /* both ends of a cable carry its active width and speed, and a
       resolved enabled mask always holds them; an unknown active width or
       speed is never called throttled */
    return (a->width && widest(a->width_en & b->width_en) != a->width) ||
           (a->speed && fastest(a->speed_en & b->speed_en) != a->speed);
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

int ibr__topo_avoid_throttled(ibr_topo **out, size_t *avoided, size_t *kept, const ibr_topo *t)
{
    ibr_context *ctx = t->ctx;
    *out = NULL;
    *avoided = *kept = 0;
    size_t throttled = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            if (ibr__topo_link_throttled(t, n->port_off + t->adj[e].port))
                throttled++;
    }
    if (!throttled)
        return 0;
    ibr_topo *v = ibr__malloc(ctx, sizeof *v);
    uint32_t *parent = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *parent);
    uint8_t *use = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, 1); /* per port: 1 in the view */
    if (!v || !parent || !use)
        goto nomem;
    *v = *t;
    v->adj_off = ibr__mallocarray(ctx, (size_t)t->n_sw + 1, sizeof *v->adj_off);
    v->adj = ibr__mallocarray(ctx, t->n_adj ? t->n_adj : 1, sizeof *v->adj);
    if (!v->adj_off || !v->adj) {
        ibr__free(ctx, v->adj_off);
        ibr__free(ctx, v->adj);
        goto nomem;
    }
    for (uint32_t s = 0; s < t->n_sw; s++)
        parent[s] = s;
    /* the cables that are not throttled, then the throttled ones joining
       what they leave apart */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t s = 0; s < t->n_sw; s++) {
            const ibr__node *n = &t->nodes[t->sw_node[s]];
            for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
                uint32_t gp = n->port_off + t->adj[e].port;
                if (ibr__topo_link_throttled(t, gp) != pass || use[gp])
                    continue;
                uint32_t a = uf_find(parent, s), b = uf_find(parent, t->adj[e].sw);
                if (pass && a == b)
                    continue;
                parent[a] = b;
                use[gp] = 1;
                use[t->nodes[t->sw_node[t->adj[e].sw]].port_off + t->adj[e].rport] = 1;
                if (pass)
                    (*kept)++;
            }
        }
    uint32_t m = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        v->adj_off[s] = m;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            if (use[n->port_off + t->adj[e].port])
                v->adj[m++] = t->adj[e];
    }
    v->adj_off[t->n_sw] = m;
    v->n_adj = m;
    *avoided = throttled / 2 - *kept;
    ibr__free(ctx, parent);
    ibr__free(ctx, use);
    *out = v;
    return 0;
nomem:
    ibr__free(ctx, v);
    ibr__free(ctx, parent);
    ibr__free(ctx, use);
    return IBR_ENOMEM;
}

void ibr__topo_view_destroy(ibr_topo *view)
{
    if (!view)
        return;
    ibr_context *ctx = view->ctx;
    ibr__free(ctx, view->adj_off);
    ibr__free(ctx, view->adj);
    ibr__free(ctx, view);
}

unsigned int ibr_topo_data_vls(const ibr_topo *t)
{
    return t ? ibr__topo_min_oper_vls(t) : 0;
}

int ibr_topo_link_throttled(const ibr_topo *t, uint32_t node, unsigned int port)
{
    if (!t || node >= t->n_nodes || port < 1 || port > t->nodes[node].nports)
        return 0;
    return ibr__topo_link_throttled(t, t->nodes[node].port_off + port);
}
