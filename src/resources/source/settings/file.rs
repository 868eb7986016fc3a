//! Where the settings of source/ are kept and how they are read and written: the
//! checkout's `.homespace/settings.toml`, the owner's alone (what they say, and how that is
//! validated, is `settings.rs`). The file applies only while it is the owner's alone,
//! every setting of it: not only those that choose what runs (the interpreter of the
//! import check and the test runner, pytest's arguments) but those that run nothing too —
//! another user's `[memory] watch` would import the owner's private folders, their
//! `import_check.enabled = false` would let broken edits through (issue 42).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::io::Write;

use crate::error::{Error, ErrorKind, Result};
use crate::model::Ownership;
use crate::resources::source::project::Project;
use crate::resources::source::settings::{self, DEFAULT, Settings};
use crate::store::Store;
use crate::transcripts::places::Watching;
use crate::tree::access;
use crate::trust;

/// The settings file's name in the checkout's `.homespace/`.
const SETTINGS_FILE: &str = "settings.toml";

/// How `source/meta/settings.toml` begins when the file is set aside.
const NOT_IN_FORCE: &str = "# Not in force: ";

/// The settings before anyone wrote them.
fn defaults() -> Settings {
    settings::parse(DEFAULT).unwrap_or(Settings {
        import_check: true,
        python: None,
        import_timeout: Duration::from_secs(10),
        nav: Default::default(),
        ignore: Default::default(),
        test_args: Vec::new(),
        test_timeout: Duration::from_secs(600),
        test_trace: true,
        test_probe: Duration::from_secs(10),
        expose_new_modules: true,
        memory_watch: Watching::Default,
        set_aside: None,
    })
}

/// The settings of one checkout's source/: the file that holds them, and the records of
/// the store they were read from before they moved there.
pub(crate) struct SettingsFile {
    project: Arc<Project>,
    store: Arc<Store>,
    /// Whose settings of the store are this checkout's (see [`crate::resources::source::checkout::key`]).
    checkout: String,
    /// What views last read (see [`SettingsFile::kept`]).
    shown: Mutex<Option<Shown>>,
}

/// The settings as views last read them, and what they were read from.
struct Shown {
    /// The file's identity then; `None` when there was none and the store was read.
    file: Option<FileStamp>,
    /// The store's count of other writers' changes then ([`Store::data_version`]).
    store_version: Option<i64>,
    settings: Settings,
}

/// A file's size, modification time and inode: what changes when it is written or
/// replaced (settings are replaced whole, by rename); with the owner and mode of the file
/// and of its folder, on which whether it applies depends. A change of the folders above
/// is heard by the project's watcher, which has them read again ([`SettingsFile::forget`]).
type FileStamp = (u64, Option<std::time::SystemTime>, u64, [(u32, u32); 2]);

/// The most a settings file may hold: far beyond any real one; a bigger file is no
/// settings file, and is not read whole into memory.
const LARGEST: u64 = 1 << 20;

/// The checkout's settings file `file`, read, and whether it applies (`Err` says why not),
/// or `None` when there is none. Judged by the very file read: its own owner and modes
/// (fstat of the open file), the folders above it as [`trust::owner_alone`] judges them,
/// and the name still leading to that file afterwards. So a file another user swaps in,
/// or deletes, between a check and the read is never taken for the owner's: the text read
/// is the text judged.
fn read_judged(file: &Path) -> Result<Option<(String, std::result::Result<(), String>)>> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    let cannot = |e: std::io::Error| {
        Error::internal(format!("cannot read the settings {}: {e}", file.display()))
    };
    let mut opened = match std::fs::File::open(file) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot(e)),
    };
    let read = opened.metadata().map_err(cannot)?;
    let mut bytes = Vec::new();
    Read::by_ref(&mut opened)
        .take(LARGEST + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // SAFETY: geteuid has no preconditions and cannot fail.
    let owner = unsafe { libc::geteuid() };
    // The name judged as any trusted file is (its messages say what to change), then the
    // file read as itself: the same owner and modes, and still the file the name leads to.
    let verdict = trust::owner_alone(file).and_then(|()| {
        let now = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
        if !read.is_file() {
            Err(format!("{} is not a regular file", file.display()))
        } else if bytes.len() as u64 > LARGEST {
            Err(format!("{} is larger than 1 MiB", file.display()))
        } else if (read.uid() != owner && read.uid() != 0) || read.mode() & 0o022 != 0 {
            Err(format!(
                "{} was {}'s, mode {:o}, when it was read",
                file.display(),
                trust::user(read.uid()),
                read.mode() & 0o7777
            ))
        } else if (now.dev(), now.ino()) != (read.dev(), read.ino()) {
            Err(format!("{} was replaced while it was read", file.display()))
        } else {
            Ok(())
        }
    });
    Ok(Some((text, verdict)))
}

impl SettingsFile {
    pub(crate) fn new(project: Arc<Project>, store: Arc<Store>, checkout: String) -> Self {
        SettingsFile {
            project,
            store,
            checkout,
            shown: Mutex::new(None),
        }
    }

    /// Where `source/meta/settings.toml` is kept: in the checkout, `.homespace/settings.toml`,
    /// a file the owner controls. Never in the store: anyone who may write a shared store
    /// could otherwise choose what the owner's daemon runs.
    pub(crate) fn path(&self) -> PathBuf {
        self.project.root.join(".homespace").join(SETTINGS_FILE)
    }

    /// What is not a project file (source/meta/ and its settings) shows what the
    /// project's root directory allows.
    pub(crate) fn ownership(&self) -> Ownership {
        crate::resources::source::disk::ownership(None, &self.project.root)
    }

    /// The text of `source/meta/settings.toml`: the checkout's file; else what this
    /// checkout wrote to the store before settings moved out of it, without the settings
    /// that run something ([`settings::without_what_runs`]); else the defaults.
    pub(crate) fn text(&self) -> Result<String> {
        self.read().map(|(text, _)| text)
    }

    /// [`Self::text`], with why it may not apply: `Some` when it was read from a file
    /// others could have written (judged by the very file read, see [`read_judged`]).
    fn read(&self) -> Result<(String, Option<String>)> {
        let file = self.path();
        if let Some((text, verdict)) = read_judged(&file)? {
            return Ok((text, verdict.err()));
        }
        let stored = self
            .store
            .records(|db| db.settings().get(&self.checkout, "source"))?
            .map(|stored| settings::without_what_runs(&stored))
            .unwrap_or_else(|| DEFAULT.to_string());
        Ok((stored, None))
    }

    /// The settings in force. Those that run something apply only while the file holding
    /// them is the owner's alone; else they are set aside and the settings view says why.
    pub(crate) fn current(&self) -> Settings {
        self.in_force(self.read())
    }

    /// The settings `read` (as [`Self::read`] read them) puts in force; the defaults when
    /// it could not be read or parsed, or when it was read from a file others could have
    /// written (then saying why).
    fn in_force(&self, read: Result<(String, Option<String>)>) -> Settings {
        match read {
            Ok((_, Some(why))) => defaults().set_aside(format!(
                "none of the settings in {} apply, the defaults do: {why}",
                self.path().display()
            )),
            Ok((text, None)) => settings::parse(&text).unwrap_or_else(|_| defaults()),
            Err(_) => defaults(),
        }
    }

    /// The text `source/meta/settings.toml` shows: the settings' text, led by why it is not
    /// in force when it is not (a comment, so that the text copied back stays valid; a
    /// write drops it again).
    pub(crate) fn shown_text(&self) -> Result<String> {
        let text = self.text()?;
        Ok(match self.current().set_aside {
            Some(why) => format!("{NOT_IN_FORCE}{why}.\n{text}"),
            None => text,
        })
    }

    /// The settings in force for what reads them often and runs nothing (views: the
    /// navigation's shape, whether the import check is on; memory's following): each of
    /// the hundreds of views a recursive `ls -l` renders asks, so they are read again only
    /// when the file changes, or, where the store's are shown (kept there before settings
    /// moved to the checkout), when another writer changed the store: asking the store
    /// each time would be a round trip per view on PostgreSQL. What runs something always
    /// reads them afresh ([`Self::current`]).
    pub(crate) fn kept(&self) -> Settings {
        let file = std::fs::metadata(self.path()).ok().map(|meta| {
            use std::os::unix::fs::MetadataExt;
            let folder = self
                .path()
                .parent()
                .and_then(|dir| std::fs::symlink_metadata(dir).ok())
                .map_or((0, 0), |dir| (dir.uid(), dir.mode()));
            (
                meta.len(),
                meta.modified().ok(),
                meta.ino(),
                [(meta.uid(), meta.mode()), folder],
            )
        });
        // Only asked when the store's are shown: the file's stamp decides otherwise.
        let store_version = || self.store.data_version().ok();
        let mut shown = crate::tree::lock(&self.shown);
        if let Some(kept) = shown.as_ref()
            && kept.file == file
            && (file.is_some()
                || (kept.store_version.is_some() && kept.store_version == store_version()))
        {
            return kept.settings.clone();
        }
        // Read before the text: a change landing in between makes the next view ask again,
        // where read after it would tag the old text as current.
        let store_version = if file.is_none() {
            store_version()
        } else {
            None
        };
        let read = self.read();
        // Defaults shown for a read that failed are not kept: the next view asks again.
        let store_version = store_version.filter(|_| read.is_ok());
        let settings = self.in_force(read);
        *shown = Some(Shown {
            file,
            store_version,
            settings: settings.clone(),
        });
        settings
    }

    /// Read the settings again at the next view, and apply what takes effect outside the
    /// next edit: the file, or a folder above it, changed outside the mount.
    pub(crate) fn forget(&self) {
        *crate::tree::lock(&self.shown) = None;
        self.apply(&self.current());
    }

    /// Validate and keep new settings; they apply to the next edit. Only the mount's
    /// owner may: they choose the interpreter that runs after the owner's edits. Written
    /// atomically, readable by the owner alone; settings that run something are refused
    /// where the file could not be the owner's alone.
    pub(crate) fn write(&self, content: &[u8]) -> Result<()> {
        if !access::may_run_project_code() {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                "settings.toml was not saved: only the mount's owner may change it, since it \
                 chooses the Python interpreter that runs after each edit",
            ));
        }
        let text = std::str::from_utf8(content)
            .map_err(|_| Error::invalid("settings.toml was not saved: it is not UTF-8"))?;
        // What a read showed first when the file was set aside is not part of it.
        let mut text = text;
        while text.starts_with(NOT_IN_FORCE) {
            text = text.split_once('\n').map_or("", |(_, rest)| rest);
        }
        let content = text.as_bytes();
        let settings = settings::parse(text)?;
        let file = self.path();
        let dir = file.parent().unwrap_or(&self.project.root);
        let failed = |what: &str, e: std::io::Error| {
            Error::internal(format!(
                "settings.toml was not saved: cannot {what} {}: {e}",
                file.display()
            ))
        };
        trust::private_dir(dir, true).map_err(|e| failed("make the folder of", e))?;
        if let Err(why) = trust::owner_alone(dir) {
            return Err(Error::new(
                ErrorKind::PermissionDenied,
                format!(
                    "settings.toml was not saved: settings apply only from a file no one else \
                     can change (import_check.python and tests.args choose what runs as the \
                     mount's owner, the others what it reads and checks), and {why}"
                ),
            ));
        }
        let mut temp = tempfile::Builder::new()
            .prefix(".settings-")
            .tempfile_in(dir)
            .map_err(|e| failed("make a temp file for", e))?;
        temp.write_all(content)
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| failed("write", e))?;
        temp.persist(&file)
            .map_err(|e| failed("replace", e.error))?;
        *crate::tree::lock(&self.shown) = None;
        self.apply(&settings);
        Ok(())
    }

    /// Applies what takes effect outside the next edit: the paths left out.
    pub(crate) fn apply(&self, settings: &Settings) {
        // Validated when written, so the patterns build; were one not to, the old stay.
        let _ = self.project.set_extra_ignore(&settings.ignore);
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::*;
    use crate::model::links::Links;
    use crate::resources::source::Source;
    use crate::store::Store;
    use crate::store::testing::for_each_backend;
    use crate::tree::access::Admission;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// A one-module project in a folder of the owner's alone, mounted over a new store.
    fn source() -> (tempfile::TempDir, PathBuf, Arc<Source>) {
        source_over(Arc::new(Store::in_memory().unwrap()))
    }

    fn source_over(store: Arc<Store>) -> (tempfile::TempDir, PathBuf, Arc<Source>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("app");
        std::fs::create_dir(&root).unwrap();
        chmod(&root, 0o755);
        std::fs::write(
            root.join("pyproject.toml"),
            "[project]\nrequires-python = \">=3.10\"\n",
        )
        .unwrap();
        std::fs::write(root.join("app.py"), "X = 1\n").unwrap();
        let source = Source::new(&root, "app".into(), Links::new("/mnt/hs"), store, 500);
        (dir, root, source)
    }

    fn evil() -> String {
        DEFAULT
            .replace("python = \"\"", "python = \"/tmp/evil.sh\"")
            .replace("args = []", "args = [\"-p\", \"evil\"]")
    }

    #[test]
    fn settings_in_the_store_never_choose_what_runs() {
        for_each_backend(|store| {
            let (_dir, _root, source) = source_over(store);
            // Another user who may write the store (any user of a shared database) plants
            // settings for this checkout.
            let planted = evil().replace("depth = 2", "depth = 3");
            source
                .settings
                .store
                .change_records(|db| {
                    db.settings()
                        .put(&source.settings.checkout, "source", &planted)
                })
                .unwrap();
            let settings = source.settings.current();
            assert_eq!(settings.python, None);
            assert!(settings.test_args.is_empty());
            assert_eq!(settings.nav.depth, 3, "what runs nothing is still read");
            assert!(!source.settings.text().unwrap().contains("evil"));
        });
    }

    #[test]
    fn views_see_the_settings_file_change_however_it_is_written() {
        let (_dir, root, source) = source();
        let _owner = Admission::enter(true);
        assert_eq!(source.kept_settings().nav.depth, 2);
        source
            .settings
            .write(DEFAULT.replace("depth = 2", "depth = 4").as_bytes())
            .unwrap();
        assert_eq!(
            source.kept_settings().nav.depth,
            4,
            "written through the mount"
        );
        // The owner edits the file in place, outside the mount.
        let file = root.join(".homespace/settings.toml");
        std::fs::write(&file, DEFAULT.replace("depth = 2", "depth = 3")).unwrap();
        assert_eq!(source.kept_settings().nav.depth, 3, "edited outside");
        std::fs::remove_file(&file).unwrap();
        assert_eq!(source.kept_settings().nav.depth, 2, "removed: the defaults");
    }

    /// Defaults a view showed because the store's settings could not be read are not kept:
    /// once they can be read again the next view shows them, though no writer changed the
    /// store since (renaming a table announces nothing).
    #[test]
    fn settings_the_store_failed_to_give_are_asked_for_again() {
        let server = crate::store::postgres::scratch::ScratchServer::start().unwrap();
        let url = server.database("homespace").unwrap();
        let (_dir, _root, source) = source_over(Arc::new(Store::connect(&url).unwrap()));
        let another = Store::connect(&url).unwrap();
        let mut admin = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        let depth = || source.kept_settings().nav.depth;
        let soon = |want: usize| {
            (0..200).any(|_| {
                let seen = depth() == want;
                if !seen {
                    std::thread::sleep(Duration::from_millis(25));
                }
                seen
            })
        };
        let text = DEFAULT.replace("depth = 2", "depth = 3");
        another
            .change_records(|db| {
                db.settings()
                    .put(&source.settings.checkout, "source", &text)
            })
            .unwrap();
        assert!(soon(3), "another writer's settings are heard of");
        admin
            .batch_execute("ALTER TABLE settings RENAME TO settings_away")
            .unwrap();
        // Any change by another writer makes views ask again, and the read now fails.
        another
            .change_tasks(|tx| {
                let task = crate::store::tasks::Fields {
                    title: "t".into(),
                    status: crate::store::tasks::Status::Open,
                    priority: 2,
                    tags: Vec::new(),
                    depends_on: Vec::new(),
                    description: String::new(),
                };
                tx.insert("t", &task, crate::model::time::Time::from_unix(0))
            })
            .unwrap();
        assert!(soon(2), "the defaults, while the settings cannot be read");
        admin
            .batch_execute("ALTER TABLE settings_away RENAME TO settings")
            .unwrap();
        assert_eq!(depth(), 3, "asked again at once");
    }

    /// Without a settings file, views show the store's (kept there before settings moved
    /// to the checkout) as last read until another writer changes the store: at once
    /// then, and never by asking the store each time.
    #[test]
    fn views_see_the_stores_settings_change_when_another_writer_changes_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("store.db");
        let (_dir, _root, source) = source_over(Arc::new(Store::open(&file).unwrap()));
        let ours = &source.settings.store;
        let another = Store::open(&file).unwrap();
        let put = |store: &Store, depth: &str| {
            let text = DEFAULT.replace("depth = 2", depth);
            store
                .change_records(|db| {
                    db.settings()
                        .put(&source.settings.checkout, "source", &text)
                })
                .unwrap();
        };
        assert_eq!(source.kept_settings().nav.depth, 2, "the defaults");
        put(&another, "depth = 3");
        assert_eq!(
            source.kept_settings().nav.depth,
            3,
            "another writer's, at once"
        );
        // Nothing of homespace writes them there any more; were this connection to, the
        // views would not look again: they do not ask the store while it is unchanged.
        put(ours, "depth = 4");
        assert_eq!(source.kept_settings().nav.depth, 3, "not asked again");
        put(&another, "depth = 5");
        assert_eq!(source.kept_settings().nav.depth, 5);
    }

    #[test]
    fn settings_are_kept_in_the_checkout_for_the_owner_alone() {
        let (_dir, root, source) = source();
        let _owner = Admission::enter(true);
        let mine = DEFAULT.replace("depth = 2", "depth = 4");
        source.settings.write(mine.as_bytes()).unwrap();
        let file = root.join(".homespace/settings.toml");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);
        assert_eq!(source.settings.text().unwrap(), mine);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&root.join(".homespace")), 0o700);
        assert_eq!(source.settings.current().nav.depth, 4);
        let stored = source
            .settings
            .store
            .records(|db| db.settings().get(&source.settings.checkout, "source"))
            .unwrap();
        assert_eq!(stored, None, "nothing of it reaches the store");
    }

    #[test]
    fn what_runs_is_refused_where_others_could_change_it() {
        let (_dir, root, source) = source();
        let _owner = Admission::enter(true);
        // A project folder its group may write: another user could swap .homespace/.
        chmod(&root, 0o775);
        let refused = source.settings.write(evil().as_bytes()).unwrap_err();
        assert_eq!(
            refused.kind,
            ErrorKind::PermissionDenied,
            "{}",
            refused.message
        );
        assert!(
            refused.message.contains("is writable by group"),
            "{}",
            refused.message
        );
        assert!(!root.join(".homespace/settings.toml").exists());
        // Nor settings that run nothing: they would not apply from there.
        let refused = source.settings.write(DEFAULT.as_bytes()).unwrap_err();
        assert_eq!(refused.kind, ErrorKind::PermissionDenied);

        // Written by the owner, then opened to others: set aside, and said why.
        chmod(&root, 0o755);
        source.settings.write(evil().as_bytes()).unwrap();
        assert_eq!(
            source.settings.current().python,
            Some(PathBuf::from("/tmp/evil.sh"))
        );
        chmod(&root.join(".homespace/settings.toml"), 0o666);
        let settings = source.settings.current();
        assert_eq!(settings.python, None);
        assert!(settings.test_args.is_empty());
        let why = settings.set_aside.unwrap();
        assert!(
            why.contains("settings.toml is writable by everyone"),
            "{why}"
        );
    }

    #[test]
    fn a_settings_file_others_could_write_is_set_aside_whole_and_says_so() {
        let (_dir, root, source) = source();
        let _owner = Admission::enter(true);
        let quiet = DEFAULT
            .replace("enabled = true", "enabled = false")
            .replace("watch = \"default\"", "watch = [\"/home/me/private\"]")
            .replace("depth = 2", "depth = 4");
        source.settings.write(quiet.as_bytes()).unwrap();
        assert!(
            !source.settings.current().import_check,
            "the owner's own file applies"
        );
        chmod(&root.join(".homespace"), 0o777);
        for settings in [source.settings.current(), source.kept_settings()] {
            assert!(settings.import_check, "the default: the check stays on");
            assert_eq!(settings.memory_watch, Watching::Default);
            assert_eq!(settings.nav.depth, 2);
            let why = settings.set_aside.unwrap();
            assert!(why.contains("none of the settings in"), "{why}");
            assert!(why.contains(".homespace is writable by everyone"), "{why}");
        }
        let shown = source.settings.shown_text().unwrap();
        assert!(
            shown.starts_with("# Not in force: none of the settings"),
            "{shown}"
        );
        assert!(shown.ends_with(&quiet), "the file's text follows: {shown}");
        // Copied back by the owner once it is theirs alone again, the lead is dropped.
        chmod(&root.join(".homespace"), 0o700);
        source.settings.write(shown.as_bytes()).unwrap();
        let file = std::fs::read_to_string(root.join(".homespace/settings.toml")).unwrap();
        assert_eq!(file, quiet);
    }

    #[test]
    fn a_file_of_another_users_removed_after_the_read_never_applies() {
        let (_dir, root, source) = source();
        let _owner = Admission::enter(true);
        // Another user's file in a shared (sticky) settings folder, where they may create
        // and delete their own files: it turns the import check off.
        let folder = root.join(".homespace");
        std::fs::create_dir_all(&folder).unwrap();
        chmod(&folder, 0o1777);
        let file = folder.join("settings.toml");
        std::fs::write(&file, DEFAULT.replace("enabled = true", "enabled = false")).unwrap();
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
        let read = source.settings.read();
        // Deleted between the read and the decision, as a racing attacker does: the
        // verdict came with the text read, so the text still does not apply.
        std::fs::remove_file(&file).unwrap();
        let settings = source.settings.in_force(read);
        assert!(settings.import_check, "another user's text set aside");
        let why = settings.set_aside.unwrap();
        assert!(why.contains("settings.toml"), "{why}");
    }
}
