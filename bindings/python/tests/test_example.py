"""The worked example, bindings/python/examples/compare_engines.py, runs."""

import os
import subprocess
import sys
import unittest

from _support import BINDINGS, EXAMPLES

SCRIPT = os.path.join(EXAMPLES, "compare_engines.py")


def run(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = BINDINGS + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, SCRIPT, *args], env=env, capture_output=True,
                          text=True, timeout=300)


class TestCompareEngines(unittest.TestCase):
    def table(self, out):
        lines = out.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("chain"))
        rows = []
        for line in lines[start + 2:]:
            if not line.strip():
                break
            rows.append(line)
        return rows

    def test_default_chains(self):
        p = run("--fabric", "fattree:levels=2,radix=8", "--random-patterns", "5")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("12 switches, 32 end ports", p.stdout)
        rows = self.table(p.stdout)
        self.assertEqual(len(rows), 2)
        self.assertTrue(rows[0].startswith("minhop "))
        self.assertTrue(rows[1].startswith("minhop scatter_ports=1 seed=42"))
        for row in rows:
            self.assertIn("992/992", row)  # every pair routed
            self.assertNotIn("BROKEN", row)

    def test_chains_from_argv_and_failures(self):
        p = run("--fabric", "torus:dims=3x3,hosts=1", "--faults", "1", "--random-patterns", "2",
                "minhop port_shifting=1", "no_such_engine")
        self.assertEqual(p.returncode, 1)
        rows = self.table(p.stdout)
        self.assertEqual(len(rows), 2)
        self.assertIn("FAILED", rows[1])
        self.assertIn("unknown engine 'no_such_engine'", p.stdout)
        self.assertIn("1 down", p.stdout)


if __name__ == "__main__":
    unittest.main()
