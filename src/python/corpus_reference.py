"""CPython's view of the symbols of Python files: the reference for corpus_tests.rs.

Reads file paths from stdin, one a line. Prints one JSON object a line per file:
{"path": ..., "symbols": [[qualname, def_line, dedented_text, exact, as_textwrap], ...]} or
{"path": ..., "skip": reason}. Symbols are ClassDef/FunctionDef/AsyncFunctionDef in module
and class bodies, looking through if/try/with blocks and never into function bodies. The text
runs from the first decorator (or def/class) line to the end of end_lineno's line, and is
dedented by the rule of indent.rs: a line that continues a multi-line string which is no
docstring (of the module or of any function or class, also one defined inside a function)
is part of a value and kept as it is; every other line that is not whitespace-only loses the def's indentation, docstring
lines included, or, when one of them does not start with it, the text is verbatim.
as_textwrap says whether an exact text without value lines is what textwrap.dedent makes of
the lines (up to whitespace-only lines, which textwrap empties and the rule keeps): the rule
checked against Python's own, not only restated.
"""

import ast
import io
import json
import re
import sys
import textwrap
import tokenize

BREAK = re.compile(r"\r\n|\r|\n")
INDENT = re.compile(r"\ufeff?([ \t\f]*)")
BLANK = re.compile(r"[ \t\f\r\n]*\Z")


def line_starts(text):
    starts = [0] if text else []
    starts += [m.end() for m in BREAK.finditer(text) if m.end() < len(text)]
    return starts


def as_dedented(text):
    return textwrap.dedent(BREAK.sub("\n", text))


def definitions(body, prefix, out):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((prefix + [node.name], node))
            if isinstance(node, ast.ClassDef):
                definitions(node.body, prefix + [node.name], out)
        elif isinstance(node, ast.If):
            definitions(node.body, prefix, out)
            definitions(node.orelse, prefix, out)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            definitions(node.body, prefix, out)
            for handler in node.handlers:
                definitions(handler.body, prefix, out)
            definitions(node.orelse, prefix, out)
            definitions(node.finalbody, prefix, out)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            definitions(node.body, prefix, out)


def docstring_rows(bodies):
    """(first row, last row) of each body's docstring: its first statement, a string."""
    rows = set()
    for body in bodies:
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            rows.add((first.value.lineno, first.value.end_lineno))
    return rows


def value_lines(code, docstrings):
    """0-based numbers of the lines that continue a multi-line string which is no docstring."""
    kept = set()
    # newline=None reads \r and \r\n as \n, so rows count lines as Python does.
    tokens = tokenize.generate_tokens(io.StringIO(code, newline=None).readline)
    fstring_start = None
    depth = 0
    for token in tokens:
        kind = tokenize.tok_name[token.type]
        if kind == "FSTRING_START":
            if depth == 0:
                fstring_start = token.start
            depth += 1
            continue
        if kind == "FSTRING_END":
            depth -= 1
            if depth:
                continue
            span = (fstring_start[0], token.end[0])
        elif kind == "STRING" and depth == 0:
            span = (token.start[0], token.end[0])
        else:
            continue
        if span[1] > span[0] and span not in docstrings:
            kept.update(range(span[0], span[1]))
    return kept


def symbols(text):
    code = text[1:] if text.startswith("\ufeff") else text
    tree = ast.parse(code)
    starts = line_starts(text)

    def line(number):
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        return text[starts[number]:end]

    found = []
    out = []
    definitions(tree.body, [], found)
    # Docstrings of every function and class, also those defined inside a function: they
    # move with their code.
    bodies = [tree.body] + [
        node.body
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    kept = value_lines(code, docstring_rows(bodies))
    for qualname, node in found:
        first = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
        last = node.end_lineno - 1
        indent = INDENT.match(line(node.lineno - 1)).group(1)
        lines = [line(n) for n in range(first, last + 1)]
        dedented = []
        exact = True
        values = False
        for number, content in enumerate(lines, start=first):
            if number in kept:
                dedented.append(content)
                values = True
            elif BLANK.match(content):
                dedented.append(content)
            elif content.startswith(indent):
                dedented.append(content[len(indent):])
            else:
                exact = False
        raw = "".join(lines)
        segment = "".join(dedented) if exact else raw
        # Line breaks made \n first: textwrap counts a \r as text, not as blank.
        as_textwrap = not exact or values or as_dedented(raw) == as_dedented(segment)
        out.append([".".join(qualname), node.lineno, segment, exact, as_textwrap])
    return out


def main():
    for path in sys.stdin.read().splitlines():
        record = {"path": path}
        try:
            with open(path, "rb") as file:
                text = file.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            record["skip"] = "not utf-8"
        else:
            try:
                record["symbols"] = symbols(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                record["skip"] = "cpython rejects"
        print(json.dumps(record))


main()
