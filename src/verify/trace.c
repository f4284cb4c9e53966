/* ibr_trace(): the hop-by-hop route between two LIDs, as a user follows one
   path when a job is slow. */
#include <string.h>

#include "verify/verify_int.h"

int ibr_trace(ibr_trace_hop *hops, size_t cap, size_t *n, unsigned int *sl, const ibr_topo *t,
              const ibr_result *r, uint16_t src_lid, uint16_t dst_lid)
{
    if (!n || !t || !r || r->topo != t || !r->lft || r->status != 0 || (cap && !hops))
        return IBR_EINVAL;
    *n = 0;
    if (src_lid == 0 || src_lid > t->max_lid || dst_lid == 0 || dst_lid > t->max_lid ||
        t->lid_port[src_lid] == IBR_NONE || t->lid_port[dst_lid] == IBR_NONE)
        return IBR_ENOTFOUND;
    uint32_t sgp = t->lid_port[src_lid];
    const ibr__node *sn = &t->nodes[t->port_node[sgp]];
    uint32_t u;
    unsigned ip;
    if (sn->type == IBR_NODE_SWITCH) {
        u = sn->sw;
        ip = 0;
    } else {
        const ibr__port *pt = &t->ports[sgp];
        if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
            t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
            return IBR_ENOTFOUND;
        u = t->nodes[pt->remote_node].sw;
        ip = pt->remote_port;
    }
    unsigned psl = ibr_result_path_sl(r, t->ports[sgp].lid, dst_lid);
    if (sl)
        *sl = psl;
    uint32_t dsw = t->lid_sw[dst_lid];
    unsigned dport = t->lid_swport[dst_lid];
    /* a route longer than the number of switches loops */
    size_t count = 0;
    int rc = IBR_EROUTES;
    ibr_trace_hop local;
    for (;;) {
        const ibr__node *un = &t->nodes[t->sw_node[u]];
        unsigned op = r->lft[(size_t)u * r->lft_size + dst_lid];
        local.sw = u;
        local.in_port = ip;
        local.out_port = op;
        local.vl = op <= un->nports ? ibr__hop_vl(r, u, ip, op, psl) : 0;
        if (count < cap)
            hops[count] = local;
        count++;
        if (u == dsw && op == dport) {
            rc = 0;
            break;
        }
        if (op == IBR_NO_ROUTE || op == 0 || op > un->nports)
            break;
        const ibr__port *pt = &t->ports[un->port_off + op];
        if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
            t->nodes[pt->remote_node].type != IBR_NODE_SWITCH || count > t->n_sw)
            break;
        u = t->nodes[pt->remote_node].sw;
        ip = pt->remote_port;
    }
    *n = count;
    if (count > cap)
        return IBR_ERANGE;
    return rc;
}
