//! Credit notes, as both doors ask for them: a document the customer holds taken back in
//! full or in part (`db::credits` holds the rules), issued now in one statement where the
//! database allows, and reported only once durable.

use super::Whose;
use crate::db::credits::{self, CreditNote, Credited};
use crate::db::failure::{classify, Failure, Unique};
use crate::db::mint::Chronology;
use crate::db::{counters, Db, Tenant};
use crate::domain::{
    check_past, local_year, now_utc, CreditNumber, OrderId, PaymentMethod, Price, Refund, Series, Timestamp,
};
use crate::error::Error;

/// A credit as a door asks for it.
#[derive(Debug, Clone)]
pub struct Request {
    pub order: OrderId,
    /// None: all that is left (a full credit, safe to repeat).
    pub amount: Option<Price>,
    pub refund: Option<Refund>,
    pub reason: String,
    /// When it was issued, if not now.
    pub at: Option<Timestamp>,
    /// `--backdate`: an `at` before the year's last credit note, or before last year.
    pub backdate: bool,
    /// The counter's one-time form token.
    pub token: Option<String>,
}

/// Issues a credit note of the order for the stringer known or named (else the order's
/// owner).
pub fn credit(db: &mut Db, whose: Whose, request: &Request) -> Result<(Tenant, Credited), Error> {
    let reason = request.reason.trim();
    if reason.is_empty() {
        return Err(Error::Invalid {
            field: "reason",
            problem: "is empty, and a credit note needs a reason".into(),
        });
    }
    // The usual credit in one statement; a form's token is checked the long way.
    // A refund at the counter takes the long way, which asks the country's till law.
    let at_the_counter = request
        .refund
        .and_then(Refund::method)
        .is_some_and(|m| !matches!(m, PaymentMethod::Transfer | PaymentMethod::Till));
    if request.at.is_none() && request.token.is_none() && !at_the_counter {
        if let Some(done) = credit_now(db, whose, request, reason)? {
            return Ok(done);
        }
    }
    let tenant = whose.of_order(db, request.order)?;
    let (issued_at, chronology) = match request.at {
        None => (now_utc(), Chronology::Unchecked),
        Some(at) => {
            let at = at.resolve(tenant.zone()).map_err(Error::Usage)?;
            check_past(at, now_utc(), tenant.zone(), request.backdate, "issued")?;
            (at, if request.backdate { Chronology::Backdated } else { Chronology::Checked })
        }
    };
    let asked = credits::Request {
        order: request.order,
        amount: request.amount,
        refund: request.refund,
        reason,
        issued_at,
        chronology,
        token: request.token.as_deref(),
    };
    let credited = match db.write(|conn| credits::credit(conn, &tenant, &asked)) {
        Ok(credited) => credited,
        Err(Error::Database(e)) if classify(&e) == Failure::UniqueViolation(Unique::CreditNumber) => {
            let year = local_year(issued_at, tenant.zone());
            let last_n = db.read(|conn| Ok(counters::last_n(conn, &tenant, Series::Credits, year)?))?;
            return Err(Error::CreditCounterBehind {
                stringer: tenant.handle().to_string(),
                number: CreditNumber::new(year, last_n.unwrap_or(0) + 1),
            });
        }
        Err(other) => return Err(other),
    };
    // A full credit found done (perhaps after doubt) is reported once it is durable.
    if !credited.fresh {
        db.confirm_durable()?;
    }
    Ok((tenant, credited))
}

/// On PostgreSQL the usual credit is one statement (a call of `receipts_credit_now`), which
/// is a transaction of its own. None: not PostgreSQL, or a case the long way explains.
fn credit_now(
    db: &mut Db,
    whose: Whose,
    request: &Request,
    reason: &str,
) -> Result<Option<(Tenant, Credited)>, Error> {
    let handle = whose.handle().map(str::to_ascii_lowercase);
    let lock_timeout = db.lock_timeout_setting();
    let Some(pg) = db.postgres() else { return Ok(None) };
    let called = credits::credit_now_statement(
        pg,
        request.order,
        handle.as_deref(),
        request.amount,
        reason,
        request.refund,
        &lock_timeout,
    );
    match called {
        Ok(Some(now)) => now.credited(request.order).map(Some),
        Ok(None) => Ok(None),
        Err(e) => match classify(&e) {
            // The statement commits itself: cut off while it ran, it may have.
            Failure::ConnectionLost(reason) => Err(Error::InDoubt(reason)),
            // A collision of numbers: the long way names it.
            Failure::UniqueViolation(Unique::CreditNumber) => Ok(None),
            _ => Err(db.explain(e.into())),
        },
    }
}

/// The credit notes of one of the tenant's orders, oldest first.
pub fn of_order(db: &mut Db, tenant: &Tenant, order: OrderId) -> Result<Vec<CreditNote>, Error> {
    db.read(|conn| credits::of_order(conn, tenant, order))
}

/// One of the tenant's credit notes by its number.
pub fn find(db: &mut Db, tenant: &Tenant, number: CreditNumber) -> Result<CreditNote, Error> {
    db.read(|conn| credits::find(conn, tenant, number))
}
