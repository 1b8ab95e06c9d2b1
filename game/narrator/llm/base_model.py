"""A base model with no chat template: how it is recognised, and the one sentence that says so.

A base model (pretrained only, not tuned to follow instructions) ships no chat template. llama-server
then formats the conversation with its built-in ChatML template, whose end marker ``<|im_end|>`` is no
token of that model's: the model never stops by itself, writes the template's markers as text, and
often begins its reply with one (having seen the pattern in the prompt). Nothing Kith asks of it can
work: every narration comes back empty, and "try again" only fails again. So ``kith doctor`` says it
plainly, and the game's first failed turn on such a model says the same, once.

Two signs, either enough: llama-server's ``GET /props`` has no template, or ChatML while the model's own
end token is not ``<|im_end|>``; or a reply holds a chat-template marker written as text (a chat model's
template turns its markers into tokens, never text).
"""

from __future__ import annotations

from typing import Any

from game.narrator.llm.guard import TEMPLATE_MARKERS

INSTEAD = ("use an instruction-tuned chat model instead (the -instruct, -chat or -it build of the same "
           "model), or give the server the model's chat template (llama-server --chat-template-file)")

BASE_MODEL = ("The model looks like a base model with no chat template (it writes the chat template's turn "
              f"markers as text instead of answering), so it cannot tell the story: {INSTEAD}.")
"""The one sentence, for ``kith doctor`` and for the game's first failed turn on such a model."""

AGAIN = ("The model again wrote nothing but chat-template markers: it is a base model with no chat template "
         "(see above), and trying again will not help.")
"""The game's later failed turns on the same model: short, and no "try again"."""

ECHOED = ("The model wrote Kith's own prompt blocks (<turn-context>, <scene>, <mind> ...) back instead of "
          "telling the turn: it continues the prompt rather than answering it, as a base model does, so it "
          f"cannot tell the story: {INSTEAD}.")
"""The game's first turn whose reply was nothing but the prompt written back (no chat-template marker)."""

ECHOED_AGAIN = ("The model again wrote Kith's prompt blocks back instead of a story (see above), and trying again "
                "will not help.")

CHATML_END = "<|im_end|>"


def props_without_template(data: Any) -> bool:
    """Whether llama-server's ``/props`` says the model has no chat template of its own: none at all, or
    the server's ChatML fallback for a model whose end token is something else (``<eos>``)."""
    if not isinstance(data, dict) or "chat_template" not in data:
        return False  # another server, or a llama-server too old to say
    template = data.get("chat_template")
    if not isinstance(template, str) or not template.strip():
        return True
    eos = data.get("eos_token")
    return CHATML_END in template and isinstance(eos, str) and bool(eos) and eos != CHATML_END \
        and "tool" not in template  # a model's own ChatML template (Qwen's) says what to do with tools


def writes_markers(text: str) -> bool:
    """Whether a reply holds a chat-template marker written as text."""
    return TEMPLATE_MARKERS.search(text) is not None
