/*
 * ibroute as routing engines of a running OpenSM (3.3.x): an OpenSM event
 * plugin whose only job is to register ibroute's engines with
 * osm_register_external_routing_engine() when OpenSM loads it.
 *
 * opensm.conf:
 *     event_plugin_name ibroute-opensm
 *     routing_engine ibr-ftree,ibr-updn
 *
 * OpenSM dlopen()s "lib<name>.so" (this file, built as
 * libibroute-opensm.so), checks the OpenSM version it was built against
 * and calls create() before it sets up the routing engines named in
 * routing_engine (or -R). Every engine of the library is registered as
 * "ibr-<name>" (ibr-minhop, ibr-ftree, ibr-torus-2QoS, ...), so names never
 * clash with OpenSM's own and chains mix both with OpenSM's fallback rules.
 *
 * At each routing run OpenSM calls build_lid_matrices(): the plugin turns
 * the subnet OpenSM discovered (switches, CAs, routers, cables with their
 * width and speed, LIDs and LMC, the GUID files and options OpenSM parsed)
 * into an ibroute fabric and routes it with the one engine, without
 * ibroute's own fallback. When ibroute declines, the hook logs its reason
 * and fails, and OpenSM tries the next engine of its chain (and minhop
 * last, unless no_fallback). On success OpenSM builds its min-hop matrices
 * (SA hop counts, multicast) and ucast_build_fwd_tables() copies ibroute's
 * tables into the switches' new LFTs. path_sl() and update_sl2vl() answer
 * from ibroute's result for engines with SLs.
 *
 * Between sweeps each engine keeps a routing database (ibr_routing_db) of
 * its last successful routing. When the next sweep finds the fabric
 * changed by at most IBR_OSM_REPAIR_MAX_CHANGES elements (a cable or a
 * switch lost, an end port moved), ibr_routing_db_route() repairs the
 * kept tables instead of routing from scratch, so that the new LFTs differ
 * from those in the switches only where routes crossed what changed and
 * OpenSM sends only those blocks. The first sweep, a bigger change, and a
 * repair the library refuses or fails route from scratch as before; the
 * log says which way was taken, why, and the entries and blocks changed.
 *
 * This is a client of the public API, like the ibr CLI: it may read files
 * (the GUID files OpenSM names) and it logs through OpenSM.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <opensm/osm_config.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_version.h>

#include "ibroute/ibroute.h"

/* OSM_LOG tags each line with a file id; no id of OpenSM's own is ours. */
#define FILE_ID 0

#define IBR_OSM_PREFIX "ibr-"
#define IBR_OSM_MAX_PARAMS 8
/* Most differences (ibr_routing_db_compare()) between the kept routing and
 * the new subnet that a sweep repairs; more route from scratch. */
#define IBR_OSM_REPAIR_MAX_CHANGES 16

/* The plugin: the ibroute context whose built-in engines are offered. */
typedef struct ibr_osm_plugin {
    osm_opensm_t *osm;
    ibr_context *ctx;
} ibr_osm_plugin;

/* One ibroute engine in OpenSM's chain (one per name set up). */
typedef struct ibr_osm_engine {
    osm_opensm_t *osm;
    ibr_osm_plugin *plugin;
    char ibr_name[64];       /* the library's engine name: "ftree" */
    char osm_name[72];       /* OpenSM's: "ibr-ftree" */
    /* the routing of the last successful run, kept for the LFT, SL and
     * SL2VL hooks until the next run */
    ibr_topo *topo;
    ibr_result *result;
    osm_node_t **nodes;      /* ibroute node index -> OpenSM node */
    uint32_t n_nodes;
    /* the same routing as a database, kept across sweeps for repairs;
     * NULL before the first success and after a failed run */
    ibr_routing_db *db;
} ibr_osm_engine;

/* ------------------------------------------------------------------------ */
/* Helpers */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read a whole file; NULL with errno set on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (!fp)
        return NULL;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, ncap);

            if (!nb) {
                free(buf);
                fclose(fp);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);

        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        int e = errno ? errno : EIO;

        free(buf);
        fclose(fp);
        errno = e;
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void ibr_log_to_osm(void *user, int level, const char *msg)
{
    ibr_osm_plugin *p = user;
    osm_log_level_t l;

    switch (level) {
    case IBR_LOG_ERROR: l = OSM_LOG_ERROR; break;
    case IBR_LOG_WARN: l = OSM_LOG_INFO; break;
    case IBR_LOG_INFO: l = OSM_LOG_VERBOSE; break;
    default: l = OSM_LOG_DEBUG; break;
    }
    OSM_LOG(&p->osm->log, l, "ibroute: %s\n", msg);
}

/* Switches first, then the other nodes, each by node GUID: the order of
 * the netfiles `ibr gen` writes, so that ties break as in `ibr route`. */
static int cmp_node_order(const void *a, const void *b)
{
    const osm_node_t *x = *(osm_node_t *const *)a, *y = *(osm_node_t *const *)b;
    int sx = osm_node_get_type(x) == IB_NODE_TYPE_SWITCH;
    int sy = osm_node_get_type(y) == IB_NODE_TYPE_SWITCH;
    uint64_t gx = cl_ntoh64(osm_node_get_node_guid(x));
    uint64_t gy = cl_ntoh64(osm_node_get_node_guid(y));

    if (sx != sy)
        return sy - sx;
    return gx < gy ? -1 : gx > gy;
}

typedef struct node_slot {
    osm_node_t *node;
    uint32_t index;
} node_slot;

static int cmp_slot(const void *a, const void *b)
{
    const node_slot *x = a, *y = b;

    return x->node < y->node ? -1 : x->node > y->node;
}

static uint32_t slot_find(const node_slot *slots, uint32_t n, const osm_node_t *node)
{
    node_slot key;
    const node_slot *hit;

    key.node = (osm_node_t *)node;
    key.index = 0;
    hit = bsearch(&key, slots, n, sizeof(*slots), cmp_slot);
    return hit ? hit->index : IBR_NONE;
}

static ibr_link_speed link_speed(const ib_port_info_t *pi)
{
    switch (ib_port_info_get_link_speed_ext_active(pi)) {
    case 1: return IBR_SPEED_FDR;
    case 2: return IBR_SPEED_EDR;
    case 4: return IBR_SPEED_HDR;
    case 8: return IBR_SPEED_NDR;
    default: break;
    }
    switch (ib_port_info_get_link_speed_active(pi)) {
    case 1: return IBR_SPEED_SDR;
    case 2: return IBR_SPEED_DDR;
    case 4: return IBR_SPEED_QDR;
    default: return IBR_SPEED_UNKNOWN;
    }
}

static ibr_link_width link_width(const ib_port_info_t *pi)
{
    switch (pi->link_width_active) {
    case 1: return IBR_WIDTH_1X;
    case 2: return IBR_WIDTH_4X;
    case 4: return IBR_WIDTH_8X;
    case 8: return IBR_WIDTH_12X;
    case 16: return IBR_WIDTH_2X;
    default: return IBR_WIDTH_UNKNOWN;
    }
}

/* A VLCap or OperVLs code (1..5: VL0, VL0-1, VL0-3, VL0-7, VL0-14) as a
 * count of data VLs; 0 for a code that is none of them. */
static unsigned int vl_count(unsigned int code)
{
    if (code < 1 || code > 5)
        return 0;
    return code == 5 ? 15 : 1u << (code - 1);
}

/* What PortInfo says about a cabled port: VLCap, OperVLs and the enabled
 * widths and speeds ("all supported" codes count as not given). */
static void port_attr_of(ibr_port_attr *a, const ib_port_info_t *pi)
{
    unsigned int w = pi->link_width_enabled, s = ib_port_info_get_link_speed_enabled(pi);
    unsigned int e = ib_port_info_get_link_speed_ext_enabled(pi);

    a->vl_cap = vl_count(ib_port_info_get_vl_cap(pi));
    a->oper_vls = vl_count(ib_port_info_get_op_vls(pi));
    if (a->oper_vls > (a->vl_cap ? a->vl_cap : 8u))
        a->oper_vls = 0; /* not compliant: derive it */
    a->width_enabled = w <= 31 ? w : 0;
    a->speed_enabled = 0;
    if (s && s <= 7) {
        if (s & 1)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_SDR);
        if (s & 2)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_DDR);
        if (s & 4)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_QDR);
    }
    if (e && e <= 15) {
        if (e & 1)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_FDR);
        if (e & 2)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_EDR);
        if (e & 4)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_HDR);
        if (e & 8)
            a->speed_enabled |= IBR_SPEED_BIT(IBR_SPEED_NDR);
    }
}

/* The data VLs every switch-to-anything cable supports, as OpenSM's
 * dfsssp counts them (OperationalVLs 1..5 = 1, 2, 4, 8, 15 VLs). */
static unsigned int subnet_vls(osm_subn_t *subn)
{
    unsigned int best = 0xFF, vls;
    cl_map_item_t *it;

    for (it = cl_qmap_head(&subn->sw_guid_tbl); it != cl_qmap_end(&subn->sw_guid_tbl);
         it = cl_qmap_next(it)) {
        osm_switch_t *sw = (osm_switch_t *)it;
        unsigned int i, n = osm_node_get_num_physp(sw->p_node);

        for (i = 1; i < n; i++) {
            osm_physp_t *p = osm_node_get_physp_ptr(sw->p_node, i);
            unsigned int op;

            if (!p || !p->p_remote_physp)
                continue;
            op = ib_port_info_get_op_vls(&p->port_info);
            if (op && op < best)
                best = op;
        }
    }
    if (best == 0xFF || best == 0)
        return 8;
    vls = 1u << (best - 1);
    return vls > 15 ? 15 : vls;
}

/* ------------------------------------------------------------------------ */
/* OpenSM's subnet -> ibroute topology */

static void engine_forget(ibr_osm_engine *e)
{
    ibr_result_destroy(e->result);
    ibr_topo_destroy(e->topo);
    free(e->nodes);
    e->result = NULL;
    e->topo = NULL;
    e->nodes = NULL;
    e->n_nodes = 0;
}

/* The nodes in the order of nodes[] (fabric index i is nodes[i]), with
   their system image and port GUIDs; slots[] filled (unsorted). A node
   that gets another index: IBR_EINTERNAL, *mismatch set and msg written. */
static int add_nodes(ibr_fabric *f, osm_node_t **nodes, node_slot *slots, uint32_t n,
                     int *mismatch, char *msg, size_t msgcap)
{
    uint32_t i;
    int rc;

    for (i = 0; i < n; i++) {
        osm_node_t *nd = nodes[i];
        uint8_t t = osm_node_get_type(nd);
        ibr_node_type type = t == IB_NODE_TYPE_SWITCH ? IBR_NODE_SWITCH
                             : t == IB_NODE_TYPE_ROUTER ? IBR_NODE_ROUTER : IBR_NODE_CA;
        unsigned int nports = osm_node_get_num_physp(nd) - 1u;
        char desc[IB_NODE_DESCRIPTION_SIZE + 1];
        uint32_t idx;

        memcpy(desc, nd->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
        desc[IB_NODE_DESCRIPTION_SIZE] = '\0';
        if ((rc = ibr_fabric_add_node(&idx, f, type, cl_ntoh64(osm_node_get_node_guid(nd)),
                                      nports ? nports : 1, desc)) < 0 ||
            (rc = ibr_fabric_set_sysimg_guid(f, idx,
                                             cl_ntoh64(nd->node_info.sys_guid))) < 0)
            return rc;
        slots[i].node = nd;
        slots[i].index = idx;
        if (idx != i) {
            *mismatch = 1;
            snprintf(msg, msgcap, "node 0x%016" PRIx64 " got index %" PRIu32 ", expected %"
                     PRIu32, cl_ntoh64(osm_node_get_node_guid(nd)), idx, i);
            return IBR_EINTERNAL;
        }
        /* port GUIDs */
        if (type == IBR_NODE_SWITCH) {
            osm_physp_t *p0 = osm_node_get_physp_ptr(nd, 0);

            if (p0 && osm_physp_is_valid(p0) &&
                cl_ntoh64(osm_physp_get_port_guid(p0)) != cl_ntoh64(osm_node_get_node_guid(nd)) &&
                (rc = ibr_fabric_set_port_guid(f, idx, 0,
                                               cl_ntoh64(osm_physp_get_port_guid(p0)))) < 0)
                return rc;
        } else {
            unsigned int p;

            for (p = 1; p <= nports; p++) {
                osm_physp_t *pp = osm_node_get_physp_ptr(nd, (uint8_t)p);

                if (pp && osm_physp_is_valid(pp) &&
                    (rc = ibr_fabric_set_port_guid(f, idx, p,
                                                   cl_ntoh64(osm_physp_get_port_guid(pp)))) < 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* The cables, each added from its end with the lower (node, port), with
   their widths and speeds; slots[] sorted. */
static int add_cables(ibr_fabric *f, osm_node_t **nodes, const node_slot *slots, uint32_t n)
{
    uint32_t i;
    int rc;

    for (i = 0; i < n; i++) {
        osm_node_t *nd = nodes[i];
        unsigned int p, np = osm_node_get_num_physp(nd);

        for (p = 1; p < np; p++) {
            osm_physp_t *pp = osm_node_get_physp_ptr(nd, (uint8_t)p);
            osm_physp_t *rp;
            uint32_t j;
            unsigned int rport;
            ibr_link_attr attr = IBR_LINK_ATTR_INIT;

            if (!pp || !osm_physp_is_valid(pp) || !(rp = pp->p_remote_physp))
                continue;
            j = slot_find(slots, n, rp->p_node);
            rport = rp->port_num;
            if (j == IBR_NONE || j < i || (j == i && rport <= p))
                continue;
            attr.width = link_width(&pp->port_info);
            attr.speed = link_speed(&pp->port_info);
            if ((rc = ibr_fabric_add_link(f, i, p, j, rport, &attr)) < 0)
                return rc;
        }
    }
    return 0;
}

/* Each cabled port's VLs and enabled widths and speeds. */
static int set_port_attrs(ibr_fabric *f, osm_node_t **nodes, uint32_t n)
{
    uint32_t i;
    int rc;

    for (i = 0; i < n; i++) {
        osm_node_t *nd = nodes[i];
        unsigned int p, np = osm_node_get_num_physp(nd);

        for (p = 1; p < np; p++) {
            osm_physp_t *pp = osm_node_get_physp_ptr(nd, (uint8_t)p);
            ibr_port_attr pa = IBR_PORT_ATTR_INIT;

            if (!pp || !osm_physp_is_valid(pp) || !pp->p_remote_physp)
                continue;
            port_attr_of(&pa, &pp->port_info);
            if ((rc = ibr_fabric_set_port_attr(f, i, p, &pa)) < 0)
                return rc;
        }
    }
    return 0;
}

/* The LIDs, as OpenSM assigned them. */
static int set_lids(ibr_fabric *f, osm_subn_t *subn, const node_slot *slots, uint32_t n)
{
    cl_map_item_t *it;
    int rc;

    for (it = cl_qmap_head(&subn->port_guid_tbl); it != cl_qmap_end(&subn->port_guid_tbl);
         it = cl_qmap_next(it)) {
        osm_port_t *port = (osm_port_t *)it;
        uint16_t base = cl_ntoh16(osm_port_get_base_lid(port));
        uint32_t j;

        if (!port->p_node || !port->p_physp || base == 0)
            continue;
        j = slot_find(slots, n, port->p_node);
        if (j == IBR_NONE)
            continue;
        if ((rc = ibr_fabric_set_lid(f, j, port->p_physp->port_num, base,
                                     osm_port_get_lmc(port))) < 0)
            return rc;
    }
    return 0;
}

/* Build the topology of OpenSM's subnet. On failure writes why into msg. */
static int subnet_to_topo(ibr_topo **out_topo, osm_node_t ***out_nodes, uint32_t *out_n,
                          ibr_context *ctx, osm_subn_t *subn, char *msg, size_t msgcap)
{
    ibr_fabric *f = NULL;
    osm_node_t **nodes = NULL;
    node_slot *slots = NULL;
    uint32_t n = (uint32_t)cl_qmap_count(&subn->node_guid_tbl), i;
    cl_map_item_t *it;
    int rc, mismatch = 0;

    nodes = calloc(n ? n : 1, sizeof(*nodes));
    slots = calloc(n ? n : 1, sizeof(*slots));
    if (!nodes || !slots) {
        rc = IBR_ENOMEM;
        snprintf(msg, msgcap, "out of memory");
        goto fail;
    }
    i = 0;
    for (it = cl_qmap_head(&subn->node_guid_tbl); it != cl_qmap_end(&subn->node_guid_tbl);
         it = cl_qmap_next(it))
        nodes[i++] = (osm_node_t *)it;
    qsort(nodes, n, sizeof(*nodes), cmp_node_order);

    if ((rc = ibr_fabric_create(&f, ctx)) < 0) {
        snprintf(msg, msgcap, "cannot create a fabric: %s", ibr_strerror(rc));
        goto fail;
    }
    if ((rc = add_nodes(f, nodes, slots, n, &mismatch, msg, msgcap)) < 0) {
        if (mismatch)
            goto fail;
        goto fabric_error;
    }
    qsort(slots, n, sizeof(*slots), cmp_slot);
    if ((rc = add_cables(f, nodes, slots, n)) < 0 || (rc = set_port_attrs(f, nodes, n)) < 0 ||
        (rc = set_lids(f, subn, slots, n)) < 0 || (rc = ibr_fabric_freeze(out_topo, f)) < 0)
        goto fabric_error;
    ibr_fabric_destroy(f);
    free(slots);
    *out_nodes = nodes;
    *out_n = n;
    return 0;

fabric_error:
    snprintf(msg, msgcap, "cannot convert the subnet: %s",
             ibr_fabric_last_error(f) && *ibr_fabric_last_error(f) ? ibr_fabric_last_error(f)
                                                                   : ibr_strerror(rc));
fail:
    ibr_fabric_destroy(f);
    free(slots);
    free(nodes);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* OpenSM's options -> ibroute's */

typedef struct osm_inputs {
    ibr_guid_list *roots, *cns, *ios, *order, *ids, *ignore;
    char *texts[4];
    size_t n_texts;
    ibr_param params[IBR_OSM_MAX_PARAMS];
    char values[IBR_OSM_MAX_PARAMS][16];
    size_t n_params;
} osm_inputs;

static void inputs_dispose(osm_inputs *in)
{
    size_t i;

    ibr_guid_list_destroy(in->roots);
    ibr_guid_list_destroy(in->cns);
    ibr_guid_list_destroy(in->ios);
    ibr_guid_list_destroy(in->order);
    ibr_guid_list_destroy(in->ids);
    ibr_guid_list_destroy(in->ignore);
    for (i = 0; i < in->n_texts; i++)
        free(in->texts[i]);
    memset(in, 0, sizeof(*in));
}

static int load_list(ibr_guid_list **out, ibr_context *ctx, ibr_guid_list_kind kind,
                     const char *what, const char *path, char *msg, size_t msgcap)
{
    size_t len = 0;
    char *buf;
    int rc;

    if (!path || !*path)
        return 0;
    if (!(buf = read_file(path, &len))) {
        snprintf(msg, msgcap, "cannot read %s '%s': %s", what, path, strerror(errno));
        return IBR_EINVAL;
    }
    rc = ibr_guid_list_parse(out, ctx, kind, buf, len);
    free(buf);
    if (rc < 0) {
        snprintf(msg, msgcap, "%s '%s': %s", what, path,
                 *out ? ibr_guid_list_last_error(*out) : ibr_strerror(rc));
        return rc;
    }
    return 0;
}

static void add_int_param(osm_inputs *in, const char *name, long value)
{
    size_t i = in->n_params++;

    snprintf(in->values[i], sizeof(in->values[i]), "%ld", value);
    in->params[i].name = name;
    in->params[i].value = in->values[i];
}

static int add_text_param(osm_inputs *in, const char *name, const char *what,
                          const char *path, char *msg, size_t msgcap)
{
    size_t len = 0;
    char *buf;

    if (!path || !*path)
        return 0;
    if (!(buf = read_file(path, &len))) {
        snprintf(msg, msgcap, "cannot read %s '%s': %s", what, path, strerror(errno));
        return IBR_EINVAL;
    }
    in->texts[in->n_texts++] = buf;
    in->params[in->n_params].name = name;
    in->params[in->n_params].value = buf;
    in->n_params++;
    return 0;
}

/* Fill opts from OpenSM's options for engine `eng`. */
static int options_from_osm(ibr_options *opts, osm_inputs *in, ibr_context *ctx,
                            osm_subn_t *subn, const char *eng, char *msg, size_t msgcap)
{
    const osm_subn_opt_t *o = &subn->opt;
    int rc;

    if ((rc = ibr_options_init(opts, IBR_OPTIONS_VERSION)) < 0)
        return rc;
    opts->max_vls = subnet_vls(subn);
    if (o->scatter_ports) {
        opts->scatter_ports = 1;
        opts->seed = o->scatter_ports;
    }
    opts->port_shifting = o->port_shifting ? 1 : 0;
    opts->port_profile_switch_nodes = o->port_profile_switch_nodes ? 1 : 0;
    opts->guid_routing_order_no_scatter = o->guid_routing_order_no_scatter ? 1 : 0;

    const struct {
        ibr_guid_list **list;
        ibr_guid_list_kind kind;
        const char *what, *path;
    } files[] = {
        {&in->roots, IBR_GUID_LIST_PLAIN, "root_guid_file", o->root_guid_file},
        {&in->cns, IBR_GUID_LIST_PLAIN, "cn_guid_file", o->cn_guid_file},
        {&in->ios, IBR_GUID_LIST_PLAIN, "io_guid_file", o->io_guid_file},
        {&in->order, IBR_GUID_LIST_PLAIN, "guid_routing_order_file", o->guid_routing_order_file},
        {&in->ids, IBR_GUID_LIST_ID, "ids_guid_file", o->ids_guid_file},
        {&in->ignore, IBR_GUID_LIST_PORT, "port_prof_ignore_file", o->port_prof_ignore_file},
    };
    for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++)
        if ((rc = load_list(files[k].list, ctx, files[k].kind, files[k].what, files[k].path, msg,
                            msgcap)) < 0)
            return rc;
    /* the plain GUID lists, each into its two option fields */
    const struct {
        const ibr_guid_list *list;
        const uint64_t **guids;
        size_t *n;
    } plain[] = {
        {in->roots, &opts->root_guids, &opts->n_root_guids},
        {in->cns, &opts->cn_guids, &opts->n_cn_guids},
        {in->ios, &opts->io_guids, &opts->n_io_guids},
        {in->order, &opts->guid_routing_order, &opts->n_guid_routing_order},
    };
    for (size_t k = 0; k < sizeof(plain) / sizeof(plain[0]); k++)
        if (plain[k].list) {
            *plain[k].guids = ibr_guid_list_guids(plain[k].list);
            *plain[k].n = ibr_guid_list_count(plain[k].list);
        }
    if (in->ids) {
        opts->ids = ibr_guid_list_ids(in->ids);
        opts->n_ids = ibr_guid_list_count(in->ids);
    }
    if (in->ignore) {
        opts->ignore_ports = ibr_guid_list_ports(in->ignore);
        opts->n_ignore_ports = ibr_guid_list_count(in->ignore);
    }

    /* engine settings OpenSM has options for */
    if (!strcmp(eng, "updn") || !strcmp(eng, "dnup")) {
        if (o->connect_roots)
            add_int_param(in, !strcmp(eng, "updn") ? "updn.connect_roots"
                                                   : "dnup.connect_roots", 1);
    } else if (!strcmp(eng, "ftree")) {
        if (o->connect_roots)
            add_int_param(in, "ftree.connect_roots", 1);
        if (o->max_reverse_hops)
            add_int_param(in, "ftree.max_reverse_hops", o->max_reverse_hops);
    } else if (!strcmp(eng, "lash")) {
        if (o->lash_start_vl)
            add_int_param(in, "lash.start_vl", o->lash_start_vl);
        if (o->do_mesh_analysis)
            add_int_param(in, "lash.mesh_analysis", 1);
    } else if (!strcmp(eng, "nue")) {
        if (o->nue_max_num_vls)
            add_int_param(in, "nue.max_vls", o->nue_max_num_vls);
        if (o->avoid_throttled_links)
            add_int_param(in, "nue.avoid_throttled_links", 1);
    } else if (!strcmp(eng, "sssp") || !strcmp(eng, "dfsssp")) {
        if (o->avoid_throttled_links)
            add_int_param(in, !strcmp(eng, "sssp") ? "sssp.avoid_throttled_links"
                                                   : "dfsssp.avoid_throttled_links", 1);
    } else if (!strcmp(eng, "torus-2QoS")) {
        if ((rc = add_text_param(in, "torus-2QoS.config", "torus_config",
                                 o->torus_conf_file, msg, msgcap)) < 0)
            return rc;
    } else if (!strcmp(eng, "dor")) {
        if ((rc = add_text_param(in, "dor.port_search_ordering", "port_search_ordering_file",
                                 o->port_search_ordering_file, msg, msgcap)) < 0)
            return rc;
    } else if (!strcmp(eng, "file")) {
        if ((rc = add_text_param(in, "file.lfts", "lfts_file", o->lfts_file, msg,
                                 msgcap)) < 0 ||
            (rc = add_text_param(in, "file.lid_matrix", "lid_matrix_dump_file",
                                 o->lid_matrix_dump_file, msg, msgcap)) < 0)
            return rc;
    }
    opts->params = in->n_params ? in->params : NULL;
    opts->n_params = in->n_params;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The routing-engine hooks */

static const char *reroute_mode_name(int mode)
{
    switch (mode) {
    case IBR_REROUTE_UNCHANGED: return "unchanged";
    case IBR_REROUTE_CACHED: return "end ports moved";
    case IBR_REROUTE_INCREMENTAL: return "incremental repair";
    default: return "full reroute";
    }
}

/* Whether the switches still hold the last routing: OpenSM's current LFT
 * (what it set, as the switches answered) of every switch of that routing
 * still in the subnet equals ibroute's. Not when another engine of the
 * chain routed a sweep in between: repairing the kept routing would then
 * not spare blocks. Read before the sweep's routing replaces the tables. */
static int switches_hold_kept(const ibr_osm_engine *e, const osm_subn_t *subn)
{
    uint32_t s, ns;
    size_t size;

    if (!e->result || !e->topo)
        return 0;
    size = ibr_result_lft_size(e->result);
    ns = ibr_topo_switch_count(e->topo);
    for (s = 0; s < ns; s++) {
        uint32_t node = ibr_topo_switch_node(e->topo, s);
        const uint8_t *lft = ibr_result_lft(e->result, s);
        ibr_node_info info = IBR_NODE_INFO_INIT;
        osm_switch_t *sw;
        size_t lid, lim;

        if (node == IBR_NONE || !lft || ibr_topo_node_info(&info, e->topo, node) < 0)
            continue;
        /* by GUID: the OpenSM node of a switch gone since may be freed */
        sw = osm_get_switch_by_guid(subn, cl_hton64(info.node_guid));
        if (!sw || !sw->lft)
            continue;
        lim = size;
        if (lim > sw->lft_size)
            lim = sw->lft_size;
        if (lim > (size_t)sw->max_lid_ho + 1)
            lim = (size_t)sw->max_lid_ho + 1;
        for (lid = 1; lid < lim; lid++)
            if (sw->lft[lid] != (lft[lid] == IBR_NO_ROUTE ? OSM_NO_PATH : lft[lid]))
                return 0;
    }
    return 1;
}

/* Route topology t from the routing kept from the last sweep. Returns 0
 * with *out set (rep says whether the library repaired it or chose a full
 * reroute, and what changed), or 1 when this sweep routes from scratch,
 * msg saying why (no routing kept, the switches do not hold it: held 0,
 * too many changes, repair failed). */
static int repair_routing(ibr_osm_engine *e, ibr_result **out, ibr_reroute_report *rep,
                          const ibr_topo *t, const ibr_options *opts, int held, char *msg,
                          size_t msgcap)
{
    size_t changes = 0;
    int rc;

    *out = NULL;
    if (!e->db) {
        snprintf(msg, msgcap, "no routing kept from an earlier sweep");
        return 1;
    }
    if (!held) {
        snprintf(msg, msgcap, "the switches hold other tables than the kept routing");
        return 1;
    }
    rc = ibr_routing_db_compare(NULL, 0, &changes, e->db, t);
    if (rc < 0 && rc != IBR_ERANGE) {
        snprintf(msg, msgcap, "cannot compare the subnet with the kept routing: %s",
                 ibr_strerror(rc));
        return 1;
    }
    if (changes > IBR_OSM_REPAIR_MAX_CHANGES) {
        snprintf(msg, msgcap, "%zu changes since the kept routing (a repair takes at most %d)",
                 changes, IBR_OSM_REPAIR_MAX_CHANGES);
        return 1;
    }
    if ((rc = ibr_reroute_report_init(rep, IBR_REROUTE_REPORT_VERSION)) < 0 ||
        (rc = ibr_routing_db_route(out, rep, e->db, t, opts, 0)) < 0) {
        const char *why = *out ? ibr_result_last_error(*out) : "";

        snprintf(msg, msgcap, "the repair failed (%s)%s%s", ibr_status_name(rc),
                 why && *why ? ": " : "", why ? why : "");
        ibr_result_destroy(*out);
        *out = NULL;
        return 1;
    }
    return 0;
}

/* Log what a routing from the kept one changed. */
static void log_repair(const ibr_osm_engine *e, const ibr_result *r,
                       const ibr_reroute_report *rep, double secs)
{
    osm_log_t *log = &e->osm->log;

    OSM_LOG(log, OSM_LOG_INFO,
            "%s: ibroute %s from the kept routing: %s%s%s after %zu changes, in %.6f s\n",
            e->osm_name, ibr_result_engine(r), reroute_mode_name(rep->mode),
            *rep->reason ? ": " : "", rep->reason, rep->changes, secs);
    OSM_LOG(log, OSM_LOG_INFO,
            "%s: changed %" PRIu64 " LFT entries on %" PRIu32 " switches, %" PRIu64
            " LFT blocks (at most %" PRIu32 " on one switch; %" PRIu64 " crossed what was "
            "lost), %" PRIu64 " path SLs, %" PRIu64 " SL2VL tables; %" PRIu32
            " destination switches searched again\n",
            e->osm_name, rep->lft_entries_changed, rep->switches_changed,
            rep->lft_blocks_changed, rep->lft_blocks_max, rep->lft_blocks_over_lost,
            rep->sls_changed, rep->sl2vl_tables_changed, rep->destinations_rerouted);
    if (*rep->warning)
        OSM_LOG(log, OSM_LOG_INFO, "%s: %s\n", e->osm_name, rep->warning);
}

/* Keep routing r as the database the next sweep repairs. */
static void keep_routing(ibr_osm_engine *e, const ibr_result *r)
{
    ibr_routing_db *db = NULL;
    int rc = ibr_routing_db_from_result(&db, r);

    ibr_routing_db_destroy(e->db);
    e->db = rc < 0 ? NULL : db;
    if (rc < 0)
        OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
                "%s: cannot keep the routing for the next sweep (%s): it routes from "
                "scratch\n", e->osm_name, ibr_strerror(rc));
}

/* Route with ibroute, repairing the routing of the last sweep when the
 * subnet changed little. Returns 1 on success (OpenSM then builds its
 * min-hop matrices, which the SA's hop counts and multicast use), -1 when
 * ibroute declines or fails: OpenSM moves on along its chain. */
static int ibr_osm_build_lid_matrices(void *context)
{
    ibr_osm_engine *e = context;
    osm_opensm_t *osm = e->osm;
    osm_subn_t *subn = &osm->subn;
    ibr_options opts;
    osm_inputs in;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    ibr_result *r = NULL;
    ibr_topo *t = NULL;
    osm_node_t **nodes = NULL;
    uint32_t n = 0;
    char msg[512] = "";
    char chain[96];
    double t0, t1, t2;
    int rc, held;

    memset(&in, 0, sizeof(in));
    held = e->db && switches_hold_kept(e, subn);
    engine_forget(e);
    t0 = now_s();
    if ((rc = subnet_to_topo(&t, &nodes, &n, e->plugin->ctx, subn, msg, sizeof(msg))) < 0) {
        OSM_LOG(&osm->log, OSM_LOG_ERROR, "%s: %s\n", e->osm_name, msg);
        goto fail;
    }
    if ((rc = options_from_osm(&opts, &in, e->plugin->ctx, subn, e->ibr_name, msg,
                               sizeof(msg))) < 0) {
        OSM_LOG(&osm->log, OSM_LOG_ERROR, "%s: %s\n", e->osm_name,
                *msg ? msg : ibr_strerror(rc));
        goto fail;
    }
    t1 = now_s();
    if (repair_routing(e, &r, &rep, t, &opts, held, msg, sizeof(msg)) == 0) {
        t2 = now_s();
        log_repair(e, r, &rep, t2 - t1);
    } else {
        OSM_LOG(&osm->log, OSM_LOG_INFO, "%s: routing from scratch: %s\n", e->osm_name, msg);
        t1 = now_s();
        snprintf(chain, sizeof(chain), "%s,no_fallback", e->ibr_name);
        rc = ibr_route(&r, t, chain, &opts);
        t2 = now_s();
        if (rc < 0) {
            const char *why = r ? ibr_result_last_error(r) : "";
            const char *amsg = NULL;

            /* the engine's own reason, without the "no engine could route" */
            if (r && ibr_result_attempt_count(r) > 0)
                ibr_result_attempt(NULL, NULL, &amsg, r, 0);
            OSM_LOG(&osm->log, OSM_LOG_ERROR,
                    "%s: ibroute's %s declined (%s) after %.6f s: %s\n", e->osm_name,
                    e->ibr_name, ibr_status_name(rc), t2 - t1,
                    amsg && *amsg ? amsg : (why && *why ? why : ibr_strerror(rc)));
            goto fail;
        }
    }
    inputs_dispose(&in);
    keep_routing(e, r);
    e->topo = t;
    e->result = r;
    e->nodes = nodes;
    e->n_nodes = n;
    OSM_LOG(&osm->log, OSM_LOG_INFO,
            "%s: ibroute %s routed %" PRIu32 " switches, %" PRIu32 " end ports, max LID %u "
            "in %.6f s (subnet conversion %.6f s); %u VLs used of %u available\n",
            e->osm_name, ibr_result_engine(r), ibr_topo_switch_count(t),
            ibr_topo_endport_count(t), (unsigned)ibr_topo_max_lid(t), t2 - t1, t1 - t0,
            ibr_result_vls_used(r), opts.max_vls);
    return 1;

fail:
    /* the switches will hold another engine's tables: the next sweep that
     * reaches this engine routes from scratch */
    ibr_routing_db_destroy(e->db);
    e->db = NULL;
    inputs_dispose(&in);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    free(nodes);
    return -1;
}

/* Copy ibroute's tables into the new LFTs OpenSM prepared. */
static int ibr_osm_build_fwd_tables(void *context)
{
    ibr_osm_engine *e = context;
    osm_opensm_t *osm = e->osm;
    uint32_t s, ns;
    size_t size;

    if (!e->result) {
        OSM_LOG(&osm->log, OSM_LOG_ERROR, "%s: no routing to install\n", e->osm_name);
        return -1;
    }
    size = ibr_result_lft_size(e->result);
    ns = ibr_topo_switch_count(e->topo);
    for (s = 0; s < ns; s++) {
        uint32_t node = ibr_topo_switch_node(e->topo, s);
        const uint8_t *lft = ibr_result_lft(e->result, s);
        osm_switch_t *sw;
        size_t lid, lim;

        if (node == IBR_NONE || node >= e->n_nodes || !lft)
            continue;
        sw = e->nodes[node]->sw;
        if (!sw || !sw->new_lft) {
            OSM_LOG(&osm->log, OSM_LOG_ERROR, "%s: switch 0x%016" PRIx64 " has no LFT\n",
                    e->osm_name, cl_ntoh64(osm_node_get_node_guid(e->nodes[node])));
            return -1;
        }
        lim = size;
        if (lim > sw->lft_size)
            lim = sw->lft_size;
        if (lim > (size_t)sw->max_lid_ho + 1)
            lim = (size_t)sw->max_lid_ho + 1;
        for (lid = 1; lid < lim; lid++)
            sw->new_lft[lid] = lft[lid] == IBR_NO_ROUTE ? OSM_NO_PATH : lft[lid];
    }
    return 0;
}

static uint8_t ibr_osm_path_sl(void *context, uint8_t hint, const ib_net16_t slid,
                               const ib_net16_t dlid)
{
    ibr_osm_engine *e = context;

    if (!e->result || ibr_result_sl_mode(e->result) == IBR_SL_NONE)
        return hint;
    return (uint8_t)ibr_result_path_sl(e->result, cl_ntoh16(slid), cl_ntoh16(dlid));
}

/* SL2VL of a switch port pair from ibroute's tables; end ports keep the
 * table OpenSM's QoS configuration gave them. */
static void ibr_osm_update_sl2vl(void *context, osm_physp_t *port, uint8_t in_port,
                                 uint8_t out_port, ib_slvl_table_t *tbl)
{
    ibr_osm_engine *e = context;
    uint32_t node, sw;
    uint8_t map[16];
    unsigned int sl;

    if (!e->result || !ibr_result_has_sl2vl(e->result) || !port || !port->p_node ||
        osm_node_get_type(port->p_node) != IB_NODE_TYPE_SWITCH)
        return;
    if (ibr_topo_find_guid(&node, NULL, e->topo,
                           cl_ntoh64(osm_node_get_node_guid(port->p_node))) < 0)
        return;
    sw = ibr_topo_node_switch(e->topo, node);
    if (sw == IBR_NONE ||
        ibr_result_sl2vl(map, e->result, sw, in_port, out_port) < 0)
        return;
    for (sl = 0; sl < 16; sl++)
        ib_slvl_table_set(tbl, (uint8_t)sl, map[sl]);
}

static void ibr_osm_destroy(void *context)
{
    ibr_osm_engine *e = context;

    if (!e)
        return;
    engine_forget(e);
    ibr_routing_db_destroy(e->db);
    free(e);
}

/* Called by OpenSM for each "ibr-<name>" of its routing_engine list. */
static int ibr_osm_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
    ibr_osm_plugin *p = re->context;
    ibr_osm_engine *e;
    const char *name = re->name;

    if (!p || !name || strncmp(name, IBR_OSM_PREFIX, strlen(IBR_OSM_PREFIX)))
        return -1;
    e = calloc(1, sizeof(*e));
    if (!e)
        return -1;
    e->osm = osm;
    e->plugin = p;
    snprintf(e->ibr_name, sizeof(e->ibr_name), "%s", name + strlen(IBR_OSM_PREFIX));
    snprintf(e->osm_name, sizeof(e->osm_name), "%s", name);
    re->context = e;
    re->build_lid_matrices = ibr_osm_build_lid_matrices;
    re->ucast_build_fwd_tables = ibr_osm_build_fwd_tables;
    re->path_sl = ibr_osm_path_sl;
    re->update_sl2vl = ibr_osm_update_sl2vl;
    re->destroy = ibr_osm_destroy;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The event plugin */

static void *ibr_osm_create(struct osm_opensm *osm)
{
    ibr_osm_plugin *p = calloc(1, sizeof(*p));
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    size_t i, n;
    unsigned int registered = 0;

    if (!p)
        return NULL;
    p->osm = osm;
    cfg.log = ibr_log_to_osm;
    cfg.log_user = p;
    cfg.log_level = IBR_LOG_INFO;
    if (ibr_context_create(&p->ctx, &cfg) < 0) {
        OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibroute: cannot create a context\n");
        free(p);
        return NULL;
    }
    n = ibr_context_engine_count(p->ctx);
    for (i = 0; i < n; i++) {
        ibr_engine_info info;
        external_routing_engine_module_t m;
        char name[80];

        if (ibr_context_engine(&info, p->ctx, i) < 0 || !info.builtin)
            continue;
        snprintf(name, sizeof(name), IBR_OSM_PREFIX "%s", info.name);
        m.name = name;
        m.setup = ibr_osm_setup;
        m.context = p;
        if (osm_register_external_routing_engine(osm, &m, p) != CL_SUCCESS) {
            OSM_LOG(&osm->log, OSM_LOG_ERROR,
                    "ibroute: cannot register routing engine '%s'\n", name);
            continue;
        }
        registered++;
    }
    OSM_LOG(&osm->log, OSM_LOG_VERBOSE,
            "ibroute %s: %u routing engines registered (ibr-<engine>)\n",
            ibr_version_string(), registered);
    return p;
}

static void ibr_osm_delete(void *data)
{
    ibr_osm_plugin *p = data;

    if (!p)
        return;
    ibr_context_destroy(p->ctx);
    free(p);
}

static void ibr_osm_report(void *data, osm_epi_event_id_t event_id, void *event_data)
{
    (void)data;
    (void)event_id;
    (void)event_data;
}

/* The symbol OpenSM looks up (OSM_EVENT_PLUGIN_IMPL_NAME). */
__attribute__((visibility("default"))) osm_event_plugin_t osm_event_plugin = {
    OSM_VERSION,
    ibr_osm_create,
    ibr_osm_delete,
    ibr_osm_report,
};
