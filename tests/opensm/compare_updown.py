#!/usr/bin/env python3
"""Compare ibroute's updn or dnup with OpenSM's on one generated fabric.

  compare_updown.py --ibr PATH --engine updn|dnup --spec SPEC --workdir DIR
                    [--faults L[,S]] [--seed N] [--root-switches K]
                    [--expect-identical] [--expect-opensm-loop] [--ibdmchk]

1. `ibr gen SPEC --remove-down` writes the topology (nodes the faults cut off
   from the SM's host are pruned: compare_common.generate()); with
   --root-switches K, K switches spread over the netfile's order are written
   to a root GUID file given to both (OpenSM --root_guid_file, ibroute
   --root-guids);
2. OpenSM routes it with ENGINE under ibsim (run_opensm.py); it must not
   fall back;
3. `ibr route -R ENGINE,no_fallback --guid2lid <OpenSM's guid2lid>` routes
   it with the same LIDs;
4. `ibr verify --json` measures both opensm-lfts.dump files, and every
   CA-to-CA route of both is walked here, independently of the library, to
   check that it obeys the engine's up/down (down/up) rule with the ranks
   each side used.

Fails (exit 1) unless
  * both routings deliver every CA-to-CA pair (no loop, bad port, down link
    or dead end; LFT entries may be empty only where the rule forbids every
    path, toward a switch LID or from a switch no legal path leaves);
  * ibroute's missing entries are exactly the pairs its result calls
    `restricted`;
  * every ibroute route obeys the rule, and ibroute is credit-loop free
    (`ibr verify` deadlock_free; with --ibdmchk also by ibdmchk);
  * ibroute's busiest link carries no more routes than OpenSM's (not
    checked with --expect-opensm-loop, where OpenSM buys its lower load
    with a credit loop);
  * with --expect-identical, the two LFT dumps are identical;
  * with --expect-opensm-loop, OpenSM's routing has a credit loop (by
    `ibr verify` and, with --ibdmchk, by ibdmchk);
  * with --expect-decline (a fabric whose roots leave end nodes without a
    legal path), ibroute declines with the reason while OpenSM leaves host
    pairs unrouted; nothing else is compared.
Reports the first differing LFT entry and, when they differ, the legal hop
counts both sides could have used there. Exit 77 when OpenSM/ibsim (or, with
--ibdmchk, ibdmchk) are not installed.
"""

import argparse
import collections
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_common import (SKIP, Fail, diff_lfts, generate, ibdmchk, main_exit,  # noqa: E402
                            opensm, opensm_run, print_times, read_lfts, run, verdict,
                            verify, workdirs, write_summary)

RANK_INF = 1 << 30

# ----------------------------------------------------------------------------
# The fabric as opensm-subnet.lst describes it

END = r"\{ (SW|CA|CA-SM|Rt|RT|Rt-SM) Ports:[0-9A-Fa-f]+ SystemGUID:[0-9A-Fa-f]+ " \
      r"NodeGUID:([0-9A-Fa-f]+) PortGUID:([0-9A-Fa-f]+) .*?\{(.*?)\} LID:([0-9A-Fa-f]+) " \
      r"PN:([0-9A-Fa-f]+) \}"
LINK = re.compile(END + r" " + END)


class Fabric:
    """Switches, links and LIDs read from opensm-subnet.lst."""

    def __init__(self, path):
        self.link = {}                 # (node guid, port) -> (node guid, port)
        self.is_switch = {}
        self.desc = {}
        self.owner = {}                # LID -> (node guid, port) (port 0: switch)
        self.ca_lids = []
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = LINK.search(line)
                if not m:
                    continue
                a = m.groups()[:6]
                b = m.groups()[6:]
                for x, y in ((a, b), (b, a)):
                    g, port = int(x[1], 16), int(x[5], 16)
                    sw = x[0] == "SW"
                    self.is_switch[g] = sw
                    self.desc[g] = x[3]
                    self.link[(g, port)] = (int(y[1], 16), int(y[5], 16))
                    lid = int(x[4], 16)
                    if sw:
                        self.owner[lid] = (g, 0)
                    elif lid:
                        self.owner[lid] = (g, port)
        self.switches = sorted(g for g, s in self.is_switch.items() if s)
        self.ca_lids = sorted(l for l, (g, p) in self.owner.items() if p)
        self.adj = collections.defaultdict(list)   # switch -> [(port, switch)]
        for (g, p), (h, _q) in sorted(self.link.items()):
            if self.is_switch.get(g) and self.is_switch.get(h) and g != h:
                self.adj[g].append((p, h))
        self.leaves = {g for (g, p), (h, _q) in self.link.items()
                       if self.is_switch.get(g) and not self.is_switch.get(h, True)}

    def bfs(self, sources):
        dist = {g: RANK_INF for g in self.switches}
        queue = collections.deque()
        for s in sources:
            dist[s] = 0
            queue.append(s)
        while queue:
            u = queue.popleft()
            for _p, v in self.adj[u]:
                if dist[v] > dist[u] + 1:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        return dist


def table_order(guid):
    """OpenSM's switch-table order: ascending byte-reversed GUID."""
    return int.from_bytes(guid.to_bytes(8, "big"), "little")


class Done(Exception):
    """Ends a case early (not a failure)."""


class Rule:
    """The up/down (down/up) rule of one side, from its ranks.

    label(a, b) is the direction of a packet's step from switch a to switch b.
    updn: UP toward the roots (smaller rank); between roots, and between equal
    ranks toward the larger id, DOWN. A route may not go UP after DOWN.
    dnup (ibroute): ranks from the switches that carry end nodes; UP toward
    them; between equal ranks, away from the deepest switch is UP, then by id.
    A route may not go DOWN after UP. dnup (OpenSM) has no tie-break: steps
    between equal ranks are EQUAL and allowed anywhere (then anything goes).
    """

    def __init__(self, fab, engine, roots, opensm):
        self.engine, self.opensm = engine, opensm
        if engine == "updn":
            self.rank = fab.bfs(roots)
        else:
            self.rank = fab.bfs(sorted(fab.leaves))
            finite = [g for g in fab.switches if self.rank[g] < RANK_INF]
            deepest = min(finite, key=lambda g: (-self.rank[g], table_order(g)))
            self.depth = fab.bfs([deepest])

    def label(self, a, b):
        ra, rb = self.rank[a], self.rank[b]
        if self.engine == "updn":
            if ra == 0 and rb == 0:
                return "DOWN"
            if ra != rb:
                return "UP" if rb < ra else "DOWN"
            return "DOWN" if b > a else "UP"
        if ra != rb:
            return "UP" if rb < ra else "DOWN"
        if self.opensm:
            return "EQUAL"
        if self.depth[a] != self.depth[b]:
            return "UP" if self.depth[b] > self.depth[a] else "DOWN"
        return "DOWN" if b > a else "UP"

    def legal(self, labels):
        bad = ("DOWN", "UP") if self.engine == "updn" else ("UP", "DOWN")
        state = None
        for lab in labels:
            if lab == "EQUAL":            # OpenSM dnup: resets the state
                state = None
                continue
            if state == bad[0] and lab == bad[1]:
                return False
            state = lab
        return True


def walk_routes(fab, lfts, rule):
    """Follow every CA-to-CA route; count delivered, broken and illegal ones."""
    out = {"routes": 0, "delivered": 0, "broken": 0, "illegal": 0, "first_illegal": None}
    nsw = len(fab.switches)
    ca_ports = [(lid, fab.owner[lid]) for lid in fab.ca_lids]
    for slid, (sg, sp) in ca_ports:
        sw0, _ = fab.link.get((sg, sp), (None, None))
        if sw0 is None or not fab.is_switch.get(sw0):
            continue
        for dlid, (dg, dp) in ca_ports:
            if dlid == slid:
                continue
            out["routes"] += 1
            u, path, ok = sw0, [sw0], False
            for _ in range(nsw + 1):
                port = lfts.get(u, {}).get(dlid, 255)
                nxt = fab.link.get((u, port))
                if nxt is None:
                    break
                if nxt == (dg, dp):
                    ok = True
                    break
                if not fab.is_switch.get(nxt[0]):
                    break
                u = nxt[0]
                path.append(u)
            if not ok:
                out["broken"] += 1
                continue
            out["delivered"] += 1
            labels = [rule.label(a, b) for a, b in zip(path, path[1:])]
            if not rule.legal(labels):
                out["illegal"] += 1
                if out["first_illegal"] is None:
                    out["first_illegal"] = "LID %d -> LID %d via %s (%s)" % (
                        slid, dlid, " ".join("0x%x" % g for g in path), " ".join(labels))
    return out


def missing_entries(fab, lfts):
    """(switch, LID) entries that are 255 although the LID exists, by kind."""
    sw_lids = [l for l, (g, p) in fab.owner.items() if p == 0]
    res = {"to_switch": 0, "to_ca": 0}
    for g in fab.switches:
        t = lfts.get(g, {})
        for lid in sw_lids:
            if t.get(lid, 255) == 255 and fab.owner[lid][0] != g:
                res["to_switch"] += 1
        for lid in fab.ca_lids:
            if t.get(lid, 255) == 255:
                res["to_ca"] += 1
    return res


def read_roots(path):
    roots = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#")[0].strip()
                if line:
                    roots.append(int(line, 0))
    return roots


def first_difference(fab, osm, ibr):
    """The first (switch in table order, LID) entry where the dumps differ."""
    for g in sorted(fab.switches, key=table_order):
        a, b = osm.get(g, {}), ibr.get(g, {})
        for lid in sorted(set(a) | set(b)):
            if a.get(lid, 255) != b.get(lid, 255):
                return g, lid, a.get(lid, 255), b.get(lid, 255)
    return None


def credit_loop_ibdmchk(outdir, lmc=0):
    exe = shutil.which("ibdmchk")
    if not exe:
        return None
    mc = os.path.join(outdir, "opensm.mcfdbs")
    if not os.path.exists(mc):
        open(mc, "w").close()
    r = ibdmchk(outdir, os.path.join(outdir, "opensm-subnet.lst"),
                os.path.join(outdir, "opensm.fdbs"), mc, lmc)
    with open(os.path.join(outdir, "ibdmchk.out")) as f:
        text = f.read()
    r["credit_loop"] = ("credit loops in routing" in text if r["finished"] else None)
    r["no_loop_line"] = "no credit loops found" in text
    return r


def pick_roots(netfile, k):
    guids = []
    with open(netfile) as f:
        for line in f:
            m = re.match(r"^switchguid=0x([0-9a-fA-F]+)", line)
            if m:
                guids.append(int(m.group(1), 16))
    if not guids:
        raise Fail("no switchguid= lines in %s" % netfile)
    return [guids[(i * len(guids)) // k] for i in range(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--engine", required=True, choices=("updn", "dnup"))
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--faults", default=None, help="LINKS[,SWITCHES] for ibr gen")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--root-switches", type=int, default=0,
                    help="give K root switches (spread over the netfile) to both")
    ap.add_argument("--expect-identical", action="store_true")
    ap.add_argument("--expect-opensm-loop", action="store_true")
    ap.add_argument("--top-roots", action="store_true",
                    help="OpenSM's heuristic makes every switch a root; ibroute keeps "
                    "the ones farthest from the hosts: require a non-empty subset")
    ap.add_argument("--expect-decline", action="store_true",
                    help="the rule disconnects end nodes: ibroute must decline (and say "
                    "why) where OpenSM routes and leaves host pairs unrouted")
    ap.add_argument("--ibdmchk", action="store_true")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args()
    name = args.name or args.spec
    eng = args.engine

    if args.ibdmchk and not shutil.which("ibdmchk"):
        print("SKIP: ibdmchk not installed")
        return SKIP
    ibr, work, topo, osm_dir, ibr_dir = workdirs(args)
    summary = {"name": name, "engine": eng, "spec": args.spec, "faults": args.faults,
               "seed": args.seed}
    problems = summary["problems"] = []
    notes = summary["notes"] = []

    try:
        summary["pruned_nodes"] = generate(ibr, args.spec, work, topo, args.faults, args.seed)

        harness = ["--timeout", str(args.timeout)]
        ibr_extra = []
        if args.root_switches:
            roots = pick_roots(topo, args.root_switches)
            rfile = os.path.join(work, "roots.txt")
            with open(rfile, "w") as f:
                f.write("".join("0x%016x\n" % g for g in roots))
            harness += ["--opensm-arg=--root_guid_file", "--opensm-arg=" + rfile]
            ibr_extra += ["--root-guids", rfile]
            summary["roots_given"] = ["0x%016x" % g for g in roots]
        opensm(harness, topo, eng, osm_dir, ok=(0,),
                  failed="OpenSM %s run failed or fell back" % eng)
        g2l = os.path.join(osm_dir, "guid2lid")
        summary["opensm_routing_time_s"] = opensm_run(osm_dir).get("routing_time_s")

        p = run([ibr, "route", "--all-dumps", "-R", eng + ",no_fallback", "--no-progress", "--json",
                 "--guid2lid", g2l] + ibr_extra + [topo, "-o", ibr_dir], "ibr route",
                ok=(0, 1))
        route = json.loads(p.stdout)
        summary["ibroute_route_time_s"] = route.get("route_time_s")
        if args.expect_decline:
            v_osm = verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
            summary["opensm"] = v_osm
            att = route.get("attempts") or [{}]
            summary["ibroute_decline"] = att[0].get("message")
            if route.get("status") != "IBR_EUNROUTABLE" or \
                    att[0].get("status") != "IBR_EDECLINED" or \
                    "no legal" not in (att[0].get("message") or ""):
                problems.append("ibroute did not decline: %r" % route.get("attempts"))
            if v_osm.get("pairs_ok") == v_osm.get("pairs"):
                problems.append("OpenSM routed every host pair: nothing to decline")
            raise Done()
        if route.get("engine") != eng or route.get("status") != "IBR_OK":
            raise Fail("ibroute did not route with %s: %s" % (eng, route.get("error")))
        restricted = route["verify"]["restricted"]
        summary["ibroute_restricted"] = restricted

        v_osm = verify(ibr, topo, os.path.join(osm_dir, "opensm-lfts.dump"), g2l)
        v_ibr = verify(ibr, topo, os.path.join(ibr_dir, "opensm-lfts.dump"), g2l)
        summary["opensm"], summary["ibroute"] = v_osm, v_ibr

        fab = Fabric(os.path.join(ibr_dir, "opensm-subnet.lst"))
        lft_osm = read_lfts(os.path.join(osm_dir, "opensm-lfts.dump"))
        lft_ibr = read_lfts(os.path.join(ibr_dir, "opensm-lfts.dump"))
        roots_osm = read_roots(os.path.join(osm_dir, "opensm-updn-roots.dump"))
        roots_ibr = read_roots(os.path.join(ibr_dir, "opensm-updn-roots.dump"))
        if eng == "updn":
            summary["roots"] = {"opensm": ["0x%x" % g for g in roots_osm],
                                "ibroute": ["0x%x" % g for g in roots_ibr]}
            if args.top_roots:
                # ibroute keeps the detected roots farthest from the hosts
                if not roots_ibr or not set(roots_ibr) <= set(roots_osm):
                    problems.append("ibroute's roots %s are not a subset of OpenSM's %s"
                                    % (summary["roots"]["ibroute"], summary["roots"]["opensm"]))
            elif sorted(roots_osm) != sorted(roots_ibr):
                problems.append("roots differ: OpenSM %s, ibroute %s"
                                % (summary["roots"]["opensm"], summary["roots"]["ibroute"]))
        rule_osm = Rule(fab, eng, roots_osm, opensm=True)
        rule_ibr = Rule(fab, eng, roots_ibr, opensm=False)
        w_osm = walk_routes(fab, lft_osm, rule_osm)
        w_ibr = walk_routes(fab, lft_ibr, rule_ibr)
        summary["walk"] = {"opensm": w_osm, "ibroute": w_ibr}
        m_osm, m_ibr = missing_entries(fab, lft_osm), missing_entries(fab, lft_ibr)
        summary["missing"] = {"opensm": m_osm, "ibroute": m_ibr}

        for who, v, w, m in (("OpenSM", v_osm, w_osm, m_osm), ("ibroute", v_ibr, w_ibr, m_ibr)):
            bad = {k: v.get(k) for k in ("loops", "bad_port", "down_link", "dead_end")
                   if v.get(k)}
            if bad or v.get("pairs") != v.get("pairs_ok"):
                problems.append("%s's routes are broken: %s, %s of %s pairs ok; first: %s"
                                % (who, bad, v.get("pairs_ok"), v.get("pairs"),
                                   v.get("first_error")))
            if w["broken"] or w["delivered"] != w["routes"]:
                problems.append("%s: %d of %d CA-to-CA routes do not arrive (walked here)"
                                % (who, w["broken"], w["routes"]))
        # entries the rule leaves empty (toward switches, or toward CAs from
        # switches no legal path leaves) are exactly the restricted pairs
        if (v_ibr.get("missing") != restricted or
                m_ibr["to_switch"] + m_ibr["to_ca"] != restricted):
            problems.append("ibroute's dump misses %s entries (counted here: %d toward "
                            "switches, %d toward CAs) but its result restricts %d"
                            % (v_ibr.get("missing"), m_ibr["to_switch"], m_ibr["to_ca"],
                               restricted))
        if not route["verify"]["valid"]:
            problems.append("ibr route says its result is invalid: %s"
                            % route["verify"]["first_error"])
        if w_ibr["illegal"]:
            problems.append("%d ibroute routes break the %s rule; first: %s"
                            % (w_ibr["illegal"], eng, w_ibr["first_illegal"]))
        if w_osm["illegal"]:
            notes.append("%d OpenSM routes break the %s rule as written here; first: %s"
                         % (w_osm["illegal"], eng, w_osm["first_illegal"]))
        if v_ibr.get("deadlock_free") is not True:
            problems.append("ibroute's %s routing has a credit loop: %s"
                            % (eng, v_ibr.get("credit_loop")))
        if args.expect_opensm_loop:
            if v_osm.get("deadlock_free") is not False:
                problems.append("expected a credit loop in OpenSM's %s routing; ibr verify "
                                "found none" % eng)
        elif v_ibr.get("max_link_load", 0) > v_osm.get("max_link_load", 0):
            problems.append("ibroute's max link load %s exceeds OpenSM's %s"
                            % (v_ibr.get("max_link_load"), v_osm.get("max_link_load")))

        d = diff_lfts(lft_osm, lft_ibr)
        with open(os.path.join(osm_dir, "opensm-lfts.dump"), "rb") as fa, \
                open(os.path.join(ibr_dir, "opensm-lfts.dump"), "rb") as fb:
            d["byte_identical"] = fa.read() == fb.read()
        first = first_difference(fab, lft_osm, lft_ibr)
        if first:
            g, lid, po, pi = first
            d["first"] = ("switch 0x%016x (%s) LID %d: OpenSM port %d, ibroute port %d"
                          % (g, fab.desc.get(g, "?"), lid, po, pi))
        summary["lft_diff"] = d
        if args.expect_identical and d["differ"]:
            problems.append("LFTs differ from OpenSM's in %d of %d entries; first: %s"
                            % (d["differ"], d["entries"], d.get("first")))

        if args.ibdmchk:
            chk = {"opensm": credit_loop_ibdmchk(osm_dir), "ibroute": credit_loop_ibdmchk(ibr_dir)}
            summary["ibdmchk"] = chk
            ci, co = chk["ibroute"], chk["opensm"]
            if not ci["finished"] or not ci["no_loop_line"]:
                problems.append("ibdmchk does not find ibroute's %s routing credit-loop free "
                                "(see %s)" % (eng, os.path.join(ibr_dir, "ibdmchk.out")))
            new = [e for e in ci["errors"] if e not in co["errors"]]
            if new:
                problems.append("ibdmchk rejects ibroute's dumps:\n  " + "\n  ".join(new[:10]))
            if args.expect_opensm_loop and co["credit_loop"] is not True:
                problems.append("ibdmchk does not report the credit loop in OpenSM's %s "
                                "routing (see %s)" % (eng, os.path.join(osm_dir,
                                                                         "ibdmchk.out")))
            # both checkers must agree on both routings
            for who, c, v in (("OpenSM", co, v_osm), ("ibroute", ci, v_ibr)):
                if c["credit_loop"] is not None and c["credit_loop"] == v.get("deadlock_free"):
                    problems.append("ibdmchk and ibr verify disagree about credit loops in "
                                    "%s's routing" % who)
    except Fail as e:
        problems.append(str(e))
    except Done:
        pass
    finally:
        write_summary(work, summary)

    print("case %s: %s on %s%s" % (name, eng, args.spec,
                                   ", faults " + args.faults + " seed " + args.seed
                                   if args.faults else ""))
    if summary.get("pruned_nodes"):
        print("  %d nodes cut off by faults were dropped" % summary["pruned_nodes"])
    if summary.get("roots"):
        print("  roots: OpenSM %s; ibroute %s" % (" ".join(summary["roots"]["opensm"]),
                                                  " ".join(summary["roots"]["ibroute"])))
    for who in ("opensm", "ibroute"):
        v = summary.get(who)
        if v:
            w = summary.get("walk", {}).get(who, {"illegal": 0})
            print("  %-8s pairs=%s/%s avg_hops=%.3f max_hops=%s max_link_load=%s "
                  "mean_link_load=%.2f deadlock_free=%s missing=%s illegal=%d" % (
                      who, v.get("pairs_ok"), v.get("pairs"), v.get("avg_hops") or 0,
                      v.get("max_hops"), v.get("max_link_load"), v.get("mean_link_load") or 0,
                      v.get("deadlock_free"), v.get("missing"), w["illegal"]))
    if "ibroute_decline" in summary:
        print("  ibroute declined: %s" % summary["ibroute_decline"])
    if "ibroute_restricted" in summary:
        print("  ibroute restricted pairs: %d" % summary["ibroute_restricted"])
    d = summary.get("lft_diff")
    if d:
        print("  LFTs: %d of %d entries differ; dumps byte-identical: %s" % (
            d["differ"], d["entries"], "yes" if d["byte_identical"] else "no"))
        if d.get("first"):
            print("    first: " + d["first"])
    if "ibdmchk" in summary:
        for who, c in summary["ibdmchk"].items():
            print("  ibdmchk %-8s credit loop: %s (exit %s, %s CA-to-CA paths)" % (
                who, {True: "YES", False: "none", None: "?"}[c["credit_loop"]], c["exit"],
                c["paths"]))
    print_times(summary)
    for n in notes:
        print("  note: " + n)
    return verdict(problems)


if __name__ == "__main__":
    sys.exit(main_exit(main))
