//! Getting paid: the Swiss QR-bill and the EPC QR code an invoice carries, the payment
//! reference derived from the receipt (and read back from a bank's file), and the checks
//! that keep every bill one a bank accepts. Free of SQL and of drawing: `receipt::pdf`
//! draws what this module computes.

mod charset;
pub mod epc;
pub mod qr;
pub mod qrbill;
pub mod reference;

pub use charset::{check_qr_text, QR_LIMITS};
pub use reference::Reference;

use crate::domain::Currency;

/// A bank account: an IBAN whose ISO 13616 check digits are right, kept compact and in
/// capitals (`CH4431999123000889012`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Iban(String);

impl Iban {
    /// Reads an IBAN as people type it (spaces allowed, any case).
    pub fn parse(text: &str) -> Result<Iban, String> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_uppercase();
        compact.parse::<iban::Iban>().map_err(|e| {
            use iban::{ParseBaseIbanError, ParseIbanError};
            // The check digits are checked first: whether they are all that is wrong, the
            // same IBAN with the right ones tells.
            let e = match e {
                ParseIbanError::InvalidBaseIban { source: ParseBaseIbanError::InvalidChecksum } => {
                    match with_check_digits(&compact).parse::<iban::Iban>() {
                        Ok(_) => e,
                        Err(other) => other,
                    }
                }
                e => e,
            };
            let rule = match e {
                ParseIbanError::InvalidBaseIban { source: ParseBaseIbanError::InvalidChecksum } => {
                    "its check digits do not match (a typo?)".to_string()
                }
                ParseIbanError::InvalidBaseIban { source: ParseBaseIbanError::InvalidFormat } => {
                    "an IBAN is a country code, two check digits and 11 to 30 letters or digits".to_string()
                }
                ParseIbanError::UnknownCountry(_) => {
                    format!("{} is not a country whose banks have IBANs", &compact[..2])
                }
                ParseIbanError::InvalidBban(_) => {
                    format!("its length or layout is not that of an IBAN of {}", &compact[..2])
                }
            };
            format!("\"{text}\" is not an IBAN: {rule}")
        })?;
        Ok(Iban(compact))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn country(&self) -> &str {
        &self.0[..2]
    }

    /// Swiss or Liechtenstein: an account the QR-bill pays into.
    pub fn is_swiss(&self) -> bool {
        matches!(self.country(), "CH" | "LI")
    }

    /// A QR-IBAN: its institution id (characters 5-9) lies in 30000-31999; it takes QRR
    /// references only.
    pub fn is_qr_iban(&self) -> bool {
        self.is_swiss()
            && self
                .0
                .get(4..9)
                .and_then(|iid| iid.parse::<u32>().ok())
                .is_some_and(|iid| (30000..=31999).contains(&iid))
    }

    /// In groups of four, as printed.
    pub fn grouped(&self) -> String {
        groups_of_four(&self.0)
    }
}

/// An IBAN's text with the check digits it should have (ISO 7064 mod 97-10), for telling a
/// typo in them from a wrong length.
fn with_check_digits(compact: &str) -> String {
    let (Some(country), Some(bban)) = (compact.get(..2), compact.get(4..)) else {
        return compact.to_string();
    };
    let digits: String = format!("{bban}{country}00")
        .chars()
        .map(|c| c.to_digit(36).map_or(String::new(), |d| d.to_string()))
        .collect();
    let remainder = digits.bytes().fold(0u32, |r, d| (r * 10 + u32::from(d - b'0')) % 97);
    format!("{country}{:02}{bban}", 98 - remainder)
}

/// A BIC: 8 or 11 characters, bank (4 letters), country (2 letters), location and branch.
pub fn check_bic(text: &str) -> Result<String, String> {
    let bic = text.trim().to_uppercase();
    let alnum = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
    let valid =
        matches!(bic.len(), 8 | 11) && bic[..6].bytes().all(|b| b.is_ascii_uppercase()) && alnum(&bic[6..]);
    if valid {
        Ok(bic)
    } else {
        Err(format!("\"{text}\" is not a BIC (8 or 11 letters and digits, like UBSWCHZH80A)"))
    }
}

/// A structured postal address, as the QR-bill carries it (type `S`): the street and house
/// number (optional), the postcode, the town and the country.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Postal {
    pub street: Option<String>,
    pub house_number: Option<String>,
    pub postcode: String,
    pub town: String,
    /// ISO 3166 alpha-2.
    pub country: String,
}

impl Postal {
    /// A business's structured address, when it has one (postcode, town and country).
    pub fn of(business: &crate::domain::Business) -> Option<Postal> {
        Some(Postal {
            street: business.street.clone(),
            house_number: business.house_number.clone(),
            postcode: business.postcode.clone()?,
            town: business.town.clone()?,
            country: business.country.clone()?,
        })
    }

    /// What a business's documents print as its address: the structured one, else the
    /// free lines.
    pub fn lines_of(business: &crate::domain::Business) -> Vec<String> {
        match Postal::of(business) {
            Some(postal) => postal.lines(),
            None => business.address.clone(),
        }
    }

    /// The address as lines for people: street and number, postcode and town.
    pub fn lines(&self) -> Vec<String> {
        let street = match (&self.street, &self.house_number) {
            (Some(street), Some(number)) => Some(format!("{street} {number}")),
            (Some(street), None) => Some(street.clone()),
            (None, _) => None,
        };
        street.into_iter().chain([format!("{} {}", self.postcode, self.town)]).collect()
    }

    /// The address as one stored text: its five fields, one per line.
    pub fn stored(&self) -> String {
        [
            self.street.as_deref().unwrap_or_default(),
            self.house_number.as_deref().unwrap_or_default(),
            &self.postcode,
            &self.town,
            &self.country,
        ]
        .join("\n")
    }

    /// An address stored by `stored`.
    pub fn from_stored(text: &str) -> Option<Postal> {
        let fields: Vec<&str> = text.split('\n').collect();
        let [street, house_number, postcode, town, country] = fields.as_slice() else { return None };
        let optional = |s: &str| Some(s.to_string()).filter(|s| !s.is_empty());
        Some(Postal {
            street: optional(street),
            house_number: optional(house_number),
            postcode: postcode.to_string(),
            town: town.to_string(),
            country: country.to_string(),
        })
    }

    /// Every field fits the QR-bill (character set and length); `who` names the fields
    /// ("stringer", "customer").
    pub fn check(&self, who: Who) -> Result<(), crate::error::Error> {
        check_qr_text(who.fields()[0], self.street.as_deref().unwrap_or_default(), QR_LIMITS.street)?;
        check_qr_text(
            who.fields()[1],
            self.house_number.as_deref().unwrap_or_default(),
            QR_LIMITS.house_number,
        )?;
        check_qr_text(who.fields()[2], &self.postcode, QR_LIMITS.postcode)?;
        check_qr_text(who.fields()[3], &self.town, QR_LIMITS.town)
    }
}

/// Whose address: the fields are named after it in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Stringer,
    Customer,
}

impl Who {
    fn fields(self) -> [&'static str; 4] {
        match self {
            Who::Stringer => ["street", "house number", "postcode", "town"],
            Who::Customer => {
                ["customer street", "customer house number", "customer postcode", "customer town"]
            }
        }
    }
}

/// A name and its structured address: a bill's creditor or debtor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Address {
    pub name: String,
    pub postal: Postal,
}

impl Address {
    /// The name, then the address.
    pub fn lines(&self) -> Vec<String> {
        std::iter::once(self.name.clone()).chain(self.postal.lines()).collect()
    }
}

/// What pays an invoice: nothing, a QR-bill (CH/LI account, CHF or EUR) or an EPC QR code
/// (another account, EUR).
#[expect(clippy::large_enum_variant, reason = "one per document")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slip {
    QrBill(qrbill::QrBill),
    Epc(epc::Epc),
}

/// The slip an invoice of `currency` into `iban` carries, if any. A QR-IBAN takes QRR
/// references, which are CHF only: its EUR invoices carry none.
pub fn slip_kind(iban: &Iban, currency: &Currency) -> Option<SlipKind> {
    match (iban.is_swiss(), currency.as_str()) {
        (true, "CHF") => Some(SlipKind::QrBill),
        (true, "EUR") if !iban.is_qr_iban() => Some(SlipKind::QrBill),
        (false, "EUR") => Some(SlipKind::Epc),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlipKind {
    QrBill,
    Epc,
}

/// Text in groups of four characters: `RF88 2026 0042`.
pub fn groups_of_four(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join(" ")
}

/// An amount as the codes write it: `35.50`, no thousands separator.
pub fn plain_amount(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibans_are_checked_and_kept_compact() {
        let iban = Iban::parse("ch44 3199 9123 0008 8901 2").unwrap();
        assert_eq!(iban.as_str(), "CH4431999123000889012");
        assert!(iban.is_qr_iban());
        assert_eq!(iban.grouped(), "CH44 3199 9123 0008 8901 2");
        let plain = Iban::parse("CH93 0076 2011 6238 5295 7").unwrap();
        assert!(plain.is_swiss() && !plain.is_qr_iban());
        assert!(Iban::parse("CH93 0076 2011 6238 5295 8").is_err(), "wrong check digits");
        assert!(Iban::parse("DE89370400440532013000").is_ok());
    }

    #[test]
    fn the_slip_follows_the_account_and_the_currency() {
        let qr_iban = Iban::parse("CH4431999123000889012").unwrap();
        let swiss = Iban::parse("CH9300762011623852957").unwrap();
        let german = Iban::parse("DE89370400440532013000").unwrap();
        assert_eq!(slip_kind(&qr_iban, &Currency::chf()), Some(SlipKind::QrBill));
        assert_eq!(slip_kind(&qr_iban, &Currency::eur()), None);
        assert_eq!(slip_kind(&swiss, &Currency::eur()), Some(SlipKind::QrBill));
        assert_eq!(slip_kind(&german, &Currency::eur()), Some(SlipKind::Epc));
        assert_eq!(slip_kind(&german, &Currency::chf()), None);
        assert_eq!(slip_kind(&swiss, &"USD".parse().unwrap()), None);
    }

    #[test]
    fn bics_have_8_or_11_characters() {
        assert_eq!(check_bic("ubswchzh80a"), Ok("UBSWCHZH80A".into()));
        assert_eq!(check_bic("COBADEFF"), Ok("COBADEFF".into()));
        assert!(check_bic("COBADE").is_err());
        assert!(check_bic("12345678").is_err());
    }
}
