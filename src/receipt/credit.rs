//! The credit note: the original's document taken back, in full or in part, by a document
//! that names it (its number and date), with the seller and buyer as the original froze
//! them, the amount as negative lines, the VAT at the original's rate, the reason and how it
//! was settled, and no payment part.

use super::{Amount, Line, Receipt};
use crate::domain::{CreditNumber, Language, ReceiptNumber, Refund};
use chrono::NaiveDate;

/// What makes a receipt a credit note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditOf {
    pub number: CreditNumber,
    /// The original: its number, its date, and what it was called (invoice or receipt).
    pub original: ReceiptNumber,
    pub original_on: NaiveDate,
    pub original_title: &'static str,
    /// What it takes back (positive).
    pub amount: Amount,
    /// The VAT of that amount at the original's rate, for a business that charges VAT.
    pub vat: Option<Amount>,
    /// What the original still asks after it.
    pub left: Amount,
    /// It took back all that was left: the original is cancelled.
    pub completes: bool,
    /// It took back the whole original at once: each of its lines is reversed.
    pub whole: bool,
    pub reason: String,
    pub refund: Refund,
    /// Whether the original was paid (then `refund` says how the money went back).
    pub paid: bool,
}

/// A credit note's words in one language.
struct CreditWords {
    /// Before the original: "for invoice 2026-0007 of 21 November 2026".
    relates: &'static str,
    /// A full credit: "cancels invoice ...".
    cancels: &'static str,
    /// Between the original's number and its date.
    of: &'static str,
    reason: &'static str,
    /// The line of a partial credit.
    credited: &'static str,
    /// The amount before tax (France states the reduction before tax).
    net: &'static str,
    /// The original's total after this credit.
    left: &'static str,
    /// How it was settled, before the date where money went back.
    refunded: fn(Refund) -> &'static str,
    /// An unpaid invoice credited: no money moves.
    set_against: &'static str,
    /// A paid one, its money kept.
    kept: &'static str,
}

const EN: CreditWords = CreditWords {
    relates: "for",
    cancels: "cancels",
    of: "of",
    reason: "Reason",
    credited: "Credited",
    net: "Net",
    left: "Total after this credit note",
    refunded: |refund| match refund {
        Refund::Cash => "Refunded in cash on",
        Refund::Card => "Refunded to the card on",
        Refund::Twint => "Refunded by TWINT on",
        Refund::Transfer => "Refunded by bank transfer on",
        Refund::Other | Refund::Till | Refund::None => "Refunded on",
    },
    set_against: "Set against the open amount: this much is no longer owed.",
    kept: "Nothing was paid back.",
};

const DE: CreditWords = CreditWords {
    relates: "zu",
    cancels: "storniert",
    of: "vom",
    reason: "Grund",
    credited: "Gutgeschrieben",
    net: "Netto",
    left: "Betrag nach dieser Korrektur",
    refunded: |refund| match refund {
        Refund::Cash => "Bar zurückerstattet am",
        Refund::Card => "Auf die Karte zurückerstattet am",
        Refund::Twint => "Per TWINT zurückerstattet am",
        Refund::Transfer => "Per Überweisung zurückerstattet am",
        Refund::Other | Refund::Till | Refund::None => "Zurückerstattet am",
    },
    set_against: "Mit dem offenen Betrag verrechnet: dieser Betrag ist nicht mehr geschuldet.",
    kept: "Es wurde nichts zurückerstattet.",
};

const FR: CreditWords = CreditWords {
    relates: "pour la",
    cancels: "annule la",
    of: "du",
    reason: "Motif",
    credited: "Crédit",
    net: "Montant HT",
    left: "Total après cet avoir",
    refunded: |refund| match refund {
        Refund::Cash => "Remboursé en espèces le",
        Refund::Card => "Remboursé sur la carte le",
        Refund::Twint => "Remboursé par TWINT le",
        Refund::Transfer => "Remboursé par virement le",
        Refund::Other | Refund::Till | Refund::None => "Remboursé le",
    },
    set_against: "Déduit du montant dû : ce montant n'est plus dû.",
    kept: "Rien n'a été remboursé.",
};

const IT: CreditWords = CreditWords {
    relates: "per la",
    cancels: "annulla la",
    of: "del",
    reason: "Motivo",
    credited: "Accredito",
    net: "Imponibile",
    left: "Totale dopo questa nota di credito",
    refunded: |refund| match refund {
        Refund::Cash => "Rimborsato in contanti il",
        Refund::Card => "Rimborsato sulla carta il",
        Refund::Twint => "Rimborsato tramite TWINT il",
        Refund::Transfer => "Rimborsato con bonifico il",
        Refund::Other | Refund::Till | Refund::None => "Rimborsato il",
    },
    set_against: "Detratto dall'importo dovuto: questo importo non è più dovuto.",
    kept: "Non è stato rimborsato nulla.",
};

fn words(language: Language) -> &'static CreditWords {
    match language {
        Language::En => &EN,
        Language::De => &DE,
        Language::Fr => &FR,
        Language::It => &IT,
    }
}

/// The title by language and the business's country: in Germany and Austria "Gutschrift"
/// means self-billing, so a correction is a "Rechnungskorrektur"; France says "Avoir".
pub fn title(language: Language, country: Option<&str>) -> &'static str {
    let swiss = matches!(country.unwrap_or("CH"), "CH" | "LI");
    match language {
        Language::En => "Credit note",
        Language::De if swiss => "Gutschrift",
        Language::De => "Rechnungskorrektur",
        Language::Fr if swiss => "Note de crédit",
        Language::Fr => "Avoir",
        Language::It => "Nota di credito",
    }
}

/// The lines of a credit note, top to bottom (`Receipt::lines` for a credit note).
pub fn lines(receipt: &Receipt, credit: &CreditOf) -> Vec<Line> {
    let language = receipt.language;
    let (words, credit_words) = (receipt.words(), words(language));
    let mut lines = receipt.seller_lines();
    lines.push(Line::Title {
        title: title(language, receipt.conventions.country.as_deref()).into(),
        number: format!("{} {}", words.number, credit.number),
    });
    let original_title = match language {
        Language::De => credit.original_title.to_string(),
        _ => credit.original_title.to_lowercase(),
    };
    let relation = if credit.completes { credit_words.cancels } else { credit_words.relates };
    lines.push(Line::Plain(format!(
        "{relation} {original_title} {} {} {}",
        credit.original,
        credit_words.of,
        words.date_text(credit.original_on)
    )));
    lines.push(Line::Gap);
    lines.push(Line::Field(words.date.into(), words.date_text(receipt.issued_on)));
    lines.extend(receipt.customer_and_work());
    let negative = |amount: &Amount| receipt.amount_text(&Amount { minor: -amount.minor, ..amount.clone() });
    if credit.whole {
        // Every line of the original, reversed.
        if let Some(stringing) = &receipt.stringing {
            lines.push(Line::Item { text: words.stringing.into(), amount: negative(stringing) });
        }
        for (text, amount) in &receipt.items {
            lines.push(Line::Item { text: text.clone(), amount: negative(amount) });
        }
    } else {
        lines.push(Line::Item { text: credit_words.credited.into(), amount: negative(&credit.amount) });
    }
    let conventions = &receipt.conventions;
    let french = conventions.country.as_deref() == Some("FR");
    match (&credit.vat, receipt.vat) {
        (Some(vat), Some(rate)) if french => {
            let net = Amount { minor: credit.amount.minor - vat.minor, currency: vat.currency.clone() };
            lines.push(Line::Item { text: credit_words.net.into(), amount: negative(&net) });
            lines.push(Line::Item { text: conventions.vat_included(language, rate), amount: negative(vat) });
            lines.push(Line::Total {
                label: words.amount.into(),
                amount: negative(&credit.amount),
                vat: None,
            });
        }
        (Some(vat), Some(rate)) => {
            let vat = format!("{}  {}", conventions.vat_included(language, rate), negative(vat));
            lines.push(Line::Total {
                label: words.amount.into(),
                amount: negative(&credit.amount),
                vat: Some(vat),
            });
        }
        _ => lines.push(Line::Total {
            label: words.amount.into(),
            amount: negative(&credit.amount),
            vat: None,
        }),
    }
    if !credit.whole {
        lines.push(Line::Item { text: credit_words.left.into(), amount: receipt.amount_text(&credit.left) });
    }
    if receipt.business.small_business {
        if let Some(note) = conventions.small_business_note() {
            lines.push(Line::Plain(note.into()));
        }
    }
    lines.push(Line::Gap);
    lines.push(Line::Field(credit_words.reason.into(), credit.reason.clone()));
    let settled = match (credit.paid, credit.refund) {
        (false, _) => credit_words.set_against.to_string(),
        (true, Refund::None) => credit_words.kept.to_string(),
        (true, refund) => {
            format!("{} {}", (credit_words.refunded)(refund), words.date_text(receipt.issued_on))
        }
    };
    lines.push(Line::Plain(settled));
    lines.extend(receipt.check_line());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_follows_the_language_and_the_country() {
        assert_eq!(title(Language::De, Some("CH")), "Gutschrift");
        assert_eq!(title(Language::De, Some("DE")), "Rechnungskorrektur");
        assert_eq!(title(Language::De, Some("AT")), "Rechnungskorrektur");
        assert_eq!(title(Language::Fr, Some("CH")), "Note de crédit");
        assert_eq!(title(Language::Fr, Some("FR")), "Avoir");
        assert_eq!(title(Language::It, Some("IT")), "Nota di credito");
        assert_eq!(title(Language::En, None), "Credit note");
    }
}
