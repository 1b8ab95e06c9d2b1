"""The wire to an OpenAI-compatible endpoint: one place for the client, the key, retries and errors.

Everything above this module speaks plain dicts (a completion, or the chunks of a stream), so a session
can be recorded and replayed without a server (``record``). The client is ``openai.AsyncOpenAI`` and
it retries answers that ask for it (429, 408, 409, 5xx, with its own backoff and a server's Retry-After),
``retries`` times; a retry can only happen before any part of a reply reached the player, because the
client retries only until a response starts. Below it, ``_OnceTransport`` decides the failures that got no
answer at all: a read timeout of a generation request is never retried (a local server is most likely
still generating, and a second wait only doubles the turn), and a connection that failed or was dropped
(a stale keep-alive) is tried once more. Each HTTP
attempt is logged in ``attempts`` through the HTTP client's event hooks. Every error leaves as an
``LLMError`` (a ``NarratorError``) whose message is plain words and never holds the key: servers' own
messages pass through ``Redactor`` first, and for a refused key the server's words are not repeated at
all (OpenAI's 401 quotes part of the key). A reply of the wrong shape (not JSON, not an object, a stream
where a whole reply was asked for) is an ``LLMError`` of kind ``protocol``, never an exception of the
client's own.
"""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx2
import openai

from game.config import LLMSettings
from game.errors import ConfigError, NarratorError
from game.narrator.llm.endpoint import OPENAI_URL, Redactor, display_url, resolve_api_key, short_host

MAX_ERROR_CHARS = 240
CONTEXT_OVERFLOW = re.compile(
    r"(?i)exceeds? the (?:available )?context|context[_ ]length[_ ]exceeded|maximum context length"
    r"|context (?:length|size|window) (?:is )?(?:exceeded|too small)|exceeds (?:the )?(?:maximum )?context length"
    r"|prompt (?:is )?too long|too many tokens|input length exceeds|exceeded max(?:imum)? context")
"""How servers say a prompt does not fit: llama.cpp "request (8228 tokens) exceeds the available context
size (8192 tokens)", vLLM and OpenAI "maximum context length is ... tokens" / ``context_length_exceeded``,
Ollama "prompt too long; exceeded max context length by N tokens"."""


class LLMError(NarratorError):
    """A request that failed. ``kind`` says how: timeout, refused, connection, rate-limit, server, auth,
    not-found, bad-request, context (the prompt does not fit the server's context), length (a reply cut
    at ``max_tokens`` twice), stream (broke after part of the reply arrived) or protocol (unreadable reply).
    """

    def __init__(self, message: str, kind: str, *, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.detail = detail
        """The server's own (redacted) words, used to decide which feature a 400 refused."""

    def to_json_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "status": self.status, "detail": self.detail}

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> LLMError:
        return cls(str(data.get("message", "")), str(data.get("kind", "server")),
                   status=data.get("status"), detail=str(data.get("detail", "")))


@dataclass(frozen=True)
class ChatCall:
    """One request: which step of the turn makes it and the ``chat.completions.create`` arguments."""

    step: str
    params: dict[str, Any]

    @property
    def stream(self) -> bool:
        return bool(self.params.get("stream"))


class Transport(Protocol):
    """Where requests go: a live endpoint, a recorder around one, or a replayed recording."""

    @property
    def label(self) -> str: ...

    def stream(self, call: ChatCall) -> AsyncGenerator[dict[str, Any], None]:
        """The chunks of a streamed reply, as JSON dicts."""
        ...

    async def complete(self, call: ChatCall) -> dict[str, Any]:
        """A whole reply, as a JSON dict."""
        ...

    async def models(self) -> list[str]:
        """The model names the server offers (empty when it cannot say)."""
        ...

    @property
    def redactor(self) -> Redactor:
        """Masks the secrets this transport knows (none for a replay) in what the server sent."""
        ...

    async def aclose(self) -> None: ...


# ------------------------------------------------------------------------------------------ replies


def first_message(completion: Any) -> dict[str, Any]:
    """The first choice's message of a non-streamed completion, or ``{}`` when the server sent none (or
    sent something of another shape: ``"choices": {"a": 1}`` is as good as no choice)."""
    choices = completion.get("choices") if isinstance(completion, dict) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict) \
            and isinstance(choices[0].get("message"), dict):
        message: dict[str, Any] = choices[0]["message"]
        return message
    return {}


# ------------------------------------------------------------------------------------------ live endpoint

_STEP: contextvars.ContextVar[str] = contextvars.ContextVar("kith_llm_step", default="request")
"""The step whose request is in flight, read by the HTTP hooks that log each attempt."""


@dataclass
class OpenAITransport:
    """Requests to a live endpoint through ``openai.AsyncOpenAI``, which retries ``retries`` times."""

    settings: LLMSettings
    env: Mapping[str, str]
    attempts: list[str] = field(default_factory=list)
    """One entry per HTTP attempt (``step:outcome``), for figures and tests of the retry bound."""

    def __post_init__(self) -> None:
        key = resolve_api_key(self.settings, self.env)
        self._redactor = Redactor([key])
        self.endpoint = display_url(self.settings.base_url)
        self._open: list[int] = []
        """Positions in ``attempts`` of requests sent whose outcome is not known yet."""
        try:
            self._client = openai.AsyncOpenAI(
                api_key=key,
                base_url=self.settings.base_url or OPENAI_URL,
                timeout=self.settings.timeout,
                max_retries=self.settings.retries,
                http_client=openai.DefaultAsyncHttpxClient(
                    transport=_OnceTransport(httpx2.AsyncHTTPTransport()),
                    event_hooks={"request": [self._sent], "response": [self._answered]}),
            )
        except httpx2.InvalidURL:
            # Settings validation refuses these first; this is for settings built around it. The client's
            # words quote the URL, password included, so they are not passed on.
            raise ConfigError(f"The base URL {self.endpoint} cannot be used: the HTTP client refuses it "
                              "(kith doctor says more once it is fixed).") from None

    @property
    def label(self) -> str:
        return short_host(self.settings.base_url)

    @property
    def redactor(self) -> Redactor:
        return self._redactor

    # -------------------------------------------------------------------------------------- attempts

    async def _sent(self, request: Any) -> None:
        self._open.append(len(self.attempts))
        self.attempts.append(f"{_STEP.get()}:sent")

    async def _answered(self, response: Any) -> None:
        if self._open:
            self.attempts[self._open.pop()] = f"{_STEP.get()}:{_status_kind(int(response.status_code))}"

    def _settle(self, step: str, kind: str) -> None:
        """Attempts that got no response (a timeout, a refused or dropped connection) end as ``kind``;
        a failure after the response began (a stream that broke) is the last attempt's outcome."""
        if self._open:
            for position in self._open:
                self.attempts[position] = f"{step}:{kind}"
            self._open.clear()
        elif kind != "ok" and self.attempts:
            self.attempts[-1] = f"{step}:{kind}"

    # -------------------------------------------------------------------------------------- requests

    async def complete(self, call: ChatCall) -> dict[str, Any]:
        token = _STEP.set(call.step)
        try:
            response = await self._client.chat.completions.create(**{**call.params, "stream": False})
            data = response.to_dict(warnings=False) if isinstance(response, openai.BaseModel) else response
        except openai.OpenAIError as error:
            failure = self.translate(error, call, mid_stream=False)
        except (json.JSONDecodeError, UnicodeDecodeError):
            failure = LLMError(f"The model server at {self.endpoint} sent a reply that is not JSON.", "protocol")
        else:
            if isinstance(data, dict):
                self._settle(call.step, "ok")
                return data
            failure = LLMError(f"The model server at {self.endpoint} sent a reply that is not a chat completion"
                               + (" (it streamed when asked for a whole reply)." if _looks_streamed(data) else "."),
                               "protocol")
        finally:
            _STEP.reset(token)
        self._settle(call.step, failure.kind)
        raise failure

    async def stream(self, call: ChatCall) -> AsyncGenerator[dict[str, Any], None]:
        token = _STEP.set(call.step)
        delivered = False
        try:
            reply = await self._client.chat.completions.create(**{**call.params, "stream": True})
            if not isinstance(reply, openai.AsyncStream):
                raise LLMError(f"The model server at {self.endpoint} sent a whole reply when asked to stream it.",
                               "protocol")
            async with reply:
                async for chunk in reply:
                    delivered = True
                    yield chunk.to_dict(warnings=False) if isinstance(chunk, openai.BaseModel) else chunk
        except openai.OpenAIError as error:
            failure = self.translate(error, call, mid_stream=delivered)
        except (json.JSONDecodeError, UnicodeDecodeError):
            failure = LLMError(f"The model server at {self.endpoint} sent a stream event that is not JSON.",
                               "protocol")
        except LLMError as error:
            failure = error
        else:
            self._settle(call.step, "ok")
            return
        finally:
            _STEP.reset(token)
        self._settle(call.step, failure.kind)
        raise failure

    async def models(self) -> list[str]:
        try:
            page = await self._client.models.list()
        except openai.OpenAIError as error:
            raise self.translate(error, ChatCall("models", {}), mid_stream=False) from None
        return [str(model.id) for model in page.data]

    async def aclose(self) -> None:
        await self._client.close()

    # -------------------------------------------------------------------------------------- errors

    def translate(self, error: openai.OpenAIError, call: ChatCall, *, mid_stream: bool) -> LLMError:
        """A plain, key-free message for what went wrong."""
        where = self.endpoint
        model = call.params.get("model") or "the default model"
        if isinstance(error, openai.APITimeoutError):
            if mid_stream:
                return LLMError(f"The model server at {where} stopped sending its reply for more than "
                                f"{self.settings.timeout:g} s.", "stream")
            return LLMError(f"The model server at {where} did not answer within {self.settings.timeout:g} s "
                            "(timeout under [llm] in kith.toml).", "timeout")
        if isinstance(error, openai.APIConnectionError):
            if mid_stream:
                return LLMError(f"The connection to the model server at {where} broke in the middle of the "
                                "reply.", "stream")
            if _refused(error):
                return LLMError(f"Cannot reach the model server at {where}: the connection was refused. "
                                "Is the server running?", "refused")
            return LLMError(f"Cannot reach the model server at {where} ({_cause_name(error)}).", "connection")
        if isinstance(error, openai.APIStatusError):
            status = error.status_code
            detail = self._redactor.clean(_server_message(error))[:MAX_ERROR_CHARS]
            if status in (400, 413, 500) and CONTEXT_OVERFLOW.search(f"{detail} {error.message}"):
                return LLMError(f"The model server at {where} refused the request as longer than its context "
                                f"(HTTP {status}): {detail}", "context", status=status, detail=detail)
            if status in (401, 403):
                return LLMError(
                    f"The model server at {where} refused the API key (HTTP {status}). Check the key in the "
                    f"environment variable {self.settings.api_key_env}.", "auth", status=status)
            if status == 404:
                return LLMError(f"The model server at {where} has no model {model!r} or no chat completions "
                                f"endpoint (HTTP 404): {detail}", "not-found", status=status, detail=detail)
            if status == 429:
                return LLMError(f"The model server at {where} is rate-limiting requests (HTTP 429); try again "
                                "in a moment.", "rate-limit", status=status, detail=detail)
            if status in (408, 409) or status >= 500:
                return LLMError(f"The model server at {where} failed (HTTP {status}): {detail}", "server",
                                status=status, detail=detail)
            return LLMError(f"The model server at {where} rejected the request (HTTP {status}): {detail}",
                            "bad-request", status=status, detail=detail)
        if isinstance(error, openai.APIError):
            detail = self._redactor.clean(str(error.message))[:MAX_ERROR_CHARS]
            if mid_stream:
                return LLMError(f"The model server at {where} reported an error in the middle of the reply: "
                                f"{detail}", "stream", detail=detail)
            return LLMError(f"The model server at {where} reported an error: {detail}", "server", detail=detail)
        return LLMError(f"The request to {where} failed ({type(error).__name__}).", "connection")


class _OnceTransport(httpx2.AsyncBaseTransport):
    """The HTTP transport with Kith's rule for failures that got no answer (see the module's docstring).

    The errors leave as the client's own ``APITimeoutError`` / ``APIConnectionError``, which it passes on
    without retrying, so its ``retries`` apply to answered requests only.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        for attempt in range(2):
            try:
                return await self._inner.handle_async_request(request)
            except httpx2.ReadTimeout as error:
                if request.method == "POST":
                    raise openai.APITimeoutError(request=request) from error
                if attempt:
                    raise
            except (httpx2.ConnectError, httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError,
                    httpx2.ConnectTimeout) as error:
                if attempt:
                    raise openai.APIConnectionError(request=request) from error
        raise AssertionError("unreachable")  # pragma: no cover

    async def aclose(self) -> None:
        await self._inner.aclose()


def _status_kind(status: int) -> str:
    if status < 400:
        return "ok"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not-found"
    if status == 429:
        return "rate-limit"
    if status in (408, 409) or status >= 500:
        return "server"
    return "bad-request"


def _looks_streamed(data: Any) -> bool:
    return isinstance(data, str) and data.lstrip().startswith(("data:", "event:", ":"))


def _refused(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        text = str(current).lower()
        if "connection refused" in text or "connect call failed" in text or "errno 111" in text:
            return True
        current = current.__cause__ or current.__context__
    return False


def _cause_name(error: BaseException) -> str:
    cause = error.__cause__ or error.__context__
    return type(cause).__name__ if cause is not None else "connection error"


def _server_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        if isinstance(body.get("detail"), str):
            return str(body["detail"])
    if isinstance(body, str):
        return body
    return str(error.message)
