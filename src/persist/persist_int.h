/*
 * The layout of a routing database (persist.h). Nodes are stored with
 * the switches first, in switch index order (node i < n_sw is switch i);
 * ports of node i are ports[port_off .. port_off + nports], port 0
 * included.
 */
#ifndef IBROUTE_PERSIST_INT_H
#define IBROUTE_PERSIST_INT_H

#include "core/buffer.h"
#include "core/internal.h"
#include "core/topo_int.h"
#include "ibroute/persist.h"

typedef struct ibr__dbport {
    uint64_t guid;
    uint64_t rguid;   /* remote node GUID of an active cable, 0 = none */
    uint16_t lid;
    uint8_t lmc;
    uint8_t rport;
    uint8_t rtype;    /* remote node type */
} ibr__dbport;

typedef struct ibr__dbnode {
    uint64_t guid;
    uint32_t port_off;
    uint32_t sw;      /* switch index, IBR_NONE for CAs and routers */
    uint8_t type;
    uint8_t nports;
    uint8_t has_lft;  /* parsing */
} ibr__dbnode;

/* An end port's SL2VL map set by the engine (saved node, port number). */
typedef struct ibr__dbep {
    uint32_t node;
    uint8_t port;
    uint8_t map[16];
} ibr__dbep;

struct ibr_routing_db {
    ibr_context *ctx;
    int status;
    char last_error[IBR_ERRMSG_SIZE];
    char engine[64];
    uint64_t seed;
    unsigned int vls_used, layers;
    size_t n_settings;
    char **set_name, **set_value;
    uint32_t n_nodes, n_sw, n_ports;
    ibr__dbnode *nodes;
    ibr__dbport *ports;
    uint32_t *sw_node;
    uint16_t max_lid;
    size_t lft_size;
    uint8_t *lft;       /* n_sw x lft_size */
    uint32_t *port_count; /* n_sw x 256: per saved row, its entries of LIDs
                             1 .. lft_size - 1 per port (IBR_NO_ROUTE too):
                             a repair's port loads start from them */
    /* balanced engines (sssp, dfsssp): the saved routing's all-to-all
       load, counted once when the database is made, or read from its
       pairs records (counted when a database has none), what their
       repairs weigh moved paths against (ibr__db_pairs); else NULL */
    uint64_t *pairs;    /* per port (index as ports): the end-port pairs
                           over it, counted per end-port LID as source
                           and destination */
    uint32_t *port_sw;  /* per port: the switch behind a switch's port
                           (IBR_NONE: none) */
    uint32_t *lid_sw;   /* per LID 0 .. max_lid: the switch an end port's
                           LID hangs off, IBR_NONE for the others */
    uint32_t *sw_hosts; /* per switch: end-port LIDs hanging off it */
    size_t n_pairs_rows, cap_pairs; /* parsing: switches with a pairs line */
    uint8_t *hops;      /* n_sw x n_sw or NULL */
    uint32_t *upos;     /* up/down engines: per switch its place in the
                           orientation of the links (ibr_result::upos),
                           a permutation of 0 .. n_sw - 1; or NULL */
    size_t n_upos_rows, cap_upos; /* parsing */
    size_t n_hop_rows, hop_width; /* parsing */
    ibr_sl_mode sl_mode;
    size_t n_sl_rows;   /* 1 (dest) or one per source port (pair) */
    uint16_t *sl_src;   /* per row: source base LID (0 in dest mode) */
    uint8_t *sl;        /* n_sl_rows x lft_size */
    uint8_t *sl2vl;     /* per switch (nports + 1)^2 x 16, or NULL */
    size_t *sl2vl_off;
    size_t sl2vl_total, n_sl2vl_rows; /* parsing */
    ibr__dbep *ep;      /* end-port maps the engine set */
    size_t n_ep, cap_ep;
    /* QoS (the routing was programmed by the QoS manager): levels, their
       SL stride and the configuration's text; sl2vl and ep then hold the
       engine's maps from before the QoS manager */
    int qos;
    unsigned int qos_levels, qos_stride;
    char *qos_conf;
    size_t qos_conf_len;
    /* torus-2QoS (torusconf / toruspos records): the torus-2QoS.conf text
       the routing was built on and where each switch was placed, what a
       repair in place builds the torus again from; absent in databases
       written before them (n_tpos 0) */
    char *torus_conf;
    size_t torus_conf_len;
    uint64_t *tpos_guid;
    uint8_t *tpos_xyz; /* 3 per switch */
    uint32_t n_tpos, cap_tpos;
    ibr__guidmap node_map; /* node GUID -> node index */
    ibr__guidmap port_map; /* port GUID (switch port 0, CA ports) -> port index */
    uint32_t *lid_port;    /* LID -> port index, IBR_NONE */
    struct ibr__dmodc_saved *dmodc; /* a dmodc routing: the saved fabric's
                                       model (reroute_dmodc.c), or NULL */
};

/* The entries of LIDs 1 to L - 1 of one LFT row per output port into
   out[256] (persist.c: the database's port counts; reroute.c: a row the
   repair rewrote). */
void ibr__row_port_counts(const uint8_t *row, size_t L, uint32_t *out);

/* The saved routing's all-to-all load (db->pairs, port_sw, lid_sw,
   sw_hosts) of a database whose engine repairs by balance, db->pairs
   counted unless its pairs records gave it; nothing for the others (and
   the pairs read dropped). 0 or IBR_ENOMEM. */
int ibr__db_pairs(ibr_routing_db *db);

/* Repair in place of a dmodc routing (reroute_dmodc.c): a->t, swmap,
   lft, lft_size, hops (the saved tables and costs on a->t), lmc_cap and
   changed set by the caller, the saved fabric described from db (tmap,
   dmap: map_nodes() of reroute.c). ibr__dmodc_repair_run()'s answer;
   when 0, chg counts the changed entries and blocks of the repaired rows. */
struct ibr__dmodc_repair;
struct ibr__churn;
/* A dmodc routing's saved model (db->dmodc), built once as the database
   is made or read, for every repair of it; other engines' databases and
   fabrics dmodc does not route get none. 0 or IBR_ENOMEM. */
int ibr__dmodc_db_model(ibr_routing_db *db);
int ibr__reroute_dmodc(struct ibr__dmodc_repair *a, const ibr_routing_db *db,
                       const uint32_t *tmap, const uint32_t *dmap, struct ibr__churn *chg);

/* Repair in place of a torus-2QoS routing (reroute_t2q.c): r holds the
   saved tables on t; the engine's routes toward the destination switches
   marked in dest (t->n_sw marks) are handed to put(arg, switch, LID,
   port), and r takes the path SLs and SL2VL maps of the torus built again
   from the saved configuration. 0 (*dests: destination switches routed),
   1 with why set (a full reroute), or IBR_ENOMEM. */
int ibr__reroute_t2q(ibr_result *r, const ibr_routing_db *db, const ibr_topo *t,
                     const ibr_options *o, const uint8_t *dest, const uint8_t *lost,
                     const uint8_t *sl_kept, void (*put)(void *arg, uint32_t sw, uint32_t lid, unsigned port), void *arg,
                     uint32_t *dests, char *why, size_t cap);

/* The switch over port p of switch s (an active cable to another
   switch), or IBR_NONE: the step a repair's table entry takes. */
static inline uint32_t ibr__reroute_next_sw(const ibr_topo *t, uint32_t s, unsigned p)
{
    const ibr__node *n = &t->nodes[t->sw_node[s]];
    if (p == 0 || p > n->nports)
        return IBR_NONE;
    const ibr__port *pt = &t->ports[n->port_off + p];
    if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
        pt->remote_node == t->sw_node[s])
        return IBR_NONE;
    return t->nodes[pt->remote_node].sw;
}

#endif
