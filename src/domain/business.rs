//! A business as its documents name it: who it is, where it is, its tax identities and
//! where it is paid. The stringer's profile, each frozen version of it (an issuer) and each
//! document hold one, so the three never describe a business differently.

/// A business as its documents name it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Business {
    pub name: String,
    /// The free address lines, printed when there is no structured address.
    pub address: Vec<String>,
    /// The structured address (a QR-bill's creditor): complete with postcode, town and
    /// country.
    pub street: Option<String>,
    pub house_number: Option<String>,
    pub postcode: Option<String>,
    pub town: Option<String>,
    /// ISO 3166 alpha-2: whose conventions and tax its documents follow.
    pub country: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    /// Set only for a VAT-registered business: only then do documents show VAT.
    pub vat_number: Option<String>,
    /// A national tax number, printed when there is no VAT number.
    pub tax_number: Option<String>,
    /// A French business's SIRET (14 digits, compact).
    pub siret: Option<String>,
    /// Exempt under its country's small-business rule: the country's note, no VAT line.
    pub small_business: bool,
    pub iban: Option<String>,
    pub bic: Option<String>,
    /// The name the bank holds the account in, when it is not the business name.
    pub account_holder: Option<String>,
    /// Days from an invoice's date to its due date.
    pub payment_days: i32,
}

impl Business {
    /// The name on payment codes: the account holder, else the business name.
    pub fn payee(&self) -> &str {
        self.account_holder.as_deref().unwrap_or(&self.name)
    }

    /// Whether its documents show VAT: a VAT number, and no small-business exemption.
    pub fn charges_vat(&self) -> bool {
        self.vat_number.is_some() && !self.small_business
    }
}
