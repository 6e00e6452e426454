"""Peak memory of an MRPC and a native JSON Lines import on the worker's path (imports stream with
bounded memory).

    .venv/bin/python bench/bench_import_memory.py [--lines 100000 --lines 1000000]
        [--format mrpc --format native] [--before REV]

For each size, an MRPC training file of that many lines is synthesised from the real one
(`$CORPORA_DIR/mrpc/msr_paraphrase_train.txt`, default ../shared/corpora) by repeating its rows with
unique sentence ids, into a temporary directory (never kept). The native file is the JSON Lines export
of a project that imported the real training file, its pair lines repeated with unique pair ids.
A fresh process (DEBUG off: Django keeps no query log) migrates a throwaway SQLite database, records an
import job for the file as an upload would (`CorpusJob` with the stored path) and runs it as the worker
does (`annotator.corpus.jobs.run_import`). Reported: the process's peak resident set size (ru_maxrss)
before and after the import, CPU seconds, and the ratio of the import's own memory (peak − start) of the
largest size to that of the smallest — 1.0 is memory that does not grow with the file. `--before REV`
runs the same imports also with the code of git revision REV (e.g. the commit before a change).
The reference is the figure for MRPC before streaming: 100,000 lines peaked at 674 MiB (and 1,000,000
at 3.2 GiB in the production stack).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = Path(os.environ.get("CORPORA_DIR", ROOT.parent / "shared" / "corpora"))
SOURCE = CORPORA / "mrpc" / "msr_paraphrase_train.txt"
REFERENCE_100K_MIB = 674


def write_file(path: Path, lines: int) -> None:
    """`lines` rows of the real file, repeated; sentence ids made unique by the repetition number."""
    text = SOURCE.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").split("\n")
    header, rows = text[0], [row.split("\t") for row in text[1:] if row.strip()]
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("\ufeff" + header + "\r\n")
        for n in range(lines):
            quality, id1, id2, s1, s2 = rows[n % len(rows)]
            lap = n // len(rows)
            out.write(f"{quality}\t{id1}{lap:04d}\t{id2}{lap:04d}\t{s1}\t{s2}\r\n")


def exported_lines(out: Path) -> None:
    """(Child process) The JSON Lines export of a project that imported the real MRPC training file."""
    setup_django(ROOT)
    from annotator.corpus.exports.native import write_native
    from annotator.corpus.services import import_corpus
    from annotator.models import Project

    report = import_corpus("mrpc", "Bench", [SOURCE])
    assert report.ok, report.problems[:3]
    with out.open("w", encoding="utf-8") as handle:
        write_native(Project.objects.get(name="Bench"), handle, jsonl=True)


def write_jsonl(path: Path, lines: int, tmp: Path) -> None:
    """`lines` pair lines of the export of the real file, repeated; pair ids made unique by the repetition."""
    export = tmp / "export.jsonl"
    subprocess.run(
        [sys.executable, __file__, "--export", str(export)], env=child_env(tmp), check=True, cwd=ROOT
    )
    header, *rows = export.read_text(encoding="utf-8").splitlines()
    export.unlink()
    pairs = [json.loads(row) for row in rows]
    with path.open("w", encoding="utf-8") as out:
        out.write(header + "\n")
        for n in range(lines):
            line = pairs[n % len(pairs)]
            lap = n // len(pairs)
            pair_id = f"{line['pair']['id']}-{lap}"
            out.write(
                json.dumps(
                    {
                        **line,
                        "pair": {**line["pair"], "id": pair_id},
                        "workbench": {**line.get("workbench", {}), "position": n},
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


def setup_django(root: Path) -> None:
    sys.path.insert(0, str(root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
    import django  # heavy: only in the child processes

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def child(path: str, format: str, root: Path) -> None:
    setup_django(root)
    from annotator.corpus.jobs import run_import
    from annotator.models import CorpusJob

    job = CorpusJob.objects.create(
        kind=CorpusJob.Kind.IMPORT,
        format=format,
        project_name="Bench",
        options={"new_project": True},
        input_files=[{"name": Path(path).name, "path": path, "size": Path(path).stat().st_size}],
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = time.process_time()
    status = run_import(job.pk)
    cpu = time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    job.refresh_from_db()
    pairs = job.report.get("created", {}).get("pairs", 0)
    print(f"{pairs}\t{before}\t{after}\t{cpu:.1f}\t{status}")


def child_env(tmp: Path) -> dict[str, str]:
    """A throwaway SQLite database, no broker, DEBUG off (no query log kept in memory)."""
    return {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
        "REDIS_URL": "",
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "x" * 40,
    }


def checkout(rev: str, into: Path) -> Path:
    """The tree of git revision `rev` (its code, run with this checkout's virtual environment)."""
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def measure(format: str, lines: int, root: Path) -> tuple[int, float, float, str, str]:
    """(pairs, MiB at start, MiB at peak, CPU seconds, status) of one import in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        if format == "mrpc":
            data = Path(tmp) / "msr_paraphrase_train.txt"
            write_file(data, lines)
        else:
            data = Path(tmp) / "bench.jsonl"
            write_jsonl(data, lines, Path(tmp))
        out = (
            subprocess.run(
                [sys.executable, __file__, "--child", str(data), format, str(root)],
                env=child_env(Path(tmp)),
                capture_output=True,
                text=True,
                check=True,
                cwd=root,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
    pairs, before, after, cpu, status = out.split("\t")
    return int(pairs), int(before) / 1024, int(after) / 1024, cpu, status


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], Path(sys.argv[4]))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--export":
        exported_lines(Path(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, action="append", help="lines of the file (repeatable)")
    parser.add_argument("--format", action="append", choices=("mrpc", "native"), help="(repeatable)")
    parser.add_argument("--before", help="also run the imports with the code of this git revision")
    args = parser.parse_args()
    sizes, formats = args.lines or [100_000, 1_000_000], args.format or ["mrpc", "native"]
    if not SOURCE.exists():
        print(f"bench_import_memory: skipped (MRPC not found under {CORPORA})")
        return
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as old:
        codes = [("now", ROOT)] + (
            [(args.before[:10], checkout(args.before, Path(old)))] if args.before else []
        )
        print(
            f"{'format':>7} {'code':>10} {'lines':>10} {'pairs':>10} {'MiB at start':>13} {'MiB peak':>9}"
            f" {'import MiB':>11} {'CPU s':>7}"
        )
        for format in formats:
            for code, root in codes:
                grown: dict[int, float] = {}
                for lines in sizes:
                    pairs, start, peak, cpu, status = measure(format, lines, root)
                    grown[lines] = peak - start
                    print(
                        f"{format:>7} {code:>10} {lines:>10,} {pairs:>10,} {start:>13.0f} {peak:>9.0f}"
                        f" {peak - start:>11.0f} {cpu:>7}"
                        + ("" if status == "succeeded" else f"  ({status})"),
                        flush=True,
                    )
                small, large = min(grown), max(grown)
                if large != small:
                    ratio = grown[large] / max(grown[small], 1.0)
                    print(
                        f"{format} ({code}) import memory {large:,} / {small:,} lines: ×{ratio:.2f} "
                        f"(1.0 = flat; file ×{large / small:.0f})"
                    )
    print(f"reference (MRPC before streaming): 100,000 lines peaked at {REFERENCE_100K_MIB} MiB")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
