"""The offline interactive-fiction engine: a parser-based story over a world in ``content/``.

``turn.tell`` tells one turn; ``narrator/offline.py`` adapts it to the narrator interface. The parts,
kept apart as Inform's standard rules keep them: ``parser`` (a line to one verb and its words),
``resolve`` (which person, thing or place a phrase means), ``actions`` (one module per family, each
action check / carry out / report), ``responses`` (how characters answer), ``rules`` (conditions,
effects, beats), ``state`` (the typed working state), ``relations``, ``log`` and ``prose``.
"""
