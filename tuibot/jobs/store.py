"""``<data>/jobs.json``: the job definitions and what the scheduler knows of their runs.

One small JSON file, shared by every tuibot process: the one running the scheduler (the
app or ``tuibot run --headless``) and any that only edit (``tuibot jobs``, the cron tool
in another window)::

    {"version": 1, "jobs": [{"id": "job_1a2b3c4d", "name": "…", "schedule": {…}, …}],
     "heartbeat": {"chat": "c_…", "since": 1767000000.0, "lastRun": null, "note": ""}}

The guarantees, as for ``grants.json`` (kept once in :mod:`tuibot.store.locked_file`):

- A missing or empty file is no jobs.
- A file that is not valid JSON, of a newer version, or holds a malformed job raises
  :class:`JobStoreError` naming the file and the problem, and is never overwritten.
- Every change re-reads the file under a lock file, applies itself to what is there (by
  job id, so two processes changing different jobs, or different fields, keep both) and
  replaces the file atomically, and only when what it would write reads back.
- :meth:`JobStore.changed` tells a running scheduler that another process wrote the file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tuibot.jobs.records import Beat, Document, Job, JobRecordError
from tuibot.store.jsonl import StorageError
from tuibot.store.locked_file import LockedJsonFile, dump_json

VERSION = 1
"""The format written; a file of a newer version is refused, not overwritten."""


class JobStoreError(StorageError):
    """``jobs.json`` could not be read, understood or written; the message names the file."""


class JobNotFound(JobStoreError):
    """No job, or more than one, has the id or prefix asked for; the message lists them."""


class JobStore:
    """The jobs in one JSON file; read lazily, re-read when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = LockedJsonFile(
            path,
            noun="jobs",
            error=JobStoreError,
            version=VERSION,
            parse=self._parse,
            encode=self._encode,
            copy=Document.copy,
        )

    # -- reading ---------------------------------------------------------------------

    def all(self) -> list[Job]:
        """Every job, oldest first (re-read if the file changed since)."""
        return sorted(self._file.fresh().jobs.values(), key=lambda job: (job.created, job.id))

    def beat(self) -> Beat:
        """The heartbeat's state."""
        return self._file.fresh().beat

    def get(self, wanted: str) -> Job:
        """The job with this id or unique prefix (``job_`` may be left out)."""
        return self._resolve(self._file.fresh().jobs, wanted)

    def changed(self) -> bool:
        """Whether the file is not the one last read or written (another process wrote)."""
        return self._file.changed()

    def _parse(self, data: bytes) -> Document:
        document = self._file.decode(data)
        if document is None:
            return Document()
        entries = document.get("jobs", [])
        if not isinstance(entries, list):
            raise self._file.malformed('expected "jobs" to be a list')
        parsed = Document()
        try:
            for index, entry in enumerate(entries):
                job = Job.from_json(entry, f"job {index}")
                if job.id in parsed.jobs:
                    raise JobRecordError(f"job {index}: id {job.id} is used twice")
                parsed.jobs[job.id] = job
            parsed.beat = Beat.from_json(document.get("heartbeat"))
        except JobRecordError as exc:
            raise self._file.malformed(str(exc)) from exc
        return parsed

    # -- changing --------------------------------------------------------------------

    def add(self, job: Job) -> Job:
        """Keep a new job (its id must be new)."""

        def change(document: Document) -> bool:
            if job.id in document.jobs:
                raise self._refused(f"a job with id {job.id} exists already", "add a job")
            document.jobs[job.id] = job
            return True

        self._file.update(change)
        return job

    def change(self, wanted: str, edit: Callable[[Job], Job | None]) -> Job | None:
        """Apply ``edit`` to the job as the file has it now; ``edit`` returning None
        removes the job. Returns the job after the change (None when removed)."""
        result: list[Job | None] = []

        def change(document: Document) -> bool:
            job = self._resolve(document.jobs, wanted)
            after = edit(job)
            result.append(after)
            if after == job:
                return False
            if after is None:
                del document.jobs[job.id]
            else:
                document.jobs[job.id] = after
            return True

        self._file.update(change)
        return result[0]

    def change_if_present(self, job_id: str, edit: Callable[[Job], Job | None]) -> Job | None:
        """As :meth:`change`, but a job removed meanwhile is no error (None)."""
        try:
            return self.change(job_id, edit)
        except JobNotFound:
            return None

    def change_beat(self, edit: Callable[[Beat], Beat]) -> Beat:
        """Apply ``edit`` to the heartbeat's state as the file has it now."""
        result: list[Beat] = []

        def change(document: Document) -> bool:
            result.append(edit(document.beat))
            if result[0] == document.beat:
                return False
            document.beat = result[0]
            return True

        self._file.update(change)
        return result[0]

    def _encode(self, document: Document) -> bytes:
        """The file's bytes for ``document``, refused unless they read back."""
        data = _encode(document)
        self._check_readable(data)
        return data

    def _check_readable(self, data: bytes) -> None:
        """Refuse to write what this tuibot could not read back: one malformed job makes
        the whole file unreadable, which stops every job and every ``tuibot jobs`` command
        until someone edits it by hand."""
        try:
            self._parse(data)
        except JobStoreError as exc:
            reason = f"the change would leave a file that cannot be read back: {exc.reason}"
            raise self._refused(reason, "write jobs") from exc

    # -- ids and errors --------------------------------------------------------------

    def _resolve(self, jobs: dict[str, Job], wanted: str) -> Job:
        """The job ``wanted`` names: its id, or a unique prefix with or without ``job_``."""
        wanted = wanted.strip()
        if wanted in jobs:
            return jobs[wanted]
        matches = sorted(
            (
                j
                for j in jobs.values()
                if wanted and (j.id.startswith(wanted) or j.id[4:].startswith(wanted))
            ),
            key=lambda j: j.id,
        )
        if len(matches) == 1:
            return matches[0]
        if matches:
            reason = f"{wanted!r} matches more than one job: {', '.join(j.id for j in matches)}"
        else:
            known = ", ".join(sorted(jobs))
            reason = (
                f"no job {wanted!r} ({f'known jobs: {known}' if known else 'there are no jobs'})"
            )
        raise JobNotFound(f"{reason} in {self.path}", path=self.path, reason=reason, action="find")

    def _refused(self, reason: str, action: str) -> JobStoreError:
        return JobStoreError(
            f"could not {action} in {self.path}: {reason}",
            path=self.path,
            reason=reason,
            action=action,
        )


def _encode(document: Document) -> bytes:
    jobs = sorted(document.jobs.values(), key=lambda job: (job.created, job.id))
    data: dict[str, Any] = {
        "version": VERSION,
        "jobs": [job.to_json() for job in jobs],
        "heartbeat": document.beat.to_json(),
    }
    return dump_json(data)
