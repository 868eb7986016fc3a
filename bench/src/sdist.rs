//! Real projects from PyPI as the sections use them: a source distribution downloaded with
//! pip (`--no-binary :all: --no-deps`) into the cache folder (`$XDG_CACHE_HOME` or
//! `~/.cache`, then `homespace-bench/`) and unpacked there, once: what is there already is
//! used as it is, so the benchmark needs the network only the first time.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The unpacked sdist `<name>-<version>` in the cache folder, downloaded and unpacked when
/// missing. An unpacked sdist has its `PKG-INFO` at the top.
pub fn unpacked(name: &str, version: &str) -> Result<PathBuf, String> {
    let cache = cache_folder()?;
    let stem = format!("{name}-{version}");
    let unpacked = cache.join(&stem);
    if unpacked.join("PKG-INFO").is_file() {
        return Ok(unpacked);
    }
    std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let archive = cache.join(format!("{stem}.tar.gz"));
    if !archive.is_file() {
        println!(
            "downloading {name}=={version} (sdist) into {} ...",
            cache.display()
        );
        run(Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--no-binary",
                ":all:",
                "--no-deps",
                &format!("{name}=={version}"),
                "-d",
            ])
            .arg(&cache))?;
    }
    run(Command::new("tar")
        .arg("xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&cache))?;
    if unpacked.join("PKG-INFO").is_file() {
        Ok(unpacked)
    } else {
        Err(format!(
            "{} unpacked, but {} has no PKG-INFO",
            archive.display(),
            unpacked.display()
        ))
    }
}

fn cache_folder() -> Result<PathBuf, String> {
    Ok(std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))
        .ok_or("neither XDG_CACHE_HOME nor HOME is set: no cache folder for the sdists")?
        .join("homespace-bench"))
}

fn run(command: &mut Command) -> Result<(), String> {
    let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
