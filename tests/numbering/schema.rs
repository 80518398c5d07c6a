use crate::support::*;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use diesel_migrations::MigrationHarness;
use receipts::db::DbConn;
use std::collections::BTreeSet;

#[test]
fn postgres_schema_has_the_documented_shape() {
    let db = TestDb::postgres();
    let one = |sql: &str| assert_eq!(db.query_i64(sql), Some(1), "{sql}");
    one("SELECT count(*) FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'receipt_number' AND data_type = 'text' AND is_nullable = 'YES' AND column_default IS NULL");
    one("SELECT count(*) FROM information_schema.columns WHERE table_name = 'receipt_counters' AND column_name = 'last_n' AND data_type = 'bigint' AND is_nullable = 'NO'");
    one("SELECT count(*) FROM pg_indexes WHERE indexname = 'orders_receipt_number_key' AND indexdef LIKE 'CREATE UNIQUE INDEX % ON public.orders USING btree (stringer_id, receipt_number) WHERE (receipt_number IS NOT NULL)'");
    one("SELECT count(*) FROM pg_indexes WHERE indexname = 'orders_v1_identity_key' AND indexdef LIKE 'CREATE UNIQUE INDEX % (stringer_id, v1_kind, v1_id) WHERE (v1_id IS NOT NULL)'");
    one("SELECT count(*) FROM pg_constraint WHERE conrelid = 'receipt_counters'::regclass AND contype = 'p' AND pg_get_constraintdef(oid) = 'PRIMARY KEY (stringer_id, year)'");
    one("SELECT count(*) FROM pg_constraint WHERE conrelid = 'receipt_counters'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%last_n >= 0%'");
    assert_counters_have_a_floor_and_no_cap(&db);
}

#[test]
fn sqlite_schema_has_the_documented_shape() {
    let db = TestDb::sqlite();
    let one = |sql: &str| assert_eq!(db.query_i64(sql), Some(1), "{sql}");
    one("SELECT count(*) FROM pragma_table_xinfo('orders') WHERE name = 'receipt_number' AND type = 'TEXT' AND \"notnull\" = 0 AND dflt_value IS NULL");
    one("SELECT count(*) FROM pragma_table_xinfo('receipt_counters') WHERE name = 'last_n' AND type = 'BIGINT' AND \"notnull\" = 1");
    one("SELECT count(*) FROM pragma_index_list('orders') WHERE name = 'orders_receipt_number_key' AND \"unique\" = 1 AND partial = 1");
    one("SELECT count(*) FROM sqlite_master WHERE name = 'orders_receipt_number_key' AND sql LIKE '%(stringer_id, receipt_number) WHERE receipt_number IS NOT NULL'");
    one("SELECT count(*) FROM pragma_index_list('orders') WHERE name = 'orders_v1_identity_key' AND \"unique\" = 1 AND partial = 1");
    one("SELECT group_concat(name, ',') = 'stringer_id,year' FROM (SELECT name FROM pragma_table_xinfo('receipt_counters') WHERE pk > 0 ORDER BY pk)");
    assert_counters_have_a_floor_and_no_cap(&db);
}

fn assert_counters_have_a_floor_and_no_cap(db: &TestDb) {
    let mut conn = db.connect();
    stringer(&mut conn, "stefan", "UTC");
    let insert = |year: i32, last_n: i64| {
        db.execute(&format!(
            "INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at) \
             SELECT id, {year}, {last_n}, created_at, created_at FROM stringers"
        ))
    };
    assert!(insert(2026, -1).is_err(), "a negative counter was accepted");
    insert(2026, 1_000_000).expect("a counter far past 9999 is fine");
}

#[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Column {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
}

#[test]
fn both_migration_trees_have_the_same_steps_and_build_the_same_tables() {
    let steps = |tree: &str| -> BTreeSet<String> {
        std::fs::read_dir(format!("{}/migrations/{tree}", env!("CARGO_MANIFEST_DIR")))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(steps("postgres"), steps("sqlite"));
    assert!(!steps("postgres").is_empty());

    let pg = TestDb::postgres();
    let lite = TestDb::sqlite();
    let pg_columns: BTreeSet<Column> = pg.connect().without_transaction(|c| {
    diesel::sql_query(
        "SELECT table_name::text AS table_name, column_name::text AS column_name FROM information_schema.columns \
         WHERE table_schema = 'public' AND table_name <> '__diesel_schema_migrations'",
    )
    .load(c)
    })
    .unwrap()
    .into_iter()
    .collect();
    // SQLite's full-text index of the register (`customers_text` and its shadow tables) is
    // what PostgreSQL's trigram indexes are there: not tables of the schema.
    let lite_columns: BTreeSet<Column> = lite.connect().without_transaction(|c| {
    diesel::sql_query(
        "SELECT m.name AS table_name, c.name AS column_name FROM sqlite_master m, pragma_table_xinfo(m.name) c \
         WHERE m.type = 'table' AND m.name <> '__diesel_schema_migrations' \
         AND m.name NOT LIKE 'customers\\_text%' ESCAPE '\\'",
    )
    .load(c)
    })
    .unwrap()
    .into_iter()
    .collect();
    assert_eq!(pg_columns, lite_columns);
    assert!(pg_columns.iter().any(|c| c.table_name == "receipt_events"));
}

fn up_down_up(db: &TestDb) {
    let mut conn = db.connect();
    conn.without_transaction(|raw| match raw {
        DbConn::Postgres(c) => {
            c.run_pending_migrations(receipts::db::POSTGRES_MIGRATIONS).unwrap();
            c.revert_all_migrations(receipts::db::POSTGRES_MIGRATIONS).unwrap();
            c.run_pending_migrations(receipts::db::POSTGRES_MIGRATIONS).unwrap();
        }
        DbConn::Sqlite(c) => {
            // Connecting already applied them.
            c.revert_all_migrations(receipts::db::SQLITE_MIGRATIONS).unwrap();
            c.run_pending_migrations(receipts::db::SQLITE_MIGRATIONS).unwrap();
        }
    });
    let stefan = stringer(&mut conn, "stefan", "UTC");
    let a = order(&mut conn, &stefan);
    receipts::ops::mint::mint(&mut conn, &stefan, a, utc("2026-01-01 10:00")).unwrap();
}

#[test]
fn postgres_migrations_go_up_down_and_up_again() {
    up_down_up(&TestDb::empty_postgres());
}

#[test]
fn sqlite_migrations_go_up_down_and_up_again() {
    up_down_up(&TestDb::sqlite());
}

/// A connection that applies no migrations of its own.
fn raw(db: &TestDb) -> DbConn {
    match db.backend {
        Backend::Postgres => DbConn::Postgres(diesel::PgConnection::establish(&db.url).unwrap()),
        Backend::Sqlite => {
            let mut conn = diesel::SqliteConnection::establish(&db.url).unwrap();
            // The program's SQL functions, which its migrations call, as every connection
            // the program opens has them.
            receipts::db::register_functions(&mut conn).unwrap();
            DbConn::Sqlite(conn)
        }
    }
}

/// A database at the first release's schema, holding `handles`; then the remaining
/// migrations. Returns their outcome and the handles afterwards.
fn fold_handles_of_an_old_database(db: &TestDb, handles: &[&str]) -> (Result<(), String>, Vec<String>) {
    let mut conn = raw(db);
    let first_release = 2;
    for _ in 0..first_release {
        match &mut conn {
            DbConn::Postgres(c) => c.run_next_migration(receipts::db::POSTGRES_MIGRATIONS).map(drop),
            DbConn::Sqlite(c) => c.run_next_migration(receipts::db::SQLITE_MIGRATIONS).map(drop),
        }
        .unwrap();
    }
    for handle in handles {
        conn.batch_execute(&format!(
            "INSERT INTO stringers (handle, name, timezone, created_at, updated_at) \
             VALUES ('{handle}', '{handle}', 'UTC', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
        ))
        .unwrap();
    }
    let migrated = match &mut conn {
        DbConn::Postgres(c) => c.run_pending_migrations(receipts::db::POSTGRES_MIGRATIONS).map(drop),
        DbConn::Sqlite(c) => c.run_pending_migrations(receipts::db::SQLITE_MIGRATIONS).map(drop),
    }
    .map_err(|e| e.to_string());
    #[derive(QueryableByName)]
    struct Handle {
        #[diesel(sql_type = Text)]
        handle: String,
    }
    let handles = diesel::sql_query("SELECT handle FROM stringers ORDER BY handle")
        .load::<Handle>(&mut raw(db))
        .unwrap()
        .into_iter()
        .map(|h| h.handle)
        .collect();
    (migrated, handles)
}

fn old_database(backend: Backend) -> TestDb {
    match backend {
        Backend::Postgres => TestDb::empty_postgres(),
        Backend::Sqlite => TestDb::sqlite(),
    }
}

crate::on_both_backends! {
    fn existing_handles_are_folded_to_lowercase(db: TestDb) {
        let db = old_database(db.backend);
        let (migrated, handles) = fold_handles_of_an_old_database(&db, &["Stefan", "anna"]);
        assert_eq!(migrated, Ok(()));
        assert_eq!(handles, vec!["anna", "stefan"]);
    }

    fn handles_that_differ_only_in_case_stop_the_migration(db: TestDb) {
        let db = old_database(db.backend);
        let (migrated, handles) = fold_handles_of_an_old_database(&db, &["Stefan", "stefan", "anna"]);
        let error = migrated.unwrap_err();
        assert!(error.contains("differ only in case"), "{error}");
        assert_eq!(handles, vec!["Stefan", "anna", "stefan"], "nothing was changed");
    }
}

crate::on_both_backends! {
    /// SPEC 9: every `created_at` and `updated_at` is filled by the database when a row is
    /// written without it.
    fn every_created_and_updated_time_has_a_default(db: TestDb) {
        let without_default = match db.backend {
            Backend::Postgres => db.query_i64(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' \
                 AND column_name IN ('created_at', 'updated_at') AND column_default IS NULL",
            ),
            Backend::Sqlite => db.query_i64(
                "SELECT count(*) FROM sqlite_master AS t, pragma_table_xinfo(t.name) AS c \
                 WHERE t.type = 'table' AND c.name IN ('created_at', 'updated_at') AND c.dflt_value IS NULL",
            ),
        };
        assert_eq!(without_default, Some(0));
        let with_default = match db.backend {
            Backend::Postgres => db.query_i64(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' \
                 AND table_name = 'sessions' AND column_name = 'created_at' AND column_default IS NOT NULL",
            ),
            Backend::Sqlite => db.query_i64(
                "SELECT count(*) FROM pragma_table_xinfo('sessions') WHERE name = 'created_at' AND dflt_value IS NOT NULL",
            ),
        };
        assert_eq!(with_default, Some(1), "sessions.created_at has its default");
    }
}

crate::on_both_backends! {
    /// One list of journal kinds: the database's trigger refuses exactly the kinds the
    /// program does not know.
    fn the_journals_kinds_are_the_programs(db: TestDb) {
        let definition = match db.backend {
            Backend::Postgres => db.query_text("SELECT pg_get_functiondef('receipt_events_known_kinds'::regproc)"),
            Backend::Sqlite => {
                db.query_text("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'receipt_events_known_kinds'")
            }
        }
        .expect("the trigger of known kinds");
        let list = definition.split("NOT IN").nth(1).and_then(|rest| rest.split(')').next()).expect("its NOT IN list");
        let in_database: BTreeSet<&str> = list.split('\'').skip(1).step_by(2).collect();
        use strum::VariantArray;
        let in_program: BTreeSet<&str> = receipts::domain::EventKind::VARIANTS.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(in_database, in_program);
    }
}
