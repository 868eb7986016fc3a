//! The projects the walks run on, with each walk's data: the example project (its copy
//! of `examples/ledger`), and cachetools 5.5.0 — a real library with its pytest suite in
//! its sdist, not in this repository, run by the installed Python without extra packages
//! (src layout: the bare agent runs `PYTHONPATH=src python -m pytest`, as a capable agent
//! does once; the mount's runner needs no telling). The sdist is downloaded with pip into
//! a cache folder when missing, or given unpacked (`--sdist DIR`).

use std::path::{Path, PathBuf};

use super::Walk;
use super::feature::Feature;
use super::fix::Fix;
use super::kwarg::Kwarg;
use super::read::Read;
use super::recall::Recall;
use super::refs::Refs;
use super::transcripts::Memory;

pub struct Project {
    pub title: String,
    /// The project to copy (never changed itself).
    pub dir: PathBuf,
    pub walks: Vec<Box<dyn Walk>>,
    pub memory: Memory,
}

pub fn example() -> Project {
    let pytest = "python -m pytest";
    let memory = Memory {
        cwd: "/home/dev/ledger",
        chores: &[
            "Add a CSV export of the trial balance.",
            "The HTML report escapes account names twice; fix it.",
            "Journal.record should accept dates as datetime too.",
            "The CSV export writes amounts as integer cents; write them as decimals.",
            "Add a test for Account.from_path with an unknown kind.",
            "Make post_all stop at the first unbalanced transaction.",
            "Explain how parse_date falls back when dateutil is missing.",
            "Rename UnbalancedError's message to say which accounts are off.",
        ],
        reads: &[
            "src/ledger/accounts.py",
            "src/ledger/journal.py",
            "src/ledger/report.py",
            "src/ledger/io/csv_import.py",
            "tests/test_journal.py",
            "tests/test_accounts.py",
        ],
        decision: [
            "Should parse_amount switch from Decimal to integer cents? The CSV import is slow.",
            "Decision: we keep Decimal amounts and do not switch to integer cents; parse_amount stays the one place that rounds (ROUND_HALF_EVEN).",
            "Why not? Integers would be faster.",
            "Because the multi-currency work needs exchange rates with four decimal places, which whole-cent integers cannot carry; and the import was slow because of tabulate, not Decimal.",
        ],
        sessions: 24,
    };
    Project {
        title: "example project (examples/ledger)".to_string(),
        dir: super::super::example_project(),
        walks: vec![
            Box::new(Fix {
                file: "src/ledger/journal.py",
                function: "total",
                grep_in: "src",
                correct: "if account is not None:",
                broken: "if account is None:",
                sed: "s/if account is None:/if account is not None:/",
                pytest,
                guess: "ledger.journal.total.py",
            }),
            Box::new(Read {
                function: "validate_name",
                grep_in: "src",
                body_line: "any(not part for part in name.split(\":\"))",
            }),
            Box::new(Kwarg {
                file: "src/ledger/journal.py",
                function: "account",
                dotted: "ledger.journal.Journal.account",
                symbol_path: "ledger/journal/Journal/account.py",
                new_def: r#"def account(self, name: str, *, create: bool = True) -> Account:
    """Return the open account called `name`, opening it if needed.

    With ``create=False`` an account that is not open raises KeyError instead.
    """
    if name not in self.accounts:
        if not create:
            raise KeyError(f"account {name!r} is not open")
        return self.open(name)
    return self.accounts[name]
"#,
                facts: &["create: bool = True", "With ``create=False``"],
                test_module: "tests/test_journal.py",
                test_head: 14,
                test_imports: "import pytest\n",
                new_tests: r#"def test_account_without_create_refuses_an_unknown_name(journal):
    with pytest.raises(KeyError):
        journal.account("assets:safe", create=False)
    assert "assets:safe" not in journal.accounts


def test_account_without_create_returns_an_open_account(journal):
    assert journal.account("assets:cash", create=False).name == "assets:cash"
"#,
                test_names: [
                    "test_account_without_create_refuses_an_unknown_name",
                    "test_account_without_create_returns_an_open_account",
                ],
                pytest,
            }),
            Box::new(Feature {
                change: Kwarg {
                    file: "src/ledger/journal.py",
                    function: "open",
                    dotted: "ledger.journal.Journal.open",
                    symbol_path: "ledger/journal/Journal/open.py",
                    new_def: r#"def open(self, account: Account | str, *, opening: Decimal | int = 0) -> Account:
    """Open an account (or an account path) and return it.

    An account path opens with the balance `opening`:

    >>> Journal().open("assets:cash", opening=5).balance
    Decimal('5.00')
    """
    if isinstance(account, str):
        account = Account.from_path(account, opening)
    if account.name in self.accounts:
        raise KeyError(f"account {account.name!r} already open")
    self.accounts[account.name] = account
    return account
"#,
                    facts: &["opening: Decimal | int = 0", ">>> Journal().open("],
                    test_module: "tests/test_journal.py",
                    test_head: 14,
                    test_imports: "from decimal import Decimal\n",
                    new_tests: r#"def test_open_takes_an_opening_balance(journal):
    assert journal.open("assets:safe", opening=7).balance == Decimal("7.00")


def test_open_starts_at_zero_without_one(journal):
    assert journal.open("assets:safe").balance == 0
"#,
                    test_names: [
                        "test_open_takes_an_opening_balance",
                        "test_open_starts_at_zero_without_one",
                    ],
                    pytest,
                },
                changelog: "CHANGELOG.md",
                changelog_made: Some(
                    "# Changelog\n\n## Unreleased\n\n## 0.1.0\n\n- Accounts, journals, reports and CSV import.\n",
                ),
                changelog_head: 8,
                changelog_sed: "s/^## Unreleased$/&\\n\\n- `Journal.open` takes `opening=`, the balance a new account starts with./",
                changelog_fact: "- `Journal.open` takes `opening=`",
                tests: "tests",
            }),
            Box::new(Recall {
                words: "integer cents",
                facts: &["keep Decimal", "four decimal places"],
                session: memory.decision_session(),
            }),
            Box::new(Refs {
                function: "parse_amount",
                grep_in: "src tests",
                callers: &[
                    "parse_amount(opening)",
                    "parse_amount(value)",
                    "parse_amount(self.amount)",
                    "from .accounts import Account, parse_amount",
                    "parse_amount(\"1,234.565\")",
                ],
            }),
        ],
        memory,
    }
}

/// The cachetools release the walks are written for (its lines, its tests).
const CACHETOOLS: &str = "cachetools-5.5.0";

pub fn cachetools(sdist: Option<&Path>) -> Result<Project, String> {
    let dir = match sdist {
        Some(dir) => dir.to_path_buf(),
        None => crate::sdist::unpacked("cachetools", "5.5.0")?,
    };
    let info = std::fs::read_to_string(dir.join("PKG-INFO"))
        .map_err(|e| format!("{}: not an unpacked sdist ({e})", dir.display()))?;
    if !(info.contains("\nName: cachetools\n") && info.contains("\nVersion: 5.5.0\n")) {
        return Err(format!(
            "{} is not the cachetools 5.5.0 sdist the walks are written for",
            dir.display()
        ));
    }
    let pytest = "PYTHONPATH=src python -m pytest";
    let memory = Memory {
        cwd: "/home/dev/cachetools",
        chores: &[
            "Add a cache_info() to cachedmethod like cached has.",
            "TLRUCache.expire is slow with many entries; profile it.",
            "Say in the README what the default timer of TTLCache is.",
            "Why does test_ttl_lru sometimes fail on CI?",
            "Add type hints to keys.py.",
            "Make RRCache accept a seeded random.Random as choice.",
            "Check that pickling a TTLCache keeps its entries.",
        ],
        reads: &[
            "src/cachetools/keys.py",
            "src/cachetools/func.py",
            "src/cachetools/__init__.py",
            "tests/test_ttl.py",
            "tests/test_func.py",
        ],
        decision: [
            "TTLCache uses time.monotonic; should we switch the default timer to time.time so expiry survives a pickle round trip?",
            "Decision: we keep time.monotonic as the default timer of TTLCache and TLRUCache; callers who pickle caches pass timer=time.time themselves.",
            "What was the reason again?",
            "A wall clock can jump: when NTP stepped the clock back an hour in production, every entry outlived its ttl by that hour, and a step forward expired the whole cache at once.",
        ],
        sessions: 24,
    };
    Ok(Project {
        title: format!("real sdist ({CACHETOOLS}, src layout, 215 tests)"),
        dir,
        walks: vec![
            Box::new(Fix {
                file: "src/cachetools/keys.py",
                function: "typedkey",
                grep_in: "src",
                correct: "key = hashkey(*args, **kwargs)",
                broken: "key = hashkey(*args)",
                sed: r"s/key = hashkey(\*args)$/key = hashkey(*args, **kwargs)/",
                pytest,
                // The failing test, test_keys.py::test_typedkey, calls it as `key(...)`,
                // a parameter defaulting to cachetools.keys.typedkey.
                guess: "cachetools.keys.typedkey.py",
            }),
            Box::new(Read {
                function: "cachedmethod",
                grep_in: "src",
                body_line: "def decorator(method):",
            }),
            Box::new(Kwarg {
                file: "src/cachetools/func.py",
                function: "lru_cache",
                dotted: "cachetools.func.lru_cache",
                symbol_path: "cachetools/func/lru_cache.py",
                new_def: r#"def lru_cache(maxsize=128, typed=False, *, getsizeof=None):
    """Decorator to wrap a function with a memoizing callable that saves
    up to `maxsize` results based on a Least Recently Used (LRU)
    algorithm.

    With `getsizeof`, each result counts as `getsizeof(result)` towards
    `maxsize` instead of 1.
    """
    if maxsize is None:
        return _cache({}, None, typed)
    elif callable(maxsize):
        return _cache(LRUCache(128, getsizeof), 128, typed)(maxsize)
    else:
        return _cache(LRUCache(maxsize, getsizeof), maxsize, typed)
"#,
                facts: &["*, getsizeof=None", "counts as `getsizeof(result)`"],
                test_module: "tests/test_func.py",
                test_head: 4,
                test_imports: "import cachetools.func\n",
                new_tests: r#"def test_lru_cache_getsizeof_counts_sizes():
    cached = cachetools.func.lru_cache(maxsize=10, getsizeof=len)(lambda n: "x" * n)
    cached(6)
    cached(3)
    assert cached.cache_info().currsize == 9


def test_lru_cache_getsizeof_evicts_by_size():
    cached = cachetools.func.lru_cache(maxsize=10, getsizeof=len)(lambda n: "x" * n)
    cached(6)
    cached(5)
    assert cached.cache_info().currsize == 5
"#,
                test_names: [
                    "test_lru_cache_getsizeof_counts_sizes",
                    "test_lru_cache_getsizeof_evicts_by_size",
                ],
                pytest,
            }),
            Box::new(Feature {
                change: Kwarg {
                    file: "src/cachetools/func.py",
                    function: "fifo_cache",
                    dotted: "cachetools.func.fifo_cache",
                    symbol_path: "cachetools/func/fifo_cache.py",
                    new_def: r#"def fifo_cache(maxsize=128, typed=False, *, getsizeof=None):
    """Decorator to wrap a function with a memoizing callable that saves
    up to `maxsize` results based on a First In First Out (FIFO)
    algorithm.

    With `getsizeof`, each result counts as `getsizeof(result)` towards
    `maxsize` instead of 1:

    >>> repeat = fifo_cache(maxsize=10, getsizeof=len)(lambda n: "x" * n)
    >>> repeat(4), repeat(5), repeat.cache_info().currsize
    ('xxxx', 'xxxxx', 9)
    """
    if maxsize is None:
        return _cache({}, None, typed)
    elif callable(maxsize):
        return _cache(FIFOCache(128, getsizeof), 128, typed)(maxsize)
    else:
        return _cache(FIFOCache(maxsize, getsizeof), maxsize, typed)
"#,
                    facts: &["*, getsizeof=None", ">>> repeat = fifo_cache("],
                    test_module: "tests/test_func.py",
                    test_head: 4,
                    test_imports: "import cachetools.func\n",
                    new_tests: r#"def test_fifo_cache_getsizeof_counts_sizes():
    cached = cachetools.func.fifo_cache(maxsize=10, getsizeof=len)(lambda n: "x" * n)
    cached(6)
    cached(3)
    assert cached.cache_info().currsize == 9


def test_fifo_cache_getsizeof_evicts_the_first_in():
    cached = cachetools.func.fifo_cache(maxsize=10, getsizeof=len)(lambda n: "x" * n)
    cached(6)
    cached(5)
    assert cached.cache_info().currsize == 5
"#,
                    test_names: [
                        "test_fifo_cache_getsizeof_counts_sizes",
                        "test_fifo_cache_getsizeof_evicts_the_first_in",
                    ],
                    pytest,
                },
                changelog: "CHANGELOG.rst",
                changelog_made: None,
                changelog_head: 6,
                changelog_sed: "1i v5.6.0 (UNRELEASED)\\n===================\\n\\n- Add ``getsizeof`` to ``fifo_cache()``.\\n",
                changelog_fact: "- Add ``getsizeof`` to ``fifo_cache()``.",
                tests: "tests",
            }),
            Box::new(Recall {
                words: "default timer",
                facts: &["keep time.monotonic", "NTP stepped the clock back"],
                session: memory.decision_session(),
            }),
            Box::new(Refs {
                function: "hashkey",
                grep_in: "src tests",
                callers: &[
                    "return hashkey(*args, **kwargs)",
                    "keys.typedkey if typed else keys.hashkey",
                    "self.assertIn(cachetools.keys.hashkey(1.0), cache)",
                    "key=keys.hashkey)",
                ],
            }),
        ],
        memory,
    })
}
