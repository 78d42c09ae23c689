"""Tools' answers about themselves kept between runs (core/tool_stamp.py): a second ask reads the
stamp instead of loading the tool; a changed library file, a changed search environment or a
new loader cache asks again; a stamp that is tampered with, holds an answer of another shape or
is not a regular file is not used; where the loaded libraries cannot be read back nothing is
kept. NVRTC's, the driver's and Z3's kept answers are what asking them says, and a warm process
reads them without importing cuda-bindings or Z3."""

from __future__ import annotations

import json
import mmap
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ptxconf.core import tool_stamp


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PTXCONF_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "tools"


class FakeTool:
    """A 'tool' whose query maps a library file (so that /proc/self/maps names it), and counts
    how often it was asked."""

    def __init__(self, folder: Path, answer: Any = "1.2.3") -> None:
        self.lib = folder / "libptxconffake.so.1"
        self.lib.write_bytes(b"\0" * 4096)
        self.answer = answer
        self.asked = 0
        self._maps: list[mmap.mmap] = []

    def query(self) -> Any:
        self.asked += 1
        with open(self.lib, "rb") as fh:
            self._maps.append(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
        return self.answer

    def kept(self) -> Any:
        return tool_stamp.kept("fake", self.query, packages=("json",),
                               libraries=("libptxconffake",), valid=lambda a: isinstance(a, str))

    def close(self) -> None:
        for m in self._maps:
            m.close()


@pytest.fixture
def tool(tmp_path: Path) -> Iterator[FakeTool]:
    t = FakeTool(tmp_path)
    yield t
    t.close()


needs_maps = pytest.mark.skipif(not os.path.exists(tool_stamp.MAPS),
                                reason="no /proc/self/maps: nothing is kept (every run asks)")


@needs_maps
def test_a_second_ask_reads_the_stamp(cache: Path, tool: FakeTool) -> None:
    assert tool.kept() == "1.2.3"
    assert tool.kept() == "1.2.3"
    assert tool.asked == 1
    (stamp,) = cache.iterdir()
    data = json.loads(stamp.read_text())
    assert str(tool.lib) in data["files"], "the library the query loaded is recorded"


@needs_maps
def test_a_changed_library_asks_again(cache: Path, tool: FakeTool) -> None:
    tool.kept()
    tool.lib.write_bytes(b"\1" * 8192)  # an upgraded library: another size and mtime
    tool.answer = "1.2.4"
    assert tool.kept() == "1.2.4"
    assert tool.kept() == "1.2.4"
    assert tool.asked == 2


@needs_maps
def test_a_changed_search_environment_asks_again(cache: Path, tool: FakeTool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    tool.kept()
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tool.lib.parent))
    tool.kept()
    assert tool.asked == 2
    monkeypatch.setattr(tool_stamp, "LOADER_CACHE", str(tool.lib))  # ldconfig wrote a new one
    tool.kept()
    assert tool.asked == 3


@needs_maps
@pytest.mark.parametrize("spoil", ["answer", "type", "digest", "symlink", "folder"])
def test_a_spoiled_stamp_is_not_used(cache: Path, tool: FakeTool, plant: Callable[[Path, str, str], None],
                                     spoil: str) -> None:
    tool.kept()
    (stamp,) = cache.iterdir()
    data = json.loads(stamp.read_text())
    if spoil == "answer":
        data["answer"] = "9.9.9"  # its digest no longer matches
    elif spoil == "type":
        data["answer"] = ["1.2.3"]
        data["digest"] = tool_stamp.sign(stamp.stem, tool_stamp._body("fake", data["files"], ["1.2.3"]))
    elif spoil == "digest":
        data["digest"] = "0" * 64
    plant(stamp, spoil, json.dumps(data))
    assert tool.kept() == "1.2.3"
    assert tool.asked == 2


def test_nothing_is_kept_where_the_libraries_cannot_be_read(
        cache: Path, tool: FakeTool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tool_stamp, "MAPS", str(tmp_path / "no-such-maps"))
    tool.kept()
    tool.kept()
    assert tool.asked == 2
    assert not cache.exists()


def test_the_kept_answers_are_what_the_tools_say(cache: Path) -> None:
    from ptxconf.gpu import toolchain
    from ptxconf.oracle.proofs import cache as proof_cache

    for _ in range(2):  # asked, then from the stamps
        assert toolchain.kept_nvrtc_problem() == toolchain.nvrtc_problem()
        if toolchain.nvrtc_problem() is None:
            assert toolchain.kept_nvrtc_version() == toolchain.nvrtc_version()
        assert toolchain.kept_driver_version() == toolchain.driver_version()
        problem, version = proof_cache.solver_facts()
        assert problem == proof_cache._z3_query()["problem"]
        assert version == proof_cache._z3_query()["version"]


@needs_maps
def test_a_warm_process_reads_the_stamps_without_loading_the_tools(cache: Path) -> None:
    code = ("import json, sys\n"
            "from ptxconf.gpu import toolchain\n"
            "from ptxconf.oracle.proofs.cache import solver_facts\n"
            "got = [toolchain.kept_nvrtc_problem(), toolchain.kept_driver_version(), solver_facts()]\n"
            "print(json.dumps({'got': got, 'loaded': sorted(m for m in sys.modules\n"
            "                  if m in ('z3', 'cuda.bindings', 'cuda.pathfinder'))}))\n")
    env = {**os.environ, "PTXCONF_CACHE_DIR": str(cache.parent)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                      text=True, check=True, env=env).stdout) for _ in range(2)]
    assert runs[1]["got"] == runs[0]["got"]
    assert runs[1]["loaded"] == []
