"""The values a line names, and the commands they can fill.

A command found by meaning keeps the values the player said: "um card one goes top
right" names card 1 and the top-right slot, so whatever intent the line is placed
in, it is card 1 that moves.  ``spot`` finds every phrase of the grammar's slot lists
in the line (the spoken phrases, and the typed ones: a lone letter only where a
list's values are letters, and never "a" or "i", which are words), longest first and
left to right; a phrase of several lists ("one": a number, a position, a card) is
kept as each.  The line is read as the grammar's ``[meaning]`` says: fillers ("um")
dropped, words read as others ("third" -> "three"), small words allowed inside a
phrase ("bottom on the right", "sun and key"), and a correction ("top left no wait
bottom left") keeps only the values said after it.  ``fill`` puts
the values found into the slots of one command's forms, in the order they were said,
and gives every canonical command they can make; ``rank_fillings`` orders them by
how near the command's own words come to the line.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import fuzz

from .. import template as t
from ..command import RuntimeLists
from ..grammar import Form, Grammar, normalize

#: a wildcard list's runtime names matched by spelling (a transcriber's "Hazle"): this
#: near, and only for names of at least ``_FUZZY_LENGTH`` letters
_FUZZY_NAME = 85.0
_FUZZY_LENGTH = 4
#: at most this many fillings of one form are made (four directions out of many said)
_MAX_FILLINGS = 64


@dataclass(frozen=True)
class Mention:
    """A value of ``list_name`` said at words ``start``..``end`` (end exclusive) of the line."""

    list_name: str
    value: str
    start: int
    end: int
    phrase: str


@dataclass(frozen=True)
class Shape:
    """One way an intent's command is made: its output and its slots in the form's order."""

    intent: str
    output: str
    slots: tuple[t.Slot, ...]
    #: the templates that make it this way (their words rank a filling: ``nearness``)
    trees: tuple[t.Seq, ...] = ()

    def fill(self, values: Mapping[str, str]) -> str:
        return self.output.format(**values)


class Lexicon:
    """The slot phrases of one grammar (with the run-time lists of the moment)."""

    def __init__(self, grammar: Grammar, lists: RuntimeLists | None) -> None:
        self.grammar = grammar
        self.lists = lists
        self.words_of = grammar.meaning
        used = {slot.list for form in grammar.forms for slot in t.slots(form.tree)}
        self.phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self.names: dict[str, list[tuple[str, str]]] = {}
        self.values: dict[str, frozenset[str]] = {}
        for name in sorted(used):
            words = grammar._list(name, lists)
            found = [(p, v) for v, ps in words.spoken.items() for p in ps]
            found += [(p, v) for v, ps in words.typed.items() for p in ps if _sayable(p, words.typed)]
            known = {p for p, _ in found}
            # a pair said the other way round ("right top") where that is no phrase of its own
            found += [(" ".join(reversed(p.split())), v) for p, v in list(found)
                      if len(p.split()) == 2 and " ".join(reversed(p.split())) not in known]
            self.phrases[name] = [(tuple(p.split()), v) for p, v in
                                  sorted(set(found), key=lambda pv: (-len(pv[0].split()), pv[0]))]
            self.values[name] = frozenset(words.spoken) | frozenset(words.typed)
            if words.wildcard and lists and name in lists:
                self.names[name] = [(p, v) for v, ps in words.spoken.items() for p in ps
                                    if len(p) >= _FUZZY_LENGTH]

    @cached_property
    def kin(self) -> dict[str, frozenset[str]]:
        """Each list and the lists with the same values ("a striped surface", a trait, says the
        fact SURFACE STRIPED): a slot takes a value said as any of them."""
        return {name: frozenset(other for other, vals in self.values.items() if vals and vals == mine)
                for name, mine in self.values.items()}

    def words(self, text: str) -> list[str]:
        """The line as the meaning stage reads it: normalised, lower case, contractions in
        full, fillers dropped, and the phrases of ``[meaning.same]`` of more than one word
        read as they say ("the last one" -> "the four")."""
        said = [w for w in self.grammar.uncontract(normalize(text).lower()).split() if w not in self.words_of.fillers]
        for phrase, meant in self._phrases_same:
            size = len(phrase)
            k = 0
            while k + size <= len(said):
                if tuple(said[k:k + size]) == phrase:
                    said[k:k + size] = meant
                    k += len(meant)
                else:
                    k += 1
        return said

    @cached_property
    def _phrases_same(self) -> list[tuple[tuple[str, ...], list[str]]]:
        return sorted(((tuple(k.split()), v.split()) for k, v in self.words_of.same.items() if " " in k),
                      key=lambda kv: -len(kv[0]))

    def spot(self, text: str) -> list[Mention]:
        """Every slot value said in ``text``, in the order said (see the module docstring);
        positions are of ``words(text)``."""
        words = self.words(text)
        folded = [self.words_of.same.get(w, w) for w in words]
        out: list[Mention] = []
        for name, phrases in self.phrases.items():
            taken = [False] * len(words)
            for target, value in phrases:
                for start in range(len(words)):
                    end = self._match(words, folded, start, target, taken)
                    if end is not None:
                        out.append(Mention(name, value, start, end, " ".join(target)))
                        for k in range(start, end):
                            taken[k] = True
            for phrase, value in self.names.get(name, ()):
                for start, word in enumerate(words):
                    if not taken[start] and len(word) >= _FUZZY_LENGTH and fuzz.ratio(word, phrase) >= _FUZZY_NAME:
                        out.append(Mention(name, value, start, start + 1, phrase))
                        taken[start] = True
        return _corrected(sorted(out, key=lambda m: (m.start, m.list_name)), words, self.words_of.corrections)

    def _match(self, words: list[str], folded: list[str], start: int, target: tuple[str, ...],
               taken: list[bool]) -> int | None:
        """Where ``target`` said from ``start`` ends (exclusive), the glue words allowed
        between its words (at most two in a row); None: it is not said there."""
        k = start
        for n, want in enumerate(target):
            if n > 0:
                gap = 0
                while k < len(words) and words[k] != want and folded[k] != want \
                        and words[k] in self.words_of.glue and gap < 2:
                    k += 1
                    gap += 1
            if k >= len(words) or taken[k] or (words[k] != want and folded[k] != want):
                return None
            k += 1
        return k

    @cached_property
    def shapes(self) -> dict[str, list[Shape]]:
        """Each intent's ways to be made from said values (from its spoken and loose forms)."""
        out: dict[str, list[Shape]] = {}
        for form in self.grammar.forms:
            if form.answer_only or (form.typed_only and _typed_slot(form, self.grammar)):
                continue
            shape = Shape(form.intent, form.output, tuple(_first_of_each(t.slots(form.tree))), (form.tree,))
            shapes = out.setdefault(form.intent, [])
            for k, other in enumerate(shapes):
                if (other.output, other.slots) == (shape.output, shape.slots):
                    shapes[k] = Shape(other.intent, other.output, other.slots, (*other.trees, form.tree))
                    break
            else:
                shapes.append(shape)
        return out

    def said(self, shape: Shape, values: Mapping[str, str]) -> list[str]:
        """The phrases ``shape``'s templates say with ``values`` (list values, not phrases)."""
        out = []
        for tree in shape.trees:
            phrase = self.grammar._say(tree, dict(values), self.lists)
            if phrase:
                out.append(" ".join(phrase.split()))
        return out


def _sayable(phrase: str, typed: Mapping[str, Iterable[str]]) -> bool:
    """Whether a typed phrase may be read in a sentence: not a lone "a" or "i", and a lone
    letter only where the list's values are letters (a tile "g", not a digit's list)."""
    if len(phrase) > 1 or phrase.isdigit():
        return True
    return phrase.isalpha() and phrase not in ("a", "i") and all(len(v) == 1 for v in typed)


def _corrected(mentions: list[Mention], words: list[str], corrections: tuple[str, ...]) -> list[Mention]:
    """The values a correction took back left out: of a list said again after the last
    "no wait" (or the like), only the values said after it count."""
    line = " ".join(words)
    cut = -1
    for marker in corrections:
        for found in re.finditer(rf"(?<!\S){re.escape(marker)}(?!\S)", line):
            cut = max(cut, len(line[:found.start()].split()))
    if cut < 0:
        return mentions
    again = {m.list_name for m in mentions if m.start >= cut}
    return [m for m in mentions if m.start >= cut or m.list_name not in again]


def _first_of_each(slots: Iterable[t.Slot]) -> list[t.Slot]:
    """A form's slots in order, each name once (an alternative may name a slot twice)."""
    seen: dict[str, t.Slot] = {}
    for slot in slots:
        seen.setdefault(slot.name, slot)
    return list(seen.values())


def _typed_slot(form: Form, grammar: Grammar) -> bool:
    """Whether a typed-only form needs a list no one says (a pattern or free text)."""
    return any(grammar.lists[s.list].pattern or grammar.lists[s.list].wildcard for s in t.slots(form.tree))


def fill(shape: Shape, mentions: list[Mention],
         kin: Mapping[str, frozenset[str]] | None = None) -> list[tuple[str, dict[str, str], int]]:
    """The canonical commands ``shape`` makes from ``mentions``, each with its slot values
    and how many of the line's values of its lists it leaves unused (fewer is better).

    Slots of one list take values in the order said ("north east south west" fills a, b,
    c, d in turn); slots of different lists take any value of theirs.  Two slots never
    take one mention, and no two mentions at the same words fill one command."""
    if not shape.slots:
        return [(shape.output, {}, 0)]
    def fits(slot: t.Slot, mention: Mention) -> bool:
        return mention.list_name == slot.list or (kin is not None and mention.list_name in kin.get(slot.list, ()))

    options: list[list[Mention]] = [[m for m in mentions if fits(slot, m)] for slot in shape.slots]
    if any(not o for o in options):
        return []
    said = len({(m.start, m.end) for m in mentions if any(fits(slot, m) for slot in shape.slots)})
    out: dict[str, tuple[dict[str, str], int]] = {}
    for combo in itertools.islice(itertools.product(*options), _MAX_FILLINGS * 16):
        spans = [(m.start, m.end) for m in combo]
        if len(set(spans)) < len(spans) or _overlap(spans):
            continue
        if not _in_order(shape.slots, combo):
            continue
        values = {slot.name: m.value for slot, m in zip(shape.slots, combo)}
        canonical = shape.fill(values)
        unused = said - len(spans)
        if canonical not in out or unused < out[canonical][1]:
            out[canonical] = (values, unused)
        if len(out) >= _MAX_FILLINGS:
            break
    return sorted(((c, v, u) for c, (v, u) in out.items()), key=lambda cvu: cvu[2])


def _overlap(spans: list[tuple[int, int]]) -> bool:
    ordered = sorted(spans)
    return any(a[1] > b[0] for a, b in itertools.pairwise(ordered))


def _in_order(slots: tuple[t.Slot, ...], combo: tuple[Mention, ...]) -> bool:
    """Slots of one list take their values in the order the line said them."""
    last: dict[str, int] = {}
    for slot, mention in zip(slots, combo):
        if mention.start < last.get(slot.list, -1):
            return False
        last[slot.list] = mention.start
    return True


_SPACES = re.compile(r"\s+")


def nearness(said: str, phrase: str) -> float:
    """How near a command's phrase comes to the line, 0-100, word order kept (the
    anchors before the steps, the card before the slot)."""
    return float(fuzz.ratio(_SPACES.sub(" ", said), _SPACES.sub(" ", phrase)))
