//! `homespace store copy --from STORE --to STORE`: a whole store copied into an empty one
//! (SQLite to PostgreSQL when a team starts sharing, or back), checked by counting what
//! both hold.

use std::io::IsTerminal;

use homespace::store::copy;
use homespace::store::location::Location;

pub fn copy(from: &str, to: &str) -> Result<(), String> {
    let (from, to) = (Location::parse(from), Location::parse(to));
    if let Some(path) = from.file().filter(|path| !path.exists()) {
        return Err(format!(
            "there is no store at {}: give the SQLite file (e.g. <project>/.homespace/store.db) \
             or a postgres:// URL",
            path.display()
        ));
    }
    if from == to {
        return Err(format!(
            "{from} is both --from and --to: name another target"
        ));
    }
    let source = from.open().map_err(|e| e.message)?;
    let target = to.open().map_err(|e| e.message)?;
    let watching = std::io::stderr().is_terminal();
    let mut progress = |what: &str| {
        if watching {
            eprintln!("copying {what}");
        }
    };
    let counts = copy::copy(&source, &target, &mut progress)
        .map_err(|e| format!("copying {from} to {to}: {}", e.message))?;
    println!("copied {from} to {to}: {} (counted in both)", counts.line());
    Ok(())
}
