/*
 * The torus-2QoS.conf language, parsed from memory (the library reads no
 * file). One keyword per line, tokens separated by blanks, '#' starts a
 * comment line, tokens after the ones a keyword takes are ignored:
 *
 *   torus X Y Z | mesh X Y Z   radices, each optionally suffixed t/T
 *                              (torus) or m/M (mesh); 1 removes the
 *                              dimension, 2 is always a mesh; only the
 *                              first such line counts
 *   xp_link G0 G1 ... zm_link  a seed link from switch G0 to switch G1 in
 *                              the +d or -d direction
 *   x_dateline P ...           the seed origin sits at coordinate -P mod
 *                              radix (|P| < radix; needs the radix first)
 *   next_seed                  starts a backup seed
 *   portgroup_max_ports N      most ports in one port group (default 16)
 *   port_order P1 P2 ...       order of a switch's local ports in routing
 *   max_changes N              kept for compatibility (change reports)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/messages.h"
#include "engines/torus2qos.h"
#include "formats/lex.h"

#define TOK_MAX 64
#define MAX_TOKS 260

typedef struct line_toks {
    unsigned n;
    char tok[MAX_TOKS][TOK_MAX];
} line_toks;

/* Split a line into tokens (the lexer's blank-separated words); tokens longer than TOK_MAX - 1 are truncated
   (they are then rejected as numbers or keywords). */
static void split(line_toks *lt, ibr__cur c)
{
    lt->n = 0;
    for (ibr__span w = ibr__cur_token(&c); w.n; w = ibr__cur_token(&c)) {
        if (lt->n < MAX_TOKS) {
            size_t l = w.n < TOK_MAX ? w.n : TOK_MAX - 1;
            memcpy(lt->tok[lt->n], w.p, l);
            lt->tok[lt->n][l] = 0;
            lt->n++;
        }
    }
}

static int parse_u64(uint64_t *out, const char *s)
{
    if (!*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int parse_int(long *out, const char *s)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int new_seed(t2q_config *c, ibr_context *ctx, size_t *cap, unsigned line)
{
    if (ibr__grow(ctx, (void **)&c->seeds, cap, c->n_seeds + 1, sizeof *c->seeds) < 0)
        return IBR_ENOMEM;
    memset(&c->seeds[c->n_seeds], 0, sizeof *c->seeds);
    c->seeds[c->n_seeds].line = line;
    c->n_seeds++;
    return 0;
}

void t2q_config_free(t2q_config *c, ibr_context *ctx)
{
    ibr__free(ctx, c->seeds);
    c->seeds = NULL;
    c->n_seeds = 0;
}

static const char *const dim_name = "xyz";

/* The radices of a "torus X Y Z" or "mesh X Y Z" line (lt->tok[1..3]; a t
   or m suffix overrides the keyword for one dimension). Returns 0 or
   IBR_EINVAL with err set. */
static int parse_radices(t2q_config *c, line_toks *lt, unsigned line, char *err)
{
    const char *kw = lt->tok[0];
    for (unsigned d = 0; d < T2Q_DIMS; d++) {
        char *tok = lt->tok[1 + d];
        size_t l = strlen(tok);
        int mesh = kw[0] == 'm';
        if (l > 1 && (tok[l - 1] == 't' || tok[l - 1] == 'T')) {
            mesh = 0;
            tok[--l] = 0;
        } else if (l > 1 && (tok[l - 1] == 'm' || tok[l - 1] == 'M')) {
            mesh = 1;
            tok[--l] = 0;
        }
        long v;
        if (parse_int(&v, tok) < 0 || v < 1 || v > 255)
            return ibr__err(err, IBR_EINVAL,
                            IBR__MSG("TQ002",
                                     "torus-2QoS.conf line %u: bad radix '%s' (expected 1..255 "
                                     "with an optional t or m suffix)"),
                            line, lt->tok[1 + d]);
        c->radix[d] = (unsigned)v;
        c->mesh[d] = (uint8_t)(mesh || v == 2);
    }
    return 0;
}

int t2q_config_parse(t2q_config *c, ibr_context *ctx, const char *text, size_t len, char *err)
{
    memset(c, 0, sizeof *c);
    c->pg_max = 16;
    c->max_changes = 32;
    for (unsigned p = 0; p < 256; p++)
        c->port_rank[p] = (uint8_t)p;
    line_toks *lt = ibr__malloc(ctx, sizeof *lt);
    size_t cap = 0;
    int rc = 0, have_dims = 0;
    if (!lt || new_seed(c, ctx, &cap, 1) < 0) {
        ibr__free(ctx, lt);
        t2q_config_free(c, ctx);
        return IBR_ENOMEM;
    }
    ibr__lex lx;
    ibr__lex_init(&lx, text, len);
    while (rc == 0 && ibr__lex_line(&lx)) {
        unsigned line = lx.line;
        split(lt, lx.c);
        if (lt->n == 0 || lt->tok[0][0] == '#')
            continue;
        const char *kw = lt->tok[0];
        t2q_seed *sd = &c->seeds[c->n_seeds - 1];
        if (!strcmp(kw, "torus") || !strcmp(kw, "mesh")) {
            if (lt->n < 4) {
                rc =
                    ibr__err(err, IBR_EINVAL,
                             IBR__MSG("TQ001", "torus-2QoS.conf line %u: '%s' needs three radices"),
                             line, kw);
                break;
            }
            if (have_dims)
                continue;
            if ((rc = parse_radices(c, lt, line, err)) < 0)
                break;
            have_dims = 1;
        } else if (strlen(kw) == 7 && !strcmp(kw + 2, "_link") && strchr(dim_name, kw[0]) &&
                   (kw[1] == 'p' || kw[1] == 'm')) {
            unsigned d = (unsigned)(strchr(dim_name, kw[0]) - dim_name), dir = kw[1] == 'p';
            uint64_t g0, g1;
            if (lt->n < 3 || parse_u64(&g0, lt->tok[1]) < 0 || parse_u64(&g1, lt->tok[2]) < 0 ||
                !g0 || !g1) {
                rc = ibr__err(err, IBR_EINVAL,
                              IBR__MSG("TQ003",
                                       "torus-2QoS.conf line %u: '%s' needs two switch GUIDs "
                                       "(non-zero, 0x for hex)"),
                              line, kw);
                break;
            }
            sd->from[d][dir] = g0;
            sd->to[d][dir] = g1;
        } else if (strlen(kw) == 10 && !strcmp(kw + 1, "_dateline") && strchr(dim_name, kw[0])) {
            unsigned d = (unsigned)(strchr(dim_name, kw[0]) - dim_name);
            long v;
            if (lt->n < 2 || parse_int(&v, lt->tok[1]) < 0) {
                rc = ibr__err(err, IBR_EINVAL,
                              IBR__MSG("TQ004", "torus-2QoS.conf line %u: '%s' needs an integer"),
                              line, kw);
                break;
            }
            if (!have_dims || v <= -(long)c->radix[d] || v >= (long)c->radix[d]) {
                rc = have_dims
                         ? ibr__err(err, IBR_EINVAL,
                                    IBR__MSG("TQ005",
                                             "torus-2QoS.conf line %u: %s %ld out of range (the "
                                             "%c radix is %u: |value| must be below it)"),
                                    line, kw, v, kw[0], c->radix[d])
                         : ibr__err(err, IBR_EINVAL,
                                    IBR__MSG("TQ006",
                                             "torus-2QoS.conf line %u: %s before the torus or "
                                             "mesh line"),
                                    line, kw);
                break;
            }
            sd->dateline[d] = (int)v;
        } else if (!strcmp(kw, "next_seed")) {
            if (new_seed(c, ctx, &cap, line) < 0)
                rc = IBR_ENOMEM;
        } else if (!strcmp(kw, "portgroup_max_ports") || !strcmp(kw, "max_changes")) {
            long v;
            if (lt->n < 2 || parse_int(&v, lt->tok[1]) < 0 || v < 1 || v > 65535) {
                rc = ibr__err(
                    err, IBR_EINVAL,
                    IBR__MSG("TQ007", "torus-2QoS.conf line %u: '%s' needs a positive integer"),
                    line, kw);
                break;
            }
            if (kw[0] == 'p')
                c->pg_max = (unsigned)(v > 255 ? 255 : v);
            else
                c->max_changes = (unsigned)v;
        } else if (!strcmp(kw, "port_order")) {
            uint8_t seen[256] = {0}, order[256];
            unsigned n = 0;
            for (unsigned i = 1; i < lt->n; i++) {
                long v;
                if (parse_int(&v, lt->tok[i]) < 0 || v < 0 || v > 255) {
                    rc = ibr__err(
                        err, IBR_EINVAL,
                        IBR__MSG("TQ008", "torus-2QoS.conf line %u: port_order entry '%s' is not a "
                                          "port number (0..255)"),
                        line, lt->tok[i]);
                    break;
                }
                if (!seen[v]) {
                    seen[v] = 1;
                    order[n++] = (uint8_t)v;
                }
            }
            if (rc)
                break;
            c->n_port_order = n;
            for (unsigned p = 0; p < 256; p++)
                if (!seen[p])
                    order[n++] = (uint8_t)p;
            for (unsigned r = 0; r < 256; r++)
                c->port_rank[order[r]] = (uint8_t)r;
        } else {
            rc = ibr__err(err, IBR_EINVAL,
                          IBR__MSG("TQ009", "torus-2QoS.conf line %u: unknown keyword '%s'"), line,
                          kw);
        }
    }
    ibr__free(ctx, lt);
    if (rc == 0 && !have_dims)
        rc = ibr__err(err, IBR_EINVAL,
                      IBR__MSG("TQ010", "torus-2QoS.conf: no 'torus X Y Z' or 'mesh X Y Z' line"));
    if (rc < 0)
        t2q_config_free(c, ctx);
    return rc;
}
