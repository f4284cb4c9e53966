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
from ._core import Context, Fabric, Topology, _Nodes

__all__ = ["to_networkx", "from_networkx", "SWITCH_GUID_BASE", "CA_GUID_BASE"]

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
