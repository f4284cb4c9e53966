/*
 * export_slurm.c - Slurm's network topology from the fabric, for `ibr
 * export`: topology.conf for the topology/tree plugin (SwitchName=...
 * Switches=... Nodes=...) and topology.yaml with a tree and a block
 * topology (topology.conf(5), topology.yaml(5)). Nodes are named by the
 * first word of their node description, the host name of a usual
 * "host mlx5_0" description.
 *
 * The tree: leaf switches are those with end ports; every other switch
 * sits one level above its nearest leaf (a breadth-first search over the
 * active switch cables) and lists as children its neighbours one level
 * down. A fabric whose leaf switches are cabled to each other (a torus,
 * mesh or dragonfly) has no such tree: only the block topology is written.
 * A block is the hosts of one leaf switch, each host in the block of its
 * first end port; the tree, too, lists each host under that one leaf (a
 * host of a rail-optimized tree has end ports on several leaves), and
 * leaves only the switches with hosts below them.
 */
#include "export_formats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_MAX 128

typedef struct slurm_view {
    const xfab *x;
    char (*host)[HOST_MAX]; /* host name of each end port */
    uint32_t *level;        /* of each switch, IBR_NONE when no leaf is reachable */
    uint32_t top;           /* highest level */
    int direct;             /* two leaf switches cabled together */
    uint32_t *remote;       /* scratch: xfab_sw_neighbours() */
    size_t *hid;            /* host id of each end port (equal names, equal ids) */
} slurm_view;

#define REMOTE_CAP 256

static void view_dispose(slurm_view *v)
{
    free(v->host);
    free(v->level);
    free(v->remote);
    free(v->hid);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Number the distinct host names: v->hid. 0 or -1 (out of memory). */
static int host_ids(slurm_view *v)
{
    size_t n = v->x->neps;
    const char **p = malloc((n ? n : 1) * sizeof *p);
    v->hid = malloc((n ? n : 1) * sizeof *v->hid);
    if (!p || !v->hid) {
        free(p);
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        p[k] = v->host[k];
    qsort(p, n, sizeof *p, cmp_str);
    size_t id = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && strcmp(p[i - 1], p[i]))
            id++;
        v->hid[(size_t)(p[i] - v->host[0]) / HOST_MAX] = id;
    }
    free(p);
    return 0;
}

/* Host names, switch levels; 0 or -1 (reported). */
static int view_init(slurm_view *v, const xfab *x, const char *fmt)
{
    memset(v, 0, sizeof *v);
    v->x = x;
    v->host = calloc(x->neps ? x->neps : 1, sizeof *v->host);
    v->level = malloc((x->nsw ? x->nsw : 1) * sizeof *v->level);
    v->remote = malloc(REMOTE_CAP * sizeof *v->remote);
    uint32_t *queue = malloc((x->nsw ? x->nsw : 1) * sizeof *queue);
    if (!v->host || !v->level || !v->remote || !queue) {
        free(queue);
        view_dispose(v);
        cli_error("CL011", fmt, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < x->neps; k++) {
        xfab_host_name(v->host[k], HOST_MAX, x->eps[k].desc);
        if (!v->host[k][0])
            snprintf(v->host[k], HOST_MAX, "h%016" PRIx64, x->eps[k].guid);
    }
    if (host_ids(v) < 0) {
        free(queue);
        view_dispose(v);
        cli_error("CL011", fmt, "out of memory");
        return -1;
    }
    size_t qh = 0, qt = 0;
    for (uint32_t s = 0; s < x->nsw; s++) {
        v->level[s] = x->sw_first[s + 1] > x->sw_first[s] ? 0 : IBR_NONE;
        if (!v->level[s])
            queue[qt++] = s;
    }
    while (qh < qt) {
        uint32_t s = queue[qh++];
        int np = xfab_sw_neighbours(x, s, v->remote, REMOTE_CAP);
        for (int p = 0; p < np; p++) {
            uint32_t d = v->remote[p];
            if (d == IBR_NONE)
                continue;
            if (v->level[d] == IBR_NONE) {
                v->level[d] = v->level[s] + 1;
                if (v->level[d] > v->top)
                    v->top = v->level[d];
                queue[qt++] = d;
            } else if (v->level[s] == 0 && v->level[d] == 0 && d != s) {
                v->direct = 1;
            }
        }
    }
    free(queue);
    return 0;
}

static void switch_name(char *out, size_t cap, const xfab *x, uint32_t s)
{
    snprintf(out, cap, "ib%016" PRIx64, x->sw_guid[s]);
}

/* Split @p s into its prefix and the decimal number that ends it: the
   prefix length, the digits' count into *width (0 without), the value
   into *num. */
static size_t split_num(const char *s, size_t *width, unsigned long *num)
{
    size_t len = strlen(s), i = len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    *width = len - i;
    if (*width > 9) { /* too long to be a counter: keep it whole */
        *width = 0;
        return len;
    }
    *num = *width ? strtoul(s + i, NULL, 10) : 0;
    return i;
}

/* @p names (sorted, distinct) as a Slurm hostlist expression: names that
   differ only in a number of the same width are folded into
   "prefix[1-4,7]". */
static void hostlist(xbuf *b, const char **names, size_t n)
{
    size_t i = 0;
    int first = 1;
    while (i < n) {
        size_t w, pl = split_num(names[i], &w, &(unsigned long){0});
        size_t j = i + 1;
        while (j < n) {
            size_t w2, pl2 = split_num(names[j], &w2, &(unsigned long){0});
            if (pl2 != pl || w2 != w || !w || strncmp(names[i], names[j], pl))
                break;
            j++;
        }
        xb_puts(b, first ? "" : ",");
        first = 0;
        if (j == i + 1) {
            xb_puts(b, names[i]);
            i = j;
            continue;
        }
        xb_printf(b, "%.*s[", (int)pl, names[i]);
        for (size_t k = i; k < j;) {
            unsigned long a, c;
            split_num(names[k], &w, &a);
            size_t m = k + 1;
            for (c = a; m < j; m++) {
                unsigned long v;
                split_num(names[m], &w, &v);
                if (v != c + 1)
                    break;
                c = v;
            }
            xb_printf(b, "%s%s", k == i ? "" : ",", names[k] + pl);
            if (c != a)
                xb_printf(b, "-%s", names[m - 1] + pl);
            k = m;
        }
        xb_puts(b, "]");
        i = j;
    }
}

/* The distinct hosts of switch @p s (sorted) into @p out; with @p taken
   (by host id), only hosts not yet taken, which it then marks (block
   topology). Returns the count. */
static size_t leaf_hosts(const slurm_view *v, uint32_t s, const char **out, char *taken)
{
    const xfab *x = v->x;
    size_t n = 0;
    for (size_t k = x->sw_first[s]; k < x->sw_first[s + 1]; k++) {
        size_t e = x->ep_idx[k];
        if (taken && taken[v->hid[e]] == 1)
            continue;
        if (taken)
            taken[v->hid[e]] = 2; /* this block's: taken once it is written */
        out[n++] = v->host[e];
    }
    qsort(out, n, sizeof *out, cmp_str);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || strcmp(out[m - 1], out[i]))
            out[m++] = out[i];
    if (taken)
        for (size_t k = x->sw_first[s]; k < x->sw_first[s + 1]; k++)
            taken[v->hid[x->ep_idx[k]]] = 1;
    return m;
}

/* The kept children of switch @p s (one level down), sorted names, into
   @p out (each HOST_MAX bytes); the count. */
static size_t child_switches(const slurm_view *v, uint32_t s, const char *kept,
                             char (*out)[HOST_MAX], const char **ptr)
{
    int np = xfab_sw_neighbours(v->x, s, v->remote, REMOTE_CAP);
    size_t n = 0;
    for (int p = 0; p < np; p++) {
        uint32_t d = v->remote[p];
        if (d == IBR_NONE || v->level[d] + 1 != v->level[s] || !kept[d])
            continue;
        switch_name(out[n], HOST_MAX, v->x, d);
        ptr[n] = out[n];
        n++;
    }
    qsort(ptr, n, sizeof *ptr, cmp_str);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || strcmp(ptr[m - 1], ptr[i]))
            ptr[m++] = ptr[i];
    return m;
}

/* Which switches the tree keeps, into @p kept: a leaf that lists a host
   (each host under the first leaf of its end ports, as in the block
   topology: Slurm's topology/tree takes a node under one leaf switch
   only, and warns otherwise), and a switch above with a kept child. */
static void kept_switches(const slurm_view *v, char *kept, char *taken, const char **names)
{
    const xfab *x = v->x;
    for (uint32_t lvl = 0; lvl <= v->top; lvl++)
        for (uint32_t s = 0; s < x->nsw; s++) {
            if (v->level[s] != lvl)
                continue;
            if (!lvl) {
                kept[s] = leaf_hosts(v, s, names, taken) > 0;
                continue;
            }
            int np = xfab_sw_neighbours(x, s, v->remote, REMOTE_CAP);
            for (int p = 0; p < np && !kept[s]; p++) {
                uint32_t d = v->remote[p];
                kept[s] = d != IBR_NONE && v->level[d] + 1 == lvl && kept[d];
            }
        }
}

/* The tree as topology.conf lines (@p yaml 0) or topology.yaml switch
   entries (1), leaves first, then level by level; switches with nothing
   below them are left out. */
static int write_tree(xbuf *b, const slurm_view *v, int yaml)
{
    const xfab *x = v->x;
    const char **names = malloc((x->neps + REMOTE_CAP + 1) * sizeof *names);
    char(*kids)[HOST_MAX] = malloc(REMOTE_CAP * sizeof *kids);
    char *kept = calloc(x->nsw + 1, 1);
    char *taken = calloc(x->neps + 1, 1);
    if (!names || !kids || !kept || !taken) {
        free(names);
        free(kids);
        free(kept);
        free(taken);
        return -1;
    }
    kept_switches(v, kept, taken, names);
    memset(taken, 0, x->neps + 1);
    for (uint32_t lvl = 0; lvl <= v->top; lvl++)
        for (uint32_t s = 0; s < x->nsw; s++) {
            char sn[HOST_MAX];
            if (v->level[s] != lvl)
                continue;
            /* a leaf's hosts are taken in the same order as kept_switches() took them */
            size_t n = lvl ? child_switches(v, s, kept, kids, names)
                           : leaf_hosts(v, s, names, taken);
            if (!kept[s])
                continue;
            switch_name(sn, sizeof sn, x, s);
            if (yaml)
                xb_printf(b, "    - switch: %s\n      %s: ", sn, lvl ? "children" : "nodes");
            else
                xb_printf(b, "SwitchName=%s %s=", sn, lvl ? "Switches" : "Nodes");
            hostlist(b, names, n);
            xb_puts(b, "\n");
        }
    free(names);
    free(kids);
    free(kept);
    free(taken);
    return 0;
}

static int write_blocks(xbuf *b, const slurm_view *v)
{
    const xfab *x = v->x;
    const char **names = malloc((x->neps + 1) * sizeof *names);
    char *taken = calloc(x->neps + 1, 1);
    xbuf blocks = {0};
    size_t smallest = 0;
    if (!names || !taken) {
        free(names);
        free(taken);
        return -1;
    }
    for (uint32_t s = 0; s < x->nsw; s++) {
        char sn[HOST_MAX];
        size_t n = leaf_hosts(v, s, names, taken);
        if (!n)
            continue;
        if (!smallest || n < smallest)
            smallest = n;
        switch_name(sn, sizeof sn, x, s);
        xb_printf(&blocks, "    - block: %s\n      nodes: ", sn);
        hostlist(&blocks, names, n);
        xb_puts(&blocks, "\n");
    }
    xb_printf(b, "    block_sizes:\n      - %zu\n    blocks:\n", smallest ? smallest : 1);
    xb_puts(b, blocks.p ? blocks.p : "");
    int rc = blocks.oom ? -1 : 0;
    xb_free(&blocks);
    free(names);
    free(taken);
    return rc;
}

static void header(xbuf *b, const xfab *x)
{
    xb_printf(b, "# Slurm network topology of %u switches and %zu end ports, written by ibroute\n"
                 "# (ibr export); nodes are named by the first word of their node description\n",
              x->nlive, x->neps);
}

int xexp_slurm_conf(xout *o, const xfab *x)
{
    slurm_view v;
    if (view_init(&v, x, "slurm-conf") < 0)
        return -1;
    int rc = -1;
    xbuf *b = xout_add(o, "topology.conf");
    if (v.direct || !v.top) {
        cli_error("CL079", "slurm-conf",
                  "the fabric has no switches above its leaf switches (%s): "
                  "topology/tree needs a tree; write the block topology "
                  "(slurm-yaml)",
                  v.direct ? "leaf switches are cabled to each other" : "one level only");
        goto out;
    }
    if (!b)
        goto oom;
    header(b, x);
    if (write_tree(b, &v, 0) < 0 || b->oom)
        goto oom;
    rc = 0;
    goto out;
oom:
    cli_error("CL011", "slurm-conf", "out of memory");
out:
    view_dispose(&v);
    return rc;
}

int xexp_slurm_yaml(xout *o, const xfab *x)
{
    slurm_view v;
    if (view_init(&v, x, "slurm-yaml") < 0)
        return -1;
    int rc = -1, tree = !v.direct && v.top;
    xbuf *b = xout_add(o, "topology.yaml");
    if (!b)
        goto oom;
    header(b, x);
    if (tree) {
        xb_puts(b, "---\n- topology: ibroute-tree\n  cluster_default: true\n  tree:\n"
                   "    switches:\n");
        if (write_tree(b, &v, 1) < 0)
            goto oom;
    } else {
        xb_puts(b, "# no tree: the leaf switches are cabled to each other or have no\n"
                   "# switches above them\n---\n");
    }
    xb_printf(b, "- topology: ibroute-block\n  cluster_default: %s\n  block:\n",
              tree ? "false" : "true");
    if (write_blocks(b, &v) < 0 || b->oom)
        goto oom;
    rc = 0;
    goto out;
oom:
    cli_error("CL011", "slurm-yaml", "out of memory");
out:
    view_dispose(&v);
    return rc;
}
