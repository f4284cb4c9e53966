"""networkx conversions (skipped without networkx)."""

import re
import unittest

import _support  # noqa: F401  (sys.path)

import ibroute

try:
    import networkx
    import ibroute.nx as inx
except ImportError:  # pragma: no cover
    networkx = None


@unittest.skipIf(networkx is None, "networkx is not installed")
class TestNetworkx(unittest.TestCase):
    def test_edge_attributes_round_trip_as_names(self):
        f = ibroute.Fabric()
        f.add_switch(1 << 56, 4, "s")
        f.add_ca(0x1000, 2, "h")
        f.add_link(0, 1, 1, 1, width="1x", speed="edr")
        f.add_link(0, 2, 1, 2, width=ibroute.LinkWidth.W12X, speed=ibroute.LinkSpeed.FDR10,
                   state="down")
        g = inx.to_networkx(f)
        self.assertEqual(sorted((d["ports"], d["state"], d["width"], d["speed"])
                                for _u, _v, d in g.edges(data=True)),
                         [((1, 1), "active", "1x", "edr"), ((2, 2), "down", "12x", "fdr10")])
        # the names turn back into the enums
        d = next(d for _u, _v, d in g.edges(data=True) if d["ports"] == (2, 2))
        self.assertIs(ibroute.LinkSpeed[d["speed"].upper()], ibroute.LinkSpeed.FDR10)
        self.assertIs(ibroute.LinkState[d["state"].upper()], ibroute.LinkState.DOWN)
        with inx.from_networkx(g) as back:
            pi = back.port_info(0, 2)
            self.assertEqual((pi.state, pi.width, pi.speed),
                             (ibroute.LinkState.DOWN, ibroute.LinkWidth.W12X,
                              ibroute.LinkSpeed.FDR10))
            self.assertEqual(back.port_info(0, 1).width, ibroute.LinkWidth.W1X)
        # ints and enum members are still accepted
        h = networkx.Graph()
        h.add_edge("a", "b", width=int(ibroute.LinkWidth.W8X), speed=ibroute.LinkSpeed.HDR)
        with inx.from_networkx(h) as fab:
            self.assertEqual((fab.port_info(0, 1).width, fab.port_info(0, 1).speed),
                             (ibroute.LinkWidth.W8X, ibroute.LinkSpeed.HDR))
        f.close()

    def test_to_networkx(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f:
            f.set_link_state(0, 3, "down")  # a leaf uplink
            with f.freeze() as t:
                g = inx.to_networkx(t)
                self.assertIsInstance(g, networkx.MultiGraph)
                self.assertEqual(g.number_of_nodes(), t.node_count)
                self.assertEqual(g.number_of_edges(), len(list(t.links())))
                n0 = g.nodes[0]
                self.assertEqual((n0["type"], n0["desc"], n0["switch"]), ("switch", "L1-S0", 0))
                self.assertEqual(n0["guid"], t.node_info(0).node_guid)
                self.assertEqual(n0["lids"], {0: (t.port_info(0, 0).lid, 0)})
                host = g.nodes[t.switch_count]
                self.assertEqual((host["type"], host["switch"]), ("ca", None))
                down = [d for _u, _v, d in g.edges(data=True) if d["state"] == "down"]
                self.assertEqual(len(down), 1)
                self.assertEqual((down[0]["nodes"][0], down[0]["ports"][0]), (0, 3))
                # one kind of value: lower-case names, like "type"
                for _u, _v, d in g.edges(data=True):
                    for key in ("state", "width", "speed"):
                        self.assertIs(type(d[key]), str, key)
                self.assertEqual({(d["width"], d["speed"]) for _u, _v, d in g.edges(data=True)},
                                 {("4x", "qdr")})
                for u, v, d in g.edges(data=True):
                    a, b = d["nodes"]
                    pa, pb = d["ports"]
                    self.assertEqual({a, b}, {u, v})
                    self.assertEqual(t.port_info(a, pa).remote_node, b)
                    self.assertEqual(t.port_info(a, pa).remote_port, pb)
                self.assertEqual(inx.to_networkx(t, include_down=False).number_of_edges(),
                                 g.number_of_edges() - 1)
                # the switch graph is connected; the fabric is a fat tree
                self.assertTrue(networkx.is_connected(g))

    def test_fabric_round_trip(self):
        with ibroute.Fabric.from_spec("torus:dims=3x2,hosts=2,parallel=2") as f:
            f.inject_faults(links=1, seed=4)
            f.set_port_guid(f.node_count - 1, 1, 0xABCDEF)
            with f.freeze() as t:
                text = t.write_ibnetdiscover()
                g = inx.to_networkx(f)
        with inx.from_networkx(g) as f2, f2.freeze() as t2:
            self.assertEqual(t2.write_ibnetdiscover(), text)

    def test_plain_graph_as_switches(self):
        g = networkx.petersen_graph()
        f, mapping = inx.from_networkx(g, hosts_per_switch=2, return_mapping=True)
        with f, f.freeze() as t:
            self.assertEqual(t.switch_count, 10)
            self.assertEqual(t.endport_count, 20)
            self.assertEqual(sorted(mapping), list(range(10)))
            for u, v in g.edges():
                self.assertEqual(t.switch_distance(t.node_switch(mapping[u]),
                                                   t.node_switch(mapping[v])), 1)
            self.assertEqual(t.node_info(mapping[3]).desc, "3")
            self.assertEqual(t.node_info(mapping[3]).nports, 3 + 2)
            with t.route() as r:
                rep = r.verify()
                self.assertTrue(rep.ok)
                self.assertEqual(rep.pairs, 20 * 19)
            back = inx.to_networkx(t)
            switches = [n for n, d in back.nodes(data=True) if d["type"] == "switch"]
            self.assertTrue(networkx.is_isomorphic(back.subgraph(switches), g))

    def test_plain_multigraph_and_nports(self):
        g = networkx.MultiGraph()
        g.add_edge("a", "b")
        g.add_edge("a", "b")  # parallel cables
        g.add_edge("b", "c")
        with inx.from_networkx(g, hosts_per_switch=1, nports=8, lmc=1) as f, f.freeze() as t:
            self.assertEqual(len(list(t.links())), 3 + 3)
            self.assertTrue(all(t.node_info(s).nports == 8 for s in t.switches()))
            host = t.switch_count
            self.assertEqual(t.port_info(host, 1).lmc, 1)

    def test_typed_graph_with_explicit_ports(self):
        g = networkx.Graph()
        g.add_node("sw", type="switch", nports=8, guid=0x100)
        g.add_node("h1", type="ca", guid=0x200)
        g.add_node("h2", type=ibroute.NodeType.CA)
        g.add_edge("sw", "h1", nodes=("h1", "sw"), ports=(1, 5))
        g.add_edge("sw", "h2", state="down")
        f, m = inx.from_networkx(g, return_mapping=True)
        with f:
            self.assertEqual(f.port_info(m["sw"], 5).remote_node, m["h1"])
            self.assertEqual(f.port_info(m["h2"], 1).remote_node, m["sw"])
            self.assertEqual(f.port_info(m["h2"], 1).state, ibroute.LinkState.DOWN)
            self.assertEqual(f.node_info(m["sw"]).node_guid, 0x100)

    def test_bad_graphs(self):
        with self.assertRaises(TypeError):
            inx.from_networkx(networkx.DiGraph([(1, 2)]))
        g = networkx.Graph()
        g.add_node(1, type="hub")
        with self.assertRaises(ValueError):
            inx.from_networkx(g)
        g = networkx.Graph()
        g.add_node(1, type="switch")
        g.add_node(2, type="ca")
        g.add_node(3, type="ca")
        g.add_edge(1, 2, ports=(1, 1))
        g.add_edge(1, 3, ports=(1, 1))
        with self.assertRaises(ValueError):
            inx.from_networkx(g)
        with self.assertRaises(TypeError):
            inx.to_networkx(g)


@unittest.skipIf(networkx is None, "networkx is not installed")
class TestRoutingGraph(unittest.TestCase):
    """Result.to_networkx() and ibroute.nx.to_anytopo(): the tables on the
    graph, checked against OpenSM's LFT dump of the same result and the
    library's route tracer."""

    CASES = [("fattree:levels=2,radix=8", "ftree", 0), ("torus:dims=3x3,hosts=2", "minhop", 0),
             ("xgft:h=2,m=4.4,w=1.4", "updn", 3)]

    def routed(self, spec, engine, faults):
        f = ibroute.Fabric.from_spec(spec)
        if faults:
            f.inject_faults(faults, 1, seed=2)
        t = f.freeze()
        f.close()
        return t, t.route(engine)

    def test_lft_on_the_switch_nodes(self):
        for spec, engine, faults in self.CASES:
            t, r = self.routed(spec, engine, faults)
            with t, r:
                g = r.to_networkx()
                dump = {}
                cur = None
                for line in r.write_lfts_dump().splitlines():
                    m = re.match(r"Unicast lids .* guid (0x[0-9a-f]+)", line)
                    if m:
                        cur = dump.setdefault(int(m.group(1), 16), {})
                    m = re.match(r"(0x[0-9a-f]+) (\d+)", line)
                    if m and cur is not None:
                        cur[int(m.group(1), 16)] = int(m.group(2))
                switches = [n for n, d in g.nodes(data=True) if d["type"] == "switch"]
                self.assertEqual(len(switches), t.switch_count)
                for n in switches:
                    self.assertEqual(g.nodes[n]["lft"], dump[g.nodes[n]["guid"]], spec)
                self.assertTrue(all(d["state"] == "active" for _u, _v, d in g.edges(data=True)))

    def test_anytopo_paths_are_the_traced_routes(self):
        for spec, engine, faults in self.CASES:
            t, r = self.routed(spec, engine, faults)
            with t, r:
                g, table = inx.to_anytopo(r)
                self.assertEqual(sorted(g.nodes), list(range(g.number_of_nodes())))
                guid_rid = {d["guid"]: i for i, d in g.nodes(data=True)}
                rid = {sw: guid_rid[t.node_info(t.switch_node(sw)).node_guid]
                       for sw in range(t.switch_count)
                       if t.node_info(t.switch_node(sw)).node_guid in guid_rid}
                eps = {}
                for info in t.nodes():
                    if info.type != ibroute.NodeType.SWITCH:
                        pi = t.port_info(info.index, 1)
                        if pi.lid and pi.state == ibroute.LinkState.ACTIVE:
                            eps.setdefault(rid[t.node_switch(pi.remote_node)], []).append(pi.lid)
                self.assertEqual({i: len(v) for i, v in eps.items()},
                                 {i: d["endpoints"] for i, d in g.nodes(data=True)
                                  if d["endpoints"]})
                for s in eps:
                    for d in eps:
                        if s == d:
                            continue
                        want = {}
                        for dst in eps[d]:
                            # the tracer's route from an end port of s
                            tr = r.trace(eps[s][0], dst)
                            self.assertTrue(tr.ok, (spec, s, d))
                            key = tuple(rid[x] for x in tr.switches[1:])
                            want[key] = want.get(key, 0) + 1
                        got = {tuple(p): w for w, p in table[s][d]}
                        self.assertEqual(set(got), set(want), (spec, s, d))
                        for k, n in want.items():
                            self.assertAlmostEqual(got[k], n / len(eps[d]))
                        for _w, p in table[s][d]:
                            hops = [s] + p
                            self.assertTrue(all(g.has_edge(a, b) for a, b in zip(hops, hops[1:])))


if __name__ == "__main__":
    unittest.main()
