"""The permission matrix: EVERY URL of the project × anonymous / annotator (own data, another's data) /
lead (own project, another project) / admin → the expected class of response.

The URLs come from `django.urls.get_resolver()`, so a new URL that is missing from `TABLE` fails
`test_every_url_is_in_the_table` — nothing can be added without deciding who may use it. Each request
runs inside a transaction that is rolled back, so one world serves every row. Every response to the
annotator is searched for the other annotator's username and data markers, and every response to a
lead for the markers of the project she does not lead: an annotator never receives another
annotator's annotations, judgements or agreement numbers, whatever the URL or status.

Columns: anon, ann_own (anna on her own pair/unit), ann_other (anna on ben's pair/unit, or on a
project she is not in), lead_own (lena, her project), lead_other (lena, otto's project), admin.
Codes: ok (2xx/3xx; for writes also 400/409/422: access passed, the input was judged), login (redirect
to a login page), unauth (401/403 of the API), 403, 404, deny (403 or 404), 405, 400, any (not 5xx).

Set MATRIX_PRINT=1 to print the observed table (for a new URL: copy its row after checking it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from annotator.annotation import services as annotation_services
from annotator.leadtools import adjudication
from tests import make
from tests.annotator.evaluation.lexicon_files import LEXICON, SENTENCES
from tests.make import OTHER_ANNOTATOR, PASSWORD, SCENARIOS, Objects, PermissionWorld, mrpc_file

pytestmark = pytest.mark.django_db

READ = "GET"

# ---- the table ------------------------------------------------------------------------------------
# name → {method: "anon ann_own ann_other lead_own lead_other admin"}

LEAD_PAGE = "login 403 404 ok 404 ok"  # pages of the project's leads (other project: not revealed)
ANNOTATOR_PAIR = "login ok 403 403 404 403"  # the annotator's own pair (a lead is not its annotator)
RATER_UNIT = "login ok 403 403 404 403"
LEAD_PAIR = "login 403 403 ok 404 ok"  # adjudication: the project's leads only
API_LIST = "unauth ok ok ok ok ok"  # lists are filtered by access.visible_*
API_OWN_ROW = "unauth ok 404 ok 404 ok"  # a row: its annotator, the project's leads, admins
API_WRITE_OWN = "unauth ok 403 403 404 403"  # writes to the annotator's own sheet
API_LEAD_WRITE = "unauth 403 403 ok 404 ok"  # an annotator of the project is not its lead
API_LEAD_PROJECT = "unauth 403 404 ok 404 ok"  # lead tools of a project (anna's other: Beta, not hers)
API_LEAD_PAIR = "unauth 403 403 ok 404 ok"  # lead tools of a pair (anna's other: ben's pair in Alpha)

TABLE: dict[str, dict[str, str]] = {
    # authentication and core pages
    "login": {READ: "ok ok ok ok ok ok"},
    "logout": {"POST": "login login login login login login"},  # logged out, back to the login page
    "annotator:home": {READ: "login ok ok ok ok ok"},
    "annotator:healthz": {READ: "ok ok ok ok ok ok"},
    "annotator:project-detail": {READ: "login ok 404 ok 404 ok"},
    # editor (annotator's own pairs)
    "annotator:queue": {READ: "login ok 404 403 404 403"},  # the queue of an annotator of the project
    "annotator:pair-edit": {READ: ANNOTATOR_PAIR},
    "annotator:pair-label": {"POST": ANNOTATOR_PAIR},
    "annotator:pair-comment": {"POST": ANNOTATOR_PAIR},
    "annotator:phenomenon-create": {"POST": ANNOTATOR_PAIR},
    "annotator:phenomenon-update": {"POST": ANNOTATOR_PAIR},
    "annotator:phenomenon-delete": {"POST": ANNOTATOR_PAIR},
    "annotator:link-add": {"POST": ANNOTATOR_PAIR},
    "annotator:link-remove": {"POST": ANNOTATOR_PAIR},
    "annotator:link-toggle": {"POST": ANNOTATOR_PAIR},
    "annotator:link-accept": {"POST": ANNOTATOR_PAIR},
    "annotator:phrase-suggestion-accept": {"POST": ANNOTATOR_PAIR},
    "annotator:phenomenon-suggestion-accept": {"POST": ANNOTATOR_PAIR},
    "annotator:phenomenon-suggestion-reject": {"POST": ANNOTATOR_PAIR},
    "annotator:phrase-alignment-add": {"POST": ANNOTATOR_PAIR},
    "annotator:phrase-alignment-remove": {"POST": ANNOTATOR_PAIR},
    "annotator:pair-undo": {"POST": ANNOTATOR_PAIR},
    "annotator:pair-redo": {"POST": ANNOTATOR_PAIR},
    "annotator:pair-next": {READ: ANNOTATOR_PAIR},
    "annotator:pair-previous": {READ: ANNOTATOR_PAIR},
    "annotator:pair-postpone": {"POST": ANNOTATOR_PAIR},
    "annotator:pair-done": {"POST": ANNOTATOR_PAIR},
    "annotator:pair-time": {"POST": ANNOTATOR_PAIR},
    # evaluation (rater's own units)
    "annotator:rating-queue": {READ: "login ok 404 ok 404 ok"},
    "annotator:evaluation-setup": {READ: LEAD_PAGE},
    "annotator:evaluation-lexicons": {READ: LEAD_PAGE, "POST": LEAD_PAGE},
    "annotator:unit-grammaticality": {READ: RATER_UNIT},
    "annotator:unit-grammaticality-submit": {"POST": RATER_UNIT},
    "annotator:unit-meaning": {READ: RATER_UNIT},
    "annotator:unit-finalize": {"POST": RATER_UNIT},
    "annotator:unit-postpone": {"POST": RATER_UNIT},
    "annotator:unit-reevaluation": {READ: RATER_UNIT},
    "annotator:unit-reevaluation-finish": {"POST": RATER_UNIT},
    "annotator:judgement-save": {"POST": RATER_UNIT},
    # dashboard, corpus, lead tools
    "annotator:dashboard": {READ: LEAD_PAGE},
    "annotator:dashboard-statistics": {READ: LEAD_PAGE},
    "annotator:dashboard-pin": {"POST": LEAD_PAGE},
    "annotator:dashboard-intervals": {"POST": LEAD_PAGE},
    "annotator:corpus-jobs": {READ: LEAD_PAGE},
    "annotator:corpus-aligner": {READ: LEAD_PAGE, "POST": LEAD_PAGE},
    "annotator:project-recommender": {READ: LEAD_PAGE, "POST": LEAD_PAGE},
    "annotator:corpus-systems": {READ: LEAD_PAGE, "POST": LEAD_PAGE},
    "annotator:corpus-trees": {"POST": LEAD_PAGE},
    "annotator:corpus-trees-remove": {"POST": LEAD_PAGE},
    "annotator:corpus-trees-redo": {"POST": LEAD_PAGE},
    "annotator:corpus-export": {"POST": LEAD_PAGE},
    "annotator:corpus-job-cancel": {"POST": LEAD_PAGE},
    "annotator:corpus-job-delete": {"POST": LEAD_PAGE},
    "annotator:corpus-job-download": {READ: LEAD_PAGE},
    "annotator:corpus-job-report": {READ: LEAD_PAGE},
    "annotator:corpus-report-print": {READ: LEAD_PAGE},
    "annotator:corpus-import": {READ: "login 403 403 403 403 ok"},  # new projects: admins
    "annotator:planner": {READ: LEAD_PAGE},
    "annotator:planner-reassign": {"POST": LEAD_PAGE},
    "annotator:explorer": {READ: LEAD_PAGE},
    "annotator:explorer-refresh": {"POST": LEAD_PAGE},
    "annotator:explorer-pair": {READ: "login 403 403 ok 404 ok"},
    "annotator:reannotation": {READ: LEAD_PAGE},
    "annotator:adjudicate": {READ: LEAD_PAIR},
    "annotator:adjudicate-take": {"POST": LEAD_PAIR},
    "annotator:adjudicate-merge": {"POST": LEAD_PAIR},
    "annotator:adjudicate-label": {"POST": LEAD_PAIR},
    "annotator:adjudicate-phenomenon-add": {"POST": LEAD_PAIR},
    "annotator:adjudicate-phenomenon-update": {"POST": LEAD_PAIR},
    "annotator:adjudicate-phenomenon-remove": {"POST": LEAD_PAIR},
    "annotator:adjudicate-link-set": {"POST": LEAD_PAIR},
    "annotator:adjudicate-link-remove": {"POST": LEAD_PAIR},
    "annotator:adjudicate-phrase-remove": {"POST": LEAD_PAIR},
    # project set-up: settings, members and invitations, accounts, tagsets, guidelines, tokens
    "annotator:project-create": {READ: "login 403 403 ok ok ok", "POST": "login 403 403 ok ok ok"},
    "annotator:project-settings": {READ: LEAD_PAGE, "POST": LEAD_PAGE},
    "annotator:project-tagset-clone": {"POST": LEAD_PAGE},
    "annotator:project-members": {READ: LEAD_PAGE},
    "annotator:member-add": {"POST": LEAD_PAGE},
    "annotator:member-create": {"POST": LEAD_PAGE},
    "annotator:member-roles": {"POST": LEAD_PAGE},
    "annotator:member-remove": {"POST": LEAD_PAGE},
    "annotator:invitation-create": {"POST": LEAD_PAGE},
    "annotator:invitation-revoke": {"POST": LEAD_PAGE},
    "annotator:invitation-accept": {
        READ: "ok ok ok ok ok ok",
        "POST": "ok ok ok ok ok ok",
    },  # the link is the key
    "annotator:user-create": {READ: "login 403 403 403 403 ok", "POST": "login 403 403 403 403 ok"},
    "annotator:tagset-list": {READ: "login ok ok ok ok ok"},
    "annotator:tagset-create": {"POST": "login 403 403 ok ok ok"},
    "annotator:tagset-detail": {READ: "login ok ok ok ok ok"},  # types and definitions are not secret
    "annotator:tagset-clone": {"POST": "login 403 403 ok ok ok"},
    "annotator:type-create": {"POST": "login 403 403 ok 403 ok"},  # lead_other: otto's copy
    "annotator:type-update": {"POST": "login 403 403 ok 403 ok"},
    "annotator:type-delete": {"POST": "login 403 403 ok 403 ok"},
    "annotator:project-guidelines": {READ: "login ok 404 ok 404 ok", "POST": "login 403 404 ok 404 ok"},
    "annotator:guidelines-acknowledge": {"POST": "login ok 404 ok 404 ok"},
    "annotator:pair-list": {READ: LEAD_PAGE},
    "annotator:pair-tokens": {READ: LEAD_PAIR, "POST": LEAD_PAIR},
    "annotator:pair-trees-remove": {"POST": LEAD_PAIR},
    "annotator:measure-explanation": {READ: "login ok ok ok ok ok"},  # documentation: every user
    # Django's admin: its own login page answers everyone (it is a login page: Django's LoginRequiredMiddleware
    # exempts it), logout takes any POST; everything else is ADMIN_NAMESPACE
    "admin:login": {READ: "ok ok ok ok ok ok"},
    "admin:logout": {"POST": "any any any any any any"},
    # the user's own account, password change and reset; the admins' sign-in security page
    "annotator:account": {READ: "login ok ok ok ok ok"},
    "annotator:account-token-issue": {"POST": "login ok ok ok ok ok"},
    "annotator:account-token-revoke": {"POST": "login ok ok ok ok ok"},
    "annotator:security": {READ: "login 403 403 403 403 ok"},
    "annotator:security-unlock": {"POST": "login 403 403 403 403 ok"},
    "password_change": {READ: "login ok ok ok ok ok", "POST": "login ok ok ok ok ok"},
    "password_change_done": {READ: "login ok ok ok ok ok"},
    "password_reset": {READ: "ok ok ok ok ok ok", "POST": "ok ok ok ok ok ok"},
    "password_reset_done": {READ: "ok ok ok ok ok ok"},
    "password_reset_confirm": {READ: "ok ok ok ok ok ok"},
    "password_reset_complete": {READ: "ok ok ok ok ok ok"},
    # REST API: documentation and token
    "api-schema": {READ: "unauth ok ok ok ok ok"},  # behind login: the schema maps every endpoint
    "api-docs": {READ: "unauth ok ok ok ok ok"},
    "api-redoc": {READ: "unauth ok ok ok ok ok"},
    "api-token": {"POST": "400 ok ok ok ok ok"},
    "api-root": {READ: API_LIST},
    # REST API: resources
    "api-project-list": {READ: API_LIST, "POST": "unauth 403 403 ok ok ok"},
    "api-project-detail": {READ: "unauth ok 404 ok 404 ok", "PATCH": "unauth 403 404 ok 404 ok"},
    "api-project-agreement": {READ: "unauth 403 404 ok 404 ok"},
    "api-project-members": {READ: "unauth 403 404 ok 404 ok", "POST": "unauth 403 404 ok 404 ok"},
    "api-tagset-list": {READ: API_LIST},
    "api-tagset-detail": {READ: "unauth ok ok ok ok ok"},
    "api-pair-list": {READ: API_LIST, "POST": API_LEAD_WRITE},
    "api-pair-detail": {READ: "unauth ok 404 ok 404 ok"},
    "api-pair-sheet": {READ: "unauth ok 404 403 404 403"},
    "api-pair-suggestions": {READ: "unauth ok 404 403 404 403", "POST": "unauth ok 404 403 404 403"},
    "api-pair-phrase-suggestions": {READ: "unauth ok 404 403 404 403", "POST": "unauth ok 404 403 404 403"},
    "api-assignment-list": {READ: API_LIST, "POST": API_LEAD_WRITE},
    "api-assignment-detail": {READ: API_OWN_ROW},
    "api-pairlabel-list": {READ: API_LIST, "POST": API_WRITE_OWN},
    "api-pairlabel-detail": {READ: API_OWN_ROW},
    "api-phenomenon-list": {READ: API_LIST, "POST": API_WRITE_OWN},
    "api-phenomenon-detail": {
        READ: API_OWN_ROW,
        "PATCH": "unauth ok 404 403 404 403",
        "DELETE": "unauth ok 404 403 404 403",
    },
    "api-link-list": {READ: API_LIST, "POST": API_WRITE_OWN},
    "api-link-remove": {"POST": API_WRITE_OWN},
    "api-link-toggle": {"POST": API_WRITE_OWN},
    "api-link-detail": {READ: API_OWN_ROW, "DELETE": "unauth ok 404 403 404 403"},
    "api-phrasealignment-list": {READ: API_LIST, "POST": API_WRITE_OWN},
    "api-phrasealignment-detail": {READ: API_OWN_ROW, "DELETE": "unauth ok 404 403 404 403"},
    "api-unit-list": {READ: API_LIST, "POST": API_LEAD_WRITE},
    "api-unit-assign": {"POST": API_LEAD_WRITE},
    "api-unit-detail": {READ: "unauth ok 404 ok 404 ok"},
    "api-unit-finalize": {"POST": "unauth ok 403 403 404 403"},
    "api-unit-postpone": {"POST": "unauth ok 403 403 404 403"},
    "api-unit-submit-grammaticality": {"POST": "unauth ok 403 403 404 403"},
    "api-judgement-list": {READ: API_LIST, "POST": "unauth ok 403 403 404 403"},
    "api-judgement-detail": {READ: API_OWN_ROW},
    "api-snapshot-list": {READ: API_LIST},
    "api-snapshot-detail": {READ: "unauth 404 404 ok 404 ok"},
    "api-job-list": {READ: API_LIST},
    "api-job-detail": {READ: "unauth 404 404 ok 404 ok"},
    "api-job-import": {"POST": API_LEAD_WRITE},
    "api-job-export": {"POST": API_LEAD_WRITE},
    "api-job-lexicon": {"POST": API_LEAD_WRITE},
    "api-job-cancel": {"POST": "unauth 404 404 ok 404 ok"},
    "api-job-download": {READ: "unauth 404 404 ok 404 ok"},
    # REST API: the lead's tools
    "api-planner-list": {READ: API_LEAD_PROJECT},
    "api-planner-plan": {"POST": API_LEAD_PROJECT},
    "api-planner-reassign": {"POST": API_LEAD_PROJECT},
    "api-explorer-list": {READ: API_LEAD_PROJECT},
    "api-explorer-detail": {READ: API_LEAD_PAIR},
    "api-explorer-cancel": {"POST": API_LEAD_PROJECT},
    "api-explorer-refresh": {"POST": API_LEAD_PROJECT},
    "api-reannotation-list": {READ: API_LEAD_PROJECT, "POST": API_LEAD_PROJECT},
    "api-aligner-list": {READ: API_LEAD_PROJECT, "POST": API_LEAD_PROJECT},
    "api-trees-list": {READ: API_LEAD_PROJECT, "POST": API_LEAD_PROJECT},
    "api-aligner-cancel": {"POST": API_LEAD_PROJECT},
    "api-trees-cancel": {"POST": API_LEAD_PROJECT},
    "api-systems-list": {READ: API_LEAD_PROJECT, "POST": API_LEAD_PROJECT},
    "api-adjudication-list": {READ: API_LEAD_PAIR},
    "api-adjudication-take": {"POST": API_LEAD_PAIR},
    "api-adjudication-merge": {"POST": API_LEAD_PAIR},
    "api-adjudication-label": {"POST": API_LEAD_PAIR},
    "api-gold-phenomenon-list": {"POST": API_LEAD_PAIR},
    "api-gold-phenomenon-detail": {"PATCH": API_LEAD_PAIR, "DELETE": API_LEAD_PAIR},
    "api-gold-link-list": {"POST": API_LEAD_PAIR},
    "api-gold-link-detail": {"DELETE": API_LEAD_PAIR},
    "api-gold-phrasealignment-detail": {"DELETE": API_LEAD_PAIR},
}

# Django's admin: staff only. Its ~140 URLs are one entry: anonymous and non-staff users are sent to a
# login page, staff get anything but a server error (a change page of a missing id redirects, etc.).
ADMIN_NAMESPACE = {READ: "login login login login login any"}


# ---- URLs of the project --------------------------------------------------------------------------


def project_urls() -> Iterator[tuple[str, Any]]:
    """(qualified name, pattern) of every named URL, namespaces included."""

    def walk(patterns: list[Any], namespace: str) -> Iterator[tuple[str, Any]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from walk(pattern.url_patterns, inner)
            elif isinstance(pattern, URLPattern) and pattern.name:
                yield f"{namespace}{pattern.name}", pattern

    yield from walk(get_resolver().url_patterns, "")


def url_params(name: str) -> list[str]:
    """The keyword arguments of a URL name (from the resolver's reverse dictionary)."""
    namespace, _, short = name.rpartition(":")
    resolver = get_resolver()
    for part in filter(None, namespace.split(":")):
        resolver = resolver.namespace_dict[part][1]
    possibilities = resolver.reverse_dict.getlist(short)
    return sorted(
        {param for possibility, *_ in possibilities for _, params in possibility for param in params}
    )


# ---- building requests ----------------------------------------------------------------------------

API_ROW = {
    "project": "project",
    "pair": "pair",
    "assignment": "assignment",
    "pairlabel": "label",
    "phenomenon": "phenomenon",
    "link": "link",
    "phrasealignment": "alignment",
    "unit": "unit",
    "judgement": "judgement",
    "snapshot": "snapshot",
    "job": "job",
}


def targets(world: PermissionWorld, scenario: str, params: list[str]) -> Objects:
    if scenario == "lead_other":
        return world.foreign
    if scenario == "ann_other":
        # a project-level URL: another project; a pair/unit/row-level one: ben's in Alpha
        project_only = bool(params) and set(params) <= {"project_pk", "job_pk", "invitation_pk", "user_pk"}
        return world.foreign if project_only else world.others
    return world.own


def reverse_for(world: PermissionWorld, name: str, scenario: str) -> str:
    params = url_params(name)
    if name.startswith("admin:"):
        return _admin_url(name, params)
    objs = targets(world, scenario, params)
    kwargs: dict[str, Any] = {}
    adjudicating = name.startswith(("annotator:adjudicate", "api-gold-"))
    for param in params:
        if param == "pk":
            kwargs["pk"] = _api_pk(world, name, scenario, objs)
        elif param == "step":
            kwargs["step"] = "grammaticality"
        elif name == "password_reset_confirm":  # a reset link that is not (or no longer) valid
            kwargs[param] = "x"
        elif param == "item_pk":
            kwargs["item_pk"] = objs.item.pk
        elif param == "job_pk":
            kwargs["job_pk"] = objs.job.pk
        elif param in ("tagset_pk", "type_pk", "invitation_pk"):
            kwargs[param] = objs.extra[param.removesuffix("_pk")].pk
        elif param == "anchor":
            kwargs["anchor"] = "do"
        elif param == "token":
            kwargs["token"] = objs.extra["invitation"].token
        elif param == "user_pk":
            kwargs["user_pk"] = objs.assignment.annotator_id
        elif param in ("phenomenon_pk", "link_pk", "alignment_pk"):
            field = {"phenomenon_pk": "phenomenon", "link_pk": "link", "alignment_pk": "alignment"}[param]
            row = getattr(objs, f"gold_{field}") if adjudicating else None
            kwargs[param] = (row or getattr(objs, field)).pk
        else:
            kwargs[param] = getattr(objs, param.removesuffix("_pk")).pk
    return reverse(name, kwargs=kwargs)


def _api_pk(world: PermissionWorld, name: str, scenario: str, objs: Objects) -> int:
    resource = name.split("-")[1]
    if resource == "tagset":
        return world.alpha.tagset_id
    if scenario == "ann_other" and resource in ("project", "snapshot"):
        return getattr(world.foreign, API_ROW[resource]).pk
    return getattr(objs, API_ROW[resource]).pk


def _admin_url(name: str, params: list[str]) -> str:
    values = {"app_label": "annotator", "object_id": "1", "content_type_id": "1", "url": "x"}
    try:
        return reverse(name, kwargs={param: values.get(param, "1") for param in params})
    except Exception:
        return reverse(name, kwargs={param: values.get(param, "1") for param in params if param != "url"})


def _ptype(project: Any) -> int:
    return project.tagset.types.filter(projection_required=False, scope_sides="both").first().pk


BODIES: dict[tuple[str, str], Callable[[Objects, Any], dict[str, Any]]] = {
    ("api-project-list", "POST"): lambda o, u: {"name": "New project"},
    ("api-project-detail", "PATCH"): lambda o, u: {"description": "changed", "language": "ca"},
    ("api-project-members", "POST"): lambda o, u: {"username": "olga", "role": "annotator"},
    ("api-pair-list", "POST"): lambda o, u: {
        "project": o.project.pk,
        "source_id": "new",
        "tokens1": ["a"],
        "tokens2": ["b"],
    },
    ("api-assignment-list", "POST"): lambda o, u: {
        "project": o.project.pk,
        "annotators": ["olga"],
        "pairs": [o.pair.pk],
    },
    ("api-pairlabel-list", "POST"): lambda o, u: {
        "pair": o.pair.pk,
        "label": "non_paraphrase",
        "base_version": None,
    },
    ("api-phenomenon-list", "POST"): lambda o, u: {
        "pair": o.pair.pk,
        "ptype": _ptype(o.project),
        "scope1": [0],
        "scope2": [0],
        "base_version": None,
    },
    ("api-phenomenon-detail", "PATCH"): lambda o, u: {"comment": "changed", "base_version": None},
    ("api-link-list", "POST"): lambda o, u: {"pair": o.pair.pk, "links": [[0, 0]], "base_version": None},
    ("api-link-remove", "POST"): lambda o, u: {"pair": o.pair.pk, "links": [[1, 0]], "base_version": None},
    ("api-link-toggle", "POST"): lambda o, u: {"pair": o.pair.pk, "links": [[1, 0]], "base_version": None},
    ("api-phrasealignment-list", "POST"): lambda o, u: {
        "pair": o.pair.pk,
        "node1": 0,
        "node2": 0,
        "base_version": None,
    },
    ("api-unit-list", "POST"): lambda o, u: {
        "project": o.project.pk,
        "source_id": "new-unit",
        "source_sentence": make.SENTENCE,
        "phrase": make.PHRASE,
        "phrase_start": make.START,
        "phrase_end": make.START + len(make.PHRASE),
        "substitutions": [{"id": "n1", "paraphrase": "delayed"}],
    },
    ("api-unit-assign", "POST"): lambda o, u: {"project": o.project.pk, "raters": ["olga"], "r": 1},
    ("api-judgement-list", "POST"): lambda o, u: {
        "item": o.item.pk,
        "step": "grammaticality",
        "label": "Perfect",
        "base_version": None,
    },
    ("api-token", "POST"): lambda o, u: {"username": getattr(u, "username", "nobody"), "password": PASSWORD},
    ("api-job-import", "POST"): lambda o, u: {
        "project": o.project.pk,
        "format": "mrpc",
        "files": [SimpleUploadedFile("msr_paraphrase_train.txt", mrpc_file(MRPC_ROW))],
    },
    ("api-job-export", "POST"): lambda o, u: {"project": o.project.pk, "format": "native"},
    ("api-job-lexicon", "POST"): lambda o, u: {
        "project": o.project.pk,
        "lexicon_file": SimpleUploadedFile("lex.tsv", LEXICON.encode()),
        "sentence_file": SimpleUploadedFile("s.txt", SENTENCES.encode()),
        "seed": 0,
        "n": 1,
        "per_phrase": 1,
        "preview": "1",
    },
    ("api-planner-plan", "POST"): lambda o, u: {"selection": "all", "per_pair": "everyone", "seed": 1},
    ("api-planner-reassign", "POST"): lambda o, u: {
        "from_user": o.assignment.annotator_id,
        "to_user": _other_annotator(o),
    },
    ("api-reannotation-list", "POST"): lambda o, u: {"rule": "label_disagreement", "seed": 1},
    ("api-aligner-list", "POST"): lambda o, u: {"symmetrize": "intersection"},
    ("api-trees-list", "POST"): lambda o, u: {"parser": "nope"},  # judged (400) without parsing
    ("api-systems-list", "POST"): lambda o, u: {"name": "sys", "format": "pharaoh", "text": "nope\t0-0\n"},
    ("api-adjudication-take", "POST"): lambda o, u: {
        "source": o.assignment.annotator_id,
        "base_version": None,
    },
    ("api-adjudication-merge", "POST"): lambda o, u: {"phenomena": [o.phenomenon.pk], "base_version": None},
    ("api-adjudication-label", "POST"): lambda o, u: {"label": "non_paraphrase", "base_version": None},
    ("api-gold-phenomenon-list", "POST"): lambda o, u: {
        "ptype": _ptype(o.project),
        "scope1": [0],
        "scope2": [0],
        "base_version": None,
    },
    ("api-gold-phenomenon-detail", "PATCH"): lambda o, u: {"comment": "changed", "base_version": None},
    ("api-gold-link-list", "POST"): lambda o, u: {"i": 0, "j": 0, "sure": False, "base_version": None},
}
MULTIPART = {("api-job-import", "POST"), ("api-job-lexicon", "POST")}
MRPC_ROW = ("1", "1", "2", "A cat sat .", "The cat was sitting .")


def _other_annotator(o: Objects) -> int:
    """An annotator of the project other than the one of `o.assignment` (reassignment's target)."""
    from annotator.models import Membership

    return (
        Membership.objects.filter(project=o.project, role="annotator")
        .exclude(user_id=o.assignment.annotator_id)
        .values_list("user_id", flat=True)
        .first()
    )


def _query(world: PermissionWorld, name: str, method: str, scenario: str) -> str:
    """DELETE of an annotation row carries the current version of its sheet (gold rows: the gold's)."""
    if method != "DELETE":
        return ""
    if name.startswith("api-gold-"):
        pair = targets(world, scenario, ["pair_pk"]).pair
        return f"?base_version={adjudication.versions(pair, [])[1].sheet_version}"
    objs = targets(world, scenario, ["pk"])
    row = getattr(objs, API_ROW[name.split("-")[1]])
    return f"?base_version={annotation_services.sheet_version(row.pair, row.annotator)}"


def sessions_of(world: PermissionWorld) -> dict[str, str]:
    """The session cookie of each person who makes requests, signed in once (as `Client.force_login`
    signs in). Every request runs in a transaction that is rolled back, so one that ends or rotates its
    session (logout, a password change) leaves the stored session as it was for the next request."""
    sessions = {}
    for scenario in SCENARIOS:
        user = _user(world, scenario)
        if user is not None and user.username not in sessions:
            client = Client()
            client.force_login(user)
            sessions[user.username] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return sessions


def request(world: PermissionWorld, sessions: dict[str, str], name: str, method: str, scenario: str) -> Any:
    user = _user(world, scenario)
    client = APIClient(raise_request_exception=False)  # a server error is a finding, not a crash
    if user is not None:
        client.cookies[settings.SESSION_COOKIE_NAME] = sessions[user.username]
    url = reverse_for(world, name, scenario) + _query(world, name, method, scenario)
    body_factory = BODIES.get((name, method))
    objs = targets(world, scenario, url_params(name))
    with transaction.atomic():
        if body_factory is not None:
            encoding = "multipart" if (name, method) in MULTIPART else "json"
            response = getattr(client, method.lower())(url, body_factory(objs, user), format=encoding)
        else:
            response = getattr(client, method.lower())(url)
        transaction.set_rollback(True)
    return response


def _user(world: PermissionWorld, scenario: str) -> Any:
    return {
        "anon": None,
        "ann_own": world.users["anna"],
        "ann_other": world.users["anna"],
        "lead_own": world.users["lena"],
        "lead_other": world.users["lena"],
        "admin": world.users["root"],
    }[scenario]


# ---- judging responses ----------------------------------------------------------------------------


def code_of(response: Any, method: str) -> str:
    """The most specific code the response satisfies (for printing the observed table)."""
    status = response.status_code
    location = response.get("Location", "") if 300 <= status < 400 else ""
    if "login" in location:
        return "login"
    if status < 400:
        return "ok"
    return str(status)


def satisfies(response: Any, method: str, expected: str) -> bool:
    status = response.status_code
    location = response.get("Location", "") if 300 <= status < 400 else ""
    if status >= 500:
        return False
    if expected == "any":
        return True
    if expected == "login":
        return "login" in location
    if expected == "ok":
        return (status < 400 and "login" not in location) or (method != READ and status in (400, 409, 422))
    if expected == "unauth":
        return status in (401, 403)
    if expected == "deny":
        return status in (403, 404)
    return str(status) == expected


LEAK_MARKERS = {
    "ann_own": (OTHER_ANNOTATOR, "MARK-ben"),
    "ann_other": (OTHER_ANNOTATOR, "MARK-ben"),
    "lead_own": ("MARK-ben-B",),  # lena leads Alpha only: nothing of Beta, on any URL
    "lead_other": ("MARK-ben-B",),
}


def leaks(response: Any, scenario: str) -> list[str]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8", errors="replace")
    # whole words only: the other annotator's name "ben" inside another word is no leak
    return [
        m for m in LEAK_MARKERS.get(scenario, ()) if re.search(rf"(?<![\w-]){re.escape(m)}(?![\w])", text)
    ]


# ---- the tests ------------------------------------------------------------------------------------


def expectations(name: str) -> dict[str, str] | None:
    if name in TABLE:
        return TABLE[name]
    return ADMIN_NAMESPACE if name.startswith("admin:") else None


def test_every_url_is_in_the_table():
    missing = sorted(name for name, _ in project_urls() if expectations(name) is None)
    assert not missing, (
        "URLs without a row in tests/annotator/test_permission_matrix.py TABLE (decide who may use "
        f"them, then add them): {missing}"
    )
    stale = sorted(set(TABLE) - {name for name, _ in project_urls()})  # admin:* rows included
    assert not stale, f"TABLE rows for URLs that no longer exist: {stale}"


@pytest.fixture
def world(settings) -> PermissionWorld:
    settings.REDIS_URL = ""  # /healthz: in-process mode, independent of the machine's Redis
    return make.permission_world()


def family(name: str) -> str:
    """The part of the matrix a URL is checked in: Django's admin, the REST API, or the pages."""
    if name.startswith("admin:"):
        return "admin"
    return "api" if name.startswith("api-") else "pages"


@pytest.mark.parametrize("urls", ["pages", "api", "admin"])  # three parts, spread over the test workers
def test_permission_matrix(world, urls):
    sessions = sessions_of(world)
    failures, leaked, observed = [], [], []
    for name, _ in project_urls():
        table = expectations(name)
        if table is None or family(name) != urls:
            continue
        for method, row in table.items():
            codes = row.split()
            assert len(codes) == len(SCENARIOS), (name, method, row)
            got = []
            for scenario, expected in zip(SCENARIOS, codes, strict=True):
                response = request(world, sessions, name, method, scenario)
                got.append(code_of(response, method))
                if not satisfies(response, method, expected):
                    failures.append(
                        f"{name} {method} {scenario}: expected {expected}, got {response.status_code}"
                    )
                found = leaks(response, scenario)
                if found:
                    leaked.append(f"{name} {method} {scenario} ({response.status_code}): contains {found}")
            observed.append(f'    "{name}": {{"{method}": "{" ".join(got)}"}},')
    if os.environ.get("MATRIX_PRINT"):
        print("\n".join(observed))
    assert observed, f"no URL of the {urls} part was requested"
    assert not leaked, "responses leak other annotators' or projects' data:\n" + "\n".join(leaked)
    assert not failures, f"{len(failures)} permission mismatches:\n" + "\n".join(failures)
