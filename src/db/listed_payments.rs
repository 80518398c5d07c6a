//! The bank transactions imports listed for somebody to look at (`payments list`), and
//! settling one by hand with the reason (`payments settle`).

use super::events::{self, Event};
use super::payments::{Earlier, Outcome};
use super::schema::listed_payments;
use super::{DbConn, Tenant};
use crate::domain::{local_date, now_utc, OrderId, Price, ReceiptNumber};
use crate::error::Error;
use chrono::{NaiveDate, NaiveDateTime};
use diesel::prelude::*;

/// A bank transaction an import listed as needing attention: `payments list`.
#[derive(Debug, Clone)]
pub struct ListedPayment {
    pub stringer: String,
    pub bank_reference: String,
    pub reference: String,
    pub receipt: ReceiptNumber,
    pub order: Option<i64>,
    pub amount: Price,
    pub currency: String,
    pub booked_on: NaiveDate,
    pub outcome: Outcome,
    pub file: String,
    pub earlier: Earlier,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = listed_payments)]
struct FullListedRow {
    id: i64,
    bank_reference: String,
    reference: String,
    receipt_year: i32,
    receipt_seq: i64,
    order_id: Option<i64>,
    amount_minor: i64,
    currency: String,
    booked_on: NaiveDate,
    outcome: String,
    file: String,
    listed_at: NaiveDateTime,
    settled_at: Option<NaiveDateTime>,
    settle_reason: Option<String>,
}

impl FullListedRow {
    fn listed(self, tenant: &Tenant) -> Result<ListedPayment, Error> {
        let earlier = Earlier::of(self.listed_at, self.settled_at, self.settle_reason, tenant);
        let outcome = Outcome::stored(&self.outcome)?;
        Ok(ListedPayment {
            stringer: tenant.handle().to_string(),
            bank_reference: self.bank_reference,
            reference: self.reference,
            receipt: ReceiptNumber::new(self.receipt_year, self.receipt_seq),
            order: self.order_id,
            amount: Price(self.amount_minor),
            currency: self.currency,
            booked_on: self.booked_on,
            outcome,
            file: self.file,
            earlier,
        })
    }
}

/// The bank transactions imports listed for these stringers, in the order they were
/// listed; only those not settled yet when `open_only`.
pub fn listed(conn: &mut DbConn, tenants: &[Tenant], open_only: bool) -> Result<Vec<ListedPayment>, Error> {
    let mut all = Vec::new();
    for tenant in tenants {
        let mut query = tenant
            .listed_payments()
            .order(listed_payments::id)
            .select(FullListedRow::as_select())
            .into_boxed();
        if open_only {
            query = query.filter(listed_payments::settled_at.is_null());
        }
        let rows: Vec<FullListedRow> = query.load(conn)?;
        for row in rows {
            all.push((row.id, row.listed(tenant)?));
        }
    }
    all.sort_by_key(|(id, _)| *id);
    Ok(all.into_iter().map(|(_, listed)| listed).collect())
}

/// Marks a listed bank transaction handled (a partial payment settled by hand, a double
/// payment refunded), with the reason, in the journal too. Refused when it is settled
/// already, or when it is not listed for these stringers.
pub fn settle(
    conn: &mut DbConn,
    tenants: &[Tenant],
    bank_reference: &str,
    reason: &str,
) -> Result<ListedPayment, Error> {
    let mut found = Vec::new();
    for tenant in tenants {
        let row: Option<FullListedRow> = tenant
            .listed_payments()
            .filter(listed_payments::bank_reference.eq(bank_reference))
            .select(FullListedRow::as_select())
            .first(conn)
            .optional()?;
        found.extend(row.map(|row| (tenant, row)));
    }
    let (tenant, row) = match found.len() {
        0 => return Err(Error::NotListed { bank_reference: bank_reference.to_string() }),
        1 => found.remove(0),
        _ => {
            return Err(Error::ListedForSeveral {
                bank_reference: bank_reference.to_string(),
                stringers: found.iter().map(|(t, _)| t.handle().to_string()).collect(),
            })
        }
    };
    let id = row.id;
    let listed = row.listed(tenant)?;
    if let Some((on, why)) = &listed.earlier.settled {
        return Err(Error::AlreadySettled {
            bank_reference: bank_reference.to_string(),
            on: *on,
            reason: why.clone(),
        });
    }
    let now = now_utc();
    diesel::update(listed_payments::table.filter(listed_payments::id.eq(id)))
        .set((listed_payments::settled_at.eq(now), listed_payments::settle_reason.eq(reason)))
        .execute(conn)?;
    let order = listed.order.map(OrderId);
    events::record(conn, &Event::settle(tenant.id(), order, listed.receipt, bank_reference, reason))?;
    Ok(ListedPayment {
        earlier: Earlier {
            settled: Some((local_date(now, tenant.zone()), reason.to_string())),
            ..listed.earlier
        },
        ..listed
    })
}
