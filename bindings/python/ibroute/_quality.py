"""Routing quality: credit loops, route traces and the analysis of
analyze.h (path lengths, link load, congestion under traffic patterns,
effective bisection bandwidth, VL usage).  Reached through
:meth:`Result.find_credit_loop`, :meth:`Result.trace` and
:meth:`Result.analyze`."""

from __future__ import annotations

import dataclasses
import json
from ctypes import byref, c_double, c_size_t, c_uint, c_uint64
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _capi, _core
from ._capi import HopStatus, Pattern
from ._core import _code, _Handle, _s, _uint, _write
from .errors import error_for


@dataclasses.dataclass(frozen=True)
class Channel:
    """A channel of a credit loop: the link leaving switch ``sw`` (switch
    index) by ``port``, on virtual lane ``vl``."""

    sw: int
    port: int
    vl: int


@dataclasses.dataclass(frozen=True)
class TraceHop:
    """One switch of a traced route: arrived on ``in_port`` (0 where the
    route starts), leaves by ``out_port`` (255 when there is no route) on
    ``vl``; ``status`` says what the switch does with the packet
    (:class:`HopStatus`: FORWARDED on every hop but the last)."""

    sw: int
    in_port: int
    out_port: int
    vl: int
    status: HopStatus


@dataclasses.dataclass(frozen=True)
class Trace:
    """The route from ``src_lid`` to ``dst_lid``: ``ok`` is False when it
    breaks or loops; the last hop shows where and ``reason`` why."""

    src_lid: int
    dst_lid: int
    sl: int
    hops: List[TraceHop]
    ok: bool

    @property
    def switches(self) -> List[int]:
        return [h.sw for h in self.hops]

    @property
    def reason(self) -> HopStatus:
        """How the route ends: the last hop's status (DELIVERED when
        ``ok``; NO_ROUTE, NOT_OWNER, NO_PORT, UNCABLED, DOWN_LINK,
        DEAD_END or LOOP when not)."""
        return self.hops[-1].status


@dataclasses.dataclass(frozen=True)
class PatternStats:
    """Congestion of one family of traffic patterns (ibr_pattern_stats)."""

    patterns: int
    flows: int
    unrouted: int
    max_congestion: int
    mean_max_congestion: float
    congestion_free: int
    ebb: float
    #: upper bound on the eBB any routing over the same cables could reach
    #: for these patterns (ibr_analysis_ebb_bound); 1.0 when not evaluated
    ebb_bound: float = 1.0
    #: ebb / ebb_bound (1.0 when the bound is 0)
    ebb_vs_bound: float = 1.0


@dataclasses.dataclass(frozen=True)
class AnalysisSummary:
    """The numbers of an analysis (ibr_analysis_summary)."""

    endports: int
    pairs: int
    pairs_routed: int
    avg_hops: float
    max_hops: int
    avg_stretch: float
    max_stretch: float
    links: int
    max_link_load: int
    mean_link_load: float
    load_ratio: float
    vls_used: int
    all_to_all: PatternStats
    shift: PatternStats
    permutation: PatternStats
    bisection: PatternStats

    def __call__(self) -> "AnalysisSummary":
        """The summary itself: :attr:`Analysis.summary` is a property, and
        ``analysis.summary()`` returns the same, so that it reads like the
        other accessors (``link_loads()``, ``hop_histogram()``, ...)."""
        return self


_FAMILY_PATTERN = {"all_to_all": _capi.Pattern.ALL_TO_ALL, "shift": _capi.Pattern.SHIFT,
                   "permutation": _capi.Pattern.PERMUTATION,
                   "bisection": _capi.Pattern.BISECTION}


def _pattern_stats(c: _capi.ibr_pattern_stats, bound: Optional[float]) -> PatternStats:
    values = {f.name: getattr(c, f.name) for f in dataclasses.fields(PatternStats)
              if f.name not in ("ebb_bound", "ebb_vs_bound")}
    if bound is not None:
        values["ebb_bound"] = bound
        values["ebb_vs_bound"] = values["ebb"] / bound if bound > 0.0 else 1.0
    return PatternStats(**values)


def _summary(c: _capi.ibr_analysis_summary, a: "Analysis") -> AnalysisSummary:
    values: Dict[str, Any] = {}
    for f in dataclasses.fields(AnalysisSummary):
        v = getattr(c, f.name)
        if isinstance(v, _capi.ibr_pattern_stats):
            v = _pattern_stats(v, a.ebb_bound(_FAMILY_PATTERN[f.name]) if v.patterns else None)
        values[f.name] = v
    return AnalysisSummary(**values)


_ANALYZE_KEYS = ("patterns", "n_random", "seed", "base_lid_only", "threads", "ranks",
                 "workloads", "grid", "moe_group", "moe_fanout", "rails", "top_links")


def _workloads(value: Union[int, str, Iterable[str]]) -> int:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, int):
        bits = 0
        for name in value:
            key = {"a2a": "all_to_all", "perm": "permutation"}.get(name, name)
            try:
                bits |= _capi.Workload[key.upper().replace("-", "_")]
            except KeyError:
                names = ", ".join(m.name.lower() for m in _capi.Workload)
                raise ValueError(f"unknown workload {name!r} (expected {names})") from None
        value = bits
    return _uint(int(value), 32, "workloads")


def _patterns(value: Union[int, str, Iterable[str]]) -> int:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, int):
        bits = 0
        for name in value:
            try:
                bits |= Pattern[name.upper().replace("-", "_")]
            except KeyError:
                names = ", ".join(m.name.lower() for m in Pattern)
                raise ValueError(f"unknown pattern {name!r} (expected {names})") from None
        value = bits
    return _uint(int(value), 32, "patterns")


class Analysis(_Handle):
    """The analysis of a result (ibr_analysis).  Keeps its Result alive."""

    _destroy = "ibr_analysis_destroy"

    def __init__(self) -> None:
        raise TypeError("an Analysis comes from Result.analyze()")

    @classmethod
    def _run(cls, result: "_core.Result", kwargs: Dict[str, Any]) -> "Analysis":
        opts = None
        if any(v is not None for v in kwargs.values()):
            opts = _core._new_struct(_capi.ibr_analyze_options)
            for key, value in kwargs.items():
                if key not in _ANALYZE_KEYS:
                    raise TypeError(f"analyze() got an unexpected keyword argument {key!r}")
                if value is None:
                    continue
                if key == "ranks":
                    if isinstance(value, (str, bytes)):
                        value = result.topology.parse_rank_order(value)
                    guids = [_uint(g, 64, "ranks") for g in value]
                    keep = (c_uint64 * max(len(guids), 1))(*guids)
                    opts.rank_guids = keep
                    opts.n_ranks = len(guids)
                    continue
                if key == "grid":
                    dims = list(value) + [0] * (3 - len(value))
                    if len(dims) != 3:
                        raise ValueError(f"grid {value!r}: two or three dimensions")
                    opts.grid[:] = [_uint(d, 32, "grid") for d in dims]
                    continue
                if key == "patterns":
                    value = _patterns(value)
                elif key == "workloads":
                    value = _workloads(value)
                elif key == "base_lid_only":
                    value = 1 if value else 0
                else:
                    value = _uint(value, 64 if key == "seed" else 32, key)
                setattr(opts, key, value)
        out = _capi.AnalysisP()
        with result._using() as rp:
            rc = _core._lib.ibr_result_analyze(byref(out), rp,
                                               byref(opts) if opts is not None else None)
            if rc < 0:
                raise error_for(rc, f"analyze: {_s(_core._lib.ibr_strerror(rc))}")
            # attached while the result is pinned (see Topology.route)
            a = cls.__new__(cls)
            _Handle.__init__(a, out, result)
            a._result = result
        return a

    @property
    def result(self) -> "_core.Result":
        return self._result

    @property
    def summary(self) -> AnalysisSummary:
        """The numbers of the analysis (ibr_analysis_summary_get).  Both
        ``analysis.summary`` and ``analysis.summary()`` work (the summary
        is callable and returns itself), like the other accessors, which
        are methods: :meth:`hop_histogram`, :meth:`link_loads`,
        :meth:`vl_usage`."""
        c = _core._new_struct(_capi.ibr_analysis_summary)
        rc = _core._lib.ibr_analysis_summary_get(byref(c), self._p())
        if rc < 0:
            raise error_for(rc, f"analysis summary: {_s(_core._lib.ibr_strerror(rc))}")
        return _summary(c, self)

    def ebb_bound(self, pattern: Union[int, str]) -> float:
        """Upper bound on the eBB any routing over the analysed fabric's
        cables could reach for one pattern family (ibr_analysis_ebb_bound):
        ``Pattern.SHIFT``, ``"shift"``, ...  Also in the summary, as
        ``summary.shift.ebb_bound`` and ``summary.shift.ebb_vs_bound``.
        Raises NotFoundError when the family was not evaluated."""
        out = c_double()
        rc = _core._lib.ibr_analysis_ebb_bound(byref(out), self._p(), _patterns(pattern))
        if rc < 0:
            raise error_for(rc, f"ebb_bound: {_s(_core._lib.ibr_strerror(rc))}")
        return out.value

    def _counts(self, fn: str) -> List[int]:
        needed = c_size_t()
        lib = _core._lib
        rc = getattr(lib, fn)(None, 0, byref(needed), self._p())
        if rc < 0 and rc != _code("ERANGE"):
            raise error_for(rc, f"{fn}: {_s(lib.ibr_strerror(rc))}")
        buf = (c_uint64 * max(needed.value, 1))()
        rc = getattr(lib, fn)(buf, needed.value, byref(needed), self._ptr)
        if rc < 0:
            raise error_for(rc, f"{fn}: {_s(lib.ibr_strerror(rc))}")
        return list(buf[: needed.value])

    def hop_histogram(self) -> List[int]:
        """counts[h] = routed all-to-all flows of h links."""
        return self._counts("ibr_analysis_hop_histogram")

    def link_loads(self) -> List[int]:
        """All-to-all load of every directed switch-to-switch link, in the
        topology's link order (switch index, then ascending port)."""
        return self._counts("ibr_analysis_link_loads")

    def vl_usage(self) -> List[int]:
        """counts[vl] for VL 0..15: routed all-to-all flows using that VL."""
        buf = (c_uint64 * 16)()
        rc = _core._lib.ibr_analysis_vl_usage(buf, self._p())
        if rc < 0:
            raise error_for(rc, f"vl_usage: {_s(_core._lib.ibr_strerror(rc))}")
        return list(buf)

    @property
    def qos_levels(self) -> int:
        """QoS levels of the analysed routing (1 without levels)."""
        return _core._lib.ibr_analysis_qos_levels(self._p())

    def vl_usage_level(self, level: int) -> List[int]:
        """counts[vl] for VL 0..15: routed all-to-all flows of QoS level
        *level* (on its level's SL) using that VL; level 0 is
        :meth:`vl_usage`."""
        if not 0 <= level < self.qos_levels:
            raise ValueError(f"level {level} out of range (0..{self.qos_levels - 1})")
        buf = (c_uint64 * 16)()
        rc = _core._lib.ibr_analysis_vl_usage_level(buf, self._p(), level)
        if rc < 0:
            raise error_for(rc, f"vl_usage_level: {_s(_core._lib.ibr_strerror(rc))}")
        return list(buf)

    def workloads(self) -> List[Dict[str, Any]]:
        """The workloads evaluated over the rank order, in the order of
        :class:`Workload`'s bits: dicts with the keys of the JSON report's
        "workloads" list (name, patterns, flows, ebb, worst_ebb,
        ebb_bound, max_congestion, mean_flow_congestion, steps,
        limiting_links, ...); [] when none was asked for."""
        return list(self.to_dict().get("workloads", []))

    def write_json(self) -> str:
        """The analysis as one JSON object."""
        with self._using() as p:
            return _write("ibr_analysis_write_json", p)

    def to_dict(self) -> Dict[str, Any]:
        """The JSON report, parsed."""
        return json.loads(self.write_json())

    def write_text(self) -> str:
        """The analysis as a human-readable report."""
        with self._using() as p:
            return _write("ibr_analysis_write_text", p)

    def __repr__(self) -> str:
        if self._closed:
            return "<ibroute.Analysis closed>"
        s = self.summary
        return (f"<ibroute.Analysis {s.endports} end ports, avg hops {s.avg_hops:.3f}, "
                f"load ratio {s.load_ratio:.3f}>")


def find_credit_loop(result: "_core.Result") -> List[Channel]:
    lib = _core._lib
    n = c_size_t()
    with result._using() as rp:
        rc = lib.ibr_result_find_credit_loop(None, 0, byref(n), rp)
        if rc == 0:
            return []
        if rc != _code("EDEADLOCK"):
            raise error_for(rc, f"find_credit_loop: {_s(lib.ibr_strerror(rc))}")
        buf = (_capi.ibr_channel * n.value)()
        rc = lib.ibr_result_find_credit_loop(buf, n.value, byref(n), rp)
        if rc not in (0, _code("EDEADLOCK")):
            raise error_for(rc, f"find_credit_loop: {_s(lib.ibr_strerror(rc))}")
    return [Channel(c.sw, c.port, c.vl) for c in buf[: n.value]]


def trace(result: "_core.Result", src_lid: int, dst_lid: int) -> Trace:
    lib = _core._lib
    src = _uint(src_lid, 16, "src_lid")
    dst = _uint(dst_lid, 16, "dst_lid")
    cap = 16
    with result._using() as rp:
        while True:
            hops = (_capi.ibr_trace_hop * cap)()
            n = c_size_t()
            sl = c_uint()
            rc = lib.ibr_result_trace(hops, cap, byref(n), byref(sl), rp, src, dst)
            if rc == _code("ERANGE") and n.value > cap:
                cap = n.value
                continue
            break
    if rc < 0 and rc != _code("EROUTES"):
        raise error_for(rc, f"trace LID {src_lid} -> {dst_lid}: {_s(lib.ibr_strerror(rc))}")
    return Trace(src_lid, dst_lid, sl.value,
                 [TraceHop(h.sw, h.in_port, h.out_port, h.vl, HopStatus(h.status))
                  for h in hops[: n.value]], rc == 0)
