"""Message examples of the oracle's judging modules: domain, verdicts, diffs: see golden_messages.py."""

from __future__ import annotations

from golden_messages import example
from golden_messages import raised as _raised

# --- oracle/domain.py: each DOMAIN-* rule's refusal or warning, as printed (`RULE - message`) -----


def _domain_q(**kw: object):  # -> SmemQuery
    from ptxconf.oracle.canonical import SmemQuery

    return SmemQuery(**{"dtype": "f16", "major": "K", "swizzle": "none", "mn": 8, "k": 32,  # type: ignore[arg-type]
                        "lbo_bytes": 128, "sbo_bytes": 256, **kw})


def _smem_refused(**kw: object) -> str:
    from ptxconf.oracle import domain
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: domain.check_smem(default_spec(), _domain_q(**kw)), domain.DomainError)


def _descriptor_refused(**kw: object) -> str:
    from ptxconf.oracle import domain
    from ptxconf.oracle.spec import default_spec

    args = {"start_address_bytes": 0, "lbo_bytes": 16, "sbo_bytes": 16, "swizzle": "128B", "base_offset": 0,
            **kw}
    return _raised(lambda: domain.check_descriptor(default_spec(), **args), domain.DomainError)


def _unread_type_spec():  # -> Spec: the bundled spec plus an 8-bit float no instruction reads
    import dataclasses

    from ptxconf.oracle.records import ElementType
    from ptxconf.oracle.spec import Spec, default_spec

    spec = default_spec()
    e4m3 = next(r for r in spec.of(ElementType) if r.id == "e4m3")
    return Spec(root=spec.root, rows=(*spec.rows, dataclasses.replace(e4m3, id="e3m4", exponent_bits=3,
                                                                       mantissa_bits=4)))


@example("domain.start_range")
def _domain_start() -> str:
    return _descriptor_refused(start_address_bytes=0x40000)


@example("domain.swizzle")
def _domain_swizzle() -> str:
    return _descriptor_refused(swizzle="16B")


@example("domain.dtype")
def _domain_dtype() -> str:
    return _smem_refused(dtype="f8")


@example("domain.major")
def _domain_major() -> str:
    return _smem_refused(major="X", swizzle="128B")


@example("domain.lbo_zero")
def _domain_lbo_zero() -> str:
    return _smem_refused(lbo_bytes=0)


@example("domain.sbo_zero")
def _domain_sbo_zero() -> str:
    return _smem_refused(mn=16, sbo_bytes=0)


@example("domain.lbo_range")
def _domain_lbo_range() -> str:
    return _smem_refused(lbo_bytes=0x40000)


@example("domain.size")
def _domain_size() -> str:
    return _smem_refused(mn=256, k=528, lbo_bytes=16, sbo_bytes=16)


@example("domain.k_off_the_instruction_step")
def _domain_k_step() -> str:
    return _smem_refused(k=8)


@example("domain.base_range_unswizzled")
def _domain_base_none() -> str:
    return _smem_refused(base_offset_bytes=262144)


@example("domain.base_range_swizzled")
def _domain_base_sw() -> str:
    return _smem_refused(swizzle="128B", k=64, sbo_bytes=1024, base_offset_bytes=1024)


@example("domain.k_injective")
def _domain_k_injective() -> str:
    return _smem_refused(swizzle="128B", k=128, sbo_bytes=1024)


@example("domain.alias")
def _domain_alias() -> str:
    from ptxconf.oracle import domain

    return str(domain.alias_warning([[0, 16], [16, 32]], "bytes"))


@example("domain.lbo_ignored")
def _domain_lbo_ignored() -> str:
    from ptxconf.oracle import domain
    from ptxconf.oracle.spec import default_spec

    (w,) = domain.check_smem(default_spec(), _domain_q(swizzle="128B", k=64, lbo_bytes=128, sbo_bytes=1024))
    return str(w)


@example("domain.no_instruction_reads_the_type")
def _domain_no_instruction() -> str:
    from ptxconf.oracle import domain

    (w,) = domain.check_smem(_unread_type_spec(), _domain_q(dtype="e3m4", swizzle="128B", lbo_bytes=16,
                                                            sbo_bytes=1024))
    return str(w)


@example("domain.k_off_the_template_repeat")
def _domain_k_template() -> str:
    from ptxconf.oracle import domain

    q = _domain_q(dtype="e3m4", swizzle="128B", k=48, lbo_bytes=16, sbo_bytes=1024)
    return _raised(lambda: domain.check_smem(_unread_type_spec(), q), domain.DomainError)


@example("domain.mn_off_the_valid_n_step")
def _domain_mn_valid_n() -> str:
    from ptxconf.oracle import domain

    q = _domain_q(dtype="e3m4", swizzle="128B", mn=12, lbo_bytes=16, sbo_bytes=1024)
    return _raised(lambda: domain.check_smem(_unread_type_spec(), q), domain.DomainError)


# --- oracle/verdicts.py: what each verdict says of silicon's readings -----------------------------

_DISAGREES = "disagrees (5/64 elements)"
_BASE_GROUPS = ("field 0", "field per rule, start on a 128-B row", "field per rule, start inside a 128-B row")


@example("verdicts.diff_first_and_last")
def _verdict_diff() -> str:
    from ptxconf.oracle import verdicts
    from ptxconf.oracle.interpret import Diff

    dirty = Diff("D", ("m", "n"), 64, 1, (0, 1), (0, 1),
                 samples=({"at": {"m": 0, "n": 1}, "expected": 1, "actual": 2},), window="w")
    return verdicts.compared(dirty, "D agrees").message


def _hypothesis(readings: dict[str, str]) -> str:
    from ptxconf.oracle import verdicts

    return verdicts.hypothesis_verdict("mn_lbo_sbo_roles", "as_documented", readings, "MN roles").message


@example("verdicts.documented_reading")
def _verdict_documented() -> str:
    return _hypothesis({"as_documented": "agrees", "swapped": _DISAGREES})


@example("verdicts.readings_not_distinguished")
def _verdict_undistinguished() -> str:
    return _hypothesis({"swapped": "agrees", "as_documented": "agrees"})


@example("verdicts.another_reading")
def _verdict_another() -> str:
    return _hypothesis({"as_documented": _DISAGREES, "swapped": "agrees"})


@example("verdicts.no_reading")
def _verdict_none() -> str:
    return _hypothesis({"as_documented": _DISAGREES, "swapped": "disagrees (7/64 elements)"})


@example("verdicts.observation")
def _verdict_observation() -> str:
    from ptxconf.oracle import verdicts

    return verdicts.observation("start +256", {"relative": "agrees", "absolute": "agrees"}).message


@example("verdicts.observation_of_no_reading")
def _verdict_observation_none() -> str:
    from ptxconf.oracle import verdicts

    return verdicts.observation("start +256", {"relative": "disagrees (2/8 elements)"}).message


@example("verdicts.unused_field_changed_d")
def _verdict_unused() -> str:
    from ptxconf.oracle import verdicts

    tried = {"1": "agrees", "2": "disagrees (4/64 elements)"}
    return verdicts.unused_field_verdict(tried, "bits ignored", "bits 46-48 change D").message


@example("verdicts.single_reading")
def _verdict_single() -> str:
    from ptxconf.oracle import verdicts

    per_probe = {"f16": "agrees", "tf32": "agrees"}
    verdict = verdicts.single_reading_verdict("a_regs_like_d16", "a_regs_like_d16", per_probe, "A registers")
    return verdict.message


@example("verdicts.single_reading_broken")
def _verdict_single_broken() -> str:
    from ptxconf.oracle import verdicts

    per_probe = {"tf32": "disagrees (3/64 elements)", "f16": "agrees", "e4m3": "disagrees (1/64 elements)"}
    return verdicts.single_reading_verdict("a_regs_like_d16", "d16", per_probe, "A registers").message


def _base_offset(f0: list[str], on: list[str], inside: list[str]) -> str:
    from ptxconf.oracle import verdicts

    names = ["absolute", "relative", "absolute_minus_field"]
    groups = {g: {r: "agrees" if r in agree else "disagrees (1/8 elements)" for r in names}
              for g, agree in zip(_BASE_GROUPS, (f0, on, inside), strict=True)}
    return verdicts.base_offset_verdict("base_offset", "absolute", ("absolute", "relative"), groups).message


@example("verdicts.base_offset_documented")
def _verdict_base_documented() -> str:
    return _base_offset(["absolute", "absolute_minus_field"], ["absolute"], ["absolute"])


@example("verdicts.base_offset_not_distinguished")
def _verdict_base_undistinguished() -> str:
    return _base_offset(["absolute", "relative"], ["absolute"], ["absolute"])


@example("verdicts.base_offset_field_moves_the_phase")
def _verdict_base_moves() -> str:
    return _base_offset(["absolute", "absolute_minus_field"], ["relative", "absolute_minus_field"],
                        ["absolute_minus_field"])


@example("verdicts.base_offset_no_model_fits")
def _verdict_base_none() -> str:
    return _base_offset(["absolute", "absolute_minus_field"], ["relative", "absolute_minus_field"], [])


# --- oracle/diffs.py: a diff's message and its window ---------------------------------------------


def _diff_one_cell(fmt: str = "int"):  # -> Diff: a 6 x 12 grid whose cell (0, 11) differs
    import numpy as np

    from ptxconf.oracle.diffs import diff_grid, hex_fmt, int_fmt

    exp = np.arange(6 * 12).reshape(6, 12)
    act = exp.copy()
    act[0, 11] = -1
    return diff_grid("D", exp, act, fmt=hex_fmt if fmt == "hex" else int_fmt)


@example("diffs.all_agree")
def _diffs_agree() -> str:
    import numpy as np

    from ptxconf.oracle.diffs import diff_grid

    a = np.arange(6).reshape(2, 3)
    return diff_grid("map", a, a.copy()).message()


@example("diffs.first_and_last")
def _diffs_first_last() -> str:
    return _diff_one_cell("hex").message()


@example("diffs.without_coordinates")
def _diffs_no_coordinates() -> str:
    from ptxconf.oracle.diffs import Diff

    return Diff("D", ("row", "col"), 4, 1, None, None).message()


@example("diffs.window")
def _diffs_window() -> str:
    return _diff_one_cell("hex").window


@example("diffs.shapes_differ")
def _diffs_shapes() -> str:
    import numpy as np

    from ptxconf.oracle.diffs import diff_grid

    return _raised(lambda: diff_grid("map", np.zeros((2, 3)), np.zeros((3, 2))))
