//! A customer as a business names it on an invoice (SPEC 24): the buyer's VAT identifier,
//! the reference its bookkeeping routes invoices by, and for Italy the codice fiscale and
//! where SdI delivers (a recipient code or a PEC address). Kept on the customer, copied to
//! each order of it until the order is numbered, then frozen with the document.

use super::check_vat_number;

/// The buyer's identifiers, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuyerIds {
    /// EN 16931 BT-48, checked like the stringer's VAT number.
    pub vat_id: Option<String>,
    /// BT-10: a purchase order or a German public body's Leitweg-ID.
    pub reference: Option<String>,
    /// The Italian codice fiscale (16 characters for a person, 11 digits for a company).
    pub tax_code: Option<String>,
    /// The Italian codice destinatario: 7 characters, `0000000` for PEC or a consumer.
    pub sdi_code: Option<String>,
    /// The Italian certified e-mail address SdI delivers to.
    pub pec: Option<String>,
}

impl BuyerIds {
    pub fn is_empty(&self) -> bool {
        *self == BuyerIds::default()
    }

    /// One text for a column: the five fields on lines of their own, or None when all are
    /// empty (so a document without them hashes as it did before they existed).
    pub fn stored(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let field = |f: &Option<String>| f.clone().unwrap_or_default();
        Some(
            [
                field(&self.vat_id),
                field(&self.reference),
                field(&self.tax_code),
                field(&self.sdi_code),
                field(&self.pec),
            ]
            .join("\n"),
        )
    }

    /// The identifiers stored by `stored`.
    pub fn from_stored(text: Option<&str>) -> BuyerIds {
        let Some(text) = text else { return BuyerIds::default() };
        let mut fields = text.split('\n').map(|f| Some(f.to_string()).filter(|f| !f.is_empty()));
        let mut next = || fields.next().flatten();
        BuyerIds { vat_id: next(), reference: next(), tax_code: next(), sdi_code: next(), pec: next() }
    }
}

/// Which documents a stringer hands out as e-invoices unless told otherwise (`stringer edit
/// --einvoice`): `receipt`, `send`, `receipt --year` and the counter's PDF links follow it.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, strum::IntoStaticStr, strum::EnumString,
)]
#[strum(serialize_all = "lowercase")]
pub enum EinvoiceDefault {
    /// Every document that can be one.
    Yes,
    /// None: plain PDFs.
    No,
    /// Those of buyers with a VAT id.
    #[default]
    Business,
}

impl EinvoiceDefault {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether a document for a buyer with `ids` is an e-invoice by default.
    pub fn for_buyer(self, ids: &BuyerIds) -> bool {
        match self {
            EinvoiceDefault::Yes => true,
            EinvoiceDefault::No => false,
            EinvoiceDefault::Business => ids.vat_id.is_some(),
        }
    }
}

/// A buyer's reference (BT-10): printable, on one line, at most 100 characters (what
/// FatturaPA and the German XRechnung rules carry).
pub fn check_buyer_reference(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.chars().count() > 100 || text.chars().any(char::is_control) {
        return Err(format!("\"{text}\" is not a buyer reference: one line of at most 100 characters"));
    }
    Ok(text.to_string())
}

/// A buyer's VAT identifier, as the stringer's is checked.
pub fn check_buyer_vat_id(text: &str) -> Result<String, String> {
    check_vat_number(text)
}

/// An Italian codice fiscale: 16 letters and digits for a person (its check letter
/// verified), or a company's 11 digits (its Luhn-like check digit verified).
pub fn check_tax_code(text: &str) -> Result<String, String> {
    let code: String = text.trim().to_uppercase();
    let invalid = |why: &str| Err(format!("\"{text}\" is not a codice fiscale: {why}"));
    match code.len() {
        11 if code.bytes().all(|b| b.is_ascii_digit()) => {
            let digits: Vec<u32> = code.bytes().map(|b| u32::from(b - b'0')).collect();
            let sum: u32 = digits[..10]
                .iter()
                .enumerate()
                .map(|(i, &d)| if i % 2 == 1 { (d * 2) / 10 + (d * 2) % 10 } else { d })
                .sum();
            if (10 - sum % 10) % 10 != digits[10] {
                return invalid("its check digit does not match");
            }
            Ok(code)
        }
        16 if code.bytes().all(|b| b.is_ascii_alphanumeric()) => {
            if code.as_bytes()[15] != person_check_letter(&code[..15]) {
                return invalid("its check letter does not match");
            }
            Ok(code)
        }
        _ => invalid("a person's has 16 letters and digits, a company's 11 digits"),
    }
}

/// The check letter of a person's codice fiscale (DM 23/12/1976): odd positions (1st,
/// 3rd, ...) by a table, even ones by their value, modulo 26.
fn person_check_letter(first15: &str) -> u8 {
    const ODD: [u32; 26] =
        [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];
    let sum: u32 = first15
        .bytes()
        .enumerate()
        .map(|(i, b)| {
            let value = if b.is_ascii_digit() { u32::from(b - b'0') } else { u32::from(b - b'A') };
            if i % 2 == 0 {
                ODD[value as usize]
            } else {
                value
            }
        })
        .sum();
    b'A' + (sum % 26) as u8
}

/// An SdI recipient code: 7 letters and digits (6 for a public body's IPA code).
pub fn check_sdi_code(text: &str) -> Result<String, String> {
    let code = text.trim().to_uppercase();
    if !(code.len() == 7 || code.len() == 6) || !code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(format!(
            "\"{text}\" is not an SdI recipient code: 7 letters and digits (0000000 for PEC or a consumer)"
        ));
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_round_trip_through_their_column_and_none_stay_none() {
        let ids = BuyerIds {
            vat_id: Some("DE123456788".into()),
            reference: None,
            tax_code: None,
            sdi_code: Some("0000000".into()),
            pec: Some("a@pec.it".into()),
        };
        assert_eq!(BuyerIds::from_stored(ids.stored().as_deref()), ids);
        assert_eq!(BuyerIds::default().stored(), None);
        assert_eq!(BuyerIds::from_stored(None), BuyerIds::default());
    }

    #[test]
    fn a_codice_fiscale_is_checked_by_its_check_character() {
        // The Agenzia delle Entrate's own examples.
        assert_eq!(check_tax_code("rssmra85t10a562s").unwrap(), "RSSMRA85T10A562S");
        assert!(check_tax_code("RSSMRA85T10A562T").is_err());
        assert_eq!(check_tax_code("07643520567").unwrap(), "07643520567");
        assert!(check_tax_code("07643520568").is_err());
        assert!(check_tax_code("123").is_err());
    }

    #[test]
    fn an_sdi_code_has_seven_characters() {
        assert_eq!(check_sdi_code("abc1234").unwrap(), "ABC1234");
        assert!(check_sdi_code("ABC12345").is_err());
        assert!(check_sdi_code("ABC-123").is_err());
    }
}
