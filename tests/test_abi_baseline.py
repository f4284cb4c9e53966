#!/usr/bin/env python3
"""abi_baseline.py catches what it must: the build matches the committed
record, and real breaks made from it (a library relinked without one
export, headers with a changed signature, a moved field, a renumbered enum)
fail under the same soname, while additions and a new soname pass.

  test_abi_baseline.py --cc CC --clang CLANG --nm NM --readelf READELF
      --include DIR --map MAP --static LIBIBROUTE_A --baseline RECORD
      --symbols SYMBOLS LIBRARY
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = None


def check(library=None, include=None, baseline=None, symbols=None):
    cmd = [sys.executable, os.path.join(HERE, "abi_baseline.py"), "check",
           "--include", include or ARGS.include, "--clang", ARGS.clang, "--nm", ARGS.nm,
           "--readelf", ARGS.readelf, "--baseline", baseline or ARGS.baseline]
    if symbols:
        cmd += ["--symbols", symbols]
    p = subprocess.run(cmd + [library or ARGS.library], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


class TestAbiBaseline(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="abi-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def relink(self, drop=None, soname="libibroute.so.0"):
        """The library linked again from the static archive, with DROP left
        out of the version script (so no longer exported)."""
        with open(ARGS.map) as f:
            text = f.read()
        if drop:
            text, n = re.subn(r"^\s*%s;\n" % re.escape(drop), "", text, flags=re.M)
            self.assertEqual(n, 1, "%s not in the map" % drop)
        mapfile = os.path.join(self.tmp, "ibroute.map")
        with open(mapfile, "w") as f:
            f.write(text)
        lib = os.path.join(self.tmp, soname)
        subprocess.run(ARGS.cc + ["-shared", "-o", lib, "-Wl,--whole-archive", ARGS.static,
                                  "-Wl,--no-whole-archive", "-Wl,--version-script=" + mapfile,
                                  "-Wl,-soname," + soname], check=True)
        return lib

    def headers(self, path, old, new):
        """A copy of the public headers with OLD replaced by NEW in PATH."""
        inc = os.path.join(self.tmp, "include")
        shutil.copytree(ARGS.include, inc)
        f = os.path.join(inc, "ibroute", path)
        with open(f) as fh:
            text = fh.read()
        self.assertIn(old, text)
        with open(f, "w") as fh:
            fh.write(text.replace(old, new, 1))
        return inc

    def test_build_matches_record(self):
        rc, out = check(symbols=ARGS.symbols)
        self.assertEqual(rc, 0, out)
        self.assertNotIn("FAIL", out)

    def test_relinked_library_unchanged_passes(self):
        rc, out = check(self.relink())
        self.assertEqual(rc, 0, out)

    def test_removed_export_fails(self):
        rc, out = check(self.relink(drop="ibr_fabric_clone"))
        self.assertEqual(rc, 1, out)
        self.assertIn("function ibr_fabric_clone removed", out)
        self.assertEqual(out.count("FAIL:"), 1, out)

    def test_removed_export_with_new_soname_passes(self):
        rc, out = check(self.relink(drop="ibr_fabric_clone", soname="libibroute.so.1"))
        self.assertEqual(rc, 0, out)
        self.assertIn("soname libibroute.so.1 (recorded: libibroute.so.0)", out)

    def test_changed_signature_fails(self):
        inc = self.headers("fabric.h", "IBR_API int ibr_fabric_clone(ibr_fabric **out, const ibr_fabric *f);",
                           "IBR_API int ibr_fabric_clone(ibr_fabric **out, const ibr_fabric *f, int deep);")
        rc, out = check(include=inc)
        self.assertEqual(rc, 1, out)
        self.assertIn("function ibr_fabric_clone changed: IBROUTE_0.1 int (ibr_fabric **, const ibr_fabric *)"
                      " -> IBROUTE_0.1 int (ibr_fabric **, const ibr_fabric *, int)", out)

    def test_changed_field_type_fails(self):
        inc = self.headers("options.h", "    unsigned int lmc;", "    uint64_t lmc;")
        rc, out = check(include=inc)
        self.assertEqual(rc, 1, out)
        self.assertIn("field ibr_options.lmc changed: offset=4 unsigned int -> offset=8 uint64_t", out)
        self.assertIn("field ibr_options.max_vls changed: offset=8 unsigned int -> offset=16", out)

    def test_versioned_struct_may_grow_fixed_may_not(self):
        inc = self.headers("options.h", "} ibr_options;", "    uint64_t added_at_the_end;\n} ibr_options;")
        rc, out = check(include=inc)
        self.assertEqual(rc, 0, out)
        self.assertIn("field ibr_options.added_at_the_end", out)
        self.assertIn("struct ibr_options grew", out)
        self.assertIn("scripts/update-abi.sh", out)
        inc2 = os.path.join(self.tmp, "include2")
        os.rename(os.path.join(self.tmp, "include"), inc2)
        inc = self.headers("options.h", "} ibr_guid_port;", "    uint64_t added_at_the_end;\n} ibr_guid_port;")
        rc, out = check(include=inc)
        self.assertEqual(rc, 1, out)
        self.assertIn("struct ibr_guid_port changed", out)
        self.assertIn("field ibr_guid_port.added_at_the_end added to the fixed-layout struct", out)

    def test_renumbered_enum_fails(self):
        inc = self.headers("common.h", "IBR_LOG_ERROR = 0,", "IBR_LOG_FATAL = 0,\n    IBR_LOG_ERROR = 1,")
        rc, out = check(include=inc)
        self.assertEqual(rc, 1, out)
        self.assertIn("enum IBR_LOG_ERROR changed: 0 -> 1", out)
        self.assertIn("enum IBR_LOG_FATAL 0", out)  # the addition is listed too

    def test_unrecorded_addition_passes_and_names_the_command(self):
        with open(ARGS.baseline) as f:
            lines = [l for l in f if not l.startswith("function ibr_fabric_clone ")]
        base = os.path.join(self.tmp, "old.abi")
        with open(base, "w") as f:
            f.writelines(lines)
        rc, out = check(baseline=base)
        self.assertEqual(rc, 0, out)
        self.assertIn("1 addition(s) not yet recorded", out)
        self.assertIn("function ibr_fabric_clone IBROUTE_0.1", out)
        self.assertIn("scripts/update-abi.sh", out)

    def test_symbols_file_must_list_the_record(self):
        with open(ARGS.symbols) as f:
            lines = [l for l in f if not l.startswith(" ibr_fabric_clone@")]
        sym = os.path.join(self.tmp, "libibroute0.symbols")
        with open(sym, "w") as f:
            f.writelines(lines)
        rc, out = check(symbols=sym)
        self.assertEqual(rc, 1, out)
        self.assertIn("ibr_fabric_clone is recorded in", out)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    for opt in ("clang", "nm", "readelf", "include", "map", "static", "baseline", "symbols"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--cc", required=True, help="the C compiler command (words split by spaces)")
    ap.add_argument("library")
    ARGS, rest = ap.parse_known_args()
    ARGS.cc = shlex.split(ARGS.cc)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
