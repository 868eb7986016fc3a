//! `homespace import` and `homespace forget`: memory from the command line — transcripts
//! in (with a progress bar for a person watching, a summary line for scripts), one session
//! out.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

use homespace::app::Options;
use homespace::memory::follow::Follower;
use homespace::memory::follow::watch::{Event, Watch};
use homespace::memory::{Progress, Summary, import_paths};
use homespace::model::count::{one_or_many, thousands};
use homespace::store::location::Location;
use homespace::transcripts::ReadError;
use homespace::transcripts::places::{Watching, places};

pub fn forget(project: &Path, store: Option<Location>, session: &str) -> Result<(), String> {
    let options = Options {
        store,
        ..Options::new(project.to_path_buf())
    };
    let location = options.store();
    if let Some(path) = location.file().filter(|path| !path.exists()) {
        return Err(format!(
            "there is no store at {}; give --project DIR or --store STORE",
            path.display()
        ));
    }
    let store = location.open().map_err(|e| e.message)?;
    let forgotten = store
        .change_memory(|m| m.forget(session))
        .map_err(|e| e.message)?;
    if forgotten {
        println!("forgot session {session} and its entries");
        Ok(())
    } else {
        Err(format!(
            "no session {session} in {location}; `ls <mount>/memory/sessions/*/` lists them"
        ))
    }
}

pub fn import(project: &Path, store: Option<Location>, paths: &[PathBuf]) -> Result<(), String> {
    if store.is_none() && !project.is_dir() {
        return Err(format!(
            "no project directory at {}; give --project DIR or --store STORE",
            project.display()
        ));
    }
    let options = Options {
        store,
        ..Options::new(project.to_path_buf())
    };
    options.make_store_dir().map_err(|e| e.message)?;
    let store = options.store().open().map_err(|e| e.message)?;
    store.for_bulk_load().map_err(|e| e.message)?;
    // A bar only for a person watching: never in pipes, logs or CI.
    let bar = std::io::stderr().is_terminal().then(|| {
        let style = ProgressStyle::with_template("{bar:30} {pos}/{len} files  {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::new(0).with_style(style)
    });
    let summary = import_paths(&store, paths, &mut |progress| {
        let Some(bar) = &bar else { return };
        match progress {
            Progress::Found { files } => bar.set_length(files as u64),
            Progress::Reading { path, .. } => {
                let name = path.file_name().unwrap_or(path.as_os_str());
                bar.set_message(name.to_string_lossy().into_owned());
            }
            Progress::Done { index, .. } => bar.set_position(index as u64),
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = summary.map_err(|e| e.message)?;
    report(&summary);
    match summary.bad_files.len() {
        0 => Ok(()),
        n => Err(format!(
            "{n} {} refused; nothing of {} was imported: fix the lines listed above and import again",
            one_or_many(n, "file", "files"),
            one_or_many(n, "it", "them"),
        )),
    }
}

/// `homespace import --watch`: follow `paths` (else the project's own transcript folders)
/// until interrupted, saying on stdout what each look stored and on stderr what was bad.
pub fn follow(project: &Path, store: Option<Location>, paths: &[PathBuf]) -> Result<(), String> {
    let options = Options {
        store,
        ..Options::new(project.to_path_buf())
    };
    let watching = match paths {
        [] => Watching::Default,
        _ => Watching::Paths {
            paths: paths
                .iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .collect(),
            with_defaults: false,
        },
    };
    // The project names the default folders; paths given need none.
    let root = match homespace::app::project_dir(project) {
        Ok(root) => root,
        Err(_) if !paths.is_empty() => project.to_path_buf(),
        Err(e) => {
            return Err(format!(
                "{}: give --project DIR, or the paths to follow",
                e.message
            ));
        }
    };
    options.make_store_dir().map_err(|e| e.message)?;
    let store = Arc::new(options.store().open().map_err(|e| e.message)?);
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let places = places(&watching, &root, &home);
    let mut watch = Watch::new(Follower::new(store));
    let mut stopped = None;
    watch.run(&mut || Some(places.clone()), &mut |event| match event {
        Event::Started { folders, files } => eprintln!(
            "homespace: following {} ({folders} {} watched, {files} {} read); Ctrl-C stops",
            places
                .iter()
                .map(|p| p.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            one_or_many(folders, "folder", "folders"),
            one_or_many(files, "file", "files"),
        ),
        Event::Looked { path, caught } => {
            let imported = caught.imported;
            if imported.entries > 0 || imported.sessions > 0 {
                println!(
                    "{}: {} new {}, {} {} added",
                    path.display(),
                    imported.sessions,
                    one_or_many(imported.sessions, "session", "sessions"),
                    thousands(imported.entries as u64),
                    one_or_many(imported.entries, "entry", "entries"),
                );
            }
            for why in [&caught.unreadable, &caught.passed_over]
                .into_iter()
                .flatten()
            {
                eprintln!("homespace: passed over {}: {why}", path.display());
            }
            if let Some(bad) = &caught.bad {
                eprintln!(
                    "homespace: {}: {bad}; the other lines were imported",
                    path.display()
                );
            }
        }
        Event::Failed { path, error } => {
            eprintln!("homespace: {}: {}", path.display(), error.message);
        }
        Event::Stopped { why } => stopped = Some(why),
    });
    Err(stopped.unwrap_or_else(|| "following stopped".into()))
}

/// Refused and passed-over files on stderr, then the one summary line on stdout.
fn report(summary: &Summary) {
    for (path, error) in &summary.bad_files {
        eprintln!("{}", refusal(path, error));
    }
    for path in &summary.not_transcripts {
        eprintln!(
            "homespace: passed over {}: not a transcript (nothing in it looks like a supported agent's session or generic JSONL)",
            path.display()
        );
    }
    for (link, ancestor) in &summary.loops {
        eprintln!(
            "homespace: passed over {}: a link back to {}, which is imported already",
            link.display(),
            ancestor.display()
        );
    }
    for (link, target) in &summary.outside {
        eprintln!(
            "homespace: passed over {}: a link to {}, outside the folder given (name it to import it)",
            link.display(),
            target.display()
        );
    }
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", one_or_many(n, one, many));
    println!(
        "imported {}: {}, {} ({} already stored, {} refused) in {:.1} s",
        count(summary.files, "file", "files"),
        count(summary.sessions, "session", "sessions"),
        count(summary.entries, "entry", "entries"),
        summary.skipped,
        count(summary.bad_files.len(), "file", "files"),
        summary.seconds,
    );
}

/// `homespace: refused PATH (3 bad lines; nothing of it was imported):` and one line per
/// bad line.
fn refusal(path: &Path, error: &ReadError) -> String {
    let count = error.count();
    if count == 0 {
        return format!("homespace: refused {}: {error}", path.display());
    }
    let mut text = format!(
        "homespace: refused {} ({count} bad {}; nothing of it was imported):",
        path.display(),
        one_or_many(count, "line", "lines")
    );
    for (line, reason) in &error.bad_lines {
        match line {
            0 => text.push_str(&format!("\n  {reason}")),
            _ => text.push_str(&format!("\n  line {line}: {reason}")),
        }
    }
    if error.more > 0 {
        text.push_str(&format!(
            "\n  and {} more bad {}",
            error.more,
            one_or_many(error.more, "line", "lines")
        ));
    }
    text
}
