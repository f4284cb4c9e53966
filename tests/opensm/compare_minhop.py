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
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77

LFT_HDR = re.compile(r"^Unicast lids \[[0-9a-fA-Fx]+-[0-9a-fA-Fx]+\] of switch .*?"
                     r"guid (0x[0-9a-fA-F]+)")
LFT_ROW = re.compile(r"^0x([0-9a-fA-F]+)\s+(\d+)")


class Fail(Exception):
    pass


def run(argv, what, ok=(0,), **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, **kw)
    if p.returncode not in ok:
        raise Fail("%s failed (exit %d): %s\n%s%s" % (what, p.returncode, " ".join(argv),
                                                       p.stdout[-3000:], p.stderr[-3000:]))
    return p


def read_lfts(path):
    """opensm-lfts.dump -> {switch guid: {lid: port}}."""
    tables, cur = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LFT_HDR.match(line)
            if m:
                cur = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = LFT_ROW.match(line)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = int(m.group(2))
    return tables


def diff_lfts(a, b):
    """Count (switch, LID) entries that differ; a missing entry counts as 255."""
    differ = total = 0
    first = []
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    for sw in sorted(set(a) & set(b)):
        ta, tb = a[sw], b[sw]
        for lid in sorted(set(ta) | set(tb)):
            total += 1
            pa, pb = ta.get(lid, 255), tb.get(lid, 255)
            if pa != pb:
                differ += 1
                if len(first) < 5:
                    first.append("switch 0x%016x LID %d: OpenSM port %d, ibroute port %d"
                                 % (sw, lid, pa, pb))
    return {"entries": total, "differ": differ, "examples": first,
            "switches_only_opensm": len(only_a), "switches_only_ibroute": len(only_b)}


NODE_HDR = re.compile(r'^(Switch|Ca|Hca|Rt)\s+\d+\s+"([^"]+)"')
PORT_REF = re.compile(r'^\[\d+\][^"]*"([^"]+)"')


def prune_netfile(src, dst):
    """Keep only the records reachable from the first CA (what an SM there
    discovers): OpenSM never sees nodes cut off by faults, so both sides must
    route the same connected fabric. Returns the number of dropped records."""
    with open(src, encoding="utf-8") as f:
        blocks = f.read().split("\n\n")
    nodes, order = {}, []
    for i, b in enumerate(blocks):
        for line in b.splitlines():
            m = NODE_HDR.match(line)
            if m:
                refs = [r.group(1) for r in map(PORT_REF.match, b.splitlines()) if r]
                nodes[m.group(2)] = (i, m.group(1), refs)
                order.append(m.group(2))
                break
    start = next((n for n in order if nodes[n][1] in ("Ca", "Hca")), None)
    seen = set()
    if start is not None:
        stack = [start]
        while stack:
            n = stack.pop()
            if n in seen or n not in nodes:
                continue
            seen.add(n)
            stack.extend(nodes[n][2])
    drop = {nodes[n][0] for n in order if n not in seen}
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n\n".join(b for i, b in enumerate(blocks) if i not in drop))
    return len(drop)


def verify(ibr, topo, dump, guid2lid):
    p = run([ibr, "verify", "--json", "--guid2lid", guid2lid, topo, dump],
            "ibr verify " + dump, ok=(0, 1))
    try:
        return json.loads(p.stdout)["verify"]
    except (ValueError, KeyError) as e:
        raise Fail("cannot read `ibr verify --json` output (%s): %r" % (e, p.stdout[:500]))


IBDM_ERROR = re.compile(r"^-E- ")


def ibdmchk(outdir, subnet, fdbs, mcfdbs, lmc):
    """Run ibdmchk in verification mode; return (status, error lines, paths scanned)."""
    exe = shutil.which("ibdmchk")
    argv = [exe, "-s", subnet, "-f", fdbs, "-m", mcfdbs]
    if lmc:
        argv += ["-l", str(lmc)]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       cwd=outdir, timeout=600)
    with open(os.path.join(outdir, "ibdmchk.out"), "w") as f:
        f.write(p.stdout)
    errors = [l.strip() for l in p.stdout.splitlines() if IBDM_ERROR.match(l)]
    scanned = re.findall(r"Scanned:(\d+) CA to CA paths", p.stdout)
    finished = "credit loops" in p.stdout.lower()
    return {"exit": p.returncode, "errors": errors, "finished": finished,
            "paths": int(scanned[-1]) if scanned else None}


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
    ibr = os.path.abspath(args.ibr)
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    topo = os.path.join(work, "topo.net")
    osm_dir = os.path.join(work, "opensm")
    ibr_dir = os.path.join(work, "ibroute")
    summary = {"name": name, "spec": args.spec, "faults": args.faults, "lmc": args.lmc}

    try:
        raw = os.path.join(work, "generated.net")
        gen = [ibr, "gen", args.spec, "-o", raw, "--remove-down"]
        if args.faults:
            gen += ["--faults", args.faults, "--seed", args.seed]
        run(gen, "ibr gen")
        summary["pruned_nodes"] = prune_netfile(raw, topo)

        harness = [sys.executable, os.path.join(HERE, "run_opensm.py"),
                   "--timeout", str(args.timeout)]
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        p = subprocess.run(harness + [topo, "minhop", osm_dir], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode == SKIP:
            print("SKIP: " + p.stderr.strip())
            return SKIP
        if p.returncode != 0:
            raise Fail("OpenSM run failed (exit %d):\n%s" % (p.returncode, p.stderr[-3000:]))
        g2l = os.path.join(osm_dir, "guid2lid")
        with open(os.path.join(osm_dir, "opensm-run.json")) as f:
            osm_run = json.load(f)
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")

        p = run([ibr, "route", "--all-dumps", "-R", "minhop", "--no-progress", "--json", "--guid2lid", g2l,
                 topo, "-o", ibr_dir], "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        if route.get("engine") != "minhop":
            raise Fail("ibroute routed with %r, not minhop: %s" % (route.get("engine"),
                                                                   route.get("error")))

        v_osm = verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
        v_ibr = verify(ibr, topo, os.path.join(ibr_dir, "opensm-lfts.dump"), g2l)
        summary["opensm"] = v_osm
        summary["ibroute"] = v_ibr

        d = diff_lfts(read_lfts(os.path.join(osm_dir, "opensm-lfts.dump")),
                      read_lfts(os.path.join(ibr_dir, "opensm-lfts.dump")))
        with open(os.path.join(osm_dir, "opensm-lfts.dump"), "rb") as fa, \
                open(os.path.join(ibr_dir, "opensm-lfts.dump"), "rb") as fb:
            d["byte_identical"] = fa.read() == fb.read()
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
        if v_ibr.get("pairs") != v_osm.get("pairs"):
            problems.append("pair counts differ: OpenSM %s, ibroute %s"
                            % (v_osm.get("pairs"), v_ibr.get("pairs")))
        if v_ibr.get("max_link_load", 0) > v_osm.get("max_link_load", 0):
            problems.append("ibroute's max link load %s exceeds OpenSM's %s"
                            % (v_ibr.get("max_link_load"), v_osm.get("max_link_load")))

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
        with open(os.path.join(work, "compare.json"), "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)
            f.write("\n")

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
    t_o, t_i = summary.get("opensm_routing_time_s"), summary.get("ibroute_route_time_s")
    if t_o is not None and t_i is not None:
        print("  routing time: OpenSM %.6fs, ibroute %.6fs" % (t_o, t_i))
    if summary["problems"]:
        for p in summary["problems"]:
            print("FAIL: " + p)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
