"""What a user downloads declares its license and version: the poms `make publish-local` writes
and the wheel `make dist` writes (both run before tests/integration in `make test`)."""

import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
M2 = Path.home() / ".m2" / "repository" / "io" / "github" / "rangejoin"


def versions() -> dict[str, str]:
    pairs = (
        line.split("=", 1)
        for line in (ROOT / "versions.properties").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    return {key.strip(): value.strip() for key, value in pairs}


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


def test_the_wheel_declares_the_license_and_the_project_version():
    version = versions()["VERSION"]
    wheels = sorted((ROOT / "dist").glob(f"rangejoin-{version}-*.whl"))
    assert wheels, f"no dist/rangejoin-{version}-*.whl: run make dist"
    with zipfile.ZipFile(wheels[-1]) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        assert any(n.endswith("LICENSE") for n in names), names
    assert f"Version: {version}\n" in metadata
    assert "Apache-2.0" in metadata
