/*
 * Workloads of ibr_result_analyze() (analyze.h, "Workloads"): the rank
 * order and its groups (rails, MoE groups, the process grid), the
 * evaluation of each workload as a family of patterns (analyze_patterns.c
 * walks them), and their JSON and text.
 *
 * A workload's numbers are those of a pattern family: the congestion of a
 * flow is the most flows of the same pattern on one link of its path, its
 * share 1 / that, the eBB the mean share (mean over the workload's
 * patterns), the bound the cut bound of analyze_bound.c over the same
 * flows. Its limiting links are the busiest links of its most congested
 * pattern.
 */
#include <inttypes.h>
#include <string.h>

#include "core/buffer.h"
#include "verify/analyze_int.h"
#include "verify/verify_int.h"

void ibr__analyze_link_info(ibr__alink *out, const ibr__ajob *j, uint32_t l, uint64_t flows)
{
    const ibr_topo *t = j->t;
    uint32_t lo = 0, hi = j->nsw; /* the switch s with adj_off[s] <= l < adj_off[s + 1] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->adj_off[mid] <= l)
            lo = mid;
        else
            hi = mid;
    }
    const ibr__node *a = &t->nodes[t->sw_node[lo]], *b = &t->nodes[t->sw_node[t->adj[l].sw]];
    memset(out, 0, sizeof *out);
    out->flows = flows;
    out->guid = a->guid;
    out->port = t->adj[l].port;
    out->peer_guid = b->guid;
    out->peer_port = t->adj[l].rport;
    memcpy(out->name, a->desc, sizeof out->name);
    memcpy(out->peer, b->desc, sizeof out->peer);
    out->name[sizeof out->name - 1] = out->peer[sizeof out->peer - 1] = 0;
}

/* The rail of each rank from its node description: the number ending the
   description's last word ("node0003 mlx5_2": 2). Returns 0 when every
   rank has one, -1 otherwise. */
static int rails_from_desc(const ibr__ajob *j, uint64_t *key)
{
    const ibr_topo *t = j->t;
    for (uint32_t r = 0; r < j->n_rank; r++) {
        uint32_t gp = t->end_port[j->ep_slot[j->rank_ep[r]]];
        const char *d = t->nodes[t->port_node[gp]].desc;
        size_t e = strlen(d);
        while (e > 0 && d[e - 1] == ' ')
            e--;
        size_t b = e;
        while (b > 0 && d[b - 1] >= '0' && d[b - 1] <= '9' && e - b < 6)
            b--;
        if (b == e || (b > 0 && d[b - 1] >= '0' && d[b - 1] <= '9'))
            return -1;
        uint64_t v = 0;
        for (size_t i = b; i < e; i++)
            v = v * 10 + (uint64_t)(d[i] - '0');
        key[r] = v << 32 | r;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b, void *arg)
{
    (void)arg;
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The ranks of each rail, rank order within a rail. */
static int build_rails(ibr__ajob *j)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    uint32_t n = j->n_rank;
    uint64_t *key = ibr__mallocarray(ctx, n ? n : 1, sizeof *key);
    j->rail_off = ibr__mallocarray(ctx, (size_t)n + 1, sizeof *j->rail_off);
    j->rail_rank = ibr__mallocarray(ctx, n ? n : 1, sizeof *j->rail_rank);
    if (!key || !j->rail_off || !j->rail_rank) {
        ibr__free(ctx, key);
        return IBR_ENOMEM;
    }
    int found = 1;
    if (j->opts.rails)
        for (uint32_t r = 0; r < n; r++)
            key[r] = (uint64_t)(r % j->opts.rails) << 32 | r;
    else
        found = rails_from_desc(j, key) == 0;
    if (found && n) {
        ibr__sort(key, n, sizeof *key, cmp_u64, NULL);
        uint32_t nr = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i == 0 || key[i] >> 32 != key[i - 1] >> 32)
                j->rail_off[nr++] = i;
            j->rail_rank[i] = (uint32_t)key[i];
        }
        j->rail_off[nr] = n;
        j->n_rails = nr;
        for (uint32_t r = 0; r < nr; r++)
            if (j->rail_off[r + 1] - j->rail_off[r] > j->rail_max)
                j->rail_max = j->rail_off[r + 1] - j->rail_off[r];
    }
    ibr__free(ctx, key);
    return 0;
}

/* The grid of the options, or A x B with A the largest divisor of n up
   to its square root. */
static int build_grid(ibr__ajob *j)
{
    const unsigned *g = j->opts.grid;
    uint32_t n = j->n_rank;
    if (!g[0] && !g[1] && !g[2]) {
        unsigned a = 1;
        for (unsigned d = 1; (uint64_t)d * d <= n; d++)
            if (n % d == 0)
                a = d;
        j->gdim[0] = a;
        j->gdim[1] = n / (a ? a : 1);
        j->gdim[2] = 1;
        return 0;
    }
    if (!g[0] || !g[1])
        return IBR_EINVAL;
    uint64_t prod = (uint64_t)g[0] * g[1] * (g[2] ? g[2] : 1);
    if (prod != n)
        return IBR_EINVAL;
    j->gdim[0] = g[0];
    j->gdim[1] = g[1];
    j->gdim[2] = g[2] ? g[2] : 1;
    return 0;
}

/* The end port of each rank: the given order, or end-port order. */
static int map_ranks(ibr__ajob *j)
{
    ibr_context *ctx = ibr__ctx(j->t->ctx);
    const ibr_topo *t = j->t;
    const ibr_analyze_options *o = &j->opts;
    uint32_t n = o->rank_guids ? (uint32_t)o->n_ranks : j->n_ep;
    if (o->rank_guids && o->n_ranks > j->n_ep)
        return IBR_EINVAL; /* some end port would be named twice */
    j->rank_ep = ibr__mallocarray(ctx, n ? n : 1, sizeof *j->rank_ep);
    if (!j->rank_ep)
        return IBR_ENOMEM;
    j->n_rank = n;
    if (!o->rank_guids) {
        for (uint32_t i = 0; i < n; i++)
            j->rank_ep[i] = i;
        return 0;
    }
    uint32_t *ep_of = ibr__mallocarray(ctx, t->n_ports ? t->n_ports : 1, sizeof *ep_of);
    uint8_t *seen = ibr__calloc(ctx, j->n_ep ? j->n_ep : 1, 1);
    int rc = ep_of && seen ? 0 : IBR_ENOMEM;
    for (uint32_t i = 0; rc == 0 && i < t->n_ports; i++)
        ep_of[i] = IBR_NONE;
    for (uint32_t e = 0; rc == 0 && e < j->n_ep; e++)
        ep_of[t->end_port[j->ep_slot[e]]] = e;
    for (uint32_t r = 0; rc == 0 && r < n; r++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_find_guid(&node, &port, t, o->rank_guids[r]) < 0 ||
            t->nodes[node].type == IBR_NODE_SWITCH ||
            t->nodes[node].port_off + port >= t->n_ports ||
            ep_of[t->nodes[node].port_off + port] == IBR_NONE) {
            rc = IBR_ENOTFOUND;
            break;
        }
        uint32_t e = ep_of[t->nodes[node].port_off + port];
        if (seen[e]) {
            rc = IBR_EINVAL;
            break;
        }
        seen[e] = 1;
        j->rank_ep[r] = e;
    }
    ibr__free(ctx, ep_of);
    ibr__free(ctx, seen);
    return rc;
}

int ibr__analyze_ranks(ibr__ajob *j)
{
    const ibr_analyze_options *o = &j->opts;
    int rc = map_ranks(j);
    if (rc < 0)
        return rc;
    j->max_flows = j->n_rank;
    if (!o->workloads)
        return 0;
    if (o->workloads & (IBR_WORKLOAD_RAIL_RING | IBR_WORKLOAD_RAIL_RD))
        if ((rc = build_rails(j)) < 0)
            return rc;
    if (o->workloads & IBR_WORKLOAD_GRID)
        if ((rc = build_grid(j)) < 0)
            return rc;
    uint64_t per = 1;
    if (o->workloads & IBR_WORKLOAD_MOE && o->moe_fanout > per)
        per = o->moe_fanout;
    if (o->workloads & IBR_WORKLOAD_GRID && per < 6)
        per = 6;
    uint64_t mf = per * j->n_rank;
    if (mf > UINT32_MAX / 2)
        return IBR_ENOMEM;
    j->max_flows = (uint32_t)mf;
    return 0;
}

/* Steps of recursive doubling among m ranks: ceil(log2 m). */
static size_t rd_steps(uint32_t m)
{
    size_t k = 0;
    while (k < 32 && ((uint64_t)1 << k) < m)
        k++;
    return k;
}

int ibr__analyze_workloads(ibr__ajob *j, ibr__awl *rec, size_t *n, const ibr__awl *a2a)
{
    static const struct {
        unsigned bit, family;
    } fam[] = {
        {IBR_WORKLOAD_RING, IBR__FAM_RING},
        {IBR_WORKLOAD_RD, IBR__FAM_RD},
        {IBR_WORKLOAD_RAIL_RING, IBR__FAM_RAIL_RING},
        {IBR_WORKLOAD_RAIL_RD, IBR__FAM_RAIL_RD},
        {IBR_WORKLOAD_ALL_TO_ALL, 0},
        {IBR_WORKLOAD_MOE, IBR__FAM_MOE},
        {IBR_WORKLOAD_GRID, IBR__FAM_GRID},
        {IBR_WORKLOAD_SHIFT, IBR_PATTERN_SHIFT},
        {IBR_WORKLOAD_PERMUTATION, IBR_PATTERN_PERMUTATION},
    };
    *n = 0;
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++) {
        if (!(j->opts.workloads & fam[i].bit))
            continue;
        if (fam[i].bit == IBR_WORKLOAD_ALL_TO_ALL) {
            if (a2a)
                rec[(*n)++] = *a2a;
            continue;
        }
        size_t np;
        switch (fam[i].family) {
        case IBR__FAM_RD:
            np = rd_steps(j->n_rank);
            break;
        case IBR__FAM_RAIL_RING:
            np = j->n_rails ? 1 : 0;
            break;
        case IBR__FAM_RAIL_RD:
            np = j->n_rails ? rd_steps(j->rail_max) : 0;
            break;
        case IBR_PATTERN_SHIFT:
            np = j->n_rank - 1;
            break;
        case IBR__FAM_MOE:
        case IBR_PATTERN_PERMUTATION:
            np = j->opts.n_random;
            break;
        default:
            np = 1;
        }
        if (j->n_rank < 2 || !np)
            continue;
        ibr__awl *r = &rec[*n];
        unsigned pre = fam[i].family == IBR_PATTERN_SHIFT         ? 1u
                       : fam[i].family == IBR_PATTERN_PERMUTATION ? 2u
                                                                  : 0u;
        if (j->pre_have & pre) {
            *r = j->pre[pre >> 1];
            r->bit = fam[i].bit;
            (*n)++;
            continue;
        }
        memset(r, 0, sizeof *r);
        r->bit = fam[i].bit;
        double bound;
        ibr_pattern_stats st;
        int rc = ibr__analyze_patterns(&st, &bound, j, fam[i].family, np, r);
        (*n)++; /* counted even on failure: its steps are the caller's to free */
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* writers                                                              */

static const char *wl_name(unsigned bit)
{
    switch (bit) {
    case IBR_WORKLOAD_RING:
        return "ring";
    case IBR_WORKLOAD_RD:
        return "recursive_doubling";
    case IBR_WORKLOAD_RAIL_RING:
        return "rail_ring";
    case IBR_WORKLOAD_RAIL_RD:
        return "rail_recursive_doubling";
    case IBR_WORKLOAD_ALL_TO_ALL:
        return "all_to_all";
    case IBR_WORKLOAD_MOE:
        return "moe";
    case IBR_WORKLOAD_GRID:
        return "grid";
    case IBR_WORKLOAD_SHIFT:
        return "shift";
    default:
        return "permutation";
    }
}

const char *ibr__workload_name(unsigned bit)
{
    return wl_name(bit);
}

static double ratio(double ebb, double bound)
{
    return bound > 0.0 ? ebb / bound : 1.0;
}

static int json_link(ibr_buffer *out, ibr_context *ctx, const ibr__alink *l, int first)
{
    int rc = ibr__buf_puts(out, ctx, first ? "{\"switch\": " : ", {\"switch\": ");
    if (!rc)
        rc = ibr__json_string(out, ctx, l->name, strlen(l->name));
    if (!rc)
        rc = ibr__buf_printf(out, ctx, ", \"guid\": \"0x%016" PRIx64 "\", \"port\": %u, \"peer\": ",
                             l->guid, l->port);
    if (!rc)
        rc = ibr__json_string(out, ctx, l->peer, strlen(l->peer));
    if (!rc)
        rc = ibr__buf_printf(out, ctx,
                             ", \"peer_guid\": \"0x%016" PRIx64 "\", \"peer_port\": %u, "
                             "\"flows\": %llu}",
                             l->peer_guid, l->peer_port, (unsigned long long)l->flows);
    return rc;
}

static int json_one(ibr_buffer *out, ibr_context *ctx, const ibr__awl *w)
{
    const ibr_pattern_stats *p = &w->st;
    int rc = ibr__buf_printf(
        out, ctx,
        "    {\"name\": \"%s\", \"patterns\": %u, \"flows\": %llu, \"unrouted\": %llu, "
        "\"max_congestion\": %llu, \"mean_max_congestion\": %.9g, "
        "\"mean_flow_congestion\": %.9g, \"congestion_free\": %llu, \"ebb\": %.9g, "
        "\"worst_ebb\": %.9g, \"ebb_bound\": %.9g, \"ebb_vs_bound\": %.9g, "
        "\"worst_pattern\": %u,\n     \"steps\": [",
        wl_name(w->bit), p->patterns, (unsigned long long)p->flows,
        (unsigned long long)p->unrouted, (unsigned long long)p->max_congestion,
        p->mean_max_congestion, w->flow_cong, (unsigned long long)p->congestion_free, p->ebb,
        w->worst_ebb, w->bound, ratio(p->ebb, w->bound), w->worst);
    for (size_t k = 0; k < w->n_steps && !rc; k++) {
        const ibr__astep *s = &w->steps[k];
        rc = ibr__buf_printf(out, ctx,
                             "%s{\"step\": %zu, \"flows\": %llu, \"unrouted\": %llu, "
                             "\"max_congestion\": %llu, \"ebb\": %.9g, \"ebb_bound\": %.9g}",
                             k ? ", " : "", k, (unsigned long long)s->flows,
                             (unsigned long long)s->unrouted, (unsigned long long)s->max,
                             s->ebb, s->bound);
    }
    if (!rc)
        rc = ibr__buf_puts(out, ctx, "],\n     \"limiting_links\": [");
    for (unsigned i = 0; i < w->n_top && !rc; i++)
        rc = json_link(out, ctx, &w->top[i], i == 0);
    if (!rc)
        rc = ibr__buf_puts(out, ctx, "]}");
    return rc;
}

int ibr__write_workloads_json(ibr_buffer *out, ibr_context *ctx, const ibr__awl *w, size_t n,
                              const ibr__awlopts *o)
{
    int rc = ibr__buf_printf(out, ctx,
                             ",\n  \"ranks\": %u,\n  \"workload_options\": {\"workloads\": %u, "
                             "\"rails\": %u, \"grid\": [%u, %u, %u], \"moe_group\": %u, "
                             "\"moe_fanout\": %u, \"n_random\": %u, \"seed\": %llu},\n"
                             "  \"workloads\": [",
                             (unsigned)o->ranks, o->workloads, (unsigned)o->rails, o->grid[0],
                             o->grid[1], o->grid[2], o->moe_group, o->moe_fanout, o->n_random,
                             (unsigned long long)o->seed);
    for (size_t i = 0; i < n && !rc; i++) {
        rc = ibr__buf_puts(out, ctx, i ? ",\n" : "\n");
        if (!rc)
            rc = json_one(out, ctx, &w[i]);
    }
    if (!rc)
        rc = ibr__buf_puts(out, ctx, n ? "\n  ]" : "]");
    return rc;
}

int ibr__write_workloads_text(ibr_buffer *out, ibr_context *ctx, const ibr__awl *w, size_t n,
                              const ibr__awlopts *o)
{
    uint32_t ranks = o->ranks;
    int rc = ibr__buf_printf(out, ctx, "workloads over %u ranks:\n%-24s %8s %10s %8s %9s %9s "
                                       "%8s %9s %8s %9s\n",
                             (unsigned)ranks, "workload", "patterns", "flows", "unrouted",
                             "max-cong", "flow-cong", "eBB", "worst-eBB", "bound", "eBB/bound");
    for (size_t i = 0; i < n && !rc; i++) {
        const ibr_pattern_stats *p = &w[i].st;
        rc = ibr__buf_printf(out, ctx, "%-24s %8u %10llu %8llu %9llu %9.3f %8.4f %9.4f %8.4f %9.4f\n",
                             wl_name(w[i].bit), p->patterns, (unsigned long long)p->flows,
                             (unsigned long long)p->unrouted,
                             (unsigned long long)p->max_congestion, w[i].flow_cong, p->ebb,
                             w[i].worst_ebb, w[i].bound, ratio(p->ebb, w[i].bound));
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (w[i].n_steps) {
            rc = ibr__buf_printf(out, ctx, "%s steps (eBB, max congestion):", wl_name(w[i].bit));
            for (size_t k = 0; k < w[i].n_steps && !rc; k++)
                rc = ibr__buf_printf(out, ctx, " %zu:%.4f/%llu", k, w[i].steps[k].ebb,
                                     (unsigned long long)w[i].steps[k].max);
            if (!rc)
                rc = ibr__buf_putc(out, ctx, '\n');
        }
        if (!rc && w[i].n_top)
            rc = ibr__buf_printf(out, ctx, "%s limiting links (pattern %u):\n", wl_name(w[i].bit),
                                 w[i].worst);
        for (unsigned k = 0; k < w[i].n_top && !rc; k++) {
            const ibr__alink *l = &w[i].top[k];
            rc = ibr__buf_printf(out, ctx,
                                 "  %6llu flows  %s (0x%016" PRIx64 ") port %u -> %s (0x%016" PRIx64
                                 ") port %u\n",
                                 (unsigned long long)l->flows, l->name, l->guid, l->port, l->peer,
                                 l->peer_guid, l->peer_port);
        }
    }
    return rc;
}
