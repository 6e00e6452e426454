"""The production stack as deployed, run natively: the image's build steps from the `Dockerfile` and the
`migrate`, `web` and `worker` services of `docker-compose.yml`, read from those files.

No container engine runs on CI machines and base images cannot be pulled, so the image's steps run on
the host, in a copy of the repository's files standing for the image's `/app`. Only what must differ
outside containers is substituted (`Native.substitutions` lists it): the PostgreSQL and Redis hosts
(`postgres`, `redis` → 127.0.0.1 with a database and Redis DB of the caller's), the listening port,
`SECRET_KEY` (compose takes it from the environment), a private Celery queue so concurrent runs on one
Redis do not take each other's tasks, and `pip install` (the host's virtualenv already holds the
locked packages: checked pin by pin instead of installed; `pip install -e .` becomes `PYTHONPATH`
pointing at the copy). Everything else — the commands, their arguments, `DEBUG=0` and the rest of the
environment — is the files' own, so the check breaks when the files change in a way production would
not survive (`tests/services/test_production_stack.py`; `bench/bench_memory.py` measures this shape).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


# ---- Dockerfile -----------------------------------------------------------------------------------


@dataclass
class Dockerfile:
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)  # RUN steps (shell form), in order
    cmd: list[str] = field(default_factory=list)


def read_dockerfile(path: Path = REPO / "Dockerfile") -> Dockerfile:
    """WORKDIR, ENV, RUN and CMD of a Dockerfile (continuation lines joined, comments dropped)."""
    logical: list[str] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    image = Dockerfile()
    for line in logical:
        instruction, _, rest = line.partition(" ")
        instruction, rest = instruction.upper(), rest.strip()
        if instruction == "WORKDIR":
            image.workdir = rest
        elif instruction == "ENV":
            image.env.update(dict(part.split("=", 1) for part in shlex.split(rest)))
        elif instruction == "RUN":
            if rest.startswith("["):
                raise ValueError(f"{path}: RUN in exec form is not supported by this check: {rest}")
            image.runs.append(" ".join(rest.split()))
        elif instruction == "CMD":
            image.cmd = yaml.safe_load(rest)
    return image


# ---- docker-compose.yml ---------------------------------------------------------------------------

_VARIABLE = re.compile(r"\$\$|\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|\$(?P<bare>\w+)")


def interpolate(text: str, environ: dict[str, str]) -> str:
    """Compose's variable substitution: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, $$."""

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op, arg = match.group("op"), match.group("arg") or ""
        value = environ.get(name)
        if op in (":-", ":?") and not value:
            value = None
        if value is not None:
            return value
        if op in (":?", "?"):
            raise ValueError(f"docker-compose.yml: {name} is required: {arg}")
        return arg if op in (":-", "-") else ""

    return _VARIABLE.sub(one, text)


def _interpolate_all(value: Any, environ: dict[str, str]) -> Any:
    if isinstance(value, str):
        return interpolate(value, environ)
    if isinstance(value, list):
        return [_interpolate_all(v, environ) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate_all(v, environ) for k, v in value.items()}
    return value


def read_compose(environ: dict[str, str], path: Path = REPO / "docker-compose.yml") -> dict[str, Any]:
    """The compose file with anchors merged and variables substituted from `environ`."""
    return _interpolate_all(yaml.safe_load(path.read_text()), environ)


@dataclass
class Service:
    name: str
    command: list[str]
    environment: dict[str, str]
    healthcheck: list[str] | None


def service(compose: dict[str, Any], name: str) -> Service:
    spec = compose["services"][name]
    command = spec["command"]
    environment = spec.get("environment") or {}
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    test = (spec.get("healthcheck") or {}).get("test")
    return Service(
        name=name,
        command=shlex.split(command) if isinstance(command, str) else list(command),
        environment={k: "" if v is None else str(v) for k, v in environment.items()},
        healthcheck=test,
    )


# ---- the native stand-in for the image ------------------------------------------------------------


def tracked_files(repo: Path = REPO) -> list[str]:
    """The files a fresh clone has (the image's `COPY . .`), from git; without git, the tree minus
    what a checkout never holds."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True
        ).stdout.decode()
        return [name for name in out.split("\0") if name and (repo / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "var", "staticfiles", "artifacts", "__pycache__", "node_modules"}
        return [
            str(p.relative_to(repo))
            for p in repo.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(repo).parts)
        ]


def copy_tree(target: Path, repo: Path = REPO) -> Path:
    """A copy of the repository's tracked files (with their working-tree contents) at `target`."""
    for name in tracked_files(repo):
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, destination)
    return target


def check_locked_packages(lock: Path) -> None:
    """`pip install -r requirements.lock` on the host: every pin must already be installed as locked."""
    wrong = []
    for line in lock.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name, _, version = line.partition("==")
        name = name.split("[", 1)[0].strip()
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if version and installed != version.split(";", 1)[0].strip():
            wrong.append(f"{name}: locked {version}, installed {installed}")
    if wrong:
        raise RuntimeError(f"{lock}: the virtualenv differs from the lock file:\n" + "\n".join(wrong))


@dataclass
class Native:
    """The image built natively at `app` (a copy of the repository standing for /app)."""

    app: Path
    image: Dockerfile
    substitutions: list[str] = field(default_factory=list)

    def base_env(self) -> dict[str, str]:
        """What a process in the image starts with: the image's ENV, a PATH to the host's virtualenv
        (the image's Python), and the copy on PYTHONPATH (the image's `pip install -e .`)."""
        keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "USER")
        env = {k: os.environ[k] for k in keep if k in os.environ}
        env.update(self.image.env)
        env["PATH"] = f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin"
        env["PYTHONPATH"] = str(self.app)
        return env


def build(app: Path, dockerfile: Path = REPO / "Dockerfile", log: Path | None = None) -> Native:
    """Copy the repository to `app` and run the Dockerfile's RUN steps there, as `docker build` would."""
    copy_tree(app)
    native = Native(app=app, image=read_dockerfile(dockerfile))
    for run in native.image.runs:
        for step in (part.strip() for part in run.split("&&")):
            _run_build_step(native, step, log)
    return native


def _run_build_step(native: Native, step: str, log: Path | None) -> None:
    words = shlex.split(step)
    if words[:2] == ["pip", "install"]:
        args = [w for w in words[2:] if w not in ("--no-cache-dir", "--no-deps", "--quiet", "-q")]
        if args[:1] == ["-r"] and len(args) == 2:
            check_locked_packages(native.app / args[1])
            native.substitutions.append(f"{step!r}: checked against the virtualenv, not installed")
            return
        if args in (["-e", "."], ["."]):
            native.substitutions.append(f"{step!r}: PYTHONPATH={native.app}")
            return
        raise ValueError(f"Dockerfile: a pip step this check does not know how to stand in for: {step}")
    if words[:1] == ["apt-get"]:
        _check_apt_step(native, step, words)
        return
    if step == "rm -rf /var/lib/apt/lists/*":
        native.substitutions.append(f"{step!r}: the image's cleanup, not run on the host")
        return
    result = subprocess.run(
        ["sh", "-c", step], cwd=native.app, env=native.base_env(), capture_output=True, text=True
    )
    if log:
        with log.open("a") as out:
            out.write(f"$ {step}\n{result.stdout}{result.stderr}\n")
    if result.returncode != 0:
        raise RuntimeError(f"Dockerfile step failed ({result.returncode}): {step}\n{result.stderr[-3000:]}")


def _check_apt_step(native: Native, step: str, words: list[str]) -> None:
    """`apt-get update` / `apt-get install PKG…` of the image: the packages must be on the host."""
    if words[1:2] == ["update"]:
        native.substitutions.append(f"{step!r}: not run on the host")
        return
    if words[1:2] != ["install"]:
        raise ValueError(f"Dockerfile: an apt-get step this check does not know how to stand in for: {step}")
    packages = [w for w in words[2:] if not w.startswith("-")]
    missing = []
    for package in packages:
        query = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
        if "install ok installed" not in query.stdout:
            missing.append(package)
    if missing:
        raise RuntimeError(
            f"Dockerfile installs {missing}, which this host lacks: apt-get install -y {' '.join(missing)}"
        )
    native.substitutions.append(f"{step!r}: checked installed on the host (dpkg-query)")


def native_command(native: Native, command: list[str]) -> list[str]:
    """A service's command on the host: programs from the image's PATH, `/app` paths into the copy."""
    return [
        arg.replace(native.image.workdir, str(native.app), 1)
        if arg.startswith(native.image.workdir + "/")
        else arg
        for arg in command
    ]


def service_env(
    native: Native,
    svc: Service,
    *,
    database_url: str,
    redis_url: str,
    queue: str,
    bind: str | None = None,
) -> dict[str, str]:
    """The service's compose environment with the hosts, port and queue substituted (nothing else)."""
    env = {**native.base_env(), **svc.environment}
    for name, value in (("DATABASE_URL", database_url), ("REDIS_URL", redis_url)):
        if name in env:
            env[name] = value
    if bind is not None and "BIND" in env:
        env["BIND"] = bind
    env["CELERY_QUEUE"] = queue
    return env
