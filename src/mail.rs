//! Sending documents by e-mail over the stringer's own mail server: the SMTP URL (read
//! strictly, never shown with its password), the message of a document (subject and plain
//! text body in the document's language, the PDF attached), and the one call that hands it
//! to the server, every wait bounded.

use crate::domain::Language;
use crate::error::Error;
use crate::payment::Slip;
use crate::receipt::{Receipt, Title};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};
use std::time::Duration;

/// How long connecting, and each reply of the server, may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Where mail goes: `smtp://[user[:password]@]host[:port]` (STARTTLS, required unless the
/// server is on this machine) or `smtps://...` (TLS from the start, port 465).
#[derive(Clone)]
pub struct SmtpUrl {
    host: String,
    port: u16,
    implicit_tls: bool,
    user: Option<String>,
    password: Option<String>,
}

impl std::fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl SmtpUrl {
    pub fn parse(text: &str) -> Result<SmtpUrl, Error> {
        let invalid = |why: &str| {
            Error::Usage(format!("the SMTP URL {why}: write smtp://USER:PASSWORD@HOST:PORT or smtps://..."))
        };
        let url = url::Url::parse(text.trim()).map_err(|_| invalid("is not a URL"))?;
        let implicit_tls = match url.scheme() {
            "smtp" => false,
            "smtps" => true,
            _ => return Err(invalid("has another scheme than smtp or smtps")),
        };
        let host = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| invalid("names no host"))?;
        let decode = |part: &str| percent_encoding::percent_decode_str(part).decode_utf8_lossy().into_owned();
        Ok(SmtpUrl {
            host: host.trim_matches(['[', ']']).to_string(),
            port: url.port().unwrap_or(if implicit_tls { 465 } else { 587 }),
            implicit_tls,
            user: Some(decode(url.username())).filter(|u| !u.is_empty()),
            password: url.password().map(decode),
        })
    }

    /// The URL as it may be shown: its password masked.
    pub fn redacted(&self) -> String {
        let scheme = if self.implicit_tls { "smtps" } else { "smtp" };
        let user = match (&self.user, &self.password) {
            (Some(user), Some(_)) => format!("{user}:***@"),
            (Some(user), None) => format!("{user}@"),
            (None, _) => String::new(),
        };
        format!("{scheme}://{user}{}:{}", self.host, self.port)
    }

    /// A server's or the TLS library's message, with the password masked should it appear.
    fn mask(&self, text: &str) -> String {
        match &self.password {
            Some(password) if !password.is_empty() => text.replace(password.as_str(), "***"),
            _ => text.to_string(),
        }
    }

    /// A server on this machine may be reached without TLS; any other must offer STARTTLS.
    fn is_loopback(&self) -> bool {
        self.host == "localhost" || self.host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// TLS from the start (smtps), or STARTTLS: required, unless the server is on this
    /// machine (then used if offered).
    fn security(&self) -> Security {
        match (self.implicit_tls, self.is_loopback()) {
            (true, _) => Security::Wrapper,
            (false, true) => Security::StartTlsIfOffered,
            (false, false) => Security::StartTls,
        }
    }

    fn transport(&self) -> Result<SmtpTransport, Error> {
        let parameters = TlsParameters::new(self.host.clone()).map_err(|e| {
            Error::Usage(format!("cannot set up TLS for {}: {}", self.redacted(), self.mask(&e.to_string())))
        })?;
        let tls = match self.security() {
            Security::Wrapper => Tls::Wrapper(parameters),
            Security::StartTlsIfOffered => Tls::Opportunistic(parameters),
            Security::StartTls => Tls::Required(parameters),
        };
        let mut builder =
            SmtpTransport::builder_dangerous(&self.host).port(self.port).tls(tls).timeout(Some(TIMEOUT));
        if let Some(user) = &self.user {
            builder = builder
                .credentials(Credentials::new(user.clone(), self.password.clone().unwrap_or_default()));
        }
        Ok(builder.build())
    }

    /// Connects and says hello, sending nothing: whether the server is there before
    /// anything is issued that it should carry (a server not there is `MailUnreachable`).
    pub fn check(&self) -> Result<(), Error> {
        let transport = self.transport()?;
        self.bounded(move || transport.test_connection().map(drop))
    }

    /// Hands the message to the server. Accepted: the server took it for delivery. The
    /// whole exchange, not each step of it, is bounded by `TIMEOUT`: a server that takes the
    /// message and never answers is given up on then (the client library would wait a
    /// timeout per step, and then once more to say goodbye).
    pub fn send(&self, message: &Message) -> Result<(), Error> {
        let transport = self.transport()?;
        let message = message.clone();
        self.bounded(move || transport.send(&message).map(drop))
    }

    /// Runs an exchange with the server on a thread of its own, given up on after `TIMEOUT`.
    fn bounded(
        &self,
        exchange: impl FnOnce() -> Result<(), lettre::transport::smtp::Error> + Send + 'static,
    ) -> Result<(), Error> {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sender.send(exchange());
        });
        let unreachable = |reason: String| Error::MailUnreachable { server: self.redacted(), reason };
        match receiver.recv_timeout(TIMEOUT) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                let reason = self.mask(&crate::error::first_line(&e.to_string()));
                if e.is_permanent() || e.is_transient() {
                    Err(Error::MailRefused { server: self.redacted(), reason })
                } else {
                    Err(unreachable(reason))
                }
            }
            Err(_) => Err(unreachable(format!("no answer within {} s", TIMEOUT.as_secs()))),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Security {
    Wrapper,
    StartTls,
    StartTlsIfOffered,
}

/// A document as a message: from the business, to the customer, the PDF attached.
pub struct Outgoing<'a> {
    pub receipt: &'a Receipt,
    /// The business's name and address: the sender.
    pub from: (&'a str, &'a str),
    pub to: &'a str,
    pub pdf: Vec<u8>,
    /// `<handle>-<number>.pdf`.
    pub filename: String,
}

/// The sender (the business's name and address) and the recipient (the customer) as mail
/// addresses.
fn mailboxes(receipt: &Receipt, from: (&str, &str), to: &str) -> Result<(Mailbox, Mailbox), Error> {
    let address = |text: &str, who: &str| {
        text.parse().map_err(|_| Error::BadInput(format!("\"{text}\" is not an e-mail address ({who})")))
    };
    let sender = Mailbox::new(Some(from.0.to_string()), address(from.1, "the stringer's")?);
    Ok((sender, Mailbox::new(receipt.customer.clone(), address(to, "the recipient's")?)))
}

impl Outgoing<'_> {
    pub fn message(&self) -> Result<Message, Error> {
        let (from, to) = mailboxes(self.receipt, self.from, self.to)?;
        let pdf = ContentType::parse("application/pdf")
            .map_err(|e| Error::Internal { what: "the attachment's type", detail: e.to_string() })?;
        Message::builder()
            .from(from)
            .to(to)
            .subject(self.subject())
            .date_now()
            .message_id(None)
            .multipart(
                MultiPart::mixed()
                    .singlepart(SinglePart::plain(self.body()))
                    .singlepart(Attachment::new(self.filename.clone()).body(self.pdf.clone(), pdf)),
            )
            .map_err(|e| Error::Internal { what: "the message cannot be made", detail: e.to_string() })
    }

    /// `Rechnung 2026-0042 – Stefan Muster Bespannungen`; a void document says so first:
    /// `STORNIERT: Rechnung 2026-0042 – ...`.
    pub fn subject(&self) -> String {
        if let Some(reminder) = &self.receipt.reminder {
            let about = crate::receipt::reminder::about(self.receipt.language, reminder.invoice);
            return format!("{} – {about} – {}", self.receipt.title_text(), self.from.0);
        }
        let void = match self.receipt.void_reason {
            Some(_) => format!("{}: ", self.receipt.words().void),
            None => String::new(),
        };
        format!("{void}{} {} – {}", self.receipt.title_text(), self.receipt.shown_number(), self.from.0)
    }

    /// A short plain text: greeting, what was done, the amount, for an invoice how to pay.
    pub fn body(&self) -> String {
        let r = self.receipt;
        let words = Words::of(r.language);
        let mut body = match &r.customer {
            Some(name) => format!("{} {name}{}\n\n", words.hello, words.comma),
            None => format!("{}{}\n\n", words.hello, words.comma),
        };
        if let Some(reminder) = &r.reminder {
            let (unpaid, to_pay, crossed) = crate::receipt::reminder::summary(r, reminder);
            body.push_str(&format!("{unpaid}\n{to_pay}\n"));
            self.push_payment(&mut body, &words);
            body.push_str(&format!("{crossed}\n\n{}\n{}\n", words.regards, self.from.0));
            return body;
        }
        let document = match (&r.credit, r.title()) {
            (Some(_), _) => credit_document(r.language, r.title_text()),
            (None, Title::Receipt) => words.the_receipt.to_string(),
            (None, Title::Invoice) => words.the_invoice.to_string(),
        };
        let racket = r.racket.as_ref().map(|racket| format!(" ({racket})")).unwrap_or_default();
        body.push_str(&(words.attached)(&document, &r.shown_number(), &racket));
        body.push('\n');
        if let Some(credit) = &r.credit {
            let amount = crate::receipt::Amount { minor: -credit.amount.minor, ..credit.amount.clone() };
            body.push_str(&format!("{}{} {}\n", r.words().amount, words.colon, r.amount_text(&amount)));
            body.push_str(&format!("\n{}\n{}\n", words.regards, self.from.0));
            return body;
        }
        if let Some(reason) = &r.void_reason {
            body.push_str(&(words.void)(reason));
            body.push('\n');
        }
        if let Some(amount) = &r.amount {
            body.push_str(&format!("{}{} {}\n", r.words().amount, words.colon, r.amount_text(amount)));
        }
        self.push_payment(&mut body, &words);
        body.push_str(&format!("\n{}\n{}\n", words.regards, self.from.0));
        body
    }

    /// How to pay, when the document asks for money: by when, and to which account with
    /// which reference.
    fn push_payment(&self, body: &mut String, words: &Words) {
        let r = self.receipt;
        if let (Some(slip), Some(due)) = (&r.slip, r.due_on) {
            let (iban, reference) = match slip {
                Slip::QrBill(bill) => (bill.account.grouped(), bill.reference.printed()),
                Slip::Epc(epc) => (epc.account.grouped(), epc.reference.printed()),
            };
            body.push_str(&(words.pay)(&r.words().date_text(due), &iban, &reference));
            body.push('\n');
        } else if let Some(due) = r.due_on {
            body.push_str(&format!("{} {}\n", r.words().payable_until, r.words().date_text(due)));
        }
    }
}

/// A credit note named in a sentence: "credit note", "die Rechnungskorrektur", "l'avoir".
fn credit_document(language: Language, title: &str) -> String {
    match language {
        Language::En => title.to_lowercase(),
        Language::De => format!("die {title}"),
        Language::Fr if title == "Avoir" => "l'avoir".to_string(),
        Language::Fr | Language::It => format!("la {}", title.to_lowercase()),
    }
}

/// "Your racket is ready": a notice, not a document (no PDF), in the document's language.
pub struct Notice<'a> {
    /// The order's document: what was done, the amount, paid or not, the language.
    pub receipt: &'a Receipt,
    pub from: (&'a str, &'a str),
    pub to: &'a str,
    /// When and where to pick it up (`stringer edit --pickup-note`).
    pub pickup_note: Option<&'a str>,
}

impl Notice<'_> {
    pub fn message(&self) -> Result<Message, Error> {
        let (from, to) = mailboxes(self.receipt, self.from, self.to)?;
        Message::builder()
            .from(from)
            .to(to)
            .subject(self.subject())
            .date_now()
            .message_id(None)
            .singlepart(SinglePart::plain(self.body()))
            .map_err(|e| Error::Internal { what: "the message cannot be made", detail: e.to_string() })
    }

    /// `Ihr Schläger ist bereit – Stefan Muster Bespannungen`.
    pub fn subject(&self) -> String {
        format!("{} – {}", Words::of(self.receipt.language).ready_subject, self.from.0)
    }

    /// Greeting, the racket ready, what was done, the amount due or paid, the pickup note.
    pub fn body(&self) -> String {
        let r = self.receipt;
        let words = Words::of(r.language);
        let mut body = match &r.customer {
            Some(name) => format!("{} {name}{}\n\n", words.hello, words.comma),
            None => format!("{}{}\n\n", words.hello, words.comma),
        };
        let racket = r.racket.as_ref().map(|racket| format!(" ({racket})")).unwrap_or_default();
        body.push_str(&(words.ready)(&racket));
        body.push('\n');
        if let Some(string) = crate::domain::strings_line(r.string.as_deref(), r.cross_string.as_deref()) {
            body.push_str(&(words.strung_with)(&string, r.tension.as_deref()));
            body.push('\n');
        }
        if let Some(amount) = &r.amount {
            let (label, thanks) = match r.title() {
                Title::Receipt => (words.paid, words.thanks),
                Title::Invoice => (words.due, ""),
            };
            body.push_str(&format!("{label}{} {}{thanks}\n", words.colon, r.amount_text(amount)));
        }
        if let Some(note) = self.pickup_note {
            body.push_str(&format!("\n{note}\n"));
        }
        body.push_str(&format!("\n{}\n{}\n", words.regards, self.from.0));
        body
    }
}

/// The words of a message in each language.
struct Words {
    hello: &'static str,
    comma: &'static str,
    /// A colon as the language writes it: French puts a space before it.
    colon: &'static str,
    /// "This document is void: REASON."
    void: fn(&str) -> String,
    the_invoice: &'static str,
    the_receipt: &'static str,
    /// "attached is your invoice 2026-0042 for the stringing of your racket (Pro Staff)."
    attached: fn(&str, &str, &str) -> String,
    /// "Please pay by DATE to IBAN ..., reference ...."
    pay: fn(&str, &str, &str) -> String,
    regards: &'static str,
    /// A ready notice's subject: "Your racket is ready".
    ready_subject: &'static str,
    /// "your racket (Pure Aero) is ready for pickup."
    ready: fn(&str) -> String,
    /// "Strung with RPM Blast 1.25 at 24 kg."
    strung_with: fn(&str, Option<&str>) -> String,
    /// "Amount due", "Paid" (and thanks after the amount).
    due: &'static str,
    paid: &'static str,
    thanks: &'static str,
}

impl Words {
    fn of(language: Language) -> Words {
        match language {
            Language::En => Words {
                hello: "Hello",
                comma: ",",
                colon: ":",
                void: |reason| format!("This document is void: {reason}."),
                the_invoice: "invoice",
                the_receipt: "receipt",
                attached: |doc, number, racket| {
                    format!("attached is your {doc} {number} for the stringing of your racket{racket}.")
                },
                pay: |due, iban, reference| {
                    format!("Please pay by {due} to IBAN {iban}, reference {reference}.")
                },
                regards: "Kind regards",
                ready_subject: "Your racket is ready",
                ready: |racket| format!("your racket{racket} is strung and ready for pickup."),
                strung_with: |string, tension| match tension {
                    Some(tension) => format!("Strung with {string} at {tension}."),
                    None => format!("Strung with {string}."),
                },
                due: "Amount due",
                paid: "Paid",
                thanks: " – thank you.",
            },
            Language::De => Words {
                hello: "Guten Tag",
                comma: "",
                colon: ":",
                void: |reason| format!("Dieses Dokument ist storniert: {reason}."),
                the_invoice: "die Rechnung",
                the_receipt: "die Quittung",
                attached: |doc, number, racket| {
                    format!("im Anhang finden Sie {doc} {number} für die Besaitung Ihres Schlägers{racket}.")
                },
                pay: |due, iban, reference| {
                    format!("Bitte bezahlen Sie bis {due} auf IBAN {iban}, Referenz {reference}.")
                },
                regards: "Freundliche Grüsse",
                ready_subject: "Ihr Schläger ist bereit",
                ready: |racket| format!("Ihr Schläger{racket} ist besaitet und kann abgeholt werden."),
                strung_with: |string, tension| match tension {
                    Some(tension) => format!("Besaitet mit {string}, {tension}."),
                    None => format!("Besaitet mit {string}."),
                },
                due: "Zu bezahlen",
                paid: "Bezahlt",
                thanks: " – vielen Dank.",
            },
            Language::Fr => {
                Words {
                    hello: "Bonjour",
                    comma: ",",
                    colon: " :",
                    void: |reason| format!("Ce document est annulé : {reason}."),
                    the_invoice: "la facture",
                    the_receipt: "la quittance",
                    attached: |doc, number, racket| {
                        format!("veuillez trouver ci-joint {doc} {number} pour le cordage de votre raquette{racket}.")
                    },
                    pay: |due, iban, reference| {
                        format!("Merci de payer d'ici le {due} sur l'IBAN {iban}, référence {reference}.")
                    },
                    regards: "Cordialement",
                    ready_subject: "Votre raquette est prête",
                    ready: |racket| format!("votre raquette{racket} est cordée et prête à être retirée."),
                    strung_with: |string, tension| match tension {
                        Some(tension) => format!("Cordée avec {string} à {tension}."),
                        None => format!("Cordée avec {string}."),
                    },
                    due: "Montant dû",
                    paid: "Payé",
                    thanks: " – merci.",
                }
            }
            Language::It => Words {
                hello: "Buongiorno",
                comma: ",",
                colon: ":",
                void: |reason| format!("Questo documento è annullato: {reason}."),
                the_invoice: "la fattura",
                the_receipt: "la ricevuta",
                attached: |doc, number, racket| {
                    format!("in allegato trova {doc} {number} per l'incordatura della sua racchetta{racket}.")
                },
                pay: |due, iban, reference| {
                    format!(
                        "La preghiamo di pagare entro il {due} sull'IBAN {iban}, riferimento {reference}."
                    )
                },
                regards: "Cordiali saluti",
                ready_subject: "La sua racchetta è pronta",
                ready: |racket| format!("la sua racchetta{racket} è incordata e pronta per il ritiro."),
                strung_with: |string, tension| match tension {
                    Some(tension) => format!("Incordata con {string} a {tension}."),
                    None => format!("Incordata con {string}."),
                },
                due: "Importo da pagare",
                paid: "Pagato",
                thanks: " – grazie.",
            },
        }
    }
}

/// The Message-ID a message carries, as the journal records it.
pub fn message_id(message: &Message) -> String {
    message.headers().get_raw("Message-ID").unwrap_or_default().to_string()
}

/// A closure as the stringer keeps it outside the database: the digest that anchors the
/// journal up to its last event, and the key that signed it.
pub struct Anchor {
    pub seq: i64,
    pub day: chrono::NaiveDate,
    /// The first and the last event it covers.
    pub events: (i64, i64),
    pub digest: String,
    /// The signing key's fingerprint.
    pub key: String,
}

/// The message that carries closures' digests to the stringer's own address (`handle`'s):
/// anchors that `audit --verify --anchor` proves the journal against.
pub fn closure_digests(
    name: &str,
    address: &str,
    handle: &str,
    anchors: &[Anchor],
) -> Result<Message, Error> {
    let (Some(first), Some(last)) = (anchors.first(), anchors.last()) else {
        return Err(Error::Internal { what: "a message of closures", detail: "no closure".into() });
    };
    let subject = if first.seq == last.seq {
        format!("Closure {} of {} – {handle}", first.seq, first.day)
    } else {
        format!("Closures {}–{} of {}–{} – {handle}", first.seq, last.seq, first.day, last.day)
    };
    let mut body = String::from(
        "Keep this message: the digests below are anchors outside the database. \
         `receipts audit --verify --anchor DIGEST` proves the journal up to them.\n\n",
    );
    for anchor in anchors {
        let (from, to) = anchor.events;
        body.push_str(&format!(
            "closure {} of {}: events {from}..{to}\ndigest {}\nsigned by key {}\n\n",
            anchor.seq, anchor.day, anchor.digest, anchor.key
        ));
    }
    note_to_self(name, address, &subject, body)
}

/// A note of the program to the stringer itself: from and to the stringer's own address.
fn note_to_self(name: &str, address: &str, subject: &str, body: String) -> Result<Message, Error> {
    let mailbox: Mailbox = address
        .parse::<lettre::Address>()
        .map(|address| Mailbox::new(Some(name.to_string()), address))
        .map_err(|_| Error::BadInput(format!("\"{address}\" is not an e-mail address (the stringer's)")))?;
    Message::builder()
        .from(mailbox.clone())
        .to(mailbox)
        .subject(subject)
        .date_now()
        .message_id(None)
        .singlepart(SinglePart::plain(body))
        .map_err(|e| Error::Internal { what: "the message cannot be made", detail: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_urls_are_read_strictly_and_shown_without_password() {
        let url = SmtpUrl::parse("smtp://stefan:s%40cret@mail.example.ch:2525").unwrap();
        assert_eq!(url.redacted(), "smtp://stefan:***@mail.example.ch:2525");
        assert_eq!(url.password.as_deref(), Some("s@cret"));
        assert_eq!(url.mask("535 auth failed for s@cret"), "535 auth failed for ***");
        assert_eq!(url.security(), Security::StartTls, "never without TLS to another machine");
        let smtps = SmtpUrl::parse("smtps://mail.example.ch").unwrap();
        assert_eq!((smtps.port, smtps.security()), (465, Security::Wrapper));
        for local in ["smtp://127.0.0.1:25", "smtp://localhost", "smtp://[::1]:25"] {
            assert_eq!(SmtpUrl::parse(local).unwrap().security(), Security::StartTlsIfOffered, "{local}");
        }
        for bad in ["http://mail.example.ch", "mail.example.ch", "smtp://"] {
            let error = SmtpUrl::parse(bad).unwrap_err().to_string();
            assert!(error.starts_with("the SMTP URL"), "{bad}: {error}");
        }
        let leaky = SmtpUrl::parse("ftp://u:topsecret@h").unwrap_err().to_string();
        assert!(!leaky.contains("topsecret"));
    }
}
