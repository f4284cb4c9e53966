"""Multicast groups and trees from Python: groups built and parsed, the
default and balanced trees, members, loads, the trace and the report."""

import unittest

import ibroute
from ibroute import McastJoin


def hosts(t):
    """(node, port, guid) of every CA port, in node order."""
    out = []
    for n in range(t.node_count):
        ni = t.node_info(n)
        if ni.type == ibroute.NodeType.SWITCH:
            continue
        out.append((n, 1, ni.node_guid))
    return out


class TestMcast(unittest.TestCase):
    def setUp(self):
        self.f = ibroute.Fabric.from_spec("fattree:levels=3,radix=4")
        self.t = self.f.freeze()

    def tearDown(self):
        self.t.close()
        self.f.close()

    def test_groups_and_trees(self):
        hs = hosts(self.t)
        with self.t.mcast_groups() as g:
            for i, (n, p, guid) in enumerate(hs):
                g.add_member(0xC000, guid, p)
                if i % 3 == 0:
                    g.add_member(0xC001, guid, p, McastJoin.NON | McastJoin.SENDONLY,
                                 mgid=bytes([0xFF, 0x12] + [0] * 13 + [1]))
            with self.assertRaises(ibroute.RangeError):
                g.add_member(0xBFFF, hs[0][2], 1)
            with self.assertRaises(ibroute.NotFoundError):
                g.add_member(0xC000, 0x1234, 1)
            with self.assertRaises(ibroute.ExistsError) as cm:
                g.add_member(0xC000, hs[0][2], 1)
            self.assertIn("already a member", str(cm.exception))
            self.assertEqual(g.mlids(), [0xC000, 0xC001])
            groups = g.groups()
            self.assertEqual(groups[1].mgid[:2], b"\xff\x12")
            self.assertIsNone(groups[0].mgid)
            self.assertEqual(len(g.members(0xC000)), len(hs))
            self.assertEqual(g.members(0xC001)[0].join_state, McastJoin.NON | McastJoin.SENDONLY)
            # the text round-trips
            text = g.write()
            with self.t.mcast_groups(text) as g2:
                self.assertEqual(g2.write(), text)
            for balance in (False, True):
                with self.t.route("minhop", mcast_groups=g, mcast_balance=balance) as r:
                    rep = r.verify()
                    self.assertTrue(rep.ok)
                    self.assertEqual(rep.mcast_groups, 2)
                    self.assertEqual(rep.mcast_pairs_ok, rep.mcast_pairs)
                    self.assertEqual(rep.mcast_duplicates, 0)
                    self.assertEqual(r.mcast_groups(), [0xC000, 0xC001])
                    self.assertEqual(len(r.mcast_members(0xC001)), len(g.members(0xC001)))
                    # every switch port of the tree appears in the loads
                    total = sum(sum(r.mcast_port_load(s)) for s in range(self.t.switch_count))
                    ports = sum(len(v) for tab in r.mcast.values() for v in tab.values())
                    self.assertEqual(total, ports)
                    hops, exact = r.trace_mcast(0xC000, hs[0][0], 1)
                    self.assertTrue(exact)
                    reached = [h.to_node for h in hops if h.to_node is not None
                               and self.t.node_switch(h.to_node) is None]
                    self.assertEqual(sorted(reached), sorted(n for n, _, _ in hs[1:]))
                    self.assertIn('"mcast_pairs_ok"', rep.write_json())

    def test_parse_errors(self):
        with self.assertRaises(ibroute.ParseError) as cm:
            self.t.mcast_groups("group 0xC000\nmember 0x99 1\n")
        self.assertIn("line 2: unknown node GUID", str(cm.exception))
        with self.assertRaises(ibroute.ParseError) as cm:
            self.t.mcast_groups("group 0xFFFF\n")
        self.assertIn("line 1: MLID 0xFFFF", str(cm.exception))
        with self.assertRaises(TypeError):
            self.t.route("minhop", mcast_groups="nope")

    def test_balance_spreads_trees(self):
        hs = hosts(self.t)
        with self.t.mcast_groups() as g:
            for k in range(30):
                for i, (n, p, guid) in enumerate(hs):
                    if (i * 7 + k * 3) % 5 < 2 or i in (k % len(hs), (k + 5) % len(hs)):
                        g.add_member(0xC000 + k, guid, p)
            busiest = []
            for balance in (False, True):
                with self.t.route("minhop", mcast_groups=g, mcast_balance=balance) as r:
                    self.assertTrue(r.verify().ok)
                    busiest.append(max(max(r.mcast_port_load(s)[1:])
                                       for s in range(self.t.switch_count)))
            self.assertLess(busiest[1], busiest[0])


if __name__ == "__main__":
    unittest.main()


class TestMcastKeepsPromise(unittest.TestCase):
    """lash on a faulty mesh with 21 groups: OpenSM's trees (mcast_opensm)
    close a credit loop with the unicast routes; by default unicast moves
    one SL/VL up and the trees share one spanning tree: no loop, the same
    LFTs, exact delivery."""

    def test_lash_mesh(self):
        with ibroute.Fabric.from_spec("mesh:dims=5x5,hosts=2") as f:
            f.inject_faults(links=3, switches=1, seed=1)
            with f.freeze() as t:
                with t.mcast_groups() as g:
                    hs = []
                    for n, p, guid in hosts(t):
                        try:
                            g.add_member(0xC000, guid, p)
                            hs.append((n, p, guid))
                        except ibroute.NotFoundError:  # behind the failed switch
                            pass
                    for k in range(1, 21):
                        for i, (n, p, guid) in enumerate(hs):
                            if (i * 7 + k * 13) % (k % 4 + 2) == 0:
                                g.add_member(0xC000 + k, guid, p)
                    with t.route("lash,no_fallback", mcast_groups=g, mcast_opensm=True) as o, \
                            t.route("lash,no_fallback", mcast_groups=g) as r:
                        ro, rr = o.verify(), r.verify()
                        self.assertIs(ro.deadlock_free, False)
                        self.assertIs(rr.deadlock_free, True)
                        self.assertEqual(rr.mcast_pairs_ok, rr.mcast_pairs)
                        self.assertEqual(r.vls_used, o.vls_used + 1)
                        self.assertEqual(o.mcast_trees, ibroute.McastTrees.OPENSM)
                        self.assertEqual(r.mcast_trees, ibroute.McastTrees.SPANNING)
                        for sw in range(t.switch_count):
                            self.assertEqual(r.lft(sw), o.lft(sw))


class TestEngineMcast(unittest.TestCase):
    def test_python_engine_builds_trees(self):
        seen = {}

        def own(run):
            run.compute_hops()
            run.ucast()
            groups = run.mcast_groups()
            seen["groups"] = groups
            seen["root"] = run.mcast_root(groups[0][0])
            run.mcast_default()

        def none(run):
            run.compute_hops()
            run.ucast()
            run.set_mcast_built()

        ctx = ibroute.Context()
        ctx.register_engine("own", own, "default trees by hand")
        ctx.register_engine("none", none, "no trees")
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4", context=ctx) as f, \
                f.freeze() as t, t.mcast_groups() as g:
            hs = hosts(t)
            for _, p, guid in hs[:3]:
                g.add_member(0xC000, guid, p)
            with t.route("own", mcast_groups=g) as r, t.route("minhop", mcast_groups=g) as m:
                self.assertEqual(seen["groups"][0][0], 0xC000)
                self.assertEqual(sorted(seen["groups"][0][1]), sorted((n, p) for n, p, _ in hs[:3]))
                # built by the engine or after it: the same default trees
                self.assertEqual(r.mcast, m.mcast)
                self.assertIn(seen["root"], r.mcast[0xC000])
                self.assertTrue(r.verify().ok)
            with t.route("none", mcast_groups=g) as r:
                self.assertEqual(r.mcast[0xC000], {})
                rep = r.verify()
                self.assertFalse(rep.ok)
                self.assertEqual(rep.mcast_missed, rep.mcast_pairs)
        ctx.close()
