"""Finds the bundled jar built for the installed PySpark.

The package carries one jar per Spark line, named ``rangejoin-spark<release>_<scala>-<version>.jar``
(for example ``rangejoin-spark4.2.0_2.13-0.1.0.jar``). Spark keeps its internal APIs within a line
(4.2.0, 4.2.1, ...), so a jar serves every release of its line, built for the Scala version that
PySpark's own jars use.
"""

import os
import re
from importlib import resources
from pathlib import Path
from typing import NamedTuple


class JarNotFoundError(RuntimeError):
    """A rangejoin jar is missing: none is inside the installed package, or the JVM of a session
    has none on its classpath (the extension is named but its classes cannot be loaded)."""


class SparkVersionMismatchError(RuntimeError):
    """No bundled jar is built for the installed PySpark's Spark line."""


_REBUILD_HINT = "Run `make build` in the spark-rangejoin checkout to build and bundle it."
# setup.py reads this pattern from this file alone (to take the package's version from the jars):
# this module imports only the standard library.
_JAR_NAME = re.compile(
    r"rangejoin-spark(?P<spark>\d+\.\d+\.\d+)_(?P<scala>\d+\.\d+)-(?P<version>.+)\.jar"
)


class BundledJar(NamedTuple):
    path: Path
    spark: str  # the release it was compiled against, e.g. "4.2.0"
    scala: str  # "2.12" or "2.13"

    @property
    def line(self) -> str:
        return spark_line(self.spark)


def spark_line(version: str) -> str:
    """ "4.2" for "4.2.0", "4.2.1.dev0" or "4.2"."""
    return ".".join(version.split(".")[:2])


def _jar_dir() -> Path:
    return Path(str(resources.files("rangejoin").joinpath("jars")))


def _bundled() -> list[BundledJar]:
    jars = []
    if _jar_dir().is_dir():
        for path in sorted(_jar_dir().glob("rangejoin-*.jar")):
            match = _JAR_NAME.fullmatch(path.name)
            if match:
                jars.append(BundledJar(path, match["spark"], match["scala"]))
    if not jars:
        raise JarNotFoundError(f"No rangejoin jar is bundled in {_jar_dir()}. {_REBUILD_HINT}")
    return jars


def _pyspark_scala(line: str) -> str:
    """The Scala version of Spark `line`: that of the Spark the installed PySpark runs if it is
    of that line (the jars of a pip-installed PySpark, else those of SPARK_HOME), else PyPI's
    (pyspark 3.x is built for Scala 2.12, 4.x for 2.13)."""
    import pyspark

    if spark_line(pyspark.__version__) == line:
        homes = [Path(pyspark.__file__).parent]
        if "SPARK_HOME" in os.environ:
            homes.append(Path(os.environ["SPARK_HOME"]))
        for home in homes:
            for library in (home / "jars").glob("scala-library-*.jar"):
                return spark_line(library.name.removeprefix("scala-library-"))
    return "2.12" if line.startswith("3.") else "2.13"


def _lines(jars: list[BundledJar]) -> list[str]:
    return sorted({jar.line for jar in jars}, key=lambda v: tuple(map(int, v.split("."))))


def supported_spark_versions() -> list[str]:
    """The Spark lines ("3.5", "4.2", ...) that a bundled jar is built for."""
    return _lines(_bundled())


def _jar_for(pyspark_version: str | None) -> BundledJar:
    if pyspark_version is None:
        import pyspark

        pyspark_version = pyspark.__version__
    line = spark_line(pyspark_version)
    scala = _pyspark_scala(line)
    bundled = _bundled()
    for jar in bundled:
        if jar.line == line and jar.scala == scala:
            return jar
    supported = _lines(bundled)
    other_scala = sorted({jar.scala for jar in bundled if jar.line == line})
    scala_note = (
        f" Its Spark {line} jar is built for Scala {' and '.join(other_scala)} only."
        if other_scala
        else ""
    )
    raise SparkVersionMismatchError(
        f"rangejoin has no jar for Spark {line} with Scala {scala} (PySpark {pyspark_version} "
        f"is installed); it supports Spark {', '.join(supported)}.{scala_note} Install one of "
        f'those, for example pip install "pyspark=={supported[-1]}.*", or build a jar for your '
        "Spark and Scala versions from the spark-rangejoin checkout and pass it in spark.jars "
        "(README: Spark versions)."
    )


def jar_path(pyspark_version: str | None = None) -> str:
    """The absolute path of the bundled jar for PySpark `pyspark_version` (default: the
    installed one). Raises SparkVersionMismatchError, naming the supported lines, if none."""
    return str(_jar_for(pyspark_version).path)


def spark_version(pyspark_version: str | None = None) -> str:
    """The Spark release that jar_path(pyspark_version) was compiled against."""
    return _jar_for(pyspark_version).spark


def check_pyspark_version(installed: str) -> None:
    """Raises SparkVersionMismatchError unless a bundled jar serves PySpark `installed`."""
    _jar_for(installed)
