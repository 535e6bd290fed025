"""A check's verdict on one thing: `fail` (someone will be refused, or a guarantee does not hold), `warn` (works, but
weaker than it should be), `unknown` (AWS could not tell us: said how to settle it), `ok`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Verdict = Literal["ok", "warn", "fail", "unknown"]
ORDER: dict[Verdict, int] = {"fail": 0, "unknown": 1, "warn": 2, "ok": 3}


@dataclass(frozen=True)
class Finding:
    check: str
    """What was checked, e.g. "caller role trust"."""
    subject: str
    """The AWS resource it concerns, whole (an ARN or a name)."""
    verdict: Verdict
    detail: str
    affected: str = ""
    """Who meets it: "callers mapped to ... (group data-admins)", "every query in workgroup ..."."""
    fix: str = ""
    """The one change (a command or a policy statement) that clears it."""

    def as_json(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value}
