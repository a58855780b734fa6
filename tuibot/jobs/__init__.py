"""Scheduled work: cron-like jobs and the ``HEARTBEAT.md`` heartbeat.

A job is a message for a bot on a schedule (``at`` a time, ``every`` N seconds, or a
crontab expression in a time zone). Definitions live in ``<data>/jobs.json``
(:mod:`tuibot.jobs.store`); while tuibot runs, APScheduler fires them in the engine's
event loop (:mod:`tuibot.jobs.scheduler`), and each run is delegated work the bot gives
itself (:mod:`tuibot.jobs.runs`), so limits, approvals, the task board and restart
recovery hold for it as for any delegation. Only the process holding the single-instance
lock (:mod:`tuibot.system.instance`) runs them, so no job runs twice.

Nothing here imports APScheduler at import time: ``tuibot ask`` never pays for it.
"""
