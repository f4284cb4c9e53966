/*
 * minhop: OpenSM's default routing. Shortest paths over active links (a
 * breadth-first search from every switch, straight into the result's hop
 * matrix), then the toolkit's LFT builder balances the destinations over
 * the minimum-hop ports.
 *
 * Time: O(S·(S+E)) for the hop matrix plus the builder's cost. Memory: S^2
 * bytes for the hop matrix, which the result keeps.
 */
#include "engines/engine_int.h"

static int minhop_route(ibr_run *run, void *user)
{
    (void)user;
    int rc = ibr_run_progress(run, "minhop: hop matrix", 0, 1);
    if (rc < 0)
        return rc;
    uint8_t *hops = ibr_run_hops(run);
    if (!hops)
        return ibr_run_fail(run, IBR_ENOMEM, "out of memory");
    if ((rc = ibr_topo_switch_hops(hops, ibr_run_topo(run), ibr_run_threads(run))) < 0)
        return ibr_run_fail(run, rc, "out of memory");
    return ibr_run_ucast(run, hops, NULL, NULL, "minhop: forwarding tables");
}

const ibr_engine ibr__engine_minhop = {
    .version = IBR_ENGINE_VERSION,
    .name = "minhop",
    .description = "shortest paths, least-loaded port per destination (OpenSM's default)",
    .caps = IBR_CAP_LMC | IBR_CAP_MINIMAL,
    .route = minhop_route,
};
