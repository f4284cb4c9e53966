/**
 * @file persist.h
 * @brief Routing persistence and incremental rerouting: save a routing with
 *        the fabric it was computed on, reload it, compare it with today's
 *        fabric and reroute only what the changes invalidate.
 *
 * A routing database (::ibr_routing_db) holds a routing (LFTs, hop matrix,
 * path SLs, the SL2VL maps the engine set on switches and end ports,
 * engine, its settings and the seed, and with QoS on the QoS levels and
 * the QoS configuration it was programmed with) together with
 * the fabric it was computed on: every node by GUID with its type, ports,
 * port GUIDs and LIDs, and per cabled port the remote node GUID and port.
 * It is written as text (ibr_routing_db_write(), format below) and read
 * back (ibr_routing_db_parse()); ibr_routing_db_from_result() makes one in
 * memory from a routed result.
 *
 * ibr_routing_db_compare() lists the differences between the database and
 * a topology, classified by ::ibr_change_kind (new or
 * missing switch, new or missing cable between switches, new or missing
 * end port, cable of an end port, LID change), each with what it
 * invalidates. ibr_routing_db_route() then produces the routing for the
 * topology: the saved tables as they are when nothing changed, moved to
 * the new LIDs and completed for new end ports when only end ports changed
 * (OpenSM's unicast cache, `-A`), repaired incrementally after cables or
 * switches were lost (the routes of a failed cable spread over its
 * parallel cables, otherwise only the destinations whose routes crossed a
 * failed port rerouted, on the switches that fed them), and rerouted in
 * full (by the saved engine with its settings and seed) when the engine's
 * promise cannot be kept otherwise. ::ibr_reroute_report says which, why,
 * and the churn: LFT entries changed, switches to reprogram, path SLs
 * changed. When the saved engine cannot route the changed fabric, the call
 * fails rather than hand out another engine's tables, unless the caller
 * allows the fallback (::IBR_REROUTE_FALLBACK).
 *
 * Text format, version 1 (one record per line, fields separated by one
 * space, hexadecimal in lower case):
 * @code
 * ibroute-routing-db 1
 * engine <name>                  seed <decimal>      vls <used> <layers>
 * qos <levels> <SL stride>       (QoS on; then qosconf lines)
 * qosconf <a line of the QoS configuration, %XX-escaped>
 * max_lid <decimal>              setting <engine.setting> <value, %XX-escaped>
 * node <S|C|R> 0x<node GUID> <ports>
 * port <n> 0x<port GUID> <lid> <lmc> [0x<remote node GUID> <remote port>]
 * epsl2vl <16 hex bytes>         (after a CA or router port: the engine's map)
 * lft <hex byte per LID 0..max_lid>          (after a switch's ports)
 * hops <hex byte per switch, in node order>  (after a switch's lft)
 * upos <place>   (updn, dnup: the switch's place in the orientation of the
 *                 links its routes are legal under; kept for repairs)
 * pairs <count per port 1..n>   (sssp, dfsssp: the end-port pairs over each
 *                 of the switch's ports under the saved routing, all-to-all;
 *                 what their repairs weigh moved paths against)
 * sl2vl <hex, 16 bytes per (in, out) port pair>
 * slmode <none|dest|pair>
 * sl <source LID> <hex byte per destination LID>   (source 0 for dest mode)
 * torusconf <a line of torus-2QoS.conf, %XX-escaped>   (torus-2QoS only)
 * toruspos 0x<switch GUID> <x> <y> <z>    (torus-2QoS: where it placed a switch)
 * end <FNV-1a 64 of every byte before this line, hex>
 * @endcode
 * Lines starting with '#' are comments. Switches are stored in switch
 * index order. The qos, qosconf, epsl2vl, torusconf, toruspos, upos and
 * pairs records are optional (a database written before them reads the
 * same; an updn or dnup routing without upos, or a torus-2QoS one without
 * torusconf and toruspos, is rerouted in full; the pairs of an sssp or
 * dfsssp routing without them are counted when it is read).
 *
 * QoS: a routing computed with ibr_options::qos keeps the engine's own
 * SL2VL maps (those from before the QoS manager) and the configuration
 * (ibr_qos_config_write() text); ibr_routing_db_route() programs the kept
 * or repaired tables again with the QoS manager, from the saved
 * configuration, or from ibr_options::qos when the caller gives one (the
 * caller's wins). Unchanged fabric and saved configuration: the SL2VL and
 * VL arbitration tables, notes and hazards of the saved routing, exactly.
 * A configuration with other QoS levels than the saved ones takes a full
 * reroute (the levels change how the engine routes). A text whose first line is not the magic line, of another
 * version, truncated, altered (checksum) or inconsistent is refused with
 * ::IBR_EPARSE and a message naming the line.
 *
 * Thread rules: a database is immutable once made and may be shared; the
 * functions only read it and the topology.
 */
#ifndef IBROUTE_PERSIST_H
#define IBROUTE_PERSIST_H

#include "common.h"
#include "context.h"
#include "formats.h"
#include "options.h"
#include "result.h"
#include "topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A saved routing and the fabric it was computed on. Opaque, immutable. */
typedef struct ibr_routing_db ibr_routing_db;

/** Version of the text format ibr_routing_db_write() writes. */
#define IBR_ROUTING_DB_FORMAT 1

/** Kinds of difference between a database and a topology (Table 1). */
typedef enum ibr_change_kind {
    IBR_CHANGE_NEW_SWITCH = 1,     /**< a switch the database lacks */
    IBR_CHANGE_MISSING_SWITCH = 2, /**< a saved switch the topology lacks */
    IBR_CHANGE_NEW_CABLE = 3,      /**< a new active cable between two switches */
    IBR_CHANGE_MISSING_CABLE = 4,  /**< a saved switch-to-switch cable gone (or down) */
    IBR_CHANGE_NEW_CA = 5,         /**< a new end port (CA or router port with a LID) */
    IBR_CHANGE_MISSING_CA = 6,     /**< a saved end port gone or uncabled */
    IBR_CHANGE_MOVED_CA = 7,       /**< an end port cabled to another switch port */
    IBR_CHANGE_LID = 8             /**< a port whose LID or LMC changed */
} ibr_change_kind;

/** What a change invalidates (bits of ibr_change::invalidates). */
typedef enum ibr_invalidates {
    /** The saved hop rows (new or missing switch, a cable between two
     *  switches with no parallel cable left). */
    IBR_INVALID_HOPS = 1 << 0,
    /** Every table (new switch: it needs tables and may shorten paths). */
    IBR_INVALID_ALL = 1 << 1,
    /** The routes through the changed port (missing cable). */
    IBR_INVALID_PORT_ROUTES = 1 << 2,
    /** The entries of the changed LIDs (LID change, moved or new end
     *  port: its LIDs need routes). */
    IBR_INVALID_LIDS = 1 << 3
} ibr_invalidates;

/** One difference. Fixed layout (records passed in arrays). */
typedef struct ibr_change {
    int kind;                 /**< ::ibr_change_kind */
    unsigned int invalidates; /**< ::ibr_invalidates bits */
    uint64_t guid;            /**< node GUID (switch, CA or router) */
    unsigned int port;        /**< its port (0 for a whole switch) */
    uint64_t remote_guid;     /**< the other end of a cable, else 0 */
    unsigned int remote_port; /**< its port, else 0 */
    uint16_t old_lid;         /**< LID in the database (0: none) */
    uint16_t new_lid;         /**< LID in the topology (0: none) */
} ibr_change;

/** How ibr_routing_db_route() produced its routing. */
typedef enum ibr_reroute_mode {
    IBR_REROUTE_UNCHANGED = 0,   /**< nothing changed: the saved tables, exactly */
    IBR_REROUTE_CACHED = 1,      /**< end ports only: saved tables, LIDs moved, new ones added */
    IBR_REROUTE_INCREMENTAL = 2, /**< cables or switches lost: repaired in place */
    IBR_REROUTE_FULL = 3         /**< rerouted by the saved engine (see reason) */
} ibr_reroute_mode;

/** Ask ibr_routing_db_route() for a full reroute whatever changed (to
 *  compare its churn with the incremental one). */
#define IBR_REROUTE_FORCE_FULL 1u

/** Let ibr_routing_db_route() hand out the chain's fallback: when the
 *  saved engine declines or fails the new fabric (lash or dfsssp short of
 *  virtual lanes, updn or nue on a split fabric, torus-2QoS after its seed
 *  switch died), minhop routes it as in ibr_route() without "no_fallback".
 *  Its tables do not keep the saved engine's promises (minhop may close
 *  credit loops that lash never would), so without this flag the call
 *  fails with ::IBR_EUNROUTABLE instead. With it, the result's
 *  ibr_result_engine(), its attempts and the report's @c engine and
 *  @c fallback name the engine that routed. */
#define IBR_REROUTE_FALLBACK 2u

/** Version of ::ibr_reroute_report this header describes. Version 1 ends
 *  with @c entries_repaired; version 2 adds @c engine, @c fallback and
 *  @c warning; version 3 adds what a subnet manager must send
 *  (@c lft_blocks_changed to @c lft_blocks_over_lost). */
#define IBR_REROUTE_REPORT_VERSION 3

/** Buckets of ::ibr_reroute_report::lft_blocks_hist: bucket k counts the
 *  switches with 2^k to 2^(k+1) - 1 changed blocks (bucket 0: one block),
 *  the last one those with 1,024 or more (a 16-bit LID space has 1,024
 *  blocks). */
#define IBR_REROUTE_BLOCK_BUCKETS 11

/** What ibr_routing_db_route() did. Versioned output (doc/api-conventions.md). */
typedef struct ibr_reroute_report {
    unsigned int version;        /**< ::IBR_REROUTE_REPORT_VERSION (input) */
    int mode;                    /**< ::ibr_reroute_mode */
    char reason[256];            /**< why a full reroute ("" otherwise) */
    size_t changes;              /**< differences found (ibr_routing_db_compare()) */
    unsigned int invalidates;    /**< union of their ::ibr_invalidates bits */
    uint64_t lft_entries_changed;/**< LFT entries that differ from the saved ones */
    uint32_t switches_changed;   /**< switches with at least one such entry */
    uint64_t sls_changed;        /**< path SL entries that differ */
    uint32_t destinations_rerouted; /**< destination switches searched again */
    uint64_t entries_repaired;   /**< LFT entries the repair rewrote */
    /** Version 2: the engine whose tables the result holds (the saved one,
     *  or with ::IBR_REROUTE_FALLBACK the fallback that routed; "" when
     *  the call failed). ibr_result_engine() of the result says the same. */
    char engine[64];
    /** Version 2: non-zero when the saved engine declined or failed and
     *  the fallback routed (only with ::IBR_REROUTE_FALLBACK): the saved
     *  engine's promises (credit-loop freedom...) do not hold. */
    int fallback;
    /** Version 2: "" or a warning about the inputs, for example that most
     *  of the fabric changed (the database may be another fabric's). Set
     *  on failure too, once the comparison ran. */
    char warning[256];
    /** Version 3: LFT blocks that differ from the saved ones, over the
     *  switches of the topology. Block b of a switch holds LIDs 64 b to
     *  64 b + 63, what one SubnSet(LinearForwardingTable) carries; it
     *  changed when one of its entries (by LID, unrouted entries
     *  included) differs. A block that only one side's table has (the LID
     *  space grew or shrank) changed when it holds a routed entry; so do
     *  the blocks of a new switch that hold one. Switches gone from the
     *  fabric are not counted. */
    uint64_t lft_blocks_changed;
    /** Version 3: the most changed blocks of one switch. */
    uint32_t lft_blocks_max;
    /** Version 3: switches by their number of changed blocks
     *  (::IBR_REROUTE_BLOCK_BUCKETS; switches without one are not counted,
     *  so the buckets add up to @c switches_changed). */
    uint32_t lft_blocks_hist[IBR_REROUTE_BLOCK_BUCKETS];
    /** Version 3: SL2VL tables whose content differs: a switch's table of
     *  one input and one output port, or an end port's table, by node GUID
     *  and port. A side without tables counts as the default mapping (SL i
     *  to VL i, SL 15 to VL 15: ibr_result_sl2vl()); a switch's table that
     *  only one side has (new switch, other port count) counts as changed.
     *  When the saved routing had QoS, the database keeps the engine's maps
     *  from before the QoS manager, not the tables it programmed: with the
     *  same QoS configuration, those maps are compared (what the QoS
     *  manager changes on the ports whose cable changed is not counted);
     *  with another configuration or none, every switch table and every
     *  end port's counts. Set in every mode, ::IBR_REROUTE_UNCHANGED
     *  included (the caller's QoS configuration may differ). */
    uint64_t sl2vl_tables_changed;
    /** Version 3: blocks of the saved tables (by saved LID, on switches
     *  still in the fabric) that held an entry whose route crossed a lost
     *  switch-to-switch cable or a lost switch: following the saved tables
     *  from that switch toward the LID reaches a cable that is gone. Found
     *  by walking the saved tables backwards from the lost cables, in time
     *  proportional to the entries found times the switch degree (plus one
     *  look at each LID's entry on the switches that lost a cable); 0 when
     *  no cable or switch was lost. The repair of a single fault should
     *  change about these blocks: compare with @c lft_blocks_changed. */
    uint64_t lft_blocks_over_lost;
} ibr_reroute_report;

/** An empty report of the current version. */
#define IBR_REROUTE_REPORT_INIT                                                \
    { IBR_REROUTE_REPORT_VERSION, 0, {0}, 0, 0, 0, 0, 0, 0, 0, {0}, 0, {0}, 0, 0, {0}, 0, 0 }

/**
 * Initialise @p rep as ::IBR_REROUTE_REPORT_INIT for version @p version.
 * @return 0, ::IBR_EINVAL (NULL), ::IBR_EVERSION (unknown version; untouched).
 * Cannot allocate. Thread-safe. Time complexity: O(1).
 */
IBR_API int ibr_reroute_report_init(ibr_reroute_report *rep, unsigned int version);

/**
 * Make a database from a routed result and its topology (copied: the
 * database does not refer to them). Multicast groups and artefacts are not
 * kept.
 * @param[out] out receives the database (ibr_routing_db_destroy()).
 * @param r a routed result, only read.
 * @return 0, ::IBR_EINVAL (NULL argument, failed result), ::IBR_ENOMEM.
 * Thread-safe on a shared result. Time complexity: O(S x LIDs + ports +
 * S^2).
 */
IBR_API int ibr_routing_db_from_result(ibr_routing_db **out, const ibr_result *r);

/**
 * Write a database as text (format version ::IBR_ROUTING_DB_FORMAT).
 * @param out the caller's buffer, appended to (left as it was on failure).
 * @param db the database.
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer), ::IBR_ENOMEM.
 * Thread-safe, one buffer per thread. Time complexity: O(output).
 */
IBR_API int ibr_routing_db_write(ibr_buffer *out, const ibr_routing_db *db);

/**
 * Save a routed result with its fabric: ibr_routing_db_from_result() then
 * ibr_routing_db_write().
 * @param out the caller's buffer, appended to (left as it was on failure).
 * @param r a routed result, only read.
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Thread-safe, one buffer per
 *         thread. Time complexity: O(output).
 */
IBR_API int ibr_result_write_db(ibr_buffer *out, const ibr_result *r);

/**
 * Read a database written by ibr_routing_db_write().
 * @param[out] out receives the database; on ::IBR_EPARSE a failed database
 *        whose ibr_routing_db_last_error() names the line (destroy it
 *        too); NULL on ::IBR_EINVAL and ::IBR_ENOMEM.
 * @param ctx the allocator's context (NULL: the default context).
 * @param buf the text, borrowed for the call. @param len its length.
 * @return 0, ::IBR_EPARSE (not a database, other version, damaged,
 *         truncated, checksum mismatch, inconsistent record), ::IBR_EINVAL
 *         (NULL @p out, NULL @p buf with a non-zero @p len), ::IBR_ENOMEM.
 * Thread-safe. Time complexity: O(len).
 */
IBR_API int ibr_routing_db_parse(ibr_routing_db **out, ibr_context *ctx, const char *buf,
                                 size_t len);

/** Free a database; NULL is ignored. Cannot fail. Time complexity: O(1)
 *  frees. */
IBR_API void ibr_routing_db_destroy(ibr_routing_db *db);

/** Why ibr_routing_db_parse() refused the text ("" for a good database;
 *  "" for NULL). Borrowed from @p db. Time complexity: O(1). */
IBR_API const char *ibr_routing_db_last_error(const ibr_routing_db *db);

/** The engine that computed the saved routing ("" for NULL or a failed
 *  database). Borrowed. Time complexity: O(1). */
IBR_API const char *ibr_routing_db_engine(const ibr_routing_db *db);

/** The seed of the saved routing (0 for NULL). Time complexity: O(1). */
IBR_API uint64_t ibr_routing_db_seed(const ibr_routing_db *db);

/** Switches in the database (0 for NULL). Time complexity: O(1). */
IBR_API uint32_t ibr_routing_db_switch_count(const ibr_routing_db *db);

/**
 * The differences between a database and a topology, classified by
 * ::ibr_change_kind, in this order: switches (missing, then new),
 * switch-to-switch cables (missing, then new), end ports (missing, moved,
 * new), LID changes. A cable appears once (from the end with the lower
 * node GUID); cables of a missing or new switch are listed too.
 * @param dst caller's array receiving up to @p cap changes (may be NULL
 *        when @p cap is 0). @param cap its capacity.
 * @param[out] needed the number of differences (may be NULL).
 * @param db the database. @param t the topology.
 * @return 0, ::IBR_ERANGE (more than @p cap: nothing copied, @p needed
 *         set), ::IBR_EINVAL (NULL @p db or @p t, failed database, NULL
 *         @p dst with a non-zero @p cap), ::IBR_ENOMEM.
 * Thread-safe. Time complexity: O(nodes + ports) (hash lookups by GUID).
 */
IBR_API int ibr_routing_db_compare(ibr_change *dst, size_t cap, size_t *needed,
                                   const ibr_routing_db *db, const ibr_topo *t);

/**
 * The routing of topology @p t reusing the database: unchanged fabric, the
 * saved tables exactly; end-port changes only, the saved tables with their
 * columns moved to the new LIDs and a new (or moved) end port given the
 * column of another LID of its switch; lost cables or switches, an
 * incremental repair (see the file comment) that keeps the engine's
 * promise: minimal engines stay minimal (the repair uses the saved hop
 * rows, and one search per destination switch whose distances grew),
 * up/down and fat-tree engines repair at the same distance of their own
 * hop matrix or take the engine's new routes for the destinations
 * concerned only, engines with path SLs take the engine's new routes and
 * SLs for those destinations, and deadlock-free engines are checked for
 * credit loops through their SLs; otherwise (new switch, new cable for a
 * minimal engine, a credit loop, an engine no longer registered...) a
 * full reroute with the saved engine, settings and seed (plus @p o for
 * what the database does not keep: GUID lists, LMC cap, threads), and
 * @p rep says why.
 * The full reroute (and the engine run whose routes an incremental repair
 * takes) runs the saved engine alone: when it declines or fails the
 * changed fabric (lash or dfsssp short of VLs, updn or nue on a split
 * fabric, torus-2QoS after its seed switch died), the call fails with
 * ::IBR_EUNROUTABLE, because the fallback's tables would not keep the
 * saved engine's promises (credit-loop freedom, shortest paths). With
 * ::IBR_REROUTE_FALLBACK in @p flags, minhop routes instead, as in
 * ibr_route(); ibr_result_engine() and the report's @c engine and
 * @c fallback then name it.
 * When most of the fabric changed (the database is probably another
 * fabric's) the report's @c warning says so, and the context's log
 * callback receives it at ::IBR_LOG_WARN.
 * The result's attempts name the way: "reroute: incremental ..." for
 * the saved tables kept or repaired, the engines tried (as ibr_route()
 * lists them) for a full reroute.
 * @param[out] out receives the result (ibr_result_destroy()); on a failed
 *        full reroute the failed result of ibr_route(), whose attempts and
 *        ibr_result_last_error() say why.
 * @param rep receives what was done (may be NULL; its version is read).
 * @param db the database. @param t the topology, which must outlive the
 *        result. @param o options for a full reroute (NULL: defaults; its
 *        params are added after the saved settings).
 * @param flags 0, or ::IBR_REROUTE_FORCE_FULL and ::IBR_REROUTE_FALLBACK
 *        or-ed.
 * @return 0, the error of a failed full reroute (::IBR_EUNROUTABLE: the
 *         saved engine cannot route the changed fabric and the fallback
 *         was not allowed, or every engine failed), ::IBR_EINVAL (NULL
 *         @p out, @p db or @p t, failed database), ::IBR_EVERSION (unknown
 *         @p rep or @p o version: nothing done; @p o is read no further
 *         than its version has), ::IBR_ENOMEM.
 * Thread-safe on shared inputs. Time complexity: O(nodes + ports + S x
 * LIDs) to map the tables, plus O(P) per repaired entry and O(S + E + S x
 * L_d) per destination switch searched again; a full reroute costs the
 * engine's time. The report's churn costs O(S) after a repair with the
 * same LIDs (counted as entries are written), O(S x LIDs) otherwise;
 * @c lft_blocks_over_lost O(LIDs) per switch that lost a cable plus
 * O(P) per saved entry found routed over a lost cable.
 */
IBR_API int ibr_routing_db_route(ibr_result **out, ibr_reroute_report *rep,
                                 const ibr_routing_db *db, const ibr_topo *t,
                                 const ibr_options *o, unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif
