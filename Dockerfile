FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# pg_dump/pg_restore for `manage.py backup` and `manage.py restore` (Debian 12's client is version 15,
# the version of compose's postgres:15); a C compiler for eflomal, the word aligner, which PyPI ships as
# source only; WordNet's database files (wordnet-base, 28 MB), the word aligner's synonyms (docs/aligner.md).
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client gcc libc6-dev wordnet-base \
 && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml requirements.lock requirements-models.lock ./
RUN pip install --no-cache-dir -r requirements.lock \
 && pip install --no-cache-dir --no-deps -r requirements-models.lock
COPY . .
# Static files are collected with the storage production runs (DEBUG=0: hashed names, a manifest and
# compressed copies). The SECRET_KEY on this line only lets the settings load for this one command; it
# is not kept in the image's environment, and the running app must be given its own.
RUN pip install --no-cache-dir --no-deps -e . \
 && DEBUG=0 SECRET_KEY=collectstatic-build-step-only python manage.py collectstatic --noinput --verbosity 0
EXPOSE 8000
CMD ["gunicorn", "annotator.wsgi", "-c", "deploy/gunicorn.conf.py"]
