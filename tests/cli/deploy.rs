//! docs/DEPLOY.md's roles and grants, run as written: the owner migrates, the program's
//! daily role does a day at the shop, the read-only role audits and cannot write.

use super::*;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::PgConnection;

const DEPLOY: &str = include_str!("../../docs/DEPLOY.md");

/// The page's SQL blocks, in order.
fn sql_blocks() -> Vec<String> {
    DEPLOY.split("```sql\n").skip(1).map(|rest| rest.split("```").next().unwrap().to_string()).collect()
}

/// `url` as another role.
fn as_role(url: &str, role: &str) -> String {
    url.replacen("postgres://postgres@", &format!("postgres://{role}@"), 1)
}

fn receipts_as(url: &str, args: &[&str]) -> Output {
    binary().env("DATABASE_URL", url).env("TZ", "UTC").args(args).output().unwrap().into()
}

fn ok_as(url: &str, args: &[&str]) -> String {
    let out = receipts_as(url, args);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    out.stdout.trim().to_string()
}

#[test]
fn the_documented_roles_run_the_shop() {
    let blocks = sql_blocks();
    assert_eq!(blocks.len(), 2, "DEPLOY.md has the roles block and the grants block");
    let name = format!("receipts_deploy_{}", std::process::id());
    let roles = blocks[0].replace("DATABASE receipts", &format!("DATABASE {name}"));
    let grants = blocks[1].replace("DATABASE receipts", &format!("DATABASE {name}"));
    // One statement at a time, as psql sends them: CREATE DATABASE runs in no transaction.
    let mut admin = PgConnection::establish(&pg_admin_url()).unwrap();
    for statement in roles.split(';').filter(|s| !s.trim().is_empty()) {
        admin.batch_execute(statement).unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let superuser = with_database(&pg_admin_url(), &name);
    let _drop = DropDatabase(name.clone());

    let owner = as_role(&superuser, "receipts_owner");
    ok_as(&owner, &["db", "migrate"]);
    PgConnection::establish(&owner).unwrap().batch_execute(&grants).expect("the grants block");

    let app = as_role(&superuser, "receipts_app");
    ok_as(&app, &["stringer", "add", "zoe", "--timezone", "Europe/Zurich"]);
    let order = ok_as(&app, &["order", "add", "--stringer", "zoe", "--price", "35"]);
    assert_eq!(
        ok_as(&app, &["mint", "--order", &order, "--at", "2025-05-01 10:00", "--backdate"]),
        "2025-0001"
    );
    ok_as(&app, &["order", "edit", &order, "--paid-at", "2025-05-02", "--backdate"]);
    let mistake = ok_as(&app, &["order", "add", "--stringer", "zoe", "--price", "35.00"]);
    ok_as(&app, &["order", "delete", &mistake]);
    let copy = ok_as(&app, &["order", "restring", &order]);
    ok_as(&app, &["mint", "--order", &copy, "--at", "2025-05-03 10:00", "--backdate"]);
    ok_as(&app, &["void", "--order", &copy, "--reason", "frame cracked"]);
    ok_as(&app, &["void", "--number", "2025-0003..2025-0004", "--stringer", "zoe", "--reason", "lost"]);
    // An unpaid invoice handed over and reminded, for the post.
    let unpaid = ok_as(&app, &["order", "add", "--stringer", "zoe", "--customer", "Iga", "--price", "40"]);
    ok_as(&app, &["mint", "--order", &unpaid, "--at", "2025-05-04 10:00", "--backdate"]);
    ok_as(&app, &["order", "pickup", &unpaid]);
    ok_as(&app, &["stringer", "edit", "zoe", "--reminder-fee", "2=5"]);
    let post = tempfile::tempdir().unwrap();
    ok_as(&app, &["remind", &unpaid, "--out-dir", post.path().to_str().unwrap()]);
    ok_as(&app, &["resync-counters"]);
    let sample = format!("{}/fixtures/v1/sample.csv", env!("CARGO_MANIFEST_DIR"));
    ok_as(&app, &["migrate-v1", &sample, "--timezone", "Europe/Zurich"]);
    ok_as(&app, &["audit"]);
    // The day's closure, signed with a key outside the database, and the whole journal verified.
    let keys = tempfile::tempdir().unwrap();
    let key = keys.path().join("zoe.ed25519");
    let key = key.to_str().unwrap();
    ok_as(&app, &["key", "init", "--stringer", "zoe", "--key-file", key]);
    ok_as(&app, &["close", "--stringer", "zoe", "--key-file", key]);
    ok_as(&app, &["audit", "--verify"]);
    let refused = receipts_as(&app, &["order", "delete", &order]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);

    let reader = as_role(&superuser, "receipts_reader");
    ok_as(&reader, &["audit"]);
    assert!(ok_as(&reader, &["order", "list", "--stringer", "zoe"]).contains("2025-0001"));
    let denied = receipts_as(&reader, &["order", "add", "--stringer", "zoe", "--price", "35.00"]);
    assert_eq!(denied.code, 1, "{}", denied.stderr);
    assert_eq!(denied.stderr.trim_end().lines().count(), 1, "{}", denied.stderr);
}

struct DropDatabase(String);

impl Drop for DropDatabase {
    fn drop(&mut self) {
        if let Ok(mut admin) = PgConnection::establish(&pg_admin_url()) {
            let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.0));
        }
    }
}
