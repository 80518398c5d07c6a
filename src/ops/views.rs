//! What the read pages of the counter and the command line's lookups show, one view per page,
//! each read in the transaction its caller holds (the counter reads the session in the same
//! one). Both doors lay them out; neither reads the database for them itself.

use crate::db::credits::{self, CreditNote};
use crate::db::customers::{self, Customer, Page};
use crate::db::items;
use crate::db::orders::{self, Order};
use crate::db::queue::{self, Queue};
use crate::db::rackets::{self, Racket};
use crate::db::receipts::{Billing, Frozen};
use crate::db::stock::{self, Stocked};
use crate::db::takings::{self, Counted, Days};
use crate::db::{sends, stringers, DbConn, Tenant};
use crate::domain::{CustomerId, Item, OrderId, PaymentMethod, RacketId};
use crate::error::Error;
use chrono::NaiveDateTime;

/// An order as `order show` and the counter's order page show it.
pub struct OrderSeen {
    pub order: Order,
    pub billing: Billing,
    pub items: Vec<Item>,
    /// Its document was e-mailed before.
    pub sent: bool,
    pub credit_notes: Vec<CreditNote>,
    /// The ways of paying the stringer may record at the counter.
    pub methods: Vec<PaymentMethod>,
    /// The e-invoices written of its documents, oldest first.
    pub einvoices: Vec<crate::db::einvoices::Written>,
    /// What was paid of it in part, oldest first.
    pub parts: Vec<crate::db::part_payments::Part>,
}

/// One of the tenant's orders, with its billing (credit notes and reminders), items, and
/// what the counter offers for it.
pub fn order(conn: &mut DbConn, tenant: &Tenant, id: OrderId) -> Result<OrderSeen, Error> {
    let order = orders::find(conn, tenant, id)?;
    let billing = Frozen::load(conn, Some(tenant))?
        .billing(&order, tenant)
        .with_credit_notes(conn, tenant, &order, true)?
        .with_reminders(conn, tenant, &order, true)?;
    let credit_notes = match order.credited.0 {
        0 => Vec::new(),
        _ => credits::of_order(conn, tenant, order.id)?,
    };
    Ok(OrderSeen {
        items: items::of(conn, order.id)?,
        sent: sends::last(conn, tenant, order.id)?.is_some(),
        methods: stringers::counter_methods(conn, tenant)?,
        einvoices: crate::db::einvoices::written(conn, tenant, crate::db::einvoices::Which::Order(id))?,
        parts: crate::db::part_payments::of(conn, tenant, &[id.0])?.remove(&id.0).unwrap_or_default(),
        credit_notes,
        billing,
        order,
    })
}

/// A customer as `customer show` and the counter's customer page show them.
pub struct CustomerSeen {
    pub customer: Customer,
    /// Each racket with its last job: what "the same as last time" copies.
    pub rackets: Vec<(Racket, Option<Order>)>,
    /// Their orders, newest first.
    pub history: Vec<Order>,
}

/// One of the tenant's customers, their rackets and their orders, read once: a racket's last
/// job is found among the orders (its last strung one that is not void).
pub fn customer(conn: &mut DbConn, tenant: &Tenant, id: CustomerId) -> Result<CustomerSeen, Error> {
    let customer = customers::find(conn, tenant, id)?;
    let history = customers::history(conn, tenant, customer.id)?;
    let last_job = |racket: &Racket| {
        history
            .iter()
            .filter(|o| o.racket_id == Some(racket.id) && o.voided_at.is_none())
            .filter_map(|o| Some(((o.strung_at?, o.id.0), o)))
            .max_by_key(|(key, _)| *key)
            .map(|(_, o)| o.clone())
    };
    let rackets = rackets::of_customer(conn, tenant, customer.id)?
        .into_iter()
        .map(|racket| {
            let last = last_job(&racket);
            (racket, last)
        })
        .collect();
    Ok(CustomerSeen { customer, rackets, history })
}

/// A page of the tenant's customers, everyone or those `text` finds.
pub fn customers(
    conn: &mut DbConn,
    tenant: &Tenant,
    text: Option<&str>,
    page: Option<Page>,
) -> Result<Vec<Customer>, Error> {
    customers::search(conn, tenant, text, page)
}

/// What the form for a new order starts from: the customer and racket it is for (when
/// given), else the names of the newest customers to choose from, and the stringer's
/// turnaround in hours.
pub struct NewOrder {
    pub customer: Option<Customer>,
    pub racket: Option<Racket>,
    pub names: Vec<String>,
    pub turnaround_hours: i32,
}

pub fn new_order(
    conn: &mut DbConn,
    tenant: &Tenant,
    customer: Option<CustomerId>,
    racket: Option<RacketId>,
    names: i64,
) -> Result<NewOrder, Error> {
    let customer = customer.map(|id| customers::find(conn, tenant, id)).transpose()?;
    let racket = racket.map(|id| rackets::find(conn, tenant, id)).transpose()?;
    let names = match customer {
        Some(_) => Vec::new(),
        None => customers::newest(conn, tenant, names)?,
    };
    let turnaround_hours = stringers::profile(conn, tenant)?.turnaround_hours;
    Ok(NewOrder { customer, racket, names, turnaround_hours })
}

/// The tenant's queue at `now`.
pub fn queue(conn: &mut DbConn, tenant: &Tenant, now: NaiveDateTime) -> Result<Queue, Error> {
    queue::of(conn, tenant, now)
}

/// The tenant's (or every stringer's) takings of the days asked.
pub fn takings(conn: &mut DbConn, named: Option<&Tenant>, days: Days) -> Result<Vec<Counted>, Error> {
    takings::count(conn, named, days)
}

/// The tenant's strings in stock.
pub fn strings(conn: &mut DbConn, tenant: &Tenant) -> Result<Vec<Stocked>, Error> {
    stock::list(conn, tenant)
}
