/*
 * The fat-tree engine's private model, shared by ftree.c (fabric model,
 * ranking, compute nodes, port groups, indexing, validation) and
 * ftree_route.c (route assignment).
 *
 * Switches keep the topology's dense indices (OpenSM's switch-table order).
 * Every switch port with an active cable to another switch or to a CA port
 * belongs to one port group: all the ports toward the same neighbour switch,
 * or the single port toward one CA port. A group is DOWN, SIBLING or UP by
 * the ranks of its two ends (CA groups are DOWN). The per-switch lists of
 * group indices live in one array (ft->order) and are re-sorted in place by
 * load while routing, exactly as OpenSM re-sorts its group arrays.
 */
#ifndef IBROUTE_FTREE_INT_H
#define IBROUTE_FTREE_INT_H

#include "engines/engine_int.h"

#define FT_NORANK UINT32_MAX
#define FT_CA UINT32_MAX   /* ft_group.remote of a group toward a CA port */
#define FT_NOHOP 0xFFu
#define FT_TUPLE_LEN 8
#define FT_MIN_RANK 2      /* tree rank = leaf rank + 1 */
#define FT_MAX_RANK 8

/* Reverse hops: settings up to this walk as OpenSM does (ftree_route.c,
   reached()); above it, level by level. */
#define FT_RH_OPENSM 2

/* A reverse hop waiting for its level: the walk up from switch x, come
   down from prev, h hops from the destination. */
typedef struct ft_move {
    uint32_t x, prev;
    uint8_t h, main;
} ft_move;

/* Roles of a CA port. */
enum { FT_NONCN = 0, FT_CN = 1, FT_IO = 2 };

/* One port of a group, with its route counters. */
typedef struct ft_port {
    uint32_t cu;      /* routes that enter here from below and go up */
    uint32_t cd;      /* routes that leave here downward (kept on the
                         lower switch's up port) */
    uint8_t port;     /* local port */
    uint8_t rport;    /* port on the remote switch (or CA) */
} ft_port;

typedef struct ft_group {
    uint32_t remote;  /* switch index, or FT_CA */
    uint32_t ca;      /* CA groups: index into ft->ca (the CA port) */
    uint32_t port0;   /* first entry in ft->ports */
    uint16_t nports;
    uint8_t rport1;   /* remote port number of the first port (a group of
                         one port needs no look at ft->ports, whose
                         counters are then never consulted) */
    uint32_t cu, cd;  /* group counters, as the port counters */
    uint64_t rkey;    /* the remote switch's tuple key (sort tie-break) */
} ft_group;

typedef struct ft_sw {
    uint32_t rank;
    uint8_t tuple[FT_TUPLE_LEN];
    uint64_t key;     /* tuple as a big-endian number: compares like it */
    uint32_t down, ndown;   /* slices of ft->order */
    uint32_t sib, nsib;
    uint32_t up, nup;
    uint32_t idx;     /* rotating start among DOWN groups (reverse hops) */
    uint32_t cls;     /* class of switches with this DOWN neighbour set, or
                         IBR_NONE (see ft->cls_gen) */
    uint16_t lid;     /* switch LID (0 = none) */
    uint8_t is_leaf;  /* leaf rank and carries a compute node */
    uint8_t changed;  /* an up-counter of a DOWN group moved since sorting */
    uint8_t up_dirty; /* a down-counter of an UP group moved since sorting
                         (OpenSM sorts at every visit; a sorted list needs
                         none) */
    uint8_t has_ca;   /* a DOWN group leads to a CA port */
    uint8_t sw_down;  /* a DOWN group leads to a switch */
    uint8_t has_end;  /* end ports are cabled to it (connect_roots) */
} ft_sw;

/* A CA port cabled to a ranked switch. */
typedef struct ft_ca {
    uint32_t gp;      /* global port index */
    uint32_t sw;      /* switch it is cabled to */
    uint32_t group;   /* the switch's group toward it */
    uint16_t lid;     /* base LID (0 = none: routed like a missing node) */
    uint8_t swport;   /* switch port toward it */
    uint8_t role;     /* FT_CN, FT_IO, FT_NONCN */
} ft_ca;

typedef struct ftree {
    ibr_run *run;
    const ibr_topo *t;
    ibr_context *ctx;
    const ibr_options *o;
    unsigned max_reverse_hops; /* the engine's settings */
    int connect_roots;
    uint8_t *hm;       /* the run's hop matrix (ibr_run_hops()) */
    uint32_t nsw;
    ft_sw *sw;
    ft_group *grp;
    uint32_t ngrp;
    ft_port *ports;
    uint32_t nports;
    uint32_t *order;        /* group indices, per switch down | sib | up */
    ft_ca *ca;              /* CA ports in CA-table order, then port order */
    uint32_t nca;
    uint32_t *routers;      /* router end ports (global port index), routed
                               like non-compute CA ports */
    uint32_t nrouters;
    uint32_t leaf_rank, max_rank;
    uint32_t *leaves;       /* leaf array in tuple order */
    uint32_t nleaves;
    uint32_t max_cn;        /* most compute nodes on one leaf */
    uint32_t *cn_seq;       /* nleaves * max_cn: the CA port (index into ca)
                               of every CN in the order routed, IBR_NONE for
                               a dummy; filled by ibr__ftree_assign */
    uint32_t ncn;
    int roots_given;
    int degraded;           /* no root GUIDs and the purity rules broken */
    uint32_t dg_classic;    /* busiest link of OpenSM's routing (0: not run) */
    uint32_t dg_balanced;   /* busiest link of the balanced routing */
    int dg_kept_classic;    /* OpenSM's routing kept on a degraded tree */
    /* routing state for the current destination */
    uint16_t lid;           /* LID being routed (0 = dummy / no LID) */
    uint8_t *hops;          /* per switch, FT_NOHOP = none */
    uint8_t *port;          /* per switch: LFT entry chosen, 255 = none; a
                               column of batch */
    /* Routes are kept per destination in columns of batch (and the hop
       counts of switch destinations in hbatch) and written into the rows
       of the LFTs and of the hop matrix a batch at a time, in parallel. */
    uint8_t *batch, *hbatch;
    uint16_t *batch_lid;    /* LID of each column */
    uint32_t *hbatch_sw;    /* destination switch of each hbatch column */
    uint32_t batch_cap, batch_n, hbatch_n;
    /* ibr__ftree_assign with 2 or more threads: a full batch is written by
       a thread of its own while the walks fill a second set (ftree_route.c,
       struct ft_bg); NULL otherwise */
    void *bg;
    /* Pruning. Switches without SIBLING groups whose DOWN groups lead to
       the same set of switches share a class. Once a walk down from one of
       them at h hops is complete, every switch of that set has a route of
       at most h + 1 hops to the destination, so a later walk down from any
       switch of the class at h' >= h hops changes nothing and is skipped.
       cls_h[c] holds that h for the destination numbered cls_gen[c]. */
    uint32_t ncls;
    uint32_t *cls_gen;
    uint8_t *cls_h;
    uint32_t gen;           /* destination number */
    /* Reverse hops (ftree_route.c, reached()). rh: max_reverse_hops clamped
       to the most a search can use on this tree (ibr__ftree_rh_bound).
       prune: for the current destination, 0 (no reverse hops), 1 (walks
       with FT_RH_OPENSM reverse hops left are pruned) or 2 (all walks are,
       and reverse hops wait in mv for their level). reach: per switch, the
       fewest hops at which a side walk [0] and a main walk [1] that could
       be pruned reached it; valid while reach_gen[] equals gen. */
    unsigned rh;
    int prune;
    int oom;                /* a level could not grow */
    uint8_t *reach;
    uint32_t *reach_gen;
    ft_move *mv, *mv_next, *mv_tmp;
    uint32_t n_mv_next, cap_mv;
} ftree;

/* ftree_route.c: the switch classes above (ft->sw[].cls, cls_gen, cls_h).
   Returns 0 or IBR_ENOMEM. */
int ibr__ftree_classes(ftree *ft);

/* ftree_route.c: max_reverse_hops clamped to the most reverse hops the
   search can use on this tree: every higher setting gives the same tables.
   Needs the ranks and ibr__ftree_classes(). */
unsigned ibr__ftree_rh_bound(const ftree *ft, unsigned setting);

/* ftree_route.c: assign every route and fill the result (LFTs, hop
   matrix). Returns 0, IBR_ENOMEM or IBR_ECANCELED. */
int ibr__ftree_assign(ftree *ft);

/* ftree_route.c: the same for a degraded tree (ft->degraded): up/down
   routes of minimal length balanced on the link loads. With tol > 0 the
   tables hold OpenSM's routing (ibr__ftree_assign) on entry: it is
   measured (ft->dg_classic), the balanced routing too (ft->dg_balanced),
   and OpenSM's is kept (ft->dg_kept_classic) when its busiest link is at
   most tol percent above. Returns 0, IBR_ENOMEM or IBR_ECANCELED. */
int ibr__ftree_assign_degraded(ftree *ft, unsigned tol);

/* ftree_lmc.c: route the LIDs after the base LID of every port with
   LMC > 0 (up to the run's lmc), from the base LIDs' tables, over
   different upper switches. Returns 0, IBR_ENOMEM or IBR_ECANCELED. */
int ibr__ftree_lmc(ftree *ft);

/* Stable sorts of a group-index slice, as OpenSM orders port groups. */
void ibr__ftree_sort_up_load(ftree *ft, uint32_t *g, uint32_t n);
void ibr__ftree_sort_down_load(ftree *ft, uint32_t *g, uint32_t n);

#endif
