/*
 * Private state of ibr_result_analyze(), shared by analyze.c (path
 * lengths, link load, all-to-all, VL usage, accessors and writers) and
 * analyze_patterns.c (shift, random permutation and random bisection
 * patterns).
 */
#ifndef IBROUTE_VERIFY_ANALYZE_INT_H
#define IBROUTE_VERIFY_ANALYZE_INT_H

#include "core/internal.h"

/* QoS levels the analysis separates (ibr_qos_levels goes up to 8). */
#define IBR__AN_LEVELS 8
/* Most cuts of the eBB bound one leaf belongs to (its own included). */
#define IBR__AN_MAXMEM 16

/* The cuts of the eBB bound (analyze_bound.c), a laminar family. Leaves
   are the switches with end ports, in ibr__ajob::ep_sws order; cut k <
   n_leaf is leaf k alone, the others are tree levels, numbered level by
   level. Entry 2c of cap is the number of directed switch-to-switch links
   leaving cut c, entry 2c + 1 of those entering it. */
typedef struct ibr__acuts {
    uint32_t n_leaf;
    uint32_t *leaf_of;  /* per switch: leaf index, or IBR_NONE */
    uint32_t n_cut;
    uint32_t *cap;
    uint32_t *mem_off;  /* per leaf: the cuts holding it, smallest first (CSR) */
    uint32_t *mem;
    uint32_t max_mem;   /* longest such list */
    uint32_t *comp;     /* per leaf: its component (the leaves reach each other
                           exactly within one), or NULL: ask the distances */
} ibr__acuts;

/* Scratch memory of one worker, allocated before any parallel loop (the
   workers never allocate). */
typedef struct ibr__aworker {
    /* per-destination resolution (O(S) each) */
    uint8_t *st;        /* per switch: resolution state */
    uint32_t *len;      /* per switch: switch-to-switch links to the destination */
    uint32_t *next;     /* per switch: next switch */
    uint32_t *link;     /* per switch: link index of its next hop */
    uint32_t *stack;
    uint32_t *order;    /* OK switches, each after its next switch */
    uint64_t *acc;      /* per switch: flows accumulated (loads) or max load */
    uint16_t *vmask;    /* per switch x 16 SLs: VLs used after the switch */
    uint64_t *load;     /* per link: all-to-all load (this worker's share) */
    uint64_t *hist;     /* per hop count */
    uint64_t vl[IBR__AN_LEVELS][16]; /* per QoS level */
    uint64_t pairs, pairs_ok, hop_sum;
    unsigned int max_hops;
    uint32_t max_len;   /* longest switch path from a switch with end ports */
    double max_stretch;
    /* patterns */
    uint32_t *cnt;      /* per link: flows of the current pattern */
    uint32_t *touched;  /* links with cnt > 0 (one spare slot) */
    uint32_t *perm;     /* N */
    uint32_t *fsw;      /* per flow: source switch */
    uint32_t *fdlid;    /* per flow: destination LID */
    uint32_t *fcur;     /* per flow: switch reached so far */
    uint32_t *flen;     /* per flow: links, or IBR_NONE when unrouted */
    uint32_t *active;   /* flows still on their way */
    uint32_t *fdsw;     /* per flow: switch delivering to its destination */
    size_t *frow;       /* per flow: offset of its destination's tile row */
    uint32_t *buf;      /* link r of flow f at buf[r * flows + f] */
    size_t buf_cap;
    /* eBB bound (analyze_bound.c) */
    uint32_t *bcnt;     /* per cut entry: the pattern's flows crossing it */
    uint32_t *bdix;     /* per cut entry: its index among the crossed, or IBR_NONE */
    uint32_t *btouch;   /* the crossed entries */
    uint32_t *bup;      /* per entry: flows on to (out) or in from (in) the next cut */
    uint32_t *bterm;    /* per leaf entry: flows from the source / to the sink */
    uint32_t *bpar;     /* per entry: the next cut entry of the chains through it */
    uint32_t *ga, *gb, *gm; /* flow groups: source leaf, destination leaf, flows */
    uint8_t *gno, *gne; /* per group: entries left, entries in all ... */
    uint32_t *gent;     /* ... at gent[g * 2 * max_mem] */
    uint32_t *barc;     /* per crossed entry: its 3 arcs in the network */
    uint32_t *gpath;    /* the arcs of one group's chain */
    uint32_t *nfirst, *nlevel, *nit, *nqueue; /* max-flow nodes */
    uint32_t *ato, *anext, *acap;             /* max-flow arcs */
} ibr__aworker;

/* Where a switch port leads: the link index and the next switch. */
typedef struct ibr__ahop {
    uint32_t link;
    uint32_t next;
} ibr__ahop;

/* One evaluated pattern. */
typedef struct ibr__apattern {
    uint64_t flows;
    uint64_t unrouted;
    uint64_t max;
    uint64_t cong;  /* sum over routed flows of their congestion */
    double share; /* sum over flows of the flow's bandwidth share */
    double bound; /* the most that sum could be under any routing */
} ibr__apattern;

/* Families of the workloads beyond the ::ibr_pattern bits (make_flows). */
enum {
    IBR__FAM_RING = 1 << 8,
    IBR__FAM_RD = 1 << 9,
    IBR__FAM_RAIL_RING = 1 << 10,
    IBR__FAM_RAIL_RD = 1 << 11,
    IBR__FAM_MOE = 1 << 12,
    IBR__FAM_GRID = 1 << 13,
};

/* A limiting link of a workload, copied out of the topology. */
typedef struct ibr__alink {
    uint64_t flows;
    uint64_t guid, peer_guid;
    unsigned port, peer_port;
    char name[IBR_DESC_SIZE], peer[IBR_DESC_SIZE];
} ibr__alink;

/* One step of a multi-step workload (recursive doubling). */
typedef struct ibr__astep {
    uint64_t flows, unrouted, max;
    double ebb, bound;
} ibr__astep;

/* One evaluated workload. */
typedef struct ibr__awl {
    unsigned bit;          /* its ibr_workload bit */
    ibr_pattern_stats st;
    double bound;          /* eBB bound: mean over its patterns */
    double worst_ebb;      /* lowest eBB of one of its patterns */
    double flow_cong;      /* mean over routed flows of their congestion */
    unsigned worst;        /* the pattern the limiting links come from */
    unsigned n_top;
    ibr__alink top[IBR_WORKLOAD_MAX_TOP];
    size_t n_steps;        /* per-pattern records of step-wise workloads */
    ibr__astep *steps;
} ibr__awl;

typedef struct ibr__ajob {
    const ibr_topo *t;
    const ibr_result *r;
    ibr_analyze_options opts;
    uint32_t nsw;
    size_t lft_size;
    const uint8_t *lft;
    const uint8_t *dist;        /* S x S switch hops (255 = unreachable) */
    uint32_t *port_link;        /* global port -> link index, or IBR_NONE */
    uint32_t *link_dst;         /* link -> neighbour switch */
    uint32_t *sw_port_off;      /* switch -> global index of its port 0 */
    /* end ports cabled to a switch, in end-port order */
    uint32_t n_ep;
    uint32_t *ep_sw;            /* switch it is cabled to */
    uint32_t *ep_slot;          /* index in t->end_port (per-pair SL slot) */
    uint16_t *ep_lid;           /* base LID */
    uint8_t *ep_lmc;
    uint8_t *ep_port;           /* switch port it is cabled to */
    uint32_t *sw_ep_off;        /* CSR switch -> its end ports */
    uint32_t *sw_ep;
    uint32_t *ep_sws;           /* switches with end ports */
    uint32_t n_ep_sws;
    uint32_t *lid_ep;           /* LID -> end port, or IBR_NONE */
    /* destinations of all-to-all: every LID of every end port */
    uint32_t n_dest;
    uint16_t *dest_lid;
    double *dest_stretch;       /* per destination: sum of stretches */
    double *dest_share;         /* per destination: sum of flow shares */
    const uint64_t *load;       /* final all-to-all loads (pass 2) */
    int vl_mode;                /* how VLs are found, see analyze.c */
    unsigned int levels;        /* QoS levels (1 without) */
    unsigned int stride;        /* SL distance between two levels */
    uint32_t max_len;
    /* pattern walks: the LFTs in tiles of 64 LIDs: tile b holds, for every
       switch in turn, its entries toward LIDs 64b .. 64b+63, and 0 where the
       switch's route to that LID does not work (filled by the path pass);
       and global port -> (link, next switch) */
    uint8_t *lft_t;
    ibr__ahop *hop;
    double *recip;              /* recip[c] = 1.0 / c, c = 1 .. N */
    /* workers */
    unsigned int nw;
    ibr__aworker *w;
    ibr__acuts cuts;            /* of the eBB bound */
    /* pattern family being evaluated */
    unsigned int family;
    ibr__apattern *pat;
    /* rank order (identity without one) and the workloads' groups */
    uint32_t n_rank;
    uint32_t *rank_ep;          /* rank -> end port */
    uint32_t max_flows;         /* most flows of one pattern (scratch size) */
    uint32_t n_rails;           /* 0: no rails found */
    uint32_t *rail_off;         /* CSR rail -> its ranks, in rank order */
    uint32_t *rail_rank;
    uint32_t rail_max;          /* most ranks on one rail */
    unsigned gdim[3];           /* process grid, gdim[2] = 1 on 2-D */
    double *dest_cong;          /* per all-to-all destination: sum of congestions */
    /* the busiest links of one pattern, captured on demand */
    int capture;
    unsigned n_cap;
    uint32_t cap_link[IBR_WORKLOAD_MAX_TOP];
    uint64_t cap_cnt[IBR_WORKLOAD_MAX_TOP];
    /* the shift (0) and permutation (1) workloads when their pattern
       families were evaluated with a record: the same flows, not walked
       twice */
    ibr__awl pre[2];
    unsigned pre_have; /* bit i: pre[i] is filled */
} ibr__ajob;

/* The entry of switch s toward lid in the tiled LFTs is
   ibr__atile_row(j, lid)[s * 64]. Consecutive flows of a pattern go to
   neighbouring LIDs, so they read one tile (S x 64 bytes) instead of a
   cache line and a page in the LFT of every switch they cross. */
static inline uint8_t *ibr__atile_row(const ibr__ajob *j, unsigned lid)
{
    return j->lft_t + ((size_t)(lid / 64) * j->nsw) * 64 + lid % 64;
}

/* Evaluate n patterns of family (one ::ibr_pattern bit other than
   all-to-all, or an IBR__FAM_ value) into *out, and their eBB bound into
   *bound. With rec, also the workload record: statistics, limiting links
   (of the pattern with the most congestion), steps. Allocation happens
   before the parallel loop. */
int ibr__analyze_patterns(ibr_pattern_stats *out, double *bound, ibr__ajob *j, unsigned family,
                          size_t n, ibr__awl *rec);
/* Copy link l's ends into *out (analyze_workload.c). */
void ibr__analyze_link_info(ibr__alink *out, const ibr__ajob *j, uint32_t l, uint64_t flows);
/* The rank order, rails and grid of the options (analyze_workload.c);
   after the end-port tables. IBR_ENOTFOUND: a GUID of no end port;
   IBR_EINVAL: a rank twice, a grid of another size. */
int ibr__analyze_ranks(ibr__ajob *j);
/* Evaluate the workloads of j->opts.workloads into rec (room for one per
   bit), in bit order, those that apply; *n gets how many. The all-to-all
   one is copied from *a2a. */
int ibr__analyze_workloads(ibr__ajob *j, ibr__awl *rec, size_t *n, const ibr__awl *a2a);
/* The parameters the workloads were evaluated with, for the reports. */
typedef struct ibr__awlopts {
    unsigned workloads;
    uint32_t ranks, rails; /* rails 0: none found (or not asked for) */
    unsigned grid[3];      /* as used: {0, 0, 0} when no grid was asked for */
    unsigned moe_group, moe_fanout, n_random;
    uint64_t seed;
} ibr__awlopts;

/* "ring", "recursive_doubling", ... of a workload bit. */
const char *ibr__workload_name(unsigned bit);
/* Write the workloads as a JSON array member / text table. */
int ibr__write_workloads_json(ibr_buffer *out, ibr_context *ctx, const ibr__awl *w, size_t n,
                              const ibr__awlopts *o);
int ibr__write_workloads_text(ibr_buffer *out, ibr_context *ctx, const ibr__awl *w, size_t n,
                              const ibr__awlopts *o);
/* Build the walk tables and allocate the pattern scratch of every worker. */
int ibr__analyze_pattern_scratch(ibr__ajob *j);
void ibr__analyze_free_worker(ibr_context *ctx, ibr__aworker *w);

/* eBB bound (analyze_bound.c). Find the cuts (needs the end-port tables
   and the switch distances). */
int ibr__analyze_cuts(ibr__ajob *j);
void ibr__analyze_free_cuts(ibr_context *ctx, ibr__acuts *c);
/* A worker's scratch for ibr__analyze_bound() (after ibr__analyze_cuts()). */
int ibr__analyze_bound_scratch(const ibr__ajob *j, ibr__aworker *w);
/* The most the shares of the nf flows in w->fsw / w->fdlid can sum to
   under any routing (needs j->dist). */
double ibr__analyze_bound(const ibr__ajob *j, ibr__aworker *w, uint32_t nf);
/* The same for the all-to-all flows. */
int ibr__analyze_bound_a2a(double *out, const ibr__ajob *j);

#endif
