//! `source/` edits on a real mount, driven by the shell scripts `tests/shell/source_edit_*.sh`
//! (every tool, valid and invalid edits, new and removed symbols and modules, history and
//! undo, concurrent writers, conflicts, the import check), plus what shell cannot drive
//! well: killing the daemon in the middle of edits.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Mount, Random};

#[test]
fn symbol_files_are_edited_with_every_tool() {
    Mount::example().run_script("source_edit_symbols.sh");
}

#[test]
fn module_files_are_edited_with_every_tool() {
    Mount::example().run_script("source_edit_modules.sh");
}

#[test]
fn symbol_files_that_break_the_rules_are_refused_and_explained() {
    Mount::example().run_script("source_edit_refused.sh");
}

#[test]
fn mv_rm_and_new_files_rename_delete_and_add_symbols_and_modules() {
    Mount::example().run_script("source_edit_structure.sh");
}

#[test]
fn every_edit_is_in_the_history_and_can_be_undone() {
    Mount::example().run_script("source_edit_history.sh");
}

#[test]
fn an_edit_that_breaks_the_import_is_rolled_back() {
    Mount::example().run_script("source_edit_import_check.sh");
}

#[test]
fn a_write_never_changes_a_strings_value() {
    Mount::example().run_script("source_edit_strings.sh");
}

#[test]
fn edits_of_a_module_that_already_failed_to_import_land() {
    Mount::example().run_script("source_edit_failing_imports.sh");
}

#[test]
fn saving_over_a_change_made_meanwhile_is_refused() {
    Mount::example().run_script("source_edit_conflict.sh");
}

#[test]
fn eight_writers_editing_eight_methods_at_once_all_land() {
    Mount::example().run_script("source_edit_concurrent.sh");
}

#[test]
fn readers_of_a_module_and_a_symbol_never_see_them_vanish_during_edits() {
    Mount::example().run_script("source_edit_readers.sh");
}

#[test]
fn killing_the_daemon_mid_edit_leaves_every_file_old_or_new() {
    crash_while_editing(12);
}

// Bugs found: each test says what should happen, and its `ignore` what happens instead.

#[test]
fn rm_of_a_module_leaves_the_package_importable() {
    Mount::example().run_script("source_edit_module_rm.sh");
}

#[test]
fn packages_are_copied_in_and_removed_whole_with_the_shells_tools() {
    Mount::example().run_script("source_edit_trees.sh");
}

#[test]
fn setup_py_is_edited_without_being_imported() {
    Mount::example().run_script("source_edit_setup.sh");
}

#[test]
fn touch_of_a_new_symbol_file_reports_the_refusal() {
    Mount::example().run_script("source_edit_touch.sh");
}

#[test]
fn a_refused_vim_write_of_a_symbol_keeps_the_module() {
    Mount::example().run_script("source_edit_vim_refused.sh");
}

#[test]
fn a_refused_vim_write_of_a_module_keeps_the_package() {
    Mount::example().run_script("source_edit_vim_refused_module.sh");
}

#[test]
fn edits_are_validated_without_the_import_check() {
    Mount::example().run_script("source_edit_compile_errors.sh");
}

#[test]
fn a_comment_appended_to_a_symbol_file_reads_back() {
    Mount::example().run_script("source_edit_trailing_comment.sh");
}

#[test]
fn tools_with_other_temp_file_names_work_too() {
    Mount::example().run_script("source_edit_temp_names.sh");
}

#[test]
fn dependencies_are_files_and_their_changes_touch_only_their_own_bytes() {
    Mount::example().run_script("source_deps.sh");
}

#[test]
fn config_tables_are_files_and_their_changes_touch_only_their_own_bytes() {
    Mount::example().run_script("source_config.sh");
}

#[test]
fn settings_apply_at_once() {
    Mount::example().run_script("source_settings.sh");
}

#[test]
fn tests_run_in_the_background_and_their_results_are_files() {
    Mount::example().run_script("source_tests_run.sh");
}

#[test]
fn a_selector_is_split_as_a_shell_splits_it_and_the_command_line_reproduces_the_run() {
    Mount::example().run_script("source_tests_run_shell.sh");
}

#[test]
fn the_runner_is_as_faithful_as_pytest_cache_options_and_collection_errors() {
    Mount::example().run_script("source_tests_faithful.sh");
}

#[test]
fn every_file_of_the_project_is_at_its_path_exact_with_history_and_undo() {
    Mount::example().run_script("source_project_files.sh");
}

#[test]
fn the_changes_view_is_git_status_and_its_diff_is_git_diff_head() {
    Mount::example().run_script("source_changes.sh");
}

#[test]
fn a_regression_made_through_the_mount_names_the_edited_symbol_first() {
    Mount::example().run_script("source_tests_suspects.sh");
}

#[test]
fn a_run_and_its_result_are_one_command_line_and_the_result_names_the_suspects() {
    Mount::example().run_script("source_tests_wait.sh");
}

#[test]
fn a_write_past_the_limit_changes_nothing() {
    Mount::example().run_script("source_edit_too_big.sh");
}

/// The edits the crash test runs in a loop while it kills the daemon under them: whole
/// module writes (cp of four versions of accounts.py), a method replaced (cp of one of two
/// versions of Journal.__len__), a function edited in place (sed -i of totals' docstring).
const EDIT_LOOP: &str = r#"
i=0
while :; do
  i=$(( (i + 1) % 4 ))
  cp "accounts.v$i.py" "$HS/source/ledger/accounts.py"
  cp "len.v$((i % 2)).py" "$HS/source/ledger/journal/Journal/__len__.py"
  sed -i "s/trial-balance rows[^\"]*\"\"\"/trial-balance rows (v$i).\"\"\"/" \
    "$HS/source/ledger/report/totals.py"
done 2> /dev/null
"#;

/// `text` with `from` replaced by `to`, checking that `from` is there.
fn variant(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is in the example");
    text.replacen(from, to, 1)
}

/// The .py files under `dir` that Python cannot parse, with the reason.
fn unparsable(dir: &Path) -> String {
    let out = common::succeed(
        Command::new("python3")
            .arg("-c")
            .arg(
                "import ast, pathlib, sys\n\
             for p in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n\
             \x20   try:\n\
             \x20       ast.parse(p.read_bytes())\n\
             \x20   except (SyntaxError, ValueError) as e:\n\
             \x20       print(p, e)\n",
            )
            .arg(dir),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Files among the project's own files (not in `.homespace/`, homespace's own folder,
/// where temp files are written and swept) whose name starts with `.homespace-`.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if entry.file_name() != ".homespace" {
                    pending.push(path);
                }
            } else if entry
                .file_name()
                .to_string_lossy()
                .starts_with(".homespace-")
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_killed_daemon_leaves_no_temp_files_in_the_project() {
    let (mount, seed) = crash_while_editing(40);
    let left = temp_files(&mount.project);
    assert!(
        left.is_empty(),
        "seed {seed}: temp files left in the project: {left:?}"
    );
}

/// Kill the daemon with SIGKILL at random moments of a loop of edits, `rounds` times,
/// mounting again after each; after each kill every .py file of the project parses and each
/// edited file holds what it held or what one edit wrote, never a mix. Returns the mount
/// (running) and the seed of the random moments.
fn crash_while_editing(rounds: usize) -> (Mount, u64) {
    let mut mount = Mount::example();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut random = Random(seed);
    let src = mount.project.join("src/ledger");
    let dir = mount.dir.path().to_path_buf();

    // Every content each file may have: what it held, or what one of the edits wrote.
    let accounts = std::fs::read_to_string(src.join("accounts.py")).unwrap();
    let journal = std::fs::read_to_string(src.join("journal.py")).unwrap();
    let report = std::fs::read_to_string(src.join("report.py")).unwrap();
    let cent = r#"CENT = Decimal("0.01")"#;
    let len = "        return len(self.transactions)\n";
    let rows = r#"trial-balance rows.""""#;
    let mut allowed: Vec<(&str, Vec<String>)> = vec![
        ("accounts.py", vec![accounts.clone()]),
        ("journal.py", vec![journal.clone()]),
        ("report.py", vec![report.clone()]),
    ];
    for i in 0..4 {
        let version = variant(&accounts, cent, &format!("{cent}  # version {i}"));
        std::fs::write(dir.join(format!("accounts.v{i}.py")), &version).unwrap();
        allowed[0].1.push(version);
        allowed[2].1.push(variant(
            &report,
            rows,
            &format!(r#"trial-balance rows (v{i}).""""#),
        ));
    }
    for i in 0..2 {
        let body = format!("return len(self.transactions)  # version {i}\n");
        std::fs::write(
            dir.join(format!("len.v{i}.py")),
            format!("def __len__(self) -> int:\n    {body}"),
        )
        .unwrap();
        allowed[1]
            .1
            .push(variant(&journal, len, &format!("        {body}")));
    }

    let diffs = |mount: &Mount| {
        std::fs::read_dir(mount.path("source/history"))
            .map(|listing| {
                listing
                    .filter(|e| {
                        e.as_ref()
                            .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".diff"))
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    for round in 0..rounds {
        let context = format!("round {round}, seed {seed}");
        let before = diffs(&mount);
        let mut edits = Command::new("bash")
            .arg("-c")
            .arg(EDIT_LOOP)
            .env("HS", &mount.at)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        // The kill comes after at least one edit of this round landed, however slow the
        // machine (a bound on waiting, not a speed claim), then at a random moment.
        let landed = homespace_testkit::poll::poll_true(
            Duration::from_secs(120),
            Duration::from_millis(5),
            || diffs(&mount) != before,
        );
        assert!(
            landed,
            "{context}: no edit landed in 2 minutes\n{}",
            mount.log_text()
        );
        std::thread::sleep(Duration::from_millis(random.next() % 700));
        mount.kill_daemon();
        // SAFETY: kill(2) of the process group of the edit loop this test started.
        unsafe { libc::kill(-(edits.id() as i32), libc::SIGKILL) };
        let _ = edits.wait();

        let broken = unparsable(&mount.project);
        assert!(
            broken.is_empty(),
            "{context}: files that do not parse:\n{broken}"
        );
        for (name, versions) in &allowed {
            let now = std::fs::read_to_string(src.join(name)).unwrap();
            assert!(
                versions.contains(&now),
                "{context}: {name} is neither what it was nor what an edit wrote:\n{now}"
            );
        }

        mount.restart(&[]);
        let (ok, visible) = mount.sh(r#"find "$HS/source" -name '.homespace-*' -o -name '*.tmp'"#);
        assert!(
            ok && visible.is_empty(),
            "{context}: temp files in source/: {visible}"
        );
        let history = mount.read("source/history/_entry.md");
        assert!(history.contains("routed edit"), "{context}: {history}");
    }

    // The store is consistent: every listed edit has its diff, and editing still works.
    let (ok, out) = mount.sh(
        r#"for d in "$HS"/source/history/*.diff; do head -n 2 "$d" | grep -q '^# edit ' || echo "$d"; done
           cp accounts.v0.py "$HS/source/ledger/accounts.py" || echo "cp failed"
           cmp accounts.v0.py "$PROJECT/src/ledger/accounts.py" || echo "not written""#,
    );
    assert!(
        ok && out.is_empty(),
        "seed {seed}: {out}\n{}",
        mount.log_text()
    );
    // Each round saw an edit land before its kill, and a landed edit stays recorded.
    let edits = diffs(&mount);
    assert!(
        edits >= rounds,
        "seed {seed}: {edits} edits kept of at least {rounds} that landed"
    );
    (mount, seed)
}

#[test]
fn a_test_run_cut_short_by_a_killed_daemon_does_not_block_the_next() {
    let mut mount = Mount::example();
    std::fs::write(
        mount.project.join("tests/slow_cases.py"),
        "import time\n\n\ndef test_sleep():\n    time.sleep(60)\n",
    )
    .unwrap();
    let (ok, out) = mount.sh(r#"printf 'tests/slow_cases.py\n' > req.txt && cp req.txt "$HS/source/tests/run" && head -2 "$HS/source/tests/runs/1/_entry.md""#);
    assert!(ok && out.contains("running"), "{out}");
    mount.kill_daemon();
    mount.restart(&[]);
    std::fs::remove_file(mount.project.join("tests/slow_cases.py")).unwrap();
    let (ok, out) = mount.sh(r#"printf 'tests/test_journal.py\n' > req.txt && cp req.txt "$HS/source/tests/run" && head -2 "$HS/source/tests/runs/1/_entry.md" && cat "$HS/source/tests/runs/1/output.txt""#);
    assert!(ok, "the next run starts: {out}");
    assert!(
        out.contains("runs/1 — error"),
        "the cut-short run is closed as an error: {out}"
    );
    assert!(out.contains("stopped before it ended"), "{out}");
}

#[test]
fn a_test_run_cut_short_by_a_killed_daemon_is_closed_at_the_next_mount() {
    let mut mount = Mount::example();
    // Named for this test alone, so that the pytest the killed daemon leaves behind can be
    // ended here and nowhere else.
    let slow = format!("slow_cases_{}.py", std::process::id());
    std::fs::write(
        mount.project.join("tests").join(&slow),
        "import time\n\n\ndef test_sleep():\n    time.sleep(60)\n",
    )
    .unwrap();
    let (ok, out) = mount.sh(&format!(
        r#"printf 'tests/{slow}\n' > req.txt && cp req.txt "$HS/source/tests/run" && head -2 "$HS/source/tests/runs/1/_entry.md""#
    ));
    assert!(ok && out.contains("running"), "{out}");
    mount.kill_daemon();
    mount.restart(&[]);
    // The read answers at once (a bound, not a speed claim: before, it waited for a run
    // nobody carried out until it was killed).
    let (ok, out) = mount.sh(
        r#"timeout 20 cat "$HS/source/tests/runs/latest/result.md"; echo "exit $?"; head -2 "$HS/source/tests/runs/_entry.md""#,
    );
    let _ = std::process::Command::new("pkill")
        .args(["-f", &slow])
        .status();
    assert!(ok, "{out}");
    assert!(out.contains("exit 0"), "result.md answers: {out}");
    assert!(out.contains("stopped before it ended"), "{out}");
    let runs = out.split("exit 0").nth(1).unwrap_or_default();
    assert!(
        !runs.contains("running"),
        "runs/ no longer says running: {out}"
    );
}

#[test]
fn search_ranks_words_reads_text_files_is_smart_case_and_pages() {
    Mount::example().run_script("search_words.sh");
}

#[test]
fn a_modules_members_are_a_link_that_recursive_walkers_do_not_follow() {
    Mount::example().run_script("source_links.sh");
}
