/*
 * cmd_verify.c - `ibr verify`: check forwarding tables against a topology,
 * and the verification report that `ibr route` prints too.
 *
 *   ibr verify [--guid2lid FILE | --lmc N] [--threads N] [--json] TOPOLOGY LFTS_DUMP
 */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Verification and its report (shared with ibr route) */

void cli_print_verify_text(FILE *o, const ibr_verify_report *v, int rc)
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
    if (v->version >= 4 && v->mcast_groups) {
        fprintf(o, "  multicast:  %" PRIu64 " MLIDs, %" PRIu64 " member pairs (%" PRIu64
                   " delivered exactly once)",
                v->mcast_groups, v->mcast_pairs, v->mcast_pairs_ok);
        if (v->mcast_missed)
            fprintf(o, ", %" PRIu64 " missed", v->mcast_missed);
        if (v->mcast_duplicates)
            fprintf(o, ", %" PRIu64 " duplicated", v->mcast_duplicates);
        if (v->mcast_loops)
            fprintf(o, ", %" PRIu64 " floods with a loop", v->mcast_loops);
        if (v->mcast_dead_ends)
            fprintf(o, ", %" PRIu64 " dead ends", v->mcast_dead_ends);
        fputc('\n', o);
        if (v->first_mcast_error[0])
            fprintf(o, "  first mcast: %s\n", v->first_mcast_error);
    }
    if (v->missing && !v->strict) {
        fprintf(o, "  empty:      %" PRIu64 " switch-LID entries toward reachable LIDs have no "
                   "route (not errors without --strict%s)\n",
                v->missing, rc == 0 ? ": every end-port pair is delivered" : "");
        fprintf(o, "  first empty: %s\n", v->first_missing);
    }
}

/* ------------------------------------------------------------------------ */
/* ibr verify */

void usage_verify(FILE *o)
{
    fputs("usage: ibr verify [--guid2lid FILE] [--lmc N] [--threads N] [--strict] [--json]\n"
          "                  [--sl2vl FILE] [--path-sl FILE]\n"
          "                  TOPOLOGY LFTS_DUMP\n"
          "\n"
          "TOPOLOGY is an ibnetdiscover dump, an ibsim netfile, a link list\n"
          "(opensm-subnet.lst, ibdiagnet2.lst) or gen:SPEC, told apart by content.\n"
          "Check forwarding tables (opensm-lfts.dump, `ibroute` or dump_lfts output, or\n"
          "an fdbs dump: OpenSM's opensm.fdbs, ibdiagnet's ibdiagnet2.fdbs; told apart\n"
          "by content) against a topology: every end-port pair is delivered, and no\n"
          "entry loops, dead-ends or uses a bad port or a down link. Empty switch-LID\n"
          "entries toward reachable LIDs (up/down and fat-tree rules leave some on\n"
          "purpose: spine to spine) are counted and shown, and are errors only with\n"
          "--strict. Prints hop and link-load statistics and the credit-loop verdict.\n"
          "\n"
          "Options:\n"
          "  --guid2lid FILE  apply OpenSM's LIDs (its guid2lid cache file) first\n"
          "  --lmc N          reassign LIDs with LMC N instead\n"
          "  --threads N      worker threads (0 = one per CPU, the default)\n"
          "  --strict         empty switch-LID entries and a credit loop are errors\n"
          "  --sl2vl FILE     the switches' SL2VL tables (ibdiagnet2.sl2vl) for the\n"
          "                   credit-loop check (default: SL n on VL n)\n"
          "  --path-sl FILE   the paths' SLs (ibdmchk -c's file, ibr-paths.psl;\n"
          "                   default: SL 0)\n"
          "  --json           print the report as JSON\n"
          "  -q, --quiet      no progress lines on stderr (reading big dumps)\n"
          "\n"
          "Exit status: 0 valid, 1 invalid routes (with --strict: or empty entries, or a\n"
          "credit loop), 2 error.\n",
          o);
}

int cmd_verify(int argc, char **argv)
{
    enum { O_JSON = CLI_OPT_OWN, O_THREADS, O_STRICT, O_SL2VL, O_PSL };
    static const struct option lo[] = {{"json", no_argument, NULL, O_JSON},
                                       {"strict", no_argument, NULL, O_STRICT},
                                       {"sl2vl", required_argument, NULL, O_SL2VL},
                                       {"path-sl", required_argument, NULL, O_PSL},
                                       {"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID},
                                       {"lmc", required_argument, NULL, CLI_OPT_LMC},
                                       {"threads", required_argument, NULL, O_THREADS},
                                       {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
    const char *src, *dump;
    int json = 0, c, rc, ret = CLI_EXIT_ERROR;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    ibr_verify_report rep;
    ibr_buffer vjson = IBR_BUFFER_INIT;
    uint64_t v;

    ibr_verify_report_init(&rep, IBR_VERIFY_REPORT_VERSION);
    while ((c = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (c) {
        case O_JSON: json = 1; break;
        case O_STRICT: rep.strict = 1; break;
        case O_SL2VL: cli_sl2vl_path = optarg; break;
        case O_PSL: cli_psl_path = optarg; break;
        case O_THREADS:
            if (cli_opt_uint("--threads", optarg, 1024, &v) < 0)
                return CLI_EXIT_ERROR;
            rep.threads = (unsigned int)v;
            break;
        case 'q': cli_quiet = 1; break;
        case 'h': usage_verify(stdout); return CLI_EXIT_OK;
        default:
            if (cli_shared_option(&ta, NULL, c, optarg, usage_verify) < 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (optind + 2 != argc) {
        cli_error("CL075", "verify", "expected TOPOLOGY and LFTS_DUMP (try 'ibr verify --help')");
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
    rc = ibr_result_verify(&rep, r);
    if (rc < 0 && rc != IBR_EROUTES) {
        cli_lib_error("verify", NULL, rc);
        goto out;
    }
    if (json) {
        int wrc = ibr_verify_report_write_json(&vjson, &rep);

        if (wrc < 0) {
            cli_lib_error("verify", NULL, wrc);
            goto out;
        }
        cli_json_printed = 1;
        printf("{\"topology\": ");
        cli_json_string(stdout, src);
        printf(", \"lfts\": ");
        cli_json_string(stdout, dump);
        printf(", \"switches\": %" PRIu32 ", \"max_lid\": %u, \"verify\": %s}\n",
               ibr_topo_switch_count(t), (unsigned)ibr_topo_max_lid(t), vjson.data);
    } else {
        printf("topology:     %s (%" PRIu32 " switches, max LID %u)\n", src,
               ibr_topo_switch_count(t), (unsigned)ibr_topo_max_lid(t));
        printf("lfts:         %s\n", dump);
        cli_print_verify_text(stdout, &rep, rc);
    }
    ret = rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INVALID;
    if (ret == CLI_EXIT_OK && rep.strict && rep.deadlock_free == 0) {
        cli_error("CL076", "verify", "--strict: the routing has a credit loop: %s",
                  rep.credit_loop);
        ret = CLI_EXIT_INVALID;
    }
out:
    ibr_buffer_dispose(&vjson);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
    return ret;
}
