/*
 * cmd_trace.c - `ibr trace`: follow one route hop by hop through a routing
 * read from an LFT dump or computed in memory.
 *
 *   ibr trace TOPOLOGY [LFTS_DUMP | -R CHAIN] --from SRC --to DST [--json]
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* ibr trace */

void usage_trace(FILE *o)
{
    fputs("usage: ibr trace TOPOLOGY [LFTS_DUMP | -R CHAIN] --from SRC --to DST [options]\n"
          "       ibr trace TOPOLOGY [-R CHAIN] --groups FILE --mlid MLID --from SRC [options]\n"
          "\n"
          "Follow one route hop by hop: every switch it crosses (GUID, description), the\n"
          "port it enters and leaves by, the VL of the outgoing hop and the path's SL.\n"
          "The routing is read from LFTS_DUMP (opensm-lfts.dump, dump_lfts output or an\n"
          "fdbs dump: opensm.fdbs, ibdiagnet2.fdbs) or, without it, computed in memory\n"
          "with CHAIN (default minhop).\n"
          "\n"
          "SRC and DST are LIDs or GUIDs: a port GUID or node GUID stands for that\n"
          "port's base LID (a CA's node GUID means its port 1, a switch's its port 0).\n"
          "A number above 0xBFFF (the last unicast LID) or written in hex with more\n"
          "than 4 digits (0x0000000000001234) is a GUID, any other a LID; write\n"
          "lid:N or guid:N to say which.\n"
          "\n"
          "Options:\n"
          "  --from SRC                  source: LID or GUID of an end port or a switch\n"
          "  --to DST                    destination LID (any LID of its LMC range) or GUID\n"
          "  -R, --routing-engine CHAIN  engines tried in order (without LFTS_DUMP)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --sl2vl FILE                with LFTS_DUMP: the switches' SL2VL tables\n"
          "                              (ibdiagnet2.sl2vl) give the VLs of the hops\n"
          "  --path-sl FILE              with LFTS_DUMP: the paths' SLs (ibdmchk -c's\n"
          "                              file, ibr-paths.psl)\n"
          "  --lmc N                     reassign all LIDs with LMC N (0..7)\n"
          "  --root-guids FILE           root switch GUIDs (updn) when routing\n"
          "  --seed N                    seed of random choices when routing\n"
          "  --max-vls N                 data VLs available when routing (1..15)\n"
          "  --param ENGINE.SETTING=VALUE  an engine setting when routing (repeatable)\n"
          "  --threads N                 worker threads when routing (0 = one per CPU)\n"
          "  --groups FILE               multicast groups (as ibr route --groups); with\n"
          "                              --mlid, trace a multicast packet instead\n"
          "  --mlid MLID                 flood a packet from SRC (a member) to MLID through\n"
          "                              the multicast tables: every copy, the switch it\n"
          "                              leaves and where it arrives, duplicates marked\n"
          "  --mcast-balance             balanced multicast trees (as ibr route)\n"
          "  --json                      print the trace as JSON\n"
          "  -q, --quiet                 no progress lines on stderr (reading big dumps)\n"
          "\n"
          "Exit status: 0 the route reaches DST (multicast: every other member gets one\n"
          "copy), 1 it breaks (no LFT entry, bad port, down link, loop: the last hop\n"
          "shows where; multicast: a member missed or reached twice, a copy where no\n"
          "member is), 2 usage or input error.\n",
          o);
}

/*
 * A LID or a GUID from the command line: "lid:N", "guid:N", or a number:
 * a GUID when it is above the unicast LIDs (0xBFFF) or written in hex with
 * more than 4 digits (0x0000000000001234), else a LID. Returns the base LID
 * of the GUID's port, or the LID as given; 0 after printing an error.
 */
static uint16_t resolve_endpoint(const ibr_topo *t, const char *opt, const char *arg)
{
    int force = 0; /* 1 LID, 2 GUID */
    const char *num = arg;
    uint64_t v;
    uint32_t node;
    unsigned int port;
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_node_info ni = IBR_NODE_INFO_INIT;

    if (strncmp(arg, "lid:", 4) == 0) {
        force = 1;
        num = arg + 4;
    } else if (strncmp(arg, "guid:", 5) == 0) {
        force = 2;
        num = arg + 5;
    }
    if (cli_parse_u64(num, UINT64_MAX, &v) < 0) {
        cli_error("CL061", opt, "'%s' is not a LID or GUID", arg);
        return 0;
    }
    if (force == 0) {
        size_t digits = 0;
        if (num[0] == '0' && (num[1] == 'x' || num[1] == 'X'))
            digits = strlen(num + 2);
        force = v > 0xBFFF || digits > 4 ? 2 : 1;
    }
    if (force == 1) {
        /* a bare number that is also a GUID of the fabric: say how to
           write it as one */
        char hint[96] = "";
        if (num == arg && ibr_topo_find_guid(&node, &port, t, v) == 0)
            snprintf(hint, sizeof hint, " (for the GUID, write guid:%.64s)", arg);
        if (ibr_topo_max_lid(t) == 0) {
            cli_error("CL062", opt, "LID %" PRIu64 ": the topology has no LIDs", v);
            return 0;
        }
        if (v == 0 || v > ibr_topo_max_lid(t)) {
            cli_error("CL063", opt, "LID %" PRIu64 " is not in the topology (LIDs 1..%u)%s", v,
                      (unsigned)ibr_topo_max_lid(t), hint);
            return 0;
        }
        if (ibr_topo_lid_owner(NULL, NULL, t, (uint16_t)v) < 0) {
            cli_error("CL064", opt, "no port owns LID %" PRIu64 "%s", v, hint);
            return 0;
        }
        return (uint16_t)v;
    }
    if (ibr_topo_find_guid(&node, &port, t, v) < 0 || ibr_topo_node_info(&ni, t, node) < 0) {
        cli_error("CL065", opt, "no node or port has GUID 0x%016" PRIx64, v);
        return 0;
    }
    if (ibr_topo_port_info(&pi, t, node, ni.type == IBR_NODE_SWITCH ? 0 : port) < 0 ||
        pi.lid == 0) {
        cli_error("CL066", opt, "GUID 0x%016" PRIx64 " (%s port %u) has no LID", v,
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
    ibr_node_info ni = IBR_NODE_INFO_INIT;

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

/* The start of a trace's JSON object: {"topology": SRC, "engine": ENGINE. */
static void json_head(const char *src, const ibr_result *r)
{
    cli_json_printed = 1;
    printf("{\"topology\": ");
    cli_json_string(stdout, src);
    printf(", \"engine\": ");
    cli_json_string(stdout, ibr_result_engine(r));
}

/* Why the route stops at the last of its @p n hops (ibr_result_trace() said
   it does not reach LID @p dlid): the last hop's status, in words. */
static void break_reason(char *buf, size_t len, const ibr_topo *t, const ibr_trace_hop *hops,
                         size_t n, uint16_t dlid)
{
    const ibr_trace_hop *last = &hops[n - 1];
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    size_t k;

    if (ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, last->sw)) < 0)
        memset(&ni, 0, sizeof(ni));
    switch (last->status) {
    case IBR_HOP_NO_ROUTE:
        snprintf(buf, len, "switch 0x%016" PRIx64 " has no LFT entry for LID %u",
                 ni.node_guid, (unsigned)dlid);
        break;
    case IBR_HOP_NOT_OWNER:
        snprintf(buf, len, "switch 0x%016" PRIx64 " keeps LID %u (port 0) but does not own it",
                 ni.node_guid, (unsigned)dlid);
        break;
    case IBR_HOP_NO_PORT:
        snprintf(buf, len, "switch 0x%016" PRIx64 " sends LID %u to port %u, which it lacks "
                 "(%u ports)", ni.node_guid, (unsigned)dlid, last->out_port, ni.nports);
        break;
    case IBR_HOP_UNCABLED:
    case IBR_HOP_DOWN_LINK:
    case IBR_HOP_DEAD_END:
        snprintf(buf, len, "switch 0x%016" PRIx64 " sends LID %u to port %u, %s", ni.node_guid,
                 (unsigned)dlid, last->out_port,
                 last->status == IBR_HOP_UNCABLED    ? "which is not cabled"
                 : last->status == IBR_HOP_DOWN_LINK ? "whose link is down"
                                                     : "which leads to another end node");
        break;
    case IBR_HOP_LOOP:
        /* the earlier hop that entered the switch by the same port */
        for (k = 0; k + 1 < n; k++)
            if (hops[k].sw == last->sw && hops[k].in_port == last->in_port)
                break;
        snprintf(buf, len, "the route loops: hop %zu enters switch 0x%016" PRIx64
                 " by port %u as hop %zu did", n, ni.node_guid, last->in_port, k + 1);
        break;
    default: /* a status newer than this program */
        snprintf(buf, len, "the route stops at switch 0x%016" PRIx64, ni.node_guid);
    }
}

/* Where a multicast copy arrives: "0x<GUID> port P 'desc'". */
static void node_port_text(char *buf, size_t len, const ibr_topo *t, uint32_t node, unsigned port)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    if (node == IBR_NONE || ibr_topo_node_info(&ni, t, node) < 0) {
        snprintf(buf, len, "(nothing: port not cabled or down)");
        return;
    }
    snprintf(buf, len, "0x%016" PRIx64 " port %u '%s'", ni.node_guid, port,
             ni.desc ? ni.desc : "");
}

/* ibr trace --mlid: flood a packet from the port owning slid. */
static int trace_mcast(const char *src, const ibr_topo *t, const ibr_result *r, uint16_t mlid,
                       uint16_t slid, int json)
{
    uint32_t node;
    unsigned port;
    ibr_mcast_hop *hops = NULL;
    size_t n = 0, m = 0, i;
    char text[320];
    if (ibr_topo_lid_owner(&node, &port, t, slid) < 0) {
        cli_error("CL067", "--from", "no port owns LID %u", (unsigned)slid);
        return CLI_EXIT_ERROR;
    }
    int rc = ibr_result_trace_mcast(NULL, 0, &n, r, mlid, node, port);
    if (rc == IBR_ERANGE) {
        hops = calloc(n, sizeof(*hops));
        if (!hops) {
            cli_error("CL011", "trace", "out of memory");
            return CLI_EXIT_ERROR;
        }
        rc = ibr_result_trace_mcast(hops, n, &n, r, mlid, node, port);
    }
    if (rc == IBR_ENOTFOUND) {
        free(hops);
        cli_error("CL068", "trace",
                  "MLID 0x%04X has no multicast tables (not in --groups), or the "
                  "source is not cabled to a switch",
                  (unsigned)mlid);
        return CLI_EXIT_ERROR;
    }
    if (rc < 0 && rc != IBR_EROUTES) {
        free(hops);
        cli_lib_error("trace", NULL, rc);
        return CLI_EXIT_ERROR;
    }
    ibr_result_mcast_members(NULL, 0, &m, r, mlid);
    node_port_text(text, sizeof(text), t, node, port);
    if (json) {
        json_head(src, r);
        printf(", \"mlid\": %u, \"src_lid\": %u, \"src\": ", (unsigned)mlid, (unsigned)slid);
        cli_json_string(stdout, text);
        printf(", \"members\": %zu, \"exact\": %s, \"copies\": [", m,
               rc == 0 ? "true" : "false");
        for (i = 0; i < n; i++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            char to[320];
            ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, hops[i].sw));
            node_port_text(to, sizeof(to), t, hops[i].to_node, hops[i].to_port);
            printf("%s\n  {\"switch\": %" PRIu32 ", \"guid\": \"0x%016" PRIx64
                   "\", \"in_port\": %u, \"out_port\": %u, \"depth\": %u, \"duplicate\": %s"
                   ", \"to\": ",
                   i ? "," : "", hops[i].sw, ni.node_guid, hops[i].in_port, hops[i].out_port,
                   hops[i].depth, hops[i].duplicate ? "true" : "false");
            cli_json_string(stdout, to);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("from:   %s\n", text);
        printf("to:     MLID 0x%04X (%zu members)\n", (unsigned)mlid, m);
        printf("engine: %s\n", ibr_result_engine(r));
        printf("%5s  %-18s %4s %4s  %s\n", "depth", "switch", "in", "out", "to");
        for (i = 0; i < n; i++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            char to[320];
            ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, hops[i].sw));
            node_port_text(to, sizeof(to), t, hops[i].to_node, hops[i].to_port);
            printf("%5u  0x%016" PRIx64 " %4u %4u  %s%s\n", hops[i].depth, ni.node_guid,
                   hops[i].in_port, hops[i].out_port, to,
                   hops[i].duplicate ? "  DUPLICATE" : "");
        }
        if (rc == 0)
            printf("delivered: every other member exactly once (%zu copies sent)\n", n);
        else
            printf("BROKEN: a member is missed or reached twice, or a copy goes where no "
                   "member is (ibr route --groups ... verifies which)\n");
    }
    cli_flush_stdout();
    free(hops);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INVALID;
}

/* The unicast path from @p slid to @p dlid (@p n hops on SL @p sl; @p rc
   IBR_EROUTES when it breaks off), as text or JSON. */
static void print_trace(const char *src, const ibr_topo *t, const ibr_result *r,
                        const ibr_trace_hop *hops, size_t n, unsigned int sl, uint16_t slid,
                        uint16_t dlid, int rc, int json)
{
    char stext[320], dtext[320], why[256];
    uint64_t sguid, dguid;
    const char *sdesc, *ddesc;
    unsigned int sport, dport;
    size_t i;

    why[0] = '\0';
    if (rc == IBR_EROUTES)
        break_reason(why, sizeof(why), t, hops, n, dlid);
    lid_owner_text(stext, sizeof(stext), t, slid, &sguid, &sdesc, &sport);
    lid_owner_text(dtext, sizeof(dtext), t, dlid, &dguid, &ddesc, &dport);
    if (json) {
        json_head(src, r);
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
            ibr_node_info ni = IBR_NODE_INFO_INIT;

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
            ibr_node_info ni = IBR_NODE_INFO_INIT;
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
}

int cmd_trace(int argc, char **argv)
{
    enum { O_FROM = CLI_OPT_OWN, O_TO, O_MLID, O_SL2VL, O_PSL };
    static const struct option own[] = {{"mlid", required_argument, NULL, O_MLID},
                                        {"sl2vl", required_argument, NULL, O_SL2VL},
                                        {"path-sl", required_argument, NULL, O_PSL},
                                        {"from", required_argument, NULL, O_FROM},
                                        {"to", required_argument, NULL, O_TO},
                                        {0, 0, 0, 0}};
    struct option lo[CLI_LONG_OPTIONS_MAX];
    const char *from = NULL, *to = NULL, *chain = NULL, *groups_file = NULL, *mlid_arg = NULL;
    int mbal = 0;
    uint64_t mlid = 0;
    ibr_mcast_groups *groups = NULL;
    const char *src, *dump = NULL;
    int c, json = 0, rc, ret = CLI_EXIT_ERROR;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    cli_route_args ra;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    ibr_trace_hop *hops = NULL;
    size_t n = 0;
    unsigned int sl = 0;
    uint16_t slid, dlid;

    cli_route_args_init(&ra);
    cli_long_options(lo, own, CLI_CMD_TRACE);
    while ((c = getopt_long(argc, argv, "hqR:", lo, NULL)) != -1) {
        switch (c) {
        case O_FROM: from = optarg; break;
        case O_TO: to = optarg; break;
        case CLI_OPT_GROUPS: groups_file = optarg; break;
        case O_MLID: mlid_arg = optarg; break;
        case O_SL2VL: cli_sl2vl_path = optarg; break;
        case O_PSL: cli_psl_path = optarg; break;
        case CLI_OPT_MCAST_BALANCE: mbal = 1; break;
        case 'R': chain = optarg; break;
        case CLI_OPT_JSON: json = 1; break;
        case 'q': cli_quiet = 1; break;
        case 'h': usage_trace(stdout); ret = CLI_EXIT_OK; goto out;
        default:
            if (cli_shared_option(&ta, &ra, c, optarg, usage_trace) < 0)
                goto out;
        }
    }
    if (optind >= argc || argc - optind > 2) {
        if (optind >= argc)
            cli_error("CL036", "trace", "missing TOPOLOGY (try 'ibr %s --help')", "trace");
        else
            cli_error("CL037", "trace", "too many arguments");
        goto out;
    }
    src = argv[optind];
    if (argc - optind == 2)
        dump = argv[optind + 1];
    if (mlid_arg) {
        if (!groups_file || !from || to || dump) {
            cli_error("CL069", "trace",
                      "--mlid needs --groups FILE and --from SRC, and takes no --to "
                      "or LFTS_DUMP (the tables are computed)");
            goto out;
        }
        if (cli_parse_u64(mlid_arg, 0xFFFF, &mlid) < 0 || mlid < 0xC000 || mlid > 0xFFFE) {
            cli_error("CL070", "--mlid", "'%s' is not a multicast LID (0xC000..0xFFFE)", mlid_arg);
            goto out;
        }
    } else if (!from || !to) {
        cli_error("CL071", "trace", "--from and --to are required");
        goto out;
    }
    if ((groups_file || mbal) && !mlid_arg) {
        cli_error("CL072", "trace", "--groups and --mcast-balance go with --mlid");
        goto out;
    }
    if (dump && (chain || ra.files[CLI_GUIDS_ROOT] || ra.n_params)) {
        cli_error("CL073", "trace",
                  "give either LFTS_DUMP or -R CHAIN (with routing options), "
                  "not both");
        goto out;
    }
    if (cli_topo_args_check(&ta, "trace") < 0)
        goto out;
    if (cli_make_context(&ctx, IBR_LOG_WARN) < 0)
        goto out;
    if ((!dump && cli_route_args_check_chain(&ra, ctx, chain, "trace") < 0) ||
        cli_route_args_load(&ra, ctx) < 0 || cli_load_topo(&t, ctx, src, &ta) < 0)
        goto out;
    if (mlid_arg) {
        if (cli_load_groups(&groups, t, groups_file) < 0 ||
            !(slid = resolve_endpoint(t, "--from", from)))
            goto out;
        ra.opts.mcast_groups = groups;
        ra.opts.mcast_flags = mbal ? IBR_MCAST_BALANCE : 0;
        rc = ibr_route(&r, t, chain, &ra.opts);
        if (rc < 0) {
            cli_lib_error("route", r ? ibr_result_last_error(r) : NULL, rc);
            goto out;
        }
        ret = trace_mcast(src, t, r, (uint16_t)mlid, slid, json);
        goto out;
    }
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
    /* the number of hops first, then the hops */
    rc = ibr_result_trace(NULL, 0, &n, &sl, r, slid, dlid);
    if (rc == IBR_ERANGE) {
        hops = calloc(n, sizeof(*hops));
        if (!hops) {
            cli_error("CL011", "trace", "out of memory");
            goto out;
        }
        rc = ibr_result_trace(hops, n, &n, &sl, r, slid, dlid);
    }
    if (rc == IBR_ENOTFOUND) {
        cli_error("CL074", "trace", "LID %u is not cabled to a switch", (unsigned)slid);
        goto out;
    }
    if (rc < 0 && rc != IBR_EROUTES) {
        cli_lib_error("trace", NULL, rc);
        goto out;
    }
    print_trace(src, t, r, hops, n, sl, slid, dlid, rc, json);
    cli_flush_stdout();
    ret = rc == 0 ? CLI_EXIT_OK : CLI_EXIT_INVALID;
out:
    free(hops);
    ibr_result_destroy(r);
    ibr_mcast_groups_destroy(groups);
    ibr_topo_destroy(t);
    cli_route_args_dispose(&ra);
    ibr_context_destroy(ctx);
    return ret;
}
