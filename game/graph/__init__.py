"""The relationship graph: models, names, vocabulary, upsert, retrieval and rendering.

Nothing here imports the store, the engine or the UI: the graph depends only on its own models.
"""
