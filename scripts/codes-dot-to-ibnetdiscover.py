#!/usr/bin/env python3
"""Turn the topology CODES' fat-tree model dumps into ibnetdiscover text.

usage: codes-dot-to-ibnetdiscover.py DOT_FILE... > fabric.net

CODES (src/networks/model-net/fattree.c) writes its fat tree, when run with
dump_topo=1, as dot files routing_folder/<dot_file>.dot.<rank>, one per MPI
rank, with lines of these forms:

    "S_<level>_<id>" [comment="0x<switch GUID>,radix=<n>[,root_switch]"];
    "H_<id>" [comment="0x<terminal GUID>"];
    "S_<l>_<i>" -> "S_<l>_<j>" [comment="P<port>->P?"];   (each end writes its own)
    "S_<l>_<i>" -> "H_<id>" [comment="P<port>->P1"];     (and the reverse line)

The ibnetdiscover text keeps CODES' GUIDs: switch node GUIDs, and each
terminal as a one-port CA whose node and port GUID are the terminal GUID.
`ibr export codes fabric.net -R ENGINE -o routing_folder` then writes the
.lft files CODES reads with routing="static", and `ibr analyze` grades the
routing on the same fabric. CODES does not say which port of the far switch
a switch cable lands on ("P?"), so the k-th cable from A to B in A's lines is
joined to the k-th from B to A in B's: the output ports, all a forwarding
table holds, are CODES' own either way.
"""
import re
import sys

NODE = re.compile(r'^\s*"([SH]_[0-9_]+)"\s*\[comment="0x([0-9a-fA-F]+)(?:,radix=(\d+))?[^"]*"\];')
EDGE = re.compile(r'^\s*"([SH]_[0-9_]+)"\s*->\s*"([SH]_[0-9_]+)"\s*'
                  r'\[comment="P(\d+)->P(\d+|\?)"\];')


def parse(lines):
    """({name: (GUID, radix)}, [(a, port a, b, port b or None)])."""
    nodes, edges = {}, []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.strip().startswith(("//", "#", "digraph", "graph", "{", "}")):
            continue
        m = NODE.match(line)
        if m:
            nodes[m.group(1)] = (int(m.group(2), 16), int(m.group(3) or 1))
            continue
        m = EDGE.match(line)
        if m:
            far = None if m.group(4) == "?" else int(m.group(4))
            edges.append((m.group(1), int(m.group(3)), m.group(2), far))
            continue
        raise ValueError("line %d: not a CODES fat-tree dot line: %r" % (n, line.rstrip()))
    return nodes, edges


def cables(nodes, edges):
    """{(name, port): (name, port)} from both ends' lines."""
    ends = {}
    pending = {}  # (a, b) -> ports of a toward b whose far port is unknown
    for a, pa, b, pb in edges:
        for x in (a, b):
            if x not in nodes:
                raise ValueError("link to %s, which has no node line" % x)
        if a.startswith("H_"):
            continue  # a terminal's line repeats its switch's
        if pb is not None:
            ends[(a, pa)], ends[(b, pb)] = (b, pb), (a, pa)
        else:
            pending.setdefault((a, b), []).append(pa)
    for (a, b), ports in pending.items():
        if a > b:
            continue
        back = pending.get((b, a), [])
        if len(back) != len(ports):
            raise ValueError("%s lists %d cables to %s, %s lists %d back"
                             % (a, len(ports), b, b, len(back)))
        for pa, pb in zip(sorted(ports), sorted(back)):
            ends[(a, pa)], ends[(b, pb)] = (b, pb), (a, pa)
    return ends


def write(nodes, ends, out):
    def ref(name, port):
        guid = nodes[name][0]
        if name.startswith("H_"):
            return '"H-%016x"[1](%x)\t\t# "%s"' % (guid, guid, name)
        return '"S-%016x"[%d]\t\t# "%s"' % (guid, port, name)

    for name in sorted(nodes, key=lambda k: nodes[k][0]):
        guid, radix = nodes[name]
        if name.startswith("S_"):
            nports = max([radix] + [p for (n, p) in ends if n == name])
            out.write('switchguid=0x%x\nSwitch\t%d "S-%016x"\t\t# "%s" base port 0 lid 0 lmc 0\n'
                      % (guid, nports, guid, name))
            for p in range(1, nports + 1):
                if (name, p) in ends:
                    out.write("[%d]\t%s\n" % (p, ref(*ends[(name, p)])))
        else:
            out.write('caguid=0x%x\nCa\t1 "H-%016x"\t\t# "%s"\n' % (guid, guid, name))
            if (name, 1) in ends:
                out.write("[1](%x) \t%s\n" % (guid, ref(*ends[(name, 1)])))
        out.write("\n")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if len(argv) >= 2 else 2
    lines = []
    for path in argv[1:]:
        with open(path) as f:
            lines += f.read().splitlines()
    try:
        nodes, edges = parse(lines)
        ends = cables(nodes, edges)
    except ValueError as e:
        sys.stderr.write("codes-dot-to-ibnetdiscover: %s\n" % e)
        return 2
    write(nodes, ends, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
