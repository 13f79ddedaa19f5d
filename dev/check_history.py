"""Fails when the product's files narrate how the code got here.

README.md, docs/, the sources, the tests, the benchmarks and the build describe what the software
does now. How it got there (work-log entries, issue numbers, work "in progress", what a machine
did "today") belongs in the git log and CHANGELOG.md. Run from the repository root:
`python dev/check_history.py` prints every offending line and exits 1 if there is one.
"""

import re
import subprocess
import sys

# Tracked paths the check reads; CHANGELOG.md is the one place that records history.
CHECKED = [
    "README.md",
    "CONTRIBUTING.md",
    "docs",
    "scala",
    "python",
    "tests",
    "benchmarks",
    "dev",
    "conf",
    "project",
    "Makefile",
    "build.sbt",
    "mkdocs.yml",
    ".ci",
]
SKIPPED_SUFFIXES = (".csv", ".png", ".jar")
# This file and its test name the patterns it looks for.
SKIPPED_FILES = {"dev/check_history.py", "tests/package/test_check_history.py"}

PATTERNS = [
    (r"\bsessions? \d+", "a numbered work session"),
    (r"\b(previous|earlier|last|next|later) session\b", "a work session"),
    (r"\bsession-\d+", "a numbered work session"),
    (r"\bissues? #?\d+\b", "an issue number"),
    (r"\bin progress\b", "work in progress"),
    (r"\btoday\b", "a day's run"),
    (r"\bwork[- ]?log\b", "a work log"),
    (r"\b(ran|was|is) (faster|slower) (on this machine|this time)\b", "one machine's run"),
    (r"\bTODO\b|\bFIXME\b|\bXXX\b", "unfinished work"),
]
COMPILED = [(re.compile(p, re.IGNORECASE), why) for p, why in PATTERNS]


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *CHECKED],
        check=True,
        capture_output=True,
    ).stdout
    names = [n for n in out.decode().split("\0") if n]
    return [n for n in names if not n.endswith(SKIPPED_SUFFIXES) and n not in SKIPPED_FILES]


def offences(name: str, text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, why in COMPILED:
            match = pattern.search(line)
            if match:
                found.append(f"{name}:{number}: {why}: {match.group(0)!r}: {line.strip()[:120]}")
    return found


def main() -> int:
    found = []
    for name in tracked_files():
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        found.extend(offences(name, text))
    for line in found:
        print(line)
    if found:
        print(
            f"{len(found)} lines narrate development history; describe the product as it is "
            "(history goes in the git log and CHANGELOG.md)."
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
