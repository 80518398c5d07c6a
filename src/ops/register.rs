//! The customer register as both doors ask for it: customers and their rackets added,
//! edited, found, merged and forgotten (`db::customers` and `db::rackets` hold the rules;
//! each call here is one transaction).

use crate::db::customers::{self, Customer, CustomerChanges, Forgotten, Merged};
use crate::db::orders::Order;
use crate::db::rackets::{self, Racket, RacketChanges};
use crate::db::{Db, Tenant};
use crate::domain::{CustomerId, RacketId};
use crate::error::Error;

pub fn add_customer(db: &mut Db, tenant: &Tenant, new: &CustomerChanges) -> Result<CustomerId, Error> {
    db.write(|conn| customers::add(conn, tenant, new))
}

/// None when nothing changed.
/// The customer's business identifiers as typed, each checked as the tax office would and
/// written the usual way (an empty one clears it); refused naming its field (`vat_id`, ...).
pub fn check_business(changes: &mut CustomerChanges) -> Result<(), Error> {
    use crate::domain::{
        check_buyer_reference, check_buyer_vat_id, check_email, check_sdi_code, check_tax_code,
    };
    type Check = fn(&str) -> Result<String, String>;
    let fields: [(&mut Option<String>, &'static str, Check); 5] = [
        (&mut changes.vat_id, "vat_id", check_buyer_vat_id),
        (&mut changes.buyer_reference, "buyer_reference", check_buyer_reference),
        (&mut changes.tax_code, "tax_code", check_tax_code),
        (&mut changes.sdi_code, "sdi_code", check_sdi_code),
        (&mut changes.pec, "pec", check_email),
    ];
    for (value, field, check) in fields {
        if let Some(given) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            *value = Some(check(given).map_err(|problem| Error::Invalid { field, problem })?);
        }
    }
    if let Some(reference) = &changes.buyer_reference {
        crate::receipt::pdf::check_printable("buyer_reference", reference)?;
    }
    Ok(())
}

pub fn edit_customer(
    db: &mut Db,
    tenant: &Tenant,
    customer: CustomerId,
    changes: &CustomerChanges,
) -> Result<Option<Customer>, Error> {
    db.write(|conn| customers::edit(conn, tenant, customer, changes))
}

/// The customers of each stringer whose name (or e-mail, phone) holds `text`, or all.
pub fn search_customers(
    db: &mut Db,
    tenants: &[Tenant],
    text: Option<&str>,
) -> Result<Vec<(Tenant, Vec<Customer>)>, Error> {
    db.read(|conn| {
        tenants
            .iter()
            .map(|tenant| Ok((tenant.clone(), customers::search(conn, tenant, text, None)?)))
            .collect()
    })
}

pub use super::views::CustomerSeen;

/// A customer, their rackets with their last jobs, and their orders, newest first.
pub fn customer(db: &mut Db, tenant: &Tenant, customer: CustomerId) -> Result<CustomerSeen, Error> {
    db.read(|conn| super::views::customer(conn, tenant, customer))
}

pub fn merge_customers(
    db: &mut Db,
    tenant: &Tenant,
    duplicate: CustomerId,
    kept: CustomerId,
) -> Result<Merged, Error> {
    db.write(|conn| customers::merge(conn, tenant, duplicate, kept))
}

/// Erases what the law lets go of a customer, with the reason (which must say something).
pub fn forget_customer(
    db: &mut Db,
    tenant: &Tenant,
    customer: CustomerId,
    reason: &str,
) -> Result<Forgotten, Error> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::Invalid {
            field: "reason",
            problem: "is empty: say why the customer is forgotten".into(),
        });
    }
    db.write(|conn| customers::forget(conn, tenant, customer, reason))
}

pub fn add_racket(
    db: &mut Db,
    tenant: &Tenant,
    customer: CustomerId,
    new: &RacketChanges,
) -> Result<RacketId, Error> {
    db.write(|conn| rackets::add(conn, tenant, customer, new))
}

/// None when nothing changed.
pub fn edit_racket(
    db: &mut Db,
    tenant: &Tenant,
    racket: RacketId,
    changes: &RacketChanges,
) -> Result<Option<Racket>, Error> {
    db.write(|conn| rackets::edit(conn, tenant, racket, changes))
}

/// A customer's rackets (refused, as not found, for a customer who is not the tenant's).
pub fn rackets_of(db: &mut Db, tenant: &Tenant, customer: CustomerId) -> Result<Vec<Racket>, Error> {
    db.read(|conn| {
        customers::find(conn, tenant, customer)?;
        rackets::of_customer(conn, tenant, customer)
    })
}

/// How a racket is named: by its id, or by the shop's tag on it.
pub enum RacketNamed<'a> {
    Id(RacketId),
    Tag(&'a str),
}

pub fn racket(db: &mut Db, tenant: &Tenant, named: RacketNamed) -> Result<Racket, Error> {
    db.read(|conn| match named {
        RacketNamed::Id(id) => rackets::find(conn, tenant, id),
        RacketNamed::Tag(tag) => rackets::tagged(conn, tenant, tag),
    })
}

/// A racket's customer and the orders that strung it.
pub fn racket_jobs(db: &mut Db, tenant: &Tenant, racket: &Racket) -> Result<(Customer, Vec<Order>), Error> {
    db.read(|conn| {
        Ok((customers::find(conn, tenant, racket.customer)?, rackets::jobs(conn, tenant, racket.id)?))
    })
}
