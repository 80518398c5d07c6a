//! A country's conventions on a document: how its amounts are written and what its tax is
//! called. The business's country decides these; the document's language decides the
//! words around them. A business without a country writes as a Swiss one does.

use super::{Amount, Words};
use crate::domain::{Language, VatRate};

/// The conventions of the issuing business's country (ISO 3166 alpha-2), if it has one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conventions {
    pub country: Option<String>,
}

/// How a country writes numbers.
struct Style {
    group: &'static str,
    decimal: char,
    /// `1.250,00 €` rather than `CHF 1'250.00`.
    currency_after: bool,
}

/// A narrow no-break space: French groups digits with it.
const NARROW_SPACE: &str = "\u{202f}";

impl Conventions {
    fn country(&self) -> &str {
        self.country.as_deref().unwrap_or("CH")
    }

    fn style(&self, language: Language) -> Style {
        match self.country() {
            "CH" | "LI" => Style { group: Words::of(language).group, decimal: '.', currency_after: false },
            "FR" | "BE" | "LU" => Style { group: NARROW_SPACE, decimal: ',', currency_after: true },
            "DE" | "AT" | "IT" | "ES" | "NL" | "PT" | "SI" | "HR" | "GR" | "EL" => {
                Style { group: ".", decimal: ',', currency_after: true }
            }
            _ => Style { group: ",", decimal: '.', currency_after: false },
        }
    }

    /// `CHF 1'250.00` (Switzerland, de and it), `CHF 1 250.00` (fr), `1.250,00 €` (Germany,
    /// Austria, Italy), `1 250,00 €` (France).
    pub fn amount(&self, language: Language, amount: &Amount) -> String {
        let style = self.style(language);
        // A credit note's amounts are negative: the sign goes before the digits.
        let sign = if amount.minor < 0 { "-" } else { "" };
        let minor = amount.minor.unsigned_abs();
        let units = (minor / 100).to_string();
        let mut grouped = String::new();
        for (i, digit) in units.chars().enumerate() {
            if i > 0 && (units.len() - i).is_multiple_of(3) {
                grouped.push_str(style.group);
            }
            grouped.push(digit);
        }
        let number = format!("{sign}{grouped}{}{:02}", style.decimal, minor % 100);
        match (style.currency_after, amount.currency.as_str()) {
            (true, "EUR") => format!("{number} €"),
            (true, code) => format!("{number} {code}"),
            (false, code) => format!("{code} {number}"),
        }
    }

    /// What the tax is called: MWST (Swiss German), USt. (German, Austrian), TVA, IVA, VAT.
    pub fn tax(&self, language: Language) -> &'static str {
        match (language, self.country()) {
            (Language::De, "CH" | "LI") => "MWST",
            (Language::De, _) => "USt.",
            (Language::Fr, _) => "TVA",
            (Language::It, _) => "IVA",
            (Language::En, _) => "VAT",
        }
    }

    /// The label of the business's VAT number: MWST-Nr., USt-IdNr., N° TVA, P. IVA, VAT No.
    pub fn vat_number(&self, language: Language) -> &'static str {
        match (language, self.country()) {
            (Language::De, "CH" | "LI") => Words::of(language).vat_number,
            (Language::De, _) => "USt-IdNr.",
            (Language::It, "IT") => "P. IVA",
            _ => Words::of(language).vat_number,
        }
    }

    /// The VAT line: `incl. 8.1 % VAT`, `inkl. 19 % USt.`.
    pub fn vat_included(&self, language: Language, rate: VatRate) -> String {
        let rate = rate.text(self.style(language).decimal);
        (Words::of(language).vat_included)(&rate, self.tax(language))
    }

    /// The country's note on documents of a business exempt under its small-business rule.
    pub fn small_business_note(&self) -> Option<&'static str> {
        match self.country() {
            "DE" => Some("Gemäß § 19 UStG wird keine Umsatzsteuer berechnet."),
            "AT" => {
                Some("Umsatzsteuerfrei aufgrund der Kleinunternehmerregelung gemäß § 6 Abs. 1 Z 27 UStG.")
            }
            "FR" => Some("TVA non applicable, art. 293 B du CGI."),
            "IT" => {
                Some("Operazione senza applicazione dell'IVA ai sensi dell'art. 1, commi 54-89, L. 190/2014.")
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(minor: i64, currency: &str) -> Amount {
        Amount { minor, currency: currency.into() }
    }

    #[test]
    fn amounts_are_written_as_the_country_writes_them() {
        let swiss = Conventions::default();
        assert_eq!(swiss.amount(Language::En, &amount(125_000, "CHF")), "CHF 1,250.00");
        assert_eq!(swiss.amount(Language::De, &amount(125_000, "CHF")), "CHF 1'250.00");
        assert_eq!(swiss.amount(Language::It, &amount(123_456_789, "CHF")), "CHF 1'234'567.89");
        assert_eq!(swiss.amount(Language::Fr, &amount(125_000, "CHF")), "CHF 1\u{202f}250.00");
        assert_eq!(swiss.amount(Language::En, &amount(5, "CHF")), "CHF 0.05");
        let country = |c: &str| Conventions { country: Some(c.into()) };
        assert_eq!(country("DE").amount(Language::De, &amount(125_000, "EUR")), "1.250,00 €");
        assert_eq!(country("AT").amount(Language::En, &amount(125_000, "EUR")), "1.250,00 €");
        assert_eq!(country("IT").amount(Language::It, &amount(125_000, "EUR")), "1.250,00 €");
        assert_eq!(country("FR").amount(Language::Fr, &amount(125_000, "EUR")), "1\u{202f}250,00 €");
        assert_eq!(swiss.amount(Language::De, &amount(-125_050, "CHF")), "CHF -1'250.50");
        assert_eq!(country("DE").amount(Language::De, &amount(-5, "EUR")), "-0,05 €");
    }

    #[test]
    fn the_tax_has_the_countrys_name_in_the_documents_language() {
        let country = |c: &str| Conventions { country: Some(c.into()) };
        assert_eq!(country("CH").vat_included(Language::De, VatRate(810)), "inkl. 8.1 % MWST");
        assert_eq!(country("DE").vat_included(Language::De, VatRate(1900)), "inkl. 19 % USt.");
        assert_eq!(country("DE").vat_included(Language::De, VatRate(770)), "inkl. 7,7 % USt.");
        assert_eq!(country("CH").vat_included(Language::Fr, VatRate(810)), "TVA 8.1 % incluse");
        assert_eq!(country("CH").vat_included(Language::It, VatRate(810)), "IVA 8.1 % inclusa");
        assert_eq!(country("CH").vat_included(Language::En, VatRate(810)), "incl. 8.1 % VAT");
        assert_eq!(country("DE").vat_number(Language::De), "USt-IdNr.");
        assert_eq!(country("CH").vat_number(Language::De), "MWST-Nr.");
    }
}
