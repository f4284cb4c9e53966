"""The lash engine from Python: its capabilities and settings, path SLs from
start_vl, the layer count in its artefact (OpenSM's 5 layers on a 4x4x4
torus, 1 with mesh analysis), and the shortfall that makes a chain fall
through."""

import re
import unittest

import ibroute
from ibroute import EngineCaps, SLMode

LAYERS = "lash-layers.txt"


def layers(r):
    m = re.match(r"# lash: (\d+) layers needed", r.artifact(LAYERS).decode())
    assert m, r.artifact(LAYERS)
    return int(m.group(1))


class TestLash(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec("torus:dims=4x4x4,hosts=1")
        cls.topo = cls.fabric.freeze()
        cls.lids = [cls.topo.port_info(n, 1).lid for n in range(cls.topo.node_count)
                    if cls.topo.node_switch(n) is None]

    @classmethod
    def tearDownClass(cls):
        cls.topo.close()
        cls.fabric.close()

    def test_registered(self):
        info = ibroute.find_engine("lash")
        self.assertTrue(info.builtin)
        want = (EngineCaps.DEADLOCK_FREE | EngineCaps.SL | EngineCaps.SL2VL
                | EngineCaps.MINIMAL | EngineCaps.LMC)
        self.assertEqual(info.caps & want, want)
        names = {s.name for s in info.settings}
        self.assertEqual(names, {"start_vl", "mesh_analysis", "class_above"})

    def test_layers_and_sls(self):
        with self.topo.route("lash,no_fallback") as r:
            self.assertEqual(r.engine, "lash")
            rep = r.verify()
            self.assertTrue(rep.ok, rep.first_error)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(rep.nonminimal, 0)
            self.assertEqual(layers(r), 5)
            self.assertEqual(r.layers, 5)  # ibr_result_layers()
            self.assertEqual(r.vls_used, 5)
            self.assertEqual(r.sl_mode, SLMode.PER_PAIR)
            self.assertTrue(r.has_sl2vl)
            base = {(a, b): r.path_sl(a, b) for a in self.lids[:8] for b in self.lids}
        with self.topo.route("lash,no_fallback", params={"lash.start_vl": 3}) as r:
            self.assertEqual(r.vls_used, 8)
            for (a, b), sl in base.items():
                self.assertEqual(r.path_sl(a, b), sl + 3)
                self.assertEqual(r.path_sl(a, b), r.path_sl(b, a))

    def test_mesh_analysis(self):
        with self.topo.route("lash,no_fallback", params={"lash.mesh_analysis": True},
                             max_vls=1) as r:
            self.assertEqual(layers(r), 1)
            self.assertIs(r.verify().deadlock_free, True)

    def test_shortfall_falls_through(self):
        with self.assertRaises(ibroute.UnroutableError) as cm:
            self.topo.route("lash,no_fallback", max_vls=4)
        self.assertIn("needs more than 4 layers but only 4", str(cm.exception.attempts))
        with self.topo.route("lash,dfsssp", max_vls=8, params={"lash.start_vl": 4}) as r:
            self.assertEqual(r.engine, "dfsssp")


if __name__ == "__main__":
    unittest.main()
