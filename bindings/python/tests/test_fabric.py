"""Fabric building, generators, parsers and errors."""

import unittest

from _support import fabric_state, line_fabric

import ibroute
from ibroute import LinkSpeed, LinkState, LinkWidth, NodeType


class TestBuild(unittest.TestCase):
    def test_nodes_links_and_info(self):
        with ibroute.Fabric() as f:
            self.assertEqual(f.node_count, 0)
            sw = f.add_switch(0x100, 8, "leaf")
            ca = f.add_ca(0x200, 2, "host")
            rt = f.add_node("router", 0x300, 1)
            self.assertEqual((sw, ca, rt), (0, 1, 2))
            self.assertEqual(len(f), 3)
            f.add_link(sw, 1, ca, 1, width="12x", speed="edr")
            f.add_link(sw, 2, ca, 2, state=LinkState.DOWN)
            f.add_link(sw, 3, rt, 1)
            info = f.node_info(sw)
            self.assertEqual(info.type, NodeType.SWITCH)
            self.assertEqual((info.nports, info.node_guid, info.desc), (8, 0x100, "leaf"))
            self.assertEqual(info.sysimg_guid, 0x100)
            self.assertEqual(f.node_info(rt).desc, "")
            p = f.port_info(sw, 1)
            self.assertEqual((p.remote_node, p.remote_port), (ca, 1))
            self.assertEqual((p.width, p.speed, p.state), (LinkWidth.W12X, LinkSpeed.EDR,
                                                           LinkState.ACTIVE))
            self.assertEqual(f.port_info(ca, 2).state, LinkState.DOWN)
            self.assertIsNone(f.port_info(sw, 4).remote_node)
            # CA port GUIDs default to node GUID + port
            self.assertEqual(f.port_info(ca, 2).guid, 0x202)
            self.assertEqual(f.find_guid(0x202), (ca, 2))
            self.assertEqual(f.find_guid(0x100)[0], sw)
            links = list(f.links())
            self.assertEqual(len(links), 3)
            self.assertEqual((links[0].node_a, links[0].port_a, links[0].node_b),
                             (sw, 1, ca))
            # states: set and read back at both ends
            f.set_link_state(ca, 1, "down")
            self.assertEqual(f.port_info(sw, 1).state, LinkState.DOWN)
            f.set_node_state(sw, True)
            self.assertTrue(all(f.port_info(sw, p).state == LinkState.ACTIVE
                                for p in (1, 2, 3)))
            f.remove_link(sw, 3)
            self.assertIsNone(f.port_info(rt, 1).remote_node)
            f.set_sysimg_guid(ca, 0x999)
            self.assertEqual(f.node_info(ca).sysimg_guid, 0x999)
            f.set_port_guid(ca, 1, 0x777)
            self.assertEqual(f.find_guid(0x777), (ca, 1))

    def test_port_attr(self):
        with ibroute.Fabric() as f:
            a = f.add_switch(0x100, 4)
            b = f.add_switch(0x200, 4)
            f.add_link(a, 1, b, 1, width="1x", speed="qdr")
            p = f.port_info(a, 1)
            # the defaults: VL0-7, only the active width and speed enabled
            self.assertEqual((p.vl_cap, p.oper_vls), (8, 8))
            self.assertEqual(p.widths_enabled, frozenset({LinkWidth.W1X}))
            self.assertEqual(p.speeds_enabled, frozenset({LinkSpeed.QDR}))
            f.set_port_attr(b, 1, vl_cap=4, widths_enabled=("4x", LinkWidth.W1X),
                            speeds_enabled=(LinkSpeed.FDR,))
            self.assertEqual(f.port_info(a, 1).oper_vls, 4)  # the smaller VLCap
            q = f.port_info(b, 1)
            self.assertEqual((q.vl_cap, q.oper_vls), (4, 4))
            self.assertEqual(q.widths_enabled, frozenset({LinkWidth.W1X, LinkWidth.W4X}))
            self.assertEqual(q.speeds_enabled, frozenset({LinkSpeed.QDR, LinkSpeed.FDR}))
            with self.assertRaises(ibroute.InvalidArgumentError) as cm:
                f.set_port_attr(b, 1, vl_cap=4, oper_vls=8)
            self.assertIn("oper_vls 8 above vl_cap 4", str(cm.exception))
            self.assertEqual(f.port_info(b, 1).vl_cap, 4)  # unchanged
            with self.assertRaises(ibroute.RangeError):
                f.set_port_attr(b, 0)
            with f.freeze() as t:
                self.assertEqual(t.port_info(a, 1).oper_vls, 4)
                self.assertEqual(t.data_vls, 4)
                # b enables 1x and 4x, a only its active 1x: not throttled
                self.assertFalse(t.link_throttled(a, 1))
            f.set_port_attr(a, 1, widths_enabled=("1x", "4x"))
            with f.freeze() as t:
                self.assertTrue(t.link_throttled(a, 1))
                self.assertTrue(t.link_throttled(b, 1))
                self.assertFalse(t.link_throttled(a, 2))  # not cabled
                self.assertEqual(t.data_vls, 4)  # b keeps VLCap 4

    def test_lids(self):
        with ibroute.Fabric() as f:
            sw = f.add_switch(0x100, 4)
            a = f.add_ca(0x200)
            b = f.add_ca(0x300)
            f.add_link(sw, 1, a, 1)
            f.add_link(sw, 2, b, 1)
            f.set_lid(a, 1, 8, lmc=2)
            p = f.port_info(a, 1)
            self.assertEqual((p.lid, p.lmc, list(p.lids)), (8, 2, [8, 9, 10, 11]))
            f.assign_lids()
            self.assertEqual(f.port_info(a, 1).lid, 8)  # kept
            self.assertNotEqual(f.port_info(b, 1).lid, 0)
            self.assertNotEqual(f.port_info(sw, 0).lid, 0)
            f.assign_lids(lmc=1, reassign=True)
            lids = [f.port_info(n, p).lid for n, p in ((sw, 0), (a, 1), (b, 1))]
            self.assertEqual(f.port_info(a, 1).lmc, 1)
            self.assertEqual(len(set(lids)), 3)
            with f.freeze() as t:
                self.assertEqual(t.lid_owner(f.port_info(b, 1).lid), (b, 1))
                self.assertEqual(t.lid_owner(f.port_info(b, 1).lid + 1), (b, 1))

    def test_clone_is_independent(self):
        with line_fabric(3) as f, f.clone() as g:
            g.add_switch(0x5555, 2)
            self.assertEqual(f.node_count + 1, g.node_count)
            self.assertEqual(fabric_state(f)[0], fabric_state(g)[0][:-1])

    def test_freeze_twice_and_modify(self):
        with line_fabric(3) as f:
            t1 = f.freeze()
            f.set_link_state(0, 1, LinkState.DOWN)
            t2 = f.freeze()
            self.assertEqual(t1.port_info(0, 1).state, LinkState.ACTIVE)
            self.assertEqual(t2.port_info(0, 1).state, LinkState.DOWN)
            # a topology outlives its fabric
            f.close()
            self.assertEqual(t1.switch_count, 3)
            t1.close()
            t2.close()


class TestErrors(unittest.TestCase):
    def assertFails(self, cls, code_name, fragment, fn, *args, **kw):
        with self.assertRaises(cls) as cm:
            fn(*args, **kw)
        e = cm.exception
        self.assertIsInstance(e, ibroute.Error)
        self.assertEqual(e.name, code_name)
        self.assertEqual(e.code, dict(ibroute._capi.ERRNO_MAP)[code_name[4:]])
        self.assertIn(fragment, e.message)
        self.assertIn(code_name, str(e))
        return e

    def test_errors_carry_code_message_and_leave_fabric_unchanged(self):
        with line_fabric(3) as f:
            before = fabric_state(f)
            e = self.assertFails(ibroute.RangeError, "IBR_ERANGE", "port out of range",
                                 f.add_link, 0, 9, 1, 4)
            self.assertIn("0x0100000000000000", e.message)  # names the switch
            self.assertEqual(f.last_error, e.message)
            self.assertFails(ibroute.ExistsError, "IBR_EEXIST", "duplicate", f.add_switch,
                             2 << 56, 4)
            self.assertFails(ibroute.BusyError, "IBR_EBUSY", "", f.add_link, 0, 1, 2, 4)
            self.assertFails(ibroute.NotFoundError, "IBR_ENOTFOUND", "", f.add_link, 0, 4, 77, 1)
            self.assertFails(ibroute.InvalidArgumentError, "IBR_EINVAL", "", f.add_switch, 0, 4)
            self.assertFails(ibroute.InvalidArgumentError, "IBR_EINVAL", "", f.add_switch,
                             0x42, 255)
            self.assertFails(ibroute.ExistsError, "IBR_EEXIST", "", f.set_lid, 3, 1, 1)
            self.assertFails(ibroute.StateError, "IBR_ESTATE", "", f.generate,
                             "fattree:levels=2,radix=4")
            self.assertFails(ibroute.RangeError, "IBR_ERANGE", "", f.inject_faults, links=100)
            self.assertEqual(fabric_state(f), before)
            # a successful call clears the message
            f.add_switch(0x4242, 2)
            self.assertEqual(f.last_error, "")
            # exceptions also match the built-in families
            with self.assertRaises(LookupError):
                f.node_info(1000)
            with self.assertRaises(ValueError):
                f.add_link(0, 99, 1, 4)

    def test_python_side_range_checks(self):
        with ibroute.Fabric() as f:
            f.add_switch(0x100, 4)
            f.add_ca(0x200)
            f.add_link(0, 1, 1, 1)
            with self.assertRaises(ibroute.RangeError):
                f.set_lid(1, 1, 0x10000)  # would wrap to 0 in ctypes
            with self.assertRaises(ibroute.RangeError):
                f.add_switch(-1, 4)
            with self.assertRaises(TypeError):
                f.add_switch("0x100", 4)
            with self.assertRaises(ValueError):
                f.set_link_state(0, 1, "sideways")
            self.assertEqual(f.port_info(1, 1).lid, 0)

    def test_parse_errors_name_the_line(self):
        with ibroute.Fabric() as f:
            e = self.assertFails(ibroute.ParseError, "IBR_EPARSE", "line",
                                 f.parse_ibnetdiscover, "Switch 4 \"S-1\"\n[1] garbage here\n")
            self.assertEqual(f.node_count, 0)  # left empty
            self.assertIn("line", f.last_error)
            del e

    def test_parse_errors_escape_the_input(self):
        # a NUL or an escape sequence inside a node id is shown, not cut or
        # sent to a terminal
        with ibroute.Fabric() as f:
            text = b'Switch 4 "S-0000000000000010"\n[1] "H-00\x00zz\x1b[31m"[1]\n'
            e = self.assertFails(ibroute.ParseError, "IBR_EPARSE", "dangling",
                                 f.parse_ibnetdiscover, text)
            self.assertIn('unknown node "H-00\\x00zz\\x1b[31m"', f.last_error)
            del e

    def test_parse_text_without_nodes(self):
        # empty text, junk, an LFT dump: an error saying what was expected
        for text, why in (("", "the text is empty"), ("hello world", "no node record"),
                          ("Unicast lids [0x0-0x1] of switch Lid 1 guid 0x10 ('x'):\n",
                           "looks like forwarding tables")):
            with ibroute.Fabric() as f:
                self.assertFails(ibroute.ParseError, "IBR_EPARSE", why,
                                 f.parse_ibnetdiscover, text)
                self.assertEqual(f.node_count, 0)

    def test_generate_errors(self):
        with ibroute.Fabric() as f:
            self.assertFails(ibroute.InvalidArgumentError, "IBR_EINVAL", "bogus", f.generate,
                             "bogus:x=1")
            self.assertFails(ibroute.InvalidArgumentError, "IBR_EINVAL", "colour", f.generate,
                             "fattree:levels=2,radix=4,colour=3")
            self.assertEqual(f.node_count, 0)


class TestGenerators(unittest.TestCase):
    def count(self, f):
        with f.freeze() as t:
            return t.switch_count, t.endport_count

    def test_spec_strings(self):
        cases = {
            "fattree:levels=2,radix=8": (12, 32),
            "fattree:levels=3,radix=4": (20, 16),
            "torus:dims=3x3,hosts=2": (9, 18),
            "mesh:dims=4x2,hosts=1": (8, 8),
            "hypercube:dim=3,hosts=1": (8, 8),
            "dragonfly:a=2,h=1,p=1,g=3": (6, 6),
            "random:switches=10,degree=3,hosts=1,seed=5": (10, 10),
            "xgft:h=2,m=2.2,w=1.2": (4, 4),
        }
        for spec, expected in cases.items():
            with self.subTest(spec=spec), ibroute.Fabric.from_spec(spec) as f:
                self.assertEqual(self.count(f), expected)

    def test_generator_functions_equal_specs(self):
        pairs = [
            (lambda f: f.generate_fat_tree(2, 8), "fattree:levels=2,radix=8"),
            (lambda f: f.generate_xgft([2, 2], [1, 2]), "xgft:h=2,m=2.2,w=1.2"),
            (lambda f: f.generate_torus([3, 3], hosts=2), "torus:dims=3x3,hosts=2"),
            (lambda f: f.generate_torus([4, 2], wrap=False), "mesh:dims=4x2,hosts=1"),
            (lambda f: f.generate_hypercube(3), "hypercube:dim=3,hosts=1"),
            (lambda f: f.generate_dragonfly(2, 1, 1, 3), "dragonfly:a=2,p=1,h=1,g=3"),
            (lambda f: f.generate_random(10, 3, 1, 5), "random:switches=10,degree=3,seed=5"),
        ]
        for build, spec in pairs:
            with self.subTest(spec=spec):
                with ibroute.Fabric() as a, ibroute.Fabric.from_spec(spec) as b:
                    build(a)
                    with a.freeze() as ta, b.freeze() as tb:
                        self.assertEqual(ta.write_ibnetdiscover(), tb.write_ibnetdiscover())

    def test_generated_numbering(self):
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=4") as f:
            first = f.node_info(0)
            self.assertEqual(first.node_guid, 0x0002C90201000000)
            self.assertEqual(first.type, NodeType.SWITCH)
            host = f.node_info(6)
            self.assertEqual(host.type, NodeType.CA)
            self.assertEqual(host.node_guid, 0x0002C90301000000)
            self.assertEqual(host.desc, "H0 HCA-1")

    def test_inject_faults_is_seeded(self):
        def down(seed):
            with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f:
                f.inject_faults(links=3, switches=1, seed=seed)
                return sorted((l.node_a, l.port_a) for l in f.links()
                              if l.state == LinkState.DOWN)
        a, b, c = down(1), down(1), down(2)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertGreaterEqual(len(a), 3 + 1)


class TestParsers(unittest.TestCase):
    def test_ibnetdiscover_round_trip(self):
        with ibroute.Fabric.from_spec("torus:dims=3x2,hosts=1") as f, f.freeze() as t:
            text = t.write_ibnetdiscover()
        with ibroute.Fabric.from_ibnetdiscover(text) as g, g.freeze() as t2:
            self.assertEqual(t2.write_ibnetdiscover(), text)
            self.assertEqual(t2.switch_count, 6)
        # bytes work too
        with ibroute.Fabric.from_ibnetdiscover(text.encode()) as g:
            self.assertEqual(g.node_count, 12)

    def test_guid2lid(self):
        with line_fabric(2) as f:
            f.parse_guid2lid("# comment\n0x0000000000001001 0x20 0x23\n")
            p = f.port_info(2, 1)
            self.assertEqual((p.lid, p.lmc), (0x20, 2))
            before = fabric_state(f)
            with self.assertRaises(ibroute.ParseError) as cm:
                f.parse_guid2lid("0x0000000000001001 0x20 0x23\n0xdead 5 5\n")
            self.assertIn("line 2", cm.exception.message)
            self.assertEqual(fabric_state(f), before)


if __name__ == "__main__":
    unittest.main()
