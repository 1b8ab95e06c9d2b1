"""The narrator's budgeted context: the sections providers give and the orchestrator that fits them in.

It sits under the features (whose sections it composes: RELATIONSHIP, MEMORY, DEEDS...) and over the
world and the graph it is made from. How people regard the player and what they remember are the
attitudes' and memories' feature packages (game/features/). Nothing here imports Textual, the narrators or
the engine.
"""
