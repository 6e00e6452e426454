"""Forms of the corpus area: upload (import) and export. They parse; the rules are the services'
(`corpus.jobs.start_import`, `corpus.exports.check_options`), whose errors views put back on the form."""

from __future__ import annotations

from typing import Any

from django import forms

from annotator.core.forms import OwnIds
from annotator.corpus.exports import FORMATS as EXPORT_FORMATS
from annotator.corpus.retention import UploadTooLarge, check_upload_size
from annotator.corpus.services import FORMATS as IMPORT_FORMATS
from annotator.models import Project, Tagset

IMPORT_LABELS = {
    "mrpc": "MRPC TSV (msr_paraphrase_*.txt)",
    "etpc": "ETPC XML (typology, relations; with MRPC .txt or text_pairs.xml for the pairs)",
    "native": "Native JSON / JSON Lines (a workbench export)",
    "ptb": "Parse trees (pair id, member, PTB bracketed tree per line)",
    "pharaoh": "Word alignments, Pharaoh style (i-j sure, i?j possible)",
    "units": "Evaluation units (CSV or JSONL)",
}
EXPORT_LABELS = {
    "native": "Native JSON (everything; re-analysable with python -m metrics report)",
    "etpc": "ETPC-style XML of one annotator or the gold layer",
    "csv": "Phenomena as CSV",
    "pharaoh": "Word alignments, Pharaoh style",
    "report": "Agreement report",
    "jsonl": "Flat JSON Lines: one record per pair and annotator (pandas, datasets)",
    "conll": "CoNLL-style tokens with phenomena and alignments (one annotator or gold)",
}


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        files = data if isinstance(data, list | tuple) else [data]
        return [super(MultipleFileField, self).clean(f, initial) for f in files if f] or super().clean(None)


class ImportForm(forms.Form):
    format = forms.ChoiceField(choices=[(f, IMPORT_LABELS[f]) for f in IMPORT_FORMATS])
    annotator = forms.CharField(
        required=False,
        max_length=150,
        help_text="Whose annotations the files hold (ETPC default: etpc; Pharaoh: a username or 'initial').",
    )
    files = MultipleFileField(help_text="One or more files of the chosen format.")  # type: ignore[assignment]  # stub gap: the metaclass moves declared fields off the class (form.files stays the uploads)
    dry_run = forms.BooleanField(required=False, label="Dry run (report only, write nothing)")
    skip_invalid = forms.BooleanField(
        required=False, label="Skip invalid records (import the rest, list the skipped)"
    )

    def clean_files(self) -> list[Any]:
        files = self.cleaned_data["files"]
        try:
            check_upload_size(sum(f.size for f in files))
        except UploadTooLarge as exc:
            raise forms.ValidationError(str(exc)) from exc
        return files

    def uploads(self) -> list[tuple[str, bytes]]:
        return [(f.name, f.read()) for f in self.cleaned_data["files"]]


class NewProjectImportForm(ImportForm):
    project_name = forms.CharField(max_length=120, label="New project name")
    language = forms.ChoiceField(
        choices=[],
        initial="en",
        required=False,
        help_text="Decides how the members are tokenized at import (default English).",
    )
    tagset: forms.ModelChoiceField = forms.ModelChoiceField(
        queryset=Tagset.objects.none(),
        required=False,
        empty_label="None yet (choose one on the project's settings page)",
        help_text="Built-in typologies; the project can clone and edit it later.",
    )

    field_order = [
        "project_name",
        "language",
        "tagset",
        "format",
        "annotator",
        "files",
        "dry_run",
        "skip_invalid",
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:

        super().__init__(*args, **kwargs)
        language, tagset = self.fields["language"], self.fields["tagset"]
        if isinstance(language, forms.ChoiceField):
            language.choices = Project.Language.choices
        if isinstance(tagset, forms.ModelChoiceField):
            tagset.queryset = Tagset.objects.all()
        etpc = Tagset.objects.filter(builtin=True, name__startswith="ETPC").first()
        self.fields["tagset"].initial = etpc.pk if etpc else None

    def project_fields(self) -> dict[str, Any]:
        tagset = self.cleaned_data.get("tagset")
        return {"language": self.cleaned_data["language"] or "en", "tagset_id": tagset.pk if tagset else None}

    def clean_project_name(self) -> str:
        return self.cleaned_data["project_name"].strip()


class ExportForm(OwnIds, forms.Form):
    ids = "export"
    format = forms.ChoiceField(choices=[(f, EXPORT_LABELS[f]) for f in EXPORT_FORMATS])
    annotator = forms.CharField(required=False, max_length=150, help_text="ETPC / Pharaoh / CSV: whose work.")
    gold = forms.BooleanField(required=False, label="The gold layer")
    variant = forms.ChoiceField(
        required=False,
        initial="json",
        choices=[
            ("json", "JSON"),
            ("jsonl", "JSON Lines (native)"),
            ("csv", "CSV (report)"),
            ("html", "Printable page (report)"),
        ],
    )
    history = forms.BooleanField(required=False, label="Include the annotation history (native)")

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "annotator": data["annotator"] or None,
            "gold": data["gold"],
            "jsonl": data["variant"] == "jsonl",
            "history": data["history"],
            "report_format": data["variant"] if data["variant"] in ("csv", "html") else "json",
        }


class TokensForm(forms.Form):
    tokens1 = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), label="Member 1 tokens (space-separated)"
    )
    tokens2 = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), label="Member 2 tokens (space-separated)"
    )
    drop_imported = forms.BooleanField(
        required=False,
        label="Drop what was imported",
        help_text="This pair's imported trees or initial alignment fit the old tokens: drop them.",
    )
