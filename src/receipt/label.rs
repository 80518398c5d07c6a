//! The racket's label (SPEC 19): one page of exactly the label's size, for a label printer's
//! roll (62 × 100 mm) or a shipping label (4 × 6 in). The order id in large type, the
//! customer, the racket and its tag, the string and tension, the promised time, and a QR
//! code of the order. Every line fits the label's width: a long one is set smaller, down to a
//! readable 7 pt, and only what does not fit even then is shortened with "…" between whole
//! characters as people see them (grapheme clusters), never inside one.

use super::canvas::{archival_document, draw, faces, Face, Item, BLACK};
use crate::error::Error;
use crate::payment::qr;
use chrono::{Datelike, NaiveDate};
use krilla::metadata::{DateTime, Metadata};
use krilla::page::PageSettings;
use unicode_segmentation::UnicodeSegmentation;

/// Points in a millimetre.
const MM: f32 = 72.0 / 25.4;

/// The label sizes offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, strum::VariantArray, strum::IntoStaticStr)]
pub enum Size {
    /// 62 × 100 mm, the continuous roll of common label printers.
    #[default]
    #[strum(serialize = "62x100mm")]
    Roll62x100,
    /// 4 × 6 in, the shipping label.
    #[strum(serialize = "4x6in")]
    Shipping4x6,
}

impl Size {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Width and height in points.
    pub fn points(self) -> (f32, f32) {
        match self {
            Size::Roll62x100 => (62.0 * MM, 100.0 * MM),
            Size::Shipping4x6 => (4.0 * 72.0, 6.0 * 72.0),
        }
    }
}

impl std::str::FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Size, String> {
        crate::domain::named(text, "a label size")
    }
}

/// What a label shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub order: i64,
    pub customer: Option<String>,
    /// The racket, with the shop's tag on it.
    pub racket: Option<String>,
    /// The string (a hybrid's as mains / crosses) and the tension.
    pub string: Option<String>,
    pub tension: Option<String>,
    /// The promised time as the stringer reads it, with its word: "due 2026-11-26 17:00".
    pub due: Option<String>,
    /// What the QR code holds (`ops::label` says what: the order's page, or
    /// `receipts:order:ID`).
    pub code: String,
}

/// One page per label, each exactly `size`; `made_on` is the document's date (PDF/A needs
/// one; no clock is read here, so the same labels of a day give the same bytes).
pub fn render(labels: &[Label], size: Size, made_on: NaiveDate) -> Result<Vec<u8>, Error> {
    let mut document = archival_document()?;
    let title = match labels {
        [one] => format!("order {}", one.order),
        _ => format!("{} labels", labels.len()),
    };
    let date = DateTime::new(made_on.year() as u16).month(made_on.month() as u8).day(made_on.day() as u8);
    document.set_metadata(Metadata::new().title(title).creator("receipts".to_string()).creation_date(date));
    let (width, height) = size.points();
    for label in labels {
        let settings = PageSettings::from_wh(width, height).ok_or_else(|| Error::Internal {
            what: "the label",
            detail: "a page size krilla refuses".into(),
        })?;
        let mut page = document.start_page_with(settings);
        let mut surface = page.surface();
        for item in layout(label, size)? {
            draw(&mut surface, &item);
        }
        surface.finish();
        page.finish();
    }
    document
        .finish()
        .map_err(|e| Error::Internal { what: "the label could not be written", detail: format!("{e:?}") })
}

/// The label's text and code, top to bottom, within a margin of 3 mm (4 × 6 in: scaled).
fn layout(label: &Label, size: Size) -> Result<Vec<Item>, Error> {
    let (width, height) = size.points();
    let scale = width / (62.0 * MM);
    let margin = 3.0 * MM * scale;
    let inner = width - 2.0 * margin;
    let (regular, bold) = faces();
    let mut items = Vec::new();
    let mut y = margin;
    let mut line = |face: &'static Face, points: f32, text: &str, items: &mut Vec<Item>| {
        let points = points * scale;
        y += points;
        let (size, text) = fitted(face, points, MIN_POINTS * scale, text, inner);
        items.push(Item::Text { face, size, color: BLACK, at: (margin, y - points * 0.22), text });
        y += points * 0.25;
    };
    line(bold, 30.0, &format!("#{}", label.order), &mut items);
    if let Some(customer) = &label.customer {
        line(bold, 13.0, customer, &mut items);
    }
    for text in [label.racket.as_ref(), label.string.as_ref(), label.tension.as_ref(), label.due.as_ref()]
        .into_iter()
        .flatten()
    {
        line(regular, 10.0, text, &mut items);
    }
    // The code below the text, as large as the rest of the label holds (at most 40 mm), with
    // the quiet zone of four modules around it that readers need.
    let matrix = qr::encode(&label.code)
        .ok_or_else(|| Error::BadInput(format!("\"{}\" is too long for a QR code", label.code)))?;
    let modules = matrix.width as f32;
    let room = (height - y - 2.0 * MM * scale).min(width);
    let side = (room * modules / (modules + 8.0)).min(40.0 * MM * scale);
    if side < 15.0 * MM {
        return Err(Error::Internal { what: "the label", detail: "no room left for its QR code".into() });
    }
    let module = side / modules;
    let left = (width - side) / 2.0;
    let top = height - side - 4.0 * module;
    for row in 0..matrix.width {
        let mut column = 0;
        while column < matrix.width {
            if !matrix.dark[row * matrix.width + column] {
                column += 1;
                continue;
            }
            let start = column;
            while column < matrix.width && matrix.dark[row * matrix.width + column] {
                column += 1;
            }
            items.push(Item::Rect {
                color: BLACK,
                at: (left + start as f32 * module, top + row as f32 * module),
                size: ((column - start) as f32 * module, module),
            });
        }
    }
    Ok(items)
}

/// The smallest type a label's line is set in (points, on the 62 mm label) before it is cut.
const MIN_POINTS: f32 = 7.0;

/// `text` on one line within `width` points, and the size it is set in: `size` when it fits,
/// else the size it fits at, down to `min`; what does not fit at `min` either is shortened at
/// the end to whole grapheme clusters followed by "…".
fn fitted(face: &Face, size: f32, min: f32, text: &str, width: f32) -> (f32, String) {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let wide = face.width(&text, size);
    if wide <= width {
        return (size, text);
    }
    // Widths scale with the size: a hair below the exact ratio, so rounding cannot overflow.
    let shrunk = size * width / wide * 0.999;
    if shrunk >= min {
        return (shrunk, text);
    }
    let clusters: Vec<&str> = text.graphemes(true).collect();
    let mut kept = clusters.len();
    while kept > 0 {
        let shortened = format!("{}…", clusters[..kept].concat().trim_end());
        if face.width(&shortened, min) <= width {
            return (min, shortened);
        }
        kept -= 1;
    }
    (min, "…".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_set_smaller_and_cut_only_below_the_smallest_size() {
        let (regular, bold) = faces();
        assert_eq!(fitted(regular, 13.0, 7.0, "Roger", 150.0), (13.0, "Roger".to_string()));
        // A name a little too wide is set smaller, whole.
        let (size, whole) = fitted(bold, 13.0, 7.0, "Roger Federer-Muster", 100.0);
        assert!((7.0..13.0).contains(&size) && bold.width(&whole, size) <= 100.0, "{size} {whole}");
        assert_eq!(whole, "Roger Federer-Muster");
        // One too wide even at the smallest size is cut there.
        let name = "Zoé Bénédicte-Anne de la Fontaine-Schwarzenbach-Lévêque";
        let (size, short) = fitted(regular, 13.0, 7.0, name, 100.0);
        assert!(size == 7.0 && short.ends_with('…') && regular.width(&short, 7.0) <= 100.0, "{short}");
        assert!(name.starts_with(short.trim_end_matches('…')));
        // "e" and a combining acute accent are one character as people see it: both or none.
        let decomposed = "Rene\u{301}e ".repeat(20);
        let (_, cut) = fitted(regular, 13.0, 7.0, &decomposed, 100.0);
        let body = cut.trim_end_matches('…');
        assert!(!body.ends_with('e') || !decomposed[body.len()..].starts_with('\u{301}'), "{cut:?}");
    }

    #[test]
    fn sizes_are_the_labels_own() {
        let (w, h) = Size::Roll62x100.points();
        assert!((w - 175.748).abs() < 0.01 && (h - 283.465).abs() < 0.01);
        assert_eq!(Size::Shipping4x6.points(), (288.0, 432.0));
        assert_eq!("4X6IN".parse::<Size>(), Ok(Size::Shipping4x6));
        assert!("A4".parse::<Size>().unwrap_err().contains("62x100mm or 4x6in"));
    }
}
