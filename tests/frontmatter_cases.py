"""SKILL.md frontmatter layouts seen in real public skills, written as our own cases.

The layouts come from reading Anthropic's skills repository (long one-line descriptions,
``license``, ``|-`` block descriptions, quoted descriptions) and OpenClaw-style skills (a
``metadata:`` flow map, on one line or starting on the next indented line with trailing
commas; ``requires``/``install`` inside it) and other community skills (block lists at the
key's indent, folded and literal scalars, multi-line quoted scalars with blank lines,
comments, BOM and CRLF). Each case is a whole SKILL.md text; the tests compare tuibot's
parse of its frontmatter with ``yaml.safe_load`` of the same lines.
"""

from __future__ import annotations

VALID: list[tuple[str, str]] = [
    (
        "plain",
        "---\nname: tidy-desk\ndescription: Put the files in a folder in order.\n---\nBody\n",
    ),
    (
        "long-description-license",
        "---\nname: slides\ndescription: Use this whenever a slide deck is read or written, "
        "including outlines, speaker notes and templates; also when the user says deck.\n"
        "license: Complete terms in LICENSE.txt\n---\n# Slides\n",
    ),
    (
        "quoted-description-with-colons",
        '---\nname: sheets\ndescription: "Spreadsheets: open, edit, fix formulas. Triggers: '
        "'xlsx', 'csv'\"\nlicense: Proprietary. See LICENSE.txt\n---\n",
    ),
    (
        "literal-strip-description",
        "---\nname: api-ref\ndescription: |-\n  Reference for an HTTP API: ids, limits.\n"
        "  READ FIRST when a file imports the client.\n  SKIP when another vendor is named.\n"
        "license: MIT\n---\n",
    ),
    (
        "folded-description",
        "---\nname: notes\ndescription: >\n  Summarise meeting notes into\n  decisions and"
        " actions.\n\n  Never invent owners.\n---\n",
    ),
    ("folded-keep", "---\ndescription: >+\n  one\n  two\n\n\nversion: 2\n---\n"),
    ("literal-indent-indicator", "---\ndescription: |2\n    indented code\n  back\n---\n"),
    (
        "openclaw-one-line-metadata",
        "---\nname: chat-cli\ndescription: Send messages with the chat CLI.\nhomepage: "
        'https://example.org\nmetadata: {"dna":{"emoji":"📱","requires":{"bins":["chatcli"]},'
        '"install":[{"id":"brew","kind":"brew","formula":"x/tap/chatcli","bins":["chatcli"]}]}}'
        "\n---\n",
    ),
    (
        "openclaw-next-line-flow-map",
        '---\nname: hook\ndescription: "Save a review note when a session resets"\nmetadata:\n'
        '  {\n    "openclaw":\n      {\n        "emoji": "🧠",\n        "events": ["command:new",'
        ' "command:reset"],\n        "requires": { "config": ["workspace.dir"] },\n      },\n  }'
        "\n---\n",
    ),
    (
        "openclaw-next-line-requires-bins",
        '---\nname: stocks\ndescription: Track a portfolio.\nmetadata:\n  {\n    "openclaw": {\n'
        '      "emoji": "📈",\n      "requires": { "bins": ["python3", "no-such-zz"] }\n    }\n  }'
        "\n---\n",
    ),
    (
        "openclaw-nested-install-list",
        '---\nname: icons\ndescription: Find icons.\nmetadata:\n  {\n    "openclaw":\n      {\n'
        '        "requires": { "bins": ["python3"] },\n        "offline": true,\n'
        '        "install":\n          [\n            {\n              "id": "clone",\n'
        '              "url": "https://example.org/icons.git"\n            },\n          ],\n'
        "      },\n  }\n---\n",
    ),
    (
        "openclaw-always-false",
        '---\nname: rag\ndescription: "Design retrieval pipelines."\nmetadata:\n  {\n'
        '    "openclaw": {\n      "emoji": "🔗",\n      "always": false\n    },\n'
        '    "other": { "suite": "x", "version": "v1" }\n  }\n---\n',
    ),
    ("block-list-at-key-indent", "---\ndescription: Review code\ntools:\n- read\n- grep\n---\n"),
    (
        "block-list-indented",
        "---\ndescription: Docs\nallowed-tools:\n  - Read\n  - Write\n  - Bash(python:*)\n---\n",
    ),
    (
        "keywords-and-timeout",
        "---\nname: svg\ndescription: Find SVG icons.\ncategory: developer-tools\nkeywords:\n"
        "  - icon\n  - svg\nagent_timeout: 60\n---\n",
    ),
    (
        "multi-line-double-quoted",
        '---\nname: apple\ndescription: "Line one of a long text;\n  still line one.\n\n'
        '  A new paragraph after a blank line.\n  **Not for**: other platforms."\n---\n',
    ),
    (
        "multi-line-single-quoted",
        "---\ndescription: 'It''s long,\n  and wraps\n\n  twice'\n---\n",
    ),
    (
        "plain-scalar-continued",
        "---\ndescription: Manage a budget and\n  categorise spending, using\n  local files.\n"
        "---\n",
    ),
    (
        "nested-maps",
        "---\nname: tx\ndescription: Transcribe audio.\nstate_tracking:\n  phases: [p1, p2]\n"
        '  labels:\n    p1: "P1 (轉錄)"\n    p2: "P2 (校對)"\nio_contracts:\n  consumes:\n'
        '    - "audio/mp4"\n  produces:\n    - "text/markdown"\n---\n',
    ),
    (
        "list-of-maps",
        "---\ndescription: Triage bugs.\nmetadata:\n  tags:\n    - name: bugs\n      weight: 2\n"
        "    - name: support\n---\n",
    ),
    (
        "list-of-maps-at-key-indent",
        "---\ndescription: Steps.\nsteps:\n- run: make\n  cwd: src\n- run: test\n---\n",
    ),
    (
        "comments",
        "---\n# leading comment\nname: shell   # trailing\n\ndescription: Pipelines. # note\n"
        "requires:\n  bins: [sh]  # one\n---\n",
    ),
    ("bom", "\ufeff---\nname: win\ndescription: Saved with a BOM\n---\nBody\n"),
    (
        "crlf",
        "---\r\nname: win\r\ndescription: >\r\n  CRLF folded\r\n  text\r\nrequires:\r\n"
        "  env: X\r\n---\r\nBody\r\n",
    ),
    ("bom-crlf", "\ufeff---\r\ndescription: both\r\n---\r\n"),
    ("null-and-empty", "---\ndescription: x\ncompatibility: null\nempty:\ntilde: ~\n---\n"),
    (
        "yaml-typed-scalars",
        "---\ndescription: x\nversion: 1.0\ncount: 3\nalways: yes\nflag: off\ncreated: "
        "2025-01-31\noctal: 010\n---\n",
    ),
    ("quoted-version", "---\ndescription: x\nversion: '1.0'\nname: \"007\"\n---\n"),
    (
        "escapes",
        '---\ndescription: "tab\\tnew\\nline \\"q\\" \\x41 \\u00e9"\n'
        'argument-hint: "[path] [--fast]"\n---\n',
    ),
    ("quoted-keys", "---\n\"name\": quoting\n'description': It's fine\n---\n"),
    ("url-value", "---\ndescription: x\nhomepage: https://example.org/a#b?c=d\n---\n"),
    ("hash-without-space", "---\ndescription: Issue#42 and C# code\n---\n"),
    (
        "flow-map-inline",
        "---\ndescription: x\nm: {a: [1, 'two', {b: true}], \"c d\": off, e: ~}\n---\n",
    ),
    ("flow-seq-multiline", "---\ndescription: x\ntools: [\n  read,\n  write,\n]\n---\n"),
    ("unicode", "---\nname: 日本語メモ\ndescription: 日本語でメモ — notes ✍️\n---\n"),
    ("anchor-alias", "---\ndescription: &d Shared text\nsummary: *d\n---\n"),
    ("explicit-doc-end", "---\nname: dots\ndescription: ends with dots\n...\nBody\n"),
    ("description-after-blank-lines", "---\n\n\nname: gap\n\ndescription: later\n\n---\n"),
    ("literal-keep-trailing", "---\ndescription: |+\n  kept\n\n---\n"),
    ("empty-frontmatter", "---\n---\nBody\n"),
    (
        "when-to-use-literal-list",
        "---\ndescription: Release notes.\nwhen_to_use: |\n  - a tag is cut\n"
        '  - someone asks "what changed?"\n---\n',
    ),
]
"""Valid frontmatter: tuibot must read exactly what ``yaml.safe_load`` reads."""
VALID += [  # more layouts seen in public skills (OpenClaw block metadata, Windows editors, ...)
    ("duplicate-key-last-wins", "---\nname: a\ndescription: one\ndescription: two\n---\n"),
    ("folded-strip", "---\ndescription: >-\n  Folded and\n  stripped.\n---\n"),
    ("spaces-after-fences", "--- \ndescription: x\n---  \nBody\n"),
    (
        "openclaw-block-metadata",
        '---\nname: w\ndescription: Chat CLI.\nmetadata:\n  openclaw:\n    emoji: "💬"\n'
        "    requires:\n      bins:\n        - chatcli\n---\n",
    ),
    ("json-object-frontmatter", '---\n{"name": "j", "description": "JSON is YAML"}\n---\n'),
    ("explicit-key", "---\n? description\n: complex key\n---\n"),
    ("empty-quoted-description", '---\nname: e\ndescription: ""\n---\n'),
    ("version-float-list", "---\ndescription: x\nversions: [1.0, 2.10, '3.0']\n---\n"),
    ("comment-only-lines", "---\n# a\n# b\ndescription: x\n# c\n---\n"),
    ("crlf-block-list-at-key-indent", "---\r\ndescription: x\r\ntools:\r\n- a\r\n- b\r\n---\r\n"),
    ("backslashes-single-quoted", "---\ndescription: 'C:\\path\\to'\n---\n"),
    ("folded-more-indented", "---\ndescription: >\n  a\n    code\n  b\n---\n"),
    ("fence-again-in-body", "---\ndescription: x\n---\nbody\n---\nmore\n"),
    ("no-final-newline", "---\ndescription: x\n---"),
    ("timestamp", "---\ndescription: x\nupdated: 2025-01-31T10:00:00Z\n---\n"),
    ("merge-key", "---\nbase: &b {a: 1}\nmeta:\n  <<: *b\n  c: 2\ndescription: x\n---\n"),
]


INVALID: list[tuple[str, str, int]] = [
    ("tab-indent", "---\ndescription: tabs\nrequires:\n\tbins: sh\n---\n", 4),
    ("unclosed-double-quote", '---\ndescription: "never closed\n---\n', 2),
    ("unclosed-flow", '---\ndescription: flow\nmetadata: {"a": [1, 2}\n---\n', 3),
    ("bad-indent", "---\ndescription: x\n   bad: 1\n---\n", 3),
    ("list-then-key", "---\na:\n  - x\n  y: 1\n---\n", 4),
    ("text-after-quote", '---\na: "x" y\n---\n', 2),
    ("indented-first-key", "---\n  a: 1\nb: 2\n---\n", 3),
    ("colon-in-plain", "---\nname: x\ndescription: Use when: the user asks\n---\n", 3),
    ("undefined-alias", "---\ndescription: *nothing\n---\n", 2),
    ("tab-inside-plain-value", "---\ndescription: a\tb\n---\n", 2),
    ("colon-on-continued-line", "---\ndescription: This skill\n  helps when: asked\n---\n", 3),
]
"""Invalid frontmatter with the 1-based file line YAML reports the problem on."""
