"""Narrators behind one interface: the offline story engine and any OpenAI-compatible model."""
