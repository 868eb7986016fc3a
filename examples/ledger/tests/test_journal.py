"""Tests for ledger.journal, ledger.report and ledger.io."""

import asyncio
from datetime import date
from decimal import Decimal

import pytest

from ledger import Posting, Transaction, UnbalancedError, total
from ledger.io import import_csv
from ledger.journal import parse_date
from ledger.report import format_trial_balance, render_html, trial_balance


def test_record_updates_balances(journal):
    journal.record("2024-01-02", "Sale", assets_cash=120, income_sales=-120)
    assert total(journal, "assets:cash") == Decimal("120.00")
    assert total(journal)["income:sales"] == Decimal("120.00")
    assert len(journal) == 1


def test_unbalanced_transaction_is_rejected(journal):
    with pytest.raises(UnbalancedError):
        journal.record("2024-01-02", "Oops", assets_cash=10, income_sales=-9)
    assert len(journal) == 0
    assert journal.accounts["assets:cash"].balance == 0


def test_post_all_async(journal):
    async def source():
        for day in (1, 2, 3):
            yield Transaction(
                date(2024, 2, day),
                f"Sale {day}",
                [Posting("assets:cash", 10), Posting("income:sales", -10)],
            )

    assert asyncio.run(journal.post_all(source())) == 3
    assert total(journal, "assets:cash") == Decimal("30.00")


def test_parse_date():
    assert parse_date("2024-03-04") == date(2024, 3, 4)


def test_csv_import_and_trial_balance(journal, sample_csv):
    assert import_csv(journal, sample_csv) == 2
    rows = {name: (d, c) for name, d, c in trial_balance(journal)}
    assert rows["assets:bank"] == (Decimal("600.00"), Decimal("0.00"))
    assert rows["equity:capital"] == (Decimal("0.00"), Decimal("1000.00"))
    text = format_trial_balance(journal)
    assert "TOTAL" in text and "1000.00" in text
    page = render_html(journal)
    assert "<td>expenses:rent</td><td>400.00</td>" in page
