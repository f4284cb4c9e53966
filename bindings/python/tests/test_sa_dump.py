"""Multicast groups from OpenSM's SA database dump (opensm-sa.dump) in
Python: the records OpenSM's restore keeps, line-numbered errors, trees."""

import unittest

import ibroute

GROUP = ("MC Group 0x%04x%s: mgid=0xff12601bffff0000:0x%016x "
         "port_gid=0xfe80000000000000:0x0 qkey=0x00000000 mlid=0x%04x mtu=0x84 "
         "tclass=0x00 pkey=0xffff rate=0x83 pkt_life=0x00 sl_flow_hop=0x00000000 "
         "scope_state=0x21 proxy_join=0x0\n\n")
MEMBER = ("mcm_port: port_gid=0xfe80000000000000:0x%016x scope_state=0x%02x "
          "proxy_join=0x0\n\n")


class TestSaDump(unittest.TestCase):
    def setUp(self):
        self.f = ibroute.Fabric.from_spec("fattree:levels=2,radix=4")
        self.t = self.f.freeze()
        self.ports = []   # (node guid, port guid) of every CA port 1
        for n in range(self.t.node_count):
            ni = self.t.node_info(n)
            if ni.type != ibroute.NodeType.SWITCH:
                self.ports.append((ni.node_guid, self.t.port_info(n, 1).guid))

    def tearDown(self):
        self.t.close()
        self.f.close()

    def test_groups_and_trees(self):
        p = self.ports
        text = (GROUP % (0xC001, "", 1, 0xC001) + MEMBER % (p[0][1], 0x21)
                + MEMBER % (p[5][1], 0x21) + MEMBER % (p[6][1], 0x24)
                + GROUP % (0xC002, "", 2, 0xC002) + MEMBER % (p[1][1], 0x22))
        with self.t.mcast_groups_sa_dump(text) as g:
            self.assertEqual(g.mlids(), [0xC001])    # 0xC002 has no full member
            ms = g.members(0xC001)
            self.assertEqual(sorted(m.guid for m in ms), sorted([p[0][0], p[5][0], p[6][0]]))
            self.assertEqual(sorted(int(m.join_state) for m in ms), [1, 1, 4])
            with self.t.route("minhop", mcast_groups=g) as r:
                rep = r.verify()
                self.assertEqual(rep.mcast_pairs, 6)
                self.assertEqual(rep.mcast_pairs_ok, 6)

    def test_errors(self):
        bad = "\n" + GROUP % (0xBFFF, "", 1, 0xBFFF)
        with self.assertRaises(ibroute.ParseError) as cm:
            self.t.mcast_groups_sa_dump(bad)
        self.assertIn("line 2: MLID 0xBFFF", str(cm.exception))
        with self.assertRaises(ibroute.ParseError) as cm:
            ibroute.McastGroups(self.t, GROUP % (0xC001, "", 1, 0xC001)
                                + "mcm_port: port_gid=0xfe80000000000000:0x1 scope_state=0x20\n",
                                sa_dump=True)
        self.assertIn("line 3: member 0x0000000000000001 with join state 0", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
