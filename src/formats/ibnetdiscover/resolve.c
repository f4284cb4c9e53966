/*
 * Topology text, second stage: cross-references between the records.
 * Node ids are mapped to records (a switch record under "# Chassis
 * Switches" that repeats an earlier one exactly, as newer ibnetdiscover -g
 * prints a chassis's spine and line switches twice, is dropped; any other
 * repeat, as in two concatenated dumps, is a duplicate node GUID or id),
 * every port line's remote id and port are resolved, every link
 * must be listed from both ends, and the final port GUIDs (printed or
 * derived) must be unique, as must node GUIDs.
 */
#include <inttypes.h>
#include <string.h>

#include "core/messages.h"
#include "formats/ibnetdiscover/ibnetdiscover_int.h"

static uint64_t hash_span(ibr__span s)
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
static int same_record(const ibn_parser *ps, const ibn_node *a, const ibn_node *b)
{
    if (a->type != b->type || a->nports != b->nports || a->guid != b->guid ||
        a->count != b->count || a->lid != b->lid)
        return 0;
    for (uint32_t k = 0; k < a->count; k++) {
        const ibn_port *x = &ps->ports[a->first + k], *y = &ps->ports[b->first + k];
        if (x->port != y->port || x->rport != y->rport || x->rid.n != y->rid.n ||
            memcmp(x->rid.p, y->rid.p, x->rid.n) != 0 || x->lid != y->lid)
            return 0;
    }
    return 1;
}

/* Map ids to records. With dedup, a switch record under ibnetdiscover -g's
   "# Chassis Switches" that repeats an earlier one exactly is marked dup;
   any other repeated id is an error (a node block given twice, as in two
   concatenated dumps, is one). */
static int idmap_build(ibn_parser *ps, idmap *m, int dedup)
{
    size_t cap = 16;
    while (cap < ps->n_nodes * 2)
        cap *= 2;
    m->slots = ibr__calloc(ps->ctx, cap, sizeof *m->slots);
    if (!m->slots)
        return ibr__ibn_nomem(ps);
    m->cap = cap;
    for (size_t i = 0; i < ps->n_nodes; i++) {
        ibn_node *n = &ps->nodes[i];
        ibr__span id = n->id;
        size_t s = (size_t)hash_span(id) & (cap - 1);
        int found = 0;
        while (m->slots[s]) {
            const ibn_node *o = &ps->nodes[m->slots[s] - 1];
            if (o->id.n == id.n && memcmp(o->id.p, id.p, id.n) == 0) {
                if (!dedup || !n->may_repeat || !same_record(ps, o, n)) {
                    if (o->guid == n->guid)
                        return ibr__ibn_err(ps, IBR_EPARSE, n->line,
                                            IBR__MSG("TP039", "duplicate node GUID 0x%016" PRIx64
                                                              " (first at line %" PRIu32 ")"),
                                            n->guid, o->line);
                    return ibr__ibn_err(
                        ps, IBR_EPARSE, n->line,
                        IBR__MSG("TP040",
                                 "duplicate node id \"%s\" (first defined on line %" PRIu32 ")"),
                        IBR__ESC(id), o->line);
                }
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
static void compact(ibn_parser *ps)
{
    size_t nn = 0, np = 0;
    for (size_t i = 0; i < ps->n_nodes; i++) {
        ibn_node n = ps->nodes[i];
        if (n.dup)
            continue;
        for (uint32_t k = 0; k < n.count; k++) {
            ibn_port pr = ps->ports[n.first + k];
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

static uint32_t idmap_get(const ibn_parser *ps, const idmap *m, ibr__span id)
{
    size_t s = (size_t)hash_span(id) & (m->cap - 1);
    while (m->slots[s]) {
        const ibn_node *o = &ps->nodes[m->slots[s] - 1];
        if (o->id.n == id.n && memcmp(o->id.p, id.p, id.n) == 0)
            return m->slots[s] - 1;
        s = (s + 1) & (m->cap - 1);
    }
    return IBR_NONE;
}

/* Resolve remote ids, fill the port slot table (record of each node port)
   and check that every link is listed from both ends. */
int ibr__ibn_resolve(ibn_parser *ps, uint32_t **slots_out)
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
        return ibr__ibn_nomem(ps);
    }
    for (size_t i = 0; i < nslots; i++)
        slot[i] = IBR_NONE;
    for (size_t i = 0; i < ps->n_ports && rc == 0; i++) {
        ibn_port *pr = &ps->ports[i];
        const ibn_node *n = &ps->nodes[pr->node];
        uint32_t *s = &slot[n->slot + pr->port];
        if (*s != IBR_NONE) {
            rc = ibr__ibn_err(
                ps, IBR_EPARSE, pr->line,
                IBR__MSG("TP041", "port %u of \"%s\" listed twice (first on line %" PRIu32 ")"),
                (unsigned)pr->port, IBR__ESC(n->id), ps->ports[*s].line);
            break;
        }
        *s = (uint32_t)i;
        pr->rnode = idmap_get(ps, &m, pr->rid);
        if (pr->rnode == IBR_NONE) {
            rc = ibr__ibn_err(ps, IBR_EPARSE, pr->line,
                              IBR__MSG("TP042", "unknown node \"%s\" (dangling link)"),
                              IBR__ESC(pr->rid));
            break;
        }
        const ibn_node *rn = &ps->nodes[pr->rnode];
        if (pr->rport > rn->nports)
            rc = ibr__ibn_err(ps, IBR_EPARSE, pr->line,
                              IBR__MSG("TP026", "port %u out of range (node \"%s\" has %u ports)"),
                              (unsigned)pr->rport, IBR__ESC(rn->id), (unsigned)rn->nports);
    }
    ibr__free(ps->ctx, m.slots);
    for (size_t i = 0; i < ps->n_ports && rc == 0; i++) {
        const ibn_port *pr = &ps->ports[i];
        const ibn_node *n = &ps->nodes[pr->node], *rn = &ps->nodes[pr->rnode];
        uint32_t back = slot[rn->slot + pr->rport];
        if (back == IBR_NONE) {
            rc = ibr__ibn_err(
                ps, IBR_EPARSE, pr->line,
                IBR__MSG("TP043",
                         "asymmetric link: \"%s\" port %u names \"%s\" port %u, which is not "
                         "listed"),
                IBR__ESC(n->id), (unsigned)pr->port, IBR__ESC(rn->id), (unsigned)pr->rport);
        } else if (ps->ports[back].rnode != pr->node || ps->ports[back].rport != pr->port) {
            const ibn_port *b = &ps->ports[back];
            const ibn_node *bn = &ps->nodes[b->rnode];
            rc = ibr__ibn_err(
                ps, IBR_EPARSE, pr->line,
                IBR__MSG("TP044",
                         "asymmetric link: \"%s\" port %u names \"%s\" port %u, which names "
                         "\"%s\" port %u (line %" PRIu32 ")"),
                IBR__ESC(n->id), (unsigned)pr->port, IBR__ESC(rn->id), (unsigned)pr->rport,
                IBR__ESC(bn->id), (unsigned)b->rport, b->line);
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
uint64_t ibr__ibn_final_port_guid(const ibn_parser *ps, const uint32_t *slot, uint32_t i,
                                  unsigned p)
{
    const ibn_node *n = &ps->nodes[i];
    if (n->type == IBR_NODE_SWITCH)
        return n->port_guid ? n->port_guid : n->guid;
    uint32_t s = slot[n->slot + p];
    if (s != IBR_NONE) {
        const ibn_port *pr = &ps->ports[s];
        if (pr->guid)
            return pr->guid;
        const ibn_port *peer = &ps->ports[slot[ps->nodes[pr->rnode].slot + pr->rport]];
        if (peer->rguid)
            return peer->rguid;
    }
    return n->guid + p;
}

/* Line to blame for port p of record i. */
uint32_t ibr__ibn_port_line(const ibn_parser *ps, const uint32_t *slot, uint32_t i, unsigned p)
{
    const ibn_node *n = &ps->nodes[i];
    uint32_t s = p ? slot[n->slot + p] : IBR_NONE;
    return s != IBR_NONE ? ps->ports[s].line : n->line;
}

/* Check node GUIDs and final port GUIDs for duplicates. finals receives a
   map of every final port GUID (value: slot index). */
int ibr__ibn_check_guids(ibn_parser *ps, const uint32_t *slot, ibr__guidmap *finals)
{
    ibr__guidmap nodes = {0};
    int rc = 0;
    if (ibr__guidmap_reserve(ps->ctx, &nodes, ps->n_nodes) < 0)
        rc = ibr__ibn_nomem(ps);
    for (uint32_t i = 0; i < ps->n_nodes && rc == 0; i++) {
        const ibn_node *n = &ps->nodes[i];
        uint32_t o = ibr__guidmap_get(&nodes, n->guid);
        if (o != IBR_NONE) {
            rc = ibr__ibn_err(ps, IBR_EPARSE, n->line,
                              IBR__MSG("TP045", "duplicate node GUID 0x%016" PRIx64
                                                " (first at line %" PRIu32 ", node \"%s\")"),
                              n->guid, ps->nodes[o].line, IBR__ESC(ps->nodes[o].id));
            break;
        }
        if (ibr__guidmap_put(ps->ctx, &nodes, n->guid, i) < 0) {
            rc = ibr__ibn_nomem(ps);
            break;
        }
        unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
        unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
        for (unsigned p = p0; p <= p1 && rc == 0; p++) {
            uint64_t g = ibr__ibn_final_port_guid(ps, slot, i, p);
            if (!g) {
                rc = ibr__ibn_err(ps, IBR_EPARSE, ibr__ibn_port_line(ps, slot, i, p),
                                  IBR__MSG("TP046", "port GUID 0"));
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
                rc =
                    ibr__ibn_err(ps, IBR_EPARSE, ibr__ibn_port_line(ps, slot, i, p),
                                 IBR__MSG("TP047", "duplicate port GUID 0x%016" PRIx64
                                                   " (also port %u of \"%s\")"),
                                 g, (unsigned)(s - ps->nodes[lo].slot), IBR__ESC(ps->nodes[lo].id));
                break;
            }
            if (ibr__guidmap_put(ps->ctx, finals, g, n->slot + p) < 0)
                rc = ibr__ibn_nomem(ps);
        }
    }
    ibr__guidmap_free(ps->ctx, &nodes);
    return rc;
}
