/*
 * Path SLs of a repaired layered routing (reroute_layered.c), for
 * ibr_routing_db_route() (reroute.c).
 */
#ifndef IBROUTE_PERSIST_REROUTE_LAYERED_H
#define IBROUTE_PERSIST_REROUTE_LAYERED_H

#include "persist/persist_int.h"

/* Path SLs of a repaired layered routing (reroute_layered.c): r holds the
   repaired LFTs and the saved path SLs (per pair, or per destination with
   sl_rows_same) on topology t, whose switch s is saved switch swmap[s]
   (none new) and LID l saved LID lidmap[l] (IBR_NONE: a new column);
   lid_touched marks the columns the
   repair wrote. The moved paths get SLs whose layers stay acyclic, within
   vls VLs; the others keep theirs. A column whose moved paths do not fit
   may take other shortest routes (r->hops) on switches whose paths toward
   that LID all moved; without r->hops (nue) the moved switches first join
   the column's unmoved ones again by checked insertion, and a column that
   still does not fit takes routes toward unmoved neighbours instead. 0 (r's SLs set; counts and vls_used,
   layers set), 1 (no such repair: why says so; r's SLs partly changed), or
   IBR_ENOMEM. */
typedef struct ibr__layer_repair {
    const ibr_topo *t;
    const ibr_routing_db *db;
    ibr_result *r;
    const uint32_t *swmap, *lidmap;
    const uint8_t *lid_touched;
    int sl_rows_same; /* r->sl holds per-destination SLs (lft_size bytes):
                         a LID's sources share its SL; on return per
                         destination still, or per pair (r->sl_mode set)
                         where a moved path took another SL */
    unsigned vls;
    uint8_t *rowed; /* per switch, set where an entry was changed to find a
                       route whose paths fit the layers (rows to recount) */
    uint64_t paths_moved; /* (source switch, LID) paths that moved */
    uint64_t sls_moved;   /* path SLs given another SL */
    uint64_t entries_changed; /* LFT entries set to other routes (rowed) */
    unsigned layers_opened, vls_used, layers;
    /* nue, optional (NULL: neighbours tried in cable order, entries
       written as they are): the load of switch s's route toward LID l
       through its port p (the busiest link in *mx, then the total in *sum;
       lower is better), and the write of an entry that moves the traffic
       crossing s with it; arg is theirs */
    void (*route_load)(void *arg, uint32_t s, size_t l, unsigned p, int64_t *mx, int64_t *sum);
    void (*move_entry)(void *arg, uint32_t s, size_t l, unsigned p);
    void *arg;
    char why[256];
} ibr__layer_repair;
int ibr__reroute_layers(ibr__layer_repair *a);

#endif
