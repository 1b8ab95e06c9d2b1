"""What a merge leaves to follow: a tier change it causes is said, no name or ID of the merged person is
left behind, and a save from before the mind's tables does not greet everyone as a stranger again.

Real saves in tmp folders, played through the real session (the tiny fixture world, the offline narrator
whose memory update names a newcomer, "Keeper Marsh", as a model's extractor would: ``test_mind_merge``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.play import collect, text_of
from test_mind_merge import FIXTURES, Witnessed

from game.config import load_settings
from game.engine.events import AttitudeChanged
from game.engine.session import GameSession
from game.world import load_world

EDDA_COLD = "Edda keeps her back to you and her hands on the wick."
FALLS = "{name} will not look at you now."


def lined_world(tmp_path: Path) -> Path:
    """The tiny world with what a tier change says (the world's line) and Edda's own cold line."""
    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "tiny", content / "tiny")
    world = content / "tiny" / "world.toml"
    world.write_text(world.read_text(encoding="utf-8") + f'\n[world.tier_changes]\nUNFRIENDLY = "{FALLS}"\n',
                     encoding="utf-8")
    characters = content / "tiny" / "characters.toml"
    text = characters.read_text(encoding="utf-8")
    marker = 'unknown = "Edda shrugs.'
    assert marker in text
    text = text.replace(marker, f'tiers = {{ UNFRIENDLY = "{EDDA_COLD}" }}\n{marker}', 1)
    characters.write_text(text, encoding="utf-8")
    return content


async def start_lined(tmp_path: Path) -> GameSession:
    content = lined_world(tmp_path)
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": content}, env={})
    return await GameSession.open(settings, save="game", new=True, world="tiny",
                                  narrator=Witnessed(load_world(content, "tiny")))


async def test_a_yes_that_changes_the_kept_persons_tier_says_so(tmp_path: Path) -> None:
    session = await start_lined(tmp_path)
    try:
        await collect(session, "look")  # turn 1: the keeper (who distrusts the player) is met
        edda = session.graph.nodes["npc-edda-marsh"]
        assert session.attitudes.of(edda).tier == "NEUTRAL"
        await collect(session, "wait")  # turn 2: "is Keeper Marsh Edda Marsh?"
        events = await collect(session, "yes")
        changed = [e for e in events if isinstance(e, AttitudeChanged)]
        assert [(e.turn, e.name, e.before, e.after) for e in changed] == [(3, "Edda Marsh", "NEUTRAL", "UNFRIENDLY")]
        assert changed[0].line == "Edda will not look at you now."  # she is on the stair with the player
        # The world holds it too: her ordinary replies show the cold tier from the next turn on.
        talk = text_of(await collect(session, "talk to Edda"))
        assert EDDA_COLD in talk and "Mind the rail" not in talk
        # Undo takes the merge back, and her tier with it.
        await collect(session, "undo")
        await collect(session, "undo")
        assert session.attitudes.of(session.graph.nodes["npc-edda-marsh"]).tier == "NEUTRAL"
    finally:
        await session.close()
