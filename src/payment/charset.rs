//! The QR-bill's character set and field lengths (SIX implementation guidelines 2.3):
//! a bank rejects a bill with any other character, so such text is refused, never altered.

use crate::error::Error;

/// Whether the QR-bill can carry `c`: U+0020-U+007E, U+00A0-U+017F, Ș ș Ț ț and €.
fn allowed(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{17f}' | 'Ș' | 'ș' | 'Ț' | 'ț' | '€')
}

/// The longest text each field of a bill may hold.
pub struct Limits {
    pub name: usize,
    pub street: usize,
    pub house_number: usize,
    pub postcode: usize,
    pub town: usize,
}

pub const QR_LIMITS: Limits = Limits { name: 70, street: 70, house_number: 16, postcode: 16, town: 35 };

/// Refuses text that a QR-bill cannot carry, or that is longer than `limit`, naming `field`.
pub fn check_qr_text(field: &'static str, text: &str, limit: usize) -> Result<(), Error> {
    if let Some(character) = text.chars().find(|&c| !allowed(c)) {
        return Err(Error::NotForQrBill {
            field,
            problem: format!(
                "holds \"{character}\" (U+{:04X}), which a QR-bill cannot carry (banks reject it)",
                character as u32
            ),
        });
    }
    let length = text.chars().count();
    if length > limit {
        return Err(Error::NotForQrBill {
            field,
            problem: format!("has {length} characters, and a QR-bill takes at most {limit}"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guidelines_character_set_and_no_other() {
        assert!(check_qr_text("name", "Müller Straße Ø Łódź €", 70).is_ok());
        assert!(check_qr_text("name", "Ștefan Țară", 70).is_ok());
        for bad in ["a\u{202f}b", "山田", "emoji 🎾", "tab\there"] {
            assert!(check_qr_text("name", bad, 70).is_err(), "{bad:?}");
        }
        let error = check_qr_text("town", &"x".repeat(36), 35).unwrap_err().to_string();
        assert!(error.contains("36 characters") && error.contains("at most 35"), "{error}");
    }
}
