/*
 * Reading a topology from a link list: OpenSM's opensm-subnet.lst and
 * ibdiagnet's ibdiagnet2.lst (ibdiagnet.lst before version 2). Both print
 * one line per port with a cable, the port's half first and its peer's
 * second, so each link appears once from each end:
 *
 *   { SW Ports:24 SystemGUID:<hex16> NodeGUID:<hex16> PortGUID:<hex16>
 *     VenID:<hex> DevID:<hex> Rev:<hex> {<description>} LID:<hex> PN:<hex> }
 *   { CA Ports:02 ... PN:01 } PHY=4x LOG=ACT SPD=10
 *
 * (one line in the file). Every number is hexadecimal without a prefix:
 * Ports and PN too (a 36-port switch prints "Ports:24", its port 20
 * "PN:14"). The type is SW, CA or Rt, with "-SM" appended on the port the
 * subnet manager runs behind. A switch half carries the switch's LID (port
 * 0) and port GUID; a CA or router half its port's. PHY is the active
 * width (1x, 2x, 4x, 8x, 12x), LOG the logical state (DWN, INI, ARM, ACT),
 * SPD the lane speed in Gb/s (2.5, 5, 10, 14, 25, 50, 100, 200) or FDR10;
 * "??" stands for a value the writer did not know, and SPD may be missing
 * (older writers: SDR).
 *
 * A link in INIT or ARMED is one the subnet manager routes over (it routes
 * before it arms ports), so it reads as active; DWN reads as a down link.
 * VenID, DevID and Rev are checked for syntax and not kept. LMC is not in
 * the format: ports read with LMC 0 (a guid2lid file gives the real ranges).
 *
 * The fabric is built in a private fabric and handed over complete, so a
 * failure leaves the caller's fabric empty.
 */
#include <inttypes.h>
#include <string.h>

#include "core/internal.h"
#include "core/messages.h"
#include "formats/formats_int.h"
#include "formats/lex.h"
#include "ibroute/formats.h"

/* One half of a line: a port and its node. */
typedef struct lst_half {
    unsigned type;     /* ibr_node_type */
    unsigned nports;   /* Ports: */
    uint64_t sysimg;   /* SystemGUID: */
    uint64_t node;     /* NodeGUID: */
    uint64_t port;     /* PortGUID: */
    unsigned lid;      /* LID: */
    unsigned pn;       /* PN: */
    ibr__span desc;    /* the text between the braces */
} lst_half;

typedef struct lst_parser {
    ibr_fabric *f;       /* the private fabric being built */
    ibr_context *ctx;
    ibr__guidmap finals; /* port GUIDs the text gave (value unused) */
    uint64_t next_tmp;   /* temporary port GUIDs count down from here */
    uint32_t line;
    char msg[IBR_ERRMSG_SIZE];
} lst_parser;

static int lerr(lst_parser *ps, const char *fmt, ...) IBR_PRINTF(2, 3);

static int lerr(lst_parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(ps->msg, IBR_EPARSE, ps->line, fmt, ap);
    va_end(ap);
    return IBR_EPARSE;
}

/* A library call on the private fabric failed: its message, on this line. */
static int ferr(lst_parser *ps, int rc)
{
    return ibr__line_fabric_err(ps->msg, ps->line, rc, ps->f);
}

static const char *const half_name[2] = {"first", "second"};

/* "<name><hex>" after blanks: the hex number must end at a blank or the
   end of the line. */
static int hex_field(ibr__cur *c, const char *name, uint64_t max, uint64_t *out)
{
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_starts(c, name))
        return -1;
    ibr__cur k = *c;
    k.p += strlen(name);
    int n = ibr__cur_num_field(&k, IBR__NUM_HEX, max, NULL, out);
    if (n < 0 || n > 16)
        return -1;
    *c = k;
    return 0;
}

static int half_type(lst_parser *ps, ibr__cur *c, int which, lst_half *h)
{
    ibr__cur_skip_blanks(c);
    ibr__span w = ibr__cur_word(c);
    if (w.n > 3 && memcmp(w.p + w.n - 3, "-SM", 3) == 0)
        w.n -= 3;
    if (ibr__span_eq(w, "SW"))
        h->type = IBR_NODE_SWITCH;
    else if (ibr__span_eq(w, "CA"))
        h->type = IBR_NODE_CA;
    else if (ibr__span_eq(w, "Rt"))
        h->type = IBR_NODE_ROUTER;
    else
        return lerr(ps, IBR__MSG("LS002", "%s port: node type \"%s\" is not SW, CA or Rt"),
                    half_name[which], IBR__ESC(w));
    return 0;
}

/* The description in braces, or none (some writers leave it out). */
static int half_desc(lst_parser *ps, ibr__cur *c, int which, lst_half *h)
{
    ibr__cur_skip_blanks(c);
    h->desc.p = c->p;
    h->desc.n = 0;
    if (!ibr__cur_at(c, '{'))
        return 0;
    const char *end = ibr__cur_find(c, "} LID:");
    if (!end)
        return lerr(ps, IBR__MSG("LS004", "%s port: description without \"} LID:\" after it"),
                    half_name[which]);
    h->desc.p = c->p + 1;
    h->desc.n = (size_t)(end - c->p - 1);
    c->p = end + 1;
    return 0;
}

/* One half, "{ ... }", the cursor at its opening brace. */
static int parse_half(lst_parser *ps, ibr__cur *c, int which, lst_half *h)
{
    static const char *const names[] = {"Ports:", "SystemGUID:", "NodeGUID:", "PortGUID:",
                                        "VenID:", "DevID:", "Rev:"};
    static const uint64_t max[] = {254, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                                   UINT32_MAX, UINT32_MAX, UINT32_MAX};
    uint64_t v[7];
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_at(c, '{'))
        return lerr(ps, IBR__MSG("LS001", "expected \"{\" to open the %s port"), half_name[which]);
    c->p++;
    int rc = half_type(ps, c, which, h);
    for (unsigned k = 0; k < 7 && rc == 0; k++)
        if (hex_field(c, names[k], max[k], &v[k]) < 0)
            rc = lerr(ps, IBR__MSG("LS003", "%s port: expected \"%s<hex>\""), half_name[which],
                      names[k]);
    if (rc < 0 || (rc = half_desc(ps, c, which, h)) < 0)
        return rc;
    uint64_t lid, pn;
    if (hex_field(c, "LID:", 0xffff, &lid) < 0)
        return lerr(ps, IBR__MSG("LS003", "%s port: expected \"%s<hex>\""), half_name[which],
                    "LID:");
    if (hex_field(c, "PN:", 0xff, &pn) < 0)
        return lerr(ps, IBR__MSG("LS003", "%s port: expected \"%s<hex>\""), half_name[which],
                    "PN:");
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_at(c, '}'))
        return lerr(ps, IBR__MSG("LS005", "expected \"}\" to close the %s port"),
                    half_name[which]);
    c->p++;
    h->nports = (unsigned)v[0];
    h->sysimg = v[1];
    h->node = v[2];
    h->port = v[3];
    h->lid = (unsigned)lid;
    h->pn = (unsigned)pn;
    if (!h->nports || !h->node || !h->port)
        return lerr(ps, IBR__MSG("LS006", "%s port: zero port count, node GUID or port GUID"),
                    half_name[which]);
    if (!h->pn || h->pn > h->nports)
        return lerr(ps, IBR__MSG("LS007", "%s port: port %u of a node with %u ports"),
                    half_name[which], h->pn, h->nports);
    if (h->lid > 0xbfff)
        return lerr(ps, IBR__MSG("LS008", "%s port: LID 0x%04x is not a unicast LID"),
                    half_name[which], h->lid);
    return 0;
}

/* "<name><value>": which of the words the value is (-1: none). */
static int word_field(ibr__cur *c, const char *name, const char *const *words, unsigned n,
                      ibr__span *val)
{
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_starts(c, name))
        return -2;
    ibr__cur k = *c;
    k.p += strlen(name);
    *val = ibr__cur_token(&k);
    *c = k;
    for (unsigned i = 0; i < n; i++)
        if (ibr__span_eq(*val, words[i]))
            return (int)i;
    return -1;
}

/* PHY=, LOG=, SPD= after the two halves. */
static int parse_link(lst_parser *ps, ibr__cur *c, ibr_link_attr *a)
{
    static const char *const widths[] = {"1x", "4x", "8x", "12x", "2x", "??"};
    static const ibr_link_width wval[] = {IBR_WIDTH_1X, IBR_WIDTH_4X, IBR_WIDTH_8X,
                                          IBR_WIDTH_12X, IBR_WIDTH_2X, IBR_WIDTH_UNKNOWN};
    static const char *const states[] = {"ACT", "INI", "ARM", "DWN"};
    static const char *const speeds[] = {"2.5", "5", "10", "FDR10", "14",
                                         "25", "50", "100", "200", "??"};
    static const ibr_link_speed sval[] = {IBR_SPEED_SDR, IBR_SPEED_DDR, IBR_SPEED_QDR,
                                          IBR_SPEED_FDR10, IBR_SPEED_FDR, IBR_SPEED_EDR,
                                          IBR_SPEED_HDR, IBR_SPEED_NDR, IBR_SPEED_XDR,
                                          IBR_SPEED_UNKNOWN};
    ibr__span v;
    int k = word_field(c, "PHY=", widths, 6, &v);
    if (k < 0)
        return k == -2 ? lerr(ps, IBR__MSG("LS009", "expected \"PHY=<width>\" after the ports"))
                       : lerr(ps, IBR__MSG("LS010", "unknown width \"%s\""), IBR__ESC(v));
    a->width = wval[k];
    k = word_field(c, "LOG=", states, 4, &v);
    if (k < 0)
        return k == -2 ? lerr(ps, IBR__MSG("LS011", "expected \"LOG=<state>\" after PHY="))
                       : lerr(ps, IBR__MSG("LS012", "unknown link state \"%s\""), IBR__ESC(v));
    a->state = k == 3 ? IBR_LINK_DOWN : IBR_LINK_ACTIVE;
    a->speed = IBR_SPEED_SDR;
    ibr__cur_skip_blanks(c);
    if (ibr__cur_end(c))
        return 0;
    k = word_field(c, "SPD=", speeds, 10, &v);
    if (k < 0)
        return k == -2 ? lerr(ps, IBR__MSG("LS013", "expected \"SPD=<speed>\" or the end of "
                                                    "the line after LOG="))
                       : lerr(ps, IBR__MSG("LS014", "unknown speed \"%s\""), IBR__ESC(v));
    a->speed = sval[k];
    ibr__cur_skip_blanks(c);
    if (!ibr__cur_end(c))
        return lerr(ps, IBR__MSG("LS015", "junk \"%s\" after SPD="),
                    IBR__ESC(((ibr__span){c->p, (size_t)(c->e - c->p)})));
    return 0;
}

/*
 * Port GUIDs. The fabric gives a new node default port GUIDs (a switch its
 * node GUID, a CA's or router's ports node GUID + port) and those may be
 * GUIDs the text gives other ports: ConnectX-4 and later show each port as
 * a CA of its own whose port GUID is its node GUID, with consecutive node
 * GUIDs. A port holding a GUID only by default is moved to a temporary GUID
 * (counting down from 2^64 - 1, skipping GUIDs in use or given by the text)
 * when that GUID is needed; a port whose link the text never shows may keep
 * a temporary GUID (the format gives none for it).
 */
static int move_aside(lst_parser *ps, uint64_t g, uint32_t *node, unsigned *port)
{
    int rc = ibr__port_move_aside(ps->f, &ps->finals, &ps->next_tmp, g, node, port);
    return rc < 0 ? ferr(ps, rc) : 0;
}

/* Add the node of a half: ports holding its default GUIDs step aside for
   the call and take them back after, the new node's ports moving to
   temporary GUIDs instead. */
static int add_node(lst_parser *ps, const lst_half *h, const char *desc, uint32_t *out)
{
    unsigned p0 = h->type == IBR_NODE_SWITCH ? 0 : 1;
    unsigned p1 = h->type == IBR_NODE_SWITCH ? 0 : h->nports;
    uint32_t held[255];
    unsigned held_port[255];
    int rc = 0;
    for (unsigned p = p0; p <= p1 && rc == 0; p++)
        rc = move_aside(ps, h->type == IBR_NODE_SWITCH ? h->node : h->node + p, &held[p],
                        &held_port[p]);
    if (rc == 0 && (rc = ibr_fabric_add_node(out, ps->f, (ibr_node_type)h->type, h->node,
                                             h->nports, desc)) < 0)
        return ferr(ps, rc);
    for (unsigned p = p0; p <= p1 && rc == 0; p++) {
        if (held[p] == IBR_NONE)
            continue;
        uint64_t g = h->type == IBR_NODE_SWITCH ? h->node : h->node + p;
        if ((rc = ibr_fabric_set_port_guid(ps->f, *out, p, ibr__temp_port_guid(ps->f, &ps->finals, &ps->next_tmp))) < 0 ||
            (rc = ibr_fabric_set_port_guid(ps->f, held[p], held_port[p], g)) < 0)
            return ferr(ps, rc);
    }
    return rc;
}

/* The node of a half, added on first sight, checked against it after. */
static int half_node(lst_parser *ps, const lst_half *h, int which, uint32_t *out)
{
    unsigned port;
    int rc;
    if (ibr_fabric_find_guid(out, &port, ps->f, h->node) == 0) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if ((rc = ibr_fabric_node_info(&ni, ps->f, *out)) < 0)
            return ferr(ps, rc);
        if (ni.node_guid != h->node)
            return lerr(ps, IBR__MSG("LS016", "%s port: node GUID 0x%016" PRIx64
                                              " is a port GUID of another node"),
                        half_name[which], h->node);
        if (ni.type != h->type || ni.nports != h->nports)
            return lerr(ps, IBR__MSG("LS017", "%s port: node 0x%016" PRIx64 " was a %s with %u "
                                              "ports before, here a %s with %u"),
                        half_name[which], h->node, ibr__type_name(ni.type), ni.nports,
                        ibr__type_name(h->type), h->nports);
        return 0;
    }
    char desc[IBR_DESC_SIZE];
    size_t n = h->desc.n < IBR_DESC_SIZE - 1 ? h->desc.n : IBR_DESC_SIZE - 1;
    memcpy(desc, h->desc.p, n);
    desc[n] = 0;
    if ((rc = add_node(ps, h, desc, out)) < 0)
        return rc;
    if (h->sysimg && (rc = ibr_fabric_set_sysimg_guid(ps->f, *out, h->sysimg)) < 0)
        return ferr(ps, rc);
    return 0;
}

/* The half's port GUID and LID, set on first sight, checked after. */
static int half_port(lst_parser *ps, const lst_half *h, int which, uint32_t node)
{
    unsigned p = h->type == IBR_NODE_SWITCH ? 0 : h->pn;
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    int rc = ibr_fabric_port_info(&pi, ps->f, node, p);
    if (rc < 0)
        return ferr(ps, rc);
    if (pi.guid != h->port) {
        uint32_t on;
        unsigned op;
        /* the node GUID of another node is not a port GUID here (the
           other order, a node GUID met after it is a port's, is LS016) */
        ibr_node_info oi = IBR_NODE_INFO_INIT;
        if (ibr_fabric_find_guid(&on, &op, ps->f, h->port) == 0 && on != node &&
            ibr_fabric_node_info(&oi, ps->f, on) == 0 && oi.node_guid == h->port)
            return lerr(ps, IBR__MSG("LS022", "%s port: port GUID 0x%016" PRIx64
                                              " is the node GUID of another node"),
                        half_name[which], h->port);
        /* a port holding the GUID by default steps aside; one the text
           gave it to keeps it (and the call below names the clash) */
        if (ibr__guidmap_get(&ps->finals, h->port) == IBR_NONE &&
            (rc = move_aside(ps, h->port, &on, &op)) < 0)
            return rc;
        if ((rc = ibr_fabric_set_port_guid(ps->f, node, p, h->port)) < 0)
            return ferr(ps, rc);
    }
    if (ibr__guidmap_get(&ps->finals, h->port) == IBR_NONE &&
        (rc = ibr__guidmap_put(ps->ctx, &ps->finals, h->port, 0)) < 0)
        return ferr(ps, rc);
    if (pi.lid == h->lid)
        return 0;
    if (pi.lid)
        return lerr(ps, IBR__MSG("LS018", "%s port: LID 0x%04x of 0x%016" PRIx64 " port %u, "
                                          "0x%04x before"),
                    half_name[which], h->lid, h->node, h->pn, (unsigned)pi.lid);
    if ((rc = ibr_fabric_set_lid(ps->f, node, p, (uint16_t)h->lid, 0)) < 0)
        return ferr(ps, rc);
    return 0;
}

/* The cable between the halves: added on its first line; its second line
   (from the other end) must name the same ports and attributes. */
static int add_cable(lst_parser *ps, const lst_half *h, const uint32_t node[2],
                     const ibr_link_attr *a)
{
    ibr_port_info pi[2] = {IBR_PORT_INFO_INIT, IBR_PORT_INFO_INIT};
    int rc;
    for (int i = 0; i < 2; i++)
        if ((rc = ibr_fabric_port_info(&pi[i], ps->f, node[i], h[i].pn)) < 0)
            return ferr(ps, rc);
    if (pi[0].remote_node == IBR_NONE && pi[1].remote_node == IBR_NONE) {
        if ((rc = ibr_fabric_add_link(ps->f, node[0], h[0].pn, node[1], h[1].pn, a)) < 0)
            return ferr(ps, rc);
        return 0;
    }
    /* a port cabled to the other half has it cabled back: the ports
       cabled elsewhere are cabled to another port */
    for (int i = 0; i < 2; i++)
        if (pi[i].remote_node != IBR_NONE &&
            (pi[i].remote_node != node[1 - i] || pi[i].remote_port != h[1 - i].pn)) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            if (ibr_fabric_node_info(&ni, ps->f, pi[i].remote_node) < 0)
                return ferr(ps, IBR_EINVAL);
            return lerr(ps, IBR__MSG("LS019", "0x%016" PRIx64 " port %u is cabled to 0x%016" PRIx64
                                              " port %u by an earlier line"),
                        h[i].node, h[i].pn, ni.node_guid, pi[i].remote_port);
        }
    if (pi[0].width != a->width || pi[0].speed != a->speed || pi[0].state != (uint8_t)a->state)
        return lerr(ps, IBR__MSG("LS020", "link 0x%016" PRIx64 " port %u - 0x%016" PRIx64
                                          " port %u has other PHY, LOG or SPD than on its "
                                          "earlier line"),
                    h[0].node, h[0].pn, h[1].node, h[1].pn);
    return 0;
}

static int parse_line(lst_parser *ps, ibr__cur c)
{
    lst_half h[2];
    ibr_link_attr a = IBR_LINK_ATTR_INIT;
    uint32_t node[2];
    int rc;
    if ((rc = parse_half(ps, &c, 0, &h[0])) < 0 || (rc = parse_half(ps, &c, 1, &h[1])) < 0 ||
        (rc = parse_link(ps, &c, &a)) < 0)
        return rc;
    for (int i = 0; i < 2; i++)
        if ((rc = half_node(ps, &h[i], i, &node[i])) < 0 ||
            (rc = half_port(ps, &h[i], i, node[i])) < 0)
            return rc;
    return add_cable(ps, h, node, &a);
}

static int parse_text(lst_parser *ps, const char *buf, size_t len)
{
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    uint32_t lines = 0;
    int rc = 0;
    while (rc == 0 && ibr__lex_entry(&lx)) {
        ps->line = lx.line;
        rc = parse_line(ps, lx.c);
        lines++;
    }
    if (rc == 0 && lines == 0) {
        ps->line = 0;
        rc = lerr(ps, IBR__MSG("LS021", "no link line (\"{ SW Ports:... } { ... } PHY=... "
                                        "LOG=...\"): not a subnet.lst"));
    }
    return rc;
}

int ibr_fabric_parse_subnet_lst(ibr_fabric *f, const char *buf, size_t len)
{
    int rc = ibr__parse_into_check(f, buf, len);
    if (rc < 0)
        return rc;
    ibr_context *ctx = ibr__ctx(f->ctx);
    lst_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.ctx = ctx;
    ps.next_tmp = UINT64_MAX;
    rc = ibr_fabric_create(&ps.f, ctx);
    if (rc < 0)
        return ibr__fabric_err(f, rc, "out of memory");
    rc = parse_text(&ps, buf, len);
    if (rc == 0) {
        /* hand the content over; the private fabric takes f's empty one */
        struct ibr_fabric swap = *f;
        *f = *ps.f;
        *ps.f = swap;
        f->ctx = swap.ctx;
        ps.f->ctx = ctx;
        f->last_error[0] = 0;
    }
    ibr_fabric_destroy(ps.f);
    ibr__guidmap_free(ctx, &ps.finals);
    if (rc < 0)
        return ibr__fabric_err(f, rc, "%s", ps.msg);
    return 0;
}
