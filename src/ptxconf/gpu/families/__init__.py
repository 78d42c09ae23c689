"""The GPU case families, one module each, each its own provider (src/ptxconf/app/providers.py).

Every family module exposes `cases(spec, ctx)` (its cases; the run's GPU session is opened by
the first case that runs) and `case_keys(spec)` (its (check, key) pairs, from the plan alone:
no CuPy, no device). In the order a run takes them: `device` (the device, the compile batches
and their all-ones self test), `sweep` (every instruction variant of `ptxconf.gpu.space`: its
bit-exact products in every swizzle, its accumulator map and, for RS, its register-A map; a
broken D map explains the rest), `discovery` (the shared-memory address maps), `address`
(unaligned starts,
fields documented as unused), `hypotheses` (each competing reading settled), `tma` (TMA writes)
and `tma_pairing` (wgmma reading a TMA-written box, a pairing cell each), `wmma` (fragment
maps, stores, and last the alignment cases, which may fault).
"""
