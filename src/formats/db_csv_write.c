/*
 * Writing a topology as ibdiagnet's database file, ibdiagnet2.db_csv: the
 * NODES, PORTS and LINKS tables that ibr_fabric_parse_db_csv() reads (the
 * layout is described there), with the columns ibdiagnet names them by.
 *
 * NODES gives every node once, in node index order, with the PortGUID of
 * its LocalPortNum (a switch's port 0, an end node's port 1). PORTS gives
 * every port (port 0 too for a switch), a switch's LID, LMC and port GUID
 * repeated on each of its rows as ibdiagnet does; PortState is 4 (active)
 * for a port with an active cable, else 1 (down); a cabled port's
 * LinkWidthActv and LinkSpeedActv give the cable's width (PortInfo
 * encoding) and speed (ibutils2's combined encoding, as the reader
 * decodes it), 0 elsewhere. LINKS gives each active
 * cable once: down cables are not discovered by ibdiagnet.
 *
 * Class and base versions, device, vendor, revision and partition cap
 * are not modelled and print as fixed values.
 */
#include <inttypes.h>
#include <string.h>

#include "core/topo_int.h"
#include "formats/formats_int.h"
#include "ibroute/formats.h"

/* The node's description as a quoted CSV field: one line, quotes
   doubled. */
static int put_desc(ibr_buffer *out, ibr_context *ctx, const char *desc)
{
    char line[IBR_DESC_SIZE];
    ibr__desc_line(line, desc);
    int rc = ibr__buf_putc(out, ctx, '"');
    for (const char *c = line; *c && rc == 0; c++)
        rc = *c == '"' ? ibr__buf_append(out, ctx, "\"\"", 2) : ibr__buf_putc(out, ctx, *c);
    return rc < 0 ? rc : ibr__buf_putc(out, ctx, '"');
}

static int is_up(const ibr__port *pt)
{
    return pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE;
}

static int write_nodes(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t)
{
    int rc = ibr__buf_puts(out, ctx,
                           "START_NODES\nNodeDesc,NumPorts,NodeType,ClassVersion,BaseVersion,"
                           "SystemImageGUID,NodeGUID,PortGUID,DeviceID,PartitionCap,revision,"
                           "VendorID,LocalPortNum\n");
    for (uint32_t i = 0; i < t->n_nodes && rc == 0; i++) {
        const ibr__node *n = &t->nodes[i];
        unsigned lp = n->type == IBR_NODE_SWITCH ? 0 : 1;
        int type = n->type == IBR_NODE_SWITCH ? 2 : n->type == IBR_NODE_CA ? 1 : 3;
        if ((rc = put_desc(out, ctx, n->desc)) < 0)
            break;
        rc = ibr__buf_printf(out, ctx,
                             ",%u,%d,1,1,0x%016" PRIx64 ",0x%016" PRIx64 ",0x%016" PRIx64
                             ",0,0,0,0,%u\n",
                             (unsigned)n->nports, type, n->sysimg ? n->sysimg : n->guid, n->guid,
                             t->ports[n->port_off + lp].guid, lp);
    }
    return rc < 0 ? rc : ibr__buf_puts(out, ctx, "END_NODES\n\n");
}

/* A speed in ibutils2's combined LinkSpeedActv encoding; 0 if unknown. */
static unsigned speed_code(unsigned s)
{
    static const unsigned code[] = {0,     1,     2,     4,       0x10000,
                                    0x100, 0x200, 0x400, 0x800, 0x1000000};
    return s < sizeof code / sizeof code[0] ? code[s] : 0;
}

static int write_ports(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t)
{
    int rc = ibr__buf_puts(out, ctx,
                           "START_PORTS\nNodeGuid,PortGuid,PortNum,LID,LMC,LinkWidthActv,"
                           "LinkSpeedActv,PortState\n");
    for (uint32_t i = 0; i < t->n_nodes && rc == 0; i++) {
        const ibr__node *n = &t->nodes[i];
        int sw = n->type == IBR_NODE_SWITCH;
        for (unsigned p = sw ? 0 : 1; p <= n->nports && rc == 0; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            const ibr__port *id = sw ? &t->ports[n->port_off] : pt;
            int cabled = p && pt->remote_node != IBR_NONE;
            rc = ibr__buf_printf(out, ctx,
                                 "0x%016" PRIx64 ",0x%016" PRIx64 ",%u,%u,%u,%u,%u,%d\n", n->guid,
                                 id->guid, p, (unsigned)id->lid, (unsigned)id->lmc,
                                 cabled ? pt->width : 0u, cabled ? speed_code(pt->speed) : 0u,
                                 (p == 0 || is_up(pt)) ? 4 : 1);
        }
    }
    return rc < 0 ? rc : ibr__buf_puts(out, ctx, "END_PORTS\n\n");
}

static int write_links(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t)
{
    int rc = ibr__buf_puts(out, ctx, "START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n");
    for (uint32_t i = 0; i < t->n_nodes && rc == 0; i++) {
        const ibr__node *n = &t->nodes[i];
        for (unsigned p = 1; p <= n->nports && rc == 0; p++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            /* each cable once, from its end with the smaller (node, port) */
            if (!is_up(pt) || pt->remote_node < i ||
                (pt->remote_node == i && pt->remote_port < p))
                continue;
            rc = ibr__buf_printf(out, ctx, "0x%016" PRIx64 ",%u,0x%016" PRIx64 ",%u\n", n->guid,
                                 p, t->nodes[pt->remote_node].guid, (unsigned)pt->remote_port);
        }
    }
    return rc < 0 ? rc : ibr__buf_puts(out, ctx, "END_LINKS\n");
}

int ibr_topo_write_db_csv(ibr_buffer *out, const ibr_topo *t)
{
    size_t mark;
    if (!t)
        return IBR_EINVAL;
    int rc = ibr__buf_begin(out, t->ctx, &mark);
    if (rc < 0)
        return rc;
    if ((rc = ibr__buf_puts(out, t->ctx, "# ibdiagnet2.db_csv written by ibroute\n")) == 0 &&
        (rc = write_nodes(out, t->ctx, t)) == 0 && (rc = write_ports(out, t->ctx, t)) == 0)
        rc = write_links(out, t->ctx, t);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}
