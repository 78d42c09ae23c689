"""A software model of the probe worker, for running every GPU case without a GPU.

`Emulator` stands in for `ptxconf.gpu.runner.ProbeRunner`: it answers the probe calls the GPU
families make from the oracle's documented readings (and a wmma fragment map of its own), and
can be told to follow another reading (`swizzle_unit="elements"`), the H100's base-offset
behaviour (`field_moves_phase`) or one of the wrong models of `WRONG` (`wrong=NAME`), so tests
can show the cases catch them (conformance/test_gpu_cases.py: every family of emulated cases
has a wrong model it must not pass).
`run_emulated(emu, only)` runs every GPU case (of every GPU provider) against it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from ptxconf.app.providers import REGISTRY
from ptxconf.core.cases import execute
from ptxconf.core.context import RunContext
from ptxconf.core.results import Result
from ptxconf.gpu import probes, session
from ptxconf.gpu.replay import replay_recorded
from ptxconf.gpu.runner import ProbeResult
from ptxconf.gpu.transcript import read_calls
from ptxconf.gpu.variants import WgmmaVariant, WmmaVariant, isa_facts
from ptxconf.oracle import interpret as I
from ptxconf.oracle.canonical import canonical_row, row_swizzle
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.spec import Spec, default_spec
from ptxconf.oracle.wmma import matrix_shape

SPEC = default_spec()
#: The GPU providers, in run order.
GPU_PROVIDERS = tuple(p for p in REGISTRY if p.gpu)

#: Wrong models the emulator can follow instead of the documented one (`Emulator(wrong=NAME)`):
#: each is a plausible misreading of the PTX ISA or a hardware bug, not noise.
WRONG = {
    "device_unusable": "the worker cannot describe its device (no usable GPU)",
    "k_off_by_one": "the product drops the last K element of A (D = A[:, :-1] B[:, :-1]^T)",
    "d_thread_off_by_one": "the D fragment map is off by one thread (thread t holds t-1's D)",
    "a_regs_thread_off_by_one": "register A is read with the fragment map off by one thread",
    "mn_roles_swapped": "MN-major swizzled layouts: SBO steps along MN, LBO along K",
    "k_lbo_used": "K-major swizzled layouts: the LBO the ISA calls 'not used' moves the "
                  "swizzle phase",
    "swizzle_relative": "the swizzle restarts at the operand start (ignores the address bits)",
    "base_offset_used": "unswizzled layouts: the base-offset field moves the start by "
                        "16 bytes a step",
    "mma_sync_lane_off_by_one": "mma.sync writes D with the thread group's lanes off by one",
    "mma_sync_a_registers_reversed": "mma.sync reads a lane's A registers in reverse order",
    "warp_matrix_lane_off_by_one": "ldmatrix/stmatrix move lane t's registers as lane t-1's",
    "warp_matrix_trans_ignored": "ldmatrix/stmatrix ignore .trans (move the matrix row-major)",
    "wmma_ignores_ldm": "wmma.load reads the matrix as if ldm were the packed stride",
    "wmma_store_thread_off_by_one": "wmma.store writes thread t's fragment where t-1's goes",
    "wmma_align_strict": "wmma faults unless pointer and stride are aligned to twice the "
                         "fragment (stricter than the rule: aligned inputs fault)",
    "tma_swizzle_relative": "TMA restarts the swizzle pattern at the destination (ignores the "
                            "address bits below the repeat)",
    "tma_rows_packed": "TMA packs a swizzled box's rows at the inner width (not one swizzle "
                       "span apart)",
}

#: The wrong mma.sync model every gpu.mma_sync case must fail under (the family's own,
#: WRONG_MODELS' lanes off by one, is shown on one atom): A's registers read in reverse, so each
#: atom's A placement is what its answer is judged by, not a restatement of its layouts
#: (test_gpu_mma_sync.py).
MMA_SYNC_WRONG = ("mma_sync_a_registers_reversed",)

#: The variant the address and variant cases below are run at.
ADDRESS_VARIANT = "wgmma.mma_async.sync.aligned.m64n136k16.f32.f16.f16"
#: For every family of emulated cases (each hypothesis and each mistake case by itself, as each
#: judges something else): a case, a wrong model of the device (Emulator keywords) and the
#: code that case must fail with against it, judged as `ptxconf check` judges it. The data-path
#: families' entries are run by their own test files (test_gpu_mma_sync.py, test_gpu_ldmatrix.py,
#: test_gpu_tma.py, test_gpu_tma_pairing.py, test_gpu_wmma.py), the rest by test_gpu_cases.py,
#: whose test_every_emulated_family_has_a_wrong_model keeps the table to every family.
WRONG_MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "gpu.device": ("gpu.device[sm_90a]", {"wrong": "device_unusable"}, "gpu_unusable"),
    "gpu.compile": ("gpu.compile[wgmma:00]", {"wrong": "k_off_by_one"}, "silicon_disagrees"),
    "gpu.variant": (f"gpu.variant[{ADDRESS_VARIANT}:SS:t00]", {"wrong": "d_thread_off_by_one"},
                    "silicon_disagrees"),
    "gpu.smem_map": ("gpu.smem_map[wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16:A:K_SW128]",
                     {"swizzle_unit": "elements"}, "silicon_disagrees"),
    # an observation: it fails when silicon follows none of the readings it tells apart
    "gpu.address.start": (f"gpu.address.start[{ADDRESS_VARIANT}:K_SW128:+256:base_offset=2]",
                          {"wrong": "d_thread_off_by_one"}, "silicon_disagrees"),
    "gpu.address.unused_lbo": (
        "gpu.address.unused_lbo[wgmma.mma_async.sync.aligned.m64n136k16.f16.f16.f16:K_SW128]",
        {"wrong": "k_lbo_used"}, "finding_new"),
    "gpu.address.unused_base_offset": (f"gpu.address.unused_base_offset[{ADDRESS_VARIANT}:K_INTER]",
                                       {"wrong": "base_offset_used"}, "finding_new"),
    "gpu.hypothesis[swizzle_unit]": ("gpu.hypothesis[swizzle_unit]",
                                     {"swizzle_unit": "elements"}, "finding_new"),
    # the probe of the documented reading reads past the operand's image under the swapped
    # roles: the emulator faults there, so the case fails as a fault, not as 'swapped'
    "gpu.hypothesis[mn_lbo_sbo_roles]": ("gpu.hypothesis[mn_lbo_sbo_roles]",
                                         {"wrong": "mn_roles_swapped"}, "gpu_fault"),
    "gpu.hypothesis[k_swizzled_lbo]": ("gpu.hypothesis[k_swizzled_lbo]",
                                       {"wrong": "k_lbo_used"}, "finding_new"),
    "gpu.hypothesis[base_offset]": ("gpu.hypothesis[base_offset]",
                                    {"wrong": "swizzle_relative"}, "silicon_disagrees"),
    "gpu.hypothesis[a_regs_like_d16]": ("gpu.hypothesis[a_regs_like_d16]",
                                        {"wrong": "a_regs_thread_off_by_one"},
                                        "silicon_disagrees"),
    **{f"gpu.mistake[{name}]": (f"gpu.mistake[{name}]", model, "silicon_disagrees")
       for name, model in (("lbo_sbo_swapped", {"swizzle_unit": "elements"}),
                           ("mn_roles_swapped", {"wrong": "mn_roles_swapped"}),
                           ("wrong_swizzle_mode", {"swizzle_unit": "elements"}),
                           ("k_beyond_swizzle_row", {"swizzle_unit": "elements"}),
                           ("ignored_lbo", {"wrong": "k_lbo_used"}),
                           ("ignored_base_offset", {"wrong": "base_offset_used"}),
                           ("overrun", {"wrong": "d_thread_off_by_one"}),
                           ("sbo_zero", {"wrong": "d_thread_off_by_one"}))},
    "gpu.mma_sync": ("gpu.mma_sync[SM70_8x8x4_F32F16F16F32_TN]",
                     {"wrong": "mma_sync_lane_off_by_one"}, "silicon_disagrees"),
    "gpu.ldmatrix": ("gpu.ldmatrix[m8n8.x4.b16:K_SW128]", {"wrong": "warp_matrix_lane_off_by_one"},
                     "silicon_disagrees"),
    "gpu.stmatrix": ("gpu.stmatrix[m8n8.x2.trans.b16]", {"wrong": "warp_matrix_trans_ignored"},
                     "silicon_disagrees"),
    "gpu.tma_write": ("gpu.tma_write[tma/swizzling_modes:128B.2B]",
                      {"wrong": "tma_swizzle_relative"}, "finding_new"),
    "gpu.tma_pairing": ("gpu.tma_pairing[tma/swizzling_modes:128B~wgmma/canonical_layouts:K_SW32"
                        ".aligned]", {"wrong": "tma_rows_packed"}, "silicon_disagrees"),
    "gpu.wmma.load": ("gpu.wmma.load[m16n16k16.f16.a.row]", {"wrong": "wmma_ignores_ldm"},
                      "silicon_disagrees"),
    "gpu.wmma.store": ("gpu.wmma.store[m16n16k16.f16.c:row]",
                       {"wrong": "wmma_store_thread_off_by_one"}, "silicon_disagrees"),
    # the aligned reference load faults under the stricter rule
    "gpu.wmma.align": ("gpu.wmma.align[m16n16k16.f16.a.row:pointer]",
                       {"wrong": "wmma_align_strict"}, "gpu_fault"),
}


def wrong_model_verdict(family: str) -> tuple[Result, str]:
    """The case of `family` in WRONG_MODELS run against its wrong model, judged as `ptxconf
    check` judges it, and what the test says about it (the model, status, code, message)."""
    from ptxconf.oracle.findings import judge

    case_id, model, _ = WRONG_MODELS[family]
    r = judge(run_case(Emulator(SPEC, **model), case_id))
    return r, f"{model}: {r.status.value} [{r.code}]: {r.message}"


FAKE_SMEM_BASE = 0x400
MISALIGNED = "CUDARuntimeError: cudaErrorMisalignedAddress: misaligned address"


class Emulator:
    """Stands in for ProbeRunner: answers probe calls from the oracle's documented readings.

    `swizzle_unit` picks the reading the modelled hardware follows (a mutant model reads
    element offsets). Its wmma fragment map is its own: lane l, element e holds element
    l * num + e of the matrix in row-major order (a replicated map for the f16 a/b shapes).
    """

    def __init__(self, spec: Spec, swizzle_unit: str = "bytes",
                 field_moves_phase: bool = False, wrong: str = "") -> None:
        if wrong and wrong not in WRONG:
            raise ValueError(f"no wrong model {wrong!r}; one of {sorted(WRONG)}")
        self.spec = spec
        self.wrong = wrong
        self.isa = isa_facts(spec)
        self.swizzle_unit = swizzle_unit
        self.field_moves_phase = field_moves_phase
        self.restarts = 0
        self.calls: dict[str, int] = {}

    def close(self) -> None:
        """Nothing to end."""

    def call(self, name: str, *args: Any, timeout_s: float | None = None,
             **kw: Any) -> ProbeResult:
        self.calls[name] = self.calls.get(name, 0) + 1
        try:
            value = getattr(self, "_" + name.replace(".", "_"))(*args, **kw)
        except _Fault as f:
            self.restarts += 1
            return ProbeResult(False, error=str(f), error_kind="cuda")
        return ProbeResult(True, value=value, seconds=0.0)

    # device

    def _device_usable_sm90a(self) -> tuple[bool, str]:
        return True, "emulator"

    def _device_describe(self) -> dict[str, Any]:
        if self.wrong == "device_unusable":
            raise _Fault("CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected")
        return {"name": "emulator", "compute_capability": "9.0", "cuda_driver_version": "-",
                "cuda_runtime_version": "-", "cupy_version": "-"}

    def _prepare_wgmma(self, vs: list) -> int:
        return len(vs)

    _prepare_wmma = _prepare_wgmma

    def _load_module(self, vs: list, cubin_path: str) -> int:
        return len(vs)

    def _replay_replay_file(self, modules: list, path: str, key: str) -> str:
        """`ptxconf.gpu.replay.replay_file`, each call answered by this emulator."""
        calls = read_calls(Path(path), key)
        if calls is None:
            return "its transcript changed or went before the worker read it"

        def answer(name: str, args: tuple, kw: dict) -> tuple:
            r = self.call(name, *args, **kw)
            return r.ok, r.error_kind, r.error, r.value

        return replay_recorded(answer, calls)

    # wgmma

    def _operand(self, image: bytes, start: int, desc: int, dtype: str, major: str, mn: int,
                 k: int) -> np.ndarray:
        f = descriptor_format(self.spec).decode(desc)
        period = row_swizzle(canonical_row(self.spec, major, str(f["swizzle"]))).period()
        addr = int(f["start_address_bytes"])
        phase = addr
        lbo, sbo = int(f["lbo_bytes"]), int(f["sbo_bytes"])
        if self.field_moves_phase:  # what the H100 did: the field moves the swizzle phase
            phase -= int(f["base_offset"]) << 7
        if self.wrong == "swizzle_relative":
            phase = 0
        if self.wrong == "k_lbo_used" and major == "K" and str(f["swizzle"]) != "none":
            phase += lbo
        if self.wrong == "base_offset_used" and str(f["swizzle"]) == "none":
            addr += int(f["base_offset"]) * 16
        roles = "swapped" if self.wrong == "mn_roles_swapped" else None
        lay = I.OperandLayout(dtype, major, str(f["swizzle"]), mn, k, lbo, sbo,
                              base_offset_bytes=phase % max(period, 1),
                              swizzle_unit=self.swizzle_unit, mn_lbo_sbo_roles=roles)
        bits = I.element_bits(self.spec, dtype)
        offs = I.offsets(self.spec, lay)
        rel = addr - (FAKE_SMEM_BASE + start)
        unit = 8 if bits < 8 else 1
        img = np.frombuffer(image, dtype=np.uint8)
        if I.footprint_bytes(offs, bits) + start + rel > len(img):
            raise _Fault("CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access")
        raw = I.gather(img, offs + (start + rel) * unit, bits)
        return I.decode(self.spec, dtype, raw)

    def _run_wgmma_dump(self, v: WgmmaVariant, a_smem, b_smem, a_desc_rel, b_desc_rel,
                        a_regs=None, c_init=None, *, smem_a_offset_bytes=0,
                        smem_b_offset_bytes=0, smem_bytes=0, desc_start_shift,
                        desc_start_lsb) -> probes.WgmmaDump:
        image, a_start, b_start = probes.wgmma_smem_image(
            a_smem, b_smem, smem_a_offset_bytes, smem_b_offset_bytes, smem_bytes)

        def full(rel: int, start: int) -> int:
            return rel + (((FAKE_SMEM_BASE + start) >> desc_start_shift) << desc_start_lsb)

        b_desc = full(b_desc_rel, b_start)
        b = self._operand(image, b_start, b_desc, v.btype, "MN" if v.trans_b else "K", v.n, v.k)
        if v.a_from_regs:
            table = I.fragment_table(self.spec, v.ptx_name, "A")
            if self.wrong == "a_regs_thread_off_by_one":
                a_regs = np.roll(np.asarray(a_regs), 1, axis=0)
            raw = I.matrix_from_regs(a_regs, table, (v.m, v.k), I.element_bits(self.spec,
                                                                                v.atype))
            a = I.decode(self.spec, v.atype, raw)
            a_desc = None
        else:
            a_desc = full(a_desc_rel, a_start)
            a = self._operand(image, a_start, a_desc, v.atype, "MN" if v.trans_a else "K", v.m,
                              v.k)
        a = a.astype(np.int64)
        if self.wrong == "k_off_by_one":
            a[:, -1] = 0
        d = I.matmul(a, b.astype(np.int64))
        table = I.fragment_table(self.spec, v.ptx_name, "D")
        regs = I.regs_from_matrix(I.encode(self.spec, v.dtype, d), table, self.isa.warpgroup_threads,
                                  v.nreg_d, I.element_bits(self.spec, v.dtype))
        if self.wrong == "d_thread_off_by_one":
            regs = np.roll(regs, 1, axis=0)
        return probes.WgmmaDump(v, regs, FAKE_SMEM_BASE,
                                None if a_start is None else FAKE_SMEM_BASE + a_start,
                                FAKE_SMEM_BASE + b_start, a_desc, b_desc)

    def _run_wgmma_batch(self, v: WgmmaVariant, launches: list[dict]) -> list:
        return [self._run_wgmma_dump(v, **kw) for kw in launches]

    # mma.sync: the documented model reads A, B and C, and writes D, where the PTX ISA's
    # fragment formulas say (spec/warp/mma_fragments.yaml), and where the atom's CuTe layouts
    # say for a shape the ISA rows do not state (the SM70 8x8x4 quadpairs)

    def _isa_placement(self, v: Any) -> tuple[np.ndarray, ...] | None:
        """(lanes, A, B, C slots) from the ISA's rows, in the family's orientation (B as N x K),
        or None where a row is missing."""
        from ptxconf.oracle import mma_fragments as F
        from ptxconf.oracle.records import MmaFragment

        out = []
        for op, dtype in (("A", v.atype), ("B", v.btype), ("C", v.ctype)):
            rows = [f for f in self.spec.of(MmaFragment) if f.shape == f"m{v.m}n{v.n}k{v.k}"
                    and f.operand == op and dtype in f.types]
            if len(rows) != 1:
                return None
            cells = F.cells(self.spec, rows[0])
            pair = (cells.cols, cells.rows) if op == "B" else (cells.rows, cells.cols)
            out.append(np.stack(pair, axis=-1))
        lanes = np.arange(self.isa.warp_threads)[None, :]
        return (lanes, *out)

    def _run_mma_sync(self, v: Any, a_words: np.ndarray, b_words: np.ndarray,
                      c_words: np.ndarray) -> np.ndarray:
        from ptxconf.gpu.families import mma_sync as MS

        lanes, a_at, b_at, c_at = self._isa_placement(v) or MS.placement(self.spec, v)
        if self.wrong == "mma_sync_a_registers_reversed":
            a_words = np.asarray(a_words)[:, ::-1]

        def operand(words: np.ndarray, at: np.ndarray, shape: tuple[int, int],
                    dtype: str) -> np.ndarray:
            raw = MS.unpack(self.spec, words, lanes, at, shape, dtype)
            return I.decode(self.spec, dtype, raw.reshape(-1)).reshape(raw.shape)

        a = operand(a_words, a_at, (v.m, v.k), v.atype)
        b = operand(b_words, b_at, (v.n, v.k), v.btype)
        c = operand(c_words, c_at, (v.m, v.n), v.ctype)
        d = np.einsum("gmk,gnk->gmn", a.astype(np.int64), b.astype(np.int64)) + c.astype(np.int64)
        if self.wrong == "mma_sync_lane_off_by_one":
            lanes = np.roll(lanes, 1, axis=-1)
        return MS.pack(self.spec, d, lanes, c_at, v.c_words, v.dtype)

    # ldmatrix / stmatrix: the documented model moves each element the oracle's fragment map
    # names, at the row address its row's lane supplies

    def _run_warp_matrix(self, v: Any, module: tuple, image: bytes, lane_offsets: np.ndarray,
                         regs: np.ndarray) -> tuple[np.ndarray, bytes]:
        from ptxconf.oracle import ldmatrix as lm

        form = lm.form(self.spec, v.name)
        if self.wrong == "warp_matrix_trans_ignored":
            form = dataclasses.replace(form, trans=False)
        bits = form.shape.element_bits
        eb = bits // 8
        img = np.frombuffer(image, dtype=f"<u{eb}").astype(np.uint64)
        words = np.asarray(regs, dtype=np.uint64).copy()
        off_by_one = self.wrong == "warp_matrix_lane_off_by_one"
        if off_by_one and not v.loads:
            words = np.roll(words, 1, axis=0)
        out = np.zeros_like(words) if v.loads else words
        starts = {mr: int(lane_offsets[lane]) for lane, mr in lm.row_suppliers(form).items()}
        for h in lm.fragment(form):
            slot = starts[(h.matrix, h.row)] // eb + h.col
            if slot >= len(img):
                raise _Fault("CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access")
            shift = np.uint64(h.element * bits)
            if v.loads:
                out[h.lane, h.register] |= img[slot] << shift
            else:
                img[slot] = (words[h.lane, h.register] >> shift) & np.uint64((1 << bits) - 1)
        if off_by_one and v.loads:
            out = np.roll(out, 1, axis=0)
        return out.astype(np.uint32), img.astype(f"<u{eb}").tobytes()

    # TMA: the oracle's write map at the window's (fake) address; the wrong model's pattern
    # restarts at the destination (as if the destination were on the repeat)

    def _run_tma_write(self, w: Any, data: np.ndarray, window_bytes: int,
                       fill: int) -> probes.TmaDump:
        from ptxconf.gpu import tma as T

        reading = "relative" if self.wrong == "tma_swizzle_relative" else None
        window = T.predicted_window(self.spec, w, FAKE_SMEM_BASE, data, window_bytes, reading,
                                    fill)
        if self.wrong == "tma_rows_packed":  # rows inner_bytes apart, the same swizzle
            swz = T.tma.swizzle_of(self.spec, w.swizzle)
            window = np.full(window_bytes, fill, dtype=np.uint8)
            for (r, c), byte in np.ndenumerate(data):
                window[swz(FAKE_SMEM_BASE + w.dst_offset + r * w.inner_bytes + c)
                       - FAKE_SMEM_BASE] = byte
        return probes.TmaDump(w, FAKE_SMEM_BASE, window, "emulator", w.enumerator)

    def _run_wgmma_sweep(self, jobs: list[tuple[WgmmaVariant, list[dict]]]) -> list:
        return [self._run_wgmma_batch(v, launches) for v, launches in jobs]

    # wmma

    def _wmma_geometry(self, v: WmmaVariant) -> tuple[int, int, int, int]:
        rows, cols = matrix_shape(v.m, v.n, v.k, v.matrix)
        bits = I.element_bits(self.spec, v.dtype)
        copies = 2 if v.matrix != "c" and v.dtype == "f16" and v.shape == "m16n16k16" else 1
        num = rows * cols * copies // self.isa.warp_threads
        return rows, cols, num, max(1, num * bits // 8)

    def _cells(self, v: WmmaVariant) -> np.ndarray:
        rows, cols, num, _ = self._wmma_geometry(v)
        q = (np.arange(self.isa.warp_threads * num) % (rows * cols)).reshape(self.isa.warp_threads, num)
        return np.stack([q // cols, q % cols], axis=-1)

    def _offsets(self, v: WmmaVariant, ldm: int, col_major: bool | None) -> np.ndarray:
        rows, cols, _, fb = self._wmma_geometry(v)
        layout = v.layout or ("col" if col_major else "row")
        if self.wrong == "wmma_ignores_ldm":
            ldm = cols if layout == "row" else rows
        return I.wmma_element_offsets(rows, cols, layout, ldm, I.element_bits(self.spec,
                                                                                v.dtype))

    def _check_align(self, v: WmmaVariant, ldm: int, offset: int) -> None:
        _, _, _, fb = self._wmma_geometry(v)
        bits = I.element_bits(self.spec, v.dtype)
        fb *= 2 if self.wrong == "wmma_align_strict" else 1
        if offset % fb or (ldm * bits // 8) % fb:
            raise _Fault(MISALIGNED)

    def _run_wmma_load(self, v: WmmaVariant, memory: bytes, *, ldm: int, offset_bytes: int = 0,
                       col_major: bool | None = None, use_smem: bool = False) -> probes.WmmaDump:
        self._check_align(v, ldm, offset_bytes)
        rows, cols, num, fb = self._wmma_geometry(v)
        bits = I.element_bits(self.spec, v.dtype)
        offs = self._offsets(v, ldm, col_major)
        unit = 8 if bits < 8 else 1
        raw = I.gather(np.frombuffer(memory, dtype=np.uint8), offs + offset_bytes * unit, bits)
        cells = self._cells(v)
        slots = raw[cells[..., 0], cells[..., 1]]
        if bits >= 8:
            words = I.wmma_fill_words(slots, fb, bits, -(-fb // 4))
        else:
            words = np.zeros((self.isa.warp_threads, 1), dtype=np.uint64)
            for e in range(num):
                words[:, 0] |= slots[:, e] << np.uint64(e * bits)
            words = words.astype(np.uint32)
        return probes.WmmaDump(v, words, memory, fb, num, 0x1000 + offset_bytes, use_smem)

    def _run_wmma_store(self, v: WmmaVariant, frag_words: np.ndarray, memory: bytes, *,
                        ldm: int, col_major: bool, offset_bytes: int = 0,
                        use_smem: bool = False) -> probes.WmmaDump:
        self._check_align(v, ldm, offset_bytes)
        rows, cols, num, fb = self._wmma_geometry(v)
        bits = I.element_bits(self.spec, v.dtype)
        slots = I.wmma_fragment_slots(frag_words, num, fb, bits)
        if self.wrong == "wmma_store_thread_off_by_one":
            slots = np.roll(slots, 1, axis=0)
        cells = self._cells(v)
        mat = np.zeros((rows, cols), dtype=np.uint64)
        mat[cells[..., 0], cells[..., 1]] = slots
        offs = self._offsets(v, ldm, col_major)
        img = I.place(mat, offs + offset_bytes, bits, image=np.frombuffer(memory, np.uint8))
        return probes.WmmaDump(v, np.asarray(frag_words), img.tobytes(), fb, num, 0x1000,
                               use_smem)

class _Fault(Exception):
    pass


def emulated_context(emu: Emulator, spec: Spec | None = None) -> RunContext:
    """A run context whose GPU session talks to the emulator instead of a probe worker (over
    `spec`, default the bundled one). The hypotheses' distinguishing probes (Z3 models of the
    spec, whatever the device) come from the test run's proof cache (conftest.py), as a
    check's lanes take them: proved once a run."""
    ctx = RunContext(gpu="on", proof_cache=True)
    def make() -> session.Session:
        sess = session.Session(spec or SPEC, emu)
        sess.proof_cache = ctx.proof_cache  # as session.open_session sets it
        return sess

    ctx.resource(session.SESSION_RESOURCE, make, session.Session.close)
    return ctx


def _providers_of(spec: Spec) -> dict[str, list[Any]]:
    """Case id -> the GPU providers that list it (from their ids alone, nothing built), once a
    spec: building every GPU case to find one took most of a wrong-model test's time."""
    def make() -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for p in GPU_PROVIDERS:
            for i in p.case_ids(spec) or ():
                out.setdefault(i, []).append(p)
        return out

    found: dict[str, list[Any]] = spec.memo(("emulator.providers_of",), make)
    return found


def _cases_of(spec: Spec, ctx: RunContext, wanted: Any) -> list[Any]:
    """The GPU cases of `spec` whose id `wanted(id)` accepts, in run order, built only from
    the providers that list such an id."""
    ids = _providers_of(spec)
    providers = {p.name for i, ps in ids.items() if wanted(i) for p in ps}
    return [c for p in GPU_PROVIDERS if p.name in providers for c in p.load(spec, ctx)
            if wanted(c.id)]


def run_case(emu: Emulator, case_id: str, spec: Spec | None = None) -> Result:
    """The GPU case `case_id` of `spec` (default the bundled one) run against `emu` (in a
    session of its own)."""
    spec = spec or SPEC
    ctx = emulated_context(emu, spec)
    try:
        found = _cases_of(spec, ctx, lambda i: i == case_id)
        if len(found) != 1:
            raise KeyError(f"{case_id}: {len(found)} GPU cases have that id")
        return execute(found[0])
    finally:
        ctx.close()


def run_emulated(emu: Emulator, only: str | tuple[str, ...] | None = None) -> list[Result]:
    """Every GPU case (of every GPU provider) whose id holds `only` (or one of several), run
    against `emu`."""
    wanted = (only,) if isinstance(only, str) else only
    ctx = emulated_context(emu)
    try:
        return [execute(c) for c in _cases_of(SPEC, ctx, lambda i: not wanted
                                              or any(w in i for w in wanted))]
    finally:
        ctx.close()
