"""homespace's per-test tracer: a pytest plugin that records, for each test, the lines of
the project's own files it ran (its setup, call and teardown), and nothing of the
standard library or site-packages. It needs nothing installed: sys.monitoring on Python
3.12 and later, sys.settrace before.

Enabled by `-p homespace_trace` with this file's folder on PYTHONPATH; configured by
the environment:
  HOMESPACE_TRACE_ROOTS  the folders whose files count, joined by os.pathsep
  HOMESPACE_TRACE_OUT    the file it writes: one JSON object a line,
                         {"test": nodeid, "outcome": "passed" | "failed" | "skipped",
                          "files": {path relative to the first root: [lines]}}
                         ("skipped" also for a test that never ran because
                         pytest knows no fixture it asks for)
"""

import json
import os
import sys
import threading

import pytest

_ROOTS = [
    os.path.realpath(p)
    for p in os.environ.get("HOMESPACE_TRACE_ROOTS", "").split(os.pathsep)
    if p
]
_OUT = os.environ.get("HOMESPACE_TRACE_OUT")
_HERE = os.path.realpath(__file__)
# What is installed lives under these, even inside a project's folder (a venv in it).
_OUTSIDE = tuple(
    os.path.realpath(p) + os.sep
    for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
    if p
)

_lines = {}
_counted = {}
# How the test being run ended so far: a failure in any phase (setup, call, teardown)
# fails it.
_outcome = ["passed"]


def _counts(filename):
    """Whether lines of `filename` count, decided once per file name."""
    known = _counted.get(filename)
    if known is not None:
        return known
    # `<frozen posixpath>`, `<string>`: code of no file, which a relative name would
    # otherwise put in the current folder.
    path = os.path.realpath(filename)
    counts = (
        not filename.startswith("<")
        and path != _HERE
        and not path.startswith(_OUTSIDE)
        and any(path.startswith(root + os.sep) for root in _ROOTS)
    )
    _counted[filename] = counts
    return counts


def _note(filename, line):
    lines = _lines.get(filename)
    if lines is None:
        lines = _lines[filename] = set()
    lines.add(line)


if hasattr(sys, "monitoring"):
    _TOOL = sys.monitoring.COVERAGE_ID
    _events = sys.monitoring.events
    # Project code whose lines are watched: the rest of the program (pytest, the standard
    # library) never reports a line, and reports its start once per test at most.
    _watched = set()

    def _line(code, line):
        _note(code.co_filename, line)
        # Seen once is enough for this test; `_begin_test` turns it on again.
        return sys.monitoring.DISABLE

    def _called(code, offset):
        if _counts(code.co_filename):
            # The `def` line, as sys.settrace's call event gives it.
            _note(code.co_filename, code.co_firstlineno)
            if code not in _watched:
                _watched.add(code)
                sys.monitoring.set_local_events(_TOOL, code, _events.LINE)
        return sys.monitoring.DISABLE

    def _start():
        try:
            sys.monitoring.use_tool_id(_TOOL, "homespace")
        except ValueError:
            # Taken (coverage.py measures this run): the tests run untraced, never broken.
            return False
        sys.monitoring.register_callback(_TOOL, _events.LINE, _line)
        sys.monitoring.register_callback(_TOOL, _events.PY_START, _called)
        sys.monitoring.set_events(_TOOL, _events.PY_START)
        return True

    def _begin_test():
        # What was disabled in the last test (seen, or not the project's) reports again.
        sys.monitoring.restart_events()

    def _end_test():
        pass

else:

    def _local(frame, event, arg):
        if event == "line":
            _note(frame.f_code.co_filename, frame.f_lineno)
        return _local

    def _global(frame, event, arg):
        if not _counts(frame.f_code.co_filename):
            return None
        _note(frame.f_code.co_filename, frame.f_lineno)
        return _local

    def _start():
        # The tests' own tracer (a debugger, coverage.py) keeps its place.
        return sys.gettrace() is None

    def _begin_test():
        threading.settrace(_global)
        sys.settrace(_global)

    def _end_test():
        sys.settrace(None)
        threading.settrace(None)


def _relative(filename):
    path = os.path.realpath(filename)
    return os.path.relpath(path, _ROOTS[0]) if _ROOTS else path


if _OUT and _ROOTS and _start():

    def pytest_runtest_logreport(report):
        if report.failed and type(report.longrepr).__name__ == "FixtureLookupErrorRepr":
            # pytest knows no fixture the test asks for: none of its code ran, and what
            # its setup ran (a session fixture it was the first to need) explains
            # nothing. Not a failure to rank or probe.
            if _outcome[0] == "passed":
                _outcome[0] = "skipped"
        elif report.failed:
            _outcome[0] = "failed"
        elif report.skipped and _outcome[0] == "passed":
            _outcome[0] = "skipped"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        _lines.clear()
        _outcome[0] = "passed"
        _begin_test()
        try:
            yield
        finally:
            _end_test()
            files = {
                _relative(name): sorted(lines) for name, lines in _lines.items()
            }
            with open(_OUT, "a", encoding="utf-8") as out:
                record = {"test": item.nodeid, "outcome": _outcome[0], "files": files}
                out.write(json.dumps(record) + "\n")
