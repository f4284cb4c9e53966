#define _POSIX_C_SOURCE 200809L
/* The file engine: LFT dumps and hop rows loaded back reproduce the
   routing they came from byte for byte; partial dumps, unknown switches,
   bad lines (the engine fails naming the line and the chain falls back);
   the opensm-lid-matrix.dump writer; allocation failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Route t with "file,no_fallback" and the given texts (NULL: not set). */
static int route_file(ibr_result **r, const ibr_topo *t, const char *chain, const char *lfts,
                      const char *mx)
{
    ibr_param p[2];
    size_t n = 0;
    if (lfts)
        p[n++] = (ibr_param){"file.lfts", lfts};
    if (mx)
        p[n++] = (ibr_param){"file.lid_matrix", mx};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = p;
    o.n_params = n;
    return ibr_route(r, t, chain, &o);
}

static int same_lfts(const ibr_result *a, const ibr_result *b)
{
    const ibr_topo *t = ibr_result_topo(a);
    size_t len = ibr_result_lft_size(a);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        if (memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), len) != 0)
            return 0;
    return 1;
}

static char *text_of(int (*w)(ibr_buffer *, const ibr_result *), const ibr_result *r)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(w(&b, r), 0);
    char *s = strdup(b.data ? b.data : "");
    ibr_buffer_dispose(&b);
    return s;
}

static void round_trip(const char *spec, const char *engine, int lid_matrix_too)
{
    ibr_topo *t = ibr_test_topo(NULL, spec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *x = ibr_test_route(NULL, t, engine, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    char *dump = text_of(ibr_result_write_lfts_dump, x);
    char *diags = text_of(ibr_result_write_dump_lfts, x);
    char *mx = text_of(ibr_result_write_lid_matrix, x);
    const char *kinds[2] = {dump, diags};
    for (int k = 0; k < 2; k++) {
        ibr_result *y = NULL;
        CU_ASSERT_EQUAL_FATAL(route_file(&y, t, "file,no_fallback", kinds[k], NULL), 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(y), "file");
        CU_ASSERT(same_lfts(x, y));
        char *again = text_of(ibr_result_write_lfts_dump, y);
        CU_ASSERT_STRING_EQUAL(again, dump);
        free(again);
        ibr_result_destroy(y);
    }
    if (lid_matrix_too) {
        /* min-hop selection over minhop's hop rows gives its tables back
           (the rows are derived from the switch hop matrix, so an updn
           routing's rows do not carry its turn rule) */
        ibr_result *y = NULL;
        CU_ASSERT_EQUAL_FATAL(route_file(&y, t, "file,no_fallback", NULL, mx), 0);
        CU_ASSERT(same_lfts(x, y));
        char *mx2 = text_of(ibr_result_write_lid_matrix, y);
        CU_ASSERT_STRING_EQUAL(mx2, mx);
        free(mx2);
        ibr_result_destroy(y);
    }
    free(dump);
    free(diags);
    free(mx);
    ibr_result_destroy(x);
    ibr_topo_destroy(t);
}

static void test_round_trip(void)
{
    round_trip("fattree:levels=3,radix=8", "updn", 0);
    round_trip("fattree:levels=3,radix=8", "minhop", 1);
    round_trip("fattree:levels=2,radix=8", "minhop", 1);
    round_trip("torus:dims=4x4,hosts=2", "dfsssp", 0);
    round_trip("random:switches=30,degree=4,hosts=2,seed=3", "minhop", 1);
    round_trip("random:switches=30,degree=4,hosts=2,seed=3", "sssp", 0);
    round_trip("dragonfly:a=4,p=2,h=2,g=9", "ftree,dfsssp", 0);
}

/* Keep only the blocks of the switches whose index is in keep[] (opensm-
   lfts.dump blocks are in switch index order). */
static char *partial_dump(const char *dump, const int *keep, uint32_t n_sw)
{
    char *out = malloc(strlen(dump) + 1);
    size_t o = 0;
    int sw = -1, on = 0;
    for (const char *p = dump; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "Unicast lids", 12) == 0) {
            sw++;
            on = (uint32_t)sw < n_sw && keep[sw];
        }
        if (on) {
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
    }
    out[o] = 0;
    return out;
}

static void test_partial(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=3,radix=8");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint32_t S = ibr_topo_switch_count(t);
    ibr_result *x = ibr_test_route(NULL, t, "updn", NULL, 0);
    ibr_result *mh = ibr_test_route(NULL, t, "minhop", NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mh);
    int *keep = calloc(S, sizeof *keep);
    for (uint32_t s = 0; s < S; s += 3)
        keep[s] = 1;
    char *dump = text_of(ibr_result_write_lfts_dump, x);
    char *part = partial_dump(dump, keep, S);
    /* a block of a switch the topology lacks is skipped with its rows */
    size_t len = strlen(part) + 200;
    char *text = malloc(len);
    snprintf(text, len,
             "Unicast lids [0-3] of switch Lid 99 guid 0x00deadbeef000001 ('gone'):\n"
             "0x0001 001 # gone\n0x0002 250 # bad port, but the switch is unknown\n%s",
             part);
    ibr_result *y = NULL;
    CU_ASSERT_EQUAL_FATAL(route_file(&y, t, "file,no_fallback", text, NULL), 0);
    size_t ls = ibr_result_lft_size(x);
    long differ_unlisted = 0;
    for (uint32_t s = 0; s < S; s++) {
        const uint8_t *want = keep[s] ? ibr_result_lft(x, s) : ibr_result_lft(mh, s);
        CU_ASSERT(memcmp(ibr_result_lft(y, s), want, ls) == 0);
        if (!keep[s] && memcmp(ibr_result_lft(x, s), ibr_result_lft(mh, s), ls) != 0)
            differ_unlisted++;
    }
    /* the test means something: updn and minhop differ on unlisted switches */
    CU_ASSERT(differ_unlisted > 0);
    ibr_verify_report rep = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, y), 0);
    ibr_result_destroy(y);

    /* hop rows of some switches only: those switches follow the rows, the
       others keep min-hop */
    free(dump);
    dump = text_of(ibr_result_write_lid_matrix, x);
    char *mxpart = malloc(strlen(dump) + 1);
    {
        size_t o = 0;
        int sw = -1, on = 0;
        for (const char *p = dump; *p;) {
            const char *nl = strchr(p, '\n');
            size_t l = nl ? (size_t)(nl - p) + 1 : strlen(p);
            if (strncmp(p, "Switch", 6) == 0)
                on = keep[++sw];
            if (on) {
                memcpy(mxpart + o, p, l);
                o += l;
            }
            p += l;
        }
        mxpart[o] = 0;
    }
    CU_ASSERT_EQUAL_FATAL(route_file(&y, t, "file,no_fallback", NULL, mxpart), 0);
    for (uint32_t s = 0; s < S; s++)
        if (!keep[s])
            CU_ASSERT(memcmp(ibr_result_lft(y, s), ibr_result_lft(mh, s), ls) == 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&rep, y), 0);
    ibr_result_destroy(y);
    free(mxpart);
    free(dump);
    free(part);
    free(text);
    free(keep);
    ibr_result_destroy(x);
    ibr_result_destroy(mh);
    ibr_topo_destroy(t);
}

/* A bad text fails the file engine with a message naming the line; the
   chain falls back to minhop. */
static void expect_bad(const ibr_topo *t, const char *lfts, const char *mx, const char *needle)
{
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(route_file(&r, t, "file", lfts, mx), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(r), "minhop");
    const char *eng, *msg;
    int st;
    CU_ASSERT_EQUAL_FATAL(ibr_result_attempt(&eng, &st, &msg, r, 0), 0);
    CU_ASSERT_STRING_EQUAL(eng, "file");
    CU_ASSERT_EQUAL(st, IBR_EPARSE);
    if (!strstr(msg, needle))
        fprintf(stderr, "\nmessage \"%s\" lacks \"%s\"\n", msg, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle));
    ibr_result_destroy(r);
    r = NULL;
    CU_ASSERT_EQUAL(route_file(&r, t, "file,no_fallback", lfts, mx), IBR_EUNROUTABLE);
    ibr_result_destroy(r);
}

static void test_bad_lines(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_node_info ni = IBR_NODE_INFO_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, 0)), 0);
    uint64_t g = ni.node_guid;
    char hdr[128], buf[512];
    snprintf(hdr, sizeof hdr, "Unicast lids [0-12] of switch Lid 1 guid 0x%016llx ('s'):\n",
             (unsigned long long)g);
    snprintf(buf, sizeof buf, "%s0x0001 000\n0x0002 007\n", hdr);
    expect_bad(t, buf, NULL, "line 3: port 7 beyond switch");
    snprintf(buf, sizeof buf, "# comment\n%s0x0001 0x3\n", hdr);
    expect_bad(t, buf, NULL, "line 3: bad port");
    snprintf(buf, sizeof buf, "%s0xzz 001\n", hdr);
    expect_bad(t, buf, NULL, "line 2: bad LFT entry");
    snprintf(buf, sizeof buf, "%s0x1000 001\n", hdr);
    expect_bad(t, buf, NULL, "line 2: LID 4096 beyond the topology");
    expect_bad(t, "Unicast lids [0-1] of switch Lid 1 guid 0xq\n", NULL,
               "file.lfts line 1: bad switch GUID");
    expect_bad(t, "Unicast lids [0-1] of switch Lid 1\n", NULL,
               "file.lfts line 1: switch header without");
    snprintf(buf, sizeof buf, "Switch: guid 0x%016llx\n0x0001: 00 ff 1ff\n",
             (unsigned long long)g);
    expect_bad(t, NULL, buf, "file.lid_matrix line 2: bad hop value");
    snprintf(buf, sizeof buf, "Switch: guid 0x%016llx\n0x0001x: 00\n", (unsigned long long)g);
    expect_bad(t, NULL, buf, "file.lid_matrix line 2: bad row");
    expect_bad(t, NULL, "Switch: 0x12\n", "file.lid_matrix line 1: switch line");

    /* nothing given: the engine declines */
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(route_file(&r, t, "file", NULL, NULL), 0);
    const char *eng;
    int st;
    CU_ASSERT_EQUAL(ibr_result_attempt(&eng, &st, NULL, r, 0), 0);
    CU_ASSERT_EQUAL(st, IBR_EDECLINED);
    ibr_result_destroy(r);
    /* a text with no LFT block at all (junk, random bytes, an empty or
       wrong file) fails the engine as ibr verify refuses it: it used to
       report "file: ok" with the computed min-hop tables */
    expect_bad(t, "nothing here\nat all\n", NULL,
               "file.lfts: no \"Unicast lids\" block in 2 lines (line 1 reads \"nothing here\")");
    expect_bad(t, "\n# c\n", NULL, "file.lfts: the text holds only blank and comment lines");
    {
        char junk[256];
        uint64_t x = 88172645463325252ull;
        for (size_t i = 0; i < sizeof junk; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            junk[i] = (char)(x % 255 + 1); /* random bytes, no NUL (a C string setting) */
        }
        junk[sizeof junk - 1] = 0;
        if (!strstr(junk, "Unicast lids"))
            expect_bad(t, junk, NULL, "file.lfts: ");
    }
    /* the same checks as ibr verify's reader: an entry outside a block, a
       switch listed twice, junk after a port GUID */
    expect_bad(t, "0x0001 001\n", NULL, "file.lfts line 1: LFT entry outside");
    snprintf(buf, sizeof buf, "%s0x0001 000\n%s", hdr, hdr);
    expect_bad(t, buf, NULL, "file.lfts line 3: switch 0x");
    snprintf(buf, sizeof buf, "%s0x0001 000 # Switch portguid 0x%016llxz: 's'\n", hdr,
             (unsigned long long)g);
    expect_bad(t, buf, NULL, "file.lfts line 2: bad port GUID after \"portguid 0x\"");
    /* a text listing no known switch: every table is the computed one */
    r = NULL;
    CU_ASSERT_EQUAL(route_file(&r, t, "file,no_fallback",
                               "Unicast lids [0-1] of switch Lid 1 guid 0x0000000000001234 ('x'):\n"
                               "0x0001 001\n",
                               NULL),
                    0);
    ibr_result *mh = ibr_test_route(NULL, t, "minhop", NULL, 0);
    CU_ASSERT(same_lfts(r, mh));
    ibr_result_destroy(mh);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* The lid matrix of a 2-level fat tree of radix 4 (as OpenSM 3.3.23 writes
   it, checked under ibsim): spines route to leaves directly. */
static void test_lid_matrix_format(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = ibr_test_route(NULL, t, "minhop", NULL, 0);
    char *mx = text_of(ibr_result_write_lid_matrix, r);
    /* a switch header per switch, one row per switch LID */
    uint32_t S = ibr_topo_switch_count(t), heads = 0, rows = 0;
    for (const char *p = mx; (p = strchr(p, '\n')); p++) {
        if (strncmp(p + 1, "Switch: guid 0x", 15) == 0)
            heads++;
        if (strncmp(p + 1, "0x", 2) == 0)
            rows++;
    }
    CU_ASSERT_EQUAL(heads + 1, S);
    CU_ASSERT_EQUAL(rows, S * S);
    CU_ASSERT_PTR_NOT_NULL(strstr(mx, ": 00 ")); /* own LID */
    /* a failed result has no tables to write */
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_result_write_lid_matrix(&b, NULL), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_result_write_lid_matrix(NULL, r), IBR_EINVAL);
    free(mx);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=8");
    ibr_result *x = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&x, t, "updn", NULL), 0);
    char *dump = text_of(ibr_result_write_lfts_dump, x);
    char *mx = text_of(ibr_result_write_lid_matrix, x);
    ibr_param p[2] = {{"file.lfts", dump}, {"file.lid_matrix", mx}};
    ibr_options o = IBR_OPTIONS_INIT;
    o.params = p;
    o.n_params = 2;
    long fails = 0;
    ibr_result *y = ibr_test_route_oom(&fails, &st, t, "file,no_fallback", &o);
    CU_ASSERT(fails > 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    CU_ASSERT(same_lfts(x, y));
    ibr_result_destroy(y);
    free(dump);
    free(mx);
    ibr_result_destroy(x);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"round trip: dumps reproduce the routing", test_round_trip},
        {"partial dumps, unknown switches", test_partial},
        {"bad lines fail the engine, the chain falls back", test_bad_lines},
        {"opensm-lid-matrix.dump writer", test_lid_matrix_format},
        {"allocation failures", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("file", tests);
}
