"""The one test world: one cast of users and builders of the data shapes the suites need (`make.desk()`,
`make.team()`, …; import the module as `from tests import make`).

Everything is made through the services (accounts by `annotator.accounts.services.create_account`,
projects by `annotator.projects.services.create_project`, pairs and assignments by
`annotator.corpus.projects`, and the editor's, the evaluation's and the lead tools' services), so tests
take the same paths as users, password validators included. The cast is the same in every suite:

    admin       root   staff; no project
    lead        lena   leads the main project of every shape
    other_lead  otto   leads another project
    anna, ben, cat     annotators (and raters of evaluation units)
    outsider    olga   a user in no project of the shape at hand
    raters(n)   rater1…raterN, for evaluation rounds that need more raters

The shapes, each built on the cast:

    two_projects()  Alpha (lena leads; anna and ben annotate its pairs) and Beta (otto leads; ben's):
                    the API's, the pages' and, as desk() with three pairs, the editor's world
    team()          "Lead tools": anna, ben and cat partly agree on purpose (the lead tools' world);
                    partly_agree() gives any project's three annotators the agreement measures' data
    evaluation_project(), unit(), rate_unit()   evaluation units and their judgements (the raters')
    permission_world()   both projects with marked data of every kind (the permission matrix)

`cast()` makes the cast on first use and returns the same users afterwards, so a test may ask for the
`cast` fixture and also build a shape (which uses the same people). People a single test needs beyond
the cast (a deleted user, a newcomer) are made with `user(name)`.

Passwords hash fast in every test: tests/conftest.py overrides PASSWORD_HASHERS for the whole session.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Model
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.accounts import services as accounts
from annotator.agreement import changes, computation
from annotator.annotation import services as annotation_services
from annotator.core.tagsets import VILA_NAME, install_builtin_tagsets
from annotator.corpus import projects
from annotator.corpus.projects import create_unit
from annotator.evaluation import services as evaluation
from annotator.leadtools import adjudication, explorer_rows
from annotator.models import (
    AgreementSnapshot,
    AlignmentLink,
    AnnotationHistory,
    Assignment,
    CorpusJob,
    EvaluationUnit,
    Judgement,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
    Project,
    Tagset,
)
from annotator.projects import members, tagsets
from annotator.projects import services as project_setup

PASSWORD = "test-pass-123"
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# ---- the cast -------------------------------------------------------------------------------------

CAST = {
    "admin": "root",
    "lead": "lena",
    "other_lead": "otto",
    "anna": "anna",
    "ben": "ben",
    "cat": "cat",
    "outsider": "olga",
}


def user(username: str, *, staff: bool = False) -> Any:
    """A user made the way the workbench makes them (password PASSWORD); the same one if it exists."""
    existing = get_user_model().objects.filter(username=username).first()
    return existing or accounts.create_account(username, PASSWORD, is_admin=staff)


@dataclass(frozen=True)
class Cast:
    admin: Any
    lead: Any
    other_lead: Any
    anna: Any
    ben: Any
    cat: Any
    outsider: Any

    @property
    def annotators(self) -> tuple[Any, Any, Any]:
        return (self.anna, self.ben, self.cat)


def raters(n: int) -> list[Any]:
    """rater1 … rater<n>: the rater set of evaluation rounds that need more people than the cast."""
    return [user(f"rater{k + 1}") for k in range(n)]


def cast() -> Cast:
    return Cast(**{role: user(name, staff=role == "admin") for role, name in CAST.items()})


def fresh(world: Any) -> Any:
    """`world` with every model instance in it read again from the database (in a dict, a list, a tuple
    or a dataclass's fields): a test's own copies of a world built once for its module
    (`module_world` in tests/conftest.py), so what one test changes on an instance is not seen by the
    next."""
    if isinstance(world, Model):
        return type(world)._default_manager.get(pk=world.pk)
    if isinstance(world, dict):
        return {key: fresh(value) for key, value in world.items()}
    if isinstance(world, list | tuple):
        return type(world)(fresh(value) for value in world)
    if dataclasses.is_dataclass(world) and not isinstance(world, type):
        return dataclasses.replace(
            world, **{f.name: fresh(getattr(world, f.name)) for f in dataclasses.fields(world) if f.init}
        )
    return world


# ---- clients --------------------------------------------------------------------------------------


def api_client(person: Any | None) -> APIClient:
    """A REST client authenticated the way a script is (`Authorization: Token …`), or anonymous."""
    client = APIClient()
    if person is not None:
        token, _ = Token.objects.get_or_create(user=person)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def logged_in(person: Any | None) -> Client:
    """A browser-like client with a session for `person` (anonymous for None)."""
    client = Client()
    if person is not None:
        client.force_login(person)
    return client


def isolate_cache(settings: Any) -> None:
    """A private in-memory cache for the test: job progress/cancel flags and recompute keys of one
    test (keyed by ids that the next test reuses) never reach another, and no shared Redis is touched."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    }


@contextlib.contextmanager
def held_elsewhere(name: str) -> Iterator[None]:
    """Hold the job `name`'s lock (`annotator.corpus.run_once`) as a live run on another worker does:
    PostgreSQL, the advisory lock of a second database session; SQLite in a file, a flock through a
    descriptor of its own; an in-memory database, this process's record (the only process there is)."""
    from django.db import connection

    from annotator.corpus import run_once

    if connection.vendor == "postgresql":
        session = connection.get_new_connection(connection.get_connection_params())
        try:
            session.autocommit = True
            session.execute("SELECT pg_advisory_lock(%s, %s)", run_once.lock_ids(name))
            yield
            # released before the session closes: the server frees a closed session's locks only when its
            # backend has ended, which a claim made at once may not yet see
            session.execute("SELECT pg_advisory_unlock(%s, %s)", run_once.lock_ids(name))
        finally:
            session.close()
    elif connection.vendor == "sqlite" and not connection.is_in_memory_db():
        path = run_once.lock_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
    else:
        with run_once.hold(name) as held:
            assert held
            yield


@contextlib.contextmanager
def eager_tasks() -> Iterator[None]:
    """Run Celery tasks in-process (as the embedded default does) even when REDIS_URL points at a broker,
    for tests of pages that enqueue a task but have no worker of their own."""
    from celery import current_app

    before = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    try:
        yield
    finally:
        current_app.conf.task_always_eager = before


@contextlib.contextmanager
def batched_agreement() -> Iterator[None]:
    """Saves inside the block tell the agreement pipeline only that their projects changed (each
    save's own sums still move, as in the service, and a change of the whole project is recorded);
    the recompute is enqueued once per project at the end, as after a bulk load
    (`annotator.agreement.changes.batched`). Where tasks run in-process (transactional tests) that is
    one agreement computation per project instead of one per save."""
    with changes.batched() as touched:
        yield
    for project_id in sorted(touched):
        transaction.on_commit(functools.partial(changes.enqueue_recompute, project_id))


def sign_in(page: Any, live_server: Any, person: Any, password: str = PASSWORD) -> None:
    """Sign `person` (a user or a username) in through the login form of a browser page (tests/browser)."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", person if isinstance(person, str) else person.username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def signed_in(page: Any, live_server: Any, person: Any) -> None:
    """Give a browser page's context the session of `person` (a user or a username) without the login
    form: the session is made as a sign-in makes it (`Client.force_login`) and its cookie set for the
    live server. For tests where being signed in is the precondition; `sign_in` goes through the form.
    The page stays where it is (the next `goto` opens as that person)."""
    from django.conf import settings

    who = get_user_model().objects.get(username=person) if isinstance(person, str) else person
    client = Client()
    client.force_login(who)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": value, "url": live_server.url}])


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot artifact under artifacts/screenshots/."""
    path = Path(__file__).resolve().parent.parent / "artifacts" / "screenshots" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    return path


# ---- projects with pairs --------------------------------------------------------------------------


def vila() -> Tagset:
    return Tagset.objects.get(name=VILA_NAME)


def types(project: Project) -> dict[str, ParaphraseType]:
    """The project's paraphrase types by name."""
    return {t.name: t for t in ParaphraseType.objects.filter(tagset=project.tagset)}


def project_with_pairs(
    name: str = "P", *, n_pairs: int = 2, lead: Any = None, annotators: tuple[Any, ...] = (), **fields: Any
) -> Project:
    """A project on the Vila tagset with `n_pairs` small pairs, each assigned to every annotator."""
    project = project_setup.create_project(lead, name=name, tagset=vila(), **fields)
    pairs = [
        projects.add_pair(
            project,
            f"p{n + 1}",
            tokens1=["The", "film", "opened", "on", "Friday", "."],
            tokens2=["Film", "premiered", "Friday", "."],
            tree1="(S (NP (DT The) (NN film)) (VP (VBD opened) (PP (IN on) (NNP Friday))) (. .))",
            tree2="(S (NP (NN Film)) (VP (VBD premiered) (NP (NNP Friday))) (. .))",
            initial_alignment=[[1, 0], [4, 2], [5, 3]],
        )
        for n in range(n_pairs)
    ]
    if annotators:
        projects.assign_pairs(project, annotators, pairs)
    return project


def long_pair(project: Project, annotators: tuple[Any, ...], *, n_tokens: int = 60) -> Pair:
    """A pair of two n-token members with some words in common (for size-independence checks)."""
    tokens1 = [f"w{k % 17}" for k in range(n_tokens)]
    tokens2 = [f"w{(k * 7) % 19}" for k in range(n_tokens)]
    pair = projects.add_pair(
        project, f"long{n_tokens}", tokens1=tokens1, tokens2=tokens2, initial_alignment=[]
    )
    projects.assign_pairs(project, annotators, [pair])
    return pair


def fill(pair: Pair, person: Any, ptype: ParaphraseType, *, n_phenomena: int, n_links: int) -> int:
    """Give the person n phenomena and n sure links on the pair through the services; returns the version."""
    version = annotation_services.set_pair_label(pair, person, "paraphrase", base_version=None)
    for k in range(n_phenomena):
        _, version = annotation_services.add_phenomenon(
            pair, person, ptype, scope1=[k, k + 2], scope2=[k + 1], projection="local", base_version=None
        )
    links = [(k, (k * 3) % len(pair.tokens2)) for k in range(n_links)]
    return annotation_services.set_links(pair, person, links, sure=True, base_version=None)


# ---- shape 1: two projects (the world of the API, the editor and the pages) ----------------------


@dataclass
class TwoProjects:
    """Alpha (lead lena; anna and ben annotate its pairs) and Beta (lead otto; ben annotates it)."""

    lead: Any
    other_lead: Any
    anna: Any
    ben: Any
    admin: Any
    outsider: Any
    project: Project
    other_project: Project

    @cached_property
    def pair(self) -> Pair:
        """Alpha's first pair."""
        return self.project.pairs.order_by("position").first()

    def any_ptype(self) -> ParaphraseType:
        """A type without projection that takes scopes in both members (e.g. Diathesis)."""
        return (
            ParaphraseType.objects.filter(
                tagset=self.project.tagset, scope_sides="both", projection_required=False
            )
            .order_by("position")
            .first()
        )

    def projected_ptype(self) -> ParaphraseType:
        return ParaphraseType.objects.filter(tagset=self.project.tagset, projection_required=True).first()

    @cached_property
    def types(self) -> dict[str, ParaphraseType]:
        """Alpha's paraphrase types by name."""
        return types(self.project)


def two_projects(n_pairs: int = 2, **project_fields: Any) -> TwoProjects:
    """Alpha (n_pairs pairs, layers as `project_fields` say) and Beta; see TwoProjects."""
    # transactional tests flush the data migration's built-in tagsets: put them back (idempotent)
    install_builtin_tagsets(Tagset, ParaphraseType)
    c = cast()
    project = project_with_pairs(
        "Alpha", n_pairs=n_pairs, lead=c.lead, annotators=(c.anna, c.ben), **project_fields
    )
    other = project_with_pairs("Beta", n_pairs=1, lead=c.other_lead, annotators=(c.ben,))
    return TwoProjects(c.lead, c.other_lead, c.anna, c.ben, c.admin, c.outsider, project, other)


def annotate_marked(world: TwoProjects, person: Any, marker: int = 3) -> None:
    """Give `person` a phenomenon, a link and a pair label on the first pair, all through the services."""
    pair = world.pair
    ptype = world.any_ptype()
    _, version = annotation_services.add_phenomenon(
        pair, person, ptype, scope1=[marker], scope2=[1], base_version=0, comment=f"note-of-{person.username}"
    )
    version = annotation_services.set_links(pair, person, [(marker, 1)], sure=False, base_version=version)
    annotation_services.set_pair_label(pair, person, "paraphrase", base_version=version)


# ---- the editor's requests (htmx saves) ----------------------------------------------------------

HTMX = {"HTTP_HX_REQUEST": "true"}


def desk(**project_fields: Any) -> TwoProjects:
    """The editor's world: two projects with Alpha's layers set by `project_fields` and three pairs
    (the editor tests step through a queue); `desk.pair` is the first."""
    return two_projects(n_pairs=3, **project_fields)


def url(name: str, pair: Pair, *extra: Any) -> str:
    """An editor URL of the pair (`annotator:<name>`)."""
    return reverse(f"annotator:{name}", args=[pair.project_id, pair.pk, *extra])


def version(pair: Pair, person: Any) -> int:
    return annotation_services.sheet_version(pair, person)


def save(
    client: Client, name: str, pair: Pair, person: Any, data: dict[str, Any], *extra: Any, **kw: Any
) -> Any:
    """POST a save as the editor does: htmx headers and the current sheet version (unless given)."""
    payload = {"base_version": version(pair, person), **data}
    return client.post(url(name, pair, *extra), payload, **{**HTMX, **kw})


# ---- shape 2: a team that partly agrees (the lead tools' world) -----------------------------------
#
# Pairs (tokens "The film opened on Friday ." / "Film premiered Friday ."):
# - p1, p4…: everyone agrees (label paraphrase, Same polarity opened→premiered, the same links);
# - p2: the labels differ (ben says non-paraphrase) and ben has no phenomenon;
# - p3: the phenomena differ (ben: Semantics over "opened on"; cat: Same polarity, global) and ben
#   misses the link film→Film.

LINKS = [(1, 0), (2, 1), (4, 2), (5, 3)]


def annotate(
    project: Project, person: Any, source_id: str, *, label: str, phenomena: list[tuple], links: list
) -> None:
    """Label, phenomena (name, scope1, scope2, projection) and sure links of one pair, as the editor saves."""
    pair = project.pairs.get(source_id=source_id)
    t = types(project)
    annotation_services.set_pair_label(pair, person, label, base_version=None)
    for name, s1, s2, projection in phenomena:
        annotation_services.add_phenomenon(
            pair, person, t[name], scope1=s1, scope2=s2, projection=projection, base_version=None
        )
    if links:
        annotation_services.set_links(pair, person, links, sure=True, base_version=None)


AGREE = {"label": "paraphrase", "phenomena": [("Same polarity", [2], [1], "local")], "links": LINKS}
PLAN: dict[str, dict[str, dict[str, Any]]] = {
    "p2": {
        "anna": AGREE,
        "ben": {"label": "non_paraphrase", "phenomena": [], "links": LINKS},
        "cat": AGREE,
    },
    "p3": {
        "anna": AGREE,
        "ben": {
            "label": "paraphrase",
            "phenomena": [("Semantics", [2, 3], [1], "local")],
            "links": LINKS[1:],
        },
        "cat": {"label": "paraphrase", "phenomena": [("Same polarity", [2], [1], "global")], "links": LINKS},
    },
}


def team(n_pairs: int = 4, **fields: Any) -> dict[str, Any]:
    """Project "Lead tools" (lead lena; anna, ben, cat annotate it per PLAN) and "Other" (lead otto;
    anna's). Keys: project, other, lead, other_lead, admin, anna, ben, cat."""
    c = cast()
    project = project_with_pairs(
        "Lead tools", n_pairs=n_pairs, lead=c.lead, annotators=c.annotators, **fields
    )
    other = project_with_pairs("Other", n_pairs=1, lead=c.other_lead, annotators=(c.anna,))
    people = {"anna": c.anna, "ben": c.ben, "cat": c.cat}
    with batched_agreement():
        for n in range(1, n_pairs + 1):
            sid = f"p{n}"
            for name, person in people.items():
                annotate(project, person, sid, **PLAN.get(sid, {}).get(name, AGREE))
    # the explorer's rows, as the agreement computation that follows these saves has them refreshed
    # (a test inside one transaction commits nothing, so no computation follows it there)
    explorer_rows.refresh(project)
    return {
        "project": project,
        "other": other,
        "lead": c.lead,
        "other_lead": c.other_lead,
        "admin": c.admin,
        **people,
    }


def partly_agree(project: Project, annotators: tuple[Any, Any, Any]) -> None:
    """Three annotators who partly agree on every pair of `project` (the agreement measures' data):
    scopes differ on odd pairs (the second annotator) and on p4 (the third), the second has no
    Diathesis on p2 and labels p3 non-paraphrase, the third has one more sure link, and the link
    5→3 is possible where a scope differs. The saves are batched as a bulk load's are
    (`batched_agreement`): where tasks run in-process, one agreement computation follows them all."""
    first, second, third = annotators
    vila_types = types(project)
    with batched_agreement():
        for n, pair in enumerate(project.pairs.order_by("position")):
            for who, shift in ((first, 0), (second, n % 2), (third, 1 if n == 3 else 0)):
                annotation_services.add_phenomenon(
                    pair,
                    who,
                    vila_types["Synthetic/analytic"],
                    scope1=[0, 1][: 2 - shift],
                    scope2=[0],
                    projection="local",
                    base_version=None,
                )
                if who is not second or n != 1:
                    annotation_services.add_phenomenon(
                        pair, who, vila_types["Diathesis"], scope1=[2], scope2=[1], base_version=None
                    )
                links = [(1, 0), (4, 2)] if who is not third else [(1, 0), (2, 1), (4, 2)]
                annotation_services.set_links(pair, who, links, sure=True, base_version=None)
                annotation_services.set_links(pair, who, [(5, 3)], sure=shift == 0, base_version=None)
                label = "non_paraphrase" if (who is second and n == 2) else "paraphrase"
                annotation_services.set_pair_label(pair, who, label, base_version=None)


# ---- shape 3: evaluation units (the raters' world) ------------------------------------------------

SENTENCE = "The council put off the vote until Monday."
PHRASE = "put off"
START = SENTENCE.index(PHRASE)
SUBSTITUTIONS = [
    ("e1", "postponed", "lexicon-A"),
    ("e2", "delayed", "lexicon-B"),
    ("e3", "put away", "system-X"),
]


def unit(
    project: Project, source_id: str = "u1", substitutions: list[tuple[str, str, str]] | None = None
) -> EvaluationUnit:
    return create_unit(
        project, source_id, SENTENCE, PHRASE, START, START + len(PHRASE), substitutions or SUBSTITUTIONS
    )


def evaluation_project(
    name: str = "E", *, n_units: int = 1, raters: tuple[Any, ...] = (), lead: Any = None, r: int | None = None
) -> Project:
    """A project with the evaluation layer, `n_units` units and every unit given to r (default all) raters."""
    project = project_setup.create_project(
        lead,
        name=name,
        layer_evaluation=True,
        layer_pair_label=False,
        layer_phenomena=False,
        layer_word_alignment=False,
    )
    for n in range(n_units):
        unit(project, f"u{n + 1}", [(f"u{n + 1}e{k}", p, s) for k, (_, p, s) in enumerate(SUBSTITUTIONS, 1)])
    if raters:
        evaluation.assign_units(project, raters, r=r or len(raters), seed=0)
    return project


def rate_unit(unit: EvaluationUnit, rater: Any, g: str | list[str], m: str | list[str]) -> None:
    """Judge every item of the unit (G labels, submit, M labels, finalize) as a rater would."""
    items = list(unit.items.all())
    gs = g if isinstance(g, list) else [g] * len(items)
    ms = m if isinstance(m, list) else [m] * len(items)
    labels = {item.source_id: (gl, ml) for item, gl, ml in zip(items, gs, ms, strict=True)}
    evaluation.rate_unit(unit, rater, labels)


# ---- shape 4: marked data for the permission matrix -----------------------------------------------
#
# Project Alpha (lead lena): pair p1 assigned to anna and ben, pair p2 to ben only; unit u1 rated by
# both, u2 by ben only. Project Beta (lead otto): pair q1 and unit v1, ben's. Every annotation carries
# a marker naming its owner and project (`MARK-<user>-<project>`) in its comments, so a response can be
# searched for data that must never reach its reader.

SCENARIOS = ("anon", "ann_own", "ann_other", "lead_own", "lead_other", "admin")
OTHER_ANNOTATOR = CAST["ben"]


@dataclass
class Objects:
    """The objects a scenario's URLs point at."""

    project: Project
    pair: Pair
    unit: EvaluationUnit
    phenomenon: Phenomenon
    link: AlignmentLink
    alignment: PhraseAlignment
    label: PairLabel
    assignment: Assignment
    judgement: Judgement
    job: CorpusJob
    snapshot: AgreementSnapshot
    gold_phenomenon: Phenomenon | None
    gold_link: AlignmentLink | None
    gold_alignment: PhraseAlignment | None
    item: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class PermissionWorld:
    users: dict[str, Any]  # by username
    alpha: Project
    beta: Project
    own: Objects  # what anna works on in Alpha (also the lead's and admin's target)
    others: Objects  # ben's work in Alpha that anna must not reach
    foreign: Objects  # Beta, which lena does not lead and anna does not belong to


def mark(pair: Pair, person: Any, marker: str) -> None:
    """A phenomenon, a link, a phrase alignment, a label and a comment, each carrying `marker`."""
    ptype = ParaphraseType.objects.filter(
        tagset=pair.project.tagset, scope_sides="both", projection_required=False
    ).first()
    annotation_services.add_phenomenon(
        pair, person, ptype, scope1=[1], scope2=[0], comment=f"{marker} phenomenon", base_version=None
    )
    annotation_services.set_links(pair, person, [(1, 0)], sure=True, base_version=None)
    annotation_services.add_phrase_alignment(pair, person, 1, 1, base_version=None)
    annotation_services.set_pair_label(pair, person, "paraphrase", base_version=None)
    annotation_services.set_comment(pair, person, f"{marker} comment", base_version=None)


def first_of(model: type, pair: Pair, person: Any, *, gold: bool = False) -> Any:
    return model.objects.filter(pair=pair, annotator=person, is_gold=gold).order_by("pk").first()


def scenario_objects(
    project: Project, pair: Pair, unit: EvaluationUnit, person: Any, creator: Any
) -> Objects:
    gold_owner = adjudication.gold_owner(pair)
    return Objects(
        project=project,
        pair=pair,
        unit=unit,
        item=unit.items.order_by("position").first(),
        phenomenon=first_of(Phenomenon, pair, person),
        link=first_of(AlignmentLink, pair, person),
        alignment=first_of(PhraseAlignment, pair, person),
        label=first_of(PairLabel, pair, person),
        assignment=Assignment.objects.filter(pair=pair, annotator=person).first(),
        judgement=Judgement.objects.filter(rater=person, item__unit__project=project).order_by("pk").first(),
        job=CorpusJob.objects.filter(project=project, created_by=creator).first(),
        snapshot=computation.latest_snapshot(project),
        gold_phenomenon=first_of(Phenomenon, pair, gold_owner, gold=True) if gold_owner else None,
        gold_link=first_of(AlignmentLink, pair, gold_owner, gold=True) if gold_owner else None,
        gold_alignment=first_of(PhraseAlignment, pair, gold_owner, gold=True) if gold_owner else None,
    )


def permission_world() -> PermissionWorld:
    install_builtin_tagsets(Tagset, ParaphraseType)
    c = cast()
    anna, ben, lena, otto = c.anna, c.ben, c.lead, c.other_lead
    layers = {"layer_phrase_alignment": True, "layer_evaluation": True}
    alpha = project_with_pairs("Alpha", n_pairs=2, lead=lena, **layers)
    beta = project_with_pairs("Beta", n_pairs=1, lead=otto, **layers)
    p1, p2 = alpha.pairs.order_by("position")
    q1 = beta.pairs.get()
    projects.assign_pairs(alpha, [anna, ben], [p1])
    projects.assign_pairs(alpha, [ben], [p2])
    projects.assign_pairs(beta, [ben], [q1])
    with batched_agreement():  # both projects are recomputed below
        mark(p1, anna, "MARK-anna-A")
        mark(p1, ben, "MARK-ben-A")
        mark(p2, ben, "MARK-ben-A2")
        mark(q1, ben, "MARK-ben-B")
    u1, u2 = unit(alpha, "u1"), unit(alpha, "u2")
    v1 = unit(beta, "v1")
    evaluation.assign_units(alpha, [anna, ben], r=2, units=[u1])
    evaluation.assign_units(alpha, [ben], r=1, units=[u2])
    evaluation.assign_units(beta, [ben], r=1, units=[v1])
    for person, label in ((anna, "Perfect"), (ben, "Awkward")):
        evaluation.record_judgement(
            u1.items.order_by("position").first(), person, "grammaticality", label=label
        )
    evaluation.record_judgement(v1.items.order_by("position").first(), ben, "grammaticality", label="Awkward")
    adjudication.take_version(p1, anna, lena, base_version=None)
    adjudication.take_version(q1, ben, otto, base_version=None)
    for project, lead in ((alpha, lena), (beta, otto)):
        output = Path(tempfile.mkdtemp(prefix="matrix-export-")) / f"{project.name}.jsonl"
        output.write_text("{}\n")
        # a finished export job, as the export task leaves it (no service makes one without a worker run)
        CorpusJob.objects.create(
            kind="export",
            format="native",
            project=project,
            project_name=project.name,
            created_by=lead,
            status="succeeded",
            output_file=str(output),
        )
    computation.recompute(alpha.pk)
    computation.recompute(beta.pk)
    users = {u.username: u for u in (anna, ben, lena, otto, c.admin, c.outsider)}
    world = PermissionWorld(
        users=users,
        alpha=alpha,
        beta=beta,
        own=scenario_objects(alpha, p1, u1, anna, lena),
        others=scenario_objects(alpha, p2, u2, ben, lena),
        foreign=scenario_objects(beta, q1, v1, ben, otto),
    )
    _setup_objects(world)
    return world


def _setup_objects(world: PermissionWorld) -> None:
    """Each project's own editable copy of its tagset and a valid invitation link (project set-up URLs)."""
    by_project = {}
    for project, lead in ((world.alpha, world.users["lena"]), (world.beta, world.users["otto"])):
        copy = tagsets.clone_tagset(project.tagset, lead, name=f"{project.name} copy")
        invitation = members.create_invitation(project, "annotator", lead, note="MATRIX")
        by_project[project.pk] = {"tagset": copy, "type": copy.types.first(), "invitation": invitation}
    for objs in (world.own, world.others, world.foreign):
        objs.extra.update(by_project[objs.project.pk])


# ---- corpus files (written the way the real ones are) ---------------------------------------------

MRPC_HEADER = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n"


def mrpc_file(*rows: tuple[str, str, str, str, str]) -> bytes:
    """A training-set MRPC file: BOM, CRLF, tab-separated."""
    return (MRPC_HEADER + "".join("\t".join(row) + "\r\n" for row in rows)).encode("utf-8")


TWO_ROWS = mrpc_file(
    (
        "1",
        "702876",
        "702977",
        'Amrozi accused his brother, whom he called "the witness", of lying.',
        'Referring to him as only "the witness", Amrozi accused his brother of lying.',
    ),
    (
        "0",
        "2108705",
        "2108831",
        "Yucaipa owned Dominick's before selling the chain to Safeway in 1998.",
        "Yucaipa bought Dominick's in 1995 and sold it to Safeway in 1998.",
    ),
)


def relation(
    pair_id: str,
    type_id: str,
    *,
    s1: str = "",
    s2: str = "",
    s1_text: str = "",
    s2_text: str = "",
    k1: str = "",
    k2: str = "",
    k1_text: str = "",
    k2_text: str = "",
    sense: str = "yes",
) -> str:
    """One ETPC `<relation>` element."""

    def el(name: str, value: str) -> str:
        return f"<{name}>{value}</{name}>" if value else f"<{name}/>"

    return (
        "<relation>"
        + el("pair_id", pair_id)
        + el("type_id", type_id)
        + el("type_name", "x")
        + el("sense_preserving", sense)
        + el("s1_scope", s1)
        + el("s2_scope", s2)
        + el("s1_text", s1_text)
        + el("s2_text", s2_text)
        + el("key_s1", k1)
        + el("key_s2", k2)
        + el("k1_text", k1_text)
        + el("k2_text", k2_text)
        + "</relation>\n"
    )


def relations_file(*relations: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<xml>\n' + "".join(relations) + "</xml>\n").encode()


def counts() -> dict[str, int]:
    """Row counts of everything an import may write (to prove a failed import wrote nothing)."""
    models: list[Any] = [
        Project,
        Pair,
        Phenomenon,
        AlignmentLink,
        PhraseAlignment,
        AnnotationHistory,
        get_user_model(),
    ]
    return {m.__name__: m.objects.count() for m in models}
