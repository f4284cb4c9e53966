"""Small points of the Python surface (issue 34): what dir(ibroute) holds,
library_path, write_dump_to with text files, Analysis.summary."""

import io
import os
import subprocess
import sys
import tempfile
import types
import unittest

from _support import BINDINGS

import ibroute
from ibroute import SwitchDump


class TestModule(unittest.TestCase):
    def test_dir_holds_the_api_and_submodules_only(self):
        self.assertNotIn("annotations", dir(ibroute))
        extra = [n for n in dir(ibroute)
                 if not n.startswith("_") and n not in ibroute.__all__
                 and not isinstance(getattr(ibroute, n), types.ModuleType)]
        self.assertEqual(extra, [])
        for name in ibroute.__all__:
            self.assertTrue(hasattr(ibroute, name), name)

    def test_library_path_is_the_loaded_file(self):
        path = ibroute.library_path
        self.assertIsInstance(path, str)
        self.assertTrue(os.path.isabs(path), path)
        self.assertTrue(os.path.isfile(path), path)
        build = os.environ.get("IBROUTE_BUILD_DIR")
        if build and not os.environ.get("IBROUTE_LIBRARY"):
            self.assertTrue(os.path.samefile(path, os.path.join(build, "src",
                                                                "libibroute.so.0")))

    def test_library_path_when_found_by_soname(self):
        # loaded by name through the dynamic linker: still the file's path
        env = dict(os.environ)
        env["IBROUTE_LIBRARY"] = "libibroute.so.0"
        env.pop("IBROUTE_BUILD_DIR", None)
        here = os.path.dirname(ibroute.library_path)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [here] + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
        env["PYTHONPATH"] = os.pathsep.join(
            [BINDINGS] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        out = subprocess.run([sys.executable, "-c", "import ibroute; print(ibroute.library_path)"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = out.stdout.strip()
        self.assertTrue(os.path.isabs(got), got)
        self.assertTrue(os.path.samefile(got, ibroute.library_path))


class TestWriteDumpTo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec("fattree:levels=2,radix=8")
        cls.topo = cls.fabric.freeze()
        cls.result = cls.topo.route("minhop")

    @classmethod
    def tearDownClass(cls):
        for o in (cls.result, cls.topo, cls.fabric):
            o.close()

    def test_text_files_get_the_text(self):
        want = self.result.write_switches(SwitchDump.LFTS)
        buf = io.StringIO()
        self.assertEqual(self.result.write_dump_to(buf, SwitchDump.LFTS, 1000), len(want))
        self.assertEqual(buf.getvalue(), want)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "lfts.dump")
            with open(p, "w", encoding="utf-8") as f:
                self.result.write_dump_to(f, SwitchDump.LFTS)
            with open(p, encoding="utf-8") as f:
                self.assertEqual(f.read(), want)
            with open(p, "wb") as f:
                self.result.write_dump_to(f, SwitchDump.LFTS)
            with open(p, "rb") as f:
                self.assertEqual(f.read(), want.encode())

    def test_what_is_not_a_file_says_so(self):
        with self.assertRaises(TypeError) as cm:
            self.result.write_dump_to(object(), SwitchDump.LFTS)
        self.assertIn("write()", str(cm.exception))

        class StrOnly:
            def write(self, s):
                if not isinstance(s, str):
                    raise TypeError("str expected")

        with self.assertRaises(TypeError) as cm:
            self.result.write_dump_to(StrOnly(), SwitchDump.LFTS)
        self.assertIn("binary mode", str(cm.exception))


class TestAnalysisSummary(unittest.TestCase):
    def test_property_and_call_agree(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f, f.freeze() as t, \
                t.route("minhop") as r, r.analyze(patterns=["shift"]) as a:
            s = a.summary
            self.assertIsInstance(s, ibroute.AnalysisSummary)
            self.assertEqual(a.summary(), s)          # like link_loads()
            self.assertEqual(a.summary().pairs, s.pairs)
            self.assertIs(s(), s)
            self.assertEqual(len(a.link_loads()), s.links)


if __name__ == "__main__":
    unittest.main()
