/*
 * The QoS manager: with QoS on (ibr_options::qos), the SL2VL and VL
 * arbitration tables a subnet manager programs into every port after the
 * routing, as OpenSM's QoS manager (osm_qos.c, `opensm -Q`) does:
 *
 * - switch external ports with a link get the qos_swe_ VL arbitration and
 *   high limit, and an SL2VL map for every input port (0..N) to them;
 * - switch port 0, an enhanced port 0, gets the qos_sw0_ VL arbitration,
 *   the qos_swe_ map from every input port 1..N and the qos_sw0_ map from
 *   itself (OpenSM programs port 0 as an output of the switch, then as an
 *   end port);
 * - CA and router ports with a link get qos_ca_ / qos_rtr_ tables;
 * - every VL is masked to the output port's operational VLs (VL 15, drop,
 *   stays), VL arbitration tables are cut to the port's capabilities;
 * - an engine with IBR_CAP_OWN_SL2VL (torus-2QoS) keeps its own maps on
 *   the switches and end ports it set, and torus-2QoS rewrites the VL
 *   arbitration of switch ports facing CAs (VL 0 kept, VL 4 moved to VL 1,
 *   the rest dropped) and warns on an unfair configuration.
 *
 * Then the hazard check: SLs the routing uses that the engine keeps on
 * distinct VLs but the programmed map merges (or drops) on some switch
 * port pair.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"
#include "core/internal.h"
#include "core/result_qos.h"
#include "qos/qos.h"
#include "qos/qos_int.h"

/* Data VLs port (node, port) operates with once the SM has brought the
 * link up: OpenSM sets OperVLs to the smaller VLCap of the two ends
 * (capped by its max_op_vls, default VL0-14); the topology holds that
 * (ibr_port_info::oper_vls: VLCap 8, ibsim's, unless the input says
 * otherwise). */
static unsigned qos_port_oper_vls(const ibr_topo *t, uint32_t node, unsigned port)
{
    const ibr__port *pt = ibr__tport(t, node, port);
    return pt->oper_vls ? pt->oper_vls : 8;
}

/* Whether switch node has an enhanced port 0 (SwitchInfo:EnhancedPort0).
 * ibnetdiscover files say so per switch ("enhanced port 0"; ibr gen writes
 * it, ibsim then reports it, and current switches have one), but the
 * topology does not keep it yet: every switch has one here. */
static int qos_switch_enhanced_port0(const ibr_topo *t, uint32_t node)
{
    (void)t;
    (void)node;
    return 1;
}

/* VLArbitrationHighCap / LowCap of a port: ibsim reports 8 and 8. */
static unsigned qos_port_vlarb_cap(const ibr_topo *t, uint32_t node, unsigned port, int high)
{
    (void)t;
    (void)node;
    (void)port;
    (void)high;
    return 8;
}

/* The VL mask of a port operating data VLs 0..vls-1 (OpenSM's
   (1 << (OperVLs - 1)) - 1 on the PortInfo encoding 1, 2, 3, 4, 5 for 1,
   2, 4, 8, 15 VLs). */
static unsigned vl_mask(unsigned vls)
{
    return vls >= 15 ? 15u : vls >= 8 ? 7u : vls >= 4 ? 3u : vls >= 2 ? 1u : 0u;
}

static int linked(const ibr_topo *t, uint32_t gp)
{
    return t->ports[gp].remote_node != IBR_NONE && t->ports[gp].state == IBR_LINK_ACTIVE;
}

/* A note of the QoS manager, kept in r's QoS section. */
static int add_note(ibr_result *r, const char *fmt, ...) IBR_PRINTF(2, 3);
static int add_note(ibr_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ibr__result_qos_vnote(r, fmt, ap);
    va_end(ap);
    return rc;
}

/* Fill the programmed VL arbitration of a port from table tb. */
static void program_vlarb(ibr__vlarb *v, const ibr_topo *t, uint32_t node, unsigned port,
                          const ibr_qos_table *tb, int torus_ca_port)
{
    unsigned vls = qos_port_oper_vls(t, node, port), mask = vl_mask(vls);
    memset(v, 0, sizeof *v);
    v->programmed = 1;
    if (vls <= 1) /* a single data VL: no arbitration, high limit 0 */
        return;
    v->high_limit = (uint8_t)tb->high_limit;
    for (int h = 0; h < 2; h++) {
        unsigned cap = qos_port_vlarb_cap(t, node, port, h);
        /* block 0 takes up to 32 entries, block 1 the rest (OpenSM sends
           cap % 32 entries there) */
        unsigned n0 = cap < 32 ? cap : 32, n1 = cap > 32 ? cap % 32 : 0;
        const ibr_vlarb_entry *src = h ? tb->vlarb_high : tb->vlarb_low;
        ibr_vlarb_entry *dst = h ? v->high : v->low;
        for (unsigned blk = 0; blk < 2; blk++) {
            unsigned len = blk ? n1 : n0;
            ibr_vlarb_entry b[32];
            memcpy(b, src + 32 * blk, len * sizeof *b);
            if (torus_ca_port) {
                /* torus-2QoS on a switch port facing a CA: only VLs 0 and
                   1 carry traffic there */
                unsigned next = 0;
                for (unsigned i = 0; i < len; i++) {
                    if (b[i].vl == 0 || b[i].vl == 4) {
                        ibr_vlarb_entry e = {(uint8_t)(b[i].vl ? 1 : 0), b[i].weight};
                        b[next++] = e;
                    }
                }
                for (unsigned i = next; i < len; i++)
                    b[i].vl = b[i].weight = 0;
            }
            for (unsigned i = 0; i < len; i++) {
                dst[32 * blk + i].vl = (uint8_t)(b[i].vl & mask);
                dst[32 * blk + i].weight = b[i].weight;
            }
        }
        if (h)
            v->n_high = (uint8_t)(n0 + n1);
        else
            v->n_low = (uint8_t)(n0 + n1);
    }
}

static void mask_map(uint8_t out[16], const uint8_t in[16], unsigned vls)
{
    unsigned mask = vl_mask(vls);
    for (unsigned sl = 0; sl < 16; sl++)
        out[sl] = (uint8_t)(in[sl] == 15 ? 15 : in[sl] & mask);
}

/* The SLs the routing's paths use (bit sl). */
static unsigned used_sls(const ibr_result *r)
{
    if (!r->sl) {
        unsigned all = 1;
        for (unsigned l = 1; l < r->qos_levels; l++)
            all |= (1u << (l * r->qos_stride)) & 0xffff;
        return all;
    }
    size_t n = (r->sl_mode == IBR_SL_PER_PAIR ? ibr__n_src_slots(r->topo) : 1) * r->lft_size;
    unsigned bits = 0;
    for (size_t i = 0; i < n && bits != 0xffff; i++)
        bits |= 1u << (r->sl[i] & 15);
    /* every QoS level's copy of the path SLs */
    unsigned all = bits;
    for (unsigned l = 1; l < r->qos_levels; l++)
        all |= (bits << (l * r->qos_stride)) & 0xffff;
    return all;
}

/* Count a hazard in its group, keyed by (sl_a, sl_b); the first port pair
   names the group. */
static void record_hazard(ibr_sl_hazard *tab, uint8_t *seen, uint32_t node, unsigned in,
                         unsigned out, unsigned a, unsigned b, unsigned vl, int masked)
{
    unsigned k = a * 16 + b;
    if (!seen[k]) {
        seen[k] = 1;
        ibr_sl_hazard h = {node, in, out, a, b, vl, masked, 0};
        tab[k] = h;
    }
    tab[k].count++;
}

/* torus-2QoS's checks of the configuration (its warnings go to the notes). */
static int torus_checks(ibr_result *r, const ibr_qos_config *q)
{
    int rc = 0;
    static const ibr_qos_target ep[3] = {IBR_QOS_CA, IBR_QOS_SW0, IBR_QOS_RTR};
    ibr_qos_table tb;
    char key[40];
    /* switch external ports: VLs 0-3 and 4-7 need equal total weights */
    ibr_qos_config_table(&tb, q, IBR_QOS_SWE);
    for (int h = 0; h < 2 && rc == 0; h++) {
        unsigned w[16] = {0};
        const ibr_vlarb_entry *e = h ? tb.vlarb_high : tb.vlarb_low;
        for (unsigned i = 0; i < IBR_VLARB_ENTRIES; i++)
            w[e[i].vl & 15] += e[i].weight;
        if (!(w[0] == w[1] && w[1] == w[2] && w[2] == w[3] && w[4] == w[5] && w[5] == w[6] &&
              w[6] == w[7])) {
            snprintf(key, sizeof key, "qos_swe_vlarb_%s", h ? "high" : "low");
            const char *from = ibr_qos_config_is_set(q, key) ? "configured qos_swe"
                               : (snprintf(key, sizeof key, "qos_vlarb_%s", h ? "high" : "low"),
                                  ibr_qos_config_is_set(q, key))
                                   ? "configured qos"
                                   : "default qos";
            rc = add_note(r,
                          "torus-2QoS: unfair VL arbitration on switch external ports: the "
                          "%s_vlarb_%s weights of VLs 0-3 (%u %u %u %u) or of VLs 4-7 (%u %u "
                          "%u %u) differ; each QoS level needs equal weights on its 4 VLs",
                          from, h ? "high" : "low", w[0], w[1], w[2], w[3], w[4], w[5], w[6],
                          w[7]);
        }
    }
    if (rc == 0 && tb.max_vls < 8 &&
        (ibr_qos_config_is_set(q, "qos_swe_max_vls") || ibr_qos_config_is_set(q, "qos_max_vls")))
        rc = add_note(r, "torus-2QoS: the configured %s_max_vls %u is below the 8 VLs its two "
                      "QoS levels need on switch external ports",
                      ibr_qos_config_is_set(q, "qos_swe_max_vls") ? "qos_swe" : "qos",
                      tb.max_vls);
    if (rc == 0 && ibr_qos_config_is_set(q, "qos_swe_sl2vl"))
        rc = add_note(r, "torus-2QoS overrides the configured qos_swe_sl2vl (it programs its "
                      "own SL2VL maps to stay deadlock-free)");
    for (int i = 0; i < 3 && rc == 0; i++) {
        const char *p = ibr__qos_prefix[ep[i]];
        ibr_qos_config_table(&tb, q, ep[i]);
        for (int h = 0; h < 2 && rc == 0; h++) {
            unsigned w = 0;
            const ibr_vlarb_entry *e = h ? tb.vlarb_high : tb.vlarb_low;
            for (unsigned k = 0; k < IBR_VLARB_ENTRIES; k++)
                if ((e[k].vl & 15) >= 2 && (e[k].vl & 15) < 8)
                    w += e[k].weight;
            snprintf(key, sizeof key, "%s_vlarb_%s", p, h ? "high" : "low");
            char from[64] = "";
            if (!ibr_qos_config_is_set(q, key))
                snprintf(from, sizeof from, "the %s qos_vlarb_%s, used for ",
                         ibr_qos_config_is_set(q, h ? "qos_vlarb_high" : "qos_vlarb_low")
                             ? "configured"
                             : "default",
                         h ? "high" : "low");
            if (w)
                rc = add_note(r, "torus-2QoS: %s%s gives VLs 2-7 weight %u on end port links, "
                              "which carry VLs 0 and 1 only",
                              from, key, w);
        }
        snprintf(key, sizeof key, "%s_max_vls", p);
        if (rc == 0 && tb.max_vls < 2 &&
            (ibr_qos_config_is_set(q, key) || ibr_qos_config_is_set(q, "qos_max_vls")))
            rc = add_note(r, "torus-2QoS: the configured %s_max_vls %u is below the 2 VLs its "
                          "QoS levels need on end port links",
                          ibr_qos_config_is_set(q, key) ? p : "qos", tb.max_vls);
        snprintf(key, sizeof key, "%s_sl2vl", p);
        if (rc == 0 && ibr_qos_config_is_set(q, key))
            rc = add_note(r, "torus-2QoS overrides the configured %s", key);
    }
    if (rc == 0 && ibr_qos_config_is_set(q, "qos_sl2vl"))
        rc = add_note(r, "torus-2QoS overrides the configured qos_sl2vl");
    return rc;
}

/* With QoS levels (ibr_qos_levels) and no VL arbitration configured for
   the family (nor globally): every level's VLs in the low table with the
   level's weight, nothing in the high table, so that the levels share the
   links in proportion to their weights. */
static void level_vlarb(ibr_qos_table *tb, const ibr_qos_config *q, const ibr_result *r,
                        const char *prefix)
{
    char key[40];
    unsigned k = r->qos_stride ? r->qos_stride : 1, n = 0;
    snprintf(key, sizeof key, "%s_vlarb_low", prefix);
    if (!ibr_qos_config_is_set(q, key) && !ibr_qos_config_is_set(q, "qos_vlarb_low")) {
        memset(tb->vlarb_low, 0, sizeof tb->vlarb_low);
        for (unsigned l = 0; l < r->qos_levels; l++)
            for (unsigned j = 0; j < k && l * k + j < 15 && n < IBR_VLARB_ENTRIES; j++) {
                tb->vlarb_low[n].vl = (uint8_t)(l * k + j);
                tb->vlarb_low[n++].weight = (uint8_t)ibr__qos_level_weight(q, l);
            }
    }
    snprintf(key, sizeof key, "%s_vlarb_high", prefix);
    if (!ibr_qos_config_is_set(q, key) && !ibr_qos_config_is_set(q, "qos_vlarb_high"))
        memset(tb->vlarb_high, 0, sizeof tb->vlarb_high);
}

/* Keep what the QoS manager starts from (r's qos_conf, pre_sl2vl in the
   layout off, pre_ep): a routing database saves it, and a reloaded routing
   is programmed again from it. */
static int snapshot(ibr_result *r, const ibr_qos_config *q, const uint32_t *off, size_t total)
{
    const ibr_topo *t = r->topo;
    ibr_context *ctx = r->ctx;
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr_qos_config_write(&b, q);
    char *conf = rc == 0 ? ibr__strdup(ctx, b.data ? b.data : "") : NULL;
    ibr_buffer_dispose(&b);
    uint8_t *sw = NULL, *ep = NULL, *ep_set = NULL;
    if (!conf)
        goto nomem;
    if (r->sl2vl) {
        if (!(sw = ibr__mallocarray(ctx, total ? total : 1, 1)))
            goto nomem;
        for (uint32_t s = 0; s < t->n_sw; s++) {
            size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
            memcpy(sw + off[s], r->sl2vl + r->sl2vl_off[s], w * w * 16);
        }
    }
    if (r->ep_sl2vl) {
        size_t np = t->n_ports ? t->n_ports : 1;
        ep = ibr__mallocarray(ctx, np, 16);
        ep_set = ibr__mallocarray(ctx, np, 1);
        if (!ep || !ep_set)
            goto nomem;
        memcpy(ep, r->ep_sl2vl, np * 16);
        memcpy(ep_set, r->ep_sl2vl_set, np);
    }
    ibr__result_qos_keep(r, conf, sw, ep, ep_set);
    return 0;
nomem:
    ibr__free(ctx, conf);
    ibr__free(ctx, sw);
    ibr__free(ctx, ep);
    ibr__free(ctx, ep_set);
    return IBR_ENOMEM;
}

/* The tables of one QoS programming: each port type's, the levels'
   arbitration applied, and what the engine owns. */
typedef struct qos_plan {
    ibr_qos_table swe, sw0, ca, rtr;
    int owns;   /* the engine programs its own SL2VL maps */
    int torus;  /* the engine is torus-2QoS */
    int levels; /* QoS levels share the VL arbitration */
} qos_plan;

static void plan_tables(qos_plan *pl, ibr_result *r, const ibr_qos_config *q, const char *engine,
                        unsigned int caps)
{
    pl->owns = (caps & IBR_CAP_OWN_SL2VL) != 0;
    pl->torus = !strcmp(engine, "torus-2QoS");
    ibr_qos_config_table(&pl->swe, q, IBR_QOS_SWE);
    ibr_qos_config_table(&pl->ca, q, IBR_QOS_CA);
    ibr_qos_config_table(&pl->rtr, q, IBR_QOS_RTR);
    ibr_qos_config_table(&pl->sw0, q, IBR_QOS_SW0);
    pl->levels = r->qos_levels > 1 && !pl->owns;
    if (pl->levels) {
        level_vlarb(&pl->swe, q, r, "qos_swe");
        level_vlarb(&pl->ca, q, r, "qos_ca");
        level_vlarb(&pl->rtr, q, r, "qos_rtr");
        level_vlarb(&pl->sw0, q, r, "qos_sw0");
    }
}

/* The switch maps to program (tab, in the layout off: the engine's maps,
   or the identity where it set none), a copy of them for the hazard check
   (engine_tab) and the zeroed arbitration of every port (va); what the QoS
   manager starts from kept in r. */
typedef struct qos_tables {
    uint32_t *off;
    size_t total;
    uint8_t *tab, *engine_tab;
    ibr__vlarb *va;
} qos_tables;

static void tables_free(ibr_context *ctx, qos_tables *tb)
{
    ibr__free(ctx, tb->off);
    ibr__free(ctx, tb->tab);
    ibr__free(ctx, tb->engine_tab);
    ibr__free(ctx, tb->va);
}

static int start_tables(qos_tables *tb, ibr_result *r, const ibr_qos_config *q)
{
    const ibr_topo *t = r->topo;
    ibr_context *ctx = r->ctx;
    memset(tb, 0, sizeof *tb);
    tb->off = ibr__sl2vl_layout(ctx, t, &tb->total);
    if (!tb->off)
        return IBR_ENOMEM;
    size_t total = tb->total;
    tb->tab = ibr__mallocarray(ctx, total ? total : 1, 1);
    tb->va = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *tb->va);
    int rc = tb->tab && tb->va ? snapshot(r, q, tb->off, total) : IBR_ENOMEM;
    if (rc == 0)
        rc = ibr__result_alloc_ep_sl2vl(r);
    if (rc < 0) {
        tables_free(ctx, tb);
        return rc;
    }
    if (r->sl2vl) {
        memcpy(tb->tab, r->sl2vl, total);
    } else {
        static const uint8_t ident[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        for (size_t i = 0; i < total; i += 16)
            memcpy(tb->tab + i, ident, 16);
    }
    tb->engine_tab = ibr__mallocarray(ctx, total ? total : 1, 1);
    if (!tb->engine_tab) {
        tables_free(ctx, tb);
        return IBR_ENOMEM;
    }
    memcpy(tb->engine_tab, tb->tab, total);
    return 0;
}

/* Every switch: the arbitration of its linked ports and of an enhanced
   port 0, the maps to them masked to their operational VLs. */
static void program_switches(qos_tables *tb, const ibr_result *r, const qos_plan *pl)
{
    const ibr_topo *t = r->topo;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t node = t->sw_node[s];
        const ibr__node *n = &t->nodes[node];
        size_t w = (size_t)n->nports + 1;
        int engine_maps = pl->owns && (!r->sl2vl_set || r->sl2vl_set[s]) && r->sl2vl;
        int esp0 = qos_switch_enhanced_port0(t, node);
        for (unsigned o = esp0 ? 0 : 1; o <= n->nports; o++) {
            uint32_t gp = n->port_off + o;
            if (o && !linked(t, gp))
                continue;
            if (o) {
                int ca_port = t->nodes[t->ports[gp].remote_node].type != IBR_NODE_SWITCH;
                program_vlarb(&tb->va[gp], t, node, o, &pl->swe,
                              pl->torus && engine_maps && ca_port);
            }
            unsigned vls = qos_port_oper_vls(t, node, o);
            for (unsigned in = 0; in <= n->nports; in++) {
                uint8_t *m = tb->tab + tb->off[s] + (in * w + o) * 16;
                mask_map(m, engine_maps ? m : pl->swe.sl2vl, vls);
            }
        }
        if (esp0) {
            /* port 0 as an end port: its own arbitration and (0, 0) map */
            program_vlarb(&tb->va[n->port_off], t, node, 0, &pl->sw0, 0);
            uint8_t *m = tb->tab + tb->off[s];
            mask_map(m, engine_maps ? m : pl->sw0.sl2vl, qos_port_oper_vls(t, node, 0));
        }
    }
}

/* Every linked CA and router port: its arbitration and its map. */
static void program_endports(qos_tables *tb, ibr_result *r, const qos_plan *pl)
{
    const ibr_topo *t = r->topo;
    for (uint32_t node = 0; node < t->n_nodes; node++) {
        const ibr__node *n = &t->nodes[node];
        if (n->type == IBR_NODE_SWITCH)
            continue;
        const ibr_qos_table *tbl = n->type == IBR_NODE_ROUTER ? &pl->rtr : &pl->ca;
        for (unsigned p = 1; p <= n->nports; p++) {
            uint32_t gp = n->port_off + p;
            if (!linked(t, gp))
                continue;
            program_vlarb(&tb->va[gp], t, node, p, tbl, 0);
            uint8_t *m = r->ep_sl2vl + (size_t)gp * 16;
            mask_map(m, pl->owns && r->ep_sl2vl_set[gp] ? m : tbl->sl2vl,
                     qos_port_oper_vls(t, node, p));
            r->ep_sl2vl_set[gp] = 1;
        }
    }
}

/* SLs the routing uses that the engine's maps keep apart but the
   programmed ones merge (or drop) on a switch port pair: r's hazards. */
static int check_hazards(ibr_result *r, const qos_tables *tb, const qos_plan *pl)
{
    const ibr_topo *t = r->topo;
    unsigned used = used_sls(r), used_sl[16], n_used = 0;
    for (unsigned a = 0; a < 16; a++)
        if (used >> a & 1)
            used_sl[n_used++] = a;
    uint8_t seen[256] = {0};
    ibr_sl_hazard *hz = ibr__calloc(r->ctx, 256, sizeof *hz);
    if (!hz)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t node = t->sw_node[s];
        const ibr__node *n = &t->nodes[node];
        size_t w = (size_t)n->nports + 1;
        for (unsigned in = 0; in <= n->nports; in++)
            for (unsigned o = 1; o <= n->nports; o++) {
                if (!linked(t, n->port_off + o))
                    continue;
                const uint8_t *pm = tb->tab + tb->off[s] + (in * w + o) * 16;
                const uint8_t *em = tb->engine_tab + tb->off[s] + (in * w + o) * 16;
                for (unsigned i = 0; i < n_used; i++) {
                    unsigned a = used_sl[i];
                    if (pm[a] == 15 && em[a] != 15)
                        record_hazard(hz, seen, node, in, o, a, a, 15, 0);
                    for (unsigned j = i + 1; j < n_used; j++) {
                        unsigned b = used_sl[j];
                        if (em[a] != em[b] && pm[a] == pm[b] && pm[a] != 15) {
                            /* masked: the unmasked configured (or engine) map
                               kept them apart */
                            const uint8_t *cm = pl->owns ? em : pl->swe.sl2vl;
                            record_hazard(hz, seen, node, in, o, a, b, pm[a], cm[a] != cm[b]);
                        }
                    }
                }
            }
    }
    size_t nh = 0;
    for (unsigned k = 0; k < 256; k++)
        nh += seen[k];
    int rc = 0;
    if (nh) {
        ibr_sl_hazard *list = ibr__mallocarray(r->ctx, nh, sizeof *list);
        if (!list) {
            rc = IBR_ENOMEM;
        } else {
            size_t j = 0;
            for (unsigned k = 0; k < 256; k++)
                if (seen[k])
                    list[j++] = hz[k];
            ibr__result_qos_set_hazards(r, list, nh);
        }
    }
    ibr__free(r->ctx, hz);
    return rc;
}

int ibr__qos_program(ibr_result *r, const ibr_qos_config *q, const char *engine,
                     unsigned int caps)
{
    qos_plan pl;
    plan_tables(&pl, r, q, engine, caps);
    qos_tables tb;
    int rc = start_tables(&tb, r, q);
    if (rc < 0)
        return rc;
    program_switches(&tb, r, &pl);
    program_endports(&tb, r, &pl);
    /* the programmed tables replace the engine's */
    ibr__result_replace_sl2vl(r, tb.tab, tb.off);
    ibr__result_qos_set_vlarb(r, tb.va);

    /* notes: what an owning engine overrides */
    if (pl.owns && pl.torus)
        rc = torus_checks(r, q);
    else if (pl.owns)
        for (unsigned f = 0; f < IBR__QOS_TARGETS && rc == 0; f++)
            if (q->fam[f].set & IBR__QOS_SL2VL)
                rc = add_note(r, "%s overrides the configured %s_sl2vl (it programs its own "
                              "SL2VL maps)", engine, ibr__qos_prefix[f]);
    if (rc == 0)
        rc = check_hazards(r, &tb, &pl);
    ibr__free(r->ctx, tb.engine_tab);
    return rc;
}

