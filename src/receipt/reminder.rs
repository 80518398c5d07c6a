//! The reminder: a document of its own that names an unpaid invoice (its number, date and
//! due date), says what is still open and the fee of its level if any, gives a new due date,
//! and carries the invoice's payment part for the open amount and that fee. The invoice
//! itself never changes.

use super::{Amount, Line, Receipt};
use crate::domain::{Language, Level, ReceiptNumber};
use chrono::NaiveDate;

/// What makes a receipt a reminder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReminderOf {
    pub level: Level,
    /// The invoice: its number, its date, its first due date.
    pub invoice: ReceiptNumber,
    pub invoice_on: NaiveDate,
    pub invoice_due: NaiveDate,
    /// The invoice's total.
    pub total: Amount,
    /// What its credit notes took back.
    pub credited: Amount,
    /// What part payments paid of it before the reminder.
    pub paid: Amount,
    /// What is still open: the total less the credits and the parts paid.
    pub open: Amount,
    /// The fee of this level (none: zero).
    pub fee: Amount,
}

/// A reminder's words in one language.
struct ReminderWords {
    titles: [&'static str; 3],
    /// "Our invoice 2026-0042 of 21 November 2026, due on 5 December 2026, is still unpaid."
    unpaid: fn(&str, &str, &str) -> String,
    invoice_amount: &'static str,
    credited: &'static str,
    open: &'static str,
    fee: &'static str,
    to_pay: &'static str,
    /// "Please pay by DATE."
    pay_by: fn(&str) -> String,
    crossed: &'static str,
    /// Before the invoice's number in the title line.
    invoice: &'static str,
}

const EN: ReminderWords = ReminderWords {
    titles: ["Payment reminder", "Second reminder", "Final reminder"],
    unpaid: |number, on, due| format!("Our invoice {number} of {on}, due on {due}, is still unpaid."),
    invoice_amount: "Invoice amount",
    credited: "Credited",
    open: "Open amount",
    fee: "Reminder fee",
    to_pay: "Amount to pay",
    pay_by: |date| format!("Please pay by {date}."),
    crossed: "If you have paid in the meantime, please disregard this reminder.",
    invoice: "Invoice",
};

const DE: ReminderWords = ReminderWords {
    titles: ["Zahlungserinnerung", "1. Mahnung", "Letzte Mahnung"],
    unpaid: |number, on, due| {
        format!("Unsere Rechnung {number} vom {on}, fällig am {due}, ist noch nicht bezahlt.")
    },
    invoice_amount: "Rechnungsbetrag",
    credited: "Gutgeschrieben",
    open: "Offener Betrag",
    fee: "Mahngebühr",
    to_pay: "Zu zahlen",
    pay_by: |date| format!("Bitte bezahlen Sie bis zum {date}."),
    crossed: "Falls Sie inzwischen bezahlt haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.",
    invoice: "Rechnung",
};

const FR: ReminderWords = ReminderWords {
    titles: ["Rappel", "Deuxième rappel", "Dernier rappel"],
    unpaid: |number, on, due| {
        format!("Notre facture {number} du {on}, échue le {due}, n'est pas encore réglée.")
    },
    invoice_amount: "Montant de la facture",
    credited: "Crédité",
    open: "Montant dû",
    fee: "Frais de rappel",
    to_pay: "À payer",
    pay_by: |date| format!("Merci de régler ce montant d'ici le {date}."),
    crossed: "Si vous avez payé entre-temps, veuillez ne pas tenir compte de ce rappel.",
    invoice: "Facture",
};

const IT: ReminderWords = ReminderWords {
    titles: ["Sollecito di pagamento", "Secondo sollecito", "Ultimo sollecito"],
    unpaid: |number, on, due| {
        format!("La nostra fattura {number} del {on}, scaduta il {due}, non è ancora stata pagata.")
    },
    invoice_amount: "Importo della fattura",
    credited: "Accreditato",
    open: "Importo aperto",
    fee: "Spese di sollecito",
    to_pay: "Da pagare",
    pay_by: |date| format!("La preghiamo di pagare entro il {date}."),
    crossed: "Se nel frattempo ha già pagato, consideri nullo questo sollecito.",
    invoice: "Fattura",
};

fn words(language: Language) -> &'static ReminderWords {
    match language {
        Language::En => &EN,
        Language::De => &DE,
        Language::Fr => &FR,
        Language::It => &IT,
    }
}

/// The title of a level in a language: "Zahlungserinnerung", "1. Mahnung", "Letzte Mahnung".
pub fn title(language: Language, level: Level) -> &'static str {
    words(language).titles[(level.get() - 1) as usize]
}

/// "Invoice 2026-0042": the invoice a reminder is about, as its title line names it.
pub fn about(language: Language, invoice: ReceiptNumber) -> String {
    format!("{} {invoice}", words(language).invoice)
}

/// The reminder in a few sentences, for the message it goes with: the invoice still
/// unpaid, the amount to pay, and the words for a customer who paid meanwhile.
pub fn summary(receipt: &Receipt, reminder: &ReminderOf) -> (String, String, &'static str) {
    let (words, reminder_words) = (receipt.words(), words(receipt.language));
    let unpaid = (reminder_words.unpaid)(
        &reminder.invoice.to_string(),
        &words.date_text(reminder.invoice_on),
        &words.date_text(reminder.invoice_due),
    );
    let to_pay = Amount { minor: reminder.open.minor + reminder.fee.minor, ..reminder.open.clone() };
    (unpaid, format!("{}: {}", reminder_words.to_pay, receipt.amount_text(&to_pay)), reminder_words.crossed)
}

/// The lines of a reminder, top to bottom (`Receipt::lines` for a reminder).
pub fn lines(receipt: &Receipt, reminder: &ReminderOf) -> Vec<Line> {
    let language = receipt.language;
    let (words, reminder_words) = (receipt.words(), words(language));
    let mut lines = receipt.seller_lines();
    lines.push(Line::Title {
        title: title(language, reminder.level).into(),
        number: about(language, reminder.invoice),
    });
    lines.push(Line::Gap);
    lines.push(Line::Field(words.date.into(), words.date_text(receipt.issued_on)));
    if let Some(customer) = &receipt.customer {
        let mut value = customer.clone();
        for line in &receipt.customer_address {
            value.push('\n');
            value.push_str(line);
        }
        lines.push(Line::Field(words.customer.into(), value));
    }
    lines.push(Line::Gap);
    lines.push(Line::Plain((reminder_words.unpaid)(
        &reminder.invoice.to_string(),
        &words.date_text(reminder.invoice_on),
        &words.date_text(reminder.invoice_due),
    )));
    lines.push(Line::Gap);
    let amount = |amount: &Amount| receipt.amount_text(amount);
    lines.push(Line::Item { text: reminder_words.invoice_amount.into(), amount: amount(&reminder.total) });
    if reminder.credited.minor > 0 {
        let credited = Amount { minor: -reminder.credited.minor, ..reminder.credited.clone() };
        lines.push(Line::Item { text: reminder_words.credited.into(), amount: amount(&credited) });
    }
    if reminder.paid.minor > 0 {
        let paid = Amount { minor: -reminder.paid.minor, ..reminder.paid.clone() };
        lines.push(Line::Item { text: words.paid_so_far.into(), amount: amount(&paid) });
    }
    lines.push(Line::Item { text: reminder_words.open.into(), amount: amount(&reminder.open) });
    if reminder.fee.minor > 0 {
        lines.push(Line::Item { text: reminder_words.fee.into(), amount: amount(&reminder.fee) });
    }
    let to_pay = Amount { minor: reminder.open.minor + reminder.fee.minor, ..reminder.open.clone() };
    lines.push(Line::Total { label: reminder_words.to_pay.into(), amount: amount(&to_pay), vat: None });
    if let Some(due) = receipt.due_on {
        lines.push(Line::Plain((reminder_words.pay_by)(&words.date_text(due))));
    }
    lines.push(Line::Plain(reminder_words.crossed.into()));
    lines.extend(receipt.check_line());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_is_titled_in_each_language() {
        let titles: Vec<&str> = Level::ALL.iter().map(|&level| title(Language::De, level)).collect();
        assert_eq!(titles, ["Zahlungserinnerung", "1. Mahnung", "Letzte Mahnung"]);
        assert_eq!(title(Language::Fr, Level::LAST), "Dernier rappel");
        assert_eq!(title(Language::It, Level::FIRST), "Sollecito di pagamento");
        assert_eq!(title(Language::En, Level::FIRST.next().unwrap()), "Second reminder");
    }
}
