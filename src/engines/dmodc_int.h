/*
 * dmodc's repair in place (dmodc.c): the tables of a dmodc routing brought
 * to a changed fabric by recomputing only the entries whose inputs changed
 * (ports of their switch, costs of it or its neighbours, destination
 * index), so that they equal a fresh dmodc route of the changed fabric.
 * The persistence layer (persist/reroute_dmodc.c) describes the saved
 * fabric and calls it; the engine itself never sees a routing database.
 */
#ifndef IBROUTE_DMODC_INT_H
#define IBROUTE_DMODC_INT_H

#include "core/topo_int.h"

/* A fabric as dmodc's formula reads it, in its own switch indices. */
typedef struct ibr__dmodc_fabric {
    uint32_t nsw;
    uint32_t *adj_off;  /* nsw + 1: active switch-to-switch links of each */
    ibr__adj *adj;      /* switch, in ascending local port order */
    uint8_t *nports;    /* per switch */
    uint64_t *busy;     /* per switch 4 words: ports 0..255 with an active cable */
    uint16_t *hosts;    /* per switch: ports cabled to CAs and routers */
    uint64_t *guid;     /* per switch */
    uint16_t *sw_lid;   /* per switch: port 0's LID and LMC */
    uint8_t *sw_lmc;
    /* end ports with a LID that are cabled to a switch, in topology order:
       their switch, its port, their LID and LMC */
    uint32_t n_ep;
    uint32_t *ep_sw;
    uint8_t *ep_port;
    uint16_t *ep_lid;
    uint8_t *ep_lmc;
    uint16_t max_lid;
} ibr__dmodc_fabric;

/* The fabric of topology t (its switch indices). 0 or IBR_ENOMEM. */
int ibr__dmodc_fabric_of(ibr__dmodc_fabric *f, const ibr_topo *t);
/* Arrays of nsw switches and n_ep end ports (adj: n_adj links), zeroed
   where the layout needs it; 0 or IBR_ENOMEM (f freed). */
int ibr__dmodc_fabric_alloc(ibr__dmodc_fabric *f, ibr_context *ctx, uint32_t nsw,
                            uint32_t n_adj, uint32_t n_ep);
void ibr__dmodc_fabric_free(ibr__dmodc_fabric *f, ibr_context *ctx);

/* The model of a saved fabric (levels, dividers, destination index),
   built once with its routing database and read by each repair of it. */
typedef struct ibr__dmodc_saved ibr__dmodc_saved;
/* The model of f, whose arrays it takes (f is left empty whatever the
   answer), with lmc_cap as a repair's options give it. 0 (*out set), 1
   when dmodc does not route f (*out NULL), or IBR_ENOMEM. */
int ibr__dmodc_saved_new(ibr__dmodc_saved **out, ibr_context *ctx, ibr__dmodc_fabric *f,
                         unsigned lmc_cap);
void ibr__dmodc_saved_free(ibr__dmodc_saved *sv, ibr_context *ctx);
/* Its fabric, when it was built with lmc_cap; else NULL. */
const ibr__dmodc_fabric *ibr__dmodc_saved_fabric(const ibr__dmodc_saved *sv, unsigned lmc_cap);

/* LIDs of one LFT block (what one SubnSet(LinearForwardingTable) sends). */
#define IBR__DMODC_BLOCK 64

typedef struct ibr__dmodc_repair {
    const ibr_topo *t;              /* the fabric now */
    const ibr__dmodc_fabric *old;   /* the fabric the saved tables were computed on */
    const ibr__dmodc_saved *saved;  /* its model when old is its fabric, or NULL */
    const uint32_t *swmap;          /* switch of t -> switch of old, IBR_NONE: new */
    uint8_t *lft;                   /* t->n_sw rows of lft_size: the saved tables on
                                       t's switches, same LIDs; repaired in place */
    size_t lft_size;
    uint8_t *hops;                  /* t->n_sw^2: the saved costs (hop matrix) on t's
                                       switches (255 toward or from a new one); set to
                                       the new costs */
    unsigned lmc_cap;               /* as the route's options give it */
    /* the churn against the saved tables, kept as entries change: every
       entry is computed at most once and starts as saved (a LID without a
       saved column, cleared before, gets no port unless a switch is new) */
    uint32_t *changed;              /* per switch of t: += entries changed */
    uint8_t *blk;                   /* per switch of t, n_blocks: += entries
                                       changed in each 64-LID block */
    size_t n_blocks;
    uint32_t *sw_blocks;            /* per switch of t: += blocks that had no
                                       changed entry before */
    uint64_t blocks_total;          /* out: their sum */
    uint64_t changed_total;         /* out: entries changed */
    uint32_t dests;                 /* out: destination switches with entries recomputed */
    char why[640];                  /* out, when 1 is returned */
} ibr__dmodc_repair;

/* Repair a->lft in place. 0: done, equal to a fresh dmodc route of a->t;
   1: not done (a->why says why: the levels, dividers or destination index
   change, or the engine declines the changed fabric), route it in full;
   IBR_ENOMEM. */
int ibr__dmodc_repair_run(ibr__dmodc_repair *a);

#endif
