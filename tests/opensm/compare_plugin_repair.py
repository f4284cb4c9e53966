#!/usr/bin/env python3
"""ibroute inside OpenSM after a lost cable: the plugin repairs its routing.

  compare_plugin_repair.py --ibr PATH --plugin-dir DIR --engine ENGINE
                           --osm-engine OSM_ENGINE --spec SPEC --workdir DIR

For ibr-ENGINE (OpenSM with the libibroute-opensm.so plugin) and for
OpenSM's own OSM_ENGINE, each on its own simulation of the same fabric:

1. ibsim (its console on a pipe, its own IBSIM_SOCKNAME) and a standing
   OpenSM attached to the first CA (SIM_HOST) come up; at SUBNET UP the
   LFTs OpenSM dumped (opensm-lfts.dump) are kept;
2. ibsim's console takes one switch-to-switch cable down
   (`Unlink "nodeid"[port]`), SIGHUP makes OpenSM sweep again, and at the
   next SUBNET UP its dump is kept again;
3. the cable comes back (`ReLink "nodeid"[port]`) and the same again;
   every process is stopped.

Fails (exit 1) unless: the plugin's first sweep routed from scratch and
the second repaired the kept routing incrementally (OpenSM's log), the
LFT blocks it logged as changed equal those that differ between its two
dumps, those are no more than the blocks OpenSM's own engine changed after
the same fault, and `ibr verify` finds both second dumps valid on the
fabric without the cable, and both dumps with the cable back valid on the
whole fabric (the plugin's way, repair or full reroute, is reported). Exit 77 when the plugin was not built or
ibsim/OpenSM are missing.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import secrets
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_common as cm  # noqa: E402
import run_opensm as ro  # noqa: E402  (tools, netfile sizes, process helpers)

PLUGIN = "ibroute-opensm"
RE_UP = re.compile(r"-> SUBNET UP\s*$", re.M)  # once per sweep (not the box)
RE_SCRATCH = re.compile(r"ibr-\S+: routing from scratch: (.*)$", re.M)
RE_REPAIR = re.compile(r"ibr-\S+: ibroute \S+ from the kept routing: ([^:\n]+?)(?:: .*?)? "
                       r"after (\d+) changes", re.M)
RE_BLOCKS = re.compile(r"ibr-\S+: changed (\d+) LFT entries on (\d+) switches, (\d+) LFT "
                       r"blocks", re.M)
RE_NODE = re.compile(r'^(Switch|Ca|Hca|Rt)\s+\d+\s+"([^"]+)"')
RE_PORT = re.compile(r'^\[(\d+)\]\s*"([^"]+)"\[(\d+)\]')


def switch_cable(netfile):
    """The first switch-to-switch cable of the netfile, as
    ((node id, port), (node id, port))."""
    kinds, links, cur = {}, [], None
    with open(netfile, encoding="utf-8") as f:
        for line in f:
            m = RE_NODE.match(line)
            if m:
                cur = m.group(2)
                kinds[cur] = m.group(1)
                continue
            m = RE_PORT.match(line.strip())
            if m and cur is not None:
                links.append(((cur, int(m.group(1))), (m.group(2), int(m.group(3)))))
    for a, b in links:
        if kinds.get(a[0]) == "Switch" and kinds.get(b[0]) == "Switch":
            return a, b
    raise cm.Fail("%s: no switch-to-switch cable" % netfile)


def without_cable(src, dst, cable):
    """src without the two port lines of cable, into dst."""
    ends = {cable[0], cable[1]}
    cur, dropped = None, 0
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            m = RE_NODE.match(line)
            if m:
                cur = m.group(2)
            m = RE_PORT.match(line.strip())
            if m and (cur, int(m.group(1))) in ends:
                dropped += 1
                continue
            out.write(line)
    if dropped != 2:
        raise cm.Fail("cable %r: %d port lines found, expected 2" % (cable, dropped))


def count_up(path):
    return len(RE_UP.findall(ro.read_text(path)))


def wait_up(path, n, osm, sim, timeout):
    """Wait for the n-th SUBNET UP of OpenSM's log."""
    if not ro.wait_for(lambda: count_up(path) >= n, timeout, osm, interval=0.1):
        raise cm.Fail("OpenSM did not reach SUBNET UP #%d within %gs (see %s); "
                      "opensm %s, ibsim %s" % (n, timeout, path, osm.poll(), sim.poll()))
    # the dumps follow the SUBNET UP line of the same sweep, and OpenSM may
    # sweep once more for the traps of the change: wait for a quiet log
    size, quiet, deadline = -1, 0, time.monotonic() + timeout
    while quiet < 5 and time.monotonic() < deadline:
        time.sleep(0.3)
        now = os.path.getsize(path)
        quiet = quiet + 1 if now == size else 0
        size = now


def simulate(tools, netfile, chain, cable, outdir, plugin_dir, timeout):
    """One simulation: the dumps of the first sweep and of the sweep after
    the cable went down, into outdir/before and outdir/after."""
    info = ro.scan_netfile(netfile)
    work = os.path.join(outdir, "run")
    dumpdir, cachedir = os.path.join(work, "dump"), os.path.join(work, "cache")
    os.makedirs(dumpdir)
    os.makedirs(cachedir)
    conf = os.path.join(work, "opensm.conf")
    with open(conf, "w") as f:
        f.write("force_log_flush TRUE\n")
        if plugin_dir:
            f.write("event_plugin_name %s\n" % PLUGIN)
    oslog = os.path.join(work, "opensm.log")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["IBSIM_SOCKNAME"] = "ibr%d_%s" % (os.getpid(), secrets.token_hex(4))
    if plugin_dir:
        env["LD_LIBRARY_PATH"] = plugin_dir + (":" + env["LD_LIBRARY_PATH"]
                                               if env.get("LD_LIBRARY_PATH") else "")
    procs = ro.Procs()
    try:
        sim_path = os.path.join(work, "ibsim.out")
        with open(sim_path, "w") as sim_out:
            # without -n: ibsim reads console commands from the pipe
            sim = subprocess.Popen(
                [tools["ibsim"], "-s", "-N", str(max(2048, info["nodes"] + 16)),
                 "-S", str(max(256, info["switches"] + 16)),
                 "-P", str(max(13312, 2 * info["ports"] + 64)), netfile],
                env=env, stdin=subprocess.PIPE, stdout=sim_out, stderr=subprocess.STDOUT,
                start_new_session=True, text=True)
        procs.procs.append(("ibsim", sim))
        ready = ro.LogWatcher(sim_path, re.compile(r"simulator ready"))
        if not ro.wait_for(ready.poll, 60, sim):
            raise cm.Fail("ibsim not ready: %s" % ro.read_text(sim_path)[-2000:])
        osm_env = dict(env)
        osm_env.update(SIM_HOST=info["first_ca"], OSM_CACHE_DIR=cachedir,
                       OSM_TMP_DIR=dumpdir, LD_PRELOAD=tools["umad2sim"])
        # -s 0: no periodic sweep, only the SIGHUP one; no -e, so that the
        # log SIGHUP reopens keeps the first sweep's lines
        argv = [tools["opensm"], "-F", conf, "-s", "0", "-D", "0x47", "-R", chain,
                "--dump_files_dir", dumpdir, "-f", oslog]
        with open(os.path.join(work, "opensm.out"), "w") as osm_out:
            osm = procs.start("opensm", argv, osm_env, osm_out)
        wait_up(oslog, 1, osm, sim, timeout)
        os.makedirs(os.path.join(outdir, "before"))
        for name in ("opensm-lfts.dump",):
            shutil.copy(os.path.join(dumpdir, name), os.path.join(outdir, "before", name))
        (a, pa), _ = cable
        # the cable goes down, then comes back: each time a sweep (SIGHUP)
        # and the dump of its end
        for cmd, phase in (("Unlink", "after"), ("ReLink", "restored")):
            ups = count_up(oslog)
            sim.stdin.write('%s "%s"[%d]\n' % (cmd, a, pa))
            sim.stdin.flush()
            time.sleep(0.5)
            os.kill(osm.pid, signal.SIGHUP)
            wait_up(oslog, ups + 1, osm, sim, timeout)
            os.makedirs(os.path.join(outdir, phase))
            shutil.copy(os.path.join(dumpdir, "opensm-lfts.dump"),
                        os.path.join(outdir, phase, "opensm-lfts.dump"))
            if phase == "after":
                mark = os.path.getsize(oslog)
        shutil.copy(os.path.join(cachedir, "guid2lid"), os.path.join(outdir, "guid2lid"))
    finally:
        procs.stop_all()
        for name in ("opensm.log", "ibsim.out", "opensm.out"):
            p = os.path.join(work, name)
            if os.path.exists(p):
                shutil.copy(p, os.path.join(outdir, name))
    text = ro.read_text(os.path.join(outdir, "opensm.log"))
    return text[:mark], text[mark:]


def changed_blocks(before, after):
    """(changed 64-LID blocks, changed entries) between two LFT dumps, over
    the switches of the second (a missing entry counts as unrouted)."""
    a, b = cm.read_lfts(before), cm.read_lfts(after)
    blocks = entries = 0
    for sw, tb in b.items():
        ta = a.get(sw, {})
        lids = set(ta) | set(tb)
        diff = {lid for lid in lids if ta.get(lid, 255) != tb.get(lid, 255)}
        entries += len(diff)
        blocks += len({lid // 64 for lid in diff})
    return blocks, entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ibr", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--engine", required=True, help="ibroute engine (ibr-ENGINE)")
    ap.add_argument("--osm-engine", required=True, help="OpenSM's engine to compare with")
    ap.add_argument("--spec", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--name", default=None)
    ap.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()

    plugin_dir = os.path.abspath(args.plugin_dir)
    if not os.path.exists(os.path.join(plugin_dir, "lib%s.so" % PLUGIN)):
        raise cm.Skip("lib%s.so not built in %s" % (PLUGIN, plugin_dir))
    try:
        tools = ro.find_tools()
    except ro.HarnessError as e:
        raise cm.Skip(str(e))
    ibr, work, topo, _, _ = cm.workdirs(args)
    cm.generate(ibr, args.spec, work, topo)
    cable = switch_cable(topo)
    faulty = os.path.join(work, "faulty.net")
    without_cable(topo, faulty, cable)
    summary = {"spec": args.spec, "cable": cable}
    problems = []
    sides = (("ibroute", "ibr-" + args.engine, plugin_dir),
             ("opensm", args.osm_engine, None))
    for side, chain, pdir in sides:
        out = os.path.join(work, side)
        text, text_back = simulate(tools, topo, chain, cable, out, pdir, args.timeout)
        blocks, entries = changed_blocks(os.path.join(out, "before", "opensm-lfts.dump"),
                                         os.path.join(out, "after", "opensm-lfts.dump"))
        v = cm.verify(ibr, faulty, os.path.join(out, "after", "opensm-lfts.dump"),
                      os.path.join(out, "guid2lid"))
        summary[side] = {"engine": chain, "blocks_changed": blocks,
                         "entries_changed": entries, "verify_valid": v.get("valid")}
        print("%s (%s): %d LFT blocks, %d entries changed; ibr verify after the "
              "fault: %s" % (side, chain, blocks, entries, "valid" if v.get("valid") else v))
        if not v.get("valid"):
            problems.append("%s: the routing after the fault is not valid: %s" % (side, v))
        # the cable back: a valid routing of the whole fabric again
        v = cm.verify(ibr, topo, os.path.join(out, "restored", "opensm-lfts.dump"),
                      os.path.join(out, "guid2lid"))
        back = RE_REPAIR.findall(text_back) + [("from scratch", x)
                                               for x in RE_SCRATCH.findall(text_back)]
        summary[side].update(restored_valid=v.get("valid"), restored=back)
        print("%s: cable back: %s; ibr verify: %s"
              % (side, back or "-", "valid" if v.get("valid") else v))
        if not v.get("valid"):
            problems.append("%s: the routing with the cable back is not valid: %s" % (side, v))
        if side == "ibroute" and not back:
            problems.append("ibroute: no routing logged after the cable came back")
        if side != "ibroute":
            continue
        scratch, repair = RE_SCRATCH.findall(text), RE_REPAIR.findall(text)
        logged = RE_BLOCKS.findall(text)
        summary["ibroute"].update(scratch=scratch, repair=repair, logged=logged)
        if len(scratch) != 1:
            problems.append("ibroute: expected one routing from scratch (the first sweep), "
                            "log has %r" % scratch)
        # the sweep after the fault repairs; OpenSM may sweep again for the
        # traps of the change, finding nothing more to change
        if not repair or repair[0][0] != "incremental repair" or \
                any(m != "unchanged" for m, _ in repair[1:]):
            problems.append("ibroute: the sweep after the fault was not an incremental "
                            "repair: %r" % repair)
        elif (sum(int(x[2]) for x in logged), sum(int(x[0]) for x in logged)) != \
                (blocks, entries):
            problems.append("ibroute: logged changes %r differ from the dumps' %d blocks, "
                            "%d entries" % (logged, blocks, entries))
    cm.write_summary(work, summary)
    if summary["ibroute"]["blocks_changed"] > summary["opensm"]["blocks_changed"]:
        problems.append("ibr-%s changed %d LFT blocks, more than OpenSM's %s (%d)"
                        % (args.engine, summary["ibroute"]["blocks_changed"],
                           args.osm_engine, summary["opensm"]["blocks_changed"]))
    if summary["opensm"]["blocks_changed"] == 0:
        problems.append("OpenSM's %s changed no block: the cable did not go down"
                        % args.osm_engine)
    return cm.verdict(problems)


if __name__ == "__main__":
    try:
        sys.exit(cm.main_exit(main))
    except cm.Fail as e:
        print("FAIL: %s" % e)
        sys.exit(1)
