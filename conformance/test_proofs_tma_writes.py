"""The TMA proofs (oracle/proofs/tma_writes.py): every allowed box is written one-to-one; the
pairing table, one claim a (TMA write mode, wgmma K-major reader, class of destination) cell.

The expected verdicts follow from the rows through the oracle: identity exactly where the two
swizzles are one (ptxconf.oracle.tma.same_function) and the read's phase is the write's. A
refutation comes from a spec with a row changed in memory; outcomes are asserted by status, code
and fields (the wording: messages_tma.py).
"""

from __future__ import annotations

import pytest
from case_outcomes import proof_facts
from case_outcomes import prove_module_claim as _prove
from scratch_spec import replaced_row

from ptxconf.core.results import Status
from ptxconf.oracle import tma
from ptxconf.oracle.proofs import tma_writes
from ptxconf.oracle.spec import default_spec

pytestmark = pytest.mark.z3

SPEC = default_spec()
MODES = "tma/swizzling_modes"
CANON = "wgmma/canonical_layouts"


def test_there_is_a_box_claim_a_mode_and_element_size_and_a_claim_a_writable_cell() -> None:
    claims = list(tma_writes.claims(SPEC))
    boxes = [c for c in claims if c.name == "tma_box_bijective"]
    cells = [c for c in claims if c.name == "tma_pairing"]
    assert len(boxes) == 4 * 4   # none/32B/64B/128B x 1/2/4/8-byte elements
    # readers K_INTER (2 classes; every mode writes its 16-B rows), K_SW32 (3 classes; every
    # mode), K_SW64 (every mode but 32B), K_SW128 (128B and none only)
    assert len(cells) == 4 * 2 + 4 * 3 + 3 * 3 + 2 * 3
    assert all(tma.writable(SPEC, c.write.swizzle, c.read.swizzle) for c in tma_writes.cells(SPEC))


def test_a_128b_box_of_bf16_is_written_one_to_one() -> None:
    res = _prove(tma_writes, SPEC, f"proof.tma_box_bijective[{MODES}:128B.2B]")
    assert (res.status, res.code) == (Status.PASS, "ok")
    assert proof_facts(res) == {"rows_max": 256, "inner_bytes_max": 128, "block": 1024}


def test_a_row_whose_line_is_narrower_than_its_pattern_fails_the_claim() -> None:
    """A 64B row with a 16-B line: Swizzle<2,4,0> would flip the bits it reads (S < B), which no
    TMA mode is: the claim fails naming it instead of proving a map that is no swizzle."""
    spec = replaced_row(SPEC, f"{MODES}:64B", line_bytes=16)
    res = _prove(tma_writes, spec, f"proof.tma_box_bijective[{MODES}:64B.1B]")
    assert (res.status, res.code, res.fields["proof_status"]) == (Status.FAIL, "raised", "error")
    assert "Swizzle<2,4,0>" in res.message


@pytest.mark.parametrize(("write", "read", "cls", "identity"), [
    ("128B", "K_SW128", tma.ALIGNED, True),
    ("128B", "K_SW128", tma.OFF_ZERO, True),
    ("128B", "K_SW128", tma.OFF_RULE, False),
    ("64B", "K_SW32", tma.ALIGNED, False),
    ("none", "K_INTER", tma.OFF_ZERO, True),
    ("32B", "K_INTER", tma.ALIGNED, False),
], ids=lambda v: str(v))
def test_a_pairing_cell_is_proved_identity_or_not(write: str, read: str, cls: str,
                                                  identity: bool) -> None:
    res = _prove(tma_writes, SPEC, f"proof.tma_pairing[{MODES}:{write}~{CANON}:{read}.{cls}]")
    assert (res.status, res.code) == (Status.PASS, "ok")
    facts = proof_facts(res)
    assert facts["identity"] is identity
    if not identity:
        assert 0 < facts["moved_chunks"] <= facts["chunks"]
        assert len(facts["first_moves"]) == 4


def test_with_the_rule_s_field_every_chunk_of_a_128b_tile_moves() -> None:
    """Line-aligned off the 1024-B repeat, field (start >> 7) & 7: the read restarts the pattern
    at the start's line while TMA kept the absolute one, so no chunk is where it was read."""
    res = _prove(tma_writes, SPEC, f"proof.tma_pairing[{MODES}:128B~{CANON}:K_SW128.off_rule]")
    facts = proof_facts(res)
    assert facts["moved_chunks"] == facts["chunks"] == 64 * 128 // 16


def test_a_reader_with_another_swizzle_refutes_an_identity_cell() -> None:
    """wgmma's K_SW128 row changed to Swizzle<2,4,3>: the cell the rows call an identity is not."""
    spec = replaced_row(SPEC, f"{CANON}:K_SW128", swizzle_bits=2)
    claim = next(c for c in tma_writes.claims(spec)
                 if c.id == f"proof.tma_pairing[{MODES}:128B~{CANON}:K_SW128.aligned]")
    assert "is not the identity" in claim.statement  # the rule follows the rows: no identity
    res = _prove(tma_writes, spec, claim.id)
    assert (res.status, res.code, proof_facts(res)["identity"]) == (Status.PASS, "ok", False)


def test_the_permutation_names_chunks_by_row() -> None:
    import numpy as np

    w = np.arange(0, 4 * 16, 2, dtype=np.int64).reshape(2, 16)   # 2 rows of 32 B
    r = w[::-1].copy()                                            # the rows read swapped
    got = tma_writes.permutation(w, r)
    assert got["moved_chunks"] == got["chunks"] == 4
    assert got["first_moves"][0] == [0, 0, [1, 0]]
