#!/usr/bin/env python3
"""ibroute inside OpenSM: the libibroute-opensm.so plugin under ibsim.

  compare_plugin.py --ibr PATH --plugin-dir DIR --engine ENGINE --spec SPEC
                    --workdir DIR [--lmc N] [--pairs K] [--expect-decline]
                    [--io-reverse-hops N] ...

1. `ibr gen SPEC` writes the fabric;
2. run_opensm.py starts ibsim and a standing OpenSM with
   `event_plugin_name ibroute-opensm` (LD_LIBRARY_PATH=DIR) and
   `-R ibr-ENGINE`; once the subnet is up this script runs again
   (--readback) as a client on a second CA of the simulated fabric and reads
   the switches' LFTs back over MADs (infiniband-diags `ibroute`), traces K
   host pairs with `ibtracert` and, for engines with SLs, asks the SA for
   their PathRecords (`saquery -p --src-to-dst`);
3. `ibr route -R ENGINE,no_fallback --guid2lid <OpenSM's guid2lid>` routes
   the same fabric with the same LIDs.

Fails (exit 1) unless OpenSM used ibr-ENGINE; the LFTs it dumped
(opensm-lfts.dump) and those read back from the switches both equal ibr
route's; every ibtracert path crosses the switches and ports `ibr trace`
gives; and each PathRecord SL equals ibr route's ibr-paths.psl entry.
With --expect-decline: OpenSM must fall back to its minhop and its log must
carry ibroute's reason (the message of `ibr route`'s declined attempt).
Exit 77 when the plugin was not built or ibsim/OpenSM/infiniband-diags are
missing.
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
import compare_torus2qos as t2q  # noqa: E402  (torus-2QoS.conf of a generated torus)
import compare_updown as cu  # noqa: E402  (root switches spread over a netfile)

SKIP = 77
PLUGIN = "ibroute-opensm"
RE_SWITCH = re.compile(r'^Switch\s*:\s*(0x[0-9a-fA-F]+).*\blid (\d+)')
RE_HOST = re.compile(r'^CA\s+(\d+)\s+\d+\s+(0x[0-9a-fA-F]+)')
RE_HOP = re.compile(r'^\[(\d+)\] -> (switch|ca) port \{(0x[0-9a-fA-F]+)\}\[(\d+)\]')
RE_SL = re.compile(r'^\s*sl\.+(0x[0-9a-fA-F]+|\d+)\s*$', re.M)
DIAGS = ("ibswitches", "ibnetdiscover", "ibaddr", "ibroute", "ibtracert", "saquery")


# ----------------------------------------------------------------------------
# --readback: runs under run_opensm.py --then, while OpenSM is up


def diag(argv):
    env = dict(os.environ)
    env["LD_PRELOAD"] = env["IBR_UMAD2SIM"]
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def readback(outdir, npairs, want_sl):
    os.makedirs(outdir, exist_ok=True)
    rc, sw_out, err = diag(["ibswitches"])
    if rc != 0:
        print("ibswitches failed: %s" % err)
        return 1
    rc, host_out, err = diag(["ibnetdiscover", "-p"])
    if rc != 0:
        print("ibnetdiscover -p failed: %s" % err)
        return 1
    switch_lids = sorted(int(m.group(2)) for m in map(RE_SWITCH.match, sw_out.splitlines())
                         if m)
    host_lids = sorted(set(int(m.group(1)) for m in map(RE_HOST.match,
                                                         host_out.splitlines()) if m))
    rc, out, err = diag(["ibaddr"])
    m = re.search(r"LID start (0x[0-9a-fA-F]+)", out)
    if rc != 0 or not m:
        print("ibaddr failed: %s%s" % (out, err))
        return 1
    own_lid = int(m.group(1), 16)
    unreadable = []     # switches whose LID this host has no route to
    with open(os.path.join(outdir, "lfts.txt"), "w") as f:
        for lid in switch_lids:
            rc, out, err = diag(["ibroute", str(lid)])
            if rc != 0:
                unreadable.append(lid)
                continue
            f.write(out)
    pairs = []
    n = len(host_lids)
    for i in range(min(npairs, n // 2)):
        pairs.append((host_lids[i], host_lids[n - 1 - i]))
        pairs.append((host_lids[n - 1 - i], host_lids[(i + n // 2) % n]))
    result = {"switch_lids": switch_lids, "host_lids": host_lids, "pairs": [],
              "own_lid": own_lid, "unreadable_switch_lids": unreadable}
    for s, d in pairs:
        if s == d:
            continue
        entry = {"src": s, "dst": d}
        rc, out, err = diag(["ibtracert", str(s), str(d)])
        entry["tracert_rc"], entry["tracert"] = rc, out + err
        if want_sl:
            rc, out, err = diag(["saquery", "-p", "--src-to-dst", "%d:%d" % (s, d)])
            m = RE_SL.search(out)
            entry["saquery_rc"] = rc
            entry["sl"] = int(m.group(1), 0) if m else None
            if m is None:
                entry["saquery"] = out[-2000:] + err[-2000:]
        result["pairs"].append(entry)
    with open(os.path.join(outdir, "readback.json"), "w") as f:
        json.dump(result, f, indent=1)
    return 0


# ----------------------------------------------------------------------------


def parse_tracert(text):
    """ibtracert output -> [(switch guid, in port, out port)]."""
    links = [(int(m.group(1)), m.group(2), int(m.group(3), 16), int(m.group(4)))
             for m in map(RE_HOP.match, text.splitlines()) if m]
    hops = []
    for k, (_, kind, guid, inp) in enumerate(links):
        if kind != "switch":
            continue
        out = links[k + 1][0] if k + 1 < len(links) else None
        hops.append((guid, inp, out))
    return hops


def read_guid2lid(path):
    """OpenSM's guid2lid -> {base LID: port GUID}."""
    lids = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3:
                base, last = int(w[1], 0), int(w[2], 0)
                for lid in range(base, last + 1):
                    lids[lid] = int(w[0], 16)
    return lids


def read_psl(path):
    """ibr-paths.psl -> {(source port GUID, DLID): SL}."""
    sls = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and not line.startswith("#"):
                sls[(int(w[0], 16), int(w[1], 0))] = int(w[2])
    return sls


RE_SL2VL_NODE = re.compile(r'^(Switch|Channel Adapter|Router) (0x[0-9a-fA-F]+)')
RE_SL2VL_ROW = re.compile(r'^(\d+)\s+(\d+)\s+:\s+([\d\s]+)$')


def read_sl2vl(path):
    """opensm-sl2vl.dump -> {(switch GUID, in port, out port): [VL per SL]}
    (switches only: OpenSM keeps its QoS tables on end ports)."""
    tables, cur = {}, None
    with open(path) as f:
        for line in f:
            m = RE_SL2VL_NODE.match(line)
            if m:
                cur = int(m.group(2), 16) if m.group(1) == "Switch" else None
                continue
            m = RE_SL2VL_ROW.match(line)
            if m and cur is not None:
                tables[(cur, int(m.group(1)), int(m.group(2)))] = \
                    [int(v) for v in m.group(3).split()]
    return tables


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--readback", metavar="DIR", help=argparse.SUPPRESS)
    ap.add_argument("--want-sl", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ibr")
    ap.add_argument("--plugin-dir", help="directory holding libibroute-opensm.so")
    ap.add_argument("--engine", help="ibroute engine (OpenSM runs ibr-ENGINE)")
    ap.add_argument("--spec")
    ap.add_argument("--workdir")
    ap.add_argument("--name", default=None)
    ap.add_argument("--lmc", type=int, default=0)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1", help="seed of the faults")
    ap.add_argument("--pairs", type=int, default=4, help="host pairs traced (x2)")
    ap.add_argument("--expect-decline", action="store_true")
    ap.add_argument("--root-switches", type=int, default=0,
                    help="K switches into a root GUID file for both (OpenSM "
                    "--root_guid_file, which the plugin reads)")
    ap.add_argument("--torus-conf", action="store_true",
                    help="a torus-2QoS.conf of the generated torus/mesh for both "
                    "(OpenSM --torus_config)")
    ap.add_argument("--routing-order", action="store_true",
                    help="a guid_routing_order_file listing the CA ports in reverse "
                    "order for both (OpenSM --guid_routing_order_file)")
    ap.add_argument("--io-reverse-hops", type=int, default=None, metavar="N",
                    help="the first CA port as an I/O node for both (OpenSM "
                    "--io_guid_file) and max_reverse_hops N (OpenSM --max_reverse_hops)")
    ap.add_argument("--nue-vls", type=int, default=0,
                    help="OpenSM --nue_max_num_vls N; ibr route nue.max_vls=N")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    if args.readback:
        return readback(args.readback, args.pairs, args.want_sl)
    for req in ("ibr", "plugin_dir", "engine", "spec", "workdir"):
        if not getattr(args, req):
            ap.error("--%s is required" % req.replace("_", "-"))

    so = os.path.join(os.path.abspath(args.plugin_dir), "lib%s.so" % PLUGIN)
    if not os.path.exists(so):
        print("SKIP: the OpenSM plugin was not built (%s missing: meson -Dopensm_plugin, "
              "needs libopensm-dev)" % so)
        return SKIP
    missing = [d for d in DIAGS if not shutil.which(d)]
    if missing:
        print("SKIP: infiniband-diags missing: " + ", ".join(missing))
        return SKIP

    eng = args.engine
    name = args.name or "%s on %s" % (eng, args.spec)
    ibr, work, topo, osm_dir, ibr_dir = cm.workdirs(args)
    rb_dir = os.path.join(work, "readback")
    summary = {"name": name, "engine": eng, "spec": args.spec, "lmc": args.lmc}
    problems = []

    try:
        if args.faults:
            # failed links/switches, nodes cut off from the SM's host pruned
            raw = os.path.join(work, "generated.net")
            cm.run([ibr, "gen", args.spec, "-o", raw, "--remove-down", "--faults",
                    args.faults, "--seed", args.seed], "ibr gen")
            summary["pruned_nodes"] = cm.prune_netfile(raw, topo)
        else:
            cm.run([ibr, "gen", args.spec, "-o", topo], "ibr gen")
        # does ibroute route it, and with SLs?
        info = json.loads(cm.run([ibr, "engines", "--json"], "ibr engines").stdout)
        caps = next((e.get("caps_text", "") for e in info if e.get("name") == eng), "")
        want_sl = "sl" in caps.split(",")

        then = "%s %s --readback %s --pairs %d%s" % (
            sys.executable, os.path.abspath(__file__), rb_dir, args.pairs,
            " --want-sl" if want_sl else "")
        harness = ["--timeout", str(args.timeout), "--event-plugin", PLUGIN]
        if not args.expect_decline:
            harness += ["--then", then]
        if want_sl:
            harness.append("--qos")
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        ibr_extra = []
        if args.root_switches:
            rfile = os.path.join(work, "roots.txt")
            with open(rfile, "w") as f:
                f.write("".join("0x%016x\n" % g for g in cu.pick_roots(topo,
                                                                       args.root_switches)))
            harness += ["--opensm-arg=--root_guid_file", "--opensm-arg=" + rfile]
            ibr_extra += ["--root-guids", rfile]
        if args.torus_conf:
            conf = os.path.join(work, "torus-2QoS.conf")
            kind, dims = t2q.parse_spec(args.spec)
            t2q.write_conf(conf, kind, dims)
            harness += ["--opensm-arg=--torus_config", "--opensm-arg=" + conf]
            ibr_extra += ["--torus-config", conf]
        if args.routing_order:
            # CA port GUIDs of the netfile ("[1](2c90301000001)" lines), reversed
            with open(topo) as f:
                ports = [int(m.group(1), 16) for m in
                         (re.match(r"^\[\d+\]\(([0-9a-fA-F]+)\)", ln) for ln in f) if m]
            ofile = os.path.join(work, "routing-order.txt")
            with open(ofile, "w") as f:
                f.write("".join("0x%016x\n" % g for g in reversed(ports)))
            harness += ["--opensm-arg=--guid_routing_order_file", "--opensm-arg=" + ofile]
            ibr_extra += ["--guid-routing-order", ofile]
        if args.io_reverse_hops is not None:
            # issue 34: with I/O nodes and max_reverse_hops 255 the plugin's
            # ftree searched exponentially and OpenSM never came up
            with open(topo) as f:
                first = next(int(m.group(1), 16) for m in
                             (re.match(r"^\[\d+\]\(([0-9a-fA-F]+)\)", ln) for ln in f) if m)
            iofile = os.path.join(work, "io.guids")
            with open(iofile, "w") as f:
                f.write("0x%016x\n" % first)
            harness += ["--opensm-arg=--io_guid_file", "--opensm-arg=" + iofile,
                        "--opensm-arg=--max_reverse_hops",
                        "--opensm-arg=%d" % args.io_reverse_hops]
            ibr_extra += ["--io-guids", iofile, "--max-reverse-hops", str(args.io_reverse_hops)]
        if args.nue_vls:
            harness += ["--opensm-arg=--nue_max_num_vls",
                        "--opensm-arg=%d" % args.nue_vls]
            ibr_extra += ["--param", "nue.max_vls=%d" % args.nue_vls]
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = os.path.dirname(so) + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        cm.opensm(harness, topo, "ibr-" + eng, osm_dir, env=env)
        osm_run = cm.opensm_run(osm_dir)
        summary["opensm_engine_used"] = osm_run.get("engine_used")
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        g2l = os.path.join(osm_dir, "guid2lid")
        with open(os.path.join(osm_dir, "opensm.log"), encoding="utf-8",
                  errors="replace") as f:
            oslog = f.read()

        argv = [ibr, "route", "--all-dumps", "-R", eng + ",no_fallback", "--no-progress", "--json",
                "--guid2lid", g2l, topo, "-o", ibr_dir] + ibr_extra
        route = json.loads(cm.run(argv, "ibr route", ok=(0, 1)).stdout)
        summary["ibroute_status"] = route.get("status")
        ibr_ok = route.get("engine") == eng

        if args.expect_decline:
            if ibr_ok:
                raise cm.Fail("ibr route's %s routes this fabric: no decline to test" % eng)
            reason = next((a.get("message") for a in route.get("attempts", [])
                           if a.get("engine") == eng), "") or ""
            summary["reason"] = reason
            if osm_run.get("engine_used") != "minhop":
                problems.append("OpenSM used %s, not its fallback minhop"
                                % osm_run.get("engine_used"))
            want = "ibr-%s: ibroute's %s declined" % (eng, eng)
            line = next((ln for ln in oslog.splitlines() if want in ln), None)
            summary["log_line"] = line
            if line is None:
                problems.append("OpenSM's log has no '%s' line" % want)
            elif not reason or reason not in line:
                problems.append("OpenSM's log does not carry ibroute's reason %r: %s"
                                % (reason, line))
        else:
            if osm_run.get("engine_used") != "ibr-" + eng:
                problems.append("OpenSM used %s, not ibr-%s" % (osm_run.get("engine_used"),
                                                                eng))
            if not ibr_ok:
                raise cm.Fail("ibr route's %s failed: %s" % (eng, route.get("error")))
            m = re.search(r"ibr-%s: ibroute %s routed .* in ([0-9.]+) s .* of (\d+) available"
                          % (re.escape(eng), re.escape(eng)), oslog)
            if not m:
                problems.append("OpenSM's log has no routing line of the plugin")
            else:
                summary["plugin_route_time_s"] = float(m.group(1))
            sl2vl_ibr = os.path.join(ibr_dir, "opensm-sl2vl.dump")
            # without ibroute SL2VL tables (nue keeping one layer writes no SL
            # files) the switches keep OpenSM's QoS tables: nothing to compare
            if want_sl and m and os.path.exists(sl2vl_ibr):
                # the switches' SL2VL tables OpenSM programmed are ibroute's,
                # with VLs beyond the ports' operational VLs masked as
                # OpenSM does (VL 15 kept)
                avail = int(m.group(2))
                mask = avail - 1 if avail in (1, 2, 4, 8) else 15
                got = read_sl2vl(os.path.join(osm_dir, "opensm-sl2vl.dump"))
                exp = read_sl2vl(sl2vl_ibr)
                common = [k for k in got if k in exp]
                bad = [k for k in common
                       if got[k] != [v if v == 15 else v & mask for v in exp[k]]]
                summary["sl2vl_checked"] = len(common)
                if not common or bad or len(common) != len(got):
                    problems.append("SL2VL: %d of %d switch port pairs checked (%d in "
                                    "OpenSM's dump), %d differ, e.g. %s" % (
                                        len(common), len(exp), len(got), len(bad),
                                        ["0x%016x %d->%d: OpenSM %s, ibroute %s" % (
                                            k[0], k[1], k[2], got[k], exp[k])
                                         for k in bad[:2]]))
            ibr_lfts = cm.read_lfts(os.path.join(ibr_dir, "opensm-lfts.dump"))
            d = cm.diff_lfts(cm.read_lfts(os.path.join(osm_dir, "opensm-lfts.dump")),
                             ibr_lfts)
            summary["dump_diff"] = d
            if d["differ"] or d["switches_only_opensm"] or d["switches_only_ibroute"] \
                    or not d["entries"]:
                problems.append("OpenSM's opensm-lfts.dump differs from ibr route's: %s" % d)
            if osm_run.get("then_exit") != 0:
                problems.append("the MAD read-back failed (exit %s): %s" % (
                    osm_run.get("then_exit"),
                    cm_tail(os.path.join(osm_dir, "then.out"))))
            else:
                with open(os.path.join(rb_dir, "readback.json")) as f:
                    rb = json.load(f)
                mad = cm.read_lfts(os.path.join(rb_dir, "lfts.txt"))
                # a switch whose LID the reading host has no route to (an
                # up/down routing may leave switch LIDs unrouted) cannot be
                # read over LID-routed MADs: ibr trace must agree that the
                # route is missing, and its table is left out
                skipped = set()
                for lid in rb.get("unreadable_switch_lids", []):
                    t = json.loads(cm.run([ibr, "trace", topo,
                                           os.path.join(ibr_dir, "opensm-lfts.dump"),
                                           "--guid2lid", g2l, "--from", str(rb["own_lid"]),
                                           "--to", str(lid), "--json"], "ibr trace",
                                          ok=(0, 1)).stdout)
                    if t.get("reached"):
                        problems.append("switch LID %d could not be read over MADs, but "
                                        "ibr trace reaches it from LID %d" % (
                                            lid, rb["own_lid"]))
                    else:
                        skipped.add(int(t["dst_guid"], 16))
                summary["mad_unreadable_switches"] = len(skipped)
                if len(skipped) * 2 > len(ibr_lfts):
                    problems.append("%d of %d switches unreadable over MADs" % (
                        len(skipped), len(ibr_lfts)))
                # infiniband-diags' ibroute prints no row for the top LID when
                # it opens a new 64-LID block (top 128: rows end at 127), for
                # OpenSM's own engines too; that LID is left to ibtracert
                # (the traced pairs include the highest host LID)
                want_mad = {}
                for sw, tbl in ibr_lfts.items():
                    if sw in skipped:
                        continue
                    top = max(tbl) if tbl else 0
                    want_mad[sw] = {lid: port for lid, port in tbl.items()
                                    if not (lid == top and top % 64 == 0 and
                                            lid not in mad.get(sw, {}))}
                d = cm.diff_lfts(mad, want_mad)
                summary["mad_diff"] = d
                if d["differ"] or d["switches_only_opensm"] or d["switches_only_ibroute"] \
                        or not d["entries"]:
                    problems.append("LFTs read from the switches differ from ibr route's: %s"
                                    % d)
                lid_guid = read_guid2lid(g2l)
                # no ibr-paths.psl: every path on SL 0 (one layer)
                pslf = os.path.join(ibr_dir, "ibr-paths.psl")
                psl = read_psl(pslf) if want_sl and os.path.exists(pslf) else {}
                traced = sl_checked = 0
                sls_seen = set()
                for e in rb["pairs"]:
                    s, dl = e["src"], e["dst"]
                    got = parse_tracert(e["tracert"])
                    t = json.loads(cm.run([ibr, "trace", topo,
                                           os.path.join(ibr_dir, "opensm-lfts.dump"),
                                           "--guid2lid", g2l, "--from", str(s), "--to",
                                           str(dl), "--json"], "ibr trace").stdout)
                    want = [(int(h["guid"], 16), h["in_port"], h["out_port"])
                            for h in t["hops"]]
                    if e["tracert_rc"] != 0 or got != want:
                        problems.append("ibtracert %d %d crosses %s, ibr trace %s" % (
                            s, dl, got, want))
                    traced += 1
                    if want_sl:
                        # ibr-paths.psl names sources as ibr trace does
                        exp = psl.get((int(t["src_guid"], 16), dl),
                                      psl.get((lid_guid.get(s), dl), 0))
                        if e.get("sl") != exp:
                            problems.append("SA PathRecord %d -> %d has SL %s, ibr-paths.psl "
                                            "%s" % (s, dl, e.get("sl"), exp))
                        sl_checked += 1
                        sls_seen.add(exp)
                summary["traced_pairs"] = traced
                summary["sl_checked"] = sl_checked
                summary["sls_seen"] = sorted(sls_seen)
                if traced == 0:
                    problems.append("no host pair traced")
    except cm.Fail as e:
        problems.append(str(e))
    summary["problems"] = problems
    cm.write_summary(work, summary)

    print("case %s" % name)
    print("  OpenSM engine used: %s" % summary.get("opensm_engine_used"))
    for k in ("dump_diff", "mad_diff"):
        d = summary.get(k)
        if d:
            print("  %s: %d of %d LFT entries differ" % (k, d["differ"], d["entries"]))
    if "traced_pairs" in summary:
        print("  ibtracert pairs checked: %d; PathRecord SLs checked: %d (SLs %s); "
              "SL2VL port pairs checked: %s"
              % (summary["traced_pairs"], summary["sl_checked"], summary["sls_seen"],
                 summary.get("sl2vl_checked", 0)))
    if summary.get("log_line"):
        print("  OpenSM log: %s" % summary["log_line"])
    return cm.verdict(problems)


def cm_tail(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()[-2000:]
    except OSError:
        return ""


if __name__ == "__main__":
    sys.exit(cm.main_exit(main))
