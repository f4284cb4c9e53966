/*
 * The groups file of `ibr route --groups` (formats.h): "group" lines open a
 * multicast group (MLID, optional MGID), "member" lines add member ports to
 * it. Members are looked up in the topology the set is bound to.
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/buffer.h"
#include "core/mcast_groups_int.h"
#include "core/messages.h"
#include "core/topo_int.h"
#include "core/internal.h"
#include "formats/lex.h"

/* The token at the cursor for messages: up to 40 bytes, to the next blank. */
static int token_len(const ibr__cur *c)
{
    int n = 0;
    while (c->p + n < c->e && !ibr__is_blank(c->p[n]) && n < 40)
        n++;
    return n;
}

/* True when only blanks or a '#' comment remain. */
static int at_end(ibr__cur *c)
{
    ibr__cur_skip_blanks(c);
    return ibr__cur_end(c) || *c->p == '#';
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* An MGID in IPv6 notation (eight groups of 1..4 hex digits separated by
   ':', one "::" standing for a run of zero groups). */
static int parse_mgid(ibr__span s, uint8_t out[16])
{
    uint16_t head[8], tail[8];
    unsigned nh = 0, nt = 0;
    int gap = 0;
    size_t i = 0;
    if (s.n >= 2 && s.p[0] == ':' && s.p[1] == ':') {
        gap = 1;
        i = 2;
    }
    while (i < s.n) {
        unsigned v = 0, d = 0;
        while (i < s.n && hexval(s.p[i]) >= 0 && d < 5) {
            v = v * 16 + (unsigned)hexval(s.p[i]);
            i++;
            d++;
        }
        if (d == 0 || d > 4)
            return -1;
        if (gap) {
            if (nt == 8)
                return -1;
            tail[nt++] = (uint16_t)v;
        } else {
            if (nh == 8)
                return -1;
            head[nh++] = (uint16_t)v;
        }
        if (i == s.n)
            break;
        if (s.p[i] != ':')
            return -1;
        i++;
        if (i < s.n && s.p[i] == ':') {
            if (gap)
                return -1;
            gap = 1;
            i++;
            if (i == s.n)
                break;
        } else if (i == s.n) {
            return -1; /* a trailing single ':' */
        }
    }
    if ((!gap && nh != 8) || (gap && nh + nt > 7))
        return -1;
    uint16_t w[8] = {0};
    for (unsigned k = 0; k < nh; k++)
        w[k] = head[k];
    for (unsigned k = 0; k < nt; k++)
        w[8 - nt + k] = tail[k];
    for (unsigned k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(w[k] >> 8);
        out[2 * k + 1] = (uint8_t)w[k];
    }
    return 0;
}

static int join_word(ibr__span w, unsigned *bits)
{
    uint64_t v;
    if (ibr__span_eq(w, "full"))
        *bits = IBR_MCAST_JOIN_FULL;
    else if (ibr__span_eq(w, "non"))
        *bits = IBR_MCAST_JOIN_NON;
    else if (ibr__span_eq(w, "sendonly"))
        *bits = IBR_MCAST_JOIN_SENDONLY;
    else if (ibr__span_eq(w, "sendonly-full"))
        *bits = IBR_MCAST_JOIN_SENDONLY_FULL;
    else if (ibr__span_num(w, IBR__NUM_C, 15, &v) >= 0 && v >= 1)
        *bits = (unsigned)v;
    else
        return -1;
    return 0;
}

int ibr_mcast_groups_parse(ibr_mcast_groups **out, const ibr_topo *t, const char *buf,
                           size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t || (!buf && len))
        return IBR_EINVAL;
    ibr_mcast_groups *g;
    int rc = ibr_mcast_groups_create(&g, t);
    if (rc < 0)
        return rc;
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    int have = 0;
    uint16_t mlid = 0;
    int has_mgid = 0;
    uint8_t mgid[16];
    char msg[IBR_ERRMSG_SIZE];
    while (rc == 0 && ibr__lex_entry(&lx)) {
        ibr__cur c = lx.c;
        ibr__span kw = ibr__cur_word(&c);
        if (kw.n == 0 || (!ibr__cur_end(&c) && !ibr__is_blank(*c.p))) {
            rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                               IBR__MSG("MG001", "expected 'group' or 'member', found '%.*s'"),
                               token_len(&lx.c), lx.c.p);
        } else if (ibr__span_eq(kw, "group")) {
            ibr__cur_skip_blanks(&c);
            ibr__cur v = c;
            uint64_t m;
            if (ibr__cur_num(&c, IBR__NUM_C, UINT64_MAX, &m) < 0 || !ibr__cur_token_end(&c)) {
                rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                                   IBR__MSG("MG002", "bad MLID '%.*s'"), token_len(&v), v.p);
                break;
            }
            if (m < IBR_MLID_MIN || m > IBR_MLID_MAX) {
                rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                                   IBR__MSG("MG003",
                                            "MLID 0x%" PRIX64 " is outside the multicast range "
                                            "0xC000-0xFFFE"),
                                   m);
                break;
            }
            mlid = (uint16_t)m;
            has_mgid = 0;
            if (!at_end(&c)) {
                ibr__span w = ibr__cur_word(&c);
                if (!ibr__span_eq(w, "mgid")) {
                    rc = ibr__line_err(
                        g->last_error, IBR_EPARSE, lx.line,
                        IBR__MSG("MG004", "expected 'mgid' or the end of the line, found '%.*s'"),
                        token_len(&c) + (int)w.n, w.p);
                    break;
                }
                ibr__span tok = ibr__cur_token(&c);
                if (parse_mgid(tok, mgid) < 0) {
                    rc = ibr__line_err(
                        g->last_error, IBR_EPARSE, lx.line,
                        IBR__MSG("MG005", "bad MGID '%.*s' (IPv6 notation, e.g. ff12:401b::1)"),
                        tok.n > 60 ? 60 : (int)tok.n, tok.p);
                    break;
                }
                has_mgid = 1;
                if (!at_end(&c)) {
                    rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                                       IBR__MSG("MG006", "unexpected '%.*s' after the MGID"),
                                       token_len(&c), c.p);
                    break;
                }
            }
            have = 1;
        } else if (ibr__span_eq(kw, "member")) {
            if (!have) {
                rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                                   IBR__MSG("MG007", "'member' before any 'group' line"));
                break;
            }
            ibr__cur_skip_blanks(&c);
            ibr__cur v = c;
            uint64_t guid, port;
            if (ibr__cur_num(&c, IBR__NUM_C, UINT64_MAX, &guid) < 0 ||
                !ibr__cur_token_end(&c)) {
                rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                                   IBR__MSG("MG008", "bad GUID '%.*s' (write GUIDs as 0x<hex>)"),
                                   token_len(&v), v.p);
                break;
            }
            ibr__cur_skip_blanks(&c);
            v = c;
            if (ibr__cur_num(&c, IBR__NUM_C, 255, &port) < 0 || !ibr__cur_token_end(&c)) {
                rc = ibr__line_err(
                    g->last_error, IBR_EPARSE, lx.line,
                    IBR__MSG("MG009", "bad or missing port number '%.*s' after GUID 0x%016" PRIx64),
                    token_len(&v), v.p, guid);
                break;
            }
            unsigned join = 0;
            while (!at_end(&c)) {
                ibr__span w = ibr__cur_token(&c);
                unsigned b;
                if (join_word(w, &b) < 0) {
                    rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                                       IBR__MSG("MG010",
                                                "bad join state '%.*s' (full, non, sendonly, "
                                                "sendonly-full or 1..15)"),
                                       w.n > 40 ? 40 : (int)w.n, w.p);
                    break;
                }
                join |= b;
            }
            if (rc < 0)
                break;
            if (!join)
                join = IBR_MCAST_JOIN_FULL;
            uint32_t gport;
            if (ibr__mcast_resolve(&gport, msg, t, guid, (unsigned)port) < 0 ||
                ibr__mcast_add(g, mlid, has_mgid ? mgid : NULL, gport, join) < 0) {
                if (ibr__mcast_resolve(&gport, msg, t, guid, (unsigned)port) == 0)
                    snprintf(msg, sizeof msg, "%s", g->last_error);
                if (!strcmp(msg, "out of memory"))
                    rc = IBR_ENOMEM;
                else
                    rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line, "%s", msg);
                break;
            }
        } else {
            rc = ibr__line_err(g->last_error, IBR_EPARSE, lx.line,
                               IBR__MSG("MG001", "expected 'group' or 'member', found '%.*s'"),
                               (int)kw.n, kw.p);
        }
    }
    if (rc == IBR_ENOMEM) {
        ibr_mcast_groups_destroy(g);
        return rc;
    }
    if (rc < 0)
        ibr__mcast_groups_clear(g);
    *out = g;
    return rc;
}

static const char *join_text(unsigned j, char *buf, size_t cap)
{
    static const char *names[4] = {"full", "non", "sendonly", "sendonly-full"};
    size_t off = 0;
    buf[0] = 0;
    for (unsigned b = 0; b < 4; b++)
        if (j & (1u << b))
            off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? " " : "", names[b]);
    return buf;
}

int ibr_mcast_groups_write(ibr_buffer *out, const ibr_mcast_groups *g)
{
    if (!out || !g)
        return IBR_EINVAL;
    size_t mark;
    int rc = ibr__buf_begin(out, g->ctx, &mark);
    if (rc < 0)
        return rc;
    const ibr_topo *t = g->topo;
    for (size_t i = 0; i < g->n_groups && rc == 0; i++) {
        const ibr__mcgroup *c = &g->groups[i];
        rc = ibr__buf_printf(out, g->ctx, "group 0x%04X", c->mlid);
        if (rc == 0 && c->has_mgid)
            for (unsigned k = 0; k < 8 && rc == 0; k++)
                rc = ibr__buf_printf(out, g->ctx, "%s%x", k ? ":" : " mgid ",
                                     (unsigned)c->mgid[2 * k] << 8 | c->mgid[2 * k + 1]);
        if (rc == 0)
            rc = ibr__buf_printf(out, g->ctx, "\n");
        for (size_t j = 0; j < c->n && rc == 0; j++) {
            uint32_t node = t->port_node[c->ports[j]];
            char jb[64];
            rc = ibr__buf_printf(out, g->ctx, "member 0x%016" PRIx64 " %u %s\n",
                                 t->nodes[node].guid, c->ports[j] - t->nodes[node].port_off,
                                 join_text(c->join[j], jb, sizeof jb));
        }
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}
