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

/* Credit-loop analysis of a finished result (deadlock.c): dependencies of
   every path from an end port to an end port's LID (switch LIDs carry
   management traffic on VL 15, which has no credits), per VL. On success
   *free_out is 1 when no credit loop exists; otherwise the cycle is
   returned like ibr__cdg_find_cycle (caller frees with ibr__free), each
   channel encoded as adj * 16 + vl. O(L * S * VLs) dependency insertions;
   memory O(links * VLs + deps). */
int ibr__deadlock_check(int *free_out, uint32_t **cycle, size_t *len, const ibr_topo *t,
                        const ibr_result *r);

/* Decode a channel returned by ibr__deadlock_check. */
void ibr__decode_channel(ibr_channel *out, const ibr_topo *t, uint32_t code);

#endif
