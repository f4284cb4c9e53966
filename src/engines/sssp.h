/* The SSSP routing shared by the sssp and dfsssp engines (sssp.c). */
#ifndef IBROUTE_SSSP_H
#define IBROUTE_SSSP_H

#include "engines/engine_int.h"

/* What the routing leaves for dfsssp's layering. */
typedef struct ibr__sssp {
    uint32_t n_dest;    /* routed LIDs */
    uint16_t *dlid;     /* n_dest LIDs in routing order (each reachable) */
    uint8_t *tp;        /* the routes, destination-major: output port of
                           switch y toward dlid[i] at tp[i * n_sw + y]
                           (IBR_NO_ROUTE when y cannot reach it) */
    uint8_t *group;     /* per destination: its balancing group (compute
                           nodes, I/O nodes, other end ports, switches;
                           the lists given decide which exist) */
    unsigned n_groups;
    uint32_t *port_adj; /* global port index -> adjacency entry (a switch
                           link), IBR_NONE for other ports */
    uint32_t *tail;     /* adjacency entry -> switch it leaves */
    uint32_t *hca;      /* per switch: LIDs of its port 0 and of its end
                           ports (OpenSM's num_hca), the weight its routes
                           add to every link they use */
    uint32_t *src_lids; /* per switch: LIDs of its end ports only */
    uint32_t *eps;      /* per switch: end ports (with a LID) */
    uint64_t *load;     /* per channel: the final weights (num_hca per route) */
    uint64_t *cl;       /* per channel: (end port, end-port LID) pairs routed,
                           the verifier's link load */
} ibr__sssp;

/* Route every LID of topology t, the run's or a view of it without
   throttled cables (ibr__engine_topo()), (switch LIDs and end-port LIDs,
   each LID of a port with LMC > 0) with SSSP into s->tp; the run's hop
   matrix (ibr_run_hops()) holds the switch distances. name prefixes progress phases. On
   success *s holds the routing order and helper tables (free them with
   ibr__sssp_free); on failure it holds nothing. Returns 0, IBR_EDECLINED
   (no switches), IBR_ENOMEM or IBR_ECANCELED, with the run's message set. */
int ibr__sssp_compute(ibr_run *run, const ibr_topo *t, ibr__sssp *s, const char *name);
void ibr__sssp_free(ibr_context *ctx, ibr__sssp *s);
/* The engine setting of sssp and dfsssp: avoid_throttled_links. */
/* sssp's settings, then dfsssp's own (fewest_layers): sssp registers the
   first two, dfsssp all three */
extern const ibr_setting ibr__sssp_settings[3];
/* Copy s->tp into the run's LFTs. O(L·S). */
void ibr__sssp_write_lfts(ibr_run *run, const ibr__sssp *s);

#endif
