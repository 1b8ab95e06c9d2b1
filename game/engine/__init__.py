"""The turn pipeline and the game session: headless, emits events, never touches a widget."""
