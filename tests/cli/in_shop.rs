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

/// `receipts setup FLAGS` with the owner's password on standard input, the signing keys
/// going to `keys`.
fn setup(db: &TestDb, keys: &std::path::Path, flags: &[&str], password: &str) -> Output {
    let mut child = receipts(db)
        .env("RECEIPTS_KEY_DIR", keys)
        .arg("setup")
        .args(flags)
        .arg("--password-stdin")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    // A refusal before the password is read (a flag missing) may close the pipe first.
    let _ = writeln!(child.stdin.take().unwrap(), "{password}");
    child.wait_with_output().unwrap().into()
}

const SHOP: &[&str] = &[
    "--language",
    "de",
    "--name",
    "Saitenwerk Muster",
    "--handle",
    "stefan",
    "--country",
    "CH",
    "--timezone",
    "Europe/Zurich",
    "--address",
    "Bahnhofstrasse 1, 8001 Zürich",
    "--email",
    "laden@example.ch",
    "--vat-number",
    "CHE-123.456.788 MWST",
    "--iban",
    "CH93 0076 2011 6238 5295 7",
    "--owner",
    "Stefan",
];

/// How many stringers and accounts the database has.
fn shop_rows(db: &TestDb) -> (Option<i64>, Option<i64>) {
    (db.query_i64("SELECT count(*) FROM stringers"), db.query_i64("SELECT count(*) FROM accounts"))
}

on_both_backends! {
    /// The first run from flags: the stringer, its profile (the currency the country's) and
    /// the owner's account, each value journaled; it ends on where the counter answers, and a
    /// second first run changes nothing.
    fn setup_from_flags_writes_the_shop_once_and_journals_it(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        let out = setup(&db, keys.path(), SHOP, "correct horse battery");
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.stdout.trim_end(), "http://127.0.0.1:8080");
        let shown: serde_json::Value =
            serde_json::from_str(&ok(&db, &["stringer", "show", "stefan", "--format", "json"])).unwrap();
        for (field, value) in [
            ("name", "Saitenwerk Muster"),
            ("timezone", "Europe/Zurich"),
            ("country", "CH"),
            ("currency", "CHF"),
            ("street", "Bahnhofstrasse"),
            ("house_number", "1"),
            ("postcode", "8001"),
            ("town", "Zürich"),
            ("email", "laden@example.ch"),
            ("vat_number", "CHE-123.456.788 MWST"),
            ("iban", "CH9300762011623852957"),
            ("language", "de"),
        ] {
            assert_eq!(shown[field], value, "{field}: {shown}");
        }
        let accounts: Vec<serde_json::Value> =
            serde_json::from_str(&ok(&db, &["account", "list", "--format", "json"])).unwrap();
        assert_eq!(accounts.len(), 1);
        assert_eq!((accounts[0]["username"].as_str(), accounts[0]["role"].as_str()), (Some("stefan"), Some("owner")));
        let profile: Vec<String> = journaled(&db, "profile")
            .iter()
            .map(|e| format!("{}={}", e["field"].as_str().unwrap(), e["new"].as_str().unwrap_or_default()))
            .collect();
        for expected in ["name=Saitenwerk Muster", "country=CH", "iban=CH9300762011623852957", "account=stefan (owner)"] {
            assert!(profile.iter().any(|j| j == expected), "{expected} in {profile:?}");
        }
        // The owner can log in to the counter with that password: checked by the web tests;
        // here, a second first run is refused and changes nothing.
        // The closures' signing key: its file the owner's only, its public key journaled.
        use std::os::unix::fs::PermissionsExt;
        let key = std::fs::metadata(keys.path().join("stefan.ed25519")).unwrap();
        assert_eq!(key.permissions().mode() & 0o777, 0o600);
        assert_eq!(journaled(&db, "key").len(), 1);
        let again = setup(&db, keys.path(), &["--handle", "anna", "--name", "Anna", "--country", "DE", "--owner", "anna"], "correct horse battery");
        assert_eq!(again.code, 1, "{}", again.stderr);
        assert!(
            again.stderr.contains("set up already (stringer stefan)")
                && again.stderr.contains("stringer edit")
                && again.stderr.contains("account add"),
            "{}",
            again.stderr
        );
        assert_eq!(shop_rows(&db), (Some(1), Some(1)));
    }

    /// Each refusal names its flag, with the exit code SPEC 25 gives it, and writes nothing.
    fn setup_refuses_a_missing_or_bad_answer_and_writes_nothing(db: TestDb) {
        let keys = tempfile::tempdir().unwrap();
        let without = |flag: &str| {
            let at = SHOP.iter().position(|f| *f == flag).unwrap();
            [&SHOP[..at], &SHOP[at + 2..]].concat()
        };
        let replaced = |flag: &str, value: &'static str| {
            let mut flags = SHOP.to_vec();
            let at = flags.iter().position(|f| *f == flag).unwrap();
            flags[at + 1] = value;
            flags
        };
        for (flags, password, code, named) in [
            (without("--owner"), "correct horse battery", 2, "--owner"),
            (without("--handle"), "correct horse battery", 2, "--handle"),
            (replaced("--vat-number", "CHE-123.456.789 MWST"), "correct horse battery", 65, "--vat-number"),
            (replaced("--country", "XX"), "correct horse battery", 65, "--country"),
            (replaced("--iban", "CH93 0076 2011 6238 5295 8"), "correct horse battery", 65, "--iban"),
            (without("--address"), "correct horse battery", 65, "--iban"),
            (replaced("--owner", "Stefan Muster"), "correct horse battery", 65, "--owner"),
            (SHOP.to_vec(), "short", 65, "--password"),
        ] {
            let out = setup(&db, keys.path(), &flags, password);
            assert_eq!(out.code, code, "{flags:?}: {}", out.stderr);
            let message = out.stderr.lines().find(|l| l.starts_with("error:")).unwrap_or_default();
            assert!(message.contains(named), "{named}: {}", out.stderr);
            assert_eq!(shop_rows(&db), (Some(0), Some(0)), "{flags:?} wrote nothing");
        }
        assert_eq!(db.query_i64("SELECT count(*) FROM receipt_events"), Some(0));
        assert!(file_names(keys.path()).is_empty(), "no signing key left behind");
    }

    /// `setup --link` gives a new code each time (the setup page takes the newest only, see
    /// the web tests) and none once the shop is set up.
    fn setup_link_prints_a_fresh_address_until_the_shop_is_set_up(db: TestDb) {
        let first = ok(&db, &["setup", "--link"]);
        let second = ok(&db, &["setup", "--link"]);
        for link in [&first, &second] {
            let code = link.strip_prefix("http://127.0.0.1:8080/setup?code=").unwrap_or_else(|| panic!("{link}"));
            assert!(code.len() >= 32 && code.bytes().all(|b| b.is_ascii_hexdigit()), "at least 128 bits: {code}");
        }
        assert_ne!(first, second);
        let keys = tempfile::tempdir().unwrap();
        assert_eq!(setup(&db, keys.path(), SHOP, "correct horse battery").code, 0);
        let refused = fails(&db, 1, &["setup", "--link"]);
        assert!(refused.contains("set up already"), "{refused}");
        assert_eq!(db.query_i64("SELECT count(*) FROM setup_code"), Some(0), "the code was used up");
    }
}

/// At a terminal (a pseudo-terminal made by `script`): the questions in the language chosen
/// first, a refused answer asked again with its reason, the offered answers taken by Enter,
/// the password typed twice.
#[test]
fn setup_at_a_terminal_asks_in_the_chosen_language_and_again_when_refused() {
    let db = TestDb::sqlite();
    // language, name, handle (offered), country (refused, then again), zone (offered),
    // currency (offered: the country's), address, e-mail, VAT, tax number, IBAN, owner,
    // the password twice.
    let typed = "de\nSaitenwerk Muster\n\nXX\nCH\n\n\nBahnhofstrasse 1, 8001 Zürich\n\n\n\n\nstefan\ncorrect horse battery\ncorrect horse battery\n";
    let keys = tempfile::tempdir().unwrap();
    let mut cmd = receipts(&db);
    cmd.env("TZ", "Europe/Zurich")
        .env("RECEIPTS_KEY_DIR", keys.path())
        .args(["-qec", &format!("{} setup", env!("CARGO_BIN_EXE_receipts")), "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut script = Command::new("/usr/bin/script");
    script.env_clear().envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?)))).args(cmd.get_args());
    script
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = script.spawn().expect("util-linux's script");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(typed.as_bytes()).unwrap();
    let out: Output = child.wait_with_output().unwrap().into();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let seen = out.stdout;
    assert!(seen.contains("Name des Geschäfts"), "asked in German: {seen}");
    assert!(seen.contains("Kurzname für die Befehlszeile") && seen.contains("[saitenwerk-muster]"), "{seen}");
    assert!(seen.contains("\"XX\" is not a country code"), "the reason: {seen}");
    assert!(
        seen.contains("Zeitzone [Europe/Zurich]") && seen.contains("Währung (CHF, EUR, ...) [CHF]"),
        "{seen}"
    );
    // (Whether the password is echoed cannot be seen here: the terminal echoes all of the
    // input, typed ahead, before the program turns echo off.)
    let shown: serde_json::Value =
        serde_json::from_str(&ok(&db, &["stringer", "show", "saitenwerk-muster", "--format", "json"]))
            .unwrap();
    assert_eq!((shown["country"].as_str(), shown["currency"].as_str()), (Some("CH"), Some("CHF")));
    assert_eq!(shown["timezone"], "Europe/Zurich");
}
