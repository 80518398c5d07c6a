use super::*;
use receipts::db::mint::mint_in_transaction;
use receipts::db::Tenant;
use receipts::domain::OrderId;

#[test]
fn user_mistakes_get_one_line_and_the_documented_exit_code() {
    let db = TestDb::sqlite();
    let order = shop(&db);
    let mut messages = Vec::new();
    let mut check =
        |code: i32, args: &[&str]| messages.push(format!("{args:?} -> {code}\n{}", fails(&db, code, args)));
    check(1, &["mint", "--order", "99"]);
    check(1, &["mint", "--order", &order, "--stringer", "nobody"]);
    check(2, &["mint", "--order", "abc"]);
    check(2, &["mint", "--order", &order, "--at", "31/12/2025"]);
    check(2, &["mint", "--order", &order, "--at", "2026-03-29 02:30", "--backdate"]);
    check(2, &["order", "add", "--customer", "Roger"]);
    check(2, &["order", "add", "--stringer", "stefan", "--price", "35,50"]);
    check(2, &["stringer", "add", "stefan two"]);
    check(2, &["stringer", "add", "anna", "--timezone", "Mars/Olympus"]);
    check(1, &["stringer", "add", "stefan"]);
    check(1, &["void", "--order", &order, "--reason", "not strung yet"]);
    check(2, &["--database-url", "mysql://localhost/receipts", "stringer", "list"]);
    insta::assert_snapshot!("user_mistakes", messages.join("\n\n"));
}

#[test]
fn an_unreachable_database_is_exit_69_and_never_shows_the_password() {
    let db = TestDb::sqlite();
    let message = fails(
        &db,
        69,
        &["--database-url", "postgres://app:hunter2@127.0.0.1:1/receipts", "stringer", "list"],
    );
    assert!(
        message.starts_with("error: cannot reach the database at postgres://app:***@127.0.0.1:1/receipts"),
        "{message}"
    );
    assert!(!message.contains("hunter2"));
    assert_eq!(message.lines().count(), 1);
}

#[test]
fn a_postgres_database_without_schema_says_to_migrate() {
    let db = TestDb::empty_postgres();
    let message = fails(&db, 1, &["stringer", "list"]);
    assert_eq!(message, "error: cannot list the stringers: the database has no receipts schema yet, or an older one: run `receipts db migrate` first");
}

fn held_lock_makes_mint_exit_75(db: &TestDb) {
    let order = shop(db);
    let second = ok(db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
    let mut holder = db.connect();
    let stefan = holder.read(|conn| Tenant::load(conn, "stefan")).unwrap();
    let message = holder
        .write(|conn| {
            mint_in_transaction(conn, &stefan, OrderId(order.parse().unwrap()), utc("2026-05-01 10:00"))?;
            // While this transaction holds the counter, the program must give up in time.
            Ok::<_, receipts::Error>(fails(
                db,
                75,
                &[
                    "--lock-timeout",
                    "0.2",
                    "mint",
                    "--order",
                    &second,
                    "--at",
                    "2026-05-01 12:00",
                    "--backdate",
                ],
            ))
        })
        .unwrap();
    assert!(message.ends_with("nothing was changed, try again"), "{message}");
    assert_eq!(ok(db, &["mint", "--order", &second, "--at", "2026-05-01 12:00", "--backdate"]), "2026-0002");
}

#[test]
fn a_lock_held_elsewhere_is_exit_75_on_sqlite() {
    held_lock_makes_mint_exit_75(&TestDb::sqlite());
}

#[test]
fn a_lock_held_elsewhere_is_exit_75_on_postgres() {
    held_lock_makes_mint_exit_75(&TestDb::postgres());
}

#[test]
fn a_counter_behind_the_orders_fails_cleanly_and_names_resync() {
    let db = TestDb::sqlite();
    let order = shop(&db);
    ok(&db, &["mint", "--order", &order, "--at", "2026-05-01 10:00", "--backdate"]);
    db.execute("UPDATE receipt_counters SET last_n = 0").unwrap();
    let second = ok(&db, &["order", "add", "--stringer", "stefan", "--price", "35.00"]);
    let message = fails(&db, 1, &["mint", "--order", &second, "--at", "2026-05-02 10:00", "--backdate"]);
    insta::assert_snapshot!("counter_behind", message);
    assert_eq!(db.query_i64("SELECT count(*) FROM orders WHERE receipt_number IS NOT NULL"), Some(1));
}

#[test]
fn a_dot_env_file_and_receipts_stringer_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("from-dotenv.db");
    std::fs::write(dir.path().join(".env"), format!("DATABASE_URL=sqlite://{}\n", database.display()))
        .unwrap();
    let receipts = |args: &[&str], stringer: Option<&str>| {
        let mut cmd = binary();
        cmd.env_clear().env("TZ", "UTC").current_dir(dir.path()).args(args);
        if let Some(handle) = stringer {
            cmd.env("RECEIPTS_STRINGER", handle);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    assert_eq!(receipts(&["stringer", "add", "stefan"], None), "stefan");
    let order = receipts(&["order", "add", "--price", "35.00"], Some("stefan"));
    assert_eq!(
        receipts(&["mint", "--order", &order, "--at", "2026-02-01", "--backdate"], Some("stefan")),
        "2026-0001"
    );
    assert!(database.exists(), "the .env file chose the database");
}
