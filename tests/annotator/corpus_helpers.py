"""Small corpus files for the import/export tests, written the way the real ones are."""

from __future__ import annotations

from typing import Any

from annotator.models import AlignmentLink, AnnotationHistory, Pair, Phenomenon, PhraseAlignment, Project

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
    from django.contrib.auth import get_user_model

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
