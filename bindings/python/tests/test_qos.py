"""QoS configuration (qos_* keys) and the QoS tables of a result."""

import unittest

import _support  # noqa: F401

import ibroute


class TestQosConfig(unittest.TestCase):
    def test_defaults_and_families(self):
        with ibroute.QosConfig() as q:
            t = q.table("ca")
            self.assertEqual(t["sl2vl"], list(range(15)) + [7])
            self.assertEqual(t["vlarb_high"][:2], [(0, 4), (1, 0)])
            self.assertEqual(t["max_vls"], 15)
        conf = "routing_engine minhop\nqos_sl2vl 0,0,1,1\nqos_swe_high_limit 3\n"
        with ibroute.QosConfig(conf, qos_ca_vlarb_low=[(0, 8), (1, 8)]) as q:
            self.assertTrue(q.is_set("qos_sl2vl"))
            self.assertEqual(q.table("swe")["high_limit"], 3)
            self.assertEqual(q.table("rtr")["high_limit"], 0)
            self.assertEqual(q.table("sw0")["sl2vl"], [0, 0, 1, 1] + [0] * 12)
            self.assertEqual(q.table("ca")["vlarb_low"][:3], [(0, 8), (1, 8), (0, 0)])
            self.assertIn("qos_ca_vlarb_low 0:8,1:8\n", q.text())
            q.set("qos_sl2vl", None)
            self.assertFalse(q.is_set("qos_sl2vl"))

    def test_errors_leave_config(self):
        with ibroute.QosConfig("qos_sl2vl 1,1\n") as q:
            with self.assertRaises(ibroute.ParseError) as cm:
                q.parse("qos_sl2vl 0\n\nqos_vlarb_low 0:300\n")
            self.assertIn("line 3: qos_vlarb_low", str(cm.exception))
            self.assertEqual(q.table()["sl2vl"][:2], [1, 1])
            with self.assertRaises(ibroute.InvalidArgumentError):
                q.set("qos_policy_file", "x")
            with self.assertRaises(ValueError):
                q.table("nope")


class TestQosResult(unittest.TestCase):
    def test_tables_and_hazards(self):
        with ibroute.Fabric.from_spec("torus:dims=4x3x3,hosts=1") as f, f.freeze() as t:
            with t.route("minhop") as r:
                self.assertFalse(r.has_qos)
                self.assertIsNone(r.vlarb(0, 1))
            with t.route("dfsssp,no_fallback", qos=True) as r:
                self.assertTrue(r.has_qos)
                self.assertEqual(r.sl_hazards(), [])
                self.assertEqual(r.qos_notes(), [])
                sw = t.switch_node(0)
                v = r.vlarb(sw, 1)
                self.assertEqual(v["high_limit"], 0)
                self.assertEqual(v["low"], [(0, 0)] + [(vl, 4) for vl in range(1, 8)])
                self.assertEqual(r.vlarb(sw, 0)["high"][0], (0, 4))  # enhanced port 0
                self.assertEqual(list(r.sl2vl(0, 0, 1)), list(range(8)) * 2)
                ca = next(i for i in range(t.node_count) if t.node_info(i).type == ibroute.NodeType.CA)
                self.assertEqual(list(r.endport_sl2vl(ca, 1)), list(range(8)) * 2)
                self.assertIn("# VLArbitration tables: CA ", r.write_vlarb())
            q = ibroute.QosConfig(qos_sl2vl=[0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7])
            with q, t.route("dfsssp,no_fallback", qos=q) as r:
                h = r.sl_hazards()
                self.assertTrue(h)
                self.assertEqual((h[0]["sl_a"], h[0]["sl_b"], h[0]["vl"]), (0, 1, 0))
                self.assertGreater(h[0]["count"], 0)
                self.assertFalse(h[0]["masked"])


    def test_levels(self):
        """Two QoS levels over lash's layers: level 1 is every path SL one
        stride up, on VLs of its own, weighted 96:32 in the low tables."""
        with ibroute.Fabric.from_spec("torus:dims=4x3x3,hosts=1") as f, f.freeze() as t:
            conf = "ibr_qos_levels 2\nibr_qos_level_weights 96,32\n"
            with ibroute.QosConfig(conf) as q, t.route("lash,no_fallback", qos=q) as r:
                self.assertEqual(r.qos_levels, 2)
                k = r.path_sl_level(1, 40, 50) - r.path_sl_level(0, 40, 50)
                self.assertGreaterEqual(k, 1)
                self.assertEqual(r.vls_used, 2 * k)
                self.assertTrue(r.verify().deadlock_free)
                self.assertEqual(r.sl_hazards(), [])
                low = r.vlarb(t.switch_node(0), 1)["low"]
                self.assertEqual(low[:2 * k], [(vl, 96 if vl < k else 32) for vl in range(2 * k)])
                with self.assertRaises(ValueError):
                    r.path_sl_level(2, 40, 50)
                # the analysis gives each level's VL usage, level 1 on
                # level 0's VLs shifted by k
                with r.analyze(patterns=ibroute.Pattern.ALL_TO_ALL) as a:
                    self.assertEqual(a.qos_levels, 2)
                    v0, v1 = a.vl_usage_level(0), a.vl_usage_level(1)
                    self.assertEqual(v0, a.vl_usage())
                    self.assertGreater(sum(v0), 0)
                    self.assertEqual(v1, [0] * k + v0[:16 - k])
                    self.assertEqual(a.to_dict()["vl_usage_levels"], [v0, v1])
                    with self.assertRaises(ValueError):
                        a.vl_usage_level(2)
                # ibdmchk's path SLs of level 1: level 0's plus k
                p0 = r.write_path_sl().splitlines()
                p1 = r.write_path_sl(1).splitlines()
                self.assertEqual(len(p0), len(p1))
                self.assertEqual([ln.rsplit(" ", 1)[0] for ln in p0],
                                 [ln.rsplit(" ", 1)[0] for ln in p1])
                self.assertEqual([int(ln.rsplit(" ", 1)[1]) + k for ln in p0],
                                 [int(ln.rsplit(" ", 1)[1]) for ln in p1])
                with self.assertRaises(ValueError):
                    r.write_path_sl(2)

    def test_python_engine_owning_sl2vl(self):
        """A Python engine with EngineCaps.OWN_SL2VL keeps its end-port and
        switch maps under QoS (masked to 8 VLs); the configured map it
        overrides is a note."""
        ctx = ibroute.Context()

        def own(run):
            run.compute_hops()
            run.ucast("own")
            topo = run.topology
            for n in range(topo.node_count):
                if topo.node_info(n).type != ibroute.NodeType.SWITCH:
                    run.set_endport_sl2vl(n, 1, [9] * 16)
            run.set_sl2vl(0, 1, 2, [3] * 16)

        ctx.register_engine("own", own, "minhop owning SL2VL",
                            caps=ibroute.EngineCaps.OWN_SL2VL)
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4", context=ctx) as f, \
                f.freeze() as t, ibroute.QosConfig(qos_ca_sl2vl="1") as q, \
                t.route("own,no_fallback", qos=q) as r:
            ca = next(i for i in range(t.node_count)
                      if t.node_info(i).type == ibroute.NodeType.CA)
            self.assertEqual(list(r.endport_sl2vl(ca, 1)), [1] * 16)  # VL 9 masked to 8 VLs
            self.assertEqual(list(r.sl2vl(0, 1, 2)), [3] * 16)
            self.assertEqual(r.qos_notes(),
                             ["own overrides the configured qos_ca_sl2vl (it programs its "
                              "own SL2VL maps)"])
            # an end port of a switch is no end port
            sw = t.switch_node(0)
            with self.assertRaises(ibroute.InvalidArgumentError):
                r.endport_sl2vl(sw, 1)


if __name__ == "__main__":
    unittest.main()
