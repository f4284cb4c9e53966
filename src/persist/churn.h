/*
 * What a subnet manager must send after ibr_routing_db_route(): the LFT
 * entries, 64-LID blocks and switches, SL2VL tables and path SLs that
 * differ from the saved routing (the churn of ibr_reroute_report), and
 * the saved blocks whose routes crossed a lost cable or switch.
 */
#ifndef IBROUTE_PERSIST_CHURN_H
#define IBROUTE_PERSIST_CHURN_H

#include "persist/persist_int.h"

/* LIDs of one LFT block (one SubnSet(LinearForwardingTable)). */
#define IBR__LFT_BLOCK 64

/* Differences from the saved tables kept up to date while a repair writes
   entries (same LIDs on both sides: the table sizes are equal), so that
   the report costs O(entries written) instead of O(table). */
typedef struct ibr__churn {
    uint32_t n_sw;
    size_t n_blocks;     /* blocks per switch */
    uint32_t *ent;       /* per switch: entries that differ */
    uint8_t *blk;        /* n_sw x n_blocks: entries of each block that differ */
    uint32_t *sw_blocks; /* per switch: blocks with an entry that differs */
    uint64_t entries, blocks;
} ibr__churn;

/* Zero counts for n_sw switches with tables of lft_size LIDs. 0 or
   IBR_ENOMEM. */
int ibr__churn_init(ibr__churn *c, ibr_context *ctx, uint32_t n_sw, size_t lft_size);
void ibr__churn_free(ibr__churn *c, ibr_context *ctx);

/* Entry (s, l) differed from the saved one (before) and now does (after);
   LID 0 is not an entry. */
static inline void ibr__churn_note(ibr__churn *c, uint32_t s, size_t l, int before, int after)
{
    if (before == after || l == 0)
        return;
    uint8_t *b = &c->blk[(size_t)s * c->n_blocks + l / IBR__LFT_BLOCK];
    if (after) {
        c->ent[s]++;
        c->entries++;
        if ((*b)++ == 0) {
            c->sw_blocks[s]++;
            c->blocks++;
        }
    } else {
        c->ent[s]--;
        c->entries--;
        if (--*b == 0) {
            c->sw_blocks[s]--;
            c->blocks--;
        }
    }
}

/* Count switch s's row again from scratch: now and old (its saved row) of
   n LIDs each, for writers that did not go through ibr__churn_note() (an
   engine's repair writing rows directly). O(n), 64 LIDs compared at once. */
void ibr__churn_recount(ibr__churn *c, uint32_t s, const uint8_t *now, const uint8_t *old,
                        size_t n);

/* The port of topology t (global port index) that saved end-port map e
   is for, or IBR_NONE when t lacks it (node gone or now a switch, port 0
   or beyond the node's ports). */
uint32_t ibr__churn_ep_port(const ibr_routing_db *db, const ibr_topo *t, const ibr__dbep *e);

/* The churn of routing r (on its topology, whose switch s is saved switch
   swmap[s] or IBR_NONE) against the saved routing db, into rep: LFT
   entries, switches, blocks and their histogram, SL2VL tables and path
   SLs. With tracked, the LFT counts are taken from it (O(switches));
   otherwise every row is compared (O(table)). Per-pair path SLs are
   compared only with sl_pairs (a repair that left them as saved has none
   to count). Cannot fail. */
void ibr__churn_report(ibr_reroute_report *rep, const ibr_routing_db *db, const ibr_result *r,
                       const uint32_t *swmap, const ibr__churn *tracked, int sl_pairs);

/* The blocks of the saved tables that held an entry whose route crossed a
   switch-to-switch cable gone from topology t (a lost switch's cables
   included), on the switches t still has: walked backwards from those
   cables, each LID's entries that lead onto them. swmap as above. 0 or
   IBR_ENOMEM (*out untouched). */
int ibr__churn_over_lost(uint64_t *out, const ibr_routing_db *db, const ibr_topo *t,
                         const uint32_t *swmap);

#endif
