//! A connection and the statements of one request on it ([`Tx`]): each statement is
//! prepared once per connection, a read's kept connection found dead at its first statement
//! is replaced once, and savepoints let part of a change fail alone.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use postgres::fallible_iterator::FallibleIterator;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};

use super::failure::{failure, is_lost, unreachable};
use crate::error::{Error, Result};

/// How many statements a connection keeps prepared: past this many the cache starts
/// again (the statements are a fixed set, so this is only a bound against a caller that
/// would put values in the text).
const PREPARED_LIMIT: usize = 512;

/// A connection and the statements prepared on it: a statement is parsed and planned by
/// the server once per connection, not once per request (a round trip each time).
pub(super) struct Connection {
    pub(super) client: Client,
    pub(super) prepared: HashMap<String, Statement>,
}

impl Connection {
    pub(super) fn open(config: &postgres::Config, shown: &str) -> Result<Connection> {
        let client = config.connect(NoTls).map_err(|e| unreachable(shown, &e))?;
        Ok(Connection {
            client,
            prepared: HashMap::new(),
        })
    }
}

/// A transaction of a [`super::Postgres`] store, or a read's statements outside one, as the
/// backends' record types use it.
pub struct Tx<'c> {
    pub(super) client: RefCell<&'c mut Client>,
    pub(super) prepared: RefCell<&'c mut HashMap<String, Statement>>,
    pub(super) shown: &'c str,
    /// A read on a connection kept from an earlier request: how to replace it when it
    /// turns out dead at the first statement.
    pub(super) replace: Option<&'c postgres::Config>,
    /// Whether the server answered a statement of this request yet.
    pub(super) answered: Cell<bool>,
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
    pub(super) fn batch(&self, sql: &str) -> Result<()> {
        self.client
            .borrow_mut()
            .batch_execute(sql)
            .map_err(|e| failure(self.shown, &e))
    }
}
