"""The descriptor's address fields hold exactly the address bits their encoding keeps.

The PTX ISA's matrix-descriptor table encodes an address field as
`encode(x) = (x & (2^address_bits - 1)) >> encode_shift_bits`: the field's width is the bits that
leaves, `address_bits - encode_shift_bits`. An address range wider than the field would name
addresses the field cannot store; a narrower one, bits the field stores but no address sets.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from ptxconf.oracle.checks.base import Case, expect_equal, make_case
from ptxconf.oracle.records import DescriptorField
from ptxconf.oracle.spec import Spec


def cases(spec: Spec) -> Iterator[Case]:
    """One case per descriptor field that holds an address."""
    for row in spec.of(DescriptorField):
        if row.address_bits is not None:
            yield make_case("descriptor.address_range", row.key, partial(_address_range, row, row.address_bits))


def _address_range(row: DescriptorField, address_bits: int) -> str:
    """width_bits == address_bits - encode_shift_bits."""
    shift = row.encode_shift_bits
    expect_equal(f"{row.id}: the bits of (x & (2^{address_bits} - 1)) >> {shift}",
                 row.width_bits, address_bits - shift, source=f"{row.key} width_bits",
                 witness=f"address_bits {address_bits} - encode_shift_bits {shift}")
    return f"{row.width_bits}-bit field = {address_bits}-bit address >> {shift}"
