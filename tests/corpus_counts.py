"""Print the counts of the real-material corpora: text tool calls, frontmatter, crontab.

Run from the checkout: ``python tests/corpus_counts.py`` (``--cron-cases N`` and
``--cron-seed S`` for another crontab run; ``--only calls|skills|cron``). For each text
tool-call dialect it counts the cases read exactly right — same calls, same leftover
text — whole and streamed one character at a time; for frontmatter, the layouts where
tuibot reads what ``yaml.safe_load`` reads (and refuses on the same line); for crontab,
the generated (expression, zone, start) cases and fire times where tuibot's trigger and
the independent cron(8) checker agree. The pytest tables assert the same things case by
case; this script gives the totals.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time

from text_call_cases import DIALECTS, TOOLS, Case  # tests/ is on the path as the script's folder

from tuibot.llm.text_tools import TextCallStream, TextToolCall, extract_text_tool_calls


def _pairs(calls: list[TextToolCall]) -> list[tuple[str, object]]:
    return [(call.name, json.loads(call.arguments)) for call in calls]


def case_right(case: Case) -> tuple[bool, bool]:
    """(whole answer right, streamed one character at a time right)."""
    text, calls, leftover = case
    want = text if leftover is None else leftover
    prose, found = extract_text_tool_calls(text, TOOLS)
    whole = _pairs(found) == calls and prose == want
    stream, shown = TextCallStream(TOOLS), ""
    for char in text:
        shown += stream.feed(char)
    shown += stream.finish()
    return whole, _pairs(stream.calls) == calls and shown == want


def call_counts() -> bool:
    """Per dialect: cases, right whole, right streamed, rate. True when each is >= 95 %."""
    print("text tool calls: dialect, cases, right whole, right streamed, rate")
    ok, total, right = True, 0, 0
    for dialect, cases in DIALECTS.items():
        results = [case_right(case) for case in cases]
        whole = sum(w for w, _ in results)
        streamed = sum(s for _, s in results)
        both = sum(w and s for w, s in results)
        rate = both / len(cases)
        ok = ok and rate >= 0.95
        total, right = total + len(cases), right + both
        print(f"  {dialect:13} {len(cases):3} {whole:3} {streamed:3}  {rate:6.1%}")
    print(f"  {'all':13} {total:3} {right:7}      {right / total:6.1%}")
    return ok


def skill_counts() -> bool:
    """Frontmatter layouts where tuibot and ``yaml.safe_load`` agree."""
    import yaml
    from frontmatter_cases import INVALID, VALID

    from tuibot.skills.frontmatter import FrontmatterError, parse_frontmatter

    def reference(text: str) -> object:
        lines = text.removeprefix("\ufeff").splitlines()
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
        return yaml.safe_load("".join(line + "\n" for line in lines[1:end])) or {}

    agree = 0
    for _, text in VALID:
        with contextlib.suppress(FrontmatterError):
            agree += parse_frontmatter(text)[0] == reference(text)
    refused = 0
    for _, text, line in INVALID:
        try:
            parse_frontmatter(text)
        except FrontmatterError as error:
            refused += error.line == line
    print(f"frontmatter: {agree} of {len(VALID)} valid layouts read as yaml.safe_load reads them")
    print(f"frontmatter: {refused} of {len(INVALID)} invalid ones refused on YAML's line")
    return agree == len(VALID) and refused == len(INVALID)


def cron_counts(cases: int, seed: int) -> bool:
    """Generated crontab cases and fire times; mismatches with the cron(8) checker."""
    from datetime import timedelta

    from cron_checker import expected_fires
    from test_jobs_schedule import FIRES, generated_cases, trigger_fires

    started = time.monotonic()
    generated = generated_cases(cases, seed)
    fire_times, wrong = 0, 0
    zones = set()
    for expression, zone, start in generated:
        until = start + timedelta(days=400)
        want = expected_fires(expression, zone, start, FIRES, until)
        fire_times += len(want)
        wrong += trigger_fires(expression, zone, start, until) != want
        zones.add(zone)
    seconds = time.monotonic() - started
    print(
        f"crontab: {len(generated)} cases (seed {seed}, {len(zones)} zones) x up to {FIRES} "
        f"fire times = {fire_times} fire times; {wrong} cases differ ({seconds:.0f} s)"
    )
    return wrong == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("calls", "skills", "cron"))
    parser.add_argument("--cron-cases", type=int, default=1000)
    parser.add_argument("--cron-seed", type=int, default=16)
    args = parser.parse_args()
    ok = True
    if args.only in (None, "calls"):
        ok = call_counts() and ok
    if args.only in (None, "skills"):
        ok = skill_counts() and ok
    if args.only in (None, "cron"):
        ok = cron_counts(args.cron_cases, args.cron_seed) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
