"""What a probe answer is, for comparing one run's with another's: `answer_digest`, sha256 over a
canonical encoding of the answer, and `answer_parts`, the digests of its parts, which name what
differs where two answers do.

The encoding walks the answer: plain values, containers, NumPy arrays (dtype, shape, then the
raw bytes, which go to the hash without a copy), enums and ptxconf's dataclasses (the class's
name, then each field, less those that vary run to run or echo the call's own input: `VARIES`,
`ECHO`). Each item is tagged and sized, so two different answers never encode alike. A set's
items are ordered by their own digests, so the digest does not follow the process's hash seed.
Anything else is pickled, tagged.

Why not pickle it all: pickling copies every array and the answers are hundreds of MB a run;
measured on an H100 node's replay, the pickling took most of the digest time. sha256 (not
blake2b): with the CPU's SHA instructions it digests about twice as fast (1.5 against 0.7 GB/s
on an EPYC). Large arrays are hashed with the GIL released, so a worker digests one answer
while the GPU works on the next (`ptxconf.gpu.replay.run_recorded`).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import pickle
from typing import Any

import numpy as np

#: A dataclass field whose metadata holds this key differs run to run and no case reads it (a
#: device pointer, say): answers are compared without it. The value says why.
VARIES = "ptxconf.transcript.varies"
#: A field that echoes the call's own input (a dump's variant): compared through the call.
ECHO = "ptxconf.transcript.echo"

#: Raw bytes shorter than this join the small tokens' buffer; longer go to the hash as they are.
_INLINE_BYTES = 4096


@functools.cache
def _kept_fields(cls: type) -> tuple[str, ...]:
    """The fields of a dataclass that an answer's digest covers."""
    return tuple(f.name for f in dataclasses.fields(cls)
                 if not (f.metadata.get(VARIES) or f.metadata.get(ECHO)))


class _Encoder:
    """Feeds a value's canonical encoding to a sha256."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.buf = bytearray()

    def raw(self, data: bytes | memoryview) -> None:
        if len(data) < _INLINE_BYTES:
            self.buf += data
        else:
            if self.buf:
                self.hash.update(self.buf)
                self.buf.clear()
            self.hash.update(data)

    def hexdigest(self) -> str:
        self.hash.update(self.buf)
        self.buf.clear()
        return self.hash.hexdigest()

    def feed(self, v: Any) -> None:
        t = type(v)
        buf = self.buf
        if v is None:
            buf += b"N"
        elif t is bool:
            buf += b"T" if v else b"F"
        elif t is int:
            buf += b"i%d;" % v
        elif t is str:
            data = v.encode("utf-8", "surrogatepass")
            buf += b"s%d:" % len(data)
            self.raw(data)
        elif t is np.ndarray:
            if v.dtype.hasobject:
                self.pickled(v)
                return
            buf += b"a%s%s;" % (v.dtype.str.encode(), repr(v.shape).encode())
            self.raw(np.ascontiguousarray(v).reshape(-1).view(np.uint8).data)
        elif t is list or t is tuple:
            buf += b"%s%d;" % (b"l" if t is list else b"t", len(v))
            for x in v:
                self.feed(x)
        elif t is bytes or t is bytearray:
            buf += b"b%d:" % len(v)
            self.raw(v)
        elif t is float:
            buf += b"f%s;" % v.hex().encode()
        elif t is dict:
            buf += b"d%d;" % len(v)
            for k, x in v.items():
                self.feed(k)
                self.feed(x)
        elif isinstance(v, enum.Enum):
            buf += b"e%s;" % t.__qualname__.encode()
            self.feed(v.value)
        elif dataclasses.is_dataclass(t):
            buf += b"c%s;" % t.__qualname__.encode()
            for name in _kept_fields(t):
                self.feed(getattr(v, name))
        elif isinstance(v, np.generic):
            buf += b"g%s;" % v.dtype.str.encode()
            self.raw(v.tobytes())
        elif t is set or t is frozenset:
            buf += b"S%d;" % len(v)
            for d in sorted(_digest_of(x) for x in v):
                buf += d.encode()
        else:
            self.pickled(v)

    def pickled(self, v: Any) -> None:
        data = pickle.dumps(v, protocol=5)
        self.buf += b"p%d:" % len(data)
        self.raw(data)


def _digest_of(value: Any) -> str:
    enc = _Encoder()
    enc.feed(value)
    return enc.hexdigest()


def answer_digest(ok: bool, error_kind: str | None, error: str | None, value: Any) -> str:
    """sha256 of a probe answer (ok, error kind, error, value) in the canonical encoding above:
    equal answers give equal digests in any process, whatever its hash seed."""
    return _digest_of((ok, error_kind, error, value))


def answer_parts(value: Any) -> dict[str, str]:
    """Digests of an answer's parts (dataclass fields and sequence items, three levels deep,
    e.g. `[0][3].regs`): where a replayed answer differs, they name what differs."""
    def parts(v: Any, at: str, depth: int) -> dict[str, str]:
        if depth and dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {k: d for name in _kept_fields(type(v))
                    for k, d in parts(getattr(v, name), f"{at}.{name}", depth - 1).items()}
        if depth and isinstance(v, list | tuple) and len(v) <= 4096:
            return {k: d for i, x in enumerate(v)
                    for k, d in parts(x, f"{at}[{i}]", depth - 1).items()}
        return {at or "answer": answer_digest(True, None, None, v)}

    return parts(value, "", 3)


__all__ = ["ECHO", "VARIES", "answer_digest", "answer_parts"]
