#!/usr/bin/env python3
"""ibr report in a real browser: usage: test_report.py PATH_TO_IBR [big]

Renders the page in headless Chromium (Debian's chromium-headless-shell or
chromium) and checks: a screenshot is written and is not blank; the
browser logs no console message (the page logs none of its own, so any is
an error); the page's script ran to its end (body data-rendered="ok");
every number the page shows (elements with data-path) equals the embedded
JSON; the embedded analysis equals `ibr analyze --json` on the same input
and the verdict equals `ibr verify` of the dumped tables; the page loads
nothing from the network. With "big", the same on the 11,664-host
three-level fat tree (without the fault sweep).

Without a browser the test is skipped (exit 77), except under CI=true,
where it fails."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import zlib

IBR = None
TMP = None
BROWSER = None
FAILURES = []


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def ibr(*args, code=0):
    p = subprocess.run([IBR] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=900)
    check(p.returncode == code, "ibr %s: exit %d, expected %d\n%s"
          % (" ".join(args), p.returncode, code, p.stderr[-2000:]))
    return p.stdout


def browser(*args):
    base = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--user-data-dir=" + os.path.join(TMP, "profile"), "--enable-logging=stderr",
            "--v=0"]
    p = subprocess.run(base + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


class Page(html.parser.HTMLParser):
    """The numbers a rendered page shows (data-path elements) and its data block."""

    def __init__(self):
        super().__init__()
        self.stack, self.shown, self.data, self.body = [], [], None, {}
        self.in_data = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "script" and a.get("id") == "data":
            self.in_data, self.data = True, ""
        if tag in ("br", "meta", "link", "img", "input", "hr"):
            return
        self.stack.append([a.get("data-path"), ""])

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_data = False
        if tag in ("br", "meta", "link", "img", "input", "hr") or not self.stack:
            return
        path, text = self.stack.pop()
        if path is not None:
            self.shown.append((path, text))
        if self.stack:
            self.stack[-1][1] += text

    def handle_data(self, d):
        if self.in_data:
            self.data += d
        if self.stack:
            self.stack[-1][1] += d


def lookup(data, path):
    v = data
    for k in path.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    return v


def same(shown, value):
    """The page shows integers exactly and other numbers to 6 digits."""
    if value is None:
        return shown == "-"
    if isinstance(value, bool):
        return shown == ("yes" if value else "no")
    if isinstance(value, int):
        return shown == str(value)
    if isinstance(value, float):
        try:
            x = float(shown)
        except ValueError:
            return False
        return abs(x - value) <= 5e-6 * max(abs(value), 1e-300) or float("%.6g" % value) == x
    return shown == str(value)


def png_not_blank(path):
    """A PNG whose decoded scanlines hold more than a handful of byte values."""
    raw = open(path, "rb").read()
    check(raw[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    pos, idat = 8, b""
    while pos < len(raw):
        n = int.from_bytes(raw[pos:pos + 4], "big")
        kind = raw[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += raw[pos + 8:pos + 8 + n]
        pos += 12 + n
    pixels = zlib.decompress(idat)
    distinct = len(set(pixels[i] for i in range(0, len(pixels), 7)))
    check(distinct > 40, "screenshot looks blank (%d distinct byte values)" % distinct)


def render(html_path, width=1400, height=2400):
    """Screenshot and DOM of the page; checks both and the console."""
    png = html_path + ".png"
    url = "file://" + os.path.abspath(html_path)
    rc, out, err = browser("--screenshot=" + png, "--window-size=%d,%d" % (width, height), url)
    check(rc == 0 and os.path.exists(png), "screenshot failed: %s" % err[-2000:])
    png_not_blank(png)
    console = [l for l in err.splitlines() if ":CONSOLE" in l]
    check(not console, "console messages:\n" + "\n".join(console))
    rc, dom, err = browser("--dump-dom", url)
    check(rc == 0, "dump-dom failed: %s" % err[-2000:])
    console = [l for l in err.splitlines() if ":CONSOLE" in l]
    check(not console, "console messages:\n" + "\n".join(console))
    page = Page()
    page.feed(dom)
    check(page.body.get("data-rendered") == "ok",
          "the page's script did not finish: %r" % page.body.get("data-rendered"))
    data = json.loads(page.data)
    check(len(page.shown) > 40, "only %d numbers shown" % len(page.shown))
    for path, text in page.shown:
        check(same(text.strip(), lookup(data, path)),
              "page shows %r for %s, the JSON holds %r" % (text, path, lookup(data, path)))
    return data, {p for p, _ in page.shown}


def self_contained(path):
    text = open(path).read()
    check(not re.search(r"<(link|img|iframe|object|embed)\b", text, re.I), "external element")
    check(not re.search(r"\bsrc\s*=|@import|url\(", text, re.I), "loads a resource")
    urls = set(re.findall(r"https?://[^\s\"'<>]+", text))
    check(urls <= {"http://www.w3.org/2000/svg"}, "network addresses: %r" % urls)


def families(a):
    return [k for k, v in a.items() if isinstance(v, dict) and "ebb" in v]


def check_against_cli(data, shown, topo, engine, opts):
    want = json.loads(ibr("analyze", topo, "-R", engine, "--json", *opts))
    check(data["analysis"] == want, "embedded analysis differs from ibr analyze --json")
    for f in families(want):
        for k in ("ebb", "max_congestion", "ebb_bound"):
            check("analysis.%s.%s" % (f, k) in shown, "%s %s not shown" % (f, k))
    d = os.path.join(TMP, "dump-" + engine)
    ibr("route", "-R", engine, topo, "-o", d, "--dumps", "lfts", "--no-verify")
    p = subprocess.run([IBR, "verify", topo, os.path.join(d, "opensm-lfts.dump"), "--json"],
                       stdout=subprocess.PIPE, text=True)
    v = json.loads(p.stdout)["verify"]
    for k in ("valid", "deadlock_free", "pairs", "pairs_ok"):
        check(data["verify"][k] == v[k], "%s: report %r, ibr verify %r" % (k, data["verify"][k], v[k]))
    check("verify.valid" in shown and "verify.deadlock_free" in shown, "verdict not shown")


def test_fat_tree_with_sweep():
    topo = os.path.join(TMP, "ft.topo")
    ibr("gen", "xgft:h=2,m=8.8,w=1.8", "-o", topo)
    out = os.path.join(TMP, "ft.html")
    opts = ["--random", "10", "--seed", "4", "--threads", "2"]
    ibr("report", topo, "-R", "dmodc", "-o", out, "--sweep", "--cables", "6", "--k-max", "3",
        "--trials", "3", *opts)
    self_contained(out)
    data, shown = render(out)
    check_against_cli(data, shown, topo, "dmodc", opts)
    check(data["verify"]["valid"] is True and data["verify"]["deadlock_free"] is True, "verdict")
    sw = data["sweep"]
    check(len(sw["faults"]) == 6 and [p["k"] for p in sw["curve"]] == [1, 2, 3], "sweep")
    check("sweep.faults.0.drop.shift" in shown and "sweep.curve.2.min.shift" in shown,
          "sweep numbers not shown")
    # two levels: up and down links, each as many as the cables, every one
    # carrying the same all-to-all load on this full tree
    lv = {l["name"]: l for l in data["link_levels"]}
    check(set(lv) == {"0 -> 1 up", "1 -> 0 down"}, lv.keys())
    check(all(l["links"] == 64 and sum(l["bins"]) == 64 for l in lv.values()), lv)
    check(data["limiting"][0]["load"] == data["analysis"]["max_link_load"], "limiting")


def test_torus_deadlock_and_dump():
    # minhop on a ring of 6 closes credit loops: the page must say so
    topo = os.path.join(TMP, "ring.topo")
    ibr("gen", "torus:dims=6,hosts=1", "-o", topo)
    out = os.path.join(TMP, "ring.html")
    ibr("report", topo, "-R", "minhop", "-o", out, "--random", "5", "--threads", "2")
    data, shown = render(out, 1200, 1800)
    check(data["verify"]["deadlock_free"] is False, "minhop on a ring is not deadlock-free")
    # tables from a dump give the same analysis
    d = os.path.join(TMP, "ringdump")
    ibr("route", "-R", "minhop", topo, "-o", d, "--dumps", "lfts", "--no-verify")
    out2 = os.path.join(TMP, "ring2.html")
    ibr("report", topo, os.path.join(d, "opensm-lfts.dump"), "-o", out2, "--random", "5",
        "--threads", "2")
    data2, _ = render(out2, 1200, 1800)
    for k in families(data["analysis"]):
        check(data2["analysis"][k] == data["analysis"][k], "dump vs memory: %s" % k)


def coords_and_cables(text):
    """Switch coordinates ("M(x,y)" / "T(x,y)") and directed switch cables of a generated file."""
    coord, cables, cur = {}, [], None
    for line in text.splitlines():
        m = re.match(r'Switch\s+\d+\s+"S-([0-9a-f]+)"\s+# "\w\(([\d,]+)\)"', line)
        if m:
            cur = m.group(1)
            coord[cur] = tuple(int(x) for x in m.group(2).split(","))
            continue
        m = re.match(r'\[\d+\]\s+"S-([0-9a-f]+)"', line)
        if m and cur:
            cables.append((cur, m.group(1)))
        if not line.strip():
            cur = None
    return coord, cables


def test_mesh_dimensions_and_workloads():
    # On a mesh every minimal route from a to b crosses |a_d - b_d| links of
    # dimension d, so all-to-all over one host per switch puts
    # sum |a_d - b_d| flows on dimension d's links, whatever the routing.
    topo = os.path.join(TMP, "mesh.topo")
    ibr("gen", "mesh:dims=4x5,hosts=1", "-o", topo)
    coord, cables = coords_and_cables(open(topo).read())
    check(len(coord) == 20 and len(cables) == 2 * (3 * 5 + 4 * 4), "mesh file: %d" % len(cables))
    out = os.path.join(TMP, "mesh.html")
    opts = ["--random", "4", "--threads", "2", "--workloads", "ring,a2a,grid", "--grid", "4x5",
            "--top-links", "3"]
    ibr("report", topo, "-R", "minhop", "-o", out, *opts)
    data, shown = render(out, 1400, 2600)
    check_against_cli(data, shown, topo, "minhop", opts)
    want = {}
    for d in range(2):
        links = sum(1 for a, b in cables if coord[a][d] != coord[b][d])
        load = sum(abs(p[d] - q[d]) for p in coord.values() for q in coord.values())
        want[(links, load)] = d
    dims = data["link_dims"]
    check(len(dims) == 2, "dimensions: %r" % [r["name"] for r in dims])
    got = {}
    for i, r in enumerate(dims):
        total = round(r["mean"] * r["links"])
        got[(r["links"], total)] = i
        check(sum(r["bins"]) == r["links"], "bins of %s" % r["name"])
        for k in ("links", "min", "mean", "max"):
            check("link_dims.%d.%s" % (i, k) in shown, "link_dims.%d.%s not shown" % (i, k))
    check(set(got) == set(want), "per-dimension links and loads %r, expected %r" % (got, want))
    check(max(r["max"] for r in dims) == data["analysis"]["max_link_load"], "max load")
    # the workloads on the page are ibr analyze's, with eBB, bound and limiting links shown
    wl = data["analysis"]["workloads"]
    check([w["name"] for w in wl] == ["ring", "all_to_all", "grid"], [w["name"] for w in wl])
    for i, w in enumerate(wl):
        for k in ("ebb", "ebb_bound", "max_congestion"):
            check("analysis.workloads.%d.%s" % (i, k) in shown, "workload %s %s" % (w["name"], k))
        check(0 < len(w["limiting_links"]) <= 3, "limiting links of %s" % w["name"])
        check("analysis.workloads.%d.limiting_links.0.flows" % i in shown, "limiting links shown")


def test_fat_tree_has_no_dimensions():
    topo = os.path.join(TMP, "ft2.topo")
    ibr("gen", "fattree:levels=2,radix=8", "-o", topo)
    out = os.path.join(TMP, "ft2.html")
    ibr("report", topo, "-R", "minhop", "-o", out, "--random", "2", "--threads", "2")
    data = json.loads(re.search(r'id="data">\n(.*?)\n</script>', open(out).read(), re.S)
                      .group(1).replace("<\\/", "</"))
    check(data["link_dims"] == [] and len(data["link_levels"]) == 2, "fat tree rows")


def big_fat_tree():
    spec = "gen:xgft:h=3,m=18.18.36,w=1.18.18"
    out = os.path.join(TMP, "big.html")
    opts = ["--random", "20", "--threads", "2"]
    ibr("report", spec, "-R", "dmodc", "-o", out, "-q", *opts)
    self_contained(out)
    data, shown = render(out)
    check(data["analysis"]["endports"] == 11664, "11,664 hosts")
    check(data["verify"]["valid"] is True and data["verify"]["deadlock_free"] is True, "verdict")
    check([l["name"] for l in data["link_levels"]] ==
          ["0 -> 1 up", "1 -> 2 up", "2 -> 1 down", "1 -> 0 down"], data["link_levels"])


def find_browser():
    for name in ("chromium-headless-shell", "chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    global IBR, TMP, BROWSER
    IBR = os.path.abspath(sys.argv[1])
    BROWSER = find_browser()
    if not BROWSER:
        if os.environ.get("CI") == "true":
            print("FAIL: no headless Chromium (scripts/deps.sh installs chromium-headless-shell)")
            return 1
        print("SKIP: no headless Chromium (chromium-headless-shell or chromium)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
        tests = sorted((n, f) for n, f in globals().items() if n.startswith("test_"))
        if "big" in sys.argv[2:]:
            tests = [("big_fat_tree", big_fat_tree)]
        for name, fn in tests:
            if callable(fn):
                try:
                    fn()
                    print("ok   %s" % name)
                except Exception:
                    FAILURES.append(name)
                    print("FAIL %s\n%s" % (name, traceback.format_exc()))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
