"""`make lint`'s history check (dev/check_history.py) flags narration of the project's development
and leaves descriptions of the product alone."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_history", ROOT / "dev" / "check_history.py")
check_history = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_history)


def test_work_logs_issue_numbers_and_unfinished_work_are_flagged():
    narrated = [
        "Where the time goes now (session 17, issue 15 in progress).",
        "DuckDB ran faster this time than in the previous session.",
        "The forms of issue 16's table, one test each.",
        "Measured today on this machine.",
        "// TODO: spill the window",
    ]
    for line in narrated:
        assert check_history.offences("f.md", line), line


def test_descriptions_of_the_product_pass():
    described = [
        "rangejoin.is_active(spark) says whether the plugin plans this session's joins.",
        "A SparkSession with the plugin; a Spark Connect session works the same way.",
        "Each issue of a broadcast is reused by later micro-batches.",
    ]
    for line in described:
        assert check_history.offences("f.md", line) == [], line


def test_an_offence_names_the_file_line_and_reason():
    (found,) = check_history.offences("docs/x.md", "intro\nsession 12 measured it")
    assert found.startswith("docs/x.md:2: a numbered work session: 'session 12'")
