"""``kith doctor`` (also ``kith llm check``): probe the configured model endpoint once and say, in plain
words, what works.

Also home of the endpoint flags every command shares (``--base-url``, ``--model``, ``--api-key-env``
and, for commands that play, ``--record FILE``), so ``play``, ``run`` and ``doctor`` add them the same way.
Exit status: 0 when narration works (the server answers and streams), 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from game.errors import InputError

if TYPE_CHECKING:
    from game.config import Settings
    from game.narrator.llm.capabilities import ProbeReport


def llm_flag_arguments(parser: argparse.ArgumentParser, *, record: bool = True) -> None:
    """Add the endpoint flags; ``record`` adds ``--record FILE`` and ``--record-full`` for commands that play."""
    group = parser.add_argument_group("model endpoint (see docs/llm.md)")
    group.add_argument("--base-url", metavar="URL",
                       help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default: none, offline)")
    group.add_argument("--model", metavar="NAME", help="model name for every step")
    group.add_argument("--api-key-env", metavar="VAR",
                       help="environment variable holding the API key (default: OPENAI_API_KEY)")
    if record:
        group.add_argument("--record", type=Path, metavar="FILE",
                           help="store this session's model exchanges in FILE (JSONL) for replay")
        group.add_argument("--record-full", action="store_true",
                           help="with --record, also keep each request and reply in full (the key masked)")


def llm_settings_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The endpoint flags given, nested like ``kith.toml`` (``{"llm": {...}}``), for settings precedence.

    ``--record`` is not a setting: the command that plays reads ``args.record`` and passes it on;
    ``--record-full`` is (``record_full``), and only means something with ``--record``."""
    llm: dict[str, Any] = {}
    if getattr(args, "record_full", False):
        if getattr(args, "record", None) is None:
            raise InputError("--record-full keeps whole requests and replies in the recording: give --record "
                             "FILE as well.")
        llm["record_full"] = True
    for flag, key in (("base_url", "base_url"), ("model", "model"), ("api_key_env", "api_key_env")):
        value = getattr(args, flag, None)
        if value:
            llm[key] = value
    return {"llm": llm} if llm else {}


DOCTOR_DESCRIPTION = ("Probe the configured OpenAI-compatible endpoint once (five to seven small requests) and "
                      "report what works and which fallbacks the game will use. Exit 0 when narration works.")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check the model endpoint: streaming, tools, tool_choice, structured output",
        description=DOCTOR_DESCRIPTION,
    )
    _doctor_arguments(parser)
    # ``kith llm check`` is the same command under a second name, for players who look under ``llm``; one
    # handler, one set of flags, so the two can never report differently.
    llm = subparsers.add_parser("llm", help="model endpoint commands: 'kith llm check' is 'kith doctor'",
                                description="Commands about the model endpoint (see docs/llm.md).")
    actions = llm.add_subparsers(dest="llm_command", metavar="SUBCOMMAND", required=True)
    check = actions.add_parser("check", help="the same as 'kith doctor'", description=DOCTOR_DESCRIPTION)
    _doctor_arguments(check)


def _doctor_arguments(parser: argparse.ArgumentParser) -> None:
    llm_flag_arguments(parser, record=False)
    parser.set_defaults(handler=run_doctor, settings_flags=llm_settings_flags)


def run_doctor(args: argparse.Namespace, settings: Settings, out: TextIO | None = None) -> int:
    import asyncio  # here: every playing command adds this module's flags, and most never probe

    from game.cli.worlds import folder_lines

    out = out or sys.stdout
    code = asyncio.run(doctor(settings, out))
    # Where things are, endpoint or not: most "where did my save go" questions are answered by this.
    out.write("\nFolders\n" + "".join(f"  {line}\n" for line in folder_lines(settings)))
    return code


async def doctor(settings: Settings, out: TextIO, env: dict[str, str] | None = None) -> int:
    # Imported here: openai takes most of a second to import, and every other kith command loads this
    # module for its flags.
    from game.narrator.llm.capabilities import probe, read_props
    from game.narrator.llm.endpoint import display_url, is_local_url
    from game.narrator.llm.transport import LLMError, OpenAITransport

    llm = settings.llm
    say = out.write
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
    _print_report(report, settings, out)
    return 0 if report.narration_works else 1


def _print_report(report: ProbeReport, settings: Settings, out: TextIO) -> None:
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
        plan.append("memory is recorded from each turn's World IR (extraction = \"world-ir\")")
    elif report.tools_refused or not settings.llm.tools:
        # The narrator turns tools off on a refusal (or by the setting) and keeps memory from the World IR.
        plan.append("memory is recorded from each turn's World IR (tools are off)")
    elif report.passed("tools"):
        plan.append("the extractor records memory through tool calls"
                    + ("" if report.passed("tool_choice") else ", insisting when tool_choice is ignored"))
    else:
        plan.append("memory updates will fail: set extraction = \"world-ir\" under [llm]")
    structured = next((name for name in ("json_schema", "json_object", "plain JSON") if report.passed(name)), None)
    plan.append(f"the World IR step uses {structured}" if structured else "the World IR step may fail")
    say("\nNarration works. Kith will use: " + "; ".join(plan) + ".\n")
    if report.recommended:
        say("\nRecommended settings (under [llm] in kith.toml):\n"
            + "".join(f"  {line}\n" for line in report.recommended))
    else:
        say("\nThe default settings suit this endpoint.\n")
