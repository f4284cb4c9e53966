/* The shared unicast LFT builder (ucast.c). */
#ifndef IBROUTE_UCAST_H
#define IBROUTE_UCAST_H

#include "core/internal.h"

/* Fill the candidate ports of switch s toward every switch d: the ports
   cand[cand_off[d] .. cand_off[d + 1] - 1], ascending, with cand_off of
   n_sw + 1 entries. cand has room for n_sw times the largest number of
   switch links of any switch. Called from worker threads: must only read
   shared state. */
typedef void (*ibr__cand_fn)(void *arg, uint32_t s, uint32_t *cand_off, uint8_t *cand);

/* Build the LFTs of run->res from the engine's least-hop matrix (n_sw x
   n_sw, row = from, 255 = unreachable) and candidate lists, with OpenSM's
   destination order and port balancing and the run's options (LMC,
   guid_routing_order, ignore_ports, scatter_ports, port_shifting,
   port_profile_switch_nodes). name labels progress reports. */
int ibr__ucast_build(ibr_run *run, const uint8_t *least, ibr__cand_fn cands, void *cands_arg,
                     const char *name);

#endif
