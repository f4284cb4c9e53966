/* Automatic LID assignment with LMC, and the LID map of frozen topologies. */
#include <string.h>

#include "harness.h"

static ibr_fabric *hosts_on_switch(unsigned nsw, unsigned hosts_per_sw)
{
    ibr_fabric *f = NULL;
    ibr_fabric_create(&f, NULL);
    for (unsigned s = 0; s < nsw; s++)
        ibr_fabric_add_node(NULL, f, IBR_NODE_SWITCH, 0x10 + s, 254, "sw");
    for (unsigned s = 0; s + 1 < nsw; s++)
        ibr_fabric_add_link(f, s, 254, s + 1, 253, NULL);
    uint32_t node = nsw;
    for (unsigned s = 0; s < nsw; s++)
        for (unsigned h = 0; h < hosts_per_sw; h++, node++) {
            ibr_fabric_add_node(NULL, f, IBR_NODE_CA, 0x100000 + 0x10 * (uint64_t)node, 1, "h");
            ibr_fabric_add_link(f, node, 1, s, 1 + h, NULL);
        }
    return f;
}

static void test_assign(void)
{
    for (unsigned lmc = 0; lmc <= 7; lmc++) {
        ibr_fabric *f = hosts_on_switch(3, 5);
        /* an unconnected CA gets no LID */
        uint32_t lone;
        ibr_fabric_add_node(&lone, f, IBR_NODE_CA, 0x999000, 2, "lone");
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_assign_lids(f, lmc, IBR_LIDS_KEEP), 0);
        uint8_t used[0xC000];
        memset(used, 0, sizeof used);
        for (uint32_t n = 0; n < ibr_fabric_node_count(f); n++) {
            ibr_node_info ni = IBR_NODE_INFO_INIT;
            ibr_fabric_node_info(&ni, f, n);
            unsigned p0 = ni.type == IBR_NODE_SWITCH ? 0 : 1;
            unsigned p1 = ni.type == IBR_NODE_SWITCH ? 0 : ni.nports;
            for (unsigned p = p0; p <= p1; p++) {
                ibr_port_info pi = IBR_PORT_INFO_INIT;
                ibr_fabric_port_info(&pi, f, n, p);
                if (n == lone) {
                    CU_ASSERT_EQUAL(pi.lid, 0);
                    continue;
                }
                unsigned want = ni.type == IBR_NODE_SWITCH ? 0 : lmc;
                CU_ASSERT_EQUAL(pi.lmc, want);
                CU_ASSERT(pi.lid >= 1);
                CU_ASSERT_EQUAL(pi.lid % (1u << want), 0);
                for (unsigned l = pi.lid; l < pi.lid + (1u << want); l++) {
                    CU_ASSERT(l <= 0xBFFF);
                    CU_ASSERT_EQUAL(used[l], 0);
                    used[l] = 1;
                }
            }
        }
        /* switches first: LIDs 1..3 */
        ibr_port_info pi = IBR_PORT_INFO_INIT;
        ibr_fabric_port_info(&pi, f, 0, 0);
        CU_ASSERT_EQUAL(pi.lid, 1);
        ibr_fabric_port_info(&pi, f, 2, 0);
        CU_ASSERT_EQUAL(pi.lid, 3);
        /* freeze: every LID maps back to its port */
        ibr_topo *t = NULL;
        CU_ASSERT_EQUAL_FATAL(ibr_fabric_freeze(&t, f), 0);
        CU_ASSERT_EQUAL(ibr_topo_endport_count(t), 15);
        for (unsigned l = 1; l <= ibr_topo_max_lid(t); l++) {
            uint32_t node;
            unsigned port;
            if (ibr_topo_lid_owner(&node, &port, t, (uint16_t)l) < 0) {
                CU_ASSERT_EQUAL(used[l], 0);
                continue;
            }
            ibr_topo_port_info(&pi, t, node, port);
            CU_ASSERT(l >= pi.lid && l < pi.lid + (1u << pi.lmc));
        }
        CU_ASSERT_EQUAL(ibr_topo_lid_owner(NULL, NULL, t, 0), IBR_ENOTFOUND);
        ibr_topo_destroy(t);
        ibr_fabric_destroy(f);
    }
}

static void test_keep_and_reassign(void)
{
    ibr_fabric *f = hosts_on_switch(2, 2);
    /* caller-given LIDs are kept, the rest fill the gaps around them */
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 0, 0, 2, 0), 0);
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 2, 1, 100, 0), 0);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_KEEP), 0);
    ibr_port_info pi = IBR_PORT_INFO_INIT;
    ibr_fabric_port_info(&pi, f, 0, 0);
    CU_ASSERT_EQUAL(pi.lid, 2);
    ibr_fabric_port_info(&pi, f, 1, 0);
    CU_ASSERT_EQUAL(pi.lid, 1);
    ibr_fabric_port_info(&pi, f, 2, 1);
    CU_ASSERT_EQUAL(pi.lid, 100);
    CU_ASSERT_EQUAL(pi.lmc, 0);
    ibr_fabric_port_info(&pi, f, 3, 1);
    CU_ASSERT_EQUAL(pi.lid, 4); /* first aligned pair after 1, 2 */
    CU_ASSERT_EQUAL(pi.lmc, 1);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 0, IBR_LIDS_REASSIGN), 0);
    ibr_fabric_port_info(&pi, f, 0, 0);
    CU_ASSERT_EQUAL(pi.lid, 1);
    ibr_fabric_port_info(&pi, f, 2, 1);
    CU_ASSERT_EQUAL(pi.lid, 3);
    /* the LID map follows: the old LID 100 is free again */
    CU_ASSERT_EQUAL(ibr_fabric_set_lid(f, 3, 1, 100, 0), 0);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 8, 0), IBR_ERANGE);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 0, 0x10), IBR_EINVAL);
    ibr_fabric_destroy(f);
}

static void test_does_not_fit(void)
{
    /* 100 switches x 200 hosts = 20,000 ports: fits with LMC 1, not LMC 2 */
    ibr_fabric *f = hosts_on_switch(100, 200);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 1, IBR_LIDS_KEEP), 0);
    ibr_port_info before, after; /* padding zeroed too, for memcmp */
    ibr_port_info_init(&before, IBR_PORT_INFO_VERSION);
    ibr_port_info_init(&after, IBR_PORT_INFO_VERSION);
    ibr_fabric_port_info(&before, f, 150, 1);
    CU_ASSERT_EQUAL(ibr_fabric_assign_lids(f, 2, IBR_LIDS_REASSIGN), IBR_ENOSPC);
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "does not fit"));
    CU_ASSERT_PTR_NOT_NULL(strstr(ibr_fabric_last_error(f), "LMC 2"));
    ibr_fabric_port_info(&after, f, 150, 1);
    CU_ASSERT_EQUAL(memcmp(&before, &after, sizeof before), 0);
    ibr_fabric_destroy(f);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"assignment with LMC 0..7", test_assign},
        {"keep and reassign", test_keep_and_reassign},
        {"LID space exhausted", test_does_not_fit},
        CU_TEST_INFO_NULL,
    };
    return ibr_test_main("lids", tests);
}
