"""Low-level ctypes declarations of libibroute (private).

Everything the bindings know about the C library is in this module: how to
find the shared object, the structures (mirroring ``include/ibroute/*.h``
field by field), the enumerations and constants, and ONE table of
``(name, argtypes, restype)`` for every C function the bindings call, in
the manner of clang's ``cindex.py``.  :func:`load` resolves every entry of
the table and fails loudly (``ImportError``) when the library cannot be
found, is of an incompatible version, or lacks a symbol.

The test ``tests/test_headers.py`` parses the public headers and checks
this module against them: function names and parameter counts, enum and
constant values, and ``sizeof``/``offsetof`` of every structure.
"""

from __future__ import annotations

import ctypes
import enum
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Dict, List, Optional, Sequence, Tuple

# --------------------------------------------------------------------------
# Version the bindings were written for.
# --------------------------------------------------------------------------

#: The library's major version must equal this.
BINDINGS_MAJOR = 0
#: The library's minor version must be at least this.
BINDINGS_MINOR = 1

SONAME = "libibroute.so.0"

# --------------------------------------------------------------------------
# Constants (#define in the headers).  The header test checks every entry.
# --------------------------------------------------------------------------

CONSTANTS: Dict[str, int] = {
    "IBR_NO_ROUTE": 255,
    "IBR_MAX_UNICAST_LID": 0xBFFF,
    "IBR_NONE": 0xFFFFFFFF,
    "IBR_LMC_TOPO": 0xFF,
    "IBR_OPTIONS_VERSION": 3,
    "IBR_VERIFY_REPORT_VERSION": 4,
    "IBR_MLID_MIN": 0xC000,
    "IBR_MLID_MAX": 0xFFFE,
    "IBR_CONTEXT_CONFIG_VERSION": 1,
    "IBR_GEN_XGFT_VERSION": 1,
    "IBR_XGFT_MAX_LEVELS": 6,
    "IBR_ENGINE_VERSION": 1,
    "IBR_ANALYZE_OPTIONS_VERSION": 2,
    "IBR_ANALYSIS_SUMMARY_VERSION": 1,
    "IBR_LINK_ATTR_VERSION": 1,
    "IBR_NODE_INFO_VERSION": 1,
    "IBR_PORT_INFO_VERSION": 2,
    "IBR_PORT_ATTR_VERSION": 1,
    "IBR_ROUTING_DB_FORMAT": 1,
    "IBR_REROUTE_FORCE_FULL": 1,
    "IBR_REROUTE_FALLBACK": 2,
    "IBR_REROUTE_REPORT_VERSION": 3,
    "IBR_REROUTE_BLOCK_BUCKETS": 11,
}

NO_ROUTE = CONSTANTS["IBR_NO_ROUTE"]
MAX_UNICAST_LID = CONSTANTS["IBR_MAX_UNICAST_LID"]
NONE = CONSTANTS["IBR_NONE"]
LMC_TOPO = CONSTANTS["IBR_LMC_TOPO"]
OPTIONS_VERSION = CONSTANTS["IBR_OPTIONS_VERSION"]
VERIFY_REPORT_VERSION = CONSTANTS["IBR_VERIFY_REPORT_VERSION"]
CONTEXT_CONFIG_VERSION = CONSTANTS["IBR_CONTEXT_CONFIG_VERSION"]
GEN_XGFT_VERSION = CONSTANTS["IBR_GEN_XGFT_VERSION"]
XGFT_MAX_LEVELS = CONSTANTS["IBR_XGFT_MAX_LEVELS"]
ENGINE_VERSION = CONSTANTS["IBR_ENGINE_VERSION"]
ANALYZE_OPTIONS_VERSION = CONSTANTS["IBR_ANALYZE_OPTIONS_VERSION"]
ANALYSIS_SUMMARY_VERSION = CONSTANTS["IBR_ANALYSIS_SUMMARY_VERSION"]
LINK_ATTR_VERSION = CONSTANTS["IBR_LINK_ATTR_VERSION"]
NODE_INFO_VERSION = CONSTANTS["IBR_NODE_INFO_VERSION"]
PORT_INFO_VERSION = CONSTANTS["IBR_PORT_INFO_VERSION"]
PORT_ATTR_VERSION = CONSTANTS["IBR_PORT_ATTR_VERSION"]

#: The versioned structures (leading ``version`` field), with the version
#: these bindings declare.  Each is initialised by its C
#: ``ibr_<struct>_init()`` (never by defaults copied into Python), and the
#: library reads or writes no more of it than that version has.
STRUCT_VERSIONS: Dict[str, int] = {
    "ibr_context_config": CONTEXT_CONFIG_VERSION,
    "ibr_link_attr": LINK_ATTR_VERSION,
    "ibr_node_info": NODE_INFO_VERSION,
    "ibr_port_info": PORT_INFO_VERSION,
    "ibr_port_attr": PORT_ATTR_VERSION,
    "ibr_options": OPTIONS_VERSION,
    "ibr_engine": ENGINE_VERSION,
    "ibr_verify_report": VERIFY_REPORT_VERSION,
    "ibr_analyze_options": ANALYZE_OPTIONS_VERSION,
    "ibr_analysis_summary": ANALYSIS_SUMMARY_VERSION,
    "ibr_gen_xgft": GEN_XGFT_VERSION,
    "ibr_reroute_report": CONSTANTS["IBR_REROUTE_REPORT_VERSION"],
}

# --------------------------------------------------------------------------
# Error codes: the IBR_ERRNO_MAP of common.h, as (name without IBR_, value).
# --------------------------------------------------------------------------

ERRNO_MAP: Tuple[Tuple[str, int], ...] = (
    ("EINVAL", -1),
    ("ENOMEM", -2),
    ("ENOTFOUND", -3),
    ("EEXIST", -4),
    ("ERANGE", -5),
    ("EBUSY", -6),
    ("EPARSE", -7),
    ("ENOSPC", -8),
    ("EDECLINED", -9),
    ("EUNROUTABLE", -10),
    ("ENOVL", -11),
    ("EVERSION", -12),
    ("ECANCELED", -13),
    ("ESTATE", -14),
    ("EUNSUPPORTED", -15),
    ("EINTERNAL", -16),
    ("EROUTES", -17),
    ("EDEADLOCK", -18),
)

# --------------------------------------------------------------------------
# Enumerations.  ENUM_PREFIXES maps each class to the prefix of its
# members' C names (NodeType.SWITCH is IBR_NODE_SWITCH).
# --------------------------------------------------------------------------


class NodeType(enum.IntEnum):
    """ibr_node_type: InfiniBand NodeInfo NodeType values."""

    CA = 1
    SWITCH = 2
    ROUTER = 3


class LinkWidth(enum.IntEnum):
    """ibr_link_width: LinkWidthActive encoding."""

    UNKNOWN = 0
    W1X = 1
    W4X = 2
    W8X = 4
    W12X = 8
    W2X = 16


class LinkSpeed(enum.IntEnum):
    """ibr_link_speed: per-lane speed."""

    UNKNOWN = 0
    SDR = 1
    DDR = 2
    QDR = 3
    FDR10 = 4
    FDR = 5
    EDR = 6
    HDR = 7
    NDR = 8
    XDR = 9


class LinkState(enum.IntEnum):
    """ibr_link_state: a down link stays cabled but carries no route."""

    ACTIVE = 0
    DOWN = 1


class LidFlags(enum.IntEnum):
    """ibr_lid_flags for ibr_fabric_assign_lids()."""

    KEEP = 0
    REASSIGN = 1


class SLMode(enum.IntEnum):
    """ibr_sl_mode: how a result stores path SLs."""

    NONE = 0
    PER_DEST = 1
    PER_PAIR = 2


class EngineCaps(enum.IntFlag):
    """ibr_engine_caps bits."""

    LMC = 1 << 0
    NEEDS_VLS = 1 << 1
    SL = 1 << 2
    SL2VL = 1 << 3
    MCAST = 1 << 4
    DEADLOCK_FREE = 1 << 5
    MINIMAL = 1 << 6
    EXPERIMENTAL = 1 << 7
    OWN_SL2VL = 1 << 8


class LogLevel(enum.IntEnum):
    """ibr_log_level, most severe first."""

    ERROR = 0
    WARN = 1
    INFO = 2
    DEBUG = 3


class Pattern(enum.IntFlag):
    """ibr_pattern: traffic patterns of ibr_result_analyze()."""

    ALL_TO_ALL = 1 << 0
    SHIFT = 1 << 1
    PERMUTATION = 1 << 2
    BISECTION = 1 << 3
    ALL = 0xF


class Workload(enum.IntFlag):
    """ibr_workload: workloads of ibr_result_analyze() over a rank order."""

    RING = 1 << 0
    RD = 1 << 1
    RAIL_RING = 1 << 2
    RAIL_RD = 1 << 3
    ALL_TO_ALL = 1 << 4
    MOE = 1 << 5
    GRID = 1 << 6
    SHIFT = 1 << 7
    PERMUTATION = 1 << 8
    ALL = 0x1FF


class SettingType(enum.IntEnum):
    """ibr_setting_type: the type of an engine setting."""

    BOOL = 1
    INT = 2
    STRING = 3


class HopStatus(enum.IntEnum):
    """ibr_hop_status: what a switch does with a traced packet (the last
    hop of a trace says how the route ends)."""

    FORWARDED = 0
    DELIVERED = 1
    NO_ROUTE = 2
    NOT_OWNER = 3
    NO_PORT = 4
    UNCABLED = 5
    DOWN_LINK = 6
    DEAD_END = 7
    LOOP = 8


class GuidListKind(enum.IntEnum):
    """ibr_guid_list_kind: what follows the GUID on each line of a
    GUID-list file."""

    PLAIN = 0
    ID = 1
    PORT = 2


class UcastFlags(enum.IntFlag):
    """ibr_ucast_flags: how ibr_run_ucast_ex() searches the candidates."""

    SEARCH_ORDER = 1 << 0
    LMC_REMOTE_PORT = 1 << 1


class QosTarget(enum.IntEnum):
    """ibr_qos_target: which family of qos_* keys (global or a port
    type's)."""

    GLOBAL = 0
    CA = 1
    RTR = 2
    SW0 = 3
    SWE = 4


VLARB_ENTRIES = 64


class McastJoin(enum.IntFlag):
    """ibr_mcast_join: JoinState bits of a multicast member."""

    FULL = 1 << 0
    NON = 1 << 1
    SENDONLY = 1 << 2
    SENDONLY_FULL = 1 << 3


class SwitchDump(enum.IntEnum):
    """ibr_switch_dump: the per-switch dumps (ibr_result_write_switches())."""

    LFTS = 0
    IBROUTE = 1
    FDBS = 2
    LID_MATRIX = 3
    IBDIAGNET_FDBS = 4


class McastFlags(enum.IntFlag):
    """ibr_mcast_flags: how the library builds the default multicast trees."""

    BALANCE = 1 << 0
    OPENSM = 1 << 1


class McastTrees(enum.IntEnum):
    """ibr_mcast_trees: who built a result's multicast trees."""

    NONE = 0
    OPENSM = 1
    BALANCED = 2
    ENGINE = 3
    SPANNING = 4


class ChangeKind(enum.IntEnum):
    """ibr_change_kind: a difference between a routing database and a
    topology (Table 1 of the OpenSM scalability memo)."""

    NEW_SWITCH = 1
    MISSING_SWITCH = 2
    NEW_CABLE = 3
    MISSING_CABLE = 4
    NEW_CA = 5
    MISSING_CA = 6
    MOVED_CA = 7
    LID = 8


class Invalidates(enum.IntFlag):
    """ibr_invalidates: what a change invalidates."""

    HOPS = 1
    ALL = 2
    PORT_ROUTES = 4
    LIDS = 8


class RerouteMode(enum.IntEnum):
    """ibr_reroute_mode: how a routing database was applied."""

    UNCHANGED = 0
    CACHED = 1
    INCREMENTAL = 2
    FULL = 3


def _width_c_name(member: str) -> str:
    # W4X -> 4X: Python names cannot start with a digit.
    return member[1:] if member.startswith("W") and member[1:2].isdigit() else member


#: enum class -> (C prefix, function turning a member name into the C suffix)
ENUM_PREFIXES = {
    NodeType: ("IBR_NODE_", str),
    LinkWidth: ("IBR_WIDTH_", _width_c_name),
    LinkSpeed: ("IBR_SPEED_", str),
    LinkState: ("IBR_LINK_", str),
    LidFlags: ("IBR_LIDS_", str),
    SLMode: ("IBR_SL_", str),
    SwitchDump: ("IBR_SWITCH_DUMP_", str),
    EngineCaps: ("IBR_CAP_", str),
    LogLevel: ("IBR_LOG_", str),
    Pattern: ("IBR_PATTERN_", str),
    Workload: ("IBR_WORKLOAD_", str),
    GuidListKind: ("IBR_GUID_LIST_", str),
    SettingType: ("IBR_SETTING_", str),
    HopStatus: ("IBR_HOP_", str),
    UcastFlags: ("IBR_UCAST_", str),
    ChangeKind: ("IBR_CHANGE_", str),
    Invalidates: ("IBR_INVALID_", str),
    RerouteMode: ("IBR_REROUTE_", str),
    McastJoin: ("IBR_MCAST_JOIN_", str),
    QosTarget: ("IBR_QOS_", str),
    McastFlags: ("IBR_MCAST_", str),
    McastTrees: ("IBR_MCAST_TREES_", str),
}


def c_enum_name(cls: type, member: str) -> str:
    """The C name of enum member *member* of class *cls*."""
    prefix, fn = ENUM_PREFIXES[cls]
    return prefix + fn(member)


# C enums are int-sized with every compiler we target.
c_enum = c_int

# --------------------------------------------------------------------------
# Opaque handles.  Distinct pointer types let ctypes reject a topology
# passed where a fabric is expected.
# --------------------------------------------------------------------------


class _OpaqueContext(Structure):
    pass


class _OpaqueFabric(Structure):
    pass


class _OpaqueTopo(Structure):
    pass


class _OpaqueResult(Structure):
    pass


class _OpaqueRun(Structure):
    pass


class _OpaqueAnalysis(Structure):
    pass


class _OpaqueGuidList(Structure):
    pass


class _OpaqueRankOrder(Structure):
    pass


class _OpaqueLftsStream(Structure):
    pass


class _OpaqueRoutingDb(Structure):
    pass


class _OpaqueMcastGroups(Structure):
    pass


class _OpaqueQosConfig(Structure):
    pass


ContextP = POINTER(_OpaqueContext)
FabricP = POINTER(_OpaqueFabric)
TopoP = POINTER(_OpaqueTopo)
ResultP = POINTER(_OpaqueResult)
RunP = POINTER(_OpaqueRun)
AnalysisP = POINTER(_OpaqueAnalysis)
GuidListP = POINTER(_OpaqueGuidList)
RankOrderP = POINTER(_OpaqueRankOrder)
LftsStreamP = POINTER(_OpaqueLftsStream)
RoutingDbP = POINTER(_OpaqueRoutingDb)
McastGroupsP = POINTER(_OpaqueMcastGroups)
QosConfigP = POINTER(_OpaqueQosConfig)

# --------------------------------------------------------------------------
# Callback types.
# --------------------------------------------------------------------------

MALLOC_FN = CFUNCTYPE(c_void_p, c_void_p, c_size_t)
REALLOC_FN = CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_size_t)
FREE_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: ibr_log_fn: void (*)(void *user, int level, const char *msg)
LOG_FN = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
#: ibr_progress_fn: int (*)(void *user, const char *phase, uint64_t done, uint64_t total)
PROGRESS_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_uint64, c_uint64)
#: ibr_engine_route_fn: int (*)(ibr_run *run, void *user)
ENGINE_ROUTE_FN = CFUNCTYPE(c_int, RunP, c_void_p)
#: ibr_parallel_fn: int (*)(void *arg, unsigned int worker, size_t i)
PARALLEL_FN = CFUNCTYPE(c_int, c_void_p, c_uint, c_size_t)
#: ibr_cand_fn: void (*)(void *arg, uint32_t sw, uint32_t *cand_off, uint8_t *cand)
CAND_FN = CFUNCTYPE(None, c_void_p, c_uint32, POINTER(c_uint32), POINTER(c_uint8))

# --------------------------------------------------------------------------
# Structures, field for field as in the headers.
# --------------------------------------------------------------------------


class ibr_allocator(Structure):
    _fields_ = [
        ("malloc_fn", MALLOC_FN),
        ("realloc_fn", REALLOC_FN),
        ("free_fn", FREE_FN),
        ("user", c_void_p),
    ]


class ibr_context_config(Structure):
    _fields_ = [
        ("version", c_uint),
        ("alloc", POINTER(ibr_allocator)),
        ("log", LOG_FN),
        ("log_user", c_void_p),
        ("log_level", c_int),
    ]


class ibr_link_attr(Structure):
    _fields_ = [
        ("version", c_uint),
        ("width", c_enum),
        ("speed", c_enum),
        ("state", c_enum),
    ]


class ibr_node_info(Structure):
    _fields_ = [
        ("version", c_uint),
        ("type", c_enum),
        ("nports", c_uint),
        ("node_guid", c_uint64),
        ("sysimg_guid", c_uint64),
        ("port0_guid", c_uint64),
        ("desc", c_char_p),
    ]


class ibr_port_info(Structure):
    _fields_ = [
        ("version", c_uint),
        ("guid", c_uint64),
        ("lid", c_uint16),
        ("lmc", c_uint8),
        ("state", c_uint8),
        ("remote_node", c_uint32),
        ("remote_port", c_uint),
        ("width", c_enum),
        ("speed", c_enum),
        # version 2
        ("vl_cap", c_uint),
        ("oper_vls", c_uint),
        ("width_enabled", c_uint),
        ("speed_enabled", c_uint),
    ]


class ibr_port_attr(Structure):
    _fields_ = [
        ("version", c_uint),
        ("vl_cap", c_uint),
        ("oper_vls", c_uint),
        ("width_enabled", c_uint),
        ("speed_enabled", c_uint),
    ]


class ibr_guid_port(Structure):
    _fields_ = [
        ("guid", c_uint64),
        ("port", c_uint),
    ]


class ibr_guid_id(Structure):
    _fields_ = [
        ("guid", c_uint64),
        ("id", c_uint64),
    ]


class ibr_param(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("value", c_char_p),
    ]


class ibr_setting(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", c_enum),
        ("min", c_int64),
        ("max", c_int64),
        ("def", c_int64),
        ("def_str", c_char_p),
        ("help", c_char_p),
    ]


class ibr_switch_link(Structure):
    _fields_ = [
        ("sw", c_uint32),
        ("port", c_uint8),
        ("rport", c_uint8),
    ]


class ibr_options(Structure):
    _fields_ = [
        ("version", c_uint),
        ("lmc", c_uint),
        ("max_vls", c_uint),
        ("seed", c_uint64),
        ("scatter_ports", c_int),
        ("port_shifting", c_int),
        ("port_profile_switch_nodes", c_int),
        ("root_guids", POINTER(c_uint64)),
        ("n_root_guids", c_size_t),
        ("cn_guids", POINTER(c_uint64)),
        ("n_cn_guids", c_size_t),
        ("io_guids", POINTER(c_uint64)),
        ("n_io_guids", c_size_t),
        ("guid_routing_order", POINTER(c_uint64)),
        ("n_guid_routing_order", c_size_t),
        ("guid_routing_order_no_scatter", c_int),
        ("ignore_ports", POINTER(ibr_guid_port)),
        ("n_ignore_ports", c_size_t),
        ("ids", POINTER(ibr_guid_id)),
        ("n_ids", c_size_t),
        ("threads", c_uint),
        ("progress", PROGRESS_FN),
        ("progress_user", c_void_p),
        ("params", POINTER(ibr_param)),
        ("n_params", c_size_t),
        ("mcast_groups", McastGroupsP),
        ("mcast_flags", c_uint),
        ("qos", QosConfigP),
    ]


class ibr_engine_info(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("description", c_char_p),
        ("caps", c_uint),
        ("builtin", c_int),
        ("settings", POINTER(ibr_setting)),
        ("n_settings", c_size_t),
    ]


class ibr_engine(Structure):
    _fields_ = [
        ("version", c_uint),
        ("name", c_char_p),
        ("description", c_char_p),
        ("caps", c_uint),
        ("route", ENGINE_ROUTE_FN),
        ("user", c_void_p),
        ("settings", POINTER(ibr_setting)),
        ("n_settings", c_size_t),
    ]


class ibr_verify_report(Structure):
    _fields_ = [
        ("version", c_uint),
        ("routes_checked", c_uint64),
        ("routes_ok", c_uint64),
        ("missing", c_uint64),
        ("loops", c_uint64),
        ("bad_port", c_uint64),
        ("down_link", c_uint64),
        ("dead_end", c_uint64),
        ("unreachable", c_uint64),
        ("spurious", c_uint64),
        ("restricted", c_uint64),
        ("nonminimal", c_uint64),
        ("pairs", c_uint64),
        ("pairs_ok", c_uint64),
        ("avg_hops", c_double),
        ("max_hops", c_uint),
        ("avg_stretch", c_double),
        ("max_stretch", c_double),
        ("links", c_uint64),
        ("max_link_load", c_uint64),
        ("mean_link_load", c_double),
        ("deadlock_free", c_int),
        ("first_error", c_char * 256),
        ("credit_loop_length", c_uint),
        ("credit_loop", c_char * 512),
        ("threads", c_uint),
        ("strict", c_int),
        ("first_missing", c_char * 256),
        ("mcast_groups", c_uint64),
        ("mcast_pairs", c_uint64),
        ("mcast_pairs_ok", c_uint64),
        ("mcast_missed", c_uint64),
        ("mcast_duplicates", c_uint64),
        ("mcast_loops", c_uint64),
        ("mcast_dead_ends", c_uint64),
        ("first_mcast_error", c_char * 256),
    ]


class ibr_vlarb_entry(Structure):
    _fields_ = [("vl", c_uint8), ("weight", c_uint8)]


class ibr_qos_table(Structure):
    _fields_ = [
        ("max_vls", c_uint),
        ("high_limit", c_uint),
        ("vlarb_high", ibr_vlarb_entry * VLARB_ENTRIES),
        ("vlarb_low", ibr_vlarb_entry * VLARB_ENTRIES),
        ("sl2vl", c_uint8 * 16),
    ]


class ibr_vlarb(Structure):
    _fields_ = [
        ("high_limit", c_uint),
        ("n_high", c_uint),
        ("n_low", c_uint),
        ("high", ibr_vlarb_entry * VLARB_ENTRIES),
        ("low", ibr_vlarb_entry * VLARB_ENTRIES),
    ]


class ibr_sl_hazard(Structure):
    _fields_ = [
        ("node", c_uint32),
        ("in_port", c_uint),
        ("out_port", c_uint),
        ("sl_a", c_uint),
        ("sl_b", c_uint),
        ("vl", c_uint),
        ("masked", c_int),
        ("count", c_uint64),
    ]


class ibr_mcast_member(Structure):
    _fields_ = [
        ("guid", c_uint64),
        ("port", c_uint),
        ("node", c_uint32),
        ("join_state", c_uint),
    ]


class ibr_mcast_hop(Structure):
    _fields_ = [
        ("sw", c_uint32),
        ("in_port", c_uint),
        ("out_port", c_uint),
        ("to_node", c_uint32),
        ("to_port", c_uint),
        ("depth", c_uint),
        ("duplicate", c_int),
    ]


class ibr_channel(Structure):
    _fields_ = [
        ("sw", c_uint32),
        ("port", c_uint),
        ("vl", c_uint),
    ]


class ibr_trace_hop(Structure):
    _fields_ = [
        ("sw", c_uint32),
        ("in_port", c_uint),
        ("out_port", c_uint),
        ("vl", c_uint),
        ("status", c_enum),
    ]


class ibr_analyze_options(Structure):
    _fields_ = [
        ("version", c_uint),
        ("patterns", c_uint),
        ("n_random", c_uint),
        ("seed", c_uint64),
        ("base_lid_only", c_int),
        ("threads", c_uint),
        # version 2
        ("workloads", c_uint),
        ("rank_guids", POINTER(c_uint64)),
        ("n_ranks", c_size_t),
        ("grid", c_uint * 3),
        ("moe_group", c_uint),
        ("moe_fanout", c_uint),
        ("rails", c_uint),
        ("top_links", c_uint),
    ]


class ibr_pattern_stats(Structure):
    _fields_ = [
        ("patterns", c_uint),
        ("flows", c_uint64),
        ("unrouted", c_uint64),
        ("max_congestion", c_uint64),
        ("mean_max_congestion", c_double),
        ("congestion_free", c_uint64),
        ("ebb", c_double),
    ]


class ibr_analysis_summary(Structure):
    _fields_ = [
        ("version", c_uint),
        ("endports", c_uint32),
        ("pairs", c_uint64),
        ("pairs_routed", c_uint64),
        ("avg_hops", c_double),
        ("max_hops", c_uint),
        ("avg_stretch", c_double),
        ("max_stretch", c_double),
        ("links", c_uint64),
        ("max_link_load", c_uint64),
        ("mean_link_load", c_double),
        ("load_ratio", c_double),
        ("vls_used", c_uint),
        ("all_to_all", ibr_pattern_stats),
        ("shift", ibr_pattern_stats),
        ("permutation", ibr_pattern_stats),
        ("bisection", ibr_pattern_stats),
    ]


class ibr_buffer(Structure):
    _fields_ = [
        ("data", POINTER(c_char)),
        ("size", c_size_t),
        ("capacity", c_size_t),
        ("ctx", ContextP),
    ]


class ibr_change(Structure):
    _fields_ = [
        ("kind", c_int),
        ("invalidates", c_uint),
        ("guid", c_uint64),
        ("port", c_uint),
        ("remote_guid", c_uint64),
        ("remote_port", c_uint),
        ("old_lid", c_uint16),
        ("new_lid", c_uint16),
    ]


class ibr_reroute_report(Structure):
    _fields_ = [
        ("version", c_uint),
        ("mode", c_int),
        ("reason", c_char * 256),
        ("changes", c_size_t),
        ("invalidates", c_uint),
        ("lft_entries_changed", c_uint64),
        ("switches_changed", c_uint32),
        ("sls_changed", c_uint64),
        ("destinations_rerouted", c_uint32),
        ("entries_repaired", c_uint64),
        # version 2
        ("engine", c_char * 64),
        ("fallback", c_int),
        ("warning", c_char * 256),
        # version 3
        ("lft_blocks_changed", c_uint64),
        ("lft_blocks_max", c_uint32),
        ("lft_blocks_hist", c_uint32 * CONSTANTS["IBR_REROUTE_BLOCK_BUCKETS"]),
        ("sl2vl_tables_changed", c_uint64),
        ("lft_blocks_over_lost", c_uint64),
    ]


class ibr_gen_xgft(Structure):
    _fields_ = [
        ("version", c_uint),
        ("h", c_uint),
        ("m", c_uint * XGFT_MAX_LEVELS),
        ("w", c_uint * XGFT_MAX_LEVELS),
        ("hosts", c_uint),
    ]


#: C struct name -> ctypes class; the header test compares their layouts.
STRUCTS: Dict[str, type] = {
    cls.__name__: cls
    for cls in (
        ibr_allocator,
        ibr_context_config,
        ibr_link_attr,
        ibr_node_info,
        ibr_port_info,
        ibr_port_attr,
        ibr_guid_port,
        ibr_guid_id,
        ibr_param,
        ibr_setting,
        ibr_switch_link,
        ibr_options,
        ibr_engine_info,
        ibr_engine,
        ibr_verify_report,
        ibr_channel,
        ibr_trace_hop,
        ibr_analyze_options,
        ibr_pattern_stats,
        ibr_analysis_summary,
        ibr_buffer,
        ibr_gen_xgft,
        ibr_change,
        ibr_reroute_report,
        ibr_vlarb_entry,
        ibr_qos_table,
        ibr_vlarb,
        ibr_sl_hazard,
        ibr_mcast_member,
        ibr_mcast_hop,
    )
}

# --------------------------------------------------------------------------
# THE function table: (name, argtypes, restype).
# --------------------------------------------------------------------------

_u8p = POINTER(c_uint8)
_u32p = POINTER(c_uint32)
_uintp = POINTER(c_uint)
_intp = POINTER(c_int)
_sizep = POINTER(c_size_t)
_charpp = POINTER(c_char_p)
_voidpp = POINTER(c_void_p)

FUNCTIONS: List[Tuple[str, Sequence[type], Optional[type]]] = [
    # common.h
    ("ibr_version", [], c_int),
    ("ibr_version_string", [], c_char_p),
    ("ibr_strerror", [c_int], c_char_p),
    ("ibr_status_name", [c_int], c_char_p),
    # context.h
    ("ibr_context_config_init", [POINTER(ibr_context_config), c_uint], c_int),
    ("ibr_context_create", [POINTER(ContextP), POINTER(ibr_context_config)], c_int),
    ("ibr_context_destroy", [ContextP], None),
    ("ibr_context_last_error", [ContextP], c_char_p),
    # fabric.h
    ("ibr_fabric_create", [POINTER(FabricP), ContextP], c_int),
    ("ibr_fabric_destroy", [FabricP], None),
    ("ibr_fabric_last_error", [FabricP], c_char_p),
    ("ibr_fabric_add_node", [_u32p, FabricP, c_enum, c_uint64, c_uint, c_char_p], c_int),
    ("ibr_fabric_set_sysimg_guid", [FabricP, c_uint32, c_uint64], c_int),
    ("ibr_fabric_set_port_guid", [FabricP, c_uint32, c_uint, c_uint64], c_int),
    ("ibr_link_attr_init", [POINTER(ibr_link_attr), c_uint], c_int),
    ("ibr_fabric_add_link",
     [FabricP, c_uint32, c_uint, c_uint32, c_uint, POINTER(ibr_link_attr)], c_int),
    ("ibr_fabric_remove_link", [FabricP, c_uint32, c_uint], c_int),
    ("ibr_fabric_set_link_state", [FabricP, c_uint32, c_uint, c_enum], c_int),
    ("ibr_fabric_set_node_state", [FabricP, c_uint32, c_enum], c_int),
    ("ibr_fabric_set_lid", [FabricP, c_uint32, c_uint, c_uint16, c_uint], c_int),
    ("ibr_fabric_assign_lids", [FabricP, c_uint, c_uint], c_int),
    ("ibr_fabric_node_count", [FabricP], c_uint32),
    ("ibr_fabric_find_guid", [_u32p, _uintp, FabricP, c_uint64], c_int),
    ("ibr_node_info_init", [POINTER(ibr_node_info), c_uint], c_int),
    ("ibr_port_info_init", [POINTER(ibr_port_info), c_uint], c_int),
    ("ibr_port_attr_init", [POINTER(ibr_port_attr), c_uint], c_int),
    ("ibr_fabric_set_port_attr", [FabricP, c_uint32, c_uint, POINTER(ibr_port_attr)], c_int),
    ("ibr_fabric_node_info", [POINTER(ibr_node_info), FabricP, c_uint32], c_int),
    ("ibr_fabric_port_info", [POINTER(ibr_port_info), FabricP, c_uint32, c_uint], c_int),
    ("ibr_fabric_freeze", [POINTER(TopoP), FabricP], c_int),
    ("ibr_fabric_clone", [POINTER(FabricP), FabricP], c_int),
    # generate.h
    ("ibr_gen_xgft_init", [POINTER(ibr_gen_xgft), c_uint], c_int),
    ("ibr_fabric_gen_xgft", [FabricP, POINTER(ibr_gen_xgft)], c_int),
    ("ibr_fabric_gen_fat_tree", [FabricP, c_uint, c_uint, c_uint], c_int),
    ("ibr_fabric_gen_torus", [FabricP, c_uint, _uintp, c_int, c_uint, c_uint], c_int),
    ("ibr_fabric_gen_hypercube", [FabricP, c_uint, c_uint], c_int),
    ("ibr_fabric_gen_dragonfly", [FabricP, c_uint, c_uint, c_uint, c_uint], c_int),
    ("ibr_fabric_gen_random", [FabricP, c_uint, c_uint, c_uint, c_uint64], c_int),
    ("ibr_fabric_generate", [FabricP, c_char_p], c_int),
    ("ibr_fabric_inject_faults", [FabricP, c_uint, c_uint, c_uint64], c_int),
    # topo.h
    ("ibr_topo_destroy", [TopoP], None),
    ("ibr_topo_context", [TopoP], ContextP),
    ("ibr_topo_node_count", [TopoP], c_uint32),
    ("ibr_topo_switch_count", [TopoP], c_uint32),
    ("ibr_topo_endport_count", [TopoP], c_uint32),
    ("ibr_topo_max_lid", [TopoP], c_uint16),
    ("ibr_topo_data_vls", [TopoP], c_uint),
    ("ibr_topo_link_throttled", [TopoP, c_uint32, c_uint], c_int),
    ("ibr_topo_switch_node", [TopoP, c_uint32], c_uint32),
    ("ibr_topo_node_switch", [TopoP, c_uint32], c_uint32),
    ("ibr_topo_node_info", [POINTER(ibr_node_info), TopoP, c_uint32], c_int),
    ("ibr_topo_port_info", [POINTER(ibr_port_info), TopoP, c_uint32, c_uint], c_int),
    ("ibr_topo_lid_owner", [_u32p, _uintp, TopoP, c_uint16], c_int),
    ("ibr_topo_find_guid", [_u32p, _uintp, TopoP, c_uint64], c_int),
    ("ibr_topo_switch_distance", [TopoP, c_uint32, c_uint32], c_uint),
    # options.h, route.h
    ("ibr_options_init", [POINTER(ibr_options), c_uint], c_int),
    ("ibr_context_engine_count", [ContextP], c_size_t),
    ("ibr_context_engine", [POINTER(ibr_engine_info), ContextP, c_size_t], c_int),
    ("ibr_context_find_engine", [POINTER(ibr_engine_info), ContextP, c_char_p], c_int),
    ("ibr_route", [POINTER(ResultP), TopoP, c_char_p, POINTER(ibr_options)], c_int),
    # result.h
    ("ibr_result_destroy", [ResultP], None),
    ("ibr_result_topo", [ResultP], TopoP),
    ("ibr_result_status", [ResultP], c_int),
    ("ibr_result_engine", [ResultP], c_char_p),
    ("ibr_result_last_error", [ResultP], c_char_p),
    ("ibr_result_seed", [ResultP], c_uint64),
    ("ibr_result_threads", [ResultP], c_uint),
    ("ibr_result_setting_count", [ResultP], c_size_t),
    ("ibr_result_setting", [_charpp, _charpp, ResultP, c_size_t], c_int),
    ("ibr_result_attempt_count", [ResultP], c_size_t),
    ("ibr_result_attempt", [_charpp, _intp, _charpp, ResultP, c_size_t], c_int),
    ("ibr_result_lft_size", [ResultP], c_size_t),
    ("ibr_result_lft", [ResultP, c_uint32], c_void_p),
    ("ibr_result_lft_port", [ResultP, c_uint32, c_uint16], c_uint),
    ("ibr_result_copy_lft", [_u8p, c_size_t, _sizep, ResultP, c_uint32], c_int),
    ("ibr_result_has_hops", [ResultP], c_int),
    ("ibr_result_hops", [ResultP, c_uint32, c_uint32], c_uint),
    ("ibr_result_sl_mode", [ResultP], c_enum),
    ("ibr_result_path_sl", [ResultP, c_uint16, c_uint16], c_uint),
    ("ibr_result_has_sl2vl", [ResultP], c_int),
    ("ibr_result_sl2vl", [_u8p, ResultP, c_uint32, c_uint, c_uint], c_int),
    ("ibr_result_vls_used", [ResultP], c_uint),
    ("ibr_result_layers", [ResultP], c_uint),
    ("ibr_result_mcast_count", [ResultP], c_size_t),
    ("ibr_result_mcast_mlid", [ResultP, c_size_t], c_uint16),
    ("ibr_result_mcast_ports", [_u8p, c_size_t, _sizep, ResultP, c_uint16, c_uint32], c_int),
    ("ibr_result_artifact_count", [ResultP], c_size_t),
    ("ibr_result_artifact", [_charpp, _voidpp, _sizep, ResultP, c_size_t], c_int),
    ("ibr_result_find_artifact", [_voidpp, _sizep, ResultP, c_char_p], c_int),
    ("ibr_result_mcast_members",
     [POINTER(ibr_mcast_member), c_size_t, _sizep, ResultP, c_uint16], c_int),
    ("ibr_result_mcast_port_load", [_u32p, c_size_t, _sizep, ResultP, c_uint32], c_int),
    # qos.h
    ("ibr_qos_config_create", [POINTER(QosConfigP), ContextP], c_int),
    ("ibr_qos_config_destroy", [QosConfigP], None),
    ("ibr_qos_config_last_error", [QosConfigP], c_char_p),
    ("ibr_qos_config_parse", [QosConfigP, c_char_p, c_size_t], c_int),
    ("ibr_qos_config_set", [QosConfigP, c_char_p, c_char_p], c_int),
    ("ibr_qos_config_is_set", [QosConfigP, c_char_p], c_int),
    ("ibr_qos_config_table", [POINTER(ibr_qos_table), QosConfigP, c_enum], c_int),
    ("ibr_qos_config_write", [POINTER(ibr_buffer), QosConfigP], c_int),
    ("ibr_result_has_qos", [ResultP], c_int),
    ("ibr_result_endport_sl2vl", [_u8p, ResultP, c_uint32, c_uint], c_int),
    ("ibr_result_vlarb", [POINTER(ibr_vlarb), ResultP, c_uint32, c_uint], c_int),
    ("ibr_result_qos_note_count", [ResultP], c_size_t),
    ("ibr_result_qos_note", [ResultP, c_size_t], c_char_p),
    ("ibr_result_sl_hazard_count", [ResultP], c_size_t),
    ("ibr_result_qos_levels", [ResultP], c_uint),
    ("ibr_result_path_sl_level", [ResultP, c_uint, c_uint16, c_uint16], c_uint),
    ("ibr_result_sl_hazard", [POINTER(ibr_sl_hazard), ResultP, c_size_t], c_int),
    ("ibr_result_write_vlarb", [POINTER(ibr_buffer), ResultP], c_int),
    # mcast.h
    ("ibr_mcast_groups_create", [POINTER(McastGroupsP), TopoP], c_int),
    ("ibr_mcast_groups_destroy", [McastGroupsP], None),
    ("ibr_mcast_groups_last_error", [McastGroupsP], c_char_p),
    ("ibr_mcast_groups_topo", [McastGroupsP], TopoP),
    ("ibr_mcast_groups_add_member",
     [McastGroupsP, c_uint16, _u8p, c_uint64, c_uint, c_uint], c_int),
    ("ibr_mcast_groups_group_count", [McastGroupsP], c_size_t),
    ("ibr_mcast_groups_group", [POINTER(c_uint16), _u8p, _intp, _sizep, McastGroupsP, c_size_t],
     c_int),
    ("ibr_mcast_groups_mlid_count", [McastGroupsP], c_size_t),
    ("ibr_mcast_groups_mlid", [McastGroupsP, c_size_t], c_uint16),
    ("ibr_mcast_groups_members",
     [POINTER(ibr_mcast_member), c_size_t, _sizep, McastGroupsP, c_uint16], c_int),
    ("ibr_mcast_groups_parse", [POINTER(McastGroupsP), TopoP, c_char_p, c_size_t], c_int),
    ("ibr_mcast_groups_parse_sa_dump",
     [POINTER(McastGroupsP), TopoP, c_char_p, c_size_t], c_int),
    ("ibr_mcast_groups_write", [POINTER(ibr_buffer), McastGroupsP], c_int),
    # verify.h
    ("ibr_verify_report_init", [POINTER(ibr_verify_report), c_uint], c_int),
    ("ibr_result_verify", [POINTER(ibr_verify_report), ResultP], c_int),
    ("ibr_verify_report_write_json", [POINTER(ibr_buffer), POINTER(ibr_verify_report)], c_int),
    ("ibr_result_find_credit_loop", [POINTER(ibr_channel), c_size_t, _sizep, ResultP], c_int),
    ("ibr_result_trace",
     [POINTER(ibr_trace_hop), c_size_t, _sizep, _uintp, ResultP, c_uint16, c_uint16], c_int),
    ("ibr_result_trace_mcast",
     [POINTER(ibr_mcast_hop), c_size_t, _sizep, ResultP, c_uint16, c_uint32, c_uint], c_int),
    # analyze.h
    ("ibr_analyze_options_init", [POINTER(ibr_analyze_options), c_uint], c_int),
    ("ibr_analysis_summary_init", [POINTER(ibr_analysis_summary), c_uint], c_int),
    ("ibr_result_analyze", [POINTER(AnalysisP), ResultP, POINTER(ibr_analyze_options)], c_int),
    ("ibr_analysis_destroy", [AnalysisP], None),
    ("ibr_analysis_summary_get", [POINTER(ibr_analysis_summary), AnalysisP], c_int),
    ("ibr_analysis_hop_histogram", [POINTER(c_uint64), c_size_t, _sizep, AnalysisP], c_int),
    ("ibr_analysis_vl_usage", [POINTER(c_uint64), AnalysisP], c_int),
    ("ibr_analysis_qos_levels", [AnalysisP], c_uint),
    ("ibr_result_mcast_trees", [ResultP], c_int),
    ("ibr_analysis_vl_usage_level", [POINTER(c_uint64), AnalysisP, c_uint], c_int),
    ("ibr_analysis_link_loads", [POINTER(c_uint64), c_size_t, _sizep, AnalysisP], c_int),
    ("ibr_analysis_ebb_bound", [POINTER(c_double), AnalysisP, c_uint], c_int),
    ("ibr_analysis_write_json", [POINTER(ibr_buffer), AnalysisP], c_int),
    ("ibr_analysis_write_text", [POINTER(ibr_buffer), AnalysisP], c_int),
    ("ibr_analysis_workload_count", [AnalysisP], c_size_t),
    ("ibr_analysis_workload",
     [POINTER(c_char_p), POINTER(ibr_pattern_stats), POINTER(c_double), AnalysisP, c_size_t],
     c_int),
    ("ibr_rank_order_parse", [POINTER(RankOrderP), TopoP, c_char_p, c_size_t], c_int),
    ("ibr_rank_order_destroy", [RankOrderP], None),
    ("ibr_rank_order_last_error", [RankOrderP], c_char_p),
    ("ibr_rank_order_count", [RankOrderP], c_size_t),
    ("ibr_rank_order_guids", [RankOrderP], POINTER(c_uint64)),
    # guidlist.h
    ("ibr_guid_list_parse",
     [POINTER(GuidListP), ContextP, c_enum, c_char_p, c_size_t], c_int),
    ("ibr_guid_list_destroy", [GuidListP], None),
    ("ibr_guid_list_last_error", [GuidListP], c_char_p),
    ("ibr_guid_list_count", [GuidListP], c_size_t),
    ("ibr_guid_list_guids", [GuidListP], POINTER(c_uint64)),
    ("ibr_guid_list_ids", [GuidListP], POINTER(ibr_guid_id)),
    ("ibr_guid_list_ports", [GuidListP], POINTER(ibr_guid_port)),
    # formats.h
    ("ibr_buffer_dispose", [POINTER(ibr_buffer)], None),
    ("ibr_fabric_parse_ibnetdiscover", [FabricP, c_char_p, c_size_t], c_int),
    ("ibr_fabric_parse_guid2lid", [FabricP, c_char_p, c_size_t], c_int),
    ("ibr_fabric_parse_subnet_lst", [FabricP, c_char_p, c_size_t], c_int),
    ("ibr_fabric_parse_db_csv", [FabricP, c_char_p, c_size_t], c_int),
    ("ibr_result_parse_sl2vl", [ResultP, c_char_p, c_size_t], c_int),
    ("ibr_result_parse_path_sl", [ResultP, c_char_p, c_size_t], c_int),
    ("ibr_topo_write_ibnetdiscover", [POINTER(ibr_buffer), TopoP], c_int),
    ("ibr_topo_write_guid2lid", [POINTER(ibr_buffer), TopoP], c_int),
    ("ibr_result_write_lfts_dump", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_write_dump_lfts", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_write_lid_matrix", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_topo_write_subnet_lst", [POINTER(ibr_buffer), TopoP], c_int),
    ("ibr_topo_write_db_csv", [POINTER(ibr_buffer), TopoP], c_int),
    ("ibr_result_write_fdbs", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_write_switches", [POINTER(ibr_buffer), ResultP, c_enum, c_uint32, c_uint32],
     c_int),
    ("ibr_result_write_path_sl", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_write_path_sl_level", [POINTER(ibr_buffer), ResultP, c_uint], c_int),
    ("ibr_result_write_sl2vl", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_write_sl2vl_dump", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_write_mcfdbs", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_result_parse_lfts", [POINTER(ResultP), TopoP, c_char_p, c_size_t], c_int),
    ("ibr_lfts_stream_new", [POINTER(LftsStreamP), TopoP], c_int),
    ("ibr_lfts_stream_feed", [LftsStreamP, c_char_p, c_size_t], c_int),
    ("ibr_lfts_stream_finish", [LftsStreamP, POINTER(ResultP)], c_int),
    ("ibr_lfts_stream_last_error", [LftsStreamP], c_char_p),
    ("ibr_lfts_stream_destroy", [LftsStreamP], None),
    # persist.h
    ("ibr_reroute_report_init", [POINTER(ibr_reroute_report), c_uint], c_int),
    ("ibr_routing_db_from_result", [POINTER(RoutingDbP), ResultP], c_int),
    ("ibr_routing_db_write", [POINTER(ibr_buffer), RoutingDbP], c_int),
    ("ibr_result_write_db", [POINTER(ibr_buffer), ResultP], c_int),
    ("ibr_routing_db_parse", [POINTER(RoutingDbP), ContextP, c_char_p, c_size_t], c_int),
    ("ibr_routing_db_destroy", [RoutingDbP], None),
    ("ibr_routing_db_last_error", [RoutingDbP], c_char_p),
    ("ibr_routing_db_engine", [RoutingDbP], c_char_p),
    ("ibr_routing_db_seed", [RoutingDbP], c_uint64),
    ("ibr_routing_db_switch_count", [RoutingDbP], c_uint32),
    ("ibr_routing_db_compare",
     [POINTER(ibr_change), c_size_t, _sizep, RoutingDbP, TopoP], c_int),
    ("ibr_routing_db_route",
     [POINTER(ResultP), POINTER(ibr_reroute_report), RoutingDbP, TopoP, POINTER(ibr_options),
      c_uint], c_int),
    # sys/engine.h
    ("ibr_engine_init", [POINTER(ibr_engine), c_uint], c_int),
    ("ibr_context_register_engine", [ContextP, POINTER(ibr_engine)], c_int),
    ("ibr_run_topo", [RunP], TopoP),
    ("ibr_run_options", [RunP], POINTER(ibr_options)),
    ("ibr_run_lft", [RunP, c_uint32], c_void_p),
    ("ibr_run_hops", [RunP], c_void_p),
    ("ibr_run_set_hops", [RunP, c_uint32, c_uint32, c_uint], c_int),
    ("ibr_run_set_dest_sl", [RunP, c_uint16, c_uint], c_int),
    ("ibr_run_set_path_sl", [RunP, c_uint16, c_uint16, c_uint], c_int),
    ("ibr_run_set_sl_mode", [RunP, c_enum], c_int),
    ("ibr_run_sl_row", [RunP, c_uint16], c_void_p),
    ("ibr_run_set_sl2vl", [RunP, c_uint32, c_uint, c_uint, _u8p], c_int),
    ("ibr_run_set_endport_sl2vl", [RunP, c_uint32, c_uint, _u8p], c_int),
    ("ibr_run_set_vls_used", [RunP, c_uint], c_int),
    ("ibr_run_set_layers", [RunP, c_uint], c_int),
    ("ibr_run_add_mcast_port", [RunP, c_uint16, c_uint32, c_uint], c_int),
    ("ibr_run_clear_mcast", [RunP], c_int),
    ("ibr_run_add_artifact", [RunP, c_char_p, c_void_p, c_size_t], c_int),
    ("ibr_run_setting_int", [POINTER(c_int64), RunP, c_char_p], c_int),
    ("ibr_run_setting_str", [_charpp, _sizep, RunP, c_char_p], c_int),
    ("ibr_run_decline", [RunP, c_char_p], c_int),
    ("ibr_run_fail", [RunP, c_int, c_char_p], c_int),
    ("ibr_run_log", [RunP, c_int, c_char_p], None),
    ("ibr_run_progress", [RunP, c_char_p, c_uint64, c_uint64], c_int),
    ("ibr_run_mcast_groups", [RunP], McastGroupsP),
    ("ibr_run_set_mcast_built", [RunP], c_int),
    # sys/toolkit.h
    ("ibr_topo_switch_links",
     [POINTER(_u32p), POINTER(POINTER(ibr_switch_link)), TopoP], c_uint32),
    ("ibr_topo_bfs", [_u32p, TopoP, _u32p, c_size_t, _u32p], c_int),
    ("ibr_topo_switch_hops", [_u8p, TopoP, c_uint], c_int),
    ("ibr_run_threads", [RunP], c_uint),
    ("ibr_run_parallel_for", [RunP, c_size_t, PARALLEL_FN, c_void_p], c_int),
    ("ibr_parallel_for", [c_uint, c_size_t, PARALLEL_FN, c_void_p], c_int),
    ("ibr_run_ucast", [RunP, _u8p, CAND_FN, c_void_p, c_char_p], c_int),
    ("ibr_run_ucast_ex", [RunP, _u8p, CAND_FN, c_void_p, c_char_p, c_uint], c_int),
    ("ibr_run_find_credit_loop", [POINTER(ibr_channel), c_size_t, _sizep, RunP], c_int),
    ("ibr_run_mcast_root", [_u32p, RunP, _u8p, c_uint16], c_int),
    ("ibr_run_mcast_default", [RunP, _u8p, CAND_FN, c_void_p], c_int),
]

#: IBR_API functions of the headers deliberately left unbound, with why.
#: (The header test requires every public function to be either in
#: FUNCTIONS or here.)
UNBOUND: Dict[str, str] = {}

# --------------------------------------------------------------------------
# Loading.
# --------------------------------------------------------------------------


class Library:
    """The loaded shared object with every function of the table bound as
    an attribute (``lib.ibr_route(...)``)."""

    def __init__(self, path: str, cdll: ctypes.CDLL, version: int) -> None:
        self.path = path
        self.cdll = cdll
        self.version = version


def library_candidates() -> List[str]:
    """Where the library is looked for, in order: $IBROUTE_LIBRARY (a path
    to the .so), else $IBROUTE_BUILD_DIR/src/libibroute.so.0 (a Meson build
    directory), else the copy inside this package (``pip install .`` puts
    it there), else the installed ``libibroute.so.0`` found by the dynamic
    linker (the Debian package libibroute0)."""
    explicit = os.environ.get("IBROUTE_LIBRARY")
    if explicit:
        return [explicit]
    build = os.environ.get("IBROUTE_BUILD_DIR")
    if build:
        return [os.path.join(build, "src", SONAME)]
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)
    if os.path.exists(bundled):
        return [bundled]
    return [SONAME]


def split_version(number: int) -> Tuple[int, int, int]:
    """(major, minor, patch) of an IBR_VERSION_NUMBER."""
    return number // 10000, number // 100 % 100, number % 100


def _bind(cdll: ctypes.CDLL, name: str, argtypes: Sequence[type],
          restype: Optional[type]):
    fn = getattr(cdll, name)
    fn.argtypes = list(argtypes)
    fn.restype = restype
    return fn


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _loaded_file(cdll: ctypes.CDLL, symbol: str, name: str) -> str:
    """The absolute path of the file *cdll* was loaded from (dladdr() of
    *symbol*; /proc/self/maps as a fallback), or *name* made absolute when
    it names a file, else *name* itself."""
    addr = ctypes.cast(getattr(cdll, symbol), ctypes.c_void_p).value
    try:
        dladdr = ctypes.CDLL(None).dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        dladdr.restype = ctypes.c_int
        info = _DlInfo()
        if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
            fname = os.fsdecode(info.dli_fname)
            if os.path.exists(fname):
                return os.path.abspath(fname)
    except (AttributeError, OSError):
        pass
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="surrogateescape") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                lo, _, hi = fields[0].partition("-")
                if len(fields) == 6 and int(lo, 16) <= addr < int(hi, 16):
                    return fields[5].rstrip("\n")
    except (OSError, ValueError):
        pass
    return os.path.abspath(name) if os.sep in name else name


def load(path: Optional[str] = None) -> Library:
    """Load the library, check its version and bind every function of
    :data:`FUNCTIONS`.  Raises ``ImportError`` with a precise reason."""
    candidates = [path] if path else library_candidates()
    cdll = None
    errors = []
    for cand in candidates:
        if os.sep in cand and not os.path.exists(cand):
            errors.append(f"{cand}: no such file")
            continue
        try:
            cdll = ctypes.CDLL(cand)
            path = cand
            break
        except OSError as e:
            errors.append(f"{cand}: {e}")
    if cdll is None:
        raise ImportError(
            "ibroute: cannot load the C library (" + "; ".join(errors) + "). "
            "Set IBROUTE_LIBRARY to the path of libibroute.so.0 or "
            "IBROUTE_BUILD_DIR to a Meson build directory, or install ibroute.")
    table = {name: (args, res) for name, args, res in FUNCTIONS}
    try:
        ver = _bind(cdll, "ibr_version", *table["ibr_version"])
    except AttributeError:
        raise ImportError(f"ibroute: {path} has no symbol ibr_version: not libibroute?") from None
    number = ver()
    major, minor, patch = split_version(number)
    if major != BINDINGS_MAJOR or minor < BINDINGS_MINOR:
        raise ImportError(
            f"ibroute: {path} is version {major}.{minor}.{patch}; these bindings need "
            f"{BINDINGS_MAJOR}.x with x >= {BINDINGS_MINOR} "
            f"(major {BINDINGS_MAJOR}, minor >= {BINDINGS_MINOR})")
    lib = Library(_loaded_file(cdll, "ibr_version", path), cdll, number)
    missing = []
    for name, args, res in FUNCTIONS:
        try:
            setattr(lib, name, _bind(cdll, name, args, res))
        except AttributeError:
            missing.append(name)
    if missing:
        raise ImportError(
            f"ibroute: {path} (version {major}.{minor}.{patch}) lacks "
            f"{len(missing)} symbol(s) the bindings need: {', '.join(missing)}")
    # The error codes are part of the ABI: check the library agrees.
    for name, code in ERRNO_MAP:
        got = lib.ibr_status_name(code)
        if got != ("IBR_" + name).encode():
            raise ImportError(
                f"ibroute: {path} names error code {code} {got!r}, the bindings expect IBR_{name}")
    return lib
