//! For tests: run one test body against every backend of the store — SQLite in memory and
//! PostgreSQL on a private server ([`crate::store::pg::scratch`]) — so that both pass the
//! same tests.

use std::sync::Arc;

use crate::store::Store;
use crate::store::pg::scratch::ScratchServer;

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
