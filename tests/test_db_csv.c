/* The ibdiagnet database reader (ibr_fabric_parse_db_csv()): a file in
   ibdiagnet2.db_csv's layout reads as its topology (nodes, types, GUIDs,
   port counts, LIDs, cables; other tables skipped), every prefix of it
   either reads or fails cleanly, and malformed text fails with the line
   and a code, leaving the fabric empty. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static char *data(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", IBR_TEST_DATA, name);
    char *b = ibr_test_read_file(path, len);
    if (!b)
        fprintf(stderr, "cannot read %s\n", path);
    return b;
}

#define S1 0x0002c90300a1b200ull
#define S2 0x0002c90300a1b300ull
#define C1 0xb8599f0300c0ffeeull
#define C2 0xb8599f0300c0ffefull

/* The node a port GUID belongs to, and its port. */
static uint32_t by_guid(const ibr_fabric *f, uint64_t g, unsigned *port)
{
    uint32_t n = IBR_NONE;
    CU_ASSERT_EQUAL(ibr_fabric_find_guid(&n, port, f, g), 0);
    return n;
}

static void test_sample(void)
{
    size_t len;
    char *text = data("ibdiagnet2_small.db_csv", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    int rc = ibr_fabric_parse_db_csv(f, text, len);
    if (rc)
        fprintf(stderr, "%s\n", ibr_fabric_last_error(f));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 4);
    static const struct {
        uint64_t guid;
        ibr_node_type type;
        unsigned nports;
        uint16_t lid;
        uint8_t lmc;
        const char *desc;
    } want[] = {
        {S1, IBR_NODE_SWITCH, 40, 1, 0, "MF0;leaf-1:MQM8700/U1"},
        {S2, IBR_NODE_SWITCH, 40, 2, 0, "MF0;leaf-2:MQM8700/U1"},
        {C1, IBR_NODE_CA, 1, 8, 2, "node01 mlx5_0"},
        {C2, IBR_NODE_CA, 1, 12, 2, "node01 mlx5_1, \"rail 2\""},
    };
    uint32_t id[4];
    for (int i = 0; i < 4; i++) {
        unsigned port = 99;
        id[i] = by_guid(f, want[i].guid, &port);
        CU_ASSERT_FATAL(id[i] != IBR_NONE);
        /* switch port 0 and CA port 1 hold the GUID the text gave */
        CU_ASSERT_EQUAL(port, want[i].type == IBR_NODE_SWITCH ? 0u : 1u);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        CU_ASSERT_EQUAL(ibr_fabric_node_info(&ni, f, id[i]), 0);
        CU_ASSERT_EQUAL(ni.node_guid, want[i].guid);
        CU_ASSERT_EQUAL(ni.type, want[i].type);
        CU_ASSERT_EQUAL(ni.nports, want[i].nports);
        CU_ASSERT_STRING_EQUAL(ni.desc, want[i].desc);
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, id[i], port), 0);
        CU_ASSERT_EQUAL(pi.lid, want[i].lid);
        CU_ASSERT_EQUAL(pi.lmc, want[i].lmc);
    }
    /* the two CAs share the system image GUID C1 */
    /* cables: C1-S1/1, C2-S2/1, S1/39-S2/39, S1/40-S2/40, nothing else */
    static const struct { int a; unsigned pa; int b; unsigned pb; } cab[] = {
        {2, 1, 0, 1}, {3, 1, 1, 1}, {0, 39, 1, 39}, {0, 40, 1, 40}};
    unsigned cabled = 0;
    for (int i = 0; i < 4; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_fabric_node_info(&ni, f, id[i]);
        for (unsigned p = 1; p <= ni.nports; p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, id[i], p), 0);
            if (pi.remote_node != IBR_NONE)
                cabled++;
        }
    }
    CU_ASSERT_EQUAL(cabled, 8);
    for (int k = 0; k < 4; k++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, id[cab[k].a], cab[k].pa), 0);
        CU_ASSERT_EQUAL(pi.remote_node, id[cab[k].b]);
        CU_ASSERT_EQUAL(pi.remote_port, cab[k].pb);
        CU_ASSERT_EQUAL(pi.state, IBR_LINK_ACTIVE);
    }
    /* the fabric freezes into a topology (the reader left it consistent) */
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL(ibr_fabric_freeze(&t, f), 0);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    free(text);
}

/* Every prefix of the sample reads or fails with IBR_EPARSE, the fabric
   then empty. */
static void test_truncated(void)
{
    size_t len;
    char *text = data("ibdiagnet2_small.db_csv", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    unsigned ok = 0;
    for (size_t n = 0; n <= len; n++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        int rc = ibr_fabric_parse_db_csv(f, text, n);
        CU_ASSERT(rc == 0 || rc == IBR_EPARSE);
        if (rc == 0)
            ok++;
        else
            CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
        ibr_fabric_destroy(f);
    }
    CU_ASSERT(ok >= 1); /* the whole text, at least */
    free(text);
}

#define NODES_HDR "START_NODES\nNodeDesc,NumPorts,NodeType,NodeGUID\n"
#define NODES NODES_HDR "\"sw\",8,2,0x100\n\"h\",2,1,0x200\nEND_NODES\n"
#define LINKS_HDR "START_LINKS\nNodeGuid1,PortNum1,NodeGuid2,PortNum2\n"

static const struct { const char *text, *want; } cases[] = {
    {"", "no START_NODES table: not an ibdiagnet db_csv [DC022]"},
    {"hello\n", "line 1: text outside a table: \"hello\" [DC019]"},
    {NODES_HDR "\"sw\",8,2,0x100\n", "line 1: table NODES has no END_NODES [DC021]"},
    {NODES_HDR "START_PORTS\n", "line 3: START_PORTS inside table NODES (no END_NODES"},
    {"END_NODES\n", "line 1: END_NODES outside a table [DC005]"},
    {NODES_HDR "END_PORTS\n", "line 3: END_PORTS closes table NODES (START_NODES on line 1)"},
    {"START_NODES\nEND_NODES\n", "line 2: table NODES has no header line [DC007]"},
    {"START_NODES\nNodeDesc,NumPorts,NodeGUID\nEND_NODES\n",
     "line 2: table NODES: the header has no column NodeType [DC008]"},
    {NODES_HDR "\"sw\",8,2\nEND_NODES\n", "line 3: NODES: 3 fields, the header has 4 [DC020]"},
    {NODES_HDR "\"sw,8,2,0x100\nEND_NODES\n", "line 3: field 1: quote not closed [DC002]"},
    {NODES_HDR "\"sw\"x,8,2,0x100\nEND_NODES\n",
     "line 3: field 1: text after the closing quote [DC003]"},
    {NODES_HDR "\"sw\",eight,2,0x100\nEND_NODES\n",
     "line 3: NODES: bad NumPorts \"eight\" [DC009]"},
    {NODES_HDR "\"sw\",8,2,256\nEND_NODES\n", "line 3: NODES: bad NodeGUID \"256\" [DC009]"},
    {NODES_HDR "\"sw\",8,2,0x0\nEND_NODES\n", "line 3: NODES: NodeGUID is zero [DC010]"},
    {NODES_HDR "\"sw\",8,4,0x100\nEND_NODES\n",
     "line 3: NODES: node type 4 is not 1 (CA), 2 (switch) or 3 (router) [DC011]"},
    {NODES_HDR "\"sw\",0,2,0x100\nEND_NODES\n",
     "line 3: NODES: node 0x0000000000000100 has no ports [DC012]"},
    {NODES_HDR "\"sw\",8,2,0x100\n\"sw\",8,2,0x100\nEND_NODES\n",
     "line 4: NODES: node 0x0000000000000100 on an earlier row too [DC013]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LID\n0x200,3,5\nEND_PORTS\n",
     "line 8: port 3 of node 0x0000000000000200 with 2 ports [DC014]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LID\n0x300,1,5\nEND_PORTS\n",
     "line 8: PORTS: node 0x0000000000000300 is not on an earlier NODES row [DC015]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LID\n0x200,1,49152\nEND_PORTS\n",
     "line 8: PORTS: LID 0xc000 is not a unicast LID [DC016]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LID\n0x100,0,1\n0x100,1,2\nEND_PORTS\n",
     "line 9: PORTS: LID 2 LMC 0 of 0x0000000000000100 port 0, LID 1 LMC 0 on an earlier row "
     "[DC017]"},
    {NODES LINKS_HDR "0x100,1,0x200,1\n0x100,2,0x200,1\nEND_LINKS\n",
     "line 9: LINKS: 0x0000000000000200 port 1 is cabled to 0x0000000000000100 port 1 by an "
     "earlier row [DC018]"},
    {NODES LINKS_HDR "0x100,0,0x200,1\nEND_LINKS\n",
     "line 8: port 0 of node 0x0000000000000100 with 8 ports [DC014]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LinkWidthActv\n0x200,1,3\nEND_PORTS\n",
     "line 8: PORTS: LinkWidthActv 3 is not one link width [DC023]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LinkSpeedActv\n0x200,1,3\nEND_PORTS\n",
     "line 8: PORTS: LinkSpeedActv 3 is not one link speed [DC023]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,PortState\n0x200,1,5\nEND_PORTS\n",
     "line 8: PORTS: PortState 5 is not one port state [DC023]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LinkWidthActv\n0x100,1,2\n0x200,1,8\nEND_PORTS\n"
     LINKS_HDR "0x100,1,0x200,1\nEND_LINKS\n",
     "line 13: LINKS: 0x0000000000000100 port 1 and 0x0000000000000200 port 1 have other "
     "widths in PORTS [DC024]"},
    {NODES "START_PORTS\nNodeGuid,PortNum,LinkSpeedActv\n0x100,1,2048\n0x200,1,1024\n"
     "END_PORTS\n" LINKS_HDR "0x100,1,0x200,1\nEND_LINKS\n",
     "line 13: LINKS: 0x0000000000000100 port 1 and 0x0000000000000200 port 1 have other "
     "speeds in PORTS [DC024]"},
};

static void test_errors(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int rc = ibr_fabric_parse_db_csv(f, cases[k].text, strlen(cases[k].text));
        const char *msg = ibr_fabric_last_error(f);
        if (rc != IBR_EPARSE || !strstr(msg, cases[k].want))
            fprintf(stderr, "case %zu: rc %d, message \"%s\", want \"%s\"\n", k, rc, msg,
                    cases[k].want);
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[k].want));
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
    }
    /* a good text afterwards; the same cable twice (both ends) is one */
    const char *good = "# comment\n" NODES "START_OTHER\nwhatever,\"x\"\nEND_OTHER\n" LINKS_HDR
                       "0x100,1,0x200,1\n0x200,1,0x100,1\n0x100,2,0x200,2\nEND_LINKS\n";
    int rc = ibr_fabric_parse_db_csv(f, good, strlen(good));
    if (rc)
        fprintf(stderr, "good text: %s\n", ibr_fabric_last_error(f));
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 2);
    CU_ASSERT_EQUAL(ibr_fabric_parse_db_csv(f, good, strlen(good)), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_parse_db_csv(NULL, good, 1), IBR_EINVAL);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_parse_db_csv(f, NULL, 3), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_parse_db_csv(f, NULL, 0), IBR_EPARSE);
    ibr_fabric_destroy(f);
}

/* The topology in ibdiagnet2.db_csv's layout, by the library's writer. */
static char *write_db_csv(const ibr_topo *t, size_t *len)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    if (ibr_topo_write_db_csv(&b, t) < 0) {
        ibr_buffer_dispose(&b);
        return NULL;
    }
    char *text = malloc(b.size + 1);
    if (text) {
        memcpy(text, b.data, b.size + 1);
        *len = b.size;
    }
    ibr_buffer_dispose(&b);
    return text;
}

/* Width, speed and state columns as ibdiagnet writes them (ibutils2's
   names; LinkSpeedActv in its combined IBLinkSpeed encoding, where 2048
   is NDR): each cable takes its ends' values, an end in PortState 1
   (Down) takes it down, and 0 or no column leaves 4x QDR. */
static void test_link_columns(void)
{
    const char *text =
        NODES_HDR "\"sw\",8,2,0x100\n\"h\",2,1,0x200\n\"g\",1,1,0x300\nEND_NODES\n"
        "START_PORTS\nNodeGuid,PortGuid,PortNum,LID,LinkWidthActv,LinkWidthSup,LinkSpeedEn,"
        "LinkSpeedActv,LMC,PortPhyState,PortState\n"
        "0x100,0x100,0,1,0,0,0,0,0,0,4\n"
        "0x100,0x100,1,1,2,19,3841,2048,0,5,4\n"       /* h/1: 4x NDR */
        "0x100,0x100,2,1,8,19,3841,0x10000,0,5,4\n"    /* h/2: 12x FDR10 */
        "0x100,0x100,3,1,0,0,0,0,0,2,1\n"              /* g/1: down */
        "0x100,0x100,4,1,16,19,3841,0x1000000,0,5,4\n" /* sw/4-sw/5: 2x XDR */
        "0x100,0x100,5,1,16,19,3841,16777216,0,5,3\n"
        "0x200,0x201,1,2,2,19,3841,2048,0,5,4\n"
        "0x200,0x202,2,3,0,0,0,0,0,5,4\n"              /* the switch end speaks */
        "0x300,0x301,1,4,0,0,0,0,0,5,4\n"
        "END_PORTS\n" LINKS_HDR
        "0x100,1,0x200,1\n0x100,2,0x200,2\n0x100,3,0x300,1\n0x100,4,0x100,5\nEND_LINKS\n";
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    int rc = ibr_fabric_parse_db_csv(f, text, strlen(text));
    if (rc)
        fprintf(stderr, "%s\n", ibr_fabric_last_error(f));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    static const struct {
        unsigned port;
        ibr_link_width w;
        ibr_link_speed s;
        ibr_link_state st;
    } want[] = {{1, IBR_WIDTH_4X, IBR_SPEED_NDR, IBR_LINK_ACTIVE},
                {2, IBR_WIDTH_12X, IBR_SPEED_FDR10, IBR_LINK_ACTIVE},
                {3, IBR_WIDTH_4X, IBR_SPEED_QDR, IBR_LINK_DOWN},
                {4, IBR_WIDTH_2X, IBR_SPEED_XDR, IBR_LINK_ACTIVE}};
    unsigned port;
    uint32_t sw = by_guid(f, 0x100, &port);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, sw, want[k].port), 0);
        CU_ASSERT(pi.remote_node != IBR_NONE);
        CU_ASSERT_EQUAL(pi.width, want[k].w);
        CU_ASSERT_EQUAL(pi.speed, want[k].s);
        CU_ASSERT_EQUAL(pi.state, want[k].st);
    }
    ibr_fabric_destroy(f);
}

/* Every width and speed on cables of a hand-built fabric, written and read
   back; down cables are left out as ibdiagnet leaves them out. */
static void test_link_roundtrip(void)
{
    static const ibr_link_width widths[] = {IBR_WIDTH_1X, IBR_WIDTH_2X, IBR_WIDTH_4X,
                                            IBR_WIDTH_8X, IBR_WIDTH_12X};
    ibr_fabric *f = NULL, *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    uint32_t s1, s2;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&s1, f, IBR_NODE_SWITCH, 0x1000, 20, "s1"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&s2, f, IBR_NODE_SWITCH, 0x2000, 20, "s2"), 0);
    for (unsigned k = 0; k < 12; k++) {
        ibr_link_attr a = IBR_LINK_ATTR_INIT;
        a.width = widths[k % 5];
        a.speed = (ibr_link_speed)(1 + k % 9);
        a.state = k == 11 ? IBR_LINK_DOWN : IBR_LINK_ACTIVE;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, s1, k + 1, s2, k + 1, &a), 0);
    }
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 0, 0), 0);
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    size_t len = 0;
    char *text = write_db_csv(t, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&g, NULL), 0);
    int rc = ibr_fabric_parse_db_csv(g, text, len);
    if (rc)
        fprintf(stderr, "%s\n", ibr_fabric_last_error(g));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    unsigned port;
    uint32_t r1 = by_guid(g, 0x1000, &port);
    for (unsigned p = 1; p <= 12; p++) {
        ibr_port_info x = IBR_PORT_INFO_INIT, y = IBR_PORT_INFO_INIT;
        CU_ASSERT_EQUAL(ibr_topo_port_info(&x, t, s1, p), 0);
        CU_ASSERT_EQUAL(ibr_fabric_port_info(&y, g, r1, p), 0);
        if (p == 12) {
            CU_ASSERT_EQUAL(y.remote_node, IBR_NONE);
            continue;
        }
        CU_ASSERT_EQUAL(y.width, x.width);
        CU_ASSERT_EQUAL(y.speed, x.speed);
        CU_ASSERT_EQUAL(y.state, IBR_LINK_ACTIVE);
    }
    free(text);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_fabric_destroy(g);
}

/* Generated fabrics with faults and LMC, written in the layout and read
   back: the same nodes, GUIDs, LIDs and active cables. */
static void test_roundtrip(void)
{
    static const struct {
        const char *spec;
        unsigned links, switches, lmc;
    } gen[] = {
        {"fattree:levels=3,radix=4", 0, 0, 0},
        {"fattree:levels=3,radix=4", 5, 1, 2},
        {"torus:dims=4x3,hosts=2", 3, 0, 1},
        {"dragonfly:a=4,p=1,h=2,g=5", 4, 0, 0},
        {"random:switches=12,degree=3,hosts=2,seed=5", 2, 1, 0},
    };
    for (unsigned k = 0; k < sizeof gen / sizeof gen[0]; k++) {
        const char *spec = gen[k].spec;
        ibr_topo *t = ibr_test_topo_faults(spec, gen[k].links, gen[k].switches, 7 + k,
                                           gen[k].lmc);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        size_t len = 0;
        char *text = write_db_csv(t, &len);
        ibr_buffer nb = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_topo_write_db_csv(NULL, t), IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_topo_write_db_csv(&nb, NULL), IBR_EINVAL);
        CU_ASSERT_EQUAL(nb.size, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        int rc = ibr_fabric_parse_db_csv(f, text, len);
        if (rc)
            fprintf(stderr, "%s: %s\n", spec, ibr_fabric_last_error(f));
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        uint32_t n = ibr_topo_node_count(t);
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), n);
        unsigned bad = 0;
        for (uint32_t i = 0; i < n && !bad; i++) {
            ibr_node_info a = IBR_NODE_INFO_INIT, b = IBR_NODE_INFO_INIT;
            ibr_topo_node_info(&a, t, i);
            uint32_t j = IBR_NONE;
            unsigned port;
            if (ibr_fabric_find_guid(&j, &port, f, a.node_guid) < 0 ||
                ibr_fabric_node_info(&b, f, j) < 0 || b.node_guid != a.node_guid) {
                bad++;
                break;
            }
            bad += a.type != b.type || a.nports != b.nports || strcmp(a.desc, b.desc) != 0;
            for (unsigned p = a.type == IBR_NODE_SWITCH ? 0 : 1; p <= a.nports; p++) {
                ibr_port_info x = IBR_PORT_INFO_INIT, y = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&x, t, i, p);
                ibr_fabric_port_info(&y, f, j, p);
                if (p == 0 || a.type != IBR_NODE_SWITCH)
                    bad += x.guid != y.guid || x.lid != y.lid || x.lmc != y.lmc;
                bool up = x.remote_node != IBR_NONE && x.state == IBR_LINK_ACTIVE;
                if (!up) {
                    bad += p && y.remote_node != IBR_NONE;
                    continue;
                }
                ibr_node_info xr = IBR_NODE_INFO_INIT, yr = IBR_NODE_INFO_INIT;
                ibr_topo_node_info(&xr, t, x.remote_node);
                bad += y.remote_node == IBR_NONE || ibr_fabric_node_info(&yr, f, y.remote_node) < 0 ||
                       yr.node_guid != xr.node_guid || y.remote_port != x.remote_port;
            }
            if (bad)
                fprintf(stderr, "%s: node 0x%016" PRIx64 " differs\n", spec, a.node_guid);
        }
        CU_ASSERT_EQUAL(bad, 0);
        ibr_fabric_destroy(f);
        free(text);
        ibr_topo_destroy(t);
    }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"an ibdiagnet2.db_csv reads as its topology", test_sample},
        {"every prefix of a file", test_truncated},
        {"generated fabrics written and read back, with faults and LMC", test_roundtrip},
        {"errors: line, code, fabric left empty", test_errors},
        {"width, speed and state columns", test_link_columns},
        {"every width and speed written and read back", test_link_roundtrip},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("db_csv", tests);
}
