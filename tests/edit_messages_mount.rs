//! Small things a new user trips on, on a real mount (issue 30, items 11 and 15): a comment
//! appended with `echo >>` at the end of a function's symbol file, what a refused `mv`
//! prints, and what a lookup of a symbol's dotted name without `.py` suggests.

mod common;

use common::Mount;

/// The example's `ledger/accounts.py` on disk.
fn accounts(mount: &Mount) -> String {
    std::fs::read_to_string(mount.project.join("src/ledger/accounts.py")).unwrap()
}

#[test]
fn a_comment_indented_at_the_end_of_a_function_is_kept_in_its_body() {
    let mount = Mount::example();
    let debit = "source/ledger/accounts/Account/debit.py";
    let (ok, out) = mount.sh(&format!("echo '    # appended' >> $HS/{debit}"));
    assert!(ok, "{out}");
    let module = accounts(&mount);
    assert!(
        module.contains(
            "        self._balance += amount if self.kind.is_debit_normal() else -amount\n        \
             # appended\n\n    def credit("
        ),
        "the comment is the method's last line, indented as the method's body:\n{module}"
    );
    assert!(
        mount.read(debit).ends_with("-amount\n    # appended\n"),
        "read back, the symbol file shows it:\n{}",
        mount.read(debit)
    );

    // A blank line, then a comment, then blank lines: the comment keeps its blank line, the
    // blank lines after it are not kept (the gap before the next definition stays).
    let parse = "source/ledger.accounts.parse_amount.py";
    let (ok, out) = mount.sh(&format!("printf '\\n    # later\\n\\n\\n' >> $HS/{parse}"));
    assert!(ok, "{out}");
    let module = accounts(&mount);
    assert!(
        module.contains("\n\n    # later\n\n\nclass Account:"),
        "{module}"
    );
    assert!(
        mount.read(parse).ends_with("\n\n    # later\n"),
        "{}",
        mount.read(parse)
    );
}

#[test]
fn a_comment_at_column_0_after_a_function_is_refused_saying_to_indent_it() {
    let mount = Mount::example();
    let before = accounts(&mount);
    let (ok, out) = mount
        .sh("echo '# outside' | tee -a $HS/source/ledger/accounts/Account/debit.py > /dev/null");
    assert!(!ok, "refused: {out}");
    assert!(out.contains("Invalid argument"), "{out}");
    assert_eq!(accounts(&mount), before, "the module is unchanged");
    let errors = mount.read("_errors.md");
    assert!(
        errors.contains("a comment after the definition at its indentation would land")
            && errors.contains("indent it to keep it in the body"),
        "{errors}"
    );
}

/// Run `mv` with `from` and `to` (under the mountpoint); it must fail. Its stderr.
fn refused_mv(mount: &Mount, from: &str, to: &str) -> String {
    let (ok, out) = mount.sh(&format!("LC_ALL=C mv $HS/{from} $HS/{to}"));
    assert!(!ok, "mv {from} {to} should be refused: {out}");
    out
}

#[test]
fn a_refused_mv_says_operation_not_permitted_and_errors_md_says_why() {
    let mount = Mount::example();
    let (ok, out) = mount.sh(r#"echo '{"title": "Ship"}' > $HS/tasks/open/ship.json"#);
    assert!(ok, "{out}");
    let refusals = [
        // A module's folder: definitions and module files are renamed, not the link.
        (
            "source/ledger/accounts",
            "source/ledger/konto",
            "cannot be renamed here: mv renames modules in their package, and classes",
        ),
        // A module the package imports names from: the import check undoes the rename.
        (
            "source/ledger/report.py",
            "source/ledger/summary.py",
            "No module named 'ledger.report'",
        ),
        // A class the package imports by name: the import check undoes the rename.
        (
            "source/ledger/accounts/Account.py",
            "source/ledger/accounts/Konto.py",
            "cannot import name 'Account'",
        ),
        // The test runner's file.
        (
            "source/tests/run",
            "source/tests/go",
            "is the test runner's and keeps its name",
        ),
        // Across resourcespaces.
        (
            "tasks/open/ship.json",
            "memory/ship.json",
            "are in different resourcespaces",
        ),
        // A task name that fails validation.
        (
            "tasks/open/ship.json",
            "tasks/open/Ship_It.json",
            "is not a task file name",
        ),
    ];
    for (from, to, why) in refusals {
        let out = refused_mv(&mount, from, to);
        assert!(
            out.contains("Operation not permitted") && !out.contains("subdirectory of itself"),
            "mv {from} {to}: {out}"
        );
        let errors = mount.read("_errors.md");
        assert!(
            errors.contains(why),
            "mv {from} {to}: [{why}] not in\n{errors}"
        );
    }
    assert!(mount.path("source/ledger/accounts/Account.py").exists());
    assert!(mount.path("tasks/open/ship.json").exists());
}

#[test]
fn a_dotted_symbol_name_without_py_suggests_its_file() {
    let mount = Mount::example();
    for (missing, meant) in [
        (
            "source/ledger.accounts.Account.debit",
            "source/ledger.accounts.Account.debit.py",
        ),
        (
            "source/ledger/accounts/parse_amount",
            "source/ledger/accounts/parse_amount.py",
        ),
    ] {
        let (ok, out) = mount.sh(&format!("cat $HS/{missing}"));
        assert!(!ok && out.contains("No such file or directory"), "{out}");
        let errors = mount.read("_errors.md");
        let at = mount.at.display();
        assert!(
            errors.contains(&format!(
                "{at}/{missing} does not exist. Did you mean {at}/{meant}?"
            )),
            "{errors}"
        );
    }
    // A typo in a dotted name's last part gets the closest name where the other parts
    // lead, as the nested path does, not the package its first part is close to.
    let (ok, _) = mount.sh("cat $HS/source/ledger.accounts.Account.debt.py");
    assert!(!ok);
    let errors = mount.read("_errors.md");
    let meant = mount.path("source/ledger.accounts.Account.debit.py");
    assert!(
        errors.contains(&format!("Did you mean {}?", meant.display())),
        "{errors}"
    );
    // A typo still gets the closest spelling.
    let (ok, _) = mount.sh("cat $HS/source/ledger/acounts.py");
    assert!(!ok);
    let errors = mount.read("_errors.md");
    let closest = mount.path("source/ledger/accounts.py");
    assert!(
        errors.contains(&format!("Did you mean {}?", closest.display())),
        "{errors}"
    );
}
