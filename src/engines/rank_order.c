/*
 * The rank-order artefact of the engines that route destinations in an
 * order of their own (ftree, dmodc): every end port they route, in that
 * order, so that MPI or NCCL ranks placed in it get the shift patterns
 * the engine balanced (rank k sending to rank k + s crosses no link
 * twice on an intact fat tree). Text, one line per end port:
 *
 *     rank <TAB> destination index <TAB> port GUID <TAB> LID <TAB> node description
 *
 * after one '#' comment line. Ranks are 0..N-1; the destination index is
 * the engine's own (ftree: position in its compute-node sequence,
 * dummies counted; dmodc: the index its modulo arithmetic uses), so gaps
 * in it show where the engine reserved slots for missing end ports.
 */
#include <inttypes.h>

#include "core/buffer.h"
#include "engines/engine_int.h"

int ibr__rank_order_artifact(ibr_run *run, const char *engine, const uint32_t *gp,
                             const uint64_t *index, size_t n)
{
    const ibr_topo *t = ibr_run_topo(run);
    ibr_context *ctx = t->ctx;
    ibr_buffer b = IBR_BUFFER_INIT;
    int rc = ibr__buf_printf(&b, ctx,
                             "# %s destination order: rank, destination index, port GUID, LID, "
                             "node description\n",
                             engine);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const ibr__port *p = &t->ports[gp[i]];
        rc = ibr__buf_printf(&b, ctx, "%zu\t%" PRIu64 "\t0x%016" PRIx64 "\t0x%04x\t%s\n", i,
                             index[i], p->guid, (unsigned)p->lid,
                             t->nodes[t->port_node[gp[i]]].desc);
    }
    if (rc == 0)
        rc = ibr_run_add_artifact(run, IBR__RANK_ORDER_ARTIFACT, b.data, b.size);
    ibr_buffer_dispose(&b);
    return rc;
}
