/*
 * The unicast section of a result (core/result_unicast.c, its one owner):
 * the forwarding tables (lft: lft_size output ports per switch, indexed by
 * LID) and the hop matrix between switches (hops: n_sw x n_sw, 255 where
 * no route). Engines write the entries through sys/ (ibr_run_lft(),
 * ibr_run_hops()) and readers go through ibr__lft_row() (core/internal.h)
 * or the public getters; allocating, clearing, dropping and copying the
 * storage happens here alone.
 */
#ifndef IBROUTE_CORE_RESULT_UNICAST_H
#define IBROUTE_CORE_RESULT_UNICAST_H

#include "core/internal.h"

/* The section of a new result: no tables yet, rows of max_lid + 1. */
void ibr__result_unicast_init(ibr_result *r);

/* Allocate the LFTs unless present, every entry IBR_NO_ROUTE. */
int ibr__result_alloc_lft(ibr_result *r);

/* Allocate the hop matrix unless present, every entry 255. */
int ibr__result_alloc_hops(ibr_result *r);

/* The same without filling, for a caller that writes every entry itself
   (a repair copying saved tables): the LFTs' 0 or IBR_ENOMEM; the hop
   matrix's 1 when allocated here, 0 when present, or IBR_ENOMEM. */
int ibr__result_alloc_lft_unfilled(ibr_result *r);
int ibr__result_alloc_hops_unfilled(ibr_result *r);

/* Between attempts: the hop matrix goes, the LFTs are kept with every
   entry back to IBR_NO_ROUTE. */
void ibr__result_unicast_clear(ibr_result *r);

/* A failed result or its destruction: both tables go (a failed result has
   no LFTs). */
void ibr__result_unicast_drop(ibr_result *r);

/* Copies of the tables for a routing database: *lft (n_sw x lft_size
   bytes) and *hops (n_sw x n_sw bytes, NULL when r has none), allocated
   with r's context. IBR_ENOMEM (nothing allocated) or 0. */
int ibr__result_unicast_copy(uint8_t **lft, uint8_t **hops, const ibr_result *r);

#endif
