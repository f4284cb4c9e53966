/*
 * cli_load.c - what the `ibr` subcommands share to get their inputs: the
 * topology (a file or gen:SPEC) with its LIDs (--lmc, --guid2lid), a routing
 * read from an LFT dump, and the routing options (ibr_options and the GUID
 * files they name) with the command-line options that set them.
 */
#include "cli.h"

#include <ctype.h>
#include <inttypes.h>

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Topology */

const char *cli_gen_spec(const char *src)
{
    return strncmp(src, "gen:", 4) == 0 ? src + 4 : NULL;
}

/* A link list (opensm-subnet.lst, ibdiagnet2.lst) opens its first entry
   with "{"; ibnetdiscover text and ibsim netfiles never do. */
static int is_link_list(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char)buf[i]))
            i++;
        if (i < len && buf[i] != '#')
            return buf[i] == '{';
        while (i < len && buf[i] != '\n')
            i++;
    }
    return 0;
}

/* ibdiagnet's database file (ibdiagnet2.db_csv) opens its first entry
   with a table marker, "START_"; no other topology format does. */
static int is_db_csv(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char)buf[i]))
            i++;
        if (i < len && buf[i] != '#')
            return len - i > 6 && strncmp(buf + i, "START_", 6) == 0;
        while (i < len && buf[i] != '\n')
            i++;
    }
    return 0;
}

int cli_load_fabric(ibr_fabric **out, ibr_context *ctx, const char *src)
{
    ibr_fabric *f = NULL;
    const char *spec = cli_gen_spec(src);
    int rc;

    *out = NULL;
    rc = ibr_fabric_create(&f, ctx);
    if (rc < 0) {
        cli_lib_error(src, NULL, rc);
        return -1;
    }
    if (spec) {
        rc = ibr_fabric_generate(f, spec);
    } else {
        char *buf;
        size_t len;
        double t0 = cli_now();

        if (cli_read_file(src, &buf, &len) < 0) {
            ibr_fabric_destroy(f);
            return -1;
        }
        cli_read_progress(src, len, t0, 0);
        if (is_db_csv(buf, len))
            rc = ibr_fabric_parse_db_csv(f, buf, len);
        else if (is_link_list(buf, len))
            rc = ibr_fabric_parse_subnet_lst(f, buf, len);
        else
            rc = ibr_fabric_parse_ibnetdiscover(f, buf, len);
        free(buf);
        cli_read_progress(src, len, t0, 1);
    }
    if (rc < 0) {
        cli_lib_error(src, ibr_fabric_last_error(f), rc);
        ibr_fabric_destroy(f);
        return -1;
    }
    *out = f;
    return 0;
}

/* Remove every LID of the fabric (before applying a guid2lid file). */
static int clear_lids(ibr_fabric *f, const char *what)
{
    uint32_t n = ibr_fabric_node_count(f), i;

    for (i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        unsigned int p, first, last;
        int rc;

        if (ibr_fabric_node_info(&ni, f, i) < 0)
            continue;
        /* a switch's LID is on port 0, a CA's or router's on each port */
        first = ni.type == IBR_NODE_SWITCH ? 0 : 1;
        last = ni.type == IBR_NODE_SWITCH ? 0 : ni.nports;
        for (p = first; p <= last; p++) {
            rc = ibr_fabric_set_lid(f, i, p, 0, 0);
            if (rc < 0) {
                cli_lib_error(what, ibr_fabric_last_error(f), rc);
                return -1;
            }
        }
    }
    return 0;
}

/* Number of switches and cabled CA/router ports without a LID. */
static uint64_t count_missing_lids(const ibr_fabric *f)
{
    uint32_t n = ibr_fabric_node_count(f), i;
    uint64_t missing = 0;

    for (i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        unsigned int p;

        if (ibr_fabric_node_info(&ni, f, i) < 0)
            continue;
        if (ni.type == IBR_NODE_SWITCH) {
            if (ibr_fabric_port_info(&pi, f, i, 0) == 0 && pi.lid == 0)
                missing++;
            continue;
        }
        for (p = 1; p <= ni.nports; p++)
            if (ibr_fabric_port_info(&pi, f, i, p) == 0 && pi.remote_node != IBR_NONE &&
                pi.lid == 0)
                missing++;
    }
    return missing;
}

int cli_apply_lids(ibr_fabric *f, const cli_topo_args *a)
{
    int rc;

    if (a->lmc >= 0) {
        rc = ibr_fabric_assign_lids(f, (unsigned int)a->lmc, IBR_LIDS_REASSIGN);
        if (rc < 0) {
            cli_lib_error("--lmc", ibr_fabric_last_error(f), rc);
            return -1;
        }
    }
    if (a->guid2lid) {
        char *buf;
        size_t len;

        if (cli_read_file(a->guid2lid, &buf, &len) < 0)
            return -1;
        /* the file's LIDs replace the generated or parsed ones */
        if (clear_lids(f, a->guid2lid) < 0) {
            free(buf);
            return -1;
        }
        rc = ibr_fabric_parse_guid2lid(f, buf, len);
        free(buf);
        if (rc < 0) {
            cli_lib_error(a->guid2lid, ibr_fabric_last_error(f), rc);
            return -1;
        }
    }
    if (count_missing_lids(f) > 0) {
        rc = ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP);
        if (rc < 0) {
            cli_lib_error(a->assign_what ? a->assign_what : "assigning LIDs",
                          ibr_fabric_last_error(f), rc);
            return -1;
        }
    }
    return 0;
}

int cli_freeze(ibr_topo **out, ibr_fabric *f, const char *what)
{
    int rc = ibr_fabric_freeze(out, f);

    if (rc < 0) {
        cli_lib_error(what, ibr_fabric_last_error(f), rc);
        return -1;
    }
    return 0;
}

int cli_load_topo(ibr_topo **out, ibr_context *ctx, const char *src, const cli_topo_args *a)
{
    ibr_fabric *f;
    int rc;

    *out = NULL;
    if (cli_load_fabric(&f, ctx, src) < 0)
        return -1;
    rc = (cli_apply_lids(f, a) < 0 || cli_freeze(out, f, src) < 0) ? -1 : 0;
    ibr_fabric_destroy(f);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Routing */

/* The SL2VL tables of --sl2vl (sl2vl set) or the path SLs of --path-sl
   into a result just read; -1 (the result destroyed, the message printed)
   on failure. */
static int load_vl_file(ibr_result **r, const char *path, int sl2vl)
{
    char *buf;
    size_t len;
    int rc;

    if (cli_read_file(path, &buf, &len) < 0)
        rc = -1;
    else {
        rc = sl2vl ? ibr_result_parse_sl2vl(*r, buf, len)
                   : ibr_result_parse_path_sl(*r, buf, len);
        free(buf);
        if (rc < 0)
            cli_lib_error(path, ibr_result_last_error(*r), rc);
    }
    if (rc < 0) {
        ibr_result_destroy(*r);
        *r = NULL;
        return -1;
    }
    return 0;
}

/* Forwarding tables are read in pieces: a dump of the whole LID space is
   about 10 GB of text, more than one wants to hold. */
typedef struct lfts_feed {
    ibr_lfts_stream *s;
    const char *path;
    uint64_t total;
    double start;
} lfts_feed;

static int feed_lfts(void *arg, const char *piece, size_t n)
{
    lfts_feed *f = arg;
    uint64_t gib = f->total >> 30;
    f->total += n;
    if (!cli_quiet && f->total >> 30 != gib)
        fprintf(stderr, "ibr: progress: reading %s: %" PRIu64 " MB in %.1fs\n", f->path,
                f->total / 1000000, cli_now() - f->start);
    return ibr_lfts_stream_feed(f->s, piece, n) < 0 ? -1 : 0;
}

int cli_load_lfts(ibr_result **out, const ibr_topo *t, const char *path)
{
    lfts_feed f = {NULL, path, 0, cli_now()};
    uint64_t total;
    int rc;

    *out = NULL;
    if ((rc = ibr_lfts_stream_new(&f.s, t)) < 0) {
        cli_lib_error(path, NULL, rc);
        return -1;
    }
    if (cli_stream_file(path, feed_lfts, &f, &total) == -1) {
        ibr_lfts_stream_destroy(f.s);
        return -1;
    }
    rc = ibr_lfts_stream_finish(f.s, out);
    ibr_lfts_stream_destroy(f.s);
    cli_read_progress(path, (size_t)total, f.start, 1);
    if (rc == 0 && cli_sl2vl_path && load_vl_file(out, cli_sl2vl_path, 1) < 0)
        return -1;
    if (rc == 0 && cli_psl_path)
        return load_vl_file(out, cli_psl_path, 0);
    if (rc < 0) {
        const char *msg = *out ? ibr_result_last_error(*out) : NULL;
        cli_lib_error(path, msg, rc);
        if (msg && strstr(msg, "[LF013]")) /* a LID beyond the topology */
            cli_error("CL010", path,
                      "hint: give the LIDs the tables were computed for with --guid2lid "
                      "FILE (OpenSM's guid2lid) or --lmc N");
        ibr_result_destroy(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Shared options */

#define R_ CLI_CMD_ROUTE
#define X_ CLI_CMD_REROUTE
#define T_ CLI_CMD_TRACE
#define O_ CLI_CMD_ORDER

/* The one table of the long options route, reroute, trace and order share,
   with the commands that take each. */
static const struct {
    struct option opt;
    unsigned cmds;
} shared_options[] = {
    {{"routing-engine", required_argument, NULL, 'R'}, R_ | T_ | O_},
    {{"routing_engine", required_argument, NULL, 'R'}, R_ | T_},
    {{"output", required_argument, NULL, 'o'}, R_ | X_ | O_},
    {{"dumps", required_argument, NULL, CLI_OPT_DUMPS}, R_ | X_},
    {{"all-dumps", no_argument, NULL, CLI_OPT_ALL_DUMPS}, R_ | X_},
    {{"save-db", required_argument, NULL, CLI_OPT_SAVE_DB}, R_ | X_},
    {{"groups", required_argument, NULL, CLI_OPT_GROUPS}, R_ | T_},
    {{"mcast-balance", no_argument, NULL, CLI_OPT_MCAST_BALANCE}, R_ | T_},
    {{"qos", no_argument, NULL, 'Q'}, R_ | X_},
    {{"qos-config", required_argument, NULL, CLI_OPT_QOS_CONFIG}, R_ | X_},
    {{"qos-levels", required_argument, NULL, CLI_OPT_QOS_LEVELS}, R_ | X_},
    {{"lmc", required_argument, NULL, CLI_OPT_LMC}, R_ | X_ | T_ | O_},
    {{"guid2lid", required_argument, NULL, CLI_OPT_GUID2LID}, R_ | X_ | T_ | O_},
    {{"seed", required_argument, NULL, CLI_OPT_SEED}, R_ | T_ | O_},
    {{"scatter", no_argument, NULL, CLI_OPT_SCATTER}, R_},
    {{"scatter-ports", no_argument, NULL, CLI_OPT_SCATTER}, R_},
    {{"port-shifting", no_argument, NULL, CLI_OPT_PORT_SHIFTING}, R_},
    {{"port-profile-switch-nodes", no_argument, NULL, CLI_OPT_PPSN}, R_},
    {{"threads", required_argument, NULL, CLI_OPT_THREADS}, R_ | X_ | T_ | O_},
    {{"max-vls", required_argument, NULL, CLI_OPT_MAX_VLS}, R_ | X_ | T_},
    {{"root-guids", required_argument, NULL, CLI_OPT_ROOT_GUIDS}, R_ | X_ | T_ | O_},
    {{"cn-guids", required_argument, NULL, CLI_OPT_CN_GUIDS}, R_ | X_ | O_},
    {{"io-guids", required_argument, NULL, CLI_OPT_IO_GUIDS}, R_ | X_ | O_},
    {{"guid-routing-order", required_argument, NULL, CLI_OPT_ORDER}, R_ | X_},
    {{"guid-routing-order-no-scatter", no_argument, NULL, CLI_OPT_ORDER_NO_SCATTER}, R_},
    {{"ignore-guids", required_argument, NULL, CLI_OPT_IGNORE_GUIDS}, R_ | X_},
    {{"ids-guid-file", required_argument, NULL, CLI_OPT_IDS}, R_ | X_},
    {{"connect-roots", no_argument, NULL, CLI_OPT_CONNECT_ROOTS}, R_},
    {{"max-reverse-hops", required_argument, NULL, CLI_OPT_MAX_REVERSE_HOPS}, R_},
    {{"param", required_argument, NULL, CLI_OPT_PARAM}, R_ | X_ | T_ | O_},
    {{"param-file", required_argument, NULL, CLI_OPT_PARAM_FILE}, R_ | X_ | O_},
    {{"torus-config", required_argument, NULL, CLI_OPT_TORUS_CONFIG}, R_},
    {{"lfts-file", required_argument, NULL, CLI_OPT_LFTS_FILE}, R_},
    {{"lid-matrix-file", required_argument, NULL, CLI_OPT_LID_MATRIX_FILE}, R_},
    {{"no-verify", no_argument, NULL, CLI_OPT_NO_VERIFY}, R_ | X_},
    {{"json", no_argument, NULL, CLI_OPT_JSON}, R_ | X_ | T_},
    {{"no-progress", no_argument, NULL, 'q'}, R_ | X_},
    {{"quiet", no_argument, NULL, 'q'}, R_ | X_ | T_ | O_},
    {{"verbose", no_argument, NULL, 'v'}, R_ | X_},
    {{"help", no_argument, NULL, 'h'}, R_ | X_ | T_ | O_},
};

#undef R_
#undef X_
#undef T_
#undef O_

const struct option *cli_long_options(struct option *out, const struct option *own,
                                      unsigned cmd)
{
    size_t n = 0;

    for (; own[n].name; n++)
        out[n] = own[n];
    for (size_t i = 0; i < sizeof shared_options / sizeof shared_options[0]; i++)
        if (shared_options[i].cmds & cmd) {
            if (n + 1 >= CLI_LONG_OPTIONS_MAX)
                abort(); /* a programming error: raise CLI_LONG_OPTIONS_MAX */
            out[n++] = shared_options[i].opt;
        }
    out[n] = (struct option){0, 0, 0, 0};
    return out;
}

void cli_route_args_init(cli_route_args *a)
{
    memset(a, 0, sizeof(*a));
    ibr_options_init(&a->opts, IBR_OPTIONS_VERSION);
}

int cli_route_args_load(cli_route_args *a, ibr_context *ctx)
{
    static const ibr_guid_list_kind kinds[CLI_GUIDS_COUNT] = {
        IBR_GUID_LIST_PLAIN, IBR_GUID_LIST_PLAIN, IBR_GUID_LIST_PLAIN,
        IBR_GUID_LIST_PLAIN, IBR_GUID_LIST_PORT,  IBR_GUID_LIST_ID};
    ibr_guid_list *const *l = a->lists;
    ibr_options *o = &a->opts;
    size_t i;

    for (i = 0; i < CLI_GUIDS_COUNT; i++)
        if (a->files[i] && cli_load_guid_list(&a->lists[i], ctx, a->files[i], kinds[i]) < 0)
            return -1;
    o->root_guids = l[CLI_GUIDS_ROOT] ? ibr_guid_list_guids(l[CLI_GUIDS_ROOT]) : NULL;
    o->n_root_guids = l[CLI_GUIDS_ROOT] ? ibr_guid_list_count(l[CLI_GUIDS_ROOT]) : 0;
    o->cn_guids = l[CLI_GUIDS_CN] ? ibr_guid_list_guids(l[CLI_GUIDS_CN]) : NULL;
    o->n_cn_guids = l[CLI_GUIDS_CN] ? ibr_guid_list_count(l[CLI_GUIDS_CN]) : 0;
    o->io_guids = l[CLI_GUIDS_IO] ? ibr_guid_list_guids(l[CLI_GUIDS_IO]) : NULL;
    o->n_io_guids = l[CLI_GUIDS_IO] ? ibr_guid_list_count(l[CLI_GUIDS_IO]) : 0;
    o->guid_routing_order = l[CLI_GUIDS_ORDER] ? ibr_guid_list_guids(l[CLI_GUIDS_ORDER]) : NULL;
    o->n_guid_routing_order = l[CLI_GUIDS_ORDER] ? ibr_guid_list_count(l[CLI_GUIDS_ORDER]) : 0;
    o->ignore_ports = l[CLI_GUIDS_IGNORE] ? ibr_guid_list_ports(l[CLI_GUIDS_IGNORE]) : NULL;
    o->n_ignore_ports = l[CLI_GUIDS_IGNORE] ? ibr_guid_list_count(l[CLI_GUIDS_IGNORE]) : 0;
    o->ids = l[CLI_GUIDS_IDS] ? ibr_guid_list_ids(l[CLI_GUIDS_IDS]) : NULL;
    o->n_ids = l[CLI_GUIDS_IDS] ? ibr_guid_list_count(l[CLI_GUIDS_IDS]) : 0;
    return 0;
}

void cli_route_args_dispose(cli_route_args *a)
{
    size_t i;

    for (i = 0; i < CLI_GUIDS_COUNT; i++) {
        ibr_guid_list_destroy(a->lists[i]);
        a->lists[i] = NULL;
    }
    for (i = 0; i < a->n_params; i++)
        free(a->param_text[i]);
    free(a->param_text);
    free(a->params);
    free(a->param_opt);
    a->param_opt = NULL;
    a->param_text = NULL;
    a->params = NULL;
    a->n_params = 0;
    a->opts.params = NULL;
    a->opts.n_params = 0;
}

/* The option that route_option() is handling ("--param", "--connect-roots",
   ...), recorded with each setting it adds. */
static const char *cur_opt = "--param";

/* Append the setting @p name = @p value (both copied). 0 or -1. */
static int add_param(cli_route_args *a, const char *name, const char *value)
{
    size_t ln = strlen(name), lv = strlen(value);
    char *text = malloc(ln + lv + 2);
    ibr_param *p = realloc(a->params, (a->n_params + 1) * sizeof *p);
    if (p)
        a->params = p;
    char **pt = p ? realloc(a->param_text, (a->n_params + 1) * sizeof *pt) : NULL;
    if (pt)
        a->param_text = pt;
    const char **po = pt ? realloc(a->param_opt, (a->n_params + 1) * sizeof *po) : NULL;
    if (po) {
        a->param_opt = po;
        po[a->n_params] = cur_opt;
    }
    if (!text || !p || !pt || !po) {
        free(text);
        cli_error("CL011", "ibr", "out of memory");
        return -1;
    }
    memcpy(text, name, ln + 1);
    memcpy(text + ln + 1, value, lv + 1);
    a->param_text[a->n_params] = text;
    a->params[a->n_params++] = (ibr_param){text, text + ln + 1};
    a->opts.params = a->params;
    a->opts.n_params = a->n_params;
    return 0;
}

/* A routing option into @p a: 1 handled, 0 not a routing option, -1 error. */

/* Read file @p path as a setting's text into *buf (*len bytes): 0; -1 when
   it cannot be read (reported); -2 when it holds a NUL byte (nothing
   kept; the caller says so). */
static int read_setting_text(const char *path, char **buf, size_t *len)
{
    if (cli_read_file(path, buf, len) < 0)
        return -1;
    if (memchr(*buf, 0, *len)) {
        free(*buf);
        *buf = NULL;
        return -2;
    }
    return 0;
}

/* A setting whose value is the text of a file (--param-file, --torus-config). */
static int param_from_file(cli_route_args *a, const char *name, const char *path)
{
    char *buf;
    size_t len;
    int got = read_setting_text(path, &buf, &len);
    if (got == -2)
        cli_error("CL012", path, "the file holds a NUL byte: not a text setting");
    if (got < 0)
        return -1;
    int rc = add_param(a, name, buf);
    free(buf);
    return rc < 0 ? -1 : 1;
}

static int route_option(cli_route_args *a, int c, const char *arg)
{
    uint64_t v;

    cur_opt = c == CLI_OPT_CONNECT_ROOTS      ? "--connect-roots"
              : c == CLI_OPT_MAX_REVERSE_HOPS ? "--max-reverse-hops"
              : c == CLI_OPT_LFTS_FILE        ? "--lfts-file"
              : c == CLI_OPT_LID_MATRIX_FILE  ? "--lid-matrix-file"
              : c == CLI_OPT_PARAM_FILE       ? "--param-file"
              : c == CLI_OPT_TORUS_CONFIG     ? "--torus-config"
                                              : "--param";
    switch (c) {
    case CLI_OPT_SEED:
        if (cli_opt_uint("--seed", arg, UINT64_MAX, &v) < 0)
            return -1;
        a->opts.seed = v;
        a->seed_given = 1;
        return 1;
    case CLI_OPT_SCATTER: a->opts.scatter_ports = 1; return 1;
    case CLI_OPT_PORT_SHIFTING: a->opts.port_shifting = 1; return 1;
    case CLI_OPT_PPSN: a->opts.port_profile_switch_nodes = 1; return 1;
    case CLI_OPT_THREADS:
        if (cli_opt_uint("--threads", arg, 1024, &v) < 0)
            return -1;
        a->opts.threads = (unsigned int)v;
        return 1;
    case CLI_OPT_MAX_VLS:
        if (cli_parse_u64(arg, 15, &v) < 0 || v < 1) {
            cli_error("CL013", "--max-vls", "'%s' is not a number in 1..15", arg);
            return -1;
        }
        a->opts.max_vls = (unsigned int)v;
        return 1;
    case CLI_OPT_ROOT_GUIDS: a->files[CLI_GUIDS_ROOT] = arg; return 1;
    case CLI_OPT_CN_GUIDS: a->files[CLI_GUIDS_CN] = arg; return 1;
    case CLI_OPT_IO_GUIDS: a->files[CLI_GUIDS_IO] = arg; return 1;
    case CLI_OPT_ORDER: a->files[CLI_GUIDS_ORDER] = arg; return 1;
    case CLI_OPT_ORDER_NO_SCATTER: a->opts.guid_routing_order_no_scatter = 1; return 1;
    case CLI_OPT_IGNORE_GUIDS: a->files[CLI_GUIDS_IGNORE] = arg; return 1;
    case CLI_OPT_IDS: a->files[CLI_GUIDS_IDS] = arg; return 1;
    case CLI_OPT_CONNECT_ROOTS: {
        static const char *const names[] = CLI_CONNECT_ROOTS_PARAMS;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (add_param(a, names[i], "1") < 0)
                return -1;
        return 1;
    }
    case CLI_OPT_MAX_REVERSE_HOPS:
        if (cli_opt_uint("--max-reverse-hops", arg, 255, &v) < 0)
            return -1;
        return add_param(a, "ftree.max_reverse_hops", arg) < 0 ? -1 : 1;
    case CLI_OPT_LFTS_FILE:
    case CLI_OPT_LID_MATRIX_FILE: {
        /* shorthands of --param-file file.lfts=FILE, file.lid_matrix=FILE */
        char *buf;
        size_t len;
        int got = read_setting_text(arg, &buf, &len);
        if (got == -2)
            cli_error("CL014", arg, "the file holds a NUL byte: not a text dump");
        if (got < 0)
            return -1;
        if (len == 0) {
            /* an empty setting reads as no setting (the engine would
               decline with "no tables given"): say what is wrong */
            free(buf);
            cli_error("CL015", arg, "the file is empty: expected %s",
                      c == CLI_OPT_LFTS_FILE ? "forwarding tables (opensm-lfts.dump, ibroute "
                                               "or dump_lfts output)"
                                             : "hop rows (opensm-lid-matrix.dump)");
            return -1;
        }
        int rc = add_param(a, c == CLI_OPT_LFTS_FILE ? "file.lfts" : "file.lid_matrix", buf);
        free(buf);
        return rc < 0 ? -1 : 1;
    }
    case CLI_OPT_PARAM:
    case CLI_OPT_PARAM_FILE: {
        const char *opt = c == CLI_OPT_PARAM ? "--param" : "--param-file";
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg) {
            cli_error("CL016", opt, "expected ENGINE.SETTING=%s",
                      c == CLI_OPT_PARAM ? "VALUE" : "FILE");
            return -1;
        }
        char name[256];
        if ((size_t)(eq - arg) >= sizeof name) {
            cli_error("CL017", opt, "setting name too long");
            return -1;
        }
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = 0;
        if (c == CLI_OPT_PARAM)
            return add_param(a, name, eq + 1) < 0 ? -1 : 1;
        return param_from_file(a, name, eq + 1);
    }
    case CLI_OPT_TORUS_CONFIG:
        return param_from_file(a, "torus-2QoS.config", arg);
    case 'Q': a->qos = 1; return 1;
    case CLI_OPT_QOS_CONFIG:
        a->qos = 1;
        a->qos_config = arg;
        return 1;
    case CLI_OPT_QOS_LEVELS:
        if (cli_opt_qos_levels(arg, &a->qos_levels) < 0)
            return -1;
        a->qos = 1;
        return 1;
    default: return 0;
    }
}

int cli_shared_option(cli_topo_args *ta, cli_route_args *ra, int c, const char *arg,
                      void (*usage)(FILE *o))
{
    uint64_t v;
    int h;

    if (ta && c == CLI_OPT_GUID2LID) {
        ta->guid2lid = arg;
        return 0;
    }
    if (ta && c == CLI_OPT_LMC) {
        if (cli_opt_uint("--lmc", arg, 7, &v) < 0)
            return -1;
        ta->lmc = (int)v;
        return 0;
    }
    h = ra ? route_option(ra, c, arg) : 0;
    if (h > 0)
        return 0;
    if (h == 0)
        cli_bad_option();
    (void)usage;
    return -1;
}

/* Whether engine @p name (len bytes) is in @p chain as ibr_route() reads
   it (names separated by commas or blanks; minhop last unless
   no_fallback). */
static int chain_has(const char *chain, const char *name, size_t len)
{
    const char *s = chain ? chain : "";
    int no_fallback = 0;

    while (*s) {
        size_t n;
        while (*s && (*s == ',' || isspace((unsigned char)*s)))
            s++;
        n = 0;
        while (s[n] && s[n] != ',' && !isspace((unsigned char)s[n]))
            n++;
        if (n == len && !memcmp(s, name, len))
            return 1;
        if (n == 11 && !memcmp(s, "no_fallback", 11))
            no_fallback = 1;
        s += n;
    }
    return !no_fallback && len == 6 && !memcmp(name, "minhop", 6);
}

int cli_route_args_check_chain(const cli_route_args *a, ibr_context *ctx, const char *chain,
                               const char *cmd)
{
    static const char *const roots[] = CLI_CONNECT_ROOTS_PARAMS;
    int roots_used = 0;

    for (size_t i = 0; i < a->n_params; i++) {
        const char *name = a->params[i].name, *dot = strchr(name, '.');
        const char *opt = a->param_opt ? a->param_opt[i] : "--param";
        char engine[64];
        ibr_engine_info info;

        if (!strcmp(opt, "--connect-roots")) {
            for (size_t k = 0; k < sizeof roots / sizeof roots[0]; k++)
                if (!strcmp(name, roots[k]) && chain_has(chain, name, strcspn(name, ".")))
                    roots_used = 1;
            continue;
        }
        /* a setting of an engine that does not exist, or without a dot:
           ibr_route() says what is wrong with it */
        if (!dot || (size_t)(dot - name) >= sizeof engine)
            continue;
        memcpy(engine, name, (size_t)(dot - name));
        engine[dot - name] = '\0';
        if (ibr_context_find_engine(&info, ctx, engine) < 0 ||
            chain_has(chain, engine, strlen(engine)))
            continue;
        if (!strcmp(opt, "--param") || !strcmp(opt, "--param-file"))
            cli_error("CL018", cmd,
                      "%s %s=...: engine %s is not in the chain (%s%s): the setting "
                      "would be ignored",
                      opt, name, engine, chain ? "-R " : "no -R: ", chain ? chain : "minhop");
        else
            cli_error("CL019", cmd,
                      "%s sets %s: engine %s is not in the chain (%s%s): the setting "
                      "would be ignored",
                      opt, name, engine, chain ? "-R " : "no -R: ", chain ? chain : "minhop");
        return -1;
    }
    for (size_t i = 0; i < a->n_params && !roots_used; i++)
        if (a->param_opt && !strcmp(a->param_opt[i], "--connect-roots")) {
            cli_error("CL020", cmd,
                      "--connect-roots: none of updn, dnup and ftree is in the chain "
                      "(%s%s): the setting would be ignored",
                      chain ? "-R " : "no -R: ", chain ? chain : "minhop");
            return -1;
        }
    return 0;
}

int cli_topo_args_check(const cli_topo_args *a, const char *cmd)
{
    if (a->guid2lid && a->lmc >= 0) {
        cli_error("CL021", cmd, "--guid2lid and --lmc exclude each other");
        return -1;
    }
    return 0;
}
