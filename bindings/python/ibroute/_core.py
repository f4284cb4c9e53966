"""The Pythonic surface of ibroute: Context, Fabric, Topology, Result.

Lifetimes follow the C library: a Fabric and a Topology use a Context; a
Result belongs to the Topology it was computed on.  Every object frees its
C side deterministically with ``close()`` or a ``with`` block; ``close()``
is idempotent.  A parent whose children are still open is not freed at
once: closing it makes the Python object unusable and the C object is
destroyed when the last child (a Topology of a Context, a Result of a
Topology, an LFT memoryview of a Result) goes away.  Nothing is ever freed
twice or while something still points into it.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import enum
import io
import json
import logging
import threading
import weakref
from ctypes import byref, c_char_p, c_int, c_size_t, c_uint, c_uint8, c_uint32, c_void_p
from typing import (
    Any,
    Callable,
    TYPE_CHECKING,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _capi
from ._capi import (
    LMC_TOPO,
    NONE,
    GuidListKind,
    LidFlags,
    LinkSpeed,
    LinkState,
    LinkWidth,
    LogLevel,
    McastFlags,
    McastJoin,
    NodeType,
    QosTarget,
    SLMode,
    SwitchDump,
)
from .errors import Error, RangeError, error_for

if TYPE_CHECKING:  # pragma: no cover
    from ._quality import Analysis, Channel, Trace

# Set by the package's __init__ once the library is loaded.
_lib: Any = None

Text = Union[str, bytes, bytearray, memoryview]

_lock = threading.RLock()


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _s(raw: Optional[bytes]) -> str:
    """Decode a C string from the library (messages, names, descriptions)."""
    if raw is None:
        return ""
    return raw.decode("utf-8", "surrogateescape")


def _b(text: Text) -> bytes:
    """Encode text given to a parser."""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogateescape")
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"expected str or bytes, got {type(text).__name__}")


def _uint(value: Any, bits: int, what: str) -> int:
    """Check that *value* is an int that fits an unsigned C type of *bits*
    bits (ctypes would silently wrap it)."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = value.__index__()
        except AttributeError:
            raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    if value < 0 or value >> bits:
        raise RangeError(f"{what} = {value} is out of range 0..{(1 << bits) - 1}")
    return value


def _enum(cls: type, value: Any, what: str) -> int:
    """Accept an enum member, its int value or its name (case-insensitive)."""
    if isinstance(value, str):
        name = value.upper()
        if name not in cls.__members__ and "W" + name in cls.__members__:
            name = "W" + name  # LinkWidth: "4x" -> W4X
        try:
            return int(cls[name])
        except KeyError:
            names = ", ".join(m.name.lower() for m in cls)
            raise ValueError(f"{what} = {value!r}: expected one of {names}") from None
    return _uint(value, 32, what)


def _maybe_enum(cls: type, value: int) -> Any:
    try:
        return cls(value)
    except ValueError:
        return value


# --------------------------------------------------------------------------
# lifetime management
# --------------------------------------------------------------------------


class _Handle:
    """An owned C object.  ``_pins`` counts what still points into it
    (children, live memoryviews, calls in progress); the C object is
    destroyed once the handle is closed and no pin is left."""

    _destroy: Optional[str] = None  # name of the C destructor

    def __init__(self, ptr: Any, parent: Optional["_Handle"], owned: bool = True) -> None:
        self._ptr = ptr
        self._parent = parent
        self._pins = 0
        self._closed = False
        self._owned = owned
        if parent is not None:
            parent._pin()

    @property
    def closed(self) -> bool:
        """True once close() was called (the C object may live on until
        its last dependent goes away)."""
        return self._closed

    def close(self) -> None:
        """Release the C object (idempotent).  Dependents still open keep
        it alive until they are closed, but this object becomes unusable."""
        with _lock:
            if self._closed:
                return
            self._closed = True
            self._release_if_unused()

    def _release_if_unused(self) -> None:
        if not self._closed or self._pins or self._ptr is None:
            return
        ptr, self._ptr = self._ptr, None
        if self._owned and self._destroy and _lib is not None:
            getattr(_lib, self._destroy)(ptr)
        parent, self._parent = self._parent, None
        if parent is not None:
            parent._unpin()

    def _pin(self) -> None:
        with _lock:
            self._pins += 1

    def _unpin(self) -> None:
        with _lock:
            self._pins -= 1
            self._release_if_unused()

    def _p(self) -> Any:
        """The C pointer; ValueError when closed."""
        if self._closed:
            raise ValueError(f"operation on a closed {type(self).__name__}")
        return self._ptr

    @contextlib.contextmanager
    def _using(self) -> Iterator[Any]:
        """Pin for the duration of a long call (ctypes releases the GIL, so
        another thread could close the object meanwhile)."""
        with _lock:
            ptr = self._p()
            self._pins += 1
        try:
            yield ptr
        finally:
            self._unpin()

    def __enter__(self):
        self._p()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


# --------------------------------------------------------------------------
# plain data
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NodeInfo:
    """A node of a fabric or topology (ibr_node_info)."""

    index: int
    type: NodeType
    nports: int
    node_guid: int
    sysimg_guid: int
    port0_guid: int
    desc: str

    @property
    def is_switch(self) -> bool:
        return self.type == NodeType.SWITCH


@dataclasses.dataclass(frozen=True)
class PortInfo:
    """A port (ibr_port_info); ``remote_node`` is None when not cabled."""

    node: int
    port: int
    guid: int
    lid: int
    lmc: int
    state: LinkState
    remote_node: Optional[int]
    remote_port: Optional[int]
    width: LinkWidth
    speed: LinkSpeed
    vl_cap: int
    """Data VLs the port supports (VLCap as a count: 1, 2, 4, 8 or 15)."""
    oper_vls: int
    """Operational data VLs (OperVLs as a count)."""
    widths_enabled: FrozenSet[LinkWidth]
    """Enabled widths (always holding the active one on a cabled port)."""
    speeds_enabled: FrozenSet[LinkSpeed]
    """Enabled speeds (always holding the active one on a cabled port)."""

    @property
    def lids(self) -> range:
        """The LIDs the port owns (empty without a LID)."""
        return range(self.lid, self.lid + (1 << self.lmc)) if self.lid else range(0)

    @property
    def cabled(self) -> bool:
        return self.remote_node is not None


@dataclasses.dataclass(frozen=True)
class Link:
    """A cable, reported once, from the end with the lower (node, port)."""

    node_a: int
    port_a: int
    node_b: int
    port_b: int
    state: LinkState
    width: LinkWidth
    speed: LinkSpeed


@dataclasses.dataclass(frozen=True)
class Setting:
    """A setting an engine declares (ibr_setting): route with
    ``params={"engine.name": value}``.  *default* is an int (bool and int
    settings) or a str (string settings); *min*/*max* bound int settings."""

    name: str
    type: _capi.SettingType
    default: Union[int, str]
    min: int = 0
    max: int = 0
    help: str = ""


@dataclasses.dataclass(frozen=True)
class EngineInfo:
    """A registered engine (ibr_engine_info)."""

    name: str
    description: str
    caps: _capi.EngineCaps
    builtin: bool
    settings: Tuple[Setting, ...] = ()


#: The library's status codes as an enumeration: ``Status.OK`` (0) and the
#: ``IBR_E*`` codes without their prefix (``Status.EDECLINED`` is -9).  An
#: int: it compares equal to the plain code, and prints as its name.
Status = enum.IntEnum("Status", [("OK", 0)] + list(_capi.ERRNO_MAP))  # type: ignore[misc]


def _status(code: int) -> Union["Status", int]:
    """``Status(code)``, or the plain int for a code the enum lacks."""
    try:
        return Status(code)
    except ValueError:
        return code


@dataclasses.dataclass(frozen=True)
class Attempt:
    """One engine tried by ibr_route(): ``status`` is ``Status.OK`` or the
    negative code it returned (``Status.EDECLINED`` when it did not apply);
    it compares equal to the plain int."""

    engine: str
    status: Union["Status", int]
    message: str

    def __str__(self) -> str:
        text = f"{self.engine}: {'ok' if self.ok else self.status_name}"
        return f"{text} ({self.message})" if self.message else text

    @property
    def ok(self) -> bool:
        return self.status == 0

    @property
    def status_name(self) -> str:
        return "IBR_OK" if self.status == 0 else _s(_lib.ibr_status_name(self.status))


@dataclasses.dataclass(frozen=True)
class VerifyReport:
    """What ibr_result_verify() found (ibr_verify_report).  ``ok`` is False when
    an end-port pair is not delivered, or an entry loops, dead-ends, uses a
    bad port or a down link, or (``strict``) a switch-LID entry toward a
    reachable LID is empty (``missing``)."""

    status: int
    routes_checked: int
    routes_ok: int
    missing: int
    loops: int
    bad_port: int
    down_link: int
    dead_end: int
    unreachable: int
    spurious: int
    #: Pairs without a route that the engine's own rules make unreachable.
    restricted: int
    nonminimal: int
    pairs: int
    pairs_ok: int
    avg_hops: float
    max_hops: int
    avg_stretch: float
    max_stretch: float
    links: int
    max_link_load: int
    mean_link_load: float
    #: True credit-loop free, False a loop was found, None not checked.
    deadlock_free: Optional[bool]
    first_error: str
    #: Channels in the credit loop found (0 when deadlock free).
    credit_loop_length: int
    #: The loop, readable ("VL 0: 0x... port 2 -> ..."); "" when none.
    credit_loop: str
    #: Whether empty switch-LID entries counted as errors (verify(strict=)).
    strict: bool = False
    #: The first empty switch-LID entry ("" when none).
    first_missing: str = ""
    #: Multicast: MLIDs with at least two members checked.
    mcast_groups: int = 0
    #: (source member, other member) pairs checked.
    mcast_pairs: int = 0
    #: ... delivered exactly once.
    mcast_pairs_ok: int = 0
    #: ... never delivered.
    mcast_missed: int = 0
    #: ... delivered more than once.
    mcast_duplicates: int = 0
    #: Floods in which a switch received a second copy.
    mcast_loops: int = 0
    #: Copies sent where no member is.
    mcast_dead_ends: int = 0
    #: The first multicast problem ("" when none).
    first_mcast_error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 0

    @property
    def load_imbalance(self) -> float:
        """Busiest link load over mean link load (1.0 is perfect; 0.0
        without links)."""
        return self.max_link_load / self.mean_link_load if self.mean_link_load else 0.0

    def write_json(self) -> str:
        """The report as the library writes it (ibr_verify_report_write_json):
        one JSON object on one line, as ``ibr verify --json`` prints it
        under "verify"."""
        return _write("ibr_verify_report_write_json", byref(self._to_c()))

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report, parsed."""
        return json.loads(self.write_json())

    @classmethod
    def _from_c(cls, rep: _capi.ibr_verify_report, status: int) -> "VerifyReport":
        values: Dict[str, Any] = {"status": status}
        for f in dataclasses.fields(cls):
            if f.name == "status":
                continue
            v = getattr(rep, f.name)
            if f.name == "deadlock_free":
                v = None if v < 0 else bool(v)
            elif f.name in ("first_error", "credit_loop", "first_missing", "first_mcast_error"):
                v = _s(v)
            elif f.name == "strict":
                v = bool(v)
            values[f.name] = v
        return cls(**values)

    def _to_c(self) -> _capi.ibr_verify_report:
        rep = _new_struct(_capi.ibr_verify_report)
        for f in dataclasses.fields(self):
            if f.name == "status":
                continue
            v = getattr(self, f.name)
            if f.name == "deadlock_free":
                v = -1 if v is None else int(v)
            elif f.name in ("first_error", "credit_loop", "first_missing", "first_mcast_error"):
                v = v.encode("utf-8", "surrogateescape")
            elif f.name == "strict":
                v = int(v)
            setattr(rep, f.name, v)
        return rep


def _node_info(c: _capi.ibr_node_info, index: int) -> NodeInfo:
    return NodeInfo(index, _maybe_enum(NodeType, c.type), c.nports, c.node_guid,
                    c.sysimg_guid, c.port0_guid, _s(c.desc))


def _port_info(c: _capi.ibr_port_info, node: int, port: int) -> PortInfo:
    cabled = c.remote_node != NONE
    return PortInfo(node, port, c.guid, c.lid, c.lmc, _maybe_enum(LinkState, c.state),
                    c.remote_node if cabled else None, c.remote_port if cabled else None,
                    _maybe_enum(LinkWidth, c.width), _maybe_enum(LinkSpeed, c.speed),
                    c.vl_cap, c.oper_vls,
                    frozenset(w for w in LinkWidth if w and c.width_enabled & int(w)),
                    frozenset(v for v in LinkSpeed if v and c.speed_enabled & (1 << int(v))))


def _setting(c: _capi.ibr_setting) -> Setting:
    kind = _capi.SettingType(c.type)
    default: Union[int, str] = (_s(c.def_str) if kind == _capi.SettingType.STRING
                                else getattr(c, "def"))
    return Setting(_s(c.name), kind, default, c.min, c.max, _s(c.help))


def _engine_info(c: _capi.ibr_engine_info) -> EngineInfo:
    settings = tuple(_setting(c.settings[i]) for i in range(c.n_settings))
    return EngineInfo(_s(c.name), _s(c.description), _capi.EngineCaps(c.caps), bool(c.builtin),
                      settings)


def _new_struct(cls: Any) -> Any:
    """A versioned structure *cls* of the bindings' version, initialised by
    the library's ibr_<struct>_init() (never by copying defaults here)."""
    name = cls.__name__
    version = _capi.STRUCT_VERSIONS[name]
    out = cls()
    rc = getattr(_lib, name + "_init")(byref(out), version)
    if rc < 0:
        raise error_for(rc, f"{name}_init(version {version}): {_s(_lib.ibr_strerror(rc))}")
    return out


def _write(fn: str, *args: Any) -> str:
    """Run writer *fn* into an ibr_buffer and return its text."""
    buf = _capi.ibr_buffer()
    try:
        rc = getattr(_lib, fn)(byref(buf), *args)
        if rc < 0:
            raise error_for(rc, f"{fn} failed: {_s(_lib.ibr_strerror(rc))}")
        if not buf.data:
            return ""
        # decoded straight from the library's buffer (no intermediate bytes)
        raw = (c_uint8 * buf.size).from_address(ctypes.addressof(buf.data.contents))
        return str(raw, "utf-8", "surrogateescape")
    finally:
        _lib.ibr_buffer_dispose(byref(buf))


def _write_view(owner: "_Handle", fn: str, *args: Any) -> memoryview:
    """Run writer *fn* into an ibr_buffer and return a read-only memoryview
    over the buffer's own memory (no copy).  The buffer is freed, and
    *owner* (whose context allocated it) unpinned, when the view and
    everything derived from it are gone."""
    buf = _capi.ibr_buffer()
    rc = getattr(_lib, fn)(byref(buf), *args)
    if rc < 0:
        _lib.ibr_buffer_dispose(byref(buf))
        raise error_for(rc, f"{fn} failed: {_s(_lib.ibr_strerror(rc))}")
    if not buf.data or buf.size == 0:
        _lib.ibr_buffer_dispose(byref(buf))
        return memoryview(b"")
    arr = (c_uint8 * buf.size).from_address(ctypes.addressof(buf.data.contents))
    owner._pin()

    def release(b: Any = buf) -> None:
        _lib.ibr_buffer_dispose(byref(b))
        owner._unpin()

    weakref.finalize(arr, release)
    return memoryview(arr).cast("B").toreadonly()


# --------------------------------------------------------------------------
# options
# --------------------------------------------------------------------------

# keyword -> kind
_OPTION_KINDS: Dict[str, str] = {
    "lmc": "lmc",
    "max_vls": "uint",
    "seed": "u64",
    "scatter_ports": "bool",
    "port_shifting": "bool",
    "port_profile_switch_nodes": "bool",
    "root_guids": "guids",
    "cn_guids": "guids",
    "io_guids": "guids",
    "guid_routing_order": "guids",
    "guid_routing_order_no_scatter": "bool",
    "ignore_ports": "guid_ports",
    "ids": "guid_ids",
    "threads": "uint",
    "progress": "progress",
    "params": "params",
    "mcast_groups": "mcast_groups",
    "mcast_balance": "mcast_balance",
    "mcast_opensm": "mcast_opensm",
    "qos": "qos",
    # shorthands for engine settings, as the command line has them
    "connect_roots": "shorthand",
    "max_reverse_hops": "shorthand",
}

#: What the shorthand keywords stand for: (setting names, value kind).
_SHORTHANDS: Dict[str, Tuple[Tuple[str, ...], str]] = {
    "connect_roots": (("updn.connect_roots", "dnup.connect_roots", "ftree.connect_roots"),
                      "bool"),
    "max_reverse_hops": (("ftree.max_reverse_hops",), "uint"),
}


def _param_text(key: str, value: Any) -> str:
    """An engine setting's value as the library reads it."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, str):
        return value
    raise TypeError(f"params[{key!r}] must be a bool, int or str, not {type(value).__name__}")

#: The keyword arguments Topology.route() accepts.
OPTION_NAMES: Tuple[str, ...] = tuple(_OPTION_KINDS)

ProgressFn = Callable[[str, int, int], Optional[bool]]


class _OptionsCall:
    """An ibr_options filled from keyword arguments, with everything its
    pointers refer to kept alive for the duration of the call."""

    def __init__(self, caller: str, kwargs: Mapping[str, Any]) -> None:
        self.opts = _new_struct(_capi.ibr_options)
        self._keep: List[Any] = []
        self.exception: Optional[BaseException] = None
        self._params: List[Tuple[str, str]] = []
        for key, value in kwargs.items():
            kind = _OPTION_KINDS.get(key)
            if kind is None:
                raise TypeError(f"{caller}() got an unexpected keyword argument {key!r}")
            if value is None:
                continue  # keep the library's default
            getattr(self, "_set_" + kind)(key, value)
        if self._params:
            arr = (_capi.ibr_param * len(self._params))()
            for i, (name, text) in enumerate(self._params):
                nb = name.encode("utf-8", "surrogateescape")
                vb = text.encode("utf-8", "surrogateescape")
                if b"\0" in nb or b"\0" in vb:
                    raise ValueError(f"params[{name!r}] holds a NUL character")
                self._keep += [nb, vb]
                arr[i].name = nb
                arr[i].value = vb
            self._keep.append(arr)
            self.opts.params = ctypes.cast(arr, ctypes.POINTER(_capi.ibr_param))
            self.opts.n_params = len(self._params)

    def _set_params(self, key: str, value: Any) -> None:
        if isinstance(value, (str, bytes, int)):
            raise TypeError("params must be a mapping or a sequence of (name, value) pairs")
        pairs = value.items() if isinstance(value, Mapping) else value
        for i, pair in enumerate(pairs):
            try:
                name, v = pair
            except (TypeError, ValueError):
                raise TypeError(f"params[{i}] must be a (name, value) pair, not {pair!r}") from None
            if not isinstance(name, str):
                raise TypeError(f"params[{i}]: the name must be a str, not {name!r}")
            self._params.append((name, _param_text(name, v)))

    def _set_shorthand(self, key: str, value: Any) -> None:
        names, kind = _SHORTHANDS[key]
        text = ("1" if value else "0") if kind == "bool" else str(_uint(value, 32, key))
        self._params += [(n, text) for n in names]

    def _set_lmc(self, key: str, value: Any) -> None:
        if isinstance(value, str) and value == "topo":
            value = LMC_TOPO
        self.opts.lmc = _uint(value, 32, key)

    def _set_uint(self, key: str, value: Any) -> None:
        setattr(self.opts, key, _uint(value, 32, key))

    def _set_u64(self, key: str, value: Any) -> None:
        setattr(self.opts, key, _uint(value, 64, key))

    def _set_bool(self, key: str, value: Any) -> None:
        setattr(self.opts, key, 1 if value else 0)

    def _set_array(self, key: str, ctype: type, items: List[Any]) -> None:
        arr = (ctype * len(items))(*items)
        self._keep.append(arr)
        setattr(self.opts, key, ctypes.cast(arr, ctypes.POINTER(ctype)))
        setattr(self.opts, "n_" + key, len(items))

    def _set_guids(self, key: str, value: Any) -> None:
        if isinstance(value, (str, bytes, int)):
            raise TypeError(f"{key} must be an iterable of GUIDs")
        items = [_uint(g, 64, f"{key}[{i}]") for i, g in enumerate(value)]
        self._set_array(key, ctypes.c_uint64, items)

    @staticmethod
    def _pairs(key: str, value: Any, second: str) -> Iterator[Tuple[int, Any, Any]]:
        """(index, guid, second) of a sequence of pairs, or of a mapping."""
        if isinstance(value, (str, bytes, int)):
            raise TypeError(f"{key} must be an iterable of (guid, {second}) pairs")
        pairs = value.items() if isinstance(value, Mapping) else value
        for i, pair in enumerate(pairs):
            try:
                guid, other = pair
            except (TypeError, ValueError):
                raise TypeError(f"{key}[{i}] must be a (guid, {second}) pair, "
                                f"not {pair!r}") from None
            yield i, guid, other

    def _set_guid_ports(self, key: str, value: Any) -> None:
        items = []
        for i, guid, port in self._pairs(key, value, "port"):
            items.append(_capi.ibr_guid_port(_uint(guid, 64, f"{key}[{i}] guid"),
                                             _uint(port, 32, f"{key}[{i}] port")))
        self._set_array(key, _capi.ibr_guid_port, items)

    def _set_guid_ids(self, key: str, value: Any) -> None:
        items = []
        for i, guid, ident in self._pairs(key, value, "id"):
            items.append(_capi.ibr_guid_id(_uint(guid, 64, f"{key}[{i}] guid"),
                                           _uint(ident, 64, f"{key}[{i}] id")))
        self._set_array(key, _capi.ibr_guid_id, items)

    def _set_mcast_groups(self, key: str, value: Any) -> None:
        if not isinstance(value, McastGroups):
            raise TypeError("mcast_groups must be an McastGroups")
        self._keep.append(value)
        self.opts.mcast_groups = value._p()

    def _set_qos(self, key: str, value: Any) -> None:
        if value is None or value is False:
            self.opts.qos = None
            return
        if value is True:
            value = QosConfig()
        if not isinstance(value, QosConfig):
            raise TypeError("qos must be a QosConfig, True (OpenSM's defaults) or None")
        self._keep.append(value)
        self.opts.qos = value._p()

    def _set_mcast_balance(self, key: str, value: Any) -> None:
        if value:
            self.opts.mcast_flags |= int(McastFlags.BALANCE)
        else:
            self.opts.mcast_flags &= ~int(McastFlags.BALANCE)

    def _set_mcast_opensm(self, key: str, value: Any) -> None:
        if value:
            self.opts.mcast_flags |= int(McastFlags.OPENSM)
        else:
            self.opts.mcast_flags &= ~int(McastFlags.OPENSM)

    def _set_progress(self, key: str, fn: ProgressFn) -> None:
        if not callable(fn):
            raise TypeError("progress must be callable(phase, done, total)")

        def trampoline(user: Any, phase: Optional[bytes], done: int, total: int) -> int:
            if self.exception is not None:
                return 1
            try:
                return 1 if fn(_s(phase), done, total) else 0
            except BaseException as e:  # re-raised by the caller after the call
                self.exception = e
                return 1

        cb = _capi.PROGRESS_FN(trampoline)
        self._keep.append(cb)
        self.opts.progress = cb


def _options_from_c(o: _capi.ibr_options) -> Dict[str, Any]:
    """The options struct as a dict of the keyword names (used by Python
    engines to read the options of the call)."""
    out: Dict[str, Any] = {}
    for key, kind in _OPTION_KINDS.items():
        if kind in ("progress", "shorthand"):
            continue
        if kind == "mcast_balance":
            out[key] = bool(o.mcast_flags & int(McastFlags.BALANCE))
            continue
        if kind == "mcast_opensm":
            out[key] = bool(o.mcast_flags & int(McastFlags.OPENSM))
            continue
        if kind == "mcast_groups":
            out[key] = bool(o.mcast_groups)  # whether the call has groups
            continue
        if kind == "qos":
            out[key] = bool(o.qos)  # whether QoS is on
            continue
        v = getattr(o, key)
        if kind == "params":
            v = {_s(v[i].name): _s(v[i].value) for i in range(o.n_params)}
        elif kind == "bool":
            v = bool(v)
        elif kind in ("guids", "guid_ports", "guid_ids"):
            n = getattr(o, "n_" + key)
            if kind == "guids":
                v = tuple(v[i] for i in range(n))
            elif kind == "guid_ports":
                v = tuple((v[i].guid, v[i].port) for i in range(n))
            else:
                v = tuple((v[i].guid, v[i].id) for i in range(n))
        out[key] = v
    return out


# --------------------------------------------------------------------------
# Context
# --------------------------------------------------------------------------

LogFn = Callable[[LogLevel, str], None]

_PY_LEVEL = {
    LogLevel.ERROR: logging.ERROR,
    LogLevel.WARN: logging.WARNING,
    LogLevel.INFO: logging.INFO,
    LogLevel.DEBUG: logging.DEBUG,
}


class Allocator:
    """Base of a Python allocator for :class:`Context` (ibr_allocator).

    Subclasses return addresses (ints) of memory they obtained somewhere
    (the default methods use the C library), or None for failure; the
    library then fails the call with IBR_ENOMEM.  The methods may be called
    from the worker threads of a routing call (use ``threads=1`` to avoid
    that).  Meant for testing allocation failures and counting memory; it
    is far slower than the C library's allocator.
    """

    _libc = ctypes.CDLL(None)
    _libc.malloc.argtypes = [c_size_t]
    _libc.malloc.restype = c_void_p
    _libc.realloc.argtypes = [c_void_p, c_size_t]
    _libc.realloc.restype = c_void_p
    _libc.free.argtypes = [c_void_p]
    _libc.free.restype = None

    def malloc(self, size: int) -> Optional[int]:
        return self._libc.malloc(size)

    def realloc(self, ptr: Optional[int], size: int) -> Optional[int]:
        return self._libc.realloc(ptr, size)

    def free(self, ptr: int) -> None:
        self._libc.free(ptr)


def _address(value: Any) -> Optional[int]:
    """What an Allocator returned, as a pointer for C: an int in 1 ..
    2**64 - 1, or None (NULL: allocation failure) for anything else --
    None, 0, a bool, a float, a str -- which ctypes would otherwise turn
    into a garbage pointer or an ignored exception."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 64:
        return value
    return None


def _allocator_struct(allocator: Allocator) -> Tuple[Any, List[Any]]:
    def m(user: Any, size: int) -> Optional[int]:
        try:
            return _address(allocator.malloc(size))
        except BaseException:
            return None

    def r(user: Any, ptr: Optional[int], size: int) -> Optional[int]:
        try:
            return _address(allocator.realloc(ptr, size))
        except BaseException:
            return None

    def f(user: Any, ptr: Optional[int]) -> None:
        if ptr:
            allocator.free(ptr)

    cbs = [_capi.MALLOC_FN(m), _capi.REALLOC_FN(r), _capi.FREE_FN(f)]
    return _capi.ibr_allocator(cbs[0], cbs[1], cbs[2], None), cbs


class Context(_Handle):
    """An ibr_context: log callback, allocator and the engines registered
    on it.

    Objects that take ``context=None`` use the library's default context
    (no logging, built-in engines only).

    Args:
        log: None, a callable ``log(level: LogLevel, message: str)`` or a
            :class:`logging.Logger` that receives the library's messages.
        log_level: the most verbose level passed on.
        allocator: None for the C library's allocator, or an
            :class:`Allocator`.
    """

    _destroy = "ibr_context_destroy"

    def __init__(self, log: Union[None, LogFn, logging.Logger] = None,
                 log_level: Union[LogLevel, int, str] = LogLevel.WARN,
                 allocator: Optional[Allocator] = None) -> None:
        cfg = _new_struct(_capi.ibr_context_config)
        cfg.log_level = _enum(LogLevel, log_level, "log_level")
        self._alloc_keep: List[Any] = []
        if allocator is not None:
            if not isinstance(allocator, Allocator):
                raise TypeError("allocator must be an ibroute.Allocator")
            alloc, cbs = _allocator_struct(allocator)
            self._alloc_keep = [alloc, cbs]  # the context calls them until destroyed
            cfg.alloc = ctypes.pointer(alloc)
        self.allocator = allocator
        self._log_cb = None
        if log is not None:
            if isinstance(log, logging.Logger):
                logger = log

                def fn(level: LogLevel, msg: str) -> None:
                    logger.log(_PY_LEVEL.get(level, logging.DEBUG), "%s", msg)
            elif callable(log):
                fn = log
            else:
                raise TypeError("log must be a callable or a logging.Logger")

            def trampoline(user: Any, level: int, msg: Optional[bytes]) -> None:
                fn(_maybe_enum(LogLevel, level), _s(msg))

            self._log_cb = _capi.LOG_FN(trampoline)
            cfg.log = self._log_cb
        ptr = _capi.ContextP()
        rc = _lib.ibr_context_create(byref(ptr), byref(cfg))
        if rc < 0:
            raise error_for(rc, f"cannot create a context: {_s(_lib.ibr_strerror(rc))}")
        super().__init__(ptr, None)
        # Python engines registered on this context (kept alive with it)
        self._engines: List[Any] = []
        self._engine_errors = threading.local()
        # Topology objects routing now, by C address: a Run's borrowed
        # Topology pins the one it borrows from (see engine.Run.topology)
        self._routing: Dict[int, List["Topology"]] = {}

    @property
    def last_error(self) -> str:
        """ibr_context_last_error()."""
        return _s(_lib.ibr_context_last_error(self._p()))

    def engines(self) -> List[EngineInfo]:
        """Built-in engines, then those registered on this context."""
        return engines(self)

    def find_engine(self, name: str) -> EngineInfo:
        """Describe engine *name*; NotFoundError when unknown."""
        return find_engine(name, self)

    def register_engine(self, name: str, route: Callable[..., None], description: str = "",
                        caps: int = 0, settings: Sequence["Setting"] = ()) -> None:
        """Register a routing engine written in Python; see
        :mod:`ibroute.engine` for what *route* receives.  *settings*
        declares the engine's settings (:class:`Setting`), which callers
        set with ``route(params={"name.setting": value})`` and the engine
        reads with ``run.setting("setting")``.  Register before routing:
        while a route runs on the context (from an engine or a callback)
        registration raises StateError (IBR_ESTATE)."""
        from .engine import _register

        _register(self, name, route, description, caps, settings)

    def _take_engine_error(self) -> Optional[BaseException]:
        exc = getattr(self._engine_errors, "exc", None)
        self._engine_errors.exc = None
        return exc


def _ctx_ptr(context: Optional[Context]) -> Any:
    if context is None:
        return None
    if not isinstance(context, Context):
        raise TypeError(f"context must be an ibroute.Context, not {type(context).__name__}")
    return context._p()


def engines(context: Optional[Context] = None) -> List[EngineInfo]:
    """Engines known to *context* (built-ins only for None)."""
    cp = _ctx_ptr(context)
    out = []
    for i in range(_lib.ibr_context_engine_count(cp)):
        info = _capi.ibr_engine_info()
        rc = _lib.ibr_context_engine(byref(info), cp, i)
        if rc < 0:
            raise error_for(rc, f"engine {i}")
        out.append(_engine_info(info))
    return out


def find_engine(name: str, context: Optional[Context] = None) -> EngineInfo:
    """Describe the engine called *name*; NotFoundError when unknown."""
    info = _capi.ibr_engine_info()
    rc = _lib.ibr_context_find_engine(byref(info), _ctx_ptr(context), name.encode())
    if rc < 0:
        raise error_for(rc, f"no engine named {name!r}")
    return _engine_info(info)


# --------------------------------------------------------------------------
# GUID-list files
# --------------------------------------------------------------------------

GuidListEntry = Union[int, Tuple[int, int]]


def parse_guid_list(text: Text, kind: Union[GuidListKind, int, str] = "plain",
                    context: Optional[Context] = None) -> List[GuidListEntry]:
    """Parse one of OpenSM's GUID-list files held in *text* (guidlist.h).

    *kind* says what each line holds:

    - ``"plain"``: a GUID (root_guid_file, cn_guid_file, io_guid_file,
      guid_routing_order_file); returns a list of ints;
    - ``"id"``: a GUID and an id, 0 when absent (ids_guid_file); returns
      ``(guid, id)`` tuples;
    - ``"port"``: a switch GUID and a port 1..254 (the ignore-guids file);
      returns ``(guid, port)`` tuples.

    Entries keep the file's order, duplicates included.  The result plugs
    straight into :meth:`Topology.route` (``root_guids=``, ``ids=``,
    ``ignore_ports=``, ...).  A bad line raises :class:`ParseError` whose
    message names it ("line 3: bad GUID 'xyz' ..."); an unknown kind name
    raises ValueError, an unknown kind number InvalidArgumentError.
    """
    data = _b(text)
    if isinstance(kind, str) and kind.lower() in ("ids", "ports"):
        kind = kind[:-1]  # the files are "ids" and "ignore ports" files
    k = _enum(GuidListKind, kind, "kind")
    out = _capi.GuidListP()
    if context is not None and not isinstance(context, Context):
        raise TypeError(f"context must be an ibroute.Context, not {type(context).__name__}")
    with (context._using() if context is not None else contextlib.nullcontext()) as cp:
        rc = _lib.ibr_guid_list_parse(byref(out), cp, k, data, len(data))
    try:
        if rc < 0:
            msg = _s(_lib.ibr_guid_list_last_error(out)) if out else ""
            raise error_for(rc, msg or f"ibr_guid_list_parse(kind {k}): "
                                       f"{_s(_lib.ibr_strerror(rc))}")
        n = _lib.ibr_guid_list_count(out)
        if n == 0:
            return []
        if k == GuidListKind.ID:
            ids = _lib.ibr_guid_list_ids(out)
            return [(e.guid, e.id) for e in ids[:n]]
        if k == GuidListKind.PORT:
            ports = _lib.ibr_guid_list_ports(out)
            return [(e.guid, e.port) for e in ports[:n]]
        return list(_lib.ibr_guid_list_guids(out)[:n])
    finally:
        if out:
            _lib.ibr_guid_list_destroy(out)


# --------------------------------------------------------------------------
# shared queries of Fabric and Topology
# --------------------------------------------------------------------------


class _Nodes(_Handle):
    _prefix = ""  # "ibr_fabric_" or "ibr_topo_"

    def _fail(self, rc: int, what: str) -> Error:
        return error_for(rc, what)

    @property
    def node_count(self) -> int:
        """Number of nodes (also ``len(obj)``)."""
        return getattr(_lib, self._prefix + "node_count")(self._p())

    def __len__(self) -> int:
        return self.node_count

    def node_info(self, node: int) -> NodeInfo:
        """Describe node *node*; NotFoundError for a bad index."""
        out = _new_struct(_capi.ibr_node_info)
        rc = getattr(_lib, self._prefix + "node_info")(byref(out), self._p(),
                                                     _uint(node, 32, "node"))
        if rc < 0:
            raise self._fail(rc, f"node {node} not found ({self.node_count} nodes)")
        return _node_info(out, node)

    def port_info(self, node: int, port: int) -> PortInfo:
        """Describe port *port* of *node*; NotFoundError or RangeError."""
        out = _new_struct(_capi.ibr_port_info)
        rc = getattr(_lib, self._prefix + "port_info")(
            byref(out), self._p(), _uint(node, 32, "node"), _uint(port, 32, "port"))
        if rc < 0:
            raise self._fail(rc, f"node {node} port {port}: {_s(_lib.ibr_strerror(rc))}")
        return _port_info(out, node, port)

    def nodes(self) -> Iterator[NodeInfo]:
        """Every node, in index order."""
        for i in range(self.node_count):
            yield self.node_info(i)

    def ports(self, node: int) -> List[PortInfo]:
        """The ports of *node*: 0..nports for a switch, 1..nports otherwise."""
        info = self.node_info(node)
        first = 0 if info.type == NodeType.SWITCH else 1
        return [self.port_info(node, p) for p in range(first, info.nports + 1)]

    def links(self) -> Iterator[Link]:
        """Every cable once, down links included."""
        for info in self.nodes():
            for p in range(1, info.nports + 1):
                pi = self.port_info(info.index, p)
                if pi.remote_node is None or (pi.remote_node, pi.remote_port) < (info.index, p):
                    continue
                yield Link(info.index, p, pi.remote_node, pi.remote_port, pi.state, pi.width,
                           pi.speed)

    def find_guid(self, guid: int) -> Tuple[int, int]:
        """(node, port) of a node GUID or port GUID; NotFoundError.  For a
        node GUID the port is the one the library reports (0 for a switch)."""
        node = c_uint32()
        port = c_uint()
        rc = getattr(_lib, self._prefix + "find_guid")(byref(node), byref(port), self._p(),
                                                     _uint(guid, 64, "guid"))
        if rc < 0:
            raise self._fail(rc, f"no node or port has GUID 0x{guid:016x}")
        return node.value, port.value


# --------------------------------------------------------------------------
# Fabric
# --------------------------------------------------------------------------


class Fabric(_Nodes):
    """A mutable fabric (ibr_fabric): add nodes and links, then freeze()
    it into an immutable :class:`Topology` to route.

    Every failing call raises an :class:`ibroute.Error` carrying the
    library's message and leaves the fabric as it was.
    """

    _destroy = "ibr_fabric_destroy"
    _prefix = "ibr_fabric_"

    def __init__(self, context: Optional[Context] = None) -> None:
        ptr = _capi.FabricP()
        _ctx_ptr(context)  # type check
        with (context._using() if context is not None else contextlib.nullcontext()) as cp:
            rc = _lib.ibr_fabric_create(byref(ptr), cp)
            if rc < 0:
                raise error_for(rc, f"cannot create a fabric: {_s(_lib.ibr_strerror(rc))}")
            super().__init__(ptr, context)
        self._context = context

    @classmethod
    def from_spec(cls, spec: str, context: Optional[Context] = None) -> "Fabric":
        """A new fabric generated from a spec string such as
        ``"fattree:levels=2,radix=8"`` (see generate.h)."""
        f = cls(context)
        try:
            f.generate(spec)
        except BaseException:
            f.close()
            raise
        return f

    @classmethod
    def from_ibnetdiscover(cls, text: Text, context: Optional[Context] = None) -> "Fabric":
        """A new fabric parsed from ibnetdiscover output or an ibsim netfile."""
        f = cls(context)
        try:
            f.parse_ibnetdiscover(text)
        except BaseException:
            f.close()
            raise
        return f

    @property
    def context(self) -> Optional[Context]:
        return self._context

    @property
    def last_error(self) -> str:
        """ibr_fabric_last_error(): "" when the last call succeeded."""
        return _s(_lib.ibr_fabric_last_error(self._p()))

    def _fail(self, rc: int, what: str) -> Error:
        msg = _s(_lib.ibr_fabric_last_error(self._ptr)) if self._ptr else ""
        return error_for(rc, msg or what)

    def _check(self, rc: int, what: str = "") -> None:
        if rc < 0:
            raise self._fail(rc, what or _s(_lib.ibr_strerror(rc)))

    # -- nodes ------------------------------------------------------------

    def add_node(self, type: Union[NodeType, int, str], guid: int, nports: int,
                 desc: Optional[str] = None) -> int:
        """Add a node and return its index.  *type* is a :class:`NodeType`
        (or "switch", "ca", "router")."""
        out = c_uint32()
        self._check(_lib.ibr_fabric_add_node(
            byref(out), self._p(), _enum(NodeType, type, "type"), _uint(guid, 64, "guid"),
            _uint(nports, 32, "nports"), None if desc is None else _b(desc)))
        return out.value

    def add_switch(self, guid: int, nports: int, desc: Optional[str] = None) -> int:
        """Add a switch (port 0 is its management port) and return its index."""
        return self.add_node(NodeType.SWITCH, guid, nports, desc)

    def add_ca(self, guid: int, nports: int = 1, desc: Optional[str] = None) -> int:
        """Add a channel adapter and return its index."""
        return self.add_node(NodeType.CA, guid, nports, desc)

    def add_router(self, guid: int, nports: int, desc: Optional[str] = None) -> int:
        """Add a router and return its index."""
        return self.add_node(NodeType.ROUTER, guid, nports, desc)

    def set_sysimg_guid(self, node: int, guid: int) -> None:
        """Set a node's system-image GUID (0 restores the default)."""
        self._check(_lib.ibr_fabric_set_sysimg_guid(self._p(), _uint(node, 32, "node"),
                                                    _uint(guid, 64, "guid")))

    def set_port_guid(self, node: int, port: int, guid: int) -> None:
        """Set a port GUID (port 0 for a switch)."""
        self._check(_lib.ibr_fabric_set_port_guid(self._p(), _uint(node, 32, "node"),
                                                  _uint(port, 32, "port"),
                                                  _uint(guid, 64, "guid")))

    # -- links ------------------------------------------------------------

    def add_link(self, a: int, port_a: int, b: int, port_b: int,
                 width: Union[LinkWidth, int, str] = LinkWidth.W4X,
                 speed: Union[LinkSpeed, int, str] = LinkSpeed.QDR,
                 state: Union[LinkState, int, str] = LinkState.ACTIVE) -> None:
        """Cable port *port_a* of node *a* to port *port_b* of node *b*."""
        attr = _new_struct(_capi.ibr_link_attr)
        attr.width = _enum(LinkWidth, width, "width")
        attr.speed = _enum(LinkSpeed, speed, "speed")
        attr.state = _enum(LinkState, state, "state")
        self._check(_lib.ibr_fabric_add_link(self._p(), _uint(a, 32, "a"),
                                             _uint(port_a, 32, "port_a"), _uint(b, 32, "b"),
                                             _uint(port_b, 32, "port_b"), byref(attr)))

    def remove_link(self, node: int, port: int) -> None:
        """Remove the cable on a port (both ends)."""
        self._check(_lib.ibr_fabric_remove_link(self._p(), _uint(node, 32, "node"),
                                                _uint(port, 32, "port")))

    def set_link_state(self, node: int, port: int,
                       state: Union[LinkState, int, str, bool]) -> None:
        """Set the state of the link on a port (both ends).  *state* is a
        :class:`LinkState`, "active"/"down", or a bool (True = active)."""
        self._check(_lib.ibr_fabric_set_link_state(self._p(), _uint(node, 32, "node"),
                                                   _uint(port, 32, "port"),
                                                   _state(state)))

    def set_port_attr(self, node: int, port: int, vl_cap: int = 0, oper_vls: int = 0,
                      widths_enabled: Iterable[Union[LinkWidth, int, str]] = (),
                      speeds_enabled: Iterable[Union[LinkSpeed, int, str]] = ()) -> None:
        """Set the PortInfo facts of port *port* (1..nports) of *node*: its
        VLCap and OperVLs as data-VL counts (1, 2, 4, 8 or 15; 0 = the
        default: VLCap 8, OperVLs the smaller VLCap of the two ends) and
        the widths and speeds it enables (empty = only the active ones).
        Every field is replaced."""
        attr = _new_struct(_capi.ibr_port_attr)
        attr.vl_cap = _uint(vl_cap, 32, "vl_cap")
        attr.oper_vls = _uint(oper_vls, 32, "oper_vls")
        wmask = 0
        for w in widths_enabled:
            wmask |= _enum(LinkWidth, w, "width")
        smask = 0
        for v in speeds_enabled:
            smask |= 1 << _enum(LinkSpeed, v, "speed")
        attr.width_enabled = wmask
        attr.speed_enabled = smask
        self._check(_lib.ibr_fabric_set_port_attr(self._p(), _uint(node, 32, "node"),
                                                  _uint(port, 32, "port"), byref(attr)))

    def set_node_state(self, node: int, state: Union[LinkState, int, str, bool]) -> None:
        """Mark every link of a node down (a switch failure) or active."""
        self._check(_lib.ibr_fabric_set_node_state(self._p(), _uint(node, 32, "node"),
                                                   _state(state)))

    # -- LIDs -------------------------------------------------------------

    def set_lid(self, node: int, port: int, base: int, lmc: int = 0) -> None:
        """Give a port LIDs base .. base + 2**lmc - 1 (port 0 for a switch;
        base 0 removes them)."""
        self._check(_lib.ibr_fabric_set_lid(self._p(), _uint(node, 32, "node"),
                                            _uint(port, 32, "port"), _uint(base, 16, "base"),
                                            _uint(lmc, 32, "lmc")))

    def assign_lids(self, lmc: int = 0, reassign: bool = False) -> None:
        """Give every switch and cabled end port LIDs; existing LIDs are
        kept unless *reassign*."""
        flags = LidFlags.REASSIGN if reassign else LidFlags.KEEP
        self._check(_lib.ibr_fabric_assign_lids(self._p(), _uint(lmc, 32, "lmc"), flags))

    # -- generators, parsers, faults ---------------------------------------

    def generate(self, spec: str) -> None:
        """Fill this empty fabric from a spec string, e.g.
        ``"fattree:levels=3,radix=8"`` or ``"torus:dims=4x4,hosts=1"``."""
        with self._using() as p:
            self._check(_lib.ibr_fabric_generate(p, spec.encode()))

    def generate_fat_tree(self, levels: int, radix: int, hosts_per_leaf: int = 0) -> None:
        """ibr_fabric_gen_fat_tree(): a k-ary fat tree of radix-port switches."""
        with self._using() as p:
            self._check(_lib.ibr_fabric_gen_fat_tree(p, _uint(levels, 32, "levels"),
                                              _uint(radix, 32, "radix"),
                                              _uint(hosts_per_leaf, 32, "hosts_per_leaf")))

    def generate_xgft(self, m: Sequence[int], w: Sequence[int], hosts: int = 0) -> None:
        """ibr_fabric_gen_xgft(): XGFT(h; m; w) with h = len(m) = len(w)."""
        if len(m) != len(w):
            raise ValueError(f"m has {len(m)} levels but w has {len(w)}")
        if len(m) > _capi.XGFT_MAX_LEVELS:
            raise RangeError(f"{len(m)} levels (at most {_capi.XGFT_MAX_LEVELS})")
        p = _new_struct(_capi.ibr_gen_xgft)
        p.h = len(m)
        for i, (mi, wi) in enumerate(zip(m, w)):
            p.m[i] = _uint(mi, 32, f"m[{i}]")
            p.w[i] = _uint(wi, 32, f"w[{i}]")
        p.hosts = _uint(hosts, 32, "hosts")
        with self._using() as fp:
            self._check(_lib.ibr_fabric_gen_xgft(fp, byref(p)))

    def generate_torus(self, dims: Sequence[int], hosts: int = 1, wrap: bool = True,
                       parallel: int = 1) -> None:
        """ibr_fabric_gen_torus(): a torus (or a mesh with wrap=False)."""
        arr = (c_uint * max(len(dims), 1))(*[_uint(d, 32, "dims") for d in dims])
        with self._using() as p:
            self._check(_lib.ibr_fabric_gen_torus(p, len(dims), arr, 1 if wrap else 0,
                                           _uint(hosts, 32, "hosts"),
                                           _uint(parallel, 32, "parallel")))

    def generate_hypercube(self, dim: int, hosts: int = 1) -> None:
        """ibr_fabric_gen_hypercube()."""
        with self._using() as p:
            self._check(_lib.ibr_fabric_gen_hypercube(p, _uint(dim, 32, "dim"),
                                               _uint(hosts, 32, "hosts")))

    def generate_dragonfly(self, a: int, p: int, h: int, g: int) -> None:
        """ibr_fabric_gen_dragonfly(): g groups of a routers, p hosts and h global
        links per router."""
        with self._using() as fp:
            self._check(_lib.ibr_fabric_gen_dragonfly(fp, _uint(a, 32, "a"), _uint(p, 32, "p"),
                                               _uint(h, 32, "h"), _uint(g, 32, "g")))

    def generate_random(self, switches: int, degree: int, hosts: int = 1,
                        seed: int = 0) -> None:
        """ibr_fabric_gen_random(): a connected random switch graph."""
        with self._using() as p:
            self._check(_lib.ibr_fabric_gen_random(p, _uint(switches, 32, "switches"),
                                            _uint(degree, 32, "degree"),
                                            _uint(hosts, 32, "hosts"), _uint(seed, 64, "seed")))

    def inject_faults(self, links: int = 0, switches: int = 0, seed: int = 0) -> None:
        """Mark *links* random switch-to-switch links and *switches* random
        switches down, chosen by *seed*."""
        self._check(_lib.ibr_fabric_inject_faults(self._p(), _uint(links, 32, "links"),
                                                  _uint(switches, 32, "switches"),
                                                  _uint(seed, 64, "seed")))

    def parse_ibnetdiscover(self, text: Text) -> None:
        """Fill this empty fabric from ibnetdiscover output / an ibsim netfile."""
        data = _b(text)
        with self._using() as p:
            self._check(_lib.ibr_fabric_parse_ibnetdiscover(p, data, len(data)))

    def parse_subnet_lst(self, text: Text) -> None:
        """Fill this empty fabric from a link list: OpenSM's
        opensm-subnet.lst or ibdiagnet's ibdiagnet2.lst.  ParseError names
        the line (and ends in a code such as [LS010])."""
        data = _b(text)
        with self._using() as p:
            self._check(_lib.ibr_fabric_parse_subnet_lst(p, data, len(data)))

    def parse_db_csv(self, text: Text) -> None:
        """Fill this empty fabric from ibdiagnet's database file
        (ibdiagnet2.db_csv): its NODES, PORTS and LINKS tables.  ParseError
        names the line (and ends in a code such as [DC008])."""
        data = _b(text)
        with self._using() as p:
            self._check(_lib.ibr_fabric_parse_db_csv(p, data, len(data)))

    def parse_guid2lid(self, text: Text) -> None:
        """Apply LIDs from an OpenSM guid2lid file."""
        data = _b(text)
        with self._using() as p:
            self._check(_lib.ibr_fabric_parse_guid2lid(p, data, len(data)))

    # -- whole fabric -----------------------------------------------------

    def clone(self) -> "Fabric":
        """An independent copy (same context)."""
        ptr = _capi.FabricP()
        with self._using() as p:
            self._check(_lib.ibr_fabric_clone(byref(ptr), p))
            # attached while this fabric (and through it the context) is
            # pinned: closing either meanwhile cannot free what ptr uses
            f = Fabric.__new__(Fabric)
            _Handle.__init__(f, ptr, self._context)
            f._context = self._context
        return f

    def freeze(self) -> "Topology":
        """Freeze into an immutable Topology (the fabric is unchanged and
        may be modified and frozen again)."""
        ptr = _capi.TopoP()
        with self._using() as p:
            self._check(_lib.ibr_fabric_freeze(byref(ptr), p))
            return Topology._wrap(ptr, self._context)

    def __repr__(self) -> str:
        if self._closed:
            return "<ibroute.Fabric closed>"
        return f"<ibroute.Fabric {self.node_count} nodes>"


def _state(value: Union[LinkState, int, str, bool]) -> int:
    if isinstance(value, bool):
        return LinkState.ACTIVE if value else LinkState.DOWN
    if isinstance(value, str) and value.lower() in ("up", "active"):
        return LinkState.ACTIVE
    return _enum(LinkState, value, "state")


# --------------------------------------------------------------------------
# Topology
# --------------------------------------------------------------------------


class Topology(_Nodes):
    """A frozen, immutable topology (ibr_topo), obtained from
    :meth:`Fabric.freeze`.  It may be shared between threads and routed
    any number of times.  Switches have dense indices 0..switch_count-1
    (see topo.h); nodes keep the fabric's indices."""

    _destroy = "ibr_topo_destroy"
    _prefix = "ibr_topo_"

    def __init__(self) -> None:
        raise TypeError("a Topology comes from Fabric.freeze()")

    def parse_rank_order(self, text: Text) -> List[int]:
        """The port GUIDs of a rank order (analyze.h, ibr_rank_order_parse):
        one end port per line, rank 0 first, named by port or node GUID,
        by a line of ``ibr order``'s rank-order.txt, by a node description
        (optionally followed by a port number) or by a host name as a
        hostfile lists it.  A line naming no end port, or one already
        named, raises :class:`ParseError` whose message gives the line."""
        data = _b(text)
        out = _capi.RankOrderP()
        with self._using() as tp:
            rc = _lib.ibr_rank_order_parse(byref(out), tp, data, len(data))
        try:
            if rc < 0:
                msg = _s(_lib.ibr_rank_order_last_error(out)) if out else ""
                raise error_for(rc, msg or f"ibr_rank_order_parse: {_s(_lib.ibr_strerror(rc))}")
            n = _lib.ibr_rank_order_count(out)
            return list(_lib.ibr_rank_order_guids(out)[:n]) if n else []
        finally:
            if out:
                _lib.ibr_rank_order_destroy(out)

    @classmethod
    def _wrap(cls, ptr: Any, context: Optional[Context], owned: bool = True) -> "Topology":
        t = cls.__new__(cls)
        _Handle.__init__(t, ptr, context if owned else None, owned)
        t._context = context
        return t

    @property
    def context(self) -> Optional[Context]:
        """The Context the fabric was created with (None: the default)."""
        return self._context

    @property
    def switch_count(self) -> int:
        return _lib.ibr_topo_switch_count(self._p())

    @property
    def endport_count(self) -> int:
        """CA and router ports that have a LID and a cable."""
        return _lib.ibr_topo_endport_count(self._p())

    @property
    def max_lid(self) -> int:
        """Highest LID in use; LFTs have max_lid + 1 entries."""
        return _lib.ibr_topo_max_lid(self._p())

    @property
    def data_vls(self) -> int:
        """Data VLs engines that layer routes may use (dfsssp, nue, lash):
        the smallest OperVLs of a cabled switch port, as OpenSM counts them
        (15 when no switch port is cabled)."""
        return _lib.ibr_topo_data_vls(self._p())

    def link_throttled(self, node: int, port: int) -> bool:
        """Whether the cable on a port runs below the best width or speed
        both its ends enable (False when not cabled or out of range)."""
        return bool(_lib.ibr_topo_link_throttled(self._p(), _uint(node, 32, "node"),
                                                 _uint(port, 32, "port")))

    def switch_node(self, sw: int) -> int:
        """Node index of switch *sw*; NotFoundError for a bad index."""
        n = _lib.ibr_topo_switch_node(self._p(), _uint(sw, 32, "sw"))
        if n == NONE:
            raise error_for(_code("ENOTFOUND"),
                            f"switch {sw} not found (the topology has {self.switch_count})")
        return n

    def node_switch(self, node: int) -> Optional[int]:
        """Switch index of *node*, None when it is not a switch."""
        s = _lib.ibr_topo_node_switch(self._p(), _uint(node, 32, "node"))
        return None if s == NONE else s

    def switches(self) -> List[int]:
        """Node index of every switch, in switch-index order."""
        p = self._p()
        return [_lib.ibr_topo_switch_node(p, i) for i in range(_lib.ibr_topo_switch_count(p))]

    def lid_owner(self, lid: int) -> Tuple[int, int]:
        """(node, port) owning *lid*; NotFoundError when no port owns it."""
        node = c_uint32()
        port = c_uint()
        rc = _lib.ibr_topo_lid_owner(byref(node), byref(port), self._p(), _uint(lid, 16, "lid"))
        if rc < 0:
            raise error_for(rc, f"no port owns LID {lid}")
        return node.value, port.value

    def switch_distance(self, sw_a: int, sw_b: int) -> Optional[int]:
        """Shortest switch-to-switch distance over active links, None when
        unreachable.  One BFS per call."""
        d = _lib.ibr_topo_switch_distance(self._p(), _uint(sw_a, 32, "sw_a"),
                                          _uint(sw_b, 32, "sw_b"))
        return None if d == 255 else d

    # -- routing ----------------------------------------------------------

    def route(self, chain: Union[str, Sequence[str]] = "minhop", **options: Any) -> "Result":
        """Route with an engine chain ("ftree,updn", or a list of names) and
        options given as keywords (see :data:`OPTION_NAMES`):

        lmc, max_vls, seed, scatter_ports, port_shifting,
        port_profile_switch_nodes, root_guids=[...], cn_guids, io_guids,
        guid_routing_order, guid_routing_order_no_scatter,
        ignore_ports=[(guid, port)], ids=[(guid, id)] or {guid: id},
        threads, progress=callable(phase, done, total) returning True to
        cancel, params={"engine.setting": value} (engine settings, see
        :attr:`EngineInfo.settings`; values are bools, ints or strings),
        the shorthands connect_roots (updn, dnup and ftree's
        connect_roots) and max_reverse_hops (ftree's), and
        mcast_groups=McastGroups (multicast trees per MLID, see
        :meth:`mcast_groups`) with mcast_balance=True for balanced trees and
        mcast_opensm=True to keep OpenSM's trees and SLs even where, after
        an engine that promises deadlock freedom, multicast closes a credit
        loop (by default unicast then moves one SL/VL up).

        The GUID lists may come straight from :func:`parse_guid_list`
        (``root_guids=parse_guid_list(text)``, ``ids=parse_guid_list(text,
        "id")``, ``ignore_ports=parse_guid_list(text, "port")``).

        Unless the chain contains "no_fallback", minhop runs last when
        every listed engine declines.  Raises UnroutableError (with
        ``.attempts``), InvalidArgumentError, CanceledError, ...; an
        unknown keyword raises TypeError.
        """
        if not isinstance(chain, str):
            chain = ",".join(chain)
        call = _OptionsCall("route", options)
        out = _capi.ResultP()
        with self._using() as tp:
            ctx = self._context
            key = ctypes.cast(tp, c_void_p).value
            if ctx is not None:
                with _lock:
                    ctx._routing.setdefault(key, []).append(self)
            try:
                rc = _lib.ibr_route(byref(out), tp, chain.encode(), byref(call.opts))
            finally:
                if ctx is not None:
                    with _lock:
                        routing = ctx._routing[key]
                        routing.remove(self)
                        if not routing:
                            del ctx._routing[key]
            # everything below runs with the topology still pinned: a close()
            # during the call (from a progress callback, an engine, another
            # thread) takes effect only once the result no longer needs it
            engine_exc = self._context._take_engine_error() if self._context is not None else None
            if rc < 0 or engine_exc is not None or call.exception is not None:
                msg = _s(_lib.ibr_result_last_error(out)) if out else ""
                attempts = _attempts(out) if out else []
                if out:
                    _lib.ibr_result_destroy(out)
                exc = call.exception or engine_exc
                if exc is not None:
                    raise exc
                err = error_for(rc, msg)
                err.attempts = attempts  # type: ignore[attr-defined]
                raise err
            return Result._wrap(out, self)

    def mcast_groups(self, text: Optional[Text] = None) -> "McastGroups":
        """A new set of multicast groups bound to this topology: empty, or
        parsed from *text* in the groups-file syntax of ``ibr route
        --groups`` (ParseError names the line)."""
        return McastGroups(self, text)

    def mcast_groups_sa_dump(self, text: Text) -> "McastGroups":
        """Multicast groups from OpenSM's SA database dump (opensm-sa.dump)
        as OpenSM's restore keeps them (ParseError names the line)."""
        return McastGroups(self, text, sa_dump=True)

    # -- writers ----------------------------------------------------------

    def write_ibnetdiscover(self) -> str:
        """The topology as ibnetdiscover text."""
        with self._using() as p:
            return _write("ibr_topo_write_ibnetdiscover", p)

    def write_guid2lid(self) -> str:
        """OpenSM's guid2lid file."""
        with self._using() as p:
            return _write("ibr_topo_write_guid2lid", p)

    def write_subnet_lst(self) -> str:
        """OpenSM's opensm-subnet.lst."""
        with self._using() as p:
            return _write("ibr_topo_write_subnet_lst", p)

    def write_db_csv(self) -> str:
        """ibdiagnet's database file, ibdiagnet2.db_csv (its NODES, PORTS
        and LINKS tables), as Fabric.parse_db_csv reads it."""
        with self._using() as p:
            return _write("ibr_topo_write_db_csv", p)

    def parse_lfts(self, text: Text) -> "Result":
        """Read LFTs (opensm-lfts.dump, ibroute or dump_lfts output) into a
        Result for this topology."""
        return Result.parse_lfts(self, text)

    def __repr__(self) -> str:
        if self._closed:
            return "<ibroute.Topology closed>"
        return (f"<ibroute.Topology {self.node_count} nodes, {self.switch_count} switches, "
                f"{self.endport_count} end ports, max LID {self.max_lid}>")


@dataclasses.dataclass(frozen=True)
class McastMember:
    """A member port of an MLID (ibr_mcast_member)."""

    guid: int
    port: int
    node: int
    join_state: McastJoin


@dataclasses.dataclass(frozen=True)
class McastGroup:
    """One multicast group of an :class:`McastGroups` set."""

    mlid: int
    #: The MGID (16 bytes), or None for the MLID's anonymous group.
    mgid: Optional[bytes]
    members: int


@dataclasses.dataclass(frozen=True)
class McastHop:
    """One copy of a traced multicast packet (ibr_mcast_hop)."""

    sw: int
    in_port: int
    out_port: int
    #: Node reached (None: the port is not cabled or down).
    to_node: Optional[int]
    to_port: int
    depth: int
    duplicate: bool


def _member(c: _capi.ibr_mcast_member) -> McastMember:
    return McastMember(c.guid, c.port, c.node, McastJoin(c.join_state))


class McastGroups(_Handle):
    """Multicast groups bound to a :class:`Topology` (ibr_mcast_groups):
    MLIDs with optional MGIDs and member ports (node GUID, port number,
    join state).  Pass it to :meth:`Topology.route` as ``mcast_groups``."""

    _destroy = "ibr_mcast_groups_destroy"

    def __init__(self, topology: Topology, text: Optional[Text] = None,
                 sa_dump: bool = False) -> None:
        """Empty, or parsed from *text*: the groups-file syntax, or with
        *sa_dump* OpenSM's SA database dump (opensm-sa.dump, its MC Group
        and mcm_port records; ibr_mcast_groups_parse_sa_dump)."""
        out = _capi.McastGroupsP()
        with topology._using() as tp:
            if text is None:
                rc = _lib.ibr_mcast_groups_create(byref(out), tp)
                msg = ""
            else:
                data = _b(text)
                parse = (_lib.ibr_mcast_groups_parse_sa_dump if sa_dump
                         else _lib.ibr_mcast_groups_parse)
                rc = parse(byref(out), tp, data, len(data))
                msg = _s(_lib.ibr_mcast_groups_last_error(out)) if out else ""
                if rc < 0 and out:
                    _lib.ibr_mcast_groups_destroy(out)
            if rc < 0:
                raise error_for(rc, msg)
        _Handle.__init__(self, out, topology)
        self._topology = topology

    @property
    def topology(self) -> Topology:
        return self._topology

    def add_member(self, mlid: int, guid: int, port: int,
                   join_state: Union[McastJoin, int] = McastJoin.FULL,
                   mgid: Optional[bytes] = None) -> None:
        """Add port *port* of node *guid* (0 for a switch) to the group
        (*mlid*, *mgid*); RangeError (MLID, join state), NotFoundError
        (unknown GUID or port), ExistsError (already a member)."""
        mg = None
        if mgid is not None:
            if len(mgid) != 16:
                raise ValueError("mgid must be 16 bytes")
            mg = (c_uint8 * 16)(*mgid)
        rc = _lib.ibr_mcast_groups_add_member(self._p(), _uint(mlid, 16, "mlid"),
                                              ctypes.cast(mg, ctypes.POINTER(c_uint8))
                                              if mg is not None else None,
                                              _uint(guid, 64, "guid"), _uint(port, 32, "port"),
                                              _uint(int(join_state), 32, "join_state"))
        if rc < 0:
            raise error_for(rc, _s(_lib.ibr_mcast_groups_last_error(self._p())))

    def groups(self) -> List[McastGroup]:
        """The groups, in the order they were created."""
        p = self._p()
        out = []
        for i in range(_lib.ibr_mcast_groups_group_count(p)):
            mlid = ctypes.c_uint16()
            mgid = (c_uint8 * 16)()
            has = ctypes.c_int()
            n = c_size_t()
            _lib.ibr_mcast_groups_group(byref(mlid), mgid, byref(has), byref(n), p, i)
            out.append(McastGroup(mlid.value, bytes(mgid) if has.value else None, n.value))
        return out

    def mlids(self) -> List[int]:
        """The distinct MLIDs, ascending."""
        p = self._p()
        return [_lib.ibr_mcast_groups_mlid(p, i) for i in range(_lib.ibr_mcast_groups_mlid_count(p))]

    def members(self, mlid: int) -> List[McastMember]:
        """The member ports of *mlid* (the union over its groups)."""
        p = self._p()
        n = c_size_t()
        rc = _lib.ibr_mcast_groups_members(None, 0, byref(n), p, _uint(mlid, 16, "mlid"))
        if rc < 0 and rc != _code("ERANGE"):
            raise error_for(rc, f"MLID 0x{mlid:04X}: no such group")
        arr = (_capi.ibr_mcast_member * max(n.value, 1))()
        rc = _lib.ibr_mcast_groups_members(arr, n.value, byref(n), p, mlid)
        if rc < 0:
            raise error_for(rc, f"MLID 0x{mlid:04X}")
        return [_member(arr[i]) for i in range(n.value)]

    def write(self) -> str:
        """The set in the groups-file syntax."""
        return _write("ibr_mcast_groups_write", self._p())

    def __repr__(self) -> str:
        if self._closed:
            return "<ibroute.McastGroups closed>"
        return f"<ibroute.McastGroups {len(self.mlids())} MLIDs>"


_QOS_PARAMS = ("max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl")
_QOS_PREFIX = {QosTarget.GLOBAL: "qos", QosTarget.CA: "qos_ca", QosTarget.RTR: "qos_rtr",
               QosTarget.SW0: "qos_sw0", QosTarget.SWE: "qos_swe"}


class QosConfig(_Handle):
    """OpenSM's QoS configuration, the ``qos_*`` keys of opensm.conf
    (ibr_qos_config).  Pass it to :meth:`Topology.route` as ``qos`` to turn
    QoS on: the result then holds the SL2VL and VL arbitration tables
    OpenSM's QoS manager would program (``opensm -Q``)."""

    _destroy = "ibr_qos_config_destroy"

    def __init__(self, text: Optional[Text] = None,
                 context: Optional["Context"] = None, **keys: Any) -> None:
        """Nothing set (OpenSM's defaults), then the ``qos_*`` keys of the
        opensm.conf *text* (other keys are ignored), then *keys*
        (``qos_ca_sl2vl="0,1,..."``; see :meth:`set`).  ParseError names
        the line and the key of a bad value."""
        out = _capi.QosConfigP()
        rc = _lib.ibr_qos_config_create(byref(out), _ctx_ptr(context))
        if rc < 0:
            raise error_for(rc, "ibr_qos_config_create")
        _Handle.__init__(self, out, context)
        try:
            if text is not None:
                self.parse(text)
            for key, value in keys.items():
                self.set(key, value)
        except Exception:
            self.close()
            raise

    def parse(self, text: Text) -> None:
        """Read the ``qos_*`` keys of opensm.conf *text* into this
        configuration (all or nothing)."""
        data = _b(text)
        rc = _lib.ibr_qos_config_parse(self._p(), data, len(data))
        if rc < 0:
            raise error_for(rc, _s(_lib.ibr_qos_config_last_error(self._p())))

    def set(self, key: str, value: Any) -> None:
        """Set one key (``"qos_swe_vlarb_low"``) to *value*: text in the
        file's syntax, an int, or a sequence (VLs for ``sl2vl``, (VL,
        weight) pairs for ``vlarb_*``).  None unsets it."""
        if value is None:
            if key.endswith(("sl2vl", "vlarb_high", "vlarb_low")):
                text = "(null)"
            else:
                text = "0" if key.endswith("max_vls") else "-1"
        elif isinstance(value, (str, bytes)):
            text = value.decode() if isinstance(value, bytes) else value
        elif isinstance(value, int):
            text = str(value)
        else:
            text = ",".join(f"{e[0]}:{e[1]}" if isinstance(e, (tuple, list)) else str(int(e))
                            for e in value)
        rc = _lib.ibr_qos_config_set(self._p(), key.encode(), text.encode())
        if rc < 0:
            raise error_for(rc, _s(_lib.ibr_qos_config_last_error(self._p())))

    def is_set(self, key: str) -> bool:
        """True when *key* is set."""
        return bool(_lib.ibr_qos_config_is_set(self._p(), key.encode()))

    def table(self, target: Union[QosTarget, int, str] = QosTarget.GLOBAL) -> Dict[str, Any]:
        """The parameters a port of type *target* (``"ca"``, ``"rtr"``,
        ``"sw0"``, ``"swe"`` or ``"global"``) gets: a dict with
        ``max_vls``, ``high_limit``, ``vlarb_high`` and ``vlarb_low``
        (64 (VL, weight) pairs each) and ``sl2vl`` (16 VLs)."""
        t = _enum(QosTarget, target, "target")
        tb = _capi.ibr_qos_table()
        rc = _lib.ibr_qos_config_table(byref(tb), self._p(), t)
        if rc < 0:
            raise error_for(rc, f"ibr_qos_config_table(target {t})")
        return {"max_vls": tb.max_vls, "high_limit": tb.high_limit,
                "vlarb_high": [(e.vl, e.weight) for e in tb.vlarb_high],
                "vlarb_low": [(e.vl, e.weight) for e in tb.vlarb_low],
                "sl2vl": list(tb.sl2vl)}

    def text(self) -> str:
        """The set keys in opensm.conf syntax (ibr_qos_config_write)."""
        return _write("ibr_qos_config_write", self._p())

    def __repr__(self) -> str:
        if self.closed:
            return "<ibroute.QosConfig closed>"
        n = sum(self.is_set(f"{_QOS_PREFIX[t]}_{k}") for t in QosTarget for k in _QOS_PARAMS)
        return f"<ibroute.QosConfig {n} keys set>"


def _code(name: str) -> int:
    return dict(_capi.ERRNO_MAP)[name]


def _attempts(rp: Any) -> List[Attempt]:
    out = []
    for i in range(_lib.ibr_result_attempt_count(rp)):
        name = c_char_p()
        status = c_int()
        msg = c_char_p()
        if _lib.ibr_result_attempt(byref(name), byref(status), byref(msg), rp, i) == 0:
            out.append(Attempt(_s(name.value), _status(status.value), _s(msg.value)))
    return out


# --------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------

_lft_types: Dict[int, type] = {}


def _lft_type(n: int) -> type:
    # A subclass (unlike the bare array type) can carry the owner reference
    # and be the target of a weakref.
    t = _lft_types.get(n)
    if t is None:
        t = type(f"LFT{n}", (c_uint8 * n,), {})
        _lft_types[n] = t
    return t


def _view(owner: _Handle, address: int, n: int, readonly: bool) -> memoryview:
    """A memoryview (format 'B') over *n* bytes of C memory at *address*
    that pins *owner* for as long as the view (or anything derived from
    it) lives."""
    arr = _lft_type(n).from_address(address)
    owner._pin()
    arr._owner = owner
    weakref.finalize(arr, owner._unpin)
    mv = memoryview(arr).cast("B")
    return mv.toreadonly() if readonly else mv


class Result(_Handle):
    """A routing result (ibr_result): LFTs, hops, SLs, SL2VL, multicast
    tables and engine artefacts.  Immutable; it keeps its Topology alive."""

    _destroy = "ibr_result_destroy"

    def __init__(self) -> None:
        raise TypeError("a Result comes from Topology.route() or Result.parse_lfts()")

    @classmethod
    def _wrap(cls, ptr: Any, topology: Topology) -> "Result":
        r = cls.__new__(cls)
        _Handle.__init__(r, ptr, topology)
        r._topology = topology
        r._lft_size = _lib.ibr_result_lft_size(ptr)
        r._nsw = _lib.ibr_topo_switch_count(topology._ptr)
        return r

    @classmethod
    def parse_lfts(cls, topology: Topology, text: Text, sl2vl: Optional[Text] = None,
                   path_sl: Optional[Text] = None) -> "Result":
        """Read LFTs from opensm-lfts.dump, ibroute, dump_lfts or fdbs text
        (opensm.fdbs, ibdiagnet2.fdbs) into a result for *topology* (engine
        "file").  *sl2vl*: the switches' SL2VL tables (ibdiagnet2.sl2vl
        text); *path_sl*: the paths' SLs (ibdmchk's -c file).  ParseError
        names the line."""
        data = _b(text)
        out = _capi.ResultP()
        with topology._using() as tp:
            rc = _lib.ibr_result_parse_lfts(byref(out), tp, data, len(data))
            for fn, extra in (("ibr_result_parse_sl2vl", sl2vl),
                              ("ibr_result_parse_path_sl", path_sl)):
                if rc == 0 and extra is not None:
                    more = _b(extra)
                    rc = getattr(_lib, fn)(out, more, len(more))
            return cls._checked(out, rc, topology)

    @classmethod
    def _checked(cls, out, rc: int, topology: Topology) -> "Result":
        """The result a reader handed over, or its error (the failed
        result destroyed)."""
        if rc < 0:
            msg = _s(_lib.ibr_result_last_error(out)) if out else ""
            if out:
                _lib.ibr_result_destroy(out)
            raise error_for(rc, msg)
        return cls._wrap(out, topology)

    @classmethod
    def read_lfts(cls, topology: Topology, source, chunk: int = 1 << 24) -> "Result":
        """Read a forwarding-table dump as parse_lfts() does, from *source*
        (a path, or a binary file object) in pieces of *chunk* bytes, so
        that a dump of many gigabytes is never held whole.  ParseError
        names the line."""
        own = not hasattr(source, "read")
        f = open(source, "rb") if own else source
        st = _capi.LftsStreamP()
        out = _capi.ResultP()
        try:
            with topology._using() as tp:
                rc = _lib.ibr_lfts_stream_new(byref(st), tp)
                if rc < 0:
                    raise error_for(rc, "")
                while rc == 0:
                    piece = f.read(chunk)
                    if not piece:
                        break
                    piece = _b(piece)
                    rc = _lib.ibr_lfts_stream_feed(st, piece, len(piece))
                rc = _lib.ibr_lfts_stream_finish(st, byref(out))
                return cls._checked(out, rc, topology)
        finally:
            _lib.ibr_lfts_stream_destroy(st)
            if own:
                f.close()

    @property
    def topology(self) -> Topology:
        return self._topology

    @property
    def engine(self) -> str:
        """Name of the engine that produced the tables."""
        return _s(_lib.ibr_result_engine(self._p()))

    @property
    def status(self) -> int:
        return _lib.ibr_result_status(self._p())

    @property
    def seed(self) -> int:
        """The seed the routing used."""
        return _lib.ibr_result_seed(self._p())

    @property
    def threads(self) -> int:
        """Worker threads the engine ran with (the automatic count
        resolved); 0 for tables read from a dump."""
        return _lib.ibr_result_threads(self._p())

    @property
    def settings(self) -> Dict[str, str]:
        """The settings the engine that routed ran with: every setting it
        declares, "engine.setting" -> value as text (bools "0"/"1")."""
        out: Dict[str, str] = {}
        rp = self._p()
        for i in range(_lib.ibr_result_setting_count(rp)):
            name = c_char_p()
            value = c_char_p()
            if _lib.ibr_result_setting(byref(name), byref(value), rp, i) == 0:
                out[_s(name.value)] = _s(value.value)
        return out

    @property
    def attempts(self) -> List[Attempt]:
        """Engines tried, in order, the successful one last."""
        return _attempts(self._p())

    @property
    def switch_count(self) -> int:
        return self._nsw

    @property
    def lft_size(self) -> int:
        """Entries of every LFT: the topology's max LID + 1."""
        return self._lft_size

    def _sw(self, sw: int) -> int:
        sw = _uint(sw, 32, "sw")
        if sw >= self._nsw:
            raise error_for(_code("ENOTFOUND"),
                            f"switch {sw} not found (the topology has {self._nsw} switches)")
        return sw

    def lft(self, sw: int) -> memoryview:
        """The LFT of switch *sw*: a read-only memoryview of lft_size bytes
        indexed by LID (255 = no route), over the result's own memory (no
        copy).  The view keeps the result alive."""
        p = _lib.ibr_result_lft(self._p(), self._sw(sw))
        if not p:
            raise error_for(_code("ENOTFOUND"), f"switch {sw} has no LFT")
        return _view(self, p, self._lft_size, True)

    def lfts(self) -> List[memoryview]:
        """The LFT of every switch, in switch-index order."""
        return [self.lft(s) for s in range(self._nsw)]

    def copy_lft(self, sw: int) -> bytes:
        """A copy of the LFT of switch *sw* (ibr_result_copy_lft())."""
        buf = (c_uint8 * max(self._lft_size, 1))()
        needed = c_size_t()
        rc = _lib.ibr_result_copy_lft(buf, len(buf), byref(needed), self._p(),
                                      _uint(sw, 32, "sw"))
        if rc < 0:
            raise error_for(rc, f"switch {sw}: {_s(_lib.ibr_strerror(rc))}")
        return bytes(buf[: needed.value])

    def lft_port(self, sw: int, lid: int) -> int:
        """Output port of switch *sw* toward *lid* (255 = no route)."""
        return _lib.ibr_result_lft_port(self._p(), _uint(sw, 32, "sw"), _uint(lid, 16, "lid"))

    @property
    def has_hops(self) -> bool:
        return bool(_lib.ibr_result_has_hops(self._p()))

    def hops(self, sw: int, dst_sw: int) -> Optional[int]:
        """Hops the engine computed from switch *sw* to *dst_sw*; None when
        unreachable or when the result has no hop matrix."""
        h = _lib.ibr_result_hops(self._p(), _uint(sw, 32, "sw"), _uint(dst_sw, 32, "dst_sw"))
        return None if h == 255 else h

    @property
    def sl_mode(self) -> SLMode:
        return _maybe_enum(SLMode, _lib.ibr_result_sl_mode(self._p()))

    def path_sl(self, src_lid: int, dst_lid: int) -> int:
        """SL of the path from the port owning *src_lid* to *dst_lid*."""
        return _lib.ibr_result_path_sl(self._p(), _uint(src_lid, 16, "src_lid"),
                                       _uint(dst_lid, 16, "dst_lid"))

    @property
    def has_sl2vl(self) -> bool:
        return bool(_lib.ibr_result_has_sl2vl(self._p()))

    def sl2vl(self, sw: int, in_port: int, out_port: int) -> bytes:
        """The SL-to-VL map of switch *sw* from *in_port* to *out_port*:
        16 bytes, VL of SL 0..15."""
        out = (c_uint8 * 16)()
        rc = _lib.ibr_result_sl2vl(out, self._p(), _uint(sw, 32, "sw"),
                                   _uint(in_port, 32, "in_port"), _uint(out_port, 32, "out_port"))
        if rc < 0:
            raise error_for(rc, f"switch {sw} ports {in_port}->{out_port}: "
                                f"{_s(_lib.ibr_strerror(rc))}")
        return bytes(out)

    @property
    def has_qos(self) -> bool:
        """True when routed with QoS on (``qos=``): the result then holds
        the programmed SL2VL and VL arbitration tables."""
        return bool(_lib.ibr_result_has_qos(self._p()))

    def endport_sl2vl(self, node: int, port: int) -> bytes:
        """The SL2VL map of end port *port* of CA or router *node*."""
        out = (c_uint8 * 16)()
        rc = _lib.ibr_result_endport_sl2vl(out, self._p(), _uint(node, 32, "node"),
                                           _uint(port, 32, "port"))
        if rc < 0:
            raise error_for(rc, f"node {node} port {port}: {_s(_lib.ibr_strerror(rc))}")
        return bytes(out)

    def vlarb(self, node: int, port: int) -> Optional[Dict[str, Any]]:
        """The VL arbitration port (*node*, *port*) is programmed with: a
        dict with ``high_limit``, ``high`` and ``low`` (lists of (VL,
        weight), as many as the port's capabilities take); None for a port
        QoS leaves alone (or QoS off)."""
        v = _capi.ibr_vlarb()
        rc = _lib.ibr_result_vlarb(byref(v), self._p(), _uint(node, 32, "node"),
                                   _uint(port, 32, "port"))
        if rc == _code("ENOTFOUND") and node < self.topology.node_count:
            return None
        if rc < 0:
            raise error_for(rc, f"node {node} port {port}: {_s(_lib.ibr_strerror(rc))}")
        return {"high_limit": v.high_limit,
                "high": [(e.vl, e.weight) for e in v.high[:v.n_high]],
                "low": [(e.vl, e.weight) for e in v.low[:v.n_low]]}

    @property
    def qos_levels(self) -> int:
        """QoS levels routed for (the configuration's ibr_qos_levels; 1
        without)."""
        return _lib.ibr_result_qos_levels(self._p())

    def path_sl_level(self, level: int, src_lid: int, dst_lid: int) -> int:
        """SL of QoS level *level*'s traffic from *src_lid*'s port to
        *dst_lid* (level 0: :meth:`path_sl`)."""
        if not 0 <= level < self.qos_levels:
            raise ValueError(f"level {level} out of range (0..{self.qos_levels - 1})")
        return _lib.ibr_result_path_sl_level(self._p(), _uint(level, 32, "level"),
                                             _uint(src_lid, 16, "src_lid"),
                                             _uint(dst_lid, 16, "dst_lid"))

    def qos_notes(self) -> List[str]:
        """QoS settings the engine overrode and its warnings on them."""
        p = self._p()
        return [_s(_lib.ibr_result_qos_note(p, i))
                for i in range(_lib.ibr_result_qos_note_count(p))]

    def sl_hazards(self) -> List[Dict[str, Any]]:
        """SL2VL credit-loop hazards of the programmed tables: dicts with
        ``node``, ``in_port``, ``out_port`` (the first switch port pair),
        ``sl_a``, ``sl_b``, ``vl``, ``masked`` and ``count``."""
        p = self._p()
        out = []
        for i in range(_lib.ibr_result_sl_hazard_count(p)):
            h = _capi.ibr_sl_hazard()
            if _lib.ibr_result_sl_hazard(byref(h), p, i) == 0:
                out.append({k: (bool(getattr(h, k)) if k == "masked" else getattr(h, k))
                            for k, _t in _capi.ibr_sl_hazard._fields_})
        return out

    def write_vlarb(self) -> str:
        """The VL arbitration tables of every programmed port
        (ibr_result_write_vlarb; QoS on only)."""
        with self._using() as rp:
            return _write("ibr_result_write_vlarb", rp)

    @property
    def vls_used(self) -> int:
        """Data VLs the routing uses."""
        return _lib.ibr_result_vls_used(self._p())

    @property
    def layers(self) -> int:
        """Layers the engine's deadlock-free layering needs (0: none
        recorded); ``vls_used`` may be larger when the layers were spread
        over spare VLs."""
        return _lib.ibr_result_layers(self._p())

    @property
    def mcast_trees(self) -> "_capi.McastTrees":
        """Who built the multicast trees: OpenSM's default trees, balanced
        ones, the engine's own, or the one spanning tree on SL/VL 0 that
        keeps a deadlock-free engine's promise (NONE without groups)."""
        return _capi.McastTrees(_lib.ibr_result_mcast_trees(self._p()))

    def mcast_groups(self) -> List[int]:
        """MLIDs with a forwarding table."""
        p = self._p()
        return [_lib.ibr_result_mcast_mlid(p, i) for i in range(_lib.ibr_result_mcast_count(p))]

    def mcast_ports(self, mlid: int, sw: int) -> Tuple[int, ...]:
        """Ports of switch *sw* forwarding packets to *mlid*, ascending."""
        buf = (c_uint8 * 256)()
        needed = c_size_t()
        rc = _lib.ibr_result_mcast_ports(buf, 256, byref(needed), self._p(),
                                         _uint(mlid, 16, "mlid"), _uint(sw, 32, "sw"))
        if rc < 0:
            raise error_for(rc, f"MLID 0x{mlid:04x} switch {sw}: {_s(_lib.ibr_strerror(rc))}")
        return tuple(buf[: needed.value])

    @property
    def mcast(self) -> Dict[int, Dict[int, Tuple[int, ...]]]:
        """{mlid: {switch index: ports}} for every group, switches with no
        port omitted."""
        out: Dict[int, Dict[int, Tuple[int, ...]]] = {}
        for mlid in self.mcast_groups():
            table = {}
            for sw in range(self._nsw):
                ports = self.mcast_ports(mlid, sw)
                if ports:
                    table[sw] = ports
            out[mlid] = table
        return out

    def mcast_members(self, mlid: int) -> List[McastMember]:
        """The member ports the tree of *mlid* was built for; NotFoundError
        when the result has none (no such MLID, or tables from a dump)."""
        p = self._p()
        n = c_size_t()
        rc = _lib.ibr_result_mcast_members(None, 0, byref(n), p, _uint(mlid, 16, "mlid"))
        if rc < 0 and rc != _code("ERANGE"):
            raise error_for(rc, f"MLID 0x{mlid:04X}: no members in the result")
        arr = (_capi.ibr_mcast_member * max(n.value, 1))()
        rc = _lib.ibr_result_mcast_members(arr, n.value, byref(n), p, mlid)
        if rc < 0:
            raise error_for(rc, f"MLID 0x{mlid:04X}")
        return [_member(arr[i]) for i in range(n.value)]

    def mcast_port_load(self, sw: int) -> Tuple[int, ...]:
        """Multicast trees leaving switch *sw* by each port 0..ports."""
        buf = (c_uint32 * 256)()
        n = c_size_t()
        rc = _lib.ibr_result_mcast_port_load(buf, 256, byref(n), self._p(), _uint(sw, 32, "sw"))
        if rc < 0:
            raise error_for(rc, f"switch {sw}")
        return tuple(buf[: n.value])

    def trace_mcast(self, mlid: int, node: int, port: int) -> Tuple[List[McastHop], bool]:
        """Flood a packet to *mlid* from member (*node*, *port*) through the
        MFTs: every copy leaving a switch, and whether every other member
        got exactly one copy with no duplicate or dead end."""
        p = self._p()
        n = c_size_t()
        args = (_uint(mlid, 16, "mlid"), _uint(node, 32, "node"), _uint(port, 32, "port"))
        rc = _lib.ibr_result_trace_mcast(None, 0, byref(n), p, *args)
        if rc == _code("ERANGE"):
            arr = (_capi.ibr_mcast_hop * n.value)()
            rc = _lib.ibr_result_trace_mcast(arr, n.value, byref(n), p, *args)
        else:
            arr = (_capi.ibr_mcast_hop * 1)()
        if rc < 0 and rc != _code("EROUTES"):
            raise error_for(rc, f"MLID 0x{mlid:04X} from node {node} port {port}")
        hops = [McastHop(h.sw, h.in_port, h.out_port, None if h.to_node == NONE else h.to_node,
                         h.to_port, h.depth, bool(h.duplicate))
                for h in arr[: n.value]]
        return hops, rc == 0

    @property
    def artifacts(self) -> Dict[str, bytes]:
        """Engine artefacts by name (e.g. "opensm-updn-roots.dump" of
        updn: the root switches' GUIDs, one per line), copied."""
        p = self._p()
        out = {}
        for i in range(_lib.ibr_result_artifact_count(p)):
            name = c_char_p()
            data = c_void_p()
            size = c_size_t()
            rc = _lib.ibr_result_artifact(byref(name), byref(data), byref(size), p, i)
            if rc < 0:
                raise error_for(rc, f"artifact {i}")
            out[_s(name.value)] = ctypes.string_at(data, size.value) if size.value else b""
        return out

    def artifact(self, name: str) -> bytes:
        """Artefact *name*; NotFoundError when absent."""
        data = c_void_p()
        size = c_size_t()
        rc = _lib.ibr_result_find_artifact(byref(data), byref(size), self._p(), name.encode())
        if rc < 0:
            raise error_for(rc, f"no artifact named {name!r}")
        return ctypes.string_at(data, size.value) if size.value else b""

    def rank_order(self) -> List[Tuple[int, int, str]]:
        """The end ports in the order the engine balances its destinations
        (artefact "rank-order.txt" of ftree and dmodc): a list of
        ``(port GUID, LID, node description)``, rank 0 first.  MPI or NCCL
        ranks placed in this order get shift patterns free of congestion on
        an intact fat tree.  NotFoundError for an engine without one."""
        out = []
        for line in self.artifact("rank-order.txt").decode().splitlines():
            if line and not line.startswith("#"):
                f = line.split("\t", 4)
                out.append((int(f[2], 16), int(f[3], 16), f[4]))
        return out

    def to_networkx(self, include_down: bool = False) -> Any:
        """The topology as a networkx MultiGraph with each switch's
        forwarding table on its node (``lft`` = {LID: port}); see
        :func:`ibroute.nx.routing_to_networkx`. Needs networkx (imported
        only here: Debian's python3-networkx)."""
        from . import nx as _nx
        return _nx.routing_to_networkx(self, include_down)

    # -- verification and writers ------------------------------------------

    def verify(self, threads: int = 0, strict: bool = False) -> VerifyReport:
        """Check the tables against the topology and measure them.  Broken
        tables do not raise: the report's ``ok`` is False and its counters
        and ``first_error`` say what is wrong.  *threads* workers do the
        work (0, the default, is one per CPU; 1 runs on the calling
        thread); the report does not depend on it.  *strict* makes empty
        switch-LID entries toward reachable LIDs errors (tables read from
        a dump carry no hop matrix, so the entries an up/down rule leaves
        empty on purpose are counted in ``missing``)."""
        rep = _new_struct(_capi.ibr_verify_report)
        rep.threads = _uint(threads, 32, "threads")
        rep.strict = 1 if strict else 0
        with self._using() as rp:
            rc = _lib.ibr_result_verify(byref(rep), rp)
        if rc < 0 and rc != _code("EROUTES"):
            raise error_for(rc, _s(rep.first_error) or f"verify: {_s(_lib.ibr_strerror(rc))}")
        return VerifyReport._from_c(rep, rc)

    def write_lfts_dump(self) -> str:
        """OpenSM's opensm-lfts.dump."""
        with self._using() as rp:
            return _write("ibr_result_write_lfts_dump", rp)

    def write_dump_lfts(self) -> str:
        """The infiniband-diags dump_lfts / ibroute format."""
        with self._using() as rp:
            return _write("ibr_result_write_dump_lfts", rp)

    def write_lid_matrix(self) -> str:
        """OpenSM's opensm-lid-matrix.dump (hop rows), readable by the
        ``file`` engine (``file.lid_matrix``)."""
        with self._using() as rp:
            return _write("ibr_result_write_lid_matrix", rp)

    def write_fdbs(self) -> str:
        """OpenSM's opensm.fdbs."""
        with self._using() as rp:
            return _write("ibr_result_write_fdbs", rp)

    def write_switches(self, dump: SwitchDump, first: int = 0,
                       count: Optional[int] = None) -> str:
        """The blocks of switches *first* .. *first* + *count* - 1 (default:
        to the last switch) of a per-switch dump (ibr_result_write_switches()):
        the parts of consecutive ranges joined equal the whole dump."""
        first = _uint(first, 32, "first")
        count = self._nsw - min(first, self._nsw) if count is None else _uint(count, 32, "count")
        with self._using() as rp:
            return _write("ibr_result_write_switches", rp, int(SwitchDump(dump)), first, count)

    def dump_view(self, dump: SwitchDump, first: int = 0,
                  count: Optional[int] = None) -> memoryview:
        """Like :meth:`write_switches`, as a read-only memoryview of bytes
        over the library's buffer: no copy, for dumps of hundreds of MB
        (``bytes(view)`` copies, ``f.write(view)`` does not).  The view
        keeps the result alive."""
        first = _uint(first, 32, "first")
        count = self._nsw - min(first, self._nsw) if count is None else _uint(count, 32, "count")
        with self._using() as rp:
            return _write_view(self, "ibr_result_write_switches", rp, int(SwitchDump(dump)),
                               first, count)

    def write_dump_to(self, f: Any, dump: SwitchDump, slice_bytes: int = 64 << 20) -> int:
        """Write a per-switch dump to the file object *f* in slices of
        about *slice_bytes* (as ``ibr route -o`` does), so memory stays
        bounded; returns the bytes of the dump written.  *f* is a binary
        file (``open(path, "wb")``, ``io.BytesIO``: the library's buffer is
        written without a copy) or a text file (an ``io.TextIOBase``:
        ``open(path, "w")``, ``sys.stdout``, ``io.StringIO``), which gets
        the text as :meth:`write_switches` returns it.  Any other object
        whose ``write()`` refuses bytes raises TypeError saying so."""
        text = isinstance(f, io.TextIOBase)
        if not callable(getattr(f, "write", None)):
            raise TypeError(f"write_dump_to needs a file object with write(), "
                            f"not {type(f).__name__}")
        total, sw, step = 0, 0, 16
        while sw < self._nsw:
            n = min(step, self._nsw - sw)
            view = self.dump_view(dump, sw, n)
            if text:
                f.write(str(view, "utf-8", "surrogateescape"))
            else:
                try:
                    f.write(view)
                except TypeError as e:
                    if total:
                        raise
                    raise TypeError(f"write_dump_to writes bytes: {type(f).__name__}.write() "
                                    f"refused them ({e}); pass a file opened in binary mode "
                                    f"(open(path, 'wb')) or a text file (io.TextIOBase)"
                                    ) from e
            total += len(view)
            if len(view):
                step = max(1, int(slice_bytes * n / len(view)))
            view.release()
            sw += n
        return total

    @property
    def lft_table(self) -> memoryview:
        """Every LFT as one read-only 2-D memoryview of shape
        (switch_count, lft_size), row *sw* being :meth:`lft` (*sw*), over
        the result's own memory (no copy: any buffer-protocol consumer can
        use it in place; an empty 1-D view without switches).  The view
        keeps the result alive."""
        if self._nsw == 0 or self._lft_size == 0:
            return memoryview(b"")
        p = _lib.ibr_result_lft(self._p(), 0)
        if not p:
            raise error_for(_code("ENOTFOUND"), "the result has no LFTs")
        flat = _view(self, p, self._nsw * self._lft_size, False)
        return flat.cast("B", (self._nsw, self._lft_size)).toreadonly()

    def write_path_sl(self, level: int = 0) -> str:
        """The SL of every (source end port, destination LID) pair, as
        ibdmchk -c reads it (N x L lines); with QoS levels, the SLs of QoS
        level *level* (:meth:`path_sl_level`)."""
        if not 0 <= level < self.qos_levels:
            raise ValueError(f"level {level} out of range (0..{self.qos_levels - 1})")
        with self._using() as rp:
            return _write("ibr_result_write_path_sl_level", rp, level)

    def write_sl2vl(self) -> str:
        """Every SL2VL map of cabled switch ports, as ibdmchk -d reads it."""
        with self._using() as rp:
            return _write("ibr_result_write_sl2vl", rp)

    def write_sl2vl_dump(self) -> str:
        """OpenSM's opensm-sl2vl.dump."""
        with self._using() as rp:
            return _write("ibr_result_write_sl2vl_dump", rp)

    def write_mcfdbs(self) -> str:
        """OpenSM's opensm.mcfdbs (empty without multicast groups)."""
        with self._using() as rp:
            return _write("ibr_result_write_mcfdbs", rp)

    # -- analysis ---------------------------------------------------------

    def find_credit_loop(self) -> List["Channel"]:
        """A credit loop of the routing as a list of channels (each waits
        for the next; the last for the first), or [] when it is free of
        credit loops."""
        from ._quality import find_credit_loop

        return find_credit_loop(self)

    def trace(self, src_lid: int, dst_lid: int) -> "Trace":
        """Follow the route from the port owning *src_lid* to *dst_lid*
        hop by hop (a broken route gives ``ok=False``, it does not raise)."""
        from ._quality import trace

        return trace(self, src_lid, dst_lid)

    def analyze(self, patterns: Any = None, n_random: Optional[int] = None,
                seed: Optional[int] = None, base_lid_only: Optional[bool] = None,
                threads: Optional[int] = None, ranks: Any = None, workloads: Any = None,
                grid: Optional[Sequence[int]] = None, moe_group: Optional[int] = None,
                moe_fanout: Optional[int] = None, rails: Optional[int] = None,
                top_links: Optional[int] = None) -> "Analysis":
        """Analyse the routing (analyze.h): path lengths, link loads,
        congestion and effective bisection bandwidth under traffic
        patterns (a :class:`Pattern` mask or names such as
        ["shift", "permutation"]), VL usage.  *ranks* is the rank order
        (port GUIDs, or the text of a rank-order file, read by
        :meth:`Topology.parse_rank_order`); *workloads* (a
        :class:`Workload` mask or names such as ["ring", "rd"]) adds the
        workloads over it (:meth:`Analysis.workloads`), with *grid*
        (A, B[, C]), *moe_group*, *moe_fanout*, *rails* and *top_links*.
        Returns an :class:`Analysis`; None keeps the library's default."""
        from ._quality import Analysis

        return Analysis._run(self, {"patterns": patterns, "n_random": n_random, "seed": seed,
                                    "base_lid_only": base_lid_only, "threads": threads,
                                    "ranks": ranks, "workloads": workloads, "grid": grid,
                                    "moe_group": moe_group, "moe_fanout": moe_fanout,
                                    "rails": rails, "top_links": top_links})

    def write_subnet_lst(self) -> str:
        """OpenSM's opensm-subnet.lst of the result's topology."""
        self._p()
        return _write("ibr_topo_write_subnet_lst", self._topology._ptr)

    def write_db_csv(self) -> str:
        """ibdiagnet's ibdiagnet2.db_csv of the result's topology."""
        self._p()
        return _write("ibr_topo_write_db_csv", self._topology._ptr)

    def __repr__(self) -> str:
        if self._closed:
            return "<ibroute.Result closed>"
        return f"<ibroute.Result engine={self.engine!r} switches={self._nsw} lfts={self._lft_size}>"

    def write_db(self) -> str:
        """The routing with the fabric it was computed on, as a routing
        database (persist.h): :meth:`RoutingDb.parse` reads it back."""
        with self._using() as rp:
            return _write("ibr_result_write_db", rp)


# --------------------------------------------------------------------------
# Routing databases (persist.h)
# --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Change:
    """One difference between a routing database and a topology
    (ibr_change)."""

    kind: _capi.ChangeKind
    invalidates: _capi.Invalidates
    guid: int
    port: int
    remote_guid: int
    remote_port: int
    old_lid: int
    new_lid: int


@dataclasses.dataclass(frozen=True)
class RerouteReport:
    """What :meth:`RoutingDb.route` did (ibr_reroute_report)."""

    mode: _capi.RerouteMode
    reason: str
    changes: int
    invalidates: _capi.Invalidates
    lft_entries_changed: int
    switches_changed: int
    sls_changed: int
    destinations_rerouted: int
    entries_repaired: int
    #: the engine whose tables the result holds: the saved one, or minhop
    #: when ``fallback=True`` let it route
    engine: str = ""
    #: the saved engine could not route and the fallback did (its promises
    #: do not hold)
    fallback: bool = False
    #: "" or a warning about the inputs (most of the fabric changed)
    warning: str = ""
    #: 64-LID LFT blocks that differ from the saved ones (what a subnet
    #: manager sends: one SMP each), over the switches of the topology
    lft_blocks_changed: int = 0
    #: the most changed blocks of one switch
    lft_blocks_max: int = 0
    #: switches by changed blocks: entry k counts those with 2**k to
    #: 2**(k+1) - 1 changed blocks (the last: 1,024 or more)
    lft_blocks_hist: Tuple[int, ...] = ()
    #: SL2VL tables (a switch's per input and output port, an end port's)
    #: whose content differs
    sl2vl_tables_changed: int = 0
    #: blocks of the saved tables that held a route over a lost cable or
    #: switch (0 when none was lost)
    lft_blocks_over_lost: int = 0


class RoutingDb(_Handle):
    """A saved routing and the fabric it was computed on (ibr_routing_db):
    compare it with a topology and reroute only what changed."""

    _destroy = "ibr_routing_db_destroy"

    def __init__(self) -> None:
        raise TypeError("a RoutingDb comes from RoutingDb.parse() or RoutingDb.from_result()")

    @classmethod
    def _wrap(cls, ptr: Any, parent: Optional[_Handle]) -> "RoutingDb":
        db = cls.__new__(cls)
        _Handle.__init__(db, ptr, parent)
        return db

    @classmethod
    def from_result(cls, result: "Result") -> "RoutingDb":
        """The database of a routed result (copied: it does not refer to
        the result afterwards)."""
        out = _capi.RoutingDbP()
        with result._using() as rp:
            rc = _lib.ibr_routing_db_from_result(byref(out), rp)
        if rc < 0:
            raise error_for(rc, f"routing database: {_s(_lib.ibr_strerror(rc))}")
        return cls._wrap(out, result._topology)

    @classmethod
    def parse(cls, text: Text, context: Optional[Context] = None) -> "RoutingDb":
        """Read a database written by :meth:`write` or
        :meth:`Result.write_db`.  A damaged or foreign text raises
        :class:`ParseError` naming the line."""
        data = _b(text)
        out = _capi.RoutingDbP()
        if context is not None and not isinstance(context, Context):
            raise TypeError(f"context must be an ibroute.Context, not {type(context).__name__}")
        with (context._using() if context is not None else contextlib.nullcontext()) as cp:
            rc = _lib.ibr_routing_db_parse(byref(out), cp, data, len(data))
        if rc < 0:
            msg = _s(_lib.ibr_routing_db_last_error(out)) if out else ""
            if out:
                _lib.ibr_routing_db_destroy(out)
            raise error_for(rc, msg)
        return cls._wrap(out, context)

    def write(self) -> str:
        """The database as text (versioned format, with a checksum)."""
        with self._using() as dp:
            return _write("ibr_routing_db_write", dp)

    @property
    def engine(self) -> str:
        """The engine of the saved routing."""
        return _s(_lib.ibr_routing_db_engine(self._p()))

    @property
    def seed(self) -> int:
        return _lib.ibr_routing_db_seed(self._p())

    @property
    def switch_count(self) -> int:
        return _lib.ibr_routing_db_switch_count(self._p())

    @property
    def last_error(self) -> str:
        return _s(_lib.ibr_routing_db_last_error(self._p()))

    def compare(self, topology: "Topology") -> List[Change]:
        """The differences with *topology*, classified as Table 1 of the
        OpenSM scalability memo."""
        needed = c_size_t(0)
        with self._using() as dp, topology._using() as tp:
            rc = _lib.ibr_routing_db_compare(None, 0, byref(needed), dp, tp)
            arr = (_capi.ibr_change * max(needed.value, 1))()
            if rc == _code("ERANGE"):
                rc = _lib.ibr_routing_db_compare(arr, needed.value, byref(needed), dp, tp)
        if rc < 0:
            raise error_for(rc, f"compare: {_s(_lib.ibr_strerror(rc))}")
        return [Change(_capi.ChangeKind(c.kind), _capi.Invalidates(c.invalidates), c.guid,
                       c.port, c.remote_guid, c.remote_port, c.old_lid, c.new_lid)
                for c in arr[:needed.value]]

    def route(self, topology: "Topology", full: bool = False, fallback: bool = False,
              **options: Any) -> Tuple["Result", RerouteReport]:
        """The routing of *topology* reusing the saved one: unchanged,
        cached (end-port changes), incremental (lost cables or switches) or
        a full reroute (*full* forces it); returns the result and the
        report (mode, reason, churn, the engine that routed, a warning when
        most of the fabric changed).  When the saved engine cannot route
        the changed fabric it raises :class:`UnroutableError`, unless
        *fallback* lets minhop route it (``IBR_REROUTE_FALLBACK``: the
        report's ``engine`` and ``fallback`` then say so, and the saved
        engine's promises do not hold).  *options* are those of
        :meth:`Topology.route` for a full reroute; ``qos=QosConfig`` replaces
        the QoS configuration a routing saved with QoS is programmed with
        again (other QoS levels than the saved ones take a full reroute)."""
        rep = _new_struct(_capi.ibr_reroute_report)
        out = _capi.ResultP()
        flags = (CONSTANTS_REROUTE_FORCE_FULL if full else 0) | \
            (CONSTANTS_REROUTE_FALLBACK if fallback else 0)
        call = _OptionsCall("route", options)
        with self._using() as dp, topology._using() as tp:
            rc = _lib.ibr_routing_db_route(byref(out), byref(rep), dp, tp,
                                           byref(call.opts) if options else None, flags)
        if rc < 0:
            msg = _s(_lib.ibr_result_last_error(out)) if out else ""
            if out:
                _lib.ibr_result_destroy(out)
            raise error_for(rc, msg or _s(rep.reason))
        report = RerouteReport(_capi.RerouteMode(rep.mode), _s(rep.reason), rep.changes,
                               _capi.Invalidates(rep.invalidates), rep.lft_entries_changed,
                               rep.switches_changed, rep.sls_changed, rep.destinations_rerouted,
                               rep.entries_repaired, _s(rep.engine), bool(rep.fallback),
                               _s(rep.warning), rep.lft_blocks_changed, rep.lft_blocks_max,
                               tuple(rep.lft_blocks_hist), rep.sl2vl_tables_changed,
                               rep.lft_blocks_over_lost)
        return Result._wrap(out, topology), report

    def __repr__(self) -> str:
        if self._closed:
            return "<ibroute.RoutingDb closed>"
        return f"<ibroute.RoutingDb engine={self.engine!r} switches={self.switch_count}>"


CONSTANTS_REROUTE_FORCE_FULL = _capi.CONSTANTS["IBR_REROUTE_FORCE_FULL"]
CONSTANTS_REROUTE_FALLBACK = _capi.CONSTANTS["IBR_REROUTE_FALLBACK"]
