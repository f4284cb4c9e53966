#!/usr/bin/env python3
"""One version everywhere: include/ibroute/version.h (from which Meson takes
the project version), the library's ibr_version()/ibr_version_string(),
`ibr --version`, debian/changelog (the packages' version), pyproject.toml
(version taken from Meson), the Python bindings' required version, and the
symbol version nodes of src/ibroute.map (none newer than the version, or the
Debian symbols file would ask for a libibroute0 that does not exist).

Usage: test_versions.py SOURCE_ROOT PROJECT_VERSION IBR LIBRARY
"""

import ctypes
import os
import re
import subprocess
import sys
import unittest

SRC = VERSION = IBR = LIBRARY = None


def read(*parts):
    with open(os.path.join(SRC, *parts)) as f:
        return f.read()


def triple(v):
    return tuple(int(x) for x in v.split("."))


class TestVersions(unittest.TestCase):
    def test_header_is_the_meson_version(self):
        h = read("include", "ibroute", "version.h")
        parts = [re.search(r"#define IBR_VERSION_%s (\d+)" % k, h).group(1)
                 for k in ("MAJOR", "MINOR", "PATCH")]
        self.assertEqual(".".join(parts), VERSION)
        self.assertIn('#define IBR_VERSION_STRING "%s"' % VERSION, h)

    def test_library_reports_it(self):
        lib = ctypes.CDLL(LIBRARY)
        lib.ibr_version_string.restype = ctypes.c_char_p
        self.assertEqual(lib.ibr_version_string().decode(), VERSION)
        major, minor, patch = triple(VERSION)
        self.assertEqual(lib.ibr_version(), major * 10000 + minor * 100 + patch)

    def test_ibr_reports_it(self):
        out = subprocess.run([IBR, "--version"], stdout=subprocess.PIPE, check=True,
                             universal_newlines=True).stdout
        # one line: the command's version, and the library it runs with is
        # the same (ibr adds a 'library X' line when they differ)
        self.assertEqual(out, "ibr (ibroute) %s\n" % VERSION)

    def test_debian_changelog_carries_it(self):
        first = read("debian", "changelog").splitlines()[0]
        m = re.match(r"^ibroute \(([^)]+)\) [\w-]+; urgency=\w+$", first)
        self.assertTrue(m, first)
        upstream = re.sub(r"-[^-]+$", "", m.group(1).split(":")[-1])  # no epoch, no revision
        self.assertEqual(upstream, VERSION,
                         "debian/changelog's newest entry is %s, Meson's version %s: add an "
                         "entry (dch -v %s)" % (m.group(1), VERSION, VERSION))

    def test_pyproject_takes_the_meson_version(self):
        text = read("pyproject.toml")
        self.assertRegex(text, r'(?m)^dynamic = \[[^\]]*"version"')
        self.assertNotRegex(text, r"(?m)^version\s*=")

    def test_bindings_accept_it(self):
        capi = read("bindings", "python", "ibroute", "_capi.py")
        major = int(re.search(r"^BINDINGS_MAJOR = (\d+)", capi, re.M).group(1))
        minor = int(re.search(r"^BINDINGS_MINOR = (\d+)", capi, re.M).group(1))
        self.assertEqual(major, triple(VERSION)[0])
        self.assertLessEqual(minor, triple(VERSION)[1])

    def test_no_symbol_node_newer_than_the_version(self):
        nodes = re.findall(r"^\s*IBROUTE_(\d+)\.(\d+)\s*\{", read("src", "ibroute.map"), re.M)
        self.assertTrue(nodes)
        for n in nodes:
            self.assertLessEqual((int(n[0]), int(n[1])), triple(VERSION)[:2],
                                 "IBROUTE_%s.%s is newer than %s: bump version.h and "
                                 "debian/changelog" % (n[0], n[1], VERSION))


if __name__ == "__main__":
    SRC, VERSION, IBR, LIBRARY = sys.argv[1:5]
    unittest.main(argv=[sys.argv[0], "-v"])
