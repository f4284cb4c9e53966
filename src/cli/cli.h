/*
 * cli.h - helpers of the `ibr` command-line tool (files, numbers, GUID
 * lists, JSON). The CLI links only the public ibroute API; these helpers are
 * the only code of the project besides the examples that touches files.
 */
#ifndef IBR_CLI_H
#define IBR_CLI_H

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

/* Print "ibr: <what>: <message>" on stderr. */
void cli_error(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print "ibr: <what>: <lib message>" where the message is @p msg when it is
 * non-empty, else ibr_strerror(rc). */
void cli_lib_error(const char *what, const char *msg, int rc);

/* Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer.
 * Returns 0 or an errno value (message printed by the caller). */
int cli_read_file(const char *path, char **buf, size_t *len);

/* Write @p len bytes to @p path ("-" = stdout). Returns 0 or an errno value. */
int cli_write_file(const char *path, const char *data, size_t len);

/* Create a directory and its parents (mode 0777 & umask). 0 or errno. */
int cli_mkdir_p(const char *path);

/* Parse an unsigned number with C base detection (0x hex, 0 octal, else
 * decimal), the whole string, no sign, at most @p max. 0 or -1. */
int cli_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Monotonic clock in seconds. */
double cli_now(void);

/* Read a GUID-list file (OpenSM's root/cn/io/guid_routing_order, ids and
 * ignore-guids files) and parse it with ibr_guid_list_parse(); prints
 * "ibr: FILE: line N: ..." on error. Returns 0 or -1. */
int cli_load_guid_list(ibr_guid_list **out, ibr_context *ctx, const char *path,
                       ibr_guid_list_kind kind);

/* Write @p s as a JSON string literal (with quotes). */
void cli_json_string(FILE *f, const char *s);

/* Write a double as JSON (finite; NaN/inf become null). */
void cli_json_double(FILE *f, double v);

#endif
