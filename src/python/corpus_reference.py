"""CPython's view of the symbols of Python files: the reference for corpus_tests.rs.

Reads file paths from stdin, one a line. Prints one JSON object a line per file:
{"path": ..., "symbols": [[qualname, def_line, dedented_text, exact, as_textwrap], ...]} or
{"path": ..., "skip": reason}. Symbols are ClassDef/FunctionDef/AsyncFunctionDef in module
and class bodies, looking through if/try/with blocks and never into function bodies. The text
runs from the first decorator (or def/class) line to the end of end_lineno's line, and is
dedented by the rule of indent.rs: every line that is not whitespace-only loses the def's
indentation, string lines included (textwrap.dedent of inspect.getsource), or, when one of
them does not start with it, the text is verbatim. as_textwrap says whether an exact text is
what textwrap.dedent makes of the lines (up to whitespace-only lines, which textwrap empties
and the rule keeps): the rule checked against Python's own, not only restated.
"""

import ast
import json
import re
import sys
import textwrap

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
    for qualname, node in found:
        first = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
        last = node.end_lineno - 1
        indent = INDENT.match(line(node.lineno - 1)).group(1)
        lines = [line(n) for n in range(first, last + 1)]
        dedented = []
        exact = True
        for content in lines:
            if BLANK.match(content):
                dedented.append(content)
            elif content.startswith(indent):
                dedented.append(content[len(indent):])
            else:
                exact = False
        raw = "".join(lines)
        segment = "".join(dedented) if exact else raw
        # Line breaks made \n first: textwrap counts a \r as text, not as blank.
        as_textwrap = not exact or as_dedented(raw) == as_dedented(segment)
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
