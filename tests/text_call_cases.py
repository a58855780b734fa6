"""Tool calls as local models write them into answer text: a table per dialect.

Written for tuibot after reading how vLLM's tool-parser tests, llama.cpp's chat tests
and model cards describe each format; the cases and their wording are our own. Each
case is (answer text, expected calls as (name, arguments), expected leftover text);
``SAME`` as the leftover means the answer must stay exactly as it is, with no call.
"""

from __future__ import annotations

from text_call_cases_base import SAME, TOOLS, Case, W
from text_call_cases_more import DEEPSEEK, FENCED, FIREFUNCTION, FUNCTIONARY, GLM
from text_call_cases_vendor import EXTRA

__all__ = ["DIALECTS", "TOOLS", "Case"]

HERMES: list[Case] = [
    (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
        [(W, {"city": "Oslo"})],
        "",
    ),
    (
        'I will check both.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n'
        '</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>',
        [(W, {"city": "Lima"}), ("get_time", {})],
        "I will check both.",
    ),
    (
        '<tool_call>{"name": "write_file", "arguments": {"path": "a.md", "content": '
        '"say \\"hi\\"\\nthen </tool_call> ends"}}</tool_call>',
        [("write_file", {"path": "a.md", "content": 'say "hi"\nthen </tool_call> ends'})],
        "",
    ),
    (
        '<tool_call>{"name": "calculate_area", "arguments": {"shape": "box", "dimensions": '
        '{"w": 2, "h": {"min": 1, "max": 3}}, "precision": 1}}</tool_call>',
        [
            (
                "calculate_area",
                {"shape": "box", "dimensions": {"w": 2, "h": {"min": 1, "max": 3}}, "precision": 1},
            )
        ],
        "",
    ),
    (
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "x.py"}}',
        [("read_file", {"path": "x.py"})],
        "",
    ),
    (
        '<tool_call>{"name": "search", "arguments": {"query": "ü → ✓", "limit": 3}}</tool_call>'
        "\nAfter that I summarise.",
        [("search", {"query": "ü → ✓", "limit": 3})],
        "After that I summarise.",
    ),
    ("Nothing to call here.<tool_call></tool_call>", [], "Nothing to call here."),
    ("<tool_call>\n</tool_call>\nDone.", [], "Done."),
    ('<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>', [], SAME),
    ('<tool_call>{"name": "get_weather", "arguments": {"city": </tool_call>', [], SAME),
    ('<tool_call>{"name": "get_time"}</tool_call>', [("get_time", {})], ""),
    (
        '<tool_call>{"type": "function", "function": {"name": "get_weather", '
        '"arguments": "{\\"city\\": \\"Rome\\"}"}}</tool_call>',
        [(W, {"city": "Rome"})],
        "",
    ),
    ("Use the <tool_call> tag to call a tool, like this.", [], SAME),
]

QWEN3_XML: list[Case] = [
    (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nBerlin\n</parameter>\n"
        "</function>\n</tool_call>",
        [(W, {"city": "Berlin"})],
        "",
    ),
    (
        "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
        '<parameter=dimensions>\n{"width": 10, "height": 20}\n</parameter>\n'
        "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>",
        [
            (
                "calculate_area",
                {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2},
            )
        ],
        "",
    ),
    (
        "<tool_call>\n<function=search>\n<parameter=query>\n42\n</parameter>\n"
        "<parameter=limit>\n7\n</parameter>\n<parameter=exact>\nfalse\n</parameter>\n"
        "<parameter=ratio>\n0.5\n</parameter>\n</function>\n</tool_call>",
        [("search", {"query": "42", "limit": 7, "exact": False, "ratio": 0.5})],
        "",
    ),
    (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.xml\n</parameter>\n"
        "<parameter=content>\n<a>x</parameter> is text</a>\nline two\n</parameter>\n"
        "</function>\n</tool_call>",
        [
            (
                "write_file",
                {"path": "notes.xml", "content": "<a>x</parameter> is text</a>\nline two"},
            )
        ],
        "",
    ),
    (
        "Sure, reading it now.\n\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.py\n"
        "</parameter>\n<parameter=start>\nnull\n</parameter>\n</function>\n</tool_call>",
        [("read_file", {"path": "src/a.py", "start": None})],
        "Sure, reading it now.",
    ),
    (
        '<tool_call>\n<function=set_tags>\n<parameter=tags>\n["a", "b c"]\n</parameter>\n'
        "</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>",
        [("set_tags", {"tags": ["a", "b c"]}), ("get_time", {})],
        "",
    ),
    (
        "<tool_call>\n<function=run_command>\n<parameter=command>\necho \"a & b\" > 'f.txt'\n"
        "</parameter>\n</function>\n</tool_call>",
        [("run_command", {"command": "echo \"a & b\" > 'f.txt'"})],
        "",
    ),
    (
        "<function=get_weather>\n<parameter=city>\nQuito\n</parameter>\n</function>",
        [(W, {"city": "Quito"})],
        "",
    ),
    (
        "<tool_call>\n<function=delete_everything>\n<parameter=path>\n/\n</parameter>\n"
        "</function>\n</tool_call>",
        [],
        SAME,
    ),
    (
        "<tool_call>\n<function=calculate_area>\n<parameter=precision>\ntwo\n</parameter>\n"
        "</function>\n</tool_call>",
        [("calculate_area", {"precision": "two"})],
        "",
    ),
    (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>\nI'll report back.",
        [(W, {"city": "Paris"})],
        "I'll report back.",
    ),
    (
        "<tool_call>\n<function=search>\n<parameter=query>\n  spaced  \n</parameter>\n"
        "</function>\n</tool_call>",
        [("search", {"query": "  spaced  "})],
        "",
    ),
]

LLAMA3_JSON: list[Case] = [
    ('{"name": "get_weather", "parameters": {"city": "Cairo"}}', [(W, {"city": "Cairo"})], ""),
    (
        '{"name": "get_weather", "parameters": {"city": "Rome"}}; '
        '{"name": "get_time", "parameters": {}}; {"name": "search", "parameters": {"query": "x"}}',
        [(W, {"city": "Rome"}), ("get_time", {}), ("search", {"query": "x"})],
        "",
    ),
    (
        '{"name": "get_weather", "parameters": {"city": "A"}};{"name": "get_weather", '
        '"parameters": {"city": "B"}}',
        [(W, {"city": "A"}), (W, {"city": "B"})],
        "",
    ),
    (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Nairobi"}}<|eom_id|>',
        [(W, {"city": "Nairobi"})],
        "",
    ),
    (
        '<|python_tag|>{"name": "get_time", "parameters": {}}; '
        '{"name": "get_weather", "parameters": {"city": "Lagos"}}',
        [("get_time", {}), (W, {"city": "Lagos"})],
        "",
    ),
    (
        '  {"name": "search", "arguments": {"query": "say \\"{x}\\" [y]", "limit": 2}}\n',
        [("search", {"query": 'say "{x}" [y]', "limit": 2})],
        "",
    ),
    (
        '{"name": "calculate_area", "parameters": {"dimensions": {"a": {"b": {"c": [1, 2]}}}}}',
        [("calculate_area", {"dimensions": {"a": {"b": {"c": [1, 2]}}}})],
        "",
    ),
    ('Here is the call: {"name": "get_weather", "parameters": {"city": "Oslo"}} okay?', [], SAME),
    ('{"name": "get_weather", "parameters": {"city": "Oslo"}} and that is the result', [], SAME),
    ('{"name": "delete_everything", "parameters": {}}', [], SAME),
    ('{"city": "Oslo"}', [], SAME),
    ('{"name": "get_weather", "parameters": {"city": "Oslo"}; {"name": "get_time"}', [], SAME),
    (
        '{"name": "get_weather", "parameters": {"city": "Oslo"}}\n'
        '{"name": "get_weather", "parameters": {"city": "Bergen"}}',
        [(W, {"city": "Oslo"}), (W, {"city": "Bergen"})],
        "",
    ),
]

MISTRAL: list[Case] = [
    (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Nice"}}]',
        [(W, {"city": "Nice"})],
        "",
    ),
    (
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Lyon"}, "id": "abc123XYZ"}, '
        '{"name": "get_time", "arguments": {}}]',
        [(W, {"city": "Lyon"}), ("get_time", {})],
        "",
    ),
    (
        '[TOOL_CALLS]get_weather{"city": "Porto", "days": 2}',
        [(W, {"city": "Porto", "days": 2})],
        "",
    ),
    ('[TOOL_CALLS]get_weather[ARGS]{"city": "Faro"}', [(W, {"city": "Faro"})], ""),
    (
        '[TOOL_CALLS]get_weather{"city": "Bern"}[TOOL_CALLS]get_time{}',
        [(W, {"city": "Bern"}), ("get_time", {})],
        "",
    ),
    (
        '[TOOL_CALLS]search[ARGS]{"query": "a"}[TOOL_CALLS]search[ARGS]{"query": "b"}',
        [("search", {"query": "a"}), ("search", {"query": "b"})],
        "",
    ),
    (
        'Let me look that up.[TOOL_CALLS]run_command[ARGS]{"command": "print(\\"hi {}\\")\\nls"}',
        [("run_command", {"command": 'print("hi {}")\nls'})],
        "Let me look that up.",
    ),
    ('half{brace [TOOL_CALLS]get_weather{"city": "Gent"}', [(W, {"city": "Gent"})], "half{brace"),
    ('[TOOL_CALLS]delete_everything{"path": "/"}', [], SAME),
    ('[TOOL_CALLS]get_weather{"city": ', [], SAME),
    ("[TOOL_CALLS] not json at all", [], SAME),
    (
        '[TOOL_CALLS]get_weather[CALL_ID]abc123def[ARGS]{"city": "Riga"}',
        [(W, {"city": "Riga"})],
        "",
    ),
]

PYTHONIC: list[Case] = [
    ('[get_weather(city="Paris")]', [(W, {"city": "Paris"})], ""),
    (
        '[get_weather(city="Paris", days=3), get_time()]',
        [(W, {"city": "Paris", "days": 3}), ("get_time", {})],
        "",
    ),
    (
        "[search(query='it\\'s \"quoted\"', limit=5, exact=True, ratio=0.25)]",
        [("search", {"query": 'it\'s "quoted"', "limit": 5, "exact": True, "ratio": 0.25})],
        "",
    ),
    (
        '[calculate_area(shape="disc", dimensions={"r": 2, "extra": [1, None]}, precision=-1)]',
        [
            (
                "calculate_area",
                {"shape": "disc", "dimensions": {"r": 2, "extra": [1, None]}, "precision": -1},
            )
        ],
        "",
    ),
    ("[set_tags(tags=['x', 'y'])]", [("set_tags", {"tags": ["x", "y"]})], ""),
    ('<|python_start|>[get_weather(city="Accra")]<|python_end|>', [(W, {"city": "Accra"})], ""),
    (
        '  [write_file(path="a.txt", content="line1\\nline2")]  ',
        [("write_file", {"path": "a.txt", "content": "line1\nline2"})],
        "",
    ),
    ('[read_file(path="a", start=None)]', [("read_file", {"path": "a", "start": None})], ""),
    ('[delete_everything(path="/")]', [], SAME),
    ('[get_weather(city=__import__("os").system("id"))]', [], SAME),
    ('[get_weather("Paris")]', [], SAME),
    ("[Paris](https://example.org) is a link.", [], SAME),
    ('I would call [get_weather(city="Paris")] here.', [], SAME),
]

BASE: dict[str, list[Case]] = {
    "hermes": HERMES,
    "qwen3_xml": QWEN3_XML,
    "llama3_json": LLAMA3_JSON,
    "mistral": MISTRAL,
    "pythonic": PYTHONIC,
    "glm": GLM,
    "deepseek": DEEPSEEK,
    "functionary": FUNCTIONARY,
    "firefunction": FIREFUNCTION,
    "fenced": FENCED,
}

DIALECTS: dict[str, list[Case]] = {name: cases + EXTRA[name] for name, cases in BASE.items()}
"""Each dialect's table: the first cases, then those written from other projects' parsers."""
