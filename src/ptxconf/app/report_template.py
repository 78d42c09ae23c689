"""The Jinja template of report.html, with the Python Jinja makes of it shipped beside it, so
that a run does not parse and generate the template each time (about 60 ms a run).

templates/report.html.j2.py.txt is what `jinja2.Environment.compile(..., raw=True)` makes of
templates/report.html.j2 under `OPTIONS`, its first line naming the key it was made under:
the sha256 of the Jinja version, the options and the template's text (the line names the
Jinja version and the template's own sha256 too). It is part of the
package (no cache folder is read: the code it holds runs), and used only where its key is the
key of the installed Jinja and the template as it is now; anywhere else (the template edited,
another Jinja) the template is compiled here, as before. conformance/test_report_template.py
holds the shipped file current and rewrites it with

    PTXCONF_UPDATE_GOLDEN=1 python -m pytest conformance/test_report_template.py
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).parent / "templates"
NAME = "report.html.j2"
#: The generated Python of the template, shipped beside it.
PRECOMPILED = TEMPLATES / f"{NAME}.py.txt"
#: The environment's options (the generated code depends on them).
OPTIONS: dict[str, Any] = {"autoescape": True, "trim_blocks": True, "lstrip_blocks": True}
HEADER = "# ptxconf: report.html.j2 compiled, key "


def environment() -> jinja2.Environment:
    """The page's Jinja environment (undefined names are errors)."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                              undefined=jinja2.StrictUndefined, **OPTIONS)


def key(source: str) -> str:
    """The key of the template's generated code: Jinja's version, the options, the text."""
    import jinja2

    text = f"{jinja2.__version__}\0{sorted(OPTIONS.items())}\0{source}"
    return hashlib.sha256(text.encode()).hexdigest()


def header(source: str) -> str:
    """The shipped file's first line: the key, the Jinja version, the template's sha256."""
    import jinja2

    return (f"{HEADER}{key(source)} (Jinja {jinja2.__version__}, template sha256 "
            f"{hashlib.sha256(source.encode()).hexdigest()})")


def generate(env: jinja2.Environment, source: str) -> str:
    """The shipped file's text: its `header`, then the Python Jinja generates."""
    code = env.compile(source, NAME, None, raw=True)
    return f"{header(source)}\n{code}"


def load() -> jinja2.Template:
    """The page's template: from the shipped Python where its key is current, else compiled."""
    env = environment()
    path = TEMPLATES / NAME
    source = path.read_text(encoding="utf-8")
    try:
        shipped = PRECOMPILED.read_text(encoding="utf-8")
    except OSError:
        shipped = ""
    first, _, code = shipped.partition("\n")
    if first != header(source):
        return env.get_template(NAME)
    template: jinja2.Template = env.template_class.from_code(
        env, compile(code, str(path), "exec"), env.make_globals(None), None)
    return template


__all__ = ["NAME", "OPTIONS", "PRECOMPILED", "TEMPLATES", "environment", "generate", "header", "key",
           "load"]
