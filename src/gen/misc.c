/* Dragonflies and random switch graphs.

   Dragonfly (Kim, Dally, Scott, Abts, ISCA 2008). g groups of a routers;
   router r of group G has switch index G*a + r and description
   "DF-G<G>-R<r>". Ports of a router:
     1 .. a-1        local links: the port toward router j of the group is
                     j+1 for j < r and j for j > r (the others in order,
                     skipping itself);
     a .. a+h-1      global links, port a+k being global endpoint r*h + k of
                     the group;
     a+h .. a+h+p-1  hosts ("H<n> HCA-1", n = switch index * p + k).
   Global links use the consecutive ("absolute") arrangement: a group's
   a*h global endpoints are dealt out in rounds of g-1; in every round,
   endpoint t of group G (t in 0..g-2 within the round) goes to group
   t (t < G) or t+1 (t >= G), and meets that group's endpoint of the same
   round numbered G (G < other group) or G-1. With R = floor(a*h / (g-1))
   rounds, each pair of groups is joined by exactly R cables, and the last
   a*h - R*(g-1) global ports of every group stay empty. So a*h >= g-1 is
   required; g = a*h+1 uses every global port once.

   Random. A connected graph of n switches with switch-link degree at most
   d, built from ibr__rng seeded with the caller's seed: the switches are
   taken in a random order, each attached to a uniformly chosen earlier
   switch that still has a free link port (a random spanning tree); then
   random pairs of switches with free link ports, not yet adjacent, are
   cabled until no such pair is left. No self-links and no parallel links,
   so every switch ends with degree d except a few when the pairs run out
   (n*d odd, or the last free ports all belong to neighbours). Ports 1..d
   are link ports, in the order the links were made; hosts take ports
   d+1 ... Descriptions "R<index>". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "gen/gen_int.h"

/* ------------------------------------------------------------------ */
/* dragonfly                                                           */

static int build_dragonfly(ibr_fabric *t, unsigned a, unsigned p, unsigned h, unsigned g)
{
    char desc[IBR_DESC_SIZE];
    unsigned nports = (a - 1) + h + p;
    uint32_t n_sw = a * g, next = 0;
    int rc;
    for (uint32_t s = 0; s < n_sw; s++) {
        snprintf(desc, sizeof desc, "DF-G%" PRIu32 "-R%" PRIu32, s / a, s % a);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_DRAGONFLY, s), nports,
                                      desc)) < 0)
            return rc;
    }
    /* local all-to-all */
    for (uint32_t grp = 0; grp < g; grp++)
        for (unsigned r = 0; r < a; r++)
            for (unsigned j = r + 1; j < a; j++)
                if ((rc = ibr_fabric_add_link(t, grp * a + r, j, grp * a + j, r + 1, NULL)) < 0)
                    return rc;
    /* global links, each made once from the lower-numbered group */
    if (g > 1) {
        unsigned span = g - 1, rounds = a * h / span;
        for (uint32_t gi = 0; gi < g; gi++)
            for (unsigned e = 0; e < rounds * span; e++) {
                unsigned round = e / span, tt = e % span;
                uint32_t gj = tt < gi ? tt : tt + 1;
                if (gj < gi)
                    continue;
                unsigned f = round * span + gi; /* endpoint at gj; gi < gj */
                uint32_t sa = gi * a + e / h, sb = gj * a + f / h;
                if ((rc = ibr_fabric_add_link(t, sa, a + e % h, sb, a + f % h, NULL)) < 0)
                    return rc;
            }
    }
    for (uint32_t s = 0; s < n_sw; s++)
        if ((rc = ibr__gen_add_hosts(t, s, a + h, p, IBR__GEN_DRAGONFLY, &next)) < 0)
            return rc;
    return 0;
}

int ibr_fabric_gen_dragonfly(ibr_fabric *f, unsigned int a, unsigned int p, unsigned int h,
                             unsigned int g)
{
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "dragonfly")) < 0)
        return rc;
    if (a < 1 || g < 1)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN032", "dragonfly: a=%u g=%u, both must be at least 1"),
                               a, g);
    uint64_t nports = (uint64_t)a - 1 + h + p;
    if (nports < 1 || nports > IBR_MAX_PORTS)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN033", "dragonfly: a router would need %" PRIu64
                                                 " ports (a-1 + h + p), must be 1..%d"),
                               nports, IBR_MAX_PORTS);
    if ((uint64_t)a * h < (uint64_t)g - 1)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN034", "dragonfly: a*h = %u*%u global links per group cannot reach the "
                              "other %u groups (a*h >= g-1 needed)"),
            a, h, g - 1);
    uint64_t n_sw = (uint64_t)a * g;
    if ((rc = ibr__gen_check_lids(f, n_sw * (1 + (uint64_t)p), "dragonfly")) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "dragonfly")) < 0)
        return rc;
    return ibr__gen_finish(f, t, build_dragonfly(t, a, p, h, g), "dragonfly");
}

/* ------------------------------------------------------------------ */
/* random                                                              */

typedef struct rgraph {
    uint32_t n;
    unsigned d;
    uint32_t *nbr; /* n * d neighbours, in link order */
    uint8_t *deg;
    uint32_t *open; /* switches with a free link port */
    uint32_t n_open;
    uint32_t *mark; /* scratch for the exhaustive pair search */
} rgraph;

static int adjacent(const rgraph *g, uint32_t u, uint32_t v)
{
    const uint32_t *nu = g->nbr + (size_t)u * g->d;
    for (unsigned i = 0; i < g->deg[u]; i++)
        if (nu[i] == v)
            return 1;
    return 0;
}

static void connect(rgraph *g, uint32_t u, uint32_t v)
{
    g->nbr[(size_t)u * g->d + g->deg[u]++] = v;
    g->nbr[(size_t)v * g->d + g->deg[v]++] = u;
}

/* Remove open[i] if its switch is full. */
static void maybe_close(rgraph *g, uint32_t i)
{
    if (g->deg[g->open[i]] >= g->d)
        g->open[i] = g->open[--g->n_open];
}

/* Find open positions (*pi, *pj) of two non-adjacent switches, the first
   such pair in open-list order. O(n_open * (d + n_open)). */
static int find_pair(rgraph *g, uint32_t *pi, uint32_t *pj)
{
    for (uint32_t i = 0; i < g->n_open; i++) {
        uint32_t u = g->open[i];
        const uint32_t *nu = g->nbr + (size_t)u * g->d;
        for (unsigned k = 0; k < g->deg[u]; k++)
            g->mark[nu[k]] = u + 1;
        for (uint32_t j = i + 1; j < g->n_open; j++)
            if (g->mark[g->open[j]] != u + 1) {
                *pi = i;
                *pj = j;
                return 1;
            }
    }
    return 0;
}

static void random_graph(rgraph *g, uint64_t seed)
{
    ibr__rng rng;
    uint32_t n = g->n;
    uint32_t *perm = g->mark; /* reused: the order is not needed later */
    ibr__rng_seed(&rng, seed);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        uint32_t j = (uint32_t)ibr__rng_below(&rng, (uint64_t)i + 1), x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    /* random spanning tree with degrees capped at d */
    g->n_open = 0;
    g->open[g->n_open++] = perm[0];
    for (uint32_t i = 1; i < n; i++) {
        uint32_t k = (uint32_t)ibr__rng_below(&rng, g->n_open), v = perm[i];
        connect(g, g->open[k], v);
        maybe_close(g, k);
        if (g->deg[v] < g->d)
            g->open[g->n_open++] = v;
    }
    memset(g->mark, 0, (size_t)n * sizeof *g->mark);
    /* fill free ports with random non-adjacent pairs */
    unsigned misses = 0;
    while (g->n_open >= 2) {
        uint32_t i = (uint32_t)ibr__rng_below(&rng, g->n_open);
        uint32_t j = (uint32_t)ibr__rng_below(&rng, g->n_open - 1);
        if (j >= i)
            j++;
        if (adjacent(g, g->open[i], g->open[j])) {
            if (++misses < 64)
                continue;
            if (!find_pair(g, &i, &j))
                break;
        }
        misses = 0;
        connect(g, g->open[i], g->open[j]);
        if (i < j) {
            uint32_t x = i;
            i = j;
            j = x;
        }
        maybe_close(g, i); /* the higher position first keeps j valid */
        maybe_close(g, j);
    }
}

static int build_random(ibr_fabric *t, rgraph *g, unsigned hosts)
{
    char desc[IBR_DESC_SIZE];
    uint32_t next = 0;
    int rc;
    for (uint32_t s = 0; s < g->n; s++) {
        snprintf(desc, sizeof desc, "R%" PRIu32, s);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_RANDOM, s), g->d + hosts,
                                      desc)) < 0)
            return rc;
    }
    /* port k+1 of u carries u's k-th link; find the far port by search */
    for (uint32_t u = 0; u < g->n; u++)
        for (unsigned k = 0; k < g->deg[u]; k++) {
            uint32_t v = g->nbr[(size_t)u * g->d + k];
            if (v < u)
                continue;
            unsigned kv = 0;
            while (g->nbr[(size_t)v * g->d + kv] != u)
                kv++;
            if ((rc = ibr_fabric_add_link(t, u, k + 1, v, kv + 1, NULL)) < 0)
                return rc;
        }
    for (uint32_t s = 0; s < g->n; s++)
        if ((rc = ibr__gen_add_hosts(t, s, g->d + 1, hosts, IBR__GEN_RANDOM, &next)) < 0)
            return rc;
    return 0;
}

int ibr_fabric_gen_random(ibr_fabric *f, unsigned int switches, unsigned int degree,
                          unsigned int hosts, uint64_t seed)
{
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "random")) < 0)
        return rc;
    if (switches < 2)
        return ibr__fabric_err(
            f, IBR_EINVAL, IBR__MSG("GN035", "random: switches=%u, must be at least 2"), switches);
    if (degree < 1 || (degree < 2 && switches > 2) || degree > switches - 1)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN036", "random: degree=%u, must be 2..switches-1 (%u) for a connected "
                              "graph"),
            degree, switches - 1);
    if ((uint64_t)degree + hosts > IBR_MAX_PORTS)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN037", "random: a switch would need %u + %u ports, more than %d"), degree,
            hosts, IBR_MAX_PORTS);
    if ((rc = ibr__gen_check_lids(f, (uint64_t)switches * (1 + (uint64_t)hosts), "random")) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "random")) < 0)
        return rc;
    ibr_context *ctx = f->ctx;
    rgraph g;
    memset(&g, 0, sizeof g);
    g.n = switches;
    g.d = degree;
    g.nbr = ibr__mallocarray(ctx, (size_t)switches * degree, sizeof *g.nbr);
    g.deg = ibr__calloc(ctx, switches, sizeof *g.deg);
    g.open = ibr__mallocarray(ctx, switches, sizeof *g.open);
    g.mark = ibr__mallocarray(ctx, switches, sizeof *g.mark);
    if (!g.nbr || !g.deg || !g.open || !g.mark) {
        rc = ibr__fabric_err(t, IBR_ENOMEM, "out of memory for %u switches", switches);
    } else {
        random_graph(&g, seed);
        rc = build_random(t, &g, hosts);
    }
    ibr__free(ctx, g.nbr);
    ibr__free(ctx, g.deg);
    ibr__free(ctx, g.open);
    ibr__free(ctx, g.mark);
    return ibr__gen_finish(f, t, rc, "random");
}
