"""What the tests and the message examples of explain/names.py share: the spec rows' definitions
and references as printed, the ignored-field rule, and the descriptors, namers and diagnoses they
build (one Namer against a chosen best candidate; one explained descriptor's only diagnosis)."""

from __future__ import annotations

from case_outcomes import EXPLAIN_REF as OPERAND_REF

from ptxconf.app.providers import gpu_case_ids
from ptxconf.oracle.explain.diagnose import explain_descriptor
from ptxconf.oracle.explain.names import Candidate, Diagnosis, Namer
from ptxconf.oracle.explain.operand import Operand
from ptxconf.oracle.explain.readmap import Context, Descriptor, analyse, read_map
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
GPU_IDS = gpu_case_ids(SPEC)

# the definitions as printed (wgmma/leading_byte_offset.yaml, wgmma/stride_byte_offset.yaml)
SBO_K = 'SBO is "The offset from the first 8 rows to the next 8 rows" (wgmma/stride_byte_offset:SBO.K.all)'
LBO_K_SW = 'LBO is "not used, assumed to be 1" (wgmma/leading_byte_offset:LBO.K.swizzled)'
LBO_K_NONE = ('LBO is "the offset from the first column to the second columns of the 8x2 tile in '
              'the 128-bit element type normalized matrix" (wgmma/leading_byte_offset:LBO.K.none)')
LBO_MN_SW = ('LBO is "offset from the first (swizzle-byte-size/16) rows to the next '
             '(swizzle-byte-size/16) rows" (wgmma/leading_byte_offset:LBO.MN.swizzled)')
SBO_MN_SW = ('SBO is "offset from the first 8 columns to the next 8 columns" '
             '(wgmma/stride_byte_offset:SBO.MN.swizzled)')

# spec_ref of the rows, lines counted in the files
REF = {
    **OPERAND_REF,
    "LBO.K.none": "spec/wgmma/leading_byte_offset.yaml:15 (wgmma/leading_byte_offset:LBO.K.none)",
    "LBO.MN.swizzled": "spec/wgmma/leading_byte_offset.yaml:18 (wgmma/leading_byte_offset:LBO.MN.swizzled)",
    "SBO.K.all": "spec/wgmma/stride_byte_offset.yaml:11 (wgmma/stride_byte_offset:SBO.K.all)",
    "SBO.MN.swizzled": "spec/wgmma/stride_byte_offset.yaml:13 (wgmma/stride_byte_offset:SBO.MN.swizzled)",
    "base_offset.128B": "spec/wgmma/base_offset.yaml:15 (wgmma/base_offset:base_offset.128B)",
    "base_offset.64B": "spec/wgmma/base_offset.yaml:16 (wgmma/base_offset:base_offset.64B)",
    "base_offset.32B": "spec/wgmma/base_offset.yaml:17 (wgmma/base_offset:base_offset.32B)",
    "field.base_offset": "spec/wgmma/matrix_descriptor.yaml:20 (wgmma/matrix_descriptor:base_offset)",
    "MN_SW32": "spec/wgmma/canonical_layouts.yaml:14 (wgmma/canonical_layouts:MN_SW32)",
    "K_INTER": "spec/wgmma/canonical_layouts.yaml:17 (wgmma/canonical_layouts:K_INTER)",
}
RULE_IGNORED = ("K-major swizzled layouts do not use LBO ('not used, assumed to be 1'; an H100 gives "
                "the same D for any LBO); the base-offset field is defined for swizzled layouts only "
                "(an H100 ignores it without a swizzle). A value there is a stride or a phase that "
                "was meant to do something and does nothing.")


def desc(start: int = 0, lbo: int = 16, sbo: int = 1024, swizzle: str = "128B",
          field: int = 0) -> Descriptor:
    return Descriptor.of(SPEC, start_address=start, lbo=lbo, sbo=sbo, swizzle=swizzle,
                         base_offset=field)


def namer(op: Operand, user: Descriptor, best: Descriptor, ctx: Context,
           swapped: bool = False) -> Namer:
    """A Namer of `user` against a chosen `best` (each analysed as the search does)."""
    ua = analyse(SPEC, op, user, read_map(SPEC, op, user).addresses, ctx)
    ba = analyse(SPEC, op, best, read_map(SPEC, op, best).addresses, ctx)
    return Namer(SPEC, op, user, ua, Candidate(best, user.changed(best), ba, 0, swapped), ctx, GPU_IDS)


def explain_one(op: Operand, value: int, smem: int | None = None) -> Diagnosis:
    e = explain_descriptor(SPEC, op, value, smem_bytes=smem, evidence_ids=GPU_IDS)
    assert len(e.diagnoses) == 1, e.codes
    return e.diagnoses[0]
