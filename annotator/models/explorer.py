from __future__ import annotations

from django.db import models

from annotator.models.corpus import Pair, Project


class ExplorerValue(models.Model):
    """One pair's agreement as the disagreement explorer orders it, for one choice of its filters.

    A pair has a row for the mean over every two annotators who worked on it (`annotators` = "") and
    one per two of them ("a|b"), each for all types (`ptype` = "") and per type someone annotated on it.
    The values are `annotator.leadtools.disagreement.row_value` of the pair's row for that choice; the
    explorer reads one page of them with an index (project, annotators, ptype, value, order), so its
    cost does not grow with the project. Derived data: `annotator.leadtools.explorer_rows` rebuilds
    them from the current annotations.
    """

    project = models.ForeignKey(Project, related_name="+", on_delete=models.CASCADE, db_index=False)
    pair = models.ForeignKey(Pair, related_name="+", on_delete=models.CASCADE)
    order = models.PositiveIntegerField(help_text="The pair's place in the document (ties keep it).")
    source_rank = models.PositiveIntegerField(
        default=0,
        help_text="The pair's place among the project's pairs by source id, code point by code point "
        "(the order of a re-annotation draw's lists).",
    )
    compared_rank = models.PositiveIntegerField(
        null=True,
        help_text="All/all entry of a pair two or more annotators worked on: its place among those pairs "
        "by source id (how a re-annotation draw finds the pairs it picked).",
    )
    label_rank = models.PositiveIntegerField(
        null=True,
        help_text="All/all entry with two or more labels: its place among those pairs ordered by `labels` "
        "(differing first), then source id.",
    )
    do_f1_rank = models.PositiveIntegerField(
        null=True,
        help_text="All/all entry with a DO F1: its place among those pairs ordered by `do_f1`, then source id.",
    )
    annotators = models.CharField(max_length=301, blank=True, help_text='"" = all, or "a|b".')
    ptype = models.CharField(max_length=120, blank=True, help_text='"" = all types, or a type name.')
    do_f1 = models.FloatField(null=True)
    alignment_f1 = models.FloatField(null=True)
    labels = models.FloatField(null=True)
    row = models.JSONField(null=True, help_text="The pair's whole row (on the all/all entry only).")

    class Meta:
        indexes = [
            models.Index(
                fields=["project", "annotators", "ptype", measure, "order"], name=f"explorer_{measure}"
            )
            for measure in ("do_f1", "alignment_f1", "labels")
        ] + [
            models.Index(fields=["project", "pair", "annotators", "ptype"], name="explorer_pair"),
            *(
                models.Index(
                    fields=["project", rank],
                    name=f"explorer_{rank}",
                    condition=models.Q(annotators="", ptype="", **{f"{rank}__isnull": False}),
                )
                for rank in ("compared_rank", "label_rank", "do_f1_rank")
            ),
            models.Index(
                fields=["project", "do_f1", "do_f1_rank"],
                name="explorer_do_f1_threshold",
                condition=models.Q(annotators="", ptype="", do_f1_rank__isnull=False),
            ),
        ]


class ExplorerState(models.Model):
    """What the stored `ExplorerValue` rows of a project were computed from, and their totals."""

    project = models.OneToOneField(Project, related_name="+", on_delete=models.CASCADE)
    source = models.CharField(max_length=200, help_text="The change mark and annotators they reflect.")
    computed_at = models.DateTimeField(auto_now=True)
    annotator_pairs = models.JSONField(default=list)
    types = models.JSONField(default=list)
    counts = models.JSONField(
        default=dict, help_text='annotators → ptype → {"total": n, measure: pairs with a value}.'
    )
    n_compared = models.PositiveIntegerField(default=0, help_text="Pairs two or more annotators worked on.")
    n_labels_differ = models.PositiveIntegerField(
        default=0, help_text="Pairs with two or more labels that differ (all annotators)."
    )
