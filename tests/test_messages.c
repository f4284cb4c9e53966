/* Stable message codes (doc/messages.md): one bad input per part of the
   library, each message ends in " [<code>]" and names the condition the
   table gives that code (the prose around it may change; the code must
   not). The messages test of the doc suite checks that sources and table
   agree; this checks that the code reaches the caller's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ibroute/sys/engine.h"
#include "ibroute/sys/toolkit.h"

/* msg ends in " [code]" and holds what (a piece of its prose). */
static void check(const char *msg, const char *code, const char *what)
{
    char tail[16];
    snprintf(tail, sizeof tail, " [%s]", code);
    size_t n = strlen(msg), t = strlen(tail);
    int ok = n >= t && strcmp(msg + n - t, tail) == 0 && strstr(msg, what) != NULL;
    if (!ok)
        fprintf(stderr, "want \"...%s...%s\", got \"%s\"\n", what, tail, msg);
    CU_ASSERT(ok);
}

/* TP: the topology reader (ibnetdiscover output, ibsim netfiles). */
static void test_topology(void)
{
    static const struct {
        const char *text, *code, *what;
    } cases[] = {
        {"Switch 4 \"S-1\"\n[1] \"H-2\"[1]\n", "TP042", "line 2: unknown node \"H-2\""},
        {"Switch \"S-1\"\n", "TP008", "line 1: missing port count"},
        {"switchguid 0x10\n", "TP001", "line 1: expected '=' after \"switchguid\""},
        {"", "TP035", "the text is empty: expected ibnetdiscover output"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, cases[i].text, strlen(cases[i].text)),
                        IBR_EPARSE);
        check(ibr_fabric_last_error(f), cases[i].code, cases[i].what);
        ibr_fabric_destroy(f);
    }
}

/* FB: the fabric builder, directly and passed on by the topology reader
   with the line to blame. */
static void test_fabric_builder(void)
{
    const char *text = "Switch 4 \"S-0000000000000010\" # \"sw\" enhanced port 0 lid 2 lmc 0\n"
                       "[1] \"H-0000000000000020\"[1]\n\n"
                       "Ca 1 \"H-0000000000000020\"\n"
                       "[1](21) \"S-0000000000000010\"[1] # lid 3 lmc 1 \"sw\" lid 2 4xQDR\n";
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL(ibr_fabric_parse_ibnetdiscover(f, text, strlen(text)), IBR_EPARSE);
    check(ibr_fabric_last_error(f), "FB029",
          "line 5: CA 0x0000000000000020 port 1: LID 3 is not a multiple of 2^LMC = 2");
    uint32_t sw, ca;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&sw, f, IBR_NODE_SWITCH, 0x10, 4, "sw"), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_add_node(&ca, f, IBR_NODE_CA, 0x20, 1, "ca"), 0);
    CU_ASSERT(ibr_fabric_add_link(f, sw, 5, ca, 1, NULL) < 0);
    check(ibr_fabric_last_error(f), "FB002", "port 5: port out of range");
    CU_ASSERT(ibr_fabric_add_node(&ca, f, IBR_NODE_CA, 0x20, 1, "again") < 0);
    check(ibr_fabric_last_error(f), "FB007", "CA 0x0000000000000020: duplicate node GUID");
    ibr_fabric_destroy(f);
}

/* LF: forwarding tables read back; GL: OpenSM's guid2lid file. */
static void test_lfts_guid2lid(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    const char *lft = "Unicast lids [0-3] of switch Lid 1 guid 0x00000000000000ff ('x'):\n";
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&r, t, lft, strlen(lft)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check(ibr_result_last_error(r), "LF003", "line 1: unknown switch GUID 0x00000000000000ff");
    ibr_result_destroy(r);
    const char *junk = "hello\n";
    CU_ASSERT_EQUAL(ibr_result_parse_lfts(&r, t, junk, strlen(junk)), IBR_EPARSE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check(ibr_result_last_error(r), "LF017", "no \"Unicast lids\" block in 1 line");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=4"), 0);
    const char *g2l = "0x00000000000000ff 0x0001 0x0001\n";
    CU_ASSERT_EQUAL(ibr_fabric_parse_guid2lid(f, g2l, strlen(g2l)), IBR_EPARSE);
    check(ibr_fabric_last_error(f), "GL007", "line 1: unknown port GUID 0x00000000000000ff");
    const char *bad = "zz 0x1 0x1\n";
    CU_ASSERT_EQUAL(ibr_fabric_parse_guid2lid(f, bad, strlen(bad)), IBR_EPARSE);
    check(ibr_fabric_last_error(f), "GL001", "line 1: bad port GUID");
    ibr_fabric_destroy(f);
}

/* GU: GUID lists. */
static void test_guid_lists(void)
{
    static const struct {
        int kind;
        const char *text, *code, *what;
    } cases[] = {
        {IBR_GUID_LIST_PLAIN, "0x1\nzz\n", "GU001", "line 2: bad GUID 'zz'"},
        {IBR_GUID_LIST_PORT, "0x1 255\n", "GU003", "line 1: port 255 out of range 1..254"},
        {IBR_GUID_LIST_PORT, "0x1 x\n", "GU004", "line 1: bad port number 'x'"},
        {IBR_GUID_LIST_ID, "0x1 x\n", "GU005", "line 1: bad id 'x'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_guid_list *l = NULL;
        CU_ASSERT_EQUAL(ibr_guid_list_parse(&l, NULL, (ibr_guid_list_kind)cases[i].kind,
                                            cases[i].text, strlen(cases[i].text)),
                        IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        check(ibr_guid_list_last_error(l), cases[i].code, cases[i].what);
        ibr_guid_list_destroy(l);
    }
}

/* MG: the groups file and the groups' API; SA: OpenSM's SA dump. */
static void test_mcast(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    static const struct {
        int sa;
        const char *text, *code, *what;
    } cases[] = {
        {0, "group 0x10\n", "MG003", "line 1: MLID 0x10 is outside the multicast range"},
        {0, "group 0xC001\nmember 0x1 1 full\n", "MG011",
         "line 2: unknown node GUID 0x0000000000000001"},
        {0, "grupo 0xC001\n", "MG001", "line 1: expected 'group' or 'member', found 'grupo'"},
        {1, "MC Group 0xc001: nothing\n", "SA001", "line 1: no ' mgid=0x' field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_mcast_groups *g = NULL;
        size_t n = strlen(cases[i].text);
        int rc = cases[i].sa ? ibr_mcast_groups_parse_sa_dump(&g, t, cases[i].text, n)
                             : ibr_mcast_groups_parse(&g, t, cases[i].text, n);
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        check(ibr_mcast_groups_last_error(g), cases[i].code, cases[i].what);
        ibr_mcast_groups_destroy(g);
    }
    ibr_mcast_groups *g = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_mcast_groups_create(&g, t), 0);
    CU_ASSERT_EQUAL(ibr_mcast_groups_add_member(g, 0xC001, NULL, 0x1, 1, 1), IBR_ENOTFOUND);
    check(ibr_mcast_groups_last_error(g), "MG011", "unknown node GUID 0x0000000000000001");
    ibr_mcast_groups_destroy(g);
    ibr_topo_destroy(t);
}

/* GN: generator specs, generators and fault injection. */
static void test_generate(void)
{
    static const struct {
        const char *spec, *code, *what;
    } cases[] = {
        {"banana", "GN005", "generate: unknown family 'banana'"},
        {"fattree:levels=2", "GN010", "generate fattree: missing key 'radix'"},
        {"fattree:levels=2,radix=4,colour=3", "GN007", "generate fattree: unknown key 'colour'"},
        {"xgft:h=2,m=4.0,w=1.2", "GN019", "xgft: level 2: m=0 w=2, both must be 1.."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_fabric *f = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
        CU_ASSERT(ibr_fabric_generate(f, cases[i].spec) < 0);
        check(ibr_fabric_last_error(f), cases[i].code, cases[i].what);
        ibr_fabric_destroy(f);
    }
    ibr_fabric *f = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, "fattree:levels=2,radix=4"), 0);
    CU_ASSERT(ibr_fabric_inject_faults(f, 1000, 0, 1) < 0);
    check(ibr_fabric_last_error(f), "GN016", "faults: 1000 links requested");
    ibr_fabric_destroy(f);
}

static int never_route(ibr_run *run, void *user)
{
    (void)run;
    (void)user;
    return IBR_EINTERNAL;
}

/* RO: options, engine parameters, the chain and engine registration. */
static void test_route_options(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop,ftre", NULL), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check(ibr_result_last_error(r), "RO010", "unknown engine 'ftre' (known engines: ");
    ibr_result_destroy(r);

    static const struct {
        const char *name, *value, *code, *what;
    } params[] = {
        {"nue", "1", "RO012", "parameter 'nue': expected ENGINE.SETTING"},
        {"nue.colour", "1", "RO014", "parameter 'nue.colour': engine 'nue' has no setting"},
        {"nue.explore", "maybe", "RO016", "parameter 'nue.explore' = 'maybe': must be a boolean"},
        {"nue.order", "9", "RO017", "parameter 'nue.order' = '9': must be an integer in 0..2"},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        ibr_options o;
        CU_ASSERT_EQUAL_FATAL(ibr_options_init(&o, IBR_OPTIONS_VERSION), 0);
        ibr_param p = {params[i].name, params[i].value};
        o.params = &p;
        o.n_params = 1;
        CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), IBR_EINVAL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        check(ibr_result_last_error(r), params[i].code, params[i].what);
        ibr_result_destroy(r);
    }
    ibr_options o;
    CU_ASSERT_EQUAL_FATAL(ibr_options_init(&o, IBR_OPTIONS_VERSION), 0);
    o.lmc = 9;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), IBR_EINVAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    check(ibr_result_last_error(r), "RO002", "option lmc = 9 (must be 0..7)");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);

    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    ibr_engine e = IBR_ENGINE_INIT;
    e.name = "a.b";
    e.route = never_route;
    CU_ASSERT_EQUAL(ibr_context_register_engine(ctx, &e), IBR_EINVAL);
    check(ibr_context_last_error(ctx), "RO027", "bad engine name 'a.b'");
    e.name = "minhop";
    CU_ASSERT(ibr_context_register_engine(ctx, &e) < 0);
    check(ibr_context_last_error(ctx), "RO028", "an engine named 'minhop' already exists");
    ibr_context_destroy(ctx);
}

/* RK: the rank order of a workload. */
static void test_rank_order(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    static const struct {
        const char *text, *code, *what;
    } cases[] = {
        {"nosuchhost\n", "RK003", "rank order line 1: unknown host or node description"},
        {"0x00000000000000ff\n", "RK001", "rank order line 1: no end port has GUID"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_rank_order *o = NULL;
        CU_ASSERT_EQUAL(ibr_rank_order_parse(&o, t, cases[i].text, strlen(cases[i].text)),
                        IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        check(ibr_rank_order_last_error(o), cases[i].code, cases[i].what);
        ibr_rank_order_destroy(o);
    }
    ibr_topo_destroy(t);
}

/* The route of chain on topology t with max_vls vls (0: default) and one
   engine parameter (name NULL: none): it fails, every engine giving up.
   Returns the result for the caller to check and destroy. */
static ibr_result *route_fails(const ibr_topo *t, const char *chain, unsigned vls,
                               const char *name, const char *value)
{
    ibr_options o;
    CU_ASSERT_EQUAL_FATAL(ibr_options_init(&o, IBR_OPTIONS_VERSION), 0);
    if (vls)
        o.max_vls = vls;
    ibr_param p = {name, value};
    if (name) {
        o.params = &p;
        o.n_params = 1;
    }
    ibr_result *r = NULL;
    int rc = ibr_route(&r, t, chain, &o);
    if (rc != IBR_EUNROUTABLE)
        fprintf(stderr, "%s: want IBR_EUNROUTABLE, got %d (%s)\n", chain, rc,
                r ? ibr_result_last_error(r) : "no result");
    CU_ASSERT_EQUAL(rc, IBR_EUNROUTABLE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    return r;
}

/* Attempt i of r gave up (declined or failed as want) with code and what. */
static void check_attempt(const ibr_result *r, size_t i, const char *engine, int want,
                          const char *code, const char *what)
{
    const char *name = NULL, *msg = NULL;
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(ibr_result_attempt(&name, &status, &msg, r, i), 0);
    CU_ASSERT_STRING_EQUAL(name, engine);
    CU_ASSERT_EQUAL(status, want);
    check(msg, code, what);
}

/* The context's log: the warnings, one a line. */
static void keep_warnings(void *user, int level, const char *msg)
{
    char *buf = user;
    size_t n = strlen(buf);
    if (level <= IBR_LOG_WARN && n + strlen(msg) + 2 < 4096)
        snprintf(buf + n, 4096 - n, "%s\n", msg);
}

/* RT: the summary when every engine gave up, each engine's reason (EN)
   inside it and the summary's code last; EN: real declines and failures
   of the engines on generated fabrics. */
static void test_engines(void)
{
    static char warnings[4096];
    ibr_context_config cfg = IBR_CONTEXT_CONFIG_INIT;
    cfg.log = keep_warnings;
    cfg.log_user = warnings;
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, &cfg), 0);
    ibr_topo *torus = ibr_test_topo(ctx, "torus:dims=5x5,hosts=1");
    ibr_topo *rnd = ibr_test_topo(NULL, "random:switches=24,degree=4,hosts=2,seed=3");

    /* a ring of 5 closes credit loops: one VL is too few for dfsssp */
    ibr_result *r = route_fails(torus, "dfsssp,no_fallback", 1, NULL, NULL);
    check_attempt(r, 0, "dfsssp", IBR_ENOVL, "EN002",
                  "virtual lanes needed to break every credit loop, 1 available");
    const char *all = ibr_result_last_error(r);
    check(all, "RT001", "no engine could route the fabric; dfsssp: ");
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "did not fit either) [EN002] [RT001]"));
    ibr_result_destroy(r);

    /* ftree and then updn with a root GUID no switch has: both decline,
       and both warn of the GUID */
    ibr_options o;
    CU_ASSERT_EQUAL_FATAL(ibr_options_init(&o, IBR_OPTIONS_VERSION), 0);
    uint64_t root = 0xdead0000beefULL;
    o.root_guids = &root;
    o.n_root_guids = 1;
    CU_ASSERT_EQUAL(ibr_route(&r, torus, "ftree,updn,no_fallback", &o), IBR_EUNROUTABLE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(ibr_result_attempt_count(r), 2);
    check_attempt(r, 0, "ftree", IBR_EDECLINED, "EN030",
                  "ranking from the CAs puts all 25 switches at rank 0 (each carries CAs");
    check_attempt(r, 1, "updn", IBR_EDECLINED, "EN075",
                  "none of the 1 root GUIDs given is a switch or an end port cabled to a switch");
    all = ibr_result_last_error(r);
    check(all, "RT001", "; ftree: ranking from the CAs");
    CU_ASSERT_PTR_NOT_NULL(strstr(all, "[EN030]; updn: none of the 1 root GUIDs"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(warnings, "ftree: root GUID 0x0000dead0000beef not found [EN016]\n"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(warnings, "updn: root GUID 0x0000dead0000beef not in the fabric [EN070]\n"));
    ibr_result_destroy(r);

    /* torus-2QoS on a random graph with no configuration: none can be
       derived; lash with start_vl at the last VL: no layer left */
    r = route_fails(rnd, "torus-2QoS,no_fallback", 0, NULL, NULL);
    check_attempt(r, 0, "torus-2QoS", IBR_EDECLINED, "EN063",
                  "no torus-2QoS.conf given (setting torus-2QoS.config");
    ibr_result_destroy(r);
    r = route_fails(rnd, "lash,no_fallback", 2, "lash.start_vl", "2");
    check_attempt(r, 0, "lash", IBR_ENOVL, "EN041",
                  "start_vl 2 leaves no layer below the 2 VLs available");
    ibr_result_destroy(r);
    ibr_topo_destroy(rnd);
    ibr_topo_destroy(torus);
    ibr_context_destroy(ctx);
}

/* TQ: a torus-2QoS.conf given that the reader refuses: the engine
   declines with the reader's message. */
static void test_torus_conf(void)
{
    ibr_topo *t = ibr_test_topo(NULL, "torus:dims=4x4x4,hosts=1");
    static const struct {
        const char *text, *code, *what;
    } cases[] = {
        {"torus 4 4\n", "TQ001", "torus-2QoS.conf line 1: 'torus' needs three radices"},
        {"# a 4x4x4 torus\nmesh 4t 0 4\n", "TQ002", "torus-2QoS.conf line 2: bad radix '0'"},
        {"torus 4 4 4\nfrobnicate 3\n", "TQ009",
         "torus-2QoS.conf line 2: unknown keyword 'frobnicate'"},
        {"# nothing\n", "TQ010", "torus-2QoS.conf: no 'torus X Y Z' or 'mesh X Y Z' line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_result *r = route_fails(t, "torus-2QoS,no_fallback", 0, "torus-2QoS.config", cases[i].text);
        check_attempt(r, 0, "torus-2QoS", IBR_EDECLINED, cases[i].code, cases[i].what);
        ibr_result_destroy(r);
    }
    ibr_topo_destroy(t);
}

/* A generated fabric with cables taken down: switch node's cables to the
   switches of the list (IBR_NONE ends it; an empty list: all of them).
   Frozen, the fabric destroyed. */
static ibr_topo *cut_topo(const char *spec, uint32_t node, const uint32_t *to)
{
    ibr_fabric *f = NULL;
    ibr_topo *t = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_create(&f, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_generate(f, spec), 0);
    unsigned cut = 0;
    for (unsigned port = 1; port <= 64; port++) {
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        if (ibr_fabric_port_info(&pi, f, node, port) < 0)
            break;
        ibr_node_info ni = IBR_NODE_INFO_INIT;
        if (pi.remote_node == IBR_NONE ||
            ibr_fabric_node_info(&ni, f, pi.remote_node) < 0 || ni.type != IBR_NODE_SWITCH)
            continue;
        int listed = to[0] == IBR_NONE;
        for (size_t k = 0; to[k] != IBR_NONE; k++)
            listed |= to[k] == pi.remote_node;
        if (listed) {
            CU_ASSERT_EQUAL_FATAL(ibr_fabric_set_link_state(f, node, port, IBR_LINK_DOWN), 0);
            cut++;
        }
    }
    CU_ASSERT(cut > 0);
    CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
    ibr_fabric_destroy(f);
    return t;
}

/* TQ: no torus-2QoS.conf given and none can be derived from the cabling:
   the reason carries its own code, before EN063's. */
static void test_torus_derive(void)
{
    static const uint32_t all[] = {IBR_NONE}, next[] = {4, IBR_NONE};
    static const struct {
        const char *spec;
        uint32_t node;
        const uint32_t *cut;
        const char *code, *what;
    } cases[] = {
        {"random:switches=24,degree=4,hosts=2,seed=3", IBR_NONE, NULL, "TQ017",
         "not a torus or mesh (LASH's mesh analysis finds"},
        {"fattree:levels=2,radix=8", IBR_NONE, NULL, "TQ018",
         "not a torus or mesh of at most 3 dimensions"},
        {"mesh:dims=300,hosts=1", IBR_NONE, NULL, "TQ016",
         "a line of 300 switches (torus-2QoS takes 2 to 255)"},
        /* a switch with every switch cable down keeps its host */
        {"torus:dims=5x5,hosts=1", 7, all, "TQ021", "has end ports but no cable to another"},
        /* a line of 8 cut between its 4th and 5th switches */
        {"mesh:dims=8,hosts=1", 3, next, "TQ022", "the switches form 2 separate parts"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ibr_topo *t = cases[i].cut ? cut_topo(cases[i].spec, cases[i].node, cases[i].cut)
                                   : ibr_test_topo(NULL, cases[i].spec);
        ibr_result *r = route_fails(t, "torus-2QoS,no_fallback", 0, NULL, NULL);
        check_attempt(r, 0, "torus-2QoS", IBR_EDECLINED, "EN063",
                      "none can be derived from the cabling: ");
        const char *msg = NULL, *name = NULL;
        int status = 0;
        CU_ASSERT_EQUAL_FATAL(ibr_result_attempt(&name, &status, &msg, r, 0), 0);
        char tail[32];
        snprintf(tail, sizeof tail, " [%s] [EN063]", cases[i].code);
        const char *at = strstr(msg, cases[i].what);
        int ok = at && strstr(at, tail) && strcmp(msg + strlen(msg) - strlen(tail), tail) == 0;
        if (!ok)
            fprintf(stderr, "%s: want \"...%s...%s\", got \"%s\"\n", cases[i].spec,
                    cases[i].what, tail, msg);
        CU_ASSERT(ok);
        ibr_result_destroy(r);
        ibr_topo_destroy(t);
    }
}

/* An engine that asks ibr_run_ucast_ex() for a flag no version knows. */
static int bad_flags_route(ibr_run *run, void *user)
{
    (void)user;
    const ibr_topo *t = ibr_run_topo(run);
    size_t s = ibr_topo_switch_count(t);
    uint8_t *hops = calloc((size_t)s * s + 1, 1);
    int rc = ibr_run_ucast_ex(run, hops, NULL, NULL, "bad flags", 1u << 30);
    free(hops);
    return rc;
}

/* RN: the engines' toolkit refuses a call with the run's message. */
static void test_run_toolkit(void)
{
    ibr_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_context_create(&ctx, NULL), 0);
    ibr_engine e = IBR_ENGINE_INIT;
    e.name = "badflags";
    e.route = bad_flags_route;
    CU_ASSERT_EQUAL_FATAL(ibr_context_register_engine(ctx, &e), 0);
    ibr_topo *t = ibr_test_topo(ctx, "fattree:levels=2,radix=4");
    ibr_result *r = route_fails(t, "badflags,no_fallback", 0, NULL, NULL);
    check_attempt(r, 0, "badflags", IBR_EINVAL, "RN001", "ucast: unknown flags");
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"topology reader (TP)", test_topology},
        {"fabric builder (FB)", test_fabric_builder},
        {"forwarding tables and guid2lid (LF, GL)", test_lfts_guid2lid},
        {"GUID lists (GU)", test_guid_lists},
        {"multicast groups and SA dump (MG, SA)", test_mcast},
        {"generators and faults (GN)", test_generate},
        {"options, parameters, chain, registration (RO)", test_route_options},
        {"rank order (RK)", test_rank_order},
        {"engines and the route driver (EN, RT)", test_engines},
        {"torus-2QoS configuration (TQ)", test_torus_conf},
        {"torus-2QoS configurations not derived (TQ)", test_torus_derive},
        {"engine toolkit (RN)", test_run_toolkit},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("messages", tests);
}
