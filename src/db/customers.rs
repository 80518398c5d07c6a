//! The customer register (SPEC 18): who the customers of a stringer are, found whatever the
//! case, accents or spacing of their name; merged when one was entered twice; forgotten when
//! they ask (privacy law), keeping only what issued documents must keep.

use super::events::{self, Event};
use super::orders::{Order, OrderRow};
use super::schema::{customers, event_values, orders, rackets, receipt_events};
use super::{DbConn, Tenant};
use crate::domain::{fold, local_year, now_utc, BuyerIds, CustomerId, OrderKind, ReceiptNumber, StringerId};
use crate::error::Error;
use crate::payment::Postal;
use chrono::NaiveDateTime;
use diesel::prelude::*;

/// A customer as the program uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Customer {
    pub id: CustomerId,
    pub stringer: StringerId,
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    /// Free address lines.
    pub address: Option<String>,
    /// The structured address (a QR-bill's debtor).
    pub postal: Option<Postal>,
    /// Internal: never printed.
    pub notes: Option<String>,
    /// As a business names it on an invoice (SPEC 24).
    pub business: BuyerIds,
    /// When the customer was forgotten (privacy law): only an anonymous name is left.
    pub forgotten_at: Option<NaiveDateTime>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = customers)]
struct CustomerRow {
    id: i64,
    stringer_id: i64,
    name: String,
    email: Option<String>,
    phone: Option<String>,
    address: Option<String>,
    postal: Option<String>,
    notes: Option<String>,
    forgotten_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    business: Option<String>,
}

impl From<CustomerRow> for Customer {
    fn from(row: CustomerRow) -> Customer {
        Customer {
            id: CustomerId(row.id),
            stringer: StringerId(row.stringer_id),
            name: row.name,
            email: row.email,
            phone: row.phone,
            address: row.address,
            postal: row.postal.as_deref().and_then(Postal::from_stored),
            notes: row.notes,
            business: BuyerIds::from_stored(row.business.as_deref()),
            forgotten_at: row.forgotten_at,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

impl Customer {
    /// The lines printed under the customer's name: the structured address, else the free
    /// lines.
    pub fn address_lines(&self) -> Vec<String> {
        match (&self.postal, &self.address) {
            (Some(postal), _) => postal.lines(),
            (None, Some(lines)) => lines.lines().map(str::to_string).collect(),
            (None, None) => Vec::new(),
        }
    }

    /// The town, as candidates are told apart by it.
    pub fn town(&self) -> Option<String> {
        self.postal
            .as_ref()
            .map(|p| p.town.clone())
            .or_else(|| self.address.as_ref()?.lines().last().map(str::to_string))
    }
}

/// What a customer is: all of it for a new one; for an edit, the fields that change (`None`
/// leaves a field as it is; an empty text clears it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomerChanges {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub address: Option<String>,
    /// `Postal::stored`.
    pub postal: Option<String>,
    pub notes: Option<String>,
    /// The business identifiers, each checked where it is typed.
    pub vat_id: Option<String>,
    pub buyer_reference: Option<String>,
    pub tax_code: Option<String>,
    pub sdi_code: Option<String>,
    pub pec: Option<String>,
}

impl CustomerChanges {
    /// The business identifiers after these changes to `old`'s.
    fn business(&self, old: &BuyerIds) -> BuyerIds {
        BuyerIds {
            vat_id: stored(&self.vat_id, &old.vat_id),
            reference: stored(&self.buyer_reference, &old.reference),
            tax_code: stored(&self.tax_code, &old.tax_code),
            sdi_code: stored(&self.sdi_code, &old.sdi_code),
            pec: stored(&self.pec, &old.pec),
        }
    }
}

/// A text to store: `None` leaves the field, an empty text clears it.
fn stored(new: &Option<String>, old: &Option<String>) -> Option<String> {
    match new.as_deref().map(str::trim) {
        Some("") => None,
        Some(text) => Some(text.to_string()),
        None => old.clone(),
    }
}

/// The phone number's digits, as search compares them.
pub fn phone_digits(phone: &str) -> String {
    phone.chars().filter(char::is_ascii_digit).collect()
}

/// Adds a customer; returns the id.
pub fn add(conn: &mut DbConn, tenant: &Tenant, new: &CustomerChanges) -> Result<CustomerId, Error> {
    let name = new.name.as_deref().map(str::trim).filter(|n| !n.is_empty()).ok_or(Error::BlankName)?;
    let now = now_utc();
    let text = |value: &Option<String>| stored(value, &None);
    diesel::insert_into(customers::table)
        .values((
            tenant.owns(customers::stringer_id),
            customers::name.eq(name),
            customers::search_name.eq(fold(name)),
            customers::search_email.eq(text(&new.email).map(|e| fold(&e))),
            customers::email.eq(text(&new.email)),
            customers::phone.eq(text(&new.phone)),
            customers::phone_digits.eq(text(&new.phone).map(|p| phone_digits(&p))),
            customers::address.eq(text(&new.address)),
            customers::postal.eq(new.postal.as_deref().filter(|p| !p.trim().is_empty())),
            customers::notes.eq(text(&new.notes)),
            customers::business.eq(new.business(&BuyerIds::default()).stored()),
            customers::created_at.eq(now),
            customers::updated_at.eq(now),
        ))
        .returning(customers::id)
        .get_result(conn)
        .map(CustomerId)
        .map_err(Error::from)
}

/// One of the tenant's customers.
pub fn find(conn: &mut DbConn, tenant: &Tenant, id: CustomerId) -> Result<Customer, Error> {
    tenant
        .customers()
        .filter(customers::id.eq(id.0))
        .select(CustomerRow::as_select())
        .first(conn)
        .optional()?
        .map(Customer::from)
        .ok_or_else(|| Error::NoSuchCustomer { customer: id, stringer: Some(tenant.handle().to_string()) })
}

/// Changes a customer; None when that would leave it as it is. Issued documents keep what
/// they froze: they print the order's own copy of the name and address.
pub fn edit(
    conn: &mut DbConn,
    tenant: &Tenant,
    id: CustomerId,
    changes: &CustomerChanges,
) -> Result<Option<Customer>, Error> {
    let current = find(conn, tenant, id)?;
    if changes.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err(Error::BlankName);
    }
    let name = changes.name.as_deref().map_or(current.name.clone(), |n| n.trim().to_string());
    let postal = current.postal.as_ref().map(Postal::stored);
    let wanted = (
        name,
        stored(&changes.email, &current.email),
        stored(&changes.phone, &current.phone),
        stored(&changes.address, &current.address),
        // Stored as it is (its empty fields are lines of their own).
        match changes.postal.as_deref() {
            Some(p) if p.trim().is_empty() => None,
            Some(p) => Some(p.to_string()),
            None => postal.clone(),
        },
        stored(&changes.notes, &current.notes),
        changes.business(&current.business),
    );
    let now = (
        current.name.clone(),
        current.email.clone(),
        current.phone.clone(),
        current.address.clone(),
        postal,
        current.notes.clone(),
        current.business.clone(),
    );
    if wanted == now {
        return Ok(None);
    }
    let (name, email, phone, address, postal, notes, business) = wanted;
    if business != current.business {
        // The customer's orders not numbered yet take them; issued documents keep theirs.
        diesel::update(
            tenant.orders().filter(orders::customer_id.eq(id.0)).filter(orders::receipt_seq.is_null()),
        )
        .set(orders::customer_business.eq(business.stored()))
        .execute(conn)?;
    }
    diesel::update(tenant.customers().filter(customers::id.eq(id.0)))
        .set((
            customers::search_name.eq(fold(&name)),
            customers::name.eq(name),
            customers::phone_digits.eq(phone.as_deref().map(phone_digits)),
            customers::search_email.eq(email.as_deref().map(fold)),
            customers::email.eq(email),
            customers::phone.eq(phone),
            customers::address.eq(address),
            customers::postal.eq(postal),
            customers::notes.eq(notes),
            customers::business.eq(business.stored()),
            customers::updated_at.eq(now_utc()),
        ))
        .execute(conn)?;
    find(conn, tenant, id).map(Some)
}

/// The tenant's customers whose name or e-mail holds `text` (case, accents and repeated
/// spaces ignored), or whose phone number holds its digits; all of them without a text. By
/// name, then id. Both sides are folded when they are written (`search_name`,
/// `search_email`). `page`: a page of them.
///
/// Every kind is answered from an index: the list by the (stringer, name) index in its
/// order; a text by the trigrams of what it looks in (PostgreSQL's pg_trgm answers the
/// `LIKE '%text%'` itself; SQLite's FTS5 table `customers_text`, asked for the text as a
/// phrase, which over trigrams is the substring). A text of fewer than three characters has
/// no trigram: it is looked for row by row, as short texts are rare and find many.
pub fn search(
    conn: &mut DbConn,
    tenant: &Tenant,
    text: Option<&str>,
    page: Option<Page>,
) -> Result<Vec<Customer>, Error> {
    // A page after a customer starts where that one stands in the order (the keyset), read
    // from the index there however far into the list: no rows skipped one by one.
    let after = match page.map(|p| p.start) {
        Some(Start::After(id)) => {
            let name: Option<String> = tenant
                .customers()
                .filter(customers::id.eq(id.0))
                .select(customers::search_name)
                .first(conn)
                .optional()?;
            let name = name.ok_or_else(|| Error::NoSuchCustomer {
                customer: id,
                stringer: Some(tenant.handle().to_string()),
            })?;
            Some((name, id.0))
        }
        _ => None,
    };
    let page_of = |mut query: customers::BoxedQuery<'static, _, _>| {
        if let Some((name, id)) = after.clone() {
            query = query.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>("(customers.search_name, customers.id) > (")
                    .bind::<diesel::sql_types::Text, _>(name)
                    .sql(", ")
                    .bind::<diesel::sql_types::BigInt, _>(id)
                    .sql(")"),
            );
        }
        query = query.order((customers::search_name, customers::id));
        match page {
            Some(Page { start: Start::Offset(offset), limit }) => query.offset(offset).limit(limit),
            Some(Page { limit, .. }) => query.limit(limit),
            None => query,
        }
    };
    let Some(text) = text.map(fold).filter(|t| !t.is_empty()) else {
        let query = page_of(tenant.customers().select(CustomerRow::as_select()).into_boxed());
        return Ok(query.load::<CustomerRow>(conn)?.into_iter().map(Customer::from).collect());
    };
    // The stringer's customers are not looked up by the (stringer, name) index when a text
    // narrows them: the text's own index does.
    let mut query = tenant.customers_by_another_index().select(CustomerRow::as_select());
    let digits = phone_digits(&text);
    // A text of digits (and the signs phone numbers are written with) is a phone number.
    let phone_like = text.chars().all(|c| c.is_ascii_digit() || " +-/().".contains(c)) && digits.len() >= 3;
    let trigrams = if phone_like { digits.len() } else { text.chars().count() } >= 3;
    query = match (&*conn, phone_like, trigrams) {
        (DbConn::Sqlite(_), _, true) => {
            let phrase = if phone_like {
                format!("phone_digits : \"{digits}\"")
            } else {
                format!("{{search_name search_email}} : \"{}\"", text.replace('"', "\"\""))
            };
            query.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "customers.id IN (SELECT rowid FROM customers_text WHERE customers_text MATCH ",
                )
                .bind::<diesel::sql_types::Text, _>(phrase)
                .sql(")"),
            )
        }
        (_, true, _) => query.filter(customers::phone_digits.like(format!("%{digits}%"))),
        (_, false, _) => {
            let like = format!("%{}%", escaped(&text));
            query.filter(
                customers::search_name
                    .like(like.clone())
                    .escape('\\')
                    .or(customers::search_email.like(like).escape('\\')),
            )
        }
    };
    let rows: Vec<CustomerRow> = page_of(query).load(conn)?;
    Ok(rows.into_iter().map(Customer::from).collect())
}

/// A page of a listing: at most `limit`, from where `start` says.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub start: Start,
    pub limit: i64,
}

#[derive(Debug, Clone, Copy)]
pub enum Start {
    /// After skipping this many.
    Offset(i64),
    /// After this customer, in the listing's order.
    After(CustomerId),
}

/// The tenant's newest customers, at most `limit`, newest first: the names the counter's
/// form offers as one types.
pub fn newest(conn: &mut DbConn, tenant: &Tenant, limit: i64) -> Result<Vec<String>, Error> {
    Ok(tenant.customers().select(customers::name).order(customers::id.desc()).limit(limit).load(conn)?)
}

/// `text` for a LIKE pattern: its own `%`, `_` and `\` taken literally.
fn escaped(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// The tenant's customers of exactly this name, as search compares names.
pub fn named(conn: &mut DbConn, tenant: &Tenant, name: &str) -> Result<Vec<Customer>, Error> {
    let rows: Vec<CustomerRow> = tenant
        .customers()
        .filter(customers::search_name.eq(fold(name)))
        .filter(customers::forgotten_at.is_null())
        .order(customers::id)
        .select(CustomerRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(Customer::from).collect())
}

/// The customer's orders, newest first by when they were taken.
pub fn history(conn: &mut DbConn, tenant: &Tenant, id: CustomerId) -> Result<Vec<Order>, Error> {
    let rows: Vec<OrderRow> = tenant
        .orders()
        .filter(orders::customer_id.eq(id.0))
        .order((orders::ordered_at.is_null(), orders::ordered_at.desc(), orders::id.desc()))
        .select(OrderRow::as_select())
        .load(conn)?;
    Ok(rows.into_iter().map(Order::from).collect())
}

/// Moves the orders and rackets of `duplicate` to `kept` and removes the duplicate,
/// journaled (`customer_merge`). Both must be the tenant's, and not one.
pub fn merge(
    conn: &mut DbConn,
    tenant: &Tenant,
    duplicate: CustomerId,
    kept: CustomerId,
) -> Result<Merged, Error> {
    if duplicate == kept {
        return Err(Error::BadInput(format!("customer {duplicate} cannot be merged into itself")));
    }
    let (from, into) = (find(conn, tenant, duplicate)?, find(conn, tenant, kept)?);
    let now = now_utc();
    let orders = diesel::update(tenant.orders().filter(orders::customer_id.eq(from.id.0)))
        .set(orders::customer_id.eq(into.id.0))
        .execute(conn)?;
    let rackets = diesel::update(tenant.rackets().filter(rackets::customer_id.eq(from.id.0)))
        .set((rackets::customer_id.eq(into.id.0), rackets::updated_at.eq(now)))
        .execute(conn)?;
    diesel::delete(tenant.customers().filter(customers::id.eq(from.id.0))).execute(conn)?;
    let reason =
        format!("customer {} ({}) merged into customer {} ({})", from.id, from.name, into.id, into.name);
    let year = local_year(now, tenant.zone());
    events::record(
        conn,
        &Event::customer(
            tenant.id(),
            year,
            crate::domain::EventKind::CustomerMerge,
            &from.id.to_string(),
            &reason,
        ),
    )?;
    Ok(Merged { into, orders, rackets })
}

/// What a merge moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub into: Customer,
    pub orders: usize,
    pub rackets: usize,
}

/// What forgetting a customer erased, and what the law makes it keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forgotten {
    pub customer: CustomerId,
    /// Orders without a number whose personal data was erased.
    pub erased_orders: usize,
    /// The receipts whose documents keep the name and address as printed (10 years).
    pub kept: Vec<ReceiptNumber>,
}

/// Forgets a customer (privacy law: nDSG, GDPR): erases the e-mail, phone, addresses and
/// notes of the customer and the notes of their rackets, the personal data of their orders
/// without a number, and the e-mail and internal notes of their numbered ones (never
/// printed). What issued documents print (name and address) stays frozen on those orders for
/// the legal retention, and the customer keeps only an anonymous name. The journal keeps
/// what it recorded, and gains a `customer_forget` entry with the reason.
pub fn forget(conn: &mut DbConn, tenant: &Tenant, id: CustomerId, reason: &str) -> Result<Forgotten, Error> {
    let customer = find(conn, tenant, id)?;
    if let Some(when) = customer.forgotten_at {
        return Err(Error::AlreadyForgotten {
            customer: id,
            on: crate::domain::local_date(when, tenant.zone()),
        });
    }
    let now = now_utc();
    let anonymous = format!("forgotten customer {id}");
    diesel::update(tenant.customers().filter(customers::id.eq(id.0)))
        .set((
            customers::name.eq(&anonymous),
            customers::search_name.eq(fold(&anonymous)),
            customers::email.eq(None::<String>),
            customers::search_email.eq(None::<String>),
            customers::phone.eq(None::<String>),
            customers::phone_digits.eq(None::<String>),
            customers::address.eq(None::<String>),
            customers::postal.eq(None::<String>),
            customers::notes.eq(None::<String>),
            // A consumer's codice fiscale and PEC are personal: the identifiers go too.
            customers::business.eq(None::<String>),
            customers::forgotten_at.eq(now),
            customers::updated_at.eq(now),
        ))
        .execute(conn)?;
    diesel::update(tenant.rackets().filter(rackets::customer_id.eq(id.0)))
        .set((rackets::notes.eq(None::<String>), rackets::updated_at.eq(now)))
        .execute(conn)?;
    let theirs = tenant.orders().filter(orders::customer_id.eq(id.0));
    let erased_orders = diesel::update(theirs.filter(orders::receipt_seq.is_null()))
        .set((
            orders::customer.eq(&anonymous),
            orders::email.eq(None::<String>),
            orders::customer_address.eq(None::<String>),
            orders::customer_postal.eq(None::<String>),
            orders::customer_note.eq(None::<String>),
            orders::notes.eq(None::<String>),
            orders::customer_business.eq(None::<String>),
            orders::updated_at.eq(now),
        ))
        .execute(conn)?;
    diesel::update(theirs.filter(orders::receipt_seq.is_not_null()))
        .set((orders::email.eq(None::<String>), orders::notes.eq(None::<String>), orders::updated_at.eq(now)))
        .execute(conn)?;
    let kept: Vec<(i32, i64)> = theirs
        .filter(orders::receipt_seq.is_not_null())
        .filter(orders::kind.eq(OrderKind::Client.as_str()))
        .order((orders::receipt_year, orders::receipt_seq))
        .select((orders::receipt_year.assume_not_null(), orders::receipt_seq.assume_not_null()))
        .load(conn)?;
    // The journal's personal values of their orders (addresses documents went to, notes),
    // erased; the events keep their digests, so the chain still verifies.
    let their_events = tenant
        .events()
        .filter(receipt_events::order_id.eq_any(theirs.select(orders::id.nullable())))
        .select(receipt_events::id);
    diesel::delete(event_values::table.filter(event_values::event_id.eq_any(their_events))).execute(conn)?;
    let year = local_year(now, tenant.zone());
    events::record(
        conn,
        &Event::customer(
            tenant.id(),
            year,
            crate::domain::EventKind::CustomerForget,
            &id.to_string(),
            reason,
        ),
    )?;
    Ok(Forgotten {
        customer: id,
        erased_orders,
        kept: kept.into_iter().map(|(year, seq)| ReceiptNumber::new(year, seq)).collect(),
    })
}

/// Links the client orders that have no customer yet to the register, every stringer's in
/// one pass, as the migration that brought the register linked the orders there were (and
/// `migrate-v1`, exempt from tenancy as it is, links the orders it brings): by name as search
/// compares names, the stringer's customer that has it (the first, when several do) or a new
/// one named as on the latest of those orders, with the latest e-mail and addresses they had;
/// their rackets likewise by racket text. Returns how many orders it linked.
pub fn link_orders(conn: &mut DbConn) -> Result<usize, Error> {
    use diesel::sql_types::Timestamp;
    let now = now_utc();
    // PostgreSQL's planner must know how many orders there are: just loaded (migrate-v1, in
    // this transaction) or never analysed, it takes them for a handful and joins them row by
    // row, which on a million orders runs for hours (benches/register.sh). ANALYZE sees this
    // transaction's own rows; a role that does not own the table is only warned, and hash
    // joins are then asked for outright.
    if let DbConn::Postgres(pg) = conn {
        diesel::connection::SimpleConnection::batch_execute(
            pg,
            "ANALYZE orders; SET LOCAL enable_nestloop = off",
        )?;
    }
    let run = |conn: &mut DbConn, sql: String| -> QueryResult<usize> {
        let sql = super::numbered_parameters(conn, &sql);
        diesel::sql_query(sql).bind::<Timestamp, _>(now).execute(conn)
    };
    run(conn, format!("WITH {SPELLINGS} {NEW_CUSTOMERS}"))?;
    run(conn, format!("WITH {SPELLINGS} {NEW_RACKETS}"))?;
    let link = format!("WITH {SPELLINGS}, {LINK}");
    let linked = diesel::sql_query(super::numbered_parameters(conn, &link).into_owned()).execute(conn)?;
    if let DbConn::Postgres(pg) = conn {
        diesel::connection::SimpleConnection::batch_execute(pg, "SET LOCAL enable_nestloop TO DEFAULT")?;
    }
    Ok(linked)
}

// Each spelling of a name is folded once, not once per order: a shop has thousands of
// customers and a million orders (benches/register.sh). MATERIALIZED keeps it so: inlined,
// PostgreSQL folds each order's name again wherever the fold is compared. Joins are written CROSS JOIN ...
// WHERE: SQLite then keeps the order written (the orders, then their spelling, then what
// that spelling finds), which it would otherwise get wrong a million times over; PostgreSQL
// plans it as any join. $1 is now.
const SPELLINGS: &str = "
spellings AS MATERIALIZED (
    SELECT spelling, receipts_fold(spelling) AS search_name FROM (
        SELECT DISTINCT customer AS spelling FROM orders
        WHERE kind = 'client' AND customer_id IS NULL AND customer IS NOT NULL) names),
models AS MATERIALIZED (
    SELECT spelling, receipts_fold(spelling) AS search_model FROM (
        SELECT DISTINCT racket AS spelling FROM orders
        WHERE kind = 'client' AND customer_id IS NULL AND racket IS NOT NULL) texts),
unlinked AS (
    SELECT o.id, o.stringer_id, o.customer, o.racket, o.email, o.customer_address, o.customer_postal,
        o.ordered_at, s.search_name
    FROM orders o CROSS JOIN spellings s
    WHERE s.spelling = o.customer AND o.kind = 'client' AND o.customer_id IS NULL AND s.search_name <> ''),
known AS (
    SELECT stringer_id, search_name, min(id) AS id FROM customers GROUP BY stringer_id, search_name)";

/// The customers of unlinked client orders the register lacks.
const NEW_CUSTOMERS: &str = "
INSERT INTO customers (stringer_id, name, search_name, email, search_email, address, postal, created_at, updated_at)
SELECT stringer_id, name, search_name, email, receipts_fold(email), address, postal, $1, $1
FROM (
    SELECT stringer_id, search_name,
        row_number() OVER latest AS rank,
        first_value(customer) OVER latest AS name,
        first_value(email) OVER (PARTITION BY stringer_id, search_name
            ORDER BY (email IS NULL), (ordered_at IS NULL), ordered_at DESC, id DESC) AS email,
        first_value(customer_address) OVER (PARTITION BY stringer_id, search_name
            ORDER BY (customer_address IS NULL), (ordered_at IS NULL), ordered_at DESC, id DESC) AS address,
        first_value(customer_postal) OVER (PARTITION BY stringer_id, search_name
            ORDER BY (customer_postal IS NULL), (ordered_at IS NULL), ordered_at DESC, id DESC) AS postal
    FROM unlinked
    WINDOW latest AS (PARTITION BY stringer_id, search_name ORDER BY (ordered_at IS NULL), ordered_at DESC, id DESC)
) grouped
WHERE rank = 1 AND NOT EXISTS (
    SELECT 1 FROM known WHERE known.stringer_id = grouped.stringer_id AND known.search_name = grouped.search_name)";

/// Their rackets the register lacks: one per customer and racket text.
const NEW_RACKETS: &str = "
INSERT INTO rackets (stringer_id, customer_id, model, search_model, created_at, updated_at)
SELECT stringer_id, customer_id, model, search_model, $1, $1
FROM (
    SELECT u.stringer_id, known.id AS customer_id, m.search_model,
        row_number() OVER latest AS rank,
        first_value(u.racket) OVER latest AS model
    FROM unlinked u CROSS JOIN known CROSS JOIN models m
    WHERE known.stringer_id = u.stringer_id AND known.search_name = u.search_name
      AND m.spelling = u.racket AND m.search_model <> ''
    WINDOW latest AS (PARTITION BY known.id, m.search_model
        ORDER BY (u.ordered_at IS NULL), u.ordered_at DESC, u.id DESC)
) grouped
WHERE rank = 1 AND NOT EXISTS (
    SELECT 1 FROM rackets r WHERE r.customer_id = grouped.customer_id AND r.search_model = grouped.search_model)";

/// The orders linked, customer and racket in one pass over them.
const LINK: &str = "
racket_of AS (
    SELECT customer_id, search_model, min(id) AS id FROM rackets GROUP BY customer_id, search_model),
links AS (
    SELECT u.id, known.id AS customer_id, racket_of.id AS racket_id
    FROM unlinked u CROSS JOIN known
    LEFT JOIN models m ON m.spelling = u.racket
    LEFT JOIN racket_of ON racket_of.customer_id = known.id AND racket_of.search_model = m.search_model
    WHERE known.stringer_id = u.stringer_id AND known.search_name = u.search_name)
UPDATE orders SET customer_id = links.customer_id, racket_id = links.racket_id
FROM links WHERE orders.id = links.id";
