"""Members and roles of a project and one-time invitation links — without the Django admin.

Roles are per project: lead, annotator, rater (a person may hold several). Removing a member ends
their roles only: everything they annotated or judged stays, attributed to them; their unfinished
assignments can move to another annotator (`reassign`, also the planner's). A project keeps
at least one lead. An invitation link is single use and expires; it makes whoever opens it (after
signing up or logging in) a member in the invitation's role.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotator.accounts import services as accounts
from annotator.core import counts
from annotator.models import Assignment, Invitation, Membership, Project
from annotator.projects.roles import check_role, grant_role

INVITATION_DAYS = 7
UNFINISHED = (Assignment.Status.TODO, Assignment.Status.IN_PROGRESS, Assignment.Status.POSTPONED)


@dataclass
class MemberRow:
    user: Any
    roles: list[str]
    open: int
    done: int


def member_rows(project: Project) -> list[MemberRow]:
    """Every member with their roles and their assignments' counts (two queries: the counts are the
    stored tallies, whatever the project's size)."""
    by_user: dict[int, MemberRow] = {}
    for membership in project.memberships.select_related("user").order_by("user__username", "role"):
        row = by_user.setdefault(membership.user_id, MemberRow(membership.user, [], 0, 0))
        row.roles.append(membership.role)
    for tally in counts.assignment_tallies(project, annotator_id__in=list(by_user)):
        member = by_user[tally["annotator_id"]]
        if tally["status"] in UNFINISHED:
            member.open += tally["n"]
        elif tally["status"] == Assignment.Status.DONE:
            member.done += tally["n"]
    return list(by_user.values())


def add_member(project: Project, username: str, role: str) -> Membership:
    """Give an existing user a role in the project (a role they hold already is kept)."""
    check_role(role)
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise ValidationError(
            {
                "username": f"No user named {username.strip()!r}: create the account or send an invitation link."
            }
        )
    return grant_role(project, user, role)


@transaction.atomic
def set_roles(project: Project, user: Any, roles: list[str]) -> None:
    """The member's roles become exactly `roles` (at least one; the last lead keeps the lead role)."""
    for role in roles:
        check_role(role)
    if not roles:
        raise ValidationError({"roles": "Keep at least one role, or remove the member."})
    if Membership.Role.LEAD not in roles:
        _keep_a_lead(project, user)
    Membership.objects.filter(project=project, user=user).exclude(role__in=roles).delete()
    for role in roles:
        grant_role(project, user, role)


def _keep_a_lead(project: Project, leaving: Any) -> None:
    others = project.memberships.filter(role=Membership.Role.LEAD).exclude(user=leaving)
    if project.memberships.filter(user=leaving, role=Membership.Role.LEAD).exists() and not others.exists():
        raise ValidationError(
            {"roles": f"{leaving} is the project's only lead: make someone else lead first."}
        )


@dataclass(frozen=True)
class Reassignment:
    moved: int
    already_held: int
    removed_from_project: bool


@transaction.atomic
def reassign(project: Project, from_user: Any, to_user: Any, *, remove_member: bool = False) -> Reassignment:
    """Move `from_user`'s unfinished pair assignments (to do, in progress, postponed) to `to_user`.

    Finished work stays with its author. A pair (and round) `to_user` already holds is not duplicated:
    `from_user`'s row for it is dropped and counted in `already_held`. Moved rows start afresh (to do,
    no time spent) because `to_user` has not started them. With `remove_member`, `from_user` stops
    being an annotator of the project, which also leaves their work out of agreement.
    """
    if from_user.pk == to_user.pk:
        raise ValidationError({"to_user": "Choose a different annotator to take the work over."})
    if not project.memberships.filter(user=to_user, role=Membership.Role.ANNOTATOR).exists():
        raise ValidationError({"to_user": f"{to_user} is not an annotator of this project."})
    rows = Assignment.objects.select_for_update().filter(
        project=project, annotator=from_user, pair__isnull=False, status__in=UNFINISHED
    )
    held = set(
        Assignment.objects.filter(project=project, annotator=to_user, pair__isnull=False).values_list(
            "pair_id", "round"
        )
    )
    duplicate = [row.pk for row in rows if (row.pair_id, row.round) in held]
    Assignment.objects.filter(pk__in=duplicate).delete()
    moved = (
        Assignment.objects.filter(
            project=project, annotator=from_user, pair__isnull=False, status__in=UNFINISHED
        )
        .exclude(pk__in=duplicate)
        .update(annotator=to_user, status=Assignment.Status.TODO, started_at=None, time_spent=0)
    )
    if remove_member:
        Membership.objects.filter(project=project, user=from_user, role=Membership.Role.ANNOTATOR).delete()
    return Reassignment(moved=moved, already_held=len(duplicate), removed_from_project=remove_member)


@dataclass
class Removal:
    moved: int
    kept_open: int


@transaction.atomic
def remove_member(project: Project, user: Any, *, reassign_to: Any = None) -> Removal:
    """End all of `user`'s roles in the project. Their annotations and judgements stay, attributed to
    them; their unfinished pair assignments move to `reassign_to` when given (else they stay, unopened)."""
    _keep_a_lead(project, user)
    moved = 0
    if reassign_to is not None:
        moved = reassign(project, user, reassign_to).moved
    kept = Assignment.objects.filter(project=project, annotator=user, status__in=UNFINISHED).count()
    Membership.objects.filter(project=project, user=user).delete()
    return Removal(moved=moved, kept_open=kept)


# ---- invitations ----------------------------------------------------------------------------------


def create_invitation(
    project: Project, role: str, created_by: Any, *, note: str = "", days: int = INVITATION_DAYS
) -> Invitation:
    check_role(role)
    if not 1 <= days <= 60:
        raise ValidationError({"days": "An invitation is valid for 1 to 60 days."})
    return Invitation.objects.create(
        project=project,
        role=role,
        note=note.strip(),
        token=secrets.token_urlsafe(32),
        created_by=created_by,
        expires_at=timezone.now() + timedelta(days=days),
    )


def invitation_status(invitation: Invitation) -> str:
    """valid, used, expired or revoked."""
    if invitation.revoked:
        return "revoked"
    if invitation.used_at is not None:
        return "used"
    if invitation.expires_at <= timezone.now():
        return "expired"
    return "valid"


STATUS_MESSAGES = {
    "used": "This invitation link has been used already; each link works once. Ask the project's lead for a new one.",
    "expired": "This invitation link has expired. Ask the project's lead for a new one.",
    "revoked": "This invitation link was withdrawn by the project's lead.",
}


def _claim(token: str) -> Invitation:
    invitation = Invitation.objects.select_for_update().select_related("project").filter(token=token).first()
    if invitation is None:
        raise ValidationError({"token": "No such invitation link."})
    state = invitation_status(invitation)
    if state != "valid":
        raise ValidationError({"token": STATUS_MESSAGES[state]})
    return invitation


@transaction.atomic
def accept_invitation(token: str, user: Any) -> Membership:
    """Make `user` a member in the invitation's role and use the link up (single use, even when two
    people open it at once: the row is locked)."""
    invitation = _claim(token)
    membership = grant_role(invitation.project, user, invitation.role)
    invitation.used_at, invitation.used_by = timezone.now(), user
    invitation.save(update_fields=["used_at", "used_by"])
    return membership


@transaction.atomic
def sign_up_with_invitation(token: str, username: str, password: str, *, email: str = "") -> Any:
    """A new account created through an invitation link, which it then uses up."""
    _claim(token)
    user = accounts.create_account(username, password, email=email)
    accept_invitation(token, user)
    return user


def revoke_invitation(invitation: Invitation) -> None:
    invitation.revoked = True
    invitation.save(update_fields=["revoked"])
