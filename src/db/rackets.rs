//! Customers' rackets (SPEC 18): what each had last time. A racket is found by its id or
//! by its tag, the shop's own mark on the frame, unique per stringer.

use super::customers;
use super::orders::{Order, OrderRow};
use super::schema::{orders, rackets};
use super::{DbConn, Tenant};
use crate::domain::{fold, now_utc, CustomerId, RacketId, Sport};
use crate::error::Error;
use chrono::NaiveDateTime;
use diesel::prelude::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Racket {
    pub id: RacketId,
    pub customer: CustomerId,
    /// E.g. "Babolat Pure Aero 2023".
    pub model: Option<String>,
    pub sport: Sport,
    /// E.g. "16x19".
    pub pattern: Option<String>,
    /// The shop's own mark on the frame.
    pub tag: Option<String>,
    pub notes: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

impl Racket {
    /// What an order taken for it calls the racket: its model, and its tag when it has one.
    pub fn order_text(&self) -> Option<String> {
        match (&self.model, &self.tag) {
            (Some(model), Some(tag)) => Some(format!("{model} ({tag})")),
            (Some(model), None) => Some(model.clone()),
            (None, Some(tag)) => Some(format!("({tag})")),
            (None, None) => None,
        }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = rackets)]
struct RacketRow {
    id: i64,
    customer_id: i64,
    model: Option<String>,
    sport: String,
    pattern: Option<String>,
    tag: Option<String>,
    notes: Option<String>,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
}

impl From<RacketRow> for Racket {
    fn from(row: RacketRow) -> Racket {
        Racket {
            id: RacketId(row.id),
            customer: CustomerId(row.customer_id),
            model: row.model,
            // The schema's CHECK allows only the known sports.
            sport: row.sport.parse().unwrap_or_default(),
            pattern: row.pattern,
            tag: row.tag,
            notes: row.notes,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// What a racket is: all of it for a new one; for an edit, what changes (`None` leaves a
/// field; an empty text clears it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RacketChanges {
    pub model: Option<String>,
    pub sport: Option<Sport>,
    pub pattern: Option<String>,
    pub tag: Option<String>,
    pub notes: Option<String>,
}

fn stored(new: &Option<String>, old: &Option<String>) -> Option<String> {
    match new.as_deref().map(str::trim) {
        Some("") => None,
        Some(text) => Some(text.to_string()),
        None => old.clone(),
    }
}

/// Adds a racket to one of the tenant's customers; returns its id. A tag the stringer has
/// given another racket already is refused.
pub fn add(
    conn: &mut DbConn,
    tenant: &Tenant,
    customer: CustomerId,
    new: &RacketChanges,
) -> Result<RacketId, Error> {
    customers::find(conn, tenant, customer)?;
    let tag = stored(&new.tag, &None);
    refuse_taken_tag(conn, tenant, tag.as_deref(), None)?;
    let model = stored(&new.model, &None);
    let now = now_utc();
    diesel::insert_into(rackets::table)
        .values((
            tenant.owns(rackets::stringer_id),
            rackets::customer_id.eq(customer.0),
            rackets::search_model.eq(model.as_deref().map(fold).unwrap_or_default()),
            rackets::model.eq(model),
            rackets::sport.eq(new.sport.unwrap_or_default().as_str()),
            rackets::pattern.eq(stored(&new.pattern, &None)),
            rackets::tag.eq(tag),
            rackets::notes.eq(stored(&new.notes, &None)),
            rackets::created_at.eq(now),
            rackets::updated_at.eq(now),
        ))
        .returning(rackets::id)
        .get_result(conn)
        .map(RacketId)
        .map_err(Error::from)
}

fn refuse_taken_tag(
    conn: &mut DbConn,
    tenant: &Tenant,
    tag: Option<&str>,
    own: Option<RacketId>,
) -> Result<(), Error> {
    let Some(tag) = tag else { return Ok(()) };
    let holder: Option<i64> =
        tenant.rackets().filter(rackets::tag.eq(tag)).select(rackets::id).first(conn).optional()?;
    match holder {
        Some(holder) if Some(RacketId(holder)) != own => {
            Err(Error::TagTaken { tag: tag.to_string(), racket: RacketId(holder) })
        }
        _ => Ok(()),
    }
}

/// One of the tenant's rackets.
pub fn find(conn: &mut DbConn, tenant: &Tenant, id: RacketId) -> Result<Racket, Error> {
    tenant
        .rackets()
        .filter(rackets::id.eq(id.0))
        .select(RacketRow::as_select())
        .first(conn)
        .optional()?
        .map(Racket::from)
        .ok_or_else(|| Error::NoSuchRacket {
            racket: id.to_string(),
            stringer: Some(tenant.handle().to_string()),
        })
}

/// One of the tenant's rackets, by its tag.
pub fn tagged(conn: &mut DbConn, tenant: &Tenant, tag: &str) -> Result<Racket, Error> {
    tenant
        .rackets()
        .filter(rackets::tag.eq(tag.trim()))
        .select(RacketRow::as_select())
        .first(conn)
        .optional()?
        .map(Racket::from)
        .ok_or_else(|| Error::NoSuchRacket {
            racket: format!("tagged \"{}\"", tag.trim()),
            stringer: Some(tenant.handle().to_string()),
        })
}

/// A customer's rackets, oldest first.
pub fn of_customer(conn: &mut DbConn, tenant: &Tenant, customer: CustomerId) -> Result<Vec<Racket>, Error> {
    let rows: Vec<RacketRow> = tenant
        .rackets()
        .filter(rackets::customer_id.eq(customer.0))
        .order(rackets::id)
        .select(RacketRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(Racket::from).collect())
}

/// The customer's racket of this model (as search compares texts), if there is one.
pub fn of_model(
    conn: &mut DbConn,
    tenant: &Tenant,
    customer: CustomerId,
    model: &str,
) -> Result<Option<Racket>, Error> {
    Ok(tenant
        .rackets()
        .filter(rackets::customer_id.eq(customer.0))
        .filter(rackets::search_model.eq(fold(model)))
        .order(rackets::id)
        .select(RacketRow::as_select())
        .first(conn)
        .optional()?
        .map(Racket::from))
}

/// Changes a racket; None when that would leave it as it is.
pub fn edit(
    conn: &mut DbConn,
    tenant: &Tenant,
    id: RacketId,
    changes: &RacketChanges,
) -> Result<Option<Racket>, Error> {
    let current = find(conn, tenant, id)?;
    let tag = stored(&changes.tag, &current.tag);
    let wanted = Racket {
        model: stored(&changes.model, &current.model),
        sport: changes.sport.unwrap_or(current.sport),
        pattern: stored(&changes.pattern, &current.pattern),
        tag: tag.clone(),
        notes: stored(&changes.notes, &current.notes),
        ..current.clone()
    };
    if wanted == current {
        return Ok(None);
    }
    refuse_taken_tag(conn, tenant, tag.as_deref(), Some(id))?;
    diesel::update(tenant.rackets().filter(rackets::id.eq(id.0)))
        .set((
            rackets::search_model.eq(wanted.model.as_deref().map(fold).unwrap_or_default()),
            rackets::model.eq(&wanted.model),
            rackets::sport.eq(wanted.sport.as_str()),
            rackets::pattern.eq(&wanted.pattern),
            rackets::tag.eq(&wanted.tag),
            rackets::notes.eq(&wanted.notes),
            rackets::updated_at.eq(now_utc()),
        ))
        .execute(conn)?;
    find(conn, tenant, id).map(Some)
}

/// The racket's jobs, newest first by when they were strung (orders not strung yet first).
pub fn jobs(conn: &mut DbConn, tenant: &Tenant, id: RacketId) -> Result<Vec<Order>, Error> {
    let rows: Vec<OrderRow> = tenant
        .orders()
        .filter(orders::racket_id.eq(id.0))
        .order((orders::strung_at.is_not_null(), orders::strung_at.desc(), orders::id.desc()))
        .select(OrderRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(Order::from).collect())
}

/// The racket's last job: its last strung order that is not void (by when it was strung),
/// what "the same as last time" copies.
pub fn last_job(conn: &mut DbConn, tenant: &Tenant, id: RacketId) -> Result<Option<Order>, Error> {
    let row: Option<OrderRow> = tenant
        .orders()
        .filter(orders::racket_id.eq(id.0))
        .filter(orders::strung_at.is_not_null())
        .filter(orders::voided_at.is_null())
        .order((orders::strung_at.desc(), orders::id.desc()))
        .select(OrderRow::as_select())
        .first(conn)
        .optional()?;
    Ok(row.map(Order::from))
}
