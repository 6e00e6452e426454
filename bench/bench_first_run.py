"""`make run` from a fresh clone to the first page served, with the time each phase took.

Clones the repository's HEAD into a temporary directory, runs `make run` there on a free port and
polls the login page until it answers 200; the phases are read from the moments make prints its
commands: installing (creating the virtualenv and installing the runtime lock), migrating, loading the demo, and
starting the server. Target: ≤ 60 s. The package index is the machine's (a warm local cache or mirror
is what "a new user on this machine" has). Run it on a quiet machine: it competes for the CPU.

    .venv/bin/python bench/bench_first_run.py [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 60.0
PHASES = (  # (name, the first output line of the phase after it starts with this)
    ("install", "test -x"),
    ("migrate", ".venv/bin/python manage.py migrate"),
    ("demo", ".venv/bin/python manage.py load_demo"),
    ("server", "Serving on"),
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone (printed) for a look")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    where = Path(tempfile.mkdtemp(prefix="first-run-"))
    clone = where / "workbench"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "VIRTUAL_ENV")}
    env.pop("PYTHONPATH", None)
    lines: list[tuple[float, str]] = []
    start = time.monotonic()
    process = subprocess.Popen(
        ["make", "run", f"PORT={port}"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.monotonic() - start, line.rstrip()))

    threading.Thread(target=read, daemon=True).start()
    url = f"http://127.0.0.1:{port}/accounts/login/"
    served = None
    while time.monotonic() - start < args.timeout and process.poll() is None:
        if answers(url):
            served = time.monotonic() - start
            break
        time.sleep(0.25)
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)
    marks = {}
    for name, prefix in PHASES:
        marks[name] = next((t for t, line in lines if line.lstrip().startswith(prefix)), None)
    print(f"make run from a fresh clone ({clone}), load average {os.getloadavg()[0]:.1f}")
    edges = [("install", marks["install"] or 0.0), *((n, marks[n]) for n, _ in PHASES[1:])]
    for (name, begin), (_next, end) in zip(edges, [*edges[1:], ("served", served)], strict=True):
        took = f"{end - begin:6.1f} s" if begin is not None and end is not None else "     —"
        print(f"  {name:<8} {took}")
    if served is None:
        print("no page was served; the last output:\n" + "\n".join(line for _, line in lines[-30:]))
    else:
        ok = "✓" if served <= TARGET_SECONDS else "✗"
        print(f"  first page after {served:.1f} s (target ≤ {TARGET_SECONDS:.0f} s {ok})")
    if args.keep:
        print(f"kept: {clone}")
    else:
        shutil.rmtree(where, ignore_errors=True)
    return 0 if served is not None and served <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
