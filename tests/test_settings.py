"""Settings are declared once, in annotator/settings.py, read from the environment with a typed
default that fails loudly on a bad value, and read as `settings.NAME` everywhere else."""

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from annotator.settings import env_bool, env_float, env_int

REPO = Path(__file__).resolve().parent.parent
#: Modules that read the environment themselves: the entry points naming the settings module, and the
#: health probe that compose runs outside Django.
ENVIRONMENT_READERS = {
    "annotator/settings.py",
    "annotator/wsgi.py",
    "annotator/asgi.py",
    "annotator/celery.py",
    "annotator/core/health.py",
}
#: Still read with a default where used; the list only shrinks (it is empty: every setting is declared).
READ_WITH_A_DEFAULT: set[str] = set()


def test_typed_readers_name_the_variable_on_a_bad_value(monkeypatch):
    monkeypatch.setenv("WB_N", "12")
    monkeypatch.setenv("WB_X", "0.5")
    assert env_int("WB_N", 1) == 12 and env_float("WB_X", 1.0) == 0.5
    monkeypatch.setenv("WB_N", "")
    assert env_int("WB_N", 7) == 7
    monkeypatch.setenv("WB_N", "twelve")
    with pytest.raises(ImproperlyConfigured, match="WB_N='twelve': expected a whole number"):
        env_int("WB_N", 1)
    monkeypatch.setenv("WB_X", "1,5")
    with pytest.raises(ImproperlyConfigured, match="WB_X='1,5': expected a number"):
        env_float("WB_X", 1.0)
    monkeypatch.setenv("WB_B", "maybe")
    with pytest.raises(ImproperlyConfigured, match="WB_B='maybe'"):
        env_bool("WB_B", True)


def test_settings_are_read_one_way():
    getattr_default = re.compile(r"getattr\(settings,")
    offenders = []
    for path in sorted((REPO / "annotator").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        text = path.read_text()
        if "os.environ" in text and name not in ENVIRONMENT_READERS:
            offenders.append(f"{name} reads os.environ")
        if getattr_default.search(text) and name not in READ_WITH_A_DEFAULT:
            offenders.append(f"{name} reads a setting with a default where it is used")
    assert not offenders, offenders


def test_every_environment_variable_is_in_the_configuration_table():
    reader = re.compile(r'(?:env_int|env_float|env_bool|env_list|os\.environ\.get)\("([A-Z_0-9]+)"')
    names = set()
    for module in ENVIRONMENT_READERS:
        names |= set(reader.findall((REPO / module).read_text()))
    table = (REPO / "docs" / "configuration.md").read_text()
    missing = sorted(name for name in names if f"`{name}`" not in table)
    assert len(names) > 20 and not missing, f"not in docs/configuration.md: {missing}"
