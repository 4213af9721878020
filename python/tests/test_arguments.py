"""The API's arguments: names and lists as a notebook user writes them, each checked
in Python terms before anything runs, and the command line's messages about them
translated back to the argument's name."""

from __future__ import annotations

import inspect
import tempfile
import typing
from pathlib import Path

import pytest

import sqlwitness
from sqlwitness import _api, _flags
from sqlwitness._flags import Command
from conftest import example_questions


def golds(db_id: str) -> list:
    return [q["query"] for q in example_questions() if q["db_id"] == db_id]


def test_engines_and_db_as_one_name(example: Path) -> None:
    report = sqlwitness.evaluate(example, "dev", engines="sqlite", db="pets_1", limit=3)
    assert list(report.summary["engines"]) == ["sqlite"]
    assert {q["db_id"] for q in report.questions} == {"pets_1"}
    report = sqlwitness.evaluate(example, "dev", engines=["sqlite"], db=["pets_1"], limit=2)
    assert report.summary["engines"]["sqlite"]["questions"] == 2


def test_a_prediction_list_of_another_length_is_refused(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for count in (65, 1040):
        with pytest.raises(ValueError) as e:
            sqlwitness.evaluate(example, "dev", ["SELECT 1"] * count)
        message = str(e.value)
        assert message.startswith(f"predictions: {count} predictions, expected 1034"), message
        assert tmp_path.name not in message and "jsonl" not in message, message
    # With a selection, its count is named beside the split's.
    with pytest.raises(ValueError, match=r"predictions: 3 predictions, expected 42 .*db and limit.* or 1034"):
        sqlwitness.evaluate(example, "dev", ["SELECT 1"] * 3, db="pets_1")
    with pytest.raises(ValueError, match=r"predictions\['sqlite'\]: 2 predictions"):
        sqlwitness.evaluate(example, "dev", {"sqlite": ["SELECT 1"] * 2})
    # Refused before anything was written.
    assert list(tmp_path.iterdir()) == []


def test_a_prediction_list_for_the_selection_answers_its_questions(example: Path) -> None:
    preds = golds("pets_1")
    preds[1] = "SELECT 1"
    report = sqlwitness.evaluate(example, "dev", preds, db="pets_1")
    rows = report.outcomes()
    assert [r["id"] for r in rows] == list(range(45, 87))
    assert [r["verdict"] for r in rows[:3]] == ["match", "mismatch", "match"]
    assert rows[1]["pred_sql"] == "SELECT 1"
    # The whole split's list with a limit: the first questions.
    everything = [q["query"] for q in example_questions()]
    report = sqlwitness.evaluate(example, "dev", everything, db="pets_1", limit=4)
    assert [r["verdict"] for r in report.outcomes()] == ["match"] * 4


def test_options_are_keyword_arguments_with_types(example: Path) -> None:
    for function in (sqlwitness.evaluate, sqlwitness.audit, sqlwitness.migrate):
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, function.__name__
    with pytest.raises(TypeError, match="timeot"):
        sqlwitness.evaluate(example, "dev", timeot=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="timeot"):
        sqlwitness.audit(example, "dev", timeot=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="timeout"):
        sqlwitness.migrate(example, "dev", timeout=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="echoes"):
        sqlwitness.run("--version", echoes=False)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="timeout: a number"):
        sqlwitness.evaluate(example, "dev", timeout="5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="extra_args"):
        sqlwitness.evaluate(example, "dev", extra_args="--keep-distinct")
    # Flags the API does not name go in extra_args, as on the command line.
    report = sqlwitness.evaluate(
        example, "dev", limit=2, compare="spider", extra_args=["--keep-distinct", "--max-sql-bytes", "4096"]
    )
    assert report.data["run"]["keep_distinct"] is True


@pytest.mark.parametrize(
    "argument, value",
    [
        ("timeout", -1),
        ("timeout", 0),
        ("timeout", float("nan")),
        ("timeout", 100_000),
        ("jobs", 0),
        ("limit", 0),
        ("float_tolerance", 1.0),
        ("tolerance", -0.5),
    ],
)
def test_a_value_out_of_range_names_the_argument(example: Path, argument: str, value: float) -> None:
    with pytest.raises(ValueError, match=rf"^{argument}={value!r}: expected ") as e:
        sqlwitness.evaluate(example, "dev", **{argument: value})
    assert "--" not in str(e.value)
    assert isinstance(e.value, sqlwitness.BadInputError)


@pytest.mark.parametrize(
    "function, argument, value",
    [
        ("audit", "timeout", -1),
        ("audit", "jobs", 0),
        ("audit", "limit", 0),
        ("audit", "tolerance", 2),
        ("migrate", "jobs", 0),
        ("migrate", "jobs", 2000),
    ],
)
def test_every_function_names_the_argument_out_of_range(
    example: Path, function: str, argument: str, value: float
) -> None:
    with pytest.raises(ValueError, match=rf"^{argument}={value!r}: expected ") as e:
        getattr(sqlwitness, function)(example, "dev", **{argument: value})
    assert "--" not in str(e.value)


@pytest.mark.parametrize("function", ["evaluate", "audit", "migrate"])
def test_an_unknown_engine_names_the_argument(example: Path, function: str) -> None:
    with pytest.raises(ValueError) as e:
        getattr(sqlwitness, function)(example, "dev", engines="nosuch")
    message = str(e.value)
    assert message.startswith("engines: unknown engine `nosuch`"), message
    assert "--engines" not in message, message
    assert isinstance(e.value, sqlwitness.BadInputError) and e.value.exit_code == 2


def test_one_engine_is_one_name() -> None:
    assert _flags.engines("engines", "sqlite") == "sqlite"
    assert _flags.engines("engines", "duckdb") == "duckdb"
    assert _flags.engines("engines", ["sqlite", "duckdb"]) == "sqlite,duckdb"
    assert _flags.engines("engines", ("sqlite",)) == "sqlite"
    assert _flags.engines("engines", " sqlite , postgres ") == "sqlite,postgres"
    with pytest.raises(ValueError, match="^engines: no name given"):
        _flags.engines("engines", "")
    with pytest.raises(TypeError, match=r"^engines\[1\]: a name \(str\), got int"):
        _flags.engines("engines", ["sqlite", 1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="^engines: a name or a sequence of names, got bytes"):
        _flags.engines("engines", b"sqlite")  # type: ignore[arg-type]
    cmd = Command("eval", {"engines": "engines"})
    cmd.add("engines", _flags.engines("engines", "sqlite"))
    assert cmd.argv == ["eval", "--engines", "sqlite"]


def test_an_audit_on_one_engine(example: Path) -> None:
    audit = sqlwitness.audit(example, "dev", engines="sqlite", db="concert_singer", limit=2)
    assert audit.data["run"]["engines"] == ["sqlite"]


def test_every_compare_mode_is_a_compare_name() -> None:
    names = ("strict", "spider", "bird", "spider2", "livesqlbench", "defog")
    assert typing.get_args(sqlwitness.CompareName) == names
    assert "CompareName" in sqlwitness.__all__
    for name in names:
        assert _flags.choice("compare", name, _api._COMPARE) == name


def test_duckdb_is_an_engine_name() -> None:
    assert typing.get_args(sqlwitness.EngineName) == ("sqlite", "postgres", "mysql", "mariadb", "duckdb")
    assert "EngineName" in sqlwitness.__all__
    # Its URL names the folder of its copies.
    for url in ("duckdb:/var/copies", "duckdb:///var/copies", "duckdb:copies"):
        assert _flags.url_problem("duckdb", url) is None, url
    problems = {
        "duckdb:": "names no folder (expected duckdb:/path/to/folder)",
        "duckdb://": "names no folder (expected duckdb:/path/to/folder)",
        "/var/copies": "is not a duckdb URL (expected duckdb:/path/to/folder)",
        "postgres://me@host/db": "has the scheme postgres:, not duckdb: (expected duckdb:/path/to/folder)",
    }
    for url, problem in problems.items():
        assert _flags.url_problem("duckdb", url) == problem, url


def test_a_duckdb_folder_url_is_checked_before_anything_runs(example: Path) -> None:
    with pytest.raises(ValueError, match=r"^servers\['duckdb'\]: 'mysql://me:\*\*\*@h/db' has the scheme mysql:"):
        sqlwitness.evaluate(example, "dev", engines=["sqlite", "duckdb"], servers={"duckdb": "mysql://me:pw@h/db"})
    with pytest.raises(ValueError, match=r"^servers\['duckdb'\]: 'duckdb:' names no folder"):
        sqlwitness.migrate(example, "dev", engines="duckdb", servers={"duckdb": "duckdb:"})


def test_choices_are_checked(example: Path) -> None:
    with pytest.raises(ValueError, match=r"ties: 'tied' is not one of 'strict', 'aware'"):
        sqlwitness.evaluate(example, "dev", ties="tied")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"verify: 'all' is not one of 'load', 'full'"):
        sqlwitness.migrate(example, "dev", verify="all")  # type: ignore[arg-type]


def test_messages_name_the_python_arguments(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SQLWITNESS_POSTGRES_URL", "SQLWITNESS_POSTGRES_READER_URL", "SQLWITNESS_CONTAINERS"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(sqlwitness.BadInputError) as e:
        sqlwitness.evaluate(example, "dev", engines=["sqlite", "postgres"], limit=1)
    message = str(e.value)
    assert "servers={'postgres': URL}" in message, message
    assert "--" not in message, message
    with pytest.raises(sqlwitness.BadInputError) as e:
        sqlwitness.evaluate(example, "dev", engines="sqlite,oracle", limit=1)
    assert str(e.value).startswith("engines: unknown engine `oracle`"), str(e.value)
    with pytest.raises(sqlwitness.BadInputError) as e:
        sqlwitness.evaluate(example, "dev", db="no_such_db")
    assert str(e.value).startswith("db: no question of split `dev` uses `no_such_db`"), str(e.value)


def test_the_translation_of_flags() -> None:
    from sqlwitness._flags import Command

    cmd = Command(
        "eval",
        {"server": "servers", "reader": "readers", "timeout": "timeout", "out": "out", "pred": "predictions"},
    )
    cmd.written.append(("/somewhere/predictions-api.jsonl", "predictions"))
    translate = cmd.translate
    assert (
        translate("give a reader login with --reader postgres=URL / SQLWITNESS_POSTGRES_READER_URL")
        == "give a reader login with readers={'postgres': URL} / SQLWITNESS_POSTGRES_READER_URL"
    )
    assert translate("--server ENGINE=URL instead") == "servers={ENGINE: URL} instead"
    assert (
        translate("invalid value '1e30' for '--timeout <TIMEOUT>': too long")
        == "invalid value '1e30' for 'timeout': too long"
    )
    assert translate("(--out DIR keeps every question)") == "(out=DIR keeps every question)"
    assert (
        translate("/somewhere/predictions-api.jsonl: line 3: sql: expected a string")
        == "predictions[2]: sql: expected a string"
    )
    assert (
        translate("--server `postgress=postgres://me:pw@h/db`: unknown engine `postgress`")
        == "servers['postgress']: unknown engine `postgress`"
    )
    # Flags the API does not build are left as they are, and so is clap's usage line.
    assert translate("--keep-distinct and --no-such-flag") == "--keep-distinct and --no-such-flag"
    usage = "Usage: sqlwitness eval --out <OUT> --timeout <TIMEOUT>"
    assert translate(f"error: '--timeout <TIMEOUT>'\n\n{usage}") == f"error: 'timeout'\n\n{usage}"


@pytest.mark.parametrize(
    "url, problem",
    [
        ("notaurl", "is not a URL"),
        ("127.0.0.1:5432", "is not a URL"),
        ("postgres//root@127.0.0.1/test", "is not a URL"),
        ("postgres://root@127.0.0.1:54x/test", "is not a URL"),
        ("postgress://root@127.0.0.1/test", "has the scheme postgress://, not postgres's"),
        ("mysql://root@127.0.0.1:3307/test", "has the scheme mysql://, not postgres's"),
    ],
)
def test_a_malformed_url_is_a_value_error_naming_servers(example: Path, url: str, problem: str) -> None:
    with pytest.raises(ValueError, match=r"^servers\['postgres'\]: ") as e:
        sqlwitness.evaluate(example, "dev", engines=["sqlite", "postgres"], servers={"postgres": url})
    assert problem in str(e.value)
    assert not isinstance(e.value, sqlwitness.EngineError)


def test_a_malformed_url_hides_its_password(example: Path) -> None:
    with pytest.raises(ValueError) as e:
        sqlwitness.audit(
            example, "dev", engines="sqlite,mysql", readers={"mysql": "mysq://me:s3cret@host/db"}
        )
    assert str(e.value).startswith("readers['mysql']: 'mysq://me:***@host/db' has the scheme mysq://")
    assert "s3cret" not in str(e.value)


def test_outcomes_say_why_a_lenient_comparison_credits_a_match(example: Path) -> None:
    preds = golds("pets_1")[:2]
    # Twice the gold's one row: BIRD's set comparison credits it, the strict
    # comparison does not (multiplicity).
    preds[0] = f"{preds[0]} UNION ALL {preds[0]}"
    report = sqlwitness.evaluate(example, "dev", preds, db="pets_1", limit=2, compare="bird")
    rows = report.outcomes()
    assert [r["verdict"] for r in rows] == ["match", "match"]
    assert rows[0]["credit_causes"] == ["multiplicity"]
    assert rows[1]["credit_causes"] == []
