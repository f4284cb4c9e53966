/*
 * Topology text, last stage: the resolved records into a fabric, and the
 * entry point ibr_fabric_parse_ibnetdiscover().
 *
 * The parser reads the text into records first (parse.c), then resolves
 * node ids, checks that every link is listed from both ends, and checks
 * GUIDs (resolve.c), and only then builds a temporary fabric with the
 * public builder calls. The caller's fabric receives the content only when
 * everything succeeded, so a failed parse leaves it empty.
 */
#include <string.h>

#include "formats/formats_int.h"
#include "formats/ibnetdiscover/ibnetdiscover_int.h"

typedef struct builder {
    ibn_parser *ps;
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
        return ibr__ibn_nomem(b->ps);
    return ibr__ibn_err(b->ps, IBR_EPARSE, line, "%s", ibr_fabric_last_error(b->f));
}

static int add_nodes(builder *b)
{
    ibn_parser *ps = b->ps;
    ibr_fabric *f = b->f;
    for (uint32_t i = 0; i < ps->n_nodes; i++) {
        const ibn_node *n = &ps->nodes[i];
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
            ibr__port_owner(f, gp, &on, &op);
            int rc = ibr_fabric_set_port_guid(f, on, op, ibr__temp_port_guid(b->f, b->finals, &b->next_tmp));
            if (rc < 0)
                return berr(b, rc, n->line);
        }
        char desc[IBR_DESC_SIZE];
        ibr__span ds = n->desc_is_id ? n->id : n->desc;
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
    ibn_parser *ps = b->ps;
    ibr_fabric *f = b->f;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < ps->n_nodes; i++) {
            const ibn_node *n = &ps->nodes[i];
            unsigned p0 = n->type == IBR_NODE_SWITCH ? 0 : 1;
            unsigned p1 = n->type == IBR_NODE_SWITCH ? 0 : n->nports;
            for (unsigned p = p0; p <= p1; p++) {
                uint64_t want = ibr__ibn_final_port_guid(ps, b->slot, i, p);
                uint64_t have = f->ports[f->nodes[i].port_off + p].guid;
                if (have == want)
                    continue;
                uint64_t g;
                if (pass == 0) {
                    if (ibr__guidmap_get(b->finals, have) == IBR_NONE)
                        continue;
                    g = ibr__temp_port_guid(b->f, b->finals, &b->next_tmp);
                } else {
                    g = want;
                }
                int rc = ibr_fabric_set_port_guid(f, i, p, g);
                if (rc < 0)
                    return berr(b, rc, ibr__ibn_port_line(ps, b->slot, i, p));
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
    ibn_parser *ps = b->ps;
    for (uint32_t i = 0; i < ps->n_ports; i++) {
        const ibn_port *pr = &ps->ports[i];
        if (pr->rnode < pr->node || (pr->rnode == pr->node && pr->rport < pr->port))
            continue; /* added from the other end */
        const ibn_port *peer = &ps->ports[b->slot[ps->nodes[pr->rnode].slot + pr->rport]];
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

/* The PortInfo facts a port line carries: VLCap (v=) and the enabled
   masks (w= s= e=, or the file's width= speed= extspeed=). */
static int set_port_attrs(builder *b)
{
    ibn_parser *ps = b->ps;
    for (uint32_t i = 0; i < ps->n_ports; i++) {
        const ibn_port *pr = &ps->ports[i];
        if (!pr->vl_cap && !pr->en_wmask && !pr->en_smask)
            continue;
        ibr_port_attr a = IBR_PORT_ATTR_INIT;
        a.vl_cap = pr->vl_cap;
        a.width_enabled = pr->en_wmask;
        a.speed_enabled = pr->en_smask;
        int rc = ibr_fabric_set_port_attr(b->f, pr->node, pr->port, &a);
        if (rc < 0)
            return berr(b, rc, pr->line);
    }
    return 0;
}

static int set_lids(builder *b)
{
    ibn_parser *ps = b->ps;
    for (uint32_t i = 0; i < ps->n_nodes; i++) {
        const ibn_node *n = &ps->nodes[i];
        if (n->type == IBR_NODE_SWITCH && n->lid) {
            int rc = ibr_fabric_set_lid(b->f, i, 0, n->lid, n->lmc);
            if (rc < 0)
                return berr(b, rc, n->line);
        }
    }
    for (uint32_t i = 0; i < ps->n_ports; i++) {
        const ibn_port *pr = &ps->ports[i];
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
    int rc = ibr__parse_into_check(f, buf, len);
    if (rc < 0)
        return rc;
    ibn_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.ctx = ibr__ctx(f->ctx);
    uint32_t *slot = NULL;
    ibr__guidmap finals = {0};
    ibr_fabric *tmp = NULL;
    rc = ibr__ibn_parse(&ps, buf, len);
    if (rc == 0)
        rc = ibr__ibn_resolve(&ps, &slot);
    if (rc == 0)
        rc = ibr__ibn_check_guids(&ps, slot, &finals);
    if (rc == 0 && ibr_fabric_create(&tmp, ps.ctx) < 0)
        rc = ibr__ibn_nomem(&ps);
    if (rc == 0) {
        builder b = {&ps, tmp, slot, &finals, UINT64_MAX};
        if ((rc = add_nodes(&b)) == 0 && (rc = set_port_guids(&b)) == 0 &&
            (rc = add_links(&b)) == 0 && (rc = set_port_attrs(&b)) == 0)
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
