"""A long, realistic Markdown answer cut into tokens, for the streaming benchmarks.

Paragraphs with inline code and bold, headings, bullet and numbered lists (some
nested), fenced code blocks (one long one), and tables, in the proportions a coding
assistant's answer has. Seeded, so every run streams the same text.
"""

from __future__ import annotations

import random
import re

WORD_TEXT = (
    "the of and to in is that for it with as on be by this are from or an at which "
    "model server token stream answer widget render layout parse block fence list table "
    "python function value return error config chat bot tool result delegation"
)
WORDS = WORD_TEXT.split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
    if rng.random() < 0.3:
        i = rng.randrange(len(words))
        words[i] = f"`{words[i]}()`"
    if rng.random() < 0.3:
        i = rng.randrange(len(words))
        words[i] = f"**{words[i]}**"
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))


def _code(rng: random.Random, lines: int) -> str:
    body = []
    for i in range(lines):
        indent = "    " * rng.randint(0, 2)
        word, call = rng.choice(WORDS), rng.choice(WORDS)
        body.append(f"{indent}{word}_{i} = {call}({rng.randint(0, 99)})  # {rng.choice(WORDS)}")
        if rng.random() < 0.1:
            body.append("")
    return "```python\n" + "\n".join(body) + "\n```"


def _list(rng: random.Random) -> str:
    ordered = rng.random() < 0.4
    items = []
    for i in range(rng.randint(3, 7)):
        items.append(f"{f'{i + 1}.' if ordered else '-'} {_sentence(rng)}")
        if rng.random() < 0.2:
            items.append(f"   - {_sentence(rng)}")
    return "\n".join(items)


def _table(rng: random.Random) -> str:
    rows = ["| name | value | note |", "|---|---|---|"]
    for _ in range(rng.randint(3, 8)):
        note = f"{rng.choice(WORDS)} {rng.choice(WORDS)}"
        rows.append(f"| {rng.choice(WORDS)} | {rng.randint(0, 999)} | {note} |")
    return "\n".join(rows)


def _block(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.08:
        return f"## {_sentence(rng)[:-1]}"
    if kind < 0.55:
        return _paragraph(rng)
    if kind < 0.75:
        return _list(rng)
    if kind < 0.92:
        return _code(rng, rng.randint(4, 25))
    return _table(rng)


def tokenize(text: str) -> list[str]:
    """Pieces of about four characters, with the whitespace before them (like a model's)."""
    return re.findall(r"\s*\S{1,4}|\s+", text)


def answer_tokens(tokens: int = 20_000, seed: int = 5) -> list[str]:
    """A Markdown answer of exactly ``tokens`` tokens (a long fence a third of the way)."""
    rng = random.Random(seed)
    blocks: list[str] = []
    count = 0
    while count < tokens:
        if len(blocks) == 30:
            blocks.append(_code(rng, 160))
        else:
            blocks.append(_block(rng))
        count += len(tokenize(blocks[-1] + "\n\n"))
    return tokenize("\n\n".join(blocks) + "\n")[:tokens]
