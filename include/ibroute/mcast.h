/**
 * @file mcast.h
 * @brief Multicast groups: the members a routing builds trees for.
 *
 * A caller describes its multicast groups in an ::ibr_mcast_groups set
 * bound to one topology: each group has a multicast LID (MLID,
 * 0xC000..0xFFFE), optionally its 128-bit MGID, and member ports named by
 * node GUID and port number (port 0 for a switch, the CA or router port
 * otherwise) with their IBA join state. Several groups (MGIDs) may share
 * one MLID: as in OpenSM, the tree of an MLID spans the union of their
 * members, whatever their join state.
 *
 * The set is handed to ibr_route() through ibr_options::mcast_groups. An
 * engine that builds its own trees receives it with ibr_run_mcast_groups()
 * (sys/engine.h) and says so with ibr_run_set_mcast_built(); after every
 * other engine the library builds OpenSM's default spanning tree per MLID
 * (ibr_run_mcast_default() in sys/toolkit.h), or a load-balanced variant
 * with ::IBR_MCAST_BALANCE in ibr_options::mcast_flags. The result keeps
 * each MLID's members (ibr_result_mcast_members()) so that
 * ibr_result_verify(), ibr_result_trace_mcast() and the analysis can check
 * and measure the trees without the set. The groups file of
 * `ibr route --groups` is read by ibr_mcast_groups_parse() (formats.h).
 *
 * @code
 * ibr_mcast_groups *g = NULL;
 * ibr_mcast_groups_create(&g, topo);
 * ibr_mcast_groups_add_member(g, 0xC000, NULL, 0x0002c90300001234ull, 1, IBR_MCAST_JOIN_FULL);
 * ...
 * ibr_options opts = IBR_OPTIONS_INIT;
 * opts.mcast_groups = g;
 * ibr_route(&res, topo, "minhop", &opts);
 * @endcode
 */
#ifndef IBROUTE_MCAST_H
#define IBROUTE_MCAST_H

#include "common.h"
#include "topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Smallest multicast LID. */
#define IBR_MLID_MIN 0xC000u
/** Largest multicast LID (0xFFFF is the permissive LID). */
#define IBR_MLID_MAX 0xFFFEu

/** JoinState bits of an IBA MCMemberRecord; a member's join state is a
 *  non-zero OR of them. */
typedef enum ibr_mcast_join {
    IBR_MCAST_JOIN_FULL = 1 << 0,          /**< full member */
    IBR_MCAST_JOIN_NON = 1 << 1,           /**< non-member */
    IBR_MCAST_JOIN_SENDONLY = 1 << 2,      /**< send-only non-member */
    IBR_MCAST_JOIN_SENDONLY_FULL = 1 << 3  /**< send-only full member */
} ibr_mcast_join;

/** Flags of ibr_options::mcast_flags. */
typedef enum ibr_mcast_flags {
    /** Build the default trees balanced over links: each branch takes,
     *  among the shortest-path ports, the one carrying the fewest trees so
     *  far (ties: lowest port), and every switch joins a tree once, so the
     *  trees never duplicate a packet. Without it the trees are OpenSM's
     *  (always the lowest-numbered shortest-path port). Engines that build
     *  their own trees ignore it. */
    IBR_MCAST_BALANCE = 1 << 0,
    /** Keep the trees and SLs as OpenSM would program them even when,
     *  after an engine that promises deadlock freedom (dfsssp, lash, Nue,
     *  up/down, ...), the multicast traffic closes a credit loop with the
     *  unicast routes. Without it the library then moves the unicast path
     *  SLs up by one (when a VL is left under ibr_options::max_vls and the
     *  engine's SL2VL tables are the identity), so that multicast has
     *  SL/VL 0 to itself, and builds every MLID's tree inside one spanning
     *  tree of the switches (see the guide, "Multicast"). torus-2QoS has
     *  its own remedy, which its setting `opensm_mcast_tree` turns off. */
    IBR_MCAST_OPENSM = 1 << 1
} ibr_mcast_flags;

/** A set of multicast groups bound to one topology. Opaque; mutable by one
 *  thread at a time, then read-only (it may be shared by routing calls). */
typedef struct ibr_mcast_groups ibr_mcast_groups;

/** One member port of an MLID (fixed layout). */
typedef struct ibr_mcast_member {
    uint64_t guid;           /**< node GUID */
    unsigned int port;       /**< port number (0 for a switch) */
    uint32_t node;           /**< node index in the topology */
    unsigned int join_state; /**< OR of ::ibr_mcast_join bits over the
                                  MLID's groups that list the port */
} ibr_mcast_member;

/**
 * Create an empty set of groups for topology @p t.
 * @param[out] out receives the set (the caller's; free it with
 *             ibr_mcast_groups_destroy()); NULL on failure.
 * @param t the topology; borrowed: it must outlive the set.
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM.
 * Allocates through the topology's context. Thread-safe.
 * Time complexity: O(1).
 */
IBR_API int ibr_mcast_groups_create(ibr_mcast_groups **out, const ibr_topo *t);

/** Free a set (NULL is accepted). Time complexity: O(groups + members). */
IBR_API void ibr_mcast_groups_destroy(ibr_mcast_groups *g);

/** The message of the last failed call on @p g ("" if none); borrowed,
 *  valid until the next call on @p g. Cannot fail; "" for NULL. */
IBR_API const char *ibr_mcast_groups_last_error(const ibr_mcast_groups *g);

/** The topology the set is bound to (NULL for NULL). Cannot fail.
 *  Time complexity: O(1). */
IBR_API const ibr_topo *ibr_mcast_groups_topo(const ibr_mcast_groups *g);

/**
 * Add a member port to the group (@p mlid, @p mgid), creating the group on
 * first use.
 * @param g the set. @param mlid the group's MLID (::IBR_MLID_MIN ..
 *        ::IBR_MLID_MAX). @param mgid the group's MGID (16 bytes, network
 *        order), or NULL for the MLID's anonymous group; borrowed for the
 *        call. An MGID belongs to one MLID.
 * @param guid node GUID of the member. @param port its port number: 0 for a
 *        switch, 1..ports of the node for a CA or router (the port must be
 *        cabled). @param join_state a non-zero OR of ::ibr_mcast_join bits
 *        (at most 15).
 * @return 0; ::IBR_EINVAL (NULL @p g); ::IBR_ERANGE (MLID outside the
 *         multicast range, join state 0 or above 15, the MGID already
 *         belongs to another MLID); ::IBR_ENOTFOUND (no node has that GUID,
 *         or the port does not exist or is not cabled);
 *         ::IBR_EEXIST (the port is already a member of that group);
 *         ::IBR_ENOMEM. On failure the set is unchanged and
 *         ibr_mcast_groups_last_error() says why.
 * Not thread-safe on one set. Time complexity: O(log nodes + groups of the
 * MLID + members of the group).
 */
IBR_API int ibr_mcast_groups_add_member(ibr_mcast_groups *g, uint16_t mlid,
                                        const uint8_t mgid[16], uint64_t guid,
                                        unsigned int port, unsigned int join_state);

/** Number of groups (distinct (MLID, MGID) pairs). Cannot fail; 0 for
 *  NULL. Time complexity: O(1). */
IBR_API size_t ibr_mcast_groups_group_count(const ibr_mcast_groups *g);

/**
 * Describe group @p i (groups are in the order they were created).
 * @param[out] mlid its MLID (may be NULL). @param[out] mgid receives its
 *        MGID, 16 bytes (may be NULL; zeros for an anonymous group).
 * @param[out] has_mgid 1 when the group has an MGID (may be NULL).
 * @param[out] members its number of member ports (may be NULL).
 * @param g the set. @param i the index.
 * @return 0, ::IBR_EINVAL (NULL @p g), ::IBR_ENOTFOUND (index out of
 *         range). Cannot allocate. Time complexity: O(1).
 */
IBR_API int ibr_mcast_groups_group(uint16_t *mlid, uint8_t *mgid, int *has_mgid,
                                   size_t *members, const ibr_mcast_groups *g, size_t i);

/** Number of distinct MLIDs. Cannot fail; 0 for NULL. Time complexity:
 *  O(1). */
IBR_API size_t ibr_mcast_groups_mlid_count(const ibr_mcast_groups *g);

/** MLID @p i, in ascending order, or 0 (NULL @p g, index out of range).
 *  Time complexity: O(1). */
IBR_API uint16_t ibr_mcast_groups_mlid(const ibr_mcast_groups *g, size_t i);

/**
 * The member ports of @p mlid: the union over its groups, one entry per
 * port, in (node index, port) order, join states OR-ed.
 * @param[out] dst array of @p cap entries (NULL when @p cap is 0).
 * @param cap its capacity. @param[out] needed receives the number of
 *        members (may be NULL). @param g the set. @param mlid the MLID.
 * @return 0, ::IBR_EINVAL (NULL @p g, NULL @p dst with a capacity),
 *         ::IBR_ENOTFOUND (no group has that MLID), ::IBR_ERANGE (@p cap
 *         too small: nothing copied, @p needed set).
 * Cannot allocate. Time complexity: O(members of the MLID).
 */
IBR_API int ibr_mcast_groups_members(ibr_mcast_member *dst, size_t cap, size_t *needed,
                                     const ibr_mcast_groups *g, uint16_t mlid);

#ifdef __cplusplus
}
#endif

#endif
