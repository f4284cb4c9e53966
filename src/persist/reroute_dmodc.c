/*
 * Repair in place of a saved dmodc routing (engines/dmodc_int.h): the
 * saved fabric described as dmodc reads one, from the database and the
 * current topology, and the engine's repair run over the saved tables.
 * The description takes the saved switch cables from the database (each
 * remote found through the topology's port when the cable is still
 * there, by GUID otherwise) and its end ports, so that end ports and
 * leaves lost since are in it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engines/dmodc_int.h"
#include "persist/churn.h"
#include "persist/persist_int.h"
#include "route/registry.h"

/* The db switch at the other end of saved port p of db switch i. */
static uint32_t saved_remote(const ibr_routing_db *db, const ibr_topo *t, const uint32_t *tmap,
                             const uint32_t *dmap, uint32_t i, unsigned p)
{
    const ibr__dbport *dp = &db->ports[db->nodes[i].port_off + p];
    uint32_t tn = t ? dmap[i] : IBR_NONE, rn = IBR_NONE;
    if (tn != IBR_NONE && p <= t->nodes[tn].nports) {
        const ibr__port *pt = ibr__tport(t, tn, p);
        if (pt->remote_node != IBR_NONE && t->nodes[pt->remote_node].guid == dp->rguid)
            rn = tmap[pt->remote_node];
    }
    if (rn == IBR_NONE)
        rn = ibr__guidmap_get(&db->node_map, dp->rguid);
    if (rn == IBR_NONE || db->nodes[rn].type != IBR_NODE_SWITCH || rn == i)
        return IBR_NONE;
    return db->nodes[rn].sw;
}

/* The saved fabric: switches, cables and end ports as the database has
   them (its end ports are in the topology order of the save); t, tmap
   and dmap (or NULL) only look the remotes up faster. 0 or IBR_ENOMEM. */
static int saved_fabric(ibr__dmodc_fabric *f, ibr_context *ctx, const ibr_routing_db *db,
                        const ibr_topo *t, const uint32_t *tmap, const uint32_t *dmap)
{
    uint32_t n_adj = 0, n_ep = 0;
    for (uint32_t i = 0; i < db->n_nodes; i++) {
        const ibr__dbnode *nd = &db->nodes[i];
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__dbport *dp = &db->ports[nd->port_off + p];
            if (dp->rtype != IBR_NODE_SWITCH || !dp->rguid)
                continue;
            if (nd->sw != IBR_NONE)
                n_adj++;
            else
                n_ep += dp->lid != 0;
        }
    }
    if (ibr__dmodc_fabric_alloc(f, ctx, db->n_sw, n_adj, n_ep) < 0)
        return IBR_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < db->n_sw; i++) {
        const ibr__dbnode *nd = &db->nodes[i];
        f->adj_off[i] = k;
        f->nports[i] = nd->nports;
        f->guid[i] = nd->guid;
        f->sw_lid[i] = db->ports[nd->port_off].lid;
        f->sw_lmc[i] = db->ports[nd->port_off].lmc;
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__dbport *dp = &db->ports[nd->port_off + p];
            if (!dp->rguid)
                continue;
            f->busy[(size_t)i * 4 + p / 64] |= (uint64_t)1 << (p % 64);
            if (dp->rtype != IBR_NODE_SWITCH) {
                f->hosts[i]++;
                continue;
            }
            uint32_t r = saved_remote(db, t, tmap, dmap, i, p);
            if (r != IBR_NONE && k < n_adj)
                f->adj[k++] = (ibr__adj){.sw = r, .port = (uint8_t)p, .rport = dp->rport};
        }
    }
    f->adj_off[db->n_sw] = k;
    /* end ports: those with a LID cabled to a switch, in saved order */
    for (uint32_t i = db->n_sw; i < db->n_nodes; i++) {
        const ibr__dbnode *nd = &db->nodes[i];
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__dbport *dp = &db->ports[nd->port_off + p];
            if (dp->rtype != IBR_NODE_SWITCH || !dp->rguid || !dp->lid || f->n_ep >= n_ep)
                continue;
            uint32_t rn = ibr__guidmap_get(&db->node_map, dp->rguid);
            if (rn == IBR_NONE || db->nodes[rn].sw == IBR_NONE)
                continue;
            f->ep_sw[f->n_ep] = db->nodes[rn].sw;
            f->ep_port[f->n_ep] = dp->rport;
            f->ep_lid[f->n_ep] = dp->lid;
            f->ep_lmc[f->n_ep] = dp->lmc;
            f->n_ep++;
        }
    }
    f->max_lid = db->max_lid;
    return 0;
}

_Static_assert(IBR__DMODC_BLOCK == IBR__LFT_BLOCK, "one LFT block on both sides");

int ibr__dmodc_db_model(ibr_routing_db *db)
{
    static const ibr_options def = IBR_OPTIONS_INIT;
    if (ibr__engine_repair(db->ctx, db->engine) != IBR__REPAIR_DMODC)
        return 0;
    ibr__dmodc_fabric f;
    memset(&f, 0, sizeof f);
    if (saved_fabric(&f, db->ctx, db, NULL, NULL, NULL) < 0)
        return IBR_ENOMEM;
    /* the default options' LMC; a repair asked for another builds its own */
    unsigned lmc = def.lmc == IBR_LMC_TOPO ? 7 : def.lmc;
    int rc = ibr__dmodc_saved_new(&db->dmodc, db->ctx, &f, lmc);
    return rc < 0 ? rc : 0;
}

int ibr__reroute_dmodc(ibr__dmodc_repair *a, const ibr_routing_db *db, const uint32_t *tmap,
                       const uint32_t *dmap, ibr__churn *chg)
{
    ibr__dmodc_fabric f;
    memset(&f, 0, sizeof f);
    /* the repair counts its changes into the churn's blocks */
    a->blk = chg->blk;
    a->n_blocks = chg->n_blocks;
    a->sw_blocks = chg->sw_blocks;
    /* the saved model built with the database, else the saved fabric now */
    const ibr__dmodc_fabric *sf = ibr__dmodc_saved_fabric(db->dmodc, a->lmc_cap);
    int rc = sf ? 0 : saved_fabric(&f, a->t->ctx, db, a->t, tmap, dmap);
    if (rc == 0) {
        a->old = sf ? sf : &f;
        a->saved = sf ? db->dmodc : NULL;
        rc = ibr__dmodc_repair_run(a);
        a->old = NULL;
        a->saved = NULL;
    }
    if (rc == 0) {
        for (uint32_t s = 0; s < a->t->n_sw; s++)
            chg->ent[s] += a->changed[s];
        chg->entries += a->changed_total;
        chg->blocks += a->blocks_total;
    }
    ibr__dmodc_fabric_free(&f, a->t->ctx);
    return rc;
}
