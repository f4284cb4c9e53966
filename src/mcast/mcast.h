/*
 * Multicast trees (src/mcast/): the default trees OpenSM's multicast
 * manager builds (trees.c, the ibr_run_mcast_* calls of the engine-author
 * API), the trees over the unicast loads (loaded.c, loaded.h) and the
 * multicast VL isolation (isolate.c). What the routing pipeline calls
 * after an engine is here; the groups themselves are core's
 * (core/mcast_groups.c).
 */
#ifndef IBROUTE_MCAST_MCAST_H
#define IBROUTE_MCAST_MCAST_H

#include "sys/run_int.h"

/* What the route does after the multicast trees (ibr__mcast_isolate()). */
typedef enum ibr__mcast_next {
    IBR__MCAST_DONE,            /* the trees stand: go on */
    IBR__MCAST_ROUTE_FEWER_VLS  /* no VL is free for multicast but the engine
                                   spread over more VLs than its layers need:
                                   run it again with max_vls one below the
                                   VLs it used, then build the trees again */
} ibr__mcast_next;

/* After the multicast trees of an engine that promises deadlock freedom:
   when they close a credit loop with the unicast routes, move unicast one
   SL/VL up and rebuild the trees inside one spanning tree
   (mcast/isolate.c). max_vls: the caller's limit (run->opts.max_vls
   may be lower on a second run); retried: this is the second run (it never
   asks for a third). Sets *next; returns 0 or IBR_ENOMEM (the run's
   message set). */
int ibr__mcast_isolate(ibr__mcast_next *next, ibr_run *run, unsigned max_vls, int retried);

/* After an engine's success: the default trees when it built none of its
   own (on plain minimum hops: OpenSM's per-port hop tables for every
   engine without a hop matrix of its own), their VL isolation
   (ibr__mcast_isolate(), which sets *next), then, when the trees stand,
   the members the result keeps. 0 or the attempt's error. */
int ibr__mcast_trees(ibr__mcast_next *next, ibr_run *run, unsigned max_vls, int retried);

#endif
