#!/usr/bin/env python3
"""Tests of the `ibr` command-line tool: exit codes, error messages, GUID-list
files, gen/route/verify round trips. Usage: test_cli.py PATH_TO_IBR"""

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

# A hand-written ibsim netfile without LIDs (ibr must assign them).
NETFILE = """\
# two switches, two parallel links, four hosts
Switch	8 "Switch1"
[1]	"Hca1"[1]
[2]	"Hca3"[1]
[3]	"Switch2"[3]
[5]	"Switch2"[5]

Switch 8 "Switch2"
[1]	"Hca2"[1]
[2]	"Hca4"[1]
[3]	"Switch1"[3]
[5]	"Switch1"[5]

Hca	2 "Hca1"
[1]	"Switch1"[1]

Hca	2 "Hca2"
[1]	"Switch2"[1]

Hca	2 "Hca3"
[1]	"Switch1"[2]

Hca 	2 "Hca4"
[1]	"Switch2"[2]
"""


def ibr(*args, stdin=None):
    p = subprocess.run([IBR] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, input=stdin, timeout=300)
    return p.returncode, p.stdout, p.stderr


def path(name):
    return os.path.join(TMP, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect(args, code, out_re=None, err_re=None, stdin=None):
    rc, out, err = ibr(*args, stdin=stdin)
    check(rc == code, "ibr %s: exit %d, expected %d\nstdout: %s\nstderr: %s"
          % (" ".join(args), rc, code, out[-1500:], err[-1500:]))
    if out_re:
        check(re.search(out_re, out, re.M), "ibr %s: stdout lacks /%s/:\n%s"
              % (" ".join(args), out_re, out[-1500:]))
    if err_re:
        check(re.search(err_re, err, re.M), "ibr %s: stderr lacks /%s/:\n%s"
              % (" ".join(args), err_re, err[-1500:]))
    return out, err


def jrun(args, code=0):
    out, _ = expect(args, code)
    return json.loads(out)


FT8 = "fattree:levels=2,radix=8"

# ----------------------------------------------------------------------------


def test_version_help():
    out, _ = expect(["--version"], 0, r"^ibr \(ibroute\) \d+\.\d+\.\d+$")
    expect(["--help"], 0, r"^usage: ibr ")
    for cmd in ("gen", "route", "verify", "info", "engines", "trace"):
        expect([cmd, "--help"], 0, r"^usage: ibr " + cmd)
        expect(["help", cmd], 0, r"^usage: ibr " + cmd)
    expect([], 2, None, r"^usage: ibr")
    expect(["frobnicate"], 2, None, r"^ibr: frobnicate: unknown command")
    expect(["route", "--no-such-option", "x"], 2, None, r"unknown option or missing value '--no-such-option'.* \[CL001\]$")


def test_engines():
    out, _ = expect(["engines"], 0, r"^minhop\s+\S*minimal")
    lst = jrun(["engines", "--json"])
    names = [e["name"] for e in lst]
    check("minhop" in names, "minhop not listed: %s" % names)
    check(all(e["builtin"] for e in lst if e["name"] == "minhop"), "minhop not builtin")
    # each engine's settings: below the engine in the text, in the JSON
    check(re.search(r"^ftree .*\n  ftree\.max_reverse_hops +int 0\.\.255, default 0 ", out, re.M),
          "ftree's settings not listed:\n" + out)
    ft = [e for e in lst if e["name"] == "ftree"][0]
    check({x["name"]: (x["type"], x["default"]) for x in ft["settings"]}
          == {"max_reverse_hops": ("int", 0), "connect_roots": ("bool", 0),
              "strict": ("bool", 0), "degraded_tolerance": ("int", 25)},
          "ftree settings in JSON: %r" % ft["settings"])
    check([e["settings"] for e in lst if e["name"] == "minhop"] == [[]], "minhop has settings")


def test_params():
    # given values are recorded with the defaults; the last value of a name counts
    r = jrun(["route", "--json", "--no-verify", "-R", "ftree", "gen:" + FT8,
              "--param", "ftree.max_reverse_hops=3", "--param", "ftree.max_reverse_hops=0x2"])
    check(r["settings"] == {"ftree.max_reverse_hops": "2", "ftree.connect_roots": "0",
                            "ftree.strict": "0", "ftree.degraded_tolerance": "25"},
          "settings: %r" % r["settings"])
    check(r["degraded"] is None, "a full tree reported degraded: %r" % r["degraded"])
    # a degraded tree: routed, said in the summary and the JSON; with
    # ftree.strict=1 declined as OpenSM does (the chain falls back)
    deg = path("ft8-degraded.net")
    expect(["gen", FT8, "--faults", "3,1", "--seed", "2", "-o", deg], 0)
    expect(["route", "-R", "ftree", deg], 0,
           r"^engine: +ftree\n(.|\n)*^degraded: +\d+ switch\(es\) and \d+ cable\(s\) missing")
    r = jrun(["route", "--json", "-R", "ftree", deg])
    check(r["engine"] == "ftree" and r["degraded"] and "cable(s) missing" in r["degraded"],
          "degraded tree: %r" % {k: r[k] for k in ("engine", "degraded", "error")})
    r = jrun(["route", "--json", "-R", "ftree", deg, "--param", "ftree.strict=1"])
    check(r["engine"] == "minhop" and r["degraded"] is None
          and "not a pure fat tree" in r["attempts"][0]["message"],
          "strict: %r" % r["attempts"])
    # the shorthands are the same settings
    a = jrun(["route", "--json", "--no-verify", "-R", "updn", "gen:" + FT8, "--connect-roots"])
    check(a["settings"] == {"updn.connect_roots": "1"}, "--connect-roots: %r" % a["settings"])
    expect(["route", "-R", "ftree", "gen:" + FT8, "--max-reverse-hops", "4"], 0,
           r"^settings: +ftree\.max_reverse_hops=4, ftree\.connect_roots=0, ftree\.strict=0, "
           r"ftree\.degraded_tolerance=25$")
    # a value from a file (text settings take whole configurations this way)
    f = path("reverse-hops.txt")
    with open(f, "w") as fh:
        fh.write("1")
    r = jrun(["route", "--json", "--no-verify", "-R", "ftree", "gen:" + FT8,
              "--param-file", "ftree.max_reverse_hops=" + f])
    check(r["settings"]["ftree.max_reverse_hops"] == "1", "--param-file: %r" % r["settings"])
    # bad names and values: exit 2, the message names the parameter
    for arg, msg in (("nosuch.x=1", "no engine named 'nosuch'"),
                     ("ftree.bogus=1", "engine 'ftree' has no setting 'bogus'"),
                     ("ftree.max_reverse_hops=256", r"'ftree\.max_reverse_hops' = '256': must be "
                                                    r"an integer in 0\.\.255"),
                     # (ftree's: a setting of an engine outside the chain is
                     # refused before its value is looked at)
                     ("ftree.connect_roots=maybe", "must be a boolean")):
        expect(["route", "-R", "ftree", "gen:" + FT8, "--param", arg], 2, None, msg)
    expect(["route", "-R", "ftree", "gen:" + FT8, "--param", "novalue"], 2, None,
           r"--param: expected ENGINE\.SETTING=VALUE \[CL016\]$")
    expect(["route", "-R", "ftree", "gen:" + FT8, "--param-file", "ftree.x=" + path("nofile")],
           2, None, "nofile")
    expect(["route", "-R", "ftree", "gen:" + FT8, "--qos-config", path("noqos")], 2, None,
           "noqos")
    # --torus-config: torus-2QoS's configuration read from a file
    conf = path("torus-2QoS.conf")
    with open(conf, "w") as fh:
        fh.write("torus 4 5 1\n"
                 "xp_link 0x0002c90202000000 0x0002c90202000001\n"
                 "xm_link 0x0002c90202000000 0x0002c90202000003\n"
                 "yp_link 0x0002c90202000000 0x0002c90202000004\n")
    r = jrun(["route", "--json", "-R", "torus-2QoS,no_fallback", "gen:torus:dims=4x5,hosts=1",
              "--torus-config", conf])
    check(r["engine"] == "torus-2QoS" and r["verify"]["deadlock_free"] is True
          and r["settings"]["torus-2QoS.config"].startswith("torus 4 5 1"),
          "--torus-config: %r" % {k: r.get(k) for k in ("engine", "settings", "error")})
    expect(["route", "-R", "torus-2QoS", "gen:torus:dims=4x5,hosts=1", "--torus-config",
            path("nofile")], 2, None, "nofile")
    # without it: derived from the cabling, shown in the summary, written by
    # -o as torus-2QoS.conf (the one above, after a comment), which
    # --torus-config then pins: the same tables
    d1, d2 = path("t2q-derived"), path("t2q-pinned")
    expect(["route", "-R", "torus-2QoS,no_fallback", "gen:torus:dims=4x5,hosts=1", "-o", d1], 0,
           r"^torus-2QoS: +derived from the cabling .*: torus 4 5 1; "
           r"xp_link 0x0002c90202000000 0x0002c90202000001;")
    derived = os.path.join(d1, "torus-2QoS.conf")
    with open(derived) as fh, open(conf) as given:
        text = fh.read()
        check(text.startswith("#") and text.endswith(given.read()),
              "derived torus-2QoS.conf:\n" + text)
    expect(["route", "-R", "torus-2QoS,no_fallback", "gen:torus:dims=4x5,hosts=1",
            "--torus-config", derived, "-o", d2], 0)
    for dump in ("opensm-lfts.dump", "opensm-sl2vl.dump"):
        with open(os.path.join(d1, dump)) as a, open(os.path.join(d2, dump)) as b:
            check(a.read() == b.read(), "derived and pinned torus-2QoS.conf: %s differs" % dump)
    check(not os.path.exists(os.path.join(d2, "torus-2QoS.conf")),
          "a given torus-2QoS.conf was written back as derived")
    expect(["route", "-R", "torus-2QoS,no_fallback", "gen:" + FT8], 1, None,
           "none can be derived from the cabling")


def test_gen_info():
    f = path("ft8.net")
    expect(["gen", FT8, "-o", f], 0)
    out, _ = expect(["gen", "gen:" + FT8], 0)
    with open(f) as fh:
        check(fh.read() == out, "gen -o FILE and gen to stdout differ")
    out2, _ = expect(["gen", FT8], 0)
    check(out == out2, "gen is not deterministic")
    info = jrun(["info", "--json", f])
    for k, v in (("nodes", 44), ("switches", 12), ("cas", 32), ("links", 64),
                 ("switch_links", 32), ("links_down", 0), ("max_lid", 44), ("endports", 32),
                 ("ports_without_lid", 0)):
        check(info[k] == v, "info %s = %s, expected %s" % (k, info[k], v))
    check("minhop" in info["engines"], "info lists no minhop")
    expect(["info", f], 0, r"^nodes:\s+44 \(12 switches, 32 CAs, 0 routers\)")
    # the same through stdin and gen:
    rc, out, _ = ibr("info", "--json", "-", stdin=open(f).read())
    check(rc == 0 and json.loads(out)["nodes"] == 44, "info - (stdin) failed")
    check(jrun(["info", "--json", "gen:" + FT8])["links"] == 64, "info gen: failed")


def test_gen_errors():
    expect(["gen", "bogus:x=1"], 2, None, r"^ibr: bogus:x=1: .* \[GN005\]$")
    expect(["gen"], 2, None, r"^ibr: gen: missing SPEC")
    expect(["gen", FT8, "--lmc", "8"], 2, None, r"^ibr: --lmc: ")
    expect(["gen", FT8, "--faults", "x"], 2, None, r"^ibr: --faults: ")
    expect(["gen", FT8, "--faults", "100000"], 2, None, r"^ibr: --faults: .* \[GN016\]$")
    expect(["gen", FT8, "-o", "/nonexistent-dir/x.net"], 2, None,
           r"^ibr: /nonexistent-dir/x.net: cannot write: No such file.* \[CL030\]$")


def test_faults_and_lmc():
    out, _ = expect(["gen", FT8, "--faults", "3", "--seed", "4", "-o", path("f.net")], 0)
    info = jrun(["info", "--json", path("f.net")])
    check(info["switch_links_down"] == 3, "3 faults gave %d down switch links"
          % info["switch_links_down"])
    expect(["gen", FT8, "--faults", "3", "--seed", "4", "--remove-down", "-o",
            path("fr.net")], 0)
    info = jrun(["info", "--json", path("fr.net")])
    check(info["links"] == 61 and info["links_down"] == 0,
          "--remove-down left %d links, %d down" % (info["links"], info["links_down"]))
    expect(["gen", FT8, "--lmc", "2", "-o", path("l.net")], 0)
    info = jrun(["info", "--json", path("l.net")])
    check(info["max_lmc"] == 2 and info["lids"] == 12 + 32 * 4,
          "--lmc 2: max_lmc %d, %d LIDs" % (info["max_lmc"], info["lids"]))
    # routing around the faults stays valid
    r = jrun(["route", "--json", path("f.net")])
    check(r["verify"]["valid"] and r["verify"]["down_link"] == 0, "route over faults invalid")


def test_route_outputs():
    f = path("ft8.net")
    d = path("out")
    r = jrun(["route", "-R", "minhop", "--json", f, "-o", d])
    check(r["engine"] == "minhop" and r["status"] == "IBR_OK", "engine %r" % r["engine"])
    check(r["attempts"] == [{"engine": "minhop", "status": "IBR_OK", "message": ""}],
          "attempts %r" % r["attempts"])
    check(isinstance(r["route_time_s"], float) and r["route_time_s"] >= 0, "route_time_s")
    v = r["verify"]
    check(v["valid"] and v["nonminimal"] == 0 and v["pairs"] == 32 * 31,
          "verify %r" % v)
    check(v["max_hops"] == 4 and v["max_link_load"] >= 1, "hops/load %r" % v)
    for name in ("opensm-lfts.dump", "opensm-subnet.lst", "guid2lid"):
        check(os.path.getsize(os.path.join(d, name)) > 0, name + " missing or empty")
        check(name in r["files"], name + " not in files")
    # OpenSM's derived views are written on request only (--dumps)
    for name in ("opensm.fdbs", "opensm-lid-matrix.dump"):
        check(not os.path.exists(os.path.join(d, name)) and name not in r["files"],
              name + " written by default")
    # the multicast dump is always written (empty without groups: ibdmchk -m needs it)
    check(os.path.exists(os.path.join(d, "opensm.mcfdbs")) and "opensm.mcfdbs" in r["files"],
          "opensm.mcfdbs not written")
    # minhop has no SLs: no SL2VL dump, no ibdmchk SL files
    for name in ("opensm-sl2vl.dump", "ibr-paths.psl", "ibr-paths.sl2vl"):
        check(not os.path.exists(os.path.join(d, name)) and name not in r["files"],
              name + " written for a result without SLs")
    with open(os.path.join(d, "opensm-lfts.dump")) as fh:
        lfts = fh.read()
    check(lfts.count("Unicast lids [") == 12, "lfts dump has not 12 switches")
    # text summary
    out, _ = expect(["route", "-R", "minhop", f], 0, r"^route_time_s: \d+\.\d{6}$")
    check(re.search(r"^engine:\s+minhop$", out, re.M), "text summary lacks engine")
    check(re.search(r"^verify:\s+valid$", out, re.M), "text summary lacks verify")
    check(re.search(r"link load:\s+max \d+, mean", out), "text summary lacks link load")
    check(len(out.splitlines()) <= 24, "summary longer than a screen")
    _, err = expect(["route", "-q", f], 0)
    check(err == "", "quiet route wrote to stderr: %r" % err)
    # determinism: threads 1 and default give byte-identical dumps
    d1 = path("out1")
    expect(["route", "--threads", "1", f, "-o", d1], 0)
    with open(os.path.join(d1, "opensm-lfts.dump")) as fh:
        check(fh.read() == lfts, "--threads 1 changed the LFTs")
    # routing from gen: directly gives the same tables as from the file
    d2 = path("out2")
    expect(["route", "gen:" + FT8, "-o", d2], 0)
    with open(os.path.join(d2, "opensm-lfts.dump")) as fh:
        check(fh.read() == lfts, "gen: and file topologies routed differently")


def test_route_dumps():
    """--dumps and --all-dumps choose the files -o writes; each file is the
    same whichever set it is written in."""
    f = path("ft8.net")
    if not os.path.exists(f):
        expect(["gen", FT8, "-o", f], 0)
    big = path("dumps-ft3.net")           # 80 switches: several blocks per dump
    expect(["gen", "fattree:levels=3,radix=8", "-o", big], 0)
    dd = path("dumps-default")
    r = jrun(["route", "--json", big, "-o", dd])
    check(sorted(r["files"]) == ["guid2lid", "opensm-lfts.dump", "opensm-subnet.lst",
                                 "opensm.mcfdbs"], r["files"])
    da = path("dumps-all")
    r = jrun(["route", "--json", "--all-dumps", big, "-o", da])
    check(sorted(r["files"]) == ["guid2lid", "opensm-lfts.dump", "opensm-lid-matrix.dump",
                                 "opensm-subnet.lst", "opensm.fdbs", "opensm.mcfdbs"],
          r["files"])
    check(r["bytes_written"] == sum(os.path.getsize(os.path.join(da, n)) for n in r["files"]),
          "bytes_written %d" % r["bytes_written"])
    for n in os.listdir(dd):
        with open(os.path.join(dd, n), "rb") as x, open(os.path.join(da, n), "rb") as y:
            check(x.read() == y.read(), n + " differs between the default set and --all-dumps")
    with open(os.path.join(da, "opensm.fdbs")) as fh:
        fdbs = fh.read()
    check(fdbs.count("dump_ucast_routes: Switch 0x") == 80, "fdbs blocks")
    with open(os.path.join(da, "opensm-lid-matrix.dump")) as fh:
        check(fh.read().count("Switch: guid 0x") == 80, "lid matrix blocks")
    # one worker gives the same bytes as the default workers
    d1 = path("dumps-t1")
    jrun(["route", "--json", "--threads", "1", "--dumps", "fdbs,lfts", big, "-o", d1])
    check(sorted(os.listdir(d1)) == ["opensm-lfts.dump", "opensm.fdbs"], os.listdir(d1))
    for n in os.listdir(d1):
        with open(os.path.join(d1, n), "rb") as x, open(os.path.join(da, n), "rb") as y:
            check(x.read() == y.read(), n + ": --threads 1 differs")
    # default,X adds X; none writes nothing (the directory is still made)
    r = jrun(["route", "--json", "--dumps", "default,lid-matrix", f, "-o", path("dumps-dl")])
    check("opensm-lid-matrix.dump" in r["files"] and "opensm-lfts.dump" in r["files"]
          and "opensm.fdbs" not in r["files"], r["files"])
    r = jrun(["route", "--json", "--dumps", "none", f, "-o", path("dumps-none")])
    check(r["files"] == [] and os.listdir(path("dumps-none")) == [], r["files"])
    # reroute takes the same options
    db = path("dumps.db")
    expect(["route", "-q", "--save-db", db, f], 0)
    expect(["reroute", "-q", "--dumps", "fdbs", db, f, "-o", path("dumps-rr")], 0)
    check(os.listdir(path("dumps-rr")) == ["opensm.fdbs"], os.listdir(path("dumps-rr")))
    # mistakes
    expect(["route", "--dumps", "lfts,nosuch", f, "-o", path("dumps-bad")], 2, None,
           r"^ibr: --dumps: unknown dump 'nosuch' \(known: lfts, .*\[CL043\]$")
    expect(["route", "--all-dumps", f], 2, None, r"give -o DIR")
    check(not os.path.exists(path("dumps-bad")), "a bad --dumps made the directory")


def test_route_lids():
    f = path("ft8.net")
    r = jrun(["route", "--json", "--lmc", "1", f])
    check(r["max_lid"] > 44 and r["verify"]["valid"], "--lmc 1: max LID %d" % r["max_lid"])
    # guid2lid: LIDs from a file; permute them and check the dump follows
    d = path("out")
    with open(os.path.join(d, "guid2lid")) as fh:
        lines = [l.split() for l in fh if l.strip() and not l.startswith("#")]
    check(len(lines) == 44, "guid2lid has %d entries" % len(lines))
    g2l = "".join("%s 0x%04x 0x%04x\n" % (g, 100 + i, 100 + i) for i, (g, _, _) in
                  enumerate(lines))
    write("shifted.guid2lid", g2l)
    r = jrun(["route", "--json", "--guid2lid", path("shifted.guid2lid"), f, "-o", path("o3")])
    check(r["max_lid"] == 143 and r["verify"]["valid"], "guid2lid: max LID %d" % r["max_lid"])
    expect(["verify", "--guid2lid", path("shifted.guid2lid"), f,
            os.path.join(path("o3"), "opensm-lfts.dump")], 0, r"^verify:\s+valid")
    expect(["route", "--guid2lid", path("shifted.guid2lid"), "--lmc", "1", f], 2, None,
           r"exclude each other")
    write("bad.guid2lid", "0x1234 0x0001 0x0001\n")
    expect(["route", "--guid2lid", path("bad.guid2lid"), f], 2, None,
           r"^ibr: .*bad.guid2lid: ")


def test_netfile_without_lids():
    n = write("net", NETFILE)
    info = jrun(["info", "--json", n])
    check(info["ports_without_lid"] == 6, "netfile: %d ports without LID"
          % info["ports_without_lid"])
    r = jrun(["route", "--json", n])
    check(r["max_lid"] == 6 and r["endports"] == 4 and r["verify"]["valid"],
          "netfile route: %r" % r)


def test_db_csv_topology():
    """An ibdiagnet2.db_csv is a TOPO (sniffed by its START_ marker)."""
    db = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                      "ibdiagnet2_small.db_csv")
    info = jrun(["info", "--json", db])
    check((info["switches"], info["cas"], info["links"], info["lids"], info["max_lmc"])
          == (2, 2, 4, 10, 2), "db_csv info: %r" % info)
    r = jrun(["route", "--json", db, "-o", path("dbcsv")])
    check(r["endports"] == 2 and r["verify"]["valid"], "db_csv route: %r" % r)
    bad = write("bad.db_csv", "START_NODES\nNodeDesc,NumPorts\nEND_NODES\n")
    expect(["info", bad], 2, err_re=r"line 2: table NODES: the header has no column "
           r"NodeType \[DC008\]")

def test_verify():
    f = path("ft8.net")
    dump = os.path.join(path("out"), "opensm-lfts.dump")
    expect(["verify", f, dump], 0, r"^verify:\s+valid$")
    v = jrun(["verify", "--json", f, dump])
    check(v["verify"]["valid"] and v["switches"] == 12, "verify --json %r" % v)
    # break one route: on the first switch send a remote LID to a host port
    with open(dump) as fh:
        text = fh.read().splitlines(True)
    own = None
    for i, line in enumerate(text):
        m = re.match(r"^(0x[0-9a-f]{4}) (\d{3}) # Channel Adapter", line)
        if m and own is None and m.group(2) != "000":
            own = m.group(2)          # a host port of this switch
        elif m and own and m.group(2) not in (own, "000") and int(m.group(2)) > 4:
            text[i] = "%s %s%s" % (m.group(1), own, line[10:])
            break
    write("broken.dump", "".join(text))
    out, err = expect(["verify", f, path("broken.dump")], 1, r"^verify:\s+INVALID")
    check(re.search(r"first:\s+\S", out), "invalid report names no first error")
    v = jrun(["verify", "--json", f, path("broken.dump")], 1)
    check(not v["verify"]["valid"] and v["verify"]["first_error"], "json invalid report")
    # the same report, byte for byte, whatever the number of threads
    outs = [expect(["verify", "--json", "--threads", n, f, path("broken.dump")], 1)[0]
            for n in ("1", "2", "0")]
    check(outs[0] == outs[1] == outs[2], "verify --threads changes the report: %r" % outs)
    expect(["verify", "--threads", "x", f, dump], 2, None, r"^ibr: --threads: ")
    write("garbage.dump", "Unicast lids [0-3] of switch Lid 1 guid 0xzz ('x'):\nfoo\n")
    expect(["verify", f, path("garbage.dump")], 2, None, r"^ibr: .*garbage.dump: ")
    # no LFT block at all (the topology again, junk, an empty file): an
    # input error (2) naming the file, not an INVALID verdict (1)
    expect(["verify", f, f], 2, None,
           r"^ibr: .*ft8.net: no \"Unicast lids\" block in \d+ lines: this looks like a topology")
    write("junk.dump", "junk line\nmore junk\n")
    expect(["verify", f, path("junk.dump")], 2, None,
           r"^ibr: .*junk.dump: no \"Unicast lids\" block in 2 lines \(line 1 reads \"junk line\"\)")
    write("empty.dump", "")
    expect(["verify", f, path("empty.dump")], 2, None, r"^ibr: .*empty.dump: the text is empty")
    expect(["verify", f], 2, None, r"^ibr: verify: expected TOPOLOGY and LFTS_DUMP.* \[CL075\]$")
    expect(["verify", f, "/nonexistent.dump"], 2, None,
           r"^ibr: /nonexistent.dump: cannot read: No such file.* \[CL004\]$")


def test_route_errors():
    f = path("ft8.net")
    expect(["route", "-R", "nosuch", f], 2, None, r"^ibr: route: .*nosuch")
    expect(["route", "/nonexistent.net"], 2, None, r"^ibr: /nonexistent.net: cannot read: No such file.* \[CL004\]$")
    write("broken.net", "Switch 8 \"S\"\n[1] \"H\"[1]\n\nHca 1 \"H\"\n[1] \"X\"[1]\n")
    expect(["route", path("broken.net")], 2, None, r"^ibr: .*broken.net: ")
    expect(["route", "--lmc", "9", f], 2, None, r"^ibr: --lmc: ")
    expect(["route", "--threads", "x", f], 2, None, r"^ibr: --threads: ")
    expect(["route", "--max-vls", "0", f], 2, None, r"^ibr: --max-vls: ")
    expect(["route"], 2, None, r"missing TOPOLOGY")
    expect(["route", f, f], 2, None, r"^ibr: route: too many arguments \[CL037\]$")
    expect(["route", "--scatter", "--seed", "0", f], 2, None, r"^ibr: --scatter: ")


def test_guid_files():
    f = path("ft8.net")
    good = write("roots.txt", "# roots\n\n   0x0002c90201000008   # spine\n"
                 "0x0002c90201000009\tpayload ignored\n")
    expect(["route", "--root-guids", good, f], 0)
    bad = write("roots-bad.txt", "0x0002c90201000008\n# comment\n0xZZ\n0x1\n")
    expect(["route", "--root-guids", bad, f], 2, None, r"^ibr: .*roots-bad.txt: line 3: ")
    octal = write("octal.txt", "09\n")          # not a valid octal number
    expect(["route", "--cn-guids", octal, f], 2, None, r"line 1: bad GUID '09'")
    glued = write("glued.txt", "0x12ab,0x13\n")   # junk right after the number
    expect(["route", "--io-guids", glued, f], 2, None, r"line 1: bad GUID")
    neg = write("neg.txt", "\n-5\n")
    expect(["route", "--guid-routing-order", neg, f], 2, None, r"line 2: ")
    ign = write("ignore.txt", "0x0002c90201000000 5\n0x0002c90201000001 0x6 # hex port\n")
    expect(["route", "--ignore-guids", ign, f], 0)
    ign_bad = write("ignore-bad.txt", "0x0002c90201000000\n")
    expect(["route", "--ignore-guids", ign_bad, f], 2, None, r"line 1: port number missing")
    ign_range = write("ignore-range.txt", "0x0002c90201000000 300\n")
    expect(["route", "--ignore-guids", ign_range, f], 2, None, r"line 1: port 300 out of range")
    ids = write("ids.txt", "0x0002c90201000008 7\n0x0002c90201000009\n010 0x10\n")
    expect(["route", "--ids-guid-file", ids, f], 0)
    ids_bad = write("ids-bad.txt", "0x0002c90201000008 7x\n")
    expect(["route", "--ids-guid-file", ids_bad, f], 2, None, r"line 1: bad id")
    expect(["route", "--root-guids", "/nonexistent.txt", f], 2, None,
           r"^ibr: /nonexistent.txt: cannot read: No such file.* \[CL004\]$")
    # a guid_routing_order changes nothing about validity
    order = write("order.txt", "0x0002c90301000301\n0x0002c90301000001\n")
    r = jrun(["route", "--json", "--guid-routing-order", order, f])
    check(r["verify"]["valid"], "guid routing order: invalid")


TWO_SWITCHES = """\
Switch 8 "Switch1"
[1] "Hca1"[1]
[3] "Switch2"[3]

Switch 8 "Switch2"
[1] "Hca2"[1]
[3] "Switch1"[3]

Hca 1 "Hca1"
[1] "Switch1"[1]

Hca 1 "Hca2"
[1] "Switch2"[1]
"""


def test_fallback_and_unroutable():
    names = [e["name"] for e in jrun(["engines", "--json"])]
    if "updn" not in names:
        print("     (updn not built: fallback test skipped)")
        return
    # updn given a root GUID not in the fabric declines and minhop runs
    n = write("two.net", TWO_SWITCHES)
    nr = write("two-roots.txt", "0x7777\n")
    r = jrun(["route", "--json", "-R", "updn", n, "--root-guids", nr])
    check(r["engine"] == "minhop" and len(r["attempts"]) == 2, "fallback: %r" % r)
    check(r["attempts"][0]["engine"] == "updn" and
          r["attempts"][0]["status"] == "IBR_EDECLINED" and r["attempts"][0]["message"],
          "updn attempt: %r" % r["attempts"][0])
    out, _ = expect(["route", "-R", "updn", n, "--root-guids", nr], 0,
                    r"attempt 1:\s+updn: declined \(.+\)")
    # no_fallback: unroutable is exit status 1, the reason on stderr
    out, err = expect(["route", "-R", "updn,no_fallback", n, "--root-guids", nr], 1,
                      r"^engine:\s+\(none\)", r"^ibr: route: .*updn")
    r = jrun(["route", "--json", "-R", "updn,no_fallback", n, "--root-guids", nr], 1)
    check(r["status"] == "IBR_EUNROUTABLE" and r["verify"] is None, "unroutable: %r" % r)


def test_route_summary():
    """The summary gives the credit-loop verdict (with the loop) and the pairs
    the engine's rules restrict."""
    torus = "gen:torus:dims=4x4,hosts=1"
    r = jrun(["route", "--json", "-R", "minhop", torus])
    v = r["verify"]
    check(v["deadlock_free"] is False, "minhop on a 4x4 torus: no credit loop reported")
    check(v["credit_loop_length"] >= 2 and v["credit_loop"].count("->") >= 2,
          "credit loop not described: %r" % v)
    out, _ = expect(["route", "-q", "-R", "minhop", torus], 0,
                    r"^  deadlock:\s+CREDIT LOOP of \d+ channels: .*0x[0-9a-f]{16} port \d+")
    # every channel of the loop printed is a switch GUID of the fabric with a port
    chans = re.findall(r"(0x[0-9a-f]{16}) port (\d+) VL (\d+)", v["credit_loop"])
    check(len(chans) == v["credit_loop_length"] or len(v["credit_loop"]) > 400,
          "loop text lists %d channels, length %d" % (len(chans), v["credit_loop_length"]))
    r = jrun(["route", "--json", "-R", "minhop", "gen:" + FT8])
    check(r["verify"]["deadlock_free"] is True and r["verify"]["credit_loop"] == "" and
          r["verify"]["credit_loop_length"] == 0, "fat tree minhop: %r" % r["verify"])
    expect(["route", "-q", "-R", "minhop", "gen:" + FT8], 0, r"^  deadlock:\s+free")
    check(r["verify"]["restricted"] == 0, "minhop restricted pairs: %r" % r["verify"])
    names = [e["name"] for e in jrun(["engines", "--json"])]
    if "updn" in names:
        # up/down on a 2-level fat tree: the 4 spines cannot reach each other
        # (no down-then-up), 4 x 3 switch pairs restricted
        r = jrun(["route", "--json", "-R", "updn,no_fallback", "gen:" + FT8])
        v = r["verify"]
        check(r["engine"] == "updn" and v["restricted"] == 12 and v["valid"],
              "updn restricted: %r" % v)
        check(v["routes_checked"] + v["restricted"] == 12 * 44, "restricted pairs counted "
              "in routes_checked: %r" % v)
        expect(["route", "-q", "-R", "updn,no_fallback", "gen:" + FT8], 0,
               r"^  restricted: 12 \(switch, LID\) pairs")
    out, _ = expect(["route", "-q", "-R", "minhop", "gen:" + FT8], 0)
    check("restricted" not in out, "restricted line printed without restricted pairs")


def test_sl_files():
    """Results with SLs or SL2VL tables get opensm-sl2vl.dump and the ibdmchk
    files ibr-paths.psl / ibr-paths.sl2vl."""
    engines = [e for e in jrun(["engines", "--json"])
               if re.search(r"\bsl(2vl)?\b", e["caps_text"])]
    if not engines:
        print("     (no engine with SLs built: SL file test skipped)")
        return
    torus = path("t44.net")
    expect(["gen", "torus:dims=4x4,hosts=1", "-o", torus], 0)
    info = jrun(["info", "--json", torus])
    done = 0
    for e in engines:
        d = path("sl-" + e["name"])
        rc, out, err = ibr("route", "--json", "-R", e["name"] + ",no_fallback",
                           "--all-dumps", torus, "-o", d)
        if rc != 0:
            continue                   # the engine does not apply to this fabric
        r = json.loads(out)
        with open(os.path.join(d, "opensm-lfts.dump")) as fh:
            check(fh.read().count("Unicast lids [") == info["switches"], "lfts dump")
        names = ("opensm-sl2vl.dump", "ibr-paths.psl", "ibr-paths.sl2vl")
        if r["vls_used"] <= 1:
            # one layer won (nue's exploration keeps it when no busier): every
            # path on SL 0, so no SL file may claim otherwise
            for name in names:
                check(not os.path.exists(os.path.join(d, name)) and name not in r["files"],
                      "%s: %s written for a one-VL result" % (e["name"], name))
            continue
        for name in names:
            check(os.path.exists(os.path.join(d, name)) and name in r["files"],
                  "%s: %s not written" % (e["name"], name))
        with open(os.path.join(d, "ibr-paths.psl")) as fh:
            psl = [l.split() for l in fh if l.strip() and not l.startswith("#")]
        n = info["endports"]
        check(len(psl) == n * (n - 1) or len(psl) == n * n,
              "%s: %d path-SL lines for %d end ports" % (e["name"], len(psl), n))
        check(all(len(x) == 3 and x[0].startswith("0x") and 0 <= int(x[2]) < 16
                  for x in psl), "%s: bad path-SL line" % e["name"])
        with open(os.path.join(d, "ibr-paths.sl2vl")) as fh:
            rows = [l.split() for l in fh if l.strip() and not l.startswith("#")]
        check(rows and all(len(x) == 11 and x[0].startswith("0x") for x in rows),
              "%s: bad SL2VL lines %r" % (e["name"], rows[:2]))
        # ibdmchk reads the files: with them it agrees with our verdict
        # (a torus routed deadlock-free only through its SLs)
        if shutil.which("ibdmchk") and r["verify"]["deadlock_free"]:
            p = subprocess.run(["ibdmchk", "-s", "opensm-subnet.lst", "-f", "opensm.fdbs",
                                "-m", "opensm.mcfdbs", "-c", "ibr-paths.psl",
                                "-d", "ibr-paths.sl2vl"], cwd=d, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            check("no credit loops found" in p.stdout and "SLs in use" in p.stdout,
                  "%s: ibdmchk with the SL files:\n%s" % (e["name"], p.stdout[-2000:]))
        done += 1
    check(done > 0, "no SL engine (dfsssp) routed the 4x4 torus")


def read_lft_dump(fname):
    tables, cur = {}, None
    with open(fname) as fh:
        for line in fh:
            m = re.match(r"^Unicast lids .* guid (0x[0-9a-f]+)", line)
            if m:
                cur = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = re.match(r"^0x([0-9a-f]+) (\d+)", line)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = int(m.group(2))
    return tables


def test_trace():
    f = path("ft8.net")
    d = path("trace")
    expect(["route", "-q", "-R", "minhop", f, "-o", d], 0)
    dump = os.path.join(d, "opensm-lfts.dump")
    lft = read_lft_dump(dump)
    # LIDs -> port GUIDs and the node owning each LID, from guid2lid and subnet
    with open(os.path.join(d, "guid2lid")) as fh:
        g2l = {int(a, 16): int(b, 16) for a, b, _ in
               (l.split() for l in fh if l.strip() and not l.startswith("#"))}
    lid2guid = {v: k for k, v in g2l.items()}
    # H0 (LID 13) to H31 (LID 44): leaf, spine, leaf
    t = jrun(["trace", "--json", f, dump, "--from", "13", "--to", "44"])
    check(t["reached"] and t["src_lid"] == 13 and t["dst_lid"] == 44 and t["links"] == 4 and
          len(t["hops"]) == 3 and t["sl"] == 0 and t["engine"] == "file", "trace %r" % t)
    check(t["hops"][0]["in_port"] != 0 and t["hops"][-1]["out_port"] != 0, "end hops %r"
          % t["hops"])
    # every hop's out port is the dump's entry, and the next hop enters where
    # the previous left (checked through the subnet list)
    with open(os.path.join(d, "opensm-subnet.lst")) as fh:
        links = {}
        for l in fh:
            m = re.search(r"PortGUID:(0x[0-9a-f]+)\s+PortNum:(\d+).*?"
                          r"PortGUID:(0x[0-9a-f]+)\s+PortNum:(\d+)", l)
            if m:
                links[(int(m.group(1), 16), int(m.group(2)))] = (int(m.group(3), 16),
                                                                 int(m.group(4)))
    for i, h in enumerate(t["hops"]):
        g = int(h["guid"], 16)
        check(lft[g][44] == h["out_port"], "hop %d: out port %d, dump says %d"
              % (i, h["out_port"], lft[g][44]))
        if i + 1 < len(t["hops"]) and links:
            nxt = t["hops"][i + 1]
            check(links.get((g, h["out_port"])) == (int(nxt["guid"], 16), nxt["in_port"]),
                  "hop %d -> %d not a cable: %r" % (i, i + 1, links.get((g, h["out_port"]))))
    # text form; GUIDs (port GUID, node GUID, guid: prefix) resolve to LIDs
    out, _ = expect(["trace", f, dump, "--from", "13", "--to", "44"], 0,
                    r"^reached: 3 switches, 4 links$")
    check(re.search(r"^from:\s+LID 13: CA 0x[0-9a-f]{16} \"H0 HCA-1\" port 1", out, re.M),
          "text trace lacks the source: %s" % out)
    check(len(re.findall(r"^\s+\d+\s+0x[0-9a-f]{16}\s+\d+\s+\d+\s+\d+\s+L", out, re.M))
          == 3, "text trace hops: %s" % out)
    pg = "0x%016x" % lid2guid[44]
    ng = "0x%016x" % (lid2guid[44] - 1)          # CA node GUID = port GUID - 1 here
    for to in (pg, ng, "guid:" + pg, "lid:44"):
        t2 = jrun(["trace", "--json", f, dump, "--from", "0x%016x" % lid2guid[13], "--to", to])
        check(t2["dst_lid"] == 44 and t2["src_lid"] == 13 and t2["hops"] == t["hops"],
              "--to %s: %r" % (to, t2))
    # to a switch LID: ends on that switch by port 0
    t3 = jrun(["trace", "--json", f, dump, "--from", "13", "--to", "12"])
    check(t3["reached"] and t3["hops"][-1]["out_port"] == 0, "to switch: %r" % t3)
    # routed in memory: the same path as from the dump
    t4 = jrun(["trace", "--json", f, "-R", "minhop", "--from", "13", "--to", "44"])
    check(t4["hops"] == t["hops"] and t4["engine"] == "minhop", "in-memory trace %r" % t4)
    # broken tables: a missing entry on the first switch
    first = t["hops"][0]["guid"]
    with open(dump) as fh:
        lines = fh.read().splitlines(True)
    cur, miss, loop = None, [], []
    for l in lines:
        m = re.match(r"^Unicast lids .* guid (0x[0-9a-f]+)", l)
        if m:
            cur = m.group(1)
        skip = cur == first and l.startswith("0x002c ")
        miss.append("" if skip else l)
        # a loop: the spine sends LID 44 back down to the first leaf
        if cur == t["hops"][1]["guid"] and l.startswith("0x002c "):
            l = "0x002c %03d%s" % (t["hops"][1]["in_port"], l[10:])
        loop.append(l)
    write("miss.dump", "".join(miss))
    write("loop.dump", "".join(loop))
    out, _ = expect(["trace", f, path("miss.dump"), "--from", "13", "--to", "44"], 1,
                    r"^BROKEN: switch %s has no LFT entry for LID 44" % first)
    t5 = jrun(["trace", "--json", f, path("miss.dump"), "--from", "13", "--to", "44"], 1)
    check(not t5["reached"] and len(t5["hops"]) == 1 and t5["hops"][0]["out_port"] == 255,
          "missing entry: %r" % t5)
    out, _ = expect(["trace", f, path("loop.dump"), "--from", "13", "--to", "44"], 1,
                    r"^BROKEN: the route loops: hop 4 enters switch %s by port %d as hop 2 did$"
                    % (t["hops"][1]["guid"], t["hops"][1]["in_port"]))
    check(len(re.findall(r"^\s+\d+\s+0x", out, re.M)) == 4, "loop listing: %s" % out)
    # every other way to break, each on the first switch (H0 enters it by
    # hops[0].in_port and leaves by out0 toward the spine hops[1])
    out0, in1 = t["hops"][0]["out_port"], t["hops"][1]["in_port"]

    def entry(name, port):
        cur, text = None, []
        for l in lines:
            m = re.match(r"^Unicast lids .* guid (0x[0-9a-f]+)", l)
            if m:
                cur = m.group(1)
            if cur == first and l.startswith("0x002c "):
                l = "0x002c %03d%s" % (port, l[10:])
            text.append(l)
        return write(name, "".join(text))

    def topo(name, how):
        # the cable leaf port out0 - spine port in1 marked down or removed
        with open(f) as fh:
            net = fh.read().splitlines(True)
        cur, text = None, []
        for l in net:
            m = re.match(r"^(switch|ca|router)guid=0x([0-9a-f]+)", l)
            if m:
                cur = int(m.group(2), 16) if m.group(1) == "switch" else None
            ends = {int(first, 16): out0, int(t["hops"][1]["guid"], 16): in1}
            if cur in ends and l.startswith("[%d]" % ends[cur]):
                if how == "remove":
                    continue
                l = l.rstrip("\n") + " (down)\n"
            text.append(l)
        return write(name, "".join(text))

    for args, why in [
            ([f, entry("zero.dump", 0)], "switch %s keeps LID 44 (port 0) but does not own it"
             % first),
            ([f, entry("back.dump", t["hops"][0]["in_port"])],
             "switch %s sends LID 44 to port %d, which leads to another end node"
             % (first, t["hops"][0]["in_port"])),
            ([topo("down.net", "down"), dump],
             "switch %s sends LID 44 to port %d, whose link is down" % (first, out0)),
            ([topo("cut.net", "remove"), dump],
             "switch %s sends LID 44 to port %d, which is not cabled" % (first, out0))]:
        expect(["trace"] + args + ["--from", "13", "--to", "44"], 1,
               r"^BROKEN: %s$" % re.escape(why))
        tj = jrun(["trace", "--json"] + args + ["--from", "13", "--to", "44"], 1)
        check(not tj["reached"] and tj["error"] == why and len(tj["hops"]) == 1 and
              tj["links"] == 0, "%s: %r" % (why, tj))
    # errors
    expect(["trace", f, dump, "--to", "44"], 2, None, r"--from and --to are required \[CL071\]$")
    expect(["trace", f, dump, "--from", "99", "--to", "44"], 2, None,
           r"^ibr: --from: LID 99 is not in the topology.* \[CL063\]$")
    expect(["trace", f, dump, "--from", "13", "--to", "0x123456789"], 2, None,
           r"^ibr: --to: no node or port has GUID .* \[CL065\]$")
    expect(["trace", f, dump, "--from", "x", "--to", "1"], 2, None, r"not a LID or GUID")
    expect(["trace", f, dump, "-R", "minhop", "--from", "1", "--to", "2"], 2, None,
           r"not both")
    expect(["trace"], 2, None, r"missing TOPOLOGY")


def test_verify_dump_verdict():
    """Tables read from a dump carry no hop matrix: the switch-LID entries an
    up/down or fat-tree rule leaves empty on purpose are reported apart and
    are errors only with --strict (issue 17, item 1)."""
    tree = path("vd-tree.topo")
    expect(["gen", "fattree:levels=2,radix=8", "-o", tree], 0)
    for engine in ("updn", "ftree"):
        out = path("vd-" + engine)
        expect(["route", "-q", "-R", engine + ",no_fallback", tree, "-o", out], 0,
               r"^verify: +valid")
        dump = os.path.join(out, "opensm-lfts.dump")
        o, _ = expect(["verify", tree, dump], 0, r"^verify: +valid")
        check(re.search(r"^  empty: +\d+ switch-LID entries .*every end-port pair is delivered",
                        o, re.M), "no 'empty' line:\n" + o)
        check(re.search(r"^  first empty: LID \d+ ", o, re.M), o)
        expect(["verify", "--strict", tree, dump], 1, r"^verify: +INVALID")
        o, _ = expect(["verify", "--json", tree, dump], 0)
        v = json.loads(o)["verify"]
        check(v["valid"] and v["missing"] > 0 and not v["strict"] and v["first_missing"], o)
    # minhop fills every entry: no 'empty' line
    out = path("vd-minhop")
    expect(["route", "-q", "-R", "minhop", tree, "-o", out], 0)
    o, _ = expect(["verify", "--strict", tree, os.path.join(out, "opensm-lfts.dump")], 0)
    check("empty:" not in o, o)


def ibdiagnet_fdbs(fdbs):
    """ibdiagnet's flavour of an opensm.fdbs text: its switch-line prefix and
    a PLFT_NUM line, plus a private LFT 1 per switch that must be dropped."""
    out = []
    for line in fdbs.splitlines(True):
        if line.startswith("dump_ucast_routes: Switch 0x"):
            out.append("osm_ucast_mgr_" + line + "PLFT_NUM: 0\n")
        else:
            out.append(line)
    text = "".join(out)
    guid = re.search(r"Switch (0x[0-9a-f]{16})", text).group(1)
    return text + ("osm_ucast_mgr_dump_ucast_routes: Switch %s\nPLFT_NUM: 1\n"
                   "LID    : Port : Hops : Optimal\n0x0001 : 001  : 00   : yes\n" % guid)


def test_verify_fdbs():
    """ibr verify and ibr analyze take fdbs dumps (OpenSM's opensm.fdbs,
    ibdiagnet's ibdiagnet2.fdbs), told from LFT dumps by their content, with
    the verdict and numbers of the LFT dump of the same routing (issue 38)."""
    for spec, engine, verdict in (("fattree:levels=2,radix=8", "updn", "free"),
                                  ("torus:dims=4x4,hosts=1", "minhop", "CREDIT LOOP")):
        topo = path("vf-%s.topo" % engine)
        expect(["gen", spec, "-o", topo], 0)
        out = path("vf-" + engine)
        expect(["route", "-q", "-R", engine, topo, "-o", out, "--dumps", "lfts,fdbs"], 0)
        lfts = os.path.join(out, "opensm-lfts.dump")
        with open(os.path.join(out, "opensm.fdbs")) as fh:
            diag = write("vf-%s.ibdiagnet2.fdbs" % engine, ibdiagnet_fdbs(fh.read()))
        o, _ = expect(["verify", topo, lfts], 0, r"^verify: +valid")
        check(re.search(r"^  deadlock: +%s" % verdict, o, re.M), o)
        want, _ = expect(["verify", "--json", topo, lfts], 0)
        wantv = json.loads(want)
        for dump in (os.path.join(out, "opensm.fdbs"), diag):
            o, _ = expect(["verify", topo, dump], 0, r"^verify: +valid")
            check(re.search(r"^  deadlock: +%s" % verdict, o, re.M), o)
            got, _ = expect(["verify", "--json", topo, dump], 0)
            gotv = json.loads(got)
            check(gotv["verify"] == wantv["verify"],
                  "%s: verify differs from the LFT dump's:\n%s\n%s" % (dump, got, want))
            a = jrun(["analyze", "-q", "--json", "--patterns", "shift", topo, dump])
            b = jrun(["analyze", "-q", "--json", "--patterns", "shift", topo, lfts])
            check(a.get("shift") == b.get("shift") and a.get("hops") == b.get("hops"),
                  "%s: analyze differs:\n%r\n%r" % (dump, a, b))
    # a malformed line: an input error naming file and line, no verdict
    with open(diag) as fh:
        first = fh.readline()
    bad = write("vf-bad.fdbs", first + "LID    : Port : Hops : Optimal\n0x0001 : abc\n")
    expect(["verify", topo, bad], 2, None,
           r"^ibr: .*vf-bad.fdbs: line 3: bad port in fdbs entry")


def test_strict():
    """--strict makes a fallback and a broken credit-loop promise visible in
    the exit status (issue 17, item 7)."""
    torus = path("st-torus.topo")
    expect(["gen", "torus:dims=4x4,hosts=1", "-o", torus], 0)
    # without --strict the fallback routes and exits 0
    expect(["route", "-q", "-R", "ftree,updn", torus], 0, r"attempt 1: +ftree: declined")
    expect(["route", "-q", "-R", "ftree,updn", torus, "--strict"], 1, None,
           r"strict: the first engine, ftree, declined: .*; updn routed as a fallback \[CL045\]$")
    # updn chooses its root where OpenSM's heuristic finds none, and says which
    expect(["route", "-R", "updn,no_fallback", torus], 0,
           r"^roots: +1 chosen by ibroute, the centre .*: 0x[0-9a-f]{16} \"T\(")
    # a ring of 5 on one VL: no minimal layering fits (a 4x4 torus does)
    torus5 = path("st-torus5.topo")
    expect(["gen", "torus:dims=5x5,hosts=1", "-o", torus5], 0)
    expect(["route", "-q", "-R", "dfsssp", "--max-vls", "1", torus5, "--strict"], 1, None,
           r"strict: the first engine, dfsssp, IBR_ENOVL.* \[CL045\]$")
    # minhop promises nothing: its credit loop is reported, not an error
    expect(["route", "-q", "-R", "minhop", torus, "--strict"], 0, r"CREDIT LOOP")
    expect(["route", "-q", "-R", "dfsssp", torus, "--strict"], 0, r"deadlock: +free")
    # --strict judges the verification: without it, a usage error (issue 34)
    expect(["route", "-q", "-R", "dfsssp", torus, "--strict", "--no-verify"], 2, None,
           r"--strict and --no-verify exclude each other.* \[CL052\]$")
    # ibr verify --strict: a credit loop is an error
    out = path("st-minhop")
    expect(["route", "-q", "-R", "minhop", torus, "-o", out], 0)
    dump = os.path.join(out, "opensm-lfts.dump")
    expect(["verify", torus, dump], 0, r"CREDIT LOOP")
    expect(["verify", "--strict", torus, dump], 1, None, r"--strict: the routing has a credit loop: .* \[CL076\]$")


def test_ftree_connected_pairs():
    """ftree never says valid while pairs the fabric connects get no route,
    and the route-time verdict is the one `ibr verify` gives the written
    dump (issue 34, item 2)."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    leaves = os.path.join(data, "ftree-isolated-leaves.topo")
    # two leaves lost all their cables up: their hosts still reach each
    # other; 80 pairs connected, all delivered, 5 cables counted as lost
    out = path("fc-leaves")
    o, _ = expect(["route", "-q", "-R", "ftree,no_fallback", leaves, "--strict", "-o", out], 0,
                  r"^verify: +valid")
    check(re.search(r"^  pairs: +80 \(80 ok\)$", o, re.M), o)
    check(re.search(r"^degraded: +0 switch\(es\) and 5 cable\(s\) missing .*, "
                    r"160 compute-node pair\(s\) without an up/down path$", o, re.M), o)
    route = jrun(["route", "-q", "-R", "ftree,no_fallback", leaves, "--json"])
    dump = jrun(["verify", leaves, os.path.join(out, "opensm-lfts.dump"), "--json"])["verify"]
    for k in ("valid", "pairs", "pairs_ok"):
        check(route["verify"][k] == dump[k], "%s: route %s, dump %s" % (k, route["verify"], dump))
    check(dump["pairs"] == 80 and dump["valid"], dump)
    # a split tree: the fabric connects pairs up/down cannot; ftree declines
    split = path("fc-split.topo")
    expect(["gen", "fattree:levels=2,radix=4", "--faults", "2,0", "--seed", "4", "-o", split], 0)
    expect(["route", "-q", "-R", "ftree,no_fallback", split], 1, None,
           r"ftree: 8 end-port pair\(s\) the fabric connects have no up/down route")
    expect(["route", "-q", "-R", "ftree", split, "--strict"], 1, None,
           r"strict: the first engine, ftree, declined: 8 end-port pair.* \[CL045\]$")
    out = path("fc-split")
    route = jrun(["route", "-q", "-R", "ftree", split, "--json", "-o", out])
    dump = jrun(["verify", split, os.path.join(out, "opensm-lfts.dump"), "--json"])["verify"]
    check(route["engine"] != "ftree", route["engine"])
    for k in ("valid", "pairs", "pairs_ok"):
        check(route["verify"][k] == dump[k], "%s: route %s, dump %s" % (k, route["verify"], dump))
    check(dump["valid"] and dump["pairs"] == 56, dump)
    # the intact tree's ftree routing rerouted onto the leaves that lost
    # their cables: every connected pair delivered
    intact, db = path("fc-intact.topo"), path("fc.db")
    with open(leaves) as f:
        write("fc-intact.topo", f.read().replace(" (down)", ""))
    expect(["route", "-q", "-R", "ftree,no_fallback", intact, "--save-db", db], 0)
    o, _ = expect(["reroute", "-q", db, leaves, "-o", path("fc-rr")], 0,
                  r"^verify: +valid \(80 of 80 pairs")
    o, _ = expect(["verify", leaves, os.path.join(path("fc-rr"), "opensm-lfts.dump")], 0,
                  r"^  pairs: +80 \(80 ok\)$")


def test_qos():
    """-Q / --qos-config: the tables OpenSM's QoS manager programs, the
    SL2VL hazard of a qos_sl2vl merging dfsssp's SLs on a faulty 5x4x3 torus
    (as OpenSM 3.3.23 -Q programs it without a warning), --strict failing on
    it, and configuration errors naming the line and key (issue 23)."""
    torus = path("qos-torus.topo")
    expect(["gen", "torus:dims=5x4x3,hosts=1", "--faults", "4", "--seed", "3", "-o", torus], 0)
    out = path("qos-out")
    expect(["route", "-q", "-R", "dfsssp", torus, "-Q", "--strict", "-o", out], 0,
           r"^qos: +on; 0 notes, 0 SL2VL hazards$")
    # two QoS levels over lash's layers: each on VLs of its own, no hazard
    lv = write("qos-levels.conf", "ibr_qos_levels 2\nibr_qos_level_weights 96,32\n")
    o, _ = expect(["route", "-q", "-R", "lash,no_fallback", torus, "--qos-config", lv,
                   "--strict"], 0, r"^  qos levels: 2, each on its own VLs \(level l: path SL "
                  r"\+ \d+ x l\)$")
    check("deadlock:   free" in o, o)
    doc = jrun(["route", "-q", "-R", "lash,no_fallback", torus, "--qos-config", lv, "--json"])
    check(doc["qos"]["levels"] == 2 and doc["qos"]["hazards"] == [], doc["qos"])
    # --qos-levels: ibdmchk's path SLs per level, level 1's one stride up
    lvout = path("qos-levels-out")
    expect(["route", "-q", "-R", "lash,no_fallback", torus, "--qos-levels", "2", "--dumps",
            "ibdmchk", "-o", lvout], 0, r"^  qos levels: 2, ")
    with open(os.path.join(lvout, "ibr-paths.psl")) as f0, \
            open(os.path.join(lvout, "ibr-paths.level1.psl")) as f1:
        p0 = [ln.split() for ln in f0]
        p1 = [ln.split() for ln in f1]
    stride = {int(b[2]) - int(a[2]) for a, b in zip(p0, p1)}
    check(len(p0) == len(p1) > 0 and [a[:2] for a in p0] == [b[:2] for b in p1] and
          len(stride) == 1 and min(stride) >= 1, (len(p0), len(p1), stride))
    check(not os.path.exists(os.path.join(lvout, "ibr-paths.level2.psl")), "level 2 written")
    expect(["route", "-q", torus, "--qos-levels", "9"], 2, None,
           r"--qos-levels: '9' is not a number in 0..8 \[CL005\]$")
    # ibr analyze: the VL usage of every QoS level, on VLs of its own
    o, _ = expect(["analyze", "-q", "-R", "lash,no_fallback", torus, "--qos-levels", "2",
                   "--patterns", "a2a"], 0, r"^VLs used: \d+ over 2 QoS levels \(paths per VL\):$")
    l0 = re.search(r"^  level 0:(.*)$", o, re.M)
    l1 = re.search(r"^  level 1:(.*)$", o, re.M)
    check(l0 and l1, o)
    v0 = set(re.findall(r"VL(\d+)", l0.group(1)))
    v1 = set(re.findall(r"VL(\d+)", l1.group(1)))
    check(v0 and v1 and not v0 & v1, (v0, v1))
    doc = jrun(["analyze", "-q", "-R", "lash,no_fallback", torus, "--qos-config", lv,
                "--patterns", "a2a", "--json"])
    check(doc["qos_levels"] == 2 and len(doc["vl_usage_levels"]) == 2 and
          doc["vl_usage_levels"][0] == doc["vl_usage"], doc)
    expect(["analyze", "-q", torus, path("nonexistent.dump"), "-Q"], 2, None,
           r"QoS options need the tables computed in memory.* \[CL027\]$")
    bad = write("qos-levels-bad.conf", "ibr_qos_levels 12\n")
    expect(["route", "-q", torus, "--qos-config", bad], 2, None,
           r"line 1: ibr_qos_levels: 12 out of range \(1\.\.8\)")
    with open(os.path.join(out, "ibr-vlarb.txt")) as fh:
        vlarb = fh.read()
    check(vlarb.startswith("# VLArbitration tables: Switch 0x"), vlarb[:200])
    check("WEIGHT: |0x0 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |\n" in vlarb, vlarb[:400])
    with open(os.path.join(out, "opensm-sl2vl.dump")) as fh:
        check("0   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7 \n" in fh.read(),
              "sl2vl dump")
    conf = write("qos.conf", "# opensm.conf\nrouting_engine dfsssp\nqos TRUE\n"
                             "qos_sl2vl 0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7\n")
    expect(["route", "-q", "-R", "dfsssp", torus, "--qos-config", conf], 0,
           r"credit-loop hazard: SLs 0 and 1 share VL 0 on \d+ switch port pairs; first: switch "
           r"0x[0-9a-f]{16} \".*\" in \d+ out \d+")
    expect(["route", "-q", "-R", "dfsssp", torus, "--qos-config", conf, "--strict"], 1,
           r"deadlock: +CREDIT LOOP", r"strict: QoS SL2VL credit-loop hazard: 4 merges of SLs "
           r"dfsssp keeps apart \(first: SLs 0 and 1 on VL 0\) \[CL046\]$")
    j = jrun(["route", "-q", "-R", "dfsssp", torus, "--qos-config", conf, "--json"])
    check(len(j["qos"]["hazards"]) == 4 and j["qos"]["hazards"][0]["sl_a"] == 0
          and j["qos"]["hazards"][0]["sl_b"] == 1 and j["qos"]["hazards"][0]["count"] > 0
          and j["qos"]["notes"] == [], j["qos"])
    check(jrun(["route", "-q", "-R", "dfsssp", torus, "--json"])["qos"] is None, "qos off")
    # minhop uses one SL: nothing to merge
    expect(["route", "-q", "-R", "minhop", torus, "--qos-config", conf, "--strict"], 0,
           r"qos: +on; 0 notes, 0 SL2VL hazards")
    bad = write("qos-bad.conf", "qos_max_vls 8\n\nqos_swe_vlarb_low 0:4,1:x\n")
    expect(["route", "-q", torus, "--qos-config", bad], 2, None,
           r"qos-bad.conf: line 3: qos_swe_vlarb_low: entry 1: '1:x' is not VL:weight")


def test_not_a_topology():
    """An empty file, junk, an LFT dump given as the topology and swapped
    arguments are input errors (exit 2) that say what was expected, also
    with --json, which then prints a JSON error object (issue 17, items 2
    and 8)."""
    empty = write("nt-empty.topo", "")
    junk = write("nt-junk.topo", "hello world\n")
    tree = path("nt-tree.topo")
    expect(["gen", "fattree:levels=2,radix=4", "-o", tree], 0)
    out = path("nt-out")
    expect(["route", "-q", tree, "-o", out], 0)
    dump = os.path.join(out, "opensm-lfts.dump")
    expect(["info", empty], 2, None, r"the text is empty: expected ibnetdiscover")
    expect(["info", junk], 2, None, r"no node record was found in 1 line: expected")
    expect(["info", dump], 2, None, r"looks like forwarding tables")
    expect(["route", junk], 2, None, r"no node record")
    # swapped arguments
    expect(["verify", dump, tree], 2, None,
            r"`ibr verify` takes the TOPOLOGY first, then the LFTS_DUMP")
    for args in (["info", "--json", junk], ["verify", "--json", dump, tree],
                 ["route", "--json", path("nt-missing.topo")]):
        o, _ = expect(args, 2)
        doc = json.loads(o)
        check(doc["exit_status"] == 2 and doc["error"], o)
    o, _ = expect(["info", "--json", junk], 2)
    check("no node record" in json.loads(o)["error"], o)


def test_small_ones():
    """The small rough edges of issue 17, item 8."""
    tree = path("so-tree.topo")
    expect(["gen", "fattree:levels=2,radix=4", "-o", tree], 0)
    # --max-vls: one message for both ends of the range
    _, e0 = expect(["route", "--max-vls", "0", tree], 2)
    _, e16 = expect(["route", "--max-vls", "16", tree], 2)
    check("is not a number in 1..15" in e0 and "is not a number in 1..15" in e16, e0 + e16)
    # -R "" names no engine: an error, not a silent minhop
    expect(["route", "-R", "", tree], 2, None, r"-R names no engine")
    expect(["route", "-R", " , ", tree], 2, None, r"-R names no engine")
    # an unknown engine: the known ones listed, said once
    o, e = expect(["route", "-R", "bogus", tree], 2, None,
                  r"unknown engine 'bogus' \(known engines: minhop, updn, ")
    check(e.count("unknown engine") == 1 and "unknown engine" not in o, o + e)
    # an unknown option: one line, with the ibr: prefix and where to look
    for cmd in ("route", "verify", "info", "gen", "engines", "trace", "analyze"):
        o, e = expect([cmd, "--bogus"], 2, None,
                      r"^ibr: %s: unknown option or missing value '--bogus' "
                      r"\(try 'ibr help %s'\) \[CL001\]$" % (cmd, cmd))
        check(e.count("\n") == 1 and o == "", "%s: %r %r" % (cmd, o, e))
    expect(["help", "--help"], 0, r"^usage: ibr ")
    expect(["gen", "--help"], 0, r"usage: ibr gen .*\[--remove-down\]")
    # the files line without a doubled slash; the thread count used
    out = path("so-out") + "/"
    o, _ = expect(["route", "-q", tree, "-o", out], 0, r"^threads: +1 \(automatic\)$")
    check("//" not in o, o)
    expect(["route", "-q", "--threads", "3", tree], 0, r"^threads: +3$")
    o, _ = expect(["route", "-q", "--json", tree], 0)
    check(json.loads(o)["threads_used"] == 1, o)
    # dfsssp: layers needed and the VLs they are spread over, apart
    o, _ = expect(["route", "-q", "-R", "dfsssp", tree], 0,
                  r"^layers: +1 needed to break every credit loop; VLs used: \d+$")
    check(not re.search(r"^VLs used:", o, re.M), o)
    o, _ = expect(["route", "-q", "-R", "dfsssp", "--json", tree], 0)
    check(json.loads(o)["layers"] == 1, o)


def test_dfsssp_beyond_cycle_breaking():
    """dfsssp routes where OpenSM's cycle breaking needs more than 8 VLs
    (issue 39): a 6-cube and a 4x4x4 torus fit 8 VLs, deadlock-free, and
    the verifier's loop check with the SLs agrees."""
    for spec in ("hypercube:dim=6,hosts=2", "torus:dims=4x4x4,hosts=2"):
        o, _ = expect(["route", "-q", "-R", "dfsssp,no_fallback", "--strict", "--json",
                       "gen:" + spec], 0)
        j = json.loads(o)
        check(j["engine"] == "dfsssp" and 1 <= j["layers"] <= 8 and j["vls_used"] <= 8, o)
        check(j["verify"]["valid"] and j["verify"]["deadlock_free"] is True, o)
        check(j["verify"]["nonminimal"] == 0, o)


def test_failed_writes():
    """A dump that cannot be written leaves no partial file, the others are
    still written, and the summary says what was written and what was not
    (issue 17, items 4 and 5)."""
    import resource
    import signal
    tree = path("fw-tree.topo")
    expect(["gen", "fattree:levels=2,radix=8", "-o", tree], 0)
    # sizes in the summary
    out = path("fw-ok")
    expect(["route", "-q", tree, "-o", out], 0, r"^written: +4 files, [0-9.]+ kB in [0-9.]+ s$")
    expect(["route", "-q", "--all-dumps", tree, "-o", path("fw-all")], 0,
           r"^written: +6 files, [0-9.]+ kB in [0-9.]+ s$")
    # a file that is a directory cannot be replaced (opensm.fdbs is written
    # in slices)
    out = path("fw-dir")
    os.makedirs(os.path.join(out, "opensm.fdbs"))
    o, e = expect(["route", "-q", "--all-dumps", tree, "-o", out], 2,
                  r"^NOT WRITTEN: +opensm.fdbs: ", r"ibr: write: opensm.fdbs: ")
    check(re.search(r"^files: .*opensm-lfts.dump", o, re.M), o)
    check(not [f for f in os.listdir(out) if ".tmp-" in f], os.listdir(out))
    o, _ = expect(["route", "-q", "--json", "--all-dumps", tree, "-o", out], 2)
    doc = json.loads(o)
    check(doc["write_errors"] and doc["write_errors"][0].startswith("opensm.fdbs: "), o)
    check("opensm-lfts.dump" in doc["files"] and doc["bytes_written"] > 0, o)

    # a full disk (a file size limit): the big dump fails, nothing partial
    # is left, an older copy stays as it was
    out = path("fw-full")
    os.makedirs(out)
    old = os.path.join(out, "opensm-lfts.dump")
    with open(old, "w") as f:
        f.write("old tables\n")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8000, 8000))
    p = subprocess.run([IBR, "route", "-q", tree, "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, preexec_fn=limit, timeout=300)
    check(p.returncode == 2, "exit %d: %s %s" % (p.returncode, p.stdout, p.stderr))
    check(re.search(r"^NOT WRITTEN: +opensm-lfts.dump: File too large", p.stdout, re.M),
          p.stdout)
    check(re.search(r"^files: .*guid2lid", p.stdout, re.M), p.stdout)
    with open(old) as f:
        check(f.read() == "old tables\n", "the old dump was overwritten")
    check(not [f for f in os.listdir(out) if ".tmp-" in f], os.listdir(out))


def test_readme_tour():
    """The README's tour runs as written (issue 17, item 3): every line of
    its first sh block after "## The `ibr` command", with the built ibr and
    a scratch directory for /tmp."""
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
    with open(readme) as f:
        text = f.read()
    part = text.split("## The `ibr` command", 1)[1]
    block = part.split("```sh", 1)[1].split("```", 1)[0]
    lines = [ln.split("  #")[0].strip() for ln in block.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    check(len(lines) >= 6 and lines[0].startswith("ibr="), block)
    scratch = path("tour") + "/"
    os.makedirs(scratch)
    for ln in lines[1:]:
        cmd = ln.replace("/tmp/", scratch).replace("$ibr", IBR)
        p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=300)
        check(p.returncode == 0, "README line failed (exit %d): %s\n%s%s"
              % (p.returncode, ln, p.stdout[-800:], p.stderr[-800:]))


def cli_code_table():
    """{code: message format} of the CL part of doc/messages.md."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "doc",
                       "messages.md")
    rows = {}
    with open(doc, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| (CL\d{3}) \| (.*) \|$", line.rstrip("\n"))
            if m:
                text = m.group(2)
                if text.startswith("`") and text.endswith("`"):
                    text = text[1:-1]
                rows[m.group(1)] = text.replace("\\|", "|")
    return rows


def test_cli_codes():
    """The CLI's own errors end in their CL code, with the message that
    doc/messages.md lists for it, and fail the command: a bad option, a bad
    value, files it cannot read, options that exclude each other, unknown
    commands; the --json error object carries the code too."""
    table = cli_code_table()
    check(len(table) > 50, "doc/messages.md lists %d CL codes" % len(table))
    g = "gen:fattree:levels=2,radix=4"
    net = write("codes.net", NETFILE)
    cases = [
        (["route", "--bogus", net], "CL001"),
        (["route", "-q", "--max-vls", "99", g], "CL013"),
        (["route", "-q", "--qos-levels", "0", g], "CL006"),
        (["route", "-q", "--dumps", "lfts,nosuch", g, "-o", path("codes-out")], "CL043"),
        (["info", "/nonexistent-dir/codes.net"], "CL004"),
        (["info", "/dev/zero"], "CL002"),
        (["route", "-q", g, "--strict", "--no-verify"], "CL052"),
        (["route", "-q", "--guid2lid", net, "--lmc", "1", g], "CL021"),
        (["analyze", "-q", "-R", "minhop", net, net], "CL026"),
        (["trace", "-q", net, "--to", "1"], "CL071"),
        (["route", "-q", net, net], "CL037"),
        (["frobnicate"], "CL085"),
        (["help", "frobnicate"], "CL084"),
    ]
    for args, code in cases:
        rc, out, err = ibr(*args)
        what = "ibr %s" % " ".join(args)
        check(rc != 0, "%s: exit 0\n%s" % (what, err))
        lines = [ln for ln in err.splitlines() if ln.startswith("ibr: ")]
        check(lines and lines[-1].endswith(" [%s]" % code), "%s: no [%s]: %r" % (what, code, err))
        # the message is the one the table lists for the code
        fmt = table.get(code)
        check(fmt is not None, "%s: %s is not in doc/messages.md" % (what, code))
        pat = re.sub(r"%[-0-9.*]*(?:ll|z)?[a-zA-Z]", lambda m: "\x00", fmt)
        pat = ".*".join(re.escape(p) for p in pat.split("\x00"))
        check(re.search(r": %s \[%s\]$" % (pat, code), lines[-1]),
              "%s: %r is not %s's message %r" % (what, lines[-1], code, fmt))
    # the JSON error object of --json carries the code
    rc, out, _ = ibr("route", "-q", "--json", "--max-vls", "99", g)
    doc = json.loads(out)
    check(rc == 2 and doc["exit_status"] == 2 and doc["error"].endswith("[CL013]"), out)


def test_messages():
    """The messages of issue 18, item 4: escaped, summarised, bounded."""
    # raw bytes of the input are escaped (a NUL inside an id: the Python
    # suite, since the command refuses files with NULs)
    bad = path("msg-esc.topo")
    with open(bad, "wb") as f:
        f.write(b'Switch 4 "S-0000000000000010"\n[1] "H-00\x07zz\x1b[31m"[1]\n')
    _, e = expect(["info", bad], 2, None,
                  r'unknown node "H-00\\x07zz\\x1b\[31m" \(dangling link\) \[TP042\]')
    check("\x1b" not in e, repr(e))
    # a node GUID of 0 says it is not allowed
    expect(["info", write("msg-zero.topo", 'Switch 4 "S-0000000000000000"\n')], 2, None,
           r"node GUID 0 is not allowed")
    # ftree names no GUID 0 when no switch is cabled to another
    two = write("msg-two.topo",
                'Switch 4 "S-0000000000000010"\n[1] "H-0000000000000020"[1]\n\n'
                'Switch 4 "S-0000000000000011"\n[1] "H-0000000000000021"[1]\n\n'
                'Ca 1 "H-0000000000000020"\n[1] "S-0000000000000010"[1]\n\n'
                'Ca 1 "H-0000000000000021"\n[1] "S-0000000000000011"[1]\n')
    o, _ = expect(["route", "-q", "-R", "ftree", two], 0, r"no switch is cabled to another")
    check("0x0000000000000000" not in o, o)
    # a topology without LIDs
    expect(["trace", write("msg-ca.topo", 'Ca 1 "H-0000000000000020"\n'), "--from", "1",
            "--to", "2"], 2, None, r"the topology has no LIDs")
    # a long list of unknown root GUIDs: a few warnings and one summary
    tree = path("msg-tree.topo")
    expect(["gen", "fattree:levels=2,radix=4", "-o", tree], 0)
    roots = write("msg-roots.txt", "".join("0x%016x\n" % (0xdead0000 + i) for i in range(2000)))
    for engine in ("updn", "ftree"):
        _, e = expect(["route", "-q", "-R", engine, tree, "--root-guids", roots], 0)
        check(e.count("\n") <= 8 and "1995 more root GUIDs" in e, e)
    # inputs are bounded: binary data and oversized files are refused at once
    expect(["info", "/dev/zero"], 2, None, r"binary data \(NUL bytes\): not a text file \[CL002\]$")
    big = write("msg-big.topo", "# " + "x" * (3 << 20) + "\n")
    p = subprocess.run([IBR, "info", big], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=dict(os.environ, IBR_MAX_INPUT_MB="1"), timeout=60)
    check(p.returncode == 2 and "more than 1 MB: not read" in p.stderr and "[CL003]" in p.stderr and
          "IBR_MAX_INPUT_MB" in p.stderr, p.stderr)
    # forwarding tables for LIDs beyond the topology: the code [LF013], on
    # which the command adds its hint
    expect(["route", "-q", tree, "-o", path("msg-lfts"), "--dumps", "lfts"], 0)
    with open(os.path.join(path("msg-lfts"), "opensm-lfts.dump")) as f:
        lines = f.read().split("\n")
    far = write("msg-far.dump", "\n".join(lines[:1] + ["0x0100 001 : (far)"] + lines[1:]))
    expect(["verify", tree, far], 2, None,
           r"line 2: LID 256 beyond the topology .* \[LF013\]\n.*hint: give the LIDs.* \[CL010\]$")
def test_dor():
    """dor: listed with its setting; a torus routed by it gets its credit loop
    reported as minhop's does, a mesh is loop-free; the port search order
    comes from a file through --param-file, and a bad line is named."""
    out, _ = expect(["engines"], 0, r"^dor\s+lmc,minimal\s")
    check(re.search(r"^  dor\.port_search_ordering +text ", out, re.M),
          "dor's setting not listed:\n" + out)
    torus = "gen:torus:dims=4x4,hosts=1"
    r = jrun(["route", "--json", "-R", "dor", torus])
    v = r["verify"]
    check(r["engine"] == "dor" and v["valid"] and v["deadlock_free"] is False and
          v["credit_loop_length"] >= 2 and v["nonminimal"] == 0, "dor on a torus: %r" % v)
    expect(["route", "-q", "-R", "dor", torus], 0,
           r"^  deadlock:\s+CREDIT LOOP of \d+ channels: .*0x[0-9a-f]{16} port \d+")
    mesh = "gen:mesh:dims=4x3,hosts=2,parallel=2"
    r = jrun(["route", "--json", "-R", "dor", mesh])
    check(r["engine"] == "dor" and r["verify"]["deadlock_free"] is True and
          r["verify"]["nonminimal"] == 0, "dor on a mesh: %r" % r["verify"])
    base = jrun(["route", "--json", "-R", "dor", "gen:mesh:dims=3x3,hosts=1", "-o",
                 path("dor-default")])
    check(base["settings"] == {"dor.port_search_ordering": ""}, "settings: %r" % base["settings"])
    # switch 0 of a 3x3 mesh (GUID from the generator's file) takes dimension 1 first
    expect(["gen", "mesh:dims=3x3,hosts=1", "-o", path("m33.net")], 0)
    with open(path("m33.net")) as fh:
        guid = re.search(r"^switchguid=(0x[0-9a-fA-F]+)", fh.read(), re.M).group(1)
    order = write("dor-order.txt", "# dimension 1 first\n%s 3 4 1 2\n" % guid)
    r = jrun(["route", "--json", "-R", "dor,no_fallback", path("m33.net"), "-o",
              path("dor-order"), "--param-file", "dor.port_search_ordering=" + order])
    check(r["engine"] == "dor" and r["verify"]["valid"] and r["verify"]["nonminimal"] == 0,
          "dor with a search order: %r" % r)
    with open(path("dor-default/opensm-lfts.dump")) as a, \
            open(path("dor-order/opensm-lfts.dump")) as b:
        check(a.read() != b.read(), "the search order changed nothing")
    bad = write("dor-bad.txt", "%s 3 4\n\nnot-a-guid 1\n" % guid)
    expect(["route", "-R", "dor,no_fallback", path("m33.net"), "--param-file",
            "dor.port_search_ordering=" + bad], 1, None, r"line 3")
    r = jrun(["route", "--json", "-R", "dor", path("m33.net"), "--param-file",
              "dor.port_search_ordering=" + bad])
    check(r["engine"] == "minhop" and r["attempts"][0]["engine"] == "dor" and
          "line 3" in r["attempts"][0]["message"], "dor fallback: %r" % r["attempts"])


def test_file_engine():
    """-R file replays a routing from its dumps (--lfts-file,
    --lid-matrix-file), byte for byte; a bad line names the line and the
    chain falls back."""
    topo = path("fe.topo")
    expect(["gen", "random:switches=20,degree=4,hosts=2,seed=4", "-o", topo], 0)
    a, b, c = path("fe-a"), path("fe-b"), path("fe-c")
    expect(["route", "-q", "-R", "dfsssp", topo, "-o", a], 0)
    expect(["route", "-q", "-R", "file,no_fallback", "--lfts-file",
            os.path.join(a, "opensm-lfts.dump"), topo, "-o", b], 0, r"^engine: +file$")
    with open(os.path.join(a, "opensm-lfts.dump")) as fa, \
            open(os.path.join(b, "opensm-lfts.dump")) as fb:
        check(fa.read() == fb.read(), "the replayed LFTs differ")
    expect(["route", "-q", "-R", "minhop", "--dumps", "default,lid-matrix", topo, "-o", a], 0)
    expect(["route", "-q", "-R", "file,no_fallback", "--lid-matrix-file",
            os.path.join(a, "opensm-lid-matrix.dump"), topo, "-o", c], 0)
    with open(os.path.join(a, "opensm-lfts.dump")) as fa, \
            open(os.path.join(c, "opensm-lfts.dump")) as fc:
        check(fa.read() == fc.read(), "min-hop over minhop's hop rows differs from minhop")
    bad = path("fe-bad.dump")
    with open(bad, "w") as f:
        f.write("Unicast lids [0-1] of switch Lid 1 guid 0x12 ('x'):\n0x0001 1\n"
                "Unicast lids [0-1] of switch Lid 1 guid\n")
    expect(["route", "-q", "-R", "file", "--lfts-file", bad, topo], 0,
           r"file: IBR_EPARSE \(file.lfts line 3: switch header")
    expect(["route", "-q", "--lfts-file", path("fe-missing"), topo], 2, None, r"fe-missing")
    # a file without any LFT block fails the engine as `ibr verify` refuses
    # it (it used to report "file: ok" with min-hop tables)
    junk = write("fe-junk.dump", "junk line\nmore junk\n")
    expect(["route", "-q", "-R", "file", "--lfts-file", junk, topo], 0,
           r"file: IBR_EPARSE \(file.lfts: no \"Unicast lids\" block in 2 lines")
    expect(["route", "-q", "-R", "file,no_fallback", "--lfts-file", junk, topo], 1, None,
           r"file.lfts: no \"Unicast lids\" block")
    expect(["verify", topo, junk], 2, None, r"no \"Unicast lids\" block in 2 lines")
    empty = write("fe-empty.dump", "")
    expect(["route", "-q", "-R", "file", "--lfts-file", empty, topo], 2, None,
           r"^ibr: .*fe-empty.dump: the file is empty: expected forwarding tables.* \[CL015\]$")
    expect(["route", "-q", "-R", "file", "--lid-matrix-file", empty, topo], 2, None,
           r"^ibr: .*fe-empty.dump: the file is empty: expected hop rows.* \[CL015\]$")


def test_reroute():
    """route --save-db, then reroute: unchanged, a cable lost, a damaged
    database."""
    topo, faulted, db = path("rr.topo"), path("rr-f.topo"), path("rr.db")
    expect(["gen", "fattree:levels=3,radix=8", "-o", topo], 0)
    expect(["gen", "fattree:levels=3,radix=8", "--faults", "1", "--seed", "2", "-o", faulted], 0)
    expect(["route", "-q", "-R", "updn", "--save-db", db, topo], 0)
    expect(["reroute", db, topo], 0, r"^mode: +unchanged$")
    out, _ = expect(["reroute", "--vs-full", db, faulted, "-o", path("rr-out")], 0,
                    r"^mode: +incremental$")
    check(re.search(r"^  missing cable +0x[0-9a-f]{16} port \d+ - 0x", out, re.M), out)
    check(re.search(r"^verify: +valid", out, re.M), out)
    check(os.path.exists(os.path.join(path("rr-out"), "opensm-lfts.dump")), out)
    o, _ = expect(["reroute", "--json", "--full", db, faulted], 0)
    doc = json.loads(o)
    check(doc["mode"] == "full" and doc["changes"][0]["kind"] == "missing cable", o)
    with open(db) as f:
        text = f.read()
    with open(path("rr-bad.db"), "w") as f:
        f.write(text[: len(text) // 2])
    expect(["reroute", path("rr-bad.db"), topo], 2, None, r"routing database line \d+")
    # a routing saved with QoS levels comes back programmed the same way,
    # the same dumps; the caller's configuration wins over the saved one
    torus, tdb, q = path("rrq.topo"), path("rrq.db"), path("rrq-out")
    expect(["gen", "torus:dims=4x4x3,hosts=1", "-o", torus], 0)
    expect(["route", "-q", "-R", "lash,no_fallback", torus, "--qos-levels", "2", "--save-db",
            tdb, "-o", q, "--dumps", "sl2vl,ibdmchk"], 0)
    with open(tdb) as f:
        check(re.search(r"^qos 2 \d+$", f.read(), re.M), "no qos record")
    out, _ = expect(["reroute", "-q", tdb, torus, "-o", q + "2", "--dumps", "sl2vl,ibdmchk"], 0,
                    r"^  qos levels: 2, each on its own VLs")
    check(re.search(r"^mode: +unchanged$", out, re.M) and
          re.search(r"^qos: +on; 0 notes, 0 SL2VL hazards$", out, re.M), out)
    for name in ("opensm-sl2vl.dump", "ibr-vlarb.txt", "ibr-paths.psl", "ibr-paths.level1.psl"):
        with open(os.path.join(q, name)) as a, open(os.path.join(q + "2", name)) as b:
            check(a.read() == b.read(), name + " differs after the reroute")
    doc = jrun(["reroute", "-q", tdb, torus, "--json"])
    check(doc["qos"] == {"levels": 2, "notes": 0, "hazards": 0}, doc.get("qos"))
    merge = write("rrq-merge.conf", "ibr_qos_levels 2\nqos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n")
    out, _ = expect(["reroute", "-q", tdb, torus, "--qos-config", merge], 0,
                    r"^  credit-loop hazard: SLs \d+ and \d+ share VL 0")
    out, _ = expect(["reroute", "-q", tdb, torus, "-Q"], 0,
                    r"^mode: +full \(the QoS levels asked for differ from the saved routing's\)$")


def read_lft_dump(name):
    """{switch GUID: {LID: port}} of an opensm-lfts.dump (unrouted LIDs
    are not listed)."""
    tables, cur = {}, None
    with open(name) as f:
        for line in f:
            m = re.match(r"Unicast lids \[.*\] of switch .*guid (0x[0-9a-f]+)", line)
            if m:
                cur = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = re.match(r"(0x[0-9a-f]+) (\d+) ", line)
            if m and cur is not None:
                cur[int(m.group(1), 16)] = int(m.group(2))
    return tables


def changed_blocks(old, new):
    """Per switch of new: the 64-LID blocks whose entries differ from old's
    (the switches gone from new are not counted)."""
    per = {}
    for guid, now in new.items():
        was = old.get(guid, {})
        blocks = {lid // 64 for lid in set(now) | set(was) if now.get(lid) != was.get(lid)}
        if blocks:
            per[guid] = len(blocks)
    return per


def test_reroute_blocks():
    """reroute's changed LFT blocks and their histogram, in the summary and
    --json, recounted from the opensm-lfts.dump files before and after,
    for the repair and a full reroute (--vs-full and --full)."""
    topo, faulted, db = path("rb.topo"), path("rb-f.topo"), path("rb.db")
    spec = "xgft:h=3,m=4.4.6,w=1.4.4"
    expect(["gen", spec, "-o", topo], 0)
    expect(["gen", spec, "--faults", "1,0", "--seed", "3", "-o", faulted], 0)
    expect(["route", "-q", "-R", "minhop", "--save-db", db, topo, "-o", path("rb-0")], 0)
    old = read_lft_dump(os.path.join(path("rb-0"), "opensm-lfts.dump"))
    over = None
    for extra, out_dir in (([], "rb-1"), (["--full"], "rb-2")):
        doc = jrun(["reroute", "-q", "--json", "--vs-full", db, faulted, "-o", path(out_dir)]
                   + extra)
        new = read_lft_dump(os.path.join(path(out_dir), "opensm-lfts.dump"))
        per = changed_blocks(old, new)
        check(doc["lft_blocks_changed"] == sum(per.values()) > 0, (doc, per))
        check(doc["lft_blocks_max"] == max(per.values()), doc)
        check(doc["switches_changed"] == len(per), doc)
        hist = {}
        for n in per.values():
            k = min(n.bit_length() - 1, 10)
            hist[k] = hist.get(k, 0) + 1
        check([(h["min"], h["switches"]) for h in doc["lft_blocks_hist"]] ==
              [(1 << k, hist[k]) for k in sorted(hist)], (doc["lft_blocks_hist"], hist))
        check(doc["sl2vl_tables_changed"] == 0, doc)
        # the saved blocks over the lost cable do not depend on the way
        check(doc["lft_blocks_over_lost"] > 0 and over in (None, doc["lft_blocks_over_lost"]),
              doc)
        over = doc["lft_blocks_over_lost"]
        # --full and --vs-full's full reroute: the same tables, the same counts
        check(not extra or (doc["full"]["lft_blocks_changed"] == doc["lft_blocks_changed"] and
                            doc["full"]["lft_blocks_hist"] == doc["lft_blocks_hist"]), doc)
    out, _ = expect(["reroute", "--vs-full", db, faulted], 0,
                    r"^to send: +\d+ LFT blocks \(at most \d+ on one switch\), 0 SL2VL tables; "
                    r"%d saved blocks routed over the lost cables$" % over)
    check(re.search(r"^full reroute: .* \d+ LFT blocks, 0 SL2VL tables, in ", out, re.M), out)
    # --repeat times the full reroute as often as the repair, each after one
    doc = jrun(["reroute", "-q", "--json", "--vs-full", "--repeat", "3", "--no-verify", db,
                faulted])
    f = doc["full"]
    check(doc["repeat"] == 3 and 0 < f["time_min_s"] <= f["time_median_s"], doc)
    out, _ = expect(["reroute", "--vs-full", "--repeat", "3", "--no-verify", db, faulted], 0)
    check(re.search(r"^full reroute: .* in [\d.]+ s \(fastest of 3: [\d.]+, median [\d.]+\)$",
                    out, re.M), out)


def fix_db_checksum(text):
    """A routing database's text with its end line recomputed (FNV-1a 64 of
    every byte before it), as a hand edit that fixes the checksum would."""
    body = text[: text.rindex("end ")]
    h = 0xcbf29ce484222325
    for b in body.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return body + "end %016x\n" % h


def test_reroute_keeps_promise():
    """A saved engine that cannot route the changed fabric: the reroute
    fails (exit 1) and says so, unless --fallback, which names minhop as
    the engine; a credit loop under an engine that promises none is never
    'valid'; a database of another fabric is warned about."""
    base, faulty = path("kp-base.topo"), path("kp-faulty.topo")
    db = path("kp-lash.db")
    expect(["gen", "hypercube:dim=5,hosts=1,vls=1", "-o", base], 0)
    expect(["route", "-q", "-R", "lash,no_fallback", base, "--save-db", db], 0)
    expect(["gen", "hypercube:dim=5,hosts=1,vls=1", "--faults", "3,0", "--seed", "459894",
            "-o", faulty], 0)
    out, err = expect(["reroute", db, faulty], 1, r"^engine: +\(none\)$",
                      r"saved engine 'lash' cannot route the changed fabric")
    check(re.search(r"^  attempt 1: +lash: ", out, re.M) and "minhop" not in out, out)
    check("--fallback" in err and "verify:" not in out, err)
    # the change list in plain words
    check(re.search(r"^  missing cable .*: the saved hop counts are stale; routes through this "
                    r"port must move$", out, re.M) and "invalidates hop rows" not in out, out)
    doc = jrun(["reroute", "--json", db, faulty], 1)
    check(doc["status"] == "IBR_EUNROUTABLE" and doc["engine"] == "" and
          doc["saved_engine"] == "lash" and doc["fallback"] is False and
          [a["engine"] for a in doc["attempts"]] == ["lash"] and
          doc["attempts"][0]["status"] != "IBR_OK" and "lash" in doc["error"], doc)
    expect(["reroute", "--full", db, faulty], 1)
    # --fallback: minhop's tables, named as such
    out, _ = expect(["reroute", "--fallback", db, faulty, "-o", path("kp-fb")], 0,
                    r"^engine: +minhop \(FALLBACK: the saved engine lash")
    check(re.search(r"^  attempt 1: +lash: ", out, re.M) and
          re.search(r"^  attempt 2: +minhop: ok$", out, re.M), out)
    doc = jrun(["reroute", "--json", "--fallback", db, faulty])
    check(doc["engine"] == "minhop" and doc["saved_engine"] == "lash" and doc["fallback"] is True
          and [a["engine"] for a in doc["attempts"]] == ["lash", "minhop"], doc)
    # the tables, checked on their own: minhop's, with a credit loop
    expect(["route", "-q", "-R", "minhop", faulty, "-o", path("kp-mh")], 0)
    with open(os.path.join(path("kp-fb"), "opensm-lfts.dump")) as a, \
            open(os.path.join(path("kp-mh"), "opensm-lfts.dump")) as b:
        check(a.read() == b.read(), "--fallback's tables are not minhop's")
    v = jrun(["verify", "--json", faulty, os.path.join(path("kp-fb"), "opensm-lfts.dump")])
    check(v["verify"]["deadlock_free"] is False, v)
    # dfsssp short of VLs: its own run declines the damaged torus, so a
    # full reroute gets the same refusal (updn no longer refuses the
    # damaged tree it was tried on: it chooses its roots there); the
    # repair in place fits the saved 2 VLs, valid and free of credit loops
    for spec, eng, faults, seed in (("torus:dims=6x4,hosts=1,vls=2", "dfsssp", "3,0", "6"),):
        b, f, d = path("kp-%s.topo" % eng), path("kp-%s-f.topo" % eng), path("kp-%s.db" % eng)
        expect(["gen", spec, "-o", b], 0)
        expect(["route", "-q", "-R", eng + ",no_fallback", b, "--save-db", d], 0)
        expect(["gen", spec, "--faults", faults, "--seed", seed, "-o", f], 0)
        doc = jrun(["reroute", "--json", d, f])
        check(doc["mode"] == "incremental" and doc["engine"] == eng and doc["valid"] and
              doc["deadlock_free"] == 1 and not doc["promise_broken"], doc)
        doc = jrun(["reroute", "--json", "--full", d, f], 1)
        check(doc["status"] == "IBR_EUNROUTABLE" and doc["saved_engine"] == eng and
              [a["engine"] for a in doc["attempts"]] == [eng], doc)
        doc = jrun(["reroute", "--json", "--full", "--fallback", "-o", path("kp-%s-out" % eng),
                    d, f])
        check(doc["engine"] == "minhop" and doc["fallback"] is True, doc)
        v = jrun(["verify", "--json", f, os.path.join(path("kp-%s-out" % eng),
                                                      "opensm-lfts.dump")])
        check(v["verify"]["deadlock_free"] is False, v)
    # a database that claims a deadlock-free engine for tables with a
    # credit loop (the checksum fixed after the edit): INVALID, exit 1
    mh = path("kp-minhop.db")
    expect(["route", "-q", "-R", "minhop", faulty, "--save-db", mh], 0)
    with open(mh) as fh:
        text = fh.read()
    forged = write("kp-forged.db", fix_db_checksum(text.replace("engine minhop\n",
                                                                "engine updn\n", 1)))
    out, err = expect(["reroute", forged, faulty], 1,
                      r"^verify: +INVALID \(.*credit loop, which updn promises none\)$",
                      r"updn promises credit-loop freedom.* \[CL058\]$")
    check(not re.search(r"^verify: +valid", out, re.M), out)
    doc = jrun(["reroute", "--json", forged, faulty], 1)
    check(doc["valid"] is False and doc["promise_broken"] is True and doc["engine"] == "updn",
          doc)
    # another fabric altogether: warned
    ft = path("kp-ft.topo")
    expect(["gen", "fattree:levels=3,radix=8", "-o", ft], 0)
    out, _ = expect(["reroute", "-q", db, ft, "--fallback"], 0,
                    r"^warning: +most of the fabric changed")
    doc = jrun(["reroute", "--json", "-q", db, ft, "--fallback"])
    check(doc["warning"] and "most of the fabric changed" in doc["warning"], doc)
    doc = jrun(["reroute", "--json", "--fallback", db, faulty])
    check(doc["warning"] is None, doc)


def test_reroute_dmodc():
    """A dmodc routing rerouted after one lost cable or switch (a spine, or
    for seed 5 a leaf with its end ports) is repaired in place
    (incremental), and its tables and hop matrix are those of a fresh
    dmodc route of the changed fabric, byte for byte."""
    spec = "xgft:h=3,m=4.4.8,w=1.4.4"
    topo, db = path("rrd.topo"), path("rrd.db")
    expect(["gen", spec, "-o", topo], 0)
    expect(["route", "-q", "-R", "dmodc", "--save-db", db, topo], 0)
    for faults, seed in (("1", "3"), ("0,1", "2"), ("0,1", "5")):
        f = path("rrd-%s-%s.topo" % (faults, seed))
        expect(["gen", spec, "--faults", faults, "--seed", seed, "--remove-down", "-o", f], 0)
        rr, fr = path("rrd-rr-" + seed), path("rrd-full-" + seed)
        o, _ = expect(["reroute", "--json", db, f, "-o", rr, "--dumps", "lfts,lid-matrix"], 0)
        doc = json.loads(o)
        check(doc["mode"] == "incremental" and doc["valid"] and doc["lft_entries_changed"] > 0, o)
        expect(["route", "-q", "-R", "dmodc", f, "-o", fr, "--dumps", "lfts,lid-matrix"], 0)
        for dump in ("opensm-lfts.dump", "opensm-lid-matrix.dump"):
            with open(os.path.join(rr, dump), "rb") as x, open(os.path.join(fr, dump), "rb") as y:
                check(x.read() == y.read(), "%s: %s differs from a fresh route" % (f, dump))


def test_multicast():
    # gen:fattree:levels=2,radix=4: hosts 0x0002c903010000NN00 (port 1), switches
    # 0x0002c902010000NN; leaf L1-S0 (..00) carries H0 and H1
    topo = "gen:fattree:levels=2,radix=4"
    groups = write("mc-groups.txt", """# two groups
group 0xC000 mgid ff12:401b:ffff::1
member 0x0002c90301000000 1
member 0x0002c90301000100 1 non
member 0x0002c90301000700 1
group 0xC001
member 0x0002c90301000200 1
member 0x0002c90201000004 0
""")
    out, _ = expect(["route", topo, "--groups", groups, "-o", path("mc-out"), "-q"], 0,
                    r"^multicast: +2 MLIDs, OpenSM's trees, busiest link carries 1 trees$")
    check(re.search(r"^  multicast:  2 MLIDs, 8 member pairs \(8 delivered exactly once\)$",
                    out, re.M), out)
    with open(os.path.join(path("mc-out"), "opensm.mcfdbs")) as f:
        mc = f.read()
    # H0 and H1 on leaf 0x...00 ports 1 and 2, up to the spine by port 3
    check("\nSwitch 0x0002c90201000000\nLID    : Out Port(s)\n0xC000 : 0x001  0x002  0x003 \n"
          in mc, mc)
    check(mc.index("Switch 0x0002c90201000000") < mc.index("Switch 0x0002c90201000004"), mc)
    doc = jrun(["route", topo, "--groups", groups, "--mcast-balance", "--json", "-q"])
    check(doc["mcast"] == {"mlids": 2, "balanced": True, "trees": "balanced",
                           "max_link_trees": 1}, doc)
    check(doc["verify"]["mcast_pairs_ok"] == 8 and doc["verify"]["mcast_missed"] == 0, doc)
    # errors name the line
    bad = write("mc-bad.txt", "group 0xC000\nmember 0x0002c90301000000 1\nmember 0x99 1\n")
    expect(["route", topo, "--groups", bad, "-q"], 2, None,
           r"mc-bad.txt: line 3: unknown node GUID 0x0000000000000099")
    bad = write("mc-bad2.txt", "group 0xBFFF\n")
    expect(["route", topo, "--groups", bad, "-q"], 2, None,
           r"line 1: MLID 0xBFFF is outside the multicast range 0xC000-0xFFFE")
    bad = write("mc-bad3.txt", "group 0xC000\nmember 0x0002c90301000000 1\n"
                               "member 0x0002c90301000000 1 full\n")
    expect(["route", topo, "--groups", bad, "-q"], 2, None, r"line 3: .*already a member")
    expect(["route", topo, "--mcast-balance", "-q"], 2, None, r"--groups")
    # trace: one copy per member
    out, _ = expect(["trace", topo, "--groups", groups, "--mlid", "0xC000",
                     "--from", "0x0002c90301000000"], 0,
                    r"^delivered: every other member exactly once \(4 copies sent\)$")
    check(re.search(r"0x0002c90301000700 port 1 'H7 HCA-1'$", out, re.M), out)
    doc = jrun(["trace", topo, "--groups", groups, "--mlid", "0xC001", "--from",
                "0x0002c90201000004", "--json"])
    check(doc["exact"] is True and doc["members"] == 2 and len(doc["copies"]) >= 2, doc)
    expect(["trace", topo, "--groups", groups, "--mlid", "0xC005", "--from",
            "0x0002c90301000000"], 2, None, r"MLID 0xC005 has no multicast tables.* \[CL068\]$")
    expect(["trace", topo, "--mlid", "0xC000", "--from", "0x1"], 2, None, r"--groups")
    expect(["trace", topo, "--groups", groups, "--mlid", "0x10", "--from", "0x1"], 2, None,
           r"not a multicast LID")
    # analyze: the multicast load per link
    out, _ = expect(["analyze", topo, "--groups", groups, "--patterns", "shift"], 0,
                    r"^multicast: +2 MLIDs \(OpenSM's trees\), 6 tree links over 6 of 16 "
                    r"directed switch links$")
    doc = jrun(["analyze", topo, "--groups", groups, "--json", "--patterns", "shift"])
    check(doc["mcast"]["max_link_trees"] == 1 and doc["mcast"]["tree_links"] == 6, doc)
    check("summary" in doc or "hops" in doc or len(doc) > 2, doc)


def test_sa_dump():
    # OpenSM's SA database dump: group records with their member records;
    # the groups file written from the same members gives the same MFTs
    topo = "gen:fattree:levels=2,radix=4"
    rec = ("MC Group 0x%04x : mgid=0xff12601bffff0000:0x%016x port_gid=0xfe80000000000000:"
           "0x0 qkey=0x0 mlid=0x%04x mtu=0x84 tclass=0x0 pkey=0xffff rate=0x83 pkt_life=0x0 "
           "sl_flow_hop=0x0 scope_state=0x21 proxy_join=0x0\n\n")
    mem = "mcm_port: port_gid=0xfe80000000000000:0x%016x scope_state=0x%02x proxy_join=0x0\n\n"
    dump = write("mc-sa.dump", rec % (0xC001, 1, 0xC001) + mem % (0x2c90301000001, 0x21)
                 + mem % (0x2c90301000701, 0x21) + mem % (0x2c90301000301, 0x24)
                 + rec % (0xC002, 2, 0xC002) + mem % (0x2c90301000101, 0x22))
    groups = write("mc-sa-groups.txt", "group 0xC001 mgid ff12:601b:ffff::1\n"
                   "member 0x0002c90301000000 1\nmember 0x0002c90301000700 1\n"
                   "member 0x0002c90301000300 1 sendonly\n")
    out, _ = expect(["route", topo, "--sa-dump", dump, "-o", path("sa-out"), "-q"], 0,
                    r"^multicast: +1 MLIDs, OpenSM's trees")
    check(re.search(r"^  multicast:  1 MLIDs, 6 member pairs \(6 delivered exactly once\)$",
                    out, re.M), out)
    expect(["route", topo, "--groups", groups, "-o", path("sa-out2"), "-q"], 0)
    with open(os.path.join(path("sa-out"), "opensm.mcfdbs")) as a, \
            open(os.path.join(path("sa-out2"), "opensm.mcfdbs")) as b:
        ta, tb = a.read(), b.read()
    check("0xC001 :" in ta and ta == tb, ta + tb)
    bad = write("mc-sa-bad.dump", "\n" + rec % (0xBFFF, 1, 0xBFFF))
    expect(["route", topo, "--sa-dump", bad, "-q"], 2, None,
           r"mc-sa-bad.dump: line 2: MLID 0xBFFF is outside the multicast range")
    expect(["route", topo, "--sa-dump", dump, "--groups", groups, "-q"], 2, None,
           r"--groups or --sa-dump")


def test_multicast_keeps_promise():
    # lash on a faulty 5x5 mesh with 21 groups: OpenSM's trees close a
    # credit loop with the unicast routes; by default unicast moves one
    # SL/VL up and the trees share one spanning tree
    net = path("mk.net")
    expect(["gen", "mesh:dims=5x5,hosts=2", "--faults", "3,1", "--seed", "1", "-o", net], 0)
    with open(net) as f:
        text = f.read()
    cas = [g for g, line in re.findall(r'^Ca\s+\d+\s+"H-([0-9a-f]+)".*\n(\[1\].*)', text, re.M)
           if "(down)" not in line]
    lines = ["group 0xC000"] + ["member 0x%s 1" % g for g in cas]
    for k in range(1, 21):
        lines.append("group 0x%X" % (0xC000 + k))
        lines += ["member 0x%s 1" % g for i, g in enumerate(cas) if (i * 7 + k * 13) % (k % 4 + 2) == 0]
    groups = write("mk-groups.txt", "\n".join(lines) + "\n")
    osm = jrun(["route", "-R", "lash,no_fallback", net, "--groups", groups, "--mcast-opensm",
                "--json", "-q"])
    own = jrun(["route", "-R", "lash,no_fallback", net, "--groups", groups, "--json", "-q"])
    check(osm["verify"]["deadlock_free"] is False, osm["verify"])
    check(own["verify"]["deadlock_free"] is True, own["verify"])
    check(own["vls_used"] == osm["vls_used"] + 1, (own["vls_used"], osm["vls_used"]))
    check(own["verify"]["mcast_pairs_ok"] == own["verify"]["mcast_pairs"], own["verify"])
    # the reports name who built the trees
    check(osm["mcast"]["trees"] == "opensm" and own["mcast"]["trees"] == "spanning",
          (osm["mcast"], own["mcast"]))
    expect(["route", "-R", "lash,no_fallback", net, "--groups", groups, "-q"], 0,
           r"^multicast: +21 MLIDs, one spanning tree on SL/VL 0, busiest link carries")
    expect(["route", "-R", "dfsssp,no_fallback", net, "--groups", groups, "-q",
            "--mcast-opensm"], 0, r"^multicast: +21 MLIDs, the engine's own trees, ")
    _, err = expect(["route", "-R", "lash,no_fallback", net, "--groups", groups, "-v"], 0)
    check(re.search(r"lash: the multicast trees closed a credit loop with the unicast routes: "
                    r"unicast path SLs moved up by one", err), err)
    expect(["route", net, "--mcast-opensm", "-q"], 2, None, r"--groups")


RING4 = "".join(
    # four switches in a ring, a CA on each; the S1-S2 cable runs at 1x
    # while both ends enable 1x and 4x (w=3): a throttled cable
    "switchguid=0x%x\nSwitch\t4 \"S%d\"\t# \"s%d\" lid %d lmc 0\n"
    "[1]\t\"S%d\"[2]\t# lid %d %s\n"
    "[2]\t\"S%d\"[1]\t# lid %d %s\n"
    "[3]\t\"H%d\"[1]\t# lid %d 4xQDR\n\n"
    "caguid=0x%x\nCa\t1 \"H%d\"\n"
    "[1]\t\"S%d\"[3]\t# lid %d lmc 0 \"s%d\" lid %d 4xQDR\n\n"
    % (0x10 + i, i, i, 1 + i,
       (i + 3) % 4, 1 + (i + 3) % 4, "1xQDR w=3" if i == 2 else "4xQDR",
       (i + 1) % 4, 1 + (i + 1) % 4, "1xQDR w=3" if i == 1 else "4xQDR",
       i, 5 + i, 0x100 + i, i, i, 5 + i, i, 1 + i)
    for i in range(4))


def test_port_facts():
    # the data VLs and throttled cables of a topology
    ring = path("ring4-throttled.net")
    write("ring4-throttled.net", RING4)
    info = jrun(["info", "--json", ring])
    check(info["data_vls"] == 8 and info["throttled_switch_links"] == 1,
          "info: %r" % {k: info[k] for k in ("data_vls", "throttled_switch_links")})
    expect(["info", ring], 0, r"(?m)^throttled: +1 switch-switch cable")
    expect(["info", "gen:torus:dims=4x4,hosts=1,vls=2"], 0, r"(?m)^data VLs: +2 ")
    # sssp routes S1's traffic to H2 the long way round with
    # avoid_throttled_links (port 1 of S1 leads to S0), straight over the
    # throttled cable (port 2) without
    for on, port in (("0", 2), ("1", 1)):
        out = path("ring4-sssp-" + on)
        expect(["route", "-q", "-R", "sssp,no_fallback", ring, "-o", out,
                "--param", "sssp.avoid_throttled_links=" + on], 0)
        lft = read_lft_dump(os.path.join(out, "opensm-lfts.dump"))
        check(lft[0x11][7] == port, "avoid=%s: S1 -> H2 on port %d" % (on, lft[0x11][7]))
    r = jrun(["route", "--json", "-R", "dfsssp,no_fallback", ring,
              "--param", "dfsssp.avoid_throttled_links=1"])
    check(r["settings"] == {"dfsssp.avoid_throttled_links": "1", "dfsssp.balance": "2",
                             "dfsssp.fewest_layers": "0"}
          and r["verify"]["deadlock_free"] is True, "dfsssp: %r" % r["settings"])
    # too few VLs on the ports: dfsssp says so, the chain falls back
    r = jrun(["route", "--json", "-R", "dfsssp,minhop", "gen:torus:dims=5x5,hosts=1,vls=1"])
    check(r["engine"] == "minhop" and "ports' OperVLs 1" in r["attempts"][0]["message"],
          "dfsssp on 1 VL: %r" % r["attempts"])


# ----------------------------------------------------------------------------
# Writing files and standard output (issue 34, item 6 and "Also")


def run_ibr(args, **kw):
    """ibr with its own stdout/stderr handling (kw: stdout=, preexec_fn=)."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([IBR] + list(args), text=True, timeout=300, **kw)


def no_tmp(d):
    left = [f for f in os.listdir(d) if ".tmp-" in f]
    check(not left, "temporary files left in %s: %r" % (d, left))


def read_fifo(fifo):
    """Read a FIFO on a thread; returns (thread, result list)."""
    import threading
    got = []

    def reader():
        with open(fifo, "rb") as f:
            got.append(f.read())
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    return th, got


def test_write_targets():
    """Symlinks are followed (the link stays, its target is replaced),
    devices and FIFOs are written through, regular files replaced whole,
    for gen -o, route/reroute --save-db and the files of -o DIR."""
    import stat
    d = path("wt")
    os.makedirs(d)
    spec = "fattree:levels=2,radix=4"
    ref, _ = expect(["gen", spec], 0)
    # a symlink (relative) to a regular file: the link stays, the target
    # gets the text
    target = os.path.join(d, "target.topo")
    write(target, "old\n")
    link = os.path.join(d, "link.topo")
    os.symlink("target.topo", link)
    expect(["gen", spec, "-o", link], 0)
    check(os.path.islink(link) and os.readlink(link) == "target.topo",
          "gen -o LINK replaced the symlink")
    with open(target) as f:
        check(f.read() == ref, "the symlink's target does not hold the topology")
    no_tmp(d)
    # a chain of links, the last one dangling: the file is created there
    os.symlink("link2", os.path.join(d, "link1"))
    os.symlink(os.path.join(d, "created.db"), os.path.join(d, "link2"))
    expect(["route", "-q", "gen:" + spec, "--save-db", os.path.join(d, "link1")], 0)
    check(os.path.islink(os.path.join(d, "link1")) and os.path.islink(os.path.join(d, "link2")),
          "route --save-db replaced a symlink")
    with open(os.path.join(d, "created.db")) as f:
        check(f.read().startswith("ibroute-routing-db") or len(f.read()) >= 0, "db")
    check(os.path.getsize(os.path.join(d, "created.db")) > 100, "no database written")
    # reroute --save-db through a symlink
    os.symlink("rr-target.db", os.path.join(d, "rr-link.db"))
    expect(["reroute", "-q", os.path.join(d, "created.db"), "gen:" + spec, "--save-db",
            os.path.join(d, "rr-link.db")], 0)
    check(os.path.islink(os.path.join(d, "rr-link.db")) and
          os.path.getsize(os.path.join(d, "rr-target.db")) > 100,
          "reroute --save-db replaced the symlink")
    # a FIFO is written through (not replaced by a regular file)
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    th, got = read_fifo(fifo)
    expect(["gen", spec, "-o", fifo], 0)
    th.join(10)
    check(stat.S_ISFIFO(os.stat(fifo).st_mode), "gen -o FIFO replaced the FIFO")
    check(got and got[0].decode() == ref, "the FIFO's reader got %r bytes"
          % (len(got[0]) if got else None))
    # a symlink to a device: written through, the write error reported
    # (done first through a link in our directory: a CLI that replaced the
    # link would otherwise replace /dev/full itself when run as root)
    full = os.path.join(d, "full")
    os.symlink("/dev/full", full)
    _, e = expect(["gen", spec, "-o", full], 2, None, r"No space left on device")
    check(os.path.islink(full), "gen -o LINK-TO-/dev/full replaced the link")
    expect(["route", "-q", "gen:" + spec, "--save-db", full], 2, None,
           r"No space left on device")
    check(os.path.islink(full), "route --save-db replaced the link")
    if os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode):
        expect(["gen", spec, "-o", "/dev/full"], 2, None,
               r"^ibr: /dev/full: cannot write: No space left on device \[CL030\]$")
        check(stat.S_ISCHR(os.lstat("/dev/full").st_mode), "/dev/full was replaced")
    # our own standard output through /proc's links (their text, "pipe:[N]",
    # is no path): written to the pipe the harness reads (/dev/fd/1 and
    # /proc/self/fd/1 rather than /dev/stdout: a CLI that renamed over the
    # name would fail there instead of replacing /dev/stdout)
    for name in ("/dev/fd/1", "/proc/self/fd/1"):
        if os.path.exists(name):
            o, _ = expect(["gen", spec, "-o", name], 0)
            check(o == ref, "gen -o %s: %d bytes on stdout" % (name, len(o)))
    # a regular file is replaced whole (a new inode, its mode kept)
    reg = os.path.join(d, "reg.topo")
    write(reg, "old\n")
    os.chmod(reg, 0o640)
    ino = os.stat(reg).st_ino
    expect(["gen", spec, "-o", reg], 0)
    st = os.stat(reg)
    check(st.st_ino != ino and stat.S_IMODE(st.st_mode) == 0o640,
          "regular file: inode %d -> %d, mode %o" % (ino, st.st_ino, stat.S_IMODE(st.st_mode)))
    with open(reg) as f:
        check(f.read() == ref, "regular file content")
    # a failed write leaves the old file as it was, and no temporary file
    import resource
    import signal

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
    write(reg, "old\n")
    p = run_ibr(["gen", spec, "-o", reg], preexec_fn=limit)
    check(p.returncode == 2 and "File too large" in p.stderr, "%d %s" % (p.returncode, p.stderr))
    with open(reg) as f:
        check(f.read() == "old\n", "a failed gen -o changed the old file")
    no_tmp(d)
    # the files of -o DIR: a symlink is followed, a FIFO written through,
    # a device's write error reported
    out = os.path.join(d, "dump")
    os.makedirs(out)
    os.symlink("../lfts-target", os.path.join(out, "opensm-lfts.dump"))
    os.mkfifo(os.path.join(out, "guid2lid"))
    os.symlink("/dev/full", os.path.join(out, "opensm-subnet.lst"))
    th, got = read_fifo(os.path.join(out, "guid2lid"))
    o, e = expect(["route", "-q", "gen:" + spec, "-o", out], 2,
                  r"^NOT WRITTEN: +opensm-subnet.lst: No space left on device$")
    th.join(10)
    check(os.path.islink(os.path.join(out, "opensm-lfts.dump")) and
          os.path.islink(os.path.join(out, "opensm-subnet.lst")), "dump: a symlink was replaced")
    check(stat.S_ISFIFO(os.stat(os.path.join(out, "guid2lid")).st_mode),
          "dump: the FIFO was replaced")
    with open(os.path.join(d, "lfts-target")) as f:
        check(f.read().startswith("Unicast lids"), "dump: the link's target")
    check(got and b"0x" in got[0], "dump: the FIFO's reader got nothing")
    no_tmp(out)


def test_stdout_errors():
    """A write error on standard output fails every command (exit 2, a
    message on stderr)."""
    spec = "gen:fattree:levels=2,radix=4"
    if not os.path.exists("/dev/full"):
        return
    for args in (["engines"], ["engines", "--json"], ["route", "-q", spec],
                 ["route", "-q", "--json", spec], ["info", spec], ["gen", spec],
                 ["--help"], ["analyze", spec], ["trace", spec, "--from", "1", "--to", "2"]):
        with open("/dev/full", "w") as full:
            p = run_ibr(args, stdout=full)
        check(p.returncode == 2, "ibr %s > /dev/full: exit %d" % (" ".join(args), p.returncode))
        check(re.search(r"^ibr: stdout: .*No space left on device", p.stderr, re.M),
              "ibr %s > /dev/full: %r" % (" ".join(args), p.stderr))


def test_interrupted_write():
    """SIGINT or SIGTERM while -o writes: no temporary file is left and the
    command dies of the signal."""
    import signal
    import time
    for sig in (signal.SIGINT, signal.SIGTERM):
        done = False
        for radix in (16, 20, 24):
            out = path("sig-%d-%d" % (sig, radix))
            os.makedirs(out)
            p = subprocess.Popen([IBR, "route", "-q", "--no-verify",
                                  "gen:fattree:levels=3,radix=%d" % radix, "-o", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            seen = False
            deadline = time.time() + 120
            while p.poll() is None and time.time() < deadline:
                if any(".tmp-" in f for f in os.listdir(out)):
                    seen = True
                    p.send_signal(sig)
                    break
                time.sleep(0.001)
            p.wait(120)
            p.stderr.close()
            if not seen:
                shutil.rmtree(out, ignore_errors=True)
                continue  # too fast to catch: a bigger fabric
            check(p.returncode == -sig, "signal %d: exit %d" % (sig, p.returncode))
            no_tmp(out)
            shutil.rmtree(out, ignore_errors=True)
            done = True
            break
        check(done, "signal %d: never caught a temporary file" % sig)


def test_option_conflicts():
    """Options that contradict each other, or settings of engines the chain
    does not run, are usage errors naming both; --param copies are freed
    (LeakSanitizer) when a later option is refused."""
    g = "gen:fattree:levels=2,radix=4"
    expect(["route", g, "--mcast-balance", "--mcast-opensm"], 2, None,
           r"--mcast-balance and --mcast-opensm exclude each other.* \[CL051\]$")
    expect(["route", g, "--no-verify", "--strict"], 2, None,
           r"--strict and --no-verify exclude each other.* \[CL052\]$")
    expect(["route", "-R", "ftree", g, "--param", "sssp.balance=1"], 2, None,
           r"--param sssp.balance=\.\.\.: engine sssp is not in the chain \(-R ftree\).* \[CL018\]$")
    expect(["route", g, "--param", "sssp.balance=1"], 2, None,
           r"engine sssp is not in the chain \(no -R: minhop\).* \[CL018\]$")
    expect(["route", "-R", "ftree,no_fallback", g, "--param", "minhop.x=1"], 2, None,
           r"engine minhop is not in the chain")
    expect(["route", "-R", "sssp", g, "--max-reverse-hops", "3"], 2, None,
           r"--max-reverse-hops sets ftree.max_reverse_hops: engine ftree is not in the chain"
           r".* \[CL019\]$")
    expect(["route", "-R", "sssp", g, "--connect-roots"], 2, None,
           r"--connect-roots: none of updn, dnup and ftree is in the chain.* \[CL020\]$")
    expect(["trace", "-R", "updn", g, "--from", "1", "--to", "2", "--param", "sssp.balance=1"],
           2, None, r"engine sssp is not in the chain")
    # accepted: the engine is in the chain (minhop: the fallback)
    expect(["route", "-q", "-R", "sssp", g, "--param", "sssp.balance=1"], 0)
    expect(["route", "-q", "-R", "updn", g, "--connect-roots"], 0)
    expect(["route", "-q", "-R", "updn", g, "--max-vls", "2"], 0)
    # the leak (caught by the ASan build's LeakSanitizer as a non-2 exit)
    expect(["route", "gen:fattree:levels=2,radix=4", "--param", "sssp.balance=1", "--lmc", "9"],
           2, None, r"--lmc")
    expect(["reroute", "--param", "sssp.balance=1", "--repeat", "0", "x", "y"], 2)
    expect(["trace", "--param", "sssp.balance=1", "--lmc", "9", g], 2)
    expect(["route", "--param", "sssp.balance=1", "-h"], 0)


def test_qos_key_typos():
    """A misspelled qos_* key is named in a warning with the known key it
    is closest to."""
    conf = write("typo.conf", "qos_max_vl 4\nqos_swe_hihg_limit 3\nqos_policy_file /x\n"
                 "log_flags 0x03\n")
    _, e = expect(["route", "-q", "gen:fattree:levels=2,radix=4", "--qos-config", conf], 0)
    check(re.search(r"line 1: unknown key 'qos_max_vl' ignored \(did you mean 'qos_max_vls'\?\) "
                    r"\[QC019\]", e), e)
    check(re.search(r"line 2: unknown key 'qos_swe_hihg_limit' ignored \(did you mean "
                    r"'qos_swe_high_limit'\?\)", e), e)
    check("qos_policy_file" not in e and "log_flags" not in e, e)


def test_unwritable_dir():
    """An -o directory that cannot take files: one line naming it."""
    if os.geteuid() == 0:
        d = "/sys/kernel"   # root may write anywhere but there
        if not os.path.isdir(d):
            return
        try:
            fd, p = tempfile.mkstemp(dir=d)
            os.close(fd)
            os.unlink(p)
            return          # writable after all: nothing to test
        except OSError:
            pass
    else:
        d = path("ro-dir")
        os.makedirs(d)
        os.chmod(d, 0o555)
    o, e = expect(["route", "-q", "gen:fattree:levels=2,radix=4", "-o", d], 2)
    lines = [l for l in e.splitlines() if l.strip()]
    check(len(lines) == 1 and d in lines[0] and re.search("Permission denied|Read-only", lines[0]),
          "stderr: %r" % e)
    check(len(re.findall(r"^NOT WRITTEN:", o, re.M)) == 1 and
          re.search(r"^NOT WRITTEN: +%s: " % re.escape(d), o, re.M), o)


def test_trace_guid_forms():
    """trace --from/--to: a hex number of more than 4 digits or a number
    above 0xBFFF is a GUID; lid:N and guid:N say which."""
    text, _ = expect(["gen", "mesh:dims=2,hosts=1"], 0)
    # H0's port GUID 0x1234 (LID 3), H1's 0xc000 (LID 4)
    text = text.replace("2c90302000001)", "1234)").replace("2c90302000101)", "c000)")
    topo = write("trace-guids.topo", text)
    t = jrun(["trace", "--json", topo, "--from", "0x0000000000001234", "--to", "49152"])
    check(t["src_lid"] == 3 and t["dst_lid"] == 4 and t["reached"], "trace %r" % t)
    t = jrun(["trace", "--json", topo, "--from", "guid:0x1234", "--to", "0xc000"])
    check(t["src_lid"] == 3 and t["dst_lid"] == 4, "trace %r" % t)
    t = jrun(["trace", "--json", topo, "--from", "3", "--to", "lid:0x4"])
    check(t["src_lid"] == 3 and t["dst_lid"] == 4, "trace %r" % t)
    # 0x1234 is a LID, which no port owns: the message suggests guid:
    expect(["trace", topo, "--from", "0x1234", "--to", "4"], 2, None,
           r"--from: LID 4660 is not in the topology \(LIDs 1\.\.4\) \(for the GUID, write "
           r"guid:0x1234\) \[CL063\]$")


def test_engines_columns():
    """ibr engines: the descriptions start in one column, after the
    capabilities."""
    out, _ = expect(["engines"], 0)
    engines = jrun(["engines", "--json"])
    cols = set()
    for e in engines:
        line = [l for l in out.splitlines() if l.startswith(e["name"] + " ")][0]
        col = line.find(e["description"])
        check(col > 0 and line[:col].rstrip().endswith(e["caps_text"]) and
              line[col - 2:col] == "  ", "engines: %r" % line)
        cols.add(col)
    check(len(cols) == 1, "descriptions start in columns %r" % sorted(cols))


IO_TESTS = [test_write_targets, test_stdout_errors, test_interrupted_write,
            test_option_conflicts, test_qos_key_typos, test_unwritable_dir,
            test_trace_guid_forms, test_engines_columns]


def test_analyze_bound():
    # the eBB bound: a column and eBB/bound in the text, two keys per
    # pattern family in the JSON; on an intact fat tree ftree's shift
    # reaches it
    topo = "gen:fattree:levels=2,radix=8"
    expect(["analyze", "-q", "-R", "ftree", topo, "--patterns", "shift,perm", "--random",
            "5"], 0, r"^pattern .* +eBB +bound eBB/bound$")
    expect(["analyze", "-q", "-R", "ftree", topo, "--patterns", "shift"], 0,
           r"^shift +31 +992 .* 1\.0000 +1\.0000 +1\.0000$")
    f = path("bound-faults.topo")
    expect(["gen", "fattree:levels=2,radix=8", "--faults", "4", "--seed", "3",
            "--remove-down", "-o", f], 0)
    for engine in ("minhop", "sssp"):
        doc = jrun(["analyze", "-q", "-R", engine, f, "--json", "--random", "5"])
        for fam in ("all_to_all", "shift", "permutation", "bisection"):
            p = doc[fam]
            check(0.0 <= p["ebb"] <= p["ebb_bound"] + 1e-9 and p["ebb_bound"] <= 1.0, doc)
            check(abs(p["ebb_vs_bound"] - p["ebb"] / p["ebb_bound"]) < 1e-6, doc)
        check(doc["shift"]["ebb_bound"] < 1.0, doc)


def test_analyze_lmc():
    """ibr analyze --all-lids on an LMC fabric: the routes of a port's LIDs
    from every switch with end ports, counted (distinct routes, most LIDs
    on one link); tables that send every LID of a port the same way show
    it (LMC routed by ftree and dmodc: issue 35)."""
    topo = path("lmc2.topo")
    expect(["gen", "xgft:h=3,m=4.4.8,w=1.4.4", "--lmc", "2", "-o", topo], 0)
    pairs = 32 * (128 - 4)  # 32 leaves, to the 124 end ports on other leaves
    for engine in ("ftree", "dmodc"):
        doc = jrun(["analyze", "-q", "-R", engine + ",no_fallback", topo, "--json",
                    "--patterns", "shift", "--all-lids"])
        check(doc["engine"] == engine, doc["engine"])
        lp = doc["lmc_paths"]
        check(lp["lids_per_port"] == 4 and lp["pairs"] == pairs and lp["unrouted"] == 0, lp)
        check(lp["distinct_routes_mean"] == 4 and lp["link_share_max"] == 1, lp)
        check(lp["disjoint"] == pairs, lp)
        check(doc["shift"]["unrouted"] == 0 and doc["options"]["base_lid_only"] is False,
              doc["shift"])
        doc = jrun(["analyze", "-q", "-R", engine + ",no_fallback", topo, "--json",
                    "--patterns", "shift"])
        check("lmc_paths" not in doc, "lmc_paths without --all-lids")
    expect(["analyze", "-q", "-R", "ftree,no_fallback", topo, "--patterns", "shift",
            "--all-lids"], 0,
           r"^LMC routes: +%d switch-to-port pairs with up to 4 LIDs \(0 with a LID "
           r"unrouted\): 4\.00 distinct" % pairs)
    # the same tables with every LID of a port routed as its base LID
    d = path("lmc2-out")
    expect(["route", "-R", "ftree,no_fallback", topo, "-o", d], 0)
    ranges = []
    with open(os.path.join(d, "guid2lid")) as fh:
        for line in fh:
            f = line.split()
            if len(f) == 3 and int(f[1], 16) < int(f[2], 16):
                ranges.append((int(f[1], 16), int(f[2], 16)))
    base = {lid: lo for lo, hi in ranges for lid in range(lo + 1, hi + 1)}
    out, block = [], {}
    with open(os.path.join(d, "opensm-lfts.dump")) as fh:
        for line in fh:
            m = re.match(r"^0x([0-9a-f]+) (\d+)(.*)$", line.rstrip("\n"))
            if line.startswith("Unicast lids"):
                block = {}
            elif m:
                lid = int(m.group(1), 16)
                block[lid] = m.group(2)
                if lid in base:
                    line = "0x%s %s%s\n" % (m.group(1), block[base[lid]], m.group(3))
            out.append(line)
    same = write("lmc2-same.dump", "".join(out))
    doc = jrun(["analyze", "-q", topo, same, "--json", "--patterns", "shift", "--all-lids"])
    lp = doc["lmc_paths"]
    check(lp["pairs"] == pairs and lp["distinct_routes_mean"] == 1, lp)
    check(lp["link_share_max"] == 4 and lp["disjoint"] == 0, lp)


def test_ibdiagnet_files():
    """ibdiagnet's files and OpenSM's link list as inputs: ibr analyze on the
    tables of one fabric in OpenSM's formats and in ibdiagnet's (written by
    ibr route --dumps ibdiagnet) gives the same numbers; OpenSM's own
    opensm-subnet.lst and opensm.fdbs give those of its topology and LFT
    dump; verify, info and trace take a link list as TOPO; a bad line names
    its line and code."""
    def numbers(doc):
        keys = ("endports", "pairs", "pairs_routed", "avg_hops", "max_hops", "max_link_load",
                "mean_link_load", "all_to_all", "shift", "permutation", "bisection")
        return dict((k, doc.get(k)) for k in keys)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "osm-fattree")
    a = jrun(["analyze", "-q", "--json", os.path.join(data, "topo.net"), "--guid2lid",
              os.path.join(data, "guid2lid"), os.path.join(data, "opensm-lfts.dump")])
    b = jrun(["analyze", "-q", "--json", os.path.join(data, "opensm-subnet.lst"),
              os.path.join(data, "opensm.fdbs")])
    check(a["pairs_routed"] == 992 and numbers(a) == numbers(b), (numbers(a), numbers(b)))
    for spec, chain in (("fattree:levels=3,radix=4", "updn"), ("torus:dims=4x3,hosts=2", "dor")):
        net = path("ibd-%s.net" % chain)
        d = path("ibd-%s" % chain)
        expect(["gen", spec, "--faults", "2", "--seed", "4", "-o", net], 0)
        r = jrun(["route", "--json", "-R", chain, net, "-o", d, "--dumps", "default,ibdiagnet"])
        check({"ibdiagnet2.lst", "ibdiagnet2.db_csv", "ibdiagnet2.fdbs",
               "ibdiagnet2.sl2vl"} <= set(r["files"]), r["files"])
        f = lambda n: os.path.join(d, n)
        docs = [jrun(["analyze", "-q", "--json", net, f("opensm-lfts.dump")]),
                jrun(["analyze", "-q", "--json", f("ibdiagnet2.lst"), f("ibdiagnet2.fdbs")]),
                jrun(["analyze", "-q", "--json", f("ibdiagnet2.db_csv"), f("ibdiagnet2.fdbs")]),
                jrun(["analyze", "-q", "--json", f("opensm-subnet.lst"), f("opensm-lfts.dump")])]
        check(docs[0]["pairs_routed"] > 0, docs[0])
        for doc in docs[1:]:
            check(numbers(doc) == numbers(docs[0]), (chain, numbers(doc), numbers(docs[0])))
        expect(["verify", f("ibdiagnet2.lst"), f("ibdiagnet2.fdbs")], 0, r"valid")
        o1, _ = expect(["info", net], 0)
        o2, _ = expect(["info", f("ibdiagnet2.lst")], 0)
        n1 = re.search(r"(\d+) switches", o1)
        check(n1 and n1.group(0) in o2, (o1, o2))
        # the database gives the link list's fabric: nodes, ports, active links
        o3, _ = expect(["info", f("ibdiagnet2.db_csv")], 0)
        body = lambda o: [ln for ln in o.splitlines() if not ln.startswith("topology:")]
        check(body(o3) == body(o2) and len(body(o2)) > 3, (o2, o3))
    # VLs: dfsssp's layers on a torus are a credit loop on VL 0 alone; with
    # the fabric's SL2VL tables and the paths' SLs the tables read from
    # ibdiagnet's files are free of it, and their VL usage is the routing's
    net = path("ibd-t6.net")
    d = path("ibd-t6")
    expect(["gen", "torus:dims=6x6,hosts=1", "-o", net], 0)
    expect(["route", "-q", "-R", "dfsssp", net, "-o", d, "--dumps", "default,ibdiagnet,ibdmchk"],
           0, r"deadlock: +free")
    f = lambda n: os.path.join(d, n)
    tables = [f("ibdiagnet2.lst"), f("ibdiagnet2.fdbs")]
    vls = ["--sl2vl", f("ibdiagnet2.sl2vl"), "--path-sl", f("ibr-paths.psl")]
    expect(["verify", "-q"] + tables, 0, r"deadlock: +CREDIT LOOP")
    expect(["verify", "-q"] + vls + tables, 0, r"deadlock: +free")
    native = jrun(["analyze", "-q", "--json", "-R", "dfsssp", net])
    read = jrun(["analyze", "-q", "--json"] + vls + tables)
    check(native["vls_used"] > 1 and read["vl_usage"] == native["vl_usage"],
          (read["vl_usage"], native["vl_usage"]))
    write("bad.sl2vl", "0x0002c90202000000 1 2 0x01 0x23\n")
    expect(["verify", "-q", "--sl2vl", path("bad.sl2vl")] + tables, 2, None,
           r"line 1: bad VLs of SL 4 and 5 .*\[SV005\]")
    write("bad.lst", "{ SW Ports:08 SystemGUID:1 NodeGUID:1 PortGUID:1 VenID:0 DevID:0 Rev:0 "
                     "{s} LID:0001 PN:01 } { CA Ports:01 SystemGUID:2 NodeGUID:2 PortGUID:3 "
                     "VenID:0 DevID:0 Rev:0 {h} LID:0002 PN:01 } PHY=5x LOG=ACT SPD=10\n")
    expect(["info", path("bad.lst")], 2, None, r"line 1: unknown width \"5x\" \[LS010\]")


def test_verify_large_dump():
    """Forwarding-table dumps are read in pieces: a dump far above
    IBR_MAX_INPUT_MB reads, and ibr verify holds much less than the dump."""
    topo = path("big-tree.topo")
    expect(["gen", "fattree:levels=3,radix=16", "-o", topo], 0)
    out = path("big-tree.d")
    expect(["route", "-q", "-R", "minhop", topo, "-o", out], 0)
    dump = os.path.join(out, "opensm-lfts.dump")
    size = os.path.getsize(dump)
    check(size > 20 << 20, "the dump is only %d bytes" % size)
    # the child's peak memory, measured in a process of its own
    probe = ("import os, resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, "
             "env=dict(os.environ, IBR_MAX_INPUT_MB='1'))\n"
             "sys.stdout.write('%d %d\\n' % (p.returncode, "
             "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
             "sys.stdout.write(p.stdout.decode())\n")
    p = subprocess.run([sys.executable, "-c", probe, IBR, "verify", topo, dump],
                       stdout=subprocess.PIPE, text=True, timeout=300)
    head, _, text = p.stdout.partition("\n")
    rc, rss_kb = (int(x) for x in head.split())
    check(rc == 0 and re.search(r"valid", text), p.stdout[-1500:])
    # reading the dump whole holds at least its size; ASan's shadow memory
    # would blur the measure
    if "asan" not in os.environ.get("LD_PRELOAD", "") and "ASAN_OPTIONS" not in os.environ:
        check(rss_kb * 1024 < size * 3 // 4,
              "ibr verify held %d KB for a %d-byte dump" % (rss_kb, size))
    # standard input reads in pieces too, to the same verdict
    with open(dump, "rb") as f:
        q = subprocess.run([IBR, "verify", topo, "-"], stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300,
                           env=dict(os.environ, IBR_MAX_INPUT_MB="1"))
    def verdict(t):
        return [ln for ln in t.splitlines() if not ln.startswith("lfts:")]
    check(q.returncode == 0 and verdict(q.stdout) == verdict(text),
          q.stdout[-800:] + q.stderr[-800:])

def main():
    global IBR, TMP
    if len(sys.argv) != 2:
        print("usage: test_cli.py PATH_TO_IBR", file=sys.stderr)
        return 2
    IBR = os.path.abspath(sys.argv[1])
    TMP = tempfile.mkdtemp(prefix="ibr-cli-test-")
    tests = [test_version_help, test_engines, test_params, test_gen_info, test_gen_errors,
             test_faults_and_lmc, test_route_outputs, test_route_dumps, test_route_lids,
             test_netfile_without_lids, test_db_csv_topology, test_verify, test_route_errors, test_guid_files,
             test_fallback_and_unroutable, test_route_summary, test_sl_files, test_trace,
             test_verify_dump_verdict, test_verify_fdbs, test_strict, test_dfsssp_beyond_cycle_breaking,
             test_not_a_topology,
             test_small_ones, test_failed_writes, test_readme_tour,
             test_messages, test_cli_codes, test_dor, test_file_engine, test_reroute, test_reroute_blocks,
             test_reroute_keeps_promise, test_reroute_dmodc,
             test_multicast,
             test_multicast_keeps_promise, test_sa_dump, test_port_facts, test_qos,
             test_ftree_connected_pairs, test_analyze_bound, test_analyze_lmc,
             test_ibdiagnet_files, test_verify_large_dump]
    tests += IO_TESTS
    # IBR_CLI_TESTS=name,name: run only those
    only = os.environ.get("IBR_CLI_TESTS")
    if only:
        tests = [t for t in tests if t.__name__ in only.split(",")]
    try:
        for t in tests:
            try:
                t()
                print("ok   %s" % t.__name__)
            except Exception:          # report every failing test
                FAILURES.append(t.__name__)
                print("FAIL %s\n%s" % (t.__name__, traceback.format_exc()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("%d of %d tests failed" % (len(FAILURES), len(tests)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
