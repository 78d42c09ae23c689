"""The oracle's domain is the hardware's: out-of-domain queries are refused with the rule they
break (exit 2, one line), narrow operands are answered as the tensor core reads them, and
defined-but-suspect answers carry warnings.

Expected values come from the spec (the descriptor's field widths, the base-offset rows), from
the oracle itself (restriction of a wider answer), or from reasoning written here (counting
distinct offsets, the row-XOR-chunk formula of the swizzles); never from the domain module.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import budget

from ptxconf.app.cli import main
from ptxconf.oracle import canonical
from ptxconf.oracle.canonical import SmemQuery, smem_offsets
from ptxconf.oracle.descriptor import descriptor_format
from ptxconf.oracle.records import BaseOffsetRule, RegisterFragment
from ptxconf.oracle.spec import DEFAULT_SPEC_DIR, default_spec

SPEC = default_spec()
FMT = descriptor_format(SPEC)
LBO_FIELD = FMT.field("leading_byte_offset")
#: One past the largest LBO the field stores: (2^width) << shift.
LBO_PAST = (1 << LBO_FIELD.width_bits) << LBO_FIELD.encode_shift_bits
BASE_FIELD_PAST = 1 << FMT.field("base_offset").width_bits
REPEAT_128B = next(r.repeat_bytes for r in SPEC.of(BaseOffsetRule) if r.swizzle == "128B")


def smem(dtype: str, major: str, swizzle: str, mn: int, k: int, lbo: int, sbo: int,
         *extra: str) -> list[str]:
    return ["oracle", "smem-offsets", "--dtype", dtype, "--major", major, "--swizzle", swizzle,
            "--mn", str(mn), "--k", str(k), "--lbo", str(lbo), "--sbo", str(sbo), *extra]


def answer(cli, argv: list[str]) -> dict:
    code, out, err = cli(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def flat(offsets: list[list[int]]) -> list[int]:
    return [o for line in offsets for o in line]


# --- refusals ------------------------------------------------------------------------------------

REFUSED = [
    # 64 x 64 f16 K-major: 8 groups of 8 rows, stepped by SBO; SBO = 0 stacks them.
    ("DOMAIN-SBO-ZERO", smem("f16", "K", "128B", 64, 64, 16, 0)),
    ("DOMAIN-LBO-RANGE", smem("f16", "K", "128B", 64, 64, -16, 1024)),
    ("DOMAIN-LBO-RANGE", smem("f16", "K", "none", 8, 16, LBO_PAST, 1024)),
    ("DOMAIN-LBO-GRANULE", smem("f16", "K", "none", 8, 16, 24, 1024)),
    ("DOMAIN-SBO-RANGE", smem("f16", "K", "128B", 64, 64, 16, -1024)),
    ("DOMAIN-SBO-GRANULE", smem("f16", "K", "128B", 64, 64, 16, 1000)),
    ("DOMAIN-BASE-ALIGN", smem("f16", "K", "128B", 64, 64, 16, 1024, "--base-offset", "7")),
    ("DOMAIN-BASE-RANGE", smem("f16", "K", "128B", 64, 64, 16, 1024, "--base-offset",
                               str(REPEAT_128B))),
    ("DOMAIN-BASE-FIELD-RANGE", smem("f16", "K", "128B", 64, 64, 16, 1024,
                                     "--base-offset-field", str(BASE_FIELD_PAST))),
    # 128 f16 = 256 bytes per row of a 128-byte swizzle row: aliases (see the test below).
    ("DOMAIN-K-INJECTIVE", smem("f16", "K", "128B", 64, 128, 16, 1024)),
    ("DOMAIN-SHAPE", smem("f16", "K", "128B", 8, 12, 16, 1024)),
    ("DOMAIN-SHAPE", smem("f16", "K", "128B", 12, 16, 16, 1024)),
    ("DOMAIN-SHAPE", smem("f16", "K", "128B", 0, 16, 16, 1024)),
    ("DOMAIN-SHAPE", smem("f16", "MN", "128B", 64, 8, 16, 1024)),  # K = 16 per instruction
    ("DOMAIN-DTYPE", smem("f8", "K", "128B", 8, 16, 16, 1024)),
    ("DOMAIN-MAJOR", smem("tf32", "MN", "128B", 64, 8, 16, 1024)),  # no transpose for tf32
    ("DOMAIN-SWIZZLE", smem("f16", "K", "16B", 8, 16, 16, 1024)),
    ("DOMAIN-START-ALIGN", ["oracle", "descriptor", "encode", "--start-address", "8", "--lbo",
                            "16", "--sbo", "1024", "--swizzle", "128B"]),
    ("DOMAIN-LBO-GRANULE", ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo",
                            "24", "--sbo", "0", "--swizzle", "none"]),
    ("DOMAIN-SBO-RANGE", ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo",
                          "16", "--sbo", str(LBO_PAST), "--swizzle", "none"]),
    ("DOMAIN-BASE-FIELD-RANGE", ["oracle", "descriptor", "encode", "--start-address", "0",
                                 "--lbo", "16", "--sbo", "16", "--swizzle", "128B",
                                 "--base-offset", str(BASE_FIELD_PAST)]),
    ("DOMAIN-SWIZZLE", ["oracle", "descriptor", "encode", "--start-address", "0", "--lbo", "16",
                        "--sbo", "16", "--swizzle", "16B"]),
]


@pytest.mark.parametrize(("rule", "argv"), REFUSED, ids=[f"{r}-{i}" for i, (r, _) in
                                                     enumerate(REFUSED)])
def test_out_of_domain_is_refused_with_its_rule(cli, rule: str, argv: list[str]) -> None:
    code, out, err = cli(*argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"ptxconf: error: {rule} - expected ")
    assert ", got " in err
    assert "Traceback" not in err


def test_sbo_zero_is_refused_exactly_when_sbo_is_stepped(cli) -> None:
    # K-major SBO steps from one group of 8 rows to the next: 8 rows never step it.
    one_group = answer(cli, smem("f16", "K", "128B", 8, 64, 16, 0))
    offs = flat(one_group["offsets"])
    assert len(set(offs)) == len(offs)
    assert one_group["warnings"] == []
    code, _, err = cli(*smem("f16", "K", "128B", 16, 64, 16, 0))
    assert code == 2
    assert "DOMAIN-SBO-ZERO" in err
    # ... and it would alias: rows 8.. land on rows 0.. (independent of the domain module).
    raw = flat(smem_offsets(SPEC, SmemQuery("f16", "K", "128B", 16, 64, 16, 0)))
    assert len(set(raw)) == len(raw) // 2


@pytest.mark.parametrize("swizzle", ["32B", "64B", "128B"])
def test_k_bound_is_where_the_layout_starts_to_alias(cli, swizzle: str) -> None:
    # A K-major row of f16 is `width` bytes of the swizzle row; one more instruction's K
    # (16 f16 = 32 bytes) runs into the next row. Counted from the oracle without the domain.
    width = int(swizzle[:-1])
    bound = width // 2
    at = flat(smem_offsets(SPEC, SmemQuery("f16", "K", swizzle, 8, bound, 16, 1024)))
    past = flat(smem_offsets(SPEC, SmemQuery("f16", "K", swizzle, 8, bound + 16, 16, 1024)))
    assert len(set(at)) == len(at)
    assert len(set(past)) < len(past)
    assert answer(cli, smem("f16", "K", swizzle, 8, bound, 16, 1024))["warnings"] == []
    code, _, err = cli(*smem("f16", "K", swizzle, 8, bound + 16, 16, 1024))
    assert code == 2
    assert "DOMAIN-K-INJECTIVE" in err


# --- narrow operands -----------------------------------------------------------------------------


def mn_major_128b_f16(n: int, k: int, sbo: int) -> int:
    """MN-major 128B f16 by hand: K row k of an 8-row group is 128 bytes; the 16-byte chunk
    n // 8 of the row is XORed with k % 8; groups of 8 K rows are SBO apart."""
    chunk, within = divmod(n * 2, 16)
    return (k // 8) * sbo + (k % 8) * 128 + (chunk ^ (k % 8)) * 16 + within


def test_k_major_operand_narrower_than_the_swizzle_row(cli) -> None:
    # wgmma's one instruction: K = 16 f16 = 32 bytes of a 128-byte swizzle row.
    narrow = answer(cli, smem("f16", "K", "128B", 64, 16, 16, 1024))
    full = answer(cli, smem("f16", "K", "128B", 64, 64, 16, 1024))
    assert narrow["warnings"] == []
    assert len(narrow["offsets"]) == 64
    assert narrow["offsets"] == [line[:16] for line in full["offsets"]]


def test_mn_major_operand_narrower_than_the_swizzle_row(cli) -> None:
    # B operand N = 8 of a 64-element MN-major 128B row (m64n8k16, H100: smem_map passes).
    out = answer(cli, smem("f16", "MN", "128B", 8, 16, 16, 1024))
    assert out["warnings"] == []
    assert out["layout_covers"][0] > 8
    assert out["offsets"] == [[mn_major_128b_f16(n, k, 1024) for k in range(16)]
                              for n in range(8)]


def test_mn_extent_past_whole_repeats(cli) -> None:
    # N = 72: one whole 64-element row and 8 of the next, LBO apart.
    out = answer(cli, smem("f16", "MN", "128B", 72, 16, 2048, 1024))
    wide = answer(cli, smem("f16", "MN", "128B", 128, 16, 2048, 1024))
    assert out["offsets"] == wide["offsets"][:72]
    assert out["warnings"] == []
    assert out["offsets"][64][0] == 2048


ROWS = [(major, swz) for major in ("K", "MN") for swz in ("none", "32B", "64B", "128B")]


@settings(max_examples=budget(60), deadline=None)
@given(st.sampled_from(ROWS), st.sampled_from(["f16", "bf16", "tf32", "e4m3", "b1"]),
       st.integers(1, 3), st.integers(1, 4), st.data())
def test_restricted_map_equals_the_full_map_on_the_sub_range(row, dtype, m, kmul, data) -> None:
    """Any smaller operand (MN in steps of 8, K in steps of the template) is the first rows and
    columns of a wider one with the same LBO/SBO."""
    major, swizzle = row
    r = canonical.canonical_row(SPEC, major, swizzle)
    per_mn, per_k = canonical.repeat_extents(r, canonical.t_elems(SPEC, dtype))
    mn_full, k_full = m * per_mn, kmul * per_k
    mn = data.draw(st.integers(1, mn_full // 8)) * 8 if mn_full >= 8 else mn_full
    k = data.draw(st.integers(1, kmul)) * per_k
    q = SmemQuery(dtype, major, swizzle, mn_full, k_full, 1 << 14, 1 << 16)
    full = smem_offsets(SPEC, q)
    part = smem_offsets(SPEC, SmemQuery(**{**q.__dict__, "mn": mn, "k": k}))
    assert part == [line[:k] for line in full[:mn]]


# --- warnings ------------------------------------------------------------------------------------


def test_k_major_swizzled_lbo_is_answered_but_labelled(cli) -> None:
    plain = answer(cli, smem("f16", "K", "128B", 64, 64, 16, 1024))
    odd = answer(cli, smem("f16", "K", "128B", 64, 64, 4096, 1024))
    assert plain["warnings"] == []
    assert [w["code"] for w in odd["warnings"]] == ["DOMAIN-LBO-IGNORED"]
    assert set(odd["warnings"][0]) == {"code", "message"}
    assert odd["offsets"] == plain["offsets"]  # the hardware ignores it; so does the answer
    code, out, _ = cli(*smem("f16", "K", "128B", 64, 64, 4096, 1024))
    assert code == 0
    assert out.startswith("# warning: DOMAIN-LBO-IGNORED - ")


def test_aliasing_layout_is_answered_but_labelled(cli) -> None:
    # SBO = 16 B puts the second group of 8 rows one chunk after the first: inside it.
    out = answer(cli, smem("f16", "K", "128B", 16, 16, 16, 16))
    offs = flat(out["offsets"])
    assert len(set(offs)) < len(offs)
    assert [w["code"] for w in out["warnings"]] == ["DOMAIN-ALIAS"]
    code, text, _ = cli(*smem("f16", "K", "128B", 16, 16, 16, 16))
    assert code == 0
    assert "# warning: DOMAIN-ALIAS - " in text


# --- the spec decides the choices ----------------------------------------------------------------


def test_a_scratch_spec_element_type_is_accepted(cli, tmp_path: Path) -> None:
    spec_dir = tmp_path / "spec"
    shutil.copytree(DEFAULT_SPEC_DIR, spec_dir)
    types = spec_dir / "wgmma" / "element_types.yaml"
    data = yaml.safe_load(types.read_text())
    row = dict(copy.deepcopy(next(r for r in data["rows"] if r["id"] == "e4m3")), id="e3m4")
    row.update({k: v for k, v in (("exponent_bits", 3), ("mantissa_bits", 4),
                                  ("finite_only", False)) if k in row})
    data["rows"].append(row)
    types.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    argv = smem("e3m4", "K", "128B", 8, 32, 16, 1024)
    code, _, err = cli(*argv)
    assert code == 2
    assert "DOMAIN-DTYPE" in err
    out = answer(cli, [*argv, "--spec-dir", str(spec_dir)])
    assert [w["code"] for w in out["warnings"]] == ["DOMAIN-NO-INSTRUCTION"]
    # an 8-bit type reads as e4m3 does
    assert out["offsets"] == answer(cli, smem("e4m3", "K", "128B", 8, 32, 16, 1024))["offsets"]


def test_help_lists_the_bundled_spec_values(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["oracle", "smem-offsets", "--help"])
    out = capsys.readouterr().out
    for name in ("f16", "bf16", "tf32", "b1", "128B", "none"):
        assert name in out


def test_an_operand_wider_than_any_instruction_is_refused_at_once(cli) -> None:
    """mn past the largest N of the fragment tables: refused before any offset is computed
    (the query once ran 51 s for --mn 8000 --k 800)."""
    largest_n = max(n for r in default_spec().of(RegisterFragment)
                    for n in (r.valid_n_values() or ()))
    code, _, err = cli("oracle", "smem-offsets", "--dtype", "f16", "--major", "K",
                       "--swizzle", "none", "--mn", "8000", "--k", "800", "--lbo", "128",
                       "--sbo", "256")
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(f"ptxconf: error: DOMAIN-SIZE - expected mn <= {largest_n}")


def test_an_operand_past_the_descriptor_address_range_is_refused(cli) -> None:
    fmt = descriptor_format(default_spec())
    field = fmt.field("start_address")
    span = 1 << field.address_bits  # 16-byte units up to the field's address bits
    k = 2 * span // (256 * 2)  # f16: 2 bytes an element, twice what the range holds
    code, _, err = cli("oracle", "smem-offsets", "--dtype", "f16", "--major", "MN",
                       "--swizzle", "none", "--mn", "256", "--k", str(k), "--lbo", "4096",
                       "--sbo", "128")
    assert code == 2
    assert "DOMAIN-SIZE" in err
    assert f"= {2 * span} bytes" in err
