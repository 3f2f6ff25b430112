"""Fixtures shared by the interoperability tests: the throwaway Swift package built once per run."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PROBE_SOURCE = Path(__file__).resolve().parent / "swift_probe" / "main.swift"
BUILD_TIMEOUT = 1800

MANIFEST = """// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RollcallProbe",
    dependencies: [.package(path: "deps/Rollcall")],
    targets: [
        .executableTarget(
            name: "rollcall-probe",
            dependencies: [.product(name: "RollcallClient", package: "Rollcall")]
        )
    ]
)
"""


@pytest.fixture(scope="session")
def swift_probe():
    """A package outside the repository that depends on the `RollcallClient` product by path, as an app would, built
    once per test run in a temporary directory (no network: the only dependency is this checkout). Yields the path
    of its executable (`swift_probe/main.swift`); the directory is removed at the end of the run."""
    directory = Path(tempfile.mkdtemp(prefix="rollcall-probe-"))
    try:
        (directory / "deps").mkdir()
        (directory / "deps" / "Rollcall").symlink_to(PROJECT_ROOT, target_is_directory=True)
        sources = directory / "Sources" / "rollcall-probe"
        sources.mkdir(parents=True)
        shutil.copyfile(PROBE_SOURCE, sources / "main.swift")
        (directory / "Package.swift").write_text(MANIFEST)
        result = subprocess.run(
            ["swift", "build", "--package-path", str(directory), "-Xswiftc", "-warnings-as-errors"],
            capture_output=True, text=True, timeout=BUILD_TIMEOUT, stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, f"the package did not build:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
        binary = directory / ".build" / "debug" / "rollcall-probe"
        assert binary.exists(), result.stdout[-2000:]
        yield binary
    finally:
        shutil.rmtree(directory, ignore_errors=True)
