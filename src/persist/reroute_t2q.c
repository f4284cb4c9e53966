/*
 * Repair in place of a saved torus-2QoS routing: the engine's run set up
 * on the changed topology, writing into the repaired result, and the
 * engine's repair entry point (engines/torus2qos.h) given the torus the
 * routing was built on (the configuration and placement the database
 * keeps). Only the destination switches the caller marks are routed; the
 * path SLs follow the torus coordinates, which the placement check keeps.
 */
#include <bsd/string.h>
#include <string.h>

#include "engines/torus2qos.h"
#include "persist/persist_int.h"
#include "route/route_int.h"
#include "sys/run_int.h"

int ibr__reroute_t2q(ibr_result *r, const ibr_routing_db *db, const ibr_topo *t,
                     const ibr_options *o, const uint8_t *dest,
                     void (*put)(void *arg, uint32_t sw, uint32_t lid, unsigned port), void *arg,
                     uint32_t *dests, char *why, size_t cap)
{
    ibr_run run;
    memset(&run, 0, sizeof run);
    run.ctx = t->ctx;
    run.topo = t;
    run.res = r;
    run.nthreads = 1;
    *dests = 0;
    int rc = ibr__options_read(&run.opts, o, run.message);
    if (rc == 0)
        rc = ibr__options_check(run.message, &run.opts);
    if (rc < 0) {
        snprintf(why, cap, "the options do not read: %s", run.message);
        return 1;
    }
    t2q_repair *a = ibr__calloc(t->ctx, 1, sizeof *a);
    if (!a)
        return IBR_ENOMEM;
    a->run = &run;
    a->conf = db->torus_conf;
    a->conf_len = db->torus_conf_len;
    a->saved_guid = db->tpos_guid;
    a->saved_xyz = db->tpos_xyz;
    a->n_saved = db->n_tpos;
    a->dest = dest;
    a->put = put;
    a->arg = arg;
    rc = t2q_repair_run(a);
    if (rc == 1)
        strlcpy(why, a->why, cap);
    *dests = a->dests;
    ibr__free(t->ctx, a);
    return rc;
}
