//! Orders: what was brought in, and whether and when it was strung and numbered.

use super::events::{self, Change, Event};
use super::issuers::Issuer;
use super::schema::orders;
use super::{DbConn, Tenant};
use crate::domain::{
    address_limit_passed, format_local, format_utc, local_date, now_utc, BuyerIds, Currency, CustomerId,
    Length, OrderId, OrderKind, OrderStatus, PaymentMethod, Price, RacketId, ReceiptNumber, StringerId,
    VatRate,
};
use crate::error::{Error, Wanted};
use crate::payment::Postal;
use chrono::{Duration, NaiveDate, NaiveDateTime};
use diesel::prelude::*;

/// An order as the program uses it: stored texts parsed, ids typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub id: OrderId,
    pub stringer: StringerId,
    pub kind: OrderKind,
    pub customer: Option<String>,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    pub price: Option<Price>,
    pub currency: Currency,
    pub ordered_at: Option<NaiveDateTime>,
    pub strung_at: Option<NaiveDateTime>,
    pub returned_at: Option<NaiveDateTime>,
    pub paid_at: Option<NaiveDateTime>,
    pub number: Option<ReceiptNumber>,
    pub voided_at: Option<NaiveDateTime>,
    pub void_reason: Option<String>,
    pub restring_of: Option<OrderId>,
    /// The V1 identity of an imported order: its kind and id there.
    pub v1: Option<(OrderKind, i64)>,
    /// Internal: never printed.
    pub notes: Option<String>,
    /// Printed on the document.
    pub customer_note: Option<String>,
    /// The issuer version the document shows, once numbered.
    pub issuer: Option<i64>,
    /// The VAT rate in force when it was numbered, for a stringer who charges VAT.
    pub vat_rate: Option<VatRate>,
    /// Lines printed under the customer's name.
    pub customer_address: Option<String>,
    /// The customer's structured address: a QR-bill's debtor.
    pub customer_postal: Option<Postal>,
    /// Where documents are e-mailed to.
    pub email: Option<String>,
    /// How it was paid: at the counter, or by the bank (a transfer).
    pub payment_method: Option<PaymentMethod>,
    /// The customer and the racket of the register it is for.
    pub customer_id: Option<CustomerId>,
    pub racket_id: Option<RacketId>,
    /// When the racket was promised.
    pub due_at: Option<NaiveDateTime>,
    /// When the customer was last told it is ready.
    pub notified_at: Option<NaiveDateTime>,
    /// The sum of the items after the stringing line (`items::of` lists them).
    pub items: Price,
    pub item_count: i32,
    /// The string it takes (None: one racket of its sport).
    pub string_length: Option<Length>,
    /// The customer brought the string: none comes from stock.
    pub own_string: bool,
    /// A hybrid's cross string (`string` is then the mains).
    pub cross_string: Option<String>,
    /// What its credit notes took back in all.
    pub credited: Price,
    /// What its part payments paid, while it is open (the part that settles it is its
    /// payment, `paid_at`).
    pub part_paid: Price,
    /// The buyer's identifiers (VAT id, reference, Italian codes), frozen once numbered.
    pub buyer: BuyerIds,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// An order row as stored.
#[derive(Queryable, Selectable)]
#[diesel(table_name = orders)]
pub(super) struct OrderRow {
    pub(super) id: i64,
    stringer_id: i64,
    #[diesel(deserialize_as = String)]
    kind: OrderKind,
    customer: Option<String>,
    racket: Option<String>,
    string: Option<String>,
    tension: Option<String>,
    price_minor: Option<i64>,
    #[diesel(deserialize_as = String)]
    currency: Currency,
    ordered_at: Option<NaiveDateTime>,
    strung_at: Option<NaiveDateTime>,
    returned_at: Option<NaiveDateTime>,
    paid_at: Option<NaiveDateTime>,
    receipt_year: Option<i32>,
    receipt_seq: Option<i64>,
    voided_at: Option<NaiveDateTime>,
    void_reason: Option<String>,
    restring_of: Option<i64>,
    v1_kind: Option<String>,
    v1_id: Option<i64>,
    notes: Option<String>,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    issuer_id: Option<i64>,
    customer_note: Option<String>,
    vat_rate_bp: Option<i32>,
    customer_address: Option<String>,
    customer_postal: Option<String>,
    email: Option<String>,
    #[diesel(deserialize_as = Option<String>)]
    payment_method: Stored<PaymentMethod>,
    customer_id: Option<i64>,
    racket_id: Option<i64>,
    due_at: Option<NaiveDateTime>,
    notified_at: Option<NaiveDateTime>,
    items_minor: i64,
    item_count: i32,
    string_length_cm: Option<i32>,
    own_string: bool,
    cross_string: Option<String>,
    credited_minor: i64,
    customer_business: Option<String>,
    part_paid_minor: i64,
}

/// An optional stored name read as its value: a name the program does not know fails the
/// query, never reads as nothing.
#[derive(Debug)]
pub(crate) struct Stored<T>(pub Option<T>);

impl<T: TryFrom<String, Error = String>> TryFrom<Option<String>> for Stored<T> {
    type Error = String;

    fn try_from(stored: Option<String>) -> Result<Self, String> {
        stored.map(T::try_from).transpose().map(Stored)
    }
}

impl From<OrderRow> for Order {
    fn from(row: OrderRow) -> Order {
        Order {
            id: OrderId(row.id),
            stringer: StringerId(row.stringer_id),
            kind: row.kind,
            customer: row.customer,
            racket: row.racket,
            string: row.string,
            tension: row.tension,
            price: row.price_minor.map(Price),
            currency: row.currency,
            ordered_at: row.ordered_at,
            strung_at: row.strung_at,
            returned_at: row.returned_at,
            paid_at: row.paid_at,
            number: row.receipt_year.zip(row.receipt_seq).map(|(year, seq)| ReceiptNumber::new(year, seq)),
            voided_at: row.voided_at,
            void_reason: row.void_reason,
            restring_of: row.restring_of.map(OrderId),
            // The schema's CHECKs allow only known kinds, and both parts or neither.
            v1: row.v1_kind.and_then(|kind| kind.parse().ok()).zip(row.v1_id),
            notes: row.notes,
            customer_note: row.customer_note,
            issuer: row.issuer_id,
            vat_rate: row.vat_rate_bp.map(VatRate),
            customer_address: row.customer_address,
            customer_postal: row.customer_postal.as_deref().and_then(Postal::from_stored),
            email: row.email,
            payment_method: row.payment_method.0,
            customer_id: row.customer_id.map(CustomerId),
            racket_id: row.racket_id.map(RacketId),
            due_at: row.due_at,
            notified_at: row.notified_at,
            items: Price(row.items_minor),
            item_count: row.item_count,
            string_length: row.string_length_cm.map(Length),
            own_string: row.own_string,
            cross_string: row.cross_string,
            credited: Price(row.credited_minor),
            part_paid: Price(row.part_paid_minor),
            buyer: BuyerIds::from_stored(row.customer_business.as_deref()),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

/// What an order is about: all of it for a new order; for an edit, the fields that change
/// (`None` leaves a field as it is, or for a new order takes the column's default). The
/// receipt number is not among them: once issued it never changes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Insertable, AsChangeset)]
#[diesel(table_name = orders)]
pub struct OrderChanges {
    pub customer: Option<String>,
    pub racket: Option<String>,
    pub string: Option<String>,
    pub tension: Option<String>,
    pub price_minor: Option<i64>,
    pub currency: Option<String>,
    pub customer_note: Option<String>,
    pub customer_address: Option<String>,
    /// `Postal::stored`.
    pub customer_postal: Option<String>,
    pub email: Option<String>,
    pub notes: Option<String>,
    pub due_at: Option<NaiveDateTime>,
    pub string_length_cm: Option<i32>,
    pub own_string: Option<bool>,
    pub cross_string: Option<String>,
}

impl OrderChanges {
    /// The fields this would change (a value equal to the stored one is no change).
    pub(super) fn changes(&self, order: &Order) -> Vec<&'static str> {
        let mut fields = self.printed_changes(order);
        if self.email.is_some() && self.email != order.email {
            fields.push("email");
        }
        if self.notes.is_some() && self.notes != order.notes {
            fields.push("notes");
        }
        if self.due_at.is_some() && self.due_at != order.due_at {
            fields.push("due");
        }
        if self.string_length_cm.is_some_and(|cm| Some(Length(cm)) != order.string_length) {
            fields.push("string length");
        }
        if self.own_string.is_some_and(|own| own != order.own_string) {
            fields.push("own string");
        }
        fields
    }

    /// The fields a document prints that this would change (a value equal to the stored
    /// one is no change).
    pub(super) fn printed_changes(&self, order: &Order) -> Vec<&'static str> {
        let differs = |new: &Option<String>, old: &Option<String>| new.is_some() && new != old;
        let mut fields = Vec::new();
        for (name, new, old) in [
            ("customer", &self.customer, &order.customer),
            ("racket", &self.racket, &order.racket),
            ("string", &self.string, &order.string),
            ("tension", &self.tension, &order.tension),
            ("customer note", &self.customer_note, &order.customer_note),
            ("customer address", &self.customer_address, &order.customer_address),
            ("cross string", &self.cross_string, &order.cross_string),
        ] {
            if differs(new, old) {
                fields.push(name);
            }
        }
        let postal = order.customer_postal.as_ref().map(Postal::stored);
        if differs(&self.customer_postal, &postal) {
            fields.push("customer's structured address");
        }
        if self.price_minor.is_some_and(|p| Some(Price(p)) != order.price) {
            fields.push("price");
        }
        if self.currency.as_ref().is_some_and(|c| c != order.currency.as_str()) {
            fields.push("currency");
        }
        fields
    }
}

/// Takes an order: `ordered_at` defaults to now.
pub fn add(
    conn: &mut DbConn,
    tenant: &Tenant,
    kind: OrderKind,
    ordered_at: Option<NaiveDateTime>,
    about: &OrderChanges,
) -> Result<OrderId, Error> {
    insert(conn, tenant, kind, ordered_at, about, None)
}

fn insert(
    conn: &mut DbConn,
    tenant: &Tenant,
    kind: OrderKind,
    ordered_at: Option<NaiveDateTime>,
    about: &OrderChanges,
    restring_of: Option<OrderId>,
) -> Result<OrderId, Error> {
    let now = now_utc();
    let profile = super::stringers::profile(conn, tenant)?;
    let ordered_at = ordered_at.unwrap_or(now);
    // A new order takes its stringer's currency unless it names one, and is promised the
    // stringer's turnaround unless it says when.
    let currency = about.currency.clone().unwrap_or_else(|| profile.currency.to_string());
    let due_at = about.due_at.unwrap_or(ordered_at + Duration::hours(profile.turnaround_hours.into()));
    check_due(tenant, ordered_at, due_at)?;
    diesel::insert_into(orders::table)
        .values((
            &OrderChanges { currency: Some(currency), due_at: Some(due_at), ..about.clone() },
            tenant.owns(orders::stringer_id),
            orders::kind.eq(kind.as_str()),
            orders::ordered_at.eq(ordered_at),
            orders::restring_of.eq(restring_of.map(|id| id.0)),
            orders::created_at.eq(now),
            orders::updated_at.eq(now),
        ))
        .returning(orders::id)
        .get_result(conn)
        .map(OrderId)
        .map_err(Error::from)
}

/// A racket is promised after it was brought in, never before.
pub(super) fn check_due(
    tenant: &Tenant,
    ordered_at: NaiveDateTime,
    due_at: NaiveDateTime,
) -> Result<(), Error> {
    if due_at < ordered_at {
        let zone = tenant.zone();
        return Err(Error::Invalid {
            field: "due",
            problem: format!(
                "{} lies before the order was taken ({}): a racket is promised after it is brought in",
                format_local(due_at, zone),
                format_local(ordered_at, zone)
            ),
        });
    }
    Ok(())
}

/// One of the tenant's orders.
pub fn find(conn: &mut DbConn, tenant: &Tenant, id: OrderId) -> Result<Order, Error> {
    tenant
        .orders()
        .filter(orders::id.eq(id.0))
        .select(OrderRow::as_select())
        .first(conn)
        .optional()?
        .map(Order::from)
        .ok_or_else(|| tenant.no_such_order(id))
}

/// The order, its row locked until the transaction ends (SQLite's write transaction keeps
/// every other writer out already).
pub fn locked(conn: &mut DbConn, tenant: &Tenant, id: OrderId) -> Result<Order, Error> {
    if let DbConn::Postgres(pg) = conn {
        tenant
            .orders()
            .filter(orders::id.eq(id.0))
            .select(orders::id)
            .for_update()
            .first::<i64>(pg)
            .optional()?;
    }
    find(conn, tenant, id)
}

/// The small-amount limit an order not numbered yet is above, when its invoice will have
/// to name the customer's address and does not (a client order of a stringer who charges
/// VAT): said when the order is taken or edited, since the mint refuses it.
pub fn address_wanted(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
) -> Result<Option<&'static str>, Error> {
    let addressed = order.customer_address.is_some() || order.customer_postal.is_some();
    if order.number.is_some() || order.kind != OrderKind::Client || addressed {
        return Ok(None);
    }
    let Some(limit) = order.total().and_then(|total| address_limit_passed(order.currency.as_str(), total.0))
    else {
        return Ok(None);
    };
    Ok(super::stringers::profile(conn, tenant)?.business.charges_vat().then_some(limit))
}

impl Order {
    /// The day its document is issued, in the issuer's calendar: the paid date of a
    /// receipt, else the strung date.
    pub fn issued_on(&self, zone: chrono_tz::Tz) -> NaiveDate {
        let local = |at: Option<NaiveDateTime>| at.map(|at| local_date(at, zone));
        local(self.paid_at)
            .or(local(self.strung_at))
            .or(local(self.voided_at))
            .unwrap_or_else(|| local_date(self.created_at, zone))
    }

    /// The last day to pay its invoice (a client's unpaid, not void order): the issue date
    /// and the issuer's payment days. The stringer's own racket asks for no money.
    pub fn due_on(&self, issuer: &Issuer) -> Option<NaiveDate> {
        let invoice = self.kind == OrderKind::Client && self.paid_at.is_none() && self.void_reason.is_none();
        invoice.then(|| {
            self.issued_on(issuer.zone) + chrono::Days::new(issuer.business.payment_days.max(0) as u64)
        })
    }

    /// What the customer pays: the stringing's price and the items. None for an order
    /// without a price or items (the stringer's own racket, say).
    pub fn total(&self) -> Option<Price> {
        match (self.price, self.items) {
            (None, Price(0)) => None,
            (price, items) => Some(Price(price.map_or(0, |p| p.0) + items.0)),
        }
    }

    /// What is left of the total once its credit notes are taken off: what the customer
    /// still owes (or, paid, what was kept).
    pub fn owed(&self) -> Option<Price> {
        self.total().map(|total| Price(total.0 - self.credited.0))
    }

    /// What the customer still owes: a numbered client order's total less what credit notes
    /// took back, until it is paid (then nothing). None where nobody is asked to pay: an
    /// order not numbered, void, or the stringer's own.
    pub fn still_due(&self) -> Option<Price> {
        if self.number.is_none() || self.voided_at.is_some() || self.kind != OrderKind::Client {
            return None;
        }
        match self.paid_at {
            Some(_) => Some(Price(0)),
            None => self.owed().map(|owed| Price((owed.0 - self.part_paid.0).max(0))),
        }
    }

    /// Credited in full: the document is taken back and nothing is owed.
    pub fn fully_credited(&self) -> bool {
        self.credited.0 > 0 && self.owed().is_some_and(|left| left.0 <= 0)
    }

    /// A client's racket strung and not picked up yet.
    pub fn waiting(&self) -> bool {
        self.kind == OrderKind::Client
            && self.strung_at.is_some()
            && self.returned_at.is_none()
            && self.voided_at.is_none()
    }

    /// What the counter offers for the order now: each action that can work, so that no
    /// button is shown that can only be refused. `sent`: its document was e-mailed before;
    /// `mail`: the counter has a mail server; `owner`: the owner asks. (The refusals stay
    /// where the actions are done, for whoever posts anyway.)
    pub fn actions(&self, sent: bool, mail: bool, owner: bool) -> Actions {
        let live = self.voided_at.is_none();
        let client = self.kind == OrderKind::Client;
        let numbered = live && self.number.is_some();
        // What the customer holds is taken back by a credit note, never by a void.
        let left_the_shop = client
            && (sent
                || self.paid_at.is_some()
                || self.part_paid.0 > 0
                || self.returned_at.is_some()
                || self.credited.0 > 0);
        Actions {
            string: live && self.strung_at.is_none(),
            pick_up: self.waiting(),
            notify: mail && self.waiting() && self.email.is_some() && self.notified_at.is_none(),
            send: mail && live && client && self.number.is_some() && self.email.is_some() && !sent,
            void: owner && numbered && !left_the_shop,
            credit: owner && numbered && client && self.owed().is_some_and(|left| left.0 > 0),
            pay: numbered && client && self.still_due().is_some_and(|left| left.0 > 0),
        }
    }

    /// Where it stands; `overdue` says whether an unpaid invoice is past its due date.
    pub fn status(&self, overdue: bool) -> OrderStatus {
        match (self.voided_at.is_some(), self.number.is_some(), self.kind, self.paid_at.is_some()) {
            (true, _, _, _) => OrderStatus::Void,
            (false, false, _, _) => OrderStatus::Open,
            _ if self.fully_credited() => OrderStatus::Credited,
            (false, true, OrderKind::Own, _) => OrderStatus::Own,
            (false, true, OrderKind::Client, true) => OrderStatus::Paid,
            // Its parts paid what its credit notes left.
            (false, true, OrderKind::Client, false)
                if self.part_paid.0 > 0 && self.still_due() == Some(Price(0)) =>
            {
                OrderStatus::Paid
            }
            (false, true, OrderKind::Client, false) if overdue => OrderStatus::Overdue,
            (false, true, OrderKind::Client, false) => OrderStatus::Unpaid,
        }
    }
}

/// The counter's actions an order offers (`Order::actions`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Actions {
    pub string: bool,
    pub pick_up: bool,
    pub notify: bool,
    pub send: bool,
    pub void: bool,
    pub credit: bool,
    /// A payment of what is left, in full or in part.
    pub pay: bool,
}

/// Clears `strung_at`; a receipt number, once issued, stays with the order.
pub fn unstring(conn: &mut DbConn, tenant: &Tenant, id: OrderId) -> Result<Order, Error> {
    let order = find(conn, tenant, id)?;
    refuse_if_void(&order, "unstrung")?;
    diesel::update(tenant.orders().filter(orders::id.eq(id.0)))
        .set((orders::strung_at.eq(None::<NaiveDateTime>), orders::updated_at.eq(now_utc())))
        .execute(conn)?;
    find(conn, tenant, id)
}

/// A new, unstrung order copied from a numbered one: the same racket strung again gets a
/// number of its own when it is minted. (Copying an order that was never numbered would
/// only duplicate it.)
pub fn restring(conn: &mut DbConn, tenant: &Tenant, id: OrderId) -> Result<OrderId, Error> {
    let old = find(conn, tenant, id)?;
    if old.number.is_none() {
        return Err(Error::Unnumbered { order: id, wanted: Wanted::Restring });
    }
    let about = OrderChanges {
        customer: old.customer,
        racket: old.racket,
        string: old.string,
        tension: old.tension,
        price_minor: old.price.map(|p| p.0),
        currency: Some(old.currency.to_string()),
        customer_note: old.customer_note,
        customer_address: old.customer_address,
        customer_postal: old.customer_postal.as_ref().map(Postal::stored),
        email: old.email,
        notes: old.notes,
        // Promised anew from now.
        due_at: None,
        string_length_cm: old.string_length.map(|length| length.0),
        own_string: Some(old.own_string),
        cross_string: old.cross_string,
    };
    let new = insert(conn, tenant, old.kind, None, &about, Some(id))?;
    // The same customer's same racket of the register.
    diesel::update(orders::table.filter(orders::id.eq(new.0)))
        .set((
            orders::customer_id.eq(old.customer_id.map(|c| c.0)),
            orders::racket_id.eq(old.racket_id.map(|r| r.0)),
        ))
        .execute(conn)?;
    Ok(new)
}

/// Deletes an order taken by mistake. An order with a receipt number is a record and can
/// never be deleted (the database refuses it too): it can only be voided.
pub fn delete(conn: &mut DbConn, tenant: &Tenant, id: OrderId) -> Result<(), Error> {
    let order = find(conn, tenant, id)?;
    if let Some(number) = order.number {
        return Err(Error::NumberedIsKept { order: id, number });
    }
    let copies: Vec<i64> = tenant
        .orders()
        .filter(orders::restring_of.eq(id.0))
        .select(orders::id)
        .order(orders::id)
        .load(conn)?;
    if let Some(&copy) = copies.first() {
        return Err(Error::RestrungBy { order: id, copy: OrderId(copy) });
    }
    diesel::delete(tenant.orders().filter(orders::id.eq(id.0))).execute(conn)?;
    Ok(())
}

/// A void order is final: it can be restrung into a new order, nothing else.
pub fn refuse_if_void(order: &Order, action: &'static str) -> Result<(), Error> {
    match (&order.void_reason, order.number) {
        (Some(reason), Some(number)) => {
            Err(Error::VoidIsFinal { order: order.id, number, reason: reason.clone(), action })
        }
        _ => Ok(()),
    }
}

/// A pickup at the counter: when, and the payment made there (its method), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pickup {
    pub at: NaiveDateTime,
    pub paid: Option<PaymentMethod>,
}

/// Records that the customer took the racket (`returned_at`) and, with a method, paid for it
/// there and then. Only a client's strung racket is picked up, once; a payment at pickup of
/// an order paid before is refused. Both are journaled.
pub fn pickup(conn: &mut DbConn, tenant: &Tenant, id: OrderId, pickup: Pickup) -> Result<Order, Error> {
    let order = find(conn, tenant, id)?;
    refuse_if_void(&order, "picked up")?;
    let zone = tenant.zone();
    if order.kind == OrderKind::Own {
        return Err(Error::OwnRacket { order: id });
    }
    let (Some(number), Some(_)) = (order.number, order.strung_at) else {
        return Err(Error::NotReady { order: id });
    };
    if let Some(returned_at) = order.returned_at {
        let on = format_local(returned_at, zone);
        return Err(Error::PickedUp { order: id, on, what: "a racket is picked up once" });
    }
    if let Some(method) = pickup.paid {
        super::stringers::check_counter_payment(conn, tenant, method, "paid")?;
    }
    if let (Some(_), Some(paid_at)) = (pickup.paid, order.paid_at) {
        let on = format_local(paid_at, zone);
        return Err(Error::AlreadyPaid {
            order: id,
            on,
            method: order.payment_method.map(|m| m.to_string()),
            at_pickup: true,
        });
    }
    diesel::update(tenant.orders().filter(orders::id.eq(id.0)))
        .set((
            orders::returned_at.eq(pickup.at),
            pickup.paid.map(|_| orders::paid_at.eq(pickup.at)),
            pickup.paid.map(|method| orders::payment_method.eq(method.as_str())),
            orders::updated_at.eq(now_utc()),
        ))
        .execute(conn)?;
    let at = format_utc(pickup.at);
    let returned = Change { field: "returned_at", old: None, new: Some(&at) };
    events::record(conn, &Event::pickup(tenant.id(), id, number, returned))?;
    if let Some(method) = pickup.paid {
        let paid = Change { field: "paid_at", old: None, new: Some(&at) };
        let reason = format!("paid at pickup: {method}");
        events::record(conn, &Event::payment(tenant.id(), id, number, paid, &reason))?;
    }
    find(conn, tenant, id)
}

#[cfg(test)]
mod tests {
    use super::Stored;
    use crate::domain::PaymentMethod;

    #[test]
    fn a_stored_name_the_program_does_not_know_fails_instead_of_reading_as_none() {
        let read =
            |name: Option<&str>| Stored::<PaymentMethod>::try_from(name.map(str::to_string)).map(|s| s.0);
        assert_eq!(read(Some("twint")), Ok(Some(PaymentMethod::Twint)));
        assert_eq!(read(None), Ok(None));
        assert!(read(Some("bitcoin")).unwrap_err().contains("not a payment method"));
    }
}
