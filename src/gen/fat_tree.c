/* Fat trees: the extended generalised fat tree XGFT(h; m_1..m_h; w_1..w_h)
   of Ohring, Ibel, Das and Kumar ("On generalized fat trees", IPPS 1995),
   and the full k-ary fat tree as a special case.

   Labels. A level-l node (0 <= l <= h) is named by h digits
   (d_h, ..., d_1): for j > l the digit d_j is in [0, m_j) (which child of
   its level-j ancestor the subtree hangs off), for j <= l it is in
   [0, w_j) (which of the parents at level j was taken). A level-(l-1) node
   and a level-l node are cabled exactly when their labels agree in every
   digit but digit l; the lower node's digit l (in [0, m_l)) says which
   child it is, the upper node's digit l (in [0, w_l)) which parent. So a
   level-l switch has m_l children, every level-(l-1) node w_l parents, and
   there are prod_{j<=l} w_j * prod_{j>l} m_j nodes at level l.

   Index convention. Within a level, nodes are numbered by their label read
   as a mixed-radix number with d_h most significant and d_1 least: leaves
   under one level-2 switch group are consecutive. In the C structure the
   arrays are 0-based: m_j = p->m[j-1], w_j = p->w[j-1].

   Node order: switches level by level from the leaves (level 1) up, then
   the hosts (level-0 nodes) in label order; with p->hosts < m_1 the
   level-0 nodes whose digit d_1 is >= hosts are not created, so every leaf
   has its first @c hosts down ports cabled and the rest empty.

   Ports. A level-l switch has its down ports first: port c+1 goes to the
   child whose digit l is c (c < m_l); then its up ports: port m_l+y+1 goes
   to the parent whose digit l+1 is y (y < w_{l+1}); top switches have no up
   ports. A host has w_1 ports, port y+1 to its leaf number y.

   Descriptions: switches "L<level>-S<index in level>", hosts "H<n> HCA-1"
   (n in host order). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "gen/gen_int.h"

typedef struct xg {
    unsigned h;
    unsigned m[IBR_XGFT_MAX_LEVELS + 2]; /* 1-based; m[h+1] = 0 */
    unsigned w[IBR_XGFT_MAX_LEVELS + 2]; /* 1-based; w[h+1] = 0 */
    unsigned hosts;
    uint64_t count[IBR_XGFT_MAX_LEVELS + 1]; /* label space per level */
    uint32_t first[IBR_XGFT_MAX_LEVELS + 1]; /* node index of a level's first node */
} xg;

/* Size of ibr_gen_xgft per version (see IBR__VERSION_SIZE). */
static const size_t xgft_size[] = {0, sizeof(ibr_gen_xgft)};

int ibr_gen_xgft_init(ibr_gen_xgft *p, unsigned int version)
{
    static const ibr_gen_xgft def = IBR_GEN_XGFT_INIT;
    return ibr__versioned_init(p, &def, IBR__VERSION_SIZE(xgft_size, version), version);
}

static int validate(ibr_fabric *f, xg *x, const ibr_gen_xgft *params, const char *what)
{
    if (!params)
        return ibr__fabric_err(f, IBR_EINVAL, "%s: NULL parameters", what);
    /* only the fields the caller's version has; defaults for the rest */
    size_t size = IBR__VERSION_SIZE(xgft_size, params->version);
    if (!size)
        return ibr__fabric_err(
            f, IBR_EVERSION,
            IBR__MSG("GN017", "%s: parameters version %u (this library knows 1..%u)"), what,
            params->version, IBR_GEN_XGFT_VERSION);
    ibr_gen_xgft def = IBR_GEN_XGFT_INIT;
    memcpy(&def, params, size);
    const ibr_gen_xgft *p = &def;
    if (p->h < 1 || p->h > IBR_XGFT_MAX_LEVELS)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN018", "%s: h=%u levels, must be 1..%d"),
                               what, p->h, IBR_XGFT_MAX_LEVELS);
    memset(x, 0, sizeof *x);
    x->h = p->h;
    for (unsigned i = 1; i <= p->h; i++) {
        x->m[i] = p->m[i - 1];
        x->w[i] = p->w[i - 1];
        if (x->m[i] < 1 || x->m[i] > IBR_MAX_PORTS || x->w[i] < 1 || x->w[i] > IBR_MAX_PORTS)
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN019", "%s: level %u: m=%u w=%u, both must be 1..%d"),
                                   what, i, x->m[i], x->w[i], IBR_MAX_PORTS);
    }
    for (unsigned l = 1; l <= x->h; l++) {
        unsigned ports = x->m[l] + x->w[l + 1];
        if (ports > IBR_MAX_PORTS)
            return ibr__fabric_err(
                f, IBR_EINVAL,
                IBR__MSG("GN020", "%s: a level-%u switch would need %u ports (%u down + %u up), "
                                  "more than %d"),
                what, l, ports, x->m[l], x->w[l + 1], IBR_MAX_PORTS);
    }
    x->hosts = p->hosts ? p->hosts : x->m[1];
    if (x->hosts > x->m[1])
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN021", "%s: %u hosts per leaf, more than m_1=%u"), what,
                               p->hosts, x->m[1]);
    /* Each count is a product of h <= 6 factors below 256: no overflow. */
    uint64_t switches = 0;
    for (unsigned l = 0; l <= x->h; l++) {
        uint64_t c = 1;
        for (unsigned j = 1; j <= x->h; j++)
            c *= j <= l ? x->w[j] : x->m[j];
        x->count[l] = c;
        if (l)
            switches += c;
    }
    uint64_t cas = x->count[0] / x->m[1] * x->hosts;
    int rc = ibr__gen_check_lids(f, switches + cas * x->w[1], what);
    if (rc < 0)
        return rc;
    uint32_t next = 0;
    for (unsigned l = 1; l <= x->h; l++) {
        x->first[l] = next;
        next += (uint32_t)x->count[l];
    }
    x->first[0] = next;
    return 0;
}

static int build(ibr_fabric *t, const xg *x)
{
    char desc[IBR_DESC_SIZE];
    int rc;
    uint32_t sw = 0;
    for (unsigned l = 1; l <= x->h; l++)
        for (uint64_t i = 0; i < x->count[l]; i++, sw++) {
            snprintf(desc, sizeof desc, "L%u-S%" PRIu64, l, i);
            if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                          ibr__gen_switch_guid(IBR__GEN_XGFT, sw),
                                          x->m[l] + x->w[l + 1], desc)) < 0)
                return rc;
        }
    uint64_t n_cas = x->count[0] / x->m[1] * x->hosts;
    for (uint32_t i = 0; i < n_cas; i++) {
        snprintf(desc, sizeof desc, "H%" PRIu32 " HCA-1", i);
        if ((rc = ibr_fabric_add_node(NULL, t, IBR_NODE_CA, ibr__gen_ca_guid(IBR__GEN_XGFT, i),
                                      x->w[1], desc)) < 0)
            return rc;
    }
    /* Cables between level l-1 and level l. An upper label splits into
       (hi, y, lo) around digit l, with lo below digit l (radix prod w_j,
       j < l, in both labels) and y its digit l; its child number c has label
       (hi, c, lo). */
    for (unsigned l = 1; l <= x->h; l++) {
        uint64_t lo_size = 1;
        for (unsigned j = 1; j < l; j++)
            lo_size *= x->w[j];
        for (uint64_t u = 0; u < x->count[l]; u++) {
            uint64_t lo = u % lo_size, y = u / lo_size % x->w[l], hi = u / lo_size / x->w[l];
            uint32_t up = x->first[l] + (uint32_t)u;
            for (unsigned c = 0; c < x->m[l]; c++) {
                uint32_t down;
                unsigned dport;
                if (l == 1) {
                    if (c >= x->hosts)
                        continue;
                    down = x->first[0] + (uint32_t)(hi * x->hosts + c);
                    dport = (unsigned)y + 1;
                } else {
                    down = x->first[l - 1] + (uint32_t)((hi * x->m[l] + c) * lo_size + lo);
                    dport = x->m[l - 1] + (unsigned)y + 1;
                }
                if ((rc = ibr_fabric_add_link(t, up, c + 1, down, dport, NULL)) < 0)
                    return rc;
            }
        }
    }
    return 0;
}

static int gen(ibr_fabric *f, const ibr_gen_xgft *p, const char *what)
{
    ibr_fabric *t;
    xg x;
    int rc;
    if ((rc = ibr__gen_check_empty(f, what)) < 0)
        return rc;
    if ((rc = validate(f, &x, p, what)) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, what)) < 0)
        return rc;
    return ibr__gen_finish(f, t, build(t, &x), what);
}

int ibr_fabric_gen_xgft(ibr_fabric *f, const ibr_gen_xgft *p)
{
    return gen(f, p, "xgft");
}

int ibr_fabric_gen_fat_tree(ibr_fabric *f, unsigned int levels, unsigned int radix,
                            unsigned int hosts_per_leaf)
{
    ibr_gen_xgft p = IBR_GEN_XGFT_INIT;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "fattree")) < 0)
        return rc;
    if (levels < 1 || levels > IBR_XGFT_MAX_LEVELS)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN022", "fattree: levels=%u, must be 1..%d"), levels,
                               IBR_XGFT_MAX_LEVELS);
    if (radix < 2 || radix > IBR_MAX_PORTS || radix % 2)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN023", "fattree: radix=%u, must be even and 2..%d"),
                               radix, IBR_MAX_PORTS);
    unsigned k = radix / 2;
    p.h = levels;
    for (unsigned i = 0; i < levels; i++) {
        p.m[i] = i + 1 < levels ? k : radix;
        p.w[i] = i ? k : 1;
    }
    p.hosts = hosts_per_leaf;
    if (hosts_per_leaf > p.m[0])
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("GN024", "fattree: %u hosts per leaf, more than %u"),
                               hosts_per_leaf, p.m[0]);
    return gen(f, &p, "fattree");
}
