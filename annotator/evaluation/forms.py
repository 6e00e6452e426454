"""Forms of the evaluation lead page: build a unit, assign raters, start re-evaluation.

Each form validates what the user typed (saying which line or field is wrong) and hands the clean
values to a service; a service's `ValidationError` comes back onto the form's fields, so nothing the
lead typed is lost.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from annotator import taskqueue
from annotator.core.forms import OwnIds
from annotator.corpus.projects import create_unit
from annotator.corpus.retention import UploadLimitExceeded, UploadTooLarge, check_upload_size
from annotator.evaluation import lexicon_jobs, reevaluation
from annotator.evaluation import services as evaluation
from annotator.evaluation.lexicons import (
    PARAPHRASES_PER_UNIT,
    SELECTIONS,
    SENTENCES_PER_PHRASE,
    UnitRule,
)
from annotator.models import CorpusJob, EvaluationUnit, Membership, Project


def first_errors(exc: Exception) -> str:
    """A ValidationError (or another error) as one readable sentence."""
    if isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            return " ".join(str(m) for messages in exc.message_dict.values() for m in messages)
        return " ".join(str(m) for m in exc.messages)
    return str(exc)


class ServiceForm(forms.Form):
    def add_errors(self, exc: ValidationError) -> None:
        if not hasattr(exc, "error_dict"):
            self.add_error(None, exc)
            return
        for name, errors in exc.message_dict.items():
            self.add_error(name if name in self.fields else None, errors)


UNIT_ID = re.compile(r"^(?P<prefix>\D*?)(?P<number>\d+)$")


def next_unit_id(taken: Iterable[str]) -> str:
    """An id for a new unit in the style of the project's ids: the commonest prefix and width among ids
    of the form prefix + number, numbered after the highest ("u01"…"u04" → "u05"; "u009" → "u010");
    "u001" for a project without such ids."""
    taken = set(taken)
    styles: Counter[tuple[str, int]] = Counter()
    highest: dict[tuple[str, int], int] = {}
    for source_id in taken:
        match = UNIT_ID.match(source_id)
        if match:
            style = (match["prefix"], len(match["number"]))
            styles[style] += 1
            highest[style] = max(highest.get(style, 0), int(match["number"]))
    prefix, width = styles.most_common(1)[0][0] if styles else ("u", 3)
    n = highest.get((prefix, width), 0) + 1
    while f"{prefix}{n:0{width}d}" in taken:
        n += 1
    return f"{prefix}{n:0{width}d}"


def parse_substitutions(text: str) -> list[tuple[str, str]]:
    """One substitution per line: `paraphrase | candidate source` (the source is optional)."""
    out: list[tuple[str, str]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) > 2:
            raise ValidationError(
                f"Line {n}: use one “|” between the paraphrase and its source, not {len(parts) - 1}."
            )
        if not parts[0]:
            raise ValidationError(f"Line {n}: the paraphrase is empty.")
        out.append((parts[0], parts[1] if len(parts) == 2 else ""))
    if not out:
        raise ValidationError("Give at least one substitution, one per line.")
    return out


class UnitForm(ServiceForm):
    source_id = forms.CharField(
        label="Unit id",
        max_length=120,
        required=False,
        help_text="Leave empty for the next free id (u001, u002, …).",
    )
    source_sentence = forms.CharField(label="Source sentence", widget=forms.Textarea(attrs={"rows": 2}))
    phrase = forms.CharField(
        label="Phrase to replace", max_length=400, help_text="Exactly as it appears in the source sentence."
    )
    occurrence = forms.IntegerField(
        label="Occurrence",
        min_value=1,
        initial=1,
        help_text="Which occurrence of the phrase, if it appears more than once.",
    )
    substitutions = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "postponed | lexicon-A\ndelayed | system-X"}),
        help_text="One per line: the paraphrase, then optionally “|” and the lexicon or system it came from.",
    )

    def __init__(self, *args: Any, project: Project, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.project = project

    def clean_substitutions(self) -> list[tuple[str, str]]:
        return parse_substitutions(self.cleaned_data["substitutions"])

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        sentence, phrase, nth = data.get("source_sentence"), data.get("phrase"), data.get("occurrence")
        if sentence and phrase and nth:
            start, found = -1, 0
            while found < nth:
                start = sentence.find(phrase, start + 1)
                if start < 0:
                    raise ValidationError(
                        {"phrase": f"“{phrase}” occurs {found} time(s) in the sentence, not {nth}."}
                    )
                found += 1
            data["phrase_start"] = start
        return data

    def _free_id(self) -> str:
        return next_unit_id(
            EvaluationUnit.objects.filter(project=self.project).values_list("source_id", flat=True)
        )

    def save(self, project: Project) -> str:
        data = self.cleaned_data
        source_id = data["source_id"].strip() or self._free_id()
        start = data["phrase_start"]
        substitutions = [(f"e{k}", p, s) for k, (p, s) in enumerate(data["substitutions"], 1)]
        unit = create_unit(
            project,
            source_id,
            data["source_sentence"],
            data["phrase"],
            start,
            start + len(data["phrase"]),
            substitutions,
        )
        return f"Unit {unit.source_id} built with {len(substitutions)} candidate sentence(s)."


def project_raters(project: Project) -> Any:
    return (
        get_user_model()
        .objects.filter(memberships__project=project, memberships__role=Membership.Role.ANNOTATOR)
        .distinct()
        .order_by("username")
    )


class AssignForm(OwnIds, ServiceForm):
    ids = "assign"
    raters: forms.ModelMultipleChoiceField[User] = forms.ModelMultipleChoiceField(
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        help_text="The project's annotators who rate units.",
    )
    r = forms.IntegerField(label="Raters per unit (r)", min_value=1, initial=3)
    seed = forms.IntegerField(min_value=0, initial=0, help_text="Same seed, same assignment.")

    def __init__(self, *args: Any, project: Project, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.project = project
        raters = self.fields["raters"]
        if not isinstance(raters, forms.ModelMultipleChoiceField):
            raise TypeError("AssignForm.raters is not a model choice field")
        raters.queryset = project_raters(project)
        raters.initial = list(raters.queryset)

    def save(self, project: Project) -> str:
        data = self.cleaned_data
        units = list(project.units.exclude(assignments__round=evaluation.INITIAL_ROUND))
        made = evaluation.assign_units(
            project, list(data["raters"]), r=data["r"], seed=data["seed"], units=units
        )
        if not units:
            return "Every unit already has its raters; nothing to assign."
        return f"{len(units)} unit(s) assigned to {data['r']} raters each ({made} assignments)."


class ReevaluationForm(OwnIds, ServiceForm):
    ids = "reevaluation"
    seed = forms.IntegerField(
        min_value=0, initial=0, help_text="Recorded with the sets; 0 matches the exported report's default."
    )

    def save(self, project: Project) -> str:
        _, judgements = reevaluation.initial_judgements(project)
        if not judgements:
            raise ValidationError("No unit has been finalized yet, so there is nothing to re-evaluate.")
        try:
            # In-process (no broker) the task runs now and a ValidationError is the service's own message.
            taskqueue.enqueue("annotator.build_reevaluation_sets", project.pk, self.cleaned_data["seed"])
        except taskqueue.QueueUnavailable as exc:  # the broker is down: say so, change nothing
            raise ValidationError(f"{exc} Try again shortly.") from exc
        return (
            f"Drawing the re-evaluation sets (seed {self.cleaned_data['seed']}); "
            "raters will find their units at the top of their evaluation queue."
        )


class LexiconBuildForm(OwnIds, ServiceForm):
    ids = "lexicon"
    """Files of Fujita's lexicon evaluation: the lexicon (phrase, paraphrase, score, lexicon; tab-
    separated) and the sentences (one per line); the seed makes the draw reproducible."""

    lexicon_file = forms.FileField(
        label="Lexicon file",
        help_text="One candidate per line: phrase, paraphrase, score, lexicon (tab-separated).",
    )
    sentence_file = forms.FileField(
        label="Sentence file", help_text="One sentence per line, tokens separated by spaces."
    )
    seed = forms.IntegerField(
        initial=0, min_value=0, help_text="The same files and seed give the same units."
    )
    n = forms.IntegerField(
        label="Paraphrases per unit",
        initial=PARAPHRASES_PER_UNIT,
        min_value=1,
        max_value=50,
        help_text="Phrases with fewer paraphrases in the union of the chosen lexicons are left out; "
        "this many are drawn for each sentence (Fujita §5.1: 5).",
    )
    per_phrase = forms.IntegerField(
        label="Sentences per phrase",
        initial=SENTENCES_PER_PHRASE,
        min_value=1,
        max_value=50,
        help_text="Tokens of each phrase drawn from the sentence file (sentences of 10–30 words); one unit each.",
    )
    lexicons = forms.CharField(
        label="Lexicons",
        required=False,
        help_text="Comma-separated names from the lexicon file; empty: all of them.",
    )
    selection = forms.ChoiceField(
        label="Selection",
        required=False,
        choices=[(key, text[:1].upper() + text[1:]) for key, text in SELECTIONS.items()],
    )
    given = forms.CharField(label="Given lexicon (Data 2)", required=False)

    def rule(self) -> UnitRule:
        data = self.cleaned_data
        names = tuple(name.strip() for name in data["lexicons"].split(",") if name.strip())
        return UnitRule(
            n=data["n"],
            per_phrase=data["per_phrase"],
            seed=data["seed"],
            lexicons=names,
            selection=data["selection"],
            given=data["given"].strip(),
        )

    def upload(self, name: str) -> tuple[str, bytes]:
        upload = self.cleaned_data[name]
        return upload.name, upload.read()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        files = [data[name] for name in ("lexicon_file", "sentence_file") if data.get(name)]
        try:
            check_upload_size(sum(f.size for f in files))
        except UploadTooLarge as exc:
            self.add_error("lexicon_file", str(exc))
        return data

    def start(self, user: Any, project: Project, *, preview: bool = False) -> CorpusJob:
        """Start the build (or its preview) as a job (`lexicon_jobs.start_build`); the build's errors of a
        job that ran within the request come back onto the form's fields."""
        try:
            job = lexicon_jobs.start_build(
                user,
                project,
                self.upload("lexicon_file"),
                self.upload("sentence_file"),
                self.rule(),
                preview=preview,
            )
        except (UploadLimitExceeded, UploadTooLarge) as exc:
            raise ValidationError({"lexicon_file": str(exc)}) from exc
        if job.status == CorpusJob.Status.FAILED:
            raise ValidationError(
                job.report.get("errors") or job.report.get("summary") or "The build failed."
            )
        return job
