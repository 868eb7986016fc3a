//! The `homespace` command: parse the command line, then call the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use homespace::app::{self, Options};
use homespace::mount::{self, MountRequest};
use homespace::render::budget::BUDGET_TOKENS;

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
        /// Where the daemon writes its log (default: beside the store, homespace.log).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        mountpoint: PathBuf,
    },
    /// Unmount the tree at MOUNTPOINT (plain `umount` works too).
    #[command(after_help = "Example:\n  homespace unmount /mnt/hs")]
    Unmount { mountpoint: PathBuf },
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
}

fn options(args: &ProjectArgs) -> Options {
    Options {
        project: args.project.clone(),
        store: args.store.clone(),
        budget: args.budget as usize,
        others_write: false,
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
            log,
            mountpoint,
        } => {
            let request = MountRequest {
                options: Options {
                    others_write: allow_other_write,
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
        Command::Unmount { mountpoint } => mount::unmount(&mountpoint, false),
        Command::Render { project, path } => render(&options(&project), &path),
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
