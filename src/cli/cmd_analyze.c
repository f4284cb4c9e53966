/*
 * cmd_analyze.c - `ibr analyze`: measure a routing's quality (path lengths,
 * link load, congestion under traffic patterns, effective bisection
 * bandwidth, VL usage) with ibr_result_analyze().
 *
 *   ibr analyze TOPOLOGY [LFTS_DUMP] [-R CHAIN] [--json]
 *               [--patterns all|a2a,shift,perm,bisect] [--random N] [--seed N]
 *               [--guid2lid FILE] [--threads N] [-Q] [--qos-config FILE]
 *               [--qos-levels N] [--ranks FILE] [--workloads LIST] [--grid AxB[xC]]
 *               [--moe G[,K]] [--rails N] [--top-links K]
 *
 * Without LFTS_DUMP the topology is routed in memory with CHAIN (default
 * minhop). Uses the public API only.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void usage_analyze(FILE *o)
{
    fputs("usage: ibr analyze TOPOLOGY [LFTS_DUMP] [-R CHAIN] [--json] [options]\n"
          "\n"
          "Measure a routing: hop counts and stretch, link load over all pairs (the edge\n"
          "forwarding index), congestion and effective bisection bandwidth under traffic\n"
          "patterns, and VL usage. The routing is read from LFTS_DUMP (opensm-lfts.dump,\n"
          "ibroute's dump_lfts format, opensm.fdbs or ibdiagnet2.fdbs) or, without it,\n"
          "computed in memory with CHAIN.\n"
          "\n"
          "Options:\n"
          "  -R, --routing-engine CHAIN  engines tried in order (default minhop)\n"
          "  --json                      one JSON object instead of the text report\n"
          "  -q, --quiet                 no progress lines on stderr (reading big dumps)\n"
          "  --patterns LIST             all (default) or a comma list of a2a, shift,\n"
          "                              perm, bisect\n"
          "  --random N                  random permutations and bisections each (100)\n"
          "  --seed N                    seed of the random patterns (1)\n"
          "  --all-lids                  patterns spread sources over the destination's\n"
          "                              LMC LIDs (default: base LIDs only); with LMC > 0\n"
          "                              the report adds how the LIDs of each port spread\n"
          "                              (distinct routes, most LIDs on one link)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --sl2vl FILE                with LFTS_DUMP: the switches' SL2VL tables\n"
          "                              (ibdiagnet2.sl2vl) give the VLs of paths\n"
          "  --path-sl FILE              with LFTS_DUMP: the paths' SLs (ibdmchk -c's\n"
          "                              file, ibr-paths.psl; default SL 0)\n"
          "  --threads N                 worker threads (0 = one per CPU, the default)\n"
          "  --groups FILE               multicast groups (as ibr route --groups): adds the\n"
          "                              multicast load per link (trees crossing each\n"
          "                              directed switch-to-switch link) to the report\n"
          "  --mcast-balance             balanced multicast trees (as ibr route)\n"
          "  -Q, --qos                   route with QoS on (as ibr route -Q): the VLs come\n"
          "                              from the SL2VL tables the QoS manager programs\n"
          "  --qos-config FILE           QoS on with the qos_* keys of FILE (as ibr route)\n"
          "  --qos-levels N              QoS on with N QoS levels over the engine's layers;\n"
          "                              the report gives the VL usage of every level\n"
          "  --ranks FILE                rank order: one end port per line, rank 0 first\n"
          "                              (port GUID, `ibr order` output, node description,\n"
          "                              'description port', or host name as a hostfile\n"
          "                              lists it; '#' comments); the patterns and\n"
          "                              workloads run over these ranks (default: the end\n"
          "                              ports in node order)\n"
          "  --workloads LIST            all or a comma list of ring, rd, rail-ring,\n"
          "                              rail-rd, a2a, moe, grid, shift, perm: per workload\n"
          "                              eBB, worst step, bound, congestion per flow and the\n"
          "                              limiting links (all when --grid, --moe or --rails\n"
          "                              is given alone)\n"
          "  --grid AxB[xC]              process grid of the grid workload, ranks row-major\n"
          "                              (default: the squarest AxB)\n"
          "  --moe G[,K]                 mixture of experts: groups of G ranks, each rank\n"
          "                              sending to K others of its group (8,2)\n"
          "  --rails N                   rank i is on rail i mod N (default: the number\n"
          "                              ending the node description, mlx5_<rail>)\n"
          "  --top-links K               limiting links listed per workload (5, at most 16)\n"
          "\n"
          "Exit status: 0 when every pair with a path is routed, 1 when some are not,\n"
          "2 on usage or input errors.\n",
          o);
}

/* Multicast load of r: trees per directed switch-to-switch link. */
typedef struct mcast_load {
    size_t mlids;
    uint64_t links, links_used, tree_links;
    uint32_t max, max_sw;
    unsigned max_port;
} mcast_load;

static void count_mcast_link(void *arg, uint32_t sw, unsigned port, uint32_t trees)
{
    mcast_load *m = arg;
    (void)sw;
    (void)port;
    m->links++;
    m->tree_links += trees;
    if (trees)
        m->links_used++;
}

static void measure_mcast(mcast_load *m, const ibr_result *r)
{
    memset(m, 0, sizeof(*m));
    m->mlids = ibr_result_mcast_count(r);
    m->max = cli_mcast_busiest(r, &m->max_sw, &m->max_port);
    cli_mcast_links(r, count_mcast_link, m);
}

/* How the LIDs of ports with LMC > 0 spread (--all-lids): for every switch
   with end ports and every such port on another switch, the routes of the
   port's LIDs from that switch, walked through the tables. */
typedef struct lmc_paths {
    uint64_t pairs;      /* (switch, port) pairs walked */
    uint64_t unrouted;   /* of those, with a LID not delivered */
    uint64_t distinct;   /* sum over pairs: distinct routes among the LIDs */
    uint64_t share;      /* sum over pairs: most LIDs on one link */
    uint64_t disjoint;   /* pairs whose LIDs share no switch-to-switch link */
    unsigned max_share;  /* most LIDs of a pair on one link */
    unsigned lids;       /* most LIDs of a port */
} lmc_paths;

typedef struct lmc_ep {
    uint32_t node, sw;
    unsigned port, lid, n;
} lmc_ep;

#define LMC_HOPS 64

/* The switch-to-switch links (switch << 8 | port) of the route from
   switch s to LID lid of ep; their number, or -1 when it is not delivered. */
static int lmc_walk(uint32_t *links, const ibr_topo *t, const ibr_result *r, uint32_t s,
                    unsigned lid, const lmc_ep *ep)
{
    int n = 0;
    for (uint32_t cur = s; n < LMC_HOPS;) {
        unsigned p = ibr_result_lft_port(r, cur, (uint16_t)lid);
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (p == IBR_NO_ROUTE || p == 0 ||
            ibr_topo_port_info(&pi, t, ibr_topo_switch_node(t, cur), p) < 0 ||
            pi.remote_node == IBR_NONE || pi.state != IBR_LINK_ACTIVE)
            return -1;
        if (pi.remote_node == ep->node && pi.remote_port == ep->port)
            return n;
        uint32_t nx = ibr_topo_node_switch(t, pi.remote_node);
        if (nx == IBR_NONE)
            return -1;
        links[n++] = cur << 8 | p;
        cur = nx;
    }
    return -1;
}

/* The LIDs of one (switch, port) pair: distinct routes and the most LIDs
   on one link. */
static void lmc_pair(lmc_paths *m, const ibr_topo *t, const ibr_result *r, uint32_t s,
                     const lmc_ep *ep, uint32_t (*links)[LMC_HOPS], int *len)
{
    for (unsigned k = 0; k < ep->n; k++)
        if ((len[k] = lmc_walk(links[k], t, r, s, ep->lid + k, ep)) < 0) {
            m->unrouted++;
            return;
        }
    unsigned distinct = 0, share = 1;
    for (unsigned k = 0; k < ep->n; k++) {
        unsigned j = 0;
        while (j < k && (len[j] != len[k] ||
                         memcmp(links[j], links[k], (size_t)len[k] * sizeof **links) != 0))
            j++;
        distinct += j == k;
        for (int h = 0; h < len[k]; h++) {
            unsigned c = 0;
            for (unsigned o = 0; o < ep->n; o++)
                for (int g = 0; g < len[o]; g++)
                    c += links[o][g] == links[k][h];
            share = c > share ? c : share;
        }
    }
    m->pairs++;
    m->distinct += distinct;
    m->share += share;
    m->disjoint += share == 1;
    m->max_share = share > m->max_share ? share : m->max_share;
}

/* 0, or -1 (out of memory) */
static int measure_lmc(lmc_paths *m, const ibr_topo *t, const ibr_result *r)
{
    memset(m, 0, sizeof(*m));
    size_t cap = 0, n = 0;
    for (uint32_t v = 0; v < ibr_topo_node_count(t); v++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if (ibr_topo_node_info(&ni, t, v) == 0 && ni.type != IBR_NODE_SWITCH)
            cap += ni.nports;
    }
    lmc_ep *ep = calloc(cap ? cap : 1, sizeof(*ep));
    uint8_t *src = calloc(ibr_topo_switch_count(t) + 1, 1);
    uint32_t(*links)[LMC_HOPS] = calloc(128, sizeof(*links));
    int *len = calloc(128, sizeof(*len));
    if (!ep || !src || !links || !len) {
        free(ep);
        free(src);
        free(links);
        free(len);
        return -1;
    }
    for (uint32_t v = 0; v < ibr_topo_node_count(t); v++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if (ibr_topo_node_info(&ni, t, v) < 0 || ni.type == IBR_NODE_SWITCH)
            continue;
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_topo_port_info(&pi, t, v, p) < 0 || !pi.lid || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE)
                continue;
            uint32_t sw = ibr_topo_node_switch(t, pi.remote_node);
            if (sw == IBR_NONE)
                continue;
            src[sw] = 1;
            unsigned cnt = 1u << pi.lmc;
            if (cnt > 1 && pi.lid + cnt - 1 <= ibr_topo_max_lid(t))
                ep[n++] = (lmc_ep){v, sw, p, pi.lid, cnt};
        }
    }
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        for (size_t i = 0; i < n && src[s]; i++)
            if (ep[i].sw != s) {
                m->lids = ep[i].n > m->lids ? ep[i].n : m->lids;
                lmc_pair(m, t, r, s, &ep[i], links, len);
            }
    free(ep);
    free(src);
    free(links);
    free(len);
    return 0;
}

static uint64_t switch_guid(const ibr_topo *t, uint32_t sw)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    if (sw == IBR_NONE || ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, sw)) < 0)
        return 0;
    return ni.node_guid;
}

/* "all" or a comma list of pattern names; -1 on error. */
static int parse_patterns(const char *s, unsigned int *out)
{
    static const cli_name_bit names[] = {
        {"all", IBR_PATTERN_ALL},
        {"a2a", IBR_PATTERN_ALL_TO_ALL},
        {"all-to-all", IBR_PATTERN_ALL_TO_ALL},
        {"shift", IBR_PATTERN_SHIFT},
        {"perm", IBR_PATTERN_PERMUTATION},
        {"permutation", IBR_PATTERN_PERMUTATION},
        {"bisect", IBR_PATTERN_BISECTION},
        {"bisection", IBR_PATTERN_BISECTION},
    };
    const char *bad;
    size_t n;
    int rc = cli_parse_name_bits(s, names, sizeof(names) / sizeof(names[0]), out, &bad, &n);
    if (rc == -1)
        cli_error("CL022", "--patterns", "unknown pattern '%.*s' (all, a2a, shift, perm, bisect)",
                  (int)n, bad);
    else if (rc == -2)
        cli_error("CL023", "--patterns", "no pattern given");
    return rc < 0 ? -1 : 0;
}

/* What the command line of `ibr analyze` asks for. */
typedef struct analyze_args {
    const char *src, *dump, *chain, *groups_file, *qos_file, *ranks_file;
    int json, mbal, qos_on, wl_implied;
    unsigned qos_levels;
    cli_topo_args ta;
    ibr_analyze_options opts;
} analyze_args;

enum {
    O_JSON = CLI_OPT_OWN,
    O_PATTERNS,
    O_RANDOM,
    O_SEED,
    O_THREADS,
    O_ALL_LIDS,
    O_GROUPS,
    O_MBAL,
    O_QOS_CONFIG,
    O_QOS_LEVELS,
    O_SL2VL,
    O_PSL
};

/* One option of analyze's own; -1 on a bad value (reported). */
static int analyze_option(void *args, int c, const char *arg)
{
    analyze_args *aa = args;
    uint64_t v;
    int rc;
    switch (c) {
    case 'R': aa->chain = arg; break;
    case O_JSON: aa->json = 1; break;
    case O_SL2VL: cli_sl2vl_path = arg; break;
    case O_PSL: cli_psl_path = arg; break;
    case O_PATTERNS: return parse_patterns(arg, &aa->opts.patterns);
    case O_RANDOM:
        if (cli_opt_uint("--random", arg, 1000000, &v) < 0)
            return -1;
        aa->opts.n_random = (unsigned int)v;
        break;
    case O_SEED:
        if (cli_opt_uint("--seed", arg, UINT64_MAX, &v) < 0)
            return -1;
        aa->opts.seed = v;
        break;
    case O_ALL_LIDS: aa->opts.base_lid_only = 0; break;
    case O_THREADS:
        if (cli_opt_uint("--threads", arg, 1024, &v) < 0)
            return -1;
        aa->opts.threads = (unsigned int)v;
        break;
    case 'q': cli_quiet = 1; break;
    case O_GROUPS: aa->groups_file = arg; break;
    case O_MBAL: aa->mbal = 1; break;
    case 'Q': aa->qos_on = 1; break;
    case O_QOS_CONFIG:
        aa->qos_on = 1;
        aa->qos_file = arg;
        break;
    case O_QOS_LEVELS:
        if (cli_opt_qos_levels(arg, &aa->qos_levels) < 0)
            return -1;
        aa->qos_on = 1;
        break;
    default:
        if ((rc = cli_workload_option(&aa->opts, &aa->ranks_file, &aa->wl_implied, c, arg)) <= 0)
            return rc;
        return cli_shared_option(&aa->ta, NULL, c, arg, usage_analyze) < 0 ? -1 : 0;
    }
    return 0;
}

/* The options and operands; 1 after --help, -1 on an error (reported). */
static int analyze_parse_args(analyze_args *aa, int argc, char **argv)
{
    static const struct option lo[] = {{"routing-engine", required_argument, NULL, 'R'},
                                       {"json", no_argument, NULL, O_JSON},
                                       {"patterns", required_argument, NULL, O_PATTERNS},
                                       {"random", required_argument, NULL, O_RANDOM},
                                       {"seed", required_argument, NULL, O_SEED},
                                       {"all-lids", no_argument, NULL, O_ALL_LIDS},
                                       {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
                                       {"threads", required_argument, NULL, O_THREADS},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"groups", required_argument, NULL, O_GROUPS},
                                       {"mcast-balance", no_argument, NULL, O_MBAL},
                                       {"qos", no_argument, NULL, 'Q'},
                                       {"qos-config", required_argument, NULL, O_QOS_CONFIG},
                                       {"qos-levels", required_argument, NULL, O_QOS_LEVELS},
                                       CLI_WORKLOAD_LONG_OPTIONS,
                                       {"sl2vl", required_argument, NULL, O_SL2VL},
                                       {"path-sl", required_argument, NULL, O_PSL},
        {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    int rc = cli_getopt_each(argc, argv, "R:hqQ", lo, usage_analyze, analyze_option, aa);
    if (rc != 0)
        return rc;
    if (optind + 1 != argc && optind + 2 != argc) {
        cli_error("CL025", "analyze", "expected TOPOLOGY [LFTS_DUMP] (try 'ibr %s --help')",
                  "analyze");
        return -1;
    }
    if (aa->wl_implied && !aa->opts.workloads)
        aa->opts.workloads = IBR_WORKLOAD_ALL;
    aa->src = argv[optind];
    if (optind + 2 == argc)
        aa->dump = argv[optind + 1];
    if (aa->dump && aa->chain) {
        cli_error("CL026", "analyze", "-R and LFTS_DUMP exclude each other");
        return -1;
    }
    if (aa->dump && aa->qos_on) {
        cli_error("CL027", "analyze",
                  "QoS options need the tables computed in memory (no LFTS_DUMP)");
        return -1;
    }
    if (aa->dump && aa->groups_file) {
        cli_error("CL028", "analyze",
                  "--groups needs the tables computed in memory (no LFTS_DUMP)");
        return -1;
    }
    if (aa->mbal && !aa->groups_file) {
        cli_error("CL029", "--mcast-balance", "give the multicast groups with --groups FILE");
        return -1;
    }
    return 0;
}

/* The objects one analysis loads and makes, destroyed together. */
typedef struct analyze_run {
    ibr_context *ctx;
    ibr_topo *t;
    ibr_result *r;
    ibr_qos_config *qos;
    ibr_mcast_groups *groups;
    ibr_rank_order *ranks;
    ibr_analysis *a;
    ibr_buffer out;
} analyze_run;

/* The topology, and the tables: read from a dump or routed in memory
   (with the groups and QoS asked for). The exit status on failure, with
   the error reported; CLI_EXIT_OK when the tables are there. */
static int analyze_tables(analyze_run *ar, const analyze_args *aa)
{
    cli_topo_args ta = aa->ta;
    /* errors of the automatic LID assignment are named after the topology */
    ta.assign_what = aa->src;
    if (cli_load_topo(&ar->t, ar->ctx, aa->src, &ta) < 0)
        return CLI_EXIT_ERROR;
    if (aa->dump)
        return cli_load_lfts(&ar->r, ar->t, aa->dump) < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
    ibr_options ropts = IBR_OPTIONS_INIT;
    if (aa->groups_file) {
        if (cli_load_groups(&ar->groups, ar->t, aa->groups_file) < 0)
            return CLI_EXIT_ERROR;
        ropts.mcast_groups = ar->groups;
        ropts.mcast_flags = aa->mbal ? IBR_MCAST_BALANCE : 0;
    }
    if (aa->qos_on) {
        if (cli_load_qos(&ar->qos, ar->ctx, aa->qos_file, aa->qos_levels) < 0)
            return CLI_EXIT_ERROR;
        ropts.qos = ar->qos;
    }
    int rc = ibr_route(&ar->r, ar->t, aa->chain ? aa->chain : "minhop", &ropts);
    if (rc < 0) {
        cli_lib_error("route",
                      ar->r ? ibr_result_last_error(ar->r) : ibr_context_last_error(ar->ctx), rc);
        return rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
    }
    return CLI_EXIT_OK;
}

/* The multicast figures appended to the report: a JSON member or text
   lines, written at extra + *used. */
static void mcast_extra(char *extra, size_t cap, size_t *used, const analyze_run *ar, int json)
{
    mcast_load m;
    const ibr_topo *t = ar->t;
    const ibr_result *r = ar->r;
    measure_mcast(&m, r);
    if (json)
        *used += (size_t)snprintf(
            extra + *used, cap - *used,
            ", \"mcast\": {\"mlids\": %zu, \"balanced\": %s, \"trees\": \"%s\", "
            "\"links\": %" PRIu64 ", \"links_used\": %" PRIu64 ", \"tree_links\": %" PRIu64
            ", \"max_link_trees\": %" PRIu32 ", \"mean_link_trees\": %.6g"
            ", \"busiest_switch\": \"0x%016" PRIx64 "\", \"busiest_port\": %u}",
            m.mlids, ibr_result_mcast_trees(r) == IBR_MCAST_TREES_BALANCED ? "true" : "false",
            cli_mcast_trees(r, 1), m.links, m.links_used, m.tree_links, m.max,
            m.links ? (double)m.tree_links / (double)m.links : 0.0, switch_guid(t, m.max_sw),
            m.max ? m.max_port : 0);
    else
        *used += (size_t)snprintf(
            extra + *used, cap - *used,
            "multicast:    %zu MLIDs (%s), %" PRIu64 " tree links over %" PRIu64 " of %" PRIu64
            " directed switch links\n"
            "  per link:   max %" PRIu32 " trees (switch 0x%016" PRIx64 " port %u), mean %.2f\n",
            m.mlids, cli_mcast_trees(r, 0), m.tree_links, m.links_used, m.links, m.max,
            switch_guid(t, m.max_sw), m.max ? m.max_port : 0,
            m.links ? (double)m.tree_links / (double)m.links : 0.0);
}

/* The LMC spread appended to the report (--all-lids on ports with LMC > 0):
   a JSON member or text lines at extra + *used. 0, or -1 out of memory. */
static int lmc_extra(char *extra, size_t cap, size_t *used, const analyze_run *ar, int json)
{
    lmc_paths lp;
    if (measure_lmc(&lp, ar->t, ar->r) < 0)
        return -1;
    if (lp.lids <= 1)
        return 0;
    double pairs = lp.pairs ? (double)lp.pairs : 1.0;
    if (json)
        *used += (size_t)snprintf(
            extra + *used, cap - *used,
            ", \"lmc_paths\": {\"lids_per_port\": %u, \"pairs\": %" PRIu64
            ", \"unrouted\": %" PRIu64 ", \"distinct_routes_mean\": %.6g"
            ", \"link_share_mean\": %.6g, \"link_share_max\": %u"
            ", \"disjoint\": %" PRIu64 "}",
            lp.lids, lp.pairs, lp.unrouted, (double)lp.distinct / pairs,
            (double)lp.share / pairs, lp.max_share, lp.disjoint);
    else
        *used += (size_t)snprintf(
            extra + *used, cap - *used,
            "LMC routes:   %" PRIu64 " switch-to-port pairs with up to %u LIDs (%" PRIu64
            " with a LID unrouted): %.2f distinct routes per pair on average;\n"
            "  per pair:   most LIDs on one link %.2f on average, at most %u; "
            "%" PRIu64 " pairs (%.1f %%) link-disjoint\n",
            lp.pairs, lp.lids, lp.unrouted, (double)lp.distinct / pairs,
            (double)lp.share / pairs, lp.max_share, lp.disjoint,
            100.0 * (double)lp.disjoint / pairs);
    return 0;
}

/* The report on stdout, with the multicast figures when groups were
   routed and the LMC spread with --all-lids; -1 on an error (reported). */
static int analyze_print(analyze_run *ar, int json, int all_lids)
{
    char extra[1024] = "";
    size_t used = 0;
    if (ar->groups)
        mcast_extra(extra, sizeof extra, &used, ar, json);
    if (all_lids && lmc_extra(extra, sizeof extra, &used, ar, json) < 0) {
        cli_error("CL011", "analyze", "out of memory");
        return -1;
    }
    size_t keep = ar->out.size;
    if (used && json) {
        /* the members go inside the report's closing brace */
        while (keep && (ar->out.data[keep - 1] == '\n' || ar->out.data[keep - 1] == '}'))
            if (ar->out.data[--keep] == '}')
                break;
        snprintf(extra + used, sizeof extra - used, "}\n");
    }
    if (fwrite(ar->out.data, 1, keep, stdout) != keep || fputs(extra, stdout) == EOF ||
        fflush(stdout) != 0) {
        cli_error("CL030", "stdout", "cannot write: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The rank order of --ranks into aa->opts; -1 on an error (reported). */
static int load_ranks(analyze_run *ar, analyze_args *aa)
{
    return cli_load_ranks(&ar->ranks, &aa->opts, ar->t, aa->ranks_file);
}

int cmd_analyze(int argc, char **argv)
{
    analyze_args aa = {.ta = CLI_TOPO_ARGS_INIT, .opts = IBR_ANALYZE_OPTIONS_INIT};
    int rc = analyze_parse_args(&aa, argc, argv);
    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    analyze_run ar = {.out = IBR_BUFFER_INIT};
    int ret = CLI_EXIT_ERROR;
    if (cli_make_context(&ar.ctx, CLI_LOG_NONE) < 0)
        return CLI_EXIT_ERROR;
    ret = analyze_tables(&ar, &aa);
    if (ret != CLI_EXIT_OK)
        goto out;
    ret = CLI_EXIT_ERROR;
    if (aa.ranks_file && load_ranks(&ar, &aa) < 0)
        goto out;
    rc = ibr_result_analyze(&ar.a, ar.r, &aa.opts);
    if (rc == IBR_EINVAL && aa.opts.workloads & IBR_WORKLOAD_GRID && aa.opts.grid[0]) {
        cli_error("CL032", "--grid", "%ux%ux%u is not the rank count", aa.opts.grid[0],
                  aa.opts.grid[1], aa.opts.grid[2] ? aa.opts.grid[2] : 1);
        goto out;
    }
    if (rc == 0)
        rc = aa.json ? ibr_analysis_write_json(&ar.out, ar.a)
                     : ibr_analysis_write_text(&ar.out, ar.a);
    if (rc < 0) {
        cli_lib_error("analyze", NULL, rc);
        goto out;
    }
    cli_json_printed = aa.json;
    if (analyze_print(&ar, aa.json, !aa.opts.base_lid_only) < 0)
        goto out;
    ibr_analysis_summary sum;
    ibr_analysis_summary_init(&sum, IBR_ANALYSIS_SUMMARY_VERSION);
    ibr_analysis_summary_get(&sum, ar.a);
    ret = sum.pairs_routed == sum.pairs ? CLI_EXIT_OK : CLI_EXIT_INVALID;
out:
    ibr_buffer_dispose(&ar.out);
    ibr_analysis_destroy(ar.a);
    ibr_result_destroy(ar.r);
    ibr_mcast_groups_destroy(ar.groups);
    ibr_rank_order_destroy(ar.ranks);
    ibr_qos_config_destroy(ar.qos);
    ibr_topo_destroy(ar.t);
    ibr_context_destroy(ar.ctx);
    return ret;
}

int cli_parse_patterns(const char *s, unsigned int *out)
{
    return parse_patterns(s, out);
}
