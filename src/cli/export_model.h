/*
 * export_model.h - what the simulator and scheduler exporters of `ibr
 * export` share: a growable text buffer, the end ports and switches of a
 * routed topology, and a walk of a route through the forwarding tables.
 * Everything is built in memory; cmd_export.c writes the files.
 */
#ifndef IBR_CLI_EXPORT_MODEL_H
#define IBR_CLI_EXPORT_MODEL_H

#include "cli.h"

#include <stddef.h>
#include <stdint.h>

/* A text being built; oom is set (and appending stops) when memory runs
   out. */
typedef struct xbuf {
    char *p;
    size_t len, cap;
    int oom;
} xbuf;

void xb_printf(xbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xb_puts(xbuf *b, const char *s);
/* @p s as a JSON string literal (with quotes). */
void xb_json_string(xbuf *b, const char *s);
/* @p s with &, <, >, " escaped for XML text and attributes. */
void xb_xml_text(xbuf *b, const char *s);
void xb_free(xbuf *b);

/* An end port: a CA or router port with a LID, cabled to a switch. */
typedef struct xep {
    uint32_t node;     /* topology node index */
    unsigned int port; /* port number on that node */
    uint64_t guid;     /* port GUID */
    uint16_t lid;      /* base LID */
    uint32_t sw;       /* switch index it is cabled to */
    unsigned int swport;
    const char *desc;  /* node description (borrowed from the topology) */
} xep;

/* The routed fabric as the exporters see it. */
typedef struct xfab {
    const ibr_topo *t;
    const ibr_result *r;
    uint32_t nsw;
    xep *eps;           /* in node order, then port order */
    size_t neps;
    size_t *sw_first;   /* eps of switch s: ep_idx[sw_first[s] .. sw_first[s + 1]) */
    size_t *ep_idx;     /* end ports grouped by switch, in switch index order */
    uint64_t *sw_guid;  /* node GUID of each switch */
    const char **sw_desc;
    uint32_t *live;     /* the switches with an active cable, in index order
                           (a switch whose cables are all down is not in
                           the subnet: it is left out of every format) */
    uint32_t nlive;
    uint32_t *rank;     /* position of each switch in live, IBR_NONE if not */
} xfab;

/* Build the model of @p r's topology. 0, or -1 with the error printed. */
int xfab_init(xfab *x, const ibr_result *r);
void xfab_dispose(xfab *x);

/* Walk the route from switch @p sw to end port @p e through the tables:
   the switch indexes after @p sw up to the end port's switch go to @p hops
   (room for x->nsw), their number to *n. 0, or -1 when the route is
   missing, leaves the fabric, loops or ends elsewhere; *why then names the
   reason. */
int xfab_walk(const xfab *x, uint32_t sw, const xep *e, uint32_t *hops, size_t *n,
              const char **why);

/* Switch-to-switch cables of switch @p sw in port order: the remote
   switch index of each active cable to another switch, IBR_NONE for any
   other port (ports 1..nports, index port - 1). Returns nports, or -1. */
int xfab_sw_neighbours(const xfab *x, uint32_t sw, uint32_t *remote, unsigned int cap);

/* The first word of a node description (its host name), at most @p cap - 1
   bytes, with characters outside [A-Za-z0-9._-] replaced by '_'; "" for
   an empty description. */
void xfab_host_name(char *out, size_t cap, const char *desc);

#endif
