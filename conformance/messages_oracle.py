"""Message examples of the oracle's core modules (wmma, records, notation, facts, descriptor,
banks, findings, hypotheses, spec, canonical): see golden_messages.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from golden_messages import example
from golden_messages import raised as _raised
from scratch_spec import default_row_replaced as _facts_with

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


def _printed(text: str) -> str:
    from ptxconf.oracle.algebra.notation import NotationError, parse_printed

    return _raised(lambda: parse_printed(text), NotationError)


@example("notation.printed.dynamic_value")
def _printed_dynamic() -> str:
    return _printed("tensor<ptr<f32, gmem, align<16>> o (128,32,?):(1,?,?)>")


@example("notation.printed.pointer_misplaced")
def _printed_misplaced() -> str:
    return _printed("(8,smem_ptr[16b](unset)):(1,8)")


@example("notation.printed.second_flag")
def _printed_second_flag() -> str:
    return _printed("Sw<3,4,3> o smem_ptr[16b](unset) o 0 o smem_ptr[16b](unset) o (8,8):(8,1)")


@example("notation.printed.dsl_tensor_unclosed")
def _printed_unclosed() -> str:
    return _printed("tensor<ptr<f16, smem> o (8,8):(8,1)")


@example("notation.printed.sparse")
def _printed_sparse() -> str:
    return _printed("Sw<3,4,3> o smem_sparse<2>_ptr[16b](unset) o (8,8):(8,1)")


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
