"""Routing engines written in Python (the engine-author API, sys/engine.h).

Register a function on a :class:`ibroute.Context`; it is then usable in
engine chains of every topology frozen from fabrics of that context::

    def shortest(run: ibroute.engine.Run) -> None:
        t = run.topology
        for sw in range(t.switch_count):
            lft = run.lft(sw)            # writable memoryview, prefilled 255
            ...
        # return normally for success,
        # raise ibroute.DeclinedError("why") to let the chain fall back,
        # raise another ibroute.Error to fail with its code.

    ctx = ibroute.Context()
    ctx.register_engine("shortest", shortest, "my engine")
    fabric = ibroute.Fabric(ctx)

Any other exception counts as an engine failure (IBR_EINTERNAL) for the
chain, and is re-raised by :meth:`Topology.route` once the call returns, so
bugs do not hide behind the fallback.  The :class:`Run` object and
everything it returns are valid only during the call.

The writable tables (:meth:`Run.lft`, :meth:`Run.hops`, :meth:`Run.sl_row`)
are memoryviews over copies the bindings own, not over the library's
memory: what the engine writes reaches the library before every call that
reads the tables (:meth:`Run.ucast`, :meth:`Run.find_credit_loop`, ...) and
when the engine returns, and what the library writes (:meth:`Run.ucast`,
:meth:`Run.compute_hops`, ...) shows in them at once.  When the call
returns, the views handed out are released (using them raises
ValueError); a slice or another object made from one stays readable and
writable but no longer reaches the result, so no Python code can touch the
library's memory after the call.  The same holds for the SL rows when the
SL mode changes (:meth:`Run.set_sl_mode`, or :meth:`Run.set_path_sl` after
per-destination SLs), as the C API's rows do.
"""

from __future__ import annotations

import ctypes
from ctypes import byref, c_uint8
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _capi, _core
from ._core import Context, Topology, _b, _s, _uint
from .errors import DeclinedError, Error, error_for

__all__ = ["Run", "RouteFn"]


class _Mirror:
    """The bindings' copy of one table of the run (an LFT, the hop matrix,
    an SL row) at C address *addr*, of *n* bytes; the memoryviews handed
    out are over :attr:`buf`, never over the library's memory."""

    __slots__ = ("addr", "n", "buf", "views")

    def __init__(self, addr: int, n: int) -> None:
        self.addr = addr
        self.n = n
        self.buf = (c_uint8 * max(n, 1))()
        self.views: List[memoryview] = []
        self.pull()

    def pull(self) -> None:
        """Library -> copy."""
        if self.n:
            ctypes.memmove(self.buf, self.addr, self.n)

    def push(self) -> None:
        """Copy -> library."""
        if self.n:
            ctypes.memmove(self.addr, self.buf, self.n)

    def view(self) -> memoryview:
        mv = memoryview(self.buf).cast("B")[: self.n]
        self.views.append(mv)
        return mv

    def detach(self) -> None:
        """Release the views handed out; the copy no longer reaches the
        library (slices made from them keep the copy alive)."""
        for v in self.views:
            try:
                v.release()
            except (BufferError, ValueError):  # exported further: keeps the copy
                pass
        self.views.clear()


class Run:
    """One call of a Python engine (an ibr_run)."""

    def __init__(self, ptr: Any, context: Context) -> None:
        self._ptr = ptr
        self._context = context
        self._topology: Optional[Topology] = None
        self._lfts: Dict[int, _Mirror] = {}     # by switch index
        self._hops: Optional[_Mirror] = None
        self._sls: Dict[int, _Mirror] = {}      # by C address of the row
        self._sl_mode = _capi.SLMode.NONE       # every engine call starts without SLs

    def _p(self) -> Any:
        if self._ptr is None:
            raise ValueError("the engine call this Run belongs to has returned")
        return self._ptr

    def _mirrors(self) -> List[_Mirror]:
        out = list(self._lfts.values()) + list(self._sls.values())
        if self._hops is not None:
            out.append(self._hops)
        return out

    def _push(self) -> None:
        """Everything the engine wrote into the views, to the library
        (before a call that reads the tables, and at the end)."""
        for m in self._mirrors():
            m.push()

    def _pull_lfts(self) -> None:
        for m in self._lfts.values():
            m.pull()

    def _drop_sls(self) -> None:
        for m in self._sls.values():
            m.detach()
        self._sls.clear()

    def _end(self) -> None:
        if self._ptr is not None:
            self._push()
        for m in self._mirrors():
            m.detach()
        self._lfts.clear()
        self._sls.clear()
        self._hops = None
        if self._topology is not None:
            # unusable from now on; what was made from it (a nested route's
            # Result...) keeps the caller's Topology alive through it
            self._topology.close()
        self._ptr = None

    def _check(self, rc: int, what: str) -> None:
        if rc < 0:
            raise error_for(rc, f"{what}: {_s(_core._lib.ibr_strerror(rc))}")

    @property
    def topology(self) -> Topology:
        """The topology being routed (borrowed for the call: unusable once
        the call returns, but objects made from it, such as the Result of a
        nested route, keep the caller's Topology alive)."""
        if self._topology is None:
            tp = _core._lib.ibr_run_topo(self._p())
            t = Topology._wrap(tp, self._context, owned=False)
            with _core._lock:
                owners = self._context._routing.get(ctypes.cast(tp, ctypes.c_void_p).value)
                if owners:  # the Topology whose route() runs this engine
                    t._parent = owners[-1]
                    t._parent._pin()
            self._topology = t
        return self._topology

    @property
    def options(self) -> Dict[str, Any]:
        """The options of the call, by keyword name (lmc, max_vls, seed,
        root_guids, ...), with defaults for what the caller did not set."""
        return _core._options_from_c(_core._lib.ibr_run_options(self._p()).contents)

    def lft(self, sw: int) -> memoryview:
        """Writable LFT of switch *sw* (max_lid + 1 bytes indexed by LID,
        prefilled with 255).  A view of the bindings' copy (see the module
        documentation): valid only during the call."""
        sw = _uint(sw, 32, "sw")
        m = self._lfts.get(sw)
        if m is None:
            p = _core._lib.ibr_run_lft(self._p(), sw)
            if not p:
                raise error_for(_core._code("ENOTFOUND"), f"switch {sw} not found")
            n = _core._lib.ibr_topo_max_lid(_core._lib.ibr_run_topo(self._ptr)) + 1
            m = self._lfts[sw] = _Mirror(p, n)
        else:
            self._p()
        return m.view()

    @property
    def threads(self) -> int:
        """Worker threads of the call (ibr_options.threads resolved)."""
        return _core._lib.ibr_run_threads(self._p())

    def setting(self, name: str) -> Union[int, str]:
        """The value of this engine's setting *name* (declared at
        registration): the caller's ``params`` value or the default; an int
        for bool and int settings, a str for string settings."""
        p = self._p()
        v = ctypes.c_int64()
        rc = _core._lib.ibr_run_setting_int(byref(v), p, name.encode())
        if rc == 0:
            return v.value
        if rc == _core._code("ESTATE"):
            text = ctypes.c_char_p()
            rc = _core._lib.ibr_run_setting_str(byref(text), None, p, name.encode())
            if rc == 0:
                return _s(text.value)
        raise error_for(rc, f"the engine declares no setting {name!r}")

    def _hops_mirror(self) -> _Mirror:
        if self._hops is None:
            p = _core._lib.ibr_run_hops(self._p())
            if not p:
                raise error_for(_core._code("ENOMEM"), "no memory for the hop matrix")
            n = _core._lib.ibr_topo_switch_count(_core._lib.ibr_run_topo(self._ptr))
            self._hops = _Mirror(p, n * n)
        else:
            self._p()
        return self._hops

    def hops(self) -> memoryview:
        """The writable hop matrix (switch_count^2 bytes, row = from,
        prefilled with 255), kept by the result.  A view of the bindings'
        copy (see the module documentation): valid only during the call."""
        return self._hops_mirror().view()

    def compute_hops(self) -> memoryview:
        """Fill :meth:`hops` with the shortest switch-to-switch distances
        over active links (ibr_topo_switch_hops) and return it."""
        m = self._hops_mirror()
        self._check(_core._lib.ibr_topo_switch_hops(ctypes.cast(m.addr, ctypes.POINTER(c_uint8)),
                                                    _core._lib.ibr_run_topo(self._ptr),
                                                    self.threads), "compute_hops")
        m.pull()
        return m.view()

    def ucast(self, phase: Optional[str] = None,
              flags: Union[_capi.UcastFlags, int] = 0) -> None:
        """Fill every LFT with OpenSM's LFT builder from the run's hop
        matrix (:meth:`hops`): each switch sends a destination through its
        least-loaded minimum-hop port, with the options of the call (LMC,
        scatter_ports, guid_routing_order...).  *flags*
        (:class:`UcastFlags`, ibr_run_ucast_ex): SEARCH_ORDER keeps the
        first port tried the same for every LID of a port."""
        m = self._hops_mirror()
        self._push()
        try:
            self._check(_core._lib.ibr_run_ucast_ex(self._ptr,
                                                    ctypes.cast(m.addr, ctypes.POINTER(c_uint8)),
                                                    _capi.CAND_FN(), None,
                                                    phase.encode() if phase else None,
                                                    int(flags)),
                        "ucast")
        finally:
            self._pull_lfts()

    def set_sl_mode(self, mode: Union[_capi.SLMode, int, str]) -> None:
        """Allocate SL storage: per destination or per (source, destination).
        A change of mode ends the rows :meth:`sl_row` handed out (their
        views are released; per-destination SLs written so far are copied
        into every per-pair row)."""
        mode = _capi.SLMode(_core._enum(_capi.SLMode, mode, "mode"))
        p = self._p()
        for m in self._sls.values():
            m.push()
        self._check(_core._lib.ibr_run_set_sl_mode(p, int(mode)), "set_sl_mode")
        if mode != self._sl_mode:
            self._drop_sls()
            self._sl_mode = mode

    def sl_row(self, src_lid: int) -> memoryview:
        """Writable SL row (max_lid + 1 bytes by destination LID) of the
        source port owning *src_lid* (the only row in per-destination
        mode).  Call :meth:`set_sl_mode` first.  A view of the bindings'
        copy (see the module documentation): valid only during the call
        and until the SL mode changes."""
        p = _core._lib.ibr_run_sl_row(self._p(), _uint(src_lid, 16, "src_lid"))
        if not p:
            raise error_for(_core._code("ENOTFOUND"),
                            f"no SL row for LID {src_lid} (set_sl_mode first?)")
        m = self._sls.get(p)
        if m is None:
            n = _core._lib.ibr_topo_max_lid(_core._lib.ibr_run_topo(self._ptr)) + 1
            m = self._sls[p] = _Mirror(p, n)
        return m.view()

    def find_credit_loop(self) -> List[Tuple[int, int, int]]:
        """The credit loop of the tables written so far, as a list of
        (switch index, output port, VL) channels; [] when there is none."""
        cap = 4096
        arr = (_capi.ibr_channel * cap)()
        n = ctypes.c_size_t()
        p = self._p()
        self._push()
        rc = _core._lib.ibr_run_find_credit_loop(arr, cap, byref(n), p)
        if rc == 0:
            return []
        if rc != _core._code("EDEADLOCK"):
            raise error_for(rc, "credit-loop check failed")
        return [(arr[i].sw, arr[i].port, arr[i].vl) for i in range(min(n.value, cap))]

    def set_hops(self, sw: int, dst_sw: int, hops: int) -> None:
        """Record the hop count from switch *sw* to switch *dst_sw*."""
        sw, dst_sw = _uint(sw, 32, "sw"), _uint(dst_sw, 32, "dst_sw")
        hops = _uint(hops, 32, "hops")
        self._check(_core._lib.ibr_run_set_hops(self._p(), sw, dst_sw, hops), "set_hops")
        if self._hops is not None:  # the view shows it too (the copy stays ahead)
            n = _core._lib.ibr_topo_switch_count(_core._lib.ibr_run_topo(self._ptr))
            self._hops.buf[sw * n + dst_sw] = min(hops, 255)

    def set_dest_sl(self, dst_lid: int, sl: int) -> None:
        """Set the SL of every path toward *dst_lid*."""
        dst_lid, sl = _uint(dst_lid, 16, "dst_lid"), _uint(sl, 32, "sl")
        self._check(_core._lib.ibr_run_set_dest_sl(self._p(), dst_lid, sl), "set_dest_sl")
        if self._sl_mode == _capi.SLMode.NONE:
            self._sl_mode = _capi.SLMode.PER_DEST
        for m in self._sls.values():  # the one per-destination row
            m.buf[dst_lid] = sl

    def set_path_sl(self, src_lid: int, dst_lid: int, sl: int) -> None:
        """Set the SL of the path from the port owning *src_lid* to
        *dst_lid*.  The first call after per-destination SLs switches to
        per-pair storage, which ends the rows :meth:`sl_row` handed out."""
        src_lid, dst_lid = _uint(src_lid, 16, "src_lid"), _uint(dst_lid, 16, "dst_lid")
        sl = _uint(sl, 32, "sl")
        p = self._p()
        if self._sl_mode != _capi.SLMode.PER_PAIR:
            for m in self._sls.values():  # copied into every per-pair row
                m.push()
        self._check(_core._lib.ibr_run_set_path_sl(p, src_lid, dst_lid, sl), "set_path_sl")
        if self._sl_mode != _capi.SLMode.PER_PAIR:
            self._drop_sls()
            self._sl_mode = _capi.SLMode.PER_PAIR
        elif self._sls:
            m = self._sls.get(_core._lib.ibr_run_sl_row(p, src_lid))
            if m is not None:
                m.buf[dst_lid] = sl

    def set_sl2vl(self, sw: int, in_port: int, out_port: int, vl_of_sl: Sequence[int]) -> None:
        """Set the SL2VL map of switch *sw* for (*in_port*, *out_port*)."""
        if len(vl_of_sl) != 16:
            raise ValueError("an SL2VL map has 16 entries")
        arr = (c_uint8 * 16)(*[_uint(v, 8, "vl") for v in vl_of_sl])
        self._check(_core._lib.ibr_run_set_sl2vl(self._p(), _uint(sw, 32, "sw"),
                                                 _uint(in_port, 32, "in_port"),
                                                 _uint(out_port, 32, "out_port"), arr),
                    "set_sl2vl")

    def set_endport_sl2vl(self, node: int, port: int, vl_of_sl: Sequence[int]) -> None:
        """Set the SL2VL map of end port *port* of CA or router *node*."""
        if len(vl_of_sl) != 16:
            raise ValueError("an SL2VL map has 16 entries")
        arr = (c_uint8 * 16)(*[_uint(v, 8, "vl") for v in vl_of_sl])
        self._check(_core._lib.ibr_run_set_endport_sl2vl(self._p(), _uint(node, 32, "node"),
                                                         _uint(port, 32, "port"), arr),
                    "set_endport_sl2vl")

    def set_vls_used(self, vls: int) -> None:
        """Record how many data VLs the routing uses."""
        self._check(_core._lib.ibr_run_set_vls_used(self._p(), _uint(vls, 32, "vls")),
                    "set_vls_used")

    def set_layers(self, layers: int) -> None:
        """Record how many layers the engine's layering needs."""
        self._check(_core._lib.ibr_run_set_layers(self._p(), _uint(layers, 32, "layers")),
                    "set_layers")

    def add_mcast_port(self, mlid: int, sw: int, port: int) -> None:
        """Add a port of switch *sw* to the forwarding set of *mlid*."""
        self._check(_core._lib.ibr_run_add_mcast_port(self._p(), _uint(mlid, 16, "mlid"),
                                                      _uint(sw, 32, "sw"),
                                                      _uint(port, 32, "port")),
                    "add_mcast_port")

    def clear_mcast(self) -> None:
        """Clear every multicast forwarding entry of the run (to build the
        trees again); the groups stay."""
        self._check(_core._lib.ibr_run_clear_mcast(self._p()), "clear_mcast")

    def mcast_groups(self) -> List[Tuple[int, List[Tuple[int, int]]]]:
        """The call's multicast groups as [(mlid, [(node, port), ...])] (the
        members of each MLID, the union over its groups); [] without."""
        g = _core._lib.ibr_run_mcast_groups(self._p())
        if not g:
            return []
        out = []
        for i in range(_core._lib.ibr_mcast_groups_mlid_count(g)):
            mlid = _core._lib.ibr_mcast_groups_mlid(g, i)
            n = ctypes.c_size_t()
            _core._lib.ibr_mcast_groups_members(None, 0, ctypes.byref(n), g, mlid)
            arr = (_capi.ibr_mcast_member * max(n.value, 1))()
            self._check(_core._lib.ibr_mcast_groups_members(arr, n.value, ctypes.byref(n), g,
                                                            mlid), "mcast_groups")
            out.append((mlid, [(arr[k].node, arr[k].port) for k in range(n.value)]))
        return out

    def mcast_root(self, mlid: int) -> int:
        """OpenSM's root switch for *mlid* over the run's hop matrix
        (:meth:`hops`, ibr_run_mcast_root)."""
        m = self._hops_mirror()
        self._push()
        sw = ctypes.c_uint32()
        self._check(_core._lib.ibr_run_mcast_root(ctypes.byref(sw), self._ptr,
                                                  ctypes.cast(m.addr, ctypes.POINTER(c_uint8)),
                                                  _uint(mlid, 16, "mlid")), "mcast_root")
        return sw.value

    def mcast_default(self) -> None:
        """Build OpenSM's default multicast trees over the run's hop matrix
        (ibr_run_mcast_default, minimum-hop candidates) and mark them
        built."""
        m = self._hops_mirror()
        self._push()
        self._check(_core._lib.ibr_run_mcast_default(self._ptr,
                                                     ctypes.cast(m.addr, ctypes.POINTER(c_uint8)),
                                                     _capi.CAND_FN(), None), "mcast_default")

    def set_mcast_built(self) -> None:
        """Say the engine built its own multicast trees (with
        :meth:`add_mcast_port`): no default tree follows."""
        self._check(_core._lib.ibr_run_set_mcast_built(self._p()), "set_mcast_built")

    def add_artifact(self, name: str, data: Union[str, bytes]) -> None:
        """Attach an artefact (copied) to the result."""
        raw = _b(data)
        self._check(_core._lib.ibr_run_add_artifact(self._p(), name.encode(), raw, len(raw)),
                    "add_artifact")

    def log(self, level: Union[_capi.LogLevel, int, str], message: str) -> None:
        """Log through the context's callback."""
        _core._lib.ibr_run_log(self._p(), _core._enum(_capi.LogLevel, level, "level"),
                               message.encode("utf-8", "surrogateescape"))

    def progress(self, phase: str, done: int, total: int) -> None:
        """Report progress; raises CanceledError when the caller cancels
        (let it propagate: the engine then returns IBR_ECANCELED)."""
        rc = _core._lib.ibr_run_progress(self._p(), phase.encode(), _uint(done, 64, "done"),
                                         _uint(total, 64, "total"))
        if rc < 0:
            raise error_for(rc, f"canceled during {phase}")


RouteFn = Callable[[Run], None]


def _register(ctx: Context, name: str, fn: RouteFn, description: str, caps: int,
              settings: Sequence[_core.Setting] = ()) -> None:
    if not callable(fn):
        raise TypeError("the engine's route function must be callable")
    decl = (_capi.ibr_setting * max(len(settings), 1))()
    for i, st in enumerate(settings):
        if not isinstance(st, _core.Setting):
            raise TypeError(f"settings[{i}] must be an ibroute.Setting")
        kind = _capi.SettingType(st.type)
        decl[i].name = _b(st.name)
        decl[i].type = int(kind)
        decl[i].min = st.min
        decl[i].max = st.max
        if kind == _capi.SettingType.STRING:
            decl[i].def_str = _b(str(st.default))
        else:
            setattr(decl[i], "def", int(st.default))
        decl[i].help = _b(st.help)
    lib = _core._lib

    def trampoline(run_ptr: Any, user: Any) -> int:
        run = Run(run_ptr, ctx)
        try:
            fn(run)
            return 0
        except DeclinedError as e:
            return lib.ibr_run_decline(run_ptr, e.message.encode("utf-8", "surrogateescape"))
        except Error as e:
            return lib.ibr_run_fail(run_ptr, e.code if e.code < 0 else -16,
                                    e.message.encode("utf-8", "surrogateescape"))
        except BaseException as e:
            if getattr(ctx._engine_errors, "exc", None) is None:
                ctx._engine_errors.exc = e
            msg = f"Python engine raised {type(e).__name__}: {e}"
            return lib.ibr_run_fail(run_ptr, _core._code("EINTERNAL"),
                                    msg.encode("utf-8", "surrogateescape"))
        finally:
            run._end()

    cb = _capi.ENGINE_ROUTE_FN(trampoline)
    eng = _core._new_struct(_capi.ibr_engine)
    eng.name = name.encode()
    eng.description = description.encode()
    eng.caps = _uint(int(caps), 32, "caps")
    eng.route = cb
    eng.user = None
    eng.settings = ctypes.cast(decl, ctypes.POINTER(_capi.ibr_setting)) if settings else None
    eng.n_settings = len(settings)
    rc = lib.ibr_context_register_engine(ctx._p(), byref(eng))  # copies the declarations
    if rc < 0:
        raise error_for(rc, _s(lib.ibr_context_last_error(ctx._ptr)))
    ctx._engines.append(cb)  # the library keeps the function pointer
