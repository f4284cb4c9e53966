"""Engine settings (params) and the engine toolkit seen from Python."""

import unittest

import ibroute
from ibroute import EngineCaps, SettingType


class TestParams(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec("fattree:levels=2,radix=8")
        cls.topo = cls.fabric.freeze()

    @classmethod
    def tearDownClass(cls):
        cls.topo.close()
        cls.fabric.close()

    def test_engines_list_their_settings(self):
        ftree = ibroute.find_engine("ftree")
        names = {s.name: s for s in ftree.settings}
        self.assertEqual(set(names), {"max_reverse_hops", "connect_roots", "strict",
                                      "degraded_tolerance"})
        self.assertEqual(names["strict"].type, SettingType.BOOL)
        self.assertEqual(names["max_reverse_hops"].type, SettingType.INT)
        self.assertEqual((names["max_reverse_hops"].min, names["max_reverse_hops"].max), (0, 255))
        self.assertEqual(names["connect_roots"].type, SettingType.BOOL)
        self.assertEqual(ibroute.find_engine("minhop").settings, ())

    def test_recorded_with_defaults(self):
        with self.topo.route("ftree") as r:
            self.assertEqual(r.settings, {"ftree.max_reverse_hops": "0",
                                          "ftree.connect_roots": "0", "ftree.strict": "0",
                                          "ftree.degraded_tolerance": "25"})
        with self.topo.route("ftree", params={"ftree.max_reverse_hops": 3,
                                              "ftree.connect_roots": True}) as r:
            self.assertEqual(r.settings, {"ftree.max_reverse_hops": "3",
                                          "ftree.connect_roots": "1", "ftree.strict": "0",
                                          "ftree.degraded_tolerance": "25"})
        # the shorthand sets updn's, dnup's and ftree's connect_roots
        with self.topo.route("updn,no_fallback", connect_roots=True) as r:
            self.assertEqual(r.settings, {"updn.connect_roots": "1"})
        # pairs: the last value counts
        with self.topo.route("updn", params=[("updn.connect_roots", 1),
                                             ("updn.connect_roots", "no")]) as r:
            self.assertEqual(r.settings, {"updn.connect_roots": "0"})

    def test_bad_params(self):
        cases = [({"nosuch.x": 1}, "no engine named 'nosuch'"),
                 ({"ftree.bogus": 1}, "has no setting 'bogus'"),
                 ({"ftree.max_reverse_hops": 300}, "0..255"),
                 ({"updn.connect_roots": "perhaps"}, "boolean"),
                 ({"connect_roots": 1}, "ENGINE.SETTING")]
        for params, msg in cases:
            with self.subTest(params=params):
                with self.assertRaises(ibroute.InvalidArgumentError) as cm:
                    self.topo.route("updn", params=params)
                self.assertIn(msg, str(cm.exception))
        with self.assertRaises(TypeError):
            self.topo.route("updn", params="updn.connect_roots=1")
        with self.assertRaises(TypeError):
            self.topo.route("updn", params={"updn.connect_roots": 1.5})
        with self.assertRaises(TypeError):
            self.topo.route("updn", qos="on")  # a QosConfig, True or None


class TestPythonEngineToolkit(unittest.TestCase):
    def test_settings_hops_ucast_sls(self):
        ctx = ibroute.Context()
        seen = {}

        def kit(run):
            seen["level"] = run.setting("level")
            seen["text"] = run.setting("text")
            seen["threads"] = run.threads
            with self.assertRaises(ibroute.NotFoundError):
                run.setting("nope")
            run.compute_hops()
            run.ucast("kit")
            run.set_sl_mode("PER_DEST")
            row = run.sl_row(0)
            row[1] = 3
            seen["loop"] = run.find_credit_loop()

        ctx.register_engine("kit", kit, "minhop from the toolkit", settings=[
            ibroute.Setting("level", SettingType.INT, 4, 0, 9, "a level"),
            ibroute.Setting("text", SettingType.STRING, "hello", help="a text")])
        info = ctx.find_engine("kit")
        self.assertEqual([s.name for s in info.settings], ["level", "text"])
        with ibroute.Fabric.from_spec("torus:dims=5,hosts=1", context=ctx) as f, \
                f.freeze() as t:
            with t.route("kit,no_fallback", threads=1,
                         params={"kit.text": "line 1\nline 2"}) as r, \
                    t.route("minhop", threads=1) as m:
                self.assertEqual(seen["level"], 4)
                self.assertEqual(seen["text"], "line 1\nline 2")
                self.assertEqual(seen["threads"], 1)
                self.assertTrue(seen["loop"])  # minhop on a ring has a credit loop
                for sw in range(t.switch_count):
                    self.assertEqual(bytes(r.lft(sw)), bytes(m.lft(sw)))
                self.assertEqual(r.path_sl(1, 1), 3)
                self.assertEqual(r.settings, {"kit.level": "4", "kit.text": "line 1\nline 2"})
        ctx.close()

    def test_ucast_flags_and_dor(self):
        ctx = ibroute.Context()
        flags = {}

        def kit(run):
            run.compute_hops()
            run.ucast("kit", flags=flags["f"])

        ctx.register_engine("kit", kit, "the LFT builder with flags")
        with ibroute.Fabric.from_spec("mesh:dims=3x3,hosts=1", context=ctx) as f, \
                f.freeze() as t:
            flags["f"] = ibroute.UcastFlags.SEARCH_ORDER
            with t.route("kit,no_fallback") as r:
                self.assertEqual(r.engine, "kit")
            flags["f"] = 1 << 7
            with self.assertRaises(ibroute.Error):
                t.route("kit,no_fallback")
            info = ibroute.find_engine("dor")
            self.assertTrue(info.builtin)
            self.assertEqual(info.caps & (EngineCaps.MINIMAL | EngineCaps.LMC),
                             EngineCaps.MINIMAL | EngineCaps.LMC)
            self.assertFalse(info.caps & EngineCaps.DEADLOCK_FREE)
            self.assertEqual([x.name for x in info.settings], ["port_search_ordering"])
            # dor: shortest paths in dimension order; the search order
            # setting takes the text of a port_search_ordering file
            with t.route("dor,no_fallback") as d:
                self.assertEqual(d.engine, "dor")
                self.assertTrue(d.verify().deadlock_free)
                default_lft = bytes(d.lft(0))
            guid = t.node_info(t.switch_node(0)).node_guid
            with t.route("dor,no_fallback",
                         params={"dor.port_search_ordering": "0x%x 4 3\n" % guid}) as d2:
                self.assertEqual(d2.settings["dor.port_search_ordering"], "0x%x 4 3\n" % guid)
                self.assertNotEqual(default_lft, bytes(d2.lft(0)))
        ctx.close()


if __name__ == "__main__":
    unittest.main()
