/*
 * export_sim.c - the simulator exporters of `ibr export`: CODES' per-switch
 * .lft files, SST/macro's file topology and routing tables, and SST
 * Merlin's anytopo graph with a source-routing table. Each writes into
 * memory buffers (xout); doc/exporters.md names the consumer's file that
 * reads each format.
 */
#include "export_formats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xbuf *xout_add(xout *o, const char *name)
{
    if (o->n == o->cap) {
        size_t nc = o->cap ? 2 * o->cap : 64;
        xfile *f = realloc(o->f, nc * sizeof *f);
        if (!f)
            return NULL;
        o->f = f;
        o->cap = nc;
    }
    xfile *f = &o->f[o->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    return &f->b;
}

void xout_dispose(xout *o)
{
    for (size_t i = 0; i < o->n; i++)
        xb_free(&o->f[i].b);
    free(o->f);
    memset(o, 0, sizeof *o);
}

/* Report a route that cannot be exported. */
static void route_error(const char *fmt, const xfab *x, uint32_t sw, const xep *e,
                        const char *why)
{
    cli_error("CL078", fmt, "switch 0x%016" PRIx64 " to LID %u (port 0x%016" PRIx64 "): %s",
              x->sw_guid[sw], (unsigned)e->lid, e->guid, why);
}

/* ------------------------------------------------------------------------ */
/* CODES: one file per switch, named 0x<switch GUID>.lft, one line
   "0x<destination port GUID> <output port>" per end port. The fat-tree
   model (src/networks/model-net/fattree.c, read_static_lft) reads them
   with routing="static" and routing_folder=DIR, matching terminals by GUID. */

int xexp_codes(xout *o, const xfab *x)
{
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        char name[40];
        snprintf(name, sizeof name, "0x%016" PRIx64 ".lft", x->sw_guid[s]);
        xbuf *b = xout_add(o, name);
        if (!b)
            goto oom;
        xb_printf(b, "# LFT of switch 0x%016" PRIx64 " by destination port GUID (ibroute, %s)\n",
                  x->sw_guid[s], ibr_result_engine(x->r));
        for (size_t k = 0; k < x->neps; k++) {
            const xep *e = &x->eps[k];
            unsigned int port = ibr_result_lft_port(x->r, s, e->lid);
            if (port == IBR_NO_ROUTE || port == 0) {
                route_error("codes", x, s, e, "no route (CODES needs every terminal)");
                return -1;
            }
            xb_printf(b, "0x%016" PRIx64 " %u\n", e->guid, port);
        }
        if (b->oom)
            goto oom;
    }
    return 0;
oom:
    cli_error("CL011", "codes", "out of memory");
    return -1;
}

/* ------------------------------------------------------------------------ */
/* SST/macro: the file topology (sstmac/hardware/topology/file.cc: switches
   and nodes with their outports) and the table router's routing tables
   (topology.cc "routing_tables", router/table_routing.cc: per switch, the
   output port toward each node). Names: switches "switch-0x<GUID>", nodes
   (one per end port) "port-0x<port GUID>". */

static void macro_topology(xbuf *b, const xfab *x, uint32_t *remote, unsigned int cap,
                           unsigned int avg_hops)
{
    xb_printf(b, "{\n  \"avg_num_hops\": %u,\n  \"switches\": {", avg_hops);
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        xb_printf(b, "%s\n    \"switch-0x%016" PRIx64 "\": {\"outports\": {", i ? "," : "",
                  x->sw_guid[s]);
        int np = xfab_sw_neighbours(x, s, remote, cap), first = 1;
        uint32_t node = ibr_topo_switch_node(x->t, s);
        for (int p = 1; p <= np; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (remote[p - 1] == IBR_NONE ||
                ibr_topo_port_info(&pi, x->t, node, (unsigned)p) < 0)
                continue;
            xb_printf(b, "%s\n      \"%d\": {\"destination\": \"switch-0x%016" PRIx64
                         "\", \"inport\": %u}",
                      first ? "" : ",", p, x->sw_guid[remote[p - 1]], pi.remote_port);
            first = 0;
        }
        for (size_t k = x->sw_first[s]; k < x->sw_first[s + 1]; k++) {
            const xep *e = &x->eps[x->ep_idx[k]];
            xb_printf(b, "%s\n      \"%u\": {\"destination\": \"port-0x%016" PRIx64
                         "\", \"inport\": 0}",
                      first ? "" : ",", e->swport, e->guid);
            first = 0;
        }
        xb_puts(b, "\n    }}");
    }
    xb_puts(b, "\n  },\n  \"nodes\": {");
    for (size_t k = 0; k < x->neps; k++) {
        const xep *e = &x->eps[k];
        xb_printf(b, "%s\n    \"port-0x%016" PRIx64 "\": {\"outports\": {\"0\": "
                     "{\"destination\": \"switch-0x%016" PRIx64 "\", \"inport\": %u}}}",
                  k ? "," : "", e->guid, x->sw_guid[e->sw], e->swport);
    }
    xb_puts(b, "\n  }\n}\n");
}

/* The routing tables; the mean number of switches a route crosses between
   two end ports into *avg (SST/macro's avg_num_hops). */
static int macro_routes(xbuf *b, const xfab *x, uint32_t *hops, unsigned int *avg)
{
    double sum = 0, pairs = 0;
    xb_puts(b, "{\n  \"switches\": {");
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        size_t here = x->sw_first[s + 1] - x->sw_first[s];
        xb_printf(b, "%s\n    \"switch-0x%016" PRIx64 "\": {\"routes\": {", i ? "," : "",
                  x->sw_guid[s]);
        for (size_t k = 0; k < x->neps; k++) {
            const xep *e = &x->eps[k];
            const char *why;
            size_t n;
            if (xfab_walk(x, s, e, hops, &n, &why) < 0) {
                route_error("sst-macro", x, s, e, why);
                return -1;
            }
            /* sources are the end ports on this switch, other than e */
            size_t src = here - (e->sw == s ? 1 : 0);
            sum += (double)src * (double)(n + 1);
            pairs += (double)src;
            xb_printf(b, "%s\n      \"port-0x%016" PRIx64 "\": %u", k ? "," : "", e->guid,
                      ibr_result_lft_port(x->r, s, e->lid));
        }
        xb_puts(b, "\n    }}");
    }
    xb_puts(b, "\n  }\n}\n");
    *avg = pairs > 0 ? (unsigned int)(sum / pairs + 0.5) : 1;
    return 0;
}

int xexp_sst_macro(xout *o, const xfab *x)
{
    unsigned int cap = 256;
    uint32_t *remote = malloc(cap * sizeof *remote);
    uint32_t *hops = malloc(((size_t)x->nsw + 1) * sizeof *hops);
    xbuf *topo = xout_add(o, "sstmacro-topology.json");
    xbuf *routes = topo ? xout_add(o, "sstmacro-routing.json") : NULL;
    int rc = -1;
    unsigned int avg = 1;
    if (!remote || !hops || !routes) {
        cli_error("CL011", "sst-macro", "out of memory");
        goto out;
    }
    topo = &o->f[o->n - 2].b; /* xout_add() may have moved the first */
    if (macro_routes(routes, x, hops, &avg) < 0)
        goto out;
    macro_topology(topo, x, remote, cap, avg);
    if (topo->oom || routes->oom) {
        cli_error("CL011", "sst-macro", "out of memory");
        goto out;
    }
    rc = 0;
out:
    free(remote);
    free(hops);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* SST Merlin anytopo (topology/pymerlin-topo-any.py): a GraphML graph of
   the switches ("routers", node ids 0..S-1 in switch index order, an
   "endpoints" count each, one edge per cable) that topoAny.import_graph()
   reads with networkx, and the table its sourceRoutingPlugin takes:
   routing_table[src router][dst router] = [(weight, [hop, ..., dst])]. An
   InfiniBand table routes per destination port, so each path carries the
   share of the destination router's end ports routed along it. */

static void merlin_graph(xbuf *b, const xfab *x, uint32_t *remote, unsigned int cap)
{
    xb_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
               "  <key id=\"endpoints\" for=\"node\" attr.name=\"endpoints\" attr.type=\"int\"/>\n"
               "  <key id=\"guid\" for=\"node\" attr.name=\"guid\" attr.type=\"string\"/>\n"
               "  <key id=\"description\" for=\"node\" attr.name=\"description\" "
               "attr.type=\"string\"/>\n"
               "  <key id=\"ports\" for=\"edge\" attr.name=\"ports\" attr.type=\"string\"/>\n"
               "  <graph id=\"ibroute\" edgedefault=\"undirected\">\n");
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        xb_printf(b, "    <node id=\"%u\"><data key=\"endpoints\">%zu</data>"
                     "<data key=\"guid\">0x%016" PRIx64 "</data><data key=\"description\">",
                  i, x->sw_first[s + 1] - x->sw_first[s], x->sw_guid[s]);
        xb_xml_text(b, x->sw_desc[s]);
        xb_puts(b, "</data></node>\n");
    }
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        int np = xfab_sw_neighbours(x, s, remote, cap);
        uint32_t node = ibr_topo_switch_node(x->t, s);
        for (int p = 1; p <= np; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            uint32_t d = remote[p - 1];
            /* each cable once: from its lower switch, or lower port */
            if (d == IBR_NONE || ibr_topo_port_info(&pi, x->t, node, (unsigned)p) < 0 ||
                d < s || (d == s && pi.remote_port < (unsigned)p))
                continue;
            xb_printf(b, "    <edge source=\"%u\" target=\"%u\"><data key=\"ports\">%d-%u"
                         "</data></edge>\n", i, x->rank[d], p, pi.remote_port);
        }
    }
    xb_puts(b, "  </graph>\n</graphml>\n");
}

/* The paths from router s to the end ports of router d, merged: each
   distinct path once with the share of d's end ports it carries. */
static int merlin_pair(xbuf *b, const xfab *x, uint32_t s, uint32_t d, uint32_t *hops,
                       uint32_t *paths, size_t *plen, size_t *pcount)
{
    size_t nd = x->sw_first[d + 1] - x->sw_first[d], np = 0, stride = (size_t)x->nsw + 1;
    for (size_t k = x->sw_first[d]; k < x->sw_first[d + 1]; k++) {
        const xep *e = &x->eps[x->ep_idx[k]];
        const char *why;
        size_t n, j;
        if (xfab_walk(x, s, e, hops, &n, &why) < 0) {
            route_error("sst-merlin", x, s, e, why);
            return -1;
        }
        for (j = 0; j < np; j++)
            if (plen[j] == n && !memcmp(paths + j * stride, hops, n * sizeof *hops))
                break;
        if (j == np) {
            memcpy(paths + np * stride, hops, n * sizeof *hops);
            plen[np] = n;
            pcount[np++] = 0;
        }
        pcount[j]++;
    }
    xb_printf(b, "\"%u\": [", x->rank[d]);
    for (size_t j = 0; j < np; j++) {
        xb_printf(b, "%s[%.17g, [", j ? ", " : "", (double)pcount[j] / (double)nd);
        for (size_t h = 0; h < plen[j]; h++)
            xb_printf(b, "%s%u", h ? ", " : "", x->rank[paths[j * stride + h]]);
        xb_puts(b, "]]");
    }
    xb_puts(b, "]");
    return 0;
}

static int merlin_table(xbuf *b, const xfab *x)
{
    size_t maxd = 0, stride = (size_t)x->nsw + 1;
    for (uint32_t d = 0; d < x->nsw; d++)
        if (x->sw_first[d + 1] - x->sw_first[d] > maxd)
            maxd = x->sw_first[d + 1] - x->sw_first[d];
    uint32_t *hops = malloc(stride * sizeof *hops);
    uint32_t *paths = malloc((maxd ? maxd : 1) * stride * sizeof *paths);
    size_t *plen = malloc((maxd ? maxd : 1) * sizeof *plen);
    size_t *pcount = malloc((maxd ? maxd : 1) * sizeof *pcount);
    int rc = -1;
    if (!hops || !paths || !plen || !pcount) {
        cli_error("CL011", "sst-merlin", "out of memory");
        goto out;
    }
    xb_printf(b, "{\n  \"generator\": \"ibroute\",\n  \"engine\": ");
    xb_json_string(b, ibr_result_engine(x->r));
    xb_printf(b, ",\n  \"routers\": %u,\n  \"endpoints\": [", x->nlive);
    size_t id = 0;
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        for (size_t k = x->sw_first[s]; k < x->sw_first[s + 1]; k++, id++) {
            const xep *e = &x->eps[x->ep_idx[k]];
            xb_printf(b, "%s\n    {\"id\": %zu, \"router\": %u, \"guid\": \"0x%016" PRIx64
                         "\", \"lid\": %u, \"description\": ",
                      id ? "," : "", id, i, e->guid, (unsigned)e->lid);
            xb_json_string(b, e->desc);
            xb_puts(b, "}");
        }
    }
    xb_puts(b, "\n  ],\n  \"routing_table\": {");
    int firsts = 1;
    for (uint32_t i = 0; i < x->nlive; i++) {
        uint32_t s = x->live[i];
        if (x->sw_first[s + 1] == x->sw_first[s])
            continue; /* only routers with endpoints source traffic */
        xb_printf(b, "%s\n    \"%u\": {", firsts ? "" : ",", i);
        firsts = 0;
        int firstd = 1;
        for (uint32_t d = 0; d < x->nsw; d++) {
            if (d == s || x->sw_first[d + 1] == x->sw_first[d])
                continue;
            xb_puts(b, firstd ? "" : ", ");
            firstd = 0;
            if (merlin_pair(b, x, s, d, hops, paths, plen, pcount) < 0)
                goto out;
        }
        xb_puts(b, "}");
    }
    xb_puts(b, "\n  }\n}\n");
    rc = 0;
out:
    free(hops);
    free(paths);
    free(plen);
    free(pcount);
    return rc;
}

int xexp_sst_merlin(xout *o, const xfab *x)
{
    unsigned int cap = 256;
    uint32_t *remote = malloc(cap * sizeof *remote);
    if (!remote || !xout_add(o, "anytopo.graphml") || !xout_add(o, "anytopo-routing.json")) {
        free(remote);
        cli_error("CL011", "sst-merlin", "out of memory");
        return -1;
    }
    xbuf *g = &o->f[o->n - 2].b, *t = &o->f[o->n - 1].b;
    merlin_graph(g, x, remote, cap);
    free(remote);
    if (merlin_table(t, x) < 0)
        return -1;
    if (g->oom || t->oom) {
        cli_error("CL011", "sst-merlin", "out of memory");
        return -1;
    }
    return 0;
}
