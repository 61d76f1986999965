"""Spoken and typed commands as data: one parser for text, recognizers and the demo.

A game's grammar is ``grammars/common.toml`` plus ``grammars/GAME.toml``.  Each
file has ``[lists.NAME]`` (slot values and the phrases that name them),
``[[commands]]`` (an intent, its canonical ``output`` and the templates that say
it) and ``[responses]`` (what the assistant says; see ``phrases.py``).

* ``say`` templates are spoken or typed; ``type`` templates are typed only.
* A list has ``spoken`` phrases per value, ``typed`` extras (digits, letters),
  or a ``pattern`` (a regular expression, typed only), or ``wildcard = true``
  (free text, typed only unless phrases are passed in at run time).
* Runtime lists (player names, catalogue names) are passed per call.

Phrasing as people use it (docs/speech.md, "Natural phrasing"):

* ``answer`` templates are answer-only forms ("yep", "sure", "that's right"): heard only
  when the caller asks for answers (``answers=True``: a question is open), never as
  commands on their own.
* ``loose`` templates are understood typed and in the second engine's free text, but
  kept out of the closed decoding grammars (pocketsphinx's JSGF, Vosk's phrase list,
  Whisper's candidates), where table talk was measured to decode to them.
* ``[skip]`` words stand before (``lead``) or after (``trail``) any command ("okay",
  "let's", "can you", "please") and are stripped when what is left parses; a few
  (``spoken_lead``, ``spoken_trail``) stand optionally around every command in the
  pocketsphinx grammar.  They are never copied into the templates.
* ``[contractions]`` ("what's" = "what is") fold what was said or typed, and a
  template's contracted word matches either form.
* ``[expansions]`` are named pieces of template, written ``<name>`` in a template.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from . import template as t
from .command import GAMES, Command, NotRecognized, RuntimeLists
from .errors import GrammarError
from .paths import grammars_dir


class _ListModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    spoken: dict[str, list[str]] = {}
    typed: dict[str, list[str]] = {}
    pattern: str | None = None
    transform: Literal["upper", "lower", "none"] = "none"
    wildcard: bool = False


class _CommandModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    intent: str
    output: str
    say: list[str] = []
    type: list[str] = []
    #: voice confirmation: false (never), true (echoed; implicit when the recognizer is
    #: sure, else asked), "always" (asked "Is that right?" whatever the recognizer says:
    #: a mistake cannot be taken back), "unsure" (a free move: applied at once when the
    #: recognizer is sure, echoed with its undo window when it is not)
    confirm: bool | Literal["always", "unsure"] = False
    #: answer-only forms: heard only as the answer to an open question (``answers=True``)
    answer: list[str] = []
    #: answer-only forms that are also loose: typed or in free text only, never in a decoding
    #: grammar (a question's JSGF with them missed a clean "yes")
    loose_answer: list[str] = []
    #: loose forms: understood typed and in the second engine's free text, kept out of the
    #: closed decoding grammars (pocketsphinx's JSGF, the phrase lists), where table talk
    #: was measured to decode to them
    loose: list[str] = []
    #: which ``say`` form the echo says (by its place, from 0): a longer form may stand
    #: first so that it parses first ("our final answer is brook" before "final {entry}"
    #: would take "answer is brook" as the name), and the echo still says "Final brook."
    echo: int = 0


class _SkipModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lead: list[str] = []
    trail: list[str] = []
    spoken_lead: list[str] = []
    spoken_trail: list[str] = []


class _MeaningModel(BaseModel):
    """What the meaning stage reads besides the forms (``facilitator/meaning/``)."""

    model_config = ConfigDict(extra="forbid")
    #: a word read as another before slot values are found ("third" -> "three", "stripy" -> "striped")
    same: dict[str, str] = {}
    #: sounds that carry no meaning ("um", "er"): dropped before anything else
    fillers: list[str] = []
    #: what a player says to take back the value just said ("no wait", "I mean"): the values
    #: of a list said after it replace those said before it
    corrections: list[str] = []
    #: small words that may stand inside a slot's phrase ("bottom on the right", "sun and key")
    glue: list[str] = []


class _FileModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lists: dict[str, _ListModel] = {}
    commands: list[_CommandModel] = []
    responses: dict[str, str] = {}
    skip: _SkipModel = _SkipModel()
    contractions: dict[str, str] = {}
    expansions: dict[str, str] = {}
    meaning: _MeaningModel = _MeaningModel()


@dataclass(frozen=True)
class MeaningWords:
    """The meaning stage's words of one grammar (``[meaning]``, game files first)."""

    same: dict[str, str]
    fillers: frozenset[str]
    corrections: tuple[str, ...]
    glue: frozenset[str]


@dataclass(frozen=True)
class WordList:
    name: str
    spoken: dict[str, tuple[str, ...]]
    typed: dict[str, tuple[str, ...]]
    pattern: str | None = None
    transform: str = "none"
    wildcard: bool = False

    def with_runtime(self, values: Mapping[str, Iterable[str]],
                     numbers: Mapping[str, str] | None = None) -> WordList:
        """This list with run-time values (player names, catalogue names).

        A name is said as words: a digit in it ("Player 1") is said as its number word
        from ``numbers`` ("player one"), since a recognizer returns words and has no
        pronunciation for "1"; the name as written stays a typed form.
        """
        spoken: dict[str, tuple[str, ...]] = {}
        typed = {v: list(ps) for v, ps in self.typed.items()}
        for value, phrases in values.items():
            said: list[str] = []
            for phrase in phrases:
                written = normalize(phrase).lower()
                words = " ".join((numbers or {}).get(w, w) for w in written.split())
                said.append(words)
                if words != written:
                    typed.setdefault(value, []).append(written)
            spoken[value] = tuple(dict.fromkeys(said))
        return WordList(self.name, spoken, {v: tuple(ps) for v, ps in typed.items()}, self.pattern,
                        self.transform, self.wildcard)

    def regex(self, typed: bool) -> str:
        phrases = [(p, v) for v, ps in self.spoken.items() for p in ps]
        if typed:
            phrases += [(p, v) for v, ps in self.typed.items() for p in ps]
        alts = sorted({p for p, _ in phrases}, key=len, reverse=True)
        parts = [r"\ ".join(re.escape(w) for w in p.split()) for p in alts]
        if typed and self.pattern:
            parts.append(f"(?:{self.pattern})")
        if typed and self.wildcard:
            parts.append(r"\S.*?")
        if not parts:
            return r"(?!)"
        return "|".join(parts)

    def value_of(self, phrase: str) -> str:
        key = " ".join(phrase.lower().split())
        for table in (self.spoken, self.typed):
            for value, phrases in table.items():
                if key in phrases:
                    return value
        if self.transform == "upper":
            return phrase.upper()
        if self.transform == "lower":
            return phrase.lower()
        return phrase


@dataclass(frozen=True)
class Form:
    intent: str
    output: str
    tree: t.Seq
    source: str
    typed_only: bool
    confirm: bool
    #: an answer-only form ("yep"): heard only while a question is open
    answer_only: bool = False
    #: a loose form: parsed (typed or heard freely), never in a decoding grammar
    loose: bool = False
    #: the ``[[commands]]`` entry it comes from (file and entry)
    block: str = ""
    #: the form its entry's echo says (``echo``)
    echo: bool = False

    @cached_property
    def slot_names(self) -> set[str]:
        return {s.name for s in t.slots(self.tree)}


#: the apostrophes and hyphens a keyboard or a phone types (smart quotes, the hyphen
#: characters), folded to the plain ones so "don’t" is "don't"
_FOLDED = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2010": "-", "\u2011": "-"})


def normalize(text: str) -> str:
    """Fold what people type or recognizers produce into matchable words.

    Case is kept (free-text slots keep it); a phone's curly apostrophe is an
    apostrophe; punctuation other than hyphens and apostrophes inside words becomes
    space; whitespace collapses.
    """
    text = unicodedata.normalize("NFKC", text).translate(_FOLDED)
    text = re.sub(r"[^\w\s'\-]", " ", text)
    text = re.sub(r"(?<!\w)['\-]+|['\-]+(?!\w)", " ", text)
    return " ".join(text.split())


#: Unicode categories no one types or says in a command: control characters, surrogates
#: (bytes that were not UTF-8), private use, unassigned
_NOT_TEXT = frozenset({"Cc", "Cs", "Co", "Cn"})
#: a line that folds to one character must be that character alone (a typed tile letter
#: "b" or "b."), never one letter left standing in garbage ("#b", "\ufffdb\ufffd")
_LONE_CHARACTER = re.compile(r"\s*\w\s*[.!?]?\s*")


def is_text(text: str) -> bool:
    """Whether ``text`` is something a person typed: no controls (but tab), no U+FFFD
    (what stdin's undecodable bytes become), no surrogates, private-use or unassigned characters."""
    return all(ch == "\t" or (ch != "\ufffd" and unicodedata.category(ch) not in _NOT_TEXT)
               for ch in text)


#: what a player types besides letters, digits and spaces: apostrophes and hyphens (in a
#: name or a clue: "O'Neill", "x-ray", with a phone's curly forms) and the punctuation
#: that ends or splits an ordinary sentence
TYPED_PUNCTUATION = frozenset("'\u2019\u2018-\u2010\u2011.,!?:;\u2026")


def untyped_character(text: str) -> str | None:
    """The first character of ``text`` that is not what a player types, or None.

    A player types letters of any script, with their accents (precomposed, or as
    combining marks right after a letter), digits (0-9 and the other scripts'
    decimal digits), spaces (a tab, a no-break space) and ``TYPED_PUNCTUATION``.
    Everything else is refused, not folded into a command: format and control
    characters (a zero-width space, a right-to-left override), a combining mark
    that follows no letter, symbols (``$``, ``/``, ``(``, ``#``, `````, emoji), the
    other numerals (``²``, ``½``) and U+FFFD, which stands for bytes that were not
    UTF-8.
    """
    after_letter = False
    for ch in text:
        kind = unicodedata.category(ch)
        if kind[0] == "M":
            if not after_letter:
                return ch
            continue
        after_letter = kind[0] == "L"
        if after_letter or kind == "Nd" or kind == "Zs" or ch == "\t" or ch in TYPED_PUNCTUATION:
            continue
        return ch
    return None


def character_kind(ch: str) -> str:
    """What kind of character ``ch`` is, as a refusal says it in plain words (never a code
    point read aloud): ``"visible"`` (a symbol, shown as itself), ``"control"``,
    ``"format"`` (an invisible one: a zero-width space, a direction mark; shown as itself
    it would turn the line around), ``"mark"`` (an accent on no letter), ``"undecodable"``
    (U+FFFD, bytes that were not text) or ``"other"`` (private-use, unassigned, a line
    separator)."""
    kind = unicodedata.category(ch)
    if ch == "\ufffd":
        return "undecodable"
    if kind[0] in "LNPS":
        return "visible"
    return {"Cc": "control", "Cf": "format", "Mn": "mark", "Mc": "mark", "Me": "mark"}.get(kind, "other")


class Grammar:
    """The merged grammar of one game: parse, render, export."""

    def __init__(self, files: list[tuple[str, _FileModel]]) -> None:
        self.lists: dict[str, WordList] = {}
        self.forms: list[Form] = []
        self.responses: dict[str, str] = {}
        self.confirmed: set[str] = set()
        #: the confirmed intents that are always asked, never implicitly echoed
        self.always_confirmed: set[str] = set()
        #: free moves echoed (with the undo window) only when heard unsure
        self.echoed_unsure: set[str] = set()
        self.intents: list[str] = []
        self.common_intents: set[str] = set()
        self.contractions: dict[str, str] = {}
        self.expansions: dict[str, str] = {}
        same: dict[str, str] = {}
        fillers: set[str] = set()
        corrections: list[str] = []
        glue: set[str] = set()
        lead: list[str] = []
        trail: list[str] = []
        spoken_lead: list[str] = []
        spoken_trail: list[str] = []
        for name, model in files:
            for short, full in model.contractions.items():
                self.contractions.setdefault(short.lower(), " ".join(full.lower().split()))
            for rule, body in model.expansions.items():
                self.expansions.setdefault(rule, body)
            for word, meant in model.meaning.same.items():
                same.setdefault(" ".join(word.lower().split()), " ".join(meant.lower().split()))
            fillers.update(w.lower() for w in model.meaning.fillers)
            corrections += [" ".join(w.lower().split()) for w in model.meaning.corrections]
            glue.update(w.lower() for w in model.meaning.glue)
            lead += model.skip.lead
            trail += model.skip.trail
            spoken_lead += model.skip.spoken_lead
            spoken_trail += model.skip.spoken_trail
        self.meaning = MeaningWords(same, frozenset(fillers), tuple(dict.fromkeys(corrections)), frozenset(glue))
        #: skip words, longest first, each also in its uncontracted form ("let's", "let us")
        self.skip_lead = self._skip_words(lead)
        self.skip_trail = self._skip_words(trail)
        #: the few said around a command in the spoken grammar
        self.spoken_lead = tuple(dict.fromkeys(" ".join(w.lower().split()) for w in spoken_lead))
        self.spoken_trail = tuple(dict.fromkeys(" ".join(w.lower().split()) for w in spoken_trail))
        # game files first so that a game's phrasing wins over the common one
        for name, model in reversed(files):
            for list_name, lst in model.lists.items():
                self.lists[list_name] = WordList(
                    list_name,
                    {v: tuple(" ".join(p.lower().split()) for p in ps) for v, ps in lst.spoken.items()},
                    {v: tuple(" ".join(p.lower().split()) for p in ps) for v, ps in lst.typed.items()},
                    lst.pattern,
                    lst.transform,
                    lst.wildcard,
                )
        for name, model in files:
            for key, text in model.responses.items():
                self.responses.setdefault(key, text)
        # a common phrase that a game uses for its own command is the game's there
        # (Two Windows "more" reveals; elsewhere "more" pages)
        game_sources = {src for name, model in files if not name.endswith("/common.toml")
                        for cmd in model.commands
                        for src in (*cmd.say, *cmd.type, *cmd.answer, *cmd.loose, *cmd.loose_answer)}
        for name, model in files:
            for index, cmd in enumerate(model.commands):
                entry = f"command {index + 1} ({cmd.intent})"
                if cmd.intent not in self.intents:
                    self.intents.append(cmd.intent)
                if name.endswith("/common.toml"):
                    self.common_intents.add(cmd.intent)
                if cmd.confirm == "unsure":
                    self.echoed_unsure.add(cmd.intent)
                elif cmd.confirm:
                    self.confirmed.add(cmd.intent)
                if cmd.confirm == "always":
                    self.always_confirmed.add(cmd.intent)
                if not cmd.say and not cmd.type and not cmd.answer and not cmd.loose and not cmd.loose_answer:
                    raise GrammarError(name, entry, "has neither say nor type templates")
                sources = ([(s, False, False, False) for s in cmd.say] + [(s, True, False, False) for s in cmd.type]
                           + [(s, False, True, False) for s in cmd.answer]
                           + [(s, False, False, True) for s in cmd.loose]
                           + [(s, False, True, True) for s in cmd.loose_answer])
                if not 0 <= cmd.echo < max(len(cmd.say), 1):
                    raise GrammarError(name, entry, f"echo {cmd.echo} names no say form")
                for place, (source, typed_only, answer_only, loose) in enumerate(sources):
                    if name.endswith("/common.toml") and source in game_sources:
                        continue
                    try:
                        tree = t.parse(self._expand_rules(source))
                    except t.TemplateSyntaxError as exc:
                        raise GrammarError(name, entry, str(exc)) from None
                    form = Form(cmd.intent, cmd.output, tree, source, typed_only,
                                cmd.confirm not in (False, "unsure"), answer_only, loose,
                                f"{name}:{entry}", place == cmd.echo and bool(cmd.say))
                    self._check_form(name, entry, form)
                    self.forms.append(form)
        self._cache: dict[Any, list[tuple[Form, re.Pattern[str], dict[str, str]]]] = {}

    def _skip_words(self, words: list[str]) -> tuple[tuple[str, ...], ...]:
        said = {" ".join(w.lower().split()) for w in words if w.strip()}
        said |= {self.uncontract(w) for w in said}
        return tuple(tuple(w.split()) for w in sorted(said, key=lambda w: (-len(w.split()), w)))

    _RULE = re.compile(r"<([a-z][a-z0-9_-]*)>")

    def _expand_rules(self, source: str, depth: int = 0) -> str:
        """``source`` with each ``<rule>`` replaced by its expansion, in parentheses."""
        if "<" not in source:
            return source
        if depth > 8:
            raise t.TemplateSyntaxError(f"expansion rules nest too deep in {source!r}")

        def body(m: re.Match[str]) -> str:
            rule = m.group(1)
            if rule not in self.expansions:
                raise t.TemplateSyntaxError(f"unknown expansion rule <{rule}> in {source!r}")
            return f"( {self._expand_rules(self.expansions[rule], depth + 1)} )"

        return self._RULE.sub(body, source)

    def uncontract(self, text: str) -> str:
        """``text`` (normalised words) with each contraction said in full ("what's" -> "what is";
        a transcriber's compound, "northeast" -> "north east")."""
        if not self.contractions:
            return text
        return " ".join(self.contractions.get(w.lower(), w) for w in text.split())

    def _strip_skips(self, text: str) -> list[str]:
        """``text`` with the skip words before and after it read away one at a time, each
        stage a reading ("can we check if ...": "check if ..." before "if ..."); never all of it."""
        def strip(words: list[str], skips: tuple[tuple[str, ...], ...], lead: bool) -> list[str] | None:
            lowered = [w.lower() for w in words]
            for skip in skips:
                n = len(skip)
                if len(lowered) > n and tuple(lowered[:n] if lead else lowered[-n:]) == skip:
                    return words[n:] if lead else words[:-n]
            return None

        out: list[str] = []
        words: list[str] | None = text.split()
        while words is not None:
            tail: list[str] | None = words
            while tail is not None:
                out.append(" ".join(tail))
                tail = strip(tail, self.skip_trail, lead=False)
            words = strip(words, self.skip_lead, lead=True)
        return out[1:]

    def readings(self, norm: str) -> list[str]:
        """The ways to read ``norm`` (normalised), tried in order: as it is; contractions
        said in full; without the skip words around it (so a line that parsed as it was
        keeps its reading: a free-text slot is never cut or uncontracted needlessly)."""
        full = self.uncontract(norm)
        out = [norm, *self._strip_skips(norm), full, *self._strip_skips(full)]
        return list(dict.fromkeys(r for r in out if r))

    def _check_form(self, file: str, entry: str, form: Form) -> None:
        for slot in t.slots(form.tree):
            if slot.list not in self.lists:
                raise GrammarError(file, entry, f"{form.source!r} names unknown list {slot.list!r}")
        wanted = set(re.findall(r"\{(\w+)\}", form.output))
        if wanted != form.slot_names:
            raise GrammarError(
                file, entry, f"{form.source!r} fills {sorted(form.slot_names)}, output needs {sorted(wanted)}"
            )

    # -- parsing -----------------------------------------------------------
    def parse(
        self,
        text: str,
        *,
        lists: RuntimeLists | None = None,
        intents: Iterable[str] | None = None,
        typed: bool = True,
        answers: bool = False,
    ) -> Command | NotRecognized:
        """Turn an utterance into a command, or ``NotRecognized``.

        ``intents`` narrows to the commands legal now; ``typed=False`` accepts only
        what can be spoken (what a recognizer can return); ``answers`` also accepts
        the answer-only forms ("yep", "that's right"): a question is open.
        Skip words around the command and contractions are read away (``readings``).
        """
        found = self.match(text, lists=lists, intents=intents, typed=typed, answers=answers)
        return found[1] if found is not None else NotRecognized(text)

    def match(self, text: str, *, lists: RuntimeLists | None = None, intents: Iterable[str] | None = None,
              typed: bool = True, answers: bool = False) -> tuple[Form, Command] | None:
        """The form ``text`` parses by and its command (``parse``'s arguments), or None."""
        norm = normalize(text)
        if not norm or not is_text(text) or (len(norm) == 1 and not _LONE_CHARACTER.fullmatch(text)):
            return None
        allowed = set(intents) if intents is not None else None
        compiled = self._compiled(lists, typed)
        for reading in self.readings(norm):
            found = self._parse_reading(text, reading, compiled, allowed, typed, answers, lists)
            if found is not None:
                return found
        return None

    def _parse_reading(self, text: str, norm: str,
                       compiled: list[tuple[Form, re.Pattern[str], dict[str, str]]],
                       allowed: set[str] | None, typed: bool, answers: bool,
                       lists: RuntimeLists | None) -> tuple[Form, Command] | None:
        for form, regex, groups in compiled:
            if allowed is not None and form.intent not in allowed:
                continue
            if (form.typed_only and not typed) or (form.answer_only and not answers):
                continue
            m = regex.fullmatch(" " + norm)
            if not m:
                continue
            values: dict[str, str] = {}
            for group, spec in groups.items():
                got = m.group(group)
                if got is None:
                    continue
                list_name, slot = spec.split("/")
                values[slot] = self._list(list_name, lists).value_of(got)
            canonical = form.output.format(**values)
            return form, Command(form.intent, canonical, values, text, typed=typed)
        return None

    def _list(self, name: str, lists: RuntimeLists | None) -> WordList:
        base = self.lists[name]
        if lists and name in lists:
            return base.with_runtime(lists[name], self._number_words)
        return base

    @cached_property
    def _number_words(self) -> dict[str, str]:
        """Each digit string of the ``number`` list (grammars/common.toml) and its first spoken word."""
        numbers = self.lists.get("number")
        if numbers is None:
            return {}
        return {value: phrases[0] for value, phrases in numbers.spoken.items() if phrases}

    def _compiled(self, lists: RuntimeLists | None,
                  typed: bool) -> list[tuple[Form, re.Pattern[str], dict[str, str]]]:
        key = (typed, None if not lists else tuple(
            sorted((n, tuple(sorted((v, tuple(ps)) for v, ps in vals.items()))) for n, vals in lists.items())
        ))
        if key not in self._cache:
            if len(self._cache) > 16:
                self._cache.clear()
            compiled = []
            for form in self.forms:
                groups: dict[str, str] = {}
                pattern = self._regex(form.tree, groups, lists, typed=typed)
                compiled.append((form, re.compile(pattern, re.IGNORECASE), groups))
            self._cache[key] = compiled
        return self._cache[key]

    def _regex(self, node: t.Node, groups: dict[str, str], lists: RuntimeLists | None, typed: bool) -> str:
        if isinstance(node, t.Word):
            full = self.uncontract(node.text.lower())
            if full != node.text.lower():   # "what's" in a template: said either way
                return r"\ (?:" + re.escape(node.text) + "|" + r"\ ".join(map(re.escape, full.split())) + ")"
            return r"\ " + re.escape(node.text)
        if isinstance(node, t.Slot):
            group = f"g{len(groups)}"
            groups[group] = f"{node.list}/{node.name}"
            return rf"\ (?P<{group}>{self._list(node.list, lists).regex(typed)})"
        if isinstance(node, t.Seq):
            return "".join(self._regex(item, groups, lists, typed) for item in node.items)
        assert isinstance(node, t.Alt)
        body = "|".join(self._regex(o, groups, lists, typed) for o in node.options)
        return f"(?:{body})" + ("?" if node.optional else "")

    # -- rendering ---------------------------------------------------------
    def render(self, canonical: str, *, lists: RuntimeLists | None = None) -> str | None:
        """The spoken phrase for a canonical command (its echo), or None if none can say it:
        of the first ``[[commands]]`` entry that can say it, its ``echo`` form if that can,
        else its first form that can."""
        found: str | None = None
        block: str | None = None
        for form in self.forms:
            if form.typed_only or form.answer_only or form.loose or (block is not None and form.block != block):
                continue
            if block is not None and not form.echo:
                continue
            values = self._invert(form, canonical, lists)
            if values is None:
                continue
            phrase = self._say(form.tree, values, lists)
            if phrase is None:
                continue
            if form.echo:
                return " ".join(phrase.split())
            if found is None:
                found, block = " ".join(phrase.split()), form.block
        return found

    def _invert(self, form: Form, canonical: str, lists: RuntimeLists | None) -> dict[str, str] | None:
        parts = re.split(r"(\{\w+\})", form.output)
        slot_lists = {s.name: s.list for s in t.slots(form.tree)}
        pattern = ""
        for part in parts:
            m = re.fullmatch(r"\{(\w+)\}", part)
            if m:
                lst = self._list(slot_lists[m.group(1)], lists)
                values = sorted(set(lst.spoken), key=len, reverse=True)
                if not values:
                    return None
                pattern += f"(?P<{m.group(1)}>" + "|".join(re.escape(v) for v in values) + ")"
            else:
                pattern += re.escape(part)
        found = re.fullmatch(pattern, canonical.strip(), re.IGNORECASE)
        if not found:
            return None
        out = {}
        for name, got in found.groupdict().items():
            lst = self._list(slot_lists[name], lists)
            out[name] = next(v for v in lst.spoken if v.lower() == got.lower())
        return out

    def _say(self, node: t.Node, values: dict[str, str], lists: RuntimeLists | None) -> str | None:
        if isinstance(node, t.Word):
            return node.text
        if isinstance(node, t.Slot):
            phrases = self._list(node.list, lists).spoken.get(values.get(node.name, ""), ())
            return phrases[0] if phrases else None
        if isinstance(node, t.Seq):
            said = [self._say(item, values, lists) for item in node.items]
            return None if any(s is None for s in said) else " ".join(s for s in said if s)
        assert isinstance(node, t.Alt)
        if node.optional and not t.slots(node):
            return ""
        for option in node.options:
            if {s.name for s in t.slots(option)} >= {s.name for s in t.slots(node)}:
                phrase = self._say(option, values, lists)
                if phrase is not None:
                    return phrase
        return "" if node.optional else None

    # -- export --------------------------------------------------------------
    def _spoken(self, form: Form, allowed: set[str] | None, answers: bool) -> bool:
        return not (form.typed_only or form.loose or (form.answer_only and not answers)
                    or (allowed is not None and form.intent not in allowed))

    def jsgf(self, *, intents: Iterable[str] | None = None, lists: RuntimeLists | None = None,
             name: str = "facilitator", answers: bool = False) -> str:
        """A JSGF grammar of the spoken forms (of ``intents`` if given; ``answers``: with
        the answer-only forms), the spoken skip words optional around every command."""
        allowed = set(intents) if intents is not None else None
        rules: dict[str, str] = {}
        bodies = []
        for form in self.forms:
            if not self._spoken(form, allowed, answers):
                continue
            body = self._jsgf(form.tree, rules, lists)
            if body is not None:
                bodies.append(body)
        if not bodies:
            raise GrammarError("grammars", None, "no spoken command to build a grammar from")
        said = " | ".join(f"( {b} )" for b in bodies)
        if self.spoken_lead or self.spoken_trail:
            lead = "[ <skip_lead> ] " if self.spoken_lead else ""
            trail = " [ <skip_trail> ]" if self.spoken_trail else ""
            out = ["#JSGF V1.0;", f"grammar {name};", f"public <command> = {lead}<commands>{trail};",
                   f"<commands> = {said};"]
            if self.spoken_lead:
                rules["skip_lead"] = " | ".join(self.spoken_lead)
            if self.spoken_trail:
                rules["skip_trail"] = " | ".join(self.spoken_trail)
        else:
            out = ["#JSGF V1.0;", f"grammar {name};", f"public <command> = {said};"]
        out += [f"<{rule}> = {body};" for rule, body in sorted(rules.items())]
        return "\n".join(out) + "\n"

    def _jsgf(self, node: t.Node, rules: dict[str, str], lists: RuntimeLists | None) -> str | None:
        if isinstance(node, t.Word):
            return node.text.lower()
        if isinstance(node, t.Slot):
            lst = self._list(node.list, lists)
            phrases = sorted({p for ps in lst.spoken.values() for p in ps})
            if not phrases:
                return None
            rule = "l_" + node.list.replace("-", "_")
            rules[rule] = " | ".join(phrases)
            return f"<{rule}>"
        if isinstance(node, t.Seq):
            parts = [self._jsgf(item, rules, lists) for item in node.items]
            if any(p is None for p in parts):
                return None
            return " ".join(p for p in parts if p)
        assert isinstance(node, t.Alt)
        options = [o for o in (self._jsgf(opt, rules, lists) for opt in node.options) if o is not None]
        if not options:
            return None if not node.optional else ""
        inner = " | ".join(options)
        return f"[ {inner} ]" if node.optional else f"( {inner} )"

    def spoken_phrases(self, *, intents: Iterable[str] | None = None,
                       lists: RuntimeLists | None = None, answers: bool = False) -> list[str]:
        """Every phrase of the spoken forms (Vosk's phrase list, Whisper's candidates),
        without skip words: those are the pocketsphinx grammar's alone."""
        allowed = set(intents) if intents is not None else None
        out: list[str] = []
        for form in self.forms:
            if not self._spoken(form, allowed, answers):
                continue
            out.extend(self._expand(form.tree, lists))
        return sorted({" ".join(p.split()) for p in out})

    def _expand(self, node: t.Node, lists: RuntimeLists | None) -> list[str]:
        if isinstance(node, t.Word):
            return [node.text.lower()]
        if isinstance(node, t.Slot):
            return sorted({p for ps in self._list(node.list, lists).spoken.values() for p in ps})
        if isinstance(node, t.Seq):
            acc = [""]
            for item in node.items:
                acc = [f"{a} {b}" for a in acc for b in self._expand(item, lists)]
            return acc
        assert isinstance(node, t.Alt)
        out = [p for opt in node.options for p in self._expand(opt, lists)]
        return out + ([""] if node.optional else [])

    def vocabulary(self, *, lists: RuntimeLists | None = None) -> set[str]:
        """Every word the spoken forms (answer-only ones too) and spoken skip words can use."""
        words: set[str] = {w for p in (*self.spoken_lead, *self.spoken_trail) for w in p.split()}
        for form in self.forms:
            if form.typed_only or form.loose:
                continue
            words.update(w.lower() for w in t.words(form.tree))
            for slot in t.slots(form.tree):
                for ps in self._list(slot.list, lists).spoken.values():
                    for p in ps:
                        words.update(p.split())
        return words


def _load_file(path: Path) -> _FileModel:
    name = f"grammars/{path.name}"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GrammarError(name, None, "file is missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise GrammarError(name, None, f"not valid TOML: {exc}") from None
    try:
        return _FileModel.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise GrammarError(name, where, err["msg"].lower()) from None


_loaded: dict[tuple[str, str], Grammar] = {}


def load_grammar(game: str | None, directory: Path | None = None) -> Grammar:
    """The common grammar plus ``game``'s (None: every game's, for ``recognize``)."""
    directory = directory or grammars_dir()
    key = (str(directory), game or "*")
    if key not in _loaded:
        if game is None:
            names = [g for g in GAMES if (directory / f"{g}.toml").exists()]
        else:
            names = [game]
        files = [(f"grammars/{n}.toml", _load_file(directory / f"{n}.toml")) for n in names]
        files.append(("grammars/common.toml", _load_file(directory / "common.toml")))
        _loaded[key] = Grammar(files)
    return _loaded[key]
