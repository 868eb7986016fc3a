//! For tests: run one test body against every backend of the store — SQLite in memory and
//! PostgreSQL on a private server ([`crate::store::postgres::scratch`]) — so that both pass the
//! same tests, new or as an older homespace left them.

use std::sync::Arc;

use crate::store::Store;
use crate::store::postgres::scratch::ScratchServer;

/// Run `test` on a new, empty store of each backend, saying which when it fails.
pub fn for_each_backend(test: impl Fn(Arc<Store>)) {
    let sqlite = Store::in_memory().expect("an in-memory SQLite store");
    test(Arc::new(sqlite));
    let server = ScratchServer::start().expect("a scratch PostgreSQL server");
    let url = server.database("homespace").expect("a database");
    let postgres = Arc::new(Store::connect(&url).expect("the PostgreSQL store"));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(postgres)));
    if let Err(panic) = outcome {
        eprintln!("the failure above is on PostgreSQL ({url})");
        std::panic::resume_unwind(panic);
    }
}

/// Run `test` on a store of each backend as an older homespace left it and this one opens
/// it: migrated up to `version` (SQLite's numbering), holding what `rows` inserts (SQL
/// both backends take), then brought up to date.
pub fn for_each_backend_from(version: usize, rows: &str, test: impl Fn(Arc<Store>)) {
    let mut sqlite = rusqlite::Connection::open_in_memory().expect("an in-memory SQLite store");
    super::sqlite::configure(&sqlite, false).expect("SQLite's settings");
    {
        let old = sqlite.transaction().expect("a transaction");
        for migration in &super::sqlite::MIGRATIONS[..version] {
            old.execute_batch(migration).expect("an old migration");
        }
        old.pragma_update(None, "user_version", version as i64)
            .expect("the old version");
        old.execute_batch(rows).expect("the old rows");
        old.commit().expect("the old store");
    }
    test(Arc::new(
        Store::with_connection(sqlite, false).expect("the SQLite store, migrated"),
    ));
    let server = ScratchServer::start().expect("a scratch PostgreSQL server");
    let url = server.database("homespace").expect("a database");
    let old: Vec<_> = super::PG_MIGRATIONS
        .iter()
        .copied()
        .filter(|(number, _)| usize::try_from(*number).is_ok_and(|n| n <= version))
        .collect();
    super::postgres::Postgres::connect(&url, &old).expect("the old PostgreSQL store");
    postgres::Client::connect(&url, postgres::NoTls)
        .and_then(|mut client| client.batch_execute(rows))
        .expect("the old rows");
    let postgres = Arc::new(Store::connect(&url).expect("the PostgreSQL store, migrated"));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(postgres)));
    if let Err(panic) = outcome {
        eprintln!("the failure above is on PostgreSQL ({url})");
        std::panic::resume_unwind(panic);
    }
}
