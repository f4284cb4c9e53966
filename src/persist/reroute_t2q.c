/*
 * Repair in place of a saved torus-2QoS routing: the engine's run set up
 * on the changed topology, writing into the repaired result, and the
 * engine's repair entry point (engines/torus2qos.h) given the torus the
 * routing was built on (the configuration and placement the database
 * keeps). Only the destination switches the caller marks are routed, and
 * after lost cables only from the switches whose choice can change (a
 * lost cable or an empty place on one of their lines); the
 * path SLs follow the torus coordinates, which the placement check keeps.
 * The saved configuration gets backup seeds taken from the saved
 * placement (origin and its + neighbours, datelines putting the origin
 * where it sat), so that losing the seed's switches or cables does not
 * move the torus: the first seed still whole places it where it was.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"

#include "engines/torus2qos.h"
#include "persist/persist_int.h"
#include "route/route_int.h"
#include "sys/run_int.h"

enum { BACKUP_SEEDS = 4 };

/* The saved switch at x, y, z (IBR_NONE: none), by a scan of the saved
   placement. */
static uint32_t saved_at(const ibr_routing_db *db, const unsigned c[3])
{
    for (uint32_t i = 0; i < db->n_tpos; i++) {
        const uint8_t *x = &db->tpos_xyz[(size_t)i * 3];
        if (x[0] == c[0] && x[1] == c[1] && x[2] == c[2])
            return i;
    }
    return IBR_NONE;
}

static int present(const ibr_topo *t, uint64_t guid)
{
    uint32_t node;
    return ibr_topo_find_guid(&node, NULL, t, guid) == 0 && t->nodes[node].sw != IBR_NONE;
}

/* The saved configuration, then up to BACKUP_SEEDS seeds from the saved
   placement whose switches are all in t, into out. 0 or IBR_ENOMEM. */
static int with_backups(ibr_buffer *out, ibr_context *ctx, const ibr_routing_db *db,
                        const ibr_topo *t)
{
    t2q_config cf;
    char err[IBR_ERRMSG_SIZE];
    memset(&cf, 0, sizeof cf);
    /* the backups start on a line of their own */
    int rc = ibr__buf_printf(out, ctx, "%s\n", db->torus_conf);
    if (rc < 0 || t2q_config_parse(&cf, ctx, db->torus_conf, db->torus_conf_len, err) < 0)
        return rc; /* the engine says what is wrong with it */
    unsigned added = 0;
    for (uint32_t i = 0; i < db->n_tpos && added < BACKUP_SEEDS && rc == 0; i++) {
        const uint8_t *o = &db->tpos_xyz[(size_t)i * 3];
        /* nb[d][dir]: the saved switch one step along d (0 minus, 1 plus);
           a radix-4 torus dimension takes both links */
        uint32_t nb[T2Q_DIMS][2];
        int ok = present(t, db->tpos_guid[i]);
        for (unsigned d = 0; d < T2Q_DIMS && ok; d++) {
            nb[d][0] = nb[d][1] = IBR_NONE;
            if (cf.radix[d] < 2)
                continue;
            for (int k = 0; k < 2 && ok; k++) {
                unsigned dir = k ? 0 : 1;
                if (dir == 0 && (cf.mesh[d] || cf.radix[d] != 4))
                    continue;
                if (cf.mesh[d] && o[d] + 1u >= cf.radix[d]) {
                    ok = 0;
                    break;
                }
                unsigned c[3] = {o[0], o[1], o[2]};
                c[d] = (c[d] + (dir ? 1 : cf.radix[d] - 1)) % cf.radix[d];
                nb[d][dir] = saved_at(db, c);
                ok = nb[d][dir] != IBR_NONE && present(t, db->tpos_guid[nb[d][dir]]);
            }
        }
        if (!ok)
            continue;
        rc = ibr__buf_printf(out, ctx, "next_seed\n");
        for (unsigned d = 0; d < T2Q_DIMS && rc == 0; d++)
            for (unsigned dir = 0; dir < 2 && rc == 0; dir++)
                if (nb[d][dir] != IBR_NONE)
                    rc = ibr__buf_printf(out, ctx,
                                         "%c%c_link 0x%016" PRIx64 " 0x%016" PRIx64 "\n",
                                         "xyz"[d], dir ? 'p' : 'm', db->tpos_guid[i],
                                         db->tpos_guid[nb[d][dir]]);
        for (unsigned d = 0; d < T2Q_DIMS && rc == 0; d++)
            if (nb[d][1] != IBR_NONE)
                rc = ibr__buf_printf(out, ctx, "%c_dateline -%u\n", "xyz"[d], (unsigned)o[d]);
        added++;
    }
    t2q_config_free(&cf, ctx);
    return rc;
}

int ibr__reroute_t2q(ibr_result *r, const ibr_routing_db *db, const ibr_topo *t,
                     const ibr_options *o, const uint8_t *dest, const uint8_t *lost,
                     const uint8_t *sl_kept, void (*put)(void *arg, uint32_t sw, uint32_t lid, unsigned port), void *arg,
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
    ibr_buffer conf = IBR_BUFFER_INIT;
    if (with_backups(&conf, t->ctx, db, t) < 0) {
        ibr_buffer_dispose(&conf);
        ibr__free(t->ctx, a);
        return IBR_ENOMEM;
    }
    a->run = &run;
    a->conf = conf.data;
    a->conf_len = conf.size;
    /* the derived configuration is the repaired routing's artefact, as in
       a full run (without the backup seeds, made again each time); a
       given one stays a setting */
    a->conf_keep = db->torus_conf_len;
    for (size_t i = 0; i < db->n_settings; i++)
        if (!strcmp(db->set_name[i], "torus-2QoS.config") && db->set_value[i][0])
            a->conf_keep = 0;
    a->saved_guid = db->tpos_guid;
    a->saved_xyz = db->tpos_xyz;
    a->n_saved = db->n_tpos;
    a->dest = dest;
    a->lost = lost;
    a->sl_kept = sl_kept;
    a->put = put;
    a->arg = arg;
    rc = t2q_repair_run(a);
    if (rc == 1) {
        strlcpy(why, a->why, cap);
    } else if (rc < 0 && rc != IBR_ENOMEM) {
        /* the engine declines or fails on the changed fabric: a full
           reroute says so (and fails the same way if it must) */
        snprintf(why, cap, "torus-2QoS on the changed fabric: %s",
                 run.message[0] ? run.message : "the engine failed");
        rc = 1;
    }
    *dests = a->dests;
    ibr_buffer_dispose(&conf);
    ibr__free(t->ctx, a);
    return rc;
}
