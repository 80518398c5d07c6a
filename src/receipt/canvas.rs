//! The PDF canvas the documents are drawn on: PDF/A-2b documents (krilla writes them and
//! checks the standard), the embedded fonts (DejaVu Sans; Liberation Sans on the QR-bill,
//! whose guidelines allow only it among free fonts), lines broken with the font's own
//! metrics (shaped by rustybuzz, as krilla shapes what it draws) so nothing runs off the
//! page, and pages that fill from the top.

use crate::error::Error;
use krilla::color::rgb;
use krilla::configure::{Archival, ConfigurationBuilder, Validator};
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::Fill;
use krilla::surface::Surface;
use krilla::text::{Font, TextDirection};
use krilla::{Document, SerializeSettings};
use std::sync::OnceLock;

const REGULAR: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const BOLD: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");
const SLIP_REGULAR: &[u8] = include_bytes!("../../assets/fonts/LiberationSans-Regular.ttf");
const SLIP_BOLD: &[u8] = include_bytes!("../../assets/fonts/LiberationSans-Bold.ttf");

/// Points in a millimetre.
pub(super) const MM: f32 = 72.0 / 25.4;
/// A4 in points, and margins of 20 mm.
pub(super) const PAGE: (f32, f32) = (595.276, 841.89);
pub(super) const MARGIN: f32 = 56.69;
pub(super) const WIDTH: f32 = PAGE.0 - 2.0 * MARGIN;
/// The label column of `Label  value` lines.
const LABEL: f32 = 150.0;

/// A font, both as krilla draws it and as rustybuzz measures it.
pub struct Face {
    font: Font,
    shaper: rustybuzz::Face<'static>,
}

impl Face {
    fn load(data: &'static [u8]) -> Face {
        // The fonts are part of the program: failing to read them is a build defect.
        let font = Font::new(data.to_vec().into(), 0).expect("an embedded font krilla can read");
        let shaper = rustybuzz::Face::from_slice(data, 0).expect("an embedded font rustybuzz can read");
        Face { font, shaper }
    }

    /// The width of `text` at `size` points, as shaped for drawing.
    pub(super) fn width(&self, text: &str, size: f32) -> f32 {
        let mut buffer = rustybuzz::UnicodeBuffer::new();
        buffer.push_str(text);
        buffer.guess_segment_properties();
        let shaped = rustybuzz::shape(&self.shaper, &[], buffer);
        let units: i32 = shaped.glyph_positions().iter().map(|p| p.x_advance).sum();
        units as f32 * size / f32::from(self.shaper.units_per_em() as u16)
    }

    /// The first character the font has no glyph for.
    fn missing(&self, text: &str) -> Option<char> {
        text.chars().find(|&c| !c.is_control() && !c.is_whitespace() && self.shaper.glyph_index(c).is_none())
    }
}

/// The document's fonts, regular and bold, loaded when first used.
pub(super) fn faces() -> &'static (Face, Face) {
    static FACES: OnceLock<(Face, Face)> = OnceLock::new();
    FACES.get_or_init(|| (Face::load(REGULAR), Face::load(BOLD)))
}

/// The QR-bill's fonts, regular and bold.
pub(super) fn slip_faces() -> &'static (Face, Face) {
    static FACES: OnceLock<(Face, Face)> = OnceLock::new();
    FACES.get_or_init(|| (Face::load(SLIP_REGULAR), Face::load(SLIP_BOLD)))
}

/// A new PDF/A-2b document: krilla refuses to write what the standard does not allow.
pub(super) fn archival_document() -> Result<Document, Error> {
    archival_document_as(Archival::A2_B)
}

/// A document checked against `archival` (PDF/A-3b for a hybrid e-invoice).
pub(super) fn archival_document_as(archival: Archival) -> Result<Document, Error> {
    let configuration =
        ConfigurationBuilder::new().set_validator(Validator::A(archival)).finish().map_err(|e| {
            Error::Internal { what: "the PDF/A settings are inconsistent", detail: format!("{e:?}") }
        })?;
    Ok(Document::new_with(SerializeSettings { configuration, ..SerializeSettings::default() }))
}

/// Text a document would print, refused (naming `field`) when the document's fonts cannot
/// show it: checked where it is entered, so that no number is issued for a document that
/// cannot be printed.
pub fn check_printable(field: &'static str, text: &str) -> Result<(), Error> {
    let (regular, bold) = faces();
    match regular.missing(text).or_else(|| bold.missing(text)) {
        Some(character) => Err(Error::Unprintable { field, character }),
        None => Ok(()),
    }
}

/// Colours as red, green, blue.
pub(super) type Colour = (u8, u8, u8);
pub(super) const BLACK: Colour = (0, 0, 0);
pub(super) const WHITE: Colour = (255, 255, 255);
pub(super) const RED: Colour = (190, 20, 20);

/// Lays lines out top to bottom, starting a new page when one is full.
pub(super) struct Pages<'a> {
    document: &'a mut Document,
    pages: Vec<Vec<Item>>,
    y: f32,
}

/// What is drawn on a page.
pub(super) enum Item {
    /// Text whose baseline starts at a point.
    Text { face: &'static Face, size: f32, color: Colour, at: (f32, f32), text: String },
    /// A filled rectangle: x, y (its top), width, height.
    Rect { color: Colour, at: (f32, f32), size: (f32, f32) },
}

impl<'a> Pages<'a> {
    pub(super) fn new(document: &'a mut Document) -> Pages<'a> {
        Pages { document, pages: vec![Vec::new()], y: MARGIN }
    }

    /// Room for a line of `size` points: on this page, or on a new one.
    fn advance(&mut self, size: f32) -> f32 {
        let height = size * 1.35;
        if self.y + height > PAGE.1 - MARGIN && !self.pages.last().is_some_and(Vec::is_empty) {
            self.new_page();
        }
        self.y += height;
        self.y - size * 0.3
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN;
    }

    /// The top of a block `height` points high below what is placed so far, or on a new page
    /// when this one cannot hold it above `bottom` (a y); the block is then taken.
    pub(super) fn block(&mut self, height: f32, bottom: f32) -> f32 {
        if self.y + height > bottom && !self.pages.last().is_some_and(Vec::is_empty) {
            self.new_page();
        }
        let top = self.y;
        self.y += height;
        top
    }

    /// The free height below what is placed so far on this page.
    pub(super) fn free_below(&self) -> f32 {
        PAGE.1 - self.y
    }

    /// Starts a page that holds nothing but what comes next.
    pub(super) fn fresh_page(&mut self) {
        if !self.pages.last().is_some_and(Vec::is_empty) {
            self.new_page();
        }
    }

    pub(super) fn place(
        &mut self,
        face: &'static Face,
        size: f32,
        color: Colour,
        x: f32,
        baseline: f32,
        text: &str,
    ) {
        let item = Item::Text { face, size, color, at: (x, baseline), text: text.to_string() };
        self.pages.last_mut().expect("a page").push(item);
    }

    /// A filled rectangle with its top left corner at (x, y).
    pub(super) fn rect(&mut self, color: Colour, x: f32, y: f32, width: f32, height: f32) {
        self.pages.last_mut().expect("a page").push(Item::Rect { color, at: (x, y), size: (width, height) });
    }

    /// Text wrapped within `width` points, starting `indent` points in.
    pub(super) fn paragraph(
        &mut self,
        face: &'static Face,
        size: f32,
        text: &str,
        color: Colour,
        indent: f32,
        width: f32,
    ) {
        for line in wrap(face, size, text, width) {
            let baseline = self.advance(size);
            self.place(face, size, color, MARGIN + indent, baseline, &line);
        }
    }

    /// A label, and its value wrapped in the column beside it.
    pub(super) fn field(&mut self, face: &'static Face, label: &str, value: &str) {
        let size = 10.0;
        let labels = wrap(face, size, label, LABEL - 8.0);
        let values = wrap(face, size, value, WIDTH - LABEL);
        for i in 0..labels.len().max(values.len()) {
            let baseline = self.advance(size);
            if let Some(label) = labels.get(i) {
                self.place(face, size, GRAY, MARGIN, baseline, label);
            }
            if let Some(value) = values.get(i) {
                self.place(face, size, BLACK, MARGIN + LABEL, baseline, value);
            }
        }
    }

    /// `left` at the margin and `right` flush right, on one line when they fit.
    pub(super) fn spread(&mut self, face: &'static Face, size: f32, left: &str, right: &str) {
        let fits = face.width(left, size) + face.width(right, size) + 12.0 <= WIDTH;
        if !fits {
            self.paragraph(face, size, left, BLACK, 0.0, WIDTH);
            self.right(face, size, right);
            return;
        }
        let baseline = self.advance(size);
        self.place(face, size, BLACK, MARGIN, baseline, left);
        self.place(face, size, BLACK, MARGIN + WIDTH - face.width(right, size), baseline, right);
    }

    /// Text flush right, wrapped if it must be.
    pub(super) fn right(&mut self, face: &'static Face, size: f32, text: &str) {
        for line in wrap(face, size, text, WIDTH) {
            let baseline = self.advance(size);
            self.place(face, size, BLACK, MARGIN + WIDTH - face.width(&line, size), baseline, &line);
        }
    }

    pub(super) fn gap(&mut self, points: f32) {
        self.y += points;
    }

    pub(super) fn finish(self) {
        for page in self.pages {
            let settings = PageSettings::from_wh(PAGE.0, PAGE.1).expect("A4 is a valid page size");
            let mut pdf_page = self.document.start_page_with(settings);
            let mut surface = pdf_page.surface();
            for item in page {
                draw(&mut surface, &item);
            }
            surface.finish();
            pdf_page.finish();
        }
    }
}

const GRAY: Colour = (90, 90, 90);

pub(super) fn draw(surface: &mut Surface<'_>, item: &Item) {
    let fill = |color: &Colour| Fill {
        paint: rgb::Color::new(color.0, color.1, color.2).into(),
        opacity: NormalizedF32::ONE,
        rule: Default::default(),
    };
    match item {
        Item::Text { face, size, color, at, text } => {
            surface.set_fill(Some(fill(color)));
            surface.draw_text(
                Point::from_xy(at.0, at.1),
                face.font.clone(),
                *size,
                text,
                false,
                TextDirection::Auto,
            );
        }
        Item::Rect { color, at, size } => {
            let mut path = PathBuilder::new();
            if let Some(rect) = Rect::from_xywh(at.0, at.1, size.0, size.1) {
                path.push_rect(rect);
            }
            if let Some(path) = path.finish() {
                surface.set_fill(Some(fill(color)));
                surface.draw_path(&path);
            }
        }
    }
}

/// `text` broken into lines no wider than `width` points: at the break opportunities of
/// Unicode's line breaking rules (found by textwrap), a word wider than a line broken
/// between characters, and the text's own line breaks kept.
pub(super) fn wrap(face: &Face, size: f32, text: &str, width: f32) -> Vec<String> {
    use textwrap::core::Fragment;
    use textwrap::WordSeparator;

    /// A word with its measured widths, for textwrap's wrapping algorithm.
    #[derive(Debug)]
    struct Piece {
        text: String,
        whitespace: String,
        width: f64,
        whitespace_width: f64,
    }
    impl Fragment for Piece {
        fn width(&self) -> f64 {
            self.width
        }
        fn whitespace_width(&self) -> f64 {
            self.whitespace_width
        }
        fn penalty_width(&self) -> f64 {
            0.0
        }
    }

    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut pieces = Vec::new();
        for word in WordSeparator::UnicodeBreakProperties.find_words(paragraph) {
            for part in split_to_width(face, size, word.word, width) {
                let piece_width = f64::from(face.width(&part, size));
                pieces.push(Piece {
                    text: part,
                    whitespace: String::new(),
                    width: piece_width,
                    whitespace_width: 0.0,
                });
            }
            if let Some(last) = pieces.last_mut() {
                last.whitespace = word.whitespace.to_string();
                last.whitespace_width = f64::from(face.width(word.whitespace, size));
            }
        }
        let wrapped = textwrap::wrap_algorithms::wrap_first_fit(&pieces, &[f64::from(width)]);
        if wrapped.is_empty() {
            lines.push(String::new());
        }
        for line in wrapped {
            let mut text = String::new();
            for (i, piece) in line.iter().enumerate() {
                text.push_str(&piece.text);
                if i + 1 < line.len() {
                    text.push_str(&piece.whitespace);
                }
            }
            lines.push(text);
        }
    }
    lines
}

/// A word as it is, or, if wider than `width`, cut into parts that fit.
fn split_to_width(face: &Face, size: f32, word: &str, width: f32) -> Vec<String> {
    if face.width(word, size) <= width {
        return vec![word.to_string()];
    }
    let mut parts = Vec::new();
    let mut part = String::new();
    for c in word.chars() {
        part.push(c);
        if face.width(&part, size) > width && part.chars().count() > 1 {
            part.pop();
            parts.push(std::mem::take(&mut part));
            part.push(c);
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}
