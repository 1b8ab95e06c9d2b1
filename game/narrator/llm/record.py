"""Record a session's model exchanges to JSONL, and play them back without any network.

A recording is one header line, then one line per request: the step, a summary of the request (model,
tools, response format, the player's last words and a digest of everything sent) and what came back
(the stream's chunks or the completion, plus the error if the request failed). A full recording
(``--record-full``) also keeps each request's whole body and each streamed reply's text, to be read. Replay serves the lines
in order; a request whose digest differs from the recorded one is a clear error that says what changed,
so a recorded playthrough is a regression test of the prompts as well as of the engine.

The key never reaches a recording: it is not part of any request body, and every string of a line has
the live transport's key masked (``Redactor.scrub``) before it is written, as a second line of defence.
A server that echoes the key split across stream events would slip past a per-string mask, so a
stream's text (and each tool call's arguments) is masked as assembled, and the masked text written back
into the events (``scrub_chunks``). Chat-template markers go the same way: a reply is recorded up to its
end-of-turn marker, markers removed, as the player read it; a stream the narrator closed at the marker is
recorded with the end the marker meant (a ``stop`` chunk, and ``"ended": "end-of-turn"``), so its replay
ends there too. Nothing else is rewritten: a recording holds the story word for word.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import AsyncGenerator
from contextlib import aclosing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from game.errors import InputError
from game.narrator.llm.endpoint import Redactor
from game.narrator.llm.guard import END_OF_TURN, mask_secrets, strip_markers, unmarked_completion, until_end
from game.narrator.llm.transport import ChatCall, LLMError, Transport

FORMAT = "kith-llm-recording"
VERSION = 1
_EXCERPT = 160
_HEAD = 65536
"""How much of an existing file is read to tell a recording (its header is its first, short line)."""
_SAVE_NAME = re.compile(r"\.sqlite(?:-wal|-shm|-journal|\..*)?\Z")
"""``NAME.sqlite``, its SQLite sidecars, and the temporary files a save is built under (``.NAME.sqlite.creating-PID``)."""
_SIDECARS = ("-wal", "-shm", "-journal")
_SQLITE = b"SQLite format 3\x00"


def refuse_unsafe_record(path: Path, *, saves_dir: Path | None = None, save: Path | None = None) -> None:
    """Refuse a ``--record`` path the recording must never overwrite, before anything is written.

    A recording is started afresh (truncated), so it may only replace an earlier recording or an empty
    file. Refused: a save's name (``NAME.sqlite``, anywhere: inside the saves folder it is or would be a
    save), a save's ``-wal``, ``-shm`` or ``-journal`` (writing one corrupts the save beside it), the
    save being played (``save``), anything that is not a regular file, and any existing file that is not
    a Kith recording (an SQLite database under another name included). The lock is ``flock`` on the save
    file itself, so there is no lock file to protect. ``InputError``, exit 2, nothing written."""
    candidates = [path, *([path.resolve()] if path.exists() or path.is_symlink() else [])]
    for candidate in candidates:
        if _SAVE_NAME.search(candidate.name):
            where = " in the saves folder" if saves_dir is not None and _inside(candidate, saves_dir) else ""
            raise InputError(f"--record {path}: that is a save's file name{where} (NAME.sqlite and its -wal, -shm and "
                             "-journal files are saves); a recording is never written over a save: record to a "
                             ".jsonl file")
        for side in _SIDECARS:
            base = candidate.with_name(candidate.name.removesuffix(side))
            if candidate.name.endswith(side) and _is_sqlite(base):
                raise InputError(f"--record {path}: that is the {side} file of the save {base}; writing it would "
                                 "damage the save: record to a .jsonl file")
    if save is not None:
        played = save.resolve()
        if path.resolve() in {played, *(Path(f"{played}{side}") for side in _SIDECARS)}:
            raise InputError(f"--record {path}: that is the save being played; record to a .jsonl file")
    problem = _not_a_recording(path)
    if problem is not None:
        raise InputError(f"--record {path}: {problem}; a recording only ever replaces an earlier recording: "
                         "choose another file")


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(_SQLITE)) == _SQLITE
    except OSError:
        return False


def _not_a_recording(path: Path) -> str | None:
    """Why the file at ``path`` may not be replaced by a recording (None: it is missing, empty, or one)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"it cannot be read ({error.strerror or error})"
    if not stat.S_ISREG(mode):
        return "it is a folder" if stat.S_ISDIR(mode) else "it is not a regular file (a pipe, socket or device)"
    try:
        with path.open("rb") as handle:
            return _head_problem(handle.read(_HEAD))
    except OSError as error:
        return f"it cannot be read ({error.strerror or error})"


def _head_problem(head: bytes) -> str | None:
    if not head:
        return None
    if head.startswith(_SQLITE):
        return "it exists and is an SQLite database (a save, perhaps), not a Kith recording"
    first = head.split(b"\n", 1)[0]
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return "it exists and is not a Kith recording"
    return None


def request_summary(call: ChatCall, *, streamed: bool | None = None) -> dict[str, Any]:
    """What identifies a request: enough to say how two differ, and a digest to know that they do.

    ``streamed`` is how the request was sent: the narrator's parameters do not say ``stream`` (the
    transport's ``stream`` adds it), so the call alone would call every narration request a whole reply."""
    params = call.params
    signed = {key: params.get(key) for key in ("messages", "tools", "tool_choice", "response_format")}
    digest = hashlib.sha256(json.dumps(signed, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
    response_format = params.get("response_format")
    return {
        "step": call.step,
        "model": params.get("model"),
        "stream": call.stream if streamed is None else streamed,
        "messages": len(params.get("messages") or []),
        "tools": [t.get("function", {}).get("name") for t in params.get("tools") or []],
        "toolChoice": params.get("tool_choice"),
        "responseFormat": response_format.get("type") if isinstance(response_format, dict) else None,
        "lastUser": _last_user(params.get("messages") or []),
        "digest": digest,
    }


def _last_user(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return _player_part(str(message["content"]))[-_EXCERPT:]
    return ""


def _player_part(content: str) -> str:
    """A narration turn's message without what the story adds before the player's words (its
    ``<turn-context>`` block, a question to ask, a thread to pick up), so a mismatch names the words."""
    if content.startswith("<turn-context>") and "</turn-context>" in content:
        parts = content.split("</turn-context>", 1)[1].strip().split("\n\n")
        while len(parts) > 1 and parts[0].startswith("## "):
            parts = parts[1:]
        return "\n\n".join(parts)
    return content


class RecordingTransport:
    """Passes requests to another transport and appends each exchange to ``path``."""

    def __init__(self, inner: Transport, path: Path, *, redactor: Redactor | None = None,
                 model: str | None = None, full: bool = False) -> None:
        self.inner = inner
        self.path = path
        self.full = full
        """Keep each request's body and each streamed reply's assembled text, to read a failing session."""
        self._redactor = redactor or inner.redactor
        self._count = 0
        refuse_unsafe_record(path)  # checked again here: the file may have appeared since the command began
        header = {"format": FORMAT, "version": VERSION, "model": model, "endpoint": inner.label,
                  "recorded": datetime.now(UTC).isoformat(timespec="seconds"), "full": full}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _start(path, self._line(header).encode("utf-8"))
        except OSError as error:
            raise InputError(f"Cannot write the recording {path}: {error.strerror or error}") from error

    @property
    def label(self) -> str:
        return self.inner.label

    @property
    def redactor(self) -> Redactor:
        return self._redactor

    def _line(self, data: dict[str, Any]) -> str:
        return json.dumps(self._redactor.scrub(data), ensure_ascii=False) + "\n"

    def _append(self, call: ChatCall, response: dict[str, Any], *, streamed: bool) -> None:
        if "chunks" in response:
            response = {**response, "chunks": scrub_chunks(response["chunks"], self._redactor.secrets)}
        if isinstance(response.get("completion"), dict):
            response = {**response, "completion": unmarked_completion(response["completion"])}
        self._count += 1
        line = {"n": self._count, "step": call.step, "request": request_summary(call, streamed=streamed),
                **response}
        if self.full:
            # The key is masked in every string of the line as it is written (``_line``), bodies included.
            line["body"] = {**call.params, "stream": streamed}
            if "chunks" in response:
                line["reply"] = _assembled(response["chunks"])
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(self._line(line))

    async def stream(self, call: ChatCall) -> AsyncGenerator[dict[str, Any], None]:
        chunks: list[dict[str, Any]] = []
        try:
            # Closed with this one: a reply the narrator stops reading must be closed at once, here too,
            # so the server stops generating (left to the garbage collector, it would run on).
            async with aclosing(self.inner.stream(call)) as inner:
                async for chunk in inner:
                    chunks.append(chunk)
                    yield chunk
        except LLMError as error:
            self._append(call, {"chunks": chunks, "error": error.to_json_dict()}, streamed=True)
            raise
        except GeneratorExit:
            if END_OF_TURN.search(_assembled(chunks)):
                # The narrator closed the reply at its end-of-turn marker: recorded as the end it was.
                self._append(call, {"chunks": [*chunks, _END_CHUNK], "ended": "end-of-turn"}, streamed=True)
            else:
                # The narrator stopped reading on purpose (an overlong reply); replay stops at the same chunk.
                self._append(call, {"chunks": chunks, "stopped": True}, streamed=True)
            raise
        # A cancelled or abandoned request is not recorded: it never became part of the story.
        self._append(call, {"chunks": chunks}, streamed=True)

    async def complete(self, call: ChatCall) -> dict[str, Any]:
        try:
            completion = await self.inner.complete(call)
        except LLMError as error:
            self._append(call, {"error": error.to_json_dict()}, streamed=False)
            raise
        self._append(call, {"completion": completion}, streamed=False)
        return completion

    async def models(self) -> list[str]:
        return await self.inner.models()

    async def aclose(self) -> None:
        await self.inner.aclose()


def _start(path: Path, header: bytes) -> None:
    """Write ``header`` as the whole of ``path``, looking at what is there through the same open file
    before truncating it, so nothing that appeared since the check (a save made at that path) is lost."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "r+b") as handle:
        problem = ("it is not a regular file" if not stat.S_ISREG(os.fstat(fd).st_mode)
                   else _head_problem(handle.read(_HEAD)))
        if problem is not None:
            raise InputError(f"--record {path}: {problem}; it was left as it was")
        handle.seek(0)
        handle.truncate()
        handle.write(header)


class ReplayTransport:
    """Serves a recording's exchanges in order, with no network; a different request is an error."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError as error:
            raise InputError(f"No recording at {path}.") from error
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"Cannot read the recording {path}: {error}") from error
        records: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"{path}, line {number}: not JSON ({error.msg}).") from error
            if not isinstance(record, dict):
                raise InputError(f"{path}, line {number}: expected a JSON object.")
            records.append(record)
        if not records or records[0].get("format") != FORMAT:
            raise InputError(f"{path} is not a Kith model recording (made with --record).")
        if int(records[0].get("version", 0)) > VERSION:
            raise InputError(f"{path} was recorded by a newer Kith (format version {records[0]['version']}).")
        self.header = records[0]
        self.exchanges = records[1:]
        self.position = 0

    @property
    def label(self) -> str:
        return f"replay of {self.path.name}"

    @property
    def model(self) -> str | None:
        model = self.header.get("model")
        return str(model) if model else None

    def _take(self, call: ChatCall) -> dict[str, Any]:
        wanted = request_summary(call)
        if self.position >= len(self.exchanges):
            raise LLMError(
                f"Replay {self.path.name}: the game asked for a {call.step} request "
                f"({_describe(wanted)}) but the recording holds only {len(self.exchanges)} exchanges.",
                "replay-mismatch")
        record = self.exchanges[self.position]
        recorded = record.get("request") or {}
        if recorded.get("digest") != wanted["digest"] or recorded.get("step") != call.step:
            raise LLMError(
                f"Replay {self.path.name}: exchange {self.position + 1} was recorded for a different request. "
                f"{_difference(recorded, wanted)}", "replay-mismatch")
        self.position += 1
        return record

    async def stream(self, call: ChatCall) -> AsyncGenerator[dict[str, Any], None]:
        record = self._take(call)
        for chunk in record.get("chunks") or []:
            yield chunk
        if record.get("error"):
            raise LLMError.from_json_dict(record["error"])

    async def complete(self, call: ChatCall) -> dict[str, Any]:
        record = self._take(call)
        if record.get("error"):
            raise LLMError.from_json_dict(record["error"])
        completion = record.get("completion")
        if not isinstance(completion, dict):
            raise LLMError(f"Replay {self.path.name}: exchange {self.position} holds no completion.", "protocol")
        return completion

    @property
    def redactor(self) -> Redactor:
        return Redactor()

    async def models(self) -> list[str]:
        # The model is not part of a request's digest, so any name serves when none was recorded.
        return [self.model or "recorded-model"]

    async def aclose(self) -> None:
        return None


_END_CHUNK = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
"""What a reply closed at its end-of-turn marker is recorded as ending with."""


def scrub_chunks(chunks: list[Any], secrets: list[str]) -> list[Any]:
    """Stream events with every secret masked, and no chat-template marker, in the text they assemble
    to, even one split across events; the text ends at its end-of-turn marker.

    Each piece of text (a choice's content, a tool call's arguments) is joined over the events; where the
    cleaned whole differs, the first event carrying that piece gets all of the cleaned text and the later
    ones an empty string, so a replay assembles exactly the cleaned text.
    """
    chunks = json.loads(json.dumps(chunks))  # a deep copy: the live narrator still reads the originals
    slots: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for chunk in chunks:
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        for choice in choices if isinstance(choices, list) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            if isinstance(delta.get("content"), str):
                slots.setdefault(("content", choice.get("index")), []).append(delta)
            calls = delta.get("tool_calls")
            for number, call in enumerate(calls if isinstance(calls, list) else []):
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                    key = ("arguments", choice.get("index"), json.dumps(call.get("index", number)))
                    slots.setdefault(key, []).append(function)
    for key, holders in slots.items():
        field_name = "content" if key[0] == "content" else "arguments"
        whole = "".join(holder[field_name] for holder in holders)
        unmarked = until_end(whole)[0] if field_name == "content" else strip_markers(whole)
        masked = mask_secrets(unmarked, secrets)
        if masked != whole:
            for number, holder in enumerate(holders):
                holder[field_name] = masked if number == 0 else ""
    return chunks


def _assembled(chunks: list[Any]) -> str:
    """A stream's text as the player would read it, for a full recording (the chunks stay for replay)."""
    text = []
    for chunk in chunks:
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        for choice in choices if isinstance(choices, list) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            content = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(content, str):
                text.append(content)
    return "".join(text)


def _describe(summary: dict[str, Any]) -> str:
    said = summary.get("lastUser") or ""
    return f"{summary.get('messages')} messages, last player words {said[-60:]!r}"


def _difference(recorded: dict[str, Any], wanted: dict[str, Any]) -> str:
    for key, what in (("step", "step"), ("lastUser", "last user message"), ("messages", "message count"),
                      ("tools", "tools"), ("toolChoice", "tool choice"), ("responseFormat", "response format")):
        if recorded.get(key) != wanted.get(key):
            return f"Its {what} was {recorded.get(key)!r}; now it is {wanted.get(key)!r}."
    return "The prompt text differs (a changed prompt, world or graph); record the session again."
