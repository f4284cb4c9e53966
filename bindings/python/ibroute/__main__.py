"""``python -m ibroute ARGS``: the ``ibr`` command with ARGS.

The command is a C program, installed beside the package: ``pip install .``
puts it in the environment's ``bin/`` (linked statically), the Debian
package ibroute-tools in ``/usr/bin``.  It is looked for there, next to
this Python, then on ``PATH`` (``$IBROUTE_IBR`` names it explicitly).  When
it is nowhere, this says where to get it and exits with status 2, as ``ibr``
does on a usage error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from typing import List, Optional


def find_ibr() -> Optional[str]:
    """Path of the ``ibr`` command, or None."""
    explicit = os.environ.get("IBROUTE_IBR")
    if explicit:
        return explicit
    for d in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        cand = os.path.join(d, "ibr")
        if d and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return shutil.which("ibr")


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    ibr = find_ibr()
    if ibr is None:
        from . import __version__, library_path
        sys.stderr.write(
            "python -m ibroute runs the ibr command, which is not installed here.\n"
            "Get it from the Debian package ibroute-tools (apt install ./ibroute-tools_*.deb),\n"
            "from 'pip install .' in the ibroute source tree (it installs ibr next to\n"
            "this Python), or build it: meson setup build && ninja -C build (build/src/ibr);\n"
            "set IBROUTE_IBR to its path to use that one.\n"
            f"(These bindings use libibroute {__version__} at {library_path}.)\n")
        return 2
    try:
        return subprocess.call([ibr] + list(args))
    except OSError as e:
        sys.stderr.write(f"python -m ibroute: cannot run {ibr}: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
