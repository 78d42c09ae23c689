"""The diagnoses `ptxconf explain` names (oracle/explain/names.py): what each mistake is (code,
severity, the fields the fix changes, the corrected value), why (the catalog's rule, the spec
rows, the evidence) and the values its message names (the definitions quoted, the coordinates
and addresses of the first alias or outside element, the spans); the messages' wording is pinned
by messages_explain.py. The candidate the search ranks first, set against the user's descriptor,
says which fields change.

Expected values are worked by hand from the documents and the module's stated contract (the
candidate the search ranks first, set against the user's descriptor, says which fields change;
each diagnosis says what, why (the catalog's rule, spec rows, evidence) and the fix):

* the messages quote the byte-offset definitions as printed (wgmma/leading_byte_offset.yaml,
  wgmma/stride_byte_offset.yaml) and the swizzle atoms' widths (wgmma/swizzle_atoms.yaml:
  leading_u128 16-byte chunks a row);
* a read map's problems are worked from the canonical layouts (wgmma/canonical_layouts.yaml;
  K_SW128 bf16: row r of 8-row group g at 128 r + SBO g, K element j at 2 j; the XOR
  Swizzle<3,4,3> on byte addresses: bits 4-6 ^= bits 7-9; K_INTER: 16 r + SBO g + LBO (j // 8)
  + 2 (j % 8)): the first alias is the lowest address read twice (its two cells in row-major
  order), the first outside cell the first in row-major order; the hardware phase is
  (start - (field << 7)) mod repeat, the tile's (start - base) mod repeat, the base by default
  the start's 128-B row (readmap.py's docstring);
* descriptor values are encoded by hand from wgmma/matrix_descriptor.yaml (start, LBO, SBO >> 4
  at bits 0, 16, 32; base offset at 49; layout type at 62: none 0, 128B 1, 64B 2, 32B 3);
* a candidate's rank is Candidate.rank's stated key, its cost the fields changed with a swap
  counted once.
"""

from __future__ import annotations

import re

from case_outcomes import (
    RULE_NO_FIX,
    RULE_START,
    SMEM_A_BF16,
    START_F16,
    UNUSED_BASE,
    UNUSED_LBO_BF16,
    expect_named,
)
from case_outcomes import explain_a_bf16 as a_bf16
from explain_names_inputs import (
    GPU_IDS,
    LBO_K_NONE,
    LBO_K_SW,
    LBO_MN_SW,
    REF,
    RULE_IGNORED,
    SBO_K,
    SBO_MN_SW,
    SPEC,
)
from explain_names_inputs import desc as _desc
from explain_names_inputs import explain_one as _explain
from explain_names_inputs import namer as _namer

from ptxconf.oracle.descriptor import encode
from ptxconf.oracle.explain import catalog, names
from ptxconf.oracle.explain.names import Candidate, no_fix, problems
from ptxconf.oracle.explain.operand import resolve
from ptxconf.oracle.explain.readmap import Analysis, Context, Suspect, analyse, read_map


def test_start_misaligned_diagnosis_as_dict() -> None:
    """`--json`'s mistake object, whole: a K-major 32B tile at 0x80 with the field 0.

    The tile base is the start's 128-B row, 0x80: the hardware phase is 0x80 mod 256 = 128,
    the tile's 0; the rule's field is (0x80 >> 7) & 7 = 1. Corrected: start 0x80 >> 4 = 0x8,
    LBO 1 << 16, SBO 16 << 32, field 1 << 49, 32B (3) << 62 = 0xc002001000010008."""
    d = _explain(a_bf16(), encode(0x80, 16, 256, "32B"))
    assert {k: v for k, v in d.as_dict().items() if k != "message"} == {
        "code": "EXPLAIN-START-MISALIGNED", "title": "start not aligned to the swizzle repeat",
        "severity": "error",
        "rule": RULE_START, "spec": [REF["base_offset.32B"], REF["field.base_offset"]],
        "evidence": ["gpu.hypothesis[base_offset]", START_F16.format("K_SW32:+128:base_offset=1"),
                     START_F16.format("K_SW32:+128:base_offset=0"),
                     "proof.base_alignment[wgmma/base_offset:base_offset.32B]",
                     "gpu.mistake[start_misaligned_32B]"],
        "fix": {"base_offset": {"from": 0, "to": 1}},
        "corrected": "0xc002001000010008"}
    expect_named(d, '0x80', '128 B', '256-B', '32B', '0 B', '128-B')
    assert d.corrected == encode(0x80, 16, 256, "32B", 1) == 0xC002001000010008
    assert (d.title, d.rule) == ("start not aligned to the swizzle repeat", RULE_START)


def test_lbo_sbo_swapped_k_sw128_names_both_definitions_and_the_alias() -> None:
    """LBO 1024 / SBO 16: row 0's K element 8 (2 x 8 = 16 B) and group 1's row 0 (SBO 16 B) are
    both at 0x10, the lowest address read twice."""
    d = _explain(a_bf16(), encode(0, 1024, 16, "128B"))
    assert d.code == "EXPLAIN-LBO-SBO-SWAPPED"
    assert d.severity == "error"
    expect_named(d, 'LBO 1024 B', 'SBO 16 B', SBO_K, LBO_K_SW, '(mn 0, k 8)', '(mn 8, k 0)', '0x10',
                 'LBO 16 B', 'SBO 1024 B')
    assert d.spec_rows == (REF["LBO.K.swizzled"], REF["SBO.K.all"], REF["K_SW128"])
    assert d.fix == {"lbo": (1024, 16), "sbo": (16, 1024)}
    assert d.as_dict()["fix"] == {"lbo": {"from": 1024, "to": 16}, "sbo": {"from": 16, "to": 1024}}
    # LBO 16 >> 4 = 1 at bit 16, SBO 1024 >> 4 = 64 at bit 32, 128B (1) at bit 62
    assert d.as_dict()["corrected"] == "0x4000004000010000"


def test_lbo_sbo_swapped_interleaved_overrun() -> None:
    """K_INTER, LBO 128 / SBO 1024 in 2 KiB: groups 2..7 (rows 16..63, 48 x 16 elements) lie at
    2048 B and beyond; the first is (16, 0) at 0x800."""
    d = _explain(a_bf16(), encode(0, 128, 1024, "none"), smem=2048)
    expect_named(d, 'LBO 128 B', 'SBO 1024 B', SBO_K, LBO_K_NONE, '768 of 1024', '[0x0, 0x800)',
                 '(mn 16, k 0)', '0x800', 'LBO 1024 B', 'SBO 128 B')


def test_a_valid_map_with_gaps_is_a_suspect_swap_with_its_spans() -> None:
    """K_INTER, LBO 128 / SBO 1024, no allocation: valid, spanning 7 x 1024 + 7 x 16 + 128 + 14
    + 2 = 7424 B; swapped 7 x 128 + 7 x 16 + 1024 + 14 + 2 = 2048 B."""
    d = _explain(a_bf16(), encode(0, 128, 1024, "none"))
    assert (d.code, d.severity) == ("EXPLAIN-LBO-SBO-SWAPPED", "suspect")
    expect_named(d, 'LBO 128 B', 'SBO 1024 B', SBO_K, LBO_K_NONE, '7424 B', '2048 B', 'LBO 1024 B', 'SBO 128 B')


def test_mn_roles_swapped_message() -> None:
    """MN_SW32 bf16, LBO 256 / SBO 512: MN block 2 (2 x 256) and K block 1 (512) meet at 0x200:
    cells (0, 8) and (32, 0)."""
    d = _explain(a_bf16("MN"), encode(0, 256, 512, "32B"))
    assert d.code == "EXPLAIN-MN-ROLES-SWAPPED"
    expect_named(d, '32B', LBO_MN_SW, SBO_MN_SW, 'LBO 256 B', 'SBO 512 B', '(mn 0, k 8)', '(mn 32, k 0)',
                 '0x200', 'LBO 512 B', 'SBO 256 B')
    assert d.spec_rows == (REF["LBO.MN.swizzled"], REF["SBO.MN.swizzled"], REF["MN_SW32"])


def test_base_offset_phase_message() -> None:
    """0x400 is on the 1024-B repeat; field 2 puts the hardware phase at (0x400 - 256) mod 1024
    = 768, the tile's at 0."""
    d = _explain(a_bf16(), encode(0x400, 16, 1024, "128B", 2))
    assert d.code == "EXPLAIN-BASE-OFFSET-PHASE"
    expect_named(d, '0x400', '1024-B', '128 B', '128B', '768 B', '0 B')
    assert d.spec_rows == (REF["base_offset.128B"], REF["field.base_offset"])
    assert d.fix == {"base_offset": (2, 0)}


def test_ignored_base_offset_without_a_swizzle() -> None:
    """A valid interleaved tile with field 5: suspect, the rows and cases of the unused field."""
    d = _explain(a_bf16(), encode(0, 1024, 128, "none", 5))
    assert {k: v for k, v in d.as_dict().items() if k != "message"} == {
        "code": "EXPLAIN-IGNORED-FIELD",
        "title": "a field the hardware ignores set to a meaningful value", "severity": "suspect",
        "rule": RULE_IGNORED,
        "spec": [REF["field.base_offset"], REF["base_offset.128B"], REF["base_offset.64B"],
                 REF["base_offset.32B"]],
        "evidence": [UNUSED_BASE.format("K_INTER"), "gpu.mistake[ignored_base_offset]"],
        "fix": {"base_offset": {"from": 5, "to": 0}},
        # LBO 1024 >> 4 = 64 at bit 16, SBO 128 >> 4 = 8 at bit 32
        "corrected": "0x0000000800400000"}
    expect_named(d, )


def test_ignored_lbo_of_a_k_major_swizzled_operand() -> None:
    """LBO 1024 with 128B: the definition quoted with its key; set to the assumed 1 (16 B)."""
    d = _explain(a_bf16(), encode(0, 1024, 1024, "128B"))
    assert d.code == "EXPLAIN-IGNORED-FIELD"
    expect_named(d, 'LBO 1024 B', '128B', '16 B')
    assert d.spec_rows == (REF["LBO.K.swizzled"],)
    assert d.evidence == ("gpu.hypothesis[k_swizzled_lbo]", UNUSED_LBO_BF16.format("K_SW128"),
                          "gpu.mistake[ignored_lbo]")


def test_overrun_message_gives_both_spans() -> None:
    """SBO 2048 in 8 KiB: groups 4..7 (512 elements) past 0x2000, the first (32, 0) at 0x2000;
    the span runs to group 7's row 7, chunk 0 ^ 7 = 7: 7 x 2048 + 896 + 112 + 14 + 2 = 15360 B;
    packed (SBO 1024) 7 x 1024 + 1024 = 8192 B."""
    d = _explain(a_bf16(), encode(0, 16, 2048, "128B"), smem=8192)
    assert d.code == "EXPLAIN-OVERRUN"
    expect_named(d, 'SBO 2048 B', '15360 B', '512 of 1024', '[0x0, 0x2000)', '(mn 32, k 0)', '0x2000',
                 'SBO 1024 B', '8192 B')
    assert d.spec_rows == (REF["SBO.K.all"], REF["K_SW128"])


def test_stride_zero_messages() -> None:
    """SBO 0: 7 SBO steps (8 groups), groups 0 and 1 alias at 0; interleaved LBO 0: 1 LBO step
    (two K core matrices), (0, 0) and (0, 8) alias at 0."""
    sbo = _explain(a_bf16(), encode(0, 16, 0, "128B"))
    expect_named(sbo, SBO_K, '(mn 0, k 0)', '(mn 8, k 0)', '0x0', '1024 B')
    lbo = _explain(a_bf16(), encode(0, 0, 128, "none"))
    expect_named(lbo, LBO_K_NONE, '(mn 0, k 0)', '(mn 0, k 8)', '0x0', '1024 B')
    assert lbo.spec_rows == (REF["LBO.K.none"], REF["K_INTER"])


def test_a_wrong_stride_without_overrun_is_explain_stride() -> None:
    """SBO 512 with 128B rows of 128 B: group 1 lands on row 4, (4, 0) and (8, 0) at
    512 ^ (4 << 4) = 0x240."""
    n = _namer(a_bf16(), _desc(sbo=512), _desc(), Context(0))
    d = n.stride("sbo")
    assert d.code == "EXPLAIN-STRIDE"
    assert d.severity == "error"
    expect_named(d, 'SBO 512 B', SBO_K, '(mn 4, k 0)', '(mn 8, k 0)', '0x240', 'SBO 1024 B')
    assert d.spec_rows == (REF["SBO.K.all"], REF["K_SW128"])
    assert d.evidence == ("proof.layout_injective[wgmma/canonical_layouts:K_SW128]",
                          SMEM_A_BF16.format("K_SW128"))
    assert n.all() == [d]


def test_swizzle_mode_message_names_the_row_width() -> None:
    """SBO 512 under 128B in 4 KiB: the same alias at 0x240, and group 7's rows 4..7 (64
    elements) from 7 x 512 + 4 x 128 = 0x1000 on; a 64B tile's 8-row group is 8 x 64 B."""
    d = _explain(a_bf16(), encode(0, 16, 512, "128B"), smem=4096)
    assert d.code == "EXPLAIN-SWIZZLE-MODE"
    expect_named(d, '128B', '64B', 'SBO 512 B', '64 B', '(mn 4, k 0)', '(mn 8, k 0)', '0x240', '64 of 1024',
                 '[0x0, 0x1000)', '(mn 60, k 0)', '0x1000')


def test_a_k_extent_of_exactly_one_swizzle_row_is_not_beyond_it() -> None:
    """16 bf16 of K are 32 B: one 32B row exactly. Named against a 64B tile, it is a mode
    mistake, not K beyond the row (a valid 32B map: no problem is appended)."""
    d = _namer(a_bf16(), _desc(sbo=512, swizzle="32B"), _desc(sbo=512, swizzle="64B"),
               Context(0)).swizzle()
    assert d.code == "EXPLAIN-SWIZZLE-MODE"
    expect_named(d, '32B', '64B', 'SBO 512 B', '64 B')


def test_k_beyond_row_message() -> None:
    """32 bf16 of K (64 B) under 32B (2 chunks, 32 B): K element 16 of row 0 and row 1's first
    are both at 0x20."""
    op = resolve(SPEC, dtype="bf16", major="K", mn=64, k=32)
    d = _explain(op, encode(0, 16, 256, "32B"))
    assert d.code == "EXPLAIN-K-BEYOND-ROW"
    expect_named(d, '2 B', '64 B', '32B', '32 B', 'K_SW32', '(mn 0, k 16)', '(mn 1, k 0)', '0x20', '64B',
                 '256 B', '512 B')


def test_no_fix_with_a_tile_inside_its_span() -> None:
    """Start 0x80 (phase 128) against a tile at 0x100 of 8 KiB: the map spans 8 KiB, as much as
    the allocation, so no overrun is named. Only row 0 (sw(128) = 128 ^ 16 = 0x90) lies below
    0x100; the tile's phase is (0x80 - 0x100) mod 1024 = 896."""
    op = a_bf16()
    user = _desc(start=0x80)
    ctx = Context(0x100, 8192)
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    first = ("16 of 1024 elements lie outside the allocation [0x100, 0x2100): the first, "
             "(mn 0, k 0), at 0x90")
    phase = ("the 128B XOR pattern starts 128 B into its 1024-B repeat, the tile's (at 0x100) "
             "896 B in: rows are read with another row's chunk order")
    assert problems(SPEC, op, user, ua, ctx) == [first, phase]
    d = no_fix(SPEC, op, user, ua, ctx, 5, GPU_IDS)
    assert {k: v for k, v in d.as_dict().items() if k != "message"} == {
        "code": "EXPLAIN-NO-FIX", "title": "no nearby descriptor reads this operand",
        "severity": "error",
        "rule": RULE_NO_FIX, "spec": [REF["K_SW128"]],
        "evidence": ["proof.layout_injective[wgmma/canonical_layouts:K_SW128]"],
        "fix": {}, "corrected": None}
    expect_named(d, first, phase)


def test_no_fix_overrun_when_the_span_exceeds_the_allocation() -> None:
    """The packed 8 KiB tile in 1 KiB: groups 1..7 (896 elements) from 0x400 on."""
    op = a_bf16()
    user = _desc()
    ctx = Context(0, 1024)
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    d = no_fix(SPEC, op, user, ua, ctx, 9, GPU_IDS)
    assert (d.code, d.severity, d.fix, d.corrected) == ("EXPLAIN-OVERRUN", "error", {}, None)
    expect_named(d, '896 of 1024', '[0x0, 0x400)', '(mn 8, k 0)', '0x400')
    assert d.spec_rows == (REF["LBO.K.swizzled"], REF["SBO.K.all"], REF["K_SW128"])
    assert d.evidence == ("proof.layout_injective[wgmma/canonical_layouts:K_SW128]",
                          SMEM_A_BF16.format("K_SW128"), "gpu.mistake[overrun]")


def test_fix_text_formats_each_field() -> None:
    """The start in hex, LBO/SBO in bytes, the field and the mode as they are."""
    fix: dict[str, tuple[int | str, int | str]] = {
        "start_address": (0x80, 0x100), "lbo": (16, 1024), "sbo": (0, 128),
        "base_offset": (0, 2), "swizzle": ("128B", "64B")}
    assert names._fix_text(fix) == ("start_address 0x80 -> 0x100, lbo 16 B -> 1024 B, sbo 0 B -> "
                                    "128 B, base_offset 0 -> 2, swizzle 128B -> 64B")


def test_role_without_a_definition_is_the_bare_name() -> None:
    """An offset no row defines is named as given; LBO of MN-major 64B quotes LBO.MN.swizzled."""
    op = a_bf16("MN")
    assert names._role(SPEC, op, "64B", "XBO") == "XBO"
    assert names._role(SPEC, op, "64B", "LBO") == LBO_MN_SW


def test_every_code_named_here_is_in_the_catalog() -> None:
    """The codes the tests above pin all have catalog entries (title and rule)."""
    pinned = {"EXPLAIN-START-MISALIGNED", "EXPLAIN-LBO-SBO-SWAPPED", "EXPLAIN-MN-ROLES-SWAPPED",
              "EXPLAIN-BASE-OFFSET-PHASE", "EXPLAIN-IGNORED-FIELD", "EXPLAIN-OVERRUN",
              "EXPLAIN-STRIDE-ZERO", "EXPLAIN-STRIDE", "EXPLAIN-SWIZZLE-MODE",
              "EXPLAIN-K-BEYOND-ROW", "EXPLAIN-NO-FIX"}
    assert pinned == set(catalog.CATALOG)
    assert all(re.fullmatch(r"EXPLAIN-[A-Z-]+", c) for c in pinned)


def test_mn_major_interleaved_swap_reads_the_mn_definitions() -> None:
    """Without a swizzle an MN-major swap is a plain LBO/SBO swap (MN_INTER: SBO steps 8 MN
    elements, 128 B packed; LBO 8 K columns, 8 x 128 = 1024 B packed). LBO 128 / SBO 1024 is
    injective and spans 7 x 1024 + 14 + 7 x 16 + 128 + 2 = 7424 B; swapped 2048 B."""
    d = _explain(a_bf16("MN"), encode(0, 128, 1024, "none"))
    assert (d.code, d.severity) == ("EXPLAIN-LBO-SBO-SWAPPED", "suspect")
    expect_named(d, 'LBO 128 B', 'SBO 1024 B', '7424 B', '2048 B', 'LBO 1024 B', 'SBO 128 B')


def test_swizzle_mode_rows_and_evidence_name_the_fixs_mode() -> None:
    """The 64B tile read as 128B: the layout-type field, both modes' layouts, SBO's definition;
    the smem-map case of the fix's mode."""
    d = _explain(a_bf16(), encode(0, 16, 512, "128B"), smem=4096)
    assert d.spec_rows == ("spec/wgmma/matrix_descriptor.yaml:21 (wgmma/matrix_descriptor:layout_type)",
                           REF["K_SW128"],
                           "spec/wgmma/canonical_layouts.yaml:19 (wgmma/canonical_layouts:K_SW64)",
                           REF["SBO.K.all"])
    assert d.evidence == ("proof.layout_injective[wgmma/canonical_layouts:K_SW128]",
                          SMEM_A_BF16.format("K_SW64"), "gpu.mistake[wrong_swizzle_mode]")
    assert d.fix == {"swizzle": ("128B", "64B")}


def test_swizzle_mode_without_the_row_width_note() -> None:
    """No '8 rows of N B' note when the SBO changes too, or when the tile meant is unswizzled.

    SBO 256 under 128B: group 1 lands on row 2, whose chunk 0 ^ 2 = 2 puts (2, 0) and (8, 0) at
    256 + 32 = 0x120. SBO 128 under 128B: group 1 on row 1, chunks 0, 1 ^ 1 = 1, 0: K elements
    8..15 of rows 1 and 8 at 0x80."""
    op = a_bf16()
    sbo = _namer(op, _desc(sbo=256), _desc(sbo=512, swizzle="64B"), Context(0)).swizzle()
    expect_named(sbo, '128B', '64B', '(mn 2, k 0)', '(mn 8, k 0)', '0x120', '256 B', '512 B')
    inter = _namer(op, _desc(lbo=1024, sbo=128), _desc(lbo=1024, sbo=128, swizzle="none"),
                   Context(0)).swizzle()
    expect_named(inter, '128B', '(mn 1, k 8)', '(mn 8, k 8)', '0x80')


def test_swizzle_mode_of_an_unswizzled_k_major_descriptor() -> None:
    """A 128B tile's strides under 'none': K_INTER with LBO 16 puts K element 8 of row 0 on row
    1's first (0x10). No swizzle row to be beyond: a mode mistake."""
    d = _namer(a_bf16(), _desc(swizzle="none"), _desc(), Context(0)).swizzle()
    assert d.code == "EXPLAIN-SWIZZLE-MODE"
    expect_named(d, '128B', 'SBO 1024 B', '128 B', '(mn 0, k 8)', '(mn 1, k 0)', '0x10')
    assert d.spec_rows == ("spec/wgmma/matrix_descriptor.yaml:21 (wgmma/matrix_descriptor:layout_type)",
                           REF["K_INTER"], REF["K_SW128"], REF["SBO.K.all"])


def test_an_mn_major_mode_mistake_has_no_k_row_bound_and_no_row_note() -> None:
    """MN-major, 128 bf16 of K (256 B, wider than a 128-B row): the K-row bound is K-major's;
    the valid MN_SW128 map (SBO 1024 B per 8 K columns) has no problem."""
    op = resolve(SPEC, dtype="bf16", major="MN", mn=64, k=128)
    d = _namer(op, _desc(), _desc(swizzle="64B"), Context(0)).swizzle()
    assert d.code == "EXPLAIN-SWIZZLE-MODE"
    expect_named(d, '128B', '64B')


def test_k_beyond_row_rows_evidence_and_fix() -> None:
    """The swizzle atom's row and the layout; the fix's mode's smem map; sbo and swizzle change."""
    op = resolve(SPEC, dtype="bf16", major="K", mn=64, k=32)
    d = _explain(op, encode(0, 16, 256, "32B"))
    assert d.spec_rows == ("spec/wgmma/swizzle_atoms.yaml:19 (wgmma/swizzle_atoms:K_SW32)",
                           "spec/wgmma/canonical_layouts.yaml:18 (wgmma/canonical_layouts:K_SW32)")
    assert d.evidence == ("proof.layout_injective[wgmma/canonical_layouts:K_SW32]",
                          SMEM_A_BF16.format("K_SW64"), "gpu.mistake[k_beyond_swizzle_row]")
    assert d.fix == {"sbo": (256, 512), "swizzle": ("32B", "64B")}


def test_all_names_the_base_offset_first_then_the_strides() -> None:
    """A candidate changing the field and SBO: two diagnoses, the field's first; one changing the
    field and swapping LBO/SBO: the field's, then the swap."""
    op = a_bf16()
    user = _desc(start=0x80, sbo=512, swizzle="32B")
    two = _namer(op, user, _desc(start=0x80, sbo=256, swizzle="32B", field=1), Context(0x80)).all()
    assert [(d.code, tuple(d.fix)) for d in two] == [
        ("EXPLAIN-START-MISALIGNED", ("base_offset",)), ("EXPLAIN-STRIDE", ("sbo",))]
    swap = _namer(op, _desc(start=0x80, lbo=256, sbo=16, swizzle="32B"),
                  _desc(start=0x80, lbo=16, sbo=256, swizzle="32B", field=1), Context(0x80),
                  swapped=True).all()
    assert [(d.code, tuple(d.fix)) for d in swap] == [
        ("EXPLAIN-START-MISALIGNED", ("base_offset",)), ("EXPLAIN-LBO-SBO-SWAPPED", ("lbo", "sbo"))]


ORDER = ("none", "128B", "64B", "32B")
VALID = Analysis(True, None, (0x100, 0x900), 0, None, 0, 0)


def test_candidate_rank_is_the_documented_key() -> None:
    """(invalid, ignored fields set, unpacked if the mode changes, cost, new values, mode changed,
    span, the mode's place, LBO, SBO, field)."""
    suspect = Suspect("lbo", 1024, 16, "why")
    moved = Candidate(_desc(start=0x100, lbo=32, sbo=1024, swizzle="64B", field=2),
                      ("lbo", "base_offset", "swizzle"),
                      Analysis(True, None, (0x100, 0x900), 0, None, 0, 0, (suspect,)), 1, False, 3)
    assert moved.cost == 3
    assert moved.rank(ORDER) == (False, 1, 1, 3, 3, True, 2048, 2, 32, 1024, 2)
    kept = Candidate(_desc(lbo=16, sbo=128, swizzle="32B"), ("sbo",), VALID, 1)
    assert kept.rank(ORDER) == (False, 0, 0, 1, 0, False, 2048, 3, 16, 128, 0)


def test_a_swap_costs_one_change() -> None:
    """LBO and SBO exchanged count as one field changed; an invalid map ranks after every valid one."""
    bad = Analysis(False, ((0, 0), (1, 0), 0), (0, 64), 0, None, None, None)
    swap = Candidate(_desc(lbo=1024, sbo=16), ("lbo", "sbo"), bad, 0, True)
    assert swap.cost == 1
    assert swap.rank(ORDER)[:4] == (True, 0, 0, 1)
    assert Candidate(_desc(), ("lbo", "sbo"), VALID, 0).cost == 2


def test_no_fix_when_the_span_equals_the_allocation() -> None:
    """The packed 8 KiB tile at 0 against a tile at 0x400 of 8 KiB: group 0 (128 elements) lies
    below 0x400, but the span is exactly the allocation's: no overrun, no fix."""
    op = a_bf16()
    user = _desc()
    ctx = Context(0x400, 8192)
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    d = no_fix(SPEC, op, user, ua, ctx, 3, GPU_IDS)
    assert (d.code, ua.span_bytes) == ("EXPLAIN-NO-FIX", 8192)
    expect_named(d, '128 of 1024', '[0x400, 0x2400)', '(mn 0, k 0)', '0x0')
