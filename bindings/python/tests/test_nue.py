"""The nue engine from Python: registered with its settings, deadlock-free
through its SLs with any VL budget from 1, never more VLs than given, the
partitioner it used recorded in its artefact, and its settings recorded in
the result."""

import unittest

import ibroute
from ibroute import EngineCaps, SLMode

LAYERS = "nue-layers.txt"


class TestNue(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec("torus:dims=4x4x4,hosts=1")
        cls.topo = cls.fabric.freeze()

    @classmethod
    def tearDownClass(cls):
        cls.topo.close()
        cls.fabric.close()

    def test_registered(self):
        info = ibroute.find_engine("nue")
        self.assertTrue(info.builtin)
        want = EngineCaps.DEADLOCK_FREE | EngineCaps.SL | EngineCaps.SL2VL | EngineCaps.LMC
        self.assertEqual(info.caps & want, want)
        self.assertEqual(info.caps & EngineCaps.MINIMAL, EngineCaps(0))
        names = {s.name for s in info.settings}
        self.assertTrue({"max_vls", "partitioner", "order", "improve"} <= names)

    def test_vl_budgets(self):
        for vls in (1, 2, 4, 8):
            with self.subTest(vls=vls), \
                    self.topo.route("nue,no_fallback", max_vls=vls) as r:
                self.assertEqual(r.engine, "nue")
                rep = r.verify()
                self.assertTrue(rep.ok, rep.first_error)
                self.assertEqual(rep.pairs_ok, rep.pairs)
                self.assertIs(rep.deadlock_free, True)
                self.assertTrue(1 <= r.vls_used <= vls)
                if vls > 1:
                    self.assertEqual(r.sl_mode, SLMode.PER_DEST)
                self.assertIn("# nue: %d layers allowed" % vls, r.artifact(LAYERS).decode())

    def test_settings(self):
        with self.topo.route("nue,no_fallback", max_vls=8,
                             params={"nue.max_vls": 2, "nue.partitioner": "builtin"}) as r:
            self.assertLessEqual(r.vls_used, 2)
            self.assertEqual(r.settings["nue.partitioner"], "builtin")
            self.assertEqual(r.settings["nue.max_vls"], "2")
            self.assertIn("# partitioner: builtin (asked: builtin)",
                          r.artifact(LAYERS).decode())


if __name__ == "__main__":
    unittest.main()
