/*
 * cmd_sweep.c - `ibr sweep`: what one more fault costs. Takes each cable
 * (or N random cables, N random switches) out in turn, routes the fabric
 * again from the intact routing's database with ibr_routing_db_route()
 * (the engine's repair in place where it has one, its full route
 * otherwise), analyses the new tables and reports the eBB of every
 * pattern family against the intact fabric's, worst faults first; with
 * --k-max, a degradation curve of k = 1..K random cables lost at once
 * (T trials each: median and minimum eBB), as fail-in-place studies plot.
 *
 *   ibr sweep TOPOLOGY -R ENGINE [--cables all|N] [--switches N]
 *             [--k-max K] [--trials T] [--seed S] [--patterns LIST]
 *             [--random N] [--threads N] [--ranks FILE] [--workloads LIST]
 *             [--grid AxB[xC]] [--moe G[,K]] [--rails N] [--top-links K] [--json]
 *
 * The sweep itself (cli_sweep_run()) is shared with `ibr report --sweep`.
 * Uses the public API only.
 */
#include "cli.h"

#include <ibroute/sys/toolkit.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void usage_sweep(FILE *o)
{
    fputs("usage: ibr sweep TOPOLOGY -R ENGINE [options]\n"
          "\n"
          "What one more fault costs: take each cable (or N random cables, N random\n"
          "switches) out in turn, route again with the same engine (its repair in place\n"
          "from the intact routing where it has one, as ibr reroute does; its full route\n"
          "otherwise) and report the effective bisection bandwidth (eBB) of every traffic\n"
          "pattern against the intact fabric's, the worst faults first. With --k-max, a\n"
          "degradation curve: k = 1..K random cables lost at once, T trials each, median\n"
          "and minimum eBB. A fault the engine cannot route counts as eBB 0.\n"
          "\n"
          "Options:\n"
          "  -R, --routing-engine ENGINE the engine (one name, or a chain)\n"
          "  --cables all|N              every switch-to-switch cable, or N random ones\n"
          "                              (default 20, or all when fewer)\n"
          "  --switches N                also N random switches, one at a time (0)\n"
          "  --k-max K                   degradation curve up to K random cables at once\n"
          "  --trials T                  trials per point of the curve (5)\n"
          "  --seed N                    seed of the faults and the random patterns (1)\n"
          "  --patterns LIST             as ibr analyze (all, or a2a,shift,perm,bisect)\n"
          "  --random N                  random permutations and bisections each (20)\n"
          "  --threads N                 workers evaluating the faults in parallel\n"
          "                              (0 = one per CPU; the results do not depend on it)\n"
          "  --ranks FILE, --workloads LIST, --grid AxB[xC], --moe G[,K], --rails N,\n"
          "  --top-links K               the workloads over a rank order, as ibr analyze;\n"
          "                              each workload's eBB drop is reported too\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --json                      one JSON object instead of the text report\n"
          "  -q, --quiet                 no progress lines on stderr\n"
          "\n"
          "Exit status: 0 when the intact fabric routes every pair, 1 when it does not\n"
          "or the engine declines it, 2 on usage or input errors.\n",
          o);
}

/* ------------------------------------------------------------------------ */
/* Faults */

/* One cable, by the fabric's node index and port of one end. */
typedef struct sweep_link {
    uint32_t node;
    unsigned port;
} sweep_link;

/* What one sweep reads and changes. The faults are evaluated in parallel
   (ibr_parallel_for()): taking links down, freezing the topology and
   putting them back happen under @c lock, on the one shared fabric; the
   reroute and the analysis of each fault run on its own topology. */
typedef struct sweep_ctx {
    ibr_fabric *f;
    pthread_mutex_t lock;
    const ibr_routing_db *db;
    ibr_analyze_options aopts; /* each fault's analysis (one thread when the
                                  faults run in parallel) */
    unsigned int workers;      /* --threads: the faults' workers */
    const sweep_result *res;   /* the pattern families to look for */
    sweep_link *cables;
    size_t ncables;
} sweep_ctx;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The first k entries of idx become a seeded random choice of k of its n. */
static void choose(size_t *idx, size_t n, size_t k, uint64_t *rng)
{
    for (size_t i = 0; i < k && i < n; i++) {
        size_t j = i + (size_t)(splitmix(rng) % (n - i));
        size_t tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
    }
}

static uint64_t node_guid(const ibr_topo *t, uint32_t node)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    return ibr_topo_node_info(&ni, t, node) == 0 ? ni.node_guid : 0;
}

/* The active switch-to-switch links of switch node @p node into out (may
   be NULL to count); with @p once only from the end with the lower
   (node, port). Their number. */
static size_t switch_links(sweep_link *out, const ibr_topo *t, uint32_t node, int once)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    size_t n = 0;
    if (ibr_topo_node_info(&ni, t, node) < 0)
        return 0;
    for (unsigned p = 1; p <= ni.nports; p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
            pi.state != IBR_LINK_ACTIVE || ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE ||
            (pi.remote_node == node && pi.remote_port == p))
            continue;
        if (once && (pi.remote_node < node || (pi.remote_node == node && pi.remote_port < p)))
            continue;
        if (out)
            out[n] = (sweep_link){node, p};
        n++;
    }
    return n;
}

/* The fabric with @p n links down, frozen into *t; the links are back up
   on return. The fabric is shared by the workers: under the lock. */
static int sweep_freeze(ibr_topo **t, sweep_ctx *sc, const sweep_link *links, size_t n)
{
    pthread_mutex_lock(&sc->lock);
    for (size_t i = 0; i < n; i++)
        ibr_fabric_set_link_state(sc->f, links[i].node, links[i].port, IBR_LINK_DOWN);
    int rc = ibr_fabric_freeze(t, sc->f);
    for (size_t i = 0; i < n; i++)
        ibr_fabric_set_link_state(sc->f, links[i].node, links[i].port, IBR_LINK_ACTIVE);
    pthread_mutex_unlock(&sc->lock);
    return rc;
}

/* Take @p n links down, route from the database and analyse. ebb[] gets
   the families' eBB (0 when the engine failed); returns the routing
   call's status (0, or its error: the fault is recorded, not fatal) or 1
   when analysing ran out of memory. Safe on several workers at once. */
static int sweep_eval(sweep_fault *out, sweep_ctx *sc, const sweep_link *links, size_t n)
{
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    ibr_analysis *a = NULL;
    ibr_buffer json = IBR_BUFFER_INIT;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    double start = cli_now();
    int rc;

    for (size_t i = 0; i < sc->res->npat; i++)
        out->ebb[i] = 0.0;
    rc = sweep_freeze(&t, sc, links, n);
    if (rc == 0)
        rc = ibr_routing_db_route(&r, &rep, sc->db, t, NULL, 0);
    out->rc = rc;
    out->mode = rep.mode;
    if (rc == 0) {
        ibr_analysis_summary sum = IBR_ANALYSIS_SUMMARY_INIT;
        char names[CLI_MAX_FAMILIES][CLI_FAMILY_NAME];
        double ebb[CLI_MAX_FAMILIES];
        if (ibr_result_analyze(&a, r, &sc->aopts) < 0 || ibr_analysis_write_json(&json, a) < 0)
            rc = 1;
        else {
            size_t nf = cli_pattern_families(names, ebb, CLI_MAX_FAMILIES, json.data);
            for (size_t i = 0; i < sc->res->npat; i++)
                for (size_t j = 0; j < nf; j++)
                    if (strcmp(names[j], sc->res->names[i]) == 0)
                        out->ebb[i] = ebb[j];
            ibr_analysis_summary_get(&sum, a);
            out->unrouted_pairs = sum.pairs - sum.pairs_routed;
        }
    }
    out->worst_drop = 0.0;
    for (size_t i = 0; i < sc->res->npat; i++) {
        double d = sc->res->base[i] - out->ebb[i];
        out->worst_drop = d > out->worst_drop ? d : out->worst_drop;
    }
    out->seconds = cli_now() - start;
    ibr_buffer_dispose(&json);
    ibr_analysis_destroy(a);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    return rc == 1 ? 1 : 0;
}

/* The faults of one parallel loop: item i takes down links[first[i] ..
   first[i + 1]) and fills out[i]. */
typedef struct sweep_jobs {
    sweep_ctx *sc;
    const sweep_link *links;
    const size_t *first;
    sweep_fault *out;
    size_t progress_every; /* 0: no progress lines */
    size_t total;
    atomic_size_t done;
} sweep_jobs;

static int sweep_job(void *arg, unsigned int worker, size_t i)
{
    sweep_jobs *j = arg;
    (void)worker;
    if (sweep_eval(&j->out[i], j->sc, j->links + j->first[i], j->first[i + 1] - j->first[i]))
        return IBR_ENOMEM;
    size_t d = atomic_fetch_add(&j->done, 1) + 1;
    if (j->progress_every && d % j->progress_every == 0 && d <= j->total)
        fprintf(stderr, "ibr: sweep: %zu of %zu cables\n", d, j->total);
    return 0;
}

/* Evaluate @p n faults on the sweep's workers. -1 on out of memory. */
static int sweep_jobs_run(sweep_ctx *sc, const sweep_link *links, const size_t *first,
                          sweep_fault *out, size_t n, size_t progress_total)
{
    sweep_jobs j = {sc, links, first, out, progress_total ? 50 : 0, progress_total, 0};
    atomic_init(&j.done, 0);
    return ibr_parallel_for(sc->workers, n, sweep_job, &j) < 0 ? -1 : 0;
}

/* Name the fault: its cable's ends, or the switch. */
static void fault_name(sweep_fault *fl, const ibr_topo *t, sweep_link c, int is_switch)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    fl->is_switch = is_switch;
    fl->guid_a = node_guid(t, c.node);
    fl->port_a = is_switch ? 0 : c.port;
    fl->guid_b = 0;
    fl->port_b = 0;
    if (!is_switch && ibr_topo_port_info(&pi, t, c.node, c.port) == 0) {
        fl->guid_b = node_guid(t, pi.remote_node);
        fl->port_b = pi.remote_port;
    }
}

static int cmp_fault(const void *a, const void *b)
{
    const sweep_fault *x = a, *y = b;
    if (x->worst_drop != y->worst_drop)
        return x->worst_drop < y->worst_drop ? 1 : -1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The single faults: the cables asked for, then the switches. -1 on
   out of memory. */
static int sweep_singles(sweep_result *res, sweep_ctx *sc, const ibr_topo *t0,
                         const sweep_cfg *cfg, uint64_t *rng)
{
    size_t nc = cfg->all_cables || cfg->n_cables > sc->ncables ? sc->ncables
                                                               : (size_t)cfg->n_cables;
    size_t nsw = ibr_topo_switch_count(t0);
    size_t ns = cfg->n_switches > nsw ? nsw : (size_t)cfg->n_switches;
    size_t *idx = calloc(sc->ncables + nsw + 1, sizeof(*idx));
    size_t *first = calloc(nc + ns + 1, sizeof(*first));
    sweep_link *links = NULL;
    int rc = -1;
    res->faults = calloc(nc + ns + 1, sizeof(*res->faults));
    if (!idx || !first || !res->faults)
        goto out;
    for (size_t i = 0; i < sc->ncables; i++)
        idx[i] = i;
    if (nc < sc->ncables)
        choose(idx, sc->ncables, nc, rng);
    /* the faults' links, in the order swept: each cable, then each
       switch's links */
    size_t nl = nc;
    size_t *sw = idx + sc->ncables;
    for (size_t i = 0; i < nsw; i++)
        sw[i] = i;
    choose(sw, nsw, ns, rng);
    for (size_t i = 0; i < ns; i++)
        nl += switch_links(NULL, t0, ibr_topo_switch_node(t0, (uint32_t)sw[i]), 0);
    links = calloc(nl + 1, sizeof(*links));
    if (!links)
        goto out;
    for (size_t i = 0; i < nc; i++) {
        sweep_fault *fl = &res->faults[i];
        fl->order = i;
        fault_name(fl, t0, sc->cables[idx[i]], 0);
        links[i] = sc->cables[idx[i]];
        first[i + 1] = i + 1;
    }
    for (size_t i = 0; i < ns; i++) {
        uint32_t node = ibr_topo_switch_node(t0, (uint32_t)sw[i]);
        sweep_fault *fl = &res->faults[nc + i];
        fl->order = nc + i;
        fault_name(fl, t0, (sweep_link){node, 0}, 1);
        first[nc + i + 1] = first[nc + i] + switch_links(links + first[nc + i], t0, node, 0);
    }
    res->nfaults = nc + ns;
    rc = sweep_jobs_run(sc, links, first, res->faults, nc + ns,
                        !cli_quiet && !cfg->quiet_progress ? nc : 0);
    qsort(res->faults, res->nfaults, sizeof(*res->faults), cmp_fault);
out:
    free(idx);
    free(first);
    free(links);
    return rc;
}

/* The degradation curve: the trials' cables drawn in order (k = 1..K,
   trials 1..T), evaluated in parallel, then each point's median and
   minimum. -1 on out of memory. */
static int sweep_curve(sweep_result *res, sweep_ctx *sc, const sweep_cfg *cfg, uint64_t *rng)
{
    size_t kmax = cfg->k_max > sc->ncables ? sc->ncables : cfg->k_max;
    unsigned trials = cfg->trials ? cfg->trials : 1;
    size_t njobs = kmax * trials, nl = trials * kmax * (kmax + 1) / 2;
    size_t *idx = calloc(sc->ncables + 1, sizeof(*idx));
    size_t *first = calloc(njobs + 1, sizeof(*first));
    sweep_link *links = calloc(nl + 1, sizeof(*links));
    sweep_fault *fl = calloc(njobs + 1, sizeof(*fl));
    double *vals = calloc((size_t)trials * res->npat + 1, sizeof(*vals));
    int rc = -1;
    res->curve = calloc(kmax + 1, sizeof(*res->curve));
    if (!idx || !first || !links || !fl || !vals || !res->curve)
        goto out;
    for (size_t k = 1, j = 0; k <= kmax; k++)
        for (unsigned tr = 0; tr < trials; tr++, j++) {
            for (size_t i = 0; i < sc->ncables; i++)
                idx[i] = i;
            choose(idx, sc->ncables, k, rng);
            for (size_t i = 0; i < k; i++)
                links[first[j] + i] = sc->cables[idx[i]];
            first[j + 1] = first[j] + k;
        }
    if (sweep_jobs_run(sc, links, first, fl, njobs, 0) < 0)
        goto out;
    for (size_t k = 1; k <= kmax; k++) {
        sweep_point *pt = &res->curve[res->npoints++];
        const sweep_fault *f = fl + (k - 1) * trials;
        pt->k = (unsigned)k;
        pt->trials = trials;
        for (unsigned tr = 0; tr < trials; tr++) {
            pt->failed += f[tr].rc != 0;
            for (size_t p = 0; p < res->npat; p++)
                vals[p * trials + tr] = f[tr].ebb[p];
        }
        for (size_t p = 0; p < res->npat; p++) {
            double *v = vals + p * trials;
            qsort(v, trials, sizeof(*v), cmp_double);
            pt->min[p] = v[0];
            pt->median[p] = trials % 2 ? v[trials / 2] : (v[trials / 2 - 1] + v[trials / 2]) / 2;
        }
    }
    rc = 0;
out:
    free(idx);
    free(first);
    free(links);
    free(fl);
    free(vals);
    return rc;
}

int cli_sweep_run(sweep_result *res, ibr_fabric *f, const ibr_result *r0, const ibr_analysis *a0,
                  const sweep_cfg *cfg)
{
    const ibr_topo *t0 = ibr_result_topo(r0);
    ibr_routing_db *db = NULL;
    ibr_buffer json = IBR_BUFFER_INIT;
    sweep_ctx sc = {.f = f, .aopts = cfg->aopts, .workers = cfg->aopts.threads, .res = res};
    uint64_t rng = cfg->seed;
    double start = cli_now();
    int rc = -1;

    memset(res, 0, sizeof(*res));
    if (ibr_analysis_write_json(&json, a0) < 0 || ibr_routing_db_from_result(&db, r0) < 0)
        goto out;
    res->npat = cli_pattern_families(res->names, res->base, CLI_MAX_FAMILIES, json.data);
    sc.db = db;
    /* the faults share the workers; each analysis runs on one (its result
       does not depend on the thread count) */
    sc.aopts.threads = 1;
    pthread_mutex_init(&sc.lock, NULL);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t0); s++)
        sc.ncables += switch_links(NULL, t0, ibr_topo_switch_node(t0, s), 1);
    sc.cables = calloc(sc.ncables + 1, sizeof(*sc.cables));
    if (!sc.cables)
        goto out;
    for (uint32_t s = 0, n = 0; s < ibr_topo_switch_count(t0); s++)
        n += (uint32_t)switch_links(sc.cables + n, t0, ibr_topo_switch_node(t0, s), 1);
    res->cables_total = sc.ncables;
    if (sweep_singles(res, &sc, t0, cfg, &rng) < 0 || sweep_curve(res, &sc, cfg, &rng) < 0)
        goto out;
    res->seconds = cli_now() - start;
    rc = 0;
out:
    if (sc.db)
        pthread_mutex_destroy(&sc.lock);
    free(sc.cables);
    ibr_routing_db_destroy(db);
    ibr_buffer_dispose(&json);
    return rc;
}

void cli_sweep_free(sweep_result *res)
{
    free(res->faults);
    free(res->curve);
    memset(res, 0, sizeof(*res));
}

/* ------------------------------------------------------------------------ */
/* Output */

static const char *mode_name(const sweep_fault *fl)
{
    static const char *const names[] = {"unchanged", "cached", "repair", "full"};
    if (fl->rc != 0)
        return "failed";
    return fl->mode >= 0 && fl->mode <= 3 ? names[fl->mode] : "?";
}

/* {"name": value, ...} over the families */
static void json_families(FILE *o, const sweep_result *res, const double *v, const double *base)
{
    fputc('{', o);
    for (size_t i = 0; i < res->npat; i++) {
        fputs(i ? ", " : "", o);
        cli_json_string(o, res->names[i]);
        fputs(": ", o);
        cli_json_double(o, base ? base[i] - v[i] : v[i]);
    }
    fputc('}', o);
}

void cli_sweep_json(FILE *o, const sweep_result *res, const sweep_cfg *cfg)
{
    fprintf(o, "{\"cables_total\": %zu, \"seed\": %" PRIu64 ", \"patterns\": [", res->cables_total,
            cfg->seed);
    for (size_t i = 0; i < res->npat; i++) {
        fputs(i ? ", " : "", o);
        cli_json_string(o, res->names[i]);
    }
    fputs("],\n  \"baseline\": ", o);
    json_families(o, res, res->base, NULL);
    fputs(",\n  \"faults\": [", o);
    for (size_t i = 0; i < res->nfaults; i++) {
        const sweep_fault *fl = &res->faults[i];
        fprintf(o, "%s\n    {\"kind\": \"%s\", \"a\": \"0x%016" PRIx64 "\", \"port_a\": %u, ",
                i ? "," : "", fl->is_switch ? "switch" : "cable", fl->guid_a, fl->port_a);
        if (!fl->is_switch)
            fprintf(o, "\"b\": \"0x%016" PRIx64 "\", \"port_b\": %u, ", fl->guid_b, fl->port_b);
        fprintf(o, "\"route\": \"%s\", \"status\": \"%s\", \"unrouted_pairs\": %" PRIu64 ", \"ebb\": ",
                mode_name(fl), ibr_status_name(fl->rc), fl->unrouted_pairs);
        json_families(o, res, fl->ebb, NULL);
        fputs(", \"drop\": ", o);
        json_families(o, res, fl->ebb, res->base);
        fputs(", \"worst_drop\": ", o);
        cli_json_double(o, fl->worst_drop);
        fputs(", \"seconds\": ", o);
        cli_json_double(o, fl->seconds);
        fputc('}', o);
    }
    fputs("],\n  \"curve\": [", o);
    for (size_t i = 0; i < res->npoints; i++) {
        const sweep_point *pt = &res->curve[i];
        fprintf(o, "%s\n    {\"k\": %u, \"trials\": %u, \"failed\": %u, \"median\": ", i ? "," : "",
                pt->k, pt->trials, pt->failed);
        json_families(o, res, pt->median, NULL);
        fputs(", \"min\": ", o);
        json_families(o, res, pt->min, NULL);
        fputc('}', o);
    }
    fputs("],\n  \"seconds\": ", o);
    cli_json_double(o, res->seconds);
    fputs("}", o);
}

/* A family's text column: at least 12 characters, its whole name. */
static int col_width(const sweep_result *res, size_t i)
{
    size_t n = strlen(res->names[i]);
    return n > 12 ? (int)n : 12;
}

static void text_fault(FILE *o, const sweep_result *res, const sweep_fault *fl)
{
    char what[96];
    if (fl->is_switch)
        snprintf(what, sizeof what, "switch 0x%016" PRIx64, fl->guid_a);
    else
        snprintf(what, sizeof what, "0x%016" PRIx64 "/%u-0x%016" PRIx64 "/%u", fl->guid_a,
                 fl->port_a, fl->guid_b, fl->port_b);
    fprintf(o, "  %-46s %-7s", what, mode_name(fl));
    for (size_t i = 0; i < res->npat; i++)
        fprintf(o, " %*.4f", col_width(res, i), fl->ebb[i] - res->base[i]);
    if (fl->unrouted_pairs)
        fprintf(o, "  (%" PRIu64 " pairs unrouted)", fl->unrouted_pairs);
    fputc('\n', o);
}

static void cli_sweep_text(FILE *o, const sweep_result *res, const char *engine)
{
    size_t ncab = 0;
    for (size_t i = 0; i < res->nfaults; i++)
        ncab += !res->faults[i].is_switch;
    fprintf(o, "sweep:        %s, %zu of %zu cables, %zu switches, one at a time (%.1f s)\n",
            engine, ncab, res->cables_total, res->nfaults - ncab, res->seconds);
    fprintf(o, "  %-46s %-7s", "intact eBB", "");
    for (size_t i = 0; i < res->npat; i++)
        fprintf(o, " %*s", col_width(res, i), res->names[i]);
    fprintf(o, "\n  %-46s %-7s", "", "");
    for (size_t i = 0; i < res->npat; i++)
        fprintf(o, " %*.4f", col_width(res, i), res->base[i]);
    fprintf(o, "\nchange of eBB, worst faults first:\n");
    for (size_t i = 0; i < res->nfaults; i++)
        text_fault(o, res, &res->faults[i]);
    if (res->npoints)
        fprintf(o, "degradation, k random cables at once (median / min eBB):\n");
    for (size_t i = 0; i < res->npoints; i++) {
        const sweep_point *pt = &res->curve[i];
        fprintf(o, "  k=%-3u %u trials%s", pt->k, pt->trials, pt->failed ? " (some failed)" : "");
        for (size_t p = 0; p < res->npat; p++)
            fprintf(o, "  %s %.4f / %.4f", res->names[p], pt->median[p], pt->min[p]);
        fputc('\n', o);
    }
}

/* ------------------------------------------------------------------------ */
/* The command */

typedef struct sweep_args {
    const char *src, *chain;
    int json;
    cli_topo_args ta;
    sweep_cfg cfg;
} sweep_args;

enum { O_JSON = CLI_OPT_OWN };

/* A number of option @p opt into *out (at most @p max; at least 1 when
   @p positive). 0 or -1 (reported). */
static int opt_unsigned(unsigned *out, const char *opt, const char *arg, uint64_t max, int positive)
{
    uint64_t v;
    if (cli_opt_uint(opt, arg, max, &v) < 0)
        return -1;
    if (positive && v == 0) {
        cli_error("CL055", opt, "give at least 1");
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

int cli_workload_option(ibr_analyze_options *o, const char **ranks_file, int *wl_implied, int c,
                        const char *arg)
{
    unsigned d[3] = {0, 0, 0};
    int n;
    switch (c) {
    case CLI_OPT_SWEEP_RANKS: *ranks_file = arg; return 0;
    case CLI_OPT_SWEEP_WORKLOADS: return cli_parse_workloads(arg, &o->workloads);
    case CLI_OPT_SWEEP_GRID:
        if ((n = cli_parse_dims("--grid", arg, 'x', d, 3)) < 0)
            return -1;
        if (n < 2) {
            cli_error("CL024", "--grid", "expected AxB or AxBxC, got '%s'", arg);
            return -1;
        }
        memcpy(o->grid, d, sizeof d);
        *wl_implied = 1;
        return 0;
    case CLI_OPT_SWEEP_MOE:
        if ((n = cli_parse_dims("--moe", arg, ',', d, 2)) < 0)
            return -1;
        o->moe_group = d[0];
        if (n == 2)
            o->moe_fanout = d[1];
        *wl_implied = 1;
        return 0;
    case CLI_OPT_SWEEP_RAILS:
        *wl_implied = 1;
        return opt_unsigned(&o->rails, "--rails", arg, 1u << 20, 0);
    case CLI_OPT_SWEEP_TOP:
        return opt_unsigned(&o->top_links, "--top-links", arg, IBR_WORKLOAD_MAX_TOP, 0);
    default: return 1;
    }
}

int cli_sweep_option(sweep_cfg *cfg, int *sweep, int c, const char *arg)
{
    uint64_t v;
    if (c >= CLI_OPT_SWEEP_CABLES && c <= CLI_OPT_SWEEP_TRIALS)
        *sweep = 1;
    switch (c) {
    case CLI_OPT_SWEEP_CABLES:
        if (strcmp(arg, "all") == 0) {
            cfg->all_cables = 1;
            return 0;
        }
        return cli_opt_uint("--cables", arg, 1u << 30, &cfg->n_cables);
    case CLI_OPT_SWEEP_SWITCHES: return cli_opt_uint("--switches", arg, 1u << 20, &cfg->n_switches);
    case CLI_OPT_SWEEP_KMAX: return opt_unsigned(&cfg->k_max, "--k-max", arg, 10000, 0);
    case CLI_OPT_SWEEP_TRIALS: return opt_unsigned(&cfg->trials, "--trials", arg, 10000, 1);
    case CLI_OPT_SWEEP_SEED:
        if (cli_opt_uint("--seed", arg, UINT64_MAX, &v) < 0)
            return -1;
        cfg->seed = cfg->aopts.seed = v;
        return 0;
    case CLI_OPT_SWEEP_PATTERNS: return cli_parse_patterns(arg, &cfg->aopts.patterns);
    case CLI_OPT_SWEEP_RANDOM: return opt_unsigned(&cfg->aopts.n_random, "--random", arg, 1000000, 0);
    case CLI_OPT_SWEEP_THREADS: return opt_unsigned(&cfg->aopts.threads, "--threads", arg, 1024, 0);
    default: return cli_workload_option(&cfg->aopts, &cfg->ranks_file, &cfg->wl_implied, c, arg);
    }
}

static int sweep_option(void *args, int c, const char *arg)
{
    sweep_args *sa = args;
    int sweep = 0, rc;
    switch (c) {
    case 'R': sa->chain = arg; return 0;
    case 'q': cli_quiet = 1; return 0;
    case O_JSON: sa->json = 1; return 0;
    default:
        if ((rc = cli_sweep_option(&sa->cfg, &sweep, c, arg)) <= 0)
            return rc;
        return cli_shared_option(&sa->ta, NULL, c, arg, usage_sweep);
    }
}

static int sweep_parse_args(sweep_args *sa, int argc, char **argv)
{
    static const struct option lo[] = {{"routing-engine", required_argument, NULL, 'R'},
                                       {"json", no_argument, NULL, O_JSON},
                                       CLI_SWEEP_LONG_OPTIONS,
                                       {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    int rc = cli_getopt_each(argc, argv, "R:hq", lo, usage_sweep, sweep_option, sa);
    if (rc != 0)
        return rc;
    if (optind + 1 != argc) {
        cli_error("CL059", "sweep", "expected TOPOLOGY (try 'ibr sweep --help')");
        return -1;
    }
    if (!sa->chain) {
        cli_error("CL060", "sweep", "give the engine with -R ENGINE");
        return -1;
    }
    sa->src = argv[optind];
    return 0;
}

void cli_sweep_cfg_init(sweep_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    ibr_analyze_options_init(&cfg->aopts, IBR_ANALYZE_OPTIONS_VERSION);
    cfg->aopts.n_random = 20;
    cfg->n_cables = 20;
    cfg->trials = 5;
    cfg->seed = 1;
}

int cli_load_ranks(ibr_rank_order **ranks, ibr_analyze_options *o, const ibr_topo *t,
                   const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    if (cli_read_file(path, &buf, &len) < 0)
        return -1;
    int rc = ibr_rank_order_parse(ranks, t, buf, len);
    free(buf);
    if (rc < 0) {
        cli_lib_error(path, *ranks ? ibr_rank_order_last_error(*ranks) : NULL, rc);
        return -1;
    }
    if (ibr_rank_order_count(*ranks) == 0) {
        cli_error("CL031", path, "no ranks");
        return -1;
    }
    o->rank_guids = ibr_rank_order_guids(*ranks);
    o->n_ranks = ibr_rank_order_count(*ranks);
    return 0;
}

int cli_sweep_prepare(sweep_cfg *cfg, const ibr_topo *t)
{
    if (cfg->wl_implied && !cfg->aopts.workloads)
        cfg->aopts.workloads = IBR_WORKLOAD_ALL;
    if (!cfg->ranks_file)
        return 0;
    return cli_load_ranks(&cfg->ranks, &cfg->aopts, t, cfg->ranks_file);
}

void cli_sweep_cfg_dispose(sweep_cfg *cfg)
{
    ibr_rank_order_destroy(cfg->ranks);
    cfg->ranks = NULL;
    cfg->aopts.rank_guids = NULL;
    cfg->aopts.n_ranks = 0;
}

int cli_route_intact(cli_intact *in, const char *src, const cli_topo_args *ta, const char *chain)
{
    cli_topo_args a = *ta;
    a.assign_what = src;
    memset(in, 0, sizeof(*in));
    if (cli_make_context(&in->ctx, CLI_LOG_NONE) < 0)
        return CLI_EXIT_ERROR;
    if (cli_load_fabric(&in->f, in->ctx, src) < 0 || cli_apply_lids(in->f, &a) < 0 ||
        cli_freeze(&in->t, in->f, src) < 0)
        return CLI_EXIT_ERROR;
    if (!chain)
        return CLI_EXIT_OK;
    ibr_options ro = IBR_OPTIONS_INIT;
    int rc = ibr_route(&in->r, in->t, chain, &ro);
    if (rc < 0) {
        cli_lib_error("route", in->r ? ibr_result_last_error(in->r) : ibr_context_last_error(in->ctx),
                      rc);
        return rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
    }
    return CLI_EXIT_OK;
}

void cli_intact_dispose(cli_intact *in)
{
    ibr_result_destroy(in->r);
    ibr_topo_destroy(in->t);
    ibr_fabric_destroy(in->f);
    ibr_context_destroy(in->ctx);
    memset(in, 0, sizeof(*in));
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args sa = {.ta = CLI_TOPO_ARGS_INIT};
    cli_sweep_cfg_init(&sa.cfg);
    int rc = sweep_parse_args(&sa, argc, argv);
    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    cli_intact in;
    ibr_analysis *a0 = NULL;
    sweep_result res;
    memset(&res, 0, sizeof res);
    int ret = cli_route_intact(&in, sa.src, &sa.ta, sa.chain);
    if (ret != CLI_EXIT_OK)
        goto out;
    ret = CLI_EXIT_ERROR;
    if (cli_sweep_prepare(&sa.cfg, in.t) < 0)
        goto out;
    if ((rc = ibr_result_analyze(&a0, in.r, &sa.cfg.aopts)) < 0 ||
        cli_sweep_run(&res, in.f, in.r, a0, &sa.cfg) < 0) {
        cli_lib_error("sweep", NULL, rc < 0 ? rc : IBR_ENOMEM);
        goto out;
    }
    if (sa.json) {
        fputs("{\"engine\": ", stdout);
        cli_json_string(stdout, ibr_result_engine(in.r));
        fputs(", \"sweep\": ", stdout);
        cli_sweep_json(stdout, &res, &sa.cfg);
        fputs("}\n", stdout);
        cli_json_printed = 1;
    } else
        cli_sweep_text(stdout, &res, ibr_result_engine(in.r));
    if (cli_flush_stdout() != 0) {
        cli_error("CL030", "stdout", "cannot write: %s", strerror(cli_stdout_errno));
        goto out;
    }
    ibr_analysis_summary sum = IBR_ANALYSIS_SUMMARY_INIT;
    ibr_analysis_summary_get(&sum, a0);
    ret = sum.pairs_routed == sum.pairs ? CLI_EXIT_OK : CLI_EXIT_INVALID;
out:
    cli_sweep_free(&res);
    ibr_analysis_destroy(a0);
    cli_sweep_cfg_dispose(&sa.cfg); /* the rank order before its topology's context */
    cli_intact_dispose(&in);
    return ret;
}
