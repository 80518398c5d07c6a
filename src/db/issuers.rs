//! Issuers: the versions of a stringer's business profile that documents print. The
//! database keeps them (a new version whenever a printed field of the profile changes, none
//! ever updated or deleted) and gives a numbered order the version in force when it was
//! numbered, so its document never changes.

use super::schema::issuers;
use super::tenant::stored_zone;
use super::{DbConn, Tenant};
use crate::domain::{Business, Language};
use crate::error::Error;
use chrono_tz::Tz;
use diesel::prelude::*;

/// The business as one document shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer {
    pub id: i64,
    pub business: Business,
    pub language: Option<Language>,
    /// Whose calendar the document's dates are in.
    pub zone: Tz,
}

/// An issuer as stored (the document's content hash reads it as it is).
#[derive(Queryable, Selectable)]
#[diesel(table_name = issuers)]
pub(super) struct IssuerRow {
    pub(super) id: i64,
    pub(super) name: String,
    pub(super) address: Option<String>,
    pub(super) email: Option<String>,
    pub(super) phone: Option<String>,
    pub(super) vat_number: Option<String>,
    pub(super) tax_number: Option<String>,
    pub(super) small_business: bool,
    pub(super) language: Option<String>,
    pub(super) timezone: String,
    pub(super) street: Option<String>,
    pub(super) house_number: Option<String>,
    pub(super) postcode: Option<String>,
    pub(super) town: Option<String>,
    pub(super) country: Option<String>,
    pub(super) iban: Option<String>,
    pub(super) bic: Option<String>,
    pub(super) payment_days: i32,
    pub(super) siret: Option<String>,
    pub(super) account_holder: Option<String>,
}

/// One of the tenant's issuer versions.
pub fn find(conn: &mut DbConn, tenant: &Tenant, id: i64) -> Result<Issuer, Error> {
    let row: IssuerRow =
        tenant.issuers().filter(issuers::id.eq(id)).select(IssuerRow::as_select()).first(conn)?;
    issuer(tenant, row)
}

/// Every issuer version of the tenant.
pub fn of_tenant(conn: &mut DbConn, tenant: &Tenant) -> Result<Vec<Issuer>, Error> {
    let rows: Vec<IssuerRow> =
        tenant.issuers().order(issuers::id).select(IssuerRow::as_select()).load(conn)?;
    rows.into_iter().map(|row| issuer(tenant, row)).collect()
}

fn issuer(tenant: &Tenant, row: IssuerRow) -> Result<Issuer, Error> {
    Ok(Issuer {
        zone: stored_zone(tenant.handle(), &row.timezone)?,
        id: row.id,
        // The profile's CHECK allows only the known codes.
        language: row.language.and_then(|code| code.parse().ok()),
        business: Business {
            name: row.name,
            address: row.address.iter().flat_map(|a| a.lines()).map(str::to_string).collect(),
            email: row.email,
            phone: row.phone,
            vat_number: row.vat_number,
            tax_number: row.tax_number,
            small_business: row.small_business,
            street: row.street,
            house_number: row.house_number,
            postcode: row.postcode,
            town: row.town,
            country: row.country,
            iban: row.iban,
            bic: row.bic,
            payment_days: row.payment_days,
            siret: row.siret,
            account_holder: row.account_holder,
        },
    })
}
