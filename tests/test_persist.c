/* Routing databases and rerouting: save/parse round trips, damaged texts,
   the classification of changes (ibr_change_kind), reload of an
   unchanged fabric (exactly the saved routing), and the property tests of
   the incremental repair: on fat trees, tori and random graphs with many
   seeded link failures and switch failures, the incremental result is
   valid, keeps its engine's promise (minimal, credit-loop free) and
   changes no more LFT entries than a full reroute. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"
#include "ibroute/sys/toolkit.h"


static int same_lfts(const ibr_result *a, const ibr_result *b)
{
    const ibr_topo *t = ibr_result_topo(a);
    size_t len = ibr_result_lft_size(a);
    if (len != ibr_result_lft_size(b))
        return 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        if (memcmp(ibr_result_lft(a, s), ibr_result_lft(b, s), len) != 0)
            return 0;
    return 1;
}

static char *db_text(const ibr_result *r, size_t *len)
{
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_db(&b, r), 0);
    char *s = malloc(b.size + 1);
    memcpy(s, b.data, b.size + 1);
    *len = b.size;
    ibr_buffer_dispose(&b);
    return s;
}

/* Save, parse, save again (same text); reload on the same fabric gives the
   routing back exactly, SLs and SL2VL tables included. */
static void reload_unchanged(const char *spec, const char *engine)
{
    ibr_topo *t = ibr_test_topo(NULL, spec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    ibr_result *r = ibr_test_route(NULL, t, engine, NULL, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    size_t len;
    char *text = db_text(r, &len);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, text, len), 0);
    CU_ASSERT_STRING_EQUAL(ibr_routing_db_engine(db), ibr_result_engine(r));
    CU_ASSERT_EQUAL(ibr_routing_db_switch_count(db), ibr_topo_switch_count(t));
    CU_ASSERT_EQUAL(ibr_routing_db_seed(db), ibr_result_seed(r));
    ibr_buffer b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_write(&b, db), 0);
    CU_ASSERT_EQUAL(b.size, len);
    CU_ASSERT(b.size == len && memcmp(b.data, text, len) == 0);
    ibr_buffer_dispose(&b);
    size_t n = 99;
    CU_ASSERT_EQUAL(ibr_routing_db_compare(NULL, 0, &n, db, t), 0);
    CU_ASSERT_EQUAL(n, 0);
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    ibr_result *y = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t, NULL, 0), 0);
    CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_UNCHANGED);
    CU_ASSERT_EQUAL(rep.lft_entries_changed, 0);
    CU_ASSERT(same_lfts(r, y));
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(y), ibr_result_engine(r));
    CU_ASSERT_EQUAL(ibr_result_sl_mode(y), ibr_result_sl_mode(r));
    CU_ASSERT_EQUAL(ibr_result_has_sl2vl(y), ibr_result_has_sl2vl(r));
    CU_ASSERT_EQUAL(ibr_result_vls_used(y), ibr_result_vls_used(r));
    CU_ASSERT_EQUAL(ibr_result_has_hops(y), ibr_result_has_hops(r));
    uint32_t S = ibr_topo_switch_count(t);
    for (uint32_t a = 0; a < S; a++)
        for (uint32_t c = 0; c < S; c++)
            if (ibr_result_hops(y, a, c) != ibr_result_hops(r, a, c)) {
                CU_FAIL("hop matrix differs");
                a = S;
                break;
            }
    uint16_t maxlid = ibr_topo_max_lid(t);
    long sl_diff = 0;
    for (uint16_t s = 1; s <= maxlid; s++)
        for (uint16_t d = 1; d <= maxlid; d++)
            sl_diff += ibr_result_path_sl(y, s, d) != ibr_result_path_sl(r, s, d);
    CU_ASSERT_EQUAL(sl_diff, 0);
    /* the replayed result writes the same dumps */
    ibr_buffer b1 = IBR_BUFFER_INIT, b2 = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_result_write_lfts_dump(&b1, r), 0);
    CU_ASSERT_EQUAL(ibr_result_write_lfts_dump(&b2, y), 0);
    CU_ASSERT(b1.size == b2.size && memcmp(b1.data, b2.data, b1.size) == 0);
    ibr_buffer_dispose(&b1);
    ibr_buffer_dispose(&b2);
    ibr_result_destroy(y);
    ibr_routing_db_destroy(db);
    free(text);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_reload(void)
{
    reload_unchanged("fattree:levels=3,radix=8", "minhop");
    reload_unchanged("fattree:levels=3,radix=8", "updn");
    reload_unchanged("fattree:levels=2,radix=8", "ftree");
    reload_unchanged("torus:dims=4x4,hosts=2", "dfsssp");
    reload_unchanged("random:switches=20,degree=4,hosts=2,seed=2", "sssp");
}

/* Every QoS table of two results on one topology is the same: SL2VL of
   every switch port pair and end port, VL arbitration of every port, QoS
   levels and level SLs, notes and hazards. */
static void same_qos(const ibr_result *a, const ibr_result *b)
{
    const ibr_topo *t = ibr_result_topo(a);
    CU_ASSERT_EQUAL(ibr_result_has_qos(a), ibr_result_has_qos(b));
    CU_ASSERT_EQUAL(ibr_result_qos_levels(a), ibr_result_qos_levels(b));
    CU_ASSERT_EQUAL(ibr_result_vls_used(a), ibr_result_vls_used(b));
    CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(a), ibr_result_sl_hazard_count(b));
    CU_ASSERT_EQUAL(ibr_result_qos_note_count(a), ibr_result_qos_note_count(b));
    for (size_t i = 0; i < ibr_result_qos_note_count(a) && i < ibr_result_qos_note_count(b); i++)
        CU_ASSERT_STRING_EQUAL(ibr_result_qos_note(a, i), ibr_result_qos_note(b, i));
    long diff = 0, ports = 0;
    for (uint32_t n = 0; n < ibr_topo_node_count(t); n++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, n);
        uint32_t sw = ibr_topo_node_switch(t, n);
        for (unsigned o = 0; o <= ni.nports; o++) {
            uint8_t ma[16], mb[16];
            ibr_vlarb va, vb;
            int ra = ibr_result_vlarb(&va, a, n, o), rb = ibr_result_vlarb(&vb, b, n, o);
            diff += ra != rb || (ra == 0 && memcmp(&va, &vb, sizeof va) != 0);
            if (sw == IBR_NONE) {
                ra = ibr_result_endport_sl2vl(ma, a, n, o);
                rb = ibr_result_endport_sl2vl(mb, b, n, o);
                diff += ra != rb || (ra == 0 && memcmp(ma, mb, 16) != 0);
                ports += ra == 0;
                continue;
            }
            for (unsigned in = 0; in <= ni.nports; in++) {
                ra = ibr_result_sl2vl(ma, a, sw, in, o);
                rb = ibr_result_sl2vl(mb, b, sw, in, o);
                diff += ra != rb || (ra == 0 && memcmp(ma, mb, 16) != 0);
                ports += ra == 0;
            }
        }
    }
    CU_ASSERT(ports > 0);
    CU_ASSERT_EQUAL(diff, 0);
    uint16_t maxlid = ibr_topo_max_lid(t);
    long sl = 0;
    for (unsigned l = 0; l < ibr_result_qos_levels(a); l++)
        for (uint16_t s = 1; s <= maxlid; s += 3)
            for (uint16_t d = 1; d <= maxlid; d++)
                sl += ibr_result_path_sl_level(a, l, s, d) != ibr_result_path_sl_level(b, l, s, d);
    CU_ASSERT_EQUAL(sl, 0);
}

static ibr_qos_config *qos_of(const char *text)
{
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_parse(q, text, strlen(text)), 0);
    return q;
}

/* A routing saved with QoS on comes back programmed as it was: the saved
   configuration (levels, VL arbitration, per-type maps) and the engine's
   own maps before the QoS manager (torus-2QoS's switch and CA maps) are in
   the database, and the QoS manager runs again on the reloaded tables.
   Unchanged fabric: every table, note and hazard equal; a lost cable: the
   repair keeps the levels and stays credit-loop free; a configuration
   given by the caller wins over the saved one (a merging qos_sl2vl is
   reported); other QoS levels than the saved ones take a full reroute; a
   database written before QoS was saved still loads, without QoS. */
enum { V3_OVER_LOST = 1, V3_SL2VL = 2 };
static void check_v3(const ibr_reroute_report *rep, const ibr_result *now,
                     const ibr_result *orig, unsigned what);

/* SL2VL tables of t: one per input and output port of each switch, one
   per end port. */
static uint64_t all_sl2vl_tables(const ibr_topo *t)
{
    uint64_t n = ibr_topo_endport_count(t);
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        n += (uint64_t)(ni.nports + 1) * (ni.nports + 1);
    }
    return n;
}

static void test_qos(void)
{
    static const char conf[] = "ibr_qos_levels 2\nibr_qos_level_weights 100,20\n"
                               "qos_ca_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n"
                               "qos_swe_high_limit 5\n";
    static const struct {
        const char *spec, *engine, *conf;
    } cases[] = {
        {"torus:dims=4x4x3,hosts=1", "lash,no_fallback", conf},
        {"mesh:dims=5x4,hosts=1", "dfsssp,no_fallback", conf},
        {"random:switches=20,degree=4,hosts=1,seed=3", "nue,no_fallback", conf},
        {"torus:dims=4x4x3,hosts=1", "lash,no_fallback",
         "qos_sl2vl 0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7\n"},
        {"torus:dims=4x4x4,hosts=1", "torus-2QoS,no_fallback",
         "qos_swe_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ibr_fabric *f = ibr_test_fabric(cases[c].spec);
        ibr_topo *t = ibr_test_freeze(f);
        ibr_qos_config *q = qos_of(cases[c].conf);
        ibr_options o = IBR_OPTIONS_INIT;
        o.qos = q;
        /* torus-2QoS: its torus-2QoS.conf (radices, seed links from switch
           0 of the generated 4x4x4 torus) */
        char tconf[1024];
        const unsigned long long g0 = 0x0002c90202000000ULL;
        snprintf(tconf, sizeof tconf,
                 "torus 4 4 4\nxp_link 0x%016llx 0x%016llx\nxm_link 0x%016llx 0x%016llx\n"
                 "yp_link 0x%016llx 0x%016llx\nym_link 0x%016llx 0x%016llx\n"
                 "zp_link 0x%016llx 0x%016llx\nzm_link 0x%016llx 0x%016llx\n",
                 g0, g0 + 1, g0, g0 + 3, g0, g0 + 4, g0, g0 + 12, g0, g0 + 16, g0, g0 + 48);
        ibr_param prm = {"torus-2QoS.config", tconf};
        if (c == 4) {
            o.params = &prm;
            o.n_params = 1;
        }
        ibr_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t, cases[c].engine, &o), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_result_has_qos(r), 1);
        size_t len;
        char *text = db_text(r, &len);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nqos "));
        ibr_routing_db *db = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, text, len), 0);
        ibr_buffer b = IBR_BUFFER_INIT;
        CU_ASSERT_EQUAL(ibr_routing_db_write(&b, db), 0);
        CU_ASSERT(b.size == len && memcmp(b.data, text, len) == 0);
        ibr_buffer_dispose(&b);
        /* unchanged: exactly the QoS tables of the routing saved */
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        ibr_result *y = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t, NULL, 0), 0);
        CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_UNCHANGED);
        CU_ASSERT(same_lfts(r, y));
        same_qos(r, y);
        check_v3(&rep, y, r, V3_SL2VL);
        CU_ASSERT_EQUAL(rep.sl2vl_tables_changed, 0);
        ibr_result_destroy(y);
        if (c == 3) /* lash's layers merged: the hazards come back too */
            CU_ASSERT(ibr_result_sl_hazard_count(r) > 0);
        if (c == 4)
            CU_ASSERT(ibr_result_qos_note_count(r) > 0); /* the override noted */
        /* a lost cable: still QoS, same levels, loop-free */
        if (c < 3) {
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 1, 0, 7), 0);
            ibr_topo *t1 = ibr_test_freeze(f);
            y = NULL;
            rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
            CU_ASSERT(rep.mode == IBR_REROUTE_INCREMENTAL || rep.mode == IBR_REROUTE_FULL);
            CU_ASSERT_EQUAL(ibr_result_has_qos(y), 1);
            CU_ASSERT_EQUAL(ibr_result_qos_levels(y), 2);
            CU_ASSERT_EQUAL(ibr_result_sl_hazard_count(y), 0);
            ibr_verify_report vr = IBR_VERIFY_REPORT_INIT;
            CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
            CU_ASSERT_EQUAL(vr.deadlock_free, 1);
            CU_ASSERT_EQUAL(vr.pairs_ok, vr.pairs);
            /* the QoS manager's tables are not saved: the engine's maps are
               compared (persist.h), not the programmed ones */
            check_v3(&rep, y, r, V3_OVER_LOST);
            ibr_result_destroy(y);
            /* the caller's configuration wins: one level only, then a
               merging map with the saved levels */
            ibr_qos_config *one = qos_of("qos_swe_high_limit 1\n");
            ibr_options o1 = IBR_OPTIONS_INIT;
            o1.qos = one;
            y = NULL;
            rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t, &o1, 0), 0);
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
            CU_ASSERT_PTR_NOT_NULL(strstr(rep.reason, "QoS levels"));
            CU_ASSERT_EQUAL(ibr_result_qos_levels(y), 1);
            ibr_result_destroy(y);
            ibr_qos_config_destroy(one);
            ibr_qos_config *merge = qos_of("ibr_qos_levels 2\n"
                                           "qos_swe_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
            o1.qos = merge;
            y = NULL;
            rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t, &o1, 0), 0);
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_UNCHANGED);
            CU_ASSERT(ibr_result_sl_hazard_count(y) > 0);
            /* another configuration: what the saved one programmed is not
               kept, every table is sent */
            CU_ASSERT_EQUAL(rep.sl2vl_tables_changed, all_sl2vl_tables(t));
            CU_ASSERT_EQUAL(rep.lft_blocks_changed, 0);
            ibr_result_destroy(y);
            ibr_qos_config_destroy(merge);
            ibr_topo_destroy(t1);
        }
        /* the same text without its QoS records: a database from before
           QoS was saved loads and reroutes without QoS */
        if (c == 0) {
            char *old = malloc(len + 1);
            size_t k = 0;
            for (const char *p = text; *p;) {
                const char *nl = strchr(p, '\n');
                size_t n = (size_t)(nl - p) + 1;
                if (strncmp(p, "qos", 3) != 0 && strncmp(p, "end ", 4) != 0) {
                    memcpy(old + k, p, n);
                    k += n;
                }
                p += n;
            }
            k += (size_t)sprintf(old + k, "end %016llx\n", (unsigned long long)ibr_test_fnv(old, k));
            ibr_routing_db *odb = NULL;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&odb, NULL, old, k), 0);
            y = NULL;
            CU_ASSERT_EQUAL(ibr_routing_db_route(&y, NULL, odb, t, NULL, 0), 0);
            CU_ASSERT_EQUAL(ibr_result_has_qos(y), 0);
            CU_ASSERT(same_lfts(r, y));
            ibr_result_destroy(y);
            ibr_routing_db_destroy(odb);
            free(old);
        }
        ibr_routing_db_destroy(db);
        free(text);
        ibr_result_destroy(r);
        ibr_qos_config_destroy(q);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

static void expect_refused(const char *text, size_t len, const char *needle)
{
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL(ibr_routing_db_parse(&db, NULL, text, len), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(db);
    const char *m = ibr_routing_db_last_error(db);
    if (!strstr(m, needle))
        fprintf(stderr, "\nmessage \"%s\" lacks \"%s\"\n", m, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, needle));
    CU_ASSERT_STRING_EQUAL(ibr_routing_db_engine(db), "");
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_routing_db_route(&r, NULL, db, t, NULL, 0), IBR_EINVAL);
    ibr_topo_destroy(t);
    ibr_routing_db_destroy(db);
}

/* The text of db with lines inserted before its max_lid line and the
   checksum made valid again (malloc'ed, *k its length). */
static char *with_lines(const char *text, size_t len, const char *lines, size_t *k)
{
    const char *at = strstr(text, "\nmax_lid") + 1, *endl = strstr(text, "\nend ") + 1;
    size_t head = (size_t)(at - text), nl = strlen(lines);
    char *q = malloc(len + nl + 64);
    memcpy(q, text, head);
    memcpy(q + head, lines, nl);
    memcpy(q + head + nl, at, (size_t)(endl - at));
    *k = head + nl + (size_t)(endl - at);
    *k += (size_t)sprintf(q + *k, "end %016llx\n", (unsigned long long)ibr_test_fnv(q, *k));
    return q;
}

/* The reader on the formats' lexer: messages name the line and end in
   their stable code; a setting
   whose name holds a blank (escaped) writes back as one field, so the
   written text reads back and writes again byte for byte. */
static void test_records_lexer(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = ibr_test_route(NULL, t, "minhop", NULL, 0);
    size_t len, k;
    char *text = db_text(r, &len);
    /* line 4 is the seed line: magic, comment, engine, seed */
    char *bad = malloc(len + 1);
    memcpy(bad, text, len + 1);
    memcpy(strstr(bad, "\nseed") + 1, "zeed", 4);
    expect_refused(bad, len, "routing database line 4: unknown record \"zeed\" [DB048]");
    /* stable codes (doc/messages.md): a changed table byte, a foreign text */
    memcpy(bad, text, len + 1);
    char *lft = strstr(bad, "\nlft ");
    lft[8] = lft[8] == '0' ? '1' : '0';
    expect_refused(bad, len, "[DB006]");
    expect_refused("Unicast lids [0-3] of switch\n", 29, "[DB045]");
    free(bad);
    char *q = with_lines(text, len, "setting a%20b%09c v%20w\n", &k);
    ibr_routing_db *db = NULL, *db2 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, q, k), 0);
    ibr_buffer a = IBR_BUFFER_INIT, b = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL(ibr_routing_db_write(&a, db), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.data, "\nsetting a%20b%09c v%20w\n"));
    int rc = ibr_routing_db_parse(&db2, NULL, a.data, a.size);
    if (rc != 0)
        fprintf(stderr, "\nwritten database refused: %s\n", ibr_routing_db_last_error(db2));
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(ibr_routing_db_write(&b, db2), 0);
    CU_ASSERT(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
    ibr_buffer_dispose(&a);
    ibr_buffer_dispose(&b);
    ibr_routing_db_destroy(db2);
    ibr_routing_db_destroy(db);
    free(q);
    free(text);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static void test_damaged(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = ibr_test_route(NULL, t, "minhop", NULL, 0);
    size_t len;
    char *text = db_text(r, &len);
    char *bad = malloc(len + 1);
    expect_refused("", 0, "not an ibroute routing database");
    expect_refused("Unicast lids [0-3] of switch\n", 29, "not an ibroute routing database");
    expect_refused("ibroute-routing-db 7\n", 21, "format version 7");
    /* truncated anywhere: refused, never a crash */
    for (size_t cut = 0; cut < len; cut += len / 23 + 1) {
        ibr_routing_db *db = NULL;
        CU_ASSERT_EQUAL(ibr_routing_db_parse(&db, NULL, text, cut), IBR_EPARSE);
        ibr_routing_db_destroy(db);
    }
    expect_refused(text, len - 30, "");
    /* one changed byte in a table: the checksum says so */
    memcpy(bad, text, len + 1);
    char *lft = strstr(bad, "\nlft ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(lft);
    lft[8] = lft[8] == '0' ? '1' : '0';
    expect_refused(bad, len, "checksum mismatch");
    /* an unknown record */
    memcpy(bad, text, len + 1);
    memcpy(strstr(bad, "\nseed") + 1, "zeed", 4);
    expect_refused(bad, len, "unknown record \"zeed\"");
    /* QoS records: malformed, out of place, a configuration that does not
       read back (each with a valid checksum) */
    static const struct {
        const char *lines, *msg;
    } qbad[] = {
        {"qos 9 1\n", "bad qos line"},
        {"qos 3 8\n", "bad qos line"},
        {"qos 2 1\nqos 2 1\n", "bad qos line"},
        {"qosconf qos_max_vls%208\n", "qosconf before the qos line"},
        {"qos 1 0\nqosconf qos_sl2vl%2099\n", "the saved QoS configuration"},
        {"qos 1 0\nqosconf qos%ZZ\n", "bad escape in qosconf"},
        {"epsl2vl 00010203040506070809101112131415\n", "epsl2vl must follow"},
    };
    for (size_t i = 0; i < sizeof qbad / sizeof qbad[0]; i++) {
        const char *at = strstr(text, "\nmax_lid") + 1;
        size_t head = (size_t)(at - text), nl = strlen(qbad[i].lines);
        const char *tail = at, *endl = strstr(text, "\nend ") + 1;
        char *q = malloc(len + nl + 64);
        memcpy(q, text, head);
        memcpy(q + head, qbad[i].lines, nl);
        memcpy(q + head + nl, tail, (size_t)(endl - tail));
        size_t k = head + nl + (size_t)(endl - tail);
        k += (size_t)sprintf(q + k, "end %016llx\n", (unsigned long long)ibr_test_fnv(q, k));
        expect_refused(q, k, qbad[i].msg);
        free(q);
    }
    /* NULL arguments */
    ibr_routing_db *db = (ibr_routing_db *)1;
    CU_ASSERT_EQUAL(ibr_routing_db_parse(NULL, NULL, text, len), IBR_EINVAL);
    CU_ASSERT_EQUAL(ibr_routing_db_parse(&db, NULL, NULL, 3), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(db);
    CU_ASSERT_EQUAL(ibr_routing_db_from_result(&db, NULL), IBR_EINVAL);
    CU_ASSERT_STRING_EQUAL(ibr_routing_db_last_error(NULL), "");
    ibr_reroute_report rep;
    CU_ASSERT_EQUAL(ibr_reroute_report_init(&rep, 99), IBR_EVERSION);
    CU_ASSERT_EQUAL(ibr_reroute_report_init(&rep, IBR_REROUTE_REPORT_VERSION), 0);
    free(bad);
    free(text);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

/* Hand-edited databases with a correct checksum: any byte of the body
   changed to another character is either refused with a message or
   accepted and then applied without a crash (the checks run under ASan). */
static void test_edited(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = ibr_test_route(NULL, t, "dfsssp", NULL, 0);
    size_t len;
    char *text = db_text(r, &len);
    char *end = strstr(text, "\nend ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    size_t body = (size_t)(end - text) + 1;
    char *bad = malloc(len + 64);
    static const char subst[] = "0af9 \n-x%S";
    uint64_t state = 12345;
    long accepted = 0, refused = 0;
    for (int k = 0; k < 600; k++) {
        memcpy(bad, text, body);
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t pos = (size_t)(state >> 33) % body;
        bad[pos] = subst[(state >> 20) % (sizeof subst - 1)];
        int n = snprintf(bad + body, 64, "end %016llx\n", (unsigned long long)ibr_test_fnv(bad, body));
        ibr_routing_db *db = NULL;
        int rc = ibr_routing_db_parse(&db, NULL, bad, body + (size_t)n);
        if (rc == 0) {
            accepted++;
            ibr_result *y = NULL;
            ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
            (void)ibr_routing_db_route(&y, &rep, db, t, NULL, 0);
            ibr_result_destroy(y);
        } else {
            CU_ASSERT_EQUAL(rc, IBR_EPARSE);
            CU_ASSERT(strlen(ibr_routing_db_last_error(db)) > 0);
            refused++;
        }
        ibr_routing_db_destroy(db);
    }
    CU_ASSERT(refused > 100);
    CU_ASSERT(accepted > 10);
    free(bad);
    free(text);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
}

static size_t count_kind(const ibr_change *c, size_t n, int kind)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += c[i].kind == kind;
    return k;
}

/* Table 1: each kind of change recognised and what it invalidates. */
static void test_classify(void)
{
    ibr_fabric *f = ibr_test_fabric("fattree:levels=2,radix=4");
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r = ibr_test_route(NULL, t0, "minhop", NULL, 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r), 0);
    /* find a switch-switch cable, a CA, a leaf */
    uint32_t n = ibr_fabric_node_count(f), ca = IBR_NONE, sw = IBR_NONE;
    unsigned swp = 0;
    for (uint32_t i = 0; i < n; i++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_fabric_node_info(&ni, f, i);
        if (ni.type == IBR_NODE_CA && ca == IBR_NONE)
            ca = i;
        for (unsigned p = 1; p <= ni.nports && ni.type == IBR_NODE_SWITCH && sw == IBR_NONE;
             p++) {
            ibr_port_info pi = IBR_PORT_INFO_INIT;
            ibr_fabric_port_info(&pi, f, i, p);
            if (pi.remote_node != IBR_NONE) {
                ibr_node_info rn = IBR_NODE_INFO_INIT;
                ibr_fabric_node_info(&rn, f, pi.remote_node);
                if (rn.type == IBR_NODE_SWITCH) {
                    sw = i;
                    swp = p;
                }
            }
        }
    }
    CU_ASSERT_FATAL(ca != IBR_NONE && sw != IBR_NONE);
    ibr_fabric *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(g, sw, swp, IBR_LINK_DOWN), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(g, ca, 1, IBR_LINK_DOWN), 0);
    ibr_topo *t1 = ibr_test_freeze(g);
    ibr_change ch[16];
    size_t k = 0;
    CU_ASSERT_EQUAL(ibr_routing_db_compare(ch, 1, &k, db, t1), IBR_ERANGE);
    CU_ASSERT_EQUAL(k, 2);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_compare(ch, 16, &k, db, t1), 0);
    CU_ASSERT_EQUAL(count_kind(ch, k, IBR_CHANGE_MISSING_CABLE), 1);
    CU_ASSERT_EQUAL(count_kind(ch, k, IBR_CHANGE_MISSING_CA), 1);
    for (size_t i = 0; i < k; i++)
        if (ch[i].kind == IBR_CHANGE_MISSING_CABLE)
            CU_ASSERT(ch[i].invalidates & IBR_INVALID_PORT_ROUTES);
    /* the CA back: a leaf-only change is served from the saved tables */
    ibr_fabric_destroy(g);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_link_state(g, ca, 1, IBR_LINK_DOWN), 0);
    ibr_topo *t2 = ibr_test_freeze(g);
    ibr_result *y = NULL;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t2, NULL, 0), 0);
    CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_CACHED);
    CU_ASSERT_EQUAL(rep.changes, 1);
    ibr_verify_report vr = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
    CU_ASSERT_EQUAL(vr.pairs_ok, vr.pairs);
    ibr_result_destroy(y);
    /* the old routing reloaded on a fabric where that CA came back */
    ibr_routing_db *db2 = NULL;
    ibr_result *r2 = ibr_test_route(NULL, t2, "minhop", NULL, 0);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db2, r2), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_compare(ch, 16, &k, db2, t0), 0);
    CU_ASSERT_EQUAL(k, 1);
    CU_ASSERT_EQUAL(ch[0].kind, IBR_CHANGE_NEW_CA);
    CU_ASSERT(ch[0].invalidates & IBR_INVALID_LIDS);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db2, t0, NULL, 0), 0);
    CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_CACHED);
    CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
    CU_ASSERT_EQUAL(vr.pairs_ok, vr.pairs);
    CU_ASSERT(vr.pairs > 0);
    CU_ASSERT_EQUAL(vr.nonminimal, 0);
    ibr_result_destroy(y);
    /* LIDs reassigned with another LMC: LID changes, the routing follows */
    ibr_fabric *h = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&h, f), 0);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(h, 1, IBR_LIDS_REASSIGN), 0);
    ibr_topo *t3 = ibr_test_freeze(h);
    int crc = ibr_routing_db_compare(NULL, 0, &k, db, t3);
    CU_ASSERT_EQUAL_FATAL(crc, IBR_ERANGE);
    CU_ASSERT(k > 0);
    ibr_change *all = calloc(k, sizeof *all);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_compare(all, k, &k, db, t3), 0);
    CU_ASSERT_EQUAL(count_kind(all, k, IBR_CHANGE_LID), k);
    free(all);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t3, NULL, 0), 0);
    CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_CACHED);
    CU_ASSERT_EQUAL(ibr_result_verify(&vr, y), 0);
    CU_ASSERT_EQUAL(vr.routes_ok, vr.routes_checked);
    ibr_result_destroy(y);
    /* a new switch: full reroute, and the report says why */
    ibr_fabric *big = ibr_test_fabric("fattree:levels=2,radix=6");
    ibr_topo *t4 = ibr_test_freeze(big);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t4, NULL, 0), 0);
    CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.reason, "new switch"));
    ibr_result_destroy(y);
    ibr_topo_destroy(t4);
    ibr_fabric_destroy(big);
    ibr_topo_destroy(t3);
    ibr_fabric_destroy(h);
    ibr_result_destroy(r2);
    ibr_routing_db_destroy(db2);
    ibr_topo_destroy(t2);
    ibr_topo_destroy(t1);
    ibr_fabric_destroy(g);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

typedef struct prop_stats {
    long runs, incremental, full, fewer, over_lost;
} prop_stats;

/* One failure scenario: incremental versus full reroute. */
/* LFT entries and switches that differ between two results on fabrics
   with the same switches and LIDs. */
static uint64_t lft_diff(const ibr_result *a, const ibr_result *b, uint32_t *switches)
{
    uint64_t n = 0;
    *switches = 0;
    size_t len = ibr_result_lft_size(a);
    for (uint32_t s = 0; s < ibr_topo_switch_count(ibr_result_topo(a)); s++) {
        const uint8_t *x = ibr_result_lft(a, s), *y = ibr_result_lft(b, s);
        uint64_t c = 0;
        for (size_t l = 1; l < len; l++)
            c += x[l] != y[l];
        n += c;
        *switches += c > 0;
    }
    return n;
}

/* Bucket of ibr_reroute_report::lft_blocks_hist, computed apart. */
static unsigned hist_bucket(uint32_t nb)
{
    unsigned k = 0;
    while (k + 1 < IBR_REROUTE_BLOCK_BUCKETS && nb >= (2u << k))
        k++;
    return k;
}

/* Switch index of every node of t (IBR_NONE for the others); the caller
   frees it. */
static uint32_t *switch_of_nodes(const ibr_topo *t)
{
    uint32_t *m = malloc(sizeof *m * (ibr_topo_node_count(t) + 1));
    for (uint32_t i = 0; i < ibr_topo_node_count(t); i++)
        m[i] = IBR_NONE;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++)
        m[ibr_topo_switch_node(t, s)] = s;
    return m;
}

/* The remote end of (node, port) of t: its node and port, 0 when the port
   has no active cable. */
static int cable_of(uint32_t *rn, unsigned *rp, const ibr_topo *t, uint32_t node, unsigned p)
{
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    if (ibr_topo_port_info(&pi, t, node, p) < 0 || pi.remote_node == IBR_NONE ||
        pi.state != IBR_LINK_ACTIVE)
        return 0;
    *rn = pi.remote_node;
    *rp = pi.remote_port;
    return 1;
}

/* The saved blocks (of orig's tables) whose route, followed hop by hop
   forward from its switch, uses a switch-to-switch cable of orig's
   topology that topology now lacks; both topologies have the same nodes
   (faults injected into a copy). Independent of the library's backward
   walk. */
static uint64_t blocks_over_lost(const ibr_result *orig, const ibr_topo *now)
{
    const ibr_topo *t = ibr_result_topo(orig);
    uint32_t S = ibr_topo_switch_count(t);
    uint32_t *swof = switch_of_nodes(t);
    /* per (switch, port): next switch over a kept cable, or lost */
    uint32_t *next = malloc(sizeof *next * S * 256);
    uint8_t *lost = calloc((size_t)S * 256, 1);
    for (uint32_t v = 0; v < S; v++) {
        uint32_t node = ibr_topo_switch_node(t, v);
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        for (unsigned p = 0; p < 256; p++) {
            uint32_t rn, rn2;
            unsigned rp, rp2;
            next[(size_t)v * 256 + p] = IBR_NONE;
            if (p == 0 || p > ni.nports || !cable_of(&rn, &rp, t, node, p) ||
                swof[rn] == IBR_NONE)
                continue;
            if (cable_of(&rn2, &rp2, now, node, p) && rn2 == rn && rp2 == rp)
                next[(size_t)v * 256 + p] = swof[rn];
            else
                lost[(size_t)v * 256 + p] = 1;
        }
    }
    size_t len = ibr_result_lft_size(orig), nb = (len + 63) / 64;
    uint8_t *mark = calloc((size_t)S * nb + 1, 1);
    uint64_t n = 0;
    for (uint32_t s = 0; s < S; s++)
        for (size_t l = 1; l < len; l++) {
            uint32_t v = s;
            for (uint32_t hop = 0; hop <= S && v != IBR_NONE; hop++) {
                unsigned p = ibr_result_lft_port(orig, v, (uint16_t)l);
                if (p == IBR_NO_ROUTE)
                    break;
                if (lost[(size_t)v * 256 + p]) {
                    n += !mark[(size_t)s * nb + l / 64];
                    mark[(size_t)s * nb + l / 64] = 1;
                    break;
                }
                v = next[(size_t)v * 256 + p];
            }
        }
    free(mark);
    free(lost);
    free(next);
    free(swof);
    return n;
}

/* The version 3 fields of rep for result now against the saved routing
   orig (same switch and node indices), recomputed through the public
   getters: LFT blocks by LID (a LID past a table's end unrouted), their
   histogram; with V3_SL2VL in what, the SL2VL tables of switches and end
   ports; with V3_OVER_LOST, lft_blocks_over_lost (the topology of now lost
   cables of orig's). */
static void check_v3(const ibr_reroute_report *rep, const ibr_result *now, const ibr_result *orig,
                     unsigned what)
{
    const ibr_topo *t = ibr_result_topo(now);
    size_t ln = ibr_result_lft_size(now), lo = ibr_result_lft_size(orig);
    size_t len = ln > lo ? ln : lo;
    uint64_t blocks = 0, ent = 0;
    uint32_t max = 0, sws = 0, hist[IBR_REROUTE_BLOCK_BUCKETS] = {0};
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        uint32_t nb = 0;
        uint64_t e = 0;
        for (size_t b = 0; b * 64 < len; b++) {
            int diff = 0;
            for (size_t l = b * 64; l < b * 64 + 64 && l < len; l++) {
                if (l == 0)
                    continue;
                unsigned x = l < ln ? ibr_result_lft_port(now, s, (uint16_t)l) : IBR_NO_ROUTE;
                unsigned y = l < lo ? ibr_result_lft_port(orig, s, (uint16_t)l) : IBR_NO_ROUTE;
                diff |= x != y;
                e += x != y;
            }
            nb += diff;
        }
        ent += e;
        blocks += nb;
        if (nb) {
            sws++;
            hist[hist_bucket(nb)]++;
            max = nb > max ? nb : max;
        }
    }
    CU_ASSERT_EQUAL(rep->lft_entries_changed, ent);
    CU_ASSERT_EQUAL(rep->switches_changed, sws);
    CU_ASSERT_EQUAL(rep->lft_blocks_changed, blocks);
    CU_ASSERT_EQUAL(rep->lft_blocks_max, max);
    CU_ASSERT_EQUAL(memcmp(rep->lft_blocks_hist, hist, sizeof hist), 0);
    /* blocks: at least one per changed switch, at most one per entry */
    CU_ASSERT(blocks >= sws && blocks <= ent);
    uint64_t tables = 0;
    for (uint32_t node = 0; node < ibr_topo_node_count(t); node++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, node);
        uint8_t a[16], b[16];
        if (ni.type == IBR_NODE_SWITCH) {
            uint32_t s = 0;
            while (ibr_topo_switch_node(t, s) != node)
                s++;
            for (unsigned i = 0; i <= ni.nports; i++)
                for (unsigned o = 0; o <= ni.nports; o++) {
                    CU_ASSERT_EQUAL(ibr_result_sl2vl(a, now, s, i, o), 0);
                    CU_ASSERT_EQUAL(ibr_result_sl2vl(b, orig, s, i, o), 0);
                    tables += memcmp(a, b, 16) != 0;
                }
        } else {
            for (unsigned p = 1; p <= ni.nports; p++)
                if (ibr_result_endport_sl2vl(a, now, node, p) == 0 &&
                    ibr_result_endport_sl2vl(b, orig, node, p) == 0)
                    tables += memcmp(a, b, 16) != 0;
        }
    }
    if (what & V3_SL2VL)
        CU_ASSERT_EQUAL(rep->sl2vl_tables_changed, tables);
    if (what & V3_OVER_LOST)
        CU_ASSERT_EQUAL(rep->lft_blocks_over_lost, blocks_over_lost(orig, t));
}

static void one_failure(prop_stats *st, const ibr_fabric *f, const ibr_routing_db *db,
                        const ibr_result *orig, const char *engine, unsigned links,
                        unsigned switches, uint64_t seed, unsigned promise)
{
    ibr_fabric *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    if (ibr_fabric_inject_faults(g, links, switches, seed) < 0) {
        ibr_fabric_destroy(g);
        return;
    }
    ibr_topo *t = ibr_test_freeze(g);
    ibr_result *inc = NULL, *full = NULL;
    ibr_reroute_report ri = IBR_REROUTE_REPORT_INIT, rf = IBR_REROUTE_REPORT_INIT;
    int rci = ibr_routing_db_route(&inc, &ri, db, t, NULL, 0);
    int rcf = ibr_routing_db_route(&full, &rf, db, t, NULL, IBR_REROUTE_FORCE_FULL);
    if (rcf != 0) {
        /* the engine cannot route the damaged fabric at all (updn without
           roots...): the incremental call reports the same */
        CU_ASSERT(rci != 0 || ri.mode != IBR_REROUTE_FULL);
        goto done;
    }
    CU_ASSERT_EQUAL_FATAL(rci, 0);
    st->runs++;
    ibr_verify_report vi = IBR_VERIFY_REPORT_INIT, vf = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&vi, inc), 0);
    CU_ASSERT_EQUAL(ibr_result_verify(&vf, full), 0);
    /* valid: every pair the full reroute delivers, and no broken route */
    CU_ASSERT_EQUAL(vi.routes_ok, vi.routes_checked);
    CU_ASSERT_EQUAL(vi.loops + vi.bad_port + vi.down_link + vi.dead_end, 0);
    CU_ASSERT(vi.pairs_ok >= vf.pairs_ok);
    if (promise & IBR_TEST_MINIMAL)
        CU_ASSERT_EQUAL(vi.nonminimal, 0);
    if (promise & IBR_TEST_DEADLOCK_FREE)
        CU_ASSERT_EQUAL(vi.deadlock_free, 1);
    /* the churn reported is the difference with the saved routing */
    uint32_t dsw = 0, fsw = 0;
    CU_ASSERT_EQUAL(lft_diff(inc, orig, &dsw), ri.lft_entries_changed);
    CU_ASSERT_EQUAL(dsw, ri.switches_changed);
    CU_ASSERT_EQUAL(lft_diff(full, orig, &fsw), rf.lft_entries_changed);
    CU_ASSERT_EQUAL(fsw, rf.switches_changed);
    /* blocks, SL2VL tables and the blocks over the lost cables, recounted */
    check_v3(&ri, inc, orig, V3_OVER_LOST | V3_SL2VL);
    check_v3(&rf, full, orig, V3_OVER_LOST | V3_SL2VL);
    CU_ASSERT_EQUAL(ri.lft_blocks_over_lost, rf.lft_blocks_over_lost);
    st->over_lost += ri.lft_blocks_over_lost > 0;
    if (getenv("IBR_TEST_VERBOSE"))
        fprintf(stderr,
                "\n%s links=%u switches=%u: blocks %llu (full %llu), over lost %llu, "
                "SL2VL tables %llu (full %llu)\n",
                engine, links, switches, (unsigned long long)ri.lft_blocks_changed,
                (unsigned long long)rf.lft_blocks_changed,
                (unsigned long long)ri.lft_blocks_over_lost,
                (unsigned long long)ri.sl2vl_tables_changed,
                (unsigned long long)rf.sl2vl_tables_changed);
    /* churn never above the full reroute's */
    CU_ASSERT(ri.lft_entries_changed <= rf.lft_entries_changed);
    /* the switches too, but for updn, dnup and ftree (repaired as up/down
       routings, with the moved routes spread over equally loaded ports,
       which on a 3-level tree can touch more switches): their repair keeps the
       saved orientation of the links, under which a switch that lost its
       only way down has no route and the switches that routed through it
       move, where a full reroute ranks the switches again (fewer switches,
       more entries) */
    if (strcmp(engine, "updn") != 0 && strcmp(engine, "dnup") != 0 && strcmp(engine, "ftree") != 0)
        CU_ASSERT(ri.switches_changed <= rf.switches_changed);
    if (ri.lft_entries_changed > rf.lft_entries_changed)
        fprintf(stderr, "\n%s links=%u switches=%u seed=%llu: churn %llu > full %llu\n", engine,
                links, switches, (unsigned long long)seed,
                (unsigned long long)ri.lft_entries_changed,
                (unsigned long long)rf.lft_entries_changed);
    if (ri.mode == IBR_REROUTE_FULL) {
        if (getenv("IBR_TEST_VERBOSE"))
            fprintf(stderr, "\n%s: full reroute: %s\n", engine, ri.reason);
        st->full++;
        CU_ASSERT(ri.reason[0] != 0);
        CU_ASSERT(same_lfts(inc, full));
    } else {
        st->incremental++;
        CU_ASSERT_EQUAL(ri.mode, IBR_REROUTE_INCREMENTAL);
        st->fewer += ri.lft_entries_changed < rf.lft_entries_changed;
    }
    CU_ASSERT_EQUAL(rf.mode, IBR_REROUTE_FULL);
done:
    ibr_result_destroy(inc);
    ibr_result_destroy(full);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(g);
}

static void property(const char *spec, const char *engine, unsigned promise, int seeds,
                     int min_incremental)
{
    ibr_fabric *f = ibr_test_fabric(spec);
    ibr_topo *t = ibr_test_freeze(f);
    ibr_result *r = ibr_test_route(NULL, t, engine, NULL, promise);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* through the text, as a saved database */
    size_t len;
    char *text = db_text(r, &len);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, text, len), 0);
    prop_stats st = {0, 0, 0, 0, 0};
    for (int s = 1; s <= seeds; s++) {
        one_failure(&st, f, db, r, engine, 1, 0, (uint64_t)s, promise);
        one_failure(&st, f, db, r, engine, 1 + (unsigned)s % 4, 0, 1000 + (uint64_t)s, promise);
    }
    one_failure(&st, f, db, r, engine, 0, 1, 77, promise);
    one_failure(&st, f, db, r, engine, 2, 1, 78, promise);
    if (st.incremental < min_incremental)
        fprintf(stderr, "\n%s %s: %ld runs, %ld incremental, %ld full\n", spec, engine, st.runs,
                st.incremental, st.full);
    CU_ASSERT(st.incremental >= min_incremental);
    CU_ASSERT(st.runs > 0);
    CU_ASSERT(st.over_lost > 0); /* some fault was crossed by saved routes */
    ibr_routing_db_destroy(db);
    free(text);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

static void test_property_minimal(void)
{
    property("fattree:levels=3,radix=8", "minhop", IBR_TEST_MINIMAL, 12, 20);
    property("xgft:h=3,m=4.4.6,w=1.2.3", "minhop", IBR_TEST_MINIMAL, 8, 12);
    property("torus:dims=5x5,hosts=1", "minhop", IBR_TEST_MINIMAL, 10, 16);
    property("random:switches=40,degree=5,hosts=2,seed=9", "minhop", IBR_TEST_MINIMAL, 10, 16);
    property("random:switches=30,degree=4,hosts=2,seed=4", "sssp", IBR_TEST_MINIMAL, 8, 12);
}

static void test_property_deadlock_free(void)
{
    property("fattree:levels=3,radix=8", "updn", IBR_TEST_DEADLOCK_FREE, 10, 10);
    property("fattree:levels=2,radix=8", "dnup", IBR_TEST_DEADLOCK_FREE, 6, 4);
    property("torus:dims=4x4,hosts=2", "dfsssp", IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL, 8, 4);
    /* dfsssp's layers often do not survive a partial repair: the credit-loop
       check sends most cases to a full reroute (which the test also checks) */
    property("random:switches=24,degree=4,hosts=2,seed=7", "dfsssp",
             IBR_TEST_DEADLOCK_FREE | IBR_TEST_MINIMAL, 8, 1);
    property("fattree:levels=3,radix=8", "ftree", IBR_TEST_DEADLOCK_FREE, 6, 0);
}

/* updn and dnup on a fat tree of hundreds of hosts: repaired in place
   under the saved orientation of the links, checked on the moved entries
   only (no credit-loop walk over every path); the routing stays valid and
   deadlock-free (one_failure checks it). A database without the
   orientation takes the full reroute (tests/test_repair_updn.c). */
static void test_check_dearer_than_full(void)
{
    static const char *engines[] = {"updn", "dnup"};
    ibr_fabric *f = ibr_test_fabric("fattree:levels=2,radix=24");
    ibr_topo *t = ibr_test_freeze(f);
    for (size_t e = 0; e < 2; e++) {
        ibr_result *r = ibr_test_route(NULL, t, engines[e], NULL, IBR_TEST_DEADLOCK_FREE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        ibr_routing_db *db = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r), 0);
        prop_stats st = {0, 0, 0, 0, 0};
        for (uint64_t seed = 1; seed <= 3; seed++)
            one_failure(&st, f, db, r, engines[e], 1, 0, seed, IBR_TEST_DEADLOCK_FREE);
        CU_ASSERT_EQUAL(st.runs, 3);
        CU_ASSERT_EQUAL(st.full, 0);
        ibr_fabric *g = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
        CU_ASSERT_EQUAL(ibr_fabric_inject_faults(g, 1, 0, 5), 0);
        ibr_topo *t1 = ibr_test_freeze(g);
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
        CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_INCREMENTAL);
        CU_ASSERT_EQUAL(ibr_test_credit_loops(y), 0);
        ibr_result_destroy(y);
        ibr_topo_destroy(t1);
        ibr_fabric_destroy(g);
        ibr_routing_db_destroy(db);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* The busiest channel of r under all-to-all traffic, walked here apart from
   the library: every end port sends to every end-port LID through the LFTs,
   one unit per pair on each (switch, out port) it crosses. */
static uint64_t a2a_max_load(const ibr_result *r)
{
    const ibr_topo *t = ibr_result_topo(r);
    uint32_t S = ibr_topo_switch_count(t);
    uint16_t maxlid = ibr_topo_max_lid(t);
    uint64_t *load = calloc((size_t)(S ? S : 1) * 256, sizeof *load), best = 0;
    uint32_t *hosts = calloc(S ? S : 1, sizeof *hosts);
    CU_ASSERT_FATAL(load && hosts);
    for (uint16_t l = 1; l <= maxlid; l++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_lid_owner(&node, &port, t, l) == 0 &&
            ibr_topo_node_switch(t, node) == IBR_NONE) {
            uint32_t sw = ibr_test_sw_behind(t, node, port);
            if (sw != IBR_NONE)
                hosts[sw]++;
        }
    }
    for (uint16_t l = 1; l <= maxlid; l++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_lid_owner(&node, &port, t, l) < 0 || ibr_topo_node_switch(t, node) != IBR_NONE)
            continue;
        for (uint32_t s0 = 0; s0 < S; s0++) {
            uint32_t s = s0;
            for (uint32_t hop = 0; hosts[s0] && hop <= S && s != IBR_NONE; hop++) {
                unsigned p = ibr_result_lft_port(r, s, l);
                if (p == 0 || p == IBR_NO_ROUTE)
                    break;
                uint64_t *c = &load[(size_t)s * 256 + p];
                *c += hosts[s0];
                best = *c > best ? *c : best;
                s = ibr_test_sw_behind(t, ibr_topo_switch_node(t, s), p);
            }
        }
    }
    free(load);
    free(hosts);
    return best;
}

/* Whether the saved route from switch s to LID l, walked on the changed
   fabric t, fails to arrive (it crossed a lost cable or switch). */
static int route_over_lost(const ibr_result *orig, const ibr_topo *t, uint32_t s, uint16_t l)
{
    uint32_t node;
    unsigned port;
    if (ibr_topo_lid_owner(&node, &port, t, l) < 0)
        return 1;
    uint32_t d = ibr_topo_node_switch(t, node);
    if (d == IBR_NONE)
        d = ibr_test_sw_behind(t, node, port);
    for (uint32_t hop = 0; hop <= ibr_topo_switch_count(t) && s != IBR_NONE; hop++) {
        if (s == d)
            return 0;
        unsigned p = ibr_result_lft_port(orig, s, l);
        if (p == 0 || p == IBR_NO_ROUTE)
            return 1;
        s = ibr_test_sw_behind(t, ibr_topo_switch_node(t, s), p);
    }
    return 1;
}

/* sssp repaired in place after seeded faults: valid, only the routes over
   the lost element moved, and its busiest all-to-all link at most 10 %
   above a fresh sssp route of the faulty fabric. */
static void balance_of(const char *engine, const char *spec, unsigned links, unsigned switches)
{
    unsigned flags = IBR_TEST_MINIMAL | (strcmp(engine, "dfsssp") ? 0 : IBR_TEST_DEADLOCK_FREE);
    ibr_fabric *f = ibr_test_fabric(spec);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r = ibr_test_route(NULL, t0, engine, NULL, flags);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r), 0);
    prop_stats st = {0, 0, 0, 0, 0};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        one_failure(&st, f, db, r, engine, links, switches, seed, flags);
        ibr_fabric *g = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(g, links, switches, seed), 0);
        ibr_topo *t = ibr_test_freeze(g);
        ibr_result *inc = NULL, *full = NULL;
        ibr_reroute_report ri = IBR_REROUTE_REPORT_INIT, rf = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&inc, &ri, db, t, NULL, 0), 0);
        CU_ASSERT_EQUAL_FATAL(
            ibr_routing_db_route(&full, &rf, db, t, NULL, IBR_REROUTE_FORCE_FULL), 0);
        CU_ASSERT_EQUAL(ri.mode, IBR_REROUTE_INCREMENTAL);
        uint64_t mi = a2a_max_load(inc), mf = a2a_max_load(full);
        CU_ASSERT(mf > 0);
        CU_ASSERT(mi * 100 <= mf * 110);
        if (mi * 100 > mf * 110)
            fprintf(stderr, "\n%s %s seed %llu: busiest link %llu, full %llu\n", engine, spec,
                    (unsigned long long)seed, (unsigned long long)mi, (unsigned long long)mf);
        uint32_t S = ibr_topo_switch_count(t);
        uint16_t maxlid = ibr_topo_max_lid(t);
        uint64_t bad = 0;
        for (uint32_t s = 0; s < S; s++)
            for (uint16_t l = 1; l <= maxlid; l++)
                if (ibr_result_lft_port(inc, s, l) != ibr_result_lft_port(r, s, l))
                    bad += !route_over_lost(r, t, s, l);
        CU_ASSERT_EQUAL(bad, 0);
        ibr_result_destroy(inc);
        ibr_result_destroy(full);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(g);
    }
    CU_ASSERT_EQUAL(st.runs, 3);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

static void test_sssp_balance(void)
{
    balance_of("sssp", "fattree:levels=2,radix=24", 0, 1);
    balance_of("sssp", "fattree:levels=2,radix=24", 1, 0);
    balance_of("sssp", "torus:dims=6x6x6,hosts=2", 1, 0);
    balance_of("sssp", "torus:dims=8x8x8,hosts=2", 0, 1);
    balance_of("sssp", "random:switches=64,degree=6,hosts=4,seed=1", 1, 0);
    /* dfsssp's moved paths are chosen the same way, then placed into
       layers (its repaired routing walked for credit loops by one_failure) */
    balance_of("dfsssp", "fattree:levels=2,radix=24", 0, 1);
    balance_of("dfsssp", "fattree:levels=2,radix=24", 1, 0);
    balance_of("dfsssp", "random:switches=64,degree=6,hosts=4,seed=1", 1, 0);
}

/* The up/down repair (updn, dnup, ftree) spreads the routes that leave a
   lost cable or switch over the equally loaded legal ports: its busiest
   link stays within 1.10 of a full reroute's (ftree's full reroute is
   balanced; all moved routes laid on the first port were 1.8x). */
static void test_updown_balance(void)
{
    balance_of("ftree", "fattree:levels=2,radix=24", 1, 0);
    balance_of("ftree", "fattree:levels=2,radix=24", 0, 1);
    balance_of("updn", "fattree:levels=2,radix=24", 1, 0);
    balance_of("dnup", "fattree:levels=2,radix=24", 0, 1);
}

/* Parallel cables: the routes of a failed cable move to its twin. */
static void test_parallel(void)
{
    ibr_fabric *f = ibr_test_fabric("torus:dims=3x3,hosts=2,parallel=2");
    ibr_topo *t = ibr_test_freeze(f);
    ibr_result *r = ibr_test_route(NULL, t, "minhop", NULL, IBR_TEST_MINIMAL);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r), 0);
    prop_stats st = {0, 0, 0, 0, 0};
    for (uint64_t s = 1; s <= 8; s++)
        one_failure(&st, f, db, r, "minhop", 1, 0, s, IBR_TEST_MINIMAL);
    CU_ASSERT_EQUAL(st.incremental, 8);
    /* one failure: no destination searched again, only the failed ports'
       entries moved */
    ibr_fabric *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(g, 1, 0, 5), 0);
    ibr_topo *t1 = ibr_test_freeze(g);
    ibr_result *y = NULL;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, 0), 0);
    CU_ASSERT_EQUAL(rep.destinations_rerouted, 0);
    CU_ASSERT(rep.lft_entries_changed > 0);
    CU_ASSERT(rep.switches_changed <= 2);
    ibr_result_destroy(y);
    ibr_topo_destroy(t1);
    ibr_fabric_destroy(g);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
}

/* An independent credit-loop check of a routing on one VL (no path SLs):
   every route from an end port's switch to every end-port LID is walked
   through the LFTs, each step from channel (switch, out port) to the next
   adds a dependency, and a depth-first search looks for a cycle. Returns
   1 when the routes close a credit loop, 0 when not. */
static int walk_credit_loop(const ibr_result *r)
{
    const ibr_topo *t = ibr_result_topo(r);
    uint32_t S = ibr_topo_switch_count(t);
    uint16_t maxlid = ibr_topo_max_lid(t);
    const unsigned P = 256; /* channels: switch x port */
    size_t N = (size_t)S * P;
    uint8_t *dep = calloc(N * N / 8 + 1, 1); /* bit (a * N + b): a -> b */
    uint8_t *src = calloc(S ? S : 1, 1), *color = calloc(N, 1);
    size_t *stack = malloc(N * sizeof *stack), *next = calloc(N, sizeof *next);
    CU_ASSERT_FATAL(dep && src && color && stack && next);
    for (uint16_t l = 1; l <= maxlid; l++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_lid_owner(&node, &port, t, l) == 0 &&
            ibr_topo_node_switch(t, node) == IBR_NONE) {
            uint32_t sw = ibr_test_sw_behind(t, node, port);
            if (sw != IBR_NONE)
                src[sw] = 1;
        }
    }
    for (uint16_t l = 1; l <= maxlid; l++) {
        uint32_t node;
        unsigned port;
        if (ibr_topo_lid_owner(&node, &port, t, l) < 0 || ibr_topo_node_switch(t, node) != IBR_NONE)
            continue;
        for (uint32_t s0 = 0; s0 < S; s0++) {
            if (!src[s0])
                continue;
            size_t prev = SIZE_MAX;
            uint32_t s = s0;
            for (uint32_t hop = 0; hop <= S && s != IBR_NONE; hop++) {
                unsigned p = ibr_result_lft_port(r, s, l);
                if (p == 0 || p == IBR_NO_ROUTE)
                    break;
                size_t ch = (size_t)s * P + p;
                if (prev != SIZE_MAX)
                    dep[(prev * N + ch) / 8] |= (uint8_t)(1u << ((prev * N + ch) % 8));
                prev = ch;
                s = ibr_test_sw_behind(t, ibr_topo_switch_node(t, s), p);
            }
        }
    }
    /* iterative DFS: 1 on the stack, 2 done */
    int loop = 0;
    for (size_t root = 0; root < N && !loop; root++) {
        if (color[root])
            continue;
        size_t sp = 0;
        stack[sp++] = root;
        color[root] = 1;
        next[root] = 0;
        while (sp && !loop) {
            size_t a = stack[sp - 1];
            if (next[a] == N) {
                color[a] = 2;
                sp--;
                continue;
            }
            size_t b = next[a]++;
            if (!(dep[(a * N + b) / 8] & (1u << ((a * N + b) % 8))))
                continue;
            if (color[b] == 1)
                loop = 1;
            else if (!color[b]) {
                color[b] = 1;
                next[b] = 0;
                stack[sp++] = b;
            }
        }
    }
    free(dep);
    free(src);
    free(color);
    free(stack);
    free(next);
    return loop;
}

/* A saved engine that cannot route the fabric after its faults: the
   reroute fails (IBR_EUNROUTABLE, the attempts name only that engine)
   unless the caller allows the fallback; then the result and the report
   name minhop, its tables are minhop's (the same as routing the fabric
   with minhop), and where the case says so they close a credit loop (an
   independent walk finds it), which is why they cannot pass for the saved
   engine's. */
typedef struct decline_case {
    const char *spec, *engine;
    unsigned links, switches;
    uint64_t seed;
    int loop; /* minhop's tables close a credit loop */
    int repairs; /* the saved routing is repaired in place within its VLs
                    (layered engines), which needs no run of the engine */
} decline_case;

/* A layered routing repaired in place although the engine would decline
   the damaged fabric: the saved engine's, valid, and free of credit loops
   over its SLs (the verifier's check). */
static void check_layered_repair(ibr_result *y, const ibr_reroute_report *rep, int rc,
                                 const char *engine)
{
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(rep->mode, IBR_REROUTE_INCREMENTAL);
    CU_ASSERT_STRING_EQUAL(ibr_result_engine(y), engine);
    CU_ASSERT_EQUAL(rep->fallback, 0);
    ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&v, y), 0);
    CU_ASSERT_EQUAL(v.routes_ok, v.routes_checked);
    CU_ASSERT_EQUAL(v.deadlock_free, 1);
}

static void decline_one(const decline_case *c)
{
    char chain[64];
    snprintf(chain, sizeof chain, "%s,no_fallback", c->engine);
    ibr_fabric *f = ibr_test_fabric(c->spec);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, chain, NULL), 0);
    size_t len;
    char *text = db_text(r0, &len);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, text, len), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, c->links, c->switches, c->seed), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    /* the engine itself declines the damaged fabric */
    ibr_result *direct = NULL;
    CU_ASSERT_EQUAL(ibr_route(&direct, t1, chain, NULL), IBR_EUNROUTABLE);
    ibr_result_destroy(direct);
    ibr_result *m = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&m, t1, "minhop", NULL), 0);

    static const unsigned strict_flags[] = {0, IBR_REROUTE_FORCE_FULL};
    for (size_t i = 0; i < 2; i++) {
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        int rc = ibr_routing_db_route(&y, &rep, db, t1, NULL, strict_flags[i]);
        if (c->repairs && i == 0) {
            check_layered_repair(y, &rep, rc, c->engine);
            ibr_result_destroy(y);
            continue;
        }
        if (rc != IBR_EUNROUTABLE)
            fprintf(stderr, "\n%s %s: reroute gave %s, engine '%s'\n", c->spec, c->engine,
                    ibr_status_name(rc), y ? ibr_result_engine(y) : "");
        CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(y);
        CU_ASSERT_EQUAL(ibr_result_status(y), IBR_EUNROUTABLE);
        CU_ASSERT_PTR_NULL(ibr_result_lft(y, 0));
        CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
        CU_ASSERT_STRING_EQUAL(rep.engine, "");
        CU_ASSERT_EQUAL(rep.fallback, 0);
        CU_ASSERT(strstr(ibr_result_last_error(y), c->engine) != NULL);
        CU_ASSERT(strstr(ibr_result_last_error(y), "IBR_REROUTE_FALLBACK") != NULL);
        /* the saved engine was tried, and nothing else */
        CU_ASSERT(ibr_result_attempt_count(y) >= 1);
        for (size_t k = 0; k < ibr_result_attempt_count(y); k++) {
            const char *name = "", *msg = "";
            int st = 0;
            CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, y, k), 0);
            CU_ASSERT_STRING_EQUAL(name, c->engine);
            CU_ASSERT(st < 0);
        }
        ibr_result_destroy(y);
    }
    static const unsigned fb_flags[] = {IBR_REROUTE_FALLBACK,
                                        IBR_REROUTE_FALLBACK | IBR_REROUTE_FORCE_FULL};
    for (size_t i = 0; i < 2; i++) {
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        int rc = ibr_routing_db_route(&y, &rep, db, t1, NULL, fb_flags[i]);
        if (c->repairs && i == 0) {
            check_layered_repair(y, &rep, rc, c->engine);
            ibr_result_destroy(y);
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(rc, 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(y), "minhop");
        CU_ASSERT_STRING_EQUAL(rep.engine, "minhop");
        CU_ASSERT_EQUAL(rep.fallback, 1);
        CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
        size_t na = ibr_result_attempt_count(y);
        CU_ASSERT_FATAL(na >= 2);
        const char *name = "", *msg = "";
        int st = 0;
        CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, y, 0), 0);
        CU_ASSERT_STRING_EQUAL(name, c->engine);
        CU_ASSERT(st < 0);
        CU_ASSERT_EQUAL(ibr_result_attempt(&name, &st, &msg, y, na - 1), 0);
        CU_ASSERT_STRING_EQUAL(name, "minhop");
        CU_ASSERT_EQUAL(st, 0);
        /* minhop's tables, checked on their own */
        CU_ASSERT(same_lfts(y, m));
        CU_ASSERT_EQUAL(ibr_result_sl_mode(y), IBR_SL_NONE);
        ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
        CU_ASSERT_EQUAL(ibr_result_verify(&v, y), 0);
        CU_ASSERT_EQUAL(v.routes_ok, v.routes_checked);
        int loop = walk_credit_loop(y);
        CU_ASSERT_EQUAL(loop, c->loop);
        CU_ASSERT_EQUAL(v.deadlock_free, !loop);
        ibr_result_destroy(y);
    }
    ibr_result_destroy(m);
    ibr_topo_destroy(t1);
    ibr_routing_db_destroy(db);
    free(text);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

static void test_engine_declines(void)
{
    static const decline_case cases[] = {
        /* lash short of VLs (issue 34's reproduction) */
        {"hypercube:dim=5,hosts=1,vls=1", "lash", 3, 0, 459894, 1, 0},
        /* dfsssp short of VLs: its run declines, the repair in place fits
           the 2 VLs (the fallback and a forced full reroute are checked) */
        {"torus:dims=6x4,hosts=1,vls=2", "dfsssp", 3, 0, 6, 1, 1},
        /* nue on a split fabric (updn routes such fabrics now: it chooses
           its roots where OpenSM's heuristic finds none): its run declines,
           the repair in place joins what each part still connects */
        {"fattree:levels=2,radix=4", "nue", 2, 0, 5, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        decline_one(&cases[i]);
    /* the saved engine can route: it does, and the report names it */
    ibr_fabric *f = ibr_test_fabric("torus:dims=4x4,hosts=1,vls=2");
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "dfsssp,no_fallback", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 3, 0, 2), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    for (unsigned fl = 0; fl < 4; fl++) {
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t1, NULL, fl), 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(y), "dfsssp");
        CU_ASSERT_STRING_EQUAL(rep.engine, "dfsssp");
        CU_ASSERT_EQUAL(rep.fallback, 0);
        ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
        CU_ASSERT_EQUAL(ibr_result_verify(&v, y), 0);
        CU_ASSERT_EQUAL(v.deadlock_free, 1);
        ibr_result_destroy(y);
    }
    /* a version 1 report: nothing written past its end */
    ibr_reroute_report big;
    memset(&big, 0xA5, sizeof big);
    CU_ASSERT_EQUAL(ibr_reroute_report_init(&big, 1), 0);
    CU_ASSERT_EQUAL(big.version, 1);
    ibr_result *y = NULL;
    CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &big, db, t1, NULL, 0), 0);
    const unsigned char *tail = (const unsigned char *)big.engine;
    size_t bad = 0;
    for (size_t k = 0; k < sizeof big - offsetof(ibr_reroute_report, engine); k++)
        bad += tail[k] != 0xA5;
    CU_ASSERT_EQUAL(bad, 0);
    ibr_result_destroy(y);
    /* a version 2 report: the version 3 fields stay as they were */
    memset(&big, 0xA5, sizeof big);
    CU_ASSERT_EQUAL(ibr_reroute_report_init(&big, 2), 0);
    CU_ASSERT_EQUAL(big.version, 2);
    CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &big, db, t1, NULL, 0), 0);
    CU_ASSERT_STRING_EQUAL(big.engine, "dfsssp");
    tail = (const unsigned char *)&big.lft_blocks_changed;
    bad = 0;
    for (size_t k = 0; k < sizeof big - offsetof(ibr_reroute_report, lft_blocks_changed); k++)
        bad += tail[k] != 0xA5;
    CU_ASSERT_EQUAL(bad, 0);
    ibr_result_destroy(y);
    /* version 3: written */
    CU_ASSERT_EQUAL(ibr_reroute_report_init(&big, 3), 0);
    CU_ASSERT_EQUAL(big.lft_blocks_changed, 0);
    CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &big, db, t1, NULL, 0), 0);
    CU_ASSERT(big.lft_blocks_changed > 0 && big.lft_blocks_changed <= big.lft_entries_changed);
    ibr_result_destroy(y);
    ibr_topo_destroy(t1);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

/* A database without an engine line (hand-written: the default engine,
   minhop, reroutes it): its kept tables and its full reroute are the
   saved engine's, never reported as a fallback (found by fuzz_reroute). */
static void test_no_engine_line(void)
{
    ibr_fabric *f = ibr_test_fabric("fattree:levels=2,radix=4");
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "minhop", NULL), 0);
    size_t len;
    char *text = db_text(r0, &len);
    char *line = strstr(text, "\nengine minhop\n"), *end = strstr(text, "\nend ");
    CU_ASSERT_FATAL(line && end && line < end);
    size_t cut = strlen("\nengine minhop");
    memmove(line, line + cut, (size_t)(end - line) - cut + 1);
    size_t body = (size_t)(end - text) - cut + 1;
    snprintf(text + body, len + 1 - body, "end %016llx\n", (unsigned long long)ibr_test_fnv(text, body));
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_parse(&db, NULL, text, strlen(text)), 0);
    CU_ASSERT_STRING_EQUAL(ibr_routing_db_engine(db), "");
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 1, 0, 1), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    const ibr_topo *ts[2] = {t0, t1};
    for (int i = 0; i < 2; i++)
        for (unsigned fl = 0; fl < 4; fl++) {
            ibr_result *y = NULL;
            ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &rep, db, ts[i], NULL, fl), 0);
            CU_ASSERT_EQUAL(rep.fallback, 0);
            CU_ASSERT_STRING_EQUAL(rep.engine, ibr_result_engine(y));
            ibr_result_destroy(y);
        }
    ibr_topo_destroy(t1);
    ibr_routing_db_destroy(db);
    free(text);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

/* Options by version: an unknown version is refused (IBR_EVERSION, no
   result), an older one is read no further than its size (a version 1
   block of exactly its size: ASan catches a read past it). */
static void test_options_version(void)
{
    ibr_fabric *f = ibr_test_fabric("fattree:levels=2,radix=4");
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "minhop", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 1, 0, 2), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    ibr_options bad = IBR_OPTIONS_INIT;
    bad.version = 99;
    ibr_result *y = (ibr_result *)&bad; /* overwritten with NULL */
    CU_ASSERT_EQUAL(ibr_routing_db_route(&y, NULL, db, t1, &bad, IBR_REROUTE_FORCE_FULL),
                    IBR_EVERSION);
    CU_ASSERT_PTR_NULL(y);
    bad.version = 0;
    CU_ASSERT_EQUAL(ibr_routing_db_route(&y, NULL, db, t1, &bad, 0), IBR_EVERSION);
    CU_ASSERT_PTR_NULL(y);
    ibr_options *v1 = malloc(offsetof(ibr_options, mcast_groups));
    CU_ASSERT_FATAL(v1 != NULL);
    CU_ASSERT_EQUAL_FATAL(ibr_options_init(v1, 1), 0);
    for (unsigned fl = 0; fl < 2; fl++) {
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &rep, db, t1, v1, fl), 0);
        CU_ASSERT_STRING_EQUAL(ibr_result_engine(y), "minhop");
        ibr_result_destroy(y);
        y = NULL;
    }
    free(v1);
    ibr_topo_destroy(t1);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_fabric_destroy(f);
}

/* The log callback of test_unrelated_fabric: keeps the last warning. */
static void keep_warning(void *user, int level, const char *msg)
{
    if (level == IBR_LOG_WARN)
        snprintf((char *)user, 256, "%s", msg);
}

/* A database applied to another fabric altogether: the report (and the
   log) warn that most of the fabric changed; a few faults do not. */
static void test_unrelated_fabric(void)
{
    char logged[256] = "";
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    cfg.log = keep_warning;
    cfg.log_user = logged;
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, &cfg), 0);
    ibr_topo *t0 = ibr_test_topo(ctx, "fattree:levels=3,radix=8");
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t0, "minhop", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    static const char *other[] = {"torus:dims=6x6,hosts=2", "hypercube:dim=5,hosts=1"};
    for (size_t i = 0; i < 2; i++) {
        ibr_topo *t = ibr_test_topo(ctx, other[i]);
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        logged[0] = 0;
        CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &rep, db, t, NULL, 0), 0);
        CU_ASSERT(rep.changes > 100);
        CU_ASSERT(strstr(rep.warning, "most of the fabric changed") != NULL);
        CU_ASSERT(strstr(rep.warning, "[DB064]") != NULL || strstr(rep.warning, "[DB065]") != NULL);
        CU_ASSERT(strstr(logged, "most of the fabric changed") != NULL);
        ibr_result_destroy(y);
        ibr_topo_destroy(t);
    }
    /* half the cables between switches gone: the same warning */
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=3,radix=8"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 200, 0, 1), 0);
    ibr_topo *t2 = ibr_test_freeze(f);
    ibr_result *y = NULL;
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    ibr_routing_db_route(&y, &rep, db, t2, NULL, 0);
    CU_ASSERT(strstr(rep.warning, "cables between switches are gone") != NULL);
    ibr_result_destroy(y);
    ibr_topo_destroy(t2);
    ibr_fabric_destroy(f);
    /* a few faults: no warning */
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=3,radix=8"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(f, 4, 1, 3), 0);
    t2 = ibr_test_freeze(f);
    rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
    logged[0] = 0;
    CU_ASSERT_EQUAL(ibr_routing_db_route(&y, &rep, db, t2, NULL, 0), 0);
    CU_ASSERT(rep.changes > 0);
    CU_ASSERT_STRING_EQUAL(rep.warning, "");
    CU_ASSERT_STRING_EQUAL(logged, "");
    ibr_result_destroy(y);
    ibr_topo_destroy(t2);
    ibr_fabric_destroy(f);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t0);
    ibr_context_destroy(ctx);
}

static void test_oom(void)
{
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=8"), 0);
    ibr_topo *t0 = ibr_test_freeze(f);
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r, t0, "minhop", NULL), 0);
    size_t len;
    char *text = db_text(r, &len);
    CU_ASSERT_EQUAL(ibr_fabric_inject_faults(f, 2, 0, 3), 0);
    ibr_topo *t1 = ibr_test_freeze(f);
    long live = st.live, fails = 0;
    for (long n = 0;; n++) {
        st.fail_at = st.calls + n;
        ibr_routing_db *db = NULL;
        ibr_result *y = NULL;
        int rc = ibr_routing_db_parse(&db, ctx, text, len);
        if (rc == 0)
            rc = ibr_routing_db_route(&y, NULL, db, t1, NULL, 0);
        st.fail_at = -1;
        ibr_result_destroy(y);
        ibr_routing_db_destroy(db);
        CU_ASSERT_EQUAL_FATAL(st.live, live);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        fails++;
    }
    CU_ASSERT(fails > 10);
    free(text);
    /* with QoS: saving, parsing and rerouting (the QoS manager again) */
    ibr_qos_config *q = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_create(&q, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_qos_config_set(q, "qos_ca_sl2vl", "1,0"), 0);
    ibr_options o = IBR_OPTIONS_INIT;
    o.qos = q;
    ibr_result *rq = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&rq, t0, "minhop", &o), 0);
    live = st.live;
    fails = 0;
    for (long n = 0;; n++) {
        st.fail_at = st.calls + n;
        ibr_buffer b = IBR_BUFFER_INIT;
        ibr_routing_db *db = NULL;
        ibr_result *y = NULL;
        int rc = ibr_result_write_db(&b, rq);
        if (rc == 0)
            rc = ibr_routing_db_parse(&db, ctx, b.data, b.size);
        if (rc == 0)
            rc = ibr_routing_db_route(&y, NULL, db, t1, NULL, 0);
        st.fail_at = -1;
        if (rc == 0)
            CU_ASSERT_EQUAL(ibr_result_has_qos(y), 1);
        ibr_result_destroy(y);
        ibr_routing_db_destroy(db);
        ibr_buffer_dispose(&b);
        CU_ASSERT_EQUAL_FATAL(st.live, live);
        if (rc == 0)
            break;
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        fails++;
    }
    CU_ASSERT(fails > 10);
    ibr_result_destroy(rq);
    ibr_qos_config_destroy(q);
    ibr_topo_destroy(t1);
    ibr_topo_destroy(t0);
    ibr_result_destroy(r);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

/* issue 34: the intact tree's ftree routing rerouted onto the same tree
   after two leaves lost all their cables up and a third one of two
   (tests/data/ftree-isolated-leaves.topo; the intact tree is the same file
   with its links up). Every route of the saved tables that the cables
   left still carry (a leaf to its own hosts, among others) is still
   delivered by the rerouted tables, every end-port pair the fabric
   connects is, and the verification counts all 80 of them. The repair
   used to take the full run's empty columns for the cut-off leaves,
   erasing their entries to their own hosts, and say "valid (56 of 56
   pairs)". */
static void test_ftree_isolated_leaves(void)
{
    size_t len = 0;
    char *text = ibr_test_read_file(IBR_TEST_DATA "/ftree-isolated-leaves.topo", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *intact = malloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (i + 7 <= len && !memcmp(text + i, " (down)", 7)) {
            i += 6;
            continue;
        }
        intact[n++] = text[i];
    }
    ibr_topo *t[2] = {NULL, NULL};
    const char *src[2] = {intact, text};
    size_t slen[2] = {n, len};
    for (int k = 0; k < 2; k++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, src[k], slen[k]), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t[k], f), 0);
        ibr_fabric_destroy(f);
    }
    free(intact);
    free(text);
    ibr_result *r0 = NULL, *y = NULL, *old = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t[0], "ftree,no_fallback", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, t[1], NULL, 0), 0);
    ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
    CU_ASSERT_EQUAL(ibr_result_verify(&v, y), 0);
    CU_ASSERT_EQUAL(v.pairs, 80);
    CU_ASSERT_EQUAL(v.pairs_ok, 80);
    /* the saved tables on the new fabric: the routes they still deliver */
    ibr_buffer dump = IBR_BUFFER_INIT;
    CU_ASSERT_EQUAL_FATAL(ibr_result_write_lfts_dump(&dump, r0), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_result_parse_lfts(&old, t[1], dump.data, dump.size), 0);
    long kept = 0, lost = 0, connected = 0, unrouted = 0;
    ibr_trace_hop hops[32];
    size_t nh;
    for (unsigned a = 1; a <= ibr_topo_max_lid(t[1]); a++)
        for (unsigned b = 1; b <= ibr_topo_max_lid(t[1]); b++) {
            uint32_t na, nb;
            if (a == b || ibr_topo_lid_owner(&na, NULL, t[1], (uint16_t)a) < 0 ||
                ibr_topo_lid_owner(&nb, NULL, t[1], (uint16_t)b) < 0 ||
                ibr_topo_node_switch(t[1], nb) != IBR_NONE)
                continue;
            int now = ibr_result_trace(hops, 32, &nh, NULL, y, (uint16_t)a, (uint16_t)b) == 0;
            if (ibr_result_trace(hops, 32, &nh, NULL, old, (uint16_t)a, (uint16_t)b) == 0) {
                kept += now;
                lost += !now;
            }
            /* end port to end port, the fabric connecting their switches */
            uint32_t sa = ibr_test_sw_behind(t[1], na, 1), sb = ibr_test_sw_behind(t[1], nb, 1);
            if (ibr_topo_node_switch(t[1], na) == IBR_NONE && sa != IBR_NONE &&
                sb != IBR_NONE && ibr_topo_switch_distance(t[1], sa, sb) != 255) {
                connected++;
                unrouted += !now;
            }
        }
    CU_ASSERT(kept > 0);
    CU_ASSERT_EQUAL(lost, 0);
    CU_ASSERT_EQUAL(connected, 80);
    CU_ASSERT_EQUAL(unrouted, 0);
    if (lost || unrouted)
        fprintf(stderr, "reroute: %ld saved routes lost, %ld of %ld connected pairs unrouted\n",
                lost, unrouted, connected);
    ibr_buffer_dispose(&dump);
    ibr_result_destroy(old);
    ibr_result_destroy(y);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t[0]);
    ibr_topo_destroy(t[1]);
}

/* An engine that routes as ftree does but, like ftree before issue 34,
   leaves every entry of a switch without switch cables empty (its own
   hosts included): the repair must not take such a column over the
   entries that cross no lost cable, and must not hand out a repair that
   leaves pairs the fabric connects unrouted. */
static int holes_fn(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    ibr_result *r = NULL;
    int rc = ibr_route(&r, t, "ftree,no_fallback", NULL);
    if (rc < 0) {
        ibr_result_destroy(r);
        return ibr_run_decline(run, "ftree declined");
    }
    uint32_t n = ibr_topo_switch_count(t);
    uint8_t *h = ibr_run_hops(run);
    if (!h) {
        ibr_result_destroy(r);
        return IBR_ENOMEM;
    }
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t *off;
        const ibr_switch_link *links;
        ibr_topo_switch_links(&off, &links, t);
        int alone = off[s] == off[s + 1];
        uint8_t *row = ibr_run_lft(run, s);
        memcpy(row, ibr_result_lft(r, s), ibr_result_lft_size(r));
        if (alone)
            memset(row, IBR_NO_ROUTE, ibr_result_lft_size(r));
        for (uint32_t d = 0; d < n; d++)
            h[(size_t)s * n + d] = alone ? 255 : (uint8_t)ibr_result_hops(r, s, d);
    }
    ibr_result_destroy(r);
    return 0;
}

static void test_repair_keeps_intact_routes(void)
{
    ibr_context *ctx = ibr_test_engine_context("holes", holes_fn, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    size_t len = 0;
    char *text = ibr_test_read_file(IBR_TEST_DATA "/ftree-isolated-leaves.topo", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char *intact = malloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (i + 7 <= len && !memcmp(text + i, " (down)", 7)) {
            i += 6;
            continue;
        }
        intact[n++] = text[i];
    }
    ibr_topo *t[2] = {NULL, NULL};
    const char *src[2] = {intact, text};
    size_t slen[2] = {n, len};
    for (int k = 0; k < 2; k++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_parse_ibnetdiscover(f, src[k], slen[k]), 0);
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t[k], f), 0);
        ibr_fabric_destroy(f);
    }
    free(intact);
    free(text);
    ibr_result *r0 = NULL, *y = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t[0], "holes,no_fallback", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
    int rc = ibr_routing_db_route(&y, &rep, db, t[1], NULL, 0);
    if (rc == 0) {
        /* whatever the answer, it does not claim what it does not deliver:
           an incremental repair delivers every connected pair */
        ibr_verify_report v = IBR_VERIFY_REPORT_INIT;
        int vrc = ibr_result_verify(&v, y);
        CU_ASSERT_EQUAL(v.pairs, 80);
        if (rep.mode == IBR_REROUTE_INCREMENTAL) {
            CU_ASSERT_EQUAL(vrc, 0);
            CU_ASSERT_EQUAL(v.pairs_ok, 80);
        } else {
            CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
            CU_ASSERT_PTR_NOT_NULL(strstr(rep.reason, "end-port pair(s) the fabric connects"));
        }
        /* a leaf's entries to its own hosts cross no cable: never erased */
        for (unsigned l = 1; l <= ibr_topo_max_lid(t[1]); l++) {
            uint32_t node;
            if (ibr_topo_lid_owner(&node, NULL, t[1], (uint16_t)l) < 0 ||
                ibr_topo_node_switch(t[1], node) != IBR_NONE)
                continue;
            uint32_t s = ibr_test_sw_behind(t[1], node, 1);
            if (s != IBR_NONE && rep.mode == IBR_REROUTE_INCREMENTAL)
                CU_ASSERT_NOT_EQUAL(ibr_result_lft_port(y, s, (uint16_t)l), IBR_NO_ROUTE);
        }
    }
    ibr_result_destroy(y);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t[0]);
    ibr_topo_destroy(t[1]);
    ibr_context_destroy(ctx);
}

/* The LID space grows or shrinks (LIDs reassigned with another LMC): the
   blocks that only one side's table has count when they hold a routed
   entry, and every count matches the recount. */
static void test_blocks_lid_space(void)
{
    ibr_fabric *f = ibr_test_fabric("fattree:levels=2,radix=8");
    ibr_fabric *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(g, 3, IBR_LIDS_REASSIGN), 0);
    ibr_topo *small = ibr_test_freeze(f), *big = ibr_test_freeze(g);
    CU_ASSERT_FATAL(ibr_topo_max_lid(big) >= ibr_topo_max_lid(small) + 64);
    ibr_result *rs = ibr_test_route(NULL, small, "minhop", NULL, IBR_TEST_MINIMAL);
    ibr_result *rb = ibr_test_route(NULL, big, "minhop", NULL, IBR_TEST_MINIMAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
    ibr_routing_db *ds = NULL, *dbig = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&ds, rs), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&dbig, rb), 0);
    for (int full = 0; full < 2; full++) {
        unsigned fl = full ? IBR_REROUTE_FORCE_FULL : 0;
        /* growth: the saved small table on the big LID space */
        ibr_result *y = NULL;
        ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, ds, big, NULL, fl), 0);
        CU_ASSERT_EQUAL(rep.mode, full ? IBR_REROUTE_FULL : IBR_REROUTE_CACHED);
        check_v3(&rep, y, rs, V3_SL2VL);
        /* every switch routes LIDs past the small table's last block */
        size_t past = (ibr_result_lft_size(y) - 1) / 64 - (ibr_result_lft_size(rs) - 1) / 64;
        CU_ASSERT(rep.lft_blocks_changed >= past * ibr_topo_switch_count(big));
        CU_ASSERT_EQUAL(rep.lft_blocks_over_lost, 0);
        ibr_result_destroy(y);
        /* shrink: the saved big table on the small LID space */
        rep = (ibr_reroute_report)IBR_REROUTE_REPORT_INIT;
        CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, dbig, small, NULL, fl), 0);
        check_v3(&rep, y, rb, V3_SL2VL);
        CU_ASSERT(rep.lft_blocks_changed >= past * ibr_topo_switch_count(small));
        ibr_result_destroy(y);
    }
    ibr_routing_db_destroy(ds);
    ibr_routing_db_destroy(dbig);
    ibr_result_destroy(rs);
    ibr_result_destroy(rb);
    ibr_topo_destroy(small);
    ibr_topo_destroy(big);
    ibr_fabric_destroy(g);
    ibr_fabric_destroy(f);
}

/* SL2VL tables: an engine whose maps change between the saved routing and
   the reroute has every switch table counted, and the counts match the
   recount through ibr_result_sl2vl(). */
static void test_sl2vl_tables(void)
{
    ibr_test_layered cfg = {3, 0};
    ibr_context *ctx = ibr_test_engine_context("layered", ibr_test_layered_route, &cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, ctx), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "torus:dims=4x3,hosts=1"), 0);
    ibr_topo *t = ibr_test_freeze(f);
    ibr_result *r0 = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_route(&r0, t, "layered", NULL), 0);
    ibr_routing_db *db = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_routing_db_from_result(&db, r0), 0);
    uint64_t all_tables = 0;
    for (uint32_t s = 0; s < ibr_topo_switch_count(t); s++) {
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        ibr_topo_node_info(&ni, t, ibr_topo_switch_node(t, s));
        all_tables += (uint64_t)(ni.nports + 1) * (ni.nports + 1);
    }
    ibr_fabric *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_clone(&g, f), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_inject_faults(g, 1, 0, 3), 0);
    ibr_topo *tf = ibr_test_freeze(g);
    for (unsigned off = 0; off < 2; off++) {
        cfg.vl_offset = off;
        for (int full = 0; full < 2; full++) {
            ibr_result *y = NULL;
            ibr_reroute_report rep = IBR_REROUTE_REPORT_INIT;
            CU_ASSERT_EQUAL_FATAL(ibr_routing_db_route(&y, &rep, db, tf, NULL,
                                                       full ? IBR_REROUTE_FORCE_FULL : 0),
                                  0);
            check_v3(&rep, y, r0, V3_OVER_LOST | V3_SL2VL);
            /* a full reroute with other maps changes every table */
            if (rep.mode == IBR_REROUTE_FULL)
                CU_ASSERT_EQUAL(rep.sl2vl_tables_changed, off ? all_tables : 0);
            if (full)
                CU_ASSERT_EQUAL(rep.mode, IBR_REROUTE_FULL);
            CU_ASSERT(rep.lft_blocks_over_lost > 0);
            ibr_result_destroy(y);
        }
    }
    ibr_topo_destroy(tf);
    ibr_fabric_destroy(g);
    ibr_routing_db_destroy(db);
    ibr_result_destroy(r0);
    ibr_topo_destroy(t);
    ibr_fabric_destroy(f);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"save, parse, reload unchanged: the same routing", test_reload},
        {"damaged and foreign databases refused", test_damaged},
        {"records read with the formats' lexer; settings read back", test_records_lexer},
        {"QoS saved with the routing and programmed again", test_qos},
        {"hand-edited databases: refused or applied, never a crash", test_edited},
        {"changes classified as Table 1; leaf-only changes cached", test_classify},
        {"property: minimal engines after link/switch failures", test_property_minimal},
        {"property: deadlock-free engines after failures", test_property_deadlock_free},
        {"parallel cables take the failed cable's routes", test_parallel},
        {"sssp, dfsssp repaired in place: busiest link near a full reroute's", test_sssp_balance},
        {"up/down repairs: busiest link near a full reroute's", test_updown_balance},
        {"updn/dnup on a fat tree of hundreds of hosts: repaired in place, loop-free",
         test_check_dearer_than_full},
        {"a saved engine that declines: no fallback unless asked for", test_engine_declines},
        {"a database of another fabric: warned", test_unrelated_fabric},
        {"a database without an engine line: no fallback reported", test_no_engine_line},
        {"options read by their version", test_options_version},
        {"allocation failures", test_oom},
        {"ftree: leaves cut off from the roots keep their routes", test_ftree_isolated_leaves},
        {"a repair never erases routes that cross no lost cable", test_repair_keeps_intact_routes},
        {"changed blocks when the LID space grows or shrinks", test_blocks_lid_space},
        {"changed SL2VL tables counted", test_sl2vl_tables},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("persist", tests);
}
