#!/usr/bin/env python3
"""Compare ibroute's multicast trees with OpenSM's for the same groups.

  compare_mcast.py --ibr PATH --spec SPEC --engine ENGINE --workdir DIR
                   [--groups N] [--seed N] [--faults L[,S] --fault-seed N] [--ibdmchk]

1. `ibr gen SPEC` writes the topology;
2. N random multicast groups (2..all CA ports each, plus one of every CA
   port) are written as an OpenSM SA database dump (opensm-sa.dump syntax);
3. OpenSM routes the fabric under ibsim with ENGINE and restores the groups
   from that dump (sa_db_file), programming their MFTs (run_opensm.py
   --sa-db); its opensm.mcfdbs is kept;
4. `ibr route -R ENGINE --guid2lid <OpenSM's> --sa-dump <the dump>` builds
   ibroute's trees for the same groups (torus-2QoS: both get a
   torus-2QoS.conf for the generator's layout, as compare_torus2qos.py).

Fails (exit 1) unless OpenSM programmed every group, ibroute's MFTs equal
OpenSM's switch by switch and MLID by MLID, and ibroute's verification
delivers every member pair exactly once. With --ibdmchk, ibdmchk -M (the
credit-loop check with the multicast dependencies) must accept ibroute's
opensm-subnet.lst, opensm.fdbs and opensm.mcfdbs: no -E- line that OpenSM's
dumps do not have, the same groups scanned as in OpenSM's, and no credit
loop where OpenSM's tables have none (minhop on a torus has loops in both).
With --deadlock-free, ibroute's own credit-loop check (with the multicast
dependencies, through the engine's SLs) must find no loop.

With --opensm-loops (torus-2QoS on a degraded torus where OpenSM's master
tree closes a credit loop with the unicast routes): the comparison above
runs with --param torus-2QoS.opensm_mcast_tree=1, ibroute's reproduction of
OpenSM's tree, whose MFTs must equal OpenSM's and whose credit-loop check
must find the loop; then ibroute's default run must deliver every member
pair exactly once with no credit loop (its trees differ from OpenSM's).
Exit 77 when OpenSM/ibsim (or ibdmchk) are not installed.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_common import Fail, generate, main_exit, opensm, run, workdirs  # noqa: E402

SKIP = 77
CA_HDR = re.compile(r"^(Ca|Hca)\s")
CA_PORT = re.compile(r"^\[(\d+)\]\(([0-9a-fA-F]+)\)")
MC_SW = re.compile(r"^Switch 0x([0-9a-fA-F]+)")
MC_ROW = re.compile(r"^0x([0-9A-Fa-f]{4}) :((?:\s+0x[0-9A-Fa-f]+)*)\s*$")


def ca_port_guids(netfile):
    """Port GUIDs of the cabled CA ports of an ibnetdiscover/ibsim netfile."""
    guids, in_ca = [], False
    with open(netfile, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                in_ca = False
                continue
            if CA_HDR.match(line):
                in_ca = True
                continue
            m = CA_PORT.match(line.strip()) if in_ca else None
            if m:
                guids.append(int(m.group(2), 16))
    return guids


def sa_dump(groups):
    """OpenSM's opensm-sa.dump records for {mlid: [port guid, ...]}."""
    out = []
    for i, (mlid, members) in enumerate(sorted(groups.items())):
        out.append("MC Group 0x%04x : mgid=0xff12601bffff0000:0x%016x "
                   "port_gid=0xfe80000000000000:0x%016x qkey=0x00000000 mlid=0x%04x "
                   "mtu=0x84 tclass=0x00 pkey=0xffff rate=0x83 pkt_life=0x00 "
                   "sl_flow_hop=0x00000000 scope_state=0x21 proxy_join=0x0\n\n"
                   % (mlid, i + 1, members[0], mlid))
        for g in members:
            out.append("mcm_port: port_gid=0xfe80000000000000:0x%016x "
                       "scope_state=0x21 proxy_join=0x0\n\n" % g)
    return "".join(out)


def read_mcfdbs(path):
    """opensm.mcfdbs -> {switch guid: {mlid: (ports...)}}."""
    tables, cur = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = MC_SW.match(line)
            if m:
                cur = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = MC_ROW.match(line)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = tuple(int(x, 16) for x in m.group(2).split())
    return tables


def ibdmchk_m(outdir):
    exe = shutil.which("ibdmchk")
    argv = [exe, "-s", "opensm-subnet.lst", "-f", "opensm.fdbs", "-m", "opensm.mcfdbs", "-M"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       cwd=outdir, timeout=300)
    with open(os.path.join(outdir, "ibdmchk.out"), "w") as f:
        f.write(p.stdout)
    return {
        "exit": p.returncode,
        "errors": [l.strip() for l in p.stdout.splitlines() if l.startswith("-E- ")],
        "groups": re.findall(r"Multicast Group:(0x[0-9A-Fa-f]+) has:(\d+) switches and:(\d+)",
                             p.stdout),
        "mft_edges": re.findall(r"MFT added (\d+) edges", p.stdout),
        "no_loops": "no credit loops found" in p.stdout,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--engine", default="minhop")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--groups", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--fault-seed", default="1")
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--deadlock-free", action="store_true",
                    help="the engine promises credit-loop freedom: ibroute's verification "
                    "(credit loops with the multicast dependencies) must find none")
    ap.add_argument("--opensm-loops", action="store_true",
                    help="OpenSM's torus-2QoS trees close a credit loop: compare them with "
                    "torus-2QoS.opensm_mcast_tree=1 (the loop must show), and require "
                    "ibroute's default trees to be loop-free")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    if args.opensm_loops and not args.engine.startswith("torus-2QoS"):
        ap.error("--opensm-loops is for torus-2QoS")

    if args.ibdmchk and not shutil.which("ibdmchk"):
        print("SKIP: ibdmchk not installed")
        return SKIP
    ibr, work, topo, osm_dir, ibr_dir = workdirs(args)
    summary = {"spec": args.spec, "engine": args.engine, "groups": args.groups,
               "seed": args.seed}
    try:
        generate(ibr, args.spec, work, topo, args.faults, args.fault_seed)
        cas = ca_port_guids(topo)
        if len(cas) < 2:
            raise Fail("%s has %d CA ports: no group possible" % (args.spec, len(cas)))
        rnd = random.Random(args.seed)
        groups = {0xC001: list(cas)}
        for i in range(args.groups):
            groups[0xC002 + i] = rnd.sample(cas, rnd.randint(2, len(cas)))
        dump = os.path.join(work, "groups-sa.dump")
        with open(dump, "w") as f:
            f.write(sa_dump(groups))

        osm_extra, ibr_extra = [], []
        if args.engine.startswith("torus-2QoS"):
            # a torus-2QoS.conf for the generator's layout (compare_torus2qos.py)
            from compare_torus2qos import parse_spec, write_conf
            conf = os.path.join(work, "torus-2QoS.conf")
            write_conf(conf, *parse_spec(args.spec))
            osm_extra = ["--opensm-arg=--torus_config", "--opensm-arg=" + conf]
            ibr_extra = ["--torus-config", conf]
        opensm(["--timeout", str(args.timeout), "--sa-db", dump] + osm_extra, topo,
                  args.engine, osm_dir, ok=(0,))
        g2l = os.path.join(osm_dir, "guid2lid")
        ibr_cmd = [ibr, "route", "--all-dumps", "-R", args.engine, "--no-progress", "--json",
                   "--guid2lid", g2l, "--sa-dump", dump, topo] + ibr_extra
        problems = []
        if args.opensm_loops:
            # ibroute's own trees: loop-free, exact, and not OpenSM's
            own = json.loads(run(ibr_cmd + ["-o", os.path.join(work, "ibroute-default")],
                                 "ibr route", ok=(0, 1)).stdout)
            ov = own.get("verify") or {}
            summary["ibroute_default_verify"] = {k: v for k, v in ov.items()
                                                 if "mcast" in k or "deadlock" in k}
            if not ov.get("valid", False):
                problems.append("ibroute's default trees: verification failed: %s"
                                % ov.get("first_error"))
            if not ov.get("deadlock_free", False):
                problems.append("ibroute's default trees close a credit loop: %s"
                                % ov.get("credit_loop"))
            if ov.get("mcast_pairs_ok") != ov.get("mcast_pairs"):
                problems.append("ibroute's default trees deliver %s of %s member pairs"
                                % (ov.get("mcast_pairs_ok"), ov.get("mcast_pairs")))
            ibr_cmd += ["--param", "torus-2QoS.opensm_mcast_tree=1"]
        p = run(ibr_cmd + ["-o", ibr_dir], "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_mcast"] = route.get("mcast")
        summary["ibroute_verify_mcast"] = {k: v for k, v in route.get("verify", {}).items()
                                           if "mcast" in k}

        if route.get("engine") != args.engine.split(",")[0]:
            problems.append("ibroute routed with %r, not %s" % (route.get("engine"),
                                                                 args.engine))
        osm_mc = read_mcfdbs(os.path.join(osm_dir, "opensm.mcfdbs"))
        ibr_mc = read_mcfdbs(os.path.join(ibr_dir, "opensm.mcfdbs"))
        osm_mlids = {m for t in osm_mc.values() for m in t}
        summary["opensm_mlids"] = len(osm_mlids)
        summary["opensm_mft_entries"] = sum(len(t) for t in osm_mc.values())
        summary["ibroute_mft_entries"] = sum(len(t) for t in ibr_mc.values())
        if osm_mlids != set(groups):
            problems.append("OpenSM programmed MLIDs %s, the dump has %s"
                            % (sorted(map(hex, osm_mlids)), sorted(map(hex, groups))))
        diffs = []
        for sw in sorted(set(osm_mc) | set(ibr_mc)):
            a, b = osm_mc.get(sw, {}), ibr_mc.get(sw, {})
            for mlid in sorted(set(a) | set(b)):
                if a.get(mlid) != b.get(mlid):
                    diffs.append("switch 0x%016x MLID 0x%04X: OpenSM %s, ibroute %s"
                                 % (sw, mlid, a.get(mlid), b.get(mlid)))
        summary["mft_differences"] = len(diffs)
        if diffs:
            problems.append("%d MFT entries differ, first:\n  %s"
                            % (len(diffs), "\n  ".join(diffs[:8])))
        mc = route.get("mcast") or {}
        if mc.get("mlids") != len(groups):
            problems.append("ibroute built trees for %s MLIDs, not %d" % (mc.get("mlids"),
                                                                          len(groups)))
        v = route.get("verify") or {}
        if not v.get("valid", False):
            problems.append("ibroute's verification failed: %s" % v.get("first_error"))
        if args.deadlock_free and not v.get("deadlock_free", False):
            problems.append("credit loop with the multicast dependencies: %s"
                            % v.get("credit_loop"))
        if args.opensm_loops and v.get("deadlock_free", True):
            problems.append("OpenSM's trees (reproduced by opensm_mcast_tree=1) close no "
                            "credit loop here: --opensm-loops does not apply")

        if args.ibdmchk:
            ci, co = ibdmchk_m(ibr_dir), ibdmchk_m(osm_dir)
            summary["ibdmchk"] = {"ibroute": ci, "opensm": co}
            new = [e for e in ci["errors"] if e not in co["errors"]]
            if new:
                problems.append("ibdmchk -M reports errors on ibroute's dumps that it does "
                                "not report on OpenSM's:\n  " + "\n  ".join(new[:8]))
            if ci["groups"] != co["groups"] or len(ci["groups"]) != len(groups):
                problems.append("ibdmchk -M scanned groups %s in ibroute's mcfdbs, %s in "
                                "OpenSM's" % (ci["groups"], co["groups"]))
            if co["no_loops"] and not ci["no_loops"]:
                problems.append("ibdmchk -M finds a credit loop in ibroute's tables "
                                "(see %s)" % os.path.join(ibr_dir, "ibdmchk.out"))
        summary["problems"] = problems
    except Fail as e:
        summary["problems"] = [str(e)]
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
    print(json.dumps({k: summary.get(k) for k in ("spec", "engine", "opensm_mlids",
                                                  "opensm_mft_entries", "ibroute_mft_entries",
                                                  "mft_differences")}))
    if summary["problems"]:
        print("FAIL:\n" + "\n".join(summary["problems"]))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main_exit(main))
