#!/usr/bin/env python3
"""Compare ibroute's ftree with OpenSM's on one generated fabric.

  compare_ftree.py --ibr PATH (--spec SPEC | --netfile FILE) --workdir DIR
                   [--faults L[,S]] [--seed N] [--roots] [--cn-skip K] [--io]
                   [--ibr-no-roots] [--ibr-param ENGINE.SETTING=VALUE]
                   [--ibdmchk] [--sssp-bound]
                   [--cn-desc PREFIX] [--io-desc PREFIX] [--max-reverse-hops N]
                   [--connect-roots] [--lmc N] [--expect-unrouted-decline]
                   [--expect-identical] [--expect-decline] [--expect-opensm-decline]

1. `ibr gen SPEC --remove-down` writes the topology (nodes the faults cut off
   from the SM's host are pruned: compare_common.generate()), or --netfile
   gives one. Options files are written for both sides: with --roots the
   top-level switches of the tree (descriptions "L<top>-S<n>", as the
   generators write them) as root GUIDs; with --cn-skip K every CA port but
   each K-th one as compute nodes, and with --io the skipped ones as I/O
   nodes; --cn-desc and --io-desc list the CA ports whose node description
   starts with PREFIX instead;
2. OpenSM routes it with ftree under ibsim (run_opensm.py, with
   --root_guid_file, --cn_guid_file, --io_guid_file, --max_reverse_hops,
   --connect_roots as asked);
3. `ibr route -R ftree,no_fallback --guid2lid <OpenSM's guid2lid>` routes it
   with the same LIDs and options (with --ibr-no-roots, without the root
   file: ibroute must find the degraded tree itself, and report it in
   ftree-degraded.txt when there are faults; --ibr-param adds settings);
4. `ibr verify --json` measures both opensm-lfts.dump files.

Fails (exit 1) unless
  * OpenSM used ftree and ibroute did too, both deliver every CA-to-CA pair
    (with --expect-unrouted-decline: OpenSM's ftree routes the fabric but
    leaves CA pairs the fabric connects without a route, and ibroute's
    ftree declines it, naming them: issue 34),
    ibroute's result passes its own verification (which knows the pairs the
    up/down rule leaves unrouted on purpose), ibroute is credit-loop free
    and (without faults, reverse hops or connect_roots) its routes minimal;
  * ibroute's busiest link carries no more routes than OpenSM's;
  * with --ibdmchk, ibdmchk finds ibroute's tables credit-loop free;
  * with --sssp-bound, ibroute's busiest link is no busier than that of
    OpenSM's sssp on the same fabric (OpenSM run a second time);
  * with --expect-identical, the LFT dumps and the CA order dumps
    (opensm-ftree-ca-order.dump) are byte-identical;
  * with --expect-decline (a fabric ftree must refuse), OpenSM fell back
    from ftree and ibroute declined it too, giving a reason;
  * with --expect-opensm-decline (LMC > 0), OpenSM fell back from ftree and
    ibroute's ftree routed the fabric, valid and free of credit loops.
Reports the number of differing LFT entries and the first few. Exit 77 when
OpenSM/ibsim are not installed.
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
from compare_common import (Fail, check_pairs_and_load, generate, lft_diff,  # noqa: E402
                            main_exit, opensm, opensm_run, print_times, run, verdict,
                            verify, verify_both, workdirs, write_summary)

SWITCH = re.compile(r'^Switch\s+\d+\s+"S-([0-9a-fA-F]+)"\s+#\s+"L(\d+)-S\d+"')
CA_HDR = re.compile(r'^(?:Ca|Hca)\s+\d+\s+"[^"]*"\s+#\s+"([^"]*)"')
CA_PORT = re.compile(r'^\[\d+\]\(([0-9a-fA-F]+)\)')


class Done(Exception):
    """Nothing more to compare."""


def option_files(topo, work, args):
    """Write the GUID files the options ask for; return (opensm args, ibr args)."""
    tops, cas, desc = {}, [], {}
    with open(topo, encoding="utf-8") as f:
        in_ca, cur = False, ""
        for line in f:
            m = SWITCH.match(line)
            if m:
                tops.setdefault(int(m.group(2)), []).append(int(m.group(1), 16))
            if line.startswith(("Ca", "Hca")):
                in_ca = True
                m = CA_HDR.match(line)
                cur = m.group(1) if m else ""
                continue
            if line.startswith(("Switch", "Rt")):
                in_ca = False
            m = CA_PORT.match(line)
            if m and in_ca:
                cas.append(int(m.group(1), 16))
                desc[cas[-1]] = cur
    osm, ibr = [], []

    def write(name, guids):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write("# written by compare_ftree.py\n")
            for g in guids:
                f.write("0x%016x\n" % g)
        return path

    if args.roots:
        if not tops:
            raise Fail("--roots: no generated switch descriptions in the netfile")
        path = write("roots.guids", tops[max(tops)])
        osm += ["--opensm-arg=--root_guid_file", "--opensm-arg=" + path]
        ibr += ["--root-guids", path]
    if args.cn_skip:
        cn = [g for i, g in enumerate(cas) if i % args.cn_skip != args.cn_skip - 1]
        other = [g for i, g in enumerate(cas) if i % args.cn_skip == args.cn_skip - 1]
        path = write("cn.guids", cn)
        osm += ["--opensm-arg=--cn_guid_file", "--opensm-arg=" + path]
        ibr += ["--cn-guids", path]
        if args.io:
            path = write("io.guids", other)
            osm += ["--opensm-arg=--io_guid_file", "--opensm-arg=" + path]
            ibr += ["--io-guids", path]
    for prefix, fname, osm_opt, ibr_opt in ((args.cn_desc, "cn.guids", "--cn_guid_file",
                                             "--cn-guids"),
                                            (args.io_desc, "io.guids", "--io_guid_file",
                                             "--io-guids")):
        if prefix:
            path = write(fname, [g for g in cas if desc[g].startswith(prefix)])
            osm += ["--opensm-arg=" + osm_opt, "--opensm-arg=" + path]
            ibr += [ibr_opt, path]
    if args.max_reverse_hops:
        osm += ["--opensm-arg=--max_reverse_hops",
                "--opensm-arg=%d" % args.max_reverse_hops]
        ibr += ["--max-reverse-hops", str(args.max_reverse_hops)]
    if args.connect_roots:
        osm += ["--opensm-arg=--connect_roots"]
        ibr += ["--connect-roots"]
    return osm, ibr


def same_bytes(a, b):
    if not (os.path.exists(a) and os.path.exists(b)):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--spec", help="ibr gen spec")
    src.add_argument("--netfile", help="a ready topology (ibnetdiscover/ibsim netfile)")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--roots", action="store_true",
                    help="give the top-level switches as root GUIDs")
    ap.add_argument("--cn-skip", type=int, default=0,
                    help="CN list: every CA port but each K-th one")
    ap.add_argument("--io", action="store_true", help="the skipped ports are I/O nodes")
    ap.add_argument("--cn-desc", help="CN list: CA ports whose node description starts so")
    ap.add_argument("--io-desc", help="I/O list: CA ports whose node description starts so")
    ap.add_argument("--max-reverse-hops", type=int, default=0)
    ap.add_argument("--connect-roots", action="store_true")
    ap.add_argument("--lmc", type=int, default=0, help="OpenSM -l (LIDs then come from it)")
    ap.add_argument("--expect-unrouted-decline", action="store_true",
                    help="OpenSM's ftree leaves CA pairs the fabric connects unrouted; "
                    "ibroute's must decline, naming them")
    ap.add_argument("--expect-identical", action="store_true")
    ap.add_argument("--expect-decline", action="store_true")
    ap.add_argument("--expect-opensm-decline", action="store_true",
                    help="OpenSM's ftree declines (LMC > 0), ibroute's routes")
    ap.add_argument("--ibr-param", action="append", default=[],
                    help="ENGINE.SETTING=VALUE for ibroute only (e.g. ftree.strict=1)")
    ap.add_argument("--ibr-no-roots", action="store_true",
                    help="OpenSM gets the root file (--roots), ibroute does not: its "
                    "ftree must recognise the (degraded) tree by itself")
    ap.add_argument("--ibdmchk", action="store_true",
                    help="ibdmchk must find ibroute's tables credit-loop free (one VL)")
    ap.add_argument("--sssp-bound", action="store_true",
                    help="OpenSM's sssp routes the fabric too: ibroute's busiest link "
                    "must not exceed it")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec or os.path.basename(args.netfile)

    ibr, work, topo, osm_dir, ibr_dir = workdirs(args)
    summary = {"name": name, "spec": args.spec or args.netfile, "faults": args.faults}
    problems = []

    try:
        if args.netfile:
            shutil.copyfile(args.netfile, topo)
        else:
            summary["pruned_nodes"] = generate(ibr, args.spec, work, topo, args.faults, args.seed)
        osm_opts, ibr_opts = option_files(topo, work, args)
        if args.ibr_no_roots:
            if "--root-guids" in ibr_opts:
                i = ibr_opts.index("--root-guids")
                del ibr_opts[i:i + 2]
        for prm in args.ibr_param:
            ibr_opts += ["--param", prm]

        harness = ["--timeout", str(args.timeout)] + osm_opts
        if args.lmc:
            harness += ["--lmc", str(args.lmc)]
        opensm(harness, topo, "ftree", osm_dir)
        osm_run = opensm_run(osm_dir)
        summary["opensm_engine"] = osm_run.get("engine_used")
        summary["opensm_routing_time_s"] = osm_run.get("routing_time_s")
        g2l = os.path.join(osm_dir, "guid2lid")

        p = run([ibr, "route", "--all-dumps", "-R", "ftree,no_fallback", "--no-progress", "--json",
                 "--guid2lid", g2l, topo, "-o", ibr_dir] + ibr_opts, "ibr route", ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_engine"] = route.get("engine")
        summary["ibroute_error"] = route.get("error")
        summary["ibroute_route_time_s"] = route.get("route_time_s")

        if args.expect_decline:
            if osm_run.get("engine_used") == "ftree":
                problems.append("OpenSM routed with ftree; a decline was expected")
            if route.get("engine") == "ftree":
                problems.append("ibroute's ftree routed the fabric; a decline was expected")
            elif not route.get("error"):
                problems.append("ibroute declined without saying why")
            raise Done()
        if args.expect_opensm_decline:
            if osm_run.get("engine_used") == "ftree":
                problems.append("OpenSM routed with ftree; a decline was expected")
            if route.get("engine") != "ftree":
                problems.append("ibroute's ftree declined: %s" % route.get("error"))
            v = route.get("verify") or {}
            summary["ibroute_verify"] = v
            if not v.get("valid") or v.get("deadlock_free") is not True:
                problems.append("ibroute's ftree tables are not valid and loop-free: %s" % v)
            raise Done()
        if osm_run.get("engine_used") != "ftree":
            raise Fail("OpenSM fell back from ftree to %s" % osm_run.get("engine_used"))
        if args.expect_unrouted_decline:
            # non-CN nodes off the leaf rank: OpenSM's ftree connects them
            # only as far as its rules and reverse hops allow and hands out
            # the rest empty; ibroute's declines (the chain falls back)
            v_osm = verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
            summary["opensm"] = v_osm
            if v_osm.get("pairs_ok") == v_osm.get("pairs"):
                problems.append("OpenSM's ftree delivers every CA pair; unrouted ones were "
                                "expected")
            if route.get("engine") == "ftree":
                problems.append("ibroute's ftree routed a fabric whose connected pairs it "
                                "cannot all route")
            elif "the fabric connects have no up/down route" not in str(route.get("error")):
                problems.append("ibroute's ftree did not decline for the unrouted pairs: %s"
                                % route.get("error"))
            raise Done()
        if route.get("engine") != "ftree":
            raise Fail("ibroute's ftree declined: %s" % route.get("error"))

        v_osm, v_ibr = verify_both(ibr, topo, osm_dir, ibr_dir, g2l, summary)
        d = lft_diff(osm_dir, ibr_dir)
        d["ca_order_identical"] = same_bytes(
            os.path.join(osm_dir, "opensm-ftree-ca-order.dump"),
            os.path.join(ibr_dir, "opensm-ftree-ca-order.dump"))
        summary["lft_diff"] = d

        # Read back from the dumps, switch-to-switch entries that ftree's
        # up/down rule leaves empty (one root to another) look missing; the
        # CA-to-CA pairs must all be delivered. ibroute's own verification,
        # which knows the engine's hop matrix, must find no fault at all.
        for who, v in (("OpenSM", v_osm), ("ibroute", v_ibr)):
            if v.get("pairs") != v.get("pairs_ok"):
                problems.append("%s leaves CA pairs unrouted: %s of %s delivered (%s)"
                                % (who, v.get("pairs_ok"), v.get("pairs"),
                                   v.get("first_error")))
        if v_ibr.get("pairs_ok", 0) < v_osm.get("pairs_ok", 0):
            problems.append("ibroute delivers fewer CA pairs than OpenSM: %s < %s"
                            % (v_ibr.get("pairs_ok"), v_osm.get("pairs_ok")))
        own = route.get("verify") or {}
        summary["ibroute_own_verify"] = own
        if not own.get("valid") or own.get("missing"):
            problems.append("ibroute's result fails its own verification: %s"
                            % own.get("first_error"))
        if not v_ibr.get("deadlock_free") and not args.max_reverse_hops:
            problems.append("ibroute's routing has a credit loop")
        plain = not (args.faults or args.max_reverse_hops or args.connect_roots)
        if plain and (v_ibr.get("nonminimal", 1) != 0 or v_ibr.get("max_stretch", 2) > 1 + 1e-9):
            problems.append("ibroute's routes are not minimal: %s non-minimal switch routes"
                            % v_ibr.get("nonminimal"))
        check_pairs_and_load(problems, v_osm, v_ibr)
        if args.ibr_no_roots:
            art = os.path.join(ibr_dir, "ftree-degraded.txt")
            summary["ibroute_degraded"] = open(art).read().splitlines()[-1] \
                if os.path.exists(art) else None
            if args.faults and not summary["ibroute_degraded"]:
                problems.append("ibroute's ftree did not report the tree as degraded")
        if args.ibdmchk:
            from compare_updown import credit_loop_ibdmchk
            chk = credit_loop_ibdmchk(ibr_dir)
            summary["ibdmchk"] = chk
            if chk is None:
                problems.append("--ibdmchk: ibdmchk is not installed")
            elif not chk["finished"] or not chk["no_loop_line"] or chk["errors"]:
                problems.append("ibdmchk does not find ibroute's routing credit-loop free "
                                "(see %s)" % os.path.join(ibr_dir, "ibdmchk.out"))
        if args.sssp_bound:
            sssp_dir = os.path.join(work, "opensm-sssp")
            subprocess.run([sys.executable, os.path.join(HERE, "run_opensm.py")] + harness
                           + [topo, "sssp", sssp_dir], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
            v_s = verify(ibr, topo, os.path.join(sssp_dir, "opensm-lfts.dump"),
                         os.path.join(sssp_dir, "guid2lid"))
            summary["opensm_sssp"] = v_s
            if v_ibr.get("max_link_load", 0) > v_s.get("max_link_load", 0):
                problems.append("ibroute's max link load %s exceeds OpenSM sssp's %s"
                                % (v_ibr.get("max_link_load"), v_s.get("max_link_load")))
        if args.expect_identical:
            if not d["byte_identical"]:
                problems.append("the LFT dumps differ (%d of %d entries)"
                                % (d["differ"], d["entries"]))
            if not d["ca_order_identical"]:
                problems.append("the CA order dumps differ")
    except Done:
        pass
    except Fail as e:
        problems.append(str(e))
    finally:
        summary["problems"] = problems
        write_summary(work, summary)

    print("case %s (%s%s)" % (name, summary["spec"],
                              ", faults " + args.faults if args.faults else ""))
    if summary.get("pruned_nodes"):
        print("  %d nodes cut off by faults were dropped" % summary["pruned_nodes"])
    print("  engines: OpenSM %s, ibroute %s%s" % (
        summary.get("opensm_engine"), summary.get("ibroute_engine"),
        " (%s)" % summary["ibroute_error"] if summary.get("ibroute_error") else ""))
    for who in ("opensm", "ibroute", "opensm_sssp"):
        v = summary.get(who)
        if v:
            print("  %-8s valid=%s pairs=%s/%s avg_hops=%.3f nonminimal=%s restricted=%s "
                  "max_link_load=%s mean_link_load=%.2f" % (
                      who, v.get("valid"), v.get("pairs_ok"), v.get("pairs"),
                      v.get("avg_hops") or 0, v.get("nonminimal"), v.get("restricted"),
                      v.get("max_link_load"), v.get("mean_link_load") or 0))
    d = summary.get("lft_diff")
    if d:
        print("  LFTs: %d of %d entries differ; dumps byte-identical: %s; CA order "
              "identical: %s" % (d["differ"], d["entries"],
                                 "yes" if d["byte_identical"] else "no",
                                 "yes" if d["ca_order_identical"] else "no"))
        for ex in d["examples"]:
            print("    " + ex)
    print_times(summary)
    return verdict(problems)


if __name__ == "__main__":
    sys.exit(main_exit(main))
