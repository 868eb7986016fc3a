"""Input/output helpers: load transactions into a journal from files."""

from .csv_import import import_csv, read_transactions

__all__ = ["import_csv", "read_transactions"]
