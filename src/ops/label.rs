//! Labels for the rackets on the shelf, one for an order or one per open order of the
//! queue, as both doors print them: the QR code opens the order's page on the web counter
//! when its address is known.

use crate::db::queue::{self, Queued};
use crate::db::{Db, Tenant};
use crate::domain::{format_local, local_date, now_utc, OrderId};
use crate::error::Error;
use crate::receipt::label::{self, Label, Size};
use chrono_tz::Tz;

/// Which labels.
#[derive(Debug, Clone, Copy)]
pub enum Which {
    Order(OrderId),
    /// One per open order of the queue.
    Queue,
}

/// The labels as one PDF, and the name it is saved under unless told otherwise.
pub struct Labels {
    /// None when there is nothing to label (an empty queue).
    pub pdf: Option<Vec<u8>>,
    pub count: usize,
    pub file_name: String,
}

/// The labels of `which`, `size` each; their codes open pages under `base_url`.
pub fn labels(
    db: &mut Db,
    tenant: &Tenant,
    which: Which,
    size: Size,
    base_url: Option<&str>,
) -> Result<Labels, Error> {
    let now = now_utc();
    let zone = tenant.zone();
    let (labels, file_name) = db.read(|conn| match which {
        Which::Order(order) => {
            let found = queue::one(conn, tenant, order)?;
            Ok((vec![label_of(&found, zone, base_url)], format!("label-{order}.pdf")))
        }
        Which::Queue => {
            let open = queue::of(conn, tenant, now)?.open;
            let labels = open.iter().map(|order| label_of(order, zone, base_url)).collect();
            Ok((labels, format!("labels-{}.pdf", local_date(now, zone))))
        }
    })?;
    let pdf = match labels.is_empty() {
        true => None,
        false => Some(label::render(&labels, size, local_date(now, zone))?),
    };
    Ok(Labels { pdf, count: labels.len(), file_name })
}

/// The label of an order as the queue reads it; the QR code opens the order's page under
/// `base_url` (the web counter's address), else holds `receipts:order:ID`.
fn label_of(order: &Queued, zone: Tz, base_url: Option<&str>) -> Label {
    let code = match base_url {
        Some(base) => format!("{}/orders/{}", base.trim_end_matches('/'), order.id),
        None => format!("receipts:order:{}", order.id),
    };
    Label {
        order: order.id.0,
        customer: order.customer.clone(),
        racket: order.racket.clone(),
        string: order.string.clone(),
        tension: order.tension.clone(),
        due: order.due().map(|due| format!("due {}", format_local(due, zone))),
        code,
    }
}
