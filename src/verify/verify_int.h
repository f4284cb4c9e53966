/*
 * Private declarations of the verification layer (src/verify): checking a
 * finished result against its topology (verify.c), tracing one route
 * (trace.c), the credit-loop check (deadlock.c) and the analysis
 * (analyze.c, analyze_patterns.c, analyze_int.h).
 *
 * The layers run one way: src/core (objects) <- src/cdg (the channel
 * dependency graph) <- src/verify. Nothing in core or cdg includes this
 * header.
 */
#ifndef IBROUTE_VERIFY_INT_H
#define IBROUTE_VERIFY_INT_H

#include "core/internal.h"

/*
 * One step of a route through the LFTs: the packet is at switch sw and its
 * LFT entry toward the destination is out_port (the caller reads the entry,
 * from the result or from its own copy of the tables). The destination LID
 * is delivered by switch dsw through port dport (topo->lid_sw and
 * topo->lid_swport; dsw is IBR_NONE when its port is cabled to no switch).
 *
 * Returns IBR_HOP_FORWARDED with the next switch in *next_sw and the port
 * the packet enters it by in *next_in (a port cabled back to its own switch
 * forwards to that switch), IBR_HOP_DELIVERED, or why the route stops
 * there (IBR_HOP_NO_ROUTE, IBR_HOP_NOT_OWNER, IBR_HOP_NO_PORT,
 * IBR_HOP_UNCABLED, IBR_HOP_DOWN_LINK, IBR_HOP_DEAD_END). It never returns
 * IBR_HOP_LOOP: the caller finds loops (verify.c per destination over all
 * switches, trace.c by counting switches). *next_sw and *next_in are set
 * only when forwarded. O(1).
 */
static inline ibr_hop_status ibr__lft_step(uint32_t *next_sw, unsigned *next_in,
                                           const ibr_topo *t, uint32_t sw, unsigned out_port,
                                           uint32_t dsw, unsigned dport)
{
    if (sw == dsw && out_port == dport)
        return IBR_HOP_DELIVERED;
    if (out_port == IBR_NO_ROUTE)
        return IBR_HOP_NO_ROUTE;
    if (out_port == 0)
        return IBR_HOP_NOT_OWNER;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    if (out_port > n->nports)
        return IBR_HOP_NO_PORT;
    const ibr__port *pt = &t->ports[n->port_off + out_port];
    if (pt->remote_node == IBR_NONE)
        return IBR_HOP_UNCABLED;
    if (pt->state != IBR_LINK_ACTIVE)
        return IBR_HOP_DOWN_LINK;
    const ibr__node *rn = &t->nodes[pt->remote_node];
    if (rn->type != IBR_NODE_SWITCH)
        return IBR_HOP_DEAD_END;
    *next_sw = rn->sw;
    *next_in = pt->remote_port;
    return IBR_HOP_FORWARDED;
}

/* Credit-loop analysis of a finished result (deadlock.c): dependencies of
   every path from an end port to an end port's LID (switch LIDs carry
   management traffic on VL 15, which has no credits), per VL. On success
   *free_out is 1 when no credit loop exists; otherwise the cycle is
   returned like ibr__cdg_find_cycle (caller frees with ibr__free), each
   channel encoded as adj * 16 + vl. O(L * S * VLs) dependency insertions;
   memory O(links * VLs + deps). */
int ibr__deadlock_check(int *free_out, uint32_t **cycle, size_t *len, const ibr_topo *t,
                        const ibr_result *r);

/* Multicast checks of ibr_result_verify() (mcast_check.c): flood every
   member's packet through the MFTs of every MLID with members and fill the
   report's mcast_* fields and first_mcast_error. 0 or IBR_ENOMEM. */
int ibr__mcast_verify(ibr_verify_report *rep, const ibr_result *r);

/* Add the multicast dependencies of every MFT to layer 0 of g (channels
   adj * nvl + vl; port_adj maps a switch's global port to its adj index or
   IBR_NONE): at each switch, a copy that arrives by an MFT port (sent by
   the neighbour's MFT) continues on every other MFT port to a switch, with
   SL 0 through the SL2VL tables. 0 or IBR_ENOMEM. */
struct ibr__cdg;
int ibr__mcast_deps(struct ibr__cdg *g, const ibr_result *r, const uint32_t *port_adj,
                    unsigned nvl);

/* Decode a channel returned by ibr__deadlock_check. */
void ibr__decode_channel(ibr_channel *out, const ibr_topo *t, uint32_t code);

/* Append the n bytes at s to b as a JSON string (quoted; '"', '\\', \n, \r,
   \t escaped by name, other control bytes as \u00XX; other bytes as they
   are) (analyze.c). 0 or IBR_ENOMEM. */
int ibr__json_string(ibr_buffer *b, ibr_context *ctx, const char *s, size_t n);

#endif
