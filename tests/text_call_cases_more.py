"""More of the text tool-call corpus: GLM, DeepSeek, Functionary, Firefunction, fences.

Split from ``text_call_cases`` only to keep each table file short; same conventions.
"""

from __future__ import annotations

from text_call_cases_base import SAME, Case, W

GLM: list[Case] = [
    (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Dallas</arg_value>\n"
        "</tool_call>",
        [(W, {"city": "Dallas"})],
        "",
    ),
    (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Austin</arg_value>\n"
        "<arg_key>days</arg_key>\n<arg_value>4</arg_value>\n</tool_call>",
        [(W, {"city": "Austin", "days": 4})],
        "",
    ),
    (
        "Checking.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n"
        "</tool_call>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Bergen"
        "</arg_value>\n</tool_call>",
        [(W, {"city": "Oslo"}), (W, {"city": "Bergen"})],
        "Checking.",
    ),
    ("<tool_call>get_time\n</tool_call>", [("get_time", {})], ""),
    (
        '<tool_call>calculate_area<arg_key>dimensions</arg_key><arg_value>{"r": 1.5}'
        "</arg_value><arg_key>precision</arg_key><arg_value>3</arg_value></tool_call>",
        [("calculate_area", {"dimensions": {"r": 1.5}, "precision": 3})],
        "",
    ),
    (
        "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>true</arg_value>\n"
        "<arg_key>exact</arg_key>\n<arg_value>true</arg_value>\n</tool_call>",
        [("search", {"query": "true", "exact": True})],
        "",
    ),
    (
        "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>t.md</arg_value>\n"
        "<arg_key>content</arg_key>\n<arg_value># Title\n\n</arg_key> stays\n</arg_value>\n"
        "</tool_call>",
        [("write_file", {"path": "t.md", "content": "# Title\n\n</arg_key> stays\n"})],
        "",
    ),
    (
        "<think>Need weather.</think>\nOne moment.\n<tool_call>get_weather\n<arg_key>city"
        "</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>",
        [(W, {"city": "北京"})],
        "<think>Need weather.</think>\nOne moment.",
    ),
    (
        "<tool_call>delete_everything\n<arg_key>path</arg_key>\n<arg_value>/</arg_value>\n"
        "</tool_call>",
        [],
        SAME,
    ),
    ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Rome</arg_value>", [], SAME),
    ("<tool_call>get_weather\n<arg_key>city\n<arg_value>Rome</arg_value>\n</tool_call>", [], SAME),
    (
        '<tool_call>set_tags\n<arg_key>tags</arg_key>\n<arg_value>["q"]</arg_value>\n'
        "</tool_call>\nDone soon.",
        [("set_tags", {"tags": ["q"]})],
        "Done soon.",
    ),
]

B, E, SEP = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁sep｜>"
CB, CE = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"

DEEPSEEK: list[Case] = [
    (
        f'{B}{CB}function{SEP}get_weather\n```json\n{{"city": "Tokyo"}}\n```{CE}{E}',
        [(W, {"city": "Tokyo"})],
        "",
    ),
    (
        f'{B}{CB}function{SEP}get_weather\n```json\n{{"city": "Kyoto"}}\n```{CE}'
        f"{CB}function{SEP}get_time\n```json\n{{}}\n```{CE}{E}",
        [(W, {"city": "Kyoto"}), ("get_time", {})],
        "",
    ),
    (
        f'Let me see.{B}{CB}function{SEP}search\n```json\n{{"query": "a ``` b", "limit": 1}}\n'
        f"```{CE}{E}",
        [("search", {"query": "a ``` b", "limit": 1})],
        "Let me see.",
    ),
    (f'{B}{CB}get_weather{SEP}{{"city": "Osaka"}}{CE}{E}', [(W, {"city": "Osaka"})], ""),
    (
        f'{B}{CB}get_weather{SEP}{{"city": "Nara"}}{CE}{CB}search{SEP}{{"query": "q"}}{CE}{E}',
        [(W, {"city": "Nara"}), ("search", {"query": "q"})],
        "",
    ),
    (
        f'{B}{CB}write_file{SEP}{{"path": "p", "content": "He said \\"hi\\"\\nC:\\\\x"}}{CE}{E}',
        [("write_file", {"path": "p", "content": 'He said "hi"\nC:\\x'})],
        "",
    ),
    (
        f'{B}{CB}function{SEP}calculate_area\n```json\n{{"dimensions": {{"w": [1, 2]}}}}\n```{CE}'
        f"{E}\nThat is all.",
        [("calculate_area", {"dimensions": {"w": [1, 2]}})],
        "That is all.",
    ),
    (f'{B}{CB}get_weather{SEP}{{"city": "Sendai"}}{CE}', [(W, {"city": "Sendai"})], ""),
    (f"{B}{CB}function{SEP}delete_everything\n```json\n{{}}\n```{CE}{E}", [], SAME),
    (f'{B}{CB}function{SEP}get_weather\n```json\n{{"city": "Tokyo"\n```{CE}{E}', [], SAME),
    (f'{B}function{SEP}get_weather\n```json\n{{"city": "Tokyo"}}\n```{E}', [], SAME),
    (f"{B}{CB}get_time{SEP}{{}}{CE}{E}", [("get_time", {})], ""),
]

FUNCTIONARY: list[Case] = [
    ('>>>get_weather\n{"city": "Lisbon"}', [(W, {"city": "Lisbon"})], ""),
    (
        '>>>get_weather\n{"city": "Lisbon"}>>>get_time\n{}',
        [(W, {"city": "Lisbon"}), ("get_time", {})],
        "",
    ),
    (
        '>>>all\nLet me check the weather.>>>get_weather\n{"city": "Madrid"}',
        [(W, {"city": "Madrid"})],
        "Let me check the weather.",
    ),
    ('<function=get_weather>{"city": "Seville"}</function>', [(W, {"city": "Seville"})], ""),
    (
        'Reading.\n<function=read_file>{"path": "x.py", "start": 3}</function>',
        [("read_file", {"path": "x.py", "start": 3})],
        "Reading.",
    ),
    (
        '<function=get_weather>{"city": "A"}</function><function=get_weather>{"city": "B"}'
        "</function>",
        [(W, {"city": "A"}), (W, {"city": "B"})],
        "",
    ),
    (
        '<function=write_file>{"path": "f", "content": "</function> inside"}</function>',
        [("write_file", {"path": "f", "content": "</function> inside"})],
        "",
    ),
    ('<function=delete_everything>{"path": "/"}</function>', [], SAME),
    ('>>>delete_everything\n{"path": "/"}', [], SAME),
    (">>>all\nJust words, no tools today.", [], "Just words, no tools today."),
    ('>>>get_weather\n{"city": ', [], SAME),
    ('Quote: >>>get_weather\n{"city": "Lisbon"}', [], SAME),
]

FIREFUNCTION: list[Case] = [
    (
        ' functools[{"name": "get_weather", "arguments": {"city": "Vienna"}}]',
        [(W, {"city": "Vienna"})],
        "",
    ),
    (
        'functools[{"name": "get_weather", "arguments": {"city": "Graz"}}, '
        '{"name": "get_time", "arguments": {}}]',
        [(W, {"city": "Graz"}), ("get_time", {})],
        "",
    ),
    (
        'functools[{"name": "search", "arguments": {"query": "[a] {b}", "exact": false}}]',
        [("search", {"query": "[a] {b}", "exact": False})],
        "",
    ),
    (
        'functools[{"name": "calculate_area", "arguments": {"dimensions": {"x": {"y": 1}}}}]',
        [("calculate_area", {"dimensions": {"x": {"y": 1}}})],
        "",
    ),
    (
        'functools[{"name": "write_file", "arguments": {"path": "a", "content": "l1\\nl2"}}]',
        [("write_file", {"path": "a", "content": "l1\nl2"})],
        "",
    ),
    (
        'functools[{"name": "get_weather", "arguments": "{\\"city\\": \\"Linz\\"}"}]',
        [(W, {"city": "Linz"})],
        "",
    ),
    ('functools[{"name": "get_time", "arguments": {}}]', [("get_time", {})], ""),
    ('functools[{"name": "delete_everything", "arguments": {}}]', [], SAME),
    ('functools[{"name": "get_weather", "arguments": {"city": "Linz"}', [], SAME),
    ('functools{"name": "get_weather"}', [], SAME),
    ('Use functools[{"name": "get_weather", "arguments": {}}] like so.', [], SAME),
]

FENCED: list[Case] = [
    (
        '```json\n{"name": "get_weather", "arguments": {"city": "Hanoi"}}\n```',
        [(W, {"city": "Hanoi"})],
        "",
    ),
    (
        '```xml\n{"name": "get_weather", "arguments": {"city": "Hue"}}\n```',
        [(W, {"city": "Hue"})],
        "",
    ),
    (
        "```xml\n<tool_call>\n<function=get_weather>\n<parameter=city>\nDa Nang\n</parameter>\n"
        "</function>\n</tool_call>\n```",
        [(W, {"city": "Da Nang"})],
        "",
    ),
    (
        '```json\n[{"name": "get_weather", "arguments": {"city": "A"}}, '
        '{"name": "get_time", "arguments": {}}]\n```',
        [(W, {"city": "A"}), ("get_time", {})],
        "",
    ),
    ('```\n{"name": "get_time", "arguments": {}}\n```', [("get_time", {})], ""),
    (
        '\n```json\n{"name": "search", "parameters": {"query": "``` inside"}}\n```\n',
        [("search", {"query": "``` inside"})],
        "",
    ),
    (
        '```json\n<tool_call>{"name": "get_weather", "arguments": {"city": "Can Tho"}}</tool_call>'
        "\n```",
        [(W, {"city": "Can Tho"})],
        "",
    ),
    ('```json\n{"name": "delete_everything", "arguments": {}}\n```', [], SAME),
    ('```json\n{"city": "Hanoi"}\n```', [], SAME),
    ('Example:\n```json\n{"name": "get_weather", "arguments": {"city": "Hanoi"}}\n```', [], SAME),
    ('```python\n{"name": "get_weather", "arguments": {"city": "Hanoi"}}\n```', [], SAME),
    (
        '```json\n{"name": "get_weather", "arguments": {"city": "Hanoi"}}\n```\nThat is it.',
        [],
        SAME,
    ),
]
