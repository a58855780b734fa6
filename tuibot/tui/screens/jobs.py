"""The jobs screen (F9): every scheduled job, its next and last run, and keys to act.

Jobs run while nobody watches, so a person needs one place to see what is scheduled, how
the last run went (or why it was missed or skipped), and to run, pause, resume or delete a
job. The table reads ``jobs.json`` each second, so changes from ``tuibot jobs`` or a
headless tuibot show up by themselves. When another process runs the jobs, the screen says
which, and ``t`` takes over (see :mod:`tuibot.tui.actions.scheduled`).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from tuibot.engine import Engine
    from tuibot.jobs.records import Job
    from tuibot.system.instance import Holder

EMPTY_TEXT = (
    "No jobs. A bot adds one with its cron tool when you ask (“every weekday at 9, …”); "
    "or run `tuibot jobs add MESSAGE --every 1h` in a shell. See docs/jobs.md."
)
REFRESH_SECONDS = 1.0


class JobsScreen(ModalScreen[None]):
    """A table of jobs; n runs, p pauses, u resumes, d deletes the highlighted one."""

    DEFAULT_CSS = """
    JobsScreen { align: center middle; }
    JobsScreen > Vertical {
        width: 95%; max-width: 160; height: 85%; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    JobsScreen .title { text-style: bold; margin-bottom: 1; }
    JobsScreen .where { color: $text-muted; margin-bottom: 1; }
    JobsScreen .problem { color: $error; margin-bottom: 1; }
    JobsScreen .empty { color: $text-muted; margin-bottom: 1; }
    JobsScreen DataTable { height: 1fr; }
    JobsScreen .hint { color: $text-muted; margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "run_now", "Run now", id="job_run"),
        Binding("p", "pause", "Pause", id="job_pause"),
        Binding("u", "resume", "Resume", id="job_resume"),
        Binding("d,delete", "delete", "Delete", id="job_delete"),
        Binding("t", "take_over", "Take over", id="job_take_over"),
        Binding("escape", "dismiss", "Close", id="jobs_close"),
    ]
    """Keys of the jobs screen; each id can be rebound under ``[tui.keys]``."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self.jobs: dict[str, Job] = {}
        """What the table shows, by job id."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Scheduled jobs", classes="title")
            yield Static("", classes="where")
            yield Static("", classes="problem")
            yield Static(EMPTY_TEXT, classes="empty")
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Label(
                "n run now · p pause · u resume · d delete · t take over · Esc close",
                classes="hint",
            )

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("name", "schedule", "next run", "last run", "result / note", "bot", "id")
        self.reload()
        self.set_interval(REFRESH_SECONDS, self.reload)
        table.focus()

    # -- showing ---------------------------------------------------------------------

    def reload(self) -> None:
        """Read the jobs again and show them (the cursor stays on the same row number)."""
        from tuibot.jobs.store import JobStoreError

        problem = ""
        try:
            jobs = list(self.engine.view.jobs())
        except JobStoreError as error:
            jobs, problem = [], str(error)
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        table.clear()
        self.jobs = {job.id: job for job in jobs}
        for job in jobs:
            table.add_row(*self._cells(job), key=job.id)
        if jobs:
            table.move_cursor(row=min(max(cursor, 0), len(jobs) - 1))
        self._show(".problem", problem)
        self._show(".where", self._where())
        self.query_one(".empty", Static).display = not jobs and not problem

    def _show(self, selector: str, text: str) -> None:
        line = self.query_one(selector, Static)
        line.update(text)
        line.display = bool(text)

    def _cells(self, job: Job) -> tuple[str, ...]:
        upcoming = "paused" if job.paused else _when(self.engine.view.next_run(job))
        last = job.last_run
        shown = "-" if last is None else f"{last.status} {_stamp(last.started)}"
        said = job.note or (last.result.splitlines()[0] if last and last.result else "")
        return job.name, job.schedule.describe(), upcoming, shown, said[:60], job.bot, job.id

    def _where(self) -> str:
        """Who runs the jobs: this window, another process, or nobody (jobs are off)."""
        if self.engine.view.jobs_run_here():
            return "Jobs and the heartbeat run in this window."
        if not self.engine.view.settings.jobs.enabled:
            return "jobs.enabled is false: no job runs while it is."
        from tuibot.tui.actions.scheduled import cannot_take_over

        holder = self._holder()
        if holder is None:
            return "No tuibot runs the jobs now: t runs them here."
        if cannot_take_over(holder) is not None:
            return f"Jobs run in {holder.describe()}: quit it to run them here."
        return f"Jobs run in {holder.describe()}: t takes over so they run here."

    def _holder(self) -> Holder | None:
        return self.engine.view.jobs_holder()

    def _selected(self) -> Job | None:
        table = self.query_one(DataTable)
        if not self.jobs or table.cursor_row < 0:
            self.notify("No job selected.", timeout=2)
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return self.jobs.get(str(row_key.value))

    # -- acting ----------------------------------------------------------------------

    def action_run_now(self) -> None:
        """Run the highlighted job now (here, or by asking the process that runs jobs)."""
        job = self._selected()
        if job is not None and self._act(lambda: self.engine.run_job(job.id)):
            where = "" if self.engine.view.jobs_run_here() else " (by the tuibot that runs jobs)"
            self.notify(f"Started a run of {job.name}{where}.", timeout=3, markup=False)

    def action_pause(self) -> None:
        job = self._selected()
        if job is not None and self._act(lambda: self.engine.pause_job(job.id)):
            self.notify(f"Paused {job.name}.", timeout=3, markup=False)

    def action_resume(self) -> None:
        job = self._selected()
        if job is not None and self._act(lambda: self.engine.resume_job(job.id)):
            self.notify(f"Resumed {job.name}.", timeout=3, markup=False)

    def action_delete(self) -> None:
        """Delete the highlighted job, after a yes (a run in progress still reports)."""
        from tuibot.tui.screens.confirm import ConfirmScreen

        job = self._selected()
        if job is None:
            return

        def answered(yes: bool | None) -> None:
            if yes and self._act(lambda: self.engine.remove_job(job.id)):
                self.notify(f"Deleted {job.name}.", timeout=3, markup=False)

        question = f"Delete the job “{job.name}” ({job.schedule.describe()})?"
        self.app.push_screen(ConfirmScreen(question, yes="Delete", no="Keep"), answered)

    def _act(self, change: object) -> bool:
        """Run a change of the job book; an error is a notification, never a crash."""
        from tuibot.jobs.store import JobStoreError

        try:
            change()  # type: ignore[operator]
        except (JobStoreError, ValueError) as error:
            self.notify(str(error), severity="error", markup=False)
            return False
        self.reload()
        return True

    def action_take_over(self) -> None:
        """Stop the other tuibot that runs the jobs and run them here, after a yes; when
        none runs them any more, just run them here."""
        from tuibot.tui.screens.confirm import ConfirmScreen

        if self.engine.view.jobs_run_here():
            self.notify("Jobs already run in this window.", timeout=3)
            return
        from tuibot.tui.actions.scheduled import cannot_take_over

        holder = self._holder()
        if holder is None:  # the other one ended meanwhile: nothing to stop, nothing to ask
            self.take_over(None)
            return
        refused = cannot_take_over(holder)
        if refused is not None:
            self.notify(refused, severity="warning", timeout=6, markup=False)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.take_over(holder)

        question = (
            f"Stop {holder.describe()} and run the jobs here? Its open work is kept and "
            "continues here; its waiting requests come to this approvals queue."
        )
        self.app.push_screen(ConfirmScreen(question, yes="Take over", no="Leave it"), answered)

    @work(group="take-over", exclusive=True, exit_on_error=False, description="take over jobs")
    async def take_over(self, holder: Holder | None) -> None:
        from tuibot.tui.actions.scheduled import take_over

        for severity, text in await take_over(self.engine, holder):
            self.app.notify(text, severity=severity, markup=False)
        self.reload()


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "none"
    local = moment.astimezone()
    overdue = " (due)" if local.timestamp() < time.time() else ""
    return local.strftime("%a %d %b %H:%M") + overdue


def _stamp(timestamp: float) -> str:
    return time.strftime("%d %b %H:%M", time.localtime(timestamp))
