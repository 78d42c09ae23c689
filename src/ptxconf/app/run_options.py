"""What `ptxconf check` was asked to do (`RunOptions`), shared by the run and its GPU part."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptxconf.core.results import Result


@dataclass
class RunOptions:
    """What `ptxconf check` was asked to do."""

    gpu: str = "auto"
    only: str | None = None
    proof_timeout_s: float = 20.0
    proof_cache: bool = True
    #: --verify-cache: the fraction of cached proof outcomes proved again, drawn by verify_seed.
    verify_cache: float = 0.0
    verify_seed: int = 0
    #: --proof-workers: processes proving claims (None: auto_proof_workers(); 0: in a thread).
    proof_workers: int | None = None
    strict: bool = False
    #: Reuse compiled kernel modules (ptxconf.gpu.kcache); --no-cache compiles them all.
    kernel_cache: bool = True
    #: --gpus: how many visible GPUs ("all" or a count) and probe workers per GPU (None: auto).
    gpus: str = "1"
    workers_per_gpu: int | None = None
    #: --resume: results of an earlier, interrupted run, kept instead of run again.
    done: dict[str, Result] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def selected_id(cid: str, only: str | None) -> bool:
    """Whether --only selects a case id."""
    return not only or only in cid


__all__ = ["RunOptions", "selected_id"]
