/*
 * The options of ibr_route(), read by their version: the library reads no
 * more of a caller's struct than its version has.
 */
#include <string.h>

#include "core/messages.h"
#include "route/route_int.h"


/* Size of ibr_options as each version's header declared it: the library
   reads no more of a caller's struct than its version has, and takes the
   defaults for the fields a version lacks. Index: the version. */
static const size_t options_size[] = {0, offsetof(ibr_options, mcast_groups),
                                      offsetof(ibr_options, qos), sizeof(ibr_options)};

int ibr_options_init(ibr_options *opts, unsigned int version)
{
    static const ibr_options def = IBR_OPTIONS_INIT;
    return ibr__versioned_init(opts, &def, IBR__VERSION_SIZE(options_size, version), version);
}

int ibr__options_read(ibr_options *out, const ibr_options *opts, char *msg)
{
    ibr_options_init(out, IBR_OPTIONS_VERSION);
    if (!opts)
        return 0;
    size_t size = IBR__VERSION_SIZE(options_size, opts->version);
    if (!size)
        return ibr__err(msg, IBR_EVERSION,
                        IBR__MSG("RO001", "options version %u (this library knows 1..%u)"),
                        opts->version, IBR_OPTIONS_VERSION);
    /* only the fields the caller's version has; defaults for the rest */
    memcpy(out, opts, size);
    out->version = IBR_OPTIONS_VERSION;
    return 0;
}

int ibr__options_check(char *msg, const ibr_options *o)
{
    if (o->lmc > 7 && o->lmc != IBR_LMC_TOPO)
        return ibr__err(msg, IBR_EINVAL, IBR__MSG("RO002", "option lmc = %u (must be 0..7)"),
                        o->lmc);
    if (o->max_vls < 1 || o->max_vls > 15)
        return ibr__err(msg, IBR_EINVAL, IBR__MSG("RO003", "option max_vls = %u (must be 1..15)"),
                        o->max_vls);
    if ((o->n_root_guids && !o->root_guids) || (o->n_cn_guids && !o->cn_guids) ||
        (o->n_io_guids && !o->io_guids) || (o->n_guid_routing_order && !o->guid_routing_order) ||
        (o->n_ignore_ports && !o->ignore_ports) || (o->n_ids && !o->ids))
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO004", "option list with a count but a NULL pointer"));
    if (o->threads > 1024)
        return ibr__err(msg, IBR_EINVAL, IBR__MSG("RO005", "option threads = %u (max 1024)"),
                        o->threads);
    if (o->n_params && !o->params)
        return ibr__err(msg, IBR_EINVAL,
                        IBR__MSG("RO004", "option list with a count but a NULL pointer"));
    return 0;
}
