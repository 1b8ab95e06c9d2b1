"""A Chat Completions server on 127.0.0.1 for tests: scripted replies, the quirks of real local servers.

The real ``openai`` client talks to it over HTTP, so the tests exercise the same wire the game uses.
Each test pushes the replies it wants onto a queue (one reply per request, in order) and reads back
``received`` to check what the client sent. A request with no scripted reply left gets a 500 whose
message says so, which makes a test that expected fewer calls fail loudly.

Reply kinds: ``Text`` (streamed in small chunks when the client asks for a stream), ``ToolCalls``
(arguments split into fragments across chunks, as OpenAI and vLLM send them), ``Failure`` (any status,
optional headers such as ``Retry-After``), ``Delayed``, ``Broken`` (the connection drops mid-stream),
``StreamError`` (an ``{"error": ...}`` event mid-stream, as llama.cpp sends), ``Dynamic`` (a function
of the request, for servers that echo the schema back or answer differently per request), and the
misbehaviours of an adversarial pass: ``Truncated`` (a stream that ends cleanly with no finish reason
and no ``[DONE]``), ``RawEvents`` (stream events of any shape, written as given), ``RawBody`` (a whole
reply of any shape), ``StreamAnyway`` (a stream sent to a client that asked for a whole reply) and
``KeepAlive`` (SSE comments and nothing else, for as long as the client listens) and ``Dropped`` (the
connection closed before any answer, as a stale keep-alive connection is). ``props`` answers llama.cpp's
``GET /props`` (context size, chat template capabilities) when set; otherwise it is a 404. Knobs on the
server reproduce servers that refuse parts of the protocol (``reject_response_formats``,
``reject_stream_options``, ``reject_tool_choice_required``) or check the key (``require_key``); a small
context (``context_size``, counted at ``chars_per_token``, refused in each server family's words, the
``max_tokens`` asked for included with ``count_reply`` as vLLM and OpenAI do). Each streamed reply is
counted in ``streams`` (``Streamed``): the chunks it was asked for (``max_tokens``), the chunks it meant to
send and the chunks it sent before the client went away; a reply with a ``pause`` between chunks paces
itself like a model generating, and stops as soon as the client has closed the connection, as a real server
stops generating.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.body.get("tools", []) or []]

    def text(self) -> str:
        """Every message's content joined, to look for what a prompt contained."""
        parts = []
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
        return "\n".join(parts)


@dataclass
class Streamed:
    """One streamed reply as the server sent it: ``asked`` is the request's ``max_tokens`` (None when it set
    none), ``planned`` the content chunks the reply holds, ``sent`` those written before the client closed
    the connection (``disconnected``), when it did."""

    asked: int | None
    planned: int
    sent: int = 0
    disconnected: bool = False
    over: threading.Event = field(default_factory=threading.Event)
    """Set when the server has stopped sending (the counts are final): wait on it before reading them."""


@dataclass
class Text:
    content: str
    chunk_size: int = 8
    finish_reason: str = "stop"
    usage: bool = True
    pause: float = 0.0
    """Seconds between streamed chunks (a slow model, for cancellation tests); the server watches for the
    client closing the connection meanwhile, and stops sending when it has."""


@dataclass
class ToolCalls:
    calls: list[tuple[str, str | dict[str, Any]]]
    content: str = ""
    fragment_size: int = 7
    with_index: bool = True


@dataclass
class Failure:
    status: int
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Delayed:
    seconds: float
    reply: Any


@dataclass
class Broken:
    """Streams ``content`` in chunks and then drops the connection without finishing."""

    content: str
    chunk_size: int = 8


@dataclass
class StreamError:
    """Streams ``content`` then an ``{"error": ...}`` event, as llama.cpp does when generation fails."""

    content: str
    message: str = "generation failed"


@dataclass
class Truncated:
    """Streams ``content`` and ends the body properly, but with no finish reason and no ``[DONE]``."""

    content: str
    chunk_size: int = 8


@dataclass
class RawEvents:
    """Stream events written exactly as given (``data: <event>``), then ``[DONE]`` unless ``done=False``."""

    events: list[str]
    done: bool = True


@dataclass
class RawBody:
    """A non-streamed reply whose JSON body is ``body`` verbatim, whatever its shape."""

    body: str
    content_type: str = "application/json"


@dataclass
class StreamAnyway:
    """Answers with a stream of ``reply`` even when the client asked for a whole reply."""

    reply: Any


@dataclass
class KeepAlive:
    """Sends an SSE comment every ``every`` seconds and never a word, until the client gives up."""

    every: float = 0.2
    limit: float = 30.0


@dataclass
class Endless:
    """A model that never stops by itself (a base model, as on a tiny llama.cpp setup): with ``max_tokens``
    it writes that many "tokens" (``word`` each) and finishes with ``length``; without, it writes
    ``limit`` characters before the server gives up, and never sends a finish reason."""

    word: str = "and the sea rolls on "
    limit: int = 20000
    start: str = ""
    """Written first (a base model's reply that begins with an end-of-turn marker: ``"<|im_end|>"``)."""
    pause: float = 0.0
    """Seconds between streamed chunks, as for ``Text``."""


@dataclass
class Dropped:
    """Closes the connection without a word of answer (a keep-alive connection the server dropped)."""


@dataclass
class Dynamic:
    make: Callable[[Received], Any]


def _arguments(value: str | dict[str, Any]) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _rough_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class ChatServer:
    """Serve scripted Chat Completions replies; use as a context manager."""

    def __init__(self, model: str = "test-model") -> None:
        self.model = model
        self.replies: deque[Any] = deque()
        self.received: list[Received] = []
        self.reject_response_formats: set[str] = set()
        self.reject_stream_options = False
        self.reject_tool_choice_required = False
        self.context_size: int | None = None
        """Prompts counted longer than this many tokens are refused with ``overflow_wording``'s words."""
        self.chars_per_token = 4.0
        """How the server counts a prompt's tokens (and reports them in ``usage``): characters of JSON a token."""
        self.overflow_wording = "llama.cpp"
        self.count_reply = False
        """Also refuse a prompt whose ``max_tokens`` would not fit beside it, as vLLM and OpenAI do (llama.cpp
        checks the prompt alone)."""
        self.overflows = 0
        """Requests refused as longer than ``context_size``."""
        self.refuse_tools: tuple[int, str] | None = None
        """(status, message) answered to any request that sends ``tools`` (llama-server without --jinja)."""
        self.require_key: str | None = None
        self.props: dict[str, Any] | None = None
        """The body of ``GET /props`` (llama-server's settings); None answers 404 as other servers do."""
        self.streams: list[Streamed] = []
        """Every streamed reply of ``Text`` or ``Endless``, in order: what was asked for and what was sent."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *replies: Any) -> None:
        with self._lock:
            self.replies.extend(replies)

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.received if r.path.endswith("/chat/completions")]

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        sent = json.dumps(body.get("messages", [])) + (json.dumps(body["tools"]) if body.get("tools") else "")
        return max(1, int(len(sent) / self.chars_per_token))

    def _next(self, request: Received) -> Any:
        with self._lock:
            reply = self.replies.popleft() if self.replies else Failure(500, "chat_server: no scripted reply left")
        while isinstance(reply, Dynamic):
            reply = reply.make(request)
        return reply

    def _refusal(self, request: Received) -> Failure | None:
        body = request.body
        if self.require_key is not None:
            given = request.headers.get("authorization", "")
            if given != f"Bearer {self.require_key}":
                shown = given.removeprefix("Bearer ")
                # OpenAI's own 401 message quotes part of the key; the client must never pass it on.
                return Failure(401, f"Incorrect API key provided: {shown[:6]}***{shown[-4:]} ({shown})")
        response_format = body.get("response_format")
        if isinstance(response_format, dict) and response_format.get("type") in self.reject_response_formats:
            return Failure(400, f"response_format type {response_format['type']!r} is not supported")
        if self.reject_stream_options and "stream_options" in body:
            return Failure(400, "Unrecognized request argument supplied: stream_options")
        if self.context_size is not None and self.prompt_tokens(body) > self.context_size:
            self.overflows += 1
            return Failure(400, _overflow(self.overflow_wording, self.prompt_tokens(body), self.context_size))
        wanted = body.get("max_tokens")
        if self.count_reply and self.context_size is not None and isinstance(wanted, int) \
                and self.prompt_tokens(body) + wanted > self.context_size:
            self.overflows += 1
            return Failure(400, _overflow(self.overflow_wording, self.prompt_tokens(body), self.context_size, wanted))
        if self.refuse_tools is not None and body.get("tools"):
            return Failure(*self.refuse_tools)
        if self.reject_tool_choice_required and body.get("tool_choice") == "required":
            return Failure(400, '"required" tool choice requires --enable-auto-tool-choice')
        return None


def _make_handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            server.received.append(Received(self.path, _headers(self), {}))
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": server.model, "object": "model",
                                                             "created": 0, "owned_by": "test"}]})
            elif self.path.rstrip("/").endswith("/props") and server.props is not None:
                self._json(200, server.props)
            else:
                self._json(404, {"error": {"message": "not found", "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            request = Received(self.path, _headers(self), body)
            server.received.append(request)
            if not self.path.endswith("/chat/completions"):
                self._json(404, {"error": {"message": "not found", "type": "not_found"}})
                return
            reply = server._refusal(request) or server._next(request)
            self._serve(request, reply)

        def _serve(self, request: Received, reply: Any) -> None:
            while isinstance(reply, Delayed):
                if server._stop.wait(reply.seconds):
                    return
                reply = reply.reply
                while isinstance(reply, Dynamic):
                    reply = reply.make(request)
            if isinstance(reply, Dropped):
                self.connection.close()
                self.close_connection = True
                return
            if isinstance(reply, Failure):
                self._json(reply.status, {"error": {"message": reply.message, "type": "scripted",
                                                    "code": reply.status}}, reply.headers)
                return
            if isinstance(reply, RawBody):
                self._raw(200, reply.body.encode(), reply.content_type)
                return
            if isinstance(reply, StreamAnyway):
                self._stream(request, reply.reply)
                return
            if request.body.get("stream") or isinstance(reply, Truncated | RawEvents | KeepAlive):
                self._stream(request, reply)
            else:
                self._json(200, self._completion(request, reply))

        # -------------------------------------------------------------------------------- non-stream

        def _completion(self, request: Received, reply: Any) -> dict[str, Any]:
            message: dict[str, Any] = {"role": "assistant", "content": None}
            finish = "stop"
            if isinstance(reply, Text):
                message["content"] = reply.content
                finish = reply.finish_reason
                completion = reply.content
            elif isinstance(reply, Endless):
                budget = request.body.get("max_tokens")
                completion = reply.word[:4] * (budget if isinstance(budget, int) else reply.limit // 4)
                message["content"] = completion
                finish = "length"
            elif isinstance(reply, ToolCalls):
                message["content"] = reply.content or None
                message["tool_calls"] = [
                    {"id": f"call_{i}", "type": "function",
                     "function": {"name": name, "arguments": _arguments(args)}}
                    for i, (name, args) in enumerate(reply.calls)
                ]
                finish = "tool_calls"
                completion = "".join(_arguments(a) for _, a in reply.calls)
            else:
                raise TypeError(f"chat_server cannot answer a non-stream request with {reply!r}")
            return {
                "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                "model": server.model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": _usage(request, completion, server),
            }

        # -------------------------------------------------------------------------------- stream

        def _stream(self, request: Received, reply: Any) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.send_header("connection", "close")
            self.end_headers()
            include_usage = bool((request.body.get("stream_options") or {}).get("include_usage"))
            asked = request.body.get("max_tokens") or request.body.get("max_completion_tokens")
            counted = Streamed(asked if isinstance(asked, int) else None, 0)
            try:
                if isinstance(reply, Text):
                    pieces = list(_pieces(reply.content, reply.chunk_size))
                    counted.planned = len(pieces)
                    server.streams.append(counted)
                    self._event(_chunk({"role": "assistant", "content": ""}))
                    for piece in pieces:
                        if not self._content(counted, piece, reply.pause):
                            return
                    self._event(_chunk({}, reply.finish_reason))
                    if include_usage and reply.usage:
                        self._event(_usage_chunk(request, reply.content, server))
                elif isinstance(reply, ToolCalls):
                    self._event(_chunk({"role": "assistant"}))
                    for piece in _pieces(reply.content, 8):
                        self._event(_chunk({"content": piece}))
                    for index, (name, args) in enumerate(reply.calls):
                        head: dict[str, Any] = {"id": f"call_{index}", "type": "function",
                                                "function": {"name": name, "arguments": ""}}
                        if reply.with_index:
                            head["index"] = index
                        self._event(_chunk({"tool_calls": [head]}))
                        for piece in _pieces(_arguments(args), reply.fragment_size):
                            fragment: dict[str, Any] = {"function": {"arguments": piece}}
                            if reply.with_index:
                                fragment["index"] = index
                            self._event(_chunk({"tool_calls": [fragment]}))
                    self._event(_chunk({}, "tool_calls"))
                    if include_usage:
                        self._event(_usage_chunk(request, json.dumps([a for _, a in reply.calls]), server))
                elif isinstance(reply, Endless):
                    budget = counted.asked
                    counted.planned = budget if budget is not None else reply.limit // 16
                    server.streams.append(counted)
                    self._event(_chunk({"role": "assistant", "content": ""}))
                    if budget is not None:
                        for number in range(budget):
                            word = reply.start if number == 0 and reply.start else reply.word[:4]
                            if not self._content(counted, word, reply.pause):
                                return
                        self._event(_chunk({}, "length"))
                    else:
                        for piece in _pieces((reply.word * (reply.limit // len(reply.word) + 1))[:reply.limit], 16):
                            self._event(_chunk({"content": piece}))
                        self.wfile.flush()
                        self.close_connection = True
                        return
                elif isinstance(reply, Broken):
                    self._event(_chunk({"role": "assistant", "content": ""}))
                    for piece in _pieces(reply.content, reply.chunk_size):
                        self._event(_chunk({"content": piece}))
                    # Drop the connection without the terminating chunk: the client sees a broken body.
                    self.wfile.flush()
                    self.connection.close()
                    self.close_connection = True
                    return
                elif isinstance(reply, Truncated):
                    self._event(_chunk({"role": "assistant", "content": ""}))
                    for piece in _pieces(reply.content, reply.chunk_size):
                        self._event(_chunk({"content": piece}))
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                elif isinstance(reply, RawEvents):
                    for event in reply.events:
                        self._write_raw(f"data: {event}\n\n".encode())
                    if not reply.done:
                        self.wfile.write(b"0\r\n\r\n")
                        self.wfile.flush()
                        self.close_connection = True
                        return
                elif isinstance(reply, KeepAlive):
                    waited = 0.0
                    while waited < reply.limit and not server._stop.wait(reply.every):
                        waited += reply.every
                        self._write_raw(b": keep-alive\n\n")
                    return
                elif isinstance(reply, StreamError):
                    for piece in _pieces(reply.content, 8):
                        self._event(_chunk({"content": piece}))
                    self._write_event({"error": {"message": reply.message, "type": "server_error"}})
                else:
                    raise TypeError(f"chat_server cannot stream {reply!r}")
                self._write_raw(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
            finally:
                counted.over.set()
            self.close_connection = True

        def _event(self, data: dict[str, Any]) -> None:
            self._write_event(data)

        def _content(self, counted: Streamed, piece: str, pause: float) -> bool:
            """Send one content chunk unless the client has gone; then wait ``pause`` (watching for the
            client closing the connection meanwhile). False when the reply should stop."""
            if self._client_gone(0.0):
                counted.disconnected = True
                return False
            try:
                self._event(_chunk({"content": piece}))
            except OSError:
                counted.disconnected = True
                return False
            counted.sent += 1
            if pause:
                if self._client_gone(pause):
                    counted.disconnected = True
                    return False
                if server._stop.is_set():
                    return False
            return True

        def _client_gone(self, wait: float) -> bool:
            """Whether the client closed the connection (waiting up to ``wait`` seconds to see): it sends
            nothing more on a streaming request, so a readable socket is one at its end."""
            try:
                ready, _, _ = select.select([self.connection], [], [], wait)
                return bool(ready) and self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

        def _write_event(self, data: dict[str, Any]) -> None:
            self._write_raw(f"data: {json.dumps(data)}\n\n".encode())

        def _write_raw(self, payload: bytes) -> None:
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

        def _json(self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._raw(status, json.dumps(data).encode(), "application/json", headers)

        def _raw(self, status: int, payload: bytes, content_type: str,
                 headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(payload)))
            self.send_header("connection", "close")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            try:
                self.wfile.write(payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

    return Handler


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    return {key.lower(): value for key, value in handler.headers.items()}


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), max(1, size)):
        yield text[start:start + size]


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _overflow(wording: str, tokens: int, size: int, reply: int = 0) -> str:
    """A context overflow in the words of each server family (``reply``: the ``max_tokens`` asked for)."""
    return {
        "llama.cpp": f"request ({tokens} tokens) exceeds the available context size ({size} tokens), try "
                     "increasing it",
        "vllm": f"This model's maximum context length is {size} tokens. However, you requested {tokens + reply} "
                f"tokens ({tokens} in the messages, {reply} in the completion). Please reduce the length of the "
                "messages or completion.",
        "openai": f"This model's maximum context length is {size} tokens. However, your messages resulted in "
                  f"{tokens} tokens. Please reduce the length of the messages. (context_length_exceeded)",
        "ollama": f"prompt too long; exceeded max context length by {tokens - size} tokens",
    }[wording]


def _usage(request: Received, completion: str, server: ChatServer | None = None) -> dict[str, int]:
    prompt = (server.prompt_tokens(request.body) if server is not None
              else _rough_tokens(json.dumps(request.body.get("messages", []))))
    done = _rough_tokens(completion)
    return {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}


def _usage_chunk(request: Received, completion: str, server: ChatServer | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": "test-model",
            "choices": [], "usage": _usage(request, completion, server)}
