"""``kith explore``: the game plays a world by itself and reports what its author must fix (issue 28)."""
