"""The ftree, sssp and dfsssp engines from Python: chain names, artefacts,
compute-node lists from parsed GUID files, SLs and VLs, and the properties
each engine promises (ftree: shift patterns without congestion on a pure
fat tree; sssp: minimal and better balanced than minhop; dfsssp: no credit
loop, path SLs within the VLs used)."""

import re
import unittest

import ibroute
from ibroute import EngineCaps, SLMode

CA_ORDER = "opensm-ftree-ca-order.dump"
LAYERS = "dfsssp-layers.txt"
DEGRADED = "ftree-degraded.txt"


def hosts(t):
    return [n for n in range(t.node_count) if t.node_switch(n) is None]


def lfts(r):
    return [bytes(v) for v in r.lfts()]


def layers_needed(r):
    """The layer count dfsssp reports in its artefact's first line
    ("# dfsssp: N layers needed, ...")."""
    m = re.match(r"# dfsssp: (\d+) layers? needed", r.artifact(LAYERS).decode())
    assert m, r.artifact(LAYERS)
    return int(m.group(1))


class Routed(unittest.TestCase):
    SPEC = ""

    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec(cls.SPEC)
        cls.topo = cls.fabric.freeze()
        cls.hosts = hosts(cls.topo)

    @classmethod
    def tearDownClass(cls):
        cls.topo.close()
        cls.fabric.close()

    def check_complete(self, r, deadlock_free=True):
        rep = r.verify()
        self.assertTrue(rep.ok, rep.first_error)
        self.assertEqual(rep.missing, 0)
        self.assertEqual(rep.pairs_ok, rep.pairs)
        self.assertGreater(rep.pairs, 0)
        self.assertIs(rep.deadlock_free, deadlock_free)
        return rep


class TestRegistered(unittest.TestCase):
    def test_caps(self):
        want = {
            "ftree": (EngineCaps.DEADLOCK_FREE, EngineCaps.MINIMAL),
            "sssp": (EngineCaps.MINIMAL | EngineCaps.LMC, EngineCaps.DEADLOCK_FREE),
            "dfsssp": (EngineCaps.DEADLOCK_FREE | EngineCaps.SL | EngineCaps.SL2VL
                       | EngineCaps.MINIMAL, EngineCaps(0)),
        }
        names = [e.name for e in ibroute.engines()]
        for name, (has, lacks) in want.items():
            with self.subTest(engine=name):
                self.assertIn(name, names)
                info = ibroute.find_engine(name)
                self.assertTrue(info.builtin)
                self.assertEqual(info.caps & has, has)
                self.assertEqual(info.caps & lacks, EngineCaps(0))
                self.assertTrue(info.description)


class TestFtree(Routed):
    SPEC = "fattree:levels=3,radix=8"

    def test_routes_and_ca_order(self):
        t = self.topo
        with t.route("ftree,no_fallback") as r:
            self.assertEqual(r.engine, "ftree")
            self.assertEqual([a.engine for a in r.attempts], ["ftree"])
            rep = self.check_complete(r)
            self.assertEqual(rep.nonminimal, 0)
            self.assertGreater(rep.restricted, 0)  # up/down: no spine to spine
            lines = r.artifact(CA_ORDER).decode().splitlines()
            lids = [int(line.split()[0], 16) for line in lines if line.strip()]
            want = sorted(t.port_info(h, 1).lid for h in self.hosts)
            self.assertEqual(sorted(lids), want)  # every compute node once

    def test_shift_patterns_are_congestion_free(self):
        # what fat-tree routing is for; minhop does not manage it here
        t = self.topo
        with t.route("ftree,no_fallback") as r, r.analyze(patterns=["shift"], threads=1) as a:
            shift = a.summary.shift
            self.assertGreater(shift.patterns, 0)
            self.assertEqual(shift.max_congestion, 1)
            self.assertEqual(shift.congestion_free, shift.patterns)
            self.assertEqual(shift.unrouted, 0)
        with t.route("minhop") as r, r.analyze(patterns=["shift"], threads=1) as a:
            self.assertGreater(a.summary.shift.max_congestion, 1)

    def test_compute_nodes_from_a_parsed_file(self):
        t = self.topo
        cns = self.hosts[:5]
        text = "# compute nodes\n" + "".join(f"0x{t.port_info(h, 1).guid:016x}\n" for h in cns)
        cn_guids = ibroute.parse_guid_list(text)
        self.assertEqual(len(cn_guids), 5)
        with t.route("ftree,no_fallback", cn_guids=cn_guids) as r, \
                t.route("ftree,no_fallback") as full:
            self.assertEqual(r.engine, "ftree")
            self.check_complete(r)
            lines = [ln for ln in r.artifact(CA_ORDER).decode().splitlines() if ln.strip()]
            named = [int(ln.split()[0], 16) for ln in lines if "DUMMY" not in ln]
            self.assertEqual(sorted(named), sorted(t.port_info(h, 1).lid for h in cns))
            self.assertNotEqual(lfts(r), lfts(full))

    def test_declines_on_a_torus(self):
        with ibroute.Fabric.from_spec("torus:dims=4x4,hosts=1") as f, f.freeze() as t:
            with t.route("ftree") as r:
                self.assertEqual(r.engine, "minhop")
                self.assertEqual(r.attempts[0].status_name, "IBR_EDECLINED")
                self.assertIn("not a fat tree", r.attempts[0].message)
                self.assertNotIn(CA_ORDER, r.artifacts)
            with self.assertRaises(ibroute.UnroutableError) as cm:
                t.route(["ftree", "no_fallback"])
            self.assertEqual([a.engine for a in cm.exception.attempts], ["ftree"])
            # a chain moves on to the next engine
            with t.route("ftree,dnup") as r:
                self.assertEqual(r.engine, "dnup")
                self.assertEqual([a.engine for a in r.attempts], ["ftree", "dnup"])


class TestDegradedTree(unittest.TestCase):
    """A fat tree with failed cables and a failed switch, no root GUIDs:
    ftree routes it (valid, credit-loop free) and says how it is degraded
    in the "ftree-degraded.txt" artefact; ftree.strict=1 declines it."""

    def test_degraded_tree(self):
        with ibroute.Fabric.from_spec("fattree:levels=3,radix=8") as f:
            f.inject_faults(links=6, switches=1, seed=3)
            with f.freeze() as t:
                with t.route("ftree,no_fallback") as r:
                    self.assertEqual(r.engine, "ftree")
                    rep = r.verify()
                    self.assertTrue(rep.ok, rep.first_error)
                    self.assertIs(rep.deadlock_free, True)
                    self.assertEqual(rep.pairs_ok, rep.pairs)
                    text = r.artifact(DEGRADED).decode()
                    m = re.search(r"^degraded: (\d+) switch\(es\) and (\d+) cable\(s\) missing",
                                  text, re.M)
                    self.assertIsNotNone(m, text)
                    self.assertGreater(int(m.group(1)) + int(m.group(2)), 0)
                    self.assertIn(CA_ORDER, r.artifacts)
                with t.route("ftree", params={"ftree.strict": 1}) as r:
                    self.assertEqual(r.engine, "minhop")
                    self.assertIn("not a pure fat tree", r.attempts[0].message)
                    self.assertNotIn(DEGRADED, r.artifacts)

    def test_full_tree_is_not_degraded(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t:
            with t.route("ftree,no_fallback") as r:
                self.assertNotIn(DEGRADED, r.artifacts)


class TestTorus(Routed):
    SPEC = "torus:dims=4x4,hosts=1"

    def test_sssp_is_minimal_and_balanced(self):
        t = self.topo
        with t.route("sssp,no_fallback") as s, t.route("minhop") as m:
            self.assertEqual(s.engine, "sssp")
            self.assertEqual(s.artifacts, {})
            self.assertEqual(s.sl_mode, SLMode.NONE)
            rs = self.check_complete(s, deadlock_free=False)  # a torus needs VLs
            rm = m.verify()
            self.assertEqual(rs.nonminimal, 0)
            self.assertEqual(rs.avg_stretch, 1.0)
            self.assertLessEqual(rs.max_link_load, rm.max_link_load)
            self.assertEqual(rs.mean_link_load, rm.mean_link_load)  # same path lengths

    def test_sssp_threads_and_lmc(self):
        t = self.topo
        with t.route("sssp", threads=1) as a, t.route("sssp", threads=2) as b:
            self.assertEqual(lfts(a), lfts(b))
        with ibroute.Fabric.from_spec(self.SPEC) as f:
            f.assign_lids(lmc=1, reassign=True)
            with f.freeze() as t2, t2.route("sssp,no_fallback") as r:
                self.check_complete(r, deadlock_free=False)
                host = hosts(t2)[0]
                lid = t2.port_info(host, 1).lid
                self.assertNotEqual(r.lft_port(0, lid + 1), ibroute.NO_ROUTE)

    def test_dfsssp_breaks_credit_loops_with_vls(self):
        # a ring of 5 has a credit loop under any minimal routing (this
        # class's 4x4 torus is a 4-cube: dimension order, one layer)
        with ibroute.Fabric.from_spec("torus:dims=5x5,hosts=1") as f, f.freeze() as t, \
                t.route("dfsssp,no_fallback") as r:
            self.assertEqual(r.engine, "dfsssp")
            rep = self.check_complete(r)
            self.assertEqual(rep.nonminimal, 0)
            self.assertEqual(r.find_credit_loop(), [])
            self.assertNotEqual(r.sl_mode, SLMode.NONE)
            self.assertTrue(r.has_sl2vl)
            self.assertGreaterEqual(r.vls_used, 2)
            lids = [t.port_info(h, 1).lid for h in hosts(t)]
            sls = {r.path_sl(a, b) for a in lids for b in lids if a != b}
            self.assertGreater(len(sls), 1)
            self.assertLess(max(sls), 16)
            for a in lids[:4]:
                for b in lids[-4:]:
                    self.assertEqual(r.trace(a, b).sl, r.path_sl(a, b))
            self.assertIn(LAYERS, r.artifacts)
            n = layers_needed(r)
            self.assertGreaterEqual(n, 2)  # a torus routed minimally has cycles
            self.assertLessEqual(n, r.vls_used)
            self.assertTrue(r.write_path_sl())
            self.assertTrue(r.write_sl2vl())

    def test_dfsssp_needs_enough_vls(self):
        t = self.topo
        with t.route("dfsssp,no_fallback") as r:
            n = layers_needed(r)
        with t.route("dfsssp,no_fallback", max_vls=n) as r:
            self.assertEqual(r.vls_used, n)
            self.assertEqual(layers_needed(r), n)
            self.check_complete(r)
            self.assertLess(max(r.path_sl(a, b) for a in range(1, t.max_lid + 1)
                                for b in range(1, t.max_lid + 1)), 16)
        # one VL fits this torus unit by unit (it is a 4-cube), but never a
        # ring of 5
        with t.route("dfsssp,no_fallback", max_vls=1) as r:
            self.assertEqual(r.vls_used, 1)
            self.check_complete(r)
        with ibroute.Fabric.from_spec("torus:dims=5x5,hosts=1") as f, f.freeze() as t5:
            with t5.route("dfsssp", max_vls=1) as r:
                self.assertEqual(r.engine, "minhop")
                first = r.attempts[0]
                self.assertEqual(first.status_name, "IBR_ENOVL")
                self.assertIn("max_vls", first.message)
            with self.assertRaises(ibroute.UnroutableError) as cm:
                t5.route("dfsssp,no_fallback", max_vls=1)
            self.assertEqual(cm.exception.attempts[0].status_name, "IBR_ENOVL")
            self.assertIn("virtual lanes", cm.exception.message)

    def test_dfsssp_on_a_tree_needs_one_layer(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t, \
                t.route("dfsssp,no_fallback") as r:
            self.check_complete(r)
            self.assertEqual(layers_needed(r), 1)  # up/down paths have no cycle


if __name__ == "__main__":
    unittest.main()
