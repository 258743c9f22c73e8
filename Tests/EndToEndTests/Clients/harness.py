"""Shared case runner for the Python client drivers (secretstorage_flow.py,
keyring_flow.py, bad_input.py).

Output contract (parsed by the Swift end-to-end tests):
  one line per case   `ok <case name>`  or  `FAIL <case name>: <reason>`
  then a final line   `N passed, M failed`; exit status 1 if anything failed.

Reasons never contain secret or attribute values: drivers only raise
`Failure` with hand-written text (lengths, booleans, D-Bus error names), and
unexpected exceptions are reported by type and D-Bus error name plus a short,
truncated message.

Time limits: each case runs under SIGALRM (HANG_GUARD unless the case names
another) so a missing reply or signal turns into a FAIL instead of a hang, and a
watchdog thread ends the process with a FAIL line once the whole driver has used
DRIVER_HANG_GUARD. Both are hang guards, not speed targets: a busy machine must
never trip them (speed is measured by `make bench`).
"""

import os
import signal
import sys
import threading
import time

# Seconds any one wait of a driver (a case, a reply, a signal, a child process) may take before it
# counts as a hang. A hang guard, not a speed target: generous so that a machine at load 9 on two
# cores never reaches it; what a test checks is ordering, and speed belongs in `make bench`.
HANG_GUARD = 120.0
# Seconds a whole driver may run: a hang guard too, below the 600 s (HangGuard.driver in
# Sources/PuffTesting/HangGuard.swift) after which the Swift test kills it, so the FAIL line is seen.
DRIVER_HANG_GUARD = 540.0


def lenient_from_argv():
    """True when validating against gnome-keyring (`--lenient` or
    PUFF_CLIENT_LENIENT=1): accept GK's documented deviations from Puff."""
    return "--lenient" in sys.argv[1:] or os.environ.get("PUFF_CLIENT_LENIENT") == "1"


class Failure(Exception):
    """Raised by a case with a value-free reason."""


class Skip(Failure):
    """A prerequisite case failed; the dependent case counts as failed."""


class CaseTimeout(Exception):
    pass


def check(cond, reason):
    if not cond:
        raise Failure(reason)


def need(value, what):
    if value is None:
        raise Skip(f"skipped: prerequisite '{what}' failed")
    return value


def describe(exc):
    """Short, value-free description of an unexpected exception."""
    name = getattr(exc, "name", None)              # jeepney DBusErrorResponse
    if name is None and hasattr(exc, "get_dbus_name"):  # dbus-python
        name = exc.get_dbus_name()
    kind = type(exc).__name__
    if name:
        kind = f"{kind} {name}"
    msg = str(exc).replace("\n", " ")
    if len(msg) > 120:
        msg = msg[:117] + "..."
    return f"{kind}: {msg}" if msg else kind


class Runner:
    def __init__(self, case_timeout=HANG_GUARD, total_budget=DRIVER_HANG_GUARD):
        self.case_timeout = case_timeout
        self.passed = 0
        self.failed = 0
        self._lock = threading.Lock()
        signal.signal(signal.SIGALRM, self._on_alarm)
        watchdog = threading.Timer(total_budget, self._on_budget_exhausted)
        watchdog.daemon = True
        watchdog.start()

    @staticmethod
    def _on_alarm(signum, frame):
        raise CaseTimeout()

    def _on_budget_exhausted(self):
        with self._lock:
            print(f"FAIL driver hang guard: still running after {DRIVER_HANG_GUARD:g} s, aborting", flush=True)
            print(f"{self.passed} passed, {self.failed + 1} failed", flush=True)
        os._exit(1)

    def _report(self, line, ok):
        with self._lock:
            if ok:
                self.passed += 1
            else:
                self.failed += 1
            print(line, flush=True)

    def case(self, name, fn, *args, timeout=None, **kwargs):
        """Run fn(*args, **kwargs) as one case; return its result, or None
        if it failed."""
        signal.setitimer(signal.ITIMER_REAL, timeout or self.case_timeout)
        try:
            result = fn(*args, **kwargs)
        except CaseTimeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._report(f"FAIL {name}: timed out after {timeout or self.case_timeout:g} s", False)
            return None
        except Failure as exc:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._report(f"FAIL {name}: {exc}", False)
            return None
        except Exception as exc:  # noqa: BLE001 - every error is a case failure
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._report(f"FAIL {name}: {describe(exc)}", False)
            return None
        signal.setitimer(signal.ITIMER_REAL, 0)
        self._report(f"ok {name}", True)
        return True if result is None else result

    def finish(self):
        with self._lock:
            print(f"{self.passed} passed, {self.failed} failed", flush=True)
            code = 1 if self.failed else 0
        sys.stdout.flush()
        os._exit(code)
