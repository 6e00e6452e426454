"""The metrics library never imports Django or the annotator app (STYLE: dependencies point one way)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MODULES = [
    "metrics",
    "metrics.types",
    "metrics.document",
    "metrics.iapta",
    "metrics.multi",
    "metrics.phenomena_sums",
    "metrics.kappa",
    "metrics.reeval",
    "metrics.bootstrap",
    "metrics.phenomena",
    "metrics.synthetic",
    "metrics.report",
    "metrics.__main__",
]


def test_importing_metrics_loads_no_django_or_annotator_module():
    code = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}: importlib.import_module(name)\n"
        "for name in ('metrics.alignment', 'metrics.chance', 'metrics.spade'):\n"
        "    try: importlib.import_module(name)\n"
        "    except ImportError: pass\n"
        "bad = [m for m in sys.modules if m.startswith(('django', 'annotator'))]\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr


def test_metrics_source_has_no_django_or_annotator_import():
    pattern = re.compile(r"^\s*(import|from)\s+(django|annotator)\b", re.MULTILINE)
    offenders = [str(p) for p in (REPO / "metrics").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []
