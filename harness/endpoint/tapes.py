"""Where the recording proxy (harness.endpoint.proxy) writes: tapes, one cassette each, and the recorders that
choose a request's tape.

A ``Tape`` is one cassette, rewritten atomically after every exchange, its text scanned for secrets first (fail
closed: a tape holding a secret is deleted and never written again) and verified after (frames, CRCs, event
grammar; problems are logged and kept). An exchange cut short (``serve --record`` stopped while its answer
streamed) is written as far as it got and named in the metadata's ``incomplete`` list with why. A ``Tape`` takes
every request (the harness's own runs, one tape per scenario attempt); ``Conversations`` groups a client's
requests by their message history, one tape per conversation in a folder it locks (flock on the folder itself),
where it first removes the temp files a recorder killed mid-write left behind.
"""

from __future__ import annotations

import fcntl
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any, Protocol

from harness.cassettes import cassette, scrub
from harness.cassettes.cassette import Cassette, Interaction
from harness.cassettes.masking import MaskingFilter
from harness.endpoint.exchange import CapturedRequest

__all__ = ["Conversations", "FolderBusy", "Recorder", "Tape", "describe"]

log = logging.getLogger(__name__)
log.addFilter(MaskingFilter())


class Tape:
    """One cassette being recorded: interactions in request order, written atomically after each one completes.

    An existing file is never replaced unless ``overwrite``; a tape whose text holds a secret is refused (its file
    deleted, nothing written again) and says why in ``refused``.
    """

    def __init__(self, path: str | Path, *, overwrite: bool = False, source: str | None = None):
        self.path, self.overwrite, self.source = Path(path), overwrite, source
        self.refused = ""
        self.problems: list[str] = []  # cassette.verify's findings on the last write
        self._slots: list[Interaction | None] = []
        self._incomplete: dict[int, str] = {}  # slot -> why its exchange was cut short
        self._pending: set[int] = set()
        self._ours = False  # the file at ``path`` is one this tape wrote
        self._changed = threading.Condition()

    def tape_for(self, request: CapturedRequest) -> Tape:
        """A tape is also the simplest recorder: every request lands on it."""
        return self

    @property
    def interactions(self) -> list[Interaction]:
        with self._changed:
            return [it for it in self._slots if it is not None]

    @property
    def incomplete(self) -> int:
        """How many of the written interactions were cut short."""
        with self._changed:
            return sum(1 for slot in self._incomplete if self._slots[slot] is not None)

    @property
    def written(self) -> bool:
        return self._ours and not self.refused

    def open_slot(self) -> int:
        """Reserve the place of the next exchange (request order, whatever order the answers end in)."""
        with self._changed:
            self._slots.append(None)
            self._pending.add(len(self._slots) - 1)
            return len(self._slots) - 1

    def fill(self, slot: int, interaction: Interaction | None, incomplete: str = "") -> None:
        """The exchange in ``slot`` is over (None: nothing to record; ``incomplete``: why it was cut short);
        rewrite the cassette."""
        with self._changed:
            self._slots[slot] = interaction
            if incomplete:
                self._incomplete[slot] = incomplete
            self._pending.discard(slot)
            if interaction is not None and not self.refused:
                self._write()
            self._changed.notify_all()

    def last_failed(self) -> bool:
        """Whether the latest finished exchange was an error (HTTP status or an exception frame)."""
        done = self.interactions
        return bool(done) and (done[-1].status >= 300 or any(f.message_type != "event" for f in done[-1].frames or ()))

    def wait(self, timeout: float = 30.0) -> bool:
        """Wait until every open exchange has finished (its stream read to the end); False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._pending, timeout)

    def _metadata(self, items: tuple[Interaction, ...]) -> dict:
        given: dict[str, Any] = {}
        written = [slot for slot, it in enumerate(self._slots) if it is not None]
        cut = [{"interaction": n, "why": self._incomplete[slot]} for n, slot in enumerate(written)
               if slot in self._incomplete]
        if cut:
            given["incomplete"] = cut
        return cassette.metadata_for(items, given, self.source)

    def _write(self) -> None:
        items = tuple(it for it in self._slots if it is not None)
        document = Cassette(None, self._metadata(items), items)
        try:
            cassette.save(self.path, document, overwrite=self.overwrite or self._ours)
        except (scrub.SecretFound, FileExistsError) as error:
            self._refuse(str(error))
            return
        self._ours = True
        self.problems = cassette.verify(self.path)
        for problem in self.problems:
            log.warning("recorded cassette: %s", problem)
        log.info("recorded %s (%d interactions)", self.path, len(items))

    def _refuse(self, why: str) -> None:
        self.refused = why
        log.error("%s", why)
        if self._ours:
            self.path.unlink(missing_ok=True)
            self._ours = False


class Recorder(Protocol):
    """Chooses the tape a request is recorded on (called in arrival order, one request at a time)."""

    def tape_for(self, request: CapturedRequest) -> Tape: ...


class _Thread:
    """One conversation of ``Conversations``: its tape and the messages of its latest request."""

    def __init__(self, tape: Tape, messages: list | None):
        self.tape, self.messages = tape, messages

    def takes(self, messages: list) -> bool:
        """A continuation (the history so far, then more) or a retry of a failed request (the same history)."""
        if self.messages is None or len(messages) < len(self.messages):
            return False
        if messages[: len(self.messages)] != self.messages:
            return False
        return len(messages) > len(self.messages) or self.tape.last_failed()


class FolderBusy(Exception):
    """Another recorder holds the folder's lock; the message is one line naming the folder."""


class Conversations:
    """Groups requests into conversations, one cassette each, named ``<prefix>-NNNN.yaml`` in ``directory``.

    A request continues the newest conversation whose latest request's ``messages`` are a prefix of its own (the
    client sent the history back with more appended), or repeats it after an error (a retry); anything else starts
    a new conversation. A request without a ``messages`` list is a conversation of its own. Numbers skip every file
    already there, so nothing is ever clobbered.
    """

    def __init__(self, directory: str | Path, *, prefix: str = "conversation", source: str | None = None):
        self.directory, self.prefix, self.source = Path(directory), prefix, source
        self.threads: list[_Thread] = []
        self._number = 0
        self._lock: int | None = None  # a descriptor of the folder, flock'ed while this recorder lives

    @property
    def tapes(self) -> list[Tape]:
        return [thread.tape for thread in self.threads]

    def claim(self) -> list[Path]:
        """Lock the folder for this recorder (FolderBusy when another holds it) and remove the temp files of
        cassettes a recorder killed mid-write left there (``.<prefix>-NNNN.yaml.*.tmp``); returns those removed."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = os.open(self.directory, os.O_RDONLY)  # the folder itself is locked: no lock file left in it
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock)
            raise FolderBusy(f"{self.directory}: another `serve --record` is recording into this folder") from None
        stale = re.compile(rf"\.{re.escape(self.prefix)}-\d{{4,}}\.yaml\..+\.tmp")
        removed = [p for p in self.directory.iterdir() if stale.fullmatch(p.name) and p.is_file()
                   and not p.is_symlink()]
        for path in removed:
            os.unlink(path)
        return removed

    def tape_for(self, request: CapturedRequest) -> Tape:
        messages = _messages(request.body_json)
        thread = next((t for t in reversed(self.threads) if messages is not None and t.takes(messages)), None)
        if thread is None:
            thread = _Thread(Tape(self._next_path(), source=self.source), messages)
            self.threads.append(thread)
        thread.messages = messages
        return thread.tape

    def _next_path(self) -> Path:
        taken = {t.tape.path for t in self.threads}
        while True:
            self._number += 1
            path = self.directory / f"{self.prefix}-{self._number:04d}.yaml"
            if path not in taken and not path.exists():
                return path


def _messages(body: Any) -> list | None:
    messages = body.get("messages") if isinstance(body, dict) else None
    return messages if isinstance(messages, list) else None


def describe(tapes: list[Tape]) -> str:
    """One line per tape: its path and interaction count (and how many were cut short), or why it was refused."""
    def line(tape: Tape) -> str:
        if tape.refused:
            return f"{tape.path}: refused ({tape.refused})"
        cut = f", {tape.incomplete} incomplete" if tape.incomplete else ""
        return f"{tape.path}: {len(tape.interactions)} interaction(s){cut}"
    return "\n".join(line(t) for t in tapes)
