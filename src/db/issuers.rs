//! Issuers: the versions of a stringer's business profile that documents print. The
//! database keeps them (a new version whenever a printed field of the profile changes, none
//! ever updated or deleted) and gives a numbered order the version in force when it was
//! numbered, so its document never changes.

use super::schema::issuers;
use super::stringers::stored_zone;
use super::{DbConn, Tenant};
use crate::domain::Language;
use crate::error::Error;
use crate::payment::Postal;
use chrono_tz::Tz;
use diesel::prelude::*;

/// The business as one document shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer {
    pub id: i64,
    pub name: String,
    /// The free address lines.
    pub address: Vec<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub vat_number: Option<String>,
    pub tax_number: Option<String>,
    pub small_business: bool,
    pub language: Option<Language>,
    /// Whose calendar the document's dates are in.
    pub zone: Tz,
    pub street: Option<String>,
    pub house_number: Option<String>,
    pub postcode: Option<String>,
    pub town: Option<String>,
    pub country: Option<String>,
    pub iban: Option<String>,
    pub bic: Option<String>,
    pub payment_days: i32,
    /// A French business's SIRET, printed as such.
    pub siret: Option<String>,
    /// The name the bank holds the account in, when it is not the business name.
    pub account_holder: Option<String>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = issuers)]
struct IssuerRow {
    id: i64,
    name: String,
    address: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    vat_number: Option<String>,
    tax_number: Option<String>,
    small_business: bool,
    language: Option<String>,
    timezone: String,
    street: Option<String>,
    house_number: Option<String>,
    postcode: Option<String>,
    town: Option<String>,
    country: Option<String>,
    iban: Option<String>,
    bic: Option<String>,
    payment_days: i32,
    siret: Option<String>,
    account_holder: Option<String>,
}

impl Issuer {
    /// The structured address, when the profile has one (postcode, town and country).
    pub fn postal(&self) -> Option<Postal> {
        Some(Postal {
            street: self.street.clone(),
            house_number: self.house_number.clone(),
            postcode: self.postcode.clone()?,
            town: self.town.clone()?,
            country: self.country.clone()?,
        })
    }

    /// What documents print as the address: the structured one, else the free lines.
    pub fn address_lines(&self) -> Vec<String> {
        match self.postal() {
            Some(postal) => postal.lines(),
            None => self.address.clone(),
        }
    }

    /// The name on payment codes: the account holder, else the business name.
    pub fn payee(&self) -> &str {
        self.account_holder.as_deref().unwrap_or(&self.name)
    }

    /// Whether documents show VAT: a VAT number, and no small-business exemption.
    pub fn charges_vat(&self) -> bool {
        self.vat_number.is_some() && !self.small_business
    }
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
        name: row.name,
        address: row.address.iter().flat_map(|a| a.lines()).map(str::to_string).collect(),
        email: row.email,
        phone: row.phone,
        vat_number: row.vat_number,
        tax_number: row.tax_number,
        small_business: row.small_business,
        // The profile's CHECK allows only the known codes.
        language: row.language.and_then(|code| code.parse().ok()),
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
    })
}
