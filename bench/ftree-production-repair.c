/*
 * CPU time of ibr_routing_db_route() repairing a saved dmodc routing after
 * one seeded fault (issue 35): the library call alone, in one process, on
 * the thread's CPU clock (steadier than wall time on a loaded machine),
 * median and fastest of N repairs per seed. Compare two builds of the
 * library side by side with LD_LIBRARY_PATH, interleaved per seed:
 *
 *   cc -O2 -Iinclude -Ibuild/include bench/ftree-production-repair.c \
 *      -Lbuild/src -libroute -o repair-bench
 *   LD_LIBRARY_PATH=OLD/src ./repair-bench SPEC KIND SEED0 SEED1 [N [ENGINE]]
 *
 * ENGINE (default dmodc) is the engine whose routing is saved and repaired;
 * with a seventh argument `full`, the full reroute of the same fault
 * (IBR_REROUTE_FORCE_FULL) is timed alike after each repair, and the ratio
 * of the medians printed.
 * KIND 0: one cable lost, 1: one switch lost (`ibr gen SPEC --faults 1,0`
 * or `0,1`, `--seed S --remove-down`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ibroute/ibroute.h"

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* SPEC with the seeded faults, the cables marked down removed. */
static ibr_topo *make(const char *spec, unsigned links, unsigned sws, unsigned long seed)
{
    ibr_fabric *f;
    ibr_topo *t;
    if (ibr_fabric_create(&f, NULL) || ibr_fabric_generate(f, spec))
        exit(2);
    if ((links || sws) && ibr_fabric_inject_faults(f, links, sws, seed))
        exit(3);
    uint32_t n = ibr_fabric_node_count(f);
    for (uint32_t i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_fabric_node_info(&ni, f, i);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            if (ibr_fabric_port_info(&pi, f, i, p) == 0 && pi.remote_node != IBR_NONE &&
                pi.state == IBR_LINK_DOWN)
                ibr_fabric_remove_link(f, i, p);
        }
    }
    if (ibr_fabric_freeze(&t, f))
        exit(4);
    ibr_fabric_destroy(f);
    return t;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 1;
    const char *spec = argv[1];
    int kind = atoi(argv[2]), s0 = atoi(argv[3]), s1 = atoi(argv[4]);
    int n = argc > 5 ? atoi(argv[5]) : 11;
    const char *engine = argc > 6 ? argv[6] : "dmodc";
    int vs_full = argc > 7 && strcmp(argv[7], "full") == 0;
    char route_spec[64];
    if (n < 1 || n > 64 ||
        snprintf(route_spec, sizeof route_spec, "%s,no_fallback", engine) >= (int)sizeof route_spec)
        return 1;
    ibr_options o = IBR_OPTIONS_INIT;
    o.threads = 1;
    ibr_topo *t = make(spec, 0, 0, 0);
    ibr_result *r0;
    ibr_routing_db *db;
    if (ibr_route(&r0, t, route_spec, &o) || ibr_routing_db_from_result(&db, r0))
        return 5;
    ibr_result_destroy(r0);
    for (int seed = s0; seed <= s1; seed++) {
        ibr_topo *t1 = make(spec, kind == 0, kind == 1, (unsigned long)seed);
        double v[64], fv[64];
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        for (int k = 0; k < n; k++) {
            ibr_result *y = NULL;
            double c0 = cpu();
            int rc = ibr_routing_db_route(&y, &rep, db, t1, &o, 0);
            v[k] = cpu() - c0;
            if (k == 0 && getenv("RB_HASH")) { /* the tables, to compare builds */
                ibr_buffer b = IBR_BUFFER_INIT;
                unsigned long long hsh = 1469598103934665603ULL;
                if (ibr_result_write_dump_lfts(&b, y) == 0)
                    for (size_t i = 0; i < b.size; i++)
                        hsh = (hsh ^ (unsigned char)b.data[i]) * 1099511628211ULL;
                printf("tables fnv %016llx\n", hsh);
                ibr_buffer_dispose(&b);
            }
            ibr_result_destroy(y);
            if (rc)
                return 7;
            if (vs_full) {
                ibr_reroute_report frep = IBR_REROUTE_REPORT_INIT;
                c0 = cpu();
                rc = ibr_routing_db_route(&y, &frep, db, t1, &o, IBR_REROUTE_FORCE_FULL);
                fv[k] = cpu() - c0;
                ibr_result_destroy(y);
                if (rc)
                    return 8;
            }
        }
        qsort(v, (size_t)n, sizeof *v, cmpd);
        if (vs_full) {
            qsort(fv, (size_t)n, sizeof *fv, cmpd);
            printf("full median %.3f ms repair/full %.2f | ", fv[n / 2] * 1e3, v[n / 2] / fv[n / 2]);
        }
        printf("%s seed %d %s median %.2f ms min %.2f ms entries %llu blocks %llu over lost %llu\n",
               kind ? "switch" : "cable", seed,
               rep.mode == IBR_REROUTE_INCREMENTAL ? "incr" : "FULL", v[n / 2] * 1e3, v[0] * 1e3,
               (unsigned long long)rep.lft_entries_changed,
               (unsigned long long)rep.lft_blocks_changed,
               (unsigned long long)rep.lft_blocks_over_lost);
        fflush(stdout);
        ibr_topo_destroy(t1);
    }
    return 0;
}
