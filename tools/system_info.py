"""Bundled tool: a short report on this machine — OS, CPU, memory, uptime, sensors.

Facts only, read through psutil: nothing is changed, so it never asks. Sensors and
battery appear when the machine has them and psutil can read them, and are left out
otherwise rather than failing the report.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
import time

from tuibot import tool
from tuibot.toolkit.sizes import clip_output, human_bytes, human_duration

OUTPUT_LIMIT = 20 * 1024
"""Upper bound on the report."""


@tool(timeout=30)
def system_info() -> str:
    """Report this machine's OS, CPU load, memory, swap, uptime, temperatures and battery."""
    import psutil

    boot = psutil.boot_time()
    memory = psutil.virtual_memory()
    swap = psutil.swap_memory()
    lines = [
        f"host: {socket.gethostname()}",
        f"os: {platform.system()} {platform.release()} ({platform.machine()})",
        f"python: {sys.version.split()[0]}",
        f"cpu: {os.cpu_count()} logical cores, {psutil.cpu_percent(interval=0.2):.1f}% busy",
    ]
    if hasattr(os, "getloadavg"):
        one, five, fifteen = os.getloadavg()
        lines.append(f"load average: {one:.2f} {five:.2f} {fifteen:.2f}")
    lines += [
        f"memory: {human_bytes(memory.used)} used of {human_bytes(memory.total)} "
        f"({memory.percent:.1f}%), {human_bytes(memory.available)} available",
        f"swap: {human_bytes(swap.used)} used of {human_bytes(swap.total)}",
        f"up: {human_duration(time.time() - boot)} (since "
        f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(boot))})",
    ]
    lines += _temperatures(psutil)
    lines += _battery(psutil)
    return clip_output("\n".join(lines), OUTPUT_LIMIT)


def _temperatures(psutil: object) -> list[str]:
    read = getattr(psutil, "sensors_temperatures", None)
    try:
        sensors = read() if read is not None else {}
    except (OSError, RuntimeError):
        return []
    lines = []
    for chip, entries in sorted(sensors.items()):
        for entry in entries[:8]:
            label = entry.label or chip
            lines.append(f"temperature {chip}/{label}: {entry.current:.0f} °C")
    return lines


def _battery(psutil: object) -> list[str]:
    read = getattr(psutil, "sensors_battery", None)
    try:
        battery = read() if read is not None else None
    except (OSError, RuntimeError):
        return []
    if battery is None:
        return []
    state = "charging" if battery.power_plugged else "on battery"
    return [f"battery: {battery.percent:.0f}% ({state})"]
