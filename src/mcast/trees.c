/*
 * Multicast in a run: the groups an engine receives, OpenSM's root choice,
 * and the default spanning tree per MLID that OpenSM's multicast manager
 * builds for engines without trees of their own (plus a balanced variant).
 *
 * OpenSM's tree, per MLID: the members are the union of the ports of the
 * MLID's groups. The root is the switch, in switch-table order, whose
 * farthest member switch is nearest. From the root, each switch sorts the
 * members it must reach by output port (itself: port 0; a CA cabled to it:
 * that port; otherwise the lowest-numbered port one hop closer to the
 * member's switch), sets the upstream port (except at the root) and every
 * port that got members, and hands each sub-list to the switch behind the
 * port. Nothing stops two branches from reaching the same switch: the
 * verifier reports duplicates if the hop tables ever lead there.
 *
 * After an engine, ibr__mcast_trees() (mcast.h) is the routing pipeline's
 * multicast stage: these trees when the engine built none, then their VL
 * isolation (isolate.c) and the members the result keeps.
 */
#include <string.h>

#include "core/mcast_groups_int.h"
#include "core/topo_int.h"
#include "mcast/mcast.h"

const ibr_mcast_groups *ibr_run_mcast_groups(const ibr_run *run)
{
    return run ? run->opts.mcast_groups : NULL;
}

int ibr_run_set_mcast_built(ibr_run *run)
{
    if (!run)
        return IBR_EINVAL;
    run->mcast_built = 1;
    if (run->opts.mcast_groups)
        run->res->mcast_trees = IBR_MCAST_TREES_ENGINE;
    return 0;
}

/* ---- per-MLID state ---- */

typedef struct mc_state {
    const ibr_topo *t;
    ibr_run *run;
    const uint8_t *hops;
    ibr_cand_fn cands;
    void *cands_arg;
    uint32_t n;           /* switches */
    /* candidate cache (cands != NULL): per switch, offsets and ports */
    uint32_t **coff;
    uint8_t **cport;
    uint32_t maxdeg;
    /* the MLID being built */
    uint16_t mlid;
    uint8_t *bits;        /* the MLID's MFT (n * 32 bytes) */
    /* members: target switch (IBR_NONE: the member is dropped) and the
       port on that switch leading to it (0 for a switch member) */
    uint32_t *msw;
    uint8_t *mport;
    uint32_t *list, *tmp; /* member indices, scratch */
    uint8_t *pick;        /* chosen port per member index */
    uint32_t *cnt;        /* 257 counters */
    /* balanced mode */
    uint32_t *load;       /* per global port: trees leaving by it */
    uint32_t *parent;     /* per switch: tree parent switch, IBR_NONE */
    uint32_t *in_tree;    /* per switch: MLID stamp */
    uint32_t *roots;      /* per switch: trees rooted there */
    uint32_t stamp;
    int balance;
} mc_state;

static void set_bit(mc_state *s, uint32_t sw, unsigned port)
{
    s->bits[(size_t)sw * 32 + (port >> 3)] |= (uint8_t)(1u << (port & 7));
}

/* The candidate ports of switch w toward switch d, ascending: into out
   (room for maxdeg), count returned. */
static int candidates(mc_state *s, uint32_t w, uint32_t d, uint8_t *out, uint32_t *k)
{
    const ibr_topo *t = s->t;
    *k = 0;
    if (!s->cands) {
        unsigned h = s->hops[(size_t)w * s->n + d];
        if (h == 255 || h == 0)
            return 0;
        for (uint32_t a = t->adj_off[w]; a < t->adj_off[w + 1]; a++)
            if (s->hops[(size_t)t->adj[a].sw * s->n + d] + 1u == h)
                out[(*k)++] = t->adj[a].port;
        return 0;
    }
    if (!s->coff[w]) {
        ibr_context *ctx = t->ctx;
        uint32_t *off = ibr__mallocarray(ctx, (size_t)s->n + 1, sizeof *off);
        uint8_t *c = ibr__mallocarray(ctx, (size_t)s->n * (s->maxdeg ? s->maxdeg : 1), 1);
        if (!off || !c) {
            ibr__free(ctx, off);
            ibr__free(ctx, c);
            return IBR_ENOMEM;
        }
        s->cands(s->cands_arg, w, off, c);
        s->coff[w] = off;
        s->cport[w] = c;
    }
    for (uint32_t i = s->coff[w][d]; i < s->coff[w][d + 1]; i++)
        out[(*k)++] = s->cport[w][i];
    return 0;
}

/* The neighbour switch behind port p of switch w (IBR_NONE if none) and
   its arrival port. */
static uint32_t behind(const ibr_topo *t, uint32_t w, unsigned p, unsigned *rport)
{
    for (uint32_t a = t->adj_off[w]; a < t->adj_off[w + 1]; a++)
        if (t->adj[a].port == p) {
            *rport = t->adj[a].rport;
            return t->adj[a].sw;
        }
    return IBR_NONE;
}

/* OpenSM's branch: members list[0..m) to be reached from switch w. */
static int branch(mc_state *s, uint32_t w, uint32_t *list, uint32_t m, unsigned depth,
                  unsigned upstream, uint8_t *cbuf)
{
    const ibr_topo *t = s->t;
    const ibr__node *wn = &t->nodes[t->sw_node[w]];
    depth++;
    if (depth >= 64)
        return 0; /* OpenSM gives up on the branch (ERR 0A21) */
    uint32_t last_d = IBR_NONE;
    uint8_t last_pick = 255;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t x = list[i];
        uint32_t d = s->msw[x];
        if (d == last_d && d != w) { /* hosts of one switch come together */
            s->pick[x] = last_pick;
            continue;
        }
        if (d == w) {
            s->pick[x] = s->mport[x];
            continue;
        }
        if (d == IBR_NONE) {
            s->pick[x] = 255; /* not cabled to a switch: no path */
            continue;
        }
        uint32_t k;
        int rc = candidates(s, w, d, cbuf, &k);
        if (rc < 0)
            return rc;
        s->pick[x] = k ? cbuf[0] : 255; /* 255: no path, dropped (ERR 0A03) */
        last_d = d;
        last_pick = s->pick[x];
    }
    /* stable counting sort of the list by chosen port */
    memset(s->cnt, 0, 257 * sizeof *s->cnt);
    for (uint32_t i = 0; i < m; i++)
        s->cnt[s->pick[list[i]] + 1]++;
    for (unsigned p = 1; p < 257; p++)
        s->cnt[p] += s->cnt[p - 1];
    uint32_t *tmp = s->tmp;
    uint32_t start[256];
    for (unsigned p = 0; p < 256; p++)
        start[p] = s->cnt[p];
    for (uint32_t i = 0; i < m; i++)
        tmp[s->cnt[s->pick[list[i]]]++] = list[i];
    memcpy(list, tmp, m * sizeof *list);
    if (depth > 1)
        set_bit(s, w, upstream);
    for (unsigned p = 0; p <= wn->nports; p++) {
        uint32_t b = start[p], e = p < 255 ? start[p + 1] : m;
        if (b == e)
            continue;
        if (p == 0) {
            set_bit(s, w, 0);
            continue;
        }
        const ibr__port *pp = ibr__tport(t, t->sw_node[w], p);
        if (pp->remote_node == IBR_NONE || pp->state == IBR_LINK_DOWN)
            continue; /* OpenSM: ERR 0A1E, the members are dropped */
        set_bit(s, w, p);
        if (t->nodes[pp->remote_node].sw != IBR_NONE) {
            unsigned rport;
            uint32_t nb = behind(t, w, p, &rport);
            if (nb == IBR_NONE)
                continue;
            int rc = branch(s, nb, list + b, e - b, depth, rport, cbuf);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* Balanced tree: each member switch is joined by a shortest path from the
   root, reusing switches already in the tree and otherwise taking the
   least loaded candidate port; every switch gets one parent. */
static int balanced(mc_state *s, uint32_t root, uint32_t nm, uint8_t *cbuf)
{
    const ibr_topo *t = s->t;
    s->stamp++;
    s->in_tree[root] = s->stamp;
    s->parent[root] = IBR_NONE;
    for (uint32_t x = 0; x < nm; x++) {
        uint32_t d = s->msw[x];
        if (d == IBR_NONE)
            continue;
        if (s->hops[(size_t)root * s->n + d] == 255 && d != root)
            continue;
        uint32_t w = root;
        unsigned guard = 0;
        while (w != d && guard++ < 64) {
            uint32_t k;
            int rc = candidates(s, w, d, cbuf, &k);
            if (rc < 0)
                return rc;
            if (!k)
                break;
            uint32_t next = IBR_NONE;
            /* a candidate already in the tree: follow the tree */
            for (uint32_t i = 0; i < k && next == IBR_NONE; i++) {
                unsigned rp;
                uint32_t nb = behind(t, w, cbuf[i], &rp);
                if (nb != IBR_NONE && s->in_tree[nb] == s->stamp)
                    next = nb;
            }
            if (next == IBR_NONE) {
                unsigned best = cbuf[0];
                uint32_t bl = UINT32_MAX;
                uint32_t off = t->nodes[t->sw_node[w]].port_off;
                for (uint32_t i = 0; i < k; i++)
                    if (s->load[off + cbuf[i]] < bl) {
                        bl = s->load[off + cbuf[i]];
                        best = cbuf[i];
                    }
                unsigned rp;
                next = behind(t, w, best, &rp);
                if (next == IBR_NONE)
                    break;
                s->in_tree[next] = s->stamp;
                s->parent[next] = w;
                set_bit(s, w, best);
                set_bit(s, next, rp);
                s->load[off + best]++;
                s->load[t->nodes[t->sw_node[next]].port_off + rp]++;
            }
            w = next;
        }
        if (w == d)
            set_bit(s, d, s->mport[x]);
    }
    return 0;
}

/* Member switches of the MLID: for each member x, msw[x] and mport[x];
   is_mem/n_ca per switch for the root choice. */
static void map_members(mc_state *s, const ibr__mcmember *mem, uint32_t nm)
{
    const ibr_topo *t = s->t;
    for (uint32_t x = 0; x < nm; x++) {
        uint32_t node = t->port_node[mem[x].gport];
        const ibr__node *nd = &t->nodes[node];
        s->msw[x] = IBR_NONE;
        s->mport[x] = 0;
        if (nd->sw != IBR_NONE) {
            s->msw[x] = nd->sw;
        } else {
            const ibr__port *pp = &t->ports[mem[x].gport];
            if (pp->remote_node != IBR_NONE && pp->state != IBR_LINK_DOWN &&
                t->nodes[pp->remote_node].sw != IBR_NONE) {
                s->msw[x] = t->nodes[pp->remote_node].sw;
                s->mport[x] = pp->remote_port;
            }
        }
    }
}

static int cmp_guidkey(const void *a, const void *b, void *arg)
{
    const ibr_topo *t = arg;
    uint64_t x = ibr__guid_key(t->nodes[t->sw_node[*(const uint32_t *)a]].guid);
    uint64_t y = ibr__guid_key(t->nodes[t->sw_node[*(const uint32_t *)b]].guid);
    return x < y ? -1 : x > y;
}

/* OpenSM's root: among the switches in table order (order), the first
   whose largest hop count to a member switch (+1 unless that switch is a
   member itself) is the smallest. swidx: n entries, IBR_NONE on entry and
   on return; uniq, umem: n entries of scratch. */
static uint32_t find_root(mc_state *s, const ibr__mcmember *mem, uint32_t nm,
                          const uint32_t *order, uint32_t *swidx, uint32_t *uniq, uint8_t *umem)
{
    const ibr_topo *t = s->t;
    uint32_t n = s->n, nu = 0;
    for (uint32_t x = 0; x < nm; x++) {
        uint32_t d = s->msw[x];
        if (d == IBR_NONE)
            continue;
        if (swidx[d] == IBR_NONE) {
            swidx[d] = nu;
            uniq[nu] = d;
            umem[nu] = 0;
            nu++;
        }
        if (t->nodes[t->port_node[mem[x].gport]].sw != IBR_NONE)
            umem[swidx[d]] = 1;
    }
    uint32_t best = IBR_NONE;
    unsigned best_h = 10000;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = order[i];
        const uint8_t *row = s->hops + (size_t)c * n;
        unsigned h = 0;
        for (uint32_t u = 0; u < nu; u++) {
            unsigned v = (unsigned)row[uniq[u]] + (umem[u] ? 0u : 1u);
            if (v > h)
                h = v;
        }
        /* balanced: among equally good roots, the one rooting the fewest
           trees so far (then table order) */
        if (h < best_h || (s->balance && h == best_h && s->roots[c] < s->roots[best])) {
            best_h = h;
            best = c;
        }
    }
    if (s->balance && best != IBR_NONE)
        s->roots[best]++;
    for (uint32_t u = 0; u < nu; u++)
        swidx[uniq[u]] = IBR_NONE;
    return best;
}

typedef struct mc_scratch {
    uint32_t *order, *swidx, *uniq;
    uint8_t *umem;
} mc_scratch;

static void scratch_free(ibr_context *ctx, mc_scratch *x)
{
    ibr__free(ctx, x->order);
    ibr__free(ctx, x->swidx);
    ibr__free(ctx, x->uniq);
    ibr__free(ctx, x->umem);
}

static int scratch_alloc(ibr_context *ctx, mc_scratch *x, const ibr_topo *t)
{
    uint32_t n = t->n_sw ? t->n_sw : 1;
    x->order = ibr__mallocarray(ctx, n, sizeof *x->order);
    x->swidx = ibr__mallocarray(ctx, n, sizeof *x->swidx);
    x->uniq = ibr__mallocarray(ctx, n, sizeof *x->uniq);
    x->umem = ibr__mallocarray(ctx, n, 1);
    if (!x->order || !x->swidx || !x->uniq || !x->umem)
        return IBR_ENOMEM;
    for (uint32_t i = 0; i < t->n_sw; i++) {
        x->order[i] = i;
        x->swidx[i] = IBR_NONE;
    }
    ibr__sort(x->order, t->n_sw, sizeof *x->order, cmp_guidkey, (void *)t);
    return 0;
}

int ibr_run_mcast_root(uint32_t *sw, ibr_run *run, const uint8_t *hops, uint16_t mlid)
{
    if (!sw || !run || !hops || !run->opts.mcast_groups)
        return IBR_EINVAL;
    const ibr_topo *t = run->topo;
    ibr_context *ctx = t->ctx;
    ibr__mcmember *mem;
    size_t nm;
    int rc = ibr__mcast_members(&mem, &nm, run->opts.mcast_groups, mlid);
    if (rc < 0)
        return rc;
    if (nm < 2) {
        ibr__free(ctx, mem);
        return IBR_ENOTFOUND;
    }
    mc_scratch x = {0};
    mc_state s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.n = t->n_sw;
    s.hops = hops;
    s.msw = ibr__mallocarray(ctx, nm, sizeof *s.msw);
    s.mport = ibr__mallocarray(ctx, nm, 1);
    if (!s.msw || !s.mport || scratch_alloc(ctx, &x, t) < 0) {
        rc = IBR_ENOMEM;
    } else {
        map_members(&s, mem, (uint32_t)nm);
        uint32_t r = find_root(&s, mem, (uint32_t)nm, x.order, x.swidx, x.uniq, x.umem);
        if (r == IBR_NONE) {
            rc = IBR_ENOTFOUND;
        } else {
            *sw = r;
            rc = 0;
        }
    }
    scratch_free(ctx, &x);
    ibr__free(ctx, s.msw);
    ibr__free(ctx, s.mport);
    ibr__free(ctx, mem);
    return rc;
}

int ibr_run_mcast_default(ibr_run *run, const uint8_t *hops, ibr_cand_fn cands, void *cands_arg)
{
    if (!run || !hops)
        return IBR_EINVAL;
    const ibr_mcast_groups *g = run->opts.mcast_groups;
    if (!g) {
        run->mcast_built = 1;
        return 0;
    }
    const ibr_topo *t = run->topo;
    ibr_context *ctx = t->ctx;
    ibr_result *r = run->res;
    mc_state s;
    mc_scratch x = {0};
    memset(&s, 0, sizeof s);
    s.t = t;
    s.run = run;
    s.n = t->n_sw;
    s.hops = hops;
    s.cands = cands;
    s.cands_arg = cands_arg;
    s.balance = (run->opts.mcast_flags & IBR_MCAST_BALANCE) != 0;
    int rc = IBR_ENOMEM;
    ibr__mcmember *mem = NULL;
    uint8_t cbuf[256];
    size_t maxm = 0;
    for (uint32_t w = 0; w < s.n; w++)
        if (t->adj_off[w + 1] - t->adj_off[w] > s.maxdeg)
            s.maxdeg = t->adj_off[w + 1] - t->adj_off[w];
    for (size_t i = 0; i < g->n_groups; i++)
        maxm += g->groups[i].n;
    size_t mm = maxm ? maxm : 1;
    size_t nn = s.n ? s.n : 1;
    s.msw = ibr__mallocarray(ctx, mm, sizeof *s.msw);
    s.mport = ibr__mallocarray(ctx, mm, 1);
    s.list = ibr__mallocarray(ctx, mm, sizeof *s.list);
    s.tmp = ibr__mallocarray(ctx, mm, sizeof *s.tmp);
    s.pick = ibr__mallocarray(ctx, mm, 1);
    s.cnt = ibr__mallocarray(ctx, 257, sizeof *s.cnt);
    if (!s.msw || !s.mport || !s.list || !s.tmp || !s.pick || !s.cnt ||
        scratch_alloc(ctx, &x, t) < 0)
        goto out;
    if (cands) {
        s.coff = ibr__calloc(ctx, nn, sizeof *s.coff);
        s.cport = ibr__calloc(ctx, nn, sizeof *s.cport);
        if (!s.coff || !s.cport)
            goto out;
    }
    if (s.balance) {
        s.load = ibr__calloc(ctx, t->n_ports ? t->n_ports : 1, sizeof *s.load);
        s.parent = ibr__mallocarray(ctx, nn, sizeof *s.parent);
        s.in_tree = ibr__calloc(ctx, nn, sizeof *s.in_tree);
        s.roots = ibr__calloc(ctx, nn, sizeof *s.roots);
        if (!s.load || !s.parent || !s.in_tree || !s.roots)
            goto out;
    }
    rc = ibr_run_progress(run, "multicast trees", 0, g->n_mlids);
    for (size_t gi = 0; gi < g->n_mlids && rc == 0; gi++) {
        uint16_t mlid = g->mlids[gi];
        size_t nm;
        if ((rc = ibr__mcast_members(&mem, &nm, g, mlid)) < 0)
            break;
        ibr__mcast *mc = ibr__result_mcast_get(r, mlid, 1);
        if (!mc) {
            rc = IBR_ENOMEM;
            break;
        }
        /* the MLID's tables start clear */
        memset(mc->bits, 0, (size_t)s.n * 32);
        s.mlid = mlid;
        s.bits = mc->bits;
        if (nm >= 2) {
            map_members(&s, mem, (uint32_t)nm);
            uint32_t root = find_root(&s, mem, (uint32_t)nm, x.order, x.swidx, x.uniq, x.umem);
            if (root != IBR_NONE) {
                if (s.balance) {
                    rc = balanced(&s, root, (uint32_t)nm, cbuf);
                } else {
                    for (uint32_t i = 0; i < nm; i++)
                        s.list[i] = i;
                    rc = branch(&s, root, s.list, (uint32_t)nm, 0, 0, cbuf);
                }
            }
        }
        ibr__free(ctx, mem);
        mem = NULL;
        if (rc == 0 && (gi + 1) % 64 == 0)
            rc = ibr_run_progress(run, "multicast trees", gi + 1, g->n_mlids);
    }
    if (rc == 0)
        rc = ibr_run_progress(run, "multicast trees", g->n_mlids, g->n_mlids);
    /* balancing must not break an engine's credit-loop promise: if the
       balanced trees close a loop, OpenSM's trees are built instead */
    if (rc == 0 && s.balance && (run->engine->caps & IBR_CAP_DEADLOCK_FREE)) {
        size_t len = 0;
        rc = ibr_run_find_credit_loop(NULL, 0, &len, run);
        if (rc == IBR_EDEADLOCK) {
            ibr__log(ctx, IBR_LOG_INFO, "balanced multicast trees close a credit loop with "
                                        "engine '%s': building OpenSM's trees instead",
                     run->engine->name);
            ibr_options saved = run->opts;
            run->opts.mcast_flags &= ~(unsigned)IBR_MCAST_BALANCE;
            rc = ibr_run_mcast_default(run, hops, cands, cands_arg);
            run->opts = saved;
            goto out;
        }
    }
    if (rc == 0) {
        run->mcast_built = 1;
        r->mcast_trees = s.balance ? IBR_MCAST_TREES_BALANCED : IBR_MCAST_TREES_OPENSM;
    }
out:
    if (rc == IBR_ENOMEM)
        ibr__run_fail(run, IBR_ENOMEM, "out of memory building the multicast trees");
    ibr__free(ctx, mem);
    for (uint32_t w = 0; w < s.n; w++) {
        if (s.coff)
            ibr__free(ctx, s.coff[w]);
        if (s.cport)
            ibr__free(ctx, s.cport[w]);
    }
    ibr__free(ctx, s.coff);
    ibr__free(ctx, s.cport);
    ibr__free(ctx, s.msw);
    ibr__free(ctx, s.mport);
    ibr__free(ctx, s.list);
    ibr__free(ctx, s.tmp);
    ibr__free(ctx, s.pick);
    ibr__free(ctx, s.cnt);
    ibr__free(ctx, s.load);
    ibr__free(ctx, s.parent);
    ibr__free(ctx, s.in_tree);
    ibr__free(ctx, s.roots);
    scratch_free(ctx, &x);
    return rc;
}

int ibr__mcast_trees(ibr__mcast_next *next, ibr_run *run, unsigned max_vls, int retried)
{
    int rc = 0;
    *next = IBR__MCAST_DONE;
    if (!run->mcast_built) {
        uint8_t *plain = NULL;
        rc = ibr__switch_hops(&plain, run->topo, run->nthreads);
        if (rc == 0)
            rc = ibr_run_mcast_default(run, plain, NULL, NULL);
        else
            rc = ibr__run_fail(run, rc, "out of memory");
        ibr__free(run->ctx, plain);
    }
    if (rc == 0)
        rc = ibr__mcast_isolate(next, run, max_vls, retried);
    if (rc == 0 && *next == IBR__MCAST_DONE &&
        ibr__result_set_mcast_members(run->res, run->opts.mcast_groups) < 0)
        rc = ibr__run_fail(run, IBR_ENOMEM, "out of memory");
    return rc;
}
