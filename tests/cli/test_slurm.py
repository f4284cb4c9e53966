#!/usr/bin/env python3
"""ibr export slurm-conf, read by Slurm itself. usage: test_slurm.py PATH_TO_IBR

test_export.py checks topology.conf against the grammar of topology.conf(5);
this test hands the file to the consumer: Debian's slurmctld (22.05,
topology/tree) is started on a private munge socket and free ports with a
slurm.conf naming every host of the fabric, and `scontrol show topology`
prints the tree as Slurm parsed it. That view must be the fabric's: each
host sits under exactly one leaf switch cabled to it, every other switch
lists its cabled neighbours one level down, the levels Slurm derives are
the distances from the leaves, the top switches together reach every host,
and slurmctld logs no topology error or warning (a host under several leaf
switches, as a rail-optimized tree's would be, draws one).

Slurm 22.05 has no topology.yaml (it came with 23.11's topology/block and
24.11's YAML file), so slurm-yaml is checked only by test_export.py's
grammar. Without slurmctld, munged and scontrol, or when not run as root
(slurmctld runs as SlurmUser=root here), the test is skipped (exit 77),
except under CI=true, where scripts/deps.sh installs them."""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_export as tx  # noqa: E402  (the fabric readers and hostlist expansion)

FAILURES = []

# fabric, engine, faults (links,switches@seed): two- and three-level trees,
# a degraded one (a lost spine and cables), a rail-optimized tree whose host
# names fold into zero-padded hostlists
CASES = [
    ("fattree:levels=2,radix=8", "ftree", None),
    ("fattree:levels=3,radix=8", "dmodc", None),
    ("xgft:h=3,m=4.4.6,w=1.4.4", "updn", "6,1@2"),
    ("rail:nodes=16,rails=4,radix=16", "ftree", None),
]

check = tx.check


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Slurm:
    """munged and slurmctld in a private directory, stopped by stop()."""

    def __init__(self, root, hosts, topology_conf):
        self.root = root
        self.procs = []
        key = os.path.join(root, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(128))
        os.chmod(key, 0o400)
        self.sock = os.path.join(root, "munge.sock")
        self.run(["munged", "-f", "-S", self.sock, "--key-file=" + key,
                  "--log-file=" + os.path.join(root, "munged.log"),
                  "--pid-file=" + os.path.join(root, "munged.pid"),
                  "--seed-file=" + os.path.join(root, "munged.seed")])
        self.pids = [os.path.join(root, "munged.pid")]
        with open(os.path.join(root, "topology.conf"), "w") as f:
            f.write(topology_conf)
        for d in ("state", "spool"):
            os.mkdir(os.path.join(root, d))
        me = socket.gethostname().split(".")[0]
        conf = [
            "ClusterName=ibrtest",
            "SlurmctldHost=%s(127.0.0.1)" % me,
            "SlurmUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=%s" % self.sock,
            "StateSaveLocation=%s/state" % root,
            "SlurmdSpoolDir=%s/spool" % root,
            "SlurmctldPort=%d" % free_port(),
            "SlurmdPort=%d" % free_port(),
            "SlurmctldPidFile=%s/slurmctld.pid" % root,
            "SlurmctldLogFile=%s/slurmctld.log" % root,
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "SelectType=select/linear",
            "TopologyPlugin=topology/tree",
        ]
        conf += ["NodeName=%s NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" % h for h in hosts]
        conf.append("PartitionName=all Nodes=ALL Default=YES")
        self.conf = os.path.join(root, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.run(["slurmctld", "-c", "-f", self.conf])
        self.pids.append(os.path.join(root, "slurmctld.pid"))

    def run(self, argv):
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60, env=getattr(self, "env", None))
        check(p.returncode == 0, "%s: exit %d\n%s" % (argv[0], p.returncode, p.stdout))

    def topology(self):
        """scontrol show topology, once slurmctld answers (30 s at most)."""
        deadline = time.time() + 30
        while True:
            p = subprocess.run(["scontrol", "show", "topology"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60, env=self.env)
            if p.returncode == 0 and "SwitchName=" in p.stdout:
                return p.stdout
            if time.time() > deadline:
                raise AssertionError("scontrol show topology: exit %d\n%s\n%s"
                                     % (p.returncode, p.stdout, self.log()[-3000:]))
            time.sleep(0.3)

    def log(self):
        try:
            with open(os.path.join(self.root, "slurmctld.log")) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        for pidfile in reversed(getattr(self, "pids", [])):
            try:
                with open(pidfile) as f:
                    pid = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                continue
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
            else:
                os.kill(pid, 9)


def parse_scontrol(text):
    """{switch: (level, [hosts reached], [child switches])} of
    `scontrol show topology`."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        kv = dict(tok.partition("=")[::2] for tok in line.split())
        check("SwitchName" in kv and "Level" in kv, "scontrol line %r" % line)
        nodes = tx.expand_hostlist(kv["Nodes"]) if kv.get("Nodes") else []
        kids = kv["Switches"].split(",") if kv.get("Switches") else []
        out[kv["SwitchName"]] = (int(kv["Level"]), nodes, kids)
    return out


def check_slurm_view(view, links, switches, cas):
    """Slurm's tree against the cabling read from the ibnetdiscover text:
    each host under exactly one leaf, one cabled to an end port of the
    host; every other switch's children its switches one level down that
    Slurm knows, its nodes those of its subtree; levels the distances
    from the leaves; a switch left out has no known switch below it."""
    hosts = tx.leaf_hosts(links, switches, cas)
    level = tx.switch_levels(links, switches, hosts)
    by_name = {"ib%016x" % g: g for g in level}
    check(set(view) <= set(by_name), "Slurm's switches outside the tree: %r"
          % sorted(set(view) - set(by_name))[:5])
    reach = {}

    def reached(name):
        if name not in reach:
            lvl, nodes, kids = view[name]
            reach[name] = set(nodes) if not kids else set().union(*(reached(k) for k in kids))
        return reach[name]

    every = {h for _, _, h in cas.values()}
    covered = []
    for g, lvl in level.items():
        name = "ib%016x" % g
        down = {b[0] for a, b in links.items() if a[0] == g and b[0] in switches
                and level.get(b[0]) == lvl - 1 and "ib%016x" % b[0] in view}
        if name not in view:
            check(not lvl or not down, "%s left out above switches Slurm knows" % name)
            continue
        slvl, nodes, kids = view[name]
        check(slvl == lvl, "%s: Slurm's level %d, distance from the leaves %d" % (name, slvl, lvl))
        if not lvl:
            check(not kids and nodes and set(nodes) <= hosts[g],
                  "%s: Slurm's nodes are not cabled to it" % name)
            covered += nodes
        else:
            check({by_name[k] for k in kids} == down,
                  "%s: Slurm's children are not its cabled neighbours one level down" % name)
            check(set(nodes) == reached(name), "%s: Slurm's nodes are not its subtree's" % name)
    check(len(covered) == len(set(covered)), "a node under two leaves")
    check(set(covered) == every, "hosts under no leaf")
    # a top switch of a degraded tree may have lost cables down; together
    # the top switches reach every host
    top = max(lvl for lvl, _, _ in view.values())
    tops = [n for n, (lvl, _, _) in view.items() if lvl == top]
    check(set().union(*(reached(n) for n in tops)) == every, "the top switches miss hosts")


def test_cases():
    for i, (spec, engine, faults) in enumerate(CASES):
        name = "slurm%d" % i
        topo = os.path.join(tx.TMP, name + ".net")
        args = ["gen", spec, "-o", topo]
        if faults:
            f, seed = faults.split("@")
            args += ["--faults", f, "--seed", seed, "--remove-down"]
        tx.expect(args)
        links, switches, cas = tx.read_topology(topo)
        text = tx.expect(["export", "slurm-conf", topo, "-R", engine])
        root = tempfile.mkdtemp(prefix=name + "-", dir=tx.TMP)
        slurm = None
        try:
            slurm = Slurm(root, sorted({h for _, _, h in cas.values()}), text)
            view = parse_scontrol(slurm.topology())
            check_slurm_view(view, links, switches, cas)
            bad = [ln for ln in slurm.log().splitlines()
                   if re.search(r"topolog|switch", ln, re.I) and re.search(r"error|warn", ln, re.I)]
            check(not bad, "%s: slurmctld complains:\n%s" % (spec, "\n".join(bad[:10])))
        except AssertionError as e:
            raise AssertionError("%s (-R %s): %s" % (spec, engine, e))
        finally:
            if slurm:
                slurm.stop()


def test_catches():
    """The check is not blind: a topology.conf with one host moved to
    another leaf is read by Slurm and then refused by check_slurm_view."""
    topo = os.path.join(tx.TMP, "catch.net")
    tx.expect(["gen", "fattree:levels=2,radix=4", "-o", topo])
    links, switches, cas = tx.read_topology(topo)
    text = tx.expect(["export", "slurm-conf", topo, "-R", "ftree"])
    lines = text.splitlines()
    leaves = [i for i, ln in enumerate(lines) if "Nodes=" in ln]
    a, b = leaves[0], leaves[1]
    lines[a] = re.sub(r"Nodes=(\S+)", lambda m: "Nodes=" + m.group(1) + ",H2", lines[a])
    lines[b] = re.sub(r"Nodes=\S+", "Nodes=H3", lines[b])
    root = tempfile.mkdtemp(prefix="catch-", dir=tx.TMP)
    slurm = None
    try:
        slurm = Slurm(root, sorted({h for _, _, h in cas.values()}), "\n".join(lines) + "\n")
        view = parse_scontrol(slurm.topology())
        try:
            check_slurm_view(view, links, switches, cas)
        except AssertionError:
            return
        raise AssertionError("a host moved to another leaf went unnoticed")
    finally:
        if slurm:
            slurm.stop()


def main():
    tx.IBR = os.path.abspath(sys.argv[1])
    missing = [p for p in ("slurmctld", "scontrol", "munged") if not shutil.which(p)]
    if missing or os.geteuid() != 0:
        why = ("missing " + ", ".join(missing)) if missing else "not root"
        if os.environ.get("CI") == "true":
            print("FAIL: Slurm cannot run here (%s); scripts/deps.sh installs it" % why)
            return 1
        print("skip: Slurm cannot run here (%s)" % why)
        return 77
    tx.TMP = tempfile.mkdtemp(prefix="ibr-slurm-")
    try:
        for t in (test_cases, test_catches):
            try:
                t()
                print("ok   %s" % t.__name__)
            except Exception:
                FAILURES.append(t.__name__)
                print("FAIL %s\n%s" % (t.__name__, traceback.format_exc()))
    finally:
        shutil.rmtree(tx.TMP, ignore_errors=True)
    if FAILURES:
        print("%d failed: %s" % (len(FAILURES), ", ".join(FAILURES)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
