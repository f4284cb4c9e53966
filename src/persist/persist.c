/*
 * Routing databases: a routing plus the fabric it was computed on, made
 * from a result, written as text and parsed back (format in persist.h).
 * The comparison with a topology and the rerouting are in reroute.c.
 */
#include <bsd/string.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "persist/persist_int.h"

/* ------------------------------------------------------------------ */
/* the database object                                                 */

void ibr_routing_db_destroy(ibr_routing_db *db)
{
    if (!db)
        return;
    ibr_context *ctx = db->ctx;
    for (size_t i = 0; i < db->n_settings; i++) {
        ibr__free(ctx, db->set_name[i]);
        ibr__free(ctx, db->set_value[i]);
    }
    ibr__free(ctx, db->set_name);
    ibr__free(ctx, db->set_value);
    ibr__free(ctx, db->nodes);
    ibr__free(ctx, db->ports);
    ibr__free(ctx, db->sw_node);
    ibr__free(ctx, db->lft);
    ibr__free(ctx, db->hops);
    ibr__free(ctx, db->sl_src);
    ibr__free(ctx, db->sl);
    ibr__free(ctx, db->sl2vl);
    ibr__free(ctx, db->sl2vl_off);
    ibr__free(ctx, db->ep);
    ibr__free(ctx, db->qos_conf);
    ibr__free(ctx, db->lid_port);
    ibr__guidmap_free(ctx, &db->node_map);
    ibr__guidmap_free(ctx, &db->port_map);
    ibr__free(ctx, db);
}

const char *ibr_routing_db_last_error(const ibr_routing_db *db)
{
    return db ? db->last_error : "";
}

const char *ibr_routing_db_engine(const ibr_routing_db *db)
{
    return db && db->status == 0 ? db->engine : "";
}

uint64_t ibr_routing_db_seed(const ibr_routing_db *db)
{
    return db ? db->seed : 0;
}

uint32_t ibr_routing_db_switch_count(const ibr_routing_db *db)
{
    return db && db->status == 0 ? db->n_sw : 0;
}

static int db_new(ibr_routing_db **out, ibr_context *ctx)
{
    ibr_routing_db *db = ibr__calloc(ctx, 1, sizeof *db);
    if (!db)
        return IBR_ENOMEM;
    db->ctx = ctx;
    db->vls_used = 1;
    *out = db;
    return 0;
}

/* The lookup tables (GUID maps, LID owners) once nodes and ports are in. */
static int db_index(ibr_routing_db *db, char *msg)
{
    ibr_context *ctx = db->ctx;
    if (ibr__guidmap_reserve(ctx, &db->node_map, db->n_nodes) < 0 ||
        ibr__guidmap_reserve(ctx, &db->port_map, db->n_ports) < 0)
        return IBR_ENOMEM;
    db->lid_port = ibr__mallocarray(ctx, (size_t)db->max_lid + 1, sizeof *db->lid_port);
    if (!db->lid_port)
        return IBR_ENOMEM;
    for (size_t l = 0; l <= db->max_lid; l++)
        db->lid_port[l] = IBR_NONE;
    for (uint32_t i = 0; i < db->n_nodes; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        if (!n->guid || ibr__guidmap_get(&db->node_map, n->guid) != IBR_NONE)
            return ibr__err(msg, IBR_EPARSE, "node 0x%016" PRIx64 " listed twice (or GUID 0)",
                            n->guid);
        if (ibr__guidmap_put(ctx, &db->node_map, n->guid, i) < 0)
            return IBR_ENOMEM;
        for (unsigned p = 0; p <= n->nports; p++) {
            uint32_t gp = n->port_off + p;
            const ibr__dbport *pt = &db->ports[gp];
            int is_sw = n->type == IBR_NODE_SWITCH;
            if ((is_sw && p != 0) || (!is_sw && p == 0))
                continue;
            if (pt->guid && ibr__guidmap_get(&db->port_map, pt->guid) == IBR_NONE &&
                ibr__guidmap_put(ctx, &db->port_map, pt->guid, gp) < 0)
                return IBR_ENOMEM;
            if (!pt->lid)
                continue;
            uint32_t cnt = 1u << pt->lmc;
            if ((uint32_t)pt->lid + cnt - 1 > db->max_lid)
                return ibr__err(msg, IBR_EPARSE, "LID %u of 0x%016" PRIx64 " beyond max LID %u",
                                (unsigned)pt->lid, n->guid, (unsigned)db->max_lid);
            for (uint32_t l = pt->lid; l < pt->lid + cnt; l++) {
                if (db->lid_port[l] != IBR_NONE)
                    return ibr__err(msg, IBR_EPARSE, "LID %u owned twice", (unsigned)l);
                db->lid_port[l] = gp;
            }
        }
    }
    return 0;
}

int ibr_routing_db_from_result(ibr_routing_db **out, const ibr_result *r)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!r || r->status != 0 || !r->lft)
        return IBR_EINVAL;
    const ibr_topo *t = r->topo;
    ibr_context *ctx = t->ctx;
    ibr_routing_db *db;
    if (db_new(&db, ctx) < 0)
        return IBR_ENOMEM;
    strlcpy(db->engine, r->engine, sizeof db->engine);
    db->seed = r->seed;
    db->vls_used = r->vls_used;
    db->layers = r->layers;
    db->max_lid = t->max_lid;
    db->lft_size = r->lft_size;
    db->n_nodes = t->n_nodes;
    db->n_sw = t->n_sw;
    db->n_ports = t->n_ports;
    db->nodes = ibr__mallocarray(ctx, t->n_nodes ? t->n_nodes : 1, sizeof *db->nodes);
    db->ports = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *db->ports);
    db->sw_node = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *db->sw_node);
    size_t lft_bytes = (size_t)t->n_sw * r->lft_size;
    db->lft = ibr__malloc(ctx, lft_bytes ? lft_bytes : 1);
    if (!db->nodes || !db->ports || !db->sw_node || !db->lft)
        goto nomem;
    /* the engine's maps: with QoS, those from before the QoS manager (it
       runs again on reload, from the saved configuration) */
    const uint8_t *sw_maps = r->qos ? r->pre_sl2vl : r->sl2vl;
    const uint8_t *ep_maps = r->qos ? r->pre_ep : r->ep_sl2vl;
    const uint8_t *ep_set = r->qos ? r->pre_ep_set : r->ep_sl2vl_set;
    /* switches first, in switch index order, then the other nodes */
    uint32_t k = 0, gp = 0;
    uint32_t *order = ibr__mallocarray(ctx, t->n_nodes ? t->n_nodes : 1, sizeof *order);
    if (!order)
        goto nomem;
    for (uint32_t s = 0; s < t->n_sw; s++)
        order[k++] = t->sw_node[s];
    for (uint32_t i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].type != IBR_NODE_SWITCH)
            order[k++] = i;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        const ibr__node *n = &t->nodes[order[i]];
        ibr__dbnode *dn = &db->nodes[i];
        dn->guid = n->guid;
        dn->type = n->type;
        dn->nports = n->nports;
        dn->port_off = gp;
        dn->sw = i < t->n_sw ? i : IBR_NONE;
        if (i < t->n_sw)
            db->sw_node[i] = i;
        for (unsigned p = 0; p <= n->nports; p++, gp++) {
            const ibr__port *pt = &t->ports[n->port_off + p];
            ibr__dbport *dp = &db->ports[gp];
            dp->guid = pt->guid;
            dp->lid = pt->lid;
            dp->lmc = pt->lmc;
            if (p && pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE) {
                dp->rguid = t->nodes[pt->remote_node].guid;
                dp->rport = pt->remote_port;
                dp->rtype = t->nodes[pt->remote_node].type;
            }
            if (p && ep_maps && ep_set && ep_set[n->port_off + p] &&
                n->type != IBR_NODE_SWITCH) {
                if (ibr__grow(ctx, (void **)&db->ep, &db->cap_ep, db->n_ep + 1,
                              sizeof *db->ep) < 0) {
                    ibr__free(ctx, order);
                    goto nomem;
                }
                ibr__dbep *e = &db->ep[db->n_ep++];
                e->node = i;
                e->port = (uint8_t)p;
                memcpy(e->map, ep_maps + (size_t)(n->port_off + p) * 16, 16);
            }
        }
    }
    ibr__free(ctx, order);
    memcpy(db->lft, r->lft, lft_bytes);
    if (r->hops) {
        size_t hb = (size_t)t->n_sw * t->n_sw;
        if (!(db->hops = ibr__malloc(ctx, hb ? hb : 1)))
            goto nomem;
        memcpy(db->hops, r->hops, hb);
    }
    db->sl_mode = r->sl_mode;
    if (r->sl_mode == IBR_SL_PER_DEST) {
        db->n_sl_rows = 1;
    } else if (r->sl_mode == IBR_SL_PER_PAIR) {
        db->n_sl_rows = (size_t)t->n_end + t->n_sw;
    }
    if (db->n_sl_rows) {
        db->sl_src = ibr__calloc(ctx, db->n_sl_rows, sizeof *db->sl_src);
        db->sl = ibr__malloc(ctx, db->n_sl_rows * r->lft_size);
        if (!db->sl_src || !db->sl)
            goto nomem;
        memcpy(db->sl, r->sl, db->n_sl_rows * r->lft_size);
        if (r->sl_mode == IBR_SL_PER_PAIR) {
            for (uint32_t e = 0; e < t->n_end; e++)
                db->sl_src[e] = t->ports[t->end_port[e]].lid;
            for (uint32_t s = 0; s < t->n_sw; s++)
                db->sl_src[t->n_end + s] = t->ports[t->nodes[t->sw_node[s]].port_off].lid;
        }
    }
    if (r->qos) {
        db->qos = 1;
        db->qos_levels = r->qos_levels > 1 ? r->qos_levels : 1;
        db->qos_stride = r->qos_levels > 1 ? r->qos_stride : 0;
        if (!(db->qos_conf = ibr__strdup(ctx, r->qos_conf ? r->qos_conf : "")))
            goto nomem;
        db->qos_conf_len = strlen(db->qos_conf);
    }
    if (sw_maps) {
        size_t total = 0;
        db->sl2vl_off = ibr__mallocarray(ctx, t->n_sw ? t->n_sw : 1, sizeof *db->sl2vl_off);
        if (!db->sl2vl_off)
            goto nomem;
        for (uint32_t s = 0; s < t->n_sw; s++) {
            size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
            db->sl2vl_off[s] = total;
            total += w * w * 16;
        }
        if (!(db->sl2vl = ibr__malloc(ctx, total ? total : 1)))
            goto nomem;
        for (uint32_t s = 0; s < t->n_sw; s++) {
            size_t w = (size_t)t->nodes[t->sw_node[s]].nports + 1;
            memcpy(db->sl2vl + db->sl2vl_off[s], sw_maps + r->sl2vl_off[s], w * w * 16);
        }
    }
    if (r->n_settings) {
        db->set_name = ibr__calloc(ctx, r->n_settings, sizeof *db->set_name);
        db->set_value = ibr__calloc(ctx, r->n_settings, sizeof *db->set_value);
        if (!db->set_name || !db->set_value)
            goto nomem;
        for (size_t i = 0; i < r->n_settings; i++) {
            db->set_name[i] = ibr__strdup(ctx, r->settings[i].name);
            db->set_value[i] = ibr__strdup(ctx, r->settings[i].value);
            db->n_settings = i + 1;
            if (!db->set_name[i] || !db->set_value[i])
                goto nomem;
        }
    }
    char msg[IBR_ERRMSG_SIZE];
    int rc = db_index(db, msg);
    if (rc < 0) {
        ibr_routing_db_destroy(db);
        return rc == IBR_ENOMEM ? IBR_ENOMEM : IBR_EINVAL;
    }
    *out = db;
    return 0;
nomem:
    ibr_routing_db_destroy(db);
    return IBR_ENOMEM;
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

#define MAGIC "ibroute-routing-db"

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define FNV_INIT 0xcbf29ce484222325ULL

static const char HEX[] = "0123456789abcdef";

static int put_hex_blob(ibr_buffer *out, ibr_context *ctx, const char *tag, const uint8_t *p,
                        size_t n)
{
    size_t tl = strlen(tag);
    int rc = ibr__buf_reserve(out, ctx, tl + 2 * n + 2);
    if (rc < 0)
        return rc;
    char *d = out->data + out->size;
    memcpy(d, tag, tl);
    d += tl;
    for (size_t i = 0; i < n; i++) {
        *d++ = HEX[p[i] >> 4];
        *d++ = HEX[p[i] & 15];
    }
    *d++ = '\n';
    *d = 0;
    out->size = (size_t)(d - out->data);
    return 0;
}

/* %XX-escape everything but printable ASCII other than '%' and ' '. */
static int put_escaped(ibr_buffer *out, ibr_context *ctx, const char *s)
{
    size_t n = strlen(s);
    int rc = ibr__buf_reserve(out, ctx, 3 * n + 2);
    if (rc < 0)
        return rc;
    char *d = out->data + out->size;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c > 0x20 && c < 0x7f && c != '%') {
            *d++ = (char)c;
        } else {
            *d++ = '%';
            *d++ = HEX[c >> 4];
            *d++ = HEX[c & 15];
        }
    }
    *d = 0;
    out->size = (size_t)(d - out->data);
    return 0;
}

int ibr_routing_db_write(ibr_buffer *out, const ibr_routing_db *db)
{
    if (!out || !db || db->status != 0)
        return IBR_EINVAL;
    ibr_context *ctx = db->ctx;
    size_t mark;
    int rc = ibr__buf_begin(out, ctx, &mark);
    if (rc < 0)
        return rc;
    rc = ibr__buf_printf(out, ctx,
                         MAGIC " %d\n# ibroute routing database: a routing and the fabric it "
                               "was computed on (see ibroute/persist.h)\n"
                               "engine %s\nseed %" PRIu64 "\nvls %u %u\nmax_lid %u\n",
                         IBR_ROUTING_DB_FORMAT, db->engine[0] ? db->engine : "-", db->seed,
                         db->vls_used, db->layers, (unsigned)db->max_lid);
    if (rc == 0 && db->qos)
        rc = ibr__buf_printf(out, ctx, "qos %u %u\n", db->qos_levels, db->qos_stride);
    /* the QoS configuration, one qosconf record per line of its text */
    for (const char *c = db->qos ? db->qos_conf : NULL; c && *c && rc == 0;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        char *line = ibr__malloc(ctx, n + 1);
        if (!line) {
            rc = IBR_ENOMEM;
            break;
        }
        memcpy(line, c, n);
        line[n] = 0;
        rc = ibr__buf_puts(out, ctx, "qosconf ");
        if (rc == 0)
            rc = put_escaped(out, ctx, line);
        if (rc == 0)
            rc = ibr__buf_putc(out, ctx, '\n');
        ibr__free(ctx, line);
        c = nl ? nl + 1 : c + n;
    }
    for (size_t i = 0; i < db->n_settings && rc == 0; i++) {
        rc = ibr__buf_printf(out, ctx, "setting %s ", db->set_name[i]);
        if (rc == 0)
            rc = put_escaped(out, ctx, db->set_value[i]);
        if (rc == 0)
            rc = ibr__buf_putc(out, ctx, '\n');
    }
    static const char type_ch[] = "?CSR";
    size_t epi = 0; /* the end-port maps, in node and port order */
    for (uint32_t i = 0; i < db->n_nodes && rc == 0; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        rc = ibr__buf_printf(out, ctx, "node %c 0x%016" PRIx64 " %u\n",
                             n->type <= 3 ? type_ch[n->type] : '?', n->guid, (unsigned)n->nports);
        for (unsigned p = 0; p <= n->nports && rc == 0; p++) {
            const ibr__dbport *pt = &db->ports[n->port_off + p];
            if (pt->rguid)
                rc = ibr__buf_printf(out, ctx,
                                     "port %u 0x%016" PRIx64 " %u %u 0x%016" PRIx64 " %u\n", p,
                                     pt->guid, (unsigned)pt->lid, (unsigned)pt->lmc, pt->rguid,
                                     (unsigned)pt->rport);
            else
                rc = ibr__buf_printf(out, ctx, "port %u 0x%016" PRIx64 " %u %u\n", p, pt->guid,
                                     (unsigned)pt->lid, (unsigned)pt->lmc);
            while (rc == 0 && epi < db->n_ep && db->ep[epi].node == i && db->ep[epi].port == p)
                rc = put_hex_blob(out, ctx, "epsl2vl ", db->ep[epi++].map, 16);
        }
        if (n->sw == IBR_NONE || rc < 0)
            continue;
        rc = put_hex_blob(out, ctx, "lft ", db->lft + (size_t)n->sw * db->lft_size,
                          db->lft_size);
        if (rc == 0 && db->hops)
            rc = put_hex_blob(out, ctx, "hops ", db->hops + (size_t)n->sw * db->n_sw, db->n_sw);
        if (rc == 0 && db->sl2vl) {
            size_t w = (size_t)n->nports + 1;
            rc = put_hex_blob(out, ctx, "sl2vl ", db->sl2vl + db->sl2vl_off[n->sw], w * w * 16);
        }
    }
    if (rc == 0)
        rc = ibr__buf_printf(out, ctx, "slmode %s\n",
                             db->sl_mode == IBR_SL_PER_DEST   ? "dest"
                             : db->sl_mode == IBR_SL_PER_PAIR ? "pair"
                                                              : "none");
    for (size_t i = 0; i < db->n_sl_rows && rc == 0; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "sl %u ", (unsigned)db->sl_src[i]);
        rc = put_hex_blob(out, ctx, tag, db->sl + i * db->lft_size, db->lft_size);
    }
    if (rc == 0) {
        uint64_t h = fnv1a(FNV_INIT, out->data + mark, out->size - mark);
        rc = ibr__buf_printf(out, ctx, "end %016" PRIx64 "\n", h);
    }
    if (rc < 0)
        ibr__buf_abort(out, mark);
    return rc;
}

int ibr_result_write_db(ibr_buffer *out, const ibr_result *r)
{
    if (!out)
        return IBR_EINVAL;
    ibr_routing_db *db;
    int rc = ibr_routing_db_from_result(&db, r);
    if (rc < 0)
        return rc;
    rc = ibr_routing_db_write(out, db);
    ibr_routing_db_destroy(db);
    return rc;
}

/* ------------------------------------------------------------------ */
/* parsing                                                             */

typedef struct dbline {
    const char *p, *e;
    uint32_t no;
} dbline;

typedef struct dbparser {
    ibr_routing_db *db;
    const char *buf, *pos, *end;
    dbline l;
    char msg[IBR_ERRMSG_SIZE];
    size_t cap_nodes, cap_ports, cap_lft, cap_hops, cap_sl2vl, cap_sl2vl_off;
} dbparser;

static int perr(dbparser *ps, const char *fmt, ...) IBR_PRINTF(2, 3);

static int perr(dbparser *ps, const char *fmt, ...)
{
    char m[IBR_ERRMSG_SIZE - 48];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    snprintf(ps->msg, sizeof ps->msg, "routing database line %" PRIu32 ": %s", ps->l.no, m);
    return IBR_EPARSE;
}

static int next(dbparser *ps)
{
    if (ps->pos >= ps->end)
        return 0;
    const char *s = ps->pos;
    const char *nl = memchr(s, '\n', (size_t)(ps->end - s));
    ps->l.p = s;
    ps->l.e = nl ? nl : ps->end;
    ps->pos = nl ? nl + 1 : ps->end;
    ps->l.no++;
    return 1;
}

/* Next blank-separated field of the line into [*f, *fe); 0 at the end. */
static int field(dbline *l, const char **f, const char **fe)
{
    const char *p = l->p;
    while (p < l->e && *p == ' ')
        p++;
    if (p == l->e)
        return 0;
    *f = p;
    while (p < l->e && *p != ' ')
        p++;
    *fe = p;
    l->p = p;
    return 1;
}

static int num(dbline *l, uint64_t max, uint64_t *out)
{
    const char *f, *fe;
    if (!field(l, &f, &fe))
        return -1;
    uint64_t v = 0;
    int hex = fe - f > 2 && f[0] == '0' && f[1] == 'x';
    if (hex)
        f += 2;
    if (f == fe)
        return -1;
    for (; f < fe; f++) {
        int d;
        if (*f >= '0' && *f <= '9')
            d = *f - '0';
        else if (hex && *f >= 'a' && *f <= 'f')
            d = *f - 'a' + 10;
        else
            return -1;
        uint64_t base = hex ? 16 : 10;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return -1;
        v = v * base + (uint64_t)d;
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int word(dbline *l, const char *w)
{
    const char *f, *fe;
    return field(l, &f, &fe) && (size_t)(fe - f) == strlen(w) && memcmp(f, w, (size_t)(fe - f)) == 0;
}

static int hexv(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The rest of the line: exactly n bytes in hex. */
static int blob(dbline *l, uint8_t *dst, size_t n)
{
    const char *f, *fe;
    if (!field(l, &f, &fe) || (size_t)(fe - f) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int a = hexv(f[2 * i]), b = hexv(f[2 * i + 1]);
        if (a < 0 || b < 0)
            return -1;
        dst[i] = (uint8_t)(a << 4 | b);
    }
    return l->p == l->e ? 0 : -1;
}

static int line_done(const dbline *l)
{
    const char *p = l->p;
    while (p < l->e && *p == ' ')
        p++;
    return p == l->e;
}

static int unescape(ibr_context *ctx, const char *f, const char *fe, char **out)
{
    char *s = ibr__malloc(ctx, (size_t)(fe - f) + 1);
    if (!s)
        return IBR_ENOMEM;
    size_t k = 0;
    for (const char *p = f; p < fe; p++) {
        if (*p == '%') {
            int a, b;
            if (fe - p < 3 || (a = hexv(p[1])) < 0 || (b = hexv(p[2])) < 0) {
                ibr__free(ctx, s);
                return IBR_EPARSE;
            }
            s[k++] = (char)(a << 4 | b);
            p += 2;
        } else {
            s[k++] = *p;
        }
    }
    s[k] = 0;
    *out = s;
    return 0;
}

static int parse_all(dbparser *ps)
{
    ibr_routing_db *db = ps->db;
    ibr_context *ctx = db->ctx;
    uint64_t v, w;
    int seen_max_lid = 0, seen_slmode = 0, seen_end = 0;
    uint32_t cur = IBR_NONE; /* current node */
    unsigned next_port = 0;
    if (!next(ps) || !word(&ps->l, MAGIC))
        return perr(ps, "not an ibroute routing database (expected \"" MAGIC " %d\")",
                    IBR_ROUTING_DB_FORMAT);
    if (num(&ps->l, UINT32_MAX, &v) < 0 || !line_done(&ps->l))
        return perr(ps, "bad format version");
    if (v != IBR_ROUTING_DB_FORMAT)
        return perr(ps, "format version %" PRIu64 ", this library reads version %d", v,
                    IBR_ROUTING_DB_FORMAT);
    while (next(ps)) {
        dbline *l = &ps->l;
        const char *lstart = l->p;
        const char *f, *fe;
        if (l->p == l->e || *l->p == '#')
            continue;
        if (!field(l, &f, &fe))
            continue;
        size_t kl = (size_t)(fe - f);
#define KEY(s) (kl == sizeof(s) - 1 && memcmp(f, s, kl) == 0)
        if (KEY("end")) {
            uint64_t h = fnv1a(FNV_INIT, ps->buf, (size_t)(lstart - ps->buf));
            if (!field(l, &f, &fe) || fe - f != 16 || !line_done(l))
                return perr(ps, "bad end line");
            uint64_t got = 0;
            for (const char *p = f; p < fe; p++) {
                int d = hexv(*p);
                if (d < 0)
                    return perr(ps, "bad checksum");
                got = got << 4 | (uint64_t)d;
            }
            if (got != h)
                return perr(ps, "checksum mismatch: the database was altered or damaged");
            seen_end = 1;
            break;
        } else if (KEY("engine")) {
            if (!field(l, &f, &fe) || (size_t)(fe - f) >= sizeof db->engine || !line_done(l))
                return perr(ps, "bad engine line");
            if (!(fe - f == 1 && *f == '-'))
                memcpy(db->engine, f, (size_t)(fe - f));
        } else if (KEY("seed")) {
            if (num(l, UINT64_MAX, &db->seed) < 0 || !line_done(l))
                return perr(ps, "bad seed");
        } else if (KEY("vls")) {
            if (num(l, 15, &v) < 0 || num(l, 15, &w) < 0 || !line_done(l))
                return perr(ps, "bad vls line");
            db->vls_used = (unsigned)v;
            db->layers = (unsigned)w;
        } else if (KEY("qos")) {
            if (db->qos || num(l, 8, &v) < 0 || v < 1 || num(l, 15, &w) < 0 || !line_done(l) ||
                (v > 1 && w < 1) || (v - 1) * w > 15)
                return perr(ps, "bad qos line (expected \"qos <levels 1..8> <SL stride>\")");
            db->qos = 1;
            db->qos_levels = (unsigned)v;
            db->qos_stride = (unsigned)w;
        } else if (KEY("qosconf")) {
            if (!db->qos)
                return perr(ps, "qosconf before the qos line");
            const char *rest = l->p;
            while (rest < l->e && *rest == ' ')
                rest++;
            char *text = NULL;
            int rc = unescape(ctx, rest, l->e, &text);
            if (rc == IBR_EPARSE)
                return perr(ps, "bad escape in qosconf");
            if (rc < 0)
                return rc;
            size_t n = strlen(text), have = db->qos_conf_len;
            char *c = ibr__realloc(ctx, db->qos_conf, have + n + 2);
            if (!c) {
                ibr__free(ctx, text);
                return IBR_ENOMEM;
            }
            memcpy(c + have, text, n);
            c[have + n] = '\n';
            c[have + n + 1] = 0;
            db->qos_conf = c;
            db->qos_conf_len = have + n + 1;
            ibr__free(ctx, text);
        } else if (KEY("epsl2vl")) {
            if (cur == IBR_NONE || next_port < 2 || db->nodes[cur].sw != IBR_NONE ||
                (db->n_ep && db->ep[db->n_ep - 1].node == cur &&
                 db->ep[db->n_ep - 1].port == next_port - 1))
                return perr(ps, "epsl2vl must follow the port line of a CA or router port");
            if (ibr__grow(ctx, (void **)&db->ep, &db->cap_ep, db->n_ep + 1, sizeof *db->ep) < 0)
                return IBR_ENOMEM;
            ibr__dbep *e = &db->ep[db->n_ep];
            e->node = cur;
            e->port = (uint8_t)(next_port - 1);
            if (blob(l, e->map, 16) < 0)
                return perr(ps, "bad epsl2vl row (16 hex bytes)");
            for (unsigned i = 0; i < 16; i++)
                if (e->map[i] > 15)
                    return perr(ps, "bad epsl2vl row (a VL above 15)");
            db->n_ep++;
        } else if (KEY("max_lid")) {
            if (seen_max_lid || num(l, 0xFFFF, &v) < 0 || !line_done(l))
                return perr(ps, "bad max_lid line");
            db->max_lid = (uint16_t)v;
            db->lft_size = (size_t)v + 1;
            seen_max_lid = 1;
        } else if (KEY("setting")) {
            const char *nf, *nfe;
            if (!field(l, &nf, &nfe))
                return perr(ps, "bad setting line");
            if (!field(l, &f, &fe)) {
                f = fe = nfe;
            }
            if (!line_done(l))
                return perr(ps, "bad setting line");
            size_t n = db->n_settings;
            char **a = ibr__reallocarray(ctx, db->set_name, n + 1, sizeof *a);
            if (!a)
                return IBR_ENOMEM;
            db->set_name = a;
            a = ibr__reallocarray(ctx, db->set_value, n + 1, sizeof *a);
            if (!a)
                return IBR_ENOMEM;
            db->set_value = a;
            char *name = NULL, *val = NULL;
            int rc = unescape(ctx, nf, nfe, &name);
            if (rc == 0 && (rc = unescape(ctx, f, fe, &val)) < 0)
                ibr__free(ctx, name);
            if (rc == IBR_EPARSE)
                return perr(ps, "bad escape in setting");
            if (rc < 0)
                return rc;
            db->set_name[n] = name;
            db->set_value[n] = val;
            db->n_settings = n + 1;
        } else if (KEY("node")) {
            if (!seen_max_lid)
                return perr(ps, "node before max_lid");
            if (cur != IBR_NONE && next_port <= db->nodes[cur].nports)
                return perr(ps, "node 0x%016" PRIx64 " lacks port %u", db->nodes[cur].guid,
                            next_port);
            if (cur != IBR_NONE && db->nodes[cur].sw != IBR_NONE && !db->nodes[cur].has_lft)
                return perr(ps, "switch 0x%016" PRIx64 " has no lft line", db->nodes[cur].guid);
            if (!field(l, &f, &fe) || fe - f != 1)
                return perr(ps, "bad node type");
            int type = *f == 'S' ? IBR_NODE_SWITCH : *f == 'C' ? IBR_NODE_CA
                                                 : *f == 'R' ? IBR_NODE_ROUTER
                                                             : -1;
            if (type < 0 || num(l, UINT64_MAX, &v) < 0 || num(l, 254, &w) < 0 || !line_done(l))
                return perr(ps, "bad node line (expected \"node S|C|R 0x<GUID> <ports>\")");
            if (type == IBR_NODE_SWITCH && db->n_nodes != db->n_sw)
                return perr(ps, "switch after other nodes");
            if (ibr__grow(ctx, (void **)&db->nodes, &ps->cap_nodes, db->n_nodes + 1,
                          sizeof *db->nodes) < 0 ||
                ibr__grow(ctx, (void **)&db->ports, &ps->cap_ports, db->n_ports + w + 1,
                          sizeof *db->ports) < 0)
                return IBR_ENOMEM;
            cur = db->n_nodes++;
            ibr__dbnode *n = &db->nodes[cur];
            memset(n, 0, sizeof *n);
            n->guid = v;
            n->type = (uint8_t)type;
            n->nports = (uint8_t)w;
            n->port_off = db->n_ports;
            n->sw = type == IBR_NODE_SWITCH ? db->n_sw++ : IBR_NONE;
            memset(&db->ports[db->n_ports], 0, (w + 1) * sizeof *db->ports);
            db->n_ports += (uint32_t)w + 1;
            next_port = 0;
        } else if (KEY("port")) {
            if (cur == IBR_NONE)
                return perr(ps, "port outside a node");
            ibr__dbnode *n = &db->nodes[cur];
            uint64_t p, guid, lid, lmc;
            if (num(l, 255, &p) < 0 || p != next_port || p > n->nports)
                return perr(ps, "bad port number (ports are listed 0..N in order)");
            if (num(l, UINT64_MAX, &guid) < 0 || num(l, 0xFFFF, &lid) < 0 || num(l, 7, &lmc) < 0)
                return perr(ps, "bad port line");
            ibr__dbport *pt = &db->ports[n->port_off + p];
            pt->guid = guid;
            pt->lid = (uint16_t)lid;
            pt->lmc = (uint8_t)lmc;
            if (!line_done(l)) {
                if (num(l, UINT64_MAX, &v) < 0 || num(l, 255, &w) < 0 || !line_done(l) || !v ||
                    p == 0)
                    return perr(ps, "bad remote end of port %u", (unsigned)p);
                pt->rguid = v;
                pt->rport = (uint8_t)w;
            }
            next_port++;
        } else if (KEY("lft") || KEY("hops") || KEY("sl2vl")) {
            if (cur == IBR_NONE || db->nodes[cur].sw == IBR_NONE)
                return perr(ps, "table outside a switch");
            ibr__dbnode *n = &db->nodes[cur];
            uint32_t s = n->sw;
            int rc = 0;
            if (KEY("lft")) {
                if (n->has_lft)
                    return perr(ps, "second lft line");
                if (ibr__grow(ctx, (void **)&db->lft, &ps->cap_lft,
                              (size_t)(s + 1) * db->lft_size, 1) < 0)
                    return IBR_ENOMEM;
                rc = blob(l, db->lft + (size_t)s * db->lft_size, db->lft_size);
                n->has_lft = 1;
            } else if (KEY("hops")) {
                /* one row per switch: the switch count is known at the end;
                   rows are kept apart and checked then */
                size_t len = (size_t)(l->e - l->p);
                size_t cnt = len > 1 ? (len - 1) / 2 : 0;
                if (s != ps->db->n_hop_rows)
                    return perr(ps, "hops rows must follow every switch or none");
                if (s && cnt != db->hop_width)
                    return perr(ps, "hop rows of different lengths");
                if (ibr__grow(ctx, (void **)&db->hops, &ps->cap_hops, (s + 1) * cnt + 1, 1) < 0)
                    return IBR_ENOMEM;
                if (0)
                    return perr(ps, "hop rows of different lengths");
                db->hop_width = cnt;
                rc = blob(l, db->hops + (size_t)s * cnt, cnt);
                db->n_hop_rows++;
            } else {
                size_t wd = (size_t)n->nports + 1;
                size_t need = db->sl2vl_total + wd * wd * 16;
                if (s != db->n_sl2vl_rows)
                    return perr(ps, "sl2vl rows must follow every switch or none");
                if (ibr__grow(ctx, (void **)&db->sl2vl, &ps->cap_sl2vl, need, 1) < 0 ||
                    ibr__grow(ctx, (void **)&db->sl2vl_off, &ps->cap_sl2vl_off, s + 1,
                              sizeof *db->sl2vl_off) < 0)
                    return IBR_ENOMEM;
                db->sl2vl_off[s] = db->sl2vl_total;
                rc = blob(l, db->sl2vl + db->sl2vl_total, wd * wd * 16);
                for (size_t i = 0; rc == 0 && i < wd * wd * 16; i++)
                    if (db->sl2vl[db->sl2vl_total + i] > 15)
                        rc = -1;
                db->sl2vl_total = need;
                db->n_sl2vl_rows++;
            }
            if (rc < 0)
                return perr(ps, "bad %.*s row (hex bytes of the expected length)", (int)kl, f);
        } else if (KEY("slmode")) {
            if (seen_slmode)
                return perr(ps, "second slmode line");
            seen_slmode = 1;
            if (!field(l, &f, &fe) || !line_done(l))
                return perr(ps, "bad slmode line");
            if (fe - f == 4 && !memcmp(f, "none", 4))
                db->sl_mode = IBR_SL_NONE;
            else if (fe - f == 4 && !memcmp(f, "dest", 4))
                db->sl_mode = IBR_SL_PER_DEST;
            else if (fe - f == 4 && !memcmp(f, "pair", 4))
                db->sl_mode = IBR_SL_PER_PAIR;
            else
                return perr(ps, "unknown slmode");
        } else if (KEY("sl")) {
            if (!seen_slmode || db->sl_mode == IBR_SL_NONE)
                return perr(ps, "sl row without slmode dest or pair");
            if (num(l, 0xFFFF, &v) < 0)
                return perr(ps, "bad sl line");
            size_t n = db->n_sl_rows;
            if (db->sl_mode == IBR_SL_PER_DEST && n)
                return perr(ps, "second sl row in dest mode");
            uint16_t *src = ibr__reallocarray(ctx, db->sl_src, n + 1, sizeof *src);
            if (src)
                db->sl_src = src;
            uint8_t *p = ibr__realloc(ctx, db->sl, (n + 1) * db->lft_size);
            if (p)
                db->sl = p;
            if (!src || !p)
                return IBR_ENOMEM;
            db->sl_src[n] = (uint16_t)v;
            if (blob(l, db->sl + n * db->lft_size, db->lft_size) < 0)
                return perr(ps, "bad sl row");
            for (size_t i = 0; i < db->lft_size; i++)
                if (db->sl[n * db->lft_size + i] > 15)
                    return perr(ps, "SL above 15");
            db->n_sl_rows = n + 1;
        } else {
            return perr(ps, "unknown record \"%.*s\"", (int)(kl > 40 ? 40 : kl), f);
        }
#undef KEY
    }
    if (!seen_end)
        return perr(ps, "truncated: no end line");
    if (ps->pos != ps->end)
        return perr(ps, "text after the end line");
    if (!seen_max_lid || !seen_slmode)
        return perr(ps, "incomplete database (max_lid or slmode missing)");
    if (cur != IBR_NONE && next_port <= db->nodes[cur].nports)
        return perr(ps, "node 0x%016" PRIx64 " lacks port %u", db->nodes[cur].guid, next_port);
    if (cur != IBR_NONE && db->nodes[cur].sw != IBR_NONE && !db->nodes[cur].has_lft)
        return perr(ps, "switch 0x%016" PRIx64 " has no lft line", db->nodes[cur].guid);
    if (db->n_hop_rows && (db->n_hop_rows != db->n_sw || db->hop_width != db->n_sw))
        return perr(ps, "hop rows do not match the %u switches", (unsigned)db->n_sw);
    if (db->n_sl2vl_rows && db->n_sl2vl_rows != db->n_sw)
        return perr(ps, "sl2vl rows do not match the %u switches", (unsigned)db->n_sw);
    if (db->sl_mode != IBR_SL_NONE && !db->n_sl_rows)
        return perr(ps, "slmode without sl rows");
    if (db->qos) {
        /* the saved QoS configuration must read back */
        ibr_qos_config *q = NULL;
        int qrc = ibr_qos_config_create(&q, ctx);
        if (qrc < 0)
            return qrc;
        qrc = ibr_qos_config_parse(q, db->qos_conf ? db->qos_conf : "", db->qos_conf_len);
        if (qrc == IBR_EPARSE)
            qrc = perr(ps, "the saved QoS configuration: %s", ibr_qos_config_last_error(q));
        ibr_qos_config_destroy(q);
        if (qrc < 0)
            return qrc;
    }
    /* remote types, then the lookups */
    db->sw_node = ibr__mallocarray(ctx, db->n_sw ? db->n_sw : 1, sizeof *db->sw_node);
    if (!db->sw_node)
        return IBR_ENOMEM;
    for (uint32_t s = 0; s < db->n_sw; s++)
        db->sw_node[s] = s;
    int rc = db_index(db, ps->msg);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < db->n_nodes; i++) {
        const ibr__dbnode *n = &db->nodes[i];
        for (unsigned p = 1; p <= n->nports; p++) {
            ibr__dbport *pt = &db->ports[n->port_off + p];
            if (!pt->rguid)
                continue;
            uint32_t rn = ibr__guidmap_get(&db->node_map, pt->rguid);
            if (rn == IBR_NONE || pt->rport > db->nodes[rn].nports || pt->rport == 0)
                return ibr__err(ps->msg, IBR_EPARSE,
                                "routing database: port %u of 0x%016" PRIx64
                                " is cabled to an unknown port",
                                p, n->guid);
            const ibr__dbport *back = &db->ports[db->nodes[rn].port_off + pt->rport];
            if (back->rguid != n->guid || back->rport != p)
                return ibr__err(ps->msg, IBR_EPARSE,
                                "routing database: the cable on port %u of 0x%016" PRIx64
                                " is not listed at its other end",
                                p, n->guid);
            pt->rtype = db->nodes[rn].type;
        }
    }
    for (size_t i = 0; i < db->n_sw * db->lft_size; i++) {
        uint8_t p = db->lft[i];
        if (p != IBR_NO_ROUTE && p > db->nodes[i / db->lft_size].nports) {
            return ibr__err(ps->msg, IBR_EPARSE,
                            "routing database: an LFT entry of switch 0x%016" PRIx64
                            " names port %u, beyond the switch",
                            db->nodes[i / db->lft_size].guid, (unsigned)p);
        }
    }
    return 0;
}

int ibr_routing_db_parse(ibr_routing_db **out, ibr_context *ctx, const char *buf, size_t len)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    if (!buf && len)
        return IBR_EINVAL;
    ctx = ibr__ctx(ctx);
    ibr_routing_db *db;
    if (db_new(&db, ctx) < 0)
        return IBR_ENOMEM;
    dbparser ps;
    memset(&ps, 0, sizeof ps);
    ps.db = db;
    ps.buf = ps.pos = buf ? buf : "";
    ps.end = ps.buf + len;
    int rc = parse_all(&ps);
    if (rc == IBR_ENOMEM) {
        ibr_routing_db_destroy(db);
        return rc;
    }
    if (rc < 0) {
        /* a failed database: only its message */
        ibr_routing_db *bad;
        ibr_routing_db_destroy(db);
        if (db_new(&bad, ctx) < 0)
            return IBR_ENOMEM;
        bad->status = rc;
        strlcpy(bad->last_error, ps.msg, sizeof bad->last_error);
        *out = bad;
        return rc;
    }
    *out = db;
    return 0;
}
