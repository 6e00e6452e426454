"""Every docstring example in metrics/ runs as a doctest (and fails the suite when it is wrong)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import metrics

MODULES = sorted(m.name for m in pkgutil.iter_modules(metrics.__path__))
#: Modules whose measures must show a worked example (a published number where there is one).
WITH_EXAMPLES = {
    "alignment",
    "chance",
    "iapta",
    "kappa",
    "multi",
    "pair_labels",
    "phrases",
    "reeval",
    "report",
    "spade",
    "layers",
    "statistics",
}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str):
    module = importlib.import_module(f"metrics.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of metrics.{name} failed"
    if name in WITH_EXAMPLES:
        assert result.attempted > 0, f"metrics.{name} has no docstring example"


def test_a_wrong_example_fails():
    """The runner above reports a failing example (it is not a test that cannot fail)."""

    def wrong() -> None:
        """>>> 1 + 1
        3
        """

    runner = doctest.DocTestRunner(verbose=False)
    for test in doctest.DocTestFinder().find(wrong, "wrong", globs={}):
        runner.run(test, out=lambda _: None)
    assert runner.failures == 1
