"""Each rule of the oracle's domain (oracle/domain.py) on worked queries: the descriptor and
shared-memory checks, which bound each DOMAIN-* rule states and what it names (the warnings too),
and an element type no instruction reads (what the domain is for: test_domain.py).

Expected values come from the PTX ISA's descriptor and canonical-layout tables (as the spec
files cite them) and from the rule texts of `ptxconf oracle`'s documented refusal format
(`RULE - expected X, got Y`), never from the code under test."""

from __future__ import annotations

import dataclasses

import pytest
from case_outcomes import raises_naming

from ptxconf.oracle import domain as D
from ptxconf.oracle.canonical import SmemQuery
from ptxconf.oracle.domain import DomainError, DomainWarning
from ptxconf.oracle.records import ByteOffsetDefinition, DescriptorField, ElementType, InstructionType
from ptxconf.oracle.spec import Spec, default_spec


def test_refusal_and_warning_read_rule_dash_message() -> None:
    err = DomainError("DOMAIN-SHAPE", "expected mn a positive multiple of 8, got 12")
    assert str(err) == "DOMAIN-SHAPE - expected mn a positive multiple of 8, got 12"
    assert (err.code, err.message) == ("DOMAIN-SHAPE", "expected mn a positive multiple of 8, got 12")
    w = DomainWarning("DOMAIN-ALIAS", "expected 4 distinct addresses, got 3")
    assert str(w) == "DOMAIN-ALIAS - expected 4 distinct addresses, got 3"
    assert w.as_dict() == {"code": "DOMAIN-ALIAS", "message": "expected 4 distinct addresses, got 3"}

SPEC = default_spec()
# PTX: the descriptor's 14-bit address fields hold (addr & 0x3FFFF) >> 4, so the largest start,
# LBO and SBO are 0x3FFF0 bytes; operand starts are 16-byte aligned (9.7.15.5.1).
TOP = 0x3FFF0


def _encode_args(**kw) -> dict:
    return {"start_address_bytes": 0, "lbo_bytes": 16, "sbo_bytes": 16, "swizzle": "128B",
            "base_offset": 0, **kw}


def _refusal(call, code: str, *values: str) -> DomainError:
    """The DomainError `call()` raises: its rule is `code` and its message names each of `values`
    (the wording: messages_oracle_judging.py's domain.*)."""
    with raises_naming(DomainError, *values) as info:
        call()
    assert info.value.code == code
    assert str(info.value) == f"{code} - {info.value.message}"
    return info.value


def test_the_largest_and_16_byte_aligned_starts_are_accepted() -> None:
    D.check_descriptor(SPEC, **_encode_args(start_address_bytes=TOP))
    D.check_descriptor(SPEC, **_encode_args(start_address_bytes=16))


def test_a_start_past_the_address_range_is_refused_by_rule() -> None:
    _refusal(lambda: D.check_descriptor(SPEC, **_encode_args(start_address_bytes=TOP + 16)),
             "DOMAIN-START-RANGE", "0..0x3fff0", "0x40000")


def test_a_swizzle_the_descriptor_cannot_encode_names_the_choices() -> None:
    _refusal(lambda: D.check_descriptor(SPEC, **_encode_args(swizzle="16B")),
             "DOMAIN-SWIZZLE", "none, 128B, 64B, 32B", "'16B'")


def _spec_with(**replace: dict) -> Spec:
    """The bundled spec with some normative descriptor rows changed."""
    rows = tuple(dataclasses.replace(r, **replace[r.id])
                 if isinstance(r, DescriptorField) and r.file == "wgmma/matrix_descriptor.yaml"
                 and r.id in replace else r for r in SPEC.rows)
    return Spec(root=SPEC.root, rows=rows)


def test_the_descriptor_checks_read_the_spec_they_are_given() -> None:
    # a descriptor with a 17-bit address window and no 64B code
    other = _spec_with(start_address={"address_bits": 17},
                       layout_type={"codes": {"none": 0, "128B": 1, "32B": 3}})
    assert D.descriptor_swizzles(other) == ("none", "128B", "32B")
    with pytest.raises(DomainError, match="^DOMAIN-SWIZZLE"):
        D.check_descriptor(other, **_encode_args(swizzle="64B"))
    with pytest.raises(DomainError, match="^DOMAIN-START-RANGE"):
        D.check_descriptor(other, **_encode_args(start_address_bytes=1 << 17))
    D.check_descriptor(SPEC, **_encode_args(start_address_bytes=1 << 17))


def _q(**kw) -> SmemQuery:
    return SmemQuery(**{"dtype": "f16", "major": "K", "swizzle": "none", "mn": 8, "k": 32,
                        "lbo_bytes": 128, "sbo_bytes": 256, **kw})


def test_lbo_zero_names_how_many_steps_the_operand_takes() -> None:
    # K-major no-swizzle ((8,m),(T,2k)):((1T,SBO),(1,LBO)), T = 8: k = 32 is 4 columns of 8
    # elements, the last 3 LBO steps from the first
    _refusal(lambda: D.check_smem(SPEC, _q(lbo_bytes=0)), "DOMAIN-LBO-ZERO", "8x32 K_INTER", "3 LBO")


def test_sbo_zero_names_how_many_steps_the_operand_takes() -> None:
    # 16 rows: the second group of 8 is one SBO step on
    _refusal(lambda: D.check_smem(SPEC, _q(mn=16, sbo_bytes=0)), "DOMAIN-SBO-ZERO", "16x32 K_INTER", "1 SBO")


def test_sbo_zero_is_fine_where_no_sbo_step_is_taken() -> None:
    # 8 rows: one group, so SBO is never stepped, however many LBO steps K takes
    assert D.check_smem(SPEC, _q(sbo_bytes=0)) == []


def test_swapped_roles_exchange_which_zero_is_refused_for_mn_major_swizzled_only() -> None:
    # MN-major 128B ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)): 64 x 16 takes no LBO and one SBO step
    mn_sw = dict(dtype="f16", major="MN", swizzle="128B", mn=64, k=16)
    assert D.check_smem(SPEC, SmemQuery(**mn_sw, lbo_bytes=0, sbo_bytes=1024)) == []
    with pytest.raises(DomainError, match="^DOMAIN-LBO-ZERO"):
        D.check_smem(SPEC, SmemQuery(**mn_sw, lbo_bytes=0, sbo_bytes=1024, mn_lbo_sbo_roles="swapped"))
    assert D.check_smem(SPEC, SmemQuery(**mn_sw, lbo_bytes=1024, sbo_bytes=0,
                                        mn_lbo_sbo_roles="swapped")) == []
    # K-major and MN-major without swizzle: the reading changes nothing
    # (MN-major none, 8 x 16: one LBO step along K, no SBO step)
    for q in (_q(lbo_bytes=0), SmemQuery("f16", "MN", "none", 8, 16, 0, 256)):
        with pytest.raises(DomainError, match="^DOMAIN-LBO-ZERO"):
            D.check_smem(SPEC, dataclasses.replace(q, mn_lbo_sbo_roles="swapped"))


def test_alias_warning_names_the_first_pair() -> None:
    w = D.alias_warning([[0, 16], [16, 32]], "bytes")
    assert w is not None
    assert w.code == "DOMAIN-ALIAS"
    assert str(w) == f"DOMAIN-ALIAS - {w.message}"
    for named in ("4 distinct", "got 3", "(mn 0, k 1)", "(mn 1, k 0)", "0x10 bytes"):
        assert named in w.message
    assert D.alias_warning([[0, 1], [2, 3]], "bits") is None


def test_the_largest_base_offset_field_is_accepted() -> None:
    # the field is 3 bits wide (bits 51-49): 7 fits
    D.check_descriptor(SPEC, **_encode_args(base_offset=7))
    assert D.check_smem(SPEC, SmemQuery("f16", "K", "128B", 8, 64, 16, 1024, base_offset_field=7)) == []


def test_an_operand_of_exactly_the_addressable_256_kib_is_accepted() -> None:
    # 18 address bits: 256 KiB; 256 x 512 f16 is 262144 bytes, 256 x 528 is 270336
    assert D.check_smem(SPEC, _q(mn=256, k=512, lbo_bytes=16, sbo_bytes=16)) == []
    _refusal(lambda: D.check_smem(SPEC, _q(mn=256, k=528, lbo_bytes=16, sbo_bytes=16)),
             "DOMAIN-SIZE", "262144 bytes", "256x528 f16", "270336 bytes")


def test_a_k_off_the_instruction_step_names_the_first_instruction_of_the_type() -> None:
    first = next(r for r in SPEC.of(InstructionType) if "f16" in (r.atype, r.btype))
    err = _refusal(lambda: D.check_smem(SPEC, _q(k=8)), "DOMAIN-SHAPE", f"multiple of {first.k_elems}",
                   f": {first.id})")
    assert err.message.endswith(" 8")


def test_the_largest_lbo_and_sbo_are_accepted() -> None:
    D.check_descriptor(SPEC, **_encode_args(lbo_bytes=TOP, sbo_bytes=TOP))


@pytest.mark.parametrize(("q", "code", "bound", "value"), [
    (_q(dtype="f8"), "DOMAIN-DTYPE", ("dtype",), "'f8'"),
    (_q(swizzle="16B"), "DOMAIN-SWIZZLE", ("swizzle",), "'16B'"),
    # every swizzle mode has MN- and K-major templates (canonical_layouts.yaml: MN rows first)
    (_q(major="X", swizzle="128B"), "DOMAIN-MAJOR", ("MN, K",), "'X'"),
    (_q(k=0), "DOMAIN-SHAPE", ("multiple of 16",), "0"),
    # no swizzle: the start modulo the whole address range (0x3FFF0 = 262128)
    (_q(base_offset_bytes=262144), "DOMAIN-BASE-RANGE", ("address range", "0..262128 bytes"), "262144"),
    (_q(swizzle="128B", k=64, sbo_bytes=1024, base_offset_bytes=1024), "DOMAIN-BASE-RANGE",
     ("128B swizzle repeat", "0..1008 bytes"), "1024"),
    # a 128B swizzle row is 128 bytes: 8 chunks of 16 bytes, 64 f16
    (_q(swizzle="128B", k=128, sbo_bytes=1024), "DOMAIN-K-INJECTIVE",
     ("k <= 64", "128B swizzle row", "8 16-byte chunks", "chunk 8 of row r is chunk 0 of row r+1"), "128"),
])
def test_smem_refusals_name_the_rule_the_bound_and_the_value(q: SmemQuery, code: str, bound: tuple[str, ...],
                                                              value: str) -> None:
    err = _refusal(lambda: D.check_smem(SPEC, q), code, *bound)
    assert err.message.endswith(f" {value}")


def test_the_last_start_inside_the_128b_repeat_is_accepted() -> None:
    # 1024-byte repeat, 16-byte aligned starts: 1008 is the last
    assert D.check_smem(SPEC, _q(swizzle="128B", k=64, lbo_bytes=16, sbo_bytes=1024,
                                 base_offset_bytes=1008)) == []


def test_only_k_major_swizzled_operands_are_bound_to_one_swizzle_row() -> None:
    # MN-major 128B and K-major no-swizzle operands 128 f16 deep are not K-INJECTIVE refusals
    assert D.check_smem(SPEC, SmemQuery("f16", "MN", "128B", 64, 128, 1024, 1024)) == []
    assert D.check_smem(SPEC, _q(k=128)) == []


def test_smem_checks_read_the_descriptor_of_the_spec_they_are_given() -> None:
    # a 10-bit LBO field stores at most 1023 << 4 = 16368 bytes
    other = _spec_with(leading_byte_offset={"width_bits": 10})
    assert D.check_smem(SPEC, _q(lbo_bytes=16384)) == []
    _refusal(lambda: D.check_smem(other, _q(lbo_bytes=16384)), "DOMAIN-LBO-RANGE", "0..16368 bytes")


def test_lbo_zero_quotes_the_definition_row() -> None:
    lbo_k_none = next(r for r in SPEC.of(ByteOffsetDefinition)
                      if r.offset == "LBO" and r.major == "K" and "none" in r.swizzles)
    err = _refusal(lambda: D.check_smem(SPEC, _q(lbo_bytes=0)), "DOMAIN-LBO-ZERO", "8x32 K_INTER", "3 LBO",
                   f"({lbo_k_none.text})")
    assert err.message.endswith(" 0")


def test_an_ignored_k_major_swizzled_lbo_is_labelled_with_the_assumed_16_bytes() -> None:
    # LBO.K.swizzled: not used, assumed 1 (a 128-bit unit): 16 bytes
    row = next(r for r in SPEC.of(ByteOffsetDefinition)
               if r.offset == "LBO" and r.major == "K" and "128B" in r.swizzles)
    got = D.check_smem(SPEC, _q(swizzle="128B", k=64, lbo_bytes=128, sbo_bytes=1024))
    assert [w.code for w in got] == ["DOMAIN-LBO-IGNORED"]
    for named in ("LBO 16", f"({row.id}: {row.text})", "128"):
        assert named in got[0].message


def test_the_answer_labels_aliasing_in_its_units() -> None:
    # SBO = 16 bytes puts rows 8-15 one chunk after rows 0-7: inside them
    out = D.smem_answer(SPEC, _q(swizzle="128B", mn=16, k=16, lbo_bytes=16, sbo_bytes=16))
    assert [w["code"] for w in out["warnings"]] == ["DOMAIN-ALIAS"]
    assert out["warnings"][0]["message"].endswith(" bytes")


# --- an element type no wgmma instruction reads (a scratch spec: the bundled one has none) -----


def _spec_with_an_unread_type() -> Spec:
    """The bundled spec plus an 8-bit float type `e3m4` that no instruction row reads."""
    e4m3 = next(r for r in SPEC.of(ElementType) if r.id == "e4m3")
    return Spec(root=SPEC.root, rows=(*SPEC.rows, dataclasses.replace(
        e4m3, id="e3m4", exponent_bits=3, mantissa_bits=4)))


def test_an_unread_type_is_answered_in_the_templates_k_repeat_with_a_warning() -> None:
    # K_SW128 is ((8,m),(T,2k)): one repeat spans 2T elements of K, T = 128 / 8 = 16 for an
    # 8-bit type, so 32 elements
    spec = _spec_with_an_unread_type()
    warnings = D.check_smem(spec, SmemQuery("e3m4", "K", "128B", 8, 32, 16, 1024))
    assert [w.code for w in warnings] == ["DOMAIN-NO-INSTRUCTION"]
    assert "e3m4" in warnings[0].message
    assert "(32)" in warnings[0].message


def test_an_unread_types_k_off_the_templates_repeat_is_refused_saying_so() -> None:
    spec = _spec_with_an_unread_type()
    err = _refusal(lambda: D.check_smem(spec, SmemQuery("e3m4", "K", "128B", 8, 48, 16, 1024)),
                   "DOMAIN-SHAPE", "multiple of 32", "template's K repeat")
    assert err.message.endswith(" 48")


def test_an_unread_types_mn_steps_by_every_instructions_valid_n() -> None:
    # no row of its own: the step is that of every accumulator's valid N (PTX: N = 8 i)
    spec = _spec_with_an_unread_type()
    err = _refusal(lambda: D.check_smem(spec, SmemQuery("e3m4", "K", "128B", 12, 32, 16, 1024)),
                   "DOMAIN-SHAPE", "mn", "multiple of 8", "valid-N")
    assert err.message.endswith(" 12")
