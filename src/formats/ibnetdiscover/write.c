/* A topology as ibnetdiscover text, readable by ibsim and by
   ibr_fabric_parse_ibnetdiscover(). */
#include <inttypes.h>

#include "formats/formats_int.h"

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
    ibr__desc_line(desc, n->desc);
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
        ibr__desc_line(rdesc, rn->desc);
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
           masks there (it refuses a link whose two ends share no width).
           A port enabling more than its link runs at (a throttled cable)
           gets its enabled masks too, for our own parser (FDR10 and XDR
           have no bit there: they survive only as the active speed). */
        unsigned active_s = pt->speed ? IBR_SPEED_BIT(pt->speed) : 0;
        int more = pt->width_en != pt->width || pt->speed_en != active_s;
        if ((n->type == IBR_NODE_ROUTER || more) && pt->width) {
            /* classic LinkSpeedEnabled bits (s=) and extended ones (e=) */
            unsigned s = (pt->speed_en >> IBR_SPEED_SDR) & 7u;
            unsigned e = (pt->speed_en >> IBR_SPEED_FDR) & 15u;
            int rc2;
            if (s || n->type == IBR_NODE_ROUTER)
                /* s=0 would mean QDR to ibsim */
                rc2 = ibr__buf_printf(out, ctx, " w=%u s=%u e=%u", (unsigned)pt->width_en,
                                      s ? s : 4u, e);
            else
                rc2 = ibr__buf_printf(out, ctx, " w=%u e=%u", (unsigned)pt->width_en, e);
            if (rc2 < 0)
                return IBR_ENOMEM;
        }
        /* VLCap as ibnetdiscover -f prints it, when not the default */
        if (pt->vl_cap != IBR__DEFAULT_VL_CAP &&
            ibr__buf_printf(out, ctx, " v=%u",
                            pt->vl_cap >= 15 ? 5u : (unsigned)__builtin_ctz(pt->vl_cap) + 1) < 0)
            return IBR_ENOMEM;
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
int ibr_topo_write_ibnetdiscover(ibr_buffer *out, const ibr_topo *t)
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
