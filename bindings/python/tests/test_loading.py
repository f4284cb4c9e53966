"""Loading the library: environment variables and loud failures."""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

from _support import BINDINGS

import ibroute


def import_with(env_updates):
    env = dict(os.environ)
    env.pop("IBROUTE_LIBRARY", None)
    env.pop("IBROUTE_BUILD_DIR", None)
    env.update(env_updates)
    env["PYTHONPATH"] = BINDINGS
    return subprocess.run([sys.executable, "-c", "import ibroute; print(ibroute.library_path)"],
                          env=env, capture_output=True, text=True)


class TestLoading(unittest.TestCase):
    def test_library_variable(self):
        path = os.path.abspath(ibroute.library_path)
        p = import_with({"IBROUTE_LIBRARY": path})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), path)

    def test_build_dir_variable(self):
        build = os.path.dirname(os.path.dirname(os.path.abspath(ibroute.library_path)))
        p = import_with({"IBROUTE_BUILD_DIR": build})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), os.path.join(build, "src", "libibroute.so.0"))

    def test_missing_library(self):
        p = import_with({"IBROUTE_LIBRARY": "/nonexistent/libibroute.so.0"})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError", p.stderr)
        self.assertIn("/nonexistent/libibroute.so.0", p.stderr)
        p = import_with({"IBROUTE_BUILD_DIR": "/nonexistent-build"})
        self.assertIn("/nonexistent-build/src/libibroute.so.0", p.stderr)

    def fake_library(self, tmp, version):
        cc = shlex.split(os.environ.get("CC", "cc"))
        if not shutil.which(cc[0]):
            self.skipTest("no C compiler")
        src = os.path.join(tmp, "fake.c")
        lib = os.path.join(tmp, f"libfake{version}.so")
        with open(src, "w") as fh:
            fh.write(f"int ibr_version(void);\nint ibr_version(void) {{ return {version}; }}\n"
                     "const char *ibr_strerror(int c);\n"
                     "const char *ibr_strerror(int c) { (void)c; return \"x\"; }\n")
        subprocess.run(cc + ["-shared", "-fPIC", "-o", lib, src], check=True)
        return lib

    def test_missing_symbols_are_listed(self):
        with tempfile.TemporaryDirectory() as tmp:
            lib = self.fake_library(tmp, ibroute._capi.BINDINGS_MINOR * 100)
            p = import_with({"IBROUTE_LIBRARY": lib})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError", p.stderr)
        self.assertIn("lacks", p.stderr)
        self.assertIn("ibr_route", p.stderr)
        self.assertIn("ibr_fabric_create", p.stderr)
        self.assertNotIn("ibr_strerror,", p.stderr)  # present in the fake

    def test_incompatible_versions(self):
        major, minor = ibroute._capi.BINDINGS_MAJOR, ibroute._capi.BINDINGS_MINOR
        bad = [(major + 1) * 10000 + minor * 100]
        if minor > 0:
            bad.append(major * 10000 + (minor - 1) * 100)
        for number in bad:
            with self.subTest(version=number), tempfile.TemporaryDirectory() as tmp:
                lib = self.fake_library(tmp, number)
                p = import_with({"IBROUTE_LIBRARY": lib})
                self.assertNotEqual(p.returncode, 0)
                self.assertIn("ImportError", p.stderr)
                self.assertIn("these bindings need", p.stderr)

    def test_version_queries(self):
        self.assertEqual(ibroute.version_string(), ibroute.__version__)
        major, minor, patch = ibroute._capi.split_version(ibroute.version())
        self.assertEqual(ibroute.__version__, f"{major}.{minor}.{patch}")
        self.assertEqual(ibroute.strerror(-2), "out of memory")
        self.assertEqual(ibroute.status_name(-2), "IBR_ENOMEM")
        self.assertEqual(ibroute.status_name(-999), "IBR_UNKNOWN")


if __name__ == "__main__":
    unittest.main()
