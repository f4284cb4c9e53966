"""QoS configuration (qos_* keys) and the QoS tables of a result."""

import unittest

import _support  # noqa: F401

import ibroute


class TestQosConfig(unittest.TestCase):
    def test_defaults_and_families(self):
        with ibroute.QosConfig() as q:
            t = q.table("ca")
            self.assertEqual(t["sl2vl"], list(range(15)) + [7])
            self.assertEqual(t["vlarb_high"][:2], [(0, 4), (1, 0)])
            self.assertEqual(t["max_vls"], 15)
        conf = "routing_engine minhop\nqos_sl2vl 0,0,1,1\nqos_swe_high_limit 3\n"
        with ibroute.QosConfig(conf, qos_ca_vlarb_low=[(0, 8), (1, 8)]) as q:
            self.assertTrue(q.is_set("qos_sl2vl"))
            self.assertEqual(q.table("swe")["high_limit"], 3)
            self.assertEqual(q.table("rtr")["high_limit"], 0)
            self.assertEqual(q.table("sw0")["sl2vl"], [0, 0, 1, 1] + [0] * 12)
            self.assertEqual(q.table("ca")["vlarb_low"][:3], [(0, 8), (1, 8), (0, 0)])
            self.assertIn("qos_ca_vlarb_low 0:8,1:8\n", q.text())
            q.set("qos_sl2vl", None)
            self.assertFalse(q.is_set("qos_sl2vl"))

    def test_errors_leave_config(self):
        with ibroute.QosConfig("qos_sl2vl 1,1\n") as q:
            with self.assertRaises(ibroute.ParseError) as cm:
                q.parse("qos_sl2vl 0\n\nqos_vlarb_low 0:300\n")
            self.assertIn("line 3: qos_vlarb_low", str(cm.exception))
            self.assertEqual(q.table()["sl2vl"][:2], [1, 1])
            with self.assertRaises(ibroute.InvalidArgumentError):
                q.set("qos_policy_file", "x")
            with self.assertRaises(ValueError):
                q.table("nope")


if __name__ == "__main__":
    unittest.main()
