"""One-click explanations of the dashboard's measures, rendered from docs/measures.md."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotator.core.measure_docs import measures_doc, section
from annotator.core.web_request import SignedInRequest


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
