"""The wgmma variant space (ptxconf.gpu.space) and its compile modules (ptxconf.gpu.plan): every
valid variant of every type row is a kernel, each in one module of consecutive variants and
bounded compile cost, and each a GPU case of the variant sweep."""

from __future__ import annotations

from ptxconf.app.providers import REGISTRY
from ptxconf.gpu import plan
from ptxconf.oracle import facts
from ptxconf.oracle.records import InstructionType
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
PLAN = plan.plan(SPEC)
#: Every GPU case id the providers list (no CuPy, no device).
GPU_IDS = [i for p in REGISTRY if p.gpu for i in p.case_ids(SPEC) or ()]


def test_the_space_is_every_valid_variant() -> None:
    """Every type row at every N its fragment row allows, SS and RS, .satfinite where the row
    has it, every transpose pair where the type spells them; each kernel in one module."""
    from ptxconf.gpu import space
    from ptxconf.oracle.instructions import valid_n_for

    vs = space.wgmma_variants(SPEC)
    assert len(vs) == len(set(vs))
    for row in SPEC.of(InstructionType):
        mine = [v for v in vs if (v.k, v.dtype, v.atype, v.btype) ==
                (row.k_elems, row.dtype, row.atype, row.btype)]
        ns, _ = valid_n_for(SPEC, row)
        assert sorted({v.n for v in mine}) == list(ns), row.id
        per_n = {(v.a_from_regs, v.satfinite, v.trans_a, v.trans_b) for v in mine if v.n == ns[0]}
        sats = {False, True} if row.satfinite else {False}
        trans = facts.takes_imm_trans(SPEC, row.atype)
        want = {(rs, sat, ta, tb) for rs in (False, True) for sat in sats
                for ta in ((0, 1) if trans and not rs else (0,))
                for tb in ((0, 1) if trans else (0,))}
        assert per_n == want, row.id
        assert len(mine) == len(ns) * len(want), row.id
    held = [v for vs_ in PLAN.wgmma_batches.values() for v in vs_]
    assert sorted(held, key=repr) == sorted(vs, key=repr)
    assert max(len(b) for b in PLAN.wgmma_batches.values()) <= space.KERNELS_PER_MODULE


def test_modules_are_runs_of_consecutive_variants_of_bounded_cost() -> None:
    """Each module is a run of the space order (its variants share host work), holds at most
    KERNELS_PER_MODULE kernels, costs at most the slack over the mean of the fewest modules
    (a lone kernel excepted), and was closed only because the next kernel would not fit."""
    from ptxconf.gpu import space

    vs = space.wgmma_variants(SPEC)
    mods = space.modules(vs)
    assert [v for m in mods for v in m] == list(vs)

    def cost(m: tuple) -> int:
        return sum(space.compile_weight(v) for v in m)

    fewest = -(-len(vs) // space.KERNELS_PER_MODULE)
    budget = sum(space.compile_weight(v) for v in vs) / fewest * space.MODULE_COST_SLACK
    assert all(len(m) <= space.KERNELS_PER_MODULE for m in mods)
    assert all(cost(m) <= budget or len(m) == 1 for m in mods)
    closed = [len(a) == space.KERNELS_PER_MODULE or cost(a) + space.compile_weight(b[0]) > budget
              for a, b in zip(mods, mods[1:], strict=False)]
    assert len(closed) == len(mods) - 1 > 0
    assert all(closed)


def test_every_variant_is_a_case() -> None:
    from ptxconf.gpu import space
    from ptxconf.gpu.families.sweep import variant_key

    want = {f"{plan.CHECK_VARIANT}[{variant_key(v)}]" for v in space.wgmma_variants(SPEC)}
    assert want <= set(GPU_IDS)
    assert len(want) == len(space.wgmma_variants(SPEC))
