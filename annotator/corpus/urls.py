"""URLs of the corpus area (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.corpus import views as corpus

urlpatterns = [
    path("projects/<int:project_pk>/corpus/", corpus.corpus_jobs, name="corpus-jobs"),
    path("projects/<int:project_pk>/corpus/export/", corpus.corpus_export, name="corpus-export"),
    path(
        "projects/<int:project_pk>/corpus/jobs/<int:job_pk>/cancel/",
        corpus.corpus_job_cancel,
        name="corpus-job-cancel",
    ),
    path(
        "projects/<int:project_pk>/corpus/jobs/<int:job_pk>/delete/",
        corpus.corpus_job_delete,
        name="corpus-job-delete",
    ),
    path(
        "projects/<int:project_pk>/corpus/jobs/<int:job_pk>/download/",
        corpus.corpus_job_download,
        name="corpus-job-download",
    ),
    path(
        "projects/<int:project_pk>/corpus/jobs/<int:job_pk>/report/",
        corpus.corpus_job_report,
        name="corpus-job-report",
    ),
    path(
        "projects/<int:project_pk>/corpus/agreement-report/",
        corpus.corpus_report_print,
        name="corpus-report-print",
    ),
    path("projects/<int:project_pk>/corpus/aligner/", corpus.corpus_aligner, name="corpus-aligner"),
    path("projects/<int:project_pk>/corpus/trees/", corpus.corpus_trees, name="corpus-trees"),
    path(
        "projects/<int:project_pk>/corpus/trees/remove/",
        corpus.corpus_trees_remove,
        name="corpus-trees-remove",
    ),
    path("projects/<int:project_pk>/corpus/trees/redo/", corpus.corpus_trees_redo, name="corpus-trees-redo"),
    path("projects/<int:project_pk>/corpus/systems/", corpus.corpus_systems, name="corpus-systems"),
    path("corpus/import/", corpus.corpus_import, name="corpus-import"),
    path("projects/<int:project_pk>/pairs/<int:pair_pk>/tokens/", corpus.pair_tokens, name="pair-tokens"),
    path(
        "projects/<int:project_pk>/pairs/<int:pair_pk>/trees/remove/",
        corpus.pair_trees_remove,
        name="pair-trees-remove",
    ),
]
