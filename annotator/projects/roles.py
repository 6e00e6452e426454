"""Giving a person a role in a project: the one place a membership is made.

Roles are per project: lead, annotator, rater (a person may hold several). Every path that makes
someone a member (the members page, the REST API, invitations, the import of annotations, the lead
tools' assignments, the evaluation's raters, the demo and the test world) goes through `grant_role`.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from annotator.models import Membership, Project

ROLES = tuple(Membership.Role.values)
#: The message for a role that is not one (`input`: what was given), also the API's.
UNKNOWN_ROLE = "Unknown role {input!r}; choose lead, annotator or rater."


def check_role(role: str) -> None:
    """Refuse a role that is not one of the project roles."""
    if role not in ROLES:
        raise ValidationError({"role": UNKNOWN_ROLE.format(input=role)})


def grant_role(project: Project, user: Any, role: str) -> Membership:
    """`user` holds `role` in the project (a role they hold already is kept)."""
    check_role(role)
    membership, _ = Membership.objects.get_or_create(project=project, user=user, role=role)
    return membership
