/* Topology and routing formats: the ibnetdiscover/ibsim parser and writer,
   guid2lid, OpenSM's dumps (checked byte for byte against files the real
   OpenSM and infiniband-diags wrote), the LFT reader, error cases and
   allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static char *data(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", IBR_TEST_DATA, name);
    char *b = ibr_test_read_file(path, len);
    if (!b)
        fprintf(stderr, "cannot read %s\n", path);
    return b;
}

/* Parse topology text into a new fabric; NULL (and a message) on error. */
static ibr_fabric *parse_text(ibr_context *ctx, const char *text, size_t len)
{
    ibr_fabric *f = NULL;
    if (ibr_fabric_create(&f, ctx) < 0)
        return NULL;
    int rc = ibr_fabric_parse_ibnetdiscover(f, text, len);
    if (rc < 0) {
        fprintf(stderr, "parse: %s: %s\n", ibr_status_name(rc), ibr_fabric_last_error(f));
        ibr_fabric_destroy(f);
        return NULL;
    }
    return f;
}

static ibr_fabric *parse_file(ibr_context *ctx, const char *name)
{
    size_t len;
    char *b = data(name, &len);
    if (!b)
        return NULL;
    ibr_fabric *f = parse_text(ctx, b, len);
    free(b);
    return f;
}

static int apply_guid2lid(ibr_fabric *f, const char *name)
{
    size_t len;
    char *b = data(name, &len);
    if (!b)
        return -1;
    int rc = ibr_fabric_parse_guid2lid(f, b, len);
    if (rc < 0)
        fprintf(stderr, "guid2lid: %s\n", ibr_fabric_last_error(f));
    free(b);
    return rc;
}

static ibr_topo *freeze(ibr_fabric *f)
{
    ibr_topo *t = NULL;
    if (f && ibr_fabric_freeze(&t, f) < 0)
        return NULL;
    return t;
}

static uint32_t node_by_guid(const ibr_fabric *f, uint64_t guid)
{
    uint32_t n;
    unsigned p;
    if (ibr_fabric_find_guid(&n, &p, f, guid) < 0)
        return IBR_NONE;
    return n;
}

/* Same nodes (matched by node GUID), same ports, links, LIDs. */
static int same_fabric(const ibr_fabric *a, const ibr_fabric *b)
{
    if (ibr_fabric_node_count(a) != ibr_fabric_node_count(b)) {
        fprintf(stderr, "node counts differ: %u vs %u\n", ibr_fabric_node_count(a),
                ibr_fabric_node_count(b));
        return 0;
    }
    for (uint32_t i = 0; i < ibr_fabric_node_count(a); i++) {
        ibr_node_info x = IBR_NODE_INFO_INIT, y = IBR_NODE_INFO_INIT;
        ibr_fabric_node_info(&x, a, i);
        uint32_t j = node_by_guid(b, x.node_guid);
        if (j == IBR_NONE || ibr_fabric_node_info(&y, b, j) < 0) {
            fprintf(stderr, "node 0x%016llx missing\n", (unsigned long long)x.node_guid);
            return 0;
        }
        if (x.type != y.type || x.nports != y.nports || x.node_guid != y.node_guid ||
            x.sysimg_guid != y.sysimg_guid || x.port0_guid != y.port0_guid ||
            strcmp(x.desc, y.desc) != 0) {
            fprintf(stderr, "node 0x%016llx differs (desc '%s' vs '%s')\n",
                    (unsigned long long)x.node_guid, x.desc, y.desc);
            return 0;
        }
        for (unsigned p = 0; p <= x.nports; p++) {
            ibr_port_info pa = IBR_PORT_INFO_INIT, pb = IBR_PORT_INFO_INIT;
            ibr_fabric_port_info(&pa, a, i, p);
            ibr_fabric_port_info(&pb, b, j, p);
            int ok = pa.guid == pb.guid && pa.lid == pb.lid && pa.lmc == pb.lmc &&
                     (pa.remote_node == IBR_NONE) == (pb.remote_node == IBR_NONE) &&
                     pa.vl_cap == pb.vl_cap && pa.oper_vls == pb.oper_vls &&
                     pa.width_enabled == pb.width_enabled && pa.speed_enabled == pb.speed_enabled;
            if (ok && pa.remote_node != IBR_NONE) {
                ibr_node_info ra = IBR_NODE_INFO_INIT, rb = IBR_NODE_INFO_INIT;
                ibr_fabric_node_info(&ra, a, pa.remote_node);
                ibr_fabric_node_info(&rb, b, pb.remote_node);
                ok = ra.node_guid == rb.node_guid && pa.remote_port == pb.remote_port &&
                     pa.width == pb.width && pa.speed == pb.speed && pa.state == pb.state;
            }
            if (!ok) {
                fprintf(stderr, "node 0x%016llx port %u differs\n",
                        (unsigned long long)x.node_guid, p);
                return 0;
            }
        }
    }
    return 1;
}

/* Compare a buffer with expected text; print the first differing line. */
static int same_text(const char *what, const char *got, size_t glen, const char *want,
                     size_t wlen)
{
    if (glen == wlen && memcmp(got, want, glen) == 0)
        return 1;
    size_t i = 0, line = 1, start = 0;
    while (i < glen && i < wlen && got[i] == want[i]) {
        if (got[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    const char *ge = memchr(got + start, '\n', glen - start);
    const char *we = memchr(want + start, '\n', wlen - start);
    fprintf(stderr, "%s: line %zu differs\n  got:  %.*s\n  want: %.*s\n", what, line,
            (int)((ge ? ge : got + glen) - (got + start)), got + start,
            (int)((we ? we : want + wlen) - (want + start)), want + start);
    return 0;
}

static int same_as_file(const ibr_buffer *b, const char *name)
{
    size_t len;
    char *want = data(name, &len);
    if (!want)
        return 0;
    int ok = same_text(name, b->data ? b->data : "", b->size, want, len);
    free(want);
    return ok;
}

/* Replace every occurrence of from by to (to not longer than from). */
static void replace_all(char *s, size_t *len, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), o = 0;
    for (size_t i = 0; i < *len;) {
        if (i + fl <= *len && memcmp(s + i, from, fl) == 0) {
            memcpy(s + o, to, tl);
            o += tl;
            i += fl;
        } else {
            s[o++] = s[i++];
        }
    }
    *len = o;
    s[o] = 0;
}

static ibr_result *read_lfts(const ibr_topo *t, const char *name)
{
    size_t len;
    char *b = data(name, &len);
    ibr_result *r = NULL;
    if (!b)
        return NULL;
    int rc = ibr_result_parse_lfts(&r, t, b, len);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", name, r ? ibr_result_last_error(r) : ibr_strerror(rc));
        ibr_result_destroy(r);
        r = NULL;
    }
    free(b);
    return r;
}

static int same_lfts(const ibr_result *a, const ibr_result *b)
{
    const ibr_topo *t = ibr_result_topo(a);
    if (ibr_result_lft_size(a) != ibr_result_lft_size(b))
        return 0;
    for (uint32_t sw = 0; sw < ibr_topo_switch_count(t); sw++) {
        const uint8_t *x = ibr_result_lft(a, sw), *y = ibr_result_lft(b, sw);
        if (!x || !y || memcmp(x, y, ibr_result_lft_size(a)) != 0) {
            fprintf(stderr, "LFT of switch %u differs\n", sw);
            return 0;
        }
    }
    return 1;
}

/* ibr_lfts_stream over text in pieces of piece bytes (the last piece may
   be shorter): rc and *out as ibr_lfts_stream_finish() gives them. A feed
   that fails must say so again on the next piece, with the same message. */
static int stream_lfts(ibr_result **out, const ibr_topo *t, const char *text, size_t len,
                       size_t piece)
{
    ibr_lfts_stream *s = NULL;
    int rc = ibr_lfts_stream_new(&s, t);
    if (rc < 0) {
        *out = NULL;
        return rc;
    }
    for (size_t at = 0; at < len; at += piece) {
        size_t n = len - at < piece ? len - at : piece;
        rc = ibr_lfts_stream_feed(s, text + at, n);
        if (rc < 0) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", ibr_lfts_stream_last_error(s));
            CU_ASSERT(msg[0] != 0);
            CU_ASSERT_EQUAL(ibr_lfts_stream_feed(s, "\n", 1), rc);
            CU_ASSERT_STRING_EQUAL(ibr_lfts_stream_last_error(s), msg);
            break;
        }
    }
    rc = ibr_lfts_stream_finish(s, out);
    /* spent */
    ibr_result *again = NULL;
    CU_ASSERT_EQUAL(ibr_lfts_stream_finish(s, &again), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(again);
    CU_ASSERT_EQUAL(ibr_lfts_stream_feed(s, "0x1 1\n", 6), IBR_EINVAL);
    ibr_lfts_stream_destroy(s);
    return rc;
}

/* ------------------------------------------------------------------ */
/* ibnetdiscover / ibsim parser                                        */

static void test_ibsim_examples(void)
{
    static const struct {
        const char *file;
        unsigned nodes, switches, links;
    } ex[] = {
        {"ibsim/net", 4, 2, 4},
        {"ibsim/net.1", 3, 1, 2},
        {"ibsim/net.2sw2path", 4, 2, 4},
        {"ibsim/net.2sw2path4hca", 6, 2, 6},
        {"ibsim/net.2sw2path4hca2port", 4, 2, 6},
    };
    for (size_t k = 0; k < sizeof ex / sizeof ex[0]; k++) {
        ibr_fabric *f = parse_file(NULL, ex[k].file);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), ex[k].nodes);
        unsigned sw = 0, ends = 0;
        for (uint32_t i = 0; i < ibr_fabric_node_count(f); i++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_fabric_node_info(&ni, f, i);
            sw += ni.type == IBR_NODE_SWITCH;
            for (unsigned p = 1; p <= ni.nports; p++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_fabric_port_info(&pi, f, i, p);
                ends += pi.remote_node != IBR_NONE;
            }
        }
        CU_ASSERT_EQUAL(sw, ex[k].switches);
        CU_ASSERT_EQUAL(ends, 2 * ex[k].links);
        ibr_fabric_destroy(f);
    }

    /* ibsim numbering: switches from 0x200000, CAs from 0x100000 with
       nports + 1 GUIDs each, description = id, remote port default 1 */
    ibr_fabric *f = parse_file(NULL, "ibsim/net");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    uint32_t s1 = node_by_guid(f, 0x200000), s2 = node_by_guid(f, 0x200001);
    uint32_t h1 = node_by_guid(f, 0x100000), h2 = node_by_guid(f, 0x100003);
    CU_ASSERT(s1 != IBR_NONE && s2 != IBR_NONE && h1 != IBR_NONE && h2 != IBR_NONE);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    ibr_fabric_node_info(&ni, f, s1);
    CU_ASSERT_STRING_EQUAL(ni.desc, "Switch1");
    CU_ASSERT_EQUAL(ni.nports, 8);
    ibr_fabric_node_info(&ni, f, h2);
    CU_ASSERT_STRING_EQUAL(ni.desc, "Hca2");
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_fabric_port_info(&pi, f, h2, 2); /* "[2] "Switch1"[2]" */
    CU_ASSERT_EQUAL(pi.remote_node, s1);
    CU_ASSERT_EQUAL(pi.remote_port, 2);
    CU_ASSERT_EQUAL(pi.guid, 0x100005);
    ibr_fabric_port_info(&pi, f, s1, 3);
    CU_ASSERT_EQUAL(pi.remote_node, s2);
    CU_ASSERT_EQUAL(pi.remote_port, 3);
    CU_ASSERT_EQUAL(pi.lid, 0);
    ibr_fabric_destroy(f);
}

static void test_chassis_dump(void)
{
    ibr_fabric *f = parse_file(NULL, "ibnetdiscover-chassis.txt");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* the spine and line switches are printed twice: kept once */
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 9);
    {
        /* the same dump twice (concatenated): the second copy's first
           record repeats the first copy's outside "# Chassis Switches" */
        size_t len;
        char *text = data("ibnetdiscover-chassis.txt", &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        char *two = malloc(2 * len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(two);
        memcpy(two, text, len);
        memcpy(two + len, text, len);
        uint32_t lines = 0;
        for (size_t i = 0; i < len; i++)
            lines += text[i] == '\n';
        ibr_fabric *g = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&g, NULL), 0);
        CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(g, two, 2 * len), IBR_EPARSE);
        char want[128];
        snprintf(want, sizeof want,
                 "line %u: duplicate node GUID 0x0008f10400411122 (first at line 13) [TP039]",
                 (unsigned)(lines + 13));
        CU_ASSERT_STRING_EQUAL(ibr_fabric_last_error(g), want);
        CU_ASSERT_EQUAL(ibr_fabric_node_count(g), 0);
        ibr_fabric_destroy(g);
        free(two);
        free(text);
    }
    uint32_t spine = node_by_guid(f, 0x0008f10400411122);
    uint32_t line = node_by_guid(f, 0x0008f10400411123);
    uint32_t leaf = node_by_guid(f, 0x0002c90200400000);
    uint32_t cx3 = node_by_guid(f, 0x0002c903000a0b00);
    uint32_t b101 = node_by_guid(f, 0xe41d2d0300a0b101);
    uint32_t io = node_by_guid(f, 0x0002c90300001111);
    uint32_t peer = node_by_guid(f, 0x0002c90300002222);
    uint32_t rt = node_by_guid(f, 0x0002c90500000001);
    CU_ASSERT_FATAL(spine != IBR_NONE && line != IBR_NONE && leaf != IBR_NONE &&
                    cx3 != IBR_NONE && b101 != IBR_NONE && io != IBR_NONE &&
                    peer != IBR_NONE && rt != IBR_NONE);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_fabric_node_info(&ni, f, spine);
    CU_ASSERT_EQUAL(ni.type, IBR_NODE_SWITCH);
    CU_ASSERT_EQUAL(ni.nports, 24);
    CU_ASSERT_EQUAL(ni.sysimg_guid, 0x0008f10400411120);
    CU_ASSERT_STRING_EQUAL(ni.desc, "ISR9024D Voltaire sLB-24D");
    ibr_fabric_port_info(&pi, f, spine, 0);
    CU_ASSERT_EQUAL(pi.lid, 1);
    ibr_fabric_port_info(&pi, f, spine, 2);
    CU_ASSERT_EQUAL(pi.remote_node, leaf);
    CU_ASSERT_EQUAL(pi.remote_port, 1);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_FDR);
    /* [14][ext 2] -> leaf [7] */
    ibr_fabric_port_info(&pi, f, line, 14);
    CU_ASSERT_EQUAL(pi.remote_node, leaf);
    CU_ASSERT_EQUAL(pi.remote_port, 7);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_EDR);
    /* CA with a system image GUID and LMC 1 */
    ibr_fabric_node_info(&ni, f, cx3);
    CU_ASSERT_EQUAL(ni.sysimg_guid, 0x0002c903000a0b03);
    CU_ASSERT_STRING_EQUAL(ni.desc, "node01 HCA-1");
    ibr_fabric_port_info(&pi, f, cx3, 2);
    CU_ASSERT_EQUAL(pi.guid, 0x0002c903000a0b02);
    CU_ASSERT_EQUAL(pi.lid, 6);
    CU_ASSERT_EQUAL(pi.lmc, 1);
    CU_ASSERT_EQUAL(pi.remote_node, leaf);
    /* ConnectX-4 style: port GUID = node GUID, for both functions */
    ibr_fabric_port_info(&pi, f, b101, 1);
    CU_ASSERT_EQUAL(pi.guid, 0xe41d2d0300a0b101);
    CU_ASSERT_EQUAL(pi.lid, 8);
    uint32_t b100 = node_by_guid(f, 0xe41d2d0300a0b100);
    CU_ASSERT_FATAL(b100 != IBR_NONE);
    ibr_fabric_port_info(&pi, f, b100, 1);
    CU_ASSERT_EQUAL(pi.guid, 0xe41d2d0300a0b100);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_2X);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_NDR);
    /* quotes inside a description */
    ibr_fabric_node_info(&ni, f, io);
    CU_ASSERT_STRING_EQUAL(ni.desc, "io \"quoted\" node");
    /* back-to-back CAs: no LID, 4xDDR */
    ibr_fabric_port_info(&pi, f, io, 1);
    CU_ASSERT_EQUAL(pi.remote_node, peer);
    CU_ASSERT_EQUAL(pi.lid, 0);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_DDR);
    ibr_fabric_port_info(&pi, f, io, 2);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_12X);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_SDR);
    /* router */
    ibr_fabric_node_info(&ni, f, rt);
    CU_ASSERT_EQUAL(ni.type, IBR_NODE_ROUTER);
    ibr_fabric_port_info(&pi, f, rt, 1);
    CU_ASSERT_EQUAL(pi.guid, 0x0002c90500000002);
    CU_ASSERT_EQUAL(pi.lid, 14);
    CU_ASSERT_EQUAL(pi.lmc, 1);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_1X);
    ibr_topo *t = freeze(f);
    CU_ASSERT_PTR_NOT_NULL(t);
    CU_ASSERT_EQUAL(ibr_topo_switch_count(t), 3);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* Real ibnetdiscover output (plain and -g -f) taken on an ibsim fabric
   that OpenSM had configured describes the fabric we gave ibsim, with the
   LIDs OpenSM assigned. */
static void test_tool_dumps(void)
{
    ibr_fabric *ref = parse_file(NULL, "osm-lmc2/topo.net");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
    CU_ASSERT_EQUAL_FATAL(apply_guid2lid(ref, "osm-lmc2/guid2lid"), 0);
    ibr_fabric *a = parse_file(NULL, "osm-lmc2/ibnetdiscover.out");
    ibr_fabric *b = parse_file(NULL, "osm-lmc2/ibnetdiscover-gf.out");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT(same_fabric(ref, a));
    CU_ASSERT(same_fabric(ref, b));
    ibr_fabric_destroy(ref);
    ibr_fabric_destroy(a);
    ibr_fabric_destroy(b);
}

/* write -> parse gives the same fabric; writing again gives the same
   text. */
static void roundtrip(ibr_fabric *f)
{
    ibr_topo *t = freeze(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_buffer b1 = IBR_BUFFER_INIT, b2 = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_write_ibnetdiscover(&b1, t), 0);
    CU_ASSERT_EQUAL(strlen(b1.data), b1.size);
    ibr_fabric *g = parse_text(NULL, b1.data, b1.size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT(same_fabric(f, g));
    ibr_topo *u = freeze(g);
    CU_ASSERT_EQUAL_FATAL(ibr_topo_write_ibnetdiscover(&b2, u), 0);
    CU_ASSERT(same_text("rewrite", b2.data, b2.size, b1.data, b1.size));
    ibr_buffer_dispose(&b1);
    ibr_buffer_dispose(&b2);
    ibr_topo_destroy(t);
    ibr_topo_destroy(u);
    ibr_fabric_destroy(g);
}

static void test_roundtrip(void)
{
    static const char *specs[] = {
        "fattree:levels=2,radix=8",
        "torus:dims=3x3x2,hosts=2",
        "mesh:dims=4x3,hosts=1,parallel=2",
        "dragonfly:a=4,p=2,h=2,g=5",
        "random:switches=12,degree=3,hosts=2,seed=7",
    };
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[k]), 0);
        if (k == 1) /* LMC */
            CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 2, IBR_LIDS_REASSIGN), 0);
        if (k == 2 || k == 4) /* links and a switch in the down state */
            CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 2, 1, 3), 0);
        roundtrip(f);
        ibr_fabric_destroy(f);
    }
    ibr_fabric *f = parse_file(NULL, "ibnetdiscover-chassis.txt");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    roundtrip(f);
    ibr_fabric_destroy(f);
    f = parse_file(NULL, "ibsim/net.2sw2path4hca2port");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    roundtrip(f);
    ibr_fabric_destroy(f);
}

/* Speeds and widths the writer prints are read back; "(down)" marks a
   down link. */
static void test_link_attributes(void)
{
    static const ibr_link_speed speeds[] = {IBR_SPEED_SDR, IBR_SPEED_DDR, IBR_SPEED_QDR,
                                            IBR_SPEED_FDR10, IBR_SPEED_FDR, IBR_SPEED_EDR,
                                            IBR_SPEED_HDR, IBR_SPEED_NDR, IBR_SPEED_XDR};
    static const ibr_link_width widths[] = {IBR_WIDTH_1X, IBR_WIDTH_2X, IBR_WIDTH_4X,
                                            IBR_WIDTH_8X, IBR_WIDTH_12X};
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    uint32_t sw;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&sw, f, IBR_NODE_SWITCH, 0x5000, 20, "sw"), 0);
    for (unsigned i = 0; i < 9; i++) {
        uint32_t ca;
        CU_ASSERT_EQUAL_FATAL(
            ibr_fabric_add_node(&ca, f, IBR_NODE_CA, 0x7000 + 0x10 * i, 2, "host"), 0);
        ibr_link_attr a = {IBR_LINK_ATTR_VERSION, widths[i % 5], speeds[i],
                           i == 4 ? IBR_LINK_DOWN : IBR_LINK_ACTIVE};
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_link(f, sw, 1 + i, ca, 1, &a), 0);
        /* VLCap other than the default, and ports enabling more than their
           link runs at (throttled cables) are written and read back */
        ibr_port_attr pa = IBR_PORT_ATTR_INIT;
        pa.vl_cap = (unsigned[]){1, 2, 4, 15, 0}[i % 5];
        if (i % 3 == 0) {
            pa.width_enabled = widths[i % 5] | IBR_WIDTH_12X;
            pa.speed_enabled = IBR_SPEED_BIT(speeds[i]) | IBR_SPEED_BIT(IBR_SPEED_HDR);
        }
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, sw, 1 + i, &pa), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_port_attr(f, ca, 1, &pa), 0);
    }
    roundtrip(f);
    ibr_fabric_destroy(f);
}

/* What a dump says about VLs and enabled widths and speeds: "v=" is the
   VLCap (ibnetdiscover -f), "w= s= e=" the enabled masks; a printed width
   and speed below what both ends enable is a throttled link. A dump
   without them gives the defaults. */
static void test_port_facts(void)
{
    static const char text[] =
        "switchguid=0x10\nSwitch\t4 \"S1\"\t# \"sw1\" lid 1 lmc 0\n"
        "[1]\t\"S2\"[1]\t# \"sw2\" lid 2 1xQDR w=3 s=7 v=3\n"
        "[2]\t\"S2\"[2]\t# \"sw2\" lid 2 4xDDR v=9\n"
        "[3]\t\"A\"[1]\t# \"a\" lid 3 4xQDR\n"
        "\n"
        "switchguid=0x20\nSwitch\t4 \"S2\"\t# \"sw2\" lid 2 lmc 0\n"
        "[1]\t\"S1\"[1]\t# \"sw1\" lid 1 1xQDR w=2 v=2\n"
        "[2]\t\"S1\"[2]\t# \"sw1\" lid 1 4xDDR s=7\n"
        "\n"
        "caguid=0x100\nCa\t1 \"A\"\n"
        "[1]\t\"S1\"[3]\t# lid 3 lmc 0 \"sw1\" lid 1 4xQDR\n";
    ibr_fabric *f = parse_text(NULL, text, sizeof text - 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    uint32_t s1 = node_by_guid(f, 0x10), s2 = node_by_guid(f, 0x20), a = node_by_guid(f, 0x100);
    ibr_fabric_port_info(&pi, f, s1, 1);
    CU_ASSERT_EQUAL(pi.width, IBR_WIDTH_1X); /* the printed active width */
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_QDR);
    CU_ASSERT_EQUAL(pi.vl_cap, 4);
    CU_ASSERT_EQUAL(pi.oper_vls, 2); /* the far end has VLCap 2 */
    CU_ASSERT_EQUAL(pi.width_enabled, IBR_WIDTH_1X | IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(pi.speed_enabled, IBR_SPEED_BIT(IBR_SPEED_SDR) | IBR_SPEED_BIT(IBR_SPEED_DDR) |
                                          IBR_SPEED_BIT(IBR_SPEED_QDR));
    ibr_fabric_port_info(&pi, f, s2, 1);
    CU_ASSERT_EQUAL(pi.vl_cap, 2);
    CU_ASSERT_EQUAL(pi.width_enabled, IBR_WIDTH_1X | IBR_WIDTH_4X);
    /* v=9 is not a VLCap: ignored, as every v= used to be */
    ibr_fabric_port_info(&pi, f, s1, 2);
    CU_ASSERT_EQUAL(pi.vl_cap, 8);
    CU_ASSERT_EQUAL(pi.speed_enabled, IBR_SPEED_BIT(IBR_SPEED_DDR));
    ibr_fabric_port_info(&pi, f, s2, 2);
    CU_ASSERT_EQUAL(pi.speed, IBR_SPEED_DDR);
    CU_ASSERT_EQUAL(pi.speed_enabled, IBR_SPEED_BIT(IBR_SPEED_SDR) | IBR_SPEED_BIT(IBR_SPEED_DDR) |
                                          IBR_SPEED_BIT(IBR_SPEED_QDR));
    /* no facts printed: the defaults */
    ibr_fabric_port_info(&pi, f, a, 1);
    CU_ASSERT_EQUAL(pi.vl_cap, 8);
    CU_ASSERT_EQUAL(pi.oper_vls, 8);
    CU_ASSERT_EQUAL(pi.width_enabled, IBR_WIDTH_4X);
    CU_ASSERT_EQUAL(pi.speed_enabled, IBR_SPEED_BIT(IBR_SPEED_QDR));
    roundtrip(f);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* parser errors                                                       */

#define SW1 "switchguid=0x10\nSwitch\t4 \"S1\"\t# \"sw\" lid 1 lmc 0\n"
#define CA_A "caguid=0x100\nCa\t1 \"A\"\t# \"a\"\n"

static const struct perr_case {
    const char *text;
    int code;
    const char *msg; /* part of the message, with the line number */
} perr_cases[] = {
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\n\nCa\t1 \"A\"\n[1] \"S1\"[2]\n", IBR_EPARSE,
     "line 9: duplicate node id \"A\" (first defined on line 6)"},
    {SW1 "[1]\t\"B\"[1]\n", IBR_EPARSE, "line 3: unknown node \"B\""},
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A, IBR_EPARSE, "line 3: asymmetric link"},
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[2]\n", IBR_EPARSE, "line 3: asymmetric link"},
    {SW1 "[5]\t\"A\"[1]\n", IBR_EPARSE, "line 3: port 5 out of range"},
    {SW1 "[1]\t\"A\"[3]\n\n" CA_A "[1]\t\"S1\"[1]\n", IBR_EPARSE, "line 3: port 3 out of range"},
    {SW1 "[1]\t\"A\"[1]\n[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\n", IBR_EPARSE,
     "line 4: port 1 of \"S1\" listed twice"},
    {SW1 "[x]\t\"A\"[1]\n", IBR_EPARSE, "line 3: bad port number"},
    {SW1 "[1]\tA[1]\n", IBR_EPARSE, "line 3: missing quoted remote node id"},
    {"\n[1]\t\"A\"[1]\n", IBR_EPARSE, "line 2: port line outside a node record"},
    {"Switch\t\"S1\"\n", IBR_EPARSE, "line 1: missing port count"},
    {"Switch\t0 \"S1\"\n", IBR_EPARSE, "line 1: 0 ports (must be 1..254)"},
    {"Switch\t255 \"S1\"\n", IBR_EPARSE, "line 1: 255 ports"},
    {"Switch\t8 S1\n", IBR_EPARSE, "line 1: missing quoted node id"},
    {"switchguid=zz\n", IBR_EPARSE, "line 1: bad value \"zz\" for \"switchguid\""},
    /* trailing junk after a number is not a different number */
    {"caguid=0x0002c9030000100g\nCa\t1 \"A\"\n", IBR_EPARSE,
     "line 1: bad value \"0x0002c9030000100g\" for \"caguid\""},
    {"sysimgguid=0x10z\n", IBR_EPARSE, "line 1: bad value \"0x10z\" for \"sysimgguid\""},
    {"vendid=0x2c9.\n", IBR_EPARSE, "line 1: bad value \"0x2c9.\" for \"vendid\""},
    {"switchguid=0x10g(10)\n", IBR_EPARSE, "line 1: bad value \"0x10g(10)\" for \"switchguid\""},
    {"switchguid=0x10(10)g\n", IBR_EPARSE, "line 1: bad port GUID after switchguid"},
    {"switchguid=0x10(1g)\n", IBR_EPARSE, "line 1: bad port GUID after switchguid"},
    {"caguid=0x100 0x200\n", IBR_EPARSE, "line 1: unexpected text \"0x200\" after \"caguid\" value"},
    {SW1 "[1][ext 1g]\t\"A\"[1]\n", IBR_EPARSE, "line 3: bad \"[ext N]\" port mapping"},
    {SW1 "[1]\t\"A\"[1][ext x]\n", IBR_EPARSE, "line 3: bad remote \"[ext N]\" port mapping"},
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\t# lid 4g lmc 0 \"sw\" lid 1 4xQDR\n",
     IBR_EPARSE, "line 7: bad LID \"4g\""},
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\t# lid 4 lmc 0x \"sw\" lid 1 4xQDR\n",
     IBR_EPARSE, "line 7: bad LMC \"0x\""},
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\t# lid 4 lmc 0 \"sw\" lid 1z 4xQDR\n",
     IBR_EPARSE, "line 7: bad LID \"1z\""},
    {SW1 "[1]\t\"A\"[1]\tv=4g\n", IBR_EPARSE, "line 3: bad port option \"v=4g\""},
    {"caguid 0x5\n", IBR_EPARSE, "line 1: expected '='"},
    {"# c\ninclude \"other.net\"\n", IBR_EPARSE, "line 2: ibsim \"include\" is not supported"},
    {SW1 "@1 \"alias\"\n", IBR_EPARSE, "line 3: ibsim port aliases are not supported"},
    /* duplicate node GUID (explicit caguid twice) */
    {CA_A "\n" "caguid=0x100\nCa\t1 \"B\"\n", IBR_EPARSE,
     "line 5: duplicate node GUID 0x0000000000000100 (first at line 2, node \"A\")"},
    /* a node block given twice (two dumps concatenated): outside
       ibnetdiscover -g's "# Chassis Switches" a repeat is an error */
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\n\n" SW1 "[1]\t\"A\"[1]\n\n" CA_A
         "[1]\t\"S1\"[1]\n",
     IBR_EPARSE, "line 10: duplicate node GUID 0x0000000000000010 (first at line 2)"},
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\n\n# Spine Nodes\n" CA_A
         "[1]\t\"S1\"[1]\n",
     IBR_EPARSE, "line 11: duplicate node GUID 0x0000000000000100 (first at line 6)"},
    /* under "# Chassis Switches" only a switch may repeat */
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\n\n# Chassis Switches\n" CA_A
         "[1]\t\"S1\"[1]\n",
     IBR_EPARSE, "line 11: duplicate node GUID 0x0000000000000100 (first at line 6)"},
    /* a port GUID used twice */
    {SW1 "[1]\t\"A\"[1]\n[2]\t\"B\"[1]\n\n" CA_A "[1](77) \t\"S1\"[1]\n\n"
         "caguid=0x200\nCa\t1 \"B\"\n[1](77) \t\"S1\"[2]\n",
     IBR_EPARSE, "line 12: duplicate port GUID 0x0000000000000077 (also port 1 of \"A\")"},
    /* the same LID twice */
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\t# lid 1 lmc 0 \"sw\" lid 1 4xQDR\n",
     IBR_EPARSE, "line 7: CA 0x0000000000000100 port 1: LID 1 already belongs to switch"},
    /* base LID not aligned to the LMC */
    {SW1 "[1]\t\"A\"[1]\n\n" CA_A "[1]\t\"S1\"[1]\t# lid 5 lmc 1 \"sw\" lid 1 4xQDR\n",
     IBR_EPARSE, "line 7: CA 0x0000000000000100 port 1: LID 5 is not a multiple"},
    {"Switch\t4 \"S1\"\t# \"sw\" lid 99999 lmc 0\n", IBR_EPARSE, "line 1: bad switch LID"},
    {SW1 "[1]\t\"A\"[1]\tw=99\n", IBR_EPARSE, "line 3: w=99"},
    {SW1 "[1]\t\"A\"[1]\ts=x\n", IBR_EPARSE, "line 3: bad port option \"s=x\""},
    /* a port cabled to itself */
    {SW1 "[1]\t\"S1\"[1]\n", IBR_EPARSE, "line 3: "},
};

static void test_parse_errors(void)
{
    for (size_t k = 0; k < sizeof perr_cases / sizeof perr_cases[0]; k++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        const char *text = perr_cases[k].text;
        int rc = ibr_fabric_parse_ibnetdiscover(f, text, strlen(text));
        const char *msg = ibr_fabric_last_error(f);
        if (rc != perr_cases[k].code || !strstr(msg, perr_cases[k].msg))
            fprintf(stderr, "case %zu: got %s \"%s\", want %s \"%s\"\n", k,
                    ibr_status_name(rc), msg, ibr_status_name(perr_cases[k].code),
                    perr_cases[k].msg);
        CU_ASSERT_EQUAL(rc, perr_cases[k].code);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, perr_cases[k].msg));
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
        /* the fabric is still usable and empty */
        CU_ASSERT_EQUAL(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x10, 4, "x"), 0);
        ibr_fabric_destroy(f);
    }
}

static void test_parse_state(void)
{
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(NULL, "", 0), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, NULL, 5), IBR_EINVAL);
    /* text without a node (empty, comments, junk, an LFT dump): an input
       error that says what was expected, the fabric left empty */
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, NULL, 0), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "the text is empty: expected"));
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, "# nothing\n\n", 11), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "no node record was found in 2 lines"));
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, "hello world", 11), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "Switch 36"));
    const char *lfts = "Unicast lids [0x0-0x2] of switch Lid 1 guid 0x0000000000000010 ('x'):\n"
                       "0x0001 000 : (Switch portguid 0x0000000000000010: 'x')\n";
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, lfts, strlen(lfts)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "looks like forwarding tables"));
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x10, 4, "x"), 0);
    const char *t = "Switch 4 \"A\"\n";
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, t, strlen(t)), IBR_ESTATE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "not empty"));
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 1);
    ibr_fabric_destroy(f);

    /* CRLF line ends, a last line without newline, unknown lines */
    const char *crlf = "Chassis 1 (guid 0x5)\r\nSwitch\t2 \"S-0000000000000abc\"\r\n"
                       "[1]\t\"H-0000000000000def\"[1]\r\n\r\nHostname: x\r\n"
                       "Ca\t1 \"H-0000000000000def\"\r\n[1]\t\"S-0000000000000abc\"[1]";
    f = parse_text(NULL, crlf, strlen(crlf));
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 2);
    CU_ASSERT(node_by_guid(f, 0xabc) != IBR_NONE); /* GUID taken from the id */
    CU_ASSERT(node_by_guid(f, 0xdef) != IBR_NONE);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* guid2lid                                                            */

static void lids_of(const ibr_fabric *f, uint16_t *lid, uint8_t *lmc, size_t cap)
{
    size_t k = 0;
    memset(lid, 0, cap * sizeof *lid);
    memset(lmc, 0, cap);
    for (uint32_t i = 0; i < ibr_fabric_node_count(f); i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_fabric_node_info(&ni, f, i);
        for (unsigned p = 0; p <= ni.nports && k < cap; p++, k++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_fabric_port_info(&pi, f, i, p);
            lid[k] = pi.lid;
            lmc[k] = pi.lmc;
        }
    }
}

static void test_guid2lid(void)
{
    ibr_fabric *f = NULL, *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=6"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_REASSIGN), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(g, 0, IBR_LIDS_REASSIGN), 0);
    ibr_topo *t = freeze(f);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_write_guid2lid(&b, t), 0);
    /* first entry: the first switch, LMC 0 */
    CU_ASSERT_EQUAL(strncmp(b.data, "0x", 2), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "\n\n"));
    CU_ASSERT_EQUAL(ibr_fabric_parse_guid2lid(g, b.data, b.size), 0);
    CU_ASSERT(same_fabric(f, g));
    ibr_buffer_dispose(&b);

    /* error cases leave the LIDs alone */
    static const struct {
        const char *text;
        int code;
        const char *msg;
    } bad[] = {
        {"# c\n0x0000000000999999 0x0001 0x0001\n", IBR_EPARSE,
         "line 2: unknown port GUID 0x0000000000999999"},
        {"0xzz 1 1\n", IBR_EPARSE, "line 1: bad port GUID"},
        {"\n\n0x0002c90201000000 0x0001\n", IBR_EPARSE, "line 3: bad max LID"},
        {"0x0002c90201000000 0x0003 0x0004\n", IBR_EPARSE, "line 1: misaligned LID range"},
        {"0x0002c90201000000 0x0004 0x0006\n", IBR_EPARSE, "line 1: misaligned LID range"},
        {"0x0002c90201000000 0x0000 0x0000\n", IBR_EPARSE, "line 1: bad LID range"},
        {"0x0002c90201000000 0xc000 0xc000\n", IBR_EPARSE, "line 1: bad LID range"},
        {"0x0002c90201000000 1 1 junk\n", IBR_EPARSE, "line 1: unexpected text"},
        {"0x0002c90201000000 0x0100 0x0100\n\n0x0002c90201000000 0x0101 0x0101\n",
         IBR_EPARSE, "line 3: port GUID 0x0002c90201000000 listed twice (first on line 1)"},
        {"0x0002c90201000000 0x0100 0x0100\n0x0002c90201000001 0x0100 0x0100\n", IBR_EEXIST,
         "line 2: LID 256 of port GUID 0x0002c90201000001 already belongs to switch"},
    };
    uint16_t lid0[512], lid1[512];
    uint8_t lmc0[512], lmc1[512];
    lids_of(g, lid0, lmc0, 512);
    /* the switch GUID this generator uses */
    CU_ASSERT_FATAL(node_by_guid(g, 0x0002c90201000000) != IBR_NONE);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = ibr_fabric_parse_guid2lid(g, bad[k].text, strlen(bad[k].text));
        const char *msg = ibr_fabric_last_error(g);
        if (rc != bad[k].code || !strstr(msg, bad[k].msg))
            fprintf(stderr, "guid2lid case %zu: got %s \"%s\"\n", k, ibr_status_name(rc), msg);
        CU_ASSERT_EQUAL(rc, bad[k].code);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, bad[k].msg));
        lids_of(g, lid1, lmc1, 512);
        CU_ASSERT(memcmp(lid0, lid1, sizeof lid0) == 0 && memcmp(lmc0, lmc1, sizeof lmc0) == 0);
    }
    /* a conflict with a port that is not listed */
    const char *clash = "0x0002c90201000000 0x0002 0x0002\n";
    CU_ASSERT_EQUAL(ibr_fabric_parse_guid2lid(g, clash, strlen(clash)), IBR_EEXIST);
    /* moving a LID between two listed ports is fine: all checked first */
    ibr_port_info a = IBR_PORT_INFO_INIT, c = IBR_PORT_INFO_INIT;
    uint32_t s0 = node_by_guid(g, 0x0002c90201000000), s1 = node_by_guid(g, 0x0002c90201000001);
    ibr_fabric_port_info(&a, g, s0, 0);
    ibr_fabric_port_info(&c, g, s1, 0);
    char swap[256];
    snprintf(swap, sizeof swap, "0x0002c90201000000 %u %u\n0x0002c90201000001 %u %u\n",
             (unsigned)c.lid, (unsigned)c.lid, (unsigned)a.lid, (unsigned)a.lid);
    CU_ASSERT_EQUAL(ibr_fabric_parse_guid2lid(g, swap, strlen(swap)), 0);
    ibr_port_info a2 = IBR_PORT_INFO_INIT;
    ibr_fabric_port_info(&a2, g, s0, 0);
    CU_ASSERT_EQUAL(a2.lid, c.lid);
    CU_ASSERT_STRING_EQUAL(ibr_fabric_last_error(g), "");
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_fabric_destroy(g);
}

/* ------------------------------------------------------------------ */
/* OpenSM and infiniband-diags outputs, byte for byte                  */

static void golden(const char *dir, int check_lst)
{
    char p[256];
    snprintf(p, sizeof p, "%s/topo.net", dir);
    ibr_fabric *f = parse_file(NULL, p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    snprintf(p, sizeof p, "%s/guid2lid", dir);
    CU_ASSERT_EQUAL_FATAL(apply_guid2lid(f, p), 0);
    ibr_topo *t = freeze(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    snprintf(p, sizeof p, "%s/opensm-lfts.dump", dir);
    ibr_result *r = read_lfts(t, p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "file");
    CU_ASSERT_EQUAL(ibr_result_status(r), 0);
    CU_ASSERT_FALSE(ibr_result_has_hops(r));

    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_result_write_lfts_dump(&b, r), 0);
    CU_ASSERT(same_as_file(&b, p));
    ibr_buffer_dispose(&b);

    CU_ASSERT_EQUAL(ibr_result_write_fdbs(&b, r), 0);
    snprintf(p, sizeof p, "%s/opensm.fdbs", dir);
    CU_ASSERT(same_as_file(&b, p));
    ibr_buffer_dispose(&b);

    if (check_lst) {
        /* ibsim's revision and OpenSM's SM mark are not modelled */
        size_t len;
        snprintf(p, sizeof p, "%s/opensm-subnet.lst", dir);
        char *want = data(p, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        replace_all(want, &len, "Rev:000000A1", "Rev:00000000");
        replace_all(want, &len, "-SM Ports", " Ports");
        CU_ASSERT_EQUAL(ibr_topo_write_subnet_lst(&b, t), 0);
        CU_ASSERT(same_text(p, b.data, b.size, want, len));
        free(want);
        ibr_buffer_dispose(&b);
    }

    /* the guid2lid we write has the same entries */
    CU_ASSERT_EQUAL(ibr_topo_write_guid2lid(&b, t), 0);
    ibr_fabric *g = parse_file(NULL, (snprintf(p, sizeof p, "%s/topo.net", dir), p));
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(ibr_fabric_parse_guid2lid(g, b.data, b.size), 0);
    CU_ASSERT(same_fabric(f, g));
    ibr_fabric_destroy(g);
    ibr_buffer_dispose(&b);

    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_golden_fattree(void)
{
    golden("osm-fattree", 1);
}

static void test_golden_lmc(void)
{
    golden("osm-lmc2", 1);

    /* dump_fts and ibroute output read back give OpenSM's LFTs, and our
       dump_lfts text starts with exactly what `ibroute 1` printed */
    ibr_fabric *f = parse_file(NULL, "osm-lmc2/topo.net");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL_FATAL(apply_guid2lid(f, "osm-lmc2/guid2lid"), 0);
    ibr_topo *t = freeze(f);
    ibr_result *osm = read_lfts(t, "osm-lmc2/opensm-lfts.dump");
    ibr_result *fts = read_lfts(t, "osm-lmc2/dump_fts.out");
    ibr_result *one = read_lfts(t, "osm-lmc2/ibroute1.out");
    CU_ASSERT_FATAL(osm && fts && one);
    CU_ASSERT(same_lfts(osm, fts));
    uint32_t sw0 = ibr_topo_node_switch(t, node_by_guid(f, 0x200000));
    CU_ASSERT_EQUAL(sw0, 0);
    CU_ASSERT(memcmp(ibr_result_lft(one, sw0), ibr_result_lft(osm, sw0),
                     ibr_result_lft_size(osm)) == 0);
    /* the other switch is not in ibroute's output: no routes */
    const uint8_t *l1 = ibr_result_lft(one, 1);
    for (size_t i = 0; i < ibr_result_lft_size(one); i++)
        CU_ASSERT_EQUAL(l1[i], IBR_NO_ROUTE);

    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_result_write_dump_lfts(&b, osm), 0);
    size_t len;
    char *want = data("osm-lmc2/ibroute1.out", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    CU_ASSERT(b.size > len && same_text("ibroute1.out", b.data, len, want, len));
    /* and reads back */
    ibr_result *back = NULL;
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&back, t, b.data, b.size), 0);
    CU_ASSERT(same_lfts(osm, back));
    free(want);
    ibr_buffer_dispose(&b);
    ibr_result_destroy(back);
    ibr_result_destroy(osm);
    ibr_result_destroy(fts);
    ibr_result_destroy(one);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_golden_file_engine(void)
{
    /* OpenSM's file engine loaded lfts-input.dump; its fdbs shows detours */
    golden("osm-file-mesh", 0);
    ibr_fabric *f = parse_file(NULL, "osm-file-mesh/topo.net");
    CU_ASSERT_EQUAL_FATAL(apply_guid2lid(f, "osm-file-mesh/guid2lid"), 0);
    ibr_topo *t = freeze(f);
    ibr_result *in = read_lfts(t, "osm-file-mesh/lfts-input.dump");
    ibr_result *out = read_lfts(t, "osm-file-mesh/opensm-lfts.dump");
    CU_ASSERT_FATAL(in && out);
    CU_ASSERT(same_lfts(in, out));
    ibr_result_destroy(in);
    ibr_result_destroy(out);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* ------------------------------------------------------------------ */
/* LFT round trips and reader errors                                   */

static void test_lfts_roundtrip(void)
{
    static const char *specs[] = {"fattree:levels=3,radix=4", "torus:dims=4x3,hosts=2"};
    for (size_t k = 0; k < 2; k++) {
        for (unsigned lmc = 0; lmc <= 2; lmc += 2) {
            ibr_fabric *f = NULL;
            ibr_fabric_create(&f, NULL);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, specs[k]), 0);
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_REASSIGN), 0);
            ibr_topo *t = freeze(f);
            ibr_result *r = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
            int (*writers[])(ibr_buffer *, const ibr_result *) = {ibr_result_write_lfts_dump,
                                                                  ibr_result_write_dump_lfts};
            for (int w = 0; w < 2; w++) {
                ibr_buffer b = IBR_BUFFER_INIT;
                CU_ASSERT_EQUAL_FATAL(writers[w](&b, r), 0);
                ibr_result *back = NULL;
                CU_ASSERT_EQUAL(ibr_result_parse_lfts(&back, t, b.data, b.size), 0);
                CU_ASSERT_PTR_NOT_NULL_FATAL(back);
                CU_ASSERT(same_lfts(r, back));
                CU_ASSERT_STRING_EQUAL(ibr_result_engine(back), "file");
                CU_ASSERT_EQUAL(ibr_result_attempt_count(back), 1);
                /* same input, same bytes */
                ibr_buffer b2 = IBR_BUFFER_INIT;
                CU_ASSERT_EQUAL(writers[w](&b2, back), 0);
                CU_ASSERT(same_text("rewrite", b2.data, b2.size, b.data, b.size));
                ibr_buffer_dispose(&b2);
                ibr_result_destroy(back);
                ibr_buffer_dispose(&b);
            }
            /* fdbs with the engine's hop matrix: minhop routes are optimal */
            ibr_buffer b = IBR_BUFFER_INIT;
            CU_ASSERT_EQUAL(ibr_result_write_fdbs(&b, r), 0);
            CU_ASSERT_PTR_NULL(strstr(b.data, "No "));
            CU_ASSERT_PTR_NULL(strstr(b.data, "HOPS UNKNOWN"));
            CU_ASSERT_PTR_NOT_NULL(strstr(b.data, "dump_ucast_routes: Switch 0x"));
            ibr_buffer_dispose(&b);
            ibr_result_destroy(r);
            ibr_topo_destroy(t);
            ibr_fabric_destroy(f);
        }
    }
}

/* ibdiagnet's flavour of an fdbs dump, made from ibroute's opensm.fdbs
   text: each "dump_ucast_routes: Switch" line gets ibdiagnet's prefix
   "osm_ucast_mgr_" and a "PLFT_NUM: 0" line, after it (plft_before 0) or
   before it (plft_before 1), and each switch gets a second table, private
   LFT 1, whose entries all name port 1: the reader must keep table 0 only.
   Returns a malloc'ed text. */
static char *ibdiagnet_fdbs(const ibr_buffer *b, int plft_before, size_t *len)
{
    static const char hdr[] = "dump_ucast_routes: Switch 0x";
    size_t cap = b->size * 3 + 1024, n = 0;
    char *out = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    const char *p = b->data, *e = b->data + b->size;
    char guid[17] = {0};
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(e - p);
        if (ll > sizeof hdr - 1 && memcmp(p, hdr, sizeof hdr - 1) == 0) {
            if (guid[0]) /* the previous switch's private LFT 1 */
                n += (size_t)snprintf(out + n, cap - n,
                                      "%sosm_ucast_mgr_dump_ucast_routes: Switch 0x%s\n%s"
                                      "LID    : Port : Hops : Optimal\n0x0001 : 001  : 00   : "
                                      "yes\n0x0002 : 001  : 00   : yes\n\n",
                                      plft_before ? "PLFT_NUM: 1\n" : "", guid,
                                      plft_before ? "" : "PLFT_NUM: 1\n");
            memcpy(guid, p + sizeof hdr - 1, 16);
            n += (size_t)snprintf(out + n, cap - n, "%sosm_ucast_mgr_%.*s%s",
                                  plft_before ? "PLFT_NUM: 0\n" : "", (int)ll, p,
                                  plft_before ? "" : "PLFT_NUM: 0\n");
        } else {
            memcpy(out + n, p, ll);
            n += ll;
        }
        CU_ASSERT_FATAL(n + 512 < cap);
        p += ll;
    }
    *len = n;
    return out;
}

/* fdbs dumps read back into the tables they were written from: ibroute's
   opensm.fdbs and ibdiagnet's flavour of it (with a private LFT to drop),
   on trees, tori and dragonflies, intact and with faults, LMC 0 and 2. */
static void test_fdbs_roundtrip(void)
{
    static const struct {
        const char *spec, *chain;
        unsigned links, lmc;
    } cases[] = {
        {"fattree:levels=3,radix=4", "minhop", 0, 0},
        {"fattree:levels=3,radix=4", "updn", 3, 2},
        {"torus:dims=4x3,hosts=2", "minhop", 2, 0},
        {"dragonfly:a=4,p=1,h=2,g=5", "minhop", 0, 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ibr_topo *t = ibr_test_topo_faults(cases[k].spec, cases[k].links, 0, 7 + k, cases[k].lmc);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, cases[k].chain, NULL), 0);
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_fdbs(&b, r), 0);
        ibr_result *back = NULL;
        CU_ASSERT_EQUAL(ibr_result_parse_lfts(&back, t, b.data, b.size), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(back);
        CU_ASSERT(same_lfts(r, back));
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(back), "file");
        ibr_result_destroy(back);
        for (int before = 0; before < 2; before++) {
            size_t len;
            char *text = ibdiagnet_fdbs(&b, before, &len);
            CU_ASSERT_PTR_NOT_NULL(strstr(text, "osm_ucast_mgr_dump_ucast_routes: Switch 0x"));
            CU_ASSERT_PTR_NOT_NULL(strstr(text, "PLFT_NUM: 1\n"));
            back = NULL;
            int rc = ibr_result_parse_lfts(&back, t, text, len);
            if (rc != 0)
                fprintf(stderr, "fdbs case %zu/%d: %s\n", k, before, ibr_result_last_error(back));
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_PTR_NOT_NULL_FATAL(back);
            CU_ASSERT(same_lfts(r, back));
            ibr_result_destroy(back);
            free(text);
        }
        ibr_buffer_dispose(&b);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* A dump read in pieces of any size, split inside lines too, gives the
   tables the whole text gives, for every dump the writers make (LFT dumps,
   dump_lfts, fdbs, ibdiagnet's fdbs with private LFTs) on damaged trees,
   tori and dragonflies with LMC. */
static void test_lfts_stream(void)
{
    static const struct {
        const char *spec, *chain;
        unsigned links, sws, lmc;
    } cases[] = {
        {"fattree:levels=3,radix=4", "updn", 3, 1, 1},
        {"torus:dims=4x3,hosts=2", "minhop", 2, 0, 2},
        {"dragonfly:a=4,p=1,h=2,g=5", "minhop", 1, 0, 0},
    };
    static const size_t pieces[] = {1, 3, 64, 4093, (size_t)-1};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ibr_topo *t = ibr_test_topo_faults(cases[k].spec, cases[k].links, cases[k].sws, 11 + k,
                                           cases[k].lmc);
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, cases[k].chain, NULL), 0);
        int (*writers[])(ibr_buffer *, const ibr_result *) = {
            ibr_result_write_lfts_dump, ibr_result_write_dump_lfts, ibr_result_write_fdbs};
        for (int w = 0; w < 4; w++) {
            ibr_buffer b = IBR_BUFFER_INIT;
            CU_ASSERT_EQUAL_FATAL(writers[w < 3 ? w : 2](&b, r), 0);
            size_t len = b.size;
            char *text = w < 3 ? b.data : ibdiagnet_fdbs(&b, 1, &len);
            for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
                ibr_result *back = NULL;
                int rc = stream_lfts(&back, t, text, len, pieces[p] ? pieces[p] : 1);
                if (rc != 0)
                    fprintf(stderr, "stream case %zu/%d/%zu: %s\n", k, w, pieces[p],
                            back ? ibr_result_last_error(back) : "");
                CU_ASSERT_EQUAL(rc, 0);
                CU_ASSERT_PTR_NOT_NULL_FATAL(back);
                CU_ASSERT(same_lfts(r, back));
                CU_ASSERT_STRING_EQUAL(ibr_result_engine(back), "file");
                ibr_result_destroy(back);
            }
            /* the text without its last newline: the last line is read at
               the end */
            ibr_result *back = NULL;
            CU_ASSERT_EQUAL(stream_lfts(&back, t, text, len - 1, 7), 0);
            CU_ASSERT_PTR_NOT_NULL_FATAL(back);
            CU_ASSERT(same_lfts(r, back));
            ibr_result_destroy(back);
            if (w == 3)
                free(text);
            ibr_buffer_dispose(&b);
        }
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
    /* arguments */
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_lfts_stream *s = NULL;
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_lfts_stream_new(NULL, t), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_lfts_stream_new(&s, NULL), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(ibr_lfts_stream_feed(NULL, "x", 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_lfts_stream_finish(NULL, &r), IBR_EINVAL);
    CU_ASSERT_STRING_EQUAL(ibr_lfts_stream_last_error(NULL), "");
    ibr_lfts_stream_destroy(NULL);
    CU_ASSERT_EQUAL_FATAL(ibr_lfts_stream_new(&s, t), 0);
    CU_ASSERT_EQUAL(ibr_lfts_stream_feed(s, NULL, 1), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_lfts_stream_feed(s, NULL, 0), 0);
    CU_ASSERT_EQUAL(ibr_lfts_stream_finish(s, NULL), IBR_EINVAL);
    /* an empty text, as the whole-text reader says */
    CU_ASSERT_EQUAL(ibr_lfts_stream_finish(s, &r), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_result_last_error(r), "the text is empty"));
    ibr_result_destroy(r);
    ibr_lfts_stream_destroy(s);
    /* a stream dropped half way frees what it holds (ASan's leak check) */
    CU_ASSERT_EQUAL_FATAL(ibr_lfts_stream_new(&s, t), 0);
    CU_ASSERT_EQUAL(ibr_lfts_stream_feed(s, "Unicast lids [0x0-0x", 20), 0);
    ibr_lfts_stream_destroy(s);
    ibr_topo_destroy(t);
}

/* OpenSM's own opensm.fdbs (tests/data) reads into the tables its
   opensm-lfts.dump of the same run gives. */
static void test_fdbs_opensm(void)
{
    static const char *dirs[] = {"osm-fattree", "osm-file-mesh"};
    for (size_t k = 0; k < 2; k++) {
        char p[256];
        snprintf(p, sizeof p, "%s/topo.net", dirs[k]);
        ibr_fabric *f = parse_file(NULL, p);
        snprintf(p, sizeof p, "%s/guid2lid", dirs[k]);
        CU_ASSERT_EQUAL_FATAL(apply_guid2lid(f, p), 0);
        ibr_topo *t = freeze(f);
        snprintf(p, sizeof p, "%s/opensm-lfts.dump", dirs[k]);
        ibr_result *lfts = read_lfts(t, p);
        snprintf(p, sizeof p, "%s/opensm.fdbs", dirs[k]);
        ibr_result *fdbs = read_lfts(t, p);
        CU_ASSERT_FATAL(lfts && fdbs);
        CU_ASSERT_EQUAL(ibr_result_status(fdbs), 0);
        CU_ASSERT(same_lfts(lfts, fdbs));
        ibr_result_destroy(lfts);
        ibr_result_destroy(fdbs);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

/* ibr_result_write_switches(): the parts of consecutive switch ranges,
   appended, equal the whole dump; one worker and two give the same bytes;
   bad ranges and formats are refused and leave the buffer as it was. */
static void test_switch_parts(void)
{
    static const char *specs[] = {"fattree:levels=3,radix=4", "torus:dims=4x3,hosts=2"};
    int (*whole[])(ibr_buffer *, const ibr_result *) = {
        ibr_result_write_lfts_dump, ibr_result_write_dump_lfts, ibr_result_write_fdbs,
        ibr_result_write_lid_matrix};
    for (size_t k = 0; k < 2; k++) {
        ibr_topo *t = ibr_test_topo(NULL, specs[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        uint32_t nsw = ibr_topo_switch_count(t);
        CU_ASSERT_FATAL(nsw >= 8);
        ibr_result *r[2] = {NULL, NULL};
        for (int i = 0; i < 2; i++) {
            ibr_options o;
            CU_ASSERT_EQUAL_FATAL(ibr_options_init(&o, IBR_OPTIONS_VERSION), 0);
            o.threads = i ? 2 : 1;
            CU_ASSERT_EQUAL_FATAL(ibr_route(&r[i], t, k ? "updn" : "minhop", &o), 0);
        }
        CU_ASSERT_EQUAL(ibr_result_threads(r[1]), 2);
        for (int f = 0; f < 4; f++) {
            ibr_buffer w = IBR_BUFFER_INIT, w1 = IBR_BUFFER_INIT;
            CU_ASSERT_EQUAL_FATAL(whole[f](&w, r[1]), 0);
            CU_ASSERT_EQUAL_FATAL(whole[f](&w1, r[0]), 0);
            CU_ASSERT(same_text("one worker", w1.data, w1.size, w.data, w.size));
            /* the switch blocks are all there */
            static const char *head[] = {"Unicast lids [0-", "Unicast lids [0x0-",
                                         "dump_ucast_routes: Switch", "Switch: guid"};
            size_t blocks = 0;
            for (const char *p = w.data; (p = strstr(p, head[f])) != NULL; p++)
                blocks++;
            CU_ASSERT_EQUAL(blocks, nsw);
            static const uint32_t steps[] = {1, 3, 7, 1000};
            for (size_t s = 0; s < 4; s++) {
                ibr_buffer parts = IBR_BUFFER_INIT;
                /* something already in the buffer stays in front */
                CU_ASSERT_EQUAL_FATAL(ibr_topo_write_guid2lid(&parts, t), 0);
                size_t pre = parts.size;
                CU_ASSERT(pre > 0);
                for (uint32_t a = 0; a < nsw; a += steps[s]) {
                    uint32_t n = nsw - a < steps[s] ? nsw - a : steps[s];
                    CU_ASSERT_EQUAL_FATAL(
                        ibr_result_write_switches(&parts, r[s & 1], (ibr_switch_dump)f, a, n), 0);
                }
                CU_ASSERT(parts.size == w.size + pre && strncmp(parts.data, "0x", 2) == 0);
                CU_ASSERT(same_text("parts", parts.data + pre, parts.size - pre, w.data, w.size));
                ibr_buffer_dispose(&parts);
            }
            ibr_buffer_dispose(&w);
            ibr_buffer_dispose(&w1);
        }
        /* an empty range writes nothing; bad ranges and formats are refused */
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_result_write_switches(&b, r[1], IBR_SWITCH_DUMP_LFTS, nsw, 0), 0);
        CU_ASSERT_EQUAL(b.size, 0);
        CU_ASSERT_EQUAL_FATAL(ibr_topo_write_guid2lid(&b, t), 0);
        size_t before = b.size;
        CU_ASSERT_EQUAL(ibr_result_write_switches(&b, r[1], IBR_SWITCH_DUMP_LFTS, nsw, 1),
                        IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_result_write_switches(&b, r[1], IBR_SWITCH_DUMP_FDBS, 1, nsw),
                        IBR_EINVAL);
        CU_ASSERT_EQUAL(
            ibr_result_write_switches(&b, r[1], IBR_SWITCH_DUMP_LFTS, UINT32_MAX, 2), IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_result_write_switches(&b, r[1], (ibr_switch_dump)5, 0, 1),
                        IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_result_write_switches(&b, NULL, IBR_SWITCH_DUMP_LFTS, 0, 1),
                        IBR_EINVAL);
        CU_ASSERT_EQUAL(ibr_result_write_switches(NULL, r[1], IBR_SWITCH_DUMP_LFTS, 0, 1),
                        IBR_EINVAL);
        CU_ASSERT(b.size == before && strlen(b.data) == before);
        ibr_buffer_dispose(&b);
        ibr_result_destroy(r[0]);
        ibr_result_destroy(r[1]);
        ibr_topo_destroy(t);
    }
}

/* The longest opensm-lfts.dump header and trailer: a 64-character switch
   description and 5-digit LIDs, on one worker and on two. */
static void test_lfts_long_header(void)
{
    char desc[65], text[1024], want[512];
    memset(desc, 'd', 64);
    desc[64] = 0;
    snprintf(text, sizeof text,
             "Switch\t4 \"S-0000000000000010\"\t\t# \"%s\" enhanced port 0 lid 49151 lmc 0\n"
             "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"host\" lid 49150 4xQDR\n\n"
             "Ca\t1 \"H-0000000000000020\"\t\t# \"host\"\n"
             "[1](20) \t\"S-0000000000000010\"[1]\t\t# lid 49150 lmc 0 \"%s\" lid 49151 4xQDR\n",
             desc, desc);
    ibr_fabric *f = parse_text(NULL, text, strlen(text));
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ibr_topo *t = freeze(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (unsigned threads = 1; threads <= 2; threads++) {
        ibr_options o;
        CU_ASSERT_EQUAL_FATAL(ibr_options_init(&o, IBR_OPTIONS_VERSION), 0);
        o.threads = threads;
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", &o), 0);
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&b, r), 0);
        CU_ASSERT_EQUAL(strlen(b.data), b.size);
        snprintf(want, sizeof want,
                 "Unicast lids [0-49151] of switch Lid 49151 guid 0x0000000000000010 ('%s'):\n"
                 "0xbffe 001 # Channel Adapter portguid 0x0000000000000020: 'host'\n"
                 "0xbfff 000 # Switch portguid 0x0000000000000010: '%s'\n"
                 "49151 lids dumped\n",
                 desc, desc);
        CU_ASSERT(same_text("long header", b.data, b.size, want, strlen(want)));
        ibr_buffer_dispose(&b);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* A LID remapped by port GUID: the file names a destination port with an
   old LID, the entry moves to the port's current LID (OpenSM does the
   same). */
static void test_lfts_remap(void)
{
    ibr_fabric *f = parse_file(NULL, "osm-fattree/topo.net");
    CU_ASSERT_EQUAL_FATAL(apply_guid2lid(f, "osm-fattree/guid2lid"), 0);
    ibr_topo *t = freeze(f);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    uint32_t h = node_by_guid(f, 0x0002c90301000000);
    CU_ASSERT_FATAL(h != IBR_NONE);
    ibr_fabric_port_info(&pi, f, h, 1);
    char text[512];
    snprintf(text, sizeof text,
             "Unicast lids [0-99] of switch Lid 1 guid 0x0002c90201000000 ('L1-S0'):\n"
             "0x0063 002 # Channel Adapter portguid 0x%016llx: 'H0 HCA-1'\n"
             "99 lids dumped\n",
             (unsigned long long)pi.guid);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&r, t, text, strlen(text)), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, pi.lid), 2);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_lfts_errors(void)
{
    ibr_fabric *f = parse_file(NULL, "osm-fattree/topo.net");
    CU_ASSERT_EQUAL_FATAL(apply_guid2lid(f, "osm-fattree/guid2lid"), 0);
    ibr_topo *t = freeze(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
#define HDR "Unicast lids [0-44] of switch Lid 1 guid 0x0002c90201000000 ('L1-S0'):\n"
#define FHDR "osm_ucast_mgr_dump_ucast_routes: Switch 0x0002c90201000000\nLID    : Port : Hops : Optimal\n"
    static const struct {
        const char *text;
        const char *msg;
    } bad[] = {
        {"Unicast lids [0-44] of switch Lid 1 guid 0x0000000000001234 ('x'):\n",
         "line 1: unknown switch GUID 0x0000000000001234"},
        {"Unicast lids [0-44] of switch Lid 13 guid 0x0002c90301000000 ('x'):\n",
         "line 1: GUID 0x0002c90301000000 is a CA, not a switch"},
        {"Unicast lids [0-44] of switch Lid 1 (no guid)\n", "line 1: switch header without"},
        {HDR "0x0001 000 # x\n0x0002 009 # x\n", "line 3: port 9 beyond switch"},
        {HDR "0x002d 001 # x\n", "line 2: LID 45 beyond the topology (max LID 44)"},
        {HDR "0xzz 001\n", "line 2: bad LFT entry"},
        {HDR "0x0003\n", "line 2: bad LFT entry"},
        {HDR "0x0003 abc\n", "line 2: bad port"},
        {HDR "0x0003 1x\n", "line 2: bad port"},
        {"\n0x0003 001\n", "line 2: LFT entry outside"},
        {HDR "0x0001 000\n" HDR, "line 3: switch 0x0002c90201000000 listed twice (first on line 1)"},
        /* no LFT block at all: an input error, not empty tables (ibr verify
           said INVALID for a topology, junk or an empty file) */
        {"", "the text is empty: expected forwarding tables"},
        {"# only a comment\n\n", "the text holds only blank and comment lines"},
        {"junk line\nmore junk\n",
         "no \"Unicast lids\" block in 2 lines (line 1 reads \"junk line\")"},
        {"# ibnetdiscover\nswitchguid=0x2c90201000000\nSwitch\t4 \"S-0002c90201000000\"\n",
         "no \"Unicast lids\" block in 3 lines: this looks like a topology"},
        {"Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0:\n0xc000 x\n",
         "no \"Unicast lids\" block in 2 lines"},
        /* trailing junk after the destination's port GUID */
        {HDR "0x0001 000 # Switch portguid 0x0002c90201000000g: 'L1-S0'\n",
         "line 2: bad port GUID after \"portguid 0x\""},
        {HDR "0x0001 000 : (Switch portguid 0xzz: 'L1-S0')\n",
         "line 2: bad port GUID after \"portguid 0x\""},
        /* fdbs dumps (opensm.fdbs, ibdiagnet2.fdbs) */
        {FHDR "0x0001 : 009  : 00   : yes\n", "line 3: port 9 beyond switch"},
        {FHDR "0x0001 001\n", "line 3: bad fdbs entry: expected \":\" after the LID"},
        {FHDR "0x0001 : REACHABLE\n", "line 3: bad port in fdbs entry"},
        {FHDR "0x0001 : 1x\n", "line 3: bad port in fdbs entry"},
        {FHDR "0x00zz : 001\n", "line 3: bad fdbs entry"},
        {FHDR "0x002d : 001  : 00   : yes\n", "line 3: LID 45 beyond the topology"},
        {FHDR "PLFT_NUM: x\n", "line 3: bad \"PLFT_NUM:\" line"},
        {FHDR "0x0001 : 000\n" FHDR, "line 4: switch 0x0002c90201000000 listed twice"},
        {"osm_ucast_mgr_dump_ucast_routes: Switch 0x0000000000001234\n",
         "line 1: unknown switch GUID 0x0000000000001234"},
        {"dump_ucast_routes: Switch\n", "line 1: switch header without \" Switch 0x\""},
        {"LID    : Port : Hops : Optimal\n0x0001 : 001\n", "line 2: LFT entry outside"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ibr_result *r = NULL;
        int rc = ibr_result_parse_lfts(&r, t, bad[k].text, strlen(bad[k].text));
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        const char *msg = ibr_result_last_error(r);
        if (!strstr(msg, bad[k].msg))
            fprintf(stderr, "lfts case %zu: \"%s\"\n", k, msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, bad[k].msg));
        CU_ASSERT_EQUAL(ibr_result_status(r), IBR_EPARSE);
        CU_ASSERT_PTR_NULL(ibr_result_lft(r, 0));
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "");
        /* read in pieces: the same failure, word for word */
        static const size_t pieces[] = {1, 2, 5, 17};
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            ibr_result *sr = NULL;
            CU_ASSERT_EQUAL(stream_lfts(&sr, t, bad[k].text, strlen(bad[k].text), pieces[p]),
                            IBR_EPARSE);
            CU_ASSERT_PTR_NOT_NULL_FATAL(sr);
            CU_ASSERT_STRING_EQUAL(ibr_result_last_error(sr), msg);
            CU_ASSERT_PTR_NULL(ibr_result_lft(sr, 0));
            ibr_result_destroy(sr);
        }
        /* writers refuse a failed result */
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_result_write_lfts_dump(&b, r), IBR_EINVAL);
        CU_ASSERT_EQUAL(b.size, 0);
        ibr_result_destroy(r);
    }
    /* accepted: port 255 (ibroute -a), multicast blocks, titles, trailers */
    const char *ok = HDR "  Lid  Out   Destination\n0x0002 255 : (illegal port)\n"
                         "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0:\n"
                         "0xc000      x   x\n"
                         "*** WARNING ***: this command has been replaced by dump_fts\n"
                         "2 valid lids dumped \n";
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&r, t, ok, strlen(ok)), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 2), IBR_NO_ROUTE);
    ibr_result_destroy(r);
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(NULL, t, ok, strlen(ok)), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&r, NULL, ok, strlen(ok)), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(r);
    /* fdbs: UNREACHABLE is no route, also beyond the topology's LIDs;
       hops and remarks are not read */
    const char *fok = FHDR "0x0001 : 000  : 00   : yes\n0x0002 : UNREACHABLE\n"
                           "0x0003 : 004  : 03   : No 1 hop path possible via port 2!\n"
                           "0x0004 : 002  : HOPS UNKNOWN\n0x00ff : UNREACHABLE\n";
    r = NULL;
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&r, t, fok, strlen(fok)), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 1), 0);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 2), IBR_NO_ROUTE);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 3), 4);
    CU_ASSERT_EQUAL(ibr_result_lft_port(r, 0, 4), 2);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
#undef HDR
#undef FHDR
}

/* ------------------------------------------------------------------ */
/* writers: arguments and buffers                                      */

static void test_writer_args(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_topo *u = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    CU_ASSERT_FATAL(t && u);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, "minhop", NULL), 0);
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_topo_write_ibnetdiscover(NULL, t), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_topo_write_ibnetdiscover(&b, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_topo_write_guid2lid(&b, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_topo_write_subnet_lst(NULL, t), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_write_lfts_dump(&b, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_write_dump_lfts(NULL, r), IBR_EINVAL);
    ibr_result *failed = NULL;
    CU_ASSERT_EQUAL(ibr_route(&failed, u, "no-such-engine", NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_write_fdbs(&b, failed), IBR_EINVAL); /* a failed result */
    ibr_result_destroy(failed);
    CU_ASSERT_PTR_NULL(b.data);

    /* writers append */
    CU_ASSERT_EQUAL(ibr_topo_write_guid2lid(&b, t), 0);
    size_t n1 = b.size;
    CU_ASSERT(n1 > 0);
    CU_ASSERT_EQUAL(ibr_topo_write_guid2lid(&b, t), 0);
    CU_ASSERT_EQUAL(b.size, 2 * n1);
    CU_ASSERT(memcmp(b.data, b.data + n1, n1) == 0);
    CU_ASSERT_EQUAL(b.data[b.size], 0);
    CU_ASSERT_PTR_EQUAL(b.ctx, ibr_topo_context(t));
    ibr_buffer_dispose(&b);
    CU_ASSERT_PTR_NULL(b.data);
    CU_ASSERT_EQUAL(b.size, 0);
    CU_ASSERT_EQUAL(b.capacity, 0);
    ibr_buffer_dispose(&b);
    ibr_buffer_dispose(NULL);

    /* an inconsistent buffer is refused */
    ibr_buffer bad = {NULL, 5, 0, NULL};
    CU_ASSERT_EQUAL(ibr_topo_write_guid2lid(&bad, t), IBR_EINVAL);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_topo_destroy(u);
}

/* ------------------------------------------------------------------ */
/* damaged input                                                       */

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Change a few bytes, drop or repeat a chunk. */
static size_t mutate(char *dst, const char *src, size_t len, uint64_t *seed)
{
    static const char alphabet[] = "\"[]()#=\n\t 0123456789xX-abcdefSHR:@lidmc";
    memcpy(dst, src, len);
    unsigned edits = 1 + (unsigned)(lcg(seed) % 4);
    for (unsigned e = 0; e < edits && len > 1; e++) {
        size_t at = (size_t)(lcg(seed) % len);
        switch (lcg(seed) % 3) {
        case 0:
            dst[at] = alphabet[lcg(seed) % (sizeof alphabet - 1)];
            break;
        case 1: { /* drop up to 40 bytes */
            size_t n = 1 + (size_t)(lcg(seed) % 40);
            if (n > len - at)
                n = len - at;
            memmove(dst + at, dst + at + n, len - at - n);
            len -= n;
            break;
        }
        default: { /* repeat up to 60 bytes (room reserved by the caller) */
            size_t n = 1 + (size_t)(lcg(seed) % 60);
            if (n > len - at)
                n = len - at;
            memmove(dst + at + n, dst + at, len - at);
            len += n;
            break;
        }
        }
    }
    return len;
}

static void test_damaged_input(void)
{
    size_t len, llen, glen;
    char *text = data("ibnetdiscover-chassis.txt", &len);
    char *lfts = data("osm-lmc2/dump_fts.out", &llen);
    char *g2l = data("osm-lmc2/guid2lid", &glen);
    CU_ASSERT_FATAL(text && lfts && g2l);
    size_t cap = (len > llen ? len : llen) + 4 * 60 + 1;
    char *buf = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    uint64_t seed = 12345;
    unsigned ok = 0, bad = 0;
    for (int i = 0; i < 3000; i++) {
        size_t n = mutate(buf, text, len, &seed);
        ibr_fabric *f = NULL;
        ibr_fabric_create(&f, NULL);
        int rc = ibr_fabric_parse_ibnetdiscover(f, buf, n);
        CU_ASSERT(rc == 0 || rc == IBR_EPARSE);
        if (rc == 0) {
            ok++;
            ibr_topo *t = freeze(f);
            CU_ASSERT_PTR_NOT_NULL(t);
            ibr_topo_destroy(t);
        } else {
            bad++;
            CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
            CU_ASSERT_EQUAL(strncmp(ibr_fabric_last_error(f), "line ", 5), 0);
        }
        ibr_fabric_destroy(f);
    }
    CU_ASSERT(ok > 0 && bad > 0);

    ibr_fabric *f = parse_file(NULL, "osm-lmc2/topo.net");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ibr_topo *t = freeze(f);
    for (int i = 0; i < 2000; i++) {
        size_t n = mutate(buf, lfts, llen, &seed);
        ibr_result *r = NULL;
        int rc = ibr_result_parse_lfts(&r, t, buf, n);
        CU_ASSERT(rc == 0 || rc == IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL(r);
        if (rc == IBR_EPARSE)
            CU_ASSERT_EQUAL(strncmp(ibr_result_last_error(r), "line ", 5), 0);
        ibr_result_destroy(r);
        n = mutate(buf, g2l, glen, &seed);
        rc = ibr_fabric_parse_guid2lid(f, buf, n);
        CU_ASSERT(rc == 0 || rc == IBR_EPARSE || rc == IBR_EEXIST);
    }
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    free(buf);
    free(text);
    free(lfts);
    free(g2l);
}

/* ------------------------------------------------------------------ */
/* allocation failure                                                  */

static void test_alloc_failure(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    long base = st.live;
    size_t len, glen, llen;
    char *text = data("ibnetdiscover-chassis.txt", &len);
    char *g2l = data("osm-lmc2/guid2lid", &glen);
    char *lfts = data("osm-lmc2/dump_fts.out", &llen);
    CU_ASSERT_FATAL(text && g2l && lfts);

    /* the topology parser */
    long n;
    for (n = 0;; n++) {
        ibr_fabric *f = NULL;
        st.fail_at = -1;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        st.calls = 0;
        st.fail_at = n;
        int rc = ibr_fabric_parse_ibnetdiscover(f, text, len);
        st.fail_at = -1;
        if (rc == 0) {
            CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 9);
            ibr_fabric_destroy(f);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_EQUAL(ibr_fabric_node_count(f), 0);
        ibr_fabric_destroy(f);
        CU_ASSERT_EQUAL(st.live, base);
    }
    CU_ASSERT(n > 10);
    CU_ASSERT_EQUAL(st.live, base);

    /* guid2lid */
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    size_t tlen;
    char *topo = data("osm-lmc2/topo.net", &tlen);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, topo, tlen), 0);
    free(topo);
    ibr_fabric *ref = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&ref, f), 0);
    long base_f = st.live;
    for (n = 0;; n++) {
        st.calls = 0;
        st.fail_at = n;
        int rc = ibr_fabric_parse_guid2lid(f, g2l, glen);
        st.fail_at = -1;
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT(same_fabric(f, ref));
        CU_ASSERT(st.live <= base_f + 1); /* the fabric's LID table may stay */
    }
    CU_ASSERT(n > 2);
    ibr_fabric_destroy(ref);

    /* LFT reader */
    st.fail_at = -1;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    long base_t = st.live;
    /* whole, then in pieces: a failure anywhere frees everything */
    for (size_t piece = 0; piece <= 100; piece += 100) {
        for (n = 0;; n++) {
            ibr_result *r = NULL;
            st.calls = 0;
            st.fail_at = n;
            int rc = piece ? stream_lfts(&r, t, lfts, llen, piece)
                           : ibr_result_parse_lfts(&r, t, lfts, llen);
            st.fail_at = -1;
            if (rc == 0) {
                ibr_result_destroy(r);
                break;
            }
            CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
            CU_ASSERT_PTR_NULL(r);
            CU_ASSERT_EQUAL(st.live, base_t);
        }
        CU_ASSERT(n > (piece ? 3 : 2));
    }

    /* writers: a failure leaves the buffer as it was */
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&r, t, lfts, llen), 0);
    long base_r = st.live;
    for (int w = 0; w < 8; w++) {
        ibr_buffer b = IBR_BUFFER_INIT;
        /* something already in the buffer must survive a failure */
        CU_ASSERT_EQUAL_FATAL(ibr_topo_write_guid2lid(&b, t), 0);
        size_t before = b.size;
        for (n = 0;; n++) {
            st.calls = 0;
            st.fail_at = n;
            int rc = 0;
            switch (w) {
            case 0: rc = ibr_topo_write_ibnetdiscover(&b, t); break;
            case 1: rc = ibr_topo_write_guid2lid(&b, t); break;
            case 2: rc = ibr_result_write_lfts_dump(&b, r); break;
            case 3: rc = ibr_result_write_dump_lfts(&b, r); break;
            case 4: rc = ibr_topo_write_subnet_lst(&b, t); break;
            case 5: rc = ibr_result_write_fdbs(&b, r); break;
            case 6: rc = ibr_result_write_lid_matrix(&b, r); break;
            default:
                rc = ibr_result_write_switches(&b, r, IBR_SWITCH_DUMP_LFTS, 1,
                                               ibr_topo_switch_count(t) - 1);
                break;
            }
            st.fail_at = -1;
            if (rc == 0)
                break;
            CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
            CU_ASSERT_EQUAL(b.size, before);
            CU_ASSERT_EQUAL(strlen(b.data), before);
        }
        CU_ASSERT(n > 0);
        CU_ASSERT(b.size > before);
        ibr_buffer_dispose(&b);
        CU_ASSERT_EQUAL(st.live, base_r);
    }
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    CU_ASSERT_EQUAL(st.live, base);
    free(text);
    free(g2l);
    free(lfts);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"ibsim example netfiles", test_ibsim_examples},
        {"hand-written ibnetdiscover -g -f dump", test_chassis_dump},
        {"real ibnetdiscover output", test_tool_dumps},
        {"topology text round trip", test_roundtrip},
        {"link widths, speeds and states", test_link_attributes},
        {"port VLs and enabled widths and speeds", test_port_facts},
        {"topology parse errors", test_parse_errors},
        {"parser state and line ends", test_parse_state},
        {"guid2lid", test_guid2lid},
        {"OpenSM dumps: fat tree", test_golden_fattree},
        {"OpenSM dumps and diags: LMC 2", test_golden_lmc},
        {"OpenSM dumps: file engine detours", test_golden_file_engine},
        {"LFT dump round trip", test_lfts_roundtrip},
        {"fdbs round trip, ibdiagnet flavour", test_fdbs_roundtrip},
        {"LFT dumps read in pieces", test_lfts_stream},
        {"OpenSM's fdbs reads as its LFT dump", test_fdbs_opensm},
        {"per-switch dumps in parts", test_switch_parts},
        {"opensm-lfts.dump: the longest header", test_lfts_long_header},
        {"LFT reader LID remapping", test_lfts_remap},
        {"LFT reader errors", test_lfts_errors},
        {"writer arguments and buffers", test_writer_args},
        {"damaged input", test_damaged_input},
        {"allocation failure", test_alloc_failure},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("formats", tests);
}
