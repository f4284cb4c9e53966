/* Low-diameter direct networks: Dragonfly+, HyperX and Slim Fly (spec
   families "dfplus", "hyperx" and "slimfly"; no public entry points).

   Dragonfly+ (dfplus). G groups, each a complete bipartite graph of L
   leaves and S spines; the spines carry the global cables. Switch index
   of group g: g*(L+S) + l for leaf l, g*(L+S) + L + s for spine s;
   descriptions "DFP-G<g>-L<l>" and "DFP-G<g>-S<s>". Leaf ports 1..S go to
   spines 0..S-1 of the group, hosts take ports S+1 ... Spine ports 1..L
   go to leaves 0..L-1, ports L+1..L+K are global. A group's S*K global
   endpoints are numbered so that endpoint e sits on spine e mod S, port
   L+1 + e/S (round robin over the spines), and are dealt out in rounds of
   G-1 exactly as the dragonfly generator deals a group's routers' global
   ports: in each round endpoint t reaches the t-th other group. Every
   pair of groups is therefore joined by floor(S*K / (G-1)) cables, spread
   over the spines; S*K >= G-1 is required, and K defaults to the least
   value that meets it. A leaf reaches a leaf of any group in at most
   three switch-to-switch hops (spine, global cable, spine).

   HyperX (Ahn, Binkert, Davis, McLaren, Schreiber, SC 2009), the
   regular form: switches on a lattice S_0 x S_1 x ..., each cabled to
   every switch that differs from it in exactly one coordinate. Switch
   index = x_0 + S_0 * (x_1 + S_1 * ...), dimension 0 fastest;
   description "HX(x0,x1,..)". The S_d - 1 ports of dimension d start at
   1 + sum of (S_e - 1) over e < d and go to coordinates 0..S_d-1 in
   order, skipping the switch's own; hosts follow. Diameter: the number
   of dimensions of size above 1.

   Slim Fly (Besta, Hoefler, SC 2014), the construction of McKay, Miller
   and Siran for an odd prime q = 4w + d (d = 1 or -1): 2q^2 switches
   (0,x,y) and (1,m,c) over the integers mod q. With a primitive element
   r of Z_q, the generator sets are: for d = 1, X = the even powers of r
   and X' = the odd ones; for d = -1, X = {r^0, r^2, .., r^(2w-2)} plus
   {r^(2w-1), r^(2w+1), .., r^(4w-3)} and X' = {r^1, r^3, .., r^(2w-1)}
   plus {r^(2w), r^(2w+2), .., r^(4w-2)}. Both are closed under negation.
   (0,x,y) ~ (0,x,y') when y - y' is in X; (1,m,c) ~ (1,m,c') when
   c - c' is in X'; (0,x,y) ~ (1,m,c) when y = m*x + c. Every switch has
   (3q - d)/2 neighbours and any two are at most two hops apart. Switch
   index x*q + y for (0,x,y), q^2 + m*q + c for (1,m,c); descriptions
   "SF0-<x>-<y>" and "SF1-<m>-<c>". Ports 1..|X| go to the same-half
   neighbours in increasing order of the difference (neighbour minus
   self, mod q), ports |X|+1..|X|+q to the other half (m or x = 0..q-1),
   hosts follow. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "gen/gen_int.h"

/* ------------------------------------------------------------------ */
/* Dragonfly+                                                          */

static int build_dfplus(ibr_fabric *t, unsigned G, unsigned L, unsigned S, unsigned H,
                        unsigned K)
{
    char desc[IBR_DESC_SIZE];
    uint32_t per = L + S, next = 0;
    int rc;
    for (uint32_t s = 0; s < G * per; s++) {
        uint32_t g = s / per, i = s % per;
        if (i < L)
            snprintf(desc, sizeof desc, "DFP-G%" PRIu32 "-L%" PRIu32, g, i);
        else
            snprintf(desc, sizeof desc, "DFP-G%" PRIu32 "-S%" PRIu32, g, i - L);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_DFPLUS, s),
                                      i < L ? S + H : L + K, desc)) < 0)
            return rc;
    }
    for (uint32_t g = 0; g < G; g++)
        for (unsigned l = 0; l < L; l++)
            for (unsigned s = 0; s < S; s++)
                if ((rc = ibr_fabric_add_link(t, g * per + l, s + 1, g * per + L + s, l + 1,
                                              NULL)) < 0)
                    return rc;
    if (G > 1) {
        unsigned span = G - 1, rounds = S * K / span;
        for (uint32_t gi = 0; gi < G; gi++)
            for (unsigned e = 0; e < rounds * span; e++) {
                unsigned tt = e % span;
                uint32_t gj = tt < gi ? tt : tt + 1;
                if (gj < gi)
                    continue;
                unsigned fe = e / span * span + gi; /* the endpoint at gj; gi < gj */
                if ((rc = ibr_fabric_add_link(t, gi * per + L + e % S, L + 1 + e / S,
                                              gj * per + L + fe % S, L + 1 + fe / S, NULL)) < 0)
                    return rc;
            }
    }
    for (uint32_t g = 0; g < G; g++)
        for (unsigned l = 0; l < L; l++)
            if ((rc = ibr__gen_add_hosts(t, g * per + l, S + 1, H, IBR__GEN_DFPLUS, &next)) < 0)
                return rc;
    return 0;
}

int ibr__gen_dfplus(ibr_fabric *f, unsigned groups, unsigned leaves, unsigned spines,
                    unsigned hosts, unsigned global)
{
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "dfplus")) < 0)
        return rc;
    if (groups < 1 || leaves < 1 || spines < 1)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN047", "dfplus: groups=%u leaves=%u spines=%u, all must be at least 1"),
            groups, leaves, spines);
    if (!global && groups > 1)
        global = (groups - 1 + spines - 1) / spines;
    if ((uint64_t)spines + hosts > IBR_MAX_PORTS || (uint64_t)leaves + global > IBR_MAX_PORTS)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN048", "dfplus: a leaf would need %u + %u ports and a spine %u + %u, "
                              "more than %d"),
            spines, hosts, leaves, global, IBR_MAX_PORTS);
    if ((uint64_t)spines * global < (uint64_t)groups - 1)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN049", "dfplus: spines*global = %u*%u global links per group cannot "
                              "reach the other %u groups"),
            spines, global, groups - 1);
    uint64_t n_sw = (uint64_t)groups * (leaves + spines);
    uint64_t n_ca = (uint64_t)groups * leaves * hosts;
    if (n_sw > IBR__GEN_MAX_SWITCHES || n_ca > IBR__GEN_MAX_CAS)
        return ibr__fabric_err(f, IBR_ENOSPC,
                               IBR__MSG("GN050", "dfplus: %" PRIu64 " switches and %" PRIu64
                                                 " hosts, more than %u and %u"),
                               n_sw, n_ca, IBR__GEN_MAX_SWITCHES, IBR__GEN_MAX_CAS);
    if ((rc = ibr__gen_check_lids(f, n_sw + n_ca, "dfplus")) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "dfplus")) < 0)
        return rc;
    return ibr__gen_finish(f, t, build_dfplus(t, groups, leaves, spines, hosts, global),
                           "dfplus");
}

/* ------------------------------------------------------------------ */
/* HyperX                                                              */

static int build_hyperx(ibr_fabric *t, unsigned ndims, const unsigned *dims, uint32_t n_sw,
                        unsigned links, unsigned hosts)
{
    char desc[IBR_DESC_SIZE];
    uint32_t next = 0;
    int rc;
    for (uint32_t s = 0; s < n_sw; s++) {
        size_t n = 3;
        uint32_t x = s;
        memcpy(desc, "HX(", 3);
        for (unsigned d = 0; d < ndims; d++) {
            int w = snprintf(desc + n, sizeof desc - n, d ? ",%" PRIu32 : "%" PRIu32,
                             x % dims[d]);
            x /= dims[d];
            if (w < 0 || (size_t)w >= sizeof desc - n - 1) {
                n = sizeof desc - 2;
                break;
            }
            n += (size_t)w;
        }
        desc[n] = ')';
        desc[n + 1] = 0;
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_HYPERX, s), links + hosts,
                                      desc)) < 0)
            return rc;
    }
    for (uint32_t s = 0; s < n_sw; s++) {
        unsigned base = 1;
        uint32_t stride = 1;
        for (unsigned d = 0; d < ndims; d++) {
            uint32_t c = s / stride % dims[d];
            for (uint32_t j = c + 1; j < dims[d]; j++) {
                uint32_t o = s + (j - c) * stride;
                if ((rc = ibr_fabric_add_link(t, s, base + j - 1, o, base + c, NULL)) < 0)
                    return rc;
            }
            base += dims[d] - 1;
            stride *= dims[d];
        }
    }
    for (uint32_t s = 0; s < n_sw; s++)
        if ((rc = ibr__gen_add_hosts(t, s, links + 1, hosts, IBR__GEN_HYPERX, &next)) < 0)
            return rc;
    return 0;
}

int ibr__gen_hyperx(ibr_fabric *f, unsigned ndims, const unsigned *dims, unsigned hosts)
{
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "hyperx")) < 0)
        return rc;
    if (ndims < 1)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN051", "hyperx: needs at least one dimension"));
    uint64_t n_sw = 1, links = 0;
    for (unsigned d = 0; d < ndims; d++) {
        if (dims[d] < 1)
            return ibr__fabric_err(
                f, IBR_EINVAL, IBR__MSG("GN052", "hyperx: dimension %u has size 0"), d);
        links += dims[d] - 1;
        n_sw *= dims[d];
        if (n_sw > IBR__GEN_MAX_SWITCHES)
            return ibr__fabric_err(f, IBR_ENOSPC,
                                   IBR__MSG("GN053", "hyperx: more than %u switches"),
                                   IBR__GEN_MAX_SWITCHES);
    }
    if (links + hosts > IBR_MAX_PORTS || links + hosts < 1)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN054", "hyperx: a switch would need %" PRIu64 " switch ports + %u host "
                              "ports, must be 1..%d"),
            links, hosts, IBR_MAX_PORTS);
    if ((rc = ibr__gen_check_lids(f, n_sw * (1 + (uint64_t)hosts), "hyperx")) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "hyperx")) < 0)
        return rc;
    return ibr__gen_finish(
        f, t, build_hyperx(t, ndims, dims, (uint32_t)n_sw, (unsigned)links, hosts), "hyperx");
}

/* ------------------------------------------------------------------ */
/* Slim Fly                                                            */

#define SF_MAX_Q 61 /* 7,442 switches; (3q+1)/2 = 92 switch ports */

static bool is_odd_prime(unsigned q)
{
    if (q < 3 || !(q & 1))
        return false;
    for (unsigned i = 3; i * i <= q; i += 2)
        if (q % i == 0)
            return false;
    return true;
}

/* The smallest primitive element of Z_q, q an odd prime. */
static unsigned primitive_root(unsigned q)
{
    for (unsigned r = 2; r < q; r++) {
        unsigned x = 1, order = 0;
        do {
            x = x * r % q;
            order++;
        } while (x != 1);
        if (order == q - 1)
            return r;
    }
    return 1; /* not reached for a prime */
}

/* Mark in in_x[] / in_xp[] (indexed by residue) the generator sets X and
   X' of the construction above. */
static void slimfly_sets(unsigned q, bool *in_x, bool *in_xp)
{
    unsigned r = primitive_root(q), w = (q + 1) / 4, pw[SF_MAX_Q];
    pw[0] = 1;
    for (unsigned i = 1; i < q - 1; i++)
        pw[i] = pw[i - 1] * r % q;
    memset(in_x, 0, q * sizeof *in_x);
    memset(in_xp, 0, q * sizeof *in_xp);
    for (unsigned i = 0; i < q - 1; i++) {
        bool even = !(i & 1);
        if (q % 4 == 1) {
            (even ? in_x : in_xp)[pw[i]] = true;
        } else {
            /* exponents 0..2w-2 and 2w-1..4w-3 for X, 1..2w-1 and
               2w..4w-2 for X' (r^(4w-2) = r^0 = 1 lies in both) */
            if (i <= 2 * w - 2 ? even : !even)
                in_x[pw[i]] = true;
            if (i >= 1 && (i <= 2 * w - 1 ? !even : even))
                in_xp[pw[i]] = true;
        }
    }
    if (q % 4 == 3)
        in_xp[1] = true;
}

static uint32_t sf_index(unsigned q, unsigned half, unsigned a, unsigned b)
{
    return half * q * q + a * q + b;
}

static int build_slimfly(ibr_fabric *t, unsigned q, unsigned hosts)
{
    char desc[IBR_DESC_SIZE];
    bool in_set[2][SF_MAX_Q];
    unsigned rank[2][SF_MAX_Q], nx = 0;
    uint32_t next = 0;
    int rc;
    slimfly_sets(q, in_set[0], in_set[1]);
    for (unsigned h = 0; h < 2; h++) {
        unsigned n = 0;
        for (unsigned v = 1; v < q; v++)
            rank[h][v] = in_set[h][v] ? n++ : 0;
        nx = n;
    }
    unsigned nports = nx + q + hosts;
    for (uint32_t s = 0; s < 2 * q * q; s++) {
        snprintf(desc, sizeof desc, "SF%u-%u-%u", s / (q * q), s / q % q, s % q);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                      ibr__gen_switch_guid(IBR__GEN_SLIMFLY, s), nports,
                                      desc)) < 0)
            return rc;
    }
    /* same half: a to a+v for v in the set, made once from the side with
       the smaller difference representative */
    for (unsigned h = 0; h < 2; h++)
        for (unsigned a = 0; a < q; a++)
            for (unsigned b = 0; b < q; b++)
                for (unsigned v = 1; v <= q / 2; v++) {
                    if (!in_set[h][v])
                        continue;
                    unsigned b2 = (b + v) % q;
                    if ((rc = ibr_fabric_add_link(t, sf_index(q, h, a, b), 1 + rank[h][v],
                                                  sf_index(q, h, a, b2),
                                                  1 + rank[h][q - v], NULL)) < 0)
                        return rc;
                }
    /* across: (0,x,y) to (1,m,y - m*x) */
    for (unsigned x = 0; x < q; x++)
        for (unsigned y = 0; y < q; y++)
            for (unsigned m = 0; m < q; m++) {
                unsigned c = (y + q * q - m * x % q) % q;
                if ((rc = ibr_fabric_add_link(t, sf_index(q, 0, x, y), nx + 1 + m,
                                              sf_index(q, 1, m, c), nx + 1 + x, NULL)) < 0)
                    return rc;
            }
    for (uint32_t s = 0; s < 2 * q * q; s++)
        if ((rc = ibr__gen_add_hosts(t, s, nx + q + 1, hosts, IBR__GEN_SLIMFLY, &next)) < 0)
            return rc;
    return 0;
}

int ibr__gen_slimfly(ibr_fabric *f, unsigned q, unsigned hosts)
{
    ibr_fabric *t;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "slimfly")) < 0)
        return rc;
    if (!is_odd_prime(q) || q > SF_MAX_Q)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN055", "slimfly: q=%u, must be an odd prime up to %d (q = 4w+1 or "
                              "4w-1; prime powers are not supported)"),
            q, SF_MAX_Q);
    unsigned links = q % 4 == 1 ? (3 * q - 1) / 2 : (3 * q + 1) / 2;
    if ((uint64_t)links + hosts > IBR_MAX_PORTS)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN056", "slimfly: a switch would need %u + %u ports, more than %d"), links,
            hosts, IBR_MAX_PORTS);
    uint64_t n_sw = 2ull * q * q;
    if ((rc = ibr__gen_check_lids(f, n_sw * (1 + (uint64_t)hosts), "slimfly")) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "slimfly")) < 0)
        return rc;
    return ibr__gen_finish(f, t, build_slimfly(t, q, hosts), "slimfly");
}
