"""On silicon: probes run end to end, through the worker process. Skips without sm_90a.

- wgmma m64n8k16.f32.f16.f16, SS, K-major, no swizzle: operands placed where the oracle's
  canonical layout says (ptxconf.oracle.canonical.smem_offsets), descriptors from
  ptxconf.oracle.descriptor.encode. The accumulator map is learned from the hardware with
  an index-coded run (D = 8*row + col), checked to be a bijection, then a run on random
  small integers must give A @ B^T exactly through that map. (Once the oracle has fragment
  maps, the learned map is also compared with it.)
- every instruction form of the spec's type table at N=8: all-ones inputs give D = K.
- wmma: a load sees every element of an index-coded matrix; a store of index-coded words
  writes each exactly once; a faulting probe is reported and the run goes on.
"""

from __future__ import annotations

import numpy as np
import pytest
from ptxconf.gpu import selftest
from ptxconf.gpu.runner import ProbeRunner
from ptxconf.gpu.variants import WgmmaVariant, WmmaVariant, parse_wgmma, wgmma_families
from ptxconf.oracle.canonical import SmemQuery, smem_offsets
from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.spec import Spec

pytestmark = pytest.mark.gpu

SMOKE = parse_wgmma("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")
LBO_BYTES, SBO_BYTES = 128, 256  # core matrices adjacent along K, 8-row groups 256 B apart
FAMILIES = wgmma_families(n=8)


def _place(values: np.ndarray, offsets: list[list[int]]) -> bytes:
    """f16 values[mn, k] written at the byte offsets the oracle gives."""
    offs = np.asarray(offsets, dtype=np.int64)
    assert len(np.unique(offs)) == offs.size, "the layout puts two elements at one address"
    halves = values.astype(np.float16).view(np.uint8).reshape(*values.shape, 2)
    buf = np.zeros(int(offs.max()) + 2, dtype=np.uint8)
    buf[offs] = halves[..., 0]
    buf[offs + 1] = halves[..., 1]
    return buf.tobytes()


def _run(gpu: ProbeRunner, spec: Spec, a: np.ndarray, b: np.ndarray):
    q = {"dtype": "f16", "major": "K", "swizzle": "none", "lbo_bytes": LBO_BYTES,
         "sbo_bytes": SBO_BYTES}
    a_img = _place(a, smem_offsets(spec, SmemQuery(mn=SMOKE.m, k=SMOKE.k, **q)))
    b_img = _place(b, smem_offsets(spec, SmemQuery(mn=SMOKE.n, k=SMOKE.k, **q)))
    desc = encode(0, LBO_BYTES, SBO_BYTES, "none")
    res = gpu.call("run_wgmma_dump", SMOKE, a_img, b_img, desc, desc,
                   **selftest.descriptor_args())
    assert res.ok, res.error
    return res.value


def test_wgmma_m64n8k16_f32_f16_f16_ss_k_major(gpu: ProbeRunner, spec: Spec,
                                                request: pytest.FixtureRequest) -> None:
    m, n, k = SMOKE.m, SMOKE.n, SMOKE.k
    # Index-coded run: D[i][j] = 8*i + j from k = 0 and 1 only.
    a1 = np.zeros((m, k))
    a1[:, 0], a1[:, 1] = np.arange(m), 1
    b1 = np.zeros((n, k))
    b1[:, 0], b1[:, 1] = n, np.arange(n)
    dump = _run(gpu, spec, a1, b1)
    request.node.user_properties.append(("smem_base_address", hex(dump.smem_base_address)))
    coded = dump.regs.view(np.float32)
    assert np.all(coded == np.round(coded)) and coded.min() >= 0 and coded.max() < m * n, (
        f"index-coded run: values outside 0..{m * n - 1}: {np.unique(coded)[:16]}")
    rows, cols = np.divmod(coded.astype(np.int64), n)
    seen = np.zeros((m, n), dtype=np.int64)
    np.add.at(seen, (rows, cols), 1)
    assert np.all(seen == 1), (
        f"accumulator map is not a bijection: (row, col) held {seen.max()} times at most, "
        f"{int((seen == 0).sum())} never; first missing {np.argwhere(seen == 0)[:4].tolist()}")

    # Random small integers over all of K, through the learned map.
    rng = np.random.default_rng(90)
    a2 = rng.integers(-4, 5, size=(m, k))
    b2 = rng.integers(-4, 5, size=(n, k))
    got = _run(gpu, spec, a2, b2).regs.view(np.float32)
    want = (a2 @ b2.T).astype(np.float32)[rows, cols]
    bad = np.argwhere(got != want)
    assert len(bad) == 0, (
        f"{len(bad)} of {got.size} accumulators differ from A @ B^T; first (thread, reg) "
        f"{bad[0].tolist()} holds D{[int(rows[tuple(bad[0])]), int(cols[tuple(bad[0])])]}: "
        f"got {got[tuple(bad[0])]}, want {want[tuple(bad[0])]}; last {bad[-1].tolist()}")
    _compare_with_oracle_fragments(rows, cols)


def _compare_with_oracle_fragments(rows: np.ndarray, cols: np.ndarray) -> None:
    """Where the oracle has fragment maps, the learned map must be the same."""
    try:
        from ptxconf.oracle.fragments import fragment_entries
    except ImportError:
        return
    learned = {(t, r): (int(rows[t, r]), int(cols[t, r])) for t in range(rows.shape[0])
               for r in range(rows.shape[1])}
    oracle = {(t, reg): (row, col)
              for t, reg, _sub, row, col in fragment_entries(SMOKE.ptx_name, "D")}
    diff = sorted(key for key in learned if oracle.get(key) != learned[key])
    assert not diff, (f"{len(diff)} accumulator slots differ from the oracle's fragment map; "
                      f"first {diff[0]}: silicon {learned[diff[0]]}, oracle "
                      f"{oracle.get(diff[0])}")


@pytest.fixture(scope="module")
def prepared(gpu: ProbeRunner) -> ProbeRunner:
    res = gpu.call("prepare_wgmma", FAMILIES, timeout_s=600)
    assert res.ok, res.error
    return gpu


@pytest.mark.parametrize("variant", FAMILIES, ids=lambda v: v.kernel_name)
def test_wgmma_all_ones_gives_k(prepared: ProbeRunner, variant: WgmmaVariant) -> None:
    res = prepared.call("run_wgmma", **selftest.all_ones_case(variant))
    assert res.ok, res.error
    problem = selftest.check_all_ones(variant, res.value)
    assert problem is None, problem


WMMA_A = WmmaVariant(op="load", matrix="a", m=16, n=16, k=16, dtype="f16", layout="row")
WMMA_C = WmmaVariant(op="store", matrix="c", m=16, n=16, k=16, dtype="f32")


def test_wmma_load_sees_every_element(gpu: ProbeRunner) -> None:
    codes = np.arange(1, 16 * 16 + 1, dtype=np.uint16)  # raw bit patterns, never converted
    res = gpu.call("run_wmma_load", WMMA_A, codes.tobytes(), ldm=16)
    assert res.ok, res.error
    d = res.value
    got = d.words.view(np.uint16)
    assert d.fragment_bytes * 8 // 16 == d.num_elements, (d.fragment_bytes, d.num_elements)
    missing = sorted(set(codes.tolist()) - set(got.ravel().tolist()))
    foreign = sorted(set(got.ravel().tolist()) - set(codes.tolist()))
    assert not missing and not foreign, f"missing codes {missing[:8]}, foreign {foreign[:8]}"


def test_wmma_store_writes_each_element_once(gpu: ProbeRunner) -> None:
    words = np.arange(1, 32 * 8 + 1, dtype=np.uint32).reshape(32, 8)
    sentinel = 0xFFFFFFFF
    res = gpu.call("run_wmma_store", WMMA_C, words, np.full(16 * 16 + 64, sentinel,
                   dtype=np.uint32).tobytes(), ldm=16, col_major=False)
    assert res.ok, res.error
    d = res.value
    mem = np.frombuffer(d.memory, dtype=np.uint32)
    stored = d.words.ravel()
    assert sorted(mem[:256].tolist()) == sorted(stored.tolist()), (
        f"the 16x16 block does not hold each fragment word once: {mem[:8]}...")
    assert np.all(mem[256:] == sentinel), f"store wrote past the matrix: {mem[256:264]}"


def test_a_faulting_probe_is_reported_and_the_run_goes_on(gpu: ProbeRunner) -> None:
    before = gpu.restarts
    far = (1 << 32) - 64  # far past the allocation: an illegal global address
    bad = gpu.call("run_wmma_load", WMMA_A, bytes(512), ldm=16, offset_bytes=far)
    assert not bad.ok and bad.error_kind == "cuda", bad
    assert gpu.restarts == before + 1
    again = gpu.call("run_wmma_load", WMMA_A, bytes(512), ldm=16)
    assert again.ok, again.error
