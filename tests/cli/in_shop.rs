//! SPEC section 25 through the binary, where it is not the package's: the shop's one
//! configuration file, the refusal of another user's SQLite file, and the first run.

use super::*;
use std::os::unix::process::CommandExt;
use support::cluster::is_root;

/// `receipts` with nothing but the clock and the time zone from the caller's environment.
fn bare() -> Command {
    let mut cmd = binary();
    cmd.env("TZ", "UTC").current_dir(std::env::temp_dir());
    cmd
}

fn outcome(cmd: &mut Command) -> Output {
    cmd.output().unwrap().into()
}

/// The stringers' handles a database has, as `stringer list --format json` says.
fn handles(out: &Output) -> Vec<String> {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let list: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
    list.iter().map(|s| s["handle"].as_str().unwrap().to_string()).collect()
}

#[test]
fn the_configuration_file_is_read_below_the_flags_and_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let shop = dir.path().join("shop.sqlite3");
    let other = dir.path().join("other.sqlite3");
    let config = dir.path().join("receipts.conf");
    std::fs::write(
        &config,
        format!(
            "# the shop's database\nDATABASE_URL = {}\n\nRECEIPTS_LISTEN=\"127.0.0.1:0\"\n",
            shop.display()
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    // Named by the flag, in either place, or by the variable: the shop's database.
    assert_eq!(outcome(bare().args(["--config", config, "stringer", "add", "stefan"])).code, 0);
    let listed =
        outcome(bare().args(["stringer", "list", "--format", "json", &format!("--config={config}")]));
    assert_eq!(handles(&listed), ["stefan"]);
    let listed =
        outcome(bare().env("RECEIPTS_CONFIG", config).args(["stringer", "list", "--format", "json"]));
    assert_eq!(handles(&listed), ["stefan"]);
    // The environment, and a flag, say more than the file.
    let added = outcome(
        bare().env("RECEIPTS_CONFIG", config).env("DATABASE_URL", &other).args(["stringer", "add", "anna"]),
    );
    assert_eq!(added.code, 0, "{}", added.stderr);
    let listed = outcome(bare().env("RECEIPTS_CONFIG", config).args([
        "--database-url",
        other.to_str().unwrap(),
        "stringer",
        "list",
        "--format",
        "json",
    ]));
    assert_eq!(handles(&listed), ["anna"]);
    let listed =
        outcome(bare().env("RECEIPTS_CONFIG", config).args(["stringer", "list", "--format", "json"]));
    assert_eq!(handles(&listed), ["stefan"]);
}

#[test]
fn a_configuration_that_cannot_be_used_is_exit_78_naming_the_file_and_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("shop.sqlite3");
    let config = dir.path().join("receipts.conf");
    std::fs::write(&config, format!("DATABASE_URL={}\nlisten 127.0.0.1:8080\n", database.display())).unwrap();
    let shown = config.display().to_string();
    let missing = dir.path().join("missing.conf");
    for (cmd, expected) in [
        (
            bare().args(["--config", &shown, "stringer", "add", "stefan"]),
            format!("error: the configuration {shown} line 2: is neither KEY=value nor a comment"),
        ),
        (
            bare().env("RECEIPTS_CONFIG", &config).args(["stringer", "add", "stefan"]),
            format!("error: the configuration {shown} line 2: is neither KEY=value nor a comment"),
        ),
        (
            bare().args(["stringer", "add", "stefan", "--config", missing.to_str().unwrap()]),
            format!("error: the configuration {}: No such file or directory (os error 2)", missing.display()),
        ),
    ] {
        let out = outcome(cmd);
        assert_eq!(out.code, 78, "{}", out.stderr);
        assert_eq!(out.stderr.trim_end(), expected);
    }
    assert!(!database.exists(), "nothing is written on a bad configuration");
}

#[test]
fn the_daily_backup_takes_its_directory_and_count_from_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let backups = dir.path().join("backups");
    std::fs::create_dir(&backups).unwrap();
    let config = dir.path().join("receipts.conf");
    std::fs::write(
        &config,
        format!(
            "DATABASE_URL={}\nRECEIPTS_BACKUP_DIR={}\nRECEIPTS_BACKUP_KEEP=1\n",
            dir.path().join("shop.sqlite3").display(),
            backups.display()
        ),
    )
    .unwrap();
    let run = |args: &[&str]| outcome(bare().env("RECEIPTS_CONFIG", &config).args(args));
    assert_eq!(run(&["stringer", "add", "stefan"]).code, 0);
    // An older backup of the same name's form, and the owner's own file beside it.
    std::fs::write(backups.join("receipts-20000101-000000.sqlite3"), "old").unwrap();
    std::fs::write(backups.join("before-the-move.sqlite3"), "mine").unwrap();
    let out = run(&["backup"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let names = file_names(&backups);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"before-the-move.sqlite3".to_string()), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("receipts-") && n != "receipts-20000101-000000.sqlite3"),
        "{names:?}"
    );
    // Without the configuration's directory, the backup must be told where.
    let out = outcome(bare().env("DATABASE_URL", dir.path().join("shop.sqlite3")).arg("backup"));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("RECEIPTS_BACKUP_DIR"), "{}", out.stderr);
}

/// The ids of the user `nobody`, which owns nothing else here.
const NOBODY: u32 = 65534;

#[test]
fn another_users_database_is_refused_before_it_is_opened() {
    assert!(is_root(), "this test needs root to give files to another user (CI runs as root)");
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("shop.sqlite3");
    let at = |cmd: &mut Command| {
        cmd.env("DATABASE_URL", &database);
    };
    let mut add = bare();
    at(add.args(["stringer", "add", "stefan"]));
    assert_eq!(outcome(&mut add).code, 0);
    std::os::unix::fs::chown(&database, Some(NOBODY), Some(NOBODY)).unwrap();
    let before = file_names(dir.path());
    // Root, reading and writing: refused, naming the owner and the way.
    for args in [vec!["stringer", "list"], vec!["stringer", "add", "anna"], vec!["db", "migrate"]] {
        let mut cmd = bare();
        at(cmd.args(&args));
        let out = outcome(&mut cmd);
        assert_eq!(out.code, 77, "{args:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.trim_end(),
            format!(
                "error: the database {} belongs to nobody: run it as that user (sudo -u nobody receipts …)",
                database.display()
            )
        );
    }
    assert_eq!(file_names(dir.path()), before, "no -wal or -shm file of root's left beside it");
    // Its owner goes on.
    let mut list = bare();
    at(list.args(["stringer", "list", "--format", "json"]).uid(NOBODY).gid(NOBODY));
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    assert_eq!(handles(&outcome(&mut list)), ["stefan"]);

    // A database not made yet, in a directory only its owner writes to: root makes none.
    let shop_dir = dir.path().join("shop");
    std::fs::create_dir(&shop_dir).unwrap();
    std::fs::set_permissions(&shop_dir, std::os::unix::fs::PermissionsExt::from_mode(0o750)).unwrap();
    std::os::unix::fs::chown(&shop_dir, Some(NOBODY), Some(NOBODY)).unwrap();
    let mut setup = bare();
    setup.env("DATABASE_URL", shop_dir.join("receipts.sqlite3")).args(["stringer", "add", "stefan"]);
    let out = outcome(&mut setup);
    assert_eq!(out.code, 77, "{}", out.stderr);
    assert!(out.stderr.contains("belongs to nobody"), "{}", out.stderr);
    assert!(file_names(&shop_dir).is_empty());

    // A database another user may not reach at all: exit 77 naming it.
    let closed = dir.path().join("closed");
    std::fs::create_dir(&closed).unwrap();
    std::fs::set_permissions(&closed, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let hidden = closed.join("receipts.sqlite3");
    let mut reach = bare();
    reach.env("DATABASE_URL", &hidden).args(["stringer", "list"]).uid(NOBODY).gid(NOBODY);
    let out = outcome(&mut reach);
    assert_eq!(out.code, 77, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with(&format!("error: the database {} cannot be reached by this user", hidden.display())),
        "{}",
        out.stderr
    );
}
