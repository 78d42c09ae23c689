"""Message examples of `ptxconf explain` (src/ptxconf/oracle/explain): its refusals and diagnoses,
one per message shape, each for the input its test in conformance/test_explain_<module>.py uses
(see golden_messages.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from case_outcomes import explain_a_bf16 as a_bf16
from explain_names_inputs import (
    GPU_IDS,
    SPEC,
)
from explain_names_inputs import desc as _desc
from explain_names_inputs import explain_one as _explain
from explain_names_inputs import namer as _namer
from golden_messages import example
from golden_messages import raised as _raised

from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.explain.names import no_fix
from ptxconf.oracle.explain.operand import resolve
from ptxconf.oracle.explain.readmap import Analysis, Context, Descriptor, analyse, read_map
from ptxconf.oracle.spec import default_spec

INSTR = "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"
FP8 = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2"


# --- explain/operand.py: resolve's refusals (test_explain_operand.py's REFUSALS) -------------------

_REFUSALS: dict[str, dict[str, Any]] = {
    "form_disagrees": {"instr": f"{INSTR}:RS", "operand": "B", "form": "SS"},
    "form_unknown": {"instr": INSTR, "operand": "B", "form": "WS"},
    "no_operand": {"instr": INSTR},
    "mn_with_instr": {"instr": INSTR, "operand": "A", "mn": 64},
    "rs_operand_a": {"instr": f"{INSTR}:RS", "operand": "A"},
    "dtype_of_the_other_operand": {"instr": FP8, "operand": "B", "dtype": "e4m3"},
    "nothing_given": {},
    "flags_missing": {"dtype": "bf16", "mn": 64},
    "dtype_unknown": {"dtype": "f8", "major": "K", "mn": 64, "k": 16},
    "sub_byte": {"dtype": "u4", "major": "K", "mn": 64, "k": 64},
    "major_unknown": {"dtype": "bf16", "major": "k", "mn": 64, "k": 16},
    "tf32_mn_major": {"dtype": "tf32", "major": "MN", "mn": 64, "k": 8},
    "mn_off_8": {"dtype": "bf16", "major": "K", "mn": 60, "k": 16},
    "k_off_the_k_major_repeat": {"dtype": "bf16", "major": "K", "mn": 64, "k": 8},
    "k_off_the_mn_major_repeat": {"dtype": "bf16", "major": "MN", "mn": 64, "k": 4},
}


def _refusal(kw: dict[str, Any]) -> Callable[[], str]:
    def produce() -> str:
        from ptxconf.oracle.explain.operand import ExplainError, resolve

        return _raised(lambda: resolve(default_spec(), **kw), ExplainError)

    return produce


for _label, _kw in _REFUSALS.items():
    produce = _refusal(_kw)
    produce.__module__ = __name__
    example(f"operand.refusal.{_label}")(produce)


@example("operand.n_not_valid")
def _n_not_valid() -> str:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    from scratch_spec import edited_spec

    from ptxconf.oracle.explain.operand import resolve

    row = ('{id: k16.D.f32, shape: m64nNk16, k_elems: 16, operand: D, types: [f32], registers: "N/2", '
           'register_type: f32, elems_per_register: 1, last_index: "N/2 - 1", elements: "N/2", '
           'figure: 149, valid_n: [{step_elems: 8, i_min: 1, i_max: 32}]')
    with TemporaryDirectory() as tmp:
        cut = edited_spec(Path(tmp), "wgmma/register_fragments.yaml", row, row.replace("i_max: 32", "i_max: 4"))
        return _raised(lambda: resolve(cut, instr=INSTR, operand="B"))


# --- explain/names.py: the diagnoses (test_explain_names.py) ----------------------------------------


ORDER = ("none", "128B", "64B", "32B")
VALID = Analysis(True, None, (0x100, 0x900), 0, None, 0, 0)


@example("names.start_misaligned_diagnosis_as_dict")
def _start_misaligned_diagnosis_as_dict() -> str:
    d = _explain(a_bf16(), encode(0x80, 16, 256, "32B"))
    return d.message


@example("names.lbo_sbo_swapped_k_sw128_names_both_definitions_and_the_alias")
def _lbo_sbo_swapped_k_sw128_names_both_definitions_and_the_alias() -> str:
    d = _explain(a_bf16(), encode(0, 1024, 16, "128B"))
    return d.message


@example("names.lbo_sbo_swapped_interleaved_overrun")
def _lbo_sbo_swapped_interleaved_overrun() -> str:
    d = _explain(a_bf16(), encode(0, 128, 1024, "none"), smem=2048)
    return d.message


@example("names.a_valid_map_with_gaps_is_a_suspect_swap_with_its_spans")
def _a_valid_map_with_gaps_is_a_suspect_swap_with_its_spans() -> str:
    d = _explain(a_bf16(), encode(0, 128, 1024, "none"))
    return d.message


@example("names.mn_roles_swapped_message")
def _mn_roles_swapped_message() -> str:
    d = _explain(a_bf16("MN"), encode(0, 256, 512, "32B"))
    return d.message


@example("names.base_offset_phase_message")
def _base_offset_phase_message() -> str:
    d = _explain(a_bf16(), encode(0x400, 16, 1024, "128B", 2))
    return d.message


@example("names.ignored_base_offset_without_a_swizzle")
def _ignored_base_offset_without_a_swizzle() -> str:
    d = _explain(a_bf16(), encode(0, 1024, 128, "none", 5))
    return d.message


@example("names.ignored_lbo_of_a_k_major_swizzled_operand")
def _ignored_lbo_of_a_k_major_swizzled_operand() -> str:
    d = _explain(a_bf16(), encode(0, 1024, 1024, "128B"))
    return d.message


@example("names.overrun_message_gives_both_spans")
def _overrun_message_gives_both_spans() -> str:
    d = _explain(a_bf16(), encode(0, 16, 2048, "128B"), smem=8192)
    return d.message


@example("names.stride_zero_messages")
def _stride_zero_messages() -> str:
    sbo = _explain(a_bf16(), encode(0, 16, 0, "128B"))
    return sbo.message


@example("names.a_wrong_stride_without_overrun_is_explain_stride")
def _a_wrong_stride_without_overrun_is_explain_stride() -> str:
    n = _namer(a_bf16(), _desc(sbo=512), _desc(), Context(0))
    d = n.stride("sbo")
    return d.message


@example("names.swizzle_mode_message_names_the_row_width")
def _swizzle_mode_message_names_the_row_width() -> str:
    d = _explain(a_bf16(), encode(0, 16, 512, "128B"), smem=4096)
    return d.message


@example("names.a_k_extent_of_exactly_one_swizzle_row_is_not_beyond_it")
def _a_k_extent_of_exactly_one_swizzle_row_is_not_beyond_it() -> str:
    d = _namer(a_bf16(), _desc(sbo=512, swizzle="32B"), _desc(sbo=512, swizzle="64B"),
                   Context(0)).swizzle()
    return d.message


@example("names.k_beyond_row_message")
def _k_beyond_row_message() -> str:
    op = resolve(SPEC, dtype="bf16", major="K", mn=64, k=32)
    d = _explain(op, encode(0, 16, 256, "32B"))
    return d.message


@example("names.no_fix_with_a_tile_inside_its_span")
def _no_fix_with_a_tile_inside_its_span() -> str:
    op = a_bf16()
    user = _desc(start=0x80)
    ctx = Context(0x100, 8192)
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    d = no_fix(SPEC, op, user, ua, ctx, 5, GPU_IDS)
    return d.message


@example("names.no_fix_overrun_when_the_span_exceeds_the_allocation")
def _no_fix_overrun_when_the_span_exceeds_the_allocation() -> str:
    op = a_bf16()
    user = _desc()
    ctx = Context(0, 1024)
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    d = no_fix(SPEC, op, user, ua, ctx, 9, GPU_IDS)
    return d.message


@example("names.mn_major_interleaved_swap_reads_the_mn_definitions")
def _mn_major_interleaved_swap_reads_the_mn_definitions() -> str:
    d = _explain(a_bf16("MN"), encode(0, 128, 1024, "none"))
    return d.message


@example("names.swizzle_mode_without_the_row_width_note")
def _swizzle_mode_without_the_row_width_note() -> str:
    op = a_bf16()
    sbo = _namer(op, _desc(sbo=256), _desc(sbo=512, swizzle="64B"), Context(0)).swizzle()
    return sbo.message


@example("names.swizzle_mode_of_an_unswizzled_k_major_descriptor")
def _swizzle_mode_of_an_unswizzled_k_major_descriptor() -> str:
    d = _namer(a_bf16(), _desc(swizzle="none"), _desc(), Context(0)).swizzle()
    return d.message


@example("names.an_mn_major_mode_mistake_has_no_k_row_bound_and_no_row_note")
def _an_mn_major_mode_mistake_has_no_k_row_bound_and_no_row_note() -> str:
    op = resolve(SPEC, dtype="bf16", major="MN", mn=64, k=128)
    d = _namer(op, _desc(), _desc(swizzle="64B"), Context(0)).swizzle()
    return d.message


@example("names.no_fix_when_the_span_equals_the_allocation")
def _no_fix_when_the_span_equals_the_allocation() -> str:
    op = a_bf16()
    user = _desc()
    ctx = Context(0x400, 8192)
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    d = no_fix(SPEC, op, user, ua, ctx, 3, GPU_IDS)
    return d.message


# --- explain/synthesize.py: parse_layout's and synthesize's input errors (test_explain_synthesize.py)

def _layout_error(text: str, dtype: str = "bf16", unit: str = "bytes") -> Callable[[], str]:
    def produce() -> str:
        from ptxconf.oracle.explain.operand import ExplainError
        from ptxconf.oracle.explain.synthesize import parse_layout

        return _raised(lambda: parse_layout(default_spec(), text, dtype, unit), ExplainError)

    return produce


for _label, _args in {"unit_unknown": ("(64,16):(16,1)", "bf16", "words"),
                      "sub_byte": ("(64,16):(16,1)", "s4"),
                      "swizzle_alone": ("Swizzle<3,4,3>",),
                      "not_a_composition": ("(4,4):(1,4) o 0 o (4,4):(4,1)",),
                      "three_modes": ("(64,16,2):(16,1,1024)",),
                      "width_disagrees": ("Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)",
                                          "f32"),
                      "global_memory": ("gmem_ptr[16b](0x7f00) o (8,64):(64,1)",),
                      "unit_disagrees": ("Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)",
                                         "bf16", "elements"),
                      "two_swizzles": ("Sw<3,4,3>_smem_ptr[16b](0x0) o Sw<3,4,3> o _0 o "
                                       "(8,64):(64,1)",)}.items():
    produce = _layout_error(*_args)
    produce.__module__ = __name__
    example(f"synthesize.layout.{_label}")(produce)


def _synthesize_error(text: str, **kw: Any) -> str:
    from case_outcomes import BF16_K

    from ptxconf.oracle.explain.operand import ExplainError
    from ptxconf.oracle.explain.synthesize import synthesize

    return _raised(lambda: synthesize(default_spec(), text, BF16_K, **kw), ExplainError)


@example("synthesize.start_off_the_granule")
def _start_off_the_granule() -> str:
    from case_outcomes import README_LAYOUT

    return _synthesize_error(README_LAYOUT, start=8)


@example("synthesize.not_a_whole_number_of_operands")
def _not_whole_operands() -> str:
    return _synthesize_error("(96,16):(16,1)")


@example("synthesize.domain_major")
def _domain_major() -> str:
    """The MN_SW128 tf32 tile of test_explain_printed.py."""
    from ptxconf.oracle.explain.operand import Operand
    from ptxconf.oracle.explain.synthesize import Refusal, synthesize

    got = synthesize(default_spec(), "Swizzle<3,4,3> o 0 o ((32,2),(8,1)):((1,256),(32,0))",
                     Operand("tf32", "K", 64, 8, 32))
    assert isinstance(got, Refusal)
    return got.reasons[0]


@example("printed.pointer_address_not_read")
def _pointer_address() -> str:
    from ptxconf.oracle.explain.printed import parse_layout

    return parse_layout(default_spec(), "smem_ptr[16b](0x7f0400) o (8,64):(64,1)", "bf16").notes[0]


# --- explain/assumed.py (test_explain_terminal.py) --------------------------------------------


@example("assumed.tile_base_and_the_other_verdict")
def _assumed_tile_base() -> str:
    from ptxconf.oracle.explain.assumed import descriptor_assumptions
    from ptxconf.oracle.explain.diagnose import explain_descriptor

    spec, op = default_spec(), a_bf16()
    value = encode(start_address_bytes=0x480, lbo_bytes=16, sbo_bytes=1024, swizzle="128B")
    e = explain_descriptor(spec, op, value, evidence_ids=GPU_IDS)
    (base, _) = descriptor_assumptions(spec, op, value, e, tile_base_given=False,
                                       major_given=False, evidence_ids=GPU_IDS)
    (other,) = base.otherwise
    return f"{base.said} ({base.option}); with {other.options} ({other.why}): {other.verdict}"


@example("assumed.layout_swizzle_unit")
def _assumed_unit() -> str:
    from case_outcomes import BF16_K, README_LAYOUT

    from ptxconf.oracle.explain.assumed import layout_assumptions
    from ptxconf.oracle.explain.synthesize import synthesize

    spec = default_spec()
    got = synthesize(spec, README_LAYOUT, BF16_K)
    said = layout_assumptions(spec, README_LAYOUT, BF16_K, got, majors=("K", "MN"), start=0,
                              start_given=False, instr_given=False)
    return " | ".join(f"{a.said} ({a.option})" for a in said)


# --- explain/readmap.py (test_explain_readmap.py) ------------------------------------------------

@example("readmap.layout_type_code_undefined")
def _layout_type_code_undefined() -> str:

    from scratch_spec import descriptor_field_replaced


    spec = descriptor_field_replaced("layout_type", codes={"none": 0, "128B": 1, "64B": 2})
    return _raised(lambda: Descriptor.decode(spec, 3 << 62))
