#!/usr/bin/env python3
"""Compare ibroute's torus-2QoS with OpenSM's on one generated torus or mesh.

  compare_torus2qos.py --ibr PATH --spec SPEC --workdir DIR
                       [--faults L[,S]] [--seed N] [--conf-radix X,Y,Z]
                       [--expect-decline] [--ibdmchk] [--derive]

1. `ibr gen SPEC --remove-down` writes the topology;
2. a torus-2QoS.conf is written from the generator's layout (switch
   (x, y, z) has index x + X*(y + Y*z) and node GUID 0x0002c90202000000 +
   index): the radices, + seed links from switch (0,0,0) and - links for
   radix-4 torus dimensions (--conf-radix overrides the radices, to make a
   configuration that does not match the cabling);
3. OpenSM routes it with `-R torus-2QoS,no_fallback -Q --torus_config FILE`
   under ibsim (run_opensm.py);
4. `ibr route -R torus-2QoS,no_fallback --torus-config FILE --guid2lid
   <OpenSM's guid2lid>` routes it with the same LIDs (--derive: without
   --torus-config, so that ibroute derives the configuration from the
   cabling; its torus-2QoS.conf artefact must then say what FILE says,
   and its LFTs must equal OpenSM's entry for entry).

Fails (exit 1) unless: ibroute routes exactly when OpenSM's torus-2QoS
routes (--expect-decline: both refuse; --expect-opensm-invalid: OpenSM
"routes" with invalid LFTs, ibroute refuses); OpenSM's LFTs and ibroute's are
valid; ibroute's routing is credit-loop free through its SLs and SL2VL
tables; its busiest link carries no more routes than OpenSM's; with
--ibdmchk, ibdmchk finds no credit loop in ibroute's dumps given its path
SLs (-c ibr-paths.psl) and SL2VL tables (-d ibr-paths.sl2vl). Exit 77 when
OpenSM/ibsim are missing.
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
ENG = "torus-2QoS"
GUID0 = 0x0002c90202000000


def parse_spec(spec):
    m = re.match(r"(torus|mesh):dims=([0-9x]+)", spec)
    if not m:
        raise cm.Fail("not a torus or mesh spec: " + spec)
    dims = [int(x) for x in m.group(2).split("x")]
    while len(dims) < 3:
        dims.append(1)
    return m.group(1), dims


def write_conf(path, kind, dims):
    """torus-2QoS.conf for the generator's layout, seeded at (0,0,0)."""
    def guid(c):
        return GUID0 + c[0] + dims[0] * (c[1] + dims[1] * c[2])
    lines = ["%s %d %d %d" % (kind, dims[0], dims[1], dims[2])]
    for d, n in enumerate("xyz"):
        if dims[d] < 2:
            continue
        p = [0, 0, 0]
        p[d] = 1
        lines.append("%sp_link 0x%016x 0x%016x" % (n, guid([0, 0, 0]), guid(p)))
        if dims[d] == 4 and kind == "torus":
            m = [0, 0, 0]
            m[d] = dims[d] - 1
            lines.append("%sm_link 0x%016x 0x%016x" % (n, guid([0, 0, 0]), guid(m)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def check_derived(problems, conf, derived):
    """The derived torus-2QoS.conf says what the written one says (the same
    words, GUIDs compared as numbers, comments aside)."""
    def words(path):
        with open(path) as f:
            return [[int(w, 0) if w.startswith("0x") else w for w in ln.split()]
                    for ln in f if ln.strip() and not ln.startswith("#")]
    if not os.path.exists(derived):
        problems.append("no derived torus-2QoS.conf artefact")
    elif words(derived) != words(conf):
        problems.append("the derived torus-2QoS.conf differs from the generator's layout: %r"
                        % words(derived))


def ibdmchk_loops(outdir, with_sl):
    """ibdmchk's credit-loop verdict on ibroute's dumps in outdir: "none",
    "loop" or "unknown". With with_sl, the path SLs (-c) and SL2VL tables
    (-d) ibr route wrote are given. ibdmchk 1.5.7 crashes after printing its
    verdict, so its exit status is not used."""
    argv = ["ibdmchk", "-s", "opensm-subnet.lst", "-f", "opensm.fdbs", "-m", "opensm.mcfdbs"]
    if with_sl:
        argv += ["-c", "ibr-paths.psl", "-d", "ibr-paths.sl2vl"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       cwd=outdir, timeout=600)
    with open(os.path.join(outdir, "ibdmchk-sl.out" if with_sl else "ibdmchk.out"), "w") as f:
        f.write(p.stdout)
    if "Found credit loop" in p.stdout or "credit loops in routing" in p.stdout:
        return "loop"
    if "no credit loops found" in p.stdout:
        return "none"
    return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--conf-radix", default=None, help="X,Y,Z written in the config")
    ap.add_argument("--expect-decline", action="store_true")
    ap.add_argument("--expect-opensm-invalid", action="store_true",
                    help="OpenSM's torus-2QoS reports success with LFTs that leave "
                    "switches it could not place unrouted; ibroute must decline")
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--derive", action="store_true",
                    help="ibroute gets no torus-2QoS.conf: it derives one from the cabling")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec
    ibr, work, topo, osm_dir, ibr_dir = cm.workdirs(args)
    conf = os.path.join(work, "torus-2QoS.conf")
    summary = {"name": name, "engine": ENG, "spec": args.spec, "faults": args.faults}
    problems = []
    try:
        kind, dims = parse_spec(args.spec)
        cdims = [int(x) for x in args.conf_radix.split(",")] if args.conf_radix else dims
        write_conf(conf, kind, cdims)
        summary["pruned_nodes"] = cm.generate(ibr, args.spec, work, topo, args.faults, args.seed)

        harness = ["--timeout", str(args.timeout), "--qos", "--opensm-arg=--torus_config",
                   "--opensm-arg=" + conf]
        p = cm.opensm(harness, topo, ENG + ",no_fallback", osm_dir, ok=(0, 1, 3))
        osm_run = {}
        if p.returncode != 3:  # 3: OpenSM's torus-2QoS refused (no_fallback)
            osm_run = cm.opensm_run(osm_dir)
        else:
            summary["opensm_refusal"] = [l for l in open(os.path.join(osm_dir, "opensm.log"),
                                                       errors="replace")
                                         if "ERR 4E" in l][:5] if os.path.exists(
                                             os.path.join(osm_dir, "opensm.log")) else []
        osm_ok = osm_run.get("engine_used") == ENG
        summary["opensm_engine_used"] = osm_run.get("engine_used")
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        g2l = os.path.join(osm_dir, "guid2lid")

        argv = [ibr, "route", "--all-dumps", "-R", ENG + ",no_fallback", "--no-progress", "--json",
                "--torus-config", conf, topo, "-o", ibr_dir]
        if args.derive:
            argv.remove("--torus-config")
            argv.remove(conf)
        if os.path.exists(g2l):
            argv[-3:-3] = ["--guid2lid", g2l]
        p = cm.run(argv, "ibr route", ok=(0, 1, 2))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        summary["ibroute_error"] = route.get("error")
        ibr_ok = route.get("engine") == ENG
        summary["ibroute_routed"] = ibr_ok
        if args.expect_opensm_invalid:
            if ibr_ok:
                problems.append("ibroute's torus-2QoS routed; a refusal was expected")
        elif args.expect_decline:
            if osm_ok:
                problems.append("OpenSM's torus-2QoS routed; a refusal was expected")
            if ibr_ok:
                problems.append("ibroute's torus-2QoS routed; a refusal was expected")
        elif osm_ok != ibr_ok:
            problems.append("OpenSM %s, ibroute %s" % ("routed" if osm_ok else "refused",
                                                        "routed" if ibr_ok else
                                                        "refused: %s" % route.get("error")))
        if osm_ok:
            v_osm = cm.verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
            summary["opensm"] = v_osm
            if args.expect_opensm_invalid:
                if v_osm.get("valid"):
                    problems.append("OpenSM's LFTs are valid; invalid ones were expected")
            elif not v_osm.get("valid"):
                problems.append("OpenSM's LFTs are invalid by ibr verify: %s"
                                % v_osm.get("first_error"))
        if ibr_ok:
            v_ibr = route.get("verify") or {}
            summary["ibroute"] = v_ibr
            if not v_ibr.get("valid"):
                problems.append("ibroute's routing is invalid: %s" % v_ibr.get("first_error"))
            if v_ibr.get("deadlock_free") is not True:
                problems.append("ibroute's routing has a credit loop through its SLs: %s"
                                % v_ibr.get("credit_loop"))
            if osm_ok:
                v_osm = summary["opensm"]
                cm.check_pairs_and_load(problems, v_osm, v_ibr)
                d = cm.lft_diff(osm_dir, ibr_dir)
                summary["lft_diff"] = d
                if args.derive and (d["differ"] or d["switches_only_opensm"] or
                                    d["switches_only_ibroute"]):
                    problems.append("derived configuration: %d LFT entries differ from "
                                    "OpenSM's (%s)" % (d["differ"], "; ".join(d["examples"])))
            if args.derive:
                check_derived(problems, conf, os.path.join(ibr_dir, "torus-2QoS.conf"))
            if args.ibdmchk and shutil.which("ibdmchk"):
                with_sl = ibdmchk_loops(ibr_dir, True)
                summary["ibdmchk_with_sls"] = with_sl
                summary["ibdmchk_lfts_only"] = ibdmchk_loops(ibr_dir, False)
                if with_sl != "none":
                    problems.append("ibdmchk -c ibr-paths.psl -d ibr-paths.sl2vl on "
                                    "ibroute's dumps: %s (see ibroute/ibdmchk-sl.out)" % with_sl)
    except cm.Fail as e:
        problems.append(str(e))
    summary["problems"] = problems
    cm.write_summary(work, summary)
    print("case %s: %s on %s%s" % (name, ENG, args.spec,
                                   ", faults " + args.faults if args.faults else ""))
    print("  OpenSM engine used: %s; ibroute routed: %s"
          % (summary.get("opensm_engine_used"), summary.get("ibroute_routed")))
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s avg_hops=%.3f max_link_load=%s mean_link_load=%.2f%s"
                  % (who, v.get("valid"), v.get("pairs"), v.get("avg_hops") or 0,
                     v.get("max_link_load"), v.get("mean_link_load") or 0,
                     " deadlock_free=%s" % v.get("deadlock_free") if who == "ibroute" else ""))
    if "ibdmchk_with_sls" in summary:
        print("  ibdmchk on ibroute's dumps: with path SLs and SL2VL: %s; LFTs alone: %s"
              % (summary["ibdmchk_with_sls"], summary["ibdmchk_lfts_only"]))
    for line in summary.get("opensm_refusal") or []:
        print("  OpenSM: %s" % line.strip()[-160:])
    if summary.get("ibroute_error"):
        print("  ibroute: %s" % summary["ibroute_error"])
    cm.print_times(summary)
    return cm.verdict(problems)


if __name__ == "__main__":
    sys.exit(cm.main_exit(main))
