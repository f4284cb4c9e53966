/*
 * The table dump readers. The LFT dump reader (lfts_read.c) that both
 * ibr_result_parse_lfts() and the file engine (engines/file.c) use, so that the two accept and refuse
 * the same texts: opensm-lfts.dump, ibroute and dump_lfts / dump_fts
 * output, and, when asked (fdbs), the fdbs dumps of OpenSM (opensm.fdbs)
 * and ibdiagnet (ibdiagnet2.fdbs). Engines may include this header (tests/check_layers.py): it
 * needs only the public topology type and core/base.h.
 *
 * Blocks start at "Unicast lids ... guid 0x<GUID> ..." lines; at each block
 * of a switch of the topology the reader asks table() for that switch's
 * LFT (max_lid + 1 bytes), clears it to IBR_NO_ROUTE and writes the
 * block's entries into it. A text for a topology with switches must hold
 * at least one block.
 */
#ifndef IBROUTE_FORMATS_LFTS_READER_H
#define IBROUTE_FORMATS_LFTS_READER_H

#include "core/base.h"
#include "ibroute/topo.h"

typedef struct ibr__lfts_reader {
    const ibr_topo *t;
    /* OpenSM's file engine: a block whose GUID is not a switch of t is
       skipped with its entries (checked for syntax only); otherwise such a
       block is an error. */
    int skip_unknown;
    /* Also read fdbs dumps: blocks starting "[osm_ucast_mgr_]dump_ucast_routes:
       Switch 0x<GUID>", entries "0x<LID> : <port> ..." or "0x<LID> :
       UNREACHABLE". ibr_result_parse_lfts() sets it; OpenSM's file engine,
       which does not read them, does not. */
    int fdbs;
    uint8_t *(*table)(void *arg, uint32_t sw);
    void *arg;
    char msg[IBR_ERRMSG_SIZE]; /* "line N: ..." (or no prefix) on failure */
    struct ibr__lfts_state *st; /* the reading so far: lfts_read.c's own */
} ibr__lfts_reader;

/* Read buf[0..len) (buf may be NULL when len is 0): 0, IBR_EPARSE (rd->msg
   says why and where) or IBR_ENOMEM. */
int ibr__lfts_read(ibr__lfts_reader *rd, const char *buf, size_t len);

/* The same reading in pieces, for texts too large to hold: begin, then the
   text in order as whole lines (every piece but the last ends in '\n'),
   then end, which runs the checks that need the whole text (finish != 0)
   and frees the reading's state either way. Each returns 0, IBR_EPARSE
   (rd->msg) or IBR_ENOMEM; after a failure only end may follow. */
int ibr__lfts_begin(ibr__lfts_reader *rd);
int ibr__lfts_lines(ibr__lfts_reader *rd, const char *buf, size_t len);
int ibr__lfts_end(ibr__lfts_reader *rd, int finish);

/* The lid matrix reader (lid_matrix_read.c) of the file engine:
   opensm-lid-matrix.dump, blocks "Switch ... guid 0x<GUID>" of rows
   "0x<LID>: <hop value per port 0..N, hex> [# ...]". At each block of a
   switch of the topology it calls block() (which may fail, e.g. with
   IBR_ENOMEM: the reading stops with that code), at each of its rows
   row() with the LID and the n (<= 256) values; blocks of other GUIDs are
   skipped with their rows. */
typedef struct ibr__matrix_reader {
    const ibr_topo *t;
    int (*block)(void *arg, uint32_t sw);
    void (*row)(void *arg, uint32_t sw, uint64_t lid, const uint8_t *hops, unsigned n);
    void *arg;
    char msg[IBR_ERRMSG_SIZE]; /* "line N: ..." on IBR_EPARSE */
} ibr__matrix_reader;

/* 0, IBR_EPARSE (rd->msg) or block()'s error. */
int ibr__lid_matrix_read(ibr__matrix_reader *rd, const char *buf, size_t len);

#endif
