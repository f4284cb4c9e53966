/*
 * export_model.c - the text buffer, fabric model and route walk the
 * exporters of `ibr export` share (export_model.h). Public API only.
 */
#include "export_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Text buffer */

static int xb_reserve(xbuf *b, size_t more)
{
    if (b->oom)
        return -1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->len + more + 1)
        nc *= 2;
    char *p = realloc(b->p, nc);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = nc;
    return 0;
}

void xb_printf(xbuf *b, const char *fmt, ...)
{
    /* format straight into the free space; only a text longer than it
       is formatted a second time, after growing */
    if (xb_reserve(b, 256) < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->p + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= room) {
        if (xb_reserve(b, (size_t)n) < 0)
            return;
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

void xb_puts(xbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (xb_reserve(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

void xb_json_string(xbuf *b, const char *s)
{
    xb_puts(b, "\"");
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            xb_printf(b, "\\%c", *c);
        else if (*c < 0x20)
            xb_printf(b, "\\u%04x", *c);
        else
            xb_printf(b, "%c", *c);
    }
    xb_puts(b, "\"");
}

void xb_xml_text(xbuf *b, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        switch (*c) {
        case '&': xb_puts(b, "&amp;"); break;
        case '<': xb_puts(b, "&lt;"); break;
        case '>': xb_puts(b, "&gt;"); break;
        case '"': xb_puts(b, "&quot;"); break;
        default:
            /* XML 1.0 allows no control characters but tab and newlines */
            xb_printf(b, "%c", *c < 0x20 && *c != '\t' ? ' ' : *c);
        }
    }
}

void xb_free(xbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------------------ */
/* Fabric model */

void xfab_dispose(xfab *x)
{
    free(x->eps);
    free(x->sw_first);
    free(x->ep_idx);
    free(x->sw_guid);
    free((void *)x->sw_desc);
    free(x->live);
    free(x->rank);
    memset(x, 0, sizeof *x);
}

/* Append the end ports of node @p node (not a switch) to x->eps. */
static void add_node_eps(xfab *x, uint32_t node, const ibr_node_info *ni)
{
    for (unsigned int p = 1; p <= ni->nports; p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT, sp = IBR_PORT_INFO_INIT;
        if (ibr_topo_port_info(&pi, x->t, node, p) < 0 || !pi.lid ||
            pi.remote_node == IBR_NONE || pi.state == IBR_LINK_DOWN)
            continue;
        uint32_t sw = ibr_topo_node_switch(x->t, pi.remote_node);
        if (sw == IBR_NONE || ibr_topo_port_info(&sp, x->t, pi.remote_node, pi.remote_port) < 0)
            continue;
        xep *e = &x->eps[x->neps++];
        e->node = node;
        e->port = p;
        e->guid = pi.guid;
        e->lid = pi.lid;
        e->sw = sw;
        e->swport = pi.remote_port;
        e->desc = ni->desc ? ni->desc : "";
    }
}

/* x->live, x->rank: the switches with at least one active cable. */
static int find_live(xfab *x)
{
    x->live = malloc((x->nsw ? x->nsw : 1) * sizeof *x->live);
    x->rank = malloc((x->nsw ? x->nsw : 1) * sizeof *x->rank);
    if (!x->live || !x->rank) {
        cli_error("CL011", "export", "out of memory");
        xfab_dispose(x);
        return -1;
    }
    for (uint32_t s = 0; s < x->nsw; s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        uint32_t node = ibr_topo_switch_node(x->t, s);
        int up = 0;
        x->rank[s] = IBR_NONE;
        if (ibr_topo_node_info(&ni, x->t, node) < 0)
            continue;
        for (unsigned int p = 1; p <= ni.nports && !up; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            up = ibr_topo_port_info(&pi, x->t, node, p) == 0 && pi.remote_node != IBR_NONE &&
                 pi.state != IBR_LINK_DOWN;
        }
        if (up) {
            x->rank[s] = x->nlive;
            x->live[x->nlive++] = s;
        }
    }
    return 0;
}

int xfab_init(xfab *x, const ibr_result *r)
{
    memset(x, 0, sizeof *x);
    x->r = r;
    x->t = ibr_result_topo(r);
    x->nsw = ibr_topo_switch_count(x->t);
    uint32_t nn = ibr_topo_node_count(x->t);
    size_t cap = 0;
    for (uint32_t i = 0; i < nn; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if (ibr_topo_node_info(&ni, x->t, i) == 0 && ni.type != IBR_NODE_SWITCH)
            cap += ni.nports;
    }
    x->eps = calloc(cap ? cap : 1, sizeof *x->eps);
    x->ep_idx = calloc(cap ? cap : 1, sizeof *x->ep_idx);
    x->sw_first = calloc((size_t)x->nsw + 1, sizeof *x->sw_first);
    x->sw_guid = calloc(x->nsw ? x->nsw : 1, sizeof *x->sw_guid);
    x->sw_desc = calloc(x->nsw ? x->nsw : 1, sizeof *x->sw_desc);
    if (!x->eps || !x->ep_idx || !x->sw_first || !x->sw_guid || !x->sw_desc) {
        cli_error("CL011", "export", "out of memory");
        xfab_dispose(x);
        return -1;
    }
    for (uint32_t i = 0; i < nn; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if (ibr_topo_node_info(&ni, x->t, i) < 0)
            continue;
        uint32_t sw = ibr_topo_node_switch(x->t, i);
        if (sw != IBR_NONE) {
            x->sw_guid[sw] = ni.node_guid;
            x->sw_desc[sw] = ni.desc ? ni.desc : "";
        } else {
            add_node_eps(x, i, &ni);
        }
    }
    /* group by switch: a counting sort keeps node order within a switch */
    for (size_t k = 0; k < x->neps; k++)
        x->sw_first[x->eps[k].sw + 1]++;
    for (uint32_t s = 0; s < x->nsw; s++)
        x->sw_first[s + 1] += x->sw_first[s];
    size_t *fill = calloc(x->nsw ? x->nsw : 1, sizeof *fill);
    if (!fill) {
        cli_error("CL011", "export", "out of memory");
        xfab_dispose(x);
        return -1;
    }
    for (size_t k = 0; k < x->neps; k++) {
        uint32_t s = x->eps[k].sw;
        x->ep_idx[x->sw_first[s] + fill[s]++] = k;
    }
    free(fill);
    return find_live(x);
}

int xfab_walk(const xfab *x, uint32_t sw, const xep *e, uint32_t *hops, size_t *n,
              const char **why)
{
    *n = 0;
    for (uint32_t steps = 0; steps <= x->nsw; steps++) {
        unsigned int port = ibr_result_lft_port(x->r, sw, e->lid);
        if (port == IBR_NO_ROUTE || port == 0) {
            *why = port == 0 ? "the table sends it to the switch itself" : "no route";
            return -1;
        }
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        uint32_t node = ibr_topo_switch_node(x->t, sw);
        if (ibr_topo_port_info(&pi, x->t, node, port) < 0 || pi.remote_node == IBR_NONE ||
            pi.state == IBR_LINK_DOWN) {
            *why = "the table names an uncabled or down port";
            return -1;
        }
        if (pi.remote_node == e->node && pi.remote_port == e->port)
            return 0;
        uint32_t next = ibr_topo_node_switch(x->t, pi.remote_node);
        if (next == IBR_NONE) {
            *why = "the route reaches another end port";
            return -1;
        }
        hops[(*n)++] = next;
        sw = next;
    }
    *why = "the route loops";
    return -1;
}

int xfab_sw_neighbours(const xfab *x, uint32_t sw, uint32_t *remote, unsigned int cap)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    uint32_t node = ibr_topo_switch_node(x->t, sw);
    if (ibr_topo_node_info(&ni, x->t, node) < 0)
        return -1;
    unsigned int np = ni.nports < cap ? ni.nports : cap;
    for (unsigned int p = 1; p <= np; p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        remote[p - 1] = IBR_NONE;
        if (ibr_topo_port_info(&pi, x->t, node, p) < 0 || pi.remote_node == IBR_NONE ||
            pi.state == IBR_LINK_DOWN || pi.remote_node == node)
            continue;
        remote[p - 1] = ibr_topo_node_switch(x->t, pi.remote_node);
    }
    return (int)np;
}

void xfab_host_name(char *out, size_t cap, const char *desc)
{
    size_t n = 0;
    const char *s = desc ? desc : "";
    while (*s == ' ' || *s == '\t')
        s++;
    for (; *s && *s != ' ' && *s != '\t' && n + 1 < cap; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        out[n++] = ok ? c : '_';
    }
    out[n] = '\0';
}
