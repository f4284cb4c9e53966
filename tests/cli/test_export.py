#!/usr/bin/env python3
"""ibr export: the routing in the input formats of CODES, SST/macro, SST
Merlin, Slurm and ORCS. usage: test_export.py PATH_TO_IBR

Each format is read back the way its consumer reads it: JSON with Python's
parser as SST/macro's nlohmann::json does, GraphML with networkx's
read_graphml as Merlin's topoAny.import_graph() does, YAML with a YAML
parser; CODES' .lft lines and Slurm's topology.conf against the grammar
their readers accept (CODES' fattree.c read_static_lft, topology.conf(5),
topology.yaml(5), Slurm's hostlist expressions). Then the exported tables
are compared with OpenSM's LFT dump of the same routing (`ibr route -o`),
an independent path through the library's dump writer, and the routes
are walked over the cabling of the ibnetdiscover text."""
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

# fabric, engine, faults (links,switches@seed): fat trees with and without
# faults (seed 1 fails a spine in the middle of the switch numbering, so the
# routers after it are renumbered in Merlin's graph), a torus (direct
# network), a random graph with faults
CASES = [
    ("fattree:levels=2,radix=8", "ftree", None),
    ("fattree:levels=3,radix=8", "dmodc", None),
    ("xgft:h=2,m=4.4,w=1.4", "updn", "3,1@1"),
    ("torus:dims=4x4,hosts=2", "minhop", None),
    ("random:switches=16,degree=4,hosts=2,seed=3", "minhop", "4@2"),
]


def ibr(*args):
    p = subprocess.run([IBR] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect(args, code=0, err_re=None):
    rc, out, err = ibr(*args)
    check(rc == code, "ibr %s: exit %d, expected %d\n%s%s"
          % (" ".join(args), rc, code, out[-1000:], err[-1000:]))
    if err_re:
        check(re.search(err_re, err, re.M), "ibr %s: stderr lacks /%s/: %s"
              % (" ".join(args), err_re, err))
    return out


# ---------------------------------------------------------------------------
# Independent views of the fabric and its tables

def read_topology(path):
    """The cabling of an ibnetdiscover text: {(node GUID, port): (node GUID,
    port)}, the switch GUIDs, and per CA port GUID (node GUID, port, host
    name). Down cables (marked "(down)") are left out."""
    links, switches, cas = {}, set(), {}
    node, kind = None, None
    with open(path) as f:
        for line in f:
            m = re.match(r'^(Switch|Ca)\s+\d+\s+"[SH]-([0-9a-f]+)"\s+#\s+"([^"]*)"', line)
            if m:
                kind, node = m.group(1), int(m.group(2), 16)
                if kind == "Switch":
                    switches.add(node)
                desc = m.group(3)
                continue
            m = re.match(r'^\[(\d+)\](?:\(([0-9a-f]+)\))?\s+"[SH]-([0-9a-f]+)"\[(\d+)\]', line)
            if m and node is not None:
                if "(down)" in line:
                    continue
                port = int(m.group(1))
                links[(node, port)] = (int(m.group(3), 16), int(m.group(4)))
                if kind == "Ca":
                    cas[int(m.group(2), 16)] = (node, port, desc.split()[0] if desc else "")
    # a switch whose cables are all down is not in the subnet
    switches &= {a for a, _ in links}
    return links, switches, cas


def read_lfts(path):
    """{switch GUID: {destination CA port GUID: output port}} of an OpenSM
    LFT dump (the comments name the destination of each LID)."""
    tables, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^Unicast lids .* guid (0x[0-9a-f]+)", line)
            if m:
                cur = tables.setdefault(int(m.group(1), 16), {})
                continue
            m = re.match(r"^0x[0-9a-f]+ (\d+) # Channel Adapter portguid (0x[0-9a-f]+)", line)
            if m and cur is not None:
                cur[int(m.group(2), 16)] = int(m.group(1))
    return tables


def route(spec, engine, faults, name):
    """Generate the fabric, route it, return (topology path, dump dir)."""
    topo = os.path.join(TMP, name + ".net")
    args = ["gen", spec, "-o", topo]
    if faults:
        spec_f, seed = faults.split("@")
        args += ["--faults", spec_f, "--seed", seed]
    expect(args)
    out = os.path.join(TMP, name + "-route")
    expect(["route", "-q", "-R", engine, topo, "-o", out, "--dumps", "default,fdbs"])
    return topo, out


def walk(links, tables, sw, dst_port_guid, cas, limit=64):
    """Switches a packet crosses from switch sw to the CA port (sw first),
    following the tables over the cabling; None when it gets lost."""
    node, port, _ = cas[dst_port_guid]
    path = [sw]
    for _ in range(limit):
        out = tables[sw].get(dst_port_guid)
        if out is None or (sw, out) not in links:
            return None
        rnode, rport = links[(sw, out)]
        if (rnode, rport) == (node, port):
            return path
        if rnode not in tables:
            return None
        sw = rnode
        path.append(sw)
    return None


# ---------------------------------------------------------------------------
# CODES

def parse_codes_lft(text, fname):
    """The lines CODES' read_static_lft() accepts: leading blanks, empty and
    '#' lines skipped; a hexadecimal GUID (strtoull base 16) ended by a
    blank, then a port in C notation (strtoull base 0) ended by a blank,
    '#' or the end. Returns {GUID: port}; raises on a line it rejects."""
    entries = {}
    for n, line in enumerate(text.split("\n"), 1):
        s = line.lstrip(" \t\r\f\v")
        if not s or s[0] == "#":
            continue
        m = re.match(r"(?:0[xX])?([0-9a-fA-F]+)([ \t].*|#.*|)$", s)
        check(m and m.group(2)[:1] in (" ", "\t"), "%s:%d: bad GUID: %r" % (fname, n, line))
        rest = m.group(2).lstrip(" \t")
        m2 = re.match(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([ \t#].*|)$", rest)
        check(m2, "%s:%d: bad port: %r" % (fname, n, line))
        guid = int(m.group(1), 16)
        check(guid not in entries, "%s:%d: GUID twice" % (fname, n))
        entries[guid] = int(m2.group(1), 0)
    return entries


def test_codes(name, topo, rdir, engine, links, switches, cas, tables):
    out = os.path.join(TMP, name + "-codes")
    expect(["export", "codes", topo, "-R", engine, "-o", out])
    files = sorted(os.listdir(out))
    check(all(re.fullmatch(r"0x[0-9a-f]{16}\.lft", f) for f in files), "file names %r" % files)
    check({int(f[2:18], 16) for f in files} == switches, "one file per switch")
    for f in files:
        with open(os.path.join(out, f)) as fh:
            got = parse_codes_lft(fh.read(), f)
        sw = int(f[2:18], 16)
        # one line per terminal (CODES sizes its table by the terminal count),
        # each port CODES uses as port - 1: 1-based like OpenSM's
        check(set(got) == set(cas), "%s: terminals %d, fabric %d" % (f, len(got), len(cas)))
        check(got == tables[sw], "%s: differs from OpenSM's dump of the same routing" % f)
        check(all(p >= 1 for p in got.values()), "%s: port 0 (CODES reads port - 1)" % f)
    # the same files from the dumps (OpenSM's LFT dump, its fdbs file)
    # instead of routing again
    for dump in ("opensm-lfts.dump", "opensm.fdbs"):
        out2 = os.path.join(TMP, name + "-codes-" + dump)
        expect(["export", "codes", topo, os.path.join(rdir, dump), "-o", out2])
        for f in files:
            with open(os.path.join(out, f)) as a, open(os.path.join(out2, f)) as b:
                la = [l for l in a.read().splitlines() if not l.startswith("#")]
                lb = [l for l in b.read().splitlines() if not l.startswith("#")]
                check(la == lb, "%s: the export of %s differs" % (f, dump))


# ---------------------------------------------------------------------------
# SST/macro

def test_sst_macro(name, topo, engine, links, switches, cas, tables):
    out = os.path.join(TMP, name + "-macro")
    expect(["export", "sst-macro", topo, "-R", engine, "-o", out])
    with open(os.path.join(out, "sstmacro-topology.json")) as f:
        t = json.load(f)
    with open(os.path.join(out, "sstmacro-routing.json")) as f:
        r = json.load(f)
    # what FileTopology reads: avg_num_hops, switches and nodes with outports
    # keyed by port numbers, each with destination and inport
    check(isinstance(t["avg_num_hops"], int) and t["avg_num_hops"] >= 1, "avg_num_hops")
    sws, nodes = t["switches"], t["nodes"]
    check(len(sws) == len(switches) and len(nodes) == len(cas), "counts")
    for kind, objs in (("switch", sws), ("node", nodes)):
        for n, o in objs.items():
            for p, c in o["outports"].items():
                check(str(int(p)) == p and isinstance(c["inport"], int),
                      "%s %s port %s" % (kind, n, p))
                d = c["destination"]
                check(d in sws or d in nodes, "%s %s: unknown destination %s" % (kind, n, d))
                back = (sws if d in sws else nodes)[d]["outports"].get(str(c["inport"]))
                check(back and back["destination"] == n and back["inport"] == int(p),
                      "%s %s port %s: the cable is not symmetric" % (kind, n, p))
    # the table router: a route from every switch to every node, through one
    # of its outports, equal to OpenSM's dump of the same routing
    routes = r["switches"]
    check(set(routes) == set(sws), "routing switches")
    for s, body in routes.items():
        rt = body["routes"]
        check(set(rt) == set(nodes), "%s: routes to %d of %d nodes" % (s, len(rt), len(nodes)))
        sw = int(s[len("switch-0x"):], 16)
        for n, port in rt.items():
            check(isinstance(port, int) and str(port) in sws[s]["outports"],
                  "%s -> %s: port %r is not an outport" % (s, n, port))
            check(tables[sw][int(n[len("port-0x"):], 16)] == port, "%s -> %s: differs" % (s, n))
    # following the exported tables over the exported cabling reaches every node
    for s in sws:
        for n in nodes:
            cur, seen = s, 0
            while cur != n:
                check(seen <= len(sws), "%s -> %s loops" % (s, n))
                cur = sws[cur]["outports"][str(routes[cur]["routes"][n])]["destination"]
                seen += 1


# ---------------------------------------------------------------------------
# SST Merlin anytopo

def test_sst_merlin(name, topo, engine, links, switches, cas, tables):
    import networkx as nx  # python3-networkx, as Merlin's anytopo itself
    out = os.path.join(TMP, name + "-merlin")
    expect(["export", "sst-merlin", topo, "-R", engine, "-o", out])
    g = nx.read_graphml(os.path.join(out, "anytopo.graphml"))
    # topoAny.import_graph(): undirected, string ids relabelled in order,
    # every vertex with an 'endpoints' count
    check(not g.is_directed(), "directed graph")
    order = list(g.nodes())
    check(order == [str(i) for i in range(len(order))], "node ids not 0..n-1 in order")
    g = nx.relabel_nodes(g, {v: i for i, v in enumerate(order)}, copy=True)
    check(all("endpoints" in g.nodes[v] for v in g.nodes), "a vertex without endpoints")
    check(sum(int(g.nodes[v]["endpoints"]) for v in g.nodes) == len(cas), "endpoint count")
    guid_of = {v: int(g.nodes[v]["guid"], 16) for v in g.nodes}
    check(set(guid_of.values()) == switches, "routers are not the switches")
    cables = sum(1 for (a, _), (b, _) in links.items() if a in switches and b in switches) // 2
    check(g.number_of_edges() == cables, "edges %d, cables %d" % (g.number_of_edges(), cables))
    with open(os.path.join(out, "anytopo-routing.json")) as f:
        doc = json.load(f)
    eps = doc["endpoints"]
    # anytopo numbers endpoints router by router in vertex order
    check([e["id"] for e in eps] == list(range(len(cas))), "endpoint ids")
    check([e["router"] for e in eps] == sorted(e["router"] for e in eps), "endpoint order")
    by_router = {}
    for e in eps:
        by_router.setdefault(e["router"], []).append(int(e["guid"], 16))
    vid = {guid: v for v, guid in guid_of.items()}
    table = {int(s): {int(d): [(w, p) for w, p in v] for d, v in ds.items()}
             for s, ds in doc["routing_table"].items()}
    for s in by_router:
        for d in by_router:
            if s == d:
                continue
            paths = table[s][d]
            check(abs(sum(w for w, _ in paths) - 1.0) < 1e-9, "%d->%d weights" % (s, d))
            for w, p in paths:
                check(p and p[-1] == d, "%d->%d: path %r does not end at %d" % (s, d, p, d))
                hops = [s] + p
                check(all(g.has_edge(a, b) for a, b in zip(hops, hops[1:])),
                      "%d->%d: path %r leaves the graph" % (s, d, p))
            # the same shares from OpenSM's dump, walked over the cabling
            ref = {}
            for guid in by_router[d]:
                path = walk(links, tables, guid_of[s], guid, cas)
                check(path is not None, "dump: %d -> %x lost" % (s, guid))
                key = tuple(vid[x] for x in path[1:])
                ref[key] = ref.get(key, 0) + 1
            got = {tuple(p): w for w, p in paths}
            check(set(got) == set(ref), "%d->%d: paths %r, dump %r" % (s, d, got, ref))
            for k, c in ref.items():
                check(abs(got[k] - c / len(by_router[d])) < 1e-12, "%d->%d: share" % (s, d))


# ---------------------------------------------------------------------------
# Slurm

def expand_hostlist(expr):
    """Slurm hostlist expressions: comma-separated names, each may hold one
    bracket of comma-separated numbers and ranges ("tux[0-3,12]"), the
    width of the first number of a range kept with leading zeros."""
    names, i, depth, cur = [], 0, 0, ""
    parts = []
    for c in expr:
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += c == "["
        depth -= c == "]"
        check(depth in (0, 1), "nested brackets in %r" % expr)
        cur += c
    parts.append(cur)
    for part in parts:
        m = re.fullmatch(r"([A-Za-z0-9._-]*)\[([0-9,-]+)\]([A-Za-z0-9._-]*)", part)
        if not m:
            check(re.fullmatch(r"[A-Za-z0-9._-]+", part), "bad host name %r" % part)
            names.append(part)
            continue
        for rng in m.group(2).split(","):
            a, _, b = rng.partition("-")
            b = b or a
            check(len(a) == len(b) or a == "0" or not a.startswith("0"), "range widths %r" % rng)
            for v in range(int(a), int(b) + 1):
                names.append("%s%0*d%s" % (m.group(1), len(a), v, m.group(3)))
        i += 1
    return names


def leaf_hosts(links, switches, cas):
    """{switch GUID: set of host names} of the switches with CA ports."""
    hosts = {}
    for guid, (node, port, host) in cas.items():
        sw = links.get((node, port))
        if sw:
            hosts.setdefault(sw[0], set()).add(host)
    return hosts


def switch_levels(links, switches, hosts):
    """Distance of each switch to the nearest switch with hosts."""
    level = {sw: 0 for sw in hosts}
    todo = list(hosts)
    while todo:
        nxt = []
        for sw in todo:
            for (a, _), (b, _) in links.items():
                if a == sw and b in switches and b not in level:
                    level[b] = level[sw] + 1
                    nxt.append(b)
        todo = nxt
    return level


def check_tree(sw_entries, links, switches, cas):
    """sw_entries: [(name, 'nodes'|'switches', [children])] of a tree: every
    host is listed under exactly one leaf, a switch cabled to one of its end
    ports (Slurm's topology/tree takes a node under one leaf only: a host
    of a rail-optimized tree has end ports on several leaves); every other
    switch lists exactly its defined, cabled neighbours one level down
    (levels counted from the leaves); a switch left out has no defined
    switch below it."""
    names = [n for n, _, _ in sw_entries]
    check(len(set(names)) == len(names), "a switch defined twice")
    check(all(len(n) <= 64 for n in names), "switch name over 64 characters")
    defined = set(names)
    by_name = {"ib%016x" % g: g for g in switches}
    hosts = leaf_hosts(links, switches, cas)
    level = switch_levels(links, switches, hosts)
    check(defined <= {"ib%016x" % g for g in level}, "switches outside the tree")
    covered = []
    for n, kind, kids in sw_entries:
        check(kids, "%s: lists nothing" % n)
        g = by_name[n]
        if kind == "nodes":
            check(level[g] == 0, "%s: nodes on a switch without end ports" % n)
            check(set(kids) <= hosts[g], "%s: a node not cabled to it" % n)
            covered += kids
        else:
            check(all(k in defined for k in kids), "%s: undefined child" % n)
    for g, lvl in level.items():
        down = {b[0] for a, b in links.items() if a[0] == g and b[0] in switches
                and level.get(b[0]) == lvl - 1 and "ib%016x" % b[0] in defined}
        ent = [e for e in sw_entries if e[0] == "ib%016x" % g]
        if lvl and ent:
            check({by_name[k] for k in ent[0][2]} == down,
                  "%s: children are not its defined neighbours one level down" % ent[0][0])
        elif lvl:
            check(not down, "ib%016x left out above defined switches" % g)
    check(len(covered) == len(set(covered)), "a node under two leaves")
    check(set(covered) == {h for _, _, h in cas.values()}, "not every node is in the tree")


def parse_topology_conf(text):
    """topology.conf(5), topology/tree: one switch a line, SwitchName= and
    either Switches= or Nodes= (hostlists), optional LinkSpeed=; '#'
    comments; parameter names case-insensitive."""
    entries = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        kv = {}
        for tok in line.split():
            k, eq, v = tok.partition("=")
            check(eq and v, "line %d: %r is not KEY=VALUE" % (n, tok))
            k = k.lower()
            check(k in ("switchname", "switches", "nodes", "linkspeed") and k not in kv,
                  "line %d: key %r" % (n, k))
            kv[k] = v
        check("switchname" in kv and ("switches" in kv) != ("nodes" in kv),
              "line %d: needs SwitchName and one of Switches, Nodes" % n)
        kind = "nodes" if "nodes" in kv else "switches"
        entries.append((kv["switchname"], kind, expand_hostlist(kv[kind])))
    return entries


def check_yaml(doc, links, switches, cas, want_tree):
    """topology.yaml(5): a list of topologies, 'topology' first, exactly one
    of block, flat, tree; blocks with block_sizes (each a power of two
    times the one before, every block at least the first) and blocks
    (block, nodes); trees with switches (switch, children or nodes)."""
    check(isinstance(doc, list) and doc, "not a list of topologies")
    kinds = []
    for t in doc:
        check(list(t)[0] == "topology", "'topology' is not the first attribute")
        types = [k for k in ("block", "flat", "tree") if k in t]
        check(len(types) == 1, "topology %s: types %r" % (t["topology"], types))
        check(set(t) <= {"topology", "cluster_default", "block", "flat", "tree"}, "keys %r" % t)
        kinds.append(types[0])
        if types[0] == "tree":
            ents = []
            for s in t["tree"]["switches"]:
                check(set(s) <= {"switch", "children", "nodes"} and "switch" in s, "switch %r" % s)
                kind = "nodes" if "nodes" in s else "switches"
                ents.append((s["switch"], kind, expand_hostlist(s.get("nodes") or s["children"])))
            check_tree(ents, links, switches, cas)
        if types[0] == "block":
            b = t["block"]
            sizes = b["block_sizes"]
            check(sizes and all(isinstance(x, int) and x > 0 for x in sizes), "block_sizes")
            for a, c in zip(sizes, sizes[1:]):
                check(c % a == 0 and (c // a) & (c // a - 1) == 0, "block sizes %r" % sizes)
            seen = set()
            for blk in b["blocks"]:
                nodes = expand_hostlist(blk["nodes"])
                check(len(nodes) >= sizes[0], "block %s below the base size" % blk["block"])
                check(not seen & set(nodes), "a node in two blocks")
                seen |= set(nodes)
            check(seen == {h for _, _, h in cas.values()}, "not every node is in a block")
    check(kinds == (["tree", "block"] if want_tree else ["block"]), "topologies %r" % kinds)
    check(sum(1 for t in doc if t.get("cluster_default")) == 1, "one cluster_default")


def test_slurm(name, topo, engine, links, switches, cas, tree):
    import yaml  # python3-yaml
    if tree:
        text = expect(["export", "slurm-conf", topo, "-R", engine])
        check_tree(parse_topology_conf(text), links, switches, cas)
    else:
        expect(["export", "slurm-conf", topo, "-R", engine], 2, r"topology/tree needs a tree")
    out = os.path.join(TMP, name + "-topology.yaml")
    expect(["export", "slurm-yaml", topo, "-R", engine, "-o", out])
    with open(out) as f:
        check_yaml(yaml.safe_load(f), links, switches, cas, tree)


# ---------------------------------------------------------------------------
# ORCS (the Oblivious Routing Congestion Simulator). Its simulator.cpp
# reads the file with libcgraph's agmemread(); hosts are the nodes whose
# name starts with 'H'; find_route() follows, from each node, the first
# out-edge whose "comment" names the destination (contains_target():
# tokens split on ", \t\n"; "*" matches every host). The file is read here
# with Graphviz's gvpr (the same libcgraph) where installed, and always
# with a reader of the DOT statements written from the Graphviz grammar.

def parse_dot_subset(text):
    """Nodes (in order) and out-edges {tail: [(head, comment)]} of a digraph
    written as ID statements and ID -> ID [comment="..."] statements, with
    // and /* */ comments; raises on anything else."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    m = re.fullmatch(r'\s*digraph\s+(\w+)\s*\{(.*)\}\s*', text, re.S)
    check(m, "not one non-strict digraph")
    ident = r'"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z_0-9]*)'
    nodes, edges = [], {}
    for stmt in m.group(2).split(";"):
        stmt = stmt.strip()
        if not stmt:
            continue
        e = re.fullmatch(r'(?:%s)\s*->\s*(?:%s)\s*\[\s*comment\s*=\s*"([^"\\]*)"\s*\]'
                         % (ident, ident), stmt)
        if e:
            a, b = e.group(1) or e.group(2), e.group(3) or e.group(4)
            for n in (a, b):
                if n not in nodes:
                    nodes.append(n)
            edges.setdefault(a, []).append((b, e.group(5)))
            continue
        n = re.fullmatch(ident, stmt)
        check(n, "not a DOT statement ORCS reads: %r" % stmt[:80])
        if (n.group(1) or n.group(2)) not in nodes:
            nodes.append(n.group(1) or n.group(2))
    return nodes, edges


def read_dot_gvpr(path):
    """The same through libcgraph: the nodes in agfstnode() order, each
    node's out-edges in agfstout() order, as ORCS walks them."""
    prog = ('N { edge_t e; printf("N\\t%s\\n", $.name);'
            ' for (e = fstout($); e; e = nxtout(e))'
            ' printf("E\\t%s\\t%s\\t%s\\n", e.tail.name, e.head.name, e.comment); }')
    p = subprocess.run(["gvpr", prog, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    check(p.returncode == 0 and not p.stderr, "gvpr: %s" % p.stderr[-500:])
    nodes, edges = [], {}
    for line in p.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "N":
            nodes.append(f[1])
        else:
            edges.setdefault(f[1], []).append((f[2], f[3]))
    return nodes, edges


def orcs_route(edges, src, dst, limit=64):
    """ORCS's find_route(): the nodes from src to dst, None when it stops."""
    path, node = [src], src
    while node != dst and len(path) < limit:
        for head, comment in edges.get(node, []):
            if comment == "*" or dst in re.split(r"[, \t\n]+", comment):
                node = head
                break
        else:
            return None
        if node in path:
            return None
        path.append(node)
    return path if node == dst else None


def test_orcs(name, topo, engine, links, switches, cas, tables):
    out = os.path.join(TMP, name + "-orcs.dot")
    expect(["export", "orcs", topo, "-R", engine, "-o", out])
    with open(out) as f:
        views = [parse_dot_subset(f.read())]
    if shutil.which("gvpr"):
        views.append(read_dot_gvpr(out))
    elif os.environ.get("CI") == "true":
        raise AssertionError("gvpr (Debian graphviz) missing under CI")
    host = {(node, port): "H%016x" % g for g, (node, port, _) in cas.items()}
    for nodes, edges in views:
        hosts = [n for n in nodes if n.startswith("H")]
        check(len(hosts) == len(set(hosts)) and set(hosts) == set(host.values()),
              "%s: ORCS's hosts are not the CA ports" % name)
        check({n for n in nodes if not n.startswith("H")} == {"S%016x" % s for s in switches},
              "%s: switches" % name)
        # each switch's out-edges: one per cable, each naming the hosts
        # OpenSM's dump of the same routing sends out of that port. libcgraph
        # orders a node's out-edges by head node, so ORCS's "first edge
        # naming the host" is sound only because each host is on one edge.
        for sw in switches:
            want = []
            for (a, port), (b, bport) in sorted(links.items()):
                if a != sw:
                    continue
                head = "S%016x" % b if b in switches else host.get((b, bport))
                dests = sorted("H%016x" % g for g, p in tables[sw].items() if p == port)
                want.append((head, ",".join(dests)))
            got = [(h, ",".join(sorted(c.split(",")) if c else "")) for h, c in
                   edges.get("S%016x" % sw, [])]
            check(sorted(got) == sorted(want), "%s: switch 0x%016x: edges %r, cabling and dump %r"
                  % (name, sw, got[:3], want[:3]))
        # every pair along ORCS's walk equals the dump's route
        for src, (snode, sport, _) in cas.items():
            first = links[(snode, sport)][0]
            for dst in cas:
                if dst == src:
                    continue
                path = orcs_route(edges, "H%016x" % src, "H%016x" % dst)
                ref = walk(links, tables, first, dst, cas)
                check(path and ref and path[1:-1] == ["S%016x" % s for s in ref],
                      "%s: %x -> %x: ORCS walks %r, the dump %r" % (name, src, dst, path, ref))


# ---------------------------------------------------------------------------

def test_formats():
    for i, (spec, engine, faults) in enumerate(CASES):
        name = "case%d" % i
        topo, rdir = route(spec, engine, faults, name)
        links, switches, cas = read_topology(topo)
        tables = read_lfts(os.path.join(rdir, "opensm-lfts.dump"))
        check(set(tables) >= switches, "%s: dump switches" % spec)
        test_codes(name, topo, rdir, engine, links, switches, cas, tables)
        test_sst_macro(name, topo, engine, links, switches, cas, tables)
        test_sst_merlin(name, topo, engine, links, switches, cas, tables)
        test_orcs(name, topo, engine, links, switches, cas, tables)
        tree = not spec.startswith(("torus", "random"))
        test_slurm(name, topo, engine, links, switches, cas, tree)


def test_hostlist():
    """Folded host lists expand to the names they fold (rail tree: eight
    HCAs a host, zero-padded host numbers)."""
    topo = os.path.join(TMP, "rail.net")
    expect(["gen", "rail:nodes=16,rails=4,radix=16", "-o", topo])
    links, switches, cas = read_topology(topo)
    text = expect(["export", "slurm-conf", topo, "-R", "ftree"])
    check(re.search(r"Nodes=node\d*\[", text), "no folded host list:\n" + text[:500])
    check_tree(parse_topology_conf(text), links, switches, cas)
    import yaml
    out = os.path.join(TMP, "rail.yaml")
    expect(["export", "slurm-yaml", topo, "-R", "ftree", "-o", out])
    with open(out) as f:
        check_yaml(yaml.safe_load(f), links, switches, cas, True)
    check(expand_hostlist("n[08-11],x,a[1,3-4]b") == ["n08", "n09", "n10", "n11", "x", "a1b",
                                                      "a3b", "a4b"], "expand_hostlist")


def ibnetdiscover(switches, cas, cables):
    """ibnetdiscover text: switches {name: nports}, CAs [name], cables
    [((name, port), (name, port))]; GUIDs numbered in order of listing."""
    guid = {n: 0x0002c90200000000 + i for i, n in enumerate(switches)}
    guid.update({n: 0x0002c90300000000 + (i << 8) for i, n in enumerate(cas)})
    ends = {}
    for a, b in cables:
        ends[a], ends[b] = b, a

    def far(n, p):
        r, rp = ends[(n, p)]
        pg = "(%x)" % (guid[r] + 1) if r in cas else ""
        return '"%s-%016x"[%d]%s\t\t# "%s"' % ("H" if r in cas else "S", guid[r], rp, pg, r)
    out = []
    for n, np in switches.items():
        out.append('switchguid=0x%x\nSwitch\t%d "S-%016x"\t\t# "%s" base port 0 lid 0 lmc 0'
                   % (guid[n], np, guid[n], n))
        out += ["[%d]\t%s" % (p, far(n, p)) for p in range(1, np + 1) if (n, p) in ends]
        out.append("")
    for n in cas:
        out.append('caguid=0x%x\nCa\t1 "H-%016x"\t\t# "%s"' % (guid[n], guid[n], n))
        out.append("[1](%x) \t%s" % (guid[n] + 1, far(n, 1)))
        out.append("")
    return "\n".join(out)


def test_tree_levels():
    """Spines cabled to each other are not each other's children, and a
    host on two leaves is in one block only."""
    sw = {"L0": 4, "L1": 4, "S0": 3, "S1": 3}
    cas = ["n1 a", "n2 a", "n3 a", "n1 b"]
    cables = [(("L0", 1), ("n1 a", 1)), (("L0", 2), ("n2 a", 1)), (("L1", 1), ("n3 a", 1)),
              (("L1", 2), ("n1 b", 1)), (("L0", 3), ("S0", 1)), (("L0", 4), ("S1", 1)),
              (("L1", 3), ("S0", 2)), (("L1", 4), ("S1", 2)), (("S0", 3), ("S1", 3))]
    topo = os.path.join(TMP, "levels.net")
    with open(topo, "w") as f:
        f.write(ibnetdiscover(sw, cas, cables))
    links, switches, cas_ = read_topology(topo)
    check(len(switches) == 4 and len(cas_) == 4, "crafted fabric: %r" % (cas_,))
    text = expect(["export", "slurm-conf", topo, "-R", "minhop"])
    check_tree(parse_topology_conf(text), links, switches, cas_)
    import yaml
    out = os.path.join(TMP, "levels.yaml")
    expect(["export", "slurm-yaml", topo, "-R", "minhop", "-o", out])
    with open(out) as f:
        check_yaml(yaml.safe_load(f), links, switches, cas_, True)


def codes_dot(leaves, spines, hosts):
    """A two-level fat tree in the form CODES' fattree.c writes with
    dump_topo=1: switch GUIDs ((level + 1) << 32) + id, terminal GUIDs
    (64 << 32) + id, switch cables written from both ends with the far port
    unknown ("P?"), terminal cables both ways. Also the cabling:
    {(switch name, port): far node name}."""
    lines, far = ["digraph G {"], {}
    for i in range(leaves):
        lines.append('\t"S_0_%d" [comment="0x%016x,radix=%d"];'
                     % (i, (1 << 32) + i, hosts + spines))
    for j in range(spines):
        sid = leaves + j
        lines.append('\t"S_1_%d" [comment="0x%016x,radix=%d,root_switch"];'
                     % (sid, (2 << 32) + sid, leaves))
    for t in range(leaves * hosts):
        lines.append('\t"H_%d" [comment="0x%016x"];' % (t, (64 << 32) + t))
    for i in range(leaves):
        for h in range(hosts):
            t = i * hosts + h
            lines.append('\t"S_0_%d" -> "H_%d" [comment="P%d->P1"];' % (i, t, h + 1))
            lines.append('\t"H_%d" -> "S_0_%d" [comment="P1->P%d"];' % (t, i, h + 1))
            far[("S_0_%d" % i, h + 1)] = "H_%d" % t
        for j in range(spines):
            lines.append('\t"S_0_%d" -> "S_1_%d" [comment="P%d->P?"];'
                         % (i, leaves + j, hosts + j + 1))
            far[("S_0_%d" % i, hosts + j + 1)] = "S_1_%d" % (leaves + j)
    for j in range(spines):
        for i in range(leaves):
            lines.append('\t"S_1_%d" -> "S_0_%d" [comment="P%d->P?"];' % (leaves + j, i, i + 1))
            far[("S_1_%d" % (leaves + j), i + 1)] = "S_0_%d" % i
    lines.append("}")
    return "\n".join(lines) + "\n", far


def test_codes_dot():
    """CODES' own topology dump, converted by scripts/codes-dot-to-
    ibnetdiscover.py and exported: the files carry CODES' switch and
    terminal GUIDs, and the tables walked over the dot file's cabling reach
    every terminal from every switch."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                          "codes-dot-to-ibnetdiscover.py")
    leaves, spines, hosts = 4, 2, 2
    text, far = codes_dot(leaves, spines, hosts)
    dot = os.path.join(TMP, "ftree.dot.0")
    with open(dot, "w") as f:
        f.write(text)
    p = subprocess.run([sys.executable, script, dot], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    check(p.returncode == 0, "converter: %s" % p.stderr)
    net = os.path.join(TMP, "codes.net")
    with open(net, "w") as f:
        f.write(p.stdout)
    out = os.path.join(TMP, "codes-dot-out")
    expect(["export", "codes", net, "-R", "ftree", "-o", out])
    guid = {}
    for line in text.splitlines():
        m = re.match(r'\t"([SH]_[0-9_]+)" \[comment="0x([0-9a-f]+)', line)
        if m:
            guid[m.group(1)] = int(m.group(2), 16)
    sw_names = [n for n in guid if n.startswith("S_")]
    terms = {guid[n]: n for n in guid if n.startswith("H_")}
    files = sorted(os.listdir(out))
    check(files == sorted("0x%016x.lft" % guid[n] for n in sw_names), "files %r" % files)
    tables = {}
    for n in sw_names:
        with open(os.path.join(out, "0x%016x.lft" % guid[n])) as f:
            tables[n] = parse_codes_lft(f.read(), n)
        check(set(tables[n]) == set(terms), "%s: not every CODES terminal" % n)
    for n in sw_names:
        for tg, tname in terms.items():
            cur, steps = n, 0
            while cur != tname:
                check(steps <= len(sw_names) and (cur, tables[cur][tg]) in far,
                      "%s -> %s: lost at %s" % (n, tname, cur))
                cur = far[(cur, tables[cur][tg])]
                steps += 1
    bad = os.path.join(TMP, "bad.dot")
    with open(bad, "w") as f:
        f.write(text.replace('"S_1_4" -> "S_0_0" [comment="P1->P?"];\n', ""))
    p = subprocess.run([sys.executable, script, bad], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    check(p.returncode == 2 and "lists 1 cables to S_1_4, S_1_4 lists 0 back" in p.stderr,
          "a one-sided cable: %r" % p.stderr)


PY_CHECK = r"""
import json, sys
import ibroute, ibroute.nx as inx
topo_path, engine, doc_path = sys.argv[1:]
f = ibroute.Fabric.from_ibnetdiscover(open(topo_path).read())
t = f.freeze()
r = t.route(engine)
g, table = inx.to_anytopo(r)
doc = json.load(open(doc_path))
cli = {int(s): {int(d): sorted((tuple(p), w) for w, p in v) for d, v in row.items()}
       for s, row in doc["routing_table"].items()}
py = {s: {d: sorted((tuple(p), w) for w, p in v) for d, v in row.items()}
      for s, row in table.items()}
assert cli.keys() == py.keys(), "sources"
for s in cli:
    assert cli[s].keys() == py[s].keys(), "destinations of %d" % s
    for d in cli[s]:
        a, b = cli[s][d], py[s][d]
        assert [p for p, _ in a] == [p for p, _ in b], "paths %d->%d" % (s, d)
        assert all(abs(x - y) < 1e-12 for (_, x), (_, y) in zip(a, b)), "weights %d->%d" % (s, d)
eps = [g.nodes[v]["endpoints"] for v in sorted(g.nodes)]
per = [0] * len(eps)
for e in doc["endpoints"]:
    per[e["router"]] += 1
assert eps == per, "endpoint counts"
print("same")
"""


def test_python_anytopo():
    """The Python form (ibroute.nx.to_anytopo) and ibr export sst-merlin,
    two implementations of the same table, agree."""
    lib = os.path.join(os.path.dirname(IBR), "libibroute.so")
    with open(lib, "rb") as f:
        if b"libasan.so" in f.read():
            print("skip test_python_anytopo: a sanitized library cannot be loaded by python")
            return
    bindings = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings",
                            "python")
    env = dict(os.environ, IBROUTE_LIBRARY=lib, PYTHONPATH=bindings, PYTHONDONTWRITEBYTECODE="1")
    for spec, engine, faults in CASES:
        topo, _ = route(spec, engine, faults, "py")
        out = os.path.join(TMP, "py-merlin")
        expect(["export", "sst-merlin", topo, "-R", engine, "-o", out])
        p = subprocess.run([sys.executable, "-c", PY_CHECK, topo, engine,
                            os.path.join(out, "anytopo-routing.json")], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        check(p.returncode == 0 and p.stdout.strip() == "same",
              "%s: python and ibr export differ:\n%s%s" % (spec, p.stdout, p.stderr[-2000:]))


def test_errors():
    topo = os.path.join(TMP, "err.net")
    expect(["gen", "fattree:levels=2,radix=4", "-o", topo])
    expect(["export", "bogus", topo], 2, r"unknown format 'bogus'.* \[CL034\]$")
    expect(["export", "codes", topo], 2, r"give the directory with -o DIR \[CL035\]$")
    expect(["export", "codes"], 2, r"expected FORMAT TOPOLOGY.* \[CL033\]$")
    rdir = os.path.join(TMP, "err-route")
    expect(["route", "-q", "-R", "ftree", topo, "-o", rdir])
    dump = os.path.join(rdir, "opensm-lfts.dump")
    expect(["export", "codes", topo, dump, "-R", "ftree", "-o", TMP], 2, r"-R and LFTS_DUMP exclude each other \[CL026\]$")
    # a table without a route to one host: no file the simulator would
    # reject (CODES asserts on a missing terminal, SST/macro aborts)
    with open(dump) as f:
        text = f.read()
    cut = re.sub(r"^0x0007 \d+ # Channel Adapter.*\n", "", text, count=1, flags=re.M)
    check(cut != text, "no LID 7 line to remove")
    bad = os.path.join(TMP, "cut.dump")
    with open(bad, "w") as f:
        f.write(cut)
    out = os.path.join(TMP, "cut-out")
    for fmt in ("codes", "sst-macro", "sst-merlin", "orcs"):
        expect(["export", fmt, topo, bad, "-o", out], 2, r"to LID 7 .*no route.* \[CL07[78]\]$")
    check(not os.path.exists(out) or not os.listdir(out), "files written for a bad table")
    # route's routing options are taken, its dump options are not
    expect(["export", "slurm-conf", topo, "-R", "ftree", "--dumps", "lfts"], 2,
           r"unknown option or missing value '--dumps'.* \[CL001\]$")
    a = expect(["export", "slurm-conf", topo, "-R", "updn", "--max-vls", "2", "--seed", "3"])
    b = expect(["export", "slurm-conf", topo, "-R", "updn"])
    check(a == b, "the Slurm tree depends on the cabling only")
    expect(["export", "slurm-conf", topo, "-R", "ftree", "--param", "ftree.bogus=1"], 2,
           r"has no setting 'bogus'")
    expect(["help", "export"], 0)


def main():
    global IBR, TMP
    IBR = os.path.abspath(sys.argv[1])
    TMP = tempfile.mkdtemp(prefix="ibr-export-")
    tests = [test_formats, test_hostlist, test_tree_levels, test_codes_dot, test_python_anytopo,
             test_errors]
    try:
        for t in tests:
            try:
                t()
                print("ok   %s" % t.__name__)
            except Exception:
                FAILURES.append(t.__name__)
                print("FAIL %s\n%s" % (t.__name__, traceback.format_exc()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    if FAILURES:
        print("%d failed: %s" % (len(FAILURES), ", ".join(FAILURES)))
        sys.exit(1)


if __name__ == "__main__":
    main()
