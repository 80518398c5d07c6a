//! The twin paths proven equal: the mint exists as plpgsql and as Rust, the schema as two
//! migration trees. One script of operations runs on both backends and must leave the same
//! orders, counters and journal; both trees must build the same columns, types, indexes,
//! CHECK constraints and protective triggers.

use crate::support::*;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use receipts::db::orders::{self, OrderChanges};
use receipts::db::resync::Options;
use receipts::domain::{NumberRange, OrderKind, ReceiptNumber};
use receipts::ops::mint::mint;
use receipts::ops::resync::resync_counters;
use receipts::ops::void::{lost_numbers as void_lost_numbers, order as void_order};
use std::collections::BTreeSet;

/// Everything the numbering left behind, ids and times aside.
#[derive(Debug, PartialEq, Eq)]
struct State {
    orders: Vec<String>,
    counters: Vec<String>,
    journal: Vec<String>,
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Text)]
    line: String,
}

fn lines(db: &TestDb, sql: &str) -> Vec<String> {
    let mut rows: Vec<String> = db
        .connect()
        .without_transaction(|c| diesel::sql_query(sql).load::<Row>(c))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .map(|r| r.line)
        .collect();
    rows.sort();
    rows
}

/// Mints, a double mint, an unstring and a re-mint, voids (of an order and of lost
/// numbers), a restring, a resync after a hand-made restore, and a V1 import.
fn script(db: &TestDb) -> State {
    let mut conn = db.connect();
    let stefan = stringer(&mut conn, "stefan", "Europe/Zurich");
    let anna = stringer(&mut conn, "anna", "UTC");
    let about = |customer: &str| OrderChanges {
        customer: Some(customer.into()),
        price_minor: Some(3550),
        ..Default::default()
    };
    let take = |conn: &mut receipts::db::Db, tenant, customer: &str| {
        conn.write(|c| {
            orders::add(c, tenant, OrderKind::Client, Some(utc("2025-01-02 08:00")), &about(customer))
        })
        .unwrap()
    };
    let (a, b, c) =
        (take(&mut conn, &stefan, "A"), take(&mut conn, &stefan, "B"), take(&mut conn, &stefan, "C"));
    mint(&mut conn, &stefan, a, utc("2025-12-31 23:30")).unwrap(); // 2026 in Zurich
    mint(&mut conn, &stefan, a, utc("2026-02-01 10:00")).unwrap(); // the same number again
    mint(&mut conn, &stefan, b, utc("2026-02-02 10:00")).unwrap();
    conn.write(|c| orders::unstring(c, &stefan, b)).unwrap();
    mint(&mut conn, &stefan, b, utc("2026-02-03 10:00")).unwrap(); // strung again, same number
    mint(&mut conn, &stefan, c, utc("2026-02-04 10:00")).unwrap();
    void_order(&mut conn, &stefan, c, "frame cracked").unwrap();
    let copy = conn.write(|conn| orders::restring(conn, &stefan, c)).unwrap();
    mint(&mut conn, &stefan, copy, utc("2026-02-05 10:00")).unwrap();
    let lost = NumberRange { first: ReceiptNumber::new(2026, 5), last: ReceiptNumber::new(2026, 6) };
    void_lost_numbers(&mut conn, &stefan, lost, "lost in a restore", false).unwrap();
    let d = take(&mut conn, &anna, "D");
    mint(&mut conn, &anna, d, utc("2026-03-01 10:00")).unwrap();
    // A restore that lost anna's counter row.
    db.execute(&format!("DELETE FROM receipt_counters WHERE stringer_id = {}", anna.id().0)).unwrap();
    resync_counters(&mut conn, Options::default()).unwrap();
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/v1/sample.csv");
    let options = receipts::v1::Options { timezone: Some(chrono_tz::Europe::Zurich), ..Default::default() };
    receipts::v1::migrate_v1(&mut conn, &sample, &options).unwrap();

    // Instants are read as instants: each backend spells them its own way as text.
    let mut orders: Vec<String> = Vec::new();
    conn.read(|c| {
        receipts::db::listings::for_each(c, None, &Default::default(), None, |_, listed| {
            let o = listed.order;
            orders.push(format!(
                "{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}",
                listed.stringer.handle(),
                o.kind,
                o.customer,
                o.price,
                o.strung_at,
                o.paid_at,
                o.number,
                o.void_reason,
                o.v1,
                o.notes,
                o.restring_of.is_some()
            ));
            Ok(())
        })
    })
    .unwrap();
    orders.sort();
    State {
        orders,
        counters: lines(
            db,
            "SELECT s.handle || '|' || CAST(c.year AS TEXT) || '|' || CAST(c.last_n AS TEXT) AS line \
             FROM receipt_counters c JOIN stringers s ON s.id = c.stringer_id",
        ),
        journal: lines(
            db,
            "SELECT e.kind || '|' || s.handle || '|' || CAST(e.year AS TEXT) || '|' || COALESCE(CAST(e.first_seq AS TEXT), '') \
             || '|' || COALESCE(CAST(e.last_seq AS TEXT), '') || '|' || COALESCE(o.receipt_number, '') \
             || '|' || COALESCE(CAST(e.counter_old AS TEXT), '') || '|' || COALESCE(CAST(e.counter_new AS TEXT), '') \
             || '|' || COALESCE(e.reason, '') AS line \
             FROM receipt_events e JOIN stringers s ON s.id = e.stringer_id LEFT JOIN orders o ON o.id = e.order_id",
        ),
    }
}

#[test]
fn one_script_leaves_the_same_numbering_on_both_backends() {
    let (lite, pg) = (script(&TestDb::sqlite()), script(&TestDb::postgres()));
    assert!(lite.orders.len() > 300 && lite.journal.len() > 10, "{lite:?}");
    assert_eq!(lite.counters, pg.counters);
    assert_eq!(lite.journal, pg.journal);
    assert_eq!(lite.orders.len(), pg.orders.len());
    for (a, b) in lite.orders.iter().zip(&pg.orders) {
        assert_eq!(a, b);
    }
}

/// (table, column, type, nullable), in words both backends share.
fn columns(db: &TestDb) -> BTreeSet<(String, String, String, bool)> {
    #[derive(QueryableByName)]
    struct Column {
        #[diesel(sql_type = Text)]
        table_name: String,
        #[diesel(sql_type = Text)]
        column_name: String,
        #[diesel(sql_type = Text)]
        data_type: String,
        #[diesel(sql_type = Bool)]
        nullable: bool,
        #[diesel(sql_type = Bool)]
        key: bool,
    }
    let sql = match db.backend {
        Backend::Postgres => {
            "SELECT c.table_name::text AS table_name, c.column_name::text AS column_name, c.data_type::text AS data_type, \
             c.is_nullable = 'YES' AS nullable, c.column_name = 'id' AS key FROM information_schema.columns c \
             WHERE c.table_schema = 'public' AND c.table_name <> '__diesel_schema_migrations'"
        }
        Backend::Sqlite => {
            "SELECT m.name AS table_name, c.name AS column_name, c.type AS data_type, c.\"notnull\" = 0 AND c.pk = 0 AS nullable, \
             c.pk = 1 AND c.name = 'id' AS key FROM sqlite_master m, pragma_table_xinfo(m.name) c \
             WHERE m.type = 'table' AND m.name <> '__diesel_schema_migrations' \
             AND m.name NOT LIKE 'customers\\_text%' ESCAPE '\\'"
        }
    };
    db.connect()
        .without_transaction(|c| diesel::sql_query(sql).load::<Column>(c))
        .unwrap()
        .into_iter()
        .map(|c| {
            // SQLite's INTEGER PRIMARY KEY is the row id, a 64-bit integer like BIGSERIAL.
            let data_type = match (c.data_type.to_lowercase().as_str(), c.key) {
                (_, true) => "bigint".to_string(),
                ("bigint", _) => "bigint".to_string(),
                ("integer", _) => "integer".to_string(),
                ("text", _) => "text".to_string(),
                ("timestamp" | "timestamp without time zone", _) => "timestamp".to_string(),
                (other, _) => other.to_string(),
            };
            (c.table_name, c.column_name, data_type, c.nullable)
        })
        .collect()
}

/// (index, unique, columns, predicate) with predicates in one spelling.
fn indexes(db: &TestDb) -> BTreeSet<(String, bool, String, String)> {
    #[derive(QueryableByName)]
    struct Index {
        #[diesel(sql_type = Text)]
        name: String,
        #[diesel(sql_type = Bool)]
        is_unique: bool,
        #[diesel(sql_type = Text)]
        columns: String,
        #[diesel(sql_type = Nullable<Text>)]
        predicate: Option<String>,
    }
    let sql = match db.backend {
        Backend::Postgres => {
            "SELECT i.relname::text AS name, x.indisunique AS is_unique, \
             (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n) \
              JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum) AS columns, \
             pg_get_expr(x.indpred, x.indrelid) AS predicate \
             FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid \
             JOIN pg_namespace n ON n.oid = t.relnamespace \
             WHERE n.nspname = 'public' AND t.relname <> '__diesel_schema_migrations' \
             AND i.relname NOT LIKE '%\\_trgm\\_idx' \
             AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)"
        }
        Backend::Sqlite => {
            "SELECT l.name AS name, l.\"unique\" = 1 AS is_unique, \
             (SELECT group_concat(name, ',') FROM (SELECT i.name FROM pragma_index_info(l.name) i ORDER BY i.seqno)) AS columns, \
             CASE WHEN l.partial = 1 THEN substr(m.sql, instr(m.sql, 'WHERE') + 6) END AS predicate \
             FROM sqlite_master t, pragma_index_list(t.name) l JOIN sqlite_master m ON m.name = l.name \
             WHERE t.type = 'table' AND l.origin = 'c'"
        }
    };
    let spell =
        |p: &str| p.replace(['(', ')'], "").split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    db.connect()
        .without_transaction(|c| diesel::sql_query(sql).load::<Index>(c))
        .unwrap()
        .into_iter()
        .map(|i| (i.name, i.is_unique, i.columns, i.predicate.as_deref().map(spell).unwrap_or_default()))
        .collect()
}

/// CHECK constraints per table, and the (table, event) pairs a trigger guards.
#[derive(Debug, PartialEq, Eq)]
struct Guards {
    checks: BTreeSet<(String, i64)>,
    triggers: BTreeSet<(String, String)>,
}

fn guards(db: &TestDb) -> Guards {
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = Text)]
        name: String,
        #[diesel(sql_type = BigInt)]
        checks: i64,
    }
    #[derive(QueryableByName)]
    struct Guard {
        #[diesel(sql_type = Text)]
        name: String,
        #[diesel(sql_type = Text)]
        event: String,
    }
    let mut conn = db.connect();
    let checks: Vec<Count> = conn.without_transaction(|conn| match db.backend {
        Backend::Postgres => diesel::sql_query(
            "SELECT c.conrelid::regclass::text AS name, count(*) AS checks FROM pg_constraint c \
             JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'c' AND n.nspname = 'public' GROUP BY 1",
        )
        .load(conn),
        // SQLite keeps constraints in the table's CREATE statement only.
        Backend::Sqlite => diesel::sql_query(
            "SELECT name, (length(sql) - length(replace(sql, 'CHECK (', ''))) / 7 AS checks FROM sqlite_master \
             WHERE type = 'table' AND sql LIKE '%CHECK (%'",
        )
        .load(conn),
    })
    .unwrap();
    let triggers: Vec<Guard> = conn.without_transaction(|conn| match db.backend {
        Backend::Postgres => diesel::sql_query(
            "SELECT event_object_table::text AS name, event_manipulation::text AS event FROM information_schema.triggers \
             WHERE trigger_schema = 'public'",
        )
        .load(conn),
        Backend::Sqlite => diesel::sql_query(
            "SELECT tbl_name AS name, CASE WHEN sql LIKE '%DELETE ON%' THEN 'DELETE' WHEN sql LIKE '%INSERT ON%' THEN 'INSERT' ELSE 'UPDATE' END AS event \
             FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE 'customers\\_text%' ESCAPE '\\'",
        )
        .load(conn),
    })
    .unwrap();
    Guards {
        checks: checks.into_iter().map(|c| (c.name, c.checks)).collect(),
        triggers: triggers.into_iter().map(|t| (t.name, t.event)).collect(),
    }
}

/// The register's search index is each backend's own (SPEC 18): PostgreSQL's trigram indexes
/// (`*_trgm_idx`), SQLite's FTS5 table `customers_text` with the triggers that keep it. The
/// parity below leaves them out; here each backend is shown to have its own.
#[test]
fn each_backend_indexes_the_registers_search_its_own_way() {
    let (pg, lite) = (TestDb::postgres(), TestDb::sqlite());
    let trigram_indexes = pg.query_i64(
        "SELECT count(*) FROM pg_indexes WHERE tablename = 'customers' AND indexdef LIKE '%USING gin (% gin_trgm_ops)'",
    );
    assert_eq!(trigram_indexes, Some(3), "names, e-mails and phone digits");
    let fts = lite.query_i64(
        "SELECT count(*) FROM sqlite_master WHERE name = 'customers_text' AND sql LIKE '%fts5%trigram%'",
    );
    let keepers = lite.query_i64("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'customers' AND name LIKE 'customers_text_%'");
    assert_eq!(
        (fts, keepers),
        (Some(1), Some(3)),
        "the FTS5 table and its insert, update and delete triggers"
    );
}

#[test]
fn both_trees_build_the_same_columns_types_indexes_checks_and_triggers() {
    let (pg, lite) = (TestDb::postgres(), TestDb::sqlite());
    assert_eq!(columns(&pg), columns(&lite));
    assert_eq!(indexes(&pg), indexes(&lite));
    let (pg_guards, lite_guards) = (guards(&pg), guards(&lite));
    assert_eq!(pg_guards, lite_guards);
    assert!(pg_guards.triggers.contains(&("orders".into(), "DELETE".into())));
    assert!(pg_guards.triggers.contains(&("receipt_events".into(), "UPDATE".into())));
    assert!(pg_guards.checks.contains(&("orders".into(), 14)), "{pg_guards:?}");
}

#[derive(QueryableByName)]
struct Folded {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    folded: Option<String>,
}

/// `receipts_fold` in SQL gives what `domain::fold` gives, on both backends, for every
/// letter folded, in both cases, among spaces of every kind, and for text left alone.
#[test]
fn both_backends_fold_text_as_the_program_does() {
    let letters: String = receipts::domain::folded_letters().collect();
    let samples = [
        letters.clone(),
        letters.to_lowercase(),
        " \t Müller\r\n\x0b\x0cJean-François  ".to_string(),
        "Ώ Жуков 李 ß ẞ ǅ".to_string(),
        String::new(),
    ];
    for db in [TestDb::postgres(), TestDb::sqlite()] {
        let mut conn = db.connect();
        for sample in &samples {
            let placeholder = if db.backend == Backend::Sqlite { "?" } else { "$1" };
            let folded = conn
                .read(|c| {
                    Ok(diesel::sql_query(format!("SELECT receipts_fold({placeholder}) AS folded"))
                        .bind::<Text, _>(sample)
                        .get_result::<Folded>(c)?)
                })
                .unwrap();
            assert_eq!(
                folded.folded.as_deref(),
                Some(receipts::domain::fold(sample).as_str()),
                "{:?}: {sample:?}",
                db.backend
            );
        }
    }
}
