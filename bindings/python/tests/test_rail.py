"""Rail-optimized fat trees from Python: the generator spec and the
engines' rank order (Result.rank_order())."""

import unittest

from _support import BINDINGS  # noqa: F401  (puts the package on sys.path)

import ibroute

SPEC = "rail:nodes=20,rails=4,su=8,radix=16"


class TestRail(unittest.TestCase):
    def test_rank_order_is_the_leaf_order(self):
        with ibroute.Fabric.from_spec(SPEC) as f, f.freeze() as t, \
                ibroute.Fabric.from_spec(SPEC + ",byleaf=1") as g, g.freeze() as u:
            descs = [f.node_info(n).desc for n in range(f.node_count)
                     if f.node_info(n).type == ibroute.NodeType.CA]
            leaf_order = [g.node_info(n).desc for n in range(g.node_count)
                          if g.node_info(n).type == ibroute.NodeType.CA]
            self.assertEqual(descs[:2], ["node0000 mlx5_0", "node0000 mlx5_1"])
            self.assertEqual(sorted(descs), sorted(leaf_order))
            self.assertNotEqual(descs, leaf_order)
            for engine in ("ftree", "dmodc"):
                with t.route(engine + ",no_fallback") as r:
                    order = r.rank_order()
                    self.assertEqual([d for _, _, d in order], leaf_order, engine)
                    guids = {f.port_info(n, 1).guid: f.port_info(n, 1).lid
                             for n in range(f.node_count)
                             if f.node_info(n).type == ibroute.NodeType.CA}
                    self.assertEqual(sorted(g_ for g_, _, _ in order), sorted(guids))
                    for guid, lid, _ in order:
                        self.assertEqual(guids[guid], lid)
            with t.route("minhop") as r, self.assertRaises(ibroute.NotFoundError):
                r.rank_order()


if __name__ == "__main__":
    unittest.main()
