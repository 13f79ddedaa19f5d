"""Builds the rangejoin package only with its jar inside: a wheel without the jar would install
and then fail at the first session. `make dist` (or `make build`) puts the jar in place."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithJar(build_py):
    """build_py that first checks that at least one rangejoin jar is bundled, named as
    rangejoin._jar reads it: rangejoin-spark<release>_<scala>-<version>.jar."""

    def run(self) -> None:
        jars = (Path(__file__).parent / "rangejoin" / "jars").glob("rangejoin-spark*_*-*.jar")
        if not any(jars):
            raise SystemExit(
                "rangejoin needs its jars in rangejoin/jars, and there are none: build them "
                "from the spark-rangejoin checkout with `make dist` (a wheel and an sdist in "
                "dist/, with a jar for each Spark line) or `make build` (the default line only)."
            )
        super().run()


setup(cmdclass={"build_py": BuildWithJar})
