/*
 * cmd_export.c - `ibr export`: a routing, computed here or read from an
 * OpenSM LFT dump, in the input formats of simulators and schedulers
 * (export_sim.c, export_slurm.c; doc/exporters.md).
 *
 *   ibr export FORMAT TOPOLOGY [LFTS_DUMP | -R CHAIN] [-o OUT] [options]
 */
#include "export_formats.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(xout *o, const xfab *x);
    int dir; /* writes several files: OUT is a directory */
    const char *help;
} formats[] = {
    {"codes", xexp_codes, 1, "CODES fat-tree model: DIR/0x<switch GUID>.lft, one per switch"},
    {"sst-macro", xexp_sst_macro, 1,
     "SST/macro: DIR/sstmacro-topology.json (file topology) and\n"
     "                DIR/sstmacro-routing.json (table router)"},
    {"sst-merlin", xexp_sst_merlin, 1,
     "SST Merlin anytopo: DIR/anytopo.graphml and\n"
     "                DIR/anytopo-routing.json (source routing)"},
    {"slurm-conf", xexp_slurm_conf, 0, "Slurm topology.conf (topology/tree)"},
    {"slurm-yaml", xexp_slurm_yaml, 0, "Slurm topology.yaml (a tree and a block topology)"},
    {"orcs", xexp_orcs, 0, "ORCS (congestion simulator): a digraph whose edges list the hosts\n"
                           "                routed over them"},
};

#define N_FORMATS (sizeof formats / sizeof formats[0])

void usage_export(FILE *o)
{
    fputs("usage: ibr export FORMAT TOPOLOGY [LFTS_DUMP | -R CHAIN] [-o OUT] [options]\n"
          "\n"
          "Write the routing of TOPOLOGY (a file or gen:SPEC) in the input format of a\n"
          "simulator or scheduler. The tables are read from LFTS_DUMP (opensm-lfts.dump,\n"
          "dump_lfts output or an ibdiagnet/OpenSM fdbs file) or computed with CHAIN\n"
          "(default minhop). FORMAT:\n",
          o);
    for (size_t i = 0; i < N_FORMATS; i++)
        fprintf(o, "  %-13s %s\n", formats[i].name, formats[i].help);
    fputs("\n"
          "codes, sst-macro and sst-merlin write into the directory OUT (created);\n"
          "slurm-conf, slurm-yaml and orcs write the file OUT, standard output by default.\n"
          "Every destination must be routed from every switch (the simulators abort\n"
          "otherwise). doc/exporters.md names the program and file that reads each format.\n"
          "The rank order that makes ftree's shift pattern free of congestion is\n"
          "`ibr order -R ftree TOPOLOGY`.\n"
          "\n"
          "Options:\n"
          "  -R, --routing-engine CHAIN  route in memory with CHAIN (no LFTS_DUMP)\n"
          "  -o, --output OUT            the directory or file to write\n"
          "  --lmc N, --guid2lid FILE    the LIDs (as ibr route)\n"
          "  -q, --quiet, --no-progress  no progress lines\n"
          "  routing options, as for ibr route: --seed, --threads, --max-vls,\n"
          "  --root-guids, --cn-guids, --io-guids, --guid-routing-order,\n"
          "  --guid-routing-order-no-scatter, --ignore-guids, --ids-guid-file, --scatter,\n"
          "  --scatter-ports, --port-shifting, --port-profile-switch-nodes,\n"
          "  --connect-roots, --max-reverse-hops, --param, --param-file, --torus-config,\n"
          "  --lfts-file, --lid-matrix-file\n"
          "\n"
          "Exit status: 0 ok, 1 unroutable fabric, 2 usage or input error or a routing\n"
          "the format cannot hold (a destination without a route).\n",
          o);
}

/* Write the files of @p xo: into directory @p out, or the one file to
   @p out ("-" = stdout). 0 or -1 (reported). */
static int write_out(const xout *xo, const char *out, int dir)
{
    if (!dir) {
        int rc = cli_write_file(out, xo->f[0].b.p ? xo->f[0].b.p : "", xo->f[0].b.len);
        if (rc) {
            cli_error("CL030", strcmp(out, "-") ? out : "stdout", "cannot write: %s", strerror(rc));
            return -1;
        }
        return 0;
    }
    int rc = cli_mkdir_p(out);
    if (rc) {
        cli_error("CL030", out, "cannot write: %s", strerror(rc));
        return -1;
    }
    for (size_t i = 0; i < xo->n; i++) {
        size_t len = strlen(out) + strlen(xo->f[i].name) + 2;
        char *path = malloc(len);
        if (!path) {
            cli_error("CL011", "export", "out of memory");
            return -1;
        }
        snprintf(path, len, "%s/%s", out, xo->f[i].name);
        rc = cli_write_file(path, xo->f[i].b.p ? xo->f[i].b.p : "", xo->f[i].b.len);
        if (rc)
            cli_error("CL030", path, "cannot write: %s", strerror(rc));
        free(path);
        if (rc)
            return -1;
    }
    return 0;
}

typedef struct export_args {
    const char *chain, *out, *dump, *src;
    size_t fmt;
    cli_topo_args ta;
    cli_route_args ra;
} export_args;

/* The long options of ibr export: route's, from the one shared table,
   less those that name what route does besides routing (its dumps, the
   database, multicast, QoS, the report). */
static const struct option *export_options(struct option *lo)
{
    static const char *const route_only[] = {
        "dumps", "all-dumps", "save-db", "groups", "mcast-balance", "qos", "qos-config",
        "qos-levels", "no-verify", "json", "verbose"};
    static const struct option none[] = {{0, 0, 0, 0}};
    struct option all[CLI_LONG_OPTIONS_MAX];
    size_t n = 0;
    cli_long_options(all, none, CLI_CMD_ROUTE);
    for (size_t i = 0; all[i].name; i++) {
        size_t k = 0;
        while (k < sizeof route_only / sizeof route_only[0] && strcmp(route_only[k], all[i].name))
            k++;
        if (k == sizeof route_only / sizeof route_only[0])
            lo[n++] = all[i];
    }
    lo[n] = (struct option){0, 0, 0, 0};
    return lo;
}

/* Options and operands; 1 after --help, -1 on an error (reported). */
static int export_parse(export_args *ea, int argc, char **argv)
{
    struct option lo[CLI_LONG_OPTIONS_MAX];
    int c;
    export_options(lo);
    while ((c = getopt_long(argc, argv, "hqR:o:", lo, NULL)) != -1) {
        switch (c) {
        case 'R': ea->chain = optarg; break;
        case 'o': ea->out = optarg; break;
        case 'q': cli_quiet = 1; break;
        case 'h': usage_export(stdout); return 1;
        default:
            if (cli_shared_option(&ea->ta, &ea->ra, c, optarg, usage_export) < 0)
                return -1;
        }
    }
    if (optind + 2 != argc && optind + 3 != argc) {
        cli_error("CL033", "export",
                  "expected FORMAT TOPOLOGY [LFTS_DUMP] (try 'ibr export --help')");
        return -1;
    }
    for (ea->fmt = 0; ea->fmt < N_FORMATS; ea->fmt++)
        if (!strcmp(formats[ea->fmt].name, argv[optind]))
            break;
    if (ea->fmt == N_FORMATS) {
        cli_error("CL034", "export",
                  "unknown format '%s' (known: codes, sst-macro, sst-merlin, "
                  "slurm-conf, slurm-yaml, orcs)",
                  argv[optind]);
        return -1;
    }
    ea->src = argv[optind + 1];
    ea->dump = optind + 3 == argc ? argv[optind + 2] : NULL;
    if (ea->dump && ea->chain) {
        cli_error("CL026", "export", "-R and LFTS_DUMP exclude each other");
        return -1;
    }
    if (formats[ea->fmt].dir && !ea->out) {
        cli_error("CL035", "export", "%s writes several files: give the directory with -o DIR",
                  formats[ea->fmt].name);
        return -1;
    }
    return cli_topo_args_check(&ea->ta, "export");
}

int cmd_export(int argc, char **argv)
{
    export_args ea;
    memset(&ea, 0, sizeof ea);
    ea.ta = (cli_topo_args)CLI_TOPO_ARGS_INIT;
    int ret = CLI_EXIT_ERROR, rc;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    xfab x = {0};
    xout xo = {0};

    cli_route_args_init(&ea.ra);
    rc = export_parse(&ea, argc, argv);
    if (rc) {
        ret = rc > 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
        goto out;
    }
    if (cli_make_context(&ctx, IBR_LOG_WARN) < 0)
        goto out;
    ea.ta.assign_what = ea.src;
    if (cli_load_topo(&t, ctx, ea.src, &ea.ta) < 0)
        goto out;
    if (ea.dump) {
        if (cli_load_lfts(&r, t, ea.dump) < 0)
            goto out;
    } else {
        const char *chain = ea.chain ? ea.chain : "minhop";
        if (cli_route_args_check_chain(&ea.ra, ctx, chain, "export") < 0 ||
            cli_route_args_load(&ea.ra, ctx) < 0)
            goto out;
        rc = ibr_route(&r, t, chain, &ea.ra.opts);
        if (rc < 0) {
            cli_lib_error("route", r ? ibr_result_last_error(r) : ibr_context_last_error(ctx),
                          rc);
            ret = rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
            goto out;
        }
    }
    if (xfab_init(&x, r) < 0 || formats[ea.fmt].run(&xo, &x) < 0 || !xo.n ||
        write_out(&xo, ea.out ? ea.out : "-", formats[ea.fmt].dir) < 0)
        goto out;
    ret = CLI_EXIT_OK;
out:
    xout_dispose(&xo);
    xfab_dispose(&x);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    cli_route_args_dispose(&ea.ra);
    ibr_context_destroy(ctx);
    return ret;
}
