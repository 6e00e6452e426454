"""Admin pages for every model (user management comes from django.contrib.auth)."""

from django.contrib import admin

from annotator import models


class TypeInline(admin.TabularInline):
    model = models.ParaphraseType
    extra = 0


@admin.register(models.Tagset)
class TagsetAdmin(admin.ModelAdmin):
    list_display = ["name", "builtin", "owner", "created_at"]
    inlines = [TypeInline]


@admin.register(models.ParaphraseType)
class ParaphraseTypeAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "code",
        "tagset",
        "type_class",
        "subclass",
        "projection_required",
        "keys_allowed",
        "scope_sides",
        "colour",
        "shortcut",
    ]
    list_filter = ["tagset", "type_class"]
    search_fields = ["name", "code"]


class MembershipInline(admin.TabularInline):
    model = models.Membership
    extra = 1


@admin.register(models.Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "tagset", "phase", "created_at"]
    inlines = [MembershipInline]


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "role"]
    list_filter = ["project", "role"]


@admin.register(models.Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ["source_id", "project", "position", "text1"]
    list_filter = ["project"]
    search_fields = ["source_id", "text1", "text2"]


@admin.register(models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["annotator", "project", "pair", "unit", "phase", "round", "status", "time_spent"]
    list_filter = ["project", "status", "phase"]
    raw_id_fields = ["pair", "unit"]


class AnnotationAdmin(admin.ModelAdmin):
    list_filter = ["is_gold", "annotator"]
    raw_id_fields = ["pair"]


@admin.register(models.PairLabel)
class PairLabelAdmin(AnnotationAdmin):
    list_display = ["pair", "annotator", "label", "is_gold", "version", "updated_at"]


@admin.register(models.Phenomenon)
class PhenomenonAdmin(AnnotationAdmin):
    list_display = ["pair", "annotator", "ptype", "scope1", "scope2", "projection", "is_gold", "version"]


@admin.register(models.AlignmentLink)
class AlignmentLinkAdmin(AnnotationAdmin):
    list_display = ["pair", "annotator", "i", "j", "sure", "is_gold"]


@admin.register(models.PhraseAlignment)
class PhraseAlignmentAdmin(AnnotationAdmin):
    list_display = ["pair", "annotator", "node1", "node2", "sure", "is_gold"]


@admin.register(models.AnnotationHistory)
class AnnotationHistoryAdmin(admin.ModelAdmin):
    list_display = ["at", "model", "object_id", "action", "owner", "actor", "project"]
    list_filter = ["model", "action", "project"]
    readonly_fields = [f.name for f in models.AnnotationHistory._meta.fields]

    def has_change_permission(self, request, obj=None):  # history is append-only
        return False


class ItemInline(admin.TabularInline):
    model = models.EvaluationItem
    extra = 0


@admin.register(models.EvaluationUnit)
class EvaluationUnitAdmin(admin.ModelAdmin):
    list_display = ["source_id", "project", "phrase"]
    list_filter = ["project"]
    inlines = [ItemInline]


@admin.register(models.EvaluationItem)
class EvaluationItemAdmin(admin.ModelAdmin):
    list_display = ["source_id", "unit", "paraphrase", "candidate_source"]


@admin.register(models.Judgement)
class JudgementAdmin(admin.ModelAdmin):
    list_display = ["item", "rater", "step", "phase", "label", "version", "updated_at"]
    list_filter = ["step", "phase", "rater"]


@admin.register(models.ReevaluationSet)
class ReevaluationSetAdmin(admin.ModelAdmin):
    list_display = ["project", "rater", "viewpoint", "seed", "created_at"]


@admin.register(models.AgreementSnapshot)
class AgreementSnapshotAdmin(admin.ModelAdmin):
    list_display = ["project", "computed_at", "scope", "fingerprint", "duration_ms"]
    list_filter = ["project", "scope"]


@admin.register(models.AgreementState)
class AgreementStateAdmin(admin.ModelAdmin):
    list_display = ["project", "changed_at", "started_at", "finished_at", "enqueue_failed"]


@admin.register(models.CorpusJob)
class CorpusJobAdmin(admin.ModelAdmin):
    list_display = ["kind", "format", "project_name", "status", "progress", "total", "created_at"]
    list_filter = ["kind", "status"]
