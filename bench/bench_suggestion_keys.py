"""The key presses the phenomena suggestions save, in the browser (issue 34).

    .venv/bin/python bench/bench_suggestion_keys.py [--print-only]

Runs tests/browser/test_phenomena_keypresses.py (Chromium, the real ETPC and MRPC files under
`../shared/corpora`): a recommender is trained on ETPC's even pair ids, then ten held-out pairs (the
first ten odd ids with phenomena) are brought to ETPC's phenomena keyboard-only, once from no
suggestion and once from the suggestions, and both runs are checked in the database. Prints the key
presses, seconds, suggestions accepted, corrected and rejected, and the ratio, from
artifacts/phenomena_keypresses.json. ``--print-only`` prints the last run's figures without running.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/browser/test_phenomena_keypresses.py"
FIGURES = ROOT / "artifacts" / "phenomena_keypresses.json"


def report() -> str:
    """The figures of the last run, in one paragraph."""
    if not FIGURES.exists():
        return f"key presses: not measured (run this script, or pytest {TEST})"
    k = json.loads(FIGURES.read_text())
    none, sugg = k["none"], k["suggestions"]
    return (
        f"ETPC's {k['phenomena']} phenomena of {len(k['pairs'])} held-out pairs, keyboard only: "
        f"{none['key_presses']} key presses from no suggestion ({none['seconds']} s), "
        f"{sugg['key_presses']} from the suggestions ({sugg['seconds']} s; {sugg['accepted']} accepted, "
        f"{sugg['corrected']} corrected, {sugg['rejected']} rejected): ratio {k['ratio']:.2f}. Recommender trained on the even pairs in "
        f"{k['training_seconds']} s."
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print-only", action="store_true", help="print the last run's figures")
    args = parser.parse_args()
    if not args.print_only:
        subprocess.run(
            [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider"], cwd=ROOT, check=True
        )
    print(report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
