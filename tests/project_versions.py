"""The project's versions as versions.properties writes them once, for the tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def versions() -> dict[str, str]:
    """VERSION, DEFAULT_BUILD, SPARK_BUILDS, WHEEL_BUILDS and PYSPARK_JARS."""
    pairs = (
        line.split("=", 1)
        for line in (ROOT / "versions.properties").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    return {key.strip(): value.strip() for key, value in pairs}


def builds(key: str) -> list[tuple[str, str]]:
    """The builds a key lists, as (Spark release, Scala binary version)."""
    return [tuple(build.split("_")) for build in versions()[key].split()]
