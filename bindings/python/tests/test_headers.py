"""The bindings agree with the public headers.

Parses include/ibroute/**/*.h and checks ibroute._capi against it:
- every function of the table is an IBR_API declaration with the same
  number of parameters and matching C types, and every IBR_API function is
  bound (or listed in _capi.UNBOUND with a reason);
- every enum member and constant the bindings define has the header's
  value, and every member of a mirrored header enum is mirrored;
- IBR_ERRNO_MAP and the error classes match;
- every ctypes structure has the C field names in order, and the C
  compiler's sizeof/alignment/offsetof/field sizes (a small program built
  with cc -I include in a temporary directory).
"""

import ctypes
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest

from _support import INCLUDE

import ibroute
from ibroute import _capi, errors


def read_headers():
    texts = {}
    for root, _dirs, files in os.walk(os.path.join(INCLUDE, "ibroute")):
        for name in sorted(files):
            if name.endswith(".h"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as fh:
                    texts[os.path.relpath(path, INCLUDE)] = fh.read()
    return texts


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


HEADERS = read_headers()
CODE = {name: strip_comments(text) for name, text in HEADERS.items()}
ALL = "\n".join(CODE.values())

# ---- parsing --------------------------------------------------------------


def parse_functions():
    out = {}
    for m in re.finditer(r"IBR_API\s+([^;{}#]*?)\b(ibr_\w+)\s*\(([^;]*?)\)\s*;", ALL, re.S):
        ret, name, params = m.group(1), m.group(2), m.group(3)
        params = " ".join(params.split())
        plist = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
        out[name] = (" ".join(ret.split()), plist)
    return out


def parse_enums():
    """typedef name -> {C member: value}"""
    out = {}
    for m in re.finditer(r"typedef\s+enum\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", ALL, re.S):
        body = re.sub(r"#[^\n]*", "", m.group(2))
        members = {}
        for em in re.finditer(r"\b(IBR_\w+)\s*=\s*([^,}]+)", body):
            members[em.group(1)] = c_eval(em.group(2))
        out[m.group(3)] = members
    return out


def parse_errno_map():
    m = re.search(r"#define\s+IBR_ERRNO_MAP\(XX\)(.*?)\n\s*\n", HEADERS["ibroute/common.h"], re.S)
    return tuple((n, int(v)) for n, v in re.findall(r"XX\((\w+),\s*(-?\d+),", m.group(1)))


def parse_defines():
    out = {}
    for m in re.finditer(r"^\s*#define\s+(IBR_\w+)[ \t]+([^\n]+)$", ALL, re.M):
        try:
            out[m.group(1)] = c_eval(m.group(2))
        except (ValueError, SyntaxError):
            pass  # not a number (strings, initialisers, macros)
    return out


def parse_structs():
    """typedef struct name -> [field names, in order]"""
    out = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", ALL, re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fp:
                fields.append(fp.group(1))
            else:
                fields.append(re.findall(r"[A-Za-z_]\w*", re.sub(r"\[.*?\]", "", decl))[-1])
        out[m.group(3)] = fields
    return out


def c_eval(expr):
    expr = expr.strip()
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    expr = expr.replace("UINT32_MAX", str(0xFFFFFFFF))
    if not re.fullmatch(r"[0-9a-fA-FxX\s()+\-*<>|]+", expr):
        raise ValueError(expr)
    return eval(expr, {"__builtins__": {}})  # digits and operators only


# ---- C types -> ctypes ---------------------------------------------------

SCALARS = {
    "int": ctypes.c_int,
    "unsigned int": ctypes.c_uint,
    "size_t": ctypes.c_size_t,
    "uint8_t": ctypes.c_uint8,
    "uint16_t": ctypes.c_uint16,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
    "int64_t": ctypes.c_int64,
    "double": ctypes.c_double,
}
HANDLES = {
    "ibr_context": _capi.ContextP,
    "ibr_fabric": _capi.FabricP,
    "ibr_topo": _capi.TopoP,
    "ibr_result": _capi.ResultP,
    "ibr_run": _capi.RunP,
    "ibr_analysis": _capi.AnalysisP,
    "ibr_guid_list": _capi.GuidListP,
    "ibr_rank_order": _capi.RankOrderP,
    "ibr_lfts_stream": _capi.LftsStreamP,
    "ibr_routing_db": _capi.RoutingDbP,
    "ibr_mcast_groups": _capi.McastGroupsP,
    "ibr_qos_config": _capi.QosConfigP,
}
CALLBACKS = {
    "ibr_parallel_fn": _capi.PARALLEL_FN,
    "ibr_cand_fn": _capi.CAND_FN,
}
TYPE_WORDS = set(SCALARS) | {"unsigned", "void", "char"}


def split_type(decl, named):
    """(base type, pointer depth) of a parameter or return type."""
    depth = decl.count("*") + decl.count("[")
    words = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[.*?\]", "", decl))
    words = [w for w in words if w not in ("const", "struct", "enum")]
    if named and len(words) > 1 and words[-1] not in TYPE_WORDS:
        words = words[:-1]
    return " ".join(words), depth


def expected_ctype(base, depth, enums, is_return):
    """The ctypes type the table must use, or a tuple of acceptable ones."""
    if depth == 0:
        if base == "void":
            return None
        if base in SCALARS:
            return SCALARS[base]
        if base in CALLBACKS:
            return CALLBACKS[base]
        if base in enums:
            return _capi.c_enum
        raise AssertionError(f"unknown scalar type {base!r}")
    if depth == 1:
        if base == "char":
            return ctypes.c_char_p
        if base == "void":
            return ctypes.c_void_p
        if base in HANDLES:
            return HANDLES[base]
        target = _capi.STRUCTS.get(base) or SCALARS.get(base)
        if target is None:
            raise AssertionError(f"unknown pointed-to type {base!r}")
        # a returned pointer to data may be taken as an address
        return (ctypes.POINTER(target), ctypes.c_void_p) if is_return else ctypes.POINTER(target)
    if depth == 2:
        if base == "char":
            return ctypes.POINTER(ctypes.c_char_p)
        if base == "void":
            return ctypes.POINTER(ctypes.c_void_p)
        if base in HANDLES:
            return ctypes.POINTER(HANDLES[base])
        target = _capi.STRUCTS.get(base) or SCALARS.get(base)
        if target is not None:  # an output pointer to an array
            return ctypes.POINTER(ctypes.POINTER(target))
    raise AssertionError(f"unsupported type {base!r} with {depth} stars")


class TestHeaders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.functions = parse_functions()
        cls.enums = parse_enums()
        cls.defines = parse_defines()
        cls.structs = parse_structs()

    def test_parsers_found_the_api(self):
        # guard against a regex that silently matches nothing
        self.assertGreater(len(self.functions), 80)
        self.assertIn("ibr_route", self.functions)
        self.assertEqual(len(self.functions["ibr_route"][1]), 4)
        self.assertIn("ibr_node_type", self.enums)
        self.assertIn("ibr_options", self.structs)

    def test_every_bound_function_matches_its_declaration(self):
        names = [n for n, _a, _r in _capi.FUNCTIONS]
        self.assertEqual(len(names), len(set(names)), "duplicate entries in FUNCTIONS")
        enums = set(self.enums)
        for name, argtypes, restype in _capi.FUNCTIONS:
            with self.subTest(function=name):
                self.assertIn(name, self.functions, f"{name} is not declared IBR_API")
                ret, params = self.functions[name]
                self.assertEqual(len(argtypes), len(params),
                                 f"{name}: {len(argtypes)} argtypes, header has {params}")
                want = expected_ctype(*split_type(ret, False), enums, True)
                if isinstance(want, tuple):
                    self.assertIn(restype, want, f"{name} returns {ret}")
                else:
                    self.assertIs(restype, want, f"{name} returns {ret}")
                for i, (param, got) in enumerate(zip(params, argtypes)):
                    want = expected_ctype(*split_type(param, True), enums, False)
                    self.assertIs(got, want, f"{name} parameter {i} ({param})")

    def test_every_declared_function_is_bound(self):
        bound = {n for n, _a, _r in _capi.FUNCTIONS} | set(_capi.UNBOUND)
        missing = sorted(set(self.functions) - bound)
        self.assertEqual(missing, [], "IBR_API functions the bindings neither bind nor list "
                                      "in _capi.UNBOUND")
        self.assertEqual(sorted(set(_capi.UNBOUND) - set(self.functions)), [])

    def test_enum_values(self):
        classes = {
            "ibr_node_type": _capi.NodeType,
            "ibr_link_width": _capi.LinkWidth,
            "ibr_link_speed": _capi.LinkSpeed,
            "ibr_link_state": _capi.LinkState,
            "ibr_lid_flags": _capi.LidFlags,
            "ibr_sl_mode": _capi.SLMode,
            "ibr_switch_dump": _capi.SwitchDump,
            "ibr_engine_caps": _capi.EngineCaps,
            "ibr_log_level": _capi.LogLevel,
            "ibr_pattern": _capi.Pattern,
            "ibr_workload": _capi.Workload,
            "ibr_guid_list_kind": _capi.GuidListKind,
            "ibr_setting_type": _capi.SettingType,
            "ibr_hop_status": _capi.HopStatus,
            "ibr_ucast_flags": _capi.UcastFlags,
            "ibr_change_kind": _capi.ChangeKind,
            "ibr_invalidates": _capi.Invalidates,
            "ibr_reroute_mode": _capi.RerouteMode,
            "ibr_mcast_join": _capi.McastJoin,
            "ibr_qos_target": _capi.QosTarget,
            "ibr_mcast_flags": _capi.McastFlags,
            "ibr_mcast_trees": _capi.McastTrees,
        }
        self.assertEqual(set(classes.values()), set(_capi.ENUM_PREFIXES))
        for typedef, cls in classes.items():
            with self.subTest(enum=typedef):
                header = self.enums[typedef]
                mine = {_capi.c_enum_name(cls, n): int(m) for n, m in cls.__members__.items()}
                self.assertEqual(mine, header)
        # every header enum except ibr_error (checked below) is mirrored
        self.assertEqual(set(self.enums) - {"ibr_error"}, set(classes))

    def test_errno_map(self):
        self.assertEqual(parse_errno_map(), _capi.ERRNO_MAP)
        for name, code in _capi.ERRNO_MAP:
            cls = errors.CLASS_BY_CODE[code]
            self.assertTrue(issubclass(cls, ibroute.Error))
            self.assertEqual(cls.default_code, code)
            self.assertEqual(ibroute.status_name(code), "IBR_" + name)
            self.assertEqual(cls("x").name, "IBR_" + name)
        self.assertEqual(self.enums["ibr_error"], {"IBR_OK": 0})  # the rest is the X-macro

    def test_constants(self):
        for name, value in _capi.CONSTANTS.items():
            with self.subTest(constant=name):
                self.assertIn(name, self.defines)
                self.assertEqual(self.defines[name], value)
        self.assertEqual(self.defines["IBR_VERSION_MAJOR"], _capi.BINDINGS_MAJOR)
        self.assertGreaterEqual(self.defines["IBR_VERSION_MINOR"], _capi.BINDINGS_MINOR)
        # the library under test is the one these headers describe
        self.assertEqual(ibroute.version(), self.defines["IBR_VERSION_MAJOR"] * 10000
                         + self.defines["IBR_VERSION_MINOR"] * 100
                         + self.defines["IBR_VERSION_PATCH"])

    def test_versioned_structs(self):
        # Every struct that begins with a version field is versioned: the
        # header defines IBR_<NAME>_VERSION, IBR_<NAME>_INIT and
        # ibr_<name>_init(); the bindings know it (at the header's version)
        # and initialise it through that function (_core._new_struct), so
        # no defaults are copied into Python.
        versioned = {n for n, fields in self.structs.items() if fields[:1] == ["version"]}
        self.assertEqual(versioned, set(_capi.STRUCT_VERSIONS))
        for name, version in _capi.STRUCT_VERSIONS.items():
            with self.subTest(struct=name):
                stem = "IBR_" + name[len("ibr_"):].upper()
                self.assertEqual(self.defines[stem + "_VERSION"], version)
                self.assertRegex(ALL, r"#define\s+" + stem + r"_INIT\b")
                ret, params = self.functions[name + "_init"]
                self.assertEqual((ret, len(params)), ("int", 2))
                c = ibroute._core._new_struct(_capi.STRUCTS[name])
                self.assertEqual(c.version, version)

    def test_struct_field_names(self):
        for cname, cls in _capi.STRUCTS.items():
            with self.subTest(struct=cname):
                self.assertIn(cname, self.structs)
                self.assertEqual([f[0] for f in cls._fields_], self.structs[cname])

    def test_struct_layout_matches_the_compiler(self):
        cc = shlex.split(os.environ.get("CC", "cc"))
        if not shutil.which(cc[0]):
            self.skipTest(f"no C compiler ({cc[0]})")
        lines = ["#include <stddef.h>", "#include <stdio.h>",
                 "#include <ibroute/ibroute.h>", "#include <ibroute/sys/engine.h>",
                 "#include <ibroute/sys/toolkit.h>",
                 "int main(void)", "{"]
        for cname, cls in _capi.STRUCTS.items():
            lines.append(f'    printf("{cname} %zu %zu\\n", sizeof({cname}), _Alignof({cname}));')
            for fname, _t in cls._fields_:
                lines.append(f'    printf("{cname}.{fname} %zu %zu\\n", offsetof({cname}, {fname}),'
                             f' sizeof((({cname} *)0)->{fname}));')
        lines += ["    return 0;", "}"]
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "layout.c")
            exe = os.path.join(tmp, "layout")
            with open(src, "w") as fh:
                fh.write("\n".join(lines) + "\n")
            subprocess.run(cc + ["-std=c11", "-Wall", "-Werror", "-I", INCLUDE, "-o", exe, src],
                           check=True)
            out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
        c = {}
        for line in out.splitlines():
            key, a, b = line.split()
            c[key] = (int(a), int(b))
        self.assertEqual(len(c), sum(1 + len(cls._fields_) for cls in _capi.STRUCTS.values()))
        for cname, cls in _capi.STRUCTS.items():
            with self.subTest(struct=cname):
                self.assertEqual((ctypes.sizeof(cls), ctypes.alignment(cls)), c[cname],
                                 f"sizeof/alignment of {cname}")
                for fname, _t in cls._fields_:
                    desc = getattr(cls, fname)
                    self.assertEqual((desc.offset, desc.size), c[f"{cname}.{fname}"],
                                     f"offset/size of {cname}.{fname}")


if __name__ == "__main__":
    unittest.main()
