/**
 * @file verify.h
 * @brief Check a routing against its topology and measure it.
 */
#ifndef IBROUTE_VERIFY_H
#define IBROUTE_VERIFY_H

#include "common.h"
#include "formats.h"
#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of ::ibr_verify_report this header describes. Version 1 ends
 *  with @c credit_loop; version 2 adds @c threads; version 3 adds
 *  @c strict and @c first_missing; version 4 adds the multicast checks
 *  (@c mcast_groups to @c first_mcast_error). */
#define IBR_VERIFY_REPORT_VERSION 4

/**
 * What ibr_result_verify() found. Hop counts are numbers of links from the
 * source port to the destination port (two hosts on one switch are 2 hops
 * apart);
 * link loads count routes per directed switch-to-switch link over all
 * (source end port, destination end-port LID) pairs, every LID of a port
 * counted. Switch LIDs are checked at switch level (the first group of
 * counters) but are not destinations of the end-to-end pairs, hop
 * statistics or link loads.
 *
 * Two fields are inputs, set by the caller: @c version and (from version
 * 2) @c threads; ibr_result_verify() keeps them and fills every other field.
 * Versioned (doc/api-conventions.md): initialise it with
 * ::IBR_VERIFY_REPORT_INIT or ibr_verify_report_init(); the library reads
 * and writes only the fields the caller's version has.
 */
typedef struct ibr_verify_report {
    unsigned int version;          /**< set by the caller: ::IBR_VERIFY_REPORT_VERSION */
    /* switch-level correctness: every (switch, destination LID) */
    uint64_t routes_checked;       /**< (switch, LID) pairs with a reachable destination */
    uint64_t routes_ok;            /**< ... that reach it by following the LFTs */
    /** Empty switch-LID entries: LFT entry 255 although the destination is
     *  reachable and the engine's hop matrix (when the result has one) does
     *  not rule it out. Tables read from a dump carry no hop matrix, so the
     *  entries an up/down or fat-tree rule leaves empty on purpose (spine to
     *  spine) are counted here. They fail the verdict only when @c strict
     *  is set (or for version 1 and 2 reports); an empty entry that breaks
     *  an end-port pair always does, through @c pairs_ok. */
    uint64_t missing;
    uint64_t loops;                /**< following the LFTs cycles */
    uint64_t bad_port;             /**< entry names a port that does not exist or is not cabled */
    uint64_t down_link;            /**< entry sends over a down link */
    uint64_t dead_end;             /**< route leaves the switch fabric without reaching the destination */
    uint64_t unreachable;          /**< (switch, LID) pairs with no path in the topology */
    uint64_t spurious;             /**< routes toward LIDs that no port owns */
    /** (switch, LID) pairs without a route that the engine's own rules make
     *  unreachable, as its hop matrix (ibr_result_hops()) says: for example
     *  one spine switch to another under up/down, or LIDs beyond the
     *  ibr_options::lmc the routing was asked for. Not an error; these pairs
     *  are left out of routes_checked (and the LIDs beyond the LMC out of
     *  the end-to-end pairs). An empty entry of a switch that has end ports
     *  toward an end port's LID is never restricted: it breaks end-port
     *  pairs the fabric connects, which count in @c pairs whatever the
     *  engine's rules, so that @c pairs, @c pairs_ok and the verdict
     *  without @c strict are those of the same tables verified without a
     *  hop matrix (read from a dump: `ibr verify`). */
    uint64_t restricted;
    uint64_t nonminimal;           /**< routes longer than the shortest path */
    /* end-to-end: every (source end port, destination LID of another port) */
    /** (source end port, destination end-port LID) pairs whose switches
     *  the topology connects (active cables), whatever the engine's rules;
     *  every such pair not delivered fails the verdict. */
    uint64_t pairs;
    uint64_t pairs_ok;             /**< ... routed correctly */
    double avg_hops;               /**< over routed pairs */
    unsigned int max_hops;         /**< longest routed pair, in links */
    double avg_stretch;            /**< routed hops / shortest hops, averaged */
    double max_stretch;            /**< largest routed hops / shortest hops */
    /* link load (edge forwarding index) */
    uint64_t links;                /**< active directed switch-to-switch links */
    uint64_t max_link_load;        /**< routes on the busiest link */
    double mean_link_load;         /**< over all active links */
    /** Credit-loop freedom of the paths between end ports, per VL, through
     *  the result's path SLs and SL2VL tables: 1 free, 0 loop found. */
    int deadlock_free;
    /** The first problem found, naming switch, LID and port; "" if none. */
    char first_error[256];
    /** Channels in the credit loop found (0 when deadlock_free). */
    unsigned int credit_loop_length;
    /** The credit loop, readable: "VL 0: 0x... port 2 -> 0x... port 5 -> ..."
     *  (truncated when long; ibr_result_find_credit_loop() gives every
     *  channel). */
    char credit_loop[512];
    /** Input (version 2): worker threads of ibr_result_verify(). 0
     *  (automatic) is one per online CPU, 1 runs on the calling thread
     *  alone; at most 64
     *  are used (larger values count as 64), and at most one per 64 LIDs.
     *  The report is the same whatever the count. Version 1 callers get
     *  the automatic count. */
    unsigned int threads;
    /** Input (version 3): non-zero makes every empty switch-LID entry
     *  (@c missing) an error, as versions 1 and 2 always do; 0 (default)
     *  judges what users route for: every end-port pair delivered, and no
     *  entry that loops, dead-ends, or uses a bad port or a down link. */
    int strict;
    /** Output (version 3): the first empty switch-LID entry found, naming
     *  switch and LID; "" if none. (@c first_error names it too when it
     *  fails the verdict.) */
    char first_missing[256];
    /* multicast (version 4): for every MLID of the result with members
       (ibr_result_mcast_members()) and every member port as a source, a
       copy injected by the source is flooded through the MFTs */
    /** Output (version 4): MLIDs with at least two member ports checked. */
    uint64_t mcast_groups;
    /** Output (version 4): (source member, other member) pairs checked. */
    uint64_t mcast_pairs;
    /** Output (version 4): pairs delivered exactly once. */
    uint64_t mcast_pairs_ok;
    /** Output (version 4): pairs never delivered. */
    uint64_t mcast_missed;
    /** Output (version 4): pairs delivered more than once (counted once
     *  per pair). */
    uint64_t mcast_duplicates;
    /** Output (version 4): floods (MLID, source) in which a switch
     *  receives a second copy: the tree has a cycle or two branches
     *  reconverge. */
    uint64_t mcast_loops;
    /** Output (version 4): copies sent by an MFT to a port that does not
     *  exist, is not cabled, has its link down, or leads to an end port
     *  that is not a member (the source excepted). */
    uint64_t mcast_dead_ends;
    /** Output (version 4): the first multicast problem found, naming the
     *  MLID, source and switch; "" if none. Any multicast problem fails the
     *  verdict. The credit-loop check (@c deadlock_free) includes the
     *  multicast dependencies of every version's report: at each switch, a
     *  copy arriving by an MFT port continues on every other MFT port of
     *  the MLID, on the VL of SL 0 (as ibdmchk -M adds them). */
    char first_mcast_error[256];
} ibr_verify_report;

/** An empty report of the current version with @c threads 0 (automatic)
 *  and @c strict 0.
 *  Equal to what ibr_verify_report_init() produces. */
#define IBR_VERIFY_REPORT_INIT                                                 \
    { IBR_VERIFY_REPORT_VERSION, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0, \
      0.0, 0.0, 0, 0, 0.0, 0, "", 0, "", 0, 0, "", 0, 0, 0, 0, 0, 0, 0, "" }

/**
 * Initialise @p rep as an empty report of version @p version (1 to
 * ::IBR_VERIFY_REPORT_VERSION), as ::IBR_VERIFY_REPORT_INIT does: every
 * field 0 or "" (so @c threads is 0, automatic, and @c strict 0) but
 * @c version. Only the
 * bytes version @p version has are written.
 * @return 0, ::IBR_EINVAL (NULL @p rep), ::IBR_EVERSION (unknown version;
 *         @p rep is left untouched).
 * The caller owns @p rep; nothing needs freeing. Thread-safe. Time
 * complexity: O(1).
 */
IBR_API int ibr_verify_report_init(ibr_verify_report *rep, unsigned int version);

/**
 * Check a result against the topology it was computed on
 * (ibr_result_topo()) and measure it.
 *
 * @param[in,out] out report, initialised with ::IBR_VERIFY_REPORT_INIT or
 *             ibr_verify_report_init() (::IBR_VERIFY_REPORT_VERSION, or 1:
 *             then only the fields of version 1 are read and written) and,
 *             from version 2, @c out->threads set (0 for automatic).
 *             Caller-owned; every field but those two is cleared and
 *             filled (nothing in it needs freeing). Written only when the
 *             call returns 0 or ::IBR_EROUTES: left untouched on any other
 *             code.
 * @param r    a routed result, only read (its topology too).
 * @return 0 when every check passes (spurious and non-minimal routes are
 *         counted but do not fail the check); ::IBR_EROUTES when an
 *         end-port pair is not delivered, or an entry dead-ends, loops,
 *         uses a bad port or a down link, or (with @c strict, and always
 *         for version 1 and 2 reports) a switch-LID entry is empty
 *         (the report says which and
 *         how many; first_error names the first); ::IBR_EINVAL (NULL
 *         argument, failed result); ::IBR_EVERSION (unknown
 *         @c out->version); ::IBR_ENOMEM. A credit loop does not fail the
 *         call: it sets @c deadlock_free to 0 and describes the loop, so
 *         check that field (or call ibr_result_find_credit_loop()) as well.
 *
 * Time complexity: O(S·(S+E) + L·S) for S switches, E links and L LIDs,
 * plus the credit-loop search of ibr_result_find_credit_loop();
 * memory O(S^2 + ports + E) plus O(S) per worker and that of the search,
 * allocated through the topology's context and freed before the call
 * returns.
 * Threads: the shortest-path matrix and the walks through the LFTs run on
 * @c out->threads workers (see ::ibr_verify_report::threads), the
 * credit-loop search on the calling thread. All allocation happens on the
 * calling thread, so the allocator need not be thread-safe. Thread-safe on
 * shared read-only inputs: any number of ibr_result_verify() calls may run at
 * once on one topology and result.
 */
IBR_API int ibr_result_verify(ibr_verify_report *out, const ibr_result *r);

/**
 * Write a report of ibr_result_verify() as JSON, appended to the caller's
 * buffer: one object on one line, without a newline, so that it can be embedded in
 * a larger document (`ibr verify --json` and `ibr route --json` print it
 * under "verify"). Keys, in this order: "valid" (true when
 * ibr_result_verify() returned 0: see its verdict, which depends on
 * @c strict), "status" ("IBR_OK" or "IBR_EROUTES", the
 * ibr_status_name() of that code), then the fields of
 * ::ibr_verify_report from @c routes_checked to @c credit_loop under
 * their own names: counters as integers, averages and stretches as numbers
 * (9 significant digits), "deadlock_free" as true or false (null when
 * negative), "first_error" and "credit_loop" as strings; version 3
 * reports add "strict" (true or false) and "first_missing" (a string);
 * version 4 reports add the multicast counters "mcast_groups" to
 * "mcast_dead_ends" (integers) and "first_mcast_error" (a string).
 * The inputs @c version and @c threads are not written.
 *
 * @param out buffer to append to (see ::ibr_buffer). A buffer without a
 *        context adopts the default one (the C library's allocator); set
 *        @c out->ctx before the first write to allocate through yours.
 *        Left as it was on failure; free it with ibr_buffer_dispose().
 * @param rep a report filled by ibr_result_verify() (version 1 to 4), only
 *        read; its strings are read up to their NUL or the end of their
 *        array.
 * @return 0; ::IBR_EINVAL (NULL argument, inconsistent buffer);
 *         ::IBR_EVERSION (@c rep->version is not 1 to
 *         ::IBR_VERIFY_REPORT_VERSION); ::IBR_ENOMEM.
 * Thread-safe on a shared report, one buffer per thread. Time complexity:
 * O(output), under 2 kB.
 */
IBR_API int ibr_verify_report_write_json(ibr_buffer *out, const ibr_verify_report *rep);

/** A channel: the directed link leaving switch @c sw by @c port, on @c vl. */
typedef struct ibr_channel {
    uint32_t sw;       /**< switch index */
    unsigned int port; /**< output port of @c sw */
    unsigned int vl;   /**< virtual lane */
} ibr_channel;

/**
 * Look for a credit loop (a cycle in the channel dependency graph of the
 * paths between end ports, per VL, using the result's path SLs and SL2VL
 * tables; switch LIDs are left out: their management traffic travels on
 * VL 15, which has no flow control).
 *
 * @param[out] cycle receives up to @p cap channels of the loop, in order
 *        (each channel's packets wait for the next one's buffers; the last
 *        waits for the first). May be NULL when @p cap is 0.
 * @param cap capacity of @p cycle.
 * @param[out] len number of channels in the loop (0 when none).
 * @param r a routed result, only read (its topology too).
 * @return 0 when the routing is free of credit loops; ::IBR_EDEADLOCK when
 *         a loop was found (copied up to @p cap; *len gives its full
 *         length); ::IBR_EINVAL (NULL @p len or @p r, NULL @p cycle with a
 *         non-zero @p cap, failed result); ::IBR_ENOMEM.
 * Ownership: @p cycle is the caller's array; scratch memory is allocated
 * through the topology's context and freed before the call returns.
 * Time complexity: O(L·S·V) dependency insertions plus O(C + D) for the
 * search (L LIDs, S switches, V VLs, C channels, D dependencies); memory
 * O(C + D). Thread-safe on shared read-only inputs.
 */
IBR_API int ibr_result_find_credit_loop(ibr_channel *cycle, size_t cap, size_t *len,
                                        const ibr_result *r);

/**
 * What a switch does with a packet, following its LFT entry toward the
 * destination LID: one value per hop of ibr_result_trace(). Every hop but
 * the last is ::IBR_HOP_FORWARDED; the last says how the route ends.
 * ibr_result_verify() classifies routes by the same rules: its @c missing
 * counts ::IBR_HOP_NO_ROUTE, @c bad_port ::IBR_HOP_NOT_OWNER, ::IBR_HOP_NO_PORT
 * and ::IBR_HOP_UNCABLED, @c down_link ::IBR_HOP_DOWN_LINK, @c dead_end
 * ::IBR_HOP_DEAD_END and @c loops ::IBR_HOP_LOOP.
 */
typedef enum ibr_hop_status {
    /** Sent over an active link to another switch (or, by a cable between
     *  two of its own ports, back to this one): the route goes on. */
    IBR_HOP_FORWARDED = 0,
    /** Sent to the port that owns the destination LID (port 0 when that
     *  is this switch): the route arrives. */
    IBR_HOP_DELIVERED = 1,
    /** The LFT has no entry for the LID (::IBR_NO_ROUTE). */
    IBR_HOP_NO_ROUTE = 2,
    /** The entry is port 0, the switch itself, which does not own the LID. */
    IBR_HOP_NOT_OWNER = 3,
    /** The entry names a port the switch lacks. */
    IBR_HOP_NO_PORT = 4,
    /** The entry names a port that is not cabled. */
    IBR_HOP_UNCABLED = 5,
    /** The entry names a port whose link is down. */
    IBR_HOP_DOWN_LINK = 6,
    /** The entry's link leads out of the switch fabric, to a CA or router
     *  port that does not own the LID. */
    IBR_HOP_DEAD_END = 7,
    /** The packet entered this switch by the port an earlier hop entered
     *  it by: from here the route repeats forever. The hop is otherwise
     *  filled like a forwarded one. */
    IBR_HOP_LOOP = 8
} ibr_hop_status;

/** One hop of a traced route. */
typedef struct ibr_trace_hop {
    uint32_t sw;           /**< switch index */
    unsigned int in_port;  /**< port the packet arrived on (0: it starts here) */
    unsigned int out_port; /**< port the LFT sends it to (::IBR_NO_ROUTE if none) */
    unsigned int vl;       /**< VL of the outgoing hop (SL2VL of this switch; 0 when
                                @c out_port is a port the switch lacks) */
    ibr_hop_status status; /**< what the switch does with the packet */
} ibr_trace_hop;

/**
 * Follow the route from the port owning @p src_lid (an end port, or a
 * switch) to @p dst_lid, hop by hop.
 *
 * A route that arrives ends with an ::IBR_HOP_DELIVERED hop, a broken
 * one with the hop where it breaks, whose @c status says why. A route that
 * loops ends with the first hop that enters a switch by the same port as
 * an earlier hop (::IBR_HOP_LOOP); the earlier hop is the one with the
 * same @c sw and @c in_port. Every other hop is ::IBR_HOP_FORWARDED.
 *
 * @param[out] hops receives up to @p cap hops. @param cap capacity of
 *        @p hops.
 * @param[out] n number of hops (switches traversed, the failing one
 *        included; at most S + 2 for S switches).
 * @param[out] sl the path's SL (may be NULL).
 * @param r a routed result, only read (its topology too).
 * @param src_lid source LID. @param dst_lid destination LID.
 * @return 0 when the route reaches the destination; ::IBR_EROUTES when it
 *         breaks or loops (the last hop says where and why);
 *         ::IBR_ENOTFOUND (no port owns a LID, or the source is not
 *         cabled to a switch); ::IBR_ERANGE (@p cap too small; *n says how
 *         many are needed, the first @p cap hops are written);
 *         ::IBR_EINVAL (NULL @p n or @p r, NULL @p hops with a non-zero
 *         @p cap, failed result).
 * Ownership: @p hops is the caller's array; nothing is allocated.
 * Time complexity: O(hops) for a route that arrives or breaks, O(S) for
 * one that loops (found without memory by walking it again), plus
 * O(log end ports) for a per-pair SL. Thread-safe on shared read-only
 * inputs.
 */
IBR_API int ibr_result_trace(ibr_trace_hop *hops, size_t cap, size_t *n, unsigned int *sl,
                             const ibr_result *r, uint16_t src_lid, uint16_t dst_lid);


/** One copy of a multicast packet leaving a switch (ibr_result_trace_mcast()). */
typedef struct ibr_mcast_hop {
    uint32_t sw;           /**< switch index */
    unsigned int in_port;  /**< port the copy arrived on (0: the switch is the source) */
    unsigned int out_port; /**< MFT port it leaves by (0: delivered to the switch itself) */
    uint32_t to_node;      /**< node at the other end (the switch itself for port 0;
                                ::IBR_NONE when the port is not cabled or down) */
    unsigned int to_port;  /**< port of @c to_node it arrives on */
    unsigned int depth;    /**< links crossed from the source, this one included */
    /** 1 when @c to_node's port was already reached by an earlier copy:
     *  a duplicate (not forwarded further); 0 otherwise. */
    int duplicate;
} ibr_mcast_hop;

/**
 * Flood a packet to @p mlid from the member port (@p node, @p port)
 * through the result's MFTs, breadth first: every copy leaving a switch is
 * one hop (fixed layout records), in the order they are sent. Copies reaching
 * an end port stop there; a copy reaching a switch already reached is
 * marked @c duplicate and goes no further, so the flood ends.
 * @param[out] hops receives up to @p cap hops. @param cap its capacity.
 * @param[out] n the number of hops (the flood's size).
 * @param r a routed result. @param mlid the MLID. @param node the source
 *        node index. @param port its port (0 for a switch).
 * @return 0 when every member of the MLID (ibr_result_mcast_members()) is
 *         reached exactly once and no copy is a duplicate or dead end;
 *         ::IBR_EROUTES otherwise; ::IBR_ENOTFOUND (no MFT for @p mlid,
 *         bad node or port, or an end port not cabled to a switch);
 *         ::IBR_ERANGE (@p cap too small: *n set, the first @p cap hops
 *         written); ::IBR_EINVAL (NULL @p n or @p r, NULL @p hops with a
 *         capacity); ::IBR_ENOMEM.
 * Allocates O(nodes + ports) scratch through the topology's context.
 * Thread-safe on a shared result. Time complexity: O(ports of the switches
 * reached).
 */
IBR_API int ibr_result_trace_mcast(ibr_mcast_hop *hops, size_t cap, size_t *n,
                                   const ibr_result *r, uint16_t mlid, uint32_t node,
                                   unsigned int port);

#ifdef __cplusplus
}
#endif

#endif
