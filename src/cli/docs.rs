//! Documentation generated from the command-line definition itself, so it cannot drift:
//! shell completions (`homespace completions bash|zsh|fish`) and man pages (`homespace man`).

use std::io::Write;
use std::path::Path;

use clap::Command;
use clap_complete::Shell;

/// Print the completion script for `shell` on stdout.
pub fn completions(mut cli: Command, shell: Shell) -> Result<(), String> {
    let name = cli.get_name().to_string();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cli, name, &mut out);
    write_stdout(&out)
}

/// Without `dir`, print homespace(1) on stdout; with it, write one page per command there
/// (homespace.1, homespace-mount.1, ...), as `man -l` and MANPATH expect.
pub fn man(cli: Command, dir: Option<&Path>) -> Result<(), String> {
    match dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cli)
                .render(&mut out)
                .map_err(|e| format!("cannot render the man page: {e}"))?;
            write_stdout(&out)
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            clap_mangen::generate_to(cli, dir)
                .map_err(|e| format!("cannot write the man pages to {}: {e}", dir.display()))
        }
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    std::io::stdout()
        .write_all(bytes)
        .map_err(|e| format!("cannot write to stdout: {e}"))
}
