/* The fabric builder: nodes, ports, links and LIDs. Every public call
   validates everything before changing anything, so a failure leaves the
   fabric as it was. */
#include <bsd/string.h>
#include <inttypes.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"

int ibr__fabric_err(ibr_fabric *f, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__verr(f->last_error, code, fmt, ap);
    va_end(ap);
    return code;
}

static int ok(ibr_fabric *f)
{
    f->last_error[0] = 0;
    return 0;
}

const char *ibr__type_name(int type)
{
    switch (type) {
    case IBR_NODE_SWITCH:
        return "switch";
    case IBR_NODE_CA:
        return "CA";
    case IBR_NODE_ROUTER:
        return "router";
    default:
        return "node";
    }
}

int ibr_fabric_create(ibr_fabric **out, ibr_context *ctx)
{
    if (!out)
        return IBR_EINVAL;
    *out = NULL;
    ibr_fabric *f = ibr__calloc(ctx, 1, sizeof *f);
    if (!f)
        return IBR_ENOMEM;
    f->ctx = ibr__ctx(ctx);
    *out = f;
    return 0;
}

void ibr_fabric_destroy(ibr_fabric *f)
{
    if (!f)
        return;
    ibr_context *ctx = f->ctx;
    ibr__free(ctx, f->nodes);
    ibr__free(ctx, f->ports);
    ibr__free(ctx, f->lid_owner);
    ibr__guidmap_free(ctx, &f->node_guids);
    ibr__guidmap_free(ctx, &f->port_guids);
    ibr__free(ctx, f);
}

const char *ibr_fabric_last_error(const ibr_fabric *f)
{
    return f ? f->last_error : "";
}

uint32_t ibr_fabric_node_count(const ibr_fabric *f)
{
    return f ? (uint32_t)f->n_nodes : 0;
}

/* Check node index and port number; port 0 allowed only when allow0. */
static int check_port(ibr_fabric *f, uint32_t node, unsigned port, int allow0)
{
    if (node >= f->n_nodes)
        return ibr__fabric_err(f, IBR_ENOTFOUND,
                               IBR__MSG("FB001", "node %" PRIu32 ": no such node (fabric has %zu)"),
                               node, f->n_nodes);
    const ibr__node *n = &f->nodes[node];
    if ((!allow0 && port == 0) || port > n->nports)
        return ibr__fabric_err(
            f, IBR_ERANGE,
            IBR__MSG("FB002", "%s 0x%016" PRIx64 " port %u: port out of range (%s has %u)"),
            ibr__type_name(n->type), n->guid, port, ibr__type_name(n->type), (unsigned)n->nports);
    return 0;
}

static ibr__port *port_of(ibr_fabric *f, uint32_t node, unsigned port)
{
    return &f->ports[f->nodes[node].port_off + port];
}

int ibr_fabric_add_node(uint32_t *out, ibr_fabric *f, ibr_node_type type, uint64_t node_guid,
                        unsigned int nports, const char *desc)
{
    if (!f)
        return IBR_EINVAL;
    if (type != IBR_NODE_SWITCH && type != IBR_NODE_CA && type != IBR_NODE_ROUTER)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("FB003", "node 0x%016" PRIx64 ": bad node type %d"),
                               node_guid, (int)type);
    if (!node_guid)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("FB004", "%s: node GUID 0 is not allowed"),
                               ibr__type_name(type));
    if (nports < 1 || nports > IBR_MAX_PORTS)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("FB005", "%s 0x%016" PRIx64 ": %u ports (must be 1..%d)"),
                               ibr__type_name(type), node_guid, nports, IBR_MAX_PORTS);
    if (f->n_nodes >= (size_t)INT32_MAX)
        return ibr__fabric_err(f, IBR_ERANGE, IBR__MSG("FB006", "too many nodes"));
    if (ibr__guidmap_get(&f->node_guids, node_guid) != IBR_NONE)
        return ibr__fabric_err(f, IBR_EEXIST,
                               IBR__MSG("FB007", "%s 0x%016" PRIx64 ": duplicate node GUID"),
                               ibr__type_name(type), node_guid);
    /* port GUIDs this node will put in the map */
    unsigned first = type == IBR_NODE_SWITCH ? 0 : 1;
    unsigned last = type == IBR_NODE_SWITCH ? 0 : nports;
    for (unsigned p = first; p <= last; p++) {
        uint64_t pg = type == IBR_NODE_SWITCH ? node_guid : node_guid + p;
        if (ibr__guidmap_get(&f->port_guids, pg) != IBR_NONE)
            return ibr__fabric_err(
                f, IBR_EEXIST,
                IBR__MSG("FB008", "%s 0x%016" PRIx64 " port %u: duplicate port GUID 0x%016" PRIx64),
                ibr__type_name(type), node_guid, p, pg);
    }
    /* reserve everything before changing anything */
    ibr_context *ctx = f->ctx;
    if (ibr__grow(ctx, (void **)&f->nodes, &f->cap_nodes, f->n_nodes + 1, sizeof *f->nodes) < 0 ||
        ibr__grow(ctx, (void **)&f->ports, &f->cap_ports, f->n_ports + nports + 1,
                  sizeof *f->ports) < 0 ||
        ibr__guidmap_reserve(ctx, &f->node_guids, f->node_guids.n + 1) < 0 ||
        ibr__guidmap_reserve(ctx, &f->port_guids, f->port_guids.n + (last - first + 1)) < 0)
        return ibr__fabric_err(f, IBR_ENOMEM, "out of memory adding %s 0x%016" PRIx64,
                               ibr__type_name(type), node_guid);
    uint32_t idx = (uint32_t)f->n_nodes;
    ibr__node *n = &f->nodes[idx];
    memset(n, 0, sizeof *n);
    n->guid = node_guid;
    n->type = (uint8_t)type;
    n->nports = (uint8_t)nports;
    n->port_off = (uint32_t)f->n_ports;
    n->sw = IBR_NONE;
    strlcpy(n->desc, desc ? desc : "", sizeof n->desc);
    for (unsigned p = 0; p <= nports; p++) {
        ibr__port *pt = &f->ports[f->n_ports + p];
        memset(pt, 0, sizeof *pt);
        pt->guid = type == IBR_NODE_SWITCH ? node_guid : (p ? node_guid + p : 0);
        pt->remote_node = IBR_NONE;
    }
    /* cannot fail: space reserved above */
    ibr__guidmap_put(ctx, &f->node_guids, node_guid, idx);
    for (unsigned p = first; p <= last; p++)
        ibr__guidmap_put(ctx, &f->port_guids, f->ports[f->n_ports + p].guid,
                         (uint32_t)(f->n_ports + p));
    f->n_nodes++;
    f->n_ports += nports + 1;
    if (out)
        *out = idx;
    return ok(f);
}

int ibr_fabric_set_sysimg_guid(ibr_fabric *f, uint32_t node, uint64_t guid)
{
    if (!f)
        return IBR_EINVAL;
    int rc = check_port(f, node, 0, 1);
    if (rc < 0)
        return rc;
    f->nodes[node].sysimg = guid;
    return ok(f);
}

int ibr_fabric_set_port_guid(ibr_fabric *f, uint32_t node, unsigned int port, uint64_t guid)
{
    if (!f)
        return IBR_EINVAL;
    int rc = check_port(f, node, port, 1);
    if (rc < 0)
        return rc;
    ibr__node *n = &f->nodes[node];
    if (n->type == IBR_NODE_SWITCH && port != 0)
        return ibr__fabric_err(f, IBR_ERANGE,
                               IBR__MSG("FB009", "switch 0x%016" PRIx64
                                                 " port %u: a switch has one port GUID, set "
                                                 "it on port 0"),
                               n->guid, port);
    if (n->type != IBR_NODE_SWITCH && port == 0)
        return ibr__fabric_err(f, IBR_ERANGE,
                               IBR__MSG("FB010", "%s 0x%016" PRIx64 ": port 0 has no GUID"),
                               ibr__type_name(n->type), n->guid);
    if (!guid)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("FB011", "%s 0x%016" PRIx64 " port %u: port GUID 0"),
                               ibr__type_name(n->type), n->guid, port);
    uint32_t gp = n->port_off + port;
    uint32_t holder = ibr__guidmap_get(&f->port_guids, guid);
    if (holder != IBR_NONE && holder != gp)
        return ibr__fabric_err(
            f, IBR_EEXIST,
            IBR__MSG("FB008", "%s 0x%016" PRIx64 " port %u: duplicate port GUID 0x%016" PRIx64),
            ibr__type_name(n->type), n->guid, port, guid);
    if (holder == gp)
        return ok(f);
    if (ibr__guidmap_reserve(f->ctx, &f->port_guids, f->port_guids.n + 1) < 0)
        return ibr__fabric_err(f, IBR_ENOMEM, "out of memory");
    ibr__guidmap_del(&f->port_guids, f->ports[gp].guid);
    ibr__guidmap_put(f->ctx, &f->port_guids, guid, gp);
    if (n->type == IBR_NODE_SWITCH)
        for (unsigned p = 0; p <= n->nports; p++)
            f->ports[n->port_off + p].guid = guid;
    else
        f->ports[gp].guid = guid;
    return ok(f);
}

/* Sizes of the caller-filled structs per version (see IBR__VERSION_SIZE). */
static const size_t link_attr_size[] = {0, sizeof(ibr_link_attr)};
static const size_t node_info_size[] = {0, sizeof(ibr_node_info)};
static const size_t port_info_size[] = {0, offsetof(ibr_port_info, vl_cap),
                                        sizeof(ibr_port_info)};
static const size_t port_attr_size[] = {0, sizeof(ibr_port_attr)};

int ibr_link_attr_init(ibr_link_attr *attr, unsigned int version)
{
    static const ibr_link_attr def = IBR_LINK_ATTR_INIT;
    return ibr__versioned_init(attr, &def, IBR__VERSION_SIZE(link_attr_size, version), version);
}

int ibr_node_info_init(ibr_node_info *info, unsigned int version)
{
    static const ibr_node_info def = IBR_NODE_INFO_INIT;
    return ibr__versioned_init(info, &def, IBR__VERSION_SIZE(node_info_size, version), version);
}

int ibr_port_info_init(ibr_port_info *info, unsigned int version)
{
    static const ibr_port_info def = IBR_PORT_INFO_INIT;
    return ibr__versioned_init(info, &def, IBR__VERSION_SIZE(port_info_size, version), version);
}

int ibr_port_attr_init(ibr_port_attr *attr, unsigned int version)
{
    static const ibr_port_attr def = IBR_PORT_ATTR_INIT;
    return ibr__versioned_init(attr, &def, IBR__VERSION_SIZE(port_attr_size, version), version);
}

static int vl_count_ok(unsigned v)
{
    return v == 0 || v == 1 || v == 2 || v == 4 || v == 8 || v == 15;
}

int ibr_fabric_set_port_attr(ibr_fabric *f, uint32_t node, unsigned int port,
                             const ibr_port_attr *attr)
{
    ibr_port_attr a = IBR_PORT_ATTR_INIT;
    int rc;
    if (!f)
        return IBR_EINVAL;
    if (attr) {
        size_t size = IBR__VERSION_SIZE(port_attr_size, attr->version);
        if (!size)
            return ibr__fabric_err(
                f, IBR_EVERSION,
                IBR__MSG("FB012", "port attributes version %u (this library knows 1..%u)"),
                attr->version, IBR_PORT_ATTR_VERSION);
        memcpy(&a, attr, size);
    }
    if ((rc = check_port(f, node, port, 0)) < 0)
        return rc;
    const ibr__node *n = &f->nodes[node];
    if (!vl_count_ok(a.vl_cap) || !vl_count_ok(a.oper_vls))
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("FB013", "%s 0x%016" PRIx64 " port %u: %s %u (data VLs are 1, 2, 4, 8 or 15)"),
            ibr__type_name(n->type), n->guid, port, vl_count_ok(a.vl_cap) ? "oper_vls" : "vl_cap",
            vl_count_ok(a.vl_cap) ? a.oper_vls : a.vl_cap);
    unsigned cap = a.vl_cap ? a.vl_cap : IBR__DEFAULT_VL_CAP;
    if (a.oper_vls > cap)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("FB014", "%s 0x%016" PRIx64 " port %u: oper_vls %u above vl_cap %u"),
            ibr__type_name(n->type), n->guid, port, a.oper_vls, cap);
    if (a.width_enabled > 31)
        return ibr__fabric_err(
            f, IBR_EINVAL,
            IBR__MSG("FB015", "%s 0x%016" PRIx64 " port %u: enabled width mask 0x%x (max 0x1f)"),
            ibr__type_name(n->type), n->guid, port, a.width_enabled);
    unsigned speeds = IBR_SPEED_BIT(IBR_SPEED_XDR + 1) - IBR_SPEED_BIT(IBR_SPEED_SDR);
    if (a.speed_enabled & ~speeds)
        return ibr__fabric_err(f, IBR_EINVAL,
                               IBR__MSG("FB016", "%s 0x%016" PRIx64
                                                 " port %u: enabled speed mask 0x%x (bits "
                                                 "IBR_SPEED_BIT(SDR..XDR) = 0x%x)"),
                               ibr__type_name(n->type), n->guid, port, a.speed_enabled, speeds);
    ibr__port *pt = port_of(f, node, port);
    pt->vl_cap = (uint8_t)a.vl_cap;
    pt->oper_vls = (uint8_t)a.oper_vls;
    pt->width_en = (uint8_t)a.width_enabled;
    pt->speed_en = (uint16_t)a.speed_enabled;
    return ok(f);
}

void ibr__port_resolve(ibr__port *out, const ibr__node *nodes, const ibr__port *ports, uint32_t gp)
{
    const ibr__port *p = &ports[gp];
    *out = *p;
    out->vl_cap = p->vl_cap ? p->vl_cap : IBR__DEFAULT_VL_CAP;
    if (!p->oper_vls) {
        out->oper_vls = out->vl_cap;
        if (p->remote_node != IBR_NONE) {
            const ibr__port *r = &ports[nodes[p->remote_node].port_off + p->remote_port];
            unsigned rc = r->vl_cap ? r->vl_cap : IBR__DEFAULT_VL_CAP;
            if (rc < out->oper_vls)
                out->oper_vls = (uint8_t)rc;
        }
    }
    out->width_en = (uint8_t)(p->width_en | p->width);
    out->speed_en = (uint16_t)(p->speed_en | (p->speed ? IBR_SPEED_BIT(p->speed) : 0));
}

size_t ibr__node_info_size(unsigned int version)
{
    return IBR__VERSION_SIZE(node_info_size, version);
}

size_t ibr__port_info_size(unsigned int version)
{
    return IBR__VERSION_SIZE(port_info_size, version);
}

static int check_attr(ibr_fabric *f, const ibr_link_attr *a)
{
    switch (a->width) {
    case IBR_WIDTH_UNKNOWN:
    case IBR_WIDTH_1X:
    case IBR_WIDTH_4X:
    case IBR_WIDTH_8X:
    case IBR_WIDTH_12X:
    case IBR_WIDTH_2X:
        break;
    default:
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("FB017", "bad link width %d"),
                               (int)a->width);
    }
    if ((int)a->speed < IBR_SPEED_UNKNOWN || a->speed > IBR_SPEED_XDR)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("FB018", "bad link speed %d"),
                               (int)a->speed);
    if (a->state != IBR_LINK_ACTIVE && a->state != IBR_LINK_DOWN)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("FB019", "bad link state %d"),
                               (int)a->state);
    return 0;
}

/* A port that a new link may take: one not cabled yet (IBR_EBUSY). */
static int check_uncabled(ibr_fabric *f, uint32_t node, unsigned port)
{
    const ibr__node *n = &f->nodes[node];
    const ibr__port *pt = port_of(f, node, port);
    if (pt->remote_node == IBR_NONE)
        return 0;
    return ibr__fabric_err(f, IBR_EBUSY,
                           IBR__MSG("FB022", "%s 0x%016" PRIx64
                                             " port %u: port already connected to 0x%016" PRIx64
                                             " port %u"),
                           ibr__type_name(n->type), n->guid, port, f->nodes[pt->remote_node].guid,
                           (unsigned)pt->remote_port);
}

int ibr_fabric_add_link(ibr_fabric *f, uint32_t a, unsigned int pa, uint32_t b, unsigned int pb,
                        const ibr_link_attr *link)
{
    ibr_link_attr def = IBR_LINK_ATTR_INIT;
    int rc;
    if (!f)
        return IBR_EINVAL;
    if (link) {
        /* only the fields the caller's version has; defaults for the rest */
        size_t size = IBR__VERSION_SIZE(link_attr_size, link->version);
        if (!size)
            return ibr__fabric_err(
                f, IBR_EVERSION,
                IBR__MSG("FB020", "link attributes version %u (this library knows 1..%u)"),
                link->version, IBR_LINK_ATTR_VERSION);
        memcpy(&def, link, size);
    }
    const ibr_link_attr *attr = &def;
    if ((rc = check_port(f, a, pa, 0)) < 0 || (rc = check_port(f, b, pb, 0)) < 0)
        return rc;
    if ((rc = check_attr(f, attr)) < 0)
        return rc;
    const ibr__node *na = &f->nodes[a];
    if (a == b && pa == pb)
        return ibr__fabric_err(
            f, IBR_EINVAL, IBR__MSG("FB021", "%s 0x%016" PRIx64 " port %u: self-link to itself"),
            ibr__type_name(na->type), na->guid, pa);
    if ((rc = check_uncabled(f, a, pa)) < 0 || (rc = check_uncabled(f, b, pb)) < 0)
        return rc;
    ibr__port *x = port_of(f, a, pa), *y = port_of(f, b, pb);
    x->remote_node = b;
    x->remote_port = (uint8_t)pb;
    y->remote_node = a;
    y->remote_port = (uint8_t)pa;
    x->width = y->width = (uint8_t)attr->width;
    x->speed = y->speed = (uint8_t)attr->speed;
    x->state = y->state = (uint8_t)attr->state;
    return ok(f);
}

static int cabled_port(ibr_fabric *f, uint32_t node, unsigned port, ibr__port **pt)
{
    int rc = check_port(f, node, port, 0);
    if (rc < 0)
        return rc;
    *pt = port_of(f, node, port);
    if ((*pt)->remote_node == IBR_NONE)
        return ibr__fabric_err(f, IBR_ENOTFOUND,
                               IBR__MSG("FB023", "%s 0x%016" PRIx64 " port %u: port is not cabled"),
                               ibr__type_name(f->nodes[node].type), f->nodes[node].guid, port);
    return 0;
}

int ibr_fabric_remove_link(ibr_fabric *f, uint32_t node, unsigned int port)
{
    ibr__port *x;
    if (!f)
        return IBR_EINVAL;
    int rc = cabled_port(f, node, port, &x);
    if (rc < 0)
        return rc;
    ibr__port *y = port_of(f, x->remote_node, x->remote_port);
    y->remote_node = x->remote_node = IBR_NONE;
    y->remote_port = x->remote_port = 0;
    y->state = x->state = 0;
    return ok(f);
}

int ibr_fabric_set_link_state(ibr_fabric *f, uint32_t node, unsigned int port,
                              ibr_link_state state)
{
    ibr__port *x;
    if (!f)
        return IBR_EINVAL;
    int rc = cabled_port(f, node, port, &x);
    if (rc < 0)
        return rc;
    if (state != IBR_LINK_ACTIVE && state != IBR_LINK_DOWN)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("FB019", "bad link state %d"), (int)state);
    ibr__port *y = port_of(f, x->remote_node, x->remote_port);
    x->state = y->state = (uint8_t)state;
    return ok(f);
}

int ibr_fabric_set_node_state(ibr_fabric *f, uint32_t node, ibr_link_state state)
{
    if (!f)
        return IBR_EINVAL;
    int rc = check_port(f, node, 0, 1);
    if (rc < 0)
        return rc;
    if (state != IBR_LINK_ACTIVE && state != IBR_LINK_DOWN)
        return ibr__fabric_err(f, IBR_EINVAL, IBR__MSG("FB019", "bad link state %d"), (int)state);
    const ibr__node *n = &f->nodes[node];
    for (unsigned p = 1; p <= n->nports; p++) {
        ibr__port *x = port_of(f, node, p);
        if (x->remote_node == IBR_NONE)
            continue;
        x->state = (uint8_t)state;
        port_of(f, x->remote_node, x->remote_port)->state = (uint8_t)state;
    }
    return ok(f);
}

/* Port index -> node: a binary search over the port offsets. */
void ibr__port_owner(const ibr_fabric *f, uint32_t gp, uint32_t *node, unsigned *port)
{
    size_t lo = 0, hi = f->n_nodes;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f->nodes[mid].port_off <= gp)
            lo = mid;
        else
            hi = mid;
    }
    *node = (uint32_t)lo;
    *port = gp - f->nodes[lo].port_off;
}

int ibr_fabric_find_guid(uint32_t *out, unsigned int *port, const ibr_fabric *f, uint64_t guid)
{
    if (!f || !out)
        return IBR_EINVAL;
    uint32_t n = ibr__guidmap_get(&f->node_guids, guid);
    if (n != IBR_NONE) {
        *out = n;
        if (port)
            *port = f->nodes[n].type == IBR_NODE_SWITCH ? 0 : 1;
        return 0;
    }
    uint32_t gp = ibr__guidmap_get(&f->port_guids, guid);
    if (gp == IBR_NONE)
        return IBR_ENOTFOUND;
    unsigned p;
    ibr__port_owner(f, gp, out, &p);
    if (port)
        *port = p;
    return 0;
}

/* The descriptions are built in a zeroed struct, padding included, so that
   the caller's copy holds no stack garbage. */
void ibr__node_info(ibr_node_info *out, const ibr__node *n, const ibr__port *ports)
{
    ibr_node_info info;
    memset(&info, 0, sizeof info);
    info.version = out->version;
    info.type = (ibr_node_type)n->type;
    info.nports = n->nports;
    info.node_guid = n->guid;
    info.sysimg_guid = n->sysimg ? n->sysimg : n->guid;
    info.port0_guid = ports[n->port_off + (n->type == IBR_NODE_SWITCH ? 0 : 1)].guid;
    info.desc = n->desc;
    memcpy(out, &info, ibr__node_info_size(out->version));
}

void ibr__port_info(ibr_port_info *out, const ibr__port *p)
{
    ibr_port_info info;
    memset(&info, 0, sizeof info);
    info.version = out->version;
    info.guid = p->guid;
    info.lid = p->lid;
    info.lmc = p->lmc;
    info.state = p->state;
    info.remote_node = p->remote_node;
    info.remote_port = p->remote_port;
    info.width = (ibr_link_width)p->width;
    info.speed = (ibr_link_speed)p->speed;
    info.vl_cap = p->vl_cap;
    info.oper_vls = p->oper_vls;
    info.width_enabled = p->width_en;
    info.speed_enabled = p->speed_en;
    memcpy(out, &info, ibr__port_info_size(out->version));
}

int ibr_fabric_node_info(ibr_node_info *out, const ibr_fabric *f, uint32_t node)
{
    if (!f || !out)
        return IBR_EINVAL;
    if (!ibr__node_info_size(out->version))
        return IBR_EVERSION;
    if (node >= f->n_nodes)
        return IBR_ENOTFOUND;
    ibr__node_info(out, &f->nodes[node], f->ports);
    return 0;
}

int ibr_fabric_port_info(ibr_port_info *out, const ibr_fabric *f, uint32_t node, unsigned int port)
{
    if (!f || !out)
        return IBR_EINVAL;
    if (!ibr__port_info_size(out->version))
        return IBR_EVERSION;
    if (node >= f->n_nodes)
        return IBR_ENOTFOUND;
    if (port > f->nodes[node].nports)
        return IBR_ERANGE;
    ibr__port p;
    ibr__port_resolve(&p, f->nodes, f->ports, f->nodes[node].port_off + port);
    ibr__port_info(out, &p);
    return 0;
}

int ibr_fabric_clone(ibr_fabric **out, const ibr_fabric *f)
{
    if (!out || !f)
        return IBR_EINVAL;
    *out = NULL;
    ibr_context *ctx = f->ctx;
    ibr_fabric *c = ibr__calloc(ctx, 1, sizeof *c);
    if (!c)
        return IBR_ENOMEM;
    c->ctx = ctx;
    int rc = IBR_ENOMEM;
    if (f->n_nodes) {
        c->nodes = ibr__mallocarray(ctx, f->n_nodes, sizeof *c->nodes);
        c->ports = ibr__mallocarray(ctx, f->n_ports, sizeof *c->ports);
        if (!c->nodes || !c->ports)
            goto fail;
        memcpy(c->nodes, f->nodes, f->n_nodes * sizeof *c->nodes);
        memcpy(c->ports, f->ports, f->n_ports * sizeof *c->ports);
        c->n_nodes = c->cap_nodes = f->n_nodes;
        c->n_ports = c->cap_ports = f->n_ports;
    }
    if (f->lid_owner) {
        c->lid_owner = ibr__mallocarray(ctx, IBR_MAX_UNICAST_LID + 1, sizeof *c->lid_owner);
        if (!c->lid_owner)
            goto fail;
        memcpy(c->lid_owner, f->lid_owner, (IBR_MAX_UNICAST_LID + 1) * sizeof *c->lid_owner);
    }
    if (ibr__guidmap_reserve(ctx, &c->node_guids, f->node_guids.n) < 0 ||
        ibr__guidmap_reserve(ctx, &c->port_guids, f->port_guids.n) < 0)
        goto fail;
    for (size_t i = 0; i < f->node_guids.cap; i++)
        if (f->node_guids.keys[i])
            ibr__guidmap_put(ctx, &c->node_guids, f->node_guids.keys[i], f->node_guids.vals[i]);
    for (size_t i = 0; i < f->port_guids.cap; i++)
        if (f->port_guids.keys[i])
            ibr__guidmap_put(ctx, &c->port_guids, f->port_guids.keys[i], f->port_guids.vals[i]);
    *out = c;
    return 0;
fail:
    ibr_fabric_destroy(c);
    return rc;
}
