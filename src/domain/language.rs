//! The four languages the documents and the counter speak.

use std::str::FromStr;

/// The language of a receipt: English, German, French or Italian (Switzerland's three
/// official languages, and English).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::Display,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    De,
    Fr,
    It,
}

impl Language {
    /// Its ISO 639-1 code: `en`, `de`, `fr`, `it`.
    pub fn code(self) -> &'static str {
        self.into()
    }
}

impl TryFrom<String> for Language {
    type Error = String;

    fn try_from(stored: String) -> Result<Self, Self::Error> {
        stored.parse()
    }
}

impl FromStr for Language {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        super::named(s, "a receipt language")
    }
}
