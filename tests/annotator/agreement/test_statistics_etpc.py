"""Done-when check of the corpus statistics on the real ETPC files: after `import_corpus --skip-invalid`
the per-type counts per sense-preserving layer equal the imported relations, and the statistics say how
many relations were skipped and why. Skips without the corpora; fails under REQUIRE_CORPORA=1."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from annotator.agreement.statistics import project_statistics
from annotator.models import Phenomenon, Project

pytestmark = pytest.mark.django_db


@pytest.mark.slow
def test_etpc_per_type_counts_per_layer_equal_the_imported_relations(
    corpora_dir: Path, tmp_path: Path
) -> None:
    etpc = corpora_dir / "etpc"
    files = [
        *sorted((corpora_dir / "mrpc").glob("*.txt")),
        etpc / "paraphrase_types.xml",
        etpc / "textual_np_pos.xml",
        etpc / "textual_np_neg.xml",
    ]
    report_path = tmp_path / "report.json"
    out = io.StringIO()
    call_command(
        "import_corpus",
        "--format",
        "etpc",
        "--project",
        "ETPC",
        "--skip-invalid",
        "--report",
        str(report_path),
        *map(str, files),
        stdout=out,
    )
    project = Project.objects.get(name="ETPC")
    stats = project_statistics(project)

    rows = Phenomenon.objects.filter(pair__project=project, is_gold=False).values_list(
        "annotator__username", "ptype__name", "sense_preserving"
    )
    imported = Counter(rows)
    (annotator,) = {a for a, _, _ in imported}
    table = stats["etpc_types_by_sense"]
    assert table["mirrors"] == "Kovatchev et al. (ETPC), types per layer"
    layer = {True: "plus", False: "minus", None: "unmarked"}
    from_stats = Counter(
        {
            (annotator, type_name, sense): cells[annotator][layer[sense]]
            for type_name, cells in table["by_type"].items()
            for sense in (True, False, None)
            if cells[annotator][layer[sense]]
        }
    )
    assert from_stats == imported
    total = table["total"][annotator]
    assert total["plus"] + total["minus"] == sum(imported.values()) and total["unmarked"] == 0
    assert total["plus"] > 5000 and total["minus"] > 3000

    skips = stats["imports"]
    relations = total["plus"] + total["minus"]
    assert relations + skips["skipped"] == 8993  # 5,599 in textual_np_pos.xml + 3,394 in textual_np_neg.xml
    assert skips["skipped"] > 0 and set(skips["files"]) <= {"textual_np_pos.xml", "textual_np_neg.xml"}
    assert sum(r["count"] for r in skips["reasons"]) >= skips["skipped"]
    assert all(r["reason"] and not r["reason"].startswith("pair ") for r in skips["reasons"])
    assert f"{skips['skipped']} skipped" in out.getvalue()
