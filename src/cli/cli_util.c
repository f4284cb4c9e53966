/*
 * cli_util.c - file, number, GUID-list and JSON helpers of the `ibr` tool.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void cli_error(const char *what, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "ibr: %s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_lib_error(const char *what, const char *msg, int rc)
{
    if (msg && *msg)
        fprintf(stderr, "ibr: %s: %s\n", what, msg);
    else
        fprintf(stderr, "ibr: %s: %s\n", what, ibr_strerror(rc));
}

int cli_read_file(const char *path, char **buf, size_t *len)
{
    FILE *f;
    char *data = NULL;
    size_t size = 0, cap = 0;
    int err = 0;

    *buf = NULL;
    *len = 0;
    if (strcmp(path, "-") == 0) {
        f = stdin;
    } else {
        struct stat st;

        f = fopen(path, "rb");
        if (!f)
            return errno;
        if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
            fclose(f);
            return EISDIR;
        }
        if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            cap = (size_t)st.st_size + 1;
    }
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
        size += got;
        if (got == 0) {
            if (ferror(f))
                err = errno ? errno : EIO;
            break;
        }
    }
    data[size] = '\0';
out:
    if (f != stdin)
        fclose(f);
    if (err) {
        free(data);
        return err;
    }
    *buf = data;
    *len = size;
    return 0;
}

int cli_write_file(const char *path, const char *data, size_t len)
{
    FILE *f;
    int err = 0;

    if (strcmp(path, "-") == 0) {
        if (len && fwrite(data, 1, len, stdout) != len)
            return errno ? errno : EIO;
        return fflush(stdout) == 0 ? 0 : (errno ? errno : EIO);
    }
    f = fopen(path, "wb");
    if (!f)
        return errno;
    if (len && fwrite(data, 1, len, f) != len)
        err = errno ? errno : EIO;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    return err;
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

double cli_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* GUID lists */

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    void *na;
    size_t ncap;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 64;
    na = realloc(*arr, ncap * elem);
    if (!na)
        return -1;
    *arr = na;
    *cap = ncap;
    return 0;
}

/* Number at @p p with C base detection; *end past it. 0 ok, -1 bad. */
static int scan_number(const char *p, const char *lim, uint64_t *v, const char **end)
{
    char tmp[72];
    size_t k = 0;
    char *e;
    unsigned long long x;

    /* copy the token (the buffer is not NUL-terminated per line) */
    while (p + k < lim && k + 1 < sizeof(tmp) && isalnum((unsigned char)p[k])) {
        tmp[k] = p[k];
        k++;
    }
    tmp[k] = '\0';
    if (k == 0 || !isdigit((unsigned char)tmp[0]))
        return -1;
    errno = 0;
    x = strtoull(tmp, &e, 0);
    if (errno || e == tmp)
        return -1;
    *v = (uint64_t)x;
    *end = p + (e - tmp);
    return 0;
}

/* True when @p p ends a token: end of line, white space or '#'. */
static int token_end(const char *p, const char *lim)
{
    return p >= lim || *p == ' ' || *p == '\t' || *p == '\r' || *p == '#' ||
           *p == '\v' || *p == '\f';
}

static const char *skip_ws(const char *p, const char *lim)
{
    while (p < lim && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f'))
        p++;
    return p;
}

static int rest_is_empty(const char *p, const char *lim)
{
    p = skip_ws(p, lim);
    return p >= lim || *p == '#';
}

int cli_parse_guid_list(cli_guid_list *out, const char *buf, size_t len,
                        cli_guid_kind kind, char *err, size_t errlen)
{
    const char *p = buf, *end = buf + len;
    unsigned int line = 0;
    size_t cap = 0;
    cli_guid_list l = {0, NULL, NULL, NULL};

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q, *after;
        uint64_t guid, val = 0;

        if (!eol)
            eol = end;
        line++;
        q = skip_ws(p, eol);
        p = eol + 1;
        if (q >= eol || *q == '#')
            continue;
        if (*q == '-' || *q == '+') {
            snprintf(err, errlen, "line %u: signed number where a GUID was expected", line);
            goto fail;
        }
        if (scan_number(q, eol, &guid, &after) < 0 || !token_end(after, eol)) {
            int n = 0;

            while (q + n < eol && !isspace((unsigned char)q[n]) && n < 40)
                n++;
            snprintf(err, errlen, "line %u: bad GUID '%.*s' (write GUIDs as 0x<hex>)",
                     line, n, q);
            goto fail;
        }
        if (kind == CLI_GUIDS_PORT || kind == CLI_GUIDS_ID) {
            const char *v = skip_ws(after, eol), *vend;

            if (v >= eol || *v == '#') {
                if (kind == CLI_GUIDS_PORT) {
                    snprintf(err, errlen, "line %u: port number missing after GUID 0x%016" PRIx64,
                             line, guid);
                    goto fail;
                }
                val = 0; /* empty id */
            } else if (scan_number(v, eol, &val, &vend) < 0 || !rest_is_empty(vend, eol)) {
                int n = 0;

                while (v + n < eol && v[n] != '\r' && n < 40)
                    n++;
                snprintf(err, errlen, "line %u: bad %s '%.*s'", line,
                         kind == CLI_GUIDS_PORT ? "port number" : "id", n, v);
                goto fail;
            } else if (kind == CLI_GUIDS_PORT && (val < 1 || val > 254)) {
                snprintf(err, errlen, "line %u: port %" PRIu64 " out of range 1..254", line, val);
                goto fail;
            }
        }
        switch (kind) {
        case CLI_GUIDS_PLAIN:
            if (grow((void **)&l.guids, &cap, l.n, sizeof(*l.guids)) < 0)
                goto nomem;
            l.guids[l.n++] = guid;
            break;
        case CLI_GUIDS_PORT:
            if (grow((void **)&l.ports, &cap, l.n, sizeof(*l.ports)) < 0)
                goto nomem;
            l.ports[l.n].guid = guid;
            l.ports[l.n].port = (unsigned int)val;
            l.n++;
            break;
        case CLI_GUIDS_ID:
            if (grow((void **)&l.ids, &cap, l.n, sizeof(*l.ids)) < 0)
                goto nomem;
            l.ids[l.n].guid = guid;
            l.ids[l.n].id = val;
            l.n++;
            break;
        }
    }
    *out = l;
    return 0;
nomem:
    snprintf(err, errlen, "line %u: out of memory", line);
fail:
    cli_guid_list_free(&l);
    return -1;
}

int cli_load_guid_list(cli_guid_list *out, const char *path, cli_guid_kind kind)
{
    char *buf;
    size_t len;
    char err[256];
    int rc = cli_read_file(path, &buf, &len);

    if (rc) {
        cli_error(path, "%s", strerror(rc));
        return -1;
    }
    if (cli_parse_guid_list(out, buf, len, kind, err, sizeof(err)) < 0) {
        cli_error(path, "%s", err);
        free(buf);
        return -1;
    }
    free(buf);
    return 0;
}

void cli_guid_list_free(cli_guid_list *l)
{
    if (!l)
        return;
    free(l->guids);
    free(l->ports);
    free(l->ids);
    l->guids = NULL;
    l->ports = NULL;
    l->ids = NULL;
    l->n = 0;
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
