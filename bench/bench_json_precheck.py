"""Benchmark of the JSON pre-check (issue 30): time and peak memory on adversarial bodies.

    .venv/bin/python bench/bench_json_precheck.py

Every JSON body of the API and every line of an upload passes `annotator.corpus.limits.nesting_depth_offence`
before it is parsed. For each adversarial shape at 64 KB, 1 MB and 10 MB this prints the pre-check's
time per MB and its peak extra memory (tracemalloc) as a multiple of the body, and, as the peer, the time
of Python's own `json.loads` on a valid body of the same size. Targets: linear, <= 50 ms per MB,
<= 2x the body in extra memory. Last, the whole parse (`load_json`: the scan, `json.loads` with the
number hooks) of 10 MB bodies of small values beside plain `json.loads`.
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotator.corpus.limits import load_json, nesting_depth_offence  # noqa: E402
from tests.json_shapes import ADVERSARIAL  # noqa: E402

MB = 1 << 20
SIZES = {"64 KB": 64 * 1024, "1 MB": MB, "10 MB": 10 * MB}


def measure(text: str) -> tuple[float, int]:
    nesting_depth_offence(text[:4096])  # numpy's first call
    elapsed = float("inf")
    for _ in range(3 if len(text) > MB else 7):  # the best of a few runs: the machine may be busy
        started = time.perf_counter()
        nesting_depth_offence(text)
        elapsed = min(elapsed, time.perf_counter() - started)
    tracemalloc.start()
    nesting_depth_offence(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak


def main() -> int:
    print(f"{'shape':40} {'size':>6} {'ms/MB':>7} {'peak/body':>9}")
    worst_rate, worst_memory = 0.0, 0.0
    for name, make in ADVERSARIAL.items():
        for label, size in SIZES.items():
            text = make(size)
            elapsed, peak = measure(text)
            body = len(text.encode("utf-8"))
            rate, memory = elapsed * 1000 / (body / MB), peak / body
            worst_rate, worst_memory = max(worst_rate, rate), max(worst_memory, memory)
            print(f"{name:40} {label:>6} {rate:7.1f} {memory:9.2f}")
    valid = json.dumps([{"scope1": [1, 2, 3], "note": 'a "quoted" word'}] * 20_000)
    started = time.perf_counter()
    json.loads(valid)
    parse_rate = (time.perf_counter() - started) * 1000 / (len(valid) / MB)
    check_rate = measure(valid)[0] * 1000 / (len(valid) / MB)
    print(f"\nworst: {worst_rate:.1f} ms per MB (target <= 50), {worst_memory:.2f}x the body (target <= 2)")
    print(
        f"a valid {len(valid) / MB:.1f} MB body: pre-check {check_rate:.1f} ms/MB, json.loads {parse_rate:.1f} ms/MB "
        f"(ratio {check_rate / parse_rate:.2f})"
    )
    print(f"\n{'the whole parse (load_json) of 10 MB of small values':40} {'ms/MB':>7} {'json.loads':>10}")
    for shape in ("{}", "0", '""', "0.5"):
        body = "[" + ",".join([shape] * (10 * MB // (len(shape) + 1))) + "]"
        rates = []
        for parse in (load_json, json.loads):
            started = time.perf_counter()
            parse(body)
            rates.append((time.perf_counter() - started) * 1000 / (len(body) / MB))
        print(f"{'[' + shape + ', …]':40} {rates[0]:7.1f} {rates[1]:10.1f}")
    return 0 if worst_rate <= 50 and worst_memory <= 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
