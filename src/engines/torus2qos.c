/*
 * torus-2QoS: dimension-order routing on 2-D/3-D tori and meshes, with one
 * dateline per torus dimension and two QoS levels, as OpenSM 3.3's engine
 * of that name behaves (behaviour learned from its documentation; the code
 * here is our own).
 *
 * 1. The configuration (setting "config", the text of torus-2QoS.conf)
 *    gives the radices and seed links (torus2qos_conf.c). Without one,
 *    they are derived from the cabling of a regular torus or mesh
 *    (torus2qos_derive.c), logged and kept as the artefact
 *    torus-2QoS.conf, so that the user can pin them.
 * 2. Discovery places switches on positions: the first seed whose switches
 *    are all present places its origin at (-dateline) mod radix and its
 *    link ends one step away; then sweeps place the switch of an empty
 *    position from its placed neighbours until nothing changes. A switch is
 *    placed only when the evidence is unambiguous:
 *    - face: two placed neighbours of the position in different dimensions
 *      whose common corner is placed; their only other common neighbour
 *      is the switch sought;
 *    - line: two placed neighbours on both sides in one dimension (radix 4
 *      also needs the far side of the ring);
 *    - extension: the switch after a placed neighbour A along a line, when
 *      A's other neighbour on that line is known and each of A's unplaced
 *      perpendicular neighbours is ruled out by a placed opposite switch;
 *      the candidate must close a 4-loop with every placed perpendicular
 *      neighbour of A.
 *    A candidate's placed neighbours must all sit next to the position.
 *    Cables between neighbouring positions form the six directional port
 *    groups; port 0 and the cables to end ports the local group.
 * 3. Refusals: a ring broken in two places, missing switches other than one
 *    run along Z in one column, unplaced switches, overfull port groups.
 * 4. Unicast: DOR (X, Y, Z), each ring in its shorter direction (ties: the
 *    direct one), walking the long way round a broken ring, heading for a
 *    missing turning switch and turning early at its neighbour; cables of a
 *    group round-robin, separately for CA and switch destinations.
 * 5. Path SL bit d: the shortest ring path in dimension d between the two
 *    switches wraps (depends on coordinates only, so failures never change
 *    it). SL bit 3 is the QoS level (the result holds level 0; level 1 is
 *    SL + 8). SL2VL on inter-switch outputs of dimension d: VL bit 0 = SL
 *    bit d, bit 1 = the turn from a higher dimension (4 VLs or more), bit
 *    2 = SL bit 3 (8 VLs or more); toward end ports VL = SL bit 3.
 * 6. Multicast (route_mcast): a master spanning tree grown ring by ring (X
 *    through the root, Y through the root's X line, Z through the root's Z
 *    plane, each ring up to its dateline unless broken), each group's tree
 *    the union of its members' paths to the root (doc/engines.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cdg/cdg.h"
#include "core/buffer.h"
#include "core/messages.h"
#include "engines/torus2qos.h"

static const char DIMC[] = "xyz";

uint32_t t2q_step(const t2q_torus *tq, uint32_t p, unsigned d, unsigned dir)
{
    unsigned r = tq->radix[d];
    if (p == IBR_NONE || r < 2)
        return IBR_NONE;
    uint32_t stride = tq->stride[d];
    unsigned c = t2q_coord(tq, p, d);
    if (dir) {
        if (c + 1 < r)
            return p + stride;
        return tq->mesh[d] ? IBR_NONE : p - c * stride;
    }
    if (c > 0)
        return p - stride;
    return tq->mesh[d] ? IBR_NONE : p + (r - 1) * stride;
}

typedef struct t2q {
    ibr_run *run;
    const ibr_topo *t;
    ibr_context *ctx;
    t2q_config cf;
    t2q_torus tq;
    unsigned vls;
    uint32_t *cand;     /* scratch, n_sw */
    char *msg;          /* IBR_ERRMSG_SIZE */
    ibr_buffer derived; /* the configuration derived from the cabling, if
                           none was given */
    /* a repair (t2q_repair_run): only the destination switches marked in
       dest are routed, each entry handed to put instead of the LFT */
    const uint8_t *dest;
    uint8_t *src;       /* per switch: its routes may change (NULL: every one) */
    const uint8_t *sl_kept; /* per LID: its SLs toward the others so marked
                               are in the result (NULL: none) */
    t2q_put_fn put;
    void *put_arg;
} t2q;

static uint64_t sw_guid(const t2q *q, uint32_t s)
{
    return q->t->nodes[q->t->sw_node[s]].guid;
}

static int adjacent(const t2q *q, uint32_t a, uint32_t b)
{
    const ibr_topo *t = q->t;
    for (uint32_t i = t->adj_off[a]; i < t->adj_off[a + 1]; i++)
        if (t->adj[i].sw == b)
            return 1;
    return 0;
}

static int is_placed_pos(const t2q *q, uint32_t p)
{
    return p != IBR_NONE && q->tq.pos_sw[p] != IBR_NONE;
}

static int pos_adjacent(const t2q_torus *tq, uint32_t a, uint32_t b)
{
    for (unsigned d = 0; d < T2Q_DIMS; d++)
        for (unsigned dir = 0; dir < 2; dir++)
            if (t2q_step(tq, a, d, dir) == b)
                return 1;
    return 0;
}

/* Every placed neighbour of switch s sits next to position p. */
static int consistent(const t2q *q, uint32_t s, uint32_t p)
{
    const ibr_topo *t = q->t;
    for (uint32_t i = t->adj_off[s]; i < t->adj_off[s + 1]; i++) {
        uint32_t np = q->tq.sw_pos[t->adj[i].sw];
        if (np != IBR_NONE && !pos_adjacent(&q->tq, np, p))
            return 0;
    }
    return 1;
}

/* Unplaced switches adjacent to both a and b (b may be IBR_NONE: adjacent
   to a), distinct, into q->cand; returns their number (at most 2 kept). */
static unsigned common_unplaced(t2q *q, uint32_t a, uint32_t b)
{
    const ibr_topo *t = q->t;
    unsigned n = 0;
    for (uint32_t i = t->adj_off[a]; i < t->adj_off[a + 1]; i++) {
        uint32_t c = t->adj[i].sw;
        if (q->tq.sw_pos[c] != IBR_NONE || (b != IBR_NONE && !adjacent(q, b, c)))
            continue;
        int dup = 0;
        for (unsigned k = 0; k < n; k++)
            dup |= q->cand[k] == c;
        if (!dup)
            q->cand[n++] = c;
    }
    return n;
}

/* The one switch the placed neighbours of position p point at, or
   IBR_NONE (no evidence, or ambiguous). */
static uint32_t find_switch(t2q *q, uint32_t p)
{
    const t2q_torus *tq = &q->tq;
    /* face: neighbours in two dimensions with their common corner placed */
    for (unsigned d1 = 0; d1 < T2Q_DIMS; d1++)
        for (unsigned d2 = d1 + 1; d2 < T2Q_DIMS; d2++)
            for (unsigned s1 = 0; s1 < 2; s1++)
                for (unsigned s2 = 0; s2 < 2; s2++) {
                    uint32_t a = t2q_step(tq, p, d1, s1), b = t2q_step(tq, p, d2, s2);
                    if (!is_placed_pos(q, a) || !is_placed_pos(q, b) ||
                        !is_placed_pos(q, t2q_step(tq, a, d2, s2)))
                        continue;
                    if (common_unplaced(q, tq->pos_sw[a], tq->pos_sw[b]) == 1 &&
                        consistent(q, q->cand[0], p))
                        return q->cand[0];
                }
    /* line: both neighbours along one dimension */
    for (unsigned d = 0; d < T2Q_DIMS; d++) {
        uint32_t a = t2q_step(tq, p, d, 0), b = t2q_step(tq, p, d, 1);
        if (a == b || !is_placed_pos(q, a) || !is_placed_pos(q, b))
            continue;
        if (tq->radix[d] == 4 && !tq->mesh[d] && !is_placed_pos(q, t2q_step(tq, b, d, 1)))
            continue;
        if (common_unplaced(q, tq->pos_sw[a], tq->pos_sw[b]) == 1 &&
            consistent(q, q->cand[0], p))
            return q->cand[0];
    }
    /* extension from a = p - s e_d */
    for (unsigned d = 0; d < T2Q_DIMS; d++)
        for (unsigned s = 0; s < 2; s++) {
            uint32_t a = t2q_step(tq, p, d, !s);
            if (!is_placed_pos(q, a))
                continue;
            uint32_t back = t2q_step(tq, a, d, !s);
            if (back != IBR_NONE && !is_placed_pos(q, back))
                continue;
            int covered = 1;
            for (unsigned k = 0; k < T2Q_DIMS && covered; k++) {
                if (k == d)
                    continue;
                for (unsigned s2 = 0; s2 < 2 && covered; s2++) {
                    uint32_t x = t2q_step(tq, a, k, s2);
                    if (x == IBR_NONE || is_placed_pos(q, x))
                        continue;
                    uint32_t y = t2q_step(tq, a, k, !s2);
                    if (!is_placed_pos(q, y) || y == x)
                        covered = 0;
                    else if (tq->radix[k] == 4 && !tq->mesh[k] &&
                             !is_placed_pos(q, t2q_step(tq, x, k, s2)))
                        covered = 0;
                }
            }
            if (!covered)
                continue;
            uint32_t sa = tq->pos_sw[a], found = IBR_NONE;
            unsigned nfound = 0;
            const ibr_topo *t = q->t;
            for (uint32_t i = t->adj_off[sa]; i < t->adj_off[sa + 1] && nfound < 2; i++) {
                uint32_t c = t->adj[i].sw;
                if (tq->sw_pos[c] != IBR_NONE || c == found || !consistent(q, c, p))
                    continue;
                int ok = 1;
                for (unsigned k = 0; k < T2Q_DIMS && ok; k++) {
                    if (k == d)
                        continue;
                    for (unsigned s2 = 0; s2 < 2 && ok; s2++) {
                        uint32_t bp = t2q_step(tq, a, k, s2);
                        if (!is_placed_pos(q, bp))
                            continue;
                        uint32_t sb = tq->pos_sw[bp], want = t2q_step(tq, bp, d, s);
                        /* a 4-loop a - b - qq - c */
                        ok = 0;
                        for (uint32_t j = t->adj_off[c]; j < t->adj_off[c + 1] && !ok; j++) {
                            uint32_t qq = t->adj[j].sw;
                            if (qq == sa || !adjacent(q, sb, qq))
                                continue;
                            ok = tq->sw_pos[qq] == IBR_NONE || tq->sw_pos[qq] == want;
                        }
                    }
                }
                if (ok) {
                    found = c;
                    nfound++;
                }
            }
            if (nfound == 1)
                return found;
        }
    return IBR_NONE;
}

static void place(t2q *q, uint32_t s, uint32_t p)
{
    q->tq.pos_sw[p] = s;
    q->tq.sw_pos[s] = p;
    q->tq.order[q->tq.n_placed++] = s;
}

static uint32_t find_sw_guid(const t2q *q, uint64_t guid)
{
    uint32_t gp = ibr__topo_find_port_guid(q->t, guid);
    if (gp == IBR_NONE)
        return IBR_NONE;
    uint32_t node = q->t->port_node[gp];
    uint32_t s = q->t->nodes[node].sw;
    if (s == IBR_NONE || q->t->adj_off[s] == q->t->adj_off[s + 1])
        return IBR_NONE;
    return s;
}

/* Check the seeds (OpenSM's verify_setup) and place the first usable one.
   Returns 0 or a decline. */
static int seed(t2q *q)
{
    const t2q_config *cf = &q->cf;
    t2q_torus *tq = &q->tq;
    for (unsigned i = 0; i < cf->n_seeds; i++) {
        const t2q_seed *sd = &cf->seeds[i];
        uint64_t origin = 0;
        for (unsigned d = 0; d < T2Q_DIMS; d++) {
            if (cf->radix[d] < 2)
                continue;
            int np = sd->from[d][1] != 0, nm = sd->from[d][0] != 0;
            if (!np && !nm)
                return ibr__decline(
                    q->run,
                    IBR__MSG("EN047", "torus-2QoS.conf seed %u (line %u): no %cp_link or %cm_link "
                                      "for the %c dimension (radix %u)"),
                    i + 1, sd->line, DIMC[d], DIMC[d], DIMC[d], cf->radix[d]);
            if (cf->radix[d] == 4 && !cf->mesh[d] && (!np || !nm))
                return ibr__decline(
                    q->run,
                    IBR__MSG("EN048", "torus-2QoS.conf seed %u (line %u): the %c dimension is a "
                                      "radix-4 torus: both %cp_link and %cm_link are required"),
                    i + 1, sd->line, DIMC[d], DIMC[d], DIMC[d]);
            for (unsigned dir = 0; dir < 2; dir++) {
                if (!sd->from[d][dir])
                    continue;
                if (!origin)
                    origin = sd->from[d][dir];
                if (sd->from[d][dir] != origin)
                    return ibr__decline(
                        q->run,
                        IBR__MSG("EN049", "torus-2QoS.conf seed %u (line %u): the seed links do "
                                          "not share one origin switch (0x%016" PRIx64
                                          " and 0x%016" PRIx64 ")"),
                        i + 1, sd->line, origin, sd->from[d][dir]);
            }
        }
    }
    for (unsigned i = 0; i < cf->n_seeds; i++) {
        const t2q_seed *sd = &cf->seeds[i];
        int usable = 1;
        for (unsigned d = 0; d < T2Q_DIMS && usable; d++)
            for (unsigned dir = 0; dir < 2 && cf->radix[d] >= 2; dir++)
                if (sd->from[d][dir] && (find_sw_guid(q, sd->from[d][dir]) == IBR_NONE ||
                                         find_sw_guid(q, sd->to[d][dir]) == IBR_NONE))
                    usable = 0;
        if (!usable)
            continue;
        uint32_t p = 0, stride = 1, o = IBR_NONE;
        for (unsigned d = 0; d < T2Q_DIMS; d++) {
            int r = (int)cf->radix[d];
            p += (uint32_t)(((-sd->dateline[d]) % r + r) % r) * stride;
            stride *= (uint32_t)r;
        }
        for (unsigned d = 0; d < T2Q_DIMS && o == IBR_NONE; d++)
            for (unsigned dir = 0; dir < 2 && cf->radix[d] >= 2; dir++)
                if (sd->from[d][dir]) {
                    o = find_sw_guid(q, sd->from[d][dir]);
                    break;
                }
        if (o == IBR_NONE)
            return ibr__decline(q->run,
                                IBR__MSG("EN050", "torus-2QoS.conf seed %u (line %u) has no link"),
                                i + 1, sd->line);
        place(q, o, p);
        for (unsigned d = 0; d < T2Q_DIMS; d++)
            for (unsigned dir = 0; dir < 2 && cf->radix[d] >= 2; dir++) {
                if (!sd->from[d][dir])
                    continue;
                uint32_t s = find_sw_guid(q, sd->to[d][dir]), np = t2q_step(tq, p, d, dir);
                if (np == IBR_NONE)
                    return ibr__decline(
                        q->run,
                        IBR__MSG("EN051", "torus-2QoS.conf seed %u: %c%c_link points beyond the "
                                          "edge of the mesh"),
                        i + 1, DIMC[d], dir ? 'p' : 'm');
                if (tq->pos_sw[np] == s)
                    continue;
                if (tq->pos_sw[np] != IBR_NONE || tq->sw_pos[s] != IBR_NONE)
                    return ibr__decline(
                        q->run,
                        IBR__MSG("EN052", "torus-2QoS.conf seed %u: switch 0x%016" PRIx64
                                          " cannot be placed (its position or itself is taken)"),
                        i + 1, sd->to[d][dir]);
                place(q, s, np);
            }
        if (i > 0) {
            snprintf(q->msg, IBR_ERRMSG_SIZE,
                     "torus-2QoS: seed %u (line %u) used: earlier seeds name absent switches",
                     i + 1, sd->line);
            ibr_run_log(q->run, IBR_LOG_INFO, q->msg);
        }
        return 0;
    }
    return ibr__decline(
        q->run,
        IBR__MSG("EN053", "torus-2QoS.conf: no seed has all its switches present in the fabric "
                          "(%u seed(s); the first names 0x%016" PRIx64 ")"),
        cf->n_seeds, cf->seeds[0].from[0][1] ? cf->seeds[0].from[0][1] : cf->seeds[0].from[0][0]);
}

static int discover(t2q *q)
{
    const ibr_topo *t = q->t;
    t2q_torus *tq = &q->tq;
    int rc;
    if ((rc = seed(q)) < 0)
        return rc;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t p = 0; p < tq->n_pos; p++) {
            if (tq->pos_sw[p] != IBR_NONE)
                continue;
            uint32_t s = find_switch(q, p);
            if (s != IBR_NONE) {
                place(q, s, p);
                changed = 1;
            }
        }
    }
    /* switches left out */
    unsigned left = 0;
    char list[200];
    size_t ll = 0;
    list[0] = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        if (tq->sw_pos[s] != IBR_NONE || t->adj_off[s] == t->adj_off[s + 1])
            continue;
        if (left++ < 4 && ll < sizeof list - 24)
            ll += (size_t)snprintf(list + ll, sizeof list - ll, "%s0x%016" PRIx64,
                                   left > 1 ? ", " : "", sw_guid(q, s));
    }
    if (left)
        return ibr__decline(
            q->run,
            IBR__MSG("EN054", "%u switch(es) could not be placed in the %ux%ux%u %s "
                              "(%s%s): %s"),
            left, tq->radix[0], tq->radix[1], tq->radix[2],
            tq->mesh[0] && tq->mesh[1] && tq->mesh[2] ? "mesh" : "torus", list,
            left > 4 ? ", ..." : "",
            q->derived.size ? "no torus-2QoS.conf given, and the cabling is not a regular "
                              "torus or mesh around the seed derived from it"
                            : "the radices or seed links of torus-2QoS.conf do not match "
                              "the cabling");
    /* port groups */
    unsigned pg = tq->pg_max;
    for (uint32_t p = 0; p < tq->n_pos; p++) {
        uint32_t s = tq->pos_sw[p];
        if (s == IBR_NONE)
            continue;
        for (unsigned g = 0; g < 6; g++) {
            uint32_t np = t2q_step(tq, p, g / 2, g & 1);
            if (!is_placed_pos(q, np))
                continue;
            uint32_t ns = tq->pos_sw[np];
            uint8_t *grp = &tq->grp[((size_t)p * T2Q_GROUPS + g) * pg];
            uint8_t *n = &tq->grp_n[(size_t)p * T2Q_GROUPS + g];
            for (uint32_t i = t->adj_off[s]; i < t->adj_off[s + 1]; i++) {
                if (t->adj[i].sw != ns)
                    continue;
                if (*n >= pg)
                    return ibr__decline(
                        q->run,
                        IBR__MSG("EN055", "switch 0x%016" PRIx64 " has more than %u "
                                          "cables in its %c%c port group (portgroup_max_ports)"),
                        sw_guid(q, s), pg, g & 1 ? '+' : '-', DIMC[g / 2]);
                /* order by the port on the switch holding the + group */
                uint8_t key = (g & 1) ? t->adj[i].port : t->adj[i].rport;
                unsigned k = *n;
                while (k > 0) {
                    uint8_t prev = grp[k - 1];
                    uint8_t pk = prev;
                    if (!(g & 1)) {
                        for (uint32_t j = t->adj_off[s]; j < t->adj_off[s + 1]; j++)
                            if (t->adj[j].port == prev)
                                pk = t->adj[j].rport;
                    }
                    if (pk <= key)
                        break;
                    grp[k] = grp[k - 1];
                    k--;
                }
                grp[k] = t->adj[i].port;
                (*n)++;
                tq->port_grp[(size_t)s * 256 + t->adj[i].port] = (uint8_t)g;
            }
        }
        /* local group: port 0 and cables to end ports */
        const ibr__node *nd = &t->nodes[t->sw_node[s]];
        uint8_t *grp = &tq->grp[((size_t)p * T2Q_GROUPS + T2Q_LOCAL) * pg];
        uint8_t *n = &tq->grp_n[(size_t)p * T2Q_GROUPS + T2Q_LOCAL];
        for (unsigned port = 0; port <= nd->nports; port++) {
            const ibr__port *pt = &t->ports[nd->port_off + port];
            if (port > 0 && (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                             t->nodes[pt->remote_node].type == IBR_NODE_SWITCH))
                continue;
            if (*n >= pg)
                return ibr__decline(q->run,
                                    IBR__MSG("EN056",
                                             "switch 0x%016" PRIx64 " has more than %u local "
                                             "ports (port 0 and end ports; portgroup_max_ports)"),
                                    sw_guid(q, s), pg);
            grp[(*n)++] = (uint8_t)port;
            tq->port_grp[(size_t)s * 256 + port] = T2Q_LOCAL;
        }
    }
    return 0;
}

static void pos_str(char *buf, size_t size, const t2q_torus *tq, uint32_t p)
{
    snprintf(buf, size, "%u,%u,%u", t2q_coord(tq, p, 0), t2q_coord(tq, p, 1), t2q_coord(tq, p, 2));
}

/* OpenSM's routable_torus: broken rings and missing switches. */
static int check_routable(t2q *q)
{
    const t2q_torus *tq = &q->tq;
    char a[40], b[40];
    for (unsigned d = 0; d < T2Q_DIMS; d++) {
        if (tq->radix[d] < 2)
            continue;
        for (uint32_t p = 0; p < tq->n_pos; p++) {
            if (t2q_coord(tq, p, d) != 0)
                continue; /* one ring per line: start at coordinate 0 */
            unsigned nb = 0, ng = 0;
            uint32_t first_b = IBR_NONE, x = p;
            for (unsigned c = 0; c < tq->radix[d]; c++) {
                if (tq->pos_sw[x] != IBR_NONE) {
                    if (!tq->grp_n[(size_t)x * T2Q_GROUPS + 2 * d]) {
                        if (!nb)
                            first_b = x;
                        nb++;
                    }
                    ng += !tq->grp_n[(size_t)x * T2Q_GROUPS + 2 * d + 1];
                }
                uint32_t nx = t2q_step(tq, x, d, 1);
                if (nx == IBR_NONE) /* mesh: the stride is still one */
                    nx = x + tq->stride[d];
                x = nx;
            }
            if (nb == ng && nb <= 1)
                continue;
            pos_str(a, sizeof a, tq, p);
            pos_str(b, sizeof b, tq, first_b == IBR_NONE ? p : first_b);
            return ibr__decline(
                q->run,
                IBR__MSG("EN057", "%s failures in the %c ring through (%s): %u "
                                  "switches without a -%c link (first at %s, switch 0x%016" PRIx64
                                  "), %u without a +%c link; the torus is not routable"),
                nb != ng ? "strange" : "disjoint", DIMC[d], a, nb, DIMC[d], b,
                first_b == IBR_NONE ? 0 : sw_guid(q, tq->pos_sw[first_b]), ng, DIMC[d]);
        }
    }
    unsigned missing = 0, cols = 0, zgap = 0;
    uint32_t first = IBR_NONE;
    uint32_t xy = tq->radix[0] * tq->radix[1];
    for (uint32_t p = 0; p < tq->n_pos; p++) {
        if (tq->pos_sw[p] != IBR_NONE)
            continue;
        if (!missing++)
            first = p;
        uint32_t zm = t2q_step(tq, p, 2, 0), zp = t2q_step(tq, p, 2, 1);
        if (is_placed_pos(q, zm) && is_placed_pos(q, zp))
            zgap = 1;
    }
    /* (i, j) columns holding a missing switch */
    for (uint32_t c = 0; missing > 1 && c < xy; c++)
        for (uint32_t p = c; p < tq->n_pos; p += xy)
            if (tq->pos_sw[p] == IBR_NONE) {
                cols++;
                break;
            }
    if (missing > 1 && (zgap || cols > 1)) {
        pos_str(a, sizeof a, tq, first);
        return ibr__decline(
            q->run,
            IBR__MSG("EN058", "%u torus switches missing (first at %s)%s: only one run "
                              "of Z-adjacent switches in one column can be routed around (missing "
                              "switch topology ==> message deadlock)"),
            missing, a, cols > 1 ? " in several columns" : "");
    }
    return 0;
}

/* 6.1: the preferred direction (1 = plus) from coordinate s to t on a ring
   of n; *wraps = the shorter path wraps. */
static unsigned prefer(unsigned s, unsigned t, unsigned n, int *wraps)
{
    unsigned direct = s < t ? t - s : s - t, wrap = n - direct;
    int w = wrap < direct;
    if (wraps)
        *wraps = w;
    return w ? (t < s) : (t > s);
}

/* The direction group to leave position sp by along dim d toward dp's
   coordinate, or -1 when d is blocked there. */
static int try_dim(const t2q *q, uint32_t sp, uint32_t dp, unsigned d)
{
    const t2q_torus *tq = &q->tq;
    unsigned r = tq->radix[d], cs = t2q_coord(tq, sp, d), cd = t2q_coord(tq, dp, d);
    uint32_t stride = tq->stride[d];
    uint32_t turn = sp - cs * stride + cd * stride;
    unsigned pref = prefer(cs, cd, r, NULL);
    if (tq->pos_sw[turn] == IBR_NONE)
        return tq->grp_n[(size_t)sp * T2Q_GROUPS + 2 * d + pref] ? (int)(2 * d + pref) : -1;
    for (unsigned k = 0; k < 2; k++) {
        unsigned dir = k ? !pref : pref;
        uint32_t x = sp;
        for (unsigned step = 0; step < r; step++) {
            if (!tq->grp_n[(size_t)x * T2Q_GROUPS + 2 * d + dir])
                break;
            x = t2q_step(tq, x, d, dir);
            if (x == IBR_NONE || tq->pos_sw[x] == IBR_NONE)
                break;
            if (x == turn)
                return (int)(2 * d + dir);
        }
    }
    return -1;
}

/* 6.2: the direction group from sp toward dp (sp != dp), or -1. */
static int next_group(const t2q *q, uint32_t sp, uint32_t dp)
{
    for (unsigned d = 0; d < T2Q_DIMS; d++) {
        if (t2q_coord(&q->tq, sp, d) == t2q_coord(&q->tq, dp, d))
            continue;
        int g = try_dim(q, sp, dp, d);
        for (unsigned e = d + 1; g < 0 && e < T2Q_DIMS; e++)
            if (t2q_coord(&q->tq, sp, e) != t2q_coord(&q->tq, dp, e))
                g = try_dim(q, sp, dp, e);
        return g;
    }
    return -1;
}

typedef struct endpoint {
    uint16_t lid;
    uint8_t nlids_log; /* LIDs routed: 1 << nlids_log */
    uint8_t swport;
    uint8_t rank;
    uint8_t is_sw;
} endpoint;

static int ep_cmp(const void *a, const void *b, void *arg)
{
    (void)arg;
    const endpoint *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/* A repair: the LIDs of a marked switch outside the model, and those of
   end ports cabled to no switch, are unreachable from every other switch,
   as a full run leaves them. */
static void put_unreachable(t2q *q)
{
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    for (uint32_t l = 1; l <= t->max_lid; l++) {
        uint32_t d = t->lid_sw[l];
        if (t->lid_port[l] == IBR_NONE ||
            (d != IBR_NONE && (tq->sw_pos[d] != IBR_NONE || (q->dest && !q->dest[d]))))
            continue;
        for (uint32_t s = 0; s < t->n_sw; s++)
            if (s != d)
                q->put(q->put_arg, s, l, IBR_NO_ROUTE);
    }
}

static int route_unicast(t2q *q)
{
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    const ibr_options *o = ibr_run_options(q->run);
    unsigned lmc_cap = o->lmc == IBR_LMC_TOPO ? 7 : o->lmc;
    ibr_context *ctx = q->ctx;
    uint32_t n_sw = t->n_sw;
    size_t n_ep = (size_t)t->n_end + n_sw;
    endpoint *ep = ibr__calloc(ctx, n_ep ? n_ep : 1, sizeof *ep);
    uint32_t *ep_off = ibr__calloc(ctx, (size_t)tq->n_pos + 1, sizeof *ep_off);
    uint32_t *ep_pos = ibr__mallocarray(ctx, n_ep ? n_ep : 1, sizeof *ep_pos);
    uint32_t *ctr = ibr__calloc(ctx, (size_t)tq->n_pos * 12, sizeof *ctr);
    int rc = 0;
    if (!ep || !ep_off || !ep_pos || !ctr) {
        rc = IBR_ENOMEM;
        goto out;
    }
    /* the endpoints of each position, in port_order */
    size_t m = 0;
    for (size_t i = 0; i < n_ep; i++) {
        uint32_t gp, s;
        uint16_t lid;
        if (i < t->n_end) {
            gp = t->end_port[i];
            lid = t->ports[gp].lid;
            if (!lid || t->lid_sw[lid] == IBR_NONE)
                continue;
            s = t->lid_sw[lid];
        } else {
            s = (uint32_t)(i - t->n_end);
            gp = t->nodes[t->sw_node[s]].port_off;
            lid = t->ports[gp].lid;
            if (!lid)
                continue;
        }
        if (tq->sw_pos[s] == IBR_NONE)
            continue;
        endpoint *e = &ep[m];
        e->lid = lid;
        e->is_sw = i >= t->n_end;
        e->swport = e->is_sw ? 0 : t->lid_swport[lid];
        e->rank = q->cf.port_rank[e->swport];
        unsigned l = t->ports[gp].lmc < lmc_cap ? t->ports[gp].lmc : lmc_cap;
        e->nlids_log = (uint8_t)l;
        ep_pos[m] = tq->sw_pos[s];
        ep_off[tq->sw_pos[s] + 1]++;
        m++;
    }
    for (uint32_t p = 0; p < tq->n_pos; p++)
        ep_off[p + 1] += ep_off[p];
    {
        endpoint *sorted = ibr__mallocarray(ctx, m ? m : 1, sizeof *sorted);
        uint32_t *fill = ibr__mallocarray(ctx, (size_t)tq->n_pos + 1, sizeof *fill);
        if (!sorted || !fill) {
            ibr__free(ctx, sorted);
            ibr__free(ctx, fill);
            rc = IBR_ENOMEM;
            goto out;
        }
        memcpy(fill, ep_off, ((size_t)tq->n_pos + 1) * sizeof *fill);
        for (size_t i = 0; i < m; i++)
            sorted[fill[ep_pos[i]]++] = ep[i];
        for (uint32_t p = 0; p < tq->n_pos; p++)
            ibr__sort(sorted + ep_off[p], ep_off[p + 1] - ep_off[p], sizeof *sorted, ep_cmp, NULL);
        memcpy(ep, sorted, m * sizeof *ep);
        ibr__free(ctx, sorted);
        ibr__free(ctx, fill);
    }
    /* switches outside the model (isolated: every link down) reach only
       themselves */
    for (uint32_t s = 0; s < n_sw; s++) {
        uint16_t lid = t->ports[t->nodes[t->sw_node[s]].port_off].lid;
        uint8_t *lft = q->put ? NULL : ibr_run_lft(q->run, s);
        if (tq->sw_pos[s] != IBR_NONE || !lid)
            continue;
        if (lft)
            lft[lid] = 0;
        else if (q->put && (!q->dest || q->dest[s]))
            q->put(q->put_arg, s, lid, 0);
    }
    for (uint32_t si = 0; si < tq->n_placed; si++) {
        uint32_t s = tq->order[si], sp = tq->sw_pos[s];
        if (q->src && !q->src[s])
            continue;
        uint8_t *lft = q->put ? NULL : ibr_run_lft(q->run, s);
        if (!lft && !q->put) {
            rc = IBR_EINTERNAL;
            goto out;
        }
        for (uint32_t di = 0; di < tq->n_placed; di++) {
            uint32_t dsw = tq->order[di], dp = tq->sw_pos[dsw];
            int g = -1;
            if (q->dest && !q->dest[dsw])
                continue;
            if (dp != sp && (g = next_group(q, sp, dp)) < 0) {
                char a[40], b[40];
                pos_str(a, sizeof a, tq, sp);
                pos_str(b, sizeof b, tq, dp);
                rc = ibr__fail(q->run, IBR_EUNROUTABLE,
                               IBR__MSG("EN059", "unable to route from switch 0x%016" PRIx64
                                                 " (%s) to switch 0x%016" PRIx64 " (%s)"),
                               sw_guid(q, s), a, sw_guid(q, dsw), b);
                goto out;
            }
            const uint8_t *grp = g >= 0 ? &tq->grp[((size_t)sp * T2Q_GROUPS + (unsigned)g) *
                                                   tq->pg_max] : NULL;
            unsigned gn = g >= 0 ? tq->grp_n[(size_t)sp * T2Q_GROUPS + (unsigned)g] : 0;
            for (uint32_t k = ep_off[dp]; k < ep_off[dp + 1]; k++) {
                const endpoint *e = &ep[k];
                uint8_t port;
                if (g < 0) {
                    port = e->swport;
                } else {
                    uint32_t *c = &ctr[(size_t)sp * 12 + (unsigned)g * 2 + e->is_sw];
                    port = grp[*c % gn];
                    (*c)++;
                }
                for (unsigned l = 0; l < (1u << e->nlids_log); l++) {
                    if ((uint32_t)e->lid + l > t->max_lid)
                        break;
                    if (lft)
                        lft[e->lid + l] = port;
                    else
                        q->put(q->put_arg, s, e->lid + l, port);
                }
            }
        }
        if (((si + 1) & 63) == 0 && (rc = ibr_run_progress(q->run, "torus-2QoS: unicast", si + 1,
                                                            tq->n_placed)) < 0)
            goto out;
    }
    if (q->put)
        put_unreachable(q);
out:
    if (rc == IBR_ENOMEM)
        rc = ibr__fail(q->run, IBR_ENOMEM, "out of memory");
    ibr__free(ctx, ep);
    ibr__free(ctx, ep_off);
    ibr__free(ctx, ep_pos);
    ibr__free(ctx, ctr);
    return rc;
}

static int write_sls(t2q *q)
{
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    int rc;
    if ((rc = ibr_run_set_sl_mode(q->run, IBR_SL_PER_PAIR)) < 0)
        return rc;
    uint32_t *lid_pos = ibr__mallocarray(q->ctx, (size_t)t->max_lid + 1, sizeof *lid_pos);
    /* wrap[d][a * 256 + b]: SL bit d from coordinate a to b */
    uint8_t *wrap = ibr__calloc(q->ctx, T2Q_DIMS * 256 * 256, 1);
    if (!lid_pos || !wrap) {
        ibr__free(q->ctx, lid_pos);
        ibr__free(q->ctx, wrap);
        return IBR_ENOMEM;
    }
    for (unsigned d = 0; d < T2Q_DIMS; d++)
        for (unsigned a = 0; a < tq->radix[d]; a++)
            for (unsigned b = 0; b < tq->radix[d]; b++) {
                int w = 0;
                if (tq->radix[d] > 1)
                    prefer(a, b, tq->radix[d], &w);
                wrap[(d * 256 + a) * 256 + b] = (uint8_t)(w << d);
            }
    for (uint32_t l = 0; l <= t->max_lid; l++)
        lid_pos[l] = t->lid_sw[l] == IBR_NONE ? IBR_NONE : tq->sw_pos[t->lid_sw[l]];
    /* a repair: between two kept LIDs the SLs are there already; the other
       LIDs (fresh) listed once, in lid_new */
    uint32_t *lid_new = NULL, n_new = 0;
    if (q->sl_kept) {
        lid_new = ibr__mallocarray(q->ctx, (size_t)t->max_lid + 1, sizeof *lid_new);
        if (!lid_new) {
            ibr__free(q->ctx, lid_pos);
            ibr__free(q->ctx, wrap);
            return IBR_ENOMEM;
        }
        for (uint32_t l = 1; l <= t->max_lid; l++)
            if (lid_pos[l] != IBR_NONE && !q->sl_kept[l])
                lid_new[n_new++] = l;
    }
    for (size_t i = 0; i < (size_t)t->n_end + t->n_sw; i++) {
        uint16_t lid;
        if (i < t->n_end)
            lid = t->ports[t->end_port[i]].lid;
        else
            lid = t->ports[t->nodes[t->sw_node[i - t->n_end]].port_off].lid;
        if (!lid || lid_pos[lid] == IBR_NONE)
            continue;
        uint8_t *row = ibr_run_sl_row(q->run, lid);
        if (!row)
            continue;
        const uint8_t *c = &tq->coord[(size_t)lid_pos[lid] * T2Q_DIMS];
        const uint8_t *w0 = &wrap[(0 * 256 + c[0]) * 256], *w1 = &wrap[(1 * 256 + c[1]) * 256],
                      *w2 = &wrap[(2 * 256 + c[2]) * 256];
        if (lid_new && q->sl_kept[lid]) {
            for (uint32_t k = 0; k < n_new; k++) {
                const uint8_t *e = &tq->coord[(size_t)lid_pos[lid_new[k]] * T2Q_DIMS];
                row[lid_new[k]] = (uint8_t)(w0[e[0]] | w1[e[1]] | w2[e[2]]);
            }
            continue;
        }
        for (uint32_t l = 1; l <= t->max_lid; l++)
            if (lid_pos[l] != IBR_NONE) {
                const uint8_t *e = &tq->coord[(size_t)lid_pos[l] * T2Q_DIMS];
                row[l] = (uint8_t)(w0[e[0]] | w1[e[1]] | w2[e[2]]);
            }
    }
    ibr__free(q->ctx, lid_pos);
    ibr__free(q->ctx, wrap);
    ibr__free(q->ctx, lid_new);
    return 0;
}

/* The VL of SL sl entering a switch by a port of group gi and leaving by
   one of group go (T2Q_LOCAL for port 0 and end ports), with vls data VLs:
   bit 0 the SL's wrap bit of the output's dimension, bit 1 the turn bit
   (input dimension above the output's), bit 2 the QoS level (SL bit 3);
   toward an end port the QoS level alone. */
static unsigned t2q_vl(unsigned vls, unsigned gi, unsigned go, unsigned sl)
{
    if (go >= 6)
        return vls >= 2 && (sl & 8) ? 1 : 0;
    unsigned d = go / 2;
    unsigned vl = (sl >> d) & 1;
    if (vls >= 4 && gi < 6 && gi / 2 > d)
        vl |= 2;
    if (vls >= 8 && (sl & 8))
        vl |= 4;
    return vl;
}

/* Smallest VLCap (as a count) over the ports OpenSM's torus-2QoS looks at,
   capped at 15: with sw, switch ports actively cabled to another switch
   (its min_sw_data_vls); else CA and router ports actively cabled to a
   switch (min_data_vls). 15 when there is none. */
static unsigned min_vl_cap(const ibr_topo *t, int sw)
{
    unsigned vls = 15;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        const ibr__node *n = &t->nodes[i];
        if ((n->type == IBR_NODE_SWITCH) != (sw != 0))
            continue;
        for (unsigned p = 1; p <= n->nports; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            if (pt->remote_node == IBR_NONE || pt->state != IBR_LINK_ACTIVE ||
                pt->remote_node == i || t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
                continue;
            if (pt->vl_cap < vls)
                vls = pt->vl_cap;
        }
    }
    return vls;
}

static int write_sl2vl(t2q *q)
{
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    unsigned vls = q->vls;
    int rc;
    for (uint32_t si = 0; si < tq->n_placed; si++) {
        uint32_t s = tq->order[si];
        unsigned np = t->nodes[t->sw_node[s]].nports;
        const uint8_t *pg = &tq->port_grp[(size_t)s * 256];
        for (unsigned ip = 0; ip <= np; ip++)
            for (unsigned op = 0; op <= np; op++) {
                uint8_t map[16];
                unsigned gi = ip == 0 ? T2Q_LOCAL : pg[ip], go = op == 0 ? T2Q_LOCAL : pg[op];
                for (unsigned sl = 0; sl < 16; sl++)
                    map[sl] = (uint8_t)t2q_vl(vls, gi, go, sl);
                if ((rc = ibr_run_set_sl2vl(q->run, s, ip, op, map)) < 0)
                    return rc;
            }
    }
    /* end ports: VL = the QoS level (SL bit 3) when they have 2 VLs */
    uint8_t ep[16];
    for (unsigned sl = 0; sl < 16; sl++)
        ep[sl] = (uint8_t)(vls >= 2 && (sl & 8) ? 1 : 0);
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        if (t->nodes[i].type == IBR_NODE_SWITCH)
            continue;
        for (unsigned p = 1; p <= t->nodes[i].nports; p++)
            if (t->ports[t->nodes[i].port_off + p].remote_node != IBR_NONE &&
                (rc = ibr_run_set_endport_sl2vl(q->run, i, p, ep)) < 0)
                return rc;
    }
    return ibr_run_set_vls_used(q->run, vls >= 8 ? 8 : vls >= 4 ? 4 : 2);
}

/* opensm-torus.dump: the position of every placed switch. */
static int torus_artifact(t2q *q)
{
    const t2q_torus *tq = &q->tq;
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr__buf_printf(&b, q->ctx, "# torus-2QoS: %u x %u x %u, %" PRIu32
                             " switches placed\n# x y z switch_guid\n",
                             tq->radix[0], tq->radix[1], tq->radix[2], tq->n_placed);
    for (uint32_t p = 0; p < tq->n_pos && rc == 0; p++)
        if (tq->pos_sw[p] != IBR_NONE)
            rc = ibr__buf_printf(&b, q->ctx, "%u %u %u 0x%016" PRIx64 "\n", t2q_coord(tq, p, 0),
                                 t2q_coord(tq, p, 1), t2q_coord(tq, p, 2),
                                 sw_guid(q, tq->pos_sw[p]));
    if (rc == 0)
        rc = ibr_run_add_artifact(q->run, "opensm-torus.dump", b.data, b.size);
    ibr_buffer_dispose(&b);
    return rc;
}

/* ------------------------------------------------------------------ */
/* multicast: the master spanning tree and each group's pruned tree    */

typedef struct t2q_mc {
    uint32_t *parent;   /* n_pos: parent position, IBR_NONE for the root or
                           a position outside the tree */
    uint8_t *pgrp;      /* n_pos: the parent's directional group toward it */
    uint8_t *in;        /* n_pos: in the tree */
    uint32_t *stamp;    /* n_pos: last group whose path reached it, + 1 */
} t2q_mc;

static int pos_present(const t2q_torus *tq, uint32_t p)
{
    return p != IBR_NONE && tq->pos_sw[p] != IBR_NONE;
}

/* The master tree's root: the centre of the first complete Z plane taken
   from the middle outwards; else, in the middle plane, the first switch
   from the centre along the diagonal whose whole X and Y rings are
   present. IBR_NONE when there is none. */
static uint32_t mc_root(const t2q_torus *tq)
{
    unsigned X = tq->radix[0], Y = tq->radix[1], Z = tq->radix[2];
    unsigned zm = Z / 2;
    for (unsigned k = 0; k < Z; k++) {
        /* zm, zm-1, zm+1, zm-2, ... wrapped */
        unsigned off = (k + 1) / 2;
        unsigned z = k & 1 ? (zm + Z - off % Z) % Z : (zm + off) % Z;
        int full = 1;
        for (unsigned j = 0; j < Y && full; j++)
            for (unsigned i = 0; i < X && full; i++)
                full = pos_present(tq, i * tq->stride[0] + j * tq->stride[1] + z * tq->stride[2]);
        if (full)
            return (X / 2) * tq->stride[0] + (Y / 2) * tq->stride[1] + z * tq->stride[2];
    }
    unsigned xm = X / 2, ym = Y / 2;
    for (unsigned dl = 0; dl <= (X > Y ? X : Y); dl++)
        for (int side = 0; side < (dl ? 2 : 1); side++) {
            int x = side ? (int)(xm + dl) : (int)xm - (int)dl;
            int y = side ? (int)(ym + dl) : (int)ym - (int)dl;
            if (x < 0 || y < 0 || x >= (int)X || y >= (int)Y)
                continue;
            int ok = 1;
            for (unsigned i = 0; i < X && ok; i++)
                ok = pos_present(tq, i * tq->stride[0] + (unsigned)y * tq->stride[1] +
                                         zm * tq->stride[2]);
            for (unsigned j = 0; j < Y && ok; j++)
                ok = pos_present(tq, (unsigned)x * tq->stride[0] + j * tq->stride[1] +
                                         zm * tq->stride[2]);
            if (ok)
                return (unsigned)x * tq->stride[0] + (unsigned)y * tq->stride[1] +
                       zm * tq->stride[2];
        }
    return IBR_NONE;
}

/* One step of a branch from cur along d in direction dir: the next
   position joined to the tree, or IBR_NONE when the branch stops there (no
   neighbour, missing switch, no cable, already in the tree). */
static uint32_t mc_step(t2q_mc *mc, const t2q_torus *tq, uint32_t cur, unsigned d,
                        unsigned dir)
{
    uint32_t nx = t2q_step(tq, cur, d, dir);
    unsigned g = 2 * d + dir;
    if (!pos_present(tq, nx) || !tq->grp_n[(size_t)cur * T2Q_GROUPS + g] || mc->in[nx])
        return IBR_NONE;
    mc->in[nx] = 1;
    mc->parent[nx] = cur;
    mc->pgrp[nx] = (uint8_t)g;
    return nx;
}

/* Grow the ring of dimension d through tree position b: each way up to the
   dateline; when one way stops early the ring is broken and the other way
   may go on across the dateline. */
static void mc_branch(t2q_mc *mc, const t2q_torus *tq, uint32_t b, unsigned d)
{
    unsigned n = tq->radix[d];
    if (n < 2)
        return;
    unsigned c = t2q_coord(tq, b, d);
    uint32_t end[2] = {b, b};
    int stopped[2] = {0, 0};
    for (unsigned h = 0; h < c; h++) {
        uint32_t nx = mc_step(mc, tq, end[0], d, 0);
        if (nx == IBR_NONE) {
            stopped[0] = 1;
            break;
        }
        end[0] = nx;
    }
    for (unsigned h = 0; h + 1 + c < n; h++) {
        uint32_t nx = mc_step(mc, tq, end[1], d, 1);
        if (nx == IBR_NONE) {
            stopped[1] = 1;
            break;
        }
        end[1] = nx;
    }
    if (tq->mesh[d] || stopped[0] == stopped[1])
        return;
    /* a broken ring: both ways go on alternately until both stop */
    while (!stopped[0] || !stopped[1])
        for (unsigned w = 0; w < 2; w++) {
            if (stopped[w])
                continue;
            uint32_t nx = mc_step(mc, tq, end[w], d, w);
            if (nx == IBR_NONE)
                stopped[w] = 1;
            else
                end[w] = nx;
        }
}

/* OpenSM's master tree from root: an X branch, a Y branch from each of its
   switches, a Z branch from each switch of the root's Z plane. Returns 1
   when every placed switch is in the tree. */
static int mc_grow(t2q_mc *mc, const t2q_torus *tq, uint32_t root)
{
    memset(mc->parent, 0xFF, (size_t)tq->n_pos * sizeof *mc->parent);
    memset(mc->in, 0, tq->n_pos);
    mc->in[root] = 1;
    mc_branch(mc, tq, root, 0);
    unsigned rj = t2q_coord(tq, root, 1), rk = t2q_coord(tq, root, 2);
    for (unsigned i = 0; i < tq->radix[0]; i++) {
        uint32_t p = i * tq->stride[0] + rj * tq->stride[1] + rk * tq->stride[2];
        if (pos_present(tq, p) && mc->in[p])
            mc_branch(mc, tq, p, 1);
    }
    for (unsigned j = 0; j < tq->radix[1]; j++)
        for (unsigned i = 0; i < tq->radix[0]; i++) {
            uint32_t p = i * tq->stride[0] + j * tq->stride[1] + rk * tq->stride[2];
            if (pos_present(tq, p) && mc->in[p])
                mc_branch(mc, tq, p, 2);
        }
    for (uint32_t p = 0; p < tq->n_pos; p++)
        if (pos_present(tq, p) && !mc->in[p])
            return 0;
    return 1;
}

/* The cable of the parent's group g toward child position c chosen for
   mlid: the parent's port and the child's port back. */
static void mc_cable(const t2q *q, uint32_t par, unsigned g, uint16_t mlid, unsigned *pp,
                     unsigned *cp)
{
    const t2q_torus *tq = &q->tq;
    size_t gi = (size_t)par * T2Q_GROUPS + g;
    unsigned k = mlid % tq->grp_n[gi];
    *pp = tq->grp[gi * tq->pg_max + k];
    const ibr_topo *t = q->t;
    const ibr__port *pt = ibr__tport(t, t->sw_node[tq->pos_sw[par]], *pp);
    *cp = pt->remote_port;
}

static int mc_group(t2q *q, t2q_mc *mc, uint16_t mlid, uint32_t gid, ibr_mcast_member *m,
                    size_t n)
{
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint32_t node;
        unsigned p0;
        if (ibr_topo_find_guid(&node, &p0, t, m[i].guid) < 0)
            continue;
        uint32_t sw;
        unsigned port;
        if (t->nodes[node].sw != IBR_NONE) {
            sw = t->nodes[node].sw;
            port = 0;
        } else {
            const ibr__port *pt = ibr__tport(t, node, m[i].port);
            if (pt->remote_node == IBR_NONE || t->nodes[pt->remote_node].sw == IBR_NONE)
                continue;
            sw = t->nodes[pt->remote_node].sw;
            port = pt->remote_port;
        }
        uint32_t pos = tq->sw_pos[sw];
        if (pos == IBR_NONE || !mc->in[pos])
            continue; /* not in the torus: skipped */
        rc = ibr_run_add_mcast_port(q->run, mlid, sw, port);
        /* the path to the root, once per group */
        while (rc == 0 && mc->stamp[pos] != gid + 1 && mc->parent[pos] != IBR_NONE) {
            mc->stamp[pos] = gid + 1;
            uint32_t par = mc->parent[pos];
            unsigned pp, cp;
            mc_cable(q, par, mc->pgrp[pos], mlid, &pp, &cp);
            rc = ibr_run_add_mcast_port(q->run, mlid, tq->pos_sw[par], pp);
            if (rc == 0)
                rc = ibr_run_add_mcast_port(q->run, mlid, tq->pos_sw[pos], cp);
            pos = par;
        }
    }
    return rc;
}

/* Every group's tree on the master tree mc. */
static int mc_groups(t2q *q, t2q_mc *mc, const ibr_mcast_groups *g, ibr_mcast_member **m,
                     size_t *cap)
{
    int rc = 0;
    memset(mc->stamp, 0, (size_t)q->tq.n_pos * sizeof *mc->stamp);
    size_t nm = ibr_mcast_groups_mlid_count(g);
    for (size_t i = 0; i < nm && rc == 0; i++) {
        uint16_t mlid = ibr_mcast_groups_mlid(g, i);
        size_t need = 0;
        rc = ibr_mcast_groups_members(*m, *cap, &need, g, mlid);
        if (rc == IBR_ERANGE || (rc == 0 && need > *cap)) {
            ibr__free(q->ctx, *m);
            *cap = need;
            *m = ibr__mallocarray(q->ctx, *cap, sizeof **m);
            if (!*m)
                return IBR_ENOMEM;
            rc = ibr_mcast_groups_members(*m, *cap, &need, g, mlid);
        }
        if (rc == 0)
            rc = mc_group(q, mc, mlid, (uint32_t)i, *m, need);
    }
    return rc;
}

/* Does the torus miss a switch, or a cable between two placed switches? */
static int mc_degraded(const t2q_torus *tq)
{
    for (uint32_t p = 0; p < tq->n_pos; p++) {
        if (!pos_present(tq, p))
            return 1;
        for (unsigned g = 0; g < 2 * T2Q_DIMS; g++)
            if (pos_present(tq, t2q_step(tq, p, g / 2, g % 2)) &&
                !tq->grp_n[(size_t)p * T2Q_GROUPS + g])
                return 1;
    }
    return 0;
}

/* A master tree grown so that the multicast traffic keeps the channel
   dependency graph of the unicast routes acyclic. Channels are (switch
   link, VL) pairs, 8 VLs per link; nb[p] has bit g set when position p's
   group g is a tree edge. */
typedef struct mc_safe {
    t2q *q;
    t2q_mc *mc;
    ibr__cdg *g;
    uint32_t *pa;     /* n_sw * 256: the adj index of a switch port, or IBR_NONE */
    uint8_t *nb;      /* n_pos */
    uint32_t *undo;   /* dependencies added for the edge being tried, 2 each */
    size_t n_undo, cap_undo;
} mc_safe;

/* Every switch may have members behind it: the local in-group always
   feeds a tree edge. The multicast SL is 0. */
static unsigned mc_vl(const mc_safe *S, unsigned gi, unsigned go)
{
    return t2q_vl(S->q->vls, gi, go, 0);
}

/* Add the dependency (every cable of a's group ga on VL va) -> (every cable
   of x's group gx on VL vx), checked: 0 added, 1 it would close a cycle
   (what this call added stays in undo), <0 error. */
static int mc_dep(mc_safe *S, uint32_t a, unsigned ga, unsigned va, uint32_t x, unsigned gx,
                  unsigned vx)
{
    const t2q_torus *tq = &S->q->tq;
    size_t ia = (size_t)a * T2Q_GROUPS + ga, ix = (size_t)x * T2Q_GROUPS + gx;
    for (unsigned k1 = 0; k1 < tq->grp_n[ia]; k1++)
        for (unsigned k2 = 0; k2 < tq->grp_n[ix]; k2++) {
            uint32_t ea = S->pa[(size_t)tq->pos_sw[a] * 256 + tq->grp[ia * tq->pg_max + k1]];
            uint32_t ex = S->pa[(size_t)tq->pos_sw[x] * 256 + tq->grp[ix * tq->pg_max + k2]];
            if (ea == IBR_NONE || ex == IBR_NONE)
                continue;
            uint32_t ch[2] = {ea * 8 + va, ex * 8 + vx};
            int rc = ibr__cdg_add_path(S->g, 0, ch, 2, 1, 1);
            if (rc)
                return rc;
            if (S->n_undo + 2 > S->cap_undo) {
                size_t nc = S->cap_undo ? 2 * S->cap_undo : 256;
                uint32_t *u = ibr__reallocarray(S->q->ctx, S->undo, nc, sizeof *u);
                if (!u) {
                    ibr__cdg_remove_path(S->g, 0, ch, 2, 1);
                    return IBR_ENOMEM;
                }
                S->undo = u;
                S->cap_undo = nc;
            }
            S->undo[S->n_undo++] = ch[0];
            S->undo[S->n_undo++] = ch[1];
        }
    return 0;
}

/* The dependencies a tree edge from v (its group gv) to u, not yet in the
   tree, adds: at v, u's traffic on to v's other tree neighbours and theirs
   on to u; at each such neighbour w, u's traffic (now on a new VL of v -> w)
   on to w's other neighbours. u has no other neighbour yet. */
static int mc_edge_deps(mc_safe *S, uint32_t v, unsigned gv, uint32_t u)
{
    const t2q_torus *tq = &S->q->tq;
    unsigned gu = gv ^ 1; /* u's group toward v */
    int rc = 0;
    for (unsigned gw = 0; gw < 2 * T2Q_DIMS && rc == 0; gw++) {
        if (!(S->nb[v] & (1u << gw)))
            continue;
        uint32_t w = t2q_step(tq, v, gw / 2, gw % 2);
        unsigned gwv = gw ^ 1; /* w's group toward v */
        /* u -> v -> w */
        rc = mc_dep(S, u, gu, mc_vl(S, T2Q_LOCAL, gu), v, gw, mc_vl(S, gv, gw));
        /* (anything entering w but from v) -> w -> v -> u */
        for (unsigned gi = 0; gi <= T2Q_LOCAL && rc == 0; gi++)
            if (gi == T2Q_LOCAL || (gi != gwv && (S->nb[w] & (1u << gi))))
                rc = mc_dep(S, w, gwv, mc_vl(S, gi, gwv), v, gv, mc_vl(S, gw, gv));
        /* u -> v -> w -> (w's other neighbours) */
        for (unsigned gy = 0; gy < 2 * T2Q_DIMS && rc == 0; gy++)
            if (gy != gwv && (S->nb[w] & (1u << gy)))
                rc = mc_dep(S, v, gw, mc_vl(S, gv, gw), w, gy, mc_vl(S, gwv, gy));
    }
    return rc;
}

/* Try the tree edge from v by its group gv: joined (1), refused (0), <0. */
static int mc_try_edge(mc_safe *S, uint32_t v, unsigned gv)
{
    const t2q_torus *tq = &S->q->tq;
    t2q_mc *mc = S->mc;
    uint32_t u = t2q_step(tq, v, gv / 2, gv % 2);
    if (!pos_present(tq, u) || mc->in[u] || !tq->grp_n[(size_t)v * T2Q_GROUPS + gv])
        return 0;
    S->n_undo = 0;
    int rc = mc_edge_deps(S, v, gv, u);
    if (rc != 0) {
        for (size_t i = S->n_undo; i >= 2; i -= 2)
            ibr__cdg_remove_path(S->g, 0, &S->undo[i - 2], 2, 1);
        return rc < 0 ? rc : 0;
    }
    mc->in[u] = 1;
    mc->parent[u] = v;
    mc->pgrp[u] = (uint8_t)gv;
    S->nb[v] |= (uint8_t)(1u << gv);
    S->nb[u] |= (uint8_t)(1u << (gv ^ 1));
    return 1;
}

/* The unicast dependencies into layer 0 of S->g: every route from a
   switch with end ports to every end port's LID, on the VLs of the path
   SLs through the engine's SL2VL (as the credit-loop check walks them). */
static int mc_unicast_cdg(mc_safe *S)
{
    t2q *q = S->q;
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    for (uint32_t i = 0; i < t->n_end; i++) {
        const ibr__port *ep = &t->ports[t->end_port[i]];
        if (ep->remote_node == IBR_NONE || t->nodes[ep->remote_node].sw == IBR_NONE ||
            !ep->lid)
            continue;
        uint32_t s0 = t->nodes[ep->remote_node].sw;
        /* once per switch: its end ports share coordinates, so path SLs */
        int first = 1;
        for (uint32_t j = 0; j < i && first; j++) {
            const ibr__port *o = &t->ports[t->end_port[j]];
            first = !(o->remote_node == ep->remote_node && o->lid);
        }
        if (!first)
            continue;
        const uint8_t *slr = ibr_run_sl_row(q->run, ep->lid);
        for (unsigned lid = 1; lid <= t->max_lid; lid++) {
            uint32_t owner = t->lid_port[lid];
            if (owner == IBR_NONE || t->lid_sw[lid] == IBR_NONE ||
                t->nodes[t->port_node[owner]].type == IBR_NODE_SWITCH)
                continue;
            unsigned sl = slr ? slr[lid] & 15 : 0;
            uint32_t u = s0, prev = IBR_NONE;
            unsigned gi = T2Q_LOCAL;
            for (uint32_t hop = 0; hop <= t->n_sw; hop++) {
                const uint8_t *lft = ibr_run_lft(q->run, u);
                unsigned op = lft ? lft[lid] : IBR_NO_ROUTE;
                uint32_t e = op && op != IBR_NO_ROUTE ? S->pa[(size_t)u * 256 + op] : IBR_NONE;
                if (e == IBR_NONE)
                    break;
                unsigned go = tq->port_grp[(size_t)u * 256 + op];
                unsigned vl = tq->sw_pos[u] == IBR_NONE || go == T2Q_NOGROUP
                                  ? sl & 7 : t2q_vl(q->vls, gi, go, sl);
                uint32_t ch = e * 8 + vl;
                if (prev != IBR_NONE) {
                    int rc = ibr__cdg_add_edge(S->g, 0, prev, ch, 1);
                    if (rc < 0)
                        return rc;
                }
                prev = ch;
                const ibr__port *pt = ibr__tport(t, t->sw_node[u], op);
                u = t->adj[e].sw;
                gi = tq->port_grp[(size_t)u * 256 + pt->remote_port];
            }
        }
    }
    return 0;
}

/* Grow the loop-free master tree into mc from root: OpenSM's tree edges
   (osm_parent, osm_pgrp) first, as far as each keeps the graph acyclic,
   then any cable from a switch in the tree, lowest position and group
   first, until no switch can join. 1: every placed switch joined; 0: some
   could not; <0 error. */
static int mc_safe_tree(t2q *q, t2q_mc *mc, uint32_t root, const uint32_t *osm_parent,
                        const uint8_t *osm_pgrp)
{
    const ibr_topo *t = q->t;
    const t2q_torus *tq = &q->tq;
    mc_safe S;
    memset(&S, 0, sizeof S);
    S.q = q;
    S.mc = mc;
    S.pa = ibr__mallocarray(q->ctx, (size_t)t->n_sw * 256, sizeof *S.pa);
    S.nb = ibr__calloc(q->ctx, tq->n_pos, 1);
    int rc = S.pa && S.nb ? ibr__cdg_create(&S.g, q->ctx, t->n_adj * 8, 1) : IBR_ENOMEM;
    if (rc < 0)
        goto out;
    memset(S.pa, 0xFF, (size_t)t->n_sw * 256 * sizeof *S.pa);
    for (uint32_t x = 0; x < t->n_sw; x++)
        for (uint32_t e = t->adj_off[x]; e < t->adj_off[x + 1]; e++)
            S.pa[(size_t)x * 256 + t->adj[e].port] = e;
    if ((rc = mc_unicast_cdg(&S)) < 0)
        goto out;
    if ((rc = ibr__cdg_order(S.g, 0)) != 0) {
        rc = rc == 1 ? 0 : rc; /* the unicast routes alone have a loop */
        goto out;
    }
    memset(mc->parent, 0xFF, (size_t)tq->n_pos * sizeof *mc->parent);
    memset(mc->in, 0, tq->n_pos);
    mc->in[root] = 1;
    for (int phase = 0; phase < 2; phase++)
        for (int grew = 1; grew;) {
            grew = 0;
            for (uint32_t p = 0; p < tq->n_pos; p++) {
                if (!pos_present(tq, p) || mc->in[p])
                    continue;
                if (phase == 0) {
                    uint32_t par = osm_parent[p];
                    if (par == IBR_NONE || !mc->in[par])
                        continue;
                    rc = mc_try_edge(&S, par, osm_pgrp[p]);
                } else {
                    rc = 0;
                    for (unsigned g = 0; g < 2 * T2Q_DIMS && rc == 0; g++) {
                        uint32_t v = t2q_step(tq, p, g / 2, g % 2);
                        if (pos_present(tq, v) && mc->in[v])
                            rc = mc_try_edge(&S, v, g ^ 1);
                    }
                }
                if (rc < 0)
                    goto out;
                grew |= rc;
            }
        }
    rc = 1;
    for (uint32_t p = 0; p < tq->n_pos && rc == 1; p++)
        if (pos_present(tq, p) && !mc->in[p])
            rc = 0;
out:
    ibr__cdg_destroy(S.g);
    ibr__free(q->ctx, S.pa);
    ibr__free(q->ctx, S.nb);
    ibr__free(q->ctx, S.undo);
    return rc;
}

/* Build every group's tree on the master spanning tree (when the call has
   groups). A master tree that misses a placed switch leaves the groups to
   the library's default trees, with a warning. On a torus with a missing
   switch or cable, OpenSM's tree can close a credit loop with the unicast
   routes (a broken ring's branch crosses the dateline on VL 0, which the
   detours around the failure lead back into): the routing is then checked
   with the trees, and on a loop the master tree is grown again edge by
   edge on the unicast channel dependency graph, keeping OpenSM's edges
   where they keep it acyclic; when that tree does not reach every switch,
   OpenSM's trees stay, with a warning. */
static int route_mcast(t2q *q)
{
    const ibr_mcast_groups *g = ibr_run_mcast_groups(q->run);
    if (!g || !ibr_mcast_groups_mlid_count(g))
        return 0;
    const t2q_torus *tq = &q->tq;
    t2q_mc mc;
    mc.parent = ibr__mallocarray(q->ctx, tq->n_pos, sizeof *mc.parent);
    mc.pgrp = ibr__calloc(q->ctx, tq->n_pos, 1);
    mc.in = ibr__calloc(q->ctx, tq->n_pos, 1);
    mc.stamp = ibr__calloc(q->ctx, tq->n_pos, sizeof *mc.stamp);
    uint32_t *osm_parent = ibr__mallocarray(q->ctx, tq->n_pos, sizeof *osm_parent);
    uint8_t *osm_pgrp = ibr__mallocarray(q->ctx, tq->n_pos, 1);
    ibr_mcast_member *m = NULL;
    size_t cap = 0;
    int rc = 0;
    if (!mc.parent || !mc.pgrp || !mc.in || !mc.stamp || !osm_parent || !osm_pgrp) {
        rc = IBR_ENOMEM;
        goto out;
    }
    uint32_t root = mc_root(tq);
    if (root == IBR_NONE) {
        ibr_run_log(
            q->run, IBR_LOG_WARN,
            IBR__MSG("EN060",
                     "torus-2QoS: no root for the multicast master spanning tree; the groups "
                     "get the default trees"));
        goto out;
    }
    if (!mc_grow(&mc, tq, root)) {
        ibr_run_log(q->run, IBR_LOG_WARN,
                    IBR__MSG("EN061",
                             "torus-2QoS: the multicast master spanning tree misses a switch; the "
                             "groups get the default trees"));
        goto out;
    }
    if ((rc = mc_groups(q, &mc, g, &m, &cap)) < 0)
        goto out;
    size_t len = 0;
    ibr_channel ch[1];
    int64_t keep = 0;
    ibr_run_setting_int(&keep, q->run, "opensm_mcast_tree");
    if (keep || !mc_degraded(tq) ||
        (rc = ibr_run_find_credit_loop(ch, 1, &len, q->run)) != IBR_EDEADLOCK)
        goto built;
    memcpy(osm_parent, mc.parent, (size_t)tq->n_pos * sizeof *osm_parent);
    memcpy(osm_pgrp, mc.pgrp, tq->n_pos);
    if ((rc = mc_safe_tree(q, &mc, root, osm_parent, osm_pgrp)) < 0)
        goto out;
    if (rc == 1) {
        if ((rc = ibr_run_clear_mcast(q->run)) < 0 || (rc = mc_groups(q, &mc, g, &m, &cap)) < 0)
            goto out;
        rc = ibr_run_find_credit_loop(ch, 1, &len, q->run);
        if (rc == 0) {
            uint32_t moved = 0;
            for (uint32_t p = 0; p < tq->n_pos; p++)
                moved += pos_present(tq, p) &&
                         (mc.parent[p] != osm_parent[p] || mc.pgrp[p] != osm_pgrp[p]);
            snprintf(q->msg, IBR_ERRMSG_SIZE,
                     "torus-2QoS: OpenSM's multicast master tree closes a credit loop with the "
                     "unicast routes; %" PRIu32 " switches joined the tree by other cables "
                     "to keep it loop-free", moved);
            ibr_run_log(q->run, IBR_LOG_INFO, q->msg);
            goto built;
        }
        if (rc != IBR_EDEADLOCK)
            goto out;
    }
    ibr_run_log(
        q->run, IBR_LOG_WARN,
        IBR__MSG("EN062",
                 "torus-2QoS: the multicast master tree closes a credit loop with the unicast "
                 "routes and no loop-free tree was found; OpenSM's is kept"));
    memcpy(mc.parent, osm_parent, (size_t)tq->n_pos * sizeof *osm_parent);
    memcpy(mc.pgrp, osm_pgrp, tq->n_pos);
    if ((rc = ibr_run_clear_mcast(q->run)) < 0 || (rc = mc_groups(q, &mc, g, &m, &cap)) < 0)
        goto out;
built:
    if (rc < 0 && rc != IBR_EDEADLOCK)
        goto out;
    rc = ibr_run_set_mcast_built(q->run);
out:
    ibr__free(q->ctx, m);
    ibr__free(q->ctx, osm_parent);
    ibr__free(q->ctx, osm_pgrp);
    ibr__free(q->ctx, mc.parent);
    ibr__free(q->ctx, mc.pgrp);
    ibr__free(q->ctx, mc.in);
    ibr__free(q->ctx, mc.stamp);
    return rc;
}

static void t2q_free(t2q *q)
{
    ibr__free(q->ctx, q->tq.pos_sw);
    ibr__free(q->ctx, q->tq.sw_pos);
    ibr__free(q->ctx, q->tq.order);
    ibr__free(q->ctx, q->tq.grp);
    ibr__free(q->ctx, q->tq.grp_n);
    ibr__free(q->ctx, q->tq.port_grp);
    ibr__free(q->ctx, q->tq.coord);
    ibr__free(q->ctx, q->cand);
    ibr__free(q->ctx, q->msg);
    ibr_buffer_dispose(&q->derived);
    t2q_config_free(&q->cf, q->ctx);
}

/* No configuration given: derive one from the cabling, say which in the
   log. Returns 0 with q->derived holding it, or a decline or failure. */
static int derive_config(t2q *q)
{
    int rc = t2q_config_derive(&q->derived, q->ctx, q->t, q->msg);
    if (rc == IBR_ENOMEM)
        return ibr__fail(q->run, IBR_ENOMEM, "out of memory");
    if (rc < 0)
        return ibr__decline(
            q->run,
            IBR__MSG("EN063", "no torus-2QoS.conf given (setting torus-2QoS.config, "
                              "ibr route --torus-config FILE), and none can be derived from the "
                              "cabling: %s"),
            q->msg);
    ibr_run_log(q->run, IBR_LOG_INFO, q->msg);
    return 0;
}

/* The configuration read (text, len bytes), the VLs checked and the torus
   built on the run's topology: everything the unicast routes, SLs and
   SL2VL maps are computed from. 0, or a decline or failure. */
static int t2q_build(t2q *q, const char *text, size_t len)
{
    ibr_run *run = q->run;
    const ibr_topo *t = q->t;
    int rc = t2q_config_parse(&q->cf, q->ctx, text, len, q->msg);
    if (rc < 0)
        return rc == IBR_ENOMEM ? ibr__fail(run, IBR_ENOMEM, "out of memory")
                                : ibr_run_decline(run, q->msg);
    const ibr_options *o = ibr_run_options(run);
    unsigned sw_cap = min_vl_cap(t, 1), ep_cap = min_vl_cap(t, 0);
    q->vls = sw_cap < o->max_vls ? sw_cap : o->max_vls;
    unsigned ep_vls = ep_cap < o->max_vls ? ep_cap : o->max_vls;
    if (q->vls < 2)
        return ibr__decline(run,
                            IBR__MSG("EN064",
                                     "torus-2QoS needs at least 2 data VLs on switch ports, has %u "
                                     "(max_vls %u, smallest VLCap of a switch-to-switch port %u)"),
                            q->vls, o->max_vls, sw_cap);
    if (q->vls < 4)
        ibr_run_log(
            run, IBR_LOG_WARN,
            IBR__MSG("EN065",
                     "torus-2QoS: fewer than 4 data VLs: a failed switch cannot be routed around "
                     "without credit loops"));
    else if (q->vls < 8)
        ibr_run_log(run, IBR_LOG_WARN,
                    IBR__MSG("EN066",
                             "torus-2QoS: fewer than 8 data VLs: the two QoS levels share VLs on "
                             "inter-switch links"));
    if (ep_vls < 2)
        ibr_run_log(
            run, IBR_LOG_WARN,
            IBR__MSG("EN067",
                     "torus-2QoS: fewer than 2 data VLs on end ports: the two QoS levels share "
                     "VL 0 on CA links"));
    {
        char line[160];
        snprintf(line, sizeof line, "torus-2QoS: minimum data VLs: end port %u, switch port %u",
                 ep_vls, q->vls);
        ibr_run_log(run, IBR_LOG_INFO, line);
    }
    for (unsigned p = 0; p < 256; p++) {
        if (q->cf.port_rank[p] >= q->cf.n_port_order)
            continue;
        for (uint32_t s = 0; s < t->n_sw; s++)
            if (p > t->nodes[t->sw_node[s]].nports)
                return ibr__decline(
                    run,
                    IBR__MSG("EN068", "torus-2QoS.conf: port_order lists port %u, beyond the %u "
                                      "ports of switch 0x%016" PRIx64),
                    p, t->nodes[t->sw_node[s]].nports, sw_guid(q, s));
    }
    t2q_torus *tq = &q->tq;
    tq->n_pos = 1;
    for (unsigned d = 0; d < T2Q_DIMS; d++) {
        tq->radix[d] = q->cf.radix[d];
        tq->mesh[d] = q->cf.mesh[d];
        tq->n_pos *= tq->radix[d];
    }
    tq->pg_max = q->cf.pg_max;
    if (tq->n_pos > 4u * t->n_sw + 64)
        return ibr__decline(
            run,
            IBR__MSG("EN069", "torus-2QoS.conf: a %ux%ux%u torus has %u positions, far more than "
                              "the %u switches of the fabric"),
            tq->radix[0], tq->radix[1], tq->radix[2], tq->n_pos, t->n_sw);
    tq->pos_sw = ibr__mallocarray(q->ctx, tq->n_pos, sizeof *tq->pos_sw);
    tq->sw_pos = ibr__mallocarray(q->ctx, t->n_sw, sizeof *tq->sw_pos);
    tq->order = ibr__mallocarray(q->ctx, t->n_sw, sizeof *tq->order);
    tq->grp = ibr__mallocarray(q->ctx, (size_t)tq->n_pos * T2Q_GROUPS, tq->pg_max);
    tq->grp_n = ibr__calloc(q->ctx, (size_t)tq->n_pos * T2Q_GROUPS, 1);
    tq->port_grp = ibr__mallocarray(q->ctx, t->n_sw, 256);
    q->cand = ibr__mallocarray(q->ctx, t->n_sw, sizeof *q->cand);
    tq->coord = ibr__mallocarray(q->ctx, tq->n_pos, T2Q_DIMS);
    if (!tq->coord || !tq->pos_sw || !tq->sw_pos || !tq->order || !tq->grp || !tq->grp_n ||
        !tq->port_grp || !q->cand)
        return ibr__fail(run, IBR_ENOMEM, "out of memory");
    memset(tq->pos_sw, 0xFF, (size_t)tq->n_pos * sizeof *tq->pos_sw);
    memset(tq->sw_pos, 0xFF, (size_t)t->n_sw * sizeof *tq->sw_pos);
    memset(tq->port_grp, T2Q_NOGROUP, (size_t)t->n_sw * 256);
    for (unsigned d = 0; d < T2Q_DIMS; d++)
        tq->stride[d] = d ? tq->stride[d - 1] * tq->radix[d - 1] : 1;
    for (uint32_t p = 0; p < tq->n_pos; p++)
        for (unsigned d = 0; d < T2Q_DIMS; d++)
            tq->coord[(size_t)p * T2Q_DIMS + d] = (uint8_t)(p / tq->stride[d] % tq->radix[d]);
    if ((rc = discover(q)) < 0 || (rc = check_routable(q)) < 0)
        return rc;
    snprintf(q->msg, IBR_ERRMSG_SIZE, "torus-2QoS: built a %ux%ux%u %s with %" PRIu32 " switches",
             tq->radix[0], tq->radix[1], tq->radix[2],
             tq->mesh[0] && tq->mesh[1] && tq->mesh[2] ? "mesh" : "torus", tq->n_placed);
    ibr_run_log(run, IBR_LOG_INFO, q->msg);
    return 0;
}

static int t2q_route(ibr_run *run, void *user)
{
    (void)user;
    t2q q;
    memset(&q, 0, sizeof q);
    q.run = run;
    q.t = ibr_run_topo(run);
    q.ctx = q.t->ctx;
    const char *text = NULL;
    size_t len = 0;
    int rc;
    if (!q.t->n_sw)
        return ibr_run_decline(run, IBR__MSG("EN039", "no switches"));
    q.msg = ibr__malloc(q.ctx, IBR_ERRMSG_SIZE);
    if (!q.msg)
        return ibr__fail(run, IBR_ENOMEM, "out of memory");
    if (ibr_run_setting_str(&text, &len, run, "config") < 0 || !text || !len) {
        if ((rc = derive_config(&q)) < 0)
            goto out;
        text = q.derived.data;
        len = q.derived.size;
    }
    if ((rc = t2q_build(&q, text, len)) < 0 || (rc = route_unicast(&q)) < 0)
        goto out;
    if ((rc = write_sls(&q)) < 0 || (rc = write_sl2vl(&q)) < 0 ||
        (rc = torus_artifact(&q)) < 0 || (rc = route_mcast(&q)) < 0 ||
        (q.derived.size && (rc = ibr_run_add_artifact(run, "torus-2QoS.conf", q.derived.data,
                                                      q.derived.size)) < 0)) {
        rc = rc == IBR_ENOMEM ? ibr__fail(run, IBR_ENOMEM, "out of memory")
                              : ibr__fail(run, rc, "internal error %d", rc);
        goto out;
    }
    rc = 0;
out:
    t2q_free(&q);
    return rc;
}

/* Every saved switch still present sits where it sat: the path SLs and
   the kept routes depend on the positions. 0, or 1 with a->why set. */
static int same_placement(const t2q *q, t2q_repair *a)
{
    const t2q_torus *tq = &q->tq;
    for (uint32_t i = 0; i < a->n_saved; i++) {
        uint32_t node;
        if (ibr_topo_find_guid(&node, NULL, q->t, a->saved_guid[i]) < 0 ||
            q->t->nodes[node].sw == IBR_NONE)
            continue; /* a lost switch */
        uint32_t s = q->t->nodes[node].sw, p = tq->sw_pos[s];
        if (p == IBR_NONE && q->t->adj_off[s] == q->t->adj_off[s + 1])
            continue; /* cut off from every other: lost to the torus */
        const uint8_t *c = &a->saved_xyz[(size_t)i * T2Q_DIMS];
        if (p == IBR_NONE || t2q_coord(tq, p, 0) != c[0] || t2q_coord(tq, p, 1) != c[1] ||
            t2q_coord(tq, p, 2) != c[2]) {
            snprintf(a->why, sizeof a->why,
                     "torus-2QoS places switch 0x%016" PRIx64 " elsewhere on the changed "
                     "fabric than in the saved routing (its SLs follow the positions)",
                     a->saved_guid[i]);
            return 1;
        }
    }
    return 0;
}

/* The switches whose routes can change after the cables of a->lost went
   (q->src): a route leaves a place by the direction group next_group
   picks from the groups and the switches on the place's own three lines
   (try_dim walks only these), so only a place with a lost cable or an
   empty place on one of its lines may choose otherwise. 0 or IBR_ENOMEM. */
static int changed_sources(t2q *q, const t2q_repair *a)
{
    const t2q_torus *tq = &q->tq;
    if (!a->lost)
        return 0;
    q->src = ibr__calloc(q->ctx, q->t->n_sw ? q->t->n_sw : 1, 1);
    if (!q->src)
        return IBR_ENOMEM;
    for (uint32_t si = 0; si < tq->n_placed; si++) {
        uint32_t s = tq->order[si], sp = tq->sw_pos[s];
        for (unsigned d = 0; d < T2Q_DIMS && !q->src[s]; d++) {
            uint32_t base = sp - t2q_coord(tq, sp, d) * tq->stride[d];
            for (unsigned c = 0; c < tq->radix[d] && !q->src[s]; c++) {
                uint32_t x = tq->pos_sw[base + c * tq->stride[d]];
                q->src[s] = x == IBR_NONE || a->lost[x];
            }
        }
    }
    return 0;
}

int t2q_repair_run(t2q_repair *a)
{
    t2q q;
    memset(&q, 0, sizeof q);
    q.run = a->run;
    q.t = ibr_run_topo(a->run);
    q.ctx = q.t->ctx;
    q.dest = a->dest;
    q.sl_kept = a->sl_kept;
    q.put = a->put;
    q.put_arg = a->arg;
    a->why[0] = 0;
    a->dests = 0;
    q.msg = ibr__malloc(q.ctx, IBR_ERRMSG_SIZE);
    if (!q.msg)
        return IBR_ENOMEM;
    int rc = q.t->n_sw ? t2q_build(&q, a->conf, a->conf_len) : IBR_EDECLINED;
    if (rc == 0)
        rc = same_placement(&q, a);
    if (rc == 0)
        rc = changed_sources(&q, a);
    if (rc == 0 && (rc = route_unicast(&q)) == 0 && (rc = write_sls(&q)) == 0 &&
        (rc = write_sl2vl(&q)) == 0 && (rc = torus_artifact(&q)) == 0 && a->conf_keep)
        /* the derived configuration the repaired routing stands on, for its
           own database, as a full run keeps it */
        rc = ibr_run_add_artifact(a->run, "torus-2QoS.conf", a->conf, a->conf_keep);
    for (uint32_t s = 0; rc == 0 && s < q.t->n_sw; s++)
        a->dests += !a->dest || a->dest[s];
    ibr__free(q.ctx, q.src);
    t2q_free(&q);
    return rc;
}

static const ibr_setting t2q_settings[] = {
    {"config", IBR_SETTING_STRING, 0, 0, 0, NULL,
     "the text of torus-2QoS.conf: torus/mesh radices, seed links, datelines, port_order "
     "(ibr route --torus-config FILE reads it from a file); without it, derived from the "
     "cabling of a regular torus or mesh (artefact torus-2QoS.conf)"},
    {"opensm_mcast_tree", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "keep OpenSM's multicast master tree even where, on a torus with a failed switch or "
     "cable, it closes a credit loop with the unicast routes (default: grow a loop-free one "
     "there)"},
};

const ibr_engine ibr__engine_torus2qos = {
    .version = IBR_ENGINE_VERSION,
    .name = "torus-2QoS",
    .description = "dimension-order routing on 2-D/3-D tori and meshes with datelines and two "
                   "QoS levels; path SLs that survive link and switch failures, SL2VL",
    .caps = IBR_CAP_LMC | IBR_CAP_SL | IBR_CAP_SL2VL | IBR_CAP_DEADLOCK_FREE | IBR_CAP_OWN_SL2VL,
    .route = t2q_route,
    .settings = t2q_settings,
    .n_settings = 2,
};
