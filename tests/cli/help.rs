use super::*;

#[test]
fn help_of_the_program_and_of_mint() {
    let db = TestDb::sqlite();
    insta::assert_snapshot!("help", ok(&db, &["--help"]));
    insta::assert_snapshot!("mint_help", ok(&db, &["mint", "--help"]));
    insta::assert_snapshot!("order_help", ok(&db, &["order", "--help"]));
}

/// Every command's output may be cut short by its reader (`| head -1`): the command ends
/// quietly, exit 0, never a panic or an error.
#[test]
fn a_reader_that_goes_away_is_no_failure() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let db = TestDb::sqlite();
    ok(&db, &["migrate-v1", &fixture("sample.csv"), "--timezone", "Europe/Zurich"]);
    for args in [
        vec!["completions", "bash"],
        vec!["man"],
        vec!["export", "--year", "2024"],
        vec!["export", "--year", "2024", "--format", "json"],
        vec!["order", "list"],
        vec!["order", "list", "--format", "csv"],
        vec!["order", "list", "--format", "json"],
        vec!["journal"],
        vec!["receipt", "2024-0001", "--stringer", "stefan"],
    ] {
        // The reader goes away after the first line (a short output may fit in the pipe
        // whole), or before anything is written: every write then finds it gone.
        for read_first_line in [true, false] {
            let mut child =
                receipts(&db).args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            let mut first = String::new();
            let reader = child.stdout.take().unwrap();
            if read_first_line {
                BufReader::new(reader).read_line(&mut first).unwrap();
                assert!(!first.is_empty(), "{args:?}");
            } else {
                drop(reader);
            }
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked") && !stderr.contains("error"), "{args:?}: {stderr}");
        }
    }
}

/// The manual: a page for the program and for every command, each with the exit status, the
/// environment, the files and examples; every page another one names exists.
#[test]
fn every_command_has_a_manual_page() {
    let db = TestDb::sqlite();
    let main = ok(&db, &["man"]);
    for section in
        [".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", "DATABASE_URL", "75"]
    {
        assert!(main.contains(section), "{section}");
    }
    let add = ok(&db, &["man", "order", "add"]);
    assert!(
        add.starts_with(".ie") || add.contains(".TH receipts-order-add"),
        "{}",
        &add[..200.min(add.len())]
    );
    assert!(
        add.contains("\\-\\-customer")
            && add.contains(".SH \"EXIT STATUS\"")
            && add.contains("receipts order add"),
        "{add}"
    );
    assert_eq!(
        fails(&db, 2, &["man", "order", "polish"]),
        "error: receipts has no command \"order polish\" (see `receipts --help`)"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = run(&db, &["man", "--out-dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pages: std::collections::BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for page in [
        "receipts.1",
        "receipts-mint.1",
        "receipts-order.1",
        "receipts-order-add.1",
        "receipts-payments-settle.1",
    ] {
        assert!(pages.contains(page), "{page}: {pages:?}");
    }
    for page in &pages {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(text.contains(".SH \"EXIT STATUS\"") && text.contains(".SH FILES"), "{page}");
        // Pages named as receipts\-order(1) in SEE ALSO and subcommand lists.
        for named in text.split("receipts\\-").skip(1) {
            if let Some((name, _)) = named.split_once("(1)") {
                let file = format!("receipts-{}.1", name.replace("\\-", "-"));
                assert!(pages.contains(&file), "{page} names {file}, which does not exist");
            }
        }
    }
    // Written again: the same pages.
    assert_eq!(run(&db, &["man", "--out-dir", dir.path().to_str().unwrap()]).code, 0);
}

/// An export written again to a file that holds the same ledger is done already, as a
/// receipt is; one that differs is refused.
#[test]
fn an_export_to_a_file_that_holds_it_already_succeeds() {
    let db = TestDb::sqlite();
    ok(&db, &["migrate-v1", &fixture("sample.csv"), "--timezone", "Europe/Zurich"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ledger.csv");
    let path = file.to_str().unwrap();
    ok(&db, &["export", "--year", "2024", "-o", path]);
    let again = run(&db, &["export", "--year", "2024", "-o", path]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("holds the same"), "{}", again.stderr);
    assert_eq!(fails(&db, 73, &["export", "--year", "2023", "-o", path]).lines().count(), 1);
}

/// The package installs the manual pages and completions kept in debian/: they are what the
/// program writes now (after a change of a command, `scripts/package-assets` writes them).
#[test]
fn the_packages_manual_pages_and_completions_are_current() {
    let db = TestDb::sqlite();
    let packaged = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("debian");
    let stale = "debian/ is behind the program: run scripts/package-assets";
    let written = tempfile::tempdir().unwrap();
    ok(&db, &["man", "--out-dir", written.path().to_str().unwrap()]);
    assert_eq!(file_names(written.path()), file_names(&packaged.join("man")), "{stale}");
    for name in file_names(written.path()) {
        let now = std::fs::read_to_string(written.path().join(&name)).unwrap();
        assert!(now == std::fs::read_to_string(packaged.join("man").join(&name)).unwrap(), "{name}: {stale}");
    }
    for (shell, file) in [("bash", "receipts.bash"), ("zsh", "_receipts"), ("fish", "receipts.fish")] {
        let now = ok(&db, &["completions", shell]);
        let kept = std::fs::read_to_string(packaged.join("completions").join(file)).unwrap();
        assert!(now == kept.trim_end_matches('\n'), "{file}: {stale}");
    }
}
