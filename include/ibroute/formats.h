/**
 * @file formats.h
 * @brief Parsers and writers of topology and routing formats, in memory.
 *
 * Nothing here touches files: parsers read a buffer, writers append to an
 * ::ibr_buffer. Formats follow OpenSM 3.3 and infiniband-diags byte for byte
 * where those tools define them.
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
    char *data;
    size_t size;
    size_t capacity;
    ibr_context *ctx; /**< allocator used; set by the first writer */
} ibr_buffer;

/** An empty buffer. */
#define IBR_BUFFER_INIT { NULL, 0, 0, NULL }

/** Free a buffer's memory and reset it to empty. NULL is ignored. */
IBR_API void ibr_buffer_dispose(ibr_buffer *buf);

/**
 * Parse ibnetdiscover output or an ibsim netfile into @p f, which must be
 * empty. GUIDs are taken from `switchguid=`/`caguid=`/`rtguid=` lines, then
 * from `S-`/`H-`/`R-<hex>` ids; other ids get ibsim-style GUIDs. LIDs in the
 * text are applied (switch `lid N`, CA port `lid N lmc M`); 0 means none.
 * Link width and speed come from the `4xQDR` style annotation when present.
 *
 * @return 0; ::IBR_ESTATE (@p f is not empty); ::IBR_EPARSE (malformed text,
 *         asymmetric or dangling link, port out of range, duplicate GUID or
 *         LID: the message names the line); ::IBR_ENOMEM. On failure @p f is
 *         left empty and ibr_fabric_last_error() says why.
 * Time complexity: O(len + nodes log nodes).
 */
IBR_API int ibr_fabric_parse_ibnetdiscover(ibr_fabric *f, const char *buf, size_t len);

/**
 * Apply LIDs from an OpenSM guid2lid file (lines `0x<port guid> <min lid>
 * <max lid>`; `#` comments). The LMC of each port is derived from the range.
 * All LIDs are checked before any is applied.
 * @return 0; ::IBR_EPARSE (bad line, unknown GUID, misaligned range: the
 *         message names the line); ::IBR_EEXIST (LID conflict); ::IBR_ENOMEM.
 */
IBR_API int ibr_fabric_parse_guid2lid(ibr_fabric *f, const char *buf, size_t len);

/** Write the topology as ibnetdiscover text (readable by ibsim and by
 *  ibr_fabric_parse_ibnetdiscover()). @return 0, ::IBR_EINVAL, ::IBR_ENOMEM. */
IBR_API int ibr_write_ibnetdiscover(ibr_buffer *out, const ibr_topo *t);

/** Write OpenSM's guid2lid file for every port with a LID. */
IBR_API int ibr_write_guid2lid(ibr_buffer *out, const ibr_topo *t);

/** Write OpenSM's opensm-lfts.dump for a routed result. */
IBR_API int ibr_write_lfts_dump(ibr_buffer *out, const ibr_topo *t, const ibr_result *r);

/** Write LFTs in the infiniband-diags dump_lfts / ibroute format. */
IBR_API int ibr_write_dump_lfts(ibr_buffer *out, const ibr_topo *t, const ibr_result *r);

/** Write OpenSM's opensm-subnet.lst (read by ibdmchk -s). */
IBR_API int ibr_write_subnet_lst(ibr_buffer *out, const ibr_topo *t);

/** Write OpenSM's opensm.fdbs (read by ibdmchk -f). Hop counts come from the
 *  result's hop matrix when it has one, else from shortest paths. */
IBR_API int ibr_write_fdbs(ibr_buffer *out, const ibr_topo *t, const ibr_result *r);

/**
 * Read LFTs from opensm-lfts.dump, ibroute or dump_lfts output into a new
 * result for topology @p t (engine name "file"). Switches are matched by
 * GUID; switches absent from the text get empty LFTs.
 * @param[out] out receives a result; on ::IBR_EPARSE it is a failed result
 *             whose ibr_result_last_error() names the line.
 * @return 0, ::IBR_EPARSE (bad line, unknown switch GUID, port beyond the
 *         switch, LID beyond the topology), ::IBR_EINVAL, ::IBR_ENOMEM.
 * Time complexity: O(len + switches log switches).
 */
IBR_API int ibr_result_parse_lfts(ibr_result **out, const ibr_topo *t, const char *buf,
                                  size_t len);

#ifdef __cplusplus
}
#endif

#endif
