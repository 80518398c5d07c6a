use super::*;

#[test]
fn a_day_at_the_shop_on_sqlite() {
    day_at_the_shop(&TestDb::sqlite().with_clock_at(TESTS_DAY));
}

#[test]
fn a_day_at_the_shop_on_postgres_through_pgbouncer() {
    let bounced = TestDb::empty_postgres().through_pgbouncer().with_clock_at(TESTS_DAY);
    assert!(run(&bounced, &["db", "migrate"]).stderr.contains("applied migration"));
    assert_eq!(run(&bounced, &["db", "migrate"]).stderr.trim(), "the schema is up to date");
    day_at_the_shop(&bounced);
}

fn day_at_the_shop(db: &TestDb) {
    let order = shop(db);
    assert_eq!(order, "1", "order add prints the id alone");
    assert_eq!(ok(db, &["mint", "--order", &order, "--at", "2026-11-21 14:30", "--backdate"]), "2026-0001");
    // Idempotent: the same number again, nothing minted.
    let again = run(db, &["mint", "--order", &order]);
    assert_eq!((again.code, again.stdout.as_str()), (0, "2026-0001\n"));
    assert!(again.stderr.contains("nothing minted"), "{}", again.stderr);

    // New Year in Zurich: 00:30 local is 2025 although UTC is still in 2024.
    let second = ok(db, &["order", "add", "--stringer", "stefan", "--kind", "self", "--customer", "Me"]);
    assert_eq!(ok(db, &["mint", "--order", &second, "--at", "2025-01-01 00:30", "--backdate"]), "2025-0001");

    let restring = ok(db, &["order", "restring", &order]);
    assert_eq!(
        ok(db, &["mint", "--order", &restring, "--at", "2026-11-22T09:00:00Z", "--backdate"]),
        "2026-0002"
    );
    ok(db, &["order", "edit", &order, "--paid-at", "2026-11-22"]);
    ok(db, &["void", "--order", &restring, "--reason", "racket frame cracked"]);
    ok(db, &["order", "unstring", &second]);

    insta::assert_snapshot!("stringer_list", ok(db, &["stringer", "list"]));
    insta::assert_snapshot!("order_list", ok(db, &["order", "list"]));
    insta::assert_snapshot!(
        "order_list_2025",
        ok(db, &["order", "list", "--year", "2025", "--stringer", "stefan"])
    );
    insta::assert_snapshot!("order_show", ok(db, &["order", "show", &order]));
    let json: serde_json::Value =
        serde_json::from_str(&ok(db, &["order", "list", "--format", "json"])).unwrap();
    insta::assert_json_snapshot!("order_list_json", json, {
        "[1].ordered_at" => "[now]",
        "[1].due_at" => "[a day from now]",
        "[2].ordered_at" => "[now]",
        "[2].due_at" => "[a day from now]",
        "[2].voided_at" => "[now]",
    });
}
