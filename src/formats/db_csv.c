/*
 * Reading a topology from ibdiagnet's database file, ibdiagnet2.db_csv.
 * The file is a series of CSV tables, each framed by marker lines:
 *
 *   START_NODES
 *   NodeDesc,NumPorts,NodeType,ClassVersion,...,NodeGUID,PortGUID,...
 *   "leaf-1",36,2,1,...,0x0002c90300a1b2c0,0x0002c90300a1b2c0,...
 *   END_NODES
 *
 * (the header line names the columns, one row per line after it). The
 * tables read here are NODES (one row per node: NodeDesc, NumPorts,
 * NodeType 1 CA / 2 switch / 3 router, NodeGUID, and optionally
 * SystemImageGUID and the PortGUID of port LocalPortNum), PORTS (one row
 * per port: NodeGuid, PortNum, and optionally PortGuid, LID, LMC,
 * LinkWidthActv, LinkSpeedActv and PortState) and
 * LINKS (one row per cable: NodeGuid1, PortNum1, NodeGuid2, PortNum2).
 * ibdiagnet writes them in that order and the reader needs it: a port or
 * cable names a node of an earlier NODES row. Columns are found by name
 * (case-insensitively; other tools spell NodeGuid as NodeGUID), other
 * columns and every other table (PM_INFO, CABLE_INFO, ...) are skipped,
 * and '#' lines outside the tables are comments. GUIDs are "0x" hex,
 * other numbers decimal or "0x" hex; a quoted field may hold commas and
 * doubled quotes.
 *
 * A switch's LID and port GUID belong to its port 0: any of its PORTS rows
 * may give them (ibdiagnet repeats them on every port) and they must
 * agree. A cable takes its width and speed from its ports' LinkWidthActv
 * (the PortInfo encoding: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x) and
 * LinkSpeedActv (ibutils2's combined IBLinkSpeed: 1 SDR, 2 DDR, 4 QDR,
 * 0x100 FDR, 0x200 EDR, 0x400 HDR, 0x800 NDR, 0x10000 FDR10, 0x1000000
 * XDR), which must agree where both ends give them; 0 or an absent column
 * leaves 4x QDR. A cable with an end in PortState 1 (Down) reads as down;
 * Init, Armed and Active ends as active. Port GUIDs follow the text;
 * a port the text gives no GUID for keeps the fabric's default or, when
 * another port holds that, an unused one (as for ibr_fabric_parse_subnet_lst()).
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

#define DC_MAX_FIELDS 512

enum { SEC_NONE, SEC_SKIP, SEC_NODES, SEC_PORTS, SEC_LINKS };

/* Columns read, per table; COL_* index cols[] of the parser. */
enum {
    COL_DESC, COL_NPORTS, COL_TYPE, COL_NGUID, COL_SYSIMG, COL_PGUID, COL_LOCALPORT, /* NODES */
    COL_P_NGUID, COL_P_NUM, COL_P_PGUID, COL_P_LID, COL_P_LMC, COL_P_WIDTH, COL_P_SPEED,
    COL_P_STATE,                                                                     /* PORTS */
    COL_L_G1, COL_L_P1, COL_L_G2, COL_L_P2,                                          /* LINKS */
    COL_COUNT
};

static const char *const col_name[COL_COUNT] = {
    "NodeDesc", "NumPorts", "NodeType", "NodeGUID", "SystemImageGUID", "PortGUID", "LocalPortNum",
    "NodeGuid", "PortNum", "PortGuid", "LID", "LMC", "LinkWidthActv", "LinkSpeedActv", "PortState",
    "NodeGuid1", "PortNum1", "NodeGuid2", "PortNum2"};

/* Which columns a table must have: [first, required_end) of its range
   [first, end). */
static const struct {
    const char *name;
    int sec;
    unsigned first, required_end, end;
} tables[] = {
    {"NODES", SEC_NODES, COL_DESC, COL_SYSIMG, COL_P_NGUID},
    {"PORTS", SEC_PORTS, COL_P_NGUID, COL_P_PGUID, COL_L_G1},
    {"LINKS", SEC_LINKS, COL_L_G1, COL_COUNT, COL_COUNT},
};

typedef struct dc_parser {
    ibr_fabric *f;       /* the private fabric being built */
    ibr_context *ctx;
    ibr__guidmap finals; /* port GUIDs the text gave (value unused) */
    ibr__guidmap pattr;  /* by port_key(): width, speed, state of PORTS */
    uint64_t next_tmp;   /* temporary port GUIDs count down from here */
    uint32_t line;
    int sec;             /* SEC_* of the open table */
    int table;           /* its index in tables[], -1 for a skipped one */
    ibr__span sec_name;  /* the open table's name */
    uint32_t sec_line;   /* its START_ line */
    bool have_header;
    bool seen_nodes;
    unsigned nfields;    /* the header's field count */
    int cols[COL_COUNT]; /* field index of each column read, -1 if absent */
    ibr__span field[DC_MAX_FIELDS];
    char msg[IBR_ERRMSG_SIZE];
} dc_parser;

static int derr(dc_parser *ps, const char *fmt, ...) IBR_PRINTF(2, 3);

static int derr(dc_parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__line_verr(ps->msg, IBR_EPARSE, ps->line, fmt, ap);
    va_end(ap);
    return IBR_EPARSE;
}

/* A library call on the private fabric failed: its message, on this line. */
static int ferr(dc_parser *ps, int rc)
{
    return ibr__line_fabric_err(ps->msg, ps->line, rc, ps->f);
}

static bool span_ieq(ibr__span s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char a = s.p[i], b = lit[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return false;
    }
    return true;
}

static ibr__span trim(const char *p, const char *e)
{
    while (p < e && ibr__is_blank(*p))
        p++;
    while (e > p && ibr__is_blank(e[-1]))
        e--;
    return (ibr__span){p, (size_t)(e - p)};
}

/* Split the line into ps->field; a quoted field's span is its inside
   (doubled quotes left doubled). Returns the field count or an error. */
static int split(dc_parser *ps, ibr__cur c)
{
    unsigned n = 0;
    const char *p = c.p;
    for (;;) {
        if (n == DC_MAX_FIELDS)
            return derr(ps, IBR__MSG("DC001", "more than %d fields"), DC_MAX_FIELDS);
        ibr__span s = trim(p, p);
        while (p < c.e && ibr__is_blank(*p))
            p++;
        if (p < c.e && *p == '"') {
            const char *q = ++p;
            while (q < c.e && !(*q == '"' && (q + 1 == c.e || q[1] != '"')))
                q += *q == '"' ? 2 : 1;
            if (q >= c.e)
                return derr(ps, IBR__MSG("DC002", "field %u: quote not closed"), n + 1);
            s = (ibr__span){p, (size_t)(q - p)};
            p = q + 1;
            while (p < c.e && ibr__is_blank(*p))
                p++;
            if (p < c.e && *p != ',')
                return derr(ps, IBR__MSG("DC003", "field %u: text after the closing quote"),
                            n + 1);
        } else {
            const char *q = p;
            while (q < c.e && *q != ',')
                q++;
            s = trim(p, q);
            p = q;
        }
        ps->field[n++] = s;
        if (p >= c.e)
            return (int)n;
        p++; /* the comma */
    }
}

/* A marker line: START_<name> or END_<name>, nothing else on it. */
static bool marker(ibr__cur c, const char *kw, ibr__span *name)
{
    size_t k = strlen(kw);
    if ((size_t)(c.e - c.p) <= k || memcmp(c.p, kw, k) != 0)
        return false;
    for (const char *p = c.p + k; p < c.e; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || ibr__is_digit(*p) ||
              *p == '_'))
            return false;
    *name = (ibr__span){c.p + k, (size_t)(c.e - c.p - k)};
    return true;
}

static int open_table(dc_parser *ps, ibr__span name)
{
    if (ps->sec != SEC_NONE)
        return derr(ps, IBR__MSG("DC004", "START_%s inside table %s (no END_%s before it)"),
                    IBR__ESC(name), IBR__ESC(ps->sec_name), IBR__ESC(ps->sec_name));
    ps->sec = SEC_SKIP;
    ps->table = -1;
    for (int t = 0; t < 3; t++)
        if (ibr__span_eq(name, tables[t].name)) {
            ps->sec = tables[t].sec;
            ps->table = t;
        }
    ps->sec_name = name;
    ps->sec_line = ps->line;
    ps->have_header = false;
    if (ps->sec == SEC_NODES)
        ps->seen_nodes = true;
    return 0;
}

static int close_table(dc_parser *ps, ibr__span name)
{
    if (ps->sec == SEC_NONE)
        return derr(ps, IBR__MSG("DC005", "END_%s outside a table"), IBR__ESC(name));
    if (name.n != ps->sec_name.n || memcmp(name.p, ps->sec_name.p, name.n) != 0)
        return derr(ps, IBR__MSG("DC006", "END_%s closes table %s (START_%s on line %" PRIu32 ")"),
                    IBR__ESC(name), IBR__ESC(ps->sec_name), IBR__ESC(ps->sec_name),
                    ps->sec_line);
    if (ps->sec != SEC_SKIP && !ps->have_header)
        return derr(ps, IBR__MSG("DC007", "table %s has no header line"), IBR__ESC(name));
    ps->sec = SEC_NONE;
    return 0;
}

static int read_header(dc_parser *ps, int n)
{
    unsigned first = tables[ps->table].first, req = tables[ps->table].required_end;
    unsigned end = tables[ps->table].end;
    for (unsigned k = first; k < end; k++) {
        ps->cols[k] = -1;
        for (int i = 0; i < n; i++)
            if (span_ieq(ps->field[i], col_name[k]) && ps->cols[k] < 0)
                ps->cols[k] = i;
        if (k < req && ps->cols[k] < 0)
            return derr(ps, IBR__MSG("DC008", "table %s: the header has no column %s"),
                        tables[ps->table].name, col_name[k]);
    }
    ps->nfields = (unsigned)n;
    ps->have_header = true;
    return 0;
}

/* Column k's value as a number; absent columns read as 0 (*out) and 1. */
static int num(dc_parser *ps, unsigned k, bool guid, uint64_t max, uint64_t *out)
{
    *out = 0;
    if (ps->cols[k] < 0)
        return 1;
    ibr__span s = ps->field[ps->cols[k]];
    bool hex = s.n > 2 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X');
    if ((guid && !hex) ||
        ibr__span_num(s, guid ? IBR__NUM_0X : IBR__NUM_DEC | IBR__NUM_0X, max, out) < 0)
        return derr(ps, IBR__MSG("DC009", "%s: bad %s \"%s\""), tables[ps->table].name,
                    col_name[k], IBR__ESC(s));
    if (guid && !*out)
        return derr(ps, IBR__MSG("DC010", "%s: %s is zero"), tables[ps->table].name, col_name[k]);
    return 0;
}

/* Move the port holding GUID g, if any, to a temporary GUID. */
static int move_aside(dc_parser *ps, uint64_t g, uint32_t *node, unsigned *port)
{
    int rc = ibr__port_move_aside(ps->f, &ps->finals, &ps->next_tmp, g, node, port);
    return rc < 0 ? ferr(ps, rc) : 0;
}

/* Give port p of node its GUID g from the text. */
static int set_guid(dc_parser *ps, uint32_t node, unsigned p, uint64_t g)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    uint32_t on;
    unsigned op;
    int rc = ibr_fabric_port_info(&pi, ps->f, node, p);
    if (rc < 0)
        return ferr(ps, rc);
    if (pi.guid != g) {
        if (ibr__guidmap_get(&ps->finals, g) == IBR_NONE && (rc = move_aside(ps, g, &on, &op)) < 0)
            return rc;
        if ((rc = ibr_fabric_set_port_guid(ps->f, node, p, g)) < 0)
            return ferr(ps, rc);
    }
    if (ibr__guidmap_get(&ps->finals, g) == IBR_NONE &&
        (rc = ibr__guidmap_put(ps->ctx, &ps->finals, g, 0)) < 0)
        return ferr(ps, rc);
    return 0;
}

/* Add a node; ports holding its default GUIDs step aside for the call and
   take them back after, the new node's ports moving to temporary GUIDs. */
static int add_node(dc_parser *ps, ibr_node_type type, uint64_t guid, unsigned nports,
                    const char *desc, uint32_t *out)
{
    unsigned p0 = type == IBR_NODE_SWITCH ? 0 : 1;
    unsigned p1 = type == IBR_NODE_SWITCH ? 0 : nports;
    uint32_t held[256];
    unsigned held_port[256];
    int rc = 0;
    for (unsigned p = p0; p <= p1 && rc == 0; p++)
        rc = move_aside(ps, type == IBR_NODE_SWITCH ? guid : guid + p, &held[p], &held_port[p]);
    if (rc == 0 && (rc = ibr_fabric_add_node(out, ps->f, type, guid, nports, desc)) < 0)
        return ferr(ps, rc);
    for (unsigned p = p0; p <= p1 && rc == 0; p++) {
        if (held[p] == IBR_NONE)
            continue;
        uint64_t g = type == IBR_NODE_SWITCH ? guid : guid + p;
        if ((rc = ibr_fabric_set_port_guid(ps->f, *out, p, ibr__temp_port_guid(ps->f, &ps->finals, &ps->next_tmp))) < 0 ||
            (rc = ibr_fabric_set_port_guid(ps->f, held[p], held_port[p], g)) < 0)
            return ferr(ps, rc);
    }
    return rc;
}

/* The description: the field with doubled quotes undoubled, cut to fit. */
static void copy_desc(char *desc, ibr__span s)
{
    size_t o = 0;
    for (size_t i = 0; i < s.n && o < IBR_DESC_SIZE - 1; i++) {
        desc[o++] = s.p[i];
        if (s.p[i] == '"' && i + 1 < s.n && s.p[i + 1] == '"')
            i++;
    }
    desc[o] = 0;
}

static int node_row(dc_parser *ps)
{
    uint64_t np, type, guid, sysimg, pguid, lport;
    int rc;
    if ((rc = num(ps, COL_NPORTS, false, 255, &np)) < 0 ||
        (rc = num(ps, COL_TYPE, false, 255, &type)) < 0 ||
        (rc = num(ps, COL_NGUID, true, UINT64_MAX, &guid)) < 0 ||
        (rc = num(ps, COL_SYSIMG, true, UINT64_MAX, &sysimg)) < 0 ||
        (rc = num(ps, COL_PGUID, true, UINT64_MAX, &pguid)) < 0 ||
        (rc = num(ps, COL_LOCALPORT, false, 255, &lport)) < 0)
        return rc;
    static const int types[4] = {-1, IBR_NODE_CA, IBR_NODE_SWITCH, IBR_NODE_ROUTER};
    if (type < 1 || type > 3)
        return derr(ps, IBR__MSG("DC011", "NODES: node type %" PRIu64 " is not 1 (CA), 2 (switch) "
                                          "or 3 (router)"),
                    type);
    if (!np)
        return derr(ps, IBR__MSG("DC012", "NODES: node 0x%016" PRIx64 " has no ports"), guid);
    if (ibr__guidmap_get(&ps->f->node_guids, guid) != IBR_NONE)
        return derr(ps, IBR__MSG("DC013", "NODES: node 0x%016" PRIx64 " on an earlier row too"),
                    guid);
    char desc[IBR_DESC_SIZE];
    copy_desc(desc, ps->field[ps->cols[COL_DESC]]);
    uint32_t node;
    ibr_node_type t = (ibr_node_type)types[type];
    if ((rc = add_node(ps, t, guid, (unsigned)np, desc, &node)) < 0)
        return rc;
    if (sysimg && (rc = ibr_fabric_set_sysimg_guid(ps->f, node, sysimg)) < 0)
        return ferr(ps, rc);
    if (pguid) {
        unsigned p = t == IBR_NODE_SWITCH ? 0 : (unsigned)lport;
        if (p > np || (t != IBR_NODE_SWITCH && p == 0))
            return derr(ps, IBR__MSG("DC014", "port %u of node 0x%016" PRIx64 " with %u ports"),
                        p, guid, (unsigned)np);
        return set_guid(ps, node, p, pguid);
    }
    return 0;
}

/* The node of GUID g, which an earlier NODES row must give. */
static int find_node(dc_parser *ps, uint64_t g, uint64_t port, uint32_t *node, ibr_node_info *ni)
{
    *node = ibr__guidmap_get(&ps->f->node_guids, g);
    if (*node == IBR_NONE)
        return derr(ps, IBR__MSG("DC015", "%s: node 0x%016" PRIx64 " is not on an earlier NODES "
                                          "row"),
                    tables[ps->table].name, g);
    int rc = ibr_fabric_node_info(ni, ps->f, *node);
    if (rc < 0)
        return ferr(ps, rc);
    if (port > ni->nports || (port == 0 && (ni->type != IBR_NODE_SWITCH || ps->sec == SEC_LINKS)))
        return derr(ps, IBR__MSG("DC014", "port %u of node 0x%016" PRIx64 " with %u ports"),
                    (unsigned)port, g, ni->nports);
    return 0;
}

/* The key of port p of node in ps->pattr (never 0). */
static uint64_t port_key(uint32_t node, unsigned p)
{
    return ((uint64_t)node + 1) << 8 | p;
}

/* LinkSpeedActv in ibutils2's combined encoding, as an ibr_link_speed;
   0 for none, -1 for a value that is not one speed. */
static int speed_of(uint64_t v)
{
    static const struct {
        uint32_t code;
        ibr_link_speed speed;
    } map[] = {{1, IBR_SPEED_SDR},      {2, IBR_SPEED_DDR},          {4, IBR_SPEED_QDR},
               {0x100, IBR_SPEED_FDR},  {0x200, IBR_SPEED_EDR},      {0x400, IBR_SPEED_HDR},
               {0x800, IBR_SPEED_NDR},  {0x10000, IBR_SPEED_FDR10}, {0x1000000, IBR_SPEED_XDR}};
    if (!v)
        return 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].code == v)
            return (int)map[i].speed;
    return -1;
}

/* The width, speed and state columns of a PORTS row into ps->pattr: width
   | speed << 8 | state << 16 | 1 << 24. */
static int port_attrs(dc_parser *ps, uint32_t node, unsigned p)
{
    uint64_t w, sp, st;
    int rc, speed;
    if ((rc = num(ps, COL_P_WIDTH, false, 255, &w)) < 0 ||
        (rc = num(ps, COL_P_SPEED, false, UINT32_MAX, &sp)) < 0 ||
        (rc = num(ps, COL_P_STATE, false, 255, &st)) < 0)
        return rc;
    if (w & (w - 1) || w > IBR_WIDTH_2X)
        return derr(ps, IBR__MSG("DC023", "PORTS: %s %" PRIu64 " is not one %s"), "LinkWidthActv",
                    w, "link width");
    if ((speed = speed_of(sp)) < 0)
        return derr(ps, IBR__MSG("DC023", "PORTS: %s %" PRIu64 " is not one %s"), "LinkSpeedActv",
                    sp, "link speed");
    if (st > 4)
        return derr(ps, IBR__MSG("DC023", "PORTS: %s %" PRIu64 " is not one %s"), "PortState", st,
                    "port state");
    if (!w && !speed && !st)
        return 0;
    uint32_t v = (uint32_t)w | (uint32_t)speed << 8 | (uint32_t)st << 16 | 1u << 24;
    return (rc = ibr__guidmap_put(ps->ctx, &ps->pattr, port_key(node, p), v)) < 0 ? ferr(ps, rc)
                                                                                    : 0;
}

static int port_row(dc_parser *ps)
{
    uint64_t g, pn, pg, lid, lmc;
    uint32_t node;
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    int rc;
    if ((rc = num(ps, COL_P_NGUID, true, UINT64_MAX, &g)) < 0 ||
        (rc = num(ps, COL_P_NUM, false, 255, &pn)) < 0 ||
        (rc = num(ps, COL_P_PGUID, true, UINT64_MAX, &pg)) < 0 ||
        (rc = num(ps, COL_P_LID, false, 0xffff, &lid)) < 0 ||
        (rc = num(ps, COL_P_LMC, false, 7, &lmc)) < 0 ||
        (rc = find_node(ps, g, pn, &node, &ni)) < 0 ||
        (rc = port_attrs(ps, node, (unsigned)pn)) < 0)
        return rc;
    unsigned p = ni.type == IBR_NODE_SWITCH ? 0 : (unsigned)pn;
    if (pg && (rc = set_guid(ps, node, p, pg)) < 0)
        return rc;
    if (!lid)
        return 0;
    if (lid > 0xbfff)
        return derr(ps, IBR__MSG("DC016", "PORTS: LID 0x%04x is not a unicast LID"),
                    (unsigned)lid);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if ((rc = ibr_fabric_port_info(&pi, ps->f, node, p)) < 0)
        return ferr(ps, rc);
    if (pi.lid == lid && pi.lmc == lmc)
        return 0;
    if (pi.lid)
        return derr(ps, IBR__MSG("DC017", "PORTS: LID %u LMC %u of 0x%016" PRIx64 " port %u, "
                                          "LID %u LMC %u on an earlier row"),
                    (unsigned)lid, (unsigned)lmc, g, p, (unsigned)pi.lid, (unsigned)pi.lmc);
    if ((rc = ibr_fabric_set_lid(ps->f, node, p, (uint16_t)lid, (uint8_t)lmc)) < 0)
        return ferr(ps, rc);
    return 0;
}

/* The cable's width, speed and state from its ends' PORTS rows: a width or
   speed given at both ends must agree; an end in state Down takes the
   cable down. */
static int link_attrs(dc_parser *ps, const uint32_t node[2], const uint64_t pn[2],
                      const uint64_t g[2], ibr_link_attr *a)
{
    unsigned w = 0, sp = 0;
    for (int i = 0; i < 2; i++) {
        uint32_t v = ibr__guidmap_get(&ps->pattr, port_key(node[i], (unsigned)pn[i]));
        if (v == IBR_NONE)
            continue;
        unsigned wi = v & 0xff, si = v >> 8 & 0xff;
        if ((wi && w && wi != w) || (si && sp && si != sp))
            return derr(ps, IBR__MSG("DC024", "LINKS: 0x%016" PRIx64 " port %u and 0x%016" PRIx64
                                              " port %u have other %s in PORTS"),
                        g[0], (unsigned)pn[0], g[1], (unsigned)pn[1],
                        wi && w && wi != w ? "widths" : "speeds");
        w = wi ? wi : w;
        sp = si ? si : sp;
        if ((v >> 16 & 0xff) == 1)
            a->state = IBR_LINK_DOWN;
    }
    if (w)
        a->width = (ibr_link_width)w;
    if (sp)
        a->speed = (ibr_link_speed)sp;
    return 0;
}

static int link_row(dc_parser *ps)
{
    uint64_t g[2], pn[2];
    uint32_t node[2];
    ibr_node_info ni[2] = {IBR_NODE_INFO_INIT, IBR_NODE_INFO_INIT};
    ibr_port_info pi[2] = {IBR_PORT_INFO_INIT, IBR_PORT_INFO_INIT};
    int rc;
    for (int i = 0; i < 2; i++)
        if ((rc = num(ps, COL_L_G1 + 2 * (unsigned)i, true, UINT64_MAX, &g[i])) < 0 ||
            (rc = num(ps, COL_L_P1 + 2 * (unsigned)i, false, 255, &pn[i])) < 0 ||
            (rc = find_node(ps, g[i], pn[i], &node[i], &ni[i])) < 0 ||
            (rc = ibr_fabric_port_info(&pi[i], ps->f, node[i], (unsigned)pn[i])) < 0)
            return rc < 0 && rc != IBR_EPARSE ? ferr(ps, rc) : rc;
    if (pi[0].remote_node == IBR_NONE && pi[1].remote_node == IBR_NONE) {
        ibr_link_attr a = IBR_LINK_ATTR_INIT;
        if ((rc = link_attrs(ps, node, pn, g, &a)) < 0)
            return rc;
        if ((rc = ibr_fabric_add_link(ps->f, node[0], (unsigned)pn[0], node[1], (unsigned)pn[1],
                                      &a)) < 0)
            return ferr(ps, rc);
        return 0;
    }
    /* the same cable again (from its other end) is fine */
    for (int i = 0; i < 2; i++)
        if (pi[i].remote_node != node[1 - i] || pi[i].remote_port != pn[1 - i]) {
            int k = pi[i].remote_node != IBR_NONE ? i : 1 - i;
            ibr_node_info ri = IBR_NODE_INFO_INIT;
            if ((rc = ibr_fabric_node_info(&ri, ps->f, pi[k].remote_node)) < 0)
                return ferr(ps, rc);
            return derr(ps, IBR__MSG("DC018", "LINKS: 0x%016" PRIx64 " port %u is cabled to "
                                              "0x%016" PRIx64 " port %u by an earlier row"),
                        g[k], (unsigned)pn[k], ri.node_guid, pi[k].remote_port);
        }
    return 0;
}

static int parse_line(dc_parser *ps, ibr__cur c)
{
    ibr__span name;
    if (marker(c, "START_", &name))
        return open_table(ps, name);
    if (marker(c, "END_", &name))
        return close_table(ps, name);
    if (ps->sec == SEC_NONE)
        return derr(ps, IBR__MSG("DC019", "text outside a table: \"%s\""),
                    IBR__ESC(((ibr__span){c.p, (size_t)(c.e - c.p)})));
    if (ps->sec == SEC_SKIP)
        return 0;
    int n = split(ps, c);
    if (n < 0)
        return n;
    if (!ps->have_header)
        return read_header(ps, n);
    if ((unsigned)n != ps->nfields)
        return derr(ps, IBR__MSG("DC020", "%s: %d fields, the header has %u"),
                    tables[ps->table].name, n, ps->nfields);
    switch (ps->sec) {
    case SEC_NODES: return node_row(ps);
    case SEC_PORTS: return port_row(ps);
    default: return link_row(ps);
    }
}

static int parse_text(dc_parser *ps, const char *buf, size_t len)
{
    ibr__lex lx;
    ibr__lex_init(&lx, buf, len);
    int rc = 0;
    /* '#' lines count as comments only outside the tables; inside, a
       field may start with '#' */
    while (rc == 0 && ibr__lex_line(&lx)) {
        if (ibr__cur_end(&lx.c) || (ps->sec == SEC_NONE && *lx.c.p == '#'))
            continue;
        ps->line = lx.line;
        rc = parse_line(ps, lx.c);
    }
    if (rc == 0 && ps->sec != SEC_NONE) {
        ps->line = ps->sec_line;
        rc = derr(ps, IBR__MSG("DC021", "table %s has no END_%s"), IBR__ESC(ps->sec_name),
                  IBR__ESC(ps->sec_name));
    }
    if (rc == 0 && !ps->seen_nodes) {
        ps->line = 0;
        rc = derr(ps, IBR__MSG("DC022", "no START_NODES table: not an ibdiagnet db_csv"));
    }
    return rc;
}

int ibr_fabric_parse_db_csv(ibr_fabric *f, const char *buf, size_t len)
{
    int rc = ibr__parse_into_check(f, buf, len);
    if (rc < 0)
        return rc;
    ibr_context *ctx = ibr__ctx(f->ctx);
    dc_parser *ps = ibr__calloc(ctx, 1, sizeof *ps);
    if (!ps)
        return ibr__fabric_err(f, IBR_ENOMEM, "out of memory");
    ps->ctx = ctx;
    ps->next_tmp = UINT64_MAX;
    rc = ibr_fabric_create(&ps->f, ctx);
    if (rc < 0) {
        ibr__free(ctx, ps);
        return ibr__fabric_err(f, rc, "out of memory");
    }
    rc = parse_text(ps, buf, len);
    if (rc == 0) {
        /* hand the content over; the private fabric takes f's empty one */
        struct ibr_fabric swap = *f;
        *f = *ps->f;
        *ps->f = swap;
        f->ctx = swap.ctx;
        ps->f->ctx = ctx;
        f->last_error[0] = 0;
    }
    ibr_fabric_destroy(ps->f);
    ibr__guidmap_free(ctx, &ps->finals);
    ibr__guidmap_free(ctx, &ps->pattr);
    if (rc < 0)
        rc = ibr__fabric_err(f, rc, "%s", ps->msg);
    ibr__free(ctx, ps);
    return rc < 0 ? rc : 0;
}
