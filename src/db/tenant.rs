//! Where tenancy is enforced: every query a command makes for one stringer (`--stringer H`,
//! or the owner of the order it names) starts from a `Tenant`, so it can only ever see and
//! change that stringer's rows. A `Tenant` is only ever made by looking the stringer up.
//!
//! Exempt, by design, and saying so where they query: the views over every stringer that no
//! `--stringer` scopes (`audit`, `resync-counters`), and `migrate-v1` (a V1 file holds
//! several stringers). Listings over every stringer go through `Tenant::all`. The journal's
//! own machinery (chaining an event, sealing old documents) works from a stringer's id and
//! is scoped by it here too (`events_of`, `chain_head_of`, ...). `db::counters` binds the
//! tenant's id into its SQL itself: one upsert for both series' tables, which diesel's
//! multi-backend DSL cannot say (no ON CONFLICT).

use super::schema::{
    chain_heads, closures, credit_notes, customers, issuers, listed_payments, orders, part_payments,
    payments, rackets, receipt_events, reminders, string_moves, stringers, strings, vat_rates,
};
use super::{DbConn, MultiBackend};
use crate::domain::{CustomerId, OrderId, RacketId, StringerId};
use crate::error::Error;
use chrono_tz::Tz;
use diesel::dsl::{Eq, Filter};
use diesel::prelude::*;

/// The stringer a command acts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenant {
    id: StringerId,
    handle: String,
    zone: Tz,
}

impl Tenant {
    pub fn id(&self) -> StringerId {
        self.id
    }

    pub fn handle(&self) -> &str {
        &self.handle
    }

    /// The zone whose calendar decides the year of this stringer's receipts.
    pub fn zone(&self) -> Tz {
        self.zone
    }

    /// This stringer's orders and nobody else's.
    pub fn orders(&self) -> Filter<orders::table, Eq<orders::stringer_id, i64>> {
        orders_of(self.id)
    }

    /// This stringer's customers and nobody else's.
    pub fn customers(&self) -> Filter<customers::table, Eq<customers::stringer_id, i64>> {
        customers::table.filter(customers::stringer_id.eq(self.id.0))
    }

    /// This stringer's customers and nobody else's, for a query that another index narrows
    /// better than the (stringer, name) one: the unary plus keeps SQLite off that index.
    pub fn customers_by_another_index(&self) -> customers::BoxedQuery<'static, MultiBackend> {
        let mine = diesel::dsl::sql::<diesel::sql_types::Bool>("+customers.stringer_id = ")
            .bind::<diesel::sql_types::BigInt, _>(self.id.0);
        customers::table.filter(mine).into_boxed()
    }

    /// This stringer's customers' rackets and nobody else's.
    pub fn rackets(&self) -> Filter<rackets::table, Eq<rackets::stringer_id, i64>> {
        rackets::table.filter(rackets::stringer_id.eq(self.id.0))
    }

    /// This stringer's credit notes and nobody else's.
    pub fn credit_notes(&self) -> Filter<credit_notes::table, Eq<credit_notes::stringer_id, i64>> {
        credit_notes_of(self.id)
    }

    /// This stringer's part payments and nobody else's.
    pub fn part_payments(&self) -> Filter<part_payments::table, Eq<part_payments::stringer_id, i64>> {
        part_payments::table.filter(part_payments::stringer_id.eq(self.id.0))
    }

    /// This stringer's profile versions (what its documents print) and nobody else's.
    pub fn issuers(&self) -> Filter<issuers::table, Eq<issuers::stringer_id, i64>> {
        issuers::table.filter(issuers::stringer_id.eq(self.id.0))
    }

    /// This stringer's strings in stock and nobody else's.
    pub fn strings(&self) -> Filter<strings::table, Eq<strings::stringer_id, i64>> {
        strings::table.filter(strings::stringer_id.eq(self.id.0))
    }

    /// This stringer's reels and string used, and nobody else's.
    pub fn string_moves(&self) -> Filter<string_moves::table, Eq<string_moves::stringer_id, i64>> {
        string_moves::table.filter(string_moves::stringer_id.eq(self.id.0))
    }

    /// The payments applied to this stringer's orders and nobody else's.
    pub fn payments(&self) -> Filter<payments::table, Eq<payments::stringer_id, i64>> {
        payments::table.filter(payments::stringer_id.eq(self.id.0))
    }

    /// The bank transactions listed for this stringer and nobody else.
    pub fn listed_payments(&self) -> Filter<listed_payments::table, Eq<listed_payments::stringer_id, i64>> {
        listed_payments::table.filter(listed_payments::stringer_id.eq(self.id.0))
    }

    /// This stringer's reminders and nobody else's.
    pub fn reminders(&self) -> Filter<reminders::table, Eq<reminders::stringer_id, i64>> {
        reminders::table.filter(reminders::stringer_id.eq(self.id.0))
    }

    /// This stringer's VAT rates and nobody else's.
    pub fn vat_rates(&self) -> Filter<vat_rates::table, Eq<vat_rates::stringer_id, i64>> {
        vat_rates::table.filter(vat_rates::stringer_id.eq(self.id.0))
    }

    /// This stringer's journal and nobody else's.
    pub fn events(&self) -> Filter<receipt_events::table, Eq<receipt_events::stringer_id, i64>> {
        events_of(self.id)
    }

    /// This stringer's closures and nobody else's.
    pub fn closures(&self) -> Filter<closures::table, Eq<closures::stringer_id, i64>> {
        closures::table.filter(closures::stringer_id.eq(self.id.0))
    }

    /// This stringer's `stringer_id` for a row it writes: `column` equals it.
    pub fn owns<C>(&self, column: C) -> Eq<C, i64>
    where
        C: ExpressionMethods + Expression<SqlType = diesel::sql_types::BigInt>,
    {
        column.eq(self.id.0)
    }

    /// This stringer's own row.
    pub fn row(&self) -> Filter<stringers::table, Eq<stringers::id, i64>> {
        stringers::table.filter(stringers::id.eq(self.id.0))
    }

    /// The stringer with this handle (handles ignore case).
    pub fn load(conn: &mut DbConn, handle: &str) -> Result<Tenant, Error> {
        let handle = handle.to_ascii_lowercase();
        stringers::table
            .filter(stringers::handle.eq(&handle))
            .select(TenantRow::as_select())
            .first(conn)
            .optional()?
            .ok_or(Error::NoSuchStringer(handle))?
            .try_into()
    }

    /// The stringer who owns an order, for commands run without `--stringer`.
    pub fn owner_of(conn: &mut DbConn, order: OrderId) -> Result<Tenant, Error> {
        orders::table
            .inner_join(stringers::table)
            .filter(orders::id.eq(order.0))
            .select(TenantRow::as_select())
            .first(conn)
            .optional()?
            .ok_or(Error::NoSuchOrder { order, stringer: None })?
            .try_into()
    }

    /// The stringer whose customer this is, for commands run without `--stringer`.
    pub fn owner_of_customer(conn: &mut DbConn, customer: CustomerId) -> Result<Tenant, Error> {
        customers::table
            .inner_join(stringers::table)
            .filter(customers::id.eq(customer.0))
            .select(TenantRow::as_select())
            .first(conn)
            .optional()?
            .ok_or(Error::NoSuchCustomer { customer, stringer: None })?
            .try_into()
    }

    /// The stringer whose customer's racket this is.
    pub fn owner_of_racket(conn: &mut DbConn, racket: RacketId) -> Result<Tenant, Error> {
        rackets::table
            .inner_join(stringers::table)
            .filter(rackets::id.eq(racket.0))
            .select(TenantRow::as_select())
            .first(conn)
            .optional()?
            .ok_or(Error::NoSuchRacket { racket: racket.to_string(), stringer: None })?
            .try_into()
    }

    /// The one stringer of a database that has only one: commands need no `--stringer`
    /// there. None when there are several, or none.
    pub fn only(conn: &mut DbConn) -> Result<Option<Tenant>, Error> {
        let two: Vec<TenantRow> =
            stringers::table.order(stringers::id).select(TenantRow::as_select()).limit(2).load(conn)?;
        match <[TenantRow; 1]>::try_from(two) {
            Ok([only]) => Ok(Some(only.try_into()?)),
            Err(_) => Ok(None),
        }
    }

    /// The named stringer (handles ignore case), or with none named, the owner of `order`.
    pub fn named_or_owner(conn: &mut DbConn, handle: Option<&str>, order: OrderId) -> Result<Tenant, Error> {
        match handle {
            Some(handle) => Tenant::load(conn, handle),
            None => Tenant::owner_of(conn, order),
        }
    }

    /// The stringer as `receipts_mint_now` looked it up (`db::mint::mint_now`).
    pub(super) fn looked_up(id: i64, handle: String, timezone: String) -> Result<Tenant, Error> {
        TenantRow { id, handle, timezone }.try_into()
    }

    /// Every stringer, by handle: what the views over all stringers go through, one tenant
    /// at a time.
    pub fn all(conn: &mut DbConn) -> Result<Vec<Tenant>, Error> {
        stringers::table
            .order(stringers::handle)
            .select(TenantRow::as_select())
            .load(conn)?
            .into_iter()
            .map(Tenant::try_from)
            .collect()
    }

    /// The error for an order id this stringer does not have.
    pub fn no_such_order(&self, order: OrderId) -> Error {
        Error::NoSuchOrder { order, stringer: Some(self.handle.clone()) }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = stringers)]
struct TenantRow {
    id: i64,
    handle: String,
    timezone: String,
}

impl TryFrom<TenantRow> for Tenant {
    type Error = Error;

    fn try_from(row: TenantRow) -> Result<Tenant, Error> {
        let zone = stored_zone(&row.handle, &row.timezone)?;
        Ok(Tenant { id: StringerId(row.id), handle: row.handle, zone })
    }
}

/// A stringer's stored time zone: the one policy for reading it back. A zone this program
/// does not know is an error naming the stringer, never a silent fallback to UTC (that
/// would move receipts into other years).
pub fn stored_zone(handle: &str, zone: &str) -> Result<Tz, Error> {
    crate::domain::parse_timezone(zone)
        .map_err(|_| Error::UnknownZone { stringer: handle.to_string(), zone: zone.to_string() })
}

// The journal's own machinery (chaining an event, sealing old documents) works from a
// stringer's id before any command has looked the stringer up: scoped by that id, here.

/// One stringer's journal, by id.
pub fn events_of(
    stringer: StringerId,
) -> Filter<receipt_events::table, Eq<receipt_events::stringer_id, i64>> {
    receipt_events::table.filter(receipt_events::stringer_id.eq(stringer.0))
}

/// One stringer's chain head, by id.
pub fn chain_head_of(stringer: StringerId) -> Filter<chain_heads::table, Eq<chain_heads::stringer_id, i64>> {
    chain_heads::table.filter(chain_heads::stringer_id.eq(stringer.0))
}

/// One stringer's orders, by id.
pub fn orders_of(stringer: StringerId) -> Filter<orders::table, Eq<orders::stringer_id, i64>> {
    orders::table.filter(orders::stringer_id.eq(stringer.0))
}

/// One stringer's credit notes, by id.
pub fn credit_notes_of(
    stringer: StringerId,
) -> Filter<credit_notes::table, Eq<credit_notes::stringer_id, i64>> {
    credit_notes::table.filter(credit_notes::stringer_id.eq(stringer.0))
}
