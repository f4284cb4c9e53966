/*
 * Multicast verification: a copy injected by each member is flooded
 * through the MFTs (a switch forwards a copy on every MFT port of the MLID
 * but the one it arrived by) and the deliveries to the other members are
 * counted: each must get exactly one copy. Also the multicast trace and the
 * multicast dependencies of the credit-loop check.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cdg/cdg.h"
#include "verify/verify_int.h"

static int bit(const uint8_t *bits, uint32_t sw, unsigned p)
{
    return (bits[(size_t)sw * 32 + (p >> 3)] >> (p & 7)) & 1;
}

typedef struct flood {
    const ibr_topo *t;
    const ibr__mcast *mc;
    uint32_t *seen_in;   /* per global port of a switch: copies that entered by it */
    uint32_t *sw_copies; /* per switch: copies received */
    uint32_t *deliv;     /* per global port: copies delivered */
    uint8_t *is_member;  /* per global port */
    uint32_t *qsw;       /* queue: switch */
    uint16_t *qin;       /* queue: in port */
    uint16_t *qdepth;
    size_t qlen;         /* entries of the queue after a flood */
    uint32_t *touched;   /* per switch: the switches a flood reached */
    /* results of one flood */
    int loop;            /* a switch received two copies */
    uint64_t dead_ends;
    uint32_t dead_sw;    /* first dead end: switch and port */
    unsigned dead_port;
    uint32_t loop_sw;
    /* optional trace output */
    ibr_mcast_hop *hops;
    size_t cap, n;
} flood;

/* Flood from member gport (global port index). Returns 0, or IBR_ENOTFOUND
   when the source is an end port not cabled to a switch. The touched
   entries of seen_in, sw_copies and deliv must be reset by the caller
   (flood_reset). */
static int flood_run(flood *f, uint32_t gport, uint32_t *touched_sw, size_t *n_touched,
                     size_t *qlen)
{
    const ibr_topo *t = f->t;
    const uint8_t *bits = f->mc->bits;
    uint32_t node = t->port_node[gport];
    uint32_t s0;
    unsigned in0;
    size_t qh = 0, qt = 0;
    *n_touched = 0;
    f->loop = 0;
    f->dead_ends = 0;
    f->n = 0;
    f->dead_sw = IBR_NONE;
    if (t->nodes[node].sw != IBR_NONE) {
        s0 = t->nodes[node].sw;
        in0 = 0;
    } else {
        const ibr__port *pp = &t->ports[gport];
        if (pp->remote_node == IBR_NONE || pp->state != IBR_LINK_ACTIVE ||
            t->nodes[pp->remote_node].sw == IBR_NONE)
            return IBR_ENOTFOUND;
        s0 = t->nodes[pp->remote_node].sw;
        in0 = pp->remote_port;
    }
    f->qsw[qt] = s0;
    f->qin[qt] = (uint16_t)in0;
    f->qdepth[qt++] = t->nodes[node].sw != IBR_NONE ? 0 : 1;
    f->sw_copies[s0]++;
    touched_sw[(*n_touched)++] = s0;
    if (in0)
        f->seen_in[t->nodes[t->sw_node[s0]].port_off + in0]++;
    while (qh < qt) {
        uint32_t u = f->qsw[qh];
        unsigned ip = f->qin[qh], depth = f->qdepth[qh];
        qh++;
        const ibr__node *un = &t->nodes[t->sw_node[u]];
        for (unsigned p = 0; p < 256; p++) {
            if (p == ip || !bit(bits, u, p))
                continue;
            /* the source switch does not deliver to itself */
            if (p == 0 && in0 == 0 && u == s0 && depth == 0)
                continue;
            ibr_mcast_hop h = {u, ip, p, IBR_NONE, 0, depth + 1, 0};
            int dead = 0;
            if (p == 0) {
                h.to_node = t->sw_node[u];
                h.to_port = 0;
                h.depth = depth;
                uint32_t gp = un->port_off;
                if (f->deliv[gp]++)
                    h.duplicate = 1;
                if (!f->is_member[gp])
                    dead = 1;
            } else if (p > un->nports) {
                dead = 1;
            } else {
                const ibr__port *pp = &t->ports[un->port_off + p];
                if (pp->remote_node == IBR_NONE || pp->state != IBR_LINK_ACTIVE) {
                    dead = 1;
                } else {
                    h.to_node = pp->remote_node;
                    h.to_port = pp->remote_port;
                    const ibr__node *rn = &t->nodes[pp->remote_node];
                    uint32_t rgp = rn->port_off + pp->remote_port;
                    if (rn->sw != IBR_NONE) {
                        if (f->sw_copies[rn->sw]++) {
                            f->loop = 1;
                            if (f->loop_sw == IBR_NONE)
                                f->loop_sw = rn->sw;
                        } else {
                            touched_sw[(*n_touched)++] = rn->sw;
                        }
                        /* a copy entering by a port it already entered by
                           repeats a cycle: it goes no further */
                        if (f->seen_in[rgp]++) {
                            h.duplicate = 1;
                        } else if (f->sw_copies[rn->sw] > 1) {
                            h.duplicate = 1;
                            if (qt < t->n_ports) {
                                f->qsw[qt] = rn->sw;
                                f->qin[qt] = (uint16_t)pp->remote_port;
                                f->qdepth[qt++] = (uint16_t)(depth + 1);
                            }
                        } else if (qt < t->n_ports) {
                            f->qsw[qt] = rn->sw;
                            f->qin[qt] = (uint16_t)pp->remote_port;
                            f->qdepth[qt++] = (uint16_t)(depth + 1);
                        }
                    } else {
                        if (f->deliv[rgp]++)
                            h.duplicate = 1;
                        if (!f->is_member[rgp] || rgp == gport)
                            dead = rgp != gport;
                        if (rgp == gport)
                            f->loop = 1; /* the source gets its own packet back */
                    }
                }
            }
            if (dead) {
                f->dead_ends++;
                if (f->dead_sw == IBR_NONE) {
                    f->dead_sw = u;
                    f->dead_port = p;
                }
            }
            if (f->hops && f->n < f->cap)
                f->hops[f->n] = h;
            f->n++;
        }
    }
    *qlen = qt;
    return 0;
}

/* A cleared flood over t with its arrays: 0 or IBR_ENOMEM (flood_free()
   either way). */
static int flood_alloc(flood *f, const ibr_topo *t)
{
    ibr_context *ctx = t->ctx;
    size_t np = t->n_ports ? t->n_ports : 1, ns = t->n_sw ? t->n_sw : 1;
    memset(f, 0, sizeof *f);
    f->t = t;
    f->touched = ibr__mallocarray(ctx, ns, sizeof *f->touched);
    f->seen_in = ibr__calloc(ctx, np, sizeof *f->seen_in);
    f->deliv = ibr__calloc(ctx, np, sizeof *f->deliv);
    f->is_member = ibr__calloc(ctx, np, 1);
    f->sw_copies = ibr__calloc(ctx, ns, sizeof *f->sw_copies);
    f->qsw = ibr__mallocarray(ctx, np, sizeof *f->qsw);
    f->qin = ibr__mallocarray(ctx, np, sizeof *f->qin);
    f->qdepth = ibr__mallocarray(ctx, np, sizeof *f->qdepth);
    return f->touched && f->seen_in && f->deliv && f->is_member && f->sw_copies && f->qsw &&
                   f->qin && f->qdepth
               ? 0
               : IBR_ENOMEM;
}

static void flood_free(flood *f, ibr_context *ctx)
{
    ibr__free(ctx, f->seen_in);
    ibr__free(ctx, f->deliv);
    ibr__free(ctx, f->is_member);
    ibr__free(ctx, f->sw_copies);
    ibr__free(ctx, f->qsw);
    ibr__free(ctx, f->qin);
    ibr__free(ctx, f->qdepth);
    ibr__free(ctx, f->touched);
}

/* Undo a flood's marks: the switches it reached (their ports) and the
   members' delivery counters. */
static void flood_reset(flood *f, const uint32_t *touched, size_t nt)
{
    const ibr_topo *t = f->t;
    for (size_t i = 0; i < nt; i++) {
        const ibr__node *n = &t->nodes[t->sw_node[touched[i]]];
        f->sw_copies[touched[i]] = 0;
        memset(f->seen_in + n->port_off, 0, ((size_t)n->nports + 1) * sizeof *f->seen_in);
        f->deliv[n->port_off] = 0;
        for (unsigned p = 1; p <= n->nports; p++) {
            const ibr__port *pp = &t->ports[n->port_off + p];
            if (pp->remote_node != IBR_NONE && t->nodes[pp->remote_node].sw == IBR_NONE)
                f->deliv[t->nodes[pp->remote_node].port_off + pp->remote_port] = 0;
        }
    }
}

static const char *member_name(char *buf, size_t cap, const ibr_topo *t, uint32_t gport)
{
    uint32_t node = t->port_node[gport];
    snprintf(buf, cap, "0x%016" PRIx64 " port %u", t->nodes[node].guid,
             gport - t->nodes[node].port_off);
    return buf;
}

int ibr__mcast_verify(ibr_verify_report *rep, const ibr_result *r)
{
    const ibr_topo *t = r->topo;
    ibr_context *ctx = t->ctx;
    flood f;
    int rc = flood_alloc(&f, t);
    if (rc < 0)
        goto out;
    for (size_t gi = 0; gi < r->n_mcast; gi++) {
        const ibr__mcast *mc = &r->mcast[gi];
        if (!mc->has_members || mc->n_members < 2)
            continue;
        rep->mcast_groups++;
        f.mc = mc;
        for (size_t i = 0; i < mc->n_members; i++)
            f.is_member[mc->members[i].gport] = 1;
        /* one clean flood from the first member settles every pair: no
           switch reached twice and no dead end make the MFTs a tree, and
           when every link it crossed is set on both ends (and the first
           member's own port too), a copy from any member crosses exactly
           that tree */
        {
            size_t nt = 0;
            uint32_t src = mc->members[0].gport;
            f.loop_sw = IBR_NONE;
            int clean = flood_run(&f, src, f.touched, &nt, &f.qlen) == 0 && !f.loop &&
                        !f.dead_ends;
            for (size_t j = 1; j < mc->n_members && clean; j++)
                if (f.deliv[mc->members[j].gport] != 1)
                    clean = 0;
            for (size_t q = 0; q < f.qlen && clean; q++)
                if (!bit(mc->bits, f.qsw[q], f.qin[q]))
                    clean = 0;
            flood_reset(&f, f.touched, nt);
            f.deliv[src] = 0;
            if (clean) {
                uint64_t pairs = (uint64_t)mc->n_members * (mc->n_members - 1);
                rep->mcast_pairs += pairs;
                rep->mcast_pairs_ok += pairs;
                for (size_t i = 0; i < mc->n_members; i++)
                    f.is_member[mc->members[i].gport] = 0;
                continue;
            }
        }
        for (size_t i = 0; i < mc->n_members; i++) {
            uint32_t src = mc->members[i].gport;
            size_t nt = 0;
            f.loop_sw = IBR_NONE;
            if (flood_run(&f, src, f.touched, &nt, &f.qlen) < 0)
                continue; /* a source cabled to no switch sends nothing */
            char a[64], b[64];
            for (size_t j = 0; j < mc->n_members; j++) {
                uint32_t dst = mc->members[j].gport;
                if (dst == src)
                    continue;
                rep->mcast_pairs++;
                uint32_t d = f.deliv[dst];
                if (d == 1) {
                    rep->mcast_pairs_ok++;
                    continue;
                }
                if (d == 0)
                    rep->mcast_missed++;
                else
                    rep->mcast_duplicates++;
                if (!rep->first_mcast_error[0])
                    snprintf(rep->first_mcast_error, sizeof rep->first_mcast_error,
                             "MLID 0x%04X: %s receives %" PRIu32 " copies from %s", mc->mlid,
                             member_name(a, sizeof a, t, dst), d,
                             member_name(b, sizeof b, t, src));
            }
            if (f.loop) {
                rep->mcast_loops++;
                if (!rep->first_mcast_error[0])
                    snprintf(rep->first_mcast_error, sizeof rep->first_mcast_error,
                             "MLID 0x%04X: switch 0x%016" PRIx64
                             " receives two copies of a packet from %s",
                             mc->mlid,
                             f.loop_sw != IBR_NONE ? t->nodes[t->sw_node[f.loop_sw]].guid : 0,
                             member_name(b, sizeof b, t, src));
            }
            if (f.dead_ends) {
                rep->mcast_dead_ends += f.dead_ends;
                if (!rep->first_mcast_error[0])
                    snprintf(rep->first_mcast_error, sizeof rep->first_mcast_error,
                             "MLID 0x%04X: switch 0x%016" PRIx64
                             " port %u leads to no member (packet from %s)",
                             mc->mlid, t->nodes[t->sw_node[f.dead_sw]].guid, f.dead_port,
                             member_name(b, sizeof b, t, src));
            }
            flood_reset(&f, f.touched, nt);
            f.deliv[src] = 0;
        }
        for (size_t i = 0; i < mc->n_members; i++)
            f.is_member[mc->members[i].gport] = 0;
    }
    rc = 0;
out:
    flood_free(&f, ctx);
    return rc;
}

int ibr_result_trace_mcast(ibr_mcast_hop *hops, size_t cap, size_t *n, const ibr_result *r,
                           uint16_t mlid, uint32_t node, unsigned int port)
{
    if (!n || !r || !r->lft || r->status != 0 || (cap && !hops))
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    const ibr__mcast *mc = NULL;
    for (size_t i = 0; i < r->n_mcast; i++)
        if (r->mcast[i].mlid == mlid)
            mc = &r->mcast[i];
    if (!mc || node >= t->n_nodes || port > t->nodes[node].nports ||
        (t->nodes[node].sw != IBR_NONE && port != 0) ||
        (t->nodes[node].sw == IBR_NONE && port == 0))
        return IBR_ENOTFOUND;
    ibr_context *ctx = t->ctx;
    flood f;
    int rc = flood_alloc(&f, t);
    if (rc < 0) {
        flood_free(&f, ctx);
        return rc;
    }
    f.mc = mc;
    f.hops = hops;
    f.cap = cap;
    f.loop_sw = IBR_NONE;
    for (size_t i = 0; i < mc->n_members; i++)
        f.is_member[mc->members[i].gport] = 1;
    uint32_t src = t->nodes[node].port_off + port;
    size_t nt = 0;
    rc = flood_run(&f, src, f.touched, &nt, &f.qlen);
    if (rc == 0) {
        *n = f.n;
        int ok = !f.loop && !f.dead_ends;
        for (size_t i = 0; i < mc->n_members && ok; i++)
            if (mc->members[i].gport != src && f.deliv[mc->members[i].gport] != 1)
                ok = 0;
        for (size_t i = 0; i < f.n && i < cap && ok; i++)
            if (hops[i].duplicate)
                ok = 0;
        if (f.n > cap)
            rc = IBR_ERANGE;
        else if (!ok)
            rc = IBR_EROUTES;
    }
    flood_free(&f, ctx);
    return rc;
}

int ibr__mcast_deps(ibr__cdg *g, const ibr_result *r, const uint32_t *port_adj, unsigned nvl)
{
    const ibr_topo *t = r->topo;
    for (size_t gi = 0; gi < r->n_mcast; gi++) {
        const uint8_t *bits = r->mcast[gi].bits;
        for (uint32_t u = 0; u < t->n_sw; u++) {
            const ibr__node *un = &t->nodes[t->sw_node[u]];
            const uint8_t *row = bits + (size_t)u * 32;
            int any = 0;
            for (unsigned k = 0; k < 32; k++)
                any |= row[k];
            if (!any)
                continue;
            /* copies arrive at u by an MFT port ip from neighbour v (whose
               MFT sends them on rp), and leave by every other MFT port */
            for (unsigned ip = 1; ip <= un->nports; ip++) {
                if (!bit(bits, u, ip))
                    continue;
                uint32_t ain = port_adj[un->port_off + ip];
                if (ain == IBR_NONE)
                    continue;
                uint32_t v = t->adj[ain].sw;
                unsigned rp = t->adj[ain].rport;
                if (!bit(bits, v, rp))
                    continue;
                const ibr__node *vn = &t->nodes[t->sw_node[v]];
                uint32_t ch_in = port_adj[vn->port_off + rp]; /* v -> u */
                if (ch_in == IBR_NONE)
                    continue;
                /* the VLs SL 0 takes on v -> u: from any port copies enter v by */
                uint32_t vls_in = 0;
                for (unsigned x = 0; x <= vn->nports; x++)
                    if (x != rp && (x == 0 || bit(bits, v, x)))
                        vls_in |= 1u << ibr__hop_vl(r, v, x, rp, 0);
                for (unsigned op = 1; op <= un->nports; op++) {
                    if (op == ip || !bit(bits, u, op))
                        continue;
                    uint32_t aout = port_adj[un->port_off + op];
                    if (aout == IBR_NONE)
                        continue;
                    unsigned vo = ibr__hop_vl(r, u, ip, op, 0);
                    if (vo >= nvl)
                        continue;
                    for (unsigned vi = 0; vi < nvl; vi++) {
                        if (!(vls_in & (1u << vi)))
                            continue;
                        int rc = ibr__cdg_add_edge(g, 0, ibr__channel(ch_in, vi, nvl),
                                                   ibr__channel(aout, vo, nvl), 1);
                        if (rc < 0)
                            return rc;
                    }
                }
            }
        }
    }
    return 0;
}
