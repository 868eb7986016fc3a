"""A tiny double-entry bookkeeping library.

Accounts hold balances, a journal records balanced transactions against them,
and the report module prints a trial balance.
"""

from .accounts import Account, parse_amount
from .journal import Journal, Posting, Transaction, UnbalancedError, total
from .report import format_trial_balance, render_html, trial_balance

__version__ = "0.3.1"

__all__ = [
    "Account",
    "Journal",
    "Posting",
    "Transaction",
    "UnbalancedError",
    "format_trial_balance",
    "parse_amount",
    "render_html",
    "total",
    "trial_balance",
]
