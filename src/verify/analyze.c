/*
 * ibr_result_analyze(): measure a routing on its fabric.
 *
 * Per destination LID the LFT entries of all switches form a functional
 * graph, exactly as in verify.c. One pass with an explicit stack resolves
 * every switch to "delivered after k switch-to-switch links" or to a
 * failure, and records the resolved switches in an order where each one
 * comes after its next switch. Walking that order forward propagates what
 * lies between a switch and the destination (the VLs still to be used, the
 * busiest link still to be crossed); walking it backward pushes the flows of
 * farther switches inward onto the links (all-to-all link load). Every
 * destination costs O(S) plus O(N) when per-source SLs or SL2VL tables make
 * sources differ, and destinations are spread over worker threads, each
 * with its own scratch and counters, reduced in destination order.
 *
 * The traffic patterns (shift, random permutations and bisections) walk
 * each flow through the LFTs; they live in analyze_patterns.c, the
 * workloads over a rank order in analyze_workload.c.
 */
#include <stddef.h>
#include <string.h>

#include "core/buffer.h"
#include "core/result_qos.h"
#include "verify/analyze_int.h"
#include "verify/verify_int.h"

struct ibr_analysis {
    ibr_context *ctx;
    ibr_analyze_options opts;
    ibr_analysis_summary sum;
    uint64_t *hist;
    size_t n_hist;
    uint64_t vl[IBR__AN_LEVELS][16]; /* per QoS level */
    unsigned int levels;
    uint64_t *loads;
    size_t n_links;
    double bound[4]; /* eBB bound per family, in family_stats() order */
    char engine[64];
    ibr__awl *wl;    /* the workloads evaluated */
    size_t n_wl;
    ibr__awlopts wlo; /* what they were evaluated with */
};

enum { ST_UNKNOWN = 0, ST_ACTIVE, ST_OK, ST_FAIL };

/* How the VL of a hop is found. */
enum {
    VL_FIXED, /* no SL2VL tables, one SL per destination (or none): VL = SL */
    VL_PAIR,  /* no SL2VL tables, per-pair SLs: VL = the source's SL */
    VL_TABLE, /* SL2VL tables: per hop */
};

/* ------------------------------------------------------------------ */
/* one destination                                                      */

/* Next hop of switch s toward lid. Returns 1 with *next = IBR_NONE when
   delivered here, 1 with the next switch and the link used, or 0 when the
   route is missing or broken (bad port, down link, end node). */
static int step(const ibr__ajob *j, uint32_t s, unsigned lid, uint32_t dsw, unsigned dport,
                uint32_t *next, uint32_t *link)
{
    unsigned p = j->lft[(size_t)s * j->lft_size + lid];
    *next = IBR_NONE;
    *link = IBR_NONE;
    if (s == dsw && p == dport)
        return 1;
    if (p == IBR_NO_ROUTE || p == 0 || p > j->t->nodes[j->t->sw_node[s]].nports)
        return 0;
    uint32_t a = j->port_link[j->sw_port_off[s] + p];
    if (a == IBR_NONE)
        return 0;
    *next = j->link_dst[a];
    *link = a;
    return 1;
}

/* Resolve every switch toward lid; returns the number of switches whose
   route works, listed in w->order, each after its next switch. */
static uint32_t resolve(const ibr__ajob *j, ibr__aworker *w, unsigned lid, uint32_t dsw,
                        unsigned dport)
{
    uint32_t nsw = j->nsw, nord = 0;
    memset(w->st, ST_UNKNOWN, nsw);
    for (uint32_t s0 = 0; s0 < nsw; s0++) {
        if (w->st[s0] != ST_UNKNOWN || j->dist[(size_t)s0 * nsw + dsw] == 255)
            continue;
        size_t sp = 0;
        uint32_t s = s0, base = 0;
        int res;
        for (;;) {
            w->st[s] = ST_ACTIVE;
            w->stack[sp++] = s;
            uint32_t nx, a;
            if (!step(j, s, lid, dsw, dport, &nx, &a)) {
                res = ST_FAIL;
                break;
            }
            w->next[s] = nx;
            w->link[s] = a;
            if (nx == IBR_NONE) {
                res = ST_OK;
                base = 0;
                sp--;
                w->st[s] = ST_OK;
                w->len[s] = 0;
                w->order[nord++] = s;
                break;
            }
            if (w->st[nx] == ST_ACTIVE) {
                res = ST_FAIL;
                break;
            }
            if (w->st[nx] != ST_UNKNOWN) {
                res = w->st[nx];
                base = res == ST_OK ? w->len[nx] : 0;
                break;
            }
            s = nx;
        }
        while (sp > 0) {
            uint32_t u = w->stack[--sp];
            w->st[u] = (uint8_t)res;
            if (res == ST_OK) {
                w->len[u] = ++base;
                w->order[nord++] = u;
            }
        }
    }
    return nord;
}

static inline unsigned sl_of(const ibr__ajob *j, uint32_t ep, unsigned lid)
{
    const ibr_result *r = j->r;
    switch (r->sl_mode) {
    case IBR_SL_PER_DEST:
        return r->sl[lid] & 15u;
    case IBR_SL_PER_PAIR:
        return r->sl[(size_t)j->ep_slot[ep] * j->lft_size + lid] & 15u;
    default:
        return 0;
    }
}

/* VL of switch s's hop from in_port to out_port on SL sl (tables only). */
static inline unsigned vl_at(const ibr__ajob *j, uint32_t s, unsigned in_port, unsigned out_port,
                             unsigned sl)
{
    const ibr_result *r = j->r;
    size_t w = (size_t)j->t->nodes[j->t->sw_node[s]].nports + 1;
    return r->sl2vl[r->sl2vl_off[s] + ((size_t)in_port * w + out_port) * 16 + sl] & 15u;
}

static void count_mask(uint64_t vl[16], unsigned mask)
{
    for (unsigned v = 0; mask; v++, mask >>= 1)
        if (mask & 1u)
            vl[v]++;
}

/* VL usage of the flows toward one destination (VL_PAIR and VL_TABLE). */
static void dest_vls(const ibr__ajob *j, ibr__aworker *w, unsigned lid, uint32_t own,
                     uint32_t nord)
{
    uint32_t dsw = j->t->lid_sw[lid];
    uint32_t nsw = j->nsw;
    if (j->vl_mode == VL_PAIR) {
        for (uint32_t k = 0; k < j->n_ep_sws; k++) {
            uint32_t s = j->ep_sws[k];
            if (w->st[s] != ST_OK || w->len[s] == 0 || j->dist[(size_t)s * nsw + dsw] == 255)
                continue;
            for (uint32_t i = j->sw_ep_off[s]; i < j->sw_ep_off[s + 1]; i++)
                if (j->sw_ep[i] != own) {
                    unsigned sl = sl_of(j, j->sw_ep[i], lid);
                    for (unsigned l = 0; l < j->levels; l++)
                        w->vl[l][(sl + l * j->stride) & 15u]++;
                }
        }
        return;
    }
    /* the SLs the sources use (level 0), then every level's copies */
    unsigned slmask = 0;
    if (j->r->sl_mode != IBR_SL_PER_PAIR) {
        slmask = 1u << sl_of(j, 0, lid);
    } else {
        for (uint32_t k = 0; k < j->n_ep_sws; k++) {
            uint32_t s = j->ep_sws[k];
            if (w->st[s] != ST_OK || w->len[s] == 0)
                continue;
            for (uint32_t i = j->sw_ep_off[s]; i < j->sw_ep_off[s + 1]; i++)
                slmask |= 1u << sl_of(j, j->sw_ep[i], lid);
        }
    }
    for (unsigned l = 1, base = slmask; l < j->levels; l++)
        slmask |= (base << (l * j->stride)) & 0xffffu;
    /* vmask[u][sl]: VLs of the switch-to-switch hops after switch u */
    for (uint32_t k = 0; k < nord; k++) {
        uint32_t u = w->order[k];
        uint16_t *vm = w->vmask + (size_t)u * 16;
        if (w->len[u] <= 1) {
            for (unsigned sl = 0; sl < 16; sl++)
                vm[sl] = 0;
            continue;
        }
        uint32_t nx = w->next[u];
        unsigned in = j->t->adj[w->link[u]].rport;
        unsigned out = j->lft[(size_t)nx * j->lft_size + lid];
        const uint16_t *nvm = w->vmask + (size_t)nx * 16;
        for (unsigned sl = 0; sl < 16; sl++)
            if (slmask & (1u << sl))
                vm[sl] = (uint16_t)((1u << vl_at(j, nx, in, out, sl)) | nvm[sl]);
    }
    for (uint32_t k = 0; k < j->n_ep_sws; k++) {
        uint32_t s = j->ep_sws[k];
        if (w->st[s] != ST_OK || w->len[s] == 0 || j->dist[(size_t)s * nsw + dsw] == 255)
            continue;
        unsigned out = j->lft[(size_t)s * j->lft_size + lid];
        for (uint32_t i = j->sw_ep_off[s]; i < j->sw_ep_off[s + 1]; i++) {
            uint32_t e = j->sw_ep[i];
            if (e == own)
                continue;
            unsigned sl0 = sl_of(j, e, lid);
            for (unsigned l = 0; l < j->levels; l++) {
                unsigned sl = (sl0 + l * j->stride) & 15u;
                unsigned m = (1u << vl_at(j, s, j->ep_port[e], out, sl)) |
                             w->vmask[(size_t)s * 16 + sl];
                count_mask(w->vl[l], m);
            }
        }
    }
}

/* Pass 1, destination i: hop counts, stretch, link loads, VLs, and the
   routed-ness bits the patterns use. */
static int pass_paths(void *arg, unsigned worker, size_t i)
{
    ibr__ajob *j = arg;
    ibr__aworker *w = &j->w[worker];
    const ibr_topo *t = j->t;
    unsigned lid = j->dest_lid[i];
    uint32_t dsw = t->lid_sw[lid];
    uint32_t own = j->lid_ep[lid];
    uint32_t nsw = j->nsw;
    uint32_t nord = resolve(j, w, lid, dsw, t->lid_swport[lid]);

    if (j->lft_t) {
        /* the tiled copy keeps working routes only (calloc'ed: 0 elsewhere) */
        uint8_t *row = ibr__atile_row(j, lid);
        for (uint32_t k = 0; k < nord; k++) {
            uint32_t u = w->order[k];
            if (j->dist[(size_t)u * nsw + dsw] != 255)
                row[(size_t)u * 64] = j->lft[(size_t)u * j->lft_size + lid];
        }
    }
    for (uint32_t k = 0; k < nord; k++)
        if (w->len[w->order[k]] > w->max_len)
            w->max_len = w->len[w->order[k]];

    unsigned fixed_vl = j->r->sl_mode == IBR_SL_PER_DEST ? (j->r->sl[lid] & 15u) : 0;
    double ssum = 0.0;
    for (uint32_t k = 0; k < j->n_ep_sws; k++) {
        uint32_t s = j->ep_sws[k];
        unsigned dd = j->dist[(size_t)s * nsw + dsw];
        if (dd == 255)
            continue;
        uint64_t n = j->sw_ep_off[s + 1] - j->sw_ep_off[s] - (s == dsw ? 1u : 0u);
        if (!n)
            continue;
        w->pairs += n;
        if (w->st[s] != ST_OK)
            continue;
        w->pairs_ok += n;
        unsigned h = w->len[s] + 2u;
        w->hist[h] += n;
        w->hop_sum += (uint64_t)h * n;
        if (h > w->max_hops)
            w->max_hops = h;
        double str = (double)h / (double)(dd + 2u);
        ssum += str * (double)n;
        if (str > w->max_stretch)
            w->max_stretch = str;
        if (j->vl_mode == VL_FIXED && w->len[s] > 0)
            for (unsigned l = 0; l < j->levels; l++)
                w->vl[l][(fixed_vl + l * j->stride) & 15u] += n;
    }
    j->dest_stretch[i] = ssum;

    /* loads: from the farthest switches inward */
    for (uint32_t k = 0; k < nord; k++) {
        uint32_t u = w->order[k];
        w->acc[u] = j->sw_ep_off[u + 1] - j->sw_ep_off[u];
    }
    for (uint32_t k = nord; k-- > 0;) {
        uint32_t u = w->order[k];
        if (w->len[u] == 0 || !w->acc[u])
            continue;
        w->load[w->link[u]] += w->acc[u];
        w->acc[w->next[u]] += w->acc[u];
    }
    if (j->vl_mode != VL_FIXED)
        dest_vls(j, w, lid, own, nord);
    return 0;
}

/* Pass 2, destination i: every all-to-all flow's share, 1 / the load of the
   busiest link on its way. */
static int pass_share(void *arg, unsigned worker, size_t i)
{
    ibr__ajob *j = arg;
    ibr__aworker *w = &j->w[worker];
    const ibr_topo *t = j->t;
    unsigned lid = j->dest_lid[i];
    uint32_t dsw = t->lid_sw[lid];
    uint32_t nsw = j->nsw;
    uint32_t nord = resolve(j, w, lid, dsw, t->lid_swport[lid]);
    for (uint32_t k = 0; k < nord; k++) {
        uint32_t u = w->order[k];
        if (w->len[u] == 0) {
            w->acc[u] = 0;
        } else {
            uint64_t l = j->load[w->link[u]], m = w->acc[w->next[u]];
            w->acc[u] = l > m ? l : m;
        }
    }
    double sum = 0.0, cong = 0.0;
    for (uint32_t k = 0; k < j->n_ep_sws; k++) {
        uint32_t s = j->ep_sws[k];
        if (j->dist[(size_t)s * nsw + dsw] == 255 || w->st[s] != ST_OK)
            continue;
        uint64_t n = j->sw_ep_off[s + 1] - j->sw_ep_off[s] - (s == dsw ? 1u : 0u);
        if (n)
            sum += (double)n * (w->acc[s] ? 1.0 / (double)w->acc[s] : 1.0);
        cong += (double)n * (double)w->acc[s];
    }
    j->dest_share[i] = sum;
    if (j->dest_cong)
        j->dest_cong[i] = cong;
    return 0;
}

/* ------------------------------------------------------------------ */
/* setup                                                                */

void ibr__analyze_free_worker(ibr_context *ctx, ibr__aworker *w)
{
    ibr__free(ctx, w->st);
    ibr__free(ctx, w->len);
    ibr__free(ctx, w->next);
    ibr__free(ctx, w->link);
    ibr__free(ctx, w->stack);
    ibr__free(ctx, w->order);
    ibr__free(ctx, w->acc);
    ibr__free(ctx, w->vmask);
    ibr__free(ctx, w->load);
    ibr__free(ctx, w->hist);
    ibr__free(ctx, w->cnt);
    ibr__free(ctx, w->touched);
    ibr__free(ctx, w->perm);
    ibr__free(ctx, w->fsw);
    ibr__free(ctx, w->fdlid);
    ibr__free(ctx, w->fcur);
    ibr__free(ctx, w->active);
    ibr__free(ctx, w->fdsw);
    ibr__free(ctx, w->frow);
    ibr__free(ctx, w->flen);
    ibr__free(ctx, w->buf);
    ibr__free(ctx, w->bcnt);
    ibr__free(ctx, w->bdix);
    ibr__free(ctx, w->btouch);
    ibr__free(ctx, w->bup);
    ibr__free(ctx, w->bterm);
    ibr__free(ctx, w->bpar);
    ibr__free(ctx, w->ga);
    ibr__free(ctx, w->gb);
    ibr__free(ctx, w->gm);
    ibr__free(ctx, w->gno);
    ibr__free(ctx, w->gne);
    ibr__free(ctx, w->gent);
    ibr__free(ctx, w->barc);
    ibr__free(ctx, w->gpath);
    ibr__free(ctx, w->nfirst);
    ibr__free(ctx, w->nlevel);
    ibr__free(ctx, w->nit);
    ibr__free(ctx, w->nqueue);
    ibr__free(ctx, w->ato);
    ibr__free(ctx, w->anext);
    ibr__free(ctx, w->acap);
    memset(w, 0, sizeof *w);
}

static int alloc_worker(ibr_context *ctx, const ibr__ajob *j, ibr__aworker *w)
{
    size_t n1 = j->nsw ? j->nsw : 1;
    w->st = ibr__mallocarray(ctx, n1, 1);
    w->len = ibr__mallocarray(ctx, n1, sizeof *w->len);
    w->next = ibr__mallocarray(ctx, n1, sizeof *w->next);
    w->link = ibr__mallocarray(ctx, n1, sizeof *w->link);
    w->stack = ibr__mallocarray(ctx, n1, sizeof *w->stack);
    w->order = ibr__mallocarray(ctx, n1, sizeof *w->order);
    w->acc = ibr__mallocarray(ctx, n1, sizeof *w->acc);
    if (j->vl_mode == VL_TABLE)
        w->vmask = ibr__mallocarray(ctx, n1 * 16, sizeof *w->vmask);
    w->load = ibr__calloc(ctx, j->t->n_adj ? j->t->n_adj : 1, sizeof *w->load);
    w->hist = ibr__calloc(ctx, (size_t)j->nsw + 2, sizeof *w->hist);
    if (!w->st || !w->len || !w->next || !w->link || !w->stack || !w->order || !w->acc ||
        (j->vl_mode == VL_TABLE && !w->vmask) || !w->load || !w->hist)
        return IBR_ENOMEM;
    return 0;
}

static void free_job(ibr_context *ctx, ibr__ajob *j)
{
    ibr__free(ctx, (void *)j->dist);
    ibr__free(ctx, j->port_link);
    ibr__free(ctx, j->link_dst);
    ibr__free(ctx, j->sw_port_off);
    ibr__free(ctx, j->ep_sw);
    ibr__free(ctx, j->ep_slot);
    ibr__free(ctx, j->ep_lid);
    ibr__free(ctx, j->ep_lmc);
    ibr__free(ctx, j->ep_port);
    ibr__free(ctx, j->sw_ep_off);
    ibr__free(ctx, j->sw_ep);
    ibr__free(ctx, j->ep_sws);
    ibr__free(ctx, j->lid_ep);
    ibr__free(ctx, j->dest_lid);
    ibr__free(ctx, j->dest_stretch);
    ibr__free(ctx, j->dest_share);
    ibr__free(ctx, j->pat);
    ibr__free(ctx, j->lft_t);
    ibr__free(ctx, j->hop);
    ibr__free(ctx, j->recip);
    ibr__free(ctx, j->rank_ep);
    ibr__free(ctx, j->rail_off);
    ibr__free(ctx, j->rail_rank);
    ibr__free(ctx, j->dest_cong);
    ibr__analyze_free_cuts(ctx, &j->cuts);
    if (j->w)
        for (unsigned i = 0; i < j->nw; i++)
            ibr__analyze_free_worker(ctx, &j->w[i]);
    ibr__free(ctx, j->w);
}

/* Dense tables of the topology and the list of end ports cabled to a
   switch, their LIDs and the switches that have them. */
static int build_tables(ibr_context *ctx, ibr__ajob *j)
{
    const ibr_topo *t = j->t;
    uint32_t nsw = t->n_sw;
    size_t n1 = nsw ? nsw : 1;
    j->port_link = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *j->port_link);
    j->link_dst = ibr__mallocarray(ctx, t->n_adj ? t->n_adj : 1, sizeof *j->link_dst);
    j->sw_port_off = ibr__mallocarray(ctx, n1, sizeof *j->sw_port_off);
    j->ep_sw = ibr__mallocarray(ctx, t->n_end ? t->n_end : 1, sizeof *j->ep_sw);
    j->ep_slot = ibr__mallocarray(ctx, t->n_end ? t->n_end : 1, sizeof *j->ep_slot);
    j->ep_lid = ibr__mallocarray(ctx, t->n_end ? t->n_end : 1, sizeof *j->ep_lid);
    j->ep_lmc = ibr__mallocarray(ctx, t->n_end ? t->n_end : 1, 1);
    j->ep_port = ibr__mallocarray(ctx, t->n_end ? t->n_end : 1, 1);
    j->sw_ep_off = ibr__calloc(ctx, (size_t)nsw + 1, sizeof *j->sw_ep_off);
    j->sw_ep = ibr__mallocarray(ctx, t->n_end ? t->n_end : 1, sizeof *j->sw_ep);
    j->ep_sws = ibr__mallocarray(ctx, n1, sizeof *j->ep_sws);
    j->lid_ep = ibr__mallocarray(ctx, (size_t)t->max_lid + 1, sizeof *j->lid_ep);
    if (!j->port_link || !j->link_dst || !j->sw_port_off || !j->ep_sw || !j->ep_slot ||
        !j->ep_lid || !j->ep_lmc || !j->ep_port || !j->sw_ep_off || !j->sw_ep || !j->ep_sws ||
        !j->lid_ep)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_ports; i++)
        j->port_link[i] = IBR_NONE;
    for (uint32_t s = 0; s < nsw; s++) {
        j->sw_port_off[s] = t->nodes[t->sw_node[s]].port_off;
        for (uint32_t e = t->adj_off[s]; e < t->adj_off[s + 1]; e++) {
            j->port_link[j->sw_port_off[s] + t->adj[e].port] = e;
            j->link_dst[e] = t->adj[e].sw;
        }
    }
    for (size_t l = 0; l <= t->max_lid; l++)
        j->lid_ep[l] = IBR_NONE;
    uint32_t n = 0;
    size_t ndest = 0;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *pt = &t->ports[t->end_port[i]];
        if (pt->remote_node == IBR_NONE || t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
            continue;
        j->ep_sw[n] = t->nodes[pt->remote_node].sw;
        j->ep_slot[n] = i;
        j->ep_lid[n] = pt->lid;
        j->ep_lmc[n] = pt->lmc;
        j->ep_port[n] = pt->remote_port;
        for (uint32_t l = pt->lid; l < pt->lid + (1u << pt->lmc) && l <= t->max_lid; l++) {
            j->lid_ep[l] = n;
            ndest++;
        }
        j->sw_ep_off[j->ep_sw[n] + 1]++;
        n++;
    }
    j->n_ep = n;
    for (uint32_t s = 0; s < nsw; s++) {
        if (j->sw_ep_off[s + 1])
            j->ep_sws[j->n_ep_sws++] = s;
        j->sw_ep_off[s + 1] += j->sw_ep_off[s];
    }
    /* fill the CSR in end-port order */
    uint32_t *cur = ibr__mallocarray(ctx, n1, sizeof *cur);
    if (!cur)
        return IBR_ENOMEM;
    memcpy(cur, j->sw_ep_off, n1 * sizeof *cur);
    for (uint32_t e = 0; e < n; e++)
        j->sw_ep[cur[j->ep_sw[e]]++] = e;
    ibr__free(ctx, cur);

    j->n_dest = (uint32_t)ndest;
    j->dest_lid = ibr__mallocarray(ctx, ndest ? ndest : 1, sizeof *j->dest_lid);
    j->dest_stretch = ibr__mallocarray(ctx, ndest ? ndest : 1, sizeof *j->dest_stretch);
    j->dest_share = ibr__mallocarray(ctx, ndest ? ndest : 1, sizeof *j->dest_share);
    if (!j->dest_lid || !j->dest_stretch || !j->dest_share)
        return IBR_ENOMEM;
    ndest = 0;
    for (size_t l = 1; l <= t->max_lid; l++)
        if (j->lid_ep[l] != IBR_NONE)
            j->dest_lid[ndest++] = (uint16_t)l;
    return 0;
}

/* Sizes of ibr_analyze_options and ibr_analysis_summary per version (see
   IBR__VERSION_SIZE). */
static const size_t options_size[] = {0, offsetof(ibr_analyze_options, workloads),
                                      sizeof(ibr_analyze_options)};
static const size_t summary_size[] = {0, sizeof(ibr_analysis_summary)};

int ibr_analyze_options_init(ibr_analyze_options *opts, unsigned int version)
{
    static const ibr_analyze_options def = IBR_ANALYZE_OPTIONS_INIT;
    return ibr__versioned_init(opts, &def, IBR__VERSION_SIZE(options_size, version), version);
}

int ibr_analysis_summary_init(ibr_analysis_summary *sum, unsigned int version)
{
    static const ibr_analysis_summary def = IBR_ANALYSIS_SUMMARY_INIT;
    return ibr__versioned_init(sum, &def, IBR__VERSION_SIZE(summary_size, version), version);
}

/* The caller's options, read as far as their version declares, over the
   defaults of the current version. */
static int check_options(ibr_analyze_options *o, const ibr_analyze_options *opts)
{
    ibr_analyze_options def = IBR_ANALYZE_OPTIONS_INIT;
    if (opts) {
        size_t size = IBR__VERSION_SIZE(options_size, opts->version);
        if (!size)
            return IBR_EVERSION;
        memcpy(&def, opts, size);
        def.version = IBR_ANALYZE_OPTIONS_VERSION;
    }
    if (def.patterns & ~(unsigned)IBR_PATTERN_ALL || def.workloads & ~(unsigned)IBR_WORKLOAD_ALL ||
        (def.n_ranks && !def.rank_guids) || def.n_ranks > UINT32_MAX || !def.moe_group ||
        def.top_links > IBR_WORKLOAD_MAX_TOP)
        return IBR_EINVAL;
    *o = def;
    return 0;
}

/* The job of one analysis of r with options o. */
static void job_init(ibr__ajob *j, const ibr_result *r, const ibr_analyze_options *o)
{
    const ibr_topo *t = r->topo;
    memset(j, 0, sizeof *j);
    j->t = t;
    j->r = r;
    j->opts = *o;
    j->nsw = t->n_sw;
    j->lft_size = r->lft_size;
    j->lft = r->lft;
    if (r->sl2vl)
        j->vl_mode = VL_TABLE;
    else
        j->vl_mode = r->sl_mode == IBR_SL_PER_PAIR ? VL_PAIR : VL_FIXED;
    j->levels = ibr__result_qos_levels(r);
    if (j->levels > IBR__AN_LEVELS)
        j->levels = IBR__AN_LEVELS;
    j->stride = ibr__result_qos_stride(r);
}

/* The analysis object, empty but for its identity and link loads. */
static ibr_analysis *analysis_new(ibr_context *ctx, const ibr__ajob *j)
{
    ibr_analysis *a = ibr__calloc(ctx, 1, sizeof *a);
    if (!a)
        return NULL;
    a->ctx = ctx;
    a->opts = j->opts;
    a->opts.rank_guids = NULL; /* borrowed for the call only */
    a->levels = j->levels;
    memcpy(a->engine, j->r->engine, sizeof a->engine);
    a->engine[sizeof a->engine - 1] = 0;
    a->n_links = j->t->n_adj;
    a->loads = ibr__calloc(ctx, j->t->n_adj ? j->t->n_adj : 1, sizeof *a->loads);
    for (unsigned i = 0; i < 4; i++)
        a->bound[i] = 1.0;
    return a;
}

/* *want bit of the workloads that walk patterns. */
#define WANT_WORKLOADS (1u << 16)

/* Everything the passes read: the tables, the transposed LFT when
   patterns other than all-to-all are wanted, switch distances, cuts and
   one worker per thread. *want gets the patterns other than all-to-all
   to analyse (none with fewer than two end ports). */
static int job_prepare(ibr_context *ctx, ibr__ajob *j, unsigned *want)
{
    int rc;
    *want = 0;
    if ((rc = build_tables(ctx, j)) < 0 || (rc = ibr__analyze_ranks(j)) < 0)
        return rc;
    if (j->n_rank >= 2)
        *want = (j->opts.patterns &
                 (IBR_PATTERN_SHIFT | IBR_PATTERN_PERMUTATION | IBR_PATTERN_BISECTION)) |
                (j->opts.workloads & ~(unsigned)IBR_WORKLOAD_ALL_TO_ALL ? WANT_WORKLOADS : 0u);
    if (j->opts.workloads & IBR_WORKLOAD_ALL_TO_ALL) {
        j->dest_cong = ibr__calloc(ctx, j->n_dest ? j->n_dest : 1, sizeof *j->dest_cong);
        if (!j->dest_cong)
            return IBR_ENOMEM;
    }
    if (*want) {
        size_t tiles = (j->lft_size + 63) / 64;
        j->lft_t = ibr__calloc(ctx, tiles * 64, j->nsw ? j->nsw : 1);
        if (!j->lft_t)
            return IBR_ENOMEM;
    }
    uint8_t *dist = NULL;
    j->nw = ibr__resolve_threads(j->opts.threads);
    if (j->nw > j->n_dest && j->n_dest)
        j->nw = j->n_dest;
    if ((rc = ibr__switch_hops(&dist, j->t, j->nw)) < 0)
        return rc;
    j->dist = dist;
    if (j->n_ep >= 2 && (j->opts.patterns || j->opts.workloads) &&
        (rc = ibr__analyze_cuts(j)) < 0)
        return rc;
    j->w = ibr__calloc(ctx, j->nw, sizeof *j->w);
    if (!j->w)
        return IBR_ENOMEM;
    for (unsigned i = 0; i < j->nw; i++)
        if ((rc = alloc_worker(ctx, j, &j->w[i])) < 0)
            return rc;
    return 0;
}

/* The workers' sums of pass 1 into a's summary, loads, VL counts and hop
   histogram. */
static int merge_paths(ibr_analysis *a, ibr__ajob *j)
{
    const ibr_topo *t = j->t;
    ibr_analysis_summary *s = &a->sum;
    s->version = IBR_ANALYSIS_SUMMARY_VERSION;
    s->endports = j->n_ep;
    s->links = t->n_adj;
    uint64_t hop_sum = 0;
    size_t nh = (size_t)j->nsw + 2;
    for (unsigned i = 0; i < j->nw; i++) {
        ibr__aworker *w = &j->w[i];
        s->pairs += w->pairs;
        s->pairs_routed += w->pairs_ok;
        hop_sum += w->hop_sum;
        if (w->max_hops > s->max_hops)
            s->max_hops = w->max_hops;
        if (w->max_stretch > s->max_stretch)
            s->max_stretch = w->max_stretch;
        if (w->max_len > j->max_len)
            j->max_len = w->max_len;
        for (uint32_t l = 0; l < t->n_adj; l++)
            a->loads[l] += w->load[l];
        for (unsigned l = 0; l < j->levels; l++)
            for (unsigned v = 0; v < 16; v++)
                a->vl[l][v] += w->vl[l][v];
    }
    a->n_hist = (size_t)s->max_hops + 1;
    a->hist = ibr__calloc(a->ctx, a->n_hist, sizeof *a->hist);
    if (!a->hist)
        return IBR_ENOMEM;
    for (unsigned i = 0; i < j->nw; i++)
        for (size_t h = 0; h < a->n_hist && h < nh; h++)
            a->hist[h] += j->w[i].hist[h];
    double ssum = 0.0;
    for (uint32_t i = 0; i < j->n_dest; i++)
        ssum += j->dest_stretch[i];
    if (s->pairs_routed) {
        s->avg_hops = (double)hop_sum / (double)s->pairs_routed;
        s->avg_stretch = ssum / (double)s->pairs_routed;
    }
    uint64_t lsum = 0;
    for (uint32_t l = 0; l < t->n_adj; l++) {
        lsum += a->loads[l];
        if (a->loads[l] > s->max_link_load)
            s->max_link_load = a->loads[l];
    }
    s->mean_link_load = t->n_adj ? (double)lsum / (double)t->n_adj : 0.0;
    s->load_ratio = s->mean_link_load > 0.0 ? (double)s->max_link_load / s->mean_link_load : 0.0;
    for (unsigned v = 0; v < 16; v++) {
        uint64_t any = 0;
        for (unsigned l = 0; l < j->levels; l++)
            any |= a->vl[l][v];
        if (any)
            s->vls_used++;
    }
    return 0;
}

/* All-to-all as a pattern: its statistics and bound. */
static int pattern_all_to_all(ibr_analysis *a, ibr__ajob *j)
{
    ibr_analysis_summary *s = &a->sum;
    int rc;
    j->load = a->loads;
    if ((rc = ibr__parallel_for(j->nw, j->n_dest, pass_share, j)) < 0)
        return rc;
    ibr_pattern_stats *p = &s->all_to_all;
    double share = 0.0;
    for (uint32_t i = 0; i < j->n_dest; i++)
        share += j->dest_share[i];
    p->patterns = 1;
    p->flows = j->n_ep ? (uint64_t)j->n_dest * (j->n_ep - 1) : 0;
    p->unrouted = p->flows - s->pairs_routed;
    p->max_congestion = s->max_link_load;
    p->mean_max_congestion = (double)s->max_link_load;
    p->congestion_free = s->max_link_load <= 1;
    p->ebb = p->flows ? share / (double)p->flows : 1.0;
    if (p->flows) {
        double b;
        if ((rc = ibr__analyze_bound_a2a(&b, j)) < 0)
            return rc;
        a->bound[0] = b / (double)p->flows;
    }
    return 0;
}

/* The shift, permutation and bisection patterns wanted. */
static int patterns_other(ibr_analysis *a, ibr__ajob *j, unsigned want)
{
    ibr_analysis_summary *s = &a->sum;
    int rc;
    if ((rc = ibr__analyze_pattern_scratch(j)) < 0)
        return rc;
    size_t nrand = j->opts.n_random;
    /* records for the shift and permutation workloads, taken on the way */
    int wsh = (want & WANT_WORKLOADS) && (j->opts.workloads & IBR_WORKLOAD_SHIFT);
    int wpm = (want & WANT_WORKLOADS) && (j->opts.workloads & IBR_WORKLOAD_PERMUTATION);
    if ((want & IBR_PATTERN_SHIFT) &&
        (rc = ibr__analyze_patterns(&s->shift, &a->bound[1], j, IBR_PATTERN_SHIFT,
                                    j->n_rank - 1, wsh ? &j->pre[0] : NULL)) < 0)
        return rc;
    if ((want & IBR_PATTERN_SHIFT) && wsh)
        j->pre_have |= 1u;
    if ((want & IBR_PATTERN_PERMUTATION) &&
        (rc = ibr__analyze_patterns(&s->permutation, &a->bound[2], j, IBR_PATTERN_PERMUTATION,
                                    nrand, wpm ? &j->pre[1] : NULL)) < 0)
        return rc;
    if ((want & IBR_PATTERN_PERMUTATION) && wpm)
        j->pre_have |= 2u;
    if ((want & IBR_PATTERN_BISECTION) &&
        (rc = ibr__analyze_patterns(&s->bisection, &a->bound[3], j, IBR_PATTERN_BISECTION,
                                    nrand, NULL)) < 0)
        return rc;
    return 0;
}

/* The all-to-all workload's record: the all-to-all pattern, its mean flow
   congestion and the links of the highest all-to-all load. */
static void a2a_record(ibr__awl *rec, const ibr_analysis *a, ibr__ajob *j)
{
    memset(rec, 0, sizeof *rec);
    rec->bit = IBR_WORKLOAD_ALL_TO_ALL;
    rec->st = a->sum.all_to_all;
    rec->bound = a->bound[0];
    rec->worst_ebb = rec->st.ebb;
    double cong = 0.0;
    for (uint32_t i = 0; i < j->n_dest; i++)
        cong += j->dest_cong[i];
    uint64_t routed = rec->st.flows - rec->st.unrouted;
    rec->flow_cong = routed ? cong / (double)routed : 0.0;
    unsigned want = j->opts.top_links, n = 0;
    uint32_t top[IBR_WORKLOAD_MAX_TOP];
    for (uint32_t l = 0; l < a->n_links; l++) {
        uint64_t c = a->loads[l];
        unsigned p = n;
        if (!c)
            continue;
        while (p > 0 && a->loads[top[p - 1]] < c)
            p--;
        if (p >= want)
            continue;
        for (unsigned q = n < want ? n : want - 1; q > p; q--)
            top[q] = top[q - 1];
        top[p] = l;
        if (n < want)
            n++;
    }
    rec->n_top = n;
    for (unsigned i = 0; i < n; i++)
        ibr__analyze_link_info(&rec->top[i], j, top[i], a->loads[top[i]]);
}

/* The workloads asked for, into a->wl. */
static int workloads(ibr_analysis *a, ibr__ajob *j, unsigned want)
{
    unsigned bits = j->opts.workloads, nb = 0;
    for (unsigned b = bits; b; b &= b - 1)
        nb++;
    a->wlo = (ibr__awlopts){j->opts.workloads, j->n_rank, j->n_rails,
                            {j->gdim[0], j->gdim[1], j->gdim[2]}, j->opts.moe_group,
                            j->opts.moe_fanout, j->opts.n_random, j->opts.seed};
    a->wl = ibr__calloc(a->ctx, nb ? nb : 1, sizeof *a->wl);
    if (!a->wl)
        return IBR_ENOMEM;
    ibr__awl rec;
    const ibr__awl *a2a = NULL;
    if ((bits & IBR_WORKLOAD_ALL_TO_ALL) && a->sum.all_to_all.patterns) {
        a2a_record(&rec, a, j);
        a2a = &rec;
    }
    if (!(want & WANT_WORKLOADS)) {
        if (a2a)
            a->wl[a->n_wl++] = rec;
        return 0;
    }
    return ibr__analyze_workloads(j, a->wl, &a->n_wl, a2a);
}

int ibr_result_analyze(ibr_analysis **out, const ibr_result *r, const ibr_analyze_options *opts)
{
    if (!out || !r || !r->lft || r->status != 0)
        return IBR_EINVAL;
    ibr_analyze_options o;
    int rc = check_options(&o, opts);
    if (rc < 0)
        return rc;
    ibr_context *ctx = ibr__ctx(r->topo->ctx);
    ibr__ajob j;
    job_init(&j, r, &o);
    ibr_analysis *a = analysis_new(ctx, &j);
    if (!a)
        return IBR_ENOMEM;
    unsigned want = 0;
    rc = a->loads ? 0 : IBR_ENOMEM;
    if (rc == 0)
        rc = job_prepare(ctx, &j, &want);
    /* pass 1: every path */
    if (rc == 0)
        rc = ibr__parallel_for(j.nw, j.n_dest, pass_paths, &j);
    if (rc == 0)
        rc = merge_paths(a, &j);
    if (rc == 0 && ((o.patterns & IBR_PATTERN_ALL_TO_ALL) ||
                    (o.workloads & IBR_WORKLOAD_ALL_TO_ALL)))
        rc = pattern_all_to_all(a, &j);
    if (rc == 0 && want)
        rc = patterns_other(a, &j, want);
    if (rc == 0 && o.workloads)
        rc = workloads(a, &j, want);
    free_job(ctx, &j);
    if (rc < 0) {
        ibr_analysis_destroy(a);
        return rc;
    }
    *out = a;
    return 0;
}

/* ------------------------------------------------------------------ */
/* accessors                                                            */

void ibr_analysis_destroy(ibr_analysis *a)
{
    if (!a)
        return;
    ibr_context *ctx = a->ctx;
    for (size_t i = 0; a->wl && i < a->n_wl; i++)
        ibr__free(ctx, a->wl[i].steps);
    ibr__free(ctx, a->wl);
    ibr__free(ctx, a->hist);
    ibr__free(ctx, a->loads);
    ibr__free(ctx, a);
}

int ibr_analysis_summary_get(ibr_analysis_summary *out, const ibr_analysis *a)
{
    if (!out || !a)
        return IBR_EINVAL;
    /* no further than the caller's version reaches */
    size_t size = IBR__VERSION_SIZE(summary_size, out->version);
    if (!size)
        return IBR_EVERSION;
    ibr_analysis_summary s;
    memcpy(&s, &a->sum, sizeof s); /* padding included: calloc'ed, so zero */
    s.version = out->version;
    memcpy(out, &s, size);
    return 0;
}

int ibr_analysis_hop_histogram(uint64_t *counts, size_t cap, size_t *needed,
                               const ibr_analysis *a)
{
    if (!a || (!counts && cap))
        return IBR_EINVAL;
    if (needed)
        *needed = a->n_hist;
    if (cap < a->n_hist)
        return IBR_ERANGE;
    if (a->n_hist)
        memcpy(counts, a->hist, a->n_hist * sizeof *counts);
    return 0;
}

int ibr_analysis_vl_usage(uint64_t counts[16], const ibr_analysis *a)
{
    if (!a || !counts)
        return IBR_EINVAL;
    memcpy(counts, a->vl[0], sizeof a->vl[0]);
    return 0;
}

unsigned int ibr_analysis_qos_levels(const ibr_analysis *a)
{
    return a ? a->levels : 0;
}

int ibr_analysis_vl_usage_level(uint64_t counts[16], const ibr_analysis *a, unsigned int level)
{
    if (!a || !counts)
        return IBR_EINVAL;
    if (level >= a->levels)
        return IBR_ERANGE;
    memcpy(counts, a->vl[level], sizeof a->vl[level]);
    return 0;
}

int ibr_analysis_link_loads(uint64_t *loads, size_t cap, size_t *needed, const ibr_analysis *a)
{
    if (!a || (!loads && cap))
        return IBR_EINVAL;
    if (needed)
        *needed = a->n_links;
    if (cap < a->n_links)
        return IBR_ERANGE;
    if (a->n_links)
        memcpy(loads, a->loads, a->n_links * sizeof *loads);
    return 0;
}

static int family_index(unsigned pattern)
{
    switch (pattern) {
    case IBR_PATTERN_ALL_TO_ALL:
        return 0;
    case IBR_PATTERN_SHIFT:
        return 1;
    case IBR_PATTERN_PERMUTATION:
        return 2;
    case IBR_PATTERN_BISECTION:
        return 3;
    default:
        return -1;
    }
}

static const ibr_pattern_stats *family_stats(const ibr_analysis *a, unsigned i);

/* eBB / bound; 1 when nothing is achievable (then the eBB is 0 too). */
static double vs_bound(double ebb, double bound)
{
    return bound > 0.0 ? ebb / bound : 1.0;
}

int ibr_analysis_ebb_bound(double *out, const ibr_analysis *a, unsigned int pattern)
{
    int i = family_index(pattern);
    if (!out || !a || i < 0)
        return IBR_EINVAL;
    if (!family_stats(a, (unsigned)i)->patterns)
        return IBR_ENOTFOUND;
    *out = a->bound[i];
    return 0;
}

/* ------------------------------------------------------------------ */
/* writers                                                              */

static const char *const family_key[4] = {"all_to_all", "shift", "permutation", "bisection"};
static const char *const family_label[4] = {"all-to-all", "shift", "permutation", "bisection"};

static const ibr_pattern_stats *family_stats(const ibr_analysis *a, unsigned i)
{
    switch (i) {
    case 0:
        return &a->sum.all_to_all;
    case 1:
        return &a->sum.shift;
    case 2:
        return &a->sum.permutation;
    default:
        return &a->sum.bisection;
    }
}

int ibr__json_string(ibr_buffer *b, ibr_context *ctx, const char *s, size_t n)
{
    int rc = ibr__buf_putc(b, ctx, '"');
    for (size_t i = 0; rc == 0 && i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"':
        case '\\':
            rc = ibr__buf_printf(b, ctx, "\\%c", c);
            break;
        case '\n':
            rc = ibr__buf_puts(b, ctx, "\\n");
            break;
        case '\r':
            rc = ibr__buf_puts(b, ctx, "\\r");
            break;
        case '\t':
            rc = ibr__buf_puts(b, ctx, "\\t");
            break;
        default:
            rc = c < 0x20 ? ibr__buf_printf(b, ctx, "\\u%04x", c) : ibr__buf_putc(b, ctx, (char)c);
        }
    }
    return rc ? rc : ibr__buf_putc(b, ctx, '"');
}

int ibr_analysis_write_json(ibr_buffer *out, const ibr_analysis *a)
{
    if (!a)
        return IBR_EINVAL;
    size_t mark;
    int rc = ibr__buf_begin(out, a->ctx, &mark);
    if (rc < 0)
        return rc;
    ibr_context *ctx = a->ctx;
    const ibr_analysis_summary *s = &a->sum;
    rc = ibr__buf_puts(out, ctx, "{\n  \"engine\": ");
    if (!rc)
        rc = ibr__json_string(out, ctx, a->engine, strlen(a->engine));
    if (!rc)
        rc = ibr__buf_printf(out, ctx,
                             ",\n  \"options\": {\"patterns\": %u, \"n_random\": %u, "
                             "\"seed\": %llu, \"base_lid_only\": %s},\n",
                             a->opts.patterns, a->opts.n_random,
                             (unsigned long long)a->opts.seed,
                             a->opts.base_lid_only ? "true" : "false");
    if (!rc)
        rc = ibr__buf_printf(out, ctx,
                             "  \"endports\": %u,\n  \"pairs\": %llu,\n  \"pairs_routed\": %llu,\n"
                             "  \"avg_hops\": %.9g,\n  \"max_hops\": %u,\n"
                             "  \"avg_stretch\": %.9g,\n  \"max_stretch\": %.9g,\n"
                             "  \"links\": %llu,\n  \"max_link_load\": %llu,\n"
                             "  \"mean_link_load\": %.9g,\n  \"load_ratio\": %.9g,\n"
                             "  \"vls_used\": %u,\n",
                             (unsigned)s->endports, (unsigned long long)s->pairs,
                             (unsigned long long)s->pairs_routed, s->avg_hops, s->max_hops,
                             s->avg_stretch, s->max_stretch, (unsigned long long)s->links,
                             (unsigned long long)s->max_link_load, s->mean_link_load,
                             s->load_ratio, s->vls_used);
    for (unsigned i = 0; i < 4 && !rc; i++) {
        const ibr_pattern_stats *p = family_stats(a, i);
        rc = ibr__buf_printf(out, ctx,
                             "  \"%s\": {\"patterns\": %u, \"flows\": %llu, \"unrouted\": %llu, "
                             "\"max_congestion\": %llu, \"mean_max_congestion\": %.9g, "
                             "\"congestion_free\": %llu, \"ebb\": %.9g, \"ebb_bound\": %.9g, "
                             "\"ebb_vs_bound\": %.9g},\n",
                             family_key[i], p->patterns, (unsigned long long)p->flows,
                             (unsigned long long)p->unrouted,
                             (unsigned long long)p->max_congestion, p->mean_max_congestion,
                             (unsigned long long)p->congestion_free, p->ebb, a->bound[i],
                             vs_bound(p->ebb, a->bound[i]));
    }
    if (!rc)
        rc = ibr__buf_puts(out, ctx, "  \"hop_histogram\": [");
    for (size_t h = 0; h < a->n_hist && !rc; h++)
        rc = ibr__buf_printf(out, ctx, "%s%llu", h ? ", " : "", (unsigned long long)a->hist[h]);
    if (!rc)
        rc = ibr__buf_puts(out, ctx, "],\n  \"vl_usage\": [");
    for (unsigned v = 0; v < 16 && !rc; v++)
        rc = ibr__buf_printf(out, ctx, "%s%llu", v ? ", " : "", (unsigned long long)a->vl[0][v]);
    if (!rc)
        rc = ibr__buf_printf(out, ctx, "],\n  \"qos_levels\": %u,\n  \"vl_usage_levels\": [",
                             a->levels);
    for (unsigned l = 0; l < a->levels && !rc; l++) {
        rc = ibr__buf_puts(out, ctx, l ? ", [" : "[");
        for (unsigned v = 0; v < 16 && !rc; v++)
            rc = ibr__buf_printf(out, ctx, "%s%llu", v ? ", " : "",
                                 (unsigned long long)a->vl[l][v]);
        if (!rc)
            rc = ibr__buf_putc(out, ctx, ']');
    }
    if (!rc)
        rc = ibr__buf_putc(out, ctx, ']');
    if (!rc && a->opts.workloads)
        rc = ibr__write_workloads_json(out, ctx, a->wl, a->n_wl, &a->wlo);
    if (!rc)
        rc = ibr__buf_puts(out, ctx, "\n}\n");
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

int ibr_analysis_write_text(ibr_buffer *out, const ibr_analysis *a)
{
    if (!a)
        return IBR_EINVAL;
    size_t mark;
    int rc = ibr__buf_begin(out, a->ctx, &mark);
    if (rc < 0)
        return rc;
    ibr_context *ctx = a->ctx;
    const ibr_analysis_summary *s = &a->sum;
    rc = ibr__buf_printf(out, ctx,
                         "routing %s: %u end ports, %llu directed switch-to-switch links\n"
                         "paths: %llu of %llu routed, %.3f hops on average, at most %u; "
                         "stretch %.3f on average, at most %.3f\n"
                         "link load (all-to-all, every LID): max %llu, mean %.2f, max/mean %.3f\n",
                         a->engine[0] ? a->engine : "(unnamed)", (unsigned)s->endports,
                         (unsigned long long)s->links, (unsigned long long)s->pairs_routed,
                         (unsigned long long)s->pairs, s->avg_hops, s->max_hops, s->avg_stretch,
                         s->max_stretch, (unsigned long long)s->max_link_load, s->mean_link_load,
                         s->load_ratio);
    if (!rc)
        rc = ibr__buf_puts(out, ctx, "hops:");
    for (size_t h = 0; h < a->n_hist && !rc; h++)
        if (a->hist[h])
            rc = ibr__buf_printf(out, ctx, " %zu:%llu", h, (unsigned long long)a->hist[h]);
    if (!rc && a->levels > 1)
        rc = ibr__buf_printf(out, ctx, "\nVLs used: %u over %u QoS levels (paths per VL):\n",
                             s->vls_used, a->levels);
    else if (!rc)
        rc = ibr__buf_printf(out, ctx, "\nVLs used: %u (paths per VL:", s->vls_used);
    for (unsigned l = 0; l < a->levels && !rc; l++) {
        uint64_t any = 0;
        if (a->levels > 1)
            rc = ibr__buf_printf(out, ctx, "  level %u:", l);
        for (unsigned v = 0; v < 16 && !rc; v++)
            if (a->vl[l][v]) {
                any |= a->vl[l][v];
                rc = ibr__buf_printf(out, ctx, " VL%u %llu", v, (unsigned long long)a->vl[l][v]);
            }
        if (!rc && !any)
            rc = ibr__buf_puts(out, ctx, " none");
        if (!rc)
            rc = ibr__buf_puts(out, ctx, a->levels > 1 ? "\n" : ")\n");
    }
    if (!rc)
        rc = ibr__buf_printf(out, ctx, "%-12s %8s %12s %10s %9s %9s %9s %8s %8s %9s\n",
                             "pattern", "patterns", "flows", "unrouted", "max-cong", "mean-max",
                             "cong-free", "eBB", "bound", "eBB/bound");
    for (unsigned i = 0; i < 4 && !rc; i++) {
        const ibr_pattern_stats *p = family_stats(a, i);
        if (!p->patterns)
            continue;
        rc = ibr__buf_printf(out, ctx,
                             "%-12s %8u %12llu %10llu %9llu %9.2f %9llu %8.4f %8.4f %9.4f\n",
                             family_label[i], p->patterns, (unsigned long long)p->flows,
                             (unsigned long long)p->unrouted,
                             (unsigned long long)p->max_congestion, p->mean_max_congestion,
                             (unsigned long long)p->congestion_free, p->ebb, a->bound[i],
                             vs_bound(p->ebb, a->bound[i]));
    }
    if (!rc && a->opts.workloads)
        rc = ibr__write_workloads_text(out, ctx, a->wl, a->n_wl, &a->wlo);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

size_t ibr_analysis_workload_count(const ibr_analysis *a)
{
    return a ? a->n_wl : 0;
}

int ibr_analysis_workload(const char **name, ibr_pattern_stats *stats, double *bound,
                          const ibr_analysis *a, size_t i)
{
    if (!a)
        return IBR_EINVAL;
    if (i >= a->n_wl)
        return IBR_ERANGE;
    if (name)
        *name = ibr__workload_name(a->wl[i].bit);
    if (stats)
        *stats = a->wl[i].st;
    if (bound)
        *bound = a->wl[i].bound;
    return 0;
}
