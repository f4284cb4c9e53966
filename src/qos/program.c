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

static int add_note(ibr_result *r, const char *fmt, ...) IBR_PRINTF(2, 3);
static int add_note(ibr_result *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **n = ibr__reallocarray(r->ctx, r->qos_notes, r->n_qos_notes + 1, sizeof *n);
    if (!n)
        return IBR_ENOMEM;
    r->qos_notes = n;
    if (!(n[r->n_qos_notes] = ibr__strdup(r->ctx, buf)))
        return IBR_ENOMEM;
    r->n_qos_notes++;
    ibr__log(r->ctx, IBR_LOG_INFO, "QoS: %s", buf);
    return 0;
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
    ibr__free(ctx, r->qos_conf);
    ibr__free(ctx, r->pre_sl2vl);
    ibr__free(ctx, r->pre_ep);
    ibr__free(ctx, r->pre_ep_set);
    r->qos_conf = conf;
    r->pre_sl2vl = sw;
    r->pre_ep = ep;
    r->pre_ep_set = ep_set;
    return 0;
nomem:
    ibr__free(ctx, conf);
    ibr__free(ctx, sw);
    ibr__free(ctx, ep);
    ibr__free(ctx, ep_set);
    return IBR_ENOMEM;
}

int ibr__qos_program(ibr_result *r, const ibr_qos_config *q, const char *engine,
                     unsigned int caps)
{
    const ibr_topo *t = r->topo;
    ibr_context *ctx = r->ctx;
    int owns = (caps & IBR_CAP_OWN_SL2VL) != 0;
    int torus = !strcmp(engine, "torus-2QoS");
    ibr_qos_table swe, ca, rtr;
    ibr_qos_config_table(&swe, q, IBR_QOS_SWE);
    ibr_qos_config_table(&ca, q, IBR_QOS_CA);
    ibr_qos_config_table(&rtr, q, IBR_QOS_RTR);
    int levels = r->qos_levels > 1 && !(caps & IBR_CAP_OWN_SL2VL);
    if (levels) {
        level_vlarb(&swe, q, r, "qos_swe");
        level_vlarb(&ca, q, r, "qos_ca");
        level_vlarb(&rtr, q, r, "qos_rtr");
    }

    /* the engine's view, kept for the hazard check: its maps, or the
       default where it set none */
    uint8_t *engine_tab = NULL;
    size_t total = 0;
    uint32_t *off = ibr__sl2vl_layout(ctx, t, &total);
    if (!off)
        return IBR_ENOMEM;
    uint8_t *tab = ibr__mallocarray(ctx, total ? total : 1, 1);
    ibr__vlarb *va = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *va);
    int rc = tab && va ? snapshot(r, q, off, total) : IBR_ENOMEM;
    if (rc == 0)
        rc = ibr__result_alloc_ep_sl2vl(r);
    if (rc < 0) {
        ibr__free(ctx, off);
        ibr__free(ctx, tab);
        ibr__free(ctx, va);
        return rc;
    }
    if (r->sl2vl) {
        memcpy(tab, r->sl2vl, total);
    } else {
        static const uint8_t ident[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        for (size_t i = 0; i < total; i += 16)
            memcpy(tab + i, ident, 16);
    }
    engine_tab = ibr__mallocarray(ctx, total ? total : 1, 1);
    if (!engine_tab) {
        ibr__free(ctx, off);
        ibr__free(ctx, tab);
        ibr__free(ctx, va);
        return IBR_ENOMEM;
    }
    memcpy(engine_tab, tab, total);

    ibr_qos_table sw0;
    ibr_qos_config_table(&sw0, q, IBR_QOS_SW0);
    if (levels)
        level_vlarb(&sw0, q, r, "qos_sw0");
    for (uint32_t s = 0; s < t->n_sw; s++) {
        uint32_t node = t->sw_node[s];
        const ibr__node *n = &t->nodes[node];
        size_t w = (size_t)n->nports + 1;
        int engine_maps = owns && (!r->sl2vl_set || r->sl2vl_set[s]) && r->sl2vl;
        int esp0 = qos_switch_enhanced_port0(t, node);
        for (unsigned o = esp0 ? 0 : 1; o <= n->nports; o++) {
            uint32_t gp = n->port_off + o;
            if (o && !linked(t, gp))
                continue;
            if (o) {
                int ca_port = t->nodes[t->ports[gp].remote_node].type != IBR_NODE_SWITCH;
                program_vlarb(&va[gp], t, node, o, &swe, torus && engine_maps && ca_port);
            }
            unsigned vls = qos_port_oper_vls(t, node, o);
            for (unsigned in = 0; in <= n->nports; in++) {
                uint8_t *m = tab + off[s] + (in * w + o) * 16;
                mask_map(m, engine_maps ? m : swe.sl2vl, vls);
            }
        }
        if (esp0) {
            /* port 0 as an end port: its own arbitration and (0, 0) map */
            program_vlarb(&va[n->port_off], t, node, 0, &sw0, 0);
            uint8_t *m = tab + off[s];
            mask_map(m, engine_maps ? m : sw0.sl2vl, qos_port_oper_vls(t, node, 0));
        }
    }
    for (uint32_t node = 0; node < t->n_nodes; node++) {
        const ibr__node *n = &t->nodes[node];
        if (n->type == IBR_NODE_SWITCH)
            continue;
        const ibr_qos_table *tb = n->type == IBR_NODE_ROUTER ? &rtr : &ca;
        for (unsigned p = 1; p <= n->nports; p++) {
            uint32_t gp = n->port_off + p;
            if (!linked(t, gp))
                continue;
            program_vlarb(&va[gp], t, node, p, tb, 0);
            uint8_t *m = r->ep_sl2vl + (size_t)gp * 16;
            mask_map(m, owns && r->ep_sl2vl_set[gp] ? m : tb->sl2vl, qos_port_oper_vls(t, node, p));
            r->ep_sl2vl_set[gp] = 1;
        }
    }
    ibr__free(ctx, r->sl2vl);
    ibr__free(ctx, r->sl2vl_off);
    r->sl2vl = tab;
    r->sl2vl_off = off;
    ibr__free(ctx, r->vlarb);
    r->vlarb = va;
    r->qos = 1;

    /* notes: what an owning engine overrides */
    if (owns && torus)
        rc = torus_checks(r, q);
    else if (owns)
        for (unsigned f = 0; f < IBR__QOS_TARGETS && rc == 0; f++)
            if (q->fam[f].set & IBR__QOS_SL2VL)
                rc = add_note(r, "%s overrides the configured %s_sl2vl (it programs its own "
                              "SL2VL maps)", engine, ibr__qos_prefix[f]);

    /* hazards */
    unsigned used = used_sls(r), used_sl[16], n_used = 0;
    for (unsigned a = 0; a < 16; a++)
        if (used >> a & 1)
            used_sl[n_used++] = a;
    ibr_sl_hazard *hz = NULL;
    uint8_t seen[256] = {0};
    if (rc == 0 && !(hz = ibr__calloc(ctx, 256, sizeof *hz)))
        rc = IBR_ENOMEM;
    for (uint32_t s = 0; s < t->n_sw && rc == 0; s++) {
        uint32_t node = t->sw_node[s];
        const ibr__node *n = &t->nodes[node];
        size_t w = (size_t)n->nports + 1;
        for (unsigned in = 0; in <= n->nports; in++)
            for (unsigned o = 1; o <= n->nports; o++) {
                if (!linked(t, n->port_off + o))
                    continue;
                const uint8_t *pm = tab + off[s] + (in * w + o) * 16;
                const uint8_t *em = engine_tab + off[s] + (in * w + o) * 16;
                for (unsigned i = 0; i < n_used; i++) {
                    unsigned a = used_sl[i];
                    if (pm[a] == 15 && em[a] != 15)
                        record_hazard(hz, seen, node, in, o, a, a, 15, 0);
                    for (unsigned j = i + 1; j < n_used; j++) {
                        unsigned b = used_sl[j];
                        if (em[a] != em[b] && pm[a] == pm[b] && pm[a] != 15) {
                            /* masked: the unmasked configured (or engine) map
                               kept them apart */
                            const uint8_t *cm = owns ? em : swe.sl2vl;
                            record_hazard(hz, seen, node, in, o, a, b, pm[a], cm[a] != cm[b]);
                        }
                    }
                }
            }
    }
    size_t nh = 0;
    for (unsigned k = 0; k < 256; k++)
        nh += seen[k];
    if (rc == 0 && nh) {
        ibr_sl_hazard *list = ibr__mallocarray(ctx, nh, sizeof *list);
        if (!list)
            rc = IBR_ENOMEM;
        else {
            size_t j = 0;
            for (unsigned k = 0; k < 256; k++)
                if (seen[k])
                    list[j++] = hz[k];
            r->hazards = list;
            r->n_hazards = nh;
        }
    }
    ibr__free(ctx, hz);
    ibr__free(ctx, engine_tab);
    return rc;
}

/* ---- getters ---- */

void ibr__qos_set_levels(ibr_result *r, unsigned levels, unsigned caps)
{
    if (levels <= 1) {
        r->qos_levels = r->qos_stride = 0;
        return;
    }
    unsigned k = (caps & IBR_CAP_OWN_SL2VL) ? 8 : r->vls_used ? r->vls_used : 1;
    r->qos_levels = levels;
    r->qos_stride = k;
    if (!(caps & IBR_CAP_OWN_SL2VL))
        r->vls_used = levels * k;
}

int ibr_result_has_qos(const ibr_result *r)
{
    return r && r->qos;
}

int ibr_result_endport_sl2vl(uint8_t out[16], const ibr_result *r, uint32_t node,
                             unsigned int port)
{
    if (!out)
        return IBR_EINVAL;
    if (!r || node >= r->topo->n_nodes)
        return IBR_ENOTFOUND;
    const ibr__node *n = &r->topo->nodes[node];
    if (n->type == IBR_NODE_SWITCH)
        return IBR_EINVAL;
    if (port < 1 || port > n->nports)
        return IBR_ERANGE;
    for (unsigned k = 0; k < 16; k++)
        out[k] = (uint8_t)k;
    if (r->ep_sl2vl)
        memcpy(out, r->ep_sl2vl + ((size_t)n->port_off + port) * 16, 16);
    return 0;
}

int ibr_result_vlarb(ibr_vlarb *out, const ibr_result *r, uint32_t node, unsigned int port)
{
    if (!out)
        return IBR_EINVAL;
    if (!r || node >= r->topo->n_nodes)
        return IBR_ENOTFOUND;
    const ibr__node *n = &r->topo->nodes[node];
    if (port > n->nports || (port == 0 && n->type != IBR_NODE_SWITCH))
        return IBR_ERANGE;
    const ibr__vlarb *v = r->vlarb ? &r->vlarb[n->port_off + port] : NULL;
    if (!v || !v->programmed)
        return IBR_ENOTFOUND;
    memset(out, 0, sizeof *out);
    out->high_limit = v->high_limit;
    out->n_high = v->n_high;
    out->n_low = v->n_low;
    memcpy(out->high, v->high, sizeof out->high);
    memcpy(out->low, v->low, sizeof out->low);
    return 0;
}

size_t ibr_result_qos_note_count(const ibr_result *r)
{
    return r ? r->n_qos_notes : 0;
}

const char *ibr_result_qos_note(const ibr_result *r, size_t i)
{
    return r && i < r->n_qos_notes ? r->qos_notes[i] : NULL;
}

unsigned int ibr_result_qos_levels(const ibr_result *r)
{
    return r && r->qos_levels > 1 ? r->qos_levels : 1;
}

unsigned int ibr_result_path_sl_level(const ibr_result *r, unsigned int level, uint16_t src_lid,
                                      uint16_t dst_lid)
{
    if (!r || level >= ibr_result_qos_levels(r))
        return 0xFF;
    return ibr_result_path_sl(r, src_lid, dst_lid) + level * r->qos_stride;
}

size_t ibr_result_sl_hazard_count(const ibr_result *r)
{
    return r ? r->n_hazards : 0;
}

int ibr_result_sl_hazard(ibr_sl_hazard *out, const ibr_result *r, size_t i)
{
    if (!out)
        return IBR_EINVAL;
    if (!r || i >= r->n_hazards)
        return IBR_ENOTFOUND;
    *out = r->hazards[i];
    return 0;
}
