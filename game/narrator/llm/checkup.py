"""The endpoint check both front ends run: ``kith doctor`` (and ``kith llm check``) and the settings
screen's "Test connection". It probes a configured endpoint once (``capabilities.probe``) and says, in
plain words, what works and what the game will do about what does not. It lives under both front ends,
in the narrator's layer, so the UI never imports the command line.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TextIO

from game.text import escape_control

if TYPE_CHECKING:
    from game.config import Settings
    from game.narrator.llm.capabilities import ProbeReport


async def doctor(settings: Settings, out: TextIO, env: dict[str, str] | None = None) -> int:
    """Probe ``settings``' endpoint once, write in plain words what works to ``out``; 0 when narration
    works. ``env``: where the API key is looked up (the process's environment when None)."""
    # Imported here: openai takes most of a second to import, and the settings screen loads this module
    # with the app.
    from game.narrator.llm.capabilities import probe, read_props
    from game.narrator.llm.endpoint import display_url, is_local_url
    from game.narrator.llm.transport import LLMError, OpenAITransport

    llm = settings.llm
    escaped = _Escaped(out)
    say = escaped.write
    if not (llm.base_url or llm.model):
        say("No model endpoint is configured, so Kith plays with its offline narrator.\n"
            "To use a model, give --base-url and --model (or OPENAI_BASE_URL and KITH_MODEL, or [llm] in "
            "kith.toml); see docs/llm.md.\n")
        return 1
    environment = dict(os.environ) if env is None else env
    key_words = (f"key from ${llm.api_key_env}" if environment.get(llm.api_key_env)
                 else "no key needed for a local server" if is_local_url(llm.base_url)
                 else f"no key in ${llm.api_key_env}")
    say(f"Endpoint  {display_url(llm.base_url)} ({key_words})\n")
    transport = OpenAITransport(llm.model_copy(update={"retries": 0}), environment)
    try:
        # llama-server describes itself at /props (context size, tool support); other servers answer 404.
        props = await read_props(llm.base_url)
        report = await probe(transport, display_url(llm.base_url), llm.narration_model, props=props,
                             context_size=llm.context_size)
    except LLMError as error:
        say(f"  ✗ {error.message}\n")
        return 1
    finally:
        await transport.aclose()
    _print_report(report, settings, escaped)
    return 0 if report.narration_works else 1


class _Escaped:
    """``out`` with every control character shown as an escape: the report quotes the server (its model
    ids, its error words, its replies), and a server's escape sequence must not retitle or clear the
    player's terminal. Escaped, not dropped: a model id that holds one is shown as it really is."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def write(self, text: str) -> int:
        return self._out.write(escape_control(text))


def _print_report(report: ProbeReport, settings: Settings, out: _Escaped) -> None:
    say = out.write
    say(f"Model     {report.model or '(none)'}\n")
    for check in report.checks:
        say(f"  {'✓' if check.ok else '✗'} {check.name}: {check.words}\n")
    if not report.narration_works:
        say("\nNarration does not work with this endpoint yet; Kith cannot tell turns with it.\n")
        return
    plan = ["the narrator streams the story"]
    plan.append("looks characters up with tools" if report.passed("tools") else "tells turns without character lookups")
    if settings.llm.extraction == "world-ir":
        plan.append("relations are recorded from each turn's World IR (extraction = \"world-ir\")")
    elif report.tools_refused or not settings.llm.tools:
        # The narrator turns tools off on a refusal (or by the setting) and records relations from the World IR.
        plan.append("relations are recorded from each turn's World IR (tools are off)")
    elif report.passed("tools"):
        plan.append("the extractor records relations through tool calls"
                    + ("" if report.passed("tool_choice") else ", insisting when tool_choice is ignored"))
    else:
        plan.append("graph updates will fail: set extraction = \"world-ir\" under [llm]")
    structured = next((name for name in ("json_schema", "json_object", "plain JSON") if report.passed(name)), None)
    plan.append(f"the World IR step uses {structured}" if structured else "the World IR step may fail")
    say("\nNarration works. Kith will use: " + "; ".join(plan) + ".\n")
    if report.recommended:
        say("\nRecommended settings (under [llm] in kith.toml):\n"
            + "".join(f"  {line}\n" for line in report.recommended))
    else:
        say("\nThe default settings suit this endpoint.\n")
