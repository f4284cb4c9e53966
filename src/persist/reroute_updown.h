/*
 * Repair in place of an up/down routing (updn, dnup) after lost cables or
 * switches (reroute_updown.c), for ibr_routing_db_route() (reroute.c).
 */
#ifndef IBROUTE_PERSIST_REROUTE_UPDOWN_H
#define IBROUTE_PERSIST_REROUTE_UPDOWN_H

#include "persist/persist_int.h"

/* The repair's inputs, set by the caller: the topology t; pos, each
   switch's saved place in the orientation of the links (ibr_result::upos;
   a step toward a smaller place is first-phase, toward a larger one
   second-phase; IBR_NONE for a switch without one), places below n_pos;
   the saved tables on t (lft, lft_size; hops, S x S, or NULL); okport,
   per topology port, 1 when it carries its saved cable; lost, the
   switches that lost a saved cable; lidmap (IBR_NONE: a column the
   repair leaves to its caller); the LIDs per delivering switch (bucket,
   bucket_off). Entries are written through set() (which keeps the loads
   that load() returns, 256 per switch, per port). */
typedef struct ibr__updown_repair {
    const ibr_topo *t;
    const uint32_t *pos;
    uint32_t n_pos;
    uint8_t *lft;
    size_t lft_size;
    uint8_t *hops;
    const uint8_t *okport, *lost;
    const uint32_t *lidmap, *bucket_off, *bucket;
    void (*set)(void *arg, uint32_t s, size_t l, unsigned port);
    const uint32_t *(*load)(void *arg, uint32_t s);
    void *arg;
    unsigned dests; /* destination switches searched again */
    char why[256];
    /* the entries the repair wrote, (LID << 32 | switch), for the check;
       moved_lid marks their LIDs; all_moved: more than the list holds */
    uint64_t *moved;
    size_t n_moved, cap_moved;
    uint8_t *moved_lid;
    int all_moved;
} ibr__updown_repair;

/* Free what the repair kept for the check. */
void ibr__updown_free(ibr__updown_repair *a, ibr_context *ctx);

/* Every destination switch with a saved entry over a lost cable is
   searched again under the saved orientation, on the fabric as it is
   (a cable that came back between two switches with places included),
   and each entry toward its LIDs that is no longer legal for every packet
   that can reach it (updn.c's rule: a switch that can reach the
   destination by second-phase steps alone takes one) takes the
   least-loaded legal port on a shortest legal route; the other entries
   stay. 0, 1 when a switch carrying end ports has no legal route to a
   destination switch it is connected to (why says so), or IBR_ENOMEM. */
int ibr__reroute_updown(ibr__updown_repair *a, ibr_context *ctx);

/* The promise, checked where the tables changed (the other entries keep
   saved routes over cables that are all there): every entry of a switch
   toward a LID delivered elsewhere leaves over a switch link, and one
   that takes a second-phase step is followed by a second-phase step (or
   the delivering switch), so that every route is first-phase steps then
   second-phase steps, legal under the saved orientation. For an entry
   the repair wrote, that is its own step and the steps into it; columns
   written otherwise (lid_touched: new LIDs) are checked whole. 0, or 1
   with why set. */
int ibr__updown_check(ibr__updown_repair *a, const uint8_t *lid_touched);

#endif
