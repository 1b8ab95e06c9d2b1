"""The story so far: the player's commands, narration streamed as Markdown, and the game's own output
(meta commands, notices, failures) set apart so story and game never blur."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownStream


def _markdown(source: str, *, meta: bool = False) -> Widget:
    # Textual's Markdown is imported when the first story text arrives, not before the first frame.
    from game.ui.story_blocks import MetaBlock, StoryBlock

    return MetaBlock(source, classes="meta") if meta else StoryBlock(source, classes="story")


MAX_ENTRIES = 400
"""Older entries are dropped from the screen (the save keeps every turn)."""


class StoryLog(VerticalScroll, can_focus=False):
    """The story pane. Its entries are widget classes of their own (``story_lines``, ``story_blocks``),
    imported with the first entry of each kind: their classes and CSS are not the first frame's work."""

    DEFAULT_CSS = """
    StoryLog {
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._turns: dict[int, list[Widget]] = {}
        """The entries each committed turn put on screen, so undo can take exactly those back."""

    def on_mount(self) -> None:
        self.anchor()

    def belongs_to(self, turn: int, first: Widget) -> None:
        """Everything from ``first`` (the turn's command) to the end is turn ``turn``'s."""
        children = list(self.children)
        if first in children:
            self._turns[turn] = children[children.index(first):]

    async def take_back(self, after: int) -> None:
        """Undo: the turns after ``after`` are no longer part of the story, so they leave the screen.
        What was said between them that was not a turn (help, a save) stays: it did happen."""
        undone = [turn for turn in self._turns if turn > after]
        widgets = [w for turn in undone for w in self._turns.pop(turn) if w.parent is self]
        await self.remove_children(widgets)

    def forget_turns(self) -> None:
        """After restore or restart the numbers on screen no longer name the save's turns."""
        self._turns.clear()

    async def _add(self, widget: Widget, *, before: Widget | None = None) -> None:
        await self.mount(widget, before=before)
        excess = len(self.children) - MAX_ENTRIES
        if excess > 0:
            await self.remove_children(list(self.children)[:excess])
            # Turns scrolled off the top are gone from the screen: undo has nothing of theirs to take back.
            self._turns = {turn: kept for turn, widgets in self._turns.items()
                           if (kept := [w for w in widgets if w.parent is self])}

    async def add_command(self, text: str) -> Widget:
        """The player's line; returned so the turn it starts can be marked as the line's (``belongs_to``)."""
        from game.ui.story_lines import CommandLine  # each line class is defined when first needed

        line = CommandLine(f"> {text}", classes="command")
        await self._add(line)
        return line

    async def add_story(self, markdown: str, *, before: Widget | None = None) -> Widget:
        """A block of narration (at the end, or ``before`` an entry); the caller keeps it to take it back
        if the turn is not saved."""
        block = _markdown(markdown)
        await self._add(block, before=before)
        return block

    def first_change_after(self, entry: Widget) -> Widget | None:
        """The first line of graph changes below ``entry`` (a turn's command line), if any."""
        from game.ui.story_lines import ChangeLine

        children = list(self.children)
        if entry not in children:
            return None
        return next((child for child in children[children.index(entry) + 1:] if isinstance(child, ChangeLine)), None)

    async def start_story(self) -> tuple[Widget, MarkdownStream]:
        """An empty story block and a stream that appends narration to it as it arrives."""
        from game.ui.story_blocks import StoryBlock

        block = StoryBlock("", classes="story")
        await self._add(block)
        return block, StoryBlock.get_stream(block)

    async def discard(self, blocks: list[Widget]) -> None:
        """Take narration back off the screen: a turn that was not saved is not part of the story."""
        await self.remove_children([block for block in blocks if block.parent is self])

    async def add_meta(self, markdown: str) -> None:
        await self._add(_markdown(markdown, meta=True))

    async def add_changes(self, lines: list[str]) -> None:
        """What the turn changed in who-is-what-to-whom, in one quiet line each."""
        from game.ui.story_lines import ChangeLine

        for line in lines:
            await self._add(ChangeLine(f"◆ {line}", classes="change"))

    async def add_failure(self, message: str) -> None:
        from game.ui.story_lines import FailureLine

        await self._add(FailureLine(message, classes="failure"))

    async def add_warning(self, message: str) -> None:
        """A warning kept with the turn it belongs to (relations not updated, a close refused), not only a toast."""
        from game.ui.story_lines import WarningLine

        await self._add(WarningLine(message, classes="warning"))

    async def add_cancelled(self, message: str) -> None:
        from game.ui.story_lines import CancelledLine

        await self._add(CancelledLine(message, classes="cancelled"))

    async def add_ending(self, title: str) -> None:
        from game.ui.story_lines import EndingLine

        await self._add(EndingLine(f"— {title} —", classes="ending"))

    async def clear(self) -> None:
        self._turns.clear()
        await self.remove_children()

    def plain_text(self) -> str:
        """Everything shown, as text (for tests and copying)."""
        from textual.widgets import Markdown

        parts: list[str] = []
        for child in self.children:
            if isinstance(child, Markdown):
                parts.append(child.source)
            elif isinstance(child, Static):
                parts.append(str(child.content))
        return "\n".join(parts)
