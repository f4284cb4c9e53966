"""ibroute: InfiniBand routing (OpenSM's engines as a library), from Python.

The C library ``libibroute.so.0`` is loaded through ctypes when this package
is imported: from ``$IBROUTE_LIBRARY`` (a path to the .so), else from
``$IBROUTE_BUILD_DIR/src/libibroute.so.0`` (a Meson build directory), else
the copy inside the package (``pip install .``), else the installed one.
Import fails with ImportError when the library is missing, of an
incompatible version, or lacks a symbol.  ``python -m ibroute ARGS`` runs
the ``ibr`` command.

A short tour::

    import ibroute

    with ibroute.Fabric.from_spec("fattree:levels=2,radix=8") as fabric, \\
         fabric.freeze() as topo, \\
         topo.route("minhop", scatter_ports=True, seed=7) as result:
        print(result.engine, result.verify().avg_hops)
        lft = result.lft(0)              # memoryview, indexed by LID
        dump = result.write_lfts_dump()  # OpenSM's opensm-lfts.dump

Objects: :class:`Context` (logging, Python engines), :class:`Fabric`
(mutable builder, generators, parsers, faults), :class:`Topology` (frozen,
routable), :class:`McastGroups` (multicast groups for the routing),
:class:`Result` (LFTs, hops, SLs, SL2VL, multicast, artefacts,
verification, writers), :class:`QosConfig` (OpenSM's ``qos_*`` settings:
``route(..., qos=...)`` adds the SL2VL and VL arbitration tables OpenSM's
QoS manager programs); :func:`parse_guid_list` reads OpenSM's GUID-list
files (roots, ids, ignored ports) for the routing options.  Errors raise
:class:`Error` subclasses carrying the library's code and message.
Optional networkx conversions live in :mod:`ibroute.nx`.
"""

from . import _capi, _core, errors
from ._capi import (
    LMC_TOPO,
    MAX_UNICAST_LID,
    NO_ROUTE,
    ChangeKind,
    EngineCaps,
    GuidListKind,
    HopStatus,
    Invalidates,
    LidFlags,
    LinkSpeed,
    LinkState,
    LinkWidth,
    LogLevel,
    McastFlags,
    McastJoin,
    McastTrees,
    QosTarget,
    NodeType,
    Pattern,
    RerouteMode,
    SettingType,
    SLMode,
    SwitchDump,
    UcastFlags,
    Workload,
)

_lib = _capi.load()
_core._lib = _lib
errors._lib = _lib

from ._core import (  # noqa: E402
    OPTION_NAMES,
    Allocator,
    Attempt,
    Change,
    Context,
    EngineInfo,
    Fabric,
    Link,
    McastGroup,
    McastGroups,
    McastHop,
    McastMember,
    NodeInfo,
    PortInfo,
    QosConfig,
    RerouteReport,
    Result,
    RoutingDb,
    Setting,
    Status,
    Topology,
    VerifyReport,
    engines,
    find_engine,
    parse_guid_list,
)
from ._quality import (  # noqa: E402
    Analysis,
    AnalysisSummary,
    Channel,
    PatternStats,
    Trace,
    TraceHop,
)
from .errors import (  # noqa: E402
    BusyError,
    CanceledError,
    DeadlockError,
    DeclinedError,
    Error,
    ExistsError,
    InternalError,
    InvalidArgumentError,
    NoSpaceError,
    NotFoundError,
    NoVLError,
    OutOfMemoryError,
    ParseError,
    RangeError,
    RoutesError,
    StateError,
    UnroutableError,
    UnsupportedError,
    VersionError,
)

#: Absolute path (a str) of the shared library file these bindings loaded,
#: also when it was found by the dynamic linker from its soname.
library_path: str = _lib.path


def version() -> int:
    """Run-time library version as major * 10000 + minor * 100 + patch."""
    return _lib.ibr_version()


def version_string() -> str:
    """Run-time library version string, e.g. "0.1.0"."""
    return _lib.ibr_version_string().decode()


def strerror(code: int) -> str:
    """The library's description of an error code."""
    return _lib.ibr_strerror(code).decode()


def status_name(code: int) -> str:
    """Symbolic name of an error code ("IBR_ENOMEM")."""
    return _lib.ibr_status_name(code).decode()


__version__ = version_string()

__all__ = [
    "Analysis", "AnalysisSummary", "Channel", "DeadlockError", "Pattern", "PatternStats",
    "Trace", "TraceHop",
    "Change", "ChangeKind", "Invalidates", "RerouteMode", "RerouteReport", "RoutingDb",
    "Allocator", "Attempt", "BusyError", "CanceledError", "Context", "DeclinedError", "EngineCaps",
    "EngineInfo", "Error", "ExistsError", "Fabric", "GuidListKind", "HopStatus", "InternalError",
    "InvalidArgumentError",
    "LMC_TOPO", "LidFlags", "Link", "LinkSpeed", "LinkState", "LinkWidth", "LogLevel",
    "MAX_UNICAST_LID", "McastFlags", "McastGroup", "McastGroups", "McastHop", "McastJoin",
    "McastMember", "McastTrees", "NO_ROUTE", "NoSpaceError", "NoVLError", "NodeInfo", "NodeType",
    "NotFoundError", "OPTION_NAMES", "OutOfMemoryError", "ParseError", "PortInfo",
    "QosConfig", "QosTarget",
    "RangeError", "Result", "RoutesError", "SLMode", "Setting", "SwitchDump",
    "Status", "SettingType", "StateError", "Topology", "UcastFlags",
    "UnroutableError", "UnsupportedError", "VerifyReport", "VersionError", "Workload",
    "engines", "find_engine", "library_path", "parse_guid_list", "status_name", "strerror",
    "version", "version_string",
]
