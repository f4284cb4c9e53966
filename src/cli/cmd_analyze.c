/*
 * cmd_analyze.c - `ibr analyze`: measure a routing's quality (path lengths,
 * link load, congestion under traffic patterns, effective bisection
 * bandwidth, VL usage) with ibr_result_analyze().
 *
 *   ibr analyze TOPOLOGY [LFTS_DUMP] [-R CHAIN] [--json]
 *               [--patterns all|a2a,shift,perm,bisect] [--random N] [--seed N]
 *               [--guid2lid FILE] [--threads N] [-Q] [--qos-config FILE]
 *               [--qos-levels N]
 *
 * Without LFTS_DUMP the topology is routed in memory with CHAIN (default
 * minhop). Uses the public API only.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

void usage_analyze(FILE *o)
{
    fputs("usage: ibr analyze TOPOLOGY [LFTS_DUMP] [-R CHAIN] [--json] [options]\n"
          "\n"
          "Measure a routing: hop counts and stretch, link load over all pairs (the edge\n"
          "forwarding index), congestion and effective bisection bandwidth under traffic\n"
          "patterns, and VL usage. The routing is read from LFTS_DUMP (opensm-lfts.dump or\n"
          "ibroute's dump_lfts format) or, without it, computed in memory with CHAIN.\n"
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
          "                              LMC LIDs (default: base LIDs only)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
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

static void measure_mcast(mcast_load *m, const ibr_topo *t, const ibr_result *r)
{
    uint32_t load[256];
    size_t n;
    memset(m, 0, sizeof(*m));
    m->mlids = ibr_result_mcast_count(r);
    m->max = cli_mcast_busiest(r, &m->max_sw, &m->max_port);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        if (ibr_result_mcast_port_load(load, 256, &n, r, s) < 0)
            continue;
        uint32_t node = ibr_topo_switch_node(t, s);
        for (unsigned p = 1; p < n; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE || ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                continue;
            m->links++;
            m->tree_links += load[p];
            if (load[p])
                m->links_used++;
        }
    }
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
    static const struct {
        const char *name;
        unsigned int bit;
    } names[] = {
        {"all", IBR_PATTERN_ALL},
        {"a2a", IBR_PATTERN_ALL_TO_ALL},
        {"all-to-all", IBR_PATTERN_ALL_TO_ALL},
        {"shift", IBR_PATTERN_SHIFT},
        {"perm", IBR_PATTERN_PERMUTATION},
        {"permutation", IBR_PATTERN_PERMUTATION},
        {"bisect", IBR_PATTERN_BISECTION},
        {"bisection", IBR_PATTERN_BISECTION},
    };
    unsigned int bits = 0;

    while (*s) {
        size_t n = strcspn(s, ","), i;

        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i].name) == n && strncmp(names[i].name, s, n) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0])) {
            cli_error("--patterns", "unknown pattern '%.*s' (all, a2a, shift, perm, bisect)",
                      (int)n, s);
            return -1;
        }
        bits |= names[i].bit;
        s += n;
        if (*s == ',')
            s++;
    }
    if (!bits) {
        cli_error("--patterns", "no pattern given");
        return -1;
    }
    *out = bits;
    return 0;
}

/* What the command line of `ibr analyze` asks for. */
typedef struct analyze_args {
    const char *src, *dump, *chain, *groups_file, *qos_file;
    int json, mbal, qos_on;
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
    O_QOS_LEVELS
};

/* One option of analyze's own; -1 on a bad value (reported). */
static int analyze_option(analyze_args *aa, int c, const char *arg)
{
    uint64_t v;
    switch (c) {
    case 'R': aa->chain = arg; break;
    case O_JSON: aa->json = 1; break;
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
        {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "R:hqQ", lo, NULL)) != -1) {
        if (c == 'h') {
            usage_analyze(stdout);
            return 1;
        }
        if (analyze_option(aa, c, optarg) < 0)
            return -1;
    }
    if (optind + 1 != argc && optind + 2 != argc) {
        cli_error("analyze", "expected TOPOLOGY [LFTS_DUMP] (try 'ibr analyze --help')");
        return -1;
    }
    aa->src = argv[optind];
    if (optind + 2 == argc)
        aa->dump = argv[optind + 1];
    if (aa->dump && aa->chain) {
        cli_error("analyze", "-R and LFTS_DUMP exclude each other");
        return -1;
    }
    if (aa->dump && aa->qos_on) {
        cli_error("analyze", "QoS options need the tables computed in memory (no LFTS_DUMP)");
        return -1;
    }
    if (aa->dump && aa->groups_file) {
        cli_error("analyze", "--groups needs the tables computed in memory (no LFTS_DUMP)");
        return -1;
    }
    if (aa->mbal && !aa->groups_file) {
        cli_error("--mcast-balance", "give the multicast groups with --groups FILE");
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

/* The multicast figures appended to the report: a JSON member (the
   report's closing brace cut off *keep) or text lines. */
static void mcast_extra(char *extra, size_t cap, size_t *keep, const analyze_run *ar, int json)
{
    mcast_load m;
    const ibr_topo *t = ar->t;
    const ibr_result *r = ar->r;
    const ibr_buffer *out = &ar->out;
    measure_mcast(&m, t, r);
    *keep = out->size;
    if (json) {
        size_t k = *keep;
        while (k && (out->data[k - 1] == '\n' || out->data[k - 1] == '}'))
            if (out->data[--k] == '}')
                break;
        *keep = k;
        snprintf(extra, cap,
                 ", \"mcast\": {\"mlids\": %zu, \"balanced\": %s, \"trees\": \"%s\", "
                 "\"links\": %" PRIu64
                 ", \"links_used\": %" PRIu64 ", \"tree_links\": %" PRIu64
                 ", \"max_link_trees\": %" PRIu32 ", \"mean_link_trees\": %.6g"
                 ", \"busiest_switch\": \"0x%016" PRIx64 "\", \"busiest_port\": %u}}\n",
                 m.mlids,
                 ibr_result_mcast_trees(r) == IBR_MCAST_TREES_BALANCED ? "true" : "false",
                 cli_mcast_trees(r, 1), m.links, m.links_used, m.tree_links, m.max,
                 m.links ? (double)m.tree_links / (double)m.links : 0.0,
                 switch_guid(t, m.max_sw), m.max ? m.max_port : 0);
    } else {
        snprintf(extra, cap,
                 "multicast:    %zu MLIDs (%s), %" PRIu64 " tree links over %" PRIu64
                 " of %" PRIu64 " directed switch links\n"
                 "  per link:   max %" PRIu32 " trees (switch 0x%016" PRIx64
                 " port %u), mean %.2f\n",
                 m.mlids, cli_mcast_trees(r, 0), m.tree_links, m.links_used,
                 m.links, m.max, switch_guid(t, m.max_sw), m.max ? m.max_port : 0,
                 m.links ? (double)m.tree_links / (double)m.links : 0.0);
    }
}

/* The report on stdout, with the multicast figures when groups were
   routed; -1 on a write error (reported). */
static int analyze_print(analyze_run *ar, int json)
{
    if (ar->groups) {
        char extra[512];
        size_t keep;
        mcast_extra(extra, sizeof extra, &keep, ar, json);
        ar->out.size = keep;
        if (fwrite(ar->out.data, 1, ar->out.size, stdout) != ar->out.size ||
            fputs(extra, stdout) == EOF || fflush(stdout) != 0) {
            cli_error("stdout", "%s", strerror(errno));
            return -1;
        }
    } else if (fwrite(ar->out.data, 1, ar->out.size, stdout) != ar->out.size ||
               fflush(stdout) != 0) {
        cli_error("stdout", "%s", strerror(errno));
        return -1;
    }
    return 0;
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
    rc = ibr_result_analyze(&ar.a, ar.r, &aa.opts);
    if (rc == 0)
        rc = aa.json ? ibr_analysis_write_json(&ar.out, ar.a)
                     : ibr_analysis_write_text(&ar.out, ar.a);
    if (rc < 0) {
        cli_lib_error("analyze", NULL, rc);
        goto out;
    }
    cli_json_printed = aa.json;
    if (analyze_print(&ar, aa.json) < 0)
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
    ibr_qos_config_destroy(ar.qos);
    ibr_topo_destroy(ar.t);
    ibr_context_destroy(ar.ctx);
    return ret;
}
