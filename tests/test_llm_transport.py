"""The wire: timeouts, 429 and 5xx retried by the openai client (a bounded number of times), refused connections, errors mid-stream, the key
(read from the environment, a placeholder for local servers, never in a message or a log)."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator

import pytest
from chat_server import ChatServer, Delayed, Failure, StreamError, Text
from llm_helpers import KEY, collect, llm_settings, narrator, request, seeded_graph, tiny_world

from game.errors import ConfigError, NarratorError
from game.narrator.llm.endpoint import Redactor, is_local_url
from game.narrator.llm.transport import ChatCall, LLMError, OpenAITransport


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_slow_server_times_out_with_a_plain_message(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Delayed(2.0, Text("too late")))
    teller = narrator(world, server.base_url, timeout=0.3)
    with pytest.raises(NarratorError, match=r"did not answer within 0\.3 s"):
        await collect(teller.narrate(request(world, graph, "wait")))
    await teller.aclose()


async def test_rate_limits_and_server_errors_are_retried_by_the_client(server: ChatServer) -> None:
    quick = {"retry-after": "0.01"}
    server.push(Failure(429, "slow down", quick), Failure(502, "bad gateway", quick), Text("Finally."))
    transport = OpenAITransport(llm_settings(server.base_url, retries=2), {})
    chunks = [c async for c in transport.stream(ChatCall("narrate", {"model": "m", "messages": []}))]
    assert any(ch.get("choices") for ch in chunks)
    assert transport.attempts == ["narrate:rate-limit", "narrate:server", "narrate:ok"]
    await transport.aclose()


async def test_retries_stop_at_the_configured_bound(server: ChatServer) -> None:
    server.push(*[Failure(503, "overloaded", {"retry-after": "0.01"}) for _ in range(5)])
    transport = OpenAITransport(llm_settings(server.base_url, retries=2), {})
    with pytest.raises(LLMError, match=r"failed \(HTTP 503\): overloaded") as raised:
        await transport.complete(ChatCall("world-ir", {"model": "m", "messages": []}))
    assert raised.value.kind == "server"
    assert len(server.received) == 3
    assert transport.attempts == ["world-ir:server"] * 3
    await transport.aclose()


async def test_a_servers_retry_after_is_honoured_and_a_huge_one_is_not_waited_for(server: ChatServer) -> None:
    server.push(Failure(429, headers={"retry-after": "0.3"}), Text("ok"))
    transport = OpenAITransport(llm_settings(server.base_url, retries=3), {})
    started = time.monotonic()
    await transport.complete(ChatCall("world-ir", {"model": "m", "messages": []}))
    assert time.monotonic() - started >= 0.3
    server.push(Failure(429, "come back tomorrow", headers={"retry-after": "600"}))
    started = time.monotonic()
    with pytest.raises(LLMError, match="rate-limiting"):
        await transport.complete(ChatCall("world-ir", {"model": "m", "messages": []}))
    assert time.monotonic() - started < 5
    assert transport.attempts == ["world-ir:rate-limit", "world-ir:ok", "world-ir:rate-limit"]
    await transport.aclose()


async def test_a_refused_connection_says_the_server_is_not_running() -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    url = f"http://127.0.0.1:{_free_port()}/v1"
    teller = narrator(world, url, retries=1)
    with pytest.raises(NarratorError, match=r"connection was refused\. Is the server running\?") as raised:
        await collect(teller.narrate(request(world, graph, "look")))
    assert url.removesuffix("/v1") in raised.value.message
    await teller.aclose()


async def test_an_error_event_mid_stream_fails_the_turn(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(StreamError("The lamp", "CUDA out of memory"))
    teller = narrator(world, server.base_url, retries=2)
    with pytest.raises(NarratorError, match="in the middle of the reply: CUDA out of memory"):
        await collect(teller.narrate(request(world, graph, "look")))
    assert len(server.chat_requests) == 1
    await teller.aclose()


async def test_an_unknown_model_is_named_in_the_message(server: ChatServer) -> None:
    server.push(Failure(404, "model 'lama3' not found, try pulling it first"))
    transport = OpenAITransport(llm_settings(server.base_url, model="lama3"), {})
    with pytest.raises(LLMError, match=r"has no model 'lama3'.*try pulling it first"):
        await transport.complete(ChatCall("world-ir", {"model": "lama3", "messages": []}))
    await transport.aclose()


async def test_with_no_model_set_the_servers_first_model_is_used(server: ChatServer) -> None:
    world = tiny_world()
    graph = await seeded_graph(world)
    server.push(Text("Hello."))
    teller = narrator(world, server.base_url, model=None)
    await collect(teller.narrate(request(world, graph, "hello")))
    assert server.chat_requests[0].body["model"] == "test-model"
    await teller.aclose()


async def test_the_key_comes_from_the_named_variable_and_goes_nowhere_else(
        server: ChatServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.require_key = "sk-the-right-one-000000"
    world = tiny_world()
    graph = await seeded_graph(world)
    teller = narrator(world, server.base_url, env={"GAME_KEY": KEY}, api_key_env="GAME_KEY")
    with pytest.raises(NarratorError) as raised:
        await collect(teller.narrate(request(world, graph, "look")))
    assert server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
    message = raised.value.message
    assert "refused the API key (HTTP 401)" in message and "GAME_KEY" in message
    assert KEY not in message and KEY[:10] not in message and KEY[-4:] not in message
    assert KEY not in caplog.text and KEY[-8:] not in caplog.text
    await teller.aclose()


def test_a_remote_endpoint_without_a_key_is_a_settings_error() -> None:
    with pytest.raises(ConfigError, match="set the environment variable OPENAI_API_KEY"):
        OpenAITransport(llm_settings("https://api.example.com/v1"), {})


async def test_a_local_server_needs_no_key(server: ChatServer) -> None:
    server.push(Text("ok"))
    transport = OpenAITransport(llm_settings(server.base_url), {})
    await transport.complete(ChatCall("probe", {"model": "m", "messages": []}))
    assert server.received[0].headers["authorization"] == "Bearer sk-local"
    await transport.aclose()


def test_local_addresses_are_recognized() -> None:
    for url in ("http://localhost:11434/v1", "http://127.0.0.1:8080/v1", "http://192.168.1.20:1234/v1",
                "http://[::1]:8000/v1", "http://gpu-box.local:8000/v1"):
        assert is_local_url(url), url
    for url in ("https://api.openai.com/v1", "https://openrouter.ai/api/v1", None):
        assert not is_local_url(url), url


def test_redaction_removes_keys_and_bearer_tokens() -> None:
    redactor = Redactor([KEY])
    text = f"bad key {KEY}; header Bearer {KEY}; other sk-proj-abcdefgh12345; api_key=hunter2secret"
    cleaned = redactor.clean(text)
    assert KEY not in cleaned and "sk-proj-abcdefgh12345" not in cleaned and "hunter2secret" not in cleaned


async def test_a_read_timeout_of_a_generation_request_is_not_retried(server: ChatServer) -> None:
    """A busy local server is still generating: a second wait would only double the turn (issue 12)."""
    server.push(Delayed(1.0, Text("too late")), Text("second try"))
    transport = OpenAITransport(llm_settings(server.base_url, retries=2, timeout=0.3), {})
    with pytest.raises(LLMError, match=r"did not answer within 0\.3 s") as raised:
        await transport.complete(ChatCall("world-ir", {"model": "test-model", "messages": []}))
    assert raised.value.kind == "timeout"
    assert len(server.chat_requests) == 1
    await transport.aclose()


async def test_a_dropped_connection_is_tried_once_more() -> None:
    """A stale keep-alive connection closed by the server is a connection failure, retried once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    served: list[int] = []

    def serve() -> None:
        # The first connection is closed without a word; the second gets a proper reply.
        for count in range(2):
            connection, _ = listener.accept()
            connection.recv(65536)
            served.append(count)
            if count == 0:
                connection.close()
                continue
            body = (b'{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,'
                    b'"message":{"role":"assistant","content":"Back."},"finish_reason":"stop"}]}')
            connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                               + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)
            connection.close()

    import threading
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    transport = OpenAITransport(llm_settings(f"http://127.0.0.1:{port}/v1", retries=0), {})
    reply = await transport.complete(ChatCall("world-ir", {"model": "m", "messages": []}))
    assert reply["choices"][0]["message"]["content"] == "Back."
    assert served == [0, 1]
    await transport.aclose()
    listener.close()
