"""Issue 15: the start-up read of a throwaway position made of the module's own PieceSlots
(`CheckPipeline.warm_reader`) reads real pieces, stays within its bounds and changes no plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge import pipeline as pipeline_module
from bridge.pipeline import CheckPipeline

DEMO = Path(__file__).resolve().parents[2] / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
PACK = DEMO / "pack"
SAVES = sorted((DEMO / "saves").glob("*.vsav"))


def _plan_json(pipeline: CheckPipeline, path: Path) -> str:
    plan = dict(pipeline.plan_file(path).plan)
    plan.get("vassal", {}).pop("file", None)
    return json.dumps(plan, sort_keys=True, default=str)


@pytest.fixture(scope="module")
def demo() -> None:
    if not MODULE.exists():
        pytest.skip(f"demo module missing at {MODULE}")


def test_warm_reader_reads_the_modules_pieces_on_its_boards(demo, monkeypatch) -> None:
    monkeypatch.setattr(pipeline_module, "WARM_READER_PIECES", 300)
    import time

    pipeline = CheckPipeline(MODULE, str(PACK))
    assert pipeline.warm_reader(time.perf_counter() + 30) == 300


def test_warm_reader_stops_at_its_character_bound_and_deadline(demo, monkeypatch) -> None:
    import time

    pipeline = CheckPipeline(MODULE, str(PACK))
    monkeypatch.setattr(pipeline_module, "WARM_READER_CHARS", 2_000)
    few = pipeline.warm_reader(time.perf_counter() + 30)
    assert 0 < few < 100
    monkeypatch.setattr(pipeline_module, "WARM_READER_CHARS", 10**9)
    assert pipeline.warm_reader(time.perf_counter() - 1) == 0  # past its deadline: nothing made


def test_warm_reader_changes_no_plan(demo, monkeypatch) -> None:
    """Every demo save plans the same after the warm-up's read as in a pipeline without it."""
    import time

    monkeypatch.setattr(pipeline_module, "WARM_READER_PIECES", 500)
    warmed = CheckPipeline(MODULE, str(PACK))
    assert warmed.warm_reader(time.perf_counter() + 30) == 500
    plain = CheckPipeline(MODULE, str(PACK), remember=False)
    for save in SAVES:
        assert _plan_json(warmed, save) == _plan_json(plain, save), save.name
