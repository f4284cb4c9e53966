/*
 * Temporary port GUIDs for the readers that build a fabric node by node
 * (ibnetdiscover, the .lst link lists, ibdiagnet's db_csv). A new node gets
 * default port GUIDs (a switch its node GUID, a CA's or router's ports node
 * GUID + port), and those may be GUIDs the text gives other ports. A port
 * holding a GUID only by default steps aside to a temporary GUID, counting
 * down from 2^64 - 1 and skipping GUIDs in use or given by the text.
 * Those readers check their arguments the same way too.
 */
#include "formats/formats_int.h"

int ibr__parse_into_check(ibr_fabric *f, const char *buf, size_t len)
{
    if (!f)
        return IBR_EINVAL;
    if (!buf && len)
        return ibr__fabric_err(f, IBR_EINVAL, "NULL buffer of %zu bytes", len);
    if (f->n_nodes)
        return ibr__fabric_err(f, IBR_ESTATE, "the fabric is not empty (%zu nodes)", f->n_nodes);
    return 0;
}

uint64_t ibr__temp_port_guid(const ibr_fabric *f, const ibr__guidmap *finals, uint64_t *next)
{
    for (;;) {
        uint64_t g = (*next)--;
        if (ibr__guidmap_get(&f->port_guids, g) == IBR_NONE &&
            ibr__guidmap_get(finals, g) == IBR_NONE)
            return g;
    }
}

int ibr__port_move_aside(ibr_fabric *f, const ibr__guidmap *finals, uint64_t *next, uint64_t g,
                         uint32_t *node, unsigned *port)
{
    uint32_t gp = ibr__guidmap_get(&f->port_guids, g);
    *node = IBR_NONE;
    if (gp == IBR_NONE)
        return 0;
    ibr__port_owner(f, gp, node, port);
    int rc = ibr_fabric_set_port_guid(f, *node, *port, ibr__temp_port_guid(f, finals, next));
    return rc < 0 ? rc : 0;
}
