"""The human summary `ptxconf check` prints (and a report page shows where jinja2 is missing)."""

from __future__ import annotations

from ptxconf.core.results import Result, Status, summarize


def text_summary(results: list[Result], strict: bool = False) -> str:
    """The human summary `ptxconf check` prints: counts, then every non-pass by status."""
    counts = summarize(results)
    lines = ["ptxconf check: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v or k == "fail")]
    for status in (Status.FAIL, Status.UNKNOWN, Status.DISCREPANCY):
        group = [r for r in results if r.status is status]
        if group:
            label = "spec discrepancies" if status is Status.DISCREPANCY else status.value
            note = " (fail under --strict)" if status is Status.DISCREPANCY and not strict else ""
            lines.append(f"{label}{note}:")
            lines += [f"  {r.id}: {r.message}" for r in group]
    skips: dict[str, dict[str, int]] = {}
    for r in results:
        if r.status is Status.SKIP and r.code == "dependency_missing":
            by_provider = skips.setdefault(r.message, {})
            by_provider[r.provider or r.check] = by_provider.get(r.provider or r.check, 0) + 1
    for why, by_provider in skips.items():
        n = sum(by_provider.values())
        lines.append(f"skipped {', '.join(by_provider)} ({n} case{'s' * (n != 1)}): {why}")
    return "\n".join(lines)


__all__ = ["text_summary"]
