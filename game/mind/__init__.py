"""An NPC's mind: attitudes toward the player, memories of the player, and the narrator's budgeted context.

It sits under the story engine (which reads it to choose what a character says) and over the world and
the graph it is made from. Nothing here imports Textual, the narrators or the engine.
"""
