/* Result objects: storage and accessors. */
#include <bsd/string.h>
#include <string.h>

#include "core/internal.h"
#include "core/result_notes.h"
#include "core/result_qos.h"
#include "core/result_unicast.h"

uint32_t ibr__n_src_slots(const ibr_topo *t)
{
    return t->n_end + t->n_sw;
}

uint32_t ibr__src_slot(const ibr_topo *t, uint16_t lid)
{
    if (lid == 0 || lid > t->max_lid || t->lid_port[lid] == IBR_NONE)
        return IBR_NONE;
    uint32_t gp = t->lid_port[lid];
    const ibr__node *n = &t->nodes[t->port_node[gp]];
    if (n->type == IBR_NODE_SWITCH)
        return t->n_end + n->sw;
    /* end ports are stored in ascending global port order */
    uint32_t lo = 0, hi = t->n_end;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (t->end_port[mid] < gp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n_end && t->end_port[lo] == gp ? lo : IBR_NONE;
}

int ibr__result_new(ibr_result **out, const ibr_topo *t)
{
    ibr_result *r = ibr__calloc(t->ctx, 1, sizeof *r);
    if (!r)
        return IBR_ENOMEM;
    r->ctx = t->ctx;
    r->topo = t;
    ibr__result_unicast_init(r);
    ibr__result_notes_init(r);
    *out = r;
    return 0;
}

uint32_t *ibr__sl2vl_layout(ibr_context *ctx, const ibr_topo *t, size_t *total)
{
    uint32_t *off = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *off);
    size_t sum = 0;
    if (!off)
        return NULL;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
        off[s] = (uint32_t)sum;
        sum += w * w * 16;
    }
    *total = sum;
    return off;
}

int ibr__result_alloc_ep_sl2vl(ibr_result *r)
{
    const ibr_topo *t = r->topo;
    if (r->ep_sl2vl)
        return 0;
    size_t np = t->n_ports ? t->n_ports : 1;
    uint8_t *tab = ibr__mallocarray(r->ctx, np, 16), *set = ibr__calloc(r->ctx, np, 1);
    if (!tab || !set) {
        ibr__free(r->ctx, tab);
        ibr__free(r->ctx, set);
        return IBR_ENOMEM;
    }
    for (size_t i = 0; i < np; i++)
        for (unsigned k = 0; k < 16; k++)
            tab[i * 16 + k] = (uint8_t)k;
    r->ep_sl2vl = tab;
    r->ep_sl2vl_set = set;
    return 0;
}

static void free_extras(ibr_result *r)
{
    ibr_context *ctx = r->ctx;
    ibr__free(ctx, r->sl);
    r->sl = NULL;
    r->sl_mode = IBR_SL_NONE;
    ibr__free(ctx, r->sl2vl_off);
    ibr__free(ctx, r->sl2vl);
    r->sl2vl_off = NULL;
    r->sl2vl = NULL;
    ibr__free(ctx, r->sl2vl_set);
    r->sl2vl_set = NULL;
    ibr__free(ctx, r->ep_sl2vl);
    r->ep_sl2vl = NULL;
    ibr__free(ctx, r->ep_sl2vl_set);
    r->ep_sl2vl_set = NULL;
    ibr__result_qos_clear(r);
    ibr__result_mcast_clear(r);
    ibr__result_notes_clear(r);
}

void ibr__result_clear_tables(ibr_result *r)
{
    free_extras(r);
    ibr__result_unicast_clear(r);
}

void ibr_result_destroy(ibr_result *r)
{
    if (!r)
        return;
    ibr_context *ctx = r->ctx;
    free_extras(r);
    ibr__result_notes_drop(r);
    ibr__result_unicast_drop(r);
    ibr__free(ctx, r);
}

const ibr_topo *ibr_result_topo(const ibr_result *r)
{
    return r ? r->topo : NULL;
}

int ibr_result_status(const ibr_result *r)
{
    return r ? r->status : IBR_EINVAL;
}

const char *ibr_result_last_error(const ibr_result *r)
{
    return r ? r->last_error : "";
}

ibr_sl_mode ibr_result_sl_mode(const ibr_result *r)
{
    return r ? r->sl_mode : IBR_SL_NONE;
}

unsigned int ibr_result_path_sl(const ibr_result *r, uint16_t src_lid, uint16_t dst_lid)
{
    if (!r || !r->sl || dst_lid >= r->lft_size)
        return 0;
    if (r->sl_mode == IBR_SL_PER_DEST)
        return r->sl[dst_lid];
    uint32_t s = ibr__src_slot(r->topo, src_lid);
    if (s == IBR_NONE)
        return 0;
    return r->sl[(size_t)s * r->lft_size + dst_lid];
}

int ibr_result_has_sl2vl(const ibr_result *r)
{
    return r && r->sl2vl != NULL;
}

int ibr_result_sl2vl(uint8_t out[16], const ibr_result *r, uint32_t sw, unsigned int in_port,
                     unsigned int out_port)
{
    if (!out)
        return IBR_EINVAL;
    if (!r || sw >= r->topo->n_sw)
        return IBR_ENOTFOUND;
    const ibr__node *n = &r->topo->nodes[r->topo->sw_node[sw]];
    if (in_port > n->nports || out_port > n->nports)
        return IBR_ERANGE;
    if (!r->sl2vl) {
        for (unsigned i = 0; i < 16; i++)
            out[i] = (uint8_t)(i < 15 ? i : 15);
        return 0;
    }
    size_t w = (size_t)n->nports + 1;
    memcpy(out, r->sl2vl + r->sl2vl_off[sw] + (in_port * w + out_port) * 16, 16);
    return 0;
}

unsigned ibr__hop_vl(const ibr_result *r, uint32_t sw, unsigned in_port, unsigned out_port,
                     unsigned sl)
{
    if (!r->sl2vl)
        return sl;
    const ibr_topo *t = r->topo;
    size_t w = (size_t)t->nodes[t->sw_node[sw]].nports + 1;
    return r->sl2vl[r->sl2vl_off[sw] + (in_port * w + out_port) * 16 + (sl & 15)];
}

void ibr__result_replace_sl2vl(ibr_result *r, uint8_t *sl2vl, uint32_t *off)
{
    ibr__free(r->ctx, r->sl2vl);
    ibr__free(r->ctx, r->sl2vl_off);
    r->sl2vl = sl2vl;
    r->sl2vl_off = off;
}
