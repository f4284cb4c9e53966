"""GUID-list files (guidlist.h) through ibroute.parse_guid_list: values of
the three kinds, OpenSM's number syntax, and errors naming the line."""

import unittest

from _support import line_fabric

import ibroute
from ibroute import GuidListKind

U64_MAX = (1 << 64) - 1


class TestPlain(unittest.TestCase):
    def test_values_in_file_order_with_duplicates(self):
        text = ("# root switches\n"
                "0x0002c90000000010\n"
                "\n"
                "   0x0002C900000000FF   trailing words are ignored\n"
                "\t0x10#comment right after the number\n"
                "0x0002c90000000010\n")
        self.assertEqual(ibroute.parse_guid_list(text),
                         [0x0002C90000000010, 0x0002C900000000FF, 0x10, 0x0002C90000000010])

    def test_c_base_detection(self):
        # 0x hexadecimal, leading 0 octal, otherwise decimal
        self.assertEqual(ibroute.parse_guid_list("0x1f\n017\n17\n0\n"), [31, 15, 17, 0])
        self.assertEqual(ibroute.parse_guid_list("0xffffffffffffffff\n"), [U64_MAX])

    def test_empty_inputs(self):
        for text in ("", "\n\n", "# only a comment\n", "   \t\n  # x\n"):
            with self.subTest(text=text):
                got = ibroute.parse_guid_list(text)
                self.assertEqual(got, [])
                self.assertIsInstance(got, list)

    def test_line_endings_and_text_types(self):
        want = [0x1, 0x2]
        for text in ("0x1\r\n0x2\r\n", "0x1\n0x2", b"0x1\n0x2\n", bytearray(b"0x1\n0x2\n"),
                     memoryview(b"0x1\n0x2\n")):
            with self.subTest(text=text):
                self.assertEqual(ibroute.parse_guid_list(text), want)
        with self.assertRaises(TypeError):
            ibroute.parse_guid_list(0x1)
        with self.assertRaises(TypeError):
            ibroute.parse_guid_list(["0x1"])

    def test_kind_spellings(self):
        text = "0x5 7\n"
        self.assertEqual(ibroute.parse_guid_list(text, "plain"), [5])
        self.assertEqual(ibroute.parse_guid_list(text, GuidListKind.PLAIN), [5])
        self.assertEqual(ibroute.parse_guid_list(text, 0), [5])
        for kind in ("id", "ID", "ids", GuidListKind.ID, 1):
            with self.subTest(kind=kind):
                self.assertEqual(ibroute.parse_guid_list(text, kind), [(5, 7)])
        for kind in ("port", "Ports", GuidListKind.PORT, 2):
            with self.subTest(kind=kind):
                self.assertEqual(ibroute.parse_guid_list(text, kind), [(5, 7)])

    def test_bad_kinds(self):
        with self.assertRaises(ValueError) as cm:
            ibroute.parse_guid_list("0x1\n", "roots")
        self.assertIn("plain", str(cm.exception))
        # a number the library does not know: its IBR_EINVAL
        with self.assertRaises(ibroute.InvalidArgumentError) as cm:
            ibroute.parse_guid_list("0x1\n", 3)
        self.assertEqual(cm.exception.name, "IBR_EINVAL")
        with self.assertRaises(ibroute.RangeError):
            ibroute.parse_guid_list("0x1\n", -1)


class TestPairs(unittest.TestCase):
    def test_ids(self):
        text = ("# ids_guid_file\n"
                "0x0002c90000000001 5\n"
                "0x0002c90000000002\n"            # absent id means 0
                "0x0002c90000000003 0x10 # hex id and a comment\n"
                "0x0002c90000000004\t010\n"        # octal
                "0x0002c90000000005 18446744073709551615\n")
        self.assertEqual(ibroute.parse_guid_list(text, "id"), [
            (0x0002C90000000001, 5), (0x0002C90000000002, 0), (0x0002C90000000003, 16),
            (0x0002C90000000004, 8), (0x0002C90000000005, U64_MAX)])

    def test_ports(self):
        text = "0x0002c90000000001 1\n\n0x0002c90000000001 254\n0x2 0x0a\n"
        got = ibroute.parse_guid_list(text, "port")
        self.assertEqual(got, [(0x0002C90000000001, 1), (0x0002C90000000001, 254), (2, 10)])
        self.assertTrue(all(isinstance(p, tuple) and len(p) == 2 for p in got))


class TestErrors(unittest.TestCase):
    def check(self, text, kind, line, *words):
        with self.assertRaises(ibroute.ParseError) as cm:
            ibroute.parse_guid_list(text, kind)
        e = cm.exception
        self.assertEqual(e.code, ibroute.ParseError.default_code)
        self.assertEqual(e.name, "IBR_EPARSE")
        self.assertIsInstance(e, ValueError)
        self.assertTrue(e.message.startswith(f"line {line}:"), e.message)
        for w in words:
            self.assertIn(w, e.message)
        return e

    def test_bad_guids_name_their_line(self):
        # comments and blank lines count as lines
        self.check("# roots\n0x1\n\n  zz12\n0x2\n", "plain", 4, "bad GUID", "zz12")
        self.check("0x1\n0x2\n0x\n", "plain", 3, "bad GUID")
        self.check("0x10,0x20\n", "plain", 1, "0x10,0x20")         # needs white space
        self.check("0x1\n089\n", "plain", 2, "089")                # 8 and 9 are not octal
        self.check("0x1ffffffffffffffff\n", "plain", 1, "bad GUID")  # over 64 bits
        self.check("-1\n", "plain", 1, "'-1'")
        self.check("0x1\r\n0x2\r\n0xg\r\n", "plain", 3, "0xg")

    def test_bad_ids_and_ports(self):
        self.check("0x1 1\n0x2 seven\n", "id", 2, "bad id", "seven")
        self.check("0x1 1\n0x2 3x\n", "id", 2, "bad id")
        self.check("0x1 1\n0x2\n", "port", 2, "port number missing", "0x0000000000000002")
        self.check("0x1 1\n0x2 # no port\n", "port", 2, "port number missing")
        self.check("0x1 0\n", "port", 1, "out of range 1..254")
        self.check("0x1 1\n0x1 2\n0x1 255\n", "port", 3, "port 255", "1..254")
        self.check("0x1 p3\n", "port", 1, "bad port number", "p3")

    def test_plain_ignores_what_follows(self):
        # what fails an id or port file is fine in a plain one
        self.assertEqual(ibroute.parse_guid_list("0x1 seven\n0x2 0\n"), [1, 2])

    def test_the_same_lines_parse_once_fixed(self):
        text = "0x1\nbad\n0x3\n"
        with self.assertRaises(ibroute.ParseError):
            ibroute.parse_guid_list(text)
        self.assertEqual(ibroute.parse_guid_list(text.replace("bad", "0x2")), [1, 2, 3])


class TestContext(unittest.TestCase):
    def test_with_a_context(self):
        with ibroute.Context() as ctx:
            self.assertEqual(ibroute.parse_guid_list("0x1 2\n", "port", context=ctx), [(1, 2)])
            with self.assertRaises(ibroute.ParseError):
                ibroute.parse_guid_list("x\n", context=ctx)
        with self.assertRaises(ValueError):
            ibroute.parse_guid_list("0x1\n", context=ctx)  # closed
        with self.assertRaises(TypeError):
            ibroute.parse_guid_list("0x1\n", context=object())


class TestRouteOptions(unittest.TestCase):
    """Parsed lists go straight into Topology.route; the library reads
    them (the Python engine below sees exactly what was parsed)."""

    def test_parsed_lists_reach_the_engine(self):
        seen = {}

        def spy(run):
            seen.update(run.options)
            raise ibroute.DeclinedError("only looking")

        ctx = ibroute.Context()
        ctx.register_engine("spy", spy)
        roots = ibroute.parse_guid_list("0x100\n0x200\n")
        ids = ibroute.parse_guid_list("0x100 7\n0x200\n", "id")
        ports = ibroute.parse_guid_list("0x100 3\n", "port")
        with line_fabric(3, context=ctx) as f, f.freeze() as t:
            with t.route("spy", root_guids=roots, cn_guids=roots, io_guids=roots[:1],
                         guid_routing_order=roots, ids=ids, ignore_ports=ports) as r:
                self.assertEqual(r.engine, "minhop")
        self.assertEqual(seen["root_guids"], (0x100, 0x200))
        self.assertEqual(seen["cn_guids"], (0x100, 0x200))
        self.assertEqual(seen["io_guids"], (0x100,))
        self.assertEqual(seen["guid_routing_order"], (0x100, 0x200))
        self.assertEqual(seen["ids"], ((0x100, 7), (0x200, 0)))
        self.assertEqual(seen["ignore_ports"], ((0x100, 3),))
        ctx.close()

    def test_wrong_list_for_an_option(self):
        ids = ibroute.parse_guid_list("0x100 7\n", "id")
        with line_fabric(2) as f, f.freeze() as t:
            with self.assertRaises(TypeError) as cm:
                t.route(root_guids=ids)
            self.assertIn("root_guids[0]", str(cm.exception))
            with self.assertRaises(TypeError) as cm:
                t.route(ids=[0x100, 0x200])
            self.assertIn("ids[0]", str(cm.exception))
            with self.assertRaises(TypeError):
                t.route(ignore_ports="0x100 3\n")
            with self.assertRaises(ibroute.RangeError):
                t.route(ignore_ports=[(0x100, -3)])

    def test_ignored_port_is_not_counted(self):
        # OpenSM's port_prof_ignore_file: an ignored port's routes are not
        # counted in the load balance, so it stays the least loaded and
        # attracts the ties.  On a two-level fat tree a leaf spreads the
        # remote hosts evenly over its up ports unless one is ignored.
        with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as f, f.freeze() as t:
            leaf = next(s for s in range(t.switch_count)
                        if any(p.remote_node is not None and t.node_switch(p.remote_node) is None
                               for p in t.ports(t.switch_node(s))))
            node = t.switch_node(leaf)
            up = [p.port for p in t.ports(node)
                  if p.port and p.remote_node is not None
                  and t.node_switch(p.remote_node) is not None]
            remote = [t.port_info(n, 1).lid for n in range(t.node_count)
                      if t.node_switch(n) is None and t.port_info(n, 1).remote_node != node]
            guid = t.node_info(node).node_guid

            def load(**kw):
                with t.route("minhop", **kw) as r:
                    self.assertTrue(r.verify().ok)
                    lft = r.lft(leaf)
                    return {p: sum(lft[lid] == p for lid in remote) for p in up}

            even = load()
            self.assertEqual(len(set(even.values())), 1, even)
            ports = ibroute.parse_guid_list(f"0x{guid:x} {up[1]}\n", "port")
            self.assertEqual(ports, [(guid, up[1])])
            skewed = load(ignore_ports=ports)
            self.assertEqual(sum(skewed.values()), len(remote))
            self.assertGreater(skewed[up[1]], even[up[1]])
            self.assertEqual(skewed[up[1]], max(skewed.values()))

if __name__ == "__main__":
    unittest.main()
