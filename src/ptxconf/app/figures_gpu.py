"""Pictures of shared-memory maps and of GPU results, from the oracle and the result's fields.

A shared-memory operand is drawn one cell per 16-byte chunk (T elements along the major mode:
the unit the swizzle moves), each cell the chunk's byte address, coloured by the chunk of its
128-byte line: the swizzle shows as the colours' diagonal at any element width (a b1 map drawn
an element a cell is one flat colour). `reference_figures` draws one canonical layout per spec
row (K/MN x INTER/SW32/SW64/SW128). GPU results: the readings a hypothesis probed (the
documented one's disagreements marked) and, for the base-offset finding, the map each reading
gives (the elements they place differently marked); a mistaken descriptor's read map (the
first two elements at one address marked, every other aliased one dashed); the kernels whose
all-ones product is wrong.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ptxconf.app.draw import Cell, Grid, window
from ptxconf.app.figures import AGREES, CHUNK_BYTES, CHUNK_LEGEND, DISAGREES, Figure, _chunk_group

if TYPE_CHECKING:
    from ptxconf.core.results import Result
    from ptxconf.oracle.canonical import SmemQuery
    from ptxconf.oracle.spec import Spec

#: The element type reference pictures use (T = 8 elements a 16-byte chunk).
REFERENCE_DTYPE = "f16"


def _byte(off: int, bits: int) -> int:
    return off // 8 if bits % 8 else off


def smem_chunk_grid(spec: Spec, q: SmemQuery, title: str) -> Grid:
    """The oracle's map of an operand, one cell per 16-byte chunk (its byte address)."""
    from ptxconf.oracle.canonical import smem_offsets_array
    from ptxconf.oracle.domain import check_smem

    check_smem(spec, q)  # a query the oracle refuses gets no picture
    offs = smem_offsets_array(spec, q)
    bits = spec.element_bits(q.dtype)
    t = CHUNK_BYTES * 8 // bits
    if q.major == "K":
        chunks = offs[:, ::t]
        rows = tuple(str(i) for i in range(chunks.shape[0]))
        cols = tuple(f"{j * t}-{j * t + t - 1}" for j in range(chunks.shape[1]))
        axes = ("mn", f"k ({t} a chunk)")
    else:
        chunks = offs[::t, :]
        rows = tuple(f"{i * t}-{i * t + t - 1}" for i in range(chunks.shape[0]))
        cols = tuple(str(j) for j in range(chunks.shape[1]))
        axes = (f"mn ({t} a chunk)", "k")
    cells = tuple(tuple(Cell(f"{_byte(int(o), bits):#x}", _chunk_group(_byte(int(o), bits)))
                        for o in row) for row in chunks.tolist())
    return Grid(title, rows, cols, cells, axes[0], axes[1],
                f"each cell: one 16-byte chunk ({t} {q.dtype} elements along "
                f"{'K' if q.major == 'K' else 'M/N'}), its byte address from the descriptor "
                f"start; {CHUNK_LEGEND}",
                (f"{q.major}-major {q.swizzle} {q.dtype} {q.mn}x{q.k}, LBO {q.lbo_bytes} B, "
                 f"SBO {q.sbo_bytes} B" + (f", start +{q.base_offset_bytes} B"
                                           if q.base_offset_bytes else "")
                 + (f", base-offset field {q.base_offset_field}" if q.base_offset_field else ""),))


def reference_query(spec: Spec, major: str, swizzle: str) -> SmemQuery:
    """The operand a reference picture draws: f16, one swizzle row wide along the major mode
    (two core matrices without a swizzle), two 8-row groups (K-major) or 16 K (MN-major),
    strides packed."""
    from ptxconf.oracle.canonical import SmemQuery
    from ptxconf.oracle.interpret import compact_strides

    width = {"none": 32, "32B": 32, "64B": 64, "128B": 128}.get(swizzle, 32)
    along = width * 8 // spec.element_bits(REFERENCE_DTYPE)
    wide = along if swizzle != "none" else 2 * along  # INTER: two LBO steps along the mode
    mn, k = (16, wide) if major == "K" else (wide, 16)
    lbo, sbo = compact_strides(spec, REFERENCE_DTYPE, major, swizzle, mn, k)
    return SmemQuery(REFERENCE_DTYPE, major, swizzle, mn, k, lbo, sbo)


def reference_figures(spec: Spec) -> list[tuple[str, Figure]]:
    """(layout family, picture) for each canonical-layout row of the spec, in its order."""
    from ptxconf.oracle.records import CanonicalLayout

    out = []
    for row in spec.of(CanonicalLayout):
        q = reference_query(spec, row.major, row.swizzle)
        family = f"{row.major}-major {row.swizzle}"
        grid = smem_chunk_grid(spec, q, f"{row.id}: {family}, Swizzle<{row.swizzle_bits},"
                                        f"{row.swizzle_base},{row.swizzle_shift}> o {row.layout}")
        out.append((family, Figure(grid, f"{row.key} (spec/{row.file}:{row.line}): the "
                                         f"canonical layout, {q.dtype} {q.mn}x{q.k}")))
    return out


# --- readings ----------------------------------------------------------------------------------


def _readings_table(fields: Mapping[str, Any]) -> dict[str, dict[str, str]] | None:
    """{probe: {reading: "agrees" | "disagrees (...)"}} from `readings` (or `probes`, or the
    values an address case tried: `lbo_bytes_tried`, `base_offset_field`)."""
    for key in ("readings", "probes", "lbo_bytes_tried", "base_offset_field"):
        table = fields.get(key)
        if isinstance(table, Mapping) and table:
            rows = {str(p): {str(r): str(v) for r, v in vs.items()} for p, vs in table.items()
                    if isinstance(vs, Mapping)}
            if rows:
                return rows
            if all(isinstance(v, str) for v in table.values()):
                name = {"lbo_bytes_tried": "LBO (bytes)", "base_offset_field": "base-offset field"}
                return {f"silicon, {name.get(key, key)}": {str(r): str(v) for r, v in table.items()}}
    return None


def readings_figure(result: Result) -> Figure | None:
    """Probe x reading, each cell whether the silicon agreed; marked: the documented reading's
    disagreements (every disagreement where none is documented)."""
    table = _readings_table(result.fields)
    if table is None:
        return None
    names = list(dict.fromkeys(r for vs in table.values() for r in vs))
    documented = result.fields.get("documented")
    cells = []
    for vs in table.values():
        line = []
        for r in names:
            v = vs.get(r, "")
            bad = v.startswith("disagrees")
            text = re.sub(r"disagrees \((\d+)/(\d+) elements\)", r"no: \1/\2", v) or "·"
            line.append(Cell(text.replace("agrees", "yes")[:22], DISAGREES if bad else
                             AGREES if v.startswith("agrees") else None,
                             bad and (documented in (None, r))))
        cells.append(tuple(line))
    grid = Grid(f"{result.id}: which reading the silicon followed", tuple(table),
                tuple(names), tuple(cells), "probe", "reading",
                "yes: the reading predicts what the silicon did; no: n/m elements differ; marked: "
                + (f"the documented reading ({documented}) disagrees" if documented
                   else "a reading disagrees"),
                (f"model: {result.fields['model']}",) if result.fields.get("model") else ())
    return Figure(grid, f"{result.id}: the readings against the probes")


_PROBE = re.compile(r"^(?P<instr>[^:]+):(?P<major>K|MN)_(?P<swz>INTER|SW32|SW64|SW128):\+(?P<start>\d+)"
                    r":field=(?P<field>\d+)$")


def base_offset_figures(spec: Spec, result: Result) -> list[Figure]:
    """For the first probe where the documented reading and the silicon's disagree: operand A
    as each places it (16-byte chunks), the chunks they place differently marked."""
    from ptxconf.oracle.canonical import SmemQuery
    from ptxconf.oracle.explain.operand import resolve
    from ptxconf.oracle.interpret import compact_strides

    probes = result.fields.get("probes")
    if not isinstance(probes, Mapping):
        return []
    for name, says in probes.items():
        m = _PROBE.match(str(name))
        if m is None or not isinstance(says, Mapping) or not str(
                says.get(result.fields.get("documented", "absolute"), "")).startswith("disagrees"):
            continue
        op = resolve(spec, instr=m["instr"], operand="A", major=m["major"])
        swizzle = {"INTER": "none", "SW32": "32B", "SW64": "64B", "SW128": "128B"}[m["swz"]]
        lbo, sbo = compact_strides(spec, op.dtype, op.major, swizzle, op.mn, op.k)
        grids = []
        for reading, field in (("documented: the field changes nothing", 0),
                               ("silicon: swizzle(start + offset - (field << 7))", int(m["field"]))):
            q = SmemQuery(op.dtype, op.major, swizzle, op.mn, op.k, lbo, sbo,
                          base_offset_bytes=int(m["start"]), base_offset_field=field)
            grids.append(smem_chunk_grid(spec, q, f"{reading} ({name})"))
        # two 8-row groups: the pattern repeats below them
        a, b = (window(g, range(min(16, len(g.rows))), range(len(g.cols))) for g in grids)
        grids = [a, b]
        marked = [Grid(g.title, g.rows, g.cols, tuple(
            tuple(Cell(c.text, c.group, c.text != o.text) for c, o in zip(row, other, strict=True))
            for row, other in zip(g.cells, (b if g is a else a).cells, strict=True)),
            g.row_axis, g.col_axis, g.legend + "; marked: placed differently by the two readings",
            g.notes) for g in grids]
        return [Figure(g, f"{result.id}: operand A at start +{m['start']} B, field "
                          f"{m['field']}, as each reading places it") for g in marked]
    return []


# --- a mistaken descriptor -----------------------------------------------------------------------


def _explain_args(command: str) -> dict[str, str] | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:3] != ["ptxconf", "explain", "descriptor"] or len(words) < 4:
        return None
    opts = {"value": words[3]}
    for flag, value in zip(words[4:], words[5:], strict=False):
        if flag.startswith("--"):
            opts[flag[2:]] = value
    return opts


def mistake_figure(spec: Spec, result: Result) -> Figure | None:
    """The read map of the mistaken descriptor (`explain`), element by element, as `ptxconf
    explain descriptor` computes it: the two elements it names at one address marked, every
    other aliased element (and any read outside --smem-bytes) dashed."""
    from ptxconf.oracle.explain.diagnose import explain_descriptor
    from ptxconf.oracle.explain.operand import resolve

    cmd = result.fields.get("explain")
    o = _explain_args(cmd) if isinstance(cmd, str) else None
    if o is None:
        return None
    if "instr" in o:
        op = resolve(spec, instr=o["instr"], operand=o.get("operand"), major=o.get("major"))
    else:
        op = resolve(spec, dtype=o.get("dtype"), major=o.get("major"), mn=int(o["mn"]), k=int(o["k"]))
    limit = int(o["smem-bytes"], 0) if "smem-bytes" in o else None
    e = explain_descriptor(spec, op, int(o["value"], 0), smem_bytes=limit,
                           tile_base=int(o["tile-base"], 0) if "tile-base" in o else None)
    start = e.desc.start_address
    offs = (e.readmap.addresses - start).tolist()
    counts = Counter(a for row in offs for a in row)
    alias = e.analysis.alias
    pair = {alias[0], alias[1]} if alias is not None else set()
    base, size = e.context.tile_base - start, e.operand.elem_bytes

    def outside(a: int) -> bool:
        return limit is not None and not (base <= a and a + size <= base + limit)

    cells = tuple(tuple(Cell(f"{a:#x}", _chunk_group(a), (i, j) in pair,
                             related=counts[a] > 1 or outside(a))
                        for j, a in enumerate(row)) for i, row in enumerate(offs))
    said = (f": (mn {alias[0][0]}, k {alias[0][1]}) and (mn {alias[1][0]}, k {alias[1][1]}) both "
            f"read at {alias[2] - start:#x}" if alias is not None else "")
    grid = Grid(f"{e.desc.value:#018x}: {op.describe()}{said}",
                tuple(str(i) for i in range(len(offs))), tuple(str(j) for j in range(len(offs[0]))),
                cells, "mn", "k", f"{CHUNK_LEGEND}; marked: the two elements explain names at one "
                "address; dashed: every other element that shares an address"
                + (f" or lies outside the {limit} B allocation" if limit is not None else ""),
                ("cells: bytes from the descriptor start",))
    return Figure(grid, f"{result.id}: what the mistaken descriptor makes the tensor core read")


# --- the dispatcher --------------------------------------------------------------------------------


def _documented_derived(result: Result) -> Figure | None:
    """`documented` against `derived` (a value a check compares), the differing cells marked."""
    f = result.fields
    if "documented" not in f or "derived" not in f or isinstance(f["documented"], Mapping):
        return None

    def items(v: Any) -> list[str]:
        return [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)]

    a, b = items(f["documented"]), items(f["derived"])
    n = max(len(a), len(b))
    rows = tuple(tuple(Cell(m[j] if j < len(m) else "·", None,
                            (a[j] if j < len(a) else None) != (b[j] if j < len(b) else None))
                       for j in range(n)) for m in (a, b))
    grid = Grid(f"{result.id}: {f.get('source', 'documented')} against {f.get('witness', 'derived')}",
                ("documented", "derived"), tuple(str(j) for j in range(n)), rows, "side", "item",
                "marked: the two differ")
    return Figure(grid, f"{result.id}: the value each side gives")


def all_ones_figure(result: Result) -> Figure | None:
    """The kernels of a module whose all-ones product is wrong, each with how many of its
    words differ (marked)."""
    ones = result.fields.get("all_ones")
    if not isinstance(ones, Mapping):
        return None
    wrong, kernels = ones.get("wrong"), ones.get("kernels", "?")
    if not isinstance(wrong, Mapping) or not wrong:
        return None
    rows, cells = [], []
    for name, why in wrong.items():
        m = re.search(r"(\d+) of (\d+) words differ", str(why))
        rows.append(str(name))
        cells.append((Cell(f"{m[1]}/{m[2]} words" if m else "wrong", DISAGREES, True),))
    grid = Grid(f"{result.id}: the all-ones product (every input 1: each D word is K) per kernel",
                tuple(rows), ("differ",), tuple(cells), "kernel", "D",
                f"marked: the kernel's D is not all K; {kernels} kernels in the "
                f"module, {len(wrong)} wrong")
    return Figure(grid, f"{result.id}: which kernels compute a wrong all-ones product")


def gpu_figures(result: Result, spec: Spec) -> Sequence[Figure]:
    """The pictures of a GPU result, or of any result with readings or a documented/derived
    pair."""
    out: list[Figure] = []
    if result.check == "gpu.mistake":
        fig = mistake_figure(spec, result)
        out += [fig] if fig is not None else []
    if result.check == "gpu.hypothesis" and result.id.endswith("[base_offset]"):
        out += base_offset_figures(spec, result)
    ones = all_ones_figure(result)
    out += [ones] if ones is not None else []
    readings = readings_figure(result)
    out += [readings] if readings is not None else []
    other = _documented_derived(result)
    out += [other] if other is not None else []
    return out


__all__ = ["REFERENCE_DTYPE", "all_ones_figure", "base_offset_figures", "gpu_figures", "mistake_figure",
           "readings_figure", "reference_figures", "reference_query", "smem_chunk_grid"]
