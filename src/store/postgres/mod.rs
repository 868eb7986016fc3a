//! PostgreSQL: the store teams share (many mounts, many machines, one database). One connection per mount behind a mutex,
//! as SQLite's. When the database cannot be reached, requests fail at once with
//! [`crate::error::ErrorKind::Unavailable`] naming the store, and the next request connects again: an
//! outage needs no remount. Reads run outside transactions, statement by statement as
//! SQLite's do (a read of one statement is one round trip), and every statement is
//! prepared once per connection; every change runs in one transaction that first takes the store's advisory lock, so changes from
//! every mount and machine follow one another as SQLite's single writer does. The schema is
//! migrated on connect, under the same lock, by the numbered migrations the store hands
//! over ([`Migration`]). The private servers of the tests and the benchmark are
//! `homespace_testkit::postgres`'s, a dev-dependency: none ships in the library.
//!
//! A change whose `COMMIT` was sent but whose answer was lost with the connection (the
//! server stopped or the network broke at that moment) may have been saved: it is settled
//! by asking the server, on a new connection, what became of its transaction id (known
//! before `COMMIT`, `pg_xact_status`), and answered by what happened — saved, not saved
//! (`EAGAIN`, try again), or, when the server cannot be asked within `SETTLE_TIMEOUT`,
//! an error that says it is not known. So a retry after "try again" never makes a
//! duplicate.

mod copy;
mod failure;
mod listen;
#[cfg(test)]
mod tests;
mod tx;
// The unit tests (here and in other folders) name it by its old place.
#[cfg(test)]
pub(crate) use homespace_testkit::postgres as scratch;

pub use copy::CopyRow;

/// Migration 11: the database announces every change to what mounts show.
pub(crate) const CHANGES: &str = include_str!("changes.sql");

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use postgres::NoTls;

use crate::error::{Error, Result};
use crate::store::location::without_password;
use failure::{failure, is_lost, unreachable};
use tx::Connection;
pub use tx::Tx;

/// A numbered schema change: SQLite's numbers, so migration N makes the same change on
/// both backends. A store keeps the numbers it ran, so one added later with a lower number
/// (a part newly moved here) still runs.
pub type Migration = (i32, &'static str);

/// The key of the store's advisory lock: every change and every migration holds it.
const WRITE_LOCK: i64 = 0x686f_6d65_7370_6163; // "homespac"

/// How long connecting may take before the store counts as unreachable: a request waits
/// this long at most in an outage.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a change whose commit went unanswered waits for the server to say whether it
/// was saved (a restart takes a second or two).
const SETTLE_TIMEOUT: Duration = Duration::from_secs(10);

/// How a database whose character type keeps every word cuts `Été 東京`.
const WORDS_CUT_RIGHT: &str = "'été':1 '東京':2";

/// How a transaction ended.
enum Ended<T> {
    /// Committed, rolled back, or failed before `COMMIT` was sent: known.
    Known(Result<T>),
    /// `COMMIT` was sent and the connection was lost before its answer: `work` gave
    /// `T`, and whether it was saved is for the server to say.
    CommitLost(T, Error),
}

/// A PostgreSQL store.
pub struct Postgres {
    /// `None` after the connection was lost: the next request connects again.
    client: Mutex<Option<Connection>>,
    config: postgres::Config,
    /// The URL without its password, for messages.
    shown: String,
    /// What this store's changes are announced with (see `listen.rs`).
    own: String,
    /// Other writers' changes, heard once someone asks ([`Postgres::version`]).
    changes: OnceLock<listen::Changes>,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Postgres({})", self.shown)
    }
}

impl Postgres {
    /// Connect to the database at `url` (`postgres://user@host:port/db`) and bring its
    /// schema up to date.
    pub fn connect(url: &str, migrations: &[Migration]) -> Result<Postgres> {
        let shown = without_password(url);
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e| Error::invalid(format!("{shown} is not a PostgreSQL URL: {e}")))?;
        config.connect_timeout(CONNECT_TIMEOUT);
        let store = Postgres {
            client: Mutex::new(None),
            config,
            shown,
            own: listen::token(),
            changes: OnceLock::new(),
        };
        store.refuse_a_locale_that_drops_words()?;
        store.migrate(migrations)?;
        Ok(store)
    }

    /// Refuses a database whose character type would make search miss words outside
    /// ASCII: the `simple` text search configuration cuts and lowercases by the database's
    /// `LC_CTYPE` and encoding, and in the C locale it keeps `Été` as `Été` (never found by
    /// `été`), in `SQL_ASCII` it drops `été` and `東京` altogether. Asked of the server
    /// itself, so whatever makes it cut differently is caught, not only the names known here.
    fn refuse_a_locale_that_drops_words(&self) -> Result<()> {
        let row = self.read(|tx| {
            tx.query_one(
                "SELECT to_tsvector('simple', 'Été 東京')::text, datctype,
                        pg_encoding_to_char(encoding)
                 FROM pg_database WHERE datname = current_database()",
                &[],
            )
        })?;
        let text = |at: usize| -> Result<String> {
            row.try_get(at)
                .map_err(|e| Error::internal(format!("reading {}'s locale: {e}", self.shown)))
        };
        let (words, ctype, encoding) = (text(0)?, text(1)?, text(2)?);
        if words == WORDS_CUT_RIGHT {
            return Ok(());
        }
        let database = self.config.get_dbname().unwrap_or("NAME");
        Err(Error::invalid(format!(
            "the PostgreSQL store at {} cannot be searched in every language: its database \
             has the character type {ctype:?} and the encoding {encoding}, in which PostgreSQL \
             cuts 'Été 東京' into {words} rather than {WORDS_CUT_RIGHT}, so words outside ASCII \
             would be missed (a capital kept, or a word dropped). Make a database in UTF-8 with a UTF-8 character type \
             and use it: createdb --template=template0 --encoding=UTF8 --locale=C.UTF-8 \
             {database}_utf8 (or --lc-ctype=en_US.UTF-8, any UTF-8 locale the server has)",
            self.shown
        )))
    }

    /// Runs `read` outside any transaction, as SQLite's reads run: each statement sees the
    /// store as it was committed when that statement began, as one moment, and a read of one
    /// statement costs one round trip (no `BEGIN` and `COMMIT` around it). Reads change
    /// nothing, so a connection found dead at the first statement (the database went away
    /// since the last request) is replaced once and the statement sent again.
    pub fn read<T>(&self, read: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        let mut slot = self.lock();
        let fresh = slot.as_ref().is_none_or(|c| c.client.is_closed());
        if fresh {
            *slot = Some(Connection::open(&self.config, &self.shown)?);
        }
        let Some(connection) = slot.as_mut() else {
            return Err(Error::internal("no connection to the store"));
        };
        let Connection { client, prepared } = connection;
        let tx = Tx {
            client: RefCell::new(client),
            prepared: RefCell::new(prepared),
            shown: &self.shown,
            replace: (!fresh).then_some(&self.config),
            answered: Cell::new(false),
        };
        let outcome = read(&tx);
        if slot.as_ref().is_some_and(|c| c.client.is_closed()) {
            *slot = None;
        }
        outcome
    }

    /// Runs `change` in one transaction holding the store's write lock: committed if it
    /// returns `Ok`, rolled back (nothing changed) if it returns `Err`. A commit whose
    /// answer was lost is settled (see the module's documentation).
    pub fn write<T>(&self, change: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        let xid = RefCell::new(None);
        let ended = self.in_transaction(|tx| {
            // In one round trip: the lock; the token the triggers of changes.sql announce
            // what this changes with, heard by every other mount when (and only if) it
            // commits; and the transaction's id, known before COMMIT, so that a commit whose
            // answer is lost can be looked up.
            let id: String = tx
                .query_one(
                    "SELECT pg_current_xact_id()::text, set_config('homespace.writer', $2, true)
                     FROM (SELECT pg_advisory_xact_lock($1)) AS locked",
                    &[&WRITE_LOCK, &self.own.as_str()],
                )?
                .get(0);
            *xid.borrow_mut() = Some(id);
            change(tx)
        });
        match (ended, xid.into_inner()) {
            (Ended::Known(outcome), _) => outcome,
            (Ended::CommitLost(value, lost), Some(xid)) => self.settle(&xid, lost).map(|()| value),
            (Ended::CommitLost(_, lost), None) => Err(lost),
        }
    }

    /// Whether transaction `xid`, whose `COMMIT` went unanswered (`lost` says how), was
    /// saved: `Ok` when it was, `lost` (try again) when it was not, and an error saying it
    /// is not known when the server cannot be asked within `SETTLE_TIMEOUT`.
    fn settle(&self, xid: &str, lost: Error) -> Result<()> {
        let started = Instant::now();
        loop {
            let status = self.config.connect(NoTls).ok().and_then(|mut client| {
                let row = client
                    .query_one("SELECT pg_xact_status($1::text::xid8)::text", &[&xid])
                    .ok()?;
                let status: Option<String> = row.get(0);
                // A connection that answers serves the next request too.
                *self.lock() = Some(Connection {
                    client,
                    prepared: HashMap::new(),
                });
                status
            });
            match status.as_deref() {
                Some("committed") => {
                    crate::log::line(&format!(
                        "the PostgreSQL store at {}: a commit went unanswered; the server says \
                         it was saved",
                        self.shown
                    ));
                    return Ok(());
                }
                Some("aborted") => return Err(lost),
                // Not answered yet ("in progress": still being written), or no server.
                _ if started.elapsed() < SETTLE_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                _ => {
                    return Err(Error::internal(format!(
                        "the PostgreSQL store at {} went away while this change was being \
                         committed, and could not say within {} s whether it was saved: read \
                         it back once the database is back before writing it again",
                        self.shown,
                        SETTLE_TIMEOUT.as_secs()
                    )));
                }
            }
        }
    }

    /// Runs `work` in a transaction, connecting first if there is no connection. A
    /// connection found dead when the transaction begins (the database went away since the
    /// last request) is replaced once: nothing was sent on it, so nothing runs twice. One
    /// lost later is dropped, and the next request connects again.
    fn in_transaction<T>(&self, work: impl FnOnce(&Tx<'_>) -> Result<T>) -> Ended<T> {
        let mut slot = self.lock();
        let mut fresh = false;
        let connection = loop {
            if slot.as_ref().is_none_or(|c| c.client.is_closed()) {
                match Connection::open(&self.config, &self.shown) {
                    Ok(connection) => *slot = Some(connection),
                    Err(e) => return Ended::Known(Err(e)),
                }
                fresh = true;
            }
            let Some(connection) = slot.as_mut() else {
                return Ended::Known(Err(Error::internal("no connection to the store")));
            };
            match connection.client.batch_execute("BEGIN") {
                Ok(_) => break connection,
                Err(e) if !fresh && is_lost(&e) => *slot = None,
                Err(e) => return Ended::Known(Err(failure(&self.shown, &e))),
            }
        };
        let ended = run(connection, &self.shown, work);
        if slot.as_ref().is_some_and(|c| c.client.is_closed())
            || matches!(ended, Ended::CommitLost(..))
        {
            *slot = None;
        }
        ended
    }

    /// A number that changes whenever another writer (another mount, the CLI, another
    /// machine) changed the store: the first call starts listening.
    pub fn version(&self) -> i64 {
        self.listener().version()
    }

    /// Whether changes by others are being heard now.
    pub fn listening(&self) -> bool {
        self.listener().listening()
    }

    fn listener(&self) -> &listen::Changes {
        self.changes
            .get_or_init(|| listen::Changes::start(self.config.clone(), self.own.clone()))
    }

    /// Run the migrations this database has not run yet.
    fn migrate(&self, migrations: &[Migration]) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "CREATE TABLE IF NOT EXISTS homespace_migrations (number INTEGER PRIMARY KEY)",
                &[],
            )?;
            let done: Vec<i32> = tx
                .query("SELECT number FROM homespace_migrations", &[])?
                .iter()
                .map(|row| row.get(0))
                .collect();
            let known = migrations.iter().map(|(n, _)| *n).max().unwrap_or(0);
            if let Some(newer) = done
                .iter()
                .find(|n| !migrations.iter().any(|(k, _)| k == *n))
            {
                return Err(Error::internal(format!(
                    "the store at {} has run migration {newer}, which this homespace does \
                     not know (it knows up to {known}): update homespace or use another --store",
                    self.shown
                )));
            }
            for (number, migration) in migrations {
                if !done.contains(number) {
                    tx.batch(migration)?;
                    tx.execute(
                        "INSERT INTO homespace_migrations (number) VALUES ($1)",
                        &[number],
                    )?;
                }
            }
            Ok(())
        })
    }

    /// The connection slot. A request that panicked left its transaction open on the
    /// connection: drop that connection (the server rolls the transaction back).
    fn lock(&self) -> MutexGuard<'_, Option<Connection>> {
        self.client.lock().unwrap_or_else(|poisoned| {
            self.client.clear_poison();
            let mut slot = poisoned.into_inner();
            *slot = None;
            slot
        })
    }
}

/// Run `work` in the transaction begun on `connection`: `COMMIT` when it returns `Ok`,
/// `ROLLBACK` when it returns `Err`.
fn run<T>(
    connection: &mut Connection,
    shown: &str,
    work: impl FnOnce(&Tx<'_>) -> Result<T>,
) -> Ended<T> {
    let Connection { client, prepared } = connection;
    let tx = Tx {
        client: RefCell::new(client),
        prepared: RefCell::new(prepared),
        shown,
        replace: None,
        answered: Cell::new(true),
    };
    let outcome = work(&tx);
    let client = tx.client.into_inner();
    match outcome {
        Ok(value) => match client.batch_execute("COMMIT") {
            Ok(()) => Ended::Known(Ok(value)),
            Err(e) if is_lost(&e) => Ended::CommitLost(value, unreachable(shown, &e)),
            Err(e) => Ended::Known(Err(failure(shown, &e))),
        },
        Err(refused) => {
            // Whatever the rollback says, nothing was saved, and why is `refused`.
            let _ = client.batch_execute("ROLLBACK");
            Ended::Known(Err(refused))
        }
    }
}
