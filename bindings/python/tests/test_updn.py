"""The updn and dnup engines from Python: chains, given roots (as a host
GUID, as a parsed root file), the roots artefact, connect_roots, ids, and
the verifier's count of rule-restricted pairs.  Legality is checked here
independently: ranks are recomputed from the roots by breadth-first search
and every route is walked."""

import collections
import unittest

import ibroute
from ibroute import EngineCaps

ROOTS = "opensm-updn-roots.dump"


def switch_links(t):
    """{sw: {port: neighbour sw}} over active switch-to-switch cables."""
    out = {}
    for sw in range(t.switch_count):
        nbrs = {}
        for p in t.ports(t.switch_node(sw)):
            if p.port and p.remote_node is not None and p.state == ibroute.LinkState.ACTIVE:
                other = t.node_switch(p.remote_node)
                if other is not None:
                    nbrs[p.port] = other
        out[sw] = nbrs
    return out


def bfs_ranks(t, roots):
    links = switch_links(t)
    rank = {sw: None for sw in links}
    queue = collections.deque()
    for sw in roots:
        rank[sw] = 0
        queue.append(sw)
    while queue:
        a = queue.popleft()
        for b in links[a].values():
            if rank[b] is None:
                rank[b] = rank[a] + 1
                queue.append(b)
    return rank


def host_lids(t):
    """LID -> switch index of the host owning it (hosts cabled to a switch)."""
    out = {}
    for n in range(t.node_count):
        if t.node_switch(n) is not None:
            continue
        p = t.port_info(n, 1)
        if p.lid and p.remote_node is not None:
            out[p.lid] = t.node_switch(p.remote_node)
    return out


def illegal_updn_routes(t, r, rank, ids=None):
    """Routes (switch, host LID) that go up after going down; up is toward
    the smaller rank, ties broken by the smaller id (*ids*: {GUID: id}),
    else node GUID."""
    links = switch_links(t)
    ids = ids or {}
    guid = [t.node_info(t.switch_node(s)).node_guid for s in range(t.switch_count)]
    guid = [ids.get(g, g) for g in guid]
    lfts = r.lfts()
    bad = 0
    walked = 0
    for lid in host_lids(t):
        for start in range(t.switch_count):
            cur, down = start, False
            for _ in range(t.switch_count + 1):
                port = lfts[cur][lid]
                nxt = links[cur].get(port)
                if nxt is None:
                    break  # delivered (or broken: verify() says so)
                up = (rank[nxt], guid[nxt]) < (rank[cur], guid[cur])
                if up and down:
                    bad += 1
                    break
                down |= not up
                cur = nxt
            walked += 1
    assert walked > 0
    return bad


def roots_of(t, r):
    """Switch indices named by the result's roots artefact (parsed with the
    library's own GUID-list parser)."""
    guids = ibroute.parse_guid_list(r.artifact(ROOTS))
    sws = []
    for g in guids:
        node, _port = t.find_guid(g)
        sws.append(t.node_switch(node))
    return guids, sws


class TestEngines(unittest.TestCase):
    def test_registered(self):
        names = [e.name for e in ibroute.engines()]
        for name in ("updn", "dnup"):
            with self.subTest(engine=name):
                self.assertIn(name, names)
                info = ibroute.find_engine(name)
                self.assertTrue(info.builtin)
                self.assertIn(EngineCaps.DEADLOCK_FREE, info.caps)
                self.assertIn(EngineCaps.LMC, info.caps)
                self.assertNotIn(EngineCaps.MINIMAL, info.caps)


class TestFatTree(unittest.TestCase):
    SPEC = "fattree:levels=2,radix=8"

    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec(cls.SPEC)
        cls.topo = cls.fabric.freeze()
        t = cls.topo
        # spines carry no host
        cls.spines = {s for s in range(t.switch_count)
                      if not any(p.remote_node is not None and t.node_switch(p.remote_node) is None
                                 for p in t.ports(t.switch_node(s)))}

    @classmethod
    def tearDownClass(cls):
        cls.topo.close()
        cls.fabric.close()

    def test_updn_finds_the_spines_and_routes_legally(self):
        t = self.topo
        self.assertEqual(len(self.spines), 4)
        with t.route("updn,no_fallback") as r:
            self.assertEqual(r.engine, "updn")
            self.assertEqual([a.engine for a in r.attempts], ["updn"])
            self.assertIn(ROOTS, r.artifacts)
            guids, sws = roots_of(t, r)
            self.assertEqual(set(sws), self.spines)
            self.assertEqual(len(guids), len(set(guids)))
            text = r.artifact(ROOTS).decode()
            self.assertTrue(text.endswith("\n"))
            self.assertEqual(len(text.splitlines()), 4)
            self.assertEqual(illegal_updn_routes(t, r, bfs_ranks(t, sws)), 0)
            rep = r.verify()
            self.assertTrue(rep.ok, rep.first_error)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(rep.pairs_ok, rep.pairs)
            self.assertEqual(rep.missing, 0)
            self.assertEqual(r.find_credit_loop(), [])

    def test_restricted_pairs_and_connect_roots(self):
        t = self.topo
        n = len(self.spines)
        with t.route("updn,no_fallback") as r:
            rep = r.verify()
            # spine to spine needs down then up: forbidden, and counted apart
            self.assertGreater(rep.restricted, 0)
            self.assertEqual(rep.restricted, n * (n - 1))
            # not errors: left out of the (switch, LID) routes checked
            self.assertEqual(rep.routes_ok, rep.routes_checked)
            self.assertEqual(rep.missing, 0)
            self.assertTrue(rep.ok)
            checked = rep.routes_checked
            spine_lids = [t.port_info(t.switch_node(s), 0).lid for s in sorted(self.spines)]
            a, b = sorted(self.spines)[:2]
            self.assertEqual(r.lft_port(a, spine_lids[1]), ibroute.NO_ROUTE)
            self.assertEqual(r.lft_port(a, spine_lids[0]), 0)
            # read back from a dump the rule is unknown: the same entries are
            # empty entries, valid unless strict
            with ibroute.Result.parse_lfts(t, r.write_lfts_dump()) as back:
                lenient = back.verify()
                self.assertTrue(lenient.ok)
                self.assertFalse(lenient.strict)
                self.assertEqual(lenient.missing, n * (n - 1))
                self.assertIn("no route at switch", lenient.first_missing)
                self.assertEqual(lenient.first_error, "")
                strict = back.verify(strict=True)
                self.assertFalse(strict.ok)
                self.assertTrue(strict.strict)
                self.assertEqual(strict.first_error, lenient.first_missing)
                self.assertTrue(strict.to_dict()["strict"])
        with t.route("updn,no_fallback", connect_roots=True) as r:
            self.assertEqual(r.engine, "updn")
            rep = r.verify()
            self.assertEqual(rep.restricted, 0)
            self.assertEqual(rep.routes_ok, rep.routes_checked)
            self.assertEqual(rep.routes_checked, checked + n * (n - 1))
            self.assertTrue(rep.ok)
            self.assertNotEqual(r.lft_port(a, spine_lids[1]), ibroute.NO_ROUTE)
        with t.route("minhop") as r:
            self.assertEqual(r.verify().restricted, 0)

    def test_updn_equals_minhop_on_a_full_tree(self):
        t = self.topo
        with t.route("updn,no_fallback") as u, t.route("minhop") as m:
            for lid in host_lids(t):
                for s in range(t.switch_count):
                    self.assertEqual(u.lft_port(s, lid), m.lft_port(s, lid))

    def test_dnup(self):
        t = self.topo
        with t.route("dnup,no_fallback") as r:
            self.assertEqual(r.engine, "dnup")
            self.assertNotIn(ROOTS, r.artifacts)
            rep = r.verify()
            self.assertTrue(rep.ok, rep.first_error)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(rep.pairs_ok, rep.pairs)

    def test_lmc(self):
        with ibroute.Fabric.from_spec(self.SPEC) as f:
            f.assign_lids(lmc=1, reassign=True)
            with f.freeze() as t, t.route("updn,no_fallback") as r:
                rep = r.verify()
                self.assertTrue(rep.ok, rep.first_error)
                self.assertIs(rep.deadlock_free, True)
                self.assertEqual(rep.restricted, 12)  # pairs, not LIDs


class TestTorus(unittest.TestCase):
    SPEC = "torus:dims=4x4,hosts=1"

    @classmethod
    def setUpClass(cls):
        cls.fabric = ibroute.Fabric.from_spec(cls.SPEC)
        cls.topo = cls.fabric.freeze()
        t = cls.topo
        cls.hosts = [n for n in range(t.node_count) if t.node_switch(n) is None]

    @classmethod
    def tearDownClass(cls):
        cls.topo.close()
        cls.fabric.close()

    def test_updn_without_roots_chooses_the_centre(self):
        # OpenSM's heuristic finds no root on a torus: updn picks one and says so
        t = self.topo
        with t.route("updn,no_fallback") as r:
            self.assertEqual(r.engine, "updn")
            self.assertEqual([a.engine for a in r.attempts], ["updn"])
            note = r.artifact("updn-roots.txt").decode()
            self.assertTrue(note.startswith("roots: 1 chosen by ibroute, the centre"), note)
            guids, sws = roots_of(t, r)
            self.assertEqual(len(sws), 1)
            self.assertIn("0x%016x" % guids[0], note)
            rep = r.verify()
            self.assertTrue(rep.ok, rep.first_error)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(r.find_credit_loop(), [])

    def test_minhop_has_credit_loops_here(self):
        # what makes updn worth having on a torus (and shows the checks bite)
        with self.topo.route("minhop") as r:
            self.assertIs(r.verify().deadlock_free, False)
            self.assertNotEqual(r.find_credit_loop(), [])

    def check_root_is_host_switch(self, root_guid, host):
        t = self.topo
        sw = t.node_switch(t.port_info(host, 1).remote_node)
        sw_guid = t.node_info(t.switch_node(sw)).node_guid
        for roots in ([root_guid], ibroute.parse_guid_list(f"# the root\n0x{root_guid:016x}\n")):
            with t.route("updn,no_fallback", root_guids=roots) as r:
                self.assertEqual(r.engine, "updn")
                guids, sws = roots_of(t, r)
                self.assertEqual(guids, [sw_guid])
                self.assertEqual(sws, [sw])
                rank = bfs_ranks(t, sws)
                self.assertEqual(illegal_updn_routes(t, r, rank), 0)
                rep = r.verify()
                self.assertTrue(rep.ok, rep.first_error)
                self.assertIs(rep.deadlock_free, True)
                self.assertEqual(rep.pairs_ok, rep.pairs)
                self.assertEqual(rep.missing, 0)
                self.assertEqual(r.find_credit_loop(), [])
        return sw

    def test_root_given_as_a_host_guid(self):
        t = self.topo
        host = self.hosts[5]
        port_guid = t.port_info(host, 1).guid
        node_guid = t.node_info(host).node_guid
        a = self.check_root_is_host_switch(port_guid, host)
        b = self.check_root_is_host_switch(node_guid, host)
        self.assertEqual(a, b)
        # another root, other tables
        other = self.hosts[0]
        with t.route("updn,no_fallback", root_guids=[port_guid]) as r1, \
                t.route("updn,no_fallback", root_guids=[t.port_info(other, 1).guid]) as r2:
            self.assertNotEqual([bytes(x) for x in r1.lfts()], [bytes(x) for x in r2.lfts()])

    def test_unknown_roots_decline(self):
        with self.topo.route("updn", root_guids=[0x7777]) as r:
            self.assertEqual(r.engine, "minhop")
            self.assertEqual(r.attempts[0].status_name, "IBR_EDECLINED")
            self.assertIn("root GUID", r.attempts[0].message)

    def test_ids_from_a_parsed_file(self):
        # A 4x4 torus is bipartite: no cable joins switches of equal rank,
        # so ids (which only break such ties) change nothing there.  A 3x3
        # torus has odd cycles, hence ties.
        with ibroute.Fabric.from_spec("torus:dims=3x3,hosts=1") as f, f.freeze() as t:
            guids = [t.node_info(n).node_guid for n in t.switches()]
            # reverse the GUID order in the tie-breaks
            text = "".join(f"0x{g:x} {100 - i}\n" for i, g in enumerate(guids))
            ids = ibroute.parse_guid_list(text, "id")
            self.assertEqual(ids, [(g, 100 - i) for i, g in enumerate(guids)])
            root = [guids[4]]
            with t.route("updn,no_fallback", root_guids=root, ids=ids) as a, \
                    t.route("updn,no_fallback", root_guids=root) as b, \
                    t.route("updn,no_fallback", root_guids=root, ids=dict(ids)) as c:
                la, lb = [bytes(x) for x in a.lfts()], [bytes(x) for x in b.lfts()]
                self.assertNotEqual(la, lb)
                self.assertEqual(la, [bytes(x) for x in c.lfts()])
                rank = bfs_ranks(t, roots_of(t, a)[1])
                self.assertEqual(illegal_updn_routes(t, a, rank, dict(ids)), 0)
                self.assertEqual(illegal_updn_routes(t, b, rank), 0)
                # each is illegal under the other's tie-break
                self.assertGreater(illegal_updn_routes(t, a, rank), 0)
                self.assertGreater(illegal_updn_routes(t, b, rank, dict(ids)), 0)
                for r in (a, b):
                    rep = r.verify()
                    self.assertTrue(rep.ok, rep.first_error)
                    self.assertIs(rep.deadlock_free, True)

    def test_dnup(self):
        t = self.topo
        with t.route("dnup,no_fallback") as r:
            self.assertEqual(r.engine, "dnup")
            self.assertEqual(r.attempts[0].status, 0)
            self.assertNotIn(ROOTS, r.artifacts)
            rep = r.verify()
            self.assertTrue(rep.ok, rep.first_error)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(rep.pairs_ok, rep.pairs)
            self.assertEqual(r.find_credit_loop(), [])

    def test_chain_as_a_list_and_threads(self):
        t = self.topo
        root = [t.port_info(self.hosts[3], 1).guid]
        with t.route(["updn", "no_fallback"], root_guids=root, threads=1) as a, \
                t.route("updn,no_fallback", root_guids=root, threads=2) as b:
            self.assertEqual([bytes(x) for x in a.lfts()], [bytes(x) for x in b.lfts()])
        with t.route(["dnup", "updn"], threads=2) as r:
            self.assertEqual(r.engine, "dnup")

    def test_dnup_declines_without_hosts(self):
        with ibroute.Fabric.from_spec("torus:dims=3x3,hosts=0") as f, f.freeze() as t:
            with t.route("dnup") as r:
                self.assertEqual(r.engine, "minhop")
                self.assertEqual(r.attempts[0].status_name, "IBR_EDECLINED")


if __name__ == "__main__":
    unittest.main()
