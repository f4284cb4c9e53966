#!/usr/bin/env python3
"""Compare ibroute's QoS tables with the ones OpenSM 3.3 programs (-Q).

Usage: compare_qos.py --ibr IBR --engine ENGINE --spec SPEC --workdir DIR

Generates the fabric, runs OpenSM under ibsim with -Q and an opensm.conf
setting every qos_* family (global, qos_ca_, qos_rtr_, qos_sw0_, qos_swe_),
reads the tables back from the simulated ports while OpenSM is up
(`smpquery sl2vl` and `smpquery vlarb` on the switches with the two lowest
LIDs, every linked port and port 0, and on three CAs), then routes the
same fabric with `ibr route -R ENGINE --qos-config` on OpenSM's LIDs and
checks that
  - OpenSM's opensm-sl2vl.dump and ibroute's hold the same map for every
    (switch, input port, output port) and every CA port;
  - the SL2VL maps read back equal ibroute's;
  - the VL arbitration tables read back (the VL and WEIGHT rows smpquery
    prints) equal ibroute's ibr-vlarb.txt.
The VLHighLimit of PortInfo cannot be compared here: OpenSM's link manager
sends it only in a PortInfo Set that changes no port state (a sweep after
the first), and ibsim's PortInfo Set handler does not store the field (it
keeps LID, SM LID, LMC, HOQ lifetime, port and physical state, OperVLs,
speeds and widths), so smpquery reads 0 after any number of sweeps (checked
with a SIGHUP resweep). ibroute's high limits are checked against OpenSM's
rules in tests/test_qos.c instead.
Exit 0 when equal, 1 when not, 77 when ibsim/opensm/smpquery are missing.

With --merged-torus (no OpenSM): the faulty 5x4x3 torus OpenSM 3.3.23 -Q
routes with dfsssp into a credit loop when qos_sl2vl is
0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7; ibroute reports the SL2VL hazard and the
loop, and ibdmchk -c/-d finds the loop in ibroute's files, while with the
default map neither finds one.

With --levels (no OpenSM): QoS levels over the routing layers checked by
ibdmchk, level by level. lash, dfsssp and Nue route a faulty torus, a
faulty mesh and a random graph with 2 to 4 QoS levels; for every level,
ibdmchk -c ibr-paths[.levelL].psl -d ibr-paths.sl2vl finds no credit loop
and ibroute reports neither a hazard nor a loop. Then a qos_sl2vl that folds
level 1's lash layers onto one VL: ibroute reports the hazard and the loop,
ibdmchk finds the loop in level 1's paths and none in level 0's.
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
import compare_updown as cu  # noqa: E402  (root switches for updn on a torus)
import compare_torus2qos as t2q  # noqa: E402  (torus-2QoS.conf for a generated torus)

SKIP = 77
# every family set, with values that differ from OpenSM's defaults and from
# each other, VLs past the 8 operational ones (masked), a dropped SL (15)
QOS_CONF = """\
qos_max_vls 8
qos_high_limit 10
qos_vlarb_high 0:8,1:4,2:2
qos_vlarb_low 0:1,1:2,2:3,3:4,4:5,5:6,6:7,7:8
qos_sl2vl 0,1,2,3,4,5,6,7,7,6,5,4,3,2,1,0
qos_ca_max_vls 8
qos_ca_high_limit 3
qos_ca_vlarb_low 0:16,1:16,9:1
qos_ca_sl2vl 1,0,1,0,1,0,1,0,1,0,1,0,1,0,1,15
qos_rtr_max_vls 4
qos_rtr_high_limit 1
qos_rtr_vlarb_high 0:1
qos_rtr_vlarb_low 0:1
qos_rtr_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
qos_sw0_max_vls 8
qos_sw0_high_limit 2
qos_sw0_vlarb_high 0:64,7:64
qos_sw0_vlarb_low 0:4,1:4
qos_sw0_sl2vl 3,3,3,3,2,2,2,2,1,1,1,1,0,0,0,0
qos_swe_max_vls 8
qos_swe_high_limit 4
qos_swe_vlarb_high 0:32,3:32,12:8
qos_swe_vlarb_low 0:1,1:1,2:1,3:1,4:1,5:1,6:1,7:1
qos_swe_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
"""
RE_NODE = re.compile(r'^(Switch|Channel Adapter|Router) (0x[0-9a-fA-F]+), base LID (\d+)')
RE_ROW = re.compile(r'^(\d+)\s+(\d+)\s+:((?:\s+\d+){16})\s*$')
RE_SW = re.compile(r'^Switch\s*:\s*(0x[0-9a-fA-F]+) ports (\d+) .*\blid (\d+)')
RE_CA = re.compile(r'^CA\s+(\d+)\s+(\d+)\s+(0x[0-9a-fA-F]+)')
RE_SMP_SL2VL = re.compile(r'^ports: in\s+(\d+), out\s+(\d+): \|((?:\s*\d+\|){16})')
# torus-2QoS's warnings on the configuration, in OpenSM's log and in
# ibroute's notes: (kind, key)
RE_T2Q_KEY = re.compile(r"\b(qos(?:_ca|_rtr|_sw0|_swe)?_(?:sl2vl|vlarb_high|vlarb_low|max_vls))\b")


def t2q_kind(text):
    if "override" in text:
        return "override"
    if "VLs 2-7" in text:
        return "ep-vlarb"
    if "VLs 0-3" in text:
        return "swe-vlarb"
    if "max_vls" in text or "functionality" in text:
        return "max_vls"
    return None


def t2q_warnings(lines):
    """{(kind, key)} of torus-2QoS configuration warnings (the key named
    last: the family a setting is used for)."""
    out = set()
    for ln in lines:
        kind = t2q_kind(ln)
        keys = RE_T2Q_KEY.findall(ln)
        if kind and keys:
            out.add((kind, keys[-1]))
    return out


RE_VLARB_HDR = re.compile(r'^# VLArbitration tables: (?:Lid (\d+)|.* lid (\d+)) port (\d+)')


def diag(argv):
    env = dict(os.environ)
    env["LD_PRELOAD"] = env["IBR_UMAD2SIM"]
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def readback(outdir):
    """Runs under run_opensm.py --then: smpquery the sampled ports."""
    os.makedirs(outdir, exist_ok=True)
    rc, sw_out = diag(["ibswitches"])
    rc2, ca_out = diag(["ibnetdiscover", "-p"])
    if rc or rc2:
        print(sw_out + ca_out)
        return 1
    switches = sorted((int(m.group(3)), int(m.group(2))) for m in
                      map(RE_SW.match, sw_out.splitlines()) if m)[:2]
    cas = sorted(set(int(m.group(1)) for m in map(RE_CA.match, ca_out.splitlines())
                     if m))[:3]
    res = {"switches": switches, "cas": cas, "sl2vl": [], "vlarb": []}
    for lid, nports in switches:
        for port in range(0, nports + 1):
            rc, out = diag(["smpquery", "vlarb", str(lid), str(port)])
            res["vlarb"].append({"lid": lid, "port": port, "rc": rc, "out": out})
            if port:
                rc, out = diag(["smpquery", "sl2vl", str(lid), str(port)])
                res["sl2vl"].append({"lid": lid, "port": port, "rc": rc, "out": out})
    for lid in cas:
        for what in ("vlarb", "sl2vl"):
            rc, out = diag(["smpquery", what, str(lid)])
            res[what].append({"lid": lid, "port": None, "rc": rc, "out": out})
    with open(os.path.join(outdir, "readback.json"), "w") as f:
        json.dump(res, f, indent=1)
    return 0


def read_dump(path):
    """opensm-sl2vl.dump -> {(base LID, in, out): [16 VLs]} and per-LID type."""
    tabs, kinds, cur = {}, {}, None
    with open(path) as f:
        for line in f:
            m = RE_NODE.match(line)
            if m:
                cur = int(m.group(3))
                kinds[cur] = m.group(1)
                continue
            m = RE_ROW.match(line)
            if m and cur is not None:
                tabs[(cur, int(m.group(1)), int(m.group(2)))] = [int(v) for v in
                                                                 m.group(3).split()]
    return tabs, kinds


def vlarb_blocks(text):
    """{(lid, port): [rows]} of ibr-vlarb.txt or smpquery vlarb output."""
    blocks, cur = {}, None
    for line in text.splitlines():
        m = RE_VLARB_HDR.match(line)
        if m:
            cur = (int(m.group(1) or m.group(2)), int(m.group(3)))
            blocks[cur] = []
        elif cur is not None and line.strip():
            blocks[cur].append(line.rstrip())
    return blocks


def merged_torus(ibr, work):
    """The credit loop of a merged qos_sl2vl: ibroute and ibdmchk agree."""
    exe = shutil.which("ibdmchk")
    if not exe:
        print("SKIP: ibdmchk not installed")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    topo = os.path.join(work, "t543.topo")
    cm.run([ibr, "gen", "torus:dims=5x4x3,hosts=1", "--faults", "4", "--seed", "3", "-o", topo],
           "ibr gen")
    conf = os.path.join(work, "merged.conf")
    with open(conf, "w") as f:
        f.write("qos_sl2vl 0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7\n")
    problems, summary = [], {}
    for name, qos in (("merged", ["--qos-config", conf]), ("default", ["-Q"])):
        out = os.path.join(work, name)
        p = cm.run([ibr, "route", "--all-dumps", "-R", "dfsssp,no_fallback", "-q", topo,
                    "-o", out] + qos, "ibr route", ok=(0, 1))
        hazard = "credit-loop hazard" in p.stdout
        loop = "CREDIT LOOP" in p.stdout
        q = subprocess.run([exe, "-s", "opensm-subnet.lst", "-f", "opensm.fdbs", "-m",
                            "opensm.mcfdbs", "-c", "ibr-paths.psl", "-d", "ibr-paths.sl2vl"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=out,
                           timeout=600)
        dm = ("Found credit loop" in q.stdout or "credit loops in routing" in q.stdout) \
            if "no credit loops found" not in q.stdout else False
        summary[name] = {"hazard": hazard, "ibroute_loop": loop, "ibdmchk_loop": dm}
        want = name == "merged"
        if hazard != want or loop != want or dm is not want:
            problems.append("%s map: hazard %s, ibroute loop %s, ibdmchk loop %s (expected %s)"
                            % (name, hazard, loop, dm, want))
    summary["problems"] = problems
    print(json.dumps(summary, indent=1))
    return 1 if problems else 0


def ibdmchk_loop(exe, out, psl):
    """ibdmchk -c psl -d ibr-paths.sl2vl in out: True (loop), False (none) or
    None (no verdict)."""
    q = subprocess.run([exe, "-s", "opensm-subnet.lst", "-f", "opensm.fdbs", "-m",
                        "opensm.mcfdbs", "-c", psl, "-d", "ibr-paths.sl2vl"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=out,
                       timeout=600)
    if "no credit loops found" in q.stdout:
        return False
    if "Found credit loop" in q.stdout or "credit loops in routing" in q.stdout:
        return True
    return None


# (engine, fabric, faults, QoS levels) of the --levels run
TORUS = ("torus:dims=4x4x3,hosts=1", ["--faults", "2", "--seed", "3"])
MESH = ("mesh:dims=5x4,hosts=1", ["--faults", "2", "--seed", "1"])
RANDOM = ("random:switches=24,degree=4,hosts=1,seed=2", [])
LEVEL_CASES = [
    ("lash", TORUS, 2), ("lash", MESH, 2), ("lash", RANDOM, 2),
    ("dfsssp", MESH, 4), ("dfsssp", RANDOM, 2), ("dfsssp", TORUS, 8),
    ("nue", TORUS, 2), ("nue", MESH, 3), ("nue", RANDOM, 4),
]


def levels_check(ibr, work):
    """Every QoS level credit-loop free under the programmed SL2VL, by
    ibroute and by ibdmchk, and a folded level caught by both."""
    exe = shutil.which("ibdmchk")
    if not exe:
        print("SKIP: ibdmchk not installed")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems, summary = [], []
    topos = {}
    for i, (engine, (spec, faults), levels) in enumerate(LEVEL_CASES):
        key = (spec, tuple(faults))
        if key not in topos:
            topos[key] = os.path.join(work, "f%d.topo" % len(topos))
            cm.run([ibr, "gen", spec, "-o", topos[key]] + faults, "ibr gen")
        out = os.path.join(work, "c%d-%s" % (i, engine))
        p = cm.run([ibr, "route", "--all-dumps", "-R", engine + ",no_fallback", "-q",
                    topos[key], "--qos-levels", str(levels), "--strict", "-o", out],
                   "ibr route", ok=(0, 1))
        row = {"engine": engine, "fabric": spec, "faults": faults, "levels": levels,
               "ibroute_exit": p.returncode,
               "ibroute_loop": "CREDIT LOOP" in p.stdout,
               "hazard": "credit-loop hazard" in p.stdout}
        m = re.search(r"qos levels: (\d+)", p.stdout)
        row["routed_levels"] = int(m.group(1)) if m else None
        row["ibdmchk_loop"] = [ibdmchk_loop(exe, out, "ibr-paths.psl" if lv == 0 else
                                            "ibr-paths.level%d.psl" % lv)
                               if os.path.exists(os.path.join(
                                   out, "ibr-paths.psl" if lv == 0 else
                                   "ibr-paths.level%d.psl" % lv)) else "missing"
                               for lv in range(levels)]
        summary.append(row)
        if p.returncode != 0 or row["ibroute_loop"] or row["hazard"] or \
                row["routed_levels"] != levels or row["ibdmchk_loop"] != [False] * levels:
            problems.append("%s on %s with %d levels: %s" % (engine, spec, levels, row))
    # dfsssp on the faulty torus: OpenSM's cycle breaking needs 5 VLs, yet 3
    # levels of 2 VLs fit (dfsssp lays the paths out again) and so do 8
    # levels of 1 VL (dimension order on the torus's rings needs a single
    # layer; LEVEL_CASES checks those 8 levels with ibdmchk). On the random
    # graph dfsssp needs 3 layers, so 8 levels of 1 VL do not fit, and the
    # decline says so with the numbers.
    key = (TORUS[0], tuple(TORUS[1]))
    topo = topos[key]
    p = cm.run([ibr, "route", "-R", "dfsssp,no_fallback", "-q", topo, "--qos-levels", "3"],
               "ibr route", ok=(0,))
    fits = "qos levels: 3" in p.stdout and "CREDIT LOOP" not in p.stdout
    summary.append({"dfsssp_3_levels": fits})
    if not fits:
        problems.append("dfsssp with 3 levels on the faulty torus:\n" + p.stdout[-600:])
    topo = topos[(RANDOM[0], tuple(RANDOM[1]))]
    p = cm.run([ibr, "route", "-R", "dfsssp,no_fallback", "-q", topo, "--qos-levels", "8"],
               "ibr route", ok=(1,))
    why = re.search(r"dfsssp: IBR_ENOVL \((with 8 QoS levels, 1 VLs per level \(of 8\): "
                    r"(\d+) virtual lanes needed[^)]*\))", p.stdout)
    summary.append({"decline": why.group(1) if why else p.stdout[-300:]})
    if not why or int(why.group(2)) < 2:
        problems.append("dfsssp with 8 levels on the random graph: no decline with the "
                        "numbers:\n" + p.stdout[-600:])
    # level 1's lash layers folded onto VL 3
    conf = os.path.join(work, "fold.conf")
    with open(conf, "w") as f:
        f.write("ibr_qos_levels 2\nqos_sl2vl 0,1,2,3,3,3,3,3,3,3,3,3,3,3,3,3\n")
    out = os.path.join(work, "folded")
    p = cm.run([ibr, "route", "--all-dumps", "-R", "lash,no_fallback", "-q", topo,
                "--qos-config", conf, "--strict", "-o", out], "ibr route", ok=(0, 1))
    fold = {"ibroute_exit": p.returncode, "hazard": "credit-loop hazard" in p.stdout,
            "ibroute_loop": "CREDIT LOOP" in p.stdout,
            "ibdmchk_level0_loop": ibdmchk_loop(exe, out, "ibr-paths.psl"),
            "ibdmchk_level1_loop": ibdmchk_loop(exe, out, "ibr-paths.level1.psl")}
    summary.append({"folded_level1": fold})
    if fold != {"ibroute_exit": 1, "hazard": True, "ibroute_loop": True,
                "ibdmchk_level0_loop": False, "ibdmchk_level1_loop": True}:
        problems.append("folded level 1: %s" % fold)
    print(json.dumps({"cases": summary, "problems": problems}, indent=1))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--readback", metavar="DIR", help=argparse.SUPPRESS)
    ap.add_argument("--ibr")
    ap.add_argument("--engine", default="minhop")
    ap.add_argument("--spec")
    ap.add_argument("--workdir")
    ap.add_argument("--root-switches", type=int, default=0,
                    help="give both this many root switches (updn on a torus)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--merged-torus", action="store_true",
                    help="the merged qos_sl2vl case with ibdmchk (no OpenSM)")
    ap.add_argument("--levels", action="store_true",
                    help="QoS levels, level by level with ibdmchk (no OpenSM)")
    args = ap.parse_args()
    if args.levels:
        return levels_check(os.path.abspath(args.ibr), os.path.abspath(args.workdir))
    if args.readback:
        return readback(args.readback)
    if args.merged_torus:
        return merged_torus(os.path.abspath(args.ibr), os.path.abspath(args.workdir))
    for tool in ("smpquery", "ibswitches", "ibnetdiscover"):
        if not shutil.which(tool):
            print("SKIP: %s not installed" % tool)
            return SKIP
    ibr, work, topo, osm_dir, ibr_dir = cm.workdirs(args)
    rb_dir = os.path.join(work, "readback")
    conf = os.path.join(work, "qos.conf")
    with open(conf, "w") as f:
        f.write(QOS_CONF)
    summary = {"engine": args.engine, "spec": args.spec}
    problems = []
    try:
        cm.run([ibr, "gen", args.spec, "-o", topo], "ibr gen")
        then = "%s %s --readback %s" % (sys.executable, os.path.abspath(__file__), rb_dir)
        harness = ["--qos", "--timeout", str(args.timeout), "--then", then]
        harness += ["--conf-line=" + ln for ln in QOS_CONF.splitlines()]
        ibr_extra = []
        if args.engine == "torus-2QoS":
            tconf = os.path.join(work, "torus-2QoS.conf")
            kind, dims = t2q.parse_spec(args.spec)
            t2q.write_conf(tconf, kind, dims)
            harness += ["--opensm-arg=--torus_config", "--opensm-arg=" + tconf]
            ibr_extra += ["--torus-config", tconf]
        if args.root_switches:
            rfile = os.path.join(work, "roots.txt")
            with open(rfile, "w") as f:
                f.write("".join("0x%016x\n" % g for g in cu.pick_roots(topo,
                                                                       args.root_switches)))
            harness += ["--opensm-arg=--root_guid_file", "--opensm-arg=" + rfile]
            ibr_extra += ["--root-guids", rfile]
        cm.opensm(harness, topo, args.engine, osm_dir, ok=(0,))
        p = cm.run([ibr, "route", "-R", args.engine + ",no_fallback", "-q", "--guid2lid",
                    os.path.join(osm_dir, "guid2lid"), "--qos-config", conf, topo, "-o",
                    ibr_dir] + ibr_extra, "ibr route")
        summary["ibr_qos_lines"] = [ln for ln in p.stdout.splitlines() if "qos" in ln
                                    or "hazard" in ln]
        if args.engine == "torus-2QoS":
            # every configuration warning of OpenSM's torus-2QoS is a note of
            # ibroute's (which also names the global qos_sl2vl it overrides)
            with open(os.path.join(osm_dir, "opensm.log"), errors="replace") as f:
                osm_w = t2q_warnings(ln for ln in f if "torus-2QoS" in ln and
                                     ("Warning" in ln or "warning" in ln))
            ibr_w = t2q_warnings(ln for ln in p.stdout.splitlines() if "qos note:" in ln)
            summary["torus_warnings"] = sorted("%s %s" % w for w in osm_w)
            if not osm_w or osm_w - ibr_w or ibr_w - osm_w - {("override", "qos_sl2vl")}:
                problems.append("torus-2QoS warnings: OpenSM %s, ibroute %s" % (
                    sorted(osm_w), sorted(ibr_w)))
        # 1. the SL2VL dumps
        got, kinds = read_dump(os.path.join(osm_dir, "opensm-sl2vl.dump"))
        exp, _ = read_dump(os.path.join(ibr_dir, "opensm-sl2vl.dump"))
        diff = sorted(k for k in set(got) | set(exp) if got.get(k) != exp.get(k))
        summary["sl2vl_dump_rows"] = len(got)
        summary["sl2vl_ca_rows"] = sum(1 for k in got if kinds[k[0]] != "Switch")
        if not got or diff:
            problems.append("opensm-sl2vl.dump: %d of %d rows differ, e.g. %s" % (
                len(diff), len(got), ["%s: OpenSM %s, ibroute %s" % (k, got.get(k), exp.get(k))
                                      for k in diff[:3]]))
        # 2. and 3. what the ports hold
        with open(os.path.join(rb_dir, "readback.json")) as f:
            rb = json.load(f)
        with open(os.path.join(ibr_dir, "ibr-vlarb.txt")) as f:
            ibr_vlarb = vlarb_blocks(f.read())
        n_sl2vl = n_vlarb = 0
        for e in rb["sl2vl"]:
            if e["rc"]:
                problems.append("smpquery sl2vl %s %s failed: %s" % (e["lid"], e["port"],
                                                                      e["out"][-300:]))
                continue
            for line in e["out"].splitlines():
                m = RE_SMP_SL2VL.match(line)
                if not m:
                    continue
                key = (e["lid"], int(m.group(1)), int(m.group(2)))
                if e["port"] is not None and key not in exp:
                    continue  # an output port without a link: not programmed
                vls = [int(v) for v in m.group(3).replace("|", " ").split()]
                n_sl2vl += 1
                if exp.get(key) != vls:
                    problems.append("port %s holds SL2VL %s, ibroute has %s" % (
                        key, vls, exp.get(key)))
        for e in rb["vlarb"]:
            if e["rc"]:
                problems.append("smpquery vlarb %s %s failed" % (e["lid"], e["port"]))
                continue
            blocks = vlarb_blocks(e["out"])
            for (lid, port), rows in blocks.items():
                if e["port"] is None:   # a CA: ibroute names its port 1
                    port = 1
                want = ibr_vlarb.get((lid, port))
                if want is None and e["port"] and (lid, port, 0) not in exp:
                    continue  # no link
                n_vlarb += 1
                if want != rows:
                    problems.append("lid %d port %d holds VLArb %s, ibroute has %s" % (
                        lid, port, rows, want))
        summary["readback_sl2vl_rows"] = n_sl2vl
        summary["readback_vlarb_ports"] = n_vlarb
        if n_sl2vl == 0 or n_vlarb == 0:
            problems.append("nothing read back (%d SL2VL rows, %d VLArb ports)"
                            % (n_sl2vl, n_vlarb))
    except cm.Fail as e:
        problems.append(str(e))
    summary["problems"] = problems
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(cm.main_exit(main))
