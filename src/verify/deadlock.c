/* Credit-loop analysis of a finished routing: the channel dependency graph
   of every (source end port, destination LID) path, per VL, and a cycle
   search over it. */
#include <string.h>

#include "cdg/cdg.h"
#include "core/result_qos.h"
#include "verify/verify_int.h"

/* Number of VLs (1..16) that data can travel on in this result. */
static unsigned vls_in_use(const ibr_result *r)
{
    const ibr_topo *t = r->topo;
    unsigned maxsl = 0, maxvl = 0;
    if (r->sl) {
        size_t n = r->sl_mode == IBR_SL_PER_PAIR ? (size_t)ibr__n_src_slots(t) * r->lft_size
                                                 : r->lft_size;
        for (size_t i = 0; i < n; i++)
            if (r->sl[i] > maxsl)
                maxsl = r->sl[i];
    }
    /* the highest QoS level's copy of the path SLs */
    maxsl += (ibr__result_qos_levels(r) - 1) * ibr__result_qos_stride(r);
    if (maxsl > 15)
        maxsl = 15;
    if (!r->sl2vl)
        return maxsl + 1;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
        const uint8_t *tab = r->sl2vl + r->sl2vl_off[s];
        for (size_t i = 0; i < w * w; i++)
            for (unsigned sl = 0; sl <= maxsl; sl++)
                if (tab[i * 16 + sl] != 15 && tab[i * 16 + sl] > maxvl)
                    maxvl = tab[i * 16 + sl];
    }
    return maxvl + 1;
}

/* Does every SL2VL table map each SL to the VL of the same number? */
static int sl2vl_identity(const ibr_result *r)
{
    const ibr_topo *t = r->topo;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
        const uint8_t *tab = r->sl2vl + r->sl2vl_off[s];
        for (size_t i = 0; i < w * w; i++)
            for (unsigned sl = 0; sl < 15; sl++)
                if (tab[i * 16 + sl] != sl)
                    return 0;
    }
    return 1;
}

typedef struct dl_state {
    const ibr_topo *t;
    const ibr_result *r;
    ibr__cdg *g;
    unsigned nvl;
    uint32_t *port_adj;   /* global port -> adj index or IBR_NONE */
    uint32_t *memo_epoch; /* per channel */
    uint16_t *memo_sls;   /* per channel: SLs already continued from it */
    uint32_t epoch;
    const uint8_t *col;   /* LFT column of the current LID, per switch */
} dl_state;

/* Follow the route toward lid from switch u, entered on port ip (from a
   host) with SL sl, adding dependencies until the destination switch, a
   broken entry, or a channel already continued with this SL. */
static int walk(dl_state *st, uint32_t u, unsigned ip, unsigned sl, unsigned lid, uint32_t dsw)
{
    const ibr_topo *t = st->t;
    const ibr_result *r = st->r;
    uint32_t prev = IBR_NONE;
    for (uint32_t steps = 0; steps <= t->n_sw && u != dsw; steps++) {
        unsigned op = st->col[u];
        (void)lid;
        if (op == IBR_NO_ROUTE || op > t->nodes[t->sw_node[u]].nports)
            break;
        uint32_t a = st->port_adj[t->nodes[t->sw_node[u]].port_off + op];
        if (a == IBR_NONE)
            break;
        unsigned vl = ibr__hop_vl(r, u, ip, op, sl);
        if (vl >= st->nvl)
            break; /* VL 15: management, not flow controlled */
        uint32_t ch = ibr__channel(a, vl, st->nvl);
        if (prev != IBR_NONE) {
            int rc = ibr__cdg_add_edge(st->g, 0, prev, ch, 1);
            if (rc < 0)
                return rc;
        }
        if (st->memo_epoch[ch] != st->epoch) {
            st->memo_epoch[ch] = st->epoch;
            st->memo_sls[ch] = 0;
        }
        if (st->memo_sls[ch] & (1u << sl))
            break;
        st->memo_sls[ch] |= (uint16_t)(1u << sl);
        prev = ch;
        ip = t->adj[a].rport;
        u = t->adj[a].sw;
    }
    return 0;
}

int ibr__deadlock_check(int *free_out, uint32_t **cycle, size_t *len, const ibr_topo *t,
                        const ibr_result *r)
{
    ibr_context *ctx = t->ctx;
    dl_state st;
    memset(&st, 0, sizeof st);
    st.t = t;
    st.r = r;
    st.nvl = vls_in_use(r);
    *cycle = NULL;
    *len = 0;
    *free_out = 1;
    uint32_t nch = t->n_adj * st.nvl;
    uint8_t *srcsw = NULL;
    uint8_t *trans = NULL; /* 64 LFT columns, transposed */
    uint16_t *slmask = NULL; /* per switch: SLs its hosts use toward a LID */
    int rc = ibr__cdg_create(&st.g, ctx, nch, 1);
    if (rc < 0)
        return rc;
    st.port_adj = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *st.port_adj);
    st.memo_epoch = ibr__calloc(ctx, nch ? nch : 1, sizeof *st.memo_epoch);
    st.memo_sls = ibr__mallocarray(ctx, nch ? nch : 1, sizeof *st.memo_sls);
    srcsw = ibr__calloc(ctx, t->n_sw ? t->n_sw : 1, 1);
    trans = ibr__mallocarray(ctx, (t->n_sw ? t->n_sw : 1) * (size_t)64, 1);
    slmask = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *slmask);
    if (!st.port_adj || !st.memo_epoch || !st.memo_sls || !srcsw || !trans || !slmask) {
        rc = IBR_ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < t->n_ports; i++)
        st.port_adj[i] = IBR_NONE;
    for (uint32_t s = 0; s < t->n_sw; s++)
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++)
            st.port_adj[t->nodes[t->sw_node[s]].port_off + t->adj[e].port] = e;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        if (t->nodes[pt->remote_node].type == IBR_NODE_SWITCH)
            srcsw[t->nodes[pt->remote_node].sw] = 1;
    }
    /* Without SL2VL tables (or with identity ones) the VL of a hop does not
       depend on the port a packet entered by, so every host behind a switch
       that uses the same SL takes the same path: walk once per (source
       switch, SL). With one SL per destination that is once per switch. */
    int in_port_free = !r->sl2vl || sl2vl_identity(r);
    /* every QoS level's traffic, each on its copy of the path SLs */
    unsigned levels = ibr__result_qos_levels(r), stride = ibr__result_qos_stride(r);
    int per_switch = r->sl_mode != IBR_SL_PER_PAIR && in_port_free;
    for (unsigned lid = 1; lid <= t->max_lid; lid++) {
        if ((lid - 1) % 64 == 0) {
            /* columns lid .. lid + 63, one contiguous read per switch */
            unsigned nb = t->max_lid - lid + 1 < 64 ? t->max_lid - lid + 1 : 64;
            for (uint32_t s = 0; s < t->n_sw; s++) {
                const uint8_t *row = ibr__lft_row(r, s) + lid;
                for (unsigned b = 0; b < nb; b++)
                    trans[(size_t)b * t->n_sw + s] = row[b];
            }
        }
        st.col = trans + (size_t)((lid - 1) % 64) * t->n_sw;
        uint32_t owner = t->lid_port[lid];
        uint32_t dsw = t->lid_sw[lid];
        if (owner == IBR_NONE || dsw == IBR_NONE ||
            t->nodes[t->port_node[owner]].type == IBR_NODE_SWITCH)
            continue;
        if (++st.epoch == 0) {
            memset(st.memo_epoch, 0, (size_t)nch * sizeof *st.memo_epoch);
            st.epoch = 1;
        }
        if (per_switch) {
            unsigned sl0 = r->sl ? r->sl[lid] : 0;
            for (unsigned lv = 0; lv < levels; lv++) {
                unsigned sl = (sl0 + lv * stride) & 15;
                for (uint32_t s = 0; s < t->n_sw; s++)
                    if (srcsw[s] && (rc = walk(&st, s, 0, sl, lid, dsw)) < 0)
                        goto out;
            }
            continue;
        }
        /* per-pair SLs (the end ports are the first source slots), or
           per-destination SLs through SL2VL tables that depend on the
           input port: walk from every end port */
        int pair = r->sl_mode == IBR_SL_PER_PAIR;
        if (in_port_free)
            memset(slmask, 0, t->n_sw * sizeof *slmask);
        for (uint32_t i = 0; i < t->n_end; i++) {
            uint32_t gp = t->end_port[i];
            const ibr__port *pt = &t->ports[gp];
            if (gp == owner || t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
                continue;
            unsigned sl0 =
                !r->sl ? 0 : (pair ? r->sl[(size_t)i * r->lft_size + lid] : r->sl[lid]) & 15;
            uint32_t s = t->nodes[pt->remote_node].sw;
            for (unsigned lv = 0; lv < levels; lv++) {
                unsigned sl = (sl0 + lv * stride) & 15;
                if (in_port_free) {
                    slmask[s] |= (uint16_t)(1u << sl);
                    continue;
                }
                rc = walk(&st, s, pt->remote_port, sl, lid, dsw);
                if (rc < 0)
                    goto out;
            }
        }
        for (uint32_t s = 0; in_port_free && s < t->n_sw; s++)
            for (unsigned sl = 0; sl < 16; sl++)
                if ((slmask[s] & (1u << sl)) && (rc = walk(&st, s, 0, sl, lid, dsw)) < 0)
                    goto out;
    }
    if (r->n_mcast && (rc = ibr__mcast_deps(st.g, r, st.port_adj, st.nvl)) < 0)
        goto out;
    rc = ibr__cdg_find_cycle(st.g, 0, cycle, len);
    if (rc == 0 && *len) {
        *free_out = 0;
        /* return channels as adj * 16 + vl, independent of nvl */
        for (size_t i = 0; i < *len; i++)
            (*cycle)[i] = ((*cycle)[i] / st.nvl) * 16 + (*cycle)[i] % st.nvl;
    }
out:
    ibr__cdg_destroy(st.g);
    ibr__free(ctx, st.port_adj);
    ibr__free(ctx, st.memo_epoch);
    ibr__free(ctx, st.memo_sls);
    ibr__free(ctx, srcsw);
    ibr__free(ctx, trans);
    ibr__free(ctx, slmask);
    return rc;
}

/* Switch owning directed link a (the link leaves that switch). */
static uint32_t adj_switch(const ibr_topo *t, uint32_t a)
{
    uint32_t lo = 0, hi = t->n_sw;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (t->adj_off[mid] <= a)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void ibr__decode_channel(ibr_channel *out, const ibr_topo *t, uint32_t code)
{
    uint32_t a = code / 16;
    out->sw = adj_switch(t, a);
    out->port = t->adj[a].port;
    out->vl = code % 16;
}

int ibr_result_find_credit_loop(ibr_channel *cycle, size_t cap, size_t *len,
                                const ibr_result *r)
{
    if (!len || !r || !r->lft || r->status != 0 || (cap && !cycle))
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    int free_ = 1;
    uint32_t *c = NULL;
    size_t n = 0;
    int rc = ibr__deadlock_check(&free_, &c, &n, t, r);
    if (rc < 0)
        return rc;
    *len = n;
    for (size_t i = 0; i < n && i < cap; i++)
        ibr__decode_channel(&cycle[i], t, c[i]);
    ibr__free(t->ctx, c);
    return free_ ? 0 : IBR_EDEADLOCK;
}
