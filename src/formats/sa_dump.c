/*
 * OpenSM's SA database dump (opensm-sa.dump, formats.h): its multicast
 * group records ("MC Group 0x<mlid> ...: mgid=... scope_state=...") and the
 * member records that follow each ("mcm_port: port_gid=... scope_state=...")
 * become an ibr_mcast_groups set, kept or dropped as OpenSM's restore at
 * start-up keeps or drops them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/mcast_groups_int.h"
#include "core/messages.h"
#include "core/topo_int.h"
#include "core/internal.h"
#include "formats/lex.h"

/* One buffered member of the group being read. */
typedef struct sa_member {
    uint32_t gport;
    uint8_t join;
} sa_member;

typedef struct sa_state {
    ibr_mcast_groups *g;
    int open;          /* a group record is being read */
    int drop;          /* its MLID already belongs to another MGID */
    int well_known;
    uint16_t mlid;
    uint8_t mgid[16];
    sa_member *m;
    size_t n, cap;
} sa_state;

/* Find lit in [c->p, c->e) and move the cursor past it; -1 if absent. */
static int seek(ibr__cur *c, const char *lit)
{
    size_t n = strlen(lit);
    for (const char *p = c->p; p + n <= c->e; p++)
        if (memcmp(p, lit, n) == 0) {
            c->p = p + n;
            return 0;
        }
    return -1;
}

/* The hex value after the next occurrence of name ("mgid=0x"), at most max,
   ending at a blank, ':' or the end of the line, as OpenSM's loader reads
   it. On failure a line-numbered message in msg. */
static int field(ibr__cur *c, const char *name, uint64_t max, uint64_t *v, char *msg,
                 uint32_t line)
{
    if (seek(c, name) < 0)
        return ibr__line_err(msg, IBR_EPARSE, line, IBR__MSG("SA001", "no '%s' field"), name);
    ibr__cur at = *c;
    if (ibr__cur_num(c, IBR__NUM_HEX, max, v) < 0 ||
        (!ibr__cur_end(c) && !ibr__is_blank(*c->p) && *c->p != ':')) {
        ibr__span s = {at.p, 0};
        while (at.p + s.n < at.e && !ibr__is_blank(at.p[s.n]) && s.n < 40)
            s.n++;
        return ibr__line_err(msg, IBR_EPARSE, line, IBR__MSG("SA002", "bad value '%s' after '%s'"),
                             IBR__ESC(s), name);
    }
    return 0;
}

/* Close the group being read: OpenSM keeps it only with a full member or
   when it is well known; its members go into the set then. */
static int close_group(sa_state *s)
{
    int rc = 0;
    if (s->open && !s->drop) {
        int full = 0;
        for (size_t i = 0; i < s->n; i++)
            full |= s->m[i].join & IBR_MCAST_JOIN_FULL;
        if (full || s->well_known)
            for (size_t i = 0; i < s->n && rc == 0; i++) {
                rc = ibr__mcast_add(s->g, s->mlid, s->mgid, s->m[i].gport, s->m[i].join);
                if (rc == IBR_EEXIST)
                    rc = 0; /* a port listed twice: OpenSM adds it once */
            }
    }
    s->open = s->drop = s->well_known = 0;
    s->n = 0;
    return rc;
}

/* Does the set already hold mlid under an MGID other than mgid, or mgid
   under another MLID? OpenSM's restore gives neither an MLID nor an MGID
   to a second group and drops that group. */
static int mlid_taken(const ibr_mcast_groups *g, uint16_t mlid, const uint8_t mgid[16])
{
    for (size_t i = 0; i < g->n_groups; i++) {
        int same_mgid = g->groups[i].has_mgid && memcmp(g->groups[i].mgid, mgid, 16) == 0;
        if ((g->groups[i].mlid == mlid) != same_mgid)
            return 1;
    }
    return 0;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static int group_line(sa_state *s, ibr__cur c, char *msg, uint32_t line)
{
    uint64_t mlid, hi, lo, st;
    ibr__cur w = c;
    s->well_known = seek(&w, "(well known)") == 0;
    int rc = field(&c, " 0x", UINT16_MAX, &mlid, msg, line);
    if (rc == 0)
        rc = field(&c, " mgid=0x", UINT64_MAX, &hi, msg, line);
    if (rc == 0)
        rc = field(&c, ":0x", UINT64_MAX, &lo, msg, line);
    if (rc == 0)
        rc = field(&c, " scope_state=0x", 0xff, &st, msg, line);
    if (rc < 0)
        return rc;
    if (mlid < IBR_MLID_MIN || mlid > IBR_MLID_MAX)
        return ibr__line_err(
            msg, IBR_EPARSE, line,
            IBR__MSG("SA003", "MLID 0x%04" PRIX64 " is outside the multicast range 0xC000-0xFFFE"),
            mlid);
    s->open = 1;
    s->mlid = (uint16_t)mlid;
    put64(s->mgid, hi);
    put64(s->mgid + 8, lo);
    s->drop = mlid_taken(s->g, s->mlid, s->mgid);
    return 0;
}

static int member_line(sa_state *s, ibr__cur c, char *msg, uint32_t line)
{
    uint64_t prefix, guid, st;
    int rc = field(&c, " port_gid=0x", UINT64_MAX, &prefix, msg, line);
    if (rc == 0)
        rc = field(&c, ":0x", UINT64_MAX, &guid, msg, line);
    if (rc == 0)
        rc = field(&c, " scope_state=0x", 0xff, &st, msg, line);
    if (rc < 0)
        return rc;
    if ((st & 0xf) == 0)
        return ibr__line_err(msg, IBR_EPARSE, line,
                             IBR__MSG("SA004", "member 0x%016" PRIx64 " with join state 0"), guid);
    if (!s->open)
        return 0; /* a member of a record OpenSM did not restore */
    const ibr_topo *t = s->g->topo;
    uint32_t gport = ibr__topo_find_port_guid(t, guid);
    if (gport == IBR_NONE)
        return 0; /* OpenSM skips ports it did not discover */
    uint32_t node = t->port_node[gport];
    char err[IBR_ERRMSG_SIZE];
    if (ibr__mcast_resolve(&gport, err, t, t->nodes[node].guid,
                           gport - t->nodes[node].port_off) < 0)
        return 0; /* not an active port: not in OpenSM's port table either */
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        sa_member *m = ibr__reallocarray(s->g->ctx, s->m, cap, sizeof *m);
        if (!m)
            return IBR_ENOMEM;
        s->m = m;
        s->cap = cap;
    }
    s->m[s->n].gport = gport;
    s->m[s->n].join = (uint8_t)(st & 0xf);
    s->n++;
    return 0;
}

int ibr_mcast_groups_parse_sa_dump(ibr_mcast_groups **out, const ibr_topo *t,
                                   const char *buf, size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!t || (!buf && len))
        return IBR_EINVAL;
    sa_state s;
    memset(&s, 0, sizeof s);
    int rc = ibr_mcast_groups_create(&s.g, t);
    if (rc < 0)
        return rc;
    char msg[IBR_ERRMSG_SIZE] = "";
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    while (rc == 0 && ibr__lex_entry(&lx)) {
        ibr__cur c = lx.c;
        if (ibr__cur_starts(&c, "MC Group")) {
            rc = close_group(&s);
            if (rc == 0)
                rc = group_line(&s, c, msg, lx.line);
        } else if (ibr__cur_starts(&c, "mcm_port")) {
            rc = member_line(&s, c, msg, lx.line);
        } else if (ibr__cur_starts(&c, "Service Record:") ||
                   ibr__cur_starts(&c, "InformInfo Record:") ||
                   ibr__cur_starts(&c, "GUIDInfo Record:")) {
            rc = close_group(&s); /* records of no interest end a group */
        }
        /* any other line: OpenSM's loader passes over it too */
    }
    if (rc == 0)
        rc = close_group(&s);
    ibr__free(s.g->ctx, s.m);
    if (rc == IBR_ENOMEM || rc == IBR_EPARSE) {
        ibr_mcast_groups_destroy(s.g);
        if (rc == IBR_ENOMEM)
            return rc;
        /* a fresh, empty set carries the message */
        int rc2 = ibr_mcast_groups_create(&s.g, t);
        if (rc2 < 0)
            return rc2;
        snprintf(s.g->last_error, sizeof s.g->last_error, "%s", msg);
    } else if (rc < 0) {
        ibr_mcast_groups_destroy(s.g);
        return rc;
    }
    *out = s.g;
    return rc;
}
