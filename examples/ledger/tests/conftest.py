"""Shared fixtures: a small journal with a few accounts open."""

import pytest

from ledger import Account, Journal


@pytest.fixture
def journal() -> Journal:
    """Return a journal with cash, bank, equity, sales and rent accounts."""
    return Journal(
        [
            Account("assets:cash", Account.Kind.ASSET),
            Account.from_path("assets:bank"),
            Account.from_path("equity:capital"),
            Account.from_path("income:sales"),
            Account.from_path("expenses:rent"),
        ]
    )


@pytest.fixture
def sample_csv(tmp_path):
    """Write a two-transaction CSV file and return its path."""
    path = tmp_path / "sample.csv"
    path.write_text(
        "date,memo,account,amount\n"
        "2024-01-02,Owner investment,assets:bank,1000.00\n"
        "2024-01-02,Owner investment,equity:capital,-1000.00\n"
        "2024-01-05,January rent,expenses:rent,400\n"
        "2024-01-05,January rent,assets:bank,-400\n",
        encoding="utf-8",
    )
    return path
