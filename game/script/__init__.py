"""Headless test scripts in the RegTest style: parse a script, play each test in a fresh game, check it.

``parser`` reads the text, ``checks`` judges one command's output and the game after it, ``runner``
drives a ``GameSession`` and ``report`` prints what happened. Nothing here imports a UI.
"""
