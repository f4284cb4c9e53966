/*
 * Topology text: ibnetdiscover output and ibsim netfiles.
 *
 * The parser reads the text into records first (one per node, one per
 * listed port), then resolves node ids, checks that every link is listed
 * from both ends, and checks GUIDs, and only then builds a temporary fabric
 * with the public builder calls. The caller's fabric receives the content
 * only when everything succeeded, so a failed parse leaves it empty.
 *
 * Dialect (see reference/formats-ibnetdiscover.md):
 *  - lines are dispatched on their first word; "#" lines, blank lines and
 *    unknown lines (e.g. "Chassis 1 ...", "Non-Chassis Nodes") are skipped;
 *  - "vendid=", "devid=" are accepted and ignored; "sysimgguid=" applies to
 *    the next node; "switchguid=", "caguid=" / "hcaguids=", "rtguid=" set
 *    the GUID counter of their node type as ibsim does ("=V" absolute,
 *    "+V" relative to the base), and the next node of that type takes it;
 *  - a node without such a line takes the GUID written in an
 *    "S-"/"H-"/"R-<hex>" id, else the counter (ibsim bases: CAs 0x100000,
 *    switches 0x200000; routers 0x300000, where ibsim has no usable base);
 *  - "width=", "speed=", "extspeed=" set default enabled masks for later
 *    ports, as in ibsim;
 *  - port lines: [p][ext e](port guid) "remote id"[rp][ext e](remote port
 *    guid) # annotation; the remote port defaults to 1; the annotation may
 *    carry "lid N lmc M" (local LID of a CA/router port), "lid N <W>x<S>"
 *    (far end LID, active width and speed), "w= s= e= v=" options and the
 *    ibroute extension "(down)" for a link in the down state.
 *  - ibsim-only constructs that need files or aliases ("include",
 *    "module=", "@" aliases) are rejected.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"
#include "core/internal.h"
#include "formats/lex.h"

/* ------------------------------------------------------------------ */
/* records                                                             */

typedef struct span {
    const char *p;
    size_t n;
} span;

typedef struct nrec {
    span id;
    span desc;
    uint64_t guid;
    uint64_t port_guid; /* switch: explicit port GUID, 0 = none */
    uint64_t sysimg;    /* 0 = none */
    uint32_t line;
    uint32_t first;     /* first port record */
    uint32_t count;     /* number of port records */
    uint32_t slot;      /* offset of port 0 in the slot table */
    uint16_t lid;
    uint8_t lmc;
    uint8_t type;
    uint8_t nports;
    uint8_t desc_is_id; /* no description: use the id, as ibsim does */
    uint8_t dup;        /* repeats an earlier record exactly */
} nrec;

typedef struct prec {
    span rid;
    uint64_t guid;  /* local port GUID printed, 0 = none */
    uint64_t rguid; /* remote port GUID printed, 0 = none */
    uint32_t line;
    uint32_t node;  /* owning record */
    uint32_t rnode; /* resolved remote record */
    uint16_t lid;   /* local LID (CA/router) */
    uint16_t smask; /* bit (1 << ibr_link_speed) per enabled speed */
    uint8_t wmask;  /* ibr_link_width bits */
    uint8_t port;
    uint8_t rport;
    uint8_t lmc;
    uint8_t down;
} prec;

enum { T_CA = 0, T_SW = 1, T_RT = 2, T_N = 3 };

typedef struct parser {
    ibr_context *ctx;
    nrec *nodes;
    size_t n_nodes, cap_nodes;
    prec *ports;
    size_t n_ports, cap_ports;
    /* GUID counters, ibsim style */
    uint64_t base[T_N], cnt[T_N];
    int explicit_guid[T_N];
    uint64_t pending_port_guid; /* from switchguid=X(Y) */
    uint64_t pending_sysimg;
    /* default enabled masks from width= / speed= / extspeed= */
    uint8_t def_wmask;
    uint16_t def_smask;
    uint16_t def_emask; /* already translated to speed bits */
    uint32_t cur;       /* current record, IBR_NONE outside a record */
    char msg[IBR_ERRMSG_SIZE];
} parser;

static int perr(parser *ps, int code, uint32_t line, const char *fmt, ...) IBR_PRINTF(4, 5);

static int perr(parser *ps, int code, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(ps->msg, code, line, fmt, ap);
    va_end(ap);
    return code;
}

static int nomem(parser *ps)
{
    return perr(ps, IBR_ENOMEM, 0, "out of memory parsing the topology");
}

/* ------------------------------------------------------------------ */
/* scanning                                                            */

typedef struct cur {
    const char *p, *e;
} cur;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int is_alnum(char c)
{
    return hexval(c) >= 0 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static void skip_ws(cur *c)
{
    while (c->p < c->e && is_space(*c->p))
        c->p++;
}

static int at(const cur *c, char ch)
{
    return c->p < c->e && *c->p == ch;
}

/* Unsigned number. base 0: C detection (0x hex, leading 0 octal, else
   decimal) as strtoull(s, NULL, 0); 16: hex with optional 0x; 10: decimal.
   Returns 0, or -1 when there are no digits or the value overflows. */
static int scan_num(cur *c, int base, uint64_t *out)
{
    const char *p = c->p, *e = c->e;
    if (base == 0 || base == 16) {
        if (e - p >= 3 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hexval(p[2]) >= 0) {
            p += 2;
            base = 16;
        } else if (base == 0) {
            base = (p < e && *p == '0') ? 8 : 10;
        }
    }
    uint64_t v = 0;
    const char *start = p;
    for (; p < e; p++) {
        int d = hexval(*p);
        if (d < 0 || d >= base)
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return -1;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (p == start)
        return -1;
    *out = v;
    c->p = p;
    return 0;
}

/* The word at the start of a line: letters, digits, '_' and '-'. */
static span scan_word(cur *c)
{
    span w = {c->p, 0};
    while (c->p < c->e && (is_alnum(*c->p) || *c->p == '-'))
        c->p++;
    w.n = (size_t)(c->p - w.p);
    return w;
}

static int span_eq(span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* "[n]" -> n (0..255). */
static int scan_bracket_num(cur *c, unsigned *out)
{
    cur t = *c;
    uint64_t v;
    if (!at(&t, '['))
        return -1;
    t.p++;
    skip_ws(&t);
    if (!(t.p < t.e && is_digit(*t.p)) || scan_num(&t, 10, &v) < 0 || v > 255)
        return -1;
    skip_ws(&t);
    if (!at(&t, ']'))
        return -1;
    t.p++;
    *out = (unsigned)v;
    *c = t;
    return 0;
}

/* Skip an ibnetdiscover -g "[ext N]" mapping. */
static void skip_ext(cur *c)
{
    if (c->e - c->p >= 4 && memcmp(c->p, "[ext", 4) == 0) {
        const char *q = memchr(c->p, ']', (size_t)(c->e - c->p));
        if (q)
            c->p = q + 1;
    }
}

/* "(hex)" -> value; returns 1 when present, 0 when absent, -1 on garbage. */
static int scan_paren_guid(cur *c, uint64_t *out)
{
    cur t = *c;
    skip_ws(&t);
    if (!at(&t, '('))
        return 0;
    t.p++;
    skip_ws(&t);
    if (scan_num(&t, 16, out) < 0)
        return -1;
    skip_ws(&t);
    if (!at(&t, ')'))
        return -1;
    t.p++;
    *c = t;
    return 1;
}

/* Quoted string: c at the opening quote. The string ends at the next quote. */
static int scan_quoted(cur *c, span *out)
{
    if (!at(c, '"'))
        return -1;
    const char *s = c->p + 1;
    const char *q = memchr(s, '"', (size_t)(c->e - s));
    if (!q)
        return -1;
    out->p = s;
    out->n = (size_t)(q - s);
    c->p = q + 1;
    return 0;
}

/* Next whitespace-separated token of c; empty span at the end. */
static span next_token(cur *c)
{
    skip_ws(c);
    span t = {c->p, 0};
    while (c->p < c->e && !is_space(*c->p))
        c->p++;
    t.n = (size_t)(c->p - t.p);
    return t;
}

/* A whole token as a number (base 0); -1 unless the token is all number. */
static int token_num(span t, uint64_t *out)
{
    cur c = {t.p, t.p + t.n};
    if (!t.n || scan_num(&c, 0, out) < 0 || c.p != c.e)
        return -1;
    return 0;
}

/* "<W>x<S>" as ibnetdiscover prints the active width and speed. Returns 1
   when the token has that shape (masks 0 when a part is unknown), else 0. */
static int width_speed_token(span t, uint8_t *wmask, uint16_t *smask)
{
    static const struct {
        const char *s;
        ibr_link_speed v;
    } speeds[] = {{"SDR", IBR_SPEED_SDR}, {"DDR", IBR_SPEED_DDR},     {"QDR", IBR_SPEED_QDR},
                  {"FDR10", IBR_SPEED_FDR10}, {"FDR", IBR_SPEED_FDR}, {"EDR", IBR_SPEED_EDR},
                  {"HDR", IBR_SPEED_HDR}, {"NDR", IBR_SPEED_NDR},     {"XDR", IBR_SPEED_XDR}};
    const char *x = memchr(t.p, 'x', t.n);
    if (!x || x == t.p)
        return 0;
    span w = {t.p, (size_t)(x - t.p)}, s = {x + 1, t.n - (size_t)(x - t.p) - 1};
    if (!s.n)
        return 0;
    uint8_t wm = 0;
    if (span_eq(w, "1"))
        wm = IBR_WIDTH_1X;
    else if (span_eq(w, "2"))
        wm = IBR_WIDTH_2X;
    else if (span_eq(w, "4"))
        wm = IBR_WIDTH_4X;
    else if (span_eq(w, "8"))
        wm = IBR_WIDTH_8X;
    else if (span_eq(w, "12"))
        wm = IBR_WIDTH_12X;
    else if (!span_eq(w, "??"))
        return 0;
    uint16_t sm = 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (span_eq(s, speeds[i].s))
            sm = (uint16_t)(1u << speeds[i].v);
    if (!sm) {
        for (size_t i = 0; i < s.n; i++)
            if (s.p[i] != '?')
                return 0;
    }
    *wmask = wm;
    *smask = sm;
    return 1;
}

/* IB LinkSpeedEnabled bits (1 SDR, 2 DDR, 4 QDR) as speed bits. */
static uint16_t speed_bits(uint64_t ib)
{
    uint16_t m = 0;
    if (ib & 1)
        m |= 1u << IBR_SPEED_SDR;
    if (ib & 2)
        m |= 1u << IBR_SPEED_DDR;
    if (ib & 4)
        m |= 1u << IBR_SPEED_QDR;
    return m;
}

/* IB LinkSpeedExtEnabled bits (1 FDR, 2 EDR, 4 HDR, 8 NDR) as speed bits. */
static uint16_t ext_speed_bits(uint64_t ib)
{
    uint16_t m = 0;
    if (ib & 1)
        m |= 1u << IBR_SPEED_FDR;
    if (ib & 2)
        m |= 1u << IBR_SPEED_EDR;
    if (ib & 4)
        m |= 1u << IBR_SPEED_HDR;
    if (ib & 8)
        m |= 1u << IBR_SPEED_NDR;
    return m;
}

/* ------------------------------------------------------------------ */
/* line handlers                                                       */

static int type_of_word(span w)
{
    if (span_eq(w, "Switch"))
        return T_SW;
    if (span_eq(w, "Ca") || span_eq(w, "Hca"))
        return T_CA;
    if (span_eq(w, "Rt") || span_eq(w, "Router"))
        return T_RT;
    return -1;
}

static const uint8_t type_code[T_N] = {IBR_NODE_CA, IBR_NODE_SWITCH, IBR_NODE_ROUTER};

/* "key=value" or "key+value" lines. */
static int parse_assignment(parser *ps, span key, cur *c, uint32_t line)
{
    int guid_type = -1;
    if (span_eq(key, "switchguid"))
        guid_type = T_SW;
    else if (span_eq(key, "caguid") || span_eq(key, "hcaguids"))
        guid_type = T_CA;
    else if (span_eq(key, "rtguid"))
        guid_type = T_RT;
    skip_ws(c);
    int relative = 0;
    if (at(c, '+') && guid_type >= 0)
        relative = 1;
    else if (!at(c, '='))
        return perr(ps, IBR_EPARSE, line, "expected '=' after \"%.*s\"", (int)key.n, key.p);
    c->p++;
    skip_ws(c);
    uint64_t v;
    if (scan_num(c, 0, &v) < 0)
        return perr(ps, IBR_EPARSE, line, "bad value for \"%.*s\"", (int)key.n, key.p);
    if (guid_type >= 0) {
        if (relative) {
            ps->cnt[guid_type] = ps->base[guid_type] + v;
        } else {
            ps->base[guid_type] = v;
            ps->cnt[guid_type] = v;
        }
        ps->explicit_guid[guid_type] = 1;
        if (guid_type == T_SW) {
            uint64_t pg = 0;
            int r = scan_paren_guid(c, &pg);
            if (r < 0)
                return perr(ps, IBR_EPARSE, line, "bad port GUID after switchguid");
            ps->pending_port_guid = r > 0 ? pg : 0;
        }
    } else if (span_eq(key, "sysimgguid")) {
        ps->pending_sysimg = v;
    } else if (span_eq(key, "width")) {
        if (v < 1 || v > 31)
            return perr(ps, IBR_EPARSE, line, "width=%" PRIu64 ": enabled width mask must be 1..31",
                        v);
        ps->def_wmask = (uint8_t)v;
    } else if (span_eq(key, "speed")) {
        if (v < 1 || v > 7)
            return perr(ps, IBR_EPARSE, line, "speed=%" PRIu64 ": enabled speed mask must be 1..7",
                        v);
        ps->def_smask = speed_bits(v);
    } else if (span_eq(key, "extspeed")) {
        if (v > 15)
            return perr(ps, IBR_EPARSE, line,
                        "extspeed=%" PRIu64 ": extended speed mask must be 0..15", v);
        ps->def_emask = ext_speed_bits(v);
    }
    /* vendid, devid: accepted, not kept */
    return 0;
}

/* Is id "S-<hex>", "H-<hex>" or "R-<hex>" (1..16 digits)? */
static int guid_from_id(span id, uint64_t *out)
{
    if (id.n < 3 || id.n > 18 || id.p[1] != '-' ||
        (id.p[0] != 'S' && id.p[0] != 'H' && id.p[0] != 'R'))
        return 0;
    uint64_t v = 0;
    for (size_t i = 2; i < id.n; i++) {
        int d = hexval(id.p[i]);
        if (d < 0)
            return 0;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 1;
}

/* Find the first of the ibsim description terminators in [p, e). */
static const char *find_desc_end(const char *p, const char *e)
{
    static const char *const stops[] = {" enhanced port ", " base port ", " lid ", " lmc "};
    const char *best = e;
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        size_t n = strlen(stops[i]);
        for (const char *q = p; q + n <= best; q++)
            if (memcmp(q, stops[i], n) == 0) {
                best = q;
                break;
            }
    }
    return best;
}

static int parse_header(parser *ps, int type, cur *c, uint32_t line)
{
    uint64_t nports;
    skip_ws(c);
    if (!(c->p < c->e && is_digit(*c->p)) || scan_num(c, 10, &nports) < 0)
        return perr(ps, IBR_EPARSE, line, "missing port count in node header");
    if (nports < 1 || nports > IBR_MAX_PORTS)
        return perr(ps, IBR_EPARSE, line, "%" PRIu64 " ports (must be 1..%d)", nports,
                    IBR_MAX_PORTS);
    skip_ws(c);
    span id;
    if (scan_quoted(c, &id) < 0)
        return perr(ps, IBR_EPARSE, line, "missing quoted node id in node header");
    if (!id.n)
        return perr(ps, IBR_EPARSE, line, "empty node id");
    if (memchr(id.p, '@', id.n))
        return perr(ps, IBR_EPARSE, line, "node id \"%.*s\": ibsim aliases are not supported",
                    (int)id.n, id.p);

    /* description and the rest */
    span desc = {NULL, 0};
    int desc_is_id = 1;
    cur tail = *c;
    const char *hash = memchr(c->p, '#', (size_t)(c->e - c->p));
    if (hash) {
        cur d = {hash + 1, c->e};
        skip_ws(&d);
        if (at(&d, '"')) {
            /* quoted: up to the last quote of the line, so that quotes in
               descriptions survive */
            const char *last = d.e;
            while (last > d.p + 1 && last[-1] != '"')
                last--;
            if (last > d.p + 1) {
                desc.p = d.p + 1;
                desc.n = (size_t)(last - 1 - desc.p);
                tail.p = last;
            } else {
                desc.p = d.p + 1;
                desc.n = (size_t)(d.e - desc.p);
                tail.p = d.e;
            }
            desc_is_id = 0;
        } else {
            const char *end = find_desc_end(d.p, d.e);
            while (end > d.p && is_space(end[-1]))
                end--;
            desc.p = d.p;
            desc.n = (size_t)(end - d.p);
            tail.p = end;
            desc_is_id = desc.n == 0;
        }
    }
    /* lid / lmc of a switch */
    uint64_t lid = 0, lmc = 0;
    int got_lid = 0, got_lmc = 0;
    for (;;) {
        span t = next_token(&tail);
        if (!t.n)
            break;
        if (!got_lid && span_eq(t, "lid")) {
            if (token_num(next_token(&tail), &lid) < 0 || lid > IBR_MAX_UNICAST_LID)
                return perr(ps, IBR_EPARSE, line, "bad switch LID");
            got_lid = 1;
        } else if (!got_lmc && span_eq(t, "lmc")) {
            if (token_num(next_token(&tail), &lmc) < 0 || lmc > 7)
                return perr(ps, IBR_EPARSE, line, "bad switch LMC");
            got_lmc = 1;
        }
    }

    if (ibr__grow(ps->ctx, (void **)&ps->nodes, &ps->cap_nodes, ps->n_nodes + 1,
                  sizeof *ps->nodes) < 0)
        return nomem(ps);
    if (ps->n_nodes >= INT32_MAX)
        return perr(ps, IBR_EPARSE, line, "too many nodes");
    nrec *n = &ps->nodes[ps->n_nodes];
    memset(n, 0, sizeof *n);
    n->id = id;
    n->desc = desc;
    n->desc_is_id = (uint8_t)desc_is_id;
    n->line = line;
    n->type = type_code[type];
    n->nports = (uint8_t)nports;
    n->first = (uint32_t)ps->n_ports;
    if (type == T_SW) {
        n->lid = (uint16_t)lid;
        n->lmc = (uint8_t)lmc;
    }
    uint64_t g = 0;
    if (ps->explicit_guid[type] || !guid_from_id(id, &g))
        g = ps->cnt[type];
    if (type == T_SW && ps->explicit_guid[type])
        n->port_guid = ps->pending_port_guid;
    n->guid = g;
    n->sysimg = ps->pending_sysimg;
    ps->cnt[type] += type == T_SW ? 1 : nports + 1;
    ps->explicit_guid[type] = 0;
    ps->pending_port_guid = 0;
    ps->pending_sysimg = 0;
    if (!g)
        return perr(ps, IBR_EPARSE, line, "node \"%.*s\": node GUID 0", (int)id.n, id.p);
    ps->cur = (uint32_t)ps->n_nodes++;
    return 0;
}

/* The annotation of a port line: everything after the remote part. */
static int parse_annotation(parser *ps, prec *pr, int end_node, cur c, uint32_t line)
{
    /* the one quoted string (remote description) runs from the first to
       the last quote of the line (the whole rest when it is unterminated) */
    const char *q1 = memchr(c.p, '"', (size_t)(c.e - c.p));
    const char *qend = NULL;
    if (q1) {
        qend = c.e;
        for (const char *x = c.e - 1; x > q1; x--)
            if (*x == '"') {
                qend = x + 1;
                break;
            }
    }
    int seen_quote = 0, got_local = 0, got_lmc = 0;
    uint8_t wm = 0;
    uint16_t sm = 0;
    int got_ws = 0;
    uint8_t opt_w = 0;
    uint16_t opt_s = 0, opt_e = 0;
    int got_opt_s = 0, got_opt_e = 0;
    for (;;) {
        skip_ws(&c);
        if (c.p >= c.e)
            break;
        if (q1 && c.p == q1) {
            seen_quote = 1;
            c.p = qend;
            continue;
        }
        span t = next_token(&c);
        if (q1 && t.p < q1 && t.p + t.n > q1) {
            /* a token running into the quoted part */
            t.n = (size_t)(q1 - t.p);
            c.p = q1;
        }
        uint64_t v;
        if (span_eq(t, "lid")) {
            cur save = c;
            span nt = next_token(&c);
            if (token_num(nt, &v) < 0 || v > 0xFFFF) {
                c = save;
                continue;
            }
            cur peek = c;
            span wt = next_token(&peek);
            uint8_t w2;
            uint16_t s2;
            if (wt.n && width_speed_token(wt, &w2, &s2)) {
                /* far end LID and the link's width and speed */
                wm = w2;
                sm = s2;
                got_ws = 1;
                c = peek;
            } else if (end_node && !seen_quote && !got_local) {
                if (v > IBR_MAX_UNICAST_LID)
                    return perr(ps, IBR_EPARSE, line, "LID %" PRIu64 " beyond 0x%X", v,
                                IBR_MAX_UNICAST_LID);
                pr->lid = (uint16_t)v;
                got_local = 1;
            }
        } else if (span_eq(t, "lmc")) {
            cur save = c;
            if (token_num(next_token(&c), &v) < 0) {
                c = save;
                continue;
            }
            if (end_node && got_local && !got_lmc && !seen_quote) {
                if (v > 7)
                    return perr(ps, IBR_EPARSE, line, "LMC %" PRIu64 " (max 7)", v);
                pr->lmc = (uint8_t)v;
                got_lmc = 1;
            }
        } else if (span_eq(t, "(down)")) {
            pr->down = 1;
        } else if (t.n >= 2 && t.p[1] == '=' &&
                   ((t.p[0] >= 'a' && t.p[0] <= 'z') || (t.p[0] >= 'A' && t.p[0] <= 'Z'))) {
            span val = {t.p + 2, t.n - 2};
            char k = t.p[0];
            if (k != 'w' && k != 's' && k != 'e')
                continue; /* v= and unknown options are ignored */
            if (token_num(val, &v) < 0)
                return perr(ps, IBR_EPARSE, line, "bad port option \"%.*s\"", (int)t.n, t.p);
            if (k == 'w') {
                if (v < 1 || v > 31)
                    return perr(ps, IBR_EPARSE, line, "w=%" PRIu64 ": width mask must be 1..31",
                                v);
                opt_w = (uint8_t)v;
            } else if (k == 's') {
                if (v > 7)
                    return perr(ps, IBR_EPARSE, line, "s=%" PRIu64 ": speed mask must be 0..7",
                                v);
                opt_s = speed_bits(v ? v : 4); /* 0 means QDR, as in ibsim */
                got_opt_s = 1;
            } else {
                if (v > 15)
                    return perr(ps, IBR_EPARSE, line,
                                "e=%" PRIu64 ": extended speed mask must be 0..15", v);
                opt_e = ext_speed_bits(v);
                got_opt_e = 1;
            }
        } else {
            uint8_t w2;
            uint16_t s2;
            if (width_speed_token(t, &w2, &s2)) {
                wm = w2;
                sm = s2;
                got_ws = 1;
            }
        }
    }
    /* printed active values win over enabled masks, which win over the
       file-wide defaults */
    uint8_t w = opt_w ? opt_w : ps->def_wmask;
    uint16_t s = (uint16_t)((got_opt_s ? opt_s : ps->def_smask) |
                            (got_opt_e ? opt_e : ps->def_emask));
    if (got_ws && wm)
        w = wm;
    if (got_ws && sm)
        s = sm;
    pr->wmask = w;
    pr->smask = s;
    return 0;
}

static int parse_port_line(parser *ps, cur *c, uint32_t line)
{
    nrec *n = &ps->nodes[ps->cur];
    unsigned port, rport = 1;
    if (scan_bracket_num(c, &port) < 0)
        return perr(ps, IBR_EPARSE, line, "bad port number in port line");
    if (port < 1 || port > n->nports)
        return perr(ps, IBR_EPARSE, line, "port %u out of range (node \"%.*s\" has %u ports)", port,
                    (int)n->id.n, n->id.p, (unsigned)n->nports);
    skip_ext(c);
    uint64_t guid = 0, rguid = 0;
    int r = scan_paren_guid(c, &guid);
    if (r < 0)
        return perr(ps, IBR_EPARSE, line, "bad port GUID in parentheses");
    skip_ws(c);
    span rid;
    if (scan_quoted(c, &rid) < 0 || !rid.n)
        return perr(ps, IBR_EPARSE, line, "missing quoted remote node id");
    if (memchr(rid.p, '@', rid.n))
        return perr(ps, IBR_EPARSE, line, "remote id \"%.*s\": ibsim aliases are not supported",
                    (int)rid.n, rid.p);
    if (at(c, '[') && c->p + 1 < c->e && (is_digit(c->p[1]) || is_space(c->p[1]))) {
        if (scan_bracket_num(c, &rport) < 0 || rport < 1)
            return perr(ps, IBR_EPARSE, line, "bad remote port number");
    }
    skip_ext(c);
    r = scan_paren_guid(c, &rguid);
    if (r < 0)
        return perr(ps, IBR_EPARSE, line, "bad remote port GUID in parentheses");

    if (ibr__grow(ps->ctx, (void **)&ps->ports, &ps->cap_ports, ps->n_ports + 1,
                  sizeof *ps->ports) < 0)
        return nomem(ps);
    prec *pr = &ps->ports[ps->n_ports];
    memset(pr, 0, sizeof *pr);
    pr->rid = rid;
    pr->guid = n->type == IBR_NODE_SWITCH ? 0 : guid;
    pr->rguid = rguid;
    pr->line = line;
    pr->node = ps->cur;
    pr->rnode = IBR_NONE;
    pr->port = (uint8_t)port;
    pr->rport = (uint8_t)rport;
    int rc = parse_annotation(ps, pr, n->type != IBR_NODE_SWITCH, *c, line);
    if (rc < 0)
        return rc;
    ps->n_ports++;
    n->count++;
    return 0;
}

static int parse_lines(parser *ps, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    uint32_t line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line++;
        cur c = {p, le};
        p = nl ? nl + 1 : end;
        while (c.e > c.p && (c.e[-1] == '\r' || is_space(c.e[-1])))
            c.e--;
        skip_ws(&c);
        if (c.p >= c.e) { /* blank line ends a record */
            ps->cur = IBR_NONE;
            continue;
        }
        char ch = *c.p;
        if (ch == '#')
            continue;
        if (ch == '[') {
            if (ps->cur == IBR_NONE)
                return perr(ps, IBR_EPARSE, line, "port line outside a node record");
            int rc = parse_port_line(ps, &c, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (ch == '@')
            return perr(ps, IBR_EPARSE, line, "ibsim port aliases are not supported");
        ps->cur = IBR_NONE;
        cur w = c;
        span word = scan_word(&w);
        int type = type_of_word(word);
        if (type >= 0 && (w.p >= w.e || is_space(*w.p) || is_digit(*w.p))) {
            int rc = parse_header(ps, type, &w, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (span_eq(word, "switchguid") || span_eq(word, "caguid") ||
            span_eq(word, "hcaguids") || span_eq(word, "rtguid") ||
            span_eq(word, "sysimgguid") || span_eq(word, "vendid") || span_eq(word, "devid") ||
            span_eq(word, "width") || span_eq(word, "speed") || span_eq(word, "extspeed")) {
            int rc = parse_assignment(ps, word, &w, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (span_eq(word, "include") || span_eq(word, "module"))
            return perr(ps, IBR_EPARSE, line, "ibsim \"%.*s\" is not supported", (int)word.n,
                        word.p);
        /* anything else ("Chassis 1 ...", "Non-Chassis Nodes", "do ...",
           "Hostname: ..."): not topology, skipped */
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* resolution                                                          */

static uint64_t hash_span(span s)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < s.n; i++) {
        h ^= (unsigned char)s.p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

typedef struct idmap {
    uint32_t *slots; /* record index + 1, 0 = empty */
    size_t cap;
} idmap;

/* Does record b repeat record a (same node, same port lines)? Newer
   ibnetdiscover -g can print a chassis switch both under "# Spine Nodes" /
   "# Line Nodes" and again under "# Chassis Switches". */
static int same_record(const parser *ps, const nrec *a, const nrec *b)
{
    if (a->type != b->type || a->nports != b->nports || a->guid != b->guid ||
        a->count != b->count || a->lid != b->lid)
        return 0;
    for (uint32_t k = 0; k < a->count; k++) {
        const prec *x = &ps->ports[a->first + k], *y = &ps->ports[b->first + k];
        if (x->port != y->port || x->rport != y->rport || x->rid.n != y->rid.n ||
            memcmp(x->rid.p, y->rid.p, x->rid.n) != 0 || x->lid != y->lid)
            return 0;
    }
    return 1;
}

/* Map ids to records. With dedup, a record repeating an earlier one is
   marked dup; any other repeated id is an error. */
static int idmap_build(parser *ps, idmap *m, int dedup)
{
    size_t cap = 16;
    while (cap < ps->n_nodes * 2)
        cap *= 2;
    m->slots = ibr__calloc(ps->ctx, cap, sizeof *m->slots);
    if (!m->slots)
        return nomem(ps);
    m->cap = cap;
    for (size_t i = 0; i < ps->n_nodes; i++) {
        nrec *n = &ps->nodes[i];
        span id = n->id;
        size_t s = (size_t)hash_span(id) & (cap - 1);
        int found = 0;
        while (m->slots[s]) {
            const nrec *o = &ps->nodes[m->slots[s] - 1];
            if (o->id.n == id.n && memcmp(o->id.p, id.p, id.n) == 0) {
                if (!dedup || !same_record(ps, o, n))
                    return perr(ps, IBR_EPARSE, n->line,
                                "duplicate node id \"%.*s\" (first defined on line %" PRIu32 ")",
                                (int)id.n, id.p, o->line);
                n->dup = 1;
                found = 1;
                break;
            }
            s = (s + 1) & (cap - 1);
        }
        if (!found)
            m->slots[s] = (uint32_t)i + 1;
    }
    return 0;
}

/* Drop records marked dup (and their port records). */
static void compact(parser *ps)
{
    size_t nn = 0, np = 0;
    for (size_t i = 0; i < ps->n_nodes; i++) {
        nrec n = ps->nodes[i];
        if (n.dup)
            continue;
        for (uint32_t k = 0; k < n.count; k++) {
            prec pr = ps->ports[n.first + k];
            pr.node = (uint32_t)nn;
            ps->ports[np + k] = pr;
        }
        n.first = (uint32_t)np;
        np += n.count;
        ps->nodes[nn++] = n;
    }
    ps->n_nodes = nn;
    ps->n_ports = np;
}

static uint32_t idmap_get(const parser *ps, const idmap *m, span id)
{
    size_t s = (size_t)hash_span(id) & (m->cap - 1);
    while (m->slots[s]) {
        const nrec *o = &ps->nodes[m->slots[s] - 1];
        if (o->id.n == id.n && memcmp(o->id.p, id.p, id.n) == 0)
            return m->slots[s] - 1;
        s = (s + 1) & (m->cap - 1);
    }
    return IBR_NONE;
}

/* Resolve remote ids, fill the port slot table (record of each node port)
   and check that every link is listed from both ends. */
static int resolve_links(parser *ps, uint32_t **slots_out)
{
    idmap m = {NULL, 0};
    int rc = idmap_build(ps, &m, 1);
    int dups = 0;
    for (size_t i = 0; i < ps->n_nodes && rc == 0; i++)
        dups |= ps->nodes[i].dup;
    if (rc == 0 && dups) {
        compact(ps);
        ibr__free(ps->ctx, m.slots);
        m.slots = NULL;
        rc = idmap_build(ps, &m, 0);
    }
    if (rc < 0) {
        ibr__free(ps->ctx, m.slots);
        return rc;
    }
    size_t nslots = 0;
    for (size_t i = 0; i < ps->n_nodes; i++) {
        ps->nodes[i].slot = (uint32_t)nslots;
        nslots += (size_t)ps->nodes[i].nports + 1;
    }
    uint32_t *slot = ibr__mallocarray(ps->ctx, nslots ? nslots : 1, sizeof *slot);
    if (!slot) {
        ibr__free(ps->ctx, m.slots);
        return nomem(ps);
    }
    for (size_t i = 0; i < nslots; i++)
        slot[i] = IBR_NONE;
    for (size_t i = 0; i < ps->n_ports && rc == 0; i++) {
        prec *pr = &ps->ports[i];
        const nrec *n = &ps->nodes[pr->node];
        uint32_t *s = &slot[n->slot + pr->port];
        if (*s != IBR_NONE) {
            rc = perr(ps, IBR_EPARSE, pr->line,
                      "port %u of \"%.*s\" listed twice (first on line %" PRIu32 ")",
                      (unsigned)pr->port, (int)n->id.n, n->id.p, ps->ports[*s].line);
            break;
        }
        *s = (uint32_t)i;
        pr->rnode = idmap_get(ps, &m, pr->rid);
        if (pr->rnode == IBR_NONE) {
            rc = perr(ps, IBR_EPARSE, pr->line, "unknown node \"%.*s\" (dangling link)",
                      (int)pr->rid.n, pr->rid.p);
            break;
        }
        const nrec *rn = &ps->nodes[pr->rnode];
        if (pr->rport > rn->nports)
            rc = perr(ps, IBR_EPARSE, pr->line, "port %u out of range (node \"%.*s\" has %u ports)",
                      (unsigned)pr->rport, (int)rn->id.n, rn->id.p, (unsigned)rn->nports);
    }
    ibr__free(ps->ctx, m.slots);
    for (size_t i = 0; i < ps->n_ports && rc == 0; i++) {
        const prec *pr = &ps->ports[i];
        const nrec *n = &ps->nodes[pr->node], *rn = &ps->nodes[pr->rnode];
        uint32_t back = slot[rn->slot + pr->rport];
        if (back == IBR_NONE) {
            rc = perr(ps, IBR_EPARSE, pr->line,
                      "asymmetric link: \"%.*s\" port %u names \"%.*s\" port %u, which is not "
                      "listed",
                      (int)n->id.n, n->id.p, (unsigned)pr->port, (int)rn->id.n, rn->id.p,
                      (unsigned)pr->rport);
        } else if (ps->ports[back].rnode != pr->node || ps->ports[back].rport != pr->port) {
            const prec *b = &ps->ports[back];
            const nrec *bn = &ps->nodes[b->rnode];
            rc = perr(ps, IBR_EPARSE, pr->line,
                      "asymmetric link: \"%.*s\" port %u names \"%.*s\" port %u, which names "
                      "\"%.*s\" port %u (line %" PRIu32 ")",
                      (int)n->id.n, n->id.p, (unsigned)pr->port, (int)rn->id.n, rn->id.p,
                      (unsigned)pr->rport, (int)bn->id.n, bn->id.p, (unsigned)b->rport, b->line);
        }
    }
    if (rc < 0) {
        ibr__free(ps->ctx, slot);
        return rc;
    }
    *slots_out = slot;
    return 0;
}

/* Final GUID of port p of record i: switch port GUID; CA/router: the GUID
   printed on its own port line, else the one its peer printed, else node
   GUID + port number. */
static uint64_t final_port_guid(const parser *ps, const uint32_t *slot, uint32_t i, unsigned p)
{
    const nrec *n = &ps->nodes[i];
    if (n->type == IBR_NODE_SWITCH)
        return n->port_guid ? n->port_guid : n->guid;
    uint32_t s = slot[n->slot + p];
    if (s != IBR_NONE) {
        const prec *pr = &ps->ports[s];
        if (pr->guid)
            return pr->guid;
        const prec *peer = &ps->ports[slot[ps->nodes[pr->rnode].slot + pr->rport]];
        if (peer->rguid)
            return peer->rguid;
    }
    return n->guid + p;
}

/* Line to blame for port p of record i. */
static uint32_t port_line(const parser *ps, const uint32_t *slot, uint32_t i, unsigned p)
{
    const nrec *n = &ps->nodes[i];
    uint32_t s = p ? slot[n->slot + p] : IBR_NONE;
    return s != IBR_NONE ? ps->ports[s].line : n->line;
}

/* Check node GUIDs and final port GUIDs for duplicates. finals receives a
   map of every final port GUID (value: slot index). */
static int check_guids(parser *ps, const uint32_t *slot, ibr__guidmap *finals)
{
    ibr__guidmap nodes = {0};
    int rc = 0;
    if (ibr__guidmap_reserve(ps->ctx, &nodes, ps->n_nodes) < 0)
        rc = nomem(ps);
    for (uint32_t i = 0; i < ps->n_nodes && rc == 0; i++) {
        const nrec *n = &ps->nodes[i];
        uint32_t o = ibr__guidmap_get(&nodes, n->guid);
        if (o != IBR_NONE) {
            rc = perr(ps, IBR_EPARSE, n->line,
                      "duplicate node GUID 0x%016" PRIx64 " (node \"%.*s\" on line %" PRIu32 ")",
                      n->guid, (int)ps->nodes[o].id.n, ps->nodes[o].id.p, ps->nodes[o].line);
            break;
        }
        if (ibr__guidmap_put(ps->ctx, &nodes, n->guid, i) < 0) {
            rc = nomem(ps);
            break;
        }
        unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
        unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
        for (unsigned p = p0; p <= p1 && rc == 0; p++) {
            uint64_t g = final_port_guid(ps, slot, i, p);
            if (!g) {
                rc = perr(ps, IBR_EPARSE, port_line(ps, slot, i, p), "port GUID 0");
                break;
            }
            uint32_t s = ibr__guidmap_get(finals, g);
            if (s != IBR_NONE) {
                /* find the record owning slot s */
                uint32_t lo = 0, hi = (uint32_t)ps->n_nodes;
                while (hi - lo > 1) {
                    uint32_t mid = (lo + hi) / 2;
                    if (ps->nodes[mid].slot <= s)
                        lo = mid;
                    else
                        hi = mid;
                }
                rc = perr(ps, IBR_EPARSE, port_line(ps, slot, i, p),
                          "duplicate port GUID 0x%016" PRIx64 " (also port %u of \"%.*s\")", g,
                          (unsigned)(s - ps->nodes[lo].slot), (int)ps->nodes[lo].id.n,
                          ps->nodes[lo].id.p);
                break;
            }
            if (ibr__guidmap_put(ps->ctx, finals, g, n->slot + p) < 0)
                rc = nomem(ps);
        }
    }
    ibr__guidmap_free(ps->ctx, &nodes);
    return rc;
}

/* ------------------------------------------------------------------ */
/* building                                                            */

typedef struct builder {
    parser *ps;
    ibr_fabric *f;
    const uint32_t *slot;
    ibr__guidmap *finals;
    uint64_t next_tmp;
} builder;

/* A builder call failed: out of memory stays out of memory, anything else
   is a parse error at the given line carrying the builder's message. */
static int berr(builder *b, int rc, uint32_t line)
{
    if (rc == IBR_ENOMEM)
        return nomem(b->ps);
    return perr(b->ps, IBR_EPARSE, line, "%s", ibr_fabric_last_error(b->f));
}

/* A GUID used neither by a port of the fabric nor by any final port GUID. */
static uint64_t temp_guid(builder *b)
{
    for (;;) {
        uint64_t g = b->next_tmp--;
        if (ibr__guidmap_get(&b->f->port_guids, g) == IBR_NONE &&
            ibr__guidmap_get(b->finals, g) == IBR_NONE)
            return g;
    }
}

/* Global port index -> (node, port) in the temporary fabric. */
static void port_owner(const ibr_fabric *f, uint32_t gp, uint32_t *node, unsigned *port)
{
    size_t lo = 0, hi = f->n_nodes;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->nodes[mid].port_off <= gp)
            lo = mid;
        else
            hi = mid;
    }
    *node = (uint32_t)lo;
    *port = gp - f->nodes[lo].port_off;
}

static int add_nodes(builder *b)
{
    parser *ps = b->ps;
    ibr_fabric *f = b->f;
    for (uint32_t i = 0; i < ps->n_nodes; i++) {
        const nrec *n = &ps->nodes[i];
        /* the builder gives CA/router ports node GUID + port and a switch
           its node GUID; move any port already holding one of those to a
           temporary GUID (every port gets its final GUID later) */
        unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
        unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
        for (unsigned p = p0; p <= p1; p++) {
            uint64_t d = n->type == IBR_NODE_SWITCH ? n->guid : n->guid + p;
            uint32_t gp = ibr__guidmap_get(&f->port_guids, d);
            if (gp == IBR_NONE)
                continue;
            uint32_t on;
            unsigned op;
            port_owner(f, gp, &on, &op);
            int rc = ibr_fabric_set_port_guid(f, on, op, temp_guid(b));
            if (rc < 0)
                return berr(b, rc, n->line);
        }
        char desc[IBR_DESC_SIZE];
        span ds = n->desc_is_id ? n->id : n->desc;
        size_t dn = ds.n < IBR_DESC_SIZE - 1 ? ds.n : IBR_DESC_SIZE - 1;
        memcpy(desc, ds.p, dn);
        desc[dn] = 0;
        for (size_t k = 0; k < dn; k++)
            if (desc[k] == 0)
                desc[k] = ' ';
        uint32_t idx;
        int rc = ibr_fabric_add_node(&idx, f, (ibr_node_type)n->type, n->guid, n->nports, desc);
        if (rc < 0)
            return berr(b, rc, n->line);
        if (n->sysimg && (rc = ibr_fabric_set_sysimg_guid(f, idx, n->sysimg)) < 0)
            return berr(b, rc, n->line);
    }
    return 0;
}

/* Give every port its final GUID: first move ports whose current GUID is
   some other port's final GUID out of the way, then set the finals. */
static int set_port_guids(builder *b)
{
    parser *ps = b->ps;
    ibr_fabric *f = b->f;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < ps->n_nodes; i++) {
            const nrec *n = &ps->nodes[i];
            unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
            unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
            for (unsigned p = p0; p <= p1; p++) {
                uint64_t want = final_port_guid(ps, b->slot, i, p);
                uint64_t have = f->ports[f->nodes[i].port_off + p].guid;
                if (have == want)
                    continue;
                uint64_t g;
                if (pass == 0) {
                    if (ibr__guidmap_get(b->finals, have) == IBR_NONE)
                        continue;
                    g = temp_guid(b);
                } else {
                    g = want;
                }
                int rc = ibr_fabric_set_port_guid(f, i, p, g);
                if (rc < 0)
                    return berr(b, rc, port_line(ps, b->slot, i, p));
            }
        }
    }
    return 0;
}

static ibr_link_width decode_width(uint8_t m)
{
    if (m & IBR_WIDTH_12X)
        return IBR_WIDTH_12X;
    if (m & IBR_WIDTH_8X)
        return IBR_WIDTH_8X;
    if (m & IBR_WIDTH_4X)
        return IBR_WIDTH_4X;
    if (m & IBR_WIDTH_2X)
        return IBR_WIDTH_2X;
    if (m & IBR_WIDTH_1X)
        return IBR_WIDTH_1X;
    return IBR_WIDTH_4X;
}

static ibr_link_speed decode_speed(uint16_t m)
{
    for (int s = IBR_SPEED_XDR; s >= IBR_SPEED_SDR; s--)
        if (m & (1u << s))
            return (ibr_link_speed)s;
    return IBR_SPEED_QDR;
}

/* Combine what both ends say: the common enabled values when both say
   something, else whatever one end says. */
static uint16_t combine(uint16_t a, uint16_t b)
{
    if (a && b)
        return (a & b) ? (uint16_t)(a & b) : a;
    return a ? a : b;
}

static int add_links(builder *b)
{
    parser *ps = b->ps;
    for (uint32_t i = 0; i < ps->n_ports; i++) {
        const prec *pr = &ps->ports[i];
        if (pr->rnode < pr->node || (pr->rnode == pr->node && pr->rport < pr->port))
            continue; /* added from the other end */
        const prec *peer = &ps->ports[b->slot[ps->nodes[pr->rnode].slot + pr->rport]];
        ibr_link_attr a = IBR_LINK_ATTR_INIT;
        a.width = decode_width((uint8_t)combine(pr->wmask, peer->wmask));
        a.speed = decode_speed(combine(pr->smask, peer->smask));
        a.state = (pr->down || peer->down) ? IBR_LINK_DOWN : IBR_LINK_ACTIVE;
        int rc = ibr_fabric_add_link(b->f, pr->node, pr->port, pr->rnode, pr->rport, &a);
        if (rc < 0)
            return berr(b, rc, pr->line);
    }
    return 0;
}

static int set_lids(builder *b)
{
    parser *ps = b->ps;
    for (uint32_t i = 0; i < ps->n_nodes; i++) {
        const nrec *n = &ps->nodes[i];
        if (n->type == IBR_NODE_SWITCH && n->lid) {
            int rc = ibr_fabric_set_lid(b->f, i, 0, n->lid, n->lmc);
            if (rc < 0)
                return berr(b, rc, n->line);
        }
    }
    for (uint32_t i = 0; i < ps->n_ports; i++) {
        const prec *pr = &ps->ports[i];
        if (!pr->lid || ps->nodes[pr->node].type == IBR_NODE_SWITCH)
            continue;
        int rc = ibr_fabric_set_lid(b->f, pr->node, pr->port, pr->lid, pr->lmc);
        if (rc < 0)
            return berr(b, rc, pr->line);
    }
    return 0;
}

int ibr_fabric_parse_ibnetdiscover(ibr_fabric *f, const char *buf, size_t len)
{
    if (!f)
        return IBR_EINVAL;
    if (!buf && len)
        return ibr__fabric_err(f, IBR_EINVAL, "NULL buffer of %zu bytes", len);
    if (f->n_nodes)
        return ibr__fabric_err(f, IBR_ESTATE, "the fabric is not empty (%zu nodes)", f->n_nodes);
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.ctx = ibr__ctx(f->ctx);
    ps.base[T_CA] = ps.cnt[T_CA] = 0x100000;
    ps.base[T_SW] = ps.cnt[T_SW] = 0x200000;
    ps.base[T_RT] = ps.cnt[T_RT] = 0x300000;
    ps.cur = IBR_NONE;
    uint32_t *slot = NULL;
    ibr__guidmap finals = {0};
    ibr_fabric *tmp = NULL;
    int rc = parse_lines(&ps, buf ? buf : "", len);
    if (rc == 0)
        rc = resolve_links(&ps, &slot);
    if (rc == 0)
        rc = check_guids(&ps, slot, &finals);
    if (rc == 0 && ibr_fabric_create(&tmp, ps.ctx) < 0)
        rc = nomem(&ps);
    if (rc == 0) {
        builder b = {&ps, tmp, slot, &finals, UINT64_MAX};
        if ((rc = add_nodes(&b)) == 0 && (rc = set_port_guids(&b)) == 0 &&
            (rc = add_links(&b)) == 0)
            rc = set_lids(&b);
    }
    if (rc == 0) {
        /* hand the content over; tmp takes f's empty content */
        struct ibr_fabric swap = *f;
        *f = *tmp;
        *tmp = swap;
        f->ctx = swap.ctx;
        tmp->ctx = ps.ctx;
        f->last_error[0] = 0;
    }
    ibr_fabric_destroy(tmp);
    ibr__guidmap_free(ps.ctx, &finals);
    ibr__free(ps.ctx, slot);
    ibr__free(ps.ctx, ps.nodes);
    ibr__free(ps.ctx, ps.ports);
    if (rc < 0)
        return ibr__fabric_err(f, rc, "%s", ps.msg);
    return 0;
}

/* ------------------------------------------------------------------ */
/* writer                                                              */

static const char *speed_str(unsigned s)
{
    static const char *const names[] = {"???", "SDR", "DDR", "QDR", "FDR10",
                                        "FDR", "EDR", "HDR", "NDR", "XDR"};
    return s < sizeof names / sizeof names[0] ? names[s] : "???";
}

static char type_letter(unsigned type)
{
    return type == IBR_NODE_SWITCH ? 'S' : type == IBR_NODE_CA ? 'H' : 'R';
}

/* A description as one line of text: control characters become spaces. */
static void clean_desc(char *dst, const char *src)
{
    size_t i = 0;
    for (; src[i] && i < IBR_DESC_SIZE - 1; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
    }
    dst[i] = 0;
}

static uint16_t node_lid(const ibr_topo *t, uint32_t node, unsigned port)
{
    const ibr__node *n = &t->nodes[node];
    return t->ports[n->port_off + (n->type == IBR_NODE_SWITCH ? 0 : port)].lid;
}

static int write_node(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t, uint32_t i)
{
    const ibr__node *n = &t->nodes[i];
    const ibr__port *p0 = &t->ports[n->port_off];
    char desc[IBR_DESC_SIZE], rdesc[IBR_DESC_SIZE];
    int is_sw = n->type == IBR_NODE_SWITCH;
    clean_desc(desc, n->desc);
    if (ibr__buf_printf(out, ctx, "\nsysimgguid=0x%" PRIx64 "\n", n->sysimg ? n->sysimg : n->guid) <
        0)
        return IBR_ENOMEM;
    if (is_sw) {
        if (ibr__buf_printf(out, ctx,
                            "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n"
                            "Switch\t%u \"S-%016" PRIx64 "\"\t\t# \"%s\" %s port 0 lid %u lmc %u\n",
                            n->guid, p0->guid, (unsigned)n->nports, n->guid, desc,
                            p0->lmc ? "base" : "enhanced", (unsigned)p0->lid,
                            (unsigned)p0->lmc) < 0)
            return IBR_ENOMEM;
    } else {
        int ca = n->type == IBR_NODE_CA;
        if (ibr__buf_printf(out, ctx,
                            "%sguid=0x%" PRIx64 "\n"
                            "%s\t%u \"%c-%016" PRIx64 "\"\t\t# \"%s\"\n",
                            ca ? "ca" : "rt", n->guid, ca ? "Ca" : "Rt", (unsigned)n->nports,
                            type_letter(n->type), n->guid, desc) < 0)
            return IBR_ENOMEM;
    }
    for (unsigned p = 1; p <= n->nports; p++) {
        const ibr__port *pt = &t->ports[n->port_off + p];
        if (pt->remote_node == IBR_NONE)
            continue;
        const ibr__node *rn = &t->nodes[pt->remote_node];
        const ibr__port *rp = &t->ports[rn->port_off + pt->remote_port];
        int rsw = rn->type == IBR_NODE_SWITCH;
        clean_desc(rdesc, rn->desc);
        int rc;
        if (is_sw)
            rc = ibr__buf_printf(out, ctx, "[%u]\t\"%c-%016" PRIx64 "\"[%u]", p,
                                 type_letter(rn->type), rn->guid, (unsigned)pt->remote_port);
        else
            rc = ibr__buf_printf(out, ctx, "[%u](%" PRIx64 ") \t\"%c-%016" PRIx64 "\"[%u]", p,
                                 pt->guid, type_letter(rn->type), rn->guid,
                                 (unsigned)pt->remote_port);
        if (rc < 0)
            return IBR_ENOMEM;
        if (!rsw && ibr__buf_printf(out, ctx, is_sw ? "(%" PRIx64 ") " : " (%" PRIx64 ") ",
                                    rp->guid) < 0)
            return IBR_ENOMEM;
        if (!is_sw && ibr__buf_printf(out, ctx, "\t\t# lid %u lmc %u", (unsigned)pt->lid,
                                      (unsigned)pt->lmc) < 0)
            return IBR_ENOMEM;
        if (ibr__buf_printf(out, ctx, "%s\"%s\" lid %u %s%s", is_sw ? "\t\t# " : " ", rdesc,
                            (unsigned)node_lid(t, pt->remote_node, pt->remote_port),
                            ibr__width_str(pt->width), speed_str(pt->speed)) < 0)
            return IBR_ENOMEM;
        /* ibsim reads the width and speed of CA and switch port lines from
           the annotation but not of router port lines: give it enabled
           masks there (it refuses a link whose two ends share no width) */
        if (n->type == IBR_NODE_ROUTER && pt->width) {
            unsigned s = 4, e = 0;
            switch (pt->speed) {
            case IBR_SPEED_SDR: s = 1; break;
            case IBR_SPEED_DDR: s = 2; break;
            case IBR_SPEED_FDR: e = 1; break;
            case IBR_SPEED_EDR: e = 2; break;
            case IBR_SPEED_HDR: e = 4; break;
            case IBR_SPEED_NDR: e = 8; break;
            default: break;
            }
            if (ibr__buf_printf(out, ctx, " w=%u s=%u e=%u", (unsigned)pt->width, s, e) < 0)
                return IBR_ENOMEM;
        }
        if (ibr__buf_puts(out, ctx, pt->state == IBR_LINK_DOWN ? " (down)\n" : "\n") < 0)
            return IBR_ENOMEM;
    }
    return 0;
}

/*
 * Written like ibnetdiscover (switches, then CAs, then routers, each in
 * node index order), with explicit switchguid=/caguid=/rtguid= and
 * sysimgguid= lines so that ibsim uses our GUIDs. ibsim derives CA and
 * router port GUIDs as node GUID + port number and gives all switch ports
 * the node GUID, so other port GUIDs survive only our own parser. Links in
 * the down state carry the ibroute extension "(down)", which ibsim ignores.
 */
int ibr_write_ibnetdiscover(ibr_buffer *out, const ibr_topo *t)
{
    size_t mark;
    if (!t)
        return IBR_EINVAL;
    int rc = ibr__buf_begin(out, t->ctx, &mark);
    if (rc < 0)
        return rc;
    ibr_context *ctx = t->ctx;
    rc = ibr__buf_puts(out, ctx,
                       "#\n# Topology file: generated by ibroute\n#\n"
                       "# ibsim gives CA and router ports the GUIDs node GUID + port number\n"
                       "# and every switch port the switch GUID.\n");
    static const uint8_t order[] = {IBR_NODE_SWITCH, IBR_NODE_CA, IBR_NODE_ROUTER};
    for (size_t k = 0; k < sizeof order && rc == 0; k++)
        for (uint32_t i = 0; i < t->n_nodes && rc == 0; i++)
            if (t->nodes[i].type == order[k])
                rc = write_node(out, ctx, t, i);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}
