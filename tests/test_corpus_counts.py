"""The corpus totals script runs and reports every corpus at its goal (small cron run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parent / "corpus_counts.py"


def test_the_counts_script_reports_each_corpus_at_its_goal() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--cron-cases", "30"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [total] = [line for line in done.stdout.splitlines() if line.startswith("  all ")]
    assert total.endswith("100.0%")
    assert "; 0 cases differ" in done.stdout
