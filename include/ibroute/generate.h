/**
 * @file generate.h
 * @brief Topology generators and seeded fault injection.
 *
 * Generators fill an empty fabric, give every switch and cabled CA port a
 * LID (LMC 0; call ibr_fabric_assign_lids() with ::IBR_LIDS_REASSIGN for
 * another LMC) and are deterministic: the same parameters and seed give the
 * same fabric, GUIDs and port numbers.
 *
 * Each generator is also reachable through a spec string (ibr_fabric_generate()),
 * which the `ibr gen` command and the Python binding use:
 *
 * | spec | fabric |
 * |------|--------|
 * | `fattree:levels=3,radix=36` | full k-ary fat tree (radix/2 down, radix/2 up; top level radix down) |
 * | `xgft:h=3,m=18.18.36,w=1.18.18` | extended generalised fat tree XGFT(h; m; w) (one host per level-0 node) |
 * | `torus:dims=4x4x4,hosts=2[,parallel=2]` | torus with dimension-ordered ports |
 * | `mesh:dims=8x8,hosts=1[,parallel=1]` | mesh, same numbering |
 * | `hypercube:dim=6,hosts=2` | hypercube; port d+1 crosses dimension d |
 * | `dragonfly:a=4,p=2,h=2,g=9` | dragonfly: a routers per group, p hosts and h global links per router, g groups |
 * | `random:switches=64,degree=4,hosts=2,seed=1` | connected random regular-ish switch graph |
 *
 * A fat-tree spec also accepts `hosts=N` (hosts per leaf, partial
 * population when below radix/2).
 */
#ifndef IBROUTE_GENERATE_H
#define IBROUTE_GENERATE_H

#include "common.h"
#include "fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most levels an XGFT generator accepts. */
#define IBR_XGFT_MAX_LEVELS 6

/** Version of ::ibr_gen_xgft this header describes. */
#define IBR_GEN_XGFT_VERSION 1

/**
 * XGFT(h; m_1..m_h; w_1..w_h): level 0 are hosts; a level-i switch has m[i-1]
 * children and every level-(i-1) node has w[i-1] parents. Every level-1
 * switch gets @c hosts hosts (0: m[0]).
 */
typedef struct ibr_gen_xgft {
    unsigned int version;              /**< ::IBR_GEN_XGFT_VERSION */
    unsigned int h;                    /**< switch levels, 1..IBR_XGFT_MAX_LEVELS */
    unsigned int m[IBR_XGFT_MAX_LEVELS];
    unsigned int w[IBR_XGFT_MAX_LEVELS];
    unsigned int hosts;                /**< hosts per leaf, 0 = m[0] */
} ibr_gen_xgft;

/**
 * Generate an XGFT into the empty fabric @p f.
 * @return 0; ::IBR_ESTATE (fabric not empty); ::IBR_EINVAL (bad parameters,
 *         a switch would need more than 254 ports: the message says which);
 *         ::IBR_ENOSPC (LIDs); ::IBR_ENOMEM. On failure @p f stays empty.
 */
IBR_API int ibr_gen_xgft_fabric(ibr_fabric *f, const ibr_gen_xgft *p);

/**
 * Generate a fat tree of @p levels levels of @p radix-port switches: the
 * k-ary n-tree with k = radix/2, whose top level uses all radix ports
 * downward (hosts = radix * (radix/2)^(levels-1)). @p hosts_per_leaf 0 means
 * radix/2. @return as ibr_gen_xgft_fabric().
 */
IBR_API int ibr_gen_fat_tree(ibr_fabric *f, unsigned int levels, unsigned int radix,
                             unsigned int hosts_per_leaf);

/**
 * Generate a mesh or torus with @p ndims dimensions of sizes @p dims,
 * @p hosts hosts per switch and @p parallel links per neighbour pair.
 * Switch ports: for dimension d, ports 2*d*parallel+1 .. are the "minus"
 * direction links, then the "plus" direction links; hosts follow.
 * A torus dimension of size 2 gets one link set (both directions meet).
 * @return as ibr_gen_xgft_fabric().
 */
IBR_API int ibr_gen_torus(ibr_fabric *f, unsigned int ndims, const unsigned int *dims,
                          int wrap, unsigned int hosts, unsigned int parallel);

/** Generate a hypercube of dimension @p dim (2^dim switches). */
IBR_API int ibr_gen_hypercube(ibr_fabric *f, unsigned int dim, unsigned int hosts);

/**
 * Generate a dragonfly: @p g groups of @p a switches, all-to-all inside a
 * group, @p h global links per switch spread over the groups, @p p hosts
 * per switch. Requires a*h >= g-1.
 */
IBR_API int ibr_gen_dragonfly(ibr_fabric *f, unsigned int a, unsigned int p,
                              unsigned int h, unsigned int g);

/**
 * Generate a connected random switch graph: @p switches switches, each with
 * about @p degree switch links, @p hosts hosts each, seeded by @p seed.
 */
IBR_API int ibr_gen_random(ibr_fabric *f, unsigned int switches, unsigned int degree,
                           unsigned int hosts, uint64_t seed);

/**
 * Generate from a spec string (see the table above).
 * @return 0; ::IBR_EINVAL (unknown family or key, bad value: the message
 *         names it); others as the family's generator.
 */
IBR_API int ibr_fabric_generate(ibr_fabric *f, const char *spec);

/**
 * Inject faults: mark @p links random switch-to-switch links and @p
 * switches random switches down (all their links), chosen by @p seed among
 * active ones. Links whose loss would disconnect the switch graph are not
 * spared: the caller asked for faults.
 * @return 0; ::IBR_ERANGE (more faults than candidates); ::IBR_ENOMEM.
 */
IBR_API int ibr_fabric_inject_faults(ibr_fabric *f, unsigned int links,
                                     unsigned int switches, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
