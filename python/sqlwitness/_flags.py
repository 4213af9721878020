"""The command line a Python call builds: each keyword argument checked and turned
into its flag, and the command line's messages about those flags translated back
into the Python argument names."""

from __future__ import annotations

import math
import numbers
import os
import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import urlsplit

from .errors import BadInputError

PathLike = Union[str, "os.PathLike[str]"]

#: The spellings of each built-in engine (`postgresql` and `pg` are PostgreSQL).
ENGINE_SPELLINGS: Dict[str, str] = {
    "sqlite": "sqlite",
    "postgres": "postgres",
    "postgresql": "postgres",
    "pg": "postgres",
    "mysql": "mysql",
    "mariadb": "mariadb",
    "duckdb": "duckdb",
}

#: The URL schemes of each server engine's administrative and reader URLs.
URL_SCHEMES: Dict[str, Tuple[str, ...]] = {
    "postgres": ("postgres", "postgresql"),
    "mysql": ("mysql", "mariadb"),
    "mariadb": ("mysql", "mariadb"),
}

#: The URL scheme of each engine whose URL names a folder of its own files
#: (``duckdb:/path/to/folder``) rather than a server.
FOLDER_SCHEMES: Dict[str, str] = {"duckdb": "duckdb"}

#: Numeric arguments: (least, most, whether ``most`` is allowed, what the number
#: is), the command line's ranges.
RANGES: Dict[str, Tuple[float, Optional[float], bool, str]] = {
    "timeout": (0.001, 86_400.0, True, "seconds, from 0.001 to 86400 (a day)"),
    "jobs": (1, 1024, True, "worker threads, from 1 to 1024"),
    "limit": (1, None, True, "questions, at least 1"),
    "float_tolerance": (0.0, 1.0, False, "a relative tolerance, at least 0 and below 1"),
    "tolerance": (0.0, 1.0, True, "a fraction, from 0 to 1"),
    # bird_eval's, the official evaluator's names for `timeout` and `jobs`.
    "meta_time_out": (0.001, 86_400.0, True, "seconds, from 0.001 to 86400 (a day)"),
    "num_cpus": (1, 1024, True, "worker threads, from 1 to 1024"),
}


class Command:
    """The arguments of one command, and which Python argument each flag stands
    for (the messages name the argument, not the flag)."""

    def __init__(self, name: str, params: Mapping[str, str]) -> None:
        self.argv: List[str] = [name]
        #: flag (without ``--``) → the Python argument it stands for.
        self.params = dict(params)
        #: (text, what to say instead): files the API wrote, named by argument.
        self.written: List[Tuple[str, str]] = []

    def add(self, flag: str, value: Any) -> None:
        """``--flag value``; ``True`` as ``--flag``; ``None`` and ``False`` left out."""
        if value is None or value is False:
            return
        if value is True:
            self.argv.append(f"--{flag}")
        else:
            self.argv += [f"--{flag}", str(value)]

    def pairs(self, flag: str, mapping: Optional[Mapping[str, Any]]) -> None:
        """``--flag KEY=VALUE`` for each item of ``mapping``."""
        for key, value in (mapping or {}).items():
            self.argv += [f"--{flag}", f"{key}={os.fspath(value)}"]

    def extra(self, args: Sequence[str]) -> None:
        if isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
            raise TypeError(
                "extra_args: a sequence of command-line arguments, e.g. ['--keep-distinct'], "
                f"got {type(args).__name__}"
            )
        self.argv += [str(a) for a in args]

    def translate(self, message: str) -> str:
        """``message`` with the flags this API builds named by their Python
        arguments, and the files it wrote by the argument they came from (clap's
        ``Usage:`` line, which shows the command line as built, is left as it is)."""
        for text, instead in self.written:
            # `FILE: line 3` → `predictions[2]` (a JSONL line is an entry of the list).
            message = re.sub(re.escape(text) + r": line (\d+)", _entry(instead), message)
            message = message.replace(text, instead)
        lines = message.split("\n")
        return "\n".join(line if line.startswith("Usage:") else self._translate_line(line) for line in lines)

    def _translate_line(self, line: str) -> str:
        def param(m: "re.Match[str]") -> Optional[str]:
            return self.params.get(m.group("flag"))

        def quoted_pair(m: "re.Match[str]") -> str:
            name = param(m)
            return m.group(0) if name is None else f"{name}[{m.group('key')!r}]"

        def pair(m: "re.Match[str]") -> str:
            name, key = param(m), m.group("key")
            if name is None:
                return m.group(0)
            key = repr(key) if re.fullmatch(r"[a-z][a-z0-9_]*", key) else key
            return f"{name}={{{key}: {m.group('value')}}}"

        def clap(m: "re.Match[str]") -> str:
            name = param(m)
            return m.group(0) if name is None else f"'{name}'"

        def flag(m: "re.Match[str]") -> str:
            name = param(m)
            if name is None:
                return m.group(0)
            return f"{name}={m.group('value')}" if m.group("value") else name

        # Flags may hold `_`, as the official evaluators' do (--keep_distinct).
        flag_re = r"(?<![\w-])--(?P<flag>[a-z][a-z0-9_-]*)(?![\w-])"
        # --server `postgress=URL`: … → servers['postgress']: … (the value, a URL
        # that may hold a password, is the caller's own).
        line = re.sub(flag_re + r" `(?P<key>[^`=\s]+)=[^`]*`", quoted_pair, line)
        # --server postgres=URL → servers={'postgres': URL}
        line = re.sub(flag_re + r" (?P<key>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>[^\s`'\"),;]+)", pair, line)
        # clap's '--timeout <TIMEOUT>' → 'timeout'
        line = re.sub(r"'--(?P<flag>[a-z][a-z0-9_-]*)(?: <[^>]*>)?'", clap, line)
        # --out DIR → out=DIR; --engines → engines
        return re.sub(flag_re + r"(?: (?P<value>[A-Z][A-Z_]*)(?![\w-]))?", flag, line)


def _entry(name: str) -> Callable[["re.Match[str]"], str]:
    return lambda m: f"{name}[{int(m.group(1)) - 1}]"


def path(name: str, value: Any) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name}: a path (str or os.PathLike), got {type(value).__name__}")
    return os.fspath(value)


def optional_path(name: str, value: Any) -> Optional[str]:
    return None if value is None else path(name, value)


def names(name: str, value: Union[str, Sequence[str], None]) -> List[str]:
    """A name or names: ``"sqlite"``, ``"sqlite,postgres"`` or ``["sqlite", "postgres"]``."""
    if value is None:
        return []
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, Sequence) and not isinstance(value, bytes):
        items = list(value)
    else:
        raise TypeError(f"{name}: a name or a sequence of names, got {type(value).__name__}")
    out: List[str] = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}]: a name (str), got {type(item).__name__}")
        if item.strip():
            out.append(item.strip())
    if not out:
        raise BadInputError(f"{name}: no name given")
    return out


def engines(name: str, value: Union[str, Sequence[str]]) -> str:
    """``engines`` as ``--engines`` takes it (comma separated)."""
    return ",".join(names(name, value))


def choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: one of {', '.join(map(repr, allowed))}, got {type(value).__name__}")
    if value not in allowed:
        raise BadInputError(f"{name}: {value!r} is not one of {', '.join(map(repr, allowed))}")
    return value


def number(name: str, value: Any, integer: bool = False) -> Optional[float]:
    """``value`` checked against the command line's range of ``name`` (``None``:
    the command line's default)."""
    if value is None:
        return None
    wanted = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, wanted):
        what = "an integer" if integer else "a number"
        raise TypeError(f"{name}: {what}, got {type(value).__name__}")
    checked = float(value)
    least, most, most_allowed, what = RANGES[name]
    within = math.isfinite(checked) and checked >= least
    if most is not None:
        within = within and (checked <= most if most_allowed else checked < most)
    if not within:
        raise BadInputError(f"{name}={value!r}: expected {what}")
    return int(checked) if integer else checked


def count(name: str, value: Any) -> Optional[int]:
    """An integer argument checked as :func:`number` checks it."""
    checked = number(name, value, integer=True)
    return None if checked is None else int(checked)


def flag_on(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}: True or False, got {type(value).__name__}")
    return value


def mask(url: str) -> str:
    """``url`` with its password as ``***``."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def urls(name: str, mapping: Optional[Mapping[str, str]]) -> Optional[Mapping[str, str]]:
    """Engine → URL, each URL parsed: a malformed one, or one whose scheme is not
    its engine's, is a ValueError naming ``name`` (not a connection failure)."""
    if mapping is None:
        return None
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{name}: a mapping engine → URL, got {type(mapping).__name__}")
    for engine, url in mapping.items():
        where = f"{name}[{engine!r}]"
        if not isinstance(engine, str):
            raise TypeError(f"{name}: engine names (str) as keys, got {type(engine).__name__}")
        if not isinstance(url, str):
            raise TypeError(f"{where}: a URL (str), got {type(url).__name__}")
        problem = url_problem(engine, url)
        if problem:
            raise BadInputError(f"{where}: {mask(url)!r} {problem}")
    return mapping


def url_problem(engine: str, url: str) -> Optional[str]:
    """Why ``url`` is not a URL of ``engine``'s server, or ``None``."""
    kind = ENGINE_SPELLINGS.get(engine.strip().lower())
    schemes = URL_SCHEMES.get(kind or "")
    if kind == "sqlite":
        return "is given for sqlite, which has no server"
    if kind in FOLDER_SCHEMES:
        return folder_url_problem(FOLDER_SCHEMES[kind], url)
    example = f"{schemes[0]}://USER@HOST:PORT/DATABASE" if schemes else "SCHEME://USER@HOST:PORT/DATABASE"
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url.strip()):
        return f"is not a URL (expected {example})"
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (parsing the port is the check)
    except ValueError as e:
        return f"is not a URL ({e}; expected {example})"
    if schemes and parts.scheme.lower() not in schemes:
        wanted = " or ".join(f"{s}://" for s in schemes)
        return f"has the scheme {parts.scheme}://, not {kind}'s ({wanted})"
    return None


def folder_url_problem(scheme: str, url: str) -> Optional[str]:
    """Why ``url`` does not name a folder as ``scheme:/path/to/folder`` (or
    ``scheme:///path/to/folder``), or ``None``."""
    example = f"{scheme}:/path/to/folder"
    text = url.strip()
    if not text.startswith(f"{scheme}:"):
        other = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*):", text)
        if other and other.group(1).lower() != scheme:
            return f"has the scheme {other.group(1)}:, not {scheme}: (expected {example})"
        return f"is not a {scheme} URL (expected {example})"
    rest = text[len(scheme) + 1 :]
    if not (rest[2:] if rest.startswith("//") else rest):
        return f"names no folder (expected {example})"
    return None
