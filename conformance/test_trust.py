"""Entries of a shared cache are read as untrusted input (ptxconf.core.trust): only regular
files within a size cap, never through a symlink or by blocking on a FIFO; their digest binds
content to key, and is an HMAC under $PTXCONF_CACHE_KEY where that secret is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptxconf.core.trust import KEY_ENV, read_regular, sign


def test_a_regular_file_within_the_cap_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "entry"
    path.write_bytes(b"abc")
    assert read_regular(path, 3) == b"abc"
    with pytest.raises(ValueError, match="3 bytes, more than 2"):
        read_regular(path, 2)


@pytest.mark.parametrize(("make", "said"), [
    (lambda p: p.symlink_to("/dev/zero"), "a symlink, not a regular file"),
    (os.mkfifo, "not a regular file"),
    (Path.mkdir, "not a regular file"),
])
def test_anything_but_a_regular_file_is_refused_without_reading_it(tmp_path: Path, make, said: str
                                                                   ) -> None:
    path = tmp_path / "entry"
    make(path)
    with pytest.raises(ValueError, match=said):
        read_regular(path, 1 << 20)


def test_the_digest_binds_content_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    plain = sign("k", b"data")
    assert plain != sign("k2", b"data")
    assert plain != sign("k", b"datb")
    monkeypatch.setenv(KEY_ENV, "secret")
    keyed = sign("k", b"data")
    assert keyed.startswith("hmac:")
    assert keyed != plain
    monkeypatch.setenv(KEY_ENV, "another secret")
    assert sign("k", b"data") != keyed
