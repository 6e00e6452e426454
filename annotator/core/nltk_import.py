"""Import NLTK without the optional scientific packages it pulls in.

`import nltk` imports every NLTK subpackage, and some of them import scikit-learn, SciPy and pandas
when they are installed (for classifiers and statistics the workbench never uses): 1,944 modules,
~2 s and ~125 MiB more resident memory in the process that first tokenizes or parses a tree — an
import job's worker process, or a web process importing a small upload. With those three hidden while
NLTK's package initialises (each of its imports of them is optional: it catches the ImportError),
NLTK costs 536 modules, 0.2 s and ~25 MiB; the tokenizer and `Tree` behave the same. A package that
some other code already imported is left as it is, and afterwards all three import normally again.
"""

from __future__ import annotations

import sys
import threading
from types import ModuleType

OPTIONAL = ("sklearn", "scipy", "pandas")
_lock = threading.Lock()


def nltk() -> ModuleType:
    """The `nltk` package, imported (once) with OPTIONAL hidden unless already imported."""
    if "nltk" in sys.modules:
        return sys.modules["nltk"]
    with _lock:
        if "nltk" in sys.modules:
            return sys.modules["nltk"]
        hidden = [name for name in OPTIONAL if name not in sys.modules]
        for name in hidden:
            sys.modules[name] = None  # type: ignore[assignment]  # `import name` raises ImportError
        try:
            import nltk as package
        finally:
            for name in hidden:
                if sys.modules.get(name, 0) is None:
                    del sys.modules[name]
        return package
