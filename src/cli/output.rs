//! Printing: tables for people, JSON for scripts, identifiers alone on a line.

use serde::Serialize;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use tabled::Tabled;

/// Set once this process has done something that running the command again would repeat:
/// written to stdout, or had a message accepted by the mail server.
static BEYOND_REPEAT: AtomicBool = AtomicBool::new(false);

/// From here on, a failure is final: running the command again would repeat what it did.
pub fn beyond_repeat() {
    BEYOND_REPEAT.store(true, Ordering::Relaxed);
}

/// Whether this process did something that running the command again would repeat.
pub fn beyond_repeat_reached() -> bool {
    BEYOND_REPEAT.load(Ordering::Relaxed)
}

/// Standard output, which marks the command as done something once a byte goes out.
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !buf.is_empty() {
            beyond_repeat();
        }
        io::stdout().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush()
    }
}

/// `--format` of the commands that show something: a table for people, JSON for scripts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Shown {
    #[default]
    Table,
    Json,
}

/// `--format` of the listings that scripts also read into spreadsheets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Listed {
    #[default]
    Table,
    Json,
    Csv,
}

/// `--format` of the ledger: for an accountant's program.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Ledger {
    #[default]
    Csv,
    Json,
}

/// How `Rows` lays rows out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

impl From<Shown> for Format {
    fn from(shown: Shown) -> Format {
        match shown {
            Shown::Table => Format::Table,
            Shown::Json => Format::Json,
        }
    }
}

impl From<Listed> for Format {
    fn from(listed: Listed) -> Format {
        match listed {
            Listed::Table => Format::Table,
            Listed::Json => Format::Json,
            Listed::Csv => Format::Csv,
        }
    }
}

impl From<Ledger> for Format {
    fn from(ledger: Ledger) -> Format {
        match ledger {
            Ledger::Csv => Format::Csv,
            Ledger::Json => Format::Json,
        }
    }
}

/// Rows held in memory, written as `Rows` writes them.
pub fn rows<R: Tabled + Serialize>(format: impl Into<Format>, rows: &[R]) -> io::Result<()> {
    let mut out = Rows::new(format.into());
    for row in rows {
        out.push(row)?;
    }
    out.finish().map(drop)
}

pub fn json<T: Serialize + ?Sized>(value: &T) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    line(&text)
}

/// One line on stdout: an identifier a script captures, or a finished table.
pub fn line(text: &str) -> io::Result<()> {
    let mut out = Stdout;
    writeln!(out, "{text}")?;
    out.flush()
}

/// A table cell of an optional value (`#[tabled(display = ...)]`): empty for none.
pub fn optional<T: std::fmt::Display>(value: &Option<T>) -> String {
    value.as_ref().map(ToString::to_string).unwrap_or_default()
}

/// A cell for an optional value.
pub fn cell<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

pub use crate::domain::count;

/// Rows written as they come, so a long listing starts at once and never sits whole in
/// memory: a table (column widths from the first rows, within 120 columns; a wider cell is
/// cut), a JSON array, or CSV with a header row.
pub struct Rows<'a, R> {
    format: Format,
    sink: Sink<'a>,
    /// Table rows held until the widths are known.
    waiting: Vec<Vec<String>>,
    widths: Option<Vec<usize>>,
    /// The most columns a table may take (its widest columns narrowed, their cells cut).
    within: Option<usize>,
    written: usize,
    _row: std::marker::PhantomData<R>,
}

enum Sink<'a> {
    Text(io::BufWriter<Box<dyn Write + 'a>>),
    Csv(Box<csv::Writer<Box<dyn Write + 'a>>>),
}

/// Table rows looked at before the column widths are fixed.
const WIDTH_SAMPLE: usize = 1000;

impl<'a, R: Tabled + Serialize> Rows<'a, R> {
    /// Rows on stdout.
    pub fn new(format: Format) -> Rows<'static, R> {
        Rows::to(format, Box::new(Stdout))
    }

    pub fn to(format: Format, out: Box<dyn Write + 'a>) -> Rows<'a, R> {
        let sink = match format {
            Format::Csv => Sink::Csv(Box::new(csv::Writer::from_writer(out))),
            _ => Sink::Text(io::BufWriter::new(out)),
        };
        Rows {
            format,
            sink,
            waiting: Vec::new(),
            widths: None,
            within: None,
            written: 0,
            _row: std::marker::PhantomData,
        }
    }

    /// A table within a terminal's 120 columns: the widest columns narrowed until it fits,
    /// their longer cells cut.
    pub fn within_terminal(self) -> Self {
        Rows { within: Some(TABLE_WIDTH), ..self }
    }

    pub fn push(&mut self, row: &R) -> io::Result<()> {
        match (&mut self.sink, self.format) {
            (Sink::Csv(csv), _) => csv.serialize(row).map_err(csv_failure)?,
            (Sink::Text(out), Format::Json) => {
                let text = serde_json::to_string_pretty(row).map_err(io::Error::other)?;
                let indented = text.replace('\n', "\n  ");
                write!(out, "{}  {indented}", if self.written == 0 { "[\n" } else { ",\n" })?;
            }
            (Sink::Text(out), _) => {
                let cells: Vec<String> = row.fields().into_iter().map(|c| c.into_owned()).collect();
                match &self.widths {
                    Some(widths) => write_cells(out, &cells, widths)?,
                    None => {
                        self.waiting.push(cells);
                        if self.waiting.len() == WIDTH_SAMPLE {
                            self.start_table()?;
                        }
                    }
                }
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Ends the listing; returns how many rows it had.
    pub fn finish(mut self) -> io::Result<usize> {
        if self.format == Format::Table && self.widths.is_none() {
            self.start_table()?;
        }
        match (&mut self.sink, self.format) {
            (Sink::Csv(csv), _) => {
                if self.written == 0 {
                    let headers: Vec<String> = R::headers().into_iter().map(|h| h.into_owned()).collect();
                    csv.write_record(&headers).map_err(csv_failure)?;
                }
                csv.flush()?;
            }
            (Sink::Text(out), Format::Json) => {
                writeln!(out, "{}", if self.written == 0 { "[]" } else { "\n]" })?;
                out.flush()?;
            }
            (Sink::Text(out), _) => out.flush()?,
        }
        Ok(self.written)
    }

    /// Fixes the widths from the header and the rows so far, and writes them.
    fn start_table(&mut self) -> io::Result<()> {
        let Sink::Text(out) = &mut self.sink else {
            return Ok(());
        };
        let headers: Vec<String> = R::headers().into_iter().map(|h| h.into_owned()).collect();
        let mut widths: Vec<usize> = headers.iter().map(|h| display_width(h)).collect();
        for cells in &self.waiting {
            for (width, cell) in widths.iter_mut().zip(cells) {
                *width = (*width).max(display_width(cell));
            }
        }
        if let Some(within) = self.within {
            fit(&mut widths, &headers, within);
        }
        write_cells(out, &headers, &widths)?;
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(w + 2)).collect();
        writeln!(out, "{}", rule.join("+"))?;
        for cells in std::mem::take(&mut self.waiting) {
            write_cells(out, &cells, &widths)?;
        }
        self.widths = Some(widths);
        Ok(())
    }
}

/// The width a table may take: a terminal's 120 columns.
const TABLE_WIDTH: usize = 120;

/// Narrows the widest columns, a character at a time, until the table fits `within`
/// (each column takes two spaces of padding and a separator); never below its header, or
/// below a few characters.
fn fit(widths: &mut [usize], headers: &[String], within: usize) {
    let total = |widths: &[usize]| widths.iter().sum::<usize>() + 3 * widths.len() - 1;
    while total(widths) > within {
        let narrowest = |i: usize| display_width(&headers[i]).max(6);
        let Some(widest) =
            (0..widths.len()).filter(|&i| widths[i] > narrowest(i)).max_by_key(|&i| (widths[i], i))
        else {
            return;
        };
        widths[widest] -= 1;
    }
}

/// One table line, as tabled's psql style draws it; a cell wider than its column is cut,
/// and ends in "…" (the JSON and CSV listings hold it whole).
fn write_cells(out: &mut impl Write, cells: &[String], widths: &[usize]) -> io::Result<()> {
    let padded: Vec<String> = cells
        .iter()
        .zip(widths)
        .map(|(cell, &width)| {
            let cell = cut(cell, width);
            format!(" {cell}{} ", " ".repeat(width.saturating_sub(display_width(&cell))))
        })
        .collect();
    writeln!(out, "{}", padded.join("|"))
}

/// `text` within `width` columns, never cut inside a character.
fn cut(text: &str, width: usize) -> std::borrow::Cow<'_, str> {
    if display_width(text) <= width {
        return text.into();
    }
    let mut kept = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = display_width(c.encode_utf8(&mut [0; 4]));
        if used + w + 1 > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    kept.push('…');
    kept.into()
}

fn display_width(text: &str) -> usize {
    textwrap::core::display_width(text)
}

/// The csv writer's failure as the I/O error it is, when it is one: a reader that went away
/// stays a broken pipe, which is no failure (`receipts export --year 2026 | head -1`).
fn csv_failure(error: csv::Error) -> io::Error {
    if !error.is_io_error() {
        return io::Error::other(error);
    }
    match error.into_kind() {
        csv::ErrorKind::Io(io) => io,
        kind => io::Error::other(format!("{kind:?}")),
    }
}
