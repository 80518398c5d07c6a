//! The day's closure (SPEC 23): the events of a stringer's business day summed (documents
//! per series, currency and VAT rate; voided numbers; payments per method and currency),
//! added to perpetual grand totals that never reset, numbered gapless per stringer, signed
//! with the stringer's Ed25519 key, and recorded as an event of the chain.
//!
//! What is signed is the closure's canonical JSON (RFC 8785: keys sorted, no white space,
//! integers written as strings); its SHA-256 is the closure's digest, the anchor a stringer
//! keeps outside the database.

use super::events::{self, Event, CLOSURE, LAST_CLOSURE, SERIES, SIGNING_KEY};
use super::part_payments::{self, Part, PART_PAID};
use super::schema::{closures, credit_notes, orders, receipt_events};
use super::{DbConn, Tenant};
use crate::domain::journal::{canonical_json, genesis, sha256_hex};
use crate::domain::{
    day_start, local_date, owed_when_paid, Currency, DayMoney, EventKind, Movement, PaymentMethod, Price,
    Refund, VatRate,
};
use crate::error::Error;
use crate::signing::{self, SigningKey};
use chrono::{Datelike, NaiveDate, NaiveDateTime};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A count and a sum in minor units, and for documents the VAT the sum includes (closures
/// made before they carried VAT have none).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sum {
    #[serde(with = "decimal")]
    pub count: i64,
    #[serde(with = "decimal")]
    pub amount_minor: i64,
    #[serde(default, with = "optional_decimal", skip_serializing_if = "Option::is_none")]
    pub vat_minor: Option<i64>,
}

impl Sum {
    fn add(&mut self, count: i64, amount: i64, vat: Option<i64>) {
        self.count += count;
        self.amount_minor += amount;
        if let Some(vat) = vat {
            self.vat_minor = Some(self.vat_minor.unwrap_or(0) + vat);
        }
    }

    /// Whether `recomputed` says what this stored sum says (its VAT too, when it has one).
    fn matches(&self, recomputed: &Sum) -> bool {
        self.count == recomputed.count
            && self.amount_minor == recomputed.amount_minor
            && self.vat_minor.is_none_or(|vat| recomputed.vat_minor == Some(vat))
    }
}

/// What a closure sums. Keys are words separated by spaces: documents by `SERIES CURRENCY
/// RATE` (the VAT rate in basis points, `-` for none), voids by series, payments and the
/// till's by `METHOD CURRENCY` (refunds negative).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub documents: BTreeMap<String, Sum>,
    pub voids: BTreeMap<String, Sum>,
    /// Payments the program recorded, per method and currency (bank transfers included).
    pub payments: BTreeMap<String, Sum>,
    /// Payments taken through the shop's own certified till: that till counts them, not
    /// this program, and they are kept apart.
    pub till: BTreeMap<String, Sum>,
}

impl Totals {
    /// These totals with `other` added.
    pub fn plus(&self, other: &Totals) -> Totals {
        let mut sum = self.clone();
        for (mine, theirs) in [
            (&mut sum.documents, &other.documents),
            (&mut sum.voids, &other.voids),
            (&mut sum.payments, &other.payments),
            (&mut sum.till, &other.till),
        ] {
            for (key, value) in theirs {
                mine.entry(key.clone()).or_default().add(value.count, value.amount_minor, value.vat_minor);
            }
        }
        sum
    }

    /// Whether the parts recomputed from what never changes (documents with their VAT, and
    /// voids) say what these stored totals say; payments are read from orders whose payment
    /// may be corrected later, and are proven by the signature alone.
    pub fn recomputed_as(&self, recomputed: &Totals) -> bool {
        let same = |stored: &BTreeMap<String, Sum>, again: &BTreeMap<String, Sum>| {
            stored.len() == again.len()
                && stored.iter().all(|(key, sum)| again.get(key).is_some_and(|again| sum.matches(again)))
        };
        same(&self.documents, &recomputed.documents) && same(&self.voids, &recomputed.voids)
    }
}

/// A document key for people: `receipts CHF 8.1 %`, `credits EUR no VAT`.
pub fn document_key_shown(key: &str) -> String {
    match key.rsplit_once(' ') {
        Some((series, "-")) => format!("{series} no VAT"),
        Some((series, rate)) => match rate.parse::<i32>() {
            Ok(bp) => format!("{series} {} %", crate::domain::VatRate(bp)),
            Err(_) => key.to_string(),
        },
        None => key.to_string(),
    }
}

/// Integers written as strings (RFC 8785 keeps numbers exact only within 2^53).
mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&n.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// Optional integers written as strings.
mod optional_decimal {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
        match n {
            Some(n) => s.serialize_str(&n.to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Option::<String>::deserialize(d)?.map(|n| n.parse().map_err(serde::de::Error::custom)).transpose()
    }
}

/// A closure as stored.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = closures)]
pub struct Closure {
    pub stringer_id: i64,
    pub seq: i64,
    pub day: NaiveDate,
    pub first_event_seq: i64,
    pub event_seq: i64,
    pub event_hash: String,
    pub totals: String,
    pub grand_totals: String,
    pub previous: String,
    pub digest: String,
    pub public_key: String,
    pub signature: String,
    pub created_at: NaiveDateTime,
}

impl Closure {
    /// What is signed: the closure's fields as canonical JSON.
    pub fn canonical(&self) -> String {
        let totals = serde_json::from_str(&self.totals).unwrap_or(Value::String(self.totals.clone()));
        let grand =
            serde_json::from_str(&self.grand_totals).unwrap_or(Value::String(self.grand_totals.clone()));
        let value = serde_json::json!({
            "v": "receipts-closure-v1",
            "stringer": self.stringer_id.to_string(),
            "seq": self.seq.to_string(),
            "day": self.day.to_string(),
            "first_event_seq": self.first_event_seq.to_string(),
            "event_seq": self.event_seq.to_string(),
            "event_hash": self.event_hash,
            "previous": self.previous,
            "totals": totals,
            "grand_totals": grand,
            "public_key": self.public_key,
        });
        canonical_json(&value)
    }

    pub fn totals(&self) -> Result<Totals, String> {
        serde_json::from_str(&self.totals).map_err(|e| format!("its totals are not readable ({e})"))
    }

    pub fn grand_totals(&self) -> Result<Totals, String> {
        serde_json::from_str(&self.grand_totals)
            .map_err(|e| format!("its grand totals are not readable ({e})"))
    }
}

/// The stringer's closures, in order.
pub fn all(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Vec<Closure>> {
    tenant.closures().order(closures::seq).select(Closure::as_select()).load(conn)
}

fn last(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Option<Closure>> {
    tenant.closures().order(closures::seq.desc()).select(Closure::as_select()).first(conn).optional()
}

/// The stringer's last closure number here (0 for none).
pub fn last_number(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<i64> {
    Ok(last(conn, tenant)?.map_or(0, |c| c.seq))
}

/// The closures restores declared lost (`--last-closure`): the restore's event, the last
/// closure kept, the last known outside.
pub fn declared_lost(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Vec<(i64, i64, i64)>> {
    let rows: Vec<(Option<i64>, Option<String>, Option<String>)> = tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Restore.as_str()))
        .filter(receipt_events::field.eq(LAST_CLOSURE))
        .order(receipt_events::seq)
        .select((receipt_events::seq, receipt_events::old_value, receipt_events::new_value))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(seq, here, outside)| Some((seq?, here?.parse().ok()?, outside?.parse().ok()?)))
        .collect())
}

/// The public key recorded last for the stringer, if any.
pub fn recorded_key(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Option<String>> {
    tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Key.as_str()))
        .order(receipt_events::seq.desc())
        .select(receipt_events::new_value)
        .first::<Option<String>>(conn)
        .optional()
        .map(Option::flatten)
}

/// Records `key` as the stringer's signing key: the first (`key init`), or replacing the
/// one recorded, which signs the new (`key rotate`).
pub fn record_key(
    conn: &mut DbConn,
    tenant: &Tenant,
    key: &SigningKey,
    old: Option<&SigningKey>,
) -> Result<(), Error> {
    let recorded = recorded_key(conn, tenant)?;
    let year = local_date(crate::domain::now_utc(), tenant.zone()).year();
    let new = key.public_hex();
    match (recorded, old) {
        (Some(recorded), None) => Err(already_keyed(tenant, &recorded)),
        (None, Some(_)) => Err(Error::KeyProblem(format!(
            "{} has no signing key to replace: receipts key init makes the first",
            tenant.handle()
        ))),
        (Some(recorded), Some(old)) if recorded != old.public_hex() => {
            Err(not_the_recorded(tenant, &recorded))
        }
        (recorded, old) => {
            let rotation = old.map(|old| old.sign_hex(rotation_message(tenant, &new).as_bytes()));
            let event = Event::key(tenant.id(), year, recorded.as_deref(), &new, rotation.as_deref());
            events::record(conn, &event)?;
            Ok(())
        }
    }
}

/// `key init` of a stringer with a key recorded already.
pub fn already_keyed(tenant: &Tenant, recorded: &str) -> Error {
    Error::KeyProblem(format!(
        "{} has a signing key already (fingerprint {}): receipts key rotate replaces it",
        tenant.handle(),
        signing::fingerprint(recorded)
    ))
}

fn not_the_recorded(tenant: &Tenant, recorded: &str) -> Error {
    Error::KeyProblem(format!(
        "the key file is not the signing key recorded for {} (fingerprint {})",
        tenant.handle(),
        signing::fingerprint(recorded)
    ))
}

/// What the old key signs when it hands over to the new.
pub fn rotation_message(tenant: &Tenant, new: &str) -> String {
    format!("receipts-key-rotation-v1\n{}\n{new}", tenant.id().0)
}

/// What closing a day did.
#[derive(Debug)]
pub struct Closed {
    /// The closures made, earliest first (earlier unclosed days come first).
    pub made: Vec<Closure>,
    /// The day's closure as it stood, when there was nothing new to close.
    pub standing: Option<Closure>,
}

/// Closes the stringer's business days up to `day`: every day since the last closure that
/// has events gets a closure of its own, in order; a day closed already with nothing new
/// keeps its closure. Runs in the caller's write transaction.
pub fn close(conn: &mut DbConn, tenant: &Tenant, day: NaiveDate, key: &SigningKey) -> Result<Closed, Error> {
    match recorded_key(conn, tenant)? {
        None => {
            return Err(Error::KeyProblem(format!(
                "{} has no signing key: receipts key init makes one",
                tenant.handle()
            )))
        }
        Some(recorded) if recorded != key.public_hex() => return Err(not_the_recorded(tenant, &recorded)),
        Some(_) => {}
    }
    let mut made = Vec::new();
    // Closures lost in a restore keep their numbers: the next goes on above them.
    let lost_up_to = declared_lost(conn, tenant)?.iter().map(|(_, _, outside)| *outside).max().unwrap_or(0);
    loop {
        let previous = last(conn, tenant)?;
        let from = previous.as_ref().map_or(0, |p| p.event_seq);
        let first_new: Option<NaiveDateTime> = tenant
            .events()
            .filter(receipt_events::seq.gt(from))
            .filter(receipt_events::kind.ne(EventKind::Closure.as_str()))
            .order(receipt_events::seq)
            .select(receipt_events::created_at)
            .first(conn)
            .optional()?;
        let Some(first_new) = first_new else { break };
        let first_day = local_date(first_new, tenant.zone());
        if first_day > day {
            break;
        }
        // Instants never go back along the chain: the day ends before the first event of a
        // later day (read forward from the day's first, not back from the head).
        let end = day_start(first_day + chrono::Days::new(1), tenant.zone());
        let next_day: Option<Option<i64>> = tenant
            .events()
            .filter(receipt_events::seq.gt(from))
            .filter(receipt_events::created_at.ge(end))
            .order(receipt_events::seq)
            .select(receipt_events::seq)
            .first(conn)
            .optional()?;
        let mut day_events = tenant.events().filter(receipt_events::seq.gt(from)).into_boxed();
        if let Some(Some(next)) = next_day {
            day_events = day_events.filter(receipt_events::seq.lt(next));
        }
        let (to, to_hash): (Option<i64>, Option<String>) = day_events
            .order(receipt_events::seq.desc())
            .select((receipt_events::seq, receipt_events::hash))
            .first(conn)?;
        let (Some(to), Some(to_hash)) = (to, to_hash) else {
            return Err(Error::Internal {
                what: "cannot close the day",
                detail: "an event is not chained".into(),
            });
        };
        let totals = sum(conn, tenant, from + 1, to)?;
        let grand = match &previous {
            None => totals.clone(),
            Some(previous) => previous.grand_totals().map_err(Error::BadInput)?.plus(&totals),
        };
        let mut closure = Closure {
            stringer_id: tenant.id().0,
            seq: previous.as_ref().map_or(0, |p| p.seq).max(lost_up_to) + 1,
            day: first_day,
            first_event_seq: from + 1,
            event_seq: to,
            event_hash: to_hash,
            totals: canonical_json(&serde_json::to_value(&totals).expect("totals are JSON")),
            grand_totals: canonical_json(&serde_json::to_value(&grand).expect("totals are JSON")),
            previous: previous
                .as_ref()
                .map_or_else(|| genesis(tenant.id(), tenant.handle()), |p| p.digest.clone()),
            digest: String::new(),
            public_key: key.public_hex(),
            signature: String::new(),
            created_at: crate::domain::now_utc(),
        };
        let canonical = closure.canonical();
        closure.digest = sha256_hex(&canonical);
        closure.signature = key.sign_hex(canonical.as_bytes());
        diesel::insert_into(closures::table).values(&closure).execute(conn)?;
        let seq = closure.seq.to_string();
        events::record(conn, &Event::closure(tenant.id(), closure.day.year(), &seq, &closure.digest))?;
        made.push(closure);
        if first_day == day {
            break;
        }
    }
    let standing = match made.is_empty() {
        true => tenant
            .closures()
            .filter(closures::day.eq(day))
            .order(closures::seq.desc())
            .select(Closure::as_select())
            .first(conn)
            .optional()?,
        false => None,
    };
    Ok(Closed { made, standing })
}

/// An event as a closure sums it.
#[derive(Queryable)]
struct Summed {
    kind: String,
    created_at: NaiveDateTime,
    year: i32,
    first_seq: Option<i64>,
    last_seq: Option<i64>,
    order_id: Option<i64>,
    field: Option<String>,
    old_value: Option<String>,
    new_value: Option<String>,
}

/// The frozen sums of an order.
#[derive(Queryable)]
struct Priced {
    id: i64,
    price_minor: Option<i64>,
    items_minor: i64,
    currency: String,
    vat_rate_bp: Option<i32>,
    payment_method: Option<String>,
    part_paid_minor: i64,
}

/// A credit note as a closure sums it.
#[derive(Queryable)]
struct Refunded {
    year: i32,
    seq: i64,
    order: Option<i64>,
    issued_at: NaiveDateTime,
    amount: i64,
    vat: i64,
    currency: String,
    rate: Option<i32>,
    refund: String,
}

/// A `key` event: the key recorded (new), the one it replaced (old) and the old one's
/// signature of the hand-over.
#[derive(Queryable)]
pub struct KeyEvent {
    pub seq: i64,
    pub old: Option<String>,
    pub new: Option<String>,
    pub rotation: Option<String>,
}

/// The tenant's `key` events, in order.
pub fn key_events(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<Vec<KeyEvent>> {
    tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Key.as_str()))
        .filter(receipt_events::field.eq(SIGNING_KEY))
        .order(receipt_events::seq)
        .select((
            receipt_events::seq.assume_not_null(),
            receipt_events::old_value,
            receipt_events::new_value,
            receipt_events::reason,
        ))
        .load(conn)
}

/// The tenant's `closure` events: each closure's number, and the event's `seq`.
pub fn closure_events(conn: &mut DbConn, tenant: &Tenant) -> QueryResult<HashMap<String, i64>> {
    Ok(tenant
        .events()
        .filter(receipt_events::kind.eq(EventKind::Closure.as_str()))
        .filter(receipt_events::field.eq(CLOSURE))
        .select((receipt_events::old_value.assume_not_null(), receipt_events::seq.assume_not_null()))
        .load::<(String, i64)>(conn)?
        .into_iter()
        .collect())
}

/// What a closure's events need read to be summed: the events, their orders' frozen sums,
/// the reminder fees their bank payments included, and their credit notes.
struct Covered {
    events: Vec<Summed>,
    priced: HashMap<i64, Priced>,
    fees: HashMap<i64, i64>,
    credits: HashMap<(i32, i64), Refunded>,
    parts: HashMap<i64, Vec<Part>>,
}

/// Reads what the stringer's events `first..=last` cover.
fn covered(conn: &mut DbConn, tenant: &Tenant, first: i64, last: i64) -> QueryResult<Covered> {
    let events: Vec<Summed> = tenant
        .events()
        .filter(receipt_events::seq.between(first, last))
        .order(receipt_events::seq)
        .select((
            receipt_events::kind,
            receipt_events::created_at,
            receipt_events::year,
            receipt_events::first_seq,
            receipt_events::last_seq,
            receipt_events::order_id,
            receipt_events::field,
            receipt_events::old_value,
            receipt_events::new_value,
        ))
        .load(conn)?;
    let wanted: BTreeSet<i64> = events.iter().filter_map(|e| e.order_id).collect();
    let mut priced: HashMap<i64, Priced> = HashMap::new();
    let wanted: Vec<i64> = wanted.into_iter().collect();
    for chunk in wanted.chunks(10_000) {
        let rows: Vec<Priced> = tenant
            .orders()
            .filter(orders::id.eq_any(chunk))
            .select((
                orders::id,
                orders::price_minor,
                orders::items_minor,
                orders::currency,
                orders::vat_rate_bp,
                orders::payment_method,
                orders::part_paid_minor,
            ))
            .load(conn)?;
        priced.extend(rows.into_iter().map(|row| (row.id, row)));
    }
    // The reminder fees bank payments included: money received besides what was owed.
    let fees = super::applied_payments::fees(conn, tenant, &wanted)?;
    let credits: HashMap<(i32, i64), Refunded> = tenant
        .credit_notes()
        .filter(credit_notes::order_id.eq_any(&wanted))
        .select((
            credit_notes::credit_year,
            credit_notes::credit_seq,
            credit_notes::order_id,
            credit_notes::issued_at,
            credit_notes::amount_minor,
            credit_notes::vat_minor,
            credit_notes::currency,
            credit_notes::vat_rate_bp,
            credit_notes::refund_method,
        ))
        .load::<Refunded>(conn)?
        .into_iter()
        .map(|credit| ((credit.year, credit.seq), credit))
        .collect();
    let parts = part_payments::of(conn, tenant, &wanted)?;
    Ok(Covered { events, priced, fees, credits, parts })
}

/// The totals of the stringer's events `first..=last`.
pub fn sum(conn: &mut DbConn, tenant: &Tenant, first: i64, last: i64) -> QueryResult<Totals> {
    let Covered { events, priced, fees, credits, parts } = covered(conn, tenant, first, last)?;
    let rate = |bp: Option<i32>| bp.map_or("-".to_string(), |bp| bp.to_string());
    let mut totals = Totals::default();
    // The money, summed as `takings` sums it.
    let mut money = DayMoney::default();
    for event in &events {
        let order = event.order_id.and_then(|id| priced.get(&id));
        match (event.kind.as_str(), order) {
            ("mint", Some(order)) => {
                let total = order.price_minor.unwrap_or(0) + order.items_minor;
                let vat = order.vat_rate_bp.map_or(0, |bp| VatRate(bp).included_in(total));
                let key = format!("receipts {} {}", order.currency, rate(order.vat_rate_bp));
                totals.documents.entry(key).or_default().add(1, total, Some(vat));
            }
            ("credit", _) => {
                let Some(credit) = event.first_seq.and_then(|seq| credits.get(&(event.year, seq))) else {
                    continue;
                };
                let key = format!("credits {} {}", credit.currency, rate(credit.rate));
                totals.documents.entry(key).or_default().add(1, -credit.amount, Some(-credit.vat));
                let method = credit.refund.parse::<Refund>().ok().and_then(Refund::method);
                if let (Some(method), Ok(currency)) = (method, Currency::try_from(credit.currency.clone())) {
                    let movement =
                        Movement::refund(method, credit.rate.map(VatRate), credit.amount, credit.vat);
                    money.add(&currency, movement, 1);
                }
            }
            ("void", _) => {
                let series = if event.field.as_deref() == Some(SERIES) { "credits" } else { "receipts" };
                let count = match (event.first_seq, event.last_seq) {
                    (Some(first), Some(last)) => last - first + 1,
                    _ => 0,
                };
                totals.voids.entry(series.to_string()).or_default().add(count, 0, None);
            }
            ("payment" | "edit", Some(order)) if event.field.as_deref() == Some("paid_at") => {
                let sign = match (&event.old_value, &event.new_value) {
                    (_, Some(_)) => 1,
                    (Some(_), None) => -1,
                    (None, None) => continue,
                };
                // What was owed when it was paid, and the reminder fee a bank payment included.
                let taken_back: Vec<(NaiveDateTime, i64)> = credits
                    .values()
                    .filter(|c| c.order == Some(order.id))
                    .map(|c| (c.issued_at, c.amount))
                    .collect();
                // When it was paid: the instant the event set (or, removed, the one it cleared).
                let paid_at = if sign > 0 { &event.new_value } else { &event.old_value };
                let paid_at = paid_at
                    .as_deref()
                    .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
                    .map_or(event.created_at, |at| at.naive_utc());
                let total = order.price_minor.unwrap_or(0) + order.items_minor;
                // What was paid in part before is counted with each part.
                let owed = owed_when_paid(total, &taken_back, paid_at) - order.part_paid_minor;
                let fee = match event.kind.as_str() {
                    "payment" => fees.get(&order.id).copied().unwrap_or(0),
                    _ => 0,
                };
                let method = order.payment_method.as_deref().and_then(|m| m.parse().ok());
                let Ok(currency) = Currency::try_from(order.currency.clone()) else { continue };
                money.add(
                    &currency,
                    Movement::payment(method, order.vat_rate_bp.map(VatRate), owed, fee),
                    sign,
                );
            }
            ("payment", Some(order)) if event.field.as_deref() == Some(PART_PAID) => {
                // The part whose running sum the event reached.
                let sum_after = event.new_value.as_deref().and_then(|sum| sum.parse::<Price>().ok());
                let mut running = 0;
                let part = parts.get(&order.id).into_iter().flatten().find(|part| {
                    running += part.amount_minor;
                    Some(Price(running)) == sum_after
                });
                let (Some(part), Ok(currency)) = (part, Currency::try_from(order.currency.clone())) else {
                    continue;
                };
                let rate = order.vat_rate_bp.map(VatRate);
                money.add(&currency, Movement::payment(Some(part.method), rate, part.amount_minor, 0), 1);
            }
            _ => {}
        }
    }
    // Per way of paying and currency, payments and refunds together; the till's apart.
    for ((currency, line, _), sums) in &money.lines {
        let method = line.method().map_or("unrecorded", PaymentMethod::as_str);
        let book = if line.through_till() { &mut totals.till } else { &mut totals.payments };
        book.entry(format!("{method} {currency}")).or_default().add(sums.count, sums.amount, None);
    }
    Ok(totals)
}
