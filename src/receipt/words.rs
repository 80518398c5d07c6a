//! The words of a receipt in each language, and how amounts and dates are written there.

use crate::domain::{nouns, Language};
use chrono::{Datelike, NaiveDate};

pub struct Words {
    pub receipt: &'static str,
    pub invoice: &'static str,
    pub void: &'static str,
    pub copy: &'static str,
    pub number: &'static str,
    pub date: &'static str,
    pub service_date: &'static str,
    pub customer: &'static str,
    /// Before the reference the buyer's bookkeeping routes the invoice by.
    pub buyer_reference: &'static str,
    pub work: &'static str,
    pub racket: &'static str,
    pub string: &'static str,
    pub tension: &'static str,
    /// A hybrid's two strings.
    pub mains: &'static str,
    pub crosses: &'static str,
    /// The stringing's line, when items follow it.
    pub stringing: &'static str,
    pub amount: &'static str,
    pub vat_number: &'static str,
    pub paid_on: &'static str,
    /// An open invoice's parts paid, and what is left of it.
    pub paid_so_far: &'static str,
    pub left_to_pay: &'static str,
    pub notes: &'static str,
    /// Before an invoice's due date.
    pub payable_until: &'static str,
    pub tax_number: &'static str,
    /// Before the check value of the journal's event that issued the document.
    pub check: &'static str,
    pub reference: &'static str,
    /// Beside an EPC QR code.
    pub scan_to_pay: &'static str,
    pub bic: &'static str,
    pub account_holder: &'static str,
    /// The VAT line: the rate and the tax's name, e.g. "incl. 8.1 % VAT".
    pub vat_included: fn(rate: &str, tax: &str) -> String,
    /// The QR-bill's words (SIX guidelines, in the document's language).
    pub slip: SlipWords,
    months: [&'static str; 12],
    /// How a date reads: day, month name, year.
    date_pattern: fn(u32, &str, i32) -> String,
    /// Thousands separator of a Swiss business's amounts (`.` for decimals, as in Switzerland).
    pub(super) group: &'static str,
}

/// The headings of the QR-bill's receipt and payment part.
pub struct SlipWords {
    pub payment_part: &'static str,
    pub receipt: &'static str,
    pub account_payable_to: &'static str,
    pub reference: &'static str,
    pub additional_information: &'static str,
    pub payable_by: &'static str,
    pub payable_by_name: &'static str,
    pub currency: &'static str,
    pub amount: &'static str,
    pub acceptance_point: &'static str,
    pub separate: &'static str,
}

const EN: Words = Words {
    receipt: "Receipt",
    invoice: "Invoice",
    void: "VOID",
    copy: "Copy",
    number: "No.",
    date: "Date",
    service_date: "Service date",
    customer: nouns::EN.customer,
    buyer_reference: "Your reference",
    work: "Racket stringing",
    racket: nouns::EN.racket,
    string: nouns::EN.string,
    tension: nouns::EN.tension,
    mains: "mains",
    crosses: "crosses",
    stringing: "Stringing",
    amount: nouns::EN.amount,
    vat_number: "VAT No.",
    paid_on: "Paid on",
    paid_so_far: "Paid so far",
    left_to_pay: "Left to pay",
    notes: "Notes",
    payable_until: "Payable by",
    tax_number: "Tax No.",
    check: "Check",
    reference: "Reference",
    scan_to_pay: "Scan to pay with your banking app",
    bic: "BIC",
    account_holder: "Account holder",
    vat_included: |rate, tax| format!("incl. {rate} % {tax}"),
    slip: SlipWords {
        payment_part: "Payment part",
        receipt: "Receipt",
        account_payable_to: "Account / Payable to",
        reference: "Reference",
        additional_information: "Additional information",
        payable_by: "Payable by",
        payable_by_name: "Payable by (name/address)",
        currency: "Currency",
        amount: nouns::EN.amount,
        acceptance_point: "Acceptance point",
        separate: "Separate before paying in",
    },
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

const DE: Words = Words {
    receipt: "Quittung",
    invoice: "Rechnung",
    void: "STORNIERT",
    copy: "Kopie",
    number: "Nr.",
    date: "Datum",
    service_date: "Leistungsdatum",
    customer: nouns::DE.customer,
    buyer_reference: "Ihre Referenz",
    work: "Besaitung",
    racket: nouns::DE.racket,
    string: nouns::DE.string,
    tension: nouns::DE.tension,
    mains: "Längssaiten",
    crosses: "Quersaiten",
    stringing: "Besaitung",
    amount: nouns::DE.amount,
    vat_number: "MWST-Nr.",
    paid_on: "Bezahlt am",
    paid_so_far: "Bereits bezahlt",
    left_to_pay: "Noch zu bezahlen",
    notes: "Bemerkungen",
    payable_until: "Zahlbar bis",
    tax_number: "Steuernummer",
    check: "Prüfwert",
    reference: "Referenz",
    scan_to_pay: "Mit der Banking-App scannen und bezahlen",
    bic: "BIC",
    account_holder: "Kontoinhaber",
    vat_included: |rate, tax| format!("inkl. {rate} % {tax}"),
    slip: SlipWords {
        payment_part: "Zahlteil",
        receipt: "Empfangsschein",
        account_payable_to: "Konto / Zahlbar an",
        reference: "Referenz",
        additional_information: "Zusätzliche Informationen",
        payable_by: "Zahlbar durch",
        payable_by_name: "Zahlbar durch (Name/Adresse)",
        currency: "Währung",
        amount: nouns::DE.amount,
        acceptance_point: "Annahmestelle",
        separate: "Vor der Einzahlung abzutrennen",
    },
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

const FR: Words = Words {
    receipt: "Quittance",
    invoice: "Facture",
    void: "ANNULÉ",
    copy: "Copie",
    number: "N°",
    date: "Date",
    service_date: "Date de prestation",
    customer: nouns::FR.customer,
    buyer_reference: "Votre référence",
    work: "Cordage de raquette",
    racket: nouns::FR.racket,
    string: nouns::FR.string,
    tension: nouns::FR.tension,
    mains: "montants",
    crosses: "travers",
    stringing: "Cordage",
    amount: nouns::FR.amount,
    vat_number: "N° TVA",
    paid_on: "Payé le",
    paid_so_far: "Déjà payé",
    left_to_pay: "Reste à payer",
    notes: "Remarques",
    payable_until: "Payable jusqu'au",
    tax_number: "N° fiscal",
    check: "Contrôle",
    reference: "Référence",
    scan_to_pay: "Scannez avec votre application bancaire pour payer",
    bic: "BIC",
    account_holder: "Titulaire du compte",
    vat_included: |rate, tax| format!("{tax} {rate} % incluse"),
    slip: SlipWords {
        payment_part: "Section paiement",
        receipt: "Récépissé",
        account_payable_to: "Compte / Payable à",
        reference: "Référence",
        additional_information: "Informations supplémentaires",
        payable_by: "Payable par",
        payable_by_name: "Payable par (nom/adresse)",
        currency: "Monnaie",
        amount: nouns::FR.amount,
        acceptance_point: "Point de dépôt",
        separate: "A détacher avant le versement",
    },
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

const IT: Words = Words {
    receipt: "Ricevuta",
    invoice: "Fattura",
    void: "ANNULLATO",
    copy: "Copia",
    number: "N.",
    date: "Data",
    service_date: "Data della prestazione",
    customer: nouns::IT.customer,
    buyer_reference: "Vostro riferimento",
    work: "Incordatura",
    racket: nouns::IT.racket,
    string: nouns::IT.string,
    tension: nouns::IT.tension,
    mains: "verticali",
    crosses: "orizzontali",
    stringing: "Incordatura",
    amount: nouns::IT.amount,
    vat_number: "N. IVA",
    paid_on: "Pagato il",
    paid_so_far: "Già pagato",
    left_to_pay: "Resta da pagare",
    notes: "Note",
    payable_until: "Pagabile entro il",
    tax_number: "Codice fiscale",
    check: "Controllo",
    reference: "Riferimento",
    scan_to_pay: "Scansiona con la tua app bancaria per pagare",
    bic: "BIC",
    account_holder: "Titolare del conto",
    vat_included: |rate, tax| format!("{tax} {rate} % inclusa"),
    slip: SlipWords {
        payment_part: "Sezione pagamento",
        receipt: "Ricevuta",
        account_payable_to: "Conto / Pagabile a",
        reference: "Riferimento",
        additional_information: "Informazioni supplementari",
        payable_by: "Pagabile da",
        payable_by_name: "Pagabile da (nome/indirizzo)",
        currency: "Valuta",
        amount: nouns::IT.amount,
        acceptance_point: "Punto di accettazione",
        separate: "Da staccare prima del versamento",
    },
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

impl Words {
    pub fn of(language: Language) -> &'static Words {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_as_each_language_writes_them() {
        let date = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(Words::of(Language::En).date_text(date), "1 March 2026");
        assert_eq!(Words::of(Language::De).date_text(date), "1. März 2026");
        assert_eq!(Words::of(Language::Fr).date_text(date), "1 mars 2026");
        assert_eq!(Words::of(Language::It).date_text(date), "1 marzo 2026");
    }
}
