"""Fujita's lexicon evaluation: units built from paraphrase lexicons and a sentence file, items that
belong to several lexicons with each lexicon's score, precision per lexicon and per union, and
precision against a score threshold (Fujita's Table 4 and Fig. 3; docs/measures.md).

Inputs (UTF-8 text; `#` lines and blank lines are ignored):

- lexicon file: one candidate per line, tab-separated `phrase, paraphrase, score, lexicon` (a header
  line starting with `phrase` is allowed; the score may be empty = not scored);
- sentence file: one sentence per line, tokens separated by spaces.

`plan_units` applies the paper's rule (§5.1): only source phrases with at least N paraphrases in the
union of the chosen lexicons are kept (N = 5 in the paper); for each phrase, up to `per_phrase`
tokens of it are drawn: sentences of 10–30 words that contain it as whole words; for each token, N
paraphrases are drawn from the union, and the unit is that sentence with its N substituted versions.
Draws use `random.Random` seeded by the seed, the phrase and the token, so the same files and seed
always give the same units. An optional selection keeps only the units with at least one paraphrase
from each chosen lexicon (the paper's Data 1) or from one given lexicon (Data 2). An item proposed by
several lexicons is one item linked to each (`LexiconItem`, with that lexicon's score), so union rows
such as P_Raw = P_Del ∪ P_Seed count it once. `build_units` writes the plan, all or nothing, and
records the rule on each lexicon (`Lexicon.builds`); bad input raises a ValidationError naming the
file, line and field, and nothing is written. Both report progress and stop with `BuildCancelled`
(nothing written) when asked to: a build runs as a job (`annotator.evaluation.lexicon_jobs`).

The sentences are indexed by word once (`SentenceIndex`), so finding a phrase's sentences looks only
at the sentences holding its rarest word, not at the whole file.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count

from annotator.core import counts
from annotator.corpus.projects import create_unit
from annotator.evaluation.stats import Labels, PrecisionRow, precision_row, project_labels
from annotator.models import Lexicon, LexiconItem, Project

MIN_WORDS, MAX_WORDS = 10, 30
SENTENCES_PER_PHRASE = 5  # phrase tokens drawn per phrase (the workbench's default)
PARAPHRASES_PER_UNIT = 5  # Fujita §5.1: at least 5 paraphrases per phrase, 5 drawn per token
UNION = " ∪ "
NAME_MAX: int = Lexicon._meta.get_field("name").max_length or 120  # characters of a lexicon's name

Progress = Callable[[int, int], None]  # (done, total)
Cancelled = Callable[[], bool]


class BuildCancelled(Exception):
    """The build was cancelled (its job's cancel); nothing was written."""


@dataclass
class Candidate:
    """A paraphrase of a phrase and the lexicons proposing it (lexicon → score or None)."""

    paraphrase: str
    scores: dict[str, float | None] = field(default_factory=dict)


def parse_lexicon(text: str, filename: str = "lexicon") -> dict[str, dict[str, Candidate]]:
    """phrase → paraphrase → Candidate, in file order; a ValidationError names file, line and field."""
    out: dict[str, dict[str, Candidate]] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("\t")]
        if n == 1 and parts[0].lower() == "phrase":
            continue
        where = f"{filename}:{n}"
        if len(parts) != 4:
            raise ValidationError(
                {
                    "lexicon_file": f"{where}: expected 4 tab-separated fields (phrase, paraphrase, score, "
                    f"lexicon), found {len(parts)}."
                }
            )
        phrase, paraphrase, score_text, lexicon = parts
        for name, value in (("phrase", phrase), ("paraphrase", paraphrase), ("lexicon", lexicon)):
            if not value:
                raise ValidationError({"lexicon_file": f"{where}: {name} is empty."})
        if len(lexicon) > NAME_MAX:
            raise ValidationError(
                {
                    "lexicon_file": f"{where}: lexicon: the name is {len(lexicon)} characters long; "
                    f"at most {NAME_MAX} are allowed."
                }
            )
        if phrase == paraphrase:
            raise ValidationError(
                {"lexicon_file": f"{where}: paraphrase: the same as the phrase {phrase!r}."}
            )
        score: float | None = None
        if score_text:
            try:
                score = float(score_text)
            except ValueError:
                score = math.nan
            if not math.isfinite(score):
                raise ValidationError({"lexicon_file": f"{where}: score: {score_text!r} is not a number."})
        candidate = out.setdefault(phrase, {}).setdefault(paraphrase, Candidate(paraphrase))
        if lexicon in candidate.scores:
            raise ValidationError(
                {"lexicon_file": f"{where}: lexicon: {lexicon!r} lists {phrase!r} → {paraphrase!r} twice."}
            )
        candidate.scores[lexicon] = score
    if not out:
        raise ValidationError({"lexicon_file": f"{filename}: no candidates."})
    return out


def parse_sentences(text: str) -> list[str]:
    """The sentences of the file, one per non-empty line, whitespace normalised."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\S)" + re.escape(" ".join(phrase.split())) + r"(?!\S)")


class SentenceIndex:
    """The sentences of 10–30 words in file order, and for each word the positions of the sentences
    holding it (a phrase's sentences hold each of its words)."""

    def __init__(self, sentences: Iterable[str]) -> None:
        self.fitting: list[str] = []
        self.by_word: dict[str, list[int]] = defaultdict(list)
        for sentence in sentences:
            words = sentence.split()
            if not MIN_WORDS <= len(words) <= MAX_WORDS:
                continue
            for word in set(words):
                self.by_word[word].append(len(self.fitting))
            self.fitting.append(sentence)

    def containing(self, phrase: str) -> list[str]:
        """The sentences that contain `phrase` as whole words, in file order."""
        words = set(phrase.split())
        if not words:
            return []
        rarest = min((self.by_word.get(word, []) for word in words), key=len)
        pattern = _pattern(phrase)
        return [self.fitting[i] for i in rarest if pattern.search(self.fitting[i])]


def sentences_for(
    phrase: str, sentences: Sequence[str] | SentenceIndex, seed: int, k: int = SENTENCES_PER_PHRASE
) -> list[str]:
    """Up to `k` sentences of 10–30 words containing `phrase`, drawn with a generator seeded by
    (`seed`, `phrase`): the same inputs always give the same sentences, in the same order."""
    index = sentences if isinstance(sentences, SentenceIndex) else SentenceIndex(sentences)
    fitting = index.containing(phrase)
    rng = random.Random(f"{seed}\x1f{phrase}")
    return rng.sample(fitting, min(k, len(fitting)))


def paraphrases_for(
    phrase: str, token: int, candidates: Sequence[Candidate], seed: int, n: int = PARAPHRASES_PER_UNIT
) -> list[Candidate]:
    """`n` of the phrase's `candidates` for its `token`-th drawn sentence, drawn with a generator
    seeded by (`seed`, `phrase`, `token`), in the order of the file."""
    rng = random.Random(f"{seed}\x1f{phrase}\x1f{token}")
    chosen = set(rng.sample(range(len(candidates)), min(n, len(candidates))))
    return [c for i, c in enumerate(candidates) if i in chosen]


SELECTIONS = {
    "": "every unit",
    "each": "Data 1: units with at least one paraphrase from each chosen lexicon",
    "given": "Data 2: units with at least one paraphrase from the given lexicon",
}


@dataclass(frozen=True)
class UnitRule:
    """How units are built (stored on each lexicon it built units for, `Lexicon.builds`)."""

    n: int = PARAPHRASES_PER_UNIT
    per_phrase: int = SENTENCES_PER_PHRASE
    seed: int = 0
    lexicons: tuple[str, ...] = ()
    selection: str = ""
    given: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": "fujita-5.1",
            "n": self.n,
            "per_phrase": self.per_phrase,
            "seed": self.seed,
            "lexicons": list(self.lexicons),
            "selection": self.selection,
            "given": self.given,
        }


def describe_rule(build: Mapping[str, Any]) -> str:
    """A stored rule (`UnitRule.as_json` or an older one) in words, for the lexicon page."""
    if build.get("rule") != "fujita-5.1":
        return (
            "every paraphrase of the phrase in each drawn sentence, no minimum number of paraphrases "
            "(an earlier rule, not the paper's; build again to apply the paper's)"
        )
    text = (
        f"Fujita §5.1: phrases with at least {build['n']} paraphrases in "
        f"{' ∪ '.join(build['lexicons'])}; up to {build['per_phrase']} sentence{_s(build['per_phrase'])} per phrase; "
        f"{build['n']} paraphrases drawn per sentence; seed {build['seed']}"
    )
    if build.get("selection") == "each":
        text += "; Data 1 (a paraphrase from each lexicon)"
    elif build.get("selection") == "given":
        text += f"; Data 2 (a paraphrase from {build['given']})"
    return text


@dataclass
class PlannedUnit:
    source_id: str
    sentence: str
    phrase: str
    start: int
    end: int
    candidates: list[Candidate]


@dataclass
class BuildResult:
    """What a build did or would do: the units and why phrases were not used."""

    rule: UnitRule
    lexicons: list[str] = field(default_factory=list)
    planned: list[PlannedUnit] = field(default_factory=list)
    phrases_kept: list[str] = field(default_factory=list)
    phrases_too_few: dict[str, int] = field(default_factory=dict)  # phrase → its paraphrases
    phrases_without_sentences: list[str] = field(default_factory=list)
    units_not_selected: int = 0

    @property
    def units(self) -> int:
        return len(self.planned)

    @property
    def items(self) -> int:
        return sum(len(u.candidates) for u in self.planned)

    def summary(self) -> str:
        """The preview's and the build's message: what is kept and why the rest is not."""
        n_phrases = len(self.phrases_kept) + len(self.phrases_too_few) + len(self.phrases_without_sentences)
        parts = [
            f"{self.units} unit{_s(self.units)} with {self.items} candidate sentence{_s(self.items)} from "
            f"{', '.join(self.lexicons)}: {len(self.phrases_kept)} of {n_phrases} phrase{_s(n_phrases)} kept."
        ]
        if self.phrases_too_few:
            parts.append(
                f"{len(self.phrases_too_few)} with fewer than {self.rule.n} paraphrases: "
                + _examples(f"{p!r} ({n})" for p, n in self.phrases_too_few.items())
                + "."
            )
        if self.phrases_without_sentences:
            parts.append(
                f"{len(self.phrases_without_sentences)} in no sentence of {MIN_WORDS}–{MAX_WORDS} words: "
                + _examples(repr(p) for p in self.phrases_without_sentences)
                + "."
            )
        if self.units_not_selected:
            parts.append(
                f"{self.units_not_selected} drawn unit{_s(self.units_not_selected)} left out by the "
                f"selection ({SELECTIONS[self.rule.selection]})."
            )
        return " ".join(parts)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _examples(texts: Iterable[str], k: int = 5) -> str:
    listed = list(texts)
    return ", ".join(listed[:k]) + ("…" if len(listed) > k else "")


def _selected(candidates: Sequence[Candidate], rule: UnitRule) -> bool:
    names = {name for c in candidates for name in c.scores}
    if rule.selection == "each":
        return set(rule.lexicons) <= names
    if rule.selection == "given":
        return rule.given in names
    return True


def _chosen(
    candidates: dict[str, dict[str, Candidate]], lexicons: Sequence[str]
) -> dict[str, list[Candidate]]:
    """phrase → its candidates restricted to the chosen lexicons (scores of others dropped)."""
    out: dict[str, list[Candidate]] = {}
    for phrase, by_paraphrase in candidates.items():
        kept = [
            Candidate(c.paraphrase, {name: c.scores[name] for name in c.scores if name in lexicons})
            for c in by_paraphrase.values()
        ]
        out[phrase] = [c for c in kept if c.scores]
    return out


def _check_rule(rule: UnitRule, names: Sequence[str]) -> None:
    if rule.n < 1:
        raise ValidationError({"n": "Draw at least one paraphrase per unit."})
    if rule.per_phrase < 1:
        raise ValidationError({"per_phrase": "Draw at least one sentence per phrase."})
    unknown = [name for name in rule.lexicons if name not in names]
    if unknown:
        raise ValidationError(
            {"lexicons": f"{', '.join(unknown)}: not in the lexicon file (it has {', '.join(names)})."}
        )
    if rule.selection not in SELECTIONS:
        raise ValidationError({"selection": f"{rule.selection!r}: not a selection rule."})
    if rule.selection == "given" and rule.given not in (rule.lexicons or names):
        raise ValidationError({"given": f"{rule.given!r}: not one of the chosen lexicons."})


def plan_units(
    lexicon_text: str,
    sentence_text: str,
    rule: UnitRule,
    *,
    lexicon_filename: str = "lexicon",
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> BuildResult:
    """The units the rule (module doc) draws from the files, without writing anything. `progress` hears
    (phrases done, phrases); when `cancelled()` turns true the plan stops with `BuildCancelled`."""
    candidates = parse_lexicon(lexicon_text, lexicon_filename)
    sentences = parse_sentences(sentence_text)
    if not sentences:
        raise ValidationError({"sentence_file": "The sentence file has no sentences."})
    index = SentenceIndex(sentences)
    del sentences
    in_file = sorted({name for by_para in candidates.values() for c in by_para.values() for name in c.scores})
    _check_rule(rule, in_file)
    if not rule.lexicons:
        rule = UnitRule(**{**rule.__dict__, "lexicons": tuple(in_file)})
    result = BuildResult(rule=rule, lexicons=list(rule.lexicons))
    chosen_candidates = _chosen(candidates, rule.lexicons)
    for p_index, (phrase, union) in enumerate(chosen_candidates.items()):
        _checkpoint(p_index, len(chosen_candidates), progress, cancelled)
        if len(union) < rule.n:
            result.phrases_too_few[phrase] = len(union)
            continue
        drawn = sentences_for(phrase, index, rule.seed, rule.per_phrase)
        if not drawn:
            result.phrases_without_sentences.append(phrase)
            continue
        result.phrases_kept.append(phrase)
        for s_index, sentence in enumerate(drawn):
            chosen = paraphrases_for(phrase, s_index, union, rule.seed, rule.n)
            if not _selected(chosen, rule):
                result.units_not_selected += 1
                continue
            match = _pattern(phrase).search(sentence)
            assert match is not None
            source_id = f"s{rule.seed}-p{p_index + 1}-{s_index + 1}"
            result.planned.append(
                PlannedUnit(source_id, sentence, match.group(0), match.start(), match.end(), chosen)
            )
    if progress is not None:
        progress(len(chosen_candidates), len(chosen_candidates))
    return result


def _checkpoint(done: int, total: int, progress: Progress | None, cancelled: Cancelled | None) -> None:
    if progress is not None:
        progress(done, total)
    if cancelled is not None and cancelled():
        raise BuildCancelled("The lexicon build was cancelled; no unit was built.")


@transaction.atomic
def build_units(
    project: Project,
    lexicon_text: str,
    sentence_text: str,
    rule: UnitRule | None = None,
    *,
    lexicon_filename: str = "lexicon",
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> BuildResult:
    """Build the project's units as `plan_units` plans them; all or nothing. `progress` hears (phrases
    planned, phrases), then (units written, units); a cancel stops it (`BuildCancelled`, rolled back)."""
    result = plan_units(
        lexicon_text,
        sentence_text,
        rule or UnitRule(),
        lexicon_filename=lexicon_filename,
        progress=progress,
        cancelled=cancelled,
    )
    if not result.planned:
        raise ValidationError({"sentence_file": "No unit to build. " + result.summary()})
    lexicons = {}
    for name in result.lexicons:
        lexicon = Lexicon.objects.get_or_create(project=project, name=name)[0]
        lexicon.builds = [*lexicon.builds, result.rule.as_json()]
        lexicon.save(update_fields=["builds"])
        lexicons[name] = lexicon
    position = counts.n_units(project)
    links: list[LexiconItem] = []
    for n_written, planned in enumerate(result.planned):
        _checkpoint(n_written, len(result.planned), progress, cancelled)
        unit = create_unit(
            project,
            planned.source_id,
            planned.sentence,
            planned.phrase,
            planned.start,
            planned.end,
            [
                (str(n + 1), c.paraphrase, UNION.join(sorted(c.scores)))
                for n, c in enumerate(planned.candidates)
            ],
            position=position,
        )
        position += 1
        items = {item.paraphrase: item for item in unit.items.all()}
        for c in planned.candidates:
            for name, score in c.scores.items():
                links.append(LexiconItem(lexicon=lexicons[name], item=items[c.paraphrase], score=score))
    LexiconItem.objects.bulk_create(links)
    if progress is not None:
        progress(len(result.planned), len(result.planned))
    return result


@dataclass(frozen=True)
class LexiconRow:
    name: str
    n_items: int
    rules: list[str]


def lexicon_rows(project: Project) -> list[LexiconRow]:
    """Each lexicon of the project, its items and the rules that built its units, in words."""
    rows = Lexicon.objects.filter(project=project).annotate(n_items=Count("entries")).order_by("name")
    return [
        LexiconRow(
            lex.name,
            lex.n_items,
            [describe_rule(b) for b in lex.builds] or ["not recorded (imported with its units)"],
        )
        for lex in rows
    ]


# ---- precision --------------------------------------------------------------------------------------


def item_lexicons(project: Project) -> dict[str, dict[str, float | None]]:
    """Item id (as in `project_labels`) → lexicon → score."""
    out: dict[str, dict[str, float | None]] = defaultdict(dict)
    rows = LexiconItem.objects.filter(lexicon__project=project).values_list(
        "item_id", "lexicon__name", "score"
    )
    for item_id, name, score in rows:
        out[str(item_id)][name] = score
    return dict(out)


def precision_by_lexicon(
    lexicons_of: Mapping[str, Mapping[str, float | None]], labels: Mapping[str, Labels]
) -> list[PrecisionRow]:
    """Fujita's Table 4 by majority: one row per lexicon, then one per union of two or more lexicons
    (an item in several counts once), e.g. "P_Del ∪ P_Seed".

    >>> rows = precision_by_lexicon({"a": {"X": 1.0}, "b": {"X": 0.5, "Y": 0.2}, "c": {"Y": None}},
    ...     {"a": [("Perfect", "Equivalent")], "b": [("Irredeemable", "Equivalent")], "c": [("Perfect", "Equivalent")]})
    >>> [(r.source, r.n_items, r.both) for r in rows]
    [('X', 2, 0.5), ('Y', 2, 0.5), ('X ∪ Y', 3, 0.6666666666666666)]
    """
    names = sorted({name for by_name in lexicons_of.values() for name in by_name})
    rows = []
    for group in _groups(names):
        items = [item for item, by_name in lexicons_of.items() if any(name in by_name for name in group)]
        rows.append(precision_row(UNION.join(group), items, labels))
    return rows


@dataclass(frozen=True)
class ThresholdPoint:
    """Precision of the judged items with score ≥ `threshold`: grammaticality (G2 OK by majority),
    meaning (M2 OK by majority) and both; each over the items with that majority (`n_g`, `n_m`,
    `n_both`); None when no item is left."""

    threshold: float
    n_items: int
    g: float | None
    m: float | None
    both: float | None
    n_g: int
    n_m: int
    n_both: int

    def value(self, measure: str) -> float | None:
        return {"g": self.g, "m": self.m, "both": self.both}[measure]


def _groups(names: Sequence[str]) -> list[tuple[str, ...]]:
    return [group for size in range(1, len(names) + 1) for group in itertools.combinations(names, size)]


def precision_by_threshold(
    lexicons_of: Mapping[str, Mapping[str, float | None]], labels: Mapping[str, Labels]
) -> dict[str, list[ThresholdPoint]]:
    """Fujita's Fig. 3: per lexicon and per union of lexicons, for each distinct score t (descending),
    the precision of its scored items with score ≥ t, for G, M and both (`ThresholdPoint`). An item
    of a union counts once, with the highest score any lexicon of the union gives it."""
    names = sorted({name for by_name in lexicons_of.values() for name in by_name})
    out: dict[str, list[ThresholdPoint]] = {}
    for group in _groups(names):
        scored = []
        for item, by_name in lexicons_of.items():
            scores = [by_name[n] for n in group if by_name.get(n) is not None]
            if scores:
                scored.append((max(s for s in scores if s is not None), item))
        if not scored:
            continue
        points = []
        for t in sorted({score for score, _ in scored}, reverse=True):
            row = precision_row("", [item for score, item in scored if score >= t], labels)
            points.append(
                ThresholdPoint(t, row.n_items, row.g, row.m, row.both, row.n_g, row.n_m, row.n_both)
            )
        out[UNION.join(group)] = points
    return out


def lexicon_precision(project: Project) -> dict[str, Any]:
    """Table 4 rows and Fig. 3 points of the project, before and (after re-evaluation) after."""
    lexicons_of = item_lexicons(project)
    _, before, after = project_labels(project)
    return {
        "lexicons": sorted({name for by_name in lexicons_of.values() for name in by_name}),
        "before": precision_by_lexicon(lexicons_of, before) if lexicons_of else [],
        "after": precision_by_lexicon(lexicons_of, after) if lexicons_of and after is not None else None,
        "threshold": {
            "before": precision_by_threshold(lexicons_of, before),
            "after": precision_by_threshold(lexicons_of, after) if after is not None else None,
        },
    }
