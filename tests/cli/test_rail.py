#!/usr/bin/env python3
"""Rail-optimized fat trees (ibr gen rail:...) and the engines' rank order
(ibr order): usage: test_rail.py PATH_TO_IBR

The rank order is checked against independent views of the same routing:
OpenSM's compute-node order dump of ftree, the leaf-by-leaf twin of the
fabric (rail:...,byleaf=1, the same cables with the HCAs numbered leaf by
leaf), and the topology's own list of end ports."""
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


def end_ports(topo_text):
    """Port GUID -> node description of every CA port of an ibnetdiscover text."""
    ports = {}
    for m in re.finditer(r'^Ca\s+\d+\s+"[^"]*"\s+#\s+"([^"]*)"\n\[1\]\(([0-9a-f]+)\)',
                         topo_text, re.M):
        ports[int(m.group(2), 16)] = m.group(1)
    return ports


def order(engine, topo, *extra):
    """(rank, index, GUID, LID, description) rows of ibr order."""
    out = expect(["order", "-q", "-R", engine, topo] + list(extra))
    lines = out.splitlines()
    check(lines[0].startswith("# %s destination order" % engine), lines[0])
    rows = []
    for line in lines[1:]:
        f = line.split("\t")
        rows.append((int(f[0]), int(f[1]), int(f[2], 16), int(f[3], 16), f[4]))
    return rows


def check_permutation(rows, ports, what):
    check([r[0] for r in rows] == list(range(len(rows))), what + ": ranks not 0..N-1")
    idx = [r[1] for r in rows]
    check(all(a < b for a, b in zip(idx, idx[1:])), what + ": indices not increasing")
    check(sorted(r[2] for r in rows) == sorted(ports), what + ": not a permutation of the "
          "end ports (%d rows, %d end ports)" % (len(rows), len(ports)))
    for r in rows:
        check(ports[r[2]] == r[4], what + ": GUID 0x%x is %r, not %r" % (r[2], ports[r[2]], r[4]))


def gen(spec, *extra):
    name = os.path.join(TMP, re.sub(r"[^a-z0-9]+", "_", spec + "_".join(extra)) + ".topo")
    expect(["gen", spec, "-o", name] + list(extra))
    with open(name) as fh:
        return name, fh.read()


def shift_ebb(engine, topo):
    doc = json.loads(expect(["analyze", "-q", "--json", "-R", engine, topo, "--patterns",
                             "shift"]))
    return doc["shift"]["ebb"]


# ----------------------------------------------------------------------------

def test_gen_rail():
    """Counts, descriptions and the options every generator takes."""
    info = json.loads(expect(["info", "--json", "gen:rail:nodes=100,rails=8,su=32,radix=64"]))
    for k, v in (("switches", 48), ("cas", 800), ("links", 800 + 32 * 32),
                 ("endports", 800)):
        check(info[k] == v, "info %s = %s, expected %s" % (k, info[k], v))
    path, text = gen("rail:nodes=4,rails=2,su=2,radix=4")
    check(re.search(r'^Ca\s+1 .*# "node0003 mlx5_1"$', text, re.M), "no 'node0003 mlx5_1'")
    check(re.search(r'^Switch\s+4 .*# "L1-SU1-R0"', text, re.M), "no leaf 'L1-SU1-R0'")
    # faults, seed, remove-down as for the other families
    f, _ = gen("rail:nodes=64,rails=4,su=8,radix=16,levels=3", "--faults", "5,1", "--seed",
               "2", "--remove-down")
    info = json.loads(expect(["info", "--json", f]))
    check(info["links_down"] == 0 and info["links"] < 256 + 512,
          "--remove-down: %d links, %d down" % (info["links"], info["links_down"]))
    for engine in ("ftree", "dmodc"):
        r = json.loads(expect(["route", "--json", "-q", "-R", engine + ",no_fallback", f]))
        check(r["engine"] == engine and r["verify"]["valid"], (engine, r["verify"]))
    expect(["gen", "rail:nodes=512,levels=2"], 2, r"try levels=3")
    expect(["gen", "rail:rails=8"], 2, r"missing key 'nodes'")


def test_radices_and_levels():
    """64- and 144-port rail trees and a 4-level XGFT route and verify."""
    for spec in ("rail:nodes=64,rails=8,su=32,radix=64",
                 "rail:nodes=144,rails=8,radix=144",
                 "rail:nodes=96,rails=8,su=24,radix=64,levels=3",
                 "xgft:h=4,m=4.4.4.8,w=1.4.4.4"):
        for engine in ("ftree", "dmodc"):
            r = json.loads(expect(["route", "--json", "-q", "-R", engine + ",no_fallback",
                                   "gen:" + spec]))
            v = r["verify"]
            check(r["engine"] == engine and v["valid"] and v["pairs"] == v["pairs_ok"] and
                  v["deadlock_free"] and v["max_stretch"] == 1, (spec, engine, v))


def test_rank_order():
    """ibr order: a permutation of the end ports in the engine's order."""
    spec = "rail:nodes=40,rails=4,su=8,radix=16"       # a partial SU
    rail, rail_text = gen(spec)
    twin, twin_text = gen(spec + ",byleaf=1")
    ports, twin_ports = end_ports(rail_text), end_ports(twin_text)
    check(len(ports) == 160 and len(twin_ports) == 160, "end ports %d" % len(ports))
    twin_host_order = [d for d in re.findall(r'^Ca\s+\d+\s+"[^"]*"\s+#\s+"([^"]*)"',
                                             twin_text, re.M)]
    for engine in ("ftree", "dmodc"):
        rows = order(engine, rail)
        check_permutation(rows, ports, engine)
        # the engines order destinations leaf by leaf, port by port: the
        # host order of the leaf-by-leaf twin
        check([r[4] for r in rows] == twin_host_order,
              engine + ": rank order is not the leaf-by-leaf order")
        check([r[4] for r in order(engine, twin)] == twin_host_order,
              engine + ": twin's rank order is not its host order")
        # the nodes of a hostfile: each node once, at its first HCA's rank
        hosts = expect(["order", "-q", "-R", engine, rail, "--nodes"]).split()
        check(hosts == ["node%04d" % n for n in range(40)], hosts[:10])
    # ftree's order is the one of OpenSM's compute-node dump (dummies aside)
    out = os.path.join(TMP, "ftree-out")
    expect(["route", "-q", "-R", "ftree", rail, "-o", out])
    with open(os.path.join(out, "opensm-ftree-ca-order.dump")) as fh:
        lids = [int(l.split()[0], 16) for l in fh if "DUMMY" not in l]
    with open(os.path.join(out, "rank-order.txt")) as fh:
        art = [l for l in fh.read().splitlines() if not l.startswith("#")]
    check([int(l.split("\t")[3], 16) for l in art] == lids, "ftree order differs from "
          "opensm-ftree-ca-order.dump")
    # -o FILE, degraded trees, engines without an order
    f = os.path.join(TMP, "order.txt")
    expect(["order", "-q", "-R", "dmodc", rail, "-o", f])
    with open(f) as fh:
        check(len(fh.read().splitlines()) == 161, "-o FILE")
    deg, deg_text = gen(spec, "--faults", "3,1", "--seed", "4", "--remove-down")
    for engine in ("ftree", "dmodc"):
        check_permutation(order(engine, deg), end_ports(deg_text), engine + " degraded")
    expect(["order", "-q", "-R", "minhop", rail], 2,
           r"minhop has no destination order.* \[CL039\]$")
    expect(["order", "-q", rail], 2, r"-R ENGINE is required.* \[CL038\]$")


def test_order_routing_options():
    """ibr order takes the routing options of ibr route (the one option
    table): each gives the rank order that ibr route writes as
    rank-order.txt with the same options, and each that changes the
    routing's input changes the order."""
    topo, text = gen("fattree:levels=2,radix=8")
    hosts = ["0x" + g for g in re.findall(r'^\[\d+\]\s+"H-[^"]*"\[1\]\(([0-9a-f]+)\)', text, re.M)]
    switches = re.findall(r'^switchguid=(0x[0-9a-f]+)', text, re.M)
    check(len(hosts) == 32 and len(switches) == 12, "%d hosts, %d switches"
          % (len(hosts), len(switches)))

    def guid_file(name, lines):
        path = os.path.join(TMP, name)
        with open(path, "w") as fh:
            fh.write("".join(l + "\n" for l in lines))
        return path

    plain = expect(["order", "-q", "-R", "ftree", topo])
    # the LIDs of a guid2lid file, moved up by 100
    g2l = []
    expect(["route", "-q", "-R", "ftree", topo, "-o", os.path.join(TMP, "g2l")])
    with open(os.path.join(TMP, "g2l", "guid2lid")) as fh:
        for line in fh:
            f = line.split()
            if len(f) == 3:
                g2l.append("%s 0x%04x 0x%04x" % (f[0], int(f[1], 16) + 100, int(f[2], 16) + 100))
    cases = [
        (["--lmc", "1"], True),
        (["--guid2lid", guid_file("moved.guid2lid", g2l)], True),
        (["--io-guids", guid_file("io.txt", hosts[8:20])], True),
        (["--cn-guids", guid_file("cn.txt", hosts[:8] + hosts[20:]), "--io-guids",
          guid_file("io.txt", hosts[8:20])], True),
        (["--root-guids", guid_file("roots.txt", switches[8:])], False),
        (["--seed", "5", "--threads", "1"], False),
        (["--param", "ftree.degraded_tolerance=0"], False),
    ]
    for i, (opts, changes) in enumerate(cases):
        got = expect(["order", "-q", "-R", "ftree", topo] + opts)
        out = os.path.join(TMP, "order-opts-%d" % i)
        expect(["route", "-q", "-R", "ftree", topo, "-o", out] + opts)
        with open(os.path.join(out, "rank-order.txt")) as fh:
            check(got == fh.read(), "%s: ibr order differs from route's rank-order.txt" % opts)
        if changes:
            check(got != plain, "%s: the order is the one without the option" % opts)
    lids = [int(l.split("\t")[3], 16) for l in
            expect(["order", "-q", "-R", "ftree", topo, "--lmc", "1"]).splitlines()[1:]]
    check(all(l % 2 == 0 for l in lids), "--lmc 1: base LIDs not even: %s" % lids[:8])
    # a setting reaches the engine: strict ftree declines the degraded tree,
    # minhop routes it, and minhop has no order
    deg, _ = gen("fattree:levels=2,radix=8", "--faults", "2", "--seed", "3")
    expect(["order", "-q", "-R", "ftree", deg])
    expect(["order", "-q", "-R", "ftree", deg, "--param", "ftree.strict=1"], 2,
           r"minhop has no destination order")
    strict = os.path.join(TMP, "strict.txt")
    with open(strict, "w") as fh:
        fh.write("1")  # a setting's value: the file's bytes as they are
    expect(["order", "-q", "-R", "ftree", deg, "--param-file", "ftree.strict=" + strict], 2,
           r"minhop has no destination order")
    # options of ibr route that order does not take stay usage errors
    for opt in (["--scatter"], ["--qos"], ["--dumps", "all"], ["--connect-roots"]):
        expect(["order", "-q", "-R", "ftree", topo] + opt, 2, r"unknown option")


def test_shift_like_leaf_order():
    """Rail numbering gets the shift eBB of leaf-by-leaf numbering."""
    for spec in ("rail:nodes=128,rails=8,su=32,radix=64",       # parallel cables
                 "rail:nodes=50,rails=4,su=8,radix=16,levels=3",  # partial SU and pod
                 "rail:nodes=96,rails=8,su=24,radix=64"):         # su != radix/2
        for engine in ("ftree", "dmodc"):
            rail = shift_ebb(engine, "gen:" + spec)
            leaf = shift_ebb(engine, "gen:" + spec + ",byleaf=1")
            check(rail >= leaf - 0.01, "%s %s: shift eBB %.4f, leaf order %.4f"
                  % (spec, engine, rail, leaf))
            check(rail >= 0.96, "%s %s: shift eBB %.4f" % (spec, engine, rail))


def main():
    global IBR, TMP
    if len(sys.argv) != 2:
        print("usage: test_rail.py PATH_TO_IBR", file=sys.stderr)
        return 2
    IBR = os.path.abspath(sys.argv[1])
    TMP = tempfile.mkdtemp(prefix="ibr-rail-test-")
    tests = [test_gen_rail, test_radices_and_levels, test_rank_order,
             test_order_routing_options, test_shift_like_leaf_order]
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
