"""Account names: what is shown, and what is compared so that two accounts never look alike.

Two names are the same account name when their *keys* are equal. The key is built in steps:

1. Unicode NFKC (full-width letters, ligatures, mathematical and other compatibility forms fold
   to the plain ones); every space-like character (no-break, ideographic, thin, ...) made one
   plain space, runs of spaces collapsed and the ends trimmed; every invisible character
   removed (zero-width spaces and joiners, bidirectional marks and embeddings, soft hyphens,
   variation selectors: Unicode's default-ignorable code points). This is also the shown name
   (case kept). Control characters are refused.
2. Full case folding (``MARIE``, ``Straße`` / ``STRASSE``).
3. Look-alikes folded to one letter (``LOOKALIKES`` below, applied to the decomposed text so
   that accents stay: Cyrillic ``ё`` is Latin ``ë``): the Cyrillic and Greek letters that look
   like a Latin one (Cyrillic ``а`` is ``a``, Greek ``ο`` is ``o``), a few Latin variants
   (dotless ``ı``, script ``ɡ``, Latin alpha ``ɑ``), the digits ``0`` and ``1`` (as ``o`` and
   ``l``), every dash and minus sign (as ``-``), the typographic apostrophes (as ``'``), and the
   pair ``rn`` (as ``m``). Because the key is compared without case, a letter is folded when
   *either* of its cases looks like the Latin letter in the same case (Cyrillic ``В`` looks
   like ``B``, so ``в`` folds to ``b`` too): otherwise ``ВОВА`` and ``вова``, one name, would
   get two keys.

Not covered (said so in docs/PROTOCOL.md section 13): look-alikes from other scripts
(Armenian, Cherokee, Coptic, ...), Latin small capitals and IPA letters other than those
listed, Cyrillic or Greek letters whose look-alike is a digit or a symbol (``З``, ``Ч``),
``I`` against ``l`` (folding them would make ``Marie`` and ``Marle`` one name), ``cl`` against
``d`` and ``vv`` against ``w``, and accented letters against plain ones (``Marié`` and ``Marie``
are two names). Unicode's full confusables table (UTS #39, thousands of entries, not
case-insensitive) is not used.
"""

from __future__ import annotations

import unicodedata

from protocol.text import invisible

MAX_LEN = 32


_ignorable = invisible  # zero-width, bidirectional marks, fillers: protocol/text.py


#: One letter per look-alike (see the module doc), on case-folded, decomposed text.
LOOKALIKES: dict[str, str] = {
    # Cyrillic
    "\u0430": "a",  # а
    "\u0432": "b",  # в (В)
    "\u0435": "e",  # е (ё, ѐ keep their accent)
    "\u0456": "i",  # і (ї)
    "\u0458": "j",  # ј
    "\u043a": "k",  # к (К)
    "\u04cf": "l",  # ӏ palochka
    "\u043c": "m",  # м (М)
    "\u043d": "h",  # н (Н)
    "\u04bb": "h",  # һ
    "\u043e": "o",  # о
    "\u0440": "p",  # р
    "\u051b": "q",  # ԛ
    "\u0441": "c",  # с
    "\u0455": "s",  # ѕ
    "\u0442": "t",  # т (Т)
    "\u0443": "y",  # у
    "\u04af": "y",  # ү
    "\u051d": "w",  # ԝ
    "\u0445": "x",  # х
    "\u0501": "d",  # ԁ
    # Greek
    "\u03b1": "a",  # α
    "\u03b2": "b",  # β (Β)
    "\u03b5": "e",  # ε (Ε)
    "\u03b6": "z",  # ζ (Ζ)
    "\u03b7": "h",  # η (Η)
    "\u03b9": "i",  # ι
    "\u03f3": "j",  # ϳ
    "\u03ba": "k",  # κ
    "\u03bc": "m",  # μ (Μ)
    "\u03bd": "n",  # ν (Ν)
    "\u03bf": "o",  # ο
    "\u03c1": "p",  # ρ
    "\u03c4": "t",  # τ (Τ)
    "\u03c5": "y",  # υ (Υ)
    "\u03c7": "x",  # χ
    # Latin variants
    "\u0131": "i",  # ı dotless i
    "\u0269": "i",  # ɩ
    "\u0251": "a",  # ɑ
    "\u0261": "g",  # ɡ
    # digits
    "0": "o",
    "1": "l",
    # apostrophes (French names: D'Artagnan)
    "\u2018": "'",
    "\u2019": "'",
    "\u201b": "'",
    "\u02bc": "'",
    "\u02b9": "'",
    "\u2032": "'",
    "`": "'",
    # the minus sign (the dashes, category Pd, are folded by _fold)
    "\u2212": "-",
}


def _fold(key: str) -> str:
    out = []
    for ch in unicodedata.normalize("NFD", key):
        if unicodedata.category(ch) == "Pd":
            out.append("-")
        else:
            out.append(LOOKALIKES.get(ch, ch))
    return unicodedata.normalize("NFC", "".join(out)).replace("rn", "m")


def _space(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp")


class BadName(ValueError):
    pass


def display_name(raw: str) -> str:
    """The name as shown (raises BadName when nothing printable is left, or it is too long)."""
    text = unicodedata.normalize("NFKC", raw)
    out: list[str] = []
    for ch in text:
        if _ignorable(ch):
            continue
        if _space(ch):
            if out and out[-1] != " ":
                out.append(" ")
            continue
        if unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn"):
            raise BadName("a name may not contain control or unassigned characters")
        out.append(ch)
    name = "".join(out).strip()
    if not name:
        raise BadName("a name needs at least one visible character")
    if len(name) > MAX_LEN:
        raise BadName(f"a name has at most {MAX_LEN} characters")
    return name


def name_key(raw: str) -> str:
    """What account names are compared by (see the module doc)."""
    return _fold(unicodedata.normalize("NFKC", display_name(raw).casefold()))
