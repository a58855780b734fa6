"""The tiny program that stands between tuibot and an exec command, as its subreaper.

Why a separate process: a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux)
adopts every orphan below it, so a command that double-forks or calls ``setsid`` stays
inside a tree we can walk. Making tuibot itself the subreaper would also hand it the
orphans of every other program it starts (MCP servers, CLI tools), which would pile up
as zombies: asyncio's child watchers (``ThreadedChildWatcher`` in 3.11,
``PidfdChildWatcher`` in 3.12+) and ``subprocess`` wait for *their own* pids only, and a
``waitpid(-1)`` in tuibot would steal their exit statuses. This reaper is its own
process, so it may ``waitpid(-1)`` freely: it reaps whatever it adopted.

It runs ``/bin/sh -c COMMAND`` with the output pipe, reports the shell's raw wait
status on the status pipe as soon as the shell exits, and exits itself once it has no
children left. It keeps none of the command's pipes open, so the output pipe reaches
end-of-file exactly when the last process of the command lets go of it. It imports only
the standard library and starts with ``python -I -S`` (some 40 ms).
"""

from __future__ import annotations

SUBREAPER = 36
"""``PR_SET_CHILD_SUBREAPER`` from ``<linux/prctl.h>``."""

SOURCE = r"""
import os, signal, sys

def become_subreaper():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False  # not Linux: orphans go to init, the run marker still finds them

status_fd, command = int(sys.argv[1]), sys.argv[2]
os.set_inheritable(status_fd, False)
become_subreaper()
try:
    shell = os.posix_spawn(
        "/bin/sh", ["/bin/sh", "-c", command], os.environ,
        setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),  # Python ignores these; sh must not
    )
except OSError as exc:
    os.write(2, ("cannot start /bin/sh: %s\n" % (exc.strerror or exc)).encode())
    os.write(status_fd, b"%d\n" % (127 << 8))
    sys.exit(127)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)  # the output pipe is the command's alone
while True:
    try:
        pid, status = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    if pid == shell:
        os.write(status_fd, b"%d\n" % status)
        os.close(status_fd)
""".replace("SUBREAPER", str(SUBREAPER))
"""The reaper's code, run as ``python -I -S -c SOURCE STATUS_FD COMMAND``."""
