/*
 * torus-2QoS without torus-2QoS.conf: the radices, the torus or mesh kind
 * of each dimension and one seed, derived from the cabling and written as
 * torus-2QoS.conf text, which the engine then parses as if it had been
 * given (so the derived configuration, printed, pins the same routing).
 *
 * 1. The switch graph: one logical link per neighbour switch, over the
 *    switches that have an active cable to another switch (a failed switch
 *    is gone). It must be connected, and no switch may keep end ports
 *    without a cable to another switch (the engine would leave it out).
 * 2. A graph of degree 2 or less is a single line: a chain (a mesh) or a
 *    ring (a torus).
 * 3. Otherwise LASH's mesh analysis (engines/lash/mesh.h, with its guards
 *    for consistent axes next to failures) labels every link with an axis.
 *    A ring of 4 and a 2 x 2 square are the same cabling: the analysis
 *    reports two dimensions of size 2 for it, so such dimensions are
 *    paired, in the analysis's order, into rings of 4; a size-2 dimension
 *    left over is a radix-2 mesh dimension. More than three dimensions
 *    remaining: declined.
 * 4. Each other dimension is walked along its axis from every switch: a
 *    closed walk is a ring (a torus dimension, all rings of one length),
 *    otherwise the longest chain gives a mesh dimension's radix.
 * 5. The seed: the switch with the lowest GUID that has every neighbour a
 *    pristine position of its kind has, in a mesh dimension sitting at an
 *    end of a full-length chain. Its + link is the inward one in a mesh
 *    dimension and the one to the neighbour with the lower GUID in a torus
 *    dimension; a ring of 4 also gets its - link. The dimensions are
 *    named x, y, z by the lowest local port of the seed's links in each.
 *    On a generated torus or mesh this is the generator's own layout.
 * What the cabling does not settle (a fault that leaves two readings, a
 * switch out of line) the engine's discovery then refuses: every switch
 * must find its place from the derived seed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/buffer.h"
#include "core/messages.h"
#include "engines/lash/mesh.h"
#include "engines/torus2qos.h"

static const char DIMC[] = "xyz";

/* A dimension of the derived torus: one axis of the mesh analysis, or two
   size-2 axes taken as a ring of 4. */
typedef struct ddim {
    uint8_t code[2];  /* axis codes of "+" (2r + 1) of the one or two axes */
    unsigned n_axes;
    unsigned radix;
    int mesh;
    /* the seed's neighbours: [0] minus, [1] plus (live index or IBR_NONE) */
    uint32_t nb[2];
    unsigned port;    /* lowest local port of the seed toward them */
} ddim;

typedef struct derive {
    ibr_context *ctx;
    const ibr_topo *t;
    char *why;           /* IBR_ERRMSG_SIZE */
    uint32_t n;          /* live switches */
    uint32_t *sw;        /* n: live index -> switch index */
    uint32_t *off;       /* n + 1: the collapsed graph */
    uint32_t *nbr;       /* links: neighbour (live index) */
    uint8_t *port;       /* links: the first local port reaching it */
    uint8_t *axis;       /* links: the mesh analysis's axis code, 0 none */
    uint32_t *scratch;   /* n */
    ddim dim[T2Q_DIMS];
    unsigned nd;
    uint32_t seed;
} derive;

static uint64_t dguid(const derive *v, uint32_t i)
{
    return v->t->nodes[v->t->sw_node[v->sw[i]]].guid;
}

/* The GUID torus-2QoS.conf names a switch by: its port 0's, which the
   engine looks switches up by. */
static uint64_t conf_guid(const derive *v, uint32_t i)
{
    const ibr__node *nd = &v->t->nodes[v->t->sw_node[v->sw[i]]];
    uint64_t g = v->t->ports[nd->port_off].guid;
    return g ? g : nd->guid;
}

static uint32_t deg(const derive *v, uint32_t i)
{
    return v->off[i + 1] - v->off[i];
}

/* Step 1: the collapsed graph of the live switches. */
static int build_graph(derive *v)
{
    const ibr_topo *t = v->t;
    uint32_t *live = ibr__mallocarray(v->ctx, t->n_sw ? t->n_sw : 1, sizeof *live);
    v->sw = ibr__mallocarray(v->ctx, t->n_sw ? t->n_sw : 1, sizeof *v->sw);
    v->off = ibr__mallocarray(v->ctx, (size_t)t->n_sw + 1, sizeof *v->off);
    v->nbr = ibr__mallocarray(v->ctx, t->n_adj ? t->n_adj : 1, sizeof *v->nbr);
    v->port = ibr__malloc(v->ctx, t->n_adj ? t->n_adj : 1);
    v->scratch = ibr__mallocarray(v->ctx, t->n_sw ? t->n_sw : 1, sizeof *v->scratch);
    if (!live || !v->sw || !v->off || !v->nbr || !v->port || !v->scratch) {
        ibr__free(v->ctx, live);
        return IBR_ENOMEM;
    }
    v->n = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        live[s] = IBR_NONE;
        if (t->adj_off[s] < t->adj_off[s + 1]) {
            live[s] = v->n;
            v->sw[v->n++] = s;
        }
    }
    uint32_t e = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        uint32_t s = v->sw[i];
        v->off[i] = e;
        for (uint32_t a = t->adj_off[s]; a < t->adj_off[s + 1]; a++) {
            uint32_t w = live[t->adj[a].sw], f;
            for (f = v->off[i]; f < e && v->nbr[f] != w; f++)
                ;
            if (f == e && t->adj[a].sw != s) {
                v->nbr[e] = w;
                v->port[e++] = t->adj[a].port;
            }
        }
    }
    v->off[v->n] = e;
    ibr__free(v->ctx, live);
    return 0;
}

/* A switch with an active cable to an end port but none to a switch (an
   island the torus cannot reach), or IBR_NONE. A switch without any active
   cable has failed and is simply gone. */
static uint32_t island(const derive *v)
{
    const ibr_topo *t = v->t;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        if (t->adj_off[s] < t->adj_off[s + 1])
            continue;
        const ibr__node *nd = &t->nodes[t->sw_node[s]];
        for (unsigned p = 1; p <= nd->nports; p++) {
            const ibr__port *pt = &t->ports[nd->port_off + p];
            if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE)
                return s;
        }
    }
    return IBR_NONE;
}

/* Number of connected parts of the collapsed graph. */
static uint32_t parts(derive *v)
{
    uint32_t *q = v->scratch, n_parts = 0;
    uint8_t *seen = ibr__calloc(v->ctx, v->n, 1);
    if (!seen)
        return 0;
    for (uint32_t r = 0; r < v->n; r++) {
        if (seen[r])
            continue;
        n_parts++;
        uint32_t h = 0, tl = 0;
        q[tl++] = r;
        seen[r] = 1;
        while (h < tl) {
            uint32_t x = q[h++];
            for (uint32_t e = v->off[x]; e < v->off[x + 1]; e++)
                if (!seen[v->nbr[e]]) {
                    seen[v->nbr[e]] = 1;
                    q[tl++] = v->nbr[e];
                }
        }
    }
    ibr__free(v->ctx, seen);
    return n_parts;
}

/* The neighbour of i along axis code c, or IBR_NONE. */
static uint32_t along(const derive *v, uint32_t i, uint8_t c)
{
    for (uint32_t e = v->off[i]; e < v->off[i + 1]; e++)
        if (v->axis[e] == c)
            return v->nbr[e];
    return IBR_NONE;
}

/* The lowest local port of i toward neighbour w (IBR_MAX_PORTS + 1 if none). */
static unsigned port_to(const derive *v, uint32_t i, uint32_t w)
{
    for (uint32_t e = v->off[i]; e < v->off[i + 1]; e++)
        if (v->nbr[e] == w)
            return v->port[e];
    return IBR_MAX_PORTS + 1;
}

/* Steps along code c from i until there is no link or the walk is back at
   i; *ring = it came back. At most n steps. */
static unsigned walk(const derive *v, uint32_t i, uint8_t c, int *ring)
{
    unsigned len = 1;
    *ring = 0;
    for (uint32_t x = along(v, i, c); x != IBR_NONE && len <= v->n; x = along(v, x, c)) {
        if (x == i) {
            *ring = 1;
            break;
        }
        len++;
    }
    return len;
}

/* Step 4: radix and kind of a dimension with one axis of size 3 or more. */
static int measure(derive *v, ddim *d)
{
    uint8_t plus = d->code[0], minus = (uint8_t)(plus + 1);
    unsigned ring_len = 0, chain_max = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        int ring;
        if (along(v, i, minus) == IBR_NONE) {
            unsigned l = walk(v, i, plus, &ring);
            chain_max = l > chain_max ? l : chain_max;
            continue;
        }
        unsigned l = walk(v, i, plus, &ring);
        if (!ring)
            continue;
        if (ring_len && l != ring_len)
            return ibr__err(v->why, IBR_EDECLINED,
                            IBR__MSG("TQ011", "rings of %u and of %u switches along one dimension"),
                            ring_len, l);
        ring_len = l;
    }
    if (ring_len && chain_max > ring_len) /* a cut ring is a chain of ring_len */
        return ibr__err(
            v->why, IBR_EDECLINED,
            IBR__MSG("TQ012", "along one dimension, rings of %u switches and a chain of %u"),
            ring_len, chain_max);
    d->mesh = !ring_len;
    d->radix = ring_len ? ring_len : chain_max;
    if (d->radix < 2 || d->radix > 255)
        return ibr__err(v->why, IBR_EDECLINED,
                        IBR__MSG("TQ013", "a dimension of %u switches (torus-2QoS takes 2 to 255)"),
                        d->radix);
    return 0;
}

/* Step 5: can switch i seed dimension d? Sets d->nb[] when it can. */
static int seeds_dim(const derive *v, ddim *d, uint32_t i)
{
    uint32_t m, p;
    if (d->n_axes == 2) { /* a ring of 4: i, a, c, b */
        uint32_t a = along(v, i, d->code[0]), b = along(v, i, d->code[1]);
        if (a == IBR_NONE || b == IBR_NONE)
            return 0;
        uint32_t c = along(v, a, d->code[1]);
        if (c == IBR_NONE || c == i || c != along(v, b, d->code[0]))
            return 0;
        m = a;
        p = b;
    } else if (d->radix == 2) {
        if ((p = along(v, i, d->code[0])) == IBR_NONE)
            return 0;
        m = IBR_NONE;
    } else {
        p = along(v, i, d->code[0]);
        m = along(v, i, (uint8_t)(d->code[0] + 1));
        if (d->mesh) {
            int ring;
            if ((p == IBR_NONE) == (m == IBR_NONE))
                return 0; /* not at an end of its chain */
            if (p == IBR_NONE) {
                p = m;
                m = IBR_NONE;
            }
            uint8_t c = along(v, i, d->code[0]) == p ? d->code[0] : (uint8_t)(d->code[0] + 1);
            if (walk(v, i, c, &ring) != d->radix)
                return 0;
        } else if (p == IBR_NONE || m == IBR_NONE)
            return 0;
    }
    if (m != IBR_NONE && dguid(v, m) < dguid(v, p)) {
        uint32_t x = m;
        m = p;
        p = x;
    }
    d->nb[0] = m;
    d->nb[1] = p;
    unsigned pm = m == IBR_NONE ? IBR_MAX_PORTS + 1 : port_to(v, i, m), pp = port_to(v, i, p);
    d->port = pm < pp ? pm : pp;
    return 1;
}

static int choose_seed(derive *v)
{
    ddim best[T2Q_DIMS];
    v->seed = IBR_NONE;
    for (uint32_t i = 0; i < v->n; i++) {
        unsigned ok = 1;
        for (unsigned k = 0; k < v->nd && ok; k++)
            ok = seeds_dim(v, &v->dim[k], i);
        if (ok && (v->seed == IBR_NONE || dguid(v, i) < dguid(v, v->seed))) {
            v->seed = i;
            memcpy(best, v->dim, sizeof best);
        }
    }
    if (v->seed == IBR_NONE)
        return ibr__err(
            v->why, IBR_EDECLINED,
            IBR__MSG("TQ014", "no switch has the full neighbourhood a seed needs (every candidate "
                              "is next to a failure%s)"),
            v->dim[0].mesh || v->dim[1].mesh || v->dim[2].mesh
                ? ", or no mesh corner has all its links"
                : "");
    memcpy(v->dim, best, sizeof best);
    /* x, y, z by the seed's lowest port in each dimension */
    for (unsigned a = 1; a < v->nd; a++)
        for (unsigned b = a; b > 0 && v->dim[b].port < v->dim[b - 1].port; b--) {
            ddim x = v->dim[b];
            v->dim[b] = v->dim[b - 1];
            v->dim[b - 1] = x;
        }
    return 0;
}

/* Step 2: a chain or a ring. The analysis's axes are not needed: the one
   dimension's "+" is each switch's link away from where the walk came. */
static int derive_line(derive *v)
{
    uint32_t ends = 0, seed = IBR_NONE;
    if (v->n < 2)
        return ibr__err(v->why, IBR_EDECLINED,
                        IBR__MSG("TQ015", "a single switch is neither a torus nor a mesh"));
    for (uint32_t i = 0; i < v->n; i++)
        if (deg(v, i) == 1) {
            ends++;
            if (seed == IBR_NONE || dguid(v, i) < dguid(v, seed))
                seed = i;
        }
    if (!ends) /* a ring: every switch has two links */
        for (uint32_t i = 0; i < v->n; i++)
            if (seed == IBR_NONE || dguid(v, i) < dguid(v, seed))
                seed = i;
    ddim *d = &v->dim[0];
    memset(v->dim, 0, sizeof v->dim);
    v->nd = 1;
    v->seed = seed;
    d->n_axes = 1;
    d->radix = v->n;
    d->mesh = ends != 0;
    if (d->radix > 255)
        return ibr__err(v->why, IBR_EDECLINED,
                        IBR__MSG("TQ016", "a line of %u switches (torus-2QoS takes 2 to 255)"),
                        d->radix);
    uint32_t e = v->off[seed];
    d->nb[1] = v->nbr[e];
    d->nb[0] = ends ? IBR_NONE : v->nbr[e + 1];
    if (d->nb[0] != IBR_NONE && dguid(v, d->nb[0]) < dguid(v, d->nb[1])) {
        d->nb[1] = d->nb[0];
        d->nb[0] = v->nbr[e];
    }
    return 0;
}

/* Step 3: the dimensions from the mesh analysis's axes. */
static int derive_grid(derive *v)
{
    ibr__mesh_info info;
    uint32_t links = v->off[v->n];
    uint32_t *perm = ibr__mallocarray(v->ctx, links ? links : 1, sizeof *perm);
    uint32_t *order = ibr__mallocarray(v->ctx, v->n, sizeof *order);
    int rc = IBR_ENOMEM;
    v->axis = ibr__malloc(v->ctx, links ? links : 1);
    if (perm && order && v->axis)
        rc = ibr__mesh_analyze_geometry(v->ctx, v->n, v->off, v->nbr, IBR__MESH_GUARD_AXES,
                                        perm, order, &info, v->axis, NULL);
    ibr__free(v->ctx, perm);
    ibr__free(v->ctx, order);
    if (rc < 0)
        return rc;
    if (!info.recognised)
        return ibr__err(v->why, IBR_EDECLINED,
                        IBR__MSG("TQ017", "not a torus or mesh (LASH's mesh analysis finds %s)"),
                        info.shape);
    memset(v->dim, 0, sizeof v->dim);
    v->nd = 0;
    int pending = -1; /* a size-2 axis waiting for its pair */
    for (unsigned r = 0; r < info.dims; r++) {
        ddim *d = v->nd < T2Q_DIMS ? &v->dim[v->nd] : NULL;
        if (info.size[r] == 2 && pending >= 0) {
            v->dim[pending].code[1] = (uint8_t)(2 * r + 1);
            v->dim[pending].n_axes = 2;
            v->dim[pending].radix = 4;
            v->dim[pending].mesh = 0;
            pending = -1;
            continue;
        }
        if (!d)
            return ibr__err(
                v->why, IBR_EDECLINED,
                IBR__MSG("TQ018", "not a torus or mesh of at most %d dimensions, which torus-2QoS "
                                  "needs (LASH's mesh analysis finds %s)"),
                T2Q_DIMS, info.shape);
        d->code[0] = (uint8_t)(2 * r + 1);
        d->n_axes = 1;
        if (info.size[r] == 2) {
            d->radix = 2;
            d->mesh = 1;
            pending = (int)v->nd;
        } else if ((rc = measure(v, d)) < 0)
            return rc;
        v->nd++;
    }
    if (!v->nd)
        return ibr__err(v->why, IBR_EDECLINED,
                        IBR__MSG("TQ019", "not a torus or mesh (no dimension found)"));
    return choose_seed(v);
}

/* The configuration text: radices with their kinds, the seed's links. */
static int write_conf(ibr_buffer *out, const derive *v)
{
    unsigned all_mesh = 1;
    for (unsigned k = 0; k < v->nd; k++)
        all_mesh &= (unsigned)v->dim[k].mesh;
    int rc = ibr__buf_printf(out, v->ctx,
                             "# torus-2QoS.conf derived by ibroute from the cabling\n%s",
                             all_mesh ? "mesh" : "torus");
    for (unsigned k = 0; k < T2Q_DIMS && rc == 0; k++) {
        const ddim *d = &v->dim[k];
        unsigned radix = k < v->nd ? d->radix : 1;
        rc = ibr__buf_printf(out, v->ctx, " %u%s", radix,
                             !all_mesh && radix > 2 && d->mesh ? "m" : "");
    }
    if (rc == 0)
        rc = ibr__buf_putc(out, v->ctx, '\n');
    /* the + link; the - link only where torus-2QoS requires it, in a ring
       of 4: more seed links can change which of parallel cables a route
       takes, so only what is needed is written (as tests/opensm does) */
    for (unsigned k = 0; k < v->nd && rc == 0; k++)
        for (unsigned dir = 2; dir-- > 0 && rc == 0;)
            if (v->dim[k].nb[dir] != IBR_NONE &&
                (dir || (v->dim[k].radix == 4 && !v->dim[k].mesh)))
                rc = ibr__buf_printf(out, v->ctx, "%c%c_link 0x%016" PRIx64 " 0x%016" PRIx64 "\n",
                                     DIMC[k], dir ? 'p' : 'm', conf_guid(v, v->seed),
                                     conf_guid(v, v->dim[k].nb[dir]));
    return rc;
}

/* why = the log line: what was derived, the configuration's lines after
   its comment joined by "; ". */
static void log_line(char *why, const ibr_buffer *conf)
{
    size_t n = (size_t)snprintf(why, IBR_ERRMSG_SIZE,
                                "torus-2QoS: no torus-2QoS.conf given; derived from the cabling "
                                "(artefact torus-2QoS.conf): ");
    const char *s = conf->data, *e = s + conf->size;
    while (s < e && *s++ != '\n')
        ;
    for (; s < e && n + 3 < IBR_ERRMSG_SIZE; s++) {
        if (*s != '\n')
            why[n++] = *s;
        else if (s + 1 < e) {
            why[n++] = ';';
            why[n++] = ' ';
        }
    }
    why[n] = 0;
}

int t2q_config_derive(ibr_buffer *out, ibr_context *ctx, const ibr_topo *t, char *why)
{
    derive v;
    memset(&v, 0, sizeof v);
    v.ctx = ctx;
    v.t = t;
    v.why = why;
    int rc = build_graph(&v);
    uint32_t n_parts = rc == 0 && v.n ? parts(&v) : 0;
    uint32_t max_deg = 0;
    for (uint32_t i = 0; rc == 0 && i < v.n; i++)
        max_deg = deg(&v, i) > max_deg ? deg(&v, i) : max_deg;
    uint32_t isl = rc == 0 ? island(&v) : IBR_NONE;
    if (rc == 0 && !v.n)
        rc = ibr__err(why, IBR_EDECLINED,
                      IBR__MSG("TQ020", "no switch has a cable to another switch"));
    else if (rc == 0 && isl != IBR_NONE)
        rc = ibr__err(why, IBR_EDECLINED,
                      IBR__MSG("TQ021", "switch 0x%016" PRIx64
                                        " has end ports but no cable to another switch"),
                      t->nodes[t->sw_node[isl]].guid);
    else if (rc == 0 && !n_parts)
        rc = IBR_ENOMEM;
    else if (rc == 0 && n_parts > 1)
        rc = ibr__err(why, IBR_EDECLINED,
                      IBR__MSG("TQ022", "the switches form %" PRIu32 " separate parts"), n_parts);
    else if (rc == 0)
        rc = max_deg <= 2 ? derive_line(&v) : derive_grid(&v);
    for (unsigned k = 0; rc == 0 && k < v.nd; k++) /* the engine finds them by GUID */
        for (unsigned w = 0; w < 3 && rc == 0; w++) {
            uint32_t i = w < 2 ? v.dim[k].nb[w] : v.seed;
            if (i == IBR_NONE)
                continue;
            uint32_t gp = ibr__topo_find_port_guid(t, conf_guid(&v, i));
            if (gp == IBR_NONE || t->nodes[t->port_node[gp]].sw != v.sw[i])
                rc = ibr__err(why, IBR_EDECLINED,
                              IBR__MSG("TQ023", "switch 0x%016" PRIx64
                                                " cannot be named by its GUID (shared "
                                                "with another port)"),
                              dguid(&v, i));
        }
    if (rc == 0 && (rc = write_conf(out, &v)) == 0)
        log_line(why, out);
    ibr__free(ctx, v.sw);
    ibr__free(ctx, v.off);
    ibr__free(ctx, v.nbr);
    ibr__free(ctx, v.port);
    ibr__free(ctx, v.axis);
    ibr__free(ctx, v.scratch);
    return rc;
}
