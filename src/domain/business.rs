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

/// A law that wants payments at the counter recorded by a certified till, which this
/// program is not (SPEC 23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TillLaw {
    pub country: &'static str,
    pub law: &'static str,
}

/// Whether a payment by `method` recorded at the counter of a business of `country` (ISO
/// 3166), VAT-registered or not, needs a certified till: Germany's cash and other, Austria's
/// cash, card, TWINT and other, and every method in Italy and of a VAT-registered French
/// business, a transfer the shop says it saw arrive included (only a bank file's payment,
/// matched by `payments import`, is no counter payment there). `till` is the certified till's
/// own.
pub fn till_law(
    country: Option<&str>,
    vat_registered: bool,
    method: super::PaymentMethod,
) -> Option<TillLaw> {
    use super::PaymentMethod::{Cash, Other, Till, Transfer};
    let law = |country, law| Some(TillLaw { country, law });
    match (country?, method) {
        (_, Till) => None,
        ("DE", Cash | Other) => law("Germany", "§ 146a AO, a certified TSE"),
        ("AT", Transfer) => None,
        ("AT", _) => law("Austria", "RKSV, a signature unit"),
        ("FR", _) if vat_registered => law("France", "art. 286 I 3° bis CGI, NF 525"),
        ("IT", _) => law("Italy", "d.lgs. 127/2015, a registratore telematico"),
        _ => None,
    }
}

#[cfg(test)]
mod till_tests {
    use super::*;
    use crate::domain::PaymentMethod::{self, *};

    fn refused(country: &str, vat_registered: bool) -> Vec<PaymentMethod> {
        [Cash, Card, Twint, Transfer, Other, Till]
            .into_iter()
            .filter(|&m| till_law(Some(country), vat_registered, m).is_some())
            .collect()
    }

    #[test]
    fn the_counter_methods_a_country_wants_through_a_certified_till() {
        assert_eq!(refused("DE", true), [Cash, Other], "a transfer is no cash register's business");
        assert_eq!(refused("AT", false), [Cash, Card, Twint, Other]);
        assert_eq!(refused("FR", true), [Cash, Card, Twint, Transfer, Other]);
        assert_eq!(refused("FR", false), [], "a French business under 293 B is unaffected");
        assert_eq!(refused("IT", false), [Cash, Card, Twint, Transfer, Other]);
        assert_eq!(refused("CH", true), []);
        assert_eq!(refused("LI", true), []);
        assert_eq!(till_law(None, true, Cash), None);
    }
}
