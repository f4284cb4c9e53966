/**
 * @file guidlist.h
 * @brief Parsers for OpenSM's GUID-list files (root_guid_file, cn_guid_file,
 *        io_guid_file, guid_routing_order_file, ids_guid_file and the
 *        ignore-guids / port_prof_ignore_file), in memory.
 *
 * Format, as OpenSM reads it: one entry per line; leading white space and
 * empty lines are skipped; `#` starts a comment line; the first token is a
 * number with C base detection (`0x` hexadecimal, a leading `0` octal,
 * otherwise decimal: write GUIDs with `0x`); it must be followed by white
 * space, `#` or the end of the line. Depending on the kind, a second number
 * follows: an id (ids files; absent means 0) or a port number (ignore
 * files, 1..254). Unlike OpenSM, which silently keeps what it read before a
 * bad line and stops, a bad line fails the whole parse and the message
 * names it.
 *
 * The arrays a list hands out have the layout ::ibr_options expects, so a
 * parsed list plugs straight into the options:
 * @code
 * ibr_guid_list *roots = NULL;
 * if (ibr_guid_list_parse(&roots, ctx, IBR_GUID_LIST_PLAIN, buf, len) < 0) ...
 * opts.root_guids = ibr_guid_list_guids(roots);
 * opts.n_root_guids = ibr_guid_list_count(roots);
 * @endcode
 */
#ifndef IBROUTE_GUIDLIST_H
#define IBROUTE_GUIDLIST_H

#include "common.h"
#include "context.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What follows the GUID on each line. */
typedef enum ibr_guid_list_kind {
    IBR_GUID_LIST_PLAIN = 0, /**< GUID only; the rest of the line is ignored
                                  (root, cn, io, guid_routing_order files) */
    IBR_GUID_LIST_ID = 1,    /**< GUID and an id (ids_guid_file) */
    IBR_GUID_LIST_PORT = 2   /**< switch GUID and a port 1..254 (ignore-guids file) */
} ibr_guid_list_kind;

/** A parsed GUID list. Opaque, immutable once parsed. */
typedef struct ibr_guid_list ibr_guid_list;

/**
 * Parse a GUID-list file held in memory.
 *
 * @param[out] out receives the list (owned by the caller, freed with
 *             ibr_guid_list_destroy()). On ::IBR_EPARSE it receives an
 *             empty list whose ibr_guid_list_last_error() names the line,
 *             as sqlite3_open() does; on other errors it is set to NULL.
 * @param ctx  context or NULL. @param kind what each line holds.
 * @param buf  the text (need not be NUL-terminated). @param len its size.
 * @return 0; ::IBR_EPARSE; ::IBR_EINVAL (NULL argument, unknown kind);
 *         ::IBR_ENOMEM.
 * Time complexity: O(len). Thread-safe (no shared state).
 */
IBR_API int ibr_guid_list_parse(ibr_guid_list **out, ibr_context *ctx, ibr_guid_list_kind kind,
                                const char *buf, size_t len);

/** Destroy a list. NULL is ignored. */
IBR_API void ibr_guid_list_destroy(ibr_guid_list *l);

/** Why the parse failed ("line 3: bad GUID 'xyz'"), or "". Borrowed. O(1). */
IBR_API const char *ibr_guid_list_last_error(const ibr_guid_list *l);

/** Number of entries. O(1). */
IBR_API size_t ibr_guid_list_count(const ibr_guid_list *l);

/** The GUIDs, in file order (duplicates kept), borrowed for the list's
 *  lifetime; NULL when empty. O(1). */
IBR_API const uint64_t *ibr_guid_list_guids(const ibr_guid_list *l);

/** The (GUID, id) pairs of an ::IBR_GUID_LIST_ID list, ready for
 *  ibr_options::ids; NULL for other kinds or when empty. Borrowed. O(1). */
IBR_API const ibr_guid_id *ibr_guid_list_ids(const ibr_guid_list *l);

/** The (GUID, port) pairs of an ::IBR_GUID_LIST_PORT list, ready for
 *  ibr_options::ignore_ports; NULL for other kinds or when empty.
 *  Borrowed. O(1). */
IBR_API const ibr_guid_port *ibr_guid_list_ports(const ibr_guid_list *l);

#ifdef __cplusplus
}
#endif

#endif
