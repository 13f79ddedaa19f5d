"""The versions are written once, in versions.properties; what the README and the docs say about
them must agree with that file."""

import re
from pathlib import Path

from project_versions import ROOT, builds, versions


def compatibility_rows(page: Path) -> list[list[str]]:
    """The rows of the table whose header starts with `| Spark | Scala |`."""
    lines = page.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| Spark | Scala |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_readme_compatibility_table_is_the_build_matrix():
    rows = compatibility_rows(ROOT / "README.md")
    listed = [(re.search(r"\((\d+\.\d+\.\d+)\)", row[0])[1], row[1]) for row in rows]
    assert listed == builds("SPARK_BUILDS")
    in_wheel = [build for build, row in zip(listed, rows, strict=True) if row[3] == "yes"]
    assert in_wheel == builds("WHEEL_BUILDS")
    default = [build for build, row in zip(listed, rows, strict=True) if "default" in row[0]]
    assert default == [tuple(versions()["DEFAULT_BUILD"].split("_"))]
    for (release, scala), row in zip(listed, rows, strict=True):
        minor = ".".join(release.split(".")[:2])
        assert row[2] == f"`io.github.rangejoin:rangejoin-spark{minor}_{scala}`"


def test_versions_named_in_the_readme_and_docs_are_the_project_version():
    version = versions()["VERSION"]
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        for named in re.findall(
            r"rangejoin-spark[\d.]+_2\.1[23][:-](\d+\.\d+\.\d+)", page.read_text()
        ):
            assert named == version, f"{page.relative_to(ROOT)} names version {named}"
