"""Routing, results, verification, writers and Python engines."""

import threading
import unittest

from _support import line_fabric

import ibroute
from ibroute import EngineCaps, LinkState, SLMode


class RoutedFatTree(unittest.TestCase):
    SPEC = "fattree:levels=2,radix=8"

    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec(cls.SPEC)
        cls.topo = cls.fabric.freeze()
        cls.result = cls.topo.route("minhop")

    @classmethod
    def tearDownClass(cls):
        cls.result.close()
        cls.topo.close()
        cls.fabric.close()


class TestResult(RoutedFatTree):
    def test_basic_properties(self):
        r, t = self.result, self.topo
        self.assertEqual(r.engine, "minhop")
        self.assertEqual(r.status, 0)
        self.assertEqual(r.attempts, [ibroute.Attempt("minhop", 0, "")])
        self.assertTrue(r.attempts[0].ok)
        self.assertEqual(r.lft_size, t.max_lid + 1)
        self.assertEqual(r.switch_count, t.switch_count)
        self.assertIs(r.topology, t)
        self.assertEqual(r.vls_used, 1)
        self.assertEqual(r.sl_mode, SLMode.NONE)
        self.assertFalse(r.has_sl2vl)
        self.assertEqual(r.sl2vl(0, 1, 2), bytes(list(range(15)) + [15]))
        self.assertEqual(r.mcast, {})
        self.assertEqual(r.artifacts, {})
        with self.assertRaises(ibroute.NotFoundError):
            r.artifact("ftree-ca-order")

    def test_lft_memoryview_equals_copy(self):
        r = self.result
        for sw in range(r.switch_count):
            view = r.lft(sw)
            self.assertIsInstance(view, memoryview)
            self.assertEqual(view.format, "B")
            self.assertTrue(view.readonly)
            self.assertEqual(len(view), r.lft_size)
            self.assertEqual(view, r.copy_lft(sw))
            self.assertEqual(bytes(view), r.copy_lft(sw))
            for lid in (1, r.lft_size // 2, r.lft_size - 1):
                self.assertEqual(view[lid], r.lft_port(sw, lid))
        with self.assertRaises(TypeError):
            r.lft(0)[1] = 3  # read-only
        with self.assertRaises(ibroute.NotFoundError):
            r.lft(r.switch_count)

    def test_lft_is_a_view_not_a_copy(self):
        # Two views of the same switch share the result's memory.
        import ctypes

        a, b = self.result.lft(3), self.result.lft(3)
        addr_a = ctypes.addressof(ctypes.c_uint8.from_buffer(a.obj))
        addr_b = ctypes.addressof(ctypes.c_uint8.from_buffer(b.obj))
        self.assertEqual(addr_a, addr_b)

    def test_lft_table_is_one_view(self):
        # The whole table: one 2-D view over the result's memory, row sw
        # being lft(sw) at the same address.
        import ctypes

        r = self.result
        table = r.lft_table
        self.assertEqual(table.shape, (r.switch_count, r.lft_size))
        self.assertTrue(table.readonly)
        self.assertEqual(table.format, "B")
        flat, size = table.tobytes(), r.lft_size
        for sw in range(r.switch_count):
            self.assertEqual(flat[sw * size:(sw + 1) * size], r.copy_lft(sw))
            self.assertEqual(table[sw, size - 1], r.lft_port(sw, size - 1))
        base = ctypes.addressof(ctypes.c_uint8.from_buffer(table.obj))
        row3 = ctypes.addressof(ctypes.c_uint8.from_buffer(r.lft(3).obj))
        self.assertEqual(row3, base + 3 * r.lft_size)
        with self.assertRaises(TypeError):
            table[0, 1] = 3  # read-only

    def test_lft_table_keeps_the_result_alive(self):
        f = ibroute.Fabric.from_spec("fattree:levels=2,radix=4")
        t = f.freeze()
        r = t.route("minhop")
        want = [r.copy_lft(sw) for sw in range(r.switch_count)]
        table = r.lft_table
        r.close()
        t.close()
        f.close()
        flat, size = table.tobytes(), len(want[0])
        self.assertEqual([flat[sw * size:(sw + 1) * size] for sw in range(len(want))], want)
        del table

    def test_switch_dumps_in_parts(self):
        # write_switches / dump_view parts joined equal the whole writers.
        from ibroute import SwitchDump

        r = self.result
        whole = {SwitchDump.LFTS: r.write_lfts_dump(), SwitchDump.IBROUTE: r.write_dump_lfts(),
                 SwitchDump.FDBS: r.write_fdbs(), SwitchDump.LID_MATRIX: r.write_lid_matrix()}
        n = r.switch_count
        for kind, text in whole.items():
            self.assertEqual(r.write_switches(kind), text)
            parts = [r.write_switches(kind, a, min(5, n - a)) for a in range(0, n, 5)]
            self.assertEqual("".join(parts), text)
            view = r.dump_view(kind, 2)
            self.assertIsInstance(view, memoryview)
            self.assertTrue(view.readonly)
            self.assertEqual(bytes(view).decode(), r.write_switches(kind, 2, n - 2))
            self.assertEqual(r.dump_view(kind, n, 0), b"")
        self.assertEqual(r.write_switches(SwitchDump.LFTS, 0, 0), "")
        with self.assertRaises(ibroute.InvalidArgumentError):
            r.write_switches(SwitchDump.LFTS, n, 1)
        with self.assertRaises(ValueError):
            r.write_switches(7)

    def test_write_dump_to_a_file_in_slices(self):
        import io

        from ibroute import SwitchDump

        r = self.result
        for slice_bytes in (1, 1000, 64 << 20):
            out = io.BytesIO()
            n = r.write_dump_to(out, SwitchDump.FDBS, slice_bytes)
            self.assertEqual(out.getvalue().decode(), r.write_fdbs())
            self.assertEqual(n, len(out.getvalue()))

    def test_dump_view_outlives_the_result(self):
        from ibroute import SwitchDump

        f = ibroute.Fabric.from_spec("fattree:levels=2,radix=4")
        t = f.freeze()
        r = t.route("minhop")
        want = r.write_lfts_dump()
        view = r.dump_view(SwitchDump.LFTS)
        r.close()
        t.close()
        f.close()
        self.assertEqual(bytes(view).decode(), want)
        del view

    def test_routes_follow_the_topology(self):
        # Following the LFT from a leaf reaches the destination's switch.
        t, r = self.topo, self.result
        for lid in range(1, t.max_lid + 1):
            node, port = t.lid_owner(lid)
            sw = 0
            for _ in range(8):
                out = r.lft_port(sw, lid)
                self.assertNotEqual(out, ibroute.NO_ROUTE)
                if out == 0:
                    self.assertEqual(t.switch_node(sw), node)
                    break
                remote = t.port_info(t.switch_node(sw), out)
                if remote.remote_node == node:
                    break
                sw = t.node_switch(remote.remote_node)
            else:
                self.fail(f"LID {lid}: no arrival")

    def test_hops_match_topology_distances(self):
        t, r = self.topo, self.result
        self.assertTrue(r.has_hops)
        for a in range(t.switch_count):
            for b in range(t.switch_count):
                self.assertEqual(r.hops(a, b), t.switch_distance(a, b))

    def test_verify(self):
        rep = self.result.verify()
        self.assertIsInstance(rep, ibroute.VerifyReport)
        self.assertTrue(rep.ok)
        self.assertEqual(rep.routes_ok, rep.routes_checked)
        self.assertEqual(rep.routes_checked, 12 * 44)  # switches x LIDs
        self.assertEqual(rep.pairs, 32 * 31 + 32 * 0)  # host pairs
        self.assertEqual(rep.pairs_ok, rep.pairs)
        self.assertEqual(rep.max_hops, 4)
        self.assertEqual(rep.avg_stretch, 1.0)
        self.assertEqual(rep.first_error, "")
        self.assertIs(rep.deadlock_free, True)  # minhop on a fat tree
        self.assertEqual((rep.credit_loop_length, rep.credit_loop), (0, ""))
        self.assertGreaterEqual(rep.load_imbalance, 1.0)

    def test_writers(self):
        r, t = self.result, self.topo
        dump = r.write_lfts_dump()
        self.assertEqual(dump.count("Unicast lids"), t.switch_count)
        self.assertEqual(dump, r.write_lfts_dump())  # deterministic
        diags = r.write_dump_lfts()
        self.assertEqual(diags.count("Unicast lids"), t.switch_count)
        fdbs = r.write_fdbs()
        self.assertEqual(fdbs.count("dump_ucast_routes"), t.switch_count)
        lst = r.write_subnet_lst()
        self.assertEqual(lst, t.write_subnet_lst())
        cabled = sum(2 for _ in t.links())
        self.assertEqual(len(lst.splitlines()), cabled)
        g2l = t.write_guid2lid()
        self.assertEqual(len([l for l in g2l.splitlines() if l.strip()]), t.max_lid)
        self.assertIn("switchguid=", t.write_ibnetdiscover())

    def test_parse_lfts_round_trip(self):
        r, t = self.result, self.topo
        for text in (r.write_lfts_dump(), r.write_dump_lfts()):
            with ibroute.Result.parse_lfts(t, text) as back:
                self.assertEqual(back.engine, "file")
                for sw in range(t.switch_count):
                    self.assertEqual(back.lft(sw), r.lft(sw))
                self.assertTrue(back.verify().ok)
        with self.assertRaises(ibroute.ParseError) as cm:
            t.parse_lfts("Unicast lids [0-3] of switch Lid 1 guid 0x1234 (x):\nnonsense\n")
        self.assertIn("line", cm.exception.message)

    def test_read_lfts_in_pieces(self):
        import io
        import tempfile
        r, t = self.result, self.topo
        text = r.write_lfts_dump()
        for chunk in (1, 7, 4096):
            with ibroute.Result.read_lfts(t, io.BytesIO(text.encode()), chunk=chunk) as back:
                self.assertEqual(back.engine, "file")
                for sw in range(t.switch_count):
                    self.assertEqual(back.lft(sw), r.lft(sw))
        with tempfile.NamedTemporaryFile("w", suffix=".dump") as f:
            f.write(text)
            f.flush()
            with ibroute.Result.read_lfts(t, f.name, chunk=100) as back:
                self.assertEqual([back.lft(s) for s in range(t.switch_count)],
                                 [r.lft(s) for s in range(t.switch_count)])
        bad = b"Unicast lids [0-3] of switch Lid 1 guid 0x1234 (x):\nnonsense\n"
        with self.assertRaises(ibroute.ParseError) as cm:
            ibroute.Result.read_lfts(t, io.BytesIO(bad), chunk=5)
        with self.assertRaises(ibroute.ParseError) as whole:
            ibroute.Result.parse_lfts(t, bad)
        self.assertEqual(cm.exception.message, whole.exception.message)


class TestOptions(RoutedFatTree):
    def lfts(self, **kw):
        with self.topo.route("minhop", **kw) as r:
            return [bytes(r.lft(s)) for s in range(r.switch_count)], r.seed

    def test_unknown_keyword(self):
        with self.assertRaises(TypeError) as cm:
            self.topo.route("minhop", scatter=True)
        self.assertIn("scatter", str(cm.exception))

    def test_invalid_values(self):
        with self.assertRaises(ibroute.InvalidArgumentError) as cm:
            self.topo.route(lmc=9)
        self.assertIn("lmc", cm.exception.message)
        with self.assertRaises(ibroute.InvalidArgumentError) as cm:
            self.topo.route(max_vls=0)
        self.assertIn("max_vls", cm.exception.message)
        with self.assertRaises(ibroute.RangeError):
            self.topo.route(root_guids=[-1])
        with self.assertRaises(TypeError):
            self.topo.route(root_guids=5)
        with self.assertRaises(ibroute.InvalidArgumentError) as cm:
            self.topo.route("minhop,nosuch")
        self.assertIn("nosuch", cm.exception.message)

    def test_seed_scatter_and_shifting(self):
        base, seed0 = self.lfts()
        self.assertEqual(seed0, 0)
        s1, seed = self.lfts(scatter_ports=True, seed=1)
        self.assertEqual(seed, 1)
        self.assertEqual(s1, self.lfts(scatter_ports=True, seed=1)[0])
        self.assertNotEqual(s1, self.lfts(scatter_ports=True, seed=2)[0])
        self.assertNotEqual(s1, base)
        self.assertNotEqual(self.lfts(port_shifting=True)[0], base)
        # None keeps the default
        self.assertEqual(self.lfts(seed=None, lmc=None)[0], base)

    def test_threads_do_not_change_results(self):
        self.assertEqual(self.lfts(threads=1)[0], self.lfts(threads=2)[0])

    def test_list_options_are_accepted(self):
        guids = [self.topo.node_info(n).node_guid for n in self.topo.switches()[-4:]]
        lfts, _ = self.lfts(root_guids=guids, cn_guids=[], io_guids=[],
                            guid_routing_order=[0x0002C90301000001],
                            ignore_ports=[(guids[0], 1)], ids={guids[0]: 7},
                            connect_roots=True, max_reverse_hops=1,
                            port_profile_switch_nodes=True, max_vls=4)
        self.assertEqual(len(lfts), self.topo.switch_count)

    def test_lmc(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f:
            f.assign_lids(lmc=1, reassign=True)
            with f.freeze() as t:
                host = t.switch_count  # first CA
                lid = t.port_info(host, 1).lid
                with t.route(lmc=0) as r0, t.route() as rall:
                    self.assertEqual(r0.lft_port(0, lid + 1), ibroute.NO_ROUTE)
                    self.assertNotEqual(rall.lft_port(0, lid + 1), ibroute.NO_ROUTE)
                    self.assertTrue(rall.verify().ok)

    def test_progress_and_cancel(self):
        seen = []
        with self.topo.route(progress=lambda ph, d, tot: seen.append((ph, d, tot))):
            pass
        self.assertTrue(seen)
        self.assertTrue(all(d <= tot for _, d, tot in seen))
        with self.assertRaises(ibroute.CanceledError) as cm:
            self.topo.route(progress=lambda *a: True)
        self.assertIn("minhop", cm.exception.message)

        class Boom(Exception):
            pass

        def boom(*a):
            raise Boom("from the callback")

        with self.assertRaises(Boom):
            self.topo.route(progress=boom)

    def test_concurrent_routing(self):
        out = [None] * 4

        def work(i):
            with self.topo.route(threads=1) as r:
                out[i] = [bytes(r.lft(s)) for s in range(r.switch_count)]

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertTrue(all(o == out[0] for o in out))


class TestVerifyNumbers(unittest.TestCase):
    def test_line_statistics(self):
        # the hand-computed numbers of tests/test_verify.c
        with line_fabric(3) as f, f.freeze() as t, t.route() as r:
            rep = r.verify()
            self.assertTrue(rep.ok)
            self.assertEqual((rep.routes_checked, rep.routes_ok), (18, 18))
            self.assertEqual((rep.pairs, rep.pairs_ok), (6, 6))
            self.assertAlmostEqual(rep.avg_hops, 20 / 6)
            self.assertEqual(rep.max_hops, 4)
            self.assertAlmostEqual(rep.avg_stretch, 1.0)
            self.assertEqual((rep.links, rep.max_link_load), (4, 2))
            self.assertAlmostEqual(rep.mean_link_load, 2.0)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(rep.status, 0)

    def test_down_link_unreachable(self):
        with line_fabric(3) as f:
            f.set_link_state(0, 1, LinkState.DOWN)
            with f.freeze() as t, t.route() as r:
                rep = r.verify()
                self.assertTrue(rep.ok)
                self.assertGreater(rep.unreachable, 0)
                self.assertEqual(r.lft_port(0, 12), ibroute.NO_ROUTE)


class TestPythonEngines(unittest.TestCase):
    def setUp(self):
        self.ctx = ibroute.Context()
        self.fabric = line_fabric(3, context=self.ctx)
        self.topo = self.fabric.freeze()
        self.ref = self.topo.route("minhop")

    def tearDown(self):
        for o in (self.ref, self.topo, self.fabric, self.ctx):
            o.close()

    def test_copy_engine_and_tables(self):
        ref = self.ref
        kept = []

        def copy(run):
            t = run.topology
            self.assertEqual(run.options["seed"], 9)
            self.assertEqual(run.options["root_guids"], (1 << 56,))
            for sw in range(t.switch_count):
                lft = run.lft(sw)
                self.assertEqual(set(lft), {ibroute.NO_ROUTE})
                lft[:] = ref.lft(sw)
                run.set_hops(sw, sw, 0)
            kept.append(run.lft(0))
            run.set_dest_sl(11, 3)
            run.set_sl2vl(0, 1, 2, [(sl + 1) % 8 for sl in range(16)])
            run.set_vls_used(2)
            run.add_mcast_port(0xC001, 1, 1)  # cleared below
            run.clear_mcast()
            run.add_mcast_port(0xC001, 0, 1)
            run.add_mcast_port(0xC001, 0, 3)
            run.add_mcast_port(0xC001, 2, 2)
            run.add_artifact("order", "a\nb\n")
            run.log("info", "copied")

        self.ctx.register_engine("copy", copy, "copies minhop",
                                 caps=EngineCaps.SL | EngineCaps.SL2VL)
        info = self.ctx.find_engine("copy")
        self.assertEqual((info.name, info.builtin), ("copy", False))
        self.assertEqual(info.caps, EngineCaps.SL | EngineCaps.SL2VL)
        self.assertEqual([e.name for e in self.ctx.engines()][-1], "copy")
        with self.assertRaises(ibroute.NotFoundError):
            ibroute.find_engine("copy")  # not on the default context
        with self.topo.route("copy", seed=9, root_guids=[1 << 56]) as r:
            self.assertEqual(r.engine, "copy")
            for sw in range(3):
                self.assertEqual(r.lft(sw), ref.lft(sw))
            self.assertEqual(r.hops(1, 1), 0)
            self.assertEqual(r.sl_mode, SLMode.PER_DEST)
            self.assertEqual(r.path_sl(10, 11), 3)
            self.assertEqual(r.path_sl(11, 10), 0)
            self.assertTrue(r.has_sl2vl)
            self.assertEqual(r.sl2vl(0, 1, 2)[:3], bytes([1, 2, 3]))
            self.assertEqual(r.vls_used, 2)
            self.assertEqual(r.mcast, {0xC001: {0: (1, 3), 2: (2,)}})
            self.assertIn("0xc001", r.write_mcfdbs().lower())
            self.assertEqual(r.artifacts, {"order": b"a\nb\n"})
            self.assertEqual(r.artifact("order"), b"a\nb\n")
            self.assertTrue(r.verify().ok)
        # the writable view died with the call
        with self.assertRaises(ValueError):
            kept[0][1]
        with self.assertRaises(ibroute.ExistsError):
            self.ctx.register_engine("copy", copy)
        with self.assertRaises(ibroute.InvalidArgumentError) as cm:
            self.ctx.register_engine("bad name", copy)
        self.assertIn("bad name", cm.exception.message)

    def test_broken_tables_are_reported(self):
        ref = self.ref

        def broken(run):
            for sw in range(3):
                run.lft(sw)[:] = ref.lft(sw)
            run.lft(0)[12] = 2  # switch 0 has no cable on port 2

        self.ctx.register_engine("broken", broken)
        with self.topo.route("broken") as r:
            rep = r.verify()
            self.assertFalse(rep.ok)
            self.assertEqual(rep.status, ibroute.RoutesError.default_code)
            self.assertGreaterEqual(rep.bad_port, 1)
            self.assertIn("12", rep.first_error)
            self.assertLess(rep.routes_ok, rep.routes_checked)

    def test_decline_fail_and_fallback(self):
        self.ctx.register_engine("decl", lambda run: (_ for _ in ()).throw(
            ibroute.DeclinedError("not a tree")))

        def nospace(run):
            raise ibroute.NoVLError("needs 9 VLs")

        self.ctx.register_engine("novl", nospace)
        with self.topo.route("decl,novl") as r:
            self.assertEqual(r.engine, "minhop")
            self.assertEqual([(a.engine, a.status_name, a.message) for a in r.attempts],
                             [("decl", "IBR_EDECLINED", "not a tree"),
                              ("novl", "IBR_ENOVL", "needs 9 VLs"),
                              ("minhop", "IBR_OK", "")])
            # the status is a name as well as the code
            first = r.attempts[0]
            self.assertIs(first.status, ibroute.Status.EDECLINED)
            self.assertEqual(first.status, -9)
            self.assertEqual(first.status.name, "EDECLINED")
            self.assertEqual(str(first), "decl: IBR_EDECLINED (not a tree)")
            self.assertEqual(str(r.attempts[2]), "minhop: ok")
        with self.assertRaises(ibroute.UnroutableError) as cm:
            self.topo.route("decl,no_fallback")
        self.assertIn("not a tree", cm.exception.message)
        self.assertEqual(cm.exception.attempts[0].engine, "decl")

    def test_python_exception_is_reraised(self):
        def buggy(run):
            return {}["missing"]

        self.ctx.register_engine("buggy", buggy)
        with self.assertRaises(KeyError):
            self.topo.route("buggy")
        # the next call is not affected
        with self.topo.route("minhop") as r:
            self.assertEqual(r.engine, "minhop")


class TestEngines(unittest.TestCase):
    def test_builtin_minhop(self):
        names = [e.name for e in ibroute.engines()]
        self.assertIn("minhop", names)
        info = ibroute.find_engine("minhop")
        self.assertTrue(info.builtin)
        self.assertIn(EngineCaps.MINIMAL, info.caps)
        with self.assertRaises(ibroute.NotFoundError):
            ibroute.find_engine("nosuch")


if __name__ == "__main__":
    unittest.main()
