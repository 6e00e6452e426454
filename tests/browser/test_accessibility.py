"""axe-core on every page of the app, as the demo shows them: no critical and no serious violation.

The pages are derived from the URLconf: every named URL is either checked here (`PAGES`, as the person
who uses it) or listed in `NOT_PAGES` with the reason it is no page (an action that only takes POST,
a download, a redirect, a JSON endpoint). `test_every_named_url_is_checked_or_said_to_be_no_page`
fails when a new URL appears in neither, and `test_post_only_urls_refuse_get` holds the claim that
the POST-only ones are no GET page. The editor's tabs are checked in test_annotation_keyboard.py; here
also the states of the evaluation cards (an open question, a follow-up, a saved label) and of the
import/export jobs (a finished and a failed one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotator.corpus import jobs as corpus_jobs
from annotator.models import Assignment, CorpusJob, EvaluationUnit, Pair, ParaphraseType, Project
from annotator.projects import members, tagsets
from tests import make
from tests.browser.axe import axe_violations, describe

pytestmark = [pytest.mark.django_db(transaction=True)]
browser = pytest.mark.browser

ANONYMOUS = ""


@dataclass
class Demo:
    typed: Project
    rated: Project
    pair: Pair
    unit: EvaluationUnit  # finalized by anna
    open_unit: EvaluationUnit  # chloe has not rated it yet
    tagset_pk: int
    type_pk: int
    invitation: str
    reset: tuple[str, str]
    done_job: CorpusJob
    failed_job: CorpusJob


URL = Callable[[Demo], str]


def r(name: str, *args: Callable[[Demo], Any]) -> URL:
    return lambda d: reverse(name, args=[a(d) for a in args])


def typed(d: Demo) -> int:
    return d.typed.pk


def rated(d: Demo) -> int:
    return d.rated.pk


def pair(d: Demo) -> int:
    return d.pair.pk


def unit(d: Demo) -> int:
    return d.unit.pk


# Every page: URL name → (who looks at it, its URLs in the states worth checking).
PAGES: dict[str, tuple[str, list[URL]]] = {
    "login": (ANONYMOUS, [r("login")]),
    "password_reset": (ANONYMOUS, [r("password_reset")]),
    "password_reset_done": (ANONYMOUS, [r("password_reset_done")]),
    "password_reset_confirm": (ANONYMOUS, [lambda d: reverse("password_reset_confirm", args=d.reset)]),
    "password_reset_complete": (ANONYMOUS, [r("password_reset_complete")]),
    "annotator:invitation-accept": (
        ANONYMOUS,
        [lambda d: reverse("annotator:invitation-accept", args=[d.invitation])],
    ),
    "password_change": ("anna", [r("password_change")]),
    "password_change_done": ("anna", [r("password_change_done")]),
    "annotator:account": ("anna", [r("annotator:account")]),
    "annotator:home": ("lena", [r("annotator:home")]),
    "annotator:project-detail": (
        "lena",
        [r("annotator:project-detail", typed), r("annotator:project-detail", rated)],
    ),
    "annotator:security": ("admin", [r("annotator:security")]),
    "annotator:user-create": ("admin", [r("annotator:user-create")]),
    "annotator:project-create": ("lena", [r("annotator:project-create")]),
    "annotator:project-settings": ("lena", [r("annotator:project-settings", typed)]),
    "annotator:project-members": ("lena", [r("annotator:project-members", typed)]),
    "annotator:tagset-list": ("lena", [r("annotator:tagset-list")]),
    "annotator:tagset-detail": (
        "lena",
        [
            r("annotator:tagset-detail", lambda d: d.tagset_pk),
            r("annotator:tagset-detail", lambda d: d.typed.tagset_id),
        ],
    ),
    "annotator:project-guidelines": ("lena", [r("annotator:project-guidelines", typed)]),
    "annotator:pair-list": ("lena", [r("annotator:pair-list", typed)]),
    "annotator:pair-tokens": ("lena", [r("annotator:pair-tokens", typed, pair)]),
    "annotator:queue": ("anna", [r("annotator:queue", typed)]),
    "annotator:pair-edit": ("anna", [r("annotator:pair-edit", typed, pair)]),
    "annotator:rating-queue": ("anna", [r("annotator:rating-queue", rated)]),
    "annotator:unit-grammaticality": ("anna", [r("annotator:unit-grammaticality", rated, unit)]),
    "annotator:unit-meaning": ("anna", [r("annotator:unit-meaning", rated, unit)]),
    "annotator:unit-reevaluation": ("anna", [r("annotator:unit-reevaluation", rated, unit)]),
    "annotator:evaluation-setup": ("lena", [r("annotator:evaluation-setup", rated)]),
    "annotator:evaluation-lexicons": ("lena", [r("annotator:evaluation-lexicons", rated)]),
    "annotator:dashboard": ("lena", [r("annotator:dashboard", typed), r("annotator:dashboard", rated)]),
    "annotator:measure-explanation": (
        "lena",
        [lambda d: reverse("annotator:measure-explanation", args=["tpo"])],
    ),
    "annotator:corpus-jobs": ("lena", [r("annotator:corpus-jobs", typed)]),
    "annotator:corpus-report-print": ("lena", [r("annotator:corpus-report-print", typed)]),
    "annotator:corpus-import": ("admin", [r("annotator:corpus-import")]),
    "annotator:planner": ("lena", [r("annotator:planner", typed)]),
    "annotator:explorer": ("lena", [r("annotator:explorer", typed)]),
    "annotator:explorer-pair": ("lena", [r("annotator:explorer-pair", typed, pair)]),
    "annotator:reannotation": ("lena", [r("annotator:reannotation", typed)]),
    "annotator:adjudicate": ("lena", [r("annotator:adjudicate", typed, pair)]),
}

# URL names that are no page to check, with the reason.
POST_ONLY = {
    "logout",
    "annotator:explorer-refresh",
    "annotator:dashboard-intervals",
    "annotator:corpus-job-delete",
    "annotator:account-token-issue",
    "annotator:account-token-revoke",
    "annotator:security-unlock",
    "annotator:project-tagset-clone",
    "annotator:member-add",
    "annotator:member-create",
    "annotator:member-roles",
    "annotator:member-remove",
    "annotator:invitation-create",
    "annotator:invitation-revoke",
    "annotator:tagset-create",
    "annotator:tagset-clone",
    "annotator:type-create",
    "annotator:type-update",
    "annotator:type-delete",
    "annotator:guidelines-acknowledge",
    "annotator:pair-label",
    "annotator:pair-comment",
    "annotator:phenomenon-create",
    "annotator:phenomenon-update",
    "annotator:phenomenon-delete",
    "annotator:link-add",
    "annotator:link-remove",
    "annotator:link-toggle",
    "annotator:link-accept",
    "annotator:phrase-suggestion-accept",
    "annotator:phenomenon-suggestion-accept",
    "annotator:phenomenon-suggestion-reject",
    "annotator:phrase-alignment-add",
    "annotator:phrase-alignment-remove",
    "annotator:pair-undo",
    "annotator:pair-redo",
    "annotator:pair-postpone",
    "annotator:pair-done",
    "annotator:pair-time",
    "annotator:unit-grammaticality-submit",
    "annotator:unit-finalize",
    "annotator:unit-postpone",
    "annotator:unit-reevaluation-finish",
    "annotator:judgement-save",
    "annotator:dashboard-pin",
    "annotator:corpus-export",
    "annotator:corpus-job-cancel",
    "annotator:corpus-trees",
    "annotator:corpus-trees-remove",
    "annotator:corpus-trees-redo",
    "annotator:pair-trees-remove",
    "annotator:planner-reassign",
    "annotator:adjudicate-take",
    "annotator:adjudicate-merge",
    "annotator:adjudicate-label",
    "annotator:adjudicate-phenomenon-add",
    "annotator:adjudicate-phenomenon-update",
    "annotator:adjudicate-phenomenon-remove",
    "annotator:adjudicate-link-set",
    "annotator:adjudicate-link-remove",
    "annotator:adjudicate-phrase-remove",
}
NOT_PAGES: dict[str, str] = {
    **dict.fromkeys(POST_ONLY, "takes only POST (test_post_only_urls_refuse_get)"),
    "annotator:healthz": "the health check answers JSON",
    "annotator:corpus-job-download": "a file download",
    "annotator:corpus-job-report": "a file download (the job's report; the jobs page shows each job)",
    "annotator:pair-next": "a redirect to the next pair's editor",
    "annotator:pair-previous": "a redirect to the previous pair's editor",
    # htmx fragments: the page that shows them is checked (the dashboard loads its statistics panel)
    "annotator:dashboard-statistics": "a fragment of annotator:dashboard",
    "annotator:corpus-aligner": "a fragment of annotator:corpus-jobs",
    "annotator:corpus-systems": "a fragment of annotator:corpus-jobs",
    "annotator:project-recommender": "a fragment of annotator:corpus-jobs",
    # third-party pages whose markup we do not write (Swagger UI, Redoc, DRF's browsable API): axe finds
    # <html> without lang and contrast problems in them; not fixed here
    "api-docs": "Swagger UI (drf-spectacular), third-party markup",
    "api-redoc": "Redoc (drf-spectacular), third-party markup",
    "api-root": "DRF's browsable API, third-party markup",
}


def no_page_reason(name: str) -> str | None:
    """Why the URL named `name` is not checked by axe (None: it must be in PAGES)."""
    if name in NOT_PAGES:
        return NOT_PAGES[name]
    if name.startswith("api-"):
        return "a REST API endpoint (JSON)"
    return None


def named_urls() -> dict[str, dict[str, Any]]:
    """Every named URL of the URLconf (namespaced, except the Django admin's) → its path converters."""

    def walk(patterns: list[Any], namespace: str, converters: dict[str, Any]) -> dict[str, dict[str, Any]]:
        names: dict[str, dict[str, Any]] = {}
        for p in patterns:
            if isinstance(p, URLResolver):
                if p.namespace != "admin":
                    inner = namespace + (f"{p.namespace}:" if p.namespace else "")
                    names |= walk(p.url_patterns, inner, converters | p.pattern.converters)
            elif isinstance(p, URLPattern) and p.name:
                names[namespace + p.name] = converters | p.pattern.converters
        return names

    return walk(get_resolver().url_patterns, "", {})


def test_every_named_url_is_checked_or_said_to_be_no_page():
    names = set(named_urls())
    unknown = {n for n in names - set(PAGES) if no_page_reason(n) is None}
    assert not unknown, f"URL names neither checked by axe (PAGES) nor listed in NOT_PAGES: {sorted(unknown)}"
    stale = (set(PAGES) | set(NOT_PAGES)) - names
    assert not stale, f"PAGES/NOT_PAGES name URLs that no longer exist: {sorted(stale)}"


@pytest.mark.django_db
def test_post_only_urls_refuse_get():
    """GET is refused (405) before any object is looked up, so made-up ids do."""
    admin = make.user("root", staff=True)
    client = Client()
    client.force_login(admin)
    urls = named_urls()
    allowed = {}
    for name in sorted(POST_ONLY):
        kwargs = {k: 1 if isinstance(c, IntConverter) else "x" for k, c in urls[name].items()}
        allowed[name] = client.get(reverse(name, kwargs=kwargs)).status_code
    assert {name: status for name, status in allowed.items() if status != 405} == {}


# ---- the demo, with what the pages need to show every state ----------------------------------------


BROKEN_MRPC = b"Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n7\tabc\t\tonly one sentence\r\n"


def demo_world() -> Demo:
    call_command("load_demo", verbosity=0)
    users = {u.username: u for u in get_user_model().objects.all()}
    typed_project = Project.objects.filter(pairs__isnull=False).distinct().order_by("pk").first()
    rated_project = Project.objects.filter(units__isnull=False).distinct().order_by("pk").first()
    assert typed_project and rated_project
    lena = users["lena"]
    clone = tagsets.clone_tagset(typed_project.tagset, lena, name="Demo types (copy)")
    done = corpus_jobs.start_import(
        lena, "mrpc", typed_project.name, [("train.txt", make.TWO_ROWS)], project=typed_project
    )
    failed = corpus_jobs.start_import(
        lena, "mrpc", typed_project.name, [("train.txt", BROKEN_MRPC)], project=typed_project
    )
    done.refresh_from_db()
    failed.refresh_from_db()
    assert done.status == CorpusJob.Status.SUCCEEDED, done.report
    assert failed.status == CorpusJob.Status.FAILED and failed.report, failed.report
    rating = Assignment.objects.filter(unit__isnull=False, round=0).order_by("queue_position", "pk")
    # the demo's raters have rated all their units: chloe gets a new one to walk through
    open_unit = make.evaluation_project("Open questions", raters=(users["chloe"],)).units.get()
    anna_unit = rating.filter(annotator=users["anna"], step="finalized").first().unit
    anna = users["anna"]
    return Demo(
        typed=typed_project,
        rated=rated_project,
        pair=Pair.objects.filter(project=typed_project).order_by("position", "pk").first(),
        unit=anna_unit,
        open_unit=open_unit,
        tagset_pk=clone.pk,
        type_pk=ParaphraseType.objects.filter(tagset=clone).order_by("pk").first().pk,
        invitation=members.create_invitation(typed_project, "annotator", lena).token,
        reset=(urlsafe_base64_encode(force_bytes(anna.pk)), default_token_generator.make_token(anna)),
        done_job=done,
        failed_job=failed,
    )


@pytest.fixture
def demo(settings, eager_celery):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return demo_world()


def log_in(page, live_server, name: str) -> None:
    page.context.clear_cookies()
    if name == ANONYMOUS:
        return
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-demo-pass")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


ID_AND_LABEL_PROBLEMS = """() => {
  const problems = [];
  const counts = new Map();
  for (const el of document.querySelectorAll("[id]")) counts.set(el.id, (counts.get(el.id) || 0) + 1);
  for (const [id, n] of counts) if (n > 1) problems.push(`id "${id}" ${n} times`);
  const controls = "input:not([type=hidden]), select, textarea, button, meter, output, progress";
  for (const label of document.querySelectorAll("label")) {
    const inner = label.querySelector(controls);
    if (!label.htmlFor) continue;
    const target = document.getElementById(label.htmlFor);
    if (!target) problems.push(`label "${label.textContent.trim()}" for="${label.htmlFor}": no such element`);
    else if (!target.matches(controls)) problems.push(`label for="${label.htmlFor}": not a control`);
    else if (inner && inner !== target) problems.push(`label for="${label.htmlFor}" wraps another control`);
    else if (label.closest("form") && target.form !== label.closest("form"))
      problems.push(`label for="${label.htmlFor}" points into another form`);
  }
  return problems;
}"""


def check(page, where: str, problems: list[str]) -> None:
    violations = axe_violations(page)
    if violations:
        problems.append(f"{where}\n{describe(violations)}")


@browser
def test_every_page_has_no_axe_violations_unique_ids_and_labels_that_point_at_their_own_control(
    page, live_server, demo
):
    """Each page, opened once as the person who uses it: no critical or serious axe violation; two
    forms on one page never share an element id, and clicking a label focuses its own control."""
    violations: list[str] = []
    ids_and_labels: list[str] = []
    by_person: dict[str, list[tuple[str, str]]] = {}
    for name, (who, urls) in PAGES.items():
        by_person.setdefault(who, []).extend((name, url(demo)) for url in urls)
    for who, visits in by_person.items():
        log_in(page, live_server, who)
        for name, path in visits:
            response = page.goto(live_server.url + path)
            assert response.status == 200, (name, path, response.status)
            page.wait_for_load_state("networkidle")
            check(page, f"{path} ({name}, as {who or 'anonymous'})", violations)
            ids_and_labels += [f"{path} ({name}): {p}" for p in page.evaluate(ID_AND_LABEL_PROBLEMS)]
            if name == "annotator:corpus-jobs":  # a finished job and a failed one with its problems
                assert page.locator(f"#job-{demo.failed_job.pk} ul.problems li").count() > 0
                assert page.locator(f"#job-{demo.done_job.pk}").is_visible()
    assert not violations, "axe:\n" + "\n".join(violations)
    assert not ids_and_labels, "ids and labels:\n" + "\n".join(ids_and_labels)


def settled(page) -> None:
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def answer(page, card: str, option: str) -> None:
    with page.expect_response(lambda resp: resp.request.method == "POST"):
        page.locator(f"#{card} button.answer", has_text=re.compile(f"^{re.escape(option)}$")).click()
    settled(page)


@browser
def test_evaluation_steps_in_every_state_have_no_critical_or_serious_axe_violations(page, live_server, demo):
    """chloe's open unit: the first questions, a follow-up, a saved label, the unit ready to submit; then
    step 2 the same way; then a label being changed in anna's re-evaluation."""
    unit_pk, project_pk = demo.open_unit.pk, demo.open_unit.project_id
    items = list(demo.open_unit.items.order_by("position", "pk"))
    problems: list[str] = []
    log_in(page, live_server, "chloe")
    response = page.goto(
        f"{live_server.url}/projects/{project_pk}/evaluation/units/{unit_pk}/grammaticality/"
    )
    assert response.status == 200
    check(page, "step 1, open questions", problems)
    first = f"judgement-{items[0].pk}-grammaticality"
    answer(page, first, "No")
    check(page, "step 1, a follow-up question", problems)
    answer(page, first, "Yes")
    answer(page, first, "Yes, one edit")
    check(page, "step 1, a saved label", problems)
    for item in items[1:]:
        answer(page, f"judgement-{item.pk}-grammaticality", "No")
        answer(page, f"judgement-{item.pk}-grammaticality", "No")
    page.wait_for_function("!document.querySelector('#unit-actions button.primary').disabled")
    check(page, "step 1, every sentence judged", problems)
    with page.expect_navigation():
        page.locator("#unit-actions button.primary").click()
    check(page, "step 2, open questions", problems)
    first = f"judgement-{items[0].pk}-meaning"
    answer(page, first, "Yes")
    check(page, "step 2, a follow-up question", problems)
    answer(page, first, "No")
    answer(page, first, "Yes")
    for item in items[1:]:
        answer(page, f"judgement-{item.pk}-meaning", "No")
    page.wait_for_function("!document.querySelector('#unit-actions button.primary').disabled")
    check(page, "step 2, every sentence judged", problems)

    log_in(page, live_server, "anna")  # re-evaluation: a label being changed, with "Keep …"
    page.goto(f"{live_server.url}/projects/{demo.rated.pk}/evaluation/units/{demo.unit.pk}/reevaluation/")
    with page.expect_response(lambda resp: resp.request.method == "POST"):
        page.locator(".judgement").first.get_by_role("button", name="Change").click()
    settled(page)
    assert page.locator(".judgement fieldset.question").count() == 1
    check(page, "re-evaluation, changing a label", problems)
    assert not problems, "\n".join(problems)
