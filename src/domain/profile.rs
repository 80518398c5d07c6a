//! Checks of what a business prints about itself, made when it is entered, so that no
//! document is ever issued with a number a tax office would reject.

/// A VAT number as printed: a Swiss UID (`CHE-123.456.789 MWST`, with its mod-11 check digit
/// and the suffix MWST, TVA or IVA) or an EU VAT identification number (country prefix and
/// the length and characters that country uses). Returns it written the usual way.
pub fn check_vat_number(text: &str) -> Result<String, String> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '.' | '-'))
        .collect::<String>()
        .to_uppercase();
    if let Some(rest) = compact.strip_prefix("CHE") {
        return swiss_uid(text, rest);
    }
    let (prefix, body) = compact.split_at(compact.len().min(2));
    let Some(&(_, lengths, pattern)) = EU_FORMATS.iter().find(|(country, _, _)| *country == prefix) else {
        return Err(format!(
            "\"{text}\" is not a VAT number: expected a Swiss UID (CHE-123.456.789 MWST) or an EU VAT \
             number starting with its country code (e.g. DE123456789)"
        ));
    };
    let chars_ok = body.chars().all(|c| match pattern {
        Body::Digits => c.is_ascii_digit(),
        Body::Alphanumeric => c.is_ascii_alphanumeric(),
    });
    if !chars_ok || !lengths.contains(&body.len()) || !eu_shape(prefix, body) {
        return Err(format!(
            "\"{text}\" is not a {prefix} VAT number: it has {} after {prefix} ({})",
            body.len(),
            describe(lengths, pattern)
        ));
    }
    Ok(compact)
}

/// A French SIRET: 14 digits (the SIREN of 9 and the establishment's 5), spaces allowed
/// as typed, with its Luhn check digit (La Poste's establishments sum to a multiple of 5
/// instead). Stored compact.
pub fn check_siret(text: &str) -> Result<String, String> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let invalid = |why: &str| Err(format!("\"{text}\" is not a SIRET: {why}"));
    if compact.len() != 14 || !compact.bytes().all(|b| b.is_ascii_digit()) {
        return invalid("a SIRET has 14 digits");
    }
    let digits: Vec<u32> = compact.bytes().map(|b| u32::from(b - b'0')).collect();
    let luhn: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                if d * 2 > 9 {
                    d * 2 - 9
                } else {
                    d * 2
                }
            } else {
                d
            }
        })
        .sum();
    let la_poste = compact.starts_with("356000000") && digits.iter().sum::<u32>().is_multiple_of(5);
    if !luhn.is_multiple_of(10) && !la_poste {
        return invalid("its check digit does not match (a typo?)");
    }
    Ok(compact)
}

/// A SIRET as printed: `123 456 789 00012`.
pub fn siret_grouped(siret: &str) -> String {
    match (siret.get(..3), siret.get(3..6), siret.get(6..9), siret.get(9..)) {
        (Some(a), Some(b), Some(c), Some(d)) => format!("{a} {b} {c} {d}"),
        _ => siret.to_string(),
    }
}

/// `CHE` + 9 digits, the last a check digit (weights 5 4 3 2 7 6 5 4, mod 11), then the
/// register: MWST, TVA or IVA.
fn swiss_uid(text: &str, rest: &str) -> Result<String, String> {
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let suffix = &rest[digits.len()..];
    let invalid = |why: &str| {
        Err(format!("\"{text}\" is not a Swiss VAT number (CHE-123.456.789 MWST, TVA or IVA): {why}"))
    };
    if digits.len() != 9 {
        return invalid("the UID must have 9 digits");
    }
    if !matches!(suffix, "MWST" | "TVA" | "IVA") {
        return invalid("it must end in MWST, TVA or IVA");
    }
    let d: Vec<u32> = digits.chars().filter_map(|c| c.to_digit(10)).collect();
    let sum: u32 = d[..8].iter().zip([5, 4, 3, 2, 7, 6, 5, 4]).map(|(d, w)| d * w).sum();
    let check = match 11 - sum % 11 {
        11 => 0,
        10 => return invalid("no UID has these first eight digits"),
        check => check,
    };
    if check != d[8] {
        return invalid("its check digit does not match (a typo?)");
    }
    Ok(format!("CHE-{}.{}.{} {suffix}", &digits[..3], &digits[3..6], &digits[6..]))
}

#[derive(Clone, Copy)]
enum Body {
    Digits,
    Alphanumeric,
}

/// EU VAT numbers after their prefix (Greece writes EL): the lengths and characters each
/// member state uses (European Commission, VIES).
const EU_FORMATS: [(&str, &[usize], Body); 28] = [
    ("AT", &[9], Body::Alphanumeric), // U + 8 digits
    ("BE", &[10], Body::Digits),
    ("BG", &[9, 10], Body::Digits),
    ("CY", &[9], Body::Alphanumeric), // 8 digits + a letter
    ("CZ", &[8, 9, 10], Body::Digits),
    ("DE", &[9], Body::Digits),
    ("DK", &[8], Body::Digits),
    ("EE", &[9], Body::Digits),
    ("EL", &[9], Body::Digits),
    ("ES", &[9], Body::Alphanumeric),
    ("FI", &[8], Body::Digits),
    ("FR", &[11], Body::Alphanumeric), // 2 check characters + 9 digits (SIREN)
    ("HR", &[11], Body::Digits),
    ("HU", &[8], Body::Digits),
    ("IE", &[8, 9], Body::Alphanumeric),
    ("IT", &[11], Body::Digits),
    ("LT", &[9, 12], Body::Digits),
    ("LU", &[8], Body::Digits),
    ("LV", &[11], Body::Digits),
    ("MT", &[8], Body::Digits),
    ("NL", &[12], Body::Alphanumeric), // 9 digits + B + 2 digits
    ("PL", &[10], Body::Digits),
    ("PT", &[9], Body::Digits),
    ("RO", &[2, 3, 4, 5, 6, 7, 8, 9, 10], Body::Digits),
    ("SE", &[12], Body::Digits),
    ("SI", &[8], Body::Digits),
    ("SK", &[10], Body::Digits),
    ("XI", &[9, 12], Body::Digits), // Northern Ireland
];

/// The fixed letters some countries put inside the number.
fn eu_shape(prefix: &str, body: &str) -> bool {
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    match prefix {
        "AT" => body.starts_with('U') && digits(&body[1..]),
        "CY" => digits(&body[..8]) && body.as_bytes()[8].is_ascii_alphabetic(),
        "FR" => digits(&body[2..]),
        "NL" => digits(&body[..9]) && &body[9..10] == "B" && digits(&body[10..]),
        _ => true,
    }
}

fn describe(lengths: &[usize], body: Body) -> String {
    let what = match body {
        Body::Digits => "digits",
        Body::Alphanumeric => "letters and digits",
    };
    match lengths {
        [one] => format!("expected {one} {what}"),
        [first, .., last] => format!("expected {first} to {last} {what}"),
        [] => String::new(),
    }
}

/// An e-mail address: one addr-spec (RFC 5322), `name@example.ch`, no display name.
pub fn check_email(text: &str) -> Result<String, String> {
    let address = text.trim();
    if address.contains(['<', '>', ',', ';', ' ']) || !email_address::EmailAddress::is_valid(address) {
        return Err(format!(
            "\"{text}\" is not an e-mail address (expected one address like name@example.ch)"
        ));
    }
    Ok(address.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swiss_uids_are_checked_by_their_check_digit() {
        // The Swiss federal administration's own UID, CHE-116.281.710.
        assert_eq!(check_vat_number("CHE-116.281.710 MWST"), Ok("CHE-116.281.710 MWST".into()));
        assert_eq!(check_vat_number("che116281710tva"), Ok("CHE-116.281.710 TVA".into()));
        assert!(check_vat_number("CHE-116.281.711 MWST").unwrap_err().contains("check digit"));
        assert!(check_vat_number("CHE-123").unwrap_err().contains("9 digits"));
        assert!(check_vat_number("CHE-116.281.710").unwrap_err().contains("MWST, TVA or IVA"));
    }

    #[test]
    fn eu_numbers_are_checked_by_country() {
        assert_eq!(check_vat_number("DE 123 456 789"), Ok("DE123456789".into()));
        assert_eq!(check_vat_number("ATU12345678"), Ok("ATU12345678".into()));
        assert_eq!(check_vat_number("NL123456789B01"), Ok("NL123456789B01".into()));
        assert!(check_vat_number("DE12345678").unwrap_err().contains("expected 9 digits"));
        assert!(check_vat_number("AT12345678").is_err());
        assert!(check_vat_number("US123456789").is_err());
    }

    #[test]
    fn e_mail_addresses_are_one_addr_spec() {
        assert_eq!(check_email(" stefan@example.ch "), Ok("stefan@example.ch".into()));
        for bad in ["not-an-email", "a@", "Stefan <s@example.ch>", "a@b.ch, c@d.ch", "@example.ch"] {
            assert!(check_email(bad).is_err(), "{bad}");
        }
    }
}
