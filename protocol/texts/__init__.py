"""The rules of the game written for players, in English, French and Czech (issue 15).

The texts are data, ``rules.{en,fr,cs}.json`` beside this file (package data of ``protocol``);
the browser client fetches the same files from ``/texts/rules.{lang}.json``. Their shape::

    {"lang": "en", "title": "...", "sections": [
       {"id": "trick", "title": "Playing a trick", "paragraphs": [
          {"id": "trick-follow", "rules": ["R7.4", "R7.5"], "text": "plain text, no markup"}]}]}

Every paragraph lists the RULES.md numbers it explains; every rule number the engine cites in a
refusal has a paragraph in each language (tests/test_rules_texts.py). Texts are plain text:
clients escape them or render them as text, never as markup.

    from protocol import texts
    doc = texts.load("fr")                  # unknown languages fall back to English
    hit = doc.find("R7.5")                  # exact tag, else the rule's family (R7.5 -> R7)
    if hit: print(hit.section.title, hit.paragraph.text)
    for topic in doc.topics(): print(topic.id, topic.title)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from importlib import resources

import msgspec

LANGUAGES: tuple[str, ...] = ("en", "fr", "cs")
DEFAULT_LANGUAGE = "en"

_RULE = re.compile(r"R\d+(?:\.\d+)*")


class Paragraph(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    rules: tuple[str, ...]
    text: str


class Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    title: str
    paragraphs: tuple[Paragraph, ...]

    @property
    def text(self) -> str:
        """The section's paragraphs, one per line."""
        return "\n".join(p.text for p in self.paragraphs)


class Topic(msgspec.Struct, frozen=True):
    """A section as a topic to offer (``atout rules TOPIC``, a rules panel's contents)."""

    id: str
    title: str
    rules: tuple[str, ...]  # the rule numbers its paragraphs explain, in order, without repeats


class Hit(msgspec.Struct, frozen=True):
    """Where a rule number is explained: ``exact`` is False when only its family matched."""

    section: Section
    paragraph: Paragraph
    exact: bool


class RulesText(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    lang: str
    title: str
    sections: tuple[Section, ...]

    def paragraphs(self) -> Iterator[tuple[Section, Paragraph]]:
        """Every paragraph with its section, in reading order."""
        for s in self.sections:
            for p in s.paragraphs:
                yield s, p

    def topics(self) -> list[Topic]:
        out = []
        for s in self.sections:
            seen: dict[str, None] = {}
            for p in s.paragraphs:
                seen.update(dict.fromkeys(p.rules))
            out.append(Topic(s.id, s.title, tuple(seen)))
        return out

    def section(self, topic: str) -> Section | None:
        """The section for a topic: its id or title (any case), else the one section whose id or
        title starts with ``topic``; a rule number (``R7.5``) gives the section of its paragraph."""
        key = topic.strip().casefold()
        if not key:
            return None
        for s in self.sections:
            if key in (s.id.casefold(), s.title.casefold()):
                return s
        if _RULE.fullmatch(topic.strip().upper()):
            hit = self.find(topic)
            return hit.section if hit else None
        starts = [
            s
            for s in self.sections
            if s.id.casefold().startswith(key) or s.title.casefold().startswith(key)
        ]
        return starts[0] if len(starts) == 1 else None

    def find(self, rule: str) -> Hit | None:
        """The paragraph that explains ``rule`` (e.g. ``"R7.5"``, as in an ``error``'s ``rule``):
        the first paragraph tagged with exactly that number, else, dropping the last part one
        step at a time (``R7.5`` -> ``R7``), the first tagged with that number or one of its
        sub-rules (``R1`` matches ``R1.2`` but never ``R10``). None when nothing matches."""
        rule = rule.strip().upper()
        if not _RULE.fullmatch(rule):
            return None
        for s, p in self.paragraphs():
            if rule in p.rules:
                return Hit(s, p, True)
        parts = rule.split(".")
        while len(parts) > 1:
            parts.pop()
            prefix = ".".join(parts)
            for s, p in self.paragraphs():
                if prefix in p.rules:
                    return Hit(s, p, False)
            for s, p in self.paragraphs():
                if any(r.startswith(prefix + ".") for r in p.rules):
                    return Hit(s, p, False)
        return None


def language(lang: str | None) -> str:
    """The supported language for a code such as ``"fr"``, ``"fr-CA"`` or ``"cs_CZ.UTF-8"``;
    English for anything else."""
    if lang:
        code = re.split(r"[-_.@]", lang.strip().lower(), maxsplit=1)[0]
        if code in LANGUAGES:
            return code
    return DEFAULT_LANGUAGE


def raw(lang: str | None = None) -> bytes:
    """The JSON file of a language, exactly as shipped (and as served to browsers)."""
    return (resources.files(__package__) / f"rules.{language(lang)}.json").read_bytes()


@cache
def _load(code: str) -> RulesText:
    doc = msgspec.json.decode(raw(code), type=RulesText)
    if doc.lang != code:
        raise ValueError(f"rules.{code}.json says lang {doc.lang!r}")
    return doc


def load(lang: str | None = None) -> RulesText:
    """The rule texts in ``lang`` (see :func:`language`), English when it is not one of ours."""
    return _load(language(lang))


def find(rule: str, lang: str | None = None) -> Hit | None:
    """``load(lang).find(rule)``."""
    return load(lang).find(rule)


def topics(lang: str | None = None) -> list[Topic]:
    """``load(lang).topics()``."""
    return load(lang).topics()


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "Hit",
    "Paragraph",
    "RulesText",
    "Section",
    "Topic",
    "find",
    "language",
    "load",
    "raw",
    "topics",
]
