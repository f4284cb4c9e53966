#!/usr/bin/env python3
"""The `file` engine against OpenSM's, both ways, on one generated fabric.

  compare_file.py --ibr PATH --spec SPEC --engine ENGINE --workdir DIR
                  [--faults L[,S]] [--seed N] [--lmc N]

1. OpenSM (minhop) routes the fabric under ibsim: its LIDs (guid2lid),
   opensm-lfts.dump and opensm-lid-matrix.dump;
2. `ibr route -R ENGINE --guid2lid` routes it with the same LIDs;
3. OpenSM loads ibroute's opensm-lfts.dump through its own file engine
   (`-R file -U`): the tables it programs (its opensm-lfts.dump) must equal
   ibroute's byte for byte;
4. ibroute's file engine loads OpenSM's opensm-lfts.dump
   (`--lfts-file`): its dump must equal OpenSM's byte for byte; and
   OpenSM's opensm-lid-matrix.dump (`--lid-matrix-file`): min-hop port
   selection over OpenSM's hop rows must reproduce OpenSM's minhop tables,
   and ibroute's own lid matrix must equal OpenSM's.

Exit 0 on success, 1 on a difference, 77 when OpenSM/ibsim are missing.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_common import (SKIP, Fail, Skip, diff_lfts, generate, opensm,  # noqa: E402
                            read_lfts, run, verdict, workdirs)


def osm(topo, engine, outdir, lmc, extra=()):
    argv = ["--timeout", "240"]
    if lmc:
        argv += ["--lmc", str(lmc)]
    for a in extra:
        argv.append("--opensm-arg=" + a)
    try:
        opensm(argv, topo, engine, outdir, ok=(0,), failed="OpenSM -R %s failed" % engine)
    except Skip:
        return SKIP
    return 0


def same(a, b, what):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if fa.read() == fb.read():
            print("ok: " + what)
            return None
    d = diff_lfts(read_lfts(a), read_lfts(b))
    return "%s: %s and %s differ (%s)" % (what, a, b, d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--engine", default="updn")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lmc", type=int, default=0)
    args = ap.parse_args()
    ibr, work, topo, _, _ = workdirs(args)
    try:
        generate(ibr, args.spec, work, topo, args.faults, args.seed)

        osm_min = os.path.join(work, "opensm-minhop")
        if osm(topo, "minhop", osm_min, args.lmc) == SKIP:
            print("SKIP: OpenSM/ibsim not installed")
            return SKIP
        g2l = os.path.join(osm_min, "guid2lid")
        ibr_dir = os.path.join(work, "ibroute-" + args.engine)
        run([ibr, "route", "--all-dumps", "-R", args.engine + ",no_fallback", "-q", "--guid2lid", g2l, topo,
             "-o", ibr_dir], "ibr route -R " + args.engine)

        problems = []
        # OpenSM programs ibroute's tables through its file engine
        osm_file = os.path.join(work, "opensm-file")
        osm(topo, "file", osm_file, args.lmc,
            ["-U", os.path.join(ibr_dir, "opensm-lfts.dump")])
        with open(os.path.join(osm_file, "guid2lid"), "rb") as fa, open(g2l, "rb") as fb:
            if fa.read() != fb.read():
                problems.append("OpenSM assigned other LIDs on its second run")
        p = same(os.path.join(ibr_dir, "opensm-lfts.dump"),
                 os.path.join(osm_file, "opensm-lfts.dump"),
                 "OpenSM -R file -U <ibroute's dump> programs ibroute's tables")
        if p:
            problems.append(p)

        # ibroute's file engine reproduces OpenSM's tables
        back = os.path.join(work, "ibroute-file-lfts")
        run([ibr, "route", "--all-dumps", "-R", "file,no_fallback", "-q", "--guid2lid", g2l, "--lfts-file",
             os.path.join(osm_min, "opensm-lfts.dump"), topo, "-o", back],
            "ibr route -R file --lfts-file")
        p = same(os.path.join(osm_min, "opensm-lfts.dump"), os.path.join(back, "opensm-lfts.dump"),
                 "ibr -R file --lfts-file <OpenSM's dump> reproduces OpenSM's tables")
        if p:
            problems.append(p)
        back = os.path.join(work, "ibroute-file-matrix")
        run([ibr, "route", "--all-dumps", "-R", "file,no_fallback", "-q", "--guid2lid", g2l,
             "--lid-matrix-file", os.path.join(osm_min, "opensm-lid-matrix.dump"), topo,
             "-o", back], "ibr route -R file --lid-matrix-file")
        p = same(os.path.join(osm_min, "opensm-lfts.dump"), os.path.join(back, "opensm-lfts.dump"),
                 "ibr -R file --lid-matrix-file <OpenSM's hop rows> reproduces OpenSM's minhop")
        if p:
            problems.append(p)
        mine = os.path.join(work, "ibroute-minhop")
        run([ibr, "route", "--all-dumps", "-R", "minhop", "-q", "--guid2lid", g2l, topo, "-o", mine],
            "ibr route -R minhop")
        if open(os.path.join(mine, "opensm-lid-matrix.dump"), "rb").read() != \
                open(os.path.join(osm_min, "opensm-lid-matrix.dump"), "rb").read():
            problems.append("ibroute's opensm-lid-matrix.dump differs from OpenSM's")
        else:
            print("ok: ibroute's opensm-lid-matrix.dump equals OpenSM's")
        if problems:
            raise Fail("\n".join(problems))
    except Fail as e:
        return verdict([str(e)])
    return verdict([])


if __name__ == "__main__":
    sys.exit(main())
