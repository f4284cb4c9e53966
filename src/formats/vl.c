/* Writers for SL and VL data: ibdiagnet-style path-SL and SL2VL files (read
   by ibdmchk -c / -d), OpenSM's opensm-sl2vl.dump and opensm.mcfdbs. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/result_qos.h"
#include "formats/formats_int.h"
#include "ibroute/qos.h"

/* Check the arguments of a writer and begin writing; *t receives the
   result's topology. */
static int check(const ibr_topo **t, ibr_buffer *out, const ibr_result *r, size_t *mark)
{
    if (!out || !r || !r->lft || r->status != 0)
        return IBR_EINVAL;
    *t = r->topo;
    return ibr__buf_begin(out, r->topo->ctx, mark);
}

int ibr_result_write_path_sl(ibr_buffer *out, const ibr_result *r)
{
    return ibr_result_write_path_sl_level(out, r, 0);
}

int ibr_result_write_path_sl_level(ibr_buffer *out, const ibr_result *r, unsigned int level)
{
    size_t mark;
    const ibr_topo *t = NULL;
    if (r && level && level >= ibr_result_qos_levels(r))
        return IBR_ERANGE;
    int rc = check(&t, out, r, &mark);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < t->n_end && rc == 0; i++) {
        uint32_t gp = t->end_port[i];
        const ibr__port *sp = &t->ports[gp];
        uint64_t node_guid = t->nodes[t->port_node[gp]].guid;
        for (unsigned d = 1; d <= t->max_lid && rc == 0; d++) {
            uint32_t owner = t->lid_port[d];
            if (owner == IBR_NONE || owner == gp ||
                t->nodes[t->port_node[owner]].type == IBR_NODE_SWITCH)
                continue;
            rc = ibr__buf_printf(out, t->ctx, "0x%016" PRIx64 " %u %u\n", node_guid, d,
                                 ibr_result_path_sl_level(r, level, sp->lid, (uint16_t)d));
        }
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

static void sl2vl_of(uint8_t map[16], const ibr_result *r, uint32_t sw, unsigned in, unsigned o)
{
    for (unsigned sl = 0; sl < 16; sl++)
        map[sl] = (uint8_t)ibr__hop_vl(r, sw, in, o, sl);
}

int ibr_result_write_sl2vl(ibr_buffer *out, const ibr_result *r)
{
    size_t mark;
    const ibr_topo *t = NULL;
    int rc = check(&t, out, r, &mark);
    if (rc < 0)
        return rc;
    for (uint32_t s = 0; s < t->n_sw && rc == 0; s++) {
        const ibr__node *n = &t->nodes[t->sw_node[s]];
        for (unsigned in = 0; in <= n->nports && rc == 0; in++) {
            if (in && t->ports[n->port_off + in].remote_node == IBR_NONE)
                continue;
            for (unsigned o = 1; o <= n->nports && rc == 0; o++) {
                if (o == in || t->ports[n->port_off + o].remote_node == IBR_NONE)
                    continue;
                uint8_t m[16];
                sl2vl_of(m, r, s, in, o);
                rc = ibr__buf_printf(out, t->ctx, "0x%016" PRIx64 " %u %u", n->guid, in, o);
                for (unsigned k = 0; k < 16 && rc == 0; k += 2)
                    rc = ibr__buf_printf(out, t->ctx, " 0x%x%x", m[k] & 15, m[k + 1] & 15);
                if (rc == 0)
                    rc = ibr__buf_putc(out, t->ctx, '\n');
            }
        }
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

typedef struct {
    uint64_t key;
    uint32_t gp;
} pkey;

static int cmp_pkey(const void *a, const void *b)
{
    const pkey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->gp < y->gp ? -1 : x->gp > y->gp;
}

static int sl2vl_line(ibr_buffer *out, ibr_context *ctx, unsigned in, unsigned o,
                      const uint8_t m[16])
{
    int rc = ibr__buf_printf(out, ctx, "%-3u %-3u :", in, o);
    for (unsigned k = 0; k < 16 && rc == 0; k++)
        rc = ibr__buf_printf(out, ctx, " %-2u", m[k]);
    return rc ? rc : ibr__buf_putc(out, ctx, '\n');
}

int ibr_result_write_sl2vl_dump(ibr_buffer *out, const ibr_result *r)
{
    size_t mark;
    const ibr_topo *t = NULL;
    int rc = check(&t, out, r, &mark);
    if (rc < 0)
        return rc;
    /* ports in OpenSM's port table order: ascending byte-reversed port GUID;
       a switch appears once, through its port 0 */
    size_t np = 0;
    pkey *keys = ibr__mallocarray(t->ctx, t->n_ports ? t->n_ports : 1, sizeof *keys);
    if (!keys) {
        ibr__buf_abort(out, mark);
        return IBR_ENOMEM;
    }
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        const ibr__node *n = &t->nodes[i];
        if (n->type == IBR_NODE_SWITCH) {
            keys[np++] = (pkey){ibr__guid_key(t->ports[n->port_off].guid), n->port_off};
            continue;
        }
        for (unsigned p = 1; p <= n->nports; p++)
            if (t->ports[n->port_off + p].remote_node != IBR_NONE)
                keys[np++] = (pkey){ibr__guid_key(t->ports[n->port_off + p].guid), n->port_off + p};
    }
    qsort(keys, np, sizeof *keys, cmp_pkey);
    static const char sep[] = "#--------------------------------------------------------\n";
    for (size_t i = 0; i < np && rc == 0; i++) {
        uint32_t gp = keys[i].gp;
        const ibr__node *n = &t->nodes[t->port_node[gp]];
        rc = ibr__buf_printf(out, t->ctx,
                             "%s 0x%016" PRIx64 ", base LID %u, \"%s\"\n"
                             "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n%s",
                             ibr__type_word(n->type), t->ports[gp].guid, t->ports[gp].lid, n->desc,
                             sep);
        uint8_t m[16];
        if (n->type == IBR_NODE_SWITCH) {
            /* as OpenSM: output ports with a neighbour (never port 0) */
            for (unsigned o = 1; o <= n->nports && rc == 0; o++) {
                if (t->ports[n->port_off + o].remote_node == IBR_NONE)
                    continue;
                for (unsigned in = 0; in <= n->nports && rc == 0; in++) {
                    sl2vl_of(m, r, n->sw, in, o);
                    rc = sl2vl_line(out, t->ctx, in, o, m);
                }
            }
        } else if (rc == 0) {
            for (unsigned k = 0; k < 16; k++)
                m[k] = (uint8_t)(k < 15 ? k : 15);
            if (r->ep_sl2vl)
                memcpy(m, r->ep_sl2vl + (size_t)gp * 16, 16);
            rc = sl2vl_line(out, t->ctx, 0, 0, m);
        }
        if (rc == 0)
            rc = ibr__buf_printf(out, t->ctx, "%s\n", sep);
    }
    ibr__free(t->ctx, keys);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

static int vlarb_rows(ibr_buffer *out, ibr_context *ctx, const char *name,
                      const ibr_vlarb_entry *e, unsigned n)
{
    int rc = ibr__buf_printf(out, ctx, "# %s priority VL Arbitration Table:\nVL    : |", name);
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = ibr__buf_printf(out, ctx, "0x%-2X|", e[i].vl);
    if (rc == 0)
        rc = ibr__buf_puts(out, ctx, "\nWEIGHT: |");
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = ibr__buf_printf(out, ctx, "0x%-2X|", e[i].weight);
    return rc ? rc : ibr__buf_putc(out, ctx, '\n');
}

int ibr_result_write_vlarb(ibr_buffer *out, const ibr_result *r)
{
    size_t mark;
    const ibr_topo *t = NULL;
    if (r && !ibr_result_has_qos(r))
        return IBR_EINVAL;
    int rc = check(&t, out, r, &mark);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < t->n_nodes && rc == 0; i++) {
        const ibr__node *n = &t->nodes[i];
        for (unsigned p = 0; p <= n->nports && rc == 0; p++) {
            const ibr__vlarb *v = ibr__result_qos_vlarb(r, n->port_off + p);
            if (!v || !v->programmed)
                continue;
            rc = ibr__buf_printf(out, t->ctx,
                                 "# VLArbitration tables: %s 0x%016" PRIx64
                                 " \"%s\" lid %u port %u LowCap %u HighCap %u HighLimit %u\n",
                                 n->type == IBR_NODE_CA ? "CA" : ibr__type_word(n->type), n->guid,
                                 n->desc,
                                 t->ports[n->port_off + (n->type == IBR_NODE_SWITCH ? 0 : p)].lid,
                                 p, v->n_low, v->n_high, v->high_limit);
            if (rc == 0 && v->n_low)
                rc = vlarb_rows(out, t->ctx, "Low", v->low, v->n_low);
            if (rc == 0 && v->n_high)
                rc = vlarb_rows(out, t->ctx, "High", v->high, v->n_high);
            if (rc == 0)
                rc = ibr__buf_putc(out, t->ctx, '\n');
        }
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

static int cmp_sw_key(const void *a, const void *b, void *arg)
{
    const ibr_topo *t = arg;
    uint64_t x = ibr__guid_key(t->nodes[t->sw_node[*(const uint32_t *)a]].guid);
    uint64_t y = ibr__guid_key(t->nodes[t->sw_node[*(const uint32_t *)b]].guid);
    return x < y ? -1 : x > y;
}

int ibr_result_write_mcfdbs(ibr_buffer *out, const ibr_result *r)
{
    size_t mark;
    const ibr_topo *t = NULL;
    int rc = check(&t, out, r, &mark);
    if (rc < 0)
        return rc;
    /* switches in OpenSM's switch-table order */
    uint32_t *order = ibr__mallocarray(t->ctx, t->n_sw ? t->n_sw : 1, sizeof *order);
    if (!order)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_sw; i++)
        order[i] = i;
    ibr__sort(order, t->n_sw, sizeof *order, cmp_sw_key, (void *)t);
    for (uint32_t i = 0; i < t->n_sw && rc == 0; i++) {
        uint32_t s = order[i];
        int header = 0;
        for (size_t g = 0; g < r->n_mcast && rc == 0; g++) {
            const uint8_t *bits = r->mcast[g].bits + (size_t)s * 32;
            int any = 0;
            for (unsigned k = 0; k < 32; k++)
                any |= bits[k];
            if (!any)
                continue;
            if (!header) {
                rc = ibr__buf_printf(out, t->ctx, "\nSwitch 0x%016" PRIx64 "\nLID    : Out Port(s)\n",
                                     t->nodes[t->sw_node[s]].guid);
                header = 1;
            }
            if (rc == 0)
                rc = ibr__buf_printf(out, t->ctx, "0x%04X :", r->mcast[g].mlid);
            for (unsigned p = 0; p < 256 && rc == 0; p++)
                if (bits[p >> 3] & (1u << (p & 7)))
                    rc = ibr__buf_printf(out, t->ctx, " 0x%03X ", p);
            if (rc == 0)
                rc = ibr__buf_putc(out, t->ctx, '\n');
        }
    }
    ibr__free(t->ctx, order);
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}
