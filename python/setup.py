"""Builds the rangejoin package only with its jar inside: a wheel without the jar would install
and then fail at the first session. `make dist` (or `make build`) puts the jar in place."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithJar(build_py):
    """build_py that first checks that exactly one rangejoin jar is bundled."""

    def run(self) -> None:
        jars = sorted((Path(__file__).parent / "rangejoin" / "jars").glob("rangejoin-*.jar"))
        if len(jars) != 1:
            raise SystemExit(
                f"rangejoin needs exactly one jar in rangejoin/jars, found {len(jars)}: build "
                "it from the spark-rangejoin checkout with `make dist` (a wheel and an sdist in "
                "dist/) or `make build`, which compile the jar and copy it into the package."
            )
        super().run()


setup(cmdclass={"build_py": BuildWithJar})
