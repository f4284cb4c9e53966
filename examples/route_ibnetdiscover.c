/*
 * route_ibnetdiscover.c: read a fabric discovered by ibnetdiscover (or an
 * ibsim netfile), route it, verify the tables and print them on standard
 * output in OpenSM's opensm-lfts.dump format.
 *
 *     cc route_ibnetdiscover.c $(pkg-config --cflags --libs ibroute) \
 *         -o route_ibnetdiscover
 *     ibnetdiscover > fabric.topo
 *     ./route_ibnetdiscover fabric.topo [CHAIN] > opensm-lfts.dump
 *
 * CHAIN is an engine chain such as "minhop" (the default). The library does
 * no I/O: this program reads the file and writes the dump itself. A summary
 * goes to standard error. Exit status: 0 valid tables, 1 otherwise, 2 for
 * a usage error.
 */
#include <ibroute/ibroute.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Read a whole file into a malloc'ed buffer; NULL on error. */
static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (!fp)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap ? 2 * cap : 65536);
            if (!nb) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = nb;
            cap = cap ? 2 * cap : 65536;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s TOPOLOGY [CHAIN] > opensm-lfts.dump\n"
                        "  TOPOLOGY  ibnetdiscover output or an ibsim netfile, e.g.\n"
                        "            examples/fabrics/small-fattree.topo\n"
                        "  CHAIN     engine chain such as minhop (default) or ftree,updn\n",
                argv[0]);
        return 2;
    }
    const char *path = argv[1];
    const char *chain = argc > 2 ? argv[2] : "minhop";
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    ibr_buffer dump = IBR_BUFFER_INIT;
    ibr_options opts = IBR_OPTIONS_INIT;
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    size_t len = 0;
    char *text;
    int rc, io_error = 0;

    text = read_file(path, &len);
    if (!text) {
        perror(path);
        return 1;
    }

    /* The parser fills an empty fabric; on failure the message names the
       line. LIDs written in the file are kept; ports without one get one. */
    if ((rc = ibr_fabric_create(&f, NULL)) < 0)
        goto out;
    rc = ibr_fabric_parse_ibnetdiscover(f, text, len);
    free(text); /* the fabric holds copies of everything it needs */
    if (rc < 0 || (rc = ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP)) < 0 ||
        (rc = ibr_fabric_freeze(&t, f)) < 0) {
        fprintf(stderr, "%s: %s\n", path, ibr_fabric_last_error(f));
        goto out;
    }
    fprintf(stderr, "%s: %" PRIu32 " switches, %" PRIu32 " end ports, max LID %u\n", path,
            ibr_topo_switch_count(t), ibr_topo_endport_count(t),
            (unsigned)ibr_topo_max_lid(t));

    /* Route. Even on failure r is a result that says why. */
    if ((rc = ibr_route(&r, t, chain, &opts)) < 0) {
        fprintf(stderr, "route: %s\n", r ? ibr_result_last_error(r) : ibr_strerror(rc));
        goto out;
    }
    fprintf(stderr, "routed by %s\n", ibr_result_engine(r));

    /* Check every (switch, LID) route and measure the routing. */
    rc = ibr_result_verify(&rep, r);
    fprintf(stderr,
            "verify: %s; %" PRIu64 "/%" PRIu64 " host pairs routed, avg %.2f hops, "
            "max link load %" PRIu64 "\n",
            rc == 0 ? "valid" : "INVALID", rep.pairs_ok, rep.pairs, rep.avg_hops,
            rep.max_link_load);
    if (rc < 0) {
        if (rep.first_error[0])
            fprintf(stderr, "first error: %s\n", rep.first_error);
        goto out;
    }

    /* The writer appends to a buffer we own and release. */
    if ((rc = ibr_result_write_lfts_dump(&dump, r)) < 0)
        goto out;
    if (fwrite(dump.data, 1, dump.size, stdout) != dump.size || fflush(stdout) != 0) {
        perror("stdout");
        io_error = 1;
    }
out:
    if (rc < 0)
        fprintf(stderr, "route_ibnetdiscover: %s\n", ibr_strerror(rc));
    ibr_buffer_dispose(&dump);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    return rc < 0 || io_error ? 1 : 0;
}
