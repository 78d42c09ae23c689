"""What one run shares between its providers: options, and resources closed at its end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunContext:
    """What one run shares between providers: its options and resources closed at its end."""

    gpu: str = "auto"
    proof_timeout_s: float = 20.0
    #: Reuse decided proof outcomes from the disk cache (oracle/proofs/cache.py).
    proof_cache: bool = False
    #: --verify-cache: the fraction of cached proof outcomes proved again and compared, drawn
    #: by verify_seed (oracle/proofs/cases.py verify_sample).
    verify_cache: float = 0.0
    verify_seed: int = 0
    #: Reuse compiled kernel modules from the disk cache (ptxconf/gpu/kcache.py).
    kernel_cache: bool = True
    #: Worker processes for the proofs (0: prove in the provider's own thread).
    proof_workers: int = 0
    #: Which case ids the run will execute (None: all); a provider that works ahead (the
    #: proofs' worker pool) starts only these.
    wanted: Callable[[str], bool] | None = None
    #: Which visible GPU this context's probe worker uses (None: CUDA's default).
    device: int | None = None
    shared: dict[str, Any] = field(default_factory=dict)
    closers: list[Callable[[], None]] = field(default_factory=list)

    def resource(self, name: str, make: Callable[[], Any], close: Callable[[Any], None] | None = None) -> Any:
        """One instance of a shared resource (a GPU session) per run, made on first use."""
        if name not in self.shared:
            self.shared[name] = make()
            if close is not None:
                obj = self.shared[name]
                self.closers.append(lambda: close(obj))
        return self.shared[name]

    def close(self) -> None:
        """Close what the run opened, last opened first."""
        while self.closers:
            self.closers.pop()()


__all__ = ["RunContext"]
