//! What a page answers when something failed: the status follows the error's class (the
//! same class that gives the command line its exit code), the words are the page's
//! language, and no command or flag is ever named to a browser user.

mod inputs;

use super::words::Words;
use crate::domain::{LastReminder, NoCredit, NoReminder, OrderId, ReceiptNumber};
use crate::error::{Class, Error};
use askama::Template;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use inputs::expected;

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
        Class::Internal | Class::NoPermission | Class::Config => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A page's answer to an error: 404 for what this stringer does not have, 422 for a
/// refusal, 503 when the database or the mail server is away or busy, 500 for the
/// program's own failures (the detail in the server's log, not on the page).
pub fn failure(error: Error, w: &'static Words) -> Response {
    let class = error.class();
    let message = match class {
        Class::NotFound => w.not_found.to_string(),
        Class::Internal | Class::NoPermission | Class::Config => {
            eprintln!("error: {error}");
            w.failed.to_string()
        }
        // Away from a form, a refusal about one input names it (the hint of another
        // language names it already).
        _ => match &error {
            Error::Invalid { field, problem } if w.lang == "en" => match label(w, field) {
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

/// The 403 of a form whose CSRF token is not the session's.
pub fn stale_form(w: &'static Words) -> Response {
    super::rendered(StatusCode::FORBIDDEN, &ProblemPage { w, message: w.stale_form.to_string() })
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
        // A parser's words are English and exact; another language says what the input
        // takes. (The command line's own refusals are variants of their own.)
        Error::Invalid { problem, .. } | Error::BadInput(problem) | Error::InputFile(problem)
            if w.lang == "en" =>
        {
            problem.clone()
        }
        Error::Invalid { field, .. } => say(expected(field)),
        Error::NotForEinvoice { number, field, .. } => {
            let whose = if field.starts_with("stringer") {
                [
                    "the stringer's details are missing or not as an e-invoice needs them ({field}): the owner completes the profile for the next documents",
                    "die Angaben des Besaiters fehlen oder sind nicht, wie eine E-Rechnung sie braucht ({field}): der Inhaber ergänzt das Profil für die nächsten Belege",
                    "les données du cordeur manquent ou ne sont pas telles qu'une facture électronique les demande ({field}) : le propriétaire complète le profil pour les prochains documents",
                    "i dati dell'incordatore mancano o non sono come li chiede una fattura elettronica ({field}): il titolare completa il profilo per i prossimi documenti",
                ]
            } else if field.starts_with("customer") {
                [
                    "the customer's details are missing or not as an e-invoice needs them ({field}): they are completed on the customer's page, before the order is strung",
                    "die Angaben der Kundschaft fehlen oder sind nicht, wie eine E-Rechnung sie braucht ({field}): sie werden auf der Seite der Kundschaft ergänzt, bevor der Auftrag bespannt wird",
                    "les données du client manquent ou ne sont pas telles qu'une facture électronique les demande ({field}) : elles se complètent sur la page du client, avant le cordage",
                    "i dati del cliente mancano o non sono come li chiede una fattura elettronica ({field}): si completano nella pagina del cliente, prima dell'incordatura",
                ]
            } else {
                [
                    "it holds what an e-invoice cannot carry ({field})",
                    "er enthält, was eine E-Rechnung nicht tragen kann ({field})",
                    "il contient ce qu'une facture électronique ne peut porter ({field})",
                    "contiene ciò che una fattura elettronica non può portare ({field})",
                ]
            };
            let why = say(whose).replace("{field}", field);
            say([
                "Document {number} cannot be an e-invoice: {why}.",
                "Beleg {number} kann keine E-Rechnung sein: {why}.",
                "Le document {number} ne peut pas être une facture électronique : {why}.",
                "Il documento {number} non può essere una fattura elettronica: {why}.",
            ])
            .replace("{number}", number)
            .replace("{why}", &why)
        }
        Error::NoSender { .. } => say([
            "The stringer has no e-mail address to send from: the owner sets it in the profile.",
            "Der Besaiter hat keine E-Mail-Adresse zum Versenden: der Inhaber trägt sie im Profil ein.",
            "Le cordeur n'a pas d'adresse e-mail d'envoi : le propriétaire l'indique dans le profil.",
            "L'incordatore non ha un indirizzo e-mail di invio: il titolare lo indica nel profilo.",
        ]),
        Error::NoStructuredAddress { .. } => say([
            "A QR-bill needs the stringer's structured address (street, postcode, town, country): the owner sets it in the profile.",
            "Ein QR-Einzahlungsschein braucht die strukturierte Adresse des Besaiters (Strasse, PLZ, Ort, Land): der Inhaber trägt sie im Profil ein.",
            "Une QR-facture a besoin de l'adresse structurée du cordeur (rue, NPA, localité, pays) : le propriétaire l'indique dans le profil.",
            "Una QR-fattura ha bisogno dell'indirizzo strutturato dell'incordatore (via, NPA, località, paese): il titolare lo indica nel profilo.",
        ]),
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
        Error::AlreadyPaid { order, on, at_pickup: true, .. } => say([
            "Order {order} was paid on {on}: it is picked up without a payment.",
            "Auftrag {order} wurde am {on} bezahlt: er wird ohne Zahlung abgeholt.",
            "La commande {order} a été payée le {on} : elle se retire sans paiement.",
            "L'ordine {order} è stato pagato il {on}: si ritira senza pagamento.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{on}", on),
        Error::AlreadyPaid { order, on, at_pickup: false, .. } => say([
            "Order {order} was paid on {on}: nothing is left to pay.",
            "Auftrag {order} wurde am {on} bezahlt: nichts ist mehr offen.",
            "La commande {order} a été payée le {on} : plus rien n'est dû.",
            "L'ordine {order} è stato pagato il {on}: non resta nulla da pagare.",
        ])
        .replace("{order}", &order.to_string())
        .replace("{on}", on),
        Error::NoEmail { order } | Error::NoEmailToSend { order } => say([
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
        Error::NotRemindable { order, last, why } => match last {
            Some(last) => format!("{} {}", last_reminder(w, last), no_reminder(w, *order, why)),
            None => no_reminder(w, *order, why),
        },
        Error::NotCreditable { order, why } => no_credit(w, *order, why),
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

/// The last reminder that went, in the page's language.
fn last_reminder(w: &Words, last: &LastReminder) -> String {
    let sentence = match (last.sent, &last.to) {
        (true, Some(_)) => [
            "Reminder {level} was sent to {to} on {on}.",
            "Mahnung {level} wurde am {on} an {to} gesendet.",
            "Le rappel {level} a été envoyé à {to} le {on}.",
            "Il sollecito {level} è stato inviato a {to} il {on}.",
        ],
        (true, None) => [
            "Reminder {level} was sent on {on}.",
            "Mahnung {level} wurde am {on} gesendet.",
            "Le rappel {level} a été envoyé le {on}.",
            "Il sollecito {level} è stato inviato il {on}.",
        ],
        (false, _) => [
            "Reminder {level} was written for the post on {on}.",
            "Mahnung {level} wurde am {on} für die Post erstellt.",
            "Le rappel {level} a été préparé pour la poste le {on}.",
            "Il sollecito {level} è stato preparato per la posta il {on}.",
        ],
    };
    let [en, de, fr, it] = sentence;
    match w.lang {
        "de" => de,
        "fr" => fr,
        "it" => it,
        _ => en,
    }
    .replace("{level}", &last.level.to_string())
    .replace("{to}", last.to.as_deref().unwrap_or_default())
    .replace("{on}", &last.on)
}

/// Why an order gets no reminder, in the page's language.
fn no_reminder(w: &Words, order: OrderId, why: &NoReminder) -> String {
    let say = |[en, de, fr, it]: [&str; 4]| {
        let sentence = match w.lang {
            "de" => de,
            "fr" => fr,
            "it" => it,
            _ => en,
        };
        sentence.replace("{order}", &order.to_string())
    };
    use NoReminder::*;
    let number = |n: &ReceiptNumber| n.to_string();
    match why {
        NotNumbered => say([
            "Order {order} has no receipt number: no invoice was issued.",
            "Auftrag {order} hat keine Belegnummer: es wurde keine Rechnung ausgestellt.",
            "La commande {order} n'a pas de numéro : aucune facture n'a été émise.",
            "L'ordine {order} non ha un numero: nessuna fattura è stata emessa.",
        ]),
        Void { number: n, reason } => say([
            "Invoice {n} is void ({reason}).",
            "Rechnung {n} ist storniert ({reason}).",
            "La facture {n} est annulée ({reason}).",
            "La fattura {n} è annullata ({reason}).",
        ])
        .replace("{n}", &number(n))
        .replace("{reason}", reason),
        OwnRacket { number: n } => say([
            "{n} is the stringer's own racket, which asks for no money.",
            "{n} ist ein eigener Schläger und verlangt kein Geld.",
            "{n} est une raquette du cordeur, qui ne demande pas d'argent.",
            "{n} è una racchetta dell'incordatore, che non chiede denaro.",
        ])
        .replace("{n}", &number(n)),
        Paid { number: n, on } => say([
            "Invoice {n} is paid (on {on}).",
            "Rechnung {n} ist bezahlt (am {on}).",
            "La facture {n} est payée (le {on}).",
            "La fattura {n} è pagata (il {on}).",
        ])
        .replace("{n}", &number(n))
        .replace("{on}", &on.to_string()),
        CreditedInFull { number: n, by } => say([
            "Invoice {n} is credited in full ({by}): nothing is owed.",
            "Rechnung {n} ist vollständig gutgeschrieben ({by}): nichts ist offen.",
            "La facture {n} est entièrement créditée ({by}) : rien n'est dû.",
            "La fattura {n} è interamente accreditata ({by}): nulla è dovuto.",
        ])
        .replace("{n}", &number(n))
        .replace("{by}", &by.join(", ")),
        AsksNothing { number: n } => say([
            "Invoice {n} asks for no money.",
            "Rechnung {n} verlangt kein Geld.",
            "La facture {n} ne demande pas d'argent.",
            "La fattura {n} non chiede denaro.",
        ])
        .replace("{n}", &number(n)),
        FromV1 { number: n } => say([
            "Invoice {n} comes from the old system: its reminders are sent by hand.",
            "Rechnung {n} stammt aus dem alten System: ihre Mahnungen gehen von Hand.",
            "La facture {n} vient de l'ancien système : ses rappels se font à la main.",
            "La fattura {n} viene dal vecchio sistema: i suoi solleciti si fanno a mano.",
        ])
        .replace("{n}", &number(n)),
        BankPaymentWaits { number: n, amount, booked_on } => say([
            "A bank payment of {amount} on {on} names invoice {n} and waits to be handled: it is not reminded until then.",
            "Eine Bankzahlung von {amount} vom {on} nennt Rechnung {n} und wartet auf Bearbeitung: bis dahin wird nicht gemahnt.",
            "Un paiement bancaire de {amount} du {on} mentionne la facture {n} et attend d'être traité : pas de rappel d'ici là.",
            "Un pagamento bancario di {amount} del {on} indica la fattura {n} e attende di essere gestito: fino ad allora nessun sollecito.",
        ])
        .replace("{n}", &number(n))
        .replace("{amount}", amount)
        .replace("{on}", &booked_on.to_string()),
        BeforeRemindFrom { number: n, from } => say([
            "Invoice {n} was issued before {from}, from when reminders go by themselves: it is chased by hand.",
            "Rechnung {n} wurde vor dem {from} ausgestellt, ab dem Mahnungen von selbst gehen: sie wird von Hand gemahnt.",
            "La facture {n} a été émise avant le {from}, date des rappels automatiques : elle se relance à la main.",
            "La fattura {n} è stata emessa prima del {from}, da cui i solleciti partono da soli: si sollecita a mano.",
        ])
        .replace("{n}", &number(n))
        .replace("{from}", &from.to_string()),
        NotDelivered { number: n, .. } => say([
            "The customer has not got invoice {n} yet: the racket waits for pickup and the invoice was never sent.",
            "Der Kunde hat Rechnung {n} noch nicht: der Schläger wartet auf Abholung und die Rechnung wurde nie gesendet.",
            "Le client n'a pas encore la facture {n} : la raquette attend d'être retirée et la facture n'a jamais été envoyée.",
            "Il cliente non ha ancora la fattura {n}: la racchetta attende il ritiro e la fattura non è mai stata inviata.",
        ])
        .replace("{n}", &number(n)),
        FinalReached { number: n, on } => say([
            "Invoice {n} had its final reminder on {on}: there is no fourth.",
            "Rechnung {n} hatte am {on} die letzte Mahnung: eine vierte gibt es nicht.",
            "La facture {n} a eu son dernier rappel le {on} : il n'y en a pas de quatrième.",
            "La fattura {n} ha avuto l'ultimo sollecito il {on}: non ce n'è un quarto.",
        ])
        .replace("{n}", &number(n))
        .replace("{on}", &on.to_string()),
        NotOverdue { number: n, until, .. } => say([
            "Invoice {n} gives until {until}: it is not overdue yet.",
            "Rechnung {n} läuft bis {until}: sie ist noch nicht überfällig.",
            "La facture {n} court jusqu'au {until} : elle n'est pas encore en retard.",
            "La fattura {n} scade il {until}: non è ancora scaduta.",
        ])
        .replace("{n}", &number(n))
        .replace("{until}", &until.to_string()),
        NotDueYet { number: n, level, on } => say([
            "Reminder {level} of invoice {n} is due on {on}.",
            "Mahnung {level} von Rechnung {n} ist am {on} fällig.",
            "Le rappel {level} de la facture {n} est dû le {on}.",
            "Il sollecito {level} della fattura {n} è dovuto il {on}.",
        ])
        .replace("{n}", &number(n))
        .replace("{level}", &level.to_string())
        .replace("{on}", &on.to_string()),
        IssuedMeanwhile { number: n, level } => say([
            "Reminder {level} of invoice {n} was issued meanwhile.",
            "Mahnung {level} von Rechnung {n} wurde inzwischen ausgestellt.",
            "Le rappel {level} de la facture {n} a été émis entre-temps.",
            "Il sollecito {level} della fattura {n} è stato emesso nel frattempo.",
        ])
        .replace("{n}", &number(n))
        .replace("{level}", &level.to_string()),
        NoSuchLevel { level } => say([
            "Order {order} has no reminder {level}.",
            "Auftrag {order} hat keine Mahnung {level}.",
            "La commande {order} n'a pas de rappel {level}.",
            "L'ordine {order} non ha un sollecito {level}.",
        ])
        .replace("{level}", &level.to_string()),
        NoneToSendAgain { number: n } => say([
            "Invoice {n} has no reminder yet to send again.",
            "Rechnung {n} hat noch keine Mahnung, die erneut gesendet werden könnte.",
            "La facture {n} n'a pas encore de rappel à renvoyer.",
            "La fattura {n} non ha ancora un sollecito da inviare di nuovo.",
        ])
        .replace("{n}", &number(n)),
        NoAddress { .. } => say([
            "The customer of order {order} has no e-mail address: the reminder goes by post.",
            "Der Kunde von Auftrag {order} hat keine E-Mail-Adresse: die Mahnung geht per Post.",
            "Le client de la commande {order} n'a pas d'adresse e-mail : le rappel part par la poste.",
            "Il cliente dell'ordine {order} non ha un indirizzo e-mail: il sollecito va per posta.",
        ]),
    }
}

/// Why an order cannot be credited, in the page's language.
fn no_credit(w: &Words, order: OrderId, why: &NoCredit) -> String {
    let say = |[en, de, fr, it]: [&str; 4]| {
        let sentence = match w.lang {
            "de" => de,
            "fr" => fr,
            "it" => it,
            _ => en,
        };
        sentence.replace("{order}", &order.to_string())
    };
    match why {
        NoCredit::NotNumbered => say([
            "Order {order} has no receipt number: no document was issued to take back.",
            "Auftrag {order} hat keine Belegnummer: es wurde kein Beleg ausgestellt, der zurückzunehmen wäre.",
            "La commande {order} n'a pas de numéro : aucun document n'a été émis à reprendre.",
            "L'ordine {order} non ha un numero: nessun documento è stato emesso da stornare.",
        ]),
        NoCredit::Void { number, reason } => say([
            "{n} is void ({reason}): its document never left the shop.",
            "{n} ist storniert ({reason}): der Beleg hat das Geschäft nie verlassen.",
            "{n} est annulé ({reason}) : son document n'a jamais quitté le magasin.",
            "{n} è annullato ({reason}): il suo documento non ha mai lasciato il negozio.",
        ])
        .replace("{n}", &number.to_string())
        .replace("{reason}", reason),
        NoCredit::OwnRacket { number } => say([
            "{n} is the stringer's own racket: its document asks for no money.",
            "{n} ist ein eigener Schläger: der Beleg verlangt kein Geld.",
            "{n} est une raquette du cordeur : son document ne demande pas d'argent.",
            "{n} è una racchetta dell'incordatore: il documento non chiede denaro.",
        ])
        .replace("{n}", &number.to_string()),
        NoCredit::AsksNothing { number } => say([
            "{n} asks for no money: there is nothing to credit.",
            "{n} verlangt kein Geld: es gibt nichts gutzuschreiben.",
            "{n} ne demande pas d'argent : il n'y a rien à créditer.",
            "{n} non chiede denaro: non c'è nulla da accreditare.",
        ])
        .replace("{n}", &number.to_string()),
        NoCredit::CreditedInFull { number, by } => say([
            "{n} is credited in full already ({by}): nothing is left to credit.",
            "{n} ist bereits vollständig gutgeschrieben ({by}): nichts bleibt gutzuschreiben.",
            "{n} est déjà entièrement crédité ({by}) : il ne reste rien à créditer.",
            "{n} è già interamente accreditato ({by}): non resta nulla da accreditare.",
        ])
        .replace("{n}", &number.to_string())
        .replace("{by}", &by.join(", ")),
    }
}

#[cfg(test)]
mod tests;
