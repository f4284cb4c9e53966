/*
 * cli_load.c - what the `ibr` subcommands share to get their inputs: the
 * topology (a file or gen:SPEC) with its LIDs (--lmc, --guid2lid), and a
 * routing read from an LFT dump.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Topology */

const char *cli_gen_spec(const char *src)
{
    return strncmp(src, "gen:", 4) == 0 ? src + 4 : NULL;
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
        int err = cli_read_file(src, &buf, &len);

        if (err) {
            cli_error(src, "%s", strerror(err));
            ibr_fabric_destroy(f);
            return -1;
        }
        rc = ibr_fabric_parse_ibnetdiscover(f, buf, len);
        free(buf);
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
        ibr_node_info ni;
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
        ibr_node_info ni;
        ibr_port_info pi;
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
        int err = cli_read_file(a->guid2lid, &buf, &len);

        if (err) {
            cli_error(a->guid2lid, "%s", strerror(err));
            return -1;
        }
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
    rc = cli_apply_lids(f, a) < 0 || cli_freeze(out, f, src) < 0 ? -1 : 0;
    ibr_fabric_destroy(f);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Routing */

int cli_load_lfts(ibr_result **out, const ibr_topo *t, const char *path)
{
    char *buf;
    size_t len;
    int rc = cli_read_file(path, &buf, &len);

    *out = NULL;
    if (rc) {
        cli_error(path, "%s", strerror(rc));
        return -1;
    }
    rc = ibr_result_parse_lfts(out, t, buf, len);
    free(buf);
    if (rc < 0) {
        cli_lib_error(path, *out ? ibr_result_last_error(*out) : NULL, rc);
        ibr_result_destroy(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}
