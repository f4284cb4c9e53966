/* Result objects: storage and accessors. */
#include <bsd/string.h>
#include <string.h>

#include "core/internal.h"
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
    r->vls_used = 1;
    r->lmc_cap = 7;
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
    for (size_t i = 0; i < r->n_artifacts; i++) {
        ibr__free(ctx, r->artifacts[i].name);
        ibr__free(ctx, r->artifacts[i].data);
    }
    ibr__free(ctx, r->artifacts);
    r->artifacts = NULL;
    r->n_artifacts = 0;
    for (size_t i = 0; i < r->n_settings; i++) {
        ibr__free(ctx, r->settings[i].name);
        ibr__free(ctx, r->settings[i].value);
    }
    ibr__free(ctx, r->settings);
    r->settings = NULL;
    ibr__free(ctx, r->upos);
    r->upos = NULL;
    r->n_settings = 0;
    r->vls_used = 1;
    r->layers = 0;
}

int ibr__result_add_setting(ibr_result *r, const char *name, const char *value)
{
    char *n = ibr__strdup(r->ctx, name);
    char *v = ibr__strdup(r->ctx, value);
    ibr__setting_rec *a =
        n && v ? ibr__reallocarray(r->ctx, r->settings, r->n_settings + 1, sizeof *a) : NULL;
    if (!a) {
        ibr__free(r->ctx, n);
        ibr__free(r->ctx, v);
        return IBR_ENOMEM;
    }
    r->settings = a;
    a[r->n_settings++] = (ibr__setting_rec){n, v};
    return 0;
}

size_t ibr_result_setting_count(const ibr_result *r)
{
    return r ? r->n_settings : 0;
}

int ibr_result_setting(const char **name, const char **value, const ibr_result *r, size_t i)
{
    if (!r)
        return IBR_EINVAL;
    if (i >= r->n_settings)
        return IBR_ENOTFOUND;
    if (name)
        *name = r->settings[i].name;
    if (value)
        *value = r->settings[i].value;
    return 0;
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
    for (size_t i = 0; i < r->n_attempts; i++)
        ibr__free(ctx, r->attempts[i].message);
    ibr__free(ctx, r->attempts);
    ibr__result_unicast_drop(r);
    ibr__free(ctx, r);
}

int ibr__result_add_attempt(ibr_result *r, const char *name, int status, const char *msg)
{
    ibr__attempt *a = ibr__reallocarray(r->ctx, r->attempts, r->n_attempts + 1, sizeof *a);
    if (!a)
        return IBR_ENOMEM;
    r->attempts = a;
    char *m = ibr__strdup(r->ctx, msg ? msg : "");
    if (!m)
        return IBR_ENOMEM;
    a = &r->attempts[r->n_attempts++];
    strlcpy(a->name, name, sizeof a->name);
    a->status = status;
    a->message = m;
    return 0;
}

int ibr__result_set_artifact(ibr_result *r, const char *name, const void *data, size_t size)
{
    ibr_context *ctx = r->ctx;
    void *copy = ibr__malloc(ctx, size);
    if (!copy)
        return IBR_ENOMEM;
    if (size)
        memcpy(copy, data, size);
    for (size_t i = 0; i < r->n_artifacts; i++)
        if (!strcmp(r->artifacts[i].name, name)) {
            ibr__free(ctx, r->artifacts[i].data);
            r->artifacts[i].data = copy;
            r->artifacts[i].size = size;
            return 0;
        }
    char *nm = ibr__strdup(ctx, name);
    ibr__artifact *a = nm ? ibr__reallocarray(ctx, r->artifacts, r->n_artifacts + 1, sizeof *a)
                          : NULL;
    if (!a) {
        ibr__free(ctx, nm);
        ibr__free(ctx, copy);
        return IBR_ENOMEM;
    }
    r->artifacts = a;
    r->artifacts[r->n_artifacts++] = (ibr__artifact){nm, copy, size};
    return 0;
}

const ibr_topo *ibr_result_topo(const ibr_result *r)
{
    return r ? r->topo : NULL;
}

int ibr_result_status(const ibr_result *r)
{
    return r ? r->status : IBR_EINVAL;
}

const char *ibr_result_engine(const ibr_result *r)
{
    return r ? r->engine : "";
}

const char *ibr_result_last_error(const ibr_result *r)
{
    return r ? r->last_error : "";
}

uint64_t ibr_result_seed(const ibr_result *r)
{
    return r ? r->seed : 0;
}

unsigned int ibr_result_threads(const ibr_result *r)
{
    return r ? r->threads : 0;
}

size_t ibr_result_attempt_count(const ibr_result *r)
{
    return r ? r->n_attempts : 0;
}

int ibr_result_attempt(const char **engine, int *status, const char **message, const ibr_result *r,
                       size_t i)
{
    if (!r || i >= r->n_attempts)
        return IBR_ENOTFOUND;
    if (engine)
        *engine = r->attempts[i].name;
    if (status)
        *status = r->attempts[i].status;
    if (message)
        *message = r->attempts[i].message;
    return 0;
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

unsigned int ibr_result_layers(const ibr_result *r)
{
    return r ? r->layers : 0;
}

unsigned int ibr_result_vls_used(const ibr_result *r)
{
    return r ? r->vls_used : 0;
}

size_t ibr_result_artifact_count(const ibr_result *r)
{
    return r ? r->n_artifacts : 0;
}

int ibr_result_artifact(const char **name, const void **data, size_t *size, const ibr_result *r,
                        size_t i)
{
    if (!r || i >= r->n_artifacts)
        return IBR_ENOTFOUND;
    if (name)
        *name = r->artifacts[i].name;
    if (data)
        *data = r->artifacts[i].data;
    if (size)
        *size = r->artifacts[i].size;
    return 0;
}

int ibr_result_find_artifact(const void **data, size_t *size, const ibr_result *r,
                             const char *name)
{
    if (!r || !name)
        return IBR_EINVAL;
    for (size_t i = 0; i < r->n_artifacts; i++)
        if (!strcmp(r->artifacts[i].name, name))
            return ibr_result_artifact(NULL, data, size, r, i);
    return IBR_ENOTFOUND;
}

void ibr__result_replace_sl2vl(ibr_result *r, uint8_t *sl2vl, uint32_t *off)
{
    ibr__free(r->ctx, r->sl2vl);
    ibr__free(r->ctx, r->sl2vl_off);
    r->sl2vl = sl2vl;
    r->sl2vl_off = off;
}
