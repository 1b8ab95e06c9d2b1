"""One SQLite file per save: opening and refusing files, migrations, the graph's tables, turns and undo.

The store knows tables, not prompts: it imports the graph's models and nothing above them.
"""
