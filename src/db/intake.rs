//! Taking an order at the counter (SPEC 18): for which customer of the register and which
//! of their rackets, found by id, tag or name (or added to the register when new), with "the
//! same as last time" copied from that racket's last job. The register's spelling is what the
//! order carries; the document freezes it at mint, so a later edit of the register never
//! changes an issued receipt.

use super::customers::{self, Customer, CustomerChanges};
use super::orders::{self, OrderChanges};
use super::rackets::{self, Racket, RacketChanges};
use super::schema::orders as orders_table;
use super::{DbConn, Tenant};
use crate::domain::{CustomerId, OrderId, OrderKind, RacketId};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// Whom and what an order is for, as the counter says it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intake {
    pub customer: Option<CustomerId>,
    pub racket: Option<RacketId>,
    pub racket_tag: Option<String>,
    /// Copy string, tension and price from the racket's last job, where not given.
    pub same: bool,
}

/// What taking the order did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub order: OrderId,
    /// The customer it is for, and whether the register gained them now.
    pub customer: Option<(CustomerId, bool)>,
    pub racket: Option<(RacketId, bool)>,
    /// The order "the same as last time" copied.
    pub copied_from: Option<OrderId>,
}

/// Takes an order for the tenant. A client order names its customer by id, or by name (the
/// one customer of that name is linked, a new one added when there is none, and several are
/// refused listing them); its racket by id or tag, or by its text (the customer's racket of
/// that model, or a new one). The stringer's own rackets stay out of the register.
pub fn take(
    conn: &mut DbConn,
    tenant: &Tenant,
    kind: OrderKind,
    ordered_at: Option<NaiveDateTime>,
    intake: &Intake,
    details: &OrderChanges,
) -> Result<Taken, Error> {
    let mut details = details.clone();
    if kind == OrderKind::Own {
        if intake != &Intake::default() {
            return Err(Error::BadInput(
                "the stringer's own racket (--kind self) has no customer or racket of the register".into(),
            ));
        }
        let order = orders::add(conn, tenant, kind, ordered_at, &details)?;
        return Ok(Taken { order, customer: None, racket: None, copied_from: None });
    }
    let named_racket = match (intake.racket, &intake.racket_tag) {
        (Some(id), _) => Some(rackets::find(conn, tenant, id)?),
        (None, Some(tag)) => Some(rackets::tagged(conn, tenant, tag)?),
        (None, None) => None,
    };
    // The customer: named by id, or through their racket, or by name.
    let mut customer = match (intake.customer, &named_racket) {
        (Some(id), _) => Some((customers::find(conn, tenant, id)?, false)),
        (None, Some(racket)) => Some((customers::find(conn, tenant, racket.customer)?, false)),
        (None, None) => match details.customer.as_deref().filter(|name| !name.trim().is_empty()) {
            Some(name) => Some(by_name(conn, tenant, name, &details)?),
            None => None,
        },
    };
    if let (Some(racket), Some((customer, _))) = (&named_racket, &customer) {
        if racket.customer != customer.id {
            return Err(Error::RacketOfAnotherCustomer { racket: racket.id, customer: customer.id });
        }
    }
    let racket = match (named_racket, &customer, details.racket.as_deref()) {
        (Some(racket), _, _) => Some((racket, false)),
        (None, Some((customer, _)), Some(text)) if !text.trim().is_empty() => {
            Some(of_model(conn, tenant, customer.id, text)?)
        }
        _ => None,
    };
    let copied_from = match (intake.same, &racket) {
        (false, _) => None,
        (true, None) => return Err(Error::BadInput(
            "--same copies a racket's last job: name the racket with --racket-id, --racket-tag or --racket"
                .into(),
        )),
        (true, Some((racket, _))) => {
            let last = rackets::last_job(conn, tenant, racket.id)?
                .ok_or(Error::NothingToCopy { racket: racket.id })?;
            details.string = details.string.or(last.string);
            details.tension = details.tension.or(last.tension);
            if details.price_minor.is_none() {
                details.price_minor = last.price.map(|p| p.0);
                details.currency = details.currency.or(Some(last.currency.to_string()));
            }
            Some(last.id)
        }
    };
    if let Some((customer, _)) = &mut customer {
        // The register's spelling and contact, unless given for this order.
        details.customer = Some(customer.name.clone());
        details.email = details.email.or(customer.email.take());
        if details.customer_address.is_none() && details.customer_postal.is_none() {
            details.customer_address = customer.address.take();
            details.customer_postal = customer.postal.as_ref().map(crate::payment::Postal::stored);
        }
    }
    if let Some((racket, _)) = &racket {
        details.racket = racket.order_text().or(details.racket);
    }
    let order = orders::add(conn, tenant, kind, ordered_at, &details)?;
    diesel::update(tenant.orders().filter(orders_table::id.eq(order.0)))
        .set((
            orders_table::customer_id.eq(customer.as_ref().map(|(c, _)| c.id.0)),
            orders_table::racket_id.eq(racket.as_ref().map(|(r, _)| r.id.0)),
        ))
        .execute(conn)?;
    Ok(Taken {
        order,
        customer: customer.map(|(c, new)| (c.id, new)),
        racket: racket.map(|(r, new)| (r.id, new)),
        copied_from,
    })
}

/// The one customer of this name, or a new one (with the order's contact) when there is
/// none; several are refused, listed, so that the register never gains a duplicate silently.
fn by_name(
    conn: &mut DbConn,
    tenant: &Tenant,
    name: &str,
    details: &OrderChanges,
) -> Result<(Customer, bool), Error> {
    let mut found = customers::named(conn, tenant, name)?;
    match found.len() {
        0 => {
            let new = CustomerChanges {
                name: Some(name.to_string()),
                email: details.email.clone(),
                address: details.customer_address.clone(),
                postal: details.customer_postal.clone(),
                ..CustomerChanges::default()
            };
            let id = customers::add(conn, tenant, &new)?;
            Ok((customers::find(conn, tenant, id)?, true))
        }
        1 => Ok((found.remove(0), false)),
        _ => Err(Error::SeveralCustomers {
            name: name.to_string(),
            candidates: found
                .iter()
                .map(|c| {
                    let about: Vec<String> = [c.email.clone(), c.town()].into_iter().flatten().collect();
                    match about.is_empty() {
                        true => format!("{}", c.id),
                        false => format!("{} ({})", c.id, about.join(", ")),
                    }
                })
                .collect(),
        }),
    }
}

/// The customer's racket of this model, or a new one.
fn of_model(
    conn: &mut DbConn,
    tenant: &Tenant,
    customer: CustomerId,
    model: &str,
) -> Result<(Racket, bool), Error> {
    if let Some(racket) = rackets::of_model(conn, tenant, customer, model)? {
        return Ok((racket, false));
    }
    let new = RacketChanges { model: Some(model.to_string()), ..RacketChanges::default() };
    let id = rackets::add(conn, tenant, customer, &new)?;
    Ok((rackets::find(conn, tenant, id)?, true))
}
