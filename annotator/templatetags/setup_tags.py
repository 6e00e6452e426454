"""Template filters of the project set-up area."""

from django import template
from django.utils.safestring import SafeString

from annotator.projects.guidelines import render_markdown

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    """Markdown rendered to sanitized HTML (annotator.projects.guidelines)."""
    return render_markdown(text)
