//! PostgreSQL: the store teams share (many mounts, many machines, one database). One connection per mount behind a mutex,
//! as SQLite's. When the database cannot be reached, requests fail at once with
//! [`ErrorKind::Unavailable`] naming the store, and the next request connects again: an
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
//! (`EAGAIN`, try again), or, when the server cannot be asked within [`SETTLE_TIMEOUT`],
//! an error that says it is not known. So a retry after "try again" never makes a
//! duplicate.

mod copy;
mod listen;
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

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};

use crate::error::{Error, ErrorKind, Result};
use crate::store::location::without_password;

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

/// How many statements a connection keeps prepared: past this many the cache starts
/// again (the statements are a fixed set, so this is only a bound against a caller that
/// would put values in the text).
const PREPARED_LIMIT: usize = 512;

/// A connection and the statements prepared on it: a statement is parsed and planned by
/// the server once per connection, not once per request (a round trip each time).
struct Connection {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl Connection {
    fn open(config: &postgres::Config, shown: &str) -> Result<Connection> {
        let client = config.connect(NoTls).map_err(|e| unreachable(shown, &e))?;
        Ok(Connection {
            client,
            prepared: HashMap::new(),
        })
    }
}

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
    /// is not known when the server cannot be asked within [`SETTLE_TIMEOUT`].
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

/// A transaction of a [`Postgres`] store, or a read's statements outside one, as the
/// backends' record types use it.
pub struct Tx<'c> {
    client: RefCell<&'c mut Client>,
    prepared: RefCell<&'c mut HashMap<String, Statement>>,
    shown: &'c str,
    /// A read on a connection kept from an earlier request: how to replace it when it
    /// turns out dead at the first statement.
    replace: Option<&'c postgres::Config>,
    /// Whether the server answered a statement of this request yet.
    answered: Cell<bool>,
}

impl Tx<'_> {
    pub fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        self.send(sql, |client, statement| client.query(statement, params))
    }

    pub fn query_opt(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    pub fn query_one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row> {
        self.query_opt(sql, params)?
            .ok_or_else(|| Error::internal(format!("{sql} returned no row")))
    }

    /// Runs `sql` and hands each row to `each` as it arrives, until `each` fails: a large
    /// answer is worked on while the rest of it is still on its way, and never held whole.
    /// A kept connection found dead is replaced as for any statement, never once a row was
    /// handed over (it would be handed over again). `each` must not use this `Tx`: the
    /// connection is busy with the answer until it ends.
    pub fn for_each_row(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        each: &mut dyn FnMut(&Row) -> Result<()>,
    ) -> Result<()> {
        let each = RefCell::new(each);
        let refused = RefCell::new(None);
        self.send(sql, |client, statement| {
            let mut rows = client.query_raw(statement, params.iter().map(|p| *p as &dyn ToSql))?;
            while let Some(row) = rows.next()? {
                self.answered.set(true);
                if let Err(e) = (each.borrow_mut())(&row) {
                    // Dropped unread, the rest of the answer is passed over.
                    *refused.borrow_mut() = Some(e);
                    break;
                }
            }
            Ok(())
        })?;
        refused.into_inner().map_or(Ok(()), Err)
    }

    /// Run one statement; the number of rows it changed.
    pub fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        self.send(sql, |client, statement| client.execute(statement, params))
    }

    /// Runs `sql`, prepared once per connection, with `send`. A read whose kept connection
    /// is found dead before the server answered anything gets a new one, once.
    fn send<T>(
        &self,
        sql: &str,
        send: impl Fn(&mut Client, &Statement) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        loop {
            match self.prepared_and_sent(sql, &send) {
                Ok(value) => {
                    self.answered.set(true);
                    return Ok(value);
                }
                Err(e) => {
                    let retry = !self.answered.replace(true) && is_lost(&e);
                    match self.replace.filter(|_| retry) {
                        Some(config) => {
                            let fresh = Connection::open(config, self.shown)?;
                            **self.client.borrow_mut() = fresh.client;
                            self.prepared.borrow_mut().clear();
                        }
                        None => {
                            // A statement the server refused may be one prepared before the
                            // schema changed under it: prepare again next time.
                            self.prepared.borrow_mut().clear();
                            return Err(failure(self.shown, &e));
                        }
                    }
                }
            }
        }
    }

    fn prepared_and_sent<T>(
        &self,
        sql: &str,
        send: &impl Fn(&mut Client, &Statement) -> std::result::Result<T, postgres::Error>,
    ) -> std::result::Result<T, postgres::Error> {
        let mut client = self.client.borrow_mut();
        let mut prepared = self.prepared.borrow_mut();
        let statement = match prepared.get(sql) {
            Some(statement) => statement.clone(),
            None => {
                let statement = client.prepare(sql)?;
                if prepared.len() >= PREPARED_LIMIT {
                    prepared.clear();
                }
                prepared.insert(sql.to_string(), statement.clone());
                statement
            }
        };
        send(&mut client, &statement)
    }

    /// Runs `work` in a savepoint of the transaction: what it did is kept when it returns
    /// `Ok` and undone when it returns `Err`, and the transaction goes on either way. Without
    /// one, a statement PostgreSQL refuses aborts the whole transaction, so this is how one
    /// part of a change (a file of a bulk load) can fail alone.
    pub fn savepoint<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<T> {
        self.batch("SAVEPOINT homespace_part")?;
        let outcome = work();
        let end = match outcome {
            Ok(_) => "RELEASE SAVEPOINT homespace_part",
            Err(_) => "ROLLBACK TO SAVEPOINT homespace_part; RELEASE SAVEPOINT homespace_part",
        };
        // When both fail, the work's own error says more (the end failing means the
        // connection failed, and the transaction fails with it anyway).
        match self.batch(end) {
            Ok(()) => outcome,
            Err(e) => outcome.and(Err(e)),
        }
    }

    /// Runs `select`, whose values its caller wrote into it (it takes no parameters), with
    /// the planner's plain index scans off for it alone, and returns its rows as text. For
    /// a statement whose best plan combines two indexes (a bitmap of the words' GIN index
    /// and a range of the primary key), which the planner passes over for a scan of the
    /// key that tests every row's words: it takes those tests for cheap, and they are not.
    /// The three statements are one implicit transaction, so a failure undoes the setting
    /// with the rest.
    pub fn select_by_bitmaps(&self, select: &str) -> Result<Vec<Vec<Option<String>>>> {
        let sql = format!("SET enable_indexscan = off; {select}; RESET enable_indexscan");
        let messages = self
            .client
            .borrow_mut()
            .simple_query(&sql)
            .map_err(|e| failure(self.shown, &e))?;
        self.answered.set(true);
        Ok(messages
            .iter()
            .filter_map(|message| match message {
                postgres::SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                ),
                _ => None,
            })
            .collect())
    }

    /// Run several statements without parameters (a migration).
    fn batch(&self, sql: &str) -> Result<()> {
        self.client
            .borrow_mut()
            .batch_execute(sql)
            .map_err(|e| failure(self.shown, &e))
    }
}

fn unreachable(shown: &str, e: &postgres::Error) -> Error {
    let why = std::error::Error::source(e).map_or_else(|| e.to_string(), |s| s.to_string());
    Error::new(
        ErrorKind::Unavailable,
        format!(
            "the PostgreSQL store at {shown} cannot be reached ({why}); source/ works as \
             before, and the mount connects again by itself at the next request once the \
             database is back"
        ),
    )
}

/// A failed statement: the server's own message when it gave one.
fn failure(shown: &str, e: &postgres::Error) -> Error {
    if is_lost(e) {
        return unreachable(shown, e);
    }
    match e.as_db_error() {
        Some(db) => Error::internal(format!(
            "the PostgreSQL store at {shown} refused a statement: {}",
            db.message()
        )),
        None => Error::internal(format!("the PostgreSQL store at {shown} failed: {e}")),
    }
}

/// Whether `e` is the database going away rather than a statement failing: the
/// connection closed or broke, or the server said so itself — SQLSTATE class 08
/// (connection exception) or 57 (operator intervention: shutting down, crashed, not yet
/// accepting connections), as a server being stopped sends to its open connections.
fn is_lost(e: &postgres::Error) -> bool {
    let said = e
        .code()
        .is_some_and(|code| code.code().starts_with("08") || code.code().starts_with("57"));
    said || e.is_closed() || is_io(e)
}

/// Whether `e` is the connection failing rather than a statement.
fn is_io(e: &postgres::Error) -> bool {
    std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schema for the tests of this file.
    const TABLES: &[Migration] = &[(1, "CREATE TABLE kept (x INTEGER)"), (2, "")];

    /// Writers keep inserting numbers while the server is stopped as an administrator does
    /// and started again, over and over: every number answered as saved is there, every
    /// number answered "try again" is not (a retry would make a duplicate), whatever the
    /// moment the connection was cut — a commit whose answer was lost included.
    #[test]
    fn a_write_is_answered_by_what_happened_to_it_through_outages() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
        let server = scratch::ScratchServer::start().unwrap();
        let url = server.database("settle").unwrap();
        let store = Arc::new(Postgres::connect(&url, TABLES).unwrap());
        let (next, done) = (
            Arc::new(AtomicI32::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let writers: Vec<_> = (0..3)
            .map(|_| {
                let (store, next, done) = (store.clone(), next.clone(), done.clone());
                std::thread::spawn(move || {
                    let mut answers = Vec::new();
                    while !done.load(Ordering::Relaxed) {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        let written =
                            store.write(|tx| tx.execute("INSERT INTO kept VALUES ($1)", &[&n]));
                        answers.push((n, written.map(|_| ()).map_err(|e| e.kind)));
                    }
                    answers
                })
            })
            .collect();
        // Eight outages: a commit cut before its answer comes about twice in four.
        for _ in 0..8 {
            std::thread::sleep(Duration::from_millis(150));
            server.shut_down().unwrap();
            std::thread::sleep(Duration::from_millis(50));
            server.resume().unwrap();
        }
        std::thread::sleep(Duration::from_millis(150));
        done.store(true, Ordering::Relaxed);
        let answers: Vec<(i32, Result<(), ErrorKind>)> = writers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        let kept: std::collections::HashSet<i32> = store
            .read(|tx| tx.query("SELECT x FROM kept", &[]))
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        let (mut saved, mut refused, mut unknown) = (0, 0, 0);
        for (n, answer) in &answers {
            match answer {
                Ok(()) => {
                    saved += 1;
                    assert!(kept.contains(n), "{n} was answered as saved and is missing");
                }
                Err(ErrorKind::Unavailable) => {
                    refused += 1;
                    assert!(
                        !kept.contains(n),
                        "{n} was answered 'try again' and is stored"
                    );
                }
                Err(other) => {
                    assert_eq!(*other, ErrorKind::Internal, "{n}");
                    unknown += 1;
                }
            }
        }
        eprintln!("{saved} saved, {refused} refused (EAGAIN), {unknown} not known");
        assert!(saved > 0 && refused > 0, "the outages came between writes");
    }

    /// A read handed its rows as they arrive never hands one over twice: a connection lost
    /// after the first row fails the read (it is not tried again from the start), while a
    /// kept connection found dead before any row is replaced and the read answered whole.
    #[test]
    fn a_streamed_read_lost_midway_fails_and_hands_no_row_over_twice() {
        let server = scratch::ScratchServer::start().unwrap();
        let url = server.database("stream").unwrap();
        let store = Postgres::connect(&url, TABLES).unwrap();
        let backend = |store: &Postgres| -> i32 {
            let row = store.read(|tx| tx.query_one("SELECT pg_backend_pid()", &[]));
            row.unwrap().get(0)
        };
        let mut admin = postgres::Client::connect(&url, NoTls).unwrap();
        let mut end = |pid: i32| {
            admin
                .execute("SELECT pg_terminate_backend($1)", &[&pid])
                .unwrap();
        };
        let serving = backend(&store);
        let mut seen: Vec<i32> = Vec::new();
        let lost = store.read(|tx| {
            tx.for_each_row(
                "SELECT n FROM generate_series(1, 5000000) n",
                &[],
                &mut |row| {
                    seen.push(row.get(0));
                    if seen.len() == 1 {
                        end(serving);
                    }
                    Ok(())
                },
            )
        });
        assert!(lost.is_err(), "{} rows, then {lost:?}", seen.len());
        assert!(seen.len() < 5_000_000, "the rest never came");
        assert!(
            seen.iter().zip(1..).all(|(n, expected)| *n == expected),
            "each row once, in order"
        );
        end(backend(&store));
        let mut counted = 0;
        store
            .read(|tx| {
                tx.for_each_row("SELECT n FROM generate_series(1, 1000) n", &[], &mut |_| {
                    counted += 1;
                    Ok(())
                })
            })
            .unwrap();
        assert_eq!(
            counted, 1000,
            "a dead kept connection replaced, the read whole"
        );
    }

    #[test]
    fn an_outage_fails_requests_at_once_and_the_store_comes_back_by_itself() {
        let server = scratch::ScratchServer::start().unwrap();
        let url = server.database("outage").unwrap();
        let store = Postgres::connect(&url, TABLES).unwrap();
        let version = |store: &Postgres| {
            store.read(|tx| tx.query("SELECT number FROM homespace_migrations", &[]))
        };
        version(&store).unwrap();
        server.stop().unwrap();
        // Twice: the lost connection, then a failed attempt to connect again.
        for _ in 0..2 {
            let error = version(&store).unwrap_err();
            assert_eq!(error.kind, ErrorKind::Unavailable, "{error}");
            assert!(error.message.contains("127.0.0.1"), "{error}");
            assert!(!error.message.contains("password"), "{error}");
        }
        server.resume().unwrap();
        version(&store).unwrap();
        store
            .write(|tx| tx.execute("UPDATE homespace_migrations SET number = number", &[]))
            .unwrap();
    }

    #[test]
    fn a_change_by_another_store_is_heard_and_its_own_are_not() {
        let server = scratch::ScratchServer::start().unwrap();
        let url = server.database("listen").unwrap();
        // The store's own schema: what announces changes is its triggers.
        let (here, there) = (
            Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
            Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
        );
        let touch = |store: &Postgres| {
            store
                .write(|tx| tx.execute("UPDATE tasks SET title = title", &[]))
                .unwrap()
        };
        // A bound on waiting, not a speed claim: a missing notification must not hang.
        let wait_until = |what: &str, done: &dyn Fn() -> bool| {
            let started = std::time::Instant::now();
            while !done() {
                assert!(started.elapsed() < Duration::from_secs(20), "{what}");
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        here.version();
        wait_until("the listener listens", &|| here.listening());
        let before = here.version();
        touch(&here);
        touch(&there);
        wait_until("another store's change is heard", &|| {
            here.version() != before
        });
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(here.version(), before + 1, "its own change is not counted");
        // Any other program's change is heard too (an administrator's psql).
        let before = here.version();
        let mut plain = postgres::Client::connect(&url, NoTls).unwrap();
        plain
            .batch_execute("DELETE FROM settings WHERE name = 'none'")
            .unwrap();
        wait_until("a plain client's change is heard", &|| {
            here.version() != before
        });
        // The database goes away and comes back: the listener connects again and counts
        // what it may have missed.
        let before = here.version();
        server.stop().unwrap();
        wait_until("the listener notices", &|| !here.listening());
        server.resume().unwrap();
        wait_until("the listener is back", &|| here.listening());
        assert!(here.version() > before);
        let before = here.version();
        touch(&there);
        wait_until("changes are heard again", &|| here.version() != before);
    }

    #[test]
    fn changes_are_heard_while_they_keep_coming() {
        let server = scratch::ScratchServer::start().unwrap();
        let url = server.database("stream").unwrap();
        let (here, there) = (
            Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
            Postgres::connect(&url, super::super::PG_MIGRATIONS).unwrap(),
        );
        here.version();
        while !here.listening() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let before = here.version();
        // Another writer changes the store every 50 ms for 3 s: each change must be heard
        // as it comes, not once the changes stop.
        let streaming = std::sync::atomic::AtomicBool::new(true);
        let heard_while_streaming = std::thread::scope(|scope| {
            scope.spawn(|| {
                for _ in 0..60 {
                    there
                        .write(|tx| tx.execute("UPDATE tasks SET title = title", &[]))
                        .unwrap();
                    std::thread::sleep(Duration::from_millis(50));
                }
                streaming.store(false, std::sync::atomic::Ordering::SeqCst);
            });
            while streaming.load(std::sync::atomic::Ordering::SeqCst) {
                if here.version() != before {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            false
        });
        assert!(
            heard_while_streaming,
            "no change was heard while they kept coming"
        );
    }

    /// A database made in the C locale (or without UTF-8) would keep `Été` unfound by
    /// `été`, or drop `été` and `東京`: it is refused at connect, with how to make one that
    /// works, and nothing is created in it.
    #[test]
    fn a_database_whose_locale_drops_words_is_refused_with_how_to_make_one() {
        let server = scratch::ScratchServer::start().unwrap();
        let admin = server.database("postgres").unwrap();
        let mut client = postgres::Client::connect(&admin, NoTls).unwrap();
        for (name, encoding) in [("c_locale", "UTF8"), ("ascii", "SQL_ASCII")] {
            client
                .batch_execute(&format!(
                    "CREATE DATABASE {name} TEMPLATE template0 ENCODING '{encoding}' \
                     LC_COLLATE 'C' LC_CTYPE 'C'"
                ))
                .unwrap();
            let url = admin.replace("/postgres", &format!("/{name}"));
            let refused = Postgres::connect(&url, TABLES).unwrap_err();
            assert_eq!(refused.kind, ErrorKind::Invalid, "{refused}");
            assert!(refused.message.contains("createdb"), "{refused}");
            assert!(refused.message.contains("\"C\""), "{refused}");
            let mut there = postgres::Client::connect(&url, NoTls).unwrap();
            let made = there
                .query_one(
                    "SELECT to_regclass('homespace_migrations') IS NOT NULL",
                    &[],
                )
                .unwrap();
            assert!(!made.get::<_, bool>(0), "nothing is made in {name}");
        }
        // The scratch server's own databases are made in C.UTF-8, which keeps every word.
        let url = server.database("utf8").unwrap();
        Postgres::connect(&url, TABLES).unwrap();
    }

    #[test]
    fn migrations_run_once_and_a_newer_store_is_refused() {
        let server = scratch::ScratchServer::start().unwrap();
        let url = server.database("migrations").unwrap();
        Postgres::connect(&url, TABLES).unwrap();
        let store = Postgres::connect(&url, TABLES).unwrap();
        let ran: Vec<i32> = store
            .read(|tx| tx.query("SELECT number FROM homespace_migrations ORDER BY 1", &[]))
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let known: Vec<i32> = TABLES.iter().map(|(n, _)| *n).collect();
        assert_eq!(ran, known, "each ran once");
        store
            .write(|tx| tx.execute("INSERT INTO homespace_migrations VALUES (999)", &[]))
            .unwrap();
        let refused = Postgres::connect(&url, TABLES).unwrap_err();
        assert!(refused.message.contains("migration 999"), "{refused}");
    }
}
