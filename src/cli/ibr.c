/*
 * ibr.c - the ibroute command-line tool: the command dispatch and the small
 * subcommands (gen, info, engines). route, verify, trace and analyze live in
 * cmd_<name>.c; what they share (topology loading, options) in cli_load.c.
 *
 *   ibr gen SPEC [-o FILE] [--faults LINKS[,SWITCHES]] [--seed N] [--lmc N]
 *   ibr route [-R CHAIN] [options] TOPOLOGY [-o DIR]
 *   ibr verify [--guid2lid FILE] [--json] TOPOLOGY LFTS_DUMP
 *   ibr trace TOPOLOGY [LFTS_DUMP | -R CHAIN] --from SRC --to DST [--json]
 *   ibr analyze TOPOLOGY [LFTS_DUMP] [-R CHAIN] [--json]
 *   ibr info [--json] TOPOLOGY
 *   ibr engines [--json]
 *
 * TOPOLOGY is an ibnetdiscover dump or ibsim netfile, or gen:SPEC for a
 * fabric generated in memory. Exit codes: 0 ok, 1 routing invalid or fabric
 * unroutable, 2 usage or input error. Uses the public API only.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* ibr engines */

static void caps_text(char *buf, size_t len, unsigned int caps)
{
    static const struct {
        unsigned int bit;
        const char *name;
    } names[] = {
        {IBR_CAP_LMC, "lmc"},           {IBR_CAP_NEEDS_VLS, "needs-vls"},
        {IBR_CAP_SL, "sl"},             {IBR_CAP_SL2VL, "sl2vl"},
        {IBR_CAP_MCAST, "mcast"},       {IBR_CAP_DEADLOCK_FREE, "deadlock-free"},
        {IBR_CAP_MINIMAL, "minimal"},   {IBR_CAP_EXPERIMENTAL, "experimental"},
        {IBR_CAP_OWN_SL2VL, "own-sl2vl"},
    };
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int n;

        if (!(caps & names[i].bit))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    if (!used)
        snprintf(buf, len, "-");
}

/* "bool, default 0", "int 0..255, default 0", "string, default \"\"" */
static void setting_text(char *buf, size_t len, const ibr_setting *st)
{
    switch (st->type) {
    case IBR_SETTING_BOOL:
        snprintf(buf, len, "bool, default %d", (int)st->def);
        break;
    case IBR_SETTING_INT:
        snprintf(buf, len, "int %" PRId64 "..%" PRId64 ", default %" PRId64, st->min, st->max,
                 st->def);
        break;
    default:
        snprintf(buf, len, "text%s", st->def_str && *st->def_str ? ", has a default" : "");
        break;
    }
}

static void usage_engines(FILE *o)
{
    fputs("usage: ibr engines [--json]\n"
          "\n"
          "List the routing engines the library provides, with their capabilities:\n"
          "  lmc            routes several LIDs per port (LMC > 0)\n"
          "  needs-vls      needs more than one virtual lane\n"
          "  sl, sl2vl      produces path SLs / SL-to-VL tables\n"
          "  mcast          builds its own multicast trees\n"
          "  deadlock-free  promises credit-loop freedom\n"
          "  minimal        promises shortest paths\n"
          "  experimental   output or interface may change\n"
          "\n"
          "Below each engine, the settings it takes (`ibr route --param\n"
          "ENGINE.SETTING=VALUE`): type, range, default and a line of help.\n",
          o);
}

static int cmd_engines(int argc, char **argv)
{
    static const struct option lo[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    size_t i, n;

    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'h': usage_engines(stdout); return CLI_EXIT_OK;
        default: cli_bad_option(); return CLI_EXIT_ERROR;
        }
    }
    if (optind != argc) {
        cli_error("CL080", "engines", "unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_ERROR;
    }
    n = ibr_context_engine_count(NULL);
    /* the capability column as wide as its longest entry */
    int name_w = 12, caps_w = 13;
    for (i = 0; i < n && !json; i++) {
        ibr_engine_info e;
        char caps[160];
        if (ibr_context_engine(&e, NULL, i) < 0)
            continue;
        caps_text(caps, sizeof(caps), e.caps);
        if ((int)strlen(e.name) > name_w)
            name_w = (int)strlen(e.name);
        if ((int)strlen(caps) > caps_w)
            caps_w = (int)strlen(caps);
    }
    if (json) {
        cli_json_printed = 1;
        fputs("[", stdout);
    }
    for (i = 0; i < n; i++) {
        ibr_engine_info e;
        char caps[160];

        if (ibr_context_engine(&e, NULL, i) < 0)
            continue;
        caps_text(caps, sizeof(caps), e.caps);
        if (json) {
            fputs(i ? ",\n {\"name\": " : "\n {\"name\": ", stdout);
            cli_json_string(stdout, e.name);
            fputs(", \"description\": ", stdout);
            cli_json_string(stdout, e.description);
            fprintf(stdout, ", \"caps\": %u, \"caps_text\": ", e.caps);
            cli_json_string(stdout, caps);
            fprintf(stdout, ", \"builtin\": %s, \"settings\": [", e.builtin ? "true" : "false");
            for (size_t k = 0; k < e.n_settings; k++) {
                const ibr_setting *st = &e.settings[k];
                static const char *const types[] = {"", "bool", "int", "string"};
                fputs(k ? ", {\"name\": " : "{\"name\": ", stdout);
                cli_json_string(stdout, st->name);
                fprintf(stdout, ", \"type\": \"%s\"", st->type <= 3 ? types[st->type] : "");
                if (st->type == IBR_SETTING_STRING) {
                    fputs(", \"default\": ", stdout);
                    cli_json_string(stdout, st->def_str ? st->def_str : "");
                } else {
                    fprintf(stdout, ", \"min\": %" PRId64 ", \"max\": %" PRId64
                                    ", \"default\": %" PRId64,
                            st->min, st->max, st->def);
                }
                fputs(", \"help\": ", stdout);
                cli_json_string(stdout, st->help ? st->help : "");
                fputs("}", stdout);
            }
            fputs("]}", stdout);
        } else {
            printf("%-*s %-*s  %s\n", name_w, e.name, caps_w, caps, e.description ? e.description : "");
            for (size_t k = 0; k < e.n_settings; k++) {
                char ty[96], full[160];
                setting_text(ty, sizeof ty, &e.settings[k]);
                snprintf(full, sizeof full, "%s.%s", e.name, e.settings[k].name);
                printf("  %-30s %-26s %s\n", full, ty,
                       e.settings[k].help ? e.settings[k].help : "");
            }
        }
    }
    if (json)
        fputs("\n]\n", stdout);
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* ibr gen */

static void usage_gen(FILE *o)
{
    fputs("usage: ibr gen SPEC [-o FILE] [--faults LINKS[,SWITCHES]] [--seed N] [--remove-down]\n"
          "               [--lmc N]\n"
          "\n"
          "Generate a fabric and write it as ibnetdiscover text (readable by ibsim\n"
          "and by `ibr route`) to FILE or standard output.\n"
          "\n"
          "SPEC (a leading \"gen:\" is accepted):\n"
          "  fattree:levels=3,radix=36[,hosts=N]     k-ary fat tree\n"
          "  xgft:h=3,m=18.18.36,w=1.18.18[,hosts=N] extended generalised fat tree\n"
          "  torus:dims=4x4x4,hosts=2[,parallel=2]   torus\n"
          "  mesh:dims=8x8,hosts=1                   mesh\n"
          "  hypercube:dim=6,hosts=2                 hypercube\n"
          "  dragonfly:a=4,p=2,h=2,g=9               dragonfly\n"
          "  dfplus:groups=8,leaves=4,spines=4,hosts=4[,global=K]\n"
          "                                          Dragonfly+: per group leaves x spines\n"
          "                                          complete bipartite, K global cables per\n"
          "                                          spine (default: the fewest joining every\n"
          "                                          pair of groups), dealt round robin\n"
          "  hyperx:dims=8x8,hosts=4                 HyperX: each switch cabled to every\n"
          "                                          switch differing in one coordinate\n"
          "  slimfly:q=5,hosts=2                     Slim Fly (MMS graph, 2q^2 switches of\n"
          "                                          degree (3q-d)/2, diameter 2) for an odd\n"
          "                                          prime q = 4w+d up to 61\n"
          "  random:switches=64,degree=4,hosts=2,seed=1\n"
          "  rail:nodes=2048[,rails=8,su=32,radix=64,levels=3,byleaf=1]\n"
          "                                          rail-optimized fat tree: nodes of\n"
          "                                          `rails` HCAs (\"node0012 mlx5_3\"), HCA r\n"
          "                                          of each node of a scalable unit of su\n"
          "                                          nodes on leaf r of the unit; hosts\n"
          "                                          numbered node by node (byleaf=1: leaf\n"
          "                                          by leaf); su defaults to radix/2,\n"
          "                                          levels (2 or 3) to the fewest that fit\n"
          "Every family also takes vls=N (1, 2, 4, 8 or 15): the data VLs of every\n"
          "port (VLCap; default 8; written as v= on port lines unless 8).\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE        write to FILE instead of standard output\n"
          "  --faults L[,S]           mark L random switch links and S random switches down\n"
          "  --seed N                 seed of the fault choice (default 1)\n"
          "  --remove-down            drop down links instead of writing them marked\n"
          "                           \"(down)\" (ibsim has no notion of a down cable)\n"
          "  --lmc N                  reassign all LIDs with LMC N (0..7)\n",
          o);
}

/* Remove every down link (both ends), as a discovery would not see it. */
static int remove_down_links(ibr_fabric *f)
{
    uint32_t n = ibr_fabric_node_count(f), i;

    for (i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        unsigned int p;

        if (ibr_fabric_node_info(&ni, f, i) < 0)
            continue;
        for (p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            int rc;

            if (ibr_fabric_port_info(&pi, f, i, p) < 0 || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_DOWN)
                continue;
            if ((rc = ibr_fabric_remove_link(f, i, p)) < 0) {
                cli_lib_error("--remove-down", ibr_fabric_last_error(f), rc);
                return -1;
            }
        }
    }
    return 0;
}

static int cmd_gen(int argc, char **argv)
{
    enum { O_FAULTS = CLI_OPT_OWN, O_SEED, O_REMOVE_DOWN };
    static const struct option lo[] = {{"output", required_argument, NULL, 'o'},
                                       {"remove-down", no_argument, NULL, O_REMOVE_DOWN},
                                       {"faults", required_argument, NULL, O_FAULTS},
                                       {"seed", required_argument, NULL, O_SEED},
                                       {"lmc", required_argument, NULL, CLI_OPT_LMC},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    const char *out_path = "-", *spec;
    uint64_t seed = 1, links = 0, switches = 0;
    int c, faults = 0, remove_down = 0, ret = CLI_EXIT_ERROR, rc;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT; /* only --lmc */
    ibr_context *ctx = NULL;
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    ibr_buffer b = IBR_BUFFER_INIT;

    while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case O_FAULTS: {
            char *comma = strchr(optarg, ',');

            if (comma)
                *comma = '\0';
            if (cli_opt_uint("--faults", optarg, UINT32_MAX, &links) < 0 ||
                (comma && cli_opt_uint("--faults", comma + 1, UINT32_MAX, &switches) < 0))
                return CLI_EXIT_ERROR;
            faults = 1;
            break;
        }
        case O_SEED:
            if (cli_opt_uint("--seed", optarg, UINT64_MAX, &seed) < 0)
                return CLI_EXIT_ERROR;
            break;
        case O_REMOVE_DOWN: remove_down = 1; break;
        case 'h': usage_gen(stdout); return CLI_EXIT_OK;
        default:
            if (cli_shared_option(&ta, NULL, c, optarg, usage_gen) < 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (optind + 1 != argc) {
        if (optind >= argc)
            cli_error("CL081", "gen", "missing SPEC (try 'ibr gen --help')");
        else
            cli_error("CL080", "gen", "unexpected argument '%s'", argv[optind + 1]);
        return CLI_EXIT_ERROR;
    }
    spec = argv[optind];
    if (cli_gen_spec(spec))
        spec = cli_gen_spec(spec);
    if (cli_make_context(&ctx, IBR_LOG_WARN) < 0)
        return CLI_EXIT_ERROR;
    if ((rc = ibr_fabric_create(&f, ctx)) < 0) {
        cli_lib_error("gen", NULL, rc);
        goto out;
    }
    if ((rc = ibr_fabric_generate(f, spec)) < 0) {
        cli_lib_error(spec, ibr_fabric_last_error(f), rc);
        goto out;
    }
    if (faults && (rc = ibr_fabric_inject_faults(f, (unsigned int)links,
                                                 (unsigned int)switches, seed)) < 0) {
        cli_lib_error("--faults", ibr_fabric_last_error(f), rc);
        goto out;
    }
    if (remove_down && remove_down_links(f) < 0)
        goto out;
    /* --lmc reassigns every LID: none is left for cli_apply_lids() to add */
    if (ta.lmc >= 0 && cli_apply_lids(f, &ta) < 0)
        goto out;
    if (cli_freeze(&t, f, spec) < 0)
        goto out;
    if ((rc = ibr_topo_write_ibnetdiscover(&b, t)) < 0) {
        cli_lib_error("writing ibnetdiscover text", NULL, rc);
        goto out;
    }
    if ((rc = cli_write_file(out_path, b.data ? b.data : "", b.size)) != 0) {
        cli_error("CL030", strcmp(out_path, "-") ? out_path : "stdout", "cannot write: %s",
                  strerror(rc));
        goto out;
    }
    ret = CLI_EXIT_OK;
out:
    ibr_buffer_dispose(&b);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* ibr info */

static void usage_info(FILE *o)
{
    fputs("usage: ibr info [--json] [--guid2lid FILE] [--lmc N] TOPOLOGY\n"
          "\n"
          "Describe a topology (an ibnetdiscover/ibsim file or gen:SPEC): nodes,\n"
          "switches, CAs, links (down ones too), LIDs, the data VLs of the switch\n"
          "ports, throttled cables and the engines available.\n"
          "LIDs are shown as the file gives them unless --guid2lid or --lmc is given.\n",
          o);
}

typedef struct fabric_stats {
    uint32_t nodes, switches, cas, routers;
    uint64_t ports, cabled_ports;
    uint64_t links, links_down, sw_links, sw_links_down, loopbacks;
    uint64_t lid_ports, lids, missing_lids;
    unsigned int max_lmc;
    uint32_t max_lid;
    unsigned int data_vls;  /* smallest OperVLs of a switch port with an
                               active cable (what dfsssp, Nue, LASH count) */
    uint64_t throttled;     /* active switch-switch cables running below the
                               width or speed both ends enable */
} fabric_stats;

static void compute_stats(fabric_stats *s, const ibr_fabric *f, const ibr_topo *t)
{
    uint32_t n = ibr_fabric_node_count(f), i;

    memset(s, 0, sizeof(*s));
    s->nodes = n;
    s->data_vls = ibr_topo_data_vls(t);
    for (i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        unsigned int p;

        if (ibr_fabric_node_info(&ni, f, i) < 0)
            continue;
        if (ni.type == IBR_NODE_SWITCH)
            s->switches++;
        else if (ni.type == IBR_NODE_CA)
            s->cas++;
        else
            s->routers++;
        s->ports += ni.nports;
        for (p = ni.type == IBR_NODE_SWITCH ? 0 : 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            int has_lid_port = (ni.type == IBR_NODE_SWITCH) ? (p == 0) : 1;

            if (ibr_fabric_port_info(&pi, f, i, p) < 0)
                continue;
            if (p > 0 && pi.remote_node != IBR_NONE) {
                ibr_node_info rn = IBR_NODE_INFO_INIT;
                int sw_sw = 0;

                s->cabled_ports++;
                /* count each cable once, from its lower (node, port) end */
                if (pi.remote_node > i || (pi.remote_node == i && pi.remote_port > p)) {
                    if (ibr_fabric_node_info(&rn, f, pi.remote_node) == 0)
                        sw_sw = ni.type == IBR_NODE_SWITCH && rn.type == IBR_NODE_SWITCH;
                    if (pi.remote_node == i)
                        s->loopbacks++;
                    s->links++;
                    if (pi.state == IBR_LINK_DOWN)
                        s->links_down++;
                    if (sw_sw) {
                        s->sw_links++;
                        if (pi.state == IBR_LINK_DOWN)
                            s->sw_links_down++;
                        else if (ibr_topo_link_throttled(t, i, p))
                            s->throttled++;
                    }
                }
            }
            if (!has_lid_port)
                continue;
            if (pi.lid) {
                uint32_t top = (uint32_t)pi.lid + (1u << pi.lmc) - 1;

                s->lid_ports++;
                s->lids += 1u << pi.lmc;
                if (pi.lmc > s->max_lmc)
                    s->max_lmc = pi.lmc;
                if (top > s->max_lid)
                    s->max_lid = top;
            } else if (ni.type == IBR_NODE_SWITCH || pi.remote_node != IBR_NONE) {
                s->missing_lids++;
            }
        }
    }
}

static int cmd_info(int argc, char **argv)
{
    enum { O_JSON = CLI_OPT_OWN };
    static const struct option lo[] = {{"json", no_argument, NULL, O_JSON},
                                       {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
                                       {"lmc", required_argument, NULL, CLI_OPT_LMC},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    const char *src;
    int json = 0, c, ret = CLI_EXIT_ERROR;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    ibr_context *ctx = NULL;
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    fabric_stats s;
    size_t i, ne;

    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_JSON: json = 1; break;
        case 'h': usage_info(stdout); return CLI_EXIT_OK;
        default:
            if (cli_shared_option(&ta, NULL, c, optarg, usage_info) < 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (optind + 1 != argc) {
        if (optind >= argc)
            cli_error("CL036", "info", "missing TOPOLOGY (try 'ibr %s --help')", "info");
        else
            cli_error("CL037", "info", "too many arguments");
        return CLI_EXIT_ERROR;
    }
    src = argv[optind];
    /* freezing warns about ports without LIDs: info reports them instead */
    if (cli_make_context(&ctx, IBR_LOG_ERROR) < 0)
        return CLI_EXIT_ERROR;
    if (cli_load_fabric(&f, ctx, src) < 0)
        goto out;
    if ((ta.guid2lid || ta.lmc >= 0) && cli_apply_lids(f, &ta) < 0)
        goto out;
    if (cli_freeze(&t, f, src) < 0)
        goto out;
    compute_stats(&s, f, t);
    ne = ibr_context_engine_count(ctx);
    if (json) {
        cli_json_printed = 1;
        printf("{\"topology\": ");
        cli_json_string(stdout, src);
        printf(", \"nodes\": %" PRIu32 ", \"switches\": %" PRIu32 ", \"cas\": %" PRIu32
               ", \"routers\": %" PRIu32 ", \"endports\": %" PRIu32,
               s.nodes, s.switches, s.cas, s.routers, ibr_topo_endport_count(t));
        printf(", \"links\": %" PRIu64 ", \"links_down\": %" PRIu64
               ", \"switch_links\": %" PRIu64 ", \"switch_links_down\": %" PRIu64
               ", \"loopback_links\": %" PRIu64,
               s.links, s.links_down, s.sw_links, s.sw_links_down, s.loopbacks);
        printf(", \"lid_ports\": %" PRIu64 ", \"lids\": %" PRIu64
               ", \"ports_without_lid\": %" PRIu64 ", \"max_lmc\": %u, \"max_lid\": %u",
               s.lid_ports, s.lids, s.missing_lids, s.max_lmc, (unsigned)ibr_topo_max_lid(t));
        printf(", \"data_vls\": %u, \"throttled_switch_links\": %" PRIu64, s.data_vls,
               s.throttled);
        printf(", \"engines\": [");
        for (i = 0; i < ne; i++) {
            ibr_engine_info e;

            if (ibr_context_engine(&e, ctx, i) == 0) {
                if (i)
                    fputs(", ", stdout);
                cli_json_string(stdout, e.name);
            }
        }
        printf("]}\n");
    } else {
        printf("topology:     %s\n", src);
        printf("nodes:        %" PRIu32 " (%" PRIu32 " switches, %" PRIu32 " CAs, %" PRIu32
               " routers)\n", s.nodes, s.switches, s.cas, s.routers);
        printf("end ports:    %" PRIu32 " routable (CA/router ports with a LID and a cable)\n",
               ibr_topo_endport_count(t));
        printf("links:        %" PRIu64 " (%" PRIu64 " down); switch-switch %" PRIu64
               " (%" PRIu64 " down)", s.links, s.links_down, s.sw_links, s.sw_links_down);
        if (s.loopbacks)
            printf("; %" PRIu64 " loopback", s.loopbacks);
        printf("\n");
        printf("LIDs:         %" PRIu64 " ports hold %" PRIu64 " LIDs (max LMC %u)",
               s.lid_ports, s.lids, s.max_lmc);
        if (s.missing_lids)
            printf("; %" PRIu64 " without a LID", s.missing_lids);
        printf("\n");
        printf("max LID:      %u\n", (unsigned)ibr_topo_max_lid(t));
        printf("data VLs:     %u (smallest OperVLs of a cabled switch port)\n", s.data_vls);
        if (s.throttled)
            printf("throttled:    %" PRIu64 " switch-switch cable(s) below the width or speed "
                   "both ends enable\n", s.throttled);
        printf("engines:     ");
        for (i = 0; i < ne; i++) {
            ibr_engine_info e;

            if (ibr_context_engine(&e, ctx, i) == 0)
                printf(" %s", e.name);
        }
        printf("\n");
    }
    ret = CLI_EXIT_OK;
out:
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* main */

static void usage(FILE *o)
{
    fputs("usage: ibr [--version] [--help] COMMAND [ARGS]\n"
          "\n"
          "InfiniBand routing with the ibroute library (OpenSM's engines as a library).\n"
          "\n"
          "Commands:\n"
          "  gen SPEC [-o FILE]            generate a fabric as ibnetdiscover text\n"
          "  route -R CHAIN TOPO [-o DIR]  route, verify and write OpenSM-style dumps\n"
          "  reroute DB TOPO [-o DIR]      reroute a changed fabric from a saved routing\n"
          "  verify TOPO LFTS_DUMP         check forwarding tables against a topology\n"
          "  trace TOPO --from S --to D    follow one route hop by hop (ports, VLs, SL)\n"
          "  analyze TOPO [LFTS_DUMP]      measure a routing: hops, load, congestion, VLs\n"
          "  sweep TOPO -R ENGINE          eBB lost to each more cable or switch fault\n"
          "  report TOPO -o FILE.html      one HTML page: verdict, patterns, load, faults\n"
          "  order -R ENGINE TOPO          end ports in ftree's or dmodc's destination order\n"
          "                                (MPI/NCCL rank order, hostfile)\n"
          "  export FORMAT TOPO [LFTS]     the routing for CODES, SST, Slurm\n"
          "  info TOPO                     describe a topology\n"
          "  engines                       list the routing engines\n"
          "  help COMMAND                  help on a command\n"
          "\n"
          "TOPO is an ibnetdiscover dump, an ibsim netfile, or gen:SPEC (see 'ibr gen\n"
          "--help'). Exit status: 0 ok, 1 invalid routing or unroutable fabric,\n"
          "2 usage or input error.\n",
          o);
}

static void version(void)
{
    printf("ibr (ibroute) %s\n", IBR_VERSION_STRING);
    if (ibr_version() != IBR_VERSION_NUMBER)
        printf("library %s\n", ibr_version_string());
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *o);
} command;

static const command commands[] = {
    {"gen", cmd_gen, usage_gen},
    {"route", cmd_route, usage_route},
    {"reroute", cmd_reroute, usage_reroute},
    {"verify", cmd_verify, usage_verify},
    {"info", cmd_info, usage_info},
    {"engines", cmd_engines, usage_engines},
    {"trace", cmd_trace, usage_trace},
    {"analyze", cmd_analyze, usage_analyze},
    {"order", cmd_order, usage_order},
    {"export", cmd_export, usage_export},
    {"sweep", cmd_sweep, usage_sweep},
    {"report", cmd_report, usage_report},
};

static const command *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int run_command(int argc, char **argv);

/* A write error on standard output (a full disk, /dev/full) fails the
   command: the output is lost, whatever the command's verdict. */
static int check_stdout(int rc)
{
    int err = 0;

    errno = 0;
    if (fflush(stdout) != 0)
        err = errno ? errno : EIO;
    if (ferror(stdout) && !err)
        err = cli_stdout_errno ? cli_stdout_errno : -1;
    errno = 0;
    if (fclose(stdout) != 0 && !err)
        err = errno ? errno : EIO;
    if (!err)
        return rc;
    if (rc == CLI_EXIT_ERROR && !strncmp(cli_first_error, "stdout:", 7))
        return rc; /* the command said so already */
    if (err > 0)
        cli_error("CL082", "stdout", "write error: %s: the output is lost", strerror(err));
    else
        cli_error("CL083", "stdout", "write error: the output is lost");
    return CLI_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    cli_install_cleanup();
    return check_stdout(run_command(argc, argv));
}

static int run_command(int argc, char **argv)
{
    const command *cmd;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_ERROR;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        version();
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0 ||
            strcmp(argv[2], "help") == 0) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        cmd = find_command(argv[2]);
        if (!cmd) {
            cli_error("CL084", "help", "unknown command '%s'", argv[2]);
            return CLI_EXIT_ERROR;
        }
        cmd->usage(stdout);
        return CLI_EXIT_OK;
    }
    cmd = find_command(argv[1]);
    if (!cmd) {
        cli_error("CL085", argv[1], "unknown command (try 'ibr --help')");
        return CLI_EXIT_ERROR;
    }
    /* options of the subcommand: argv[1] plays the program name; getopt's
       own messages are replaced by cli_bad_option()'s */
    optind = 1;
    opterr = 0;
    cli_cmd_name = cmd->name;
    cli_cmd_argv = argv + 1;
    int want_json = 0;
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
        want_json |= strcmp(argv[i], "--json") == 0;
    int rc = cmd->run(argc - 1, argv + 1);
    if (rc == CLI_EXIT_ERROR && want_json && !cli_json_printed) {
        /* scripts parsing stdout get an answer even when the command failed
           before printing its document */
        fputs("{\"error\": ", stdout);
        cli_json_string(stdout, cli_first_error[0] ? cli_first_error : "failed");
        printf(", \"exit_status\": %d}\n", CLI_EXIT_ERROR);
    }
    return rc;
}
