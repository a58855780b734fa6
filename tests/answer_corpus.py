"""Real-looking Markdown answers, written for the drawing tests.

Each is what a coding assistant answers in a day's work: tables (one as the last
block, one followed by a heading), inline code in cells, nested and numbered lists, a
long code fence, CJK and emoji whose cells are two columns wide. The drawing tests
stream them through the real app and compare the cells with a fresh render.
"""

from __future__ import annotations

PORTS = """\
Three services listen on this host:

| service | port | bound to | notes |
|---|---|---|---|
| `postgres` | 5432 | `127.0.0.1` | only local clients |
| `redis` | 6379 | `0.0.0.0` | **exposed** — bind it to loopback |
| `nginx` | 80, 443 | all | serves `/srv/www` |

## What to change

1. Edit `/etc/redis/redis.conf` and set `bind 127.0.0.1 -::1`.
2. Restart it with `systemctl restart redis`.
   - Check with `ss -ltnp | grep 6379`.
   - The address column must read `127.0.0.1:6379`.
3. Keep the firewall rule as a second line of defence.
"""

FENCE = (
    "Here is the retry helper, with a jittered back-off:\n\n```python\n"
    + "\n".join(
        [
            "import random",
            "import time",
            "",
            "",
            "def retry(call, attempts=5, base=0.25):",
            '    """Call `call` until it succeeds or `attempts` run out."""',
            "    for attempt in range(attempts):",
            "        try:",
            "            return call()",
            "        except ConnectionError as error:",
            "            if attempt == attempts - 1:",
            "                raise",
            "            pause = base * 2**attempt",
            "            pause += random.uniform(0, pause / 2)",
            "            print(f'attempt {attempt + 1} failed ({error}); waiting {pause:.2f}s')",
            "            time.sleep(pause)",
        ]
        + [
            f"# step {i}: a line long enough to wrap at eighty columns, {'x' * 40}"
            for i in range(30)
        ]
    )
    + "\n```\n\nCall it as `retry(lambda: fetch(url))`; the last error is raised again.\n"
)

CJK = """\
# 翻訳メモ 📝

The file mixes scripts, so widths matter:

- 日本語: 「設定ファイルを保存しました」 means *the settings file was saved*.
- 中文：`配置已保存` is the same message.
- 한국어: **설정이 저장되었습니다** 🎉
  - nested: 絵文字 🚀🔥 and `コード` in one line

| 言語 | 文 | ok |
|---|---|---|
| 日本語 | 保存しました | ✅ |
| 中文 | 已保存 | ✅ |
| emoji | 🧪🧪🧪 | ❌ |
"""

TABLE_LAST = """\
The benchmark ran three times on the loaded machine; times are the median.

- **before**: the tail re-parsed on every write
- **after**: only the unfinished block is live

| case | before | after | change |
|---|---:|---:|:---:|
| 200 lines | 41 ms | 9 ms | `-78%` |
| 2,000 lines | 390 ms | 12 ms | `-97%` |
| one long fence | 120 ms | 8 ms | `-93%` |
| tables only | 88 ms | 15 ms | `-83%` |
"""

MIXED = """\
## Summary

The migration is **safe to run**, with two caveats:

> Run it in a transaction: `BEGIN; ... COMMIT;`
> and keep a backup of `users` first.

### Steps

1. Dump the table:
   ```sh
   pg_dump -t users app > users.sql
   ```
2. Apply `0042_add_email_index.sql`.
3. Verify:
   - `\\d users` lists `users_email_idx`;
   - a lookup by e-mail uses the index (`EXPLAIN` says *Index Scan*).

| step | takes | locks |
|---|---|---|
| dump | ~2 min | none |
| index | ~30 s | `SHARE` |

### After the table

Nothing else changes. ~~Downtime~~ None is needed.
"""

CORPUS = {
    "ports": PORTS,
    "fence": FENCE,
    "cjk": CJK,
    "table_last": TABLE_LAST,
    "mixed": MIXED,
}
"""Name → answer, in the order the tests stream them."""
