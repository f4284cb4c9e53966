/*
 * torus-2QoS internals: the parsed torus-2QoS.conf and the discovered torus.
 *
 * The torus model (t2q_torus) is kept apart from the unicast routing so that
 * the multicast master spanning tree (a later issue) can be grown on the
 * same discovery: positions, the switch at each position, and each switch's
 * seven port groups (-X, +X, -Y, +Y, -Z, +Z, local).
 */
#ifndef IBROUTE_ENGINES_TORUS2QOS_H
#define IBROUTE_ENGINES_TORUS2QOS_H

#include <stdint.h>

#include "core/buffer.h"
#include "engines/engine_int.h"

#define T2Q_DIMS 3
#define T2Q_GROUPS 7      /* 2 * d + (1 for +d): -X +X -Y +Y -Z +Z, then local */
#define T2Q_LOCAL 6
#define T2Q_NOGROUP 0xFF  /* a port outside the torus model */

/* One seed: links from one origin switch, and the datelines it sets. */
typedef struct t2q_seed {
    uint64_t from[T2Q_DIMS][2]; /* [dim][0 = minus, 1 = plus]; 0: not given */
    uint64_t to[T2Q_DIMS][2];
    int dateline[T2Q_DIMS];
    unsigned line;              /* configuration line that started it */
} t2q_seed;

typedef struct t2q_config {
    unsigned radix[T2Q_DIMS];   /* 0: no torus/mesh line */
    uint8_t mesh[T2Q_DIMS];
    t2q_seed *seeds;
    unsigned n_seeds;
    unsigned pg_max;            /* portgroup_max_ports */
    unsigned max_changes;
    uint8_t port_rank[256];     /* port -> visiting rank (port_order) */
    unsigned n_port_order;      /* ports listed by port_order (ranks 0..n-1) */
} t2q_config;

/* Parse torus-2QoS.conf text of len bytes. On error returns IBR_EINVAL with
   a message naming the line in err (IBR_ERRMSG_SIZE bytes), or IBR_ENOMEM.
   On success c owns its seeds (t2q_config_free()). */
int t2q_config_parse(t2q_config *c, ibr_context *ctx, const char *text, size_t len, char *err);
void t2q_config_free(t2q_config *c, ibr_context *ctx);

/* torus-2QoS.conf text derived from the cabling of t (torus2qos_derive.c):
   a regular torus or mesh of 1 to 3 dimensions, failures tolerated where
   the surviving structure still settles it. Appends to out and returns 0;
   IBR_EDECLINED with the reason in why (IBR_ERRMSG_SIZE bytes) when the
   cabling is no such torus or mesh or leaves it ambiguous; IBR_ENOMEM. On
   success why holds the log line saying what was derived. */
int t2q_config_derive(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t, char *why);

/* The discovered torus. Position p = i + X * (j + Y * k). */
typedef struct t2q_torus {
    unsigned radix[T2Q_DIMS];
    uint8_t mesh[T2Q_DIMS];
    uint32_t n_pos;
    uint32_t *pos_sw;   /* n_pos: switch index, or IBR_NONE (missing) */
    uint32_t *sw_pos;   /* n_sw: position, or IBR_NONE (not placed) */
    uint32_t *order;    /* placed switches in placement order */
    uint32_t n_placed;
    unsigned pg_max;
    /* port groups: ports of position p's group g are
       grp[(p * T2Q_GROUPS + g) * pg_max ..], grp_n[p * T2Q_GROUPS + g] of
       them; directional groups sorted by the port on the switch whose +
       group holds the cable; the local group holds port 0 first, then the
       ports cabled to end ports, ascending */
    uint8_t *grp;
    uint8_t *grp_n;
    /* port_grp[s * 256 + port]: group of a placed switch's port, or
       T2Q_NOGROUP */
    uint8_t *port_grp;
    /* coord[p * 3 + d]: coordinate d of position p */
    uint8_t *coord;
    /* stride[d]: position step along dimension d */
    uint32_t stride[T2Q_DIMS];
} t2q_torus;

/* Neighbour position of p one step along dim d (dir 0 = minus, 1 = plus),
   or IBR_NONE when the dimension is dead (radix 1) or p is at a mesh edge. */
uint32_t t2q_step(const t2q_torus *tq, uint32_t p, unsigned d, unsigned dir);
/* Coordinate d of position p. */
static inline unsigned t2q_coord(const t2q_torus *tq, uint32_t p, unsigned d)
{
    return tq->coord[(size_t)p * T2Q_DIMS + d];
}

/* Repair in place (persist/reroute_t2q.c): the torus built again on the
   run's topology from the configuration the saved routing was built on,
   the placement compared with the saved one, and the engine's routes
   toward the destination switches marked in dest (n_sw marks; NULL: every
   one) handed to put, entry by entry, in the order of a full run, from the
   switches whose routes can change (with lost: those with a lost cable or
   an empty place on one of their three lines; else every one); then
   the path SLs of every pair in the model and the SL2VL maps written into
   the run's result, as a full run writes them. */
typedef void (*t2q_put_fn)(void *arg, uint32_t sw, uint32_t lid, unsigned port);
typedef struct t2q_repair {
    ibr_run *run;              /* topology, options; its result takes the SLs and maps */
    const char *conf;          /* torus-2QoS.conf text, conf_len bytes */
    size_t conf_len;
    size_t conf_keep;          /* its first conf_keep bytes: the artefact
                                  torus-2QoS.conf of the repaired routing (0:
                                  none, the configuration was given) */
    const uint64_t *saved_guid; /* the saved placement: switch GUID and x, y, z */
    const uint8_t *saved_xyz;   /* 3 per switch */
    uint32_t n_saved;
    const uint8_t *dest;
    const uint8_t *lost;       /* n_sw marks: the switches that lost a cable
                                  (NULL: cables may have come back) */
    const uint8_t *sl_kept;    /* per LID (max_lid + 1): the result already
                                  holds the path SLs between two marked LIDs,
                                  as this placement gives them (NULL: none) */
    t2q_put_fn put;
    void *arg;
    uint32_t dests;            /* out: destination switches routed */
    char why[IBR_ERRMSG_SIZE]; /* out: why a full reroute (return 1) */
} t2q_repair;

/* 0; 1 with why set when a saved switch is placed elsewhere; the
   engine's decline or failure on the changed fabric (its message in the
   run), IBR_ENOMEM among them. */
int t2q_repair_run(t2q_repair *a);

#endif
