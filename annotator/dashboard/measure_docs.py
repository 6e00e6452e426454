"""The dashboard's one-click explanations: sections of `docs/measures.md`, found by their anchors, and
the page that shows one (`measure_explanation`).

`docs/measures.md` gives every measure a section whose heading ends in `{#anchor}`; a section runs to
the next heading of the same or a higher level. `MEASURE_ANCHORS` maps the report's measure keys (by
their longest matching prefix) to those anchors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotator.core.web_request import SignedInRequest

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*\{#([A-Za-z0-9_-]+)\}\s*$")
MEASURE_ANCHORS = {
    "iapta.n": "n",
    "iapta.tpo.partial.union": "tpo-multi",
    "iapta.tpo.total.union": "tpo-multi",
    "iapta.tpo.partial.gold": "tpo-multi",
    "iapta.tpo.total.gold": "tpo-multi",
    "iapta.tpo": "tpo",
    "iapta.do": "do",
    "N-measures": "n",
    "TPO-measures": "tpo",
    "DO-measures": "do",
    "alignment.words": "word-alignment",
    "alignment.phrases": "phrase-alignment",
    "kappa_c": "kappa-c",
    "spade": "spade",
    "fleiss": "fleiss",
    "cohen": "cohen",
    "krippendorff": "krippendorff",
    "pair_labels": "pair-labels",
    "bootstrap": "bootstrap",
    "intervals": "intervals",
    "reeval": "reeval",
    "iapta.sense": "sense-layers",
    "statistics": "statistics",
    "statistics.vila_table3": "stat-vila-table3",
    "statistics.vila_table4": "stat-vila-table4",
    "statistics.etpc_types_by_sense": "stat-etpc-types",
    "statistics.spade_table1": "stat-spade-table1",
    "statistics.cohn_fig4": "stat-cohn-fig4",
    "statistics.between_corpora": "stat-between-corpora",
}


@dataclass(frozen=True)
class Section:
    anchor: str
    title: str
    text: str


def measures_doc() -> Path:
    return Path(settings.MEASURES_DOC)


def anchor_for(measure: str) -> str | None:
    """The anchor of a measure key ("iapta.do.f1" → "do"), by its longest known prefix; every
    interval key (`<key>.ci95`) → "intervals"."""
    if measure.endswith(".ci95"):
        return "intervals"
    for prefix in sorted(MEASURE_ANCHORS, key=len, reverse=True):
        if measure == prefix or measure.startswith(prefix + "."):
            return MEASURE_ANCHORS[prefix]
    return None


def section(anchor: str) -> Section | None:
    """The section with this anchor, its heading removed; None when the file or anchor is missing."""
    path = measures_doc()
    if not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    start = level = None
    title = ""
    for n, line in enumerate(lines):
        match = HEADING.match(line)
        if match is None:
            continue
        if start is not None and len(match.group(1)) <= level:  # type: ignore[operator]
            return Section(anchor, title, "\n".join(lines[start:n]).strip())
        if start is None and match.group(3) == anchor:
            start, level, title = n + 1, len(match.group(1)), match.group(2)
    if start is None:
        return None
    return Section(anchor, title, "\n".join(lines[start:]).strip())


@require_GET
def measure_explanation(request: SignedInRequest, anchor: str) -> HttpResponse:
    """What a measure computes, its range, where it comes from and when it is undefined; htmx
    requests get the section alone (`#measure-explanation`)."""
    found = section(anchor)
    if found is None:
        if not measures_doc().is_file():
            raise Http404("The measures documentation (docs/measures.md) is not part of this installation.")
        raise Http404(f"docs/measures.md has no section #{anchor}.")
    template = "dashboard/measure_explanation.html"
    if request.htmx:
        template += "#measure-explanation"
    return render(request, template, {"section": found})
