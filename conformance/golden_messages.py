"""Message wording, pinned once: every other test asserts status, code and fields; this is where a
maintainer reviews the words, as a diff of conformance/golden/<area>.txt.

An example module (`conformance/messages_<area>.py`) registers small functions that each return
one message (an outcome's, a refusal's, a lint error's) for a representative input:

    @example("descriptor.lbo_sbo_swapped")
    def _() -> str:
        return run_module_case(...).message

`conformance/test_messages.py` runs every example and compares its message with the line of the
same label in `golden/<area>.txt` (`label<TAB>message`, newlines as \\n). After a deliberate
wording change, rewrite the files and review the diff:

    PTXCONF_UPDATE_GOLDEN=1 python -m pytest conformance/test_messages.py
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN_DIR = HERE / "golden"
UPDATE_ENV = "PTXCONF_UPDATE_GOLDEN"


@dataclass(frozen=True)
class Example:
    """One message example: its area (the example module's suffix), label and producer; `group`:
    the xdist group test_messages.py runs it in (where a test of its own shares its work)."""

    area: str
    label: str
    produce: Callable[[], str]
    group: str | None = None

    @property
    def id(self) -> str:
        return f"{self.area}:{self.label}"


EXAMPLES: dict[str, Example] = {}


def example(label: str, group: str | None = None) -> Callable[[Callable[[], str]], Callable[[], str]]:
    """Register a message example of the calling module's area (`messages_<area>.py`); `group`:
    the xdist group it runs in (case_outcomes.SHARED_PROOFS: a proof a test also makes)."""

    def register(fn: Callable[[], str]) -> Callable[[], str]:
        module = fn.__module__.rpartition(".")[2]
        if not module.startswith("messages_"):
            raise ValueError(f"examples live in conformance/messages_<area>.py, not {module}")
        ex = Example(module.removeprefix("messages_"), label, fn, group)
        if ex.id in EXAMPLES:
            raise ValueError(f"message example {ex.id} is registered twice")
        EXAMPLES[ex.id] = ex
        return fn

    return register


def raised(fn: Callable[[], object], exc: type[BaseException] = ValueError) -> str:
    """The message of the `exc` that `fn()` raises (an example of a refusal's wording)."""
    try:
        fn()
    except exc as e:
        return str(e)
    raise AssertionError(f"{fn} raised no {exc.__name__}")


def load_examples() -> dict[str, Example]:
    """Every example of every conformance/messages_<area>.py."""
    for path in sorted(HERE.glob("messages_*.py")):
        importlib.import_module(path.stem)
    return EXAMPLES


def encode(message: str) -> str:
    """One line: backslashes and newlines escaped."""
    return message.replace("\\", "\\\\").replace("\n", "\\n")


def decode(text: str) -> str:
    """The message a golden line holds (a backslash escapes the character after it; `\\n` is
    a newline)."""
    return _ESCAPED.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


#: A backslash and the character it escapes.
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def golden_file(area: str) -> Path:
    return GOLDEN_DIR / f"{area}.txt"


def read_golden(area: str) -> dict[str, str]:
    """label -> message of one area's golden file (empty where there is none)."""
    path = golden_file(area)
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        label, sep, message = line.partition("\t")
        if not sep:
            raise ValueError(f"{path}:{n}: expected 'label<TAB>message'")
        out[label] = decode(message)
    return out


def write_golden(area: str, messages: dict[str, str]) -> None:
    """Rewrite one area's golden file, labels sorted."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    lines = [f"# messages of conformance/messages_{area}.py (see conformance/golden_messages.py)"]
    lines += [f"{label}\t{encode(messages[label])}" for label in sorted(messages)]
    golden_file(area).write_text("\n".join(lines) + "\n", encoding="utf-8")


def updating() -> bool:
    """Whether this run rewrites the golden files instead of comparing."""
    return os.environ.get(UPDATE_ENV, "") not in ("", "0")
