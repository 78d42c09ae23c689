"""How to reproduce a result with the `ptxconf` command line.

Every result a report holds carries `reproduce`: `ptxconf check --only '<case id>'` (with
`--gpu on` for a GPU case, `--gpu off` for a CPU one), which reruns exactly that case and
always works. Where another command draws or computes the case, `also_commands` names it: the
`ptxconf oracle` answer a GPU case was compared with (its fields hold it) and the `ptxconf show`
line that draws it, the `ptxconf explain` line of a mistaken descriptor, `ptxconf explain
layout` for a layout that puts two coordinates at one address, `ptxconf prove --only` for a
proof; `reproduce_also` keeps those the fields do not hold already. A Python one-liner
into internal modules (what proofs wrote as `reproduce` before) is kept as `reproduce_python`.
`with_reproduce` is idempotent: a result that has them gets the same fields again.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ptxconf.core.results import Result

if TYPE_CHECKING:
    from ptxconf.oracle.spec import Spec

#: Field keys whose `ptxconf ...` strings are commands that compute a case.
COMMAND_KEYS = ("reproduce", "oracle", "explain", "show")
#: How deep into nested fields commands are looked for.
MAX_DEPTH = 2


def is_gpu(result: Result) -> bool:
    """Whether a result comes from a GPU provider (its case needs `--gpu on`)."""
    return result.provider.startswith("gpu-") or result.check.startswith("gpu")


def check_command(result: Result) -> str:
    """`ptxconf check --gpu on|off --only '<id>'`: reruns this case alone."""
    gpu = "on" if is_gpu(result) else "off"
    return f"ptxconf check --gpu {gpu} --only {shlex.quote(result.id)}"


#: Field values that are never mappings (checked before the slower Mapping test).
_PLAIN = frozenset({str, int, float, bool, list, tuple, type(None)})


def _commands(fields: Mapping[str, Any], depth: int = 0) -> Iterator[str]:
    """`ptxconf ...` strings under COMMAND_KEYS, in field order (nested mappings too)."""
    for k, v in fields.items():
        if k in COMMAND_KEYS and isinstance(v, str) and v.startswith("ptxconf "):
            yield v
        elif k == "reproduce_also" and isinstance(v, list):
            yield from (x for x in v if isinstance(x, str) and x.startswith("ptxconf "))
        elif depth < MAX_DEPTH and type(v) not in _PLAIN and isinstance(v, Mapping):
            yield from _commands(v, depth + 1)


def show_command(oracle: str) -> str | None:
    """The `ptxconf show` line drawing what an `ptxconf oracle smem-offsets|fragment` line
    computes (the same options, no --json); None for another command."""
    words = oracle.split()
    if words[:2] != ["ptxconf", "oracle"] or len(words) < 3 or words[2] not in ("smem-offsets",
                                                                              "fragment"):
        return None
    # reports of 4c24137c52c5 ran options together ("--major K--swizzle none")
    rest = re.sub(r"(?<=\S)--(?=[a-z])", " --", " ".join(words[3:]))
    return " ".join(["ptxconf", "show", words[2], *(w for w in rest.split() if w != "--json")])


def also_commands(result: Result, spec: Spec | None = None) -> list[str]:
    """Every other `ptxconf` command that computes or draws this case (deduplicated)."""
    out: list[str] = []
    for cmd in _commands(result.fields):
        if cmd.startswith("ptxconf check "):
            continue
        out.append(cmd)
        shown = show_command(cmd)
        if shown is not None:
            out.append(shown)
    if spec is not None:
        from ptxconf.app.case_layouts import collision, explain_layout_command

        try:
            found = collision(result, spec)
        except Exception:  # noqa: BLE001 - a row this spec reads otherwise: no explain line
            found = None
        if found is not None:
            out.append(explain_layout_command(found))
    if result.check.startswith("proof."):
        out.append(f"ptxconf prove --only {shlex.quote(result.id)} --json")
    return list(dict.fromkeys(out))


def with_reproduce(result: Result, spec: Spec | None = None) -> Result:
    """The result with `reproduce` (a `ptxconf check` line), `reproduce_also` (other
    `ptxconf` lines, where there are any) and, where its `reproduce` was a Python one-liner,
    that line as `reproduce_python`."""
    fields = dict(result.fields)
    old = fields.get("reproduce")
    if isinstance(old, str) and old and not old.startswith("ptxconf "):
        fields.setdefault("reproduce_python", old)
    # only what the fields do not hold already (their `oracle`, `explain` lines): an old
    # `reproduce` that is another ptxconf line stays here
    held = set(_commands({k: v for k, v in result.fields.items()
                          if k not in ("reproduce", "reproduce_also")}))
    also = [c for c in also_commands(result, spec) if c not in held]
    fields["reproduce"] = check_command(result)
    if also:
        fields["reproduce_also"] = also
    else:
        fields.pop("reproduce_also", None)
    return replace(result, fields=fields)


__all__ = ["also_commands", "check_command", "is_gpu", "show_command", "with_reproduce"]
