#!/usr/bin/env python3
"""Compare ibroute's dor with OpenSM's on one generated fabric.

  compare_dor.py --ibr PATH --spec SPEC --workdir DIR [--faults L[,S]]
                 [--seed N] [--lmc N] [--search-order reverse] [--port-shifting]
                 (--expect-loop-free | --expect-loop | --expect-same-loops)
                 [--ibdmchk]

1. `ibr gen SPEC` writes the topology (down links removed, nodes cut off
   by faults dropped: what an SM on the first CA discovers);
2. OpenSM 3.3 routes it with `-R dor` under ibsim (run_opensm.py), with
   `-O FILE` when --search-order is given;
3. `ibr route -R dor,no_fallback --guid2lid <OpenSM's guid2lid>` routes it
   with the same LIDs (and `--param-file dor.port_search_ordering=FILE`);
4. `ibr verify --json` measures both LFT dumps.

Fails (exit 1) unless both are valid, ibroute's routes are minimal, the
two opensm-lfts.dump files are byte-identical, and credit loops are as
expected: --expect-loop-free (meshes, hypercubes) wants both routings
loop-free by `ibr verify`; --expect-loop (tori: dor makes no promise) wants
`ibr verify` to find a credit loop in both; --expect-same-loops (fabrics
with faults, where dor promises nothing) wants the same verdict for both.
With --ibdmchk, ibdmchk must agree on both sets of dumps (ibdmchk cannot
analyse LMC > 0 fabrics: it fails on OpenSM's dumps too). --search-order reverse writes a
port_search_ordering file that lists every switch's switch ports highest
first (the dimensions reversed). Exit 77 when OpenSM/ibsim (or, with
--ibdmchk, ibdmchk) are not installed.
"""

import argparse
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_common import (SKIP, Fail, generate, lft_diff, main_exit, opensm,  # noqa: E402
                            opensm_run, print_times, run, verdict, verify_both, workdirs,
                            write_summary)
from compare_updown import credit_loop_ibdmchk  # noqa: E402

NODE_HDR = re.compile(r'^(Switch|Ca|Hca|Rt)\s+\d+\s+"')
GUID_LINE = re.compile(r"^switchguid=(0x[0-9a-fA-F]+)")
CABLED = re.compile(r'^\[(\d+)\]\s+"S-')


def write_reverse_order(netfile, path):
    """A search-order file: for each switch its ports cabled to switches,
    highest port first (a line per switch; the CA ports follow by default)."""
    lines, guid, ports = ["# dimensions reversed: highest switch port first"], None, []
    ports = []

    def flush():
        if guid and ports:
            lines.append("%s %s" % (guid, " ".join(str(p) for p in sorted(ports, reverse=True))))

    with open(netfile, encoding="utf-8") as f:
        for line in f:
            m = GUID_LINE.match(line)
            if m:  # switchguid= comes before its Switch record
                flush()
                guid, ports = m.group(1), []
                continue
            if NODE_HDR.match(line) and not line.startswith("Switch"):
                flush()
                guid, ports = None, []
                continue
            m = CABLED.match(line)
            if m and guid:
                ports.append(int(m.group(1)))
    flush()
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return len(lines) - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--search-order", choices=["reverse"], default=None)
    ap.add_argument("--port-shifting", action="store_true",
                    help="OpenSM's --port-shifting for both")
    ex = ap.add_mutually_exclusive_group(required=True)
    ex.add_argument("--expect-loop-free", action="store_true")
    ex.add_argument("--expect-loop", action="store_true")
    ex.add_argument("--expect-same-loops", action="store_true")
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec

    if args.ibdmchk and not shutil.which("ibdmchk"):
        print("SKIP: ibdmchk not installed")
        return SKIP
    ibr, work, topo, osm_dir, ibr_dir = workdirs(args)
    summary = {"name": name, "spec": args.spec, "faults": args.faults, "lmc": args.lmc,
               "search_order": args.search_order, "port_shifting": args.port_shifting}

    try:
        summary["pruned_nodes"] = generate(ibr, args.spec, work, topo, args.faults, args.seed)

        order_file = None
        if args.search_order:
            order_file = os.path.join(work, "port_search_ordering")
            summary["search_order_lines"] = write_reverse_order(topo, order_file)

        harness = ["--timeout", str(args.timeout)]
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        if order_file:
            harness += ["--opensm-arg=-O", "--opensm-arg=" + order_file]
        if args.port_shifting:
            harness += ["--opensm-arg=--port-shifting"]
        opensm(harness, topo, "dor", osm_dir, ok=(0,))
        g2l = os.path.join(osm_dir, "guid2lid")
        osm_run = opensm_run(osm_dir)
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        summary["opensm_engine"] = osm_run.get("engine_used")
        if osm_run.get("engine_used") != "dor":
            raise Fail("OpenSM routed with %r, not dor" % osm_run.get("engine_used"))

        argv = [ibr, "route", "--all-dumps", "-R", "dor,no_fallback", "--no-progress", "--json",
                "--guid2lid", g2l, topo, "-o", ibr_dir]
        if order_file:
            argv += ["--param-file", "dor.port_search_ordering=" + order_file]
        if args.port_shifting:
            argv += ["--port-shifting"]
        p = run(argv, "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        if route.get("engine") != "dor":
            raise Fail("ibroute routed with %r, not dor: %s" % (route.get("engine"),
                                                                route.get("error")))

        if order_file:
            # the order must matter: without it ibroute's tables differ
            plain_dir = os.path.join(work, "ibroute-default-order")
            run([ibr, "route", "--all-dumps", "-R", "dor,no_fallback", "--no-progress", "--guid2lid", g2l,
                 topo, "-o", plain_dir], "ibr route (default order)", ok=(0, 1))
            with open(os.path.join(plain_dir, "opensm-lfts.dump"), "rb") as fa, \
                    open(os.path.join(ibr_dir, "opensm-lfts.dump"), "rb") as fb:
                if fa.read() == fb.read():
                    raise Fail("the port search order changed nothing in ibroute's tables")

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
        if not d["byte_identical"]:
            problems.append("opensm-lfts.dump differs from OpenSM's (%d of %d entries)"
                            % (d["differ"], d["entries"]))
        if args.expect_same_loops:
            # damaged meshes and tori: dor promises nothing; the verdict
            # must be the same for both (the tables are identical anyway)
            want_free = v_osm.get("deadlock_free")
        else:
            want_free = bool(args.expect_loop_free)
        for who, v in (("OpenSM", v_osm), ("ibroute", v_ibr)):
            if v.get("deadlock_free") is not want_free:
                problems.append("%s's dor routing: ibr verify says deadlock_free=%s, expected %s"
                                % (who, v.get("deadlock_free"), want_free))
        if args.ibdmchk:
            chk = {"opensm": credit_loop_ibdmchk(osm_dir, args.lmc),
                   "ibroute": credit_loop_ibdmchk(ibr_dir, args.lmc)}
            summary["ibdmchk"] = chk
            for who, c in chk.items():
                if c["credit_loop"] is None:
                    problems.append("ibdmchk did not finish on %s's dumps (exit %s)"
                                    % (who, c["exit"]))
                elif c["credit_loop"] is want_free:
                    problems.append("ibdmchk: credit loop in %s's dor routing: %s, expected %s"
                                    % (who, c["credit_loop"], not want_free))
            if chk["opensm"]["paths"] != chk["ibroute"]["paths"]:
                problems.append("ibdmchk scanned %s CA-to-CA paths in ibroute's dumps, %s in "
                                "OpenSM's" % (chk["ibroute"]["paths"], chk["opensm"]["paths"]))
        summary["problems"] = problems
    except Fail as e:
        summary["problems"] = [str(e)]
    finally:
        write_summary(work, summary)

    print("case %s (%s%s%s%s)" % (name, args.spec,
                                  ", faults " + args.faults if args.faults else "",
                                  ", LMC %d" % args.lmc if args.lmc else "",
                                  ", search order " + args.search_order
                                  if args.search_order else "") +
          (" with port shifting" if args.port_shifting else ""))
    if summary.get("pruned_nodes"):
        print("  %d nodes cut off by faults were dropped" % summary["pruned_nodes"])
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s avg_hops=%.3f max_hops=%s nonminimal=%s "
                  "max_link_load=%s deadlock_free=%s" % (
                      who, v.get("valid"), v.get("pairs"), v.get("avg_hops") or 0,
                      v.get("max_hops"), v.get("nonminimal"), v.get("max_link_load"),
                      v.get("deadlock_free")))
    d = summary.get("lft_diff")
    if d:
        print("  LFTs: %d of %d entries differ; dumps byte-identical: %s" % (
            d["differ"], d["entries"], "yes" if d["byte_identical"] else "no"))
        for e in d["examples"]:
            print("    " + e)
    for who, c in (summary.get("ibdmchk") or {}).items():
        print("  ibdmchk %-8s credit loop: %s (exit %s, %s CA-to-CA paths)" % (
            who, {True: "YES", False: "none", None: "?"}[c["credit_loop"]], c["exit"],
            c["paths"]))
    print_times(summary)
    return verdict(summary["problems"])


if __name__ == "__main__":
    sys.exit(main_exit(main))
