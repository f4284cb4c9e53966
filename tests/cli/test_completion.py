#!/usr/bin/env python3
"""The bash completion of ibr (src/cli/ibr.bash) against the ibr it
completes: every command `ibr --help` lists, each command's options, engine
names and chains after -R, dump names after --dumps, engine settings after
--param.
Usage: test_completion.py PATH_TO_IBR PATH_TO_IBR_BASH"""

import re
import shutil
import subprocess
import sys
import unittest

IBR = COMPLETION = None


def complete(*words):
    """COMPREPLY for the command line IBR WORDS... (the last word is being
    completed), as bash computes it with the completion script loaded."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _ibr; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    p = subprocess.run(["bash", "-c", script, "bash", COMPLETION, IBR] + list(words),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0 or p.stderr:
        raise AssertionError("completion failed: %s" % p.stderr)
    return [w for w in p.stdout.splitlines() if w]


def ibr(*args):
    return subprocess.run([IBR] + list(args), stdout=subprocess.PIPE,
                          universal_newlines=True, check=True).stdout


class TestCompletion(unittest.TestCase):
    def test_commands_are_those_of_the_usage(self):
        usage = ibr("--help")
        listed = re.findall(r"^  ([a-z]+) ", usage.split("Commands:")[1], re.M)
        self.assertGreaterEqual(len(listed), 8)
        self.assertEqual(sorted(complete("")), sorted(listed + ["--help", "--version"]))
        self.assertEqual(sorted(complete("re")), ["report", "reroute"])
        self.assertEqual(sorted(complete("help", "")), sorted(listed))

    def test_export_formats(self):
        """The formats offered are those ibr export --help lists."""
        listed = re.findall(r"^  ([a-z-]+) +\S", ibr("help", "export").split("FORMAT:")[1]
                            .split("\n\n")[0], re.M)
        self.assertEqual(sorted(complete("export", "")), sorted(listed))
        self.assertEqual(complete("export", "sst-m"), ["sst-macro", "sst-merlin"])

    def test_options_of_each_command(self):
        for cmd in ("gen", "route", "reroute", "verify", "trace", "analyze", "order", "export",
                    "info", "sweep", "report"):
            offered = complete(cmd, "--")
            text = ibr("help", cmd)
            self.assertTrue(offered, cmd)
            for opt in offered:
                self.assertRegex(text, r"(^|[\[ ,|])%s\b" % re.escape(opt), (cmd, opt))
        self.assertEqual(complete("route", "--sca"), ["--scatter"])
        self.assertIn("--faults", complete("gen", "--"))
        self.assertIn("-R", complete("route", "-"))

    def test_engines_and_chains(self):
        engines = re.findall(r"^(\S+)", ibr("engines"), re.M)
        self.assertIn("minhop", engines)
        self.assertEqual(sorted(complete("route", "-R", "")), sorted(engines))
        self.assertEqual(complete("route", "-R", "ftree,up"), ["ftree,updn"])
        self.assertEqual(complete("analyze", "--routing-engine", "mi"), ["minhop"])

    def test_dump_names(self):
        self.assertIn("--dumps", complete("route", "--du"))
        self.assertIn("--all-dumps", complete("route", "--al"))
        self.assertEqual(complete("route", "--dumps", "lid"), ["lid-matrix"])
        self.assertEqual(complete("route", "--dumps", "default,fd"), ["default,fdbs"])
        # every name offered is one ibr route accepts: without -o it gets
        # as far as asking for one (an unknown name stops at the name)
        names = complete("route", "--dumps", "")
        self.assertEqual(len(names), 13)
        for name in names + ["nosuch"]:
            p = subprocess.run([IBR, "route", "--dumps", name, "x"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("unknown dump" if name == "nosuch" else "give -o DIR", p.stderr, name)

    def test_engine_settings(self):
        self.assertEqual(complete("route", "--param", "ftree.max_r"), ["ftree.max_reverse_hops="])
        settings = complete("route", "--param", "")
        self.assertIn("updn.connect_roots=", settings)
        self.assertTrue(all(re.match(r"^[\w-]+\.\w+=$", s) for s in settings), settings)

    def test_topology_argument(self):
        self.assertEqual(complete("route", "g"), ["gen:"])
        self.assertEqual(complete("route", "--lmc", ""), [])


if __name__ == "__main__":
    IBR, COMPLETION = sys.argv[1], sys.argv[2]
    if not shutil.which("bash"):
        print("no bash")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], "-v"])
