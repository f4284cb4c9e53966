/*
 * Reroute after a link failure: route a fat tree, save the routing with
 * the fabric it was computed on (a routing database), lose one cable
 * between two switches, and reroute incrementally from the saved routing:
 * only the routes that crossed the failed cable change. The churn (LFT
 * entries and switches to reprogram) is compared with a full reroute.
 *
 * Usage: reroute_link_failure [SPEC [ENGINE]]   (default: a 3-level fat
 * tree of 8-port switches, updn). Exit 0 when the new routing is valid and
 * changes no more entries than a full reroute.
 */
#include <ibroute/ibroute.h>
#include <inttypes.h>
#include <stdio.h>

static const char *kind_name(int kind)
{
    switch (kind) {
    case IBR_CHANGE_MISSING_CABLE: return "missing cable";
    case IBR_CHANGE_NEW_CABLE: return "new cable";
    case IBR_CHANGE_MISSING_SWITCH: return "missing switch";
    case IBR_CHANGE_NEW_SWITCH: return "new switch";
    case IBR_CHANGE_MISSING_CA: return "missing end port";
    case IBR_CHANGE_NEW_CA: return "new end port";
    case IBR_CHANGE_MOVED_CA: return "moved end port";
    default: return "LID change";
    }
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "fattree:levels=3,radix=8";
    const char *engine = argc > 2 ? argv[2] : "updn";
    ibr_fabric *f = NULL, *broken = NULL;
    ibr_topo *before = NULL, *after = NULL;
    ibr_result *r = NULL, *inc = NULL, *full = NULL;
    ibr_routing_db *db = NULL;
    ibr_buffer saved = IBR_BUFFER_INIT;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT, frep = IBR_REROUTE_REPORT_INIT;
    ibr_verify_report vr = IBR_VERIFY_REPORT_INIT;
    ibr_change changes[8];
    size_t n = 0, i;
    int rc, ok = 0;

    /* 1. route the intact fabric and save the routing (a file, in a real SM) */
    if ((rc = ibr_fabric_create(&f, NULL)) < 0 || (rc = ibr_fabric_generate(f, spec)) < 0 ||
        (rc = ibr_fabric_clone(&broken, f)) < 0 || (rc = ibr_fabric_freeze(&before, f)) < 0 ||
        (rc = ibr_route(&r, before, engine, NULL)) < 0 || (rc = ibr_result_write_db(&saved, r)) < 0)
        goto out;
    printf("routed %s with %s; database: %zu bytes\n", spec, ibr_result_engine(r), saved.size);

    /* 2. one cable between two switches fails */
    if ((rc = ibr_fabric_inject_faults(broken, 1, 0, 7)) < 0 ||
        (rc = ibr_fabric_freeze(&after, broken)) < 0)
        goto out;

    /* 3. load the saved routing and compare it with today's fabric */
    if ((rc = ibr_routing_db_parse(&db, NULL, saved.data, saved.size)) < 0) {
        fprintf(stderr, "%s\n", ibr_routing_db_last_error(db));
        goto out;
    }
    if ((rc = ibr_routing_db_compare(changes, 8, &n, db, after)) < 0)
        goto out;
    for (i = 0; i < n; i++)
        printf("change: %s 0x%016" PRIx64 " port %u - 0x%016" PRIx64 " port %u\n",
               kind_name(changes[i].kind), changes[i].guid, changes[i].port,
               changes[i].remote_guid, changes[i].remote_port);

    /* 4. reroute only what the failure invalidates, and compare with a
          full reroute */
    if ((rc = ibr_routing_db_route(&inc, &rep, db, after, NULL, 0)) < 0 ||
        (rc = ibr_routing_db_route(&full, &frep, db, after, NULL, IBR_REROUTE_FORCE_FULL)) < 0)
        goto out;
    printf("mode: %s%s%s\n",
           rep.mode == IBR_REROUTE_INCREMENTAL ? "incremental"
           : rep.mode == IBR_REROUTE_FULL      ? "full reroute: "
                                               : "other",
           rep.mode == IBR_REROUTE_FULL ? rep.reason : "", "");
    printf("churn: %" PRIu64 " LFT entries on %" PRIu32 " switches (full reroute: %" PRIu64
           " entries on %" PRIu32 " switches)\n",
           rep.lft_entries_changed, rep.switches_changed, frep.lft_entries_changed,
           frep.switches_changed);
    /* what a subnet manager sends: one SMP per changed 64-LID block */
    printf("to send: %" PRIu64 " LFT blocks (full reroute: %" PRIu64 "); %" PRIu64
           " saved blocks held a route over the lost cable\n",
           rep.lft_blocks_changed, frep.lft_blocks_changed, rep.lft_blocks_over_lost);
    if ((rc = ibr_result_verify(&vr, inc)) < 0)
        goto out;
    printf("verify: %" PRIu64 " of %" PRIu64 " host pairs delivered, %s\n", vr.pairs_ok,
           vr.pairs, vr.deadlock_free ? "no credit loop" : "CREDIT LOOP");
    ok = vr.pairs_ok == vr.pairs && vr.routes_ok == vr.routes_checked &&
         rep.lft_entries_changed <= frep.lft_entries_changed && n == 1 &&
         changes[0].kind == IBR_CHANGE_MISSING_CABLE;
out:
    if (rc < 0)
        fprintf(stderr, "error: %s\n", ibr_strerror(rc));
    ibr_buffer_dispose(&saved);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(full);
    ibr_result_destroy(inc);
    ibr_result_destroy(r);
    ibr_topo_destroy(after);
    ibr_topo_destroy(before);
    ibr_fabric_destroy(broken);
    ibr_fabric_destroy(f);
    return ok ? 0 : 1;
}
