"""Builds the rangejoin package, only with its jars inside: a wheel without them would install
and then fail at the first session. `make dist` (or `make build`) puts the jars in place.

The package's version is the one its jars carry in their names, so that it is written once (in
the repository's versions.properties, from which the jars are built) and an sdist, which holds
the jars, builds the same wheel. The license is the repository's LICENSE, copied next to this
file so that both the wheel and the sdist carry it.
"""

import importlib.util
import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
JAR_DIR = HERE / "rangejoin" / "jars"
# Building from the spark-rangejoin checkout (python/ in it), not from an unpacked sdist (which
# has a PKG-INFO, its LICENSE, and no checkout around it).
CHECKOUT = None if (HERE / "PKG-INFO").is_file() else HERE.parent
LICENSE = "Apache-2.0"


def _jar_name_pattern() -> re.Pattern:
    """rangejoin._jar's pattern for the names of bundled jars, read from that file alone (the
    package itself imports pyspark, which a build does not have)."""
    spec = importlib.util.spec_from_file_location("_rangejoin_jar", HERE / "rangejoin" / "_jar.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._JAR_NAME


def _fail(message: str) -> None:
    raise SystemExit(message)


def bundled_version(jar_dir: Path = JAR_DIR, properties: Path | None = None) -> str:
    """The version of the rangejoin jars in `jar_dir` (rangejoin-spark<release>_<scala>-
    <version>.jar). Fails when there is none, when they disagree, or when `properties` (the
    repository's versions.properties, when building from a checkout) names another version."""
    pattern = _jar_name_pattern()
    names = (
        sorted(path.name for path in jar_dir.glob("rangejoin-*.jar")) if jar_dir.is_dir() else []
    )
    versions = {name: match["version"] for name in names if (match := pattern.fullmatch(name))}
    if not versions:
        _fail(
            "rangejoin needs its jars in rangejoin/jars, and there are none: build them "
            "from the spark-rangejoin checkout with `make dist` (a wheel and an sdist in "
            "dist/, with a jar for each Spark line) or `make build` (the default line only)."
        )
    if len(set(versions.values())) > 1:
        listed = ", ".join(sorted(versions))
        _fail(
            f"rangejoin's jars in {jar_dir} carry different versions ({listed}); the "
            "package's version is theirs, so they must agree: rebuild them all with `make dist`."
        )
    (version,) = set(versions.values())
    if properties is not None and properties.is_file():
        text = properties.read_text(encoding="utf-8")
        written = re.search(r"^VERSION\s*=\s*(\S+)\s*$", text, re.MULTILINE)
        if written and written[1] != version:
            _fail(
                f"rangejoin's jars in {jar_dir} are version {version}, but {properties} says "
                f"{written[1]}: they are stale; rebuild them with `make dist` or `make build`."
            )
    return version


def license_file(checkout: Path | None) -> None:
    """Puts the checkout's LICENSE next to this file (an sdist already has it there)."""
    target = HERE / "LICENSE"
    source = checkout / "LICENSE" if checkout is not None else target
    if source != target and source.is_file():
        if not target.is_file() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
    if not target.is_file():
        _fail(f"rangejoin has no LICENSE in {source.parent}: the package must carry its license.")


def license_metadata() -> dict:
    """The license in the form the building setuptools supports: an SPDX expression from
    setuptools 77 (PEP 639), which deprecates the License field and license classifiers;
    before it, that field and the classifier."""
    import setuptools

    if int(setuptools.__version__.split(".")[0]) >= 77:
        return {"license_expression": LICENSE, "license_files": ["LICENSE"], "classifiers": []}
    classifier = "License :: OSI Approved :: Apache Software License"
    return {"license": LICENSE, "license_files": ["LICENSE"], "classifiers": [classifier]}


if __name__ == "__main__":
    from setuptools import setup

    version = bundled_version(JAR_DIR, CHECKOUT and CHECKOUT / "versions.properties")
    license_file(CHECKOUT)
    metadata = license_metadata()
    metadata["classifiers"] += [
        "Programming Language :: Python :: 3",
        "Topic :: Database",
    ]
    setup(
        version=version,
        # rangejoin.jars holds only data (the jars), but Python could import it as a namespace
        # package, so setuptools wants it listed with the packages.
        packages=["rangejoin", "rangejoin.jars"],
        package_data={"rangejoin": ["py.typed"], "rangejoin.jars": ["*.jar"]},
        include_package_data=False,
        **metadata,
    )
