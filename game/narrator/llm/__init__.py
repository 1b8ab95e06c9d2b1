"""The model narrator, one module per step of a turn (see ``narrator.py`` for how they fit together).

``narrator`` coordinates; ``narrate`` streams the prose with its tool rounds; ``ir`` asks for the World IR
and repairs it; ``extract`` runs the extractor's tool calls; ``transport`` is the wire; ``record`` stores
and replays sessions; ``capabilities`` learns what a server accepts; ``usage`` and ``tokens`` count; and
``prompts``, ``tools``, ``stream``, ``json_reply`` and ``guard`` are the helpers those steps share.
Importing this package imports nothing heavy: ``openai`` loads only with ``transport``.
"""
