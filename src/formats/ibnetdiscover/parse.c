/*
 * Topology text, first stage: ibnetdiscover output and ibsim netfiles read
 * into records (one per node, one per listed port). Nothing is resolved
 * here: remote ids stay names until resolve.c.
 *
 * Dialect (see reference/formats-ibnetdiscover.md):
 *  - lines are dispatched on their first word; "#" lines, blank lines and
 *    unknown lines (e.g. "Chassis 1 ...", "Non-Chassis Nodes") are skipped;
 *    a blank line ends a node record;
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
 *    (far end LID, active width and speed), "w= s= e=" options (the
 *    port's enabled width and speed masks, as ibsim reads them), "v=" (the
 *    port's VLCap, as ibnetdiscover -f prints it) and the ibroute
 *    extension "(down)" for a link in the down state.
 *  - ibsim-only constructs that need files or aliases ("include",
 *    "module=", "@" aliases) are rejected.
 * Numbers follow C's base detection (0x hex, leading 0 octal) except the
 * decimal port numbers and the hexadecimal GUIDs in parentheses and ids.
 * A number ends at a blank, a '#' comment or the end of the line (or the
 * '(' of switchguid's port GUID): "caguid=0x0002c9030000100g" is an error,
 * not caguid 0x0002c9030000100; after a key=value only a comment may
 * follow, and a "lid", "lmc" or "v=" value that starts with a digit must
 * be a number.
 */
#include <stdio.h>
#include <inttypes.h>
#include <string.h>

#include "core/messages.h"
#include "formats/ibnetdiscover/ibnetdiscover_int.h"

int ibr__ibn_err(ibn_parser *ps, int code, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(ps->msg, code, line, fmt, ap);
    va_end(ap);
    return code;
}

int ibr__ibn_nomem(ibn_parser *ps)
{
    return ibr__ibn_err(ps, IBR_ENOMEM, 0, "out of memory parsing the topology");
}

/* Bit i of an IB speed mask as bit speed[i] of ours (n bits read). */
static uint16_t map_speed_bits(uint64_t ib, const uint8_t *speed, unsigned n)
{
    uint16_t m = 0;
    for (unsigned i = 0; i < n; i++)
        if ((ib >> i) & 1)
            m |= (uint16_t)(1u << speed[i]);
    return m;
}

/* IB LinkSpeedEnabled bits (1 SDR, 2 DDR, 4 QDR) as speed bits. */
static uint16_t speed_bits(uint64_t ib)
{
    static const uint8_t speed[] = {IBR_SPEED_SDR, IBR_SPEED_DDR, IBR_SPEED_QDR};
    return map_speed_bits(ib, speed, 3);
}

/* IB LinkSpeedExtEnabled bits (1 FDR, 2 EDR, 4 HDR, 8 NDR) as speed bits. */
static uint16_t ext_speed_bits(uint64_t ib)
{
    static const uint8_t speed[] = {IBR_SPEED_FDR, IBR_SPEED_EDR, IBR_SPEED_HDR, IBR_SPEED_NDR};
    return map_speed_bits(ib, speed, 4);
}

static int kind_of_word(ibr__span w)
{
    if (ibr__span_eq(w, "Switch"))
        return IBN_SW;
    if (ibr__span_eq(w, "Ca") || ibr__span_eq(w, "Hca"))
        return IBN_CA;
    if (ibr__span_eq(w, "Rt") || ibr__span_eq(w, "Router"))
        return IBN_RT;
    return -1;
}

static const uint8_t kind_type[IBN_NKINDS] = {IBR_NODE_CA, IBR_NODE_SWITCH, IBR_NODE_ROUTER};

/* "key=value" or "key+value" lines. */
static int parse_assignment(ibn_parser *ps, ibr__span key, ibr__cur *c, uint32_t line)
{
    int guid_kind = -1;
    if (ibr__span_eq(key, "switchguid"))
        guid_kind = IBN_SW;
    else if (ibr__span_eq(key, "caguid") || ibr__span_eq(key, "hcaguids"))
        guid_kind = IBN_CA;
    else if (ibr__span_eq(key, "rtguid"))
        guid_kind = IBN_RT;
    ibr__cur_skip_blanks(c);
    int relative = 0;
    if (ibr__cur_at(c, '+') && guid_kind >= 0)
        relative = 1;
    else if (!ibr__cur_at(c, '='))
        return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP001", "expected '=' after \"%s\""),
                            IBR__ESC(key));
    c->p++;
    ibr__cur_skip_blanks(c);
    uint64_t v;
    ibr__cur at = *c;
    if (ibr__cur_num_field(c, IBR__NUM_C, UINT64_MAX, guid_kind == IBN_SW ? "(" : NULL, &v) < 0) {
        ibr__span bad = ibr__cur_token(&at);
        return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP002", "bad value \"%s\" for \"%s\""),
                            IBR__ESC(bad), IBR__ESC(key));
    }
    uint64_t pg = 0;
    int has_pg = 0;
    if (guid_kind == IBN_SW) {
        has_pg = ibr__ibn_paren_guid(c, &pg);
        if (has_pg < 0 || !ibr__cur_token_end(c))
            return ibr__ibn_err(ps, IBR_EPARSE, line,
                                IBR__MSG("TP003", "bad port GUID after switchguid"));
    }
    /* only a comment may follow ("\t# Chassis 1", "\t# <chassis type> ...") */
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_end(c) && *c->p != '#') {
        ibr__span bad = ibr__cur_token(c);
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP004", "unexpected text \"%s\" after \"%s\" value"),
                            IBR__ESC(bad), IBR__ESC(key));
    }
    if (guid_kind >= 0) {
        if (relative) {
            ps->cnt[guid_kind] = ps->base[guid_kind] + v;
        } else {
            ps->base[guid_kind] = v;
            ps->cnt[guid_kind] = v;
        }
        ps->explicit_guid[guid_kind] = 1;
        if (guid_kind == IBN_SW)
            ps->pending_port_guid = has_pg > 0 ? pg : 0;
    } else if (ibr__span_eq(key, "sysimgguid")) {
        ps->pending_sysimg = v;
    } else if (ibr__span_eq(key, "width")) {
        if (v < 1 || v > 31)
            return ibr__ibn_err(
                ps, IBR_EPARSE, line,
                IBR__MSG("TP005", "width=%" PRIu64 ": enabled width mask must be 1..31"), v);
        ps->def_wmask = (uint8_t)v;
    } else if (ibr__span_eq(key, "speed")) {
        if (v < 1 || v > 7)
            return ibr__ibn_err(
                ps, IBR_EPARSE, line,
                IBR__MSG("TP006", "speed=%" PRIu64 ": enabled speed mask must be 1..7"), v);
        ps->def_smask = speed_bits(v);
    } else if (ibr__span_eq(key, "extspeed")) {
        if (v > 15)
            return ibr__ibn_err(
                ps, IBR_EPARSE, line,
                IBR__MSG("TP007", "extspeed=%" PRIu64 ": extended speed mask must be 0..15"), v);
        ps->def_emask = ext_speed_bits(v);
    }
    /* vendid, devid: accepted, not kept */
    return 0;
}

/* Find the first of the ibsim description terminators in [p, e). */
static const char *find_desc_end(const char *p, const char *e)
{
    static const char *const stops[] = {" enhanced port ", " base port ", " lid ", " lmc "};
    const char *best = e;
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        ibr__cur c = {p, best};
        const char *q = ibr__cur_find(&c, stops[i]);
        if (q)
            best = q;
    }
    return best;
}

static int parse_header(ibn_parser *ps, int kind, ibr__cur *c, uint32_t line)
{
    uint64_t nports;
    ibr__cur_skip_blanks(c);
    if (ibr__cur_num(c, IBR__NUM_DEC, UINT64_MAX, &nports) < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP008", "missing port count in node header"));
    if (nports < 1 || nports > IBR_MAX_PORTS)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP009", "%" PRIu64 " ports (must be 1..%d)"), nports,
                            IBR_MAX_PORTS);
    ibr__cur_skip_blanks(c);
    ibr__span id;
    if (ibr__cur_quoted(c, &id) < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP010", "missing quoted node id in node header"));
    if (!id.n)
        return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP011", "empty node id"));
    if (memchr(id.p, '@', id.n))
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP012", "node id \"%s\": ibsim aliases are not supported"),
                            IBR__ESC(id));

    /* description and the rest */
    ibr__span desc = {NULL, 0};
    int desc_is_id = 1;
    ibr__cur tail = *c;
    const char *hash = memchr(c->p, '#', (size_t)(c->e - c->p));
    if (hash) {
        ibr__cur d = {hash + 1, c->e};
        ibr__cur_skip_blanks(&d);
        if (ibr__cur_at(&d, '"')) {
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
            while (end > d.p && ibr__is_blank(end[-1]))
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
        ibr__span t = ibr__cur_token(&tail);
        if (!t.n)
            break;
        if (!got_lid && ibr__span_eq(t, "lid")) {
            if (ibr__span_num(ibr__cur_token(&tail), IBR__NUM_C, IBR_MAX_UNICAST_LID, &lid) < 0)
                return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP013", "bad switch LID"));
            got_lid = 1;
        } else if (!got_lmc && ibr__span_eq(t, "lmc")) {
            if (ibr__span_num(ibr__cur_token(&tail), IBR__NUM_C, 7, &lmc) < 0)
                return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP014", "bad switch LMC"));
            got_lmc = 1;
        }
    }

    if (ibr__grow(ps->ctx, (void **)&ps->nodes, &ps->cap_nodes, ps->n_nodes + 1,
                  sizeof *ps->nodes) < 0)
        return ibr__ibn_nomem(ps);
    if (ps->n_nodes >= INT32_MAX)
        return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP015", "too many nodes"));
    ibn_node *n = &ps->nodes[ps->n_nodes];
    memset(n, 0, sizeof *n);
    n->id = id;
    n->desc = desc;
    n->desc_is_id = (uint8_t)desc_is_id;
    n->line = line;
    n->type = kind_type[kind];
    n->nports = (uint8_t)nports;
    n->first = (uint32_t)ps->n_ports;
    if (kind == IBN_SW) {
        n->lid = (uint16_t)lid;
        n->lmc = (uint8_t)lmc;
    }
    uint64_t g = 0;
    if (ps->explicit_guid[kind] || !ibr__ibn_guid_from_id(id, &g))
        g = ps->cnt[kind];
    if (kind == IBN_SW && ps->explicit_guid[kind])
        n->port_guid = ps->pending_port_guid;
    n->guid = g;
    n->sysimg = ps->pending_sysimg;
    n->may_repeat = (uint8_t)(kind == IBN_SW && ps->chassis_switches);
    ps->cnt[kind] += kind == IBN_SW ? 1 : nports + 1;
    ps->explicit_guid[kind] = 0;
    ps->pending_port_guid = 0;
    ps->pending_sysimg = 0;
    if (!g)
        return ibr__ibn_err(
            ps, IBR_EPARSE, line,
            IBR__MSG("TP016", "node \"%s\": node GUID 0 is not allowed (a GUID must be non-zero)"),
            IBR__ESC(id));
    ps->cur = (uint32_t)ps->n_nodes++;
    return 0;
}

/* The one quoted string of an annotation (the remote description) runs
   from the first to the last quote of the line (the whole rest when it is
   unterminated): its start (NULL without a quote), its end in *end. */
static const char *quoted_part(ibr__cur c, const char **end)
{
    const char *q1 = memchr(c.p, '"', (size_t)(c.e - c.p));
    *end = NULL;
    if (!q1)
        return NULL;
    *end = c.e;
    for (const char *x = c.e - 1; x > q1; x--)
        if (*x == '"') {
            *end = x + 1;
            break;
        }
    return q1;
}

/* The annotation of a port line: everything after the remote part. */
static int parse_annotation(ibn_parser *ps, ibn_port *pr, int end_node, ibr__cur c, uint32_t line)
{
    const char *qend;
    const char *q1 = quoted_part(c, &qend);
    int seen_quote = 0, got_local = 0, got_lmc = 0;
    uint8_t wm = 0;
    uint16_t sm = 0;
    int got_ws = 0;
    uint8_t opt_w = 0;
    uint16_t opt_s = 0, opt_e = 0;
    int got_opt_s = 0, got_opt_e = 0;
    for (;;) {
        ibr__cur_skip_blanks(&c);
        if (ibr__cur_end(&c))
            break;
        if (q1 && c.p == q1) {
            seen_quote = 1;
            c.p = qend;
            continue;
        }
        ibr__span t = ibr__cur_token(&c);
        if (q1 && t.p < q1 && t.p + t.n > q1) {
            /* a token running into the quoted part */
            t.n = (size_t)(q1 - t.p);
            c.p = q1;
        }
        uint64_t v;
        if (ibr__span_eq(t, "lid")) {
            ibr__cur save = c;
            ibr__span nt = ibr__cur_token(&c);
            if (ibr__span_num(nt, IBR__NUM_C, 0xFFFF, &v) < 0) {
                if (nt.n && ibr__is_digit(nt.p[0]))
                    return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP017", "bad LID \"%s\""),
                                        IBR__ESC(nt));
                c = save;
                continue;
            }
            ibr__cur peek = c;
            ibr__span wt = ibr__cur_token(&peek);
            uint8_t w2;
            uint16_t s2;
            if (wt.n && ibr__ibn_width_speed(wt, &w2, &s2)) {
                /* far end LID and the link's width and speed */
                wm = w2;
                sm = s2;
                got_ws = 1;
                c = peek;
            } else if (end_node && !seen_quote && !got_local) {
                if (v > IBR_MAX_UNICAST_LID)
                    return ibr__ibn_err(ps, IBR_EPARSE, line,
                                        IBR__MSG("TP018", "LID %" PRIu64 " beyond 0x%X"), v,
                                        IBR_MAX_UNICAST_LID);
                pr->lid = (uint16_t)v;
                got_local = 1;
            }
        } else if (ibr__span_eq(t, "lmc")) {
            ibr__cur save = c;
            ibr__span nt = ibr__cur_token(&c);
            if (ibr__span_num(nt, IBR__NUM_C, UINT64_MAX, &v) < 0) {
                if (nt.n && ibr__is_digit(nt.p[0]))
                    return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP019", "bad LMC \"%s\""),
                                        IBR__ESC(nt));
                c = save;
                continue;
            }
            if (end_node && got_local && !got_lmc && !seen_quote) {
                if (v > 7)
                    return ibr__ibn_err(ps, IBR_EPARSE, line,
                                        IBR__MSG("TP020", "LMC %" PRIu64 " (max 7)"), v);
                pr->lmc = (uint8_t)v;
                got_lmc = 1;
            }
        } else if (ibr__span_eq(t, "(down)")) {
            pr->down = 1;
        } else if (t.n >= 2 && t.p[1] == '=' &&
                   ((t.p[0] >= 'a' && t.p[0] <= 'z') || (t.p[0] >= 'A' && t.p[0] <= 'Z'))) {
            ibr__span val = {t.p + 2, t.n - 2};
            char k = t.p[0];
            if (k == 'v') {
                /* VLCap as ibnetdiscover -f prints it (1..5: VL0, VL0-1,
                   VL0-3, VL0-7, VL0-14); other values are ignored, as
                   every v= was before */
                if (ibr__span_num(val, IBR__NUM_C, UINT64_MAX, &v) < 0) {
                    if (val.n && ibr__is_digit(val.p[0]))
                        return ibr__ibn_err(ps, IBR_EPARSE, line,
                                            IBR__MSG("TP021", "bad port option \"%s\""),
                                            IBR__ESC(t));
                    continue;
                }
                if (v >= 1 && v <= 5)
                    pr->vl_cap = (uint8_t)(v == 5 ? 15 : 1u << (v - 1));
                continue;
            }
            if (k != 'w' && k != 's' && k != 'e')
                continue; /* unknown options are ignored */
            if (ibr__span_num(val, IBR__NUM_C, UINT64_MAX, &v) < 0)
                return ibr__ibn_err(ps, IBR_EPARSE, line,
                                    IBR__MSG("TP021", "bad port option \"%s\""), IBR__ESC(t));
            if (k == 'w') {
                if (v < 1 || v > 31)
                    return ibr__ibn_err(
                        ps, IBR_EPARSE, line,
                        IBR__MSG("TP022", "w=%" PRIu64 ": width mask must be 1..31"), v);
                opt_w = (uint8_t)v;
            } else if (k == 's') {
                if (v > 7)
                    return ibr__ibn_err(ps, IBR_EPARSE, line,
                                        IBR__MSG("TP023", "s=%" PRIu64 ": speed mask must be 0..7"),
                                        v);
                opt_s = speed_bits(v ? v : 4); /* 0 means QDR, as in ibsim */
                got_opt_s = 1;
            } else {
                if (v > 15)
                    return ibr__ibn_err(
                        ps, IBR_EPARSE, line,
                        IBR__MSG("TP024", "e=%" PRIu64 ": extended speed mask must be 0..15"), v);
                opt_e = ext_speed_bits(v);
                got_opt_e = 1;
            }
        } else {
            uint8_t w2;
            uint16_t s2;
            if (ibr__ibn_width_speed(t, &w2, &s2)) {
                wm = w2;
                sm = s2;
                got_ws = 1;
            }
        }
    }
    /* printed active values win over enabled masks, which win over the
       file-wide defaults */
    uint8_t w = opt_w ? opt_w : ps->def_wmask;
    uint16_t s =
        (uint16_t)((got_opt_s ? opt_s : ps->def_smask) | (got_opt_e ? opt_e : ps->def_emask));
    /* the enabled masks, kept apart from the active values: a link
       printed below what both ends enable is throttled */
    pr->en_wmask = w;
    pr->en_smask = s;
    if (got_ws && wm)
        w = wm;
    if (got_ws && sm)
        s = sm;
    pr->wmask = w;
    pr->smask = s;
    return 0;
}

static int parse_port_line(ibn_parser *ps, ibr__cur *c, uint32_t line)
{
    ibn_node *n = &ps->nodes[ps->cur];
    unsigned port, rport = 1;
    if (ibr__ibn_bracket_num(c, &port) < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP025", "bad port number in port line"));
    if (port < 1 || port > n->nports)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP026", "port %u out of range (node \"%s\" has %u ports)"),
                            port, IBR__ESC(n->id), (unsigned)n->nports);
    if (ibr__ibn_skip_ext(c) < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP027", "bad \"[ext N]\" port mapping"));
    uint64_t guid = 0, rguid = 0;
    int r = ibr__ibn_paren_guid(c, &guid);
    if (r < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP028", "bad port GUID in parentheses"));
    ibr__cur_skip_blanks(c);
    ibr__span rid;
    if (ibr__cur_quoted(c, &rid) < 0 || !rid.n)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP029", "missing quoted remote node id"));
    if (memchr(rid.p, '@', rid.n))
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP030", "remote id \"%s\": ibsim aliases are not supported"),
                            IBR__ESC(rid));
    if (ibr__cur_at(c, '[') && c->p + 1 < c->e &&
        (ibr__is_digit(c->p[1]) || ibr__is_blank(c->p[1]))) {
        if (ibr__ibn_bracket_num(c, &rport) < 0 || rport < 1)
            return ibr__ibn_err(ps, IBR_EPARSE, line, IBR__MSG("TP031", "bad remote port number"));
    }
    if (ibr__ibn_skip_ext(c) < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP032", "bad remote \"[ext N]\" port mapping"));
    r = ibr__ibn_paren_guid(c, &rguid);
    if (r < 0)
        return ibr__ibn_err(ps, IBR_EPARSE, line,
                            IBR__MSG("TP033", "bad remote port GUID in parentheses"));

    if (ibr__grow(ps->ctx, (void **)&ps->ports, &ps->cap_ports, ps->n_ports + 1,
                  sizeof *ps->ports) < 0)
        return ibr__ibn_nomem(ps);
    ibn_port *pr = &ps->ports[ps->n_ports];
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

static bool is_assignment_key(ibr__span w)
{
    static const char *const keys[] = {"switchguid", "caguid", "hcaguids", "rtguid", "sysimgguid",
                                       "vendid",     "devid",  "width",    "speed",  "extspeed"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (ibr__span_eq(w, keys[i]))
            return true;
    return false;
}

/* A text without a single node: an input error, not an empty fabric (an
   empty file, junk, or another format given where a topology belongs). */
static int no_nodes(ibn_parser *ps, const char *buf, size_t len, uint32_t lines)
{
    const char *what = len == 0 ? "the text is empty" : "no node record was found";
    if (ibr__text_holds(buf, len, "Unicast lids ["))
        return ibr__ibn_err(ps, IBR_EPARSE, 0,
                            IBR__MSG("TP034",
                                     "%s: this looks like forwarding tables (an LFT dump such as "
                                     "opensm-lfts.dump), not a topology; `ibr verify` takes the "
                                     "TOPOLOGY first, then the LFTS_DUMP"),
                            what);
    char where[32] = "";
    if (len)
        snprintf(where, sizeof where, " in %u line%s", (unsigned)lines, lines == 1 ? "" : "s");
    return ibr__ibn_err(
        ps, IBR_EPARSE, 0,
        IBR__MSG("TP035", "%s%s: expected ibnetdiscover output or an ibsim netfile, with node "
                          "records such as 'Switch 36 \"S-0002c90200000001\"' or "
                          "'Ca 2 \"H-0002c90300000001\"' followed by '[port] ...' lines"),
        what, where);
}

int ibr__ibn_parse(ibn_parser *ps, const char *buf, size_t len)
{
    ps->base[IBN_CA] = ps->cnt[IBN_CA] = 0x100000;
    ps->base[IBN_SW] = ps->cnt[IBN_SW] = 0x200000;
    ps->base[IBN_RT] = ps->cnt[IBN_RT] = 0x300000;
    ps->cur = IBR_NONE;
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    while (ibr__lex_line(&lx)) {
        ibr__cur c = lx.c;
        uint32_t line = lx.line;
        if (ibr__cur_end(&c)) { /* blank line ends a record */
            ps->cur = IBR_NONE;
            continue;
        }
        char ch = *c.p;
        if (ch == '#') {
            /* ibnetdiscover -g's section titles: only under "# Chassis
               Switches" may a switch record repeat an earlier one */
            if (ibr__cur_starts(&c, "# Chassis Switches"))
                ps->chassis_switches = 1;
            else if (ibr__cur_starts(&c, "# Spine Nodes") || ibr__cur_starts(&c, "# Line Nodes") ||
                     ibr__cur_starts(&c, "# Chassis CAs"))
                ps->chassis_switches = 0;
            continue;
        }
        if (ch == '[') {
            if (ps->cur == IBR_NONE)
                return ibr__ibn_err(ps, IBR_EPARSE, line,
                                    IBR__MSG("TP036", "port line outside a node record"));
            int rc = parse_port_line(ps, &c, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (ch == '@')
            return ibr__ibn_err(ps, IBR_EPARSE, line,
                                IBR__MSG("TP037", "ibsim port aliases are not supported"));
        ps->cur = IBR_NONE;
        ibr__cur w = c;
        ibr__span word = ibr__cur_word(&w);
        int kind = kind_of_word(word);
        if (kind >= 0 && (ibr__cur_end(&w) || ibr__is_blank(*w.p))) {
            int rc = parse_header(ps, kind, &w, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (is_assignment_key(word)) {
            int rc = parse_assignment(ps, word, &w, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (ibr__cur_starts(&c, "Chassis ") || ibr__cur_starts(&c, "Non-Chassis Nodes"))
            ps->chassis_switches = 0;
        if (ibr__span_eq(word, "include") || ibr__span_eq(word, "module"))
            return ibr__ibn_err(ps, IBR_EPARSE, line,
                                IBR__MSG("TP038", "ibsim \"%s\" is not supported"), IBR__ESC(word));
        /* anything else ("Chassis 1 ...", "Non-Chassis Nodes", "do ...",
           "Hostname: ..."): not topology, skipped */
    }
    if (ps->n_nodes == 0)
        return no_nodes(ps, buf, len, lx.line);
    return 0;
}
