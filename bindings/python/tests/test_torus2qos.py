"""torus-2QoS from Python: the configuration as a string setting, path SLs
from the torus coordinates (bit d when the shorter ring path wraps), SL2VL
tables, a failed link that changes no SL, the configuration derived from
the cabling when none is given, and the decline off a torus."""

import unittest

import ibroute

GUID0 = 0x0002C90202000000
R = (5, 5, 4)


def conf():
    """torus-2QoS.conf for `torus:dims=5x5x4` (switch (x,y,z) has GUID
    GUID0 + x + 5*(y + 5*z)); the radix-4 Z needs both seed directions."""
    return "\n".join([
        "torus 5 5 4",
        "xp_link 0x%x 0x%x" % (GUID0, GUID0 + 1),
        "yp_link 0x%x 0x%x" % (GUID0, GUID0 + 5),
        "zp_link 0x%x 0x%x" % (GUID0, GUID0 + 25),
        "zm_link 0x%x 0x%x" % (GUID0, GUID0 + 75),
    ]) + "\n"


def coords(index):
    return (index % R[0], index // R[0] % R[1], index // (R[0] * R[1]))


def want_sl(a, b):
    sl = 0
    for d in range(3):
        direct = abs(a[d] - b[d])
        if R[d] - direct < direct:
            sl |= 1 << d
    return sl


class TorusTwoQoS(unittest.TestCase):
    def route(self, fabric):
        t = fabric.freeze()
        return t, t.route("torus-2QoS,no_fallback", params={"torus-2QoS.config": conf()})

    def switch_lids(self, t):
        """LID of each switch, by switch index."""
        return [t.port_info(t.switch_node(s), 0).lid for s in range(t.switch_count)]

    def test_sls_from_coordinates_and_failure(self):
        f = ibroute.Fabric.from_spec("torus:dims=5x5x4,hosts=1")
        t, r = self.route(f)
        with r:
            self.assertEqual(r.engine, "torus-2QoS")
            rep = r.verify()
            self.assertTrue(rep.ok, rep.first_error)
            self.assertEqual(rep.pairs_ok, rep.pairs)
            self.assertIs(rep.deadlock_free, True)
            self.assertEqual(r.vls_used, 8)
            lids = self.switch_lids(t)
            before = {}
            for a in range(t.switch_count):
                for b in range(t.switch_count):
                    sl = r.path_sl(lids[a], lids[b])
                    self.assertEqual(sl, want_sl(coords(a), coords(b)))
                    before[a, b] = sl
            # output toward +x (port 2) from a host (port 7): VL = SL bit 0,
            # QoS level (SL bit 3) on VL bit 2
            m = r.sl2vl(0, 7, 2)
            self.assertEqual(list(m), [(s & 1) | (4 if s & 8 else 0) for s in range(16)])
        # a failed link: every SL stays
        f.set_link_state(7, 2, "down")
        t2, r2 = self.route(f)
        with r2:
            self.assertIs(r2.verify().deadlock_free, True)
            lids = self.switch_lids(t2)
            for (a, b), sl in before.items():
                self.assertEqual(r2.path_sl(lids[a], lids[b]), sl)

    def test_configuration_derived_from_the_cabling(self):
        t = ibroute.Fabric.from_spec("torus:dims=5x5x4,hosts=1").freeze()
        with t.route("torus-2QoS,no_fallback") as r:
            self.assertIs(r.verify().deadlock_free, True)
            derived = r.artifact("torus-2QoS.conf").decode()
            lfts = r.write_lfts_dump()
        # the generator's layout, the same configuration as conf()
        def words(text):
            return [[int(w, 0) if w.startswith("0x") else w for w in ln.split()]
                    for ln in text.splitlines() if not ln.startswith("#")]
        self.assertEqual(words(derived), words(conf()))
        _, given = self.route(ibroute.Fabric.from_spec("torus:dims=5x5x4,hosts=1"))
        with given:
            self.assertEqual(given.write_lfts_dump(), lfts)

    def test_declines_without_configuration_off_a_torus(self):
        t = ibroute.Fabric.from_spec("fattree:levels=3,radix=8").freeze()
        with self.assertRaises(ibroute.UnroutableError) as cm:
            t.route("torus-2QoS,no_fallback")
        self.assertIn("none can be derived from the cabling", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
