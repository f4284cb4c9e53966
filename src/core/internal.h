/*
 * Private declarations shared by the library's own files: the layout of
 * every opaque object, allocation and error helpers. Nothing here is
 * public; functions shared between files use the ibr__ prefix.
 */
#ifndef IBROUTE_INTERNAL_H
#define IBROUTE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibroute/ibroute.h"
#include "ibroute/sys/engine.h"

#define IBR_ERRMSG_SIZE 512
#define IBR_DESC_SIZE 65 /* NodeDescription is 64 bytes, plus NUL */
#define IBR_MAX_PORTS 254

#if defined(__GNUC__)
#define IBR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define IBR_UNUSED __attribute__((unused))
#else
#define IBR_PRINTF(a, b)
#define IBR_UNUSED
#endif

/* ------------------------------------------------------------------ */
/* context                                                             */

typedef struct ibr__user_engine {
    char *name;
    char *description;
    unsigned int caps;
    ibr_engine_route_fn route;
    void *user;
} ibr__user_engine;

struct ibr_context {
    ibr_allocator alloc;
    ibr_log_fn log;
    void *log_user;
    int log_level;
    ibr__user_engine *engines;
    size_t n_engines;
    char last_error[IBR_ERRMSG_SIZE];
};

/* The immutable default context used when callers pass NULL. */
ibr_context *ibr__default_context(void);
static inline ibr_context *ibr__ctx(ibr_context *ctx)
{
    return ctx ? ctx : ibr__default_context();
}

void *ibr__malloc(ibr_context *ctx, size_t size);
/* calloc semantics with overflow check: n * size bytes, zeroed */
void *ibr__calloc(ibr_context *ctx, size_t n, size_t size);
/* array allocation without zeroing, overflow-checked */
void *ibr__mallocarray(ibr_context *ctx, size_t n, size_t size);
void *ibr__realloc(ibr_context *ctx, void *p, size_t size);
void *ibr__reallocarray(ibr_context *ctx, void *p, size_t n, size_t size);
void ibr__free(ibr_context *ctx, void *p);
char *ibr__strdup(ibr_context *ctx, const char *s);
/* Grow *p (of *cap elements of size sz) so that it holds at least need. */
int ibr__grow(ibr_context *ctx, void **p, size_t *cap, size_t need, size_t sz);

void ibr__log(ibr_context *ctx, int level, const char *fmt, ...) IBR_PRINTF(3, 4);
/* Format into an error buffer of IBR_ERRMSG_SIZE bytes; returns code. */
int ibr__err(char *buf, int code, const char *fmt, ...) IBR_PRINTF(3, 4);
int ibr__verr(char *buf, int code, const char *fmt, va_list ap);

/* Ascending byte-reversed GUID: OpenSM's table order on x86. */
static inline uint64_t ibr__guid_key(uint64_t guid)
{
    return __builtin_bswap64(guid);
}

/* ------------------------------------------------------------------ */
/* ports and nodes (shared by fabric and topo)                         */

typedef struct ibr__port {
    uint64_t guid;
    uint32_t remote_node; /* IBR_NONE when not cabled */
    uint8_t remote_port;
    uint8_t width;
    uint8_t speed;
    uint8_t state;        /* ibr_link_state */
    uint16_t lid;         /* base LID, 0 = none */
    uint8_t lmc;
} ibr__port;

typedef struct ibr__node {
    uint64_t guid;
    uint64_t sysimg;      /* 0 = same as guid */
    uint32_t port_off;    /* index of port 0 in the port array */
    uint32_t sw;          /* switch index in a topo, IBR_NONE otherwise */
    uint8_t type;
    uint8_t nports;
    char desc[IBR_DESC_SIZE];
} ibr__node;

/* Open-addressing map from a 64-bit GUID to a 32-bit value. */
typedef struct ibr__guidmap {
    uint64_t *keys; /* 0 = empty slot (GUID 0 is never stored) */
    uint32_t *vals;
    size_t cap;     /* power of two */
    size_t n;
} ibr__guidmap;

int ibr__guidmap_put(ibr_context *ctx, ibr__guidmap *m, uint64_t key, uint32_t val);
/* returns IBR_NONE when absent */
uint32_t ibr__guidmap_get(const ibr__guidmap *m, uint64_t key);
void ibr__guidmap_del(ibr__guidmap *m, uint64_t key);
void ibr__guidmap_free(ibr_context *ctx, ibr__guidmap *m);
int ibr__guidmap_reserve(ibr_context *ctx, ibr__guidmap *m, size_t n);

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
void ibr__port_info(ibr_port_info *out, const ibr__port *p);
/* Name of a node type for messages: "switch", "CA", "router". */
const char *ibr__type_name(int type);

/* ------------------------------------------------------------------ */
/* topo                                                                */

typedef struct ibr__adj {
    uint32_t sw;      /* neighbour switch index */
    uint8_t port;     /* local port */
    uint8_t rport;    /* port on the neighbour */
} ibr__adj;

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

/* ------------------------------------------------------------------ */
/* result                                                              */

typedef struct ibr__attempt {
    char name[64];
    int status;
    char *message;
} ibr__attempt;

typedef struct ibr__mcast {
    uint16_t mlid;
    uint8_t *bits; /* n_sw * 32 bytes: bit p of switch s = port p */
} ibr__mcast;

typedef struct ibr__artifact {
    char *name;
    void *data;
    size_t size;
} ibr__artifact;

struct ibr_result {
    ibr_context *ctx;
    const ibr_topo *topo;
    int status;
    char engine[64];
    char last_error[IBR_ERRMSG_SIZE];
    uint64_t seed;
    unsigned int lmc_cap; /* ibr_options::lmc of the routing: LIDs past the
                             first 2^lmc_cap of a port were not asked for */
    ibr__attempt *attempts;
    size_t n_attempts;
    size_t lft_size;      /* max_lid + 1 */
    uint8_t *lft;         /* n_sw * lft_size, or NULL (failed result) */
    uint8_t *hops;        /* n_sw * n_sw, or NULL */
    ibr_sl_mode sl_mode;
    uint8_t *sl;          /* PER_DEST: lft_size; PER_PAIR: n_src * lft_size */
    uint32_t *sl2vl_off;  /* per switch offset into sl2vl, or NULL */
    uint8_t *sl2vl;       /* per switch (nports+1)^2 * 16 */
    unsigned int vls_used;
    ibr__mcast *mcast;
    size_t n_mcast;
    ibr__artifact *artifacts;
    size_t n_artifacts;
};

/* Source slot of a LID for per-pair SLs: end port index, or n_end + switch
   index; IBR_NONE when no port owns the LID. */
uint32_t ibr__src_slot(const ibr_topo *t, uint16_t lid);
uint32_t ibr__n_src_slots(const ibr_topo *t);

int ibr__result_new(ibr_result **out, const ibr_topo *t);
/* Allocate (and fill with IBR_NO_ROUTE) the LFT storage. */
int ibr__result_alloc_lft(ibr_result *r);
/* Drop everything an engine wrote (for a fresh attempt). */
void ibr__result_clear_tables(ibr_result *r);
int ibr__result_add_attempt(ibr_result *r, const char *name, int status, const char *msg);
int ibr__result_set_artifact(ibr_result *r, const char *name, const void *data, size_t size);
int ibr__result_alloc_hops(ibr_result *r);
/* VL of a hop through switch sw from in_port to out_port (both at most the
   switch's port count) on SL sl: its SL2VL entry, or sl without tables. */
unsigned ibr__hop_vl(const ibr_result *r, uint32_t sw, unsigned in_port, unsigned out_port,
                     unsigned sl);

/* ------------------------------------------------------------------ */
/* engine runs                                                         */

struct ibr_run {
    ibr_context *ctx;
    const ibr_topo *topo;
    ibr_result *res;
    ibr_options opts;       /* normalised to the current version */
    unsigned int nthreads;  /* resolved worker count, >= 1 */
    char message[IBR_ERRMSG_SIZE];
};

/* Built-in engines. */
typedef struct ibr__builtin {
    const char *name;
    const char *description;
    unsigned int caps;
    ibr_engine_route_fn route;
} ibr__builtin;

extern const ibr__builtin ibr__builtins[];
extern const size_t ibr__n_builtins;

/* Format a decline/fail message into the run and return the code. */
int ibr__run_decline(ibr_run *run, const char *fmt, ...) IBR_PRINTF(2, 3);
int ibr__run_fail(ibr_run *run, int code, const char *fmt, ...) IBR_PRINTF(3, 4);

/* ------------------------------------------------------------------ */
/* shared algorithms                                                   */

/* Parallel loop: calls fn(arg, worker, i) for i in [0, n) on nthreads
   workers (worker in [0, nthreads)). Items are handed out in blocks; fn
   must only write state owned by item i or by worker. Returns the first
   negative value fn returned (in item order), else 0. */
typedef int (*ibr__par_fn)(void *arg, unsigned int worker, size_t i);
int ibr__parallel_for(unsigned int nthreads, size_t n, ibr__par_fn fn, void *arg);
unsigned int ibr__resolve_threads(unsigned int requested);

/* All-pairs switch hop matrix over active links: d[a * n_sw + b] = hops from
   a to b (255 = unreachable or > 254). BFS from every switch, in parallel. */
int ibr__switch_hops(uint8_t **out, const ibr_topo *t, unsigned int nthreads);

/* splitmix64-seeded xoshiro256** PRNG */
typedef struct ibr__rng {
    uint64_t s[4];
} ibr__rng;
void ibr__rng_seed(ibr__rng *r, uint64_t seed);
uint64_t ibr__rng_next(ibr__rng *r);
/* uniform in [0, n) */
uint64_t ibr__rng_below(ibr__rng *r, uint64_t n);

#endif
