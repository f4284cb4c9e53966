/*
 * The layout of a frozen topology (and of the nodes and ports the fabric
 * builder shares with it). Engines include this header to read the
 * topology directly in their inner loops; it is read-only for them: a
 * topology never changes after ibr_fabric_freeze().
 */
#ifndef IBROUTE_TOPO_INT_H
#define IBROUTE_TOPO_INT_H

#include "core/base.h"
#include "ibroute/sys/toolkit.h"

typedef struct ibr__port {
    uint64_t guid;
    uint32_t remote_node; /* IBR_NONE when not cabled */
    uint8_t remote_port;
    uint8_t width;
    uint8_t speed;
    uint8_t state;        /* ibr_link_state */
    uint16_t lid;         /* base LID, 0 = none */
    uint8_t lmc;
    /* PortInfo facts (ibr_port_attr). In a fabric 0 means "the default";
       a frozen topology holds them resolved (ibr__port_resolve()). */
    uint8_t vl_cap;       /* data VLs: 1, 2, 4, 8 or 15 */
    uint8_t oper_vls;     /* operational data VLs */
    uint8_t width_en;     /* ibr_link_width bits */
    uint16_t speed_en;    /* IBR_SPEED_BIT() bits */
} ibr__port;

/* Default data VLs of a port: VL0-7, as ibsim's simulated ports report. */
#define IBR__DEFAULT_VL_CAP 8


typedef struct ibr__node {
    uint64_t guid;
    uint64_t sysimg;      /* 0 = same as guid */
    uint32_t port_off;    /* index of port 0 in the port array */
    uint32_t sw;          /* switch index in a topo, IBR_NONE otherwise */
    uint8_t type;
    uint8_t nports;
    char desc[IBR_DESC_SIZE];
} ibr__node;

/* Port gp of a fabric's or topology's arrays with its defaults resolved:
   vl_cap 8, oper_vls the smaller vl_cap of the two ends of an active or
   down cable (vl_cap when uncabled), enabled masks holding the active
   width and speed. O(1). */
void ibr__port_resolve(ibr__port *out, const ibr__node *nodes, const ibr__port *ports,
                       uint32_t gp);

/* A switch link in the topology's CSR: the public ibr_switch_link
   (ibr_topo_switch_links() hands out the array itself). */
typedef ibr_switch_link ibr__adj;

struct ibr_topo {
    ibr_context *ctx;
    uint32_t n_nodes;
    uint32_t n_sw;
    uint32_t n_ports;     /* all ports, port 0 included */
    uint32_t n_end;       /* end ports (CA/router, LID, cabled) */
    uint16_t max_lid;
    ibr__node *nodes;     /* n_nodes; .sw set for switches */
    ibr__port *ports;     /* n_ports; global port index = node.port_off + port */
    uint32_t *port_node;  /* global port index -> node index */
    uint32_t *sw_node;    /* n_sw: switch index -> node index */
    /* CSR of active switch-to-switch links (no loopbacks), per switch in
       ascending local port order */
    uint32_t *adj_off;    /* n_sw + 1 */
    ibr__adj *adj;
    uint32_t n_adj;
    /* end ports: global port index, in node index then port order */
    uint32_t *end_port;
    /* per LID (0..max_lid) */
    uint32_t *lid_port;   /* owning global port index, IBR_NONE if none */
    uint32_t *lid_sw;     /* switch where the LID's traffic is delivered:
                             the switch itself, or the switch an end port is
                             actively cabled to; IBR_NONE if unreachable */
    uint8_t *lid_swport;  /* port of lid_sw leading to the owner (0 for a
                             switch LID) */
    /* per node, switch ports cabled (active) to CA/router ports */
    /* sorted GUID index for ibr_topo_find_guid */
    uint64_t *guid_keys;  /* sorted */
    uint32_t *guid_vals;  /* global port index for port GUIDs; node index |
                             0x80000000 for node GUIDs */
    uint32_t n_guid;
};

/* Global port index of the port whose port GUID is guid (switch port 0 for
   a switch GUID), or IBR_NONE. O(log ports). */
uint32_t ibr__topo_find_port_guid(const ibr_topo *t, uint64_t guid);

static inline const ibr__port *ibr__tport(const ibr_topo *t, uint32_t node, unsigned port)
{
    return &t->ports[t->nodes[node].port_off + port];
}

/* Data VLs the engines may count on, as OpenSM 3.3 computes them for
   dfsssp, Nue and LASH: the minimum oper_vls over switch ports 1..N with an
   active cable (to a switch or an end port); 15 when there is none. O(ports). */
unsigned ibr__topo_min_oper_vls(const ibr_topo *t);

/* Is the cable on port gp throttled, i.e. running below the best width or
   speed both ends enable (OpenSM's avoid_throttled_links test)? 0 for an
   uncabled port. O(1). */
int ibr__topo_link_throttled(const ibr_topo *t, uint32_t gp);

/* A view of t for engines told to avoid throttled cables (OpenSM's
   avoid_throttled_links): the same topology whose switch graph (adj_off,
   adj, n_adj) leaves out every throttled switch-to-switch cable, except
   those needed to keep the switches connected as they are in t (taken
   back in adjacency order, one per pair of components they join). *out
   is NULL when t has no throttled switch-to-switch cable; otherwise it
   borrows everything else from t, must not outlive it, and is freed with
   ibr__topo_view_destroy() (never ibr_topo_destroy()). *avoided and *kept
   count the throttled cables left out and taken back. Returns 0 or
   IBR_ENOMEM. O(ports + S). */
int ibr__topo_avoid_throttled(ibr_topo **out, size_t *avoided, size_t *kept, const ibr_topo *t);
void ibr__topo_view_destroy(ibr_topo *view);

/* Distances (links) from the nearest of n_src source switches to every
   switch: dist[n_sw], UINT32_MAX when unreachable; queue: n_sw scratch.
   Sources must be valid switch indices. O(S + E). */
void ibr__bfs(uint32_t *dist, const ibr_topo *t, const uint32_t *src, size_t n_src,
              uint32_t *queue);

/* Connected components of the active switch links: comp[s] is the first
   switch of s's component; queue is scratch of n_sw entries. */
void ibr__switch_components(const ibr_topo *t, uint32_t *comp, uint32_t *queue);
/* The same over any switch graph held as the topology holds its own: n
   switches, links adj[adj_off[s] .. adj_off[s + 1]) of each (an engine's
   private copy of the switch graph). */
void ibr__graph_components(uint32_t n, const uint32_t *adj_off, const ibr__adj *adj,
                           uint32_t *comp, uint32_t *queue);

/* All-pairs switch hop matrix over active links: d[a * n_sw + b] = hops from
   a to b (255 = unreachable or > 254). BFS from every switch, in parallel.
   The _into variant fills the caller's n_sw^2 bytes. */
int ibr__switch_hops(uint8_t **out, const ibr_topo *t, unsigned int nthreads);
int ibr__switch_hops_into(uint8_t *d, const ibr_topo *t, unsigned int nthreads);

/* Switches ordered by hop count from switch d (d first, unreachable
   switches left out), by a counting sort of the hop matrix row of d.
   Returns the number of switches written to order (room for n_sw).
   cnt needs 257 entries of scratch. O(S). */
uint32_t ibr__hops_level_order(const ibr_topo *t, const uint8_t *hops, uint32_t d,
                               uint32_t *order, uint32_t *cnt);

/* The end-port pairs the fabric connects that a set of tables does not
   deliver: the pairs ibr_result_verify() counts (a source end port cabled
   to a switch, a destination LID of another end port, both switches joined
   by active cables, LIDs past lmc_cap of their port's base left out), and
   among them those that following the LFT rows row(arg, sw) from the
   source's switch does not bring to the destination (no entry, a bad or
   down port, an end node on the way, a loop). *n gets their number; the
   first of them (lowest LID, then switch) its source switch in *first_sw
   and its LID in *first_lid (IBR_NONE and 0 when none). Engines use it to
   decline tables that break such pairs, and the reroute to refuse a repair
   that does. Returns 0 or IBR_ENOMEM. O(L * S + E) for L LIDs. */
typedef const uint8_t *(*ibr__lft_row_fn)(void *arg, uint32_t sw);
int ibr__unrouted_pairs(uint64_t *n, uint32_t *first_sw, uint16_t *first_lid,
                        const ibr_topo *t, ibr__lft_row_fn row, void *arg, unsigned lmc_cap);
/* The same, counting only the destination LIDs l with only[l] == 1
   (only: max_lid + 1 bytes, 0 or 1; NULL: every LID). */
int ibr__unrouted_pairs_of(uint64_t *n, uint32_t *first_sw, uint16_t *first_lid,
                           const ibr_topo *t, ibr__lft_row_fn row, void *arg, unsigned lmc_cap,
                           const uint8_t *only);

#endif
