"""A pytest plugin for tests/test_skip_reasons.py: writes every collected test's skip reasons (its
`skip` and `skipif` marks, the condition not asked) to the JSON file `ADJUTANT_SKIP_AUDIT` names."""

from __future__ import annotations

import json
import os
from typing import Any


def _reason(mark: Any) -> str:
    reason = mark.kwargs.get("reason")
    if reason is None and mark.name == "skip" and mark.args:
        reason = mark.args[0]
    return str(reason or "")


def pytest_collection_modifyitems(items: list[Any]) -> None:
    target = os.environ.get("ADJUTANT_SKIP_AUDIT")
    if not target:
        return
    found = {item.nodeid: [_reason(mark) for name in ("skip", "skipif") for mark in item.iter_markers(name)]
             for item in items}
    with open(target, "w", encoding="utf-8") as out:
        json.dump({node: reasons for node, reasons in found.items() if reasons}, out, indent=1)
