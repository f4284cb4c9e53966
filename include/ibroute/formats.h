/**
 * @file formats.h
 * @brief Parsers and writers of topology and routing formats, in memory.
 *
 * Nothing here touches files: parsers read a buffer, writers append to an
 * ::ibr_buffer. Formats follow OpenSM 3.3 and infiniband-diags byte for byte
 * where those tools define them.
 *
 * Writers are named after what they write: ibr_topo_write_*() write a
 * topology, ibr_result_write_*() a routing (with the topology it was
 * computed on, ibr_result_topo()). They append to the buffer (several
 * writers may fill one buffer in turn) and grow it with the allocator of
 * the topology's context. A writer
 * that fails leaves the buffer as it was before the call. Writers and
 * ibr_result_parse_lfts() only read their topology and result, so any
 * number may run at once on shared inputs, each with its own buffer;
 * a buffer, like a fabric being parsed into, is used by one thread at a
 * time.
 */
#ifndef IBROUTE_FORMATS_H
#define IBROUTE_FORMATS_H

#include "common.h"
#include "fabric.h"
#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A growable text buffer filled by the writers. Initialise with
 * ::IBR_BUFFER_INIT; release with ibr_buffer_dispose(). @c data is always
 * NUL-terminated when non-NULL; @c size excludes the NUL.
 */
typedef struct ibr_buffer {
    char *data;       /**< the text, owned by the buffer; NULL when empty */
    size_t size;      /**< bytes of text, not counting the NUL */
    size_t capacity;  /**< bytes allocated at @c data */
    ibr_context *ctx; /**< allocator used; set by the first writer */
} ibr_buffer;

/** An empty buffer. */
#define IBR_BUFFER_INIT { NULL, 0, 0, NULL }

/**
 * Free a buffer's memory (with the allocator of the context it adopted)
 * and reset it to ::IBR_BUFFER_INIT, ready for reuse. The buffer struct
 * itself is the caller's. NULL is ignored. Cannot fail. Not thread-safe
 * on one buffer. Time complexity: O(1).
 */
IBR_API void ibr_buffer_dispose(ibr_buffer *buf);

/**
 * Parse ibnetdiscover output or an ibsim netfile into @p f, which must be
 * empty. GUIDs are taken from `switchguid=`/`caguid=`/`rtguid=` lines, then
 * from `S-`/`H-`/`R-<hex>` ids; other ids get ibsim-style GUIDs. LIDs in the
 * text are applied (switch `lid N`, CA port `lid N lmc M`); 0 means none.
 * Link width and speed come from the `4xQDR` style annotation when present.
 * A port line's `w=`, `s=` and `e=` options (as ibsim reads them) are the
 * port's enabled width and speed masks (::ibr_port_attr): a link printed
 * below what both its ends enable is throttled; `v=` (1..5, as
 * `ibnetdiscover -f` prints it) is the port's VLCap. Without them a port
 * has the defaults of ::ibr_port_attr.
 *
 * @param f   an empty fabric (from ibr_fabric_create()).
 * @param buf the text, borrowed for the call (need not be NUL-terminated;
 *            may be NULL when @p len is 0). @param len its length in bytes.
 * @return 0; ::IBR_EINVAL (NULL @p f, NULL @p buf with a non-zero @p len);
 *         ::IBR_ESTATE (@p f is not empty); ::IBR_EPARSE (malformed text,
 *         asymmetric or dangling link, port out of range, duplicate GUID or
 *         LID: the message names the line; a node record given twice, as
 *         in two concatenated dumps, is a duplicate GUID too — only the
 *         second printing of a chassis's switches under `ibnetdiscover -g`'s
 *         "# Chassis Switches" title, identical to the first, is dropped;
 *         or a text without a single node
 *         record — empty, junk, another format such as an LFT dump — whose
 *         message says what was expected); ::IBR_ENOMEM. On failure @p f is
 *         left empty and ibr_fabric_last_error() says why.
 * Nothing is returned that needs freeing: the nodes belong to @p f. Not
 * thread-safe on one fabric.
 * Time complexity: O(len + nodes log nodes).
 */
IBR_API int ibr_fabric_parse_ibnetdiscover(ibr_fabric *f, const char *buf, size_t len);

/**
 * Parse a link list into @p f, which must be empty: OpenSM's
 * opensm-subnet.lst or ibdiagnet's ibdiagnet2.lst (ibdiagnet.lst), one
 * line per cabled port,
 *
 *     { SW Ports:24 SystemGUID:<hex> NodeGUID:<hex> PortGUID:<hex> VenID:<hex>
 *       DevID:<hex> Rev:<hex> {<description>} LID:<hex> PN:<hex> }
 *     { CA Ports:02 ... PN:01 } PHY=4x LOG=ACT SPD=10
 *
 * (one line), as ibr_topo_write_subnet_lst() writes it. All numbers are
 * hexadecimal (Ports and PN too). Types are SW, CA and Rt, optionally with
 * "-SM"; a switch half gives the switch's port GUID and LID, a CA or router
 * half its port's; LMC is 0 (apply a guid2lid file for other ranges).
 * PHY (1x, 2x, 4x, 8x, 12x, ??) and SPD (2.5, 5, 10, FDR10, 14, 25, 50,
 * 100, 200, ??; SDR when missing) give the link's width and speed; LOG
 * ACT, INI and ARM give an active link (the subnet manager routes over
 * links it has not armed yet), DWN a down one. Each link may appear once
 * or from both ends (as both writers print it); the two lines must agree.
 * VenID, DevID and Rev are checked for syntax only. Port GUIDs may be
 * any the text gives, node GUIDs among them (ConnectX-4 style CAs); a port
 * the text shows no link of has no GUID there and gets an unused one.
 *
 * @param f   an empty fabric. @param buf the text, borrowed for the call
 *            (need not be NUL-terminated; may be NULL when @p len is 0).
 *            @param len its length in bytes.
 * @return 0; ::IBR_EINVAL (NULL @p f, NULL @p buf with a non-zero @p len);
 *         ::IBR_ESTATE (@p f is not empty); ::IBR_EPARSE (malformed line,
 *         a node printed with two types or port counts, a port cabled to
 *         two peers, a LID given twice, a text without a link line: the
 *         message names the line and ends in a code [LSnnn],
 *         doc/messages.md); ::IBR_ENOMEM. On failure @p f is left empty and
 *         ibr_fabric_last_error() says why.
 * Nothing is returned that needs freeing. Not thread-safe on one fabric.
 * Time complexity: O(len + links log nodes).
 */
IBR_API int ibr_fabric_parse_subnet_lst(ibr_fabric *f, const char *buf, size_t len);

/**
 * Parse ibdiagnet's database file (ibdiagnet2.db_csv) into @p f, which must
 * be empty. The file is CSV tables framed by `START_<NAME>` and
 * `END_<NAME>` lines, each with a header line naming its columns. Read
 * are NODES (NodeDesc, NumPorts, NodeType 1 CA / 2 switch / 3 router,
 * NodeGUID; optionally SystemImageGUID and PortGUID of LocalPortNum),
 * PORTS (NodeGuid, PortNum; optionally PortGuid, LID, LMC) and LINKS
 * (NodeGuid1, PortNum1, NodeGuid2, PortNum2), in that order; columns are
 * found by name (case-insensitively), other columns and tables are
 * skipped, and `#` lines outside tables are comments. GUIDs are `0x` hex,
 * other numbers decimal or `0x` hex; quoted fields may hold commas. A
 * switch's port GUID and LID (port 0) may come on any of its PORTS rows.
 * Cables read as active 4x QDR links. A port the text gives no GUID for
 * gets an unused one.
 *
 * @param f   an empty fabric. @param buf the text, borrowed for the call
 *            (need not be NUL-terminated; may be NULL when @p len is 0).
 *            @param len its length in bytes.
 * @return 0; ::IBR_EINVAL (NULL @p f, NULL @p buf with a non-zero @p len);
 *         ::IBR_ESTATE (@p f is not empty); ::IBR_EPARSE (malformed
 *         table or row, a missing column, a node twice, a port or cable of
 *         a node no earlier NODES row gives, a port cabled to two peers,
 *         two LIDs for one port, no NODES table: the message names the
 *         line and ends in a code [DCnnn], doc/messages.md); ::IBR_ENOMEM.
 *         On failure @p f is left empty and ibr_fabric_last_error() says why.
 * Nothing is returned that needs freeing. Not thread-safe on one fabric.
 * Time complexity: O(len + links log nodes).
 */
IBR_API int ibr_fabric_parse_db_csv(ibr_fabric *f, const char *buf, size_t len);

/**
 * Apply LIDs from an OpenSM guid2lid file (lines `0x<port guid> <min lid>
 * <max lid>`; `#` comments). The LMC of each port is derived from the range.
 * All LIDs are checked before any is applied; ports not listed keep their
 * LIDs.
 * @param f   the fabric whose ports are named by GUID.
 * @param buf the text, borrowed for the call (may be NULL when @p len is
 *            0). @param len its length in bytes.
 * @return 0; ::IBR_EINVAL (NULL @p f, NULL @p buf with a non-zero @p len);
 *         ::IBR_EPARSE (bad line, unknown GUID, misaligned range: the
 *         message names the line); ::IBR_EEXIST (LID conflict); ::IBR_ENOMEM.
 *         On failure no LID changes and ibr_fabric_last_error() says why.
 * Nothing is returned that needs freeing. Not thread-safe on one fabric.
 * Time complexity: O(len + ports + entries log entries).
 */
IBR_API int ibr_fabric_parse_guid2lid(ibr_fabric *f, const char *buf, size_t len);

/**
 * Write the topology as ibnetdiscover text (readable by ibsim and by
 * ibr_fabric_parse_ibnetdiscover()): switches, then CAs, then routers.
 * A port whose VLCap is not the default 8 gets `v=`, one enabling more
 * widths or speeds than its link runs at gets `w=`/`s=`/`e=` masks (FDR10
 * and XDR have no bit there), so they read back; an OperVLs set apart
 * from the VLCaps has no place in the format and reads back derived.
 * @param out the caller's buffer, appended to (free it with
 *            ibr_buffer_dispose()). @param t the topology, only read.
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer),
 *         ::IBR_ENOMEM.
 *         Thread-safe on shared inputs, one buffer per thread.
 *         Time complexity: O(nodes + ports + output).
 */
IBR_API int ibr_topo_write_ibnetdiscover(ibr_buffer *out, const ibr_topo *t);

/**
 * Write OpenSM's guid2lid file for every port with a LID (switch port 0,
 * CA and router ports), in node index order.
 * @param out the caller's buffer, appended to. @param t the topology.
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer),
 *         ::IBR_ENOMEM.
 *         Thread-safe on shared inputs, one buffer per thread.
 *         Time complexity: O(nodes + ports).
 */
IBR_API int ibr_topo_write_guid2lid(ibr_buffer *out, const ibr_topo *t);

/**
 * Write OpenSM's opensm-lfts.dump for a routed result: one block per
 * switch in switch index order, one line per routed LID.
 * @param out the caller's buffer, appended to.
 * @param r a routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer, failed
 *         result), ::IBR_ENOMEM.
 * Thread-safe on shared inputs, one buffer per thread.
 * Time complexity: O(S x LIDs + output).
 */
IBR_API int ibr_result_write_lfts_dump(ibr_buffer *out, const ibr_result *r);

/**
 * Write OpenSM's opensm-lid-matrix.dump: per switch ("Switch: guid
 * 0x<GUID>"), one row per switch LID it reaches, "0x<LID>: <hops via port
 * 0> <via port 1> ... # portguid 0x<GUID>", two hex digits per port, "ff"
 * for ports that do not lead to a switch; port 0 holds the least value (0
 * for the switch's own LID). The values are one more than the neighbour's
 * distance in the result's hop matrix (shortest paths when it has none).
 * The `file` engine reads it back (file.lid_matrix).
 * @param out the caller's buffer, appended to.
 * @param r a routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer, failed
 *         result), ::IBR_ENOMEM.
 * Thread-safe on shared inputs, one buffer per thread.
 * Time complexity: O(S x S x P + output), plus O(S x (S + E)) without a
 * hop matrix.
 */
IBR_API int ibr_result_write_lid_matrix(ibr_buffer *out, const ibr_result *r);

/**
 * Write LFTs in the infiniband-diags dump_lfts / ibroute format: one block
 * per switch, as `ibroute <switch LID>` prints it.
 * @param out the caller's buffer, appended to.
 * @param r a routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer, failed
 *         result), ::IBR_ENOMEM.
 * Thread-safe on shared inputs, one buffer per thread.
 * Time complexity: O(S x LIDs + output).
 */
IBR_API int ibr_result_write_dump_lfts(ibr_buffer *out, const ibr_result *r);

/**
 * Write OpenSM's opensm-subnet.lst (read by ibdmchk -s and
 * ibr_fabric_parse_subnet_lst(); ibdiagnet's ibdiagnet2.lst has the same
 * grammar): one line per cabled port with an active link, so each link
 * appears twice.
 * @param out the caller's buffer, appended to. @param t the topology.
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer),
 *         ::IBR_ENOMEM.
 *         Thread-safe on shared inputs, one buffer per thread.
 *         Time complexity: O(nodes + ports).
 */
IBR_API int ibr_topo_write_subnet_lst(ibr_buffer *out, const ibr_topo *t);

/**
 * Write ibdiagnet's database file, ibdiagnet2.db_csv (read by
 * ibr_fabric_parse_db_csv()): its NODES table (descriptions, types, port
 * counts, node, system image and port GUIDs), PORTS table (every port with
 * its GUID, LID, LMC and state) and LINKS table (each active cable once).
 * Reading it back gives the same nodes, GUIDs, LIDs and active cables;
 * link widths and speeds are not in these tables.
 * @param out the caller's buffer, appended to. @param t the topology.
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer),
 *         ::IBR_ENOMEM.
 *         Thread-safe on shared inputs, one buffer per thread.
 *         Time complexity: O(nodes + ports).
 */
IBR_API int ibr_topo_write_db_csv(ibr_buffer *out, const ibr_topo *t);

/**
 * Write OpenSM's opensm.fdbs (read by ibdmchk -f). Hop counts come from the
 * result's hop matrix when it has one, else from shortest paths.
 * @param out the caller's buffer, appended to.
 * @param r a routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer, failed
 *         result), ::IBR_ENOMEM.
 * Thread-safe on shared inputs, one buffer per thread.
 * Time complexity: O(S x LIDs x P) for P ports per switch, plus
 * O(S x (S + E)) without a hop matrix.
 */
IBR_API int ibr_result_write_fdbs(ibr_buffer *out, const ibr_result *r);

/** The per-switch dumps: text made of one block per switch, in switch
 *  index order (see ibr_result_write_switches()). */
typedef enum ibr_switch_dump {
    IBR_SWITCH_DUMP_LFTS = 0,      /**< opensm-lfts.dump (ibr_result_write_lfts_dump()) */
    IBR_SWITCH_DUMP_IBROUTE = 1,   /**< dump_lfts / ibroute (ibr_result_write_dump_lfts()) */
    IBR_SWITCH_DUMP_FDBS = 2,      /**< opensm.fdbs (ibr_result_write_fdbs()) */
    IBR_SWITCH_DUMP_LID_MATRIX = 3, /**< opensm-lid-matrix.dump (ibr_result_write_lid_matrix()) */
    /** ibdiagnet's ibdiagnet2.fdbs: per switch "osm_ucast_mgr_dump_ucast_routes:
     *  Switch 0x<GUID>", the "LID    : Port : Hops : Optimal" title, one line
     *  per LID 1..max LID ("0x<lid> : <port, 3 digits>  : 00   : yes", or
     *  "0x<lid> : UNREACHABLE"; ibdiagnet reads no hop tables and prints
     *  these constants) and a blank line. ibr_result_parse_lfts() reads it. */
    IBR_SWITCH_DUMP_IBDIAGNET_FDBS = 4
} ibr_switch_dump;

/**
 * Write the blocks of switches @p first .. @p first + @p count - 1 of a
 * per-switch dump. The whole-dump writers (ibr_result_write_lfts_dump(),
 * ibr_result_write_dump_lfts(), ibr_result_write_fdbs(),
 * ibr_result_write_lid_matrix()) equal this call over all switches, and
 * the parts of consecutive ranges, appended one after the other, equal
 * the whole dump byte for byte: a caller can write a large dump in slices
 * of bounded memory (`ibr route -o` writes 64 MB at a time).
 *
 * The blocks are formatted in parallel by as many workers as the routing
 * used (ibr_result_threads(); one for a result read from text), so the
 * context's allocator must be thread-safe when that is more than one,
 * as it must be for the routing itself.
 * @param out the caller's buffer, appended to (left as it was on failure).
 * @param r a routed result, only read (its topology too).
 * @param format which dump.
 * @param first first switch index. @param count number of switches (0
 *        writes nothing).
 * @return 0, ::IBR_EINVAL (NULL argument, inconsistent buffer, failed
 *         result, unknown @p format, a range beyond the switch count),
 *         ::IBR_ENOMEM.
 * Thread-safe on shared inputs, one buffer per thread.
 * Time complexity: that of the whole-dump writer for @p count switches,
 * plus O(LIDs) (LFT formats) or O(S x (S + E)) (fdbs, lid matrix, when the
 * result has no hop matrix) per call.
 */
IBR_API int ibr_result_write_switches(ibr_buffer *out, const ibr_result *r,
                                      ibr_switch_dump format, uint32_t first, uint32_t count);

/**
 * Write the path SL of every (source end port, destination end-port LID)
 * pair, one line each: `0x<source node GUID> <dlid> <sl>` (decimal LID and
 * SL), the "CAxCA->SL" file ibdmchk reads with `-c`. The file has N x L
 * lines: meant for fabrics of moderate size.
 * @param out buffer to append to (see ::ibr_buffer; left as it was on
 *        failure). @param r routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Time complexity: O(N·L).
 * Thread rules: @p r and its topology are only read. The text belongs to the
 * caller's buffer (free it with ibr_buffer_dispose()).
 */
IBR_API int ibr_result_write_path_sl(ibr_buffer *out, const ibr_result *r);

/**
 * ibr_result_write_path_sl() for QoS level @p level: the SLs are
 * ibr_result_path_sl_level(r, level, ...), so that ibdmchk `-c` with the
 * result's SL2VL file (`-d`, ibr_result_write_sl2vl()) checks that level's
 * traffic. Level 0 writes what ibr_result_write_path_sl() writes.
 * @param out buffer to append to (left as it was on failure).
 * @param r routed result, only read. @param level 0 ..
 *        ibr_result_qos_levels(r) - 1.
 * @return 0, ::IBR_EINVAL (NULL argument, failed result), ::IBR_ERANGE
 *         (no such level), ::IBR_ENOMEM. Time complexity: O(N·L).
 * Thread rules: as ibr_result_write_path_sl().
 */
IBR_API int ibr_result_write_path_sl_level(ibr_buffer *out, const ibr_result *r,
                                           unsigned int level);

/**
 * Write the SL-to-VL map of every (switch, in port, out port) of cabled
 * ports, one line each: `0x<switch GUID> <in> <out> 0x<vl0><vl1> ...
 * 0x<vl14><vl15>` (8 bytes of two nibbles), the format ibdmchk reads with
 * `-d` and ibdiagnet writes. Results without SL2VL tables give the
 * identity map.
 * @param out buffer (left as it was on failure).
 * @param r routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Time complexity: O(S·P^2).
 * Thread rules: @p r and its topology are only read. The text belongs to the
 * caller's buffer (free it with ibr_buffer_dispose()).
 */
IBR_API int ibr_result_write_sl2vl(ibr_buffer *out, const ibr_result *r);

/**
 * Write OpenSM's opensm-sl2vl.dump: per port in port-table order (a
 * switch once, through port 0), a block of `in out : vl...` lines.
 * @param out buffer (left as it was on failure).
 * @param r routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Time complexity: O(S·P^2 + ports).
 * Thread rules: @p r and its topology are only read. The text belongs to the
 * caller's buffer (free it with ibr_buffer_dispose()).
 */
IBR_API int ibr_result_write_sl2vl_dump(ibr_buffer *out, const ibr_result *r);

/**
 * Write OpenSM's opensm.mcfdbs: for every switch with multicast entries, in
 * OpenSM's switch-table order (ascending byte-reversed node GUID), a block
 * (a blank line, "Switch 0x<GUID>", "LID    : Out Port(s)") listing each
 * MLID with entries in ascending order as "0x<MLID> :" followed by
 * " 0x<port, 3 hex digits> " per port. A result without multicast
 * groups gives an empty text (ibdmchk needs the file anyway).
 * @param out buffer (left as it was on failure).
 * @param r routed result, only read (its topology too).
 * @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. Time complexity: O(S·G·256) for
 *         G groups. Thread rules: @p r and its topology are only read.
 *         The text belongs to the caller's buffer (ibr_buffer_dispose()).
 */
IBR_API int ibr_result_write_mcfdbs(ibr_buffer *out, const ibr_result *r);

/**
 * Read LFTs from opensm-lfts.dump, ibroute or dump_lfts output into a new
 * result for topology @p t (engine name "file"). Switches are matched by
 * GUID; switches absent from the text get empty LFTs.
 *
 * fdbs dumps read too, told apart by their block headers: OpenSM's
 * opensm.fdbs ("dump_ucast_routes: Switch 0x<GUID>", then "0x<LID> :
 * <port> : <hops> : ..." or "0x<LID> : UNREACHABLE" per LID) and
 * ibdiagnet's ibdiagnet2.fdbs (the same with "osm_ucast_mgr_" before the
 * switch line). Hop counts are not read. Of ibdiagnet's private LFTs
 * ("PLFT_NUM: <n>" lines, adaptive routing) only table 0, the LFT, is
 * kept; the others are checked for syntax and dropped.
 *
 * LIDs are remapped as OpenSM's file engine does: an entry whose line names
 * its destination ("... portguid 0x<GUID>", as opensm-lfts.dump writes)
 * and whose LID lies outside that port's LID range in @p t is moved to the
 * port's range (base LID + (LID mod 2^LMC)). Entries without a port GUID
 * keep their LID, which must then exist in @p t: give the topology the
 * LIDs the tables were computed for (ibr_fabric_parse_guid2lid() with
 * OpenSM's guid2lid file, or ibr_fabric_assign_lids() with the same LMC).
 * @param[out] out receives a result owned by the caller (free it with
 *             ibr_result_destroy()); on ::IBR_EPARSE it is a failed result
 *             whose ibr_result_last_error() names the line; NULL on
 *             ::IBR_EINVAL and ::IBR_ENOMEM.
 * @param t    the topology; borrowed: it must outlive the result.
 * @param buf  the text, borrowed for the call (may be NULL when @p len is
 *             0). @param len its length in bytes.
 * @return 0, ::IBR_EPARSE (bad line, unknown switch GUID, switch listed
 *         twice, port beyond the switch, LID beyond the topology; or, for
 *         a topology with switches, a text without a single "Unicast lids"
 *         or fdbs block — empty, junk, a topology — whose message says what it
 *         holds), ::IBR_EINVAL (NULL @p out or
 *         @p t, NULL @p buf with a non-zero @p len), ::IBR_ENOMEM.
 * Thread-safe on a shared topology.
 * Time complexity: O(len + switches log switches).
 */
IBR_API int ibr_result_parse_lfts(ibr_result **out, const ibr_topo *t, const char *buf,
                                  size_t len);

/** A forwarding-table dump read in pieces (ibr_lfts_stream_new()). */
typedef struct ibr_lfts_stream ibr_lfts_stream;

/**
 * Start reading a dump in pieces: the texts ibr_result_parse_lfts() reads,
 * fed in order with ibr_lfts_stream_feed() and ended with
 * ibr_lfts_stream_finish(), which gives the same result, or the same
 * error on the same line, as ibr_result_parse_lfts() on the whole text.
 * For dumps larger than the memory one wants to hold: a table that fills
 * the unicast LID space is about 10 GB of opensm-lfts.dump text, while the
 * stream holds only the tables (switches x (max LID + 1) bytes) and the
 * line a piece leaves unfinished.
 * @param[out] out receives the stream (ibr_lfts_stream_destroy()); NULL
 *             on failure.
 * @param t the topology; borrowed: it must outlive the stream and the
 *          result.
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM.
 * Thread rules: one thread at a time per stream; @p t is only read.
 * Time complexity: O(switches) here, O(S x LIDs) memory for the tables.
 */
IBR_API int ibr_lfts_stream_new(ibr_lfts_stream **out, const ibr_topo *t);

/**
 * Read the next piece of the text. Pieces may split the text anywhere,
 * inside a line too: a line is read when the piece that ends it arrives.
 * @param s the stream. @param buf the piece, borrowed for the call (may
 *        be NULL when @p len is 0). @param len its length in bytes.
 * @return 0, ::IBR_EPARSE (the text so far is wrong:
 *         ibr_lfts_stream_last_error() names the line; the stream reads
 *         nothing more and ibr_lfts_stream_finish() gives the failed
 *         result), ::IBR_EINVAL (NULL @p s, NULL @p buf with a non-zero
 *         @p len, a stream already finished), ::IBR_ENOMEM. After a
 *         failure every later piece returns the same code.
 * Time complexity: O(len), plus O(length of the line) for a line split
 * between pieces.
 */
IBR_API int ibr_lfts_stream_feed(ibr_lfts_stream *s, const char *buf, size_t len);

/**
 * End the text (a last line without '\n' is read now) and hand over the
 * result, as ibr_result_parse_lfts() would give it for the whole text.
 * The stream is spent: only ibr_lfts_stream_destroy() may follow.
 * @param s the stream.
 * @param[out] out receives a result owned by the caller
 *             (ibr_result_destroy()); on ::IBR_EPARSE a failed result
 *             whose ibr_result_last_error() names the line; NULL on
 *             ::IBR_EINVAL and ::IBR_ENOMEM.
 * @return 0, ::IBR_EPARSE, ::IBR_EINVAL (NULL argument, a stream already
 *         finished), ::IBR_ENOMEM.
 */
IBR_API int ibr_lfts_stream_finish(ibr_lfts_stream *s, ibr_result **out);

/** The message of the stream's failure ("line N: ..."), "" when none;
 *  borrowed from the stream. */
IBR_API const char *ibr_lfts_stream_last_error(const ibr_lfts_stream *s);

/** Free a stream (and its result, unless ibr_lfts_stream_finish() handed
 *  it over). NULL is allowed. */
IBR_API void ibr_lfts_stream_destroy(ibr_lfts_stream *s);

/**
 * Read SL2VL tables into a result: ibdiagnet's .sl2vl file (ibdiagnet2.sl2vl),
 * which is also what ibr_result_write_sl2vl() writes and ibdmchk reads
 * with `-d`: one line per (node, in port, out port),
 *
 *     0x<node GUID> <in port> <out port> 0x<vl0><vl1> 0x<vl2><vl3> ... 0x<vl14><vl15>
 *
 * (ports decimal; eight bytes of two hex nibbles, the VLs of SLs 2k and
 * 2k + 1). Switch lines set the maps the result's VL queries use
 * (ibr_result_sl2vl(), verification's credit-loop check, analysis's VL
 * usage); lines of CA and router ports are checked and passed over. Maps
 * not listed keep what the result had (the identity when it had none).
 * Meant for a result read from text (ibr_result_parse_lfts()), whose
 * paths then take the VLs the fabric's tables give their SL.
 * @param r the result, changed on success only (not thread-safe on it).
 * @param buf the text (need not be NUL-terminated; may be NULL when
 *        @p len is 0). @param len its length in bytes.
 * @return 0; ::IBR_EINVAL (NULL @p r, a failed result, NULL @p buf with a
 *         non-zero @p len); ::IBR_EPARSE (bad line, unknown GUID, port
 *         beyond its node, a text without an SL2VL line: the message,
 *         ibr_result_last_error(), names the line and ends in a code
 *         [SVnnn], doc/messages.md); ::IBR_ENOMEM. On failure the result's
 *         tables are unchanged.
 * Time complexity: O(len + S·P^2) for S switches of P ports.
 */
IBR_API int ibr_result_parse_sl2vl(ibr_result *r, const char *buf, size_t len);

/**
 * Read path SLs into a result: the file ibdmchk reads with `-c`, which
 * ibr_result_write_path_sl() writes: one line per (source node,
 * destination LID), `0x<source node GUID> <LID> <SL>` (LID and SL
 * decimal). As ibdmchk reads it, a line is keyed by node and gives the SL
 * of the paths from every port of that node. Pairs not listed keep the
 * result's SL (0 when it has none). With ibr_result_parse_sl2vl(), a
 * routing read from text takes the VLs its fabric gives each path.
 * @param r the result, changed on success only (not thread-safe on it);
 *        its SLs become per (source, destination) pair.
 * @param buf the text (need not be NUL-terminated; may be NULL when
 *        @p len is 0). @param len its length in bytes.
 * @return 0; ::IBR_EINVAL (NULL @p r, a failed result, NULL @p buf with a
 *         non-zero @p len); ::IBR_EPARSE (bad line, unknown GUID, LID
 *         outside the topology, SL above 15, a text without a line: the
 *         message, ibr_result_last_error(), names the line and ends in a
 *         code [PSnnn]); ::IBR_ENOMEM. On failure the result is unchanged.
 * Time complexity: O(len + (N + S) x LIDs).
 */
IBR_API int ibr_result_parse_path_sl(ibr_result *r, const char *buf, size_t len);

/**
 * Parse a groups file held in memory (the syntax of `ibr route --groups`,
 * doc/guide.md "Multicast"): one statement per line, `#` starts a comment.
 *
 *     group 0xC000 [mgid ff12:401b:ffff::1]
 *     member <node GUID> <port> [full|non|sendonly|sendonly-full|<join bits>]...
 *
 * A `member` line adds a port to the group of the last `group` line (join
 * state full when none is given; several words OR together). Repeating a
 * `group` line with the same MLID and MGID continues that group.
 *
 * @param[out] out receives the set; on ::IBR_EPARSE (and on the errors of
 *             ibr_mcast_groups_add_member() a line causes, reported as
 *             ::IBR_EPARSE) an empty set whose ibr_mcast_groups_last_error()
 *             names the line ("line 7: unknown GUID 0x..."); NULL on other
 *             errors.
 * @param t the topology the members are looked up in (borrowed; it must
 *        outlive the set). @param buf the text (need not be
 *        NUL-terminated). @param len its size.
 * @return 0, ::IBR_EPARSE, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM.
 * Thread-safe. Time complexity: O(len + members · log nodes).
 */
IBR_API int ibr_mcast_groups_parse(ibr_mcast_groups **out, const ibr_topo *t,
                                   const char *buf, size_t len);

/**
 * Parse OpenSM's SA database dump held in memory (opensm-sa.dump, written
 * with `sa_db_dump TRUE` and read back through `sa_db_file`): its multicast
 * group records
 *
 *     MC Group 0xC001 : mgid=0xff12601bffff0000:0x0000000000000001 ... scope_state=0x21 proxy_join=0x0
 *     mcm_port: port_gid=0xfe80000000000000:0x0002c90301000001 scope_state=0x21 proxy_join=0x0
 *
 * so that a real subnet's groups can be replayed. Fields are found as
 * OpenSM's loader finds them (by name, in order; hex values); the group's
 * MLID is the number after "MC Group", a member's port is the port whose
 * port GUID is the interface id of its port_gid, its join state the low
 * four bits of scope_state. As OpenSM's restore does: members whose port
 * the topology does not have (or not active) are skipped, a port listed
 * twice counts once, a group with no full member is dropped unless the
 * record says "(well known)", a second MGID on an MLID already taken is
 * dropped, and other records (Service, InformInfo, GUIDInfo) and unknown
 * lines are passed over. Alias GUIDs are not resolved.
 *
 * @param[out] out receives the set; on ::IBR_EPARSE (a group or member
 *             record missing a field or with a bad value, an MLID outside
 *             0xC000-0xFFFE, a join state of 0) an empty set whose
 *             ibr_mcast_groups_last_error() names the line ("line 3: ...");
 *             NULL on other errors.
 * @param t the topology (borrowed; it must outlive the set). @param buf the
 *        text (need not be NUL-terminated). @param len its size.
 * @return 0, ::IBR_EPARSE, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM.
 * Thread-safe. Time complexity: O(len · groups + members · log ports).
 */
IBR_API int ibr_mcast_groups_parse_sa_dump(ibr_mcast_groups **out, const ibr_topo *t,
                                           const char *buf, size_t len);

/**
 * Write the set in the syntax ibr_mcast_groups_parse() reads, appended to
 * @p out: groups in creation order, each member with its join state.
 * @return 0, ::IBR_EINVAL (NULL argument), ::IBR_ENOMEM (buffer left as
 *         it was). Thread-safe on a shared set. Time complexity:
 *         O(output).
 */
IBR_API int ibr_mcast_groups_write(ibr_buffer *out, const ibr_mcast_groups *g);

#ifdef __cplusplus
}
#endif

#endif
