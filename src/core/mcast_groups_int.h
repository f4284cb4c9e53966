/*
 * Multicast groups as the library holds them (core/mcast_groups.c): shared by the
 * groups parser (formats), the multicast trees (mcast/) and the verifier.
 */
#ifndef IBROUTE_MCAST_GROUPS_INT_H
#define IBROUTE_MCAST_GROUPS_INT_H

#include "core/internal.h"

/* One group: an MLID, an optional MGID, member ports by global port index
   with their join states, in the order they were added. */
typedef struct ibr__mcgroup {
    uint16_t mlid;
    int has_mgid;
    uint8_t mgid[16];
    uint32_t *ports;
    uint8_t *join;
    size_t n, cap_ports, cap_join;
    ibr__guidmap index; /* gport + 1 -> position in ports */
} ibr__mcgroup;

struct ibr_mcast_groups {
    ibr_context *ctx;
    const ibr_topo *topo;
    ibr__mcgroup *groups;
    size_t n_groups, cap_groups;
    uint16_t *mlids; /* distinct MLIDs, ascending */
    size_t n_mlids, cap_mlids;
    char last_error[IBR_ERRMSG_SIZE];
};

/* Global port index of member (guid, port): a switch by port 0, a CA or
   router by a cabled port. IBR_ENOTFOUND with a message in err. */
int ibr__mcast_resolve(uint32_t *gport, char *err, const ibr_topo *t, uint64_t guid,
                       unsigned int port);
/* Add a resolved member (the checks and messages of
   ibr_mcast_groups_add_member()); the set is unchanged on failure. */
int ibr__mcast_add(ibr_mcast_groups *g, uint16_t mlid, const uint8_t mgid[16], uint32_t gport,
                   unsigned int join_state);
/* The union of the members of mlid, sorted by global port index, join
   states OR-ed; *out allocated through g's context. IBR_ENOTFOUND when no
   group has the MLID. */
int ibr__mcast_members(ibr__mcmember **out, size_t *n, const ibr_mcast_groups *g, uint16_t mlid);
/* Free every group and MLID of g: g holds none after, its context and
   topology stay. */
void ibr__mcast_groups_clear(ibr_mcast_groups *g);
/* Copy every MLID's members of g into r (creating empty MFTs as needed). */
int ibr__result_set_mcast_members(ibr_result *r, const ibr_mcast_groups *g);

#endif
