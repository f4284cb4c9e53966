"""Shared helpers of the binding tests.

The tests run against the library named by IBROUTE_BUILD_DIR (a Meson
build directory) or IBROUTE_LIBRARY; Meson's `python` suite sets both
IBROUTE_BUILD_DIR and PYTHONPATH.  When PYTHONPATH is not set the package
is taken from the source tree next to this directory.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BINDINGS = os.path.dirname(HERE)
SOURCE_ROOT = os.path.dirname(os.path.dirname(BINDINGS))
INCLUDE = os.path.join(SOURCE_ROOT, "include")
EXAMPLES = os.path.join(BINDINGS, "examples")

if BINDINGS not in sys.path:
    sys.path.insert(0, BINDINGS)

import ibroute  # noqa: E402


def line_fabric(n=3, close=False, context=None):
    """n switches in a line (a ring with close=True), switch i with GUID
    (i+1) << 56 and LID 1+i, port 1 to the next switch, port 2 to the
    previous, one host on port 3 (GUID 0x1000 + 0x10*i, LID 10+i)."""
    f = ibroute.Fabric(context)
    for i in range(n):
        f.add_switch((i + 1) << 56, 4, "ring")
    for i in range(n if close else n - 1):
        f.add_link(i, 1, (i + 1) % n, 2)
    for i in range(n):
        f.add_ca(0x1000 + 0x10 * i, 1, "h")
        f.add_link(n + i, 1, i, 3)
        f.set_lid(i, 0, 1 + i)
        f.set_lid(n + i, 1, 10 + i)
    return f


def fabric_state(f):
    """Everything observable about a fabric, to prove a failed call left
    it unchanged."""
    nodes = list(f.nodes())
    ports = [f.port_info(n.index, p)
             for n in nodes for p in range(0 if n.is_switch else 1, n.nports + 1)]
    return nodes, ports
