"""`explain tma`'s judgement (oracle/explain/tma_pair.py): a TMA box and a wgmma descriptor pair,
or the mistake is named with the descriptor that pairs and the tensor-map swizzle that does.

The gallery: one box and descriptor a mistake, the corrected value built with `encode()` from
the fields the box's packing gives (tma.packed_offsets). Outcomes are asserted by verdict, code
and fields; the wording is pinned by messages_tma.py.
"""

from __future__ import annotations

import pytest
from case_outcomes import raises_naming

from ptxconf.app.providers import gpu_case_ids
from ptxconf.oracle import tma
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.explain.operand import ExplainError
from ptxconf.oracle.explain.tma_pair import CODES, explain_tma
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
BOX = {"dtype": "bf16", "rows": 64, "major": "K"}


def encode(start: int, lbo: int, sbo: int, swizzle: str, field: int = 0) -> int:
    return descriptor_format(SPEC).encode(start_address_bytes=start, lbo_bytes=lbo, sbo_bytes=sbo,
                                          swizzle=swizzle, base_offset=field)


def packed(mode: str, cols: int, base: int, read: str | None = None) -> tuple[int, int]:
    return tma.packed_offsets(SPEC, tma.box(SPEC, mode, "bf16", 64, cols, base), "K", read or mode)


@pytest.mark.parametrize("mode", ["32B", "64B", "128B"])
def test_a_box_and_its_own_mode_s_descriptor_pair(mode: str) -> None:
    cols = (tma.enum_row(SPEC, mode).max_inner_box_bytes or 0) // 2
    e = explain_tma(SPEC, swizzle=mode, cols=cols, base=0x800,
                    value=encode(0x800, *packed(mode, cols, 0x800), mode), **BOX)
    assert (e.verdict, e.code, e.corrected, e.tensor_maps) == ("pairs", None, None, ())
    assert e.as_dict()["pairing"]["moved_count"] == 0


def test_another_mode_names_the_mode_and_the_box_s_descriptor() -> None:
    lbo, sbo = packed("128B", 32, 0x400)
    e = explain_tma(SPEC, swizzle="64B", cols=32, base=0x400, value=encode(0x400, lbo, sbo, "128B"),
                    **BOX)
    assert (e.verdict, e.code) == ("mismatch", "TMA-PAIR-MODE")
    want = encode(0x400, *packed("64B", 32, 0x400), "64B")
    assert e.corrected is not None
    assert (e.corrected.value, e.corrected.changed(e.desc)) == (want, ("sbo", "swizzle"))
    # the 128B tensor map writes the 64-B rows 128 B apart (its span), as the 128B reader takes them
    assert e.tensor_maps == ("CU_TENSOR_MAP_SWIZZLE_128B",)


def test_a_descriptor_read_by_another_mode_s_tensor_map_names_it() -> None:
    """A box written without a swizzle, read by the 32B descriptor of its packing: the tensor
    map's swizzle is the other fix."""
    lbo, sbo = packed("32B", 16, 0x400)
    e = explain_tma(SPEC, swizzle="none", cols=16, base=0x400, value=encode(0x400, lbo, sbo, "32B"),
                    **BOX)
    assert e.code == "TMA-PAIR-MODE"
    assert e.tensor_maps == ("CU_TENSOR_MAP_SWIZZLE_32B",)


def test_a_start_off_the_box_is_named() -> None:
    lbo, sbo = packed("128B", 64, 0x400)
    e = explain_tma(SPEC, swizzle="128B", cols=64, base=0x400, value=encode(0x800, lbo, sbo, "128B"),
                    **BOX)
    assert e.code == "TMA-PAIR-START"
    assert e.corrected is not None
    assert (e.corrected.value, e.corrected.changed(e.desc)) == \
        (encode(0x400, lbo, sbo, "128B"), ("start_address",))


def test_the_rule_s_base_offset_field_at_an_unaligned_box_is_a_phase_mistake() -> None:
    """TMA keeps the absolute pattern; the field per the rule restarts wgmma's at the start's
    line (the H100 reading): field 0 pairs."""
    lbo, sbo = packed("128B", 64, 0x480)
    e = explain_tma(SPEC, swizzle="128B", cols=64, base=0x480,
                    value=encode(0x480, lbo, sbo, "128B", field=1), **BOX)
    assert e.code == "TMA-PAIR-PHASE"
    assert e.corrected is not None
    assert (e.corrected.value, e.corrected.changed(e.desc)) == \
        (encode(0x480, lbo, sbo, "128B"), ("base_offset",))
    assert "proof.tma_pairing[tma/swizzling_modes:128B~wgmma/canonical_layouts:K_SW128.off_rule]" \
        in e.evidence


def test_strides_that_are_not_the_box_s_packing_are_named() -> None:
    lbo, sbo = packed("128B", 64, 0)
    e = explain_tma(SPEC, swizzle="128B", cols=64, base=0, value=encode(0, sbo, lbo, "128B"),
                    **BOX)
    assert e.code == "TMA-PAIR-STRIDE"
    assert e.corrected is not None
    # K-major swizzled LBO is not used: the nearest fix changes SBO alone
    assert (e.corrected.sbo, e.corrected.changed(e.desc)) == (sbo, ("sbo",))


def test_narrow_rows_swizzled_wide_pair_with_the_wide_mode_s_descriptor() -> None:
    """A 128B box of 32-B rows (16 bf16): TMA puts each row at its 128-B span (measured on an
    H100), the K_SW128 canonical layout, so the 128B descriptor with SBO = 8 rows x 128 B reads
    it; the same descriptor with SBO = 8 x 32 B does not."""
    e = explain_tma(SPEC, swizzle="128B", cols=16, base=0, value=encode(0, 16, 1024, "128B"),
                    **{**BOX, "rows": 8})
    assert (e.verdict, e.code) == ("pairs", None)
    e = explain_tma(SPEC, swizzle="128B", cols=16, base=0, value=encode(0, 16, 256, "128B"),
                    **{**BOX, "rows": 16})
    assert (e.verdict, e.code) == ("mismatch", "TMA-PAIR-STRIDE")
    assert e.code in CODES


def test_bad_input_is_refused_with_a_code() -> None:
    with raises_naming(tma.TmaError, "144 B"):
        explain_tma(SPEC, swizzle="128B", cols=72, base=0, value=0, **BOX)
    with raises_naming(ExplainError, "DOMAIN-SHAPE"):
        explain_tma(SPEC, swizzle="128B", cols=64, base=0, value=encode(0, 16, 1024, "128B"),
                    **{**BOX, "rows": 60})


def test_the_evidence_is_the_box_s_proof_and_its_cell_proved_and_on_silicon() -> None:
    lbo, sbo = packed("64B", 32, 0x800)
    e = explain_tma(SPEC, swizzle="64B", cols=32, base=0x800, value=encode(0x800, lbo, sbo, "64B"),
                    **BOX)
    cell = "tma/swizzling_modes:64B~wgmma/canonical_layouts:K_SW64.aligned"
    assert e.evidence == ("proof.tma_box_bijective[tma/swizzling_modes:64B.2B]",
                          f"proof.tma_pairing[{cell}]", f"gpu.tma_pairing[{cell}]")
    assert f"gpu.tma_pairing[{cell}]" in gpu_case_ids(SPEC)
    d = e.as_dict()
    assert set(d) == {"verdict", "box", "operand", "descriptor", "pairing", "code", "message",
                      "corrected", "tensor_map_swizzle", "evidence"}
