/*
 * The QoS section of a result (core/result_qos.h): its one owner, which
 * alone allocates, fills from the QoS manager's tables, clears and reads
 * it (the public getters of ibroute/qos.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/result_notes.h"
#include "core/result_qos.h"
#include "ibroute/qos.h"

void ibr__result_qos_clear(ibr_result *r)
{
    ibr_context *ctx = r->ctx;
    ibr__free(ctx, r->vlarb);
    r->vlarb = NULL;
    ibr__free(ctx, r->qos_conf);
    r->qos_conf = NULL;
    ibr__free(ctx, r->pre_sl2vl);
    r->pre_sl2vl = NULL;
    ibr__free(ctx, r->pre_ep);
    r->pre_ep = NULL;
    ibr__free(ctx, r->pre_ep_set);
    r->pre_ep_set = NULL;
    for (size_t i = 0; i < r->n_qos_notes; i++)
        ibr__free(ctx, r->qos_notes[i]);
    ibr__free(ctx, r->qos_notes);
    r->qos_notes = NULL;
    r->n_qos_notes = 0;
    ibr__free(ctx, r->hazards);
    r->hazards = NULL;
    r->n_hazards = 0;
    r->qos = 0;
}

void ibr__result_qos_set_vlarb(ibr_result *r, ibr__vlarb *va)
{
    ibr__free(r->ctx, r->vlarb);
    r->vlarb = va;
    r->qos = 1;
}

int ibr__result_qos_vnote(ibr_result *r, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
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

void ibr__result_qos_keep(ibr_result *r, char *conf, uint8_t *sw, uint8_t *ep, uint8_t *ep_set)
{
    ibr_context *ctx = r->ctx;
    ibr__free(ctx, r->qos_conf);
    ibr__free(ctx, r->pre_sl2vl);
    ibr__free(ctx, r->pre_ep);
    ibr__free(ctx, r->pre_ep_set);
    r->qos_conf = conf;
    r->pre_sl2vl = sw;
    r->pre_ep = ep;
    r->pre_ep_set = ep_set;
}

void ibr__result_qos_set_hazards(ibr_result *r, ibr_sl_hazard *tab, size_t n)
{
    ibr__free(r->ctx, r->hazards);
    r->hazards = tab;
    r->n_hazards = n;
}

ibr__engine_maps ibr__result_engine_maps(const ibr_result *r)
{
    ibr__engine_maps m;
    m.sw = r->qos ? r->pre_sl2vl : r->sl2vl;
    m.ep = r->qos ? r->pre_ep : r->ep_sl2vl;
    m.ep_set = r->qos ? r->pre_ep_set : r->ep_sl2vl_set;
    return m;
}

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
        ibr__result_set_layering(r, levels * k, r->layers);
}

void ibr__qos_keep_levels(ibr_result *r, unsigned levels, unsigned stride)
{
    r->qos_levels = levels;
    r->qos_stride = stride;
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
