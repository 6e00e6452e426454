"""What the annotation editor shows: one annotator's own work on one pair, laid out for the templates.

`EditorState` loads lazily, so a save that re-renders one panel queries only what that panel needs.
Every query is restricted to ``annotator=user, is_gold=False``: an annotator never sees anyone else's
work (blind annotation). The layout helpers are pure functions: the token strips and the geometry of
the two parse trees drawn as SVG.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotator.annotation import phenomenon_suggestions
from annotator.annotation import services as annotation_services
from annotator.annotation.bidi import plain_bidi, visible_bidi
from annotator.annotation.token_display import display_token, display_tokens
from annotator.core.aligner import is_likely, suggested_alignment, suggestion_confidences
from annotator.core.phrase_suggestions import suggested_phrase_alignment
from annotator.models import (
    AlignmentLink,
    Pair,
    PairLabel,
    ParaphraseType,
    Phenomenon,
    PhraseAlignment,
)

# ---- layout: the token strips -------------------------------------------------------------------


def scope_text(tokens: Sequence[str], indices: Sequence[int]) -> str:
    """The scope's words, with "…" where a discontinuous scope skips tokens."""
    parts: list[str] = []
    previous = None
    for i in sorted(indices):
        if previous is not None and i != previous + 1:
            parts.append("…")
        parts.append(display_token(tokens[i]))
        previous = i
    return " ".join(parts)


@dataclass
class Token:
    i: int
    text: str
    aligned: bool = False


def member_tokens(tokens: Sequence[str], aligned: set[int]) -> list[Token]:
    """Tokens of member 1 or 2, each marked aligned or not (the word-alignment layer's highlight)."""
    return [Token(i, text, aligned=i in aligned) for i, text in enumerate(tokens)]


def tokens_html(rows: Sequence[Token]) -> SafeString:
    """The member's token strip. Built here rather than in a template loop: with 60 tokens it is the
    hottest markup of the page and of every phenomenon or link save. The phenomena are drawn under the
    tokens by the editor's script (static/annotation/lanes.js) from the list of phenomena, as labelled lanes.
    """
    parts = []
    for t in rows:
        # role/aria-selected/tabindex: the strip is a listbox the token cursor moves through (the JS
        # sets the selection and the one tab stop per member); the title gives the index and stored value.
        parts.append(
            f'<span class="tok{"" if t.aligned else " un"}" data-i="{t.i}" role="option" aria-selected="false"'
            f' tabindex="{0 if t.i == 0 else -1}" title="{t.i} · {escape(plain_bidi(t.text))}">'
            f"{visible_bidi(display_token(t.text))}</span>"
        )
    return mark_safe("".join(parts))


# ---- layout: parse trees ---------------------------------------------------------------------------

CHAR_W, TOKEN_PAD, TOKEN_GAP, LEVEL_H, TOP = 7.4, 12, 8, 38, 18


def tree_layout(
    nodes: Sequence[dict[str, Any]],
    tokens: Sequence[str],
    aligned: set[int],
    suggested: set[int] | frozenset[int] = frozenset(),
) -> dict[str, Any]:
    """Coordinates for drawing a constituency tree: leaves in a row at the bottom, each node centred
    over its span, one level per depth. Node indices are those of `Pair.nodes1/2` (pre-order)."""
    if not nodes:
        return {}
    centres, x = [], 0.0
    leaves = []
    for k, text in enumerate(tokens):
        width = max(24.0, len(text) * CHAR_W + TOKEN_PAD)
        centres.append(x + width / 2)
        leaves.append({"k": k, "text": display_token(text), "x": round(x + width / 2, 1)})
        x += width + TOKEN_GAP
    max_depth = max(n["depth"] for n in nodes)
    leaf_y = TOP + (max_depth + 1) * LEVEL_H
    laid = []
    for index, node in enumerate(nodes):
        cx = (centres[node["start"]] + centres[node["end"] - 1]) / 2 if node["end"] > node["start"] else 0
        laid.append(
            {
                "i": index,
                "label": node["label"],
                "x": round(cx, 1),
                "y": TOP + node["depth"] * LEVEL_H,
                "w": round(len(node["label"]) * 7.6 + 14, 1),
                "hw": round((len(node["label"]) * 7.6 + 14) / 2, 1),
                "aligned": index in aligned,
                "suggested": index in suggested and index not in aligned,
                "parent": node["parent"],
                "span": scope_text(tokens, range(node["start"], node["end"])),
            }
        )
    edges = [
        (laid[n["parent"]]["x"], laid[n["parent"]]["y"] + 10, laid[i]["x"], laid[i]["y"] - 10)
        for i, n in enumerate(nodes)
        if n["parent"] is not None
    ]
    deepest: dict[int, int] = {}
    for index, node in enumerate(nodes):
        for k in range(node["start"], node["end"]):
            if k not in deepest or nodes[deepest[k]]["depth"] < node["depth"]:
                deepest[k] = index
    for k, index in deepest.items():
        edges.append((laid[index]["x"], laid[index]["y"] + 10, centres[k], leaf_y - 13))
    for leaf in leaves:
        leaf["y"] = leaf_y
    return {
        "width": round(x + 8, 1),
        "height": leaf_y + 14,
        "nodes": laid,
        "leaves": leaves,
        "edges": [tuple(round(v, 1) for v in edge) for edge in edges],
    }


def node_text(nodes: Sequence[dict[str, Any]], tokens: Sequence[str], index: int | None) -> str:
    if index is None:
        return ""
    node = nodes[index]
    return f"{node['label']} · {scope_text(tokens, range(node['start'], node['end']))}"


# ---- the state of one annotator's sheet ------------------------------------------------------------


class EditorState:
    """One annotator's own work on one pair, loaded on first use."""

    def __init__(self, pair: Pair, user: Any) -> None:
        self.pair, self.user, self.project = pair, user, pair.project
        self.mine = {"pair": pair, "annotator": user, "is_gold": False}

    @cached_property
    def sheet(self) -> PairLabel | None:
        return PairLabel.objects.filter(**self.mine).first()

    @property
    def version(self) -> int:
        return self.sheet.version if self.sheet else 0

    @property
    def label(self) -> str:
        return self.sheet.label if self.sheet else ""

    @property
    def comment(self) -> str:
        return self.sheet.comment if self.sheet else ""

    @property
    def phenomena_open(self) -> bool:
        """Whether phenomena may be annotated now (Vila et al.: only once the pair is a paraphrase)."""
        label = self.label if annotation_services.label_gates_phenomena(self.project) else ""  # no query
        return annotation_services.phenomena_open(self.project, label)

    @property
    def stray_phenomena(self) -> bool:
        """Phenomena left on a pair that is (now) labelled non-paraphrase in a paraphrases-only project."""
        return bool(self.phenomena) and not self.phenomena_open and self.project.layer_phenomena

    @cached_property
    def phenomena(self) -> list[Phenomenon]:
        return list(Phenomenon.objects.filter(**self.mine).select_related("ptype").order_by("id"))

    @cached_property
    def phenomenon_rows(self) -> list[dict[str, Any]]:
        t1, t2 = self.pair.tokens1, self.pair.tokens2
        # one reverse for the list, not two per phenomenon (the URL shapes are in editor_urls.py)
        base = reverse("annotator:phenomenon-create", args=[self.pair.project_id, self.pair.pk])
        return [
            {
                "ph": ph,
                "scope1": scope_text(t1, ph.scope1),
                "scope2": scope_text(t2, ph.scope2),
                "key1": scope_text(t1, ph.key1),
                "key2": scope_text(t2, ph.key2),
                "update_url": f"{base}{ph.pk}/",
                "delete_url": f"{base}{ph.pk}/delete/",
            }
            for ph in self.phenomena
        ]

    @cached_property
    def phenomenon_suggestions(self) -> list[dict[str, Any]]:
        """The recommender's phenomena the annotator is offered here (`phenomenon_suggestions.offered`)
        with their words; a model's suggestion below the project's suggestion threshold is not
        ``likely`` (shown faintly, as the aligner's). None while the pair is closed to phenomena."""
        if not self.project.layer_phenomena or not self.phenomena_open:
            return []
        t1, t2 = self.pair.tokens1, self.pair.tokens2
        threshold = self.project.suggestion_threshold
        return [
            {
                **row,
                "text1": scope_text(t1, row["scope1"]),
                "text2": scope_text(t2, row["scope2"]),
                "likely": is_likely(row["score"], threshold),
            }
            for row in phenomenon_suggestions.offered(self.pair, self.user)
        ]

    @cached_property
    def links(self) -> list[tuple[int, int, bool]]:
        return list(
            AlignmentLink.objects.filter(**self.mine).order_by("i", "j").values_list("i", "j", "sure")
        )

    @cached_property
    def _suggested(self) -> tuple[list[list[int]], str]:
        return suggested_alignment(self.pair)

    @property
    def suggestion_source(self) -> str:
        return self._suggested[1]

    @property
    def suggestions(self) -> list[dict[str, Any]]:
        """The automatic links the annotator has not made yet, with their words and confidence, likely
        (shown strongly) when at least the project's threshold (nothing stored)."""
        mine = {(i, j) for i, j, _ in self.links}
        t1, t2 = self.pair.tokens1, self.pair.tokens2
        threshold = self.project.suggestion_threshold
        confidences = suggestion_confidences(self.pair)
        return [
            {
                "i": i,
                "j": j,
                "word1": display_token(t1[i]),
                "word2": display_token(t2[j]),
                "confidence": confidence,
                "likely": is_likely(confidence, threshold),
            }
            for (i, j), confidence in zip(self._suggested[0], confidences, strict=False)
            if (i, j) not in mine and i < len(t1) and j < len(t2)
        ]

    @property
    def links_data(self) -> dict[str, Any]:
        return {
            "links": [[i, j, sure] for i, j, sure in self.links],
            "initial": [list(link) for link in self._suggested[0]],
            "suggested": [[s["i"], s["j"], s["likely"]] for s in self.suggestions],
            # as displayed (the matrix headers, the selection line); indices are what the saves send
            "tokens1": display_tokens(self.pair.tokens1),
            "tokens2": display_tokens(self.pair.tokens2),
        }

    @property
    def n_sure(self) -> int:
        return sum(1 for _, _, sure in self.links if sure)

    @property
    def n_possible(self) -> int:
        return len(self.links) - self.n_sure

    @property
    def n_unaligned(self) -> int:
        a1 = {i for i, _, _ in self.links}
        a2 = {j for _, j, _ in self.links}
        return len(self.pair.tokens1) - len(a1) + len(self.pair.tokens2) - len(a2)

    @cached_property
    def members(self) -> list[dict[str, Any]]:
        aligned1 = {i for i, _, _ in self.links} if self.project.layer_word_alignment else set()
        aligned2 = {j for _, j, _ in self.links} if self.project.layer_word_alignment else set()
        out = []
        for member, tokens, aligned in ((1, self.pair.tokens1, aligned1), (2, self.pair.tokens2, aligned2)):
            rows = member_tokens(tokens, aligned)
            out.append({"n": member, "tokens": rows, "html": tokens_html(rows)})
        return out

    @cached_property
    def types(self) -> list[ParaphraseType]:
        if not self.project.tagset_id:
            return []
        return list(
            ParaphraseType.objects.filter(tagset_id=self.project.tagset_id).order_by("position", "id")
        )

    @property
    def palette(self) -> list[dict[str, Any]]:
        """Types grouped by class, then subclass, in tagset order."""
        groups: dict[str, dict[str, list[ParaphraseType]]] = {}
        for ptype in self.types:
            groups.setdefault(ptype.type_class, {}).setdefault(ptype.subclass, []).append(ptype)
        return [
            {"name": cls, "subclasses": [{"name": sub, "types": types} for sub, types in subs.items()]}
            for cls, subs in groups.items()
        ]

    @property
    def has_trees(self) -> bool:
        return bool(self.pair.nodes1 and self.pair.nodes2)

    @property
    def phrase_layer(self) -> bool:
        return self.project.layer_phrase_alignment and self.has_trees

    @cached_property
    def phrase_alignments(self) -> list[PhraseAlignment]:
        return list(PhraseAlignment.objects.filter(**self.mine).order_by("id"))

    @property
    def phrase_rows(self) -> list[dict[str, Any]]:
        p = self.pair
        return [
            {
                "pa": pa,
                "node1": node_text(p.nodes1, p.tokens1, pa.node1),
                "node2": node_text(p.nodes2, p.tokens2, pa.node2),
            }
            for pa in self.phrase_alignments
        ]

    @cached_property
    def _phrase_suggested(self) -> tuple[list[tuple[int, int]], str]:
        return suggested_phrase_alignment(self.pair)

    @property
    def phrase_suggestion_source(self) -> str:
        return self._phrase_suggested[1]

    @property
    def phrase_suggestions(self) -> list[dict[str, Any]]:
        """The automatic phrase alignments the annotator has not made yet, with their words (nothing stored)."""
        mine = {(pa.node1, pa.node2) for pa in self.phrase_alignments}
        p = self.pair
        return [
            {
                "node1": n1,
                "node2": n2,
                "text1": node_text(p.nodes1, p.tokens1, n1),
                "text2": node_text(p.nodes2, p.tokens2, n2),
            }
            for n1, n2 in self._phrase_suggested[0]
            if (n1, n2) not in mine
        ]

    @property
    def trees(self) -> list[dict[str, Any]]:
        aligned1 = {pa.node1 for pa in self.phrase_alignments if pa.node1 is not None}
        aligned2 = {pa.node2 for pa in self.phrase_alignments if pa.node2 is not None}
        pending = self.phrase_suggestions
        suggested1 = {s["node1"] for s in pending}
        suggested2 = {s["node2"] for s in pending}
        p = self.pair
        return [
            {"n": 1, **tree_layout(p.nodes1, p.tokens1, aligned1, suggested1)},
            {"n": 2, **tree_layout(p.nodes2, p.tokens2, aligned2, suggested2)},
        ]
