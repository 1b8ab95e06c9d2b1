"""The fast path: relations read from any narration text without a model.

A gazetteer of the save's names finds who a sentence mentions; English (and a few Chinese) relation
patterns, plus phrases derived from the save's vocabulary, say what one is to another. Precision comes
first: a wrong relation in the graph misleads every later turn, while a missed one is only a gap the
model enricher may fill, so negated, hypothetical and questioned clauses are skipped and an ambiguous
pronoun or name yields nothing. Pure: no I/O and no SQL; the only reads go through ``GraphReader``.

Modules: ``results`` (what an extraction returns), ``gazetteer`` (names to nodes), ``sentences``
(splitting and the guards), ``patterns`` (relation phrases), ``extractor`` (putting them together),
``apply`` (what it reads written through an upsert execution, each version marked) and ``marks`` (the
evidence marks that say a version was read by the fast path, or by a model later).
"""
