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
use crate::domain::{
    check_country, check_email, check_tension, Currency, CustomerId, Due, Item, Length, OrderId, OrderKind,
    Price, RacketId,
};
use crate::error::Error;
use crate::payment::{check_qr_text, Postal, Who, QR_LIMITS};
use crate::receipt::pdf::check_printable;
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
    /// A name no customer has, while some have one like it, is refused naming them instead
    /// of adding a new customer (the counter asks once; the CLI adds).
    pub ask_if_similar: bool,
}

/// What an order is about, as the counter gives it: the CLI's flags and the web form's
/// fields (named alike), checked here once for both. Refusals name the flag (`--tension`),
/// which the web shows next to the field of that name.
#[derive(Debug, Clone, Default)]
pub struct Details {
    pub customer: Option<String>,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    pub price: Option<Price>,
    pub currency: Option<Currency>,
    pub customer_note: Option<String>,
    /// Lines printed under the customer's name, `\n` between them.
    pub customer_address: Option<String>,
    pub postal: PostalText,
    pub notes: Option<String>,
    pub email: Option<String>,
    pub due: Option<Due>,
    pub items: Vec<Item>,
    pub string_length: Option<Length>,
    pub own_string: Option<bool>,
    pub cross_string: Option<String>,
}

/// The customer's structured address as given (a QR-bill's "Payable by").
#[derive(Debug, Clone, Default)]
pub struct PostalText {
    pub street: Option<String>,
    pub house_number: Option<String>,
    pub postcode: Option<String>,
    pub town: Option<String>,
    pub country: Option<String>,
}

impl Details {
    /// The details, each printed one checked to be printable; the promised time and the
    /// items beside them.
    pub fn check(self) -> Result<(OrderChanges, Option<Due>, Vec<Item>), Error> {
        let customer = trimmed(self.customer, "customer")?;
        let racket = trimmed(self.racket, "racket")?;
        let string = trimmed(self.string, "string")?;
        let cross_string = trimmed(self.cross_string, "cross_string")?;
        let tension = trimmed(self.tension, "tension")?
            .map(|t| if t.is_empty() { Ok(t) } else { check_tension(&t) })
            .transpose()
            .map_err(|problem| Error::Invalid { field: "tension", problem })?;
        for (field, text) in [
            ("customer", &customer),
            ("racket", &racket),
            ("string", &string),
            ("tension", &tension),
            ("customer note", &self.customer_note),
            ("customer address", &self.customer_address),
            ("cross string", &cross_string),
        ] {
            if let Some(text) = text {
                check_printable(field, text)?;
            }
        }
        for item in &self.items {
            check_printable("item", &item.text)?;
        }
        let email = self.email.as_deref().map(check_email).transpose().map_err(Error::BadInput)?;
        let postal = self.postal.postal()?;
        if let (Some(_), Some(name)) = (&postal, &customer) {
            check_qr_text("customer", name, QR_LIMITS.name)?;
        }
        let changes = OrderChanges {
            customer,
            racket,
            string,
            tension,
            price_minor: self.price.map(|p| p.0),
            currency: self.currency.map(|c| c.to_string()),
            customer_note: self.customer_note,
            customer_address: self.customer_address,
            customer_postal: postal.as_ref().map(Postal::stored),
            email,
            notes: self.notes,
            due_at: None,
            string_length_cm: self.string_length.map(|length| length.0),
            own_string: self.own_string,
            cross_string,
        };
        Ok((changes, self.due, self.items))
    }
}

impl PostalText {
    /// The structured address, complete and fit for a QR-bill, if any of it was given.
    fn postal(self) -> Result<Option<Postal>, Error> {
        let PostalText { street, house_number, postcode, town, country } = self;
        if [&street, &house_number, &postcode, &town, &country].iter().all(|field| field.is_none()) {
            return Ok(None);
        }
        let required = |value: Option<String>, field: &'static str| {
            value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).ok_or_else(|| Error::Invalid {
                field,
                problem: "is missing: a structured customer address needs a postcode, a town and a country"
                    .into(),
            })
        };
        let (postcode, town) = (required(postcode, "customer_postcode")?, required(town, "customer_town")?);
        let country = required(country, "customer_country")?;
        let postal = Postal {
            street: street.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
            house_number: house_number.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
            postcode,
            town,
            country: check_country(&country)
                .map_err(|problem| Error::Invalid { field: "customer_country", problem })?,
        };
        postal.check(Who::Customer)?;
        for line in postal.lines() {
            check_printable("customer address", &line)?;
        }
        Ok(Some(postal))
    }
}

/// A detail as given, trimmed: one of only spaces is refused (an empty one clears it).
fn trimmed(value: Option<String>, field: &'static str) -> Result<Option<String>, Error> {
    match value {
        Some(text) if !text.is_empty() && text.trim().is_empty() => Err(Error::Invalid {
            field,
            problem: "holds only spaces: give a value, or \"\" to clear it".into(),
        }),
        Some(text) => Ok(Some(text.trim().to_string())),
        None => Ok(None),
    }
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

/// An order taken at the counter, as both doors take it: the details checked, the customer
/// and racket found or added (`take`), the promised time (given, else the stringer's
/// turnaround), the items. Returns what was done and the small-amount limit the order is
/// above when its invoice will need the customer's address (said now: the mint refuses it).
pub fn take_order(
    conn: &mut DbConn,
    tenant: &Tenant,
    kind: OrderKind,
    ordered_at: NaiveDateTime,
    intake: &Intake,
    details: Details,
) -> Result<(Taken, Option<&'static str>), Error> {
    let (mut about, due, items) = details.check()?;
    about.due_at = due.map(|due| due.resolve(ordered_at, tenant.zone())).transpose().map_err(Error::Usage)?;
    let taken = take(conn, tenant, kind, Some(ordered_at), intake, &about)?;
    if !items.is_empty() {
        super::items::replace(conn, taken.order, &items)?;
    }
    let added = orders::find(conn, tenant, taken.order)?;
    Ok((taken, orders::address_wanted(conn, tenant, &added)?))
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
            return Err(Error::Invalid {
                field: "kind",
                problem: "self (the stringer's own racket) has no customer or racket of the register".into(),
            });
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
            Some(name) => Some(by_name(conn, tenant, name, &details, intake.ask_if_similar)?),
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
        (true, None) => {
            return Err(Error::Invalid {
                field: "same",
                problem: "copies a racket's last job: name the racket (by its id, its tag or its model)"
                    .into(),
            })
        }
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
            orders_table::customer_business.eq(customer.as_ref().and_then(|(c, _)| c.business.stored())),
        ))
        .execute(conn)?;
    Ok(Taken {
        order,
        customer: customer.map(|(c, new)| (c.id, new)),
        racket: racket.map(|(r, new)| (r.id, new)),
        copied_from,
    })
}

/// How many customers of a similar name are offered instead of a new one.
const SIMILAR_SHOWN: i64 = 5;

/// The one customer of this name, or a new one (with the order's contact) when there is
/// none; several are refused, listed, so that the register never gains a duplicate silently.
/// With `ask_if_similar`, a new one is refused too while others have a name like it.
fn by_name(
    conn: &mut DbConn,
    tenant: &Tenant,
    name: &str,
    details: &OrderChanges,
    ask_if_similar: bool,
) -> Result<(Customer, bool), Error> {
    let mut found = customers::named(conn, tenant, name)?;
    match found.len() {
        0 => {
            if ask_if_similar {
                let first = customers::Page { start: customers::Start::Offset(0), limit: SIMILAR_SHOWN };
                let similar = customers::search(conn, tenant, Some(name), Some(first))?;
                if !similar.is_empty() {
                    return Err(Error::SimilarCustomers {
                        name: name.to_string(),
                        similar: similar.into_iter().map(|c| (c.id, c.name)).collect(),
                    });
                }
            }
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
