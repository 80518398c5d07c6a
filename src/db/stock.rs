//! String stock (SPEC 19): reels bought and rackets strung, kept as append-only moves; what
//! is left of a string is their sum. A mint uses the stocked strings its order names (in
//! its own transaction: `receipts_use_string` on PostgreSQL, `use_for` here on SQLite) and
//! never waits for or fails on the stock.

use super::schema::{string_moves, strings};
use super::{DbConn, Tenant};
use crate::domain::{fold, now_utc, Currency, Length, OrderId, Price};
use crate::error::Error;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};

/// A string in stock, as `strings list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stocked {
    pub name: String,
    /// What the moves add up to (below zero when more was used than recorded).
    pub left: Length,
    /// What one racket took the last time it was used, else a tennis racket's.
    pub per_racket: Length,
    /// Below this the mint warns and the queue says so.
    pub low: Length,
}

impl Stocked {
    /// Whole rackets the rest strings.
    pub fn rackets_left(&self) -> i32 {
        (self.left.0.max(0)) / self.per_racket.0.max(1)
    }

    pub fn is_low(&self) -> bool {
        self.left < self.low
    }
}

/// A reel bought.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reel {
    pub name: String,
    pub length: Length,
    pub cost: Option<(Price, Currency)>,
    /// A new low-stock mark for the string.
    pub low: Option<Length>,
}

/// Records a reel: the string is stocked from now on (named as first given; the same name in
/// other case or accents is the same string). Returns the string's stock after it.
pub fn add_reel(conn: &mut DbConn, tenant: &Tenant, reel: &Reel) -> Result<Stocked, Error> {
    let name = reel.name.trim();
    let search_name = fold(name);
    let now = now_utc();
    let found: Option<i64> = tenant
        .strings()
        .filter(strings::search_name.eq(&search_name))
        .select(strings::id)
        .first(conn)
        .optional()?;
    let string = match found {
        Some(id) => id,
        None => diesel::insert_into(strings::table)
            .values((
                tenant.owns(strings::stringer_id),
                strings::name.eq(name),
                strings::search_name.eq(&search_name),
                strings::created_at.eq(now),
            ))
            .returning(strings::id)
            .get_result(conn)?,
    };
    if let Some(low) = reel.low {
        diesel::update(strings::table.filter(strings::id.eq(string)))
            .set(strings::low_cm.eq(low.0))
            .execute(conn)?;
    }
    diesel::insert_into(string_moves::table)
        .values((
            tenant.owns(string_moves::stringer_id),
            string_moves::string_id.eq(string),
            string_moves::length_cm.eq(reel.length.0),
            string_moves::cost_minor.eq(reel.cost.as_ref().map(|(price, _)| price.0)),
            string_moves::currency.eq(reel.cost.as_ref().map(|(_, currency)| currency.as_str())),
            string_moves::created_at.eq(now),
        ))
        .execute(conn)?;
    let stocked = list(conn, tenant)?.into_iter().find(|s| fold(&s.name) == search_name);
    stocked
        .ok_or_else(|| Error::Internal { what: "the stock", detail: format!("\"{name}\" was not recorded") })
}

/// The tenant's stocked strings, by name, with what is left of each.
pub fn list(conn: &mut DbConn, tenant: &Tenant) -> Result<Vec<Stocked>, Error> {
    let sql = super::numbered_parameters(conn, STOCK);
    let rows: Vec<StockRow> = diesel::sql_query(sql).bind::<BigInt, _>(tenant.id().0).load(conn)?;
    Ok(rows.into_iter().map(Stocked::from).collect())
}

/// The strings an order used when it was minted, as they stand now.
pub fn used_by(conn: &mut DbConn, tenant: &Tenant, order: OrderId) -> Result<Vec<Stocked>, Error> {
    let used: Vec<String> = tenant
        .string_moves()
        .inner_join(strings::table)
        .filter(string_moves::order_id.eq(order.0))
        .select(strings::search_name)
        .load(conn)?;
    Ok(list(conn, tenant)?.into_iter().filter(|s| used.contains(&fold(&s.name))).collect())
}

/// Each string's moves summed, and its last use; one query, however many strings.
const STOCK: &str = "
SELECT s.name, s.low_cm,
    CAST(coalesce((SELECT sum(m.length_cm) FROM string_moves m WHERE m.string_id = s.id), 0) AS BIGINT) AS left_cm,
    (SELECT -m.length_cm FROM string_moves m WHERE m.string_id = s.id AND m.length_cm < 0
     ORDER BY m.id DESC LIMIT 1) AS last_use_cm
FROM strings s WHERE s.stringer_id = $1
ORDER BY s.search_name";

#[derive(QueryableByName)]
struct StockRow {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Nullable<Integer>)]
    low_cm: Option<i32>,
    #[diesel(sql_type = BigInt)]
    left_cm: i64,
    #[diesel(sql_type = Nullable<Integer>)]
    last_use_cm: Option<i32>,
}

impl From<StockRow> for Stocked {
    fn from(row: StockRow) -> Stocked {
        let per_racket = Length(row.last_use_cm.unwrap_or(Length::racket_of(Default::default()).0));
        Stocked {
            name: row.name,
            left: Length(row.left_cm.clamp(i32::MIN.into(), i32::MAX.into()) as i32),
            // Two rackets' worth, unless the stringer said.
            low: Length(row.low_cm.unwrap_or(2 * per_racket.0)),
            per_racket,
        }
    }
}

/// SQLite's mint uses the string in its transaction, as `receipts_use_string` does on
/// PostgreSQL: the order's length (else its sport's) of each stocked string it names, a
/// hybrid's half each, none of the customer's own.
pub(super) fn use_for(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: OrderId,
    now: chrono::NaiveDateTime,
) -> Result<(), Error> {
    diesel::sql_query(super::numbered_parameters(conn, USE_STRING))
        .bind::<BigInt, _>(order.0)
        .bind::<BigInt, _>(tenant.id().0)
        .bind::<Timestamp, _>(now)
        .execute(conn)?;
    Ok(())
}

const USE_STRING: &str = "
WITH o AS (
    SELECT ord.string, ord.cross_string,
        coalesce(ord.string_length_cm,
                 CASE WHEN r.sport IN ('badminton', 'squash') THEN 1000 ELSE 1200 END) AS cm
    FROM orders ord LEFT JOIN rackets r ON r.id = ord.racket_id
    WHERE ord.id = $1 AND NOT ord.own_string
), used AS (
    SELECT string AS name, CASE WHEN cross_string IS NULL THEN cm ELSE cm - cm / 2 END AS cm FROM o
    UNION ALL
    SELECT cross_string, cm / 2 FROM o WHERE cross_string IS NOT NULL
)
INSERT INTO string_moves (stringer_id, string_id, order_id, length_cm, created_at)
SELECT $2, s.id, $1, -used.cm, $3
FROM used JOIN strings s ON s.stringer_id = $2 AND s.search_name = receipts_fold(used.name)
WHERE used.cm > 0";
