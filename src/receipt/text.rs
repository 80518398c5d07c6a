//! The receipt as plain UTF-8 text for a terminal (80 columns) or a receipt printer
//! (`--width`, at least 32 columns).

use super::{Line, Receipt};
use textwrap::core::display_width;

/// The narrowest text receipt: a 58 mm receipt printer's line.
pub const MIN_WIDTH: u16 = 32;
pub const DEFAULT_WIDTH: u16 = 80;

/// Width of the label column of `Label  value` lines.
const LABEL: usize = 14;

/// Renders the receipt in lines of at most `width` columns (at least `MIN_WIDTH`).
pub fn render(receipt: &Receipt, width: u16) -> String {
    let width = usize::from(width.max(MIN_WIDTH));
    let mut out: Vec<String> = Vec::new();
    let mut lines = receipt.lines();
    let payment = receipt.payment_details();
    if !payment.is_empty() {
        lines.push(Line::Gap);
        lines.extend(payment.into_iter().map(|(label, value)| Line::Field(label.into(), value)));
    }
    for line in lines {
        match line {
            Line::Alert(text) => {
                let rule = "*".repeat(width);
                out.push(rule.clone());
                out.extend(wrap(&text, width));
                out.push(rule);
            }
            Line::Heading(text) | Line::Section(text) | Line::Plain(text) => out.extend(wrap(&text, width)),
            Line::Title { title, number } => out.extend(spread(&title.to_uppercase(), &number, width)),
            Line::Field(label, value) => {
                let label = clean(&label);
                let indent = " ".repeat(LABEL + 1);
                let mut values = wrap(&value, width - LABEL - 1).into_iter();
                let label_width = display_width(&label);
                if label_width <= LABEL {
                    let first = values.next().unwrap_or_default();
                    out.push(format!("{label}{}{first}", " ".repeat(LABEL + 1 - label_width)));
                } else {
                    out.extend(wrap(&label, width));
                }
                out.extend(values.map(|v| format!("{indent}{v}")));
            }
            Line::Item { text, amount } => out.extend(spread(&text, &amount, width)),
            Line::Total { label, amount, vat } => {
                out.extend(spread(&label, &amount, width));
                if let Some(vat) = vat {
                    out.push(format!("{:>width$}", clean(&vat), width = width));
                }
            }
            Line::Gap => out.push(String::new()),
        }
    }
    let mut text = out.into_iter().map(|l| l.trim_end().to_string()).collect::<Vec<_>>().join("\n");
    text.push('\n');
    text
}

/// `left` and `right` on one line, pushed apart; on two when they do not fit.
fn spread(left: &str, right: &str, width: usize) -> Vec<String> {
    let (left, right) = (clean(left), clean(right));
    let used = display_width(&left) + display_width(&right);
    if used < width {
        return vec![format!("{left}{}{right}", " ".repeat(width - used))];
    }
    let mut lines = wrap(&left, width);
    lines.extend(wrap(&right, width).into_iter().map(|l| format!("{l:>width$}")));
    lines
}

/// Text wrapped at `width` columns (by display width: wide characters count twice); a word
/// longer than a line is broken.
fn wrap(text: &str, width: usize) -> Vec<String> {
    textwrap::wrap(&clean(text), textwrap::Options::new(width).break_words(true))
        .into_iter()
        .map(|l| l.into_owned())
        .collect()
}

/// Control characters (a terminal would act on them) become spaces; line breaks stay.
fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\n' { ' ' } else { c }).collect()
}
