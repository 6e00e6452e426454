"""Importers: one module per format, pure functions over bytes → validated records (no database).

The write side is `annotator.corpus.services.import_corpus`, shared by the management command, the
web upload and the Celery job.
"""
