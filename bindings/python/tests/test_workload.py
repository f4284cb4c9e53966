"""Workloads over a rank order (analyze.h): Topology.parse_rank_order and
Result.analyze(ranks=..., workloads=...)."""

import unittest

import ibroute
from ibroute import Workload


class TestWorkloads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec("fattree:levels=3,radix=4")
        cls.topo = cls.fabric.freeze()
        cls.result = cls.topo.route("ftree")

    @classmethod
    def tearDownClass(cls):
        cls.result.close()
        cls.topo.close()
        cls.fabric.close()

    def test_ftree_order_read_back(self):
        text = self.result.artifact("rank-order.txt").decode()
        guids = self.topo.parse_rank_order(text)
        self.assertEqual(len(guids), 16)
        # the third column of every line but the header
        want = [int(line.split("\t")[2], 16) for line in text.splitlines()[1:]]
        self.assertEqual(guids, want)
        a = self.result.analyze(ranks=text, workloads=["ring", "a2a", "shift"], n_random=2)
        w = {x["name"]: x for x in a.workloads()}
        self.assertEqual(list(w), ["ring", "all_to_all", "shift"])
        self.assertEqual(w["ring"]["ebb"], 1.0)
        self.assertEqual(w["shift"]["ebb"], 1.0)
        self.assertAlmostEqual(w["all_to_all"]["ebb"], 2 / 15, places=8)  # (k/2)/(N-1), JSON keeps 9 digits
        self.assertEqual(a.to_dict()["ranks"], 16)

    def test_options(self):
        guids = self.topo.parse_rank_order("H3\nH1\nH0 HCA-1\nH2 1\n")
        self.assertEqual(len(guids), 4)
        a = self.result.analyze(ranks=guids, workloads=Workload.GRID | Workload.RD,
                                grid=(2, 2), top_links=1, threads=1)
        w = a.workloads()
        self.assertEqual([x["name"] for x in w], ["recursive_doubling", "grid"])
        self.assertEqual(len(w[0]["steps"]), 2)
        self.assertTrue(all(len(x["limiting_links"]) <= 1 for x in w))
        m = self.result.analyze(workloads="moe", moe_group=4, moe_fanout=3, n_random=2)
        self.assertEqual(m.workloads()[0]["flows"], 2 * 16 * 3)
        self.assertEqual(self.result.analyze().workloads(), [])

    def test_errors(self):
        with self.assertRaises(ibroute.ParseError) as cm:
            self.topo.parse_rank_order("H0\nnobody\n")
        self.assertIn("line 2", str(cm.exception))
        with self.assertRaises(ibroute.ParseError) as cm:
            self.topo.parse_rank_order("H0\nH0 HCA-1\n")
        self.assertIn("(line 1)", str(cm.exception))
        with self.assertRaises(ValueError):
            self.result.analyze(workloads=["bogus"])
        with self.assertRaises(ibroute.InvalidArgumentError):
            self.result.analyze(workloads="grid", grid=(3, 3))


if __name__ == "__main__":
    unittest.main()
