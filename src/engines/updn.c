/*
 * updn and dnup: routing restricted to legal up/down paths, as OpenSM 3.3
 * does it, so that the routes have no credit loops.
 *
 * updn ranks switches by their distance from root switches (given, found
 * by OpenSM's hop-histogram heuristic, or, where it finds none, chosen:
 * the top of the fabric or its centre, see top_roots and centre_roots);
 * dnup ranks them by their distance from the switches that carry end
 * nodes. A link then points UP
 * toward the smaller rank (ties broken by node GUID, or by the ids map),
 * and a route may never go UP after it went DOWN (updn) or DOWN after UP
 * (dnup). For every destination switch two searches give each switch its
 * legal candidate ports (see route_dest below); the shared LFT builder
 * (ucast.c) then balances destinations over them, exactly as minhop does.
 * On trees the tables are OpenSM's, byte for byte.
 *
 * Where ibroute differs from OpenSM, to keep the promise of deadlock
 * freedom: OpenSM's single-state search admits illegal routes on graphs
 * with links between equal ranks (credit loops on random graphs), and its
 * dnup treats links between switches of equal rank as "EQUAL" steps
 * allowed in any direction (credit loops on a torus whose switches all
 * carry hosts). ibroute orders equal ranks (dnup: toward the deepest
 * switch, then by GUID) and makes every forwarding choice legal for every
 * packet that can reach it.
 *
 * Time: O(S·(S+E)) for the searches (parallel over destinations) plus the
 * LFT builder. Memory: S^2 bytes of hop counts and S^2·ceil(P/64) words of
 * candidate masks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/messages.h"
#include "engines/engine_int.h"

#define RANK_INF UINT32_MAX

/*
 * Every switch has a key; a step toward a smaller key is UP. updn: key =
 * (rank, id), rank being the distance from the roots. dnup: key = (rank,
 * -depth, id), rank being the distance from the switches that carry end
 * nodes and depth the distance to the deepest switch. Keys are distinct,
 * so the orientation of the links is acyclic.
 *
 * A legal route is a run of first-phase steps then a run of second-phase
 * steps: UP* DOWN* for updn, DOWN* UP* for dnup. Forwarding tables hold one
 * port per (switch, destination) whatever way a packet arrived, so the
 * choice must be legal for every arrival: a switch from which the
 * destination can be reached by second-phase steps alone always takes
 * such a step (P, the length of that path), and only the others take a
 * first-phase step toward the neighbour with the shortest legal route (L).
 * A packet that entered a switch by a second-phase step therefore always
 * continues with one, every route is legal, and the channel dependencies
 * are acyclic.
 *
 * OpenSM computes the hop counts with one search per destination that
 * keeps a single direction state per switch and re-queues a switch with
 * the direction of whichever port improved last; on graphs with links
 * between equal ranks this admits second-phase-then-first-phase routes and
 * credit loops. On trees both give the same candidate ports.
 */
enum { DIR_UP = 0, DIR_DOWN = 1 };

typedef struct ud_worker {
    uint8_t *p;       /* per switch: second-phase-only distance */
    uint8_t *l;       /* per switch: legal route length */
    uint32_t *queue;  /* n_sw */
} ud_worker;

/* A neighbour switch and the index of the link among its switch's links. */
typedef struct ud_nb {
    uint32_t sw;
    uint32_t k;
} ud_nb;

typedef struct ud_job {
    const ibr_topo *t;
    int dnup;
    const uint32_t *rank;
    const uint64_t *id;
    const uint32_t *depth;   /* dnup: distance to the deepest switch */
    const uint32_t *order;   /* switches by ascending key */
    const uint8_t *plain;    /* unconstrained hops (connect_roots), or NULL */
    /* per switch b, its links split by phase (CSR, n_sw + 1 offsets each):
       first-phase steps b -> a, second-phase steps b -> a, and the
       neighbours a with a second-phase step a -> b */
    const uint32_t *f_off, *s_off, *r_off;
    const ud_nb *f, *sec, *rev;
    uint8_t *least;          /* n_sw x n_sw, row = from */
    uint64_t *mask;          /* (n_sw x n_sw) x words candidate bits */
    unsigned words;
    ud_worker *w;
} ud_job;

/* Is key(a) > key(b), i.e. is the step a -> b UP? */
static int is_up(const ud_job *j, uint32_t a, uint32_t b)
{
    uint32_t ra = j->rank[a], rb = j->rank[b];
    if (ra != rb)
        return rb < ra;
    if (j->dnup && j->depth[a] != j->depth[b])
        return j->depth[b] > j->depth[a];
    return j->id[b] < j->id[a];
}

/* Direction of the second phase: DOWN for updn, UP for dnup. */
static int second_phase(const ud_job *j, uint32_t a, uint32_t b)
{
    return j->dnup ? is_up(j, a, b) : !is_up(j, a, b);
}

static void set_bit(uint64_t *m, uint32_t k)
{
    m[k >> 6] |= 1ULL << (k & 63);
}

/* Plain shortest-path candidates of switch b toward r (connect_roots). */
static void plain_column_entry(const ud_job *j, uint32_t b, uint32_t r, uint64_t *m)
{
    const ibr_topo *t = j->t;
    size_t n = t->n_sw;
    unsigned hb = j->plain[(size_t)b * n + r];
    j->least[(size_t)b * n + r] = (uint8_t)hb;
    if (b == r || hb == 255)
        return;
    for (uint32_t e = t->adj_off[b]; e < t->adj_off[b + 1]; e++)
        if (j->plain[(size_t)t->adj[e].sw * n + r] + 1u == hb)
            set_bit(m, e - t->adj_off[b]);
}

static int route_dest(void *arg, unsigned worker, size_t ri)
{
    const ud_job *j = arg;
    const ibr_topo *t = j->t;
    ud_worker *w = &j->w[worker];
    uint32_t r = (uint32_t)ri;
    size_t n = t->n_sw;
    /* updn connect_roots: routes toward a root are plain shortest paths */
    int plain_dest = j->plain && !j->dnup && j->rank[r] == 0;
    /* P: breadth-first search from r against second-phase steps */
    memset(w->p, 255, n);
    w->p[r] = 0;
    uint32_t head = 0, tail = 0;
    w->queue[tail++] = r;
    while (head < tail) {
        uint32_t a = w->queue[head++];
        if (w->p[a] >= 254)
            continue;
        uint8_t pa1 = (uint8_t)(w->p[a] + 1);
        for (uint32_t i = j->r_off[a]; i < j->r_off[a + 1]; i++) {
            uint32_t b = j->rev[i].sw;
            if (w->p[b] == 255) {
                w->p[b] = pa1;
                w->queue[tail++] = b;
            }
        }
    }
    /* L: switches in the order where first-phase neighbours come first */
    for (size_t i = 0; i < n; i++) {
        uint32_t b = j->order[j->dnup ? n - 1 - i : i];
        unsigned lb = w->p[b];
        if (lb == 255)
            for (uint32_t k = j->f_off[b]; k < j->f_off[b + 1]; k++) {
                unsigned la = w->l[j->f[k].sw] + 1u;
                lb = la < lb ? la : lb;
            }
        w->l[b] = (uint8_t)(lb > 255 ? 255 : lb);
    }
    for (uint32_t b = 0; b < n; b++) {
        uint64_t *m = j->mask + ((size_t)b * n + r) * j->words;
        if (plain_dest || (j->plain && j->dnup && w->l[b] == 255)) {
            /* connect_roots: plain shortest paths (may break the rule) */
            memset(m, 0, j->words * sizeof *m);
            plain_column_entry(j, b, r, m);
            continue;
        }
        j->least[(size_t)b * n + r] = w->l[b];
        /* the candidate bits, gathered locally and stored once */
        uint64_t bits[4] = {0, 0, 0, 0};
        if (b != r && w->l[b] != 255) {
            int second = w->p[b] != 255;
            const uint8_t *v = second ? w->p : w->l;
            unsigned want = v[b] - 1u;
            const ud_nb *nb = second ? j->sec : j->f;
            uint32_t k0 = second ? j->s_off[b] : j->f_off[b];
            uint32_t k1 = second ? j->s_off[b + 1] : j->f_off[b + 1];
            for (uint32_t k = k0; k < k1; k++)
                if (v[nb[k].sw] == want)
                    bits[nb[k].k >> 6] |= 1ULL << (nb[k].k & 63);
        }
        memcpy(m, bits, j->words * sizeof *m);
    }
    return 0;
}

/* Switches by ascending key. Keys are distinct unless the ids map gives
   two switches of equal rank the same id; the lower index comes first then
   (as glibc's qsort_r, a stable merge sort, left them), so that the order is
   total and the same on every platform. */
static int cmp_key(const void *x, const void *y, void *arg)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (a == b)
        return 0;
    if (is_up(arg, a, b))
        return 1;
    if (is_up(arg, b, a))
        return -1;
    return a < b ? -1 : 1;
}

typedef struct ud_cands {
    const ibr_topo *t;
    const uint64_t *mask;
    unsigned words;
} ud_cands;

static void ud_candidates(void *arg, uint32_t s, uint32_t *cand_off, uint8_t *cand)
{
    const ud_cands *c = arg;
    const ibr_topo *t = c->t;
    size_t n = t->n_sw;
    uint32_t k = 0, a0 = t->adj_off[s];
    for (uint32_t d = 0; d < n; d++) {
        cand_off[d] = k;
        const uint64_t *m = c->mask + ((size_t)s * n + d) * c->words;
        for (unsigned wd = 0; wd < c->words; wd++) {
            uint64_t bits = m[wd];
            while (bits) {
                unsigned b = (unsigned)__builtin_ctzll(bits);
                bits &= bits - 1;
                cand[k++] = t->adj[a0 + wd * 64 + b].port;
            }
        }
    }
    cand_off[n] = k;
}

/* Multi-source BFS over switch links: rank = distance to the nearest
   source (rank[s] == 0 on entry), RANK_INF when unreachable. */
static void rank_bfs(const ibr_topo *t, uint32_t *rank, uint32_t *queue)
{
    size_t k = 0;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (rank[s] == 0)
            queue[k++] = s;
    ibr_topo_bfs(rank, t, queue, k, queue); /* valid sources: cannot fail */
}

/* End ports (CA and router ports) cabled to each switch over active links. */
static void count_endports(const ibr_topo *t, uint32_t *cnt)
{
    memset(cnt, 0, t->n_sw * sizeof *cnt);
    for (uint32_t s = 0; s < t->n_sw; s++) {
        const ibr__node *sn = &t->nodes[t->sw_node[s]];
        for (unsigned p = 1; p <= sn->nports; p++) {
            const ibr__port *pt = &t->ports[sn->port_off + p];
            if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE &&
                t->nodes[pt->remote_node].type != IBR_NODE_SWITCH)
                cnt[s]++;
        }
    }
}

/* OpenSM's root heuristic: a switch is a root when, weighting every switch
   by its end ports, one hop distance holds more than 90 % of the end ports
   and no other distance more than 5 %. */
/* Per switch x, hist[x * 64 + h]: end ports on switches h hops from x
   (h < 64), gathered by one search from every switch that carries end
   ports (hop counts are symmetric), spread over the workers. */
typedef struct roots_job {
    const ibr_topo *t;
    const uint32_t *eps;
    const uint32_t *src;  /* the switches with end ports */
    uint32_t *hist;       /* per worker: n_sw x 64 */
    uint32_t *ecc;        /* per worker: n_sw, farthest end-port switch seen */
    uint64_t *sum;        /* per worker: n_sw, end ports x hops */
    uint32_t *dist;       /* per worker: n_sw */
    uint32_t *queue;      /* per worker: n_sw */
} roots_job;

static int roots_search(void *arg, unsigned worker, size_t i)
{
    const roots_job *j = arg;
    size_t n = j->t->n_sw;
    uint32_t y = j->src[i];
    uint32_t *dist = j->dist + worker * n, *hist = j->hist + worker * n * 64;
    uint32_t *ecc = j->ecc + worker * n;
    uint64_t *sum = j->sum + worker * n;
    ibr_topo_bfs(dist, j->t, &y, 1, j->queue + worker * n); /* a valid source */
    for (uint32_t x = 0; x < n; x++) {
        uint32_t d = dist[x];
        if (d == RANK_INF)
            continue;
        if (d < 64)
            hist[(size_t)x * 64 + d] += j->eps[y];
        if (d > ecc[x])
            ecc[x] = d;
        sum[x] += (uint64_t)j->eps[y] * d;
    }
    return 0;
}

/* OpenSM's root heuristic: a switch is a root when one hop count holds
   more than 90 % of the end ports and no other count holds more than 5 %.
   The same searches give, per switch x, ecc[x]: the hops to the farthest
   switch with end ports that x reaches, and sum[x]: the hops to every end
   port x reaches, added up (choose_roots uses them). Returns the number of
   roots (rank 0), or -1 when out of memory. */
static int find_roots(ibr_run *run, const ibr_topo *t, const uint32_t *eps, uint32_t *rank,
                      unsigned nw, uint32_t *ecc, uint64_t *sum)
{
    ibr_context *ctx = t->ctx;
    size_t n = t->n_sw;
    uint64_t total = 0;
    size_t n_src = 0;
    for (uint32_t s = 0; s < n; s++) {
        total += eps[s];
        n_src += eps[s] != 0;
    }
    if (nw < ibr_run_threads(run))
        nw = ibr_run_threads(run); /* a worker index per thread of the run */
    roots_job j = {t, eps, NULL, NULL, NULL, NULL, NULL, NULL};
    uint32_t *src = ibr__mallocarray(ctx, n_src ? n_src : 1, sizeof *src);
    j.hist = ibr__calloc(ctx, (size_t)nw * n * 64, sizeof *j.hist);
    j.ecc = ibr__calloc(ctx, (size_t)nw * n, sizeof *j.ecc);
    j.sum = ibr__calloc(ctx, (size_t)nw * n, sizeof *j.sum);
    j.dist = ibr__mallocarray(ctx, (size_t)nw * n, sizeof *j.dist);
    j.queue = ibr__mallocarray(ctx, (size_t)nw * n, sizeof *j.queue);
    int rc = -1;
    if (!src || !j.hist || !j.ecc || !j.sum || !j.dist || !j.queue)
        goto out;
    n_src = 0;
    for (uint32_t s = 0; s < n; s++)
        if (eps[s])
            src[n_src++] = s;
    j.src = src;
    if (ibr_run_parallel_for(run, n_src, roots_search, &j) < 0)
        goto out;
    double thd1 = (double)total * 0.9, thd2 = (double)total * 0.05;
    unsigned roots = 0;
    for (uint32_t x = 0; x < n; x++) {
        ecc[x] = 0;
        sum[x] = 0;
        for (unsigned k = 0; k < nw; k++) {
            uint32_t e = j.ecc[(size_t)k * n + x];
            ecc[x] = e > ecc[x] ? e : ecc[x];
            sum[x] += j.sum[(size_t)k * n + x];
        }
        uint64_t hist[64];
        memset(hist, 0, sizeof hist);
        for (unsigned k = 0; k < nw; k++)
            for (unsigned h = 0; h < 64; h++)
                hist[h] += j.hist[((size_t)k * n + x) * 64 + h];
        unsigned over1 = 0, over2 = 0;
        for (unsigned h = 0; h < 64; h++) {
            over1 += (double)hist[h] > thd1;
            over2 += (double)hist[h] > thd2;
        }
        if (over1 == 1 && over2 == 1) {
            rank[x] = 0;
            roots++;
        }
    }
    rc = (int)roots;
out:
    ibr__free(ctx, src);
    ibr__free(ctx, j.hist);
    ibr__free(ctx, j.ecc);
    ibr__free(ctx, j.sum);
    ibr__free(ctx, j.dist);
    ibr__free(ctx, j.queue);
    return rc;
}

/* On large fat trees a leaf's own hosts fall below the heuristic's 5 %
   threshold, so leaves and middle switches pass the test too and every
   switch is a root (OpenSM then routes plain min-hop through links it lets
   go up both ways between roots). Keep only the roots farthest from the
   switches that carry end nodes: the top of the tree. height is scratch
   (n_sw), queue too. Returns the number of roots kept. */
static unsigned keep_highest_roots(const ibr_topo *t, const uint32_t *eps, uint32_t *rank,
                                   uint32_t *height, uint32_t *queue)
{
    for (uint32_t s = 0; s < t->n_sw; s++)
        height[s] = eps[s] ? 0 : RANK_INF;
    rank_bfs(t, height, queue);
    uint32_t top = 0;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (rank[s] == 0 && height[s] != RANK_INF && height[s] > top)
            top = height[s];
    unsigned kept = 0;
    for (uint32_t s = 0; s < t->n_sw; s++) {
        if (rank[s] != 0)
            continue;
        if (height[s] == top)
            kept++;
        else
            rank[s] = RANK_INF;
    }
    return kept;
}

/* Where OpenSM's heuristic finds no root (tori, meshes, hypercubes,
   dragonflies, random graphs): in every connected part of the fabric that
   holds end ports, the switch whose farthest end port is nearest (the
   centre), ties broken by the fewest hops to all end ports, then by the
   lowest GUID. One root per part keeps every pair connected under the
   up/down rule (each switch has an up path to its root) and a central
   root keeps the up/down paths short. comp and dist are scratch (n_sw),
   queue too. Returns the number of roots. */
static unsigned centre_roots(const ibr_topo *t, const uint32_t *eps, const uint32_t *ecc,
                             const uint64_t *sum, uint32_t *rank, uint32_t *comp,
                             uint32_t *dist, uint32_t *queue)
{
    size_t n = t->n_sw;
    unsigned roots = 0;
    for (uint32_t s = 0; s < n; s++)
        comp[s] = RANK_INF;
    for (uint32_t s0 = 0; s0 < n; s0++) {
        if (comp[s0] != RANK_INF)
            continue;
        ibr_topo_bfs(dist, t, &s0, 1, queue); /* a valid source: cannot fail */
        uint32_t best = RANK_INF;
        uint64_t part_eps = 0;
        for (uint32_t s = s0; s < n; s++) {
            if (dist[s] == RANK_INF)
                continue;
            comp[s] = s0;
            part_eps += eps[s];
            if (best == RANK_INF || ecc[s] < ecc[best] ||
                (ecc[s] == ecc[best] &&
                 (sum[s] < sum[best] ||
                  (sum[s] == sum[best] &&
                   t->nodes[t->sw_node[s]].guid < t->nodes[t->sw_node[best]].guid))))
                best = s;
        }
        if (part_eps) {
            rank[best] = 0;
            roots++;
        }
    }
    return roots;
}

/* Where OpenSM's heuristic finds no root and some switches carry no end
   ports (a Dragonfly+, a fat tree whose faults hide its levels): the
   switches farthest from every end port, the top of the fabric, as
   keep_highest_roots keeps them on a tree. Their eccentricity must stay
   within one hop of the most central switch's, so that a hostless switch
   at the end of a chain never becomes the root. height is scratch (n_sw),
   queue too. Returns the number of roots, 0 when there is no such top. */
static unsigned top_roots(const ibr_topo *t, const uint32_t *eps, const uint32_t *ecc,
                          uint32_t *rank, uint32_t *height, uint32_t *queue)
{
    size_t n = t->n_sw;
    for (uint32_t s = 0; s < n; s++)
        height[s] = eps[s] ? 0 : RANK_INF;
    rank_bfs(t, height, queue);
    uint32_t top = 0, min_ecc = RANK_INF, top_ecc = 0;
    for (uint32_t s = 0; s < n; s++)
        if (height[s] != RANK_INF && height[s] > top)
            top = height[s];
    if (top == 0)
        return 0;
    for (uint32_t s = 0; s < n; s++) {
        if (height[s] == RANK_INF)
            continue;
        min_ecc = ecc[s] < min_ecc ? ecc[s] : min_ecc;
        if (height[s] == top && ecc[s] > top_ecc)
            top_ecc = ecc[s];
    }
    if (top_ecc > min_ecc + 1)
        return 0;
    unsigned roots = 0;
    for (uint32_t s = 0; s < n; s++)
        if (height[s] == top) {
            rank[s] = 0;
            roots++;
        }
    return roots;
}

/* Roots from the options: switch GUIDs, or end-port / node GUIDs meaning
   the switch they are cabled to. */
static unsigned given_roots(const ibr_topo *t, const ibr_options *o, uint32_t *rank,
                            ibr_context *ctx)
{
    unsigned roots = 0;
    size_t missing = 0, notsw = 0; /* past the first few, only counted */
    for (size_t i = 0; i < o->n_root_guids; i++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_find_guid(&node, &port, t, o->root_guids[i]) < 0) {
            if (missing++ < IBR__WARN_FIRST)
                ibr__log(ctx, IBR_LOG_WARN,
                         IBR__MSG("EN070", "updn: root GUID 0x%016" PRIx64 " not in the fabric"),
                         o->root_guids[i]);
            continue;
        }
        uint32_t sw = t->nodes[node].sw;
        if (sw == IBR_NONE) {
            const ibr__port *pt = ibr__tport(t, node, port ? port : 1);
            if (pt->remote_node != IBR_NONE && pt->state == IBR_LINK_ACTIVE)
                sw = t->nodes[pt->remote_node].sw;
        }
        if (sw == IBR_NONE) {
            if (notsw++ < IBR__WARN_FIRST)
                ibr__log(ctx, IBR_LOG_WARN,
                         IBR__MSG("EN071", "updn: root GUID 0x%016" PRIx64
                                           " is not a switch nor cabled to one"),
                         o->root_guids[i]);
            continue;
        }
        if (rank[sw] != 0) {
            rank[sw] = 0;
            roots++;
        }
    }
    if (missing > IBR__WARN_FIRST)
        ibr__log(ctx, IBR_LOG_WARN,
                 IBR__MSG("EN072", "updn: %zu more root GUIDs not in the fabric (%zu in all)"),
                 missing - IBR__WARN_FIRST, missing);
    if (notsw > IBR__WARN_FIRST)
        ibr__log(
            ctx, IBR_LOG_WARN,
            IBR__MSG("EN073",
                     "updn: %zu more root GUIDs are not a switch nor cabled to one (%zu in all)"),
            notsw - IBR__WARN_FIRST, notsw);
    return roots;
}

/* The roots as OpenSM dumps them (opensm-updn-roots.dump); where ibroute
   chose them (how says what it chose: "the centre", "the top"; why, why),
   also a note in the log and in the artifact updn-roots.txt: one line
   "roots: ..." naming them (the first few). */
static int roots_artifact(ibr_run *run, const ibr_topo *t, const uint32_t *rank, const char *how,
                          const char *why)
{
    ibr_buffer b = IBR_BUFFER_INIT, note = IBR_BUFFER_INIT;
    int rc = 0;
    unsigned k = 0;
    for (uint32_t s = 0; s < t->n_sw && rc == 0; s++)
        if (rank[s] == 0)
            rc = ibr__buf_printf(&b, t->ctx, "0x%" PRIx64 "\n", t->nodes[t->sw_node[s]].guid);
    if (rc == 0)
        rc = ibr_run_add_artifact(run, "opensm-updn-roots.dump", b.data ? b.data : "", b.size);
    if (rc == 0 && how) {
        for (uint32_t s = 0; s < t->n_sw; s++)
            k += rank[s] == 0;
        rc = ibr__buf_printf(&note, t->ctx,
                             "roots: %u chosen by ibroute, %s (%s):", k, how, why);
        unsigned shown = 0;
        for (uint32_t s = 0; s < t->n_sw && rc == 0 && shown < 8; s++)
            if (rank[s] == 0) {
                const ibr__node *nd = &t->nodes[t->sw_node[s]];
                rc = ibr__buf_printf(&note, t->ctx, "%s 0x%016" PRIx64 " \"%s\"",
                                     shown++ ? "," : "", nd->guid, nd->desc);
            }
        if (rc == 0 && k > shown)
            rc = ibr__buf_printf(&note, t->ctx, ", and %u more", k - shown);
        if (rc == 0) {
            ibr_run_log(run, IBR_LOG_INFO, note.data);
            rc = ibr__buf_printf(&note, t->ctx, "\n");
        }
        if (rc == 0)
            rc = ibr_run_add_artifact(run, "updn-roots.txt", note.data, note.size);
    }
    ibr_buffer_dispose(&b);
    ibr_buffer_dispose(&note);
    return rc;
}

/* How the roots were found: OpenSM's heuristic (or the options, or dnup's
   end-node switches), or chosen by ibroute where that finds none. */
typedef enum { ROOTS_OPENSM, ROOTS_TOP, ROOTS_CENTRE, ROOTS_DNUP_CENTRE } roots_how;

/* The first choice of roots (rank 0 in rank, RANK_INF elsewhere): dnup's
   end-node switches, the GUIDs given, or OpenSM's heuristic with the top
   or the centre where it finds none (*chosen says which). 0, or a decline
   or failure already reported on the run. */
static int first_roots(roots_how *chosen, ibr_run *run, const ibr_topo *t, int dnup,
                       const uint32_t *eps, uint32_t *rank, unsigned nw, uint32_t *ecc,
                       uint64_t *dsum, uint32_t *depth, uint32_t *queue)
{
    const ibr_options *o = ibr_run_options(run);
    size_t n = t->n_sw;
    unsigned roots = 0;
    *chosen = ROOTS_OPENSM;
    if (dnup) {
        for (uint32_t s = 0; s < n; s++)
            if (eps[s]) {
                rank[s] = 0;
                roots++;
            }
        if (!roots)
            return ibr__decline(
                run, IBR__MSG("EN074", "no switch carries an end node (no leaf switches)"));
    } else if (o->n_root_guids) {
        roots = given_roots(t, o, rank, t->ctx);
        if (!roots)
            return ibr__decline(run,
                                IBR__MSG("EN075", "none of the %zu root GUIDs given is a switch or "
                                                  "an end port cabled to a switch"),
                                o->n_root_guids);
    } else {
        int found = find_roots(run, t, eps, rank, nw, ecc, dsum);
        if (found < 0)
            return ibr__fail(run, IBR_ENOMEM, "out of memory");
        if (found) {
            keep_highest_roots(t, eps, rank, depth, queue);
        } else {
            roots = top_roots(t, eps, ecc, rank, depth, queue);
            *chosen = roots ? ROOTS_TOP : ROOTS_CENTRE;
        }
    }
    return 0;
}

/* Every switch's links sorted by phase into nbs (3 x n_adj) and offs
   (3 x (n + 1)): first phase, second phase, and the reverse of the second
   phase (links a -> b where b -> a is a second-phase move). */
static void split_phases(ud_job *j, const ibr_topo *t, ud_nb *nbs, uint32_t *offs)
{
    uint32_t n = t->n_sw;
    size_t ne = t->n_adj ? t->n_adj : 1;
    ud_nb *f = nbs, *sec = nbs + ne, *rev = nbs + 2 * ne;
    uint32_t *f_off = offs, *s_off = offs + n + 1, *r_off = offs + 2 * (n + 1);
    uint32_t nf = 0, ns = 0, nr = 0;
    for (uint32_t b = 0; b < n; b++) {
        f_off[b] = nf;
        s_off[b] = ns;
        r_off[b] = nr;
        for (uint32_t e = t->adj_off[b]; e < t->adj_off[b + 1]; e++) {
            uint32_t a = t->adj[e].sw;
            ud_nb x = {a, e - t->adj_off[b]};
            if (second_phase(j, b, a))
                sec[ns++] = x;
            else
                f[nf++] = x;
            if (second_phase(j, a, b))
                rev[nr++] = x;
        }
    }
    f_off[n] = nf;
    s_off[n] = ns;
    r_off[n] = nr;
    j->f = f;
    j->sec = sec;
    j->rev = rev;
    j->f_off = f_off;
    j->s_off = s_off;
    j->r_off = r_off;
}

/* The pairs of switches carrying end nodes that the topology connects but
   the up/down hop table (least) leaves apart; *ca and *cb name the first.
   comp, dist and queue are scratch of n entries each. */
static uint64_t pairs_apart(uint32_t *ca, uint32_t *cb, const ibr_topo *t, const uint32_t *eps,
                            const uint8_t *least, uint32_t *comp, uint32_t *dist, uint32_t *queue)
{
    uint32_t n = t->n_sw;
    for (uint32_t s = 0; s < n; s++)
        comp[s] = RANK_INF;
    for (uint32_t s0 = 0; s0 < n; s0++) {
        if (comp[s0] != RANK_INF)
            continue;
        ibr_topo_bfs(dist, t, &s0, 1, queue); /* a valid source: cannot fail */
        for (uint32_t s = s0; s < n; s++)
            if (dist[s] != RANK_INF)
                comp[s] = s0;
    }
    uint64_t cut = 0;
    *ca = *cb = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n && eps[a]; b++)
            if (eps[b] && comp[a] == comp[b] && least[(size_t)a * n + b] == 255) {
                if (!cut++) {
                    *ca = a;
                    *cb = b;
                }
            }
    return cut;
}

/* updn's roots in the artifacts, with the note saying how and why where
   ibroute chose them. */
static int report_roots(ibr_run *run, const ibr_topo *t, const uint32_t *rank, roots_how chosen)
{
    const char *how = chosen == ROOTS_TOP ? "the top (the switches farthest from end ports)"
                      : chosen == ROOTS_OPENSM ? NULL
                                               : "the centre (nearest to its farthest end port)";
    const char *why = chosen == ROOTS_DNUP_CENTRE
                          ? "dnup's ranks from the end-node switches leave pairs without a "
                            "legal path: routed up/down from the root"
                          : "OpenSM's hop-histogram heuristic found none";
    return roots_artifact(run, t, rank, how, why);
}

/* The most switch-to-switch links on one switch. */
static uint32_t max_degree(const ibr_topo *t)
{
    uint32_t maxdeg = 0;
    for (uint32_t s = 0; s < t->n_sw; s++)
        if (t->adj_off[s + 1] - t->adj_off[s] > maxdeg)
            maxdeg = t->adj_off[s + 1] - t->adj_off[s];
    return maxdeg;
}

/* Ranks from the roots (rank 0 on entry); for dnup also the depth from
   the deepest switch; the switch ids the options give in place of GUIDs. */
static void rank_switches(const ibr_topo *t, const ibr_options *o, int dnup, uint32_t *rank,
                          uint32_t *depth, uint64_t *id, uint32_t *queue)
{
    uint32_t n = t->n_sw;
    rank_bfs(t, rank, queue);
    if (dnup) {
        /* the deepest switch: largest finite rank, lowest index */
        uint32_t g = 0;
        for (uint32_t s = 1; s < n; s++)
            if (rank[s] != RANK_INF && (rank[g] == RANK_INF || rank[s] > rank[g]))
                g = s;
        for (uint32_t s = 0; s < n; s++)
            depth[s] = s == g ? 0 : RANK_INF;
        rank_bfs(t, depth, queue);
    }
    for (size_t i = 0; i < o->n_ids; i++) {
        uint32_t node;
        if (ibr_topo_find_guid(&node, NULL, t, o->ids[i].guid) == 0 &&
            t->nodes[node].sw != IBR_NONE)
            id[t->nodes[node].sw] = o->ids[i].id;
    }
}

/* Each worker's scratch, where not allocated by an earlier try; -1 when
   out of memory (what was allocated stays for the caller to free). */
static int alloc_workers(ibr_context *ctx, ud_worker *w, unsigned nw, size_t n)
{
    for (unsigned i = 0; i < nw; i++) {
        if (w[i].p)
            continue;
        w[i].p = ibr__mallocarray(ctx, n, 1);
        w[i].l = ibr__mallocarray(ctx, n, 1);
        w[i].queue = ibr__mallocarray(ctx, n, sizeof *w[i].queue);
        if (!w[i].p || !w[i].l || !w[i].queue)
            return -1;
    }
    return 0;
}

static void free_workers(ibr_context *ctx, ud_worker *w, unsigned nw)
{
    if (w)
        for (unsigned i = 0; i < nw; i++) {
            ibr__free(ctx, w[i].p);
            ibr__free(ctx, w[i].l);
            ibr__free(ctx, w[i].queue);
        }
    ibr__free(ctx, w);
}

/* The orientation the routes are legal under, kept with the routing for
   repairs (persist/reroute_updown.c): each switch's place in key order,
   reversed for dnup so that a first-phase step always goes toward a
   smaller place. Kept only when the keys are distinct (an ids map may give
   two switches of equal rank the same id). pos: n entries of scratch.
   0, or -1 when out of memory. */
static int keep_orientation(ibr_run *run, const ud_job *j, uint32_t *pos)
{
    size_t n = j->t->n_sw;
    for (size_t i = 1; i < n; i++)
        if (!is_up(j, j->order[i], j->order[i - 1]))
            return 0;
    for (size_t i = 0; i < n; i++)
        pos[j->order[i]] = (uint32_t)(j->dnup ? n - 1 - i : i);
    return ibr__run_set_upos(run, pos) < 0 ? -1 : 0;
}

/* The forwarding tables over the up/down hop tables (j->least) and
   candidate masks, the multicast trees, and the orientation kept (not
   with connect_roots, whose routes toward the roots may break the rule).
   pos: n entries of scratch. */
static int build_tables(ibr_run *run, const ud_job *j, const uint64_t *mask, int64_t connect_roots,
                        uint32_t *pos)
{
    ud_cands c = {j->t, mask, j->words};
    int rc = ibr_run_ucast(run, j->least, ud_candidates, &c,
                           j->dnup ? "dnup: forwarding tables" : "updn: forwarding tables");
    /* multicast: OpenSM's default trees over the up/down hop tables (the
       ports its per-port hop counts mark as shortest are the candidates) */
    if (rc == 0 && ibr_run_mcast_groups(run))
        rc = ibr_run_mcast_default(run, j->least, ud_candidates, &c);
    if (rc == 0 && !connect_roots && keep_orientation(run, j, pos) < 0)
        rc = ibr__fail(run, IBR_ENOMEM, "out of memory");
    return rc;
}

/* The up/down (or down/up) hop tables, ranks from the roots; where the
   rules leave connected pairs apart, other roots (the centre) or a
   decline. Then the forwarding tables and multicast trees over them. */
static int route_updown(ibr_run *run, int dnup)
{
    const ibr_topo *t = ibr_run_topo(run);
    const ibr_options *o = ibr_run_options(run);
    ibr_context *ctx = t->ctx;
    const char *name = dnup ? "dnup" : "updn";
    int64_t connect_roots = 0;
    ibr_run_setting_int(&connect_roots, run, "connect_roots");
    size_t n = t->n_sw;
    if (n == 0)
        return ibr__decline(run, IBR__MSG("EN046", "the fabric has no switches"));
    int rc = 0;
    unsigned nw = ibr_run_threads(run) > n ? (unsigned)n : ibr_run_threads(run);
    uint32_t *rank = ibr__mallocarray(ctx, n, sizeof *rank);
    uint32_t *eps = ibr__mallocarray(ctx, n, sizeof *eps);
    uint32_t *queue = ibr__mallocarray(ctx, n, sizeof *queue);
    uint64_t *id = ibr__mallocarray(ctx, n, sizeof *id);
    uint32_t *order = ibr__mallocarray(ctx, n, sizeof *order);
    uint32_t *q2 = ibr__mallocarray(ctx, n, sizeof *q2);
    uint32_t *depth = ibr__mallocarray(ctx, n, sizeof *depth);
    uint32_t *rank_scratch = ibr__mallocarray(ctx, n, sizeof *rank_scratch);
    uint32_t *ecc = ibr__mallocarray(ctx, n, sizeof *ecc);
    uint64_t *dsum = ibr__mallocarray(ctx, n, sizeof *dsum);
    uint8_t *plain = NULL, *least = NULL;
    uint64_t *mask = NULL;
    ud_nb *nbs = NULL;
    uint32_t *offs = NULL;
    ud_worker *w = ibr__calloc(ctx, nw, sizeof *w);
    ud_job j;
    memset(&j, 0, sizeof j);
    if (!rank || !eps || !queue || !id || !order || !q2 || !depth || !rank_scratch || !ecc ||
        !dsum || !w)
        goto nomem;

    /* ranks */
    for (uint32_t s = 0; s < n; s++) {
        rank[s] = RANK_INF;
        id[s] = t->nodes[t->sw_node[s]].guid;
    }
    count_endports(t, eps);
    roots_how chosen;
    if ((rc = first_roots(&chosen, run, t, dnup, eps, rank, nw, ecc, dsum, depth, queue)) < 0)
        goto out;
retry:
    if (chosen == ROOTS_CENTRE || chosen == ROOTS_DNUP_CENTRE) {
        for (uint32_t s = 0; s < n; s++)
            rank[s] = RANK_INF;
        if (!centre_roots(t, eps, ecc, dsum, rank, q2, rank_scratch, queue)) {
            rc = ibr__decline(run, IBR__MSG("EN076", "no switch carries an end node"));
            goto out;
        }
    }
    rank_switches(t, o, dnup, rank, depth, id, queue);
    uint32_t maxdeg = max_degree(t);
    j.t = t;
    j.dnup = dnup;
    j.rank = rank;
    j.id = id;
    j.depth = depth;
    j.words = maxdeg ? (maxdeg + 63) / 64 : 1;
    least = ibr_run_hops(run);
    if (!mask) /* allocated already when retrying */
        mask = ibr__mallocarray(ctx, n * n * j.words, sizeof *mask);
    if (!least || !mask || alloc_workers(ctx, w, nw, n) < 0)
        goto nomem;
    /* switches by ascending key */
    for (uint32_t s = 0; s < n; s++)
        order[s] = s;
    ibr__sort(order, n, sizeof *order, cmp_key, &j);
    j.order = order;
    /* every switch's links by phase */
    size_t ne = t->n_adj ? t->n_adj : 1;
    if (!nbs)
        nbs = ibr__mallocarray(ctx, 3 * ne, sizeof *nbs);
    if (!offs)
        offs = ibr__mallocarray(ctx, 3 * (n + 1), sizeof *offs);
    if (!nbs || !offs)
        goto nomem;
    split_phases(&j, t, nbs, offs);
    j.least = least;
    j.mask = mask;
    j.w = w;
    if (connect_roots) {
        if (!plain && (!(plain = ibr__mallocarray(ctx, n * n, 1)) ||
                       (rc = ibr_topo_switch_hops(plain, t, nw)) < 0))
            goto nomem;
        j.plain = plain;
    }
    if ((rc = ibr_run_progress(run, name, 0, 2)) < 0)
        goto out;
    if ((rc = ibr_run_parallel_for(run, n, route_dest, &j)) < 0)
        goto out;
    if ((rc = ibr_run_progress(run, name, 1, 2)) < 0)
        goto out;
    /* every pair of switches carrying end nodes that the topology connects
       must be connected under the rules too, or the engine does not apply */
    uint32_t ca, cb;
    uint64_t cut = pairs_apart(&ca, &cb, t, eps, least, queue, rank_scratch, q2);
    if (cut && chosen == ROOTS_TOP) {
        chosen = ROOTS_CENTRE; /* the top leaves pairs apart: one root */
        goto retry;
    }
    if (cut && dnup) {
        /* ranks from the end-node switches leave pairs apart (a cable
           down between two groups of a Dragonfly+): route up/down from
           the centre instead, which connects every pair */
        if (find_roots(run, t, eps, rank, nw, ecc, dsum) < 0)
            goto nomem;
        dnup = 0;
        chosen = ROOTS_DNUP_CENTRE;
        goto retry;
    }
    if (cut) {
        rc = ibr__decline(
            run,
            IBR__MSG("EN077", "%" PRIu64 " pairs of switches carrying end nodes have no legal %s "
                              "path (first: 0x%016" PRIx64 " to 0x%016" PRIx64 ")"),
            cut, dnup ? "down/up" : "up/down", t->nodes[t->sw_node[ca]].guid,
            t->nodes[t->sw_node[cb]].guid);
        goto out;
    }
    if (!dnup && (rc = report_roots(run, t, rank, chosen)) < 0)
        goto nomem;
    rc = build_tables(run, &j, mask, connect_roots, rank_scratch);
    goto out;
nomem:
    rc = ibr__fail(run, IBR_ENOMEM, "out of memory");
out:
    free_workers(ctx, w, nw);
    ibr__free(ctx, rank);
    ibr__free(ctx, eps);
    ibr__free(ctx, queue);
    ibr__free(ctx, id);
    ibr__free(ctx, order);
    ibr__free(ctx, q2);
    ibr__free(ctx, depth);
    ibr__free(ctx, rank_scratch);
    ibr__free(ctx, ecc);
    ibr__free(ctx, dsum);
    ibr__free(ctx, plain);
    ibr__free(ctx, mask);
    ibr__free(ctx, nbs);
    ibr__free(ctx, offs);
    return rc;
}

static int updn_route(ibr_run *run, void *user)
{
    (void)user;
    return route_updown(run, 0);
}

static int dnup_route(ibr_run *run, void *user)
{
    (void)user;
    return route_updown(run, 1);
}

static const ibr_setting updown_settings[] = {
    {"connect_roots", IBR_SETTING_BOOL, 0, 1, 0, NULL,
     "routes toward root switches are plain shortest paths, which may break the "
     "up/down rule (OpenSM's connect_roots)"},
};

const ibr_engine ibr__engine_updn = {
    .version = IBR_ENGINE_VERSION,
    .name = "updn",
    .description = "up/down: shortest legal up*down* paths from root switches; credit-loop free",
    .caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE,
    .route = updn_route,
    .settings = updown_settings,
    .n_settings = 1,
};

const ibr_engine ibr__engine_dnup = {
    .version = IBR_ENGINE_VERSION,
    .name = "dnup",
    .description = "down/up: like updn with ranks measured from the switches carrying end nodes",
    .caps = IBR_CAP_LMC | IBR_CAP_DEADLOCK_FREE,
    .route = dnup_route,
    .settings = updown_settings,
    .n_settings = 1,
};
