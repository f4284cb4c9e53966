/*
 * The ibnetdiscover / ibsim netfile reader's private model, shared by its
 * stages:
 *
 *   lex.c      the dialect's tokens ("[3]", "(guid)", "[ext 2]", "4xQDR",
 *              "S-<hex>" ids) on top of the formats' lexer (formats/lex.h);
 *   parse.c    the text into records: one per node, one per listed port
 *              (the dialect is described there);
 *   resolve.c  cross-references: node ids, both ends of every link, final
 *              port GUIDs and their uniqueness;
 *   build.c    the records into a temporary fabric through the public
 *              builder calls, handed to the caller only when all succeeded
 *              (ibr_fabric_parse_ibnetdiscover());
 *   write.c    the other way: a topology as ibnetdiscover text.
 *
 * Records point into the caller's text (ibr__span) and live as long as the
 * parse. Every stage reports through ibr__ibn_err(), which names the line.
 */
#ifndef IBROUTE_IBNETDISCOVER_INT_H
#define IBROUTE_IBNETDISCOVER_INT_H

#include "core/internal.h"
#include "formats/lex.h"

/* A node record: a "Switch", "Ca"/"Hca" or "Rt"/"Router" header line. */
typedef struct ibn_node {
    ibr__span id;
    ibr__span desc;
    uint64_t guid;
    uint64_t port_guid; /* switch: explicit port GUID, 0 = none */
    uint64_t sysimg;    /* 0 = none */
    uint32_t line;
    uint32_t first;     /* first port record */
    uint32_t count;     /* number of port records */
    uint32_t slot;      /* offset of port 0 in the slot table */
    uint16_t lid;
    uint8_t lmc;
    uint8_t type;       /* ibr_node_type */
    uint8_t nports;
    uint8_t desc_is_id; /* no description: use the id, as ibsim does */
    uint8_t dup;        /* repeats an earlier record exactly */
    uint8_t may_repeat; /* under "# Chassis Switches" (ibnetdiscover -g), where
                           a chassis's spine and line switches are printed a
                           second time */
} ibn_node;

/* A port record: one "[p] ... "remote id"[rp] ..." line. */
typedef struct ibn_port {
    ibr__span rid;
    uint64_t guid;  /* local port GUID printed, 0 = none */
    uint64_t rguid; /* remote port GUID printed, 0 = none */
    uint32_t line;
    uint32_t node;  /* owning record */
    uint32_t rnode; /* resolved remote record */
    uint16_t lid;   /* local LID (CA/router) */
    uint16_t smask; /* bit (1 << ibr_link_speed) per enabled speed */
    uint8_t wmask;  /* ibr_link_width bits */
    uint16_t en_smask; /* enabled speeds (w=/s=/e= or the file's defaults), */
    uint8_t en_wmask;  /* 0 = not given: the active ones */
    uint8_t vl_cap;    /* data VLs from "v=" (ibnetdiscover -f), 0 = none */
    uint8_t port;
    uint8_t rport;
    uint8_t lmc;
    uint8_t down;
} ibn_port;

/* Node kinds as the GUID counters index them. */
enum { IBN_CA = 0, IBN_SW = 1, IBN_RT = 2, IBN_NKINDS = 3 };

typedef struct ibn_parser {
    ibr_context *ctx;
    ibn_node *nodes;
    size_t n_nodes, cap_nodes;
    ibn_port *ports;
    size_t n_ports, cap_ports;
    /* GUID counters, ibsim style */
    uint64_t base[IBN_NKINDS], cnt[IBN_NKINDS];
    int explicit_guid[IBN_NKINDS];
    uint64_t pending_port_guid; /* from switchguid=X(Y) */
    uint64_t pending_sysimg;
    /* default enabled masks from width= / speed= / extspeed= */
    uint8_t def_wmask;
    uint16_t def_smask;
    uint16_t def_emask; /* already translated to speed bits */
    uint32_t cur;       /* current record, IBR_NONE outside a record */
    int chassis_switches; /* in a "# Chassis Switches" section (-g output) */
    char msg[IBR_ERRMSG_SIZE];
} ibn_parser;

/* Record the message "line N: ..." (no prefix for line 0) and return code. */
int ibr__ibn_err(ibn_parser *ps, int code, uint32_t line, const char *fmt, ...) IBR_PRINTF(4, 5);
/* IBR_ENOMEM with its message. */
int ibr__ibn_nomem(ibn_parser *ps);

/* lex.c: each returns -1 (or 0 for "absent") with the cursor unchanged
   when the text does not match. */
/* "[n]" (blanks allowed inside), n in 0..255. */
int ibr__ibn_bracket_num(ibr__cur *c, unsigned *out);
/* Skip an ibnetdiscover -g "[ext N]" mapping, if there is one: 0, or -1
   (cursor unchanged) when "[ext" is not followed by a number and ']'. */
int ibr__ibn_skip_ext(ibr__cur *c);
/* Blanks, then "(hex)": 1 when present, 0 when absent, -1 on garbage. */
int ibr__ibn_paren_guid(ibr__cur *c, uint64_t *out);
/* Is id "S-<hex>", "H-<hex>" or "R-<hex>" (1..16 digits)? 1 with *out. */
int ibr__ibn_guid_from_id(ibr__span id, uint64_t *out);
/* "<W>x<S>" as ibnetdiscover prints the active width and speed: 1 when
   the token has that shape (masks 0 when a part is unknown), else 0. */
int ibr__ibn_width_speed(ibr__span t, uint8_t *wmask, uint16_t *smask);

/* parse.c: read the text into records (ps zeroed but for ctx). */
int ibr__ibn_parse(ibn_parser *ps, const char *buf, size_t len);

/* resolve.c */
/* Resolve remote ids (dropping records that repeat an earlier one), fill
   the port slot table (*slots_out, the record of each node port; freed by
   the caller) and check that every link is listed from both ends. */
int ibr__ibn_resolve(ibn_parser *ps, uint32_t **slots_out);
/* Final GUID of port p of record i (see resolve.c). */
uint64_t ibr__ibn_final_port_guid(const ibn_parser *ps, const uint32_t *slot, uint32_t i,
                                  unsigned p);
/* Line to blame for port p of record i. */
uint32_t ibr__ibn_port_line(const ibn_parser *ps, const uint32_t *slot, uint32_t i, unsigned p);
/* Check node GUIDs and final port GUIDs for duplicates; finals receives
   every final port GUID (value: slot index). */
int ibr__ibn_check_guids(ibn_parser *ps, const uint32_t *slot, ibr__guidmap *finals);

#endif
