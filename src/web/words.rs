//! The pages' words in the four languages the documents speak. The actions' English labels
//! are fixed (SPEC 20: Strung, Receipt, Label, Send, Notify, Picked up, Void).

use crate::domain::Language;
use axum::http::{header, HeaderMap};

/// The language of a page: the account's, else the browser's first among the four, else
/// the stringer's, else English.
pub fn language_of(account: Option<Language>, headers: &HeaderMap, stringer: Option<Language>) -> Language {
    account.or_else(|| browser_language(headers)).or(stringer).unwrap_or_default()
}

/// The first of the four in the browser's Accept-Language, by its weights.
fn browser_language(headers: &HeaderMap) -> Option<Language> {
    let accepted = headers.get(header::ACCEPT_LANGUAGE)?.to_str().ok()?;
    let mut offered: Vec<(f32, Language)> = accepted
        .split(',')
        .filter_map(|entry| {
            let mut parts = entry.trim().split(';');
            let tag = parts.next()?.trim();
            let weight = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            let primary = tag.split('-').next()?.to_ascii_lowercase();
            let language = Language::ALL.into_iter().find(|l| l.code() == primary)?;
            Some((weight, language))
        })
        .collect();
    // Stable: of equal weights, the first named wins.
    offered.sort_by(|a, b| b.0.total_cmp(&a.0));
    offered.first().map(|(_, language)| *language)
}

/// Everything a page says that is not the user's data.
pub struct Words {
    pub lang: &'static str,
    pub queue: &'static str,
    pub to_string: &'static str,
    pub waiting: &'static str,
    pub overdue: &'static str,
    pub due: &'static str,
    pub nothing: &'static str,
    pub order: &'static str,
    pub customer: &'static str,
    pub racket: &'static str,
    pub string: &'static str,
    pub tension: &'static str,
    pub price: &'static str,
    pub strung_on: &'static str,
    pub picked_up_on: &'static str,
    pub not_strung: &'static str,
    pub payment: &'static str,
    pub not_paid: &'static str,
    pub username: &'static str,
    pub password: &'static str,
    pub log_in: &'static str,
    pub log_out: &'static str,
    pub login_refused: &'static str,
    pub login_throttled: &'static str,
    pub not_found: &'static str,
    pub failed: &'static str,
    pub methods: [&'static str; 5],
    pub new_order: &'static str,
    pub take_order: &'static str,
    pub item: &'static str,
    pub same: &'static str,
    pub customers: &'static str,
    pub search: &'static str,
    pub more: &'static str,
    pub history: &'static str,
    pub rackets: &'static str,
    pub email: &'static str,
    pub phone: &'static str,
}

impl Words {
    pub fn of(language: Language) -> &'static Words {
        match language {
            Language::En => &EN,
            Language::De => &DE,
            Language::Fr => &FR,
            Language::It => &IT,
        }
    }
}

static EN: Words = Words {
    lang: "en",
    queue: "Queue",
    to_string: "To string",
    waiting: "Waiting for pickup",
    overdue: "overdue",
    due: "due",
    nothing: "Nothing here.",
    order: "Order",
    customer: "Customer",
    racket: "Racket",
    string: "String",
    tension: "Tension",
    price: "Price",
    strung_on: "Strung",
    picked_up_on: "Picked up",
    not_strung: "not strung yet",
    payment: "Payment",
    not_paid: "not paid",
    username: "Username",
    password: "Password",
    log_in: "Log in",
    log_out: "Log out",
    login_refused: "Wrong username or password.",
    login_throttled: "Too many failed logins: try again in 15 minutes.",
    not_found: "Not found.",
    failed: "That did not work",
    methods: ["cash", "card", "TWINT", "transfer", "other"],
    new_order: "New order",
    take_order: "Take the order",
    item: "Item (TEXT=PRICE)",
    same: "The same as last time",
    customers: "Customers",
    search: "Search",
    more: "More",
    history: "History",
    rackets: "Rackets",
    email: "E-mail",
    phone: "Phone",
};

static DE: Words = Words {
    lang: "de",
    queue: "Warteschlange",
    to_string: "Zu bespannen",
    waiting: "Abholbereit",
    overdue: "überfällig",
    due: "fällig",
    nothing: "Nichts.",
    order: "Auftrag",
    customer: "Kunde",
    racket: "Schläger",
    string: "Saite",
    tension: "Spannung",
    price: "Preis",
    strung_on: "Bespannt",
    picked_up_on: "Abgeholt",
    not_strung: "noch nicht bespannt",
    payment: "Zahlung",
    not_paid: "nicht bezahlt",
    username: "Benutzername",
    password: "Passwort",
    log_in: "Anmelden",
    log_out: "Abmelden",
    login_refused: "Benutzername oder Passwort falsch.",
    login_throttled: "Zu viele Fehlversuche: in 15 Minuten wieder versuchen.",
    not_found: "Nicht gefunden.",
    failed: "Das ging nicht",
    methods: ["bar", "Karte", "TWINT", "Überweisung", "andere"],
    new_order: "Neuer Auftrag",
    take_order: "Auftrag aufnehmen",
    item: "Posten (TEXT=PREIS)",
    same: "Wie letztes Mal",
    customers: "Kunden",
    search: "Suchen",
    more: "Weitere",
    history: "Verlauf",
    rackets: "Schläger",
    email: "E-Mail",
    phone: "Telefon",
};

static FR: Words = Words {
    lang: "fr",
    queue: "File d'attente",
    to_string: "À corder",
    waiting: "À retirer",
    overdue: "en retard",
    due: "promis",
    nothing: "Rien.",
    order: "Commande",
    customer: "Client",
    racket: "Raquette",
    string: "Cordage",
    tension: "Tension",
    price: "Prix",
    strung_on: "Cordée",
    picked_up_on: "Retirée",
    not_strung: "pas encore cordée",
    payment: "Paiement",
    not_paid: "non payée",
    username: "Nom d'utilisateur",
    password: "Mot de passe",
    log_in: "Se connecter",
    log_out: "Se déconnecter",
    login_refused: "Nom d'utilisateur ou mot de passe incorrect.",
    login_throttled: "Trop d'échecs : réessayez dans 15 minutes.",
    not_found: "Introuvable.",
    failed: "Cela n'a pas marché",
    methods: ["espèces", "carte", "TWINT", "virement", "autre"],
    new_order: "Nouvelle commande",
    take_order: "Prendre la commande",
    item: "Article (TEXTE=PRIX)",
    same: "Comme la dernière fois",
    customers: "Clients",
    search: "Chercher",
    more: "Suite",
    history: "Historique",
    rackets: "Raquettes",
    email: "E-mail",
    phone: "Téléphone",
};

static IT: Words = Words {
    lang: "it",
    queue: "Coda",
    to_string: "Da incordare",
    waiting: "Da ritirare",
    overdue: "in ritardo",
    due: "promessa",
    nothing: "Niente.",
    order: "Ordine",
    customer: "Cliente",
    racket: "Racchetta",
    string: "Corda",
    tension: "Tensione",
    price: "Prezzo",
    strung_on: "Incordata",
    picked_up_on: "Ritirata",
    not_strung: "non ancora incordata",
    payment: "Pagamento",
    not_paid: "non pagata",
    username: "Nome utente",
    password: "Password",
    log_in: "Accedi",
    log_out: "Esci",
    login_refused: "Nome utente o password errati.",
    login_throttled: "Troppi tentativi falliti: riprovate fra 15 minuti.",
    not_found: "Non trovato.",
    failed: "Non è riuscito",
    methods: ["contanti", "carta", "TWINT", "bonifico", "altro"],
    new_order: "Nuovo ordine",
    take_order: "Registra l'ordine",
    item: "Articolo (TESTO=PREZZO)",
    same: "Come l'ultima volta",
    customers: "Clienti",
    search: "Cerca",
    more: "Altri",
    history: "Storico",
    rackets: "Racchette",
    email: "E-mail",
    phone: "Telefono",
};
