"""The GPU cases of `ptxconf check --gpu on`: wgmma and wmma probes on an sm_90a device.

Every case builds its inputs on the host (`ptxconf.oracle.interpret`), runs dumb kernels in
ONE `ProbeRunner` worker (a fault is that case's FAIL with the CUDA error text; the worker is
restarted and the run goes on), and reads the raw dumps back through the oracle:

* `gpu.device[sm_90a]`, `gpu.compile[...]`: what the device is; every kernel of the run,
  compiled up front in a few modules.
* `gpu.e2e[<instr>:<SS|RS>:<layout>]`: random exact-integer operands placed by the oracle's
  canonical layout (compact LBO/SBO), D compared bit for bit with a host matmul.
* `gpu.d_map[<instr>]`, `gpu.smem_map[<instr>:<A|B>:<layout>]`, `gpu.a_regs[<instr>:RS]`:
  discovery. Index-coded operands and one-hot partners reveal the hardware's accumulator map,
  its (mn, k) -> shared-memory address maps and the register-A map; each is compared with the
  oracle's, and a mismatch is a diff table in the layout's coordinates.
* `gpu.address.*`: operand starts not aligned to the swizzle repeat (base-offset field 0 or
  per the rule), and fields documented as unused, varied: what the hardware did, recorded.
* `gpu.hypothesis[<name>]`: each competing reading of the oracle settled by a probe; the
  reading silicon followed is in `details`.
* `gpu.wmma.load/store/align[...]`: fragment maps of every wmma shape (officially unspecified:
  recorded as device-tagged observations), store placement, and the alignment rule.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from ptxconf.oracle import hypotheses
from ptxconf.oracle import interpret as I
from ptxconf.oracle.checks import Case, discrepancy, fail
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.records import (
    BaseOffsetRule,
    InstructionType,
    WmmaAlignmentExample,
    WmmaDefaultStride,
    atom_name,
)
from ptxconf.oracle.spec import Spec

from ptxconf.cases import Outcome, case, outcome
from ptxconf.results import Status

from .probes import REGION_ALIGN_BYTES
from .variants import WARPGROUP_THREADS, WgmmaVariant, WmmaVariant, wmma_probe_variants

SWIZZLES = ("none", "32B", "64B", "128B")
#: Zero bytes appended after every operand image: a read just past the layout's last byte
#: lands in memory the probe owns.
GUARD_BYTES = 1024
#: Failing cases that get their raw dump attached (base64 of zlib), per run.
RAW_DUMP_BUDGET = 12
#: Worker time limits (seconds): compiling a module, one batch of launches.
COMPILE_TIMEOUT_S = 600
PROBE_TIMEOUT_S = 120
#: Elements past a wmma matrix that are index-coded too, so a read beyond it is named.
WMMA_GUARD_ELEMS = 64
#: Start offsets (bytes) of the base-address sweep below each swizzle repeat: inside a 16-byte
#: chunk row (the XOR's target bits) and whole 128-byte rows (its source bits).
START_OFFSETS_BYTES = (16, 32, 64)
ROW_STEP_BYTES = 128
#: A start off both grids (one row and one chunk in): the base-offset readings all differ.
MIXED_OFFSET_BYTES = ROW_STEP_BYTES + START_OFFSETS_BYTES[0]
#: LBO values (bytes) tried where the document says LBO is "not used, assumed to be 1":
#: 16 is the assumed 1; 0, a large and the largest encodable value are the probes.
UNUSED_LBO_BYTES = (16, 0, 4096, 262128)

CHECK_DEVICE = "gpu.device"
CHECK_COMPILE = "gpu.compile"
CHECK_E2E = "gpu.e2e"
CHECK_D_MAP = "gpu.d_map"
CHECK_SMEM_MAP = "gpu.smem_map"
CHECK_A_REGS = "gpu.a_regs"
CHECK_START = "gpu.address.start"
CHECK_UNUSED_LBO = "gpu.address.unused_lbo"
CHECK_UNUSED_BASE = "gpu.address.unused_base_offset"
CHECK_HYPOTHESIS = "gpu.hypothesis"
CHECK_WMMA_LOAD = "gpu.wmma.load"
CHECK_WMMA_STORE = "gpu.wmma.store"
CHECK_WMMA_ALIGN = "gpu.wmma.align"


# --- what runs: the plan (pure, CPU) ---------------------------------------------------------


def n_values(spec: Spec, row: InstructionType) -> tuple[int, int, int]:
    """The smallest, a middle and the largest valid N of a type row (spec valid_n)."""
    from ptxconf.oracle.fragments import valid_n_for

    ns, _ = valid_n_for(spec, row)
    return ns[0], ns[len(ns) // 2], ns[-1]


@dataclass(frozen=True)
class Probe:
    """One wgmma instruction form with its operands' major-ness."""

    row: InstructionType
    n: int
    satfinite: bool
    rs: bool
    major: str

    @property
    def variant(self) -> WgmmaVariant:
        """The kernel's variant: imm-trans = 1 for MN-major shared-memory operands."""
        mn = int(self.major == "MN")
        return WgmmaVariant(n=self.n, k=self.row.k_elems, dtype=self.row.dtype,
                            atype=self.row.atype, btype=self.row.btype, a_from_regs=self.rs,
                            trans_a=0 if self.rs else mn, trans_b=mn, satfinite=self.satfinite)

    @property
    def form(self) -> str:
        """'RS' (A in registers) or 'SS'."""
        return "RS" if self.rs else "SS"


def majors(row: InstructionType) -> tuple[str, ...]:
    """K-major for every type; MN-major where the instruction transposes (16-bit types)."""
    v = WgmmaVariant(n=8, k=row.k_elems, dtype=row.dtype, atype=row.atype, btype=row.btype)
    return ("K", "MN") if v.takes_trans else ("K",)


def e2e_probes(spec: Spec) -> list[tuple[Probe, str]]:
    """(probe, swizzle) of every end-to-end case: each type row, .satfinite where it exists,
    smallest/middle/largest N, SS and RS, every major-ness x swizzle mode."""
    out = []
    for row in spec.of(InstructionType):
        for n in n_values(spec, row):
            for sat in (False, True) if row.satfinite else (False,):
                for rs in (False, True):
                    for major in majors(row):
                        for sw in SWIZZLES:
                            out.append((Probe(row, n, sat, rs, major), sw))
    return out


@dataclass(frozen=True)
class Plan:
    """Every kernel the run needs, in compile batches (one module each)."""

    wgmma_batches: dict[str, tuple[WgmmaVariant, ...]]
    wmma: tuple[WmmaVariant, ...]

    def batch_of(self) -> dict[Any, str]:
        """Variant -> batch key."""
        out: dict[Any, str] = {v: key for key, vs in self.wgmma_batches.items() for v in vs}
        out.update({v: "wmma" for v in self.wmma})
        return out


def plan(spec: Spec) -> Plan:
    """The kernels of every case, grouped by N role (the N=256 kernels compile slowest)."""
    roles = ("smallest N", "middle N", "largest N")
    batches: dict[str, dict[WgmmaVariant, None]] = {f"wgmma:{r}": {} for r in roles}
    for p, _ in e2e_probes(spec):
        role = roles[n_values(spec, p.row).index(p.n)]
        batches[f"wgmma:{role}"][p.variant] = None
    return Plan({k: tuple(v) for k, v in batches.items()}, tuple(wmma_probe_variants()))


# --- the device session ----------------------------------------------------------------------


def _device_line(info: dict[str, Any]) -> str:
    if "error" in info:
        return f"unusable: {info['error']}"
    return (f"{info.get('name')} (cc {info.get('compute_capability')}; driver "
            f"{info.get('cuda_driver_version')}; CUDA runtime {info.get('cuda_runtime_version')}"
            f"; CuPy {info.get('cupy_version')})")


class Session:
    """One ProbeRunner worker for the whole run, the compile batches it has loaded, and what
    every case shares (device line, raw-dump budget)."""

    def __init__(self, spec: Spec, runner: Any) -> None:
        self.spec = spec
        self.runner = runner
        self.plan = plan(spec)
        self.batch_of = self.plan.batch_of()
        self.device: str | None = None
        self.device_info: dict[str, Any] = {}
        self.compile_errors: dict[str, str] = {}
        self.compile_seconds: dict[str, float] = {}
        self._prepared: set[str] = set()
        self._generation = getattr(runner, "restarts", 0)
        self.raw_budget = RAW_DUMP_BUDGET

    def describe(self) -> None:
        """Ask the worker what the device is (once)."""
        info = self.runner.call("device.describe", timeout_s=180)
        self.device_info = info.value if info.ok else {"error": info.error}
        self.device = _device_line(self.device_info)

    def close(self) -> None:
        """End the worker."""
        self.runner.close()

    def _sync(self) -> None:
        restarts = getattr(self.runner, "restarts", 0)
        if restarts != self._generation:
            self._generation = restarts
            self._prepared.clear()

    def batch(self, key: str) -> tuple[str, Sequence[Any]]:
        """(probe function, variants) of a compile batch."""
        if key == "wmma":
            return "prepare_wmma", self.plan.wmma
        return "prepare_wgmma", self.plan.wgmma_batches[key]

    def prepare(self, key: str) -> Any:
        """Compile (or load from CuPy's disk cache) one batch in the current worker."""
        self._sync()
        fn, vs = self.batch(key)
        res = self.runner.call(fn, list(vs), timeout_s=COMPILE_TIMEOUT_S)
        self._sync()
        if res.ok:
            self._prepared.add(key)
            self.compile_errors.pop(key, None)
        else:
            self.compile_errors[key] = str(res.error)
        self.compile_seconds.setdefault(key, res.seconds)
        return res

    def ensure(self, variants: Sequence[Any]) -> None:
        """Load the batches these variants live in, if this worker has not yet."""
        self._sync()
        for key in dict.fromkeys(self.batch_of.get(v, "") for v in variants):
            if key and key not in self._prepared and key not in self.compile_errors:
                self.prepare(key)

    def call(self, name: str, *args: Any, variants: Sequence[Any] = (),
             timeout_s: float = PROBE_TIMEOUT_S, **kwargs: Any) -> Any:
        """runner.call with the variants' batches loaded first."""
        self.ensure(variants)
        return self.runner.call(name, *args, timeout_s=timeout_s, **kwargs)

    def run_wgmma(self, v: WgmmaVariant, launches: list[dict[str, Any]]) -> list[Any]:
        """Run launches of one variant; a fault raises a FAIL outcome with the CUDA error."""
        res = self.call("run_wgmma_batch", v, launches, variants=[v])
        if not res.ok:
            raise fail(f"{v.ptx_name} ({v.form.upper()}, trans {v.trans_a}{v.trans_b}): the probe "
                       f"failed ({res.error_kind}): {res.error}", error_kind=res.error_kind,
                       error=res.error, kernel=v.kernel_name)
        return list(res.value)

    def attach_raw(self, details: dict[str, Any], **arrays: np.ndarray) -> None:
        """Attach raw dumps (base64 of zlib) to a failing case's details, while budget lasts."""
        if self.raw_budget <= 0:
            details["raw"] = "not attached (raw-dump budget of the run spent)"
            return
        self.raw_budget -= 1
        out = {}
        for name, arr in arrays.items():
            a = np.ascontiguousarray(arr)
            out[name] = {"dtype": str(a.dtype), "shape": list(a.shape),
                         "zlib_b64": base64.b64encode(zlib.compress(a.tobytes(), 9)).decode()}
        details["raw"] = out


_SESSION: Session | None = None


def _new_runner() -> Any:
    from .runner import ProbeRunner

    return ProbeRunner(timeout_s=PROBE_TIMEOUT_S, start_timeout_s=180)


def _session(spec: Spec, runner: Any = None) -> Session:
    global _SESSION
    if _SESSION is None or _SESSION.spec is not spec or (runner is not None
                                                          and _SESSION.runner is not runner):
        if _SESSION is not None and runner is None:
            runner = _SESSION.runner
        _SESSION = Session(spec, runner if runner is not None else _new_runner())
    return _SESSION


def gpu_available(runner: Any = None) -> tuple[bool, str]:
    """(True, device line) when the worker sees a usable sm_90a device; else why not."""
    from ptxconf.oracle.spec import default_spec

    sess = _session(default_spec(), runner)
    res = sess.runner.call("device.usable_sm90a", timeout_s=180)
    if not res.ok:
        return False, f"device check failed in the probe worker: {res.error}"
    ok, why = res.value
    if ok:
        sess.describe()
    return bool(ok), str(why)


# --- case plumbing ---------------------------------------------------------------------------


Body = Callable[[Session], "tuple[str, dict[str, Any]]"]


PROVIDER = "gpu"


def _case(sess_ref: Callable[[], Session], check: str, key: str, body: Body) -> Case:
    """A GPU case: its body gets the run's session; (message, fields) is a PASS."""

    def run() -> Outcome:
        sess = sess_ref()
        if not sess.device_info:
            sess.describe()
        message, fields = body(sess)
        return Outcome(Status.PASS, "ok", message, fields)

    def device() -> str | None:
        return sess_ref().device

    return case(check, key, run, PROVIDER, device)


def _desc_args(spec: Spec) -> dict[str, int]:
    f = descriptor_format(spec).field("start_address")
    return {"desc_start_shift": f.encode_shift_bits, "desc_start_lsb": f.lsb_bits}


def _desc(spec: Spec, lay: I.OperandLayout, base_offset: int = 0, lbo: int | None = None,
          start: int = 0) -> int:
    """The descriptor relative to the bytes handed to the probe (start: the operand's offset
    into them); the kernel adds their shared-memory address."""
    return descriptor_format(spec).encode(
        start_address_bytes=start, lbo_bytes=lay.lbo_bytes if lbo is None else lbo,
        sbo_bytes=lay.sbo_bytes, swizzle=lay.swizzle, base_offset=base_offset)


def _layout(spec: Spec, dtype: str, major: str, swizzle: str, mn: int, k: int) -> I.OperandLayout:
    lbo, sbo = I.compact_strides(spec, dtype, major, swizzle, mn, k)
    return I.OperandLayout(dtype, major, swizzle, mn, k, lbo, sbo)


def _layouts(spec: Spec, v: WgmmaVariant, major: str, swizzle: str
             ) -> tuple[I.OperandLayout, I.OperandLayout]:
    """(A, B) operand layouts of a variant in one major-ness and swizzle, compact strides."""
    return (_layout(spec, v.atype, major, swizzle, v.m, v.k),
            _layout(spec, v.btype, major, swizzle, v.n, v.k))


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def _placed(spec: Spec, vals: np.ndarray, lay: I.OperandLayout, size: int = 0,
            raw: bool = False) -> tuple[bytes, int]:
    """Operand bytes with the values placed by the layout's offsets, then GUARD_BYTES of zeros,
    and the lead: how many bytes before the operand start the bytes begin (a swizzle acting on
    an unaligned start's absolute address can put an element before the start)."""
    bits = I.element_bits(spec, lay.dtype)
    offs = I.offsets(spec, lay)
    if not I.offsets_injective(offs):
        raise ValueError(f"{lay.atom} {lay.dtype} LBO={lay.lbo_bytes} SBO={lay.sbo_bytes}: two "
                         "elements share an address")
    unit = I.BITS_PER_BYTE if bits < I.BITS_PER_BYTE else 1
    lead = _round_up(max(0, -int(offs.min()) // unit), 16) if offs.size else 0
    offs = offs + lead * unit
    raw_bits = vals if raw else I.encode(spec, lay.dtype, vals)
    need = I.footprint_bytes(offs, bits)
    total = _round_up(max(need, size + lead), 16) + GUARD_BYTES
    return I.place(raw_bits, offs, bits, total).tobytes(), lead


def _image(spec: Spec, vals: np.ndarray, lay: I.OperandLayout, size: int = 0,
           raw: bool = False) -> bytes:
    """Operand bytes from the operand start (ValueError if an element sits before it)."""
    img, lead = _placed(spec, vals, lay, size, raw)
    if lead:
        raise ValueError(f"{lay.atom}: elements {lead} B before the operand start")
    return img


def _a_regs(spec: Spec, v: WgmmaVariant, raw: np.ndarray) -> np.ndarray:
    table = I.fragment_table(spec, v.ptx_name, "A")
    return I.regs_from_matrix(raw, table, WARPGROUP_THREADS, v.nreg_a,
                              I.element_bits(spec, v.atype))


def _launch(spec: Spec, v: WgmmaVariant, a: bytes | np.ndarray, b: bytes, a_desc: int | None,
            b_desc: int, **kw: Any) -> dict[str, Any]:
    """Keyword arguments of one run_wgmma_dump: A as bytes (SS) or register words (RS)."""
    if v.a_from_regs:
        return {"a_smem": None, "b_smem": b, "a_desc_rel": None, "b_desc_rel": b_desc,
                "a_regs": a, **_desc_args(spec), **kw}
    return {"a_smem": a, "b_smem": b, "a_desc_rel": a_desc, "b_desc_rel": b_desc,
            **_desc_args(spec), **kw}


def _acc_bits(spec: Spec, v: WgmmaVariant) -> int:
    return I.element_bits(spec, v.dtype)


def _d_matrix(spec: Spec, v: WgmmaVariant, regs: np.ndarray) -> np.ndarray:
    table = I.fragment_table(spec, v.ptx_name, "D")
    return I.matrix_from_regs(regs, table, (v.m, v.n), _acc_bits(spec, v))


def _acc_fmt(spec: Spec, dtype: str) -> Callable[[Any], str]:
    def fmt(raw: Any) -> str:
        val = I.decode(spec, dtype, np.asarray([int(raw)], dtype=np.uint64))[0]
        return f"{I.int_fmt(val)} ({int(raw):#x})"

    return fmt


def _lay_details(lay: I.OperandLayout) -> dict[str, Any]:
    return {"layout": lay.atom, "dtype": lay.dtype, "mn": lay.mn, "k": lay.k,
            "lbo_bytes": lay.lbo_bytes, "sbo_bytes": lay.sbo_bytes, "oracle": lay.reproduce()}


def _rng(case_key: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(case_key.encode()))


def _product(spec: Spec, v: WgmmaVariant, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random exact operands A (M x K), B (N x K) and the raw bits of D = A @ B^T."""
    rng = _rng(key)
    a = I.random_operand(spec, v.atype, (v.m, v.k), rng, acc_dtype=v.dtype, k=v.k)
    b = I.random_operand(spec, v.btype, (v.n, v.k), rng, acc_dtype=v.dtype, k=v.k)
    return a, b, I.encode(spec, v.dtype, I.matmul(a, b))


def _run_product(sess: Session, v: WgmmaVariant, a: np.ndarray, b: np.ndarray,
                 a_lay: I.OperandLayout, b_lay: I.OperandLayout, *,
                 a_place: I.OperandLayout | None = None, b_place: I.OperandLayout | None = None,
                 a_base_offset: int = 0, b_base_offset: int = 0, a_offset: int = 0,
                 b_offset: int = 0, lbo: int | None = None, a_size: int = 0,
                 b_size: int = 0) -> list[Any]:
    """One launch: A and B placed by a_place/b_place (default: the descriptors' layouts),
    each starting a_offset/b_offset bytes into its region, with the base-offset fields given."""
    spec = sess.spec
    a_lead = 0
    if v.a_from_regs:
        a_in: bytes | np.ndarray = _a_regs(spec, v, I.encode(spec, v.atype, a))
        a_desc = None
    else:
        a_in, a_lead = _placed(spec, a, a_place or a_lay, a_size)
        a_desc = _desc(spec, a_lay, a_base_offset, lbo, start=a_lead)
    b_img, b_lead = _placed(spec, b, b_place or b_lay, b_size)
    if a_lead > a_offset or b_lead > b_offset:
        raise ValueError(f"elements before the region start (A {a_lead} B before +{a_offset}, "
                         f"B {b_lead} B before +{b_offset})")
    kw = _launch(spec, v, a_in, b_img, a_desc,
                 _desc(spec, b_lay, b_base_offset, lbo, start=b_lead),
                 smem_a_offset_bytes=a_offset - a_lead, smem_b_offset_bytes=b_offset - b_lead)
    dumps = sess.run_wgmma(v, [kw])
    _check_starts(dumps[0], a_offset - a_lead, b_offset - b_lead)
    return dumps


def _check_starts(dump: Any, a_offset: int, b_offset: int | None = None) -> None:
    """Each operand's region starts on REGION_ALIGN_BYTES, as the layouts' phase assumes."""
    b_offset = a_offset if b_offset is None else b_offset
    for what, addr, off in (("A", dump.a_start_address, a_offset),
                            ("B", dump.b_start_address, b_offset)):
        if addr is not None and (addr - off) % REGION_ALIGN_BYTES:
            raise fail(f"{what} starts at {addr:#x}: its region is not {REGION_ALIGN_BYTES}-byte "
                       "aligned, so the layouts' swizzle phase is not what the host assumed",
                       smem_base_address=hex(dump.smem_base_address))


# --- wgmma: end to end ---------------------------------------------------------------------


def _e2e_body(p: Probe, swizzle: str, key: str) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = _layouts(spec, v, p.major, swizzle)
        a, b, want = _product(spec, v, key)
        dump = _run_product(sess, v, a, b, a_lay, b_lay)[0]
        _check_starts(dump, 0)
        got = _d_matrix(spec, v, dump.regs)
        diff = I.diff_grid(f"D = A·Bᵀ ({v.dtype})", want, got, axes=("m", "n"),
                           fmt=_acc_fmt(spec, v.dtype))
        details: dict[str, Any] = {
            "kernel": v.kernel_name, "B": _lay_details(b_lay),
            "descriptors": {"A": None if v.a_from_regs else hex(dump.a_desc),
                            "B": hex(dump.b_desc)},
            "operand_range": list(I.operand_range(spec, v.atype, v.dtype, v.k)),
            "diff": diff.details()}
        if v.a_from_regs:
            details["A"] = "registers, by ptxconf oracle fragment --operand A (a_regs_like_d16)"
        else:
            details["A"] = _lay_details(a_lay)
        if not diff.ok:
            sess.attach_raw(details, regs=dump.regs, a=a, b=b)
            raise fail(f"{v.ptx_name} {p.form} {a_lay.atom if not v.a_from_regs else 'regs'}/"
                       f"{b_lay.atom}: {diff.message()}", **details)
        a_text = ("registers" if v.a_from_regs
                  else f"{a_lay.atom} LBO={a_lay.lbo_bytes} SBO={a_lay.sbo_bytes}")
        return (f"D bit-exact vs host matmul, {diff.total} elements (A: {a_text}; B: "
                f"{b_lay.atom} LBO={b_lay.lbo_bytes} SBO={b_lay.sbo_bytes})"), details

    return body


# --- wgmma: discovery ----------------------------------------------------------------------


def _acc_values(spec: Spec, v: WgmmaVariant, raw: np.ndarray) -> np.ndarray:
    return I.accumulator_values(spec, v.dtype, raw)


def _d_map_body(p: Probe) -> Body:
    """D[m, n] digit-coded: A[m, 0] = digit of m, B[n, 0] = 1 (then the other way round)."""

    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = _layouts(spec, v, "K", "none")
        plan_m = I.digit_plan(spec, v.atype, v.m, v.dtype)
        plan_n = I.digit_plan(spec, v.btype, v.n, v.dtype)
        launches = []
        rows, cols = np.arange(v.m), np.arange(v.n)
        for which, plan_, coded in (("m", plan_m, rows), ("n", plan_n, cols)):
            for j in range(plan_.digits):
                a = np.zeros((v.m, v.k), dtype=np.int64)
                b = np.zeros((v.n, v.k), dtype=np.int64)
                if which == "m":
                    a[:, 0], b[:, 0] = plan_.digit(coded, j), 1
                else:
                    a[:, 0], b[:, 0] = 1, plan_.digit(coded, j)
                launches.append(_launch(spec, v, _image(spec, a, a_lay), _image(spec, b, b_lay),
                                        _desc(spec, a_lay), _desc(spec, b_lay)))
        dumps = sess.run_wgmma(v, launches)
        bits = _acc_bits(spec, v)
        vals = [_acc_values(spec, v, I.register_slots(d.regs, bits)) for d in dumps]
        got_m = plan_m.combine(vals[: plan_m.digits])
        got_n = plan_n.combine(vals[plan_m.digits:])
        table = I.fragment_table(spec, v.ptx_name, "D")
        per = got_m.shape[2]
        exp = np.full(got_m.shape, -1, dtype=np.int64)
        exp[table[:, 0], table[:, 1], table[:, 2]] = table[:, 3] * v.n + table[:, 4]
        got = got_m * v.n + got_n
        shape2 = (got.shape[0], got.shape[1] * per)

        def fmt(c: Any) -> str:
            return "none" if int(c) < 0 else f"D({int(c) // v.n},{int(c) % v.n})"

        diff = I.diff_grid(f"accumulator map of {v.ptx_name}", exp.reshape(shape2),
                           got.reshape(shape2), axes=("thread", "slot"), fmt=fmt,
                           extra={"slot": f"register * {per} + subelement"})
        details = {"kernel": v.kernel_name, "launches": len(launches),
                   "oracle": f"ptxconf oracle fragment --instr {v.ptx_name} --operand D --json",
                   "silicon_map": I.fingerprint(got), "diff": diff.details()}
        if not diff.ok:
            sess.attach_raw(details, discovered=got)
            raise fail(diff.message(), **details)
        return (f"all {diff.total} accumulator slots hold the (m, n) the oracle's D map says "
                f"({len(launches)} launches)"), details

    return body


def _smem_map_body(p: Probe, operand: str, swizzle: str) -> Body:
    """Index-code one operand's region, make the other one-hot: D reveals the address each
    (mn, k) was read from."""

    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = _layouts(spec, v, p.major, swizzle)
        coded = a_lay if operand == "A" else b_lay
        dtype = coded.dtype
        bits = I.element_bits(spec, dtype)
        offs = I.offsets(spec, coded)
        region = _round_up(I.footprint_bytes(offs, bits), REGION_ALIGN_BYTES) + GUARD_BYTES
        count = region * I.BITS_PER_BYTE // bits
        plan_ = I.digit_plan(spec, dtype, count, v.dtype)
        step = v.n if operand == "A" else v.m  # k values one launch reveals
        shifts = -(-v.k // step)
        launches = []
        for s in range(shifts):
            if operand == "A":
                partner = _image(spec, I.one_hot(v.n, v.k, s * step), b_lay)
            else:
                partner = _image(spec, I.one_hot(v.m, v.k, s * step), a_lay)
            for j in range(plan_.digits):
                img = I.index_image(spec, dtype, region, plan_, j).tobytes()
                a_img, b_img = (img, partner) if operand == "A" else (partner, img)
                launches.append(_launch(spec, v, a_img, b_img, _desc(spec, a_lay),
                                        _desc(spec, b_lay)))
        dumps = sess.run_wgmma(v, launches)
        _check_starts(dumps[0], 0)
        mn = coded.mn
        slots = np.full((mn, v.k), -1, dtype=np.int64)
        for s in range(shifts):
            digits = [_acc_values(spec, v, _d_matrix(spec, v, d.regs))
                      for d in dumps[s * plan_.digits:(s + 1) * plan_.digits]]
            code = plan_.combine(digits)  # [M, N]
            ks = np.arange(step) + s * step
            ok = ks < v.k
            if operand == "A":
                slots[:, ks[ok]] = code[:, : step][:, ok]
            else:
                slots[:, ks[ok]] = code[: step, :].T[:, ok]
        found = I.slot_to_offset(slots, bits)
        units = I.address_units(spec, dtype)
        diff = I.diff_grid(f"{operand} {coded.atom} {dtype} address map ({units} from the "
                           "operand start)", offs, found,
                           axes=("m" if operand == "A" else "n", "k"), fmt=I.hex_fmt,
                           extra={"oracle": coded.reproduce()})
        details = {"kernel": v.kernel_name, "operand": _lay_details(coded),
                   "launches": len(launches), "digits": f"{plan_.digits} x base {plan_.base}",
                   "silicon_map": I.fingerprint(found), "diff": diff.details()}
        if not diff.ok:
            sess.attach_raw(details, discovered=found)
            raise fail(diff.message(), **details)
        return (f"{operand} {coded.atom} {dtype}: all {diff.total} (mn, k) read from the "
                f"oracle's address ({len(launches)} launches)"), details

    return body


def _a_regs_discovery(sess: Session, v: WgmmaVariant) -> tuple[np.ndarray, np.ndarray, int]:
    """(expected, found) slot codes [M, K] of register A, and the launches it took."""
    spec = sess.spec
    bits = I.element_bits(spec, v.atype)
    per = I.REGISTER_BITS // bits
    count = WARPGROUP_THREADS * v.nreg_a * per
    plan_ = I.digit_plan(spec, v.atype, count, v.dtype)
    codes = np.arange(count, dtype=np.int64).reshape(WARPGROUP_THREADS, v.nreg_a, per)
    _, b_lay = _layouts(spec, v, "MN" if v.trans_b else "K", "none")
    shifts = -(-v.k // v.n)
    launches = []
    for s in range(shifts):
        partner = _image(spec, I.one_hot(v.n, v.k, s * v.n), b_lay)
        for j in range(plan_.digits):
            raw = I.encode(spec, v.atype, plan_.digit(codes, j))
            words = np.zeros((WARPGROUP_THREADS, v.nreg_a), dtype=np.uint64)
            for sub in range(per):
                words |= raw[:, :, sub] << np.uint64(sub * bits)
            launches.append(_launch(spec, v, words.astype(np.uint32), partner, None,
                                    _desc(spec, b_lay)))
    dumps = sess.run_wgmma(v, launches)
    found = np.full((v.m, v.k), -1, dtype=np.int64)
    for s in range(shifts):
        digits = [_acc_values(spec, v, _d_matrix(spec, v, d.regs))
                  for d in dumps[s * plan_.digits:(s + 1) * plan_.digits]]
        code = plan_.combine(digits)
        ks = np.arange(v.n) + s * v.n
        ok = ks < v.k
        found[:, ks[ok]] = code[:, ok]
    table = I.fragment_table(spec, v.ptx_name, "A")
    expected = np.full((v.m, v.k), -1, dtype=np.int64)
    expected[table[:, 3], table[:, 4]] = (table[:, 0] * v.nreg_a + table[:, 1]) * per + table[:, 2]
    return expected, found, len(launches)


def _slot_fmt(v: WgmmaVariant, per: int) -> Callable[[Any], str]:
    def fmt(c: Any) -> str:
        c = int(c)
        if c < 0:
            return "none"
        t, rest = divmod(c, v.nreg_a * per)
        r, s = divmod(rest, per)
        return f"t{t}.r{r}.s{s}"

    return fmt


def _a_regs_body(p: Probe) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        expected, found, launches = _a_regs_discovery(sess, v)
        per = I.REGISTER_BITS // I.element_bits(spec, v.atype)
        diff = I.diff_grid(f"register A map of {v.ptx_name} (thread.register.subelement "
                           "holding A[m, k])", expected, found, axes=("m", "k"),
                           fmt=_slot_fmt(v, per))
        details = {"kernel": v.kernel_name, "launches": launches,
                   "hypothesis": "a_regs_like_d16",
                   "oracle": f"ptxconf oracle fragment --instr {v.ptx_name} --operand A --json",
                   "silicon_map": I.fingerprint(found), "diff": diff.details(),
                   "silicon_followed": "a_regs_like_d16" if diff.ok else "another map"}
        if not diff.ok:
            sess.attach_raw(details, discovered=found)
            raise fail(diff.message(), **details)
        return (f"register A: all {diff.total} elements sit where a_regs_like_d16 says "
                f"({launches} launches)"), details

    return body


# --- wgmma: address sensitivity --------------------------------------------------------------


def _rule(spec: Spec, swizzle: str) -> BaseOffsetRule:
    return next(r for r in spec.of(BaseOffsetRule) if r.swizzle == swizzle)


def _base_offset_field(rule: BaseOffsetRule, start: int) -> int:
    return (start >> rule.address_shift_bits) & rule.mask


def _agreement(spec: Spec, v: WgmmaVariant, dump: Any, want: np.ndarray) -> tuple[bool, str]:
    got = _d_matrix(spec, v, dump.regs)
    bad = int((got != want).sum())
    return bad == 0, "agrees" if bad == 0 else f"disagrees ({bad}/{want.size} elements)"


Change = dict[str, Any]


def _try_readings(sess: Session, v: WgmmaVariant, key: str, a_lay: I.OperandLayout,
                  b_lay: I.OperandLayout, readings: dict[str, tuple[Change, Change]],
                  **kw: Any) -> dict[str, str]:
    """Run one product per reading (A and B placed as that reading says, with the same
    descriptors); what silicon did with each."""
    spec = sess.spec
    a, b, want = _product(spec, v, key)
    out: dict[str, str] = {}
    seen: dict[tuple[Any, ...], str] = {}

    def reach(*lays: I.OperandLayout) -> int:
        return max(I.footprint_bytes(I.offsets(spec, x), I.element_bits(spec, x.dtype))
                   for x in lays)

    for name, (a_change, b_change) in readings.items():
        a_place = replace(a_lay, **a_change)
        b_place = replace(b_lay, **b_change)
        placed = tuple(I.offsets(spec, x).tobytes() for x in (a_place, b_place))
        if placed in seen:  # the same placement as an earlier reading: the same answer
            out[name] = seen[placed]
            continue
        for lay in (a_place, b_place):
            if not I.offsets_injective(I.offsets(spec, lay)):
                out[name] = f"not placeable: {lay.atom} puts two elements at one address"
                break
        else:
            dump = _run_product(sess, v, a, b, a_lay, b_lay, a_place=a_place, b_place=b_place,
                                a_size=reach(a_lay, a_place), b_size=reach(b_lay, b_place),
                                **kw)[0]
            out[name] = _agreement(spec, v, dump, want)[1]
        seen[placed] = out[name]
    return out


def _same(change: Change) -> tuple[Change, Change]:
    return change, change


def _merge(into: dict[str, str], outcome: dict[str, str]) -> None:
    """A reading agrees overall only where it agreed every time."""
    for r, o in outcome.items():
        if into.get(r, "agrees") == "agrees":
            into[r] = o


#: A model of the base-offset field fitted by the probes (not one of the oracle's readings):
#: the swizzle acts on the address minus (field << address_shift_bits).
FIELD_MODEL = "absolute_minus_field"
FIELD_MODEL_TEXT = "swizzle(start + offset - (field << 7))"


def _start_sweep(sess: Session, v: WgmmaVariant, key: str, a_lay: I.OperandLayout,
                 b_lay: I.OperandLayout, rule: BaseOffsetRule, offset: int,
                 with_field: bool) -> tuple[dict[str, str], int]:
    """A displaced (B aligned), then B displaced (A aligned): moving both alike can leave D
    unchanged (the same K permutation of A's and B's rows), so each moves alone."""
    field_value = _base_offset_field(rule, offset) if with_field else 0
    phase = offset % rule.repeat_bytes
    shifted = (offset - (field_value << rule.address_shift_bits)) % rule.repeat_bytes
    merged: dict[str, str] = {}
    for which in ("A", "B"):
        still = {"base_offset_bytes": 0}

        def moved(bytes_: int, which: str = which, still: Change = still
                  ) -> tuple[Change, Change]:
            m = {"base_offset_bytes": bytes_}
            return (m, still) if which == "A" else (still, m)

        readings = {"absolute": moved(phase), "relative": (still, still),
                    FIELD_MODEL: moved(shifted)}
        kw = ({"a_offset": offset, "a_base_offset": field_value} if which == "A"
              else {"b_offset": offset, "b_base_offset": field_value})
        _merge(merged, _try_readings(sess, v, f"{key}.{which}", a_lay, b_lay, readings, **kw))
    return merged, field_value


def _verdict(h_name: str, documented: str, outcome: dict[str, str], what: str,
             details: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """PASS when silicon follows the documented reading (alone where the input
    distinguishes); DISCREPANCY when only another reading matches; FAIL when none does."""
    agree = sorted(r for r, o in outcome.items() if o == "agrees")
    details = {**details, "readings": outcome, "silicon_followed": agree or None,
               "documented": documented, "hypothesis": h_name}
    if agree == [documented]:
        return f"{what}: silicon follows the documented reading '{documented}'", details
    if documented in agree:
        raise outcome(Status.UNKNOWN, "undecided", f"{what}: the input does not distinguish: "
                      f"readings {agree} all agree with silicon", **details)
    if agree:
        raise discrepancy(f"{what}: silicon follows {agree}, not the documented reading "
                          f"'{documented}'", code="silicon_disagrees", **details)
    raise fail(f"{what}: silicon follows no reading of {h_name}: {outcome}", **details)


def _start_body(p: Probe, swizzle: str, offset: int, with_field: bool, key: str) -> Body:
    """An observation: which readings of the base-offset rule silicon's D agrees with."""

    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = _layouts(spec, v, p.major, swizzle)
        rule = _rule(spec, swizzle)
        outcome, field_value = _start_sweep(sess, v, key, a_lay, b_lay, rule, offset,
                                            with_field)
        agree = sorted(r for r, o in outcome.items() if o == "agrees")
        details = {"kernel": v.kernel_name, "start_offset_bytes": offset,
                   "swizzle_repeat_bytes": rule.repeat_bytes, "base_offset_field": field_value,
                   "readings": outcome, "silicon_followed": agree or None,
                   "model": f"{FIELD_MODEL}: {FIELD_MODEL_TEXT}",
                   "A": _lay_details(a_lay), "B": _lay_details(b_lay)}
        what = (f"A, then B, start {offset} B past a {rule.repeat_bytes}-B repeat, base-offset "
                f"field {field_value}")
        if not agree:
            raise fail(f"{what}: silicon follows no reading: {outcome}", **details)
        return f"{what}: silicon follows {agree}", details

    return body


def _unused_lbo_body(p: Probe, swizzle: str, key: str) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = _layouts(spec, v, "K", swizzle)
        a, b, want = _product(spec, v, key)
        seen = {}
        for lbo in UNUSED_LBO_BYTES:
            dump = _run_product(sess, v, a, b, a_lay, b_lay, lbo=lbo)[0]
            seen[str(lbo)] = _agreement(spec, v, dump, want)[1]
        details = {"kernel": v.kernel_name, "lbo_bytes_tried": seen,
                   "sbo_bytes": b_lay.sbo_bytes, "A": _lay_details(a_lay),
                   "B": _lay_details(b_lay)}
        changed = {k: o for k, o in seen.items() if o != "agrees"}
        details["silicon_followed"] = "ignored" if not changed else "used"
        if changed:
            raise discrepancy(f"K-major {swizzle}: the LBO the PTX ISA calls 'not used' changes "
                              f"D: {changed}", **details)
        return (f"K-major {swizzle} {v.atype}: D identical for LBO = "
                f"{', '.join(seen)} bytes: the field is ignored"), details

    return body


def _unused_base_body(p: Probe, key: str) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec, v = sess.spec, p.variant
        a_lay, b_lay = _layouts(spec, v, p.major, "none")
        a, b, want = _product(spec, v, key)
        width = descriptor_format(spec).field("base_offset").width_bits
        seen = {}
        for value in range(1 << width):
            dump = _run_product(sess, v, a, b, a_lay, b_lay, a_base_offset=value,
                                b_base_offset=value)[0]
            seen[str(value)] = _agreement(spec, v, dump, want)[1]
        details = {"kernel": v.kernel_name, "base_offset_field": seen,
                   "A": _lay_details(a_lay), "B": _lay_details(b_lay)}
        changed = {k: o for k, o in seen.items() if o != "agrees"}
        details["silicon_followed"] = "ignored" if not changed else "used"
        if changed:
            raise discrepancy(f"{p.major}-major, no swizzle: the base-offset field (defined only "
                              f"for swizzled layouts) changes D: {changed}", code="silicon_disagrees",
                              **details)
        return (f"{p.major}-major, no swizzle: D identical for base-offset field 0..{(1 << width) - 1}"
                ": ignored"), details

    return body


# --- hypotheses -----------------------------------------------------------------------------


_PROOF_PROBES: dict[int, tuple[list[Any], str | None]] = {}


def _proof_probes(spec: Spec) -> tuple[list[Any], str | None]:
    """The proofs' distinguishing inputs (ptxconf.oracle.proofs.distinguish), computed once;
    with why they are missing, if they are."""
    if id(spec) not in _PROOF_PROBES:
        try:
            from ptxconf.oracle.proofs.distinguish import distinguishing_probes
        except ImportError as exc:
            _PROOF_PROBES[id(spec)] = ([], f"not available here ({exc})")
        else:
            try:
                _PROOF_PROBES[id(spec)] = (list(distinguishing_probes(spec)), None)
            except Exception as exc:  # noqa: BLE001 - recorded; the built-in probes still run
                _PROOF_PROBES[id(spec)] = ([], f"distinguishing_probes raised "
                                               f"{type(exc).__name__}: {exc}")
    return _PROOF_PROBES[id(spec)]


def _proof_instruction(spec: Spec, pr: Any) -> tuple[Probe, str] | str:
    """The SS probe that reads the proof's coordinate in its operand, or why none can."""
    mn0, k0 = pr.coord
    rows = [r for r in spec.of(InstructionType) if r.atype == pr.dtype or r.btype == pr.dtype]
    rows = [r for r in rows if pr.major in majors(r)]
    if not rows:
        return f".{pr.dtype} operands cannot be {pr.major}-major in wgmma"
    row = rows[0]
    if k0 >= row.k_elems:
        return f"k={k0} is past the instruction's K={row.k_elems}"
    m = WgmmaVariant(n=8, k=row.k_elems, dtype=row.dtype, atype=row.atype, btype=row.btype).m
    if mn0 < m and row.atype == pr.dtype:
        return Probe(row, n_values(spec, row)[0], False, False, pr.major), "A"
    wide = [n for n in n_values(spec, row) if n > mn0]
    if not wide or row.btype != pr.dtype:
        return f"mn={mn0} is past every N probed for {row.id}"
    return Probe(row, wide[0], False, False, pr.major), "B"


def _run_proof_probe(sess: Session, pr: Any) -> tuple[str, dict[str, str] | str]:
    """Plant a 1 at the address each reading gives for the proof's coordinate (one launch per
    reading), make the partner one-hot at that k, and read the element back from D."""
    spec = sess.spec
    label = f"{pr.row.split(':')[-1]} {pr.dtype}"
    if not pr.distinguishable:
        return label, "the readings coincide (proved): nothing to probe"
    label += (f" LBO={pr.lbo_bytes} SBO={pr.sbo_bytes} start={pr.start_bytes} "
              f"coord={tuple(pr.coord)}")
    found = _proof_instruction(spec, pr)
    if isinstance(found, str):
        return label, f"not runnable: {found}"
    p, operand = found
    v = p.variant
    mn0, k0 = pr.coord
    mn = v.m if operand == "A" else v.n
    dtype = v.atype if operand == "A" else v.btype
    other = v.btype if operand == "A" else v.atype
    lay = I.OperandLayout(dtype, pr.major, pr.swizzle, mn, v.k, pr.lbo_bytes, pr.sbo_bytes)
    partner = _layout(spec, other, pr.major, "none", v.n if operand == "A" else v.m, v.k)
    hot = np.zeros((partner.mn, v.k), dtype=np.int64)
    hot[:, k0] = 1
    bits = I.element_bits(spec, dtype)
    start = pr.start_bytes or 0
    reach = max(int(I.offsets(spec, lay).max()), *pr.addresses) + bits
    size = _round_up(reach // (I.BITS_PER_BYTE if bits < I.BITS_PER_BYTE else 1) + 1, 16)
    size += GUARD_BYTES
    outcome = {}
    for reading, addr in zip(pr.readings, pr.addresses, strict=True):
        img = I.place(I.encode(spec, dtype, [1]), np.asarray([addr]), bits, size).tobytes()
        other_img = _image(spec, hot, partner)
        a_img, b_img = (img, other_img) if operand == "A" else (other_img, img)
        a_lay, b_lay = (lay, partner) if operand == "A" else (partner, lay)
        kw = _launch(spec, v, a_img, b_img, _desc(spec, a_lay), _desc(spec, b_lay),
                     smem_a_offset_bytes=start if operand == "A" else 0,
                     smem_b_offset_bytes=start if operand == "B" else 0)
        dump = sess.run_wgmma(v, [kw])[0]
        d = _acc_values(spec, v, _d_matrix(spec, v, dump.regs))
        got = int(d[mn0, 0] if operand == "A" else d[0, mn0])
        outcome[reading] = "agrees" if got == 1 else f"disagrees (read {got})"
    return f"{label} via {v.ptx_name} {operand}", outcome


def _proof_runs(sess: Session, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """Every proof probe of one hypothesis, run: per-probe outcomes, and their merge."""
    probes_, why = _proof_probes(sess.spec)
    if why:
        return {"unavailable": why}, {}
    per: dict[str, Any] = {}
    merged: dict[str, str] = {}
    for pr in probes_:
        if pr.hypothesis != name:
            continue
        label, outcome = _run_proof_probe(sess, pr)
        per[label] = outcome
        if isinstance(outcome, dict):
            _merge(merged, outcome)
    return per, merged


def _distinct_strides(spec: Spec, lay: I.OperandLayout) -> I.OperandLayout:
    """The layout with LBO/SBO far apart, so that either role reading places without overlap."""
    lbo, sbo = I.separated_strides(spec, lay.dtype, lay.major, lay.swizzle, lay.mn, lay.k)
    return replace(lay, lbo_bytes=lbo, sbo_bytes=sbo)


def _one_swizzled(spec: Spec, v: WgmmaVariant, major: str, sw: str, *,
                  separated: bool = False) -> list[tuple[I.OperandLayout, I.OperandLayout]]:
    """(A, B) with one operand in `sw` and the other unswizzled, both ways round: the readings
    of a swizzled layout then differ in one operand only, so they cannot cancel out in D (as
    the same K permutation of both operands' rows would)."""
    out = []
    for a_sw, b_sw in ((sw, "none"), ("none", sw)):
        a_lay = _layout(spec, v.atype, major, a_sw, v.m, v.k)
        b_lay = _layout(spec, v.btype, major, b_sw, v.n, v.k)
        if separated:
            a_lay, b_lay = _distinct_strides(spec, a_lay), _distinct_strides(spec, b_lay)
        out.append((a_lay, b_lay))
    return out


def _hyp_readings(probes: list[tuple[Probe, str]], h: hypotheses.Hypothesis, field_name: str,
                  what: str, separated: bool = False) -> Body:
    """Place both operands as each reading says (same descriptors); which reading gives D."""

    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec = sess.spec
        per_probe: dict[str, Any] = {}
        merged: dict[str, str] = {}
        for p, sw in probes:
            v = p.variant
            for a_lay, b_lay in _one_swizzled(spec, v, p.major, sw, separated=separated):
                outcome = _try_readings(
                    sess, v, f"hyp.{h.name}.{v.kernel_name}.{a_lay.atom}.{b_lay.atom}", a_lay,
                    b_lay, {r: _same({field_name: r}) for r in h.readings})
                per_probe[f"{v.ptx_name}:{p.form}:A={a_lay.atom}(LBO={a_lay.lbo_bytes},SBO="
                          f"{a_lay.sbo_bytes}):B={b_lay.atom}(LBO={b_lay.lbo_bytes},SBO="
                          f"{b_lay.sbo_bytes})"] = outcome
                _merge(merged, outcome)
        proof, proof_merged = _proof_runs(sess, h.name)
        _merge(merged, proof_merged)
        return _verdict(h.name, h.documented, merged, what, {
            "probes": per_probe, "proof_probes": proof})

    return body


def _hyp_k_lbo(probes: list[tuple[Probe, str]]) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec = sess.spec
        h = hypotheses.K_SWIZZLED_LBO
        per_probe, changed = {}, {}
        for p, sw in probes:
            v = p.variant
            a_lay, b_lay = _layouts(spec, v, "K", sw)
            a, b, want = _product(spec, v, f"hyp.klbo.{v.kernel_name}.{sw}")
            seen = {}
            for lbo in UNUSED_LBO_BYTES:
                dump = _run_product(sess, v, a, b, a_lay, b_lay, lbo=lbo)[0]
                seen[str(lbo)] = _agreement(spec, v, dump, want)[1]
            per_probe[f"{v.ptx_name}:{b_lay.atom}"] = seen
            changed.update({f"{v.kernel_name}:{sw}:lbo={k}": o for k, o in seen.items()
                            if o != "agrees"})
        outcome = {"ignored": "agrees" if not changed else f"disagrees ({len(changed)} runs)",
                   "used": "agrees" if changed else "disagrees (D never changed)"}
        return _verdict(h.name, h.documented, outcome, "K-major swizzled LBO", {
            "probes": per_probe})

    return body


_GROUPS = {(False, True): "field 0", (False, False): "field 0",
           (True, True): "field per rule, start on a 128-B row",
           (True, False): "field per rule, start inside a 128-B row"}


def _hyp_base_offset(probes: list[tuple[Probe, str]]) -> Body:
    """Unaligned starts with the base-offset field 0 and set per the rule, judged apart."""

    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec = sess.spec
        h = hypotheses.BASE_OFFSET
        per_probe: dict[str, Any] = {}
        groups: dict[str, dict[str, str]] = {g: {} for g in dict.fromkeys(_GROUPS.values())}
        for p, sw in probes:
            v = p.variant
            rule = _rule(spec, sw)
            a_lay, b_lay = _layouts(spec, v, p.major, sw)
            for offset in (START_OFFSETS_BYTES[0], ROW_STEP_BYTES, MIXED_OFFSET_BYTES,
                           rule.repeat_bytes // 2):
                for with_field in (False, True):
                    field_value = _base_offset_field(rule, offset) if with_field else 0
                    if with_field and not field_value:
                        continue
                    outcome, _ = _start_sweep(
                        sess, v, f"hyp.base.{v.kernel_name}.{sw}.{offset}", a_lay, b_lay, rule,
                        offset, with_field)
                    per_probe[f"{v.ptx_name}:{b_lay.atom}:+{offset}:field={field_value}"] = outcome
                    group = _GROUPS[(bool(field_value), offset % ROW_STEP_BYTES == 0)]
                    _merge(groups[group], outcome)
        proof, proof_merged = _proof_runs(sess, h.name)
        _merge(groups["field 0"], proof_merged)
        followed = {g: sorted(r for r, o in out.items() if o == "agrees")
                    for g, out in groups.items()}
        details = {"probes": per_probe, "proof_probes": proof, "readings": groups,
                   "silicon_followed": followed, "documented": h.documented,
                   "hypothesis": h.name, "model": f"{FIELD_MODEL}: {FIELD_MODEL_TEXT}"}
        official = {g: [r for r in agree if r in h.readings] for g, agree in followed.items()}
        if all(h.documented in agree for agree in official.values()):
            if any(len(agree) > 1 for agree in official.values()):
                raise outcome(Status.UNKNOWN, "undecided", "unaligned operand start: the probes "
                              f"do not distinguish: {official}", **details)
            return ("unaligned operand start: silicon follows the documented reading "
                    f"'{h.documented}' with the base-offset field 0 and set per the rule"), details
        fits = all(FIELD_MODEL in agree for agree in followed.values())
        text = "; ".join(f"{g}: {official[g] or 'neither reading'}" for g in official)
        if fits:
            raise discrepancy(
                f"unaligned operand start ({text}): the base-offset field is not only "
                f"informative, it moves the swizzle phase; {FIELD_MODEL_TEXT} fits every probe",
                code="silicon_disagrees", **details)
        raise fail(f"unaligned operand start ({text}): no reading, and not {FIELD_MODEL_TEXT}, "
                   "fits every probe", **details)

    return body


def _hyp_a_regs(probes: list[Probe]) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        per_probe = {}
        bad = {}
        for p in probes:
            v = p.variant
            expected, found, _ = _a_regs_discovery(sess, v)
            n = int((expected != found).sum())
            per_probe[v.ptx_name] = "agrees" if n == 0 else f"disagrees ({n}/{expected.size})"
            if n:
                bad[v.ptx_name] = per_probe[v.ptx_name]
        h = hypotheses.A_REGISTER_LAYOUT
        outcome = {h.documented: "agrees" if not bad else f"disagrees ({len(bad)} types)"}
        details = {"probes": per_probe,
                   "readings": outcome, "hypothesis": h.name,
                   "silicon_followed": h.documented if not bad else None}
        if bad:
            raise fail(f"register A: silicon does not follow {h.name} for {sorted(bad)}",
                       **details)
        return (f"register A: silicon follows {h.name} for every A fragment type "
                f"({len(per_probe)} probes)"), details

    return body


# --- wmma ------------------------------------------------------------------------------------


def _wmma_shape_row(spec: Spec, v: WmmaVariant) -> WmmaDefaultStride:
    return next(r for r in spec.of(WmmaDefaultStride)
                if (r.m_elems, r.n_elems, r.k_elems) == (v.m, v.n, v.k))


def _wmma_geometry(v: WmmaVariant) -> tuple[int, int]:
    from ptxconf.oracle.wmma import matrix_shape

    return matrix_shape(v.m, v.n, v.k, v.matrix)


def _wmma_key(v: WmmaVariant, mem_layout: str | None = None) -> str:
    key = f"{v.shape}.{v.dtype}.{v.matrix}"
    if v.layout:
        key += f".{v.layout}"
    if mem_layout:
        key += f":{mem_layout}"
    return key


@dataclass(frozen=True)
class WmmaLoad:
    """A decoded wmma load: (row, col) per (lane, element), -1 where outside the matrix."""

    cells: np.ndarray  # int64 [lanes, elements, 2]
    index: np.ndarray  # int64 [lanes, elements]: element index from the pointer
    fragment_bytes: int
    num_elements: int


def _wmma_index_memory(spec: Spec, dtype: str, count: int, plan_: I.DigitPlan, j: int,
                       lead_bytes: int = 0) -> bytes:
    """Memory whose element slot i (from byte lead_bytes on) holds digit j of i."""
    bits = I.element_bits(spec, dtype)
    size = _round_up(-(-count * bits // I.BITS_PER_BYTE), 16)
    img = I.index_image(spec, dtype, size, plan_, j).tobytes()
    return bytes(lead_bytes) + img


def _wmma_load(sess: Session, v: WmmaVariant, ld: int, mem_layout: str,
               offset_bytes: int = 0) -> WmmaLoad | Any:
    """Index-coded load; returns the decoded map, or the failed ProbeResult."""
    spec = sess.spec
    rows, cols = _wmma_geometry(v)
    bits = I.element_bits(spec, v.dtype)
    span = I.wmma_span_elems(rows, cols, mem_layout, ld)
    count = span + WMMA_GUARD_ELEMS
    plan_ = I.digit_plan(spec, v.dtype, count)
    vals = []
    frag_bytes = num = 0
    for j in range(plan_.digits):
        mem = _wmma_index_memory(spec, v.dtype, count, plan_, j, offset_bytes)
        kw: dict[str, Any] = {"ldm": ld, "offset_bytes": offset_bytes}
        if v.matrix == "c":
            kw["col_major"] = mem_layout == "col"
        res = sess.call("run_wmma_load", v, mem, variants=[v], **kw)
        if not res.ok:
            return res
        d = res.value
        frag_bytes, num = d.fragment_bytes, d.num_elements
        raw = I.wmma_fragment_slots(d.words, num, frag_bytes, bits)
        vals.append(I.decode(spec, v.dtype, raw))
    digits = [np.asarray(x) for x in vals]
    for x in digits:
        if x.dtype.kind == "f" and not np.all(np.isfinite(x) & (x == np.round(x))):
            raise fail(f"{v.kernel_name}: a fragment element is not an index digit")
    index = plan_.combine([x.astype(np.int64) for x in digits])
    lead, inner = (index // ld, index % ld)
    if mem_layout == "row":
        r, c = lead, inner
    else:
        r, c = inner, lead
    inside = (r < rows) & (c < cols) & (index >= 0)
    cells = np.stack([np.where(inside, r, -1), np.where(inside, c, -1)], axis=-1)
    return WmmaLoad(cells, index, frag_bytes, num)


def _wmma_map_details(load: WmmaLoad) -> dict[str, Any]:
    return {"fragment_bytes": load.fragment_bytes, "num_elements": load.num_elements,
            "map_fingerprint": I.fingerprint(load.cells),
            "map": I.map_lines(load.cells)}


def _wmma_load_body(v: WmmaVariant, mem_layout: str) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec = sess.spec
        rows, cols = _wmma_geometry(v)
        ld0 = _wmma_shape_row(spec, v).stride_elems(v.matrix, mem_layout)
        first = _wmma_load(sess, v, ld0, mem_layout)
        if not isinstance(first, WmmaLoad):
            raise fail(f"{v.kernel_name}: the load failed ({first.error_kind}): {first.error}")
        bits = I.element_bits(spec, v.dtype)
        step = max(1, first.fragment_bytes * I.BITS_PER_BYTE // bits)
        ld1 = ld0 + step
        second = _wmma_load(sess, v, ld1, mem_layout)
        if not isinstance(second, WmmaLoad):
            raise fail(f"{v.kernel_name} ldm={ld1}: the load failed ({second.error_kind}): "
                       f"{second.error}")
        details = {"kernel": v.kernel_name, "matrix": f"{rows}x{cols} {mem_layout}-major",
                   "default_ldm_elems": ld0, "padded_ldm_elems": ld1, **_wmma_map_details(first),
                   "observation": "the wmma fragment map is officially unspecified: recorded, "
                                  "not checked against a document"}
        problems = []
        for ld, load in ((ld0, first), (ld1, second)):
            outside = np.argwhere(load.cells[..., 0] < 0)
            if len(outside):
                lane, e = (int(x) for x in outside[0])
                problems.append(f"ldm={ld}: {len(outside)} fragment elements hold no element of "
                                f"the matrix; first lane {lane} element {e} read element index "
                                f"{int(load.index[lane, e])}")
            covered = np.zeros((rows, cols), dtype=np.int64)
            ok = load.cells[..., 0] >= 0
            np.add.at(covered, (load.cells[..., 0][ok], load.cells[..., 1][ok]), 1)
            if covered.min() == 0:
                r, c = (int(x) for x in np.argwhere(covered == 0)[0])
                problems.append(f"ldm={ld}: {int((covered == 0).sum())} matrix elements are in "
                                f"no fragment; first ({r}, {c})")
            details[f"copies_per_element_ldm{ld}"] = [int(covered.min()), int(covered.max())]
        diff = I.diff_grid(f"fragment map at ldm={ld1} vs ldm={ld0}",
                           first.cells[..., 0] * cols + first.cells[..., 1],
                           second.cells[..., 0] * cols + second.cells[..., 1],
                           axes=("lane", "element"),
                           fmt=lambda c: f"({int(c) // cols},{int(c) % cols})")
        details["stride_diff"] = diff.details()
        if not diff.ok:
            problems.append(f"the stride changed the fragment map: {diff.message()}")
        if problems:
            raise fail(f"{v.kernel_name}: " + "; ".join(problems), **details)
        return (f"{rows}x{cols} {mem_layout}-major, ldm {ld0} and {ld1}: every element in a "
                f"fragment ({details[f'copies_per_element_ldm{ld0}'][0]}-"
                f"{details[f'copies_per_element_ldm{ld0}'][1]} copies), the same map for both "
                f"strides, {first.num_elements} elements x 32 lanes (map "
                f"{details['map_fingerprint']})"), details

    return body


def _wmma_store_body(v: WmmaVariant, mem_layout: str) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        spec = sess.spec
        rows, cols = _wmma_geometry(v)
        ld0 = _wmma_shape_row(spec, v).stride_elems("c", mem_layout)
        load_v = replace(v, op="load")
        ref = _wmma_load(sess, load_v, ld0, mem_layout)
        if not isinstance(ref, WmmaLoad):
            raise fail(f"{load_v.kernel_name}: the reference load failed: {ref.error}")
        bits = I.element_bits(spec, v.dtype)
        num, fb = ref.num_elements, ref.fragment_bytes
        codes = np.arange(32 * num, dtype=np.int64).reshape(32, num)
        words = I.wmma_fill_words(I.encode(spec, v.dtype, codes), fb, bits, -(-fb // 4))
        step = max(1, fb * I.BITS_PER_BYTE // bits)
        details: dict[str, Any] = {"kernel": v.kernel_name, "reference_load": load_v.kernel_name,
                                   "matrix": f"{rows}x{cols} {mem_layout}-major"}
        problems = []
        for ld in (ld0, ld0 + step):
            span = I.wmma_span_elems(rows, cols, mem_layout, ld)
            size = _round_up(-(-(span + WMMA_GUARD_ELEMS) * bits // 8), 16)
            res = sess.call("run_wmma_store", v, words, b"\xff" * size, ldm=ld,
                            col_major=mem_layout == "col", variants=[v])
            if not res.ok:
                raise fail(f"{v.kernel_name} ldm={ld}: the store failed ({res.error_kind}): "
                           f"{res.error}", **details)
            mem = np.frombuffer(res.value.memory, dtype=np.uint8)
            offs = I.wmma_element_offsets(rows, cols, mem_layout, ld, bits)
            got = I.decode(spec, v.dtype, I.gather(mem, offs, bits))
            got_codes = np.where(np.isfinite(got), got, -1).astype(np.int64)
            expected = np.full((rows, cols), -1, dtype=np.int64)
            cells = ref.cells
            lane, elem = np.nonzero(cells[..., 0] >= 0)
            expected[cells[lane, elem, 0], cells[lane, elem, 1]] = codes[lane, elem]
            diff = I.diff_grid(f"store placement at ldm={ld} vs the load map",
                               expected, got_codes, axes=("row", "col"),
                               fmt=lambda c, n=num: "none" if int(c) < 0
                               else f"lane{int(c) // n}.e{int(c) % n}")
            details[f"ldm{ld}"] = diff.details()
            if not diff.ok:
                problems.append(diff.message())
            touched = np.ones(size, dtype=bool)
            for b in range(bits // 8):
                touched[(offs + b).ravel()] = False
            if np.any(mem[touched] != 0xFF):
                first = int(np.argwhere(mem[touched] != 0xFF)[0][0])
                problems.append(f"ldm={ld}: the store wrote outside the matrix (byte "
                                f"{int(np.nonzero(touched)[0][first])})")
        if problems:
            raise fail(f"{v.kernel_name}: " + "; ".join(problems), **details)
        return (f"{rows}x{cols} {mem_layout}-major: store puts every fragment element where the "
                f"load takes it from, ldm {ld0} and {ld0 + step}, nothing outside the matrix"), details

    return body


def _wmma_align_body(v: WmmaVariant, kind: str) -> Body:
    """A pointer or stride the alignment rule forbids: the oracle's rule rejects it with a clear
    message (the harness never takes such a load as an answer); what silicon did with it
    (a fault, the right elements, or silently wrong ones) is recorded."""

    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        from ptxconf.oracle.wmma import check_alignment

        spec = sess.spec
        rows, _ = _wmma_geometry(v)
        ld0 = _wmma_shape_row(spec, v).stride_elems(v.matrix, v.layout or "row")
        bits = I.element_bits(spec, v.dtype)
        ref = _wmma_load(sess, v, ld0, v.layout or "row")
        if not isinstance(ref, WmmaLoad):
            raise fail(f"{v.kernel_name}: the aligned reference load failed: {ref.error}")
        fb = ref.fragment_bytes
        elem_bytes = max(1, bits // 8)
        if kind == "pointer":
            offset, ld = (elem_bytes if elem_bytes < fb else fb // 2), ld0
        else:
            offset, ld = 0, ld0 + max(1, 8 // bits) if bits < 8 else ld0 + 1
        count = rows if (v.layout or "row") == "row" else _wmma_geometry(v)[1]
        verdict = check_alignment(offset, ld, bits, fb, count)
        details: dict[str, Any] = {"kernel": v.kernel_name, "fragment_bytes": fb,
                                   "pointer_offset_bytes": offset, "ldm_elems": ld,
                                   "rule": verdict.message, "rule_ok": verdict.ok}
        example = [r for r in spec.of(WmmaAlignmentExample)
                   if (r.shape, r.dtype, r.matrix, r.layout) == (v.shape, v.dtype, v.matrix,
                                                                   v.layout)]
        if example and example[0].fragment_bytes != fb:
            raise fail(f"{example[0].key} says the fragment is {example[0].fragment_bytes} B; "
                       f"the compiled fragment is {fb} B", **details)
        if verdict.ok:
            raise outcome(Status.SKIP, "not_runnable", f"pointer +{offset} B, ldm {ld}: the rule "
                          f"allows it; with {fb}-B fragments of {bits}-bit elements no {kind} "
                          "breaks the rule", **details)
        got = _wmma_load(sess, v, ld, v.layout or "row", offset_bytes=offset)
        head = f"the rule rejects it ({verdict.message})"
        if not isinstance(got, WmmaLoad):
            details["silicon"] = f"{got.error_kind}: {got.error}"
            if got.error_kind not in ("cuda", "crash", "timeout"):
                raise fail(f"{v.kernel_name}: the probe failed outside CUDA: {got.error}",
                           **details)
            return f"{head}; silicon: {got.error}", details
        wrong = int((got.cells != ref.cells).any(axis=-1).sum())
        details["silicon"] = ("loaded the right elements" if not wrong else
                              f"loaded {wrong} of {ref.cells.shape[0] * ref.cells.shape[1]} "
                              "fragment elements from the wrong place, silently")
        details["silicon_map"] = I.fingerprint(got.cells)
        if wrong:
            return (f"{head}; silicon: no error, {wrong} fragment elements silently wrong (the "
                    "rule is what stands between this input and a wrong answer)"), details
        return (f"{head}; silicon tolerated it and loaded the right elements (the rule is "
                "stricter than this device)"), details

    return body


# --- the case list ---------------------------------------------------------------------------


def _probe(spec: Spec, row_id: str, n_role: int, *, rs: bool = False, major: str = "K",
           sat: bool = False) -> Probe:
    row = spec.get(InstructionType, row_id)
    return Probe(row, n_values(spec, row)[n_role], sat, rs, major)


def _hypothesis_probes(spec: Spec) -> dict[str, Any]:
    rows = {r.atype: r for r in spec.of(InstructionType)}
    f16 = next(r for r in spec.of(InstructionType) if (r.dtype, r.atype) == ("f32", "f16"))
    tf32 = rows["tf32"]
    mid = 1
    unit = [(_probe(spec, f16.id, mid, major=m), sw) for m in ("K", "MN")
            for sw in ("32B", "64B", "128B")]
    unit += [(_probe(spec, tf32.id, mid), sw) for sw in ("32B", "64B", "128B")]
    roles = [(_probe(spec, f16.id, 2, major="MN"), sw) for sw in ("32B", "64B", "128B")]
    klbo = [(_probe(spec, r.id, mid), "128B") for r in (f16, tf32, rows["e4m3"], rows["s8"],
                                                        rows["b1"])]
    base = [(_probe(spec, f16.id, mid, major=m), "128B") for m in ("K", "MN")]
    seen_a: dict[str, Probe] = {}
    for r in spec.of(InstructionType):
        seen_a.setdefault(r.fragment_a, _probe(spec, r.id, 2, rs=True))
    return {"swizzle_unit": unit, "mn_lbo_sbo_roles": roles, "k_swizzled_lbo": klbo,
            "base_offset": base, "a_regs_like_d16": list(seen_a.values())}


def _cases(spec: Spec, sess_ref: Callable[[], Session]) -> Iterator[Case]:
    def case(check: str, key: str, body: Body) -> Case:
        return _case(sess_ref, check, key, body)

    yield case(CHECK_DEVICE, "sm_90a", _device_body)
    p = plan(spec)
    for key in [*p.wgmma_batches, "wmma"]:
        yield case(CHECK_COMPILE, key, _compile_body(key))

    rows = spec.of(InstructionType)
    # Discovery first: a broken D map explains every other failure.
    for row in rows:
        for n in n_values(spec, row):
            pr = Probe(row, n, False, False, "K")
            yield case(CHECK_D_MAP, pr.variant.ptx_name, _d_map_body(pr))
    for row in rows:
        ns = n_values(spec, row)
        for major in majors(row):
            for sw in SWIZZLES:
                pa = Probe(row, ns[-1], False, False, major)
                name = atom_name(major, sw)
                yield case(CHECK_SMEM_MAP, f"{pa.variant.ptx_name}:A:{name}",
                           _smem_map_body(pa, "A", sw))
                for n in ns:
                    pb = Probe(row, n, False, False, major)
                    yield case(CHECK_SMEM_MAP, f"{pb.variant.ptx_name}:B:{name}",
                               _smem_map_body(pb, "B", sw))
    for row in rows:
        pr = Probe(row, n_values(spec, row)[-1], False, True, "K")
        yield case(CHECK_A_REGS, f"{pr.variant.ptx_name}:RS", _a_regs_body(pr))

    for pr, sw in e2e_probes(spec):
        key = f"{pr.variant.ptx_name}:{pr.form}:{atom_name(pr.major, sw)}"
        yield case(CHECK_E2E, key, _e2e_body(pr, sw, key))

    hp = _hypothesis_probes(spec)
    yield case(CHECK_HYPOTHESIS, "swizzle_unit", _hyp_readings(
        hp["swizzle_unit"], hypotheses.SWIZZLE_UNIT, "swizzle_unit", "swizzle unit"))
    yield case(CHECK_HYPOTHESIS, "mn_lbo_sbo_roles", _hyp_readings(
        hp["mn_lbo_sbo_roles"], hypotheses.MN_LBO_SBO_ROLES, "mn_lbo_sbo_roles",
        "MN-major LBO/SBO roles", separated=True))
    yield case(CHECK_HYPOTHESIS, "k_swizzled_lbo", _hyp_k_lbo(hp["k_swizzled_lbo"]))
    yield case(CHECK_HYPOTHESIS, "base_offset", _hyp_base_offset(hp["base_offset"]))
    yield case(CHECK_HYPOTHESIS, "a_regs_like_d16", _hyp_a_regs(hp["a_regs_like_d16"]))

    f16 = next(r for r in rows if (r.dtype, r.atype) == ("f32", "f16"))
    for major in majors(f16):
        for sw in ("32B", "64B", "128B"):
            pr = _probe(spec, f16.id, 1, major=major)
            rule = _rule(spec, sw)
            offsets = sorted({*START_OFFSETS_BYTES, MIXED_OFFSET_BYTES,
                              *range(ROW_STEP_BYTES, rule.repeat_bytes, ROW_STEP_BYTES)})
            for off in offsets:
                for with_field in (False, True):
                    field_value = _base_offset_field(rule, off) if with_field else 0
                    if with_field and field_value == 0:
                        continue
                    key = (f"{pr.variant.ptx_name}:{atom_name(major, sw)}:+{off}:"
                           f"base_offset={field_value}")
                    yield case(CHECK_START, key, _start_body(pr, sw, off, with_field, key))
    for row in rows:
        pr = Probe(row, n_values(spec, row)[1], False, False, "K")
        for sw in ("32B", "64B", "128B"):
            key = f"{pr.variant.ptx_name}:{atom_name('K', sw)}"
            yield case(CHECK_UNUSED_LBO, key, _unused_lbo_body(pr, sw, key))
    for major in majors(f16):
        pr = _probe(spec, f16.id, 1, major=major)
        key = f"{pr.variant.ptx_name}:{atom_name(major, 'none')}"
        yield case(CHECK_UNUSED_BASE, key, _unused_base_body(pr, key))

    wm = p.wmma
    for v in wm:
        if v.op == "load" and v.matrix != "c":
            yield case(CHECK_WMMA_LOAD, _wmma_key(v), _wmma_load_body(v, v.layout or "row"))
        elif v.op == "load":
            for ml in ("row", "col"):
                yield case(CHECK_WMMA_LOAD, _wmma_key(v, ml), _wmma_load_body(v, ml))
    for v in wm:
        if v.op == "store":
            for ml in ("row", "col"):
                yield case(CHECK_WMMA_STORE, _wmma_key(v, ml), _wmma_store_body(v, ml))
    # Last: these may fault, and each fault costs a worker restart.
    seen_shapes: set[str] = set()
    for v in wm:
        if v.op == "load" and v.matrix == "a" and v.layout == "row" and v.shape not in seen_shapes:
            seen_shapes.add(v.shape)
            for kind in ("pointer", "stride"):
                yield case(CHECK_WMMA_ALIGN, f"{_wmma_key(v)}:{kind}", _wmma_align_body(v, kind))


def _device_body(sess: Session) -> tuple[str, dict[str, Any]]:
    if not sess.device_info:
        sess.describe()
    if "error" in sess.device_info:
        raise fail(f"the device is not usable: {sess.device_info['error']}",
                   **sess.device_info)
    return sess.device or "", dict(sess.device_info)


def _compile_body(key: str) -> Body:
    def body(sess: Session) -> tuple[str, dict[str, Any]]:
        fn, vs = sess.batch(key)
        res = sess.prepare(key)
        details = {"kernels": len(vs), "compile_seconds": round(res.seconds, 3),
                   "function": fn}
        if not res.ok:
            raise fail(f"{key}: {len(vs)} kernels did not compile as one module "
                       f"({res.error_kind}): {res.error}", **details)
        return f"{len(vs)} kernels in one module, {res.seconds:.1f} s", details

    return body


def gpu_cases(spec: Spec, runner: Any = None) -> Iterator[Case]:
    """Every GPU case, in the order they should run; the worker ends after the last one."""
    holder: dict[str, Session] = {}

    def sess_ref() -> Session:
        if "s" not in holder:
            holder["s"] = _session(spec, runner)
        return holder["s"]

    try:
        yield from _cases(spec, sess_ref)
    finally:
        global _SESSION
        if "s" in holder:
            holder["s"].close()
            if _SESSION is holder["s"]:
                _SESSION = None


def case_keys(spec: Spec) -> Iterator[tuple[str, str]]:
    """(check, key) of every GPU case; lists them without starting anything on a GPU."""
    for c in _cases(spec, lambda: None):  # type: ignore[arg-type, return-value]
        yield c.check, c.key


def provider_cases(spec: Spec, ctx: Any) -> Iterator[Case]:
    """The registry's entry point (ptxconf.providers): cases carry the device line."""
    yield from gpu_cases(spec)


__all__ = ["Plan", "Probe", "Session", "e2e_probes", "gpu_available", "gpu_cases", "majors",
           "n_values", "plan"]
