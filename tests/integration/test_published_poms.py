"""The poms `make publish-local` writes (before tests/integration in `make test`) declare the
project's license; tests/integration/test_wheel.py checks the wheel's."""

from pathlib import Path

import pytest
from project_versions import versions

M2 = Path.home() / ".m2" / "repository" / "io" / "github" / "rangejoin"


@pytest.mark.parametrize("build", versions()["SPARK_BUILDS"].split())
def test_each_published_pom_declares_the_apache_license(build):
    release, scala = build.split("_")
    minor = ".".join(release.split(".")[:2])
    version = versions()["VERSION"]
    artifact = f"rangejoin-spark{minor}_{scala}"
    pom = M2 / artifact / version / f"{artifact}-{version}.pom"
    assert pom.is_file(), f"{pom} is missing: run make publish-local"
    text = pom.read_text()
    assert "<licenses>" in text and "<name>Apache-2.0</name>" in text
