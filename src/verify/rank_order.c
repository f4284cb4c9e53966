/*
 * Rank orders (analyze.h): which end port runs MPI or NCCL rank 0, 1, ...
 *
 * One rank per line, resolved against the topology's end ports (CA and
 * router ports with a LID, cabled to a switch, as ibr_result_analyze()
 * counts them). A line names its port by
 * - a GUID (`0x...`): a port GUID, or the node GUID of a CA or router
 *   (its first end port);
 * - a line of `ibr order` (rank-order.txt: rank, index, port GUID, LID,
 *   description, tab-separated): its port GUID;
 * - a node description, whole ("node0003 mlx5_2"): that node's first end
 *   port;
 * - a description or host name followed by a port number ("H3 HCA-1 2",
 *   "node0003 1"): that port of the node;
 * - a host name (the first word of descriptions, as a hostfile lists
 *   them, words like "slots=8" after it ignored): the first end port of
 *   the first node so named.
 * Blank lines and lines starting with '#' are skipped. A name no end port
 * carries, an ambiguous whole description or a port named twice fails
 * the parse with the line number.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"
#include "core/topo_int.h"
#include "formats/lex.h"

struct ibr_rank_order {
    ibr_context *ctx;
    size_t n, cap;
    uint64_t *guids;
    char last_error[IBR_ERRMSG_SIZE];
};

/* A node found by name: key is its whole description (whole = 1) or its
   first word. */
typedef struct name_ent {
    const char *key;
    size_t len;
    uint32_t node;
} name_ent;

typedef struct parser {
    const ibr_topo *t;
    ibr_rank_order *o;
    uint32_t *first_ep;  /* per node: its first end port's global port, or IBR_NONE */
    uint32_t *line_of;   /* per global port: 1 + line of its rank, 0 = none yet */
    name_ent *whole, *word;
    size_t n_named;
} parser;

static int cmp_name(const void *a, const void *b, void *arg)
{
    (void)arg;
    const name_ent *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, m);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The first entry of the sorted @p v named exactly @p key; *count gets how
   many are. */
static const name_ent *find_name(const name_ent *v, size_t n, const char *key, size_t len,
                                 size_t *count)
{
    size_t lo = 0, hi = n;
    name_ent probe = {key, len, 0};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_name(&v[mid], &probe, NULL) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < n && v[k].len == len && !memcmp(v[k].key, key, len))
        k++;
    *count = k - lo;
    return k > lo ? &v[lo] : NULL;
}

/* A CA or router port that analysis counts as an end port. */
static int is_end_port(const ibr_topo *t, uint32_t gp)
{
    const ibr__port *p = &t->ports[gp];
    const ibr__node *nd = &t->nodes[t->port_node[gp]];
    return nd->type != IBR_NODE_SWITCH && p->lid && p->remote_node != IBR_NONE &&
           t->nodes[p->remote_node].type == IBR_NODE_SWITCH;
}

static int build_names(parser *p)
{
    const ibr_topo *t = p->t;
    ibr_context *ctx = ibr__ctx(t->ctx);
    size_t nn = t->n_nodes ? t->n_nodes : 1;
    p->first_ep = ibr__mallocarray(ctx, nn, sizeof *p->first_ep);
    p->line_of = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *p->line_of);
    p->whole = ibr__mallocarray(ctx, nn, sizeof *p->whole);
    p->word = ibr__mallocarray(ctx, nn, sizeof *p->word);
    if (!p->first_ep || !p->line_of || !p->whole || !p->word)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        p->first_ep[i] = IBR_NONE;
    for (uint32_t i = 0; i < t->n_end; i++) {
        uint32_t gp = t->end_port[i], nd = t->port_node[gp];
        if (p->first_ep[nd] == IBR_NONE && is_end_port(t, gp))
            p->first_ep[nd] = gp;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        if (p->first_ep[i] == IBR_NONE)
            continue;
        const char *d = t->nodes[i].desc;
        size_t len = strlen(d), w = 0;
        while (w < len && !isspace((unsigned char)d[w]))
            w++;
        p->whole[n] = (name_ent){d, len, i};
        p->word[n++] = (name_ent){d, w, i};
    }
    p->n_named = n;
    ibr__sort(p->whole, n, sizeof *p->whole, cmp_name, NULL);
    ibr__sort(p->word, n, sizeof *p->word, cmp_name, NULL);
    return 0;
}

/* The length of the input to quote in a message: at most 80 bytes. */
static int clip(size_t len)
{
    return len > 80 ? 80 : (int)len;
}

static int bad(parser *p, const char *fmt, ...) IBR_PRINTF(2, 3);

/* A parse error of the rank order (fmt: an IBR__MSG() format). */
static int bad(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__verr(p->o->last_error, IBR_EPARSE, fmt, ap);
    va_end(ap);
    return IBR_EPARSE;
}

/* A GUID token: "0x" and 1..16 hex digits. */
static int parse_guid(const char *s, size_t len, uint64_t *out)
{
    if (len < 3 || len > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return -1;
    uint64_t v = 0;
    for (size_t i = 2; i < len; i++) {
        int c = (unsigned char)s[i];
        if (!isxdigit(c))
            return -1;
        v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
    }
    *out = v;
    return 0;
}

/* The end port a GUID names, or IBR_NONE. */
static uint32_t by_guid(const parser *p, uint64_t guid)
{
    uint32_t node;
    unsigned port;
    if (ibr_topo_find_guid(&node, &port, p->t, guid) < 0)
        return IBR_NONE;
    const ibr__node *nd = &p->t->nodes[node];
    if (nd->type == IBR_NODE_SWITCH)
        return IBR_NONE;
    uint32_t gp = nd->port_off + port;
    if (nd->guid == guid && p->first_ep[node] != IBR_NONE)
        gp = p->first_ep[node]; /* a node GUID: the node's first end port */
    return is_end_port(p->t, gp) ? gp : IBR_NONE;
}

/* A trailing port number: "... <1..254>". Sets *port and shortens *len to
   the text before it. */
static int trailing_port(const char *s, size_t *len, unsigned *port)
{
    size_t e = *len, b = e;
    while (b > 0 && isdigit((unsigned char)s[b - 1]))
        b--;
    if (b == e || e - b > 3 || b == 0 || !isspace((unsigned char)s[b - 1]))
        return -1;
    unsigned v = 0;
    for (size_t i = b; i < e; i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    if (v < 1 || v > 254)
        return -1;
    while (b > 0 && isspace((unsigned char)s[b - 1]))
        b--;
    *len = b;
    *port = v;
    return 0;
}

/* The node a name designates: whole description (unique), else host
   name (first node so named). Returns IBR_NONE, or (uint32_t)-2 when a
   whole description is ambiguous. */
static uint32_t by_name(const parser *p, const char *s, size_t len)
{
    size_t cnt;
    const name_ent *e = find_name(p->whole, p->n_named, s, len, &cnt);
    if (e)
        return cnt == 1 ? e->node : (uint32_t)-2;
    e = find_name(p->word, p->n_named, s, len, &cnt);
    return e ? e->node : IBR_NONE;
}

/* The end port of one line (text s..s+len, trimmed, not empty). */
static int resolve_line(parser *p, size_t line, const char *s, size_t len, uint32_t *gp)
{
    uint64_t guid;
    const char *tab = memchr(s, '\t', len);
    if (tab) {
        /* an `ibr order` line: the third field is the port GUID */
        const char *f = s, *end = s + len;
        for (int k = 0; k < 2 && f; k++) {
            const char *nt = memchr(f, '\t', (size_t)(end - f));
            f = nt ? nt + 1 : NULL;
        }
        if (f) {
            const char *nt = memchr(f, '\t', (size_t)(end - f));
            size_t fl = nt ? (size_t)(nt - f) : (size_t)(end - f);
            if (parse_guid(f, fl, &guid) == 0) {
                *gp = by_guid(p, guid);
                return *gp == IBR_NONE
                           ? bad(p,
                                 IBR__MSG("RK001",
                                          "rank order line %zu: no end port has GUID '%.*s'"),
                                 line, clip(fl), f)
                           : 0;
            }
        }
    }
    size_t w = 0;
    while (w < len && !isspace((unsigned char)s[w]))
        w++;
    if (parse_guid(s, w, &guid) == 0) {
        *gp = by_guid(p, guid);
        return *gp == IBR_NONE
                   ? bad(p, IBR__MSG("RK001", "rank order line %zu: no end port has GUID '%.*s'"),
                         line, clip(w), s)
                   : 0;
    }
    uint32_t node = by_name(p, s, len);
    size_t nlen = len;
    unsigned port = 0;
    if (node == IBR_NONE && trailing_port(s, &nlen, &port) == 0)
        node = by_name(p, s, nlen);
    if (node == IBR_NONE && w < len) {
        port = 0;
        node = by_name(p, s, w); /* a host name and hostfile words */
    }
    if (node == (uint32_t)-2)
        return bad(p, IBR__MSG("RK002", "rank order line %zu: several nodes are described '%.*s'"),
                   line, clip(nlen), s);
    if (node == IBR_NONE)
        return bad(
            p, IBR__MSG("RK003", "rank order line %zu: unknown host or node description '%.*s'"),
            line, clip(len), s);
    const ibr__node *nd = &p->t->nodes[node];
    if (!port) {
        *gp = p->first_ep[node];
        return 0;
    }
    if (port > nd->nports || !is_end_port(p->t, nd->port_off + port)) {
        return bad(p, IBR__MSG("RK004", "rank order line %zu: port %u is no end port of '%.*s'"),
                   line, port, clip(nlen), s);
    }
    *gp = nd->port_off + port;
    return 0;
}

static int push(ibr_rank_order *o, uint64_t guid)
{
    if (o->n == o->cap) {
        void *g = o->guids;
        if (ibr__grow(o->ctx, &g, &o->cap, o->n + 1, sizeof *o->guids) < 0)
            return IBR_ENOMEM;
        o->guids = g;
    }
    o->guids[o->n++] = guid;
    return 0;
}

static int parse_lines(parser *p, const char *buf, size_t len)
{
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    while (ibr__lex_entry(&lx)) {
        size_t line = lx.line;
        uint32_t gp;
        int rc = resolve_line(p, line, lx.c.p, (size_t)(lx.c.e - lx.c.p), &gp);
        if (rc < 0)
            return rc;
        if (p->line_of[gp]) {
            const ibr__port *pt = &p->t->ports[gp];
            return bad(p,
                       IBR__MSG("RK005", "rank order line %zu: port 0x%016" PRIx64
                                         " (%s) already has a rank (line %" PRIu32 ")"),
                       line, pt->guid, p->t->nodes[p->t->port_node[gp]].desc, p->line_of[gp]);
        }
        p->line_of[gp] = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
        if ((rc = push(p->o, p->t->ports[gp].guid)) < 0)
            return rc;
    }
    return 0;
}

int ibr_rank_order_parse(ibr_rank_order **out, const ibr_topo *t, const char *buf, size_t len)
{
    if (out)
        *out = NULL;
    if (!out || !t || (!buf && len))
        return IBR_EINVAL;
    ibr_context *ctx = ibr__ctx(t->ctx);
    ibr_rank_order *o = ibr__calloc(ctx, 1, sizeof *o);
    if (!o)
        return IBR_ENOMEM;
    o->ctx = ctx;
    parser p = {t, o, NULL, NULL, NULL, NULL, 0};
    int rc = build_names(&p);
    if (rc == 0)
        rc = parse_lines(&p, buf, len);
    ibr__free(ctx, p.first_ep);
    ibr__free(ctx, p.line_of);
    ibr__free(ctx, p.whole);
    ibr__free(ctx, p.word);
    if (rc == IBR_EPARSE) {
        ibr__free(ctx, o->guids);
        o->guids = NULL;
        o->n = o->cap = 0;
        *out = o;
        return rc;
    }
    if (rc < 0) {
        ibr_rank_order_destroy(o);
        return rc;
    }
    *out = o;
    return 0;
}

void ibr_rank_order_destroy(ibr_rank_order *o)
{
    if (!o)
        return;
    ibr__free(o->ctx, o->guids);
    ibr__free(o->ctx, o);
}

const char *ibr_rank_order_last_error(const ibr_rank_order *o)
{
    return o ? o->last_error : "";
}

size_t ibr_rank_order_count(const ibr_rank_order *o)
{
    return o ? o->n : 0;
}

const uint64_t *ibr_rank_order_guids(const ibr_rank_order *o)
{
    return o && o->n ? o->guids : NULL;
}
