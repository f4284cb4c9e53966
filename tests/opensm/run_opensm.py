#!/usr/bin/env python3
"""Run the real OpenSM on a fabric simulated by ibsim and capture its routing.

Usage: run_opensm.py [options] NETFILE ENGINE OUTDIR

Starts `ibsim -s -n NETFILE` on a private (abstract, per-run) socket name,
then `opensm -o` attached to a CA of the netfile through libumad2sim, waits
until OpenSM has configured the switch tables (or reports that no engine
could route, or a timeout expires), copies the dump files, the guid2lid
cache file and the log into OUTDIR, writes OUTDIR/opensm-run.json with the
engine used and the routing time, and stops every process it started.

Exit codes:
  0  the first engine of ENGINE configured the tables
  1  OpenSM fell back to another engine (dumps are still copied)
  2  usage error or bad input file
  3  no engine could route the fabric (OpenSM's "No routing engine able ...")
  4  timeout, or ibsim/opensm died or misbehaved
  77 a required tool (ibsim, opensm, libumad2sim.so) is missing
"""

import argparse
import datetime
import glob
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

EXIT_OK, EXIT_FALLBACK, EXIT_USAGE, EXIT_UNROUTABLE, EXIT_FAIL = 0, 1, 2, 3, 4
EXIT_SKIP = 77

# Dump files OpenSM may write into --dump_files_dir; the first three are the
# ones a routing comparison needs, the rest are copied when present.
DUMP_FILES = [
    "opensm-lfts.dump", "opensm-subnet.lst", "opensm.fdbs",
    "opensm-lid-matrix.dump", "opensm.mcfdbs", "opensm-sl2vl.dump",
    "opensm-updn-roots.dump", "opensm-ftree-ca-order.dump", "opensm-sa.dump",
]
REQUIRED_DUMPS = ["opensm-lfts.dump", "opensm-subnet.lst", "opensm.fdbs"]

# Engines that need QoS (-Q) to produce their SLs/SL2VL tables.
QOS_ENGINES = {"lash", "dfsssp", "nue", "torus-2QoS"}

# OpenSM log line: "Nov 21 07:26:47 279368 [BB7986C0] 0x04 -> message".
LOG_LINE = re.compile(
    r"^(?P<mon>[A-Z][a-z]{2}) +(?P<day>\d{1,2}) (?P<hms>\d\d:\d\d:\d\d) "
    r"(?P<usec>\d{6}) \[[0-9A-Fa-f]+\] 0x(?P<lvl>[0-9a-fA-F]{2}) -> (?P<msg>.*)$")
RE_BUILD = re.compile(r"building routing with '([^']+)' routing algorithm")
RE_DONE = re.compile(r"(\S+) tables configured on all switches")
RE_NOENGINE = re.compile(r"No routing engine able to successfully configure")
RE_SUBNET_UP = re.compile(r"SUBNET UP|No routing engine able to successfully configure")
RE_ENGINE_ERR = re.compile(r"ucast_mgr_route: (\S+): (cannot build .*)$")
# dfsssp (and nue) report the virtual lanes they need and the paths per lane
RE_VLS_NEEDED = re.compile(r"Virtual Lanes needed: (\d+)")
RE_LANES_HDR = re.compile(r"paths per VL \((before|after) balancing\)", re.I)
RE_LANE = re.compile(r"^\S+: +(\d+)\. lane: (\d+)$")
MONTHS = {m: i + 1 for i, m in enumerate(
    "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}


class HarnessError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def log(msg):
    print("run_opensm: " + msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------
# Tools


def find_umad2sim():
    env = os.environ.get("IBR_UMAD2SIM")
    if env:
        return env if os.path.isfile(env) else None
    # ibsim-run names the library in its first lines.
    runner = shutil.which("ibsim-run")
    if runner:
        try:
            with open(runner, encoding="utf-8", errors="replace") as f:
                m = re.search(r"^sim_so=(\S+)", f.read(), re.M)
            if m and os.path.isfile(m.group(1)):
                return m.group(1)
        except OSError:
            pass
    for pat in ("/usr/lib/*/umad2sim/libumad2sim.so", "/usr/lib*/umad2sim/libumad2sim.so",
                "/usr/local/lib*/umad2sim/libumad2sim.so"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    return None


def find_exe(env, name, extra=()):
    path = os.environ.get(env)
    if path:        # an explicit override must exist
        return path if os.access(path, os.X_OK) else None
    found = shutil.which(name)
    if found:
        return found
    for p in extra:
        if os.access(p, os.X_OK):
            return p
    return None


def find_tools():
    """Return dict of tool paths or raise HarnessError(EXIT_SKIP)."""
    tools = {
        "ibsim": find_exe("IBR_IBSIM", "ibsim"),
        "opensm": find_exe("IBR_OPENSM", "opensm", ("/usr/sbin/opensm",)),
        "umad2sim": find_umad2sim(),
    }
    missing = [k for k, v in tools.items() if not v]
    if missing:
        raise HarnessError(EXIT_SKIP, "missing tool(s): " + ", ".join(missing) +
                           " (install ibsim-utils and opensm)")
    return tools


# ----------------------------------------------------------------------------
# Netfile inspection: sizes for ibsim and the node the SM sits on.

HDR = re.compile(r'^(Switch|Hca|Ca|Rt)\s+(\d+)\s+"([^"]*)"')


def scan_netfile(path):
    nodes = switches = ports = 0
    first_ca = None
    cas = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = HDR.match(line)
                if not m:
                    continue
                n = int(m.group(2))
                nodes += 1
                ports += n + 1
                if m.group(1) == "Switch":
                    switches += 1
                elif m.group(1) in ("Hca", "Ca"):
                    if first_ca is None:
                        first_ca = m.group(3)
                    if len(cas) < 2:
                        cas.append(m.group(3))
    except OSError as e:
        raise HarnessError(EXIT_USAGE, "cannot read netfile %s: %s" % (path, e))
    if nodes == 0:
        raise HarnessError(EXIT_USAGE, "%s: no Switch/Ca/Hca records" % path)
    return {"nodes": nodes, "switches": switches, "ports": ports, "first_ca": first_ca,
            "cas": cas}


# ----------------------------------------------------------------------------
# Log parsing


def parse_time(m, year):
    mon = MONTHS.get(m.group("mon"), 1)
    h, mi, s = (int(x) for x in m.group("hms").split(":"))
    return datetime.datetime(year, mon, int(m.group("day")), h, mi, s,
                             int(m.group("usec")))


def analyse_log(text, requested):
    """Extract attempts, engine used and the routing span of the last sweep."""
    year = datetime.date.today().year
    res = {"engine_used": None, "attempts": [], "routing_time_s": None,
           "unroutable": False, "vls_needed": None, "vls_used": None}
    lanes = None        # the per-lane path counts being read
    start = None
    prev = None
    rollover = datetime.timedelta(0)
    for line in text.splitlines():
        m = LOG_LINE.match(line)
        if not m:
            continue
        t = parse_time(m, year) + rollover
        if prev is not None and t < prev - datetime.timedelta(days=1):
            rollover += datetime.timedelta(days=365)   # new year mid-run
            t += datetime.timedelta(days=365)
        prev = t
        msg = m.group("msg")
        v = RE_VLS_NEEDED.search(msg)
        if v:
            res["vls_needed"] = int(v.group(1))
            continue
        if RE_LANES_HDR.search(msg):
            lanes = {}
            continue
        ln = RE_LANE.match(msg)
        if ln and lanes is not None:
            lanes[int(ln.group(1))] = int(ln.group(2))
            res["vls_used"] = sum(1 for c in lanes.values() if c > 0)
            continue
        lanes = None
        b = RE_BUILD.search(msg)
        if b:
            if start is None:
                start = t
                res["attempts"] = []       # a new routing run
                res["engine_used"] = None
                res["unroutable"] = False
                res["vls_needed"] = res["vls_used"] = None
            res["attempts"].append({"engine": b.group(1), "status": "started"})
            continue
        e = RE_ENGINE_ERR.search(msg)
        if e and res["attempts"] and res["attempts"][-1]["engine"] == e.group(1):
            res["attempts"][-1]["status"] = "failed"
            res["attempts"][-1]["message"] = e.group(2)
            continue
        d = RE_DONE.search(msg)
        if d:
            res["engine_used"] = d.group(1)
            if res["attempts"] and res["attempts"][-1]["engine"] == d.group(1):
                res["attempts"][-1]["status"] = "ok"
            if start is not None:
                res["routing_time_s"] = (t - start).total_seconds()
            start = None
            continue
        if RE_NOENGINE.search(msg):
            res["unroutable"] = True
            res["engine_used"] = None
            if start is not None:
                res["routing_time_s"] = (t - start).total_seconds()
            start = None
    first = [e for e in re.split(r"[,\s]+", requested) if e and e != "no_fallback"]
    res["engine_requested"] = first[0] if first else "minhop"
    res["fallback"] = (res["engine_used"] is not None
                       and res["engine_used"] != res["engine_requested"])
    return res


class LogWatcher:
    """Reads a growing log incrementally (the log of a big fabric reaches
    tens of megabytes: re-reading it while polling would steal CPU from
    OpenSM) and remembers whether a pattern has appeared."""

    def __init__(self, path, pattern):
        self.path, self.pattern = path, pattern
        self.offset, self.tail, self.found = 0, "", False

    def poll(self):
        if self.found:
            return True
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except OSError:
            return False
        if not chunk:
            return False
        self.offset += len(chunk)
        text = self.tail + chunk.decode("utf-8", "replace")
        cut = text.rfind("\n")
        self.tail = text[cut + 1:] if cut >= 0 else text
        if self.pattern.search(text):
            self.found = True
        return self.found


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


# ----------------------------------------------------------------------------
# Processes


class Procs:
    """Processes started by this run, stopped in reverse order."""

    def __init__(self):
        self.procs = []

    def start(self, name, argv, env, out):
        p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append((name, p))
        return p

    @staticmethod
    def stop_one(p, grace=5.0):
        if p.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(p.pid, sig)       # own session: only its group
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def stop_all(self):
        while self.procs:
            _, p = self.procs.pop()
            self.stop_one(p)


def wait_for(pred, timeout, proc=None, interval=0.05):
    """Poll pred() until true; False on timeout; raise if proc exits first."""
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return True
        if proc is not None and proc.poll() is not None:
            return pred()
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
        interval = min(interval * 1.5, 0.5)


# ----------------------------------------------------------------------------


def run(args):
    tools = find_tools()
    netfile = os.path.abspath(args.netfile)
    info = scan_netfile(netfile)
    sm_host = args.sm_host or info["first_ca"]
    if not sm_host:
        raise HarnessError(EXIT_USAGE, "%s: no CA to attach the SM to (use --sm-host)"
                           % netfile)
    outdir = os.path.abspath(args.outdir)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        raise HarnessError(EXIT_USAGE, "cannot create output directory %s: %s"
                           % (outdir, e))

    # ibsim sizes: its defaults (2048 nodes, 256 switches, 13312 ports) are too
    # small for large fabrics; leave headroom.
    nodes = args.nodes or max(2048, info["nodes"] + 16)
    switches = args.switches or max(256, info["switches"] + 16)
    ports = args.ports or max(13312, 2 * info["ports"] + 64)
    lids_needed = info["switches"] + (info["nodes"] - info["switches"]) * (1 << args.lmc) * 2
    linear = args.linearcap or min(49152, max(30720, lids_needed + 64))

    work = tempfile.mkdtemp(prefix="ibr-opensm-")
    dumpdir = os.path.join(work, "dump")
    cachedir = os.path.join(work, "cache")
    os.makedirs(dumpdir)
    os.makedirs(cachedir)
    conf = os.path.join(work, "opensm.conf")
    with open(conf, "w") as f:
        f.write("# defaults plus command-line options only\n")
        if args.sa_db:
            # OpenSM restores the SA database (multicast groups and their
            # member ports) from this file on its first master sweep, builds
            # the trees, and writes opensm-sa.dump back into the dump dir.
            sa_db = os.path.join(work, "sa-db-in.dump")
            shutil.copy(os.path.abspath(args.sa_db), sa_db)
            f.write("sa_db_file %s\nsa_db_dump TRUE\n" % sa_db)
        if args.then:
            # the SUBNET UP line must reach the log while OpenSM runs on
            f.write("force_log_flush TRUE\n")
        for line in args.conf:
            f.write(line + "\n")
        if args.event_plugin:
            # OpenSM dlopen()s lib<NAME>.so by the library search path
            # (LD_LIBRARY_PATH reaches a build tree)
            f.write("event_plugin_name %s\n" % args.event_plugin)
    oslog = os.path.join(work, "opensm.log")
    sockname = "ibr%d_%s" % (os.getpid(), secrets.token_hex(4))

    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["IBSIM_SOCKNAME"] = sockname

    procs = Procs()
    summary = {
        "netfile": netfile, "engine_chain": args.engine, "sm_host": sm_host,
        "lmc": args.lmc, "qos": bool(args.qos), "dumps": args.want_dumps, "sizes": {
            "nodes": info["nodes"], "switches": info["switches"],
            "ibsim_N": nodes, "ibsim_S": switches, "ibsim_P": ports, "ibsim_L": linear},
        "socket": sockname,
    }
    t0 = time.monotonic()
    status = EXIT_FAIL
    try:
        # 1. the simulator
        sim_out_path = os.path.join(work, "ibsim.out")
        sim_out = open(sim_out_path, "w")
        sim = procs.start("ibsim", [tools["ibsim"], "-s", "-n", "-N", str(nodes),
                                    "-S", str(switches), "-P", str(ports),
                                    "-L", str(linear), netfile], env, sim_out)
        sim_out.close()
        sim_watch = LogWatcher(sim_out_path, re.compile(r"simulator ready"))
        ready = wait_for(sim_watch.poll, args.ibsim_timeout, sim)
        if not ready:
            txt = read_text(sim_out_path)
            tail = "\n".join(l for l in txt.splitlines()
                             if "cannot parse remote lid" not in l)[-2000:]
            if sim.poll() is not None:
                raise HarnessError(EXIT_USAGE if "parse" in tail.lower() else EXIT_FAIL,
                                   "ibsim exited (status %s) before it was ready:\n%s"
                                   % (sim.returncode, tail))
            raise HarnessError(EXIT_FAIL, "ibsim not ready after %gs:\n%s"
                               % (args.ibsim_timeout, tail))
        summary["ibsim_start_s"] = round(time.monotonic() - t0, 3)

        # 2. OpenSM, attached to sm_host, one sweep
        osm_env = dict(env)
        osm_env["SIM_HOST"] = sm_host
        osm_env["OSM_CACHE_DIR"] = cachedir
        osm_env["OSM_TMP_DIR"] = dumpdir
        osm_env["LD_PRELOAD"] = tools["umad2sim"]
        # --then keeps OpenSM running (no -o) as SM and SA until the
        # command has run against the simulated fabric
        once = [] if args.then else ["-o"]
        argv = [tools["opensm"], "-F", conf] + once + ["-s", "0", "-D", args.debug_flags,
                "-R", args.engine, "--dump_files_dir", dumpdir, "-f", oslog, "-e"]
        if args.lmc:
            argv += ["-l", str(args.lmc)]
        chain = [e for e in re.split(r"[,\s]+", args.engine) if e]
        if args.qos or any(e in QOS_ENGINES for e in chain):
            argv.append("-Q")
        argv += args.opensm_arg
        summary["opensm_argv"] = argv
        osm_out_path = os.path.join(work, "opensm.out")
        osm_out = open(osm_out_path, "w")
        t1 = time.monotonic()
        osm = procs.start("opensm", argv, osm_env, osm_out)
        osm_out.close()

        watcher = LogWatcher(oslog, RE_NOENGINE)

        def osm_finished():
            if osm.poll() is not None or sim.poll() is not None:
                return True
            # On total failure OpenSM -o does not exit (it spins): the error
            # line is flushed at once, so watch the log for it.
            return watcher.poll()

        if args.then:
            up = LogWatcher(oslog, RE_SUBNET_UP)

            def osm_up():
                return osm.poll() is not None or sim.poll() is not None or up.poll()

            finished = wait_for(osm_up, args.timeout, None, interval=0.1)
            if finished and osm.poll() is None and sim.poll() is None:
                # the command talks to ibsim from another CA (SIM_HOST) and
                # preloads IBR_UMAD2SIM into the diagnostics it runs itself
                then_env = dict(env)
                then_env["IBR_UMAD2SIM"] = tools["umad2sim"]
                cas = info["cas"]
                then_env["SIM_HOST"] = args.then_host or (
                    cas[1] if len(cas) > 1 and cas[1] != sm_host else sm_host)
                with open(os.path.join(outdir, "then.out"), "w") as tout:
                    try:
                        tp = subprocess.run(args.then, shell=True, env=then_env,
                                            stdout=tout, stderr=subprocess.STDOUT,
                                            timeout=args.timeout, start_new_session=True)
                        summary["then_exit"] = tp.returncode
                    except subprocess.TimeoutExpired:
                        summary["then_exit"] = None
        else:
            finished = wait_for(osm_finished, args.timeout, None, interval=0.1)
        summary["opensm_wall_s"] = round(time.monotonic() - t1, 3)
        if osm.poll() is None:
            procs.stop_one(osm)
        summary["opensm_exit"] = osm.returncode
        text = read_text(oslog)
        res = analyse_log(text, args.engine)
        summary.update(res)

        # 3. collect what OpenSM wrote
        copied = []
        for name in DUMP_FILES:
            src = os.path.join(dumpdir, name)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(outdir, name))
                copied.append(name)
        g2l = os.path.join(cachedir, "guid2lid")
        if os.path.exists(g2l):
            shutil.copy(g2l, os.path.join(outdir, "guid2lid"))
            copied.append("guid2lid")
        shutil.copy(oslog, os.path.join(outdir, "opensm.log")) if os.path.exists(oslog) else None
        for extra in ("opensm.out", "ibsim.out"):
            p = os.path.join(work, extra)
            if os.path.exists(p):
                shutil.copy(p, os.path.join(outdir, extra))
        summary["files"] = copied

        if not finished:
            raise HarnessError(EXIT_FAIL, "opensm did not finish within %gs (see %s)"
                               % (args.timeout, os.path.join(outdir, "opensm.log")))
        if sim.poll() is not None and res["engine_used"] is None and not res["unroutable"]:
            raise HarnessError(EXIT_FAIL, "ibsim exited (status %s) while OpenSM was running; "
                               "see %s" % (sim.returncode, os.path.join(outdir, "ibsim.out")))
        if res["unroutable"]:
            raise HarnessError(EXIT_UNROUTABLE, "OpenSM: no routing engine could "
                               "configure the switch tables")
        if res["engine_used"] is None:
            raise HarnessError(EXIT_FAIL, "opensm exited (status %s) without "
                               "configuring tables; see %s" %
                               (osm.returncode, os.path.join(outdir, "opensm.log")))
        missing = [n for n in REQUIRED_DUMPS if n not in copied] if args.want_dumps else []
        if "guid2lid" not in copied:
            missing.append("guid2lid")
        if missing:
            raise HarnessError(EXIT_FAIL, "OpenSM routed but did not write: " +
                               ", ".join(missing) + " (is -D 0x40 set?)")
        if res["routing_time_s"] is None:
            log("warning: no 'building routing' line (needs -D with 0x04): "
                "routing time unknown")
        status = EXIT_FALLBACK if res["fallback"] else EXIT_OK
        if res["fallback"]:
            log("OpenSM fell back from %s to %s" % (res["engine_requested"],
                                                    res["engine_used"]))
        return status
    except HarnessError as e:
        summary["error"] = str(e)
        status = e.code
        raise
    finally:
        procs.stop_all()
        summary["status"] = status
        summary["total_wall_s"] = round(time.monotonic() - t0, 3)
        try:
            with open(os.path.join(outdir, "opensm-run.json"), "w") as f:
                json.dump(summary, f, indent=2, sort_keys=True)
                f.write("\n")
        except OSError as e:
            log("cannot write opensm-run.json: %s" % e)
        if args.keep_work:
            log("work directory kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Run OpenSM under ibsim on NETFILE and capture its routing.",
        epilog="Exit: 0 ok, 1 fell back to another engine, 2 usage/input error, "
               "3 unroutable, 4 timeout/tool failure, 77 tools missing.")
    ap.add_argument("netfile", help="ibsim netfile / ibnetdiscover topology")
    ap.add_argument("engine", help="OpenSM -R chain, e.g. minhop or ftree,updn")
    ap.add_argument("outdir", help="where the dumps, guid2lid, log and JSON go")
    ap.add_argument("--sm-host", help="node id (quoted id in the netfile) the SM "
                    "runs on; default: first CA")
    ap.add_argument("--lmc", type=int, default=0, help="OpenSM -l (0..7)")
    ap.add_argument("--qos", action="store_true", help="pass -Q (automatic for "
                    "lash, dfsssp, nue, torus-2QoS)")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds to wait for OpenSM (default 600)")
    ap.add_argument("--ibsim-timeout", type=float, default=120.0,
                    help="seconds to wait for ibsim to load the netfile")
    ap.add_argument("-N", "--nodes", type=int, help="ibsim -N (default: from netfile)")
    ap.add_argument("-S", "--switches", type=int, help="ibsim -S")
    ap.add_argument("-P", "--ports", type=int, help="ibsim -P")
    ap.add_argument("-L", "--linearcap", type=int, help="ibsim -L (LFT size)")
    ap.add_argument("-D", "--debug-flags", default="0x47",
                    help="OpenSM -D; needs 0x40 for dumps and 0x04 for the "
                    "routing start line (default 0x47)")
    ap.add_argument("--no-dumps", action="store_true",
                    help="timing only: drop the ROUTING log flag (0x40) so OpenSM "
                    "writes no LFT/fdbs dumps (large fabrics write gigabytes)")
    ap.add_argument("--opensm-arg", action="append", default=[],
                    help="extra OpenSM argument (repeatable)")
    ap.add_argument("--sa-db", metavar="FILE",
                    help="SA database (opensm-sa.dump syntax) OpenSM restores its "
                    "multicast groups from; OpenSM's own opensm-sa.dump and "
                    "opensm.mcfdbs are copied back")
    ap.add_argument("--conf", "--conf-line", dest="conf", metavar="LINE", action="append",
                    default=[], help="a line for opensm.conf (repeatable), e.g. "
                    "'max_op_vls 3' or 'qos_sl2vl 0,0,1,1,...'")
    ap.add_argument("--event-plugin", metavar="NAME",
                    help="event_plugin_name for opensm.conf (e.g. ibroute-opensm: "
                    "OpenSM loads libNAME.so)")
    ap.add_argument("--then", metavar="CMD",
                    help="run OpenSM as a standing SM (no -o) and, once the subnet is "
                    "up, run the shell command CMD with IBSIM_SOCKNAME, SIM_HOST (a "
                    "second CA) and IBR_UMAD2SIM (the library to LD_PRELOAD into "
                    "diagnostics) set; its output goes to OUTDIR/then.out, its exit "
                    "status to opensm-run.json (then_exit); then OpenSM is stopped")
    ap.add_argument("--then-host", metavar="NODE",
                    help="SIM_HOST for --then (default: the second CA of the netfile)")
    ap.add_argument("--keep-work", action="store_true",
                    help="keep the temporary work directory")
    args = ap.parse_args(argv)
    if not 0 <= args.lmc <= 7:
        ap.error("--lmc must be 0..7")
    try:
        flags = int(args.debug_flags, 0)
    except ValueError:
        ap.error("-D needs a number such as 0x47")
    if args.no_dumps:
        flags &= ~0x40
    args.debug_flags = "0x%02x" % flags
    args.want_dumps = bool(flags & 0x40)

    # Turn SIGTERM/SIGINT/SIGHUP into exceptions so `finally` stops children.
    def on_signal(signum, _frame):
        for s2 in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s2, signal.SIG_IGN)   # let the cleanup finish
        raise HarnessError(EXIT_FAIL, "interrupted by signal %d" % signum)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)

    try:
        rc = run(args)
    except HarnessError as e:
        log(str(e))
        return e.code
    except (OSError, subprocess.SubprocessError) as e:
        log("error: %s" % e)
        return EXIT_FAIL
    if rc in (EXIT_OK, EXIT_FALLBACK):
        with open(os.path.join(args.outdir, "opensm-run.json")) as f:
            s = json.load(f)
        log("engine %s, routing %.6fs, OpenSM %.2fs" % (
            s.get("engine_used"), s.get("routing_time_s") or -1, s.get("opensm_wall_s", -1)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
