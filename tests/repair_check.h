/*
 * Checks of a routing repaired from the routing database (repair_check.c),
 * shared by the repair tests.
 */
#ifndef IBROUTE_TESTS_REPAIR_CHECK_H
#define IBROUTE_TESTS_REPAIR_CHECK_H

#include "harness.h"

/* How the reroutes of a test ended. */
typedef struct ibr_test_tally {
    unsigned repaired, full, layers_opened;
} ibr_test_tally;

/* The base LIDs of every path-SL row (end ports cabled to a switch, and
   switches), as the reroute report counts path SLs, in *out (malloc'ed);
   their count. */
size_t ibr_test_src_lids(const ibr_topo *t, uint16_t **out);


/* y, the answer of rerouting the saved routing old onto y's topology
   (report rep), checked: valid, loop-free by the independent walk, a path
   whose route is unchanged keeps its SL, a path that crossed no element
   lost in y's topology keeps its route (repairs; what containing "back"
   names a comeback, where routes may shorten), and rep's counts. */
void ibr_test_check_repair(const ibr_result *old, const ibr_result *y,
                           const ibr_reroute_report *rep, const char *what);

/* old rerouted from its database onto t, counted in ty, checked
   (ibr_test_check_repair) and returned. */
ibr_result *ibr_test_reroute(const ibr_result *old, const ibr_topo *t, ibr_test_tally *ty,
                             const char *what);

#endif
