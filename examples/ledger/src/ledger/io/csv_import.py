"""CSV import: read ``date,memo,account,amount`` rows as transactions."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from ..journal import Journal, Posting, Transaction, parse_date

FIELDS = ("date", "memo", "account", "amount")


class CSVFormatError(ValueError):
    """Raised when a CSV file is missing columns or has a bad row."""

    def __init__(self, line: int, message: str):
        """Remember the 1-based line number alongside the message."""
        super().__init__(f"line {line}: {message}")
        self.line = line


def read_transactions(stream: TextIO) -> Iterator[Transaction]:
    """Yield transactions, grouping consecutive rows with the same date and memo."""
    reader = csv.DictReader(stream)
    missing = set(FIELDS) - set(reader.fieldnames or ())
    if missing:
        raise CSVFormatError(1, f"missing columns: {', '.join(sorted(missing))}")
    current: Transaction | None = None
    for row in reader:
        try:
            when = parse_date(row["date"])
            posting = Posting(row["account"].strip(), row["amount"])
        except (ValueError, ArithmeticError) as exc:
            raise CSVFormatError(reader.line_num, str(exc)) from exc
        memo = row["memo"].strip()
        if current is None or (current.when, current.memo) != (when, memo):
            if current is not None:
                yield current
            current = Transaction(when, memo)
        current.postings.append(posting)
    if current is not None:
        yield current


def import_csv(journal: Journal, path: str | Path) -> int:
    """Post every transaction in the CSV file at `path`; return how many."""
    count = 0
    with open(path, newline="", encoding="utf-8") as stream:
        for txn in read_transactions(stream):
            journal.post(txn)
            count += 1
    return count
