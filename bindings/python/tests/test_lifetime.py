"""close(), context managers, double close and who keeps whom alive."""

import gc
import unittest
import weakref

from _support import line_fabric

import ibroute


class TestCloseDuringCall(unittest.TestCase):
    """close() from inside a call that uses the object (a progress
    callback, an engine): the call's result keeps what it needs alive."""

    def check_result(self, r):
        self.assertTrue(r.verify().ok)
        self.assertEqual(len(r.sl2vl(0, 1, 2)), 16)
        self.assertTrue(r.write_lfts_dump())
        r.close()

    def test_topology_closed_from_progress(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f:
            t = f.freeze()
            r = t.route("minhop", threads=1, progress=lambda *a: t.close())
            self.assertTrue(t.closed)
            self.check_result(r)
            self.assertIsNone(t._ptr)  # freed with its last dependent

    def test_context_and_topology_closed_from_an_engine(self):
        ctx = ibroute.Context()
        f = ibroute.Fabric.from_spec("fattree:levels=2,radix=4", context=ctx)
        t = f.freeze()
        f.close()

        def closer(run):
            t.close()
            ctx.close()
            run.compute_hops()
            run.ucast()

        ctx.register_engine("closer", closer)
        r = t.route("closer,no_fallback")
        self.assertTrue(t.closed and ctx.closed)
        self.check_result(r)
        self.assertIsNone(ctx._ptr)

    def test_result_closed_from_analysis_keeps_it(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f, f.freeze() as t:
            r = t.route("minhop")
            a = r.analyze(patterns=["shift"])
            r.close()
            self.assertGreater(a.summary.pairs, 0)
            a.close()
            self.assertIsNone(r._ptr)


class TestLifetime(unittest.TestCase):
    def test_close_is_idempotent(self):
        f = line_fabric(2)
        t = f.freeze()
        r = t.route()
        for obj in (r, t, f):
            self.assertFalse(obj.closed)
            obj.close()
            self.assertTrue(obj.closed)
            self.assertIsNone(obj._ptr)
            obj.close()  # second close: no-op, no double free
            self.assertIsNone(obj._ptr)

    def test_closed_objects_refuse_calls(self):
        f = line_fabric(2)
        t = f.freeze()
        r = t.route()
        r.close()
        t.close()
        f.close()
        with self.assertRaises(ValueError):
            f.add_switch(0x99, 2)
        with self.assertRaises(ValueError):
            t.route()
        with self.assertRaises(ValueError):
            r.lft(0)
        with self.assertRaises(ValueError):
            r.verify()
        self.assertIn("closed", repr(f))

    def test_context_managers(self):
        with line_fabric(2) as f:
            with f.freeze() as t:
                with t.route() as r:
                    self.assertEqual(r.engine, "minhop")
                self.assertTrue(r.closed)
                self.assertIsNone(r._ptr)
            self.assertIsNone(t._ptr)
        self.assertIsNone(f._ptr)
        # with on a closed object is refused
        with self.assertRaises(ValueError):
            with f:
                pass

    def test_result_keeps_topology_alive(self):
        f = line_fabric(3)
        t = f.freeze()
        r = t.route()
        expected = r.write_lfts_dump()
        t.close()  # the result still needs it
        f.close()
        self.assertTrue(t.closed)
        self.assertIsNotNone(t._ptr)  # C side deferred
        self.assertEqual(r.write_lfts_dump(), expected)
        self.assertTrue(r.verify().ok)
        self.assertEqual(len(r.write_subnet_lst().splitlines()), 2 * 5)
        r.close()
        self.assertIsNone(t._ptr)  # released with its last result

    def test_topology_keeps_context_alive(self):
        ctx = ibroute.Context()
        f = ibroute.Fabric(ctx)
        f.generate("fattree:levels=2,radix=4")
        t = f.freeze()
        ctx.close()
        f.close()
        self.assertIsNotNone(ctx._ptr)  # the topology still uses it
        with t.route() as r:
            self.assertTrue(r.verify().ok)
        self.assertIs(t.context, ctx)
        t.close()
        self.assertIsNone(ctx._ptr)

    def test_lft_view_keeps_result_alive(self):
        with line_fabric(3) as f, f.freeze() as t:
            r = t.route()
            view = r.lft(1)
            copy = r.copy_lft(1)
            r.close()
            self.assertIsNotNone(r._ptr)  # the view still points into it
            self.assertEqual(view, copy)
            sub = view[2:5]
            del view
            gc.collect()
            self.assertIsNotNone(r._ptr)  # the slice too
            self.assertEqual(bytes(sub), copy[2:5])
            del sub
            gc.collect()
            self.assertIsNone(r._ptr)

    def test_garbage_collection_frees_in_order(self):
        f = line_fabric(3)
        t = f.freeze()
        r = t.route()
        view = r.lft(0)
        refs = [weakref.ref(o) for o in (f, t, r)]
        del f, t, r
        gc.collect()
        self.assertIsNone(refs[0]())  # the fabric is independent
        self.assertIsNotNone(refs[1]())  # the result holds the topology
        self.assertIsNotNone(refs[2]())  # the view holds the result
        self.assertEqual(len(view), 13)  # max LID 12
        del view
        gc.collect()
        self.assertTrue(all(ref() is None for ref in refs))

    def test_failed_constructor_paths(self):
        with self.assertRaises(TypeError):
            ibroute.Topology()
        with self.assertRaises(TypeError):
            ibroute.Result()
        with self.assertRaises(TypeError):
            ibroute.Fabric(context="ctx")
        # from_spec closes its fabric when generation fails
        with self.assertRaises(ibroute.InvalidArgumentError):
            ibroute.Fabric.from_spec("nope")

    def test_many_objects(self):
        # no leak or crash creating and dropping many objects
        for i in range(200):
            with line_fabric(2) as f, f.freeze() as t, t.route() as r:
                r.lft(0)
        gc.collect()


class TestContext(unittest.TestCase):
    def test_logging(self):
        seen = []
        ctx = ibroute.Context(log=lambda level, msg: seen.append((level, msg)),
                              log_level=ibroute.LogLevel.INFO)
        with ibroute.Fabric(ctx) as f:
            f.generate("fattree:levels=2,radix=4")
            with f.freeze() as t, t.route():
                pass
        ctx.close()
        self.assertTrue(any("minhop" in m for _, m in seen))
        self.assertTrue(all(isinstance(level, ibroute.LogLevel) for level, _ in seen))

    def test_logging_logger(self):
        import logging

        logger = logging.getLogger("ibroute.test")
        with self.assertLogs(logger, level="INFO") as cm:
            with ibroute.Context(log=logger, log_level="info") as ctx, \
                    ibroute.Fabric(ctx) as f:
                f.generate("fattree:levels=2,radix=4")
                with f.freeze() as t, t.route():
                    pass
        self.assertTrue(any("minhop" in line for line in cm.output))

    def test_last_error(self):
        with ibroute.Context() as ctx:
            self.assertEqual(ctx.last_error, "")
            with self.assertRaises(ibroute.ExistsError):
                ctx.register_engine("minhop", lambda run: None)
            self.assertIn("minhop", ctx.last_error)


if __name__ == "__main__":
    unittest.main()
