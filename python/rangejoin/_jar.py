"""Finds the bundled jar and checks it against the installed PySpark."""

from importlib import resources
from pathlib import Path


class JarNotFoundError(RuntimeError):
    """The rangejoin jar is not inside the installed package."""


class SparkVersionMismatchError(RuntimeError):
    """The installed PySpark differs from the Spark version the jar was built for."""


_REBUILD_HINT = "Run `make build` in the spark-rangejoin checkout to build and bundle it."


def _jar_dir() -> Path:
    return Path(str(resources.files("rangejoin").joinpath("jars")))


def spark_version() -> str:
    """The Spark version the bundled jar was built for."""
    marker = _jar_dir() / "SPARK_VERSION"
    if not marker.is_file():
        raise JarNotFoundError(
            f"No rangejoin jar is bundled ({marker} is missing). {_REBUILD_HINT}"
        )
    return marker.read_text().strip()


def jar_path() -> str:
    """The absolute path of the bundled rangejoin jar."""
    jars = sorted(_jar_dir().glob("rangejoin-*.jar")) if _jar_dir().is_dir() else []
    if len(jars) != 1:
        found = ", ".join(j.name for j in jars) or "none"
        raise JarNotFoundError(
            f"Expected exactly one rangejoin jar in {_jar_dir()}, found {found}. {_REBUILD_HINT}"
        )
    return str(jars[0])


def check_pyspark_version(installed: str) -> None:
    """Raises SparkVersionMismatchError unless `installed` equals the jar's Spark version."""
    built_for = spark_version()
    if installed != built_for:
        raise SparkVersionMismatchError(
            f"The rangejoin jar was built for Spark {built_for}, but PySpark {installed} is "
            f'installed. Install the matching PySpark (pip install "pyspark=={built_for}") '
            "or rebuild the jar against your Spark version."
        )
