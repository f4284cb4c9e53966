/*
 * ibr.c - the ibroute command-line tool.
 *
 *   ibr gen SPEC [-o FILE] [--faults LINKS[,SWITCHES]] [--seed N] [--lmc N]
 *   ibr route [-R CHAIN] [options] TOPOLOGY [-o DIR]
 *   ibr verify [--guid2lid FILE] [--json] TOPOLOGY LFTS_DUMP
 *   ibr trace TOPOLOGY [LFTS_DUMP | -R CHAIN] --from SRC --to DST [--json]
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Verify report output */

static void print_report_text(FILE *o, const ibr_verify_report *v, int rc)
{
    fprintf(o, "verify:       %s\n",
            rc == 0 ? "valid" : rc == IBR_EROUTES ? "INVALID" : ibr_strerror(rc));
    if (rc != 0 && rc != IBR_EROUTES)
        return;
    fprintf(o, "  routes:     %" PRIu64 " checked, %" PRIu64 " ok", v->routes_checked,
            v->routes_ok);
#define SHOW(field)                                                     \
    if (v->field)                                                       \
        fprintf(o, ", %" PRIu64 " " #field, v->field);
    SHOW(missing)
    SHOW(loops)
    SHOW(bad_port)
    SHOW(down_link)
    SHOW(dead_end)
    SHOW(unreachable)
    SHOW(spurious)
    SHOW(nonminimal)
#undef SHOW
    fputc('\n', o);
    if (v->restricted)
        fprintf(o, "  restricted: %" PRIu64 " (switch, LID) pairs the engine's rules leave "
                   "unrouted (not errors)\n", v->restricted);
    fprintf(o, "  pairs:      %" PRIu64 " (%" PRIu64 " ok)\n", v->pairs, v->pairs_ok);
    fprintf(o, "  hops:       avg %.3f, max %u (stretch avg %.3f, max %.3f)\n", v->avg_hops,
            v->max_hops, v->avg_stretch, v->max_stretch);
    fprintf(o, "  link load:  max %" PRIu64 ", mean %.2f over %" PRIu64 " links\n",
            v->max_link_load, v->mean_link_load, v->links);
    if (v->deadlock_free > 0)
        fprintf(o, "  deadlock:   free (no credit loop)\n");
    else if (v->deadlock_free == 0)
        fprintf(o, "  deadlock:   CREDIT LOOP of %u channels: %s\n", v->credit_loop_length,
                v->credit_loop);
    else
        fprintf(o, "  deadlock:   not checked\n");
    if (v->first_error[0])
        fprintf(o, "  first:      %s\n", v->first_error);
}

static void print_report_json(FILE *o, const ibr_verify_report *v, int rc)
{
    fprintf(o, "{\"valid\": %s, \"status\": ", rc == 0 ? "true" : "false");
    cli_json_string(o, ibr_status_name(rc));
    if (rc != 0 && rc != IBR_EROUTES) {
        fputs("}", o);
        return;
    }
#define U(field) fprintf(o, ", \"" #field "\": %" PRIu64, v->field);
    U(routes_checked)
    U(routes_ok)
    U(missing)
    U(loops)
    U(bad_port)
    U(down_link)
    U(dead_end)
    U(unreachable)
    U(spurious)
    U(restricted)
    U(nonminimal)
    U(pairs)
    U(pairs_ok)
#undef U
    fputs(", \"avg_hops\": ", o);
    cli_json_double(o, v->avg_hops);
    fprintf(o, ", \"max_hops\": %u, \"avg_stretch\": ", v->max_hops);
    cli_json_double(o, v->avg_stretch);
    fputs(", \"max_stretch\": ", o);
    cli_json_double(o, v->max_stretch);
    fprintf(o, ", \"links\": %" PRIu64 ", \"max_link_load\": %" PRIu64
               ", \"mean_link_load\": ", v->links, v->max_link_load);
    cli_json_double(o, v->mean_link_load);
    fprintf(o, ", \"deadlock_free\": %s, \"first_error\": ",
            v->deadlock_free > 0 ? "true" : v->deadlock_free == 0 ? "false" : "null");
    cli_json_string(o, v->first_error);
    fprintf(o, ", \"credit_loop_length\": %u, \"credit_loop\": ", v->credit_loop_length);
    cli_json_string(o, v->credit_loop);
    fputc('}', o);
}

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
          "  experimental   output or interface may change\n",
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
        default: usage_engines(stderr); return CLI_EXIT_ERROR;
        }
    }
    if (optind != argc) {
        cli_error("engines", "unexpected argument '%s'", argv[optind]);
        return CLI_EXIT_ERROR;
    }
    n = ibr_engine_count(NULL);
    if (json)
        fputs("[", stdout);
    for (i = 0; i < n; i++) {
        ibr_engine_info e;
        char caps[160];

        if (ibr_engine_get(&e, NULL, i) < 0)
            continue;
        caps_text(caps, sizeof(caps), e.caps);
        if (json) {
            fputs(i ? ",\n {\"name\": " : "\n {\"name\": ", stdout);
            cli_json_string(stdout, e.name);
            fputs(", \"description\": ", stdout);
            cli_json_string(stdout, e.description);
            fprintf(stdout, ", \"caps\": %u, \"caps_text\": ", e.caps);
            cli_json_string(stdout, caps);
            fprintf(stdout, ", \"builtin\": %s}", e.builtin ? "true" : "false");
        } else {
            printf("%-12s %-40s %s\n", e.name, caps, e.description ? e.description : "");
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
    fputs("usage: ibr gen SPEC [-o FILE] [--faults LINKS[,SWITCHES]] [--seed N] [--lmc N]\n"
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
          "  random:switches=64,degree=4,hosts=2,seed=1\n"
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
        ibr_node_info ni;
        unsigned int p;

        if (ibr_fabric_node_info(&ni, f, i) < 0)
            continue;
        for (p = 1; p <= ni.nports; p++) {
            ibr_port_info pi;
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
    enum { O_FAULTS = 256, O_SEED, O_LMC, O_REMOVE_DOWN };
    static const struct option lo[] = {{"output", required_argument, NULL, 'o'},
                                       {"remove-down", no_argument, NULL, O_REMOVE_DOWN},
                                       {"faults", required_argument, NULL, O_FAULTS},
                                       {"seed", required_argument, NULL, O_SEED},
                                       {"lmc", required_argument, NULL, O_LMC},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    const char *out_path = "-", *spec;
    uint64_t seed = 1, v, links = 0, switches = 0;
    int lmc = -1, c, faults = 0, remove_down = 0, ret = CLI_EXIT_ERROR, rc;
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
        case O_LMC:
            if (cli_opt_uint("--lmc", optarg, 7, &v) < 0)
                return CLI_EXIT_ERROR;
            lmc = (int)v;
            break;
        case O_REMOVE_DOWN: remove_down = 1; break;
        case 'h': usage_gen(stdout); return CLI_EXIT_OK;
        default: usage_gen(stderr); return CLI_EXIT_ERROR;
        }
    }
    if (optind + 1 != argc) {
        if (optind >= argc)
            cli_error("gen", "missing SPEC (try 'ibr gen --help')");
        else
            cli_error("gen", "unexpected argument '%s'", argv[optind + 1]);
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
    if (lmc >= 0 && (rc = ibr_fabric_assign_lids(f, (unsigned int)lmc, IBR_LIDS_REASSIGN)) < 0) {
        cli_lib_error("--lmc", ibr_fabric_last_error(f), rc);
        goto out;
    }
    if (cli_freeze(&t, f, spec) < 0)
        goto out;
    if ((rc = ibr_write_ibnetdiscover(&b, t)) < 0) {
        cli_lib_error("writing ibnetdiscover text", NULL, rc);
        goto out;
    }
    if ((rc = cli_write_file(out_path, b.data ? b.data : "", b.size)) != 0) {
        cli_error(strcmp(out_path, "-") ? out_path : "stdout", "%s", strerror(rc));
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
          "switches, CAs, links (down ones too), LIDs and the engines available.\n"
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
} fabric_stats;

static void compute_stats(fabric_stats *s, const ibr_fabric *f)
{
    uint32_t n = ibr_fabric_node_count(f), i;

    memset(s, 0, sizeof(*s));
    s->nodes = n;
    for (i = 0; i < n; i++) {
        ibr_node_info ni;
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
            ibr_port_info pi;
            int has_lid_port = (ni.type == IBR_NODE_SWITCH) ? (p == 0) : 1;

            if (ibr_fabric_port_info(&pi, f, i, p) < 0)
                continue;
            if (p > 0 && pi.remote_node != IBR_NONE) {
                ibr_node_info rn;
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
        cli_error("info", optind >= argc ? "missing TOPOLOGY (try 'ibr info --help')"
                                         : "too many arguments");
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
    compute_stats(&s, f);
    if (cli_freeze(&t, f, src) < 0)
        goto out;
    ne = ibr_engine_count(ctx);
    if (json) {
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
        printf(", \"engines\": [");
        for (i = 0; i < ne; i++) {
            ibr_engine_info e;

            if (ibr_engine_get(&e, ctx, i) == 0) {
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
        printf("engines:     ");
        for (i = 0; i < ne; i++) {
            ibr_engine_info e;

            if (ibr_engine_get(&e, ctx, i) == 0)
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
/* ibr verify */

static void usage_verify(FILE *o)
{
    fputs("usage: ibr verify [--guid2lid FILE] [--lmc N] [--json] TOPOLOGY LFTS_DUMP\n"
          "\n"
          "Check forwarding tables (opensm-lfts.dump, `ibroute` or dump_lfts output)\n"
          "against a topology: every route reaches its destination without loops,\n"
          "bad ports or down links. Prints hop and link-load statistics.\n"
          "\n"
          "Options:\n"
          "  --guid2lid FILE  apply OpenSM's LIDs (its guid2lid cache file) first\n"
          "  --lmc N          reassign LIDs with LMC N instead\n"
          "  --json           print the report as JSON\n"
          "\n"
          "Exit status: 0 valid, 1 invalid routes, 2 error.\n",
          o);
}

static int cmd_verify(int argc, char **argv)
{
    enum { O_JSON = CLI_OPT_OWN };
    static const struct option lo[] = {{"json", no_argument, NULL, O_JSON},
                                       {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
                                       {"lmc", required_argument, NULL, CLI_OPT_LMC},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    const char *src, *dump;
    int json = 0, c, rc, ret = CLI_EXIT_ERROR;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    ibr_verify_report rep;

    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_JSON: json = 1; break;
        case 'h': usage_verify(stdout); return CLI_EXIT_OK;
        default:
            if (cli_shared_option(&ta, NULL, c, optarg, usage_verify) < 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (optind + 2 != argc) {
        cli_error("verify", "expected TOPOLOGY and LFTS_DUMP (try 'ibr verify --help')");
        return CLI_EXIT_ERROR;
    }
    if (cli_topo_args_check(&ta, "verify") < 0)
        return CLI_EXIT_ERROR;
    src = argv[optind];
    dump = argv[optind + 1];
    if (cli_make_context(&ctx, IBR_LOG_WARN) < 0)
        return CLI_EXIT_ERROR;
    if (cli_load_topo(&t, ctx, src, &ta) < 0 || cli_load_lfts(&r, t, dump) < 0)
        goto out;
    memset(&rep, 0, sizeof(rep));
    rep.version = IBR_VERIFY_REPORT_VERSION;
    rc = ibr_verify(&rep, t, r);
    if (rc < 0 && rc != IBR_EROUTES) {
        cli_lib_error("verify", NULL, rc);
        goto out;
    }
    if (json) {
        printf("{\"topology\": ");
        cli_json_string(stdout, src);
        printf(", \"lfts\": ");
        cli_json_string(stdout, dump);
        printf(", \"switches\": %" PRIu32 ", \"max_lid\": %u, \"verify\": ",
               ibr_topo_switch_count(t), (unsigned)ibr_topo_max_lid(t));
        print_report_json(stdout, &rep, rc);
        printf("}\n");
    } else {
        printf("topology:     %s (%" PRIu32 " switches, max LID %u)\n", src,
               ibr_topo_switch_count(t), (unsigned)ibr_topo_max_lid(t));
        printf("lfts:         %s\n", dump);
        print_report_text(stdout, &rep, rc);
    }
    ret = rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INVALID;
out:
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* ibr route */

static void usage_route(FILE *o)
{
    fputs("usage: ibr route [-R CHAIN] [options] TOPOLOGY [-o DIR]\n"
          "\n"
          "Route a topology (an ibnetdiscover/ibsim file, or gen:SPEC to generate one in\n"
          "memory), verify the result and print a summary. With -o, write into DIR:\n"
          "opensm-lfts.dump, opensm-subnet.lst, opensm.fdbs, opensm.mcfdbs, guid2lid and\n"
          "every engine artefact (a file named after it). When the result carries path\n"
          "SLs or SL2VL tables, also opensm-sl2vl.dump and ibdmchk's inputs\n"
          "ibr-paths.psl (-c) and ibr-paths.sl2vl (-d). The summary gives the verdict\n"
          "on credit loops (with the loop found) and the pairs the engine's rules leave\n"
          "unrouted (restricted).\n"
          "\n"
          "Options:\n"
          "  -R, --routing-engine CHAIN  engines tried in order, e.g. ftree,updn\n"
          "                              (minhop runs last unless no_fallback; default minhop)\n"
          "  -o, --output DIR            write the dumps into DIR (created if needed)\n"
          "  --lmc N                     reassign all LIDs with LMC N (0..7)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --seed N                    seed of random choices (recorded in the result)\n"
          "  --scatter                   scatter ports among equal choices (needs a seed;\n"
          "                              1 is used when --seed is absent)\n"
          "  --port-shifting             OpenSM's port_shifting\n"
          "  --port-profile-switch-nodes routes to switches count in port balancing\n"
          "  --threads N                 worker threads (0 = one per CPU, default)\n"
          "  --max-vls N                 data VLs available (1..15, default 8)\n"
          "  --qos                       enable QoS (SLs and SL2VL where supported)\n"
          "  --root-guids FILE           root switch GUIDs (updn, ftree)\n"
          "  --cn-guids FILE             compute-node port GUIDs\n"
          "  --io-guids FILE             I/O-node port GUIDs\n"
          "  --guid-routing-order FILE   destination order (port GUIDs)\n"
          "  --guid-routing-order-no-scatter  do not scatter the ports listed there\n"
          "  --ignore-guids FILE         'nodeGUID port' lines excluded from balancing\n"
          "  --ids-guid-file FILE        'switchGUID id' lines (updn)\n"
          "  --connect-roots             allow routes between roots (updn, ftree)\n"
          "  --max-reverse-hops N        ftree: reverse hops for I/O nodes\n"
          "  --no-verify                 skip the verification\n"
          "  --json                      print the summary as JSON\n"
          "  --no-progress, -q           no progress reports on stderr (by default they\n"
          "                              appear once routing has taken more than 1 s)\n"
          "  -v, --verbose               library log messages (twice: debug)\n"
          "\n"
          "GUID files take one GUID per line (0x hex, leading 0 octal, else decimal),\n"
          "'#' comments, as OpenSM's option files.\n"
          "\n"
          "Exit status: 0 routed and valid, 1 unroutable or invalid routes, 2 error.\n",
          o);
}

typedef struct progress_state {
    double start, last;
    int enabled, tty, shown;
    char phase[64];
} progress_state;

static int progress_cb(void *user, const char *phase, uint64_t done, uint64_t total)
{
    progress_state *ps = user;
    double now = cli_now();
    int same = strncmp(ps->phase, phase ? phase : "", sizeof(ps->phase) - 1) == 0;

    if (!ps->enabled || now - ps->start < 1.0)
        return 0;
    if (same && now - ps->last < (ps->tty ? 0.2 : 2.0))
        return 0;
    ps->last = now;
    snprintf(ps->phase, sizeof(ps->phase), "%s", phase ? phase : "");
    if (ps->tty)
        fprintf(stderr, "\r%-20s %" PRIu64 "/%" PRIu64 " (%5.1f%%) %6.1fs ", ps->phase, done,
                total, total ? 100.0 * (double)done / (double)total : 0.0, now - ps->start);
    else
        fprintf(stderr, "ibr: progress: %s %" PRIu64 "/%" PRIu64 " after %.1fs\n", ps->phase,
                done, total, now - ps->start);
    ps->shown = 1;
    return 0;
}

typedef struct file_list {
    char **names;
    size_t n;
} file_list;

static int file_list_add(file_list *l, const char *name)
{
    char **nn = realloc(l->names, (l->n + 1) * sizeof(*nn));

    if (!nn)
        return -1;
    l->names = nn;
    if (!(nn[l->n] = strdup(name)))
        return -1;
    l->n++;
    return 0;
}

static void file_list_free(file_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->n = 0;
}

/* Write @p data to DIR/name; records the name. Prints errors. */
static int write_in_dir(file_list *files, const char *dir, const char *name, const char *data,
                        size_t len)
{
    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    int err;

    if (!path) {
        cli_error(name, "%s", strerror(ENOMEM));
        return -1;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    err = cli_write_file(path, data ? data : "", len);
    if (err) {
        cli_error(path, "%s", strerror(err));
        free(path);
        return -1;
    }
    free(path);
    if (file_list_add(files, name) < 0) {
        cli_error(name, "%s", strerror(ENOMEM));
        return -1;
    }
    return 0;
}

typedef enum dump_kind {
    D_LFTS, D_SUBNET, D_FDBS, D_GUID2LID, D_MCFDBS, D_SL2VL_DUMP, D_PSL, D_SL2VL
} dump_kind;

/* Prefix of the ibdmchk/ibdiagnet files (<prefix>.psl, <prefix>.sl2vl). */
#define IBDM_PREFIX "ibr-paths"

static int write_dump(file_list *files, const char *dir, const char *name, dump_kind kind,
                      const ibr_topo *t, const ibr_result *r)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = 0;

    switch (kind) {
    case D_LFTS: rc = ibr_write_lfts_dump(&b, t, r); break;
    case D_SUBNET: rc = ibr_write_subnet_lst(&b, t); break;
    case D_FDBS: rc = ibr_write_fdbs(&b, t, r); break;
    case D_GUID2LID: rc = ibr_write_guid2lid(&b, t); break;
    case D_MCFDBS: rc = ibr_write_mcfdbs(&b, t, r); break;
    case D_SL2VL_DUMP: rc = ibr_write_sl2vl_dump(&b, t, r); break;
    case D_PSL: rc = ibr_write_path_sl(&b, t, r); break;
    case D_SL2VL: rc = ibr_write_sl2vl(&b, t, r); break;
    }
    if (rc < 0) {
        char what[128];

        snprintf(what, sizeof(what), "writing %s", name);
        cli_lib_error(what, NULL, rc);
        ibr_buffer_dispose(&b);
        return -1;
    }
    rc = write_in_dir(files, dir, name, b.data, b.size);
    ibr_buffer_dispose(&b);
    return rc;
}

/* An artefact name usable as a file name in DIR. */
static void artifact_file_name(char *out, size_t len, const char *name)
{
    size_t i, j = 0;

    for (i = 0; name[i] && j + 1 < len; i++) {
        char ch = name[i];

        out[j++] = (ch == '/' || ch == '\\' || (unsigned char)ch < 0x20) ? '_' : ch;
    }
    out[j] = '\0';
    if (j == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
        snprintf(out, len, "artifact-%s", j ? "dots" : "unnamed");
    else if (out[0] == '.')
        out[0] = '_';
}

static int write_outputs(file_list *files, const char *dir, const ibr_topo *t,
                         const ibr_result *r)
{
    size_t i, na;
    int err = cli_mkdir_p(dir);

    if (err) {
        cli_error(dir, "%s", strerror(err));
        return -1;
    }
    if (write_dump(files, dir, "opensm-lfts.dump", D_LFTS, t, r) < 0 ||
        write_dump(files, dir, "opensm-subnet.lst", D_SUBNET, t, r) < 0 ||
        write_dump(files, dir, "opensm.fdbs", D_FDBS, t, r) < 0 ||
        write_dump(files, dir, "guid2lid", D_GUID2LID, t, r) < 0 ||
        write_dump(files, dir, "opensm.mcfdbs", D_MCFDBS, t, r) < 0)
        return -1;
    /* VL-aware results: OpenSM's SL2VL dump and ibdmchk's -c/-d inputs */
    if ((ibr_result_sl_mode(r) != IBR_SL_NONE || ibr_result_has_sl2vl(r)) &&
        (write_dump(files, dir, "opensm-sl2vl.dump", D_SL2VL_DUMP, t, r) < 0 ||
         write_dump(files, dir, IBDM_PREFIX ".psl", D_PSL, t, r) < 0 ||
         write_dump(files, dir, IBDM_PREFIX ".sl2vl", D_SL2VL, t, r) < 0))
        return -1;
    na = ibr_result_artifact_count(r);
    for (i = 0; i < na; i++) {
        const char *name;
        const void *data;
        size_t size;
        char fname[256];

        if (ibr_result_artifact(r, i, &name, &data, &size) < 0)
            continue;
        artifact_file_name(fname, sizeof(fname), name);
        if (write_in_dir(files, dir, fname, data, size) < 0)
            return -1;
    }
    return 0;
}

typedef struct route_args {
    const char *chain, *outdir, *topology;
    int json, verify, verbose, progress; /* progress: -1 auto */
} route_args;

static void print_route_json(const route_args *a, const ibr_topo *t, const ibr_result *r,
                             const ibr_options *opts, int rc, double route_s,
                             const ibr_verify_report *rep, int vrc, int verified,
                             const file_list *files)
{
    size_t i, n = r ? ibr_result_attempt_count(r) : 0;

    printf("{\"topology\": ");
    cli_json_string(stdout, a->topology);
    printf(", \"nodes\": %" PRIu32 ", \"switches\": %" PRIu32 ", \"endports\": %" PRIu32
           ", \"max_lid\": %u",
           ibr_topo_node_count(t), ibr_topo_switch_count(t), ibr_topo_endport_count(t),
           (unsigned)ibr_topo_max_lid(t));
    printf(", \"chain\": ");
    cli_json_string(stdout, a->chain ? a->chain : "minhop");
    printf(", \"status\": ");
    cli_json_string(stdout, ibr_status_name(rc));
    printf(", \"error\": ");
    cli_json_string(stdout, r ? ibr_result_last_error(r) : ibr_strerror(rc));
    printf(", \"engine\": ");
    cli_json_string(stdout, r ? ibr_result_engine(r) : "");
    printf(", \"attempts\": [");
    for (i = 0; i < n; i++) {
        const char *eng = "", *msg = "";
        int st = 0;

        ibr_result_attempt(r, i, &eng, &st, &msg);
        printf("%s{\"engine\": ", i ? ", " : "");
        cli_json_string(stdout, eng);
        printf(", \"status\": ");
        cli_json_string(stdout, ibr_status_name(st));
        printf(", \"message\": ");
        cli_json_string(stdout, msg ? msg : "");
        printf("}");
    }
    printf("], \"seed\": %" PRIu64 ", \"threads\": %u, \"route_time_s\": ",
           r ? ibr_result_seed(r) : opts->seed, opts->threads);
    cli_json_double(stdout, route_s);
    printf(", \"vls_used\": %u, \"verify\": ", r && rc == 0 ? ibr_result_vls_used(r) : 0);
    if (verified)
        print_report_json(stdout, rep, vrc);
    else
        printf("null");
    printf(", \"files\": [");
    for (i = 0; i < files->n; i++) {
        if (i)
            printf(", ");
        cli_json_string(stdout, files->names[i]);
    }
    printf("]}\n");
}

static void print_route_text(const route_args *a, const ibr_topo *t, const ibr_result *r,
                             const ibr_options *opts, int rc, double route_s,
                             const ibr_verify_report *rep, int vrc, int verified,
                             const file_list *files)
{
    size_t i, n = r ? ibr_result_attempt_count(r) : 0;

    printf("topology:     %s (%" PRIu32 " nodes, %" PRIu32 " switches, %" PRIu32
           " end ports, max LID %u)\n",
           a->topology, ibr_topo_node_count(t), ibr_topo_switch_count(t),
           ibr_topo_endport_count(t), (unsigned)ibr_topo_max_lid(t));
    printf("engine:       %s\n", rc == 0 && r ? ibr_result_engine(r) : "(none)");
    for (i = 0; i < n; i++) {
        const char *eng = "", *msg = "";
        int st = 0;

        ibr_result_attempt(r, i, &eng, &st, &msg);
        printf("  attempt %zu:  %s: %s", i + 1, eng,
               st == 0 ? "ok" : st == IBR_EDECLINED ? "declined" : ibr_status_name(st));
        if (msg && *msg)
            printf(" (%s)", msg);
        printf("\n");
    }
    printf("seed:         %" PRIu64 "%s\n", r ? ibr_result_seed(r) : opts->seed,
           opts->scatter_ports ? " (scatter)" : "");
    printf("threads:      %u%s\n", opts->threads, opts->threads == 0 ? " (one per CPU)" : "");
    printf("route_time_s: %.6f\n", route_s);
    if (rc != 0) {
        printf("status:       %s: %s\n", ibr_status_name(rc),
               r && *ibr_result_last_error(r) ? ibr_result_last_error(r) : ibr_strerror(rc));
        return;
    }
    if (ibr_result_vls_used(r) > 1)
        printf("VLs used:     %u\n", ibr_result_vls_used(r));
    if (verified)
        print_report_text(stdout, rep, vrc);
    else
        printf("verify:       skipped\n");
    if (files->n) {
        printf("files:        %s/{", a->outdir);
        for (i = 0; i < files->n; i++)
            printf("%s%s", i ? "," : "", files->names[i]);
        printf("}\n");
    }
}

static int cmd_route(int argc, char **argv)
{
    enum { O_NOVERIFY = CLI_OPT_OWN, O_JSON, O_PROGRESS, O_NOPROGRESS };
    static const struct option lo[] = {
        {"routing-engine", required_argument, NULL, 'R'},
        {"routing_engine", required_argument, NULL, 'R'},
        {"output", required_argument, NULL, 'o'},
        {"lmc", required_argument, NULL, CLI_OPT_LMC},
        {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
        {"seed", required_argument, NULL, CLI_OPT_SEED},
        {"scatter", no_argument, NULL, CLI_OPT_SCATTER},
        {"scatter-ports", no_argument, NULL, CLI_OPT_SCATTER},
        {"port-shifting", no_argument, NULL, CLI_OPT_PORT_SHIFTING},
        {"port-profile-switch-nodes", no_argument, NULL, CLI_OPT_PPSN},
        {"threads", required_argument, NULL, CLI_OPT_THREADS},
        {"max-vls", required_argument, NULL, CLI_OPT_MAX_VLS},
        {"qos", no_argument, NULL, CLI_OPT_QOS},
        {"root-guids", required_argument, NULL, CLI_OPT_ROOT_GUIDS},
        {"cn-guids", required_argument, NULL, CLI_OPT_CN_GUIDS},
        {"io-guids", required_argument, NULL, CLI_OPT_IO_GUIDS},
        {"guid-routing-order", required_argument, NULL, CLI_OPT_ORDER},
        {"guid-routing-order-no-scatter", no_argument, NULL, CLI_OPT_ORDER_NO_SCATTER},
        {"ignore-guids", required_argument, NULL, CLI_OPT_IGNORE_GUIDS},
        {"ids-guid-file", required_argument, NULL, CLI_OPT_IDS},
        {"connect-roots", no_argument, NULL, CLI_OPT_CONNECT_ROOTS},
        {"max-reverse-hops", required_argument, NULL, CLI_OPT_MAX_REVERSE_HOPS},
        {"no-verify", no_argument, NULL, O_NOVERIFY},
        {"json", no_argument, NULL, O_JSON},
        {"progress", no_argument, NULL, O_PROGRESS},
        {"no-progress", no_argument, NULL, O_NOPROGRESS},
        {"quiet", no_argument, NULL, O_NOPROGRESS},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    route_args a;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    cli_route_args ra;
    ibr_options *opts = &ra.opts;
    int c, rc, vrc = 0, verified = 0, ret = CLI_EXIT_ERROR;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    progress_state ps;
    ibr_verify_report rep;
    file_list files = {NULL, 0};
    double t0, route_s;

    memset(&a, 0, sizeof(a));
    a.verify = 1;
    a.progress = -1;
    cli_route_args_init(&ra);
    while ((c = getopt_long(argc, argv, "hR:o:vq", lo, NULL)) != -1) {
        switch (c) {
        case 'R': a.chain = optarg; break;
        case 'o': a.outdir = optarg; break;
        case O_NOVERIFY: a.verify = 0; break;
        case O_JSON: a.json = 1; break;
        case O_PROGRESS: a.progress = 1; break;
        case O_NOPROGRESS:
        case 'q': a.progress = 0; break;
        case 'v': a.verbose++; break;
        case 'h': usage_route(stdout); return CLI_EXIT_OK;
        default:
            if (cli_shared_option(&ta, &ra, c, optarg, usage_route) < 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (optind + 1 != argc) {
        cli_error("route", optind >= argc ? "missing TOPOLOGY (try 'ibr route --help')"
                                          : "too many arguments");
        return CLI_EXIT_ERROR;
    }
    a.topology = argv[optind];
    if (cli_topo_args_check(&ta, "route") < 0)
        return CLI_EXIT_ERROR;
    if (opts->scatter_ports && opts->seed == 0) {
        if (ra.seed_given) {
            cli_error("--scatter", "a seed of 0 disables scattering; give --seed N with N > 0");
            return CLI_EXIT_ERROR;
        }
        opts->seed = 1;
    }

    if (cli_make_context(&ctx, cli_log_level(a.verbose)) < 0)
        goto out;
    /* the fabric is not kept: it is freed before routing big fabrics */
    if (cli_route_args_load(&ra, ctx) < 0 || cli_load_topo(&t, ctx, a.topology, &ta) < 0)
        goto out;

    memset(&ps, 0, sizeof(ps));
    ps.tty = isatty(STDERR_FILENO);
    ps.enabled = a.progress != 0;
    opts->progress = progress_cb;
    opts->progress_user = &ps;

    t0 = cli_now();
    ps.start = t0;
    rc = ibr_route(&r, t, a.chain, opts);
    route_s = cli_now() - t0;
    if (ps.shown && ps.tty)
        fputc('\n', stderr);

    if (rc == 0 && a.verify) {
        memset(&rep, 0, sizeof(rep));
        rep.version = IBR_VERIFY_REPORT_VERSION;
        vrc = ibr_verify(&rep, t, r);
        verified = vrc == 0 || vrc == IBR_EROUTES;
        if (!verified) {
            cli_lib_error("verify", NULL, vrc);
            goto out;
        }
    }
    if (rc == 0 && a.outdir && write_outputs(&files, a.outdir, t, r) < 0)
        goto out;

    if (a.json)
        print_route_json(&a, t, r, opts, rc, route_s, &rep, vrc, verified, &files);
    else
        print_route_text(&a, t, r, opts, rc, route_s, &rep, vrc, verified, &files);
    fflush(stdout);

    if (rc < 0) {
        cli_lib_error("route", r ? ibr_result_last_error(r) : NULL, rc);
        ret = rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
        goto out;
    }
    if (verified && vrc != 0) {
        cli_error("verify", "routing tables are invalid: %s", rep.first_error);
        ret = CLI_EXIT_INVALID;
        goto out;
    }
    ret = CLI_EXIT_OK;
out:
    file_list_free(&files);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    /* the lists were created with the context: destroy them first */
    cli_route_args_dispose(&ra);
    ibr_context_destroy(ctx);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* ibr trace */

static void usage_trace(FILE *o)
{
    fputs("usage: ibr trace TOPOLOGY [LFTS_DUMP | -R CHAIN] --from SRC --to DST [options]\n"
          "\n"
          "Follow one route hop by hop: every switch it crosses (GUID, description), the\n"
          "port it enters and leaves by, the VL of the outgoing hop and the path's SL.\n"
          "The routing is read from LFTS_DUMP (opensm-lfts.dump or dump_lfts output) or,\n"
          "without it, computed in memory with CHAIN (default minhop).\n"
          "\n"
          "SRC and DST are LIDs or GUIDs: a port GUID or node GUID stands for that\n"
          "port's base LID (a CA's node GUID means its port 1, a switch's its port 0).\n"
          "Numbers above 0xffff are GUIDs; write lid:N or guid:N to say which.\n"
          "\n"
          "Options:\n"
          "  --from SRC                  source: LID or GUID of an end port or a switch\n"
          "  --to DST                    destination LID (any LID of its LMC range) or GUID\n"
          "  -R, --routing-engine CHAIN  engines tried in order (without LFTS_DUMP)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --lmc N                     reassign all LIDs with LMC N (0..7)\n"
          "  --root-guids FILE           root switch GUIDs (updn) when routing\n"
          "  --seed N                    seed of random choices when routing\n"
          "  --max-vls N                 data VLs available when routing (1..15)\n"
          "  --qos                       enable QoS when routing (SLs where supported)\n"
          "  --threads N                 worker threads when routing (0 = one per CPU)\n"
          "  --json                      print the trace as JSON\n"
          "\n"
          "Exit status: 0 the route reaches DST, 1 it breaks (no LFT entry, bad port,\n"
          "down link, loop: the last hop shows where), 2 usage or input error.\n",
          o);
}

/*
 * A LID or a GUID from the command line: "lid:N", "guid:N", or a number
 * (a GUID when above 0xffff). Returns the base LID of the GUID's port, or
 * the LID as given; 0 after printing an error.
 */
static uint16_t resolve_endpoint(const ibr_topo *t, const char *opt, const char *arg)
{
    int force = 0; /* 1 LID, 2 GUID */
    const char *num = arg;
    uint64_t v;
    uint32_t node;
    unsigned int port;
    ibr_port_info pi;
    ibr_node_info ni;

    if (strncmp(arg, "lid:", 4) == 0) {
        force = 1;
        num = arg + 4;
    } else if (strncmp(arg, "guid:", 5) == 0) {
        force = 2;
        num = arg + 5;
    }
    if (cli_parse_u64(num, UINT64_MAX, &v) < 0) {
        cli_error(opt, "'%s' is not a LID or GUID", arg);
        return 0;
    }
    if (force == 1 || (force == 0 && v <= 0xffff)) {
        if (v == 0 || v > ibr_topo_max_lid(t)) {
            cli_error(opt, "LID %" PRIu64 " is not in the topology (LIDs 1..%u)", v,
                      (unsigned)ibr_topo_max_lid(t));
            return 0;
        }
        if (ibr_topo_lid_owner(NULL, NULL, t, (uint16_t)v) < 0) {
            cli_error(opt, "no port owns LID %" PRIu64, v);
            return 0;
        }
        return (uint16_t)v;
    }
    if (ibr_topo_find_guid(&node, &port, t, v) < 0 || ibr_topo_node_info(&ni, t, node) < 0) {
        cli_error(opt, "no node or port has GUID 0x%016" PRIx64, v);
        return 0;
    }
    if (ibr_topo_port_info(&pi, t, node, ni.type == IBR_NODE_SWITCH ? 0 : port) < 0 ||
        pi.lid == 0) {
        cli_error(opt, "GUID 0x%016" PRIx64 " (%s port %u) has no LID", v,
                  ni.desc ? ni.desc : "?", ni.type == IBR_NODE_SWITCH ? 0 : port);
        return 0;
    }
    return pi.lid;
}

/* Describe the port owning @p lid: "0x<guid> "desc" port P". */
static void lid_owner_text(char *buf, size_t len, const ibr_topo *t, uint16_t lid,
                           uint64_t *guid, const char **desc, unsigned int *port)
{
    uint32_t node;
    ibr_node_info ni;

    *guid = 0;
    *desc = "";
    *port = 0;
    if (ibr_topo_lid_owner(&node, port, t, lid) < 0 || ibr_topo_node_info(&ni, t, node) < 0) {
        snprintf(buf, len, "LID %u (no owner)", (unsigned)lid);
        return;
    }
    *guid = ni.node_guid;
    *desc = ni.desc ? ni.desc : "";
    snprintf(buf, len, "LID %u: %s 0x%016" PRIx64 " \"%s\" port %u", (unsigned)lid,
             ni.type == IBR_NODE_SWITCH ? "switch" : ni.type == IBR_NODE_CA ? "CA" : "router",
             ni.node_guid, *desc, *port);
}

/* Why the route stops after @p last (when it does not reach the target). */
static void break_reason(char *buf, size_t len, const ibr_topo *t, const ibr_trace_hop *last,
                         uint16_t dlid)
{
    uint32_t node = ibr_topo_switch_node(t, last->sw);
    ibr_node_info ni;
    ibr_port_info pi;

    if (ibr_topo_node_info(&ni, t, node) < 0) {
        snprintf(buf, len, "bad switch index %" PRIu32, last->sw);
        return;
    }
    if (last->out_port == IBR_NO_ROUTE) {
        snprintf(buf, len, "switch 0x%016" PRIx64 " has no LFT entry for LID %u",
                 ni.node_guid, (unsigned)dlid);
        return;
    }
    if (last->out_port == 0) {
        snprintf(buf, len, "switch 0x%016" PRIx64 " keeps LID %u (port 0) but does not own it",
                 ni.node_guid, (unsigned)dlid);
        return;
    }
    if (last->out_port > ni.nports ||
        ibr_topo_port_info(&pi, t, node, last->out_port) < 0) {
        snprintf(buf, len, "switch 0x%016" PRIx64 " sends LID %u to port %u, which it lacks "
                 "(%u ports)", ni.node_guid, (unsigned)dlid, last->out_port, ni.nports);
        return;
    }
    if (pi.remote_node == IBR_NONE) {
        snprintf(buf, len, "switch 0x%016" PRIx64 " sends LID %u to port %u, which is not "
                 "cabled", ni.node_guid, (unsigned)dlid, last->out_port);
        return;
    }
    if (pi.state == IBR_LINK_DOWN) {
        snprintf(buf, len, "switch 0x%016" PRIx64 " sends LID %u to port %u, whose link is "
                 "down", ni.node_guid, (unsigned)dlid, last->out_port);
        return;
    }
    if (ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE) {
        snprintf(buf, len, "switch 0x%016" PRIx64 " sends LID %u to port %u, which leads to "
                 "another end node", ni.node_guid, (unsigned)dlid, last->out_port);
        return;
    }
    snprintf(buf, len, "the route loops (it crossed more switches than the fabric has)");
}

static int cmd_trace(int argc, char **argv)
{
    enum { O_FROM = CLI_OPT_OWN, O_TO, O_JSON };
    static const struct option lo[] = {
        {"from", required_argument, NULL, O_FROM},
        {"to", required_argument, NULL, O_TO},
        {"routing-engine", required_argument, NULL, 'R'},
        {"routing_engine", required_argument, NULL, 'R'},
        {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
        {"lmc", required_argument, NULL, CLI_OPT_LMC},
        {"root-guids", required_argument, NULL, CLI_OPT_ROOT_GUIDS},
        {"seed", required_argument, NULL, CLI_OPT_SEED},
        {"max-vls", required_argument, NULL, CLI_OPT_MAX_VLS},
        {"qos", no_argument, NULL, CLI_OPT_QOS},
        {"threads", required_argument, NULL, CLI_OPT_THREADS},
        {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    const char *from = NULL, *to = NULL, *chain = NULL;
    const char *src, *dump = NULL;
    int c, json = 0, rc, ret = CLI_EXIT_ERROR;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    cli_route_args ra;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    ibr_trace_hop *hops = NULL;
    size_t n = 0, cap, i;
    unsigned int sl = 0;
    uint16_t slid, dlid;
    char stext[320], dtext[320], why[256];
    uint64_t sguid, dguid;
    const char *sdesc, *ddesc;
    unsigned int sport, dport;

    cli_route_args_init(&ra);
    while ((c = getopt_long(argc, argv, "hR:", lo, NULL)) != -1) {
        switch (c) {
        case O_FROM: from = optarg; break;
        case O_TO: to = optarg; break;
        case 'R': chain = optarg; break;
        case O_JSON: json = 1; break;
        case 'h': usage_trace(stdout); return CLI_EXIT_OK;
        default:
            if (cli_shared_option(&ta, &ra, c, optarg, usage_trace) < 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (optind >= argc || argc - optind > 2) {
        cli_error("trace", optind >= argc ? "missing TOPOLOGY (try 'ibr trace --help')"
                                          : "too many arguments");
        return CLI_EXIT_ERROR;
    }
    src = argv[optind];
    if (argc - optind == 2)
        dump = argv[optind + 1];
    if (!from || !to) {
        cli_error("trace", "--from and --to are required");
        return CLI_EXIT_ERROR;
    }
    if (dump && (chain || ra.files[CLI_GUIDS_ROOT])) {
        cli_error("trace", "give either LFTS_DUMP or -R CHAIN (with routing options), "
                           "not both");
        return CLI_EXIT_ERROR;
    }
    if (cli_topo_args_check(&ta, "trace") < 0)
        return CLI_EXIT_ERROR;
    if (cli_make_context(&ctx, IBR_LOG_WARN) < 0)
        return CLI_EXIT_ERROR;
    if (cli_route_args_load(&ra, ctx) < 0 || cli_load_topo(&t, ctx, src, &ta) < 0)
        goto out;
    if (!(slid = resolve_endpoint(t, "--from", from)) ||
        !(dlid = resolve_endpoint(t, "--to", to)))
        goto out;
    if (dump) {
        if (cli_load_lfts(&r, t, dump) < 0)
            goto out;
    } else {
        rc = ibr_route(&r, t, chain, &ra.opts);
        if (rc < 0) {
            cli_lib_error("route", r ? ibr_result_last_error(r) : NULL, rc);
            goto out;
        }
    }
    cap = (size_t)ibr_topo_switch_count(t) + 2;
    hops = calloc(cap, sizeof(*hops));
    if (!hops) {
        cli_error("trace", "%s", strerror(ENOMEM));
        goto out;
    }
    rc = ibr_trace(hops, cap, &n, &sl, t, r, slid, dlid);
    if (rc == IBR_ENOTFOUND) {
        cli_error("trace", "LID %u is not cabled to a switch", (unsigned)slid);
        goto out;
    }
    if (rc < 0 && rc != IBR_EROUTES) {
        cli_lib_error("trace", NULL, rc);
        goto out;
    }
    if (n > cap)
        n = cap;
    why[0] = '\0';
    if (rc == IBR_EROUTES && n > 0) {
        size_t j, k, rep = 0, first = 0;

        /* a loop: cut the listing where a switch is entered again by the
           same port (the route repeats from there) */
        for (j = 1; j < n && !rep; j++)
            for (k = 0; k < j; k++)
                if (hops[k].sw == hops[j].sw && hops[k].in_port == hops[j].in_port) {
                    rep = j;
                    first = k;
                    break;
                }
        if (rep) {
            uint64_t g = 0;
            ibr_node_info ni;

            if (ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, hops[rep].sw)) == 0)
                g = ni.node_guid;
            n = rep + 1;
            snprintf(why, sizeof(why),
                     "the route loops: hop %zu enters switch 0x%016" PRIx64
                     " by port %u as hop %zu did", rep + 1, g, hops[rep].in_port, first + 1);
        } else {
            break_reason(why, sizeof(why), t, &hops[n - 1], dlid);
        }
    }
    lid_owner_text(stext, sizeof(stext), t, slid, &sguid, &sdesc, &sport);
    lid_owner_text(dtext, sizeof(dtext), t, dlid, &dguid, &ddesc, &dport);
    if (json) {
        printf("{\"topology\": ");
        cli_json_string(stdout, src);
        printf(", \"engine\": ");
        cli_json_string(stdout, ibr_result_engine(r));
        printf(", \"src_lid\": %u, \"src_guid\": \"0x%016" PRIx64 "\", \"src_desc\": ",
               (unsigned)slid, sguid);
        cli_json_string(stdout, sdesc);
        printf(", \"src_port\": %u, \"dst_lid\": %u, \"dst_guid\": \"0x%016" PRIx64
               "\", \"dst_desc\": ", sport, (unsigned)dlid, dguid);
        cli_json_string(stdout, ddesc);
        printf(", \"dst_port\": %u, \"sl\": %u, \"reached\": %s, \"links\": %zu"
               ", \"error\": ", dport, sl, rc == 0 ? "true" : "false",
               rc == 0 ? n - 1 + (hops[0].in_port != 0) + (hops[n - 1].out_port != 0) : 0);
        cli_json_string(stdout, why);
        printf(", \"hops\": [");
        for (i = 0; i < n; i++) {
            ibr_node_info ni;

            if (ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, hops[i].sw)) < 0)
                memset(&ni, 0, sizeof(ni));
            printf("%s\n  {\"switch\": %" PRIu32 ", \"guid\": \"0x%016" PRIx64
                   "\", \"desc\": ", i ? "," : "", hops[i].sw, ni.node_guid);
            cli_json_string(stdout, ni.desc ? ni.desc : "");
            printf(", \"in_port\": %u, \"out_port\": %u, \"vl\": %u}", hops[i].in_port,
                   hops[i].out_port, hops[i].vl);
        }
        printf("]}\n");
    } else {
        printf("from:   %s\n", stext);
        printf("to:     %s\n", dtext);
        printf("engine: %s, SL %u\n", ibr_result_engine(r), sl);
        printf("%4s  %-18s %4s %4s %3s  %s\n", "hop", "switch", "in", "out", "VL",
               "description");
        for (i = 0; i < n; i++) {
            ibr_node_info ni;
            char outp[8];

            if (ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, hops[i].sw)) < 0)
                memset(&ni, 0, sizeof(ni));
            if (hops[i].out_port == IBR_NO_ROUTE)
                snprintf(outp, sizeof(outp), "-");
            else
                snprintf(outp, sizeof(outp), "%u", hops[i].out_port);
            printf("%4zu  0x%016" PRIx64 " %4u %4s %3u  %s\n", i + 1, ni.node_guid,
                   hops[i].in_port, outp, hops[i].vl, ni.desc ? ni.desc : "");
        }
        if (rc == 0)
            printf("reached: %zu switch%s, %zu links\n", n, n == 1 ? "" : "es",
                   n - 1 + (hops[0].in_port != 0) + (hops[n - 1].out_port != 0));
        else
            printf("BROKEN: %s\n", why);
    }
    fflush(stdout);
    ret = rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INVALID;
out:
    free(hops);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    cli_route_args_dispose(&ra);
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
          "  verify TOPO LFTS_DUMP         check forwarding tables against a topology\n"
          "  trace TOPO --from S --to D    follow one route hop by hop (ports, VLs, SL)\n"
          "  analyze TOPO [LFTS_DUMP]      measure a routing: hops, load, congestion, VLs\n"
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

/* ibr analyze lives in cmd_analyze.c */
int cmd_analyze(int argc, char **argv);
void usage_analyze(FILE *o);

static const command commands[] = {
    {"gen", cmd_gen, usage_gen},
    {"route", cmd_route, usage_route},
    {"verify", cmd_verify, usage_verify},
    {"info", cmd_info, usage_info},
    {"engines", cmd_engines, usage_engines},
    {"trace", cmd_trace, usage_trace},
    {"analyze", cmd_analyze, usage_analyze},
};

static const command *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
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
        if (argc < 3) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        cmd = find_command(argv[2]);
        if (!cmd) {
            cli_error("help", "unknown command '%s'", argv[2]);
            return CLI_EXIT_ERROR;
        }
        cmd->usage(stdout);
        return CLI_EXIT_OK;
    }
    cmd = find_command(argv[1]);
    if (!cmd) {
        cli_error(argv[1], "unknown command (try 'ibr --help')");
        return CLI_EXIT_ERROR;
    }
    /* options of the subcommand: argv[1] plays the program name */
    optind = 1;
    return cmd->run(argc - 1, argv + 1);
}
