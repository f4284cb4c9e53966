/*
 * cli_families.c - the pattern families of an analysis, read back from
 * ibr_analysis_write_json(): every top-level member whose value is an
 * object with an "ebb" number. Reading them from the JSON rather than from
 * ::ibr_analysis_summary lets `ibr sweep` and `ibr report` follow the
 * families the library reports, including ones added after this file.
 * The workloads (the "workloads" array, each entry with a "name" and an
 * "ebb") count as families too, named "workload NAME". Also the parsers of
 * the workload options' values.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* p at the opening quote; returns the character after the closing one. */
static const char *skip_string(const char *p)
{
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1])
            p++;
    return *p ? p + 1 : p;
}

/* Any JSON value; returns the character after it. */
static const char *skip_value(const char *p)
{
    p = skip_ws(p);
    if (*p == '"')
        return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') {
                p = skip_string(p) - 1;
                continue;
            }
            if (*p == '{' || *p == '[')
                depth++;
            else if ((*p == '}' || *p == ']') && --depth == 0)
                return p + 1;
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']')
        p++;
    return p;
}

/* The "ebb" member of the object at p ('{'): 1 with *out set, or 0; its
   "name" string (unescaped names only) into name[CLI_FAMILY_NAME] where
   name is not NULL ("" when none). */
static int object_ebb(double *out, char *name, const char *p)
{
    int found = 0;
    if (name)
        name[0] = '\0';
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *key = p + 1;
        p = skip_ws(skip_string(p));
        if (*p != ':')
            return 0;
        p = skip_ws(p + 1);
        if (strncmp(key, "ebb\"", 4) == 0 && (*p == '-' || (*p >= '0' && *p <= '9'))) {
            *out = strtod(p, NULL);
            found = 1;
            if (!name)
                return 1;
        }
        if (name && strncmp(key, "name\"", 5) == 0 && *p == '"') {
            const char *e = skip_string(p);
            size_t n = (size_t)(e - p) - 2;
            if (e[-1] == '"' && n < CLI_FAMILY_NAME && !memchr(p + 1, '\\', n)) {
                memcpy(name, p + 1, n);
                name[n] = '\0';
            }
        }
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return found;
}

/* The workloads of the array at p ('[') appended as "workload NAME". */
static size_t workload_families(char (*names)[CLI_FAMILY_NAME], double *ebb, size_t n, size_t cap,
                                const char *p)
{
    p = skip_ws(p + 1);
    while (*p == '{') {
        char name[CLI_FAMILY_NAME];
        double v;
        if (object_ebb(&v, name, p) && name[0] && n < cap &&
            strlen(name) + 9 < CLI_FAMILY_NAME) {
            snprintf(names[n], CLI_FAMILY_NAME, "workload %s", name);
            ebb[n++] = v;
        }
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return n;
}

size_t cli_pattern_families(char (*names)[CLI_FAMILY_NAME], double *ebb, size_t cap,
                            const char *json)
{
    size_t n = 0;
    const char *p = skip_ws(json);
    if (*p != '{')
        return 0;
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *key = p + 1;
        const char *end = skip_string(p);
        size_t klen = (size_t)(end - key) - 1;
        p = skip_ws(end);
        if (*p != ':')
            break;
        p = skip_ws(p + 1);
        double v;
        if (*p == '{' && object_ebb(&v, NULL, p) && n < cap && klen < CLI_FAMILY_NAME) {
            memcpy(names[n], key, klen);
            names[n][klen] = '\0';
            ebb[n++] = v;
        } else if (*p == '[' && klen == 9 && strncmp(key, "workloads", 9) == 0)
            n = workload_families(names, ebb, n, cap, p);
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return n;
}

int cli_parse_workloads(const char *s, unsigned int *out)
{
    static const cli_name_bit names[] = {
        {"all", IBR_WORKLOAD_ALL},         {"ring", IBR_WORKLOAD_RING},
        {"rd", IBR_WORKLOAD_RD},           {"rail-ring", IBR_WORKLOAD_RAIL_RING},
        {"rail-rd", IBR_WORKLOAD_RAIL_RD}, {"a2a", IBR_WORKLOAD_ALL_TO_ALL},
        {"moe", IBR_WORKLOAD_MOE},         {"grid", IBR_WORKLOAD_GRID},
        {"shift", IBR_WORKLOAD_SHIFT},     {"perm", IBR_WORKLOAD_PERMUTATION},
    };
    const char *bad;
    size_t n;
    int rc = cli_parse_name_bits(s, names, sizeof(names) / sizeof(names[0]), out, &bad, &n);
    if (rc == -1)
        cli_error("CL007", "--workloads",
                  "unknown workload '%.*s' (all, ring, rd, rail-ring, rail-rd, a2a, moe, "
                  "grid, shift, perm)",
                  (int)n, bad);
    else if (rc == -2)
        cli_error("CL008", "--workloads", "no workload given");
    return rc < 0 ? -1 : 0;
}

int cli_parse_dims(const char *opt, const char *s, char sep, unsigned *v, int max)
{
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long x = strtoul(s, &end, 10);
        if (end == s || errno || x < 1 || x > (1ul << 20) || n == max ||
            (*end && *end != sep)) {
            cli_error("CL009", opt, "bad value '%s'", s);
            return -1;
        }
        v[n++] = (unsigned)x;
        if (!*end)
            return n;
        s = end + 1;
    }
}
