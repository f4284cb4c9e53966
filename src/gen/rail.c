/* Rail-optimized fat trees, the way AI clusters cable them.

   A compute node has R HCAs (rails). Nodes are grouped into scalable
   units (SUs) of @c su nodes; an SU has R leaf switches, and HCA r of
   every node of the SU is cabled to leaf r of its SU ("rail r"). Each
   leaf has su down ports and u = radix - su up ports.

   Two levels: every leaf is cabled to every spine with c parallel cables
   (c the largest divisor of u with c * leaves <= radix), so there are u/c
   spines of radix ports.

   Three levels: pods of G SUs, G = floor((radix/2) / R), so the G*R leaves
   of a pod fill at most the radix/2 down ports of a spine. Inside a pod,
   leaves and spines form the two-level tree above with radix/2 spine down
   ports (c parallel cables, P = u/c spines per pod). Spine j of every pod
   has radix - radix/2 up ports into core plane j: every core of plane j is
   cabled to spine j of every pod with c2 parallel cables (c2 the largest
   divisor of those up ports with c2 * pods <= radix), so plane j has
   (radix - radix/2) / c2 cores. The last SU and the last pod may be
   partly filled; their missing nodes and leaves leave ports empty.

   Node order: leaves first (SU s, rail r: index s*R + r, "L1-SU<s>-R<r>"),
   then spines (pod by pod: "L2-S<j>" on two levels, "L2-P<pod>-S<j>" on
   three), then cores (plane by plane: "L3-G<j>-C<k>"), then the HCAs node
   by node: HCA r of node n is CA n*R + r, a one-port CA described
   "node<n, 4 digits or more> mlx5_<r>", so the hosts are numbered the way
   a job launcher lists them, not leaf by leaf. With byleaf=1 the same
   HCAs (same descriptions and cables) are numbered leaf by leaf instead:
   SU by SU, rail by rail, node by node, the order a leaf-ordered fat tree
   has, for comparing the two numberings on one fabric.

   Ports. Leaf port i+1 (i < su) goes to node s*su + i; its up port
   su+1+t (t < u) to spine t / c of its pod, cable t % c. Spine down port
   l*c + e + 1 goes to local leaf l of its pod (l = local SU * R + r),
   cable e; spine up port d+1+t to core t / c2 of its plane, cable t % c2
   (d = the spine's down ports: radix on two levels, radix/2 on three).
   Core port pod*c2 + e + 1 goes to spine j of that pod, cable e. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/messages.h"
#include "gen/gen_int.h"

typedef struct rail {
    unsigned nodes, rails, su, radix, levels;
    unsigned by_leaf;   /* number the HCAs leaf by leaf instead */
    unsigned sus;       /* scalable units, the last one maybe partial */
    unsigned up;        /* leaf up ports */
    unsigned pod_sus;   /* SUs per pod (all of them on two levels) */
    unsigned pods;      /* 1 on two levels */
    unsigned down;      /* spine down ports */
    unsigned c;         /* leaf-spine parallel cables */
    unsigned spines;    /* spines per pod */
    unsigned c2;        /* spine-core parallel cables (three levels) */
    unsigned cores;     /* cores per plane (three levels) */
    uint32_t first_spine, first_core, first_ca;
} rail;

/* Largest c dividing @p ports with c * @p peers <= @p radix (1 at least). */
static unsigned parallel_cables(unsigned ports, unsigned peers, unsigned radix)
{
    unsigned best = 1;
    for (unsigned c = 1; c <= ports && (uint64_t)c * peers <= radix; c++)
        if (ports % c == 0)
            best = c;
    return best;
}

static int rail_check(ibr_fabric *f, rail *x, const unsigned v[6])
{
    memset(x, 0, sizeof *x);
    x->nodes = v[0];
    x->rails = v[1];
    x->su = v[2];
    x->radix = v[3];
    x->levels = v[4];
    x->by_leaf = v[5];
    if (x->by_leaf > 1)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN038", "rail: byleaf=%u, must be 0 or 1"),
                               x->by_leaf);
    if (x->radix < 2 || x->radix > IBR_MAX_PORTS)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN039", "rail: radix=%u, must be 2..%d"),
                               x->radix, IBR_MAX_PORTS);
    if (!x->su)
        x->su = x->radix / 2;
    if (x->nodes < 1 || x->rails < 1)
        return ibr__fabric_err(
            f, IBR_EINVAL, IBR__MSG("GN040", "rail: nodes=%u rails=%u, both must be at least 1"),
            x->nodes, x->rails);
    if (x->su >= x->radix)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("GN041", "rail: su=%u nodes per unit leave a %u-port leaf no up port"), x->su,
            x->radix);
    x->up = x->radix - x->su;
    x->sus = (x->nodes - 1) / x->su + 1;
    uint64_t leaves = (uint64_t)x->sus * x->rails;
    if (!x->levels)
        x->levels = leaves <= x->radix ? 2 : 3;
    if (x->levels == 2) {
        if (leaves > x->radix)
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN042", "rail: %" PRIu64
                                                     " leaves (%u units of %u rails) do not fit "
                                                     "two levels of %u-port spines (try levels=3)"),
                                   leaves, x->sus, x->rails, x->radix);
        x->pod_sus = x->sus;
        x->pods = 1;
        x->down = x->radix;
    } else if (x->levels == 3) {
        x->down = x->radix / 2;
        x->pod_sus = x->down / x->rails;
        if (!x->pod_sus)
            return ibr__fabric_err(f, IBR_EINVAL,
                                   IBR__MSG("GN043",
                                            "rail: %u rails do not fit the %u down ports of a "
                                            "three-level spine"),
                                   x->rails, x->down);
        x->pods = (x->sus - 1) / x->pod_sus + 1;
        if (x->pods > x->radix)
            return ibr__fabric_err(
                f, IBR_EINVAL,
                IBR__MSG("GN044", "rail: %u pods of %u units do not fit %u-port cores (more "
                                  "than three levels)"),
                x->pods, x->pod_sus, x->radix);
    } else {
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("GN045", "rail: levels=%u, must be 2 or 3"),
                               x->levels);
    }
    unsigned pod_leaves = (x->pod_sus < x->sus ? x->pod_sus : x->sus) * x->rails;
    x->c = parallel_cables(x->up, pod_leaves, x->down);
    x->spines = x->up / x->c;
    if (x->levels == 3) {
        x->c2 = parallel_cables(x->radix - x->down, x->pods, x->radix);
        x->cores = (x->radix - x->down) / x->c2;
    }
    uint64_t n_leaves = leaves, n_spines = (uint64_t)x->pods * x->spines,
             n_cores = (uint64_t)x->spines * x->cores, cas = (uint64_t)x->nodes * x->rails;
    if (cas > IBR__GEN_MAX_CAS)
        return ibr__fabric_err(f, IBR_ENOSPC,
                               IBR__MSG("GN046", "rail: %" PRIu64 " HCAs, more than %u"), cas,
                               IBR__GEN_MAX_CAS);
    int rc = ibr__gen_check_lids(f, n_leaves + n_spines + n_cores + cas, "rail");
    if (rc < 0)
        return rc;
    x->first_spine = (uint32_t)n_leaves;
    x->first_core = (uint32_t)(n_leaves + n_spines);
    x->first_ca = (uint32_t)(n_leaves + n_spines + n_cores);
    return 0;
}

static int add_switches(ibr_fabric *t, const rail *x)
{
    char desc[IBR_DESC_SIZE];
    uint32_t sw = 0;
    int rc = 0;
    for (unsigned s = 0; s < x->sus && rc >= 0; s++)
        for (unsigned r = 0; r < x->rails && rc >= 0; r++, sw++) {
            snprintf(desc, sizeof desc, "L1-SU%u-R%u", s, r);
            rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                     ibr__gen_switch_guid(IBR__GEN_RAIL, sw), x->radix, desc);
        }
    for (unsigned p = 0; p < x->pods && rc >= 0; p++)
        for (unsigned j = 0; j < x->spines && rc >= 0; j++, sw++) {
            if (x->levels == 2)
                snprintf(desc, sizeof desc, "L2-S%u", j);
            else
                snprintf(desc, sizeof desc, "L2-P%u-S%u", p, j);
            rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                     ibr__gen_switch_guid(IBR__GEN_RAIL, sw), x->radix, desc);
        }
    for (unsigned j = 0; j < x->spines && x->levels == 3 && rc >= 0; j++)
        for (unsigned k = 0; k < x->cores && rc >= 0; k++, sw++) {
            snprintf(desc, sizeof desc, "L3-G%u-C%u", j, k);
            rc = ibr_fabric_add_node(NULL, t, IBR_NODE_SWITCH,
                                     ibr__gen_switch_guid(IBR__GEN_RAIL, sw), x->radix, desc);
        }
    return rc < 0 ? rc : 0;
}

static int build(ibr_fabric *t, const rail *x)
{
    char desc[IBR_DESC_SIZE];
    int rc;
    if ((rc = add_switches(t, x)) < 0)
        return rc;
    uint32_t n_cas = x->nodes * x->rails;
    for (uint32_t i = 0; i < n_cas; i++) {
        /* HCA i is (node n, rail r): node by node, or leaf by leaf */
        uint32_t ca, n = i / x->rails, r = i % x->rails;
        if (x->by_leaf) {
            uint32_t s = i / (x->su * x->rails), in_su = x->nodes - s * x->su;
            if (in_su > x->su)
                in_su = x->su;
            uint32_t k = i - s * x->su * x->rails;
            r = k / in_su;
            n = s * x->su + k % in_su;
        }
        uint32_t leaf = (n / x->su) * x->rails + r;
        snprintf(desc, sizeof desc, "node%04" PRIu32 " mlx5_%" PRIu32, n, r);
        if ((rc = ibr_fabric_add_node(&ca, t, IBR_NODE_CA, ibr__gen_ca_guid(IBR__GEN_RAIL, i), 1,
                                      desc)) < 0 ||
            (rc = ibr_fabric_add_link(t, leaf, n % x->su + 1, ca, 1, NULL)) < 0)
            return rc;
    }
    /* leaves up to the spines of their pod */
    for (uint32_t leaf = 0; leaf < x->sus * x->rails; leaf++) {
        unsigned s = leaf / x->rails, pod = s / x->pod_sus;
        unsigned local = leaf - pod * x->pod_sus * x->rails;
        for (unsigned tt = 0; tt < x->up; tt++) {
            uint32_t spine = x->first_spine + pod * x->spines + tt / x->c;
            if ((rc = ibr_fabric_add_link(t, leaf, x->su + 1 + tt, spine,
                                          local * x->c + tt % x->c + 1, NULL)) < 0)
                return rc;
        }
    }
    /* spines up to the cores of their plane */
    for (unsigned pod = 0; pod < x->pods && x->levels == 3; pod++)
        for (unsigned j = 0; j < x->spines; j++)
            for (unsigned tt = 0; tt < x->radix - x->down; tt++) {
                uint32_t spine = x->first_spine + pod * x->spines + j;
                uint32_t core = x->first_core + j * x->cores + tt / x->c2;
                if ((rc = ibr_fabric_add_link(t, spine, x->down + 1 + tt, core,
                                              pod * x->c2 + tt % x->c2 + 1, NULL)) < 0)
                    return rc;
            }
    return 0;
}

int ibr__gen_rail(ibr_fabric *f, unsigned nodes, unsigned rails, unsigned su, unsigned radix,
                  unsigned levels, unsigned by_leaf)
{
    const unsigned v[6] = {nodes, rails, su, radix, levels, by_leaf};
    ibr_fabric *t;
    rail x;
    int rc;
    if ((rc = ibr__gen_check_empty(f, "rail")) < 0)
        return rc;
    if ((rc = rail_check(f, &x, v)) < 0)
        return rc;
    if ((rc = ibr__gen_begin(&t, f, "rail")) < 0)
        return rc;
    return ibr__gen_finish(f, t, build(t, &x), "rail");
}
