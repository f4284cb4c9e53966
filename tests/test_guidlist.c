/* GUID-list files: OpenSM's format, errors naming the line, allocation
   failure. */
#include <string.h>

#include "harness.h"

static void test_plain(void)
{
    const char *text = "# roots\n"
                       "  0x0002c90000001000\n"
                       "\n"
                       "0x0002C90000001001   # spine 2\n"
                       "0x10 extra words are ignored\n"
                       "077\n"
                       "12345";
    ibr_guid_list *l = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_guid_list_parse(&l, NULL, IBR_GUID_LIST_PLAIN, text, strlen(text)),
                          0);
    CU_ASSERT_EQUAL(ibr_guid_list_count(l), 5);
    const uint64_t *g = ibr_guid_list_guids(l);
    CU_ASSERT_EQUAL(g[0], 0x0002c90000001000ULL);
    CU_ASSERT_EQUAL(g[1], 0x0002c90000001001ULL);
    CU_ASSERT_EQUAL(g[2], 0x10);
    CU_ASSERT_EQUAL(g[3], 077); /* a leading 0 is octal, as in OpenSM */
    CU_ASSERT_EQUAL(g[4], 12345);
    CU_ASSERT_PTR_NULL(ibr_guid_list_ids(l));
    CU_ASSERT_PTR_NULL(ibr_guid_list_ports(l));
    CU_ASSERT_STRING_EQUAL(ibr_guid_list_last_error(l), "");
    ibr_guid_list_destroy(l);
    /* empty text: an empty list */
    CU_ASSERT_EQUAL(ibr_guid_list_parse(&l, NULL, IBR_GUID_LIST_PLAIN, "", 0), 0);
    CU_ASSERT_EQUAL(ibr_guid_list_count(l), 0);
    CU_ASSERT_PTR_NULL(ibr_guid_list_guids(l));
    ibr_guid_list_destroy(l);
    ibr_guid_list_destroy(NULL);
}

static void test_ids_and_ports(void)
{
    const char *ids = "0x100 7\n0x200\n0x300 0x10 # comment\n";
    ibr_guid_list *l = NULL;
    CU_ASSERT_EQUAL_FATAL(ibr_guid_list_parse(&l, NULL, IBR_GUID_LIST_ID, ids, strlen(ids)), 0);
    CU_ASSERT_EQUAL(ibr_guid_list_count(l), 3);
    const ibr_guid_id *id = ibr_guid_list_ids(l);
    CU_ASSERT_EQUAL(id[0].guid, 0x100);
    CU_ASSERT_EQUAL(id[0].id, 7);
    CU_ASSERT_EQUAL(id[1].id, 0); /* no id means 0 */
    CU_ASSERT_EQUAL(id[2].id, 16);
    ibr_guid_list_destroy(l);
    const char *ports = "0x2c90000001000 3\n0x2c90000001000 36\n";
    CU_ASSERT_EQUAL_FATAL(
        ibr_guid_list_parse(&l, NULL, IBR_GUID_LIST_PORT, ports, strlen(ports)), 0);
    const ibr_guid_port *p = ibr_guid_list_ports(l);
    CU_ASSERT_EQUAL(p[1].guid, 0x2c90000001000ULL);
    CU_ASSERT_EQUAL(p[1].port, 36);
    /* the list plugs into the options */
    ibr_options o = IBR_OPTIONS_INIT;
    o.ignore_ports = ibr_guid_list_ports(l);
    o.n_ignore_ports = ibr_guid_list_count(l);
    ibr_topo *t = ibr_test_topo(NULL, "fattree:levels=2,radix=4");
    ibr_result *r = NULL;
    CU_ASSERT_EQUAL(ibr_route(&r, t, "minhop", &o), 0);
    ibr_result_destroy(r);
    ibr_topo_destroy(t);
    ibr_guid_list_destroy(l);
}

static void test_errors(void)
{
    static const struct {
        int kind;
        const char *text;
        const char *msg;
    } cases[] = {
        {IBR_GUID_LIST_PLAIN, "0x1\nzz12\n", "line 2: bad GUID 'zz12'"},
        {IBR_GUID_LIST_PLAIN, "0x1\n\n0x12g\n", "line 3: bad GUID '0x12g'"},
        {IBR_GUID_LIST_PLAIN, "-5\n", "line 1: bad GUID '-5'"},
        {IBR_GUID_LIST_PLAIN, "0x\n", "line 1: bad GUID"},
        {IBR_GUID_LIST_PLAIN, "0x10000000000000000\n", "line 1: bad GUID"},
        {IBR_GUID_LIST_PLAIN, "0789\n", "line 1: bad GUID '0789'"},
        {IBR_GUID_LIST_ID, "0x1 2\n0x2 x3\n", "line 2: bad id 'x3'"},
        {IBR_GUID_LIST_ID, "0x1 2x\n", "line 1: bad id '2x'"},
        {IBR_GUID_LIST_PORT, "0x1\n", "line 1: port number missing"},
        {IBR_GUID_LIST_PORT, "0x1 0\n", "line 1: port 0 out of range"},
        {IBR_GUID_LIST_PORT, "# x\n0x1 255\n", "line 2: port 255 out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ibr_guid_list *l = NULL;
        int rc = ibr_guid_list_parse(&l, NULL, (ibr_guid_list_kind)cases[i].kind, cases[i].text,
                                     strlen(cases[i].text));
        CU_ASSERT_EQUAL(rc, IBR_EPARSE);
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        CU_ASSERT_PTR_NOT_NULL(strstr(ibr_guid_list_last_error(l), cases[i].msg));
        if (!strstr(ibr_guid_list_last_error(l), cases[i].msg))
            fprintf(stderr, "case %zu: %s\n", i, ibr_guid_list_last_error(l));
        CU_ASSERT_EQUAL(ibr_guid_list_count(l), 0);
        ibr_guid_list_destroy(l);
    }
    ibr_guid_list *l = NULL;
    CU_ASSERT_EQUAL(ibr_guid_list_parse(&l, NULL, (ibr_guid_list_kind)9, "", 0), IBR_EINVAL);
    CU_ASSERT_PTR_NULL(l);
    CU_ASSERT_EQUAL(ibr_guid_list_parse(NULL, NULL, IBR_GUID_LIST_PLAIN, "", 0), IBR_EINVAL);
}

static void test_oom(void)
{
    char text[4096];
    size_t off = 0;
    for (int i = 0; i < 100; i++)
        off += (size_t)snprintf(text + off, sizeof text - off, "0x%x %d\n", 0x1000 + i, i);
    ibr_test_alloc st = {-1, 0, 0};
    ibr_context *ctx = ibr_test_context(&st);
    long base = st.live;
    for (long n = 0;; n++) {
        st.fail_at = n;
        st.calls = 0;
        ibr_guid_list *l = NULL;
        int rc = ibr_guid_list_parse(&l, ctx, IBR_GUID_LIST_ID, text, off);
        if (rc == 0) {
            CU_ASSERT_EQUAL(ibr_guid_list_count(l), 100);
            ibr_guid_list_destroy(l);
            break;
        }
        CU_ASSERT_EQUAL_FATAL(rc, IBR_ENOMEM);
        CU_ASSERT_PTR_NULL(l);
        CU_ASSERT_EQUAL(st.live, base);
    }
    st.fail_at = -1;
    CU_ASSERT_EQUAL(st.live, base);
    ibr_context_destroy(ctx);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"plain lists", test_plain},
        {"ids and ports", test_ids_and_ports},
        {"errors name the line", test_errors},
        {"allocation failure", test_oom},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("guidlist", tests);
}
