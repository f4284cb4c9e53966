#!/usr/bin/env python3
"""Workloads of `ibr analyze` over a rank order (--ranks, --workloads,
--grid, --moe, --rails, --top-links): usage: test_workload.py PATH_TO_IBR

The rank order is what `ibr order` writes (read back), a hostfile, or
descriptions; the numbers are checked against the analytic values of an
intact fat tree in ftree's order, against the same routing read from its
dump, and the JSON's shape (a list of workloads, each with the same
keys) against what `ibr report` expects."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

IBR = None
TMP = None
FAILURES = []

KEYS = ["name", "patterns", "flows", "unrouted", "max_congestion", "mean_max_congestion",
        "mean_flow_congestion", "congestion_free", "ebb", "worst_ebb", "ebb_bound",
        "ebb_vs_bound", "worst_pattern", "steps", "limiting_links"]
LINK_KEYS = ["switch", "guid", "port", "peer", "peer_guid", "peer_port", "flows"]
NAMES = ["ring", "recursive_doubling", "rail_ring", "rail_recursive_doubling", "all_to_all",
         "moe", "grid", "shift", "permutation"]


def ibr(*args):
    p = subprocess.run([IBR] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect(args, code=0, err_re=None):
    rc, out, err = ibr(*args)
    check(rc == code, "ibr %s: exit %d, expected %d\n%s%s"
          % (" ".join(args), rc, code, out[-1000:], err[-1000:]))
    if err_re:
        check(re.search(err_re, err, re.M), "ibr %s: stderr lacks /%s/: %s"
              % (" ".join(args), err_re, err))
    return out


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def analyze_json(*args):
    return json.loads(expect(["analyze", "--json"] + list(args)))


def by_name(d):
    return {w["name"]: w for w in d["workloads"]}


def test_ftree_order_analytic():
    """ftree's own rank order, read back: ring and shift eBB 1, all-to-all
    (k/2)/(N-1) on the k-ary tree of N hosts."""
    spec = "gen:fattree:levels=3,radix=4"
    ro = os.path.join(TMP, "rank-order.txt")
    expect(["order", "-q", "-R", "ftree", spec, "-o", ro])
    d = analyze_json(spec, "-R", "ftree", "--ranks", ro, "--workloads", "all", "--random", "5")
    check(d["ranks"] == 16, d["ranks"])
    names = [w["name"] for w in d["workloads"]]
    check(names == NAMES, names)  # 'HCA-1' ends every description: one rail
    for w in d["workloads"]:
        check(list(w.keys()) == KEYS, list(w.keys()))
        check(0.0 <= w["ebb"] <= w["ebb_bound"] + 1e-9 <= 1.0 + 2e-9, w)
        check(w["worst_ebb"] <= w["ebb"] + 1e-12, w)
        for link in w["limiting_links"]:
            check(list(link.keys()) == LINK_KEYS, link)
            check(re.match(r"0x[0-9a-f]{16}$", link["guid"]), link)
        flows = [link["flows"] for link in w["limiting_links"]]
        check(flows == sorted(flows, reverse=True), flows)
        check(not flows or flows[0] == max(w["max_congestion"], 0) or w["name"] == "all_to_all",
              w)
    w = by_name(d)
    check(w["ring"]["ebb"] == 1 and w["ring"]["max_congestion"] == 1, w["ring"])
    check(w["shift"]["ebb"] == 1 and w["shift"]["congestion_free"] == 15, w["shift"])
    check(abs(w["all_to_all"]["ebb"] - 2 / 15) < 1e-9, w["all_to_all"])
    check(w["all_to_all"]["limiting_links"][0]["flows"] == 14, w["all_to_all"])
    rd = w["recursive_doubling"]
    check(rd["patterns"] == 4 and len(rd["steps"]) == 4, rd)
    check(rd["worst_ebb"] == min(s["ebb"] for s in rd["steps"]), rd)
    check(w["grid"]["patterns"] == 1, w["grid"])
    # the shift family of the report runs in the rank order too
    check(d["shift"]["ebb"] == 1, d["shift"])


def test_dump_same_numbers():
    """The routing read from its dump gives the same workload numbers."""
    topo = os.path.join(TMP, "rail.topo")
    expect(["gen", "rail:nodes=8,rails=2,su=4,radix=8,levels=2", "-o", topo])
    out = os.path.join(TMP, "route")
    expect(["route", "-q", "-R", "minhop", topo, "-o", out])
    ro = write("hosts.txt", "# a hostfile\nnode0003\nnode0001 slots=2\n\n" +
               "".join("node%04d mlx5_%d\n" % (n, r) for n in (0, 2, 4, 5, 6, 7) for r in (0, 1))
               + "node0003 mlx5_1\nnode0001 mlx5_1 1\n")
    args = ["--ranks", ro, "--workloads", "ring,rd,rail-ring,rail-rd,moe,grid,shift,perm",
            "--grid", "4x2x2", "--moe", "4,2", "--random", "3", "--top-links", "2"]
    mem = analyze_json(topo, "-R", "minhop", *args)
    dump = analyze_json(topo, os.path.join(out, "opensm-lfts.dump"), *args)
    check(mem["ranks"] == 16, mem["ranks"])
    check(mem["workload_options"] == {"workloads": 0x1ef, "rails": 2, "grid": [4, 2, 2],
                                      "moe_group": 4, "moe_fanout": 2, "n_random": 3,
                                      "seed": 1}, mem["workload_options"])
    check(len(mem["workloads"]) == 8, [w["name"] for w in mem["workloads"]])
    for a, b in zip(mem["workloads"], dump["workloads"]):
        check(a == b, (a, b))
    w = by_name(mem)
    check(w["rail_ring"]["flows"] == 16, w["rail_ring"])  # two rails of 8 ranks
    check(len(w["rail_recursive_doubling"]["steps"]) == 3, w["rail_recursive_doubling"])
    check(w["grid"]["flows"] == 16 * 4, w["grid"])  # 4x2x2: +-1, then one neighbour twice
    check(w["moe"]["flows"] == 3 * 16 * 2, w["moe"])
    check(all(len(x["limiting_links"]) <= 2 for x in dump["workloads"]), dump)
    # --rails 4 regroups the ranks: rank i on rail i mod 4
    d = analyze_json(topo, "-R", "minhop", "--ranks", ro, "--rails", "4")
    check(len(by_name(d)["rail_recursive_doubling"]["steps"]) == 2, d)
    # the text report
    txt = expect(["analyze", topo, "-R", "minhop", "--ranks", ro, "--workloads", "ring,rd"])
    check("workloads over 16 ranks:" in txt, txt)
    check(re.search(r"^ring +1 +16 ", txt, re.M), txt)
    check("recursive_doubling steps (eBB, max congestion): 0:" in txt, txt)
    check("limiting links" in txt, txt)


def test_hostfile_from_order():
    """`ibr order --nodes` (a hostfile) reads back: one rank per node."""
    spec = "gen:rail:nodes=8,rails=2,su=4,radix=8,levels=2"
    hf = os.path.join(TMP, "hostfile")
    expect(["order", "-q", "-R", "ftree", spec, "--nodes", "-o", hf])
    d = analyze_json(spec, "-R", "ftree", "--ranks", hf, "--workloads", "ring,shift")
    check(d["ranks"] == 8, d["ranks"])
    check([w["name"] for w in d["workloads"]] == ["ring", "shift"], d["workloads"])


def test_no_workloads_unchanged():
    """Without workload options the report has no new members."""
    d = analyze_json("gen:fattree:levels=2,radix=4", "-R", "ftree")
    check("workloads" not in d and "ranks" not in d, sorted(d))
    txt = expect(["analyze", "gen:fattree:levels=2,radix=4", "-R", "ftree"])
    check("workloads" not in txt, txt)


def test_errors():
    spec = "gen:fattree:levels=2,radix=4"
    bad = write("bad.txt", "H0\n# x\nnobody here\n")
    expect(["analyze", spec, "--ranks", bad], 2, r"line 3: unknown host.*'nobody here'")
    dup = write("dup.txt", "H1 HCA-1\n\nH1\n")
    expect(["analyze", spec, "--ranks", dup], 2, r"line 3: port 0x[0-9a-f]+ .* \(line 1\)")
    empty = write("empty.txt", "# nothing\n")
    expect(["analyze", spec, "--ranks", empty], 2, r"no ranks \[CL031\]$")
    expect(["analyze", spec, "--ranks", os.path.join(TMP, "missing")], 2)
    expect(["analyze", spec, "--grid", "3x3"], 2, r"--grid.*rank count")
    expect(["analyze", spec, "--grid", "8"], 2, r"--grid")
    expect(["analyze", spec, "--workloads", "ring,bogus"], 2, r"unknown workload 'bogus'.* \[CL007\]$")
    expect(["analyze", spec, "--moe", "0"], 2, r"--moe")
    expect(["analyze", spec, "--top-links", "17"], 2, r"--top-links")
    check("--ranks FILE" in expect(["analyze", "--help"]), "help lacks --ranks")


def main():
    global IBR, TMP
    if len(sys.argv) != 2:
        print("usage: test_workload.py PATH_TO_IBR", file=sys.stderr)
        return 2
    IBR = os.path.abspath(sys.argv[1])
    TMP = tempfile.mkdtemp(prefix="ibr-workload-test-")
    tests = [test_ftree_order_analytic, test_dump_same_numbers, test_hostfile_from_order,
             test_no_workloads_unchanged, test_errors]
    try:
        for t in tests:
            try:
                t()
                print("ok   %s" % t.__name__)
            except Exception:
                FAILURES.append(t.__name__)
                print("FAIL %s\n%s" % (t.__name__, traceback.format_exc()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("%d of %d tests failed" % (len(FAILURES), len(tests)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
