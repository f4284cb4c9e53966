/*
 * cli.h - what the files of the `ibr` command-line tool share: the
 * subcommands, messages, files, numbers, GUID lists, JSON (cli_util.c),
 * topology and routing loading and the shared options (cli_load.c). The CLI
 * links only the public ibroute API; it is the only code of the project
 * besides the examples that touches files.
 */
#ifndef IBR_CLI_H
#define IBR_CLI_H

#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <ibroute/ibroute.h>

/* Exit codes of every subcommand. */
enum {
    CLI_EXIT_OK = 0,      /* success, routes valid */
    CLI_EXIT_INVALID = 1, /* routing invalid or fabric unroutable */
    CLI_EXIT_ERROR = 2    /* usage or input error */
};

/* ------------------------------------------------------------------------ */
/* Subcommands with their own file (cmd_<name>.c): run with the arguments
 * after "ibr" (argv[0] is the subcommand's name), return an exit code;
 * usage_<name>() prints the help. */

int cmd_route(int argc, char **argv);
void usage_route(FILE *o);
int cmd_reroute(int argc, char **argv);
void usage_reroute(FILE *o);
int cmd_verify(int argc, char **argv);
int cmd_order(int argc, char **argv);
void usage_order(FILE *o);
int cmd_export(int argc, char **argv);
void usage_export(FILE *o);
void usage_verify(FILE *o);
int cmd_trace(int argc, char **argv);
void usage_trace(FILE *o);
int cmd_analyze(int argc, char **argv);
void usage_analyze(FILE *o);
int cmd_sweep(int argc, char **argv);
void usage_sweep(FILE *o);
int cmd_report(int argc, char **argv);
void usage_report(FILE *o);

/* --patterns LIST of ibr analyze ("all" or a comma list of names) into
   ibr_pattern bits (cmd_analyze.c). 0, or -1 after printing the error. */
int cli_parse_patterns(const char *s, unsigned int *out);

/* A name of a comma list and the bit it stands for. */
typedef struct cli_name_bit {
    const char *name;
    unsigned int bit;
} cli_name_bit;

/* The bits of comma list @p s, each piece one of the @p n @p names: 0 with
 * *out set; -1 at an unknown piece (*bad points at it, *bad_len its
 * length); -2 when the list gives no bit. Nothing is printed. */
int cli_parse_name_bits(const char *s, const cli_name_bit *names, size_t n, unsigned int *out,
                        const char **bad, size_t *bad_len);

/* The report of ibr_result_verify() as text (status @p rc) (cmd_verify.c);
   the JSON form is the library's ibr_verify_report_write_json(). */
void cli_print_verify_text(FILE *o, const ibr_verify_report *v, int rc);

/* ------------------------------------------------------------------------ */
/* Messages, files, numbers (cli_util.c) */

/* The first message cli_error() or cli_lib_error() printed ("what: msg"),
 * "" if none; and whether a command printed its JSON document on stdout
 * (set by each JSON printer). With --json, main() prints
 * {"error": ..., "exit_status": 2} when a command failed before printing
 * its document, so that scripts always get JSON. */
extern char cli_first_error[1024];
extern int cli_json_printed;

/* The running subcommand's name and arguments (argv[0] is the name), set
 * by main() for cli_bad_option(). */
extern const char *cli_cmd_name;

/* -q: no progress lines on stderr (reading and writing big files,
 * routing). */
extern int cli_quiet;

/* --sl2vl FILE of verify, analyze and trace: ibdiagnet's SL2VL tables,
 * applied by cli_load_lfts() to the tables it reads (NULL: none). */
extern const char *cli_sl2vl_path;
/* --path-sl FILE: the path SLs (ibdmchk -c's file), applied likewise. */
extern const char *cli_psl_path;

/* Report reading a file of @p len bytes: a line before parsing a big one
 * (64 MB or more), and one after when reading and parsing took over a
 * second (since @p start, a cli_now() value); nothing with -q. @p done: 0
 * before parsing, 1 after. */
void cli_read_progress(const char *path, size_t len, double start, int done);
extern char **cli_cmd_argv;

/* getopt_long() returned '?': print one line naming the option
 * ("ibr: route: unknown option or missing value '--bogus' (try 'ibr help
 * route')"). */
void cli_bad_option(void);

/* Handle code @p c of getopt_long() (its value @p arg) into @p args: 0, or
 * -1 after printing an error. */
typedef int (*cli_option_fn)(void *args, int c, const char *arg);

/* Read the options of argv with getopt_long(@p shortopts, @p lo): -h or
 * --help prints @p usage on stdout and returns 1; every other code goes to
 * @p fn with @p args. 0, 1, or -1 when @p fn failed (it said why). */
int cli_getopt_each(int argc, char **argv, const char *shortopts, const struct option *lo,
                    void (*usage)(FILE *o), cli_option_fn fn, void *args);

/* Print "ibr: <what>: <message> [<code>]" on stderr: every message of the
 * CLI's own ends in its stable code, a string literal "CL" and three
 * digits listed with its message in doc/messages.md (the `messages` test
 * checks each call against that table). A library message passed on
 * carries the library's code: print it with cli_lib_error(). */
void cli_error(const char *code, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print "ibr: <what>: <lib message>" where the message is @p msg when it is
 * non-empty, else ibr_strerror(rc). */
void cli_lib_error(const char *what, const char *msg, int rc);

/* Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer.
 * Prints "ibr: <path>: <reason>" on error. 0 or -1. Inputs larger than
 * $IBR_MAX_INPUT_MB (default 1 GiB) are refused. */
int cli_read_file(const char *path, char **buf, size_t *len);
/* Read path ("-": standard input) in pieces of at most 4 MB handed to fn
   in order, for inputs too large to hold (forwarding-table dumps of the
   whole LID space); no size limit, since nothing is held. 0; -1 after a
   message naming path (unreadable, binary data); -2 when fn returned < 0
   (fn said why). *total: the bytes read. */
typedef int (*cli_piece_fn)(void *arg, const char *piece, size_t n);
int cli_stream_file(const char *path, cli_piece_fn fn, void *arg, uint64_t *total);

/* Write @p len bytes to @p path ("-" = stdout). Returns 0 or an errno value. */
int cli_write_file(const char *path, const char *data, size_t len);

/* A file written piece by piece (cli_write_file() in parts). open looks
 * at what @p path (kept by the caller, "-" = stdout) is: a symbolic link is
 * followed to its target (the link stays); a regular file, or none, gets a
 * temporary file beside it, renamed over it by close when @p keep and
 * nothing failed, else removed (and removed by SIGINT, SIGTERM and SIGHUP
 * once cli_install_cleanup() ran); a device or FIFO is written through,
 * never replaced; our own stdout or stderr (/dev/stdout) is written as "-". write appends with write(2) (after an error it does
 * nothing and returns the error). Each returns 0 or an errno value. */
typedef struct cli_out {
    const char *path;
    char *tmp;
    int fd, err;
    char *target;  /* the file written: path, or the end of its symlinks */
    int through;   /* a device or FIFO, written in place */
    int slot;      /* of the temporary file for the signal handler, or -1 */
} cli_out;

/* Remove the temporary files of cli_out_open() when SIGINT, SIGTERM or
 * SIGHUP ends the program (which then dies of the signal). Once, early in
 * main(). */
void cli_install_cleanup(void);

int cli_out_open(cli_out *o, const char *path);
int cli_out_write(cli_out *o, const char *data, size_t len);
int cli_out_close(cli_out *o, int keep);

/* fflush(stdout), remembering the reason of a failure in cli_stdout_errno
 * (main() reports it at exit: the stream only keeps an error flag). 0 or
 * the errno value. */
extern int cli_stdout_errno;
int cli_flush_stdout(void);

/* Create a directory and its parents (mode 0777 & umask). 0 or errno. */
int cli_mkdir_p(const char *path);

/* Parse an unsigned number with C base detection (0x hex, 0 octal, else
 * decimal), the whole string, no sign, at most @p max. 0 or -1. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Parse the value of option @p opt with cli_parse_u64(); prints
 * "ibr: OPT: 'VAL' is not a number in 0..MAX" on error. 0 or -1. */
int cli_opt_uint(const char *opt, const char *val, uint64_t max, uint64_t *out);

/* Monotonic clock in seconds. */
double cli_now(void);

/* Log level of a context without a log callback (library messages dropped). */
#define CLI_LOG_NONE (-1)

/* Create a context whose library messages at @p level or more severe go to
 * stderr as "ibr: <level>: <message>" (CLI_LOG_NONE: the default context
 * configuration, no messages). Prints the error. 0 or -1. */
int cli_make_context(ibr_context **out, int level);

/* The log level of -v given @p verbose times (warnings without -v). */
int cli_log_level(int verbose);

/* Read a GUID-list file (OpenSM's root/cn/io/guid_routing_order, ids and
 * ignore-guids files) and parse it with ibr_guid_list_parse(); prints
 * "ibr: FILE: line N: ..." on error. Returns 0 or -1. */
/* Read the multicast groups file at path for topology t (ibr route
   --groups); on error prints "ibr: PATH: line N: ..." and returns -1. */
int cli_load_groups(ibr_mcast_groups **out, const ibr_topo *t, const char *path);
/* The same, reading OpenSM's SA database dump (opensm-sa.dump) when sa_dump
   is non-zero. */
int cli_load_groups_as(ibr_mcast_groups **out, const ibr_topo *t, const char *path,
                       int sa_dump);
/* A QoS configuration: OpenSM's defaults, then the qos_* keys of the
   opensm.conf at path (NULL: none), then ibr_qos_levels = levels when
   levels is non-zero. 0 or -1 (message printed). */
int cli_load_qos(ibr_qos_config **out, ibr_context *ctx, const char *path, unsigned levels);
/* --qos-levels N: 1..8 into *out. 0 or -1 (message printed). */
int cli_opt_qos_levels(const char *arg, unsigned *out);
/* Call @p fn for every active directed switch-to-switch link of r (switch
   @p sw, port @p port) with the multicast trees it carries, in switch and
   port order. */
typedef void (*cli_mcast_link_fn)(void *arg, uint32_t sw, unsigned port, uint32_t trees);
void cli_mcast_links(const ibr_result *r, cli_mcast_link_fn fn, void *arg);
/* The most multicast trees on one directed switch-to-switch link of r
   (0 without trees); the link's switch and port into *sw and *port (may be
   NULL; *sw IBR_NONE when no link carries a tree). */
uint32_t cli_mcast_busiest(const ibr_result *r, uint32_t *sw, unsigned *port);
/* Who built r's multicast trees, for the reports: text ("OpenSM's trees",
   "balanced trees", "the engine's own trees", "one spanning tree on SL/VL
   0") when key is 0, the JSON value ("opensm", "balanced", "engine",
   "spanning", "none") otherwise. */
const char *cli_mcast_trees(const ibr_result *r, int key);
int cli_load_guid_list(ibr_guid_list **out, ibr_context *ctx, const char *path,
                       ibr_guid_list_kind kind);

/* ------------------------------------------------------------------------ */
/* Loading topologies and routings (cli_load.c). Every function prints its
 * error as "ibr: <what>: <message>". */

/* The SPEC of a "gen:SPEC" topology argument, or NULL for a file. */
const char *cli_gen_spec(const char *src);

/* How a subcommand gives the topology its LIDs (--guid2lid, --lmc). */
typedef struct cli_topo_args {
    const char *guid2lid;    /* OpenSM guid2lid file replacing every LID, or NULL */
    int lmc;                 /* reassign every LID with this LMC, or -1 */
    const char *assign_what; /* names errors of the automatic assignment of
                                missing LIDs; NULL: "assigning LIDs" */
} cli_topo_args;

#define CLI_TOPO_ARGS_INIT {NULL, -1, NULL}

/* The fabric of @p src: an ibnetdiscover dump or ibsim netfile ("-" is
 * standard input), or gen:SPEC generated in memory. 0 or -1. */
int cli_load_fabric(ibr_fabric **out, ibr_context *ctx, const char *src);

/* Give the fabric its LIDs: --lmc reassigns all of them, --guid2lid replaces
 * them with the file's, then ports still without a LID get one (the others
 * keep theirs). 0 or -1. */
int cli_apply_lids(ibr_fabric *f, const cli_topo_args *a);

/* ibr_fabric_freeze(); errors are named @p what. 0 or -1. */
int cli_freeze(ibr_topo **out, ibr_fabric *f, const char *what);

/* cli_load_fabric(), cli_apply_lids() and cli_freeze() in one: the frozen
 * topology of @p src (the fabric is not kept). 0 or -1. */
int cli_load_topo(ibr_topo **out, ibr_context *ctx, const char *src, const cli_topo_args *a);

/* The routing in the LFT dump @p path (opensm-lfts.dump or dump_lfts
 * output) on @p t. 0 or -1 (then *out is NULL). */
int cli_load_lfts(ibr_result **out, const ibr_topo *t, const char *path);

/* ------------------------------------------------------------------------ */
/* Options several subcommands share (cli_load.c) */

/* getopt_long() codes of the shared options; a subcommand numbers its own
 * from CLI_OPT_OWN. */
enum {
    CLI_OPT_GUID2LID = 256,   /* --guid2lid FILE */
    CLI_OPT_LMC,              /* --lmc N */
    CLI_OPT_SEED,             /* --seed N (of the routing) */
    CLI_OPT_SCATTER,          /* --scatter, --scatter-ports */
    CLI_OPT_PORT_SHIFTING,    /* --port-shifting */
    CLI_OPT_PPSN,             /* --port-profile-switch-nodes */
    CLI_OPT_THREADS,          /* --threads N (of the routing) */
    CLI_OPT_MAX_VLS,          /* --max-vls N */
    CLI_OPT_ROOT_GUIDS,       /* --root-guids FILE */
    CLI_OPT_CN_GUIDS,         /* --cn-guids FILE */
    CLI_OPT_IO_GUIDS,         /* --io-guids FILE */
    CLI_OPT_ORDER,            /* --guid-routing-order FILE */
    CLI_OPT_ORDER_NO_SCATTER, /* --guid-routing-order-no-scatter */
    CLI_OPT_IGNORE_GUIDS,     /* --ignore-guids FILE */
    CLI_OPT_IDS,              /* --ids-guid-file FILE */
    CLI_OPT_CONNECT_ROOTS,    /* --connect-roots */
    CLI_OPT_MAX_REVERSE_HOPS, /* --max-reverse-hops N */
    CLI_OPT_PARAM,            /* --param ENGINE.SETTING=VALUE */
    CLI_OPT_PARAM_FILE,       /* --param-file ENGINE.SETTING=FILE */
    CLI_OPT_TORUS_CONFIG,     /* --torus-config FILE */
    CLI_OPT_LFTS_FILE,        /* --lfts-file FILE (file.lfts) */
    CLI_OPT_LID_MATRIX_FILE,  /* --lid-matrix-file FILE (file.lid_matrix) */
    CLI_OPT_QOS_CONFIG,       /* --qos-config FILE (and -Q, --qos) */
    CLI_OPT_QOS_LEVELS,       /* --qos-levels N */
    /* shared by name only: each command gives them its own meaning */
    CLI_OPT_SAVE_DB,          /* --save-db FILE */
    CLI_OPT_DUMPS,            /* --dumps LIST */
    CLI_OPT_ALL_DUMPS,        /* --all-dumps */
    CLI_OPT_NO_VERIFY,        /* --no-verify */
    CLI_OPT_JSON,             /* --json */
    CLI_OPT_GROUPS,           /* --groups FILE */
    CLI_OPT_MCAST_BALANCE,    /* --mcast-balance */
    CLI_OPT_OWN
};

/* The commands that take the shared long options below (bits). */
enum { CLI_CMD_ROUTE = 1u, CLI_CMD_REROUTE = 2u, CLI_CMD_TRACE = 4u, CLI_CMD_ORDER = 8u };

/* The most long options one command has (its own and the shared ones). */
#define CLI_LONG_OPTIONS_MAX 96

/* The long options of command @p cmd (one CLI_CMD_* bit) for getopt_long():
 * its own @p own (ending with a zeroed entry), then every option of the one
 * shared table that @p cmd takes, written into @p out (CLI_LONG_OPTIONS_MAX
 * entries). The shared table holds the routing options (-R, the topology's
 * LIDs, the ibr_options settings, the GUID files, the engine settings, QoS)
 * and the names route, reroute, trace and order share (-o, --json, --help,
 * ...).
 * Returns @p out. */
const struct option *cli_long_options(struct option *out, const struct option *own,
                                      unsigned cmd);

/* The GUID files of the routing options, in the order they are read. */
enum {
    CLI_GUIDS_ROOT,   /* --root-guids */
    CLI_GUIDS_CN,     /* --cn-guids */
    CLI_GUIDS_IO,     /* --io-guids */
    CLI_GUIDS_ORDER,  /* --guid-routing-order */
    CLI_GUIDS_IGNORE, /* --ignore-guids ('nodeGUID port' lines) */
    CLI_GUIDS_IDS,    /* --ids-guid-file ('switchGUID id' lines) */
    CLI_GUIDS_COUNT
};

/* The routing options of a command line: the ibr_options to route with, the
 * GUID files they name and the engine settings (--param, --param-file, and
 * the shorthands --connect-roots and --max-reverse-hops). */
typedef struct cli_route_args {
    ibr_options opts;                      /* complete after cli_route_args_load() */
    int seed_given;                        /* --seed appeared */
    const char *files[CLI_GUIDS_COUNT];    /* file names, NULL when not given */
    ibr_guid_list *lists[CLI_GUIDS_COUNT]; /* their contents */
    ibr_param *params;                     /* engine settings, in command-line order */
    char **param_text;                     /* the strings they point into (owned) */
    size_t n_params;
    const char **param_opt;                /* the option that gave each ("--param",
                                              "--connect-roots", ...; owned array) */
    int qos;                               /* -Q, --qos-config or --qos-levels */
    const char *qos_config;                /* --qos-config FILE, or NULL */
    unsigned qos_levels;                   /* --qos-levels N (0: not given) */
} cli_route_args;

/* The settings --connect-roots stands for. */
#define CLI_CONNECT_ROOTS_PARAMS {"updn.connect_roots", "dnup.connect_roots", "ftree.connect_roots"}

/* Default options, no files. */
void cli_route_args_init(cli_route_args *a);

/* Read the GUID files given (the first bad one is reported) and point the
 * options at their contents. 0 or -1. */
int cli_route_args_load(cli_route_args *a, ibr_context *ctx);

/* Free the GUID lists (before the context they were read with) and the
 * settings. */
void cli_route_args_dispose(cli_route_args *a);

/* Handle code @p c of getopt_long() when it is a shared option: --guid2lid
 * and --lmc go to @p ta, routing options to @p ra (either may be NULL when
 * the subcommand has none). Any other code is a usage error: @p usage is
 * printed on stderr. 0, or -1 after printing the error. */
int cli_shared_option(cli_topo_args *ta, cli_route_args *ra, int c, const char *arg,
                      void (*usage)(FILE *o));

/* A usage error "ibr: CMD: --param E.S=...: engine E is not in the chain
 * (-R CHAIN)..." when a setting (--param, --param-file or a shorthand such
 * as --max-reverse-hops) names an engine @p chain does not run (minhop runs
 * unless no_fallback; --connect-roots needs one of updn, dnup, ftree).
 * Unknown engines are left to ibr_route(). 0 or -1. */
int cli_route_args_check_chain(const cli_route_args *a, ibr_context *ctx, const char *chain,
                               const char *cmd);

/* "ibr: CMD: --guid2lid and --lmc exclude each other" when both are given.
 * 0 or -1. */
int cli_topo_args_check(const cli_topo_args *a, const char *cmd);

/* ------------------------------------------------------------------------ */
/* JSON */

/* Write @p s as a JSON string literal (with quotes). */
void cli_json_string(FILE *f, const char *s);

/* Write a double as JSON (finite; NaN/inf become null). */
void cli_json_double(FILE *f, double v);

/* ------------------------------------------------------------------------ */
/* Pattern families and the fault sweep (cli_families.c, cmd_sweep.c) */

#define CLI_MAX_FAMILIES 32
#define CLI_FAMILY_NAME 48

/* The pattern families of an analysis's JSON (ibr_analysis_write_json()):
   every top-level member whose value is an object with an "ebb" number, in
   document order; their names and eBB into names[] and ebb[] (at most
   @p cap). Their number. */
size_t cli_pattern_families(char (*names)[CLI_FAMILY_NAME], double *ebb, size_t cap,
                            const char *json);

/* What to sweep. */
typedef struct sweep_cfg {
    int all_cables;          /* every switch-to-switch cable */
    uint64_t n_cables;       /* else this many random ones */
    uint64_t n_switches;     /* random switches, one at a time */
    unsigned k_max, trials;  /* the degradation curve (k_max 0: none) */
    uint64_t seed;           /* of the faults */
    int quiet_progress;
    ibr_analyze_options aopts;
    const char *ranks_file;  /* --ranks: loaded by cli_sweep_prepare() */
    int wl_implied;          /* --grid, --moe or --rails without --workloads */
    ibr_rank_order *ranks;
} sweep_cfg;

/* One fault (or one trial of the curve) and what it cost. */
typedef struct sweep_fault {
    int is_switch;
    uint64_t guid_a, guid_b; /* the cable's ends, or the switch (a) */
    unsigned port_a, port_b;
    int rc;                  /* of ibr_routing_db_route() */
    int mode;                /* ibr_reroute_mode */
    uint64_t unrouted_pairs; /* pairs with a path but no route */
    double ebb[CLI_MAX_FAMILIES];
    double worst_drop;       /* the largest eBB drop over the families */
    double seconds;          /* reroute and analysis */
    size_t order;            /* in the order swept */
} sweep_fault;

typedef struct sweep_point {
    unsigned k, trials, failed;
    double median[CLI_MAX_FAMILIES], min[CLI_MAX_FAMILIES];
} sweep_point;

typedef struct sweep_result {
    size_t npat;
    char names[CLI_MAX_FAMILIES][CLI_FAMILY_NAME];
    double base[CLI_MAX_FAMILIES]; /* intact eBB */
    size_t cables_total;
    size_t nfaults;
    sweep_fault *faults;           /* worst first */
    size_t npoints;
    sweep_point *curve;
    double seconds;
} sweep_result;

/* getopt_long() codes of the sweep's and the analysis's options, shared by
   ibr sweep and ibr report (above the commands' own codes). */
enum {
    CLI_OPT_SWEEP_CABLES = CLI_OPT_OWN + 64, /* --cables all|N */
    CLI_OPT_SWEEP_SWITCHES,                  /* --switches N */
    CLI_OPT_SWEEP_KMAX,                      /* --k-max K */
    CLI_OPT_SWEEP_TRIALS,                    /* --trials T */
    CLI_OPT_SWEEP_SEED,                      /* --seed N (faults and patterns) */
    CLI_OPT_SWEEP_PATTERNS,                  /* --patterns LIST */
    CLI_OPT_SWEEP_RANDOM,                    /* --random N */
    CLI_OPT_SWEEP_THREADS,                   /* --threads N */
    CLI_OPT_SWEEP_RANKS,                     /* --ranks FILE, and the workloads: */
    CLI_OPT_SWEEP_WORKLOADS,                 /* --workloads LIST */
    CLI_OPT_SWEEP_GRID,                      /* --grid AxB[xC] */
    CLI_OPT_SWEEP_MOE,                       /* --moe G[,K] */
    CLI_OPT_SWEEP_RAILS,                     /* --rails N */
    CLI_OPT_SWEEP_TOP                        /* --top-links K */
};

/* The workload options' entries of a struct option table (ibr analyze,
   sweep and report; cli_workload_option() reads them). */
#define CLI_WORKLOAD_LONG_OPTIONS                                              \
    {"ranks", required_argument, NULL, CLI_OPT_SWEEP_RANKS},                  \
    {"workloads", required_argument, NULL, CLI_OPT_SWEEP_WORKLOADS},          \
    {"grid", required_argument, NULL, CLI_OPT_SWEEP_GRID},                    \
    {"moe", required_argument, NULL, CLI_OPT_SWEEP_MOE},                      \
    {"rails", required_argument, NULL, CLI_OPT_SWEEP_RAILS},                  \
    {"top-links", required_argument, NULL, CLI_OPT_SWEEP_TOP}

/* All their entries of a struct option table. */
#define CLI_SWEEP_LONG_OPTIONS                                                 \
    {"cables", required_argument, NULL, CLI_OPT_SWEEP_CABLES},                \
    {"switches", required_argument, NULL, CLI_OPT_SWEEP_SWITCHES},            \
    {"k-max", required_argument, NULL, CLI_OPT_SWEEP_KMAX},                   \
    {"trials", required_argument, NULL, CLI_OPT_SWEEP_TRIALS},                \
    {"seed", required_argument, NULL, CLI_OPT_SWEEP_SEED},                    \
    {"patterns", required_argument, NULL, CLI_OPT_SWEEP_PATTERNS},            \
    {"random", required_argument, NULL, CLI_OPT_SWEEP_RANDOM},                \
    {"threads", required_argument, NULL, CLI_OPT_SWEEP_THREADS},              \
    CLI_WORKLOAD_LONG_OPTIONS

/* Handle one of those codes into @p cfg; the fault options (--cables to
   --trials) set *sweep. 0, -1 after printing an error, 1 when @p c is not
   one of them. */
int cli_sweep_option(sweep_cfg *cfg, int *sweep, int c, const char *arg);

/* The workload options of ibr analyze, sweep and report (--ranks to
   --top-links, codes CLI_OPT_SWEEP_RANKS to CLI_OPT_SWEEP_TOP) into @p o
   and *ranks_file; --grid, --moe and --rails set *wl_implied. 0, -1 after
   printing an error, 1 when @p c is not one of them. */
int cli_workload_option(ibr_analyze_options *o, const char **ranks_file, int *wl_implied, int c,
                        const char *arg);

/* Defaults: 20 random cables, no switches, no curve (5 trials when asked),
   seed 1, the analysis defaults with 20 random patterns. */
void cli_sweep_cfg_init(sweep_cfg *cfg);
/* After the topology is frozen: the rank order of --ranks into
   cfg->aopts, and all workloads when --grid, --moe or --rails asked for
   some. 0, or -1 (reported). cli_sweep_cfg_dispose() frees the order;
   call it before cli_intact_dispose() (the order lives in t's context). */
int cli_sweep_prepare(sweep_cfg *cfg, const ibr_topo *t);
/* The rank order of file @p path on @p t into *ranks and o's ranks (the
   caller destroys *ranks, which an error may have set too). 0, or -1
   (reported). */
int cli_load_ranks(ibr_rank_order **ranks, ibr_analyze_options *o, const ibr_topo *t,
                   const char *path);
void cli_sweep_cfg_dispose(sweep_cfg *cfg);

/* The workload options' values, as ibr analyze reads them: "all" or a
   comma list of workload names into *out; up to @p max numbers 1..2^20
   separated by @p sep into v[] (their count). -1 on an error (reported). */
int cli_parse_workloads(const char *s, unsigned int *out);
int cli_parse_dims(const char *opt, const char *s, char sep, unsigned *v, int max);

/* Sweep the faults of @p cfg over fabric @p f (r0's topology was frozen
   from it; its link states change during the call and are restored),
   routing from r0's database and analysing with cfg->aopts; a0 is r0's
   analysis with the same options. 0, or -1 out of memory (res freed by
   cli_sweep_free() either way). */
int cli_sweep_run(sweep_result *res, ibr_fabric *f, const ibr_result *r0, const ibr_analysis *a0,
                  const sweep_cfg *cfg);
void cli_sweep_free(sweep_result *res);
/* The sweep as one JSON object (no newline at the end). */
void cli_sweep_json(FILE *o, const sweep_result *res, const sweep_cfg *cfg);

/* A fabric loaded, frozen and routed in memory. */
typedef struct cli_intact {
    ibr_context *ctx;
    ibr_fabric *f;
    ibr_topo *t;
    ibr_result *r;
} cli_intact;

/* Load @p src, give it its LIDs, freeze and route it with @p chain (NULL:
   no routing, in->r stays NULL). An exit
   status, CLI_EXIT_OK when routed (errors printed); dispose either way. */
int cli_route_intact(cli_intact *in, const char *src, const cli_topo_args *ta, const char *chain);
void cli_intact_dispose(cli_intact *in);

#endif
