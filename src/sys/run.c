/* The engine-author API: what an engine may read and write during a run. */
#include <stdio.h>
#include <string.h>

#include "core/result_notes.h"
#include "core/result_unicast.h"
#include "sys/run_int.h"

const ibr_topo *ibr_run_topo(const ibr_run *run)
{
    return run ? run->topo : NULL;
}

const ibr_options *ibr_run_options(const ibr_run *run)
{
    return run ? &run->opts : NULL;
}

uint8_t *ibr_run_lft(ibr_run *run, uint32_t sw)
{
    if (!run || sw >= run->topo->n_sw)
        return NULL;
    return ibr__lft_row(run->res, sw);
}

int ibr_run_set_hops(ibr_run *run, uint32_t sw, uint32_t dst_sw, unsigned int hops)
{
    if (!run)
        return IBR_EINVAL;
    const ibr_topo *t = run->topo;
    if (sw >= t->n_sw || dst_sw >= t->n_sw)
        return IBR_ENOTFOUND;
    if (ibr__result_alloc_hops(run->res) < 0)
        return IBR_ENOMEM;
    run->res->hops[(size_t)sw * t->n_sw + dst_sw] = (uint8_t)(hops > 255 ? 255 : hops);
    return 0;
}

uint8_t *ibr_run_hops(ibr_run *run)
{
    if (!run || ibr__result_alloc_hops(run->res) < 0)
        return NULL;
    return run->res->hops;
}

int ibr_run_set_sl_mode(ibr_run *run, ibr_sl_mode mode)
{
    if (!run)
        return IBR_EINVAL;
    ibr_result *r = run->res;
    const ibr_topo *t = run->topo;
    if (mode != IBR_SL_NONE && mode != IBR_SL_PER_DEST && mode != IBR_SL_PER_PAIR)
        return IBR_EINVAL;
    if (mode == r->sl_mode)
        return 0;
    if (mode == IBR_SL_NONE) {
        ibr__free(r->ctx, r->sl);
        r->sl = NULL;
        r->sl_mode = IBR_SL_NONE;
        return 0;
    }
    if (mode == IBR_SL_PER_DEST && r->sl_mode == IBR_SL_PER_PAIR)
        return IBR_ESTATE;
    size_t rows = mode == IBR_SL_PER_PAIR ? ibr__n_src_slots(t) : 1;
    size_t n = rows * r->lft_size;
    uint8_t *sl = ibr__calloc(r->ctx, n ? n : 1, 1);
    if (!sl)
        return IBR_ENOMEM;
    if (r->sl_mode == IBR_SL_PER_DEST)
        for (size_t i = 0; i < rows; i++)
            memcpy(sl + i * r->lft_size, r->sl, r->lft_size);
    ibr__free(r->ctx, r->sl);
    r->sl = sl;
    r->sl_mode = mode;
    return 0;
}

uint8_t *ibr_run_sl_row(ibr_run *run, uint16_t src_lid)
{
    if (!run || !run->res->sl)
        return NULL;
    ibr_result *r = run->res;
    if (r->sl_mode == IBR_SL_PER_DEST)
        return r->sl;
    if (src_lid >= r->lft_size)
        return NULL;
    uint32_t slot = ibr__src_slot(run->topo, src_lid);
    return slot == IBR_NONE ? NULL : r->sl + (size_t)slot * r->lft_size;
}

int ibr_run_set_dest_sl(ibr_run *run, uint16_t dst_lid, unsigned int sl)
{
    if (!run)
        return IBR_EINVAL;
    ibr_result *r = run->res;
    if (sl > 15 || dst_lid >= r->lft_size)
        return IBR_ERANGE;
    if (r->sl_mode == IBR_SL_PER_PAIR)
        return IBR_ESTATE;
    int rc = ibr_run_set_sl_mode(run, IBR_SL_PER_DEST);
    if (rc < 0)
        return rc;
    r->sl[dst_lid] = (uint8_t)sl;
    return 0;
}

int ibr_run_set_path_sl(ibr_run *run, uint16_t src_lid, uint16_t dst_lid, unsigned int sl)
{
    if (!run)
        return IBR_EINVAL;
    ibr_result *r = run->res;
    if (sl > 15 || dst_lid >= r->lft_size || src_lid >= r->lft_size)
        return IBR_ERANGE;
    if (ibr__src_slot(run->topo, src_lid) == IBR_NONE)
        return IBR_ENOTFOUND;
    int rc = ibr_run_set_sl_mode(run, IBR_SL_PER_PAIR);
    if (rc < 0)
        return rc;
    ibr_run_sl_row(run, src_lid)[dst_lid] = (uint8_t)sl;
    return 0;
}

int ibr_run_set_sl2vl(ibr_run *run, uint32_t sw, unsigned int in_port, unsigned int out_port,
                      const uint8_t map[16])
{
    if (!run)
        return IBR_EINVAL;
    const ibr_topo *t = run->topo;
    ibr_result *r = run->res;
    if (sw >= t->n_sw)
        return IBR_ENOTFOUND;
    const ibr__node *n = &t->nodes[t->sw_node[sw]];
    if (in_port > n->nports || out_port > n->nports)
        return IBR_ERANGE;
    uint8_t any = 0; /* a VL above 15 has a bit of 0xf0 set */
    for (unsigned i = 0; i < 16; i++)
        any |= map[i];
    if (any & 0xf0)
        return IBR_ERANGE;
    if (!r->sl2vl) {
        size_t total = 0;
        uint32_t *off = ibr__sl2vl_layout(r->ctx, t, &total);
        if (!off)
            return IBR_ENOMEM;
        uint8_t *tab = ibr__mallocarray(r->ctx, total ? total : 1, 1);
        if (!tab) {
            ibr__free(r->ctx, off);
            return IBR_ENOMEM;
        }
        /* every (in, out) pair starts with the identity map */
        static const uint8_t ident[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        for (size_t i = 0; i < total; i += 16)
            memcpy(tab + i, ident, 16);
        r->sl2vl_off = off;
        r->sl2vl = tab;
    }
    if (!r->sl2vl_set && !(r->sl2vl_set = ibr__calloc(r->ctx, t->n_sw ? t->n_sw : 1, 1)))
        return IBR_ENOMEM;
    r->sl2vl_set[sw] = 1;
    size_t w = (size_t)n->nports + 1;
    memcpy(r->sl2vl + r->sl2vl_off[sw] + (in_port * w + out_port) * 16, map, 16);
    return 0;
}

int ibr_run_set_endport_sl2vl(ibr_run *run, uint32_t node, unsigned int port,
                              const uint8_t map[16])
{
    if (!run)
        return IBR_EINVAL;
    const ibr_topo *t = run->topo;
    ibr_result *r = run->res;
    if (node >= t->n_nodes)
        return IBR_ENOTFOUND;
    const ibr__node *n = &t->nodes[node];
    if (n->type == IBR_NODE_SWITCH)
        return IBR_EINVAL;
    if (port < 1 || port > n->nports)
        return IBR_ERANGE;
    uint8_t any = 0;
    for (unsigned i = 0; i < 16; i++)
        any |= map[i];
    if (any & 0xf0)
        return IBR_ERANGE;
    int rc = ibr__result_alloc_ep_sl2vl(r);
    if (rc < 0)
        return rc;
    size_t gp = (size_t)n->port_off + port;
    memcpy(r->ep_sl2vl + gp * 16, map, 16);
    r->ep_sl2vl_set[gp] = 1;
    return 0;
}

int ibr_run_set_vls_used(ibr_run *run, unsigned int vls)
{
    if (!run)
        return IBR_EINVAL;
    if (vls < 1 || vls > 15)
        return IBR_ERANGE;
    ibr__result_set_layering(run->res, vls, run->res->layers);
    return 0;
}

int ibr_run_set_layers(ibr_run *run, unsigned int layers)
{
    if (!run)
        return IBR_EINVAL;
    if (layers < 1 || layers > 15)
        return IBR_ERANGE;
    ibr__result_set_layering(run->res, run->res->vls_used, layers);
    return 0;
}

int ibr__run_set_upos(ibr_run *run, const uint32_t *pos)
{
    ibr_result *r = run->res;
    size_t n = run->topo->n_sw ? run->topo->n_sw : 1;
    uint32_t *v = ibr__mallocarray(run->ctx, n, sizeof *v);
    if (!v)
        return IBR_ENOMEM;
    memcpy(v, pos, run->topo->n_sw * sizeof *v);
    ibr__result_take_upos(r, v);
    return 0;
}

int ibr_run_add_mcast_port(ibr_run *run, uint16_t mlid, uint32_t sw, unsigned int port)
{
    if (!run)
        return IBR_EINVAL;
    const ibr_topo *t = run->topo;
    ibr_result *r = run->res;
    if (mlid < 0xC000 || mlid > 0xFFFE)
        return IBR_ERANGE;
    if (sw >= t->n_sw)
        return IBR_ENOTFOUND;
    if (port > t->nodes[t->sw_node[sw]].nports)
        return IBR_ERANGE;
    ibr__mcast *g = ibr__result_mcast_get(r, mlid, 1);
    if (!g)
        return IBR_ENOMEM;
    g->bits[(size_t)sw * 32 + (port >> 3)] |= (uint8_t)(1u << (port & 7));
    return 0;
}

int ibr_run_clear_mcast(ibr_run *run)
{
    if (!run)
        return IBR_EINVAL;
    ibr_result *r = run->res;
    for (size_t i = 0; i < r->n_mcast; i++)
        memset(r->mcast[i].bits, 0, (size_t)run->topo->n_sw * 32);
    return 0;
}

int ibr_run_add_artifact(ibr_run *run, const char *name, const void *data, size_t size)
{
    if (!run || !name || !*name || (size && !data))
        return IBR_EINVAL;
    return ibr__result_set_artifact(run->res, name, data, size);
}

/* ---- settings ---- */

static int find_setting(const ibr_run *run, const char *name)
{
    const ibr_engine *e = run->engine;
    for (size_t i = 0; e && i < e->n_settings; i++)
        if (!strcmp(e->settings[i].name, name))
            return (int)i;
    return -1;
}

int ibr_run_setting_int(int64_t *out, const ibr_run *run, const char *name)
{
    if (!run || !name || !out)
        return IBR_EINVAL;
    int i = find_setting(run, name);
    if (i < 0)
        return IBR_ENOTFOUND;
    if (run->engine->settings[i].type == IBR_SETTING_STRING)
        return IBR_ESTATE;
    *out = run->vals[i].i;
    return 0;
}

int ibr_run_setting_str(const char **out, size_t *len, const ibr_run *run, const char *name)
{
    if (!out || !run || !name)
        return IBR_EINVAL;
    int i = find_setting(run, name);
    if (i < 0)
        return IBR_ENOTFOUND;
    if (run->engine->settings[i].type != IBR_SETTING_STRING)
        return IBR_ESTATE;
    *out = run->vals[i].s ? run->vals[i].s : "";
    if (len)
        *len = run->vals[i].s ? run->vals[i].len : 0;
    return 0;
}

int ibr__run_decline(ibr_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__verr(run->message, 0, fmt, ap);
    va_end(ap);
    return IBR_EDECLINED;
}

int ibr__run_fail(ibr_run *run, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__verr(run->message, 0, fmt, ap);
    va_end(ap);
    return code < 0 ? code : IBR_EINTERNAL;
}

int ibr_run_decline(ibr_run *run, const char *message)
{
    if (!run)
        return IBR_EDECLINED;
    return ibr__run_decline(run, "%s", message ? message : "declined");
}

int ibr_run_fail(ibr_run *run, int code, const char *message)
{
    if (!run)
        return code < 0 ? code : IBR_EINTERNAL;
    return ibr__run_fail(run, code, "%s", message ? message : "failed");
}

void ibr_run_log(ibr_run *run, int level, const char *message)
{
    if (run && message)
        ibr__log(run->ctx, level, "%s", message);
}

int ibr_run_progress(ibr_run *run, const char *phase, uint64_t done, uint64_t total)
{
    if (!run || !run->opts.progress)
        return 0;
    if (phase != run->phase)
        snprintf(run->phase, sizeof run->phase, "%s", phase ? phase : "");
    if (run->opts.progress(run->opts.progress_user, phase ? phase : "", done, total))
        return IBR_ECANCELED;
    return 0;
}
