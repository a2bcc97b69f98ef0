"""Words to token ids with a local ``tokenizer.json`` (the ``tokenizers`` package).

A word is usable only if it is ONE token.  Two spellings are tried: with a leading
space (``" Monday"``, what follows ``"Today is"`` in running text; GPT-2 shows it as
``"ĠMonday"``, SentencePiece as ``"▁Monday"``) and bare (``"Monday"``).  The policy
``space`` is ``"leading"`` (only the leading-space spelling), ``"none"`` (only the bare
spelling) or ``"auto"`` (leading-space if it is one token, else bare); the spelling used
is always reported.  A word that is several tokens in every allowed spelling, maps to the
unknown token, or collides with another word's token is an error naming the pieces;
nothing is picked silently.

Examples
--------
>>> from tokenizers import Tokenizer, models, pre_tokenizers
>>> tok = Tokenizer(models.WordLevel({"[UNK]": 0, "Monday": 1, "Tuesday": 2},
...                                  unk_token="[UNK]"))
>>> tok.pre_tokenizer = pre_tokenizers.Whitespace()
>>> resolve_tokens(["Tuesday", "Monday"], tok).ids
(2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from logitgeom.errors import InvalidInput

__all__ = ["TokenSet", "load_tokenizer", "parse_token_list", "resolve_tokens", "SPACE_POLICIES"]

SPACE_POLICIES = ("auto", "leading", "none")


@dataclass(frozen=True)
class TokenSet:
    """Words resolved to single tokens.

    Attributes
    ----------
    words : tuple of str
        The words as given.
    ids : tuple of int
        One token id per word.
    spellings : tuple of str
        The exact string that encodes to that one token (``" Monday"`` or ``"Monday"``).
    pieces : tuple of str
        The vocabulary entry of each token (``"ĠMonday"``).
    alternatives : tuple of tuple
        Per word, other single-token spellings that were not used: ``((spelling, id), ...)``.
    """

    words: tuple[str, ...]
    ids: tuple[int, ...]
    spellings: tuple[str, ...]
    pieces: tuple[str, ...]
    alternatives: tuple[tuple[tuple[str, int], ...], ...]

    def __len__(self) -> int:
        return len(self.ids)

    def as_dict(self) -> dict:
        """JSON-ready description (lists, sorted keys left to the caller)."""
        return {
            "words": list(self.words),
            "ids": list(self.ids),
            "spellings": list(self.spellings),
            "pieces": list(self.pieces),
            "alternatives": [[list(a) for a in alts] for alts in self.alternatives],
        }


def load_tokenizer(path: str | Path):
    """Load a ``tokenizers.Tokenizer`` from a local ``tokenizer.json`` or a folder holding one.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    tokenizers.Tokenizer

    Raises
    ------
    InvalidInput
        Missing file, unreadable JSON, or the ``tokenizers`` package absent.

    Examples
    --------
    >>> load_tokenizer("/nonexistent/tokenizer.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: tokenizer not found: /nonexistent/tokenizer.json ...
    """
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "tokenizer.json"
    if not p.exists():
        raise InvalidInput(f"tokenizer not found: {p} (give a local tokenizer.json or a folder "
                           "holding one; nothing is downloaded)")
    from logitgeom._fsio import check_input_file

    check_input_file(p, "tokenizer file")  # a pipe or device: named, never read
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - part of the models extra
        raise InvalidInput("the 'tokenizers' package is needed to read tokenizer.json; "
                           "install the 'models' extra") from exc
    try:
        return Tokenizer.from_file(str(p))
    except Exception as exc:
        raise InvalidInput(f"{p} is not a readable tokenizer.json: {exc}") from exc


def parse_token_list(text: str) -> list[str]:
    """Split ``"Monday, Tuesday,Wednesday"`` at commas, stripping blanks around each word.

    Examples
    --------
    >>> parse_token_list("Monday, Tuesday ,Wednesday")
    ['Monday', 'Tuesday', 'Wednesday']
    """
    words = [w.strip() for w in text.split(",")]
    if not words or any(w == "" for w in words):
        raise InvalidInput(f"token list {text!r} has an empty entry; separate words by commas")
    return words


def _unk_ids(tok) -> set[int]:
    out = set()
    unk = getattr(tok.model, "unk_token", None)
    if isinstance(unk, str) and unk:
        i = tok.token_to_id(unk)
        if i is not None:
            out.add(int(i))
    unk_id = getattr(tok.model, "unk_id", None)  # Unigram
    if isinstance(unk_id, int):
        out.add(unk_id)
    return out


def _encode(tok, s: str) -> list[int]:
    return list(tok.encode(s, add_special_tokens=False).ids)


def resolve_tokens(words: Sequence[str], tokenizer, *, space: str = "auto") -> TokenSet:
    """Map each word to exactly one token id.

    Parameters
    ----------
    words : sequence of str
        Words as typed (``"Monday"``); a word may itself start with a space.
    tokenizer : tokenizers.Tokenizer or str or Path
        A loaded tokenizer or a path for :func:`load_tokenizer`.
    space : {"auto", "leading", "none"}
        Which spellings are allowed (module docstring).

    Returns
    -------
    TokenSet

    Raises
    ------
    InvalidInput
        Empty or duplicate words, a word that is not in the vocabulary (unknown token),
        a word that is several tokens in every allowed spelling (the pieces are listed),
        two words mapping to the same token, or an unknown ``space`` policy.

    Examples
    --------
    >>> from tokenizers import Tokenizer, models
    >>> tok = Tokenizer(models.WordLevel({"[UNK]": 0, "Monday": 1}, unk_token="[UNK]"))
    >>> resolve_tokens(["Caturday"], tok, space="none")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: 'Caturday' is not in the vocabulary ...
    """
    if space not in SPACE_POLICIES:
        raise InvalidInput(f"space={space!r}; use one of {SPACE_POLICIES}")
    if isinstance(tokenizer, str | Path):
        tokenizer = load_tokenizer(tokenizer)
    words = list(words)
    if not words:
        raise InvalidInput("no words given")
    seen_words: set[str] = set()
    unk = _unk_ids(tokenizer)
    ids, spellings, pieces, alts = [], [], [], []
    for w in words:
        if not isinstance(w, str) or not w.strip():
            raise InvalidInput(f"every word must be a non-empty string; got {w!r}")
        if w in seen_words:
            raise InvalidInput(f"word {w!r} is listed twice")
        seen_words.add(w)
        bare = w.lstrip(" ")
        if space == "leading":
            tried = [" " + bare]
        elif space == "none":
            tried = [w]
        else:
            tried = [" " + bare, bare] if not w.startswith(" ") else [w]
        encodings = [(s, _encode(tokenizer, s)) for s in tried]
        single = [(s, e[0]) for s, e in encodings if len(e) == 1 and e[0] not in unk]
        if not single:
            if all(len(e) == 1 and e[0] in unk for _, e in encodings) or all(
                any(i in unk for i in e) for _, e in encodings
            ):
                raise InvalidInput(
                    f"{w!r} is not in the vocabulary (it encodes to the unknown token)"
                )
            detail = "; ".join(
                f"{s!r} -> {[tokenizer.id_to_token(i) for i in e]}" for s, e in encodings
            )
            raise InvalidInput(
                f"{w!r} is not a single token ({detail}); pick a word that is one token, "
                f"or another spelling (space={space!r})"
            )
        s, i = single[0]
        ids.append(int(i))
        spellings.append(s)
        pieces.append(tokenizer.id_to_token(int(i)))
        alts.append(tuple((s2, int(i2)) for s2, i2 in single[1:] if i2 != i))
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        clash = [[words[k] for k, i in enumerate(ids) if i == d] for d in dup]
        raise InvalidInput(f"different words map to the same token: {clash}")
    return TokenSet(tuple(words), tuple(ids), tuple(spellings), tuple(pieces), tuple(alts))
