use std::fmt;
use std::str::FromStr;

/// The language of a receipt: English, German, French or Italian (Switzerland's three
/// official languages, and English).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    De,
    Fr,
    It,
}

impl Language {
    pub const ALL: [Language; 4] = [Language::En, Language::De, Language::Fr, Language::It];

    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::De => "de",
            Language::Fr => "fr",
            Language::It => "it",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
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
        match s.trim().to_ascii_lowercase().as_str() {
            "en" => Ok(Language::En),
            "de" => Ok(Language::De),
            "fr" => Ok(Language::Fr),
            "it" => Ok(Language::It),
            _ => Err(format!("\"{s}\" is not a receipt language (expected en, de, fr or it)")),
        }
    }
}
