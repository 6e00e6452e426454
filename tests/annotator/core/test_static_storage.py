"""Production's static storage serves the editor's ES modules under hashed names, imports included."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.core.files.storage import storages
from django.core.management import call_command
from django.test import override_settings

from tests.conftest import REPO

IMPORT = re.compile(r"""^(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)";""", re.M | re.S)
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")


def collect(root: Path) -> dict[str, str]:
    """collectstatic of the project's own static/ with the storage DEBUG=0 uses; the manifest's paths."""
    production = {"BACKEND": "annotator.core.static_storage.ModuleAwareStaticFilesStorage"}
    with override_settings(
        STATIC_ROOT=root,
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
        STORAGES={
            "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
            "staticfiles": production,
        },
    ):
        storages._storages.pop("staticfiles", None)
        try:
            call_command("collectstatic", "--noinput", "--verbosity", "0")
        finally:
            storages._storages.pop("staticfiles", None)
    return json.loads((root / "staticfiles.json").read_text())["paths"]


def test_editor_modules_import_each_other_by_hashed_name(tmp_path):
    paths = collect(tmp_path)
    modules = sorted(p.name for p in (REPO / "static" / "annotation").glob("*.js"))
    assert "editor.js" in modules and len(modules) > 5
    for name in modules:
        hashed = tmp_path / paths[f"annotation/{name}"]
        imports = IMPORT.findall(hashed.read_text())
        source_imports = IMPORT.findall((REPO / "static" / "annotation" / name).read_text())
        assert len(imports) == len(source_imports), f"{name}: an import was not rewritten"
        for target in imports:
            assert HASHED.search(target), f"{name} imports the unhashed {target}"
            assert (hashed.parent / target).is_file(), f"{name} imports {target}, which was not collected"


def test_a_changed_module_changes_the_hash_of_its_importers(tmp_path, settings):
    before = collect(tmp_path / "before")
    copy = tmp_path / "static"
    for path in (REPO / "static").rglob("*"):
        if path.is_file():
            (copy / path.relative_to(REPO / "static")).parent.mkdir(parents=True, exist_ok=True)
            (copy / path.relative_to(REPO / "static")).write_bytes(path.read_bytes())
    state = copy / "annotation" / "state.js"
    state.write_text(state.read_text() + "\n// changed\n")
    settings.STATICFILES_DIRS = [copy]
    after = collect(tmp_path / "after")
    assert before["annotation/state.js"] != after["annotation/state.js"]
    assert before["annotation/editor.js"] != after["annotation/editor.js"], (
        "a browser would keep the old entry module"
    )
