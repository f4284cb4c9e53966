/*
 * cli_families.c - the pattern families of an analysis, read back from
 * ibr_analysis_write_json(): every top-level member whose value is an
 * object with an "ebb" number. Reading them from the JSON rather than from
 * ::ibr_analysis_summary lets `ibr sweep` and `ibr report` follow the
 * families the library reports, including ones added after this file.
 */
#include "cli.h"

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

/* The "ebb" member of the object at p ('{'): 1 with *out set, or 0. */
static int object_ebb(double *out, const char *p)
{
    p = skip_ws(p + 1);
    while (*p == '"') {
        const char *key = p + 1;
        p = skip_ws(skip_string(p));
        if (*p != ':')
            return 0;
        p = skip_ws(p + 1);
        if (strncmp(key, "ebb\"", 4) == 0 && (*p == '-' || (*p >= '0' && *p <= '9'))) {
            *out = strtod(p, NULL);
            return 1;
        }
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return 0;
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
        if (*p == '{' && object_ebb(&v, p) && n < cap && klen < CLI_FAMILY_NAME) {
            memcpy(names[n], key, klen);
            names[n][klen] = '\0';
            ebb[n++] = v;
        }
        p = skip_ws(skip_value(p));
        if (*p == ',')
            p = skip_ws(p + 1);
    }
    return n;
}
