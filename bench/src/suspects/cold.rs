//! The bug already there: a killed mutant run once more, on a second copy of the project
//! that holds it on disk before a mount with a new store starts. Such a runner has seen no
//! run before, so no green run to tell the change from, and ranks from the failing tests'
//! traced pass and the traceback alone — as for a new user who mounts a project with a bug
//! in it. (On the project's own mount the mutant is an edit made after a green run, and a
//! runner that ranks "changed since the last green run" first names it from that.)

use std::path::{Path, PathBuf};

use super::projects::Sdist;
use super::through::{Run, Source};

/// The second copy, restored after each mutant.
pub struct Cold {
    _dir: tempfile::TempDir,
    project: PathBuf,
    /// `timeout_secs` for its runs, as on the project's mount.
    timeout: String,
}

impl Cold {
    pub fn new(sdist: &Sdist, timeout: &str) -> Result<Cold, String> {
        let (dir, project) = sdist.copy()?;
        Ok(Cold {
            _dir: dir,
            project,
            timeout: timeout.to_string(),
        })
    }

    /// The suite's run on a new mount and store of the copy with `module` (from the
    /// project's folder) holding `mutated`, with the runner's probe for one-token fixes or
    /// (`probe` false, `tests.probe_secs = 0`) the spectrum and traceback alone; the module
    /// is restored on disk afterwards, and checked to be.
    pub fn run(&self, module: &Path, mutated: &[u8], probe: bool) -> Result<Run, String> {
        let on_disk = self.project.join(module);
        let original =
            std::fs::read(&on_disk).map_err(|e| format!("{}: {e}", on_disk.display()))?;
        std::fs::write(&on_disk, mutated).map_err(|e| format!("{}: {e}", on_disk.display()))?;
        let outcome = self.run_mounted(probe);
        std::fs::write(&on_disk, &original).map_err(|e| format!("{}: {e}", on_disk.display()))?;
        outcome
    }

    fn run_mounted(&self, probe: bool) -> Result<Run, String> {
        // Unmounted when dropped, on either return; the store is the mount's new one.
        let (mounted, _) = super::super::mount(&self.project);
        let source = Source::new(&mounted.at);
        // The settings live in the checkout: set on the first mount, kept for the next.
        source.set_test_setting("timeout_secs", Some(&self.timeout))?;
        source.set_test_setting("probe_secs", (!probe).then_some("0"))?;
        source.run()
    }
}
