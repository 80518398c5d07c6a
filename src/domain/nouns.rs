//! The names of the things every door and document speaks of, in the four languages, in one
//! table: the receipt, its payment part and the counter's pages never name them differently.

use super::Language;

pub struct Nouns {
    pub customer: &'static str,
    pub racket: &'static str,
    pub string: &'static str,
    pub tension: &'static str,
    pub amount: &'static str,
}

pub const EN: Nouns =
    Nouns { customer: "Customer", racket: "Racket", string: "String", tension: "Tension", amount: "Amount" };
pub const DE: Nouns =
    Nouns { customer: "Kunde", racket: "Schläger", string: "Saite", tension: "Spannung", amount: "Betrag" };
pub const FR: Nouns = Nouns {
    customer: "Client",
    racket: "Raquette",
    string: "Cordage",
    tension: "Tension",
    amount: "Montant",
};
pub const IT: Nouns = Nouns {
    customer: "Cliente",
    racket: "Racchetta",
    string: "Corda",
    tension: "Tensione",
    amount: "Importo",
};

impl Nouns {
    pub fn of(language: Language) -> &'static Nouns {
        match language {
            Language::En => &EN,
            Language::De => &DE,
            Language::Fr => &FR,
            Language::It => &IT,
        }
    }
}
