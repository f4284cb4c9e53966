"""Exceptions raised by the ibroute bindings.

Every failed library call raises a subclass of :class:`Error` chosen by the
library's error code (``IBR_EINVAL`` -> :class:`InvalidArgumentError`, ...).
The exception carries the numeric ``code``, its symbolic ``name`` and the
``message`` the library recorded in the object (``ibr_fabric_last_error``,
``ibr_result_last_error``), which says what failed and where.
"""

from __future__ import annotations

from typing import Dict, Optional, Type

from . import _capi

__all__ = [
    "Error",
    "InvalidArgumentError",
    "OutOfMemoryError",
    "NotFoundError",
    "ExistsError",
    "RangeError",
    "BusyError",
    "ParseError",
    "NoSpaceError",
    "DeclinedError",
    "UnroutableError",
    "NoVLError",
    "VersionError",
    "CanceledError",
    "StateError",
    "UnsupportedError",
    "InternalError",
    "RoutesError",
    "DeadlockError",
    "error_for",
]


class Error(Exception):
    """A failed ibroute call.

    Attributes:
        code: the negative ``IBR_E*`` code the library returned.
        name: its symbolic name, e.g. ``"IBR_EINVAL"``.
        message: the library's message for this failure (what and where),
            or the generic description of the code when the call records
            none.
    """

    #: The code this class stands for (set on every subclass).
    default_code: int = 0

    def __init__(self, message: str = "", code: Optional[int] = None) -> None:
        self.code: int = self.default_code if code is None else code
        self.name: str = _status_name(self.code)
        self.message: str = message or _strerror(self.code)
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code})"


class InvalidArgumentError(Error, ValueError):
    """IBR_EINVAL: an invalid argument (bad option, unknown engine, ...)."""


class OutOfMemoryError(Error):
    """IBR_ENOMEM: the library's allocator failed."""


class NotFoundError(Error, LookupError):
    """IBR_ENOTFOUND: no such node, port, LID, GUID, switch or engine."""


class ExistsError(Error):
    """IBR_EEXIST: duplicate GUID, LID or engine name."""


class RangeError(Error, ValueError):
    """IBR_ERANGE: a number out of its range (port, LID, LMC, fault count)."""


class BusyError(Error):
    """IBR_EBUSY: the port is already cabled."""


class ParseError(Error, ValueError):
    """IBR_EPARSE: malformed input text; the message names the line."""


class NoSpaceError(Error):
    """IBR_ENOSPC: the fabric needs more LIDs than exist."""


class DeclinedError(Error):
    """IBR_EDECLINED: an engine does not apply to this fabric.  A Python
    engine raises it to let the chain fall back."""


class UnroutableError(Error):
    """IBR_EUNROUTABLE: every engine of the chain declined or failed."""


class NoVLError(Error):
    """IBR_ENOVL: not enough virtual lanes."""


class VersionError(Error):
    """IBR_EVERSION: unsupported structure version."""


class CanceledError(Error):
    """IBR_ECANCELED: the progress callback canceled the call."""


class StateError(Error):
    """IBR_ESTATE: the object is in the wrong state (e.g. parsing into a
    fabric that is not empty)."""


class UnsupportedError(Error):
    """IBR_EUNSUPPORTED: an unsupported feature."""


class InternalError(Error):
    """IBR_EINTERNAL: a bug in the library or an engine."""


class RoutesError(Error):
    """IBR_EROUTES: routing tables are invalid."""


class DeadlockError(Error):
    """IBR_EDEADLOCK: the routing has a credit loop."""


_CLASS_BY_NAME: Dict[str, Type[Error]] = {
    "EINVAL": InvalidArgumentError,
    "ENOMEM": OutOfMemoryError,
    "ENOTFOUND": NotFoundError,
    "EEXIST": ExistsError,
    "ERANGE": RangeError,
    "EBUSY": BusyError,
    "EPARSE": ParseError,
    "ENOSPC": NoSpaceError,
    "EDECLINED": DeclinedError,
    "EUNROUTABLE": UnroutableError,
    "ENOVL": NoVLError,
    "EVERSION": VersionError,
    "ECANCELED": CanceledError,
    "ESTATE": StateError,
    "EUNSUPPORTED": UnsupportedError,
    "EINTERNAL": InternalError,
    "EROUTES": RoutesError,
    "EDEADLOCK": DeadlockError,
}

#: code -> exception class
CLASS_BY_CODE: Dict[int, Type[Error]] = {}
for _name, _code in _capi.ERRNO_MAP:
    _cls = _CLASS_BY_NAME[_name]
    _cls.default_code = _code
    CLASS_BY_CODE[_code] = _cls
del _name, _code, _cls

# Filled by the package once the library is loaded; until then (and for
# codes the library does not know) the names come from the table above.
_lib = None


def _status_name(code: int) -> str:
    if _lib is not None:
        return _lib.ibr_status_name(code).decode()
    for name, value in _capi.ERRNO_MAP:
        if value == code:
            return "IBR_" + name
    return "IBR_UNKNOWN"


def _strerror(code: int) -> str:
    if _lib is not None:
        return _lib.ibr_strerror(code).decode()
    return "unknown error"


def error_for(code: int, message: str = "") -> Error:
    """The exception for library code *code* with *message* (the generic
    description of the code when empty)."""
    cls = CLASS_BY_CODE.get(code, Error)
    return cls(message, code)
