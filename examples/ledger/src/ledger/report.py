"""Report: format a journal's trial balance as text or HTML."""

from __future__ import annotations

import html
from decimal import Decimal
from importlib import resources
from string import Template

from .journal import Journal

try:
    from tabulate import tabulate as _tabulate
except ImportError:  # tabulate is optional at import time
    _tabulate = None

HEADERS = ("Account", "Debit", "Credit")


def trial_balance(journal: Journal) -> list[tuple[str, Decimal, Decimal]]:
    """Return (account, debit, credit) rows for every account, sorted by name."""
    rows = []
    for name, acc in sorted(journal.accounts.items()):
        signed = acc.balance if acc.kind.is_debit_normal() else -acc.balance
        debit = signed if signed > 0 else Decimal("0.00")
        credit = -signed if signed < 0 else Decimal("0.00")
        rows.append((name, debit, credit))
    return rows


def totals(rows: list[tuple[str, Decimal, Decimal]]) -> tuple[Decimal, Decimal]:
    """Return the summed debit and credit columns of trial-balance rows."""
    zero = Decimal("0.00")
    return sum((r[1] for r in rows), zero), sum((r[2] for r in rows), zero)


def _plain_table(rows: list[tuple[str, str, str]]) -> str:
    """Lay out rows as a fixed-width table without third-party help."""
    table = [HEADERS, *rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(3)]
    lines = []
    for i, row in enumerate(table):
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(c).rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_trial_balance(journal: Journal) -> str:
    """Return the trial balance as a text table with a totals line."""
    rows = trial_balance(journal)
    debit, credit = totals(rows)
    body = [(n, str(d), str(c)) for n, d, c in rows]
    body.append(("TOTAL", str(debit), str(credit)))
    if _tabulate is not None:
        return _tabulate(
            body, headers=HEADERS, colalign=("left", "right", "right"),
            disable_numparse=True,
        )
    return _plain_table(body)


def render_html(journal: Journal, title: str = "Trial balance") -> str:
    """Return the trial balance rendered with the packaged HTML template."""
    template = Template(
        resources.files("ledger").joinpath("templates/report.html").read_text("utf-8")
    )
    rows = trial_balance(journal)
    debit, credit = totals(rows)
    cells = "\n".join(
        f"    <tr><td>{html.escape(n)}</td><td>{d}</td><td>{c}</td></tr>"
        for n, d, c in rows
    )
    return template.substitute(
        title=html.escape(title), rows=cells, debit=debit, credit=credit
    )
