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


class _FileModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    lists: dict[str, _ListModel] = {}
    commands: list[_CommandModel] = []
    responses: dict[str, str] = {}


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
                        for cmd in model.commands for src in (*cmd.say, *cmd.type)}
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
                if not cmd.say and not cmd.type:
                    raise GrammarError(name, entry, "has neither say nor type templates")
                for source, typed_only in [(s, False) for s in cmd.say] + [(s, True) for s in cmd.type]:
                    if name.endswith("/common.toml") and source in game_sources:
                        continue
                    try:
                        tree = t.parse(source)
                    except t.TemplateSyntaxError as exc:
                        raise GrammarError(name, entry, str(exc)) from None
                    form = Form(cmd.intent, cmd.output, tree, source, typed_only, cmd.confirm not in (False, "unsure"))
                    self._check_form(name, entry, form)
                    self.forms.append(form)
        self._cache: dict[Any, list[tuple[Form, re.Pattern[str], dict[str, str]]]] = {}

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
    ) -> Command | NotRecognized:
        """Turn an utterance into a command, or ``NotRecognized``.

        ``intents`` narrows to the commands legal now; ``typed=False`` accepts only
        what can be spoken (what a recognizer can return).
        """
        norm = normalize(text)
        if not norm or not is_text(text) or (len(norm) == 1 and not _LONE_CHARACTER.fullmatch(text)):
            return NotRecognized(text)
        allowed = set(intents) if intents is not None else None
        for form, regex, groups in self._compiled(lists, typed):
            if allowed is not None and form.intent not in allowed:
                continue
            if form.typed_only and not typed:
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
            return Command(form.intent, canonical, values, text, typed=typed)
        return NotRecognized(text)

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
        """The first spoken phrase for a canonical command, or None if none can say it."""
        for form in self.forms:
            if form.typed_only:
                continue
            values = self._invert(form, canonical, lists)
            if values is None:
                continue
            phrase = self._say(form.tree, values, lists)
            if phrase is not None:
                return " ".join(phrase.split())
        return None

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
    def jsgf(self, *, intents: Iterable[str] | None = None, lists: RuntimeLists | None = None,
             name: str = "facilitator") -> str:
        """A JSGF grammar of the spoken forms (of ``intents`` if given)."""
        allowed = set(intents) if intents is not None else None
        rules: dict[str, str] = {}
        bodies = []
        for form in self.forms:
            if form.typed_only or (allowed is not None and form.intent not in allowed):
                continue
            body = self._jsgf(form.tree, rules, lists)
            if body is not None:
                bodies.append(body)
        if not bodies:
            raise GrammarError("grammars", None, "no spoken command to build a grammar from")
        out = ["#JSGF V1.0;", f"grammar {name};", "public <command> = " + " | ".join(f"( {b} )" for b in bodies) + ";"]
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
                       lists: RuntimeLists | None = None) -> list[str]:
        """Every phrase a recognizer may return (for Vosk's phrase list)."""
        allowed = set(intents) if intents is not None else None
        out: list[str] = []
        for form in self.forms:
            if form.typed_only or (allowed is not None and form.intent not in allowed):
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
        """Every word the spoken forms can use."""
        words: set[str] = set()
        for form in self.forms:
            if form.typed_only:
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
