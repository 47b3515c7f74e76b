"""Atomic writes keep a rewritten file's mode (cassettes, goldens, reports) and give a new file the umask's."""

import os

import pytest

from harness.cassettes.files import file_mode, write_atomic


@pytest.fixture
def umask_077():
    old = os.umask(0o077)
    yield
    os.umask(old)


def test_a_new_file_gets_the_mode_open_would_give(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "new.yaml", "x\n")
        assert (tmp_path / "new.yaml").stat().st_mode & 0o777 == 0o644
        os.umask(0o002)
        write_atomic(tmp_path / "b.yaml", "x\n")
        assert (tmp_path / "b.yaml").stat().st_mode & 0o777 == 0o664
    finally:
        os.umask(old)


def test_a_rewritten_file_keeps_its_mode_whatever_the_umask(tmp_path, umask_077):
    path = tmp_path / "cassette.yaml"
    path.write_text("old\n")
    path.chmod(0o644)
    write_atomic(path, "new\n")
    assert path.read_text() == "new\n" and path.stat().st_mode & 0o777 == 0o644
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_file_mode_of_an_existing_and_a_missing_file(tmp_path, umask_077):
    (tmp_path / "x").write_text("")
    (tmp_path / "x").chmod(0o640)
    assert file_mode(tmp_path / "x") == 0o640 and file_mode(tmp_path / "missing") == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "golden.yaml"
    path.write_text("kept\n")
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        write_atomic(path, "new\n")
    assert path.read_text() == "kept\n" and [p.name for p in tmp_path.iterdir()] == ["golden.yaml"]


def test_a_write_killed_before_its_file_is_named_leaves_nothing(tmp_path, monkeypatch):
    """Written into a file with no name (O_TMPFILE), named only once whole: dying while writing leaves no temp."""
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE here")
    target = tmp_path / "c.yaml"
    target.write_text("old\n")

    def killed(*args, **kwargs):
        assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]  # the new text is written, under no name
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link", killed)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new\n")
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"] and target.read_text() == "old\n"
