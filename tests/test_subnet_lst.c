/* The link-list reader (ibr_fabric_parse_subnet_lst()): OpenSM's own
   opensm-subnet.lst files read as the topology OpenSM was run on, the
   writer's output reads back as the fabric written (on generated fabrics
   with faults and LMC), one line per link reads like two, and malformed
   or contradictory text fails with the line and a code, leaving the fabric
   empty. */
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

/* Parse a link list into a new frozen topology; NULL with a message. */
static ibr_topo *lst_topo_g2l(const char *text, size_t len, const char *g2l, size_t glen)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    if (ibr_fabric_create(&f, NULL) < 0)
        return NULL;
    int rc = ibr_fabric_parse_subnet_lst(f, text, len);
    if (rc == 0 && g2l) {
        /* the file's ranges replace the base LIDs read */
        for (uint32_t i = 0; i < ibr_fabric_node_count(f); i++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_fabric_node_info(&ni, f, i);
            for (unsigned p = ni.type == IBR_NODE_SWITCH ? 0 : 1;
                 p <= (ni.type == IBR_NODE_SWITCH ? 0 : ni.nports); p++)
                ibr_fabric_set_lid(f, i, p, 0, 0);
        }
        rc = ibr_fabric_parse_guid2lid(f, g2l, glen);
    }
    if (rc < 0)
        fprintf(stderr, "subnet.lst: %s: %s\n", ibr_status_name(rc), ibr_fabric_last_error(f));
    else if (ibr_fabric_freeze(&t, f) < 0)
        t = NULL;
    ibr_fabric_destroy(f);
    return t;
}

static ibr_topo *lst_topo(const char *text, size_t len)
{
    return lst_topo_g2l(text, len, NULL, 0);
}

static int has_active_link(const ibr_topo *t, uint32_t node, unsigned nports)
{
    for (unsigned p = 1; p <= nports; p++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_topo_port_info(&pi, t, node, p) == 0 && pi.remote_node != IBR_NONE &&
            pi.state == IBR_LINK_ACTIVE)
            return 1;
    }
    return 0;
}

/* b holds exactly the nodes of a with an active link and exactly a's
   active links, with the same GUIDs, descriptions, base LIDs, widths and
   speeds. Returns the number of differences (printed). */
static int differences(const ibr_topo *a, const ibr_topo *b)
{
    int bad = 0;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < ibr_topo_node_count(a); i++) {
        ibr_node_info x = IBR_NODE_INFO_INIT, y = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&x, a, i);
        uint32_t j;
        unsigned jp;
        int found = ibr_topo_find_guid(&j, &jp, b, x.node_guid) == 0 &&
                    ibr_topo_node_info(&y, b, j) == 0 && y.node_guid == x.node_guid;
        if (!has_active_link(a, i, x.nports)) {
            if (found && ++bad)
                fprintf(stderr, "node 0x%016llx without links read\n",
                        (unsigned long long)x.node_guid);
            continue;
        }
        kept++;
        if (!found || x.type != y.type || x.nports != y.nports ||
            x.sysimg_guid != y.sysimg_guid || x.port0_guid != y.port0_guid ||
            strcmp(x.desc, y.desc) != 0) {
            fprintf(stderr, "node 0x%016llx missing or different\n",
                    (unsigned long long)x.node_guid);
            bad++;
            continue;
        }
        for (unsigned p = 0; p <= x.nports; p++) {
            ibr_port_info pa = IBR_PORT_INFO_INIT, pb = IBR_PORT_INFO_INIT;
            ibr_topo_port_info(&pa, a, i, p);
            ibr_topo_port_info(&pb, b, j, p);
            int up = pa.remote_node != IBR_NONE && pa.state == IBR_LINK_ACTIVE;
            int ok = pa.guid == pb.guid && (up || p == 0 || pb.remote_node == IBR_NONE);
            /* a port's LID is known only where it has a link */
            if (ok && (up || (p == 0 && x.type == IBR_NODE_SWITCH)))
                ok = pa.lid == pb.lid;
            if (ok && up) {
                ibr_node_info ra = IBR_NODE_INFO_INIT, rb = IBR_NODE_INFO_INIT;
                ibr_topo_node_info(&ra, a, pa.remote_node);
                ok = pb.remote_node != IBR_NONE &&
                     ibr_topo_node_info(&rb, b, pb.remote_node) == 0 &&
                     ra.node_guid == rb.node_guid && pa.remote_port == pb.remote_port &&
                     pa.width == pb.width && pa.speed == pb.speed &&
                     pb.state == IBR_LINK_ACTIVE;
            }
            if (!ok && ++bad)
                fprintf(stderr, "node 0x%016llx port %u differs\n",
                        (unsigned long long)x.node_guid, p);
        }
    }
    if (kept != ibr_topo_node_count(b) && ++bad)
        fprintf(stderr, "%u nodes read, %u expected\n", ibr_topo_node_count(b), kept);
    return bad;
}

/* OpenSM's opensm-subnet.lst of a run is the topology OpenSM ran on, with
   the LIDs it gave (its guid2lid), and OpenSM's LFT dump reads on it into
   the same tables as on the ibnetdiscover topology. */
static void real_opensm(const char *dir, int lmc)
{
    char p[256];
    size_t len, glen;
    snprintf(p, sizeof p, "%s/guid2lid", dir);
    char *g2l = data(p, &glen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g2l);
    snprintf(p, sizeof p, "%s/opensm-subnet.lst", dir);
    char *lst = data(p, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lst);
    /* LMC is not in the format: the guid2lid file gives the ranges */
    ibr_topo *b = lmc ? lst_topo_g2l(lst, len, g2l, glen) : lst_topo(lst, len);
    free(lst);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);

    ibr_fabric *f = NULL;
    ibr_topo *a = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    snprintf(p, sizeof p, "%s/topo.net", dir);
    char *net = data(p, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(net);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, net, len), 0);
    free(net);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_guid2lid(f, g2l, glen), 0);
    free(g2l);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&a, f), 0);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL(differences(a, b), 0);

    snprintf(p, sizeof p, "%s/opensm-lfts.dump", dir);
    char *dump = data(p, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dump);
    ibr_result *ra = NULL, *rb = NULL;
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&ra, a, dump, len), 0);
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&rb, b, dump, len), 0);
    free(dump);
    CU_ASSERT_FATAL(ra && rb && ibr_result_status(ra) == 0 && ibr_result_status(rb) == 0);
    CU_ASSERT_EQUAL_FATAL(ibr_result_lft_size(ra), ibr_result_lft_size(rb));
    for (uint32_t s = 0; s < ibr_topo_switch_count(a); s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        uint32_t nb;
        ibr_topo_node_info(&ni, a, ibr_topo_switch_node(a, s));
        CU_ASSERT_EQUAL_FATAL(ibr_topo_find_guid(&nb, NULL, b, ni.node_guid), 0);
        CU_ASSERT(memcmp(ibr_result_lft(ra, s), ibr_result_lft(rb, ibr_topo_node_switch(b, nb)),
                         ibr_result_lft_size(ra)) == 0);
    }
    ibr_result_destroy(ra);
    ibr_result_destroy(rb);
    ibr_topo_destroy(a);
    ibr_topo_destroy(b);
}

static void test_real_opensm(void)
{
    real_opensm("osm-fattree", 0);
    real_opensm("osm-lmc2", 1);
}

/* ibr_topo_write_subnet_lst() output reads back as the fabric written:
   its active links and the nodes on them (down links and the nodes they
   isolate are not in the format). */
static void test_roundtrip(void)
{
    static const struct {
        const char *spec;
        unsigned links, switches, lmc;
    } cases[] = {
        {"fattree:levels=3,radix=4", 0, 0, 0},
        {"fattree:levels=3,radix=4", 5, 1, 0},
        {"torus:dims=4x3,hosts=2", 3, 0, 1},
        {"dragonfly:a=4,p=1,h=2,g=5", 4, 0, 0},
        {"random:switches=12,degree=3,hosts=2,seed=5", 2, 1, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ibr_topo *t = ibr_test_topo_faults(cases[k].spec, cases[k].links, cases[k].switches,
                                           7 + k, cases[k].lmc);
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_write_subnet_lst(&b, t), 0);
        ibr_topo *r = lst_topo(b.data, b.size);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        int d = differences(t, r);
        if (d)
            fprintf(stderr, "  in %s\n", cases[k].spec);
        CU_ASSERT_EQUAL(d, 0);

        /* every other line only: each link from one end still reads the same */
        char *half = malloc(b.size + 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(half);
        size_t n = 0;
        const char *s = b.data;
        while (s < b.data + b.size) {
            const char *e = memchr(s, '\n', (size_t)(b.data + b.size - s));
            e = e ? e + 1 : b.data + b.size;
            /* keep the line whose first port is the smaller (GUID, port) */
            const char *g1 = strstr(s, "NodeGUID:"), *g2 = strstr(g1 + 1, "NodeGUID:");
            const char *p1 = strstr(s, "PN:"), *p2 = strstr(p1 + 1, "PN:");
            unsigned long long a1 = strtoull(g1 + 9, NULL, 16), a2 = strtoull(g2 + 9, NULL, 16);
            unsigned long q1 = strtoul(p1 + 3, NULL, 16), q2 = strtoul(p2 + 3, NULL, 16);
            if (a1 < a2 || (a1 == a2 && q1 < q2)) {
                memcpy(half + n, s, (size_t)(e - s));
                n += (size_t)(e - s);
            }
            s = e;
        }
        CU_ASSERT(n > 0 && n < b.size);
        ibr_topo *h = lst_topo(half, n);
        CU_ASSERT_PTR_NOT_NULL(h);
        if (h)
            CU_ASSERT_EQUAL(differences(t, h), 0);
        ibr_topo_destroy(h);
        free(half);
        ibr_topo_destroy(r);
        ibr_buffer_dispose(&b);
        ibr_topo_destroy(t);
    }
}

#define SW1 "{ SW Ports:08 SystemGUID:0000000000000100 NodeGUID:0000000000000100 " \
            "PortGUID:0000000000000100 VenID:000000 DevID:0000 Rev:00000000 {sw one} LID:0001 "
#define CA1 "{ CA Ports:02 SystemGUID:0000000000000200 NodeGUID:0000000000000200 " \
            "PortGUID:0000000000000201 VenID:00000000 DevID:0000 Rev:00000000 {h1 HCA-1} LID:0002 "
#define CA2 "{ CA Ports:01 SystemGUID:0000000000000300 NodeGUID:0000000000000300 " \
            "PortGUID:0000000000000301 VenID:00000000 DevID:0000 Rev:00000000 {h2} LID:0003 "
#define LINK " PHY=4x LOG=ACT SPD=10\n"

static const struct lst_case {
    const char *text;
    const char *want; /* in the message */
} lst_cases[] = {
    {"", "not a subnet.lst [LS021]"},
    {"# only a comment\n", "not a subnet.lst [LS021]"},
    {"Unicast lids [0-3] of switch Lid 1 guid 0x100 (x):\n", "line 1: expected \"{\" to open the first port [LS001]"},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK "SW Ports:08\n", "line 2: expected \"{\""},
    {"{ XX Ports:08 }", "line 1: first port: node type \"XX\" is not SW, CA or Rt [LS002]"},
    {"{ SW Ports:0g SystemGUID:1", "line 1: first port: expected \"Ports:<hex>\" [LS003]"},
    {"{ SW Ports:FF SystemGUID:1", "line 1: first port: expected \"Ports:<hex>\" [LS003]"},
    {SW1 "PN:01 } { CA Ports:02 SystemGUID:zz", "line 1: second port: expected \"SystemGUID:<hex>\""},
    {"{ SW Ports:08 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 {d LID:1 PN:1 }",
     "line 1: first port: description without \"} LID:\" after it [LS004]"},
    {SW1 "PN:01 " CA1 "PN:01 }" LINK, "line 1: expected \"}\" to close the first port [LS005]"},
    {SW1 "PN:09 } " CA1 "PN:01 }" LINK, "line 1: first port: port 9 of a node with 8 ports [LS007]"},
    {SW1 "PN:00 } " CA1 "PN:01 }" LINK, "line 1: first port: port 0 of a node with 8 ports [LS007]"},
    {SW1 "PN:01 } " CA1 "PN:01 } PHY=3x LOG=ACT SPD=10\n", "line 1: unknown width \"3x\" [LS010]"},
    {SW1 "PN:01 } " CA1 "PN:01 } LOG=ACT\n", "line 1: expected \"PHY=<width>\" after the ports [LS009]"},
    {SW1 "PN:01 } " CA1 "PN:01 } PHY=4x\n", "line 1: expected \"LOG=<state>\" after PHY= [LS011]"},
    {SW1 "PN:01 } " CA1 "PN:01 } PHY=4x LOG=UP\n", "line 1: unknown link state \"UP\" [LS012]"},
    {SW1 "PN:01 } " CA1 "PN:01 } PHY=4x LOG=ACT SPD=7\n", "line 1: unknown speed \"7\" [LS014]"},
    {SW1 "PN:01 } " CA1 "PN:01 } PHY=4x LOG=ACT SPD=10 x\n", "line 1: junk \"x\" after SPD= [LS015]"},
    {SW1 "PN:01 } " CA1 "PN:01 } PHY=4x LOG=ACT x\n", "line 1: expected \"SPD=<speed>\""},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK SW1 "PN:02 } " CA1 "PN:01 }" LINK,
     "line 2: 0x0000000000000200 port 1 is cabled to 0x0000000000000100 port 1 by an earlier line [LS019]"},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK CA1 "PN:01 } " SW1 "PN:01 } PHY=1x LOG=ACT SPD=10\n",
     "line 2: link 0x0000000000000200 port 1 - 0x0000000000000100 port 1 has other PHY, LOG or SPD"},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK
     "{ SW Ports:04 SystemGUID:0000000000000100 NodeGUID:0000000000000100 PortGUID:0000000000000100 "
     "VenID:0 DevID:0 Rev:0 {sw one} LID:0001 PN:02 } " CA2 "PN:01 }" LINK,
     "line 2: first port: node 0x0000000000000100 was a switch with 8 ports before, here a switch with 4 [LS017]"},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK
     "{ SW Ports:08 SystemGUID:0000000000000100 NodeGUID:0000000000000100 PortGUID:0000000000000100 "
     "VenID:0 DevID:0 Rev:0 {sw one} LID:0004 PN:02 } " CA2 "PN:01 }" LINK,
     "line 2: first port: LID 0x0004 of 0x0000000000000100 port 2, 0x0001 before [LS018]"},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK SW1 "PN:02 } "
     "{ CA Ports:01 SystemGUID:0000000000000300 NodeGUID:0000000000000300 PortGUID:0000000000000301 "
     "VenID:0 DevID:0 Rev:0 {h2} LID:0002 PN:01 }" LINK,
     "line 2: "},
    {SW1 "PN:01 } { CA Ports:02 SystemGUID:0 NodeGUID:0 PortGUID:1 VenID:0 DevID:0 Rev:0 {h} "
     "LID:0002 PN:01 }" LINK,
     "line 1: second port: zero port count, node GUID or port GUID [LS006]"},
    {SW1 "PN:01 } " CA1 "PN:01 }" LINK SW1 "PN:02 } "
     "{ CA Ports:01 SystemGUID:0 NodeGUID:0000000000000201 PortGUID:0000000000000999 VenID:0 "
     "DevID:0 Rev:0 {h} LID:0005 PN:01 }" LINK,
     "line 2: second port: node GUID 0x0000000000000201 is a port GUID of another node [LS016]"},
    /* the other order: a port GUID met after it is another node's node
       GUID (found by the fuzz target: the text written back did not read) */
    {"{ SW Ports:08 SystemGUID:0000000000000100 NodeGUID:0000000000000100 "
     "PortGUID:0000000000000100 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:01 } "
     "{ CA Ports:02 SystemGUID:0000000000000200 NodeGUID:0000000000000200 "
     "PortGUID:0000000000000201 VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=1x LOG=DWN "
     "SPD=FDR10\n"
     "{ CA Ports:02 SystemGUID:0000000000000200 NodeGUID:0000000000000200 "
     "PortGUID:0000040000000202 VenID:0 DevID:0 Rev:0 {h} LID:0004 PN:02 } "
     "{ SW-SM Ports:08 SystemGUID:0000000000000100 NodeGUID:0000000000000100 "
     "PortGUID:0000000000000200 VenID:0 DevID:0 Rev:0 {s} LID:0001 PN:02 } PHY=12x LOG=INI\n",
     "line 2: second port: port GUID 0x0000000000000200 is the node GUID of another node "
     "[LS022]"},
    {SW1 "PN:01 } { CA Ports:01 SystemGUID:1 NodeGUID:2 PortGUID:3 VenID:0 DevID:0 Rev:0 {h} "
     "LID:C000 PN:01 }" LINK,
     "line 1: second port: LID 0xc000 is not a unicast LID [LS008]"},
};

static void test_errors(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    for (size_t k = 0; k < sizeof lst_cases / sizeof lst_cases[0]; k++) {
        const struct lst_case *c = &lst_cases[k];
        int rc = ibr_fabric_parse_subnet_lst(f, c->text, strlen(c->text));
        const char *msg = ibr_fabric_last_error(f);
        if (rc != IBR_EPARSE || !strstr(msg, c->want))
            fprintf(stderr, "case %zu: rc %d, message \"%s\", want \"%s\"\n", k, rc, msg,
                    c->want);
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, c->want));
        /* the fabric is left as it was: empty */
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
    }
    /* and reads a good text afterwards: the text's lines in their order */
    const char *good = SW1 "PN:01 } " CA1 "PN:01 }" LINK SW1 "PN:03 } " CA2 "PN:01 } PHY=1x "
                           "LOG=DWN SPD=FDR10\n"
                       "{ CA Ports:02 SystemGUID:0000000000000200 NodeGUID:0000000000000200 "
                       "PortGUID:0000000000000202 VenID:0 DevID:0 Rev:0 {h1 HCA-1} LID:0004 PN:02 } "
                       SW1 "PN:02 } PHY=12x LOG=INI\n";
    int grc = ibr_fabric_parse_subnet_lst(f, good, strlen(good));
    if (grc)
        fprintf(stderr, "good text: %s\n", ibr_fabric_last_error(f));
    CU_ASSERT_EQUAL(grc, 0);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 3);
    uint32_t sw, ca;
    unsigned port;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_find_guid(&sw, &port, f, 0x100), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_find_guid(&ca, &port, f, 0x200), 0);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_node_info(&ni, f, ca), 0);
    CU_ASSERT_STRING_EQUAL(ni.desc, "h1 HCA-1");
    CU_ASSERT_EQUAL(ni.type, IBR_NODE_CA);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, sw, 3), 0);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_DOWN);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_FDR10);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_1X);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, sw, 2), 0);
    CU_ASSERT_EQUAL(pi.state, IBR_LINK_ACTIVE);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_SDR); /* no SPD= */
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_12X);
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, ca, 2), 0);
    CU_ASSERT_EQUAL(pi.lid, 4); /* the CA half printed it */
    CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, sw, 0), 0);
    CU_ASSERT_EQUAL(pi.lid, 1);
    /* not empty any more */
    CU_ASSERT_EQUAL(ibr_fabric_parse_subnet_lst(f, good, strlen(good)), IBR_ESTATE);
    CU_ASSERT_EQUAL(ibr_fabric_parse_subnet_lst(NULL, good, 1), IBR_EINVAL);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_parse_subnet_lst(f, NULL, 3), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_parse_subnet_lst(f, NULL, 0), IBR_EPARSE);
    ibr_fabric_destroy(f);
}

/* Every prefix of a good text fails cleanly or parses; never crashes and
   never leaves a half-built fabric. */
static void test_truncated(void)
{
    ibr_topo *t = ibr_test_topo_faults("fattree:levels=2,radix=4", 0, 0, 1, 0);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_write_subnet_lst(&b, t), 0);
    size_t lines = 0;
    for (size_t n = 0; n <= b.size; n++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        int rc = ibr_fabric_parse_subnet_lst(f, b.data, n);
        int at_line_end = n > 0 && b.data[n - 1] == '\n';
        lines += at_line_end;
        if (at_line_end)
            CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(rc == 0 || (rc == IBR_EPARSE && ibr_fabric_node_count(f) == 0));
        ibr_fabric_destroy(f);
    }
    CU_ASSERT(lines > 10);
    ibr_buffer_dispose(&b);
    ibr_topo_destroy(t);
}

static int is_digits(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    return 1;
}

/* The switch of topology b with the GUID of switch s of a. */
static uint32_t same_switch(const ibr_topo *a, uint32_t s, const ibr_topo *b)
{
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    uint32_t nb;
    ibr_topo_node_info(&ni, a, ibr_topo_switch_node(a, s));
    if (ibr_topo_find_guid(&nb, NULL, b, ni.node_guid) < 0)
        return IBR_NONE;
    return ibr_topo_node_switch(b, nb);
}

static int same_stats(const ibr_pattern_stats *x, const ibr_pattern_stats *y)
{
    return x->patterns == y->patterns && x->flows == y->flows && x->unrouted == y->unrouted &&
           x->max_congestion == y->max_congestion &&
           x->mean_max_congestion == y->mean_max_congestion &&
           x->congestion_free == y->congestion_free && x->ebb == y->ebb;
}

static void summary_of(ibr_analysis_summary *s, const ibr_result *r)
{
    ibr_analysis *an = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_analyze(&an, r, NULL), 0);
    CU_ASSERT_EQUAL(ibr_analysis_summary_get(s, an), 0);
    ibr_analysis_destroy(an);
}

/* What ibroute writes as ibdiagnet (ibdiagnet2.lst and ibdiagnet2.fdbs)
   reads back into the same topology and the same tables, and analyzes to
   the same numbers as the routing written: on trees, tori and dragonflies,
   with faults and LMC 1. The fdbs text follows ibdiagnet's grammar line by
   line, and its parts written switch range by switch range equal it. */
static void test_ibdiagnet_roundtrip(void)
{
    static const struct {
        const char *spec, *chain;
        unsigned links, lmc;
    } cases[] = {
        {"fattree:levels=3,radix=4", "updn", 0, 0},
        {"fattree:levels=3,radix=4", "minhop", 4, 1},
        {"torus:dims=4x3,hosts=2", "minhop", 2, 0},
        {"dragonfly:a=4,p=1,h=2,g=5", "minhop", 3, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ibr_topo *t = ibr_test_topo_faults(cases[k].spec, cases[k].links, 0, 11 + k, cases[k].lmc);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, cases[k].chain, NULL), 0);
        uint32_t nsw = ibr_topo_switch_count(t);
        ibr_buffer lst = IBR_BUFFER_INIT, fdbs = IBR_BUFFER_INIT, part = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_write_subnet_lst(&lst, t), 0);
        CU_ASSERT_EQUAL_FATAL(
            ibr_result_write_switches(&fdbs, r, IBR_SWITCH_DUMP_IBDIAGNET_FDBS, 0, nsw), 0);
        for (uint32_t s = 0; s < nsw; s += 3)
            CU_ASSERT_EQUAL(ibr_result_write_switches(&part, r, IBR_SWITCH_DUMP_IBDIAGNET_FDBS,
                                                      s, nsw - s < 3 ? nsw - s : 3), 0);
        CU_ASSERT(part.size == fdbs.size && memcmp(part.data, fdbs.data, fdbs.size) == 0);

        /* the grammar: header, title, one line per LID 1..max, a blank line */
        unsigned max_lid = ibr_topo_max_lid(t), lid = 0, blocks = 0, bad = 0;
        const char *p = fdbs.data;
        while (p < fdbs.data + fdbs.size) {
            const char *e = strchr(p, '\n');
            size_t n = (size_t)(e - p);
            char want[96];
            if (lid == 0) {
                bad += strncmp(p, "osm_ucast_mgr_dump_ucast_routes: Switch 0x", 42) != 0 ||
                       n != 58;
                blocks++;
                lid = 1;
            } else if (lid == 1 && strncmp(p, "LID ", 4) == 0) {
                bad += strncmp(p, "LID    : Port : Hops : Optimal", n) != 0;
                lid = 2;
            } else if (lid == max_lid + 2) {
                bad += n != 0;
                lid = 0;
            } else {
                snprintf(want, sizeof want, "0x%04x : ", lid - 1);
                int unreachable = n == 20 && strncmp(p + 9, "UNREACHABLE", 11) == 0;
                int entry = n == 26 && is_digits(p + 9, 3) &&
                            strncmp(p + 12, "  : 00   : yes", 14) == 0;
                bad += strncmp(p, want, 9) != 0 || !(unreachable || entry);
                lid++;
            }
            p = e + 1;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_EQUAL(blocks, nsw);
        CU_ASSERT_EQUAL(lid, 0);

        /* read back: topology from the .lst (LMC from a guid2lid file) */
        ibr_buffer g2l = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_topo_write_guid2lid(&g2l, t), 0);
        ibr_topo *b = cases[k].lmc ? lst_topo_g2l(lst.data, lst.size, g2l.data, g2l.size)
                                   : lst_topo(lst.data, lst.size);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        CU_ASSERT_EQUAL(differences(t, b), 0);
        ibr_result *back = NULL;
        int rc = ibr_result_parse_lfts(&back, b, fdbs.data, fdbs.size);
        if (rc)
            fprintf(stderr, "ibdiagnet fdbs: %s\n", ibr_result_last_error(back));
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_EQUAL_FATAL(ibr_result_lft_size(back), ibr_result_lft_size(r));
        for (uint32_t s = 0; s < nsw; s++) {
            uint32_t sb = same_switch(t, s, b);
            CU_ASSERT_FATAL(sb != IBR_NONE);
            CU_ASSERT(memcmp(ibr_result_lft(r, s), ibr_result_lft(back, sb),
                             ibr_result_lft_size(r)) == 0);
        }
        ibr_analysis_summary x = IBR_ANALYSIS_SUMMARY_INIT, y = IBR_ANALYSIS_SUMMARY_INIT;
        summary_of(&x, r);
        summary_of(&y, back);
        CU_ASSERT(x.pairs > 0 && x.pairs == y.pairs && x.pairs_routed == y.pairs_routed);
        CU_ASSERT(x.avg_hops == y.avg_hops && x.max_hops == y.max_hops);
        CU_ASSERT(x.max_link_load == y.max_link_load && x.mean_link_load == y.mean_link_load);
        CU_ASSERT(same_stats(&x.all_to_all, &y.all_to_all));
        CU_ASSERT(same_stats(&x.shift, &y.shift));
        ibr_result_destroy(back);
        ibr_topo_destroy(b);
        ibr_buffer_dispose(&g2l);
        ibr_buffer_dispose(&part);
        ibr_buffer_dispose(&fdbs);
        ibr_buffer_dispose(&lst);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* Same SL2VL map at every (switch, in, out) of cabled ports: a and b on
   one topology. Returns the number of maps that differ. */
static int same_maps(const ibr_result *a, const ibr_result *b, const ibr_topo *t)
{
    int bad = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        uint32_t node = ibr_topo_switch_node(t, s);
        for (unsigned in = 0; in <= ni.nports; in++)
            for (unsigned o = 1; o <= ni.nports; o++) {
                uint8_t x[16], y[16];
                ibr_port_info pi = IBR_PORT_INFO_INIT, po = IBR_PORT_INFO_INIT;
                ibr_topo_port_info(&pi, t, node, in);
                ibr_topo_port_info(&po, t, node, o);
                /* the pairs the file lists: cabled ports (and port 0 in) */
                if (o == in || (in && pi.remote_node == IBR_NONE) || po.remote_node == IBR_NONE)
                    continue;
                if (ibr_result_sl2vl(x, a, s, in, o) < 0 || ibr_result_sl2vl(y, b, s, in, o) < 0 ||
                    memcmp(x, y, 16) != 0)
                    bad++;
            }
    }
    return bad;
}

/* ibdiagnet's .sl2vl (ibr_result_write_sl2vl()) read into tables read from
   text gives them the maps of the routing written: torus-2QoS's dateline
   maps and a VL-layered engine's; the analysis's VL usage follows. Errors
   name the line and leave the result's maps as they were. */
static void test_sl2vl(void)
{
    static const struct {
        const char *spec, *chain;
    } cases[] = {
        {"torus:dims=5x4,hosts=1", "torus-2QoS"},
        {"fattree:levels=2,radix=4", "minhop"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ibr_topo *t = ibr_test_topo_faults(cases[k].spec, 0, 0, 1, 0);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, cases[k].chain, NULL), 0);
        ibr_buffer sv = IBR_BUFFER_INIT, lf = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_sl2vl(&sv, r), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&lf, r), 0);
        ibr_result *back = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&back, t, lf.data, lf.size), 0);
        CU_ASSERT_FALSE(ibr_result_has_sl2vl(back));
        int differ = same_maps(r, back, t);
        /* torus-2QoS's maps are not the identity: the test can tell */
        CU_ASSERT(k != 0 || differ > 0);
        CU_ASSERT_EQUAL(ibr_result_parse_sl2vl(back, sv.data, sv.size), 0);
        CU_ASSERT(ibr_result_has_sl2vl(back));
        CU_ASSERT_EQUAL(same_maps(r, back, t), 0);
        /* and the text written again is the same */
        ibr_buffer again = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_result_write_sl2vl(&again, back), 0);
        CU_ASSERT(again.size == sv.size && memcmp(again.data, sv.data, sv.size) == 0);
        ibr_buffer_dispose(&again);

        /* a damaged line: an error naming it, the maps unchanged */
        char *bad = malloc(sv.size + 64);
        CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
        const char *nl = strchr(sv.data, '\n');
        size_t first = (size_t)(nl - sv.data) + 1;
        memcpy(bad, sv.data, first);
        /* line 2: a VL byte without its 0x */
        static const char junk[] = "0x0002c90201000000 1 2 0x01 23 0x45 0x67 0x89 0xab 0xcd 0xef\n";
        memcpy(bad + first, junk, sizeof junk - 1);
        ibr_result *b2 = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&b2, t, lf.data, lf.size), 0);
        CU_ASSERT_EQUAL(ibr_result_parse_sl2vl(b2, bad, first + sizeof junk - 1), IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(b2), "line 2: bad VLs of SL 2 and 3"));
        CU_ASSERT_FALSE(ibr_result_has_sl2vl(b2));
        CU_ASSERT_EQUAL(ibr_result_parse_sl2vl(back, bad, first + sizeof junk - 1), IBR_EPARSE);
        CU_ASSERT_EQUAL(same_maps(r, back, t), 0);
        free(bad);
        ibr_result_destroy(b2);
        ibr_result_destroy(back);
        ibr_buffer_dispose(&sv);
        ibr_buffer_dispose(&lf);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* the other errors, on a small fabric */
    static const struct {
        const char *text, *want;
    } errs[] = {
        {"", "not an ibdiagnet .sl2vl file [SV009]"},
        {"# nothing\n", "[SV009]"},
        {"0002c90201000000 1 2", "line 1: expected \"0x<node GUID>"},
        {"0xzz 1 2", "line 1: bad node GUID [SV002]"},
        {"0x0002c90201000000 x 2", "line 1: bad in port [SV003]"},
        {"0x0002c90201000000 1 256", "line 1: bad out port [SV004]"},
        {"0x0002c90201000000 1 2 0x01 0x23 0x45 0x67 0x89 0xab 0xcd", "bad VLs of SL 14 and 15"},
        {"0x0002c90201000000 1 2 0x01 0x23 0x45 0x67 0x89 0xab 0xcd 0xef 0x00",
         "line 1: text after the eight VL bytes [SV006]"},
        {"\n0x0000000000000bad 1 2 0x01 0x23 0x45 0x67 0x89 0xab 0xcd 0xef",
         "line 2: unknown node GUID 0x0000000000000bad [SV007]"},
        {"0x0002c90201000000 1 9 0x01 0x23 0x45 0x67 0x89 0xab 0xcd 0xef",
         "line 1: port 9 beyond the 4 ports of 0x0002c90201000000 [SV008]"},
    };
    ibr_topo *t = ibr_test_topo_faults("fattree:levels=2,radix=4", 0, 0, 1, 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
        int rc = ibr_result_parse_sl2vl(r, errs[k].text, strlen(errs[k].text));
        const char *msg = ibr_result_last_error(r);
        if (rc != IBR_EPARSE || !strstr(msg, errs[k].want))
            fprintf(stderr, "sl2vl case %zu: %d \"%s\"\n", k, rc, msg);
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, errs[k].want));
        CU_ASSERT_FALSE(ibr_result_has_sl2vl(r));
    }
    CU_ASSERT_EQUAL(ibr_result_parse_sl2vl(NULL, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_parse_sl2vl(r, NULL, 5), IBR_EINVAL);
    /* a CA's line is read and passed over; a switch's sets its map */
    const char *ok = "0x0002c90301000000 0 1 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00\n"
                     "0x0002c90201000000 1 2 0x11 0x11 0x11 0x11 0x11 0x11 0x11 0x11\n";
    int rc = ibr_result_parse_sl2vl(r, ok, strlen(ok));
    if (rc)
        fprintf(stderr, "sl2vl ok: %s\n", ibr_result_last_error(r));
    CU_ASSERT_EQUAL(rc, 0);
    uint32_t node, sw;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_find_guid(&node, NULL, t, 0x0002c90201000000ull), 0);
    sw = ibr_topo_node_switch(t, node);
    uint8_t m[16];
    CU_ASSERT_EQUAL(ibr_result_sl2vl(m, r, sw, 1, 2), 0);
    CU_ASSERT(m[0] == 1 && m[15] == 1);
    CU_ASSERT_EQUAL(ibr_result_sl2vl(m, r, sw, 2, 1), 0);
    CU_ASSERT(m[0] == 0 && m[15] == 15);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* The path-SL file (ibr_result_write_path_sl(), ibdmchk -c) read into
   tables read from text gives every pair the routing's SL; with the SL2VL
   tables, the analysis's VL usage is the routing's. */
static void test_path_sl(void)
{
    static const char *const chains[] = {"dfsssp", "lash", "torus-2QoS"};
    for (size_t k = 0; k < sizeof chains / sizeof chains[0]; k++) {
        ibr_topo *t = ibr_test_topo_faults("torus:dims=5x4,hosts=1", 0, 0, 1, 0);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, chains[k], NULL), 0);
        ibr_buffer psl = IBR_BUFFER_INIT, sv = IBR_BUFFER_INIT, lf = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_path_sl(&psl, r), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_sl2vl(&sv, r), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&lf, r), 0);
        ibr_result *b = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&b, t, lf.data, lf.size), 0);
        CU_ASSERT_EQUAL(ibr_result_parse_path_sl(b, psl.data, psl.size), 0);
        CU_ASSERT_EQUAL(ibr_result_parse_sl2vl(b, sv.data, sv.size), 0);
        unsigned nonzero = 0, bad = 0;
        uint16_t max = ibr_topo_max_lid(t);
        for (uint16_t s = 1; s <= max; s++)
            for (uint16_t d = 1; d <= max; d++) {
                uint32_t sn, dn;
                unsigned sp, dp;
                if (ibr_topo_lid_owner(&sn, &sp, t, s) < 0 || ibr_topo_lid_owner(&dn, &dp, t, d) < 0)
                    continue;
                ibr_node_info a = IBR_NODE_INFO_INIT, c = IBR_NODE_INFO_INIT;
                ibr_topo_node_info(&a, t, sn);
                ibr_topo_node_info(&c, t, dn);
                if (a.type == IBR_NODE_SWITCH || c.type == IBR_NODE_SWITCH || s == d)
                    continue;
                unsigned want = ibr_result_path_sl(r, s, d);
                nonzero += want != 0;
                bad += ibr_result_path_sl(b, s, d) != want;
            }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(nonzero > 0); /* the engines use SLs: the test can tell */
        ibr_analysis_summary x = IBR_ANALYSIS_SUMMARY_INIT, y = IBR_ANALYSIS_SUMMARY_INIT;
        summary_of(&x, r);
        summary_of(&y, b);
        CU_ASSERT(x.vls_used > 1 && x.vls_used == y.vls_used);
        ibr_verify_report vr;
        ibr_verify_report_init(&vr, IBR_VERIFY_REPORT_VERSION);
        CU_ASSERT_EQUAL(ibr_result_verify(&vr, b), 0);
        CU_ASSERT_EQUAL(vr.deadlock_free, 1);
        ibr_result_destroy(b);
        ibr_buffer_dispose(&psl);
        ibr_buffer_dispose(&sv);
        ibr_buffer_dispose(&lf);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    static const struct {
        const char *text, *want;
    } errs[] = {
        {"", "not a path-SL file [PS008]"},
        {"12 3 4", "line 1: expected \"0x<source node GUID> <LID> <SL>\" [PS001]"},
        {"0xg 3 4", "line 1: bad source node GUID [PS002]"},
        {"0x0002c90301000000 x 4", "line 1: bad destination LID [PS003]"},
        {"0x0002c90301000000 3 16", "line 1: bad SL (0..15) [PS004]"},
        {"0x0002c90301000000 3 1 2", "line 1: text after the SL [PS005]"},
        {"# c\n0x0000000000000bad 3 1", "line 2: unknown node GUID 0x0000000000000bad [PS006]"},
        {"0x0002c90301000000 999 1", "line 1: LID 999 outside the topology's 1.."},
    };
    ibr_topo *t = ibr_test_topo_faults("fattree:levels=2,radix=4", 0, 0, 1, 0);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++) {
        int rc = ibr_result_parse_path_sl(r, errs[k].text, strlen(errs[k].text));
        const char *msg = ibr_result_last_error(r);
        if (rc != IBR_EPARSE || !strstr(msg, errs[k].want))
            fprintf(stderr, "psl case %zu: %d \"%s\"\n", k, rc, msg);
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, errs[k].want));
        CU_ASSERT_EQUAL(ibr_result_sl_mode(r), IBR_SL_NONE);
    }
    CU_ASSERT_EQUAL(ibr_result_parse_path_sl(NULL, "", 0), IBR_EINVAL);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

#define CAX(node, ports, port, lid, pn)                                                   \
    "{ CA Ports:" ports " SystemGUID:" node " NodeGUID:" node " PortGUID:" port           \
    " VenID:0 DevID:0 Rev:0 {h} LID:" lid " PN:" pn " }"

/* ConnectX-4 and later: each port a CA whose port GUID is its node GUID,
   node GUIDs consecutive, in any order; a port GUID that another CA holds
   only by default. A GUID the text gives two ports is an error. */
static void test_port_guid_clashes(void)
{
    const char *text =
        SW1 "PN:01 } " CAX("0000000000000011", "01", "0000000000000011", "0002", "01") LINK
        SW1 "PN:02 } " CAX("0000000000000010", "01", "0000000000000010", "0003", "01") LINK
        SW1 "PN:03 } " CAX("0000000000000030", "02", "0000000000000031", "0004", "01") LINK
        SW1 "PN:04 } " CAX("0000000000000040", "01", "0000000000000032", "0005", "01") LINK
        SW1 "PN:05 } " CAX("0000000000000030", "02", "0000000000000033", "0006", "02") LINK;
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    int rc = ibr_fabric_parse_subnet_lst(f, text, strlen(text));
    if (rc)
        fprintf(stderr, "clashes: %s\n", ibr_fabric_last_error(f));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    static const struct {
        uint64_t node;
        unsigned port;
        uint64_t guid;
    } want[] = {{0x11, 1, 0x11}, {0x10, 1, 0x10}, {0x30, 1, 0x31}, {0x40, 1, 0x32}, {0x30, 2, 0x33}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t n;
        unsigned p;
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_find_guid(&n, &p, f, want[k].node), 0);
        CU_ASSERT_EQUAL(ibr_fabric_port_info(&pi, f, n, want[k].port), 0);
        CU_ASSERT_EQUAL(pi.guid, want[k].guid);
    }
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL(ibr_fabric_freeze(&t, f), 0);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);

    const char *dup = SW1 "PN:01 } " CAX("0000000000000011", "01", "0000000000000077", "0002", "01")
        LINK SW1 "PN:02 } " CAX("0000000000000010", "01", "0000000000000077", "0003", "01") LINK;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_parse_subnet_lst(f, dup, strlen(dup)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "line 2: "));
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
    ibr_fabric_destroy(f);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"OpenSM's opensm-subnet.lst is its topology", test_real_opensm},
        {"writer round trip, with faults and LMC", test_roundtrip},
        {"errors: line, code, fabric left empty", test_errors},
        {"every prefix of a text", test_truncated},
        {"port GUID clashes (ConnectX-4 style)", test_port_guid_clashes},
        {"ibdiagnet files written read back", test_ibdiagnet_roundtrip},
        {"ibdiagnet's SL2VL tables", test_sl2vl},
        {"path SLs (ibdmchk -c)", test_path_sl},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("subnet_lst", tests);
}
