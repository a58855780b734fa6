"""The baseline for ``tuibot ask``: the least code that streams one answer with the SDK.

Whatever this script costs (interpreter start, ``import openai``, one streamed request,
printing each token as it arrives) is the floor; ``bench_ask.py`` reports how far above it
``tuibot ask`` sits.

    .venv/bin/python tests/bench/bare_openai.py --base-url http://127.0.0.1:8000/v1 "Hi"
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import openai


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The same few options ``tuibot ask`` takes for a one-shot prompt."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompt", help="the user message")
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible base URL (…/v1)")
    parser.add_argument("--model", default="test-model", help="model id to request")
    parser.add_argument("--api-key", default="bench", help="sent as the bearer token")
    return parser.parse_args(argv)


async def stream_answer(args: argparse.Namespace) -> None:
    """Stream one chat completion, writing each content delta to stdout at once."""
    client = openai.AsyncOpenAI(base_url=args.base_url, api_key=args.api_key, max_retries=0)
    async with client:
        stream = await client.chat.completions.create(
            model=args.model,
            messages=[{"role": "user", "content": args.prompt}],
            stream=True,
        )
        out = sys.stdout
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                out.write(chunk.choices[0].delta.content)
                out.flush()
        out.write("\n")
        out.flush()


def main(argv: list[str] | None = None) -> int:
    """Run once; a connection or API error is one line on stderr and exit code 1."""
    args = parse_args(argv)
    try:
        asyncio.run(stream_answer(args))
    except openai.OpenAIError as exc:
        print(f"bare_openai: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
