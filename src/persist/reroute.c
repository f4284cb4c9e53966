/*
 * Comparing a routing database with a topology (each difference one
 * ibr_change_kind: a switch, a switch-to-switch cable or an end port new,
 * missing or moved, or a LID changed, with what it invalidates) and
 * producing the routing of the topology from it:
 * the saved tables, moved to the current LIDs, repaired where cables or
 * switches were lost, completed for new end ports, or a full reroute.
 *
 * Repair after lost cables or switches (doc/guide.md, "Persistence and
 * rerouting after faults"). An entry is broken when its port no longer
 * carries the saved cable; only the rows of the switches that lost
 * a cable are scanned. A broken entry of switch s toward destination
 * switch d, at saved distance h, moves to the least-loaded port whose
 * neighbour was at distance h - 1 (in the saved hop matrix), parallel
 * cables to the same neighbour first; for a minimal routing such a
 * neighbour's own route has length h - 1 and so cannot cross a lost
 * cable, and the distances do not change. When no such port exists, d is
 * searched again (one breadth-first search) and the switches whose
 * distance to d changed, their neighbours and the switches that lost a
 * cable have their entries toward d's LIDs checked: an entry no longer on
 * a shortest path takes the least-loaded port that is (minimal engines
 * without path SLs; toward an end port, the least busy with the traffic
 * moved so far, nearest switches first: fix_entry). updn and dnup
 * routings saved with their orientation of the links are repaired under
 * it (reroute_updown.c): only the routes that crossed a lost element
 * move, to legal up/down routes, and only the
 * moved entries are checked. Other engines keep their own rules: up/down
 * and fat-tree routings repair locally at the same distance of their own hop
 * matrix, and the destinations that cannot be repaired so take, on every
 * switch, the routes the engine computes on the new fabric (one full run,
 * of which only those columns are used); engines with path SLs take them
 * (with their SLs) for every destination whose routes crossed a lost
 * cable, since a moved path needs its layer recomputed; layered minimal
 * engines (lash, dfsssp: per-pair SLs and a hop matrix) are instead
 * repaired by shortest paths, also after a cable or switch comes back,
 * and their moved paths placed into layers (reroute_layered.c), so that
 * unmoved paths keep their SL; nue (not minimal, no hop matrix) keeps, in
 * each LID column over a lost element, the switches whose saved path is
 * intact, joins the others to them (nue_fix, then join_column in
 * reroute_layered.c) and places its moved paths the same way; torus-2QoS
 * routes the destinations whose routes crossed a lost element (every one
 * after a comeback) again on the torus rebuilt from its saved
 * configuration and placement (reroute_t2q.c), its SLs and SL2VL maps
 * written as a full run writes them. A new end port (or one moved to another switch) gets the column of another LID
 * delivered at the same switch, which follows every rule a
 * per-destination-switch engine keeps. Deadlock-free engines are then
 * checked for credit loops through their SLs; a loop means a full reroute.
 * Whatever the engine, the repaired tables must deliver every end-port pair
 * the fabric connects (the pairs ibr_result_verify() counts), or the answer
 * is a full reroute; and a column taken from the engine's run never empties
 * the destination switch's own entries toward the end ports it delivers.
 * Which of these repairs a saved routing gets is the registry's answer
 * for its engine (ibr__engine_repair, declared per built-in in
 * src/engines/meson.build), never a comparison of engine names here.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "core/result_notes.h"
#include "core/result_qos.h"
#include "core/result_unicast.h"
#include "engines/dmodc_int.h"
#include "persist/churn.h"
#include "persist/persist_int.h"
#include "persist/reroute_layered.h"
#include "persist/reroute_updown.h"
#include "qos/qos.h"
#include "route/registry.h"

typedef struct chlist {
    ibr_context *ctx;
    ibr_change *v;
    size_t n, cap;
    unsigned inval;
    int new_switch, missing_switch, new_cable, missing_cable, end_change;
    int end_lost; /* end ports gone (end_change: moved, new, or LIDs changed) */
} chlist;

static int add_change(chlist *cl, int kind, unsigned inval, uint64_t guid, unsigned port,
                      uint64_t rguid, unsigned rport, uint16_t old_lid, uint16_t new_lid)
{
    if (ibr__grow(cl->ctx, (void **)&cl->v, &cl->cap, cl->n + 1, sizeof *cl->v) < 0)
        return IBR_ENOMEM;
    ibr_change *c = &cl->v[cl->n++];
    c->kind = kind;
    c->invalidates = inval;
    c->guid = guid;
    c->port = port;
    c->remote_guid = rguid;
    c->remote_port = rport;
    c->old_lid = old_lid;
    c->new_lid = new_lid;
    cl->inval |= inval;
    return 0;
}

/* Does the topology have the saved cable of db port (node dn, port p)? */
static int cable_present(const ibr_topo *t, uint32_t tn, unsigned p, const ibr__dbport *dp)
{
    if (tn == IBR_NONE || p > t->nodes[tn].nports)
        return 0;
    const ibr__port *pt = ibr__tport(t, tn, p);
    return pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE &&
           t->nodes[pt->remote_node].guid == dp->rguid && pt->remote_port == dp->rport;
}

/* Map of topology nodes to database nodes (IBR_NONE when absent or of
   another type), and back. The database lists the switches in switch
   index order, then the end nodes in the order of the topology it was
   saved from: each node's GUID is first compared with the one at that
   place (switch s, the end node after the last one found), and looked up
   only when it differs (GUIDs are unique in the database, so a match at
   that place is the lookup's answer). */
static void map_nodes(uint32_t *tmap, uint32_t *dmap, const ibr_routing_db *db,
                      const ibr_topo *t)
{
    uint32_t next_end = db->n_sw;
    for (uint32_t i = 0; i < db->n_nodes; i++)
        dmap[i] = IBR_NONE;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        uint64_t guid = t->nodes[i].guid;
        uint32_t guess = t->nodes[i].type == IBR_NODE_SWITCH ? t->nodes[i].sw : next_end;
        uint32_t dn = guess < db->n_nodes && guid && db->nodes[guess].guid == guid
                          ? guess
                          : ibr__guidmap_get(&db->node_map, guid);
        if (dn != IBR_NONE && dn >= db->n_sw)
            next_end = dn + 1;
        tmap[i] = dn != IBR_NONE && db->nodes[dn].type == t->nodes[i].type ? dn : IBR_NONE;
        if (tmap[i] != IBR_NONE)
            dmap[dn] = i;
    }
}

/* The database port of topology port gp: the same port of the same node
   when its GUID matches, else the port with its GUID; IBR_NONE. */
static uint32_t db_port_of(const ibr_routing_db *db, const ibr_topo *t, const uint32_t *tmap,
                           uint32_t gp)
{
    uint32_t node = t->port_node[gp], dn = tmap[node];
    unsigned p = gp - t->nodes[node].port_off;
    uint64_t guid = t->ports[gp].guid;
    if (dn != IBR_NONE && p <= db->nodes[dn].nports &&
        db->ports[db->nodes[dn].port_off + p].guid == guid)
        return db->nodes[dn].port_off + p;
    return guid ? ibr__guidmap_get(&db->port_map, guid) : IBR_NONE;
}

static int compare_into(chlist *cl, const ibr_routing_db *db, const ibr_topo *t,
                        const uint32_t *tmap, const uint32_t *dmap)
{
    int rc = 0;
    /* switches */
    for (uint32_t i = 0; i < db->n_sw && rc == 0; i++) {
        if (dmap[i] == IBR_NONE) {
            cl->missing_switch = 1;
            rc = add_change(cl, IBR_CHANGE_MISSING_SWITCH,
                            IBR_INVALID_HOPS | IBR_INVALID_PORT_ROUTES, db->nodes[i].guid, 0, 0,
                            0, db->ports[db->nodes[i].port_off].lid, 0);
        }
    }
    for (uint32_t s = 0; s < t->n_sw && rc == 0; s++) {
        uint32_t tn = t->sw_node[s];
        if (tmap[tn] == IBR_NONE) {
            cl->new_switch = 1;
            rc = add_change(cl, IBR_CHANGE_NEW_SWITCH, IBR_INVALID_HOPS | IBR_INVALID_ALL,
                            t->nodes[tn].guid, 0, 0, 0, 0, ibr__tport(t, tn, 0)->lid);
        }
    }
    /* switch-to-switch cables: lost, then new */
    for (uint32_t i = 0; i < db->n_sw && rc == 0; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        uint32_t tn = dmap[i];
        for (unsigned p = 1; p <= n->nports && rc == 0; p++) {
            const ibr__dbport *dp = &db->ports[n->port_off + p];
            if (!dp->rguid || dp->rtype != IBR_NODE_SWITCH)
                continue;
            if (dp->rguid < n->guid || (dp->rguid == n->guid && dp->rport < p))
                continue;
            if (cable_present(t, tn, p, dp))
                continue;
            /* a parallel cable left between the two switches? */
            int parallel = 0;
            for (unsigned q = 1; q <= n->nports && !parallel; q++) {
                const ibr__dbport *dq = &db->ports[n->port_off + q];
                parallel = q != p && dq->rguid == dp->rguid && cable_present(t, tn, q, dq);
            }
            cl->missing_cable = 1;
            rc = add_change(cl, IBR_CHANGE_MISSING_CABLE,
                            IBR_INVALID_PORT_ROUTES | (parallel ? 0 : IBR_INVALID_HOPS), n->guid,
                            p, dp->rguid, dp->rport, 0, 0);
        }
    }
    for (uint32_t s = 0; s < t->n_sw && rc == 0; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        uint32_t dn = tmap[t->sw_node[s]];
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1] && rc == 0; k++) {
            const ibr__adj *a = &t->adj[k];
            const ibr__node *rn = &t->nodes[t->sw_node[a->sw]];
            if (rn->guid < n->guid || (rn->guid == n->guid && a->rport < a->port))
                continue;
            if (dn != IBR_NONE) {
                const ibr__dbport *dp = &db->ports[db->nodes[dn].port_off + a->port];
                if (a->port <= db->nodes[dn].nports && dp->rguid == rn->guid &&
                    dp->rport == a->rport)
                    continue;
            }
            cl->new_cable = 1;
            rc = add_change(cl, IBR_CHANGE_NEW_CABLE, 0, n->guid, a->port, rn->guid, a->rport, 0,
                            0);
        }
    }
    /* end ports: missing, moved, new */
    for (uint32_t i = db->n_sw; i < db->n_nodes && rc == 0; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        for (unsigned p = 1; p <= n->nports && rc == 0; p++) {
            const ibr__dbport *dp = &db->ports[n->port_off + p];
            if (!dp->lid || !dp->rguid)
                continue;
            uint32_t tn = dmap[i], gp = IBR_NONE;
            if (tn != IBR_NONE && p <= t->nodes[tn].nports &&
                t->ports[t->nodes[tn].port_off + p].guid == dp->guid)
                gp = t->nodes[tn].port_off + p;
            else if (dp->guid)
                gp = ibr__topo_find_port_guid(t, dp->guid);
            const ibr__port *pt = gp != IBR_NONE ? &t->ports[gp] : NULL;
            if (!pt || !pt->lid || pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                t->nodes[t->port_node[gp]].type == IBR_NODE_SWITCH) {
                cl->end_lost = 1;
                rc = add_change(cl, IBR_CHANGE_MISSING_CA, 0, n->guid, p, dp->rguid, dp->rport,
                                dp->lid, 0);
            } else if (t->nodes[pt->remote_node].guid != dp->rguid ||
                       pt->remote_port != dp->rport) {
                cl->end_change = 1;
                rc = add_change(cl, IBR_CHANGE_MOVED_CA, IBR_INVALID_LIDS, n->guid, p,
                                t->nodes[pt->remote_node].guid, pt->remote_port, dp->lid,
                                pt->lid);
            }
        }
    }
    for (uint32_t e = 0; e < t->n_end && rc == 0; e++) {
        uint32_t gp = t->end_port[e];
        const ibr__port *pt = &t->ports[gp];
        uint32_t dgp = db_port_of(db, t, tmap, gp);
        if (dgp != IBR_NONE && db->ports[dgp].lid && db->ports[dgp].rguid)
            continue;
        const ibr__node *n = &t->nodes[t->port_node[gp]];
        cl->end_change = 1;
        rc = add_change(cl, IBR_CHANGE_NEW_CA, IBR_INVALID_LIDS, n->guid, gp - n->port_off,
                        t->nodes[pt->remote_node].guid, pt->remote_port, 0, pt->lid);
    }
    /* LIDs of the ports present in both */
    for (uint32_t gp = 0; gp < t->n_ports && rc == 0; gp++) {
        const ibr__port *pt = &t->ports[gp];
        const ibr__node *n = &t->nodes[t->port_node[gp]];
        unsigned p = gp - n->port_off;
        if ((n->type == IBR_NODE_SWITCH) != (p == 0) || !pt->guid)
            continue;
        uint32_t dgp = db_port_of(db, t, tmap, gp);
        if (dgp == IBR_NONE)
            continue;
        const ibr__dbport *dp = &db->ports[dgp];
        if (!dp->lid && !pt->lid)
            continue;
        if (dp->lid != pt->lid || dp->lmc != pt->lmc) {
            /* an end port that lost its LID is lost (counted above) */
            if (p != 0 && !pt->lid)
                cl->end_lost = 1;
            else
                cl->end_change = 1;
            rc = add_change(cl, IBR_CHANGE_LID, IBR_INVALID_LIDS, n->guid, p, 0, 0, dp->lid,
                            pt->lid);
        }
    }
    return rc;
}

int ibr_routing_db_compare(ibr_change *dst, size_t cap, size_t *needed,
                           const ibr_routing_db *db, const ibr_topo *t)
{
    if (!db || !t || db->status != 0 || (!dst && cap))
        return IBR_EINVAL;
    chlist cl;
    memset(&cl, 0, sizeof cl);
    cl.ctx = t->ctx;
    uint32_t *tmap = ibr__mallocarray(t->ctx, t->n_nodes ? t->n_nodes : 1, sizeof *tmap);
    uint32_t *dmap = ibr__mallocarray(t->ctx, db->n_nodes ? db->n_nodes : 1, sizeof *dmap);
    int rc = IBR_ENOMEM;
    if (tmap && dmap) {
        map_nodes(tmap, dmap, db, t);
        rc = compare_into(&cl, db, t, tmap, dmap);
    }
    ibr__free(t->ctx, tmap);
    ibr__free(t->ctx, dmap);
    if (rc == 0) {
        if (needed)
            *needed = cl.n;
        if (cl.n > cap)
            rc = IBR_ERANGE;
        else if (cl.n)
            memcpy(dst, cl.v, cl.n * sizeof *cl.v);
    }
    ibr__free(t->ctx, cl.v);
    return rc;
}

/* A warning when most of the fabric changed: fewer than half of the
   nodes of the topology or of the database are in both (by GUID and type),
   or more than half of the saved switch-to-switch cables are gone. Such a
   database is probably another fabric's; the reroute goes on (a full one,
   as a rule). "" otherwise. */
static void fabric_warning(char *buf, size_t cap, const chlist *cl, const ibr_routing_db *db,
                           const ibr_topo *t, const uint32_t *tmap)
{
    uint32_t shared = 0, most = t->n_nodes > db->n_nodes ? t->n_nodes : db->n_nodes;
    size_t cables = 0, lost = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        shared += tmap[i] != IBR_NONE;
    for (uint32_t i = 0; i < db->n_sw; i++)
        for (unsigned p = 1; p <= db->nodes[i].nports; p++) {
            const ibr__dbport *dp = &db->ports[db->nodes[i].port_off + p];
            /* each cable once, from its end with the lower GUID */
            cables += dp->rguid && dp->rtype == IBR_NODE_SWITCH &&
                      (dp->rguid > db->nodes[i].guid ||
                       (dp->rguid == db->nodes[i].guid && dp->rport >= p));
        }
    for (size_t i = 0; i < cl->n; i++)
        lost += cl->v[i].kind == IBR_CHANGE_MISSING_CABLE;
    if ((uint64_t)shared * 2 < most)
        snprintf(buf, cap,
                 IBR__MSG("DB064", "most of the fabric changed (%zu changes): only %" PRIu32
                                   " of the topology's %" PRIu32 " nodes are in the database, "
                                   "which has %" PRIu32 "; is the database this fabric's?"),
                 cl->n, shared, t->n_nodes, db->n_nodes);
    else if (cables && lost * 2 > cables)
        snprintf(buf, cap,
                 IBR__MSG("DB065", "most of the fabric changed (%zu changes): %zu of the %zu "
                                   "saved cables between switches are gone; is the database "
                                   "this fabric's?"),
                 cl->n, lost, cables);
}

/* Size of ibr_options per version, as ibr_route() reads them: a caller's
   options are read no further than their version has. */
static const size_t options_sizes[] = {0, offsetof(ibr_options, mcast_groups),
                                       offsetof(ibr_options, qos), sizeof(ibr_options)};

/* Size of ibr_reroute_report per version (index: the version). */
static const size_t report_sizes[] = {0, offsetof(ibr_reroute_report, engine),
                                      offsetof(ibr_reroute_report, lft_blocks_changed),
                                      sizeof(ibr_reroute_report)};

int ibr_reroute_report_init(ibr_reroute_report *rep, unsigned int version)
{
    static const ibr_reroute_report def = IBR_REROUTE_REPORT_INIT;
    return ibr__versioned_init(rep, &def, IBR__VERSION_SIZE(report_sizes, version), version);
}

/* ------------------------------------------------------------------ */
/* the routing                                                         */

typedef struct rr {
    const ibr_routing_db *db;
    const uint32_t *tmap; /* topo node -> db node */
    const ibr_topo *t;
    ibr_context *ctx;
    ibr_result *r;
    uint32_t *swmap;   /* topo switch -> db switch */
    uint32_t *lidmap;  /* topo LID -> db LID, IBR_NONE */
    int identity;      /* same LIDs: db LID l is topo LID l */
    /* identity, or the same LIDs but for saved ones past the topology's
       highest LID, which vanished (the table top shrank); the churn is then
       tracked too, counting the vanished LIDs' routes as changed */
    int same_lids;
    /* a dmodc routing: the saved columns are kept by LID number (the
       repair computes again every LID whose owner, switch or index moved,
       and counts its churn against the saved entry of the same number) */
    int by_number;
    int sw_identity;   /* same switches: db switch s is topo switch s */
    size_t n_unmapped; /* LIDs without a saved column */
    uint8_t *okport;   /* per topo port: carries the saved switch cable */
    uint32_t *load;    /* S x 256 entries per port, valid when load_ok[s] */
    uint32_t *unmapped; /* LIDs without a saved column, rising (copy_rows) */
    size_t n_unmapped_rows; /* how many, when copy_rows kept the list */
    uint8_t *load_ok;
    uint8_t *touched;  /* switches whose row was written */
    uint8_t *lid_touched; /* LIDs whose column was written (repair only) */
    uint32_t *bucket_off, *bucket; /* LIDs per delivering switch */
    uint64_t repaired;
    int sibling_copies;
    uint8_t *mark;     /* scratch of bfs_fix */
    uint32_t *list;
    ibr__churn chg;    /* identity: the entries and blocks that differ from the saved rows */
    int merged;        /* columns taken from a full reroute */
    int fallback_ok;   /* IBR_REROUTE_FALLBACK: the chain may fall back to minhop */
    ibr_qos_config *own_qos; /* the saved QoS configuration, parsed */
    /* one ibr_routing_db_route() call, shared by its stages */
    ibr_result **out;
    ibr_reroute_report *rep;
    const ibr_options *o;
    const ibr_qos_config *qos;
    uint32_t *tmap_own;
    unsigned caps;
    int known;          /* the saved engine is registered */
    ibr__repair_kind repair; /* the registry's repair of the saved engine */
    int layered;        /* repaired by shortest paths, moved paths into layers */
    int nue;            /* layered, not minimal: broken columns joined to their intact tree */
    uint8_t *lid_broken; /* nue: LIDs whose column has an entry to repair */
    int updown;         /* up/down: repaired under the saved orientation */
    uint32_t *upos;     /* updown: per topology switch its saved place */
    ibr__updown_repair ud;
    int minimal_repair; /* broken columns searched again by shortest paths */
    int only_losses;    /* the fabric lost elements and gained none */
    int torus;          /* torus-2QoS: its columns routed again on the rebuilt torus */
    int rc;             /* the call's answer once a stage ends it */
    uint8_t *lost;      /* switches that lost a saved cable */
    uint8_t *bfs_set;   /* destination switches to search again */
    uint32_t *dist, *queue;
    int64_t *wload;     /* all-to-all pairs over each switch port, change since the
                           saved routing (balanced repair); nue: the whole load
                           (wload_whole) */
    int wload_whole;    /* nue: the saved routing's all-to-all load added to wload */
    int64_t *wfix;      /* per switch port, the pairs of the saved routing's load
                           (db->pairs) that the fabric no longer carries, negated:
                           beyond a lost element, of lost end ports (sssp,
                           dfsssp; NULL: the saved load not counted) */
    uint32_t *dinv;     /* per saved switch its topology switch, IBR_NONE */
    uint32_t *hosts;    /* end ports (CA LIDs) per switch */
    uint32_t *nbt;      /* neighbour switch per switch port (balanced repair) */
    uint32_t *order, *mlist, *cnt; /* scratch of the balanced repair */
    uint8_t *mset;      /* switches of mlist */
    /* scratch of dist_after_losses() (NULL: searches of the whole fabric) */
    uint8_t *dstate;
    uint32_t *dhead, *dnext, *daff, *dtouch, *dnd, *dq;
    uint32_t dn_aff;    /* switches dist_after_losses() found farther now */
    uint32_t *dlost, dn_lost; /* the switches that lost a cable, rising */
    uint32_t *dcand;    /* bfs_fix(): the switches it visits, rising */
    int balanced;       /* moved paths chosen by link load of all routes (sssp) */
    ibr_result *full;   /* the engine's run on the changed fabric, if made */
    uint64_t paths_moved;
    uint32_t rerouted_rows; /* rows whose entries the layering changed */
    char whybuf[256];
} rr;

/* The engine a full reroute runs: the saved one ("" in a hand-written
   database means the default, minhop). */
static const char *saved_engine(const ibr_routing_db *db)
{
    return db->engine[0] ? db->engine : "minhop";
}

static void rr_free(rr *x)
{
    ibr_context *ctx = x->ctx;
    ibr__free(ctx, x->swmap);
    ibr__free(ctx, x->lidmap);
    ibr__free(ctx, x->okport);
    ibr__free(ctx, x->load);
    ibr__free(ctx, x->load_ok);
    ibr__free(ctx, x->unmapped);
    ibr__free(ctx, x->touched);
    ibr__free(ctx, x->lid_touched);
    ibr__free(ctx, x->bucket_off);
    ibr__free(ctx, x->bucket);
    ibr__free(ctx, x->mark);
    ibr__free(ctx, x->list);
    ibr__churn_free(&x->chg, ctx);
    ibr_qos_config_destroy(x->own_qos);
    ibr__free(ctx, x->tmap_own);
    ibr__free(ctx, x->lost);
    ibr__free(ctx, x->bfs_set);
    ibr__free(ctx, x->lid_broken);
    ibr__free(ctx, x->dist);
    ibr__free(ctx, x->queue);
    ibr__free(ctx, x->wload);
    ibr__free(ctx, x->wfix);
    ibr__free(ctx, x->dinv);
    ibr__free(ctx, x->hosts);
    ibr__free(ctx, x->nbt);
    ibr__free(ctx, x->order);
    ibr__free(ctx, x->mlist);
    ibr__free(ctx, x->cnt);
    ibr__free(ctx, x->mset);
    ibr__free(ctx, x->dstate);
    ibr__free(ctx, x->dhead);
    ibr__free(ctx, x->dnext);
    ibr__free(ctx, x->daff);
    ibr__free(ctx, x->dtouch);
    ibr__free(ctx, x->dnd);
    ibr__free(ctx, x->dq);
    ibr__free(ctx, x->dlost);
    ibr__free(ctx, x->dcand);
    ibr__free(ctx, x->upos);
    ibr__updown_free(&x->ud, ctx);
    ibr_result_destroy(x->r);
    ibr_result_destroy(x->full);
}

/* Program the kept or repaired routing with QoS as the engine's run did:
   the saved levels, the configuration q. 0, or why not (*why set for a
   full reroute instead), or IBR_ENOMEM. */
static int apply_qos(rr *x, const ibr_qos_config *q, unsigned caps, const char **why)
{
    const ibr_routing_db *db = x->db;
    ibr_result *r = x->r;
    if (!q)
        return 0;
    unsigned levels = ibr__qos_levels(q), saved = db->qos ? db->qos_levels : 1;
    if ((levels > 1 ? levels : 1) != saved) {
        *why = "the QoS levels asked for differ from the saved routing's";
        return 1;
    }
    if (levels > 1) {
        /* every path SL must stay below the saved stride, or two levels'
           copies would share SLs */
        size_t n = r->sl_mode == IBR_SL_PER_PAIR ? (size_t)ibr__n_src_slots(x->t) * r->lft_size
                   : r->sl_mode == IBR_SL_PER_DEST ? r->lft_size
                                                   : 0;
        for (size_t i = 0; i < n; i++)
            if (r->sl[i] >= db->qos_stride && !(caps & IBR_CAP_OWN_SL2VL)) {
                *why = "the repaired routing needs more layers than the saved QoS levels leave";
                return 1;
            }
        ibr__qos_keep_levels(r, levels, db->qos_stride);
    }
    int rc = ibr__qos_program(r, q, db->engine, caps);
    return rc < 0 ? rc : 0;
}

/* Which switch and LID of the saved routing each of the topology's is
   (IBR_NONE: none); x->identity when the LIDs are the same, x->same_lids
   when they are but for saved LIDs past the highest one now. Returns how
   many LIDs have no saved column; *sw_identity when the switches are. */
static size_t map_saved(rr *x, int *sw_identity_out)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    size_t L = x->r->lft_size;
    int sw_identity = t->n_sw == db->n_sw;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t dn = x->tmap[t->sw_node[s]];
        x->swmap[s] = dn != IBR_NONE ? db->nodes[dn].sw : IBR_NONE;
        sw_identity &= x->swmap[s] == s;
    }
    x->same_lids = t->max_lid <= db->max_lid || x->by_number;
    x->lidmap[0] = IBR_NONE;
    size_t n_unmapped = 0;
    for (size_t l = 1; l < L; l++) {
        uint32_t m = IBR_NONE, gp = t->lid_port[l];
        if (gp != IBR_NONE && t->ports[gp].guid) {
            const ibr__port *pt = &t->ports[gp];
            uint32_t dgp = db_port_of(db, t, x->tmap, gp);
            const ibr__dbport *dp = dgp != IBR_NONE ? &db->ports[dgp] : NULL;
            int is_sw = t->nodes[t->port_node[gp]].type == IBR_NODE_SWITCH;
            /* an end port must be where it was (a moved one gets a new
               column) */
            int same_place = dp && dp->lid &&
                             (is_sw || (dp->rguid && pt->remote_node != IBR_NONE &&
                                        t->nodes[pt->remote_node].guid == dp->rguid &&
                                        pt->remote_port == dp->rport));
            uint32_t off = (uint32_t)(l - pt->lid);
            if (same_place && off < (1u << dp->lmc))
                m = dp->lid + off;
        }
        if (x->by_number)
            m = l < db->lft_size ? (uint32_t)l : IBR_NONE;
        x->lidmap[l] = m;
        n_unmapped += m == IBR_NONE;
        if (m != IBR_NONE && m != l)
            x->same_lids = 0; /* a LID that vanished only loses its column */
    }
    x->identity = x->same_lids && t->max_lid == db->max_lid;
    *sw_identity_out = sw_identity;
    return n_unmapped;
}

/* The saved LFT rows on the topology's switches (with the same LIDs, whole
   rows are copied and the LIDs without a saved column cleared). */
static int copy_rows(rr *x, size_t n_unmapped)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    ibr_result *r = x->r;
    size_t L = r->lft_size;
    uint32_t *unmapped = ibr__mallocarray(ctx, n_unmapped + 1, sizeof *unmapped);
    /* blocks past the new top too: the vanished LIDs' routes are changes */
    size_t CL = db->lft_size > L ? db->lft_size : L;
    if (!unmapped || (x->same_lids && ibr__churn_init(&x->chg, ctx, t->n_sw, CL) < 0)) {
        ibr__free(ctx, unmapped);
        return IBR_ENOMEM;
    }
    n_unmapped = 0;
    for (size_t l = 0; l < L; l++)
        if (x->lidmap[l] == IBR_NONE)
            unmapped[n_unmapped++] = (uint32_t)l;
    /* the same switches and LIDs: the saved table in one copy (one large
       copy streams past the caches, row by row it would not) */
    int whole = x->sw_identity && x->same_lids && L == db->lft_size;
    if (whole)
        memcpy(r->lft, db->lft, (size_t)t->n_sw * L);
    /* switches lost or added: the runs of rows that follow each other on
       both sides still in one copy each */
    int runs = !whole && x->same_lids && L == db->lft_size;
    for (uint32_t s = 0; runs && s < t->n_sw;) {
        uint32_t e = s + 1;
        if (x->swmap[s] == IBR_NONE) {
            s = e;
            continue;
        }
        while (e < t->n_sw && x->swmap[e] != IBR_NONE && x->swmap[e] == x->swmap[e - 1] + 1)
            e++;
        memcpy(r->lft + (size_t)s * L, db->lft + (size_t)x->swmap[s] * L, (size_t)(e - s) * L);
        s = e;
    }
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t ds = x->swmap[s];
        uint8_t *row = r->lft + (size_t)s * L;
        if (ds == IBR_NONE) {
            memset(row, IBR_NO_ROUTE, L);
            continue;
        }
        const uint8_t *old = db->lft + (size_t)ds * db->lft_size;
        if (x->same_lids) {
            size_t n = L < db->lft_size ? L : db->lft_size;
            if (!whole && !runs)
                memcpy(row, old, n);
            memset(row + n, IBR_NO_ROUTE, L - n); /* LIDs past the saved top */
            for (size_t i = 0; i < n_unmapped; i++) {
                uint32_t l = unmapped[i];
                ibr__churn_note(&x->chg, s, l, 0, row[l] != IBR_NO_ROUTE);
                row[l] = IBR_NO_ROUTE;
            }
            for (size_t l = L; l < db->lft_size; l++)
                ibr__churn_note(&x->chg, s, l, 0, old[l] != IBR_NO_ROUTE);
        } else {
            for (size_t l = 0; l < L; l++)
                row[l] = x->lidmap[l] != IBR_NONE ? old[x->lidmap[l]] : IBR_NO_ROUTE;
        }
    }
    /* kept for ensure_load(): the rows are the saved ones but for these */
    x->unmapped = unmapped;
    x->n_unmapped_rows = n_unmapped;
    return 0;
}

/* The saved switch-to-switch hop matrix, when the routing kept one. */
static int copy_hops(rr *x, int sw_identity)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_result *r = x->r;
    if (db->hops) {
        uint32_t S = t->n_sw;
        if (ibr__result_alloc_hops_unfilled(r) < 0)
            return IBR_ENOMEM;
        if (sw_identity) {
            memcpy(r->hops, db->hops, (size_t)S * S);
        } else {
            for (uint32_t a = 0; a < S; a++)
                for (uint32_t b = 0; b < S; b++) {
                    uint32_t da = x->swmap[a], dbb = x->swmap[b];
                    r->hops[(size_t)a * S + b] = da != IBR_NONE && dbb != IBR_NONE
                                                     ? db->hops[(size_t)da * db->n_sw + dbb]
                                                     : 255;
                }
        }
    }
    return 0;
}

/* The saved path SLs, per destination or per pair. */
static int copy_sls(rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    ibr_result *r = x->r;
    size_t L = r->lft_size;
    if (db->sl_mode == IBR_SL_PER_DEST) {
        if (!(r->sl = ibr__calloc(ctx, L, 1)))
            return IBR_ENOMEM;
        for (size_t l = 1; l < L; l++)
            if (x->lidmap[l] != IBR_NONE)
                r->sl[l] = db->sl[x->lidmap[l]];
        r->sl_mode = IBR_SL_PER_DEST;
    } else if (db->sl_mode == IBR_SL_PER_PAIR) {
        uint32_t ns = ibr__n_src_slots(t);
        uint32_t *row_of = ibr__mallocarray(ctx, (size_t)db->max_lid + 1, sizeof *row_of);
        uint32_t *unmapped = ibr__mallocarray(ctx, L, sizeof *unmapped);
        size_t n_unmapped = 0;
        /* every byte is written below: a row without a saved one cleared */
        if (!row_of || !unmapped || !(r->sl = ibr__mallocarray(ctx, ns ? ns : 1, L))) {
            ibr__free(ctx, row_of);
            ibr__free(ctx, unmapped);
            return IBR_ENOMEM;
        }
        if (!ns)
            memset(r->sl, 0, L);
        for (size_t l = 1; l < L; l++)
            if (x->lidmap[l] == IBR_NONE)
                unmapped[n_unmapped++] = (uint32_t)l;
        for (size_t l = 0; l <= db->max_lid; l++)
            row_of[l] = IBR_NONE;
        for (size_t i = 0; i < db->n_sl_rows; i++)
            if (db->sl_src[i] && db->sl_src[i] <= db->max_lid)
                row_of[db->sl_src[i]] = (uint32_t)i;
        for (uint32_t sl = 0; sl < ns; sl++) {
            uint16_t base = sl < t->n_end ? t->ports[t->end_port[sl]].lid
                                          : t->ports[t->nodes[t->sw_node[sl - t->n_end]].port_off].lid;
            uint32_t ol = base && base < L ? x->lidmap[base] : IBR_NONE;
            uint32_t orow = ol != IBR_NONE ? row_of[ol] : IBR_NONE;
            uint8_t *dst = r->sl + (size_t)sl * L;
            if (orow == IBR_NONE) {
                memset(dst, 0, L);
                continue;
            }
            const uint8_t *src = db->sl + (size_t)orow * db->lft_size;
            dst[0] = 0;
            if (x->identity && L <= db->lft_size) {
                /* the same LIDs: the row as saved, the LIDs without a
                   saved column cleared */
                memcpy(dst + 1, src + 1, L - 1);
                for (size_t i = 0; i < n_unmapped; i++)
                    dst[unmapped[i]] = 0;
                continue;
            }
            for (size_t l = 1; l < L; l++)
                dst[l] = x->lidmap[l] != IBR_NONE ? src[x->lidmap[l]] : 0;
        }
        ibr__free(ctx, row_of);
        ibr__free(ctx, unmapped);
        r->sl_mode = IBR_SL_PER_PAIR;
    }
    return 0;
}

/* The saved SL2VL tables of the switches and the end-port maps the engine
   set. */
static int copy_sl2vl(rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    ibr_result *r = x->r;
    if (db->sl2vl) {
        size_t total = 0;
        uint32_t *off = ibr__sl2vl_layout(ctx, t, &total);
        if (!off)
            return IBR_ENOMEM;
        uint8_t *tab = ibr__malloc(ctx, total ? total : 1);
        if (!tab) {
            ibr__free(ctx, off);
            return IBR_ENOMEM;
        }
        /* a switch not saved (or with other ports) gets the identity map
           on every port pair, the others their saved tables */
        static const uint8_t ident[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        for (uint32_t s = 0; s < t->n_sw; s++) {
            uint32_t ds = x->swmap[s];
            unsigned np = t->nodes[t->sw_node[s]].nports;
            size_t pairs = ((size_t)np + 1) * (np + 1);
            if (ds != IBR_NONE && db->nodes[ds].nports == np) {
                memcpy(tab + off[s], db->sl2vl + db->sl2vl_off[ds], pairs * 16);
                continue;
            }
            for (size_t k = 0; k < pairs; k++)
                memcpy(tab + off[s] + k * 16, ident, 16);
        }
        r->sl2vl_off = off;
        r->sl2vl = tab;
    }
    /* the end-port maps the engine set */
    for (size_t i = 0; i < db->n_ep; i++) {
        const ibr__dbep *e = &db->ep[i];
        uint32_t gp = ibr__churn_ep_port(db, t, e);
        if (gp == IBR_NONE)
            continue;
        if (ibr__result_alloc_ep_sl2vl(r) < 0)
            return IBR_ENOMEM;
        memcpy(r->ep_sl2vl + (size_t)gp * 16, e->map, 16);
        r->ep_sl2vl_set[gp] = 1;
    }
    return 0;
}

/* Which switch and LID of the saved routing each of the topology's is,
   and an empty result to copy the saved tables into: all a full reroute
   needs, so the decision comes before any table is copied. */
static int new_result_and_maps(rr *x)
{
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    ibr_result *r;
    if (ibr__result_new(&r, t) < 0)
        return IBR_ENOMEM;
    x->r = r;
    x->swmap = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *x->swmap);
    x->lidmap = ibr__mallocarray(ctx, r->lft_size, sizeof *x->lidmap);
    if (!x->swmap || !x->lidmap)
        return IBR_ENOMEM;
    x->n_unmapped = map_saved(x, &x->sw_identity);
    return 0;
}

/* The saved orientation of an up/down routing on the topology's switches
   (x->upos, IBR_NONE for a switch not saved), and in the result, renumbered
   without gaps so that a database written from it reads back. */
static int keep_upos(rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    uint32_t S1 = t->n_sw ? t->n_sw : 1, D1 = db->n_sw ? db->n_sw : 1;
    uint32_t *at = ibr__mallocarray(x->ctx, D1, sizeof *at);
    uint32_t *kept = ibr__mallocarray(x->ctx, S1, sizeof *kept);
    x->upos = ibr__mallocarray(x->ctx, S1, sizeof *x->upos);
    if (!at || !x->upos || !kept) {
        ibr__free(x->ctx, at);
        ibr__free(x->ctx, kept);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < db->n_sw; i++)
        at[i] = IBR_NONE;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        x->upos[s] = x->swmap[s] != IBR_NONE ? db->upos[x->swmap[s]] : IBR_NONE;
        if (x->upos[s] != IBR_NONE)
            at[x->upos[s]] = s;
    }
    uint32_t next = 0;
    for (uint32_t i = 0; i < db->n_sw; i++)
        if (at[i] != IBR_NONE)
            kept[at[i]] = next++;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (x->upos[s] == IBR_NONE)
            kept[s] = next++;
    ibr__free(x->ctx, at);
    ibr__result_take_upos(x->r, kept);
    return 0;
}

/* The saved tables on the topology's switches and LIDs (after
   new_result_and_maps), for a routing kept or repaired. */
static int build_mapped(rr *x)
{
    const ibr_routing_db *db = x->db;
    ibr_result *r = x->r;
    int rc;
    /* every row is written by copy_rows: no prefill */
    if (ibr__result_alloc_lft_unfilled(r) < 0)
        return IBR_ENOMEM;
    if ((rc = copy_rows(x, x->n_unmapped)) < 0 || (rc = copy_hops(x, x->sw_identity)) < 0 ||
        (rc = copy_sls(x)) < 0 || (rc = copy_sl2vl(x)) < 0)
        return rc;
    if (db->upos && (rc = keep_upos(x)) < 0)
        return rc;
    ibr__result_set_layering(r, db->vls_used, db->layers);
    ibr__result_set_run(r, db->seed, 1, r->lmc_cap);
    ibr__result_set_engine(r, db->engine);
    for (size_t i = 0; i < db->n_settings; i++)
        if (ibr__result_add_setting(r, db->set_name[i], db->set_value[i]) < 0)
            return IBR_ENOMEM;
    return 0;
}

/* A row not written since copy_rows() is the saved row with the LIDs
   without a saved column cleared: its counts are the database's, less
   those LIDs. 1 when taken so. */
static int saved_load(rr *x, uint32_t s, uint32_t *ld)
{
    const ibr_routing_db *db = x->db;
    size_t L = x->r->lft_size;
    uint32_t ds = x->swmap[s];
    if (!x->identity || x->touched[s] || !db->port_count || ds == IBR_NONE ||
        L != db->lft_size || x->n_unmapped_rows > L / 8)
        return 0;
    memcpy(ld, db->port_count + (size_t)ds * 256, 256 * sizeof *ld);
    const uint8_t *old = db->lft + (size_t)ds * L;
    for (size_t i = 0; i < x->n_unmapped_rows; i++) {
        uint32_t l = x->unmapped[i];
        if (l == 0)
            continue;
        ld[old[l]]--;
        ld[IBR_NO_ROUTE]++;
    }
    return 1;
}

static void ensure_load(rr *x, uint32_t s)
{
    if (x->load_ok[s])
        return;
    uint32_t *ld = x->load + (size_t)s * 256;
    if (saved_load(x, s, ld)) {
        x->load_ok[s] = 1;
        return;
    }
    ibr__row_port_counts(x->r->lft + (size_t)s * x->r->lft_size, x->r->lft_size, ld);
    x->load_ok[s] = 1;
}

static void set_entry(rr *x, uint32_t s, size_t l, unsigned port)
{
    uint8_t *e = x->r->lft + (size_t)s * x->r->lft_size + l;
    if (*e == port)
        return;
    if (x->load_ok[s]) {
        x->load[(size_t)s * 256 + *e]--;
        x->load[(size_t)s * 256 + port]++;
    }
    if (x->identity) {
        /* churn against the saved row, kept up to date: every write of a
           repair goes through here */
        unsigned o = x->db->lft[(size_t)x->swmap[s] * x->db->lft_size + l];
        ibr__churn_note(&x->chg, s, l, *e != o, port != o);
    }
    *e = (uint8_t)port;
    x->touched[s] = 1;
    x->lid_touched[l] = 1;
    x->repaired++;
}

static int ensure_wload(rr *x);
static void walk_load(rr *x, uint32_t v, uint32_t d, size_t l, int64_t h);
static int64_t path_load(const rr *x, uint32_t v, uint32_t d, size_t l, int64_t *mx,
                         uint32_t *hops);

/* The end ports whose traffic toward LID l crosses switch s on the
   current entries: s's own and those of every switch routed into it
   (backwards over the entries leading to s; x->mlist the stack, x->mset
   the marks, cleared again). */
static uint64_t subtree_hosts(rr *x, uint32_t s, size_t l)
{
    const ibr_topo *t = x->t;
    size_t L = x->r->lft_size;
    uint32_t n = 0, m = 0;
    uint64_t sum = 0;
    x->mset[s] = 1;
    x->mlist[n++] = s;
    while (m < n) {
        uint32_t v = x->mlist[m++];
        sum += x->hosts[v];
        for (uint32_t k = t->adj_off[v]; k < t->adj_off[v + 1]; k++) {
            uint32_t u = t->adj[k].sw;
            if (x->mset[u] || x->nbt[(size_t)u * 256 + x->r->lft[(size_t)u * L + l]] != v)
                continue;
            x->mset[u] = 1; /* each switch once: n <= S */
            x->mlist[n++] = u;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        x->mset[x->mlist[i]] = 0;
    return sum;
}

/* The port a moved entry takes, among those offered: the one whose path
   carries the least of the traffic moved so far (by_wl: the busiest link,
   then the total, of x->wload), then the least-loaded (ld); the first of
   equals. */
typedef struct port_pick {
    unsigned best;
    uint32_t bl;
    int64_t bm, bs;
} port_pick;
#define PORT_PICK_INIT {0, UINT32_MAX, INT64_MAX, INT64_MAX}

static void offer_port(const rr *x, port_pick *pk, uint32_t s, uint32_t d, size_t l,
                       const ibr__adj *a, const uint32_t *ld, int by_wl)
{
    int64_t mx = 0, sum = 0;
    if (by_wl) {
        mx = x->wload[(size_t)s * 256 + a->port];
        sum = mx + path_load(x, a->sw, d, l, &mx, NULL);
    }
    if (mx < pk->bm || (mx == pk->bm && (sum < pk->bs || (sum == pk->bs && ld[a->port] < pk->bl)))) {
        pk->bm = mx;
        pk->bs = sum;
        pk->bl = ld[a->port];
        pk->best = a->port;
    }
}

/* Local repair of (s, l) at the saved distance; 0, or -1 when no port
   keeps it. A parallel cable to the lost cable's neighbour takes the
   routes first (least-loaded); otherwise, toward an end port, the port
   whose path carries the least of the traffic moved so far (the busiest
   link, then the total, of x->wload: the routes of every switch routed
   through s move with it), then the least-loaded, and the moved traffic
   is laid on the chosen path. */
static int local_fix(rr *x, uint32_t s, size_t l, uint64_t old_rguid)
{
    const ibr_topo *t = x->t;
    const ibr_routing_db *db = x->db;
    uint32_t d = t->lid_sw[l], ds = x->swmap[s], dd = x->swmap[d];
    if (!db->hops || ds == IBR_NONE || dd == IBR_NONE)
        return -1;
    unsigned h = db->hops[(size_t)ds * db->n_sw + dd];
    if (h == 0 || h == 255)
        return -1;
    ensure_load(x, s);
    const uint32_t *ld = x->load + (size_t)s * 256;
    /* the traffic it carries only where it can matter (not a switch LID;
       a layered engine's moved paths go into layers, as they come) */
    int by_wl = !x->layered && t->lid_swport[l] != 0 && ensure_wload(x) == 0;
    port_pick pk = PORT_PICK_INIT;
    unsigned best_par = 0;
    uint32_t bl_par = UINT32_MAX;
    const ibr__node *n = &t->nodes[t->sw_node[s]];
    for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
        const ibr__adj *a = &t->adj[k];
        if (!x->okport[n->port_off + a->port])
            continue;
        uint32_t dn = x->swmap[a->sw];
        if (dn == IBR_NONE || db->hops[(size_t)dn * db->n_sw + dd] != h - 1)
            continue;
        if (t->nodes[t->sw_node[a->sw]].guid == old_rguid && ld[a->port] < bl_par) {
            bl_par = ld[a->port];
            best_par = a->port;
        }
        offer_port(x, &pk, s, d, l, a, ld, by_wl);
    }
    unsigned best = best_par ? best_par : pk.best;
    if (!best)
        return -1;
    set_entry(x, s, l, best);
    if (by_wl)
        walk_load(x, s, d, l, (int64_t)subtree_hosts(x, s, l));
    return 0;
}

/* Subtract h pairs from the whole load (x->wfix) along the saved path
   from saved switch v toward saved LID dl, on the steps whose cable the
   fabric still has (the saved routing's load counted them there). */
static void fix_walk(rr *x, uint32_t v, uint32_t dl, int64_t h)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    uint32_t d = dl < db->lft_size && dl <= db->max_lid ? db->lid_sw[dl] : IBR_NONE;
    for (uint32_t k = 0; d != IBR_NONE && v != IBR_NONE && v != d && k < db->n_sw; k++) {
        const ibr__dbnode *dn = &db->nodes[v];
        unsigned q = db->lft[(size_t)v * db->lft_size + dl];
        if (q == 0 || q > dn->nports)
            return;
        uint32_t s = x->dinv[v];
        if (s != IBR_NONE) {
            const ibr__node *n = &t->nodes[t->sw_node[s]];
            if (q <= n->nports && x->okport[n->port_off + q])
                x->wfix[(size_t)s * 256 + q] -= h;
        }
        v = db->port_sw[dn->port_off + q];
    }
}

/* The saved routing's load (db->pairs) less what the fabric no longer
   carries, into x->wfix, so that a link's whole load is what the saved
   entries lay on it over today's fabric: the pairs of every switch
   routed over a lost cable (those of its subtree today) beyond it, and
   those of the end ports lost, as sources and as destinations. End
   ports and cables gained are not counted (the load only weighs the
   moved paths: the tables are valid whatever it says). */
static void whole_fix(rr *x, const uint8_t *dlive)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    size_t L = x->r->lft_size, dL = db->lft_size;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t ds = x->swmap[s];
        if (!x->lost[s] || ds == IBR_NONE)
            continue;
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        const ibr__dbnode *dn = &db->nodes[ds];
        const uint8_t *row = db->lft + (size_t)ds * dL;
        for (size_t l = 1; l < L; l++) {
            uint32_t d = t->lid_sw[l], dl = x->lidmap[l];
            if (t->lid_swport[l] == 0 || d == IBR_NONE || d == s || dl == IBR_NONE || dl >= dL)
                continue;
            unsigned p = row[dl];
            if (p == 0 || p > dn->nports || (p <= n->nports && x->okport[n->port_off + p]))
                continue;
            int64_t acc = (int64_t)subtree_hosts(x, s, l);
            if (acc)
                fix_walk(x, db->port_sw[dn->port_off + p], dl, acc);
        }
    }
    size_t top = dL <= db->max_lid ? dL : (size_t)db->max_lid + 1;
    for (uint32_t u = 0; u < db->n_sw; u++) {
        uint32_t s = x->dinv[u];
        int64_t g = (int64_t)db->sw_hosts[u] - (s != IBR_NONE ? (int64_t)x->hosts[s] : 0);
        for (size_t dl = 1; g > 0 && dl < top; dl++)
            if (db->lid_sw[dl] != IBR_NONE && dlive[dl])
                fix_walk(x, u, (uint32_t)dl, g);
    }
    for (size_t dl = 1; dl < top; dl++) {
        if (db->lid_sw[dl] == IBR_NONE || dlive[dl])
            continue;
        for (uint32_t u = 0; u < db->n_sw; u++)
            if (db->sw_hosts[u])
                fix_walk(x, u, (uint32_t)dl, db->sw_hosts[u]);
    }
}

/* The whole load's corrections (whole_fix), when the database counted
   the saved load; without them the changes alone are weighed. */
static void ensure_whole(rr *x)
{
    const ibr_routing_db *db = x->db;
    ibr_context *ctx = x->ctx;
    uint32_t S1 = x->t->n_sw ? x->t->n_sw : 1;
    if (!db->pairs)
        return;
    uint8_t *dlive = ibr__calloc(ctx, (size_t)db->max_lid + 1, 1);
    x->wfix = ibr__calloc(ctx, (size_t)S1 * 256, sizeof *x->wfix);
    x->dinv = ibr__mallocarray(ctx, db->n_sw ? db->n_sw : 1, sizeof *x->dinv);
    if (!dlive || !x->wfix || !x->dinv) {
        ibr__free(ctx, dlive);
        ibr__free(ctx, x->wfix);
        ibr__free(ctx, x->dinv);
        x->wfix = NULL;
        x->dinv = NULL;
        return;
    }
    for (uint32_t u = 0; u < db->n_sw; u++)
        x->dinv[u] = IBR_NONE;
    for (uint32_t s = 0; s < x->t->n_sw; s++)
        if (x->swmap[s] != IBR_NONE)
            x->dinv[x->swmap[s]] = s;
    for (size_t l = 1; l < x->r->lft_size; l++)
        if (x->lidmap[l] != IBR_NONE && x->lidmap[l] <= db->max_lid &&
            x->t->lid_sw[l] != IBR_NONE && x->t->lid_swport[l] != 0)
            dlive[x->lidmap[l]] = 1; /* an end port's LID delivered now */
    whole_fix(x, dlive);
    ibr__free(ctx, dlive);
}

/* The scratch of the balanced repair, made before its first search. */
static int ensure_wload(rr *x)
{
    if (x->wload)
        return 0;
    ibr_context *ctx = x->ctx;
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw, S1 = S ? S : 1;
    x->wload = ibr__calloc(ctx, (size_t)S1 * 256, sizeof *x->wload);
    x->nbt = ibr__mallocarray(ctx, (size_t)S1 * 256, sizeof *x->nbt);
    x->order = ibr__mallocarray(ctx, S1, sizeof *x->order);
    x->mlist = ibr__mallocarray(ctx, S1, sizeof *x->mlist);
    x->cnt = ibr__mallocarray(ctx, (size_t)S1 + 2, sizeof *x->cnt);
    x->mset = ibr__calloc(ctx, S1, 1);
    x->hosts = ibr__calloc(ctx, S1, sizeof *x->hosts);
    if (!x->hosts || !x->wload || !x->nbt || !x->order || !x->mlist || !x->cnt || !x->mset) {
        /* all or none: a later call tries again (the unbalanced repairs
           then choose by the LIDs per port alone) */
        ibr__free(ctx, x->wload);
        ibr__free(ctx, x->nbt);
        ibr__free(ctx, x->order);
        ibr__free(ctx, x->mlist);
        ibr__free(ctx, x->cnt);
        ibr__free(ctx, x->mset);
        ibr__free(ctx, x->hosts);
        x->wload = NULL;
        x->nbt = x->order = x->mlist = x->cnt = x->hosts = NULL;
        x->mset = NULL;
        return IBR_ENOMEM;
    }
    for (size_t l = 1; l < x->r->lft_size; l++)
        if (t->lid_sw[l] != IBR_NONE && t->lid_swport[l] != 0)
            x->hosts[t->lid_sw[l]]++;
    for (uint32_t s = 0; s < S; s++) {
        for (unsigned p = 0; p < 256; p++)
            x->nbt[(size_t)s * 256 + p] = IBR_NONE;
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++)
            x->nbt[(size_t)s * 256 + t->adj[k].port] = ibr__reroute_next_sw(t, s, t->adj[k].port);
    }
    if (x->balanced)
        ensure_whole(x);
    return 0;
}

/* Lay (h > 0) or lift (h < 0) |h| pairs on the path toward LID l from
   switch v on the current entries (at most S steps: a path that breaks
   or loops ends there). */
static void walk_load(rr *x, uint32_t v, uint32_t d, size_t l, int64_t h)
{
    size_t L = x->r->lft_size;
    for (uint32_t k = 0; h && v != d && k < x->t->n_sw; k++) {
        unsigned p = x->r->lft[(size_t)v * L + l];
        uint32_t nb = x->nbt[(size_t)v * 256 + p];
        if (nb == IBR_NONE)
            return;
        x->wload[(size_t)v * 256 + p] += h;
        v = nb;
    }
}

/* The busiest link (*mx) and the sum of the loads of x->wload on the path
   toward LID l from switch v on the current entries; its length in *hops
   unless NULL. */
static int64_t path_load(const rr *x, uint32_t v, uint32_t d, size_t l, int64_t *mx,
                         uint32_t *hops)
{
    size_t L = x->r->lft_size;
    int64_t sum = 0;
    uint32_t k = 0;
    for (; v != d && k < x->t->n_sw; k++) {
        unsigned p = x->r->lft[(size_t)v * L + l];
        uint32_t nb = x->nbt[(size_t)v * 256 + p];
        if (nb == IBR_NONE)
            break;
        int64_t w = x->wload[(size_t)v * 256 + p];
        sum += w;
        *mx = w > *mx ? w : *mx;
        v = nb;
    }
    if (hops)
        *hops = k;
    return sum;
}

/* nue: the all-to-all load of the current tables (every end port's pair
   toward every other end port's LID, counted once per cable it crosses)
   added to x->wload, once: column by column, each switch's pairs and those
   of every switch routed into it summed leaves first (a path that breaks
   at a lost cable counts up to there). O(LIDs x switches). */
static void add_whole_load(rr *x)
{
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw;
    size_t L = x->r->lft_size;
    const uint8_t *lft = x->r->lft;
    uint32_t *sub = x->cnt, *indeg = x->mlist, *ord = x->order;
    x->wload_whole = 1;
    for (size_t l = 1; l < L; l++) {
        uint32_t d = t->lid_sw[l], n = 0;
        if (d == IBR_NONE || t->lid_swport[l] == 0)
            continue;
        for (uint32_t s = 0; s < S; s++) {
            indeg[s] = 0;
            sub[s] = x->hosts[s] - (s == d);
        }
        for (uint32_t s = 0; s < S; s++) {
            uint32_t nb = s == d ? IBR_NONE : x->nbt[(size_t)s * 256 + lft[(size_t)s * L + l]];
            if (nb != IBR_NONE)
                indeg[nb]++;
        }
        for (uint32_t s = 0; s < S; s++)
            if (indeg[s] == 0)
                ord[n++] = s;
        /* a switch on a forwarding loop (a damaged database) is never
           ordered: its pairs are left out */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = ord[i];
            unsigned p = lft[(size_t)s * L + l];
            uint32_t nb = s == d ? IBR_NONE : x->nbt[(size_t)s * 256 + p];
            if (nb == IBR_NONE)
                continue;
            x->wload[(size_t)s * 256 + p] += sub[s];
            sub[nb] += sub[s];
            if (--indeg[nb] == 0)
                ord[n++] = nb;
        }
    }
}

/* The whole load of port p of switch v: the saved routing's (db->pairs,
   less x->wfix) with the changes (x->wload). */
static int64_t whole_load(const rr *x, uint32_t v, unsigned p)
{
    size_t i = (size_t)v * 256 + p;
    uint32_t ds = x->swmap[v];
    int64_t w = x->wfix[i] + x->wload[i];
    if (ds != IBR_NONE && p <= x->db->nodes[ds].nports)
        w += (int64_t)x->db->pairs[x->db->nodes[ds].port_off + p];
    return w;
}

/* The busiest link of the path toward LID l from switch v on the current
   entries, by their whole load (whole_load). */
static int64_t path_peak(const rr *x, uint32_t v, uint32_t d, size_t l)
{
    size_t L = x->r->lft_size;
    int64_t pk = 0;
    for (uint32_t k = 0; v != d && k < x->t->n_sw; k++) {
        unsigned p = x->r->lft[(size_t)v * L + l];
        uint32_t nb = x->nbt[(size_t)v * 256 + p];
        if (nb == IBR_NONE)
            break;
        int64_t w = whole_load(x, v, p);
        pk = w > pk ? w : pk;
        v = nb;
    }
    return pk;
}

/* The switches that move toward LID l of destination switch d: those of
   the visited list whose entry left the shortest paths (distances dist),
   and every switch whose path crosses one of them (its path crossed the
   lost element too, so it moves rather than funnel its traffic into the
   detour). Listed in mlist, marked in mset; their count. */
static uint32_t moving_set(rr *x, uint32_t d, size_t l, const uint32_t *dist,
                           const uint32_t *list, uint32_t nlist)
{
    const ibr_topo *t = x->t;
    size_t L = x->r->lft_size;
    uint32_t m = 0;
    for (uint32_t j = 0; j < nlist; j++) {
        uint32_t s = list[j];
        if (s == d)
            continue;
        uint32_t nb = x->nbt[(size_t)s * 256 + x->r->lft[(size_t)s * L + l]];
        if (dist[s] != UINT32_MAX && nb != IBR_NONE && dist[nb] + 1 == dist[s])
            continue;
        x->mset[s] = 1;
        x->mlist[m++] = s;
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t s = x->mlist[j];
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
            uint32_t u = t->adj[k].sw;
            if (x->mset[u] || u == d ||
                x->nbt[(size_t)u * 256 + x->r->lft[(size_t)u * L + l]] != s)
                continue;
            x->mset[u] = 1;
            x->mlist[m++] = u;
        }
    }
    return m;
}

/* The moving entries toward LID l of destination switch d (distances
   dist), as sssp weighs its routes: their end ports' pairs are lifted off
   their old paths, then each moving switch, nearest to d first, takes the
   shortest-path port whose path has the least busy link (then the
   busiest link of the whole load with its pairs added, then the least
   load, then the fewest LIDs on the port; a switch whose entry is still
   on a shortest path keeps it unless another port's path is less busy),
   and its pairs are laid on that path at once, so the next switch sees
   them. Loads are changes since the saved routing, which sssp balanced:
   links the moved pairs left are the ones free to take them; among
   paths that add as much, the whole load (whole_load)
   keeps them off links the saved routing had already filled. The
   entries of the other switches stay. */
static void balanced_lid(rr *x, uint32_t d, size_t l, const uint32_t *dist,
                         const uint32_t *list, uint32_t nlist)
{
    const ibr_topo *t = x->t;
    uint32_t m = moving_set(x, d, l, dist, list, nlist), maxd = 0;
    int ca = t->lid_swport[l] != 0;
    if (!m)
        return;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t s = x->mlist[j];
        x->mset[s] = 0;
        if (ca)
            walk_load(x, s, d, l, -(int64_t)x->hosts[s]);
        if (dist[s] != UINT32_MAX && dist[s] > maxd)
            maxd = dist[s];
    }
    /* nearest first (counting sort by distance); cut-off switches last */
    uint32_t *cnt = x->cnt;
    for (uint32_t k = 0; k <= maxd + 1; k++)
        cnt[k] = 0;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t s = x->mlist[j];
        cnt[dist[s] == UINT32_MAX ? maxd + 1 : dist[s]]++;
    }
    for (uint32_t k = 0, acc = 0; k <= maxd + 1; k++) {
        uint32_t c = cnt[k];
        cnt[k] = acc;
        acc += c;
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t s = x->mlist[j];
        x->order[cnt[dist[s] == UINT32_MAX ? maxd + 1 : dist[s]]++] = s;
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t u = x->order[j];
        if (dist[u] == UINT32_MAX) {
            set_entry(x, u, l, IBR_NO_ROUTE);
            continue;
        }
        const int64_t *w = x->wload + (size_t)u * 256;
        ensure_load(x, u);
        const uint32_t *ld = x->load + (size_t)u * 256;
        unsigned best = 0, cur = x->r->lft[(size_t)u * x->r->lft_size + l];
        int64_t bc = INT64_MAX, bm = INT64_MAX, cm = INT64_MAX, bp = INT64_MAX;
        int64_t cp = INT64_MAX;
        for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
            const ibr__adj *a = &t->adj[k];
            if (dist[a->sw] + 1 != dist[u])
                continue;
            int64_t mx = w[a->port], pk = 0;
            int64_t c = w[a->port] + path_load(x, a->sw, d, l, &mx, NULL);
            if (x->wfix && ca) {
                /* the whole load of the links the pairs would cross */
                int64_t h = (int64_t)x->hosts[u], w0 = whole_load(x, u, a->port);
                pk = path_peak(x, a->sw, d, l);
                pk = w0 > pk ? w0 : pk;
                pk += h;
            }
            if (a->port == cur) {
                cm = mx;
                cp = pk;
            }
            if (mx < bm || (mx == bm && (pk < bp || (pk == bp && (c < bc ||
                                                               (c == bc && ld[a->port] < ld[best])))))) {
                bp = pk;
                bm = mx;
                bc = c;
                best = a->port;
            }
        }
        if (cp <= bp && cm <= bm)
            best = cur; /* a shortest path no busier than the best stays */
        set_entry(x, u, l, best ? best : IBR_NO_ROUTE);
        if (ca && best)
            walk_load(x, u, d, l, x->hosts[u]);
    }
}

/* The distances toward destination switch d after the fabric lost
   cables (no switch, no new cable), from the saved ones (hop column d)
   instead of a search of the whole fabric: only a switch left without a
   neighbour one step closer, nearest first, is farther now, and those
   are searched again from their neighbours that kept their distance.
   The saved column holds the saved fabric's distances (capped at 254)
   until d is searched; -1 when it cannot be the start (then
   ibr__bfs()). */
static int dist_after_losses(rr *x, uint32_t d, uint32_t *dist)
{
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw, na = 0, nt = 0;
    const uint8_t *hops = x->r->hops;
    uint8_t *st = x->dstate; /* 1 queued, 2 farther now, 3 kept, 4 final */
    uint32_t *head = x->dhead, *next = x->dnext, *aff = x->daff, *tl = x->dtouch;
    for (uint32_t s = 0; s < S; s++) {
        uint8_t h = hops[(size_t)s * S + d];
        /* a distance of S or more is no shortest path: the saved column
           is not to be trusted (a database edited by hand), search */
        if (h != 255 && h >= S)
            return -1;
        dist[s] = h == 255 ? UINT32_MAX : h;
    }
    if (dist[d] != 0)
        return -1;
    for (unsigned k = 0; k < 256; k++)
        head[k] = IBR_NONE;
    for (uint32_t s = 0; s < S; s++) {
        if (!x->lost[s] || s == d || dist[s] == UINT32_MAX)
            continue;
        st[s] = 1;
        tl[nt++] = s;
        next[s] = head[dist[s]];
        head[dist[s]] = s;
    }
    /* the switches farther now, by saved distance (a level's parents are
       decided before it) */
    for (unsigned k = 1; k < 255; k++)
        for (uint32_t u = head[k]; u != IBR_NONE; u = next[u]) {
            int kept = 0;
            for (uint32_t e = t->adj_off[u]; !kept && e < t->adj_off[u + 1]; e++)
                kept = dist[t->adj[e].sw] + 1 == k && st[t->adj[e].sw] != 2;
            st[u] = kept ? 3 : 2;
            if (kept)
                continue;
            aff[na++] = u;
            for (uint32_t e = t->adj_off[u]; e < t->adj_off[u + 1]; e++) {
                uint32_t v = t->adj[e].sw;
                if (st[v] == 0 && dist[v] == k + 1u) {
                    st[v] = 1;
                    tl[nt++] = v;
                    next[v] = head[k + 1];
                    head[k + 1] = v;
                }
            }
        }
    /* their new distances: from the neighbours that kept theirs, then
       among themselves, in order of distance (sources sorted by their
       first bound, a queue of the rest) */
    uint32_t *nd = x->dnd, *q = x->dq, nq = 0, qh = 0;
    for (uint32_t i = 0; i < na; i++) {
        uint32_t u = aff[i], b = UINT32_MAX;
        for (uint32_t e = t->adj_off[u]; e < t->adj_off[u + 1]; e++) {
            uint32_t v = t->adj[e].sw;
            if (st[v] != 2 && dist[v] != UINT32_MAX && dist[v] + 1 < b)
                b = dist[v] + 1;
        }
        nd[u] = b;
    }
    for (uint32_t i = 1; i < na; i++) { /* insertion sort: few switches */
        uint32_t u = aff[i], j = i;
        for (; j > 0 && nd[aff[j - 1]] > nd[u]; j--)
            aff[j] = aff[j - 1];
        aff[j] = u;
    }
    for (uint32_t i = 0;;) {
        uint32_t u;
        if (qh < nq && (i == na || nd[q[qh]] <= nd[aff[i]]))
            u = q[qh++];
        else if (i < na)
            u = aff[i++];
        else
            break;
        if (st[u] == 4 || nd[u] == UINT32_MAX)
            continue;
        st[u] = 4;
        for (uint32_t e = t->adj_off[u]; e < t->adj_off[u + 1]; e++) {
            uint32_t v = t->adj[e].sw;
            if (st[v] == 2 && nd[u] + 1 < nd[v]) {
                nd[v] = nd[u] + 1;
                q[nq++] = v;
            }
        }
    }
    for (uint32_t i = 0; i < na; i++)
        dist[aff[i]] = nd[aff[i]];
    for (uint32_t i = 0; i < nt; i++)
        st[tl[i]] = 0;
    x->dn_aff = na;
    return 0;
}

/* The scratch of dist_after_losses(). 0 or IBR_ENOMEM. */
static int dist_scratch(rr *x)
{
    ibr_context *ctx = x->ctx;
    uint32_t S1 = x->t->n_sw ? x->t->n_sw : 1;
    x->dstate = ibr__calloc(ctx, S1, 1);
    x->dhead = ibr__mallocarray(ctx, 256, sizeof *x->dhead);
    x->dnext = ibr__mallocarray(ctx, S1, sizeof *x->dnext);
    x->daff = ibr__mallocarray(ctx, S1, sizeof *x->daff);
    x->dtouch = ibr__mallocarray(ctx, S1, sizeof *x->dtouch);
    x->dnd = ibr__mallocarray(ctx, S1, sizeof *x->dnd);
    x->dq = ibr__mallocarray(ctx, S1, sizeof *x->dq);
    x->dlost = ibr__mallocarray(ctx, S1, sizeof *x->dlost);
    x->dcand = ibr__mallocarray(ctx, (size_t)S1 + 1, sizeof *x->dcand);
    if (!x->dstate || !x->dhead || !x->dnext || !x->daff || !x->dtouch || !x->dnd || !x->dq ||
        !x->dlost || !x->dcand)
        return IBR_ENOMEM;
    x->dn_lost = 0;
    for (uint32_t s = 0; s < x->t->n_sw; s++)
        if (x->lost[s])
            x->dlost[x->dn_lost++] = s;
    return 0;
}

/* Search destination switch d again; every entry toward its LIDs that is
   not on a shortest path takes the least-loaded port that is. Only
   switches whose distance changed, their neighbours and the switches that
   lost a cable can hold such an entry (distances only grow when cables
   are lost, and an entry toward a neighbour one step closer stays valid
   when neither distance changed), so only they are visited. A balanced
   repair (sssp) moves those entries, and the ones whose path crosses
   them, by link load instead (balanced_lid). */
/* Switch s of bfs_fix()'s pass: its distance to d written into the hop
   column; when it changed, s and its neighbours are listed, and s alone
   when it lost a cable or is d. */
static void visit_switch(rr *x, uint32_t s, uint32_t d, const uint32_t *dist,
                         const uint8_t *lost, uint8_t *mark, uint32_t *list, uint32_t *nlist)
{
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw;
    uint8_t *hops = x->r->hops;
    unsigned nd = dist[s] > 254 ? 255 : (unsigned)dist[s];
    int changed = !hops || hops[(size_t)s * S + d] != nd;
    if (hops)
        hops[(size_t)s * S + d] = (uint8_t)nd;
    if (!changed && !lost[s] && s != d)
        return;
    if (!mark[s]) {
        mark[s] = 1;
        list[(*nlist)++] = s;
    }
    if (changed)
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
            uint32_t nb = t->adj[k].sw;
            if (!mark[nb]) {
                mark[nb] = 1;
                list[(*nlist)++] = nb;
            }
        }
}

static int cmp_u32(const void *a, const void *b, void *arg)
{
    (void)arg;
    uint32_t u = *(const uint32_t *)a, v = *(const uint32_t *)b;
    return u < v ? -1 : u > v;
}

/* After dist_after_losses(): the switches visit_switch() can list, in
   rising order (x->dcand), or UINT32_MAX when they are many (then every
   switch is visited). Any other switch s kept the distance read from the
   hop column (dist[s] decodes hops[s][d]: 255 as UINT32_MAX, which
   encodes back to 255), so its column entry is unchanged, and it neither
   lost a cable nor is d: visit_switch() would leave it alone. */
static uint32_t visit_candidates(rr *x, uint32_t d)
{
    uint32_t n = x->dn_aff + x->dn_lost + 1, m = 0;
    if (n > x->t->n_sw / 8)
        return UINT32_MAX;
    memcpy(x->dcand, x->daff, x->dn_aff * sizeof *x->dcand);
    memcpy(x->dcand + x->dn_aff, x->dlost, x->dn_lost * sizeof *x->dcand);
    x->dcand[n - 1] = d;
    ibr__sort(x->dcand, n, sizeof *x->dcand, cmp_u32, NULL);
    for (uint32_t i = 0; i < n; i++)
        if (m == 0 || x->dcand[m - 1] != x->dcand[i])
            x->dcand[m++] = x->dcand[i];
    return m;
}

/* Switches by rising distance (arg: the distances). */
static int cmp_dist(const void *a, const void *b, void *arg)
{
    const uint32_t *dist = arg;
    uint32_t u = dist[*(const uint32_t *)a], v = dist[*(const uint32_t *)b];
    return u < v ? -1 : u > v;
}

/* Entry (s, l) off the shortest paths toward d (distances dist) moved to
   one on them: the least-loaded port, or, by_wl, the one whose path
   carries the least of the traffic moved so far (the busiest link, then
   the total, of x->wload; then the least-loaded), the traffic crossing s
   (its switch and every one routed through it) lifted off the old path
   and laid on the new. The scan of s's cables starts at the @p start-th
   (a tie goes to the first candidate met). */
static void place_entry(rr *x, uint32_t s, uint32_t d, size_t l, const uint32_t *dist, int by_wl,
                        uint32_t start)
{
    const ibr_topo *t = x->t;
    ensure_load(x, s);
    const uint32_t *ld = x->load + (size_t)s * 256;
    port_pick pk = PORT_PICK_INIT;
    uint32_t deg = t->adj_off[s + 1] - t->adj_off[s];
    for (uint32_t i = 0; i < deg; i++) {
        const ibr__adj *a = &t->adj[t->adj_off[s] + (start + i) % deg];
        if (dist[a->sw] + 1 != dist[s])
            continue;
        offer_port(x, &pk, s, d, l, a, ld, by_wl);
    }
    int64_t h = by_wl ? (int64_t)subtree_hosts(x, s, l) : 0;
    walk_load(x, s, d, l, -h);
    set_entry(x, s, l, pk.best ? pk.best : IBR_NO_ROUTE);
    walk_load(x, s, d, l, h);
}

/* place_entry() with the scan from s's first cable. */
static void fix_entry(rr *x, uint32_t s, uint32_t d, size_t l, const uint32_t *dist, int by_wl)
{
    place_entry(x, s, d, l, dist, by_wl, 0);
}

static int bfs_fix(rr *x, uint32_t d, uint32_t *dist, uint32_t *queue, const uint8_t *lost,
                   uint8_t *mark, uint32_t *list)
{
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw, nlist = 0, nc = UINT32_MAX;
    if (x->dstate && dist_after_losses(x, d, dist) == 0)
        nc = visit_candidates(x, d);
    else
        ibr__bfs(dist, t, &d, 1, queue);
    const uint32_t *lids = x->bucket + x->bucket_off[d];
    uint32_t nl = x->bucket_off[d + 1] - x->bucket_off[d];
    if (nc != UINT32_MAX)
        for (uint32_t i = 0; i < nc; i++)
            visit_switch(x, x->dcand[i], d, dist, lost, mark, list, &nlist);
    else
        for (uint32_t s = 0; s < S; s++)
            visit_switch(x, s, d, dist, lost, mark, list, &nlist);
    if (x->balanced) {
        /* d delivers its own LIDs; the rest by link load */
        for (uint32_t i = 0; i < nl; i++) {
            set_entry(x, d, lids[i], t->lid_swport[lids[i]]);
            balanced_lid(x, d, lids[i], dist, list, nlist);
        }
        for (uint32_t j = 0; j < nlist; j++)
            mark[list[j]] = 0;
        return 0;
    }
    /* nearest first: the path a moved entry joins is final when the
       traffic it carries is laid on it (fix_entry) */
    int by_wl = !x->layered && ensure_wload(x) == 0;
    if (by_wl)
        ibr__sort(list, nlist, sizeof *list, cmp_dist, (void *)dist);
    for (uint32_t j = 0; j < nlist; j++) {
        uint32_t s = list[j];
        mark[s] = 0;
        const uint8_t *row = x->r->lft + (size_t)s * x->r->lft_size;
        for (uint32_t i = 0; i < nl; i++) {
            uint32_t l = lids[i];
            if (s == d) {
                set_entry(x, s, l, t->lid_swport[l]);
                continue;
            }
            if (dist[s] == UINT32_MAX) {
                set_entry(x, s, l, IBR_NO_ROUTE);
                continue;
            }
            uint32_t nb = ibr__reroute_next_sw(t, s, row[l]);
            if (nb != IBR_NONE && dist[nb] + 1 == dist[s])
                continue;
            fix_entry(x, s, d, l, dist, by_wl && t->lid_swport[l] != 0);
        }
    }
    return 0;
}

/* Switch s joins LID l's tree (distances dist to it) through a
   neighbour one step closer: the least-loaded port, or, by_wl, the one
   whose path carries the least of the traffic moved so far (as
   fix_entry); ties among the switches joining toward l go to different
   ports (the scan starts at a place that depends on s and l). */
static void nue_join(rr *x, uint32_t s, uint32_t d, size_t l, const uint32_t *dist, int by_wl)
{
    uint32_t deg = x->t->adj_off[s + 1] - x->t->adj_off[s];
    place_entry(x, s, d, l, dist, by_wl, deg ? (uint32_t)((s + l) % deg) : 0);
}

/* nue, toward an end port's LID: switch s joins LID l's tree through any
   neighbour already in it (state 1: kept, or joined before s), not only
   one a step nearer (nue's own routes are not minimal either): the one
   whose route (s's cable to it, then the neighbour's route) has the least
   busy link of x->wload, the saved all-to-all load with the moves so far,
   then the least load in all, then the fewest LIDs on the port, among the
   routes at most NUE_SLACK hops longer than the shortest one offered; the
   current entry stays if its route is one of them and no busier. The
   traffic crossing s (its switch's and every one routed into it) is lifted
   off its old route first and laid on the new one. */
#define NUE_SLACK 2
static void nue_join_loaded(rr *x, uint32_t s, uint32_t d, size_t l, const uint8_t *state)
{
    const ibr_topo *t = x->t;
    uint8_t *e = x->r->lft + (size_t)s * x->r->lft_size + l;
    int64_t h = (int64_t)subtree_hosts(x, s, l);
    walk_load(x, s, d, l, -h);
    ensure_load(x, s);
    const uint32_t *ld = x->load + (size_t)s * 256;
    uint32_t minlen = UINT32_MAX;
    for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
        const ibr__adj *a = &t->adj[k];
        uint32_t n = 0;
        int64_t mx = 0;
        if (state[a->sw] != 1)
            continue;
        (void)path_load(x, a->sw, d, l, &mx, &n);
        minlen = n + 1 < minlen ? n + 1 : minlen;
    }
    port_pick pk = PORT_PICK_INIT;
    int64_t cm = INT64_MAX;
    for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
        const ibr__adj *a = &t->adj[k];
        uint32_t n = 0;
        if (state[a->sw] != 1)
            continue;
        int64_t mx = x->wload[(size_t)s * 256 + a->port];
        int64_t sum = mx + path_load(x, a->sw, d, l, &mx, &n);
        if (n + 1 > minlen + NUE_SLACK)
            continue;
        if (a->port == *e)
            cm = mx;
        if (mx < pk.bm || (mx == pk.bm && (sum < pk.bs || (sum == pk.bs && ld[a->port] < pk.bl)))) {
            pk.bm = mx;
            pk.bs = sum;
            pk.bl = ld[a->port];
            pk.best = a->port;
        }
    }
    if (cm <= pk.bm)
        pk.best = *e;
    set_entry(x, s, l, pk.best ? pk.best : IBR_NO_ROUTE);
    walk_load(x, s, d, l, h);
}

/* nue's repair of LID l's column (x->lid_broken): the switches whose
   path toward l, followed through the column over ports that still carry
   their saved cable, reaches l's switch d form an in-tree toward d and
   keep their entries; every other switch is joined to that tree, in the
   order of a breadth-first search from all of its switches at once (a
   switch it cannot reach has no route): toward an end port's LID through
   the neighbour already in the tree whose route adds to the least busy
   links of the whole load (nue_join_loaded), toward a switch's LID (no
   traffic counted) the least-loaded port toward a neighbour one step
   closer to the tree. The kept paths keep their routes and SLs; the
   joined ones are placed into layers later (layered_sls). */
static void nue_fix(rr *x, size_t l)
{
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw, d = t->lid_sw[l], nq = 0;
    uint32_t *dist = x->dist, *queue = x->queue, *stack = x->list;
    uint8_t *state = x->mark; /* 0 unknown, 1 kept, 2 to join, 3 on the walk */
    const uint8_t *lft = x->r->lft;
    size_t L = x->r->lft_size;
    set_entry(x, d, l, t->lid_swport[l]);
    state[d] = 1;
    for (uint32_t s0 = 0; s0 < S; s0++) {
        uint32_t n = 0, s = s0;
        uint8_t v;
        while (state[s] == 0) {
            state[s] = 3;
            stack[n++] = s;
            unsigned p = lft[(size_t)s * L + l];
            const ibr__node *nd = &t->nodes[t->sw_node[s]];
            uint32_t nb = p != IBR_NO_ROUTE && p != 0 && p <= nd->nports &&
                                  x->okport[nd->port_off + p]
                              ? ibr__reroute_next_sw(t, s, p)
                              : IBR_NONE;
            if (nb == IBR_NONE)
                break;
            s = nb;
        }
        v = state[s] == 1 ? 1 : 2; /* a loop or a broken entry: joined */
        while (n > 0)
            state[stack[--n]] = v;
    }
    for (uint32_t s = 0; s < S; s++) {
        dist[s] = state[s] == 1 ? 0 : UINT32_MAX;
        if (state[s] == 1)
            queue[nq++] = s;
    }
    for (uint32_t h = 0; h < nq; h++) {
        uint32_t u = queue[h];
        for (uint32_t k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
            uint32_t w = t->adj[k].sw;
            if (dist[w] == UINT32_MAX) {
                dist[w] = dist[u] + 1;
                queue[nq++] = w;
            }
        }
    }
    /* nearest first, so that the path a switch joins is final when the
       traffic it carries is laid on it (toward an end port's LID) */
    int by_wl = t->lid_swport[l] != 0 && ensure_wload(x) == 0;
    if (by_wl && !x->wload_whole)
        add_whole_load(x);
    for (uint32_t s = 0; s < S; s++)
        if (state[s] != 1 && dist[s] == UINT32_MAX)
            set_entry(x, s, l, IBR_NO_ROUTE);
    for (uint32_t h = 0; h < nq; h++) {
        uint32_t s = queue[h];
        if (state[s] == 1)
            continue;
        if (by_wl) {
            nue_join_loaded(x, s, d, l, state);
            state[s] = 1;
        } else {
            nue_join(x, s, d, l, dist, 0);
        }
    }
    for (uint32_t s = 0; s < S; s++)
        state[s] = 0;
}

/* The churn of r against the saved routing (churn.h): with all, every
   row compared; otherwise (same LIDs, a repair that wrote through
   set_entry()) the counts kept while writing. */
static void churn(rr *x, const ibr_result *r, ibr_reroute_report *rep, int all)
{
    int tracked = !all && x->identity;
    ibr__churn_report(rep, x->db, r, x->swmap, tracked ? &x->chg : NULL,
                      all || x->sibling_copies || x->merged);
}

/* The QoS configuration of a reroute: the caller's (ibr_options::qos),
   else the one the saved routing was programmed with (parsed into
   x->own_qos), else none. */
static const ibr_qos_config *reroute_qos(const rr *x, const ibr_options *o)
{
    if (o && o->version >= 3 && o->qos)
        return o->qos;
    return x->own_qos;
}

/* The saved engine on the topology, with its settings and seed. */
static int route_full(ibr_result **out, rr *x, const ibr_options *o)
{
    const ibr_routing_db *db = x->db;
    ibr_context *ctx = x->ctx;
    ibr_options opts = IBR_OPTIONS_INIT;
    if (o) /* the fields of the caller's version (checked on entry) */
        memcpy(&opts, o, IBR__VERSION_SIZE(options_sizes, o->version));
    opts.version = IBR_OPTIONS_VERSION;
    opts.qos = reroute_qos(x, o);
    size_t np = db->n_settings + (o ? o->n_params : 0);
    ibr_param *params = ibr__calloc(ctx, np ? np : 1, sizeof *params);
    if (!params)
        return IBR_ENOMEM;
    for (size_t i = 0; i < db->n_settings; i++)
        params[i] = (ibr_param){db->set_name[i], db->set_value[i]};
    for (size_t i = 0; o && i < o->n_params; i++)
        params[db->n_settings + i] = o->params[i];
    opts.params = params;
    opts.n_params = np;
    opts.seed = db->seed;
    *out = NULL;
    /* the saved engine alone: its fallback does not keep its promises, and
       is taken only when the caller asked for it */
    char chain[96];
    snprintf(chain, sizeof chain, "%s%s", saved_engine(db),
             x->fallback_ok ? "" : ",no_fallback");
    int rc = ibr_route(out, x->t, chain, &opts);
    ibr__free(ctx, params);
    if (rc == IBR_EUNROUTABLE && *out && !x->fallback_ok) {
        /* say why no fallback ran, and how to get one */
        const char *was = (*out)->last_error, *head = "no engine could route the fabric; ";
        char msg[IBR_ERRMSG_SIZE];
        if (!strncmp(was, head, strlen(head)))
            was += strlen(head);
        snprintf(msg, sizeof msg,
                 "the saved engine '%s' cannot route the changed fabric, and its fallback "
                 "would not keep its promises (IBR_REROUTE_FALLBACK allows it): ",
                 saved_engine(db));
        strlcat(msg, was, sizeof msg);
        strlcpy((*out)->last_error, msg, sizeof (*out)->last_error);
    }
    return rc;
}

/* A full reroute (reusing one already computed in *full) is the answer. */
static int full_reroute(ibr_result **out, rr *x, ibr_reroute_report *rep, const ibr_options *o,
                        const char *why, ibr_result **full)
{
    ibr_result *r = full ? *full : NULL;
    int rc = 0;
    if (full)
        *full = NULL;
    if (!r)
        rc = route_full(&r, x, o);
    rep->mode = IBR_REROUTE_FULL;
    strlcpy(rep->reason, why, sizeof rep->reason);
    if (rc == 0)
        churn(x, r, rep, 1);
    *out = r;
    return rc;
}

static const uint8_t *repaired_row(void *arg, uint32_t sw)
{
    const ibr_result *r = arg;
    return r->lft + (size_t)sw * r->lft_size;
}

/* Destination switch d takes the full reroute's routes (and SLs, hops)
   toward its LIDs, on every switch. */
static void merge_column(rr *x, const ibr_result *f, uint32_t d)
{
    const ibr_topo *t = x->t;
    ibr_result *r = x->r;
    uint32_t S = t->n_sw;
    size_t L = r->lft_size;
    const uint32_t *lids = x->bucket + x->bucket_off[d];
    uint32_t nl = x->bucket_off[d + 1] - x->bucket_off[d];
    uint32_t ns = ibr__n_src_slots(t);
    x->merged = 1;
    for (uint32_t s = 0; s < S; s++) {
        for (uint32_t i = 0; i < nl; i++) {
            unsigned p = f->lft[(size_t)s * L + lids[i]];
            /* d's own entries toward the ports it delivers cross no cable:
               an engine that left them empty does not erase them */
            if (s == d && p == IBR_NO_ROUTE && t->lid_port[lids[i]] != IBR_NONE)
                p = t->lid_swport[lids[i]];
            set_entry(x, s, lids[i], p);
        }
        if (r->hops && f->hops)
            r->hops[(size_t)s * S + d] = f->hops[(size_t)s * S + d];
    }
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t l = lids[i];
        if (r->sl_mode == IBR_SL_PER_DEST && f->sl_mode == IBR_SL_PER_DEST)
            r->sl[l] = f->sl[l];
        else if (r->sl_mode == IBR_SL_PER_PAIR && f->sl_mode == IBR_SL_PER_PAIR)
            for (uint32_t k = 0; k < ns; k++)
                r->sl[(size_t)k * L + l] = f->sl[(size_t)k * L + l];
        else if (r->sl_mode == IBR_SL_PER_PAIR && f->sl_mode == IBR_SL_PER_DEST)
            for (uint32_t k = 0; k < ns; k++)
                r->sl[(size_t)k * L + l] = f->sl[l];
    }
}

/* A dmodc routing is repaired in place (persist/reroute_dmodc.c): the
   entries whose inputs changed are computed again, which gives the tables
   of a fresh dmodc route of the changed fabric (a lost end port or leaf
   leaves a hole in the destination index; the saved columns are kept by
   LID number, x->by_number, so that LIDs changed, new or past a shrunk
   top are columns the repair computes again or clears); where the
   formula moves everything (levels or dividers changed, most of the
   destination index moved) or the engine would decline, a full reroute
   says why. */
static int dmodc_in_place(ibr_result **out, rr *x, ibr_reroute_report *rep, const ibr_options *o,
                          const ibr_qos_config *qos, unsigned caps, const uint32_t *dmap)
{
    const char *why = NULL;
    if (!x->r->hops)
        why = "the saved routing has no hop matrix to repair with";
    if (why)
        return full_reroute(out, x, rep, o, why, NULL);
    static const ibr_options def = IBR_OPTIONS_INIT;
    unsigned lmc = o ? o->lmc : def.lmc;
    ibr__dmodc_repair a;
    memset(&a, 0, sizeof a);
    a.t = x->t;
    a.swmap = x->swmap;
    a.lft = x->r->lft;
    a.lft_size = x->r->lft_size;
    a.hops = x->r->hops;
    a.lmc_cap = lmc == IBR_LMC_TOPO ? 7 : lmc;
    uint32_t *changed = ibr__calloc(x->ctx, x->t->n_sw ? x->t->n_sw : 1, sizeof *changed);
    if (!changed)
        return IBR_ENOMEM;
    a.changed = changed;
    /* the repair writes rows directly and counts the churn of the blocks
       it changed against the saved rows (same LIDs: same sizes) */
    int rc = ibr__reroute_dmodc(&a, x->db, x->tmap, dmap, &x->chg);
    int new_rows = 0; /* a switch that came back has no saved row: compare all */
    for (uint32_t s = 0; rc == 0 && s < x->t->n_sw; s++)
        new_rows |= x->swmap[s] == IBR_NONE;
    ibr__free(x->ctx, changed);
    if (rc < 0)
        return rc;
    if (rc > 0)
        return full_reroute(out, x, rep, o, a.why, NULL);
    const char *qwhy = NULL;
    int q = apply_qos(x, qos, caps, &qwhy);
    if (q < 0)
        return q;
    if (q > 0)
        return full_reroute(out, x, rep, o, qwhy, NULL);
    rep->mode = IBR_REROUTE_INCREMENTAL;
    rep->entries_repaired = a.changed_total;
    rep->destinations_rerouted = a.dests;
    /* tracked also when the table top shrank (x->same_lids): the LIDs past
       it count as changed where they had a route */
    ibr__churn_report(rep, x->db, x->r, x->swmap, new_rows ? NULL : &x->chg,
                      new_rows || x->sibling_copies || x->merged);
    char msg[160];
    snprintf(msg, sizeof msg,
             "reroute: dmodc repair in place, %" PRIu64 " entries changed, %u destination "
             "switches recomputed",
             a.changed_total, a.dests);
    if (ibr__result_add_attempt(x->r, x->db->engine, 0, msg) < 0)
        return IBR_ENOMEM;
    *out = x->r;
    x->r = NULL;
    return 0;
}

/* Is checking a repaired routing for credit loops dearer than the full
   reroute it would replace? The check walks every (source end port,
   destination LID) path, about pairs x mean hops steps; an engine without
   path SLs (updn, dnup) routes with one search per destination switch and
   one pass over the tables, about S x (S + links) + S x LIDs steps. The
   check's steps are cheaper (one table read each, while the engine keeps
   candidate masks and loads): a repair is tried while the check's count is
   within CHECK_OVER_FULL times the engine's. Fat trees of a thousand hosts
   and more, where every path is checked again for one lost cable, get the
   full reroute. Returns 1 for a full reroute (why in buf). */
static int check_dearer_than_full(char *buf, size_t cap, const rr *x)
{
    enum { CHECK_OVER_FULL = 4 };
    const ibr_topo *t = x->t;
    const ibr_routing_db *db = x->db;
    uint64_t S = t->n_sw, ends = t->n_end, lids = 0, hsum = 0, hn = 0;
    for (uint32_t l = 1; l <= t->max_lid; l++)
        lids += t->lid_port[l] != IBR_NONE;
    /* mean hops between switches, from a sample of rows of the saved hop
       matrix read through the switch map (the tables are not copied yet) */
    for (uint64_t a = 0; db->hops && a < S; a += 1 + S / 16) {
        uint32_t da = x->swmap[a];
        for (uint64_t b = 0; da != IBR_NONE && b < S; b++) {
            uint32_t dbb = x->swmap[b];
            unsigned h = dbb != IBR_NONE ? db->hops[(size_t)da * db->n_sw + dbb] : 255;
            if (h != 255) {
                hsum += h;
                hn++;
            }
        }
    }
    uint64_t mean = hn ? hsum / hn + 1 : 1; /* + 1: the last switch's step */
    uint64_t check = ends * lids * mean;
    uint64_t full = S * (S + t->n_adj) + S * lids;
    if (check <= full * CHECK_OVER_FULL)
        return 0;
    snprintf(buf, cap,
             "checking a repair for credit loops walks every path again (%" PRIu64
             " end ports x %" PRIu64 " LIDs), more work than the engine's full run: full "
             "reroute",
             ends, lids);
    return 1;
}

/* ------------------------------------------------------------------ */
/* ibr_routing_db_route() in stages. Each stage returns 0 to go on, or 1
   when the call is over: x->rc then holds its answer (and *x->out the
   result, if any).                                                    */

/* Stop with rc. */
static int stop(rr *x, int rc)
{
    x->rc = rc;
    return 1;
}

/* Stop with a full reroute (reusing x->full if computed). */
static int stop_full(rr *x, const char *why)
{
    return stop(x, full_reroute(x->out, x, x->rep, x->o, why, &x->full));
}

/* Maps, the saved QoS configuration, the comparison, and what the report
   says of the inputs; the saved tables are copied once a full reroute is
   ruled out (run_stages). */
static int stage_begin(rr *x, chlist *cl, uint32_t *dmap)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    int rc;
    map_nodes(x->tmap_own, dmap, db, t);
    x->tmap = x->tmap_own;
    if (db->qos && !(x->o && x->o->version >= 3 && x->o->qos)) {
        if ((rc = ibr_qos_config_create(&x->own_qos, ctx)) < 0)
            return stop(x, rc);
        rc = ibr_qos_config_parse(x->own_qos, db->qos_conf ? db->qos_conf : "",
                                  db->qos_conf_len);
        if (rc < 0) /* a saved configuration the library wrote itself: only
                       a damaged database gets here */
            return stop(x, rc == IBR_ENOMEM ? IBR_ENOMEM : IBR_EINVAL);
    }
    x->qos = reroute_qos(x, x->o);
    ibr_engine_info info;
    x->known = ibr_context_find_engine(&info, ctx, db->engine) == 0;
    x->repair = ibr__engine_repair(ctx, db->engine);
    x->by_number = x->known && x->repair == IBR__REPAIR_DMODC;
    if ((rc = compare_into(cl, db, t, x->tmap, dmap)) < 0 || (rc = new_result_and_maps(x)) < 0)
        return stop(x, rc);
    /* the saved blocks over what was lost, whatever the repair does */
    if ((cl->missing_cable || cl->missing_switch) &&
        (rc = ibr__churn_over_lost(&x->rep->lft_blocks_over_lost, db, t, x->swmap)) < 0)
        return stop(x, rc);
    x->rep->changes = cl->n;
    x->rep->invalidates = cl->inval;
    fabric_warning(x->rep->warning, sizeof x->rep->warning, cl, db, t, x->tmap);
    if (x->rep->warning[0])
        ibr__log(ctx, IBR_LOG_WARN, "reroute: %s", x->rep->warning);
    x->caps = x->known ? info.caps : 0;
    x->torus = x->repair == IBR__REPAIR_TORUS;
    /* layered minimal engines with path SLs (lash, dfsssp): repaired by
       shortest paths, then their moved paths placed into layers */
    x->layered = x->known && (x->caps & IBR_CAP_DEADLOCK_FREE) && (x->caps & IBR_CAP_MINIMAL) &&
                 (db->sl_mode == IBR_SL_PER_PAIR || db->sl_mode == IBR_SL_PER_DEST) && db->hops &&
                 !(db->qos && db->qos_levels > 1);
    /* nue (not minimal; its layers are per destination, or one layer
       without path SLs): the broken columns joined to what is intact of
       their trees (nue_fix), then the moved paths placed into layers */
    x->nue = x->repair == IBR__REPAIR_NUE && (x->caps & IBR_CAP_DEADLOCK_FREE) &&
             !(x->caps & IBR_CAP_MINIMAL) && !(db->qos && db->qos_levels > 1);
    x->layered |= x->nue;
    /* up/down engines with their saved orientation: repaired under it */
    x->updown = x->known && (x->caps & IBR_CAP_DEADLOCK_FREE) && db->upos &&
                db->sl_mode == IBR_SL_NONE && !x->layered;
    return 0;
}

/* The saved tables for an unchanged fabric. */
static int stage_unchanged(rr *x)
{
    const char *qwhy = NULL;
    int q = apply_qos(x, x->qos, x->caps, &qwhy);
    if (q < 0)
        return stop(x, q);
    if (q > 0)
        return stop_full(x, qwhy);
    x->rep->mode = IBR_REROUTE_UNCHANGED;
    churn(x, x->r, x->rep, !x->identity); /* the QoS configuration may differ */
    if (ibr__result_add_attempt(x->r, x->db->engine, 0, "reroute: fabric unchanged, saved tables") <
        0)
        return stop(x, IBR_ENOMEM);
    *x->out = x->r;
    x->r = NULL;
    return stop(x, 0);
}

/* Does a switch that had no cable to another switch when the routing
   was saved (cut off by a fault) have one now? It has no routes to keep,
   and no route leads to its end ports: like a new switch, it takes a full
   reroute (why in buf). */
static int updown_returning(char *buf, size_t cap, const rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t ds = x->swmap[s];
        if (ds == IBR_NONE || t->adj_off[s] == t->adj_off[s + 1])
            continue;
        const ibr__dbnode *n = &db->nodes[db->sw_node[ds]];
        int cabled = 0;
        for (unsigned p = 1; p <= n->nports && !cabled; p++) {
            const ibr__dbport *dp = &db->ports[n->port_off + p];
            cabled = dp->rguid && dp->rtype == IBR_NODE_SWITCH && dp->rguid != n->guid;
        }
        if (!cabled) {
            snprintf(buf, cap,
                     "switch 0x%016" PRIx64 " was cut off from the other switches when the "
                     "routing was saved and is cabled again (it has no routes to repair)",
                     n->guid);
            return 1;
        }
    }
    return 0;
}

/* The up/down closure of a lost element, found before any repair work:
   under the saved orientation on what remains, a switch's first-phase
   steps lead down a chain of falling places that ends at a switch with
   no smaller neighbour (a minimum), and b reaches d iff the minima their
   chains reach (*up, a mask of the component's minima) meet: the route
   climbs to a common switch and descends. A pair of switches carrying end
   ports whose masks are disjoint, one of which the saved tables routed to
   the other, has lost its route and has no legal one: the repair would
   search and fail, so the full reroute is decided here (why in buf).
   More than 64 minima or REP_MAX masks, or a memory failure, leave the
   question to the repair (0). O(S REP_MAX + E). */
#define REP_MAX 256
static int updown_cut(char *buf, size_t cap, const rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    uint32_t S = t->n_sw, S1 = S ? S : 1, D1 = db->n_sw ? db->n_sw : 1, n_min = 0;
    uint32_t *pos = ibr__mallocarray(ctx, S1, sizeof *pos);
    uint32_t *ord = ibr__mallocarray(ctx, D1 > S1 ? D1 : S1, sizeof *ord);
    uint32_t *rep = ibr__mallocarray(ctx, REP_MAX, sizeof *rep);
    uint32_t *comp = ibr__mallocarray(ctx, S1, sizeof *comp);
    uint64_t *up = ibr__calloc(ctx, S1, sizeof *up);
    uint8_t *eps = ibr__calloc(ctx, S1, 1);
    int found = 0;
    if (!pos || !ord || !rep || !comp || !up || !eps)
        goto out;
    for (uint32_t i = 0; i < db->n_sw; i++)
        ord[i] = IBR_NONE;
    for (uint32_t s = 0; s < S; s++) {
        pos[s] = x->swmap[s] != IBR_NONE ? db->upos[x->swmap[s]] : IBR_NONE;
        if (pos[s] != IBR_NONE && pos[s] < db->n_sw)
            ord[pos[s]] = s;
    }
    /* the chains' minima, by rising place: a switch's mask is its smaller
       neighbours' masks, or its own bit where it has none */
    for (uint32_t i = 0; i < db->n_sw; i++) {
        uint32_t s = ord[i];
        if (s == IBR_NONE || t->adj_off[s] == t->adj_off[s + 1])
            continue;
        int low = 0;
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
            uint32_t y = t->adj[k].sw;
            if (pos[y] != IBR_NONE && pos[y] < pos[s]) {
                up[s] |= up[y];
                low = 1;
            }
        }
        if (!low) {
            if (n_min == 64)
                goto out;
            up[s] = (uint64_t)1 << n_min++;
        }
    }
    if (n_min < 2)
        goto out;
    for (uint32_t e = 0; e < t->n_end; e++) {
        uint32_t rn = t->ports[t->end_port[e]].remote_node;
        if (rn != IBR_NONE && t->nodes[rn].sw != IBR_NONE)
            eps[t->nodes[rn].sw] = 1;
    }
    ibr__switch_components(t, comp, ord);
    /* one switch stands for each mask of a component (the first) */
    uint32_t n_rep = 0;
    for (uint32_t s = 0; s < S; s++) {
        if (!eps[s] || !up[s] || x->swmap[s] == IBR_NONE)
            continue;
        uint32_t i = 0;
        while (i < n_rep && (comp[rep[i]] != comp[s] || up[rep[i]] != up[s]))
            i++;
        if (i < n_rep)
            continue;
        if (n_rep == REP_MAX)
            goto out;
        rep[n_rep++] = s;
    }
    for (uint32_t i = 0; i < n_rep && !found; i++) {
        uint32_t b = rep[i];
        const uint8_t *row = db->lft + (size_t)x->swmap[b] * db->lft_size;
        for (uint32_t j = 0; j < n_rep; j++) {
            uint32_t d = rep[j];
            if (comp[d] != comp[b] || (up[b] & up[d]))
                continue;
            const ibr__node *dn = &t->nodes[t->sw_node[d]];
            uint16_t lid = t->ports[dn->port_off].lid;
            uint32_t ol = lid && lid < x->r->lft_size ? x->lidmap[lid] : IBR_NONE;
            if (ol == IBR_NONE || ol >= db->lft_size || row[ol] == IBR_NO_ROUTE || row[ol] == 0)
                continue;
            snprintf(buf, cap,
                     "switch 0x%016" PRIx64 " has no legal up/down route to switch 0x%016" PRIx64
                     " under the saved orientation: full reroute",
                     t->nodes[t->sw_node[b]].guid, dn->guid);
            found = 1;
            break;
        }
    }
out:
    ibr__free(ctx, pos);
    ibr__free(ctx, ord);
    ibr__free(ctx, rep);
    ibr__free(ctx, comp);
    ibr__free(ctx, up);
    ibr__free(ctx, eps);
    return found;
}

/* Why the changes take a full reroute, or NULL for a repair. */
static const char *full_reason(rr *x, const chlist *cl)
{
    const ibr_routing_db *db = x->db;
    if (x->torus)
        return db->n_tpos && db->torus_conf
                   ? NULL
                   : "the saved torus-2QoS routing keeps no torus (configuration and placement: "
                     "a database written before they were saved) to repair with";
    if (cl->new_switch)
        return "a new switch (it needs tables and may shorten paths)";
    if (!x->known) {
        snprintf(x->whybuf, sizeof x->whybuf,
                 "engine '%s' is not registered: its rules are unknown", db->engine);
        return x->whybuf;
    }
    if (cl->new_cable && (x->caps & IBR_CAP_MINIMAL) && !x->layered)
        return "a new cable between switches may shorten the paths of a minimal engine";
    if (cl->missing_cable && !db->hops && !x->nue)
        return "the saved routing has no hop matrix to repair with";
    if (x->updown && updown_returning(x->whybuf, sizeof x->whybuf, x))
        return x->whybuf;
    if (x->updown && (cl->missing_cable || cl->missing_switch) &&
        updown_cut(x->whybuf, sizeof x->whybuf, x))
        return x->whybuf;
    if (x->repair == IBR__REPAIR_UPDOWN && !x->updown)
        return "the database keeps no up/down orientation of the links (written by an "
               "older ibroute, or routed with connect_roots) to repair under";
    if ((x->caps & IBR_CAP_DEADLOCK_FREE) && db->sl_mode == IBR_SL_NONE && !x->nue && !x->updown &&
        check_dearer_than_full(x->whybuf, sizeof x->whybuf, x))
        return x->repair != IBR__REPAIR_TREE
                   ? x->whybuf
                   : "the database keeps no up/down orientation of the ftree routing (written by "
                     "an older ibroute, or routes over links within a rank, reverse hops or "
                     "connect_roots), and checking a repair for credit loops walks every path "
                     "again: full reroute";
    return NULL;
}

/* The repair's scratch, the LIDs per delivering switch, the ports that
   still carry their saved cable and the switches that lost one. */
static int stage_prepare(rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    uint32_t S = t->n_sw, S1 = S ? S : 1;
    size_t L = x->r->lft_size;
    x->okport = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, 1);
    x->load = ibr__mallocarray(ctx, (size_t)S1 * 256, sizeof *x->load);
    x->load_ok = ibr__calloc(ctx, S1, 1);
    x->touched = ibr__calloc(ctx, S1, 1);
    x->lid_touched = ibr__calloc(ctx, L, 1);
    x->bucket_off = ibr__calloc(ctx, (size_t)S + 2, sizeof *x->bucket_off);
    x->bucket = ibr__mallocarray(ctx, L, sizeof *x->bucket);
    x->lost = ibr__calloc(ctx, S1, 1);
    x->bfs_set = ibr__calloc(ctx, S1, 1);
    x->mark = ibr__calloc(ctx, S1, 1);
    x->list = ibr__mallocarray(ctx, S1, sizeof *x->list);
    x->dist = ibr__mallocarray(ctx, S1, sizeof *x->dist);
    x->queue = ibr__mallocarray(ctx, S1, sizeof *x->queue);
    uint32_t *fill = ibr__mallocarray(ctx, S1, sizeof *fill);
    if (x->nue && !(x->lid_broken = ibr__calloc(ctx, L, 1))) {
        ibr__free(ctx, fill);
        return stop(x, IBR_ENOMEM);
    }
    if (!x->okport || !x->load || !x->load_ok || !x->touched || !x->lid_touched ||
        !x->bucket_off || !x->bucket || !x->lost || !x->bfs_set || !x->dist || !x->queue ||
        !x->mark || !x->list || !fill) {
        ibr__free(ctx, fill);
        return stop(x, IBR_ENOMEM);
    }
    /* LIDs per delivering switch */
    for (size_t l = 1; l < L; l++)
        if (t->lid_sw[l] != IBR_NONE)
            x->bucket_off[t->lid_sw[l] + 1]++;
    for (uint32_t s = 0; s < S; s++)
        x->bucket_off[s + 1] += x->bucket_off[s];
    memcpy(fill, x->bucket_off, S * sizeof *fill);
    for (size_t l = 1; l < L; l++)
        if (t->lid_sw[l] != IBR_NONE)
            x->bucket[fill[t->lid_sw[l]]++] = (uint32_t)l;
    ibr__free(ctx, fill);
    for (uint32_t s = 0; s < S; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        uint32_t ds = x->swmap[s];
        for (uint32_t k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
            const ibr__adj *a = &t->adj[k];
            if (ds == IBR_NONE || a->port > db->nodes[ds].nports)
                continue;
            const ibr__dbport *dp = &db->ports[db->nodes[ds].port_off + a->port];
            x->okport[n->port_off + a->port] =
                dp->rguid == t->nodes[t->sw_node[a->sw]].guid && dp->rport == a->rport;
            /* a layered repair also searches again from the switches that
               gained a cable: one that comes back has stale distances and
               an empty row */
            if (x->layered && !x->okport[n->port_off + a->port])
                x->lost[s] = 1;
        }
        if (ds == IBR_NONE)
            continue;
        for (unsigned p = 1; p <= db->nodes[ds].nports; p++) {
            const ibr__dbport *dp = &db->ports[db->nodes[ds].port_off + p];
            if (dp->rguid && dp->rtype == IBR_NODE_SWITCH &&
                (p > n->nports || !x->okport[n->port_off + p]))
                x->lost[s] = 1;
        }
    }
    return 0;
}

/* Broken entries of the switches that lost a cable: repaired at the saved
   distance where the engine allows it, else their destination switch is
   marked (bfs_set) to be searched again. Minimal engines without SLs and
   layered ones are repaired by shortest paths; the others keep their rules
   by taking the engine's new routes toward the destinations concerned. */
static void stage_broken(rr *x, const chlist *cl)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw;
    size_t L = x->r->lft_size;
    int local_ok = (db->sl_mode == IBR_SL_NONE || x->layered) && !x->balanced;
    for (uint32_t s = 0; s < S; s++) {
        if (!x->lost[s])
            continue;
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        const ibr__dbnode *dn = &db->nodes[x->swmap[s]];
        uint8_t *row = x->r->lft + (size_t)s * L;
        for (size_t l = 1; l < L; l++) {
            unsigned p = row[l];
            uint32_t d = t->lid_sw[l];
            if (x->nue && p == IBR_NO_ROUTE && d != IBR_NONE && d != s &&
                x->lidmap[l] != IBR_NONE && t->adj_off[s] < t->adj_off[s + 1]) {
                /* no route where a cable came back: maybe one now */
                x->lid_broken[l] = 1;
                continue;
            }
            if (p == IBR_NO_ROUTE || p == 0 || d == IBR_NONE || d == s || x->lidmap[l] == IBR_NONE)
                continue;
            if (p <= n->nports && x->okport[n->port_off + p])
                continue;
            if (t->adj_off[s] == t->adj_off[s + 1]) {
                /* a switch cut off from every other (a failed switch):
                   nothing to route through */
                set_entry(x, s, l, IBR_NO_ROUTE);
                continue;
            }
            if (x->nue) {
                x->lid_broken[l] = 1;
                continue;
            }
            uint64_t old_rguid = p <= dn->nports ? db->ports[dn->port_off + p].rguid : 0;
            if (x->bfs_set[d] || !local_ok || local_fix(x, s, l, old_rguid) < 0)
                x->bfs_set[d] = 1;
        }
    }
    /* a layered routing's new cable: every destination whose shortest
       paths it shortens moves them (bfs_fix keeps the entries still on a
       shortest path) */
    if (x->layered && !x->nue && cl->new_cable)
        for (uint32_t d = 0; d < S; d++)
            x->bfs_set[d] |= x->bucket_off[d + 1] > x->bucket_off[d];
}

static void ud_set(void *arg, uint32_t s, size_t l, unsigned port)
{
    set_entry(arg, s, l, port);
}

static const uint32_t *ud_load(void *arg, uint32_t s)
{
    rr *x = arg;
    ensure_load(x, s);
    return x->load + (size_t)s * 256;
}

/* An up/down routing repaired under its saved orientation
   (reroute_updown.c) in place of stage_broken() and stage_columns(). */
static int stage_updown(rr *x)
{
    ibr__updown_repair *a = &x->ud;
    memset(a, 0, sizeof *a);
    a->t = x->t;
    a->pos = x->upos;
    a->n_pos = x->db->n_sw;
    a->lft = x->r->lft;
    a->lft_size = x->r->lft_size;
    a->hops = x->r->hops;
    a->okport = x->okport;
    a->lost = x->lost;
    a->lidmap = x->lidmap;
    a->bucket_off = x->bucket_off;
    a->bucket = x->bucket;
    a->set = ud_set;
    a->load = ud_load;
    a->arg = x;
    int rc = ibr__reroute_updown(a, x->ctx);
    x->rep->destinations_rerouted += a->dests;
    if (rc < 0)
        return stop(x, rc);
    if (rc > 0) {
        strlcpy(x->whybuf, a->why, sizeof x->whybuf);
        return stop_full(x, x->whybuf);
    }
    return 0;
}

/* The marked destinations searched again (shortest paths), or given the
   routes of the engine's run on the changed fabric. */
static int stage_columns(rr *x)
{
    const ibr_routing_db *db = x->db;
    uint32_t S = x->t->n_sw;
    ibr_reroute_report *rep = x->rep;
    if (x->nue) {
        /* each LID has its own tree: the broken columns, counted by
           destination switch */
        size_t L = x->r->lft_size;
        for (size_t l = 1; l < L; l++)
            if (x->lid_broken[l]) {
                uint32_t d = x->t->lid_sw[l];
                nue_fix(x, l);
                rep->destinations_rerouted += !x->bfs_set[d];
                x->bfs_set[d] = 1;
            }
        return 0;
    }
    if (x->minimal_repair) {
        if (x->balanced && ensure_wload(x))
            return stop(x, IBR_ENOMEM);
        if (x->only_losses && x->sw_identity && x->r->hops && dist_scratch(x) < 0)
            return stop(x, IBR_ENOMEM);
        for (uint32_t d = 0; d < S; d++)
            if (x->bfs_set[d]) {
                bfs_fix(x, d, x->dist, x->queue, x->lost, x->mark, x->list);
                rep->destinations_rerouted++;
            }
        return 0;
    }
    /* the engine's own rules: the destinations whose routes crossed a lost
       cable take the routes the engine computes now */
    int any = 0;
    for (uint32_t d = 0; d < S; d++)
        any |= x->bfs_set[d];
    if (!any)
        return 0;
    int rc = route_full(&x->full, x, x->o);
    if (rc < 0) {
        rep->mode = IBR_REROUTE_FULL;
        strlcpy(rep->reason, "the saved engine cannot route the changed fabric",
                sizeof rep->reason);
        *x->out = x->full;
        x->full = NULL;
        return stop(x, rc);
    }
    if (strcmp(x->full->engine, saved_engine(db)) != 0)
        /* the saved engine declined and the fallback (allowed by the
           caller) routed: its columns would mix two engines' rules, so its
           whole routing is the answer */
        return stop_full(x, "the saved engine cannot route the changed fabric");
    for (uint32_t d = 0; d < S; d++)
        if (x->bfs_set[d]) {
            merge_column(x, x->full, d);
            rep->destinations_rerouted++;
        }
    return 0;
}

/* One entry of torus-2QoS's new routes. A switch with no saved row (one
   that came back) is written as it is, and the churn then compares every
   row. */
static void t2q_put(void *arg, uint32_t s, uint32_t l, unsigned port)
{
    rr *x = arg;
    if (l >= x->r->lft_size)
        return;
    if (x->swmap[s] != IBR_NONE) {
        set_entry(x, s, l, port);
        return;
    }
    uint8_t *e = x->r->lft + (size_t)s * x->r->lft_size + l;
    if (*e == port)
        return;
    *e = (uint8_t)port;
    x->touched[s] = 1;
    x->lid_touched[l] = 1;
    x->repaired++;
    x->merged = 1;
}

/* Per LID of the topology: its path SLs as a source and as a destination
   were copied from the saved routing (the same port, with a saved row), into
   a new array of lft_size bytes; NULL on allocation failure. */
static uint8_t *t2q_sl_kept(const rr *x)
{
    const ibr_routing_db *db = x->db;
    const ibr_topo *t = x->t;
    size_t L = x->r->lft_size;
    uint8_t *kept = ibr__calloc(x->ctx, L, 1);
    uint8_t *row = ibr__calloc(x->ctx, (size_t)db->max_lid + 1, 1);
    if (!kept || !row) {
        ibr__free(x->ctx, kept);
        ibr__free(x->ctx, row);
        return NULL;
    }
    for (size_t i = 0; i < db->n_sl_rows; i++)
        if (db->sl_src[i] && db->sl_src[i] <= db->max_lid)
            row[db->sl_src[i]] = 1;
    for (size_t l = 1; l < L; l++) {
        uint32_t gp = t->lid_port[l];
        uint16_t base = gp != IBR_NONE ? t->ports[gp].lid : 0;
        kept[l] = x->lidmap[l] != IBR_NONE && base && base < L && x->lidmap[base] != IBR_NONE &&
                  x->lidmap[base] <= db->max_lid && row[x->lidmap[base]];
    }
    ibr__free(x->ctx, row);
    return kept;
}

/* torus-2QoS: the marked destinations (every one when a cable or switch
   came back, since any route may now go the direct way) take the engine's
   routes on the torus built again from the saved configuration; the
   engine writes the path SLs and SL2VL maps as a full run would (after
   losses only, not again between two LIDs whose SLs were copied: they
   follow the positions, which the repair keeps). */
static int stage_t2q(rr *x, const chlist *cl)
{
    uint32_t S = x->t->n_sw, dests = 0;
    if (cl->new_cable || cl->new_switch)
        memset(x->bfs_set, 1, S);
    int losses = !cl->new_cable && !cl->new_switch;
    const uint8_t *lost = losses ? x->lost : NULL;
    uint8_t *kept = NULL;
    if (losses && x->db->sl_mode == IBR_SL_PER_PAIR && !x->by_number && !(kept = t2q_sl_kept(x)))
        return stop(x, IBR_ENOMEM);
    int rc = ibr__reroute_t2q(x->r, x->db, x->t, x->o, x->bfs_set, lost, kept, t2q_put, x,
                              &dests, x->whybuf, sizeof x->whybuf);
    ibr__free(x->ctx, kept);
    if (rc < 0)
        return stop(x, rc);
    if (rc > 0)
        return stop_full(x, x->whybuf);
    for (uint32_t d = 0; d < S; d++)
        x->rep->destinations_rerouted += x->bfs_set[d] != 0;
    x->merged = 1; /* SL2VL maps and path SLs rewritten: compared by the churn */
    return 0;
}

/* New or moved end ports, LIDs that lost their delivery: the column (and
   SLs) of another LID delivered at the same switch. */
static int stage_new_lids(rr *x)
{
    const ibr_topo *t = x->t;
    uint32_t S = t->n_sw;
    size_t L = x->r->lft_size;
    for (size_t l = 1; l < L; l++) {
        if (x->lidmap[l] != IBR_NONE || t->lid_port[l] == IBR_NONE)
            continue;
        uint32_t d = t->lid_sw[l];
        if (d == IBR_NONE) {
            for (uint32_t s = 0; s < S; s++)
                set_entry(x, s, l, IBR_NO_ROUTE);
            continue;
        }
        if (x->bfs_set[d] && !x->nue)
            continue; /* searched again with its switch */
        uint32_t sib = IBR_NONE;
        for (uint32_t i = x->bucket_off[d]; i < x->bucket_off[d + 1]; i++) {
            uint32_t l2 = x->bucket[i];
            if (x->lidmap[l2] == IBR_NONE)
                continue;
            if (sib == IBR_NONE ||
                t->nodes[t->port_node[t->lid_port[sib]]].type == IBR_NODE_SWITCH)
                sib = l2;
        }
        if (sib == IBR_NONE) {
            if (x->nue) {
                /* its own tree, joined to its switch alone */
                nue_fix(x, l);
                x->rep->destinations_rerouted += !x->bfs_set[d];
                x->bfs_set[d] = 1;
                continue;
            }
            if (!x->minimal_repair)
                return stop_full(x, "a new end port on a switch with no routed LID to copy");
            x->bfs_set[d] = 1;
            bfs_fix(x, d, x->dist, x->queue, x->lost, x->mark, x->list);
            x->rep->destinations_rerouted++;
            continue;
        }
        for (uint32_t s = 0; s < S; s++)
            set_entry(x, s, l, s == d ? t->lid_swport[l] : x->r->lft[(size_t)s * L + sib]);
        if (x->r->sl_mode == IBR_SL_PER_DEST) {
            x->r->sl[l] = x->r->sl[sib];
        } else if (x->r->sl_mode == IBR_SL_PER_PAIR) {
            uint32_t ns = ibr__n_src_slots(t);
            for (uint32_t k = 0; k < ns; k++)
                x->r->sl[(size_t)k * L + l] = x->r->sl[(size_t)k * L + sib];
        }
        x->sibling_copies++;
    }
    return 0;
}

/* nue's layering (reroute_layered.c), when the whole load is kept
   (x->wload_whole): the load of switch s's route toward LID l through
   port p (its busiest link, then its total), and the write of an entry
   that moves the traffic crossing s with it. */
static void nue_route_load(void *arg, uint32_t s, size_t l, unsigned p, int64_t *mx,
                           int64_t *sum)
{
    const rr *x = arg;
    uint32_t nb = x->nbt[(size_t)s * 256 + p];
    *mx = x->wload[(size_t)s * 256 + p];
    *sum = *mx;
    if (nb != IBR_NONE)
        *sum += path_load(x, nb, x->t->lid_sw[l], l, mx, NULL);
}

static void nue_move_entry(void *arg, uint32_t s, size_t l, unsigned p)
{
    rr *x = arg;
    uint32_t d = x->t->lid_sw[l];
    int64_t h = x->t->lid_swport[l] ? (int64_t)subtree_hosts(x, s, l) : 0;
    walk_load(x, s, d, l, -h);
    x->r->lft[(size_t)s * x->r->lft_size + l] = (uint8_t)p;
    walk_load(x, s, d, l, h);
}

/* A layered routing's moved paths into layers (reroute_layered.c); the
   verdict of its promise, built from every path of the repaired tables.
   Per-destination SLs stay per destination when no moved path needs
   another SL than its destination's, else become per-pair rows (made by
   ibr__reroute_layers only then). */
static int layered_sls(rr *x)
{
    int per_dest = x->r->sl_mode == IBR_SL_PER_DEST;
    /* nue's single layer, without path SLs: every path on SL 0, which the
       moved ones must fit (another layer would need SLs and SL2VL tables
       the routing does not have) */
    int one = x->r->sl_mode == IBR_SL_NONE;
    if (one) { /* every destination on SL 0 */
        ibr__free(x->ctx, x->r->sl);
        if (!(x->r->sl = ibr__calloc(x->ctx, x->r->lft_size, 1)))
            return stop(x, IBR_ENOMEM);
        x->r->sl_mode = IBR_SL_PER_DEST;
    }
    static const ibr_options def = IBR_OPTIONS_INIT;
    unsigned max_vls = x->o ? x->o->max_vls : def.max_vls;
    unsigned vls = one ? 1 : ibr__topo_min_oper_vls(x->t);
    ibr__layer_repair a;
    memset(&a, 0, sizeof a);
    a.t = x->t;
    a.db = x->db;
    a.r = x->r;
    a.swmap = x->swmap;
    a.lidmap = x->lidmap;
    a.lid_touched = x->lid_touched;
    a.sl_rows_same = per_dest || one;
    a.vls = vls < max_vls ? vls : max_vls;
    a.rowed = ibr__calloc(x->ctx, x->t->n_sw ? x->t->n_sw : 1, 1);
    if (x->nue && x->wload_whole) {
        a.route_load = nue_route_load;
        a.move_entry = nue_move_entry;
        a.arg = x;
    }
    if (!a.rowed)
        return stop(x, IBR_ENOMEM);
    int rc = ibr__reroute_layers(&a);
    /* entries it changed to find routes that fit: rows counted again */
    size_t L = x->r->lft_size;
    for (uint32_t s = 0; rc == 0 && s < x->t->n_sw; s++)
        if (a.rowed[s]) {
            if (x->identity)
                ibr__churn_recount(&x->chg, s, x->r->lft + (size_t)s * L,
                                   x->db->lft + (size_t)x->swmap[s] * x->db->lft_size, L);
            x->touched[s] = 1;
            x->rerouted_rows++;
        }
    ibr__free(x->ctx, a.rowed);
    x->repaired += a.entries_changed;
    if (rc < 0)
        return stop(x, rc);
    if (rc > 0) {
        strlcpy(x->whybuf, a.why, sizeof x->whybuf);
        return stop_full(x, x->whybuf);
    }
    if (one) {
        ibr__free(x->ctx, x->r->sl);
        x->r->sl = NULL;
        x->r->sl_mode = IBR_SL_NONE;
    }
    x->merged = 1; /* path SLs may differ: compared by the churn */
    x->paths_moved = a.paths_moved;
    ibr__result_set_layering(x->r, a.vls_used > x->r->vls_used ? a.vls_used : x->r->vls_used,
                             x->r->layers + a.layers_opened);
    return 0;
}

/* One walk of column l from switch s with the repaired entries, as
   ibr__unrouted_pairs_of() takes it: 1 when it reaches LID l's port. st
   keeps each switch's answer for the column (0 unknown, 1 on the walk, 2
   delivers, 3 does not); the switches it set are added to seen. */
static int walk_delivers(const rr *x, uint32_t s, size_t l, uint8_t *st, uint32_t *seen,
                         uint32_t *n_seen)
{
    const ibr_topo *t = x->t;
    const uint8_t *lft = x->r->lft;
    size_t L = x->r->lft_size;
    uint32_t dsw = t->lid_sw[l], first = *n_seen, cur = s;
    unsigned dport = t->lid_swport[l];
    uint8_t res;
    for (;;) {
        if (st[cur] >= 2) {
            res = st[cur];
            break;
        }
        if (st[cur] == 1) { /* a loop */
            res = 3;
            break;
        }
        st[cur] = 1;
        seen[(*n_seen)++] = cur;
        unsigned p = lft[(size_t)cur * L + l];
        if (cur == dsw && p == dport) {
            res = 2;
            break;
        }
        uint32_t nx = ibr__reroute_next_sw(t, cur, p);
        if (nx == IBR_NONE) {
            res = 3;
            break;
        }
        cur = nx;
    }
    for (uint32_t i = first; i < *n_seen; i++)
        if (st[seen[i]] == 1)
            st[seen[i]] = res;
    return res == 2;
}

/* Does ibr__unrouted_pairs_of() walk column l at all? Only the columns of
   end ports, within the LMC the routing covers, are. */
static int checked_column(const rr *x, size_t l)
{
    const ibr_topo *t = x->t;
    uint32_t gp = t->lid_port[l];
    return gp != IBR_NONE && t->lid_sw[l] != IBR_NONE &&
           t->nodes[t->port_node[gp]].type != IBR_NODE_SWITCH &&
           ((l - t->ports[gp].lid) >> x->r->lmc_cap) == 0;
}

/* The LIDs of block k (as bits) toward which switch s, which lost a
   cable, must be walked from: those whose entry changed, or whose saved
   step crosses a lost cable. Toward the others its step is the saved one
   over a cable still there, or the delivery, and a walk through s goes on
   as the saved routing's did, as through any switch that lost nothing. */
static uint64_t lost_walks(const rr *x, uint32_t s, size_t k)
{
    const ibr_topo *t = x->t;
    size_t L = x->r->lft_size, base = k * IBR__LFT_BLOCK;
    uint32_t nb = L - base < IBR__LFT_BLOCK ? (uint32_t)(L - base) : IBR__LFT_BLOCK;
    const uint8_t *now = x->r->lft + (size_t)s * L + base;
    const uint8_t *old = x->db->lft + (size_t)x->swmap[s] * x->db->lft_size + base;
    const ibr__node *n = &t->nodes[t->sw_node[s]];
    uint64_t m = 0;
    for (uint32_t b = 0; b < nb; b++) {
        unsigned p = now[b];
        int keep = p == old[b] &&
                   ((s == t->lid_sw[base + b] && p == t->lid_swport[base + b]) ||
                    (p >= 1 && p <= n->nports && x->okport[n->port_off + p]));
        m |= (uint64_t)!keep << b;
    }
    return m;
}

/* The touched columns of block k that need no walk from every source,
   cleared in only. A walk that meets neither a changed entry nor a switch
   that lost a cable and steps over a lost cable (lost_walks) follows the
   saved route over cables all still there, as the saved routing delivered
   it; so when every walk from a changed entry of a column, and from every
   switch that lost a cable (lostl, nlost) and does not keep its step,
   delivers, so does every walk from a source. Columns the check does not
   walk (checked_column) are cleared without a walk.
   sw[0..n-1]: the switches with a changed entry in the block; msk, lmsk:
   scratch. */
static void prove_block(const rr *x, uint8_t *only, size_t k, const uint32_t *sw, uint32_t n,
                        const uint32_t *lostl, uint32_t nlost, const uint32_t *comp,
                        uint64_t *msk, uint64_t *lmsk, uint8_t *st, uint32_t *seen)
{
    const ibr_topo *t = x->t;
    const ibr_routing_db *db = x->db;
    size_t L = x->r->lft_size, base = k * IBR__LFT_BLOCK;
    uint32_t nb = L - base < IBR__LFT_BLOCK ? (uint32_t)(L - base) : IBR__LFT_BLOCK;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *now = x->r->lft + (size_t)sw[i] * L + base;
        const uint8_t *old = db->lft + (size_t)x->swmap[sw[i]] * db->lft_size + base;
        msk[i] = 0;
        for (uint32_t b = 0; b < nb; b++)
            msk[i] |= (uint64_t)(now[b] != old[b]) << b;
    }
    for (uint32_t i = 0; i < nlost; i++)
        lmsk[i] = lost_walks(x, lostl[i], k);
    for (uint32_t b = 0; b < nb; b++) {
        size_t l = base + b;
        if (!only[l])
            continue;
        uint32_t dsw = t->lid_sw[l], n_seen = 0;
        if (!checked_column(x, l)) {
            only[l] = 0;
            continue;
        }
        int ok = dsw != IBR_NONE;
        for (uint32_t i = 0; ok && i < n; i++)
            if ((msk[i] >> b & 1) && comp[sw[i]] == comp[dsw])
                ok = walk_delivers(x, sw[i], l, st, seen, &n_seen);
        for (uint32_t i = 0; ok && i < nlost; i++)
            if ((lmsk[i] >> b & 1) && comp[lostl[i]] == comp[dsw])
                ok = walk_delivers(x, lostl[i], l, st, seen, &n_seen);
        for (uint32_t i = 0; i < n_seen; i++)
            st[seen[i]] = 0;
        if (ok)
            only[l] = 0;
    }
}

/* The touched columns the walk from every source must still check: a
   copy of lid_touched less those prove_block() clears, or NULL on
   ENOMEM. Only when the fabric lost elements and gained none (a new cable
   or switch joins pairs the saved routing never had to deliver) and the
   LIDs are the saved ones, whose changed blocks the churn counts
   (x->chg) list. */
static uint8_t *columns_to_walk(const rr *x)
{
    const ibr_topo *t = x->t;
    ibr_context *ctx = x->ctx;
    const ibr__churn *c = &x->chg;
    size_t L = x->r->lft_size;
    uint32_t S1 = t->n_sw ? t->n_sw : 1;
    uint8_t *only = ibr__malloc(ctx, L);
    if (!only)
        return NULL;
    memcpy(only, x->lid_touched, L);
    if (!x->only_losses || !x->identity || !c->blocks)
        return only;
    /* the changed (switch, block) pairs by block */
    size_t nbk = c->n_blocks;
    uint32_t *off = ibr__calloc(ctx, nbk + 1, sizeof *off);
    uint32_t *sw = ibr__mallocarray(ctx, c->blocks, sizeof *sw);
    uint32_t *comp = ibr__mallocarray(ctx, S1, sizeof *comp);
    uint32_t *seen = ibr__mallocarray(ctx, S1, sizeof *seen);
    uint64_t *msk = ibr__mallocarray(ctx, S1, sizeof *msk);
    uint64_t *lmsk = ibr__mallocarray(ctx, S1, sizeof *lmsk);
    uint32_t *lostl = ibr__mallocarray(ctx, S1, sizeof *lostl);
    uint8_t *st = ibr__calloc(ctx, S1, 1);
    if (off && sw && comp && seen && msk && lmsk && lostl && st) {
        uint32_t nlost = 0;
        for (uint32_t s = 0; s < t->n_sw; s++)
            if (x->lost[s])
                lostl[nlost++] = s;
        for (uint32_t s = 0; s < t->n_sw; s++)
            for (size_t k = 0; c->ent[s] && k < nbk; k++)
                off[k + 1] += c->blk[(size_t)s * nbk + k] != 0;
        for (size_t k = 0; k < nbk; k++)
            off[k + 1] += off[k];
        for (uint32_t s = 0; s < t->n_sw; s++)
            for (size_t k = 0; c->ent[s] && k < nbk; k++)
                if (c->blk[(size_t)s * nbk + k])
                    sw[off[k]++] = s;
        /* off[k] is now where block k's list ends */
        ibr__switch_components(t, comp, seen);
        for (size_t k = 0; k < nbk; k++) {
            uint32_t first = k ? off[k - 1] : 0;
            size_t base = k * IBR__LFT_BLOCK;
            size_t nb = L - base < IBR__LFT_BLOCK ? L - base : IBR__LFT_BLOCK;
            if (memchr(only + base, 1, nb))
                prove_block(x, only, k, sw + first, off[k] - first, lostl, nlost, comp, msk,
                            lmsk, st, seen);
        }
    }
    ibr__free(ctx, off);
    ibr__free(ctx, sw);
    ibr__free(ctx, comp);
    ibr__free(ctx, seen);
    ibr__free(ctx, msk);
    ibr__free(ctx, lmsk);
    ibr__free(ctx, lostl);
    ibr__free(ctx, st);
    return only;
}

/* The verdict ibr_result_verify() gives: every end-port pair the fabric
   connects is delivered, or the repair is refused. Only the columns the
   repair wrote are walked: every saved entry over a lost cable or switch
   was written, so an unwritten column follows the saved routes over
   cables that are all still there, and delivers what the saved routing
   delivered. Then the engine's promise. */
static int stage_check(rr *x)
{
    const ibr_topo *t = x->t;
    uint64_t np = 0;
    uint32_t psw;
    uint16_t plid;
    uint8_t *only = columns_to_walk(x);
    if (!only)
        return stop(x, IBR_ENOMEM);
    int urc = ibr__unrouted_pairs_of(&np, &psw, &plid, t, repaired_row, x->r, x->r->lmc_cap,
                               only);
    ibr__free(x->ctx, only);
    if (urc < 0)
        return stop(x, IBR_ENOMEM);
    if (np > 0) {
        snprintf(x->whybuf, sizeof x->whybuf,
                 "the repaired routing leaves %" PRIu64 " end-port pair(s) the fabric "
                 "connects without a route (e.g. switch 0x%016" PRIx64 " to LID %u)",
                 np, t->nodes[t->sw_node[psw]].guid, plid);
        return stop_full(x, x->whybuf);
    }
    if (x->layered)
        return layered_sls(x);
    if (x->updown) {
        /* the unmoved routes are the saved ones, legal under the saved
           orientation; the moved columns are checked against it */
        if (ibr__updown_check(&x->ud, x->lid_touched)) {
            strlcpy(x->whybuf, x->ud.why, sizeof x->whybuf);
            return stop_full(x, x->whybuf);
        }
        return 0;
    }
    /* torus-2QoS's repaired tables are those of the engine's own run on the
       saved torus (its routes toward the marked destinations, the others
       unchanged: tests/test_repair_t2q.c compares them with that run), so
       they keep the engine's promise as a full reroute does; walking every
       path again would cost more than that full reroute */
    if ((x->caps & IBR_CAP_DEADLOCK_FREE) && !x->torus) {
        size_t len = 0;
        int lrc = ibr_result_find_credit_loop(NULL, 0, &len, x->r);
        if (lrc == IBR_ENOMEM)
            return stop(x, IBR_ENOMEM);
        if (lrc == IBR_EDEADLOCK)
            return stop_full(x, "the repaired routing has a credit loop: the engine promises none");
    }
    return 0;
}

/* QoS programmed again, the report and the answer. */
static int stage_finish(rr *x, const chlist *cl)
{
    ibr_reroute_report *rep = x->rep;
    const char *qwhy = NULL;
    int q = apply_qos(x, x->qos, x->caps, &qwhy);
    if (q < 0)
        return stop(x, q);
    if (q > 0)
        return stop_full(x, qwhy);
    rep->mode = cl->new_switch || cl->missing_switch || cl->missing_cable || cl->new_cable
                    ? IBR_REROUTE_INCREMENTAL
                    : IBR_REROUTE_CACHED;
    rep->entries_repaired = x->repaired;
    churn(x, x->r, rep, !x->identity);
    char msg[200];
    int n = snprintf(msg, sizeof msg,
                     "reroute: %s, %" PRIu64 " entries repaired, %u destination "
                     "switches searched again",
                     rep->mode == IBR_REROUTE_CACHED
                         ? "end-port changes served from the saved tables"
                         : "incremental repair",
                     x->repaired, rep->destinations_rerouted);
    if (x->layered && n > 0 && (size_t)n < sizeof msg)
        snprintf(msg + n, sizeof msg - (size_t)n,
                 ", %" PRIu64 " paths placed into layers (routes chosen again on %u "
                 "switches), %" PRIu64 " path SLs changed",
                 x->paths_moved, x->rerouted_rows, rep->sls_changed);
    if (ibr__result_add_attempt(x->r, x->db->engine, 0, msg) < 0)
        return stop(x, IBR_ENOMEM);
    *x->out = x->r;
    x->r = NULL;
    return stop(x, 0);
}

/* The stages after the comparison: 1 when over (x->rc). */
static int run_stages(rr *x, chlist *cl, uint32_t *dmap, unsigned flags)
{
    const ibr_routing_db *db = x->db;
    if (stage_begin(x, cl, dmap))
        return 1;
    const char *why = NULL;
    unsigned qlv = x->qos ? ibr__qos_levels(x->qos) : 1;
    if (flags & IBR_REROUTE_FORCE_FULL)
        why = "a full reroute was asked for";
    else if ((qlv > 1 ? qlv : 1) != (db->qos ? db->qos_levels : 1))
        why = "the QoS levels asked for differ from the saved routing's";
    else if (cl->n == 0 || x->repair == IBR__REPAIR_DMODC)
        why = NULL;
    else
        why = full_reason(x, cl);
    if (why) /* decided before the saved tables are copied */
        return stop_full(x, why);
    int rc = build_mapped(x);
    if (rc < 0)
        return stop(x, rc);
    if (cl->n == 0)
        return stage_unchanged(x);
    if (x->repair == IBR__REPAIR_DMODC)
        return stop(x, dmodc_in_place(x->out, x, x->rep, x->o, x->qos, x->caps, dmap));
    x->minimal_repair =
        ((x->caps & IBR_CAP_MINIMAL) && db->sl_mode == IBR_SL_NONE) || x->layered;
    /* sssp and dfsssp balance their routes by link load: their moved
       paths are chosen by the all-to-all load they lift and lay
       (balanced_lid), against the saved routing's balance (dfsssp's then
       placed into layers) */
    x->balanced = x->minimal_repair && !x->nue && x->repair == IBR__REPAIR_BALANCED;
    x->only_losses = !cl->new_switch && !cl->new_cable && !cl->end_change;
    if (stage_prepare(x))
        return 1;
    if (x->updown)
        return stage_updown(x) || stage_new_lids(x) || stage_check(x) || stage_finish(x, cl);
    stage_broken(x, cl);
    if (x->torus)
        return stage_t2q(x, cl) || stage_new_lids(x) || stage_check(x) || stage_finish(x, cl);
    return stage_columns(x) || stage_new_lids(x) || stage_check(x) || stage_finish(x, cl);
}

int ibr_routing_db_route(ibr_result **out, ibr_reroute_report *rep_out,
                         const ibr_routing_db *db, const ibr_topo *t, const ibr_options *o,
                         unsigned int flags)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!db || !t || db->status != 0)
        return IBR_EINVAL;
    if (rep_out && IBR__VERSION_SIZE(report_sizes, rep_out->version) == 0)
        return IBR_EVERSION;
    if (o && IBR__VERSION_SIZE(options_sizes, o->version) == 0)
        return IBR_EVERSION;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    ibr_context *ctx = t->ctx;
    rr x;
    memset(&x, 0, sizeof x);
    x.db = db;
    x.t = t;
    x.ctx = ctx;
    x.o = o;
    x.out = out;
    x.rep = &rep;
    x.fallback_ok = (flags & IBR_REROUTE_FALLBACK) != 0;
    x.rc = IBR_ENOMEM;
    chlist cl;
    memset(&cl, 0, sizeof cl);
    cl.ctx = ctx;
    x.tmap_own = ibr__mallocarray(ctx, t->n_nodes ? t->n_nodes : 1, sizeof *x.tmap_own);
    uint32_t *dmap = ibr__mallocarray(ctx, db->n_nodes ? db->n_nodes : 1, sizeof *dmap);
    if (x.tmap_own && dmap)
        run_stages(&x, &cl, dmap, flags);
    int rc = x.rc;
    if (rc == 0 && *out) {
        /* the engine whose tables these are, the saved one or a fallback */
        strlcpy(rep.engine, (*out)->engine, sizeof rep.engine);
        rep.fallback = strcmp((*out)->engine, db->engine) != 0 &&
                       strcmp((*out)->engine, saved_engine(db)) != 0;
    }
    if (rep_out) {
        size_t sz = IBR__VERSION_SIZE(report_sizes, rep_out->version);
        unsigned v = rep_out->version;
        memcpy(rep_out, &rep, sz);
        rep_out->version = v;
    }
    rr_free(&x);
    ibr__free(ctx, cl.v);
    ibr__free(ctx, dmap);
    return rc;
}
