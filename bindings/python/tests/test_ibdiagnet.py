"""The files the fabric's owner has, from Python: a link list
(ibdiagnet2.lst, opensm-subnet.lst) as a fabric, ibdiagnet2.fdbs with the
SL2VL tables and path SLs as a result whose VLs are the routing's."""

import os
import unittest

import ibroute
from ibroute import SwitchDump


class TestIbdiagnet(unittest.TestCase):
    def test_link_list_and_vls(self):
        f = ibroute.Fabric.from_spec("torus:dims=6x6,hosts=1")
        t = f.freeze()
        r = t.route("dfsssp")
        self.assertGreater(r.vls_used, 1)
        lst = t.write_subnet_lst()
        fdbs = r.write_switches(SwitchDump.IBDIAGNET_FDBS)
        self.assertTrue(fdbs.startswith("osm_ucast_mgr_dump_ucast_routes: Switch 0x"))
        g = ibroute.Fabric()
        g.parse_subnet_lst(lst)
        self.assertEqual(g.node_count, f.node_count)
        u = g.freeze()
        self.assertEqual(u.write_subnet_lst(), lst)
        plain = ibroute.Result.parse_lfts(u, fdbs)
        full = ibroute.Result.parse_lfts(u, fdbs, sl2vl=r.write_sl2vl(), path_sl=r.write_path_sl())
        self.assertTrue(r.verify().deadlock_free)
        self.assertFalse(plain.verify().deadlock_free)
        self.assertTrue(full.verify().deadlock_free)
        self.assertEqual(full.analyze().summary.vls_used, r.analyze().summary.vls_used)
        for x in (plain, full, r, u, g, t, f):
            x.close()

    def test_errors_name_the_line(self):
        g = ibroute.Fabric()
        with self.assertRaises(ibroute.ParseError) as cm:
            g.parse_subnet_lst("# c\n{ XX Ports:01 }\n")
        self.assertIn("line 2:", str(cm.exception))
        self.assertIn("[LS002]", str(cm.exception))
        self.assertEqual(g.node_count, 0)
        g.close()

    def test_db_csv(self):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "..", "tests", "data",
                               "ibdiagnet2_small.db_csv")) as fh:
            text = fh.read()
        g = ibroute.Fabric()
        g.parse_db_csv(text)
        self.assertEqual(g.node_count, 4)
        t = g.freeze()
        r = t.route("minhop")
        self.assertTrue(r.verify().ok)
        for x in (r, t, g):
            x.close()
        h = ibroute.Fabric()
        with self.assertRaises(ibroute.ParseError) as cm:
            h.parse_db_csv("# c\nSTART_NODES\nNodeDesc\nEND_NODES\n")
        self.assertIn("line 3:", str(cm.exception))
        self.assertIn("[DC008]", str(cm.exception))
        self.assertEqual(h.node_count, 0)
        h.close()

    def test_db_csv_written_and_read_back(self):
        f = ibroute.Fabric.from_spec("fattree:levels=3,radix=4")
        t = f.freeze()
        r = t.route("updn")
        text = t.write_db_csv()
        self.assertTrue(text.startswith("# ") and "START_LINKS" in text)
        self.assertEqual(r.write_db_csv(), text)
        g = ibroute.Fabric()
        g.parse_db_csv(text)
        self.assertEqual(g.node_count, f.node_count)
        u = g.freeze()
        # the same nodes, GUIDs, LIDs and cables: the link lists agree
        self.assertEqual(u.write_subnet_lst(), t.write_subnet_lst())
        self.assertEqual(u.write_db_csv(), text)
        for x in (u, g, r, t, f):
            x.close()


if __name__ == "__main__":
    unittest.main()
