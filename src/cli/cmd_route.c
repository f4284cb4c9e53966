/*
 * cmd_route.c - `ibr route`: route a topology, verify the result, print a
 * summary and write OpenSM-style dumps.
 *
 *   ibr route [-R CHAIN] [options] TOPOLOGY [-o DIR]
 */
#define _POSIX_C_SOURCE 200809L /* strdup(): POSIX, not ISO C */

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* ibr route */

void usage_route(FILE *o)
{
    fputs("usage: ibr route [-R CHAIN] [options] TOPOLOGY [-o DIR]\n"
          "\n"
          "Route a topology (an ibnetdiscover/ibsim file, or gen:SPEC to generate one in\n"
          "memory), verify the result and print a summary. With -o, write into DIR\n"
          "opensm-lfts.dump, opensm-subnet.lst, opensm.mcfdbs, guid2lid, every engine\n"
          "artefact (a file named after it) and, when the result carries path SLs or\n"
          "SL2VL tables, opensm-sl2vl.dump; --dumps adds opensm.fdbs,\n"
          "opensm-lid-matrix.dump and ibdmchk's inputs ibr-paths.psl (-c) and\n"
          "ibr-paths.sl2vl (-d). The summary gives the verdict on credit loops (with\n"
          "the loop found) and the pairs the engine's rules leave unrouted (restricted).\n"
          "\n"
          "Options:\n"
          "  -R, --routing-engine CHAIN  engines tried in order, e.g. ftree,updn\n"
          "                              (minhop runs last unless no_fallback; default minhop)\n"
          "  -o, --output DIR            write the dumps into DIR (created if needed)\n"
          "  --dumps LIST                the dumps -o writes, comma-separated: lfts,\n"
          "                              subnet, guid2lid, mcfdbs, sl2vl, artifacts (the\n"
          "                              default set), fdbs, lid-matrix, ibdmchk,\n"
          "                              ibdiagnet (ibdiagnet2.lst, .db_csv, .fdbs,\n"
          "                              .sl2vl), or\n"
          "                              default, all, none (e.g. default,fdbs)\n"
          "  --all-dumps                 same as --dumps all\n"
          "  --lmc N                     reassign all LIDs with LMC N (0..7)\n"
          "  --guid2lid FILE             take the LIDs from an OpenSM guid2lid file\n"
          "  --seed N                    seed of random choices (recorded in the result)\n"
          "  --scatter                   scatter ports among equal choices (needs a seed;\n"
          "                              1 is used when --seed is absent)\n"
          "  --port-shifting             OpenSM's port_shifting\n"
          "  --port-profile-switch-nodes routes to switches count in port balancing\n"
          "  --threads N                 worker threads (0 = one per CPU, default)\n"
          "  --max-vls N                 data VLs available (1..15, default 8; never more\n"
          "                              than the ports' OperVLs)\n"
          "  --root-guids FILE           root switch GUIDs (updn, ftree)\n"
          "  --cn-guids FILE             compute-node port GUIDs\n"
          "  --io-guids FILE             I/O-node port GUIDs\n"
          "  --guid-routing-order FILE   destination order (port GUIDs)\n"
          "  --guid-routing-order-no-scatter  do not scatter the ports listed there\n"
          "  --ignore-guids FILE         'nodeGUID port' lines excluded from balancing\n"
          "  --ids-guid-file FILE        'switchGUID id' lines (updn)\n"
          "  --param ENGINE.SETTING=VALUE  an engine setting (repeatable; `ibr engines`\n"
          "                              lists each engine's settings)\n"
          "  --param-file ENGINE.SETTING=FILE  a setting's value read from FILE\n"
          "  --lfts-file FILE            same as --param-file file.lfts=FILE (-R file:\n"
          "                              tables of opensm-lfts.dump/ibroute/dump_lfts)\n"
          "  --lid-matrix-file FILE      same as --param-file file.lid_matrix=FILE (-R file:\n"
          "                              hop rows of opensm-lid-matrix.dump)\n"
          "  --connect-roots             same as --param updn.connect_roots=1\n"
          "                              --param dnup.connect_roots=1 --param ftree.connect_roots=1\n"
          "  --max-reverse-hops N        same as --param ftree.max_reverse_hops=N\n"
          "  --torus-config FILE         same as --param-file torus-2QoS.config=FILE\n"
          "                              (without it, torus-2QoS derives one from the\n"
          "                              cabling; -o DIR writes it as torus-2QoS.conf)\n"
          "  --groups FILE               multicast groups ('group MLID [mgid MGID]' and\n"
          "                              'member GUID PORT [JOIN...]' lines): a tree per\n"
          "                              MLID, checked by the verification\n"
          "  --sa-dump FILE              multicast groups from OpenSM's SA database dump\n"
          "                              (opensm-sa.dump: MC Group and mcm_port records),\n"
          "                              instead of --groups\n"
          "  --mcast-balance             balance the default multicast trees over links\n"
          "                              (default: OpenSM's trees, lowest port first)\n"
          "  --mcast-opensm              keep OpenSM's trees and SLs even where multicast\n"
          "                              closes a credit loop after an engine that promises\n"
          "                              none (default: unicast moves one SL/VL up)\n"
          "  -Q, --qos                   QoS on (opensm -Q) with OpenSM's default qos_*\n"
          "                              settings: the SL2VL and VL arbitration tables the\n"
          "                              QoS manager programs, checked for SL merges that\n"
          "                              break the engine's deadlock freedom; -o writes\n"
          "                              opensm-sl2vl.dump and ibr-vlarb.txt\n"
          "  --qos-config FILE           QoS on with the qos_* keys of FILE (opensm.conf\n"
          "                              syntax; other keys are ignored)\n"
          "  --qos-levels N              QoS on with N QoS levels over the engine's layers\n"
          "                              (ibr_qos_levels N, 1..8; overrides the file's);\n"
          "                              --dumps ibdmchk adds ibr-paths.levelL.psl per level\n"
          "  --save-db FILE              save the routing with the fabric it was computed on\n"
          "                              (a routing database, for ibr reroute)\n"
          "  --no-verify                 skip the verification\n"
          "  --strict                    exit 1 when the first engine of the chain\n"
          "                              declined (a fallback routed), when the engine\n"
          "                              used promises credit-loop freedom and the routing\n"
          "                              has a credit loop, when a switch-LID entry is\n"
          "                              empty (see ibr verify --strict), or when QoS maps\n"
          "                              two SLs the engine keeps apart to one VL\n"
          "  --json                      print the summary as JSON\n"
          "  --no-progress, -q           no progress reports on stderr (by default they\n"
          "                              appear once routing has taken more than 1 s)\n"
          "  -v, --verbose               library log messages (twice: debug)\n"
          "\n"
          "GUID files take one GUID per line (0x hex, leading 0 octal, else decimal),\n"
          "'#' comments, as OpenSM's option files.\n"
          "\n"
          "Exit status: 0 routed and valid, 1 unroutable or invalid routes (or a\n"
          "--strict condition), 2 error.\n",
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

/* What -o wrote: the files, their bytes and time, and the ones that
   failed ("name: reason"). */
typedef struct file_list {
    char **names;
    size_t n;
    char **failed;
    size_t n_failed;
    uint64_t bytes;
    double seconds;
    const progress_state *ps; /* progress lines while writing */
} file_list;

static int str_list_add(char ***list, size_t *n, const char *text)
{
    char **nn = realloc(*list, (*n + 1) * sizeof(*nn));

    if (!nn)
        return -1;
    *list = nn;
    if (!(nn[*n] = strdup(text)))
        return -1;
    (*n)++;
    return 0;
}

static void file_list_free(file_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->names[i]);
    for (i = 0; i < l->n_failed; i++)
        free(l->failed[i]);
    free(l->names);
    free(l->failed);
    l->names = l->failed = NULL;
    l->n = l->n_failed = 0;
}

/* Record a file that could not be written, and say so on stderr. */
static void write_failed(file_list *l, const char *name, const char *reason)
{
    char text[512];

    snprintf(text, sizeof(text), "%s: %s", name, reason);
    cli_error("CL042", "write", "%s: %s (not written)", name, reason);
    if (str_list_add(&l->failed, &l->n_failed, text) < 0)
        cli_error("CL011", "write", "out of memory");
}

/* "1.4 GB", "512 kB", "31 B" */
static void human_size(char *buf, size_t cap, uint64_t bytes)
{
    static const char *unit[] = {"B", "kB", "MB", "GB", "TB"};
    double v = (double)bytes;
    unsigned u = 0;

    while (v >= 1000.0 && u < 4) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* A progress line for a long write (once the command has run a second). */
static void write_progress(const file_list *l, const char *name, uint64_t bytes)
{
    const progress_state *ps = l->ps;
    char size[32];

    if (!ps || !ps->enabled || cli_now() - ps->start < 1.0)
        return;
    human_size(size, sizeof(size), bytes);
    fprintf(stderr, "ibr: progress: writing %s (%s) after %.1fs\n", name, size,
            cli_now() - ps->start);
}

/* Write @p data to DIR/name through a temporary file renamed when complete
   (cli_write_file()); records the name, or the failure. */
static int write_in_dir(file_list *files, const char *dir, const char *name, const char *data,
                        size_t len)
{
    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    int err;

    if (!path) {
        write_failed(files, name, strerror(ENOMEM));
        return -1;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    write_progress(files, name, len);
    err = cli_write_file(path, data ? data : "", len);
    free(path);
    if (err) {
        write_failed(files, name, strerror(err));
        return -1;
    }
    if (str_list_add(&files->names, &files->n, name) < 0) {
        cli_error("CL011", name, "out of memory");
        return -1;
    }
    files->bytes += len;
    return 0;
}

typedef enum dump_kind {
    D_LFTS, D_LID_MATRIX, D_SUBNET, D_FDBS, D_GUID2LID, D_MCFDBS, D_SL2VL_DUMP, D_PSL, D_SL2VL,
    D_VLARB, D_IBDIAG_FDBS, D_DB_CSV
} dump_kind;

/* Prefix of the ibdmchk/ibdiagnet files (<prefix>.psl, <prefix>.sl2vl). */
#define IBDM_PREFIX "ibr-paths"

/* The dumps -o can write, by the name --dumps knows them by. */
enum {
    DUMP_LFTS = 1u << 0,
    DUMP_SUBNET = 1u << 1,
    DUMP_GUID2LID = 1u << 2,
    DUMP_MCFDBS = 1u << 3,
    DUMP_SL2VL = 1u << 4,
    DUMP_ARTIFACTS = 1u << 5,
    DUMP_FDBS = 1u << 6,
    DUMP_LID_MATRIX = 1u << 7,
    DUMP_IBDMCHK = 1u << 8,
    DUMP_IBDIAGNET = 1u << 9, /* ibdiagnet2.lst, .db_csv, .fdbs, .sl2vl */
    /* what OpenSM writes by default (subnet.lst, guid2lid, ftree's CA
       order) plus the tables themselves (unicast, multicast, SL2VL);
       OpenSM's derived views (hops, optimality) and ibdmchk's path SLs are
       on request; "all" is every file of OpenSM and ibdmchk, ibdiagnet's
       set is asked for by name */
    DUMP_DEFAULT = DUMP_LFTS | DUMP_SUBNET | DUMP_GUID2LID | DUMP_MCFDBS | DUMP_SL2VL |
                   DUMP_ARTIFACTS,
    DUMP_ALL = DUMP_DEFAULT | DUMP_FDBS | DUMP_LID_MATRIX | DUMP_IBDMCHK
};

static const struct {
    const char *name;
    unsigned bit;
} dump_names[] = {
    {"lfts", DUMP_LFTS},         {"subnet", DUMP_SUBNET},
    {"guid2lid", DUMP_GUID2LID}, {"mcfdbs", DUMP_MCFDBS},
    {"sl2vl", DUMP_SL2VL},       {"artifacts", DUMP_ARTIFACTS},
    {"fdbs", DUMP_FDBS},         {"lid-matrix", DUMP_LID_MATRIX},
    {"ibdmchk", DUMP_IBDMCHK},   {"ibdiagnet", DUMP_IBDIAGNET},
    {"default", DUMP_DEFAULT},
    {"all", DUMP_ALL},           {"none", 0},
};

/* --dumps LIST: comma-separated names of dump_names. 0 or -1 (message
   printed). */
static int parse_dumps(unsigned *out, const char *list)
{
    unsigned set = 0;
    const char *p = list;

    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i, k = sizeof(dump_names) / sizeof(dump_names[0]);

        for (i = 0; i < k; i++)
            if (strlen(dump_names[i].name) == n && !strncmp(dump_names[i].name, p, n))
                break;
        if (n && i == k) {
            cli_error("CL043", "--dumps",
                      "unknown dump '%.*s' (known: lfts, subnet, guid2lid, mcfdbs, "
                      "sl2vl, artifacts, fdbs, lid-matrix, ibdmchk, ibdiagnet, default, "
                      "all, "
                      "none)",
                      (int)n, p);
            return -1;
        }
        if (n)
            set |= dump_names[i].bit;
        p += n;
        if (*p == ',')
            p++;
    }
    *out = set;
    return 0;
}

/* The per-switch dumps are written in slices of about this many bytes,
   so that memory stays bounded whatever the fabric's size. */
#define SLICE_BYTES ((size_t)64 << 20)

/* A per-switch dump written to path slice by slice
   (ibr_result_write_switches()), each slice sized from the one before;
   *written gets the bytes. 0, or -1 with the failure recorded. */
static int write_switch_slices(file_list *files, const char *path, const char *name,
                               ibr_switch_dump format, const ibr_result *r, size_t *written)
{
    uint32_t nsw = ibr_topo_switch_count(ibr_result_topo(r)), sw = 0, step = 16;
    ibr_buffer b = IBR_BUFFER_INIT;
    cli_out o;
    int rc = 0, err = cli_out_open(&o, path);

    *written = 0;
    if (err) {
        write_failed(files, name, strerror(err));
        return -1;
    }
    while (sw < nsw && rc == 0 && !err) {
        uint32_t n = nsw - sw < step ? nsw - sw : step;

        b.size = 0;
        if ((rc = ibr_result_write_switches(&b, r, format, sw, n)) < 0)
            break;
        err = cli_out_write(&o, b.data ? b.data : "", b.size);
        *written += b.size;
        sw += n;
        /* the next slices: about SLICE_BYTES each */
        if (b.size) {
            double per = (double)b.size / n;
            double want = (double)SLICE_BYTES / per;
            step = want < 1 ? 1 : want > nsw ? nsw : (uint32_t)want;
        }
    }
    ibr_buffer_dispose(&b);
    err = cli_out_close(&o, rc == 0 && !err);
    if (rc < 0 || err) {
        write_failed(files, name, rc < 0 ? ibr_strerror(rc) : strerror(err));
        return -1;
    }
    return 0;
}

/* The QoS level written by a D_PSL dump (ibr-paths.psl: level 0). */
static unsigned psl_level(const char *name)
{
    unsigned l = 0;
    return sscanf(name, IBDM_PREFIX ".level%u.psl", &l) == 1 ? l : 0;
}

static int write_dump(file_list *files, const char *dir, const char *name, dump_kind kind,
                      const ibr_topo *t, const ibr_result *r)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = 0;
    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path;

    if (kind == D_LFTS || kind == D_FDBS || kind == D_LID_MATRIX || kind == D_IBDIAG_FDBS) {
        size_t written = 0;

        if (!(path = malloc(plen))) {
            write_failed(files, name, strerror(ENOMEM));
            return -1;
        }
        snprintf(path, plen, "%s/%s", dir, name);
        write_progress(files, name, 0);
        rc = write_switch_slices(files, path, name,
                                 kind == D_LFTS   ? IBR_SWITCH_DUMP_LFTS
                                 : kind == D_FDBS ? IBR_SWITCH_DUMP_FDBS
                                 : kind == D_IBDIAG_FDBS ? IBR_SWITCH_DUMP_IBDIAGNET_FDBS
                                                  : IBR_SWITCH_DUMP_LID_MATRIX,
                                 r, &written);
        free(path);
        if (rc < 0)
            return -1;
        if (str_list_add(&files->names, &files->n, name) < 0) {
            cli_error("CL011", name, "out of memory");
            return -1;
        }
        files->bytes += written;
        return 0;
    }
    switch (kind) {
    case D_SUBNET: rc = ibr_topo_write_subnet_lst(&b, t); break;
    case D_DB_CSV: rc = ibr_topo_write_db_csv(&b, t); break;
    case D_GUID2LID: rc = ibr_topo_write_guid2lid(&b, t); break;
    case D_MCFDBS: rc = ibr_result_write_mcfdbs(&b, r); break;
    case D_SL2VL_DUMP: rc = ibr_result_write_sl2vl_dump(&b, r); break;
    case D_PSL: rc = ibr_result_write_path_sl_level(&b, r, psl_level(name)); break;
    case D_SL2VL: rc = ibr_result_write_sl2vl(&b, r); break;
    case D_VLARB: rc = ibr_result_write_vlarb(&b, r); break;
    default: break;
    }
    if (rc < 0) {
        write_failed(files, name, ibr_strerror(rc));
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

/* Whether files can be created in directory dir (permissions, a read-only
   file system): a file created and removed at once. 0 or errno. */
static int probe_dir(const char *dir)
{
    size_t plen = strlen(dir) + 24;
    char *p = malloc(plen);
    int fd, err = 0;

    if (!p)
        return ENOMEM;
    snprintf(p, plen, "%s/.ibr-probe-XXXXXX", dir);
    fd = mkstemp(p);
    if (fd < 0) {
        err = errno;
    } else {
        close(fd);
        unlink(p);
    }
    free(p);
    return err;
}

/* Write the dumps of set @p which (DUMP_*) into dir. A file that fails is
   recorded and the others are still written; returns -1 when anything
   failed. */
static int write_outputs(file_list *files, const char *dir, unsigned which, const ibr_topo *t,
                         const ibr_result *r)
{
    static const struct {
        const char *name;
        dump_kind kind;
        unsigned bit; /* DUMP_* */
        int sl;       /* only for results with SLs or SL2VL tables */
    } dumps[] = {
        {"opensm-lfts.dump", D_LFTS, DUMP_LFTS, 0},
        {"opensm-subnet.lst", D_SUBNET, DUMP_SUBNET, 0},
        {"opensm-lid-matrix.dump", D_LID_MATRIX, DUMP_LID_MATRIX, 0},
        {"opensm.fdbs", D_FDBS, DUMP_FDBS, 0},
        {"guid2lid", D_GUID2LID, DUMP_GUID2LID, 0},
        {"opensm.mcfdbs", D_MCFDBS, DUMP_MCFDBS, 0},
        /* VL-aware results: OpenSM's SL2VL dump and ibdmchk's -c/-d inputs */
        {"opensm-sl2vl.dump", D_SL2VL_DUMP, DUMP_SL2VL, 1},
        {IBDM_PREFIX ".psl", D_PSL, DUMP_IBDMCHK, 1},
        {IBDM_PREFIX ".sl2vl", D_SL2VL, DUMP_IBDMCHK, 1},
        /* QoS on: the VL arbitration tables (with the SL2VL dumps) */
        {"ibr-vlarb.txt", D_VLARB, DUMP_SL2VL, 2},
        /* what ibdiagnet writes of a fabric: links, database, LFTs, SL2VL tables */
        {"ibdiagnet2.lst", D_SUBNET, DUMP_IBDIAGNET, 0},
        {"ibdiagnet2.db_csv", D_DB_CSV, DUMP_IBDIAGNET, 0},
        {"ibdiagnet2.fdbs", D_IBDIAG_FDBS, DUMP_IBDIAGNET, 0},
        {"ibdiagnet2.sl2vl", D_SL2VL, DUMP_IBDIAGNET, 0},
    };
    int has_sl = ibr_result_sl_mode(r) != IBR_SL_NONE || ibr_result_has_sl2vl(r);
    int ret = 0;
    size_t i, na;
    double t0 = cli_now();
    int err = cli_mkdir_p(dir);

    if (!err)
        err = probe_dir(dir);
    if (err) {
        /* one line naming the directory, not one per file */
        char text[512];
        snprintf(text, sizeof text, "%s: %s (no file written)", dir, strerror(err));
        cli_error("CL044", "-o", "cannot write into directory %s: %s", dir, strerror(err));
        if (str_list_add(&files->failed, &files->n_failed, text) < 0)
            cli_error("CL011", "write", "out of memory");
        files->seconds = cli_now() - t0;
        return -1;
    }
    for (i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++)
        if ((which & dumps[i].bit) &&
            (!dumps[i].sl || (dumps[i].sl == 1 ? has_sl : ibr_result_has_qos(r))) &&
            write_dump(files, dir, dumps[i].name, dumps[i].kind, t, r) < 0)
            ret = -1;
    /* QoS levels: ibdmchk's path SLs of every level above 0 */
    for (unsigned l = 1; (which & DUMP_IBDMCHK) && has_sl && l < ibr_result_qos_levels(r); l++) {
        char name[64];
        snprintf(name, sizeof name, IBDM_PREFIX ".level%u.psl", l);
        if (write_dump(files, dir, name, D_PSL, t, r) < 0)
            ret = -1;
    }
    na = which & DUMP_ARTIFACTS ? ibr_result_artifact_count(r) : 0;
    for (i = 0; i < na; i++) {
        const char *name;
        const void *data;
        size_t size;
        char fname[256];

        if (ibr_result_artifact(&name, &data, &size, r, i) < 0)
            continue;
        artifact_file_name(fname, sizeof(fname), name);
        if (write_in_dir(files, dir, fname, data, size) < 0)
            ret = -1;
    }
    files->seconds = cli_now() - t0;
    return ret;
}

/* write_outputs() on a thread of its own, so that the dumps are written
   while the result is verified (both only read the topology and the
   result). */
typedef struct write_job {
    file_list *files;
    const char *dir;
    unsigned which;
    const ibr_topo *t;
    const ibr_result *r;
    int ret;
} write_job;

static void *write_thread(void *arg)
{
    write_job *j = arg;

    j->ret = write_outputs(j->files, j->dir, j->which, j->t, j->r);
    return NULL;
}

/* Write the routing database of r to path. 0 or -1 (message printed). */
static int save_db(const char *path, const ibr_result *r)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr_result_write_db(&b, r), err;

    if (rc < 0) {
        cli_lib_error(path, NULL, rc);
        return -1;
    }
    err = cli_write_file(path, b.data ? b.data : "", b.size);
    ibr_buffer_dispose(&b);
    if (err) {
        cli_error("CL030", path, "cannot write: %s", strerror(err));
        return -1;
    }
    return 0;
}

/* The options of ibr route and ibr reroute (reroute reads only some). */
typedef struct route_args {
    const char *chain, *outdir, *topology, *save_db;
    int json, verify, verbose, progress; /* progress: -1 auto */
    int strict;
    const char *groups; /* --groups FILE or --sa-dump FILE */
    int groups_sa;      /* groups is an SA database dump */
    int mcast_balance;
    int mcast_opensm;
    unsigned dumps;  /* DUMP_* written by -o */
    int dumps_given; /* --dumps or --all-dumps */
} route_args;

static void route_args_init(route_args *a)
{
    memset(a, 0, sizeof(*a));
    a->verify = 1;
    a->progress = -1;
    a->dumps = DUMP_DEFAULT;
}

/* An option route and reroute read alike (-o, --dumps, --all-dumps,
   --save-db, --no-verify, --json, -v): 1 handled, 0 not one of them, -1
   error (printed). */
static int output_option(route_args *a, int c, const char *arg)
{
    switch (c) {
    case 'o': a->outdir = arg; return 1;
    case CLI_OPT_DUMPS:
        if (parse_dumps(&a->dumps, arg) < 0)
            return -1;
        a->dumps_given = 1;
        return 1;
    case CLI_OPT_ALL_DUMPS:
        a->dumps = DUMP_ALL;
        a->dumps_given = 1;
        return 1;
    case CLI_OPT_SAVE_DB: a->save_db = arg; return 1;
    case CLI_OPT_NO_VERIFY: a->verify = 0; return 1;
    case CLI_OPT_JSON: a->json = 1; return 1;
    case 'v': a->verbose++; return 1;
    default: return 0;
    }
}

/* The summary line of ftree's "ftree-degraded.txt" artefact (after
   "degraded: "), or NULL when the result has none. */
static const char *degraded_summary(const ibr_result *r, char *buf, size_t len)
{
    const void *data = NULL;
    size_t size = 0;

    if (!r || ibr_result_find_artifact(&data, &size, r, "ftree-degraded.txt") < 0 || !size)
        return NULL;
    const char *text = data, *end = text + size, *key = "degraded: ";
    for (const char *p = text; p < end; p++) {
        if ((p == text || p[-1] == '\n') && (size_t)(end - p) > strlen(key) &&
            !strncmp(p, key, strlen(key))) {
            p += strlen(key);
            size_t n = 0;
            while (p + n < end && p[n] != '\n' && n + 1 < len)
                n++;
            memcpy(buf, p, n);
            buf[n] = 0;
            return buf;
        }
    }
    return NULL;
}

/* torus-2QoS's configuration derived from the cabling (its artefact
   "torus-2QoS.conf"), printed on one line: its lines but the comment. */
static void print_derived_torus_conf(const ibr_result *r)
{
    const void *data = NULL;
    size_t size = 0;

    if (!r || ibr_result_find_artifact(&data, &size, r, "torus-2QoS.conf") < 0 || !size)
        return;
    const char *p = data, *end = p + size, *sep = " ";
    printf("torus-2QoS:   derived from the cabling (-o DIR writes DIR/torus-2QoS.conf, "
           "--torus-config pins it):");
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n && *p != '#') {
            printf("%s%.*s", sep, (int)n, p);
            sep = "; ";
        }
        p += n + 1;
    }
    printf("\n");
}

/* The attempts of a route or reroute as a JSON array. */
static void print_attempts_json(const ibr_result *r)
{
    size_t n = r ? ibr_result_attempt_count(r) : 0;
    printf("[");
    for (size_t i = 0; i < n; i++) {
        const char *eng = "", *msg = "";
        int st = 0;
        ibr_result_attempt(&eng, &st, &msg, r, i);
        printf("%s{\"engine\": ", i ? ", " : "");
        cli_json_string(stdout, eng);
        printf(", \"status\": ");
        cli_json_string(stdout, ibr_status_name(st));
        printf(", \"message\": ");
        cli_json_string(stdout, msg ? msg : "");
        printf("}");
    }
    printf("]");
}

/* The engines a route or reroute tried, one line each with how it ended. */
static void print_attempts(const ibr_result *r)
{
    size_t n = r ? ibr_result_attempt_count(r) : 0;
    for (size_t i = 0; i < n; i++) {
        const char *eng = "", *msg = "";
        int st = 0;
        ibr_result_attempt(&eng, &st, &msg, r, i);
        printf("  attempt %zu:  %s: %s", i + 1, eng,
               st == 0 ? "ok" : st == IBR_EDECLINED ? "declined" : ibr_status_name(st));
        if (msg && *msg)
            printf(" (%s)", msg);
        printf("\n");
    }
}

static void print_route_json(const route_args *a, const ibr_topo *t, const ibr_result *r,
                             const ibr_options *opts, int rc, double route_s,
                             const char *verify_json, const file_list *files)
{
    size_t i;

    cli_json_printed = 1;
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
    printf(", \"attempts\": ");
    print_attempts_json(r);
    if (a->groups && rc == 0 && r)
        printf(", \"mcast\": {\"mlids\": %zu, \"balanced\": %s, \"trees\": \"%s\", "
               "\"max_link_trees\": %" PRIu32 "}, \"seed\": %" PRIu64 ", \"settings\": {",
               ibr_result_mcast_count(r),
               ibr_result_mcast_trees(r) == IBR_MCAST_TREES_BALANCED ? "true" : "false",
               cli_mcast_trees(r, 1), cli_mcast_busiest(r, NULL, NULL), ibr_result_seed(r));
    else
        printf(", \"seed\": %" PRIu64 ", \"settings\": {", r ? ibr_result_seed(r) : opts->seed);
    for (i = 0; r && i < ibr_result_setting_count(r); i++) {
        const char *name = "", *value = "";
        ibr_result_setting(&name, &value, r, i);
        printf("%s", i ? ", " : "");
        cli_json_string(stdout, name);
        printf(": ");
        cli_json_string(stdout, value);
    }
    printf("}, \"threads\": %u, \"threads_used\": %u, \"route_time_s\": ", opts->threads,
           r ? ibr_result_threads(r) : 0);
    cli_json_double(stdout, route_s);
    {
        char dbuf[1024];
        const char *deg = rc == 0 ? degraded_summary(r, dbuf, sizeof dbuf) : NULL;
        printf(", \"degraded\": ");
        if (deg)
            cli_json_string(stdout, deg);
        else
            printf("null");
    }
    if (rc == 0 && ibr_result_has_qos(r)) {
        /* "qos": {"notes": [...], "hazards": [{sl_a, sl_b, vl, masked, count,
           switch, in_port, out_port}]} */
        printf(", \"qos\": {\"levels\": %u, \"notes\": [", ibr_result_qos_levels(r));
        for (i = 0; i < ibr_result_qos_note_count(r); i++) {
            printf("%s", i ? ", " : "");
            cli_json_string(stdout, ibr_result_qos_note(r, i));
        }
        printf("], \"hazards\": [");
        for (i = 0; i < ibr_result_sl_hazard_count(r); i++) {
            ibr_sl_hazard h;
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            if (ibr_result_sl_hazard(&h, r, i) < 0 || ibr_topo_node_info(&ni, t, h.node) < 0)
                continue;
            printf("%s{\"sl_a\": %u, \"sl_b\": %u, \"vl\": %u, \"masked\": %s, \"count\": %"
                   PRIu64 ", \"switch\": \"0x%016" PRIx64 "\", \"in_port\": %u, \"out_port\": %u}",
                   i ? ", " : "", h.sl_a, h.sl_b, h.vl, h.masked ? "true" : "false", h.count,
                   ni.node_guid, h.in_port, h.out_port);
        }
        printf("]}");
    } else {
        printf(", \"qos\": null");
    }
    printf(", \"vls_used\": %u, \"layers\": %u, \"verify\": %s, \"files\": [",
           r && rc == 0 ? ibr_result_vls_used(r) : 0, r && rc == 0 ? ibr_result_layers(r) : 0,
           verify_json ? verify_json : "null");
    for (i = 0; i < files->n; i++) {
        if (i)
            printf(", ");
        cli_json_string(stdout, files->names[i]);
    }
    printf("], \"bytes_written\": %" PRIu64 ", \"write_time_s\": ", files->bytes);
    cli_json_double(stdout, files->seconds);
    printf(", \"write_errors\": [");
    for (i = 0; i < files->n_failed; i++) {
        if (i)
            printf(", ");
        cli_json_string(stdout, files->failed[i]);
    }
    printf("]}\n");
}

/* QoS lines of the summary: notes, then hazards. */
static void print_qos_text(const ibr_topo *t, const ibr_result *r)
{
    size_t nn = ibr_result_qos_note_count(r), nh = ibr_result_sl_hazard_count(r);
    printf("qos:          on; %zu note%s, %zu SL2VL hazard%s\n", nn, nn == 1 ? "" : "s", nh,
           nh == 1 ? "" : "s");
    unsigned lv = ibr_result_qos_levels(r);
    if (lv > 1) {
        /* level l's SLs: the level-0 path SLs plus l strides */
        unsigned stride = ibr_result_path_sl_level(r, 1, 0, 0) - ibr_result_path_sl(r, 0, 0);
        printf("  qos levels: %u, each on its own VLs (level l: path SL + %u x l)\n", lv, stride);
    }
    for (size_t i = 0; i < nn; i++)
        printf("  qos note:   %s\n", ibr_result_qos_note(r, i));
    for (size_t i = 0; i < nh; i++) {
        ibr_sl_hazard h;
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if (ibr_result_sl_hazard(&h, r, i) < 0 || ibr_topo_node_info(&ni, t, h.node) < 0)
            continue;
        if (h.sl_a == h.sl_b)
            printf("  credit-loop hazard: SL %u is dropped (VL 15)", h.sl_a);
        else
            printf("  credit-loop hazard: SLs %u and %u share VL %u%s", h.sl_a, h.sl_b, h.vl,
                   h.masked ? " (beyond the port's operational VLs)" : "");
        printf(" on %" PRIu64 " switch port pair%s; first: switch 0x%016" PRIx64
               " \"%s\" in %u out %u\n",
               h.count, h.count == 1 ? "" : "s", ni.node_guid, ni.desc ? ni.desc : "",
               h.in_port, h.out_port);
    }
}

static void print_route_text(const route_args *a, const ibr_topo *t, const ibr_result *r,
                             const ibr_options *opts, int rc, double route_s,
                             const ibr_verify_report *rep, int vrc, int verified,
                             const file_list *files)
{
    size_t i;

    printf("topology:     %s (%" PRIu32 " nodes, %" PRIu32 " switches, %" PRIu32
           " end ports, max LID %u)\n",
           a->topology, ibr_topo_node_count(t), ibr_topo_switch_count(t),
           ibr_topo_endport_count(t), (unsigned)ibr_topo_max_lid(t));
    printf("engine:       %s\n", rc == 0 && r ? ibr_result_engine(r) : "(none)");
    print_attempts(r);
    printf("seed:         %" PRIu64 "%s\n", r ? ibr_result_seed(r) : opts->seed,
           opts->scatter_ports ? " (scatter)" : "");
    for (i = 0; r && i < ibr_result_setting_count(r); i++) {
        const char *name = "", *value = "";
        ibr_result_setting(&name, &value, r, i);
        /* text settings (a whole configuration) show their first line */
        int len = (int)strcspn(value, "\n");
        printf("%s%s=%.*s%s", i ? ", " : "settings:     ", name, len > 60 ? 60 : len, value,
               value[len] || len > 60 ? "..." : "");
    }
    if (r && ibr_result_setting_count(r))
        printf("\n");
    if (opts->threads == 0)
        printf("threads:      %u (automatic)\n", r ? ibr_result_threads(r) : 0);
    else
        printf("threads:      %u\n", opts->threads);
    printf("route_time_s: %.6f\n", route_s);
    if (rc != 0) {
        printf("status:       %s: %s\n", ibr_status_name(rc),
               r && *ibr_result_last_error(r) ? ibr_result_last_error(r) : ibr_strerror(rc));
        return;
    }
    {
        char dbuf[1024];
        const char *deg = degraded_summary(r, dbuf, sizeof dbuf);
        if (deg)
            printf("degraded:     %s\n", deg);
        const void *data = NULL;
        size_t size = 0;
        /* updn's roots where it chose them itself (one line, "roots: ...") */
        if (ibr_result_find_artifact(&data, &size, r, "updn-roots.txt") == 0 && size > 7 &&
            !memcmp(data, "roots: ", 7)) {
            const char *text = (const char *)data + 7, *nl = memchr(text, '\n', size - 7);
            printf("roots:        %.*s\n", (int)(nl ? nl - text : (ptrdiff_t)(size - 7)), text);
        }
    }
    print_derived_torus_conf(r);
    if (ibr_result_layers(r))
        printf("layers:       %u needed to break every credit loop; VLs used: %u\n",
               ibr_result_layers(r), ibr_result_vls_used(r));
    else if (ibr_result_vls_used(r) > 1)
        printf("VLs used:     %u\n", ibr_result_vls_used(r));
    if (ibr_result_has_qos(r))
        print_qos_text(t, r);
    if (a->groups && rc == 0 && r)
        printf("multicast:    %zu MLIDs, %s, busiest link carries %" PRIu32 " trees\n",
               ibr_result_mcast_count(r), cli_mcast_trees(r, 0),
               cli_mcast_busiest(r, NULL, NULL));
    if (verified)
        cli_print_verify_text(stdout, rep, vrc);
    else
        printf("verify:       skipped\n");
    if (files->n) {
        size_t dl = strlen(a->outdir);
        while (dl > 1 && a->outdir[dl - 1] == '/')
            dl--;
        printf("files:        %.*s/{", (int)dl, a->outdir);
        for (i = 0; i < files->n; i++)
            printf("%s%s", i ? "," : "", files->names[i]);
        printf("}\n");
    }
    if (files->n || files->n_failed) {
        char size[32];
        human_size(size, sizeof(size), files->bytes);
        printf("written:      %zu file%s, %s in %.2f s\n", files->n, files->n == 1 ? "" : "s",
               size, files->seconds);
    }
    for (i = 0; i < files->n_failed; i++)
        printf("NOT WRITTEN:  %s\n", files->failed[i]);
}

/* --strict: a fallback, or a credit loop from an engine that promises
   none, fails the command (exit 1), with the reason on stderr. rep is the
   verification report, or NULL when --no-verify skipped it. */
static int strict_check(const ibr_result *r, const ibr_verify_report *rep)
{
    const char *first = "", *msg = "";
    int st = 0;
    ibr_engine_info info;

    if (ibr_result_attempt_count(r) > 0 && ibr_result_attempt(&first, &st, &msg, r, 0) == 0 &&
        st != 0) {
        cli_error("CL045", "strict", "the first engine, %s, %s%s%s; %s routed as a fallback", first,
                  st == IBR_EDECLINED ? "declined" : ibr_status_name(st), *msg ? ": " : "", msg,
                  ibr_result_engine(r));
        return CLI_EXIT_INVALID;
    }
    if (ibr_result_sl_hazard_count(r) > 0) {
        ibr_sl_hazard h;
        ibr_result_sl_hazard(&h, r, 0);
        cli_error("CL046", "strict",
                  "QoS SL2VL credit-loop hazard: %zu merge%s of SLs %s keeps apart "
                  "(first: SLs %u and %u on VL %u)",
                  ibr_result_sl_hazard_count(r), ibr_result_sl_hazard_count(r) == 1 ? "" : "s",
                  ibr_result_engine(r), h.sl_a, h.sl_b, h.vl);
        return CLI_EXIT_INVALID;
    }
    if (ibr_context_find_engine(&info, ibr_topo_context(ibr_result_topo(r)),
                                ibr_result_engine(r)) == 0 &&
        (info.caps & IBR_CAP_DEADLOCK_FREE)) {
        size_t len = 0;
        int rc = rep ? (rep->deadlock_free > 0 ? 0 : IBR_EDEADLOCK)
                     : ibr_result_find_credit_loop(NULL, 0, &len, r);
        if (rc < 0 && rc != IBR_EDEADLOCK) {
            cli_lib_error("strict", NULL, rc);
            return CLI_EXIT_ERROR;
        }
        if (rc == IBR_EDEADLOCK) {
            cli_error("CL047", "strict",
                      "%s promises credit-loop freedom, but the routing has a credit "
                      "loop%s%s",
                      ibr_result_engine(r), rep ? ": " : "", rep ? rep->credit_loop : "");
            return CLI_EXIT_INVALID;
        }
    }
    return CLI_EXIT_OK;
}

/* Everything one `ibr route` holds, from the command line to the report. */
typedef struct route_run {
    route_args a;
    cli_topo_args ta;
    cli_route_args ra;
    ibr_context *ctx;
    ibr_topo *t;
    ibr_result *r;
    ibr_mcast_groups *groups;
    ibr_qos_config *qos;
    progress_state ps;
    ibr_verify_report rep;
    ibr_buffer vjson;  /* the verification report as JSON (--json) */
    file_list files;   /* the dumps written (-o) */
    int rc;            /* of ibr_route() */
    int vrc, verified; /* of ibr_result_verify(), and whether it judged */
    int write_err;     /* a dump or the database could not be written */
    double route_s;
} route_run;

enum { O_PROGRESS = CLI_OPT_OWN, O_STRICT, O_SA_DUMP, O_MCAST_OPENSM };

/* One option of ibr route (cli_option_fn). */
static int route_option(void *arg, int c, const char *val)
{
    route_run *s = arg;
    route_args *a = &s->a;
    int h = output_option(a, c, val);

    if (h != 0)
        return h < 0 ? -1 : 0;
    switch (c) {
    case 'R': a->chain = val; break;
    case O_STRICT: a->strict = 1; break;
    case CLI_OPT_GROUPS:
    case O_SA_DUMP:
        if (a->groups) {
            cli_error("CL048", "route", "give the multicast groups once (--groups or --sa-dump)");
            return -1;
        }
        a->groups = val;
        a->groups_sa = c == O_SA_DUMP;
        break;
    case CLI_OPT_MCAST_BALANCE: a->mcast_balance = 1; break;
    case O_MCAST_OPENSM: a->mcast_opensm = 1; break;
    case O_PROGRESS: a->progress = 1; break;
    case 'q':
        a->progress = 0;
        cli_quiet = 1;
        break;
    default: return cli_shared_option(&s->ta, &s->ra, c, val, usage_route) < 0 ? -1 : 0;
    }
    return 0;
}

/* Read the command line of ibr route into s. 0 to go on, 1 when --help
   was printed, -1 on a usage error (printed). */
static int route_parse(route_run *s, int argc, char **argv)
{
    static const struct option own[] = {{"sa-dump", required_argument, NULL, O_SA_DUMP},
                                        {"mcast-opensm", no_argument, NULL, O_MCAST_OPENSM},
                                        {"strict", no_argument, NULL, O_STRICT},
                                        {"progress", no_argument, NULL, O_PROGRESS},
                                        {0, 0, 0, 0}};
    struct option lo[CLI_LONG_OPTIONS_MAX];
    route_args *a = &s->a;
    int rc;

    cli_long_options(lo, own, CLI_CMD_ROUTE);
    if ((rc = cli_getopt_each(argc, argv, "hR:o:vqQ", lo, usage_route, route_option, s)) != 0)
        return rc;
    if (optind + 1 != argc) {
        if (optind >= argc)
            cli_error("CL036", "route", "missing TOPOLOGY (try 'ibr %s --help')", "route");
        else
            cli_error("CL037", "route", "too many arguments");
        return -1;
    }
    a->topology = argv[optind];
    return 0;
}

/* The rules between the options of ibr route (the --scatter seed set).
   0 or -1 (printed). */
static int route_check_args(route_run *s)
{
    const route_args *a = &s->a;
    ibr_options *opts = &s->ra.opts;

    if (a->dumps_given && !a->outdir) {
        cli_error("CL049", "route", "--dumps and --all-dumps choose what -o writes: give -o DIR");
        return -1;
    }
    if (cli_topo_args_check(&s->ta, "route") < 0)
        return -1;
    if (a->chain && !a->chain[strspn(a->chain, ", \t\n")]) {
        cli_error("CL050", "route",
                  "-R names no engine (give a chain such as -R ftree,updn; "
                  "`ibr engines` lists them)");
        return -1;
    }
    if (a->mcast_balance && a->mcast_opensm) {
        cli_error("CL051", "route",
                  "--mcast-balance and --mcast-opensm exclude each other (balanced "
                  "trees, or OpenSM's trees kept as they are)");
        return -1;
    }
    if (a->strict && !a->verify) {
        cli_error("CL052", "route",
                  "--strict and --no-verify exclude each other (--strict judges "
                  "the verification)");
        return -1;
    }
    if (opts->scatter_ports && opts->seed == 0) {
        if (s->ra.seed_given) {
            cli_error("CL053", "--scatter",
                      "a seed of 0 disables scattering; give --seed N with N > 0");
            return -1;
        }
        opts->seed = 1;
    }
    return 0;
}

/* The context, the GUID files, the topology, the multicast groups and the
   QoS configuration, into s and its options. 0 or -1 (printed). */
static int route_load(route_run *s)
{
    const route_args *a = &s->a;
    ibr_options *opts = &s->ra.opts;

    if (cli_make_context(&s->ctx, cli_log_level(a->verbose)) < 0 ||
        cli_route_args_check_chain(&s->ra, s->ctx, a->chain, "route") < 0)
        return -1;
    /* the fabric is not kept: it is freed before routing big fabrics */
    if (cli_route_args_load(&s->ra, s->ctx) < 0 ||
        cli_load_topo(&s->t, s->ctx, a->topology, &s->ta) < 0)
        return -1;
    if ((a->mcast_balance || a->mcast_opensm) && !a->groups) {
        cli_error("CL029", a->mcast_balance ? "--mcast-balance" : "--mcast-opensm",
                  "give the multicast groups with --groups FILE");
        return -1;
    }
    if (a->groups) {
        if (cli_load_groups_as(&s->groups, s->t, a->groups, a->groups_sa) < 0)
            return -1;
        opts->mcast_groups = s->groups;
        opts->mcast_flags = (a->mcast_balance ? IBR_MCAST_BALANCE : 0) |
                            (a->mcast_opensm ? IBR_MCAST_OPENSM : 0);
    }
    if (s->ra.qos && cli_load_qos(&s->qos, s->ctx, s->ra.qos_config, s->ra.qos_levels) < 0)
        return -1;
    opts->qos = s->qos;
    return 0;
}

/* Route with the progress lines on stderr. */
static void route_engine(route_run *s)
{
    ibr_options *opts = &s->ra.opts;
    double t0;

    memset(&s->ps, 0, sizeof(s->ps));
    s->ps.tty = isatty(STDERR_FILENO);
    s->ps.enabled = s->a.progress != 0;
    opts->progress = progress_cb;
    opts->progress_user = &s->ps;

    t0 = cli_now();
    s->ps.start = t0;
    s->rc = ibr_route(&s->r, s->t, s->a.chain, opts);
    s->route_s = cli_now() - t0;
    if (s->ps.shown && s->ps.tty)
        fputc('\n', stderr);
}

/* Verify the routing (into s->rep, and s->vjson with --json) while the
   dumps are written (on this thread when no thread can be started), then
   save the database. 0, or -1 when the verification could not judge
   (printed). */
static int route_verify_and_write(route_run *s)
{
    const route_args *a = &s->a;
    write_job wjob;
    pthread_t writer;
    int writing = 0, wrc, ret = 0;

    s->files.ps = &s->ps;
    wjob = (write_job){&s->files, a->outdir, a->dumps, s->t, s->r, 0};
    if (s->rc == 0 && a->outdir) {
        if (a->verify && pthread_create(&writer, NULL, write_thread, &wjob) == 0)
            writing = 1;
        else
            write_thread(&wjob);
    }
    if (s->rc == 0 && a->verify) {
        ibr_verify_report_init(&s->rep, IBR_VERIFY_REPORT_VERSION);
        s->rep.threads = s->ra.opts.threads;
        s->rep.strict = a->strict;
        s->vrc = ibr_result_verify(&s->rep, s->r);
        s->verified = s->vrc == 0 || s->vrc == IBR_EROUTES;
        if (!s->verified) {
            cli_lib_error("verify", NULL, s->vrc);
            ret = -1;
        } else if (a->json && (wrc = ibr_verify_report_write_json(&s->vjson, &s->rep)) < 0) {
            cli_lib_error("verify", NULL, wrc);
            ret = -1;
        }
    }
    if (writing)
        pthread_join(writer, NULL);
    if (ret < 0)
        return -1;
    /* a file that cannot be written does not hide the summary: it says what
       was written and what was not, and the exit status is 2 */
    s->write_err = s->rc == 0 && a->outdir && wjob.ret < 0;
    if (s->rc == 0 && a->save_db && save_db(a->save_db, s->r) < 0)
        s->write_err = 1;
    return 0;
}

/* Print the summary and the verdict; the exit status. */
static int route_report(route_run *s)
{
    const route_args *a = &s->a;
    int ret;

    if (a->json)
        print_route_json(a, s->t, s->r, &s->ra.opts, s->rc, s->route_s, s->vjson.data,
                         &s->files);
    else if (s->rc == 0 || (s->r && ibr_result_attempt_count(s->r) > 0))
        /* a request the library refused before any engine ran (unknown
           engine, bad setting) is reported once, below */
        print_route_text(a, s->t, s->r, &s->ra.opts, s->rc, s->route_s, &s->rep, s->vrc,
                         s->verified, &s->files);
    cli_flush_stdout();

    if (s->rc < 0) {
        cli_lib_error("route", s->r ? ibr_result_last_error(s->r) : NULL, s->rc);
        return s->rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
    }
    if (s->verified && s->vrc != 0) {
        cli_error("CL054", "verify", "routing tables are invalid: %s",
                  s->rep.first_error[0] ? s->rep.first_error : s->rep.first_mcast_error);
        return CLI_EXIT_INVALID;
    }
    if (s->write_err)
        return CLI_EXIT_ERROR;
    if (a->strict && (ret = strict_check(s->r, s->verified ? &s->rep : NULL)) != CLI_EXIT_OK)
        return ret;
    return CLI_EXIT_OK;
}

int cmd_route(int argc, char **argv)
{
    route_run s;
    int ret = CLI_EXIT_ERROR, p;

    memset(&s, 0, sizeof(s));
    route_args_init(&s.a);
    s.ta = (cli_topo_args)CLI_TOPO_ARGS_INIT;
    cli_route_args_init(&s.ra);
    s.vjson = (ibr_buffer)IBR_BUFFER_INIT;
    if ((p = route_parse(&s, argc, argv)) != 0) {
        if (p > 0)
            ret = CLI_EXIT_OK;
    } else if (route_check_args(&s) == 0 && route_load(&s) == 0) {
        route_engine(&s);
        if (route_verify_and_write(&s) == 0)
            ret = route_report(&s);
    }
    ibr_buffer_dispose(&s.vjson);
    file_list_free(&s.files);
    ibr_result_destroy(s.r);
    ibr_mcast_groups_destroy(s.groups);
    ibr_qos_config_destroy(s.qos);
    ibr_topo_destroy(s.t);
    /* the lists were created with the context: destroy them first */
    cli_route_args_dispose(&s.ra);
    ibr_context_destroy(s.ctx);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* ibr reroute */

void usage_reroute(FILE *o)
{
    fputs("usage: ibr reroute [options] DATABASE TOPOLOGY [-o DIR]\n"
          "\n"
          "Route TOPOLOGY from a routing database saved by `ibr route --save-db`: the\n"
          "database holds the routing and the fabric it was computed on. Every\n"
          "difference is listed and classified (new or missing switch, new or missing\n"
          "cable between switches, new, missing or moved end port, LID change, with what\n"
          "it invalidates); then the saved tables are reused where they are still valid\n"
          "and only what the changes invalidate is rerouted: nothing for an unchanged\n"
          "fabric, the saved tables with new LIDs added for end-port changes, an\n"
          "incremental repair after lost cables or switches (routes of a failed cable\n"
          "moved to its parallel cables or to ports at the same distance, otherwise the\n"
          "destinations whose routes crossed it rerouted), or a full reroute with the\n"
          "saved engine, settings and seed when the engine's promise needs it (the\n"
          "summary says why). The churn (LFT entries and switches to reprogram, path\n"
          "SLs changed) is counted against the saved routing, and what a subnet manager\n"
          "sends for it: the 64-LID LFT blocks and the SL2VL tables that changed, beside\n"
          "the saved blocks whose routes crossed a lost cable or switch.\n"
          "\n"
          "Options:\n"
          "  -o, --output DIR            write the dumps of the new routing into DIR\n"
          "  --dumps LIST, --all-dumps   which dumps, as for ibr route\n"
          "  --save-db FILE              save the new routing as a database\n"
          "  --full                      reroute fully whatever changed\n"
          "  --fallback                  when the saved engine cannot route the changed\n"
          "                              fabric, take minhop's tables (the chain's fallback;\n"
          "                              the saved engine's promises then do not hold);\n"
          "                              without it the reroute fails (exit 1)\n"
          "  --vs-full                   also run a full reroute and print its churn\n"
          "  --changes                   list every change (default: the first 20)\n"
          "  --repeat N                  run the reroute N times and print the fastest and\n"
          "                              median times (benchmarks); with --vs-full the full\n"
          "                              reroute as well, after each repair\n"
          "  --guid2lid FILE, --lmc N    LIDs of TOPOLOGY, as for ibr route\n"
          "  -Q, --qos-config FILE, --qos-levels N\n"
          "                              QoS as for ibr route, instead of the configuration\n"
          "                              the database saved (a routing saved with QoS is\n"
          "                              programmed again with its own by default)\n"
          "  --threads N and the other ibr route options apply to a full reroute\n"
          "  --no-verify                 skip the verification\n"
          "  --json                      print the summary as JSON\n"
          "  --no-progress, -q           quiet\n"
          "  -v, --verbose               library log messages\n"
          "\n"
          "Exit status: 0 routed and valid, 1 unroutable (the saved engine cannot route\n"
          "the changed fabric and --fallback was not given) or invalid routes (a credit\n"
          "loop counts when the engine that routed promises none), 2 error.\n",
          o);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *change_name(int kind)
{
    switch (kind) {
    case IBR_CHANGE_NEW_SWITCH: return "new switch";
    case IBR_CHANGE_MISSING_SWITCH: return "missing switch";
    case IBR_CHANGE_NEW_CABLE: return "new cable";
    case IBR_CHANGE_MISSING_CABLE: return "missing cable";
    case IBR_CHANGE_NEW_CA: return "new end port";
    case IBR_CHANGE_MISSING_CA: return "missing end port";
    case IBR_CHANGE_MOVED_CA: return "moved end port";
    case IBR_CHANGE_LID: return "LID change";
    default: return "?";
    }
}

static const char *mode_name(int mode)
{
    switch (mode) {
    case IBR_REROUTE_UNCHANGED: return "unchanged";
    case IBR_REROUTE_CACHED: return "cached";
    case IBR_REROUTE_INCREMENTAL: return "incremental";
    default: return "full";
    }
}

/* What a change invalidates, in words: "every table must be recomputed;
   the saved hop counts are stale; routes through this port must move". */
static void invalid_text(char *buf, size_t cap, unsigned inv)
{
    static const struct {
        unsigned bit;
        const char *words;
    } what[] = {
        {IBR_INVALID_ALL, "every table must be recomputed"},
        {IBR_INVALID_HOPS, "the saved hop counts are stale"},
        {IBR_INVALID_PORT_ROUTES, "routes through this port must move"},
        {IBR_INVALID_LIDS, "the entries of its LIDs must be rewritten"},
    };
    size_t off = (size_t)snprintf(buf, cap, "%s", inv ? "" : "nothing to reroute");
    for (size_t i = 0; i < sizeof what / sizeof what[0] && off < cap; i++)
        if (inv & what[i].bit)
            off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? "; " : "",
                                    what[i].words);
}

/* Does the engine that produced r promise credit-loop freedom? */
static int promises_deadlock_free(const ibr_result *r)
{
    ibr_engine_info info;
    return r && ibr_context_find_engine(&info, ibr_topo_context(ibr_result_topo(r)),
                                        ibr_result_engine(r)) == 0 &&
           (info.caps & IBR_CAP_DEADLOCK_FREE);
}

/* Everything one `ibr reroute` holds, from the command line to the report. */
typedef struct reroute_run {
    route_args a; /* -o, --dumps, --save-db, --no-verify, --json, -v */
    cli_topo_args ta;
    cli_route_args ra;
    const char *database, *topology;
    unsigned flags;  /* IBR_REROUTE_* */
    int vs_full;     /* --vs-full (cleared when the full reroute fails) */
    int all_changes; /* --changes */
    uint64_t rep_n;  /* --repeat N */
    ibr_context *ctx;
    ibr_topo *t;
    ibr_routing_db *db;
    ibr_change *ch; /* the changes against the database */
    size_t nch;
    ibr_qos_config *qos;
    ibr_result *r, *fr; /* the reroute, and the full one of --vs-full */
    ibr_reroute_report rep, frep;
    ibr_verify_report vr;
    file_list files;
    double *times, *ftimes; /* of the rep_n reroutes and full ones, sorted */
    double route_s, full_s, min_s, med_s, fmin_s, fmed_s;
    int rc;             /* of the reroute */
    int vrc, verified;  /* of ibr_result_verify(), and whether it judged */
    int hazards;        /* the QoS configuration merges SLs the engine keeps apart */
    int broken, valid;  /* the engine's promise broken; the verdict */
    int write_err;      /* a dump or the database could not be written */
} reroute_run;

enum { O_FULL = CLI_OPT_OWN, O_VSFULL, O_CHANGES, O_REPEAT, O_FALLBACK };

/* One option of ibr reroute (cli_option_fn). */
static int reroute_option(void *arg, int c, const char *val)
{
    reroute_run *s = arg;
    int h = output_option(&s->a, c, val);

    if (h != 0)
        return h < 0 ? -1 : 0;
    switch (c) {
    case O_FULL: s->flags |= IBR_REROUTE_FORCE_FULL; break;
    case O_FALLBACK: s->flags |= IBR_REROUTE_FALLBACK; break;
    case O_VSFULL: s->vs_full = 1; break;
    case O_CHANGES: s->all_changes = 1; break;
    case O_REPEAT:
        if (cli_opt_uint("--repeat", val, 1000, &s->rep_n) < 0 || s->rep_n == 0) {
            if (s->rep_n == 0)
                cli_error("CL055", "--repeat", "give at least 1");
            return -1;
        }
        break;
    case 'q': cli_quiet = 1; break;
    default: return cli_shared_option(&s->ta, &s->ra, c, val, usage_reroute) < 0 ? -1 : 0;
    }
    return 0;
}

/* Read the command line of ibr reroute into s. 0 to go on, 1 when --help
   was printed, -1 on a usage error (printed). */
static int reroute_parse(reroute_run *s, int argc, char **argv)
{
    static const struct option own[] = {{"full", no_argument, NULL, O_FULL},
                                        {"fallback", no_argument, NULL, O_FALLBACK},
                                        {"vs-full", no_argument, NULL, O_VSFULL},
                                        {"changes", no_argument, NULL, O_CHANGES},
                                        {"repeat", required_argument, NULL, O_REPEAT},
                                        {0, 0, 0, 0}};
    struct option lo[CLI_LONG_OPTIONS_MAX];
    int rc;

    cli_long_options(lo, own, CLI_CMD_REROUTE);
    if ((rc = cli_getopt_each(argc, argv, "ho:vqQ", lo, usage_reroute, reroute_option, s)) != 0)
        return rc;
    if (optind + 2 != argc) {
        if (optind + 2 > argc)
            cli_error("CL056", "reroute",
                      "expected DATABASE and TOPOLOGY (try 'ibr reroute --help')");
        else
            cli_error("CL037", "reroute", "too many arguments");
        return -1;
    }
    s->database = argv[optind];
    s->topology = argv[optind + 1];
    return cli_topo_args_check(&s->ta, "reroute");
}

/* The context, the database, the GUID files, the topology, the changes
   between the database and the topology, and the QoS configuration given
   (the database's own otherwise). 0 or -1 (printed). */
static int reroute_load(reroute_run *s)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (cli_make_context(&s->ctx, cli_log_level(s->a.verbose)) < 0)
        return -1;
    if (cli_read_file(s->database, &text, &len) < 0)
        return -1;
    rc = ibr_routing_db_parse(&s->db, s->ctx, text, len);
    free(text);
    if (rc < 0) {
        cli_lib_error(s->database, s->db ? ibr_routing_db_last_error(s->db) : NULL, rc);
        return -1;
    }
    if (cli_route_args_load(&s->ra, s->ctx) < 0 ||
        cli_load_topo(&s->t, s->ctx, s->topology, &s->ta) < 0)
        return -1;
    rc = ibr_routing_db_compare(NULL, 0, &s->nch, s->db, s->t);
    if (rc == IBR_ERANGE) {
        s->ch = calloc(s->nch, sizeof *s->ch);
        if (!s->ch || ibr_routing_db_compare(s->ch, s->nch, &s->nch, s->db, s->t) < 0) {
            cli_error("CL011", "reroute", "out of memory");
            return -1;
        }
    } else if (rc < 0) {
        cli_lib_error("compare", NULL, rc);
        return -1;
    }
    s->times = calloc(s->rep_n, sizeof *s->times);
    s->ftimes = calloc(s->rep_n, sizeof *s->ftimes);
    if (!s->times || !s->ftimes) {
        cli_error("CL011", "reroute", "out of memory");
        return -1;
    }
    if (s->ra.qos) {
        if (cli_load_qos(&s->qos, s->ctx, s->ra.qos_config, s->ra.qos_levels) < 0)
            return -1;
        s->ra.opts.qos = s->qos;
    }
    return 0;
}

/* Reroute (rep_n times with --repeat, for the fastest and median times),
   and fully as well with --vs-full: each repeat runs the repair and then
   the full reroute, so that both see the same load. 0, or -1 when a repeat
   failed (printed). */
static int reroute_timed(reroute_run *s)
{
    double t0 = cli_now();

    s->rc = ibr_routing_db_route(&s->r, &s->rep, s->db, s->t, &s->ra.opts, s->flags);
    s->route_s = s->times[0] = cli_now() - t0;
    unsigned fflags = IBR_REROUTE_FORCE_FULL | (s->flags & IBR_REROUTE_FALLBACK);
    if (s->rc != 0)
        s->rep_n = 1;
    if (s->rc == 0 && s->vs_full) {
        t0 = cli_now();
        if (ibr_routing_db_route(&s->fr, &s->frep, s->db, s->t, &s->ra.opts, fflags) < 0)
            s->vs_full = 0;
        s->full_s = s->ftimes[0] = cli_now() - t0;
    }
    for (uint64_t k = 1; s->rc == 0 && k < s->rep_n; k++) {
        ibr_result *again = NULL;
        ibr_reroute_report r2 = IBR_REROUTE_REPORT_INIT;
        t0 = cli_now();
        int rc2 = ibr_routing_db_route(&again, &r2, s->db, s->t, &s->ra.opts, s->flags);
        s->times[k] = cli_now() - t0;
        ibr_result_destroy(again);
        if (rc2 < 0) {
            cli_lib_error("reroute", NULL, rc2);
            return -1;
        }
        if (!s->vs_full)
            continue;
        again = NULL;
        t0 = cli_now();
        rc2 = ibr_routing_db_route(&again, &r2, s->db, s->t, &s->ra.opts, fflags);
        s->ftimes[k] = cli_now() - t0;
        ibr_result_destroy(again);
        if (rc2 < 0) {
            cli_lib_error("reroute --vs-full", NULL, rc2);
            return -1;
        }
    }
    qsort(s->times, s->rep_n, sizeof *s->times, cmp_double);
    s->min_s = s->times[0];
    s->med_s = s->times[s->rep_n / 2];
    if (s->vs_full) {
        qsort(s->ftimes, s->rep_n, sizeof *s->ftimes, cmp_double);
        s->fmin_s = s->ftimes[0];
        s->fmed_s = s->ftimes[s->rep_n / 2];
    }
    return 0;
}

/* Verify the new routing and judge it, then write the dumps and the
   database. 0, or -1 when the verification could not judge (printed). */
static int reroute_verify_and_write(reroute_run *s)
{
    if (s->rc == 0 && s->a.verify) {
        ibr_verify_report_init(&s->vr, IBR_VERIFY_REPORT_VERSION);
        s->vr.threads = s->ra.opts.threads;
        s->vrc = ibr_result_verify(&s->vr, s->r);
        s->verified = s->vrc == 0 || s->vrc == IBR_EROUTES;
        if (!s->verified) {
            cli_lib_error("verify", NULL, s->vrc);
            return -1;
        }
    }
    /* a credit loop breaks the promise of an engine that makes it: the
       verdict is then invalid, never "valid ... credit loop". Unless the
       QoS configuration merges SLs the engine keeps apart (SL2VL hazards,
       listed below): then the loop is the configuration's, as ibr route
       reports it (--strict fails both) */
    s->hazards = s->rc == 0 && s->r && ibr_result_sl_hazard_count(s->r) > 0;
    s->broken = s->verified && s->vr.deadlock_free == 0 && !s->hazards &&
                promises_deadlock_free(s->r);
    s->valid = s->verified && s->vrc == 0 && !s->broken;
    s->write_err = s->rc == 0 && s->a.outdir &&
                   write_outputs(&s->files, s->a.outdir, s->a.dumps, s->t, s->r) < 0;
    if (s->rc == 0 && s->a.save_db && save_db(s->a.save_db, s->r) < 0)
        s->write_err = 1;
    return 0;
}

/* The switches by changed LFT blocks (ibr_reroute_report::lft_blocks_hist)
   as a JSON array of the buckets that hold one: blocks min..max (max null
   for the last, open bucket) and the switches. */
static void print_blocks_hist_json(const ibr_reroute_report *rep)
{
    printf("[");
    for (unsigned k = 0, n = 0; k < IBR_REROUTE_BLOCK_BUCKETS; k++) {
        if (!rep->lft_blocks_hist[k])
            continue;
        printf("%s{\"min\": %u, \"max\": ", n++ ? ", " : "", 1u << k);
        if (k + 1 < IBR_REROUTE_BLOCK_BUCKETS)
            printf("%u", (2u << k) - 1);
        else
            printf("null");
        printf(", \"switches\": %" PRIu32 "}", rep->lft_blocks_hist[k]);
    }
    printf("]");
}

static void reroute_print_json(const reroute_run *s)
{
    printf("{\"database\": ");
    cli_json_string(stdout, s->database);
    printf(", \"topology\": ");
    cli_json_string(stdout, s->topology);
    /* the engine whose tables these are (the saved one, or the
       fallback with --fallback); "" when the reroute failed */
    printf(", \"engine\": ");
    cli_json_string(stdout, s->rc == 0 && s->r ? ibr_result_engine(s->r) : "");
    printf(", \"saved_engine\": ");
    cli_json_string(stdout, ibr_routing_db_engine(s->db));
    printf(", \"fallback\": %s", s->rep.fallback ? "true" : "false");
    printf(", \"status\": ");
    cli_json_string(stdout, ibr_status_name(s->rc));
    printf(", \"error\": ");
    if (s->rc < 0)
        cli_json_string(stdout, s->r && *ibr_result_last_error(s->r) ? ibr_result_last_error(s->r)
                                                               : ibr_strerror(s->rc));
    else
        printf("null");
    printf(", \"attempts\": ");
    print_attempts_json(s->r);
    printf(", \"warning\": ");
    if (s->rep.warning[0])
        cli_json_string(stdout, s->rep.warning);
    else
        printf("null");
    printf(", \"changes\": [");
    for (size_t i = 0; i < s->nch; i++) {
        printf("%s{\"kind\": \"%s\", \"guid\": \"0x%016" PRIx64 "\", \"port\": %u, "
               "\"remote_guid\": \"0x%016" PRIx64 "\", \"remote_port\": %u, "
               "\"old_lid\": %u, \"new_lid\": %u, \"invalidates\": %u}",
               i ? ", " : "", change_name(s->ch[i].kind), s->ch[i].guid, s->ch[i].port,
               s->ch[i].remote_guid, s->ch[i].remote_port, (unsigned)s->ch[i].old_lid,
               (unsigned)s->ch[i].new_lid, s->ch[i].invalidates);
    }
    printf("], \"mode\": \"%s\", \"reason\": ", mode_name(s->rep.mode));
    cli_json_string(stdout, s->rep.reason);
    printf(", \"reroute_time_s\": ");
    cli_json_double(stdout, s->route_s);
    printf(", \"repeat\": %" PRIu64 ", \"reroute_time_min_s\": ", s->rep_n);
    cli_json_double(stdout, s->min_s);
    printf(", \"reroute_time_median_s\": ");
    cli_json_double(stdout, s->med_s);
    printf(", \"lft_entries_changed\": %" PRIu64 ", \"switches_changed\": %" PRIu32
           ", \"sls_changed\": %" PRIu64 ", \"destinations_rerouted\": %" PRIu32
           ", \"entries_repaired\": %" PRIu64,
           s->rep.lft_entries_changed, s->rep.switches_changed, s->rep.sls_changed,
           s->rep.destinations_rerouted, s->rep.entries_repaired);
    /* what a subnet manager sends: 64-LID blocks, SL2VL tables */
    printf(", \"lft_blocks_changed\": %" PRIu64 ", \"lft_blocks_max\": %" PRIu32
           ", \"lft_blocks_hist\": ",
           s->rep.lft_blocks_changed, s->rep.lft_blocks_max);
    print_blocks_hist_json(&s->rep);
    printf(", \"sl2vl_tables_changed\": %" PRIu64 ", \"lft_blocks_over_lost\": %" PRIu64,
           s->rep.sl2vl_tables_changed, s->rep.lft_blocks_over_lost);
    if (s->vs_full) {
        printf(", \"full\": {\"time_s\": ");
        cli_json_double(stdout, s->full_s);
        printf(", \"time_min_s\": ");
        cli_json_double(stdout, s->fmin_s);
        printf(", \"time_median_s\": ");
        cli_json_double(stdout, s->fmed_s);
        printf(", \"lft_entries_changed\": %" PRIu64 ", \"switches_changed\": %" PRIu32
               ", \"sls_changed\": %" PRIu64 ", \"lft_blocks_changed\": %" PRIu64
               ", \"lft_blocks_max\": %" PRIu32 ", \"lft_blocks_hist\": ",
               s->frep.lft_entries_changed, s->frep.switches_changed, s->frep.sls_changed,
               s->frep.lft_blocks_changed, s->frep.lft_blocks_max);
        print_blocks_hist_json(&s->frep);
        printf(", \"sl2vl_tables_changed\": %" PRIu64 "}", s->frep.sl2vl_tables_changed);
    }
    if (s->verified)
        printf(", \"valid\": %s, \"pairs\": %" PRIu64 ", \"pairs_ok\": %" PRIu64
               ", \"nonminimal\": %" PRIu64 ", \"deadlock_free\": %d"
               ", \"promise_broken\": %s",
               s->valid ? "true" : "false", s->vr.pairs, s->vr.pairs_ok, s->vr.nonminimal,
               s->vr.deadlock_free, s->broken ? "true" : "false");
    if (s->rc == 0 && ibr_result_has_qos(s->r))
        printf(", \"qos\": {\"levels\": %u, \"notes\": %zu, \"hazards\": %zu}",
               ibr_result_qos_levels(s->r), ibr_result_qos_note_count(s->r),
               ibr_result_sl_hazard_count(s->r));
    else
        printf(", \"qos\": null");
    printf("}\n");
    cli_json_printed = 1;
}

static void reroute_print_text(const reroute_run *s)
{
    printf("database:     %s (engine %s, %" PRIu32 " switches, seed %" PRIu64 ")\n",
           s->database, ibr_routing_db_engine(s->db), ibr_routing_db_switch_count(s->db),
           ibr_routing_db_seed(s->db));
    printf("topology:     %s (%" PRIu32 " nodes, %" PRIu32 " switches, max LID %u)\n",
           s->topology, ibr_topo_node_count(s->t), ibr_topo_switch_count(s->t),
           (unsigned)ibr_topo_max_lid(s->t));
    printf("changes:      %zu\n", s->nch);
    for (size_t i = 0; i < s->nch && (s->all_changes || i < 20); i++) {
        char inv[128];
        invalid_text(inv, sizeof inv, s->ch[i].invalidates);
        printf("  %-16s 0x%016" PRIx64 " port %u", change_name(s->ch[i].kind), s->ch[i].guid,
               s->ch[i].port);
        if (s->ch[i].remote_guid)
            printf(" - 0x%016" PRIx64 " port %u", s->ch[i].remote_guid, s->ch[i].remote_port);
        if (s->ch[i].old_lid || s->ch[i].new_lid)
            printf(" (LID %u -> %u)", (unsigned)s->ch[i].old_lid, (unsigned)s->ch[i].new_lid);
        printf(": %s\n", inv);
    }
    if (s->nch > 20 && !s->all_changes)
        printf("  ... %zu more (--changes lists them all)\n", s->nch - 20);
    printf("mode:         %s%s%s%s\n", mode_name(s->rep.mode), s->rep.reason[0] ? " (" : "",
           s->rep.reason, s->rep.reason[0] ? ")" : "");
    if (s->rc == 0 && s->rep.fallback)
        printf("engine:       %s (FALLBACK: the saved engine %s could not route the "
               "changed fabric; its promises do not hold)\n",
               ibr_result_engine(s->r), ibr_routing_db_engine(s->db));
    else
        printf("engine:       %s\n", s->rc == 0 ? ibr_result_engine(s->r) : "(none)");
    print_attempts(s->r);
    if (s->rep.warning[0])
        printf("warning:      %s\n", s->rep.warning);
    printf("reroute_s:    %.6f", s->route_s);
    if (s->rep_n > 1)
        printf(" (fastest of %" PRIu64 ": %.6f, median %.6f)", s->rep_n, s->min_s, s->med_s);
    printf("\n");
    if (s->rc == 0) {
        printf("churn:        %" PRIu64 " LFT entries on %" PRIu32 " switches, %" PRIu64
               " path SLs; %" PRIu32 " destination switches rerouted\n",
               s->rep.lft_entries_changed, s->rep.switches_changed, s->rep.sls_changed,
               s->rep.destinations_rerouted);
        printf("to send:      %" PRIu64 " LFT blocks (at most %" PRIu32 " on one switch), %" PRIu64
               " SL2VL tables",
               s->rep.lft_blocks_changed, s->rep.lft_blocks_max, s->rep.sl2vl_tables_changed);
        if (s->rep.lft_blocks_over_lost)
            printf("; %" PRIu64 " saved blocks routed over the lost cables",
                   s->rep.lft_blocks_over_lost);
        printf("\n");
        if (s->vs_full) {
            printf("full reroute: %" PRIu64 " LFT entries on %" PRIu32 " switches, %" PRIu64
                   " path SLs, %" PRIu64 " LFT blocks, %" PRIu64 " SL2VL tables, in %.6f s",
                   s->frep.lft_entries_changed, s->frep.switches_changed, s->frep.sls_changed,
                   s->frep.lft_blocks_changed, s->frep.sl2vl_tables_changed, s->full_s);
            if (s->rep_n > 1)
                printf(" (fastest of %" PRIu64 ": %.6f, median %.6f)", s->rep_n, s->fmin_s,
                       s->fmed_s);
            printf("\n");
        }
        if (s->verified)
            printf("verify:       %s (%" PRIu64 " of %" PRIu64 " pairs, %" PRIu64
                   " non-minimal routes, %s%s%s%s)\n",
                   s->valid ? "valid" : "INVALID", s->vr.pairs_ok, s->vr.pairs, s->vr.nonminimal,
                   s->vr.deadlock_free ? "no credit loop" : "credit loop",
                   s->broken ? ", which " : "", s->broken ? ibr_result_engine(s->r) : "",
                   s->broken ? " promises none"
                   : s->hazards && !s->vr.deadlock_free ? " from the QoS SL2VL hazards below"
                                                  : "");
        if (ibr_result_has_qos(s->r))
            print_qos_text(s->t, s->r);
    }
    if (s->a.outdir && s->files.n) {
        printf("files:        %s/{", s->a.outdir);
        for (size_t i = 0; i < s->files.n; i++)
            printf("%s%s", i ? "," : "", s->files.names[i]);
        printf("}\n");
    }
}

/* Print the summary and the verdict; the exit status. */
static int reroute_report(const reroute_run *s)
{
    if (s->a.json)
        reroute_print_json(s);
    else
        reroute_print_text(s);
    fflush(stdout);
    if (s->rc < 0) {
        cli_lib_error("reroute", s->r ? ibr_result_last_error(s->r) : NULL, s->rc);
        if (s->rc == IBR_EUNROUTABLE && !(s->flags & IBR_REROUTE_FALLBACK))
            cli_error("CL057", "reroute",
                      "--fallback takes the fallback's tables instead, without the "
                      "promises of %s",
                      ibr_routing_db_engine(s->db));
        return s->rc == IBR_EUNROUTABLE ? CLI_EXIT_INVALID : CLI_EXIT_ERROR;
    }
    if (s->verified && s->vrc != 0) {
        cli_error("CL054", "verify", "routing tables are invalid: %s", s->vr.first_error);
        return CLI_EXIT_INVALID;
    }
    if (s->broken) {
        cli_error("CL058", "verify",
                  "%s promises credit-loop freedom, but the routing has a credit "
                  "loop: %s",
                  ibr_result_engine(s->r), s->vr.credit_loop);
        return CLI_EXIT_INVALID;
    }
    return s->write_err ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}

int cmd_reroute(int argc, char **argv)
{
    reroute_run s;
    int ret = CLI_EXIT_ERROR, p;

    memset(&s, 0, sizeof(s));
    route_args_init(&s.a);
    s.ta = (cli_topo_args)CLI_TOPO_ARGS_INIT;
    cli_route_args_init(&s.ra);
    s.rep_n = 1;
    s.rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
    s.frep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
    if ((p = reroute_parse(&s, argc, argv)) != 0) {
        if (p > 0)
            ret = CLI_EXIT_OK;
    } else if (reroute_load(&s) == 0 && reroute_timed(&s) == 0 &&
               reroute_verify_and_write(&s) == 0) {
        ret = reroute_report(&s);
    }
    free(s.times);
    free(s.ftimes);
    free(s.ch);
    file_list_free(&s.files);
    ibr_result_destroy(s.r);
    ibr_result_destroy(s.fr);
    ibr_routing_db_destroy(s.db);
    ibr_topo_destroy(s.t);
    cli_route_args_dispose(&s.ra);
    ibr_qos_config_destroy(s.qos);
    ibr_context_destroy(s.ctx);
    return ret;
}
