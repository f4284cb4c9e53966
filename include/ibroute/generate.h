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
 * | `dfplus:groups=8,leaves=4,spines=4,hosts=4,global=2` | Dragonfly+: per group every leaf cabled to every spine, `global` cables per spine dealt round robin between groups, spec only |
 * | `hyperx:dims=8x8,hosts=4` | HyperX: every switch cabled to each switch differing in one coordinate, spec only |
 * | `slimfly:q=5,hosts=2` | Slim Fly (McKay-Miller-Siran graph, 2q^2 switches, diameter 2) for an odd prime q up to 61, spec only |
 * | `random:switches=64,degree=4,hosts=2,seed=1` | connected random regular-ish switch graph |
 * | `rail:nodes=2048,rails=8,su=32,radix=64,levels=3` | rail-optimized fat tree (AI clusters), spec only |
 *
 * A fat-tree spec also accepts `hosts=N` (hosts per leaf, partial
 * population when below radix/2).
 *
 * Spec strings read `family[:key=value[,key=value]...]` with no blanks.
 * Values are unsigned decimal or `0x` hexadecimal numbers; `m` and `w` take
 * h numbers separated by `.`, `dims` numbers separated by `x`. Required keys
 * and defaults: fattree `levels`, `radix` (`hosts=0`); xgft `h`, `m`, `w`
 * (`hosts=0`); torus and mesh `dims` (`hosts=1`, `parallel=1`); hypercube
 * `dim` (`hosts=1`); dragonfly `a`, `h` (`p=h`, `g=a*h+1`); random
 * `switches`, `degree` (`hosts=1`, `seed=0`); rail `nodes` (`rails=8`,
 * `su=radix/2`, `radix=64`, `levels` the fewest of 2 or 3 that fit,
 * `byleaf=0`); dfplus `groups`, `leaves`, `spines` (`hosts=1`, `global` the
 * fewest that join every pair of groups); hyperx `dims` (`hosts=1`);
 * slimfly `q` (`hosts=1`). Every family also takes
 * `vls=N` (N = 1, 2, 4, 8 or 15): every port's data-VL capability
 * (::ibr_port_attr::vl_cap, so OperVLs N on every cable; default 8, VL0-7).
 *
 * The rail family has no C entry point of its own. A compute node has
 * `rails` one-port HCAs, described "node<n> mlx5_<r>" (n with at least 4
 * digits); a scalable unit (SU) of `su` nodes has `rails` leaves
 * "L1-SU<s>-R<r>", and HCA r of every node of SU s is cabled to leaf r of
 * SU s (rail r), node n on leaf port n mod su + 1; leaf ports su+1..radix
 * go up. Two levels: every leaf is cabled to every spine "L2-S<j>" with c
 * parallel cables (c the largest divisor of the leaf's up ports with
 * c x leaves <= radix). Three levels: pods of floor(radix/2 / rails) SUs;
 * each pod is such a two-level tree whose spines "L2-P<p>-S<j>" use
 * radix/2 ports down, and spine j of every pod is cabled to every core
 * "L3-G<j>-C<k>" of plane j with c2 parallel cables (the largest divisor
 * of the spine's up ports with c2 x pods <= radix). Node order: leaves (SU
 * by SU, rail by rail), spines (pod by pod), cores (plane by plane), then
 * the HCAs node by node (HCA r of node n is CA n x rails + r), or with
 * `byleaf=1` leaf by leaf (the same cables and descriptions), the order
 * fat-tree engines rank destinations in. GUID family 06.
 * An unknown family or key, a
 * repeated or missing key and a malformed value fail with ::IBR_EINVAL and a
 * message naming them.
 *
 * @section gen_conv Conventions shared by every generator
 * - The fabric must be empty (::IBR_ESTATE otherwise). A generator builds
 *   into a scratch fabric with the same context and moves the result in
 *   only on success, so on any failure the fabric is still empty.
 * - Node indices: all switches first, in the order each generator
 *   documents, then the CAs, each cabled to consecutive switch ports.
 * - GUIDs: switch number i (its node index) has node GUID
 *   0x0002c902FF000000 + i; CA number n has node GUID
 *   0x0002c903FF000000 + (n << 8) and port GUIDs node GUID + port number.
 *   FF is the family: 01 fat tree/XGFT, 02 torus/mesh, 03 hypercube,
 *   04 dragonfly, 05 random, 06 rail. System-image GUIDs are the defaults.
 * - CAs have one port (XGFT hosts: w_1 ports, one per leaf) and the
 *   description "H<n> HCA-1" (rail HCAs: "node<n> mlx5_<r>"); switch
 *   descriptions are given per family.
 * - Links are 4x QDR and active. LIDs are assigned as
 *   ibr_fabric_assign_lids(f, 0, ::IBR_LIDS_KEEP) does: LMC 0, switches
 *   first, in node index order. A fabric that needs more than 0xBFFF LIDs
 *   fails with ::IBR_ENOSPC before anything is built.
 * - Generation is linear in the size of the fabric (the random generator
 *   may do extra work only when its last free ports are mutually adjacent).
 *   Not thread-safe on one fabric.
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
 *
 * Labels and numbering (Ohring et al.'s definition): a level-l node has
 * digits (d_h .. d_1), d_j in [0, m_j) for j > l and in [0, w_j) for
 * j <= l; a level-(l-1) node and a level-l node are cabled when their
 * labels differ at most in digit l. Within a level, nodes are numbered by
 * their label as a mixed-radix number, d_h most significant. Switches come
 * level by level from the leaves up ("L<l>-S<number in level>"), then the
 * hosts in label order. A level-l switch's port c+1 (c < m_l) goes to the
 * child whose digit l is c, port m_l+y+1 to the parent whose digit l+1 is
 * y; a host's port y+1 goes to its leaf y. With @c hosts below m_1, only
 * level-0 nodes with d_1 < hosts exist: leaf down ports above @c hosts
 * stay empty.
 *
 * Versioned (doc/api-conventions.md): initialise it with
 * ::IBR_GEN_XGFT_INIT or ibr_gen_xgft_init(), then set the fields; the
 * library reads only the fields the caller's version has.
 */
typedef struct ibr_gen_xgft {
    unsigned int version;              /**< ::IBR_GEN_XGFT_VERSION */
    unsigned int h;                    /**< switch levels, 1..IBR_XGFT_MAX_LEVELS */
    unsigned int m[IBR_XGFT_MAX_LEVELS]; /**< m[i-1]: children of a level-i
                                              switch (entries 0..h-1 used) */
    unsigned int w[IBR_XGFT_MAX_LEVELS]; /**< w[i-1]: parents of a level-(i-1)
                                              node (entries 0..h-1 used) */
    unsigned int hosts;                /**< hosts per leaf, 0 = m[0] */
} ibr_gen_xgft;

/** Parameters of the current version with every field 0 (to be filled in).
 *  Equal to what ibr_gen_xgft_init() produces. */
#define IBR_GEN_XGFT_INIT \
    { IBR_GEN_XGFT_VERSION, 0, { 0 }, { 0 }, 0 }

/**
 * Initialise @p p as ::IBR_GEN_XGFT_INIT does, for parameters version
 * @p version (pass ::IBR_GEN_XGFT_VERSION). Only the bytes version
 * @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p p), ::IBR_EVERSION (unknown version;
 *         @p p is left untouched).
 * The caller owns @p p; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_gen_xgft_init(ibr_gen_xgft *p, unsigned int version);

/**
 * Generate an XGFT into the empty fabric @p f.
 * @p p is borrowed for the call; the nodes belong to @p f (nothing else to
 * free).
 * @return 0; ::IBR_ESTATE (fabric not empty); ::IBR_EINVAL (NULL argument,
 *         bad parameters, a switch would need more than 254 ports: the
 *         message says which);
 *         ::IBR_EVERSION (unknown @c p->version; @p p is read only as
 *         far as its version declares); ::IBR_ENOSPC (LIDs);
 *         ::IBR_ENOMEM. On failure @p f stays empty.
 * Not thread-safe on one fabric. Time complexity: O(nodes + links).
 */
IBR_API int ibr_fabric_gen_xgft(ibr_fabric *f, const ibr_gen_xgft *p);

/**
 * Generate a fat tree of @p levels levels of @p radix-port switches: the
 * k-ary n-tree with k = radix/2, whose top level uses all radix ports
 * downward (hosts = radix * (radix/2)^(levels-1)). @p hosts_per_leaf 0 means
 * radix/2. @return as ibr_fabric_gen_xgft().
 *
 * It is XGFT(levels; k,..,k,radix; 1,k,..,k) with k = radix/2, so
 * numbering, ports and descriptions are the XGFT ones (leaf ports 1..k to
 * hosts, k+1..radix up). @p radix must be even, 2..254; with one level the
 * single switch takes radix hosts (@p hosts_per_leaf 0 means radix).
 * Examples: 2 levels of 36 ports give 648 hosts, 36 leaves, 18 spines;
 * 3 levels give 11,664 hosts and 648 + 648 + 324 switches.
 * The nodes belong to @p f. Not thread-safe on one fabric.
 * Time complexity: O(nodes + links).
 */
IBR_API int ibr_fabric_gen_fat_tree(ibr_fabric *f, unsigned int levels, unsigned int radix,
                                    unsigned int hosts_per_leaf);

/**
 * Generate a mesh or torus with @p ndims dimensions of sizes @p dims,
 * @p hosts hosts per switch and @p parallel links per neighbour pair.
 * Switch ports: for dimension d, ports 2*d*parallel+1 .. are the "minus"
 * direction links, then the "plus" direction links; hosts follow.
 * A torus dimension of size 2 gets one link set (both directions meet).
 * @return as ibr_fabric_gen_xgft().
 *
 * Switch index x_0 + n_0*(x_1 + n_1*(x_2 + ...)) (dimension 0 fastest),
 * description "T(x_0,x_1,..)" for a torus and "M(...)" for a mesh. The
 * k-th "plus" port of a switch is cabled to the k-th "minus" port of the
 * next switch in that dimension; in a mesh the outward ports of the edge
 * switches stay empty, as does everything of a dimension of size 1 (and,
 * in a size-2 torus dimension, the minus ports of x=0 and plus ports of
 * x=1). Hosts are ports 2*ndims*parallel+1.. . @p wrap non-zero gives a
 * torus; @p parallel must be at least 1.
 * @p dims (@p ndims entries) is borrowed for the call; the nodes belong to
 * @p f. Not thread-safe on one fabric. Time complexity: O(nodes + links).
 */
IBR_API int ibr_fabric_gen_torus(ibr_fabric *f, unsigned int ndims, const unsigned int *dims,
                                 int wrap, unsigned int hosts, unsigned int parallel);

/**
 * Generate a hypercube of dimension @p dim (1..15; 2^dim switches), @p hosts
 * hosts per switch. Switch index bits are its coordinates; port d+1 of
 * every switch crosses dimension d (to index XOR 2^d, on its port d+1);
 * hosts are ports dim+1.. . Descriptions "Q<index>".
 * @return as ibr_fabric_gen_xgft().
 * The nodes belong to @p f. Not thread-safe on one fabric.
 * Time complexity: O(2^dim x (dim + hosts)).
 */
IBR_API int ibr_fabric_gen_hypercube(ibr_fabric *f, unsigned int dim, unsigned int hosts);

/**
 * Generate a dragonfly: @p g groups of @p a switches, all-to-all inside a
 * group, @p h global links per switch spread over the groups, @p p hosts
 * per switch. Requires a*h >= g-1.
 *
 * Router r of group G is switch G*a + r ("DF-G<G>-R<r>"). Its ports 1..a-1
 * go to the other routers of the group in order (port j+1 to router j < r,
 * port j to router j > r), ports a..a+h-1 are global, then p host ports.
 * Global endpoint t = r*h + k (port a+k of router r) of group G is dealt in
 * the consecutive ("absolute") arrangement: in round t / (g-1), endpoint
 * t mod (g-1) goes to group t mod (g-1) if that is below G, else to the
 * next one, so every pair of groups gets floor(a*h / (g-1)) cables and the
 * remaining a*h mod (g-1) global ports of each group stay empty.
 * @return as ibr_fabric_gen_xgft().
 * The nodes belong to @p f. Not thread-safe on one fabric.
 * Time complexity: O(g x a x (a + h + p)).
 */
IBR_API int ibr_fabric_gen_dragonfly(ibr_fabric *f, unsigned int a, unsigned int p,
                                     unsigned int h, unsigned int g);

/**
 * Generate a connected random switch graph: @p switches switches, each with
 * about @p degree switch links, @p hosts hosts each, seeded by @p seed.
 *
 * A random spanning tree (degrees capped at @p degree) is completed with
 * random links between switches that still have a free link port and are
 * not yet neighbours: no self-links, no parallel links, degree at most
 * @p degree, and all but a few switches reach it. Ports 1..degree carry
 * switch links in the order they were made, hosts follow. Descriptions
 * "R<index>". Needs at least 2 switches and 2 <= @p degree <= switches-1
 * (degree 1 only for 2 switches). The same seed gives the same fabric on
 * every platform. @return as ibr_fabric_gen_xgft().
 * The nodes belong to @p f. Not thread-safe on one fabric.
 * Time complexity: O(switches x (degree + hosts)) expected (see the
 * conventions above for the rare extra work).
 */
IBR_API int ibr_fabric_gen_random(ibr_fabric *f, unsigned int switches, unsigned int degree,
                                  unsigned int hosts, uint64_t seed);

/**
 * Generate from a spec string (see the table above). @p spec is borrowed
 * for the call; the nodes belong to @p f.
 * @return 0; ::IBR_EINVAL (NULL argument, unknown family or key, bad
 *         value: the message names it); others as the family's generator.
 * Not thread-safe on one fabric.
 * Time complexity: O(length of @p spec) plus the family's generator.
 */
IBR_API int ibr_fabric_generate(ibr_fabric *f, const char *spec);

/**
 * Inject faults: mark @p links random switch-to-switch links and @p
 * switches random switches down (all their links), chosen by @p seed among
 * active ones. Links whose loss would disconnect the switch graph are not
 * spared: the caller asked for faults.
 *
 * Candidate switches are those with at least one active link; the
 * switches are drawn first, then the links among the active
 * switch-to-switch links (loopbacks excluded) that touch no drawn switch,
 * so exactly @p links cables go down besides the drawn switches' own.
 * Works on any fabric, not only generated ones; the same fabric and seed
 * give the same faults.
 * @return 0; ::IBR_EINVAL (NULL @p f); ::IBR_ERANGE (more faults than
 *         candidates); ::IBR_ENOMEM. On failure nothing is changed.
 * Only link states change; nothing is allocated that outlives the call.
 * Not thread-safe on one fabric.
 * Time complexity: O(nodes + ports).
 */
IBR_API int ibr_fabric_inject_faults(ibr_fabric *f, unsigned int links,
                                     unsigned int switches, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
