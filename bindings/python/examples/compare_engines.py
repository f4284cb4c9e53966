#!/usr/bin/env python3
"""Compare routing engines on one fabric and print a table.

Generates a fabric (a fat tree by default), routes it with each engine
chain given on the command line, verifies and analyses every result, and
prints one row per chain: validity, path lengths, link load balance,
credit-loop freedom and the effective bisection bandwidth under shift and
random-permutation traffic.

Each chain argument is an engine chain optionally followed by routing
options, separated by blanks (quote the argument):

    compare_engines.py "minhop" "minhop scatter_ports=1 seed=42"
    compare_engines.py --fabric fattree:levels=3,radix=16 "ftree,updn" "updn lmc=1"
    compare_engines.py --fabric torus:dims=4x4,hosts=2 --faults 2 "minhop" "dor"

Words containing '=' are options (the keyword arguments of
ibroute.Topology.route: lmc, max_vls, seed, scatter_ports, port_shifting,
root_guids=0x..,0x.., ...); the others name engines.  Without chains it
compares "minhop" with "minhop scatter_ports=1 seed=42".

Run it from a build with IBROUTE_BUILD_DIR=<meson build dir> and
PYTHONPATH=bindings/python, or with ibroute installed.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Dict, List, Sequence, Tuple

import ibroute

DEFAULT_CHAINS = ["minhop", "minhop scatter_ports=1 seed=42"]
LIST_OPTIONS = {"root_guids", "cn_guids", "io_guids", "guid_routing_order"}
PAIR_OPTIONS = {"ignore_ports", "ids"}


def parse_value(text: str) -> int:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return 1
    if low in ("false", "no", "off"):
        return 0
    return int(text, 0)


def parse_chain(arg: str) -> Tuple[str, Dict[str, Any]]:
    """"ftree,updn lmc=1 root_guids=0x1,0x2" -> ("ftree,updn", {...})"""
    engines: List[str] = []
    options: Dict[str, Any] = {}
    for word in arg.split():
        if "=" not in word:
            engines.append(word)
            continue
        key, value = word.split("=", 1)
        if key in LIST_OPTIONS:
            options[key] = [parse_value(v) for v in value.split(",") if v]
        elif key in PAIR_OPTIONS:  # guid:n,guid:n
            options[key] = [tuple(parse_value(x) for x in item.split(":"))
                            for item in value.split(",") if item]
        elif key == "lmc" and value == "topo":
            options[key] = "topo"
        else:
            options[key] = parse_value(value)
    return ",".join(engines) or "minhop", options


def evaluate(topo: ibroute.Topology, label: str, chain: str, options: Dict[str, Any],
             n_random: int) -> Dict[str, Any]:
    row: Dict[str, Any] = {"label": label}
    start = time.perf_counter()
    try:
        result = topo.route(chain, **options)
    except ibroute.Error as e:
        row.update(engine="-", error=str(e))
        return row
    row["ms"] = (time.perf_counter() - start) * 1000.0
    with result:
        rep = result.verify()
        row.update(engine=result.engine, report=rep)
        try:
            with result.analyze(patterns=["shift", "permutation"], n_random=n_random,
                                seed=1) as analysis:
                row["analysis"] = analysis.summary
        except ibroute.Error as e:  # pragma: no cover - analysis is optional
            row["analysis_error"] = str(e)
    return row


COLUMNS = [
    ("chain", "<"), ("engine", "<"), ("ms", ">"), ("valid", ">"), ("avg hops", ">"),
    ("max", ">"), ("stretch", ">"), ("max load", ">"), ("load ratio", ">"),
    ("dl-free", ">"), ("shift EBB", ">"), ("perm EBB", ">"),
]


def cells(row: Dict[str, Any]) -> List[str]:
    if "error" in row:
        return [row["label"], "-", "-", "FAILED"] + ["-"] * (len(COLUMNS) - 4)
    rep = row["report"]
    an = row.get("analysis")
    dl = {True: "yes", False: "NO", None: "?"}[rep.deadlock_free]
    return [
        row["label"],
        row["engine"],
        f"{row['ms']:.1f}",
        f"{rep.pairs_ok}/{rep.pairs}" + ("" if rep.ok else " BROKEN"),
        f"{rep.avg_hops:.3f}",
        str(rep.max_hops),
        f"{rep.avg_stretch:.3f}",
        str(rep.max_link_load),
        f"{rep.load_imbalance:.3f}",
        dl,
        f"{an.shift.ebb:.3f}" if an else "-",
        f"{an.permutation.ebb:.3f}" if an else "-",
    ]


def print_table(rows: Sequence[Dict[str, Any]], out=sys.stdout) -> None:
    table = [[c for c, _ in COLUMNS]] + [cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    for n, line in enumerate(table):
        text = "  ".join(f"{v:{a}{w}}" for v, (_, a), w in zip(line, COLUMNS, widths))
        print(text.rstrip(), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)


def main(argv: Sequence[str] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("chains", nargs="*", help='engine chain and options, e.g. "minhop seed=1"')
    ap.add_argument("--fabric", default="fattree:levels=3,radix=8",
                    help="generator spec (default %(default)s)")
    ap.add_argument("--topo", help="an ibnetdiscover file instead of a generated fabric")
    ap.add_argument("--faults", type=int, default=0, help="random switch links to take down")
    ap.add_argument("--fault-seed", type=int, default=1)
    ap.add_argument("--random-patterns", type=int, default=20,
                    help="random permutations to evaluate (default %(default)s)")
    args = ap.parse_args(argv)

    chains = args.chains or DEFAULT_CHAINS
    if args.topo:
        with open(args.topo, "rb") as fh:
            fabric = ibroute.Fabric.from_ibnetdiscover(fh.read())
        source = args.topo
    else:
        fabric = ibroute.Fabric.from_spec(args.fabric)
        source = args.fabric
    with fabric:
        if args.faults:
            fabric.inject_faults(links=args.faults, seed=args.fault_seed)
        with fabric.freeze() as topo:
            print(f"{source}: {topo.switch_count} switches, {topo.endport_count} end ports, "
                  f"{sum(1 for _ in topo.links())} links"
                  + (f", {args.faults} down" if args.faults else ""))
            print()
            rows = []
            for arg in chains:
                chain, options = parse_chain(arg)
                rows.append(evaluate(topo, arg, chain, options, args.random_patterns))
    print_table(rows)
    print()
    for r in rows:
        if "error" in r:
            print(f"{r['label']}: {r['error']}")
    print("valid: end-port pairs routed correctly; stretch: routed / shortest hops;")
    print("load ratio: busiest link / mean link (all-to-all); EBB: effective bisection")
    print("bandwidth (1.0 = every flow gets a full link).")
    broken = [r["label"] for r in rows if "error" in r or not r["report"].ok]
    if broken:
        print(f"invalid routing from: {', '.join(broken)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
