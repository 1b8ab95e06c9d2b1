"""The offline interactive-fiction engine: a parser-based story over a world in ``content/``.

``turn.play_turn`` plays one turn; ``narrator/offline.py`` adapts it to the narrator interface. The parts are
kept apart as Inform's standard rules keep them:

- ``parser``: a line of input to one verb and its words (``Intent``);
- ``pronouns``: what "it", "him", "her" and "them" stand for; ``typos``: a failed line read once more
  with each word one edit from a verb or a name in view;
- ``resolve``: which person, thing, feature, exit, scenery or topic a phrase means;
- ``actions/``: one module per family (places, things, people, general), each action check / carry out
  / report (``actions/base``);
- ``responses``: how characters answer an act or a topic;
- ``rules``: conditions, effects and beats; ``relations``: the graph as conditions read it this turn;
- ``clock``: the hour as the world words it, from the story clock (turns that took time);
- ``state``: the typed working state of a turn; ``context``: the turn as every action sees it;
- ``log``: what the turn said and stated; ``prose``: tidying, filling, streaming and quoting text.
"""
