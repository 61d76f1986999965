"""The template language of ``grammars/``: words, ``[optional]``, ``(a|b)``, ``{list:slot}``.

A template is parsed once into a small tree; the tree compiles to a regular
expression (for matching what was typed or recognised), renders back to a
phrase (for the demo and the benchmark corpus) and exports to JSGF (for the
recognizers).  Tokens are separated by whitespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Slot:
    list: str
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Seq, ...]
    optional: bool = False


Node = Word | Slot | Seq | Alt

_TOKEN = re.compile(r"\s*(\[|\]|\(|\)|\||\{[^{}]*\}|[^\s\[\]()|{}]+)")


class TemplateSyntaxError(ValueError):
    pass


def parse(text: str) -> Seq:
    """Parse one template; raise ``TemplateSyntaxError`` with the reason."""
    tokens = _tokenize(text)
    seq, rest = _seq(tokens, 0, text)
    if rest != len(tokens):
        raise TemplateSyntaxError(f"unexpected {tokens[rest]!r} in {text!r}")
    if not seq.items:
        raise TemplateSyntaxError("empty template")
    return seq


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise TemplateSyntaxError(f"cannot read {text[pos:]!r}")
        tokens.append(m.group(1))
        pos = m.end()
    return tokens


def _seq(tokens: list[str], i: int, text: str) -> tuple[Seq, int]:
    items: list[Node] = []
    while i < len(tokens) and tokens[i] not in ("]", ")", "|"):
        tok = tokens[i]
        if tok in ("[", "("):
            close = "]" if tok == "[" else ")"
            options = []
            i += 1
            while True:
                option, i = _seq(tokens, i, text)
                options.append(option)
                if i >= len(tokens):
                    raise TemplateSyntaxError(f"missing {close!r} in {text!r}")
                if tokens[i] == "|":
                    i += 1
                    continue
                if tokens[i] != close:
                    raise TemplateSyntaxError(f"{tokens[i]!r} closes {tok!r} in {text!r}")
                i += 1
                break
            items.append(Alt(tuple(options), optional=tok == "["))
        elif tok.startswith("{"):
            inner = tok[1:-1].strip()
            lst, _, name = inner.partition(":")
            if not re.fullmatch(r"[a-z][a-z0-9_-]*", lst) or (
                name and not re.fullmatch(r"[a-z][a-z0-9_]*", name)
            ):
                raise TemplateSyntaxError(f"bad slot {tok!r} in {text!r}")
            items.append(Slot(lst, name or lst.replace("-", "_")))
            i += 1
        else:
            items.append(Word(tok))
            i += 1
    return Seq(tuple(items)), i


def slots(node: Node) -> list[Slot]:
    """Every slot in ``node``, in order."""
    if isinstance(node, Slot):
        return [node]
    if isinstance(node, Seq):
        return [s for item in node.items for s in slots(item)]
    if isinstance(node, Alt):
        return [s for option in node.options for s in slots(option)]
    return []


def words(node: Node) -> list[str]:
    """Every literal word in ``node``."""
    if isinstance(node, Word):
        return [node.text]
    if isinstance(node, Seq):
        return [w for item in node.items for w in words(item)]
    if isinstance(node, Alt):
        return [w for option in node.options for w in words(option)]
    return []
