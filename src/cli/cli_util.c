/*
 * cli_util.c - context, file, number, GUID-list and JSON helpers of the
 * `ibr` tool.
 */
#define _POSIX_C_SOURCE 200809L /* strdup(), fileno(), clock_gettime(), mkstemp(), fchmod(),
                                   sigaction(), readlink(): POSIX, not ISO C */

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char cli_first_error[1024];
int cli_json_printed;
const char *cli_cmd_name = "ibr";
int cli_quiet;
const char *cli_sl2vl_path;
const char *cli_psl_path;

void cli_read_progress(const char *path, size_t len, double start, int done)
{
    double mb = (double)len / 1e6;
    if (cli_quiet)
        return;
    if (!done && len >= 64u * 1000 * 1000)
        fprintf(stderr, "ibr: progress: parsing %s (%.0f MB)\n", path, mb);
    else if (done && cli_now() - start > 1.0)
        fprintf(stderr, "ibr: progress: read %s (%.1f MB) in %.1fs\n", path, mb,
                cli_now() - start);
}
char **cli_cmd_argv;

void cli_bad_option(void)
{
    /* getopt_long() has consumed the bad element: it sits before optind
       (for a short option inside a group, optopt names the letter) */
    const char *bad = cli_cmd_argv && optind > 0 ? cli_cmd_argv[optind - 1] : "?";
    char letter[3] = {'-', (char)optopt, '\0'};
    if (optopt && bad[0] == '-' && bad[1] != '-')
        bad = letter;
    cli_error("CL001", cli_cmd_name, "unknown option or missing value '%s' (try 'ibr help %s')",
              bad, cli_cmd_name);
}

int cli_parse_name_bits(const char *s, const cli_name_bit *names, size_t n, unsigned int *out,
                        const char **bad, size_t *bad_len)
{
    unsigned int bits = 0;
    while (*s) {
        size_t len = strcspn(s, ","), i;
        for (i = 0; i < n; i++)
            if (strlen(names[i].name) == len && strncmp(names[i].name, s, len) == 0)
                break;
        if (i == n) {
            *bad = s;
            *bad_len = len;
            return -1;
        }
        bits |= names[i].bit;
        s += len;
        if (*s == ',')
            s++;
    }
    if (!bits)
        return -2;
    *out = bits;
    return 0;
}

int cli_getopt_each(int argc, char **argv, const char *shortopts, const struct option *lo,
                    void (*usage)(FILE *o), cli_option_fn fn, void *args)
{
    int c;
    while ((c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (fn(args, c, optarg) < 0)
            return -1;
    }
    return 0;
}

/* Write "ibr: what: msg\n" on stderr with the control characters of what
   and msg (terminal escape sequences in a node description, say) shown
   as \xNN rather than sent to the terminal. */
static void put_message(const char *what, const char *msg)
{
    const char *parts[2] = {what, msg};
    fputs("ibr: ", stderr);
    for (int k = 0; k < 2; k++) {
        if (k)
            fputs(": ", stderr);
        for (const unsigned char *p = (const unsigned char *)parts[k]; *p; p++) {
            if (*p < 0x20 || *p == 0x7f)
                fprintf(stderr, "\\x%02x", *p);
            else
                fputc(*p, stderr);
        }
    }
    fputc('\n', stderr);
}

/* Keep the first error of the run for the JSON error object (see main()). */
static void remember(const char *what, const char *msg)
{
    if (!cli_first_error[0])
        snprintf(cli_first_error, sizeof cli_first_error, "%.200s: %.800s", what, msg);
}

void cli_error(const char *code, const char *what, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    const size_t tail = 9; /* " [CL001]" and its NUL */

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg - tail, fmt, ap);
    va_end(ap);
    snprintf(msg + strlen(msg), tail, " [%.5s]", code);
    put_message(what, msg);
    remember(what, msg);
}

void cli_lib_error(const char *what, const char *msg, int rc)
{
    if (!msg || !*msg)
        msg = ibr_strerror(rc);
    put_message(what, msg);
    remember(what, msg);
}

/* The largest input the command reads whole, in bytes: $IBR_MAX_INPUT_MB
   megabytes, or 1 GiB (a topology of the whole LID space is tens of MB),
   so that /dev/zero or a wrong path cannot eat the machine's memory.
   Forwarding-table dumps, which can be ten times that, are read in pieces
   (cli_stream_file()) and hold no more than their tables. */
static uint64_t max_input(void)
{
    const char *env = getenv("IBR_MAX_INPUT_MB");
    uint64_t mb;
    if (env && cli_parse_u64(env, UINT64_MAX / (1u << 20), &mb) == 0 && mb > 0)
        return mb << 20;
    return (uint64_t)1 << 30;
}

/* Open path for reading ("-": standard input): 0 or an errno value
   (EISDIR for a directory); *size the size of a regular file, else 0. */
static int open_input(const char *path, FILE **out, uint64_t *size)
{
    struct stat st;
    FILE *f;

    *size = 0;
    if (strcmp(path, "-") == 0) {
        *out = stdin;
        return 0;
    }
    f = fopen(path, "rb");
    if (!f)
        return errno;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return EISDIR;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        *size = (uint64_t)st.st_size;
    *out = f;
    return 0;
}

static void close_input(FILE *f)
{
    if (f != stdin)
        fclose(f);
}

/* cli_read_file() without the message: 0 or an errno value (E2BIG: the
   input passed max_input()). */
static int read_file(const char *path, char **buf, size_t *len)
{
    FILE *f;
    char *data = NULL;
    size_t size = 0, cap = 0;
    int err = 0;
    uint64_t limit = max_input();

    uint64_t size_hint;

    *buf = NULL;
    *len = 0;
    if ((err = open_input(path, &f, &size_hint)) != 0)
        return err;
    if (size_hint > limit) {
        close_input(f);
        return E2BIG;
    }
    if (size_hint)
        cap = (size_t)size_hint + 1;
    if (cap == 0)
        cap = 65536;
    data = malloc(cap);
    if (!data) {
        err = ENOMEM;
        goto out;
    }
    for (;;) {
        size_t got;

        if (size + 1 >= cap) {
            size_t ncap = cap * 2;
            char *nd = realloc(data, ncap);

            if (!nd) {
                err = ENOMEM;
                goto out;
            }
            data = nd;
            cap = ncap;
        }
        got = fread(data + size, 1, cap - size - 1, f);
        /* every input is text: a NUL in the first block means a binary
           file or a device such as /dev/zero, refused before reading on */
        if (size < 65536 && memchr(data + size, 0, got)) {
            err = EILSEQ;
            goto out;
        }
        size += got;
        if (size > limit) {
            err = E2BIG;
            goto out;
        }
        if (got == 0) {
            if (ferror(f))
                err = errno ? errno : EIO;
            break;
        }
    }
    data[size] = '\0';
out:
    close_input(f);
    if (err) {
        free(data);
        return err;
    }
    *buf = data;
    *len = size;
    return 0;
}

/* cli_stream_file() without the message: 0, an errno value, or fn's
   negative return (-1 - err then means fn failed, not the reading). */
static int stream_file(const char *path, cli_piece_fn fn, void *arg, uint64_t *total)
{
    enum { PIECE = 4 << 20 };
    FILE *f;
    uint64_t size_hint;
    int err;

    *total = 0;
    if ((err = open_input(path, &f, &size_hint)) != 0)
        return err;
    char *piece = malloc(PIECE);
    if (!piece) {
        close_input(f);
        return ENOMEM;
    }
    for (;;) {
        size_t got = fread(piece, 1, PIECE, f);
        if (got == 0) {
            if (ferror(f))
                err = errno ? errno : EIO;
            break;
        }
        /* as read_file(): a NUL at the start means a binary file or a device */
        if (*total < 65536 && memchr(piece, 0, got < 65536 ? got : 65536)) {
            err = EILSEQ;
            break;
        }
        *total += got;
        if (fn(arg, piece, got) < 0) {
            err = -1;
            break;
        }
    }
    free(piece);
    close_input(f);
    return err;
}

/* The message of read_file()'s or stream_file()'s errno value. */
static int input_error(const char *path, int err)
{
    if (err == EILSEQ) {
        cli_error("CL002", path, "binary data (NUL bytes): not a text file");
        return -1;
    }
    if (err == E2BIG) {
        cli_error("CL003", path,
                  "more than %" PRIu64 " MB: not read (a topology or dump is smaller; "
                  "set IBR_MAX_INPUT_MB to read more)",
                  max_input() >> 20);
        return -1;
    }
    if (err) {
        cli_error("CL004", path, "cannot read: %s", strerror(err));
        return -1;
    }
    return 0;
}

int cli_stream_file(const char *path, cli_piece_fn fn, void *arg, uint64_t *total)
{
    int err = stream_file(path, fn, arg, total);
    return err == -1 ? -2 : input_error(path, err);
}

int cli_read_file(const char *path, char **buf, size_t *len)
{
    int err = read_file(path, buf, len);

    return input_error(path, err);
}

/* ------------------------------------------------------------------------ */
/* Temporary files removed on SIGINT, SIGTERM and SIGHUP: the paths of the
 * temporary files being written, in fixed slots (no allocation, no lock in
 * the handler, which only reads them and calls unlink(2)); a slot is in
 * use while tmp_used[i] is 1. */

#define TMP_SLOTS 32
#define TMP_PATH_MAX 4096
static char tmp_slot[TMP_SLOTS][TMP_PATH_MAX];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;

/* Remember @p path for the signal handler: its slot, or -1 when every slot
   is taken or the path is too long (the file is then not cleaned up). */
static int tmp_register(const char *path)
{
    int slot = -1;
    size_t n = strlen(path);

    if (n >= TMP_PATH_MAX)
        return -1;
    pthread_mutex_lock(&tmp_lock);
    for (int i = 0; i < TMP_SLOTS && slot < 0; i++)
        if (!tmp_used[i]) {
            memcpy(tmp_slot[i], path, n + 1);
            tmp_used[i] = 1;
            slot = i;
        }
    pthread_mutex_unlock(&tmp_lock);
    return slot;
}

static void tmp_unregister(int slot)
{
    if (slot < 0)
        return;
    pthread_mutex_lock(&tmp_lock);
    tmp_used[slot] = 0;
    pthread_mutex_unlock(&tmp_lock);
}

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Async-signal-safe: unlink(2) the registered files, then die of the
   signal (the handler was reset to the default by SA_RESETHAND). */
static void cleanup_handler(int sig)
{
    int saved = errno;

    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_used[i])
            unlink(tmp_slot[i]);
    errno = saved;
    raise(sig);
}

void cli_install_cleanup(void)
{
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
        struct sigaction sa, old;

        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = cleanup_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

/* Block or restore the cleanup signals around creating and registering a
   temporary file, so that none is created without being registered. */
static void block_cleanup_signals(sigset_t *old)
{
    sigset_t set;

    sigemptyset(&set);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++)
        sigaddset(&set, cleanup_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* The file a write to @p path lands on: @p path itself, or the end of its
   chain of symbolic links (a relative link is read from the link's
   directory); it may not exist yet. malloc'd; NULL with *err set. */
static char *resolve_links(const char *path, int *err)
{
    char *cur = strdup(path);

    for (int hops = 0; cur; hops++) {
        struct stat st;

        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        if (hops == 40) {
            free(cur);
            *err = ELOOP;
            return NULL;
        }
        size_t cap = (st.st_size > 0 ? (size_t)st.st_size : 255) + 1;
        char *link = malloc(cap);
        ssize_t n = link ? readlink(cur, link, cap) : -1;
        if (n < 0 || (size_t)n >= cap) {
            *err = !link ? ENOMEM : n < 0 ? errno : EAGAIN; /* changed under us */
            free(link);
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        if (link[0] == '/' || !slash) {
            free(cur);
            cur = link;
            continue;
        }
        size_t dl = (size_t)(slash - cur) + 1, ln = (size_t)n;
        char *next = malloc(dl + ln + 1);
        if (next) {
            memcpy(next, cur, dl);
            memcpy(next + dl, link, ln + 1);
        } else {
            *err = ENOMEM;
        }
        free(link);
        free(cur);
        cur = next;
    }
    if (!*err)
        *err = ENOMEM;
    return NULL;
}

int cli_out_open(cli_out *o, const char *path)
{
    struct stat st;
    int err = 0, exists;
    sigset_t old;

    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->slot = -1;
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->fd = STDOUT_FILENO;
        return cli_flush_stdout();
    }
    if (stat(path, &st) == 0) {
        /* our own standard output or error (/dev/stdout, /proc/self/fd/2:
           links whose text is no path, "pipe:[1234]"), written as "-" */
        struct stat so;
        if (fstat(STDOUT_FILENO, &so) == 0 && so.st_dev == st.st_dev && so.st_ino == st.st_ino) {
            o->fd = STDOUT_FILENO;
            return cli_flush_stdout();
        }
        if (fstat(STDERR_FILENO, &so) == 0 && so.st_dev == st.st_dev && so.st_ino == st.st_ino) {
            o->fd = STDERR_FILENO;
            return fflush(stderr) == 0 ? 0 : (errno ? errno : EIO);
        }
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        if (!S_ISREG(st.st_mode)) {
            /* a device, a FIFO (through any links): written through,
               never replaced */
            o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
            if (o->fd < 0)
                return errno;
            if (!(o->target = strdup(path))) {
                close(o->fd);
                o->fd = -1;
                return ENOMEM;
            }
            o->through = 1;
            return 0;
        }
    }
    /* a symbolic link stays: what it points to is written */
    if (!(o->target = resolve_links(path, &err)))
        return err;
    exists = stat(o->target, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* changed since the look above */
        err = S_ISDIR(st.st_mode) ? EISDIR : EAGAIN;
        goto fail;
    }
    /* a regular file, or none: a temporary file beside it, renamed over it
       when complete, so that a failed write (disk full) or an interruption
       leaves no partial file behind and a file that existed stays as it
       was */
    size_t plen = strlen(o->target);
    if (!(o->tmp = malloc(plen + 16))) {
        err = ENOMEM;
        goto fail;
    }
    snprintf(o->tmp, plen + 16, "%s.tmp-XXXXXX", o->target);
    block_cleanup_signals(&old);
    o->fd = mkstemp(o->tmp);
    err = o->fd < 0 ? errno : 0;
    if (o->fd >= 0)
        o->slot = tmp_register(o->tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        free(o->tmp);
        o->tmp = NULL;
        goto fail;
    }
    /* mkstemp() creates 0600: give the file the mode of the one it
       replaces, or the one fopen() would */
    if (exists) {
        (void)fchmod(o->fd, st.st_mode & 07777);
    } else {
        mode_t um = umask(0);
        umask(um);
        (void)fchmod(o->fd, 0666 & ~um);
    }
    return 0;
fail:
    free(o->target);
    o->target = NULL;
    return err;
}

int cli_out_write(cli_out *o, const char *data, size_t len)
{
    while (len && !o->err) {
        ssize_t n = write(o->fd, data, len > ((size_t)1 << 30) ? (size_t)1 << 30 : len);
        if (n < 0) {
            if (errno != EINTR)
                o->err = errno ? errno : EIO;
            continue;
        }
        if (n == 0)
            o->err = EIO;
        data += n;
        len -= (size_t)n;
    }
    return o->err;
}

int cli_out_close(cli_out *o, int keep)
{
    int err = o->err;

    if (!o->target) /* stdout */
        return err;
    if (o->fd >= 0 && close(o->fd) != 0 && !err)
        err = errno ? errno : EIO;
    if (o->tmp) {
        if (keep && !err && rename(o->tmp, o->target) != 0)
            err = errno;
        if (err || !keep)
            unlink(o->tmp);
        tmp_unregister(o->slot);
        free(o->tmp);
    }
    free(o->target);
    o->tmp = o->target = NULL;
    o->slot = o->fd = -1;
    return err;
}

int cli_write_file(const char *path, const char *data, size_t len)
{
    cli_out o;
    int err = cli_out_open(&o, path);

    if (err)
        return err;
    cli_out_write(&o, data, len);
    return cli_out_close(&o, 1);
}

int cli_stdout_errno;

int cli_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) == 0)
        return 0;
    if (!cli_stdout_errno)
        cli_stdout_errno = errno ? errno : EIO;
    return cli_stdout_errno;
}

int cli_mkdir_p(const char *path)
{
    char *p, *s;
    struct stat st;
    int err = 0;

    if (!*path)
        return ENOENT;
    s = strdup(path);
    if (!s)
        return ENOMEM;
    for (p = s + 1;; p++) {
        char c = *p;

        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        if (mkdir(s, 0777) != 0 && errno != EEXIST) {
            err = errno;
            break;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    if (!err && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
        err = ENOTDIR;
    free(s);
    return err;
}

int cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || end == s || *end != '\0' || v > max)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int cli_opt_uint(const char *opt, const char *val, uint64_t max, uint64_t *out)
{
    if (cli_parse_u64(val, max, out) < 0) {
        cli_error("CL005", opt, "'%s' is not a number in 0..%" PRIu64, val, max);
        return -1;
    }
    return 0;
}

double cli_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* Context and logging */

static void log_cb(void *user, int level, const char *msg)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};

    (void)user;
    if (level < 0 || level > IBR_LOG_DEBUG)
        level = IBR_LOG_DEBUG;
    put_message(names[level], msg);
}

int cli_make_context(ibr_context **out, int level)
{
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    int rc;

    if (level != CLI_LOG_NONE) {
        cfg.log = log_cb;
        cfg.log_level = level;
    }
    rc = ibr_context_create(out, &cfg);
    if (rc < 0) {
        cli_lib_error("context", NULL, rc);
        return -1;
    }
    return 0;
}

int cli_log_level(int verbose)
{
    if (verbose >= 2)
        return IBR_LOG_DEBUG;
    if (verbose == 1)
        return IBR_LOG_INFO;
    return IBR_LOG_WARN;
}

/* ------------------------------------------------------------------------ */
/* GUID lists */

int cli_load_guid_list(ibr_guid_list **out, ibr_context *ctx, const char *path,
                       ibr_guid_list_kind kind)
{
    char *buf;
    size_t len;
    int rc;

    *out = NULL;
    if (cli_read_file(path, &buf, &len) < 0)
        return -1;
    rc = ibr_guid_list_parse(out, ctx, kind, buf, len);
    free(buf);
    if (rc < 0) {
        cli_lib_error(path, *out ? ibr_guid_list_last_error(*out) : NULL, rc);
        ibr_guid_list_destroy(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* JSON */

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
    }
    fputc('"', f);
}

void cli_json_double(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

int cli_load_groups(ibr_mcast_groups **out, const ibr_topo *t, const char *path)
{
    return cli_load_groups_as(out, t, path, 0);
}

int cli_load_groups_as(ibr_mcast_groups **out, const ibr_topo *t, const char *path,
                       int sa_dump)
{
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    if (cli_read_file(path, &buf, &len) < 0)
        return -1;
    ibr_mcast_groups *g = NULL;
    int rc = sa_dump ? ibr_mcast_groups_parse_sa_dump(&g, t, buf, len)
                     : ibr_mcast_groups_parse(&g, t, buf, len);
    free(buf);
    if (rc < 0) {
        cli_lib_error(path, g ? ibr_mcast_groups_last_error(g) : NULL, rc);
        ibr_mcast_groups_destroy(g);
        return -1;
    }
    *out = g;
    return 0;
}

int cli_opt_qos_levels(const char *arg, unsigned *out)
{
    uint64_t v;
    if (cli_opt_uint("--qos-levels", arg, 8, &v) < 0)
        return -1;
    if (v < 1) {
        cli_error("CL006", "--qos-levels", "'%s': give 1 to 8 levels", arg);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

int cli_load_qos(ibr_qos_config **out, ibr_context *ctx, const char *path, unsigned levels)
{
    char *buf = NULL;
    size_t len = 0;
    *out = NULL;
    ibr_qos_config *q = NULL;
    int rc = ibr_qos_config_create(&q, ctx);
    if (rc < 0) {
        cli_lib_error("qos", NULL, rc);
        return -1;
    }
    if (path) {
        if (cli_read_file(path, &buf, &len) < 0) {
            ibr_qos_config_destroy(q);
            return -1;
        }
        rc = ibr_qos_config_parse(q, buf, len);
        free(buf);
        if (rc < 0) {
            cli_lib_error(path, ibr_qos_config_last_error(q), rc);
            ibr_qos_config_destroy(q);
            return -1;
        }
    }
    if (levels) {
        char v[16];
        snprintf(v, sizeof v, "%u", levels);
        rc = ibr_qos_config_set(q, "ibr_qos_levels", v);
        if (rc < 0) {
            cli_lib_error("--qos-levels", ibr_qos_config_last_error(q), rc);
            ibr_qos_config_destroy(q);
            return -1;
        }
    }
    *out = q;
    return 0;
}

const char *cli_mcast_trees(const ibr_result *r, int key)
{
    switch (ibr_result_mcast_trees(r)) {
    case IBR_MCAST_TREES_OPENSM: return key ? "opensm" : "OpenSM's trees";
    case IBR_MCAST_TREES_BALANCED: return key ? "balanced" : "balanced trees";
    case IBR_MCAST_TREES_ENGINE: return key ? "engine" : "the engine's own trees";
    case IBR_MCAST_TREES_SPANNING: return key ? "spanning" : "one spanning tree on SL/VL 0";
    default: return key ? "none" : "no trees";
    }
}

void cli_mcast_links(const ibr_result *r, cli_mcast_link_fn fn, void *arg)
{
    const ibr_topo *t = ibr_result_topo(r);
    uint32_t load[256];
    size_t n;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        if (ibr_result_mcast_port_load(load, 256, &n, r, s) < 0)
            continue;
        uint32_t node = ibr_topo_switch_node(t, s);
        for (unsigned p = 1; p < n; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
                pi.state != IBR_LINK_ACTIVE || ibr_topo_node_switch(t, pi.remote_node) == IBR_NONE)
                continue;
            fn(arg, s, p, load[p]);
        }
    }
}

/* The busiest link so far (cli_mcast_busiest()). */
typedef struct mcast_best {
    uint32_t trees, sw;
    unsigned port;
} mcast_best;

static void busiest_link(void *arg, uint32_t sw, unsigned port, uint32_t trees)
{
    mcast_best *b = arg;
    if (trees > b->trees) {
        b->trees = trees;
        b->sw = sw;
        b->port = port;
    }
}

uint32_t cli_mcast_busiest(const ibr_result *r, uint32_t *sw, unsigned *port)
{
    mcast_best b = {0, IBR_NONE, 0};
    cli_mcast_links(r, busiest_link, &b);
    if (sw)
        *sw = b.sw;
    if (port && b.trees)
        *port = b.port;
    return b.trees;
}
