#!/usr/bin/env python3
"""pip install . as a Python user does it, without network: a virtual
environment (with the system's site-packages, for Debian's python3-mesonpy),
`pip install --no-build-isolation --no-index` of a copy of the source tree,
then the installed package used from elsewhere: it loads the library inside
it (not a build tree's), routes and verifies a fabric, and `python -m
ibroute` runs the ibr command installed beside it.

Usage: test_pip_install.py SOURCE_ROOT PROJECT_VERSION
Exits 77 (skipped) when no Python has both mesonpy and venv with ensurepip.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SRC = VERSION = None
TMP = VENV = None


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("IBROUTE_", "PYTHON")) and k not in ("VIRTUAL_ENV",)}
    env["PIP_NO_CACHE_DIR"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def builder_python():
    """A Python that has mesonpy and can create a venv with pip."""
    for cand in (sys.executable, "/usr/bin/python3"):
        if cand and os.path.exists(cand) and subprocess.run(
                [cand, "-c", "import mesonpy, venv, ensurepip"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return cand
    return None


def setUpModule():
    global TMP, VENV
    py = builder_python()
    if py is None:
        raise unittest.SkipTest("no Python with mesonpy and venv (Debian: python3-mesonpy python3-venv)")
    TMP = tempfile.mkdtemp(prefix="ibroute-pip-")
    src = os.path.join(TMP, "src")
    # a copy, so that meson-python's files stay out of the source tree
    def ignore(d, names):
        top = os.path.samefile(d, SRC)
        return [n for n in names if n in (".git", "__pycache__") or n.startswith(".mesonpy")
                or (top and (n.startswith(("build", "_build")) or n in ("bench", "debian")))]
    shutil.copytree(SRC, src, symlinks=True, ignore=ignore)
    VENV = os.path.join(TMP, "venv")
    subprocess.run([py, "-m", "venv", "--system-site-packages", VENV], check=True, env=clean_env())
    p = subprocess.run([os.path.join(VENV, "bin", "python"), "-m", "pip", "install", "-q",
                        "--no-build-isolation", "--no-index", src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                       env=clean_env(), cwd=TMP)
    if p.returncode != 0:
        raise RuntimeError("pip install failed:\n" + p.stdout)


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


def venv_python(*args, stdin=None):
    return subprocess.run([os.path.join(VENV, "bin", "python")] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=clean_env(), cwd=TMP, input=stdin)


SCRIPT = """
import ibroute, os, sys
print(ibroute.__version__)
print(os.path.realpath(ibroute.library_path))
with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t, \\
        t.route("ftree") as r:
    rep = r.verify()
    print(r.engine, rep.ok, t.switch_count)
"""


class TestPipInstall(unittest.TestCase):
    def test_package_uses_its_own_library(self):
        p = venv_python("-c", SCRIPT)
        self.assertEqual(p.returncode, 0, p.stderr)
        version, lib, routed = p.stdout.splitlines()
        self.assertEqual(version, VERSION)
        site = os.path.realpath(VENV)
        self.assertTrue(lib.startswith(site + os.sep), lib)
        self.assertTrue(lib.endswith(os.path.join("ibroute", "libibroute.so.0")), lib)
        self.assertEqual(routed, "ftree True 12")

    def test_python_m_ibroute_runs_ibr(self):
        p = venv_python("-m", "ibroute", "--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[0], "ibr (ibroute) %s" % VERSION)
        p = venv_python("-m", "ibroute", "route", "-R", "updn", "gen:fattree:levels=2,radix=4")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("engine:       updn", p.stdout)
        p = venv_python("-m", "ibroute", "route", "--no-such-option")
        self.assertEqual(p.returncode, 2)

    def test_ibr_in_the_environment_runs_alone(self):
        ibr = os.path.join(VENV, "bin", "ibr")
        self.assertTrue(os.access(ibr, os.X_OK))
        out = subprocess.run(["ldd", ibr], stdout=subprocess.PIPE, universal_newlines=True).stdout
        self.assertNotIn("libibroute", out)  # linked statically: no rpath games

    def test_without_ibr_says_where_it_is(self):
        p = venv_python("-c", "import sys, ibroute.__main__ as m; m.find_ibr = lambda: None; "
                        "sys.exit(m.main(['--version']))")
        self.assertEqual(p.returncode, 2)
        self.assertIn("ibroute-tools", p.stderr)
        self.assertIn("pip install .", p.stderr)


if __name__ == "__main__":
    SRC, VERSION = sys.argv[1], sys.argv[2]
    if builder_python() is None:
        print("no Python with mesonpy and venv (Debian: python3-mesonpy python3-venv)")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], "-v"])
