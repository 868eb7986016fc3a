//! The tasks section: `tasks/` as the store grows, on SQLite and on PostgreSQL side by
//! side. For 100, 1,000 and 10,000 tasks, each backend gets a new store seeded through the
//! library (the same validated write a mount does), is mounted, and is measured on the
//! mount: `ls tasks/open/`, `cat tasks/_entry.md`, creating a task, and
//! `search/tasks:<q>`; beside the same operations on plain files (a directory of the same
//! task files, `grep -rl`), timed once per size since they are the same files for both.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::backends::{self, Backend, Backends, BenchStore, first_difference};
use super::search_total::heading_count;
use super::{daemon_rss, ls, mount_in, read_all, time};

/// Words the seeded tasks are made of.
const TASK_WORDS: [&str; 12] = [
    "login", "form", "schema", "deploy", "cache", "parser", "index", "docs", "retry", "token",
    "queue", "report",
];

/// Store sizes measured.
const SIZES: [usize; 3] = [100, 1_000, 10_000];

/// Searches of a store of `size` tasks: two words a third of the tasks have, and a word
/// every title has with the number of the last task, which only that task matches (the
/// search matches prefixes, and no other number starts with it).
fn task_queries(size: usize) -> [String; 2] {
    ["login deploy".to_string(), format!("fix {}", size - 1)]
}

/// Task `i` of a seeded store: statuses in turn (a quarter open), priorities 0–4, a tag,
/// and every fifth task depending on the one before it.
fn task_json(i: usize) -> String {
    let word = |k: usize| TASK_WORDS[(i * 7 + k * 3) % TASK_WORDS.len()];
    let depends = if i > 0 && i.is_multiple_of(5) {
        format!(r#", "depends_on": ["task-{}"]"#, i - 1)
    } else {
        String::new()
    };
    format!(
        r#"{{"title": "Fix the {} {} ({i})", "status": "{}", "priority": {}, "tags": ["{}"], "description": "The {} breaks when the {} is empty."{depends}}}"#,
        word(0),
        word(1),
        ["open", "in_progress", "blocked", "done"][i % 4],
        i % 5,
        word(2),
        word(3),
        word(4)
    )
}

/// Seeds `store` with `size` tasks through the tasks resource (validated and stored one
/// by one, as a mount does); returns the time it took and the resource, to read them back.
fn seed_tasks(
    store: &BenchStore,
    size: usize,
) -> Result<(Duration, homespace::resources::tasks::Tasks), String> {
    use homespace::model::links::Links;
    use homespace::resources::tasks::Tasks;
    use homespace::tree::resource::Edit;

    let started = Instant::now();
    let tasks = Tasks::new(std::sync::Arc::new(store.open()?), Links::new("/"));
    for i in 0..size {
        let name = format!("task-{i}.json");
        tasks
            .write(&[&name], task_json(i).as_bytes(), None)
            .map_err(|e| format!("seed {name}: {}", e.message))?;
    }
    Ok((started.elapsed(), tasks))
}

/// The seeded tasks as plain files under `plain`: `all/` holds every task file, `open/`
/// the open ones — the bytes the mount serves for each.
fn write_plain(
    tasks: &homespace::resources::tasks::Tasks,
    plain: &Path,
    size: usize,
) -> Result<(), String> {
    use homespace::tree::resource::ReadNow;

    for dir in ["all", "open"] {
        std::fs::create_dir_all(plain.join(dir)).map_err(|e| format!("plain dir: {e}"))?;
    }
    for i in 0..size {
        let name = format!("task-{i}.json");
        let bytes = tasks
            .read_now(&[&name])
            .map_err(|e| format!("read {name}: {}", e.message))?;
        let write = |dir: &str| {
            std::fs::write(plain.join(dir).join(&name), &bytes)
                .map_err(|e| format!("plain file {name}: {e}"))
        };
        write("all")?;
        if i % 4 == 0 {
            write("open")?;
        }
    }
    Ok(())
}

/// `N hits` from the heading of a search result.
fn hit_count(result: &Path) -> String {
    let view = std::fs::read_to_string(result).unwrap_or_default();
    heading_count(&view).unwrap_or("?").to_string()
}

/// Medians of one store size on one backend's mount.
struct TaskFigures {
    open: usize,
    seeded: Duration,
    list: Duration,
    entry: Duration,
    /// The bytes of `tasks/_entry.md`, to check the plain copy is the same file.
    entry_view: Vec<u8>,
    create: Duration,
    /// Each query's median and `N hits`.
    searches: Vec<(Duration, String)>,
    rss_kib: Option<u64>,
}

/// Medians of the same operations on plain files.
struct PlainFigures {
    list: Duration,
    entry: Duration,
    create: Duration,
    greps: Vec<Duration>,
}

/// `tasks/` as the store grows: the four operations of the issue at 100, 1,000 and 10,000
/// tasks on each backend, beside the same operation on plain files.
pub fn bench_tasks(project: &Path, backends: &Backends, runs: usize) {
    println!(
        "## tasks (a copy of examples/ledger with a seeded store, SQLite and PostgreSQL side \
         by side; medians over {runs} runs)"
    );
    println!(
        "  plain disk: ls of a directory of the same open task files; cat of a copy of the \
         view;\n  writing a new file; `grep -rliw A | xargs grep -liw B` over all the task \
         files\n"
    );
    let mut summary = Vec::new();
    for size in SIZES {
        let dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => {
                println!("  no temp dir for {size} tasks: {e}");
                continue;
            }
        };
        let plain = dir.path().join("plain");
        let mut figures: [Option<TaskFigures>; 2] = [None, None];
        for backend in backends.available() {
            match measure(project, backends, backend, dir.path(), &plain, size, runs) {
                Ok(f) => figures[backend.index()] = Some(f),
                Err(why) => println!("  {} with {size} tasks: {why}", backend.name()),
            }
        }
        // The plain files were written from the first store that was seeded.
        let Some(first) = figures.iter().flatten().next() else {
            continue;
        };
        let plain_figures = measure_plain(dir.path(), &plain, first, size, runs);
        print_size(size, &figures, &plain_figures, dir.path());
        summary.push((size, figures, plain_figures));
    }

    let ms = backends::fmt;
    println!("### tasks/ on the mount, medians, SQLite and PostgreSQL side by side");
    println!(
        "| tasks | open | store | seeded in | ls tasks/open/ | cat tasks/_entry.md | create a task | \
         search/tasks:login deploy | search/tasks:fix <last> | daemon RSS |"
    );
    println!("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (size, figures, plain) in summary {
        for backend in backends::BOTH {
            let Some(f) = &figures[backend.index()] else {
                continue;
            };
            println!(
                "| {size} | {} | {} | {:.2} s | {} | {} | {} | {} | {} |",
                f.open,
                backend.name(),
                f.seeded.as_secs_f64(),
                ms(f.list),
                ms(f.entry),
                ms(f.create),
                f.searches
                    .iter()
                    .map(|(d, _)| ms(*d))
                    .collect::<Vec<_>>()
                    .join(" | "),
                f.rss_kib.map_or("?".to_string(), |kb| format!(
                    "{:.1} MiB",
                    kb as f64 / 1024.0
                ))
            );
        }
        println!(
            "| {size} | | plain disk | | {} | {} | {} | {} (grep) | |",
            ms(plain.list),
            ms(plain.entry),
            ms(plain.create),
            plain
                .greps
                .iter()
                .map(|d| ms(*d))
                .collect::<Vec<_>>()
                .join(" (grep) | ")
        );
    }
    println!();
}

/// One store of `size` tasks on `backend`: seeded, mounted (uncached), measured,
/// unmounted and removed. The first one seeded also writes the plain files.
fn measure(
    project: &Path,
    backends: &Backends,
    backend: Backend,
    dir: &Path,
    plain: &Path,
    size: usize,
    runs: usize,
) -> Result<TaskFigures, String> {
    let store = backends.new_store(backend, dir)?;
    let (seeded, tasks) = seed_tasks(&store, size)?;
    if !plain.exists() {
        write_plain(&tasks, plain, size)?;
    }
    // The daemon alone reads the store while it is measured.
    drop(tasks);
    // Uncached: what is timed is the work of each view and query, as grep does its own; a
    // repeated read served by the kernel's cache is the source section's subject.
    let (mounted, _) = mount_in(
        project,
        Some(store.location.as_ref()),
        &["--no-cache"],
        Some(dir),
    );
    let tasks = mounted.at.join("tasks");
    let open_dir = tasks.join("open");
    let open = std::fs::read_dir(&open_dir)
        .map_err(|e| format!("ls tasks/open: {e}"))?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    let list = time(runs, || ls(&open_dir));
    let entry_path = tasks.join("_entry.md");
    let entry_view = std::fs::read(&entry_path).map_err(|e| format!("cat tasks/_entry.md: {e}"))?;
    let entry = time(runs, || read_all(&entry_path));
    let new_task = br#"{"title": "Add a CSV export", "tags": ["report"]}"#;
    let mut n = 0;
    let create = time(runs, || {
        n += 1;
        std::fs::write(open_dir.join(format!("new-{n}.json")), new_task).expect("create");
    });
    let searches = task_queries(size)
        .iter()
        .map(|query| {
            let result = mounted.at.join("search").join(format!("tasks:{query}"));
            let median = time(runs.clamp(3, 50), || read_all(&result));
            (median, hit_count(&result))
        })
        .collect();
    let rss_kib = daemon_rss(&mounted.at);
    drop(mounted);
    drop(store);
    Ok(TaskFigures {
        open,
        seeded,
        list,
        entry,
        entry_view,
        create,
        searches,
        rss_kib,
    })
}

/// The plain-disk side of one size: the same listing, a copy of the view `first` served,
/// a new file, and grep for each query over all the task files.
fn measure_plain(
    dir: &Path,
    plain: &Path,
    first: &TaskFigures,
    size: usize,
    runs: usize,
) -> PlainFigures {
    let list = time(runs, || ls(&plain.join("open")));
    let entry_copy = dir.join("entry.md");
    std::fs::write(&entry_copy, &first.entry_view).expect("write a plain copy of the view");
    let entry = time(runs, || read_all(&entry_copy));
    let new_task = br#"{"title": "Add a CSV export", "tags": ["report"]}"#;
    let mut n = 0;
    let create = time(runs, || {
        n += 1;
        std::fs::write(plain.join(format!("new-{n}.json")), new_task).expect("write");
    });
    let greps = task_queries(size)
        .iter()
        .map(|query| {
            let (a, b) = query.split_once(' ').expect("two words");
            time(runs.clamp(3, 50), || {
                let _ = Command::new("sh")
                    .arg("-c")
                    .arg("grep -rliw \"$2\" \"$1\" | xargs -r grep -liw \"$3\"")
                    .args(["sh".as_ref(), plain.join("all").as_os_str()])
                    .args([a, b])
                    .output();
            })
        })
        .collect();
    PlainFigures {
        list,
        entry,
        create,
        greps,
    }
}

/// The side-by-side table of one size.
fn print_size(size: usize, figures: &[Option<TaskFigures>; 2], plain: &PlainFigures, dir: &Path) {
    let each = |f: &dyn Fn(&TaskFigures) -> Duration| figures.each_ref().map(|t| t.as_ref().map(f));
    let open = figures
        .iter()
        .flatten()
        .map(|f| f.open.to_string())
        .collect::<Vec<_>>();
    println!("### {size} tasks ({} open)", open.join(" / "));
    backends::header("operation");
    backends::text_row(
        "seed the store (validated writes)",
        figures.each_ref().map(|f| {
            f.as_ref()
                .map(|f| format!("{:.2} s", f.seeded.as_secs_f64()))
        }),
        None,
    );
    backends::row("ls tasks/open/", each(&|f| f.list), Some(plain.list));
    backends::row("cat tasks/_entry.md", each(&|f| f.entry), Some(plain.entry));
    backends::row(
        "create a task (write a new file)",
        each(&|f| f.create),
        Some(plain.create),
    );
    for (q, query) in task_queries(size).iter().enumerate() {
        let hits: Vec<String> = figures
            .iter()
            .flatten()
            .map(|f| f.searches[q].1.clone())
            .collect();
        let hits = if hits.windows(2).all(|w| w[0] == w[1]) {
            hits[0].clone()
        } else {
            hits.join(" / ")
        };
        backends::row(
            &format!("search/tasks:{query} ({hits})"),
            each(&|f| f.searches[q].0),
            Some(plain.greps[q]),
        );
    }
    backends::text_row(
        "daemon RSS after the runs",
        figures.each_ref().map(|f| {
            f.as_ref()
                .and_then(|f| f.rss_kib)
                .map(|kb| format!("{:.1} MiB", kb as f64 / 1024.0))
        }),
        None,
    );
    // The plain copy is of the first store's view; a different view elsewhere is said
    // (where it differs: the tasks' times, as each store was seeded at its own moment), and
    // its own copy timed, so no ratio rests on another file.
    if let [Some(first), Some(other)] = figures
        && first.entry_view != other.entry_view
    {
        let copy = dir.join("entry-postgres.md");
        if std::fs::write(&copy, &other.entry_view).is_ok() {
            let own = time(50, || read_all(&copy));
            println!(
                "    note: PostgreSQL's tasks/_entry.md differs from SQLite's ({} vs {} bytes{}); \
                 a plain copy of it reads in {}",
                other.entry_view.len(),
                first.entry_view.len(),
                first_difference(&first.entry_view, &other.entry_view),
                backends::fmt(own)
            );
        }
    }
    println!();
}
