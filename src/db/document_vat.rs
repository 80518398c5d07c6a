//! The VAT rate a document shows (SPEC 13): the rate frozen when it was numbered, or for a
//! document numbered before rates were kept, the one in force on its date.

use super::issuers::{self, Issuer};
use super::orders::Order;
use super::vat::{history, History};
use super::{DbConn, Tenant};
use crate::domain::{local_date, VatRate};
use crate::error::{Error, Wanted};

/// The VAT rate a document shows: for an issuer that charges VAT, the rate frozen at
/// numbering; a receipt numbered before rates were kept takes the one in force on its date.
pub fn document_vat(
    order: &Order,
    issuer: &Issuer,
    tenant: &Tenant,
    rates: &History,
) -> Result<Option<VatRate>, Error> {
    if !issuer.business.charges_vat() || order.total().is_none() {
        return Ok(None);
    }
    let zone = issuer.zone;
    let day = order
        .strung_at
        .or(order.voided_at)
        .map_or_else(|| local_date(order.created_at, zone), |at| local_date(at, zone));
    order
        .vat_rate
        .or_else(|| rates.in_force(day))
        .map(Some)
        .ok_or_else(|| Error::NoVatRate { stringer: tenant.handle().to_string(), date: day })
}

/// The VAT rate a numbered order's document shows (for an issuer that charges VAT), read
/// on its own: what a credit note of it takes back at.
pub fn document_vat_rate(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
) -> Result<Option<VatRate>, Error> {
    let issuer = match order.issuer {
        Some(id) => issuers::find(conn, tenant, id)?,
        None => return Err(Error::Unnumbered { order: order.id, wanted: Wanted::Receipt }),
    };
    let rates = match order.vat_rate {
        Some(_) => History::default(),
        None => history(conn, tenant)?,
    };
    document_vat(order, &issuer, tenant, &rates)
}
