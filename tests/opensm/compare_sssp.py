#!/usr/bin/env python3
"""Compare ibroute's sssp or dfsssp with OpenSM's on one generated fabric.

  compare_sssp.py --ibr PATH --engine sssp|dfsssp --spec SPEC --workdir DIR
                  [--faults L[,S]] [--seed N] [--lmc N] [--max-link-slack F]

1. `ibr gen SPEC --remove-down` writes the topology (nodes cut off from the
   SM's host are pruned: compare_common.generate());
2. OpenSM routes it with ENGINE under ibsim (run_opensm.py; -Q for dfsssp);
   for dfsssp its log gives the VLs available and the VLs (layers) needed;
3. `ibr route -R ENGINE,no_fallback --guid2lid <OpenSM's guid2lid>` routes
   it with the same LIDs (and, for dfsssp, `--max-vls` = the VLs OpenSM
   found available);
4. `ibr verify --json` measures OpenSM's LFT dump; ibroute's own routing is
   measured by `ibr route`'s verification, which sees its SLs and SL2VL
   tables.

Fails (exit 1) unless: OpenSM's LFTs and ibroute's are valid; ibroute's
routes are minimal; ibroute's busiest link carries no more routes than
OpenSM's (times 1 + --max-link-slack, default 0); for dfsssp, ibroute's
routing is free of credit loops through its SLs, needs no more layers
than OpenSM's, and ibroute routes whenever OpenSM's dfsssp did (if
OpenSM ran out of VLs, ibroute may too). Exit 77 when OpenSM/ibsim are
missing.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_common as cm  # noqa: E402

SKIP = 77
RE_AVAIL = re.compile(r"Virtual Lanes available: (\d+)")
RE_NEEDED = re.compile(r"Virtual Lanes needed: (\d+)")
RE_LAYERS = re.compile(r"^# dfsssp: (\d+) layers needed, (\d+) VLs available, (\d+) cycles")


def opensm_vls(logpath):
    """(available, needed) from OpenSM's dfsssp log lines, None when absent."""
    avail = needed = None
    try:
        with open(logpath, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = RE_AVAIL.search(line)
                if m:
                    avail = int(m.group(1))
                m = RE_NEEDED.search(line)
                if m:
                    needed = int(m.group(1))
    except OSError:
        pass
    return avail, needed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--engine", required=True, choices=["sssp", "dfsssp"])
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--max-link-slack", type=float, default=0.0,
                    help="tolerated excess of ibroute's max link load (fraction)")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    eng = args.engine
    name = args.name or args.spec

    ibr, work, topo, osm_dir, ibr_dir = cm.workdirs(args)
    summary = {"name": name, "engine": eng, "spec": args.spec, "faults": args.faults,
               "lmc": args.lmc}
    problems = []

    try:
        summary["pruned_nodes"] = cm.generate(ibr, args.spec, work, topo, args.faults, args.seed)

        harness = ["--timeout", str(args.timeout)]
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        cm.opensm(harness, topo, eng, osm_dir)
        osm_run = cm.opensm_run(osm_dir)
        osm_ok = osm_run.get("engine_used") == eng
        summary["opensm_engine_used"] = osm_run.get("engine_used")
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        g2l = os.path.join(osm_dir, "guid2lid")
        avail, osm_needed = opensm_vls(os.path.join(osm_dir, "opensm.log"))
        summary["opensm_vls_available"] = avail
        summary["opensm_vls_needed"] = osm_needed

        argv = [ibr, "route", "--all-dumps", "-R", eng + ",no_fallback", "--no-progress", "--json",
                "--guid2lid", g2l, topo, "-o", ibr_dir]
        if eng == "dfsssp":
            argv += ["--max-vls", str(avail or 8)]
        p = cm.run(argv, "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        summary["ibroute_status"] = route.get("status")
        summary["ibroute_error"] = route.get("error")
        ibr_ok = route.get("engine") == eng
        summary["ibroute_vls_used"] = route.get("vls_used")
        layers = None
        lpath = os.path.join(ibr_dir, "dfsssp-layers.txt")
        if ibr_ok and eng == "dfsssp" and os.path.exists(lpath):
            with open(lpath) as f:
                m = RE_LAYERS.match(f.readline())
            layers = int(m.group(1)) if m else None
        summary["ibroute_layers_needed"] = layers

        if osm_ok:
            v_osm = cm.verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
            summary["opensm"] = v_osm
            if not v_osm.get("valid"):
                problems.append("OpenSM's LFTs are invalid by ibr verify: %s"
                                % v_osm.get("first_error"))
        if not ibr_ok:
            if osm_ok:
                problems.append("OpenSM's %s routed the fabric but ibroute's failed: %s"
                                % (eng, route.get("error")))
            elif not re.search(r"virtual lanes needed", route.get("error") or ""):
                problems.append("ibroute's %s failed for another reason than VLs: %s"
                                % (eng, route.get("error")))
        else:
            v_ibr = route.get("verify") or {}
            summary["ibroute"] = v_ibr
            if not v_ibr.get("valid"):
                problems.append("ibroute's routing is invalid: %s" % v_ibr.get("first_error"))
            if v_ibr.get("nonminimal", 1) != 0 or (v_ibr.get("pairs") and
                                                  v_ibr.get("max_stretch", 2) > 1.0 + 1e-9):
                problems.append("ibroute's routes are not minimal: %s non-minimal, max "
                                "stretch %s" % (v_ibr.get("nonminimal"),
                                                v_ibr.get("max_stretch")))
            if eng == "dfsssp":
                if v_ibr.get("deadlock_free") is not True:
                    problems.append("ibroute's dfsssp routing has a credit loop through its "
                                    "SLs: %s" % v_ibr.get("credit_loop"))
                if osm_needed is not None and layers is not None and layers > osm_needed:
                    problems.append("ibroute needs %d layers, OpenSM %d" % (layers,
                                                                         osm_needed))
            if osm_ok:
                v_osm = summary["opensm"]
                cm.check_pairs_and_load(problems, v_osm, v_ibr, args.max_link_slack)
                d = cm.lft_diff(osm_dir, ibr_dir)
                summary["lft_diff"] = d
    except cm.Fail as e:
        problems.append(str(e))
    summary["problems"] = problems
    cm.write_summary(work, summary)

    print("case %s: %s on %s%s%s" % (name, eng, args.spec,
                                     ", faults " + args.faults if args.faults else "",
                                     ", LMC %d" % args.lmc if args.lmc else ""))
    if summary.get("pruned_nodes"):
        print("  %d nodes cut off by faults were dropped" % summary["pruned_nodes"])
    print("  OpenSM engine used: %s" % summary.get("opensm_engine_used"))
    if eng == "dfsssp":
        print("  VLs available %s; layers needed: OpenSM %s, ibroute %s; ibroute VLs used %s"
              % (summary.get("opensm_vls_available"), summary.get("opensm_vls_needed"),
                 summary.get("ibroute_layers_needed"), summary.get("ibroute_vls_used")))
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s avg_hops=%.3f nonminimal=%s max_link_load=%s "
                  "mean_link_load=%.2f%s" % (
                      who, v.get("valid"), v.get("pairs"), v.get("avg_hops") or 0,
                      v.get("nonminimal"), v.get("max_link_load"),
                      v.get("mean_link_load") or 0,
                      " deadlock_free=%s" % v.get("deadlock_free") if who == "ibroute" else ""))
    if summary.get("ibroute_error"):
        print("  ibroute: %s" % summary["ibroute_error"])
    d = summary.get("lft_diff")
    if d:
        print("  LFTs: %d of %d entries differ" % (d["differ"], d["entries"]))
    cm.print_times(summary)
    return cm.verdict(problems)


if __name__ == "__main__":
    sys.exit(cm.main_exit(main))
