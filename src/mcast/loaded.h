/* Multicast trees over the unicast link loads: sssp, dfsssp and nue
   (mcast/loaded.c). The one header of mcast/ engines see. */
#ifndef IBROUTE_MCAST_LOADED_H
#define IBROUTE_MCAST_LOADED_H

#include "core/topo_int.h"
#include "ibroute/sys/engine.h"

/* Build the tree of every MLID of the run's groups on the least loaded
   shortest ways toward OpenSM's root (see mcast/loaded.c) and mark the
   trees built. hops: the plain switch hop matrix (S x S), or NULL to
   compute it; load: per adjacency entry of the topology (t->adj), the
   weights the unicast routes left, or NULL to read them from the run's
   LFTs. Without groups it does nothing. Returns 0, IBR_ENOMEM (the run's
   message set) or an error of ibr_run_add_mcast_port(). */
int ibr__mcast_loaded(ibr_run *run, const uint8_t *hops, const uint64_t *load);
/* The same over topology t: the run's or a view of it without throttled
   cables (ibr__engine_topo()), whose adjacency load and hops refer to. */
int ibr__mcast_loaded_on(ibr_run *run, const ibr_topo *t, const uint8_t *hops,
                         const uint64_t *load);

#endif
