//! Bank files and the payments they list, as both doors ask for them: an import is one
//! transaction, a settlement needs its reason.

use crate::db::listed_payments::{settle as settle_listed, ListedPayment};
use crate::db::payments::{Import, Outcome, Report};
use crate::db::{prepare_bulk, Db, DbConn, Loaded, Tenant};
use crate::error::Error;
use std::io::BufRead;

/// Imports a bank file (camt.053/054), as `receipts payments import` and the counter's
/// `/payments/import` do: one file, one transaction (an entry that cannot be read, however
/// late, applies nothing); what was judged from earlier imports is reported only once it is
/// durable (SPEC 16). Returns the message's kind and version, and the report.
pub fn import(
    db: &mut Db,
    reader: impl BufRead,
    name: &str,
    only: Option<&Tenant>,
    dry_run: bool,
) -> Result<(String, Report), Error> {
    let work = |conn: &mut DbConn| {
        prepare_bulk(conn)?;
        let mut import = Import::new(conn, name, only, dry_run)?;
        let message = crate::bank::read(reader, name, |tx| import.push(conn, tx))?;
        Ok((message, import.finish(conn)?))
    };
    let (message, report) = if dry_run { db.read(work)? } else { db.write(work)? };
    if !dry_run && report.count(Outcome::Applied) > 0 {
        db.refresh_statistics(Loaded::Payments);
    }
    if !dry_run && report.lines.iter().any(|line| line.outcome != Outcome::Applied) {
        db.confirm_durable()?;
    }
    Ok((message, report))
}

/// Marks a listed bank transaction handled, with the reason (which must say something),
/// in the journal too.
pub fn settle(
    db: &mut Db,
    tenants: &[Tenant],
    bank_reference: &str,
    reason: &str,
) -> Result<ListedPayment, Error> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::Invalid {
            field: "reason",
            problem: "is empty: say how the payment was handled".into(),
        });
    }
    db.write(|conn| settle_listed(conn, tenants, bank_reference.trim(), reason))
}
