"""What :func:`sqlwitness.diff` returns: two reports compared, as ``sqlwitness diff
--json`` prints it, with the gate's verdict (the exit code)."""

from __future__ import annotations

import html
from typing import Any, Dict, List

from ._reports import optional_module

#: The columns of a changed verdict, in the order :meth:`Diff.to_pandas` shows them.
_CHANGE_KEYS = (
    "engine",
    "id",
    "db_id",
    "change",
    "old",
    "new",
    "old_reason",
    "new_reason",
    "old_passes",
    "new_passes",
)


def _esc(value: Any) -> str:
    return html.escape(str(value))


class Diff:
    """A report (``new``) against a baseline (``old``): per engine the EX of both
    and what changed, per question and engine each verdict that changed, and the
    gate — ``exit_code`` 4 (not :attr:`ok`) when ``new`` regresses beyond the
    tolerance, the reasons in :attr:`reasons` (docs/report-format.md)."""

    def __init__(self, data: Dict[str, Any], exit_code: int) -> None:
        #: ``sqlwitness diff --json``'s output as plain data.
        self.data = data
        #: 0, or 4 when ``new`` regresses.
        self.exit_code = exit_code

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def reasons(self) -> List[str]:
        """Why ``new`` regresses, a sentence each (an engine's tie-aware EX fell
        beyond the tolerance, too many new failures, an engine missing); empty
        when it does not."""
        return [str(r) for r in self.data.get("regressions", [])]

    @property
    def tolerance(self) -> float:
        return float(self.data.get("tolerance", 0.0))

    @property
    def engines(self) -> Dict[str, Dict[str, Any]]:
        """Engine (``old→new`` for two one-engine runs on different engines) → its
        figures: ``old_ex``, ``new_ex``, ``delta``, ``old_ex_tie_aware``,
        ``new_ex_tie_aware``, ``old_match``, ``new_match``, ``new_failures``,
        ``fixed`` and ``robustness``."""
        engines: Dict[str, Dict[str, Any]] = self.data["engines"]
        return engines

    @property
    def changes(self) -> List[Dict[str, Any]]:
        """Every verdict that changed, one row per question and engine: ``engine``,
        ``id``, ``db_id``, ``change`` (``regression``: correct before and not now,
        ``improvement``: the reverse, ``changed``: another verdict with the same
        correctness, e.g. ``match`` → ``match_tie``), the ``old`` and ``new``
        verdicts, their mismatch reasons, and whether each side is correct
        (tie-aware)."""
        rows: List[Dict[str, Any]] = []
        for c in self.data.get("changed", []):
            before, now = bool(c.get("old_passes")), bool(c.get("new_passes"))
            change = "regression" if before and not now else "improvement" if now and not before else "changed"
            row = {**{k: c.get(k) for k in _CHANGE_KEYS}, "change": change}
            rows.append(row)
        return rows

    @property
    def regressions(self) -> List[Dict[str, Any]]:
        """The rows of :attr:`changes` correct before and not now."""
        return [r for r in self.changes if r["change"] == "regression"]

    @property
    def improvements(self) -> List[Dict[str, Any]]:
        """The rows of :attr:`changes` not correct before and correct now."""
        return [r for r in self.changes if r["change"] == "improvement"]

    def count(self, engine: str) -> Dict[str, int]:
        """On ``engine``: ``regressions`` and ``improvements`` (the questions that
        became wrong or right) and ``changed`` (every changed verdict)."""
        d = self.engines[engine]
        changed = sum(1 for c in self.data.get("changed", []) if c.get("engine") == engine)
        return {"regressions": int(d["new_failures"]), "improvements": int(d["fixed"]), "changed": changed}

    def to_pandas(self) -> Any:
        """:attr:`changes` as a pandas DataFrame (needs pandas)."""
        pd = optional_module("pandas", "Diff.to_pandas")
        return pd.DataFrame(self.changes, columns=list(_CHANGE_KEYS))

    def _engine_line(self, engine: str, d: Dict[str, Any]) -> str:
        return (
            f"{engine}: EX {d['old_ex']:.4f} → {d['new_ex']:.4f} ({d['delta']:+.4f}), "
            f"{d['new_failures']} regressions, {d['fixed']} improvements"
        )

    def __repr__(self) -> str:
        engines = "; ".join(self._engine_line(e, d) for e, d in self.engines.items())
        verdict = "ok" if self.ok else f"regression (exit {self.exit_code})"
        return f"<sqlwitness.Diff {verdict}: {engines or 'no engine in common'}>"

    def _repr_html_(self) -> str:
        """The engines' figures, the gate's reasons and the changed verdicts (the
        first 50), as a notebook shows this object."""
        head = ("engine", "EX old", "EX new", "delta", "regressions", "improvements")
        engines = "".join(
            f"<tr><td>{_esc(e)}</td><td>{d['old_ex']:.4f}</td><td>{d['new_ex']:.4f}</td>"
            f"<td>{d['delta']:+.4f}</td><td>{d['new_failures']}</td><td>{d['fixed']}</td></tr>"
            for e, d in self.engines.items()
        )
        verdict = "no regression" if self.ok else "REGRESSION: " + "; ".join(map(_esc, self.reasons))
        changes = self.changes
        rows = "".join(
            "<tr>" + "".join(f"<td>{_esc(r[k])}</td>" for k in ("engine", "id", "db_id", "change", "old", "new")) + "</tr>"
            for r in changes[:50]
        )
        more = f"<p>… and {len(changes) - 50} more (<code>changes</code>)</p>" if len(changes) > 50 else ""
        return (
            f"<div><b>sqlwitness diff</b>: {verdict}"
            f"<table><thead><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr></thead>"
            f"<tbody>{engines}</tbody></table>"
            + (
                "<table><thead><tr><th>engine</th><th>id</th><th>db_id</th><th>change</th>"
                f"<th>old</th><th>new</th></tr></thead><tbody>{rows}</tbody></table>{more}"
                if changes
                else "<p>no verdict changed</p>"
            )
            + "</div>"
        )
