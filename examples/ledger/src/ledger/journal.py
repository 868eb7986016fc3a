"""Journal: balanced transactions posted to a set of accounts."""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, overload

from .accounts import Account, parse_amount

if TYPE_CHECKING:
    from collections.abc import AsyncIterable, Iterable
    from typing import Protocol

    class SupportsPosting(Protocol):
        """Anything a posting can be applied to."""

        def apply(self, signed: Decimal) -> None: ...

try:
    from dateutil.parser import isoparse as _isoparse

    def parse_date(text: str) -> date:
        """Parse an ISO-8601 date (or datetime) with python-dateutil."""
        return _isoparse(text.strip()).date()

except ImportError:

    def parse_date(text: str) -> date:
        """Parse an ISO-8601 date with the standard library only."""
        return date.fromisoformat(text.strip()[:10])


class UnbalancedError(ValueError):
    """Raised when a transaction's postings do not sum to zero."""


@dataclass(frozen=True)
class Posting:
    """One line of a transaction: positive amounts debit, negative credit."""

    account: str
    amount: Decimal

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", parse_amount(self.amount))


@dataclass
class Transaction:
    """A dated, described set of postings that must balance."""

    when: date
    memo: str
    postings: list[Posting] = field(default_factory=list)

    def imbalance(self) -> Decimal:
        """Return the sum of all postings (zero when balanced)."""
        return sum((p.amount for p in self.postings), Decimal("0.00"))


CHECKS: list[Callable[[Transaction], None]] = []


def check(func: Callable[[Transaction], None]) -> Callable[[Transaction], None]:
    """Register `func` as a validation run on every posted transaction."""
    CHECKS.append(func)
    return func


@check
def check_balanced(txn: Transaction) -> None:
    """Reject a transaction whose debits and credits differ."""
    off = txn.imbalance()
    if off:
        raise UnbalancedError(f"{txn.memo!r} is off by {off}")


@check
def check_has_postings(txn: Transaction) -> None:
    """Reject a transaction with fewer than two postings."""
    if len(txn.postings) < 2:
        raise UnbalancedError(f"{txn.memo!r} needs at least two postings")


def validated(method):
    """Run every registered check on the transaction before the method."""

    @functools.wraps(method)
    def wrapper(self, txn: Transaction, *args, **kwargs):
        for rule in CHECKS:
            rule(txn)
        return method(self, txn, *args, **kwargs)

    return wrapper


class Journal:
    """An ordered record of transactions and the accounts they touch."""

    def __init__(self, accounts: Iterable[Account] = ()):
        """Create a journal, optionally with some accounts already open."""
        self.accounts: dict[str, Account] = {}
        self.transactions: list[Transaction] = []
        for account in accounts:
            self.open(account)

    def __len__(self) -> int:
        return len(self.transactions)

    def open(self, account: Account | str) -> Account:
        """Open an account (or an account path) and return it."""
        if isinstance(account, str):
            account = Account.from_path(account)
        if account.name in self.accounts:
            raise KeyError(f"account {account.name!r} already open")
        self.accounts[account.name] = account
        return account

    def account(self, name: str) -> Account:
        """Return the open account called `name`, opening it if needed."""
        if name not in self.accounts:
            return self.open(name)
        return self.accounts[name]

    @validated
    def post(self, txn: Transaction) -> Transaction:
        """Validate a transaction and apply its postings to the accounts."""
        for posting in txn.postings:
            self.account(posting.account).apply(posting.amount)
        self.transactions.append(txn)
        return txn

    def record(
        self, when: date | str, memo: str, **amounts: Decimal | int | str
    ) -> Transaction:
        """Post a transaction given as ``account_path=amount`` keywords.

        Underscores in keyword names stand for colons: ``assets_cash=5``.
        """
        if isinstance(when, str):
            when = parse_date(when)
        postings = [Posting(k.replace("_", ":"), v) for k, v in amounts.items()]
        return self.post(Transaction(when, memo, postings))

    async def post_all(self, source: AsyncIterable[Transaction]) -> int:
        """Post every transaction from an async source; return how many."""
        count = 0
        async for txn in source:
            self.post(txn)
            count += 1
            await asyncio.sleep(0)
        return count


@overload
def total(journal: Journal, account: str) -> Decimal: ...
@overload
def total(journal: Journal, account: None = None) -> dict[str, Decimal]: ...
def total(
    journal: Journal, account: str | None = None
) -> Decimal | dict[str, Decimal]:
    """Return one account's balance, or every account's balance by name."""
    if account is not None:
        return journal.account(account).balance
    return {name: acc.balance for name, acc in sorted(journal.accounts.items())}
