/*
 * ibr_result_trace(): the hop-by-hop route between two LIDs, as a user
 * follows one path when a job is slow.
 *
 * Each hop is one ibr__lft_step() (verify_int.h), the step
 * ibr_result_verify() takes. The switch a packet reaches next depends only on the switch it is
 * at (the LFT column of the destination is fixed), so the switches of a
 * route form the sequence x0, x1 = f(x0), ...: it arrives or breaks within
 * S switches, or it loops. A loop is found without memory: after S
 * forwarding steps the walk is on the cycle; going round it once gives its
 * length L, and walking from x0 beside a walker L switches ahead finds the
 * first switch on the cycle, x_M. The switches x0 .. x_(M+L-1) are all
 * different, and hop M+L+1 is the first that enters a switch by the port
 * of an earlier hop (hop M+1: both follow the link out of x_M), so the
 * trace lists M+L+2 hops.
 */
#include <string.h>

#include "verify/verify_int.h"

typedef struct trace_walk {
    const ibr_topo *t;
    const ibr_result *r;
    uint16_t dlid;
    uint32_t dsw;   /* switch delivering to dlid (IBR_NONE: none) */
    unsigned dport; /* its port toward dlid */
} trace_walk;

/* The LFT entry of switch u toward the destination, and its step. */
static ibr_hop_status step(const trace_walk *w, uint32_t u, unsigned *op, uint32_t *nx,
                           unsigned *nin)
{
    *op = ibr__lft_row(w->r, u)[w->dlid];
    return ibr__lft_step(nx, nin, w->t, u, *op, w->dsw, w->dport);
}

/* The switch k forwarding steps after u (every step forwards: u is on a
   loop or k is below the length of u's route). */
static uint32_t advance(const trace_walk *w, uint32_t u, size_t k)
{
    unsigned op, nin;
    for (; k > 0; k--)
        step(w, u, &op, &u, &nin);
    return u;
}

/* Number of hops of the route from switch u0, and whether it loops. */
static size_t route_length(const trace_walk *w, uint32_t u0, int *loops)
{
    uint32_t u = u0, x;
    unsigned op, nin;
    *loops = 0;
    for (size_t i = 0; i < w->t->n_sw; i++)
        if (step(w, u, &op, &u, &nin) != IBR_HOP_FORWARDED)
            return i + 1;
    /* S forwarding steps: u is on the cycle */
    *loops = 1;
    size_t len = 1;
    for (x = advance(w, u, 1); x != u; x = advance(w, x, 1))
        len++;
    size_t first = 0;
    uint32_t a = u0, b = advance(w, u0, len);
    for (; a != b; first++) {
        a = advance(w, a, 1);
        b = advance(w, b, 1);
    }
    return first + len + 2;
}

int ibr_result_trace(ibr_trace_hop *hops, size_t cap, size_t *n, unsigned int *sl,
                     const ibr_result *r, uint16_t src_lid, uint16_t dst_lid)
{
    if (!n || !r || !r->lft || r->status != 0 || (cap && !hops))
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
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
    trace_walk w = {t, r, dst_lid, t->lid_sw[dst_lid], t->lid_swport[dst_lid]};
    int loops;
    size_t count = route_length(&w, u, &loops);
    for (size_t i = 0; i < count && i < cap; i++) {
        unsigned op, nin = 0;
        uint32_t nx = IBR_NONE;
        ibr_hop_status st = step(&w, u, &op, &nx, &nin);
        hops[i].sw = u;
        hops[i].in_port = ip;
        hops[i].out_port = op;
        hops[i].vl = op <= t->nodes[t->sw_node[u]].nports ? ibr__hop_vl(r, u, ip, op, psl) : 0;
        hops[i].status = i + 1 == count && loops ? IBR_HOP_LOOP : st;
        u = nx;
        ip = nin;
    }
    *n = count;
    if (count > cap)
        return IBR_ERANGE;
    return hops[count - 1].status == IBR_HOP_DELIVERED ? 0 : IBR_EROUTES;
}
