#!/usr/bin/env python3
"""Compare ibroute's minhop with OpenSM's on one generated fabric.

  compare_minhop.py --ibr PATH --spec SPEC --workdir DIR [--faults L[,S]]
                    [--seed N] [--lmc N] [--ibdmchk]

1. `ibr gen SPEC` writes the topology (down links removed: ibsim cannot
   represent them);
2. OpenSM minhop routes it under ibsim (run_opensm.py);
3. `ibr route -R minhop --guid2lid <OpenSM's guid2lid>` routes it with the
   same LIDs;
4. `ibr verify --json` measures both LFT dumps.

Fails (exit 1) unless both are valid, ibroute's routes are minimal and
ibroute's busiest link carries no more routes than OpenSM's. Reports (but
does not fail on) LFT entries that differ. With --ibdmchk, also runs
ibdmchk on both sets of dumps and fails if it finds a problem in ibroute's
dumps that it does not find in OpenSM's. Exit 77 when OpenSM/ibsim (or,
with --ibdmchk, ibdmchk) are not installed.
"""

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_common import (SKIP, Fail, check_pairs_and_load, generate, ibdmchk,  # noqa: E402
                            lft_diff, main_exit, opensm, opensm_run, print_times, run,
                            verdict, verify_both, workdirs, write_summary)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec

    if args.ibdmchk and not shutil.which("ibdmchk"):
        print("SKIP: ibdmchk not installed")
        return SKIP
    ibr, work, topo, osm_dir, ibr_dir = workdirs(args)
    summary = {"name": name, "spec": args.spec, "faults": args.faults, "lmc": args.lmc}

    try:
        summary["pruned_nodes"] = generate(ibr, args.spec, work, topo, args.faults, args.seed)

        harness = ["--timeout", str(args.timeout)]
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        opensm(harness, topo, "minhop", osm_dir, ok=(0,))
        g2l = os.path.join(osm_dir, "guid2lid")
        summary["opensm_routing_time_s"] = opensm_run(osm_dir).get("routing_time_s")

        p = run([ibr, "route", "--all-dumps", "-R", "minhop", "--no-progress", "--json", "--guid2lid", g2l,
                 topo, "-o", ibr_dir], "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        if route.get("engine") != "minhop":
            raise Fail("ibroute routed with %r, not minhop: %s" % (route.get("engine"),
                                                                   route.get("error")))

        v_osm, v_ibr = verify_both(ibr, topo, osm_dir, ibr_dir, g2l, summary)

        d = lft_diff(osm_dir, ibr_dir)
        summary["lft_diff"] = d

        problems = []
        if not v_osm.get("valid"):
            problems.append("OpenSM's LFTs are invalid by ibr verify: %s"
                            % v_osm.get("first_error"))
        if not v_ibr.get("valid"):
            problems.append("ibroute's LFTs are invalid: %s" % v_ibr.get("first_error"))
        if v_ibr.get("nonminimal", 1) != 0 or (v_ibr.get("pairs") and
                                              v_ibr.get("max_stretch", 2) > 1.0 + 1e-9):
            problems.append("ibroute's routes are not minimal: %s non-minimal switch routes, "
                            "max stretch %s" % (v_ibr.get("nonminimal"),
                                                v_ibr.get("max_stretch")))
        check_pairs_and_load(problems, v_osm, v_ibr)

        if args.ibdmchk:
            empty = os.path.join(work, "empty.mcfdbs")
            open(empty, "w").close()
            chk = {}
            for who, dd in (("opensm", osm_dir), ("ibroute", ibr_dir)):
                mc = os.path.join(dd, "opensm.mcfdbs")
                chk[who] = ibdmchk(dd, os.path.join(dd, "opensm-subnet.lst"),
                                   os.path.join(dd, "opensm.fdbs"),
                                   mc if os.path.exists(mc) else empty, args.lmc)
            summary["ibdmchk"] = chk
            ci, co = chk["ibroute"], chk["opensm"]
            new = [e for e in ci["errors"] if e not in co["errors"]]
            if new:
                problems.append("ibdmchk rejects ibroute's dumps:\n  " + "\n  ".join(new[:10]))
            if co["finished"] and not ci["finished"]:
                problems.append("ibdmchk did not finish its analysis of ibroute's dumps "
                                "(exit %d, see %s)" % (ci["exit"],
                                                       os.path.join(ibr_dir, "ibdmchk.out")))
            if ci["paths"] != co["paths"]:
                problems.append("ibdmchk scanned %s CA-to-CA paths in ibroute's dumps, %s in "
                                "OpenSM's" % (ci["paths"], co["paths"]))
        summary["problems"] = problems
    except Fail as e:
        summary["problems"] = [str(e)]
    finally:
        write_summary(work, summary)

    print("case %s (%s%s%s)" % (name, args.spec,
                                ", faults " + args.faults if args.faults else "",
                                ", LMC %d" % args.lmc if args.lmc else ""))
    if summary.get("pruned_nodes"):
        print("  %d nodes cut off by faults were dropped" % summary["pruned_nodes"])
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s avg_hops=%.3f max_hops=%s nonminimal=%s "
                  "max_link_load=%s mean_link_load=%.2f" % (
                      who, v.get("valid"), v.get("pairs"), v.get("avg_hops") or 0,
                      v.get("max_hops"), v.get("nonminimal"), v.get("max_link_load"),
                      v.get("mean_link_load") or 0))
    d = summary.get("lft_diff")
    if d:
        print("  LFTs: %d of %d entries differ; dumps byte-identical: %s" % (
            d["differ"], d["entries"], "yes" if d["byte_identical"] else "no"))
        for ex in d["examples"]:
            print("    " + ex)
        if d["switches_only_opensm"] or d["switches_only_ibroute"]:
            print("  switches only in OpenSM's dump: %d, only in ibroute's: %d" % (
                d["switches_only_opensm"], d["switches_only_ibroute"]))
    if "ibdmchk" in summary:
        for who, c in summary["ibdmchk"].items():
            print("  ibdmchk %-8s exit=%s errors=%d paths=%s%s" % (
                who, c["exit"], len(c["errors"]), c["paths"],
                " (crashed after finishing its report)"
                if (c["exit"] < 0 or c["exit"] > 128) and c["finished"] else ""))
    print_times(summary)
    return verdict(summary["problems"])


if __name__ == "__main__":
    sys.exit(main_exit(main))
