"""Project set-up pages: settings, members and invitations, tagsets, guidelines, tokens, user accounts.

Every view starts with its `access` check (leads of the project and admins; members for reading the
guidelines; admins for accounts) and calls `annotator.projects` services for every change.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from annotator import access
from annotator.accounts import services as accounts
from annotator.core import counts
from annotator.core.counts import KnownCountPaginator
from annotator.core.tagsets import PALETTE
from annotator.core.web_request import SignedInRequest
from annotator.models import Invitation, Membership, Pair, ParaphraseType, Phenomenon, Tagset
from annotator.projects import forms as f
from annotator.projects import guidelines, members, services, tagsets


def _user_in(project: Any, user_pk: int) -> Any:
    user = get_user_model().objects.filter(pk=user_pk, memberships__project=project).first()
    if user is None:
        raise Http404("No such member.")
    return user


def _form_errors(request: SignedInRequest, prefix: str, form: Any) -> None:
    for field, errors in form.errors.items():
        label = form.fields[field].label or field if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{prefix} — {label}: {error}" if label else f"{prefix}: {error}")


# ---- projects ------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def project_create(request: SignedInRequest) -> HttpResponse:
    """A new project; its creator becomes its lead."""
    access.require_creator(request.user, "create projects; ask an administrator")
    form = f.ProjectForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            project = services.create_project(request.user, **form.project_fields())
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            messages.success(request, f"Project {project.name!r} created; you are its lead.")
            return redirect("annotator:project-detail", project_pk=project.pk)
    return render(request, "projects/project_create.html", {"form": form}, status=422 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def project_settings(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    data = request.POST or None
    form = f.ProjectForm(data, user=request.user, initial=f.ProjectForm.initial_of(project))
    if request.method == "POST" and form.is_valid():
        try:
            services.update_project(project, **form.project_fields())
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            messages.success(request, "Settings saved.")
            return redirect("annotator:project-settings", project_pk=project.pk)
    context = {
        "project": project,
        "form": form,
        "clone_form": f.TagsetCloneForm(),
        "may_edit_tagset": bool(project.tagset and access.may_edit_tagset(request.user, project.tagset)),
        "has_phenomena": Phenomenon.objects.filter(pair__project=project).exists(),
    }
    return render(request, "projects/project_settings.html", context, status=422 if form.errors else 200)


@require_POST
def project_tagset_clone(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Clone the project's (or a chosen built-in) tagset and switch the project to the copy."""
    project = access.project_for_lead(request.user, project_pk)
    form = f.TagsetCloneForm(request.POST)
    chosen = request.POST.get("source") or project.tagset_id
    source = Tagset.objects.filter(pk=chosen).first() if chosen else None
    if source is None:
        messages.error(request, "Choose a tagset to clone.")
        return redirect("annotator:project-settings", project_pk=project.pk)
    try:
        form.is_valid()
        copy = tagsets.clone_tagset(
            source, request.user, name=form.cleaned_data.get("name", ""), project=project
        )
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, f"Clone: {message}")
        return redirect("annotator:project-settings", project_pk=project.pk)
    messages.success(request, f"The project now uses {copy.name!r}, a copy of {source.name!r} you can edit.")
    return redirect("annotator:tagset-detail", tagset_pk=copy.pk)


# ---- members -------------------------------------------------------------------------------------


def _members_context(request: SignedInRequest, project: Any, **forms: Any) -> dict[str, Any]:
    rows = members.member_rows(project)
    annotators = [(r.user.pk, r.user.username) for r in rows if Membership.Role.ANNOTATOR in r.roles]
    invitations = [
        {
            "invitation": i,
            "status": members.invitation_status(i),
            "url": request.build_absolute_uri(reverse("annotator:invitation-accept", args=[i.token])),
        }
        for i in project.invitations.select_related("used_by")[:30]
    ]
    return {
        "project": project,
        "rows": rows,
        "invitations": invitations,
        "annotators": annotators,
        "add_form": forms.get("add_form") or f.MemberAddForm(),
        "create_form": forms.get("create_form") or f.MemberCreateForm(),
        "invite_form": forms.get("invite_form") or f.InvitationForm(),
        "remove_form": f.RemoveMemberForm(annotators=annotators),
        "role_choices": Membership.Role.choices,
    }


@require_http_methods(["GET"])
def project_members(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    return render(request, "projects/project_members.html", _members_context(request, project))


@require_POST
def member_add(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    form = f.MemberAddForm(request.POST)
    if form.is_valid():
        try:
            m = members.add_member(project, form.cleaned_data["username"], form.cleaned_data["role"])
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            messages.success(
                request, f"{m.user.username} is now {m.get_role_display().lower()} of the project."
            )
            return redirect("annotator:project-members", project_pk=project.pk)
    return render(
        request,
        "projects/project_members.html",
        _members_context(request, project, add_form=form),
        status=422,
    )


@require_POST
def member_create(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """A new account that joins the project at once."""
    project = access.project_for_lead(request.user, project_pk)
    form = f.MemberCreateForm(request.POST)
    if form.is_valid():
        try:
            user = accounts.create_account(
                form.cleaned_data["username"], form.cleaned_data["password"], email=form.cleaned_data["email"]
            )
            members.add_member(project, user.username, form.cleaned_data["role"])
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            messages.success(request, f"Account {user.username!r} created and added to the project.")
            return redirect("annotator:project-members", project_pk=project.pk)
    return render(
        request,
        "projects/project_members.html",
        _members_context(request, project, create_form=form),
        status=422,
    )


@require_POST
def invitation_create(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    form = f.InvitationForm(request.POST)
    if form.is_valid():
        invitation = members.create_invitation(
            project,
            form.cleaned_data["role"],
            request.user,
            note=form.cleaned_data["note"],
            days=form.cleaned_data["days"],
        )
        messages.success(
            request,
            f"Invitation link created (single use, valid until {invitation.expires_at:%Y-%m-%d %H:%M} UTC): copy it from the list below.",
        )
        return redirect(
            reverse("annotator:project-members", args=[project.pk]) + f"#invitation-{invitation.pk}"
        )
    return render(
        request,
        "projects/project_members.html",
        _members_context(request, project, invite_form=form),
        status=422,
    )


@require_POST
def invitation_revoke(request: SignedInRequest, project_pk: int, invitation_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    invitation = Invitation.objects.filter(project=project, pk=invitation_pk).first()
    if invitation is None:
        raise Http404("No such invitation.")
    members.revoke_invitation(invitation)
    messages.success(request, "The invitation link no longer works.")
    return redirect("annotator:project-members", project_pk=project.pk)


@require_POST
def member_roles(request: SignedInRequest, project_pk: int, user_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    user = _user_in(project, user_pk)
    form = f.RolesForm(request.POST)
    if form.is_valid():
        try:
            members.set_roles(project, user, form.cleaned_data["roles"])
        except ValidationError as error:
            for message in error.messages:
                messages.error(request, f"{user.username}: {message}")
        else:
            messages.success(request, f"{user.username}'s roles saved.")
    return redirect("annotator:project-members", project_pk=project.pk)


@require_POST
def member_remove(request: SignedInRequest, project_pk: int, user_pk: int) -> HttpResponse:
    project = access.project_for_lead(request.user, project_pk)
    user = _user_in(project, user_pk)
    rows = members.member_rows(project)
    form = f.RemoveMemberForm(
        request.POST, annotators=[(r.user.pk, r.user.username) for r in rows if "annotator" in r.roles]
    )
    target = None
    if form.is_valid() and form.cleaned_data["reassign_to"]:
        target = _user_in(project, form.cleaned_data["reassign_to"])
    try:
        removal = members.remove_member(project, user, reassign_to=target)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, f"{user.username}: {message}")
    else:
        moved = f"; {removal.moved} unfinished pairs moved to {target.username}" if target else ""
        kept = (
            f"; {removal.kept_open} unfinished pairs stay theirs (reassign them in the planner)"
            if removal.kept_open
            else ""
        )
        messages.success(
            request,
            f"{user.username} left the project; their annotations stay, attributed to them{moved}{kept}.",
        )
    return redirect("annotator:project-members", project_pk=project.pk)


@login_not_required  # the link is the key: people without an account yet sign up here
@require_http_methods(["GET", "POST"])
def invitation_accept(request: SignedInRequest, token: str) -> HttpResponse:
    """An invitation link: sign up (or, logged in, just accept) and join the project."""
    invitation = Invitation.objects.select_related("project").filter(token=token).first()
    if invitation is None:
        raise Http404("No such invitation link: check that you copied all of it.")
    state = members.invitation_status(invitation)
    form = f.SignUpForm(request.POST or None) if not request.user.is_authenticated else None
    if request.method == "POST" and state == "valid":
        try:
            if request.user.is_authenticated:
                members.accept_invitation(token, request.user)
            elif form is not None and form.is_valid():
                user = members.sign_up_with_invitation(
                    token,
                    form.cleaned_data["username"],
                    form.cleaned_data["password"],
                    email=form.cleaned_data["email"],
                )
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            else:
                raise ValidationError({})
        except ValidationError as error:
            if form is not None and error.message_dict:
                f.add_service_errors(form, error)
        else:
            messages.success(request, f"Welcome to {invitation.project.name}.")
            return redirect("annotator:project-detail", project_pk=invitation.project_id)
    context = {
        "invitation": invitation,
        "state": state,
        "form": form,
        "message": members.STATUS_MESSAGES.get(state, ""),
    }
    return render(
        request,
        "projects/invitation_accept.html",
        context,
        status=200 if state == "valid" and not (form and form.errors) else (410 if state != "valid" else 422),
    )


@require_http_methods(["GET", "POST"])
def user_create(request: SignedInRequest) -> HttpResponse:
    """Administrators create accounts."""
    access.require_admin(request.user)
    form = f.UserCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = accounts.create_account(
                form.cleaned_data["username"],
                form.cleaned_data["password"],
                email=form.cleaned_data["email"],
                is_admin=form.cleaned_data["is_admin"],
                may_create_projects=form.cleaned_data["may_create_projects"],
            )
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            messages.success(request, f"Account {user.username!r} created.")
            return redirect("annotator:user-create")
    users = get_user_model().objects.order_by("-date_joined")[:50]
    return render(
        request,
        "projects/user_create.html",
        {"form": form, "users": users},
        status=422 if form.errors else 200,
    )


# ---- tagsets -------------------------------------------------------------------------------------


def tagset_list(request: SignedInRequest) -> HttpResponse:
    builtin = Tagset.objects.filter(builtin=True)
    mine = access.editable_tagsets(request.user)
    return render(
        request,
        "projects/tagset_list.html",
        {"builtin": builtin, "mine": mine, "create_form": f.TagsetCreateForm()},
    )


@require_POST
def tagset_create(request: SignedInRequest) -> HttpResponse:
    access.require_creator(request.user, "create tagsets")
    form = f.TagsetCreateForm(request.POST)
    if form.is_valid():
        try:
            tagset = tagsets.create_tagset(
                request.user, form.cleaned_data["name"], description=form.cleaned_data["description"]
            )
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            return redirect("annotator:tagset-detail", tagset_pk=tagset.pk)
    _form_errors(request, "New tagset", form)
    return redirect("annotator:tagset-list")


def tagset_detail(request: SignedInRequest, tagset_pk: int) -> HttpResponse:
    """Read a tagset; edit its types when it is an editable copy."""
    tagset = Tagset.objects.filter(pk=tagset_pk).first()
    if tagset is None:
        raise Http404("No such tagset.")
    editable = access.may_edit_tagset(request.user, tagset)
    used = tagsets.usage_by_type(tagset) if editable else {}
    types = list(tagset.types.all())
    rows = [
        {
            "type": t,
            "used": used.get(t.pk, 0),
            "form": f.TypeForm(initial={k: getattr(t, k) for k in f.TypeForm.base_fields}, prefix=f"t{t.pk}"),
        }
        for t in types
    ]
    context = {
        "tagset": tagset,
        "editable": editable,
        "rows": rows,
        "new_form": f.TypeForm(prefix="new", initial={"colour": PALETTE[len(types) % len(PALETTE)]}),
        "projects": tagset.project_set.all(),
        "may_clone": access.may_create_project(request.user),
    }
    return render(request, "projects/tagset_detail.html", context)


@require_POST
def tagset_clone(request: SignedInRequest, tagset_pk: int) -> HttpResponse:
    access.require_creator(request.user, "clone tagsets")
    source = Tagset.objects.filter(pk=tagset_pk).first()
    if source is None:
        raise Http404("No such tagset.")
    try:
        copy = tagsets.clone_tagset(source, request.user, name=request.POST.get("name", ""))
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, f"Clone: {message}")
        return redirect("annotator:tagset-detail", tagset_pk=source.pk)
    return redirect("annotator:tagset-detail", tagset_pk=copy.pk)


def _type_in(tagset: Tagset, type_pk: int) -> ParaphraseType:
    ptype = tagset.types.filter(pk=type_pk).first()
    if ptype is None:
        raise Http404("No such type.")
    return ptype


def _save_type(
    request: SignedInRequest, tagset: Tagset, ptype: ParaphraseType | None, prefix: str
) -> HttpResponse:
    form = f.TypeForm(request.POST, prefix=prefix)
    if form.is_valid():
        try:
            saved = tagsets.save_type(tagset, ptype, **form.cleaned_data)
        except ValidationError as error:
            f.add_service_errors(form, error)
        else:
            messages.success(request, f"Type {saved.name!r} saved.")
            return redirect(reverse("annotator:tagset-detail", args=[tagset.pk]) + f"#type-{saved.pk}")
    _form_errors(request, ptype.name if ptype else "New type", form)
    return redirect("annotator:tagset-detail", tagset_pk=tagset.pk)


@require_POST
def type_create(request: SignedInRequest, tagset_pk: int) -> HttpResponse:
    tagset = access.tagset_to_edit(request.user, tagset_pk)
    return _save_type(request, tagset, None, "new")


@require_POST
def type_update(request: SignedInRequest, tagset_pk: int, type_pk: int) -> HttpResponse:
    tagset = access.tagset_to_edit(request.user, tagset_pk)
    ptype = _type_in(tagset, type_pk)
    return _save_type(request, tagset, ptype, f"t{ptype.pk}")


@require_POST
def type_delete(request: SignedInRequest, tagset_pk: int, type_pk: int) -> HttpResponse:
    tagset = access.tagset_to_edit(request.user, tagset_pk)
    ptype = _type_in(tagset, type_pk)
    target = None
    if request.POST.get("merge_into"):
        target = tagset.types.filter(pk=request.POST["merge_into"]).first()
    try:
        moved = tagsets.delete_type(ptype, merge_into=target)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return redirect(reverse("annotator:tagset-detail", args=[tagset.pk]) + f"#type-{ptype.pk}")
    messages.success(
        request,
        f"Type {ptype.name!r} deleted"
        + (f"; {moved} phenomena now have type {target.name!r}." if target else "."),
    )
    return redirect("annotator:tagset-detail", tagset_pk=tagset.pk)


# ---- guidelines ----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def project_guidelines(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """Members read the guidelines in force, the definitions of the types and earlier versions;
    leads publish a new version."""
    project = access.project_for_member(request.user, project_pk)
    is_lead = access.is_lead(request.user, project)
    form = f.GuidelinesForm(request.POST or None, initial={"text": project.guidelines}) if is_lead else None
    if request.method == "POST":
        access.require_lead(request.user, project, "publish guidelines")
        if form is not None and form.is_valid():
            try:
                version = guidelines.publish(
                    project, form.cleaned_data["text"], request.user, note=form.cleaned_data["note"]
                )
            except ValidationError as error:
                f.add_service_errors(form, error)
            else:
                messages.success(
                    request, f"Version {version.number} published; annotators are told at their next page."
                )
                return redirect("annotator:project-guidelines", project_pk=project.pk)
    shown = project.guidelines_versions.first()
    requested = request.GET.get("version")
    if requested and requested.isdigit():
        shown = project.guidelines_versions.filter(number=int(requested)).first() or shown
    context: dict[str, Any] = {
        "project": project,
        "is_project_lead": is_lead,
        "form": form,
        "shown": shown,
        "versions": project.guidelines_versions.select_related("published_by"),
        "types": project.tagset.types.all() if project.tagset is not None else [],
        "unseen": guidelines.unseen_version(project, request.user),
    }
    return render(
        request,
        "projects/project_guidelines.html",
        context,
        status=422 if form is not None and form.errors else 200,
    )


@require_POST
def guidelines_acknowledge(request: SignedInRequest, project_pk: int) -> HttpResponse:
    project = access.project_for_member(request.user, project_pk)
    guidelines.acknowledge(project, request.user)
    if request.htmx:
        return HttpResponse("")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("annotator:project-guidelines", args=[project.pk])  # only this site's pages
    return redirect(target)


def pair_list(request: SignedInRequest, project_pk: int) -> HttpResponse:
    """The project's pairs with their tokens, for a lead checking tokenization before annotation starts."""
    project = access.project_for_lead(request.user, project_pk)

    pairs = Pair.objects.filter(project=project).order_by("position", "pk")
    page = KnownCountPaginator(pairs, 50, count=counts.n_pairs(project)).get_page(request.GET.get("page"))
    return render(request, "projects/pair_list.html", {"project": project, "page": page})
