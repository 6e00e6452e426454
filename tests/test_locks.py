"""The lock files agree: `make run` installs requirements-run.lock (the runtime closure), `make test`
requirements.lock (everything); a package pinned in both has one version, and every runtime dependency
of pyproject.toml is in the runtime lock."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pins(name: str) -> dict[str, str]:
    out = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            package, _, version = line.partition("==")
            out[re.sub(r"[-_.]+", "-", package).lower()] = version
    return out


def test_the_runtime_lock_is_the_full_locks_pins_and_covers_pyprojects_dependencies():
    full, run = pins("requirements.lock"), pins("requirements-run.lock")
    differ = {p: (v, full.get(p)) for p, v in run.items() if full.get(p) != v}
    assert not differ, f"requirements-run.lock differs from requirements.lock: {differ}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {
        re.sub(r"[-_.]+", "-", d.split("==")[0].split("[")[0]).lower(): d.split("==")[1] for d in project
    }
    missing = {p: v for p, v in wanted.items() if run.get(p) != v}
    assert not missing, f"pyproject.toml dependencies not pinned alike in requirements-run.lock: {missing}"
    assert "pytest" not in run and "pandas" not in run and "playwright" not in run


def test_the_models_lock_is_installed_by_every_install_path():
    makefile = (ROOT / "Makefile").read_text()
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert makefile.count("-r requirements-models.lock") == 2
    assert "--no-deps -r requirements-models.lock" in dockerfile


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[\s;\[<>=!~(]", requirement.strip(), maxsplit=1)[0]).lower()


def test_the_runtime_lock_is_a_closure():
    """`make run` installs requirements-run.lock with --no-deps: every dependency of a pinned package
    (markers evaluated for this Python, no extras) must be pinned there too, or the package fails at
    import (scikit-learn without narwhals did)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    run = pins("requirements-run.lock") | pins("requirements-models.lock")
    # a virtual environment of Python 3.11 comes with these
    bundled = {"pip", "setuptools"}
    missing = {}
    for package in run:
        try:
            requires = metadata.requires(package) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            requirement = Requirement(text)
            if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
                continue
            name = _name(requirement.name)
            if name not in run and name not in bundled:
                missing.setdefault(package, []).append(name)
    assert not missing, f"dependencies missing from requirements-run.lock: {missing}"
