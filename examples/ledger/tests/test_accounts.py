"""Tests for ledger.accounts."""

from decimal import Decimal

import pytest

from ledger.accounts import Account, parse_amount


def test_parse_amount_rounds_to_cents():
    assert parse_amount(0.1) == Decimal("0.10")
    assert parse_amount("1,234.565") == Decimal("1234.56")


def test_debit_and_credit_follow_normal_side():
    cash = Account("assets:cash", Account.Kind.ASSET)
    sales = Account("income:sales", Account.Kind.INCOME)
    cash.debit(50)
    sales.credit(50)
    assert cash.balance == Decimal("50.00")
    assert sales.balance == Decimal("50.00")
    cash.credit("20")
    assert cash.balance == Decimal("30.00")


def test_balance_setter_normalises():
    acc = Account.from_path("liabilities:card")
    acc.balance = "12.345"
    assert acc.balance == Decimal("12.34")


def test_from_path_infers_kind():
    assert Account.from_path("expenses:food").kind is Account.Kind.EXPENSE
    with pytest.raises(ValueError):
        Account.from_path("nonsense:thing")


@pytest.mark.parametrize("bad", ["", "  ", "assets::cash", ":x"])
def test_validate_name_rejects_blank_segments(bad):
    with pytest.raises(ValueError):
        Account.validate_name(bad)
