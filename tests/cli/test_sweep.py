#!/usr/bin/env python3
"""ibr sweep, what one more fault costs: usage: test_sweep.py PATH_TO_IBR

Each single fault's eBB is checked against an independent path: the
topology file with that cable's two port lines deleted, routed afresh by
the same engine and measured by `ibr analyze` (dmodc's repair in place is
a fresh route of the changed fabric, so the numbers are equal), and with
an engine without repair (minhop routes again in full). The intact
baseline is `ibr analyze` of the intact file; the degradation curve is
checked for its shape (median >= min, one point per k)."""
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback

IBR = None
TMP = None
FAILURES = []
OPTS = ["--random", "8", "--seed", "3", "--threads", "2"]


def ibr(*args):
    p = subprocess.run([IBR] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def run_json(*args, code=0):
    rc, out, err = ibr(*args)
    check(rc == code, "ibr %s: exit %d, expected %d\n%s" % (" ".join(args), rc, code, err[-2000:]))
    return json.loads(out)


def families(analysis):
    """Pattern families and workloads ("workload NAME") with their eBB."""
    fam = {k: v["ebb"] for k, v in analysis.items() if isinstance(v, dict) and "ebb" in v}
    for w in analysis.get("workloads", []):
        fam["workload " + w["name"]] = w["ebb"]
    return fam


def gen_file(spec, name):
    path = os.path.join(TMP, name)
    rc, out, err = ibr("gen", spec, "-o", path)
    check(rc == 0, err)
    return path


def switch_cables(text):
    """Switch-to-switch cables of an ibnetdiscover file: {(guid, port): (guid, port)}."""
    cables, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'Switch\s+\d+\s+"S-([0-9a-f]+)"', line)
        if m:
            cur = int(m.group(1), 16)
            continue
        if not line.strip():
            cur = None
        m = re.match(r'\[(\d+)\]\s+"S-([0-9a-f]+)"\[(\d+)\]', line)
        if m and cur is not None:
            cables[(cur, int(m.group(1)))] = (int(m.group(2), 16), int(m.group(3)))
    return cables


def without_cable(text, a, pa, b, pb):
    """The file without the cable a/pa - b/pb (both port lines)."""
    out, cur, removed = [], None, 0
    for line in text.splitlines():
        m = re.match(r'Switch\s+\d+\s+"S-([0-9a-f]+)"', line)
        if m:
            cur = int(m.group(1), 16)
        m = re.match(r'\[(\d+)\]\s+"S-([0-9a-f]+)"\[(\d+)\]', line)
        if m and cur is not None:
            me, far = (cur, int(m.group(1))), (int(m.group(2), 16), int(m.group(3)))
            if (me, far) in (((a, pa), (b, pb)), ((b, pb), (a, pa))):
                removed += 1
                continue
        out.append(line)
    check(removed == 2, "cable %x/%d-%x/%d: %d port lines found" % (a, pa, b, pb, removed))
    return "\n".join(out) + "\n"


def check_faults_against_analyze(topo, engine, sweep, n_check, opts=OPTS):
    text = open(topo).read()
    for fl in sweep["faults"][:n_check]:
        a, b = int(fl["a"], 16), int(fl["b"], 16)
        path = os.path.join(TMP, "cut-%s.topo" % engine)
        with open(path, "w") as f:
            f.write(without_cable(text, a, fl["port_a"], b, fl["port_b"]))
        want = families(run_json("analyze", path, "-R", engine, "--json", *opts))
        for name, ebb in fl["ebb"].items():
            check(abs(ebb - want[name]) < 1e-9,
                  "%s %s/%d: %s eBB %r, ibr analyze of the cut fabric %r"
                  % (engine, fl["a"], fl["port_a"], name, ebb, want[name]))
            check(abs(fl["drop"][name] - (sweep["baseline"][name] - ebb)) < 1e-9, "drop")


def test_every_cable_dmodc():
    topo = gen_file("xgft:h=2,m=4.4,w=1.4", "t44.topo")
    cables = switch_cables(open(topo).read())
    check(len(cables) == 32, "directed cables %d" % len(cables))
    doc = run_json("sweep", topo, "-R", "dmodc", "--cables", "all", "--json", *OPTS)
    sw = doc["sweep"]
    check(doc["engine"] == "dmodc", doc["engine"])
    check(sw["cables_total"] == 16 and len(sw["faults"]) == 16, "16 cables swept")
    seen = set()
    for fl in sw["faults"]:
        key = (int(fl["a"], 16), fl["port_a"])
        check(cables.get(key) == (int(fl["b"], 16), fl["port_b"]), "no such cable %r" % fl)
        seen.add(frozenset([key, cables[key]]))
        check(fl["route"] == "repair" and fl["status"] == "IBR_OK", fl)
        check(fl["unrouted_pairs"] == 0, fl)
        check(abs(fl["worst_drop"] - max(max(fl["drop"].values()), 0.0)) < 1e-12, fl)
    check(len(seen) == 16, "each cable once")
    drops = [fl["worst_drop"] for fl in sw["faults"]]
    check(drops == sorted(drops, reverse=True), "worst first: %r" % drops)
    check(drops[0] > 0, "losing a cable of a 2-level tree costs bandwidth")
    base = families(run_json("analyze", topo, "-R", "dmodc", "--json", *OPTS))
    check(base == sw["baseline"], "baseline %r vs analyze %r" % (sw["baseline"], base))
    check(sorted(sw["patterns"]) == sorted(base), sw["patterns"])
    check_faults_against_analyze(topo, "dmodc", sw, 4)


def test_full_route_engine_and_switches():
    topo = gen_file("xgft:h=3,m=4.4.4,w=1.4.4", "t444.topo")
    doc = run_json("sweep", topo, "-R", "minhop", "--cables", "5", "--switches", "2", "--json",
                   "--seed", "7", "--random", "8", "--threads", "2")
    sw = doc["sweep"]
    kinds = [fl["kind"] for fl in sw["faults"]]
    check(kinds.count("cable") == 5 and kinds.count("switch") == 2, kinds)
    check(all(fl["status"] == "IBR_OK" for fl in sw["faults"]), sw["faults"])
    # minhop repairs in place without being a fresh route: the second path
    # is ibr reroute from the saved database, its dump read by ibr analyze
    db = os.path.join(TMP, "minhop.db")
    rc, out, err = ibr("route", "-R", "minhop", topo, "--save-db", db, "--dumps", "none",
                       "-o", os.path.join(TMP, "d0"))
    check(rc == 0, err)
    text = open(topo).read()
    for fl in [f for f in sw["faults"] if f["kind"] == "cable"][:2]:
        cut = os.path.join(TMP, "cut-minhop.topo")
        with open(cut, "w") as f:
            f.write(without_cable(text, int(fl["a"], 16), fl["port_a"], int(fl["b"], 16),
                                  fl["port_b"]))
        d = os.path.join(TMP, "d1")
        rc, out, err = ibr("reroute", db, cut, "-o", d)
        check(rc == 0, err)
        want = families(run_json("analyze", cut, os.path.join(d, "opensm-lfts.dump"), "--json",
                                 "--random", "8", "--seed", "7", "--threads", "2"))
        check(fl["ebb"] == want, "minhop %s/%d: sweep %r, reroute + analyze %r"
              % (fl["a"], fl["port_a"], fl["ebb"], want))
    # the same seed picks the same faults
    again = run_json("sweep", topo, "-R", "minhop", "--cables", "5", "--switches", "2", "--json",
                     "--seed", "7", "--random", "8", "--threads", "2")["sweep"]
    key = lambda s: sorted((f["kind"], f["a"], f["port_a"]) for f in s["faults"])
    check(key(again) == key(sw), "seeded choice")


def test_workloads_drop():
    # the workloads over a rank order (ftree's, read back) count as pattern
    # families: their intact eBB is ibr analyze's, each fault's that of the
    # cut fabric analysed afresh
    topo = gen_file("xgft:h=2,m=4.4,w=1.4", "w44.topo")
    ro = os.path.join(TMP, "w44.ranks")
    rc, out, err = ibr("order", "-q", "-R", "ftree", topo, "-o", ro)
    check(rc == 0, err)
    opts = OPTS + ["--ranks", ro, "--workloads", "ring,a2a,moe", "--moe", "4,2", "--top-links", "2"]
    sw = run_json("sweep", topo, "-R", "dmodc", "--cables", "5", "--k-max", "2", "--trials", "2",
                  "--json", *opts)["sweep"]
    wl = ["workload ring", "workload all_to_all", "workload moe"]
    check(all(w in sw["patterns"] for w in wl), sw["patterns"])
    base = run_json("analyze", topo, "-R", "dmodc", "--json", *opts)
    check(base["ranks"] == 16, base["ranks"])
    check(families(base) == sw["baseline"], "baseline %r vs analyze %r" % (sw["baseline"], base))
    check(all(w in fl["drop"] for w in wl for fl in sw["faults"]), "drops of the workloads")
    check(any(fl["drop"]["workload all_to_all"] > 0 for fl in sw["faults"]), "a2a drops")
    check(all(w in p["median"] for w in wl for p in sw["curve"]), "curve of the workloads")
    check_faults_against_analyze(topo, "dmodc", sw, 3, opts)
    rc, out, err = ibr("sweep", topo, "-R", "dmodc", "--cables", "2", *opts)
    check(rc == 0 and "workload all_to_all" in out, out + err)
    rc, out, err = ibr("sweep", topo, "-R", "dmodc", "--workloads", "bogus")
    check(rc == 2 and "bogus" in err, err)


def test_curve():
    topo = gen_file("xgft:h=2,m=4.4,w=1.4", "c44.topo")
    sw = run_json("sweep", topo, "-R", "dmodc", "--cables", "0", "--k-max", "3", "--trials", "4",
                  "--json", *OPTS)["sweep"]
    check(sw["faults"] == [], "no single faults asked for")
    check([p["k"] for p in sw["curve"]] == [1, 2, 3], sw["curve"])
    for p in sw["curve"]:
        check(p["trials"] == 4, p)
        for name in sw["patterns"]:
            check(p["min"][name] <= p["median"][name] <= sw["baseline"][name] + 1e-12, (name, p))
    # shift eBB on this tree is 1 intact and falls once cables go
    check(sw["baseline"]["shift"] == 1 and sw["curve"][2]["median"]["shift"] < 1, sw)


def without_seconds(doc):
    """The sweep's JSON less its timings."""
    if isinstance(doc, dict):
        return {k: without_seconds(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [without_seconds(v) for v in doc]
    return doc


def test_threads_identical():
    # the faults are evaluated in parallel on --threads workers: single
    # cables, switches (several links down at once) and the curve's trials
    # give the same JSON with 1, 2 and 3 workers (3: blocks that do not
    # divide the faults), on a tree and on a torus where minhop's full
    # route is taken
    for spec, engine in (("xgft:h=3,m=4.4.4,w=1.4.4", "dmodc"),
                         ("torus:dims=4x4,hosts=2", "minhop")):
        topo = gen_file(spec, "thr.topo")
        docs = []
        for threads in ("1", "2", "3"):
            doc = run_json("sweep", topo, "-R", engine, "--cables", "9", "--switches", "3",
                           "--k-max", "3", "--trials", "3", "--json", "--random", "4",
                           "--seed", "5", "--threads", threads)
            docs.append(json.dumps(without_seconds(doc), sort_keys=True))
        check(len(json.loads(docs[0])["sweep"]["faults"]) == 12, docs[0][:300])
        check(docs[0] == docs[1] == docs[2], "%s: the sweep depends on --threads" % spec)


def test_text_and_errors():
    topo = gen_file("xgft:h=2,m=4.4,w=1.4", "e44.topo")
    rc, out, err = ibr("sweep", topo, "-R", "dmodc", "--cables", "3", *OPTS)
    check(rc == 0 and "worst faults first" in out and len(re.findall(r"repair", out)) == 3, out + err)
    rc, out, err = ibr("sweep", topo)
    check(rc == 2 and "-R ENGINE" in err, err)
    rc, out, err = ibr("sweep", topo, "-R", "dmodc", "--trials", "0")
    check(rc == 2 and "--trials" in err, err)
    rc, out, err = ibr("sweep", topo, "-R", "dmodc", "--patterns", "bogus")
    check(rc == 2 and "bogus" in err, err)


def main():
    global IBR, TMP
    IBR = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
        for name, fn in sorted(globals().items()):
            if name.startswith("test_") and callable(fn):
                try:
                    fn()
                    print("ok   %s" % name)
                except Exception:
                    FAILURES.append(name)
                    print("FAIL %s\n%s" % (name, traceback.format_exc()))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
