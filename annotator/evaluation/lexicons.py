"""Fujita's lexicon evaluation: units built from a paraphrase lexicon and a sentence file, items that
belong to several lexicons with each lexicon's score, precision per lexicon and per union, and
precision against a score threshold (Fujita et al., Table 4 and Fig. 3).

Inputs (UTF-8 text; `#` lines and blank lines are ignored):

- lexicon file: one candidate per line, tab-separated `phrase, paraphrase, score, lexicon` (a header
  line starting with `phrase` is allowed; the score may be empty = not scored);
- sentence file: one sentence per line, tokens separated by spaces.

`build_units` takes, for each phrase, the sentences of 10–30 words that contain it (as whole words),
draws 5 of them at random with `random.Random` seeded by the seed and the phrase (the same files and
seed always give the same units), and makes one unit per drawn sentence with one item per distinct
paraphrase of the phrase: the sentence with the phrase substituted. An item proposed by several
lexicons is one item linked to each (`LexiconItem`, with that lexicon's score), so union rows such as
P_Raw = P_Del ∪ P_Seed count it once. Bad input raises a ValidationError naming the file, line and
field, and nothing is written.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.core import counts
from annotator.evaluation.services import create_unit
from annotator.evaluation.stats import Labels, PrecisionRow, majority_ok, precision_row, project_labels
from annotator.models import Lexicon, LexiconItem, Project
from metrics.types import G2_OK, M2_OK

MIN_WORDS, MAX_WORDS = 10, 30
SENTENCES_PER_PHRASE = 5
UNION = " ∪ "


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


def sentences_for(
    phrase: str, sentences: Sequence[str], seed: int, k: int = SENTENCES_PER_PHRASE
) -> list[str]:
    """Up to `k` sentences of 10–30 words containing `phrase`, drawn with a generator seeded by
    (`seed`, `phrase`): the same inputs always give the same sentences, in the same order."""
    pattern = _pattern(phrase)
    fitting = [s for s in sentences if MIN_WORDS <= len(s.split()) <= MAX_WORDS and pattern.search(s)]
    rng = random.Random(f"{seed}\x1f{phrase}")
    return rng.sample(fitting, min(k, len(fitting)))


@dataclass
class BuildResult:
    units: int = 0
    items: int = 0
    lexicons: list[str] = field(default_factory=list)
    phrases_without_sentences: list[str] = field(default_factory=list)


@transaction.atomic
def build_units(
    project: Project,
    lexicon_text: str,
    sentence_text: str,
    *,
    seed: int = 0,
    per_phrase: int = SENTENCES_PER_PHRASE,
    lexicon_filename: str = "lexicon",
) -> BuildResult:
    """Build the project's units from a lexicon file and a sentence file (module doc); all or nothing."""
    if per_phrase < 1:
        raise ValidationError({"per_phrase": "Draw at least one sentence per phrase."})
    candidates = parse_lexicon(lexicon_text, lexicon_filename)
    sentences = parse_sentences(sentence_text)
    if not sentences:
        raise ValidationError({"sentence_file": "The sentence file has no sentences."})
    result = BuildResult()
    names = sorted({name for by_para in candidates.values() for c in by_para.values() for name in c.scores})
    lexicons = {name: Lexicon.objects.get_or_create(project=project, name=name)[0] for name in names}
    result.lexicons = names
    position = counts.n_units(project)
    links: list[LexiconItem] = []
    for p_index, (phrase, by_paraphrase) in enumerate(candidates.items()):
        drawn = sentences_for(phrase, sentences, seed, per_phrase)
        if not drawn:
            result.phrases_without_sentences.append(phrase)
            continue
        for s_index, sentence in enumerate(drawn):
            match = _pattern(phrase).search(sentence)
            assert match is not None
            source_id = f"s{seed}-p{p_index + 1}-{s_index + 1}"
            unit = create_unit(
                project,
                source_id,
                sentence,
                match.group(0),
                match.start(),
                match.end(),
                [
                    (str(n + 1), c.paraphrase, UNION.join(sorted(c.scores)))
                    for n, c in enumerate(by_paraphrase.values())
                ],
                position=position,
            )
            position += 1
            result.units += 1
            items = {item.paraphrase: item for item in unit.items.all()}
            for c in by_paraphrase.values():
                for name, score in c.scores.items():
                    links.append(LexiconItem(lexicon=lexicons[name], item=items[c.paraphrase], score=score))
            result.items += len(items)
    if not result.units:
        raise ValidationError(
            {
                "sentence_file": f"No sentence of {MIN_WORDS}–{MAX_WORDS} words contains any phrase of the lexicon."
            }
        )
    LexiconItem.objects.bulk_create(links)
    return result


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
    for size in range(1, len(names) + 1):
        for group in itertools.combinations(names, size):
            items = [item for item, by_name in lexicons_of.items() if any(name in by_name for name in group)]
            rows.append(precision_row(UNION.join(group), items, labels))
    return rows


@dataclass(frozen=True)
class ThresholdPoint:
    threshold: float
    n_items: int
    precision: float | None


def precision_by_threshold(
    lexicons_of: Mapping[str, Mapping[str, float | None]], labels: Mapping[str, Labels]
) -> dict[str, list[ThresholdPoint]]:
    """Fujita's Fig. 3: per lexicon, for each of its distinct scores t (descending), the share of its
    scored items with score ≥ t whose G and M majorities are both OK (items without both labels left
    out; `precision` None when no item is left)."""
    by_lexicon: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for item, by_name in lexicons_of.items():
        pairs = labels.get(item, ())
        g = majority_ok([p[0] for p in pairs], G2_OK)
        m = majority_ok([p[1] for p in pairs], M2_OK)
        if g is None or m is None:
            continue
        for name, score in by_name.items():
            if score is not None:
                by_lexicon[name].append((score, g and m))
    out: dict[str, list[ThresholdPoint]] = {}
    for name in sorted(by_lexicon):
        judged = sorted(by_lexicon[name], key=lambda x: -x[0])
        points = []
        for t in sorted({score for score, _ in judged}, reverse=True):
            kept = [ok for score, ok in judged if score >= t]
            points.append(ThresholdPoint(t, len(kept), sum(kept) / len(kept) if kept else None))
        out[name] = points
    return out


def lexicon_precision(project: Project) -> dict[str, Any]:
    """Table 4 rows (before and, after re-evaluation, after) and Fig. 3 points of the project."""
    lexicons_of = item_lexicons(project)
    _, before, after = project_labels(project)
    return {
        "lexicons": sorted({name for by_name in lexicons_of.values() for name in by_name}),
        "before": precision_by_lexicon(lexicons_of, before) if lexicons_of else [],
        "after": precision_by_lexicon(lexicons_of, after) if lexicons_of and after is not None else None,
        "threshold": precision_by_threshold(lexicons_of, after if after is not None else before),
    }
