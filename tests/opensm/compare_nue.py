#!/usr/bin/env python3
"""Compare ibroute's nue with OpenSM's on one generated fabric.

  compare_nue.py --ibr PATH --spec SPEC --vls K --workdir DIR
                 [--faults L[,S]] [--seed N] [--lmc N] [--ibdmchk]

1. `ibr gen SPEC --remove-down` writes the topology (nodes cut off from the
   SM's host are pruned: compare_common.generate());
2. OpenSM routes it with `-R nue -Q --nue_max_num_vls K` under ibsim
   (run_opensm.py; ibsim's ports have 8 operational data VLs);
3. `ibr route -R nue,no_fallback --max-vls K --guid2lid <OpenSM's guid2lid>`
   routes it with the same LIDs;
4. `ibr verify --json` measures OpenSM's LFT dump; ibroute's routing is
   measured by `ibr route`'s verification, which sees its SLs and SL2VL
   tables; with --ibdmchk, ibdmchk checks ibroute's dumps for credit loops
   through its path SLs and SL2VL tables (-c, -d).

Fails (exit 1) unless ibroute's nue routes the fabric, validly, free of
credit loops through its SLs, on at most K VLs, with as many pairs as
OpenSM's, and its busiest link carries no more routes than OpenSM's nue's
(when OpenSM's nue routed; times 1 + --max-link-slack, default 0, which no
case of the suite uses). Prints both stretches. Exit 77 when
OpenSM/ibsim (or, with --ibdmchk, ibdmchk) are missing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_common as cm  # noqa: E402

SKIP = 77


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--vls", type=int, required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--max-link-slack", type=float, default=0.0,
                    help="tolerated excess of ibroute's max link load (fraction; a known gap)")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec
    if args.ibdmchk and not shutil.which("ibdmchk"):
        print("SKIP: ibdmchk not installed")
        return SKIP

    ibr, work, topo, osm_dir, ibr_dir = cm.workdirs(args)
    summary = {"name": name, "spec": args.spec, "faults": args.faults, "lmc": args.lmc,
               "vls": args.vls}
    problems = []
    try:
        summary["pruned_nodes"] = cm.generate(ibr, args.spec, work, topo, args.faults, args.seed)

        harness = ["--timeout", str(args.timeout),
                   "--opensm-arg=--nue_max_num_vls", "--opensm-arg=%d" % args.vls]
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        cm.opensm(harness, topo, "nue", osm_dir)
        osm_run = cm.opensm_run(osm_dir)
        osm_ok = osm_run.get("engine_used") == "nue"
        summary["opensm_engine_used"] = osm_run.get("engine_used")
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        g2l = os.path.join(osm_dir, "guid2lid")

        argv = [ibr, "route", "--all-dumps", "-R", "nue,no_fallback", "--no-progress", "--json",
                "--max-vls", str(args.vls), "--guid2lid", g2l, topo, "-o", ibr_dir]
        p = cm.run(argv, "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        summary["ibroute_error"] = route.get("error")
        summary["ibroute_vls_used"] = route.get("vls_used")
        ibr_ok = route.get("engine") == "nue"
        if osm_ok:
            v_osm = cm.verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
            summary["opensm"] = v_osm
        if not ibr_ok:
            problems.append("ibroute's nue did not route the fabric: %s" % route.get("error"))
        else:
            v = route.get("verify") or {}
            summary["ibroute"] = v
            if not v.get("valid"):
                problems.append("ibroute's routing is invalid: %s" % v.get("first_error"))
            if v.get("deadlock_free") is not True:
                problems.append("ibroute's nue routing has a credit loop through its SLs: %s"
                                % v.get("credit_loop"))
            if not 1 <= (route.get("vls_used") or 0) <= args.vls:
                problems.append("ibroute uses %s VLs, %d given" % (route.get("vls_used"),
                                                                    args.vls))
            if args.ibdmchk:
                mc = os.path.join(ibr_dir, "opensm.mcfdbs")
                if not os.path.exists(mc):
                    open(mc, "w").close()
                argv = [shutil.which("ibdmchk"), "-s", "opensm-subnet.lst", "-f",
                        "opensm.fdbs", "-m", "opensm.mcfdbs"]
                if os.path.exists(os.path.join(ibr_dir, "ibr-paths.psl")):
                    argv += ["-c", "ibr-paths.psl", "-d", "ibr-paths.sl2vl"]
                if args.lmc:
                    argv += ["-l", str(args.lmc)]
                q = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, cwd=ibr_dir, timeout=600)
                with open(os.path.join(ibr_dir, "ibdmchk.out"), "w") as f:
                    f.write(q.stdout)
                summary["ibdmchk_no_loop"] = "no credit loops found" in q.stdout
                if "no credit loops found" not in q.stdout:
                    problems.append("ibdmchk does not find ibroute's nue credit-loop free "
                                    "(see %s)" % os.path.join(ibr_dir, "ibdmchk.out"))
            if osm_ok:
                v_osm = summary["opensm"]
                cm.check_pairs_and_load(problems, v_osm, v, args.max_link_slack)
    except cm.Fail as e:
        problems.append(str(e))
    summary["problems"] = problems
    cm.write_summary(work, summary)

    print("case %s: nue with %d VLs on %s%s%s" % (name, args.vls, args.spec,
                                                 ", faults " + args.faults if args.faults
                                                 else "",
                                                 ", LMC %d" % args.lmc if args.lmc else ""))
    print("  OpenSM engine used: %s; ibroute VLs used %s" % (summary.get("opensm_engine_used"),
                                                            summary.get("ibroute_vls_used")))
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s avg_hops=%.3f max_stretch=%s max_link_load=%s "
                  "mean_link_load=%.2f%s" % (
                      who, v.get("valid"), v.get("pairs"), v.get("avg_hops") or 0,
                      v.get("max_stretch"), v.get("max_link_load"),
                      v.get("mean_link_load") or 0,
                      " deadlock_free=%s" % v.get("deadlock_free") if who == "ibroute" else ""))
    cm.print_times(summary)
    return cm.verdict(problems)


if __name__ == "__main__":
    sys.exit(cm.main_exit(main))
