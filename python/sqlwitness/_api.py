"""The Python API, imported on first use of a name of the package (see ``__init__``)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from . import _flags, _native, _questions
from ._diff import Diff
from ._flags import Command
from ._output import captured
from ._progress import Progress, ProgressArg, progress_for
from ._reports import AuditReport, MigrateResult, Report, owned, temporary_folder
from ._tables import EvaluatorTable
from .errors import (
    BadInputError,
    ContainerError,
    EngineError,
    Interrupted,
    SqlwitnessError,
    error_for,
)

__version__: str = _native.__version__

__all__ = [
    "AuditReport",
    "BadInputError",
    "CompareName",
    "Completed",
    "ContainerError",
    "Diff",
    "EngineError",
    "EngineName",
    "EvaluatorTable",
    "Interrupted",
    "MigrateResult",
    "ProgressArg",
    "Report",
    "SqlwitnessError",
    "audit",
    "bird_eval",
    "diff",
    "evaluate",
    "migrate",
    "run",
    "spider_eval",
]

PathLike = Union[str, "os.PathLike[str]"]
#: An engine by name (``postgresql`` and ``pg`` are accepted for ``postgres``). A
#: list kept in a variable is typed as one: ``engines: List[sqlwitness.EngineName]``.
EngineName = Literal["sqlite", "postgres", "mysql", "mariadb", "duckdb"]
#: One engine, or several: ``"sqlite"``, ``["sqlite", "postgres"]``.
Engines = Union[EngineName, Sequence[EngineName]]
#: One database name or several.
Databases = Union[str, Sequence[str]]
#: Predictions: a file (Spider text, BIRD JSON or JSONL), or one SQL text per
#: question in question order (``None`` or ``""`` abstains).
Predictions = Union[PathLike, Sequence[Optional[str]]]

#: A result comparison: sqlwitness's own (``strict``) or an official scorer's.
CompareName = Literal["strict", "spider", "bird", "spider2", "livesqlbench", "defog"]
_COMPARE = ("strict", "spider", "bird", "spider2", "livesqlbench", "defog")
_TIES = ("strict", "aware")
_COLUMN_ORDER = ("exact", "any")
_VERIFY = ("load", "full")


class Completed(int):
    """The exit code of a command that finished (an ``int``: 0, or 3, 4, 5 with its
    report written), with :attr:`output`, what it printed on standard output."""

    output: str

    def __new__(cls, exit_code: int, output: str = "") -> "Completed":
        self = super().__new__(cls, exit_code)
        self.output = output
        return self

    @property
    def exit_code(self) -> int:
        return int(self)


def run(*args: Union[str, "os.PathLike[str]"], echo: bool = True) -> Completed:
    """Runs one command by its arguments, as ``sqlwitness ARGS...`` would, in this
    process. Returns the exit code of a command that finished (0, or 3, 4, 5 with
    its report written) as a :class:`Completed`, whose ``output`` is what the
    command printed on standard output (``--help`` and ``--version`` included);
    with ``echo`` (the default) that text is also written to ``sys.stdout``, where
    a notebook shows it. Standard error (progress, warnings) is not captured.
    Raises a :class:`SqlwitnessError` for a command that failed."""
    argv = ["sqlwitness", *(os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args)]
    with captured() as printed:
        code, message = _native.run(argv)
    output = "".join(printed)
    if message is not None and code == 0:
        # --help and --version: clap's text, not an error.
        output += message.rstrip("\n") + "\n"
    if echo and output:
        sys.stdout.write(output)
        sys.stdout.flush()
    if message is not None and code != 0:
        raise error_for(code, message)
    return Completed(code, output)


def _execute(cmd: Command, progress: Optional[Progress] = None) -> int:
    """Runs the command an API function built, ``progress`` told how far it is;
    its failure named in Python terms."""
    try:
        code, message = _native.run(["sqlwitness", *cmd.argv], progress)
    finally:
        if progress is not None:
            progress.close()
    if message is not None:
        if code == 0:
            raise BadInputError(
                f"extra_args: the command printed its help or version and ran nothing; "
                f"use sqlwitness.run({cmd.argv[0]!r}, '--help')"
            )
        raise error_for(code, cmd.translate(message))
    return code


#: Flags whose Python argument has another name.
_RENAMED = {"pred": "predictions", "server": "servers", "reader": "readers", "all": "all_databases"}


def _params(flags: str) -> Dict[str, str]:
    """Each flag a function builds (space separated) → the Python argument it
    stands for, as its messages name it."""
    return {f: _RENAMED.get(f, f.replace("-", "_")) for f in flags.split()}


_SHARED = "bench split engines db jobs server reader containers"
_EVAL_PARAMS = _params(
    _SHARED + " pred compare ties out limit timeout gold reference no-migrate column-order"
    " keep-distinct float-tolerance suite legacy baseline tolerance resume no-summary"
)
_AUDIT_PARAMS = _params(
    _SHARED + " out limit timeout gold reference no-migrate fail-on baseline tolerance resume"
    " no-summary"
)
_MIGRATE_PARAMS = _params(_SHARED + " all force verify log-dir")


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: a str, got {type(value).__name__}")
    return value


def _paths(name: str, mapping: Optional[Mapping[str, PathLike]]) -> Optional[Mapping[str, str]]:
    if mapping is None:
        return None
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{name}: a mapping engine → file, got {type(mapping).__name__}")
    return {str(k): _flags.path(f"{name}[{k!r}]", v) for k, v in mapping.items()}


def _common(cmd: Command, bench: Any, split: Any, engines: Any) -> str:
    """``--bench``, ``--split`` and ``--engines``; the benchmark's path."""
    bench_path = _flags.path("bench", bench)
    cmd.add("bench", bench_path)
    cmd.add("split", _text("split", split))
    cmd.add("engines", _flags.engines("engines", engines))
    return bench_path


def _servers(cmd: Command, servers: Any, readers: Any, containers: Any) -> None:
    cmd.pairs("server", _flags.urls("servers", servers))
    cmd.pairs("reader", _flags.urls("readers", readers))
    cmd.add("containers", _flags.flag_on("containers", containers))


#: Predictions to pass: (engine or None, a file as given, or a list and the
#: question each entry answers).
_PredictionPlan = Tuple[Optional[str], Optional[str], Optional[List[Optional[str]]], List[int]]


def _prediction_plans(
    predictions: Any, bench: str, split: str, dbs: Sequence[str], limit: Optional[int]
) -> List[_PredictionPlan]:
    """Each prediction argument checked, lists against the questions (before
    anything is written or run)."""
    if predictions is None:
        return []
    items: List[Tuple[Optional[str], Any]]
    if isinstance(predictions, Mapping):
        items = [(str(k), v) for k, v in predictions.items()]
    else:
        items = [(None, predictions)]
    plans: List[_PredictionPlan] = []
    db_ids: Optional[List[str]] = None
    read = False
    for engine, given in items:
        label = "predictions" if engine is None else f"predictions[{engine!r}]"
        if isinstance(given, (str, os.PathLike)):
            plans.append((engine, os.fspath(given), None, []))
            continue
        if isinstance(given, (bytes, Mapping)) or not isinstance(given, Iterable):
            raise TypeError(
                f"{label}: a file, or a sequence of SQL texts (None abstains), got {type(given).__name__}"
            )
        texts = list(given)
        if not read:
            db_ids, read = _questions.split_db_ids(bench, split), True
        selected = _questions.selection(db_ids, dbs, limit) if db_ids is not None else None
        ids = _questions.prediction_ids(label, len(texts), db_ids, selected, split)
        plans.append((engine, None, texts, ids))
    return plans


def _add_predictions(cmd: Command, plans: Sequence[_PredictionPlan], out: Path) -> None:
    for engine, file, texts, ids in plans:
        if texts is not None:
            label = "predictions" if engine is None else f"predictions[{engine!r}]"
            written = out / f"predictions-{engine or 'api'}.jsonl"
            _questions.write_predictions(texts, ids, written, label)
            cmd.written.append((os.fspath(written), label))
            file = os.fspath(written)
        cmd.add("pred", file if engine is None else f"{engine}={file}")


def evaluate(
    bench: PathLike,
    split: str = "dev",
    predictions: Union[Predictions, Mapping[str, Predictions], None] = None,
    *,
    engines: Engines = "sqlite",
    compare: CompareName = "strict",
    ties: Literal["strict", "aware"] = "strict",
    out: Optional[PathLike] = None,
    db: Optional[Databases] = None,
    limit: Optional[int] = None,
    timeout: Optional[float] = None,
    jobs: Optional[int] = None,
    gold: Optional[Mapping[str, PathLike]] = None,
    reference: Optional[str] = None,
    servers: Optional[Mapping[str, str]] = None,
    readers: Optional[Mapping[str, str]] = None,
    containers: bool = False,
    no_migrate: bool = False,
    column_order: Literal["exact", "any"] = "exact",
    keep_distinct: bool = False,
    float_tolerance: Optional[float] = None,
    suite: Optional[PathLike] = None,
    legacy: bool = False,
    baseline: Optional[PathLike] = None,
    tolerance: Optional[float] = None,
    resume: bool = False,
    progress: ProgressArg = None,
    quiet: bool = True,
    extra_args: Sequence[str] = (),
) -> Report:
    """``sqlwitness eval``: runs gold and predicted SQL on every engine of ``engines``,
    compares and returns the :class:`Report`.

    ``predictions``: a file, a list of SQL texts in question order (``None``
    abstains) — one per question of the split, or one per question ``db`` and
    ``limit`` select; another length is a ``ValueError`` — or a mapping engine →
    either (each engine its own predictions); ``None`` is the gold self-check.
    ``engines``: a name or a list of names. ``compare``: ``strict``, ``spider``,
    ``bird``, ``spider2``, ``livesqlbench`` or ``defog``; ``ties``: ``strict`` or ``aware``. ``out``: the report folder
    (default: a temporary folder removed with the :class:`Report`). ``db``: only
    questions on these databases; ``limit``: only the first N of them.
    ``timeout``: seconds a query (default 30); ``jobs``: worker threads (default:
    the CPUs). ``gold``: engine → an engine's own gold file; ``reference``: the
    engine whose gold judges the others (or ``"none"``). ``servers``: engine →
    administrative URL (else ``SQLWITNESS_<ENGINE>_URL``; for ``duckdb`` the folder
    of its copies, ``duckdb:/path/to/folder``); ``readers``: engine →
    the login queries run as; ``containers``: start the server engines in Docker.
    ``progress``: ``True`` draws a tqdm bar of the questions (needs tqdm), a
    callable is called with ``(done, total)`` a few times a second as questions
    are done (raising in it stops the run as Ctrl-C does, and the exception is
    raised from here). ``quiet`` (the default): no progress bar and no summary on
    standard error, so that a notebook cell shows only what the call returns;
    ``quiet=False`` shows both. The others are ``eval``'s flags of the same name
    (docs/evaluation.md); ``extra_args``: more flags, as on the command line
    (``["--ves-runs", "3"]``).
    """
    cmd = Command("eval", _EVAL_PARAMS)
    bench_path = _common(cmd, bench, split, engines)
    dbs = _flags.names("db", db)
    first = _flags.count("limit", limit)
    cmd.add("compare", _flags.choice("compare", compare, _COMPARE))
    cmd.add("ties", _flags.choice("ties", ties, _TIES))
    cmd.add("column-order", _flags.choice("column_order", column_order, _COLUMN_ORDER))
    cmd.add("db", ",".join(dbs) or None)
    cmd.add("limit", first)
    cmd.add("timeout", _flags.number("timeout", timeout))
    cmd.add("jobs", _flags.count("jobs", jobs))
    cmd.add("float-tolerance", _flags.number("float_tolerance", float_tolerance))
    cmd.add("tolerance", _flags.number("tolerance", tolerance))
    cmd.pairs("gold", _paths("gold", gold))
    cmd.add("reference", None if reference is None else _text("reference", reference))
    _servers(cmd, servers, readers, containers)
    cmd.add("no-migrate", _flags.flag_on("no_migrate", no_migrate))
    cmd.add("keep-distinct", _flags.flag_on("keep_distinct", keep_distinct))
    cmd.add("suite", _flags.optional_path("suite", suite))
    cmd.add("legacy", _flags.flag_on("legacy", legacy))
    cmd.add("baseline", _flags.optional_path("baseline", baseline))
    cmd.add("resume", _flags.flag_on("resume", resume))
    cmd.add("quiet", _flags.flag_on("quiet", quiet))
    # Quiet: no summary on standard error either (a notebook cell shows what
    # the call returns); the report's files are written as always.
    cmd.add("no-summary", _flags.flag_on("quiet", quiet))
    cmd.extra(extra_args)
    plans = _prediction_plans(predictions, bench_path, split, dbs, first)
    shown = progress_for("evaluate", "eval", progress)
    temporary = temporary_folder("eval") if out is None else None
    out_dir = temporary or Path(_flags.path("out", out))
    try:
        cmd.add("out", os.fspath(out_dir))
        _add_predictions(cmd, plans, out_dir)
        code = _execute(cmd, shown)
        return owned(Report(out_dir, code), temporary)
    except BaseException:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise


def audit(
    bench: PathLike,
    split: str = "dev",
    *,
    engines: Engines = "sqlite",
    out: Optional[PathLike] = None,
    db: Optional[Databases] = None,
    limit: Optional[int] = None,
    timeout: Optional[float] = None,
    jobs: Optional[int] = None,
    gold: Optional[Mapping[str, PathLike]] = None,
    reference: Optional[EngineName] = None,
    servers: Optional[Mapping[str, str]] = None,
    readers: Optional[Mapping[str, str]] = None,
    containers: bool = False,
    no_migrate: bool = False,
    fail_on: Optional[Union[str, Sequence[str]]] = None,
    baseline: Optional[PathLike] = None,
    tolerance: Optional[float] = None,
    resume: bool = False,
    progress: ProgressArg = None,
    quiet: bool = True,
    extra_args: Sequence[str] = (),
) -> AuditReport:
    """``sqlwitness audit``: the gold audit (nondeterminism proven on data, dialect
    failures, rewrites); returns the :class:`AuditReport`. ``fail_on``: rules and
    their thresholds (``["limit_ties=0"]``: exit code 5 beyond them); ``baseline``:
    an earlier audit.json (exit code 4 on new findings beyond ``tolerance``);
    ``progress``: as :func:`evaluate`'s, the questions audited. The other
    arguments are :func:`evaluate`'s; ``extra_args``: more ``audit`` flags
    (``["--shuffles", "5"]``)."""
    cmd = Command("audit", _AUDIT_PARAMS)
    _common(cmd, bench, split, engines)
    cmd.add("db", ",".join(_flags.names("db", db)) or None)
    cmd.add("limit", _flags.count("limit", limit))
    cmd.add("timeout", _flags.number("timeout", timeout))
    cmd.add("jobs", _flags.count("jobs", jobs))
    cmd.add("tolerance", _flags.number("tolerance", tolerance))
    cmd.pairs("gold", _paths("gold", gold))
    cmd.add("reference", None if reference is None else _text("reference", reference))
    _servers(cmd, servers, readers, containers)
    cmd.add("no-migrate", _flags.flag_on("no_migrate", no_migrate))
    cmd.add("fail-on", ",".join(_flags.names("fail_on", fail_on)) or None)
    cmd.add("baseline", _flags.optional_path("baseline", baseline))
    cmd.add("resume", _flags.flag_on("resume", resume))
    cmd.add("quiet", _flags.flag_on("quiet", quiet))
    cmd.add("no-summary", _flags.flag_on("quiet", quiet))
    cmd.extra(extra_args)
    shown = progress_for("audit", "audit", progress)
    temporary = temporary_folder("audit") if out is None else None
    out_dir = temporary or Path(_flags.path("out", out))
    try:
        cmd.add("out", os.fspath(out_dir))
        code = _execute(cmd, shown)
        return owned(AuditReport(out_dir, code), temporary)
    except BaseException:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise


def migrate(
    bench: PathLike,
    split: str = "dev",
    *,
    engines: Engines = ("postgres", "mysql"),
    db: Optional[Databases] = None,
    all_databases: bool = False,
    force: bool = False,
    verify: Optional[Literal["load", "full"]] = None,
    jobs: Optional[int] = None,
    servers: Optional[Mapping[str, str]] = None,
    readers: Optional[Mapping[str, str]] = None,
    log_dir: Optional[PathLike] = None,
    containers: bool = False,
    quiet: bool = True,
    extra_args: Sequence[str] = (),
) -> MigrateResult:
    """``sqlwitness migrate``: copies the benchmark's SQLite databases to the server
    engines and verifies them (already verified copies are skipped). ``db``: these
    databases (default: those the split's questions use); ``all_databases``: every
    database of the benchmark (``--all``); ``force``: reload verified copies too;
    ``verify``: ``load`` (default) or ``full``. ``log_dir``: the per-database logs
    (default: a temporary folder removed with the :class:`MigrateResult`)."""
    cmd = Command("migrate", _MIGRATE_PARAMS)
    _common(cmd, bench, split, engines)
    cmd.add("db", ",".join(_flags.names("db", db)) or None)
    cmd.add("all", _flags.flag_on("all_databases", all_databases))
    cmd.add("force", _flags.flag_on("force", force))
    cmd.add("verify", None if verify is None else _flags.choice("verify", verify, _VERIFY))
    cmd.add("jobs", _flags.count("jobs", jobs))
    _servers(cmd, servers, readers, containers)
    cmd.add("quiet", _flags.flag_on("quiet", quiet))
    cmd.extra(extra_args)
    temporary = temporary_folder("migrate") if log_dir is None else None
    logs = temporary or Path(_flags.path("log_dir", log_dir))
    try:
        cmd.add("log-dir", os.fspath(logs))
        code = _execute(cmd)
        return owned(MigrateResult(code, logs), temporary)
    except BaseException:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise


def _report_file(name: str, value: Any) -> str:
    """A report.json: a :class:`Report`'s, a file, or a folder holding one."""
    if isinstance(value, Report):
        return os.fspath(value.out / "report.json")
    given = _flags.path(name, value)
    return os.path.join(given, "report.json") if os.path.isdir(given) else given


def diff(old: Union[Report, PathLike], new: Union[Report, PathLike], *, tolerance: float = 0.0) -> Diff:
    """``sqlwitness diff``: ``new`` against the baseline ``old`` (each a
    :class:`Report`, a report.json or the folder holding it) and returns the
    :class:`Diff`: per engine EX before and after, the questions that became
    wrong (``regressions``) or right (``improvements``), every changed verdict,
    and the gate: ``exit_code`` 4 when ``new`` regresses — an engine's tie-aware
    EX falls by more than ``tolerance`` (a fraction, 0 to 1), more than
    ``tolerance`` × the questions newly fail on an engine, or an engine is missing
    (docs/report-format.md)."""
    cmd = Command("diff", {"tolerance": "tolerance"})
    cmd.argv += [_report_file("old", old), _report_file("new", new)]
    cmd.add("tolerance", _flags.number("tolerance", tolerance))
    cmd.add("json", True)
    code, printed = _execute_printing(cmd)
    return Diff(json.loads(printed), code)


def _execute_printing(cmd: Command, progress: Optional[Progress] = None) -> Tuple[int, str]:
    """:func:`_execute`, and what the command printed on standard output."""
    with captured() as printed:
        code = _execute(cmd, progress)
    return code, "".join(printed)


def _dropin_params(flags: str) -> Dict[str, str]:
    """A drop-in's flags → its Python arguments: the official flags' own names
    (``pred``, ``predicted_sql_path``), sqlwitness's as :func:`evaluate` names them."""
    extras = {"server": "servers", "reader": "readers"}
    return {f: extras.get(f, f.replace("-", "_")) for f in flags.split()}


_DROPIN_SHARED = "engines compare out timeout jobs server reader containers allow-outside-links quiet"
_SPIDER_EVAL_PARAMS = _dropin_params("gold pred db table etype plug_value keep_distinct " + _DROPIN_SHARED)
_BIRD_EVAL_PARAMS = _dropin_params(
    "predicted_sql_path ground_truth_path db_root_path diff_json_path sql_dialect data_mode"
    " mode_predict ves f1 num_cpus meta_time_out output_log_path " + _DROPIN_SHARED
)
_ETYPES = ("exec", "match", "all")
_SQL_DIALECTS = ("SQLite", "MySQL", "PostgreSQL")
_MODE_PREDICT = ("gpt", "gt")


def _dropin(
    cmd: Command,
    name: str,
    engines: Any,
    default_engine: str,
    compare: Any,
    out: Any,
    timeout: Any,
    jobs: Any,
    servers: Any,
    readers: Any,
    containers: Any,
    allow_outside_links: Any,
    progress: Any,
    quiet: Any,
    extra_args: Any,
) -> EvaluatorTable:
    """The options a drop-in shares with ``eval``, then the run: its table, and
    the report behind it (in ``out``, else a temporary folder removed with the
    returned object)."""
    chosen = _flags.names("engines", engines) if engines is not None else [default_engine]
    cmd.add("engines", ",".join(chosen))
    cmd.add("compare", None if compare is None else _flags.choice("compare", compare, _COMPARE))
    cmd.add("timeout", _flags.number("timeout", timeout))
    cmd.add("jobs", _flags.count("jobs", jobs))
    _servers(cmd, servers, readers, containers)
    cmd.add("allow-outside-links", _flags.flag_on("allow_outside_links", allow_outside_links))
    cmd.add("quiet", _flags.flag_on("quiet", quiet))
    cmd.extra(extra_args)
    shown = progress_for(name, "eval", progress)
    one = _flags.ENGINE_SPELLINGS.get(chosen[0].lower(), chosen[0]) if len(chosen) == 1 else None
    temporary = temporary_folder(name.replace("_", "-")) if out is None else None
    out_dir = temporary or Path(_flags.path("out", out))
    try:
        cmd.add("out", os.fspath(out_dir))
        code, printed = _execute_printing(cmd, shown)
        # Exact match alone (`--etype match`) runs no query and writes no report.
        report = Report(out_dir, code) if (out_dir / "report.json").is_file() else None
        return owned(EvaluatorTable(cmd.argv[0], printed, code, report, one), temporary)
    except BaseException:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise


def spider_eval(
    *,
    gold: PathLike,
    pred: PathLike,
    db: PathLike,
    table: Optional[PathLike] = None,
    etype: Literal["exec", "match", "all"] = "exec",
    plug_value: bool = False,
    keep_distinct: bool = False,
    engines: Optional[Engines] = None,
    compare: Optional[CompareName] = None,
    out: Optional[PathLike] = None,
    timeout: Optional[float] = None,
    jobs: Optional[int] = None,
    servers: Optional[Mapping[str, str]] = None,
    readers: Optional[Mapping[str, str]] = None,
    containers: bool = False,
    allow_outside_links: bool = False,
    progress: ProgressArg = None,
    quiet: bool = True,
    extra_args: Sequence[str] = (),
) -> EvaluatorTable:
    """``sqlwitness spider-eval``, the Spider test-suite evaluator's command line
    (``evaluation.py --gold --pred --db --table --etype``): returns the
    :class:`EvaluatorTable`, the table it prints (``.table``) and its numbers
    (``.rows()``, ``.to_pandas()``), with the :class:`Report` behind them.

    ``gold``: ``SQL<TAB>db_id`` a line; ``pred``: one SQL a line, in the gold's
    order; ``db``: the folder of ``<db_id>/<db_id>.sqlite``; ``table``:
    tables.json (needed by ``match`` and ``all``); ``etype``: ``exec``, ``match``
    (exact set match, no query run: ``.report`` is ``None``) or ``all``;
    ``plug_value`` and ``keep_distinct``: as the official flags. sqlwitness's options: ``engines`` (default ``sqlite``; one
    table per engine), ``compare`` (default the official evaluator's, ``spider``),
    ``out`` (the report's folder; default a temporary one removed with the
    returned object), ``progress`` (as :func:`evaluate`'s) and the others as
    :func:`evaluate` names them (docs/evaluation.md)."""
    cmd = Command("spider-eval", _SPIDER_EVAL_PARAMS)
    cmd.add("gold", _flags.path("gold", gold))
    cmd.add("pred", _flags.path("pred", pred))
    cmd.add("db", _flags.path("db", db))
    cmd.add("table", _flags.optional_path("table", table))
    cmd.add("etype", _flags.choice("etype", etype, _ETYPES))
    cmd.add("plug_value", _flags.flag_on("plug_value", plug_value))
    cmd.add("keep_distinct", _flags.flag_on("keep_distinct", keep_distinct))
    return _dropin(
        cmd, "spider_eval", engines, "sqlite", compare, out, timeout, jobs, servers, readers,
        containers, allow_outside_links, progress, quiet, extra_args,
    )


def bird_eval(
    *,
    predicted_sql_path: PathLike,
    ground_truth_path: PathLike,
    db_root_path: PathLike,
    diff_json_path: PathLike,
    sql_dialect: Literal["SQLite", "MySQL", "PostgreSQL"] = "SQLite",
    data_mode: Optional[str] = None,
    mode_predict: Optional[Literal["gpt", "gt"]] = None,
    ves: bool = False,
    f1: bool = False,
    num_cpus: Optional[int] = None,
    meta_time_out: Optional[float] = None,
    output_log_path: Optional[PathLike] = None,
    engines: Optional[Engines] = None,
    compare: Optional[CompareName] = None,
    out: Optional[PathLike] = None,
    timeout: Optional[float] = None,
    jobs: Optional[int] = None,
    servers: Optional[Mapping[str, str]] = None,
    readers: Optional[Mapping[str, str]] = None,
    containers: bool = False,
    allow_outside_links: bool = False,
    progress: ProgressArg = None,
    quiet: bool = True,
    extra_args: Sequence[str] = (),
) -> EvaluatorTable:
    """``sqlwitness bird-eval``, BIRD's evaluators' command lines: mini-dev's
    ``evaluation_ex.py`` (``predicted_sql_path`` BIRD JSON, ``ground_truth_path``,
    ``db_root_path``, ``diff_json_path``, ``sql_dialect``, ``num_cpus``,
    ``meta_time_out``, ``output_log_path``) and, with ``data_mode``, BIRD dev's
    ``evaluation.py`` (its three paths text prefixes, given as ``str``;
    ``mode_predict``; ``ves``: ``evaluation_ves.py``'s VES table; without
    ``data_mode``, mini-dev's R-VES table). ``f1``: mini-dev's ``evaluation_f1.py``,
    its Soft F1 table (not with ``data_mode`` or ``ves``). Returns the
    :class:`EvaluatorTable` of the printed table, with the :class:`Report` behind
    it. ``engines`` (default: ``sql_dialect``'s engine), ``compare`` (default
    ``bird``), ``out``, ``progress`` and the others as :func:`spider_eval`'s
    (docs/evaluation.md)."""
    cmd = Command("bird-eval", _BIRD_EVAL_PARAMS)
    cmd.add("predicted_sql_path", _flags.path("predicted_sql_path", predicted_sql_path))
    cmd.add("ground_truth_path", _flags.path("ground_truth_path", ground_truth_path))
    cmd.add("db_root_path", _flags.path("db_root_path", db_root_path))
    cmd.add("diff_json_path", _flags.path("diff_json_path", diff_json_path))
    dialect = _flags.choice("sql_dialect", sql_dialect, _SQL_DIALECTS)
    if data_mode is None:
        cmd.add("sql_dialect", dialect)
    elif dialect != "SQLite":
        raise BadInputError(
            "sql_dialect: not with data_mode (BIRD dev's command line has none; engines= runs other engines)"
        )
    cmd.add("data_mode", None if data_mode is None else _text("data_mode", data_mode))
    cmd.add("mode_predict", None if mode_predict is None else _flags.choice("mode_predict", mode_predict, _MODE_PREDICT))
    cmd.add("ves", _flags.flag_on("ves", ves))
    cmd.add("f1", _flags.flag_on("f1", f1))
    cmd.add("num_cpus", _flags.count("num_cpus", num_cpus))
    cmd.add("meta_time_out", _flags.number("meta_time_out", meta_time_out))
    cmd.add("output_log_path", _flags.optional_path("output_log_path", output_log_path))
    default_engine = {"SQLite": "sqlite", "MySQL": "mysql", "PostgreSQL": "postgres"}[dialect]
    return _dropin(
        cmd, "bird_eval", engines, default_engine, compare, out,
        timeout, jobs, servers, readers, containers, allow_outside_links, progress, quiet, extra_args,
    )
