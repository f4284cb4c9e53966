#!/usr/bin/env python3
"""Compare ibroute's lash with OpenSM's on one generated fabric.

  compare_lash.py --ibr PATH --spec SPEC --workdir DIR [--mesh] [--start-vl K]
                  [--faults L[,S]] [--seed N] [--lmc N] [--ibdmchk]
                  [--expect-opensm-fail]

1. `ibr gen SPEC --remove-down` writes the topology (nodes cut off from the
   SM's host are pruned: compare_common.generate());
2. OpenSM 3.3 routes it with `-R lash -Q` under ibsim (run_opensm.py), with
   --do_mesh_analysis when --mesh is given and --lash_start_vl K; its log
   gives the operational VLs it found ("min operational vl", the lowest
   OperVLs of the ports: ibsim reports 8 data VLs on every port) and the
   layers it needed ("Lanes needed: n"), or its 4D02 shortfall;
3. `ibr route -R lash,no_fallback --guid2lid <OpenSM's guid2lid>
   --max-vls <OpenSM's VLs> --param lash.start_vl=K
   [--param lash.mesh_analysis=1]` routes it with the same LIDs;
4. `ibr verify --json` measures OpenSM's LFT dump (link loads); ibroute's
   routing is measured by `ibr route`'s verification, which sees its path
   SLs and SL2VL tables; with --ibdmchk, ibdmchk also checks ibroute's
   dumps for credit loops over its SLs (-c ibr-paths.psl -d
   ibr-paths.sl2vl, written by `ibr route -o`).

Fails (exit 1) unless: OpenSM's LFTs and ibroute's are valid; ibroute's
routes are minimal and free of credit loops over its SLs (and, with
--ibdmchk, ibdmchk finds no credit loop in them); where OpenSM's lash
routed, ibroute's did too, needs no more layers, and its busiest link
carries no more routes than OpenSM's; where OpenSM ran out of layers,
ibroute routes or fails naming the shortfall. With --expect-opensm-fail,
OpenSM's lash must fail (its layers run out). Exit 77 when OpenSM/ibsim
(or, with --ibdmchk, ibdmchk) are missing.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_common as cm  # noqa: E402

SKIP = 77
RE_OPVL = re.compile(r"min operational vl\((\d+)\) start vl\((\d+)\)")
RE_LANES = re.compile(r"Lanes needed: (\d+)")
RE_SHORT = re.compile(r"Lane requirements \((\d+)\) exceed available lanes \((\d+)\)")
RE_MESH = re.compile(r"osm_do_mesh_analysis: found (.* mesh)")
RE_LAYERS = re.compile(r"^# lash: (\d+) layers needed, (\d+) available, start_vl (\d+), "
                       r"mesh analysis (.*), (\d+) pairs moved")


def opensm_lash_log(path):
    """What OpenSM's lash logged: operational VLs, layers needed, shortfall."""
    out = {"opvl": None, "start_vl": None, "lanes_needed": None, "shortfall": None,
           "mesh": None}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = RE_OPVL.search(line)
                if m:
                    out["opvl"], out["start_vl"] = int(m.group(1)), int(m.group(2))
                m = RE_LANES.search(line)
                if m:
                    out["lanes_needed"] = int(m.group(1))
                m = RE_SHORT.search(line)
                if m:
                    out["shortfall"] = (int(m.group(1)), int(m.group(2)))
                m = RE_MESH.search(line)
                if m:
                    out["mesh"] = m.group(1)
    except OSError:
        pass
    return out


def ibdmchk_sl(outdir):
    """ibdmchk with ibroute's path SLs and SL2VL tables: True (a credit
    loop), False (none), None (no verdict)."""
    exe = shutil.which("ibdmchk")
    mc = os.path.join(outdir, "opensm.mcfdbs")
    if not os.path.exists(mc):
        open(mc, "w").close()
    argv = [exe, "-s", "opensm-subnet.lst", "-f", "opensm.fdbs", "-m", "opensm.mcfdbs",
            "-c", "ibr-paths.psl", "-d", "ibr-paths.sl2vl"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       cwd=outdir, timeout=900)
    with open(os.path.join(outdir, "ibdmchk.out"), "w") as f:
        f.write(p.stdout)
    if "no credit loops found" in p.stdout:
        return False
    if "Found credit loop" in p.stdout or "credit loops in routing" in p.stdout:
        return True
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--mesh", action="store_true", help="do_mesh_analysis on both sides")
    ap.add_argument("--start-vl", type=int, default=0)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--expect-opensm-fail", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec
    if args.ibdmchk and not shutil.which("ibdmchk"):
        print("SKIP: ibdmchk not installed")
        return SKIP

    ibr, work, topo, osm_dir, ibr_dir = cm.workdirs(args)
    summary = {"name": name, "spec": args.spec, "faults": args.faults, "mesh": args.mesh,
               "start_vl": args.start_vl}
    problems = []

    try:
        summary["pruned_nodes"] = cm.generate(ibr, args.spec, work, topo, args.faults, args.seed)

        harness = ["--timeout", str(args.timeout)]
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        if args.mesh:
            harness += ["--opensm-arg=--do_mesh_analysis"]
        if args.start_vl:
            harness += ["--opensm-arg=--lash_start_vl", "--opensm-arg=%d" % args.start_vl]
        cm.opensm(harness, topo, "lash", osm_dir)
        osm_run = cm.opensm_run(osm_dir)
        osm_ok = osm_run.get("engine_used") == "lash"
        summary["opensm_engine_used"] = osm_run.get("engine_used")
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        g2l = os.path.join(osm_dir, "guid2lid")
        log = opensm_lash_log(os.path.join(osm_dir, "opensm.log"))
        summary["opensm_log"] = log
        vls = log["opvl"] or 8

        argv = [ibr, "route", "--all-dumps", "-R", "lash,no_fallback", "--no-progress", "--json",
                "--guid2lid", g2l, topo, "-o", ibr_dir, "--max-vls", str(vls),
                "--param", "lash.start_vl=%d" % args.start_vl]
        if args.mesh:
            argv += ["--param", "lash.mesh_analysis=1"]
        p = cm.run(argv, "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        summary["ibroute_error"] = route.get("error")
        ibr_ok = route.get("engine") == "lash"
        summary["ibroute_vls_used"] = route.get("vls_used")
        layers = None
        lpath = os.path.join(ibr_dir, "lash-layers.txt")
        if ibr_ok and os.path.exists(lpath):
            with open(lpath) as f:
                m = RE_LAYERS.match(f.readline())
            if m:
                layers = int(m.group(1))
                summary["ibroute_mesh"] = m.group(4)
        summary["ibroute_layers"] = layers

        if args.expect_opensm_fail and osm_ok:
            problems.append("OpenSM's lash was expected to run out of layers but routed")
        if osm_ok:
            v_osm = cm.verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
            summary["opensm"] = v_osm
            if not v_osm.get("valid"):
                problems.append("OpenSM's LFTs are invalid by ibr verify: %s"
                                % v_osm.get("first_error"))
        if not ibr_ok:
            err = route.get("error") or ""
            if osm_ok:
                problems.append("OpenSM's lash routed the fabric but ibroute's failed: %s" % err)
            elif not re.search(r"lash needs (more than )?\d+ layers", err):
                problems.append("ibroute's lash failed without naming the layer shortfall: %s"
                                % err)
        else:
            v_ibr = route.get("verify") or {}
            summary["ibroute"] = v_ibr
            if not v_ibr.get("valid"):
                problems.append("ibroute's routing is invalid: %s" % v_ibr.get("first_error"))
            if v_ibr.get("nonminimal", 1) != 0:
                problems.append("ibroute's routes are not minimal: %s non-minimal"
                                % v_ibr.get("nonminimal"))
            if v_ibr.get("deadlock_free") is not True:
                problems.append("ibroute's lash routing has a credit loop through its SLs: %s"
                                % v_ibr.get("credit_loop"))
            if layers is None:
                problems.append("no lash-layers.txt in ibroute's output")
            elif layers + args.start_vl > vls:
                problems.append("ibroute uses %d layers from SL %d, %d VLs available"
                                % (layers, args.start_vl, vls))
            if args.ibdmchk:
                loop = ibdmchk_sl(ibr_dir)
                summary["ibdmchk_credit_loop"] = loop
                if loop is not False:
                    problems.append("ibdmchk -c/-d on ibroute's dumps: %s (see %s)"
                                    % ("a credit loop" if loop else "no verdict",
                                       os.path.join(ibr_dir, "ibdmchk.out")))
            if osm_ok:
                v_osm = summary["opensm"]
                osm_layers = log["lanes_needed"]
                if osm_layers is not None and layers is not None and layers > osm_layers:
                    problems.append("ibroute needs %d layers, OpenSM %d" % (layers, osm_layers))
                cm.check_pairs_and_load(problems, v_osm, v_ibr)
                d = cm.lft_diff(osm_dir, ibr_dir)
                summary["lft_diff"] = d
    except cm.Fail as e:
        problems.append(str(e))
    summary["problems"] = problems
    cm.write_summary(work, summary)

    print("case %s: lash on %s%s%s%s" % (
        name, args.spec, ", faults " + args.faults if args.faults else "",
        ", mesh analysis" if args.mesh else "",
        ", start_vl %d" % args.start_vl if args.start_vl else ""))
    if summary.get("pruned_nodes"):
        print("  %d nodes cut off by faults were dropped" % summary["pruned_nodes"])
    lg = summary.get("opensm_log") or {}
    print("  OpenSM engine used: %s; operational VLs %s; layers: OpenSM %s%s, ibroute %s"
          % (summary.get("opensm_engine_used"), lg.get("opvl"), lg.get("lanes_needed"),
             " (shortfall %s needed, %s available)" % lg["shortfall"]
             if lg.get("shortfall") else "", summary.get("ibroute_layers")))
    if lg.get("mesh") or summary.get("ibroute_mesh"):
        print("  mesh: OpenSM %s; ibroute %s" % (lg.get("mesh"), summary.get("ibroute_mesh")))
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s avg_hops=%.3f nonminimal=%s max_link_load=%s "
                  "mean_link_load=%.2f%s" % (
                      who, v.get("valid"), v.get("pairs"), v.get("avg_hops") or 0,
                      v.get("nonminimal"), v.get("max_link_load"),
                      v.get("mean_link_load") or 0,
                      " deadlock_free=%s" % v.get("deadlock_free") if who == "ibroute" else ""))
    if "ibdmchk_credit_loop" in summary:
        print("  ibdmchk -c/-d on ibroute's dumps: credit loop %s"
              % summary["ibdmchk_credit_loop"])
    if summary.get("ibroute_error"):
        print("  ibroute: %s" % summary["ibroute_error"])
    d = summary.get("lft_diff")
    if d:
        print("  LFTs: %d of %d entries differ" % (d["differ"], d["entries"]))
    cm.print_times(summary)
    return cm.verdict(problems)


if __name__ == "__main__":
    sys.exit(cm.main_exit(main))
