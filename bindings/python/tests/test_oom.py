"""Allocation failures through a Python allocator: every failure point of a
whole pipeline raises OutOfMemoryError, leaks nothing, and the bindings
free every byte once the objects are closed (or collected)."""

import gc
import threading
import unittest

from _support import line_fabric

import ibroute


class CountingAllocator(ibroute.Allocator):
    """Counts allocations, fails the ones after `fail_after`, tracks what
    is live."""

    def __init__(self, fail_after=None):
        self.fail_after = fail_after
        self.calls = 0
        self.live = set()
        self.lock = threading.Lock()

    def _fail(self):
        self.calls += 1
        return self.fail_after is not None and self.calls > self.fail_after

    def malloc(self, size):
        with self.lock:
            if self._fail():
                return None
            p = super().malloc(size)
            self.live.add(p)
            return p

    def realloc(self, ptr, size):
        with self.lock:
            if self._fail():
                return None
            p = super().realloc(ptr, size)
            if p:
                self.live.discard(ptr)
                self.live.add(p)
            return p

    def free(self, ptr):
        with self.lock:
            self.live.remove(ptr)  # a foreign or double free fails here
            super().free(ptr)


def pipeline(ctx, out):
    with line_fabric(4, close=True, context=ctx) as f:
        f.assign_lids(lmc=1, reassign=True)
        roots = ibroute.parse_guid_list("# roots\n0x0100000000000000\n", context=ctx)
        out["roots"] = roots
        with f.freeze() as t, t.route("updn,no_fallback", threads=1, root_guids=roots) as u:
            out["updn"] = (u.engine, u.artifacts, [bytes(v) for v in u.lfts()])
        with f.freeze() as t, t.route("minhop", threads=1) as r:
            out["dump"] = r.write_lfts_dump()
            out["report"] = r.verify()
            out["loop"] = r.find_credit_loop()
            with r.analyze(n_random=2, threads=1) as a:
                out["ebb"] = a.summary.shift.ebb
            out["text"] = t.write_ibnetdiscover()
            with ibroute.Result.parse_lfts(t, out["dump"]) as back:
                out["same"] = all(back.lft(s) == r.lft(s) for s in range(t.switch_count))


class TestAllocationFailures(unittest.TestCase):
    def test_reference_run_frees_everything(self):
        alloc = CountingAllocator()
        ctx = ibroute.Context(allocator=alloc)
        out = {}
        pipeline(ctx, out)
        self.assertTrue(out["same"])
        self.assertTrue(out["report"].ok)
        self.assertEqual(out["updn"][0], "updn")
        self.assertEqual(out["updn"][1], {"opensm-updn-roots.dump": b"0x100000000000000\n"})
        self.assertTrue(alloc.live)  # the context itself
        ctx.close()
        self.assertEqual(alloc.live, set())
        self.assertGreater(alloc.calls, 20)

    def test_every_failure_point(self):
        ref = {}
        with ibroute.Context(allocator=CountingAllocator()) as ctx:
            pipeline(ctx, ref)
        failures = 0
        n = 0
        while True:
            alloc = CountingAllocator(fail_after=n)
            out = {}
            try:
                ctx = ibroute.Context(allocator=alloc)
            except ibroute.OutOfMemoryError:
                ctx = None
            if ctx is not None:
                try:
                    pipeline(ctx, out)
                except ibroute.OutOfMemoryError as e:
                    self.assertEqual(e.name, "IBR_ENOMEM")
                    failures += 1
                else:
                    # nothing failed any more: same output as without failures
                    self.assertEqual(out["dump"], ref["dump"])
                    self.assertEqual(out["text"], ref["text"])
                    self.assertEqual(out["report"], ref["report"])
                    self.assertEqual(out["loop"], ref["loop"])
                    self.assertEqual(out["roots"], [1 << 56])
                    self.assertEqual(out["updn"], ref["updn"])
                    self.assertTrue(out["same"])
                    ctx.close()
                    self.assertEqual(alloc.live, set(), f"leak when failing after {n}")
                    break
                ctx.close()
            gc.collect()
            self.assertEqual(alloc.live, set(), f"leak when failing allocation {n + 1}")
            n += 1
            self.assertLess(n, 100000)
        self.assertGreater(failures, 20)

    def test_dropped_objects_are_freed_by_gc(self):
        alloc = CountingAllocator()
        ctx = ibroute.Context(allocator=alloc)
        f = line_fabric(3, context=ctx)
        t = f.freeze()
        r = t.route(threads=1)
        view = r.lft(0)
        ctx.close()  # deferred: everything below still uses it
        del f, t, r
        gc.collect()
        self.assertIsNotNone(ctx._ptr)
        self.assertEqual(len(view), 13)
        del view
        gc.collect()
        self.assertIsNone(ctx._ptr)
        self.assertEqual(alloc.live, set())

    def test_bad_allocator(self):
        with self.assertRaises(TypeError):
            ibroute.Context(allocator=object())

    def test_allocator_returning_garbage_is_a_failure(self):
        # anything but a positive int from malloc()/realloc() means "no
        # memory": never a garbage pointer handed to the library
        class Bad(ibroute.Allocator):
            def __init__(self, value):
                self.value = value
                self.armed = False

            def malloc(self, size):
                return self.value if self.armed else super().malloc(size)

            def realloc(self, ptr, size):
                return self.value if self.armed else super().realloc(ptr, size)

        for value in ("x", 1.5, -8, True, 1 << 70, [], b"1234"):
            with self.subTest(value=value):
                alloc = Bad(value)
                with ibroute.Context(allocator=alloc) as ctx:
                    alloc.armed = True
                    with self.assertRaises(ibroute.OutOfMemoryError):
                        ibroute.Fabric.from_spec("fattree:levels=2,radix=4", context=ctx)
                    alloc.armed = False


if __name__ == "__main__":
    unittest.main()
