"""Accounts: named buckets that hold balances in a double-entry ledger."""

from __future__ import annotations

import enum
from decimal import ROUND_HALF_EVEN, Decimal

__all__ = ["Account", "parse_amount"]

CENT = Decimal("0.01")


# Amounts are kept as Decimal rounded to cents; floats go through str() first
# so that 0.1 becomes Decimal("0.10") rather than a long binary expansion.
def parse_amount(value: Decimal | int | float | str) -> Decimal:
    """Convert a number or string to a Decimal rounded to cents."""
    if isinstance(value, float):
        value = str(value)
    if isinstance(value, str):
        value = value.replace(",", "").strip()
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)


class Account:
    """A named account with a kind and a running balance.

    The balance is signed in the account's normal direction: a debit raises
    an asset or expense account and lowers the others.
    """

    class Kind(enum.Enum):
        """The five account kinds of the accounting equation."""

        ASSET = "assets"
        LIABILITY = "liabilities"
        EQUITY = "equity"
        INCOME = "income"
        EXPENSE = "expenses"

        def is_debit_normal(self) -> bool:
            """Return True if debits increase accounts of this kind."""
            return self in (Account.Kind.ASSET, Account.Kind.EXPENSE)

    def __init__(self, name: str, kind: Account.Kind, opening: Decimal | int = 0):
        """Create an account called `name` of the given kind."""
        self.name = self.validate_name(name)
        self.kind = kind
        self._balance = parse_amount(opening)

    def __repr__(self) -> str:
        return f"Account({self.name!r}, {self.kind.name}, balance={self._balance})"

    @property
    def balance(self) -> Decimal:
        """The current balance, in the account's normal direction."""
        return self._balance

    @balance.setter
    def balance(self, value: Decimal | int | float | str) -> None:
        """Set the balance directly, e.g. when restoring from a snapshot."""
        self._balance = parse_amount(value)

    def debit(self, amount: Decimal | int | str) -> None:
        """Record a debit of `amount` (positive) against this account."""
        amount = parse_amount(amount)
        self._balance += amount if self.kind.is_debit_normal() else -amount

    def credit(self, amount: Decimal | int | str) -> None:
        """Record a credit of `amount` (positive) against this account."""
        amount = parse_amount(amount)
        self._balance += -amount if self.kind.is_debit_normal() else amount

    def apply(self, signed: Decimal) -> None:
        """Apply a signed amount: positive is a debit, negative a credit."""
        if signed >= 0:
            self.debit(signed)
        else:
            self.credit(-signed)

    @classmethod
    def from_path(cls, path: str, opening: Decimal | int = 0) -> Account:
        """Build an account from a path such as ``assets:bank:checking``."""
        top = path.split(":", 1)[0]
        try:
            kind = cls.Kind(top)
        except ValueError:
            raise ValueError(f"unknown account kind {top!r} in {path!r}") from None
        return cls(path, kind, opening)

    @staticmethod
    def validate_name(name: str) -> str:
        """Check that an account name is non-empty and has no blank segments."""
        name = name.strip()
        if not name or any(not part for part in name.split(":")):
            raise ValueError(f"invalid account name {name!r}")
        return name
