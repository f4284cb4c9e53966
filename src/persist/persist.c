/*
 * Routing databases: a routing plus the fabric it was computed on, made
 * from a result, written as text and parsed back (format in persist.h).
 * The comparison with a topology and the rerouting are in reroute.c.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "core/result_qos.h"
#include "core/result_unicast.h"
#include "core/internal.h"
#include "engines/dmodc_int.h"
#include "formats/lex.h"
#include "persist/persist_int.h"
#include "route/registry.h"

/* ------------------------------------------------------------------ */
/* the database object                                                 */

void ibr_routing_db_destroy(ibr_routing_db *db)
{
    if (!db)
        return;
    ibr_context *ctx = db->ctx;
    for (size_t i = 0; i < db->n_settings; i++) {
        ibr__free(ctx, db->set_name[i]);
        ibr__free(ctx, db->set_value[i]);
    }
    ibr__free(ctx, db->set_name);
    ibr__free(ctx, db->set_value);
    ibr__free(ctx, db->nodes);
    ibr__free(ctx, db->ports);
    ibr__free(ctx, db->sw_node);
    ibr__free(ctx, db->lft);
    ibr__free(ctx, db->port_count);
    ibr__free(ctx, db->pairs);
    ibr__free(ctx, db->port_sw);
    ibr__free(ctx, db->lid_sw);
    ibr__free(ctx, db->sw_hosts);
    ibr__free(ctx, db->hops);
    ibr__free(ctx, db->upos);
    ibr__free(ctx, db->sl_src);
    ibr__free(ctx, db->sl);
    ibr__free(ctx, db->sl2vl);
    ibr__free(ctx, db->sl2vl_off);
    ibr__free(ctx, db->ep);
    ibr__free(ctx, db->qos_conf);
    ibr__free(ctx, db->torus_conf);
    ibr__free(ctx, db->tpos_guid);
    ibr__free(ctx, db->tpos_xyz);
    ibr__free(ctx, db->lid_port);
    ibr__dmodc_saved_free(db->dmodc, ctx);
    ibr__guidmap_free(ctx, &db->node_map);
    ibr__guidmap_free(ctx, &db->port_map);
    ibr__free(ctx, db);
}

const char *ibr_routing_db_last_error(const ibr_routing_db *db)
{
    return db ? db->last_error : "";
}

const char *ibr_routing_db_engine(const ibr_routing_db *db)
{
    return db && db->status == 0 ? db->engine : "";
}

uint64_t ibr_routing_db_seed(const ibr_routing_db *db)
{
    return db ? db->seed : 0;
}

uint32_t ibr_routing_db_switch_count(const ibr_routing_db *db)
{
    return db && db->status == 0 ? db->n_sw : 0;
}

static int db_new(ibr_routing_db **out, ibr_context *ctx)
{
    ibr_routing_db *db = ibr__calloc(ctx, 1, sizeof *db);
    if (!db)
        return IBR_ENOMEM;
    db->ctx = ctx;
    db->vls_used = 1;
    *out = db;
    return 0;
}

/* The lookup tables (GUID maps, LID owners) once nodes and ports are in. */
static int db_index(ibr_routing_db *db, char *msg)
{
    ibr_context *ctx = db->ctx;
    if (ibr__guidmap_reserve(ctx, &db->node_map, db->n_nodes) < 0 ||
        ibr__guidmap_reserve(ctx, &db->port_map, db->n_ports) < 0)
        return IBR_ENOMEM;
    db->lid_port = ibr__mallocarray(ctx, (size_t)db->max_lid + 1, sizeof *db->lid_port);
    if (!db->lid_port)
        return IBR_ENOMEM;
    for (size_t l = 0; l <= db->max_lid; l++)
        db->lid_port[l] = IBR_NONE;
    for (uint32_t i = 0; i < db->n_nodes; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        if (!n->guid || ibr__guidmap_get(&db->node_map, n->guid) != IBR_NONE)
            return ibr__err(msg, IBR_EPARSE,
                            IBR__MSG("DB001", "node 0x%016" PRIx64 " listed twice (or GUID 0)"),
                            n->guid);
        if (ibr__guidmap_put(ctx, &db->node_map, n->guid, i) < 0)
            return IBR_ENOMEM;
        for (unsigned p = 0; p <= n->nports; p++) {
            uint32_t gp = n->port_off + p;
            const ibr__dbport *pt = &db->ports[gp];
            int is_sw = n->type == IBR_NODE_SWITCH;
            if ((is_sw && p != 0) || (!is_sw && p == 0))
                continue;
            if (pt->guid && ibr__guidmap_get(&db->port_map, pt->guid) == IBR_NONE &&
                ibr__guidmap_put(ctx, &db->port_map, pt->guid, gp) < 0)
                return IBR_ENOMEM;
            if (!pt->lid)
                continue;
            uint32_t cnt = 1u << pt->lmc;
            if ((uint32_t)pt->lid + cnt - 1 > db->max_lid)
                return ibr__err(msg, IBR_EPARSE,
                                IBR__MSG("DB002", "LID %u of 0x%016" PRIx64 " beyond max LID %u"),
                                (unsigned)pt->lid, n->guid, (unsigned)db->max_lid);
            for (uint32_t l = pt->lid; l < pt->lid + cnt; l++) {
                if (db->lid_port[l] != IBR_NONE)
                    return ibr__err(msg, IBR_EPARSE,
                                    IBR__MSG("DB003", "LID %u owned twice"), (unsigned)l);
                db->lid_port[l] = gp;
            }
        }
    }
    return 0;
}

void ibr__row_port_counts(const uint8_t *row, size_t L, uint32_t *out)
{
    /* four partial counts: no store-to-load dependency between neighbours */
    uint32_t h[4][256];
    memset(h, 0, sizeof h);
    size_t l = 1;
    for (; l + 4 <= L; l += 4) {
        h[0][row[l]]++;
        h[1][row[l + 1]]++;
        h[2][row[l + 2]]++;
        h[3][row[l + 3]]++;
    }
    for (; l < L; l++)
        h[0][row[l]]++;
    for (unsigned p = 0; p < 256; p++)
        out[p] = h[0][p] + h[1][p] + h[2][p] + h[3][p];
}

/* Each saved row's entries per port (db->port_count), counted once here
   rather than in every repair that weighs ports by their load. */
static int db_port_counts(ibr_routing_db *db)
{
    size_t L = db->lft_size;
    db->port_count = ibr__calloc(db->ctx, (size_t)(db->n_sw ? db->n_sw : 1) * 256,
                                 sizeof *db->port_count);
    if (!db->port_count)
        return IBR_ENOMEM;
    for (uint32_t s = 0; db->lft && s < db->n_sw; s++) {
        const uint8_t *row = db->lft + (size_t)s * L;
        uint32_t *c = db->port_count + (size_t)s * 256;
        ibr__row_port_counts(row, L, c);
    }
    return 0;
}

/* The switch behind each switch port, the switch of each end-port LID
   and the end-port LIDs per switch, from the saved fabric. */
static void db_pairs_maps(ibr_routing_db *db)
{
    for (uint32_t gp = 0; gp < db->n_ports; gp++)
        db->port_sw[gp] = IBR_NONE;
    for (size_t l = 0; l <= db->max_lid; l++)
        db->lid_sw[l] = IBR_NONE;
    for (uint32_t i = 0; i < db->n_nodes; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        for (unsigned p = 1; p <= n->nports; p++) {
            const ibr__dbport *pt = &db->ports[n->port_off + p];
            uint32_t rn = pt->rguid ? ibr__guidmap_get(&db->node_map, pt->rguid) : IBR_NONE;
            if (rn == IBR_NONE || db->nodes[rn].type != IBR_NODE_SWITCH)
                continue;
            uint32_t rs = db->nodes[rn].sw;
            if (n->type == IBR_NODE_SWITCH) {
                db->port_sw[n->port_off + p] = rs;
                continue;
            }
            /* db_index() checked the LIDs against max_lid */
            for (uint32_t l = pt->lid, e = pt->lid ? pt->lid + (1u << pt->lmc) : 0; l < e; l++) {
                db->lid_sw[l] = rs;
                db->sw_hosts[rs]++;
            }
        }
    }
}

/* One block of up to DB_PAIRS_BLOCK LIDs from l0 of db_pairs_count():
   per LID, the switches are taken once every switch routed into them is
   (in-degrees over the entries), each passing its own end-port LIDs and
   those routed into it to its next switch; a path that breaks or loops
   passes nothing on. nx, px: the next switches and ports of the block,
   read row by row first (a row is contiguous, a column is not). */
#define DB_PAIRS_BLOCK 64
static void db_pairs_block(ibr_routing_db *db, size_t l0, size_t nb_l, uint32_t *nx,
                           uint8_t *px, uint32_t *indeg, uint32_t *q, uint64_t *acc)
{
    uint32_t S = db->n_sw;
    size_t L = db->lft_size;
    for (uint32_t s = 0; s < S; s++) {
        const uint8_t *row = db->lft + (size_t)s * L + l0;
        const ibr__dbnode *n = &db->nodes[s];
        uint32_t *o = nx + (size_t)s * DB_PAIRS_BLOCK;
        memcpy(px + (size_t)s * DB_PAIRS_BLOCK, row, nb_l);
        for (size_t j = 0; j < nb_l; j++)
            o[j] = row[j] && row[j] <= n->nports ? db->port_sw[n->port_off + row[j]] : IBR_NONE;
    }
    for (size_t j = 0; j < nb_l; j++) {
        size_t l = l0 + j;
        uint32_t d = l <= db->max_lid ? db->lid_sw[l] : IBR_NONE, *nxt = nx + j, nq = 0;
        if (d == IBR_NONE)
            continue;
        nxt[(size_t)d * DB_PAIRS_BLOCK] = IBR_NONE;
        memset(indeg, 0, (size_t)S * sizeof *indeg);
        for (uint32_t s = 0; s < S; s++)
            if (nxt[(size_t)s * DB_PAIRS_BLOCK] != IBR_NONE)
                indeg[nxt[(size_t)s * DB_PAIRS_BLOCK]]++;
        for (uint32_t s = 0; s < S; s++) {
            acc[s] = db->sw_hosts[s];
            if (indeg[s] == 0)
                q[nq++] = s;
        }
        for (uint32_t h = 0; h < nq; h++) {
            uint32_t s = q[h], nb = nxt[(size_t)s * DB_PAIRS_BLOCK];
            if (nb == IBR_NONE)
                continue;
            db->pairs[db->nodes[s].port_off + px[(size_t)s * DB_PAIRS_BLOCK + j]] += acc[s];
            acc[nb] += acc[s];
            if (--indeg[nb] == 0)
                q[nq++] = nb;
        }
    }
}

int ibr__db_pairs(ibr_routing_db *db)
{
    ibr_context *ctx = db->ctx;
    if (ibr__engine_repair(ctx, db->engine) != IBR__REPAIR_BALANCED || !db->lft) {
        ibr__free(ctx, db->pairs);
        db->pairs = NULL;
        return 0;
    }
    uint32_t S = db->n_sw, S1 = S ? S : 1;
    size_t np = db->n_ports ? db->n_ports : 1;
    int counted = db->pairs != NULL; /* read from the pairs records */
    if (!counted)
        db->pairs = ibr__calloc(ctx, np, sizeof *db->pairs);
    db->port_sw = ibr__mallocarray(ctx, np, sizeof *db->port_sw);
    db->lid_sw = ibr__mallocarray(ctx, (size_t)db->max_lid + 1, sizeof *db->lid_sw);
    db->sw_hosts = ibr__calloc(ctx, S1, sizeof *db->sw_hosts);
    uint64_t *acc = ibr__mallocarray(ctx, S1, sizeof *acc);
    uint32_t *indeg = ibr__mallocarray(ctx, S1, sizeof *indeg);
    uint32_t *q = ibr__mallocarray(ctx, S1, sizeof *q);
    uint32_t *nx = ibr__mallocarray(ctx, (size_t)S1 * DB_PAIRS_BLOCK, sizeof *nx);
    uint8_t *px = ibr__mallocarray(ctx, (size_t)S1 * DB_PAIRS_BLOCK, 1);
    int rc = 0;
    if (!db->pairs || !db->port_sw || !db->lid_sw || !db->sw_hosts || !acc || !indeg || !q ||
        !nx || !px) {
        rc = IBR_ENOMEM;
    } else {
        db_pairs_maps(db);
        for (size_t l0 = 1; !counted && l0 < db->lft_size; l0 += DB_PAIRS_BLOCK) {
            size_t nb_l = db->lft_size - l0 < DB_PAIRS_BLOCK ? db->lft_size - l0 : DB_PAIRS_BLOCK;
            db_pairs_block(db, l0, nb_l, nx, px, indeg, q, acc);
        }
    }
    ibr__free(ctx, acc);
    ibr__free(ctx, indeg);
    ibr__free(ctx, q);
    ibr__free(ctx, nx);
    ibr__free(ctx, px);
    return rc;
}

/* The nodes and ports of r's topology, switches first in switch index
   order, with the end-port maps the engine set (maps). */
static int db_copy_fabric(ibr_routing_db *db, const ibr_topo *t, const ibr__engine_maps *maps)
{
    ibr_context *ctx = db->ctx;
    uint32_t k = 0, gp = 0;
    uint32_t *order = ibr__mallocarray(ctx, t->n_nodes ? t->n_nodes : 1, sizeof *order);
    if (!order)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < t->n_sw; s++)
        order[k++] = t->sw_node[s];
    for (uint32_t i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].type != IBR_NODE_SWITCH)
            order[k++] = i;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        const ibr__node *n = &t->nodes[order[i]];
        ibr__dbnode *dn = &db->nodes[i];
        dn->guid = n->guid;
        dn->type = n->type;
        dn->nports = n->nports;
        dn->port_off = gp;
        dn->sw = i < t->n_sw ? i : IBR_NONE;
        if (i < t->n_sw)
            db->sw_node[i] = i;
        for (unsigned p = 0; p <= n->nports; p++, gp++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            ibr__dbport *dp = &db->ports[gp];
            dp->guid = pt->guid;
            dp->lid = pt->lid;
            dp->lmc = pt->lmc;
            if (p && pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE) {
                dp->rguid = t->nodes[pt->remote_node].guid;
                dp->rport = pt->remote_port;
                dp->rtype = t->nodes[pt->remote_node].type;
            }
            if (p && maps->ep && maps->ep_set && maps->ep_set[n->port_off + p] &&
                n->type != IBR_NODE_SWITCH) {
                if (ibr__grow(ctx, (void **)&db->ep, &db->cap_ep, db->n_ep + 1,
                              sizeof *db->ep) < 0) {
                    ibr__free(ctx, order);
                    return IBR_ENOMEM;
                }
                ibr__dbep *e = &db->ep[db->n_ep++];
                e->node = i;
                e->port = (uint8_t)p;
                memcpy(e->map, maps->ep + (size_t)(n->port_off + p) * 16, 16);
            }
        }
    }
    ibr__free(ctx, order);
    return 0;
}

/* The SL rows of r (none, one per destination, or one per source port
   with its base LID). */
static int db_copy_sls(ibr_routing_db *db, const ibr_result *r)
{
    const ibr_topo *t = r->topo;
    db->sl_mode = r->sl_mode;
    if (r->sl_mode == IBR_SL_PER_DEST) {
        db->n_sl_rows = 1;
    } else if (r->sl_mode == IBR_SL_PER_PAIR) {
        db->n_sl_rows = (size_t)t->n_end + t->n_sw;
    }
    if (!db->n_sl_rows)
        return 0;
    db->sl_src = ibr__calloc(db->ctx, db->n_sl_rows, sizeof *db->sl_src);
    db->sl = ibr__malloc(db->ctx, db->n_sl_rows * r->lft_size);
    if (!db->sl_src || !db->sl)
        return IBR_ENOMEM;
    memcpy(db->sl, r->sl, db->n_sl_rows * r->lft_size);
    if (r->sl_mode == IBR_SL_PER_PAIR) {
        for (uint32_t e = 0; e < t->n_end; e++)
            db->sl_src[e] = t->ports[t->end_port[e]].lid;
        for (uint32_t s = 0; s < t->n_sw; s++)
            db->sl_src[t->n_end + s] = t->ports[t->nodes[t->sw_node[s]].port_off].lid;
    }
    return 0;
}

/* The engine's switch SL2VL maps (sw_maps, in r's layout), repacked per
   switch. */
static int db_copy_sl2vl(ibr_routing_db *db, const ibr_result *r, const uint8_t *sw_maps)
{
    const ibr_topo *t = r->topo;
    size_t total = 0;
    db->sl2vl_off = ibr__mallocarray(db->ctx, t->n_sw ? t->n_sw : 1, sizeof *db->sl2vl_off);
    if (!db->sl2vl_off)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
        db->sl2vl_off[s] = total;
        total += w * w * 16;
    }
    if (!(db->sl2vl = ibr__malloc(db->ctx, total ? total : 1)))
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
        memcpy(db->sl2vl + db->sl2vl_off[s], sw_maps + r->sl2vl_off[s], w * w * 16);
    }
    return 0;
}

/* The engine settings r was routed with. */
static int db_copy_settings(ibr_routing_db *db, const ibr_result *r)
{
    if (!r->n_settings)
        return 0;
    ibr_context *ctx = db->ctx;
    db->set_name = ibr__calloc(ctx, r->n_settings, sizeof *db->set_name);
    db->set_value = ibr__calloc(ctx, r->n_settings, sizeof *db->set_value);
    if (!db->set_name || !db->set_value)
        return IBR_ENOMEM;
    for (size_t i = 0; i < r->n_settings; i++) {
        db->set_name[i] = ibr__strdup(ctx, r->settings[i].name);
        db->set_value[i] = ibr__strdup(ctx, r->settings[i].value);
        db->n_settings = i + 1;
        if (!db->set_name[i] || !db->set_value[i])
            return IBR_ENOMEM;
    }
    return 0;
}

static int num(ibr__cur *c, uint64_t max, uint64_t *out);

/* Add switch guid at x, y, z to the saved torus placement. */
static int add_tpos(ibr_routing_db *db, uint64_t guid, const unsigned xyz[3])
{
    ibr_context *ctx = db->ctx;
    if (db->n_tpos == db->cap_tpos) {
        uint32_t cap = db->cap_tpos ? 2 * db->cap_tpos : 64;
        uint64_t *g = ibr__reallocarray(ctx, db->tpos_guid, cap, sizeof *g);
        if (g)
            db->tpos_guid = g;
        uint8_t *c = ibr__reallocarray(ctx, db->tpos_xyz, cap, 3);
        if (c)
            db->tpos_xyz = c;
        if (!g || !c)
            return IBR_ENOMEM;
        db->cap_tpos = cap;
    }
    db->tpos_guid[db->n_tpos] = guid;
    for (unsigned d = 0; d < 3; d++)
        db->tpos_xyz[(size_t)db->n_tpos * 3 + d] = (uint8_t)xyz[d];
    db->n_tpos++;
    return 0;
}

/* torus-2QoS's torus (its artefacts): the configuration it was built on,
   derived or given, and the placement ("x y z guid" lines of
   opensm-torus.dump). 0 or IBR_ENOMEM. */
static int db_copy_torus(ibr_routing_db *db, const ibr_result *r)
{
    const void *conf = NULL, *dump = NULL;
    size_t conf_n = 0, dump_n = 0;
    if (ibr__engine_repair(r->ctx, r->engine) != IBR__REPAIR_TORUS ||
        ibr_result_find_artifact(&dump, &dump_n, r, "opensm-torus.dump") < 0)
        return 0;
    if (ibr_result_find_artifact(&conf, &conf_n, r, "torus-2QoS.conf") < 0) {
        for (size_t i = 0; i < r->n_settings && !conf; i++)
            if (!strcmp(r->settings[i].name, "torus-2QoS.config") && r->settings[i].value[0]) {
                conf = r->settings[i].value;
                conf_n = strlen(r->settings[i].value);
            }
    }
    if (!conf || !conf_n)
        return 0;
    ibr_context *ctx = db->ctx;
    if (!(db->torus_conf = ibr__malloc(ctx, conf_n + 1)))
        return IBR_ENOMEM;
    memcpy(db->torus_conf, conf, conf_n);
    db->torus_conf[conf_n] = 0;
    db->torus_conf_len = conf_n;
    ibr__lex lx;
    ibr__lex_init(&lx, dump, dump_n);
    while (ibr__lex_entry(&lx)) {
        ibr__cur line = lx.c;
        uint64_t v[3], guid;
        if (num(&line, 255, &v[0]) < 0 || num(&line, 255, &v[1]) < 0 ||
            num(&line, 255, &v[2]) < 0 || num(&line, UINT64_MAX, &guid) < 0)
            continue;
        unsigned xyz[3] = {(unsigned)v[0], (unsigned)v[1], (unsigned)v[2]};
        if (add_tpos(db, guid, xyz) < 0)
            return IBR_ENOMEM;
    }
    return 0;
}

int ibr_routing_db_from_result(ibr_routing_db **out, const ibr_result *r)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!r || r->status != 0 || !r->lft)
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    ibr_context *ctx = t->ctx;
    ibr_routing_db *db;
    if (db_new(&db, ctx) < 0)
        return IBR_ENOMEM;
    strlcpy(db->engine, r->engine, sizeof db->engine);
    db->seed = r->seed;
    db->vls_used = r->vls_used;
    db->layers = r->layers;
    db->max_lid = t->max_lid;
    db->lft_size = r->lft_size;
    db->n_nodes = t->n_nodes;
    db->n_sw = t->n_sw;
    db->n_ports = t->n_ports;
    db->nodes = ibr__mallocarray(ctx, t->n_nodes ? t->n_nodes : 1, sizeof *db->nodes);
    db->ports = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *db->ports);
    db->sw_node = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *db->sw_node);
    if (!db->nodes || !db->ports || !db->sw_node ||
        ibr__result_unicast_copy(&db->lft, &db->hops, r) < 0)
        goto nomem;
    /* the engine's maps: with QoS, those from before the QoS manager (it
       runs again on reload, from the saved configuration) */
    ibr__engine_maps maps = ibr__result_engine_maps(r);
    if (db_copy_fabric(db, t, &maps) < 0)
        goto nomem;
    if (db_copy_sls(db, r) < 0)
        goto nomem;
    if (ibr_result_has_qos(r)) {
        db->qos = 1;
        db->qos_levels = ibr__result_qos_levels(r);
        db->qos_stride = ibr__result_qos_stride(r);
        if (!(db->qos_conf = ibr__strdup(ctx, ibr__result_qos_conf(r))))
            goto nomem;
        db->qos_conf_len = strlen(db->qos_conf);
    }
    if ((maps.sw && db_copy_sl2vl(db, r, maps.sw) < 0) || db_copy_settings(db, r) < 0 ||
        db_copy_torus(db, r) < 0)
        goto nomem;
    if (r->upos) {
        if (!(db->upos = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *db->upos)))
            goto nomem;
        memcpy(db->upos, r->upos, t->n_sw * sizeof *db->upos);
    }
    char msg[IBR_ERRMSG_SIZE];
    int rc = db_index(db, msg);
    if (rc == 0)
        rc = db_port_counts(db);
    if (rc == 0)
        rc = ibr__dmodc_db_model(db);
    if (rc == 0)
        rc = ibr__db_pairs(db);
    if (rc < 0) {
        ibr_routing_db_destroy(db);
        return rc == IBR_ENOMEM ? IBR_ENOMEM : IBR_EINVAL;
    }
    *out = db;
    return 0;
nomem:
    ibr_routing_db_destroy(db);
    return IBR_ENOMEM;
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

#define MAGIC "ibroute-routing-db"

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define FNV_INIT 0xcbf29ce484222325ULL

static const char HEX[] = "0123456789abcdef";

static int put_hex_blob(ibr_buffer *out, ibr_context *ctx, const char *tag, const uint8_t *p,
                        size_t n)
{
    size_t tl = strlen(tag);
    int rc = ibr__buf_reserve(out, ctx, tl + 2 * n + 2);
    if (rc < 0)
        return rc;
    char *d = out->data + out->size;
    memcpy(d, tag, tl);
    d += tl;
    for (size_t i = 0; i < n; i++) {
        *d++ = HEX[p[i] >> 4];
        *d++ = HEX[p[i] & 15];
    }
    *d++ = '\n';
    *d = 0;
    out->size = (size_t)(d - out->data);
    return 0;
}

/* %XX-escape everything but printable ASCII other than '%' and ' '. */
static int put_escaped(ibr_buffer *out, ibr_context *ctx, const char *s)
{
    size_t n = strlen(s);
    int rc = ibr__buf_reserve(out, ctx, 3 * n + 2);
    if (rc < 0)
        return rc;
    char *d = out->data + out->size;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c > 0x20 && c < 0x7f && c != '%') {
            *d++ = (char)c;
        } else {
            *d++ = '%';
            *d++ = HEX[c >> 4];
            *d++ = HEX[c & 15];
        }
    }
    *d = 0;
    out->size = (size_t)(d - out->data);
    return 0;
}

/* Each line of text (NULL: none) as one record: key, the line escaped. */
static int put_lines(ibr_buffer *out, ibr_context *ctx, const char *key, const char *text)
{
    int rc = 0;
    for (const char *c = text; c && *c && rc == 0;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        char *line = ibr__malloc(ctx, n + 1);
        if (!line)
            return IBR_ENOMEM;
        memcpy(line, c, n);
        line[n] = 0;
        rc = ibr__buf_puts(out, ctx, key);
        if (rc == 0)
            rc = put_escaped(out, ctx, line);
        if (rc == 0)
            rc = ibr__buf_putc(out, ctx, '\n');
        ibr__free(ctx, line);
        c = nl ? nl + 1 : c + n;
    }
    return rc;
}

int ibr_routing_db_write(ibr_buffer *out, const ibr_routing_db *db)
{
    if (!out || !db || db->status != 0)
        return IBR_EINVAL;
    ibr_context *ctx = db->ctx;
    size_t mark;
    int rc = ibr__buf_begin(out, ctx, &mark);
    if (rc < 0)
        return rc;
    rc = ibr__buf_printf(out, ctx,
                         MAGIC " %d\n# ibroute routing database: a routing and the fabric it "
                               "was computed on (see ibroute/persist.h)\n"
                               "engine %s\nseed %" PRIu64 "\nvls %u %u\nmax_lid %u\n",
                         IBR_ROUTING_DB_FORMAT, db->engine[0] ? db->engine : "-", db->seed,
                         db->vls_used, db->layers, (unsigned)db->max_lid);
    if (rc == 0 && db->qos)
        rc = ibr__buf_printf(out, ctx, "qos %u %u\n", db->qos_levels, db->qos_stride);
    /* the QoS configuration, one qosconf record per line of its text */
    if (rc == 0 && db->qos)
        rc = put_lines(out, ctx, "qosconf ", db->qos_conf);
    for (size_t i = 0; i < db->n_settings && rc == 0; i++) {
        /* the name escaped too (a library's names are plain words, written
           as they are), so that one read back from a database with blanks
           in it still reads as one field */
        rc = ibr__buf_puts(out, ctx, "setting ");
        if (rc == 0)
            rc = put_escaped(out, ctx, db->set_name[i]);
        if (rc == 0)
            rc = ibr__buf_putc(out, ctx, ' ');
        if (rc == 0)
            rc = put_escaped(out, ctx, db->set_value[i]);
        if (rc == 0)
            rc = ibr__buf_putc(out, ctx, '\n');
    }
    /* torus-2QoS's torus: the configuration, one torusconf record per
       line, and the placement */
    if (rc == 0 && db->n_tpos)
        rc = put_lines(out, ctx, "torusconf ", db->torus_conf);
    for (uint32_t i = 0; db->torus_conf && i < db->n_tpos && rc == 0; i++) {
        const uint8_t *x = &db->tpos_xyz[(size_t)i * 3];
        rc = ibr__buf_printf(out, ctx, "toruspos 0x%016" PRIx64 " %u %u %u\n", db->tpos_guid[i],
                             x[0], x[1], x[2]);
    }
    static const char type_ch[] = "?CSR";
    size_t epi = 0; /* the end-port maps, in node and port order */
    for (uint32_t i = 0; i < db->n_nodes && rc == 0; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        rc = ibr__buf_printf(out, ctx, "node %c 0x%016" PRIx64 " %u\n",
                             n->type <= 3 ? type_ch[n->type] : '?', n->guid, (unsigned)n->nports);
        for (unsigned p = 0; p <= n->nports && rc == 0; p++) {
            const ibr__dbport *pt = &db->ports[n->port_off + p];
            if (pt->rguid)
                rc = ibr__buf_printf(out, ctx,
                                     "port %u 0x%016" PRIx64 " %u %u 0x%016" PRIx64 " %u\n", p,
                                     pt->guid, (unsigned)pt->lid, (unsigned)pt->lmc, pt->rguid,
                                     (unsigned)pt->rport);
            else
                rc = ibr__buf_printf(out, ctx, "port %u 0x%016" PRIx64 " %u %u\n", p, pt->guid,
                                     (unsigned)pt->lid, (unsigned)pt->lmc);
            while (rc == 0 && epi < db->n_ep && db->ep[epi].node == i && db->ep[epi].port == p)
                rc = put_hex_blob(out, ctx, "epsl2vl ", db->ep[epi++].map, 16);
        }
        if (n->sw == IBR_NONE || rc < 0)
            continue;
        rc = put_hex_blob(out, ctx, "lft ", db->lft + (size_t)n->sw * db->lft_size,
                          db->lft_size);
        if (rc == 0 && db->hops)
            rc = put_hex_blob(out, ctx, "hops ", db->hops + (size_t)n->sw * db->n_sw, db->n_sw);
        if (rc == 0 && db->upos)
            rc = ibr__buf_printf(out, ctx, "upos %" PRIu32 "\n", db->upos[n->sw]);
        if (rc == 0 && db->pairs) {
            rc = ibr__buf_printf(out, ctx, "pairs");
            for (unsigned p = 1; p <= n->nports && rc == 0; p++)
                rc = ibr__buf_printf(out, ctx, " %" PRIu64, db->pairs[n->port_off + p]);
            if (rc == 0)
                rc = ibr__buf_printf(out, ctx, "\n");
        }
        if (rc == 0 && db->sl2vl) {
            size_t w = (size_t)n->nports + 1;
            rc = put_hex_blob(out, ctx, "sl2vl ", db->sl2vl + db->sl2vl_off[n->sw], w * w * 16);
        }
    }
    if (rc == 0)
        rc = ibr__buf_printf(out, ctx, "slmode %s\n",
                             db->sl_mode == IBR_SL_PER_DEST   ? "dest"
                             : db->sl_mode == IBR_SL_PER_PAIR ? "pair"
                                                              : "none");
    for (size_t i = 0; i < db->n_sl_rows && rc == 0; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "sl %u ", (unsigned)db->sl_src[i]);
        rc = put_hex_blob(out, ctx, tag, db->sl + i * db->lft_size, db->lft_size);
    }
    if (rc == 0) {
        uint64_t h = fnv1a(FNV_INIT, out->data + mark, out->size - mark);
        rc = ibr__buf_printf(out, ctx, "end %016" PRIx64 "\n", h);
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

int ibr_result_write_db(ibr_buffer *out, const ibr_result *r)
{
    if (!out)
        return IBR_EINVAL;
    ibr_routing_db *db;
    int rc = ibr_routing_db_from_result(&db, r);
    if (rc < 0)
        return rc;
    rc = ibr_routing_db_write(out, db);
    ibr_routing_db_destroy(db);
    return rc;
}

/* ------------------------------------------------------------------ */
/* parsing                                                             */

/* The text is read with the formats' lexer (formats/lex.h): one record a
   line, a keyword and blank-separated fields; blank and '#' lines are
   skipped. Each record has its reader below (read_<record>); parse_all
   reads the magic line, dispatches the records up to the end line, then
   checks the whole (check_complete, check_cables). */

typedef struct dbparser {
    ibr_routing_db *db;
    ibr__lex lx;
    const char *buf; /* the text, for the checksum */
    char msg[IBR_ERRMSG_SIZE];
    size_t cap_nodes, cap_ports, cap_lft, cap_hops, cap_sl2vl, cap_sl2vl_off;
    int seen_max_lid, seen_slmode, seen_end;
    uint32_t cur;       /* the node being read, IBR_NONE before the first */
    unsigned next_port; /* its next port line */
} dbparser;

static int perr(dbparser *ps, const char *fmt, ...) IBR_PRINTF(2, 3);

static int perr(dbparser *ps, const char *fmt, ...)
{
    char m[IBR_ERRMSG_SIZE - 48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    snprintf(ps->msg, sizeof ps->msg, "routing database line %" PRIu32 ": %s", ps->lx.line, m);
    return IBR_EPARSE;
}

/* The next field of the line, empty at its end. */
static ibr__span field(ibr__cur *c)
{
    return ibr__cur_token(c);
}

/* A field that is a decimal or 0x-hexadecimal number up to max. */
static int num(ibr__cur *c, uint64_t max, uint64_t *out)
{
    ibr__span f = field(c);
    if (!f.n || ibr__span_num(f, IBR__NUM_DEC | IBR__NUM_0X, max, out) < 0)
        return -1;
    return 0;
}

static int line_done(ibr__cur *c)
{
    ibr__cur_skip_blanks(c);
    return ibr__cur_end(c);
}

static int hexv(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The rest of the line: exactly n bytes in lowercase hex. */
static int blob(ibr__cur *c, uint8_t *dst, size_t n)
{
    ibr__span f = field(c);
    if (!f.n || f.n != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int a = hexv(f.p[2 * i]), b = hexv(f.p[2 * i + 1]);
        if (a < 0 || b < 0)
            return -1;
        dst[i] = (uint8_t)(a << 4 | b);
    }
    return line_done(c) ? 0 : -1;
}

/* Undo put_escaped(): a copy of s with every %XX decoded. */
static int unescape(ibr_context *ctx, ibr__span f, char **out)
{
    char *s = ibr__malloc(ctx, f.n + 1);
    if (!s)
        return IBR_ENOMEM;
    size_t k = 0;
    const char *fe = f.p + f.n;
    for (const char *p = f.p; p < fe; p++) {
        if (*p == '%') {
            int a, b;
            if (fe - p < 3 || (a = hexv(p[1])) < 0 || (b = hexv(p[2])) < 0) {
                ibr__free(ctx, s);
                return IBR_EPARSE;
            }
            s[k++] = (char)(a << 4 | b);
            p += 2;
        } else {
            s[k++] = *p;
        }
    }
    s[k] = 0;
    *out = s;
    return 0;
}

/* "end <checksum>": FNV-1a of the text before this line. */
static int read_end(dbparser *ps, ibr__cur *c)
{
    uint64_t h = fnv1a(FNV_INIT, ps->buf, (size_t)(ps->lx.bol - ps->buf));
    ibr__span f = field(c);
    if (f.n != 16 || !line_done(c))
        return perr(ps, IBR__MSG("DB004", "bad end line"));
    uint64_t got = 0;
    for (size_t i = 0; i < f.n; i++) {
        int d = hexv(f.p[i]);
        if (d < 0)
            return perr(ps, IBR__MSG("DB005", "bad checksum"));
        got = got << 4 | (uint64_t)d;
    }
    if (got != h)
        return perr(ps,
                    IBR__MSG("DB006", "checksum mismatch: the database was altered or damaged"));
    ps->seen_end = 1;
    return 0;
}

static int read_engine(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr__span f = field(c);
    if (!f.n || f.n >= sizeof db->engine || !line_done(c))
        return perr(ps, IBR__MSG("DB007", "bad engine line"));
    if (!(f.n == 1 && *f.p == '-'))
        memcpy(db->engine, f.p, f.n);
    return 0;
}

static int read_seed(dbparser *ps, ibr__cur *c)
{
    if (num(c, UINT64_MAX, &ps->db->seed) < 0 || !line_done(c))
        return perr(ps, IBR__MSG("DB008", "bad seed"));
    return 0;
}

static int read_vls(dbparser *ps, ibr__cur *c)
{
    uint64_t v, w;
    if (num(c, 15, &v) < 0 || num(c, 15, &w) < 0 || !line_done(c))
        return perr(ps, IBR__MSG("DB009", "bad vls line"));
    ps->db->vls_used = (unsigned)v;
    ps->db->layers = (unsigned)w;
    return 0;
}

static int read_qos(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    uint64_t v, w;
    if (db->qos || num(c, 8, &v) < 0 || v < 1 || num(c, 15, &w) < 0 || !line_done(c) ||
        (v > 1 && w < 1) || (v - 1) * w > 15)
        return perr(ps,
                    IBR__MSG("DB010", "bad qos line (expected \"qos <levels 1..8> <SL stride>\")"));
    db->qos = 1;
    db->qos_levels = (unsigned)v;
    db->qos_stride = (unsigned)w;
    return 0;
}

/* The escaped rest of the line, unescaped and appended as one line to the
   text *buf of *len bytes (kept NUL-terminated); bad_escape is the
   message for a bad escape. */
static int append_escaped(dbparser *ps, ibr__cur *c, char **buf, size_t *len,
                          const char *bad_escape)
{
    ibr_context *ctx = ps->db->ctx;
    ibr__cur_skip_blanks(c);
    char *text = NULL;
    int rc = unescape(ctx, (ibr__span){c->p, (size_t)(c->e - c->p)}, &text);
    if (rc == IBR_EPARSE)
        return perr(ps, "%s", bad_escape);
    if (rc < 0)
        return rc;
    size_t n = strlen(text), have = *len;
    char *q = ibr__realloc(ctx, *buf, have + n + 2);
    if (!q) {
        ibr__free(ctx, text);
        return IBR_ENOMEM;
    }
    memcpy(q + have, text, n);
    q[have + n] = '\n';
    q[have + n + 1] = 0;
    *buf = q;
    *len = have + n + 1;
    ibr__free(ctx, text);
    return 0;
}

/* "qosconf <escaped line>": one line of the QoS configuration's text. */
static int read_qosconf(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    if (!db->qos)
        return perr(ps, IBR__MSG("DB011", "qosconf before the qos line"));
    return append_escaped(ps, c, &db->qos_conf, &db->qos_conf_len,
                          IBR__MSG("DB012", "bad escape in qosconf"));
}

/* "torusconf <escaped line>": a line of the torus-2QoS.conf text a
   torus-2QoS routing was built on. */
static int read_torusconf(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    return append_escaped(ps, c, &db->torus_conf, &db->torus_conf_len,
                          IBR__MSG("DB059", "bad escape in torusconf"));
}

/* "toruspos <switch GUID> <x> <y> <z>": where torus-2QoS placed a switch. */
static int read_toruspos(dbparser *ps, ibr__cur *c)
{
    uint64_t guid, v[3];
    if (num(c, UINT64_MAX, &guid) < 0 || num(c, 255, &v[0]) < 0 || num(c, 255, &v[1]) < 0 ||
        num(c, 255, &v[2]) < 0 || !line_done(c))
        return perr(ps, IBR__MSG("DB060", "bad toruspos line"));
    unsigned xyz[3] = {(unsigned)v[0], (unsigned)v[1], (unsigned)v[2]};
    return add_tpos(ps->db, guid, xyz);
}

/* "epsl2vl <16 hex bytes>" after the port line of a CA or router port. */
static int read_epsl2vl(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    uint32_t cur = ps->cur;
    unsigned next_port = ps->next_port;
    if (cur == IBR_NONE || next_port < 2 || db->nodes[cur].sw != IBR_NONE ||
        (db->n_ep && db->ep[db->n_ep - 1].node == cur &&
         db->ep[db->n_ep - 1].port == next_port - 1))
        return perr(ps,
                    IBR__MSG("DB013", "epsl2vl must follow the port line of a CA or router port"));
    if (ibr__grow(db->ctx, (void **)&db->ep, &db->cap_ep, db->n_ep + 1, sizeof *db->ep) < 0)
        return IBR_ENOMEM;
    ibr__dbep *e = &db->ep[db->n_ep];
    e->node = cur;
    e->port = (uint8_t)(next_port - 1);
    if (blob(c, e->map, 16) < 0)
        return perr(ps, IBR__MSG("DB014", "bad epsl2vl row (16 hex bytes)"));
    for (unsigned i = 0; i < 16; i++)
        if (e->map[i] > 15)
            return perr(ps, IBR__MSG("DB015", "bad epsl2vl row (a VL above 15)"));
    db->n_ep++;
    return 0;
}

static int read_max_lid(dbparser *ps, ibr__cur *c)
{
    uint64_t v;
    if (ps->seen_max_lid || num(c, 0xFFFF, &v) < 0 || !line_done(c))
        return perr(ps, IBR__MSG("DB016", "bad max_lid line"));
    ps->db->max_lid = (uint16_t)v;
    ps->db->lft_size = (size_t)v + 1;
    ps->seen_max_lid = 1;
    return 0;
}

/* "setting <name> <escaped value>" (the value may be empty). */
static int read_setting(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr_context *ctx = db->ctx;
    ibr__span nf = field(c);
    if (!nf.n)
        return perr(ps, IBR__MSG("DB017", "bad setting line"));
    ibr__span f = field(c);
    if (!line_done(c))
        return perr(ps, IBR__MSG("DB017", "bad setting line"));
    size_t n = db->n_settings;
    char **a = ibr__reallocarray(ctx, db->set_name, n + 1, sizeof *a);
    if (!a)
        return IBR_ENOMEM;
    db->set_name = a;
    a = ibr__reallocarray(ctx, db->set_value, n + 1, sizeof *a);
    if (!a)
        return IBR_ENOMEM;
    db->set_value = a;
    char *name = NULL, *val = NULL;
    int rc = unescape(ctx, nf, &name);
    if (rc == 0 && (rc = unescape(ctx, f, &val)) < 0)
        ibr__free(ctx, name);
    if (rc == IBR_EPARSE)
        return perr(ps, IBR__MSG("DB018", "bad escape in setting"));
    if (rc < 0)
        return rc;
    db->set_name[n] = name;
    db->set_value[n] = val;
    db->n_settings = n + 1;
    return 0;
}

/* The node being read is complete: all its ports, and an LFT for a switch. */
static int check_node_done(dbparser *ps)
{
    const ibr_routing_db *db = ps->db;
    if (ps->cur != IBR_NONE && ps->next_port <= db->nodes[ps->cur].nports)
        return perr(ps,
                    IBR__MSG("DB019", "node 0x%016" PRIx64 " lacks port %u"),
                    db->nodes[ps->cur].guid,
                    ps->next_port);
    if (ps->cur != IBR_NONE && db->nodes[ps->cur].sw != IBR_NONE && !db->nodes[ps->cur].has_lft)
        return perr(ps,
                    IBR__MSG("DB020", "switch 0x%016" PRIx64 " has no lft line"),
                    db->nodes[ps->cur].guid);
    return 0;
}

/* "node S|C|R 0x<GUID> <ports>": a new node, its ports zeroed. */
static int read_node(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr_context *ctx = db->ctx;
    uint64_t v, w;
    if (!ps->seen_max_lid)
        return perr(ps, IBR__MSG("DB021", "node before max_lid"));
    int rc = check_node_done(ps);
    if (rc < 0)
        return rc;
    ibr__span f = field(c);
    if (f.n != 1)
        return perr(ps, IBR__MSG("DB022", "bad node type"));
    int type = *f.p == 'S' ? IBR_NODE_SWITCH : *f.p == 'C' ? IBR_NODE_CA
                                              : *f.p == 'R' ? IBR_NODE_ROUTER
                                                            : -1;
    if (type < 0 || num(c, UINT64_MAX, &v) < 0 || num(c, 254, &w) < 0 || !line_done(c))
        return perr(ps,
                    IBR__MSG("DB023", "bad node line (expected \"node S|C|R 0x<GUID> <ports>\")"));
    if (type == IBR_NODE_SWITCH && db->n_nodes != db->n_sw)
        return perr(ps, IBR__MSG("DB024", "switch after other nodes"));
    if (ibr__grow(ctx, (void **)&db->nodes, &ps->cap_nodes, db->n_nodes + 1,
                  sizeof *db->nodes) < 0 ||
        ibr__grow(ctx, (void **)&db->ports, &ps->cap_ports, db->n_ports + w + 1,
                  sizeof *db->ports) < 0)
        return IBR_ENOMEM;
    ps->cur = db->n_nodes++;
    ibr__dbnode *n = &db->nodes[ps->cur];
    memset(n, 0, sizeof *n);
    n->guid = v;
    n->type = (uint8_t)type;
    n->nports = (uint8_t)w;
    n->port_off = db->n_ports;
    n->sw = type == IBR_NODE_SWITCH ? db->n_sw++ : IBR_NONE;
    memset(&db->ports[db->n_ports], 0, (w + 1) * sizeof *db->ports);
    db->n_ports += (uint32_t)w + 1;
    ps->next_port = 0;
    return 0;
}

/* "port <n> 0x<GUID> <LID> <LMC> [0x<remote GUID> <remote port>]". */
static int read_port(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    if (ps->cur == IBR_NONE)
        return perr(ps, IBR__MSG("DB025", "port outside a node"));
    ibr__dbnode *n = &db->nodes[ps->cur];
    uint64_t p, guid, lid, lmc, v, w;
    if (num(c, 255, &p) < 0 || p != ps->next_port || p > n->nports)
        return perr(ps, IBR__MSG("DB026", "bad port number (ports are listed 0..N in order)"));
    if (num(c, UINT64_MAX, &guid) < 0 || num(c, 0xFFFF, &lid) < 0 || num(c, 7, &lmc) < 0)
        return perr(ps, IBR__MSG("DB027", "bad port line"));
    ibr__dbport *pt = &db->ports[n->port_off + p];
    pt->guid = guid;
    pt->lid = (uint16_t)lid;
    pt->lmc = (uint8_t)lmc;
    if (!line_done(c)) {
        if (num(c, UINT64_MAX, &v) < 0 || num(c, 255, &w) < 0 || !line_done(c) || !v || p == 0)
            return perr(ps, IBR__MSG("DB028", "bad remote end of port %u"), (unsigned)p);
        pt->rguid = v;
        pt->rport = (uint8_t)w;
    }
    ps->next_port++;
    return 0;
}

/* The switch of a table row (lft, hops, sl2vl, upos); outside a switch
   NULL after reporting it (the row is then an IBR_EPARSE). */
static ibr__dbnode *table_switch(dbparser *ps)
{
    if (ps->cur == IBR_NONE || ps->db->nodes[ps->cur].sw == IBR_NONE) {
        perr(ps, IBR__MSG("DB029", "table outside a switch"));
        return NULL;
    }
    return &ps->db->nodes[ps->cur];
}

static int read_lft(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr__dbnode *n = table_switch(ps);
    if (!n)
        return IBR_EPARSE; /* table_switch() said why */
    if (n->has_lft)
        return perr(ps, IBR__MSG("DB030", "second lft line"));
    if (ibr__grow(db->ctx, (void **)&db->lft, &ps->cap_lft, (size_t)(n->sw + 1) * db->lft_size,
                  1) < 0)
        return IBR_ENOMEM;
    int rc = blob(c, db->lft + (size_t)n->sw * db->lft_size, db->lft_size);
    n->has_lft = 1;
    if (rc < 0)
        return perr(ps, IBR__MSG("DB031", "bad lft row (hex bytes of the expected length)"));
    return 0;
}

/* One hop row per switch: the switch count is known only at the end, so
   the rows are kept apart and their width checked then. */
static int read_hops(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr__dbnode *n = table_switch(ps);
    if (!n)
        return IBR_EPARSE; /* table_switch() said why */
    uint32_t s = n->sw;
    size_t len = (size_t)(c->e - c->p); /* the row with its blank in front */
    size_t cnt = len > 1 ? (len - 1) / 2 : 0;
    if (s != db->n_hop_rows)
        return perr(ps, IBR__MSG("DB032", "hops rows must follow every switch or none"));
    if (s && cnt != db->hop_width)
        return perr(ps, IBR__MSG("DB033", "hop rows of different lengths"));
    if (ibr__grow(db->ctx, (void **)&db->hops, &ps->cap_hops, (s + 1) * cnt + 1, 1) < 0)
        return IBR_ENOMEM;
    db->hop_width = cnt;
    int rc = blob(c, db->hops + (size_t)s * cnt, cnt);
    db->n_hop_rows++;
    if (rc < 0)
        return perr(ps, IBR__MSG("DB034", "bad hops row (hex bytes of the expected length)"));
    return 0;
}

/* "upos <place>": an up/down engine's place of the switch in its
   orientation of the links, on every switch or none (checked to be a
   permutation at the end). Databases written before it was kept have
   none, and their routings take a full reroute. */
static int read_upos(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr__dbnode *n = table_switch(ps);
    uint64_t v;
    if (!n)
        return IBR_EPARSE; /* table_switch() said why */
    if (n->sw != db->n_upos_rows)
        return perr(ps, IBR__MSG("DB061", "upos lines must follow every switch or none"));
    if (num(c, UINT32_MAX - 1, &v) < 0 || !line_done(c))
        return perr(ps, IBR__MSG("DB062", "bad upos line"));
    if (ibr__grow(db->ctx, (void **)&db->upos, &db->cap_upos, n->sw + 1, sizeof *db->upos) < 0)
        return IBR_ENOMEM;
    db->upos[n->sw] = (uint32_t)v;
    db->n_upos_rows++;
    return 0;
}

/* "pairs <count per port 1 .. n>": a balanced engine's saved load, the
   end-port pairs over each port of the switch (ibr__db_pairs), on every
   switch or none. Databases written before it have none, and their
   loads are counted when read. */
#define DB_PAIRS_MAX (UINT64_C(1) << 32) /* LIDs x LIDs */
static int read_pairs(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr__dbnode *n = table_switch(ps);
    if (!n)
        return IBR_EPARSE; /* table_switch() said why */
    if (n->sw != db->n_pairs_rows)
        return perr(ps, IBR__MSG("DB099", "pairs lines must follow every switch or none"));
    if (ibr__grow(db->ctx, (void **)&db->pairs, &db->cap_pairs,
                  (size_t)n->port_off + n->nports + 1, sizeof *db->pairs) < 0)
        return IBR_ENOMEM;
    db->pairs[n->port_off] = 0;
    for (unsigned p = 1; p <= n->nports; p++) {
        uint64_t v;
        if (num(c, DB_PAIRS_MAX, &v) < 0)
            return perr(ps, IBR__MSG("DB098", "bad pairs line (a count up to 2^32 per port)"));
        db->pairs[n->port_off + p] = v;
    }
    if (!line_done(c))
        return perr(ps, IBR__MSG("DB098", "bad pairs line (a count up to 2^32 per port)"));
    db->n_pairs_rows++;
    return 0;
}

/* The loads of read_pairs() on every switch, or none (then counted by
   ibr__db_pairs()), made one per port (the end ports' none). */
static int check_pairs(dbparser *ps)
{
    ibr_routing_db *db = ps->db;
    if (!db->n_pairs_rows)
        return 0;
    if (db->n_pairs_rows != db->n_sw)
        return perr(ps, IBR__MSG("DB099", "pairs lines must follow every switch or none"));
    if (ibr__grow(db->ctx, (void **)&db->pairs, &db->cap_pairs, db->n_ports ? db->n_ports : 1,
                  sizeof *db->pairs) < 0)
        return IBR_ENOMEM;
    uint32_t from = db->n_sw ? db->nodes[db->n_sw - 1].port_off + db->nodes[db->n_sw - 1].nports + 1
                             : 0;
    for (uint32_t gp = from; gp < db->n_ports; gp++)
        db->pairs[gp] = 0;
    return 0;
}

/* The places of read_upos(): each switch one, all distinct and below the
   switch count. 0, or the parse error. */
static int check_upos(dbparser *ps)
{
    ibr_routing_db *db = ps->db;
    if (!db->n_upos_rows)
        return 0;
    if (db->n_upos_rows != db->n_sw)
        return perr(ps, IBR__MSG("DB061", "upos lines must follow every switch or none"));
    uint8_t *seen = ibr__calloc(db->ctx, db->n_sw, 1);
    if (!seen)
        return IBR_ENOMEM;
    int rc = 0;
    for (uint32_t s = 0; s < db->n_sw && rc == 0; s++) {
        if (db->upos[s] >= db->n_sw || seen[db->upos[s]])
            rc = perr(ps,
                      IBR__MSG("DB063", "the upos places are not a permutation of the %u switches"),
                      (unsigned)db->n_sw);
        else
            seen[db->upos[s]] = 1;
    }
    ibr__free(db->ctx, seen);
    return rc;
}

static int read_sl2vl(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr__dbnode *n = table_switch(ps);
    if (!n)
        return IBR_EPARSE; /* table_switch() said why */
    uint32_t s = n->sw;
    size_t wd = (size_t)n->nports + 1;
    size_t need = db->sl2vl_total + wd * wd * 16;
    if (s != db->n_sl2vl_rows)
        return perr(ps, IBR__MSG("DB035", "sl2vl rows must follow every switch or none"));
    if (ibr__grow(db->ctx, (void **)&db->sl2vl, &ps->cap_sl2vl, need, 1) < 0 ||
        ibr__grow(db->ctx, (void **)&db->sl2vl_off, &ps->cap_sl2vl_off, s + 1,
                  sizeof *db->sl2vl_off) < 0)
        return IBR_ENOMEM;
    db->sl2vl_off[s] = db->sl2vl_total;
    int rc = blob(c, db->sl2vl + db->sl2vl_total, wd * wd * 16);
    for (size_t i = 0; rc == 0 && i < wd * wd * 16; i++)
        if (db->sl2vl[db->sl2vl_total + i] > 15)
            rc = -1;
    db->sl2vl_total = need;
    db->n_sl2vl_rows++;
    if (rc < 0)
        return perr(ps, IBR__MSG("DB036", "bad sl2vl row (hex bytes of the expected length)"));
    return 0;
}

static int read_slmode(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    if (ps->seen_slmode)
        return perr(ps, IBR__MSG("DB037", "second slmode line"));
    ps->seen_slmode = 1;
    ibr__span f = field(c);
    if (!f.n || !line_done(c))
        return perr(ps, IBR__MSG("DB038", "bad slmode line"));
    if (ibr__span_eq(f, "none"))
        db->sl_mode = IBR_SL_NONE;
    else if (ibr__span_eq(f, "dest"))
        db->sl_mode = IBR_SL_PER_DEST;
    else if (ibr__span_eq(f, "pair"))
        db->sl_mode = IBR_SL_PER_PAIR;
    else
        return perr(ps, IBR__MSG("DB039", "unknown slmode"));
    return 0;
}

/* "sl <source LID> <SL per destination LID>". */
static int read_sl(dbparser *ps, ibr__cur *c)
{
    ibr_routing_db *db = ps->db;
    ibr_context *ctx = db->ctx;
    uint64_t v;
    if (!ps->seen_slmode || db->sl_mode == IBR_SL_NONE)
        return perr(ps, IBR__MSG("DB040", "sl row without slmode dest or pair"));
    if (num(c, 0xFFFF, &v) < 0)
        return perr(ps, IBR__MSG("DB041", "bad sl line"));
    size_t n = db->n_sl_rows;
    if (db->sl_mode == IBR_SL_PER_DEST && n)
        return perr(ps, IBR__MSG("DB042", "second sl row in dest mode"));
    uint16_t *src = ibr__reallocarray(ctx, db->sl_src, n + 1, sizeof *src);
    if (src)
        db->sl_src = src;
    uint8_t *p = ibr__realloc(ctx, db->sl, (n + 1) * db->lft_size);
    if (p)
        db->sl = p;
    if (!src || !p)
        return IBR_ENOMEM;
    db->sl_src[n] = (uint16_t)v;
    if (blob(c, db->sl + n * db->lft_size, db->lft_size) < 0)
        return perr(ps, IBR__MSG("DB043", "bad sl row"));
    for (size_t i = 0; i < db->lft_size; i++)
        if (db->sl[n * db->lft_size + i] > 15)
            return perr(ps, IBR__MSG("DB044", "SL above 15"));
    db->n_sl_rows = n + 1;
    return 0;
}

static const struct {
    const char *key;
    int (*read)(dbparser *ps, ibr__cur *c);
} records[] = {
    {"end", read_end},         {"engine", read_engine},   {"seed", read_seed},
    {"vls", read_vls},         {"qos", read_qos},         {"qosconf", read_qosconf},
    {"epsl2vl", read_epsl2vl}, {"max_lid", read_max_lid}, {"setting", read_setting},
    {"node", read_node},       {"port", read_port},       {"lft", read_lft},
    {"hops", read_hops},       {"sl2vl", read_sl2vl},     {"slmode", read_slmode},
    {"sl", read_sl},           {"torusconf", read_torusconf}, {"toruspos", read_toruspos},
    {"upos", read_upos},       {"pairs", read_pairs},
};

/* The magic line "ibroute-routing-db <version>". */
static int read_magic(dbparser *ps)
{
    uint64_t v;
    if (!ibr__lex_line(&ps->lx) || !ibr__span_eq(field(&ps->lx.c), MAGIC))
        return perr(ps,
                    IBR__MSG("DB045",
                             "not an ibroute routing database (expected \"" MAGIC " %d\")"),
                    IBR_ROUTING_DB_FORMAT);
    if (num(&ps->lx.c, UINT32_MAX, &v) < 0 || !line_done(&ps->lx.c))
        return perr(ps, IBR__MSG("DB046", "bad format version"));
    if (v != IBR_ROUTING_DB_FORMAT)
        return perr(ps,
                    IBR__MSG("DB047", "format version %" PRIu64 ", this library reads version %d"),
                    v,
                    IBR_ROUTING_DB_FORMAT);
    return 0;
}

/* The records up to and including the end line. */
static int read_records(dbparser *ps)
{
    while (!ps->seen_end && ibr__lex_entry(&ps->lx)) {
        ibr__cur *c = &ps->lx.c;
        ibr__span key = field(c);
        size_t i = 0;
        while (i < sizeof records / sizeof *records && !ibr__span_eq(key, records[i].key))
            i++;
        if (i == sizeof records / sizeof *records)
            return perr(ps,
                        IBR__MSG("DB048", "unknown record \"%.*s\""),
                        (int)(key.n > 40 ? 40 : key.n), key.p);
        int rc = records[i].read(ps, c);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* After the end line: every part there and the parts agreeing. */
static int check_complete(dbparser *ps)
{
    ibr_routing_db *db = ps->db;
    if (!ps->seen_end)
        return perr(ps, IBR__MSG("DB049", "truncated: no end line"));
    if (ps->lx.next != ps->lx.end)
        return perr(ps, IBR__MSG("DB050", "text after the end line"));
    if (!ps->seen_max_lid || !ps->seen_slmode)
        return perr(ps, IBR__MSG("DB051", "incomplete database (max_lid or slmode missing)"));
    int rc = check_node_done(ps);
    if (rc < 0)
        return rc;
    if (db->n_hop_rows && (db->n_hop_rows != db->n_sw || db->hop_width != db->n_sw))
        return perr(ps,
                    IBR__MSG("DB052", "hop rows do not match the %u switches"), (unsigned)db->n_sw);
    if ((rc = check_upos(ps)) < 0 || (rc = check_pairs(ps)) < 0)
        return rc;
    if (db->n_sl2vl_rows && db->n_sl2vl_rows != db->n_sw)
        return perr(ps,
                    IBR__MSG("DB053", "sl2vl rows do not match the %u switches"),
                    (unsigned)db->n_sw);
    if (db->sl_mode != IBR_SL_NONE && !db->n_sl_rows)
        return perr(ps, IBR__MSG("DB054", "slmode without sl rows"));
    if (db->qos) {
        /* the saved QoS configuration must read back */
        ibr_qos_config *q = NULL;
        int qrc = ibr_qos_config_create(&q, db->ctx);
        if (qrc < 0)
            return qrc;
        qrc = ibr_qos_config_parse(q, db->qos_conf ? db->qos_conf : "", db->qos_conf_len);
        if (qrc == IBR_EPARSE)
            qrc = perr(ps,
                       IBR__MSG("DB055", "the saved QoS configuration: %s"),
                       ibr_qos_config_last_error(q));
        ibr_qos_config_destroy(q);
        if (qrc < 0)
            return qrc;
    }
    return 0;
}

/* Every cable listed at both ends (the remote types filled in), every
   LFT entry a port of its switch. */
static int check_cables(dbparser *ps)
{
    ibr_routing_db *db = ps->db;
    for (uint32_t i = 0; i < db->n_nodes; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        for (unsigned p = 1; p <= n->nports; p++) {
            ibr__dbport *pt = &db->ports[n->port_off + p];
            if (!pt->rguid)
                continue;
            uint32_t rn = ibr__guidmap_get(&db->node_map, pt->rguid);
            if (rn == IBR_NONE || pt->rport > db->nodes[rn].nports || pt->rport == 0)
                return ibr__err(ps->msg, IBR_EPARSE,
                                IBR__MSG("DB056", "routing database: port %u of 0x%016" PRIx64
                                                  " is cabled to an unknown port"),
                                p, n->guid);
            const ibr__dbport *back = &db->ports[db->nodes[rn].port_off + pt->rport];
            if (back->rguid != n->guid || back->rport != p)
                return ibr__err(ps->msg, IBR_EPARSE,
                                IBR__MSG("DB057",
                                         "routing database: the cable on port %u of 0x%016" PRIx64
                                         " is not listed at its other end"),
                                p, n->guid);
            pt->rtype = db->nodes[rn].type;
        }
    }
    for (size_t i = 0; i < db->n_sw * db->lft_size; i++) {
        uint8_t p = db->lft[i];
        if (p != IBR_NO_ROUTE && p > db->nodes[i / db->lft_size].nports) {
            return ibr__err(ps->msg, IBR_EPARSE,
                            IBR__MSG("DB058",
                                     "routing database: an LFT entry of switch 0x%016" PRIx64
                                     " names port %u, beyond the switch"),
                            db->nodes[i / db->lft_size].guid, (unsigned)p);
        }
    }
    return 0;
}

static int parse_all(dbparser *ps)
{
    ibr_routing_db *db = ps->db;
    int rc = read_magic(ps);
    if (rc == 0)
        rc = read_records(ps);
    if (rc == 0)
        rc = check_complete(ps);
    if (rc < 0)
        return rc;
    db->sw_node = ibr__mallocarray(db->ctx, db->n_sw ? db->n_sw : 1, sizeof *db->sw_node);
    if (!db->sw_node)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < db->n_sw; s++)
        db->sw_node[s] = s;
    rc = db_index(db, ps->msg);
    if (rc == 0)
        rc = check_cables(ps);
    if (rc == 0)
        rc = db_port_counts(db);
    if (rc == 0)
        rc = ibr__dmodc_db_model(db);
    if (rc == 0)
        rc = ibr__db_pairs(db);
    return rc;
}

int ibr_routing_db_parse(ibr_routing_db **out, ibr_context *ctx, const char *buf, size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!buf && len)
        return IBR_EINVAL;
    ctx = ibr__ctx(ctx);
    ibr_routing_db *db;
    if (db_new(&db, ctx) < 0)
        return IBR_ENOMEM;
    dbparser ps;
    memset(&ps, 0, sizeof ps);
    ps.db = db;
    ps.buf = buf ? buf : "";
    ps.cur = IBR_NONE;
    ibr__lex_init(&ps.lx, ps.buf, len);
    int rc = parse_all(&ps);
    if (rc == IBR_ENOMEM) {
        ibr_routing_db_destroy(db);
        return rc;
    }
    if (rc < 0) {
        /* a failed database: only its message */
        ibr_routing_db *bad;
        ibr_routing_db_destroy(db);
        if (db_new(&bad, ctx) < 0)
            return IBR_ENOMEM;
        bad->status = rc;
        strlcpy(bad->last_error, ps.msg, sizeof bad->last_error);
        *out = bad;
        return rc;
    }
    *out = db;
    return 0;
}
