"""homespace's probe: after a traced pass, which one-token change to the project's code makes
the first failing test pass (mutation-based fault localization, as Metallaxis and MUSE do:
a line where some small change turns the failure into a pass most often holds the fault).

It runs inside the traced pass, after the last test, and reads what homespace_trace wrote
(each test's lines and outcome). The lines the first failing test ran in project files
that are not tests are tried best Ochiai score first; each gets the standard one-token
mutation operators (a comparison swapped or reversed, `and`/`or`, `is`/`is not`,
`in`/`not in`, `+`/`-`, a condition negated or its `not` dropped, an integer one up or
down, `True`/`False`). A changed function is compiled within its top-level statement (so
closures and private names compile as in the module), swapped into the live functions
that run that code (`__code__`), and the failing test runs again; its code is put back
before the next change. A change that makes it pass is run against the other failing
tests too. Probing stops at its deadline.

It stops at its deadline, and sooner once a change made every failing test it ran pass:
when every line that scored as high as that change's has been tried (a lower tier would
only add changes the ranking puts after it), or a second later (a tier of code every test
runs can hold hundreds of lines, and a second finds a rival change near it, if any).

Enabled by `-p homespace_probe` beside homespace_trace, configured by the environment:
  HOMESPACE_PROBE_SECONDS  how long it may probe, in seconds
  HOMESPACE_PASS_SECONDS   how long the whole pytest process may take before it is killed:
                         the probe ends well within it, so the pass's traces are kept
  HOMESPACE_TRACE_ROOTS, HOMESPACE_TRACE_OUT  as homespace_trace's; it appends to that file
                         {"probe": {"file", "line", "was", "now", "fixes": [nodeids]}} per
                         change that made the first failing test pass, then
                         {"probed": {"test", "tried", "lines", "of", "seconds", "finished",
                                     "stopped": "fixed" when it stopped early}}
"""

import ast
import functools
import gc
import json
import math
import os
import signal
import time
import types

import pytest

# When this process began, near enough: the plugin is imported as pytest starts.
_BORN = time.monotonic()

_ROOTS = [
    os.path.realpath(p)
    for p in os.environ.get("HOMESPACE_TRACE_ROOTS", "").split(os.pathsep)
    if p
]
_OUT = os.environ.get("HOMESPACE_TRACE_OUT")
try:
    _SECONDS = float(os.environ.get("HOMESPACE_PROBE_SECONDS", "0"))
    _PASS = float(os.environ.get("HOMESPACE_PASS_SECONDS", "inf"))
except ValueError:
    _SECONDS, _PASS = 0.0, 0.0
# Of the pass's time, what the probe leaves unused: a killed pass would lose its traces.
_MARGIN = 0.2
# Other failing tests a change that fixed the first is run against, at most.
_OTHERS = 9
# A mutant may loop forever: each run may take this many times the unmutated run, and at
# least the floor, in seconds.
_SLOWER = 10
_FLOOR = 1.0
# How long it goes on in the tier of a change that made every failing test pass.
_GRACE = 1.0

_COMPARE_SWAPS = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}
_OPERATOR_SWAPS = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.FloorDiv,),
    ast.FloorDiv: (ast.Mult, ast.Div),
    ast.Div: (ast.FloorDiv,),
}
_TEXT = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Div: "/",
    ast.And: "and",
    ast.Or: "or",
}


class _TooLong(BaseException):
    """A mutant's run went past its time: it looped, and fixed nothing."""


def _relative(path):
    return os.path.relpath(os.path.realpath(path), _ROOTS[0])


def _records():
    tests = []
    try:
        with open(_OUT, encoding="utf-8") as out:
            for line in out:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if "test" in record:
                    tests.append(record)
    except OSError:
        pass
    return tests


def _is_test_file(rel, collected):
    name = os.path.basename(rel)
    return (
        rel in collected
        or name == "conftest.py"
        or name.startswith("test_")
        or name.endswith("_test.py")
    )


def _ranked_lines(records, target, collected):
    """The target's lines in project files that are not tests, best Ochiai first, each
    with its score."""
    counts = {}
    failing = 0
    for record in records:
        if record["outcome"] == "skipped":
            continue
        failed = record["outcome"] == "failed"
        failing += failed
        for rel, lines in record["files"].items():
            for line in lines:
                ef, ep = counts.get((rel, line), (0, 0))
                counts[(rel, line)] = (ef + failed, ep + (not failed))
    scored = []
    for rel, lines in target["files"].items():
        if _is_test_file(rel, collected):
            continue
        for line in lines:
            ef, ep = counts.get((rel, line), (1, 0))
            score = ef / math.sqrt(max(failing, 1) * (ef + ep))
            scored.append((-score, rel, line))
    scored.sort()
    return [(rel, line, -score) for score, rel, line in scored]


class _Module:
    """One project file's syntax tree, and what a change within it compiles with."""

    def __init__(self, path):
        with open(path, "rb") as f:
            source = f.read()
        self.path = path
        self.tree = ast.parse(source, filename=path)
        self.lines = source.split(b"\n")
        self.future = [
            s
            for s in self.tree.body
            if isinstance(s, ast.ImportFrom) and s.module == "__future__"
        ]

    def place(self, line):
        """The top-level statement and the functions (outermost first) holding `line` in
        a body, or None when no function does."""
        for top in self.tree.body:
            if top.lineno <= line <= getattr(top, "end_lineno", top.lineno):
                chain = []
                _descend(top, line, chain)
                return (top, chain) if chain else None
        return None

    def compile(self, top):
        module = ast.Module(body=self.future + [top], type_ignores=[])
        return compile(module, self.path, "exec", dont_inherit=True)

    def segment(self, node):
        """Byte columns of `node` when it is on one line."""
        if node.lineno != getattr(node, "end_lineno", None):
            return None
        return node.col_offset, node.end_col_offset


def _descend(node, line, chain):
    """Adds to `chain` the functions below `node` (itself included) whose body holds
    `line`, outermost first."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if not node.body or line < node.body[0].lineno:
            # Its signature or decorators: run once, when the function is made.
            return
        chain.append(node)
        children = node.body
    elif isinstance(node, ast.ClassDef):
        children = node.body
    else:
        children = list(ast.iter_child_nodes(node))
    for child in children:
        end = getattr(child, "end_lineno", None)
        if end is not None and child.lineno <= line <= end:
            _descend(child, line, chain)
            return


def _first_line(function):
    return min([function.lineno] + [d.lineno for d in function.decorator_list])


def _on_line(node, line):
    return getattr(node, "lineno", None) == line == getattr(node, "end_lineno", None)


def _gap(before, after, line, old, new):
    """The text between two operands on `line`, where an operator is, with `old` (its
    text) made `new`: an edit of the line's bytes, or None off the line."""
    if not (_on_line(before, line) and _on_line(after, line)):
        return None
    old, new = old.encode(), new.encode()
    return (before.end_col_offset, after.col_offset, lambda gap: gap.replace(old, new, 1))


def _mutations(function, line):
    """Each change on `line` of `function`'s own body, as (apply, undo, describe), where
    describe is (was, now, edits): the operator or value as it was and becomes, and the
    edits of the line's bytes that show the change, (start, end, make new from old)."""
    found = []

    def op_edits(owner, field, index, old_text, new_text):
        if isinstance(owner, ast.Compare):
            before = owner.left if index == 0 else owner.comparators[index - 1]
            edits = [_gap(before, owner.comparators[index], line, old_text, new_text)]
        elif isinstance(owner, ast.BinOp):
            edits = [_gap(owner.left, owner.right, line, old_text, new_text)]
        elif isinstance(owner, ast.AugAssign):
            edits = [_gap(owner.target, owner.value, line, old_text, new_text)]
        else:
            values = owner.values
            edits = [
                _gap(a, b, line, old_text, new_text) for a, b in zip(values, values[1:])
            ]
        return None if None in edits else edits

    def swap_op(owner, field, index, new):
        ops = getattr(owner, field)
        old = ops[index] if index is not None else ops

        def apply():
            if index is None:
                setattr(owner, field, new())
            else:
                ops[index] = new()

        def undo():
            if index is None:
                setattr(owner, field, old)
            else:
                ops[index] = old

        was, now = _TEXT[type(old)], _TEXT[new]
        return apply, undo, (was, now, op_edits(owner, field, index, was, now))

    def set_field(owner, field, new, was_text, now_text, edits):
        old = getattr(owner, field)

        def apply():
            setattr(owner, field, new)

        def undo():
            setattr(owner, field, old)

        return apply, undo, (was_text, now_text, edits)

    def whole(node, make):
        """The edit that replaces `node`'s text by `make(its text)`, if on the line."""
        if not _on_line(node, line):
            return None
        return [(node.col_offset, node.end_col_offset, make)]

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # A nested function or class has its own lines and code.
                continue
            visit(child)
            walk(child)

    def visit(node):
        if getattr(node, "lineno", None) != line:
            return
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for new in _COMPARE_SWAPS.get(type(op), ()):
                    found.append(swap_op(node, "ops", i, new))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            for new in _OPERATOR_SWAPS.get(type(node.op), ()):
                found.append(swap_op(node, "op", None, new))
        elif isinstance(node, ast.BoolOp):
            new = ast.Or if isinstance(node.op, ast.And) else ast.And
            found.append(swap_op(node, "op", None, new))
        elif isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or (isinstance(value, int) and abs(value) < 1 << 31):
                news = [not value] if isinstance(value, bool) else [value + 1, value - 1]
                for new in news:
                    text = repr(new).encode()
                    edits = whole(node, lambda _old, text=text: text)
                    found.append(
                        set_field(node, "value", new, repr(value), repr(new), edits)
                    )
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            test = node.test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                operand = test.operand
                start = operand.col_offset - test.col_offset
                end = operand.end_col_offset - test.col_offset
                edits = whole(test, lambda old: old[start:end]) if _on_line(operand, line) else None
                found.append(set_field(node, "test", operand, "not", "", edits))
            else:
                negated = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=test), test)
                # `not a and b` would read as `(not a) and b`.
                loose = isinstance(test, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda))
                edits = whole(
                    test, lambda old: b"not (" + old + b")" if loose else b"not " + old
                )
                found.append(set_field(node, "test", negated, "", "not", edits))

    for statement in function.body:
        visit(statement)
        if not isinstance(
            statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            walk(statement)
    return found


def _codes(code, into):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            into[(const.co_name, const.co_firstlineno)] = const
            _codes(const, into)
    return into


# functools.lru_cache's wrapper: what a changed function returned must not outlive the
# change, nor what it returned before hide the change.
_LRU = getattr(functools, "_lru_cache_wrapper", ())


def _live_functions(paths):
    """The live functions whose code is in `paths`, by (path, first line, name); and the
    lru_cache wrappers of functions, by the function's id."""
    live = {}
    real = {}
    caches = {}
    for obj in gc.get_objects():
        if _LRU and isinstance(obj, _LRU):
            wrapped = getattr(obj, "__wrapped__", None)
            caches.setdefault(id(wrapped), []).append(obj)
            continue
        if not isinstance(obj, types.FunctionType):
            continue
        code = obj.__code__
        name = code.co_filename
        path = real.get(name)
        if path is None:
            path = real[name] = os.path.realpath(name)
        if path in paths:
            live.setdefault((path, code.co_firstlineno, code.co_name), []).append(obj)
    return live, caches


def _clear(swapped, caches):
    for f, _ in swapped:
        for cache in caches.get(id(f), ()):
            cache.cache_clear()


def _passes(item, limit):
    from _pytest.runner import runtestprotocol

    def too_long(signum, frame):
        raise _TooLong()

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        reports = runtestprotocol(item, log=False, nextitem=None)
        return all(r.passed for r in reports)
    except _TooLong:
        return False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _rendered(module, line, was, now, edits):
    """`line`'s text, and its text with the change: by `edits` of its bytes where the
    change's place on the line is known, else as well as can be told."""
    raw = module.lines[line - 1]
    text = raw.decode("utf-8", "replace").strip()
    if edits:
        changed = raw
        for start, end, make in sorted(edits, key=lambda e: e[0], reverse=True):
            changed = changed[:start] + make(changed[start:end]) + changed[end:]
        return text, changed.decode("utf-8", "replace").strip()
    if was and now:
        for pattern in (" %s " % was, was):
            if pattern in text:
                return text, text.replace(pattern, pattern.replace(was, now), 1)
    elif now == "not":
        for keyword in ("elif ", "if ", "while ", "assert "):
            if text.startswith(keyword):
                return text, keyword + "not " + text[len(keyword) :]
        return text, text.replace(" if ", " if not ", 1)
    elif was == "not":
        return text, text.replace("not ", "", 1)
    return text, ""


def _probe(session, started):
    records = _records()
    failing = [r for r in records if r["outcome"] == "failed"]
    items = {item.nodeid: item for item in session.items}
    failing = [r for r in failing if r["test"] in items]
    if not failing:
        return None
    target = failing[0]
    item = items[target["test"]]
    collected = {
        _relative(str(getattr(i, "path", None) or getattr(i, "fspath", "")))
        for i in session.items
    }
    lines = _ranked_lines(records, target, collected)
    if not lines:
        # It ran no project code outside the tests: nothing to change.
        return None
    summary = {
        "test": target["test"],
        "tried": 0,
        "lines": 0,
        "of": len(lines),
        "finished": False,
    }
    deadline = min(started + _SECONDS, _BORN + _PASS * (1 - _MARGIN))
    base = time.monotonic()
    if _passes(item, max(_FLOOR, _SECONDS)):
        # It passes run again on its own: whatever failed it is not in one line.
        summary["finished"] = True
        summary["alone"] = "passed"
        return summary
    limit = max(_FLOOR, _SLOWER * (time.monotonic() - base))
    modules = {}
    paths = {os.path.join(_ROOTS[0], rel) for rel, _, _ in lines}
    live, caches = _live_functions({os.path.realpath(p) for p in paths})
    found = []
    # The score of the line whose change made every failing test tried pass, once found,
    # and when the probe stops then.
    whole_fix = None
    for rel, line, score in lines:
        if time.monotonic() > deadline:
            break
        if whole_fix is not None and score < whole_fix - 1e-9:
            break
        path = os.path.join(_ROOTS[0], rel)
        module = modules.get(path)
        if module is None:
            try:
                module = modules[path] = _Module(path)
            except (OSError, SyntaxError, ValueError):
                modules[path] = False
                continue
        if module is False:
            continue
        place = module.place(line)
        if place is None:
            continue
        top, chain = place
        summary["lines"] += 1
        real = os.path.realpath(path)
        for apply, undo, (was, now, edits) in _mutations(chain[-1], line):
            if time.monotonic() > deadline:
                break
            apply()
            try:
                codes = _codes(module.compile(top), {})
            except (SyntaxError, ValueError, TypeError):
                codes = None
            finally:
                undo()
            if codes is None:
                continue
            swapped = []
            for function in chain:
                key = (function.name, _first_line(function))
                code = codes.get(key)
                for f in live.get((real, key[1], key[0]), ()) if code else ():
                    if len(f.__code__.co_freevars) == len(code.co_freevars):
                        swapped.append((f, f.__code__))
                        f.__code__ = code
            if not swapped:
                continue
            summary["tried"] += 1
            _clear(swapped, caches)
            try:
                if _passes(item, limit):
                    fixes = [target["test"]]
                    others = failing[1 : 1 + _OTHERS]
                    for other in others:
                        if _passes(items[other["test"]], limit):
                            fixes.append(other["test"])
                    if len(fixes) == 1 + len(others) and whole_fix is None:
                        whole_fix = score
                        deadline = min(deadline, time.monotonic() + _GRACE)
                    text, changed = _rendered(module, line, was, now, edits)
                    found.append(
                        {
                            "file": rel,
                            "line": line,
                            "was": text,
                            "now": changed,
                            "fixes": fixes,
                        }
                    )
            finally:
                for f, code in swapped:
                    f.__code__ = code
                _clear(swapped, caches)
    else:
        summary["finished"] = True
    if whole_fix is not None and not summary["finished"]:
        summary["stopped"] = "fixed"
    summary["found"] = found
    return summary


if _OUT and _ROOTS and _SECONDS > 0 and hasattr(signal, "setitimer"):

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtestloop(session):
        yield
        started = time.monotonic()
        try:
            summary = _probe(session, started)
        except Exception as error:  # The probe never fails the pass it follows.
            summary = {"error": "%s: %s" % (type(error).__name__, error)}
        if summary is None:
            return
        summary["seconds"] = round(time.monotonic() - started, 3)
        with open(_OUT, "a", encoding="utf-8") as out:
            for probe in summary.pop("found", ()):
                out.write(json.dumps({"probe": probe}) + "\n")
            out.write(json.dumps({"probed": summary}) + "\n")
