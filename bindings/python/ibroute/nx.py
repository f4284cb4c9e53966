"""Conversions between ibroute fabrics and networkx graphs (optional).

Needs networkx (Debian: python3-networkx); importing this module without it
raises ImportError.

:func:`to_networkx` turns a :class:`~ibroute.Topology` (or a
:class:`~ibroute.Fabric`) into a ``networkx.MultiGraph`` whose nodes are the
node indices, with attributes

- ``type``: "switch", "ca" or "router"; ``guid``, ``sysimg_guid``,
  ``desc``, ``nports``;
- ``port_guids``: {port: GUID} (port 0 only for a switch);
- ``lids``: {port: (base LID, LMC)} for ports that have LIDs;
- ``switch``: the switch index in a Topology (None for other nodes and for
  fabrics),

and one edge per cable (parallel cables are parallel edges) with
``nodes`` = (a, b), ``ports`` = (port on a, port on b), and the link's
``state``, ``width`` and ``speed``, like ``type`` as lower-case names (str):
``state`` "active" or "down", ``width`` "1x", "2x", "4x", "8x", "12x" or
"unknown", ``speed`` "sdr", "ddr", "qdr", "fdr10", "fdr", "edr", "hdr",
"ndr", "xdr" or "unknown" (:class:`~ibroute.LinkState`,
:class:`~ibroute.LinkWidth`, :class:`~ibroute.LinkSpeed` turn them back:
``LinkSpeed[speed.upper()]``; a value none of them names stays an int).
Every attribute is a plain str, int, tuple
or dict, so GraphML and JSON writers take the graph as it is.

:func:`from_networkx` builds a :class:`~ibroute.Fabric` from a graph.  When
every node has a ``type`` attribute the graph is taken as a fabric (the
attributes above are honoured when present: GUIDs, port numbers, states,
LIDs; ``state``, ``width`` and ``speed`` may also be the enum members or
their int values); otherwise every node is a switch and
``hosts_per_switch`` CAs are added to each.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, Hashable, List, Optional, Tuple, Union

with warnings.catch_warnings():
    # Debian's networkx 2.8 warns at import about optional packages it lacks
    warnings.simplefilter("ignore", ImportWarning)
    import networkx

from ._capi import LinkSpeed, LinkState, LinkWidth, NodeType
from ._core import Context, Fabric, Result, Topology, _Nodes

__all__ = ["to_networkx", "from_networkx", "routing_to_networkx", "to_anytopo",
           "SWITCH_GUID_BASE", "CA_GUID_BASE"]

#: GUID of the n-th generated switch is SWITCH_GUID_BASE + n.
SWITCH_GUID_BASE = 0x0002C90210000000
#: GUID of the n-th generated CA or router is CA_GUID_BASE + (n << 8); its
#: port GUIDs are that plus the port number.
CA_GUID_BASE = 0x0002C90310000000

_TYPE_NAMES = {NodeType.SWITCH: "switch", NodeType.CA: "ca", NodeType.ROUTER: "router"}


def to_networkx(obj: Union[Topology, Fabric], include_down: bool = True) -> "networkx.MultiGraph":
    """A MultiGraph of the nodes and cables of *obj* (see the module doc).
    With ``include_down=False`` down links are left out."""
    if not isinstance(obj, _Nodes):
        raise TypeError(f"expected an ibroute Topology or Fabric, not {type(obj).__name__}")
    g = networkx.MultiGraph()
    is_topo = isinstance(obj, Topology)
    for info in obj.nodes():
        first = 0 if info.type == NodeType.SWITCH else 1
        last = 0 if info.type == NodeType.SWITCH else info.nports
        port_guids = {}
        lids = {}
        for p in range(first, info.nports + 1):
            pi = obj.port_info(info.index, p)
            if p <= last:
                port_guids[p] = pi.guid
            if pi.lid:
                lids[p] = (pi.lid, pi.lmc)
        g.add_node(info.index, type=_TYPE_NAMES.get(info.type, str(int(info.type))),
                   guid=info.node_guid, sysimg_guid=info.sysimg_guid, desc=info.desc,
                   nports=info.nports, port_guids=port_guids, lids=lids,
                   switch=obj.node_switch(info.index) if is_topo else None)
    for link in obj.links():
        if not include_down and link.state != LinkState.ACTIVE:
            continue
        g.add_edge(link.node_a, link.node_b, nodes=(link.node_a, link.node_b),
                   ports=(link.port_a, link.port_b), state=_name(LinkState, link.state),
                   width=_name(LinkWidth, link.width), speed=_name(LinkSpeed, link.speed))
    return g


def routing_to_networkx(result: Result, include_down: bool = False) -> "networkx.MultiGraph":
    """:func:`to_networkx` of the result's topology with its forwarding
    tables on the switch nodes: ``lft`` = {destination LID: output port}
    for every LID the switch routes (0 = the switch itself; LIDs without a
    route are left out). Down links are left out unless *include_down*.
    :meth:`ibroute.Result.to_networkx` calls this."""
    if not isinstance(result, Result):
        raise TypeError(f"expected an ibroute Result, not {type(result).__name__}")
    topo = result.topology
    g = to_networkx(topo, include_down=include_down)
    for sw in range(topo.switch_count):
        table = bytes(result.lft(sw))
        g.nodes[topo.switch_node(sw)]["lft"] = {lid: port for lid, port in enumerate(table)
                                                if lid and port != 255}
    return g


def _anytopo_parts(result: Result):
    """The live switches (an active cable each), in switch index order, and
    the end ports (a LID, an active cable to a switch) grouped by switch:
    {switch index: [(node, port, port GUID, LID, description)]}."""
    topo = result.topology
    live, eps = [], {}
    for sw in range(topo.switch_count):
        node = topo.switch_node(sw)
        if any(p.cabled and p.state == LinkState.ACTIVE for p in topo.ports(node)[1:]):
            live.append(sw)
    for info in topo.nodes():
        if info.type == NodeType.SWITCH:
            continue
        for p in range(1, info.nports + 1):
            pi = topo.port_info(info.index, p)
            if not pi.lid or pi.remote_node is None or pi.state != LinkState.ACTIVE:
                continue
            sw = topo.node_switch(pi.remote_node)
            if sw is not None:
                eps.setdefault(sw, []).append((info.index, p, pi.guid, pi.lid, info.desc))
    return live, eps


def _walk(result: Result, sw: int, node: int, port: int, lid: int) -> List[int]:
    """Switch indexes a packet crosses after switch *sw* toward LID *lid*
    (end port *node*/*port*); ValueError when the route breaks."""
    topo = result.topology
    path: List[int] = []
    for _ in range(topo.switch_count + 1):
        out = result.lft_port(sw, lid)
        pi = topo.port_info(topo.switch_node(sw), out) if 0 < out < 255 else None
        if pi is None or pi.remote_node is None or pi.state != LinkState.ACTIVE:
            raise ValueError(f"switch {sw}: no route to LID {lid}")
        if (pi.remote_node, pi.remote_port) == (node, port):
            return path
        nxt = topo.node_switch(pi.remote_node)
        if nxt is None:
            raise ValueError(f"switch {sw}: the route to LID {lid} reaches another end port")
        path.append(nxt)
        sw = nxt
    raise ValueError(f"the route to LID {lid} loops")


def to_anytopo(result: Result) -> Tuple["networkx.MultiGraph", Dict[int, Dict[int, list]]]:
    """SST Merlin's anytopo input for the routing of *result*: ``(graph,
    routing_table)``. The graph has one node per switch with an active
    cable, numbered 0.. in switch index order, with ``endpoints`` (its end
    port count), ``guid`` and ``description``, and one edge per active
    switch cable; give it to ``topoAny.import_graph()``. Merlin numbers the
    endpoints router by router, so endpoint k is the k-th end port in that
    order. ``routing_table[src][dst]`` = ``[(weight, [hop, ..., dst])]``
    for the routers with endpoints, the form ``topoAny`` passes to its
    ``sourceRoutingPlugin``: the distinct paths of the tables from *src*
    to the end ports of *dst*, each weighted by the share of those end
    ports it reaches (an InfiniBand table routes per destination port,
    Merlin's per destination router). ``ibr export sst-merlin`` writes the
    same two as files. ValueError when a route is missing."""
    topo = result.topology
    live, eps = _anytopo_parts(result)
    rid = {sw: i for i, sw in enumerate(live)}
    g = networkx.MultiGraph()
    for i, sw in enumerate(live):
        info = topo.node_info(topo.switch_node(sw))
        g.add_node(i, endpoints=len(eps.get(sw, [])), guid=info.node_guid,
                   description=info.desc)
    for link in topo.links():
        a, b = topo.node_switch(link.node_a), topo.node_switch(link.node_b)
        if a is not None and b is not None and a != b and link.state == LinkState.ACTIVE:
            g.add_edge(rid[a], rid[b], ports=(link.port_a, link.port_b))
    table: Dict[int, Dict[int, list]] = {}
    srcs = [sw for sw in live if eps.get(sw)]
    for s in srcs:
        row = table[rid[s]] = {}
        for d in srcs:
            if d == s:
                continue
            shares: Dict[Tuple[int, ...], int] = {}
            for node, port, _guid, lid, _desc in eps[d]:
                key = tuple(rid[x] for x in _walk(result, s, node, port, lid))
                shares[key] = shares.get(key, 0) + 1
            row[rid[d]] = [(n / len(eps[d]), list(path)) for path, n in shares.items()]
    return g, table


def _name(cls: type, value: int) -> Union[str, int]:
    """The lower-case name of an edge attribute: "active", "4x", "qdr"
    (the int for a value the enum lacks, which from_networkx takes back)."""
    try:
        name = cls(value).name.lower()
    except ValueError:
        return int(value)
    return name[1:] if cls is LinkWidth and name.startswith("w") else name


def _node_type(value: Any, node: Hashable) -> NodeType:
    if isinstance(value, str):
        try:
            return NodeType[value.upper()]
        except KeyError:
            raise ValueError(f"node {node!r}: type {value!r} is not switch, ca or router") from None
    try:
        return NodeType(int(value))
    except (TypeError, ValueError):
        raise ValueError(f"node {node!r}: bad type {value!r}") from None


def _edges(g: Any) -> List[Tuple[Hashable, Hashable, Dict[str, Any]]]:
    if g.is_multigraph():
        return [(u, v, d) for u, v, _k, d in g.edges(keys=True, data=True)]
    return list(g.edges(data=True))


def from_networkx(g: Any, hosts_per_switch: int = 0, nports: Optional[int] = None,
                  context: Optional[Context] = None, lmc: int = 0,
                  return_mapping: bool = False) -> Union[Fabric, Tuple[Fabric, Dict[Hashable, int]]]:
    """Build a Fabric from an undirected networkx graph.

    Args:
        g: a Graph or MultiGraph.  With a ``type`` attribute on every node it
            describes a fabric (see the module doc); otherwise every node is
            a switch and every edge a cable.
        hosts_per_switch: for plain graphs, CAs cabled to each switch after
            its switch links.
        nports: port count of every switch of a plain graph (default: just
            enough for its links and hosts).
        context: the Context of the new fabric.
        lmc: LMC of the LIDs assigned to ports that get none from the graph.
        return_mapping: also return {graph node: fabric node index}.

    Nodes are created in the graph's node order (switches and CAs of a
    plain graph: all switches first, then the hosts).  Every port without a
    LID then gets one (ibr_fabric_assign_lids with *lmc*).
    """
    if g.is_directed():
        raise TypeError("from_networkx needs an undirected graph (use g.to_undirected())")
    nodes = list(g.nodes(data=True))
    typed = bool(nodes) and all("type" in d for _, d in nodes)
    edges = _edges(g)

    # ports each node needs: explicit port numbers first, then free ones
    used: Dict[Hashable, set] = {n: set() for n, _ in nodes}
    plans = []
    for u, v, d in edges:
        ports = d.get("ports")
        ends = d.get("nodes")
        if ports is not None:
            pa, pb = ports
            if ends is not None and tuple(ends) != (u, v):
                if tuple(ends) != (v, u):
                    raise ValueError(f"edge {u!r}-{v!r}: attribute nodes={ends!r} does not match")
                pa, pb = pb, pa
            for n, p in ((u, pa), (v, pb)):
                if p in used[n]:
                    raise ValueError(f"node {n!r}: port {p} used by two edges")
                used[n].add(p)
            plans.append((u, pa, v, pb, d))
        else:
            plans.append((u, None, v, None, d))

    def next_free(n: Hashable) -> int:
        p = 1
        while p in used[n]:
            p += 1
        used[n].add(p)
        return p

    resolved = []
    for u, pa, v, pb, d in plans:
        if pa is None:
            pa = next_free(u)
            pb = next_free(v)
        resolved.append((u, pa, v, pb, d))

    fabric = Fabric(context)
    mapping: Dict[Hashable, int] = {}
    try:
        n_sw = n_ca = 0
        pending_lids = []
        for label, d in nodes:
            ntype = _node_type(d["type"], label) if typed else NodeType.SWITCH
            hosts = 0 if typed else hosts_per_switch
            need = max(used[label], default=0) + hosts
            count = d.get("nports") or (nports if not typed and nports else max(need, 1))
            if ntype == NodeType.SWITCH:
                guid = d.get("guid") or SWITCH_GUID_BASE + n_sw
                n_sw += 1
            else:
                guid = d.get("guid") or CA_GUID_BASE + (n_ca << 8)
                n_ca += 1
            idx = fabric.add_node(ntype, guid, count, d.get("desc", str(label)))
            mapping[label] = idx
            if d.get("sysimg_guid") and d["sysimg_guid"] != guid:
                fabric.set_sysimg_guid(idx, d["sysimg_guid"])
            for port, pguid in (d.get("port_guids") or {}).items():
                default = guid if ntype == NodeType.SWITCH else guid + port
                if pguid and pguid != default:
                    fabric.set_port_guid(idx, port, pguid)
            for port, (base, plmc) in (d.get("lids") or {}).items():
                pending_lids.append((idx, port, base, plmc))
        for u, pa, v, pb, d in resolved:
            state = d.get("state", LinkState.ACTIVE)
            fabric.add_link(mapping[u], pa, mapping[v], pb,
                            width=d.get("width", LinkWidth.W4X),
                            speed=d.get("speed", LinkSpeed.QDR),
                            state=state if not isinstance(state, bool) else
                            (LinkState.ACTIVE if state else LinkState.DOWN))
        if not typed and hosts_per_switch:
            for label, _d in nodes:
                sw = mapping[label]
                first = max(used[label], default=0) + 1
                for k in range(hosts_per_switch):
                    ca = fabric.add_ca(CA_GUID_BASE + (n_ca << 8), 1, f"H{n_ca} HCA-1")
                    n_ca += 1
                    fabric.add_link(sw, first + k, ca, 1)
        for idx, port, base, plmc in pending_lids:
            fabric.set_lid(idx, port, base, plmc)
        fabric.assign_lids(lmc)
    except BaseException:
        fabric.close()
        raise
    return (fabric, mapping) if return_mapping else fabric
