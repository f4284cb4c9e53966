/* LID assignment: caller-given LIDs and automatic assignment with LMC. */
#include <inttypes.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"

#define NLIDS (IBR_MAX_UNICAST_LID + 1)

static int ensure_owner(ibr_fabric *f)
{
    if (f->lid_owner)
        return 0;
    f->lid_owner = ibr__calloc(f->ctx, NLIDS, sizeof *f->lid_owner);
    return f->lid_owner ? 0 : IBR_ENOMEM;
}

int ibr_fabric_set_lid(ibr_fabric *f, uint32_t node, unsigned int port, uint16_t base,
                       unsigned int lmc)
{
    if (!f)
        return IBR_EINVAL;
    if (node >= f->n_nodes)
        return ibr__fabric_err(f, IBR_ENOTFOUND,
                               IBR__MSG("FB024", "node %" PRIu32 ": no such node"), node);
    const ibr__node *n = &f->nodes[node];
    const char *tn = ibr__type_name(n->type);
    if (port > n->nports)
        return ibr__fabric_err(
            f, IBR_ERANGE,
            IBR__MSG("FB002", "%s 0x%016" PRIx64 " port %u: port out of range (%s has %u)"), tn,
            n->guid, port, tn, (unsigned)n->nports);
    if (n->type == IBR_NODE_SWITCH && port != 0)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("FB025", "switch 0x%016" PRIx64 " port %u: only port 0 of a switch has a LID"),
            n->guid, port);
    if (n->type != IBR_NODE_SWITCH && port == 0)
        return ibr__fabric_err(f, IBR_ERANGE,
                               IBR__MSG("FB026", "%s 0x%016" PRIx64 ": port 0 has no LID"), tn,
                               n->guid);
    if (lmc > 7)
        return ibr__fabric_err(f, IBR_ERANGE,
                               IBR__MSG("FB027", "%s 0x%016" PRIx64 " port %u: LMC %u (max 7)"), tn,
                               n->guid, port, lmc);
    unsigned cnt = 1u << lmc;
    if (base && ((unsigned)base + cnt - 1 > IBR_MAX_UNICAST_LID))
        return ibr__fabric_err(f, IBR_ERANGE,
                               IBR__MSG("FB028", "%s 0x%016" PRIx64
                                                 " port %u: LID %u+%u beyond the unicast range "
                                                 "(max 0x%X)"),
                               tn, n->guid, port, (unsigned)base, cnt - 1, IBR_MAX_UNICAST_LID);
    if (base & (cnt - 1))
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("FB029",
                                        "%s 0x%016" PRIx64
                                        " port %u: LID %u is not a multiple of 2^LMC = %u"),
                               tn, n->guid, port, (unsigned)base, cnt);
    uint32_t gp = n->port_off + port;
    if (base) {
        if (ensure_owner(f) < 0)
            return ibr__fabric_err(f, IBR_ENOMEM, "out of memory");
        for (unsigned l = base; l < base + cnt; l++) {
            uint32_t o = f->lid_owner[l];
            if (o && o - 1 != gp) {
                /* find the owner node for the message */
                uint32_t on = 0;
                for (size_t i = 0; i < f->n_nodes; i++)
                    if (f->nodes[i].port_off <= o - 1)
                        on = (uint32_t)i;
                    else
                        break;
                return ibr__fabric_err(
                    f, IBR_EEXIST,
                    "%s 0x%016" PRIx64 " port %u: LID %u already belongs to %s 0x%016" PRIx64
                    " port %u",
                    tn, n->guid, port, l, ibr__type_name(f->nodes[on].type), f->nodes[on].guid,
                    (unsigned)(o - 1 - f->nodes[on].port_off));
            }
        }
    }
    ibr__port *p = &f->ports[gp];
    if (p->lid && f->lid_owner)
        for (unsigned l = p->lid; l < p->lid + (1u << p->lmc); l++)
            f->lid_owner[l] = 0;
    p->lid = base;
    p->lmc = base ? (uint8_t)lmc : 0;
    if (base)
        for (unsigned l = base; l < base + cnt; l++)
            f->lid_owner[l] = gp + 1;
    f->last_error[0] = 0;
    return 0;
}

/* Next free block of cnt aligned LIDs at or after *next in owner[]; 0 when
   none. */
static unsigned next_block(const uint32_t *owner, unsigned *next, unsigned cnt)
{
    unsigned l = (*next + cnt - 1) & ~(cnt - 1);
    while (l + cnt - 1 <= IBR_MAX_UNICAST_LID) {
        unsigned k;
        for (k = 0; k < cnt && !owner[l + k]; k++)
            ;
        if (k == cnt) {
            *next = l + cnt;
            return l;
        }
        l += cnt;
    }
    return 0;
}

int ibr_fabric_assign_lids(ibr_fabric *f, unsigned int lmc, unsigned int flags)
{
    if (!f)
        return IBR_EINVAL;
    if (lmc > 7)
        return ibr__fabric_err(f, IBR_ERANGE, IBR__MSG("FB030", "LMC %u out of range (0..7)"), lmc);
    if (flags & ~(unsigned)IBR_LIDS_REASSIGN)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("FB031", "unknown LID assignment flags 0x%x"), flags);
    int reassign = (flags & IBR_LIDS_REASSIGN) != 0;
    ibr_context *ctx = f->ctx;
    /* work on copies, apply only on success */
    uint32_t *owner = ibr__calloc(ctx, NLIDS, sizeof *owner);
    uint16_t *lid = ibr__mallocarray(ctx, f->n_ports ? f->n_ports : 1, sizeof *lid);
    uint8_t *lmcs = ibr__mallocarray(ctx, f->n_ports ? f->n_ports : 1, sizeof *lmcs);
    if (!owner || !lid || !lmcs) {
        ibr__free(ctx, owner);
        ibr__free(ctx, lid);
        ibr__free(ctx, lmcs);
        return ibr__fabric_err(f, IBR_ENOMEM, "out of memory assigning LIDs");
    }
    for (size_t i = 0; i < f->n_ports; i++) {
        lid[i] = reassign ? 0 : f->ports[i].lid;
        lmcs[i] = reassign ? 0 : f->ports[i].lmc;
        if (lid[i])
            for (unsigned l = lid[i]; l < lid[i] + (1u << lmcs[i]); l++)
                owner[l] = (uint32_t)i + 1;
    }
    unsigned next = 1;
    size_t needed = 0, failed = 0;
    /* switches first, then CAs and routers, in node index order */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < f->n_nodes; i++) {
            const ibr__node *n = &f->nodes[i];
            int is_sw = n->type == IBR_NODE_SWITCH;
            if (is_sw != (pass == 0))
                continue;
            unsigned p0 = is_sw ? 0 : 1, p1 = is_sw ? 0 : n->nports;
            unsigned cnt = is_sw ? 1 : 1u << lmc;
            for (unsigned p = p0; p <= p1; p++) {
                size_t gp = n->port_off + p;
                if (lid[gp])
                    continue;
                if (!is_sw && f->ports[gp].remote_node == IBR_NONE)
                    continue;
                needed += cnt;
                unsigned b = failed ? 0 : next_block(owner, &next, cnt);
                if (!b) {
                    failed++;
                    continue;
                }
                lid[gp] = (uint16_t)b;
                lmcs[gp] = is_sw ? 0 : (uint8_t)lmc;
                for (unsigned l = b; l < b + cnt; l++)
                    owner[l] = (uint32_t)gp + 1;
            }
        }
    }
    if (failed) {
        ibr__free(ctx, owner);
        ibr__free(ctx, lid);
        ibr__free(ctx, lmcs);
        return ibr__fabric_err(
            f, IBR_ENOSPC,
            IBR__MSG("FB032", "fabric does not fit in the unicast LID range 1..0x%X: %zu more LIDs "
                              "needed with LMC %u, %zu ports left without one"),
            IBR_MAX_UNICAST_LID, needed, lmc, failed);
    }
    for (size_t i = 0; i < f->n_ports; i++) {
        f->ports[i].lid = lid[i];
        f->ports[i].lmc = lmcs[i];
    }
    ibr__free(ctx, f->lid_owner);
    f->lid_owner = owner;
    ibr__free(ctx, lid);
    ibr__free(ctx, lmcs);
    f->last_error[0] = 0;
    return 0;
}
