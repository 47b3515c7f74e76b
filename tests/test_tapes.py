"""Where the recording proxy writes (harness.endpoint.tapes): a recorder takes its folder alone and clears the temp
files a killed recorder left; an exchange cut short is written as far as it got and named incomplete."""

from __future__ import annotations

import os

import pytest

from harness.cassettes import cassette
from harness.endpoint.tapes import Conversations, FolderBusy, Tape, describe

URI = "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse"


def interaction(text: str = "hi") -> cassette.Interaction:
    return cassette.Interaction("POST", URI, {}, b"{}", 200, "OK", {"Content-Type": "application/json"}, None,
                                f'{{"output": {{"message": {{"content": [{{"text": "{text}"}}]}}}}}}'.encode())


def test_claim_removes_only_the_temp_files_of_its_own_cassettes(tmp_path):
    stale = [tmp_path / ".conversation-0001.yaml.k2j3h4.tmp", tmp_path / ".conversation-12345.yaml.x.tmp"]
    kept = [tmp_path / ".other-0001.yaml.k2j3h4.tmp", tmp_path / "conversation-0001.yaml", tmp_path / "notes.tmp",
            tmp_path / ".conversation-0001.yaml.tmp"]
    for path in stale + kept:
        path.write_text("metadata:\n  format_vers")  # truncated, as kill -9 leaves them
    (tmp_path / ".conversation-0002.yaml.link.tmp").symlink_to(tmp_path / "notes.tmp")
    removed = Conversations(tmp_path).claim()
    assert sorted(removed) == sorted(stale) and not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and (tmp_path / ".conversation-0002.yaml.link.tmp").is_symlink()


def test_a_second_recorder_on_the_same_folder_is_refused_while_the_first_lives(tmp_path):
    first = Conversations(tmp_path / "out")
    first.claim()
    with pytest.raises(FolderBusy, match=f"^{tmp_path / 'out'}: another `serve --record` is recording"):
        Conversations(tmp_path / "out").claim()
    os.close(first._lock)  # the first recorder ends: the folder is free again
    assert Conversations(tmp_path / "out").claim() == []


def test_an_exchange_cut_short_is_written_and_named_incomplete_by_its_place_among_the_written(tmp_path):
    tape = Tape(tmp_path / "t.yaml")
    slots = [tape.open_slot() for _ in range(3)]
    tape.fill(slots[0], None)  # nothing to record (the upstream was unreachable)
    tape.fill(slots[1], interaction("whole"))
    tape.fill(slots[2], interaction("cut"), incomplete="stopped (SIGTERM) mid-answer")
    written = cassette.load(tape.path)
    assert len(written.interactions) == 2 and tape.incomplete == 1
    assert written.metadata["incomplete"] == [{"interaction": 1, "why": "stopped (SIGTERM) mid-answer"}]
    assert describe([tape]) == f"{tape.path}: 2 interaction(s), 1 incomplete"
