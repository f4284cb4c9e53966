/*
 * cmd_order.c - `ibr order`: the end ports in the order in which ftree or
 * dmodc balances its destinations (the engine's "rank-order.txt"
 * artefact), as a rank order or a hostfile for MPI and NCCL.
 *
 *   ibr order -R ENGINE TOPOLOGY [routing options] [--nodes] [-o FILE]
 */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define RANK_ORDER "rank-order.txt"

void usage_order(FILE *o)
{
    fputs("usage: ibr order -R ENGINE TOPOLOGY [--nodes] [-o FILE] [routing options]\n"
          "\n"
          "Route TOPOLOGY (a file or gen:SPEC) and print its end ports in the order in\n"
          "which the engine ranks its destinations: ftree takes the compute nodes leaf\n"
          "by leaf in port order, dmodc by its destination index. On an intact fat tree\n"
          "every shift in that order (rank k to rank k + s) is free of congestion, so\n"
          "MPI or NCCL ranks placed in it get the balanced routes. One line per end\n"
          "port after a '#' line: rank, the engine's destination index, port GUID,\n"
          "LID, node description (tab-separated). The same text is the artefact\n"
          "rank-order.txt of the result (ibr_result_find_artifact(); `ibr route -o DIR`\n"
          "writes it as DIR/rank-order.txt).\n"
          "\n"
          "Options:\n"
          "  -R, --routing-engine CHAIN  ftree or dmodc (a chain: the engine that routes\n"
          "                              must be one of them)\n"
          "  --nodes                     one line per node instead: the node descriptions'\n"
          "                              first words (host names), each at its first end\n"
          "                              port's rank (a hostfile)\n"
          "  -o, --output FILE           write to FILE instead of standard output (-)\n"
          "  --lmc N, --guid2lid FILE    the LIDs (as ibr route)\n"
          "  --root-guids FILE, --cn-guids FILE, --io-guids FILE, --seed N, --threads N,\n"
          "  --param ENGINE.SETTING=VALUE, --param-file ENGINE.SETTING=FILE\n"
          "                              routing options (as ibr route)\n"
          "  -q, --quiet                 no progress lines\n"
          "\n"
          "Exit status: 0 ok, 1 unroutable fabric, 2 usage or input error or an engine\n"
          "without a destination order.\n",
          o);
}

/* The first word of the description on an artefact line (its fifth
   field), or the whole description. */
static void host_name(const char *line, size_t len, const char **name, size_t *nlen)
{
    size_t i = 0;
    for (unsigned tabs = 0; i < len && tabs < 4; i++)
        if (line[i] == '\t')
            tabs++;
    size_t j = i;
    while (j < len && line[j] != ' ')
        j++;
    *name = line + i;
    *nlen = j - i;
}

/* The hostfile of the artefact @p data: one line per distinct host name,
   in the order of first appearance (hosts numbered node by node or leaf
   by leaf alike list each node once), into @p dst (at least @p size
   bytes: every name and its newline fit in its line). Returns the length,
   or (size_t)-1 when out of memory. */
static size_t hostfile(char *dst, const char *data, size_t size)
{
    /* the names seen so far, searched linearly: O(end ports x nodes) */
    const char **seen = NULL;
    size_t *seen_len = NULL, n = 0, cap = 0, out = 0;
    for (size_t p = 0; p < size;) {
        const char *nl = memchr(data + p, '\n', size - p);
        size_t len = nl ? (size_t)(nl - (data + p)) : size - p;
        const char *line = data + p, *name;
        size_t nlen, k;
        p += len + 1;
        if (!len || line[0] == '#')
            continue;
        host_name(line, len, &name, &nlen);
        for (k = 0; k < n; k++)
            if (seen_len[k] == nlen && !memcmp(seen[k], name, nlen))
                break;
        if (k < n)
            continue;
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 256;
            const char **x = realloc(seen, nc * sizeof *x);
            if (x)
                seen = x;
            size_t *y = x ? realloc(seen_len, nc * sizeof *y) : NULL;
            if (y)
                seen_len = y;
            if (!x || !y) {
                out = (size_t)-1;
                break;
            }
            cap = nc;
        }
        seen[n] = name;
        seen_len[n++] = nlen;
        memcpy(dst + out, name, nlen);
        out += nlen;
        dst[out++] = '\n';
    }
    free(seen);
    free(seen_len);
    return out;
}

int cmd_order(int argc, char **argv)
{
    enum { O_NODES = CLI_OPT_OWN };
    static const struct option own[] = {{"nodes", no_argument, NULL, O_NODES}, {0, 0, 0, 0}};
    struct option lo[CLI_LONG_OPTIONS_MAX];
    const char *chain = NULL, *output = "-";
    int c, rc, nodes = 0, ret = CLI_EXIT_ERROR;
    cli_topo_args ta = CLI_TOPO_ARGS_INIT;
    cli_route_args ra;
    ibr_context *ctx = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;

    cli_route_args_init(&ra);
    cli_long_options(lo, own, CLI_CMD_ORDER);
    while ((c = getopt_long(argc, argv, "hqR:o:", lo, NULL)) != -1) {
        switch (c) {
        case 'R': chain = optarg; break;
        case 'o': output = optarg; break;
        case O_NODES: nodes = 1; break;
        case 'q': cli_quiet = 1; break;
        case 'h': usage_order(stdout); ret = CLI_EXIT_OK; goto out;
        default:
            if (cli_shared_option(&ta, &ra, c, optarg, usage_order) < 0)
                goto out;
        }
    }
    if (optind + 1 != argc) {
        if (optind >= argc)
            cli_error("CL036", "order", "missing TOPOLOGY (try 'ibr %s --help')", "order");
        else
            cli_error("CL037", "order", "too many arguments");
        goto out;
    }
    if (!chain) {
        cli_error("CL038", "order", "-R ENGINE is required (ftree or dmodc)");
        goto out;
    }
    if (cli_topo_args_check(&ta, "order") < 0 || cli_make_context(&ctx, IBR_LOG_WARN) < 0)
        goto out;
    if (cli_route_args_check_chain(&ra, ctx, chain, "order") < 0 ||
        cli_route_args_load(&ra, ctx) < 0 || cli_load_topo(&t, ctx, argv[optind], &ta) < 0)
        goto out;
    rc = ibr_route(&r, t, chain, &ra.opts);
    if (rc < 0) {
        cli_lib_error("route", r ? ibr_result_last_error(r) : ibr_context_last_error(ctx), rc);
        ret = rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
        goto out;
    }
    const void *data;
    size_t size;
    if (ibr_result_find_artifact(&data, &size, r, RANK_ORDER) < 0) {
        cli_error("CL039", "order", "engine %s has no destination order (ftree and dmodc have one)",
                  ibr_result_engine(r));
        goto out;
    }
    char *hosts = NULL;
    size_t len = size;
    if (nodes) {
        hosts = malloc(size ? size : 1);
        len = hosts ? hostfile(hosts, data, size) : (size_t)-1;
        if (len == (size_t)-1) {
            cli_error("CL011", "order", "out of memory");
            free(hosts);
            goto out;
        }
    }
    rc = cli_write_file(output, nodes ? hosts : data, len);
    free(hosts);
    if (rc != 0) {
        cli_error("CL030", strcmp(output, "-") ? output : "stdout", "cannot write: %s",
                  strerror(rc));
        goto out;
    }
    ret = CLI_EXIT_OK;
out:
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    cli_route_args_dispose(&ra);
    ibr_context_destroy(ctx);
    return ret;
}
