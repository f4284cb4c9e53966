"""What the compare_*.py scripts share: running commands, the work folders
of a case, the generated topology, the OpenSM run under ibsim
(run_opensm.py), LFT dumps read and compared, `ibr verify` and ibdmchk, and
the end of a case (compare.json, the routing times, the verdict).

A script's main() raises Fail for a broken step and Skip when a tool is
missing; main_exit() turns them into the exit status (77 for Skip).
"""

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


class Skip(Exception):
    """A tool the case needs is missing: the case exits 77 after printing
    "SKIP: <message>"."""


def main_exit(main):
    """Run a script's main() and return its exit status."""
    try:
        return main()
    except Skip as e:
        print("SKIP: " + str(e))
        return SKIP


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


def prune_netfile(src, dst, cabled_start=False):
    """Keep only the records reachable from the first CA (what an SM there
    discovers): OpenSM never sees nodes cut off by faults, so both sides must
    route the same connected fabric. With cabled_start, the first CA cabled
    to a switch (the first may hang off a switch the faults killed).
    Returns the number of dropped records."""
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
    start = next((n for n in order if nodes[n][1] in ("Ca", "Hca") and
                  (not cabled_start or any(nodes.get(r, (0, ""))[1] == "Switch"
                                           for r in nodes[n][2]))), None)
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


def verify_both(ibr, topo, osm_dir, ibr_dir, g2l, summary):
    """verify() of OpenSM's and ibroute's opensm-lfts.dump, also kept as
    summary["opensm"] and summary["ibroute"]; both reports."""
    v_osm = verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
    v_ibr = verify(ibr, topo, os.path.join(ibr_dir, "opensm-lfts.dump"), g2l)
    summary["opensm"] = v_osm
    summary["ibroute"] = v_ibr
    return v_osm, v_ibr


def lft_diff(osm_dir, ibr_dir):
    """diff_lfts() of OpenSM's and ibroute's opensm-lfts.dump, with
    byte_identical: whether the two files are the same."""
    a, b = (os.path.join(d, "opensm-lfts.dump") for d in (osm_dir, ibr_dir))
    d = diff_lfts(read_lfts(a), read_lfts(b))
    with open(a, "rb") as fa, open(b, "rb") as fb:
        d["byte_identical"] = fa.read() == fb.read()
    return d


def check_pairs_and_load(problems, v_osm, v_ibr, slack=0.0):
    """ibroute's verification against OpenSM's: the same pairs routed, and
    ibroute's busiest link carrying no more routes than OpenSM's (times
    1 + slack)."""
    if v_ibr.get("pairs") != v_osm.get("pairs"):
        problems.append("pair counts differ: OpenSM %s, ibroute %s"
                        % (v_osm.get("pairs"), v_ibr.get("pairs")))
    if v_ibr.get("max_link_load", 0) > v_osm.get("max_link_load", 0) * (1.0 + slack) + 1e-9:
        problems.append("ibroute's max link load %s exceeds OpenSM's %s"
                        % (v_ibr.get("max_link_load"), v_osm.get("max_link_load")))


def workdirs(args):
    """The case's folders from --ibr and --workdir (emptied first): ibr,
    work, the topology file, OpenSM's output folder, ibroute's."""
    ibr = os.path.abspath(args.ibr)
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return (ibr, work, os.path.join(work, "topo.net"), os.path.join(work, "opensm"),
            os.path.join(work, "ibroute"))


def generate(ibr, spec, work, topo, faults=None, seed="1"):
    """`ibr gen SPEC --remove-down` (with --faults and --seed when faults
    are given), pruned to what the SM's host reaches, into topo. Returns
    the number of nodes dropped."""
    raw = os.path.join(work, "generated.net")
    gen = [ibr, "gen", spec, "-o", raw, "--remove-down"]
    if faults:
        gen += ["--faults", faults, "--seed", seed]
    run(gen, "ibr gen")
    return prune_netfile(raw, topo)


def opensm(harness_args, topo, engine, osm_dir, ok=(0, 1), failed="OpenSM run failed",
           env=None):
    """run_opensm.py HARNESS_ARGS TOPO ENGINE OSM_DIR (in environment env):
    Skip when OpenSM or ibsim is missing, Fail ("FAILED (exit N): stderr")
    on an exit status not in ok; the completed process."""
    p = subprocess.run([sys.executable, os.path.join(HERE, "run_opensm.py")] + harness_args
                       + [topo, engine, osm_dir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode == SKIP:
        raise Skip(p.stderr.strip())
    if p.returncode not in ok:
        raise Fail("%s (exit %d):\n%s" % (failed, p.returncode, p.stderr[-3000:]))
    return p


def opensm_run(osm_dir):
    """OpenSM's opensm-run.json (engine used, routing time)."""
    with open(os.path.join(osm_dir, "opensm-run.json")) as f:
        return json.load(f)


def write_summary(work, summary):
    """The case's summary as work/compare.json."""
    with open(os.path.join(work, "compare.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
        f.write("\n")


def print_times(summary):
    """The routing times of both sides, when both are known."""
    t_o, t_i = summary.get("opensm_routing_time_s"), summary.get("ibroute_route_time_s")
    if t_o is not None and t_i is not None:
        print("  routing time: OpenSM %.6fs, ibroute %.6fs" % (t_o, t_i))


def verdict(problems):
    """Print each problem as FAIL, or PASS; the exit status (1 or 0)."""
    if problems:
        for p in problems:
            print("FAIL: " + p)
        return 1
    print("PASS")
    return 0
