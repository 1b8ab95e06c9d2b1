"""The compact World IR prompt, for contexts too small for the full one.

The full World IR prompt (``prompts.world_ir_v1``) explains every field and lists the vocabulary with its
descriptions: about 3,000 characters on the tiny world and 4,500 on Brinefall, before the turn itself.
A small local model's 2,048 tokens, at the two characters a token such a model's tokenizer can take, do
not hold that plus the narration plus a reply, and the turn would be committed unrecorded. This variant
says the same in a few lines: the keys as a JSON skeleton (it doubles as the schema when the server
cannot enforce one), the relation names without their descriptions, and the known names without
details. Its text is versioned like every prompt (a recording replays only while it stays the same).
"""

from __future__ import annotations

from collections.abc import Sequence

from game.graph.models import Node
from game.narrator.llm.prompts import Prompt, untrusted
from game.world import World
from game.world.ir import WorldIR
from game.world.scene import SceneState

WORLD_IR_COMPACT = "world-ir-compact/2"

SKELETON = (
    '{"charactersPresent":["name"],"entities":[{"name":"","kind":"character|group|faction|place|item|'
    'skill|concept","summary":"who they are now"}],"relations":[{"source":"","target":"","relation":'
    '"UPPER_SNAKE_CASE","strength":0.5,"fact":"one sentence","evidence":"the narration\'s sentence"}],'
    '"endedRelations":[{"source":"","target":"","relation":"","evidence":""}],"nextCast":["name"],'
    '"location":null}'
)
"""Every key of ``WorldIR`` with the shape of its value (``test_llm_context`` checks it validates)."""


def world_ir_compact_v1(world: World, scene: SceneState, turn: int, player_input: str, narration: str,
                        mentioned: Sequence[Node]) -> Prompt:
    """Step 2 in few words: the same facts asked for, the same sections marked as data."""
    known = [f"{world.player_name} (the player)", *(c.name for c in world.characters)]
    known += [n.name for n in mentioned if n.name not in known]
    system = "\n".join([
        "Write the facts of one story turn as one JSON object for its relationship graph: only what the "
        "narration states or shows, never what the player merely asked for. Reply with JSON only, shaped:",
        SKELETON,
        "strength: -1 (deadly enemy) to 1 (loyal unto death). relations only between characters, groups, "
        "factions. nextCast: who is on stage after the turn, not the player. location: a place name or null.",
        "Relations: " + ", ".join(world.vocabulary.relations),
        "Known names: " + "; ".join(known),
    ])
    place = scene.location or "unknown"
    cast = untrusted(", ".join(scene.cast)) if scene.cast else "nobody but the player character"
    user = (f'<turn number="{turn}">\n<scene>Place: {untrusted(place)}. On stage: {cast}.</scene>\n'
            f"<player-input>\n{untrusted(player_input)}\n</player-input>\n<narration>\n{untrusted(narration)}\n"
            "</narration>\n</turn>")
    return Prompt(WORLD_IR_COMPACT, [{"role": "system", "content": system}, {"role": "user", "content": user}],
                  WorldIR, {"system": len(system), "user": len(user)})
