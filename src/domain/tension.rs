//! String tension as stringers write it: one value for mains and crosses, or mains/crosses,
//! in kilograms or pounds: `24`, `24/23`, `24 kg`, `24.5/23.5 kg`, `52 lb`, `52/50 lb`.

/// The plausible range of each unit: no racket is strung below or above it.
const KG: std::ops::RangeInclusive<f64> = 5.0..=40.0;
const LB: std::ops::RangeInclusive<f64> = 10.0..=90.0;

/// `text` as a tension, trimmed; refused when it is not a number, or a mains/crosses pair,
/// with an optional unit, or lies outside 5-40 kg or 10-90 lb (a value without a unit is in
/// kilograms up to 40, in pounds above). The refusal is the problem alone: whoever asked
/// names the input.
pub fn check_tension(text: &str) -> Result<String, String> {
    let trimmed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let shape = || {
        format!(
            "\"{text}\" is not a tension: write one value or mains/crosses, with kg or lb if you \
             like: 24, 24/23, 24.5/23.5 kg, 52/50 lb"
        )
    };
    let lower = trimmed.to_ascii_lowercase();
    let (values, unit) = match lower.strip_suffix("kg").map(|v| (v, Some("kg"))) {
        Some(found) => found,
        None => match lower.strip_suffix("lbs").or_else(|| lower.strip_suffix("lb")) {
            Some(values) => (values, Some("lb")),
            None => (lower.as_str(), None),
        },
    };
    let numbers: Vec<f64> = values
        .split('/')
        .map(|part| {
            let part = part.trim();
            let decimals = part.split_once(['.', ',']).map_or(0, |(_, fraction)| fraction.len());
            let plain = !part.is_empty()
                && decimals <= 2
                && part.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',');
            plain.then(|| part.replace(',', ".").parse::<f64>().ok()).flatten()
        })
        .collect::<Option<_>>()
        .filter(|numbers: &Vec<f64>| matches!(numbers.len(), 1 | 2))
        .ok_or_else(shape)?;
    let unit = unit.unwrap_or(if numbers.iter().all(|n| *n <= *KG.end()) { "kg" } else { "lb" });
    let range = if unit == "kg" { KG } else { LB };
    if numbers.iter().any(|n| !range.contains(n)) {
        return Err(format!(
            "\"{text}\" is outside {}-{} {unit}, where rackets are strung: check the value and its unit",
            range.start(),
            range.end()
        ));
    }
    Ok(trimmed)
}

#[cfg(test)]
mod tests {
    use super::check_tension;

    #[test]
    fn tensions_are_read_as_stringers_write_them() {
        for good in
            ["24", "24/23", "24 kg", "24.5/23.5 kg", "52 lb", "52/50 lb", "55", " 24 / 23 KG ", "24,5"]
        {
            assert!(check_tension(good).is_ok(), "{good}: {:?}", check_tension(good));
        }
        assert_eq!(check_tension(" 24 / 23  kg ").unwrap(), "24 / 23 kg");
        for bad in ["24/", "abc", "/23", "24/23/22", "24 kgs", "2.555", "-24", ""] {
            assert!(check_tension(bad).unwrap_err().contains("is not a tension"), "{bad}");
        }
        for implausible in ["4", "45 kg", "100 lb", "9 lb", "95"] {
            assert!(check_tension(implausible).unwrap_err().contains("is outside"), "{implausible}");
        }
    }
}
