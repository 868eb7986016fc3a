//! The `homespace` command: parse the command line, then call the library.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use homespace::app::{self, Options};
use homespace::mount::{self, MountRequest};
use homespace::render::budget::BUDGET_TOKENS;
use homespace::store::Store;
use homespace::transcripts::{self, Progress, ReadError, Summary};
use homespace::tree::kernel_cache::CacheMode;

/// Mount a Python project, its tasks and your memory of past sessions as a
/// self-describing file tree: every directory has `_entry.md` (what is here, what you can
/// do) and `_nav.txt` (where you are).
#[derive(Parser, Debug)]
#[command(
    name = "homespace",
    version,
    after_help = "Examples:
  homespace mount --project examples/ledger /mnt/hs    # mount, return once it answers
  cat /mnt/hs/_entry.md                                # the dashboard
  homespace render --project examples/ledger /tasks/_entry.md
  homespace unmount /mnt/hs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Debug, Clone)]
struct ProjectArgs {
    /// The Python project to mount (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    project: PathBuf,
    /// The SQLite store (default: <project>/.homespace/store.db, created on first use).
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// The token budget of every generated view.
    #[arg(long, value_name = "N", default_value_t = BUDGET_TOKENS as u32, value_parser = clap::value_parser!(u32).range(100..=100_000))]
    budget: u32,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Mount the tree at MOUNTPOINT; returns once the mount answers.
    #[command(after_help = "Examples:
  homespace mount --project ~/code/app /mnt/hs
  homespace mount --foreground /mnt/hs           # stay attached; Ctrl-C unmounts")]
    Mount {
        #[command(flatten)]
        project: ProjectArgs,
        /// Stay attached instead of serving in the background.
        #[arg(long)]
        foreground: bool,
        /// Let other users read the mount, as far as the project's and the store's modes
        /// let them (the kernel checks); they change nothing (needs user_allow_other in
        /// /etc/fuse.conf when not root).
        #[arg(long)]
        allow_other: bool,
        /// With --allow-other: let other users also change what the modes let them change.
        /// Their changes are validated but never import-checked (that would run the
        /// project's code as you), and they cannot change source/meta/settings.toml.
        #[arg(long, requires = "allow_other")]
        allow_other_write: bool,
        /// Let the kernel keep nothing: every stat, listing and read asks the daemon (by
        /// default the kernel keeps them and is told of every change).
        #[arg(long)]
        no_cache: bool,
        /// Where the daemon writes its log (default: beside the store, homespace.log).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        mountpoint: PathBuf,
    },
    /// Unmount the tree at MOUNTPOINT (plain `umount` works too).
    #[command(
        after_help = "Examples:\n  homespace unmount /mnt/hs\n  homespace unmount --lazy /mnt/hs   # busy: detach now, end when the last user lets go"
    )]
    Unmount {
        /// Detach even while a process still uses the mount; it ends when the last one
        /// lets go.
        #[arg(long)]
        lazy: bool,
        mountpoint: PathBuf,
    },
    /// Print one file of the tree without mounting (a directory prints its _entry.md).
    #[command(after_help = "Examples:
  homespace render --project examples/ledger /
  homespace render --project examples/ledger /_nav.txt
  homespace render --project examples/ledger \"/search/tasks:login\"")]
    Render {
        #[command(flatten)]
        project: ProjectArgs,
        /// A path inside the tree, e.g. /tasks/_entry.md.
        path: String,
    },
    /// Import transcripts into memory: Claude Code sessions, Codex rollouts, generic JSONL
    /// (recognised from their content). Each file is imported whole or not at all;
    /// importing a file again adds nothing.
    #[command(after_help = "Examples:
  homespace import ~/.claude/projects/-home-me-app      # every session of one project
  homespace import ~/.codex/sessions/2025/09            # Codex rollouts of a month
  homespace import --store /tmp/memory.db chat.jsonl

A directory is searched for *.jsonl and *.json files. A refused file is listed with its bad
lines on stderr, and the exit status is 1.")]
    Import {
        /// The project whose store to import into (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        project: PathBuf,
        /// The SQLite store (default: <project>/.homespace/store.db, created on first use).
        #[arg(long, value_name = "FILE")]
        store: Option<PathBuf>,
        /// Transcript files, or directories to search for them.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Delete one session from memory, with all its entries (the mount never deletes).
    #[command(after_help = "Example:\n  homespace forget 0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d")]
    Forget {
        /// The project whose store to change (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        project: PathBuf,
        /// The SQLite store (default: <project>/.homespace/store.db).
        #[arg(long, value_name = "FILE")]
        store: Option<PathBuf>,
        /// The session's id: its directory name under memory/sessions/<day>/.
        session: String,
    },
}

fn options(args: &ProjectArgs) -> Options {
    Options {
        project: args.project.clone(),
        store: args.store.clone(),
        budget: args.budget as usize,
        others_write: false,
        cache: CacheMode::Kept,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mount {
            project,
            foreground,
            allow_other,
            allow_other_write,
            no_cache,
            log,
            mountpoint,
        } => {
            let request = MountRequest {
                options: Options {
                    others_write: allow_other_write,
                    cache: if no_cache {
                        CacheMode::Off
                    } else {
                        CacheMode::Kept
                    },
                    ..options(&project)
                },
                mountpoint: mountpoint.clone(),
                allow_other,
            };
            if foreground {
                mount::mount_foreground(&request)
            } else {
                mount_in_background(&request, &project, log, allow_other)
            }
        }
        Command::Unmount { lazy, mountpoint } => mount::unmount(&mountpoint, lazy),
        Command::Render { project, path } => render(&options(&project), &path),
        Command::Import {
            project,
            store,
            paths,
        } => import(&project, store, &paths),
        Command::Forget {
            project,
            store,
            session,
        } => forget(&project, store, &session),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("homespace: {message}");
            ExitCode::FAILURE
        }
    }
}

fn mount_in_background(
    request: &MountRequest,
    project: &ProjectArgs,
    log: Option<PathBuf>,
    allow_other: bool,
) -> Result<(), String> {
    // Before the log's directory is made in it: a mistyped --project must not become an
    // empty project that mounts.
    app::project_dir(&project.project).map_err(|e| e.message)?;
    request.options.make_store_dir().map_err(|e| e.message)?;
    let absolute = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
    let store = absolute(&request.options.store_path());
    let log = log
        .map(|l| absolute(&l))
        .unwrap_or_else(|| store.with_file_name("homespace.log"));
    let mut args = vec![
        "mount".to_string(),
        "--project".into(),
        absolute(&project.project).display().to_string(),
        "--store".into(),
        store.display().to_string(),
        "--budget".into(),
        project.budget.to_string(),
    ];
    if allow_other {
        args.push("--allow-other".into());
    }
    if request.options.others_write {
        args.push("--allow-other-write".into());
    }
    if request.options.cache == CacheMode::Off {
        args.push("--no-cache".into());
    }
    args.push(absolute(&request.mountpoint).display().to_string());
    mount::mount_background(request, &args, &log)
}

fn render(options: &Options, path: &str) -> Result<(), String> {
    let space = app::build(options, "/").map_err(|e| e.message)?;
    let components: Vec<String> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect();
    let text = space.render_path(&components).map_err(|e| e.message)?;
    use std::io::Write;
    std::io::stdout()
        .write_all(&text)
        .map_err(|e| format!("cannot write to stdout: {e}"))
}

fn forget(project: &Path, store: Option<PathBuf>, session: &str) -> Result<(), String> {
    let options = Options {
        store,
        ..Options::new(project.to_path_buf())
    };
    let path = options.store_path();
    if !path.exists() {
        return Err(format!(
            "there is no store at {}; give --project DIR or --store FILE",
            path.display()
        ));
    }
    let store = Store::open(&path).map_err(|e| e.message)?;
    let forgotten = store
        .write(|c| homespace::store::memory::forget(c, session))
        .map_err(|e| e.message)?;
    if forgotten {
        println!("forgot session {session} and its entries");
        Ok(())
    } else {
        Err(format!(
            "no session {session} in {}; `ls <mount>/memory/sessions/*/` lists them",
            path.display()
        ))
    }
}

fn import(project: &Path, store: Option<PathBuf>, paths: &[PathBuf]) -> Result<(), String> {
    if store.is_none() && !project.is_dir() {
        return Err(format!(
            "no project directory at {}; give --project DIR or --store FILE",
            project.display()
        ));
    }
    let options = Options {
        store,
        ..Options::new(project.to_path_buf())
    };
    options.make_store_dir().map_err(|e| e.message)?;
    let store = Store::open(&options.store_path()).map_err(|e| e.message)?;
    store.for_bulk_load().map_err(|e| e.message)?;
    // A bar only for a person watching: never in pipes, logs or CI.
    let bar = std::io::stderr().is_terminal().then(|| {
        let style = ProgressStyle::with_template("{bar:30} {pos}/{len} files  {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::new(0).with_style(style)
    });
    let summary = transcripts::import_paths(&store, paths, &mut |progress| {
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
            plural(n, "file", "files"),
            if n == 1 { "it" } else { "them" },
        )),
    }
}

/// Refused and passed-over files on stderr, then the one summary line on stdout.
fn report(summary: &Summary) {
    for (path, error) in &summary.bad_files {
        eprintln!("{}", refusal(path, error));
    }
    for path in &summary.not_transcripts {
        eprintln!(
            "homespace: passed over {}: not a transcript (no line looks like Claude Code, Codex or generic JSONL)",
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
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", plural(n, one, many));
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
        plural(count, "line", "lines")
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
            plural(error.more, "line", "lines")
        ));
    }
    text
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
