"""Guidelines: Markdown, rendered safely, published in numbered versions that annotators acknowledge.

Rendering: markdown-it-py's CommonMark parser with raw HTML turned off (a `<script>` is shown as
text), then nh3 (the Ammonia sanitizer) keeps only the tags Markdown produces and safe link schemes —
so neither Markdown links like `javascript:` nor HTML can inject anything.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import nh3
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Subquery
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from annotator.models import GuidelinesVersion, Membership, Project

TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "del", "s",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}


@cache
def _parser() -> Any:

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


def render_markdown(text: str) -> SafeString:
    """Safe HTML of a Markdown text (see the module docstring)."""
    html = _parser().render(text or "")
    clean = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 — sanitized by nh3 just above


def current_number(project: Project) -> int:
    return project.guidelines_versions.aggregate(n=Max("number"))["n"] or 0


@transaction.atomic
def publish(project: Project, text: str, user: Any, *, note: str = "") -> GuidelinesVersion:
    """A new version of the guidelines, in force from now; members are told until they acknowledge it."""

    if not text.strip():
        raise ValidationError({"text": "The guidelines are empty; write them before publishing."})
    Project.objects.select_for_update().filter(pk=project.pk).first()
    number = current_number(project) + 1
    version = GuidelinesVersion.objects.create(
        project=project, number=number, text=text, note=note.strip()[:200], published_by=user
    )
    project.guidelines = text
    project.save(update_fields=["guidelines"])
    Membership.objects.filter(project=project, user=user).update(guidelines_seen=number)
    return version


def unseen_version(project: Project, user: Any) -> GuidelinesVersion | None:
    """The newest version when `user` (a member) has not acknowledged it yet; its `first_read` is True
    when the member has acknowledged no version at all (a new member: nothing "changed" for them)."""
    if not user.is_authenticated:
        return None
    seen = (
        Membership.objects.filter(project=project, user=user)
        .values("project")
        .annotate(n=Max("guidelines_seen"))
    )
    version = (
        GuidelinesVersion.objects.filter(project=project, number__gt=Subquery(seen.values("n")))
        .annotate(seen=Subquery(seen.values("n")))
        .order_by("-number")
        .first()
    )
    if version is not None:
        version.first_read = not version.seen  # type: ignore[attr-defined]  # read by the notice
    return version


def acknowledge(project: Project, user: Any) -> None:
    Membership.objects.filter(project=project, user=user).update(guidelines_seen=current_number(project))
