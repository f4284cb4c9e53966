"""Routing databases: save, parse, compare, reroute; the file engine."""

import unittest

import ibroute
from ibroute import ChangeKind, Invalidates, RerouteMode, _capi


class TestRoutingDb(unittest.TestCase):
    SPEC = "fattree:levels=3,radix=8"

    def setUp(self):
        self.fabric = ibroute.Fabric.from_spec(self.SPEC)
        self.topo = self.fabric.freeze()
        self.result = self.topo.route("minhop")

    def tearDown(self):
        self.result.close()
        self.topo.close()
        self.fabric.close()

    def test_save_parse_reload(self):
        text = self.result.write_db()
        self.assertTrue(text.startswith("ibroute-routing-db 1\n"))
        db = ibroute.RoutingDb.parse(text)
        self.assertEqual(db.engine, "minhop")
        self.assertEqual(db.seed, 0)
        self.assertEqual(db.switch_count, 80)
        self.assertEqual(db.last_error, "")
        self.assertEqual(db.write(), text)
        self.assertEqual(db.compare(self.topo), [])
        r, rep = db.route(self.topo)
        self.assertEqual(rep.mode, RerouteMode.UNCHANGED)
        self.assertEqual(rep.lft_entries_changed, 0)
        self.assertEqual(r.write_lfts_dump(), self.result.write_lfts_dump())
        self.assertIn("RoutingDb", repr(db))
        r.close()
        db.close()

    def test_damaged(self):
        text = self.result.write_db()
        with self.assertRaises(ibroute.ParseError) as cm:
            ibroute.RoutingDb.parse(text[: len(text) // 2])
        self.assertIn("routing database line", str(cm.exception))
        with self.assertRaises(ibroute.ParseError):
            ibroute.RoutingDb.parse("hello\n")
        with self.assertRaises(TypeError):
            ibroute.RoutingDb()

    def test_failure_rerouted(self):
        db = ibroute.RoutingDb.from_result(self.result)
        g = self.fabric.clone()
        g.inject_faults(links=2, switches=0, seed=4)
        t = g.freeze()
        changes = db.compare(t)
        self.assertEqual([c.kind for c in changes], [ChangeKind.MISSING_CABLE] * 2)
        self.assertTrue(all(c.invalidates & Invalidates.PORT_ROUTES for c in changes))
        r, rep = db.route(t)
        self.assertEqual(rep.mode, RerouteMode.INCREMENTAL)
        self.assertEqual(rep.changes, 2)
        v = r.verify()
        self.assertTrue(v.ok)
        self.assertEqual(v.nonminimal, 0)
        full, frep = db.route(t, full=True)
        self.assertEqual(frep.mode, RerouteMode.FULL)
        self.assertTrue(frep.reason)
        self.assertLessEqual(rep.lft_entries_changed, frep.lft_entries_changed)
        for x in (r, full, t, g, db):
            x.close()

    def test_changed_blocks(self):
        """The report's changed 64-LID blocks, their histogram and the
        blocks over the lost cables, recounted from the LFTs of the saved
        and the new routing, for the repair and a full reroute."""
        db = ibroute.RoutingDb.from_result(self.result)
        g = self.fabric.clone()
        g.inject_faults(links=1, switches=0, seed=6)
        t = g.freeze()
        old = self.result.lfts()
        over = None
        for full in (False, True):
            r, rep = db.route(t, full=full)
            per = []
            for sw, now in enumerate(r.lfts()):
                blocks = {lid // 64 for lid in range(1, len(now)) if now[lid] != old[sw][lid]}
                if blocks:
                    per.append(len(blocks))
            self.assertEqual(rep.lft_blocks_changed, sum(per))
            self.assertGreater(rep.lft_blocks_changed, 0)
            self.assertEqual(rep.lft_blocks_max, max(per))
            hist = [0] * len(rep.lft_blocks_hist)
            for n in per:
                hist[min(n.bit_length() - 1, len(hist) - 1)] += 1
            self.assertEqual(list(rep.lft_blocks_hist), hist)
            self.assertEqual(len(hist), _capi.CONSTANTS["IBR_REROUTE_BLOCK_BUCKETS"])
            self.assertEqual(rep.sl2vl_tables_changed, 0)
            self.assertGreater(rep.lft_blocks_over_lost, 0)
            self.assertIn(over, (None, rep.lft_blocks_over_lost))
            over = rep.lft_blocks_over_lost
            r.close()
        for x in (t, g, db):
            x.close()

    def test_engine_declines_no_fallback(self):
        """lash short of VLs after three cables failed: the reroute raises
        UnroutableError naming lash, unless fallback=True, which says that
        minhop routed."""
        spec = "hypercube:dim=5,hosts=1,vls=1"
        with ibroute.Fabric.from_spec(spec) as f, f.freeze() as t0, \
                t0.route("lash,no_fallback") as r0:
            db = ibroute.RoutingDb.from_result(r0)
            f.inject_faults(links=3, switches=0, seed=459894)
            with f.freeze() as t1:
                with self.assertRaises(ibroute.UnroutableError) as cm:
                    db.route(t1)
                self.assertIn("lash", str(cm.exception))
                y, rep = db.route(t1, fallback=True)
                self.assertEqual(rep.engine, "minhop")
                self.assertTrue(rep.fallback)
                self.assertEqual(y.engine, "minhop")
                self.assertEqual(rep.warning, "")
                y.close()
            db.close()

    def test_unrelated_fabric_warned(self):
        db = ibroute.RoutingDb.from_result(self.result)
        with ibroute.Fabric.from_spec("torus:dims=6x6,hosts=2") as g, g.freeze() as t:
            y, rep = db.route(t)
            self.assertIn("most of the fabric changed", rep.warning)
            self.assertFalse(rep.fallback)
            y.close()
        db.close()

    def test_qos_saved(self):
        """A routing saved with QoS levels comes back programmed the same
        way; a configuration given to route() wins over the saved one."""
        with ibroute.Fabric.from_spec("torus:dims=4x4x3,hosts=1") as f, f.freeze() as t, \
                ibroute.QosConfig("ibr_qos_levels 2\nqos_swe_high_limit 6\n") as q, \
                t.route("lash,no_fallback", qos=q) as r:
            db = ibroute.RoutingDb.parse(r.write_db())
            y, rep = db.route(t)
            self.assertEqual(rep.mode, RerouteMode.UNCHANGED)
            self.assertEqual(y.qos_levels, 2)
            self.assertEqual(y.write_sl2vl_dump(), r.write_sl2vl_dump())
            self.assertEqual(y.write_vlarb(), r.write_vlarb())
            self.assertEqual(y.write_path_sl(1), r.write_path_sl(1))
            with ibroute.QosConfig("ibr_qos_levels 2\nqos_sl2vl 0,0,0,0,0,0,0,0\n") as m:
                z, zrep = db.route(t, qos=m)
                self.assertEqual(zrep.mode, RerouteMode.UNCHANGED)
                self.assertTrue(z.sl_hazards())
                z.close()
            for x in (y, db):
                x.close()

    def test_file_engine_and_lid_matrix(self):
        r = self.topo.route("file,no_fallback",
                            params={"file.lfts": self.result.write_lfts_dump()})
        self.assertEqual(r.engine, "file")
        self.assertEqual(r.write_lfts_dump(), self.result.write_lfts_dump())
        mx = self.result.write_lid_matrix()
        self.assertTrue(mx.startswith("Switch: guid 0x"))
        r2 = self.topo.route("file,no_fallback", params={"file.lid_matrix": mx})
        self.assertEqual(r2.write_lfts_dump(), self.result.write_lfts_dump())
        r.close()
        r2.close()


if __name__ == "__main__":
    unittest.main()
