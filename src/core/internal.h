/*
 * Private declarations shared by the library's own files (not the
 * engines, which see core/base.h, core/topo_int.h and the public sys/
 * headers only): the layouts of the context, the fabric builder and the
 * result. Nothing here is public; functions shared between files use the
 * ibr__ prefix.
 */
#ifndef IBROUTE_INTERNAL_H
#define IBROUTE_INTERNAL_H

#include <stdatomic.h>

#include "core/base.h"
#include "core/topo_int.h"
#include "ibroute/ibroute.h"
#include "ibroute/sys/engine.h"

/* ------------------------------------------------------------------ */
/* context                                                             */

struct ibr_context {
    ibr_allocator alloc;
    ibr_log_fn log;
    void *log_user;
    int log_level;
    ibr_engine *engines;   /* registered engines: copies whose strings and
                              settings the context owns */
    size_t n_engines;
    char last_error[IBR_ERRMSG_SIZE];
    /* ibr_route() calls in progress on topologies of this context (nested
       ones included): registration is refused while any runs, since the
       chain holds pointers into engines[] */
    atomic_uint routing;
};

/* ------------------------------------------------------------------ */
/* fabric                                                              */

struct ibr_fabric {
    ibr_context *ctx;
    ibr__node *nodes;
    size_t n_nodes, cap_nodes;
    ibr__port *ports;
    size_t n_ports, cap_ports;
    ibr__guidmap node_guids; /* node GUID -> node index */
    ibr__guidmap port_guids; /* port GUID -> global port index (CA/router
                                ports and switch port 0) */
    uint32_t *lid_owner;     /* [IBR_MAX_UNICAST_LID + 1]: global port index
                                + 1, 0 = free; allocated on first LID */
    char last_error[IBR_ERRMSG_SIZE];
};

int ibr__fabric_err(ibr_fabric *f, int code, const char *fmt, ...) IBR_PRINTF(3, 4);
/* The node and port of global port index gp (f holds at least one node). */
void ibr__port_owner(const ibr_fabric *f, uint32_t gp, uint32_t *node, unsigned *port);
/* Size of a caller's ibr_node_info / ibr_port_info of the given version
   (0: unknown version). */
size_t ibr__node_info_size(unsigned int version);
size_t ibr__port_info_size(unsigned int version);
/* Describe node n (ports: the port array n->port_off indexes) or port p
   (resolved: ibr__port_resolve()) into the caller's out, as far as
   out->version declares (a known one). */
void ibr__node_info(ibr_node_info *out, const ibr__node *n, const ibr__port *ports);
void ibr__port_info(ibr_port_info *out, const ibr__port *p);
/* Name of a node type for messages: "switch", "CA", "router". */
const char *ibr__type_name(int type);

/* ------------------------------------------------------------------ */
/* result                                                              */

typedef struct ibr__attempt {
    char name[64];
    int status;
    char *message;
} ibr__attempt;

/* A member port of an MLID: global port index and join state. */
typedef struct ibr__mcmember {
    uint32_t gport;
    uint8_t join;
} ibr__mcmember;

typedef struct ibr__mcast {
    uint16_t mlid;
    uint8_t *bits; /* n_sw * 32 bytes: bit p of switch s = port p */
    ibr__mcmember *members; /* the members the tree was built for, by gport */
    size_t n_members;
    int has_members; /* 0: tables without groups (an engine's, a dump) */
} ibr__mcast;

typedef struct ibr__setting_rec {
    char *name;  /* "engine.setting" */
    char *value;
} ibr__setting_rec;

typedef struct ibr__artifact {
    char *name;
    void *data;
    size_t size;
} ibr__artifact;

/* The VL arbitration a port is programmed with. */
typedef struct ibr__vlarb {
    uint8_t programmed; /* 0: the QoS manager leaves the port alone */
    uint8_t high_limit;
    uint8_t n_high, n_low;
    ibr_vlarb_entry high[IBR_VLARB_ENTRIES];
    ibr_vlarb_entry low[IBR_VLARB_ENTRIES];
} ibr__vlarb;

struct ibr_result {
    ibr_context *ctx;
    const ibr_topo *topo;
    int status;
    char engine[64];
    char last_error[IBR_ERRMSG_SIZE];
    uint64_t seed;
    unsigned int threads; /* workers the engines ran with (0: not routed) */
    unsigned int layers;  /* ibr_run_set_layers(); 0 unless set */
    unsigned int lmc_cap; /* ibr_options::lmc of the routing: LIDs past the
                             first 2^lmc_cap of a port were not asked for */
    ibr__attempt *attempts;
    size_t n_attempts;
    /* unicast section: owned by core/result_unicast.c */
    size_t lft_size;      /* max_lid + 1 */
    uint8_t *lft;         /* n_sw * lft_size, or NULL (failed result) */
    uint8_t *hops;        /* n_sw * n_sw, or NULL */
    ibr_sl_mode sl_mode;
    uint8_t *sl;          /* PER_DEST: lft_size; PER_PAIR: n_src * lft_size */
    uint32_t *sl2vl_off;  /* per switch offset into sl2vl, or NULL */
    uint8_t *sl2vl;       /* per switch (nports+1)^2 * 16 */
    uint8_t *sl2vl_set;   /* per switch: 1 when the engine set a map of it */
    uint8_t *ep_sl2vl;    /* per global port 16 bytes: end ports' maps set by
                             the engine (ibr_run_set_endport_sl2vl) or
                             programmed by the QoS manager; NULL: defaults */
    uint8_t *ep_sl2vl_set; /* per global port: 1 when ep_sl2vl holds a map */
    /* QoS (ibr_options::qos): what the QoS manager programs */
    int qos;              /* 1: the tables below were computed */
    unsigned int qos_levels; /* QoS levels (ibr_qos_levels); 0 or 1: one */
    unsigned int qos_stride; /* SL distance between two levels' copies of a path SL */
    ibr__vlarb *vlarb;    /* per global port */
    /* what QoS was programmed from, for the routing database (the QoS
       manager runs again on a reloaded routing): the configuration's text
       (ibr_qos_config_write()), and the engine's own SL2VL maps before it
       (switches in the sl2vl_off layout, NULL when the engine set none;
       end ports 16 bytes per global port with a flag, NULL when none) */
    char *qos_conf;
    uint8_t *pre_sl2vl;
    uint8_t *pre_ep;
    uint8_t *pre_ep_set;
    char **qos_notes;
    size_t n_qos_notes;
    ibr_sl_hazard *hazards;
    size_t n_hazards;
    unsigned int vls_used;
    ibr__mcast *mcast;
    size_t n_mcast;
    int mcast_trees;      /* ibr_mcast_trees: who built the trees */
    ibr__artifact *artifacts;
    size_t n_artifacts;
    ibr__setting_rec *settings; /* of the engine that routed */
    size_t n_settings;
    /* up/down engines: per switch its place in the acyclic orientation of
       the switch links (a step toward a smaller place is first-phase, one
       toward a larger place second-phase), kept in the routing database
       so that a repair stays legal; NULL when the engine set none */
    uint32_t *upos;
};

/* The LFT row of switch sw: lft_size output ports indexed by LID (the hot
   path of every reader and writer of the unicast tables, whose storage
   core/result_unicast.c owns). */
static inline uint8_t *ibr__lft_row(const ibr_result *r, uint32_t sw)
{
    return r->lft + (size_t)sw * r->lft_size;
}

/* Source slot of a LID for per-pair SLs: end port index, or n_end + switch
   index; IBR_NONE when no port owns the LID. */
uint32_t ibr__src_slot(const ibr_topo *t, uint16_t lid);
uint32_t ibr__n_src_slots(const ibr_topo *t);

int ibr__result_new(ibr_result **out, const ibr_topo *t);
/* The MFT of mlid, created empty when create is set (NULL: not found or
   out of memory). */
ibr__mcast *ibr__result_mcast_get(ibr_result *r, uint16_t mlid, int create);
/* Drop the MFTs and their members (core/mcast_groups.c, which owns the
   result's multicast section). */
void ibr__result_mcast_clear(ibr_result *r);
/* Drop everything an engine wrote (for a fresh attempt). */
void ibr__result_clear_tables(ibr_result *r);
/* The layout of a result's switch SL2VL maps: per switch s, the offset
   of its (nports+1)^2 maps of 16 bytes, one per (in, out) port pair;
   *total gets the bytes of all of them. The one place that layout is
   computed (r->sl2vl_off). NULL when out of memory. */
uint32_t *ibr__sl2vl_layout(ibr_context *ctx, const ibr_topo *t, size_t *total);
/* Allocate the end-port SL2VL maps (identity) unless present. */
int ibr__result_alloc_ep_sl2vl(ibr_result *r);
/* Replace the switch SL2VL maps and their layout (ibr__sl2vl_layout()),
   taking ownership of both: the QoS manager's programmed maps. */
void ibr__result_replace_sl2vl(ibr_result *r, uint8_t *sl2vl, uint32_t *off);
/* VL of a hop through switch sw from in_port to out_port (both at most the
   switch's port count) on SL sl: its SL2VL entry, or sl without tables. */
unsigned ibr__hop_vl(const ibr_result *r, uint32_t sw, unsigned in_port, unsigned out_port,
                     unsigned sl);

/* Free what ibr_context_register_engine() copied into e. */
void ibr__engine_free_copy(ibr_context *ctx, ibr_engine *e);

#endif
