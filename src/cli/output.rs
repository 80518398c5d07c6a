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
    /// Each column's width, None for a column left out.
    widths: Option<Vec<Option<usize>>>,
    /// The most columns a table may take (its widest columns narrowed, their cells cut).
    within: Option<usize>,
    fit: Fit,
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
            fit: Fit::default(),
            written: 0,
            _row: std::marker::PhantomData,
        }
    }

    /// A table within the terminal's width (`terminal_width`): the widest columns narrowed
    /// until it fits, their longer cells cut.
    pub fn within_terminal(self) -> Self {
        Rows { within: Some(terminal_width()), ..self }
    }

    /// Within the terminal as `fit` says.
    pub fn fitted(self, fit: Fit) -> Self {
        Rows { fit, ..self.within_terminal() }
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
        let mut widths: Vec<Option<usize>> = widths.into_iter().map(Some).collect();
        for (i, header) in headers.iter().enumerate() {
            let empty = self.waiting.iter().all(|cells| cells.get(i).is_none_or(String::is_empty));
            if empty && self.fit.when_filled.contains(&header.as_str()) {
                widths[i] = None;
            }
        }
        if let Some(within) = self.within {
            self.fit.apply(&mut widths, &headers, within);
        }
        write_cells(out, &headers, &widths)?;
        let rule: Vec<String> = widths.iter().flatten().map(|w| "-".repeat(w + 2)).collect();
        writeln!(out, "{}", rule.join("+"))?;
        for cells in std::mem::take(&mut self.waiting) {
            write_cells(out, &cells, &widths)?;
        }
        self.widths = Some(widths);
        Ok(())
    }
}

/// The width a table may take: the terminal's, when standard output is one; else `COLUMNS`
/// (as a shell sets it); else 120.
fn terminal_width() -> usize {
    if let Some((terminal_size::Width(columns), _)) = terminal_size::terminal_size() {
        return usize::from(columns);
    }
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|&c| c >= 20).unwrap_or(120)
}

/// How a table fits the terminal, by the columns' headers: which are shown only when the
/// rows fill them, which are narrowed before the others (down to sixteen characters), which are then left out while it is still too wide
/// (in that order), and which are never cut. A column never named is narrowed last.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fit {
    /// Columns shown only when a row says something in them.
    pub when_filled: &'static [&'static str],
    pub shorten_first: &'static [&'static str],
    pub leave_out: &'static [&'static str],
    pub whole: &'static [&'static str],
}

impl Fit {
    /// Narrows the widest columns, a character at a time, and leaves some out, until the
    /// table fits `within` (each column takes two spaces of padding and a separator); never
    /// below a column's header, or six characters.
    fn apply(&self, widths: &mut [Option<usize>], headers: &[String], within: usize) {
        let named = |names: &[&str], i: usize| names.contains(&headers[i].as_str());
        let total = |widths: &[Option<usize>]| {
            let shown: Vec<usize> = widths.iter().flatten().copied().collect();
            shown.iter().sum::<usize>() + (3 * shown.len()).saturating_sub(1)
        };
        let header = |i: usize| display_width(&headers[i]);
        let narrow =
            |widths: &mut [Option<usize>], which: &dyn Fn(usize) -> bool, floor: &dyn Fn(usize) -> usize| {
                while total(widths) > within {
                    let widest = (0..widths.len())
                        .filter_map(|i| Some((widths[i]?, i)))
                        .filter(|&(width, i)| which(i) && width > floor(i))
                        .max();
                    let Some((width, i)) = widest else { return };
                    widths[i] = Some(width - 1);
                }
            };
        narrow(widths, &|i| named(self.shorten_first, i), &|i| header(i).max(16));
        for left_out in self.leave_out {
            if total(widths) <= within {
                break;
            }
            if let Some(i) = headers.iter().position(|h| h == left_out) {
                widths[i] = None;
            }
        }
        narrow(widths, &|i| !named(self.whole, i), &|i| match named(self.shorten_first, i) {
            true => header(i),
            false => header(i).max(6),
        });
    }
}

/// One table line, as tabled's psql style draws it; a cell wider than its column is cut,
/// and ends in "…" (the JSON and CSV listings hold it whole).
fn write_cells(out: &mut impl Write, cells: &[String], widths: &[Option<usize>]) -> io::Result<()> {
    let padded: Vec<String> = cells
        .iter()
        .zip(widths)
        .filter_map(|(cell, width)| Some((cell, (*width)?)))
        .map(|(cell, width)| {
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
