"""Credit loops, traces, analysis and the SL/VL/multicast writers."""

import dataclasses
import json
import unittest

from _support import line_fabric

import ibroute
from ibroute import Pattern


class TestTraceAndLoops(unittest.TestCase):
    def test_trace_on_a_line(self):
        with line_fabric(3) as f, f.freeze() as t, t.route() as r:
            tr = r.trace(10, 12)  # host of switch 0 to host of switch 2
            self.assertTrue(tr.ok)
            self.assertEqual(tr.switches, [0, 1, 2])
            self.assertEqual([h.out_port for h in tr.hops], [1, 1, 3])
            self.assertEqual([h.in_port for h in tr.hops], [3, 2, 2])
            self.assertEqual(tr.sl, 0)
            back = r.trace(12, 10)
            self.assertEqual(back.switches, [2, 1, 0])
            with self.assertRaises(ibroute.NotFoundError):
                r.trace(10, 99)

    def test_broken_trace(self):
        with ibroute.Context() as ctx, line_fabric(3, context=ctx) as f, f.freeze() as t:
            ref = t.route()

            def hole(run):
                for sw in range(3):
                    run.lft(sw)[:] = ref.lft(sw)
                run.lft(1)[12] = ibroute.NO_ROUTE

            ctx.register_engine("hole", hole)
            with t.route("hole") as r:
                tr = r.trace(10, 12)
                self.assertFalse(tr.ok)
                self.assertEqual(tr.switches, [0, 1])
                self.assertEqual(tr.hops[-1].out_port, ibroute.NO_ROUTE)
                self.assertIs(tr.reason, ibroute.HopStatus.NO_ROUTE)
                self.assertIs(tr.hops[0].status, ibroute.HopStatus.FORWARDED)
                self.assertFalse(r.verify().ok)
            ref.close()

    def test_trace_reasons(self):
        # switch 1 of a line of 3 gets one broken entry toward host 2
        with ibroute.Context() as ctx, line_fabric(3, context=ctx) as f, f.freeze() as t:
            ref = t.route()
            self.assertIs(ref.trace(10, 12).reason, ibroute.HopStatus.DELIVERED)
            entry = {"port": 0}

            def broken(run):
                for sw in range(3):
                    run.lft(sw)[:] = ref.lft(sw)
                run.lft(1)[12] = entry["port"]

            ctx.register_engine("broken", broken)
            H = ibroute.HopStatus
            cases = [(0, H.NOT_OWNER, 2), (9, H.NO_PORT, 2), (4, H.UNCABLED, 2),
                     (3, H.DEAD_END, 2), (2, H.LOOP, 4)]
            for port, reason, hops in cases:
                entry["port"] = port
                with self.subTest(port=port), t.route("broken,no_fallback") as r:
                    tr = r.trace(10, 12)
                    self.assertFalse(tr.ok)
                    self.assertIs(tr.reason, reason)
                    self.assertEqual(len(tr.hops), hops)
                    self.assertEqual([h.status for h in tr.hops[:-1]],
                                     [H.FORWARDED] * (hops - 1))
            ref.close()


class TestVerify(unittest.TestCase):
    def test_threads_do_not_change_the_report(self):
        with ibroute.Fabric.from_spec("torus:dims=5x5x5,hosts=2") as f, f.freeze() as t, \
                t.route() as r:
            one = r.verify(threads=1)
            for n in (0, 2, 5):
                self.assertEqual(r.verify(threads=n), one)
            with self.assertRaises(ValueError):
                r.verify(threads=-1)

    def test_report_as_json(self):
        with line_fabric(3) as f, f.freeze() as t, t.route() as r:
            rep = r.verify()
            text = rep.write_json()
            self.assertTrue(text.startswith('{"valid": true, "status": "IBR_OK", '))
            self.assertNotIn("\n", text)
            d = rep.to_dict()
            self.assertEqual(d["routes_checked"], rep.routes_checked)
            self.assertEqual(d["pairs_ok"], 6)
            self.assertAlmostEqual(d["avg_hops"], rep.avg_hops)
            self.assertIs(d["deadlock_free"], True)
            self.assertEqual(d["first_error"], "")
            # every field of the report, and valid/status, nothing else
            fields = [fl.name for fl in dataclasses.fields(rep) if fl.name != "status"]
            self.assertEqual(list(d), ["valid", "status"] + fields)

    def test_credit_loop_on_a_ring(self):
        with line_fabric(5, close=True) as f, f.freeze() as t, t.route() as r:
            loop = r.find_credit_loop()
            rep = r.verify()
            self.assertTrue(rep.ok)  # valid tables ...
            self.assertGreater(len(loop), 0)  # ... with a credit loop
            self.assertIs(rep.deadlock_free, False)
            self.assertEqual(rep.credit_loop_length, len(loop))
            self.assertIn("VL 0", rep.credit_loop)
            # consecutive channels are cabled: each leads to the next switch
            for a, b in zip(loop, loop[1:] + loop[:1]):
                peer = t.port_info(t.switch_node(a.sw), a.port)
                self.assertEqual(t.node_switch(peer.remote_node), b.sw)
                self.assertEqual(a.vl, 0)

    def test_no_loop_on_a_tree(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f, f.freeze() as t, \
                t.route() as r:
            self.assertEqual(r.find_credit_loop(), [])


class TestAnalysis(unittest.TestCase):
    def test_line_numbers(self):
        with line_fabric(3) as f, f.freeze() as t, t.route() as r, r.analyze() as a:
            s = a.summary
            self.assertEqual((s.endports, s.pairs, s.pairs_routed), (3, 6, 6))
            self.assertAlmostEqual(s.avg_hops, 20 / 6)
            self.assertEqual(s.max_hops, 4)
            self.assertEqual(s.links, 4)
            self.assertEqual(s.max_link_load, 2)
            self.assertAlmostEqual(s.load_ratio, 1.0)
            self.assertEqual(a.hop_histogram(), [0, 0, 0, 4, 2])
            self.assertEqual(a.link_loads(), [2, 2, 2, 2])
            self.assertEqual(a.vl_usage(), [6] + [0] * 15)
            self.assertIsInstance(s.shift, ibroute.PatternStats)
            self.assertEqual(s.all_to_all.patterns, 1)
            data = json.loads(a.write_json())
            self.assertEqual(a.to_dict(), data)
            self.assertTrue(a.write_text().strip())
            self.assertIs(a.result, r)

    def test_ebb_bound(self):
        # intact 2-level fat tree: ftree's shift reaches the bound, 1
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t, \
                t.route("ftree") as r, r.analyze(n_random=5) as a:
            s = a.summary
            self.assertAlmostEqual(s.shift.ebb_bound, 1.0)
            self.assertAlmostEqual(s.shift.ebb, 1.0)
            self.assertAlmostEqual(s.shift.ebb_vs_bound, 1.0)
            self.assertEqual(a.ebb_bound(Pattern.SHIFT), s.shift.ebb_bound)
            data = a.to_dict()
            for fam in ("all_to_all", "shift", "permutation", "bisection"):
                st = getattr(s, fam)
                self.assertAlmostEqual(data[fam]["ebb_bound"], st.ebb_bound)
                self.assertAlmostEqual(data[fam]["ebb_vs_bound"], st.ebb_vs_bound)
                self.assertLessEqual(st.ebb, st.ebb_bound + 1e-9)
        # degraded: the bound drops below 1, every engine stays under it
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f:
            f.inject_faults(4, 0, seed=3)
            with f.freeze() as t:
                for engine in ("minhop", "updn", "sssp"):
                    with t.route(engine) as r, r.analyze(n_random=5) as a:
                        s = a.summary
                        self.assertLess(s.shift.ebb_bound, 1.0)
                        self.assertLessEqual(s.shift.ebb, s.shift.ebb_bound + 1e-9)
                        self.assertAlmostEqual(s.shift.ebb_vs_bound,
                                               s.shift.ebb / s.shift.ebb_bound)

    def test_options(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t, \
                t.route() as r:
            with r.analyze(patterns=["shift", "permutation"], n_random=5, seed=3,
                           threads=1) as a:
                s = a.summary
                self.assertEqual(s.shift.patterns, 31)  # N - 1 shifts
                self.assertEqual(s.permutation.patterns, 5)
                self.assertEqual(s.bisection.patterns, 0)
                self.assertGreater(s.shift.ebb, 0.0)
                self.assertLessEqual(s.shift.ebb, 1.0)
            with r.analyze(patterns=Pattern.BISECTION, n_random=2) as a:
                self.assertEqual(a.ebb_bound("bisection"), a.summary.bisection.ebb_bound)
                with self.assertRaises(ibroute.NotFoundError):
                    a.ebb_bound(Pattern.SHIFT)
                with self.assertRaises(ibroute.InvalidArgumentError):
                    a.ebb_bound(Pattern.SHIFT | Pattern.BISECTION)
                self.assertEqual(a.summary.bisection.patterns, 2)
                self.assertEqual(a.summary.shift.patterns, 0)
            with self.assertRaises(ValueError):
                r.analyze(patterns=["sideways"])
            with self.assertRaises(TypeError):
                r.analyze(colour=1)

    def test_analysis_keeps_result_alive(self):
        f = line_fabric(3)
        t = f.freeze()
        r = t.route()
        a = r.analyze()
        r.close()
        t.close()
        f.close()
        self.assertIsNotNone(r._ptr)
        self.assertEqual(a.summary.endports, 3)
        a.close()
        self.assertIsNone(r._ptr)
        self.assertIsNone(t._ptr)


class TestVLWriters(unittest.TestCase):
    def test_writers(self):
        with line_fabric(3) as f, f.freeze() as t, t.route() as r:
            lines = r.write_path_sl().splitlines()
            # every host to the two other hosts' LIDs, SL 0
            self.assertEqual(len(lines), 6)
            self.assertIn("0x0000000000001000 12 0", lines)
            self.assertTrue(all(line.endswith(" 0") for line in lines))
            identity = " 0x01 0x23 0x45 0x67 0x89 0xab 0xcd 0xef"
            sl2vl = r.write_sl2vl().splitlines()
            self.assertTrue(sl2vl)
            self.assertTrue(all(line.lower().endswith(identity) for line in sl2vl))
            self.assertIn("0x0200000000000000 1 2" + identity, sl2vl)
            self.assertIn("Switch 0x0100000000000000", r.write_sl2vl_dump())
            self.assertEqual(r.write_mcfdbs().strip(), "")


if __name__ == "__main__":
    unittest.main()
