/*
 * route_fabric.c: build a small fabric in code, route it with a chain of
 * engines, verify the result and print one switch's forwarding table.
 *
 *     cc route_fabric.c $(pkg-config --cflags --libs ibroute) -o route_fabric
 *
 * Two leaf switches with three hosts each, joined by two spine switches.
 */
#include <ibroute/ibroute.h>
#include <inttypes.h>
#include <stdio.h>

int main(void)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    ibr_result *r = NULL;
    uint32_t leaf[2], spine[2];
    int rc;

    if ((rc = ibr_fabric_create(&f, NULL)) < 0)
        goto out;
    for (int i = 0; i < 2; i++) {
        if ((rc = ibr_fabric_add_node(&spine[i], f, IBR_NODE_SWITCH,
                                      0x0002c90000000100ULL + i, 8, "spine")) < 0 ||
            (rc = ibr_fabric_add_node(&leaf[i], f, IBR_NODE_SWITCH,
                                      0x0002c90000000200ULL + i, 8, "leaf")) < 0)
            goto out;
    }
    /* leaf port 1 -> spine 0, leaf port 2 -> spine 1 */
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 2; s++)
            if ((rc = ibr_fabric_add_link(f, leaf[l], 1 + s, spine[s], 1 + l, NULL)) < 0)
                goto out;
    for (int h = 0; h < 6; h++) {
        uint32_t host;
        char desc[32];
        snprintf(desc, sizeof desc, "host%d HCA-1", h);
        if ((rc = ibr_fabric_add_node(&host, f, IBR_NODE_CA,
                                      0x0002c90000100000ULL + 0x10 * h, 1, desc)) < 0 ||
            (rc = ibr_fabric_add_link(f, host, 1, leaf[h / 3], 3 + h % 3, NULL)) < 0)
            goto out;
    }
    if ((rc = ibr_fabric_assign_lids(f, 0, IBR_LIDS_KEEP)) < 0 ||
        (rc = ibr_fabric_freeze(&t, f)) < 0)
        goto out;

    ibr_options opts = IBR_OPTIONS_INIT;
    if ((rc = ibr_route(&r, t, "minhop", &opts)) < 0)
        goto out;
    printf("routed by %s\n", ibr_result_engine(r));

    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    rc = ibr_result_verify(&rep, r);
    printf("verify: %s, %" PRIu64 "/%" PRIu64 " host pairs routed, avg %.2f hops, "
           "max link load %" PRIu64 "\n",
           rc == 0 ? "valid" : "INVALID", rep.pairs_ok, rep.pairs, rep.avg_hops,
           rep.max_link_load);
    if (rc < 0)
        goto out;

    uint32_t sw = ibr_topo_node_switch(t, leaf[0]);
    const uint8_t *lft = ibr_result_lft(r, sw);
    printf("LFT of leaf 0:");
    for (size_t lid = 1; lid < ibr_result_lft_size(r); lid++)
        printf(" %zu->%u", lid, lft[lid]);
    printf("\n");
out:
    if (rc < 0)
        fprintf(stderr, "route_fabric: %s: %s\n", ibr_strerror(rc),
                r ? ibr_result_last_error(r) : f ? ibr_fabric_last_error(f) : "");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    return rc < 0 ? 1 : 0;
}
