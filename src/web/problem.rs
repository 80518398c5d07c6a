//! What a page answers when something failed: the status follows the error's class (the
//! same class that gives the command line its exit code), the words are the page's
//! language, and no command or flag is ever named to a browser user.

use super::words::Words;
use crate::error::{Class, Error};
use askama::Template;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// Why a page is not what was asked: a failure to show in the page's language, or an answer
/// decided already (the login, a refused token). Handlers return it with `?`.
pub enum PageError {
    Failed(Error, &'static Words),
    Answer(Box<Response>),
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        match self {
            PageError::Failed(error, w) => failure(error, w),
            PageError::Answer(response) => *response,
        }
    }
}

impl From<Response> for PageError {
    fn from(response: Response) -> PageError {
        PageError::Answer(Box::new(response))
    }
}

/// A page's result: the page, or why not.
pub type PageResult = Result<Response, PageError>;

/// The HTTP status of a class of failure.
pub fn status(class: Class) -> StatusCode {
    match class {
        Class::Usage => StatusCode::BAD_REQUEST,
        Class::BadInput | Class::NoInput | Class::Refused => StatusCode::UNPROCESSABLE_ENTITY,
        Class::NotFound => StatusCode::NOT_FOUND,
        Class::Exists => StatusCode::CONFLICT,
        Class::Unavailable | Class::Temporary => StatusCode::SERVICE_UNAVAILABLE,
        Class::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A page's answer to an error: 404 for what this stringer does not have, 422 for a
/// refusal, 503 when the database or the mail server is away or busy, 500 for the
/// program's own failures (the detail in the server's log, not on the page).
pub fn failure(error: Error, w: &'static Words) -> Response {
    let class = error.class();
    let message = match class {
        Class::NotFound => w.not_found.to_string(),
        Class::Internal => {
            eprintln!("error: {error}");
            w.failed.to_string()
        }
        // Away from a form, a refusal about one input names it.
        _ => match &error {
            Error::Invalid { field, problem } => match label(w, field) {
                Some(label) => format!("{label}: {problem}"),
                None => problem.clone(),
            },
            _ => explain(&error, w),
        },
    };
    super::rendered(status(class), &ProblemPage { w, message })
}

/// An input's label in the page's words.
fn label(w: &'static Words, field: &str) -> Option<&'static str> {
    Some(match field {
        "customer" => w.customer,
        "racket" => w.racket,
        "string" => w.string,
        "tension" => w.tension,
        "price" => w.price,
        "item" => w.item,
        "reason" => w.reason,
        "paid" => w.payment,
        _ => return None,
    })
}

/// The 403 of a page only the owner may open.
pub fn owner_only(w: &'static Words) -> Response {
    super::rendered(StatusCode::FORBIDDEN, &ProblemPage { w, message: w.owner_only.to_string() })
}

#[derive(Template)]
#[template(path = "problem.html")]
pub struct ProblemPage {
    pub w: &'static Words,
    pub message: String,
}

pub fn not_found_page(w: &'static Words) -> Response {
    let page = ProblemPage { w, message: w.not_found.to_string() };
    super::rendered(StatusCode::NOT_FOUND, &page)
}

/// The refusal in the page's language, for a person at the counter: what is wrong, and
/// never a command to run.
pub fn explain(error: &Error, w: &Words) -> String {
    let say = |[en, de, fr, it]: [&str; 4]| {
        match w.lang {
            "de" => de,
            "fr" => fr,
            "it" => it,
            _ => en,
        }
        .to_string()
    };
    match error {
        // A parser's words, when they are not the command line's.
        Error::Invalid { problem, .. } | Error::BadInput(problem) | Error::InputFile(problem)
            if !problem.contains("--") && !problem.contains("`receipts") =>
        {
            problem.clone()
        }
        Error::PickedUp { order, on, .. } => say([
            "Order {order} was picked up on {on}.",
            "Auftrag {order} wurde am {on} abgeholt.",
            "La commande {order} a été retirée le {on}.",
            "L'ordine {order} è stato ritirato il {on}.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{on}", on),
        Error::TillRequired { law, .. } => say([
            "This payment at the counter must be taken by a certified till ({law}), which this counter is not: take it with the shop's till, then record it as paid by the shop till.",
            "Diese Zahlung an der Theke muss eine zertifizierte Kasse erfassen ({law}), und diese Theke ist keine: mit der Ladenkasse kassieren und dann als bezahlt über die Ladenkasse erfassen.",
            "Ce paiement au comptoir doit passer par une caisse certifiée ({law}), ce que ce comptoir n'est pas : encaissez-le avec la caisse du magasin, puis enregistrez-le comme payé par la caisse du magasin.",
            "Questo pagamento al banco deve passare da una cassa certificata ({law}), e questo banco non lo è: incassalo con la cassa del negozio e registralo come pagato con la cassa del negozio.",
        ])
        .replace("{law}", law),
        Error::NotReady { order } => say([
            "Order {order} is not strung yet: its racket is not ready.",
            "Auftrag {order} ist noch nicht bespannt: der Schläger ist nicht bereit.",
            "La commande {order} n'est pas encore cordée : la raquette n'est pas prête.",
            "L'ordine {order} non è ancora incordato: la racchetta non è pronta.",
        ])
        .replace("{order}", &order.to_string()),
        Error::OwnRacket { order } => say([
            "Order {order} is the stringer's own racket: nobody picks it up or is told it is ready.",
            "Auftrag {order} ist ein eigener Schläger: niemand holt ihn ab oder wird benachrichtigt.",
            "La commande {order} est une raquette du cordeur : personne ne la retire ni n'est prévenu.",
            "L'ordine {order} è una racchetta dell'incordatore: nessuno la ritira né viene avvisato.",
        ])
        .replace("{order}", &order.to_string()),
        Error::AlreadyPaid { order, on, .. } => say([
            "Order {order} was paid on {on}: it is picked up without a payment.",
            "Auftrag {order} wurde am {on} bezahlt: er wird ohne Zahlung abgeholt.",
            "La commande {order} a été payée le {on} : elle se retire sans paiement.",
            "L'ordine {order} è stato pagato il {on}: si ritira senza pagamento.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{on}", on),
        Error::NoEmail { order } => say([
            "Order {order} has no e-mail address of the customer.",
            "Auftrag {order} hat keine E-Mail-Adresse des Kunden.",
            "La commande {order} n'a pas d'adresse e-mail du client.",
            "L'ordine {order} non ha l'indirizzo e-mail del cliente.",
        ])
        .replace("{order}", &order.to_string()),
        Error::AlreadyNotified { order, on, to } => say([
            "The customer of order {order} was told on {on} ({to}) that the racket is ready.",
            "Der Kunde von Auftrag {order} wurde am {on} ({to}) benachrichtigt, dass der Schläger bereit ist.",
            "Le client de la commande {order} a été prévenu le {on} ({to}) que la raquette est prête.",
            "Il cliente dell'ordine {order} è stato avvisato il {on} ({to}) che la racchetta è pronta.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{on}", on)
        .replace("{to}", to),
        Error::AlreadySent { number, on, to, .. } => say([
            "Receipt {number} was sent on {on} to {to}.",
            "Beleg {number} wurde am {on} an {to} gesendet.",
            "Le reçu {number} a été envoyé le {on} à {to}.",
            "La ricevuta {number} è stata inviata il {on} a {to}.",
        ])
        .replace("{number}", &number.to_string())
        .replace("{on}", on)
        .replace("{to}", to),
        // The reason is the command line's words: shown when it names no command.
        Error::NotRemindable { why, .. } if w.lang == "en" && !why.contains('`') && !why.contains("--") => {
            error.to_string()
        }
        Error::NotRemindable { order, .. } => say([
            "Order {order} gets no reminder now: nothing was changed.",
            "Auftrag {order} bekommt jetzt keine Mahnung: nichts wurde geändert.",
            "La commande {order} ne reçoit pas de rappel maintenant : rien n'a changé.",
            "L'ordine {order} non riceve ora un sollecito: nulla è cambiato.",
        ])
        .replace("{order}", &order.to_string()),
        Error::NoPrice { order } => say([
            "Order {order} has no price, and a receipt needs one.",
            "Auftrag {order} hat keinen Preis, und ein Beleg braucht einen.",
            "La commande {order} n'a pas de prix, et un reçu en a besoin.",
            "L'ordine {order} non ha un prezzo, e una ricevuta ne ha bisogno.",
        ])
        .replace("{order}", &order.to_string()),
        Error::AddressRequired { order, amount } => say([
            "Order {order} is over the small-amount limit ({amount}): its invoice must name the customer's address.",
            "Auftrag {order} liegt über der Kleinbetragsgrenze ({amount}): die Rechnung muss die Anschrift des Kunden nennen.",
            "La commande {order} dépasse la limite des petits montants ({amount}) : la facture doit indiquer l'adresse du client.",
            "L'ordine {order} supera il limite degli importi minimi ({amount}): la fattura deve indicare l'indirizzo del cliente.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{amount}", amount),
        Error::VoidIsFinal { order, number, reason, .. } | Error::AlreadyVoid { order, number, reason } => say([
            "Order {order} ({number}) is void: {reason}.",
            "Auftrag {order} ({number}) ist storniert: {reason}.",
            "La commande {order} ({number}) est annulée : {reason}.",
            "L'ordine {order} ({number}) è annullato: {reason}.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{number}", &number.to_string())
        .replace("{reason}", reason),
        Error::Unnumbered { order, .. } => say([
            "Order {order} has no receipt number yet.",
            "Auftrag {order} hat noch keine Belegnummer.",
            "La commande {order} n'a pas encore de numéro de reçu.",
            "L'ordine {order} non ha ancora un numero di ricevuta.",
        ])
        .replace("{order}", &order.to_string()),
        Error::NoVatRate { date, .. } => say([
            "No VAT rate is in force on {date}, and the document shows VAT: the owner sets the rate.",
            "Am {date} gilt kein MWST-Satz, und der Beleg weist MWST aus: der Inhaber legt den Satz fest.",
            "Aucun taux de TVA n'est en vigueur le {date}, et le document indique la TVA : le propriétaire fixe le taux.",
            "Nessuna aliquota IVA è in vigore il {date}, e il documento indica l'IVA: il titolare fissa l'aliquota.",
        ])
        .replace("{date}", &date.to_string()),
        Error::BlankName => say([
            "A customer needs a name.",
            "Ein Kunde braucht einen Namen.",
            "Un client a besoin d'un nom.",
            "Un cliente ha bisogno di un nome.",
        ]),
        Error::SeveralCustomers { name, candidates } => say([
            "Several customers are called \"{name}\" ({candidates}): take the order from the customer's page.",
            "Mehrere Kunden heissen \"{name}\" ({candidates}): den Auftrag auf der Seite des Kunden aufnehmen.",
            "Plusieurs clients s'appellent « {name} » ({candidates}) : prenez la commande depuis la page du client.",
            "Più clienti si chiamano \"{name}\" ({candidates}): prendi l'ordine dalla pagina del cliente.",
        ])
        .replace("{name}", name)
        .replace("{candidates}", &candidates.join("; ")),
        Error::NothingToCopy { racket } => say([
            "Racket {racket} was never strung: there is nothing to copy; give the string, the tension and the price.",
            "Schläger {racket} wurde nie bespannt: nichts zu übernehmen; Saite, Spannung und Preis angeben.",
            "La raquette {racket} n'a jamais été cordée : rien à reprendre ; indiquez le cordage, la tension et le prix.",
            "La racchetta {racket} non è mai stata incordata: niente da copiare; indica corda, tensione e prezzo.",
        ])
        .replace("{racket}", &racket.to_string()),
        Error::RacketOfAnotherCustomer { racket, customer } => say([
            "Racket {racket} is not customer {customer}'s.",
            "Schläger {racket} gehört nicht Kunde {customer}.",
            "La raquette {racket} n'est pas au client {customer}.",
            "La racchetta {racket} non è del cliente {customer}.",
        ])
        .replace("{racket}", &racket.to_string())
        .replace("{customer}", &customer.to_string()),
        Error::Unprintable { character, .. } => say([
            "\"{character}\" cannot be printed on a receipt: write it in Latin, Greek or Cyrillic letters.",
            "\"{character}\" kann auf keinen Beleg gedruckt werden: in lateinischen, griechischen oder kyrillischen Buchstaben schreiben.",
            "« {character} » ne peut pas être imprimé sur un reçu : écrivez-le en lettres latines, grecques ou cyrilliques.",
            "\"{character}\" non si può stampare su una ricevuta: scrivilo in lettere latine, greche o cirilliche.",
        ])
        .replace("{character}", &character.to_string()),
        Error::MailRefused { reason, .. } => say([
            "The mail server refused the message: {reason}",
            "Der Mailserver hat die Nachricht abgelehnt: {reason}",
            "Le serveur de courrier a refusé le message : {reason}",
            "Il server di posta ha rifiutato il messaggio: {reason}",
        ])
        .replace("{reason}", reason),
        Error::NoMailServer => say([
            "This counter has no mail server: whoever runs it can set one up.",
            "Diese Theke hat keinen Mailserver: wer sie betreibt, kann einen einrichten.",
            "Ce comptoir n'a pas de serveur de courrier : la personne qui le gère peut en configurer un.",
            "Questo banco non ha un server di posta: chi lo gestisce può configurarne uno.",
        ]),
        Error::InDoubt(_) => say([
            "The connection to the database was lost while saving: reload the page to see whether it was saved.",
            "Die Verbindung zur Datenbank brach beim Speichern ab: Seite neu laden, um zu sehen, ob gespeichert wurde.",
            "La connexion à la base de données a été perdue pendant l'enregistrement : rechargez la page pour voir si c'est enregistré.",
            "La connessione al database si è persa durante il salvataggio: ricarica la pagina per vedere se è stato salvato.",
        ]),
        // The reasons of a busy database are the command line's words, and name no command.
        Error::Busy(_) if w.lang == "en" => error.to_string(),
        _ => match error.class() {
            Class::Unavailable => say([
                "The database or the mail server cannot be reached just now: nothing was changed; try again in a moment.",
                "Die Datenbank oder der Mailserver ist gerade nicht erreichbar: nichts wurde geändert; gleich nochmals versuchen.",
                "La base de données ou le serveur de courrier est injoignable pour l'instant : rien n'a changé ; réessayez dans un instant.",
                "Il database o il server di posta non è raggiungibile ora: nulla è cambiato; riprova tra un momento.",
            ]),
            Class::Temporary => say([
                "The database was busy: nothing was changed; try again.",
                "Die Datenbank war belegt: nichts wurde geändert; nochmals versuchen.",
                "La base de données était occupée : rien n'a changé ; réessayez.",
                "Il database era occupato: nulla è cambiato; riprova.",
            ]),
            Class::Refused => say([
                "This cannot be done now: nothing was changed.",
                "Das geht jetzt nicht: nichts wurde geändert.",
                "Ce n'est pas possible maintenant : rien n'a changé.",
                "Non è possibile ora: nulla è cambiato.",
            ]),
            _ => say([
                "This cannot be taken as it is: nothing was changed.",
                "So kann das nicht übernommen werden: nichts wurde geändert.",
                "Cela ne peut pas être pris tel quel : rien n'a changé.",
                "Così non si può accettare: nulla è cambiato.",
            ]),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Language, OrderId};
    use crate::error::Busy;
    use strum::VariantArray;

    /// Every class has its status, and the words a browser user reads name no command.
    #[test]
    fn each_class_answers_its_status_in_the_pages_words() {
        let cases = [
            (Error::NoSuchOrder { order: OrderId(7), stringer: None }, 404),
            (Error::PickedUp { order: OrderId(7), on: "2026-11-27".into(), what: "nothing changes" }, 422),
            (Error::NoPrice { order: OrderId(7) }, 422),
            (
                Error::TillRequired {
                    method: "cash".into(),
                    country: "Germany",
                    law: "§ 146a AO, a certified TSE",
                    way: "--paid",
                },
                422,
            ),
            (Error::Invalid { field: "tension", problem: "\"abc\" is not a tension".into() }, 422),
            (Error::Usage("no such option".into()), 400),
            (Error::OutputExists { path: "a.pdf".into(), what: "receipts" }, 409),
            (Error::MailUnreachable { server: "smtp://x".into(), reason: "refused".into() }, 503),
            (Error::NoMailServer, 503),
            (Error::Busy(Busy::LockTimeout), 503),
            (Error::NotDurable, 503),
            (Error::NotMigrated, 500),
            (Error::Internal { what: "x", detail: "y".into() }, 500),
        ];
        for &language in Language::VARIANTS {
            let w = Words::of(language);
            for (error, expected) in &cases {
                assert_eq!(status(error.class()).as_u16(), *expected, "{error}");
                let said = explain(error, w);
                assert!(!said.contains("receipts ") && !said.contains("--"), "{language:?}: {said}");
            }
        }
        assert!(
            explain(&Error::NoPrice { order: OrderId(7) }, Words::of(Language::De)).contains("keinen Preis")
        );
        // A refusal worded for the command line is not passed on: its class says it.
        let flagged =
            Error::BadInput("--same copies a racket's last job: name the racket with --racket-id".into());
        assert_eq!(
            explain(&flagged, Words::of(Language::En)),
            "This cannot be taken as it is: nothing was changed."
        );
    }
}
