//! The words of a receipt in each language, and how amounts and dates are written there.

use super::Amount;
use crate::domain::Language;
use chrono::{Datelike, NaiveDate};

pub struct Labels {
    pub receipt: &'static str,
    pub invoice: &'static str,
    pub void: &'static str,
    pub copy: &'static str,
    pub number: &'static str,
    pub date: &'static str,
    pub service_date: &'static str,
    pub customer: &'static str,
    pub work: &'static str,
    pub racket: &'static str,
    pub string: &'static str,
    pub tension: &'static str,
    pub amount: &'static str,
    pub incl_vat: &'static str,
    pub vat_number: &'static str,
    pub paid_on: &'static str,
    pub notes: &'static str,
    months: [&'static str; 12],
    /// How a date reads: day, month name, year.
    date_pattern: fn(u32, &str, i32) -> String,
    /// Thousands separator (amounts use `.` for decimals in every language, as in Switzerland).
    group: &'static str,
}

const EN: Labels = Labels {
    receipt: "Receipt",
    invoice: "Invoice",
    void: "VOID",
    copy: "Copy",
    number: "No.",
    date: "Date",
    service_date: "Service date",
    customer: "Customer",
    work: "Racket stringing",
    racket: "Racket",
    string: "String",
    tension: "Tension",
    amount: "Amount",
    incl_vat: "incl. VAT",
    vat_number: "VAT No.",
    paid_on: "Paid on",
    notes: "Notes",
    months: [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    date_pattern: |day, month, year| format!("{day} {month} {year}"),
    group: ",",
};

const DE: Labels = Labels {
    receipt: "Quittung",
    invoice: "Rechnung",
    void: "STORNIERT",
    copy: "Kopie",
    number: "Nr.",
    date: "Datum",
    service_date: "Leistungsdatum",
    customer: "Kunde",
    work: "Besaitung",
    racket: "Schläger",
    string: "Saite",
    tension: "Spannung",
    amount: "Betrag",
    incl_vat: "inkl. MWST",
    vat_number: "MWST-Nr.",
    paid_on: "Bezahlt am",
    notes: "Bemerkungen",
    months: [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
    date_pattern: |day, month, year| format!("{day}. {month} {year}"),
    group: "'",
};

const FR: Labels = Labels {
    receipt: "Quittance",
    invoice: "Facture",
    void: "ANNULÉ",
    copy: "Copie",
    number: "N°",
    date: "Date",
    service_date: "Date de prestation",
    customer: "Client",
    work: "Cordage de raquette",
    racket: "Raquette",
    string: "Cordage",
    tension: "Tension",
    amount: "Montant",
    incl_vat: "TVA incluse",
    vat_number: "N° TVA",
    paid_on: "Payé le",
    notes: "Remarques",
    months: [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    date_pattern: |day, month, year| format!("{day} {month} {year}"),
    // A narrow no-break space, as Swiss French writes 1 250.00.
    group: "\u{202f}",
};

const IT: Labels = Labels {
    receipt: "Ricevuta",
    invoice: "Fattura",
    void: "ANNULLATO",
    copy: "Copia",
    number: "N.",
    date: "Data",
    service_date: "Data della prestazione",
    customer: "Cliente",
    work: "Incordatura",
    racket: "Racchetta",
    string: "Corda",
    tension: "Tensione",
    amount: "Importo",
    incl_vat: "IVA inclusa",
    vat_number: "N. IVA",
    paid_on: "Pagato il",
    notes: "Note",
    months: [
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ],
    date_pattern: |day, month, year| format!("{day} {month} {year}"),
    group: "'",
};

impl Labels {
    pub fn of(language: Language) -> &'static Labels {
        match language {
            Language::En => &EN,
            Language::De => &DE,
            Language::Fr => &FR,
            Language::It => &IT,
        }
    }

    /// `21 November 2026`, `21. November 2026`, `21 novembre 2026`.
    pub fn date_text(&self, date: NaiveDate) -> String {
        (self.date_pattern)(date.day(), self.months[date.month0() as usize], date.year())
    }

    /// `CHF 1,250.00` (en), `CHF 1'250.00` (de, it), `CHF 1 250.00` (fr).
    pub fn amount_text(&self, amount: &Amount) -> String {
        let units = (amount.minor / 100).to_string();
        let mut grouped = String::new();
        for (i, digit) in units.chars().enumerate() {
            if i > 0 && (units.len() - i).is_multiple_of(3) {
                grouped.push_str(self.group);
            }
            grouped.push(digit);
        }
        format!("{} {grouped}.{:02}", amount.currency, amount.minor % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_written_as_each_language_writes_them() {
        let amount = |minor| Amount { minor, currency: "CHF".into() };
        assert_eq!(Labels::of(Language::En).amount_text(&amount(125_000)), "CHF 1,250.00");
        assert_eq!(Labels::of(Language::De).amount_text(&amount(125_000)), "CHF 1'250.00");
        assert_eq!(Labels::of(Language::It).amount_text(&amount(123_456_789)), "CHF 1'234'567.89");
        assert_eq!(Labels::of(Language::Fr).amount_text(&amount(125_000)), "CHF 1\u{202f}250.00");
        assert_eq!(Labels::of(Language::De).amount_text(&amount(3550)), "CHF 35.50");
        assert_eq!(Labels::of(Language::En).amount_text(&amount(5)), "CHF 0.05");
    }

    #[test]
    fn dates_are_written_as_each_language_writes_them() {
        let date = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(Labels::of(Language::En).date_text(date), "1 March 2026");
        assert_eq!(Labels::of(Language::De).date_text(date), "1. März 2026");
        assert_eq!(Labels::of(Language::Fr).date_text(date), "1 mars 2026");
        assert_eq!(Labels::of(Language::It).date_text(date), "1 marzo 2026");
    }
}
