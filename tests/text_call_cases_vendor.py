"""More text tool-call cases, per dialect, written after reading other projects' parsers.

Shapes learnt from vLLM's ``tests/tool_parsers`` (Llama 3 JSON separators, Mistral's
argument-first objects and trailing data, Qwen3-Coder's one-line parameters, GLM 4.7's
form without newlines, DeepSeek V3.1 after prose) and from llama.cpp's chat parsers
(the Hermes 2 Pro "good bad" wrappers ``<response>``, ``<tools>``, ``<function_call>``,
``<json>`` and ``<function name="…">``, a fence tagged ``xml`` around ``<response>``).
The cases and their wording are ours; same conventions as ``text_call_cases``. They are
appended to each dialect's table, so the ids of the older cases stay as they were.
"""

from __future__ import annotations

from text_call_cases_base import SAME, Case, W
from text_call_cases_more import CB, CE, SEP, B, E

HERMES: list[Case] = [
    (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
        [(W, {"city": "Oslo"}), ("get_time", {})],
        "",
    ),
    (
        '<tool_call>\n{"arguments": {"city": "Tromsø"}, "name": "get_weather"}\n</tool_call>',
        [(W, {"city": "Tromsø"})],
        "",
    ),
    (
        "<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}\n</tool_call>',
        [(W, {"city": "Oslo", "unit": "celsius"})],
        "<think>\nThe user wants the weather.\n</think>",
    ),
    (
        '<response>\n{"name": "get_weather", "arguments": {"city": "Bodø"}}\n</response>',
        [(W, {"city": "Bodø"})],
        "",
    ),
    (
        '<tools>\n  {"name": "search", "arguments": {"query": "fjords", "limit": 2}}\n</tools>',
        [("search", {"query": "fjords", "limit": 2})],
        "",
    ),
    (
        '<function_call>{"name": "get_time", "arguments": {}}</function_call>',
        [("get_time", {})],
        "",
    ),
    (
        '<json>{"name": "read_file", "arguments": {"path": "a.txt"}}</json>',
        [("read_file", {"path": "a.txt"})],
        "",
    ),
    (
        '<JSON>{"name": "get_weather", "arguments": {"city": "Mo"}}</JSON>',
        [(W, {"city": "Mo"})],
        "",
    ),
    ("<response>\n  <status>ok</status>\n</response>", [], SAME),
    ('<response>{"name": "delete_everything", "arguments": {}}</response>', [], SAME),
    (
        'Answer: <response>{"name": "get_weather", "arguments": {"city": "Oslo"}}</response>',
        [],
        SAME,
    ),
    (
        '<response>{"name": "get_weather", "arguments": {"city": "Oslo"}}</response> and more',
        [],
        SAME,
    ),
]

QWEN3_XML: list[Case] = [
    (
        "<tool_call>\n<function=get_weather>\n<parameter=city>Berlin</parameter>\n"
        "<parameter=days>3</parameter>\n</function>\n</tool_call>",
        [(W, {"city": "Berlin", "days": 3})],
        "",
    ),
    (
        "<tool_call><function=search><parameter=query>x</parameter><parameter=exact>True"
        "</parameter></function></tool_call>",
        [("search", {"query": "x", "exact": True})],
        "",
    ),
    (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nBerlin\n</parameter>\n"
        "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n"
        "<function=get_weather>\n<parameter=city>\nMunich\n</parameter>\n</function>\n</tool_call>",
        [(W, {"city": "Berlin", "unit": "celsius"}), (W, {"city": "Munich"})],
        "",
    ),
    (
        "I'll check.\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>",
        [("get_time", {})],
        "I'll check.",
    ),
    (
        "<tool_call>\n<function=set_tags>\n<parameter=tags>\n['a', 'b']\n</parameter>\n"
        "</function>\n</tool_call>",
        [("set_tags", {"tags": ["a", "b"]})],
        "",
    ),
]

LLAMA3_JSON: list[Case] = [
    (
        '{"name": "get_weather", "parameters": {"city": "Rome"}} ; '
        '{"name": "get_time", "parameters": {}}',
        [(W, {"city": "Rome"}), ("get_time", {})],
        "",
    ),
    (
        '{"name": "get_weather", "parameters": {"city": "Rome"}};\n'
        '{"name": "get_time", "parameters": {}}',
        [(W, {"city": "Rome"}), ("get_time", {})],
        "",
    ),
    (
        '{"type": "function", "name": "get_weather", "parameters": {"city": "Turin"}}',
        [(W, {"city": "Turin"})],
        "",
    ),
    (
        '{"name": "search", "parameters": {"query": "He said \\"hi {x}\\"", "limit": 1}}',
        [("search", {"query": 'He said "hi {x}"', "limit": 1})],
        "",
    ),
    ('{"parameters": {}}', [], SAME),
    (
        '{"name": "get_weather", "parameters": {"city": "Rome"}} I used {get_weather} here.',
        [],
        SAME,
    ),
]

MISTRAL: list[Case] = [
    (
        '[TOOL_CALLS] [{"arguments": {"city": "Nice"}, "name": "get_weather"}]',
        [(W, {"city": "Nice"})],
        "",
    ),
    (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Dax"}}]\nextra trailing data',
        [(W, {"city": "Dax"})],
        "extra trailing data",
    ),
    (
        '[TOOL_CALLS]search{"query": "x", "ratio": 3.5}',
        [("search", {"query": "x", "ratio": 3.5})],
        "",
    ),
    (
        '[TOOL_CALLS][{"name": "get_weather", "arguments": "{\\"city\\": \\"Pau\\"}"}]',
        [(W, {"city": "Pau"})],
        "",
    ),
    ("[TOOL_CALLS]get_time[ARGS]{}", [("get_time", {})], ""),
    (
        'Sure.\n\n[TOOL_CALLS][{"name": "get_time", "arguments": {}}] Then I answer.',
        [("get_time", {})],
        "Sure. Then I answer.",
    ),
]

PYTHONIC: list[Case] = [
    (
        '[get_weather(city="Paris"),\n get_weather(city="Rome")]',
        [(W, {"city": "Paris"}), (W, {"city": "Rome"})],
        "",
    ),
    ("[get_time()]", [("get_time", {})], ""),
    (
        '[set_tags(tags=[{"k": 1}, {"k": 2}])]',
        [("set_tags", {"tags": [{"k": 1}, {"k": 2}]})],
        "",
    ),
    (
        '[search(query="\\u00e9t\\u00e9", exact=False)]',
        [("search", {"query": "été", "exact": False})],
        "",
    ),
    (
        '<|python_start|>[get_time(), get_weather(city="Oslo")]<|python_end|>',
        [("get_time", {}), (W, {"city": "Oslo"})],
        "",
    ),
    ('[get_weather(city="Paris"), print("x")]', [], SAME),
]

GLM: list[Case] = [
    (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>",
        [(W, {"city": "Oslo"})],
        "",
    ),
    (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value><arg_key>unit"
        "</arg_key><arg_value>celsius</arg_value></tool_call><tool_call>get_time</tool_call>",
        [(W, {"city": "Oslo", "unit": "celsius"}), ("get_time", {})],
        "",
    ),
    (
        '<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>say "hi"</arg_value>\n'
        "<arg_key>limit</arg_key>\n<arg_value>5</arg_value>\n</tool_call>",
        [("search", {"query": 'say "hi"', "limit": 5})],
        "",
    ),
]

DEEPSEEK: list[Case] = [
    (
        f'I will look.\n\n{B}{CB}get_weather{SEP}{{"city": "Kobe"}}{CE}{E}',
        [(W, {"city": "Kobe"})],
        "I will look.",
    ),
    (
        f'{B}{CB}function{SEP}get_weather\n```json\n{{"city": "Kobe", "days": 2}}\n```{CE}{E}',
        [(W, {"city": "Kobe", "days": 2})],
        "",
    ),
]

FUNCTIONARY: list[Case] = [
    (">>>get_time\n{}", [("get_time", {})], ""),
    ('>>>all\nOk.\n>>>get_weather\n{"city": "Bilbao"}', [(W, {"city": "Bilbao"})], "Ok."),
    (
        '<function=get_weather>{"city": "Cadiz"}</function>\nSee you.',
        [(W, {"city": "Cadiz"})],
        "See you.",
    ),
    ('<function name="get_weather">{"city": "Jaén"}</function>', [(W, {"city": "Jaén"})], ""),
    (
        'Reading it.<function name="read_file">{"path": "b.md"}</function>',
        [("read_file", {"path": "b.md"})],
        "Reading it.",
    ),
    ('<function name="delete_everything">{}</function>', [], SAME),
]

FIREFUNCTION: list[Case] = [
    (
        'functools[{"arguments": {"city": "Wels"}, "name": "get_weather"}]',
        [(W, {"city": "Wels"})],
        "",
    ),
]

FENCED: list[Case] = [
    (
        '```json\n{"name": "get_weather", "parameters": {"city": "Hue"}}\n```\n',
        [(W, {"city": "Hue"})],
        "",
    ),
    (
        '```tool_call\n{"name": "get_weather", "arguments": {"city": "Hue"}}\n```',
        [(W, {"city": "Hue"})],
        "",
    ),
    ('```\n[get_weather(city="Hue")]\n```', [(W, {"city": "Hue"})], ""),
    (
        '```xml\n<response>\n    {"name": "get_weather", "arguments": {"city": "Vinh"}}\n'
        "</response>\n```",
        [(W, {"city": "Vinh"})],
        "",
    ),
    (
        '```json\n<function_call>\n{"name": "get_time", "arguments": {}}\n</function_call>\n```',
        [("get_time", {})],
        "",
    ),
    ("```xml\n<response>\n  <status>ok</status>\n</response>\n```", [], SAME),
]

EXTRA: dict[str, list[Case]] = {
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
"""Dialect -> the cases added to its table."""
