"""The browsable API for views that are not lists of model rows (the lead's tools: explorer, re-annotation).

DRF's browsable renderer asks every list view for its queryset to build a filter form, and every view
that takes a POST for its serializer to build the form; views that page a computed list (no `queryset`)
or whose actions declare their bodies per action (no `serializer_class`) get no such form instead of a
500 — the page still shows the response and the allowed methods.
"""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import BrowsableAPIRenderer


def _own(view: Any, name: str) -> bool:
    return any(
        name in vars(cls) for cls in type(view).__mro__ if not cls.__module__.startswith("rest_framework")
    )


def _has_serializer(view: Any) -> bool:
    return getattr(view, "serializer_class", None) is not None or _own(view, "get_serializer_class")


def _has_queryset(view: Any) -> bool:
    """A `queryset` attribute or a `get_queryset` of our own (DRF's asserts when neither is there).

    (rest_framework.generics is not imported here: it reads the API settings, which import this module.)
    """
    return getattr(view, "queryset", None) is not None or _own(view, "get_queryset")


class ComputedListBrowsableAPIRenderer(BrowsableAPIRenderer):
    def get_filter_form(self, data: Any, view: Any, request: Any) -> Any:
        if not _has_queryset(view):
            return None
        return super().get_filter_form(data, view, request)

    def get_rendered_html_form(self, data: Any, view: Any, method: str, request: Any) -> Any:
        if not _has_serializer(view):
            return None
        return super().get_rendered_html_form(data, view, method, request)

    def get_raw_data_form(self, data: Any, view: Any, method: str, request: Any) -> Any:
        if not _has_serializer(view):
            return None
        return super().get_raw_data_form(data, view, method, request)

    def get_context(self, data: Any, accepted_media_type: str | None, renderer_context: Any) -> Any:
        """DRF's context with what its templates would write inline taken out: the extra actions move
        to `action_links` (shown by templates/rest_framework/api.html without a style attribute) and
        the syntax-highlighting `<style>` goes (it only serves DRF's documentation pages)."""
        context = super().get_context(data, accepted_media_type, renderer_context)
        context["action_links"], context["extra_actions"] = context.get("extra_actions"), None
        context["code_style"] = None
        return context
