/*
 * export_orcs.c - `ibr export orcs`: the routed fabric as the input of ORCS,
 * the Oblivious Routing Congestion Simulator (T. Schneider, T. Hoefler).
 *
 * ORCS reads one Graphviz digraph with libcgraph (agmemread). Its nodes
 * whose names begin with 'H' are the hosts it sends traffic between (the
 * rest of the name a hexadecimal GUID, for its GUID orderings); any other
 * node is a switch. Each directed edge is one direction of one cable, and
 * its "comment" attribute lists, separated by commas or blanks, the hosts
 * whose traffic leaves over it; "*" stands for every host. ORCS follows a
 * route from the source by taking, at each node, the first out-edge whose
 * list names the destination (simulator.cpp, find_route and
 * contains_target; doc/exporters.md).
 *
 * The mapping: one host "H<port GUID>" per end port, one switch
 * "S<node GUID>" per switch with an active cable; the edge out of an end
 * port carries "*", the edge out of switch port p lists the end ports
 * whose base LID the switch forwards to p. Parallel cables stay separate
 * edges, since ORCS counts congestion per edge.
 */
#include "export_formats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The end port cabled to port @p port of switch @p s, or NULL. */
static const xep *ep_at(const xfab *x, uint32_t s, unsigned int port)
{
    for (size_t k = x->sw_first[s]; k < x->sw_first[s + 1]; k++)
        if (x->eps[x->ep_idx[k]].swport == port)
            return &x->eps[x->ep_idx[k]];
    return NULL;
}

/* Every switch must forward every end port's base LID out of an active
   cable: ORCS stops a route it cannot follow. 0, or -1 reported. */
static int check_routes(const xfab *x)
{
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i], node = ibr_topo_switch_node(x->t, s);
        for (size_t k = 0; k < x->neps; k++) {
            const xep *e = &x->eps[k];
            unsigned int port = ibr_result_lft_port(x->r, s, e->lid);
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (port != IBR_NO_ROUTE && port != 0 &&
                ibr_topo_port_info(&pi, x->t, node, port) == 0 && pi.remote_node != IBR_NONE &&
                pi.state != IBR_LINK_DOWN)
                continue;
            cli_error("CL077", "orcs",
                      "switch 0x%016" PRIx64 " to LID %u (port 0x%016" PRIx64
                      "): no route over an active cable (ORCS needs every host)",
                      x->sw_guid[s], (unsigned)e->lid, e->guid);
            return -1;
        }
    }
    return 0;
}

/* Scratch of switch_edges(): the end ports grouped by output port. */
typedef struct orcs_scratch {
    size_t *first; /* by port 0..255, then the end */
    size_t *idx;   /* end port indexes, grouped by port */
} orcs_scratch;

/* The edges out of switch @p s, in port order. */
static void switch_edges(xbuf *b, const xfab *x, uint32_t s, orcs_scratch *sc)
{
    uint32_t node = ibr_topo_switch_node(x->t, s);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    if (ibr_topo_node_info(&ni, x->t, node) < 0)
        return;
    /* a counting sort keeps the fabric's end port order within a port */
    memset(sc->first, 0, 258 * sizeof *sc->first);
    for (size_t k = 0; k < x->neps; k++) {
        unsigned int p = ibr_result_lft_port(x->r, s, x->eps[k].lid);
        if (p < 256)
            sc->first[p + 2]++;
    }
    for (unsigned int p = 0; p < 256; p++)
        sc->first[p + 2] += sc->first[p + 1];
    for (size_t k = 0; k < x->neps; k++) {
        unsigned int p = ibr_result_lft_port(x->r, s, x->eps[k].lid);
        if (p < 256)
            sc->idx[sc->first[p + 1]++] = k;
    }
    for (unsigned int p = 1; p <= ni.nports && p < 256; p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_port_info(&pi, x->t, node, p) < 0 || pi.remote_node == IBR_NONE ||
            pi.state == IBR_LINK_DOWN || (pi.remote_node == node && pi.remote_port == p))
            continue;
        uint32_t rs = ibr_topo_node_switch(x->t, pi.remote_node);
        const xep *far = rs == IBR_NONE ? ep_at(x, s, p) : NULL;
        if (rs == IBR_NONE && !far)
            continue; /* an end port without a LID: not a host ORCS knows */
        if (far)
            xb_printf(b, "  \"S%016" PRIx64 "\" -> \"H%016" PRIx64 "\" [comment=\"", x->sw_guid[s],
                      far->guid);
        else
            xb_printf(b, "  \"S%016" PRIx64 "\" -> \"S%016" PRIx64 "\" [comment=\"", x->sw_guid[s],
                      x->sw_guid[rs]);
        for (size_t j = sc->first[p]; j < sc->first[p + 1]; j++)
            xb_printf(b, "%sH%016" PRIx64, j > sc->first[p] ? "," : "",
                      x->eps[sc->idx[j]].guid);
        xb_printf(b, "\"]; // port %u\n", p);
    }
}

int xexp_orcs(xout *o, const xfab *x)
{
    if (check_routes(x) < 0)
        return -1;
    xbuf *b = xout_add(o, "orcs.dot");
    if (!b) {
        cli_error("CL011", "orcs", "out of memory");
        return -1;
    }
    xb_printf(b,
              "// ORCS input (ibroute, %s): hosts H<port GUID>, switches S<node GUID>;\n"
              "// each edge's comment lists the hosts routed over it (\"*\": all).\n"
              "digraph ibroute {\n",
              ibr_result_engine(x->r));
    /* the hosts first, in the fabric's order: ORCS's linear order */
    for (size_t k = 0; k < x->neps; k++)
        xb_printf(b, "  \"H%016" PRIx64 "\";\n", x->eps[k].guid);
    for (uint32_t i = 0; i < x->nlive; i++)
        xb_printf(b, "  \"S%016" PRIx64 "\";\n", x->sw_guid[x->live[i]]);
    for (size_t k = 0; k < x->neps; k++)
        xb_printf(b, "  \"H%016" PRIx64 "\" -> \"S%016" PRIx64 "\" [comment=\"*\"];\n",
                  x->eps[k].guid, x->sw_guid[x->eps[k].sw]);
    orcs_scratch sc = {calloc(258, sizeof *sc.first), calloc(x->neps + 1, sizeof *sc.idx)};
    for (uint32_t i = 0; i < x->nlive && sc.first && sc.idx; i++)
        switch_edges(b, x, x->live[i], &sc);
    xb_puts(b, "}\n");
    int oom = !sc.first || !sc.idx;
    free(sc.first);
    free(sc.idx);
    if (b->oom || oom) {
        cli_error("CL011", "orcs", "out of memory");
        return -1;
    }
    return 0;
}
