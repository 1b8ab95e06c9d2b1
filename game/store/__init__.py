"""One SQLite file per save: opening and refusing files, migrations, the graph's tables, turns and undo.

The store knows tables, not prompts: it imports the graph's models and nothing above them.

- ``connection``: recognising, creating (under a temporary name) and opening save files.
- ``lock``: one writing process per save (an advisory ``flock`` held while a game is open).
- ``database``: ``SaveDatabase``, one open save: its connection, transactions, meta, a turn's writes, undo.
- ``turn_log``, ``enrichment``, ``node_identity``, ``layout``: faces that take the open save (the turn log
  read back; the enrichment queue; merges, aliases and the merge log; the map's kept layout).
- ``graph_sql``: every read of the graph's tables, once; ``graph_repo``: rows as models, the readers over a
  save (``SqlGraph``, ``SqlGraphSource``) and writing the graph's rows; ``graph_view``: the reads as records.
- ``journal``: before-images per turn.
- ``undo``: undoing a turn: its journal folded and put back a table and kind at a time.
- ``merge_log``: the merge log and applying a merge plan (decided in ``game.graph.merge_plan``).
- ``snapshots``: ``save NAME`` / ``restart`` snapshots and restoring one into an open save.
- ``saves``: save names, listing, copying and deleting in the saves folder.
- ``check``: ``kith saves check``; ``damage``: one message for a damaged save.
- ``migrations``: the append-only schema.
"""
