"""Message examples of the oracle (src/ptxconf/oracle): its refusals, verdicts and findings, one
per message shape, each for the input its tests use (see golden_messages.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from golden_messages import example


def _raised(fn: Callable[[], object], exc: type[BaseException] = ValueError) -> str:
    """The message of the `exc` that `fn()` raises."""
    try:
        fn()
    except exc as e:
        return str(e)
    raise AssertionError(f"{fn} raised no {exc.__name__}")


# --- oracle/wmma.py --------------------------------------------------------------------------------


@example("wmma.layout_neither_row_nor_col")
def _wmma_layout() -> str:
    from ptxconf.oracle import wmma

    return _raised(lambda: wmma.default_stride_elems(16, 16, 16, "a", "ROW"))


@example("wmma.start_not_aligned")
def _wmma_alignment() -> str:
    from ptxconf.oracle import wmma

    return wmma.check_alignment(0x20, 8, 16, 32, 16).message


# --- oracle/records.py -----------------------------------------------------------------------------


@example("records.count_not_whole")
def _count_not_whole() -> str:
    from ptxconf.oracle.records import count_expr

    return _raised(lambda: count_expr("N / 4", 6))


@example("records.count_not_a_count")
def _count_not_a_count() -> str:
    from ptxconf.oracle.records import count_expr

    return _raised(lambda: count_expr("M/2", 16))


# --- oracle/algebra/notation.py: NotationError, with its column where it has one -----------------


def _notation(text: str, bindings: dict[str, object] | None = None) -> str:
    from ptxconf.oracle.algebra.notation import NotationError, parse

    return _raised(lambda: parse(text, bindings), NotationError)  # type: ignore[arg-type]


@example("notation.not_text")
def _notation_not_text() -> str:
    return _notation(5)  # type: ignore[arg-type]


@example("notation.bad_binding")
def _notation_bad_binding() -> str:
    return _notation("8:1", {"k": "2"})


@example("notation.not_congruent")
def _notation_not_congruent() -> str:
    return _notation("Swizzle<1,4,3> o (8,8):(1,8,2)")


@example("notation.offset_not_an_integer")
def _notation_offset() -> str:
    return _notation("Swizzle<1,4,3> o (8,2) o (8,8):(1,8)")


@example("notation.invalid_swizzle")
def _notation_swizzle() -> str:
    return _notation("  Swizzle<3,4,2>")


@example("notation.expected_closing")
def _notation_closing() -> str:
    return _notation("Swizzle<3,4,3)")


@example("notation.expected_a_value")
def _notation_value() -> str:
    return _notation("(8,8):")


# --- oracle/facts.py: a spec whose row is changed in memory ---------------------------------------


def _facts_with(cls_name: str, row_id: str, **changes: object):  # -> Spec
    from scratch_spec import replaced_row

    from ptxconf.oracle import records
    from ptxconf.oracle.spec import default_spec

    spec = default_spec()
    key = spec.get(getattr(records, cls_name), row_id).key
    return replaced_row(spec, key, **changes)


@example("facts.no_cute_name_row")
def _facts_no_cute_row() -> str:
    from ptxconf.oracle import facts, records
    from ptxconf.oracle.spec import Spec, default_spec

    spec = default_spec()
    spec = Spec(spec.root, tuple(r for r in spec.rows if not (isinstance(r, records.MajorConvention)
                                                              and r.convention == "cute-name"
                                                              and r.operand == "B")))
    return _raised(lambda: facts.cute_letter_major(spec, "B", "T"))


@example("facts.warpgroup_does_not_split")
def _facts_warps_split() -> str:
    from ptxconf.oracle import facts

    return _raised(lambda: facts.warp_threads(_facts_with("ThreadGroup", "warpgroup", parts=3)))


@example("facts.warpgroup_not_in_warps")
def _facts_not_in_warps() -> str:
    from ptxconf.oracle import facts

    return _raised(lambda: facts.warps_per_warpgroup(_facts_with("ThreadGroup", "warpgroup",
                                                                  part="quadpair")))


@example("facts.register_widths_disagree")
def _facts_register_widths() -> str:
    from ptxconf.oracle import facts

    spec = _facts_with("RegisterFragment", "k16.A.f16", elems_per_register=4)
    return _raised(lambda: facts.register_bits(spec))


@example("facts.float_without_widths")
def _facts_float_widths() -> str:
    from ptxconf.oracle import facts

    return _raised(lambda: facts.float_format(_facts_with("ElementType", "f16", exponent_bits=None), "f16"))


# --- oracle/descriptor.py: what encode refuses, by keyword ------------------------------------------


def _encode_refused(**kwargs: object) -> str:
    from ptxconf.oracle.descriptor import DescriptorError, descriptor_format

    args = {"start_address_bytes": 0, "lbo_bytes": 16, "sbo_bytes": 16, "swizzle": "none",
            "base_offset": 0, **kwargs}
    return _raised(lambda: descriptor_format().encode(**args), DescriptorError)


@example("descriptor.not_a_multiple")
def _descriptor_multiple() -> str:
    return _encode_refused(lbo_bytes=24)


@example("descriptor.negative")
def _descriptor_negative() -> str:
    return _encode_refused(sbo_bytes=-16)


@example("descriptor.above_the_address_range")
def _descriptor_range() -> str:
    return _encode_refused(start_address_bytes=1 << 18)


@example("descriptor.does_not_fit_the_field")
def _descriptor_fit() -> str:
    return _encode_refused(base_offset=8)


@example("descriptor.unknown_swizzle")
def _descriptor_swizzle() -> str:
    return _encode_refused(swizzle="16B")


@example("descriptor.format_of_what_is_not_a_spec")
def _descriptor_format_type() -> str:
    from ptxconf.oracle.descriptor import descriptor_format

    return _raised(lambda: descriptor_format(object()), TypeError)  # type: ignore[arg-type]


# --- oracle/banks.py --------------------------------------------------------------------------------


@example("banks.address_not_aligned")
def _banks_misaligned() -> str:
    from ptxconf.oracle import banks

    return _raised(lambda: banks.analyze([0, 6], 4))


@example("banks.worst_conflict")
def _banks_worst() -> str:
    from ptxconf.oracle import banks

    return banks.analyze([0, 128, 4, None], 4).worst()


@example("banks.table_conflict_free")
def _banks_table_free() -> str:
    from ptxconf.oracle import banks

    return banks.bank_table([0, 4, 8, 12], 4)


@example("banks.table_two_way_conflict")
def _banks_table_conflict() -> str:
    from ptxconf.oracle import banks

    return banks.bank_table([4 * t for t in range(16)] + [128 + 4 * t for t in range(16)], 4)


@example("banks.row_not_one_chunk")
def _banks_row_not_chunk() -> str:
    from ptxconf.oracle import banks

    q = banks.TileQuery("K", "none", "f16", 8, 16)
    rows = [[0, 4, 2, 6, 8, 10, 12, 14]] + [[16 * r + 2 * e for e in range(8)] for r in range(1, 8)]
    tile = banks.Tile(q, 8, 16, tuple(tuple(r) for r in rows))
    return _raised(lambda: tile.core_matrix_reads(0, 0))


@example("banks.tile_aliases")
def _banks_alias() -> str:
    from ptxconf.oracle import banks
    from ptxconf.oracle.spec import default_spec

    q = banks.TileQuery("K", "none", "f16", 8, 16, lbo_bytes=0)
    return _raised(lambda: banks.tile_offsets_bytes(default_spec(), q))


# --- oracle/findings.py: judge (the bundled findings file's path written as <findings.yaml>) -----


def _judged(case_id: str, status_name: str, message: str, code: str, **fields: object) -> str:
    from ptxconf.core.results import Result, Status
    from ptxconf.oracle.findings import judge
    from ptxconf.oracle.spec import DEFAULT_SPEC_DIR

    res = judge(Result(case_id, case_id.split("[")[0], Status[status_name], message, dict(fields), code=code))
    return res.message.replace(str(DEFAULT_SPEC_DIR / "findings.yaml"), "<findings.yaml>")


S143 = "cutedsl.period[cutedsl/worked_examples:period.S143]"


@example("findings.new")
def _finding_new() -> str:
    return _judged("x.y[spec:z]", "DISCREPANCY", "A says 1, B says 2", "documents_disagree",
                   printed="(8,8):(8,1)")


@example("findings.changed")
def _finding_changed() -> str:
    return _judged(S143, "DISCREPANCY", "A says 1, B says 2", "documents_disagree",
                   stated_bytes=64, period_bytes_if_byte_offsets=256, row_width_bytes=128)


@example("findings.changed_text_and_lost_field")
def _finding_changed_text() -> str:
    return _judged("cutedsl.printed_atom[cutedsl/atoms_bf16:MN_INTER.bf16]", "DISCREPANCY",
                   "A says 1, B says 2", "documents_disagree", printed="Swizzle<0,4,3> o 0 o (8,8):(8,1)")


@example("findings.stale")
def _finding_stale() -> str:
    return _judged(S143, "PASS", "the stated period is the byte period", "ok", stated_bytes=256)


# --- oracle/hypotheses.py ----------------------------------------------------------------------------


@example("hypotheses.unknown_reading")
def _unknown_reading() -> str:
    from ptxconf.oracle import hypotheses

    return _raised(lambda: hypotheses.reading(hypotheses.SWIZZLE_UNIT, "words"))


# --- oracle/spec.py: what the loader refuses in a tree (the message of its one SpecError) ----------


def _load_refused(build: Callable[[Path], Path]) -> str:
    import tempfile

    from ptxconf.oracle.spec import SpecErrors, load_spec

    with tempfile.TemporaryDirectory() as tmp:
        root = build(Path(tmp))
        try:
            load_spec(root)
        except SpecErrors as e:
            errors = e.errors
        else:
            raise AssertionError("the spec loaded")
    assert len(errors) == 1, errors
    return errors[0].message


@example("spec.directory_not_found")
def _spec_no_directory() -> str:
    return _load_refused(lambda tmp: tmp / "nowhere")


@example("spec.no_yaml_files")
def _spec_no_yaml() -> str:
    def build(tmp: Path) -> Path:
        (tmp / "README.md").write_text("# notes only\n")
        return tmp

    return _load_refused(build)


@example("spec.stray_file")
def _spec_stray() -> str:
    from scratch_spec import copy_spec

    def build(tmp: Path) -> Path:
        root = copy_spec(tmp / "spec")
        (root / "wgmma" / "base_offset.yaml.bak").write_text("kind: base_offset_rule\n")
        return root

    return _load_refused(build)


@example("spec.no_rows_of_a_kind")
def _spec_missing_kind() -> str:
    from scratch_spec import copy_spec

    def build(tmp: Path) -> Path:
        root = copy_spec(tmp / "spec")
        (root / "wgmma" / "base_offset.yaml").unlink()
        return root

    return _load_refused(build)


# --- oracle/canonical.py ------------------------------------------------------------------------------


@example("canonical.does_not_tile")
def _canonical_tile() -> str:
    from ptxconf.oracle import canonical
    from ptxconf.oracle.spec import default_spec

    row = canonical.canonical_row(default_spec(), "K", "128B")
    return _raised(lambda: canonical.repeats_for(row, 8, 12, 24))


@example("canonical.not_whole_elements")
def _canonical_whole() -> str:
    from ptxconf.oracle import canonical

    return _raised(lambda: canonical.bytes_to_elems(3, 16, "lbo"))


@example("canonical.width_does_not_divide_128")
def _canonical_width() -> str:
    from ptxconf.oracle import canonical

    class Bits:
        def element_bits(self, dtype: str) -> int:
            return 24

    return _raised(lambda: canonical.t_elems(Bits(), "x24"))  # type: ignore[arg-type]


@example("canonical.template_not_a_plain_layout")
def _canonical_template() -> str:
    from ptxconf.oracle import canonical

    row = canonical.CanonicalLayout(id="K_INTER", file="wgmma/scratch.yaml", major="K", swizzle="none",
                                    layout="Swizzle<3,4,3> o (8,8):(8,1)")
    return _raised(lambda: canonical.instantiate(row, 8, 1, 1, 0, 0))


@example("canonical.base_offset_field_past_its_mask")
def _canonical_field() -> str:
    from ptxconf.oracle import canonical
    from ptxconf.oracle.spec import default_spec

    q = canonical.SmemQuery(dtype="f16", major="K", swizzle="128B", mn=8, k=64, lbo_bytes=16,
                            sbo_bytes=1024, base_offset_field=8)
    return _raised(lambda: canonical.smem_offsets(default_spec(), q))


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


# --- oracle/algebra/int_tuple.py ------------------------------------------------------------------


@example("int_tuple.empty_tuple")
def _int_tuple_empty() -> str:
    from ptxconf.oracle.algebra.int_tuple import as_int_tuple

    return _raised(lambda: as_int_tuple((2, ())))


@example("int_tuple.mismatched_ranks")
def _int_tuple_ranks() -> str:
    from ptxconf.oracle.algebra.int_tuple import shape_div

    return _raised(lambda: shape_div((4, 6), (2,)))


# --- oracle/algebra/layout.py and unit_layout.py ----------------------------------------------------


@example("layout.called_without_a_coordinate")
def _layout_call() -> str:
    from ptxconf.oracle.algebra import Layout

    return _raised(lambda: Layout(4)())


@example("layout.sliced_with_none")
def _layout_none() -> str:
    from ptxconf.oracle.algebra import Layout

    return _raised(lambda: Layout((4, 2))((None, 1)))


@example("layout.make_layout_of_what_is_not_a_layout")
def _layout_make() -> str:
    from ptxconf.oracle.algebra import make_layout

    return _raised(lambda: make_layout(4))  # type: ignore[arg-type]


@example("layout.not_a_layout")
def _layout_type() -> str:
    from ptxconf.oracle.algebra import composition

    return _raised(lambda: composition(4, 2), TypeError)  # type: ignore[arg-type]


@example("layout.tiler_does_not_fit")
def _layout_tiler() -> str:
    from ptxconf.oracle.algebra import Layout, logical_divide

    return _raised(lambda: logical_divide(Layout((4, 6)), (2, 2, 2)))


@example("layout.complement_of_negative_strides")
def _layout_complement_negative() -> str:
    from ptxconf.oracle.algebra import Layout, complement

    return _raised(lambda: complement(Layout(4, -1)))


@example("layout.complement_not_injective")
def _layout_complement_injective() -> str:
    from ptxconf.oracle.algebra import Layout, complement

    return _raised(lambda: complement(Layout((2, 2), (1, 1)), 8))


@example("layout.order_not_a_ranking")
def _layout_order() -> str:
    from ptxconf.oracle.algebra import make_ordered_layout

    return _raised(lambda: make_ordered_layout((2, 3), (0, 0)))


@example("layout.cannot_zip")
def _layout_zip() -> str:
    from ptxconf.oracle.algebra import Layout
    from ptxconf.oracle.algebra.layout import _zip

    return _raised(lambda: _zip(Layout((2, 2)), Layout((2, 2, 2))))


@example("layout.tile_to_shape_more_modes")
def _layout_tile_to_shape() -> str:
    from ptxconf.oracle.algebra import Layout, tile_to_shape

    return _raised(lambda: tile_to_shape(Layout((2, 2, 2)), (4, 4)))


@example("unit_layout.not_a_unit")
def _unit_layout_unit() -> str:
    from ptxconf.oracle.algebra import Layout, UnitLayout

    return _raised(lambda: UnitLayout(Layout(4), "bytes", 8))  # type: ignore[arg-type]


@example("unit_layout.elem_bits")
def _unit_layout_bits() -> str:
    from ptxconf.oracle.algebra import Layout, Unit, UnitLayout

    return _raised(lambda: UnitLayout(Layout(4), Unit.BYTES, 0))


def _atom():  # -> ComposedLayout: the 128B swizzle atom of 16-bit elements
    from ptxconf.oracle.algebra import ComposedLayout, Layout, Swizzle

    return ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)), show_offset=False)


@example("unit_layout.swizzle_unit_not_given")
def _unit_layout_swizzle_unit() -> str:
    from ptxconf.oracle.algebra import Unit, UnitLayout

    return _raised(lambda: UnitLayout(_atom(), Unit.ELEMS, 16).to_bits())


@example("unit_layout.not_a_power_of_two")
def _unit_layout_pow2() -> str:
    from ptxconf.oracle.algebra import Unit, UnitLayout

    return _raised(lambda: UnitLayout(_atom(), Unit.BITS, 6).to_unit(Unit.BITS, swizzle_unit=Unit.ELEMS))


# --- oracle/interpret.py: what encoding refuses ------------------------------------------------------


def _encode_values_refused(dtype: str, values: list[float]) -> str:
    from ptxconf.oracle import interpret
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: interpret.encode(default_spec(), dtype, values))


@example("interpret.not_finite")
def _interpret_finite() -> str:
    return _encode_values_refused("f16", [1.0, float("inf")])


@example("interpret.not_exactly_representable")
def _interpret_representable() -> str:
    return _encode_values_refused("e4m3", [1, 17])


@example("interpret.out_of_range")
def _interpret_range() -> str:
    return _encode_values_refused("e4m3", [1, 480])


@example("interpret.non_integer")
def _interpret_non_integer() -> str:
    return _encode_values_refused("s8", [1, 1.5])


@example("interpret.outside_the_integer_range")
def _interpret_outside() -> str:
    return _encode_values_refused("s8", [1, -129])


@example("interpret.accumulator_not_an_integer_code")
def _interpret_accumulator() -> str:
    import numpy as np

    from ptxconf.oracle import interpret
    from ptxconf.oracle.spec import default_spec

    raw = np.array([[0x3F800000, 0x7F800000]], dtype=np.uint64)
    return _raised(lambda: interpret.accumulator_values(default_spec(), "f32", raw))


@example("interpret.elements_do_not_pack_a_register")
def _interpret_subelement() -> str:
    from ptxconf.oracle import interpret

    return _raised(lambda: interpret.subelement_bits(3))


@example("interpret.wmma_elements_do_not_fit_the_fragment")
def _interpret_wmma_fit() -> str:
    import numpy as np

    from ptxconf.oracle import interpret

    return _raised(lambda: interpret.wmma_fragment_slots(np.zeros((1, 2), dtype=np.uint32), 4, 8, 32))


# --- oracle/fragments.py: what a fragment map refuses ---------------------------------------------


def _hand_tile(*entries: tuple[int, int, int, int, int]):  # -> FragmentMap: a 1 x 2 tile, 2 threads
    import dataclasses

    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    base = fragments.fragment_map("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "D", default_spec())
    return dataclasses.replace(base, instr="X", operand="A", rows=1, cols=2, threads=2, registers=1,
                               elems_per_register=1, entries=tuple(entries))


def _bijection_fault(fmap) -> str:
    from ptxconf.oracle import fragments

    return _raised(lambda: fragments.check_bijection(fmap), fragments.FragmentMapError)


@example("fragments.slot_outside_the_registers")
def _fragments_slot_outside() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (2, 0, 0, 0, 1)))


@example("fragments.element_outside_the_tile")
def _fragments_element_outside() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (1, 0, 0, 1, 0)))


@example("fragments.slot_taken_twice")
def _fragments_slot_twice() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (0, 0, 0, 0, 1)))


@example("fragments.element_held_twice")
def _fragments_element_twice() -> str:
    return _bijection_fault(_hand_tile((0, 0, 0, 0, 0), (1, 0, 0, 0, 0)))


@example("fragments.counts_do_not_match")
def _fragments_counts() -> str:
    import dataclasses

    fmap = dataclasses.replace(_hand_tile(), rows=4, entries=((0, 0, 0, 0, 0), (1, 0, 0, 0, 1)))
    return _bijection_fault(fmap)


@example("fragments.k_not_whole_halfwords")
def _fragments_halfwords() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: fragments.a_halfword_layout(default_spec(), 1, 8))


@example("fragments.not_a_thread_value_layout")
def _fragments_tv() -> str:
    from ptxconf.oracle import fragments

    return _raised(lambda: fragments._tv_rows(fragments.Layout(8, 1)))


@example("fragments.n_off_the_atoms_columns")
def _fragments_n() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    return _raised(lambda: fragments.d_layout(default_spec(), 12))


@example("fragments.operand_not_in_registers")
def _fragments_operand_b() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    name = "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16"
    return _raised(lambda: fragments.fragment_map(name, "B", default_spec()))


@example("fragments.not_a_plain_layout")
def _fragments_plain() -> str:
    from ptxconf.oracle import fragments

    return _raised(lambda: fragments._plain("x"), TypeError)  # type: ignore[arg-type]


@example("fragments.accumulator_the_types_lack")
def _fragments_accumulator() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import default_spec

    name = "wgmma.mma_async.sync.aligned.m64n8k16.s32.f16.f16"
    return _raised(lambda: fragments.fragment_map(name, "D", default_spec()))


@example("fragments.table_not_whole_numbers")
def _fragments_table() -> str:
    import numpy as np

    from ptxconf.oracle import fragments

    columns = [np.array([0]), np.array([0.5]), np.array([0]), np.array([0]), np.array([0])]
    return _raised(lambda: fragments._table(columns), TypeError)


@example("facts.d_atom_not_rank_2")
def _facts_d_atom() -> str:
    from ptxconf.oracle import facts

    spec = _facts_with("CuteLayout", facts.D_ATOM_ROW, layout="(4,32,2):(1,4,128)")
    return _raised(lambda: facts.warpgroup_threads(spec))


@example("fragments.tf32_halfword_off_its_element")
def _fragments_tf32_half() -> str:
    from ptxconf.oracle import fragments
    from ptxconf.oracle.spec import Spec, default_spec

    spec = default_spec()
    original = fragments.a_halfword_layout
    fragments.a_halfword_layout = lambda spec, k, bits: fragments.Layout((2, 2), (64, 64))  # type: ignore[assignment]
    try:
        name = "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"
        return _raised(lambda: fragments.fragment_map(name, "A", Spec(spec.root, spec.rows)),
                       fragments.FragmentMapError)
    finally:
        fragments.a_halfword_layout = original  # type: ignore[assignment]


# --- oracle/lint/cite.py, rows.py, units.py, refs.py: one message per rule and shape ------------

_LINT_SOURCE = '{document: x, ptx_isa_version: "9.0", anchor: a, section: "1", row_count: 1}'


def _lint_first(check: Callable[[object], list], text: str) -> str:
    """The message of the first error `check` finds in a spec file of this text."""
    import tempfile

    from scratch_spec import raw_document

    with tempfile.TemporaryDirectory() as tmp:
        errors = check(raw_document(Path(tmp), text))
    return errors[0].message


def _rows(body: str) -> str:
    return f"kind: element_type\nsource: {_LINT_SOURCE}\nrows:\n{body}"


@example("lint.cite_needs_an_anchor")
def _lint_anchor() -> str:
    from ptxconf.oracle.lint.cite import CiteRule

    return _lint_first(CiteRule().check, _rows('  - {id: f16, width_bits: 16, cite: {text: "16-bit"}}\n'))


@example("lint.no_cite")
def _lint_no_cite() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows("  - {id: f16, width_bits: 16}\n"))


@example("lint.cited_numbers_not_held")
def _lint_not_held() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows('  - {id: m64, width_bits: 16, cite: {anchor: Table 8, '
                                        'text: "sixteen bits, 5 or sixty-four, a0 a1"}}\n'))


@example("lint.column_not_stated")
def _lint_not_stated() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows('  - {id: f16, width_bits: 16, cite: {anchor: "Table 3", '
                                        'text: "half precision"}}\n'))


@example("lint.no_document_words")
def _lint_no_words() -> str:
    from ptxconf.oracle.lint.cite import agreement

    return _lint_first(agreement, _rows('  - {id: f16, width_bits: 16, cite: {anchor: "16", text: 16}}\n'))


@example("lint.rows_malformed_pin")
def _lint_malformed_pin() -> str:
    from ptxconf.oracle.lint.rows import RowsRule

    text = "kind: element_type\nsource:\n  document: x\n  row_count: 0\nrows: []\n"
    return _lint_first(RowsRule().check, text)


_TWO_ROWS = "rows:\n  - {id: a}\n  - {id: b}\n"


@example("lint.rows_exact_pin")
def _lint_exact_pin() -> str:
    from ptxconf.oracle.lint.rows import exact_pin

    return _lint_first(exact_pin, f"kind: element_type\nsource: {{row_count: 3}}\n{_TWO_ROWS}")


@example("lint.rows_lost")
def _lint_rows_lost() -> str:
    from ptxconf.oracle.lint.rows import RowsRule

    return _lint_first(RowsRule().check, f"kind: element_type\nsource: {{row_count: 3}}\n{_TWO_ROWS}")


@example("lint.units_no_unit")
def _lint_no_unit() -> str:
    from ptxconf.oracle.lint.units import UnitsRule

    return _lint_first(UnitsRule().check, _rows("  - {id: f16, width_bits: 16, size: 2}\n"))


@example("lint.units_another_unit")
def _lint_other_unit() -> str:
    from ptxconf.oracle.lint.units import UnitsRule

    text = (f"kind: alignment_rule\nsource: {_LINT_SOURCE}\nrows:\n  - {{id: wgmma.smem_operand_start, "
            "applies_to: wgmma_smem_operand, alignment_bits: 128}\n")
    return _lint_first(UnitsRule().check, text)


@example("lint.units_on_a_unitless_field")
def _lint_unitless() -> str:
    from ptxconf.oracle.lint.units import UnitsRule

    return _lint_first(UnitsRule().check, _rows("  - {width_bits: 16, kind_bits: float}\n"))


@example("lint.duplicate_id_across_files")
def _lint_duplicate_id() -> str:
    from ptxconf.oracle import records
    from ptxconf.oracle.lint.refs import cross_file_errors

    rows = [records.ElementType("f16", file="a.yaml", line=4, width_bits=16),
            records.ElementType("f16", file="b.yaml", line=9, width_bits=16)]
    return cross_file_errors("spec", rows)[0].message


@example("lint.names_no_row")
def _lint_names_no_row() -> str:
    from ptxconf.oracle import records
    from ptxconf.oracle.lint.refs import cross_file_errors

    rows = [records.WorkedExample("ex", file="w.yaml", line=3, dtype="f16")]
    return cross_file_errors("spec", rows)[0].message


# --- oracle/lint/base.py, source.py, schema.py, ids.py: reading a file and its own rules ----------

_LINT_HEAD = 'kind: element_type\nsource: {document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}\n'


def _linted(text: str | bytes, rule: str | None = None, index: int = 0) -> str:
    """The message of one report of the linter on a spec file of this text."""
    import tempfile

    from scratch_spec import lint_text

    with tempfile.TemporaryDirectory() as tmp:
        return lint_text(Path(tmp), text, rule)[index].message


@example("lint.yaml_anchor")
def _lint_yaml_anchor() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16, width_bits: &w 16, kind: float}\n")


@example("lint.yaml_second_document")
def _lint_yaml_second() -> str:
    return _linted(_LINT_HEAD + "rows: []\n---\nkind: element_type\n")


@example("lint.size_nesting")
def _lint_size_nesting() -> str:
    return _linted(_LINT_HEAD + "rows: []\nx: " + "[" * 16 + "]" * 16 + "\n", "SPEC-SIZE")


@example("lint.size_file")
def _lint_size_file() -> str:
    body = _LINT_HEAD.replace("}", ", row_count: 1}") + _LINT_ROW
    return _linted(body + "#" * ((1 << 20) - len(body)) + "\n", "SPEC-SIZE")


@example("lint.yaml_key_not_a_string")
def _lint_yaml_key() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16, 16: 16, kind: float}\n")


@example("lint.yaml_duplicate_key")
def _lint_yaml_duplicate() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - id: f16\n    width_bits: 16\n    id: f17\n")


@example("lint.yaml_not_a_mapping")
def _lint_yaml_not_mapping() -> str:
    return _linted("- kind\n- source\n")


@example("lint.yaml_cannot_read")
def _lint_yaml_cannot_read() -> str:
    return _linted(b"\xff kind: x\n")


@example("lint.yaml_malformed")
def _lint_yaml_malformed() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16, width_bits: !odd 16, kind: float}\n")


@example("lint.yaml_tag_cannot_read")
def _lint_yaml_tag() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - id: f16\n    width_bits: !!int abc\n")


@example("lint.schema_row_not_a_mapping")
def _lint_row_not_mapping() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - 5\n", "SPEC-SCHEMA")


@example("lint.source_unknown_top_level_key")
def _lint_source_unknown_top() -> str:
    return _linted(_LINT_HEAD + "rows: []\nextra: 1\n", "SPEC-SOURCE")


@example("lint.source_missing_top_level_key")
def _lint_source_missing_top() -> str:
    return _linted("rows:\n  - {id: f16, width_bits: 16, kind: float}\n", "SPEC-SOURCE")


@example("lint.source_rows_empty")
def _lint_source_rows_empty() -> str:
    return _linted(_LINT_HEAD + "rows: []\n", "SPEC-SOURCE")


@example("lint.source_not_a_mapping")
def _lint_source_not_mapping() -> str:
    return _linted("kind: element_type\nsource: x\nrows:\n  - {id: f16, width_bits: 16, kind: float}\n",
                   "SPEC-SOURCE")


_LINT_ROW = "rows:\n  - {id: f16, width_bits: 16, kind: float}\n"


@example("lint.source_value_not_a_string")
def _lint_source_value() -> str:
    return _linted(f"kind: element_type\n{_LINT_ROW}source: {{document: x, ptx_isa_version: 9.0, anchor: a, "
                   'section: "1"}\n', "SPEC-SOURCE")


@example("lint.source_unknown_key")
def _lint_source_unknown_key() -> str:
    return _linted(f"kind: element_type\n{_LINT_ROW}source: {{document: x, ptx_isa_version: '9.0', "
                   "anchor: a, section: '1', extra: 1}\n", "SPEC-SOURCE")


_LINT_COLUMNS = f"kind: element_type\n{_LINT_ROW}source: {{document: x, ptx_isa_version: '9.0', anchor: a, " \
                "section: '1', columns: "


@example("lint.source_columns_not_a_mapping")
def _lint_columns_mapping() -> str:
    return _linted(_LINT_COLUMNS + "[width_bits]}\n", "SPEC-SOURCE")


@example("lint.source_column_without_its_origin")
def _lint_column_origin() -> str:
    return _linted(_LINT_COLUMNS + "{width_bits: ''}}\n", "SPEC-SOURCE")


@example("lint.source_column_not_of_the_kind")
def _lint_column_kind() -> str:
    return _linted(_LINT_COLUMNS + "{colour: table 3}}\n", "SPEC-SOURCE")


@example("lint.schema_unknown_kind")
def _lint_unknown_kind() -> str:
    return _linted("kind: nope\n" + _LINT_ROW, "SPEC-SCHEMA")


_LINT_ATOM = ('kind: swizzle_atom\nsource: {{document: x, ptx_isa_version: "9.0", anchor: a, section: "1"}}\n'
              "rows:\n  - id: K_SW128\n    swizzle: 128B\n    major: {major}\n    printed_shape: {shape}\n"
              "    leading_u128: 8\n    strided_elems: 8\n")


@example("lint.schema_unknown_key")
def _lint_unknown_key() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8x8") + "    colour: red\n", "SPEC-SCHEMA")


@example("lint.schema_missing_key")
def _lint_missing_key() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8x8").replace("    leading_u128: 8\n", ""),
                   "SPEC-SCHEMA")


@example("lint.schema_not_one_of")
def _lint_not_one_of() -> str:
    return _linted(_LINT_ATOM.format(major="KM", shape="8x8"), "SPEC-SCHEMA")


@example("lint.schema_wrong_type")
def _lint_wrong_type() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8"), "SPEC-SCHEMA")


@example("lint.convert_unknown_key")
def _lint_convert_key() -> str:
    from ptxconf.oracle import records
    from ptxconf.oracle.lint.schema import SchemaError, convert

    return _raised(lambda: convert({"anchor": "a", "zz": 1}, records.Cite, "cite"), SchemaError)


@example("lint.ids_no_string_id")
def _lint_ids_none() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: 7, width_bits: 16, kind: float}\n", "SPEC-ID")


@example("lint.ids_characters")
def _lint_ids_chars() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f16!, width_bits: 16, kind: float}\n", "SPEC-ID")


@example("lint.ids_duplicate_in_a_file")
def _lint_ids_duplicate() -> str:
    return _linted(_LINT_HEAD + "rows:\n  - {id: f8, width_bits: 8}\n  - {id: f8, width_bits: 8}\n", "SPEC-ID")


@example("lint.ids_disagree_with_the_fields")
def _lint_ids_disagree() -> str:
    return _linted(_LINT_ATOM.format(major="K", shape="8x8").replace("id: K_SW128", "id: MN_SW128"), "SPEC-ID")
