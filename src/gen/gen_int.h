/*
 * Private helpers shared by the topology generators (gen_*.c) and fault
 * injection. Nothing here is public.
 *
 * Every generator follows the same pattern:
 *
 *     if ((rc = ibr__gen_begin(&tmp, f, "torus")) < 0) return rc;
 *     rc = build(tmp, ...);
 *     return ibr__gen_finish(f, tmp, rc, "torus");
 *
 * ibr__gen_begin() checks that the caller's fabric is empty and creates a
 * scratch fabric with the same context; ibr__gen_finish() assigns LIDs
 * (LMC 0, switches first) and, on success only, swaps the scratch contents
 * into the caller's fabric, so a failed generator leaves it empty.
 *
 * GUIDs look like a Mellanox fabric's: switches 0x0002c902FFxxxxxx and CAs
 * 0x0002c903FFhhhh00 (+ port number for port GUIDs), where FF is the
 * family id below, xxxxxx the switch number and hhhh the CA number, both in
 * node creation order. Every family therefore has its own GUID range.
 */
#ifndef IBROUTE_GEN_INT_H
#define IBROUTE_GEN_INT_H

#include "core/internal.h"

enum ibr__gen_family {
    IBR__GEN_XGFT = 1,
    IBR__GEN_TORUS = 2,
    IBR__GEN_HYPERCUBE = 3,
    IBR__GEN_DRAGONFLY = 4,
    IBR__GEN_RANDOM = 5,
    IBR__GEN_RAIL = 6,
    IBR__GEN_DFPLUS = 7,
    IBR__GEN_HYPERX = 8,
    IBR__GEN_SLIMFLY = 9
};

/* Limits implied by the GUID layout; the LID space (0xBFFF) is smaller. */
#define IBR__GEN_MAX_SWITCHES 0x1000000u
#define IBR__GEN_MAX_CAS 0x10000u

static inline uint64_t ibr__gen_switch_guid(unsigned family, uint32_t index)
{
    return 0x0002c90200000000ULL | ((uint64_t)(family & 0xff) << 24) |
           (uint64_t)(index & 0xffffff);
}

static inline uint64_t ibr__gen_ca_guid(unsigned family, uint32_t index)
{
    return 0x0002c90300000000ULL | ((uint64_t)(family & 0xff) << 24) |
           ((uint64_t)(index & 0xffff) << 8);
}

/* IBR_EINVAL for a NULL fabric, IBR_ESTATE (with a message) for a
   non-empty one, else 0. */
int ibr__gen_check_empty(ibr_fabric *f, const char *what);

/* Check @p f (non-NULL, empty) and create the scratch fabric. */
int ibr__gen_begin(ibr_fabric **tmp, ibr_fabric *f, const char *what);

/* Assign LIDs on success, move the scratch fabric's contents into @p f,
   destroy the scratch fabric; on failure copy its message to @p f. Returns
   the final status. */
int ibr__gen_finish(ibr_fabric *f, ibr_fabric *tmp, int rc, const char *what);

/* Fail early with IBR_ENOSPC when @p lids LIDs (switches plus cabled CA
   ports) do not fit the unicast LID space. */
int ibr__gen_check_lids(ibr_fabric *f, uint64_t lids, const char *what);

/* Add @p count one-port CAs "H<n> HCA-1" (n = *next_host, incremented),
   cabled to ports first_port.. of switch node @p sw. */
int ibr__gen_add_hosts(ibr_fabric *t, uint32_t sw, unsigned first_port, unsigned count,
                       unsigned family, uint32_t *next_host);

/* Rail-optimized fat tree (rail.c; spec family "rail"): @p nodes compute
   nodes of @p rails HCAs, @p su nodes per scalable unit (0: radix/2),
   @p radix-port switches, @p levels 2 or 3 (0: the fewest that fit);
   @p by_leaf 1 numbers the HCAs leaf by leaf instead of node by node. */
int ibr__gen_rail(ibr_fabric *f, unsigned nodes, unsigned rails, unsigned su, unsigned radix,
                  unsigned levels, unsigned by_leaf);

/* Low-diameter direct networks (direct.c; spec families "dfplus", "hyperx",
   "slimfly"): @p groups of @p leaves leaves and @p spines spines, @p hosts
   per leaf, @p global cables per spine (0: the fewest that join every pair
   of groups); a HyperX lattice of @p ndims dimensions of sizes @p dims with
   @p hosts per switch; the Slim Fly of an odd prime @p q with @p hosts per
   switch. */
int ibr__gen_dfplus(ibr_fabric *f, unsigned groups, unsigned leaves, unsigned spines,
                    unsigned hosts, unsigned global);
int ibr__gen_hyperx(ibr_fabric *f, unsigned ndims, const unsigned *dims, unsigned hosts);
int ibr__gen_slimfly(ibr_fabric *f, unsigned q, unsigned hosts);

#endif
