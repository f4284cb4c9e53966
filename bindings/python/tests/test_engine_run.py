"""What a Python engine's Run hands out cannot reach the library's memory
after the call (issue 34, item 3), and an engine cannot change the engine
registry under the route running it (item 4)."""

import gc
import os
import subprocess
import sys
import textwrap
import unittest

from _support import BINDINGS

import ibroute
from ibroute import SLMode


def run_script(code):
    """Run *code* in a fresh interpreter with this one's environment (the
    library, PYTHONPATH, and under ASan its runtime)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [BINDINGS] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                          text=True)


class TestRunViews(unittest.TestCase):
    def setUp(self):
        self.ctx = ibroute.Context()
        self.fabric = ibroute.Fabric.from_spec("fattree:levels=2,radix=8", context=self.ctx)
        self.topo = self.fabric.freeze()

    def tearDown(self):
        for o in (self.topo, self.fabric, self.ctx):
            o.close()

    def test_slices_kept_after_the_call_do_not_reach_the_result(self):
        kept = {}

        def eng(run):
            run.compute_hops()
            run.ucast()
            kept["lft"] = run.lft(0)[0:]
            kept["cast"] = run.lft(1).cast("B")
            kept["nested"] = memoryview(run.lft(2))
            kept["hops"] = run.hops()[:]
            run.set_sl_mode(SLMode.PER_DEST)
            kept["sl"] = run.sl_row(0)[1:]

        self.ctx.register_engine("keeper", eng)
        r = self.topo.route("keeper,no_fallback")
        before = [bytes(r.lft(sw)) for sw in range(3)]
        self.assertEqual(bytes(kept["lft"]), before[0])  # what the call left
        # writing through what escaped changes nothing in the result
        kept["lft"][:] = b"\x41" * len(kept["lft"])
        kept["cast"][:] = b"\x42" * len(kept["cast"])
        kept["nested"][:] = b"\x43" * len(kept["nested"])
        kept["hops"][:] = b"\x44" * len(kept["hops"])
        kept["sl"][:] = b"\x07" * len(kept["sl"])
        self.assertEqual([bytes(r.lft(sw)) for sw in range(3)], before)
        self.assertNotEqual(r.hops(0, 1), 0x44)
        self.assertEqual(r.path_sl(0, 2), 0)
        self.assertTrue(r.verify().ok)
        # nor anything once the result is gone
        r.close()
        del r
        gc.collect()
        kept["lft"][0:16] = b"\x41" * 16
        for _ in range(3):
            with self.topo.route("minhop") as r2:
                self.assertTrue(r2.verify().ok)

    def test_the_repro_survives(self):
        # ../shared/repro/python-engine-view-escapes.py: segfaulted before
        out = run_script("""
            import gc
            import ibroute
            ctx = ibroute.Context()
            kept = []
            def eng(run):
                run.compute_hops(); run.ucast()
                kept.append(run.lft(0)[0:])
            ctx.register_engine("pyeng", eng)
            f = ibroute.Fabric.from_spec("fattree:levels=3,radix=16", context=ctx)
            t = f.freeze()
            r = t.route("pyeng,no_fallback")
            r.close(); del r; gc.collect()
            print("before:", bytes(kept[0])[:16].hex(), flush=True)
            kept[0][0:16] = b"\\x41" * 16
            for i in range(5):
                r2 = t.route("minhop"); assert r2.verify().ok; r2.close()
            print("survived")
        """)
        self.assertEqual(out.returncode, 0, out.stdout[-2000:])
        self.assertIn("survived", out.stdout)

    def test_views_follow_the_library_during_the_call(self):
        seen = {}

        def eng(run):
            lft0 = run.lft(0)           # taken before the library writes
            hops = run.hops()
            self.assertEqual(set(lft0), {ibroute.NO_ROUTE})
            run.compute_hops()
            seen["hop01"] = hops[1]     # the library's distances show at once
            run.set_hops(0, 1, 300)     # stored as 255, in the view too
            seen["set"] = hops[1]
            run.compute_hops()
            run.ucast()
            seen["ucast"] = bytes(lft0)
            lid = run.topology.port_info(run.topology.switch_count, 1).lid
            lft0[lid] = 0               # written after ucast: reaches the result
            seen["lid"] = lid
            self.assertEqual(run.find_credit_loop(), [])

        self.ctx.register_engine("follow", eng)
        with self.topo.route("follow,no_fallback") as r, self.topo.route("minhop") as ref:
            self.assertEqual(seen["hop01"], ref.hops(0, 1))
            self.assertEqual(seen["set"], 255)
            self.assertEqual(seen["ucast"], bytes(ref.lft(0)))
            self.assertEqual(r.lft_port(0, seen["lid"]), 0)
            for sw in range(1, self.topo.switch_count):
                self.assertEqual(r.lft(sw), ref.lft(sw))

    def test_sl_rows_end_with_their_mode(self):
        seen = {}

        def eng(run):
            run.compute_hops()
            run.ucast()
            row = run.sl_row  # per-destination first
            run.set_sl_mode("per_dest")
            dest = row(0)
            dest[5] = 3
            run.set_dest_sl(6, 2)
            seen["dest6"] = dest[6]   # set_dest_sl shows in the row
            kept = dest[0:]
            lid = run.topology.port_info(run.topology.switch_count, 1).lid
            run.set_path_sl(lid, 7, 4)  # switches to per-pair: the row ends
            with self.assertRaises(ValueError):
                dest[5]
            kept[5] = 9                 # what escaped reaches nothing
            pair = run.sl_row(lid)
            seen["copied"] = (pair[5], pair[6], pair[7])
            pair[8] = 1
            run.set_path_sl(lid, 9, 5)
            seen["pair9"] = pair[9]
            seen["lid"] = lid

        self.ctx.register_engine("sls", eng, caps=ibroute.EngineCaps.SL)
        with self.topo.route("sls,no_fallback") as r:
            lid = seen["lid"]
            self.assertEqual(seen["dest6"], 2)
            self.assertEqual(seen["copied"], (3, 2, 4))
            self.assertEqual(seen["pair9"], 5)
            self.assertEqual(r.sl_mode, SLMode.PER_PAIR)
            self.assertEqual([r.path_sl(lid, d) for d in (5, 6, 7, 8, 9)], [3, 2, 4, 1, 5])

    def test_views_released_when_the_call_returns(self):
        kept = []

        def eng(run):
            run.compute_hops()
            run.ucast()
            kept.extend([run.lft(0), run.hops()])

        self.ctx.register_engine("rel", eng)
        self.topo.route("rel,no_fallback").close()
        for v in kept:
            with self.assertRaises(ValueError):
                v[0]


class TestRunTopology(unittest.TestCase):
    def test_a_nested_result_keeps_the_topology_alive(self):
        ctx = ibroute.Context()
        f = ibroute.Fabric.from_spec("fattree:levels=2,radix=8", context=ctx)
        t = f.freeze()
        f.close()
        kept = []

        def eng(run):
            kept.append(run.topology.route("minhop"))  # outlives the call
            kept.append(run.topology)
            run.compute_hops()
            run.ucast()

        ctx.register_engine("nest", eng)
        t.route("nest,no_fallback").close()
        nested, borrowed = kept
        with self.assertRaises(ValueError):
            borrowed.switch_count  # borrowed for the call only
        t.close()
        ctx.close()
        gc.collect()
        self.assertIsNotNone(t._ptr)  # the nested result still needs it
        self.assertTrue(nested.verify().ok)
        self.assertTrue(nested.write_lfts_dump())
        nested.close()
        del kept[:], borrowed
        gc.collect()
        self.assertIsNone(t._ptr)  # freed with its last dependent


class TestRegisterDuringRoute(unittest.TestCase):
    def test_refused_from_an_engine_and_the_route_completes(self):
        ctx = ibroute.Context()
        errors = []

        def other(run):
            run.compute_hops()
            run.ucast()

        def eng(run):
            for i in range(200):  # enough to move the registry, were it grown
                try:
                    ctx.register_engine(f"late{i}", other)
                except ibroute.StateError as e:
                    errors.append(e)
            run.compute_hops()
            run.ucast()

        ctx.register_engine("pyeng", eng, settings=[ibroute.Setting("level", ibroute.SettingType.INT, 3, 0, 9)])
        count = len(ctx.engines())
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8", context=ctx) as f, \
                f.freeze() as t:
            with t.route("pyeng,no_fallback") as r:
                self.assertEqual(r.engine, "pyeng")
                self.assertTrue(r.verify().ok)
                self.assertEqual(r.settings.get("pyeng.level"), "3")
            self.assertEqual(len(errors), 200)
            self.assertIn("late199", errors[-1].message)
            self.assertIn("while a route runs", errors[-1].message)
            self.assertEqual(len(ctx.engines()), count)

            # uncaught, the refusal fails the engine and the chain falls back
            # (../shared/repro/python-register-during-route.py register)
            def raw(run):
                ctx.register_engine("later", other)

            ctx.register_engine("raw", raw)
            with t.route("raw,minhop") as r:
                self.assertEqual(r.engine, "minhop")
                self.assertEqual(r.attempts[0].status_name, "IBR_ESTATE")
                self.assertIn("later", r.attempts[0].message)
            # after the route, registration works again
            ctx.register_engine("after", other)
            self.assertEqual(len(ctx.engines()), count + 2)
        ctx.close()


if __name__ == "__main__":
    unittest.main()
