//! The `homespace` command: the definitions clap parses (with the examples `--help`
//! shows, and from which completions and man pages are generated), then the dispatch to
//! the library and to `cli/`.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use homespace::app::{self, Options};
use homespace::daemon::mount::{self, MountRequest};
use homespace::render::budget::BUDGET_TOKENS;
use homespace::store::location::{self, Location};
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
  homespace status                                     # what is mounted, by whom, how big
  homespace unmount /mnt/hs

Exit status: 0 when the command did what it says, 1 when it failed (the reason and what
to do are on stderr), 2 when the command line itself is wrong."
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
    /// The store: a SQLite file, or a PostgreSQL URL shared by many mounts (password in
    /// the URL or in PGPASSWORD). Default: <project>/.homespace/store.db, created on first
    /// use.
    #[arg(long, value_name = "STORE", env = "HOMESPACE_STORE")]
    store: Option<String>,
    /// The token budget of every generated view.
    #[arg(long, value_name = "N", default_value_t = BUDGET_TOKENS as u32, value_parser = clap::value_parser!(u32).range(100..=100_000))]
    budget: u32,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Mount the tree at MOUNTPOINT; returns once the mount answers.
    #[command(after_help = "Examples:
  homespace mount --project ~/code/app /mnt/hs
  homespace mount --foreground /mnt/hs           # stay attached; Ctrl-C unmounts
  homespace mount --read-only --project ~/code/app /mnt/ro   # look, never touch")]
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
        /// Change nothing: the kernel refuses every write ("Read-only file system"), and in
        /// exchange answers every open and close itself, so a repeated `cat` costs what it
        /// costs on the plain disk (a read-write mount must see each open and close to
        /// check what was written).
        #[arg(long, conflicts_with = "allow_other_write")]
        read_only: bool,
        /// Where the daemon writes its log (default: beside the store, homespace.log).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// The folder to mount at: made if missing (said on stderr); an existing one
        /// should be empty, since its files are hidden while mounted (said when not).
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
        /// The folder the tree is mounted at.
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
    /// Import transcripts into memory: Claude Code sessions, Codex rollouts, Gemini CLI
    /// sessions, OpenCode's database or storage folder, Aider's chat history, generic JSONL
    /// (recognised from their content). Each file is imported whole or not at all;
    /// importing a file again adds nothing.
    #[command(after_help = "Examples:
  homespace import ~/.claude/projects/-home-me-app      # every session of one project
  homespace import ~/.codex/sessions/2025/09            # Codex rollouts of a month
  homespace import ~/.local/share/opencode/opencode.db  # every OpenCode session
  homespace import --store /tmp/memory.db chat.jsonl

A directory is searched for *.jsonl, *.json, .aider.chat.history.md and opencode.db files. A
refused file is listed with its bad lines on stderr, and the exit status is 1.

With --watch it goes on after the files there are read, importing new files and the lines
appended to them as agents write them (a bad line is reported on stderr and the rest
imported) until interrupted; without paths it follows the project's own transcript folders,
as a mount does:
  homespace import --watch
  homespace import --watch --store /tmp/memory.db ~/logs/chats")]
    Import {
        /// The project whose store to import into (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        project: PathBuf,
        /// The store: a SQLite file or a PostgreSQL URL (default:
        /// <project>/.homespace/store.db).
        #[arg(long, value_name = "STORE", env = "HOMESPACE_STORE")]
        store: Option<String>,
        /// Keep following the paths (or the project's transcript folders) and import what
        /// agents write there, until interrupted.
        #[arg(long)]
        watch: bool,
        /// Transcript files, or directories to search for them.
        #[arg(required_unless_present = "watch", value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Delete one session from memory, with all its entries (the mount never deletes).
    #[command(after_help = "Example:\n  homespace forget 0199441c-7a3e-7b21-9c4d-5e6f7a8b9c0d")]
    Forget {
        /// The project whose store to change (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        project: PathBuf,
        /// The store: a SQLite file or a PostgreSQL URL (default:
        /// <project>/.homespace/store.db).
        #[arg(long, value_name = "STORE", env = "HOMESPACE_STORE")]
        store: Option<String>,
        /// The session's id: its directory name under memory/sessions/<day>/.
        session: String,
    },
    /// Work on whole stores: copy one into another.
    #[command(after_help = "Examples:
  homespace store copy --from .homespace/store.db --to postgres://me@db.example/team
  homespace store copy --from postgres://me@db.example/team --to /tmp/backup.db")]
    Store {
        #[command(subcommand)]
        command: StoreCommand,
    },
    /// List the running mounts: project, store, daemon pid, uptime, resident memory and
    /// cache mode.
    #[command(after_help = "Examples:
  homespace status            # every mount
  homespace status /mnt/hs    # one mount; exit status 1 if it is not mounted")]
    Status {
        /// One mount's folder (default: every mount).
        mountpoint: Option<PathBuf>,
    },
    /// Print a short block to paste into an agent's instructions (AGENTS.md, CLAUDE.md):
    /// where the mount is and how to find one's way in it.
    #[command(after_help = "Example:\n  homespace prompt /mnt/hs >> AGENTS.md")]
    Prompt {
        /// The folder the tree is mounted at.
        mountpoint: PathBuf,
    },
    /// Print the shell completion script for bash, zsh or fish.
    #[command(after_help = "Examples:
  homespace completions bash > /etc/bash_completion.d/homespace
  homespace completions zsh > \"${fpath[1]}/_homespace\"
  homespace completions fish > ~/.config/fish/completions/homespace.fish")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page homespace(1), or write one page per command into DIR.
    #[command(after_help = "Examples:
  homespace man | man -l -
  homespace man /usr/local/share/man/man1     # homespace.1, homespace-mount.1, ...")]
    Man { dir: Option<PathBuf> },
}

#[derive(Subcommand, Debug)]
enum StoreCommand {
    /// Copy everything one store holds (tasks, memory, edit history, settings) into an
    /// empty one: a SQLite file into a PostgreSQL database when a team starts sharing, or
    /// back. What both hold is counted afterwards; a difference fails the copy.
    #[command(after_help = "Examples:
  homespace store copy --from .homespace/store.db --to postgres://me@db.example/team
  homespace store copy --from postgres://me@db.example/team --to /tmp/backup.db

A password goes in the URL or in PGPASSWORD.")]
    Copy {
        /// The store to copy: a SQLite file or a postgres:// URL.
        #[arg(long, value_name = "STORE")]
        from: String,
        /// The store to fill, which must be empty (a new file is made).
        #[arg(long, value_name = "STORE")]
        to: String,
    },
}

fn options(args: &ProjectArgs) -> Options {
    Options {
        project: args.project.clone(),
        store: args.store.as_deref().map(Location::parse),
        budget: args.budget as usize,
        others_read: false,
        others_write: false,
        cache: CacheMode::Kept,
        read_only: false,
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
            read_only,
            log,
            mountpoint,
        } => {
            let request = MountRequest {
                options: Options {
                    others_read: allow_other || allow_other_write,
                    others_write: allow_other_write,
                    cache: if no_cache {
                        CacheMode::Off
                    } else {
                        CacheMode::Kept
                    },
                    read_only,
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
            watch: false,
            paths,
        } => cli::memory::import(&project, store.as_deref().map(Location::parse), &paths),
        Command::Import {
            project,
            store,
            watch: true,
            paths,
        } => cli::memory::follow(&project, store.as_deref().map(Location::parse), &paths),
        Command::Forget {
            project,
            store,
            session,
        } => cli::memory::forget(&project, store.as_deref().map(Location::parse), &session),
        Command::Store {
            command: StoreCommand::Copy { from, to },
        } => cli::store::copy(&from, &to),
        Command::Status { mountpoint } => cli::status::status(mountpoint.as_deref()),
        Command::Prompt { mountpoint } => cli::prompt::prompt(&mountpoint),
        Command::Completions { shell } => cli::docs::completions(Cli::command(), shell),
        Command::Man { dir } => cli::docs::man(Cli::command(), dir.as_deref()),
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
    let store = match request.options.store() {
        Location::File(path) => Location::File(absolute(&path)),
        database => database,
    };
    let log = log
        .map(|l| absolute(&l))
        .unwrap_or_else(|| absolute(&request.options.local_dir()).join("homespace.log"));
    let mut args = vec![
        "mount".to_string(),
        "--project".into(),
        absolute(&project.project).display().to_string(),
        // Never the password: `ps` shows this to every user. It goes in PGPASSWORD.
        "--store".into(),
        store.shown(),
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
    if request.options.read_only {
        args.push("--read-only".into());
    }
    args.push(absolute(&request.mountpoint).display().to_string());
    let password = store.password().map(|p| (location::PASSWORD_VARIABLE, p));
    mount::mount_background(request, &args, password, &log)
}

fn render(options: &Options, path: &str) -> Result<(), String> {
    let space = app::build(options, "/").map_err(|e| e.message)?;
    let components: Vec<String> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect();
    let text = space
        .render_path(&homespace::model::TreePath::from_names(&components))
        .map_err(|e| e.message)?;
    use std::io::Write;
    std::io::stdout()
        .write_all(&text)
        .map_err(|e| format!("cannot write to stdout: {e}"))
}
